/*
 * checker.c - the invariants of docs/invariants.md (see checker.h).  One function per
 * invariant or group, each named after what it checks.
 */
#include "checker.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "blkdev.h"
#include "log.h"

/* Bytes of a folio no path filled read as stale, like device garbage. */
_Static_assert(FOLIO_FRESH_FILL == BLKDEV_SENTINEL, "a fresh folio holds the sentinel");

static const struct chk_inv_info inv_table[INV_COUNT] = {
	[INV_DISKSIZE_LE_SIZE] = { "disksize_le_size", false, "after every step",
		"i_disksize <= i_size",
		"the size recorded for the disk (i_disksize) ran ahead of the file's size "
		"(i_size): a crash could leave bytes past the end of the file visible" },
	[INV_DISKSIZE_PENDING] = { "disksize_pending", false, "after every step",
		"if i_disksize < i_size, a delayed, dirty unwritten or in-flight block lies in "
		"(i_disksize, i_size]",
		"i_disksize lags behind i_size with no delayed or in-flight block that would ever"
		" raise it: the tail of the file is lost at the next crash" },
	[INV_GAP_ZERO_ON_EXTEND] = { "gap_zero_on_extend", false, "at every size extension",
		"every byte in [old_size, new_size) that the extending step does not write reads zero",
		"when the file grew, the gap between its old end and the new data did not read as"
		" zeros: old bytes from past the end of file leaked into it" },
	[INV_NO_STALE_DATA] = { "no_stale_data", false, "reads, and after crash + recovery",
		"no byte in [0, size) comes from a block's previous owner (the sentinel)",
		"stale data: the file shows bytes that a block held before it was given to this "
		"file (another file's old data)" },
	[INV_ALLOC_CONSISTENT] = { "alloc_consistent", false, "after every step and recovery",
		"no block owned twice; bitmap matches the extent map; no written extent past "
		"the EOF block unless the inode is an orphan",
		"the block allocator and the file's block map disagree (a block owned twice, or a"
		" bitmap bit that is wrong)" },
	[INV_READ_POSIX] = { "read_posix", false, "after every step",
		"a read returns what a POSIX reference built from the steps holds",
		"a read returned bytes that differ from what the steps wrote there" },
	[INV_FSYNC_DURABLE] = { "fsync_durable", false, "after crash + recovery",
		"size and data made durable by fsync/fdatasync/sync survive, unless a later step "
		"changed them",
		"data or a size that an fsync, fdatasync or sync had made durable was lost in the"
		" crash" },
	[INV_GAP_ZERO_DURABLE] = { "gap_zero_durable", false, "after crash + recovery",
		"if an extension from an unaligned size is durable, that gap reads zero on disk",
		"after the crash, the gap past the file's old end holds non-zero bytes on disk" },
	[INV_JOURNAL_PREFIX] = { "journal_prefix", false, "after recovery",
		"metadata equals the durable state plus the committed transactions",
		"recovery did not rebuild the metadata as the durable state plus the committed "
		"transactions, in order" },
	[INV_POST_EOF_ZERO_STRICT] = { "post_eof_zero_strict", true, "after crash + recovery",
		"the on-disk tail of the EOF block is zero (not promised by ext4)",
		"after the crash, the part of the last block past the end of file is not zero on "
		"disk (ext4 does not promise that it is)" },
	[INV_NO_FOLIO_LOCK_UNDER_HANDLE] = { "no_folio_lock_under_handle", true,
		"on every folio lock", "no folio lock is taken while a jbd2 handle is open",
		"a page-cache folio was locked while a jbd2 handle was open, the lock order iomap"
		" needs is the other way round" },
	[INV_PREALLOC_DURABLE] = { "prealloc_durable", false, "after crash + recovery",
		"every block fallocate allocated (mode 0, KEEP_SIZE, zero range) before the last "
		"fsync, fdatasync or sync is mapped after the crash, unless a later step may "
		"have freed it",
		"blocks that fallocate had preallocated, and that an fsync or fdatasync had made "
		"durable, were gone after the crash (the file's block count shrank)" },
	[INV_REPLACE_VIA_TRUNCATE] = { "replace_via_truncate", true,
		"after crash + recovery (informational)",
		"a file truncated to 0, rewritten and closed, with a journal commit since the "
		"close, is not shorter than at the close and its rewritten data is in written "
		"blocks (the auto_da_alloc heuristic; not a POSIX promise)",
		"the file was replaced by truncating it and writing it again; after the close "
		"and a journal commit the crash still left it empty or reading zeros, what "
		"auto_da_alloc is there to prevent" },
	[INV_NS_LINK_COUNT] = { "ns_link_count", false, "after crash + recovery",
		"every inode's link count equals the names that point at it (a directory: 2 + "
		"its subdirectories; 1 past EXT4_LINK_MAX, dir_nlink)",
		"after the crash an inode's link count is not the number of names it has: "
		"unlinking one of them may free it while another name still points at it, or "
		"it may never be freed" },
	[INV_NS_NO_ORPHAN] = { "ns_no_orphan", false, "after crash + recovery",
		"no inode is in use that no name reaches, and the orphan list is empty, once "
		"the mount's orphan cleanup ran",
		"after the crash an inode is still in use though no name reaches it (or is "
		"still on the orphan list): its blocks leaked" },
	[INV_NS_FILE_FSYNC] = { "ns_file_fsync", false, "after crash + recovery",
		"a file fsynced or fdatasynced (or present at a sync) and not changed since "
		"holds that size and those bytes (after an fsync or a sync, those extended "
		"attributes too, unless set or removed since) under every name that reached it "
		"then and that no later operation changed",
		"a file that an fsync, fdatasync or sync had made durable came back after the "
		"crash with another size, other bytes or other extended attributes under one of "
		"its names" },
	[INV_NS_DIR_FSYNC] = { "ns_dir_fsync", false, "after crash + recovery",
		"a directory fsynced holds exactly the entries it had then (each naming the "
		"same inode), but for the names a later operation changed",
		"a directory that an fsync had made durable came back after the crash with an "
		"entry missing, added or pointing elsewhere" },
	[INV_NS_RENAME_ATOMIC] = { "ns_rename_atomic", false, "after crash + recovery",
		"after rename(OLD, NEW), with both names durable before it and unchanged since: "
		"NEW names the moved inode or the one it replaced (or nothing, if it named "
		"nothing and OLD still names the moved inode), never neither, and OLD and NEW "
		"never both name the moved inode; an exchange leaves both swapped or neither",
		"a rename was not atomic across the crash: the new name lost both the old and "
		"the new file, or both names ended up naming the same file" },
	[INV_NS_NEW_FILE_FSYNC] = { "ns_new_file_fsync", false, "after crash + recovery",
		"ext4 (the journal): fsync or fdatasync of a file created since the last commit "
		"also makes its names then durable (each name's directory entry), unless a "
		"later operation changed the name",
		"a file created and fsynced could not be found again after the crash: on ext4 "
		"its fsync commits the transaction holding its directory entry" },
	[INV_NS_OP_ORDER] = { "ns_op_order", false, "after crash + recovery",
		"ext4: the recovered namespace (names, types, which share an inode, link "
		"counts; not sizes or bytes) equals the namespace after some operation N_k, k "
		"at least the last sync's",
		"the namespace after the crash is not the one after any single operation: "
		"metadata operations did not become durable in the order they were made" },
	[INV_REPLACE_VIA_RENAME] = { "replace_via_rename", true,
		"after crash + recovery (informational)",
		"a file written and renamed over an existing file holds, under the new name, "
		"its bytes and size at the rename once a commit after the rename is durable "
		"(auto_da_alloc; not a POSIX promise)",
		"the file was replaced by writing a new one and renaming it over the old; after "
		"a journal commit the crash still left the name with the old file or the new "
		"one empty or reading zeros, what auto_da_alloc is there to prevent" },
	[INV_DIO_SYNC_DURABLE] = { "dio_sync_durable", false, "after crash + recovery",
		"a direct write made with O_SYNC, O_DSYNC or RWF_DSYNC that returned keeps its "
		"bytes and a size reaching its end, unless a later step changed them",
		"a direct write that was synchronous (O_SYNC or RWF_DSYNC) returned, so it was "
		"promised to be on disk, but after the crash its data or the file size that "
		"holds it was gone" },
};

/*
 * The cases an invariant tells apart, each with its words: a violation's
 * message is printed with its case's marker (the same macro), so the words
 * follow the message wherever it is copied (a crash state's example).
 */
#define AC_TWICE "owned twice"
#define AC_FREE "is in the extent map but free in the bitmap"
#define AC_COUNT "data blocks used, the extent map owns"
#define AC_PAST_EOF "past the EOF block of i_disksize"

