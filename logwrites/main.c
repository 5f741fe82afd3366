/*
 * main.c - logreplay, the command line of the write-log replay
 * (docs/real-kernel.md, "Power cuts"): it reads a dm-log-writes log and the
 * device it started from, and prints or builds the devices a power cut at a
 * crash point could leave.
 *
 *   logreplay info LOG
 *   logreplay states LOG BASE (--point N | --end E) [--bound B] [--seed S] [--split BYTES]
 *   logreplay image LOG BASE OUT (--point N | --end E) --keep LIST [--split BYTES]
 *
 * --point N ends the log at the first write whose data begins with
 * "ext4sim-crashpoint N\n" (the power-cut guest's mark); --end E after E
 * entries.  The unflushed writes, or with --split their pieces of BYTES, are
 * numbered from 1 in log order; LIST is "none" or numbers and ranges
 * ("1,3-5"), FUA writes included or not (they always land).  Exit 0, or 2 with one line on stderr
 * (LOG: message) and no output file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "outfile.h"

static const char usage_text[] =
	"usage: logreplay info LOG\n"
	"       logreplay states LOG BASE (--point N | --end E) [--bound B] [--seed S]\n"
	"                        [--split BYTES]\n"
	"       logreplay image LOG BASE OUT (--point N | --end E) --keep LIST [--split BYTES]\n";

int main(int argc, char **argv)
{
	struct lr_args a;
	int rc;

	outfile_catch_signals(false);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return outfile_close_stdout();
	}
	if (lr_parse_args(&a, argc, argv)) {
		fputs(usage_text, stderr);
		return 2;
	}
	rc = lr_run(&a);
	if (outfile_close_stdout())
		return 2;
	return rc;
}
