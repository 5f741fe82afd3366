/*
 * crashstates.c - enumerating, recovering and judging crash states (see
 * crashstates.h).  This is the fault-injection side of the simulator: it
 * reads the model's device and file system, never changes them, and works
 * on overlays and checker copies.
 *
 * How a state is judged.  The pending blocks split in two: metadata and
 * journal blocks (every block ext4_is_data_block does not name: they decide
 * what recovery does) and the data blocks.  For each choice of the metadata blocks (an outcome) the
 * device is mounted once, with every data block at its durable contents;
 * then each version of each data block is judged on its own, by the file
 * block it holds under that outcome: the invariants its bytes violate (a bit
 * mask) and a 128-bit hash of its bytes.  A state's verdict is the union of
 * the outcome's fixed part and its chosen versions' masks, its content the
 * sum of the hashes: updating both when one version changes is what a state
 * costs.  This holds only while the mount read no file data (recovery wrote
 * no pending block, orphan cleanup cached no page); otherwise every state of
 * that outcome is mounted and judged whole, as the reference mode
 * (CS_REFERENCE) does for all.  A distinct state's SHA-256 and message come
 * from judging its first state whole, which also checks the fast verdict.
 */
#include "crashstates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "prng.h"
#include "scenario.h"
#include "sha256.h"
#include "txlost.h"
#include "namei.h"
#include "namespace.h"
#include "nsnap.h"

#define DIGEST_BYTES_MAX ((int64_t)256 << 20)   /* larger files: digest of the runs */
#define CHUNK 65536

/* One alternative content of a block: durable (version 0) or a pending write. */
struct cs_alt {
	const uint8_t *data;            /* NULL: the durable contents */
	uint32_t keep;                  /* 1-based pending write, 0 for durable */
	uint32_t weight;                /* raw choices folded into this one */
	uint32_t mask;                  /* under the current outcome: invariants violated */
	uint64_t h[2];                  /* under the current outcome: content hash */
};

struct cs_block {
	uint32_t blk;
	uint32_t nr_alts;
	struct cs_alt *alts;
	int64_t lblk;                   /* file block it holds under the outcome; -1: none */
};

/* One choice of the metadata blocks, mounted (see the header comment). */
struct cs_outcome {
	struct blkdev *child;
	struct ext4_fs fs;
	struct sim_counters counters;
	struct jbd2_recovery_info ri;
	bool whole;                     /* judge each state whole */
	int64_t *varying;               /* sorted file blocks held by varying data blocks */
	uint32_t nr_varying;
	uint32_t fixed_mask;
	uint64_t fixed_h[2];
	uint64_t sum_h[2];              /* fixed part + chosen versions */
	uint32_t cnt[INV_COUNT];        /* chosen versions violating each invariant */
	uint32_t cnt_mask;              /* the invariants whose cnt is not 0 */
};

struct cs_ctx {
	const struct ext4_fs *fs;
	struct blkdev *bd;
	const struct chk_state *chk;
	uint32_t committing;            /* its tid, 0: none */
	unsigned flags;
	struct cs_block *blocks;        /* sorted by block number */
	uint32_t nr_blocks;
	uint32_t nr_meta;               /* blocks[0, nr_meta): metadata and journal (meta_first) */
	uint32_t *digit;                /* the state being evaluated */
	uint32_t *write_block;          /* pending write (0-based) -> its block ... */
	uint32_t *write_alt;            /* ... and the alternative it is folded into */
	struct cs_outcome o;
	uint32_t nr_mounts;
	struct blkdev *base;            /* the shared log prefix replayed (NULL: none) */
	struct jbd2_recovery_base rb;
	uint32_t *slot;                 /* open-addressing index of out->states, 1-based */
	uint32_t nr_slots;
	struct cs_image_sink *sink;     /* each new distinct state's device, or NULL */
	struct cs_point *out;
};

static int cmp_bio(const void *a, const void *b)
{
	const struct bio_rec *const *x = a, *const *y = b;

	if ((*x)->b_blocknr != (*y)->b_blocknr)
		return (*x)->b_blocknr < (*y)->b_blocknr ? -1 : 1;
	return (*x)->b_seq < (*y)->b_seq ? -1 : (*x)->b_seq > (*y)->b_seq;
}

/*
 * Add pending write @b (1-based @keep) to @blk's alternatives, folding equal
 * bytes; returns the alternative it went to.
 */
static uint32_t add_version(struct cs_ctx *x, struct cs_block *cb, const struct bio_rec *b,
			    uint32_t keep, const uint8_t *durable)
{
	uint32_t bs = x->bd->bd_block_size;

	for (uint32_t a = 0; a < cb->nr_alts; a++) {
		const uint8_t *d = cb->alts[a].data ? cb->alts[a].data : durable;

		if (memcmp(d, b->b_data, bs) == 0) {
			cb->alts[a].weight++;
			return a;
		}
	}
	cb->alts[cb->nr_alts] = (struct cs_alt){ .data = b->b_data, .keep = keep, .weight = 1 };
	return cb->nr_alts++;
}

/*
 * Reorder @v (sorted by block) so that the writes to metadata and journal
 * blocks come first, each part still in block order: blocks[0, nr_meta) are
 * the ones a mount reads.
 */
static void meta_first(const struct ext4_fs *fs, const struct bio_rec **v, uint32_t n)
{
	const struct bio_rec **tmp = sim_zalloc((n + 1) * sizeof(*tmp));
	uint32_t k = 0;

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < n; i++)
			if (ext4_is_data_block(fs, v[i]->b_blocknr) == (pass == 1))
				tmp[k++] = v[i];
	memcpy(v, tmp, n * sizeof(*v));
	free(tmp);
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
	meta_first(x->fs, v, bd->bd_nr_bios);
	x->blocks = sim_zalloc((bd->bd_nr_bios + 1) * sizeof(*x->blocks));
	x->write_block = sim_zalloc((bd->bd_nr_bios + 1) * sizeof(*x->write_block));
	x->write_alt = sim_zalloc((bd->bd_nr_bios + 1) * sizeof(*x->write_alt));
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		struct cs_block *cb;

		if (i == 0 || v[i]->b_blocknr != v[i - 1]->b_blocknr) {
			cb = &x->blocks[x->nr_blocks++];
			cb->blk = v[i]->b_blocknr;
			cb->alts = sim_zalloc((bd->bd_nr_bios + 1) * sizeof(*cb->alts));
			cb->alts[0] = (struct cs_alt){ .weight = 1 };
			cb->nr_alts = 1;
			if (!ext4_is_data_block(x->fs, cb->blk))
				x->nr_meta++;
			blkdev_read_durable(bd, cb->blk, durable);
		} else {
			cb = &x->blocks[x->nr_blocks - 1];
		}
		uint32_t w = (uint32_t)(v[i] - bd->bd_bios);

		x->write_block[w] = (uint32_t)(cb - x->blocks);
		x->write_alt[w] = add_version(x, cb, v[i], w + 1, durable);
	}
	x->out->nr_blocks = x->nr_blocks;
	free(durable);
	free(v);
}