static const struct chk_case {
	enum chk_inv inv;
	const char *marker;
	const char *plain;
} inv_cases[] = {
	{ INV_ALLOC_CONSISTENT, AC_TWICE, "two extents of the file's block map own the same "
	  "disk block: a write to one overwrites the other" },
	{ INV_ALLOC_CONSISTENT, AC_FREE, "a block the file's extent map owns is free in the "
	  "block bitmap (or allocatable): the allocator may give it out again" },
	{ INV_ALLOC_CONSISTENT, AC_COUNT, "the block bitmap marks more or fewer data blocks "
	  "used than the file's extent map owns: a block leaked or a bitmap bit is lost" },
	{ INV_ALLOC_CONSISTENT, AC_PAST_EOF, "a written block lies past the EOF block of "
	  "i_disksize while the inode is not on the orphan list: a crash now leaves an inode "
	  "whose extents own a block its size does not cover, and nothing frees it" },
};

const char *chk_what_happened(enum chk_inv inv, const char *msg)
{
	SIM_ASSERT((unsigned)inv < INV_COUNT);
	for (size_t i = 0; msg && i < sizeof(inv_cases) / sizeof(inv_cases[0]); i++)
		if (inv_cases[i].inv == inv && strstr(msg, inv_cases[i].marker))
			return inv_cases[i].plain;
	return inv_table[inv].plain;
}

const struct chk_inv_info *chk_inv_info(enum chk_inv inv)
{
	SIM_ASSERT((unsigned)inv < INV_COUNT);
	return &inv_table[inv];
}

int chk_inv_lookup(const char *name)
{
	for (int i = 0; i < INV_COUNT; i++)
		if (strcmp(inv_table[i].name, name) == 0)
			return i;
	return -1;
}

bool chk_is_invariant_name(const char *name)
{
	return chk_inv_lookup(name) >= 0;
}

void chk_init(struct chk_state *c, uint32_t block_size)
{
	memset(c, 0, sizeof(*c));
	c->block_size = block_size;
	runs_init(&c->posix);
	runs_init(&c->durable);
	runs_init(&c->falloc);
	runs_init(&c->falloc_durable);
	runs_init(&c->rt_data);
	runs_init(&c->dsync);
	c->log_mode = CHK_LOG_SUMMARY;
	c->dps = sim_realloc_array(NULL, 16, sizeof(*c->dps));
	c->cap_dps = 16;
	c->dps[c->nr_dps++] = (struct chk_durable_point){ 0, 0 };       /* the empty file */
}

void chk_set_log_mode(struct chk_state *c, enum chk_log_mode mode)
{
	SIM_ASSERT(c->nr_muts == 0 && c->all_muts == 0);
	c->log_mode = (uint8_t)mode;
}

uint32_t chk_log_entries(const struct chk_state *c)
{
	return c->nr_muts + c->all_muts + c->nr_dps;
}

static void *dup_array(const void *src, uint32_t nr, uint32_t cap, size_t size)
{
	void *p = sim_realloc_array(NULL, cap ? cap : 1, size);

	if (nr)
		memcpy(p, src, nr * size);
	return p;
}

void chk_copy(struct chk_state *dst, const struct chk_state *src)
{
	*dst = *src;
	runs_copy(&dst->posix, &src->posix);
	runs_copy(&dst->durable, &src->durable);
	runs_copy(&dst->falloc, &src->falloc);
	runs_copy(&dst->falloc_durable, &src->falloc_durable);
	runs_copy(&dst->rt_data, &src->rt_data);
	runs_copy(&dst->dsync, &src->dsync);
	dst->muts = dup_array(src->muts, src->nr_muts, src->cap_muts, sizeof(*src->muts));
	dst->dps = dup_array(src->dps, src->nr_dps, src->cap_dps, sizeof(*src->dps));
	dst->crash_muts = dup_array(src->crash_muts, src->all_muts, src->cap_crash_muts,
				    sizeof(*src->crash_muts));
	dst->v = dup_array(src->v, src->nr_v, src->cap_v, sizeof(*src->v));
}

void chk_destroy(struct chk_state *c)
{
	runs_destroy(&c->posix);
	runs_destroy(&c->durable);
	runs_destroy(&c->falloc);
	runs_destroy(&c->falloc_durable);
	runs_destroy(&c->rt_data);
	runs_destroy(&c->dsync);
	free(c->muts);
	free(c->dps);
	free(c->crash_muts);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

void chk_report(struct chk_state *c, enum chk_inv inv, uint32_t step, const char *fmt, ...)
{
	struct chk_violation *v;
	va_list ap;

	if (c->nr_v == c->cap_v) {
		c->cap_v = c->cap_v ? 2 * c->cap_v : 16;
		c->v = sim_realloc_array(c->v, c->cap_v, sizeof(*c->v));
	}
	v = &c->v[c->nr_v++];
	v->inv = inv;
	v->step = step;
	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
	va_end(ap);
}

static void note_mut(struct chk_state *c, struct chk_mut m)
{
	chk_log_push(c, m);
}

/* The step grew the file from @old_size: remember it for gap_zero_on_extend. */
static void note_extension(struct chk_state *c, int64_t old_size, int64_t new_size)
{
	if (new_size <= old_size)
		return;
	if (!c->step_extended) {
		c->step_extended = true;
		c->step_old_size = old_size;
	}
	c->step_new_size = new_size;
}

void chk_step_begin(struct chk_state *c, const struct ext4_fs *fs)
{
	if (c->c_mute || c->c_detached)
		return;
	memcpy(c->locks_before, fs->counters->folio_lock_under_handle, sizeof(c->locks_before));
	c->disksize_over_before = fs->counters->disksize_over_size;
	c->step_extended = false;
	c->step_wr_off = 0;
	c->step_wr_len = 0;
}

void chk_note_write(struct chk_state *c, int64_t off, int64_t len, uint8_t byte)
{
	if (c->c_mute || c->c_detached)
		return;
	int64_t old = c->posix.size;

	if (len <= 0)
		return;
	if (byte == BLKDEV_SENTINEL)
		c->sentinel_written = true;
	runs_fill(&c->posix, off, len, byte);
	if (c->dsync.nr)
		runs_fill(&c->dsync, off, len, 0);      /* changed since: no longer promised */
	note_mut(c, (struct chk_mut){ .kind = MUT_FILL, .byte = byte, .off = off, .len = len });
	note_extension(c, old, c->posix.size);
	if (c->rt_state >= RT_CLOSED)
		c->rt_state = RT_NONE;          /* changed after the close: not judged */
	else if (byte && c->rt_state != RT_NONE)
		c->rt_state = RT_REWRITTEN;
	if (c->step_wr_len == 0)
		c->step_wr_off = off;
	c->step_wr_len = off + len - c->step_wr_off;
}

/* The block holding @off, and the first block at or past @off, as byte offsets. */
static int64_t blk_down(const struct chk_state *c, int64_t off)
{
	return off & ~(int64_t)(c->block_size - 1);
}

static int64_t blk_up(const struct chk_state *c, int64_t off)
{
	return blk_down(c, off + c->block_size - 1);
}

void chk_note_free_from(struct chk_state *c, int64_t off)
{
	if (c->c_mute || c->c_detached)
		return;
	int64_t from = blk_down(c, SIM_MAX(off, (int64_t)0));

	runs_truncate(&c->falloc, from);
	runs_truncate(&c->falloc_durable, from);
}

/* dio_sync_durable's promises end at @off: the bytes past it, and the size past it. */
static void dsync_cut(struct chk_state *c, int64_t off)
{
	if (c->dsync.nr)
		runs_truncate(&c->dsync, SIM_MIN(off, c->dsync.size));
	c->dsync_size = SIM_MIN(c->dsync_size, off);
}

void chk_note_dsync(struct chk_state *c, int64_t off, int64_t len, uint8_t byte)
{
	(void)byte;                     /* posix holds it: the promise is "as written" */
	if (c->c_mute || c->c_detached || len <= 0)
		return;
	runs_fill(&c->dsync, off, len, 1);
	c->dsync_size = SIM_MAX(c->dsync_size, off + len);
}

void chk_note_write_submitted(struct chk_state *c, int64_t off, int64_t len, uint8_t byte)
{
	if (c->c_mute || c->c_detached || len <= 0)
		return;
	SIM_ASSERT(off + len <= c->posix.size);         /* an AIO never extends */
	if (byte == BLKDEV_SENTINEL)
		c->sentinel_written = true;
	if (c->dsync.nr)
		runs_fill(&c->dsync, off, len, 0);
	note_mut(c, (struct chk_mut){ .kind = MUT_FILL, .byte = byte, .off = off, .len = len });
}

void chk_note_falloc(struct chk_state *c, int64_t off, int64_t len)
{
	if (c->c_mute || c->c_detached)
		return;
	if (len > 0)
		runs_fill(&c->falloc, blk_down(c, off), blk_up(c, off + len) - blk_down(c, off), 1);
}

void chk_note_punch(struct chk_state *c, int64_t off, int64_t len)
{
	if (c->c_mute || c->c_detached)
		return;
	int64_t s = blk_down(c, off), e = blk_up(c, off + len);

	chk_note_zero(c, off, len, false);
	if (len <= 0)
		return;
	runs_fill(&c->falloc, s, e - s, 0);
	runs_fill(&c->falloc_durable, s, e - s, 0);
}

void chk_note_close(struct chk_state *c, const struct ext4_fs *fs)
{
	if (c->c_mute || c->c_detached)
		return;
	if (c->rt_state != RT_REWRITTEN)
		return;
	c->rt_state = RT_CLOSED;
	c->rt_close_seq = fs->journal.j_commit_sequence;
	runs_destroy(&c->rt_data);
	runs_copy(&c->rt_data, &c->posix);
}

void chk_note_truncate(struct chk_state *c, int64_t size)
{
	if (c->c_mute || c->c_detached)
		return;
	int64_t old = c->posix.size;

	chk_note_free_from(c, SIM_MIN(old, size));     /* ext4_truncate: every block past EOF */
	dsync_cut(c, size);
	c->rt_state = size == 0 ? RT_TRUNCATED : RT_NONE;
	runs_truncate(&c->posix, size);
	note_mut(c, (struct chk_mut){ .kind = MUT_TRUNC, .off = size });
	note_extension(c, old, size);
}

void chk_note_extend(struct chk_state *c, int64_t size)
{
	if (c->c_mute || c->c_detached)
		return;
	if (size > c->posix.size)
		chk_note_truncate(c, size);
}

void chk_note_zero(struct chk_state *c, int64_t off, int64_t len, bool extend)
{
	if (c->c_mute || c->c_detached)
		return;
	if (!extend)
		len = SIM_MIN(len, c->posix.size - off);
	chk_note_write(c, off, len, 0);
}

void chk_note_collapse(struct chk_state *c, int64_t off, int64_t len)
{
	if (c->c_mute || c->c_detached)
		return;
	chk_note_free_from(c, off);     /* the blocks from @off on move: not followed */
	dsync_cut(c, off);
	c->rt_state = RT_NONE;
	runs_collapse(&c->posix, off, len);
	note_mut(c, (struct chk_mut){ .kind = MUT_COLLAPSE, .off = off, .len = len });
}

void chk_note_insert(struct chk_state *c, int64_t off, int64_t len)
{
	if (c->c_mute || c->c_detached)
		return;
	chk_note_free_from(c, off);
	dsync_cut(c, off);
	c->rt_state = RT_NONE;
	runs_insert(&c->posix, off, len);
	note_mut(c, (struct chk_mut){ .kind = MUT_INSERT, .off = off, .len = len });
}

void chk_note_durable(struct chk_state *c)
{
	if (c->c_mute || c->c_detached)
		return;
	runs_destroy(&c->durable);
	runs_copy(&c->durable, &c->posix);
	runs_destroy(&c->falloc_durable);
	runs_copy(&c->falloc_durable, &c->falloc);
	c->rt_state = RT_NONE;          /* the durable bytes are fsync_durable's now */
	chk_log_durable(c);
}

/* --- byte ranges worth comparing: everything else is zero on both sides --- */

struct ivls {
	int64_t (*iv)[2];
	uint32_t nr;
	uint32_t cap;
};

static void ivl_add(struct ivls *l, int64_t s, int64_t e, int64_t limit)
{
	e = SIM_MIN(e, limit);
	if (s >= e)
		return;
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->iv = sim_realloc_array(l->iv, l->cap, sizeof(*l->iv));
	}
	l->iv[l->nr][0] = s;
	l->iv[l->nr][1] = e;
	l->nr++;
}

