/*
 * dir.h - one ext4 directory block in ext4's on-disk format: the entry
 * (struct ext4_dir_entry_2), the checksum tail (struct ext4_dir_entry_tail),
 * and the kernel's functions over one leaf block of a linear directory
 * (fs/ext4/namei.c, fs/ext4/dir.c), as pure functions of the block's bytes.
 *
 * No function here knows the file system: each takes what the kernel reads
 * of dir->i_sb (struct ext4_dir_sb: the block size, s_inodes_count,
 * metadata_csum), the block's buffer, and where a checksum is written or
 * verified, the directory inode's i_csum_seed (ext4_i_csum_seed).  Entries
 * are addressed by their byte offset in the block; every field is read and
 * written by memcpy (little-endian, as ext4_disk.h).
 *
 * The structures and constants of the format (struct ext4_dir_entry_2,
 * struct ext4_dir_entry_tail, EXT4_FT_*, EXT4_DIR_REC_LEN) are fs/ext4/ext4.h's
 * and so belong with ext4_disk.h by the kernel's split; they are defined
 * here until they move there.
 *
 * What is and is not modelled:
 *   - the file system has filetype (every entry's file_type is set, as
 *     ext4_set_de_type does with the feature) and, as mke2fs makes it,
 *     metadata_csum (a tail in every leaf block; ds_metadata_csum false gives
 *     the block without a tail, for the tests);
 *   - no encryption, no casefolding: a name is its bytes (fscrypt_match_name
 *     without a key), ext4_dir_rec_len(name_len, NULL) everywhere (no hash
 *     stored in the entry), no inline data;
 *   - block sizes 1024, 2048 and 4096 (PAGE_SIZE 4096: rec_len on disk is the
 *     length itself, ext4_rec_len_from_disk's small-page branch);
 *   - a linear directory is one block here: where the kernel would turn a
 *     full directory into an htree (add_dirent_to_buf's -ENOSPC in a
 *     one-block directory with dir_index set: ext4_add_entry calls
 *     make_indexed_dir), add_dirent_to_buf returns -ENOSPC and its caller
 *     refuses the operation (no htree, no second block appended).  The other
 *     functions work on any leaf block, so a directory mke2fs made with
 *     several (lost+found) can be read, searched and emptied block by block.
 *
 * Errors are the kernel's: -EFSCORRUPTED where ext4_check_dir_entry (or
 * the loop's own check) rejects an entry, -EEXIST, -ENOSPC, -ENOENT.
 */
#ifndef EXT4SIM_DIR_H
#define EXT4SIM_DIR_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef EFSCORRUPTED
#define EFSCORRUPTED EUCLEAN            /* file system is corrupted */
#endif

#define EXT4_NAME_LEN 255
#define EXT4_BASE_DIR_LEN 8u            /* an entry without its name */
#define EXT4_DIR_PAD 4u
#define EXT4_DIR_ROUND (EXT4_DIR_PAD - 1)
#define EXT4_MAX_REC_LEN ((1u << 16) - 1)
/* ext4_dir_rec_len(name_len, NULL): the entry's size, rounded up to 4 bytes. */
#define EXT4_DIR_REC_LEN(name_len) (((name_len) + 8u + EXT4_DIR_ROUND) & ~EXT4_DIR_ROUND)

/* Directory file types (file_type); only the low 3 bits are used. */
#define EXT4_FT_UNKNOWN 0
#define EXT4_FT_REG_FILE 1
#define EXT4_FT_DIR 2
#define EXT4_FT_CHRDEV 3
#define EXT4_FT_BLKDEV 4
#define EXT4_FT_FIFO 5
#define EXT4_FT_SOCK 6
#define EXT4_FT_SYMLINK 7
#define EXT4_FT_MAX 8
#define EXT4_FT_DIR_CSUM 0xde           /* the tail's fake file type */

struct ext4_dir_entry_2 {
	uint32_t inode;                 /* Inode number (0: an unused entry) */
	uint16_t rec_len;               /* Directory entry length */
	uint8_t name_len;               /* Name length */
	uint8_t file_type;              /* See file type macros EXT4_FT_* */
	char name[EXT4_NAME_LEN];       /* File name */
};

