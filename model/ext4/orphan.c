/*
 * orphan.c - the orphan list (fs/ext4/orphan.c): an inode whose blocks past
 * EOF must be freed if a crash interrupts the operation that put it there.
 * The model keeps the mark in the raw inode, journaled with it; mount runs
 * ext4_orphan_cleanup(), which truncates the inode to its on-disk size.
 */
#include "ext4.h"

int ext4_orphan_add(struct ext4_fs *fs, handle_t *h)
{
	SIM_ASSERT(h != NULL);
	if (fs->inode.i_orphan)
		return 0;
	fs->inode.i_orphan = true;
	return ext4_mark_inode_dirty(fs, h);
}

/* With no handle (an error path) only the in-memory list changes. */
int ext4_orphan_del(struct ext4_fs *fs, handle_t *h)
{
	if (!fs->inode.i_orphan)
		return 0;
	fs->inode.i_orphan = false;
	if (!h)
		return 0;
	return ext4_mark_inode_dirty(fs, h);
}

/* ext4_orphan_cleanup() for the one file (nlink > 0): truncate it. */
int ext4_orphan_cleanup(struct ext4_fs *fs)
{
	SIM_ASSERT(fs->inode.i_orphan);
	return ext4_truncate(fs);
}
