/*
 * profile.c - the patch toggles and the kernel profiles (see profile.h).
 *
 * Commit ids and releases: mainline ids; a release is the first mainline
 * release whose merge window took the commit (from the ext4 pull requests
 * that carried it).  Distribution profiles name the stable backports their
 * kernels carry, as observed on those kernels (docs/kernel-profiles.md).
 */
#include "profile.h"

#include <stdio.h>
#include <string.h>

#include "sim.h"

#define SEM(f) offsetof(struct ext4_semantics, f)

static const struct ext4_toggle toggles[T_COUNT] = {
	[T_DA_DISKSIZE_VS_ISIZE] = {
		"da_disksize_vs_isize",
		"4df031ff5876 ext4: check and update i_disksize properly", "5.15",
		"a delalloc write ending past i_disksize in a written block raises i_disksize "
		"and marks the inode dirty under the write's handle",
		"only a write ending past i_size raises i_disksize; no explicit dirtying",
		"ext4_da_write_end", NULL, SEM(da_disksize_vs_isize),
		.why = "Raising i_disksize only when i_size grows stops an overwrite below i_size from "
		"moving i_disksize ahead of writeback, and drops the explicit dirtying: one "
		"inode update less per append into a written block.",
		.shown_by = "scenarios/patches/da-disksize-vs-isize-mapped-eof.yaml before-5.14",
		.stable = "5.10" },
	[T_DA_WRITE_NO_HANDLE] = {
		"da_write_no_handle",
		"cc883236b792 ext4: drop unnecessary journal handle in delalloc write", "5.15",
		"ext4_da_write_begin starts a 1-credit handle (unlock folio, start, relock) held "
		"over the copy until ext4_da_write_end",
		"no handle in ext4_da_write_begin/ext4_da_write_end",
		"ext4_da_write_begin, ext4_da_write_end", NULL, SEM(da_write_no_handle),
		.why = "The handle held over the copy took a journal credit and a folio lock under a "
		"handle for every buffered write; without it an overwrite starts no handle at "
		"all (Unixbench fsbuffer 1186.6 -> 2053.0 in the series' cover letter).",
		.shown_by = "scenarios/patches/da-write-handle-overwrite.yaml before-5.14" },
	[T_SHORT_COPY_ZERO] = {
		"short_copy_zero",
		"1dedde690303 ext4: fix i_disksize exceeding i_size problem in paritally "
		"written case", "6.4",
		"i_disksize is raised from pos + copied before block_write_end drops a short "
		"copy into a folio that is not uptodate (i_disksize > i_size)",
		"a short copy into a folio that is not uptodate counts as 0 bytes first",
		"ext4_da_write_end", NULL, SEM(short_copy_zero),
		.why = "A short copy into a folio that is not uptodate is retried; before the fix "
		"i_disksize was already raised past i_size (the WARN in the direct-I/O "
		"extension path).",
		.shown_by = "scenarios/bugs/2023-short-copy-disksize.yaml before-6.1" },
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
		"__ext4_journalled_writepage does)", SEM(jdata_dirty_folio),
		.why = "data=journal left journalled folios clean, so writeback could not tell what to "
		"commit and special cases (fsync, zero range, collapse, insert, evict) forced "
		"whole-journal commits; marking the folios dirty lets the generic writeback "
		"paths handle journalled data (and a writeback that waits now commits the "
		"file's transaction).",
		.shown_by = "scenarios/patches/jdata-writeback-commit.yaml before-6.5" },
	[T_DA_END_SKIP_DIRTY] = {
		"da_end_skip_dirty",
		"03de20bed203 ext4: do not mark inode dirty every time when appending using "
		"delalloc", "6.6",
		"every delalloc write that raises i_size dirties the inode (a 2-credit handle "
		"via ext4_dirty_inode)",
		"a handle only when i_disksize changed (ext4_da_do_write_end)",
		"ext4_da_write_end / ext4_da_do_write_end", NULL, SEM(da_end_skip_dirty),
		.why = "Appends into new delayed blocks need no inode update: writeback raises "
		"i_disksize; one handle per append goes away (aim7 disk_cp +249% in the kernel "
		"test robot's report).",
		.shown_by = "scenarios/patches/da-write-handle-append.yaml after-6.4" },
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
		"with dioread_lock)", SEM(dioread_nolock_subpage),
		.why = "Converting unwritten extents at I/O end (dioread_nolock) had been the default "
		"only for page-sized blocks since 5.6, after fixes for smaller blocks it became "
		"the default for all; the conversion point decides whether a written-back block "
		"in a preallocated extent survives a crash before the next commit.",
		.shown_by = "scenarios/patches/dioread-nolock-subpage.yaml before-6.8" },
	[T_EOF_ZERO_FS] = {
		"eof_zero_fs",
		"c7fc0366c656 ext4: partial zero eof block on unaligned inode size extension",
		"6.13",
		"extending the size leaves the old EOF block's tail as it is",
		"write_end, truncate up and fallocate zero [old size, its block end), ordered "
		"(delalloc: a 2-credit handle for a write starting past EOF)",
		"ext4_write_end, ext4_journalled_write_end, ext4_da_do_write_end, ext4_setattr, "
		"ext4_alloc_file_blocks", NULL, SEM(eof_zero_fs),
		.why = "A store through mmap past EOF lands in the page cache; without the zeroing, "
		"extending the file exposes it (fsx, generic/363).",
		.shown_by = "scenarios/patches/eof-zero-append-4k.yaml after-6.13" },
	[T_EOF_ZERO_DIRTY_FOLIO_MM] = {
		"eof_zero_dirty_folio_mm",
		"52aecaee1c26 mm: zero range of eof folio exposed by inode size extension",
		"6.13",
		"pagecache_isize_extended only write-protects the EOF folio",
		"it also zeroes [old size, min(new size, folio end)) of a dirty EOF folio "
		"(blocks smaller than pages only)",
		"pagecache_isize_extended", NULL, SEM(eof_zero_dirty_folio_mm),
		.why = "With blocks smaller than pages, the ext4 half zeroes only the rest of the old "
		"EOF block; the rest of a dirty EOF folio over holes needs the mm half (Debian "
		"6.12.117 has only the first).",
		.shown_by = "scenarios/patches/eof-zero-append-1k.yaml after-6.13" },
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
		SEM(punch_zero_refactor),
		.why = "Writing the punched range back served only data=journal (whose data must reach "
		"the journal before the page cache goes); elsewhere the range is about to be "
		"freed, so the writeback was wasted I/O, and it made the hole's neighbours "
		"durable as a side effect.",
		.shown_by = "scenarios/patches/punch-writeback.yaml before-6.14" },
	[T_DISKSIZE_BEFORE_PUNCH_PARTIAL] = {
		"disksize_before_punch_partial",
		"9d80eaa1a1d3 ext4: increase i_disksize to offset + len in "
		"ext4_update_disksize_before_punch()", "6.18",
		"i_disksize is raised to i_size before a punch or zero range only if the range "
		"reaches i_size",
		"raised to min(i_size, offset + len) whenever that exceeds i_disksize",
		"ext4_update_disksize_before_punch (ext4_punch_hole, ext4_zero_range)",
		NULL, SEM(disksize_before_punch_partial),
		.why = "A punch inside (i_disksize, i_size) left i_disksize low; a later mkwrite "
		"allocated a written block beyond it: e2fsck's \"end of extent exceeds allowed "
		"value\".",
		.shown_by = "scenarios/bugs/2025-punch-mkwrite-beyond-disksize.yaml after-6.18",
		.stable = "5.4 5.10" },
	[T_ZERO_ORDERED_WRITTEN_ONLY] = {
		"zero_ordered_written_only",
		"154922b34da9 ext4: don't order data when zeroing unwritten or delayed block",
		"7.0",
		"data=ordered: every zeroed partial block joins the transaction's ordered data",
		"only written blocks do (not delayed or unwritten ones)",
		"__ext4_block_zero_page_range", NULL, SEM(zero_ordered_written_only),
		.why = "Ordering the zeroing of a delayed or unwritten block makes the commit wait for "
		"data that cannot expose stale bytes.",
		.shown_by = "scenarios/patches/zero-ordered-written-only.yaml before-6.18" },
	[T_ZERO_ORDER_EOF_ONLY] = {
		"zero_order_eof_only",
		"69e2d5c1f544 ext4: move ordered data handling out of "
		"ext4_block_do_zero_range() (2026 series, 05/13)", "7.1",
		"data=ordered: every partial-block zeroing (EOF, punch and zero-range edges) "
		"is ordered",
		"only EOF zeroing (truncate, extension) is ordered; punch and zero-range edges "
		"reach the disk by writeback",
		"ext4_block_do_zero_range, ext4_block_zero_eof", NULL, SEM(zero_order_eof_only),
		.why = "Punch and zero-range edges are no longer ordered data: after a crash they may "
		"show the old bytes (nothing promised them to read zero; the model has no check "
		"for it); EOF zeroing stays ordered.",
		.shown_by = "scenarios/patches/zero-order-eof-only-crash.yaml before-7.0" },
	[T_ZERO_OUTSIDE_HANDLE] = {
		"zero_outside_handle",
		"d3609a71b777 + c4602a1d09ec ext4: remove handle parameters from / move zero "
		"partial block range functions out of active handle (2026 series, 06+08/13)",
		"7.1",
		"partial-block zeroing locks the folio under the operation's handle (truncate, "
		"grow, punch, zero range, fallocate)",
		"zeroing runs before the handle starts (data=journal: in a 1-credit handle of "
		"its own); EOF zeroing (ext4_block_zero_eof) orders a zeroed written block in "
		"a 1-credit handle of its own; fallocate zeroes the rest of the old EOF block "
		"once, before its first chunk (7.2.13)",
		"ext4_truncate, ext4_setattr, ext4_punch_hole, ext4_zero_range, "
		"ext4_alloc_file_blocks", NULL, SEM(zero_outside_handle),
		.why = "Zeroing locks folios; doing it under a handle inverts the folio-then-handle "
		"lock order of the rest of ext4.",
		.shown_by = "scenarios/patches/zero-outside-handle-ordered.yaml after-7.1" },
	[T_SYNC_PERSIST_ZERO] = {
		"sync_persist_zero",
		"7d81ec0246ff ext4: ensure zeroed partial blocks are persisted in SYNC mode "
		"(2026 series, 09/13)", "7.1",
		"a SYNC punch or zero range only makes its handle synchronous",
		"it also writes back and waits for the zeroed edge blocks",
		"ext4_punch_hole, ext4_zero_range", "as in 7.2.13's source: when an edge was "
		"zeroed, filemap_write_and_wait_range() of the whole range before the "
		"operation's handle, whose synchronous commit flushes the device",
		SEM(sync_persist_zero),
		.why = "Since patch 05 the zeroed edges are not ordered, so in SYNC mode they must be "
		"written back explicitly to read zero after a crash.",
		.shown_by = "scenarios/patches/sync-persist-zero-crash.yaml after-7.1" },
	[T_UNIFIED_SYNC_CHECK] = {
		"unified_sync_check",
		"c3688d212fc6 ext4: unify SYNC mode checks in fallocate paths (2026 series, "
		"10/13)", "7.1",
		"punch, collapse and insert test IS_SYNC(inode); zero range and allocation test "
		"the file's O_SYNC",
		"every fallocate mode tests (file->f_flags & O_SYNC) || IS_SYNC(inode) (7.2.13: "
		"ext4_punch_hole, ext4_zero_range, ext4_do_fallocate, ext4_collapse_range, "
		"ext4_insert_range)",
		"ext4_fallocate and its modes", "none: both an O_SYNC descriptor (open -s) and "
		"IS_SYNC (chattr +S) tell the rules apart", SEM(unified_sync_check),
		.why = "Zero range tested the file's O_SYNC while punch tested the inode's sync flag: "
		"under chattr +S a zero range was not synchronous.",
		.shown_by = "scenarios/patches/sync-persist-zero-crash.yaml after-7.1" },
	[T_ISIZE_EXT_OUTSIDE_HANDLE] = {
		"isize_ext_outside_handle",
		"1ad0f4282329 ext4: move pagecache_isize_extended() out of active handle "
		"(2026 series, 12/13)", "7.1",
		"fallocate raises the size and calls pagecache_isize_extended (folio lock) "
		"inside each chunk's handle",
		"the size is raised once, after the last chunk, in a 1-credit handle of its "
		"own; pagecache_isize_extended after that handle (7.2.13's "
		"ext4_alloc_file_blocks)",
		"ext4_alloc_file_blocks", "that the single size update came with this patch "
		"and not another of the series is not known (the merged code has both)",
		SEM(isize_ext_outside_handle),
		.why = "pagecache_isize_extended locks the EOF folio; inside the allocation handle "
		"that is a folio lock under a handle per extending fallocate (fio falloc "
		"write_iops +22.1% in the kernel test robot's report).",
		.shown_by = "scenarios/patches/isize-ext-outside-handle-falloc.yaml after-7.1" },
	[T_ZERO_EOF_IN_WRITE_CHECKS] = {
		"zero_eof_in_write_checks",
		"3f60efd65412 ext4: zero post-EOF partial block before appending write (2026 "
		"series, 13/13)", "7.1",
		"a write starting past EOF zeroes [old size, pos) in write_end, after the copy "
		"and the i_size update, under a handle (delalloc: a 2-credit handle of its own)",
		"ext4_write_checks zeroes it before the copy, with no handle; delalloc write_end "
		"starts a 1-credit handle only if i_disksize changed",
		"ext4_write_checks, ext4_write_end, ext4_da_do_write_end", "none: 7.2.13's "
		"ext4_block_zero_eof orders a zeroed written block in a 1-credit handle of its "
		"own, as the model does", SEM(zero_eof_in_write_checks),
		.why = "Zeroing the gap before the copy, with no handle, closes the window where an "
		"mmap store into the newly valid range could be wiped, and covers DAX; the "
		"delalloc write_end handle shrinks to 1 credit.",
		.shown_by = "scenarios/patches/eof-zero-append-4k.yaml after-7.1" },
	[T_JBD2_LOCKLESS_COMMITTED] = {
		"jbd2_lockless_committed",
		"7c73ddb7589f jbd2: speed up jbd2_transaction_committed()", "6.12",
		"jbd2_transaction_committed takes read_lock(&journal->j_state_lock)",
		"it compares j_commit_sequence with READ_ONCE, no lock",
		"jbd2_transaction_committed (ext4_inode_datasync_dirty)", "the release is read "
		"from the 6.11 merge window's changes and unconfirmed by tag",
		SEM(jbd2_lockless_committed),
		.why = "Every iomap lookup asked whether the inode's datasync transaction had "
		"committed, under the journal's state lock: contention for direct-I/O and DAX "
		"readers (stress-ng fiemap +565% in the kernel test robot's report).",
		.shown_by = "scenarios/patches/iomap-dirty-read-lookups.yaml before-6.6" },
	[T_PUNCH_END_EOF_BLOCK] = {
		"punch_end_eof_block",
		"unidentified: the rule of Debian's 7.2.13 source (fs/ext4/inode.c, "
		"ext4_punch_hole: \"set the hole to end after the block that contains "
		"i_size\"); 6.18.44 runs the older rule", "7.2",
		"a punch whose end passes i_size (end > i_size) ends at the end of the page "
		"holding i_size",
		"a punch whose end reaches i_size (end >= i_size) ends at the end of the block "
		"holding i_size: a punch ending exactly at an unaligned i_size frees the EOF "
		"block instead of zeroing it",
		"ext4_punch_hole", "the commit and its release are not known: the Debian "
		"source carries no mainline ids; the toggle is in the 7.2 profile because "
		"7.2.13 is the first kernel seen with it (6.17.13 and 6.18.44 behave as before)",
		SEM(punch_end_eof_block),
		.why = "Ending the hole at the block holding i_size, not the page, saves zeroing "
		"blocks past EOF; taking \">=\" frees the EOF block of a punch that ends "
		"at i_size instead of zeroing it, which since the 2026 series (edges not "
		"ordered) decides whether it reads zero after a commit and a crash.",
		.shown_by = "scenarios/zeroing/punch-to-eof-commit-crash.yaml k7.2" },
	[T_ORDERED_DATA_SHUTDOWN_CHECK] = {
		"ordered_data_shutdown_check",
		"unidentified: the shutdown test of ext4_do_writepages() (fs/ext4/inode.c, "
		"through ext4_emergency_state() in 7.2.13's source); 6.16.12 runs it, "
		"6.12.117 does not", "6.16",
		"only ext4_writepages() (the address-space operation) refuses to write after a "
		"shutdown; the commit's ordered-data writeback, which calls ext4_do_writepages() "
		"directly, still writes",
		"ext4_do_writepages() refuses too (EIO): after a shutdown a commit with ordered "
		"data to write fails and jbd2 aborts the journal",
		"ext4_do_writepages (ext4_normal_submit_inode_data_buffers)", "the commit and "
		"its release are not known; 6.16 is the first release seen with it (6.16.12). "
		"Seen only through shutdown -f (with logflush_commit_first off)",
		SEM(ordered_data_shutdown_check),
		.why = "Writeback after a shutdown must not reach the disk; testing the state "
		"where every writeback path passes covers the commit's data writeback too, "
		"and with it the log flush of a shutdown that set the flag first.",
		.shown_by = "scenarios/xfs_io/shutdown-logflush.yaml k6.17" },
	[T_LOGFLUSH_COMMIT_FIRST] = {
		"logflush_commit_first",
		"unidentified: the order of Debian's 7.2.13 source (fs/ext4/ioctl.c, "
		"ext4_force_shutdown: ext4_force_commit() before setting EXT4_FLAGS_SHUTDOWN); "
		"6.18.44 runs it, 6.17.13 the older order", "6.18",
		"shutdown with EXT4_GOING_FLAGS_LOGFLUSH sets the shutdown flag, then commits: "
		"with ordered_data_shutdown_check a commit with ordered data to write fails, "
		"the journal is aborted before the commit block, and the transaction is lost",
		"it commits first, ordered data written as at any commit, then sets the flag "
		"and aborts the journal",
		"ext4_force_shutdown", "the commit and its release are not known; 6.18 is the "
		"first release seen with it (on 6.18.44, which may carry it as a stable "
		"backport): the profiles before 6.18 are without it",
		SEM(logflush_commit_first),
		.why = "With the flag set first (and ordered_data_shutdown_check), the log flush "
		"that `shutdown -f` promises loses exactly the transactions that have ordered "
		"data: the commit's data writeback is refused and the journal aborted.",
		.shown_by = "scenarios/xfs_io/shutdown-logflush.yaml k6.17",
		.stable = "5.10" },
	[T_IOMAP_DIRTY_WRITE_ONLY] = {
		"iomap_dirty_write_only",
		"unmerged: Zhongwei Cai, ext4: remove unnecessary ext4_inode_datasync_dirty in "
		"read path (2021)", "never merged",
		"every iomap lookup (direct I/O and DAX reads and writes, reports) checks "
		"ext4_inode_datasync_dirty for IOMAP_F_DIRTY",
		"only write lookups do (rejected: swapon relies on the flag for reports)",
		"ext4_set_iomap (ext4_iomap_begin, ext4_iomap_begin_report)", "the model has "
		"direct-I/O reads (dio_read) only: no DAX, no swapon, no fiemap",
		SEM(iomap_dirty_write_only),
		.why = "Reads never use IOMAP_F_DIRTY, so the check (and its lock) is wasted on them "
		"(+141% for 4 KiB DAX reads at 16 threads in the patch mail); it was not merged "
		"because swapon's report lookups rely on the flag, and the lock went away by "
		"the change above instead.",
		.shown_by = "scenarios/patches/iomap-dirty-read-lookups.yaml before-6.6", .klass = TC_UNMERGED },
	[T_GET_BLOCK_UNWRITTEN_NEW] = {
		"get_block_unwritten_new",
		"2cd8bdb5efc1 ext4: mark buffer new if it is unwritten to avoid stale data "
		"exposure", "6.7",
		"ext4_get_block_unwritten maps a block of an existing unwritten extent as "
		"mapped and unwritten only: write_begin neither zeroes nor reads the parts of "
		"it the write does not cover, so they keep the folio's old bytes",
		"an unwritten buffer is also new: those parts are zeroed",
		"ext4_get_block_unwritten (ext4_write_begin and ext4_page_mkwrite with "
		"dioread_nolock, reached from delalloc through the low-space fallback, "
		"ext4_nonda_switch)", "the other half of the commit message (a BUG_ON in "
		"ext4_read_bh after a failed multi-block write_begin) is not modelled",
		SEM(get_block_unwritten_new),
		.why = "With dioread_nolock, a delalloc write near ENOSPC falls back to "
		"ext4_write_begin, which maps blocks with ext4_get_block_unwritten; a block of "
		"a preallocated (unwritten) extent came back neither new nor read, so a "
		"partial write left whatever the page held around it, and writeback wrote "
		"that to disk (generic/269 with dioread_nolock; fallocate 4k then pwrite 2k "
		"2k showed it at once).",
		.shown_by = "scenarios/bugs/f8-unwritten-buffer-new.yaml before-6.6" },
	[T_WB_SUBMIT_PARTIAL_FOLIO] = {
		"wb_submit_partial_folio",
		"ded2d726a304 ext4: fix stale data if it bail out of the extents mapping loop",
		"6.17",
		"when an allocation fails (ENOSPC with free clusters, ENOMEM) after the "
		"writeback mapping loop mapped an extent ending inside a folio, the loop "
		"bails out without submitting that folio and i_disksize stops before it; "
		"the extent is in the running transaction, which the ENOSPC retry commits",
		"the partly mapped folio's mapped buffers are submitted first, and i_disksize "
		"covers them",
		"mpage_map_and_submit_extent (mpage_submit_partial_folio), ext4_do_writepages",
		"ENOMEM, and ENOSPC from a real full file system, are not modelled: the model "
		"shows the path with an injected ENOSPC (inject enospc --after N)",
		SEM(wb_submit_partial_folio),
		.why = "With blocks smaller than the folio, the committed extent pointed at "
		"blocks whose data was never written: stale data after a crash, or a written "
		"extent past the on-disk size.  Found while making writeback of large folios "
		"restart its handle when credits run out (the same series).",
		.shown_by = "scenarios/bugs/f7-writeback-bailout-stale.yaml before-6.12" },
	[T_SHUTDOWN_IOCTL] = {
		"shutdown_ioctl",
		"783d94854499 ext4: add EXT4_IOC_GOINGDOWN ioctl", "4.11",
		"ext4 has no shutdown ioctl: xfs_io's `shutdown` (XFS_IOC_GOINGDOWN, the same "
		"number) fails with ENOTTY and the file system goes on as before",
		"EXT4_IOC_SHUTDOWN: the file system is shut down (with -f after a log flush); "
		"the model's `shutdown` step is then a crash",
		"ext4_ioctl, ext4_shutdown", "the release is the list's record (the ext4 pull "
		"of the 4.11 merge window); 4.9.337's fs/ext4 has no EXT4_IOC_SHUTDOWN, 4.14.280's "
		"has it", SEM(shutdown_ioctl),
		.why = "A way for tests to stop a file system as if the machine had lost power, "
		"as XFS_IOC_GOINGDOWN does for XFS; fstests' _scratch_shutdown uses it.  "
		"Before it, a scenario on ext4 needs a power cut (`crash`) to crash.",
		.shown_by = "scenarios/xfs_io/shutdown-enotty.yaml before-4.11" },
	[T_ORDERED_WRITEOUT_DO_WRITEPAGES] = {
		"ordered_writeout_do_writepages",
		"59205c8d4eae ext4: switch to using ext4_do_writepages() for ordered data "
		"writeout (Jan Kara's writeback series)", "6.2",
		"the commit's ordered-data writeout is jbd2's generic_writepages() over "
		"ext4_writepage(), which refuses after a shutdown (EIO): a commit with ordered "
		"data to write fails and jbd2 aborts the journal",
		"ext4_normal_submit_inode_data_buffers() calls ext4_do_writepages(), which has "
		"no shutdown test until ordered_data_shutdown_check (6.16)",
		"jbd2_journal_submit_inode_data_buffers, ext4_writepage, "
		"ext4_normal_submit_inode_data_buffers", "seen only through `shutdown -f`, as "
		"ordered_data_shutdown_check; the release is the list's record (the 6.2 merge "
		"window), unconfirmed by tag", SEM(ordered_writeout_do_writepages),
		.why = "Part of the series that stopped ext4 from providing .writepage: the "
		"commit writes ordered data with the file system's own writepages, which "
		"cannot allocate when called from the commit.  It dropped the shutdown test "
		"of ext4_writepage() from that path as a side effect, until 6.16 tested "
		"the shutdown in ext4_do_writepages() itself.",
		.shown_by = "scenarios/xfs_io/shutdown-logflush.yaml k6.12" },
	[T_COPY_FILE_RANGE_SYSCALL] = {
		"copy_file_range_syscall",
		"29732938a628 vfs: add copy_file_range syscall and vfs helper", "4.5",
		"there is no copy_file_range(2): xfs_io's copy_range fails with ENOSYS",
		"copy_file_range(2) within the file (do_splice_direct for ext4)",
		"vfs_copy_file_range", "the release is the list's record; 4.4.220's "
		"fs/read_write.c has no copy_file_range, 4.9.337's has it",
		SEM(copy_file_range_syscall),
		.why = "A system call to copy a range between (or within) files in the kernel, "
		"without a round trip through user memory.",
		.shown_by = "scenarios/xfs_io/old-syscalls.yaml k4.4" },
	[T_PWRITEV2_SYSCALL] = {
		"pwritev2_syscall",
		"f17d8b35452c vfs: vfs: Define new syscalls preadv2,pwritev2 (4.6), and "
		"e864f39569f4 fs: add RWF_DSYNC aand RWF_SYNC (4.7)", "4.7",
		"there is no pwritev2(2): xfs_io's `pwrite -V N -D` fails with ENOSYS (a plain "
		"`pwrite -V N`, pwritev(2), works)",
		"pwritev2(2) with RWF_DSYNC: the write is synced as by O_DSYNC",
		"vfs_writev, kiocb_set_rw_flags", "no profile lies between the two commits: on "
		"4.6 alone RWF_DSYNC was refused (EOPNOTSUPP); 4.4.220's fs/read_write.c has no "
		"pwritev2, 4.9.337's accepts RWF_HIPRI, RWF_DSYNC and RWF_SYNC",
		SEM(pwritev2_syscall),
		.why = "Per-call flags for vectored reads and writes; RWF_DSYNC makes one write "
		"synchronous without opening the file O_DSYNC.",
		.shown_by = "scenarios/xfs_io/old-syscalls.yaml k4.4" },
	[T_MADV_POPULATE] = {
		"madv_populate",
		"4ca9b3859dac mm/madvise: introduce MADV_POPULATE_(READ|WRITE) to prefault "
		"page tables", "5.14",
		"madvise(MADV_POPULATE_READ / _WRITE) is an unknown advice: EINVAL, nothing is "
		"faulted in (no ->page_mkwrite)",
		"the range is faulted in, for write through ->page_mkwrite (ext4_page_mkwrite)",
		"madvise_populate", "5.10's mm/madvise.c (5.10.0) has no MADV_POPULATE, 5.14.0's "
		"has it", SEM(madv_populate),
		.why = "Prefaulting a mapping (and for writes, allocating its blocks) without "
		"touching every page from user space.",
		.shown_by = "scenarios/xfs_io/old-syscalls.yaml k4.4" },
	[T_MAP_SHARED_VALIDATE] = {
		"map_shared_validate",
		"1c9725974074 mm: introduce MAP_SHARED_VALIDATE, a mechanism to safely define "
		"new mmap flags (with MAP_SYNC)", "4.15",
		"xfs_io's `mmap -S` (MAP_SHARED_VALIDATE | MAP_SYNC) is an unknown map type: "
		"EINVAL",
		"the flags are validated: MAP_SYNC on a file without DAX is EOPNOTSUPP "
		"(ext4_file_mmap)",
		"do_mmap, ext4_file_mmap", "4.14.280's mm/mmap.c has no MAP_SHARED_VALIDATE, "
		"4.15.0's has it; either way nothing is mapped", SEM(map_shared_validate),
		.why = "A way to add mmap flags that old kernels must refuse instead of "
		"ignoring; MAP_SYNC (DAX) was the first.",
		.shown_by = "scenarios/xfs_io/old-syscalls.yaml k4.4" },
	[T_FALLOC_DISKSIZE] = {
		"falloc_disksize",
		"51e3ae81ec58 ext4: fix interaction between i_size, fallocate, and delalloc "
		"after a crash", "4.15",
		"fallocate and zero range without KEEP_SIZE set a new size only when the range "
		"ends past i_size: one ending between i_disksize and i_size (delayed writes "
		"pending past i_disksize) leaves i_disksize where it was",
		"a range ending past i_disksize sets it too: i_disksize is raised to the "
		"range's end",
		"ext4_fallocate (ext4_do_fallocate since 6.14), ext4_zero_range",
		"alone it leaves nothing the checker flags: the blocks it allocates past the "
		"on-disk size are unwritten, which e2fsck accepts past EOF; they become a "
		"written extent past it only through the conversion's zeroout bounded by "
		"i_size (zeroout_disksize off), as in mainline 4.5 to 4.14, which had "
		"neither fix.  The commit message speaks of KEEP_SIZE; its diff changes the "
		"calls without it (the fsx of the time dropped the flag, 801674f34ecf's "
		"message says)", SEM(falloc_disksize),
		.why = "With delayed writes pending, i_disksize lags i_size; a preallocation or "
		"zero range ending between the two and committed before the writeback left its "
		"blocks past the size a crash recovers, and the writeback's zeroout then "
		"made them a written extent there (e2fsck: \"end of extent exceeds allowed "
		"value\"; fstests generic/456, found by random crash tests).",
		.shown_by = "scenarios/bugs/g456-falloc-disksize.yaml before-4.14",
		.stable = "4.4 4.9 4.14" },
	[T_ZEROOUT_DISKSIZE] = {
		"zeroout_disksize",
		"801674f34ecf ext4: do not zeroout extents beyond i_disksize", "5.7",
		"converting part of an unwritten extent to written zeroes out and converts the "
		"rest of it (up to s_extent_max_zeroout_kb) when the extent ends inside the "
		"EOF block of i_size or the mapped range: with delayed writes pending past "
		"i_disksize that makes a written extent past the on-disk size",
		"the bound is the EOF block of i_disksize or the mapped range's end",
		"ext4_ext_convert_to_initialized, ext4_split_convert_extents",
		"only ext4_ext_convert_to_initialized's zeroout of small extents (dioread_lock) "
		"is shown; the zeroout ext4_split_extent_at falls back to when the extent "
		"tree cannot take a split (ENOSPC, EDQUOT, ENOMEM), which is all that "
		"ext4_split_convert_extents (the dioread_nolock paths) has, is not modelled: "
		"the model's fixed extent area refuses the conversion with ENOSPC instead",
		SEM(zeroout_disksize),
		.why = "e2fsck cannot tell a written extent past the on-disk size from a corrupt "
		"size or extent tree (\"i_size is 147456, should be 163840\"): generic/456 with "
		"dioread_lock failed again once fsx passed KEEP_SIZE to zero range.",
		.shown_by = "scenarios/bugs/g456-zeroout-disksize.yaml before-5.4",
		.stable = "4.4 4.9 4.14 4.19 5.4" },
	[T_ORDERED_DELALLOC_ALLOC] = {
		"ordered_delalloc_alloc",
		"06bd3c36a733 ext4: fix data exposure after a crash", "4.7",
		"data=ordered: only ext4_write_end puts the inode on the transaction's ordered "
		"list (the whole file, at every nodelalloc write); blocks that delalloc "
		"writeback or a nodelalloc page fault allocate as written join no ordered "
		"list, so the commit attaching them may reach the disk before their data",
		"ext4_map_blocks orders every range it allocates or converts as written "
		"(data=ordered); ext4_write_end orders nothing itself",
		"ext4_map_blocks, ext4_write_end", "kernels without the ranged ordered list "
		"(4.4, 4.9) ordered the whole file in ext4_map_blocks; the model orders the "
		"allocated range (the commit writes the same blocks unless other dirty folios "
		"are mapped)",
		SEM(ordered_delalloc_alloc),
		.why = "f3b59291a69d had dropped the delalloc path's ordering: a commit could "
		"make freshly allocated written blocks part of the file while their data was "
		"still in flight, so a crash exposed the blocks' old contents (data=ordered; "
		"also a hole filled through mmap with nodelalloc).",
		.shown_by = "scenarios/bugs/2016-ordered-delalloc-stale.yaml before-4.4",
		.stable = "4.4" },
	[T_DISKSIZE_BEFORE_PUNCH] = {
		"disksize_before_punch",
		"011278485ecc ext4: fix races of writeback with punch hole and zero range",
		"4.5",
		"punch hole and zero range drop the range's page cache with i_disksize as it "
		"is: a delalloc tail dropped so never raises the on-disk size",
		"ext4_update_disksize_before_punch raises i_disksize to i_size first (in a "
		"1-credit handle) when the range reaches i_size",
		"ext4_update_disksize_before_punch (ext4_punch_hole, ext4_zero_range)", NULL,
		SEM(disksize_before_punch),
		.why = "With delalloc the on-disk size is raised at writeback; punching or "
		"zeroing the tail of a file discarded the folio whose writeback would have "
		"raised it, so an fsync after the punch left a short file after a crash.",
		.shown_by = "scenarios/bugs/2015-zero-range-eof-disksize.yaml before-4.4",
		.stable = "4.4" },
	[T_DIOREAD_NOLOCK_DEFAULT] = {
		"dioread_nolock_default",
		"244adf6426ee ext4: make dioread_nolock the default", "5.6",
		"a delalloc mount without the option writes back with dioread_lock: blocks "
		"are allocated written, before the I/O",
		"dioread_nolock is the default (page-sized blocks until e89fdcc425b6): "
		"writeback allocates unwritten extents, converted at I/O end",
		"ext4_fill_super (default mount options), ext4_should_dioread_nolock",
		"the model has no separate default: dioread_nolock: true means the kernel's "
		"default, so with this toggle off it mounts with dioread_lock (as "
		"dioread_nolock: false does); the option given explicitly is not modelled",
		SEM(dioread_nolock_default),
		.why = "Converting at I/O end fixes the direct I/O versus writeback race that "
		"could reveal stale data and shortens commits on slow devices (the commit's "
		"message); a crash between commit and I/O end leaves unwritten (zero) blocks "
		"instead of written ones whose data the commit waited for.",
		.shown_by = "scenarios/patches/dioread-nolock-default.yaml before-5.6" },
	[T_FDATASYNC_EXTENT_OPS] = {
		"fdatasync_extent_ops",
		"67a7d5f561f4 ext4: fix fdatasync(2) after extent manipulation operations "
		"(Jan Kara)", "4.12",
		"ext4_punch_hole, ext4_zero_range (its partial-block handle), "
		"ext4_collapse_range and ext4_insert_range stop their handle without "
		"ext4_update_inode_fsync_trans(handle, inode, 1): i_datasync_tid moves only "
		"where ext4_mark_inode_dirty saw i_disksize change, so fdatasync after a "
		"punch waits for an older transaction and a crash brings the punched data back",
		"each of the four records its transaction in i_sync_tid and i_datasync_tid",
		"ext4_punch_hole, ext4_zero_range, ext4_collapse_range, ext4_insert_range",
		"collapse and insert always change i_disksize, so ext4_mark_inode_dirty "
		"already made fdatasync wait for them (as in the kernel): the toggle shows on "
		"punch and zero range only", SEM(fdatasync_extent_ops),
		.why = "fdatasync(2) must persist a punch hole, a zeroed range or an extent shift "
		"like any other change of the file's data; the operations did not say that the "
		"file's data had changed, so fdatasync found nothing to commit (generic/392; "
		"Fixes: a4bb6b64e39a, the punch-hole support).",
		.shown_by = "scenarios/bugs/2017-fdatasync-after-punch.yaml after-4.14",
		.stable = "4.4 4.9" },
	[T_FDATASYNC_FALLOCATE] = {
		"fdatasync_fallocate",
		"c894aa97577e ext4: fix fdatasync(2) after fallocate(2) operation (Eryu Guan)",
		"4.15",
		"ext4_alloc_file_blocks stops each chunk's handle without "
		"ext4_update_inode_fsync_trans(handle, inode, 1); ext4_ext_map_blocks records "
		"an unwritten allocation in i_sync_tid only, so fdatasync after a fallocate "
		"that does not change i_disksize (KEEP_SIZE, or inside the size) waits for an "
		"older transaction and a crash loses the allocated blocks",
		"every chunk that mapped blocks records its transaction in i_datasync_tid too",
		"ext4_alloc_file_blocks (fallocate modes 0 and KEEP_SIZE, zero range's "
		"preallocation)", NULL, SEM(fdatasync_fallocate),
		.why = "fallocate with KEEP_SIZE, fdatasync, crash: the blocks allocated beyond "
		"EOF were all lost (stat -c %b; fstests generic/468, CrashMonkey's generic_468 "
		"on 4.4); 67a7d5f561f4 had fixed the other extent operations but not "
		"fallocate.",
		.shown_by = "scenarios/bugs/2017-fdatasync-after-falloc.yaml after-4.19",
		.stable = "4.4 4.9 4.14" },
	[T_INSERT_SHIFT_START_BLOCK] = {
		"insert_shift_start_block",
		"14d981f468a1 ext4: Include forgotten start block on fallocate insert range",
		"4.10",
		"insert range's right shift walks the extent tree's leaves from the last one "
		"back and goes on to the leaf before while start < (the walked leaf's first "
		"block - 1): a one-block extent at the insert offset that ends a leaf, the "
		"next leaf starting right after it, is never shifted, so the hole opens one "
		"block late and the block keeps its old offset",
		"the walk goes on while start <= that block (and stops at block 0): every "
		"extent from the offset on is shifted",
		"ext4_ext_shift_extents (ext4_insert_range)",
		"the leaves are the file's extent blocks, split where ext4_ext_split puts the "
		"border (84 extents a leaf at 1 KiB blocks, 340 at 4 KiB; whether generic/404's "
		"498 inserts at one offset reach the same boundaries as a real kernel's is not "
		"checked); the skipped block stays merged with the rest of the "
		"extent split at the offset (two extents in the kernel); the extent-cache "
		"pollution of the same walk (2b3864b32403) is not modelled",
		SEM(insert_shift_start_block),
		.why = "Insert range moved every extent from the offset on except, when the "
		"extent tree had more than one leaf, a single-block extent at the offset ending "
		"a leaf: the hole appeared one block after the offset, reads there returned "
		"the old block, and a write to the offset overwrote it (generic/404).",
		.shown_by = "scenarios/bugs/2017-insert-range-start-block.yaml after-4.4.302",
		.stable = "4.4 4.9" },
	[T_JDATA_WRITE_END_COPIED] = {
		"jdata_write_end_copied",
		"3b136499e906 ext4: fix data corruption in data=journal mode", "4.12",
		"data=journal, a short copy: ext4_journalled_write_end journals and marks "
		"uptodate every mapped buffer of the write's range [from, to), also those the "
		"copy did not reach (a short copy into a folio that is not uptodate counts as 0 "
		"bytes); a buffer the write covered whole was not read, so its stale folio "
		"bytes go to the log and stay in the page cache as uptodate",
		"only the buffers of [from, from + copied) are journalled: with nothing copied, "
		"none, and the retry reads the block first",
		"ext4_journalled_write_end", "the folio's stale bytes are the model's fresh-folio "
		"fill (0xee), not what a reused page held; the companion b90197b65518 (the zeroed "
		"new buffers journalled instead of dirtied, whose dirty bit tripped a jbd2 "
		"assertion at commit) is in both sides", SEM(jdata_write_end_copied),
		.why = "In data=journal a write whose user buffer faulted part-way journalled the "
		"whole range it was asked to write, so blocks the write would have overwritten "
		"whole, never read from disk, reached the journal and then their home with "
		"whatever the page held: data corruption, in the page cache at once and on disk "
		"after the commit.",
		.shown_by = "scenarios/bugs/2017-jdata-short-copy.yaml after-4.4.302",
		.stable = "4.4 4.9" },
	[T_FSYNC_NONREG_FORCE_COMMIT] = {
		"fsync_nonreg_force_commit",
		"1077b2d53ef5 ext4: fix fsync for non-directories", "6.4",
		"with the data=journal case of ext4_sync_file gone (e360c6ed7274, in "
		"jdata_dirty_folio), fsync and fdatasync of a directory or a symlink commit "
		"its own i_sync_tid or i_datasync_tid: a directory's i_datasync_tid does not "
		"move when an entry is added, so fdatasync of the directory commits nothing",
		"ext4_fsync_journal forces a full commit (ext4_force_commit) for a file that "
		"is not regular",
		"ext4_fsync_journal (ext4_sync_file)", "no released kernel runs the rule "
		"before: e360c6ed7274 and the fix both reached 6.4 (the fix in 6.4-rc6); the "
		"toggle matters only with jdata_dirty_folio on, whose table entry says 6.5.  "
		"The report was about fast commit, which the model has not: without it the "
		"rule before differs for fdatasync, and for a directory whose last change "
		"has already committed", SEM(fsync_nonreg_force_commit),
		.why = "The fast-commit code does not track the metadata of non-regular files, "
		"so once ext4_sync_file stopped treating them as journalled data, fsync of a "
		"directory no longer committed its changes (generic/065 and generic/535 with "
		"fast commit, Eric Whitney); the old branch had forced a full commit for them.",
		.shown_by = "scenarios/bugs/2023-fdatasync-dir-entries.yaml before-fix" },
	[T_DIO_IOMAP] = {
		"dio_iomap",
		"378f32bab371 ext4: introduce direct I/O write using iomap infrastructure",
		"5.5",
		"ext4_direct_IO_write (__blockdev_direct_IO): the orphan added only for a write "
		"ending past i_size (past i_disksize too with dio_disksize_inside_isize), the "
		"sizes raised and the orphan removed in one handle after the I/O, and "
		"generic_write_sync() run by ext4_file_write_iter after all of it; data=journal "
		"falls back to a buffered write written back and invalidated",
		"ext4_dio_write_iter over iomap_dio_rw: ext4_dio_write_checks (an extending "
		"write is one past i_size or i_disksize), the orphan added first, the sizes "
		"raised by ext4_handle_inode_extension (after iomap_dio_rw before "
		"dio_extension_in_end_io, in ext4_dio_write_end_io after), generic_write_sync() "
		"inside iomap_dio_complete()",
		"ext4_file_write_iter, ext4_direct_IO_write / ext4_dio_write_iter, "
		"ext4_dio_write_end_io", "the block-map rules of the old path (written blocks "
		"at or past i_size, unwritten ones inside it: ext4_dio_get_block and "
		"ext4_dio_get_block_unwritten_sync) are the same as ext4_iomap_alloc's and are "
		"modelled by it; DIO_SKIP_HOLES and the asynchronous old path are not",
		SEM(dio_iomap),
		.why = "The direct-I/O write path moved from the buffer-head direct I/O code to "
		"iomap, as XFS had; the inode extension and orphan handling moved out of the "
		"get_block callbacks into ext4_dio_write_iter.",
		.shown_by = "scenarios/dio/extend-dsync.yaml iomap-6.6" },
	[T_DIO_DISKSIZE_INSIDE_ISIZE] = {
		"dio_disksize_inside_isize",
		"45d8ec4d9fd5 ext4: update disksize with direct IO", "4.16",
		"ext4_direct_IO_write adds the orphan and raises the size only for a write "
		"ending past i_size: one inside i_size but past i_disksize (after a delayed "
		"buffered append) leaves i_disksize where it was, so its blocks, written and "
		"converted, lie past the on-disk size",
		"also for a write ending past i_disksize: the orphan added, i_disksize raised "
		"to the write's end after the I/O (i_size only when it grows)",
		"ext4_direct_IO_write", "only the path before dio_iomap reads it: the iomap "
		"path's ext4_extending_io has both tests from the start",
		SEM(dio_disksize_inside_isize),
		.why = "A direct write below a buffered append's i_size returned, even with "
		"O_SYNC, with i_disksize below its end: after a crash the file was shorter "
		"than the synced write (CrashMonkey's generic_ext4_direct_write).",
		.shown_by = "scenarios/bugs/2018-dio-disksize-inside-isize.yaml after-4.19" },
	[T_DIO_EXTENSION_IN_END_IO] = {
		"dio_extension_in_end_io",
		"91562895f803 ext4: properly sync file size update after O_SYNC direct IO",
		"6.7",
		"iomap_dio_complete() runs generic_write_sync() before ext4_dio_write_iter "
		"calls ext4_handle_inode_extension(): an extending O_SYNC or RWF_DSYNC direct "
		"write commits the orphan and the blocks, then raises i_disksize in a "
		"transaction nothing commits",
		"ext4_dio_write_end_io calls ext4_handle_inode_extension() (i_disksize raised, "
		"orphan removed) before iomap_dio_complete() syncs; ext4_dio_write_iter only "
		"cleans up (ext4_inode_extension_cleanup)",
		"ext4_dio_write_end_io, ext4_handle_inode_extension, ext4_dio_write_iter",
		"ext4_dio_write_end_io raising i_size before the sync (5.14 to 6.6) is kept, "
		"5.10.0's end_io, which left i_size to ext4_handle_inode_extension too, is not "
		"told apart: the step's end is the same", SEM(dio_extension_in_end_io),
		.why = "An extending O_SYNC direct write returned before its new size was "
		"durable; after a power cut the orphan cleanup truncated the file back "
		"(fstests generic/737, Gao Xiang's report).",
		.shown_by = "scenarios/bugs/2023-dio-osync-size.yaml after-6.12",
		.stable = "5.10" },
	[T_DIO_READ_IOMAP] = {
		"dio_read_iomap",
		"b1b4705d54ab ext4: introduce direct I/O read using iomap infrastructure",
		"5.5",
		"generic_file_read_iter with IOCB_DIRECT: the page cache over the range "
		"written back and waited for (filemap_write_and_wait_range), then "
		"ext4_direct_IO, which refuses journalled data (returns 0), so a data=journal "
		"file is read buffered after that writeback",
		"ext4_dio_read_iter: a data=journal file (ext4_dio_supported false) is read "
		"by generic_file_read_iter with IOCB_DIRECT cleared: no writeback at all, a "
		"buffered read; other files by iomap_dio_rw, which writes back first as before",
		"ext4_file_read_iter, ext4_dio_read_iter (ext4_direct_IO before)",
		"both sides of the other modes are the same read (written back, then the "
		"blocks from the device) and are modelled once; the alignment is not checked "
		"for a data=journal file on either side (the refusal comes first)",
		SEM(dio_read_iomap),
		.why = "The direct-I/O read path moved from the buffer-head direct I/O code "
		"to iomap with the write path; its fall-back to buffered I/O moved before "
		"the writeback that generic_file_read_iter does for a direct read.",
		.shown_by = "scenarios/dio/journal-dio-read.yaml iomap-6.18" },
	[T_DIO_UNALIGNED_AIO_EOF_BLOCK] = {
		"dio_unaligned_aio_eof_block",
		"372a03e01853 ext4: fix data corruption caused by unaligned direct AIO", "5.1",
		"ext4_unaligned_aio counts an AIO starting at or past i_size as aligned, so it "
		"is not serialized (ext4_unwritten_wait): with i_size inside a block, an "
		"unaligned AIO past it shares that block with an earlier one still in flight, "
		"both see it unwritten and each zeroes the other's part of it",
		"an AIO starting below i_size rounded up to the block is serialized as well: "
		"it waits until no unwritten conversion of the inode is pending, so the block "
		"it shares is written and converted first",
		"ext4_unaligned_aio (ext4_file_write_iter)", "only the path before dio_iomap "
		"reads it: ext4_dio_write_iter waits for every direct I/O before an unaligned "
		"one (inode_dio_wait); the model's bio of a sub-block write into a written block "
		"waits for an earlier AIO's bio to that block (the kernel's bio carries only "
		"its sectors), so only the zeroing of unwritten blocks races",
		SEM(dio_unaligned_aio_eof_block),
		.why = "Two unaligned direct AIOs into one unwritten block each zero the part of "
		"the block they do not write; ext4 serialized them, but not when the second "
		"started past i_size, though a block-unaligned i_size leaves the block they "
		"share behind it (fstests generic/538).",
		.shown_by = "scenarios/bugs/2019-unaligned-aio-past-isize.yaml after-4.4.302",
		.stable = "4.4 4.9 4.14 4.19" },
	[T_DIO_UNALIGNED_AIO_WAIT] = {
		"dio_unaligned_aio_wait",
		"57a0da28ced8 ext4: fix data corruption caused by overlapping unaligned and "
		"aligned IO", "5.2",
		"an unaligned AIO returns -EIOCBQUEUED with its bios in flight: a later "
		"aligned write (which nothing serializes) into a block it is zeroing can "
		"complete first and be overwritten by the zeroed block",
		"after queueing an unaligned AIO, ext4_file_write_iter waits (ext4_unwritten_wait) "
		"until its unwritten conversion is done, so it is the only direct I/O in "
		"flight into unwritten blocks",
		"ext4_file_write_iter", "only the path before dio_iomap reads it (the iomap "
		"path waits for an unaligned write, IOMAP_DIO_FORCE_WAIT); the model completes "
		"bios in submission order and a crash loses those in flight, so the race shows "
		"only against a synchronous write that completes before the AIO",
		SEM(dio_unaligned_aio_wait),
		.why = "An unaligned AIO into a hole zeroes the rest of its block; an aligned "
		"write of that block issued while the AIO was in flight could land first and "
		"lose its data to the zeros (Lukas Czerner, after generic/538).",
		.shown_by = "scenarios/bugs/2019-unaligned-aio-aligned-overlap.yaml after-5.4",
		.stable = "4.9 4.14 4.19" },
	[T_RENAME_FLUSH_DATA] = {
		"rename_flush_data",
		"unmerged: Ye Bin, ext4: ensure data forced to disk when rename (2022)",
		"never merged",
		"auto_da_alloc's rename half (ext4_alloc_da_blocks) only starts the writeback "
		"of the moved file's delayed blocks: with dioread_nolock they are allocated "
		"unwritten and converted when their write completes, in a later transaction "
		"than the rename's",
		"ext4_flush_data: after starting the writeback, with delalloc and "
		"dioread_nolock and an unwritten conversion pending, wait for the writes "
		"(filemap_fdatawait), so that the conversion joins the rename's transaction",
		"ext4_rename (ext4_alloc_da_blocks, ext4_flush_data)", "the patch tests "
		"i_unwritten (the inode's pending conversions); the model's io_ends are not "
		"per inode, so it waits when any unwritten conversion is pending, and for "
		"every write in flight over the file's page range", SEM(rename_flush_data),
		.why = "Replacing a file by renaming a new one over it, without fsync, "
		"could leave the new name of the new size reading zeros after a crash, "
		"since dioread_nolock became the default (5.6): the rename commits with the "
		"unwritten extent before the write's conversion.  Rejected (Jan Kara): "
		"ext4 never promised the data before the rename, auto_da_alloc only shortens "
		"the window, and waiting would slow down rename-heavy workloads.",
		.shown_by = "scenarios/bugs/2022-rename-dioread-nolock-zeros.yaml before-flush-data",
		.klass = TC_UNMERGED },
};

