/*
 * profile.c - the patch toggles and the kernel profiles (see profile.h).
 *
 * Commit ids and releases: mainline ids; a release is the first mainline
 * release whose merge window took the commit (from the ext4 pull requests
 * that carried it).  Distribution profiles name the stable backports their
 * kernels carry, as observed on those kernels (docs/kernel-profiles.md).
 */
#include "profile.h"

#include <string.h>

#include "sim.h"

#define SEM(f) offsetof(struct ext4_semantics, f)
#define BIT(t) (1u << (t))

static const struct ext4_toggle toggles[T_COUNT] = {
	[T_DA_DISKSIZE_VS_ISIZE] = {
		"da_disksize_vs_isize",
		"4df031ff5876 ext4: check and update i_disksize properly", "5.15",
		"a delalloc write ending past i_disksize in a written block raises i_disksize "
		"and marks the inode dirty under the write's handle",
		"only a write ending past i_size raises i_disksize; no explicit dirtying",
		"ext4_da_write_end", NULL, SEM(da_disksize_vs_isize) },
	[T_DA_WRITE_NO_HANDLE] = {
		"da_write_no_handle",
		"cc883236b792 ext4: drop unnecessary journal handle in delalloc write", "5.15",
		"ext4_da_write_begin starts a 1-credit handle (unlock folio, start, relock) held "
		"over the copy until ext4_da_write_end",
		"no handle in ext4_da_write_begin/ext4_da_write_end",
		"ext4_da_write_begin, ext4_da_write_end", NULL, SEM(da_write_no_handle) },
	[T_SHORT_COPY_ZERO] = {
		"short_copy_zero",
		"1dedde690303 ext4: fix i_disksize exceeding i_size problem in paritally "
		"written case", "6.4",
		"i_disksize is raised from pos + copied before block_write_end drops a short "
		"copy into a folio that is not uptodate (i_disksize > i_size)",
		"a short copy into a folio that is not uptodate counts as 0 bytes first",
		"ext4_da_write_end", NULL, SEM(short_copy_zero) },
	[T_JDATA_DIRTY_FOLIO] = {
		"jdata_dirty_folio",
		"d84c9ebdac1e ext4: Mark pages with journalled data dirty + 1f1a55f0bf06 "
		"ext4: Commit transaction before writing back pages in data=journal mode, "
		"with the rest of Jan Kara's data=journal cleanup (journalled data no longer "
		"special in ext4_sync_file() and the extent shifting operations)", "6.5",
		"data=journal: write() and partial-block zeroing leave the folio clean (its "
		"buffers are only in the running transaction), so writeback finds nothing and "
		"commits nothing; fsync, zero range, collapse and insert force a commit first",
		"the folio is dirtied with its journalled buffers; writeback with WB_SYNC_ALL "
		"commits the file's transaction, then writes committed buffers in place",
		"ext4_journalled_write_end, ext4_writepages, ext4_sync_file, ext4_zero_range, "
		"ext4_collapse_range, ext4_insert_range", "pre-6.5 the commit dirties the "
		"journalled folios so that a later writeback writes them in place: the model "
		"leaves that to the checkpoint (the same bytes); an mmap store in data=journal "
		"is journalled at the fault in both (not again at writeback, as 6.1's "
		"__ext4_journalled_writepage does)", SEM(jdata_dirty_folio) },
	[T_DA_END_SKIP_DIRTY] = {
		"da_end_skip_dirty",
		"03de20bed203 ext4: do not mark inode dirty every time when appending using "
		"delalloc", "6.6",
		"every delalloc write that raises i_size dirties the inode (a 2-credit handle "
		"via ext4_dirty_inode)",
		"a handle only when i_disksize changed (ext4_da_do_write_end)",
		"ext4_da_write_end / ext4_da_do_write_end", NULL, SEM(da_end_skip_dirty) },
	[T_DIOREAD_NOLOCK_SUBPAGE] = {
		"dioread_nolock_subpage",
		"e89fdcc425b6 ext4: enable dioread_nolock as default for bs < ps case", "6.8",
		"dioread_nolock is the default only when the block size is the page size: "
		"smaller blocks are written back with dioread_lock (unwritten extents "
		"converted when the blocks are mapped, before the I/O)",
		"dioread_nolock is the default for every block size (conversion at I/O end)",
		"ext4_set_def_opts, ext4_should_dioread_nolock", "the model has no separate "
		"default: dioread_nolock: true means the kernel's default, so with this toggle "
		"off it has no effect below 4 KiB blocks (dioread_nolock: false still mounts "
		"with dioread_lock)", SEM(dioread_nolock_subpage) },
	[T_EOF_ZERO_FS] = {
		"eof_zero_fs",
		"c7fc0366c656 ext4: partial zero eof block on unaligned inode size extension",
		"6.13",
		"extending the size leaves the old EOF block's tail as it is",
		"write_end, truncate up and fallocate zero [old size, its block end), ordered "
		"(delalloc: a 2-credit handle for a write starting past EOF)",
		"ext4_write_end, ext4_journalled_write_end, ext4_da_do_write_end, ext4_setattr, "
		"ext4_alloc_file_blocks", NULL, SEM(eof_zero_fs) },
	[T_EOF_ZERO_DIRTY_FOLIO_MM] = {
		"eof_zero_dirty_folio_mm",
		"52aecaee1c26 mm: zero range of eof folio exposed by inode size extension",
		"6.13",
		"pagecache_isize_extended only write-protects the EOF folio",
		"it also zeroes [old size, min(new size, folio end)) of a dirty EOF folio "
		"(blocks smaller than pages only)",
		"pagecache_isize_extended", NULL, SEM(eof_zero_dirty_folio_mm) },
	[T_PUNCH_ZERO_REFACTOR] = {
		"punch_zero_refactor",
		"43d0105e2c75 ext4: don't write back data before punch hole in nojournal mode "
		"+ 982bf37da09d ext4: refactor ext4_punch_hole() + 53471e0bedad ext4: "
		"refactor ext4_zero_range() (Zhang Yi's fallocate cleanup)",
		"6.14",
		"punch writes [offset, offset + len) back first in every mode when the file "
		"has dirty folios; punch and zero range raise i_disksize and drop the page "
		"cache only when the range holds a whole block",
		"only data=journal writes the range back (ext4_truncate_page_cache_block_range); "
		"i_disksize and the page cache are handled for every range",
		"ext4_punch_hole, ext4_zero_range", "the release is the list's record (the "
		"series was queued for the 6.14 merge window), not checked against a tag; "
		"Debian's 6.1.192 behaves as before it, Debian's 6.12.117 (a stable backport) "
		"as after (kernel-check --vm)",
		SEM(punch_zero_refactor) },
	[T_DISKSIZE_BEFORE_PUNCH_PARTIAL] = {
		"disksize_before_punch_partial",
		"9d80eaa1a1d3 ext4: increase i_disksize to offset + len in "
		"ext4_update_disksize_before_punch()", "6.18",
		"i_disksize is raised to i_size before a punch or zero range only if the range "
		"reaches i_size",
		"raised to min(i_size, offset + len) whenever that exceeds i_disksize",
		"ext4_update_disksize_before_punch (ext4_punch_hole, ext4_zero_range)",
		NULL, SEM(disksize_before_punch_partial) },
	[T_ZERO_ORDERED_WRITTEN_ONLY] = {
		"zero_ordered_written_only",
		"154922b34da9 ext4: don't order data when zeroing unwritten or delayed block",
		"7.0",
		"data=ordered: every zeroed partial block joins the transaction's ordered data",
		"only written blocks do (not delayed or unwritten ones)",
		"__ext4_block_zero_page_range", NULL, SEM(zero_ordered_written_only) },
	[T_ZERO_ORDER_EOF_ONLY] = {
		"zero_order_eof_only",
		"69e2d5c1f544 ext4: move ordered data handling out of "
		"ext4_block_do_zero_range() (2026 series, 05/13)", "7.1",
		"data=ordered: every partial-block zeroing (EOF, punch and zero-range edges) "
		"is ordered",
		"only EOF zeroing (truncate, extension) is ordered; punch and zero-range edges "
		"reach the disk by writeback",
		"ext4_block_do_zero_range, ext4_block_zero_eof", NULL, SEM(zero_order_eof_only) },
	[T_ZERO_OUTSIDE_HANDLE] = {
		"zero_outside_handle",
		"d3609a71b777 + c4602a1d09ec ext4: remove handle parameters from / move zero "
		"partial block range functions out of active handle (2026 series, 06+08/13)",
		"7.1",
		"partial-block zeroing locks the folio under the operation's handle (truncate, "
		"grow, punch, zero range, fallocate)",
		"zeroing runs before the handle starts (data=journal: in a 1-credit handle of "
		"its own)",
		"ext4_truncate, ext4_setattr, ext4_punch_hole, ext4_zero_range, "
		"ext4_alloc_file_blocks", NULL, SEM(zero_outside_handle) },
	[T_SYNC_PERSIST_ZERO] = {
		"sync_persist_zero",
		"7d81ec0246ff ext4: ensure zeroed partial blocks are persisted in SYNC mode "
		"(2026 series, 09/13)", "7.1",
		"a SYNC punch or zero range only makes its handle synchronous",
		"it also writes back and waits for the zeroed edge blocks",
		"ext4_punch_hole, ext4_zero_range", "how the merged patch writes the edges back "
		"(helper, order against the commit) is unverified; the model writes and waits "
		"for the edge blocks after zeroing them", SEM(sync_persist_zero) },
	[T_UNIFIED_SYNC_CHECK] = {
		"unified_sync_check",
		"c3688d212fc6 ext4: unify SYNC mode checks in fallocate paths (2026 series, "
		"10/13)", "7.1",
		"punch, collapse and insert test IS_SYNC(inode); zero range and allocation test "
		"the file's O_SYNC",
		"every fallocate mode tests the same predicate (modelled as IS_SYNC or O_SYNC; "
		"the merged predicate's exact form is unverified)",
		"ext4_fallocate and its modes", "the model has no O_SYNC file descriptor: only "
		"IS_SYNC (chattr +S) tells the rules apart", SEM(unified_sync_check) },
	[T_ISIZE_EXT_OUTSIDE_HANDLE] = {
		"isize_ext_outside_handle",
		"1ad0f4282329 ext4: move pagecache_isize_extended() out of active handle "
		"(2026 series, 12/13)", "7.1",
		"fallocate calls pagecache_isize_extended (folio lock) inside its chunk handle",
		"after the handle is stopped",
		"ext4_alloc_file_blocks", "other call sites the patch may move are unverified",
		SEM(isize_ext_outside_handle) },
	[T_ZERO_EOF_IN_WRITE_CHECKS] = {
		"zero_eof_in_write_checks",
		"3f60efd65412 ext4: zero post-EOF partial block before appending write (2026 "
		"series, 13/13)", "7.1",
		"a write starting past EOF zeroes [old size, pos) in write_end, after the copy "
		"and the i_size update, under a handle (delalloc: a 2-credit handle of its own)",
		"ext4_write_checks zeroes it before the copy, with no handle; delalloc write_end "
		"starts a 1-credit handle only if i_disksize changed",
		"ext4_write_checks, ext4_write_end, ext4_da_do_write_end", "how 7.1 orders the "
		"zeroed block with no handle open is unverified; the model orders it in a "
		"1-credit handle of its own (ext4_block_zero_eof)", SEM(zero_eof_in_write_checks) },
	[T_JBD2_LOCKLESS_COMMITTED] = {
		"jbd2_lockless_committed",
		"7c73ddb7589f jbd2: speed up jbd2_transaction_committed()", "6.12",
		"jbd2_transaction_committed takes read_lock(&journal->j_state_lock)",
		"it compares j_commit_sequence with READ_ONCE, no lock",
		"jbd2_transaction_committed (ext4_inode_datasync_dirty)", "the release is read "
		"from the 6.11 merge window's changes and unconfirmed by tag",
		SEM(jbd2_lockless_committed) },
	[T_IOMAP_DIRTY_WRITE_ONLY] = {
		"iomap_dirty_write_only",
		"unmerged: Zhongwei Cai, ext4: remove unnecessary ext4_inode_datasync_dirty in "
		"read path (2021)", "never merged",
		"every iomap lookup (direct I/O and DAX reads and writes, reports) checks "
		"ext4_inode_datasync_dirty for IOMAP_F_DIRTY",
		"only write lookups do (rejected: swapon relies on the flag for reports)",
		"ext4_set_iomap (ext4_iomap_begin, ext4_iomap_begin_report)", "the model has "
		"direct-I/O reads (dio_read) only: no DAX, no swapon, no fiemap",
		SEM(iomap_dirty_write_only) },
};

