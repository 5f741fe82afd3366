/*
 * xattr.c - extended attributes as fs/ext4/xattr.c keeps them: the search
 * (ext4_xattr_ibody_find, ext4_xattr_block_find, xattr_find_entry), the
 * one function that changes an area (ext4_xattr_set_entry), the inode's
 * area (ext4_xattr_ibody_set) and the block (ext4_xattr_block_set,
 * ext4_xattr_release_block, the hashes and ext4_xattr_block_csum_set), and
 * ext4_xattr_set_handle, which tries the inode first, then the block, in
 * one handle; fs/xattr.c's setxattr and removexattr checks above it.
 *
 * Both areas are edited in place in their buffers, as the kernel edits
 * them: the raw inode in its inode-table block (journaled by
 * ext4_mark_inode_dirty, which sets the inode's checksum over them), the
 * xattr block as a metadata buffer of its own (journaled under the same
 * handle, its checksum set at each change).  Nothing of them is kept in
 * core but i_file_acl: the inode's state EXT4_STATE_XATTR is its area's
 * magic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "ext4.h"
#include "namei.h"
#include "xattr.h"

#define XATTR_CREDITS 16u       /* __ext4_xattr_set_credits: block, bitmap, inode, ... */
#define NAME_HASH_SHIFT 5
#define VALUE_HASH_SHIFT 16
#define BLOCK_HASH_SHIFT 16
#define EXT4_XATTR_REFCOUNT_MAX 1024u

/* struct ext4_xattr_search: one area being searched and changed. */
struct ext4_xattr_search {
	uint8_t *first;                 /* the first entry */
	uint8_t *base;                  /* what e_value_offs counts from */
	uint8_t *end;
	uint8_t *here;                  /* the entry found, or where it would go */
	int not_found;                  /* 0 or -ENODATA */
};

/* struct ext4_xattr_info: what is set (no value: removed). */
struct ext4_xattr_info {
	int name_index;
	const char *name;               /* after the prefix */
	const void *value;
	size_t value_len;
};

static struct ext4_xattr_entry *ENTRY(uint8_t *p)
{
	return (struct ext4_xattr_entry *)(void *)p;
}

static bool is_last_entry(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v == 0;
}

static uint8_t *xattr_next(uint8_t *p)
{
	return p + EXT4_XATTR_LEN(ENTRY(p)->e_name_len);
}

static char *e_name(uint8_t *p)
{
	return (char *)p + sizeof(struct ext4_xattr_entry);
}

uint32_t ext4_xattr_hash_entry(const char *name, size_t name_len, const uint8_t *value,
			       size_t value_count)
{
	uint32_t hash = 0, w;

	while (name_len--)
		hash = (hash << NAME_HASH_SHIFT) ^ (hash >> (32 - NAME_HASH_SHIFT)) ^
		       (unsigned char)*name++;
	for (; value_count--; value += 4) {
		memcpy(&w, value, sizeof(w));
		hash = (hash << VALUE_HASH_SHIFT) ^ (hash >> (32 - VALUE_HASH_SHIFT)) ^ w;
	}
	return hash;
}

/* ext4_xattr_rehash(): the header's hash over its entries' (0 when one is 0). */
static void ext4_xattr_rehash(uint8_t *blk)
{
	struct ext4_xattr_header *hdr = (struct ext4_xattr_header *)(void *)blk;
	uint32_t hash = 0;

	for (uint8_t *e = blk + sizeof(*hdr); !is_last_entry(e); e = xattr_next(e)) {
		if (!ENTRY(e)->e_hash) {
			hash = 0;
			break;
		}
		hash = (hash << BLOCK_HASH_SHIFT) ^ (hash >> (32 - BLOCK_HASH_SHIFT)) ^
		       ENTRY(e)->e_hash;
	}
	hdr->h_hash = hash;
}

uint32_t ext4_xattr_block_csum(const struct ext4_fs *fs, uint64_t blocknr, const uint8_t *blk)
{
	size_t off = offsetof(struct ext4_xattr_header, h_checksum);
	uint32_t dummy = 0, c;

	c = crc32c(fs->lay.csum_seed, &blocknr, sizeof(blocknr));
	c = crc32c(c, blk, off);
	c = crc32c(c, &dummy, sizeof(dummy));
	off += sizeof(dummy);
	return crc32c(c, blk + off, fs->opts.block_size - off);
}

static bool has_csum(const struct ext4_fs *fs)
{
	return fs->lay.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
}

