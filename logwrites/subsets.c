/*
 * subsets.c - enumerating and grouping power-cut subsets (see subsets.h).
 *
 * The sectors the pending writes touch are listed once as (sector, write)
 * pairs sorted by sector then log order, each with a digest of the bytes
 * that write puts there and whether they equal the flushed device's.  A
 * subset's state digest walks the pairs: per sector the last write the
 * subset keeps decides, and only a change is hashed.
 */
#include "subsets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "sha256.h"

struct pair {
	uint64_t sector;
	uint64_t k;                     /* pending write number */
	uint8_t digest[16];
	int same;                       /* its bytes equal the flushed device's */
};

struct work {
	const struct lw_log *log;
	const struct lw_point *p;
	struct pair *pairs;
	uint64_t nr_pairs;
	uint64_t width;                 /* keep row length: lp_nr_pending, at least 1 */
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->sector != y->sector)
		return x->sector < y->sector ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* List and digest the (sector, write) pairs; 0 or -1 (out of memory). */
static int build_pairs(struct work *w, const uint8_t *flushed)
{
	uint32_t ss = w->log->lw_sectorsize;
	uint64_t n = 0;

	for (uint64_t k = 0; k < w->p->lp_nr_pending; k++)
		n += w->p->lp_pending[k].lu_count;
	w->pairs = calloc(n ? n : 1, sizeof(*w->pairs));
	if (!w->pairs)
		return -1;
	for (uint64_t k = 0; k < w->p->lp_nr_pending; k++) {
		const struct lw_unit *u = &w->p->lp_pending[k];
		const struct lw_entry *e = &w->log->lw_entries[u->lu_entry];
		uint8_t full[32];

		for (uint64_t j = u->lu_first; j < u->lu_first + u->lu_count; j++) {
			struct pair *q = &w->pairs[w->nr_pairs++];
			const uint8_t *now = flushed + (e->le_sector + j) * ss;
			static const uint8_t zeros[LW_SECTOR_MAX];
			const uint8_t *data = (e->le_flags & LW_DISCARD) ? zeros :
					      w->log->lw_buf + e->le_data + j * ss;
			struct sha256 h;

			q->sector = e->le_sector + j;
			q->k = k;
			q->same = !memcmp(now, data, ss);
			sha256_init(&h);
			sha256_update(&h, data, ss);
			sha256_final(&h, full);
			memcpy(q->digest, full, sizeof(q->digest));
		}
	}
	qsort(w->pairs, w->nr_pairs, sizeof(*w->pairs), cmp_pair);
	return 0;
}

/* The state digest of the subset @keep. */
static void subset_digest(const struct work *w, const uint8_t *keep, uint8_t out[32])
{
	struct sha256 h;
	uint64_t i = 0;

	sha256_init(&h);
	while (i < w->nr_pairs) {
		uint64_t j = i, last = UINT64_MAX;

		for (; j < w->nr_pairs && w->pairs[j].sector == w->pairs[i].sector; j++)
			if (keep[w->pairs[j].k] || w->p->lp_forced[w->pairs[j].k])
				last = j;
		if (last != UINT64_MAX && !w->pairs[last].same) {
			sha256_update(&h, &w->pairs[last].sector, sizeof(w->pairs[last].sector));
			sha256_update(&h, w->pairs[last].digest, sizeof(w->pairs[last].digest));
		}
		i = j;
	}
	sha256_final(&h, out);
}

/* Subset number @m of an exhaustive walk: bit b of @m is the b-th droppable write. */
static void exhaustive_row(const struct work *w, uint64_t m, uint8_t *row)
{
	uint64_t b = 0;

	for (uint64_t k = 0; k < w->p->lp_nr_pending; k++)
		row[k] = w->p->lp_forced[k] ? 1 : (uint8_t)(m >> b++ & 1);
}

/* A drawn row: @i 0 keeps nothing, 1 everything, later ones even odds. */
static void drawn_row(const struct work *w, struct prng *r, uint64_t i, uint8_t *row)
{
	for (uint64_t k = 0; k < w->p->lp_nr_pending; k++)
		row[k] = w->p->lp_forced[k] ? 1 : i == 0 ? 0 : i == 1 ? 1 : (uint8_t)(prng_next(r) >> 63);
}

struct rowref {
	const uint8_t *row;
	uint64_t width;
	uint64_t i;
};

