/*
 * preambles_ns.c - the shell text that opens the xfs_io script of a
 * namespace scenario (docs/real-kernel.md, "Namespace scenarios"): the
 * header, the usage and the shell functions that run the namespace steps
 * with their own system calls (perl's mkdir, rmdir, link, unlink,
 * symlink, open, and renameat2 by its system call number), fsync a path
 * (xfs_io -r), and read the whole tree at each point in the form of
 * lib/nsnap.h's nsnap_text, its content hash computed the same way; and
 * the namespace fstests test's shell functions (its tree lister, its
 * namespace step and check helpers).
 */
#include "export.h"

/*
 * The tree under the mount point as nsnap_text's lines: every name with its
 * type, inode, link count, size and content hash (the MD5 of the content's
 * runs of one byte, each as its length in 8 bytes little-endian and the
 * byte; a directory's 0), sorted by path bytewise; the commit file left out.
 */
#define NS_LIST_PERL \
	"use strict; use Digest::MD5; my $root = shift; my @out;\n" \
	"sub h { my ($fh) = @_; my $m = Digest::MD5->new; my ($n, $b) = (0, -1);\n" \
	"  local $/ = \\65536;\n" \
	"  while (defined(my $buf = <$fh>)) {\n" \
	"    while ($buf =~ /\\G((.)\\2*)/sg) { my ($l, $c) = (length $1, ord $2);\n" \
	"      if ($c == $b) { $n += $l } else { $m->add(pack(\"Q<C\", $n, $b)) if $n; ($n, $b) = ($l, $c) } } }\n" \
	"  $m->add(pack(\"Q<C\", $n, $b)) if $n;\n" \
	"  return sprintf(\"%016x%016x\", unpack(\"Q<Q<\", $m->digest)); }\n" \
	"sub walk { my ($rel) = @_; my $p = $root . $rel; my $name = $rel eq \"\" ? \"/\" : $rel;\n" \
	"  my @st = lstat($p) or die \"lstat $p: $!\\n\"; my $d = \"ino $st[1] nlink $st[3] size $st[7]\";\n" \
	"  if (-l _) { my $t = readlink($p); open(my $fh, \"<\", \\$t) or die;\n" \
	"    push @out, \"$name lnk $d \" . h($fh) . \" -> $t\"; }\n" \
	"  elsif (-d _) { push @out, \"$name dir $d \" . (\"0\" x 32);\n" \
	"    opendir(my $dh, $p) or die \"opendir $p: $!\\n\";\n" \
	"    for my $e (sort readdir $dh) { next if $e eq \".\" || $e eq \"..\";\n" \
	"      next if $rel eq \"\" && $e eq \"ext4sim-commit\"; walk(\"$rel/$e\"); } }\n" \
	"  else { open(my $fh, \"<:raw\", $p) or die \"open $p: $!\\n\";\n" \
	"    push @out, \"$name reg $d \" . h($fh); } }\n" \
	"walk(\"\"); print \"$_\\n\" for sort @out;\n"

/* One namespace step by its system call; a failure is printed (the errno is the step's result). */
#define NS_OP_PERL \
	"my ($op, $a, $b, $fl) = @ARGV; my $ok;\n" \
	"if ($op eq \"creat\") { $ok = open(my $f, \">\", $a); close($f) if $ok }\n" \
	"elsif ($op eq \"mkdir\") { $ok = mkdir($a) } elsif ($op eq \"rmdir\") { $ok = rmdir($a) }\n" \
	"elsif ($op eq \"unlink\") { $ok = unlink($a) } elsif ($op eq \"link\") { $ok = link($a, $b) }\n" \
	"elsif ($op eq \"symlink\") { $ok = symlink($a, $b) }\n" \
	"elsif ($op eq \"rename\") { $ok = syscall(316, -100, $a, -100, $b, $fl + 0) == 0 }\n" \
	"else { die \"nsop: $op?\\n\" }\n" \
	"print \"$op @ARGV[1..$#ARGV]: $!\\n\" unless $ok;\n"

/*
 * The namespace script up to its first step.  Keys: name, path,
 * block_size, options, config, mapping, steps, model, as the one-file
 * script's.
 */