/* A profile's own toggles, ended by T_COUNT. */
#define ON(...) ((const enum ext4_toggle_id[]){ __VA_ARGS__, T_COUNT })
#define NONE ON(T_COUNT)

/* The first entry is the default.  A profile has its base's toggles and its own. */
static const struct ext4_profile profiles[] = {
	{ "6.18", "mainline 6.18: the 2025 punch-size fix, the writeback bail-out fix (6.17) "
	  "and the log flush committing first", "6.13",
	  ON(T_PUNCH_ZERO_REFACTOR, T_DISKSIZE_BEFORE_PUNCH_PARTIAL, T_WB_SUBMIT_PARTIAL_FOLIO,
	     T_ORDERED_DATA_SHUTDOWN_CHECK, T_LOGFLUSH_COMMIT_FIRST), NULL, false },
	{ "4.4", "mainline 4.4.0", NULL, NONE, .series = "4.4" },
	{ "4.9", "mainline 4.9.0", NULL, NONE, .series = "4.9" },
	{ "4.14", "mainline 4.14.0", NULL, NONE, .series = "4.14" },
	{ "4.19", "mainline 4.19.0", NULL, NONE, .series = "4.19" },
	{ "5.4", "mainline 5.4.0", NULL, NONE, .series = "5.4" },
	{ "5.10", "mainline 5.10.0", NULL, NONE, .series = "5.10" },
	{ "5.14", "mainline 5.14, before the 2021 delalloc series", NULL, NONE, .series = "5.14" },
	{ "5.15", "mainline 5.15: the 2021 delalloc series", "5.14",
	  ON(T_DA_DISKSIZE_VS_ISIZE, T_DA_WRITE_NO_HANDLE), NULL, false },
	{ "6.1", "mainline 6.1.0", "5.15", NONE, NULL, false },
	{ "6.4", "mainline 6.4: the short-copy fix, the ordered-data writeout through "
	  "ext4_do_writepages (6.2), fsync of a non-regular file a full commit", "6.1",
	  ON(T_SHORT_COPY_ZERO, T_ORDERED_WRITEOUT_DO_WRITEPAGES, T_FSYNC_NONREG_FORCE_COMMIT),
	  NULL, false },
	{ "6.6", "mainline 6.6: the data=journal rework (6.5) and the delalloc append handle "
	  "only if i_disksize changed", "6.4", ON(T_JDATA_DIRTY_FOLIO, T_DA_END_SKIP_DIRTY), NULL, false },
	{ "6.12", "mainline 6.12.0: jbd2_transaction_committed without the lock, an "
	  "unwritten buffer marked new and the direct-I/O size synced (6.7)", "6.6",
	  ON(T_DIOREAD_NOLOCK_SUBPAGE, T_JBD2_LOCKLESS_COMMITTED, T_GET_BLOCK_UNWRITTEN_NEW,
	     T_DIO_EXTENSION_IN_END_IO),
	  NULL, false },
	{ "6.13", "mainline 6.13: both halves of the EOF zeroing on extension", "6.12",
	  ON(T_EOF_ZERO_FS, T_EOF_ZERO_DIRTY_FOLIO_MM), NULL, false },
	{ "7.0", "mainline 7.0: ordered zeroing of written blocks only", "6.18",
	  ON(T_ZERO_ORDERED_WRITTEN_ONLY), NULL, false },
	{ "7.1", "mainline 7.1: the 2026 partial-block zeroing series (patches 05, 06+08, "
	  "09, 10, 12, 13)", "7.0",
	  ON(T_ZERO_ORDER_EOF_ONLY, T_ZERO_OUTSIDE_HANDLE, T_SYNC_PERSIST_ZERO,
	     T_UNIFIED_SYNC_CHECK, T_ISIZE_EXT_OUTSIDE_HANDLE, T_ZERO_EOF_IN_WRITE_CHECKS), NULL, false },
	{ "7.2", "mainline 7.2: a punch reaching i_size ends at the block holding it",
	  "7.1", ON(T_PUNCH_END_EOF_BLOCK), NULL, false },
	{ "4.4.302", "4.4.302, the last 4.4 stable release: 4.4 with the fixes backported to "
	  "the series (read in 4.4.220)", NULL, NONE, .series = "4.4", .backports = true },
	{ "4.9.337", "4.9.337, the last 4.9 stable release: 4.9 with the fixes backported to "
	  "the series", NULL, NONE, .series = "4.9", .backports = true },
	{ "4.14.336", "4.14.336, the last 4.14 stable release: 4.14 with the fixes backported "
	  "to the series (read in 4.14.280)", NULL, NONE, .series = "4.14", .backports = true },
	{ "4.19.325", "4.19.325, the last 4.19 stable release: 4.19 with the fixes backported "
	  "to the series (read in 4.19.255)", NULL, NONE, .series = "4.19", .backports = true },
	{ "5.4.302", "5.4.302, the last 5.4 stable release: 5.4 with the fixes backported to "
	  "the series (read in 5.4.286)", NULL, NONE, .series = "5.4", .backports = true },
	{ "debian-5.10.262", "Debian 11's 5.10.262: 5.10 with the fixes backported to the "
	  "series", NULL, NONE, .series = "5.10", .backports = true },
	{ "debian-6.1.192", "Debian 12's 6.1.192: 6.1 with the short-copy, unwritten-buffer, "
	  "punch-size, log-flush and direct-I/O size-sync backports", "6.1",
	  ON(T_SHORT_COPY_ZERO, T_DISKSIZE_BEFORE_PUNCH_PARTIAL, T_GET_BLOCK_UNWRITTEN_NEW,
	     T_LOGFLUSH_COMMIT_FIRST, T_DIO_EXTENSION_IN_END_IO), NULL, false },
	{ "debian-6.12.117", "Debian 12's 6.12.117 (backports): the ext4 half of the 6.13 EOF "
	  "zeroing without the mm half, the 6.14 fallocate cleanup and the punch-size fix",
	  "6.12", ON(T_EOF_ZERO_FS, T_PUNCH_ZERO_REFACTOR, T_DISKSIZE_BEFORE_PUNCH_PARTIAL), NULL, false },
	{ "debian-6.16.12", "Debian trixie-backports' 6.16.12: the 6.14 fallocate cleanup, "
	  "the punch-size fix (stable backport), the writeback bail-out fix (Debian's "
	  "6.16.3), the shutdown test in the commit's data writeback without the log flush "
	  "committing first", "6.13",
	  ON(T_PUNCH_ZERO_REFACTOR, T_DISKSIZE_BEFORE_PUNCH_PARTIAL, T_WB_SUBMIT_PARTIAL_FOLIO,
	     T_ORDERED_DATA_SHUTDOWN_CHECK), NULL, false },
	{ "debian-6.17.13", "Debian trixie-backports' 6.17.13: as 6.16.12", "debian-6.16.12",
	  NONE, NULL, false },
	{ "debian-7.2.13", "Debian sid's 7.2.13", "7.2", NONE, NULL, false },
};

