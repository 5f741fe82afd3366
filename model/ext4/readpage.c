/*
 * readpage.c - the read path: filemap_read() over the page cache and
 * ext4_read_folio() (fs/ext4/readpage.c ext4_mpage_readpages, and
 * block_read_full_folio() of fs/buffer.c for folios that have buffers).
 *
 * Blocks past EOF, holes and unwritten extents read as zeros; written
 * blocks come from the device (whatever it holds, sentinel included).
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "ext4.h"

/* ext4_read_bh(): read one mapped buffer from the device. */
int ext4_read_bh(struct ext4_fs *fs, struct folio *f, unsigned i)
{
	uint32_t bs = fs->opts.block_size;
	struct buffer_head *bh = &f->bh[i];

	SIM_ASSERT(bh->b_state & BH_Mapped);
	SIM_ASSERT(!(bh->b_state & BH_Delay));
	blkdev_read(fs->bdev, bh->b_blocknr, f->data + i * bs);
	bh->b_state |= BH_Uptodate;
	return 0;
}

/* Read block i of a folio without buffers (ext4_mpage_readpages). */
static void read_block_nobh(struct ext4_fs *fs, struct folio *f, unsigned i, uint64_t blocks)
{
	uint32_t bs = fs->opts.block_size;
	uint32_t lblk = (uint32_t)((f->index << PAGE_SHIFT) >> ext4_blkbits(fs)) + i;
	struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = 1 };

	if (lblk >= blocks || ext4_map_blocks(fs, NULL, &map, 0) <= 0 ||
	    !(map.m_flags & MAP_MAPPED)) {
		memset(f->data + i * bs, 0, bs);
		return;
	}
	blkdev_read(fs->bdev, map.m_pblk, f->data + i * bs);
}

/* One not-uptodate buffer of block_read_full_folio(). */
static void read_block_bh(struct ext4_fs *fs, struct folio *f, unsigned i, uint64_t blocks)
{
	uint32_t bs = fs->opts.block_size;
	uint32_t lblk = (uint32_t)((f->index << PAGE_SHIFT) >> ext4_blkbits(fs)) + i;
	struct buffer_head *bh = &f->bh[i];

	if (!(bh->b_state & BH_Mapped)) {
		struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = 1 };

		if (lblk < blocks && ext4_map_blocks(fs, NULL, &map, 0) > 0 &&
		    (map.m_flags & MAP_MAPPED)) {
			bh->b_state |= BH_Mapped;
			bh->b_blocknr = map.m_pblk;
		}
	}
	if (!(bh->b_state & BH_Mapped) || (bh->b_state & BH_Unwritten)) {
		memset(f->data + i * bs, 0, bs);
		bh->b_state |= BH_Uptodate;
		return;
	}
	ext4_read_bh(fs, f, i);
}

/*
 * What a read would return for [pos, pos+len) (already clipped to i_size),
 * without touching the page cache: the checker's view of a read.  Follows
 * ext4_file_read() byte for byte.
 */
void ext4_peek(const struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t *out)
{
	uint32_t bs = fs->opts.block_size;
	uint64_t blocks = ((uint64_t)fs->inode->i_size + bs - 1) >> ext4_blkbits(fs);
	uint8_t *blk = sim_realloc_array(NULL, 1, bs);   /* zeroed before each use */

	for (int64_t done = 0; done < len;) {
		int64_t p = pos + done;
		uint64_t lblk = (uint64_t)p >> ext4_blkbits(fs);
		uint32_t boff = (uint32_t)(p & (bs - 1));
		uint32_t n = (uint32_t)SIM_MIN((int64_t)(bs - boff), len - done);
		const struct folio *f = filemap_get_folio(&fs->inode->i_mapping,
							  (uint64_t)p >> PAGE_SHIFT);
		unsigned i = (unsigned)((p & (PAGE_SIZE - 1)) >> ext4_blkbits(fs));

		if (f && ((f->flags & PG_uptodate) ||
			  ((f->flags & PG_buffers) && (f->bh[i].b_state & BH_Uptodate)))) {
			memcpy(out + done, f->data + (p & (PAGE_SIZE - 1)), n);
		} else {
			const struct buffer_head *bh = f && (f->flags & PG_buffers) ? &f->bh[i] : NULL;
			struct extent_status es;

			memset(blk, 0, bs);
			if (bh && (bh->b_state & BH_Mapped) && !(bh->b_state & BH_Unwritten))
				blkdev_read(fs->bdev, bh->b_blocknr, blk);
			else if ((!bh || !(bh->b_state & BH_Mapped)) && lblk < blocks &&
				 ext4_es_lookup_extent(&fs->inode->i_es, (uint32_t)lblk, &es) &&
				 es.es_state == ES_WRITTEN)     /* what ext4_map_blocks maps */
				blkdev_read(fs->bdev, es.es_pblk + ((uint32_t)lblk - es.es_lblk), blk);
			memcpy(out + done, blk + boff, n);
		}
		done += n;
	}
	free(blk);
}

/* ext4_read_folio(): make a folio uptodate. */
int ext4_read_folio(struct ext4_fs *fs, struct folio *f)
{
	struct address_space *m = &fs->inode->i_mapping;
	uint64_t blocks = ((uint64_t)fs->inode->i_size + fs->opts.block_size - 1) >>
			  ext4_blkbits(fs);

	sim_folio_lock(fs, f, SITE_READ);
	for (unsigned i = 0; i < folio_nr_buffers(m); i++) {
		if (!(f->flags & PG_buffers))
			read_block_nobh(fs, f, i, blocks);
		else if (!(f->bh[i].b_state & BH_Uptodate))
			read_block_bh(fs, f, i, blocks);
	}
	f->flags |= PG_uptodate;
	return 0;
}