/* The bogus entry at the end of each leaf block that records its checksum. */
struct ext4_dir_entry_tail {
	uint32_t det_reserved_zero1;    /* Pretend to be unused */
	uint16_t det_rec_len;           /* 12 */
	uint8_t det_reserved_zero2;     /* Zero name length */
	uint8_t det_reserved_ft;        /* 0xDE, fake file type */
	uint32_t det_checksum;          /* crc32c(i_csum_seed, block up to the tail) */
};

_Static_assert(offsetof(struct ext4_dir_entry_2, name) == EXT4_BASE_DIR_LEN, "dirent header");
_Static_assert(sizeof(struct ext4_dir_entry_2) == 264, "dirent: 263 bytes and the padding");
_Static_assert(sizeof(struct ext4_dir_entry_tail) == 12 &&
	       offsetof(struct ext4_dir_entry_tail, det_checksum) == 8, "dirent tail");

/* What the functions read of dir->i_sb. */
struct ext4_dir_sb {
	uint32_t ds_blocksize;          /* 1024, 2048 or 4096 */
	uint32_t ds_inodes_count;       /* s_inodes_count: the highest valid inode number */
	bool ds_metadata_csum;          /* ext4_has_metadata_csum(): a tail in each leaf */
};

/* One live entry, as the iterator (ext4_readdir's loop) and ext4_search_dir hand it out. */
struct ext4_dirent {
	uint32_t d_off;                 /* the entry's byte offset in the block */
	uint32_t d_rec_len;
	uint32_t d_ino;
	uint8_t d_type;                 /* EXT4_FT_* */
	uint8_t d_name_len;
	const char *d_name;             /* in the block: d_name_len bytes, no NUL */
};

/* An iterator over one block's entries in block order (ext4_dir_iter_init). */
struct ext4_dir_iter {
	const struct ext4_dir_sb *di_sb;
	const uint8_t *di_blk;
	uint32_t di_off;                /* the next entry's offset */
	const char *di_reason;          /* after -EFSCORRUPTED: ext4_check_dir_entry's */
};

/*
 * The csum_size of the kernel's callers: sizeof(struct ext4_dir_entry_tail)
 * with metadata_csum, else 0.
 */
static inline uint32_t ext4_dir_csum_size(const struct ext4_dir_sb *sb)
{
	return sb->ds_metadata_csum ? (uint32_t)sizeof(struct ext4_dir_entry_tail) : 0;
}

/*
 * ext4_dir_rec_len(name_len, NULL) (fs/ext4/ext4.h): the bytes an entry of
 * a @name_len-byte name needs, 8 + the name rounded up to 4; no hash is
 * stored after the name (no casefolded, encrypted directory).
 */
unsigned ext4_dir_rec_len(unsigned name_len);
/*
 * ext4_rec_len_from_disk() / ext4_rec_len_to_disk() (fs/ext4/ext4.h) with
 * PAGE_SIZE 4096: the on-disk rec_len is the length; to_disk asserts the
 * kernel's BUG_ON (a length above the block or not a multiple of 4).
 */
unsigned ext4_rec_len_from_disk(uint16_t dlen, unsigned blocksize);
uint16_t ext4_rec_len_to_disk(unsigned len, unsigned blocksize);
/*
 * ext4_type_by_mode[] as ext4_set_de_type() (fs/ext4/ext4.h) reads it with
 * filetype: the EXT4_FT_* of an i_mode (Linux's S_IF* values), EXT4_FT_UNKNOWN
 * for a mode with no file type.
 */
uint8_t ext4_type_by_mode(unsigned mode);

/*
 * The seed of an inode's metadata checksums, ei->i_csum_seed, as ext4_iget()
 * and __ext4_new_inode() compute it: crc32c(crc32c(@s_csum_seed, le32 @ino),
 * le32 @generation), where s_csum_seed is crc32c(~0, s_uuid) (no
 * metadata_csum_seed feature).  A directory block's checksum is seeded with
 * its directory's.
 */