#define UPTO_5_15 (BIT(T_DA_DISKSIZE_VS_ISIZE) | BIT(T_DA_WRITE_NO_HANDLE))
#define UPTO_6_4 (UPTO_5_15 | BIT(T_SHORT_COPY_ZERO))
#define UPTO_6_6 (UPTO_6_4 | BIT(T_JDATA_DIRTY_FOLIO) | BIT(T_DA_END_SKIP_DIRTY))
#define UPTO_6_12 (UPTO_6_6 | BIT(T_DIOREAD_NOLOCK_SUBPAGE) | BIT(T_JBD2_LOCKLESS_COMMITTED))
#define UPTO_6_13 (UPTO_6_12 | BIT(T_EOF_ZERO_FS) | BIT(T_EOF_ZERO_DIRTY_FOLIO_MM))
#define UPTO_6_18 (UPTO_6_13 | BIT(T_PUNCH_ZERO_REFACTOR) | BIT(T_DISKSIZE_BEFORE_PUNCH_PARTIAL))
#define UPTO_7_0 (UPTO_6_18 | BIT(T_ZERO_ORDERED_WRITTEN_ONLY))
#define SERIES_2026 (BIT(T_ZERO_ORDER_EOF_ONLY) | BIT(T_ZERO_OUTSIDE_HANDLE) | \
		     BIT(T_SYNC_PERSIST_ZERO) | BIT(T_UNIFIED_SYNC_CHECK) | \
		     BIT(T_ISIZE_EXT_OUTSIDE_HANDLE) | BIT(T_ZERO_EOF_IN_WRITE_CHECKS))

