/*
 * log.c - the checker's two logs and their summary.
 *
 * muts[] holds what the steps did since the durable baseline, crash_muts[]
 * since the last crash, with the durable points in between (dps[]).  The
 * post-crash judgments read them in three ways only (checker.c): whether a
 * fill or size set among a stretch of entries with no shift inside allows
 * byte value v at offset o (mut_allows, fills_allow), the union of the fills'
 * ranges (recovered_intervals, ivl_add_shifted), and the smallest and largest
 * size since the baseline (size_allowed, kept apart as size_lo/size_hi).
 * None of them depends on the order or the number of fills and size sets
 * between two shifts, so such a stretch can be replaced by its summary: the
 * fills of each byte value as sorted, merged ranges, and the size set to the
 * smallest size (a size set allows only zeros from its size on).  A stretch
 * ends at a shift and, in crash_muts[], at every durable point (a durable
 * point's gap is judged against the entries from its index on).  In
 * crash_muts[], read only for the gaps of durable points, which always
 * allow zero, size sets and fills of zero allow nothing more and are not
 * kept.  A durable point at a block-aligned size has no gap and is not
 * kept; an equal point (same size, nothing logged between) is counted.
 *
 * The summary runs on the tail stretch when it has doubled since its last
 * summary (amortized O(log n) a change), so memory is bounded by the
 * distinct ranges of each byte value, the shifts and the unaligned durable
 * points with writes between them, not by the steps.
 */
#include "log.h"

#include <stdlib.h>
#include <string.h>

#define SUMMARY_MIN 64          /* a tail shorter than this is left as it is */

static void push(struct chk_mut **arr, uint32_t *nr, uint32_t *cap, struct chk_mut m)
{
	if (*nr == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*arr = sim_realloc_array(*arr, *cap, sizeof(**arr));
	}
	(*arr)[(*nr)++] = m;
}

/* Fills before size sets; fills by byte value, then offset, then length. */
static int mut_cmp(const void *a, const void *b)
{
	const struct chk_mut *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->byte != y->byte)
		return x->byte < y->byte ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * Summarise m[0, n), fills and size sets only: each byte value's fills
 * merged where they overlap or touch, one size set at the smallest size.
 * Returns the entries left (in m[0, ...)).
 */
static uint32_t summarise(struct chk_mut *m, uint32_t n)
{
	uint32_t k = 0;

	qsort(m, n, sizeof(*m), mut_cmp);
	for (uint32_t i = 0; i < n; i++) {
		struct chk_mut *last = k ? &m[k - 1] : NULL;

		SIM_ASSERT(m[i].kind == MUT_FILL || m[i].kind == MUT_TRUNC);
		if (last && m[i].kind == MUT_TRUNC && last->kind == MUT_TRUNC)
			continue;       /* sorted: the first size set is the smallest */
		if (last && m[i].kind == MUT_FILL && last->kind == MUT_FILL &&
		    last->byte == m[i].byte && m[i].off <= last->off + last->len) {
			last->len = SIM_MAX(last->len, m[i].off + m[i].len - last->off);
			continue;
		}
		m[k++] = m[i];
	}
	return k;
}

/* Append @m to a log whose tail stretch starts at *tail; summarise it when due. */
static void log_add(struct chk_state *c, struct chk_mut **arr, uint32_t *nr, uint32_t *cap,
		    uint32_t *tail, uint32_t *next, struct chk_mut m)
{
	push(arr, nr, cap, m);
	if (m.kind == MUT_COLLAPSE || m.kind == MUT_INSERT) {
		*tail = *nr;    /* a shift closes the stretch */
		*next = SUMMARY_MIN;
		return;
	}
	if (c->log_mode == CHK_LOG_FULL ||
	    (c->log_mode == CHK_LOG_SUMMARY && *nr - *tail < SIM_MAX(*next, SUMMARY_MIN)))
		return;
	*nr = *tail + summarise(*arr + *tail, *nr - *tail);
	*next = 2 * (*nr - *tail);
}

