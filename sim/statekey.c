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
 *   file system: mount options, layout, the metadata buffers (the
 *     directories' blocks and the orphan list's head among them),
 *     the allocator (free map, free and dirty clusters, next-fit cursor),
 *     every in-core inode (sizes, flags, sync tids, orphan and close states,
 *     reservations, the extent map, the page cache: every folio's index,
 *     flags, buffer heads and bytes; number, mode, link count, generation,
 *     open count, next orphan, raw inode's place, a fast link's target,
 *     xattr block), which of them the data steps work on, whether the
 *     clock ticks, the ios and io_ends in flight, shutdown;
 *   journal: every scalar of journal_t, the running transaction (all of
 *     it: buffers, revokes, forgets, frees, the inode's dirty range), the
 *     logged transactions and the checkpoint list with its copies;
 *   checker: the POSIX reference, the durable baseline, the mutations since
 *     it (as summarised, checker/log.c) and the sizes the file had since, the
 *     durable points and the mutations since the last
 *     crash, whether the sentinel was written, the preallocated blocks (and
 *     those a durable point covers), the replace-via-truncate state, whether
 *     the file is muted or detached, and the namespace reference whole (its
 *     inodes with contents and attributes, every version with its names,
 *     link counts and operation, the promises, the names touched, the
 *     counters).
 * Not covered, as nothing later reads them but counts and messages: the run
 * counters (the checker reads only their change within a step), the
 * device's flush count, the crash points seen and the last recovery's
 * report; the semantics (a run's sides each keep their own, fixed).
 * tests/unit/test_statekey.c changes each covered part in turn and
 * checks that the key changes.
 *
 * world_crash_key covers what crash-state enumeration reads (crash/cpmemo.c):
 * the device as above, the mount options, the layout, the
 * journal's checkpoint list with its copies, the committing transaction with
 * its logged copies, the checker as above (the namespace reference with
 * it), which blocks the in-core inodes make metadata (extent leaves,
 * directories', links' and xattr blocks: ext4_is_data_block), the step (it
 * seeds the sampling past the bound), and the enumeration's flags and bound.
 * Not the semantics: the memo compares the fields a point's mounts read
 * (cs_point.sem_read) beside the key.  Not the page cache, the in-memory
 * inode or the running transaction: a crash loses them.
 */
#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "blkdev.h"
#include "namespace.h"
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

/* What a namespace gives an in-core inode beyond its file's state (key_inode). */
static void key_inode_ns(struct keyh *h, const struct ext4_inode_info *in)
{
	put(h, in->i_ino | (uint64_t)in->i_mode << 32 | (uint64_t)in->i_links_count << 48);
	put(h, in->i_generation | (uint64_t)in->i_open << 32);
	put(h, in->i_next_orphan | (uint64_t)in->i_fast_symlink << 32);
	put(h, in->i_loc_blk | (uint64_t)in->i_loc_off << 32);
	put(h, in->i_file_acl);
	if (in->i_fast_symlink)
		bytes(h, in->i_data, sizeof(in->i_data));
}

/*
 * The in-core inodes: which one the data steps work on, whether the clock
 * ticks, and every inode (the current one's file state once, by key_inode
 * in key_fs, and its namespace fields here).
 */
static void key_inodes(struct keyh *h, const struct ext4_fs *fs)
{
	put(h, fs->inode->i_ino | (uint64_t)fs->s_nr_inodes << 32 |
	       (uint64_t)fs->s_time_ticks << 63);
	for (uint32_t i = 0; i < fs->s_nr_inodes; i++) {
		const struct ext4_inode_info *in = fs->s_inodes[i];

		key_inode_ns(h, in);
		if (in != fs->inode)
			key_inode(h, in);
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
	key_inodes(h, fs);
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

static void key_dnames(struct keyh *h, const struct chk_ns_dname *n, uint32_t nr)
{
	put(h, nr);
	for (uint32_t i = 0; i < nr; i++) {
		put(h, n[i].dn_dir);
		bytes(h, n[i].dn_comp, strlen(n[i].dn_comp));
	}
}

static void key_ns_inode(struct keyh *h, const struct chk_ns_inode *ni)
{
	put(h, ni->ni_ino | (uint64_t)ni->ni_type << 32 | (uint64_t)ni->ni_freed << 40 |
	       (uint64_t)ni->ni_content << 48);
	if (ni->ni_content == NS_BYTES)
		key_runs(h, &ni->ni_data);
	put(h, ni->ni_hash[0]);
	put(h, ni->ni_hash[1]);
	put(h, (uint64_t)ni->ni_size);
	put(h, ni->ni_changes | (uint64_t)ni->ni_born_epoch << 32);
	bytes(h, ni->ni_target, strlen(ni->ni_target));
	put(h, ni->ni_xattr_state | (uint64_t)ni->ni_nr_xattrs << 8 |
	       (uint64_t)ni->ni_xattr_changes << 32);
	for (uint32_t i = 0; i < ni->ni_nr_xattrs; i++) {
		bytes(h, ni->ni_xattrs[i].x_name, strlen(ni->ni_xattrs[i].x_name));
		bytes(h, ni->ni_xattrs[i].x_value, ni->ni_xattrs[i].x_len);
	}
	put(h, ni->ni_xattr_hash[0]);
	put(h, ni->ni_xattr_hash[1]);
}

static void key_ns_promise(struct keyh *h, const struct chk_ns_promise *p)
{
	put(h, p->p_kind | (uint64_t)p->p_step << 8 | (uint64_t)p->p_datasync << 40 |
	       (uint64_t)p->p_new_file << 41 | (uint64_t)p->p_exchange << 42 |
	       (uint64_t)p->p_sync << 43 | (uint64_t)p->p_pre_durable << 44 |
	       (uint64_t)p->p_void << 45 | (uint64_t)p->p_hash_known << 46 |
	       (uint64_t)p->p_xattr_known << 47);
	put(h, p->p_id | (uint64_t)p->p_id2 << 32);
	put(h, p->p_changes | (uint64_t)p->p_xattr_changes << 32);
	put(h, (uint64_t)p->p_size);
	put(h, p->p_hash[0]);
	put(h, p->p_hash[1]);
	put(h, p->p_nr_xattrs | (uint64_t)p->p_epoch << 32);
	put(h, p->p_xattr_hash[0]);
	put(h, p->p_xattr_hash[1]);
	key_dnames(h, p->p_names, p->p_nr);
	for (uint32_t i = 0; i < p->p_nr; i++)
		put(h, (p->p_child ? p->p_child[i] : 0) | (uint64_t)(p->p_changed && p->p_changed[i]) << 32);
	key_dnames(h, p->p_later, p->p_nr_later);
}

/*
 * The namespace reference (checker/namespace.h) whole: its inodes, every
 * version since the last sync with its names, link counts, sharing and
 * operation, the promises, the names touched, the counters.
 */
static void key_ns(struct keyh *h, const struct chk_ns *ns)
{
	put(h, ns->ns_nr_inodes | (uint64_t)ns->ns_nr_ver << 32);
	for (uint32_t i = 0; i < ns->ns_nr_inodes; i++)
		key_ns_inode(h, &ns->ns_inodes[i]);
	for (uint32_t v = 0; v < ns->ns_nr_ver; v++) {
		const struct chk_ns_version *nv = &ns->ns_ver[v];

		put(h, nv->nv_nr | (uint64_t)nv->nv_step << 32);
		bytes(h, nv->nv_op, strlen(nv->nv_op));
		for (uint32_t i = 0; i < nv->nv_nr; i++) {
			bytes(h, nv->nv_names[i].nn_path, strlen(nv->nv_names[i].nn_path));
			put(h, nv->nv_names[i].nn_id | (uint64_t)nv->nv_nlink[i] << 32);
			put(h, nv->nv_share[i]);
		}
	}
	put(h, ns->ns_nr_p);
	for (uint32_t i = 0; i < ns->ns_nr_p; i++)
		key_ns_promise(h, &ns->ns_p[i]);
	put(h, ns->ns_nr_touch | (uint64_t)ns->ns_nr_dsync << 32);
	for (uint32_t i = 0; i < ns->ns_nr_touch; i++) {
		key_dnames(h, &ns->ns_touch[i].t_name, 1);
		put(h, ns->ns_touch[i].t_op);
	}
	for (uint32_t i = 0; i < ns->ns_nr_dsync; i++) {
		key_dnames(h, &ns->ns_dsync[i].t_name, 1);
		put(h, ns->ns_dsync[i].t_op);
	}
	put(h, ns->ns_ops | (uint64_t)ns->ns_epoch << 32);
	put(h, ns->ns_commits | (uint64_t)ns->ns_commit_seq << 32);
	put(h, ns->ns_seq_known);
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
	put(h, c->c_mute | (uint64_t)c->c_detached << 1 | (uint64_t)(c->c_ns != NULL) << 2);
	if (c->c_ns)
		key_ns(h, c->c_ns);
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

/*
 * The other in-core inodes, for a crash point: what says which blocks are
 * metadata (their extent leaves, a directory's or a link's blocks, the
 * xattr block: ext4_is_data_block) and which file the data steps work on.
 */
static void key_crash_inodes(struct keyh *h, const struct ext4_fs *fs)
{
	put(h, fs->inode->i_ino | (uint64_t)fs->s_nr_inodes << 32);
	for (uint32_t i = 0; i < fs->s_nr_inodes; i++) {
		const struct ext4_inode_info *in = fs->s_inodes[i];

		if (in == fs->inode)
			continue;
		key_inode_ns(h, in);
		put(h, in->i_ext_nr_leaves);
		bytes(h, in->i_ext_leaves, in->i_ext_nr_leaves * sizeof(struct ext4_ext_leaf));
		put(h, in->i_es.es_nr);
		for (uint32_t k = 0; k < in->i_es.es_nr; k++) {
			const struct extent_status *e = &in->i_es.es[k];

			put(h, e->es_lblk | (uint64_t)e->es_len << 32);
			put(h, e->es_pblk | (uint64_t)e->es_state << 32);
		}
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
	bytes(&h, &w->fs.lay, offsetof(struct ext4_layout, ranges));
	/* which pending writes are metadata (crashstates.c's meta_first) */
	put(&h, w->fs.inode->i_ext_nr_leaves);
	bytes(&h, w->fs.inode->i_ext_leaves, w->fs.inode->i_ext_nr_leaves * sizeof(struct ext4_ext_leaf));
	key_crash_inodes(&h, &w->fs);
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