uint32_t ext4_i_csum_seed(uint32_t s_csum_seed, uint32_t ino, uint32_t generation);
/*
 * ext4_initialize_dirent_tail() (fs/ext4/namei.c): the last 12 bytes of
 * @blk become an empty checksum tail (rec_len 12, file type 0xDE, checksum
 * 0); nothing else of the block changes.
 */
void ext4_initialize_dirent_tail(uint8_t *blk, unsigned blocksize);
/*
 * get_dirent_tail() (fs/ext4/namei.c, without PARANOID): whether the last 12
 * bytes of @blk are a checksum tail (zero inode and name length, rec_len
 * 12, file type 0xDE).  Only where the block ends is looked at.
 */
bool get_dirent_tail(const struct ext4_dir_sb *sb, const uint8_t *blk);
/*
 * ext4_dirblock_csum() (fs/ext4/namei.c): crc32c seeded with the
 * directory's @i_csum_seed over the first @size bytes of @blk (the block up
 * to its tail), stored in det_checksum as returned.
 */
uint32_t ext4_dirblock_csum(uint32_t i_csum_seed, const uint8_t *blk, unsigned size);
/*
 * ext4_dirblock_csum_verify() (fs/ext4/namei.c): true without metadata_csum;
 * with it, false when the block has no tail (the kernel's "No space for
 * directory leaf checksum") or the tail's checksum is not the block's.
 * ext4_read_dirblock() answers -EFSBADCRC for a leaf block that fails this.
 */
bool ext4_dirblock_csum_verify(const struct ext4_dir_sb *sb, uint32_t i_csum_seed,
			       const uint8_t *blk);
/*
 * ext4_dirblock_csum_set() (fs/ext4/namei.c), the half of
 * ext4_handle_dirty_dirblock() before the buffer goes to the journal: the
 * tail gets the block's checksum.  False (nothing written) when the block
 * has no tail, true otherwise and without metadata_csum.
 */
bool ext4_dirblock_csum_set(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk);

/*
 * __ext4_check_dir_entry() (fs/ext4/dir.c): the entry at @de_off of @buf,
 * whose first @size bytes are the entries' space (the block, or the block
 * less its tail).  NULL when it is sound, else the kernel's reason, in the
 * kernel's order: "rec_len is smaller than minimal", "rec_len % 4 != 0",
 * "rec_len is too small for name_len", "directory entry overrun",
 * "directory entry too close to block end", "inode out of bounds" (above
 * ds_inodes_count), "'.' directory cannot be the last in data block".
 * @de_off + 8 <= @size (the walks never ask about less).  These are 6.1's
 * checks, one version for every profile: "too close to block end" is not
 * in 4.5.0, 4.15.0, 4.19.0, 5.0.0 and 5.4.0 (it is in 4.4.220, 4.9.337,
 * 4.14.280, 4.19.255, 5.4.286, 5.10 and later), the "'.'" check not in
 * 5.14.0 or older releases but in 5.10.262's backport; the blocks the model writes pass them all, so they
 * differ only on a damaged image.
 */
const char *ext4_check_dir_entry(const struct ext4_dir_sb *sb, const uint8_t *buf,
				 unsigned size, unsigned de_off);

/*
 * ext4_init_dot_dotdot() (fs/ext4/namei.c): "." (@ino, 12 bytes) at 0 and
 * ".." (@parent_ino) after it, both EXT4_FT_DIR; ".." takes the rest of the
 * block up to the tail, or 12 bytes with @dotdot_real_len (the inline-data
 * conversion's case).  Writes only those two entries; returns the offset
 * after "..".
 */
unsigned ext4_init_dot_dotdot(const struct ext4_dir_sb *sb, uint8_t *blk, uint32_t ino,
			      uint32_t parent_ino, bool dotdot_real_len);
/*
 * The first block of a new directory as ext4_init_new_dir() (fs/ext4/namei.c)
 * writes it: the zeroed buffer ext4_append() gets, ext4_init_dot_dotdot()
 * without dotdot_real_len, the tail (metadata_csum) and its checksum.  The
 * inode's side (i_size one block, i_nlink 2) is the caller's.
 */
