/*
 * namei.c - names: the path walk (fs/namei.c's link_path_walk, lookup_fast
 * and the symlink walk), the directory entries of fs/ext4/namei.c
 * (ext4_find_entry, ext4_add_entry, ext4_delete_entry) over dir.c's block
 * functions, and the operations that make and remove names: ext4_create,
 * ext4_mkdir, ext4_rmdir, ext4_link, ext4_unlink, ext4_symlink (symlink.c).
 * rename is namei_rename.c's.
 *
 * Directory blocks are metadata: held buffers (ext4_meta_get), changed under
 * the operation's handle and journaled (ext4_handle_dirty_dirblock), their
 * checksum tail set at each change.  A directory's blocks are its extents
 * (written, allocated by ext4_map_blocks as the kernel's ext4_append does).
 * Every entry change dirties the directory's inode (its mtime and ctime
 * move in the kernel: ext4_mark_inode_dirty journals its inode-table block).
 */
#include <string.h>

#include "dir.h"
#include "ext4.h"
#include "namei.h"

#define NS_CREDITS 32u          /* EXT4_DATA_TRANS_BLOCKS + EXT4_INDEX_EXTRA_TRANS_BLOCKS + 3 */
#define NS_MAXSYMLINKS 40u      /* fs/namei.c's MAXSYMLINKS */

struct ext4_dir_sb ext4_dir_sb_of(const struct ext4_fs *fs)
{
	struct ext4_dir_sb sb;
	struct ext4_super_block es;

	ext4_get_super(fs, &es);
	sb.ds_blocksize = fs->opts.block_size;
	sb.ds_inodes_count = es.s_inodes_count;
	sb.ds_metadata_csum = fs->lay.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	return sb;
}

void ext4_mark_other_dirty(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei)
{
	struct ext4_inode_info *was = fs->inode;

	fs->inode = ei;
	ext4_mark_inode_dirty(fs, h);
	fs->inode = was;
}

uint32_t ext4_dir_nblocks(const struct ext4_fs *fs, const struct ext4_inode_info *dir)
{
	return (uint32_t)(dir->i_size / fs->opts.block_size);
}

uint8_t *ext4_dir_block(struct ext4_fs *fs, const struct ext4_inode_info *dir, uint32_t lblk,
			uint32_t *pblk)
{
	uint32_t len;

	if (es_lookup(&dir->i_es, lblk, pblk, &len) != ES_WRITTEN)
		return NULL;
	return ext4_meta_get(fs, *pblk);
}

/*
 * ext4_find_entry(): the live entry @name of directory @dir, block by block
 * (ext4_read_dirblock verifies each block's checksum first).  0 with the
 * entry's block in *@lblk and the entry in *@de, -ENOENT, or the error of a
 * corrupt block (-EFSBADCRC, -EFSCORRUPTED).
 */
int ext4_find_entry(struct ext4_fs *fs, const struct ext4_inode_info *dir, const char *name,
		    unsigned len, uint32_t *lblk, struct ext4_dirent *de)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);

	for (uint32_t b = 0; b < ext4_dir_nblocks(fs, dir); b++) {
		uint32_t pblk;
		const uint8_t *blk = ext4_dir_block(fs, dir, b, &pblk);
		int err;

		if (!blk)
			return -EFSCORRUPTED;   /* a hole in a directory */
		if (!ext4_dirblock_csum_verify(&sb, dir->i_csum_seed, blk))
			return -EFSBADCRC;
		err = ext4_search_dir(&sb, blk, name, len, de);
		if (err < 0)
			return err;
		if (err == 1) {
			*lblk = b;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * ext4_add_entry(): @name for @inode in the first block of @dir with room
 * (add_dirent_to_buf), journaled, the directory's inode dirtied.  A
 * directory with no room is -ENOSPC, its reason in fs->s_ns_error: where
 * the kernel would make the directory an htree (make_indexed_dir) or
 * append a block, neither of which the model does.
 */
int ext4_add_entry(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *dir,
		   const char *name, unsigned len, const struct ext4_inode_info *inode)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);
	uint8_t type = ext4_type_by_mode(inode->i_mode);

	for (uint32_t b = 0; b < ext4_dir_nblocks(fs, dir); b++) {
		uint32_t pblk;
		uint8_t *blk = ext4_dir_block(fs, dir, b, &pblk);
		unsigned off;
		int err;

		if (!blk)
			return -EFSCORRUPTED;
		err = add_dirent_to_buf(&sb, dir->i_csum_seed, blk, inode->i_ino, type, name, len,
					&off);
		if (err == -ENOSPC)
			continue;
		if (err < 0)
			return err;
		jbd2_journal_dirty_metadata(h, pblk);
		ext4_mark_other_dirty(fs, h, dir);
		return 0;
	}
	fs->s_ns_error = ext4_dir_nblocks(fs, dir) == 1
		? "the directory's block is full: the kernel would make it an htree "
		  "(make_indexed_dir), which the model does not build"
		: "the directory's blocks are full: the kernel would append one, which the "
		  "model does not";
	return -ENOSPC;
}

