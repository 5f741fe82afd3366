/*
 * readdir.c - the namespace as readdir(2), stat(2) and read(2) show it
 * (fs/ext4/dir.c's ext4_readdir walk over every directory from the root):
 * ext4_ns_read fills a lib/nsnap.h snapshot, every name with its inode's
 * type, size, link count, content hash and extended attributes
 * (listxattr and getxattr, xattr.c), and the inodes in use that no
 * name reaches.  It reads through the in-core inodes (__ext4_iget), so it
 * sees what a process would see now: the page cache on a live file system,
 * the device after a crash's recovery.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir.h"
#include "ext4.h"
#include "namei.h"
#include "nsnap.h"
#include "xattr.h"

#define NS_READ_CHUNK 65536u
#define NS_READ_DEPTH 64u       /* directories deeper than this are not walked */

/* A regular file's bytes up to i_size (ext4_peek: the page cache, else the device). */
static void hash_file(struct ext4_fs *fs, struct ext4_inode_info *ei, uint64_t hash[2])
{
	struct ext4_inode_info *was = fs->inode;
	struct nsnap_hasher h;
	uint8_t *buf = malloc(NS_READ_CHUNK);

	SIM_ASSERT(buf != NULL);
	nsnap_hash_init(&h);
	fs->inode = ei;
	for (int64_t pos = 0; pos < ei->i_size; pos += NS_READ_CHUNK) {
		int64_t n = SIM_MIN((int64_t)NS_READ_CHUNK, ei->i_size - pos);

		ext4_peek(fs, pos, n, buf);
		nsnap_hash_update(&h, buf, (size_t)n);
	}
	fs->inode = was;
	nsnap_hash_final(&h, hash);
	free(buf);
}

/* A symbolic link's target, into @e (hash and the kept text). */
static void read_target(struct ext4_fs *fs, const struct ext4_inode_info *ei,
			struct nsnap_entry *e)
{
	char t[EXT4_PATH_MAX];
	size_t n = (size_t)SIM_MIN(ei->i_size, (int64_t)sizeof(t) - 1);
	uint32_t pblk, len;

	memset(t, 0, sizeof(t));
	if (ei->i_fast_symlink)
		memcpy(t, ei->i_data, SIM_MIN(n, sizeof(ei->i_data)));
	else if (es_lookup(&ei->i_es, 0, &pblk, &len) == ES_WRITTEN)
		memcpy(t, ext4_meta_get(fs, pblk), SIM_MIN(n, (size_t)fs->opts.block_size));
	nsnap_hash_bytes(t, n, e->ne_hash);
	memcpy(e->ne_target, t, SIM_MIN(n, sizeof(e->ne_target) - 1));
}

/* The inode's extended attributes (listxattr and getxattr), their number and hash into @e. */
static int read_xattrs(struct ext4_fs *fs, const struct ext4_inode_info *ei,
		       struct nsnap_entry *e)
{
	struct ext4_xattr_pair *xp;
	struct nsnap_xattr *nx;
	uint32_t nr;
	int err;

	if (!ext4_has_xattrs(fs, ei))
		return 0;
	xp = malloc(EXT4_XATTR_LIST_MAX * sizeof(*xp));
	nx = malloc(EXT4_XATTR_LIST_MAX * sizeof(*nx));
	SIM_ASSERT(xp != NULL && nx != NULL);
	err = ext4_xattr_list(fs, ei, xp, EXT4_XATTR_LIST_MAX, &nr);
	for (uint32_t i = 0; !err && i < nr; i++)
		nx[i] = (struct nsnap_xattr){ xp[i].xp_name, xp[i].xp_value, xp[i].xp_len };
	if (!err) {
		e->ne_nr_xattrs = nr;
		nsnap_xattr_hash(nx, nr, e->ne_xattr_hash);
	}
	free(xp);
	free(nx);
	return err;
}

static int fill_entry(struct ext4_fs *fs, struct ext4_inode_info *ei, const char *path,
		      struct nsnap_entry *e)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->ne_path, sizeof(e->ne_path), "%s", path);
	e->ne_type = S_ISDIR(ei->i_mode) ? NSNAP_DIR : S_ISLNK(ei->i_mode) ? NSNAP_LNK : NSNAP_REG;
	e->ne_ino = ei->i_ino;
	e->ne_nlink = ei->i_links_count;
	e->ne_size = ei->i_size;
	if (S_ISREG(ei->i_mode))
		hash_file(fs, ei, e->ne_hash);
	else if (S_ISLNK(ei->i_mode))
		read_target(fs, ei, e);
	return read_xattrs(fs, ei, e);
}

