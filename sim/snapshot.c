/*
 * snapshot.c - the state of a world as JSON (see snapshot.h): sizes, the
 * block map, the page cache, the journal, the device, the file's bytes and
 * the counters.  Reads the model only; the durable size comes from a mount
 * of an overlay of the device, freed before returning.
 */
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "report.h"

/* Print @names[k] for each bit k set in @bits, as a JSON array. */
static void snap_bits(FILE *out, unsigned bits, const char *const *names, unsigned nr)
{
	bool any = false;

	fputc('[', out);
	for (unsigned k = 0; k < nr; k++) {
		if (!(bits & (1u << k)))
			continue;
		fprintf(out, "%s\"%s\"", any ? ", " : "", names[k]);
		any = true;
	}
	fputc(']', out);
}

bool snap_durable_size(const struct ext4_fs *fs, int64_t *size)
{
	struct blkdev *child = blkdev_overlay(fs->bdev);
	struct ext4_mount_opts ro = fs->opts;   /* looked at, not used: read-only */
	struct sim_counters c;
	struct jbd2_recovery_info ri;
	struct ext4_fs d;
	int err;

	memset(&c, 0, sizeof(c));
	ro.ro = true;
	err = ext4_fill_super(&d, child, &ro, &fs->sem, &c, &ri);
	if (err == 0)
		*size = d.inode->i_size;
	ext4_free_fs(&d);
	blkdev_destroy(child);
	return err == 0;
}

static void snap_extents(FILE *out, const struct ext4_fs *fs)
{
	const struct ext4_es_tree *t = &fs->inode->i_es;

	fputc('[', out);
	for (uint32_t i = 0; i < t->es_nr; i++) {
		const struct extent_status *e = &t->es[i];

		fprintf(out, "%s{\"lblk\": %u, \"len\": %u, \"state\": \"%s\"", i ? ", " : "",
			e->es_lblk, e->es_len, es_state_name(e->es_state));
		if (e->es_state != ES_DELAYED)
			fprintf(out, ", \"pblk\": %u", e->es_pblk);
		fputc('}', out);
	}
	fputc(']', out);
}

static void snap_folio(FILE *out, const struct address_space *m, const struct folio *f)
{
	static const char *const pg[] = { "PG_uptodate", "PG_dirty", "PG_writeback",
					  "PG_buffers", "PG_mkwrite" };
	static const char *const bh[] = { "BH_Uptodate", "BH_Dirty", "BH_Mapped", "BH_New",
					  "BH_Delay", "BH_Unwritten", "BH_Async_Write",
					  "BH_JBDDirty" };

	fprintf(out, "{\"index\": %llu, \"flags\": ", (unsigned long long)f->index);
	snap_bits(out, f->flags, pg, 5);
	fputs(", \"buffers\": [", out);
	for (unsigned k = 0; (f->flags & PG_buffers) && k < folio_nr_buffers(m); k++) {
		const struct buffer_head *b = &f->bh[k];

		fprintf(out, "%s{\"state\": ", k ? ", " : "");
		snap_bits(out, b->b_state, bh, 8);
		if ((b->b_state & BH_Mapped) && !(b->b_state & BH_Delay))
			fprintf(out, ", \"blocknr\": %u", b->b_blocknr);
		fputc('}', out);
	}
	fputs("]}", out);
}

static void snap_cache(FILE *out, const struct ext4_fs *fs)
{
	const struct address_space *m = &fs->inode->i_mapping;

	fputc('[', out);
	for (uint32_t i = 0; i < m->a_nr; i++) {
		if (i)
			fputs(", ", out);
		snap_folio(out, m, m->a_folios[i]);
	}
	fputc(']', out);
}

/*
 * What device block @blk is (ext4_block_role_fs), in the JSON's words:
 * "superblock", "bitmap", "inode", "extent", "journal", "data", or the
 * layout's other roles by name ("group descriptors", ...).
 */
static const char *snap_block_what(const struct ext4_fs *fs, uint32_t blk)
{
	static const char *const json[][2] = {
		{ "block bitmap", "bitmap" }, { "inode table", "inode" }, { "extent block", "extent" },
	};
	const char *role = ext4_block_role_fs(fs, blk);

	for (size_t i = 0; i < sizeof(json) / sizeof(json[0]); i++)
		if (!strcmp(role, json[i][0]))
			return json[i][1];
	return role;
}

static void snap_u32_list(FILE *out, const uint32_t *v, uint32_t nr)
{
	fputc('[', out);
	for (uint32_t i = 0; i < nr; i++)
		fprintf(out, "%s%u", i ? ", " : "", v[i]);
	fputc(']', out);
}