#define NR_PROFILES (sizeof(profiles) / sizeof(profiles[0]))

const char *const ext4_not_modelled[] = {
	"55ce2f649b9e + 6984aef59814 (5.15) the inline-data write_end error path: the model "
	"has no inline data",
	"c33fbe8f673f + c8cc88163f40 (5.5) dioread_nolock given explicitly with blocks "
	"smaller than the page: refused at mount before (EINVAL, \"can't mount with "
	"dioread_nolock if block size != PAGE_SIZE\"), used with a warning after; the model "
	"has no explicitly given option (dioread_nolock: true is the default mount)",
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

int ext4_profile_version(const struct ext4_profile *p)
{
	return ext4_release_version(p->name);
}

unsigned ext4_profile_mainline(const struct ext4_profile **out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < NR_PROFILES; i++) {
		unsigned k = n++;

		if (ext4_profile_version(&profiles[i]) < 0) {
			n--;
			continue;
		}
		for (; k > 0 && ext4_profile_version(out[k - 1]) > ext4_profile_version(&profiles[i]);
		     k--)
			out[k] = out[k - 1];
		out[k] = &profiles[i];
	}
	return n;
}

int ext4_release_version(const char *release)
{
	unsigned major, minor;
	char end;

	if (!release || sscanf(release, "%u.%u%c", &major, &minor, &end) != 2)
		return -1;
	return (int)(major * 100 + minor);
}

