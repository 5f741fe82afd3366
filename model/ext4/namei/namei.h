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

#include "ext4.h"

#define EXT4_NAME_LEN 255u
#define EXT4_LINK_MAX 65000u            /* i_links_count's limit */
#define RENAME_NOREPLACE 1u
#define RENAME_EXCHANGE 2u

/* ialloc.c */
/* Is inode @ino's bit set in its group's inode bitmap? */
bool ext4_inode_in_use(struct ext4_fs *fs, uint32_t ino);
/*
 * ext4_new_inode(): a free inode near @dir's group, its bit set, its raw
 * inode initialised (mode @mode, one link, extents for a file or a
 * directory), in core in *@out; -ENOSPC when no inode is free.
 */
int ext4_new_inode(struct ext4_fs *fs, handle_t *h, const struct ext4_inode_info *dir,
		   uint16_t mode, struct ext4_inode_info **out);
void ext4_free_inode(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei);
int ext4_evict_inode(struct ext4_fs *fs, struct ext4_inode_info *ei);

/* namei.c: the operations (0 or -errno) */
int ext4_lookup_path(struct ext4_fs *fs, const char *path, struct ext4_inode_info **out);
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

#endif
