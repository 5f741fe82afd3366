/*
 * writepages.c - delalloc writeback: the writeback half of fs/ext4/inode.c
 * (ext4_writepages, ext4_do_writepages, mpage_prepare_extent_to_map,
 * mpage_process_page_bufs, mpage_add_bh_to_extent, mpage_map_one_extent,
 * mpage_map_and_submit_buffers, mpage_map_and_submit_extent), 6.18.
 *
 * A first pass with no handle submits the folios whose dirty buffers are
 * all mapped and written; it stops at the first buffer that needs mapping
 * (delayed or unwritten).  Then each pass starts a handle, collects one
 * extent of such buffers (contiguous, across folios), allocates it
 * (unwritten with dioread_nolock), submits its folios, and raises
 * i_disksize to the end of the last submitted folio (capped at i_size) in
 * the same handle.  Called from jbd2 commit with can_map == false, it only
 * submits what is already mapped.
 *
 * An allocation that fails after the mapping loop made progress (an extent
 * was mapped, its last folio only partly) bails out to the i_disksize
 * update; since ded2d726a304 (6.17, wb_submit_partial_folio) the partly
 * mapped folio is submitted first, before it the folio was left unwritten
 * while its blocks' extent went into the handle.  ext4_do_writepages()
 * then forces a commit and retries an ENOSPC.  The model's ENOSPCs other
 * than an injected one (the fixed extent area; no free block at all) end
 * writeback with the error instead: the kernel has no such extent limit,
 * and with no free cluster it gives the pages up ("Data will be lost").
 */
#include "ext4.h"

#define MAX_WRITEPAGES_EXTENT_LEN 2048u

struct mpage_da_data {
	struct ext4_fs *fs;
	uint64_t first_page;            /* next folio to submit */
	int64_t partial_pos;            /* a partly mapped folio submitted up to here, or -1 */
	uint64_t next_page;             /* folio after the last one scanned */
	uint64_t last_page;             /* end of the range */
	struct ext4_map_blocks map;     /* extent being collected */
	enum wb_sync_mode sync_mode;
	bool can_map;
	bool do_map;
	bool scanned_until_end;
	uint32_t io_end;
};

/* mpage_submit_folio(): sample i_size, write the folio. */
static int mpage_submit_folio(struct mpage_da_data *mpd, struct folio *f)
{
	struct ext4_fs *fs = mpd->fs;
	int64_t size = fs->inode->i_size, fpos = (int64_t)f->index << PAGE_SHIFT;
	uint32_t len = PAGE_SIZE;

	SIM_ASSERT(f->index == mpd->first_page);
	folio_clear_dirty_for_io(f);     /* which write-protects the mapping too */
	if (fpos + (int64_t)len > size)
		len = (uint32_t)(size & (PAGE_SIZE - 1));
	return ext4_bio_write_folio(fs, f, len, mpd->io_end);
}

static void mpage_folio_done(struct mpage_da_data *mpd, struct folio *f)
{
	mpd->first_page = f->index + 1;
}

#define BH_FLAGS (BH_Unwritten | BH_Delay)

/* mpage_add_bh_to_extent(): false when this buffer cannot join the extent. */
static bool mpage_add_bh_to_extent(struct mpage_da_data *mpd, uint32_t lblk,
				   const struct buffer_head *bh)
{
	struct ext4_map_blocks *map = &mpd->map;

	if (!(bh->b_state & BH_Dirty) || !(bh->b_state & BH_Mapped) ||
	    !(bh->b_state & BH_FLAGS))
		return map->m_len == 0;         /* write it right away if no extent */
	if (map->m_len == 0) {
		if (!mpd->do_map)
			return false;
		map->m_lblk = lblk;
		map->m_len = 1;
		map->m_flags = bh->b_state & BH_FLAGS;
		return true;
	}
	if (map->m_len >= MAX_WRITEPAGES_EXTENT_LEN)
		return false;
	if (lblk == map->m_lblk + map->m_len && (bh->b_state & BH_FLAGS) == map->m_flags) {
		map->m_len++;
		return true;
	}
	return false;
}

/*
 * mpage_process_page_bufs(): add the folio's buffers from @first on; submit
 * the folio when nothing needs mapping.  Returns 1 to continue scanning,
 * 0 to stop, or an error.
 */
