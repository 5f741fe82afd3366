/*
 * blkdev.c - the block device model: sparse durable storage plus an ordered
 * list of writes that are in flight or sit in the volatile cache.  See
 * blkdev.h for the state diagram and invariants.
 */
#include "blkdev.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define CHUNK_BLOCKS (1u << BLKDEV_CHUNK_SHIFT)
#define CHUNK_MASK (CHUNK_BLOCKS - 1)

/* The one zero block every zeroed block points at; never written. */
static uint8_t zero_block[4096];

bool blkdev_is_zero_block(const uint8_t *p)
{
	return p == zero_block;
}

/* Free a block copy unless it is the shared zero block. */
static void free_copy(uint8_t *p)
{
	if (p != zero_block)
		free(p);
}

struct blkdev *blkdev_create(uint32_t nr_blocks, uint32_t block_size)
{
	struct blkdev *bd = sim_zalloc(sizeof(*bd));

	SIM_ASSERT(nr_blocks > 0);
	SIM_ASSERT(block_size == 1024 || block_size == 2048 || block_size == 4096);
	bd->bd_block_size = block_size;
	bd->bd_nr_blocks = nr_blocks;
	bd->bd_nr_chunks = (nr_blocks + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS;
	bd->bd_chunks = sim_zalloc(bd->bd_nr_chunks * sizeof(*bd->bd_chunks));
	bd->bd_next_seq = 1;
	bd->bd_next_done = 1;
	return bd;
}

struct blkdev *blkdev_create_on(struct blkdev_base *base)
{
	struct blkdev *bd = blkdev_create(base->bb_nr_blocks, base->bb_block_size);

	blkdev_base_get(base);
	bd->bd_base = base;
	return bd;
}

struct blkdev_base *blkdev_base_freeze(struct blkdev *bd)
{
	struct blkdev_base *base = sim_zalloc(sizeof(*base));

	SIM_ASSERT(!bd->bd_parent && !bd->bd_base && !bd->bd_durable_hook);
	SIM_ASSERT(bd->bd_nr_bios == 0);
	base->bb_block_size = bd->bd_block_size;
	base->bb_nr_blocks = bd->bd_nr_blocks;
	base->bb_chunks = bd->bd_chunks;        /* moved, not copied */
	base->bb_nr_chunks = bd->bd_nr_chunks;
	base->bb_slots = bd->bd_slots;
	base->bb_nr_slots = bd->bd_nr_slots;
	base->bb_refs = 1;
	free(bd->bd_bios);
	free(bd);
	return base;
}

void blkdev_base_get(struct blkdev_base *base)
{
	SIM_ASSERT(base->bb_refs > 0);
	base->bb_refs++;
}

void blkdev_base_put(struct blkdev_base *base)
{
	if (!base)
		return;
	SIM_ASSERT(base->bb_refs > 0);
	if (--base->bb_refs)
		return;
	for (uint32_t i = 0; i < base->bb_nr_slots; i++) {
		uint32_t blk = base->bb_slots[i];

		free_copy(base->bb_chunks[blk >> BLKDEV_CHUNK_SHIFT][blk & CHUNK_MASK]);
	}
	for (uint32_t c = 0; c < base->bb_nr_chunks; c++)
		free(base->bb_chunks[c]);
	free(base->bb_chunks);
	free(base->bb_slots);
	free(base);
}

const uint8_t *blkdev_base_peek(const struct blkdev_base *base, uint32_t blk)
{
	uint8_t **chunk;

	SIM_ASSERT(blk < base->bb_nr_blocks);
	chunk = base->bb_chunks[blk >> BLKDEV_CHUNK_SHIFT];
	return chunk ? chunk[blk & CHUNK_MASK] : NULL;
}

struct blkdev *blkdev_overlay(const struct blkdev *parent)
{
	struct blkdev *bd = blkdev_create(parent->bd_nr_blocks, parent->bd_block_size);