/* Does @list (space-separated series, or NULL) name @series? */
static bool series_listed(const char *list, const char *series)
{
	size_t n = strlen(series);

	for (const char *s = list; s && *s; s += strspn(s, " ")) {
		size_t w = strcspn(s, " ");

		if (w == n && memcmp(s, series, n) == 0)
			return true;
		s += w;
	}
	return false;
}

/*
 * Does the profile of @series have upstream toggle @t: merged at or before
 * the series' x.y.0, or (@backports) backported to its last stable release?
 */
static bool series_has(const char *series, bool backports, unsigned t)
{
	const struct ext4_toggle *tg;
	int rel;

	if (t >= T_COUNT)
		return false;
	tg = &toggles[t];
	if (tg->klass != TC_MAINLINE)
		return false;
	rel = ext4_release_version(tg->release);
	SIM_ASSERT(ext4_release_version(series) > 0);
	return (rel > 0 && rel <= ext4_release_version(series)) ||
	       (backports && series_listed(tg->stable, series));
}

bool ext4_profile_has(const struct ext4_profile *p, unsigned t)
{
	for (unsigned depth = 0; p; depth++) {
		SIM_ASSERT(depth < NR_PROFILES);        /* no cycle of bases */
		if (p->series && series_has(p->series, p->backports, t))
			return true;
		for (const enum ext4_toggle_id *id = p->on; *id != T_COUNT; id++)
			if ((unsigned)*id == t)
				return true;
		p = p->base ? ext4_profile_find(p->base) : NULL;
	}
	return false;
}

unsigned ext4_toggle_count(void)
{
	return T_COUNT + ext4_experimental_count();
}

const struct ext4_toggle *ext4_toggle_at(unsigned i)
{
	SIM_ASSERT(i < ext4_toggle_count());
	return i < T_COUNT ? &toggles[i] : ext4_experimental_at(i - T_COUNT);
}

const struct ext4_toggle *ext4_toggle_find(const char *name)
{
	for (unsigned i = 0; i < ext4_toggle_count(); i++)
		if (strcmp(ext4_toggle_at(i)->name, name) == 0)
			return ext4_toggle_at(i);
	return NULL;
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
	for (unsigned i = 0; i < ext4_toggle_count(); i++)
		ext4_toggle_set(sem, ext4_toggle_at(i), ext4_profile_has(p, i));
}