/* ext4_delete_entry(): the entry at @de in block @lblk of @dir removed, journaled. */
int ext4_delete_entry(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *dir,
		      uint32_t lblk, const struct ext4_dirent *de)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);
	uint32_t pblk;
	uint8_t *blk = ext4_dir_block(fs, dir, lblk, &pblk);
	int err;

	SIM_ASSERT(blk != NULL);
	err = ext4_delete_entry_buf(&sb, dir->i_csum_seed, blk, de->d_off);
	if (err < 0)
		return err;
	jbd2_journal_dirty_metadata(h, pblk);
	return 0;
}

/* --- the path walk --- */

/* A symbolic link's target (fast: i_block; slow: its block), NUL-terminated. */
static int read_link(struct ext4_fs *fs, const struct ext4_inode_info *ei, char *out,
		     size_t cap)
{
	size_t n = (size_t)ei->i_size;
	uint32_t pblk, len;

	if (n == 0 || n >= cap)
		return -ENAMETOOLONG;
	if (ei->i_fast_symlink) {
		memcpy(out, ei->i_data, n);
	} else {
		if (es_lookup(&ei->i_es, 0, &pblk, &len) != ES_WRITTEN)
			return -EFSCORRUPTED;
		memcpy(out, ext4_meta_get(fs, pblk), n);
	}
	out[n] = '\0';
	return 0;
}

static int walk(struct ext4_fs *fs, struct ext4_inode_info *start, const char *path,
		bool follow_last, unsigned *links, struct ext4_inode_info **out);

/*
 * One component from directory @dir: "." stays, ".." goes to the parent
 * (the root's is the root), a name is looked up and read in core; a
 * symbolic link is followed when @follow (its target walked from @dir, or
 * from the root when absolute), at most NS_MAXSYMLINKS in a walk (-ELOOP).
 */
static int walk_component(struct ext4_fs *fs, struct ext4_inode_info *dir, const char *name,
			  unsigned len, bool follow, unsigned *links, struct ext4_inode_info **out)
{
	struct ext4_dirent de;
	uint32_t lblk;
	char target[EXT4_NAME_LEN + 1];
	int err;

	if (!S_ISDIR(dir->i_mode))
		return -ENOTDIR;
	if (len == 1 && name[0] == '.') {
		*out = dir;
		return 0;
	}
	if (len == 2 && name[0] == '.' && name[1] == '.' && dir->i_ino == EXT4_ROOT_INO) {
		*out = dir;
		return 0;
	}
	if ((err = ext4_find_entry(fs, dir, name, len, &lblk, &de)) < 0 ||
	    (err = __ext4_iget(fs, de.d_ino, false, out)) < 0)
		return err;
	if (!follow || !S_ISLNK((*out)->i_mode))
		return 0;
	if (++*links > NS_MAXSYMLINKS)
		return -ELOOP;
	if ((err = read_link(fs, *out, target, sizeof(target))) < 0)
		return err;
	return walk(fs, dir, target, true, links, out);
}

/*
 * link_path_walk(): @path from @start (the root when @path begins with
 * "/"), every component through walk_component; the last one's symbolic
 * link followed when @follow_last.  The result in *@out.
 */
static int walk(struct ext4_fs *fs, struct ext4_inode_info *start, const char *path,
		bool follow_last, unsigned *links, struct ext4_inode_info **out)
{
	struct ext4_inode_info *cur = start;
	const char *p = path;
	int err;

	if (*p == '/' && (err = __ext4_iget(fs, EXT4_ROOT_INO, false, &cur)) < 0)
		return err;
	while (*p) {
		const char *e;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		e = e ? e : p + strlen(p);
		if (e - p > (ptrdiff_t)EXT4_NAME_LEN)
			return -ENAMETOOLONG;
		err = walk_component(fs, cur, p, (unsigned)(e - p), *e == '/' || follow_last,
				     links, &cur);
		if (err < 0)
			return err;
		p = e;
	}
	*out = cur;
	return 0;
}

int ext4_path_lookup(struct ext4_fs *fs, const char *path, bool follow,
		     struct ext4_inode_info **out)
{
	struct ext4_inode_info *root;
	unsigned links = 0;
	int err = __ext4_iget(fs, EXT4_ROOT_INO, false, &root);

	return err < 0 ? err : walk(fs, root, path, follow, &links, out);
}

int ext4_path_lookup_at(struct ext4_fs *fs, struct ext4_inode_info *dir, const char *name,
			struct ext4_inode_info **out)
{
	unsigned links = 0;

	return walk_component(fs, dir, name, (unsigned)strlen(name), false, &links, out);
}

/*
 * path_parentat(): the directory that holds @path's last component, and
 * that component, its kind (LAST_NORM, or "." / ".." as LAST_DOT and
 * LAST_DOTDOT) in nd->nd_type.
 */