	bd->bd_parent = parent;
	return bd;
}

void blkdev_destroy(struct blkdev *bd)
{
	if (!bd)
		return;
	for (uint32_t i = 0; i < bd->bd_nr_slots; i++) {  /* sparse: visit only the used */
		uint32_t blk = bd->bd_slots[i];

		free_copy(bd->bd_chunks[blk >> BLKDEV_CHUNK_SHIFT][blk & CHUNK_MASK]);
	}
	for (uint32_t c = 0; c < bd->bd_nr_chunks; c++)
		if (bd->bd_chunks[c])   /* most are never touched */
			free(bd->bd_chunks[c]);
	free(bd->bd_chunks);
	free(bd->bd_slots);
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++)
		free(bd->bd_bios[i].b_data);
	free(bd->bd_bios);
	blkdev_base_put(bd->bd_base);
	free(bd);
}

struct blkdev *blkdev_clone(const struct blkdev *src)
{
	struct blkdev *bd = sim_zalloc(sizeof(*bd));

	SIM_ASSERT(src->bd_parent == NULL && src->bd_durable_hook == NULL);
	*bd = *src;
	bd->bd_chunks = sim_zalloc(bd->bd_nr_chunks * sizeof(*bd->bd_chunks));
	for (uint32_t c = 0; c < bd->bd_nr_chunks; c++)
		if (src->bd_chunks[c])
			bd->bd_chunks[c] = sim_zalloc(CHUNK_BLOCKS * sizeof(uint8_t *));
	for (uint32_t i = 0; i < bd->bd_nr_slots; i++) {
		uint32_t blk = bd->bd_slots[i], c = blk >> BLKDEV_CHUNK_SHIFT;
		uint32_t k = blk & CHUNK_MASK;

		if (blkdev_is_zero_block(src->bd_chunks[c][k])) {
			bd->bd_chunks[c][k] = zero_block;
			continue;
		}
		bd->bd_chunks[c][k] = sim_realloc_array(NULL, 1, bd->bd_block_size);
		memcpy(bd->bd_chunks[c][k], src->bd_chunks[c][k], bd->bd_block_size);
	}
	if (bd->bd_base)
		blkdev_base_get(bd->bd_base);   /* shared, not copied */
	bd->bd_slots = sim_dup_array(src->bd_slots, src->bd_nr_slots, src->bd_cap_slots,
				 sizeof(*bd->bd_slots));
	bd->bd_bios = sim_dup_array(src->bd_bios, src->bd_nr_bios, src->bd_cap_bios,
				sizeof(*bd->bd_bios));
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		bd->bd_bios[i].b_data = sim_realloc_array(NULL, 1, bd->bd_block_size);
		memcpy(bd->bd_bios[i].b_data, src->bd_bios[i].b_data, bd->bd_block_size);
	}
	return bd;
}

/*
 * The chunk entry of @blk's durable copy (listed in bd_slots on first use);
 * the entry is NULL until the caller stores a copy or the zero block.
 */
static uint8_t **slot_ref(struct blkdev *bd, uint32_t blk)
{
	uint32_t c = blk >> BLKDEV_CHUNK_SHIFT;
	uint8_t **chunk;

	SIM_ASSERT(blk < bd->bd_nr_blocks);
	if (!bd->bd_chunks[c])
		bd->bd_chunks[c] = sim_zalloc(CHUNK_BLOCKS * sizeof(uint8_t *));
	chunk = bd->bd_chunks[c];
	if (!chunk[blk & CHUNK_MASK]) {
		if (bd->bd_nr_slots == bd->bd_cap_slots) {
			bd->bd_cap_slots = bd->bd_cap_slots ? 2 * bd->bd_cap_slots : 16;
			bd->bd_slots = sim_realloc_array(bd->bd_slots, bd->bd_cap_slots,
							 sizeof(*bd->bd_slots));
		}
		bd->bd_slots[bd->bd_nr_slots++] = blk;
	}
	return &chunk[blk & CHUNK_MASK];
}

/*
 * The durable copy of @blk, allocated on first write (or when it was the
 * zero block); a new copy's bytes are undefined until the caller writes the
 * whole block.
 */
