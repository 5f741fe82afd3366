/*
 * statekey.c - the key of a world between two steps (sim_stream_key): a
 * 128-bit hash of everything later steps and their judgments read, so that
 * explore can let two prefixes that leave equal worlds share their future.
 *
 * Covered, field by field (never a pointer, a capacity or padding):
 *   device: size, block size, every durable block (number and bytes,
 *     through the sum of their hashes the device keeps, blkdev.h), every
 *     write in flight or in the volatile cache (all of
 *     struct bio_rec but its data pointer: sequence and completion numbers,
 *     block, state, kind, FUA, bytes, bio_info), the next sequence and
 *     completion numbers;
 *   file system: mount options, layout, the metadata buffers,
 *     the allocator (free map, free and dirty clusters, next-fit cursor),
 *     the inode (sizes, flags, sync tids, orphan and close states,
 *     reservations, the extent map), the page cache (every folio's index,
 *     flags, buffer heads and bytes), the ios and io_ends in flight,
 *     shutdown;
 *   journal: every scalar of journal_t, the running transaction (all of
 *     it: buffers, revokes, forgets, frees, the inode's dirty range), the
 *     logged transactions and the checkpoint list with its copies;
 *   checker: the POSIX reference, the durable baseline, the mutations since
 *     it (as summarised, checker/log.c) and the sizes the file had since, the
 *     durable points and the mutations since the last
 *     crash, whether the sentinel was written, the preallocated blocks (and
 *     those a durable point covers), the replace-via-truncate state.
 * Not covered, as nothing later reads them but counts and messages: the run
 * counters (the checker reads only their change within a step), the
 * device's flush count, the crash points seen and the last recovery's
 * report; the semantics (a run's sides each keep their own, fixed).
 * tests/unit/test_statekey.c changes each covered part in turn and
 * checks that the key changes.
 *
 * world_crash_key covers what crash-state enumeration reads (crash/cpmemo.c):
 * the device as above, the mount options, the semantics, the layout, the
 * journal's checkpoint list with its copies, the committing transaction with
 * its logged copies, the checker as above, the step (it seeds the sampling
 * past the bound), and the enumeration's flags and bound.  Not
 * the page cache, the in-memory inode or the running transaction: a crash
 * loses them.
 */
#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "blkdev.h"
#include "world.h"

#define CHUNK_BLOCKS (1u << BLKDEV_CHUNK_SHIFT)

struct keyh {
	uint64_t a, b;
};

static inline uint64_t rotl(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static inline void mix(struct keyh *h, uint64_t w)
{
	h->a = (h->a ^ w) * 0x9e3779b97f4a7c15ull;
	h->a ^= h->a >> 29;
	h->b = rotl(h->b + w * 0xc2b2ae3d27d4eb4full, 31) * 0x165667b19e3779f9ull;
}

static void put(struct keyh *h, uint64_t v)
{
	mix(h, v);
}

/* @n bytes at @p, length first. */
static void bytes(struct keyh *h, const void *p, size_t n)
{
	const uint8_t *s = p;
	uint64_t w;
	size_t i = 0;

	mix(h, n);
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		mix(h, w);
	}
	if (i < n) {
		w = 0;
		memcpy(&w, s + i, n - i);
		mix(h, w);
	}
}

static void key_bio(struct keyh *h, const struct bio_rec *b, uint32_t bs)
{
	const struct bio_info *i = &b->b_info;

	put(h, b->b_seq);
	put(h, b->b_done_seq);
	put(h, b->b_blocknr | (uint64_t)b->b_state << 32 | (uint64_t)b->b_kind << 40 |
	       (uint64_t)b->b_fua << 48);
	bytes(h, b->b_data, bs);
	bytes(h, i->bi_func, strlen(i->bi_func));
	put(h, (uint64_t)i->bi_lblk);
	put(h, i->bi_tid | (uint64_t)i->bi_home << 32);
	put(h, i->bi_event | (uint64_t)i->bi_what << 32 | (uint64_t)i->bi_cause << 40);
}

static void key_blkdev(struct keyh *h, const struct blkdev *bd)
{
	SIM_ASSERT(bd->bd_parent == NULL);
	put(h, bd->bd_nr_blocks | (uint64_t)bd->bd_block_size << 32);
	put(h, bd->bd_nr_slots);        /* the durable copies: their sum of hashes (blkdev.h) */
	put(h, bd->bd_durable_sum[0]);
	put(h, bd->bd_durable_sum[1]);
	put(h, bd->bd_nr_bios);
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++)
		key_bio(h, &bd->bd_bios[i], bd->bd_block_size);
	put(h, bd->bd_next_seq);
	put(h, bd->bd_next_done);
}

