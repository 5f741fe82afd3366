/*
 * page-io.c - writing folios to the device and finishing the I/O.  Mirrors
 * fs/ext4/page-io.c: ext4_bio_write_folio() (including the zeroing of the
 * EOF folio past i_size), io_end bookkeeping, and ext4_end_io_end() with its
 * unwritten-extent conversion in a handle of its own (the reserved handle,
 * which joins whatever transaction is running when the I/O completes).  An
 * io_end converts exactly the ranges its mapping passes added (one vec per
 * run of adjacent blocks), never unwritten blocks between them.
 *
 * I/O stays in flight until something waits for it: an explicit
 * `writeback` step, sync_range -a, fsync, a commit waiting for ordered data,
 * truncate.  A crash drops what is still in flight.
 *
 * Cost: a finished bio leaves a hole in fs->ios (io_end 0) instead of
 * shifting the array, and each io_end knows the slice of fs->ios its bios
 * lie in, so finishing n bios costs O(n) however they are waited for; the
 * holes are squeezed out when they outnumber the live entries and no walk
 * of the array is under way.
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "ext4.h"

uint32_t ext4_init_io_end(struct ext4_fs *fs)
{
	struct ext4_io_end *ie;

	if (fs->nr_io_ends == fs->cap_io_ends) {
		fs->cap_io_ends = fs->cap_io_ends ? 2 * fs->cap_io_ends : 16;
		fs->io_ends = sim_realloc_array(fs->io_ends, fs->cap_io_ends, sizeof(*fs->io_ends));
	}
	ie = &fs->io_ends[fs->nr_io_ends++];
	memset(ie, 0, sizeof(*ie));
	ie->ie_id = ++fs->next_io_end;
	ie->ie_ino = fs->inode->i_ino;
	ie->ie_pending = 1;             /* the submitter's reference */
	ie->ie_first = UINT32_MAX;      /* no bio yet */
	return ie->ie_id;
}

static struct ext4_io_end *find_io_end(const struct ext4_fs *fs, uint32_t id)
{
	for (uint32_t i = 0; i < fs->nr_io_ends; i++)
		if (fs->io_ends[i].ie_id == id)
			return &fs->io_ends[i];
	SIM_ASSERT(!"io_end not found");
	return NULL;
}

/*
 * The io_end covers an unwritten extent: convert it when the I/O is done.
 * A range that does not continue the last one gets a vec of its own
 * (ext4_alloc_io_end_vec), so the blocks between them (unwritten ones
 * from fallocate, say) stay unwritten.
 */
void ext4_io_end_set_unwritten(struct ext4_fs *fs, uint32_t id, uint32_t lblk, uint32_t len)
{
	struct ext4_io_end *ie = find_io_end(fs, id);
	struct ext4_io_end_vec *last = ie->ie_nr_vecs ? &ie->ie_vecs[ie->ie_nr_vecs - 1] : NULL;

	ie->ie_unwritten = true;
	if (last && last->lblk + last->len == lblk) {
		last->len += len;
		return;
	}
	SIM_ASSERT(!last || lblk > last->lblk + last->len);
	ie->ie_vecs = sim_realloc_array(ie->ie_vecs, ie->ie_nr_vecs + 1, sizeof(*ie->ie_vecs));
	ie->ie_vecs[ie->ie_nr_vecs++] = (struct ext4_io_end_vec){ .lblk = lblk, .len = len };
}

/* ext4_convert_unwritten_extents(): what is still unwritten in [lblk, end). */
static void ext4_convert_unwritten_extents(struct ext4_fs *fs, handle_t *h, uint32_t lblk,
					   uint32_t end)
{
	while (lblk < end) {
		struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = end - lblk };
		uint32_t pblk, len;

		if (es_lookup(&fs->inode->i_es, lblk, &pblk, &len) == ES_UNWRITTEN)
			SIM_ASSERT(ext4_map_blocks(fs, h, &map, GET_BLOCKS_CREATE |
						   GET_BLOCKS_CONVERT) > 0);
		else
			map.m_len = SIM_MIN(len, end - lblk);
		lblk += map.m_len;
	}
}

int ext4_convert_unwritten_extents_range(struct ext4_fs *fs, int64_t pos, int64_t len)
{
	uint32_t bits = ext4_blkbits(fs);
	uint32_t lblk = (uint32_t)(pos >> bits), end = (uint32_t)((pos + len - 1) >> bits) + 1;

	while (lblk < end) {
		handle_t *h = ext4_journal_start(fs, "ext4_convert_unwritten_extents",
						 HT_MAP_BLOCKS, 8);
		struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = end - lblk };
		uint32_t pblk, n;

		if (es_lookup(&fs->inode->i_es, lblk, &pblk, &n) == ES_UNWRITTEN)
			SIM_ASSERT(ext4_map_blocks(fs, h, &map, GET_BLOCKS_CREATE |
						   GET_BLOCKS_CONVERT) > 0);
		else
			map.m_len = SIM_MIN(n, end - lblk);
		ext4_mark_inode_dirty(fs, h);
		ext4_journal_stop(fs, "ext4_convert_unwritten_extents", h);
		lblk += map.m_len;
	}
	return 0;
}