/* --- content identity ---------------------------------------------------- */

static uint64_t rotl64(uint64_t v, int r)
{
	return (v << r) | (v >> (64 - r));
}

/* The generator's output function, also the mixer of the content hashes. */
static uint64_t mix64(uint64_t z)
{
	return prng_mix64(z);
}

/*
 * A 128-bit hash of the @n in-file bytes of file block @lblk; zero for
 * bytes that are all zero, so holes, unwritten blocks and zeroed blocks
 * agree.  A state's content hash is the sum over its blocks (mod 2^64 per
 * half): equal files give equal sums, and a change of one block changes it
 * by that block's difference.  Only used to group states, never printed.
 */
static void block_hash(uint64_t lblk, const uint8_t *p, uint32_t n, uint64_t h[2])
{
	uint64_t a = mix64(lblk ^ 0x9e3779b97f4a7c15ull), b = mix64(lblk + 0x632be59bd9b4e019ull);
	uint64_t any = 0;

	for (uint32_t i = 0; i < n; i += 8) {
		uint64_t w = 0;

		memcpy(&w, p + i, SIM_MIN(8u, n - i));
		any |= w;
		a = rotl64(a ^ w, 29) * 0xff51afd7ed558ccdull;
		b = rotl64(b + w, 31) * 0xc4ceb9fe1a85ec53ull;
	}
	h[0] = any ? mix64(a ^ n) : 0;
	h[1] = any ? mix64(b ^ (a >> 7)) : 0;
}

static void hash_add(uint64_t s[2], const uint64_t h[2])
{
	s[0] += h[0];
	s[1] += h[1];
}

static void hash_sub(uint64_t s[2], const uint64_t h[2])
{
	s[0] -= h[0];
	s[1] -= h[1];
}

static int cmp_i64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Does file block @lblk vary between the states of the outcome? */
static bool varying_at(const struct cs_ctx *x, int64_t lblk)
{
	return x->o.nr_varying && bsearch(&lblk, x->o.varying, x->o.nr_varying,
					  sizeof(*x->o.varying), cmp_i64) != NULL;
}

static void hash_file_block(const struct ext4_fs *fs, int64_t lblk, uint8_t *buf, uint64_t h[2])
{
	uint32_t bits = ext4_blkbits(fs);
	int64_t off = lblk << bits;
	uint32_t n = (uint32_t)SIM_MIN((int64_t)fs->opts.block_size, fs->inode->i_size - off);

	ext4_peek(fs, off, n, buf);
	block_hash((uint64_t)lblk, buf, n, h);
}

/*
 * The content hash of the recovered file, leaving out the blocks that vary
 * between the states of the outcome (@x; NULL: leave out none).  Only
 * written extents and cached folios can hold non-zero bytes.
 */
static void file_hash(const struct ext4_fs *fs, const struct cs_ctx *x, uint64_t out[2])
{
	const struct ext4_es_tree *t = &fs->inode->i_es;
	const struct address_space *m = &fs->inode->i_mapping;
	uint32_t bits = ext4_blkbits(fs), per_page = PAGE_SIZE >> bits;
	int64_t nr = (fs->inode->i_size + fs->opts.block_size - 1) >> bits;
	uint8_t *buf = sim_realloc_array(NULL, 1, fs->opts.block_size);  /* each use fills it */
	uint64_t h[2];

	out[0] = out[1] = 0;
	for (uint32_t i = 0; i < t->es_nr; i++) {
		if (t->es[i].es_state != ES_WRITTEN)
			continue;
		for (int64_t l = t->es[i].es_lblk; l < SIM_MIN(nr, (int64_t)t->es[i].es_lblk +
							       t->es[i].es_len); l++) {
			if (x && varying_at(x, l))
				continue;
			hash_file_block(fs, l, buf, h);
			hash_add(out, h);
		}
	}
	for (uint32_t i = 0; i < m->a_nr; i++) {       /* cached blocks not written on disk */
		for (uint32_t k = 0; k < per_page; k++) {
			int64_t l = ((int64_t)m->a_folios[i]->index * per_page) + k;
			uint32_t pblk, len;

			if (l >= nr || es_lookup(t, (uint32_t)l, &pblk, &len) == ES_WRITTEN)
				continue;
			hash_file_block(fs, l, buf, h);
			hash_add(out, h);
		}
	}
	free(buf);
}

/* Runs of equal bytes as text: "0-4095: 0xaa, 4096-8191: 0x00" (the first few). */
struct runs_text {
	char *out;
	size_t cap, used;
	int64_t off, len;               /* the open run */
	uint8_t byte;
	uint32_t nr;                    /* runs closed */
};

static void runs_close(struct runs_text *r)
{
	if (!r->len)
		return;
	if (r->nr < CS_RUNS_SHOWN && r->used < r->cap)
		r->used += (size_t)snprintf(r->out + r->used, r->cap - r->used, "%s%lld-%lld: 0x%02x",
					    r->nr ? ", " : "", (long long)r->off,
					    (long long)(r->off + r->len - 1), r->byte);
	else if (r->nr == CS_RUNS_SHOWN && r->used < r->cap)
		r->used += (size_t)snprintf(r->out + r->used, r->cap - r->used, ", ...");
	r->nr++;
	r->off += r->len;
	r->len = 0;
}

static void runs_add(struct runs_text *r, const uint8_t *p, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		if (r->len && p[i] != r->byte)
			runs_close(r);
		r->byte = p[i];
		r->len++;
	}
}