/* ext4_xattr_block_csum_set() */
static void block_csum_set(const struct ext4_fs *fs, uint32_t blocknr, uint8_t *blk)
{
	if (has_csum(fs))
		((struct ext4_xattr_header *)(void *)blk)->h_checksum =
			ext4_xattr_block_csum(fs, blocknr, blk);
}

/*
 * check_xattrs(): the entries from @first end before @end with names of
 * their length, and every value (from @value_start) lies past the names
 * and inside the area; no ea_inode.  0 or -EFSCORRUPTED.
 */
static int check_xattrs(uint8_t *first, uint8_t *end, uint8_t *value_start)
{
	uint8_t *e = first;

	while (!is_last_entry(e)) {
		uint8_t *next = xattr_next(e);

		if (next >= end || strnlen(e_name(e), ENTRY(e)->e_name_len) !=
				   ENTRY(e)->e_name_len)
			return -EFSCORRUPTED;
		e = next;
	}
	for (uint8_t *x = first; !is_last_entry(x); x = xattr_next(x)) {
		uint32_t size = ENTRY(x)->e_value_size;
		uint16_t offs = ENTRY(x)->e_value_offs;

		if (ENTRY(x)->e_value_inum || size > XATTR_SIZE_MAX)
			return -EFSCORRUPTED;
		if (size == 0)
			continue;
		if (offs > end - value_start || value_start + offs < e + sizeof(uint32_t) ||
		    EXT4_XATTR_SIZE(size) > (size_t)(end - (value_start + offs)))
			return -EFSCORRUPTED;
	}
	return 0;
}

/* xattr_find_entry(): from s->here; sorted areas stop where the name would go. */
static int xattr_find_entry(struct ext4_xattr_search *s, const struct ext4_xattr_info *i,
			    bool sorted)
{
	size_t name_len = strlen(i->name);
	int cmp = 1;
	uint8_t *e;

	for (e = s->here; !is_last_entry(e); e = xattr_next(e)) {
		if (xattr_next(e) >= s->end)
			return -EFSCORRUPTED;
		cmp = i->name_index - ENTRY(e)->e_name_index;
		if (!cmp)
			cmp = (int)name_len - ENTRY(e)->e_name_len;
		if (!cmp)
			cmp = memcmp(i->name, e_name(e), name_len);
		if (cmp <= 0 && (sorted || cmp == 0))
			break;
	}
	s->here = e;
	return cmp ? -ENODATA : 0;
}

/* The value of a found entry: the same bytes as @i's? (ext4_xattr_value_same) */
static bool xattr_value_same(const struct ext4_xattr_search *s, const struct ext4_xattr_info *i)
{
	const struct ext4_xattr_entry *e = ENTRY(s->here);

	if (e->e_value_size != i->value_len)
		return false;
	return i->value_len == 0 || !memcmp(s->base + e->e_value_offs, i->value, i->value_len);
}

/* The old value out (the values below it move up by @old_size), offsets adjusted. */
static void remove_value(struct ext4_xattr_search *s, size_t *min_offs, size_t old_size)
{
	struct ext4_xattr_entry *here = ENTRY(s->here);
	uint8_t *first_val = s->base + *min_offs;
	size_t offs = here->e_value_offs;

	memmove(first_val + old_size, first_val, (size_t)(s->base + offs - first_val));
	memset(first_val, 0, old_size);
	*min_offs += old_size;
	for (uint8_t *l = s->first; !is_last_entry(l); l = xattr_next(l)) {
		struct ext4_xattr_entry *e = ENTRY(l);

		if (!e->e_value_inum && e->e_value_size && e->e_value_offs < offs)
			e->e_value_offs = (uint16_t)(e->e_value_offs + old_size);
	}
}

/* The entry's name removed, inserted, or its value reset for an update. */
static void place_name(struct ext4_xattr_search *s, const struct ext4_xattr_info *i,
		       uint8_t *last)
{
	size_t name_len = strlen(i->name), size = EXT4_XATTR_LEN(name_len);
	struct ext4_xattr_entry *here = ENTRY(s->here);

	if (!i->value) {
		last -= size;
		memmove(s->here, s->here + size, (size_t)(last - s->here) + sizeof(uint32_t));
		memset(last, 0, size);
	} else if (s->not_found) {
		memmove(s->here + size, s->here, (size_t)(last - s->here) + sizeof(uint32_t));
		memset(s->here, 0, size);
		here->e_name_index = (uint8_t)i->name_index;
		here->e_name_len = (uint8_t)name_len;
		memcpy(e_name(s->here), i->name, name_len);
	} else {
		here->e_value_inum = 0;
		here->e_value_offs = 0;
		here->e_value_size = 0;
	}
}

