/*
 * crashstates.c - enumerating, recovering and judging crash states (see
 * crashstates.h).  This is the fault-injection side of the simulator: it
 * reads the model's device and file system, never changes them, and works
 * on overlays and checker copies.
 */
#include "crashstates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "sha256.h"

#define DIGEST_BYTES_MAX ((int64_t)256 << 20)   /* larger files: digest of the runs */
#define CHUNK 65536

/* One alternative content of a block: durable (version 0) or a pending write. */
struct cs_alt {
	const uint8_t *data;            /* NULL: the durable contents */
	uint32_t keep;                  /* 1-based pending write, 0 for durable */
	uint32_t weight;                /* raw choices folded into this one */
};

struct cs_block {
	uint32_t blk;
	uint32_t nr_alts;
	struct cs_alt *alts;
};

struct cs_ctx {
	const struct ext4_fs *fs;
	struct blkdev *bd;
	const struct chk_state *chk;
	uint64_t expected_meta;
	struct cs_block *blocks;
	uint32_t nr_blocks;
	uint32_t *digit;                /* the state being evaluated */
	struct cs_point *out;
};

uint32_t cs_nr_pending(const struct blkdev *bd)
{
	return bd->bd_nr_bios;
}

static int cmp_bio(const void *a, const void *b)
{
	const struct bio_rec *const *x = a, *const *y = b;

	if ((*x)->b_blocknr != (*y)->b_blocknr)
		return (*x)->b_blocknr < (*y)->b_blocknr ? -1 : 1;
	return (*x)->b_seq < (*y)->b_seq ? -1 : (*x)->b_seq > (*y)->b_seq;
}

/* Add pending write @b (1-based @keep) to @blk's alternatives, folding equal bytes. */
static void add_version(struct cs_ctx *x, struct cs_block *cb, const struct bio_rec *b,
			uint32_t keep, const uint8_t *durable)
{
	uint32_t bs = x->bd->bd_block_size;

	for (uint32_t a = 0; a < cb->nr_alts; a++) {
		const uint8_t *d = cb->alts[a].data ? cb->alts[a].data : durable;

		if (memcmp(d, b->b_data, bs) == 0) {
			cb->alts[a].weight++;
			return;
		}
	}
	cb->alts[cb->nr_alts++] = (struct cs_alt){ b->b_data, keep, 1 };
}

/* Group the pending writes by block: alternatives and weights per block. */
static void build_blocks(struct cs_ctx *x)
{
	struct blkdev *bd = x->bd;
	const struct bio_rec **v = sim_zalloc((bd->bd_nr_bios + 1) * sizeof(*v));
	uint8_t *durable = sim_zalloc(bd->bd_block_size);

	for (uint32_t i = 0; i < bd->bd_nr_bios; i++)
		v[i] = &bd->bd_bios[i];
	qsort(v, bd->bd_nr_bios, sizeof(*v), cmp_bio);
	x->blocks = sim_zalloc((bd->bd_nr_bios + 1) * sizeof(*x->blocks));
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		struct cs_block *cb = &x->blocks[x->nr_blocks];

		if (i == 0 || v[i]->b_blocknr != v[i - 1]->b_blocknr) {
			cb = &x->blocks[x->nr_blocks++];
			cb->blk = v[i]->b_blocknr;
			cb->alts = sim_zalloc((bd->bd_nr_bios + 1) * sizeof(*cb->alts));
			cb->alts[0] = (struct cs_alt){ NULL, 0, 1 };
			cb->nr_alts = 1;
			blkdev_read_durable(bd, cb->blk, durable);
		} else {
			cb = &x->blocks[x->nr_blocks - 1];
		}
		add_version(x, cb, v[i], (uint32_t)(v[i] - bd->bd_bios) + 1, durable);
	}
	x->out->nr_blocks = x->nr_blocks;
	free(durable);
	free(v);
}

/* The content digest of the recovered file as a reader sees it. */
static void digest(const struct ext4_fs *fs, const struct chk_state *c, char out[65])
{
	struct sha256 s;
	uint8_t d[32];

	sha256_init(&s);
	if (fs->inode.i_size <= DIGEST_BYTES_MAX) {
		uint8_t *buf = sim_zalloc(CHUNK);

		for (int64_t p = 0; p < fs->inode.i_size; p += CHUNK) {
			int64_t n = SIM_MIN((int64_t)CHUNK, fs->inode.i_size - p);

			ext4_peek(fs, p, n, buf);
			sha256_update(&s, buf, (size_t)n);
		}
		free(buf);
	} else {        /* too large to stream: the recovered runs, then the size */
		uint8_t rec[17];

		for (uint32_t i = 0; i < c->posix.nr; i++) {     /* fields, not padding */
			put_le64(rec, (uint64_t)c->posix.r[i].r_off);
			put_le64(rec + 8, (uint64_t)c->posix.r[i].r_len);
			rec[16] = c->posix.r[i].r_byte;
			sha256_update(&s, rec, sizeof(rec));
		}
		put_le64(rec, (uint64_t)fs->inode.i_size);
		sha256_update(&s, rec, 8);
	}
	sha256_final(&s, d);
	sha256_hex(d, out);
}