/* The SHA-256 of the recovered file as a reader sees it, and its bytes as runs. */
static void digest(const struct ext4_fs *fs, const struct chk_state *c, char out[65],
		   char runs[CS_RUNS_TEXT])
{
	struct runs_text rt = { .out = runs, .cap = CS_RUNS_TEXT };
	struct sha256 s;
	uint8_t d[32];
	int64_t size = S_ISREG(fs->inode->i_mode) ? fs->inode->i_size : 0;

	sha256_init(&s);
	runs[0] = 0;
	if (size <= DIGEST_BYTES_MAX) {
		uint8_t *buf = sim_zalloc(CHUNK);

		for (int64_t p = 0; p < size; p += CHUNK) {
			int64_t n = SIM_MIN((int64_t)CHUNK, size - p);

			ext4_peek(fs, p, n, buf);
			sha256_update(&s, buf, (size_t)n);
			runs_add(&rt, buf, n);
		}
		runs_close(&rt);
		if (!size)
			snprintf(runs, CS_RUNS_TEXT, "empty");
		free(buf);
	} else {
		snprintf(runs, CS_RUNS_TEXT, "not listed (over %lld bytes)", (long long)DIGEST_BYTES_MAX);        /* too large to stream: the recovered runs, then the size */
		uint8_t rec[17];

		for (uint32_t i = 0; i < c->posix.nr; i++) {     /* fields, not padding */
			put_le64(rec, (uint64_t)c->posix.r[i].r_off);
			put_le64(rec + 8, (uint64_t)c->posix.r[i].r_len);
			rec[16] = c->posix.r[i].r_byte;
			sha256_update(&s, rec, sizeof(rec));
		}
		put_le64(rec, (uint64_t)size);
		sha256_update(&s, rec, 8);
	}
	sha256_final(&s, d);
	sha256_hex(d, out);
}