/*
 * A transaction's inode list; with none or the file's alone, the words the
 * key had when a transaction held one file's range (so that keys recorded
 * then still compare).
 */
static void key_inode_list(struct keyh *h, const transaction_t *t)
{
	const struct jbd2_inode *ji = t->t_nr_inodes ? &t->t_inodes[0] : NULL;

	if (t->t_nr_inodes <= 1 && (!ji || ji->i_ino == EXT4_FILE_INO)) {
		put(h, (ji ? ji->i_flags : 0) | (uint64_t)t->t_synchronous_commit << 32);
		put(h, (uint64_t)(ji ? ji->i_dirty_start : -1));
		put(h, (uint64_t)(ji ? ji->i_dirty_end : -1));
		return;
	}
	put(h, (uint64_t)t->t_nr_inodes << 40 | (uint64_t)t->t_synchronous_commit << 32);
	for (uint32_t i = 0; i < t->t_nr_inodes; i++) {
		put(h, t->t_inodes[i].i_ino | (uint64_t)t->t_inodes[i].i_flags << 32);
		put(h, (uint64_t)t->t_inodes[i].i_dirty_start);
		put(h, (uint64_t)t->t_inodes[i].i_dirty_end);
	}
}

static void key_transaction(struct keyh *h, const transaction_t *t)
{
	put(h, t->t_tid | (uint64_t)t->t_state << 32);
	put(h, (uint64_t)(uint32_t)t->t_updates | (uint64_t)t->t_outstanding_credits << 32);
	put(h, t->t_nr_buffers);
	for (uint32_t i = 0; i < t->t_nr_buffers; i++) {
		uint32_t ino = t->t_buffers[i].jb_ino;

		/* the scenario's file's data as the keys had it before several files */
		put(h, t->t_buffers[i].jb_blocknr |
		       (ino && ino != EXT4_FILE_INO ? (uint64_t)ino << 32 : 0));
		put(h, (uint64_t)t->t_buffers[i].jb_lblk);
	}
	bytes(h, t->t_revoke, t->t_nr_revoke * sizeof(*t->t_revoke));
	bytes(h, t->t_forget, t->t_nr_forget * sizeof(*t->t_forget));
	bytes(h, t->t_freed, t->t_nr_freed * sizeof(*t->t_freed));
	key_inode_list(h, t);
}

static void key_journal(struct keyh *h, const journal_t *j, uint32_t bs)
{
	put(h, jbd2_log_block(j, 0) | (uint64_t)j->j_total_len << 32);
	put(h, j->j_first | (uint64_t)j->j_last << 32);
	put(h, j->j_head | (uint64_t)j->j_tail << 32);
	put(h, j->j_tail_sequence | (uint64_t)j->j_free << 32);
	put(h, j->j_transaction_sequence | (uint64_t)j->j_commit_sequence << 32);
	put(h, j->j_max_transaction_buffers | (uint64_t)j->j_aborted << 32);
	/* the superblock in memory (features, csum seed) and whether the first commit writes it */
	put(h, j->j_flushed | (uint64_t)j->j_csum_seed << 32);
	put(h, (uint64_t)j->j_format_version | (uint64_t)j->j_failed_commit << 32);
	bytes(h, j->j_sb_buffer, bs);
	put(h, j->j_running_transaction != NULL);
	if (j->j_running_transaction)
		key_transaction(h, j->j_running_transaction);
	bytes(h, j->j_logged, j->j_nr_logged * sizeof(*j->j_logged));
	put(h, j->j_nr_cp);
	for (uint32_t i = 0; i < j->j_nr_cp; i++) {
		put(h, j->j_cp[i].cp_blocknr | (uint64_t)j->j_cp[i].cp_tid << 32);
		bytes(h, j->j_cp[i].cp_data, bs);
	}
}

static void key_free_map(struct keyh *h, const struct sim_bitmap *b)
{
	uint32_t x = 0, n;

	while (bitmap_next_set(b, x, &x)) {
		n = bitmap_run_length(b, x, UINT32_MAX - x);
		put(h, x | (uint64_t)n << 32);
		if (n == 0 || (uint64_t)x + n > UINT32_MAX)
			break;
		x += n;
	}
	put(h, UINT64_MAX);
}