static int walk_dir(struct ext4_fs *fs, struct ext4_inode_info *dir, const char *path,
		    uint32_t depth, uint8_t *seen, struct nsnap *out);

/* One live entry of a directory: its inode's entry, then its subtree. */
static int walk_entry(struct ext4_fs *fs, const struct ext4_dirent *de, const char *path,
		      uint32_t depth, uint8_t *seen, struct nsnap *out)
{
	char child[NSNAP_PATH_MAX];
	struct ext4_inode_info *ei;
	struct nsnap_entry e;
	int n, err;

	if ((de->d_name_len == 1 && de->d_name[0] == '.') ||
	    (de->d_name_len == 2 && de->d_name[0] == '.' && de->d_name[1] == '.'))
		return 0;
	n = snprintf(child, sizeof(child), "%s/%.*s", strcmp(path, "/") ? path : "",
		     (int)de->d_name_len, de->d_name);
	if (n < 0 || (size_t)n >= sizeof(child))
		return -ENAMETOOLONG;
	if ((err = __ext4_iget(fs, de->d_ino, false, &ei)) < 0)
		return err;
	if ((err = fill_entry(fs, ei, child, &e)) < 0 || (err = nsnap_add(out, &e)) < 0)
		return err;
	seen[de->d_ino / 8] |= (uint8_t)(1u << (de->d_ino % 8));
	if (!S_ISDIR(ei->i_mode))
		return 0;
	return walk_dir(fs, ei, child, depth + 1, seen, out);
}

static int walk_dir(struct ext4_fs *fs, struct ext4_inode_info *dir, const char *path,
		    uint32_t depth, uint8_t *seen, struct nsnap *out)
{
	struct ext4_dir_sb sb = ext4_dir_sb_of(fs);

	if (depth > NS_READ_DEPTH)
		return -ELOOP;
	for (uint32_t b = 0; b < ext4_dir_nblocks(fs, dir); b++) {
		uint32_t pblk;
		const uint8_t *blk = ext4_dir_block(fs, dir, b, &pblk);
		struct ext4_dir_iter it;
		struct ext4_dirent de;
		int err;

		if (!blk)
			return -EFSCORRUPTED;
		ext4_dir_iter_init(&it, &sb, blk);
		while ((err = ext4_dir_iter_next(&it, &de)) > 0)
			if ((err = walk_entry(fs, &de, path, depth, seen, out)) < 0)
				return err;
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * The inodes in use (from s_first_ino) that no name reached, and the orphan
 * list's length.  Each group's inode bitmap is read once and its bytes with
 * no bit set skipped (ext4_inode_in_use of each inode reads the same bits).
 */
static void note_unreachable(struct ext4_fs *fs, const uint8_t *seen, struct nsnap *out)
{
	uint32_t ipg = fs->lay.inodes_per_group;
	struct ext4_super_block es;
	uint32_t at;

	ext4_get_super(fs, &es);
	for (uint32_t g = 0; g < fs->lay.groups_count; g++) {
		const uint8_t *b = ext4_read_inode_bitmap(fs, g);

		for (uint32_t i = 0; i < ipg; i++) {
			uint32_t ino = g * ipg + i + 1;

			if (!b[i / 8]) {
				i |= 7;
				continue;
			}
			if (ino >= es.s_first_ino && ino <= es.s_inodes_count &&
			    ((b[i / 8] >> (i % 8)) & 1) && !(seen[ino / 8] & (1u << (ino % 8))))
				nsnap_add_unreachable(out, ino);
		}
	}
	at = es.s_last_orphan;
	for (uint32_t n = 0; at != 0 && at <= es.s_inodes_count && n < es.s_inodes_count; n++) {
		struct ext4_inode raw;

		out->ns_nr_orphans++;
		ext4_read_raw_inode(fs, at, &raw);
		at = raw.i_dtime;
	}
}

int ext4_ns_read(struct ext4_fs *fs, struct nsnap *out)
{
	struct ext4_super_block es;
	struct ext4_inode_info *root;
	struct nsnap_entry e;
	uint8_t *seen;
	int err;

	ext4_get_super(fs, &es);
	seen = calloc(es.s_inodes_count / 8 + 1, 1);
	SIM_ASSERT(seen != NULL);
	nsnap_init(out);
	if ((err = __ext4_iget(fs, EXT4_ROOT_INO, false, &root)) == 0) {
		err = fill_entry(fs, root, "/", &e);
		err = err ? err : nsnap_add(out, &e);
	}
	if (!err)
		err = walk_dir(fs, root, "/", 0, seen, out);
	if (!err)
		note_unreachable(fs, seen, out);
	free(seen);
	nsnap_sort(out);
	return err;
}
