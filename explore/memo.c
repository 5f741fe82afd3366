/*
 * memo.c - the kept subtrees of memo.h: an open-addressing table of entries
 * by key (looked up only, never walked, so its order reaches no output), a
 * pool of their marks, and the marks of the subtrees being run.
 */
#include "memo.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct memo_mark {
	uint64_t at;
	uint32_t mask[2];
};

struct memo {
	unsigned steps, split;
	struct memo_entry *e;
	uint32_t nr_e, cap_e;
	uint32_t *slot;                 /* index + 1 into e, 0: empty */
	uint32_t nr_slots;              /* a power of two, at least twice nr_e */
	struct memo_mark *pool;         /* kept marks */
	uint32_t nr_pool, cap_pool;
	struct memo_mark *trace;        /* marks of the subtrees being run */
	uint64_t nr_trace, cap_trace;
	uint64_t open[16];              /* per open subtree: where its marks start in trace */
	unsigned nr_open;
};

struct memo *memo_create(unsigned steps, unsigned split)
{
	struct memo *m = sim_zalloc(sizeof(*m));

	m->steps = steps;
	m->split = split;
	m->nr_slots = 1024;
	m->slot = sim_zalloc(m->nr_slots * sizeof(*m->slot));
	return m;
}

void memo_destroy(struct memo *m)
{
	free(m->e);
	free(m->slot);
	free(m->pool);
	free(m->trace);
	free(m);
}

uint64_t memo_entries(const struct memo *m)
{
	return m->nr_e;
}

bool memo_depth(const struct memo *m, unsigned left)
{
	(void)m;
	return left >= 1 && left <= MEMO_LEFT_MAX;
}

static uint32_t key_hash(const struct memo_key *k)
{
	uint64_t h = k->k[0][0] ^ k->k[1][0] * 0x9e3779b97f4a7c15ull ^
		     ((uint64_t)k->depth << 40 | k->last) * 0xc2b2ae3d27d4eb4full;

	return (uint32_t)(h ^ h >> 32);
}

static bool key_equal(const struct memo_key *a, const struct memo_key *b)
{
	return memcmp(a->k, b->k, sizeof(a->k)) == 0 && a->depth == b->depth &&
	       a->last == b->last;
}

const struct memo_entry *memo_find(const struct memo *m, const struct memo_key *k)
{
	uint32_t mask = m->nr_slots - 1;

	for (uint32_t i = key_hash(k) & mask; m->slot[i]; i = (i + 1) & mask)
		if (key_equal(&m->e[m->slot[i] - 1].key, k))
			return &m->e[m->slot[i] - 1];
	return NULL;
}

static void slot_put(struct memo *m, uint32_t idx)
{
	uint32_t mask = m->nr_slots - 1, i = key_hash(&m->e[idx].key) & mask;

	while (m->slot[i])
		i = (i + 1) & mask;
	m->slot[i] = idx + 1;
}

static void grow_slots(struct memo *m)
{
	free(m->slot);
	m->nr_slots *= 2;
	m->slot = sim_zalloc(m->nr_slots * sizeof(*m->slot));
	for (uint32_t i = 0; i < m->nr_e; i++)
		slot_put(m, i);
}

void memo_begin(struct memo *m, unsigned depth)
{
	(void)depth;
	SIM_ASSERT(m->nr_open < 16);
	m->open[m->nr_open++] = m->nr_trace;
}

bool memo_recording(const struct memo *m, unsigned depth)
{
	(void)depth;
	return m->nr_open > 0;
}

void memo_mark(struct memo *m, uint64_t at, const uint32_t *mask)
{
	if (m->nr_trace == m->cap_trace) {
		m->cap_trace = m->cap_trace ? 2 * m->cap_trace : 1024;
		m->trace = sim_realloc_array(m->trace, m->cap_trace, sizeof(*m->trace));
	}
	m->trace[m->nr_trace++] = (struct memo_mark){ .at = at, .mask = { mask[0], mask[1] } };
}

/* Keep the subtree of @k: the marks from @from on in the trace, relative to @start. */
static void keep(struct memo *m, const struct memo_key *k, uint64_t from, uint64_t start)
{
	uint64_t n = m->nr_trace - from;
	struct memo_entry *e;

	if (m->nr_e == MEMO_ENTRIES_MAX || m->nr_pool + n > MEMO_MARKS_MAX || memo_find(m, k))
		return;
	if (m->nr_pool + n > m->cap_pool) {
		while (m->nr_pool + n > m->cap_pool)
			m->cap_pool = m->cap_pool ? 2 * m->cap_pool : 4096;
		m->pool = sim_realloc_array(m->pool, m->cap_pool, sizeof(*m->pool));
	}
	for (uint64_t i = 0; i < n; i++) {
		m->pool[m->nr_pool + i] = m->trace[from + i];
		m->pool[m->nr_pool + i].at -= start;
	}
	if (m->nr_e == m->cap_e) {
		m->cap_e = m->cap_e ? 2 * m->cap_e : 1024;
		m->e = sim_realloc_array(m->e, m->cap_e, sizeof(*m->e));
	}
	e = &m->e[m->nr_e++];
	*e = (struct memo_entry){ .key = *k, .first = m->nr_pool, .nr = (uint32_t)n };
	m->nr_pool += (uint32_t)n;
	if (2 * m->nr_e > m->nr_slots)
		grow_slots(m);
	else
		slot_put(m, m->nr_e - 1);
}

void memo_end(struct memo *m, const struct memo_key *k, uint64_t start, unsigned depth)
{
	uint64_t from;

	(void)depth;
	SIM_ASSERT(m->nr_open > 0);
	from = m->open[--m->nr_open];
	keep(m, k, from, start);
	if (m->nr_open == 0)
		m->nr_trace = 0;
}

void memo_step_masks(const struct memo *m, const struct memo_entry *me, uint32_t *next,
		     uint64_t local, uint32_t *mask)
{
	const struct memo_mark *k;

	if (*next >= me->nr)
		return;
	k = &m->pool[me->first + *next];
	if (k->at == local) {
		mask[0] = k->mask[0];
		mask[1] = k->mask[1];
		(*next)++;
	}
}