/* The new value at the values' low end (its padding zeroed). */
static void put_value(const struct ext4_xattr_info *i, uint8_t *val)
{
	memcpy(val, i->value, i->value_len);
	memset(val + i->value_len, 0, EXT4_XATTR_SIZE(i->value_len) - i->value_len);
}

/* The entry's hash (the block's entries only) and the block's header hash. */
static void update_hash(struct ext4_xattr_search *s, const struct ext4_xattr_info *i,
			bool is_block)
{
	struct ext4_xattr_entry *here = ENTRY(s->here);

	if (i->value)
		here->e_hash = !is_block ? 0 : ext4_xattr_hash_entry(e_name(s->here),
			here->e_name_len, s->base + here->e_value_offs,
			EXT4_XATTR_SIZE(i->value_len) >> 2);
	if (is_block)
		ext4_xattr_rehash(s->base);
}

/*
 * ext4_xattr_set_entry(): @i set (or removed, without a value) in area @s
 * at s->here: a value of the same padded size overwritten in place, else
 * the old value and name out and the new ones in, the free space checked
 * first (-ENOSPC, nothing changed).  -EFSCORRUPTED for entries that run
 * past the area.
 */
static int ext4_xattr_set_entry(struct ext4_xattr_search *s, const struct ext4_xattr_info *i,
				bool is_block)
{
	struct ext4_xattr_entry *here = ENTRY(s->here);
	size_t min_offs = (size_t)(s->end - s->base), name_len = strlen(i->name);
	size_t old_size = !s->not_found ? EXT4_XATTR_SIZE(here->e_value_size) : 0;
	size_t new_size = i->value ? EXT4_XATTR_SIZE(i->value_len) : 0;
	uint8_t *last;

	if (new_size && new_size == old_size) {
		here->e_value_size = (uint32_t)i->value_len;
		put_value(i, s->base + here->e_value_offs);
		update_hash(s, i, is_block);
		return 0;
	}
	for (last = s->first; !is_last_entry(last); last = xattr_next(last)) {
		if (xattr_next(last) >= s->end)
			return -EFSCORRUPTED;
		if (!ENTRY(last)->e_value_inum && ENTRY(last)->e_value_size &&
		    ENTRY(last)->e_value_offs < min_offs)
			min_offs = ENTRY(last)->e_value_offs;
	}
	if (i->value) {
		size_t free = min_offs - (size_t)(last - s->base) - sizeof(uint32_t);

		if (!s->not_found)
			free += EXT4_XATTR_LEN(name_len) + old_size;
		if (free < EXT4_XATTR_LEN(name_len) + new_size)
			return -ENOSPC;
	}
	if (!s->not_found && here->e_value_size)
		remove_value(s, &min_offs, old_size);
	place_name(s, i, last);
	if (i->value) {
		if (i->value_len) {
			here->e_value_offs = (uint16_t)(min_offs - new_size);
			put_value(i, s->base + min_offs - new_size);
		}
		here->e_value_size = (uint32_t)i->value_len;
	}
	update_hash(s, i, is_block);
	return 0;
}

/* --- the inode's area --- */

static uint8_t *raw_of(struct ext4_fs *fs, const struct ext4_inode_info *ei)
{
	return ext4_meta_get(fs, ei->i_loc_blk) + ei->i_loc_off;
}

static uint16_t extra_isize(const uint8_t *raw)
{
	uint16_t v;

	memcpy(&v, raw + offsetof(struct ext4_inode, i_extra_isize), sizeof(v));
	return v;
}

/* EXT4_INODE_HAS_XATTR_SPACE() */
static bool has_xattr_space(const struct ext4_fs *fs, uint16_t extra)
{
	return extra != 0 && EXT4_GOOD_OLD_INODE_SIZE + extra +
	       sizeof(struct ext4_xattr_ibody_header) + EXT4_XATTR_PAD <= fs->lay.inode_size;
}

/*
 * ext4_xattr_ibody_find(): the inode's area in @s (s->first NULL when the
 * inode has none); searched when its magic says it holds entries.
 */