static uint8_t *durable_slot(struct blkdev *bd, uint32_t blk)
{
	uint8_t **ref = slot_ref(bd, blk);

	if (!*ref || blkdev_is_zero_block(*ref))   /* not zeroed: the caller fills it */
		*ref = sim_realloc_array(NULL, 1, bd->bd_block_size);
	return *ref;
}

/* A 128-bit hash of block @blk holding @data, into @h (added or taken from a sum). */
static void block_hash(uint32_t blk, const uint8_t *data, uint32_t bs, uint64_t h[2])
{
	uint64_t a = 0x9ae16a3b2f90404full ^ blk, b = 0xc3a5c85c97cb3127ull + blk, w;

	for (uint32_t i = 0; i < bs; i += 8) {
		memcpy(&w, data + i, 8);
		a = (a ^ w) * 0x9e3779b97f4a7c15ull;
		a ^= a >> 29;
		b = (b + w) * 0xff51afd7ed558ccdull;
		b ^= b >> 32;
	}
	h[0] = a ^ (b >> 17);
	h[1] = b ^ (a << 11) ^ (a >> 7);
}

/* @bd's base copy of @blk, or NULL: the bytes the sum measures against. */
static const uint8_t *base_bytes(const struct blkdev *bd, uint32_t blk)
{
	return bd->bd_base ? blkdev_base_peek(bd->bd_base, blk) : NULL;
}

/* Are @data the bytes @ref stands for (NULL: the sentinel)? */
static bool same_bytes(const uint8_t *data, const uint8_t *ref, uint32_t bs)
{
	if (ref)
		return data == ref || memcmp(data, ref, bs) == 0;
	for (uint32_t i = 0; i < bs; i++)
		if (data[i] != BLKDEV_SENTINEL)
			return false;
	return true;
}

/*
 * Keep bd_durable_sum (blkdev.h) as @blk's own copy goes from @old (NULL:
 * none, the base's bytes) to @data: only bytes that differ from the base
 * count.
 */
static void sum_update(struct blkdev *bd, uint32_t blk, const uint8_t *old, const uint8_t *data)
{
	const uint8_t *ref = base_bytes(bd, blk);
	uint32_t bs = bd->bd_block_size;
	uint64_t h[2];

	if (bd->bd_parent || bd->bd_no_sum)
		return;
	if (old && !same_bytes(old, ref, bs)) {
		block_hash(blk, old, bs, h);
		bd->bd_durable_sum[0] -= h[0];
		bd->bd_durable_sum[1] -= h[1];
	}
	if (!same_bytes(data, ref, bs)) {
		block_hash(blk, data, bs, h);
		bd->bd_durable_sum[0] += h[0];
		bd->bd_durable_sum[1] += h[1];
	}
}

/* @bd's own durable copy of @blk, or NULL. */
static const uint8_t *own_copy(const struct blkdev *bd, uint32_t blk)
{
	uint8_t **chunk = bd->bd_chunks[blk >> BLKDEV_CHUNK_SHIFT];

	return chunk ? chunk[blk & CHUNK_MASK] : NULL;
}

void blkdev_write_durable(struct blkdev *bd, uint32_t blk, const uint8_t *data)
{
	SIM_ASSERT(blk < bd->bd_nr_blocks);
	sum_update(bd, blk, own_copy(bd, blk), data);
	memcpy(durable_slot(bd, blk), data, bd->bd_block_size);
}

void blkdev_zeroout_durable(struct blkdev *bd, uint32_t blk, uint32_t count)
{
	SIM_ASSERT(bd->bd_block_size <= sizeof(zero_block));
	SIM_ASSERT(count <= bd->bd_nr_blocks && blk <= bd->bd_nr_blocks - count);
	for (uint32_t b = blk; b < blk + count; b++) {
		uint8_t **ref;

		sum_update(bd, b, own_copy(bd, b), zero_block);
		ref = slot_ref(bd, b);
		if (*ref)
			free_copy(*ref);
		*ref = zero_block;
	}
}