const char xp_xfs_io_ns_preamble[] =
	"#!/bin/bash\n"
	"# @{name}: ext4sim scenario @{name}, exported to run on a real ext4\n"
	"# (@{path}).\n"
	"@{config}"
	"#\n"
	"# usage: @{name}.sh MOUNTPOINT [SAVE_DIR]\n"
	"#\n"
	"# MOUNTPOINT is a mounted ext4 with @{block_size}-byte blocks, mounted with\n"
	"#   -o @{options}\n"
	"# (the remounts use these options; EXT4SIM_MOUNT_OPTIONS overrides them).\n"
	"# Run as root, on x86-64 (renameat2 by its number).  The script creates\n"
	"# MOUNTPOINT/f, empty and synced (and MOUNTPOINT/ext4sim-commit, whose fsync\n"
	"# stands for the model's commit), runs the steps (xfs_io on the current file,\n"
	"# perl for each namespace step's system call, xfs_io -r for fsync PATH) and\n"
	"# prints the namespace as a reader sees it, one \"WHAT ns PATH TYPE ino I nlink\n"
	"# N size S HASH\" line per name (ext4sim-commit left out), before each crash\n"
	"# (\"pre N\"), after its shutdown and remount (\"post N\", then \"post N fsck RC\",\n"
	"# e2fsck -fn's exit status after an unmount) and at the end (\"final\").  With\n"
	"# SAVE_DIR each point's listing is kept there (pre1.ns, ...), with the\n"
	"# commands' output (xfs_io.log).\n"
	"#\n"
	"@{mapping}"
	"#\n"
	"# The steps as run (the model's step numbers):\n"
	"@{steps}"
	"#\n"
	"# What the model predicts (state: a state the model lists for the crash point):\n"
	"@{model}"
	XP_SCRIPT_CHECKS("xfs_io findmnt stat perl e2fsck mount umount")
	"NS_LIST='" NS_LIST_PERL "'\n"
	"NS_OP='" NS_OP_PERL "'\n"
	"\n"
	"# the current file (open PATH names it) and the flags of its next opening\n"
	"CUR=./f\n"
	"OFL=()\n"
	"use() { CUR=$1; shift; OFL=(\"$@\"); }\n"
	"# one xfs_io process on the current file, from the mount point\n"
	"io() {\n"
	"\tlocal rc=0\n"
	"\t(cd \"$MNT\" && exec xfs_io \"${OFL[@]}\" \"$@\" \"$CUR\") >> \"$LOG\" 2>&1 || rc=$?\n"
	"\tOFL=()\n"
	"\t[ $rc -lt 128 ] || echo \"@{name}: xfs_io $* ended by signal $((rc - 128))\" >&2\n"
	"}\n"
	"# a namespace step: its system call, from the mount point; a failure is its result\n"
	"nsop() { (cd \"$MNT\" && perl -e \"$NS_OP\" -- \"$@\") >> \"$LOG\" 2>&1; }\n"
	"# fsync or fdatasync of a path (a directory too): open read-only, sync, close\n"
	"fsync_path() { (cd \"$MNT\" && xfs_io -r -c \"$1\" \"$2\") >> \"$LOG\" 2>&1; }\n"
	"# the namespace as a reader sees it, one line per name\n"
	"point() {\n"
	"\tlocal l\n"
	"\tl=$(perl -e \"$NS_LIST\" \"$MNT\") || die \"$1: cannot read the namespace\"\n"
	"\t[ -z \"$SAVE\" ] || printf '%s\\n' \"$l\" > \"$SAVE/$2.ns\"\n"
	"\tprintf '%s\\n' \"$l\" | while IFS= read -r e; do echo \"$1 ns $e\"; done\n"
	"}\n"
	"remount() {\n"
	"\tumount \"$MNT\" || die \"umount failed\"\n"
	"\tmount -t ext4 -o \"$OPTS\" \"$DEV\" \"$MNT\" || die \"mount -o $OPTS $DEV failed\"\n"
	"}\n"
	"# e2fsck -fn of the recovered file system, unmounted, then mounted again\n"
	"fsck_point() {\n"
	"\tlocal rc=0\n"
	"\tumount \"$MNT\" || die \"umount failed\"\n"
	"\te2fsck -fn \"$DEV\" >> \"$LOG\" 2>&1 || rc=$?\n"
	"\techo \"$1 fsck $rc\"\n"
	"\tmount -t ext4 -o \"$OPTS\" \"$DEV\" \"$MNT\" || die \"mount -o $OPTS $DEV failed\"\n"
	"}\n"
	"# shutdown without a log flush, unmount, mount (journal recovery, orphan cleanup)\n"
	"crash() {\n"
	"\txfs_io -x -r -c shutdown \"$MNT\" >> \"$LOG\" 2>&1 || die \"shutdown failed\"\n"
	"\tremount\n"
	"}\n"
	"# a commit of the running transaction and nothing else: a timestamp change of\n"
	"# another file and its fsync\n"
	"commit() {\n"
	"\txfs_io -c 'utimes 0 0 0 0' -c fsync \"$MNT/ext4sim-commit\" >> \"$LOG\" 2>&1 ||\n"
	"\t\tdie \"commit failed\"\n"
	"}\n"
	"# clean page cache only: nothing is written back\n"
	"drop_caches() { echo 1 > /proc/sys/vm/drop_caches || die \"drop_caches failed\"; }\n"
	"\n"
	"rm -f \"$MNT/f\" \"$MNT/ext4sim-commit\"\n"
	": > \"$MNT/f\" && : > \"$MNT/ext4sim-commit\" || die \"cannot create f in $MNT\"\n"
	"sync\n"
	"\n";

