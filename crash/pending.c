/*
 * pending.c - the pending writes of a crash point in words (see pending.h).
 */
#include "pending.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crashstates.h"
#include "nsnap.h"

/* The metadata block @blk: "inode table (disk 2)". */
static void name_meta(const struct ext4_layout *lay, uint32_t blk, char *out, size_t cap)
{
	snprintf(out, cap, "%s (disk %u)", blk < lay->nr_blocks ? ext4_block_role(lay, blk) :
		 "block", blk);
}

void cs_write_text(const struct ext4_layout *lay, enum bio_what what, uint32_t disk,
		   int64_t block, uint32_t tid, char *out, size_t cap)
{
	char meta[96];

	switch (what) {
	case BW_DATA:
		if (block >= 0)
			snprintf(out, cap, "data block %lld of the file (disk %u)", (long long)block,
				 disk);
		else
			snprintf(out, cap, "data block (disk %u)", disk);
		return;
	case BW_ZEROOUT:
		snprintf(out, cap, "zeroes over a new block (disk %u)", disk);
		return;
	case BW_JDATA:
		snprintf(out, cap, "journal copy of data block %lld of the file for tid %u (disk %u)",
			 (long long)block, tid, disk);
		return;
	case BW_JCOPY: case BW_HOME: case BW_REPLAY:
		name_meta(lay, (uint32_t)block, meta, sizeof(meta));
		snprintf(out, cap, what == BW_JCOPY ? "journal copy of the %s for tid %u (disk %u)" :
			 what == BW_HOME ? "the %s written home from tid %u" :
			 "the %s replayed from tid %u", meta, tid, disk);
		return;
	case BW_JSB:
		snprintf(out, cap, "journal superblock (disk %u)", disk);
		return;
	default:        /* "journal commit block of tid 2 (disk 530)" */
		snprintf(out, cap, "%s block of tid %u (disk %u)", blkdev_what_name(what), tid, disk);
		return;
	}
}

/* "/A/foo (inode 14" or "inode 14 (no name": the owner @ino of @p, its parenthesis open. */
static void owner_words(const struct cs_point *p, uint32_t ino, char *out, size_t cap)
{
	for (uint32_t i = 0; i < p->nr_owners; i++)
		if (p->owners[i].o_ino == ino && p->owners[i].o_path[0]) {
			snprintf(out, cap, "%s (inode %u", p->owners[i].o_path, ino);
			return;
		}
	snprintf(out, cap, "inode %u (no name", ino);
}

/* A named write's block: "directory block 0 of /A (inode 13, disk 2070)". */
static void owned_block(const struct cs_point *p, const struct cs_write *w, uint32_t disk,
			char *out, size_t cap)
{
	char who[NSNAP_PATH_MAX + 32];

	if (w->w_own == CS_OWN_ITABLE) {
		snprintf(out, cap, "inode table (inodes %u-%u, disk %u)", w->w_ino, w->w_ino_last,
			 disk);
		return;
	}
	owner_words(p, w->w_ino, who, sizeof(who));
	if (w->w_own == CS_OWN_EXTENT)
		snprintf(out, cap, "extent block of %s, disk %u)", who, disk);
	else
		snprintf(out, cap, "%s block %lld of %s, disk %u)", w->w_own == CS_OWN_DIR ?
			 "directory" : w->w_own == CS_OWN_LINK ? "link target" : "data",
			 (long long)w->w_own_lblk, who, disk);
}

/* cs_bio_text for a write cs_name_writes named. */
static void named_text(const struct cs_point *p, const struct cs_write *w, char *out, size_t cap)
{
	const struct bio_info *bi = &w->w_info;
	char meta[NSNAP_PATH_MAX + 96];

	switch (bi->bi_what) {
	case BW_DATA:
		owned_block(p, w, w->w_blocknr, out, cap);
		return;
	case BW_ZEROOUT:
		owned_block(p, w, w->w_blocknr, meta, sizeof(meta));
		snprintf(out, cap, "zeroes over the new %s", meta);
		return;
	case BW_JDATA:
		owned_block(p, w, bi->bi_home, meta, sizeof(meta));
		snprintf(out, cap, "journal copy of %s for tid %u (disk %u)", meta, bi->bi_tid,
			 w->w_blocknr);
		return;
	default:        /* BW_JCOPY, BW_HOME, BW_REPLAY */
		owned_block(p, w, bi->bi_home, meta, sizeof(meta));
		snprintf(out, cap, bi->bi_what == BW_JCOPY ? "journal copy of the %s for tid %u (disk %u)" :
			 bi->bi_what == BW_HOME ? "the %s written home from tid %u" :
			 "the %s replayed from tid %u", meta, bi->bi_tid, w->w_blocknr);
		return;
	}
}