/* The bio_info a write without one gets: its kind says what it is. */
static void default_info(struct bio_info *bi, enum bio_kind kind)
{
	static const uint8_t what_of_kind[] = {
		[BIO_DATA] = BW_DATA, [BIO_JOURNAL] = BW_JCOPY, [BIO_COMMIT] = BW_JCOMMIT,
		[BIO_JSB] = BW_JSB, [BIO_META] = BW_REPLAY,
	};

	memset(bi, 0, sizeof(*bi));
	bi->bi_func = "submit_bio";
	bi->bi_lblk = -1;
	bi->bi_what = what_of_kind[kind];
}

/* The block a write names besides its own: the file block, or the home block. */
static int64_t bio_what_block(const struct bio_info *bi)
{
	switch (bi->bi_what) {
	case BW_DATA: case BW_ZEROOUT: case BW_JDATA: return bi->bi_lblk;
	case BW_JCOPY: case BW_HOME: case BW_REPLAY: return bi->bi_home;
	default: return -1;
	}
}

uint64_t blkdev_submit(struct blkdev *bd, uint32_t blk, const uint8_t *data,
		       enum bio_kind kind, bool fua)
{
	struct bio_info bi;

	default_info(&bi, kind);
	return blkdev_submit_bio(bd, blk, data, kind, fua, &bi);
}

uint64_t blkdev_submit_bio(struct blkdev *bd, uint32_t blk, const uint8_t *data,
			   enum bio_kind kind, bool fua, const struct bio_info *bi)
{
	struct bio_rec *b;

	SIM_ASSERT(blk < bd->bd_nr_blocks);
	SIM_ASSERT(bi->bi_what < BW_COUNT);
	if (bd->bd_nr_bios == bd->bd_cap_bios) {
		bd->bd_cap_bios = bd->bd_cap_bios ? 2 * bd->bd_cap_bios : 64;
		bd->bd_bios = sim_realloc_array(bd->bd_bios, bd->bd_cap_bios,
						sizeof(*bd->bd_bios));
	}
	b = &bd->bd_bios[bd->bd_nr_bios++];
	bd->bd_bio_filter[blk % BLKDEV_FILTER_BITS / 64] |= 1ull << (blk % BLKDEV_FILTER_BITS % 64);
	memset(b, 0, sizeof(*b));
	b->b_seq = bd->bd_next_seq++;
	b->b_blocknr = blk;
	b->b_state = BIO_SUBMITTED;
	b->b_kind = (uint8_t)kind;
	b->b_fua = fua;
	b->b_data = sim_realloc_array(NULL, 1, bd->bd_block_size);     /* filled at once */
	memcpy(b->b_data, data, bd->bd_block_size);
	b->b_info = *bi;
	b->b_info.bi_event = ev_next_no(bd->bd_events);
	b->b_info.bi_cause = bd->bd_events ? bd->bd_events->l_cause : EVC_STEP;
	if (bd->bd_events)
		ev_record5(bd->bd_events, EV_BIO_SUBMIT, bi->bi_func, blk, bi->bi_what,
			   bio_what_block(bi), bi->bi_tid, fua);
	return b->b_seq;
}

/* May a write in bd_bios target @blk?  false: none does (see bd_bio_filter). */
static bool bio_filter_may(const struct blkdev *bd, uint32_t blk)
{
	uint32_t bit = blk % BLKDEV_FILTER_BITS;

	return (bd->bd_bio_filter[bit / 64] >> (bit % 64)) & 1;
}

/* With bd_bios empty no bit need stay set. */
static void bio_filter_reset_if_empty(struct blkdev *bd)
{
	if (bd->bd_nr_bios == 0)
		memset(bd->bd_bio_filter, 0, sizeof(bd->bd_bio_filter));
}

static struct bio_rec *find_bio(const struct blkdev *bd, uint64_t seq)
{
	uint32_t lo = 0, hi = bd->bd_nr_bios;

