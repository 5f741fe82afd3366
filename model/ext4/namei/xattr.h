/*
 * xattr.h - extended attributes in ext4's on-disk format (fs/ext4/xattr.h,
 * fs/ext4/xattr.c, fs/xattr.c's setxattr and removexattr): the entries in
 * the inode's extra space after i_extra_isize (struct
 * ext4_xattr_ibody_header, then the entries, their values packed from the
 * inode's end), then one xattr block (struct ext4_xattr_header, the
 * entries sorted, the values from the block's end, the entries' and the
 * header's hashes and the block's checksum), named by i_file_acl.
 *
 * A value lives in the inode or the block whole (no ea_inode feature: a
 * value that fits neither is -ENOSPC).  Inodes whose blocks would hold the
 * same entries share one block (h_refcount), found through the file
 * system's mb_cache of the blocks it created or kept since the mount
 * (ext4_xattr_block_cache_find: fs->s_ea_cache, in memory, empty after a
 * mount or a crash); a shared block is copied on its first change.
 */
#ifndef EXT4SIM_XATTR_H
#define EXT4SIM_XATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ext4.h"

#define EXT4_XATTR_MAGIC 0xEA020000u
#define EXT4_XATTR_INDEX_USER 1
#define EXT4_XATTR_INDEX_TRUSTED 4
#define EXT4_XATTR_INDEX_SECURITY 6
#define EXT4_XATTR_PAD 4u
#define EXT4_XATTR_ROUND 3u
#define XATTR_NAME_MAX 255u             /* include/uapi/linux/limits.h: a name's bytes */
#define XATTR_SIZE_MAX 65536u           /* a value's bytes (setxattr(): E2BIG past it) */
#define XATTR_CREATE 0x1                /* include/uapi/linux/xattr.h */
#define XATTR_REPLACE 0x2

/* The block's header (32 bytes). */
struct ext4_xattr_header {
	uint32_t h_magic;               /* EXT4_XATTR_MAGIC */
	uint32_t h_refcount;            /* inodes that name the block (i_file_acl) */
	uint32_t h_blocks;              /* 1 */
	uint32_t h_hash;                /* ext4_xattr_rehash of the entries' hashes */
	uint32_t h_checksum;            /* ext4_xattr_block_csum */
	uint32_t h_reserved[3];
};

/* The in-inode area's header, at 128 + i_extra_isize. */
struct ext4_xattr_ibody_header {
	uint32_t h_magic;
};

/* One entry; e_name (e_name_len bytes, no NUL) follows, padded to 4 bytes. */
struct ext4_xattr_entry {
	uint8_t e_name_len;
	uint8_t e_name_index;           /* EXT4_XATTR_INDEX_*: the name's prefix */
	uint16_t e_value_offs;          /* from the block's start, or the ibody's first entry */
	uint32_t e_value_inum;          /* ea_inode (not modelled): 0 */
	uint32_t e_value_size;
	uint32_t e_hash;                /* ext4_xattr_hash_entry; 0 in the inode */
};

_Static_assert(sizeof(struct ext4_xattr_header) == 32, "ext4_xattr_header");
_Static_assert(sizeof(struct ext4_xattr_entry) == 16, "ext4_xattr_entry");

#define EXT4_XATTR_LEN(name_len) \
	(((name_len) + EXT4_XATTR_ROUND + sizeof(struct ext4_xattr_entry)) & ~EXT4_XATTR_ROUND)
#define EXT4_XATTR_SIZE(size) (((size) + EXT4_XATTR_ROUND) & ~EXT4_XATTR_ROUND)

/* One attribute as listxattr and getxattr show it: its whole name, its value in place. */
struct ext4_xattr_pair {
	char xp_name[XATTR_NAME_MAX + 1];       /* "user.foo" */
	const uint8_t *xp_value;                /* in a held buffer: valid until the next change */
	uint32_t xp_len;
	bool xp_in_block;                       /* in the xattr block (else in the inode) */
};

#define EXT4_XATTR_LIST_MAX 512u        /* pairs an inode can hold: a 64 KiB block's worth */

/*
 * setxattr(2) of @path (its last symbolic link followed), @name the whole
 * name ("user.foo"), @value of @len bytes, @flags 0, XATTR_CREATE or
 * XATTR_REPLACE: the VFS's checks (-ERANGE for a name past XATTR_NAME_MAX,
 * -EOPNOTSUPP for a prefix ext4 has no handler for, -EINVAL for an empty
 * name after the prefix, -EPERM for user.* on a file neither regular nor a
 * directory), then ext4_xattr_set: one handle, ext4_xattr_set_handle.
 * 0 or -errno (-ENODATA, -EEXIST, -ENOSPC, a corrupt block's error).
 */
int ext4_setxattr(struct ext4_fs *fs, const char *path, const char *name, const void *value,
		  size_t len, int flags);
/* removexattr(2): the same checks, then ext4_xattr_set with no value and XATTR_REPLACE. */
int ext4_removexattr(struct ext4_fs *fs, const char *path, const char *name);
/*
 * listxattr(2) and getxattr(2) of @ei at once: its attributes, the inode's
 * first (in their order there), then the block's, into @out (at most @cap);
 * their number in *@nr.  0, or the error of a corrupt area or block.
 */
int ext4_xattr_list(struct ext4_fs *fs, const struct ext4_inode_info *ei,
		    struct ext4_xattr_pair *out, uint32_t cap, uint32_t *nr);
/* Does @ei hold attributes: its inode area's magic, or an xattr block? */
bool ext4_has_xattrs(struct ext4_fs *fs, const struct ext4_inode_info *ei);
/*
 * ext4_xattr_delete_inode(): an inode being freed releases its xattr block
 * (freed and revoked when no other inode names it), i_file_acl 0, under @h.
 */
void ext4_xattr_delete_inode(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei);
/* ext4_xattr_hash_entry(): an entry's hash over its name and @value_count value words. */
uint32_t ext4_xattr_hash_entry(const char *name, size_t name_len, const uint8_t *value,
			       size_t value_count);
/* ext4_xattr_block_csum(): crc32c of the block number and the block, h_checksum as 0. */
uint32_t ext4_xattr_block_csum(const struct ext4_fs *fs, uint64_t blocknr, const uint8_t *blk);

#endif