void chk_log_push(struct chk_state *c, struct chk_mut m)
{
	c->size_lo = SIM_MIN(c->size_lo, c->posix.size);
	c->size_hi = SIM_MAX(c->size_hi, c->posix.size);
	log_add(c, &c->muts, &c->nr_muts, &c->cap_muts, &c->muts_tail, &c->muts_next, m);
	if (c->log_mode != CHK_LOG_FULL &&
	    (m.kind == MUT_TRUNC || (m.kind == MUT_FILL && m.byte == 0)))
		return;         /* allows nothing a durable point's gap does not */
	log_add(c, &c->crash_muts, &c->all_muts, &c->cap_crash_muts, &c->crash_tail,
		&c->crash_next, m);
}

static bool is_shift(const struct chk_mut *m)
{
	return m->kind == MUT_COLLAPSE || m->kind == MUT_INSERT;
}

/*
 * Summarise every stretch of crash_muts[] (between shifts and durable points),
 * moving the points' indexes with their entries.
 */
static void summarise_crash_log(struct chk_state *c)
{
	struct chk_mut *m = c->crash_muts;
	uint32_t r = 0, w = 0, pi = 0, tail = 0;

	while (r < c->all_muts) {
		uint32_t end = r;

		for (; pi < c->nr_dps && c->dps[pi].mut_index <= r; pi++) {
			c->dps[pi].mut_index = w;
			tail = w;
		}
		if (is_shift(&m[r])) {
			m[w++] = m[r++];
			tail = w;
			continue;
		}
		while (end < c->all_muts && !is_shift(&m[end]) &&
		       (pi == c->nr_dps || end < c->dps[pi].mut_index))
			end++;
		memmove(&m[w], &m[r], (end - r) * sizeof(*m));
		w += summarise(&m[w], end - r);
		r = end;
	}
	for (; pi < c->nr_dps; pi++)
		c->dps[pi].mut_index = w;
	c->all_muts = w;
	c->crash_tail = SIM_MAX(tail, c->nr_dps ? c->dps[c->nr_dps - 1].mut_index : 0);
}

/*
 * Drop the durable points a point at @size (unaligned) dominates: those in the
 * same block at a size not below it (its gap holds theirs, and it allows
 * fewer values: fewer entries after it, a smaller size), and those at aligned
 * sizes; then the log before the oldest point left, which nothing reads.
 */
static void drop_dominated(struct chk_state *c, int64_t size)
{
	int64_t block = size / c->block_size;
	uint32_t k = 0, first;

	for (uint32_t i = 0; i < c->nr_dps; i++) {
		int64_t s = c->dps[i].size;

		if ((s & (c->block_size - 1)) && !(s / c->block_size == block && s >= size))
			c->dps[k++] = c->dps[i];
	}
	c->nr_dps = k;
	first = k ? c->dps[0].mut_index : c->all_muts;
	if (!first)
		return;
	memmove(c->crash_muts, c->crash_muts + first,
		(c->all_muts - first) * sizeof(*c->crash_muts));
	c->all_muts -= first;
	for (uint32_t i = 0; i < k; i++)
		c->dps[i].mut_index -= first;
}

void chk_log_durable(struct chk_state *c)
{
	int64_t size = c->posix.size;
	bool summary = c->log_mode != CHK_LOG_FULL;

	c->nr_muts = 0;
	c->muts_tail = 0;
	c->muts_next = SUMMARY_MIN;
	c->size_lo = c->size_hi = size;
	if (summary && !(size & (c->block_size - 1)))
		return;         /* no gap: nothing to judge */
	if (summary)
		drop_dominated(c, size);
	if (c->nr_dps == c->cap_dps) {
		c->cap_dps = c->cap_dps ? 2 * c->cap_dps : 16;
		c->dps = sim_realloc_array(c->dps, c->cap_dps, sizeof(*c->dps));
	}
	c->dps[c->nr_dps++] = (struct chk_durable_point){ size, c->all_muts };
	c->crash_tail = c->all_muts;
	c->crash_next = SUMMARY_MIN;
	if (!summary || (c->log_mode == CHK_LOG_SUMMARY && c->all_muts < c->crash_full_next))
		return;
	summarise_crash_log(c);
	c->crash_full_next = SIM_MAX(2 * c->all_muts, SUMMARY_MIN);
}

void chk_log_crash(struct chk_state *c)
{
	c->nr_dps = 0;
	c->all_muts = 0;
	c->crash_tail = 0;
	c->crash_next = SUMMARY_MIN;
	c->crash_full_next = 0;
}
