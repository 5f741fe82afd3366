/*
 * pending.c - the pending writes of a crash point in words (see pending.h).
 */
#include "pending.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashstates.h"

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

void cs_bio_text(const struct ext4_layout *lay, const struct cs_write *w, char *out, size_t cap)
{
	const struct bio_info *bi = &w->w_info;
	int64_t block = bi->bi_what == BW_JCOPY || bi->bi_what == BW_HOME ||
			bi->bi_what == BW_REPLAY ? bi->bi_home : bi->bi_lblk;

	cs_write_text(lay, (enum bio_what)bi->bi_what, w->w_blocknr, block, bi->bi_tid, out, cap);
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
	char what[200];
	uint32_t named = 0;

	used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s:",
				 used ? "; " : "", want ? "kept" : "lost");
	for (uint32_t i = 0; i < p->nr_writes && used < cap; i++) {
		if (kept[i] != want)
			continue;
		if (++named > CS_WRITES_NAMED)
			continue;       /* counted, not named */
		cs_bio_text(lay, &p->writes[i], what, sizeof(what));
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