/* "crash --keep 2,5": the step that replays this state (1-based writes). */
static void example_of(const struct cs_ctx *x, char *out, size_t cap)
{
	size_t used = (size_t)snprintf(out, cap, "crash --keep");
	bool any = false;

	for (uint32_t b = 0; b < x->nr_blocks && used < cap; b++) {
		const struct cs_alt *a = &x->blocks[b].alts[x->digit[b]];

		if (a->keep == 0)
			continue;
		used += (size_t)snprintf(out + used, cap - used, "%s%u", any ? "," : " ", a->keep);
		any = true;
	}
	if (!any && used < cap)
		snprintf(out + used, cap - used, " none");
}

static void record_state(struct cs_ctx *x, const struct cs_state *st)
{
	struct cs_point *p = x->out;

	for (uint32_t i = 0; i < p->nr_states; i++) {
		struct cs_state *o = &p->states[i];

		if (o->size == st->size && strcmp(o->sha256, st->sha256) == 0 &&
		    memcmp(o->violated, st->violated, sizeof(o->violated)) == 0) {
			o->raw_states += st->raw_states;
			return;
		}
	}
	if (p->nr_states == p->cap_states) {
		p->cap_states = p->cap_states ? 2 * p->cap_states : 16;
		p->states = sim_realloc_array(p->states, p->cap_states, sizeof(*p->states));
	}
	p->states[p->nr_states++] = *st;
}

/* Materialise, mount and judge the state x->digit. */
static void evaluate(struct cs_ctx *x, uint64_t weight)
{
	struct blkdev *child = blkdev_overlay(x->bd);
	struct cs_state st = { .raw_states = weight };
	struct sim_counters counters = { 0 };
	struct jbd2_recovery_info ri;
	struct chk_state cc;
	struct ext4_fs fs2;

	for (uint32_t b = 0; b < x->nr_blocks; b++) {
		const struct cs_alt *a = &x->blocks[b].alts[x->digit[b]];

		if (a->data)
			blkdev_write_durable(child, x->blocks[b].blk, a->data);
	}
	example_of(x, st.example, sizeof(st.example));
	SIM_ASSERT(ext4_fill_super(&fs2, child, &x->fs->opts, &x->fs->sem, &counters, &ri) == 0);
	chk_copy(&cc, x->chk);
	chk_after_recovery(&cc, &fs2, x->out->step, x->expected_meta,
			   chk_device_meta_hash(&fs2));
	for (uint32_t i = x->chk->nr_v; i < cc.nr_v; i++) {
		if (!st.first_msg[0])
			snprintf(st.first_msg, sizeof(st.first_msg), "%s", cc.v[i].msg);
		st.violated[cc.v[i].inv] = true;
	}
	st.size = fs2.inode.i_size;
	digest(&fs2, &cc, st.sha256);
	record_state(x, &st);
	chk_destroy(&cc);
	ext4_free_fs(&fs2);
	blkdev_destroy(child);
	x->out->evaluated++;
}

static uint64_t weight_of(const struct cs_ctx *x)
{
	uint64_t w = 1;

	for (uint32_t b = 0; b < x->nr_blocks; b++)
		w *= x->blocks[b].alts[x->digit[b]].weight;
	return w;
}

/* Next state in mixed radix; false after the last. */
static bool next_state(struct cs_ctx *x)
{
	for (uint32_t b = 0; b < x->nr_blocks; b++) {
		if (++x->digit[b] < x->blocks[b].nr_alts)
			return true;
		x->digit[b] = 0;
	}
	return false;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void cs_enumerate(const struct ext4_fs *fs, struct blkdev *bd, const struct chk_state *chk,
		  uint64_t expected_meta, uint32_t step, uint64_t bound, struct cs_point *out)
{
	struct cs_ctx x = { .fs = fs, .bd = bd, .chk = chk, .expected_meta = expected_meta,
			    .out = out };
	uint64_t seed = step;

	memset(out, 0, sizeof(*out));
	out->step = step;
	out->nr_pending = bd->bd_nr_bios;
	out->raw_states = 1;
	out->reduced_states = 1;
	build_blocks(&x);
	for (uint32_t b = 0; b < x.nr_blocks; b++) {
		uint32_t versions = 0;

		for (uint32_t a = 0; a < x.blocks[b].nr_alts; a++)
			versions += x.blocks[b].alts[a].weight;
		out->raw_states *= versions;
		out->reduced_states *= x.blocks[b].nr_alts;
	}
	x.digit = sim_zalloc((x.nr_blocks + 1) * sizeof(*x.digit));
	out->exhaustive = out->reduced_states <= (double)bound;
	if (out->exhaustive) {
		do
			evaluate(&x, weight_of(&x));
		while (next_state(&x));
	} else {
		for (uint64_t k = 0; k < bound; k++) {
			for (uint32_t b = 0; b < x.nr_blocks; b++)
				x.digit[b] = (uint32_t)(splitmix64(&seed) % x.blocks[b].nr_alts);
			evaluate(&x, weight_of(&x));
		}
	}
	for (uint32_t b = 0; b < x.nr_blocks; b++)
		free(x.blocks[b].alts);
	free(x.blocks);
	free(x.digit);
}

void cs_point_free(struct cs_point *p)
{
	free(p->states);
	memset(p, 0, sizeof(*p));
}