void ext4_init_new_dir_block(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
			     uint32_t ino, uint32_t parent_ino);
/*
 * The block ext4_add_entry() (fs/ext4/namei.c, at add_to_new_block) puts at
 * the end of a directory after ext4_append(): zeroed, one unused entry
 * (inode 0) up to the tail, the tail and its checksum; the same bytes as
 * e2fsprogs' ext2fs_new_dir_block() for no inode.  Here for directories
 * mke2fs made with several blocks and for the tests: add_dirent_to_buf
 * never appends a block (dir.h's opening comment).
 */
void ext4_init_empty_dirblock(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk);

/*
 * ext4_search_dir() over a whole leaf block, as search_dirblock() calls it
 * (fs/ext4/namei.c): 1 and the entry (its offset, inode, file type) in
 * *@res when a live entry (inode not 0) holds exactly these @name_len
 * (1..255) bytes, 0 when none does; the walk checks
 * only the matching entry in full (-EFSCORRUPTED when it fails
 * ext4_check_dir_entry) and stops with -EFSCORRUPTED on a rec_len of 0.
 */
int ext4_search_dir(const struct ext4_dir_sb *sb, const uint8_t *blk, const char *name,
		    unsigned name_len, struct ext4_dirent *res);
/*
 * ext4_find_dest_de() (fs/ext4/namei.c): the slot a new entry of @name takes
 * in the first @buf_size bytes of @buf (the block less its tail): walking
 * from the start, the first entry whose slack (rec_len less its own
 * ext4_dir_rec_len, a live entry) or whole rec_len (an unused one) holds
 * ext4_dir_rec_len(@name_len).  0 and *@de_off; -EEXIST when a live entry
 * met on the way has the name (entries past the slot are not looked at, as
 * in the kernel: the caller looked the name up first); -ENOSPC; or
 * -EFSCORRUPTED when an entry on the way fails ext4_check_dir_entry.
 */
int ext4_find_dest_de(const struct ext4_dir_sb *sb, const uint8_t *buf, unsigned buf_size,
		      const char *name, unsigned name_len, unsigned *de_off);
/*
 * ext4_insert_dentry() (fs/ext4/namei.c): the entry at @de_off (the slot
 * ext4_find_dest_de chose) takes @name: a live entry is split (it keeps its
 * ext4_dir_rec_len, the new one the rest of its rec_len), an unused one is
 * overwritten with its rec_len kept.  @ino, @file_type (EXT4_FT_*, as
 * ext4_set_de_type sets it) and the name are written; bytes after the name
 * are left as they were.  No checksum.
 */
void ext4_insert_dentry(const struct ext4_dir_sb *sb, uint8_t *blk, unsigned de_off,
			uint32_t ino, uint8_t file_type, const char *name, unsigned name_len);
/*
 * add_dirent_to_buf() (fs/ext4/namei.c) with no slot given:
 * ext4_find_dest_de over the block less its tail, ext4_insert_dentry, and
 * the tail's checksum (ext4_handle_dirty_dirblock's ext4_dirblock_csum_set).
 * 0 and the new entry's offset in *@de_off; or ext4_find_dest_de's error,
 * the block unchanged.  -ENOSPC is where the kernel, in a one-block
 * directory with dir_index, would call make_indexed_dir: the caller refuses
 * (dir.h's opening comment).  The directory inode's side (mtime, ctime,
 * i_version, the journal) is the caller's.
 */
int add_dirent_to_buf(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
		      uint32_t ino, uint8_t file_type, const char *name, unsigned name_len,
		      unsigned *de_off);
/*
 * ext4_generic_delete_entry() (fs/ext4/namei.c): the entry at @de_del_off,
 * found by a walk over @buf_size bytes less @csum_size, goes: merged into
 * the previous entry's rec_len and wiped whole, or, first in the block,
 * left with its rec_len and every other byte zero (inode 0).  0; -ENOENT
 * when no entry of the walk starts at @de_del_off; -EFSCORRUPTED when an
 * entry before it fails ext4_check_dir_entry.  No checksum.
 */