/* The first entry is the default. */
static const struct ext4_profile profiles[] = {
	{ "6.18", "mainline 6.18: the 2025 punch-size fix", UPTO_6_18 },
	{ "5.14", "mainline 5.14, before the 2021 delalloc series", 0 },
	{ "5.15", "mainline 5.15: the 2021 delalloc series", UPTO_5_15 },
	{ "6.1", "mainline 6.1.0", UPTO_5_15 },
	{ "6.4", "mainline 6.4: the short-copy fix", UPTO_6_4 },
	{ "6.6", "mainline 6.6: the data=journal rework (6.5) and the delalloc append handle "
	  "only if i_disksize changed",
	  UPTO_6_6 },
	{ "6.12", "mainline 6.12.0: jbd2_transaction_committed without the lock", UPTO_6_12 },
	{ "6.13", "mainline 6.13: both halves of the EOF zeroing on extension", UPTO_6_13 },
	{ "7.0", "mainline 7.0: ordered zeroing of written blocks only", UPTO_7_0 },
	{ "7.1", "mainline 7.1: the 2026 partial-block zeroing series (patches 05, 06+08, "
	  "09, 10, 12, 13)", UPTO_7_0 | SERIES_2026 },
	{ "debian-6.1.192", "Debian 12's 6.1.192: 6.1 with the short-copy and punch-size "
	  "backports", UPTO_6_4 | BIT(T_DISKSIZE_BEFORE_PUNCH_PARTIAL) },
	{ "debian-6.12.117", "Debian 12's 6.12.117 (backports): the ext4 half of the 6.13 EOF "
	  "zeroing without the mm half, the 6.14 fallocate cleanup and the punch-size fix",
	  UPTO_6_12 | BIT(T_EOF_ZERO_FS) | BIT(T_PUNCH_ZERO_REFACTOR) |
	  BIT(T_DISKSIZE_BEFORE_PUNCH_PARTIAL) },
};