int ext4_path_parent(struct ext4_fs *fs, const char *path, struct ext4_nameidata *nd)
{
	const char *end = path + strlen(path), *last;
	char head[EXT4_PATH_MAX];
	struct ext4_inode_info *root;
	unsigned links = 0;
	int err;

	while (end > path && end[-1] == '/')
		end--;
	last = end;
	while (last > path && last[-1] != '/')
		last--;
	if ((size_t)(last - path) >= sizeof(head) || end - last > (ptrdiff_t)EXT4_NAME_LEN)
		return -ENAMETOOLONG;
	memcpy(head, path, (size_t)(last - path));
	head[last - path] = '\0';
	nd->nd_len = (unsigned)(end - last);
	memcpy(nd->nd_name, last, nd->nd_len);
	nd->nd_name[nd->nd_len] = '\0';
	nd->nd_type = nd->nd_len == 0 ? LAST_ROOT
		    : !strcmp(nd->nd_name, ".") ? LAST_DOT
		    : !strcmp(nd->nd_name, "..") ? LAST_DOTDOT : LAST_NORM;
	if ((err = __ext4_iget(fs, EXT4_ROOT_INO, false, &root)) < 0 ||
	    (err = walk(fs, root, head, true, &links, &nd->nd_dir)) < 0)
		return err;
	return S_ISDIR(nd->nd_dir->i_mode) ? 0 : -ENOTDIR;
}

/* The entry of nd's last component (0 with it in nd_de, nd_lblk, nd_inode; -ENOENT). */
int ext4_nd_lookup(struct ext4_fs *fs, struct ext4_nameidata *nd)
{
	int err = ext4_find_entry(fs, nd->nd_dir, nd->nd_name, nd->nd_len, &nd->nd_lblk,
				  &nd->nd_de);

	nd->nd_inode = NULL;
	if (err < 0)
		return err;
	return __ext4_iget(fs, nd->nd_de.d_ino, false, &nd->nd_inode);
}

void ext4_current_is_f(struct ext4_fs *fs)
{
	struct ext4_inode_info *ei;

	if (ext4_path_lookup(fs, "/f", true, &ei) == 0 && S_ISREG(ei->i_mode))
		fs->inode = ei;
}

/* --- the operations --- */

static handle_t *ns_start(struct ext4_fs *fs, const char *where)
{
	return ext4_journal_start(fs, where, HT_DIR, NS_CREDITS);
}

/* The parent of @path, and the error the VFS gives a create of "." or "..". */
static int create_parent(struct ext4_fs *fs, const char *path, struct ext4_nameidata *nd)
{
	int err = ext4_path_parent(fs, path, nd);

	if (err < 0)
		return err;
	if (nd->nd_type != LAST_NORM)
		return -EEXIST;                 /* filename_create() */
	err = ext4_nd_lookup(fs, nd);
	if (err == 0)
		return -EEXIST;
	return err == -ENOENT ? 0 : err;
}

/*
 * ext4_add_nondir(): the new inode's entry; on failure the inode loses its
 * link and goes on the orphan list (iput then frees it).
 */
static int ext4_add_nondir(struct ext4_fs *fs, handle_t *h, struct ext4_nameidata *nd,
			   struct ext4_inode_info *inode)
{
	int err = ext4_add_entry(fs, h, nd->nd_dir, nd->nd_name, nd->nd_len, inode);
	struct ext4_inode_info *was = fs->inode;

	fs->inode = inode;
	if (err < 0) {
		inode->i_links_count = 0;
		ext4_mark_inode_dirty(fs, h);
		ext4_orphan_add(fs, h);
	} else {
		ext4_mark_inode_dirty(fs, h);
	}
	fs->inode = was;
	return err;
}

/* iput(): an inode no name and no open file holds goes (ext4_evict_inode). */
int ext4_iput(struct ext4_fs *fs, struct ext4_inode_info *ei)
{
	if (ei->i_links_count != 0 || ei->i_open != 0)
		return 0;
	return ext4_evict_inode(fs, ei);
}

/* ext4_create(): a regular file of mode 0644 at @path (*@out: the new inode). */
static int ext4_create(struct ext4_fs *fs, const char *path, struct ext4_inode_info **out)
{
	struct ext4_nameidata nd;
	struct ext4_inode_info *inode = NULL;
	handle_t *h;
	int err = create_parent(fs, path, &nd);

	if (err < 0)
		return err;
	h = ns_start(fs, "ext4_create");
	err = ext4_new_inode(fs, h, nd.nd_dir, S_IFREG | 0644, &inode);
	if (!err)
		err = ext4_add_nondir(fs, h, &nd, inode);
	ext4_journal_stop(fs, "ext4_create", h);
	if (err < 0 && inode)
		ext4_iput(fs, inode);
	*out = err < 0 ? NULL : inode;
	return err;
}

/*
 * open(2) of @path as xfs_io's `open [-f] [-t]`: the file found (its last
 * symbolic link followed) or, with @creat, created; with @trunc emptied
 * (do_truncate: ext4_setattr to size 0).  The file becomes the current one,
 * one more open file description on it; a directory is -EISDIR.
 */