	while (lo < hi) {       /* bd_bios stays sorted by b_seq */
		uint32_t mid = lo + (hi - lo) / 2;

		if (bd->bd_bios[mid].b_seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < bd->bd_nr_bios && bd->bd_bios[lo].b_seq == seq)
		return &bd->bd_bios[lo];
	return NULL;
}

static void remove_bio(struct blkdev *bd, struct bio_rec *b)
{
	uint32_t i = (uint32_t)(b - bd->bd_bios);

	free(b->b_data);
	memmove(b, b + 1, (bd->bd_nr_bios - i - 1) * sizeof(*b));
	bd->bd_nr_bios--;
	bio_filter_reset_if_empty(bd);
}

bool blkdev_in_flight(const struct blkdev *bd, uint64_t seq)
{
	const struct bio_rec *b = find_bio(bd, seq);

	return b && b->b_state == BIO_SUBMITTED;
}

bool blkdev_in_flight_to(const struct blkdev *bd, uint64_t seq, uint32_t blk)
{
	const struct bio_rec *b = find_bio(bd, seq);

	return b && b->b_state == BIO_SUBMITTED && b->b_blocknr == blk;
}

static void fua_done(struct blkdev *bd, struct bio_rec *b);

void blkdev_complete(struct blkdev *bd, uint64_t seq)
{
	struct bio_rec *b = find_bio(bd, seq);

	SIM_ASSERT(b != NULL);
	SIM_ASSERT(b->b_state == BIO_SUBMITTED);
	if (b->b_fua && bd->bd_durable_hook && bd->bd_nr_bios > 1) {
		bd->bd_durable_hook(bd->bd_hook_ctx, BD_BEFORE_FUA, b);
		b = find_bio(bd, seq);
	}
	b->b_state = BIO_COMPLETED;
	b->b_done_seq = bd->bd_next_done++;
	if (!b->b_fua) {
		if (bd->bd_events)
			ev_record5(bd->bd_events, EV_BIO_COMPLETE, "bio_endio", b->b_blocknr,
				   b->b_info.bi_what, b->b_info.bi_event, b->b_info.bi_tid, false);
		return;
	}
	/*
	 * FUA: on media now; older cached copies of the block are superseded.
	 * The event follows, so that a reader of the state it left sees the
	 * block durable.
	 */
	blkdev_write_durable(bd, b->b_blocknr, b->b_data);
	fua_done(bd, b);
}

/* The rest of a FUA completion: older copies superseded, the write gone, the event. */
static void fua_done(struct blkdev *bd, struct bio_rec *b)
{
	struct bio_info bi = b->b_info;
	uint32_t blk = b->b_blocknr;

	for (uint32_t i = 0; i < bd->bd_nr_bios;) {
		struct bio_rec *o = &bd->bd_bios[i];

		if (o->b_blocknr == b->b_blocknr && o->b_state == BIO_COMPLETED &&
		    o->b_done_seq <= b->b_done_seq && o != b) {
			if (o < b)
				b--;
			remove_bio(bd, o);
			continue;
		}
		i++;
	}
	remove_bio(bd, b);
	if (bd->bd_events)
		ev_record5(bd->bd_events, EV_BIO_COMPLETE, "bio_endio", blk, bi.bi_what, bi.bi_event,
			   bi.bi_tid, true);
}

void blkdev_complete_all(struct blkdev *bd)
{
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		struct bio_rec *b = &bd->bd_bios[i];

		if (b->b_state == BIO_SUBMITTED) {
			uint32_t before = bd->bd_nr_bios;

			blkdev_complete(bd, b->b_seq);
			if (bd->bd_nr_bios != before)
				i = (uint32_t)-1;       /* a FUA write shrank the list */
		}
	}
}

static int by_done_seq(const void *a, const void *b)
{
	uint64_t x = (*(struct bio_rec *const *)a)->b_done_seq;
	uint64_t y = (*(struct bio_rec *const *)b)->b_done_seq;

	return x < y ? -1 : x > y;
}

/* Keep only the writes still in flight (in order), freeing the others' data. */
static void drop_completed(struct blkdev *bd)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		if (bd->bd_bios[i].b_state == BIO_SUBMITTED)
			bd->bd_bios[k++] = bd->bd_bios[i];
		else
			free(bd->bd_bios[i].b_data);
	}
	bd->bd_nr_bios = k;
	bio_filter_reset_if_empty(bd);
}

/*
 * Apply completed writes to media in completion order, then drop them:
 * sorted once, O(n log n) in the writes pending (not a scan per write).
 */