#define NR_PROFILES (sizeof(profiles) / sizeof(profiles[0]))

const char *const ext4_not_modelled[] = {
	"55ce2f649b9e + 6984aef59814 (5.15) the inline-data write_end error path: the model "
	"has no inline data",
	NULL
};

const struct ext4_profile *ext4_profile_find(const char *name)
{
	for (unsigned i = 0; i < NR_PROFILES; i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

const struct ext4_profile *ext4_profile_default(void)
{
	return &profiles[0];
}

unsigned ext4_profile_count(void)
{
	return NR_PROFILES;
}

const struct ext4_profile *ext4_profile_at(unsigned i)
{
	SIM_ASSERT(i < NR_PROFILES);
	return &profiles[i];
}

const struct ext4_toggle *ext4_toggle_find(const char *name)
{
	for (unsigned i = 0; i < T_COUNT; i++)
		if (strcmp(toggles[i].name, name) == 0)
			return &toggles[i];
	return NULL;
}

const struct ext4_toggle *ext4_toggle_at(enum ext4_toggle_id id)
{
	SIM_ASSERT((unsigned)id < T_COUNT);
	return &toggles[id];
}

bool ext4_toggle_get(const struct ext4_semantics *sem, const struct ext4_toggle *t)
{
	return *(const bool *)((const char *)sem + t->offset);
}

void ext4_toggle_set(struct ext4_semantics *sem, const struct ext4_toggle *t, bool on)
{
	*(bool *)((char *)sem + t->offset) = on;
}

void ext4_profile_semantics(const struct ext4_profile *p, struct ext4_semantics *sem)
{
	memset(sem, 0, sizeof(*sem));
	for (unsigned i = 0; i < T_COUNT; i++)
		ext4_toggle_set(sem, &toggles[i], p->toggles & BIT(i));
}
