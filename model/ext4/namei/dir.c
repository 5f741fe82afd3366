/*
 * dir.c - one ext4 directory block (dir.h): the kernel's leaf-block
 * functions of fs/ext4/namei.c and fs/ext4/dir.c over a buffer, each with
 * the kernel's name; the contracts are in dir.h.  Offsets are signed or
 * unsigned integers, never pointers past the block, so a corrupt rec_len
 * can stop a walk but never make it read outside the buffer.
 */
#include <string.h>

#include "crc32c.h"
#include "dir.h"
#include "sim.h"

/* i_mode's file types (include/uapi/linux/stat.h), as on disk */
enum {
	S_IFMT_ = 0170000, S_IFSOCK_ = 0140000, S_IFLNK_ = 0120000, S_IFREG_ = 0100000,
	S_IFBLK_ = 0060000, S_IFDIR_ = 0040000, S_IFCHR_ = 0020000, S_IFIFO_ = 0010000,
};

#define TAIL_SIZE ((unsigned)sizeof(struct ext4_dir_entry_tail))

/* The 16-bit half of sim.h's get_le32 / put_le32. */
static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The block size is one the model mounts. */
static void assert_sb(const struct ext4_dir_sb *sb)
{
	SIM_ASSERT(sb->ds_blocksize == 1024 || sb->ds_blocksize == 2048 || sb->ds_blocksize == 4096);
	SIM_ASSERT(sb->ds_inodes_count > 0);
}

/* The entry at @off: inode, rec_len (from disk), name_len, file_type. */
static uint32_t de_inode(const uint8_t *b, unsigned off)
{
	return get_le32(b + off + offsetof(struct ext4_dir_entry_2, inode));
}

static unsigned de_rec_len(const uint8_t *b, unsigned off, unsigned blocksize)
{
	return ext4_rec_len_from_disk(get16(b + off + offsetof(struct ext4_dir_entry_2, rec_len)),
				      blocksize);
}

static void de_set_rec_len(uint8_t *b, unsigned off, unsigned len, unsigned blocksize)
{
	put16(b + off + offsetof(struct ext4_dir_entry_2, rec_len),
	      ext4_rec_len_to_disk(len, blocksize));
}

static uint8_t de_name_len(const uint8_t *b, unsigned off)
{
	return b[off + offsetof(struct ext4_dir_entry_2, name_len)];
}

unsigned ext4_dir_rec_len(unsigned name_len)
{
	SIM_ASSERT(name_len <= EXT4_NAME_LEN);
	return EXT4_DIR_REC_LEN(name_len);
}

unsigned ext4_rec_len_from_disk(uint16_t dlen, unsigned blocksize)
{
	(void)blocksize;                /* PAGE_SIZE < 65536: the length itself */
	return dlen;
}

uint16_t ext4_rec_len_to_disk(unsigned len, unsigned blocksize)
{
	/* the kernel's BUG_ON */
	SIM_ASSERT(len <= blocksize && blocksize <= (1u << 18) && !(len & 3));
	return (uint16_t)len;
}

uint8_t ext4_type_by_mode(unsigned mode)
{
	switch (mode & S_IFMT_) {
	case S_IFREG_: return EXT4_FT_REG_FILE;
	case S_IFDIR_: return EXT4_FT_DIR;
	case S_IFCHR_: return EXT4_FT_CHRDEV;
	case S_IFBLK_: return EXT4_FT_BLKDEV;
	case S_IFIFO_: return EXT4_FT_FIFO;
	case S_IFSOCK_: return EXT4_FT_SOCK;
	case S_IFLNK_: return EXT4_FT_SYMLINK;
	default: return EXT4_FT_UNKNOWN;
	}
}

uint32_t ext4_i_csum_seed(uint32_t s_csum_seed, uint32_t ino, uint32_t generation)
{
	uint32_t csum = crc32c(s_csum_seed, &ino, sizeof(ino));

	return crc32c(csum, &generation, sizeof(generation));
}

void ext4_initialize_dirent_tail(uint8_t *blk, unsigned blocksize)
{
	uint8_t *t = blk + blocksize - TAIL_SIZE;

	memset(t, 0, TAIL_SIZE);
	put16(t + offsetof(struct ext4_dir_entry_tail, det_rec_len),
	      ext4_rec_len_to_disk(TAIL_SIZE, blocksize));
	t[offsetof(struct ext4_dir_entry_tail, det_reserved_ft)] = EXT4_FT_DIR_CSUM;
}