static void key_inode(struct keyh *h, const struct ext4_inode_info *in)
{
	const struct address_space *m = &in->i_mapping;

	put(h, (uint64_t)in->i_size);
	put(h, (uint64_t)in->i_disksize);
	put(h, in->i_flags | (uint64_t)in->i_sync_tid << 32);
	put(h, in->i_datasync_tid | (uint64_t)in->i_orphan << 32 |
	       (uint64_t)in->i_da_alloc_close << 40);
	put(h, in->i_reserved_data_blocks | (uint64_t)in->i_csum_seed << 32);
	put(h, in->i_ext_depth | (uint64_t)in->i_ext_nr_leaves << 32);
	for (uint32_t i = 0; i < in->i_ext_nr_leaves; i++)
		put(h, in->i_ext_leaves[i].el_lblk | (uint64_t)in->i_ext_leaves[i].el_pblk << 32);
	put(h, in->i_es.es_nr);
	for (uint32_t i = 0; i < in->i_es.es_nr; i++) {
		const struct extent_status *e = &in->i_es.es[i];

		put(h, e->es_lblk | (uint64_t)e->es_len << 32);
		put(h, e->es_pblk | (uint64_t)e->es_state << 32);
	}
	put(h, m->a_nr | (uint64_t)m->a_blocksize << 32);
	for (uint32_t i = 0; i < m->a_nr; i++) {
		const struct folio *f = m->a_folios[i];

		put(h, f->index);
		put(h, f->flags);
		for (unsigned k = 0; k < SIM_BLOCKS_PER_PAGE_MAX; k++)
			put(h, f->bh[k].b_state | (uint64_t)f->bh[k].b_blocknr << 32);
		bytes(h, f->data, PAGE_SIZE);
	}
}

static void key_fs(struct keyh *h, const struct ext4_fs *fs)
{
	const struct ext4_mount_opts *o = &fs->opts;

	put(h, o->block_size | (uint64_t)o->data << 32);
	put(h, o->delalloc | o->dioread_nolock << 1 | o->auto_da_alloc << 2 |
	       (uint64_t)o->disk_blocks << 32);
	/* the geometry (the ranges follow from it; leaves_seen only names blocks) */
	bytes(h, &fs->lay, offsetof(struct ext4_layout, ranges));
	key_journal(h, &fs->journal, o->block_size);
	for (uint32_t i = 0; i < fs->s_nr_bufs; i++) {
		put(h, fs->s_bufs[i].mb_blocknr);
		bytes(h, fs->s_bufs[i].mb_data, o->block_size);
	}
	key_free_map(h, fs->free_map);
	put(h, fs->s_freeclusters);
	put(h, fs->s_dirtyclusters);
	put(h, fs->s_mb_last_block | (uint64_t)fs->s_shutdown << 32);
	put(h, fs->s_fault_enospc_after | (uint64_t)fs->s_fault_enospc << 32 |
	       (uint64_t)fs->s_fault_fired << 33 | (uint64_t)fs->s_fault_nonda << 34);
	key_inode(h, fs->inode);
	put(h, fs->nr_ios);
	for (uint32_t i = 0; i < fs->nr_io_slots; i++) {
		if (fs->ios[i].io_end == 0)
			continue;       /* a finished bio's hole: where it lies changes nothing */
		put(h, fs->ios[i].io_seq);
		put(h, fs->ios[i].io_index);
		put(h, fs->ios[i].io_end | (uint64_t)fs->ios[i].io_bh << 32);
	}
	put(h, fs->nr_io_ends | (uint64_t)fs->next_io_end << 32);
	for (uint32_t i = 0; i < fs->nr_io_ends; i++) {
		const struct ext4_io_end *e = &fs->io_ends[i];

		put(h, e->ie_id | (uint64_t)e->ie_unwritten << 32 |
		       (e->ie_ino != EXT4_FILE_INO ? (uint64_t)e->ie_ino << 40 : 0));
		put(h, e->ie_pending);
		bytes(h, e->ie_vecs, e->ie_nr_vecs * sizeof(*e->ie_vecs));
	}
	for (uint32_t i = 0; i < fs->s_nr_ea_cache; i++)        /* none: the key as before */
		put(h, fs->s_ea_cache[i].ce_hash | (uint64_t)fs->s_ea_cache[i].ce_block << 32 |
		       (uint64_t)fs->s_ea_cache[i].ce_reusable << 63);
}

static void key_runs(struct keyh *h, const struct runs *rs)
{
	put(h, (uint64_t)rs->size);
	put(h, rs->nr);
	for (uint32_t i = 0; i < rs->nr; i++) {
		put(h, (uint64_t)rs->r[i].r_off);
		put(h, (uint64_t)rs->r[i].r_len);
		put(h, rs->r[i].r_byte);
	}
}

static void key_muts(struct keyh *h, const struct chk_mut *m, uint32_t n)
{
	put(h, n);
	for (uint32_t i = 0; i < n; i++) {
		put(h, m[i].kind | (uint64_t)m[i].byte << 8);
		put(h, (uint64_t)m[i].off);
		put(h, (uint64_t)m[i].len);
	}
}