int ext4_generic_delete_entry(const struct ext4_dir_sb *sb, uint8_t *buf, unsigned de_del_off,
			      unsigned buf_size, unsigned csum_size);
/*
 * ext4_delete_entry()'s work on its leaf block (fs/ext4/namei.c):
 * ext4_generic_delete_entry over the block less its tail, then the tail's
 * checksum (ext4_handle_dirty_dirblock).  Its errors, the block unchanged.
 */
int ext4_delete_entry_buf(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
		      unsigned de_del_off);
/*
 * ext4_setent() (fs/ext4/namei.c), rename's rewrite of an existing entry in
 * place (the target of a rename over a name, both names of
 * RENAME_EXCHANGE): the live entry at @de_off gets @ino and @file_type, the
 * tail its checksum; name and rec_len unchanged.
 */
void ext4_setent(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
		 unsigned de_off, uint32_t ino, uint8_t file_type);

/*
 * ext4_empty_dir() (fs/ext4/namei.c) for one block, logical block @lblk of
 * directory @ino: in block 0, "." must be the first entry (sound, inode
 * @ino, name ".") and ".." the second (sound, inode not 0, name ".."), as
 * strcmp reads the names; then, in any block, every entry must be sound
 * with inode 0 (the tail is such an entry).  False for a live entry and for
 * a bad or missing one, as the kernel's, whose rmdir then answers
 * -ENOTEMPTY; a directory is empty when each of its blocks is.
 */
bool ext4_empty_dir(const struct ext4_dir_sb *sb, const uint8_t *blk, uint32_t lblk,
		    uint32_t ino);
/*
 * ext4_get_first_dir_block() (fs/ext4/namei.c) on directory @ino's block 0:
 * "." and ".." checked as ext4_empty_dir checks them; 0 and the offset of
 * ".." in *@parent_de_off, or -EFSCORRUPTED ("directory missing '.'",
 * "directory missing '..'").
 */
int ext4_get_first_dir_block(const struct ext4_dir_sb *sb, const uint8_t *blk, uint32_t ino,
			     unsigned *parent_de_off);
/*
 * ext4_rename_dir_prepare() (fs/ext4/namei.c), for a directory @ino moved
 * out of @old_dir_ino: ext4_get_first_dir_block, and -EFSCORRUPTED unless
 * ".." names @old_dir_ino.  0 and ".."'s offset in *@parent_de_off.
 */
int ext4_rename_dir_prepare(const struct ext4_dir_sb *sb, const uint8_t *blk, uint32_t ino,
			    uint32_t old_dir_ino, unsigned *parent_de_off);
/*
 * ext4_rename_dir_finish() (fs/ext4/namei.c) for a linear directory: ".."
 * at @parent_de_off (from ext4_rename_dir_prepare) names @new_dir_ino, and
 * the tail gets the block's checksum (ext4_handle_dirty_dirblock).  The
 * link counts (ext4_update_dir_count) are the caller's.
 */
void ext4_rename_dir_finish(const struct ext4_dir_sb *sb, uint32_t i_csum_seed, uint8_t *blk,
			    unsigned parent_de_off, uint32_t new_dir_ino);

/*
 * The walk of ext4_readdir() (fs/ext4/dir.c) over one block, from offset 0:
 * ext4_dir_iter_next() checks each entry with ext4_check_dir_entry over the
 * whole block and hands out the live ones (inode not 0) in block order: 1
 * and *@out; 0 at the block's end; -EFSCORRUPTED at a bad entry, its reason
 * in it->di_reason, after which the walk is at the end (readdir skips to the
 * next block).  The block must outlive the iterator (d_name points into it).
 */
void ext4_dir_iter_init(struct ext4_dir_iter *it, const struct ext4_dir_sb *sb,
			const uint8_t *blk);
int ext4_dir_iter_next(struct ext4_dir_iter *it, struct ext4_dirent *out);

#endif