static int mpage_process_page_bufs(struct mpage_da_data *mpd, struct folio *f, unsigned first)
{
	struct ext4_fs *fs = mpd->fs;
	uint32_t bs = fs->opts.block_size;
	uint64_t blocks = ((uint64_t)fs->inode->i_size + bs - 1) >> ext4_blkbits(fs);
	uint32_t lblk = (uint32_t)((f->index << PAGE_SHIFT) >> ext4_blkbits(fs)) + first;
	unsigned n = folio_nr_buffers(&fs->inode->i_mapping), i;
	int err;

	for (i = first; i < n; i++, lblk++) {
		if (lblk >= blocks || !mpage_add_bh_to_extent(mpd, lblk, &f->bh[i])) {
			if (mpd->map.m_len || !mpd->do_map)
				return 0;
			break;
		}
	}
	if (mpd->map.m_len == 0) {
		if ((err = mpage_submit_folio(mpd, f)) < 0)
			return err;
		mpage_folio_done(mpd, f);
	}
	if (lblk >= blocks) {
		mpd->scanned_until_end = true;
		return 0;
	}
	return 1;
}

/* Wait for writeback of one folio (folio_wait_writeback). */
static void wait_folio_writeback(struct ext4_fs *fs, struct folio *f)
{
	int64_t pos = (int64_t)f->index << PAGE_SHIFT;

	ext4_wait_io_range(fs, pos, pos + PAGE_SIZE - 1);
	SIM_ASSERT(!(f->flags & PG_writeback));
}

/*
 * mpage_prepare_extent_to_map(): walk the dirty folios of the range from
 * first_page; submit what needs no mapping, collect one extent that does.
 */
static int mpage_prepare_extent_to_map(struct mpage_da_data *mpd)
{
	struct address_space *m = &mpd->fs->inode->i_mapping;
	uint32_t i = filemap_first_at(m, mpd->first_page);
	int err;

	mpd->map.m_len = 0;
	mpd->next_page = mpd->first_page;
	for (; i < m->a_nr && m->a_folios[i]->index <= mpd->last_page; i++) {
		struct folio *f = m->a_folios[i];

		if (!(f->flags & PG_dirty))
			continue;
		if (mpd->map.m_len > 0 && mpd->next_page != f->index)
			return 0;
		sim_folio_lock(mpd->fs, f, SITE_WRITEPAGES);
		if (f->flags & PG_writeback) {
			if (mpd->sync_mode == WB_SYNC_NONE)
				continue;
			wait_folio_writeback(mpd->fs, f);
		}
		if (mpd->map.m_len == 0)
			mpd->first_page = f->index;
		mpd->next_page = f->index + 1;
		if (!mpd->can_map) {
			if ((err = mpage_submit_folio(mpd, f)) < 0)
				return err;
			mpage_folio_done(mpd, f);
			continue;
		}
		if ((err = mpage_process_page_bufs(mpd, f, 0)) <= 0)
			return err;
	}
	mpd->scanned_until_end = true;
	return 0;
}

/* mpage_map_one_extent(): allocate (or convert) the collected extent. */
static int mpage_map_one_extent(struct mpage_da_data *mpd, handle_t *h)
{
	struct ext4_fs *fs = mpd->fs;
	uint32_t flags = GET_BLOCKS_CREATE | GET_BLOCKS_IO_SUBMIT;
	int err;

	if (ext4_should_dioread_nolock(fs))
		flags |= GET_BLOCKS_UNWRIT_EXT;
	err = ext4_map_blocks(fs, h, &mpd->map, flags);
	if (err < 0)
		return err;
	SIM_ASSERT(mpd->map.m_len > 0);
	if (ext4_should_dioread_nolock(fs) && (mpd->map.m_flags & MAP_UNWRITTEN))
		ext4_io_end_set_unwritten(fs, mpd->io_end, mpd->map.m_lblk, mpd->map.m_len);
	return 0;
}

/*
 * mpage_process_folio(): give the folio's buffers inside the mapped extent
 * their blocks.  Returns true when the folio has buffers past the extent
 * (they may start the next extent, or the folio was submitted).
 */