static int ext4_xattr_ibody_find(struct ext4_fs *fs, const struct ext4_inode_info *ei,
				 const struct ext4_xattr_info *i, struct ext4_xattr_search *s)
{
	uint8_t *raw = raw_of(fs, ei), *hdr;
	uint16_t extra = extra_isize(raw);
	uint32_t magic;
	int err;

	memset(s, 0, sizeof(*s));
	s->not_found = -ENODATA;
	if (!has_xattr_space(fs, extra))
		return 0;
	hdr = raw + EXT4_GOOD_OLD_INODE_SIZE + extra;
	s->base = s->first = s->here = hdr + sizeof(struct ext4_xattr_ibody_header);
	s->end = raw + fs->lay.inode_size;
	memcpy(&magic, hdr, sizeof(magic));
	if (magic != EXT4_XATTR_MAGIC)
		return 0;
	if ((err = check_xattrs(s->first, s->end, s->base)) < 0)
		return err;
	err = xattr_find_entry(s, i, false);
	if (err && err != -ENODATA)
		return err;
	s->not_found = err;
	return 0;
}

/* ext4_xattr_ibody_set(): set in the inode's area, its magic as it now holds entries or not. */
static int ext4_xattr_ibody_set(struct ext4_xattr_search *s, const struct ext4_xattr_info *i)
{
	uint32_t magic;
	int err;

	if (!s->first)
		return -ENOSPC;                 /* no EXT4_INODE_HAS_XATTR_SPACE */
	if ((err = ext4_xattr_set_entry(s, i, false)) < 0)
		return err;
	magic = is_last_entry(s->first) ? 0 : EXT4_XATTR_MAGIC;
	memcpy(s->first - sizeof(magic), &magic, sizeof(magic));
	return 0;
}

/* --- the block --- */

/* ext4_xattr_check_block(): magic, one block, checksum, entries. */
static int ext4_xattr_check_block(struct ext4_fs *fs, uint32_t blocknr, uint8_t *blk)
{
	const struct ext4_xattr_header *hdr = (const struct ext4_xattr_header *)(void *)blk;

	if (hdr->h_magic != EXT4_XATTR_MAGIC || hdr->h_blocks != 1) {
		fs->s_ns_error = "an xattr block without its magic (ext4_xattr_check_block)";
		return -EFSCORRUPTED;
	}
	if (has_csum(fs) && hdr->h_checksum != ext4_xattr_block_csum(fs, blocknr, blk)) {
		fs->s_ns_error = "an xattr block's checksum fails (ext4_xattr_block_csum_verify)";
		return -EFSBADCRC;
	}
	return check_xattrs(blk + sizeof(*hdr), blk + fs->opts.block_size, blk);
}

/* ext4_xattr_block_find(): the inode's block in @s (s->base NULL when it has none). */
static int ext4_xattr_block_find(struct ext4_fs *fs, const struct ext4_inode_info *ei,
				 const struct ext4_xattr_info *i, struct ext4_xattr_search *s)
{
	uint8_t *blk;
	int err;

	memset(s, 0, sizeof(*s));
	s->not_found = -ENODATA;
	if (!ei->i_file_acl)
		return 0;
	if (ei->i_file_acl < fs->lay.first_data_block || ei->i_file_acl >= fs->lay.nr_blocks)
		return -EFSCORRUPTED;
	blk = ext4_meta_get(fs, (uint32_t)ei->i_file_acl);
	if ((err = ext4_xattr_check_block(fs, (uint32_t)ei->i_file_acl, blk)) < 0)
		return err;
	s->base = blk;
	s->first = s->here = blk + sizeof(struct ext4_xattr_header);
	s->end = blk + fs->opts.block_size;
	err = xattr_find_entry(s, i, true);
	if (err && err != -ENODATA)
		return err;
	s->not_found = err;
	return 0;
}

/* --- the mb_cache of xattr blocks (s_ea_block_cache): fs->s_ea_cache --- */

static struct ext4_xattr_header *hdr_of(const uint8_t *blk)
{
	return (struct ext4_xattr_header *)(void *)blk;
}

/* The cache's entry of (@hash, @blocknr), or NULL. */
static struct ext4_ea_cache_entry *ea_cache_entry(struct ext4_fs *fs, uint32_t hash,
						  uint32_t blocknr)
{
	for (uint32_t i = 0; i < fs->s_nr_ea_cache; i++)
		if (fs->s_ea_cache[i].ce_hash == hash && fs->s_ea_cache[i].ce_block == blocknr)
			return &fs->s_ea_cache[i];
	return NULL;
}

