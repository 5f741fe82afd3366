/*
 * extents.c - the block map (see extents.h).  A sorted array: lookups are
 * binary searches, updates split the extents at the edges of the range and
 * replace what lies inside.  Tuned for files of up to a few thousand
 * extents, which is what scenarios produce.
 */
#include "extents.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"

void es_init(struct ext4_es_tree *t)
{
	memset(t, 0, sizeof(*t));
}

void es_destroy(struct ext4_es_tree *t)
{
	free(t->es);
	memset(t, 0, sizeof(*t));
}

void es_copy(struct ext4_es_tree *dst, const struct ext4_es_tree *src)
{
	es_init(dst);
	dst->es_cap = src->es_nr;
	dst->es_nr = src->es_nr;
	dst->es = sim_realloc_array(NULL, src->es_nr ? src->es_nr : 1, sizeof(*dst->es));
	if (src->es_nr)
		memcpy(dst->es, src->es, src->es_nr * sizeof(*src->es));
}

const char *es_state_name(enum es_state s)
{
	switch (s) {
	case ES_HOLE: return "hole";
	case ES_WRITTEN: return "written";
	case ES_UNWRITTEN: return "unwritten";
	case ES_DELAYED: return "delayed";
	}
	return "?";
}

static uint64_t es_end(const struct extent_status *e)
{
	return (uint64_t)e->es_lblk + e->es_len;
}

