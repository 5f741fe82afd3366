/*
 * orphan.c - the orphan list (fs/ext4/orphan.c): an inode whose blocks past
 * EOF must be freed if a crash interrupts the operation that put it there.
 * Without the orphan_file feature (mke2fs 1.47's default) the list's head
 * is the superblock's s_last_orphan and each inode's i_dtime names the next;
 * the file is the list's only member, so its i_dtime stays 0.  Adding and
 * removing journal the superblock and the inode; mount runs
 * ext4_orphan_cleanup(), which truncates the inode to its on-disk size.
 */
#include "ext4.h"

/* s_last_orphan := @ino under @h (ext4_handle_dirty_super). */
static void set_last_orphan(struct ext4_fs *fs, handle_t *h, uint32_t ino)
{
	struct ext4_super_block es;

	ext4_get_super(fs, &es);
	es.s_last_orphan = ino;
	ext4_put_super_fields(fs, &es);
	ext4_handle_dirty_super(fs, h);
}

int ext4_orphan_add(struct ext4_fs *fs, handle_t *h)
{
	SIM_ASSERT(h != NULL);
	if (fs->inode->i_orphan)
		return 0;
	fs->inode->i_orphan = true;
	set_last_orphan(fs, h, EXT4_FILE_INO);
	return ext4_mark_inode_dirty(fs, h);
}

/* With no handle (an error path) only the in-memory list changes. */
int ext4_orphan_del(struct ext4_fs *fs, handle_t *h)
{
	if (!fs->inode->i_orphan)
		return 0;
	fs->inode->i_orphan = false;
	if (!h)
		return 0;
	set_last_orphan(fs, h, 0);
	return ext4_mark_inode_dirty(fs, h);
}

/* ext4_orphan_cleanup() for the one file (nlink > 0): truncate it. */
int ext4_orphan_cleanup(struct ext4_fs *fs)
{
	SIM_ASSERT(fs->inode->i_orphan);
	return ext4_truncate(fs);
}
