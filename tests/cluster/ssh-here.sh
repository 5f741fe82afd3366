#!/bin/sh
# ssh-here.sh - stands in for ssh where no ssh server runs (make check): parallel's --ssh
# calls it as ssh [OPTIONS] HOST [--] COMMAND...; it drops the options and the host and runs
# the command with sh on this machine, as sshd would run it with the login shell.  sshd sets
# SHELL to that login shell, and parallel's remote wrapper runs each job with $SHELL (left
# unset, as in a clean environment, the job is not run at all and parallel still exits 0).
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
if [ -z "${SHELL-}" ]; then
	SHELL=$(getent passwd "$(id -un)" | cut -d: -f7)
	SHELL=${SHELL:-/bin/sh}
fi
export SHELL
exec sh -c "$*"