static int cmp_rowref(const void *a, const void *b)
{
	const struct rowref *x = a, *y = b;
	int c = memcmp(x->row, y->row, x->width);

	return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

/* Drop repeated rows of s->ls_keep (the first of each stays, in order); 0 or -1. */
static int unique_rows(struct lw_states *s, const struct work *w)
{
	struct rowref *rr = calloc(s->ls_evaluated, sizeof(*rr));
	uint8_t *dup = calloc(s->ls_evaluated, 1);
	uint64_t n = 0;

	if (!rr || !dup) {
		free(rr);
		free(dup);
		return -1;
	}
	for (uint64_t i = 0; i < s->ls_evaluated; i++)
		rr[i] = (struct rowref){ s->ls_keep + i * w->width, w->width, i };
	qsort(rr, s->ls_evaluated, sizeof(*rr), cmp_rowref);
	for (uint64_t i = 1; i < s->ls_evaluated; i++)
		if (!memcmp(rr[i].row, rr[i - 1].row, w->width))
			dup[rr[i].i] = 1;
	free(rr);
	for (uint64_t i = 0; i < s->ls_evaluated; i++)
		if (!dup[i])
			memmove(s->ls_keep + n++ * w->width, s->ls_keep + i * w->width, w->width);
	free(dup);
	s->ls_evaluated = n;
	return 0;
}

/* Fill s->ls_keep with the subsets to evaluate; 0 or -1 (out of memory). */
static int choose_rows(struct lw_states *s, const struct work *w, uint64_t bound, uint64_t seed)
{
	uint64_t want = bound;
	struct prng r;

	s->ls_exhaustive = s->ls_free < 63 && (UINT64_C(1) << s->ls_free) <= bound;
	if (s->ls_exhaustive)
		want = UINT64_C(1) << s->ls_free;
	s->ls_keep = calloc(want, w->width);
	if (!s->ls_keep)
		return -1;
	prng_seed(&r, seed);
	for (uint64_t i = 0; i < want; i++) {
		if (s->ls_exhaustive)
			exhaustive_row(w, i, s->ls_keep + i * w->width);
		else
			drawn_row(w, &r, i, s->ls_keep + i * w->width);
	}
	s->ls_evaluated = want;
	return s->ls_exhaustive ? 0 : unique_rows(s, w);
}

struct ranked {
	uint8_t digest[32];
	uint64_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = memcmp(x->digest, y->digest, sizeof(x->digest));

	return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

static int cmp_state(const void *a, const void *b)
{
	const struct lw_state *x = a, *y = b;

	return x->ls_first < y->ls_first ? -1 : x->ls_first > y->ls_first;
}

/* Group the evaluated subsets by digest into s->ls_states; 0 or -1. */
static int group(struct lw_states *s, const struct work *w)
{
	struct ranked *rk = calloc(s->ls_evaluated ? s->ls_evaluated : 1, sizeof(*rk));

	s->ls_states = calloc(s->ls_evaluated ? s->ls_evaluated : 1, sizeof(*s->ls_states));
	if (!rk || !s->ls_states) {
		free(rk);
		return -1;
	}
	for (uint64_t i = 0; i < s->ls_evaluated; i++) {
		subset_digest(w, s->ls_keep + i * w->width, rk[i].digest);
		rk[i].i = i;
	}
	qsort(rk, s->ls_evaluated, sizeof(*rk), cmp_ranked);
	for (uint64_t i = 0; i < s->ls_evaluated; i++) {
		struct lw_state *st = &s->ls_states[s->ls_nr];

		if (i > 0 && !memcmp(rk[i].digest, rk[i - 1].digest, 32)) {
			s->ls_states[s->ls_nr - 1].ls_count++;
			continue;
		}
		memcpy(st->ls_digest, rk[i].digest, 32);
		st->ls_first = rk[i].i;
		st->ls_count = 1;
		s->ls_nr++;
	}
	free(rk);
	qsort(s->ls_states, s->ls_nr, sizeof(*s->ls_states), cmp_state);
	return 0;
}

int lw_states_build(struct lw_states *s, const struct lw_log *log, const struct lw_point *p,
		    const uint8_t *flushed, uint64_t bound, uint64_t seed, char *err, size_t errlen)
{
	struct work w = { .log = log, .p = p, .width = p->lp_nr_pending ? p->lp_nr_pending : 1 };

	memset(s, 0, sizeof(*s));
	if (bound < 2 || bound > LW_BOUND_MAX) {
		snprintf(err, errlen, "bound %llu: from 2 to %u", (unsigned long long)bound, LW_BOUND_MAX);
		return -1;
	}
	for (uint64_t k = 0; k < p->lp_nr_pending; k++)
		s->ls_free += !p->lp_forced[k];
	if (build_pairs(&w, flushed) || choose_rows(s, &w, bound, seed) || group(s, &w)) {
		free(w.pairs);
		lw_states_free(s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	free(w.pairs);
	return 0;
}

void lw_states_free(struct lw_states *s)
{
	free(s->ls_keep);
	free(s->ls_states);
	memset(s, 0, sizeof(*s));
}

const uint8_t *lw_states_keep(const struct lw_states *s, const struct lw_point *p, uint64_t i)
{
	return s->ls_keep + i * (p->lp_nr_pending ? p->lp_nr_pending : 1);
}