int ext4_open_path(struct ext4_fs *fs, const char *path, bool creat, bool trunc)
{
	struct ext4_inode_info *ei = NULL, *was = fs->inode;
	int err = ext4_path_lookup(fs, path, true, &ei);
	bool created = false;

	if (err == -ENOENT && creat && (err = ext4_create(fs, path, &ei)) == 0)
		created = true;
	if (err < 0)
		return err;
	if (S_ISDIR(ei->i_mode))
		return -EISDIR;
	ei->i_open++;
	fs->inode = ei;
	if (!trunc || created)
		return 0;                       /* do_open(): no truncate of a file just made */
	if (ei->i_size == 0) {
		ext4_dirty_inode(fs);           /* ext4_setattr: the times change all the same */
		return 0;
	}
	if ((err = ext4_setattr_size(fs, 0)) < 0) {
		ei->i_open--;
		fs->inode = was;
	}
	return err;
}

int ext4_creat(struct ext4_fs *fs, const char *path)
{
	struct ext4_inode_info *was = fs->inode, *ei;
	int err = ext4_open_path(fs, path, true, true);

	if (err < 0)
		return err;
	ei = fs->inode;
	ei->i_open--;
	err = ext4_release_file(fs);
	fs->inode = was;
	return err;
}

int ext4_close_current(struct ext4_fs *fs)
{
	struct ext4_inode_info *ei = fs->inode;
	int err;

	if (!S_ISREG(ei->i_mode))
		return -EBADF;
	err = ext4_release_file(fs);
	if (ei->i_open > 0)
		ei->i_open--;
	if (ei->i_links_count == 0 && ei->i_open == 0) {
		int e2 = ext4_iput(fs, ei);     /* the current inode becomes the root */

		err = err ? err : e2;
	}
	return err;
}

/*
 * ext4_init_new_dir(): the new directory's first block (ext4_append:
 * allocated through ext4_map_blocks, i_size one block) holding "." and
 * "..", journaled; two links.
 */
static int ext4_init_new_dir(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *dir,
			     struct ext4_inode_info *inode)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);
	struct ext4_map_blocks map = { 0, 1, 0, 0 };
	struct ext4_inode_info *was = fs->inode;
	int err;

	fs->inode = inode;
	err = ext4_map_blocks(fs, h, &map, GET_BLOCKS_CREATE);
	fs->inode = was;
	if (err < 0)
		return err;
	SIM_ASSERT(err == 1 && (map.m_flags & MAP_MAPPED));
	inode->i_size = inode->i_disksize = fs->opts.block_size;
	ext4_init_new_dir_block(&sb, inode->i_csum_seed, ext4_meta_new(fs, map.m_pblk),
				inode->i_ino, dir->i_ino);
	jbd2_journal_dirty_metadata(h, map.m_pblk);
	inode->i_links_count = 2;
	return 0;
}

/* ext4_inc_count() / ext4_dec_count(): a directory's links, dir_nlink's 1 past the limit. */
static void ext4_inc_count(struct ext4_inode_info *ei)
{
	if (ei->i_links_count != 1 && ++ei->i_links_count >= EXT4_LINK_MAX)
		ei->i_links_count = 1;
}

static void ext4_dec_count(struct ext4_inode_info *ei)
{
	if (!S_ISDIR(ei->i_mode) || ei->i_links_count > 2)
		ei->i_links_count--;
}

int ext4_mkdir(struct ext4_fs *fs, const char *path)
{
	struct ext4_nameidata nd;
	struct ext4_inode_info *inode = NULL;
	handle_t *h;
	int err = create_parent(fs, path, &nd);

	if (err < 0)
		return err;
	if (nd.nd_dir->i_links_count >= EXT4_LINK_MAX)
		return -EMLINK;
	h = ns_start(fs, "ext4_mkdir");
	err = ext4_new_inode(fs, h, nd.nd_dir, S_IFDIR | 0755, &inode);
	if (!err && (err = ext4_init_new_dir(fs, h, nd.nd_dir, inode)) == 0)
		err = ext4_add_entry(fs, h, nd.nd_dir, nd.nd_name, nd.nd_len, inode);
	if (err < 0 && inode) {
		inode->i_links_count = 0;       /* out_clear_inode */
		ext4_mark_other_dirty(fs, h, inode);
	} else if (!err) {
		ext4_inc_count(nd.nd_dir);
		ext4_mark_other_dirty(fs, h, nd.nd_dir);
		ext4_mark_other_dirty(fs, h, inode);
	}
	ext4_journal_stop(fs, "ext4_mkdir", h);
	if (err < 0 && inode)
		ext4_iput(fs, inode);
	return err;
}

/* The name @path names, for a removal: its parent, entry and inode. */
static int remove_target(struct ext4_fs *fs, const char *path, struct ext4_nameidata *nd)
{
	int err = ext4_path_parent(fs, path, nd);

	if (err < 0)
		return err;
	if (nd->nd_type == LAST_ROOT)
		return -EBUSY;
	if (nd->nd_type != LAST_NORM)
		return 1;                       /* the caller's error for "." and ".." */
	return ext4_nd_lookup(fs, nd);
}

/*
 * mke2fs's lost+found is part of the layout the model names blocks by
 * (ROLE_LOST_FOUND): freeing it is refused with the reason (the kernel
 * allows it; no scenario needs it).
 */
static int lost_found_refused(struct ext4_fs *fs)
{
	fs->s_ns_error = "freeing mke2fs's lost+found (inode 11) is not modelled: its blocks "
			 "are the layout's";
	return -EPERM;
}