static void snap_tx_blocks(FILE *out, const struct ext4_fs *fs, const transaction_t *t)
{
	fputc('[', out);
	for (uint32_t i = 0; i < t->t_nr_buffers; i++) {
		const struct jbd2_buf *b = &t->t_buffers[i];

		fprintf(out, "%s{\"blocknr\": %u, \"what\": \"%s\"", i ? ", " : "", b->jb_blocknr,
			b->jb_lblk >= 0 ? "data" : snap_block_what(fs, b->jb_blocknr));
		if (b->jb_lblk >= 0)
			fprintf(out, ", \"lblk\": %lld", (long long)b->jb_lblk);
		fputc('}', out);
	}
	fputc(']', out);
}

/*
 * A transaction's inode list: "ordered" the entry of the scenario's file
 * (inode 12) or null, as before several files; "ordered_inodes" every
 * entry, in list order, once another inode is on it.
 */
static void snap_ordered(FILE *out, const transaction_t *t)
{
	static const char *const ji[] = { "write", "wait" };
	const struct jbd2_inode *f = jbd2_transaction_inode(t, EXT4_FILE_INO);

	if (f) {
		fputs("{\"flags\": ", out);
		snap_bits(out, f->i_flags, ji, 2);
		fprintf(out, ", \"start\": %lld, \"end\": %lld}", (long long)f->i_dirty_start,
			(long long)f->i_dirty_end);
	} else {
		fputs("null", out);
	}
	if (t->t_nr_inodes == (f != NULL))
		return;
	fputs(", \"ordered_inodes\": [", out);
	for (uint32_t i = 0; i < t->t_nr_inodes; i++) {
		const struct jbd2_inode *e = &t->t_inodes[i];

		fprintf(out, "%s{\"ino\": %u, \"flags\": ", i ? ", " : "", e->i_ino);
		snap_bits(out, e->i_flags, ji, 2);
		fprintf(out, ", \"start\": %lld, \"end\": %lld}", (long long)e->i_dirty_start,
			(long long)e->i_dirty_end);
	}
	fputs("]", out);
}

static void snap_tx(FILE *out, const struct ext4_fs *fs, const transaction_t *t)
{
	static const char *const states[T_STATE_COUNT] = {
		"running", "locked", "switch", "flush", "commit", "commit_dflush", "commit_jflush",
		"commit_callback", "finished"
	};

	if (!t) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"tid\": %u, \"state\": \"%s\", \"updates\": %d, \"blocks\": ", t->t_tid,
		states[t->t_state], t->t_updates);
	snap_tx_blocks(out, fs, t);
	fputs(", \"revoke\": ", out);
	snap_u32_list(out, t->t_revoke, t->t_nr_revoke);
	fputs(", \"freed\": [", out);
	for (uint32_t i = 0; i < t->t_nr_freed; i++)
		fprintf(out, "%s{\"start\": %u, \"len\": %u}", i ? ", " : "", t->t_freed[i].start,
			t->t_freed[i].len);
	fputs("], \"ordered\": ", out);
	snap_ordered(out, t);
	fprintf(out, ", \"synchronous\": %s}", t->t_synchronous_commit ? "true" : "false");
}

static void snap_journal(FILE *out, const struct ext4_fs *fs)
{
	const journal_t *j = &fs->journal;

	fputs("{\"running\": ", out);
	snap_tx(out, fs, j->j_running_transaction);
	fputs(", \"committing\": ", out);
	snap_tx(out, fs, j->j_committing_transaction);
	fputs(", \"logged\": [", out);
	for (uint32_t i = 0; i < j->j_nr_logged; i++)
		fprintf(out, "%s{\"tid\": %u, \"start\": %u, \"length\": %u}", i ? ", " : "",
			j->j_logged[i].lt_tid, j->j_logged[i].lt_start, j->j_logged[i].lt_nr_blocks);
	fputs("], \"checkpoint\": [", out);
	for (uint32_t i = 0; i < j->j_nr_cp; i++)
		fprintf(out, "%s{\"blocknr\": %u, \"tid\": %u, \"what\": \"%s\"}", i ? ", " : "",
			j->j_cp[i].cp_blocknr, j->j_cp[i].cp_tid,
			snap_block_what(fs, j->j_cp[i].cp_blocknr));
	fprintf(out, "], \"blk_offset\": %u, \"first\": %u, \"last\": %u, \"head\": %u, "
		"\"tail\": %u, \"tail_sequence\": %u, \"free\": %u, \"commit_sequence\": %u, "
		"\"next_tid\": %u, \"aborted\": %s}", jbd2_log_block(j, 0), j->j_first, j->j_last,
		j->j_head, j->j_tail, j->j_tail_sequence, j->j_free, j->j_commit_sequence,
		j->j_transaction_sequence, j->j_aborted ? "true" : "false");
}