static bool mpage_process_folio(struct mpage_da_data *mpd, struct folio *f, uint32_t *pblk,
				int *err)
{
	struct ext4_fs *fs = mpd->fs;
	uint32_t lblk = (uint32_t)((f->index << PAGE_SHIFT) >> ext4_blkbits(fs));
	uint64_t map_end = (uint64_t)mpd->map.m_lblk + mpd->map.m_len;

	*err = 0;
	for (unsigned i = 0; i < folio_nr_buffers(&fs->inode->i_mapping); i++, lblk++) {
		struct buffer_head *bh = &f->bh[i];

		if (lblk < mpd->map.m_lblk)
			continue;
		if (lblk >= map_end) {
			mpd->map.m_len = 0;
			*err = mpage_process_page_bufs(mpd, f, i);
			if (*err > 0)
				*err = 0;
			return true;
		}
		if (bh->b_state & BH_Delay) {
			bh->b_state &= (uint16_t)~BH_Delay;
			bh->b_blocknr = (*pblk)++;
		} else if (bh->b_state & BH_Unwritten) {
			(*pblk)++;
		}
		bh->b_state &= (uint16_t)~BH_Unwritten;
	}
	return false;
}

/* mpage_map_and_submit_buffers(): map the extent's buffers, submit whole folios. */
static int mpage_map_and_submit_buffers(struct mpage_da_data *mpd)
{
	struct address_space *m = &mpd->fs->inode->i_mapping;
	uint32_t bits = PAGE_SHIFT - ext4_blkbits(mpd->fs), pblk = mpd->map.m_pblk;
	uint64_t start = mpd->map.m_lblk >> bits;
	uint64_t end = ((uint64_t)mpd->map.m_lblk + mpd->map.m_len - 1) >> bits;
	int err;

	for (uint64_t idx = start; idx <= end; idx++) {
		struct folio *f = filemap_get_folio(m, idx);

		if (!f)
			continue;
		if (mpage_process_folio(mpd, f, &pblk, &err) || err < 0)
			return err;
		if ((err = mpage_submit_folio(mpd, f)) < 0)
			return err;
		mpage_folio_done(mpd, f);
	}
	mpd->map.m_len = 0;
	return 0;
}

/*
 * mpage_submit_partial_folio() (ded2d726a304): submit the mapped buffers of
 * the folio the mapping loop stopped in (its delayed ones stay dirty), and
 * count it submitted up to the first unmapped block, for i_disksize.
 */
static int mpage_submit_partial_folio(struct mpage_da_data *mpd)
{
	struct ext4_fs *fs = mpd->fs;
	struct folio *f = filemap_get_folio(&fs->inode->i_mapping, mpd->first_page);
	int64_t pos = (int64_t)mpd->map.m_lblk << ext4_blkbits(fs);
	int64_t fpos = (int64_t)mpd->first_page << PAGE_SHIFT;
	int err;

	if (!f || pos <= fpos || pos >= fpos + PAGE_SIZE)
		return -EINVAL;         /* the kernel's WARN_ON_ONCE */
	if ((err = mpage_submit_folio(mpd, f)) < 0)
		return err;
	mpd->partial_pos = pos;
	return 0;
}

static const struct ext4_size_rule map_and_submit_disksize = EXT4_SIZE_RULE(
	"mpage_map_and_submit_extent", "writeback allocated the delayed blocks and raises "
	"i_disksize to the end of the range it mapped (never past i_size), in the allocating "
	"transaction");

/*
 * mpage_map_and_submit_extent(): map and submit until the extent is done,
 * then raise i_disksize to what was submitted, in the same handle.  An
 * allocation failure before any progress returns at once; after some, the
 * loop bails out to the i_disksize update (submitting the partly mapped
 * folio first since wb_submit_partial_folio).
 */
static int mpage_map_and_submit_extent(struct mpage_da_data *mpd, handle_t *h)
{
	struct ext4_fs *fs = mpd->fs;
	bool progress = false;
	int64_t disksize;
	int err;

	do {
		if ((err = mpage_map_one_extent(mpd, h)) < 0) {
			if (!progress)
				return err;
			if (ext4_sem(fs, wb_submit_partial_folio) && mpd->map.m_len &&
			    mpage_submit_partial_folio(mpd) < 0)
				return err;     /* invalidate_dirty_pages: not modelled */
			break;
		}
		progress = true;
		if ((err = mpage_map_and_submit_buffers(mpd)) < 0)
			break;
	} while (mpd->map.m_len);
	disksize = mpd->partial_pos >= 0 ? mpd->partial_pos :
		   (int64_t)mpd->first_page << PAGE_SHIFT;
	if (disksize > fs->inode->i_disksize) {
		if (disksize > fs->inode->i_size)
			disksize = fs->inode->i_size;
		ext4_update_i_disksize(fs, disksize, &map_and_submit_disksize);
		ext4_mark_inode_dirty(fs, h);
	}
	return err;
}