void cs_bio_text(const struct ext4_layout *lay, const struct cs_point *p, const struct cs_write *w,
		 char *out, size_t cap)
{
	const struct bio_info *bi = &w->w_info;
	int64_t block = bi->bi_what == BW_JCOPY || bi->bi_what == BW_HOME ||
			bi->bi_what == BW_REPLAY ? bi->bi_home : bi->bi_lblk;

	if (w->w_own != CS_OWN_NONE) {
		named_text(p, w, out, cap);
		return;
	}
	cs_write_text(lay, (enum bio_what)bi->bi_what, w->w_blocknr, block, bi->bi_tid, out, cap);
}

/* The inode-table block @blk: the first and last inode it holds, or false. */
static bool itable_inodes(const struct ext4_fs *fs, uint32_t blk, uint32_t *first, uint32_t *last)
{
	const struct ext4_layout *lay = &fs->lay;
	uint32_t per = lay->block_size / lay->inode_size;
	uint32_t nblk = (lay->inodes_per_group + per - 1) / per;

	for (uint32_t g = 0; g < lay->groups_count; g++) {
		struct ext4_group_desc gd;

		ext4_get_group_desc(fs, g, &gd);
		if (blk >= gd.bg_inode_table_lo && blk - gd.bg_inode_table_lo < nblk) {
			*first = g * lay->inodes_per_group + (blk - gd.bg_inode_table_lo) * per + 1;
			*last = *first + per - 1;
			return true;
		}
	}
	return false;
}

/* Which in-core inode maps device block @blk (its block map, its extent leaves) into @w. */
static bool inode_owner(const struct ext4_fs *fs, uint32_t blk, struct cs_write *w)
{
	for (uint32_t i = 0; i < fs->s_nr_inodes; i++) {
		const struct ext4_inode_info *ei = fs->s_inodes[i];
		const struct ext4_es_tree *t = &ei->i_es;

		for (uint32_t k = 0; k < ei->i_ext_nr_leaves; k++)
			if (ei->i_ext_leaves[k].el_pblk == blk) {
				w->w_own = CS_OWN_EXTENT;
				w->w_ino = ei->i_ino;
				return true;
			}
		for (uint32_t k = 0; k < t->es_nr; k++) {
			const struct extent_status *e = &t->es[k];

			if (e->es_state == ES_DELAYED || blk < e->es_pblk || blk - e->es_pblk >= e->es_len)
				continue;
			w->w_own = S_ISDIR(ei->i_mode) ? CS_OWN_DIR : S_ISLNK(ei->i_mode) ? CS_OWN_LINK :
				   CS_OWN_DATA;
			w->w_ino = ei->i_ino;
			w->w_own_lblk = e->es_lblk + (int64_t)(blk - e->es_pblk);
			return true;
		}
	}
	return false;
}

/* Add @ino's first path in @names to @p's owners (once). */
static void add_owner(struct cs_point *p, uint32_t ino, const struct nsnap *names)
{
	struct cs_owner *o;

	for (uint32_t i = 0; i < p->nr_owners; i++)
		if (p->owners[i].o_ino == ino)
			return;
	p->owners = realloc(p->owners, (p->nr_owners + 1) * sizeof(*p->owners));
	SIM_ASSERT(p->owners != NULL);
	o = &p->owners[p->nr_owners++];
	memset(o, 0, sizeof(*o));
	o->o_ino = ino;
	for (uint32_t i = 0; names && i < names->ns_nr; i++)
		if (names->ns_e[i].ne_ino == ino) {
			snprintf(o->o_path, sizeof(o->o_path), "%s", names->ns_e[i].ne_path);
			return;
		}
}

