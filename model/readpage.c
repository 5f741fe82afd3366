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
	uint64_t blocks = ((uint64_t)fs->inode.i_size + bs - 1) >> ext4_blkbits(fs);
	struct ext4_fs *mfs = (struct ext4_fs *)fs;     /* lookups only */
	uint8_t *blk = sim_zalloc(bs);

	for (int64_t done = 0; done < len;) {
		int64_t p = pos + done;
		uint64_t lblk = (uint64_t)p >> ext4_blkbits(fs);
		uint32_t boff = (uint32_t)(p & (bs - 1));
		uint32_t n = (uint32_t)SIM_MIN((int64_t)(bs - boff), len - done);
		const struct folio *f = filemap_get_folio(&fs->inode.i_mapping,
							  (uint64_t)p >> PAGE_SHIFT);
		unsigned i = (unsigned)((p & (PAGE_SIZE - 1)) >> ext4_blkbits(fs));

		if (f && ((f->flags & PG_uptodate) ||
			  ((f->flags & PG_buffers) && (f->bh[i].b_state & BH_Uptodate)))) {
			memcpy(out + done, f->data + (p & (PAGE_SIZE - 1)), n);
		} else {
			struct ext4_map_blocks map = { .m_lblk = (uint32_t)lblk, .m_len = 1 };
			const struct buffer_head *bh = f && (f->flags & PG_buffers) ? &f->bh[i] : NULL;

			memset(blk, 0, bs);
			if (bh && (bh->b_state & BH_Mapped) && !(bh->b_state & BH_Unwritten))
				blkdev_read(fs->bdev, bh->b_blocknr, blk);
			else if ((!bh || !(bh->b_state & BH_Mapped)) && lblk < blocks &&
				 ext4_map_blocks(mfs, NULL, &map, 0) > 0 && (map.m_flags & MAP_MAPPED))
				blkdev_read(fs->bdev, map.m_pblk, blk);
			memcpy(out + done, blk + boff, n);
		}
		done += n;
	}
	free(blk);
}

/* ext4_read_folio(): make a folio uptodate. */
int ext4_read_folio(struct ext4_fs *fs, struct folio *f)
{
	struct address_space *m = &fs->inode.i_mapping;
	uint64_t blocks = ((uint64_t)fs->inode.i_size + fs->opts.block_size - 1) >>
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
	if (pos >= fs->inode.i_size || len <= 0)
		return 0;
	end = SIM_MIN(fs->inode.i_size, pos + len);
	while (pos < end) {
		struct folio *f = filemap_grab_folio(&fs->inode.i_mapping,
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