static void key_checker(struct keyh *h, const struct chk_state *c)
{
	put(h, c->block_size | (uint64_t)c->sentinel_written << 32);
	key_runs(h, &c->posix);
	key_runs(h, &c->durable);
	key_muts(h, c->muts, c->nr_muts);
	put(h, (uint64_t)c->size_lo);
	put(h, (uint64_t)c->size_hi);
	put(h, c->nr_dps);
	for (uint32_t i = 0; i < c->nr_dps; i++) {
		put(h, (uint64_t)c->dps[i].size);
		put(h, c->dps[i].mut_index);
	}
	key_muts(h, c->crash_muts, c->all_muts);
	key_runs(h, &c->falloc);
	key_runs(h, &c->falloc_durable);
	if (c->dsync.nr || c->dsync_size) {     /* dio_sync_durable's promises, when any */
		key_runs(h, &c->dsync);
		put(h, (uint64_t)c->dsync_size);
	}
	put(h, c->rt_state);
	if (c->rt_state < RT_CLOSED)    /* before the close nothing reads the rest */
		return;
	put(h, c->rt_close_seq);
	key_runs(h, &c->rt_data);
}

/* The journal's part of a crash point: checkpoint list, committing transaction, its copies. */
static void key_journal_crash(struct keyh *h, const journal_t *j, uint32_t bs)
{
	const transaction_t *t = j->j_committing_transaction;

	put(h, j->j_nr_cp);
	for (uint32_t i = 0; i < j->j_nr_cp; i++) {
		put(h, j->j_cp[i].cp_blocknr | (uint64_t)j->j_cp[i].cp_tid << 32);
		bytes(h, j->j_cp[i].cp_data, bs);
	}
	put(h, t != NULL);
	if (!t)
		return;
	key_transaction(h, t);
	put(h, j->j_commit_copies != NULL);
	for (uint32_t i = 0; j->j_commit_copies && i < t->t_nr_buffers; i++) {
		put(h, j->j_commit_copies[i] != NULL);
		if (j->j_commit_copies[i])
			bytes(h, j->j_commit_copies[i], bs);
	}
}

void world_crash_key(const struct world *w, const struct chk_state *chk, uint32_t step,
		     uint32_t flags, uint64_t bound, uint64_t key[2])
{
	const struct ext4_mount_opts *o = &w->fs.opts;
	struct keyh h = { 0x452821e638d01377ull, 0xbe5466cf34e90c6cull };

	put(&h, step | (uint64_t)flags << 32);
	put(&h, bound);
	key_blkdev(&h, w->bd);
	put(&h, o->block_size | (uint64_t)o->data << 32);
	put(&h, o->delalloc | o->dioread_nolock << 1 | o->auto_da_alloc << 2 |
		(uint64_t)o->disk_blocks << 32);
	bytes(&h, &w->fs.sem, sizeof(w->fs.sem));
	bytes(&h, &w->fs.lay, offsetof(struct ext4_layout, ranges));
	/* which pending writes are metadata (crashstates.c's meta_first) */
	put(&h, w->fs.inode->i_ext_nr_leaves);
	bytes(&h, w->fs.inode->i_ext_leaves, w->fs.inode->i_ext_nr_leaves * sizeof(struct ext4_ext_leaf));
	key_journal_crash(&h, &w->fs.journal, o->block_size);
	key_checker(&h, chk);
	mix(&h, 0x4352534b);
	key[0] = h.a ^ rotl(h.b, 17);
	key[1] = h.b ^ (h.a >> 7) * 0x9e3779b97f4a7c15ull;
}

void world_key(const struct world *w, uint64_t key[2])
{
	struct keyh h = { 0x243f6a8885a308d3ull, 0x13198a2e03707344ull };

	key_blkdev(&h, w->bd);
	key_fs(&h, &w->fs);
	key_checker(&h, w->chk);
	put(&h, w->mapped ? 1 + w->map_prot : 0);      /* an explicit mmap step's mapping */
	if (w->f_flags)
		put(&h, w->f_flags);                    /* open -d / -s: the file's flags */
	for (uint32_t i = 0; i < w->fs.s_nr_dios; i++) {        /* AIOs in flight */
		const struct iomap_dio *d = &w->fs.s_dios[i];

		put(&h, (uint64_t)d->d_iocb.ki_pos ^ ((uint64_t)d->d_ino << 48));
		put(&h, (uint64_t)d->d_size ^ ((uint64_t)d->d_flags << 48) ^
			((uint64_t)d->d_iocb.ki_flags << 40) ^ ((uint64_t)d->d_iocb.ki_fill << 32));
	}
	put(&h, (uint64_t)w->map_off);
	put(&h, (uint64_t)w->map_len);
	mix(&h, 0x4b4559);
	key[0] = h.a ^ rotl(h.b, 17);
	key[1] = h.b ^ (h.a >> 7) * 0x9e3779b97f4a7c15ull;
}
