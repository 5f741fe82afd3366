/*
 * cpmemo.c - crash points' results by key (cpmemo.h).
 *
 * The key (world_crash_key, sim/statekey.c) covers everything cs_enumerate
 * reads: the device (durable blocks and pending writes), the mount options,
 * semantics and layout, the journal's checkpoint list and committing
 * transaction with its logged copies, the checker, the step and the
 * enumeration's flags and bound, all but the semantics; so an equal key
 * gives the same cs_point when the semantics agree in the fields the
 * point's mounts read (cs_point.sem_read: a patch of the write path leaves
 * recovery, the mount and the checks alone, so `--diff` and a sweep over
 * profiles share the points where their devices agree).  Entries of one key
 * under semantics that differ there sit side by side.  A result is stored
 * and handed out as a deep copy.  Open addressing over a
 * power-of-two table; when the stored results pass the byte budget, every
 * entry is dropped and the memo starts again (results do not depend on
 * what the memo holds, only the time does).
 */
#include "cpmemo.h"
#include "nsnap.h"

#include <stdlib.h>
#include <string.h>

struct cp_entry {
	uint64_t key[2];
	struct ext4_semantics sem;      /* the semantics it was judged under */
	struct cs_point *p;             /* NULL: empty slot */
};

struct cp_memo {
	struct cp_entry *slot;
	uint32_t nr_slots;              /* a power of two */
	uint32_t nr;
	uint64_t bytes, max_bytes;
	uint64_t hits;
};

struct cp_memo *cp_memo_create(uint64_t max_bytes)
{
	struct cp_memo *m = sim_zalloc(sizeof(*m));

	m->nr_slots = 1024;
	m->slot = sim_zalloc(m->nr_slots * sizeof(*m->slot));
	m->max_bytes = max_bytes;
	return m;
}

/* *dst = a copy of @src (NULL stays NULL); the bytes it holds. */
static uint64_t dup_text(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	SIM_ASSERT(!src || *dst);
	return src ? strlen(src) + 1 : 0;
}

/* A deep copy of @src into @dst; the bytes it holds. */
static uint64_t point_copy(struct cs_point *dst, const struct cs_point *src)
{
	uint64_t bytes = sizeof(*dst);

	*dst = *src;
	dst->states = sim_dup_array(src->states, src->nr_states, src->nr_states + 1,
				    sizeof(*src->states));
	dst->cap_states = src->nr_states + 1;
	for (uint32_t i = 0; i < src->nr_states; i++) {
		if (src->states[i].detail) {
			dst->states[i].detail = strdup(src->states[i].detail);
			SIM_ASSERT(dst->states[i].detail != NULL);
			bytes += strlen(src->states[i].detail) + 1;
		}
		bytes += dup_text(&dst->states[i].tx_kept, src->states[i].tx_kept);
		bytes += dup_text(&dst->states[i].tx_lost, src->states[i].tx_lost);
		bytes += dup_text(&dst->states[i].image, src->states[i].image);
		bytes += dup_text(&dst->states[i].ns, src->states[i].ns);
		if (src->states[i].ns_snap) {   /* a namespace state: its snapshot too */
			dst->states[i].ns_snap = sim_zalloc(sizeof(struct nsnap));
			nsnap_copy(dst->states[i].ns_snap, src->states[i].ns_snap);
			bytes += sizeof(struct nsnap) +
				 (uint64_t)src->states[i].ns_snap->ns_nr * sizeof(struct nsnap_entry);
		}
	}
	dst->writes = src->writes ? sim_dup_array(src->writes, src->nr_writes, src->nr_writes + 1,
						  sizeof(*src->writes)) : NULL;
	dst->owners = src->owners ? sim_dup_array(src->owners, src->nr_owners, src->nr_owners + 1,
						  sizeof(*src->owners)) : NULL;
	return bytes + (uint64_t)dst->cap_states * sizeof(*dst->states) +
	       (uint64_t)src->nr_writes * sizeof(*src->writes);
}

static void drop_all(struct cp_memo *m)
{
	for (uint32_t i = 0; i < m->nr_slots; i++) {
		if (m->slot[i].p) {
			cs_point_free(m->slot[i].p);
			free(m->slot[i].p);
		}
	}
	memset(m->slot, 0, m->nr_slots * sizeof(*m->slot));
	m->nr = 0;
	m->bytes = 0;
}

void cp_memo_destroy(struct cp_memo *m)
{
	if (!m)
		return;
	drop_all(m);
	free(m->slot);
	free(m);
}

/* Do @a and @b agree in every field of struct ext4_semantics that @read names? */
static bool sem_agree(const struct ext4_semantics *a, const struct ext4_semantics *b,
		      uint64_t read)
{
	const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;

	for (; read; read &= read - 1) {
		unsigned off = (unsigned)__builtin_ctzll(read);

		SIM_ASSERT(off < sizeof(*a));
		if (x[off] != y[off])
			return false;
	}
	return true;
}

/*
 * The slot holding a result for @key valid under @sem (with @sem NULL: the
 * one holding exactly this entry's key and semantics), or the empty slot
 * where a new one goes.
 */
static struct cp_entry *find(const struct cp_memo *m, const uint64_t key[2],
			     const struct ext4_semantics *sem)
{
	uint32_t i = (uint32_t)key[0] & (m->nr_slots - 1);

	for (;; i = (i + 1) & (m->nr_slots - 1)) {
		const struct cp_entry *e = &m->slot[i];

		if (!e->p)
			break;
		if (e->key[0] == key[0] && e->key[1] == key[1] && sem &&
		    sem_agree(&e->sem, sem, e->p->sem_read))
			break;
	}
	return &m->slot[i];
}

bool cp_memo_get(struct cp_memo *m, const uint64_t key[2], const struct ext4_semantics *sem,
		 struct cs_point *out)
{
	struct cp_entry *e = find(m, key, sem);

	if (!e->p)
		return false;
	point_copy(out, e->p);
	m->hits++;
	return true;
}

/* Double the table (the load stays under a half). */
static void grow(struct cp_memo *m)
{
	struct cp_entry *old = m->slot;
	uint32_t n = m->nr_slots;

	m->nr_slots *= 2;
	m->slot = sim_zalloc(m->nr_slots * sizeof(*m->slot));
	for (uint32_t i = 0; i < n; i++)
		if (old[i].p)
			*find(m, old[i].key, NULL) = old[i];
	free(old);
}

void cp_memo_put(struct cp_memo *m, const uint64_t key[2], const struct ext4_semantics *sem,
		 const struct cs_point *p)
{
	struct cp_entry *e;

	if (m->bytes > m->max_bytes)
		drop_all(m);
	if (2 * (m->nr + 1) > m->nr_slots)
		grow(m);
	e = find(m, key, sem);
	if (e->p)
		return;
	e->key[0] = key[0];
	e->key[1] = key[1];
	e->sem = *sem;
	e->p = sim_zalloc(sizeof(*e->p));
	m->bytes += point_copy(e->p, p);
	m->nr++;
}

uint64_t cp_memo_hits(const struct cp_memo *m)
{
	return m->hits;
}
