/*
 * txlost.c - a crash state's kept and lost size and extent changes (see
 * txlost.h).  Reads two file systems, changes neither.
 */
#include "txlost.h"

#include <stdio.h>

#include "extents.h"

#define RANGES_SHOWN 3

/* Append "A-B STATE@P" for the blocks [lblk, lblk + len) at @pblk. */
static size_t put_range(char *out, size_t cap, size_t used, unsigned n, uint32_t lblk,
			uint32_t len, enum es_state st, uint32_t pblk)
{
	if (used >= cap)
		return used;
	if (n == RANGES_SHOWN)
		return used + (size_t)snprintf(out + used, cap - used, ", ...");
	if (n > RANGES_SHOWN)
		return used;
	used += (size_t)snprintf(out + used, cap - used, "%s%u", n ? ", " : "", lblk);
	if (len > 1 && used < cap)
		used += (size_t)snprintf(out + used, cap - used, "-%u", lblk + len - 1);
	if (used < cap)
		used += (size_t)snprintf(out + used, cap - used, " %s@%u", es_state_name(st), pblk);
	return used;
}

/* The on-disk extents of @t (delayed ones are in no transaction). */
static size_t put_extents(const struct ext4_es_tree *t, char *out, size_t cap, size_t used)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < t->es_nr; i++)
		if (t->es[i].es_state != ES_DELAYED)
			used = put_range(out, cap, used, n++, t->es[i].es_lblk, t->es[i].es_len,
					 (enum es_state)t->es[i].es_state, t->es[i].es_pblk);
	if (!n && used < cap)
		used += (size_t)snprintf(out + used, cap - used, "none");
	return used;
}

/*
 * The runs of @mem's on-disk extents that @rec does not map the same way
 * (another state or block, or not at all); returns how many.
 */
static unsigned put_lost_extents(const struct ext4_es_tree *mem, const struct ext4_es_tree *rec,
				 char *out, size_t cap, size_t *used)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < mem->es_nr; i++) {
		const struct extent_status *e = &mem->es[i];
		uint32_t b = e->es_lblk, end = e->es_lblk + e->es_len, run = 0, pblk, len;

		if (e->es_state == ES_DELAYED)
			continue;
		while (b < end) {
			enum es_state st = es_lookup(rec, b, &pblk, &len);
			bool same = st == e->es_state && pblk == e->es_pblk + (b - e->es_lblk);
			uint32_t step = len ? SIM_MIN(len, end - b) : end - b;

			if (!same) {
				run += step;
			} else if (run) {
				*used = put_range(out, cap, *used, n++, b - run, run,
						  (enum es_state)e->es_state,
						  e->es_pblk + (b - run - e->es_lblk));
				run = 0;
			}
			b += step;
		}
		if (run)
			*used = put_range(out, cap, *used, n++, end - run, run,
					  (enum es_state)e->es_state,
					  e->es_pblk + (end - run - e->es_lblk));
	}
	return n;
}

/* "with tid 3 (running)", "with tid 2 (its commit block not on the media)", both. */
static size_t put_lost_tids(const struct ext4_fs *mem, uint32_t committing, bool landed,
			    char *out, size_t cap)
{
	const transaction_t *run = mem->journal.j_running_transaction;
	size_t used = 0;

	if (committing && !landed)
		used += (size_t)snprintf(out, cap, "with tid %u (its commit block not on the media)",
					 committing);
	if (run && used < cap)
		used += (size_t)snprintf(out + used, cap - used, "%s tid %u (running)",
					 used ? " and" : "with", run->t_tid);
	if (!used)
		used = (size_t)snprintf(out, cap, "with no transaction left to replay");
	return used < cap ? used : cap;
}

void cs_tx_changes(const struct ext4_fs *mem, const struct ext4_fs *rec, uint32_t committing,
		   bool landed, char *kept, char *lost, size_t cap)
{
	size_t used = (size_t)snprintf(kept, cap, "i_disksize %lld, extents ",
				       (long long)rec->inode->i_disksize);
	char ext[CS_CHANGES_MAX] = "";
	size_t ext_used = 0;
	unsigned n;

	SIM_ASSERT(cap > 0);
	put_extents(&rec->inode->i_es, kept, cap, used);
	n = put_lost_extents(&mem->inode->i_es, &rec->inode->i_es, ext, sizeof(ext), &ext_used);
	lost[0] = 0;
	if (!n && mem->inode->i_disksize == rec->inode->i_disksize)
		return;
	used = put_lost_tids(mem, committing, landed, lost, cap);
	if (mem->inode->i_disksize != rec->inode->i_disksize && used < cap)
		used += (size_t)snprintf(lost + used, cap - used, ": i_disksize %lld -> %lld",
					 (long long)rec->inode->i_disksize,
					 (long long)mem->inode->i_disksize);
	if (n && used < cap)
		snprintf(lost + used, cap - used, "%sextents %s",
			 mem->inode->i_disksize != rec->inode->i_disksize ? ", " : ": ", ext);
}
