/*
 * run.c - logreplay's three commands (see main.c): info lists the entries,
 * states the power-cut states of a crash point, image writes one of them.
 * Every input is read and checked before any output file is made.
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "logfmt.h"
#include "outfile.h"
#include "point.h"
#include "sha256.h"
#include "subsets.h"

#define ERR_MAX 512

struct ctx {
	uint8_t *logbuf, *img;
	uint64_t loglen, imglen;
	struct lw_log log;
	struct lw_point p;
};

static void ctx_free(struct ctx *c)
{
	lw_point_free(&c->p);
	lw_free(&c->log);
	free(c->logbuf);
	free(c->img);
}

static int fail(const char *path, const char *msg)
{
	fprintf(stderr, "%s: %s\n", path, msg);
	return 2;
}

static void flag_names(uint32_t f, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s%s%s", f & LW_FLUSH ? " flush" : "", f & LW_FUA ? " fua" : "",
		 f & LW_DISCARD ? " discard" : "", f & LW_MARK ? " mark" : "",
		 f & LW_METADATA ? " metadata" : "");
}

static int cmd_info(struct ctx *c)
{
	printf("log: sector size %u, %llu entries\n", c->log.lw_sectorsize,
	       (unsigned long long)c->log.lw_nr);
	for (uint64_t i = 0; i < c->log.lw_nr; i++) {
		const struct lw_entry *e = &c->log.lw_entries[i];
		char fl[64];

		flag_names(e->le_flags, fl, sizeof(fl));
		printf("%llu: sector %llu count %llu%s", (unsigned long long)i,
		       (unsigned long long)e->le_sector, (unsigned long long)e->le_nr_sectors, fl);
		if (e->le_flags & LW_MARK)
			printf(" \"%.*s\"", (int)(e->le_data_len < 64 ? e->le_data_len : 64),
			       (const char *)c->log.lw_buf + e->le_data);
		printf("\n");
	}
	return 0;
}

/* Load the log, the base image and the crash point; 0, or 2 after a message. */
static int load(struct ctx *c, const struct lr_args *a)
{
	char err[ERR_MAX];
	int64_t end = a->la_end;

	if (lr_read_whole(a->la_log, LW_LOG_MAX, &c->logbuf, &c->loglen))
		return 2;
	if (lw_parse(&c->log, c->logbuf, c->loglen, err, sizeof(err)))
		return fail(a->la_log, err);
	if (a->la_cmd == LR_INFO)
		return 0;
	if (lr_read_whole(a->la_base, LR_BASE_MAX, &c->img, &c->imglen))
		return 2;
	if (a->la_point >= 0) {
		char text[64];

		snprintf(text, sizeof(text), "ext4sim-crashpoint %lld\n", (long long)a->la_point);
		end = lw_find_text(&c->log, text);
		if (end < 0) {
			snprintf(err, sizeof(err), "no mark of crash point %lld", (long long)a->la_point);
			return fail(a->la_log, err);
		}
	}
	if (a->la_split % c->log.lw_sectorsize) {
		snprintf(err, sizeof(err), "--split %llu: not a multiple of the log's %u-byte sectors",
			 (unsigned long long)a->la_split, c->log.lw_sectorsize);
		return fail(a->la_log, err);
	}
	if (lw_point_init(&c->p, &c->log, (uint64_t)end, c->imglen,
			  a->la_split / c->log.lw_sectorsize, err, sizeof(err)))
		return fail(a->la_log, err);
	lw_apply_durable(&c->log, &c->p, c->img);
	return 0;
}

/* Print a count of subsets: exact below 2^63, else as a power of two. */
static void print_count(const char *what, uint64_t free_writes, uint64_t minus)
{
	if (free_writes < 63)
		printf(" %s %llu", what, (unsigned long long)((UINT64_C(1) << free_writes) - minus));
	else
		printf(" %s 2^%llu%s", what, (unsigned long long)free_writes, minus ? "-" : "");
	if (free_writes >= 63 && minus)
		printf("%llu", (unsigned long long)minus);
}

static int cmd_states(struct ctx *c, const struct lr_args *a)
{
	struct lw_states s;
	char err[ERR_MAX], *keep;
	uint64_t forced;

	if (lw_states_build(&s, &c->log, &c->p, c->img, a->la_bound, a->la_seed, err, sizeof(err)))
		return fail(a->la_log, err);
	forced = c->p.lp_nr_pending - s.ls_free;
	printf("point end %llu flush %llu pending %llu fua %llu outside %llu",
	       (unsigned long long)c->p.lp_end, (unsigned long long)c->p.lp_flush,
	       (unsigned long long)c->p.lp_nr_pending, (unsigned long long)forced,
	       (unsigned long long)c->p.lp_outside);
	print_count("subsets", s.ls_free, 0);
	printf(" evaluated %llu %s", (unsigned long long)s.ls_evaluated,
	       s.ls_exhaustive ? "exhaustive" : "sampled");
	print_count("skipped", s.ls_free, s.ls_evaluated);
	printf(" states %llu\n", (unsigned long long)s.ls_nr);
	keep = malloc(48 * (c->p.lp_nr_pending + 1));
	if (!keep) {
		lw_states_free(&s);
		return fail(a->la_log, "out of memory");
	}
	for (uint64_t i = 0; i < s.ls_nr; i++) {
		lr_format_keep(lw_states_keep(&s, &c->p, s.ls_states[i].ls_first), c->p.lp_nr_pending,
			       keep, 48 * (c->p.lp_nr_pending + 1));
		printf("state %llu subsets %llu keep %s\n", (unsigned long long)i + 1,
		       (unsigned long long)s.ls_states[i].ls_count, keep);
	}
	free(keep);
	lw_states_free(&s);
	return 0;
}

static int cmd_image(struct ctx *c, const struct lr_args *a)
{
	uint8_t *keep = calloc(c->p.lp_nr_pending + 1, 1);
	char err[ERR_MAX];
	struct outfile o;

	if (!keep)
		return fail(a->la_log, "out of memory");
	if (lr_parse_keep(a->la_keep, c->p.lp_nr_pending, keep, err, sizeof(err))) {
		free(keep);
		return fail(a->la_log, err);
	}
	lw_apply_pending(&c->log, &c->p, keep, c->img);
	free(keep);
	if (outfile_open(&o, a->la_out, false, err, sizeof(err)))
		return fprintf(stderr, "%s\n", err), 2;
	if (fwrite(c->img, 1, c->imglen, o.f) != c->imglen) {
		outfile_abort(&o);
		return fail(a->la_out, "write failed");
	}
	if (outfile_commit(&o, err, sizeof(err)))
		return fprintf(stderr, "%s\n", err), 2;
	return 0;
}

int lr_run(const struct lr_args *a)
{
	struct ctx c;
	int rc;

	memset(&c, 0, sizeof(c));
	rc = load(&c, a);
	if (!rc)
		rc = a->la_cmd == LR_INFO ? cmd_info(&c) : a->la_cmd == LR_STATES ?
		     cmd_states(&c, a) : cmd_image(&c, a);
	ctx_free(&c);
	return rc;
}