/*
 * The namespace lister of the fstests test (ns_tree): the tree under the
 * scratch mount as the golden output lists it (md5) or as the model's crash
 * states are compared (runs: nsnap_text's lines, each inode number as its
 * rank in order of first appearance, the content hash NS_LIST_PERL's);
 * with NS_GETFATTR set (a test with extended attributes), each inode's
 * user. and trusted. attributes (getfattr -h) as nsnap_text's " xattrs N
 * HASH" (nsnap_xattr_hash).
 */
#define NS_TREE_PERL \
	"use strict; use Digest::MD5; my ($mode, $root) = @ARGV; my (@names, %first, %rank); my $nr = 0;\n" \
	"my $ga = $ENV{NS_GETFATTR};\n" \
	"sub xattrs { my ($p) = @_; my %v; return \"\" unless $ga;\n" \
	"  open(my $g, \"-|\", $ga, \"-h\", \"-d\", \"-m\", \"-\", \"-e\", \"hex\", \"--absolute-names\", $p) or die \"getfattr: $!\\n\";\n" \
	"  while (my $l = <$g>) { chomp $l; next if $l eq \"\" || $l =~ /^#/; my ($k, $x) = split(/=/, $l, 2);\n" \
	"    next unless $k =~ /^(user|trusted)\\./; $x = \"\" if !defined $x || $x eq \"\\\"\\\"\";\n" \
	"    $x =~ s/^0x//; $v{$k} = pack(\"H*\", $x) }\n" \
	"  close($g); my @k = sort keys %v; return \"\" unless @k; my $m = Digest::MD5->new;\n" \
	"  $m->add(pack(\"V\", length $_) . $_ . pack(\"V\", length $v{$_}) . $v{$_}) for @k;\n" \
	"  return sprintf(\" xattrs %d %016x%016x\", scalar @k, unpack(\"Q<Q<\", $m->digest)); }\n" \
	"sub runs { my ($fh) = @_; my $m = Digest::MD5->new; my ($n, $b) = (0, -1); local $/ = \\65536;\n" \
	"  while (defined(my $buf = <$fh>)) {\n" \
	"    while ($buf =~ /\\G((.)\\2*)/sg) { my ($l, $c) = (length $1, ord $2);\n" \
	"      if ($c == $b) { $n += $l } else { $m->add(pack(\"Q<C\", $n, $b)) if $n; ($n, $b) = ($l, $c) } } }\n" \
	"  $m->add(pack(\"Q<C\", $n, $b)) if $n;\n" \
	"  return sprintf(\"%016x%016x\", unpack(\"Q<Q<\", $m->digest)); }\n" \
	"sub walk { my ($rel) = @_; my $p = $root . $rel; push @names, $rel eq \"\" ? \"/\" : $rel;\n" \
	"  return if -l $p || ! -d _; opendir(my $dh, $p) or die \"opendir $p: $!\\n\";\n" \
	"  for my $e (readdir $dh) { next if $e eq \".\" || $e eq \"..\" || ($rel eq \"\" && $e eq \"ext4sim-commit\");\n" \
	"    walk(\"$rel/$e\") } }\n" \
	"walk(\"\");\n" \
	"for my $name (sort @names) { my $p = $name eq \"/\" ? $root : $root . $name;\n" \
	"  my @st = lstat($p) or die \"lstat $p: $!\\n\"; my ($ino, $type, $t, $fh) = ($st[1]);\n" \
	"  if (-l _) { $type = \"lnk\"; $t = readlink($p); open($fh, \"<\", \\$t) or die }\n" \
	"  elsif (-d _) { $type = \"dir\" } else { $type = \"reg\"; open($fh, \"<:raw\", $p) or die \"open $p: $!\\n\" }\n" \
	"  $rank{$ino} ||= ++$nr;\n" \
	"  if ($mode eq \"runs\") { print \"$name $type #$rank{$ino} nlink $st[3] size $st[7] \",\n" \
	"    ($fh ? runs($fh) : \"0\" x 32), (defined $t ? \" -> $t\" : \"\"), xattrs($p), \"\\n\"; next }\n" \
	"  print \"$name $type nlink $st[3] size $st[7]\";\n" \
	"  if ($type eq \"reg\") { my $m = Digest::MD5->new; $m->addfile($fh); print \" md5 \", $m->hexdigest }\n" \
	"  print \" -> $t\" if defined $t; print xattrs($p);\n" \
	"  if ($type ne \"dir\" && exists $first{$ino}) { print \" link of $first{$ino}\" } else { $first{$ino} = $name }\n" \
	"  print \"\\n\" }\n"