/* empty_dir(): only "." and ".." in every block of @dir. */
static bool ext4_dir_empty(struct ext4_fs *fs, struct ext4_inode_info *dir)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);

	for (uint32_t b = 0; b < ext4_dir_nblocks(fs, dir); b++) {
		uint32_t pblk;
		const uint8_t *blk = ext4_dir_block(fs, dir, b, &pblk);

		if (!blk || !ext4_empty_dir(&sb, blk, b, dir->i_ino))
			return false;
	}
	return true;
}

int ext4_rmdir(struct ext4_fs *fs, const char *path)
{
	struct ext4_nameidata nd;
	struct ext4_inode_info *inode;
	handle_t *h;
	int err = remove_target(fs, path, &nd);

	if (err == 1)
		return nd.nd_type == LAST_DOT ? -EINVAL : -ENOTEMPTY;   /* do_rmdir() */
	if (err < 0)
		return err;
	inode = nd.nd_inode;
	if (!S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	if (inode->i_ino == EXT4_ROOT_INO)
		return -EBUSY;
	if (!ext4_dir_empty(fs, inode))
		return -ENOTEMPTY;
	if (inode->i_ino == EXT4_LOST_FOUND_INO)
		return lost_found_refused(fs);
	h = ns_start(fs, "ext4_rmdir");
	if ((err = ext4_delete_entry(fs, h, nd.nd_dir, nd.nd_lblk, &nd.nd_de)) == 0) {
		struct ext4_inode_info *was = fs->inode;

		inode->i_links_count = 0;       /* clear_nlink */
		inode->i_size = 0;
		fs->inode = inode;
		ext4_orphan_add(fs, h);
		ext4_mark_inode_dirty(fs, h);
		fs->inode = was;
		ext4_dec_count(nd.nd_dir);
		ext4_mark_other_dirty(fs, h, nd.nd_dir);
	}
	ext4_journal_stop(fs, "ext4_rmdir", h);
	return err < 0 ? err : ext4_iput(fs, inode);
}

int ext4_link(struct ext4_fs *fs, const char *oldpath, const char *newpath)
{
	struct ext4_nameidata nd;
	struct ext4_inode_info *inode;
	handle_t *h;
	int err = ext4_path_lookup(fs, oldpath, false, &inode);

	if (err < 0)
		return err;
	if (S_ISDIR(inode->i_mode))
		return -EPERM;                  /* vfs_link() */
	if ((err = create_parent(fs, newpath, &nd)) < 0)
		return err;
	if (inode->i_links_count >= EXT4_LINK_MAX)
		return -EMLINK;
	h = ns_start(fs, "ext4_link");
	inode->i_links_count++;                 /* ext4_inc_count */
	err = ext4_add_entry(fs, h, nd.nd_dir, nd.nd_name, nd.nd_len, inode);
	if (err < 0) {
		inode->i_links_count--;
	} else {
		struct ext4_inode_info *was = fs->inode;

		fs->inode = inode;
		ext4_mark_inode_dirty(fs, h);
		if (inode->i_links_count == 1)
			ext4_orphan_del(fs, h);         /* an O_TMPFILE inode gets its name */
		fs->inode = was;
	}
	ext4_journal_stop(fs, "ext4_link", h);
	return err;
}

/*
 * ext4_unlink(): the entry goes, the inode loses a link and, with none
 * left, goes on the orphan list; iput frees it unless a file is open on it.
 */
int ext4_unlink(struct ext4_fs *fs, const char *path)
{
	struct ext4_nameidata nd;
	struct ext4_inode_info *inode, *was = fs->inode;
	handle_t *h;
	int err = remove_target(fs, path, &nd);

	if (err == 1)
		return -EISDIR;                 /* do_unlinkat(): not LAST_NORM */
	if (err < 0)
		return err;
	inode = nd.nd_inode;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	h = ns_start(fs, "ext4_unlink");
	if ((err = ext4_delete_entry(fs, h, nd.nd_dir, nd.nd_lblk, &nd.nd_de)) == 0) {
		ext4_mark_other_dirty(fs, h, nd.nd_dir);
		inode->i_links_count--;         /* drop_nlink */
		fs->inode = inode;
		if (inode->i_links_count == 0)
			ext4_orphan_add(fs, h);
		ext4_mark_inode_dirty(fs, h);
		fs->inode = was;
	}
	ext4_journal_stop(fs, "ext4_unlink", h);
	return err < 0 ? err : ext4_iput(fs, inode);
}

/*
 * ext4_symlink(): a fast symlink (the target in i_block) up to 59 bytes,
 * else a slow one whose target fills its one block, written through the
 * journal as ext4_init_symlink_block does; i_size the target's length.
 */
static int ext4_init_symlink(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *inode,
			     const char *target, size_t len)
{
	struct ext4_map_blocks map = { 0, 1, 0, 0 };
	struct ext4_inode_info *was = fs->inode;
	uint8_t *blk;
	int err;

	if (len + 1 <= sizeof(inode->i_data)) {
		inode->i_fast_symlink = true;
		memset(inode->i_data, 0, sizeof(inode->i_data));
		memcpy(inode->i_data, target, len);
		inode->i_size = inode->i_disksize = (int64_t)len;
		return 0;
	}
	fs->inode = inode;
	ext4_set_raw_flags(fs, inode, EXT4_EXTENTS_FL);
	err = ext4_map_blocks(fs, h, &map, GET_BLOCKS_CREATE);
	fs->inode = was;
	if (err < 0)
		return err;
	blk = ext4_meta_new(fs, map.m_pblk);
	memcpy(blk, target, len);
	jbd2_journal_dirty_metadata(h, map.m_pblk);
	inode->i_size = inode->i_disksize = (int64_t)len;
	return 0;
}

int ext4_symlink(struct ext4_fs *fs, const char *target, const char *path)
{
	size_t len = strlen(target);
	struct ext4_nameidata nd;
	struct ext4_inode_info *inode = NULL;
	handle_t *h;
	int err;

	if (len + 1 > fs->opts.block_size || len == 0)
		return len ? -ENAMETOOLONG : -ENOENT;
	if ((err = create_parent(fs, path, &nd)) < 0)
		return err;
	h = ns_start(fs, "ext4_symlink");
	err = ext4_new_inode(fs, h, nd.nd_dir, S_IFLNK | 0777, &inode);
	if (!err && (err = ext4_init_symlink(fs, h, inode, target, len)) == 0)
		err = ext4_add_nondir(fs, h, &nd, inode);
	else if (inode)
		inode->i_links_count = 0;
	ext4_journal_stop(fs, "ext4_symlink", h);
	if (err < 0 && inode)
		ext4_iput(fs, inode);
	return err;
}

/*
 * fsync(2) or fdatasync(2) of @path: opened (its last link followed; a
 * directory too), ext4_sync_file over the whole file, closed.
 */
int ext4_fsync_path(struct ext4_fs *fs, const char *path, bool datasync)
{
	struct ext4_inode_info *ei, *was = fs->inode;
	int err = ext4_path_lookup(fs, path, true, &ei);

	if (err < 0)
		return err;
	ei->i_open++;
	fs->inode = ei;
	err = ext4_sync_file(fs, 0, INT64_MAX, datasync);
	ei->i_open--;
	if (S_ISREG(ei->i_mode)) {
		int e2 = ext4_release_file(fs);

		err = err ? err : e2;
	}
	fs->inode = was;
	return err;
}

/* --- rename --- */

/* struct ext4_renament: one side of a rename. */
struct ext4_renament {
	struct ext4_nameidata r_nd;     /* its directory, name, entry and inode (or none) */
	uint32_t r_dotdot_blk;          /* a directory moved: its "..": block and offset */
	unsigned r_dotdot_off;
	bool r_dir_moved;
};

/* Is @a @b or an ancestor of @b (through ".." entries)? */
static bool is_ancestor(struct ext4_fs *fs, const struct ext4_inode_info *a,
			struct ext4_inode_info *b)
{
	for (uint32_t depth = 0; depth < 4096; depth++) {
		struct ext4_inode_info *up;

		if (a == b)
			return true;
		if (b->i_ino == EXT4_ROOT_INO || ext4_path_lookup_at(fs, b, "..", &up) < 0)
			return false;
		b = up;
	}
	return false;
}

/* The names of a rename, looked up, with the VFS's checks (do_renameat2, vfs_rename). */
static int rename_lookup(struct ext4_fs *fs, const char *oldpath, const char *newpath,
			 unsigned flags, struct ext4_renament *old, struct ext4_renament *new)
{
	int err;

	memset(old, 0, sizeof(*old));
	memset(new, 0, sizeof(*new));
	if ((err = ext4_path_parent(fs, oldpath, &old->r_nd)) < 0 ||
	    (err = ext4_path_parent(fs, newpath, &new->r_nd)) < 0)
		return err;
	if (old->r_nd.nd_type != LAST_NORM)
		return -EBUSY;
	if (new->r_nd.nd_type != LAST_NORM)
		return (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
	if ((err = ext4_nd_lookup(fs, &old->r_nd)) < 0)
		return err;
	err = ext4_nd_lookup(fs, &new->r_nd);
	if (err < 0 && (err != -ENOENT || (flags & RENAME_EXCHANGE)))
		return err;
	if (new->r_nd.nd_inode && (flags & RENAME_NOREPLACE))
		return -EEXIST;
	if (is_ancestor(fs, old->r_nd.nd_inode, new->r_nd.nd_dir))
		return -EINVAL;                 /* the source is the target's ancestor */
	if (new->r_nd.nd_inode && is_ancestor(fs, new->r_nd.nd_inode, old->r_nd.nd_dir))
		return (flags & RENAME_EXCHANGE) ? -EINVAL : -ENOTEMPTY;
	return 0;
}

/* The checks of the kinds of the two inodes (may_delete, ext4_rename's empty_dir, EMLINK). */
static int rename_kinds(struct ext4_fs *fs, const struct ext4_renament *old,
			const struct ext4_renament *new, unsigned flags)
{
	const struct ext4_inode_info *o = old->r_nd.nd_inode, *n = new->r_nd.nd_inode;

	if (!n)
		return S_ISDIR(o->i_mode) && old->r_nd.nd_dir != new->r_nd.nd_dir &&
		       new->r_nd.nd_dir->i_links_count >= EXT4_LINK_MAX ? -EMLINK : 0;
	if (flags & RENAME_EXCHANGE)
		return 0;
	if (S_ISDIR(o->i_mode) && !S_ISDIR(n->i_mode))
		return -ENOTDIR;
	if (!S_ISDIR(o->i_mode) && S_ISDIR(n->i_mode))
		return -EISDIR;
	if (S_ISDIR(n->i_mode) && !ext4_dir_empty(fs, (struct ext4_inode_info *)n))
		return -ENOTEMPTY;
	return n->i_ino == EXT4_LOST_FOUND_INO ? lost_found_refused(fs) : 0;
}

/* ext4_rename_dir_prepare(): a directory changing parents: where its ".." is. */
static int rename_dir_prepare(struct ext4_fs *fs, struct ext4_renament *ent)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);
	struct ext4_inode_info *inode = ent->r_nd.nd_inode;
	const uint8_t *blk = ext4_dir_block(fs, inode, 0, &ent->r_dotdot_blk);

	if (!blk)
		return -EFSCORRUPTED;
	ent->r_dir_moved = true;
	return ext4_rename_dir_prepare(&sb, blk, inode->i_ino, ent->r_nd.nd_dir->i_ino,
				       &ent->r_dotdot_off);
}

