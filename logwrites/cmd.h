/*
 * cmd.h - logreplay's commands (info, states, image; see main.c): their
 * arguments, the files they read, and what they print.
 */
#ifndef EXT4SIM_CMD_H
#define EXT4SIM_CMD_H

#include <stddef.h>
#include <stdint.h>

#define LR_BASE_MAX (UINT64_C(1) << 32)        /* the base image: 4 GiB at most */
#define LR_KEEP_MAX 4096                        /* characters of a --keep list */

enum lr_cmd { LR_INFO, LR_STATES, LR_IMAGE };

struct lr_args {
	enum lr_cmd la_cmd;
	const char *la_log, *la_base, *la_out;
	int64_t la_point;               /* --point N, or -1 */
	int64_t la_end;                 /* --end E, or -1 */
	uint64_t la_bound;              /* --bound, default 4096 */
	uint64_t la_seed;               /* --seed, default 1 */
	uint64_t la_split;              /* --split BYTES, 0: whole writes */
	const char *la_keep;
};

/* Parse argv; 0, or -1 after one line on stderr. */
int lr_parse_args(struct lr_args *a, int argc, char **argv);
/* Run the command; the exit status (0, or 2 after one line on stderr). */
int lr_run(const struct lr_args *a);

/* Read @path whole (at most @max bytes) into *@buf (malloc'd); 0, or -1 after a message. */
int lr_read_whole(const char *path, uint64_t max, uint8_t **buf, uint64_t *len);

/*
 * Parse a keep list ("none", or "1,3-5": numbers from 1 to @n) into @keep
 * (@n bytes, 1 for each listed write); 0, or -1 with @err.
 */
int lr_parse_keep(const char *list, uint64_t n, uint8_t *keep, char *err, size_t errlen);
/* Write @keep (@n bytes) as a keep list into @out ("none" when empty). */
void lr_format_keep(const uint8_t *keep, uint64_t n, char *out, size_t outlen);

#endif