/* ext4_xattr_block_cache_insert(): block @blocknr (@blk's bytes) cached, unless it is. */
static void ea_cache_insert(struct ext4_fs *fs, const uint8_t *blk, uint32_t blocknr)
{
	const struct ext4_xattr_header *hdr = hdr_of(blk);

	if (ea_cache_entry(fs, hdr->h_hash, blocknr))
		return;                         /* mb_cache_entry_create(): -EBUSY */
	if (fs->s_nr_ea_cache == fs->s_cap_ea_cache) {
		fs->s_cap_ea_cache = fs->s_cap_ea_cache ? 2 * fs->s_cap_ea_cache : 8;
		fs->s_ea_cache = sim_realloc_array(fs->s_ea_cache, fs->s_cap_ea_cache,
						   sizeof(*fs->s_ea_cache));
	}
	fs->s_ea_cache[fs->s_nr_ea_cache++] = (struct ext4_ea_cache_entry){
		hdr->h_hash, blocknr, hdr->h_refcount < EXT4_XATTR_REFCOUNT_MAX };
}

/* mb_cache_entry_delete_or_get() of a block about to change or be freed. */
static void ea_cache_delete(struct ext4_fs *fs, uint32_t hash, uint32_t blocknr)
{
	struct ext4_ea_cache_entry *e = ea_cache_entry(fs, hash, blocknr);

	if (!e)
		return;
	memmove(e, e + 1, (size_t)(fs->s_ea_cache + fs->s_nr_ea_cache - (e + 1)) * sizeof(*e));
	fs->s_nr_ea_cache--;
}

/* ext4_xattr_cmp(): do two blocks hold the same entries (names, hashes, values)? */
static bool xattr_same_entries(uint8_t *a, uint8_t *b)
{
	uint8_t *x = a + sizeof(struct ext4_xattr_header), *y = b + sizeof(struct ext4_xattr_header);

	for (; !is_last_entry(x); x = xattr_next(x), y = xattr_next(y)) {
		const struct ext4_xattr_entry *p = ENTRY(x), *q = ENTRY(y);

		if (is_last_entry(y) || p->e_hash != q->e_hash || p->e_name_index != q->e_name_index ||
		    p->e_name_len != q->e_name_len || p->e_value_size != q->e_value_size ||
		    p->e_value_inum != q->e_value_inum || memcmp(e_name(x), e_name(y), p->e_name_len) ||
		    memcmp(a + p->e_value_offs, b + q->e_value_offs, p->e_value_size))
			return false;
	}
	return is_last_entry(y);
}

/*
 * ext4_xattr_block_cache_find(): a cached, reusable block whose entries
 * equal @blk's, the newest first (mb_cache_entry_find_first/_next); 0 when
 * none, or when @blk's hash is 0 (never shared).
 */
static uint32_t ext4_xattr_block_cache_find(struct ext4_fs *fs, uint8_t *blk)
{
	uint32_t hash = hdr_of(blk)->h_hash;

	if (!hash)
		return 0;
	for (uint32_t i = fs->s_nr_ea_cache; i-- > 0;) {
		const struct ext4_ea_cache_entry *e = &fs->s_ea_cache[i];

		if (e->ce_hash == hash && e->ce_reusable &&
		    xattr_same_entries(blk, ext4_meta_get(fs, e->ce_block)))
			return e->ce_block;
	}
	return 0;
}

/*
 * ext4_xattr_release_block(): one inode fewer names @blocknr: freed (and
 * revoked, out of the cache) when it was the last, else its refcount
 * dropped, journaled.
 */
static void ext4_xattr_release_block(struct ext4_fs *fs, handle_t *h, uint32_t blocknr)
{
	uint8_t *blk = ext4_meta_get(fs, blocknr);
	struct ext4_xattr_header *hdr = hdr_of(blk);
	struct ext4_ea_cache_entry *e;

	if (hdr->h_refcount <= 1) {
		ea_cache_delete(fs, hdr->h_hash, blocknr);
		ext4_meta_forget(fs, blocknr);  /* EXT4_FREE_BLOCKS_METADATA | FORGET */
		ext4_free_meta_block(fs, h, blocknr);
		return;
	}
	if (--hdr->h_refcount == EXT4_XATTR_REFCOUNT_MAX - 1 &&
	    (e = ea_cache_entry(fs, hdr->h_hash, blocknr)) != NULL)
		e->ce_reusable = true;
	block_csum_set(fs, blocknr, blk);
	jbd2_journal_dirty_metadata(h, blocknr);
}