/*
 * ext4_convert_unwritten_io_end_vec(): convert the io_end's ranges, in one
 * handle (the reserved one in the kernel).
 */
static void ext4_convert_unwritten_io_end(struct ext4_fs *fs, const struct ext4_io_end *ie)
{
	handle_t *h = ext4_journal_start(fs, "ext4_convert_unwritten_io_end_vec", HT_MAP_BLOCKS,
					 8);

	struct ext4_inode_info *was = ext4_set_current_inode(fs, ie->ie_ino);

	for (uint32_t i = 0; i < ie->ie_nr_vecs; i++)
		ext4_convert_unwritten_extents(fs, h, ie->ie_vecs[i].lblk,
					       ie->ie_vecs[i].lblk + ie->ie_vecs[i].len);
	ext4_mark_inode_dirty(fs, h);
	fs->inode = was;
	ext4_journal_stop(fs, "ext4_convert_unwritten_io_end_vec", h);
}

/* Bio @i of inode @ino is done: clear its buffer's BH_Async_Write and leave a hole. */
static void finish_bio(struct ext4_fs *fs, uint32_t i, uint32_t ino)
{
	struct ext4_io *io = &fs->ios[i];
	struct ext4_inode_info *ei = ext4_ilookup(fs, ino);
	struct folio *f = ei ? filemap_get_folio(&ei->i_mapping, io->io_index) : NULL;

	if (f) {
		f->bh[io->io_bh].b_state &= (uint16_t)~BH_Async_Write;
		folio_update_summary(&ei->i_mapping, f);
	}
	io->io_end = 0;
	fs->nr_ios--;
}

/* Clear BH_Async_Write for every finished bio of io_end @ie (its slice of fs->ios). */
static void finish_bios(struct ext4_fs *fs, const struct ext4_io_end *ie)
{
	for (uint32_t i = ie->ie_first; i <= ie->ie_last && i < fs->nr_io_slots; i++)
		if (fs->ios[i].io_end == ie->ie_id && !blkdev_in_flight(fs->bdev, fs->ios[i].io_seq))
			finish_bio(fs, i, ie->ie_ino);
}

/* Squeeze the holes out of fs->ios (no walk under way) and renumber the slices. */
static void compact_ios(struct ext4_fs *fs)
{
	uint32_t k = 0;

	for (uint32_t e = 0; e < fs->nr_io_ends; e++)
		fs->io_ends[e].ie_first = UINT32_MAX, fs->io_ends[e].ie_last = 0;
	for (uint32_t i = 0; i < fs->nr_io_slots; i++) {
		if (fs->ios[i].io_end == 0)
			continue;
		for (uint32_t e = 0; e < fs->nr_io_ends; e++) {
			struct ext4_io_end *ie = &fs->io_ends[e];

			if (ie->ie_id != fs->ios[i].io_end)
				continue;
			ie->ie_first = SIM_MIN(ie->ie_first, k);
			ie->ie_last = k;
		}
		fs->ios[k++] = fs->ios[i];
	}
	SIM_ASSERT(k == fs->nr_ios);
	fs->nr_io_slots = k;
}

/* Drop a reference; the last one runs ext4_end_io_end(). */
void ext4_put_io_end(struct ext4_fs *fs, uint32_t id)
{
	struct ext4_io_end *ie = find_io_end(fs, id);
	struct ext4_io_end done;

	SIM_ASSERT(ie->ie_pending > 0);
	if (--ie->ie_pending > 0)
		return;
	done = *ie;
	*ie = fs->io_ends[--fs->nr_io_ends];
	if (done.ie_unwritten)
		ext4_convert_unwritten_io_end(fs, &done);
	free(done.ie_vecs);
	finish_bios(fs, &done);
}

static void add_io(struct ext4_fs *fs, uint64_t seq, uint64_t index, unsigned bh, uint32_t id)
{
	struct ext4_io_end *ie;

	if (fs->io_scans == 0 && fs->nr_io_slots >= 64 && fs->nr_io_slots > 2 * fs->nr_ios)
		compact_ios(fs);
	if (fs->nr_io_slots == fs->cap_ios) {
		fs->cap_ios = fs->cap_ios ? 2 * fs->cap_ios : 64;
		fs->ios = sim_realloc_array(fs->ios, fs->cap_ios, sizeof(*fs->ios));
	}
	fs->ios[fs->nr_io_slots] = (struct ext4_io){ .io_seq = seq, .io_index = index,
						     .io_bh = (uint8_t)bh, .io_end = id };
	ie = find_io_end(fs, id);
	if (ie->ie_first == UINT32_MAX)
		ie->ie_first = fs->nr_io_slots;         /* its first bio */
	ie->ie_last = fs->nr_io_slots;
	ie->ie_pending++;
	fs->nr_io_slots++;
	fs->nr_ios++;
}