static int ivl_cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static void ivl_merge(struct ivls *l)
{
	uint32_t k = 0;

	if (l->nr == 0)
		return;
	qsort(l->iv, l->nr, sizeof(*l->iv), ivl_cmp);
	for (uint32_t i = 1; i < l->nr; i++) {
		if (l->iv[i][0] <= l->iv[k][1]) {
			l->iv[k][1] = SIM_MAX(l->iv[k][1], l->iv[i][1]);
			continue;
		}
		k++;
		l->iv[k][0] = l->iv[i][0];
		l->iv[k][1] = l->iv[i][1];
	}
	l->nr = k + 1;
}

static void ivl_add_runs(struct ivls *l, const struct runs *rs, int64_t limit)
{
	for (uint32_t i = 0; i < rs->nr; i++)
		ivl_add(l, rs->r[i].r_off, rs->r[i].r_off + rs->r[i].r_len, limit);
}

/* Folios and on-disk extents of the model: where it can hold non-zero bytes. */
static void ivl_add_model(struct ivls *l, const struct ext4_fs *fs, int64_t limit)
{
	const struct address_space *m = &fs->inode->i_mapping;
	const struct ext4_es_tree *t = &fs->inode->i_es;
	uint32_t bits = ext4_blkbits(fs);

	for (uint32_t i = 0; i < m->a_nr; i++) {
		int64_t s = (int64_t)m->a_folios[i]->index << PAGE_SHIFT;

		ivl_add(l, s, s + PAGE_SIZE, limit);
	}
	for (uint32_t i = 0; i < t->es_nr; i++)
		if (t->es[i].es_state == ES_WRITTEN)
			ivl_add(l, (int64_t)t->es[i].es_lblk << bits,
				((int64_t)t->es[i].es_lblk + t->es[i].es_len) << bits, limit);
}

/* A range of bad bytes of one kind, for one report. */
struct bad_range {
	int64_t first;
	int64_t last;
	uint64_t count;
	uint8_t got;
	uint8_t want;
};

static void bad_add(struct bad_range *b, int64_t off, uint8_t got, uint8_t want)
{
	if (b->count++ == 0) {
		b->first = off;
		b->got = got;
		b->want = want;
	}
	b->last = off;
}

#define CHUNK_BYTES 65536

/*
 * The buffer a chunked scan of @l needs: its longest interval, at most
 * CHUNK_BYTES (small files are the rule: zeroing 64 KiB per scan would
 * dominate a crash state's cost).
 */
static size_t ivl_chunk(const struct ivls *l)
{
	int64_t n = 1;

	for (uint32_t i = 0; i < l->nr; i++)
		n = SIM_MAX(n, l->iv[i][1] - l->iv[i][0]);
	SIM_ASSERT(n > 0);
	return (size_t)SIM_MIN(n, (int64_t)CHUNK_BYTES);
}

/* --- in memory --- */

static bool in_step_gap(const struct chk_state *c, int64_t off)
{
	if (!c->step_extended || off < c->step_old_size || off >= c->step_new_size)
		return false;
	return !(off >= c->step_wr_off && off < c->step_wr_off + c->step_wr_len);
}

/* Classify one byte that differs from the POSIX reference. */
static void classify_mismatch(const struct chk_state *c, struct bad_range bad[3], int64_t off,
			      uint8_t got, uint8_t want)
{
	if (in_step_gap(c, off))
		bad_add(&bad[0], off, got, want);
	else if (got == BLKDEV_SENTINEL && !c->sentinel_written)
		bad_add(&bad[1], off, got, want);
	else
		bad_add(&bad[2], off, got, want);
}

static void report_bad(struct chk_state *c, enum chk_inv inv, uint32_t step,
		       const struct bad_range *b, const char *what)
{
	if (b->count == 0)
		return;
	chk_report(c, inv, step, "%s: %llu byte(s) in [%lld, %lld], first at %lld reads 0x%02x, "
		   "expected 0x%02x", what, (unsigned long long)b->count, (long long)b->first,
		   (long long)b->last, (long long)b->first, b->got, b->want);
}

/* read_posix, gap_zero_on_extend, no_stale_data: the page cache view. */
static void check_reads(struct chk_state *c, const struct ext4_fs *fs, uint32_t step)
{
	int64_t limit = SIM_MIN(fs->inode->i_size, c->posix.size);
	struct bad_range bad[3] = { { 0 } };
	struct ivls l = { 0 };
	uint8_t *got, *want;

	if (fs->inode->i_size != c->posix.size)
		chk_report(c, INV_READ_POSIX, step, "i_size is %lld, the reference says %lld",
			   (long long)fs->inode->i_size, (long long)c->posix.size);
	ivl_add_runs(&l, &c->posix, limit);
	ivl_add_model(&l, fs, limit);
	ivl_merge(&l);
	got = sim_realloc_array(NULL, ivl_chunk(&l), 1);     /* each read fills what it compares */
	want = sim_realloc_array(NULL, ivl_chunk(&l), 1);
	for (uint32_t i = 0; i < l.nr; i++) {
		for (int64_t p = l.iv[i][0]; p < l.iv[i][1]; p += CHUNK_BYTES) {
			int64_t n = SIM_MIN((int64_t)CHUNK_BYTES, l.iv[i][1] - p);

			ext4_peek(fs, p, n, got);
			runs_read(&c->posix, p, n, want);
			if (memcmp(got, want, (size_t)n) == 0)
				continue;
			for (int64_t k = 0; k < n; k++)
				if (got[k] != want[k])
					classify_mismatch(c, bad, p + k, got[k], want[k]);
		}
	}
	report_bad(c, INV_GAP_ZERO_ON_EXTEND, step, &bad[0], "gap past the old size not zero");
	report_bad(c, INV_NO_STALE_DATA, step, &bad[1], "read returns stale device bytes");
	report_bad(c, INV_READ_POSIX, step, &bad[2], "read differs from the reference");
	free(l.iv);
	free(got);
	free(want);
}