/* ext4_rename_dir_finish(): the moved directory's ".." names @parent, journaled. */
static void rename_dir_finish(struct ext4_fs *fs, handle_t *h, struct ext4_renament *ent,
			      uint32_t parent)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);

	ext4_rename_dir_finish(&sb, ent->r_nd.nd_inode->i_csum_seed,
			       ext4_meta_bh(fs, ent->r_dotdot_blk), ent->r_dotdot_off, parent);
	jbd2_journal_dirty_metadata(h, ent->r_dotdot_blk);
}

/* ext4_setent(): @ent's entry names @inode now, journaled. */
static void rename_setent(struct ext4_fs *fs, handle_t *h, struct ext4_renament *ent,
			  const struct ext4_inode_info *inode)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);
	uint32_t pblk;
	uint8_t *blk = ext4_dir_block(fs, ent->r_nd.nd_dir, ent->r_nd.nd_lblk, &pblk);

	SIM_ASSERT(blk != NULL);
	ext4_setent(&sb, ent->r_nd.nd_dir->i_csum_seed, blk, ent->r_nd.nd_de.d_off, inode->i_ino,
		    ext4_type_by_mode(inode->i_mode));
	jbd2_journal_dirty_metadata(h, pblk);
}

/* ext4_rename()'s journaled part, in the kernel's order, under @h. */
static int rename_apply(struct ext4_fs *fs, handle_t *h, struct ext4_renament *old,
			struct ext4_renament *new)
{
	struct ext4_inode_info *oi = old->r_nd.nd_inode, *ni = new->r_nd.nd_inode;
	struct ext4_inode_info *odir = old->r_nd.nd_dir, *ndir = new->r_nd.nd_dir;
	int err;