/*
 * ext4_bio_write_folio(): zero the folio past @len (the EOF folio: i_size
 * within it), then submit every dirty, mapped, written buffer below @len.
 * Buffers wholly past @len are cleaned; delayed and unwritten ones stay
 * dirty for a later mapping pass.
 */
int ext4_bio_write_folio(struct ext4_fs *fs, struct folio *f, uint32_t len, uint32_t io_end)
{
	struct address_space *m = &fs->inode->i_mapping;
	uint32_t bs = fs->opts.block_size;

	SIM_ASSERT(f->flags & PG_buffers);
	if (len < PAGE_SIZE)
		folio_zero_segment(f, len, PAGE_SIZE);
	for (unsigned i = 0; i < folio_nr_buffers(m); i++) {
		struct buffer_head *bh = &f->bh[i];
		uint64_t seq;

		if (i * bs >= len) {
			bh->b_state &= (uint16_t)~BH_Dirty;
			bh->b_state |= BH_Uptodate;
			continue;
		}
		if (!(bh->b_state & BH_Dirty) || (bh->b_state & (BH_Delay | BH_Unwritten)) ||
		    !(bh->b_state & BH_Mapped)) {
			if (!(bh->b_state & BH_Mapped))
				bh->b_state &= (uint16_t)~BH_Dirty;
			continue;
		}
		bh->b_state &= (uint16_t)~(BH_New | BH_Dirty);
		bh->b_state |= BH_Async_Write;
		seq = blkdev_submit_bio(fs->bdev, bh->b_blocknr, f->data + i * bs, BIO_DATA, false,
					&(struct bio_info){ .bi_func = "ext4_bio_write_folio",
					.bi_what = BW_DATA,
					.bi_lblk = (int64_t)(f->index * folio_nr_buffers(m) + i) });
		fs->counters->bios_submitted++;
		add_io(fs, seq, f->index, i, io_end);
	}
	folio_update_summary(m, f);
	return 0;
}

/*
 * Complete bio @i and drop its io_end reference: without a conversion to
 * do, the bio is finished at once (ext4_finish_bio); with one, when the
 * last reference goes, after the conversion.
 */
static void ext4_end_bio(struct ext4_fs *fs, uint32_t i)
{
	uint32_t id = fs->ios[i].io_end;
	struct ext4_io_end *ie = find_io_end(fs, id);

	blkdev_complete(fs->bdev, fs->ios[i].io_seq);
	if (!ie->ie_unwritten)
		finish_bio(fs, i, ie->ie_ino);
	ext4_put_io_end(fs, id);
}

/* Complete every in-flight bio of io_end @id, in submission order. */
static void complete_io_end(struct ext4_fs *fs, uint32_t id)
{
	const struct ext4_io_end *ie = find_io_end(fs, id);
	uint32_t first = ie->ie_first, last = ie->ie_last;

	fs->io_scans++;
	for (uint32_t i = first; i <= last && i < fs->nr_io_slots; i++)
		if (fs->ios[i].io_end == id && blkdev_in_flight(fs->bdev, fs->ios[i].io_seq))
			ext4_end_bio(fs, i);    /* may free the io_end: holes stay put */
	fs->io_scans--;
}

/*
 * Wait for the writeback of folios in [start, end] (bytes): a folio's
 * writeback ends when its whole io_end is done (for an unwritten io_end,
 * after the conversion), so every bio of each io_end touching the range is
 * completed (filemap_fdatawait_range).
 */
void ext4_wait_io_range(struct ext4_fs *fs, int64_t start, int64_t end)
{
	uint64_t first = (uint64_t)start >> PAGE_SHIFT, last = (uint64_t)end >> PAGE_SHIFT;
	bool waited = false;

	SIM_ASSERT(start <= end);
	fs->io_scans++;
	for (uint32_t i = 0; i < fs->nr_io_slots; i++) {
		uint32_t id = fs->ios[i].io_end;

		if (id == 0 || fs->ios[i].io_index < first || fs->ios[i].io_index > last ||
		    find_io_end(fs, id)->ie_ino != fs->inode->i_ino)
			continue;               /* filemap_fdatawait_range: this file's pages only */
		complete_io_end(fs, id);
		waited = true;
		SIM_ASSERT(fs->ios[i].io_end == 0);     /* it finished */
	}
	fs->io_scans--;
	if (waited)
		fs->counters->sync_waits++;
}

bool ext4_io_range_busy(const struct ext4_fs *fs, int64_t start, int64_t end)
{
	uint64_t first = (uint64_t)start >> PAGE_SHIFT, last = (uint64_t)end >> PAGE_SHIFT;

	for (uint32_t i = 0; i < fs->nr_io_slots; i++)
		if (fs->ios[i].io_end && fs->ios[i].io_index >= first &&
		    fs->ios[i].io_index <= last &&
		    find_io_end(fs, fs->ios[i].io_end)->ie_ino == fs->inode->i_ino)
			return true;
	return false;
}