/* One more inode names cached block @blocknr (its refcount raised, journaled). */
static void share_block(struct ext4_fs *fs, handle_t *h, uint32_t blocknr)
{
	uint8_t *blk = ext4_meta_get(fs, blocknr);
	struct ext4_xattr_header *hdr = hdr_of(blk);
	struct ext4_ea_cache_entry *e;

	if (++hdr->h_refcount == EXT4_XATTR_REFCOUNT_MAX &&
	    (e = ea_cache_entry(fs, hdr->h_hash, blocknr)) != NULL)
		e->ce_reusable = false;
	block_csum_set(fs, blocknr, blk);
	jbd2_journal_dirty_metadata(h, blocknr);
}

/* The block ext4_xattr_block_set built in @copy written to a new block: its number in *@nr. */
static int new_xattr_block(struct ext4_fs *fs, handle_t *h, const uint8_t *copy, uint32_t *nr)
{
	uint8_t *blk;
	int err = ext4_mb_new_meta_block(fs, h, fs->lay.data_start, nr);

	if (err < 0)
		return err;
	blk = ext4_meta_new(fs, *nr);
	memcpy(blk, copy, fs->opts.block_size);
	block_csum_set(fs, *nr, blk);
	ea_cache_insert(fs, blk, *nr);
	jbd2_journal_dirty_metadata(h, *nr);
	return 0;
}

/*
 * ext4_xattr_block_set()'s "inserted:": the entries built at @built go to an
 * equal cached block (shared), else stay in block @in_place (kept, cached),
 * else to a new block; its number in *@nr.
 */
static int block_inserted(struct ext4_fs *fs, handle_t *h, uint8_t *built, uint32_t in_place,
			  uint32_t *nr)
{
	uint32_t found = ext4_xattr_block_cache_find(fs, built);

	if (found) {
		if (found != in_place)
			share_block(fs, h, found);
		*nr = found;
		return 0;
	}
	if (in_place) {
		ea_cache_insert(fs, built, in_place);
		*nr = in_place;
		return 0;
	}
	return new_xattr_block(fs, h, built, nr);
}

/* A new block's contents (no block yet) or a shared block's copy, in @s over @copy. */
static void block_copy(struct ext4_fs *fs, struct ext4_xattr_search *s, uint8_t *copy)
{
	struct ext4_xattr_header *hdr = (struct ext4_xattr_header *)(void *)copy;
	size_t here = s->base ? (size_t)(s->here - s->base) : sizeof(*hdr);

	if (s->base) {
		memcpy(copy, s->base, fs->opts.block_size);
	} else {
		memset(copy, 0, fs->opts.block_size);
		hdr->h_magic = EXT4_XATTR_MAGIC;
		hdr->h_blocks = 1;
	}
	hdr->h_refcount = 1;
	s->base = copy;
	s->first = copy + sizeof(*hdr);
	s->here = copy + here;
	s->end = copy + fs->opts.block_size;
}

/*
 * ext4_xattr_block_set(): set in the inode's block: in place when only
 * this inode names it (out of the cache while it changes), else in a copy;
 * the result shared with an equal cached block, kept, or written to a new
 * block (none when the set leaves no entry); i_file_acl names it and the
 * block it no longer names is released.
 */
static int ext4_xattr_block_set(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei,
				struct ext4_xattr_search *s, const struct ext4_xattr_info *i)
{
	uint32_t old = (uint32_t)ei->i_file_acl, nr = 0;
	bool in_place = s->base && ((struct ext4_xattr_header *)(void *)s->base)->h_refcount == 1;
	uint8_t *copy = NULL;
	int err;

	if (in_place) {
		ea_cache_delete(fs, hdr_of(s->base)->h_hash, old);
	} else {
		copy = malloc(fs->opts.block_size);
		SIM_ASSERT(copy != NULL);
		block_copy(fs, s, copy);
	}
	err = ext4_xattr_set_entry(s, i, true);
	if (in_place)
		block_csum_set(fs, old, s->base);
	if (!err && in_place)
		jbd2_journal_dirty_metadata(h, old);
	if (!err && !is_last_entry(s->first))
		err = block_inserted(fs, h, s->base, in_place ? old : 0, &nr);
	free(copy);
	if (err < 0)
		return err;
	ei->i_file_acl = nr;
	if (old && old != nr)
		ext4_xattr_release_block(fs, h, old);
	return 0;
}

/* --- ext4_xattr_set_handle --- */