void __blkdev_flush(struct blkdev *bd, const char *caller)
{
	struct bio_rec **done = NULL;
	uint32_t n = 0;

	for (uint32_t i = 0; bd->bd_durable_hook && i < bd->bd_nr_bios; i++) {
		if (bd->bd_bios[i].b_state == BIO_COMPLETED) {
			bd->bd_durable_hook(bd->bd_hook_ctx, BD_BEFORE_FLUSH, NULL);
			break;
		}
	}
	if (bd->bd_nr_bios)
		done = sim_realloc_array(NULL, bd->bd_nr_bios, sizeof(*done));
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++)
		if (bd->bd_bios[i].b_state == BIO_COMPLETED)
			done[n++] = &bd->bd_bios[i];
	if (n > 1)
		qsort(done, n, sizeof(*done), by_done_seq);
	for (uint32_t j = 0; j < n; j++) {     /* each copy freed once on media: no peak of two */
		blkdev_write_durable(bd, done[j]->b_blocknr, done[j]->b_data);
		free(done[j]->b_data);
		done[j]->b_data = NULL;
	}
	free(done);
	drop_completed(bd);
	if (bd->bd_events)
		ev_record(bd->bd_events, EV_FLUSH, caller, n, 0, 0, 0);
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++)  /* (2): only in-flight writes remain */
		SIM_ASSERT(bd->bd_bios[i].b_state == BIO_SUBMITTED);
	bd->bd_flushes++;
}

const uint8_t *blkdev_peek_durable(const struct blkdev *bd, uint32_t blk)
{
	uint8_t **chunk;

	SIM_ASSERT(blk < bd->bd_nr_blocks);
	chunk = bd->bd_chunks[blk >> BLKDEV_CHUNK_SHIFT];
	if (chunk && chunk[blk & CHUNK_MASK])
		return chunk[blk & CHUNK_MASK];
	if (bd->bd_parent)
		return blkdev_peek_durable(bd->bd_parent, blk);
	return base_bytes(bd, blk);
}

void blkdev_read_durable(const struct blkdev *bd, uint32_t blk, uint8_t *out)
{
	const uint8_t *p = blkdev_peek_durable(bd, blk);

	if (p)
		memcpy(out, p, bd->bd_block_size);
	else
		memset(out, BLKDEV_SENTINEL, bd->bd_block_size);
}

bool blkdev_overlay_has(const struct blkdev *bd, uint32_t blk)
{
	uint8_t **chunk;

	SIM_ASSERT(blk < bd->bd_nr_blocks);
	chunk = bd->bd_chunks[blk >> BLKDEV_CHUNK_SHIFT];
	if (chunk && chunk[blk & CHUNK_MASK])
		return true;
	for (uint32_t i = 0; bio_filter_may(bd, blk) && i < bd->bd_nr_bios; i++)
		if (bd->bd_bios[i].b_blocknr == blk)
			return true;
	return false;
}

const uint8_t *blkdev_peek(const struct blkdev *bd, uint32_t blk)
{
	const struct bio_rec *newest = NULL;

	if (!bio_filter_may(bd, blk))
		return blkdev_peek_durable(bd, blk);
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		const struct bio_rec *b = &bd->bd_bios[i];

		if (b->b_blocknr != blk || b->b_state != BIO_COMPLETED)
			continue;
		if (!newest || b->b_done_seq > newest->b_done_seq)
			newest = b;
	}
	return newest ? newest->b_data : blkdev_peek_durable(bd, blk);
}

void blkdev_read(const struct blkdev *bd, uint32_t blk, uint8_t *out)
{
	const uint8_t *p = blkdev_peek(bd, blk);

	if (p)
		memcpy(out, p, bd->bd_block_size);
	else
		memset(out, BLKDEV_SENTINEL, bd->bd_block_size);
}

void blkdev_crash(struct blkdev *bd)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {        /* in flight: lost */
		if (bd->bd_bios[i].b_state == BIO_SUBMITTED)
			free(bd->bd_bios[i].b_data);
		else
			bd->bd_bios[k++] = bd->bd_bios[i];
	}
	bd->bd_nr_bios = k;
	bio_filter_reset_if_empty(bd);
	blkdev_flush(bd, "blkdev_crash");
	bd->bd_flushes--;       /* not a flush the file system issued */
	SIM_ASSERT(bd->bd_nr_bios == 0);        /* (3): nothing left pending */
}