/* --- the device --- */

/* A block with pending writes: the state of its newest one. */
struct snap_pend {
	uint32_t blk;
	uint64_t seq;
	uint8_t state;          /* enum bio_state */
};

static int snap_pend_cmp(const void *a, const void *b)
{
	const struct snap_pend *x = a, *y = b;

	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The blocks with pending writes, sorted, one entry each (the newest write). */
static struct snap_pend *snap_pending_blocks(const struct blkdev *bd, uint32_t *nr)
{
	struct snap_pend *p = sim_zalloc(((size_t)bd->bd_nr_bios + 1) * sizeof(*p));
	uint32_t n = 0;

	for (uint32_t i = 0; i < bd->bd_nr_bios; i++)
		p[i] = (struct snap_pend){ bd->bd_bios[i].b_blocknr, bd->bd_bios[i].b_seq,
					   bd->bd_bios[i].b_state };
	qsort(p, bd->bd_nr_bios, sizeof(*p), snap_pend_cmp);
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		if (n > 0 && p[n - 1].blk == p[i].blk)
			n--;            /* sorted by seq within a block: the later one wins */
		p[n++] = p[i];
	}
	*nr = n;
	return p;
}

static const char *snap_blk_state(const struct snap_pend *p, uint32_t nr, uint32_t blk)
{
	uint32_t lo = 0, hi = nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p[mid].blk < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nr || p[lo].blk != blk)
		return "durable";
	return p[lo].state == BIO_SUBMITTED ? "in_flight" : "volatile";
}

/* First pending block at or after @blk, or UINT32_MAX. */
static uint32_t snap_next_pending(const struct snap_pend *p, uint32_t nr, uint32_t blk)
{
	for (uint32_t i = 0; i < nr; i++)       /* nr is small: the unflushed writes */
		if (p[i].blk >= blk)
			return p[i].blk;
	return UINT32_MAX;
}

/* The file's mapped blocks as runs of equal device state. */
static void snap_file_blocks(FILE *out, const struct ext4_fs *fs, const struct snap_pend *p,
			     uint32_t nr)
{
	const struct ext4_es_tree *t = &fs->inode->i_es;
	bool any = false;

	fputc('[', out);
	for (uint32_t i = 0; i < t->es_nr; i++) {
		const struct extent_status *e = &t->es[i];

		for (uint32_t k = 0; e->es_state != ES_DELAYED && k < e->es_len;) {
			uint32_t pb = e->es_pblk + k, len = 1;
			const char *st = snap_blk_state(p, nr, pb);

			if (strcmp(st, "durable") == 0)
				len = SIM_MIN(e->es_len - k, snap_next_pending(p, nr, pb) - pb);
			while (k + len < e->es_len &&
			       strcmp(snap_blk_state(p, nr, pb + len), st) == 0 &&
			       strcmp(st, "durable") != 0)
				len++;
			fprintf(out, "%s{\"lblk\": %u, \"len\": %u, \"pblk\": %u, \"state\": \"%s\"}",
				any ? ", " : "", e->es_lblk + k, len, pb, st);
			any = true;
			k += len;
		}
	}
	fputc(']', out);
}

static void snap_device(FILE *out, const struct ext4_fs *fs)
{
	static const char *const kinds[] = { "data", "journal", "commit", "journal_superblock",
					     "metadata" };
	const struct blkdev *bd = fs->bdev;
	uint32_t nr;
	struct snap_pend *p = snap_pending_blocks(bd, &nr);

	fputs("{\"pending\": [", out);
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		const struct bio_rec *b = &bd->bd_bios[i];

		fprintf(out, "%s{\"keep\": %u, \"seq\": %llu, \"blocknr\": %u, \"what\": \"%s\", "
			"\"state\": \"%s\", \"fua\": %s, \"kind\": \"%s\"}", i ? ", " : "", i + 1,
			(unsigned long long)b->b_seq, b->b_blocknr, snap_block_what(fs, b->b_blocknr),
			b->b_state == BIO_SUBMITTED ? "in_flight" : "completed",
			b->b_fua ? "true" : "false", kinds[b->b_kind]);
	}
	fprintf(out, "], \"flushes\": %llu, \"file_blocks\": ", (unsigned long long)bd->bd_flushes);
	snap_file_blocks(out, fs, p, nr);
	fputc('}', out);
	free(p);
}

/* --- the file's bytes --- */

struct snap_runs {
	FILE *out;
	uint32_t nr;            /* runs printed */
	int64_t off, len;       /* the run being built; len 0: none */
	uint8_t byte;
	bool truncated;
};