bool get_dirent_tail(const struct ext4_dir_sb *sb, const uint8_t *blk)
{
	const uint8_t *t = blk + sb->ds_blocksize - TAIL_SIZE;

	assert_sb(sb);
	return !get_le32(t + offsetof(struct ext4_dir_entry_tail, det_reserved_zero1)) &&
	       ext4_rec_len_from_disk(get16(t + offsetof(struct ext4_dir_entry_tail, det_rec_len)),
				      sb->ds_blocksize) == TAIL_SIZE &&
	       !t[offsetof(struct ext4_dir_entry_tail, det_reserved_zero2)] &&
	       t[offsetof(struct ext4_dir_entry_tail, det_reserved_ft)] == EXT4_FT_DIR_CSUM;
}

uint32_t ext4_dirblock_csum(uint32_t i_csum_seed, const uint8_t *blk, unsigned size)
{
	return crc32c(i_csum_seed, blk, size);
}

bool ext4_dirblock_csum_verify(const struct ext4_dir_sb *sb, uint32_t i_csum_seed,
			       const uint8_t *blk)
{
	unsigned at = sb->ds_blocksize - TAIL_SIZE;

	if (!sb->ds_metadata_csum)
		return true;
	if (!get_dirent_tail(sb, blk))
		return false;           /* "No space for directory leaf checksum" */
	return get_le32(blk + at + offsetof(struct ext4_dir_entry_tail, det_checksum)) ==
	       ext4_dirblock_csum(i_csum_seed, blk, at);
}

bool ext4_dirblock_csum_set(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk)
{
	unsigned at = sb->ds_blocksize - TAIL_SIZE;

	if (!sb->ds_metadata_csum)
		return true;
	if (!get_dirent_tail(sb, blk))
		return false;           /* "No space for directory leaf checksum" */
	put_le32(blk + at + offsetof(struct ext4_dir_entry_tail, det_checksum),
	      ext4_dirblock_csum(i_csum_seed, blk, at));
	return true;
}

const char *ext4_check_dir_entry(const struct ext4_dir_sb *sb, const uint8_t *buf,
				 unsigned size, unsigned de_off)
{
	int rlen, next_offset;
	uint8_t name_len;

	assert_sb(sb);
	SIM_ASSERT(size <= sb->ds_blocksize && de_off + EXT4_BASE_DIR_LEN <= size);
	rlen = (int)de_rec_len(buf, de_off, sb->ds_blocksize);
	next_offset = (int)de_off + rlen;
	name_len = de_name_len(buf, de_off);
	if (rlen < (int)ext4_dir_rec_len(1))
		return "rec_len is smaller than minimal";
	if (rlen % 4 != 0)
		return "rec_len % 4 != 0";
	if (rlen < (int)ext4_dir_rec_len(name_len))
		return "rec_len is too small for name_len";
	if (next_offset > (int)size)
		return "directory entry overrun";
	if (next_offset > (int)size - (int)ext4_dir_rec_len(1) && next_offset != (int)size)
		return "directory entry too close to block end";
	if (de_inode(buf, de_off) > sb->ds_inodes_count)
		return "inode out of bounds";
	if (next_offset == (int)size && name_len == 1 && buf[de_off + EXT4_BASE_DIR_LEN] == '.')
		return "'.' directory cannot be the last in data block";
	return NULL;
}

/* ext4_set_de_type() with filetype, and the rest of an entry's header. */
static void set_entry(uint8_t *b, unsigned off, uint32_t ino, const char *name, unsigned len,
		      uint8_t file_type)
{
	put_le32(b + off + offsetof(struct ext4_dir_entry_2, inode), ino);
	b[off + offsetof(struct ext4_dir_entry_2, name_len)] = (uint8_t)len;
	b[off + offsetof(struct ext4_dir_entry_2, file_type)] = file_type;
	memcpy(b + off + EXT4_BASE_DIR_LEN, name, len);
}