	if (S_ISDIR(oi->i_mode) && odir != ndir && (err = rename_dir_prepare(fs, old)) < 0)
		return err;
	if (!ni)
		err = ext4_add_entry(fs, h, ndir, new->r_nd.nd_name, new->r_nd.nd_len, oi);
	else
		rename_setent(fs, h, new, oi), err = 0;
	if (err < 0)
		return err;
	ext4_mark_other_dirty(fs, h, oi);
	/* ext4_rename_delete(): found again, the add may have moved it in its block */
	if ((err = ext4_nd_lookup(fs, &old->r_nd)) < 0 ||
	    (err = ext4_delete_entry(fs, h, odir, old->r_nd.nd_lblk, &old->r_nd.nd_de)) < 0)
		return err;
	if (ni)
		ext4_dec_count(ni);
	/*
	 * A directory renamed, into another parent or not: the old parent loses
	 * its "..", the replaced directory (empty) its links, else the new
	 * parent gains one (ext4_rename's old.dir_bh block).  ".." is rewritten
	 * only when the parent changes (the 6.1 tree also rewrites it, to the
	 * same parent, in the same transaction: not modelled).
	 */
	if (S_ISDIR(oi->i_mode)) {
		if (old->r_dir_moved)
			rename_dir_finish(fs, h, old, ndir->i_ino);
		ext4_dec_count(odir);
		if (ni) {
			ni->i_links_count = 0;  /* clear_nlink */
		} else {
			ext4_inc_count(ndir);
			ext4_mark_other_dirty(fs, h, ndir);
		}
	}
	ext4_mark_other_dirty(fs, h, odir);
	if (ni) {
		struct ext4_inode_info *was = fs->inode;

		fs->inode = ni;
		ext4_mark_inode_dirty(fs, h);
		if (ni->i_links_count == 0)
			ext4_orphan_add(fs, h);
		fs->inode = was;
	}
	return 0;
}

/* ext4_update_dir_count(): a parent gains or loses the ".." of a directory exchanged in. */
static void update_dir_count(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *dir,
			     int delta)
{
	if (delta == 0)
		return;
	if (delta < 0)
		ext4_dec_count(dir);
	else
		ext4_inc_count(dir);
	ext4_mark_other_dirty(fs, h, dir);
}

