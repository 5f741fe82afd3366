/*
 * orphan.c - the orphan list (fs/ext4/orphan.c): inodes whose blocks past
 * EOF must be freed, or which no name holds, if a crash interrupts the
 * operation that put them there.  Without the orphan_file feature (mke2fs
 * 1.47's default) the list's head is the superblock's s_last_orphan and
 * each inode's i_dtime names the next; an inode joins at the head.  Adding
 * and removing journal the superblock (or the previous inode) and the
 * inode; mount runs ext4_orphan_cleanup(), which truncates a linked inode
 * to its on-disk size and frees one no name holds.
 */
#include "ext4.h"
#include "namei.h"

/* s_last_orphan := @ino under @h (ext4_handle_dirty_super). */
static void set_last_orphan(struct ext4_fs *fs, handle_t *h, uint32_t ino)
{
	struct ext4_super_block es;

	ext4_get_super(fs, &es);
	es.s_last_orphan = ino;
	ext4_put_super_fields(fs, &es);
	ext4_handle_dirty_super(fs, h);
}

static uint32_t last_orphan(const struct ext4_fs *fs)
{
	struct ext4_super_block es;

	ext4_get_super(fs, &es);
	return es.s_last_orphan;
}

/* ext4_orphan_add(): the current inode at the list's head, under @h. */
int ext4_orphan_add(struct ext4_fs *fs, handle_t *h)
{
	struct ext4_inode_info *ei = fs->inode;

	SIM_ASSERT(h != NULL);
	if (ei->i_orphan)
		return 0;
	ei->i_orphan = true;
	ei->i_next_orphan = last_orphan(fs);
	set_last_orphan(fs, h, ei->i_ino);
	return ext4_mark_inode_dirty(fs, h);
}

/* The in-core inode whose i_dtime names @ino on the list, or NULL. */
static struct ext4_inode_info *orphan_prev(const struct ext4_fs *fs, uint32_t ino)
{
	for (uint32_t i = 0; i < fs->s_nr_inodes; i++)
		if (fs->s_inodes[i]->i_orphan && fs->s_inodes[i]->i_next_orphan == ino)
			return fs->s_inodes[i];
	return NULL;
}

/*
 * ext4_orphan_del(): the current inode off the list; the head or the
 * previous inode then names the next.  With no handle (an error path) only
 * the in-memory list changes.
 */
int ext4_orphan_del(struct ext4_fs *fs, handle_t *h)
{
	struct ext4_inode_info *ei = fs->inode, *prev;
	uint32_t next = ei->i_next_orphan;

	if (!ei->i_orphan)
		return 0;
	ei->i_orphan = false;
	ei->i_next_orphan = 0;
	if (!h)
		return 0;
	if (last_orphan(fs) == ei->i_ino) {
		set_last_orphan(fs, h, next);
	} else if ((prev = orphan_prev(fs, ei->i_ino)) != NULL) {
		prev->i_next_orphan = next;
		fs->inode = prev;
		ext4_mark_inode_dirty(fs, h);
		fs->inode = ei;
	}
	return ext4_mark_inode_dirty(fs, h);
}

bool ext4_orphan_listed(const struct ext4_fs *fs, uint32_t ino)
{
	struct ext4_super_block es;
	uint32_t at = last_orphan(fs);

	ext4_get_super(fs, &es);
	for (uint32_t seen = 0; at != 0 && at <= es.s_inodes_count && seen < es.s_inodes_count;
	     seen++) {
		struct ext4_inode raw;

		if (at == ino)
			return true;
		ext4_read_raw_inode(fs, at, &raw);
		at = raw.i_dtime;
	}
	return false;
}

/* Read the list: each inode in core, marked, its successor from i_dtime. */
static int orphan_read_list(struct ext4_fs *fs)
{
	uint32_t ino = last_orphan(fs), seen = 0;
	struct ext4_super_block es;

	ext4_get_super(fs, &es);
	while (ino != 0) {
		struct ext4_inode_info *ei;
		struct ext4_inode raw;
		int err;

		if (ino > es.s_inodes_count || ++seen > es.s_inodes_count) {
			fs->s_mount_error = "the orphan list names no inode or loops";
			return -EFSCORRUPTED;
		}
		if ((err = __ext4_iget(fs, ino, true, &ei)) < 0)
			return err;
		ext4_read_raw_inode(fs, ino, &raw);
		ei->i_orphan = true;
		ei->i_next_orphan = raw.i_dtime;
		ino = raw.i_dtime;
	}
	return 0;
}

/*
 * ext4_orphan_cleanup(): every inode of the list, from its head: one no
 * name holds is freed (iput: ext4_evict_inode), a linked one truncated to
 * its on-disk size (ext4_truncate, which takes it off the list).
 */
int ext4_orphan_cleanup(struct ext4_fs *fs)
{
	struct ext4_inode_info *was = fs->inode;
	int err = orphan_read_list(fs);

	while (!err && last_orphan(fs) != 0) {
		struct ext4_inode_info *ei = ext4_ilookup(fs, last_orphan(fs));

		SIM_ASSERT(ei && ei->i_orphan);
		if (ei->i_links_count == 0) {
			if (was == ei)
				was = NULL;
			err = ext4_evict_inode(fs, ei);
			continue;
		}
		fs->inode = ei;
		err = ext4_truncate(fs);
		fs->inode = was ? was : ei;
	}
	if (!err && !was)
		err = __ext4_iget(fs, EXT4_ROOT_INO, false, &fs->inode);
	return err;
}