static void snap_run_flush(struct snap_runs *r)
{
	if (r->len == 0 || r->truncated)
		return;
	if (r->nr == SNAP_BYTE_RUNS_MAX) {
		r->truncated = true;
		return;
	}
	fprintf(r->out, "%s{\"off\": %lld, \"len\": %lld, \"byte\": %u}", r->nr ? ", " : "",
		(long long)r->off, (long long)r->len, r->byte);
	r->nr++;
	r->len = 0;
}

static void snap_run_add(struct snap_runs *r, int64_t off, int64_t len, uint8_t byte)
{
	if (r->len > 0 && r->byte == byte && r->off + r->len == off) {
		r->len += len;
		return;
	}
	snap_run_flush(r);
	r->off = off;
	r->len = len;
	r->byte = byte;
}

/* Bytes [pos, end) of one page, through ext4_peek. */
static void snap_peek_page(const struct ext4_fs *fs, struct snap_runs *r, int64_t pos,
			   int64_t end, uint8_t *buf)
{
	int64_t n = end - pos;

	ext4_peek(fs, pos, n, buf);
	for (int64_t k = 0; k < n && !r->truncated;) {
		int64_t s = k;

		while (k < n && buf[k] == buf[s])
			k++;
		snap_run_add(r, pos + s, k - s, buf[s]);
	}
}

/*
 * Where the next bytes that may not read as zeros start, at or after @pos:
 * a folio, or a written extent (holes, unwritten and delayed blocks
 * without a folio read as zeros).
 */
static int64_t snap_next_data(const struct ext4_fs *fs, int64_t pos)
{
	const struct address_space *m = &fs->inode->i_mapping;
	const struct ext4_es_tree *t = &fs->inode->i_es;
	uint32_t bits = ext4_blkbits(fs), fi = filemap_first_at(m, (uint64_t)pos >> PAGE_SHIFT);
	int64_t next = fi < m->a_nr ? (int64_t)(m->a_folios[fi]->index << PAGE_SHIFT) : INT64_MAX;
	uint32_t lo = 0, hi = t->es_nr;

	while (lo < hi) {       /* the first extent that ends after @pos */
		uint32_t mid = lo + (hi - lo) / 2;

		if ((((int64_t)t->es[mid].es_lblk + t->es[mid].es_len) << bits) <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->es_nr; lo++) {
		if (t->es[lo].es_state != ES_WRITTEN)
			continue;
		next = SIM_MIN(next, SIM_MAX((int64_t)t->es[lo].es_lblk << bits, pos));
		break;
	}
	return SIM_MAX(next, pos);
}

static void snap_bytes(FILE *out, const struct ext4_fs *fs)
{
	struct snap_runs r = { .out = out };
	int64_t size = fs->inode->i_size, pos = 0;
	uint8_t *buf = sim_zalloc(PAGE_SIZE);

	fputs("{\"runs\": [", out);
	while (pos < size && !r.truncated) {
		int64_t next = SIM_MIN(snap_next_data(fs, pos), size);

		if (next > pos) {
			snap_run_add(&r, pos, next - pos, 0);
			pos = next;
			continue;
		}
		next = SIM_MIN((pos | ((int64_t)PAGE_SIZE - 1)) + 1, size);
		snap_peek_page(fs, &r, pos, next, buf);
		pos = next;
	}
	snap_run_flush(&r);
	fprintf(out, "], \"truncated\": %s}", r.truncated ? "true" : "false");
	free(buf);
}

void snap_json(FILE *out, const struct ext4_fs *fs)
{
	int64_t durable = 0;

	fprintf(out, "{\"i_size\": %lld, \"i_disksize\": %lld, \"durable_size\": ",
		(long long)fs->inode->i_size, (long long)fs->inode->i_disksize);
	if (snap_durable_size(fs, &durable))
		fprintf(out, "%lld", (long long)durable);
	else
		fputs("null", out);
	fprintf(out, ", \"orphan\": %s, \"extents\": ", fs->inode->i_orphan ? "true" : "false");
	snap_extents(out, fs);
	fputs(", \"page_cache\": ", out);
	snap_cache(out, fs);
	fputs(", \"journal\": ", out);
	snap_journal(out, fs);
	fputs(", \"device\": ", out);
	snap_device(out, fs);
	fputs(", \"bytes\": ", out);
	snap_bytes(out, fs);
	fputs(", \"counters\": ", out);
	json_counters(out, fs->counters);
	fputc('}', out);
}

char *snap_json_string(const struct ext4_fs *fs)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	SIM_ASSERT(f != NULL);
	snap_json(f, fs);
	SIM_ASSERT(fclose(f) == 0 && s != NULL);
	return s;
}