/*
 * Is a folio over blocks [lblk, lblk+len) dirty?  Writeback maps dirty
 * data over unwritten blocks (converting them at I/O end) and raises
 * i_disksize as it does for delayed blocks.
 */
static bool unwritten_dirty(const struct ext4_fs *fs, uint64_t lblk, uint32_t len)
{
	const struct address_space *m = &fs->inode->i_mapping;
	uint32_t bits = ext4_blkbits(fs);
	uint64_t first = (lblk << bits) >> PAGE_SHIFT, last = ((lblk + len) << bits) - 1;

	last >>= PAGE_SHIFT;
	for (uint32_t i = 0; i < m->a_nr; i++)
		if (m->a_folios[i]->index >= first && m->a_folios[i]->index <= last &&
		    (m->a_folios[i]->flags & PG_dirty))
			return true;
	return false;
}

static void check_disksize(struct chk_state *c, const struct ext4_fs *fs, uint32_t step)
{
	const struct ext4_inode_info *ei = fs->inode;
	uint32_t bits = ext4_blkbits(fs);
	bool pending = false;

	if (ei->i_disksize > ei->i_size)
		chk_report(c, INV_DISKSIZE_LE_SIZE, step, "i_disksize %lld > i_size %lld",
			   (long long)ei->i_disksize, (long long)ei->i_size);
	else if (fs->counters->disksize_over_size > c->disksize_over_before)
		chk_report(c, INV_DISKSIZE_LE_SIZE, step, "i_disksize exceeded i_size when a "
			   "handle stopped inside the step (%llu time(s))",
			   (unsigned long long)(fs->counters->disksize_over_size -
						c->disksize_over_before));
	if (ei->i_disksize >= ei->i_size)
		return;
	for (uint64_t b = (uint64_t)ei->i_disksize >> bits;
	     !pending && b <= (uint64_t)(ei->i_size - 1) >> bits;) {
		uint32_t pblk, len;
		enum es_state st = es_lookup(&ei->i_es, (uint32_t)b, &pblk, &len);

		pending = st == ES_DELAYED ||
			  (st == ES_UNWRITTEN && unwritten_dirty(fs, b, len ? len : 1));
		b += len ? len : 1;
	}
	if (!pending && !ext4_io_range_busy(fs, ei->i_disksize, ei->i_size - 1))
		chk_report(c, INV_DISKSIZE_PENDING, step, "i_disksize %lld < i_size %lld with no "
			   "delayed, dirty unwritten or in-flight block in between",
			   (long long)ei->i_disksize, (long long)ei->i_size);
}

static int pblk_cmp(const void *a, const void *b)
{
	const struct extent_status *x = a, *y = b;

	return x->es_pblk < y->es_pblk ? -1 : x->es_pblk > y->es_pblk;
}

/* Does an in-core inode before the @k-th name the @k-th's xattr block (a shared block)? */
static bool acl_listed(const struct ext4_fs *fs, uint32_t k)
{
	for (uint32_t i = 0; i < k; i++)
		if (fs->s_inodes[i]->i_file_acl == fs->s_inodes[k]->i_file_acl)
			return true;
	return false;
}

/* No block owned twice; owned blocks marked used; no used block unowned. */
/*
 * The written and unwritten extents of every in-core inode (*@n of them, a
 * new array), but the directories mke2fs made: their blocks are the
 * layout's (ROLE_ROOT_DIR, ROLE_LOST_FOUND), counted with its metadata;
 * and each xattr block an in-core inode names (i_file_acl), once.
 */
static struct extent_status *owned_extents(const struct ext4_fs *fs, uint32_t *n)
{
	uint32_t cap = 1;
	struct extent_status *ex;

	for (uint32_t k = 0; k < fs->s_nr_inodes; k++)
		cap += fs->s_inodes[k]->i_es.es_nr + 1;
	ex = sim_zalloc(cap * sizeof(*ex));
	*n = 0;
	for (uint32_t k = 0; k < fs->s_nr_inodes; k++) {
		const struct ext4_es_tree *t = &fs->s_inodes[k]->i_es;

		if (fs->s_inodes[k]->i_file_acl && !acl_listed(fs, k))
			ex[(*n)++] = (struct extent_status){ .es_pblk =
				(uint32_t)fs->s_inodes[k]->i_file_acl, .es_len = 1,
				.es_state = ES_WRITTEN };
		if (fs->s_inodes[k]->i_ino == EXT4_ROOT_INO ||
		    fs->s_inodes[k]->i_ino == EXT4_LOST_FOUND_INO)
			continue;

		for (uint32_t i = 0; i < t->es_nr; i++)
			if (t->es[i].es_state != ES_DELAYED)
				ex[(*n)++] = t->es[i];
	}
	return ex;
}

static void check_ownership(struct chk_state *c, const struct ext4_fs *fs, uint32_t step,
			    uint64_t *owned)
{
	uint32_t n;
	struct extent_status *ex = owned_extents(fs, &n);

	qsort(ex, n, sizeof(*ex), pblk_cmp);
	*owned = 0;
	for (uint32_t i = 0; i < n; i++) {
		*owned += ex[i].es_len;
		if (i > 0 && (uint64_t)ex[i - 1].es_pblk + ex[i - 1].es_len > ex[i].es_pblk)
			chk_report(c, INV_ALLOC_CONSISTENT, step, "block %u " AC_TWICE,
				   ex[i].es_pblk);
		for (uint32_t b = ex[i].es_pblk; b < ex[i].es_pblk + ex[i].es_len; b++) {
			if (!ext4_bitmap_bit(fs, b) || bitmap_contains(fs->free_map, b)) {
				chk_report(c, INV_ALLOC_CONSISTENT, step,
					   "block %u " AC_FREE, b);
				break;
			}
		}
	}
	free(ex);
}

/*
 * Data blocks the on-disk bitmaps mark used, the file's extent blocks not
 * counted (balloc.c: every block of the layout's metadata is marked used).
 */
static uint64_t used_data_blocks(const struct ext4_fs *fs)
{
	uint64_t leaves = 0;

	for (uint32_t k = 0; k < fs->s_nr_inodes; k++)
		leaves += fs->s_inodes[k]->i_ext_nr_leaves;
	return ext4_used_data_blocks(fs) - leaves;
}

static void check_alloc(struct chk_state *c, const struct ext4_fs *fs, uint32_t step)
{
	const struct ext4_es_tree *t = &fs->inode->i_es;
	uint32_t bits = ext4_blkbits(fs);
	uint64_t owned, used;
	uint64_t eof_blocks = ((uint64_t)fs->inode->i_disksize + fs->opts.block_size - 1) >> bits;

	check_ownership(c, fs, step, &owned);
	used = used_data_blocks(fs);
	if (used != owned)
		chk_report(c, INV_ALLOC_CONSISTENT, step, "bitmap marks %llu " AC_COUNT " %llu",
			   (unsigned long long)used, (unsigned long long)owned);
	for (uint32_t i = 0; i < t->es_nr && !fs->inode->i_orphan; i++) {
		const struct extent_status *e = &t->es[i];

		if (e->es_state == ES_WRITTEN && (uint64_t)e->es_lblk + e->es_len > eof_blocks) {
			chk_report(c, INV_ALLOC_CONSISTENT, step, "written block %llu " AC_PAST_EOF
				   " %lld and the inode is no orphan",
				   (unsigned long long)SIM_MAX((uint64_t)e->es_lblk, eof_blocks),
				   (long long)fs->inode->i_disksize);
			break;
		}
	}
}

static void check_folio_locks(struct chk_state *c, const struct ext4_fs *fs, uint32_t step)
{
	char buf[CHK_MSG_MAX] = "";
	size_t used = 0;

	for (int s = 0; s < SITE_COUNT; s++) {
		uint64_t d = fs->counters->folio_lock_under_handle[s] - c->locks_before[s];

		if (d && used < sizeof(buf))
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%llu",
						 used ? ", " : "", sim_lock_site_name(s),
						 (unsigned long long)d);
	}
	if (used)
		chk_report(c, INV_NO_FOLIO_LOCK_UNDER_HANDLE, step,
			   "folio locks under a handle: %s", buf);
}