unsigned ext4_init_dot_dotdot(const struct ext4_dir_sb *sb, uint8_t *blk, uint32_t ino,
			      uint32_t parent_ino, bool dotdot_real_len)
{
	unsigned bs = sb->ds_blocksize, dot = ext4_dir_rec_len(1);

	assert_sb(sb);
	SIM_ASSERT(ino && parent_ino);
	set_entry(blk, 0, ino, ".", 1, EXT4_FT_DIR);
	blk[EXT4_BASE_DIR_LEN + 1] = '\0';      /* strcpy's NUL */
	de_set_rec_len(blk, 0, dot, bs);
	set_entry(blk, dot, parent_ino, "..", 2, EXT4_FT_DIR);
	blk[dot + EXT4_BASE_DIR_LEN + 2] = '\0';
	if (!dotdot_real_len)
		de_set_rec_len(blk, dot, bs - (ext4_dir_csum_size(sb) + dot), bs);
	else
		de_set_rec_len(blk, dot, ext4_dir_rec_len(2), bs);
	return dot + de_rec_len(blk, dot, bs);
}

void ext4_init_new_dir_block(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
			     uint32_t ino, uint32_t parent_ino)
{
	memset(blk, 0, sb->ds_blocksize);       /* ext4_bread(CREATE): a new, zeroed buffer */
	ext4_init_dot_dotdot(sb, blk, ino, parent_ino, false);
	if (sb->ds_metadata_csum)
		ext4_initialize_dirent_tail(blk, sb->ds_blocksize);
	ext4_dirblock_csum_set(sb, i_csum_seed, blk);
}

void ext4_init_empty_dirblock(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk)
{
	unsigned bs = sb->ds_blocksize;

	assert_sb(sb);
	memset(blk, 0, bs);
	de_set_rec_len(blk, 0, bs - ext4_dir_csum_size(sb), bs);
	if (sb->ds_metadata_csum)
		ext4_initialize_dirent_tail(blk, bs);
	ext4_dirblock_csum_set(sb, i_csum_seed, blk);
}

/* ext4_match() without encryption or casefolding: a live entry of these bytes. */
static bool ext4_match(const uint8_t *b, unsigned off, const char *name, unsigned len)
{
	return de_inode(b, off) && de_name_len(b, off) == len &&
	       !memcmp(b + off + EXT4_BASE_DIR_LEN, name, len);
}

/* The entry at @off as the iterator hands it out. */
static void dirent_at(const uint8_t *b, unsigned off, unsigned bs, struct ext4_dirent *out)
{
	*out = (struct ext4_dirent){
		.d_off = off, .d_rec_len = de_rec_len(b, off, bs), .d_ino = de_inode(b, off),
		.d_type = b[off + offsetof(struct ext4_dir_entry_2, file_type)],
		.d_name_len = de_name_len(b, off),
		.d_name = (const char *)b + off + EXT4_BASE_DIR_LEN,
	};
}

int ext4_search_dir(const struct ext4_dir_sb *sb, const uint8_t *blk, const char *name,
		    unsigned name_len, struct ext4_dirent *res)
{
	int dlimit = (int)sb->ds_blocksize, off = 0, de_len;

	assert_sb(sb);
	SIM_ASSERT(name_len >= 1 && name_len <= EXT4_NAME_LEN);
	while (off < dlimit - (int)EXT4_BASE_DIR_LEN) {
		if (off + (int)EXT4_BASE_DIR_LEN + de_name_len(blk, (unsigned)off) <= dlimit &&
		    ext4_match(blk, (unsigned)off, name, name_len)) {
			/* found a match - just to be sure, do a full check */
			if (ext4_check_dir_entry(sb, blk, sb->ds_blocksize, (unsigned)off))
				return -EFSCORRUPTED;
			dirent_at(blk, (unsigned)off, sb->ds_blocksize, res);
			return 1;
		}
		/* prevent looping on a bad block */
		de_len = (int)de_rec_len(blk, (unsigned)off, sb->ds_blocksize);
		if (de_len <= 0)
			return -EFSCORRUPTED;
		off += de_len;
	}
	return 0;
}