/*
 * filemap_read(): copy [pos, pos+len) clipped to i_size into @out; *got
 * gets the byte count.  Folios that are missing are created and read.
 */
int ext4_file_read(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t *out, int64_t *got)
{
	int64_t end;

	*got = 0;
	if (pos >= fs->inode->i_size || len <= 0)
		return 0;
	end = SIM_MIN(fs->inode->i_size, pos + len);
	while (pos < end) {
		struct folio *f = filemap_grab_folio(&fs->inode->i_mapping,
						     (uint64_t)pos >> PAGE_SHIFT);
		uint32_t off = (uint32_t)(pos & (PAGE_SIZE - 1));
		uint32_t n = (uint32_t)SIM_MIN((int64_t)(PAGE_SIZE - off), end - pos);
		int err;

		if (!(f->flags & PG_uptodate) && (err = ext4_read_folio(fs, f)) < 0)
			return err;
		memcpy(out + *got, f->data + off, n);
		*got += n;
		pos += n;
	}
	return 0;
}

/*
 * ext4_inode_datasync_dirty(): has the inode metadata a datasync needs
 * that is not committed yet (its i_datasync_tid)?  jbd2_transaction_committed
 * took read_lock(&journal->j_state_lock) until 7c73ddb7589f.
 */
bool ext4_inode_datasync_dirty(struct ext4_fs *fs)
{
	const journal_t *j = &fs->journal;

	fs->counters->datasync_dirty_checks++;
	if (!ext4_sem(fs, jbd2_lockless_committed))
		fs->counters->j_state_lock_reads++;
	return fs->inode->i_datasync_tid > j->j_commit_sequence;
}

/*
 * ext4_iomap_begin() for a read (not IOMAP_WRITE): map the blocks from
 * @lblk into *map and, as ext4_set_iomap does, evaluate IOMAP_F_DIRTY --
 * on every lookup, or (the unmerged 2021 patch) on writes only.  A read
 * never uses the flag; what the model keeps is the cost of computing it
 * (ext4_inode_datasync_dirty's counters).  Returns the blocks covered (>= 1).
 */
static uint32_t ext4_iomap_begin_read(struct ext4_fs *fs, uint32_t lblk, uint32_t len,
				      struct ext4_map_blocks *map)
{
	*map = (struct ext4_map_blocks){ .m_lblk = lblk, .m_len = len };
	if (ext4_map_blocks(fs, NULL, map, 0) <= 0)
		map->m_len = SIM_MAX(map->m_len, 1u);
	if (!ext4_sem(fs, iomap_dirty_write_only))
		ext4_inode_datasync_dirty(fs);  /* || offset + length > i_size: not evaluated */
	return SIM_MIN(map->m_len, len);
}

/*
 * ext4_dio_read_iter() -> iomap_dio_rw() for a read: write back and wait
 * for the page cache over the range, then one iomap lookup per mapping,
 * reading written blocks from the device and zeros elsewhere.  Offset and
 * length must be 512-byte aligned (EINVAL).  Clipped to i_size.  A
 * data=journal file takes no direct I/O (ext4_dio_supported): a buffered
 * read, after the writeback generic_file_read_iter did first before
 * dio_read_iomap (ext4_direct_IO refused it), with none since.
 */
int ext4_dio_read(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t *out, int64_t *got)
{
	uint32_t bs = fs->opts.block_size, bits = ext4_blkbits(fs);
	uint8_t *blk;
	int64_t end;
	int err = 0;

	*got = 0;
	if (ext4_should_journal_data(fs)) {
		end = SIM_MIN(fs->inode->i_size, pos + len);
		if (!ext4_sem(fs, dio_read_iomap) && pos < end && len > 0) {
			err = ext4_writepages(fs, pos, end - 1, WB_SYNC_ALL, true);
			ext4_wait_io_range(fs, pos, end - 1);
		}
		return err ? err : ext4_file_read(fs, pos, len, out, got);
	}
	blk = sim_zalloc(bs);
	if ((pos | len) & 511)
		err = -EINVAL;
	else if (pos < fs->inode->i_size && len > 0) {
		end = SIM_MIN(fs->inode->i_size, pos + len);
		err = ext4_writepages(fs, pos, end - 1, WB_SYNC_ALL, true);
		ext4_wait_io_range(fs, pos, end - 1);
		while (!err && pos < end) {
			struct ext4_map_blocks map;
			uint32_t lblk = (uint32_t)(pos >> bits);
			uint32_t n = ext4_iomap_begin_read(fs, lblk, (uint32_t)(((end - 1) >> bits) -
							   lblk + 1), &map);

			for (uint32_t k = 0; k < n && pos < end; k++) {
				uint32_t o = (uint32_t)(pos & (bs - 1));
				uint32_t c = (uint32_t)SIM_MIN((int64_t)(bs - o), end - pos);

				memset(blk, 0, bs);
				if ((map.m_flags & MAP_MAPPED) && !(map.m_flags & MAP_UNWRITTEN))
					blkdev_read(fs->bdev, map.m_pblk + k, blk);
				memcpy(out + *got, blk + o, c);
				*got += c;
				pos += c;
			}
		}
	}
	free(blk);
	return err;
}