/* The value is to be set: the inode's area first, then the block (its copy out of the inode). */
static int set_value(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei,
		     struct ext4_xattr_search *is, struct ext4_xattr_search *bs,
		     struct ext4_xattr_info *i)
{
	int err;

	if (!is->not_found && xattr_value_same(is, i))
		return 1;
	if (!bs->not_found && xattr_value_same(bs, i))
		return 1;
	err = ext4_xattr_ibody_set(is, i);
	if (!err && !bs->not_found) {
		i->value = NULL;
		return ext4_xattr_block_set(fs, h, ei, bs, i);
	}
	if (err != -ENOSPC)
		return err;
	if (ei->i_file_acl && !bs->base && (err = ext4_xattr_block_find(fs, ei, i, bs)) < 0)
		return err;
	err = ext4_xattr_block_set(fs, h, ei, bs, i);
	if (!err && !is->not_found) {
		i->value = NULL;
		err = ext4_xattr_ibody_set(is, i);
	}
	return err;
}

/*
 * ext4_xattr_set_handle(): @i in @ei under @h: found in the inode or the
 * block (-ENODATA for XATTR_REPLACE of a missing one, -EEXIST for
 * XATTR_CREATE of an existing one); removed where it is, or set (an equal
 * value changes nothing); then the inode dirtied, synced with chattr +S.
 */
static int ext4_xattr_set_handle(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei,
				 struct ext4_xattr_info *i, int flags)
{
	struct ext4_xattr_search is, bs;
	int err;

	if (strlen(i->name) > XATTR_NAME_MAX)
		return -ERANGE;
	if ((err = ext4_xattr_ibody_find(fs, ei, i, &is)) < 0)
		return err;
	memset(&bs, 0, sizeof(bs));
	bs.not_found = -ENODATA;
	if (is.not_found && (err = ext4_xattr_block_find(fs, ei, i, &bs)) < 0)
		return err;
	if (is.not_found && bs.not_found) {
		if (flags & XATTR_REPLACE)
			return -ENODATA;
		if (!i->value)
			return 0;
	} else if (flags & XATTR_CREATE) {
		return -EEXIST;
	}
	if (!i->value)
		err = !is.not_found ? ext4_xattr_ibody_set(&is, i)
				    : ext4_xattr_block_set(fs, h, ei, &bs, i);
	else
		err = set_value(fs, h, ei, &is, &bs, i);
	if (err)
		return err < 0 ? err : 0;
	ext4_mark_other_dirty(fs, h, ei);       /* ext4_mark_iloc_dirty; i_ctime moves */
	if (ei->i_flags & EXT4_SYNC_FL)
		ext4_handle_sync(h);            /* IS_SYNC() */
	return 0;
}

/* ext4_xattr_set(): one handle around ext4_xattr_set_handle. */
static int ext4_xattr_set(struct ext4_fs *fs, struct ext4_inode_info *ei, int index,
			  const char *name, const void *value, size_t len, int flags)
{
	struct ext4_xattr_info i = { index, name, value, len };
	handle_t *h = ext4_journal_start(fs, "ext4_xattr_set", HT_XATTR, XATTR_CREDITS);
	int err = ext4_xattr_set_handle(fs, h, ei, &i, flags);

	ext4_journal_stop(fs, "ext4_xattr_set", h);
	return err;
}

/* The prefixes ext4's handlers take (ext4_xattr_handler_map), and their index. */
static const struct { const char *prefix; int index; } xattr_prefixes[] = {
	{ "user.", EXT4_XATTR_INDEX_USER },
	{ "trusted.", EXT4_XATTR_INDEX_TRUSTED },
	{ "security.", EXT4_XATTR_INDEX_SECURITY },
};

/*
 * The VFS's part (setxattr()'s name copy, xattr_permission,
 * xattr_resolve_name) for @path's inode and @name: 0 with the inode, the
 * handler's index and the name after the prefix; or the error.
 */
static int xattr_resolve(struct ext4_fs *fs, const char *path, const char *name,
			 struct ext4_inode_info **ei, int *index, const char **suffix)
{
	int err = ext4_path_lookup(fs, path, true, ei);