void chk_step_end(struct chk_state *c, const struct ext4_fs *fs, uint32_t step)
{
	if (c->c_mute || c->c_detached)
		return;
	if (c->rt_state == RT_CLOSED && fs->journal.j_commit_sequence != c->rt_close_seq)
		c->rt_state = RT_ARMED;         /* a commit since the close */
	check_disksize(c, fs, step);
	check_alloc(c, fs, step);
	check_reads(c, fs, step);
	check_folio_locks(c, fs, step);
}

/* --- after crash and recovery --- */

#define FNV_PRIME 0x100000001b3ull
#define FNV_PRIME_8 0x1efac7090aef4a21ull       /* FNV_PRIME^8 mod 2^64 */
#define FNV_PRIME_64 0x0e9be24f4c2cc101ull      /* FNV_PRIME^64 mod 2^64 */

/* Are the 64 bytes at @p all zero? */
static bool zero64(const uint8_t *p)
{
	uint64_t w[8];

	memcpy(w, p, sizeof(w));
	return (w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) == 0;
}

/* FNV-1a over @n bytes, an aligned zero word in one step. */
static uint64_t fnv1a_words(uint64_t h, const uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, sizeof(w));
		if (w == 0) {
			h *= FNV_PRIME_8;
			continue;
		}
		for (size_t k = i; k < i + 8; k++) {
			h ^= p[k];
			h *= FNV_PRIME;
		}
	}
	for (; i < n; i++) {
		h ^= p[i];
		h *= FNV_PRIME;
	}
	return h;
}

/*
 * FNV-1a over @n bytes.  A zero byte only multiplies by the prime, so a
 * zero stretch of 64 or 8 bytes multiplies by the prime's power: the same
 * hash, without a step per byte over the mostly-zero metadata blocks.
 */
static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i + 64 <= n; i += 64)
		h = zero64(p + i) ? h * FNV_PRIME_64 : fnv1a_words(h, p + i, 64);
	return fnv1a_words(h, p + i, n - i);
}

#define FNV_BASIS 0xcbf29ce484222325ull

/* The committing transaction's logged copy of @blk, or NULL; *revoked if it revokes it. */
static const uint8_t *committing_copy(const journal_t *j, uint32_t blk, bool *revoked)
{
	const transaction_t *t = j->j_committing_transaction;

	*revoked = false;
	if (!t || !j->j_commit_copies)
		return NULL;
	for (uint32_t i = 0; i < t->t_nr_buffers; i++)
		if (t->t_buffers[i].jb_blocknr == blk)
			return j->j_commit_copies[i];
	for (uint32_t i = 0; i < t->t_nr_forget; i++)
		*revoked = *revoked || t->t_forget[i] == blk;
	return NULL;
}

/*
 * A block as blkdev_peek() gives it: @p, or the sentinel (NULL) from
 * @sentinel, a block of BLKDEV_SENTINEL made on first use.
 */
static const uint8_t *or_sentinel(const uint8_t *p, uint8_t **sentinel, uint32_t bs)
{
	if (p)
		return p;
	if (!*sentinel) {
		*sentinel = sim_zalloc(bs);
		memset(*sentinel, BLKDEV_SENTINEL, bs);
	}
	return *sentinel;
}

/* fnv1a over block @blk's bytes @p, the superblock's block without what mount rewrites. */
static uint64_t hash_meta_block(const struct ext4_fs *fs, uint64_t h, uint32_t blk, const uint8_t *p)
{
	uint8_t *sb;

	if (blk != fs->lay.sb_blk)
		return fnv1a(h, p, fs->opts.block_size);
	sb = sim_realloc_array(NULL, 1, fs->opts.block_size);
	ext4_sb_journaled_bytes(&fs->lay, p, sb);
	h = fnv1a(h, sb, fs->opts.block_size);
	free(sb);
	return h;
}

uint64_t chk_expected_meta_hash(const struct ext4_fs *fs, bool with_committing)
{
	uint32_t n;
	uint32_t *set = ext4_journaled_set(fs, &n);
	uint64_t h = chk_expected_meta_hash_set(fs, with_committing, set, n);

	free(set);
	return h;
}

uint64_t chk_expected_meta_hash_set(const struct ext4_fs *fs, bool with_committing,
				    const uint32_t *set, uint32_t n)
{
	const journal_t *j = &fs->journal;
	uint8_t *sentinel = NULL;
	uint64_t h = FNV_BASIS;
	uint32_t k = 0;

	for (uint32_t s = 0; s < n; s++) {
		const uint8_t *c = NULL;
		uint32_t blk = set[s];
		bool revoked = false;

		while (k < j->j_nr_cp && j->j_cp[k].cp_blocknr < blk)
			k++;
		if (with_committing)
			c = committing_copy(j, blk, &revoked);
		if (!c && !revoked && k < j->j_nr_cp && j->j_cp[k].cp_blocknr == blk)
			c = j->j_cp[k].cp_data;
		else if (!c)
			c = or_sentinel(blkdev_peek_durable(fs->bdev, blk), &sentinel,
					fs->opts.block_size);
		h = hash_meta_block(fs, h, blk, c);
	}
	free(sentinel);
	return h;
}

uint64_t chk_device_meta_hash(const struct ext4_fs *fs)
{
	uint32_t n;
	uint32_t *set = ext4_journaled_set(fs, &n);
	uint64_t h = chk_device_meta_hash_set(fs, set, n);

	free(set);
	return h;
}

uint64_t chk_device_meta_hash_set(const struct ext4_fs *fs, const uint32_t *set, uint32_t n)
{
	uint8_t *sentinel = NULL;
	uint64_t h = FNV_BASIS;

	for (uint32_t s = 0; s < n; s++)
		h = hash_meta_block(fs, h, set[s], or_sentinel(blkdev_peek(fs->bdev, set[s]),
							       &sentinel, fs->opts.block_size));
	free(sentinel);
	return h;
}

