/*
 * cmd.c - logreplay's command line (see cmd.h and main.c): the arguments,
 * and reading a file whole with its size checked.
 */
#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logfmt.h"
#include "subsets.h"

static int bad(const char *msg, const char *arg)
{
	fprintf(stderr, "logreplay: %s%s\n", msg, arg ? arg : "");
	return -1;
}

/* A decimal option value up to @max; 0 or -1 after a message. */
static int option_number(const char *opt, const char *v, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!v || !*v || *v == '-' || (*out = strtoull(v, &end, 10), errno) || *end || *out > max) {
		fprintf(stderr, "logreplay: %s takes a number up to %llu, not '%s'\n", opt,
			(unsigned long long)max, v ? v : "");
		return -1;
	}
	return 0;
}

/* One option at argv[*i] (its value after it); 0 or -1 after a message. */
static int parse_option(struct lr_args *a, int argc, char **argv, int *i)
{
	const char *o = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	uint64_t n;

	(*i)++;
	if (!strcmp(o, "--keep") && v)
		a->la_keep = v;
	else if (!strcmp(o, "--point") && !option_number(o, v, INT32_MAX, &n))
		a->la_point = (int64_t)n;
	else if (!strcmp(o, "--end") && !option_number(o, v, LW_ENTRIES_MAX, &n))
		a->la_end = (int64_t)n;
	else if (!strcmp(o, "--bound") && !option_number(o, v, LW_BOUND_MAX, &n))
		a->la_bound = n;
	else if (!strcmp(o, "--seed") && !option_number(o, v, UINT64_MAX, &n))
		a->la_seed = n;
	else if (!strcmp(o, "--split") && !option_number(o, v, UINT32_MAX, &n))
		a->la_split = n;
	else if (!v)
		return bad("missing value for ", o);
	else
		return strcmp(o, "--point") && strcmp(o, "--end") && strcmp(o, "--bound") &&
		       strcmp(o, "--seed") && strcmp(o, "--split") ? bad("unknown option ", o) : -1;
	(*i)++;
	return 0;
}

int lr_parse_args(struct lr_args *a, int argc, char **argv)
{
	const char *pos[4] = { 0 };
	int npos = 0, want;

	memset(a, 0, sizeof(*a));
	a->la_point = a->la_end = -1;
	a->la_bound = 4096;
	a->la_seed = 1;
	if (argc < 2)
		return bad("no command", NULL);
	for (int i = 2; i < argc;) {
		if (!strncmp(argv[i], "--", 2)) {
			if (parse_option(a, argc, argv, &i))
				return -1;
		} else if (npos < 4) {
			pos[npos++] = argv[i++];
		} else {
			return bad("too many arguments at ", argv[i]);
		}
	}
	if (!strcmp(argv[1], "info"))
		a->la_cmd = LR_INFO, want = 1;
	else if (!strcmp(argv[1], "states"))
		a->la_cmd = LR_STATES, want = 2;
	else if (!strcmp(argv[1], "image"))
		a->la_cmd = LR_IMAGE, want = 3;
	else
		return bad("unknown command ", argv[1]);
	if (npos != want)
		return bad("wrong number of file arguments for ", argv[1]);
	a->la_log = pos[0], a->la_base = pos[1], a->la_out = pos[2];
	if (a->la_cmd != LR_INFO && (a->la_point < 0) == (a->la_end < 0))
		return bad("give one of --point N and --end E", NULL);
	if ((a->la_cmd == LR_IMAGE) != (a->la_keep != NULL))
		return bad(a->la_keep ? "--keep is for image only" : "image needs --keep", NULL);
	if (a->la_keep && strlen(a->la_keep) > LR_KEEP_MAX)
		return bad("--keep list too long", NULL);
	return 0;
}

int lr_read_whole(const char *path, uint64_t max, uint8_t **buf, uint64_t *len)
{
	FILE *f = fopen(path, "rb");
	uint64_t cap = 1 << 20;
	size_t got;

	*buf = NULL;
	*len = 0;
	if (!f)
		return fprintf(stderr, "logreplay: %s: %s\n", path, strerror(errno)), -1;
	do {
		uint8_t *nb = *len == 0 || *len == cap ? realloc(*buf, *len ? (cap *= 2) : cap) : *buf;

		if (!nb) {
			fclose(f);
			free(*buf);
			return fprintf(stderr, "logreplay: %s: out of memory\n", path), -1;
		}
		*buf = nb;
		got = fread(*buf + *len, 1, cap - *len, f);
		*len += got;
	} while (got > 0 && *len <= max);
	if (ferror(f) || *len > max) {
		fprintf(stderr, "logreplay: %s: %s\n", path, ferror(f) ? "read error" : "too large");
		fclose(f);
		free(*buf);
		return -1;
	}
	fclose(f);
	return 0;
}