	if (err < 0)
		return err;
	if (strlen(name) > XATTR_NAME_MAX)
		return -ERANGE;
	if (!strncmp(name, "user.", 5) && !S_ISREG((*ei)->i_mode) && !S_ISDIR((*ei)->i_mode))
		return -EPERM;
	for (size_t k = 0; k < sizeof(xattr_prefixes) / sizeof(xattr_prefixes[0]); k++) {
		size_t n = strlen(xattr_prefixes[k].prefix);

		if (!strncmp(name, xattr_prefixes[k].prefix, n)) {
			*index = xattr_prefixes[k].index;
			*suffix = name + n;
			return **suffix ? 0 : -EINVAL;
		}
	}
	if (!strncmp(name, "system.", 7))
		fs->s_ns_error = "system.* names (POSIX ACLs) are not modelled";
	return -EOPNOTSUPP;
}

int ext4_setxattr(struct ext4_fs *fs, const char *path, const char *name, const void *value,
		  size_t len, int flags)
{
	struct ext4_inode_info *ei;
	const char *suffix;
	int index, err;

	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	if ((err = xattr_resolve(fs, path, name, &ei, &index, &suffix)) < 0)
		return err;
	if (len > XATTR_SIZE_MAX)
		return -E2BIG;
	return ext4_xattr_set(fs, ei, index, suffix, len ? value : "", len, flags);
}

int ext4_removexattr(struct ext4_fs *fs, const char *path, const char *name)
{
	struct ext4_inode_info *ei;
	const char *suffix;
	int index, err;

	if ((err = xattr_resolve(fs, path, name, &ei, &index, &suffix)) < 0)
		return err;
	return ext4_xattr_set(fs, ei, index, suffix, NULL, 0, XATTR_REPLACE);
}

/* The prefix of handler @index, or NULL (an index the model has no handler for). */
static const char *prefix_of(int index)
{
	for (size_t k = 0; k < sizeof(xattr_prefixes) / sizeof(xattr_prefixes[0]); k++)
		if (xattr_prefixes[k].index == index)
			return xattr_prefixes[k].prefix;
	return NULL;
}

/* The entries of one area into @out from *@nr on. */
static int list_area(struct ext4_xattr_search *s, bool in_block, struct ext4_xattr_pair *out,
		     uint32_t cap, uint32_t *nr)
{
	for (uint8_t *e = s->first; !is_last_entry(e); e = xattr_next(e)) {
		const struct ext4_xattr_entry *x = ENTRY(e);
		const char *p = prefix_of(x->e_name_index);
		struct ext4_xattr_pair *xp;

		if (!p)
			return -EOPNOTSUPP;
		if (*nr >= cap)
			return -ERANGE;
		xp = &out[(*nr)++];
		if (strlen(p) + x->e_name_len > XATTR_NAME_MAX)
			return -ERANGE;
		memcpy(xp->xp_name, p, strlen(p));
		memcpy(xp->xp_name + strlen(p), e_name(e), x->e_name_len);
		xp->xp_name[strlen(p) + x->e_name_len] = '\0';
		xp->xp_value = s->base + x->e_value_offs;
		xp->xp_len = x->e_value_size;
		xp->xp_in_block = in_block;
	}
	return 0;
}

int ext4_xattr_list(struct ext4_fs *fs, const struct ext4_inode_info *ei,
		    struct ext4_xattr_pair *out, uint32_t cap, uint32_t *nr)
{
	struct ext4_xattr_info probe = { 0, "", NULL, 0 };
	struct ext4_xattr_search s;
	int err;

	*nr = 0;
	if ((err = ext4_xattr_ibody_find(fs, ei, &probe, &s)) < 0)
		return err;
	if (s.first && (err = list_area(&s, false, out, cap, nr)) < 0)
		return err;
	if ((err = ext4_xattr_block_find(fs, ei, &probe, &s)) < 0)
		return err;
	return s.base ? list_area(&s, true, out, cap, nr) : 0;
}

bool ext4_has_xattrs(struct ext4_fs *fs, const struct ext4_inode_info *ei)
{
	const uint8_t *raw = raw_of(fs, ei);
	uint16_t extra = extra_isize(raw);
	uint32_t magic = 0;

	if (ei->i_file_acl)
		return true;
	if (has_xattr_space(fs, extra))
		memcpy(&magic, raw + EXT4_GOOD_OLD_INODE_SIZE + extra, sizeof(magic));
	return magic == EXT4_XATTR_MAGIC;
}

void ext4_xattr_delete_inode(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei)
{
	uint32_t blocknr = (uint32_t)ei->i_file_acl;

	if (!blocknr)
		return;
	ext4_xattr_release_block(fs, h, blocknr);
	ei->i_file_acl = 0;
	ext4_mark_other_dirty(fs, h, ei);
}