/* The block recovery must leave at metadata block @blk (chk_expected_meta_hash's choice). */
static const uint8_t *expected_block(const struct ext4_fs *fs, uint32_t blk, bool with_committing,
				     uint8_t **sentinel)
{
	const journal_t *j = &fs->journal;
	const uint8_t *c = NULL;
	bool revoked = false;
	uint32_t lo = 0, hi = j->j_nr_cp;

	if (with_committing)
		c = committing_copy(j, blk, &revoked);
	if (c)
		return c;
	while (lo < hi) {       /* the checkpoint list is sorted by block */
		uint32_t mid = lo + (hi - lo) / 2;

		if (j->j_cp[mid].cp_blocknr < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!revoked && lo < j->j_nr_cp && j->j_cp[lo].cp_blocknr == blk)
		return j->j_cp[lo].cp_data;
	return or_sentinel(blkdev_peek_durable(fs->bdev, blk), sentinel, fs->opts.block_size);
}

/* Does metadata block @blk of @rec read what recovery must leave there? */
static bool meta_block_ok(const struct ext4_fs *fs, bool with_committing, const struct ext4_fs *rec,
			  uint32_t blk, uint8_t **sentinel)
{
	const uint8_t *want, *got;

	if (!ext4_is_meta_block(fs, blk) && !ext4_is_meta_block(rec, blk))
		return true;
	want = expected_block(fs, blk, with_committing, sentinel);
	got = or_sentinel(blkdev_peek(rec->bdev, blk), sentinel, fs->opts.block_size);
	if (blk == fs->lay.sb_blk)
		return hash_meta_block(fs, FNV_BASIS, blk, want) == hash_meta_block(fs, FNV_BASIS, blk, got);
	return memcmp(want, got, fs->opts.block_size) == 0;
}

bool chk_meta_as_expected(const struct ext4_fs *fs, bool with_committing,
			  const struct ext4_fs *rec)
{
	const struct blkdev *bd = rec->bdev;
	const journal_t *j = &fs->journal;
	const transaction_t *t = j->j_committing_transaction;
	uint8_t *sentinel = NULL;
	bool ok = true;

	SIM_ASSERT(rec->lay.sb_blk == fs->lay.sb_blk && rec->lay.inode_blk == fs->lay.inode_blk);
	/* every overlay between @rec's device and @fs's: a shared replay may lie under it */
	for (; ok && bd != fs->bdev; bd = bd->bd_parent) {
		SIM_ASSERT(bd->bd_parent != NULL);
		for (uint32_t i = 0; ok && i < bd->bd_nr_slots; i++)
			ok = meta_block_ok(fs, with_committing, rec, bd->bd_slots[i], &sentinel);
		for (uint32_t i = 0; ok && i < bd->bd_nr_bios; i++)
			ok = meta_block_ok(fs, with_committing, rec, bd->bd_bios[i].b_blocknr,
					   &sentinel);
	}
	for (uint32_t i = 0; ok && i < j->j_nr_cp; i++)
		ok = meta_block_ok(fs, with_committing, rec, j->j_cp[i].cp_blocknr, &sentinel);
	for (uint32_t i = 0; ok && with_committing && t && i < t->t_nr_buffers; i++)
		ok = meta_block_ok(fs, with_committing, rec, t->t_buffers[i].jb_blocknr, &sentinel);
	free(sentinel);
	return ok;
}

#define SHIFT_DEPTH_MAX 8

/* A fill or size set among m[lo, hi) that leaves @v at @off (shifts ignored). */
static bool fills_allow(const struct chk_mut *m, uint32_t lo, uint32_t hi, int64_t off, uint8_t v)
{
	for (uint32_t i = lo; i < hi; i++) {
		if (m[i].kind == MUT_FILL && off >= m[i].off && off < m[i].off + m[i].len &&
		    m[i].byte == v)
			return true;
		if (m[i].kind == MUT_TRUNC && m[i].off <= off && v == 0)
			return true;
	}
	return false;
}

/* Where byte @off after shift @m was before it; false for the hole an insert left. */
static bool shift_back(const struct chk_mut *m, int64_t off, int64_t *before)
{
	*before = off;
	if (off < m->off)
		return true;
	if (m->kind == MUT_COLLAPSE) {
		*before = off + m->len;
		return true;
	}
	*before = off - m->len;
	return off >= m->off + m->len;
}

/* Where byte @off before shift @m went; false when a collapse removed it. */
static bool shift_fwd(const struct chk_mut *m, int64_t off, int64_t *after)
{
	*after = off;
	if (off < m->off)
		return true;
	if (m->kind == MUT_INSERT) {
		*after = off + m->len;
		return true;
	}
	*after = off - m->len;
	return off >= m->off + m->len;
}

/*
 * Can byte @off of the recovered file hold @v, given the mutations
 * m[lo, hi) on top of @base (the bytes before them; NULL: anything below
 * @base_size, zeros from it on)?  Walking
 * back, a fill or size set that leaves @v there allows it.  A shift forks:
 * either the recovered file has it (the earlier steps are looked at where
 * the byte was before it; the hole of an insert reads zero) or it does not
 * (the earlier steps at the same offset, and the later fills where the
 * shift had moved the byte: in-place writes after it land in blocks the
 * unshifted map still shows).  Past SHIFT_DEPTH_MAX nested shifts, any
 * value is allowed.
 */
static bool mut_allows(const struct chk_mut *m, uint32_t lo, uint32_t hi, int64_t off, uint8_t v,
		       const struct runs *base, int64_t base_size, unsigned depth)
{
	for (uint32_t i = hi; i-- > lo;) {
		const struct chk_mut *mu = &m[i];
		int64_t moved;

		if (mu->kind == MUT_FILL || mu->kind == MUT_TRUNC) {
			if (fills_allow(m, i, i + 1, off, v))
				return true;
			continue;
		}
		if (off < mu->off)
			continue;
		if (depth >= SHIFT_DEPTH_MAX)
			return true;
		if (shift_back(mu, off, &moved) ?
		    mut_allows(m, lo, i, moved, v, base, base_size, depth + 1) : v == 0)
			return true;
		if (shift_fwd(mu, off, &moved) && fills_allow(m, i + 1, hi, moved, v))
			return true;
	}
	if (!base)
		return off < base_size || v == 0;
	return runs_byte_at(base, off) == v;
}

/*
 * Can byte @off hold @v after the crash, given its durable value @base (0
 * past the durable size) and the steps since?
 */
static bool durable_allows(const struct chk_state *c, int64_t off, uint8_t v, uint8_t base)
{
	return v == base || mut_allows(c->muts, 0, c->nr_muts, off, v, &c->durable, 0, 0);
}

/*
 * Writeback raises i_disksize folio by folio, so a crash may leave any size
 * between the smallest and the largest the file had since the durable point.
 */
static bool size_allowed(const struct chk_state *c, int64_t size)
{
	return size >= c->size_lo && size <= c->size_hi;
}

/*
 * A byte past durable size @p: zero, written after that point, or shifted
 * there from below that size by a collapse or insert since.
 */
static bool gap_allows(const struct chk_state *c, const struct chk_durable_point *p,
		       int64_t off, uint8_t v)
{
	return v == 0 ||
	       mut_allows(c->crash_muts, p->mut_index, c->all_muts, off, v, NULL, p->size, 0);
}

/*
 * gap_zero_durable: for every unaligned size the file had at a durable point
 * since the last crash, once the recovered size passes it, the rest of that
 * EOF block reads zero unless a later step wrote there.  Each bad byte counts
 * once, however many points it fails for, and the report names the lowest and
 * highest (so a point that another one dominates changes nothing: checker/log.c).
 * Sentinel bytes are no_stale_data's.
 */
static void check_gaps_durable(const struct chk_state *c, const struct ext4_fs *fs, int64_t off,
			       const uint8_t *buf, int64_t n, struct bad_range *bad)
{
	uint32_t bs = fs->opts.block_size;
	int64_t lo = off + n, hi = off;

	for (uint32_t i = 0; i < c->nr_dps; i++) {     /* the part of the chunk in a gap */
		int64_t s = c->dps[i].size, e = SIM_MIN((s + bs - 1) & ~(int64_t)(bs - 1),
							 fs->inode->i_size);

		if (s & (bs - 1) && s < off + n && e > off) {
			lo = SIM_MIN(lo, SIM_MAX(s, off));
			hi = SIM_MAX(hi, SIM_MIN(e, off + n));
		}
	}
	for (int64_t q = lo; q < hi; q++) {
		uint8_t v = buf[q - off];

		if (v == 0 || (v == BLKDEV_SENTINEL && !c->sentinel_written))
			continue;
		for (uint32_t i = 0; i < c->nr_dps; i++) {
			const struct chk_durable_point *p = &c->dps[i];
			int64_t e = SIM_MIN((p->size + bs - 1) & ~(int64_t)(bs - 1), fs->inode->i_size);

			if (p->size & (bs - 1) && q >= p->size && q < e && !gap_allows(c, p, q, v)) {
				bad_add(bad, q, v, 0);
				break;
			}
		}
	}
}

/*
 * After a collapse or insert, the durable bytes and the fills may sit up
 * to the shift's length either way: compare those places too.
 */
static void ivl_add_shifted(struct ivls *l, const struct chk_state *c, int64_t size)
{
	for (uint32_t i = 0; i < c->nr_muts; i++) {
		int64_t d = c->muts[i].len;

		if (c->muts[i].kind != MUT_COLLAPSE && c->muts[i].kind != MUT_INSERT)
			continue;
		for (uint32_t k = 0; k < c->durable.nr; k++)
			ivl_add(l, SIM_MAX((int64_t)0, c->durable.r[k].r_off - d),
				c->durable.r[k].r_off + c->durable.r[k].r_len + d, size);
		for (uint32_t k = 0; k < c->nr_muts; k++)
			if (c->muts[k].kind == MUT_FILL)
				ivl_add(l, SIM_MAX((int64_t)0, c->muts[k].off - d),
					c->muts[k].off + c->muts[k].len + d, size);
	}
}

/*
 * The byte ranges a post-crash comparison must read: the baseline's data,
 * every write since (and where a shift may have moved them), the durable
 * points' gaps and wherever the recovered file holds data; clipped to the
 * recovered size.  Everything else is zero on both sides.
 */
static void recovered_intervals(const struct chk_state *c, const struct ext4_fs *fs,
				struct ivls *l)
{
	int64_t size = fs->inode->i_size;

	ivl_add_runs(l, &c->durable, size);
	for (uint32_t i = 0; i < c->nr_muts; i++)
		if (c->muts[i].kind == MUT_FILL)
			ivl_add(l, c->muts[i].off, c->muts[i].off + c->muts[i].len, size);
	ivl_add_shifted(l, c, size);
	for (uint32_t i = 0; i < c->nr_dps; i++)       /* the gaps: to the EOF block's end */
		ivl_add(l, c->dps[i].size, (c->dps[i].size + c->block_size - 1) &
			~(int64_t)(c->block_size - 1), size);
	ivl_add_model(l, fs, size);
	ivl_merge(l);
}

/* Keep only what @l has inside [lo, hi) and outside the sorted ranges @skip. */
static void ivl_restrict(struct ivls *l, int64_t lo, int64_t hi, const int64_t (*skip)[2],
			 uint32_t nr_skip)
{
	struct ivls out = { 0 };

	for (uint32_t i = 0; i < l->nr; i++) {
		int64_t s = SIM_MAX(l->iv[i][0], lo), e = SIM_MIN(l->iv[i][1], hi);

		for (uint32_t k = 0; k < nr_skip && s < e; k++) {
			if (skip[k][1] <= s || skip[k][0] >= e)
				continue;
			ivl_add(&out, s, skip[k][0], e);
			s = skip[k][1];
		}
		ivl_add(&out, s, e, e);
	}
	free(l->iv);
	*l = out;
}

/* Does the log since the durable point hold a collapse or an insert? */
static bool muts_shift(const struct chk_state *c)
{
	for (uint32_t i = 0; i < c->nr_muts; i++)
		if (c->muts[i].kind == MUT_COLLAPSE || c->muts[i].kind == MUT_INSERT)
			return true;
	return false;
}

/*
 * durable_allows() for the @n bytes @buf at @p at once, when the log holds
 * no shift: @ok[k] says byte p+k may read buf[k] (its durable value @base[k],
 * a fill over it with that byte, or zero at or past a size set).  The same
 * answers as the byte walk, in time linear in the chunk and the fills over
 * it rather than their product (a log of many small writes made each crash
 * state's scan quadratic).
 */
static void chunk_allows_unshifted(const struct chk_state *c, int64_t p, int64_t n,
				   const uint8_t *buf, const uint8_t *base, uint8_t *ok)
{
	int64_t zero_from = INT64_MAX;

	for (int64_t k = 0; k < n; k++)
		ok[k] = buf[k] == base[k];
	for (uint32_t i = 0; i < c->nr_muts; i++) {
		const struct chk_mut *m = &c->muts[i];
		int64_t s = SIM_MAX(m->off, p), e;

		SIM_ASSERT(m->kind == MUT_FILL || m->kind == MUT_TRUNC);
		if (m->kind == MUT_TRUNC) {
			zero_from = SIM_MIN(zero_from, m->off);
			continue;
		}
		for (e = SIM_MIN(m->off + m->len, p + n); s < e; s++)
			ok[s - p] |= buf[s - p] == m->byte;
	}
	for (int64_t k = SIM_MAX(zero_from, p) - p; k < n; k++)
		ok[k] |= buf[k] == 0;
}

/* fsync_durable, no_stale_data and gap_zero_durable over the ranges @l. */
static void scan_recovered(const struct chk_state *c, const struct ext4_fs *fs,
			   const struct ivls *l, struct bad_range bad[3])
{
	size_t chunk = ivl_chunk(l);
	uint8_t *buf = sim_zalloc(chunk), *base = sim_zalloc(chunk), *ok = sim_zalloc(chunk);
	bool shifts = muts_shift(c);

	for (uint32_t i = 0; i < l->nr; i++) {
		for (int64_t p = l->iv[i][0]; p < l->iv[i][1]; p += CHUNK_BYTES) {
			int64_t n = SIM_MIN((int64_t)CHUNK_BYTES, l->iv[i][1] - p);

			ext4_peek(fs, p, n, buf);
			runs_read(&c->durable, p, n, base);     /* zero past the durable size */
			if (!shifts)
				chunk_allows_unshifted(c, p, n, buf, base, ok);
			for (int64_t k = 0; k < n; k++) {
				if (buf[k] == BLKDEV_SENTINEL && !c->sentinel_written)
					bad_add(&bad[1], p + k, buf[k], base[k]);
				else if (shifts ? !durable_allows(c, p + k, buf[k], base[k]) : !ok[k])
					bad_add(&bad[0], p + k, buf[k], base[k]);
			}
			check_gaps_durable(c, fs, p, buf, n, &bad[2]);
		}
	}
	free(buf);
	free(base);
	free(ok);
}

#define WRITTEN_SHOWN 4

/*
 * A bad range of the recovered file, reported with what the steps wrote at
 * its first byte: its durable value, and each byte value a write since the
 * durable point left there, all lost since the file reads neither ("reads
 * 0xee, expected 0x00 (durable) or 0xaa (written since, lost)").  The
 * values are those of the fills over the byte, in ascending order: the
 * log's summary keeps them, not their order.  Past a
 * collapse or insert the writes' places are not followed: the durable
 * value alone.
 */
static void report_recovered_bad(struct chk_state *c, enum chk_inv inv, uint32_t step,
				 const struct bad_range *b, const char *what)
{
	bool val[256] = { false };
	char written[WRITTEN_SHOWN * 6 + 8] = "";
	size_t used = 0;
	unsigned n = 0;

	if (b->count == 0)
		return;
	for (uint32_t i = 0; i < c->nr_muts && !muts_shift(c); i++)
		if (c->muts[i].kind == MUT_FILL && b->first >= c->muts[i].off &&
		    b->first < c->muts[i].off + c->muts[i].len)
			val[c->muts[i].byte] = true;
	val[b->want] = false;
	for (unsigned v = 0; v < 256; v++) {
		if (!val[v])
			continue;
		if (n++ < WRITTEN_SHOWN)
			used += (size_t)snprintf(written + used, sizeof(written) - used, "%s0x%02x",
						 n > 1 ? ", " : "", v);
		else if (n == WRITTEN_SHOWN + 1)
			used += (size_t)snprintf(written + used, sizeof(written) - used, ", ...");
	}
	if (!n) {
		report_bad(c, inv, step, b, what);
		return;
	}
	chk_report(c, inv, step, "%s: %llu byte(s) in [%lld, %lld], first at %lld reads 0x%02x, "
		   "expected 0x%02x (durable) or %s (written since, lost)", what,
		   (unsigned long long)b->count, (long long)b->first, (long long)b->last,
		   (long long)b->first, b->got, b->want, written);
}

/* Compare the recovered file, minus the ranges @skip, with what the steps allow. */
static void check_recovered_data(struct chk_state *c, const struct ext4_fs *fs, uint32_t step,
				 const int64_t (*skip)[2], uint32_t nr_skip)
{
	struct bad_range bad[3] = { { 0 } };    /* fsync_durable, stale, gap */
	struct ivls l = { 0 };

	recovered_intervals(c, fs, &l);
	if (nr_skip)
		ivl_restrict(&l, 0, INT64_MAX, skip, nr_skip);
	scan_recovered(c, fs, &l, bad);
	report_recovered_bad(c, INV_FSYNC_DURABLE, step, &bad[0], "recovered data not allowed "
			     "since the last durable point");
	report_recovered_bad(c, INV_NO_STALE_DATA, step, &bad[1], "recovered file exposes stale "
			     "device bytes");
	report_bad(c, INV_GAP_ZERO_DURABLE, step, &bad[2], "durable extension gap not zero");
	free(l.iv);
}

/*
 * The first non-zero byte on disk past EOF in the EOF block: its offset in
 * the block (0 if none, or if the EOF block is aligned or not written).
 */
static uint32_t post_eof_nonzero(const struct ext4_fs *fs, uint32_t *pblk_out, uint8_t *byte)
{
	uint32_t bs = fs->opts.block_size, off = (uint32_t)(fs->inode->i_size & (bs - 1)), pblk, len;
	uint32_t found = 0;
	uint8_t *b;

	if (off == 0 || es_lookup(&fs->inode->i_es, (uint32_t)(fs->inode->i_size >> ext4_blkbits(fs)),
				  &pblk, &len) != ES_WRITTEN)
		return 0;
	b = sim_zalloc(bs);
	blkdev_read(fs->bdev, pblk, b);
	for (uint32_t k = off; k < bs && !found; k++) {
		if (b[k] != 0) {
			found = k;
			*byte = b[k];
			*pblk_out = pblk;
		}
	}
	free(b);
	return found;
}

static void check_post_eof_zero(struct chk_state *c, const struct ext4_fs *fs, uint32_t step)
{
	uint32_t bs = fs->opts.block_size, off = (uint32_t)(fs->inode->i_size & (bs - 1)), pblk = 0;
	uint8_t v = 0;
	uint32_t k = post_eof_nonzero(fs, &pblk, &v);

	if (k)
		chk_report(c, INV_POST_EOF_ZERO_STRICT, step, "on-disk byte %lld past EOF "
			   "(block %u offset %u) is 0x%02x",
			   (long long)(fs->inode->i_size - off + k), pblk, k, v);
}

/* Is the in-file part of the EOF block inside one of the ranges? */
/* Is @off inside one of the sorted, disjoint ranges @skip? */
static bool in_skip(const int64_t (*skip)[2], uint32_t nr_skip, int64_t off)
{
	for (uint32_t k = 0; k < nr_skip; k++)
		if (off >= skip[k][0] && off < skip[k][1])
			return true;
	return false;
}

/*
 * dio_sync_durable's bytes in [lo, hi), the ranges @skip left out: the
 * first recovered byte that differs from what the synchronous direct write
 * wrote, in *@bad (its offset) and *@got; false when none does.
 */
static bool dsync_bad(const struct chk_state *c, const struct ext4_fs *fs, int64_t lo, int64_t hi,
		      const int64_t (*skip)[2], uint32_t nr_skip, int64_t *bad, uint8_t *got)
{
	uint8_t buf[512];

	for (uint32_t i = 0; i < c->dsync.nr; i++) {
		const struct run *r = &c->dsync.r[i];
		int64_t s = SIM_MAX(lo, r->r_off), e = SIM_MIN(hi, r->r_off + r->r_len);

		for (int64_t p = s; p < e; p += (int64_t)sizeof(buf)) {
			int64_t n = SIM_MIN((int64_t)sizeof(buf), e - p);

			ext4_peek(fs, p, n, buf);
			for (int64_t k = 0; k < n; k++) {
				if (p + k >= fs->inode->i_size)
					return false;   /* the size check reports it */
				if (buf[k] == runs_byte_at(&c->posix, p + k) ||
				    in_skip(skip, nr_skip, p + k))
					continue;
				*bad = p + k;
				*got = buf[k];
				return true;
			}
		}
	}
	return false;
}

/* dio_sync_durable: the size, then the bytes outside @skip. */
static void check_dsync(struct chk_state *c, const struct ext4_fs *fs, uint32_t step,
			const int64_t (*skip)[2], uint32_t nr_skip)
{
	int64_t bad;
	uint8_t got;

	if (fs->inode->i_size < c->dsync_size)
		chk_report(c, INV_DIO_SYNC_DURABLE, step, "recovered size %lld is below %lld, the "
			   "end of a synchronous direct write that returned", (long long)fs->inode->i_size,
			   (long long)c->dsync_size);
	if (dsync_bad(c, fs, 0, INT64_MAX, skip, nr_skip, &bad, &got))
		chk_report(c, INV_DIO_SYNC_DURABLE, step, "first at %lld reads 0x%02x, expected "
			   "0x%02x (a synchronous direct write that returned)", (long long)bad, got,
			   runs_byte_at(&c->posix, bad));
}

static bool eof_block_in(const struct ext4_fs *fs, const int64_t (*r)[2], uint32_t nr)
{
	int64_t last = fs->inode->i_size - 1;

	for (uint32_t k = 0; k < nr; k++)
		if (last >= r[k][0] && last < r[k][1])
			return true;
	return false;
}

uint32_t chk_recovered_range_mask(const struct chk_state *c, const struct ext4_fs *fs,
				  int64_t lo, int64_t hi)
{
	struct bad_range bad[3] = { { 0 } };
	struct ivls l = { 0 };
	const int64_t win[1][2] = { { lo, hi } };
	uint32_t mask = 0, pblk;
	uint8_t v;

	recovered_intervals(c, fs, &l);
	ivl_restrict(&l, lo, hi, NULL, 0);
	scan_recovered(c, fs, &l, bad);
	free(l.iv);
	mask |= bad[0].count ? 1u << INV_FSYNC_DURABLE : 0;
	mask |= bad[1].count ? 1u << INV_NO_STALE_DATA : 0;
	mask |= bad[2].count ? 1u << INV_GAP_ZERO_DURABLE : 0;
	if (eof_block_in(fs, win, 1) && post_eof_nonzero(fs, &pblk, &v))
		mask |= 1u << INV_POST_EOF_ZERO_STRICT;
	if (c->dsync.nr) {
		int64_t bad;

		mask |= dsync_bad(c, fs, lo, hi, NULL, 0, &bad, &v) ? 1u << INV_DIO_SYNC_DURABLE : 0;
	}
	return mask;
}

/*
 * prealloc_durable: every block of the runs falloc_durable holds is mapped
 * (written or unwritten) in the recovered block map.
 */
static void check_prealloc_durable(struct chk_state *c, const struct ext4_fs *fs, uint32_t step)
{
	uint32_t bits = ext4_blkbits(fs);
	uint64_t lost = 0, first = 0, last = 0;

	for (uint32_t i = 0; i < c->falloc_durable.nr; i++) {
		const struct run *r = &c->falloc_durable.r[i];
		uint64_t b = (uint64_t)r->r_off >> bits, end = (uint64_t)(r->r_off + r->r_len) >> bits;

		while (b < end) {
			uint32_t pblk, len;
			enum es_state st = es_lookup(&fs->inode->i_es, (uint32_t)b, &pblk, &len);
			uint64_t n = len ? SIM_MIN((uint64_t)len, end - b) : end - b;

			if (st == ES_HOLE) {
				first = lost ? first : b;
				lost += n;
				last = b + n - 1;
			}
			b += n;
		}
	}
	if (lost)
		chk_report(c, INV_PREALLOC_DURABLE, step, "%llu preallocated block(s) in [%llu, "
			   "%llu] are holes after the crash, first block %llu: fallocate allocated "
			   "them before the last durable point", (unsigned long long)lost,
			   (unsigned long long)first, (unsigned long long)last,
			   (unsigned long long)first);
}

/*
 * replace_via_truncate, once a commit followed the close: the recovered size
 * is at least the size at the close, and every block holding a non-zero byte
 * of the file then is written (a hole or an unwritten block reads zero).
 */
static void check_replace(struct chk_state *c, const struct ext4_fs *fs, uint32_t step)
{
	uint32_t bits = ext4_blkbits(fs);

	if (c->rt_state != RT_ARMED)
		return;
	if (fs->inode->i_size < c->rt_data.size) {
		chk_report(c, INV_REPLACE_VIA_TRUNCATE, step, "recovered size %lld is below %lld, "
			   "the size at the close after the truncate to 0", (long long)fs->inode->i_size,
			   (long long)c->rt_data.size);
		return;
	}
	for (uint32_t i = 0; i < c->rt_data.nr; i++) {
		const struct run *r = &c->rt_data.r[i];
		uint64_t b = (uint64_t)r->r_off >> bits, end = (uint64_t)(r->r_off + r->r_len - 1) >> bits;

		for (; b <= end; b++) {
			uint32_t pblk, len;
			enum es_state st = es_lookup(&fs->inode->i_es, (uint32_t)b, &pblk, &len);

			if (st == ES_WRITTEN)
				continue;
			chk_report(c, INV_REPLACE_VIA_TRUNCATE, step, "block %llu, written after the "
				   "truncate to 0 and before the close, is %s after the crash: it reads "
				   "zero", (unsigned long long)b, es_state_name(st));
			return;
		}
	}
}

/* The recovered file becomes the reference and the durable baseline. */
static void rebase(struct chk_state *c, const struct ext4_fs *fs)
{
	struct ivls l = { 0 };
	uint8_t *buf;

	runs_destroy(&c->posix);
	runs_init(&c->posix);
	ivl_add_model(&l, fs, fs->inode->i_size);
	ivl_merge(&l);
	buf = sim_zalloc(ivl_chunk(&l));
	for (uint32_t i = 0; i < l.nr; i++) {
		for (int64_t p = l.iv[i][0]; p < l.iv[i][1]; p += CHUNK_BYTES) {
			int64_t n = SIM_MIN((int64_t)CHUNK_BYTES, l.iv[i][1] - p);

			ext4_peek(fs, p, n, buf);
			for (int64_t k = 0, s = 0; k <= n; k++) {
				if (k < n && buf[k] == buf[s])
					continue;
				runs_fill(&c->posix, p + s, k - s, buf[s]);
				s = k;
			}
		}
	}
	runs_truncate(&c->posix, fs->inode->i_size);
	chk_log_crash(c);
	runs_destroy(&c->falloc);       /* judged once: a second crash starts afresh */
	runs_init(&c->falloc);
	runs_destroy(&c->dsync);
	runs_init(&c->dsync);
	c->dsync_size = 0;
	chk_note_durable(c);
	free(l.iv);
	free(buf);
}

/* The post-crash checks, the byte ranges @skip left out. */
static void judge_recovered(struct chk_state *c, const struct ext4_fs *fs, uint32_t step,
			    uint64_t expected_meta, uint64_t replayed_meta,
			    const int64_t (*skip)[2], uint32_t nr_skip)
{
	int64_t size = fs->inode->i_size;

	if (expected_meta != replayed_meta)
		chk_report(c, INV_JOURNAL_PREFIX, step, "metadata after replay differs from the "
			   "durable state plus the committed transactions");
	if (!size_allowed(c, size))
		chk_report(c, INV_FSYNC_DURABLE, step, "recovered size %lld is outside the sizes "
			   "the file had since the last durable point (%lld then)", (long long)size,
			   (long long)c->durable.size);
	check_recovered_data(c, fs, step, skip, nr_skip);
	if (!eof_block_in(fs, skip, nr_skip))
		check_post_eof_zero(c, fs, step);
	check_alloc(c, fs, step);
	check_prealloc_durable(c, fs, step);
	check_replace(c, fs, step);
	check_dsync(c, fs, step, skip, nr_skip);
}

void chk_after_recovery(struct chk_state *c, const struct ext4_fs *fs, uint32_t step,
			uint64_t expected_meta, uint64_t replayed_meta)
{
	if (c->c_detached)
		return;
	judge_recovered(c, fs, step, expected_meta, replayed_meta, NULL, 0);
	rebase(c, fs);
}

void chk_judge_recovered_except(struct chk_state *c, const struct ext4_fs *fs, uint32_t step,
				uint64_t expected_meta, uint64_t replayed_meta,
				const int64_t (*skip)[2], uint32_t nr_skip)
{
	if (c->c_detached)
		return;
	judge_recovered(c, fs, step, expected_meta, replayed_meta, skip, nr_skip);
}
