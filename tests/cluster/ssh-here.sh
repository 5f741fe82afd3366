#!/bin/sh
# ssh-here.sh - stands in for ssh where no ssh server runs (make check): parallel's --ssh
# calls it as ssh [OPTIONS] HOST [--] COMMAND...; it drops the options and the host and runs
# the command with sh on this machine, as sshd would run it with the login shell.
while [ $# -gt 0 ]; do
	case $1 in
	-[bcDEeFIiJLlmOoPpQRSWw]) shift 2 ;;
	--) shift; break ;;
	-*) shift ;;
	*) break ;;
	esac
done
shift                   # the host
[ "${1-}" = -- ] && shift
exec sh -c "$*"