/* What a namespace test's golden output holds (the template's golden_doc). */
const char xp_fstests_ns_golden_doc[] =
	"# The golden output is the model's prediction: xfs_io's output (its errors\n"
	"# included), each namespace step that fails (\"CMD ARGS failed\": the model's\n"
	"# errno is the step's result), and the namespace as a reader sees it before\n"
	"# each crash, after its recovery and at the end: one line per name from the\n"
	"# root, sorted by path bytewise (ext4sim-commit left out), with its type,\n"
	"# link count and size, a regular file's MD5, a symbolic link's target and,\n"
	"# for a later name of an inode, \"link of\" its first name (no inode numbers:\n"
	"# they vary from one mkfs to the next; which names share an inode is what\n"
	"# the model predicts).  Where the model lists several states a crash can\n"
	"# leave, the tree must be one of them (the states are in the test).\n";

/*
 * The shell functions of a namespace test, each written only when its steps
 * use it: ns_tree (always), print_ns, ns, io, check_fs.
 */
const char xp_fstests_ns_helpers[] =
	"# the namespace under $SCRATCH_MNT, one line per name sorted by path\n"
	"# bytewise, ext4sim-commit left out: \"md5\" the golden output's form, \"runs\"\n"
	"# the form the model's crash states are in (each inode as its rank in order\n"
	"# of first appearance, the content as ext4sim's hash of its runs of a byte)\n"
	"ns_tree()\n"
	"{\n"
	"\t$PERL_PROG -e '"
	NS_TREE_PERL
	"' \"$1\" $SCRATCH_MNT\n"
	"}\n"
	"\n";

const char xp_fstests_ns_print_helper[] =
	"# a point whose tree the model is sure of: the tree\n"
	"print_ns()\n"
	"{\n"
	"\techo \"$1:\"\n"
	"\tns_tree md5\n"
	"}\n"
	"\n";

const char xp_fstests_ns_step_helper[] =
	"# a namespace step: its errors to $seqres.full, a failure printed as the\n"
	"# command with its program's base name (xfs_io for $XFS_IO_PROG and its flags)\n"
	"ns()\n"
	"{\n"
	"\tlocal cmd=\"$*\"\n"
	"\n"
	"\t\"$@\" 2>> $seqres.full && return\n"
	"\tcase \"$cmd\" in\n"
	"\t\"$XFS_IO_PROG \"*) cmd=\"xfs_io ${cmd#\"$XFS_IO_PROG \"}\" ;;\n"
	"\t*) cmd=\"$(basename $1) ${*:2}\" ;;\n"
	"\tesac\n"
	"\techo \"$cmd failed\" | _filter_scratch\n"
	"}\n"
	"\n";

const char xp_fstests_ns_io_helper[] =
	"# xfs_io on the current file: its output (rates filtered), then its errors\n"
	"# (xfs_io buffers its output, so one stream could put the errors first)\n"
	"io()\n"
	"{\n"
	"\t$XFS_IO_PROG \"$@\" \"$file\" 2> $tmp.io_err | _filter_xfs_io\n"
	"\t_filter_scratch < $tmp.io_err\n"
	"}\n"
	"\n";

const char xp_fstests_ns_fsck_helper[] =
	"# after a crash's recovery: the unmounted file system checked, mounted again\n"
	"check_fs()\n"
	"{\n"
	"\t_scratch_unmount\n"
	"\t_check_scratch_fs\n"
	"\t_scratch_mount \"-o $mount_opts\"\n"
	"}\n"
	"\n";

/* check_ns_state, where a crash point has several states (or one the run does not continue from). */
const char xp_fstests_ns_check_helper[] =
	"# after a crash: the tree must be one of the states the model lists (each\n"
	"# an argument, in ns_tree's runs form); the tree itself goes to $seqres.full\n"
	"check_ns_state()\n"
	"{\n"
	"\tlocal label=$1 state a\n"
	"\n"
	"\tshift\n"
	"\tstate=$(ns_tree runs)\n"
	"\tns_tree md5 | sed -e \"s|^|$label: |\" >> $seqres.full\n"
	"\tfor a in \"$@\"; do\n"
	"\t\tif [ \"$a\" = \"$state\" ]; then\n"
	"\t\t\techo \"$label: one of the model's $# states\"\n"
	"\t\t\treturn\n"
	"\t\tfi\n"
	"\tdone\n"
	"\techo \"$label: not one of the model's $# states:\"\n"
	"\techo \"$state\"\n"
	"}\n"
	"\n";