/* Index of the first extent whose end is beyond @lblk. */
static uint32_t first_after(const struct ext4_es_tree *t, uint32_t lblk)
{
	uint32_t lo = 0, hi = t->es_nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (es_end(&t->es[mid]) <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

enum es_state es_lookup(const struct ext4_es_tree *t, uint32_t lblk,
			uint32_t *pblk, uint32_t *len)
{
	uint32_t i = first_after(t, lblk);
	const struct extent_status *e;

	*pblk = 0;
	if (i == t->es_nr || t->es[i].es_lblk > lblk) {
		uint64_t next = i == t->es_nr ? (uint64_t)EXT_MAX_LBLK + 1 : t->es[i].es_lblk;

		*len = (uint32_t)SIM_MIN(next - lblk, (uint64_t)EXT_MAX_LBLK);
		return ES_HOLE;
	}
	e = &t->es[i];
	*len = (uint32_t)(es_end(e) - lblk);
	if (e->es_state != ES_DELAYED)
		*pblk = e->es_pblk + (lblk - e->es_lblk);
	return (enum es_state)e->es_state;
}

bool ext4_es_lookup_extent(const struct ext4_es_tree *t, uint32_t lblk,
			   struct extent_status *es)
{
	uint32_t i = first_after(t, lblk);

	if (i == t->es_nr || t->es[i].es_lblk > lblk)
		return false;
	*es = t->es[i];
	return true;
}

static uint32_t max_len(uint8_t state)
{
	if (state == ES_WRITTEN)
		return EXT_INIT_MAX_LEN;
	if (state == ES_UNWRITTEN)
		return EXT_UNWRITTEN_MAX_LEN;
	return EXT_MAX_LBLK;
}

static bool can_merge(const struct extent_status *a, const struct extent_status *b)
{
	if (a->es_state != b->es_state || es_end(a) != b->es_lblk)
		return false;
	if ((uint64_t)a->es_len + b->es_len > max_len(a->es_state))
		return false;
	return a->es_state == ES_DELAYED ||
	       (uint64_t)a->es_pblk + a->es_len == b->es_pblk;
}

static void insert_at(struct ext4_es_tree *t, uint32_t i, const struct extent_status *e)
{
	if (t->es_nr == t->es_cap) {
		t->es_cap = t->es_cap ? 2 * t->es_cap : 16;
		t->es = sim_realloc_array(t->es, t->es_cap, sizeof(*t->es));
	}
	memmove(&t->es[i + 1], &t->es[i], (t->es_nr - i) * sizeof(*t->es));
	t->es[i] = *e;
	t->es_nr++;
}

static void delete_at(struct ext4_es_tree *t, uint32_t i)
{
	memmove(&t->es[i], &t->es[i + 1], (t->es_nr - i - 1) * sizeof(*t->es));
	t->es_nr--;
}

/* Split the extent containing @lblk so that an extent starts at @lblk. */
static void split_at(struct ext4_es_tree *t, uint32_t lblk)
{
	uint32_t i = first_after(t, lblk);
	struct extent_status tail;
	struct extent_status *e;

	if (i == t->es_nr || t->es[i].es_lblk >= lblk)
		return;
	e = &t->es[i];
	tail = *e;
	tail.es_lblk = lblk;
	tail.es_len = (uint32_t)(es_end(e) - lblk);
	if (e->es_state != ES_DELAYED)
		tail.es_pblk = e->es_pblk + (lblk - e->es_lblk);
	e->es_len = lblk - e->es_lblk;
	insert_at(t, i + 1, &tail);
}

/* Merge extent i with its neighbours where possible. */
static void merge_around(struct ext4_es_tree *t, uint32_t i)
{
	if (i + 1 < t->es_nr && can_merge(&t->es[i], &t->es[i + 1])) {
		t->es[i].es_len += t->es[i + 1].es_len;
		delete_at(t, i + 1);
	}
	if (i > 0 && can_merge(&t->es[i - 1], &t->es[i])) {
		t->es[i - 1].es_len += t->es[i].es_len;
		delete_at(t, i);
	}
}

uint32_t es_remove(struct ext4_es_tree *t, uint32_t lblk, uint64_t len,
		   struct es_freed *freed, uint32_t freed_max, uint32_t *nr_freed)
{
	uint64_t end = (uint64_t)lblk + len;
	uint32_t delayed = 0, i;

	if (nr_freed)
		*nr_freed = 0;
	if (len == 0)
		return 0;
	SIM_ASSERT(end <= (uint64_t)EXT_MAX_LBLK + 1);
	split_at(t, lblk);
	if (end <= EXT_MAX_LBLK)
		split_at(t, (uint32_t)end);
	i = first_after(t, lblk);
	while (i < t->es_nr && t->es[i].es_lblk < end) {
		struct extent_status *e = &t->es[i];

		SIM_ASSERT(es_end(e) <= end);
		if (e->es_state == ES_DELAYED) {
			delayed += e->es_len;
		} else if (freed) {
			SIM_ASSERT(*nr_freed < freed_max);
			freed[*nr_freed].pblk = e->es_pblk;
			freed[*nr_freed].len = e->es_len;
			(*nr_freed)++;
		}
		delete_at(t, i);
	}
	/* the pieces cut at the edges may now merge with their far neighbours */
	if (i < t->es_nr)
		merge_around(t, i);
	if (i > 0 && i - 1 < t->es_nr)
		merge_around(t, i - 1);
	return delayed;
}

/* Insert one extent no longer than its state's limit into a hole. */
static void insert_piece(struct ext4_es_tree *t, const struct extent_status *e)
{
	uint32_t i = first_after(t, e->es_lblk);

	SIM_ASSERT(i == t->es_nr || t->es[i].es_lblk >= es_end(e));
	insert_at(t, i, e);
	merge_around(t, i);
}

void es_insert(struct ext4_es_tree *t, uint32_t lblk, uint32_t len,
	       uint32_t pblk, enum es_state state)
{
	uint32_t done = 0;

	SIM_ASSERT(state != ES_HOLE);
	SIM_ASSERT(len > 0);
	SIM_ASSERT((uint64_t)lblk + len <= (uint64_t)EXT_MAX_LBLK + 1);
	es_remove(t, lblk, len, NULL, 0, NULL);
	while (done < len) {
		struct extent_status e = {
			.es_lblk = lblk + done,
			.es_len = SIM_MIN(len - done, max_len((uint8_t)state)),
			.es_pblk = state == ES_DELAYED ? 0 : pblk + done,
			.es_state = (uint8_t)state,
		};

		insert_piece(t, &e);
		done += e.es_len;
	}
}

void es_shift(struct ext4_es_tree *t, uint32_t start, uint32_t shift, bool left)
{
	uint32_t i;

	split_at(t, start);
	i = first_after(t, start);
	SIM_ASSERT(!left || shift <= start);
	SIM_ASSERT(!left || i == 0 || es_end(&t->es[i - 1]) <= start - shift);
	SIM_ASSERT(left || t->es_nr == 0 ||
		   es_end(&t->es[t->es_nr - 1]) + shift <= (uint64_t)EXT_MAX_LBLK + 1);
	for (uint32_t k = i; k < t->es_nr; k++)
		t->es[k].es_lblk = left ? t->es[k].es_lblk - shift : t->es[k].es_lblk + shift;
	if (i < t->es_nr)
		merge_around(t, i);
	else if (i > 0)
		merge_around(t, i - 1);
}

uint64_t es_count(const struct ext4_es_tree *t, enum es_state state)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->es_nr; i++)
		if (t->es[i].es_state == state)
			n += t->es[i].es_len;
	return n;
}

uint32_t es_nr_disk_extents(const struct ext4_es_tree *t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->es_nr; i++)
		n += t->es[i].es_state != ES_DELAYED;
	return n;
}

void es_check(const struct ext4_es_tree *t)
{
	for (uint32_t i = 0; i < t->es_nr; i++) {
		const struct extent_status *e = &t->es[i];

		SIM_ASSERT(e->es_len > 0);
		SIM_ASSERT(e->es_state != ES_HOLE);
		SIM_ASSERT(e->es_len <= max_len(e->es_state));
		SIM_ASSERT(e->es_state == ES_DELAYED || e->es_pblk != 0);
		if (i > 0) {
			SIM_ASSERT(es_end(&t->es[i - 1]) <= e->es_lblk);
			SIM_ASSERT(!can_merge(&t->es[i - 1], e));
		}
	}
}