int ext4_find_dest_de(const struct ext4_dir_sb *sb, const uint8_t *buf, unsigned buf_size,
		      const char *name, unsigned name_len, unsigned *de_off)
{
	int reclen = (int)ext4_dir_rec_len(name_len), top = (int)buf_size - reclen, off = 0;
	int nlen, rlen;

	assert_sb(sb);
	SIM_ASSERT(name_len >= 1 && name_len <= EXT4_NAME_LEN && buf_size <= sb->ds_blocksize);
	while (off <= top) {
		if (ext4_check_dir_entry(sb, buf, buf_size, (unsigned)off))
			return -EFSCORRUPTED;
		if (ext4_match(buf, (unsigned)off, name, name_len))
			return -EEXIST;
		nlen = (int)ext4_dir_rec_len(de_name_len(buf, (unsigned)off));
		rlen = (int)de_rec_len(buf, (unsigned)off, buf_size);
		if ((de_inode(buf, (unsigned)off) ? rlen - nlen : rlen) >= reclen)
			break;
		off += rlen;
	}
	if (off > top)
		return -ENOSPC;
	*de_off = (unsigned)off;
	return 0;
}

void ext4_insert_dentry(const struct ext4_dir_sb *sb, uint8_t *blk, unsigned de_off,
			uint32_t ino, uint8_t file_type, const char *name, unsigned name_len)
{
	unsigned bs = sb->ds_blocksize;
	unsigned nlen = ext4_dir_rec_len(de_name_len(blk, de_off));
	unsigned rlen = de_rec_len(blk, de_off, bs);

	assert_sb(sb);
	SIM_ASSERT(ino && ino <= sb->ds_inodes_count && file_type < EXT4_FT_MAX);
	SIM_ASSERT(name_len >= 1 && name_len <= EXT4_NAME_LEN);
	if (de_inode(blk, de_off)) {
		SIM_ASSERT(rlen >= nlen + ext4_dir_rec_len(name_len));
		de_set_rec_len(blk, de_off + nlen, rlen - nlen, bs);
		de_set_rec_len(blk, de_off, nlen, bs);
		de_off += nlen;
	}
	SIM_ASSERT(de_rec_len(blk, de_off, bs) >= ext4_dir_rec_len(name_len));
	set_entry(blk, de_off, ino, name, name_len, file_type);
}

int add_dirent_to_buf(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
		      uint32_t ino, uint8_t file_type, const char *name, unsigned name_len,
		      unsigned *de_off)
{
	unsigned off = 0, nlen;
	int err;

	err = ext4_find_dest_de(sb, blk, sb->ds_blocksize - ext4_dir_csum_size(sb), name,
				name_len, &off);
	if (err)
		return err;
	/* a live entry is split: the new one follows its name */
	nlen = de_inode(blk, off) ? ext4_dir_rec_len(de_name_len(blk, off)) : 0;
	ext4_insert_dentry(sb, blk, off, ino, file_type, name, name_len);
	off += nlen;
	SIM_ASSERT(ext4_match(blk, off, name, name_len));
	ext4_dirblock_csum_set(sb, i_csum_seed, blk);   /* ext4_handle_dirty_dirblock */
	*de_off = off;
	return 0;
}

int ext4_generic_delete_entry(const struct ext4_dir_sb *sb, uint8_t *buf, unsigned de_del_off,
			      unsigned buf_size, unsigned csum_size)
{
	unsigned bs = sb->ds_blocksize, i = 0, rlen;
	int pde = -1;

	assert_sb(sb);
	SIM_ASSERT(buf_size <= bs && csum_size < buf_size);
	while (i < buf_size - csum_size) {
		if (ext4_check_dir_entry(sb, buf, buf_size, i))
			return -EFSCORRUPTED;
		rlen = de_rec_len(buf, i, bs);
		if (i == de_del_off) {
			if (pde >= 0) {
				de_set_rec_len(buf, (unsigned)pde,
					       de_rec_len(buf, (unsigned)pde, bs) + rlen, bs);
				memset(buf + i, 0, rlen);       /* wipe entire dir_entry */
			} else {
				/* wipe dir_entry excluding the rec_len field */
				put_le32(buf + i, 0);
				memset(buf + i + offsetof(struct ext4_dir_entry_2, name_len), 0,
				       rlen - offsetof(struct ext4_dir_entry_2, name_len));
			}
			return 0;
		}
		pde = (int)i;
		i += rlen;
	}
	return -ENOENT;
}

int ext4_delete_entry_buf(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
		      unsigned de_del_off)
{
	int err = ext4_generic_delete_entry(sb, blk, de_del_off, sb->ds_blocksize,
					    ext4_dir_csum_size(sb));

	if (err)
		return err;
	ext4_dirblock_csum_set(sb, i_csum_seed, blk);   /* ext4_handle_dirty_dirblock */
	return 0;
}