void cs_name_writes(struct cs_point *p, const struct ext4_fs *fs, const struct nsnap *names)
{
	free(p->owners);
	p->owners = NULL;
	p->nr_owners = 0;
	for (uint32_t i = 0; i < p->nr_writes; i++) {
		struct cs_write *w = &p->writes[i];
		const struct bio_info *bi = &w->w_info;
		bool data = bi->bi_what == BW_DATA || bi->bi_what == BW_ZEROOUT;
		uint32_t blk = data ? w->w_blocknr : bi->bi_home;

		w->w_own = CS_OWN_NONE;
		if (!data && bi->bi_what != BW_JDATA && bi->bi_what != BW_JCOPY &&
		    bi->bi_what != BW_HOME && bi->bi_what != BW_REPLAY)
			continue;       /* journal blocks of their own: named by tid */
		if (!data && bi->bi_what != BW_JDATA && itable_inodes(fs, blk, &w->w_ino, &w->w_ino_last))
			w->w_own = CS_OWN_ITABLE;
		else if (inode_owner(fs, blk, w))
			add_owner(p, w->w_ino, names);
	}
}

void cs_keep_writes(struct cs_point *p, const struct blkdev *bd)
{
	SIM_ASSERT(p->writes == NULL);
	p->nr_writes = bd->bd_nr_bios;
	p->writes = sim_zalloc((p->nr_writes + 1) * sizeof(*p->writes));
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		const struct bio_rec *b = &bd->bd_bios[i];

		p->writes[i] = (struct cs_write){ .w_blocknr = b->b_blocknr, .w_state = b->b_state,
						  .w_fua = b->b_fua, .w_info = b->b_info };
	}
}

/*
 * Parse an example "crash --keep 1,3-5" (or "crash --keep none") into a
 * kept flag per write; false for an example that is not a keep list.
 */
static bool parse_keep(const char *ex, bool *kept, uint32_t nr)
{
	const char *s = ex + strlen("crash --keep ");

	if (strncmp(ex, "crash --keep ", strlen("crash --keep ")) != 0)
		return false;
	if (strcmp(s, "none") == 0)
		return true;
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return false;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long w = a; w <= b && w >= 1 && w <= nr; w++)
			kept[w - 1] = true;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return true;
}

/* Append "N (eE) what" for each write whose kept flag is @want; returns the new length. */
static size_t name_some(const struct ext4_layout *lay, const struct cs_point *p,
			const bool *kept, bool want, char *out, size_t used, size_t cap)
{
	char what[NSNAP_PATH_MAX + 256];
	uint32_t named = 0;

	used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s:",
				 used ? "; " : "", want ? "kept" : "lost");
	for (uint32_t i = 0; i < p->nr_writes && used < cap; i++) {
		if (kept[i] != want)
			continue;
		if (++named > CS_WRITES_NAMED)
			continue;       /* counted, not named */
		cs_bio_text(lay, p, &p->writes[i], what, sizeof(what));
		if (p->writes[i].w_info.bi_event)
			used += (size_t)snprintf(out + used, cap - used, "%s %u (e%u) %s",
						 named > 1 ? "," : "", i + 1,
						 p->writes[i].w_info.bi_event, what);
		else
			used += (size_t)snprintf(out + used, cap - used, "%s %u %s",
						 named > 1 ? "," : "", i + 1, what);
	}
	if (named == 0 && used < cap)
		used += (size_t)snprintf(out + used, cap - used, " none");
	if (named > CS_WRITES_NAMED && used < cap)
		used += (size_t)snprintf(out + used, cap - used, ", and %u more",
					 named - CS_WRITES_NAMED);
	return used;
}

void cs_describe_writes(const struct ext4_layout *lay, const struct cs_point *p,
			const struct cs_state *st, char *out, size_t cap)
{
	bool *kept;
	size_t used = 0;

	SIM_ASSERT(cap > 0);
	out[0] = '\0';
	if (!p->writes || p->nr_writes == 0)
		return;
	kept = sim_zalloc(p->nr_writes * sizeof(*kept));
	if (parse_keep(st->example, kept, p->nr_writes)) {
		used = name_some(lay, p, kept, true, out, used, cap);
		name_some(lay, p, kept, false, out, used, cap);
	}
	free(kept);
}