/* One mapping pass with a handle: collect an extent, map it, submit. */
static int writepages_map_pass(struct mpage_da_data *mpd)
{
	struct ext4_fs *fs = mpd->fs;
	handle_t *h;
	int err;

	mpd->io_end = ext4_init_io_end(fs);
	mpd->partial_pos = -1;
	h = __ext4_journal_start(fs, "ext4_do_writepages", HT_WRITE_PAGE, 16);
	mpd->do_map = true;
	err = mpage_prepare_extent_to_map(mpd);
	if (!err && mpd->map.m_len)
		err = mpage_map_and_submit_extent(mpd, h);
	__ext4_journal_stop("ext4_do_writepages", fs, h);
	mpd->do_map = false;
	/*
	 * mpage_release_unused_pages(): folios scanned but not submitted (the
	 * allocation came back shorter than the extent) need another pass.
	 */
	if (mpd->first_page < mpd->next_page)
		mpd->scanned_until_end = false;
	ext4_put_io_end(fs, mpd->io_end);
	return err;
}

/*
 * ext4_writepages(): write back the dirty folios of [start, end] (bytes).
 * data=journal only writes committed buffers in place, after committing
 * the file's transaction when the caller waits (WB_SYNC_ALL) -- unless no
 * folio of the file is dirty: ext4_do_writepages() returns before that
 * commit (and filemap_fdatawrite_wbc() does not even call it), so then
 * nothing commits.  Before the 6.5 data=journal rework (jdata_dirty_folio
 * off) write() left journalled folios clean and writeback never committed.
 */
/*
 * writeback_inodes_sb() (WB_SYNC_NONE) and sync_inodes_sb() (WB_SYNC_ALL,
 * waiting for the I/O too): every in-core regular file's dirty pages,
 * ascending by inode number.  The first error is returned, the others run.
 */
int ext4_writeback_inodes(struct ext4_fs *fs, enum wb_sync_mode mode)
{
	struct ext4_inode_info *was = fs->inode;
	int err = 0;

	for (uint32_t i = 0; i < fs->s_nr_inodes; i++) {
		int e;

		if (!S_ISREG(fs->s_inodes[i]->i_mode))
			continue;
		fs->inode = fs->s_inodes[i];
		e = ext4_writepages(fs, 0, INT64_MAX, mode, true);
		if (mode == WB_SYNC_ALL)
			ext4_wait_io_range(fs, 0, INT64_MAX);
		err = err ? err : e;
	}
	fs->inode = was;
	return err;
}

int ext4_writepages(struct ext4_fs *fs, int64_t start, int64_t end,
		    enum wb_sync_mode mode, bool can_map)
{
	struct mpage_da_data mpd = {
		.fs = fs,
		.first_page = (uint64_t)start >> PAGE_SHIFT,
		.last_page = (uint64_t)end >> PAGE_SHIFT,
		.sync_mode = mode,
		.can_map = can_map,
	};
	int err;

	if (fs->s_shutdown)
		return -EIO;
	if (ext4_should_journal_data(fs)) {
		mpd.can_map = false;
		if (mode == WB_SYNC_ALL && ext4_sem(fs, jdata_dirty_folio) &&
		    mapping_tagged_dirty(&fs->inode->i_mapping))
			jbd2_complete_transaction(&fs->journal, fs->inode->i_datasync_tid);
	}
	mpd.io_end = ext4_init_io_end(fs);
	err = mpage_prepare_extent_to_map(&mpd);
	ext4_put_io_end(fs, mpd.io_end);
	while (!err && !mpd.scanned_until_end && mpd.can_map) {
		err = writepages_map_pass(&mpd);
		if (err == -ENOSPC && fs->s_fault_fired) {
			/* free clusters remain: commit (it may free blocks) and retry */
			fs->s_fault_fired = false;
			jbd2_journal_force_commit(&fs->journal);
			mpd.scanned_until_end = false;
			err = 0;
		}
	}
	return err;
}