void ext4_setent(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
		 unsigned de_off, uint32_t ino, uint8_t file_type)
{
	assert_sb(sb);
	SIM_ASSERT(de_off + 12 <= sb->ds_blocksize && de_inode(blk, de_off));
	SIM_ASSERT(ino && ino <= sb->ds_inodes_count && file_type < EXT4_FT_MAX);
	put_le32(blk + de_off, ino);
	blk[de_off + offsetof(struct ext4_dir_entry_2, file_type)] = file_type;
	ext4_dirblock_csum_set(sb, i_csum_seed, blk);
}

/* strcmp(@s, de->name): the name's bytes up to a NUL, whatever name_len says. */
static bool name_is(const uint8_t *b, unsigned off, const char *s)
{
	size_t n = strlen(s) + 1;

	return !memcmp(b + off + EXT4_BASE_DIR_LEN, s, n);
}

int ext4_get_first_dir_block(const struct ext4_dir_sb *sb, const uint8_t *blk, uint32_t ino,
			     unsigned *parent_de_off)
{
	unsigned bs = sb->ds_blocksize, off;

	assert_sb(sb);
	if (ext4_check_dir_entry(sb, blk, bs, 0) || de_inode(blk, 0) != ino || !name_is(blk, 0, "."))
		return -EFSCORRUPTED;   /* "directory missing '.'" */
	off = de_rec_len(blk, 0, bs);
	if (ext4_check_dir_entry(sb, blk, bs, off) || !de_inode(blk, off) ||
	    !name_is(blk, off, ".."))
		return -EFSCORRUPTED;   /* "directory missing '..'" */
	*parent_de_off = off;
	return 0;
}

bool ext4_empty_dir(const struct ext4_dir_sb *sb, const uint8_t *blk, uint32_t lblk,
		    uint32_t ino)
{
	unsigned bs = sb->ds_blocksize, off = 0;

	assert_sb(sb);
	if (lblk == 0) {
		if (ext4_get_first_dir_block(sb, blk, ino, &off))
			return false;
		off += de_rec_len(blk, off, bs);
	}
	while (off < bs) {
		if (ext4_check_dir_entry(sb, blk, bs, off) || de_inode(blk, off))
			return false;
		off += de_rec_len(blk, off, bs);
	}
	return true;
}

int ext4_rename_dir_prepare(const struct ext4_dir_sb *sb, const uint8_t *blk, uint32_t ino,
			    uint32_t old_dir_ino, unsigned *parent_de_off)
{
	unsigned off = 0;
	int err = ext4_get_first_dir_block(sb, blk, ino, &off);

	if (err)
		return err;
	if (de_inode(blk, off) != old_dir_ino)
		return -EFSCORRUPTED;
	*parent_de_off = off;
	return 0;
}

void ext4_rename_dir_finish(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
			    unsigned parent_de_off, uint32_t new_dir_ino)
{
	assert_sb(sb);
	SIM_ASSERT(parent_de_off + 12 <= sb->ds_blocksize && name_is(blk, parent_de_off, ".."));
	SIM_ASSERT(new_dir_ino && new_dir_ino <= sb->ds_inodes_count);
	put_le32(blk + parent_de_off, new_dir_ino);
	ext4_dirblock_csum_set(sb, i_csum_seed, blk);   /* ext4_handle_dirty_dirblock */
}

void ext4_dir_iter_init(struct ext4_dir_iter *it, const struct ext4_dir_sb *sb,
			const uint8_t *blk)
{
	assert_sb(sb);
	*it = (struct ext4_dir_iter){ .di_sb = sb, .di_blk = blk };
}

int ext4_dir_iter_next(struct ext4_dir_iter *it, struct ext4_dirent *out)
{
	unsigned bs = it->di_sb->ds_blocksize, off;
	const uint8_t *b = it->di_blk;

	while (it->di_off < bs) {
		off = it->di_off;
		it->di_reason = ext4_check_dir_entry(it->di_sb, b, bs, off);
		if (it->di_reason) {
			it->di_off = bs;        /* on error, skip to the next block */
			return -EFSCORRUPTED;
		}
		it->di_off += de_rec_len(b, off, bs);
		if (!de_inode(b, off))
			continue;
		dirent_at(b, off, bs, out);
		return 1;
	}
	return 0;
}
