/*
 * trace.c - the step trace (see trace.h).  Deterministic text only.
 */
#include "trace.h"

#include <string.h>

#define EXTENTS_SHOWN 16

static void fmt_extents(const struct ext4_fs *fs, char *out, size_t cap)
{
	const struct ext4_es_tree *t = &fs->inode->i_es;
	size_t used = 0;

	out[0] = '\0';
	if (t->es_nr == 0) {
		snprintf(out, cap, "none");
		return;
	}
	for (uint32_t i = 0; i < t->es_nr && i < EXTENTS_SHOWN && used < cap; i++) {
		const struct extent_status *e = &t->es[i];
		char range[48];

		if (e->es_len == 1)
			snprintf(range, sizeof(range), "%u", e->es_lblk);
		else
			snprintf(range, sizeof(range), "%u-%u", e->es_lblk, e->es_lblk + e->es_len - 1);
		if (e->es_state == ES_DELAYED)
			used += (size_t)snprintf(out + used, cap - used, "%s%s delayed",
						 i ? ", " : "", range);
		else
			used += (size_t)snprintf(out + used, cap - used, "%s%s %s@%u", i ? ", " : "",
						 range, es_state_name(e->es_state), e->es_pblk);
	}
	if (t->es_nr > EXTENTS_SHOWN && used < cap)
		snprintf(out + used, cap - used, ", ... (%u extents)", t->es_nr);
}

void trace_image_line(FILE *out, const char *path, const struct ext4_fs *fs)
{
	const struct ext4_es_tree *t = &fs->inode->i_es;

	fprintf(out, "  image %s: i_size %lld, extents %s", path, (long long)fs->inode->i_size,
		t->es_nr ? "" : "none");
	for (uint32_t i = 0; i < t->es_nr; i++) {      /* all of them: debugfs lists all */
		const struct extent_status *e = &t->es[i];

		fprintf(out, "%s%u", i ? ", " : "", e->es_lblk);
		if (e->es_len > 1)
			fprintf(out, "-%u", e->es_lblk + e->es_len - 1);
		fprintf(out, " %s@%u", es_state_name(e->es_state), e->es_pblk);
	}
	for (uint32_t i = 0; i < fs->inode->i_ext_nr_leaves; i++)
		fprintf(out, "%s%u", i ? ", " : "; extent blocks ", fs->inode->i_ext_leaves[i].el_pblk);
	fputc('\n', out);
}

static void fmt_cache(const struct ext4_fs *fs, char *out, size_t cap)
{
	const struct address_space *m = &fs->inode->i_mapping;
	unsigned dirty = 0, wb = 0, delay = 0, jbd = 0;

	for (uint32_t i = 0; i < m->a_nr; i++) {
		const struct folio *f = m->a_folios[i];

		dirty += (f->flags & PG_dirty) != 0;
		wb += (f->flags & PG_writeback) != 0;
		for (unsigned k = 0; (f->flags & PG_buffers) && k < folio_nr_buffers(m); k++) {
			delay += (f->bh[k].b_state & BH_Delay) != 0;
			jbd += (f->bh[k].b_state & BH_JBDDirty) != 0;
		}
	}
	snprintf(out, cap, "%u folio(s): %u dirty, %u under writeback, %u delayed buffer(s)%s",
		 m->a_nr, dirty, wb, delay, jbd ? ", journaled data" : "");
}

#define JOURNAL_BLOCKS_NAMED 6

/* ": block bitmap 1, inode table 2, data block 0 of the file 1043": what @t carries. */
static void fmt_tx_blocks(const struct ext4_fs *fs, const transaction_t *t, char *out,
			  size_t cap)
{
	size_t used = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < t->t_nr_buffers && used < cap; i++) {
		const struct jbd2_buf *b = &t->t_buffers[i];

		if (i == JOURNAL_BLOCKS_NAMED) {
			snprintf(out + used, cap - used, ", ...");
			return;
		}
		if (b->jb_lblk >= 0)
			used += (size_t)snprintf(out + used, cap - used, "%sdata block %lld of the "
						 "file %u", i ? ", " : ": ", (long long)b->jb_lblk,
						 b->jb_blocknr);
		else
			used += (size_t)snprintf(out + used, cap - used, "%s%s %u", i ? ", " : ": ",
						 ext4_block_role(&fs->lay, b->jb_blocknr),
						 b->jb_blocknr);
	}
}

static void fmt_journal(const struct ext4_fs *fs, char *out, size_t cap)
{
	const journal_t *j = &fs->journal;
	const transaction_t *t = j->j_running_transaction;
	char blocks[TRACE_LINE_MAX / 2];

	if (t) {
		fmt_tx_blocks(fs, t, blocks, sizeof(blocks));
		snprintf(out, cap, "running tid %u (%u block(s)%s%s), committed up to %u, "
			 "%u in the log", t->t_tid, t->t_nr_buffers, blocks,
			 t->t_nr_inodes ? "; ordered data" : "", j->j_commit_sequence, j->j_nr_logged);
		return;
	}
	snprintf(out, cap, "no running transaction, committed up to %u, %u in the log",
		 j->j_commit_sequence, j->j_nr_logged);
}

void trace_capture(const struct ext4_fs *fs, struct trace_state *ts)
{
	snprintf(ts->sizes, sizeof(ts->sizes), "i_size %lld, i_disksize %lld%s",
		 (long long)fs->inode->i_size, (long long)fs->inode->i_disksize,
		 fs->inode->i_orphan ? ", orphan" : "");
	fmt_extents(fs, ts->extents, sizeof(ts->extents));
	fmt_cache(fs, ts->cache, sizeof(ts->cache));
	fmt_journal(fs, ts->journal, sizeof(ts->journal));
}

void trace_print_changes(FILE *out, const struct trace_state *before,
			 const struct trace_state *now, unsigned always)
{
	if ((always & TRACE_SIZES) || strcmp(before->sizes, now->sizes))
		fprintf(out, "      size:    %s\n", now->sizes);
	if ((always & TRACE_EXTENTS) || strcmp(before->extents, now->extents))
		fprintf(out, "      extents: %s\n", now->extents);
	if ((always & TRACE_CACHE) || strcmp(before->cache, now->cache))
		fprintf(out, "      cache:   %s\n", now->cache);
	if ((always & TRACE_JOURNAL) || strcmp(before->journal, now->journal))
		fprintf(out, "      journal: %s\n", now->journal);
}

void trace_hexdump(FILE *out, int64_t off, const uint8_t *buf, int64_t len)
{
	for (int64_t i = 0; i < len; i += 16) {
		fprintf(out, "      %08llx: ", (unsigned long long)(off + i));
		for (int64_t k = i; k < i + 16; k++) {
			if (k < len)
				fprintf(out, "%02x ", buf[k]);
			else
				fprintf(out, "   ");
		}
		fputc(' ', out);
		for (int64_t k = i; k < i + 16 && k < len; k++)
			fputc(buf[k] >= 0x20 && buf[k] < 0x7f ? buf[k] : '.', out);
		fputc('\n', out);
	}
}
