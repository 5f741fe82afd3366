/*
 * namei.h - the namespace: directories in ext4's linear format, the inode
 * allocator, and the operations that create, link, unlink and rename names
 * (fs/ext4/namei.c, ialloc.c, symlink.c; fs/namei.c's path walk).
 *
 * Every operation takes a path relative to the file system's root (a
 * leading "/" means the same), walks it component by component through
 * ext4_lookup (in-core inodes are read on first use, __ext4_iget), and
 * returns 0 or the kernel's -errno: ENOENT, EEXIST, ENOTDIR, EISDIR,
 * ENOTEMPTY, EINVAL (a rename into its own subdirectory, of "." or ".."),
 * EMLINK, ENAMETOOLONG, ENOSPC.  A directory here is one block: a name that
 * does not fit where the kernel would convert the directory to an htree
 * (make_indexed_dir) is refused with -ENOSPC and fs->s_mount_error naming
 * the limit.  Each operation runs in one handle, as the kernel's, and
 * leaves the current inode (fs->inode) as it found it unless it says
 * otherwise.
 */
#ifndef EXT4SIM_NAMEI_H
#define EXT4SIM_NAMEI_H

#include <stdbool.h>
#include <stdint.h>

#include "dir.h"
#include "ext4.h"

#define EXT4_LINK_MAX 65000u            /* i_links_count's limit */
#define EXT4_PATH_MAX 1024u             /* a path the walk takes, the NUL included */
#define RENAME_NOREPLACE 1u
#define RENAME_EXCHANGE 2u

/* ialloc.c */
/* Is inode @ino's bit set in its group's inode bitmap? */
bool ext4_inode_in_use(struct ext4_fs *fs, uint32_t ino);
/* ext4_read_inode_bitmap(): group @g's inode bitmap (an INODE_UNINIT group's all free). */
uint8_t *ext4_read_inode_bitmap(struct ext4_fs *fs, uint32_t g);
/*
 * ext4_new_inode(): a free inode near @dir's group, its bit set, its raw
 * inode initialised (mode @mode, one link, extents for a file or a
 * directory), in core in *@out, its i_sync_tid and i_datasync_tid @h's
 * transaction; -ENOSPC when no inode is free.
 */
int ext4_new_inode(struct ext4_fs *fs, handle_t *h, const struct ext4_inode_info *dir,
		   uint16_t mode, struct ext4_inode_info **out);
void ext4_free_inode(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei);
int ext4_evict_inode(struct ext4_fs *fs, struct ext4_inode_info *ei);

/* namei.c: the walk and the entries */
enum ext4_last_type { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

/* struct nameidata's part the model needs: a path's last component and its directory. */
struct ext4_nameidata {
	struct ext4_inode_info *nd_dir;
	char nd_name[EXT4_NAME_LEN + 1];
	unsigned nd_len;
	uint8_t nd_type;                /* enum ext4_last_type */
	uint32_t nd_lblk;               /* after ext4_nd_lookup: the entry's block ... */
	struct ext4_dirent nd_de;       /* ... the entry ... */
	struct ext4_inode_info *nd_inode;       /* ... and its inode */
};

struct ext4_dir_sb ext4_dir_sb_of(const struct ext4_fs *fs);
/* ext4_mark_inode_dirty() of @ei, the current inode kept. */
void ext4_mark_other_dirty(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei);
uint32_t ext4_dir_nblocks(const struct ext4_fs *fs, const struct ext4_inode_info *dir);
/* Directory @dir's block @lblk, held (its number in *@pblk), or NULL for a hole. */
uint8_t *ext4_dir_block(struct ext4_fs *fs, const struct ext4_inode_info *dir, uint32_t lblk,
			uint32_t *pblk);
int ext4_find_entry(struct ext4_fs *fs, const struct ext4_inode_info *dir, const char *name,
		    unsigned len, uint32_t *lblk, struct ext4_dirent *de);
int ext4_add_entry(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *dir,
		   const char *name, unsigned len, const struct ext4_inode_info *inode);
int ext4_delete_entry(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *dir,
		      uint32_t lblk, const struct ext4_dirent *de);
/*
 * The inode @path names, from the root; its last symbolic link followed
 * when @follow.  0 with it in core in *@out, or -ENOENT, -ENOTDIR, -ELOOP,
 * -ENAMETOOLONG, or a corrupt directory's error.
 */
int ext4_path_lookup(struct ext4_fs *fs, const char *path, bool follow,
		     struct ext4_inode_info **out);
/* One component @name looked up in directory @dir ("." and ".." too), not followed. */
int ext4_path_lookup_at(struct ext4_fs *fs, struct ext4_inode_info *dir, const char *name,
			struct ext4_inode_info **out);
int ext4_path_parent(struct ext4_fs *fs, const char *path, struct ext4_nameidata *nd);
int ext4_nd_lookup(struct ext4_fs *fs, struct ext4_nameidata *nd);
/*
 * The file /f names (its last link followed), when a regular file, made
 * current: what a reader of the scenario's file finds (reports and the
 * crash states' size and bytes).
 */
void ext4_current_is_f(struct ext4_fs *fs);
/* iput() of an inode no name holds and no file has open: ext4_evict_inode. */
int ext4_iput(struct ext4_fs *fs, struct ext4_inode_info *ei);

/* namei.c: the operations (0 or -errno) */
int ext4_open_path(struct ext4_fs *fs, const char *path, bool creat, bool trunc);
int ext4_creat(struct ext4_fs *fs, const char *path);
int ext4_mkdir(struct ext4_fs *fs, const char *path);
int ext4_rmdir(struct ext4_fs *fs, const char *path);
int ext4_link(struct ext4_fs *fs, const char *oldpath, const char *newpath);
int ext4_unlink(struct ext4_fs *fs, const char *path);
int ext4_rename(struct ext4_fs *fs, const char *oldpath, const char *newpath, unsigned flags);
int ext4_symlink(struct ext4_fs *fs, const char *target, const char *path);
/* fsync(2)/fdatasync(2) of @path: open, ext4_sync_file, close. */
int ext4_fsync_path(struct ext4_fs *fs, const char *path, bool datasync);
/* The current file's close (ext4_release_file, then iput: an unlinked inode goes). */
int ext4_close_current(struct ext4_fs *fs);

/* readdir.c */
struct nsnap;
/*
 * The namespace from the root (every name with its inode, the inodes in
 * use no name reaches, the orphan list's length) into @out, sorted; 0, or
 * the error of a directory or inode the walk cannot read.
 */
int ext4_ns_read(struct ext4_fs *fs, struct nsnap *out);

#endif