/* ext4_cross_rename(): RENAME_EXCHANGE, both names kept, their inodes swapped. */
static int ext4_cross_rename(struct ext4_fs *fs, struct ext4_renament *old,
			     struct ext4_renament *new)
{
	struct ext4_inode_info *oi = old->r_nd.nd_inode, *ni = new->r_nd.nd_inode;
	struct ext4_inode_info *odir = old->r_nd.nd_dir, *ndir = new->r_nd.nd_dir;
	int delta = 0, err = 0;
	handle_t *h;

	if (odir != ndir && S_ISDIR(oi->i_mode))
		err = rename_dir_prepare(fs, old);
	if (!err && odir != ndir && S_ISDIR(ni->i_mode))
		err = rename_dir_prepare(fs, new);
	if (err < 0)
		return err;
	if (odir != ndir && S_ISDIR(oi->i_mode) != S_ISDIR(ni->i_mode))
		delta = S_ISDIR(oi->i_mode) ? -1 : 1;
	h = ns_start(fs, "ext4_cross_rename");
	rename_setent(fs, h, new, oi);
	rename_setent(fs, h, old, ni);
	ext4_mark_other_dirty(fs, h, oi);
	ext4_mark_other_dirty(fs, h, ni);
	if (old->r_dir_moved)
		rename_dir_finish(fs, h, old, ndir->i_ino);
	if (new->r_dir_moved)
		rename_dir_finish(fs, h, new, odir->i_ino);
	update_dir_count(fs, h, odir, delta);
	update_dir_count(fs, h, ndir, -delta);
	ext4_mark_other_dirty(fs, h, odir);
	ext4_mark_other_dirty(fs, h, ndir);
	ext4_journal_stop(fs, "ext4_cross_rename", h);
	return 0;
}

/* Whether a write of an io_end that converts unwritten extents is still pending. */
static bool ext4_unwritten_io_pending(const struct ext4_fs *fs)
{
	for (uint32_t i = 0; i < fs->nr_io_ends; i++)
		if (fs->io_ends[i].ie_unwritten && fs->io_ends[i].ie_pending > 0)
			return true;
	return false;
}

/*
 * ext4_flush_data() of the unmerged rename patch (rename_flush_data): as
 * ext4_alloc_da_blocks (filemap_flush of a file with delayed blocks), then,
 * with delalloc and dioread_nolock and an unwritten conversion pending
 * (i_unwritten), filemap_fdatawait: the writes complete and their conversion
 * joins the running transaction, the one the rename's handle is about to
 * join.  Returns 0 or the writeback's errno.
 */
static int ext4_flush_data(struct ext4_fs *fs)
{
	int err;

	if (fs->inode->i_reserved_data_blocks == 0)
		return 0;
	if ((err = ext4_alloc_da_blocks(fs)) < 0)
		return err;
	if (fs->opts.delalloc && ext4_should_dioread_nolock(fs) && ext4_unwritten_io_pending(fs))
		ext4_wait_io_range(fs, 0, INT64_MAX);
	return 0;
}

/*
 * rename(2) / renameat2(2) with @flags 0, RENAME_NOREPLACE or
 * RENAME_EXCHANGE: the VFS's checks, then ext4_rename (ext4_cross_rename
 * for an exchange).  Over an existing file, auto_da_alloc first starts the
 * moved file's delayed writeback (ext4_alloc_da_blocks), so that its
 * blocks are allocated in the transaction that commits the rename and, in
 * data=ordered, written before it (with rename_flush_data, the unmerged
 * ext4_flush_data, it also waits for an unwritten conversion).  The inode
 * replaced loses its name and goes at iput unless a file is open on it.
 */
int ext4_rename(struct ext4_fs *fs, const char *oldpath, const char *newpath, unsigned flags)
{
	struct ext4_renament old, new;
	struct ext4_inode_info *ni, *was = fs->inode;
	handle_t *h;
	int err;

	if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) ||
	    flags == (RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if ((err = rename_lookup(fs, oldpath, newpath, flags, &old, &new)) < 0 ||
	    (err = rename_kinds(fs, &old, &new, flags)) < 0)
		return err;
	ni = new.r_nd.nd_inode;
	if (ni == old.r_nd.nd_inode)
		return 0;                       /* vfs_rename(): the same inode */
	if (flags & RENAME_EXCHANGE)
		return ext4_cross_rename(fs, &old, &new);
	if (ni && fs->opts.auto_da_alloc && S_ISREG(old.r_nd.nd_inode->i_mode)) {
		fs->inode = old.r_nd.nd_inode;
		err = ext4_sem(fs, rename_flush_data) ? ext4_flush_data(fs) : ext4_alloc_da_blocks(fs);
		fs->inode = was;
		if (err < 0)
			return err;
	}
	h = ns_start(fs, "ext4_rename");
	err = rename_apply(fs, h, &old, &new);
	ext4_journal_stop(fs, "ext4_rename", h);
	return err < 0 || !ni ? err : ext4_iput(fs, ni);
}