static int cmp_u32(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * "crash --keep 2,5-7": the step that replays this state (1-based writes,
 * consecutive ones as ranges).  A state that needs more ranges than a step
 * takes, or more text than an example holds, says so instead.
 */
static void example_of(const struct cs_ctx *x, char *out, size_t cap)
{
	uint32_t *k = sim_zalloc((x->nr_blocks + 1) * sizeof(*k)), n = 0, ranges = 0;
	size_t used = (size_t)snprintf(out, cap, "crash --keep");

	for (uint32_t b = 0; b < x->nr_blocks; b++)
		if (x->blocks[b].alts[x->digit[b]].keep)
			k[n++] = x->blocks[b].alts[x->digit[b]].keep;
	qsort(k, n, sizeof(*k), cmp_u32);
	for (uint32_t i = 0, j; i < n && used < cap; i = j, ranges++) {
		for (j = i + 1; j < n && k[j] == k[j - 1] + 1;)
			j++;
		used += (size_t)(j - 1 > i ? snprintf(out + used, cap - used, "%s%u-%u",
						      i ? "," : " ", k[i], k[j - 1])
				 : snprintf(out + used, cap - used, "%s%u", i ? "," : " ", k[i]));
	}
	if (n == 0)
		snprintf(out, cap, "crash --keep none");
	else if (used >= cap || ranges > SCN_PERSIST_MAX || k[n - 1] > SCN_PERSIST_INDEX_MAX)
		snprintf(out, cap, "(%u writes kept in %u ranges: more than one crash --keep "
			 "step names)", n, ranges);
	free(k);
}

/* --- distinct states: (size, content hash, violations) -> index ------------ */

static uint32_t key_slot(const struct cs_ctx *x, int64_t size, const uint64_t h[2], uint32_t mask)
{
	return (uint32_t)(mix64(h[0] ^ rotl64(h[1], 17) ^ (uint64_t)size * 0x9e3779b97f4a7c15ull ^
				mask) & (x->nr_slots - 1));
}

static bool same_key(const struct cs_state *st, int64_t size, const uint64_t h[2], uint32_t mask)
{
	return st->size == size && st->h[0] == h[0] && st->h[1] == h[1] && st->mask == mask;
}

/* The distinct state with this key, or NULL. */
static struct cs_state *find_state(const struct cs_ctx *x, int64_t size, const uint64_t h[2],
				   uint32_t mask)
{
	if (x->nr_slots == 0)
		return NULL;
	for (uint32_t i = key_slot(x, size, h, mask); x->slot[i]; i = (i + 1) & (x->nr_slots - 1)) {
		struct cs_state *st = &x->out->states[x->slot[i] - 1];

		if (same_key(st, size, h, mask))
			return st;
	}
	return NULL;
}

static void index_state(struct cs_ctx *x, uint32_t idx)
{
	const struct cs_state *st = &x->out->states[idx];
	uint32_t i = key_slot(x, st->size, st->h, st->mask);

	while (x->slot[i])
		i = (i + 1) & (x->nr_slots - 1);
	x->slot[i] = idx + 1;
}

/*
 * The device of the state x->digit as the power cut leaves it, to the sink:
 * the crash device's durable blocks with the chosen pending writes over them.
 */
static void image_state(struct cs_ctx *x, struct cs_state *st)
{
	struct blkdev *dev = blkdev_overlay(x->bd);

	for (uint32_t b = 0; b < x->nr_blocks; b++) {
		const struct cs_alt *a = &x->blocks[b].alts[x->digit[b]];

		if (a->data)
			blkdev_write_durable(dev, x->blocks[b].blk, a->data);
	}
	st->image = x->sink->cis_write(x->sink, x->out, dev);
	blkdev_destroy(dev);
}

/*
 * Append a distinct state (in order of first appearance) and index it; with
 * a sink, its device (x->digit: the state just evaluated) goes there.
 */
/* A kept namespace state's text, made from its snapshot (judge_namespace). */
static void ns_text(struct cs_state *st)
{
	size_t cap;

	if (!st->ns_snap || st->ns)
		return;
	cap = 64 + (size_t)st->ns_snap->ns_nr * (NSNAP_PATH_MAX + 96);
	st->ns = sim_zalloc(cap);
	nsnap_text(st->ns_snap, st->ns, cap);
}

static struct cs_state *add_state(struct cs_ctx *x, const struct cs_state *st)
{
	struct cs_point *p = x->out;

	if (p->nr_states == p->cap_states) {
		p->cap_states = p->cap_states ? 2 * p->cap_states : 16;
		p->states = sim_realloc_array(p->states, p->cap_states, sizeof(*p->states));
	}
	p->states[p->nr_states++] = *st;
	ns_text(&p->states[p->nr_states - 1]);
	if (2 * p->nr_states > x->nr_slots) {
		free(x->slot);
		x->nr_slots = x->nr_slots ? 2 * x->nr_slots : 64;
		x->slot = sim_zalloc(x->nr_slots * sizeof(*x->slot));
		for (uint32_t i = 0; i + 1 < p->nr_states; i++)
			index_state(x, i);
	}
	index_state(x, p->nr_states - 1);
	if (x->sink)
		image_state(x, &p->states[p->nr_states - 1]);
	return &p->states[p->nr_states - 1];
}

/* --- judging a state whole ------------------------------------------------ */

/*
 * 0 if the recovered @rec's metadata is what recovery must produce, given what
 * it replayed (@ri: the committing transaction too if its commit landed), else 1:
 * the replayed value to judge against an expected 0.
 */
static uint64_t meta_mismatch(const struct cs_ctx *x, const struct jbd2_recovery_info *ri,
			      const struct ext4_fs *rec)
{
	bool landed = x->committing && ri->start_transaction <= x->committing &&
		      ri->end_transaction > x->committing;

	return !chk_meta_as_expected(x->fs, landed, rec);
}

/* "invariant: message" per violation from @from on, one per line. */
static char *join_messages(const struct chk_state *c, uint32_t from)
{
	size_t cap = 1, used = 0;
	char *s;

	for (uint32_t i = from; i < c->nr_v; i++)
		cap += strlen(chk_inv_info(c->v[i].inv)->name) + strlen(c->v[i].msg) + 3;
	s = sim_zalloc(cap);
	for (uint32_t i = from; i < c->nr_v; i++)
		used += (size_t)snprintf(s + used, cap - used, "%s: %s\n",
					 chk_inv_info(c->v[i].inv)->name, c->v[i].msg);
	return s;
}

/* The transactions recovery found committed and replayed. */
static void note_replay(struct cs_state *st, const struct jbd2_recovery_info *ri)
{
	bool any = ri->end_transaction > ri->start_transaction;

	st->replay_first = any ? ri->start_transaction : 0;
	st->replay_end = any ? ri->end_transaction : 0;
}

/*
 * A violating state: what its recovered inode @rec kept of the size and the
 * extents and what was lost with the transactions that did not land
 * (txlost.h), for the crash step's words and crashstates.
 */
static void note_tx_changes(const struct cs_ctx *x, struct cs_state *st,
			    const struct ext4_fs *rec)
{
	char kept[CS_CHANGES_MAX], lost[CS_CHANGES_MAX];
	bool landed = x->committing && st->replay_first <= x->committing &&
		      st->replay_end > x->committing;

	if (!st->mask)
		return;
	cs_tx_changes(x->fs, rec, x->committing, landed, kept, lost, sizeof(kept));
	st->tx_kept = strdup(kept);
	st->tx_lost = lost[0] ? strdup(lost) : NULL;
	SIM_ASSERT(st->tx_kept && (!lost[0] || st->tx_lost));
}

/*
 * The replay of the log as the device holds it durably, once a point has a
 * second mount: every outcome that keeps no pending write to a block it read
 * or wrote shares it (jbd2.h, struct jbd2_recovery_base).  Not in reference
 * mode, which mounts each state as a real crash leaves it.
 */
static void build_base(struct cs_ctx *x)
{
	struct sim_counters c = { 0 };
	journal_t j;

	if (x->flags & CS_REFERENCE)
		return;
	x->base = blkdev_overlay(x->bd);
	SIM_ASSERT(jbd2_journal_init(&j, x->base, x->fs->journal.j_map, x->fs->journal.j_nr_map,
				     NULL, NULL, &c) == 0);
	if (jbd2_recovery_prefix(&j, &x->rb)) {
		x->out->recovery_blocks += x->rb.rb_info.nr_blocks;
	} else {
		blkdev_destroy(x->base);
		x->base = NULL;
	}
	jbd2_journal_destroy(&j);
}

/* Unmount @fs, a mount of the point: the semantics it read go to the point's. */
static void unmount(const struct cs_ctx *x, struct ext4_fs *fs)
{
	x->out->sem_read |= fs->s_sem_read;
	ext4_free_fs(fs);
}

/*
 * Mount the choice x->digit of blocks[0, @n) on a new overlay, returned: of
 * the replayed prefix when no chosen write touches a block it read or wrote
 * and no later revoke cancels its replay, else of the device itself.
 */
static struct blkdev *mount_choice(struct cs_ctx *x, uint32_t n, struct ext4_fs *fs,
				   struct sim_counters *c, struct jbd2_recovery_info *ri)
{
	const struct jbd2_recovery_base *rb = NULL;
	struct ext4_mount_opts ro = x->fs->opts;        /* judged, not used: read-only */
	struct blkdev *child;

	ro.ro = true;
	if (++x->nr_mounts == 2)
		build_base(x);
	if (x->base)
		rb = &x->rb;
	for (uint32_t b = 0; b < n && rb; b++)
		if (x->blocks[b].alts[x->digit[b]].data &&
		    jbd2_recovery_base_touches(&x->fs->journal, rb, x->blocks[b].blk))
			rb = NULL;
	for (;;) {
		child = blkdev_overlay(rb ? x->base : x->bd);
		for (uint32_t b = 0; b < n; b++) {
			const struct cs_alt *a = &x->blocks[b].alts[x->digit[b]];

			if (a->data)
				blkdev_write_durable(child, x->blocks[b].blk, a->data);
		}
		memset(c, 0, sizeof(*c));
		SIM_ASSERT(ext4_fill_super_base(fs, child, &ro, &x->fs->sem, c, ri,
						rb) == 0);
		x->out->recovery_blocks += ri->nr_blocks;
		if (!ri->base_refused)
			return child;
		unmount(x, fs);
		blkdev_destroy(child);
		rb = NULL;
	}
}

/* Did the outcome's recovery write block @blk (on its overlay or the base)? */
static bool outcome_wrote(const struct cs_ctx *x, uint32_t blk)
{
	return blkdev_overlay_has(x->o.child, blk) ||
	       (x->o.child->bd_parent == x->base && x->base && blkdev_overlay_has(x->base, blk));
}

/* A state's namespace text and snapshot, freed. */
static void cs_free_ns(struct cs_state *st)
{
	free(st->ns);
	if (st->ns_snap)
		nsnap_free(st->ns_snap);
	free(st->ns_snap);
	st->ns = NULL;
	st->ns_snap = NULL;
}

/*
 * The recovered namespace of @fs (read whole: every reachable inode comes
 * in core, so that the file checks after see every file's blocks), judged
 * against the run's reference into @cc; its key in st->ns_key, the snapshot
 * in st->ns_snap with @want_text (its text is made when the state is kept).  A namespace the walk cannot read is an
 * ns_op_order violation (no version of the reference is unreadable).
 */
static void judge_namespace(const struct cs_ctx *x, struct ext4_fs *fs, struct chk_state *cc,
			    struct cs_state *st, bool want_text)
{
	struct chk_violation v[INV_COUNT];
	struct nsnap s;
	int err = ext4_ns_read(fs, &s);
	uint32_t nv;

	if (err < 0) {
		chk_report(cc, INV_NS_OP_ORDER, x->out->step, "the recovered namespace cannot be "
			   "read (error %d): %s", err, fs->s_mount_error ? fs->s_mount_error : "");
		st->ns_key[0] = st->ns_key[1] = (uint64_t)-err;
		nsnap_free(&s);
		return;
	}
	nv = chk_ns_judge(x->chk->c_ns, &s, x->out->step, v, INV_COUNT);
	for (uint32_t i = 0; i < nv && i < INV_COUNT; i++)
		chk_report(cc, v[i].inv, v[i].step, "%s", v[i].msg);
	nsnap_key(&s, st->ns_key);
	if (want_text) {        /* its text when the state is kept (add_state) */
		st->ns_snap = sim_zalloc(sizeof(*st->ns_snap));
		*st->ns_snap = s;       /* kept whole: the JSON lists its entries */
		return;
	}
	nsnap_free(&s);
}

/*
 * Materialise the state x->digit on an overlay, mount it (recovery, orphan
 * cleanup) and judge it with a copy of the checker: size, content hash,
 * violations and the first message; the SHA-256 too with @want_digest; with
 * @want_detail every message and, violating, the kept and lost changes.
 */
static void judge_whole(const struct cs_ctx *x, struct cs_state *st, bool want_digest,
			bool want_detail)
{
	struct sim_counters counters;
	struct jbd2_recovery_info ri;
	struct chk_state cc;
	struct ext4_fs fs2;
	struct blkdev *child = mount_choice((struct cs_ctx *)x, x->nr_blocks, &fs2, &counters,
					    &ri);

	chk_copy(&cc, x->chk);
	if (x->chk->c_ns) {
		judge_namespace(x, &fs2, &cc, st, true);
		ext4_current_is_f(&fs2);        /* the state's size and bytes: /f's */
	}
	if (fs2.inode->i_ino == EXT4_FILE_INO)
		chk_judge_recovered_except(&cc, &fs2, x->out->step, 0,
					   meta_mismatch(x, &ri, &fs2), NULL, 0);
	st->mask = 0;
	st->first_msg[0] = 0;
	for (uint32_t i = x->chk->nr_v; i < cc.nr_v; i++) {
		if (!st->first_msg[0])
			snprintf(st->first_msg, sizeof(st->first_msg), "%s", cc.v[i].msg);
		st->mask |= 1u << cc.v[i].inv;
	}
	if (want_detail)
		st->detail = join_messages(&cc, x->chk->nr_v);
	for (int inv = 0; inv < INV_COUNT; inv++)
		st->violated[inv] = st->mask & (1u << inv);
	note_replay(st, &ri);
	if (want_detail)
		note_tx_changes(x, st, &fs2);
	st->size = S_ISREG(fs2.inode->i_mode) ? fs2.inode->i_size : 0;
	if (S_ISREG(fs2.inode->i_mode))
		file_hash(&fs2, NULL, st->h);
	else
		st->h[0] = st->h[1] = 0;
	st->h[0] ^= st->ns_key[0];
	st->h[1] ^= st->ns_key[1];
	if (want_digest)
		digest(&fs2, &cc, st->sha256, st->runs);
	chk_destroy(&cc);
	unmount(x, &fs2);
	blkdev_destroy(child);
}

static uint64_t weight_of(const struct cs_ctx *x)
{
	uint64_t w = 1;

	for (uint32_t b = 0; b < x->nr_blocks; b++)
		w *= x->blocks[b].alts[x->digit[b]].weight;
	return w;
}

/*
 * Reference mode, and outcomes whose mount read file data: judge the state
 * whole and group it.  In reference mode the grouping is also checked
 * against the SHA-256: equal digests, equal hashes.
 */
static void evaluate_whole(struct cs_ctx *x, uint64_t weight)
{
	bool reference = x->flags & CS_REFERENCE;
	struct cs_state st = { .raw_states = weight };
	struct cs_state *o;

	judge_whole(x, &st, reference || (x->flags & CS_DIGEST), false);
	o = find_state(x, st.size, st.h, st.mask);
	if (o) {
		SIM_ASSERT(!reference || strcmp(o->sha256, st.sha256) == 0);
		o->raw_states += weight;
		cs_free_ns(&st);
		return;
	}
	if (st.mask) {          /* a new violating state: its changes, from the mount again */
		struct cs_state w = { 0 };

		judge_whole(x, &w, false, true);
		st.tx_kept = w.tx_kept;
		st.tx_lost = w.tx_lost;
		free(w.detail);
		cs_free_ns(&w);
	}
	for (uint32_t i = 0; reference && i < x->out->nr_states; i++)   /* the digest is /f's */
		SIM_ASSERT(x->out->states[i].size != st.size || x->out->states[i].mask != st.mask ||
			   strcmp(x->out->states[i].sha256, st.sha256) != 0 ||
			   x->out->states[i].ns_key[0] != st.ns_key[0] ||
			   x->out->states[i].ns_key[1] != st.ns_key[1]);
	example_of(x, st.example, sizeof(st.example));
	add_state(x, &st);
}

/* --- judging by parts under one metadata outcome -------------------------- */

/* Which file block each pending data block holds under the mounted outcome. */
static void map_data_blocks(struct cs_ctx *x)
{
	const struct ext4_fs *fs = &x->o.fs;
	const struct ext4_es_tree *t = &fs->inode->i_es;
	int64_t nr = (fs->inode->i_size + fs->opts.block_size - 1) >> ext4_blkbits(fs);

	x->o.varying = sim_zalloc((x->nr_blocks + 1) * sizeof(*x->o.varying));
	x->o.nr_varying = 0;
	for (uint32_t b = x->nr_meta; b < x->nr_blocks; b++) {
		struct cs_block *cb = &x->blocks[b];

		cb->lblk = -1;
		if (cb->nr_alts < 2 || outcome_wrote(x, cb->blk))
			continue;       /* one version, or recovery wrote the block */
		for (uint32_t i = 0; i < t->es_nr && cb->lblk < 0; i++) {
			const struct extent_status *e = &t->es[i];
			int64_t l = (int64_t)e->es_lblk + ((int64_t)cb->blk - e->es_pblk);

			if (e->es_state == ES_WRITTEN && cb->blk >= e->es_pblk &&
			    cb->blk < (uint64_t)e->es_pblk + e->es_len && l < nr)
				cb->lblk = l;
		}
		if (cb->lblk >= 0)
			x->o.varying[x->o.nr_varying++] = cb->lblk;
	}
	qsort(x->o.varying, x->o.nr_varying, sizeof(*x->o.varying), cmp_i64);
}

/* The outcome's fixed part: every check but the varying blocks' bytes. */
static void judge_fixed(struct cs_ctx *x)
{
	const struct ext4_fs *fs = &x->o.fs;
	uint32_t bits = ext4_blkbits(fs), n = x->o.nr_varying;
	int64_t (*skip)[2] = sim_zalloc((n + 1) * sizeof(*skip));
	struct chk_state cc;

	for (uint32_t i = 0; i < n; i++) {
		skip[i][0] = x->o.varying[i] << bits;
		skip[i][1] = SIM_MIN((x->o.varying[i] + 1) << bits, fs->inode->i_size);
	}
	chk_copy(&cc, x->chk);
	chk_judge_recovered_except(&cc, fs, x->out->step, 0, meta_mismatch(x, &x->o.ri, fs),
				   (const int64_t (*)[2])skip, n);
	x->o.fixed_mask = 0;
	for (uint32_t i = x->chk->nr_v; i < cc.nr_v; i++)
		x->o.fixed_mask |= 1u << cc.v[i].inv;
	chk_destroy(&cc);
	free(skip);
	file_hash(fs, x, x->o.fixed_h);
}

/* Each version of each varying block: its mask and hash in its file block. */
static void judge_versions(struct cs_ctx *x)
{
	struct ext4_fs *fs = &x->o.fs;
	uint32_t bits = ext4_blkbits(fs);
	uint8_t *buf = sim_zalloc(fs->opts.block_size), *durable = sim_zalloc(fs->opts.block_size);

	for (uint32_t b = x->nr_meta; b < x->nr_blocks; b++) {
		struct cs_block *cb = &x->blocks[b];
		int64_t lo, hi;

		for (uint32_t a = 0; a < cb->nr_alts; a++) {
			cb->alts[a].mask = 0;
			cb->alts[a].h[0] = cb->alts[a].h[1] = 0;
		}
		if (cb->lblk < 0)
			continue;
		lo = cb->lblk << bits;
		hi = SIM_MIN(lo + fs->opts.block_size, fs->inode->i_size);
		blkdev_read_durable(x->bd, cb->blk, durable);
		for (uint32_t a = 0; a < cb->nr_alts; a++) {
			blkdev_write_durable(x->o.child, cb->blk,
					     cb->alts[a].data ? cb->alts[a].data : durable);
			cb->alts[a].mask = chk_recovered_range_mask(x->chk, fs, lo, hi);
			hash_file_block(fs, cb->lblk, buf, cb->alts[a].h);
		}
		blkdev_write_durable(x->o.child, cb->blk, durable);
	}
	free(buf);
	free(durable);
}

/* Make the data block @b's choice @a the current one. */
static void choose(struct cs_ctx *x, uint32_t b, uint32_t a)
{
	const struct cs_alt *old = &x->blocks[b].alts[x->digit[b]], *new = &x->blocks[b].alts[a];

	hash_sub(x->o.sum_h, old->h);
	hash_add(x->o.sum_h, new->h);
	for (uint32_t m = old->mask | new->mask; m; m &= m - 1) {      /* the bits set only */
		int inv = __builtin_ctz(m);

		x->o.cnt[inv] -= (old->mask >> inv) & 1;
		x->o.cnt[inv] += (new->mask >> inv) & 1;
		x->o.cnt_mask = x->o.cnt[inv] ? x->o.cnt_mask | 1u << inv
					      : x->o.cnt_mask & ~(1u << inv);
	}
	x->digit[b] = a;
}

/*
 * Mount the outcome x->digit[0, nr_meta) with the data blocks durable and
 * prepare its parts; the data digits are all 0 afterwards.
 */
static void prepare_outcome(struct cs_ctx *x)
{
	for (uint32_t b = x->nr_meta; b < x->nr_blocks; b++)
		x->digit[b] = 0;
	x->o.child = mount_choice(x, x->nr_meta, &x->o.fs, &x->o.counters, &x->o.ri);
	x->o.whole = (x->flags & CS_REFERENCE) || x->o.fs.inode->i_mapping.a_nr > 0 ||
		     x->chk->c_ns != NULL;      /* the namespace is judged whole */
	if (x->o.whole)
		return;
	map_data_blocks(x);
	judge_fixed(x);
	judge_versions(x);
	memcpy(x->o.sum_h, x->o.fixed_h, sizeof(x->o.sum_h));
	memset(x->o.cnt, 0, sizeof(x->o.cnt));
	x->o.cnt_mask = 0;
	for (uint32_t b = x->nr_meta; b < x->nr_blocks; b++) {
		hash_add(x->o.sum_h, x->blocks[b].alts[0].h);
		for (int inv = 0; inv < INV_COUNT; inv++)
			x->o.cnt[inv] += (x->blocks[b].alts[0].mask >> inv) & 1;
		x->o.cnt_mask |= x->blocks[b].alts[0].mask;
	}
}

static void release_outcome(struct cs_ctx *x)
{
	unmount(x, &x->o.fs);
	blkdev_destroy(x->o.child);
	free(x->o.varying);
	memset(&x->o, 0, sizeof(x->o));
}

/*
 * The state x->digit under the prepared outcome: its key from the parts;
 * a new distinct state is judged whole once (for its digest and message)
 * and must agree with the parts.
 */
static void evaluate(struct cs_ctx *x)
{
	uint64_t weight = weight_of(x);
	uint32_t mask = x->o.fixed_mask;
	struct cs_state st = { .raw_states = weight }, *o;

	x->out->evaluated++;
	if (x->o.whole) {
		evaluate_whole(x, weight);
		return;
	}
	mask |= x->o.cnt_mask;
	o = find_state(x, x->o.fs.inode->i_size, x->o.sum_h, mask);
	if (o) {
		o->raw_states += weight;
		return;
	}
	st.size = x->o.fs.inode->i_size;
	st.h[0] = x->o.sum_h[0];
	st.h[1] = x->o.sum_h[1];
	st.mask = mask;
	for (uint32_t m = mask; m; m &= m - 1)
		st.violated[__builtin_ctz(m)] = true;
	note_replay(&st, &x->o.ri);
	note_tx_changes(x, &st, &x->o.fs);
	if (mask || (x->flags & CS_DIGEST)) {
		struct cs_state w = { 0 };

		judge_whole(x, &w, x->flags & CS_DIGEST, false);
		SIM_ASSERT(w.size == st.size && w.mask == st.mask);
		SIM_ASSERT(w.h[0] == st.h[0] && w.h[1] == st.h[1]);
		SIM_ASSERT(w.replay_first == st.replay_first && w.replay_end == st.replay_end);
		memcpy(st.sha256, w.sha256, sizeof(st.sha256));
		memcpy(st.runs, w.runs, sizeof(st.runs));
		memcpy(st.first_msg, w.first_msg, sizeof(st.first_msg));
	}
	example_of(x, st.example, sizeof(st.example));
	add_state(x, &st);
}

/* --- enumeration ------------------------------------------------------------ */

/* Next choice of the data digits (incrementally); false after the last. */
static bool next_data(struct cs_ctx *x)
{
	for (uint32_t b = x->nr_meta; b < x->nr_blocks; b++) {
		if (x->digit[b] + 1 < x->blocks[b].nr_alts) {
			choose(x, b, x->digit[b] + 1);
			return true;
		}
		choose(x, b, 0);
	}
	return false;
}

/* Next outcome of the metadata digits; false after the last. */
static bool next_meta(struct cs_ctx *x)
{
	for (uint32_t b = 0; b < x->nr_meta; b++) {
		if (++x->digit[b] < x->blocks[b].nr_alts)
			return true;
		x->digit[b] = 0;
	}
	return false;
}

static void enumerate_all(struct cs_ctx *x)
{
	do {
		prepare_outcome(x);
		do
			evaluate(x);
		while (next_data(x));
		release_outcome(x);
	} while (next_meta(x));
}

struct cs_sample {
	uint64_t seed;                  /* generator state before this sample */
	uint64_t outcome;               /* rank of its metadata digits */
	uint64_t index;
};

/* Draw the digits of the sample starting at generator state @seed. */
static void draw(struct cs_ctx *x, uint64_t seed, bool data_too)
{
	struct prng g;

	prng_seed(&g, seed);
	for (uint32_t b = 0; b < x->nr_blocks; b++) {
		uint32_t d = (uint32_t)prng_mod(&g, x->blocks[b].nr_alts);

		if (b < x->nr_meta)
			x->digit[b] = d;
		else if (data_too)
			choose(x, b, d);
	}
}

static int cmp_sample(const void *a, const void *b)
{
	const struct cs_sample *p = a, *q = b;

	if (p->outcome != q->outcome)
		return p->outcome < q->outcome ? -1 : 1;
	return p->index < q->index ? -1 : p->index > q->index;
}

/*
 * The mixed-radix rank of the metadata digits, to evaluate the samples
 * outcome by outcome; where the outcomes outnumber 2^63, the sample's own
 * index (each sample mounts its own outcome).
 */
static uint64_t outcome_rank(struct cs_ctx *x, uint64_t seed, uint64_t index)
{
	uint64_t rank = 0, radix = 1;

	draw(x, seed, false);
	for (uint32_t b = 0; b < x->nr_meta; b++) {
		uint32_t n = x->blocks[b].nr_alts;

		if (radix > (UINT64_MAX >> 1) / n)
			return index | (1ull << 63);
		rank += x->digit[b] * radix;
		radix *= n;
	}
	return rank;
}

/*
 * Past the bound: @bound states drawn with a generator seeded by the crash
 * step, evaluated grouped by outcome so each outcome is mounted once.
 */
static void enumerate_sample(struct cs_ctx *x, uint64_t bound)
{
	struct cs_sample *s = sim_realloc_array(NULL, bound, sizeof(*s));
	struct prng g;

	prng_seed(&g, x->out->step);
	for (uint64_t k = 0; k < bound; k++) {
		s[k].seed = g.state;
		s[k].index = k;
		s[k].outcome = outcome_rank(x, g.state, k);
		for (uint32_t b = 0; b < x->nr_blocks; b++)
			prng_next(&g);
	}
	qsort(s, bound, sizeof(*s), cmp_sample);
	for (uint64_t k = 0; k < bound; k++) {
		if (k == 0 || s[k].outcome != s[k - 1].outcome) {
			if (k > 0)
				release_outcome(x);
			draw(x, s[k].seed, false);
			prepare_outcome(x);
		}
		draw(x, s[k].seed, true);
		evaluate(x);
	}
	release_outcome(x);
	free(s);
}

/*
 * The commit that may or may not land (with its logged copies; without them
 * recovery must produce the same metadata either way: meta_mismatch).
 */
static void init_expect(struct cs_ctx *x)
{
	const transaction_t *t = x->fs->journal.j_committing_transaction;

	x->committing = t && x->fs->journal.j_commit_copies ? t->t_tid : 0;
	x->out->in_commit = t ? t->t_tid : 0;
}

static void free_ctx(struct cs_ctx *x)
{
	for (uint32_t b = 0; b < x->nr_blocks; b++)
		free(x->blocks[b].alts);
	free(x->blocks);
	free(x->write_block);
	free(x->write_alt);
	free(x->digit);
	free(x->slot);
	blkdev_destroy(x->base);
	jbd2_recovery_base_free(&x->rb);
}

void cs_enumerate(const struct ext4_fs *fs, struct blkdev *bd, const struct chk_state *chk,
		  uint32_t step, uint64_t bound, unsigned flags, struct cs_point *out)
{
	cs_enumerate_to(fs, bd, chk, step, bound, flags, NULL, out);
}

void cs_enumerate_to(const struct ext4_fs *fs, struct blkdev *bd, const struct chk_state *chk,
		     uint32_t step, uint64_t bound, unsigned flags, struct cs_image_sink *sink,
		     struct cs_point *out)
{
	struct cs_ctx x = { .fs = fs, .bd = bd, .chk = chk, .flags = flags, .sink = sink,
			    .out = out };

	SIM_ASSERT(bound > 0);
	memset(out, 0, sizeof(*out));
	out->step = step;
	out->nr_pending = bd->bd_nr_bios;
	out->raw_states = 1;
	out->reduced_states = 1;
	if (flags & CS_WRITES)
		cs_keep_writes(out, bd);
	init_expect(&x);
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
	if (out->exhaustive)
		enumerate_all(&x);
	else
		enumerate_sample(&x, bound);
	free_ctx(&x);
}

void cs_evaluate_kept(const struct ext4_fs *fs, struct blkdev *bd, const struct chk_state *chk,
		      uint32_t step, const uint16_t (*keep)[2], uint32_t nr_keep,
		      struct cs_point *out)
{
	cs_evaluate_kept_to(fs, bd, chk, step, keep, nr_keep, NULL, out);
}

void cs_evaluate_kept_to(const struct ext4_fs *fs, struct blkdev *bd,
			 const struct chk_state *chk, uint32_t step, const uint16_t (*keep)[2],
			 uint32_t nr_keep, struct cs_image_sink *sink, struct cs_point *out)
{
	struct cs_ctx x = { .fs = fs, .bd = bd, .chk = chk, .sink = sink, .out = out };
	struct cs_state st = { .raw_states = 1 };
	uint32_t *latest;

	memset(out, 0, sizeof(*out));
	out->step = step;
	out->nr_pending = bd->bd_nr_bios;
	out->raw_states = out->reduced_states = 1;
	cs_keep_writes(out, bd);
	init_expect(&x);
	build_blocks(&x);
	x.digit = sim_zalloc((x.nr_blocks + 1) * sizeof(*x.digit));
	latest = sim_zalloc((x.nr_blocks + 1) * sizeof(*latest));
	for (uint32_t k = 0; k < nr_keep && !out->bad_keep; k++) {
		for (uint32_t w = keep[k][0]; w <= keep[k][1] && !out->bad_keep; w++) {
			uint32_t b;

			out->bad_keep = w > bd->bd_nr_bios;
			if (out->bad_keep)
				break;
			b = x.write_block[w - 1];
			if (w > latest[b]) {
				latest[b] = w;
				x.digit[b] = x.write_alt[w - 1];
			}
		}
	}
	if (!out->bad_keep) {
		judge_whole(&x, &st, true, true);
		example_of(&x, st.example, sizeof(st.example));
		add_state(&x, &st);
		out->evaluated = 1;
		out->exhaustive = true;
	}
	free(latest);
	free_ctx(&x);
}

static const char *const bio_kind_name[] = {
	[BIO_DATA] = "data", [BIO_JOURNAL] = "journal", [BIO_COMMIT] = "commit block",
	[BIO_JSB] = "journal superblock", [BIO_META] = "metadata",
};

/* "replayed tids 2-3", "replayed no transaction"; and whether tid @t landed. */
static size_t describe_replay(const struct cs_point *p, const struct cs_state *st, char *out,
			      size_t cap)
{
	int n;

	if (st->replay_end > st->replay_first + 1)
		n = snprintf(out, cap, "replayed tids %u-%u", st->replay_first, st->replay_end - 1);
	else if (st->replay_end)
		n = snprintf(out, cap, "replayed tid %u", st->replay_first);
	else
		n = snprintf(out, cap, "replayed no transaction");
	if (p->in_commit && (size_t)n < cap)
		n += snprintf(out + n, cap - (size_t)n, "; the commit of tid %u %s", p->in_commit,
			      st->replay_end > p->in_commit && st->replay_first <= p->in_commit ?
			      "landed" : "did not land");
	return (size_t)n < cap ? (size_t)n : cap;
}

void cs_describe_state(const struct cs_point *p, const struct cs_state *st, char *out,
		       size_t cap)
{
	size_t n;

	if (!p->within) {
		n = (size_t)snprintf(out, cap, "%s %u: %s; ", p->hypothetical ? "insert after step" :
				     "replay one as step", p->step, st->example);
	} else {
		const char *keep = strncmp(st->example, "crash ", 6) == 0 ? st->example + 6 :
				   st->example;

		n = (size_t)snprintf(out, cap, "inside step %u, before %s%s; see it with crashstates "
				     "--crash-everywhere --point %u %s; ", p->step,
				     p->within == BD_BEFORE_FLUSH ? "a cache flush" : "the FUA write of a ",
				     p->within == BD_BEFORE_FLUSH ? "" : bio_kind_name[p->fua_kind],
				     p->point_no, keep);
	}
	if (n < cap)
		describe_replay(p, st, out + n, cap - n);
}

void cs_point_moment(const struct cs_point *p, char *out, size_t cap)
{
	int n;

	if (!p->within)
		n = snprintf(out, cap, "%s", p->hypothetical ? "after it" : "the crash");
	else if (p->within == BD_BEFORE_FLUSH)
		n = snprintf(out, cap, "before a cache flush");
	else
		n = snprintf(out, cap, "before the FUA write of a %s", bio_kind_name[p->fua_kind]);
	if (p->in_commit && n >= 0 && (size_t)n < cap)
		snprintf(out + n, cap - (size_t)n, ", committing tid %u", p->in_commit);
}

void cs_point_free(struct cs_point *p)
{
	for (uint32_t i = 0; i < p->nr_states; i++) {
		free(p->states[i].detail);
		free(p->states[i].tx_kept);
		free(p->states[i].tx_lost);
		free(p->states[i].image);
		cs_free_ns(&p->states[i]);
	}
	free(p->states);
	free(p->writes);
	free(p->owners);
	memset(p, 0, sizeof(*p));
}