void blkdev_crash_keep(struct blkdev *bd, const uint16_t (*keep)[2], uint32_t nr_keep)
{
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		bool kept = false;

		for (uint32_t k = 0; k < nr_keep; k++)
			kept = kept || (keep[k][0] <= i + 1 && i + 1 <= keep[k][1]);
		if (kept)
			blkdev_write_durable(bd, bd->bd_bios[i].b_blocknr, bd->bd_bios[i].b_data);
	}
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++)
		free(bd->bd_bios[i].b_data);
	bd->bd_nr_bios = 0;
	bio_filter_reset_if_empty(bd);
}

/* (1): the newest completed write to @b's block is @b or a newer one. */
static void check_read_sees(const struct blkdev *bd, const struct bio_rec *b)
{
	const uint8_t *seen = blkdev_peek(bd, b->b_blocknr);
	bool found = false;

	for (uint32_t i = 0; i < bd->bd_nr_bios && !found; i++) {
		const struct bio_rec *o = &bd->bd_bios[i];

		found = o->b_data == seen && o->b_blocknr == b->b_blocknr &&
			o->b_state == BIO_COMPLETED && o->b_done_seq >= b->b_done_seq;
	}
	SIM_ASSERT(found);      /* (1) */
}

/*
 * The invariants of blkdev.h that the device's state shows: the writes are
 * listed in submission order; in-flight ones have no completion order (1);
 * completed ones are ordered for the next flush and none is FUA, as a FUA
 * write goes to media when it completes (2); a read returns the newest
 * completed write (1); the base is referenced and of the device's
 * geometry, and the zero block is zero (4).  (3) and the flush half of (2)
 * are asserted where blkdev_crash() and blkdev_flush() finish.
 */
void blkdev_check(const struct blkdev *bd)
{
	uint64_t prev = 0, zero_or = 0, w;

	if (bd->bd_base) {                                              /* (4) */
		SIM_ASSERT(bd->bd_base->bb_refs > 0);
		SIM_ASSERT(bd->bd_base->bb_nr_blocks == bd->bd_nr_blocks &&
			   bd->bd_base->bb_block_size == bd->bd_block_size);
	}
	for (uint32_t i = 0; i < sizeof(zero_block); i += 8) {
		memcpy(&w, zero_block + i, 8);
		zero_or |= w;
	}
	SIM_ASSERT(zero_or == 0);                                       /* (4) */

	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		const struct bio_rec *b = &bd->bd_bios[i];

		SIM_ASSERT(b->b_seq > prev && b->b_seq < bd->bd_next_seq);
		SIM_ASSERT(b->b_blocknr < bd->bd_nr_blocks);
		prev = b->b_seq;
		if (b->b_state == BIO_SUBMITTED) {
			SIM_ASSERT(b->b_done_seq == 0);                 /* (1) */
			continue;
		}
		SIM_ASSERT(b->b_state == BIO_COMPLETED);
		SIM_ASSERT(b->b_done_seq > 0 && b->b_done_seq < bd->bd_next_done); /* (2) */
		SIM_ASSERT(!b->b_fua);                                  /* (2) */
		check_read_sees(bd, b);
	}
}

const char *blkdev_what_name(enum bio_what what)
{
	static const char *const names[BW_COUNT] = {
		[BW_DATA] = "data", [BW_ZEROOUT] = "zeroout", [BW_JDESC] = "journal descriptor",
		[BW_JCOPY] = "journal metadata copy", [BW_JDATA] = "journal data copy",
		[BW_JREVOKE] = "journal revoke", [BW_JCOMMIT] = "journal commit",
		[BW_JSB] = "journal superblock", [BW_HOME] = "checkpoint",
		[BW_REPLAY] = "recovery replay",
	};

	SIM_ASSERT(what < BW_COUNT);
	return names[what];
}
