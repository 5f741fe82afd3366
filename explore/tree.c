/*
 * tree.c - the bounded-exhaustive space as a tree (tree.h): a depth-first
 * walk that runs each prefix once and forks the world for each next step.
 *
 * Node = a prefix of d steps, with the world (one per side with --diff)
 * after it and the invariants its steps violated.  Child g runs step g at
 * position d in a fork of the node's world (the last child takes the
 * node's world itself), judging a crash after it and inside it once: the
 * child's sequence violates what the prefix did plus what the step did,
 * exactly the verdict of a run from mkfs (a run's verdict is the union of
 * its steps' violations; a step's depend only on the world before it).
 * Findings are kept by sequence number and sorted, so the caller handles
 * them in the order the sequence-by-sequence walk meets them.
 *
 * Shards: the space splits at depth D (tree_split_depth): the sequence
 * idx[0..L-1] belongs to shard (sum of idx[i] nr_g^i, i < min(L, D)) mod N,
 * so every sequence under a D-step prefix has that prefix's shard.
 */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

#include "memo.h"
#include "outfile.h"

#define TREE_DEPTH_MAX 8

/*
 * Which sequences a walk runs and counts (tree.h): all of them (a grammar
 * without namespace steps), those without a namespace step (their
 * subtrees not entered), or those with one (the others run as prefixes).
 */
enum walk_mode { WALK_ALL, WALK_FILE, WALK_NS };

struct walk {
	enum walk_mode mode;
	const struct tree_space *sp;
	struct tree_result *res;
	unsigned idx[TREE_DEPTH_MAX];
	uint64_t pow[TREE_DEPTH_MAX + 1];       /* nr_g^i */
	unsigned split;
	uint64_t dfs;                   /* sequences met so far, in walk order */
	struct memo *memo;              /* NULL: no state sharing */
};

unsigned tree_split_depth(const struct tree_space *sp)
{
	uint64_t p = sp->nr_g;
	unsigned d = 1;

	while (d < sp->steps && p < 4ull * sp->nr_shards) {
		p *= sp->nr_g;
		d++;
	}
	return d;
}

/* The shard of the sequence @idx[0..len-1]. */
static unsigned owner(const struct tree_space *sp, unsigned split, const unsigned *idx,
		      unsigned len)
{
	uint64_t n = 0, p = 1;

	for (unsigned i = 0; i < len && i < split; i++, p *= sp->nr_g)
		n += idx[i] * p;
	return (unsigned)(n % sp->nr_shards);
}

bool tree_owns(const struct tree_space *sp, const unsigned *idx, unsigned len)
{
	return owner(sp, tree_split_depth(sp), idx, len) == sp->shard;
}

/* Of the x in [0, count), how many have (base + x * step) mod N == shard. */
static uint64_t count_owned(const struct tree_space *sp, uint64_t base, uint64_t step,
			    uint64_t count)
{
	uint64_t n = 0;

	if (step % sp->nr_shards == 0)
		return (base % sp->nr_shards == sp->shard) ? count : 0;
	for (uint64_t x = 0; x < count; x++)
		n += (base + x * step) % sp->nr_shards == sp->shard;
	return n;
}

uint64_t tree_owned_total(const struct tree_space *sp)
{
	unsigned split = tree_split_depth(sp);
	uint64_t total = 0, p = 1, psplit = 1, at_split = 0;

	for (unsigned len = 1; len <= sp->steps; len++) {
		p *= sp->nr_g;
		if (len <= split) {
			at_split = count_owned(sp, 0, 1, p);
			psplit = p;
		}
		total += at_split * (p / psplit);
	}
	return total;
}

/* Sequences of lengths d+1..K under the prefix idx[0..d] that this shard owns. */
static uint64_t owned_under(const struct walk *t, unsigned d)
{
	const struct tree_space *sp = t->sp;
	uint64_t base = 0, total = 0, at = 0;

	if (d + 1 >= t->split) {
		if (owner(sp, t->split, t->idx, d + 1) != sp->shard)
			return 0;
		for (unsigned len = d + 1; len <= sp->steps; len++)
			total += t->pow[len - d - 1];
		return total;
	}
	for (unsigned i = 0; i <= d; i++)
		base += t->idx[i] * t->pow[i];
	for (unsigned len = d + 1; len <= sp->steps; len++) {
		if (len <= t->split)
			at = count_owned(sp, base, t->pow[d + 1], t->pow[len - d - 1]);
		total += len <= t->split ? at : at * t->pow[len - t->split];
	}
	return total;
}

/* Does any sequence under the prefix idx[0..d] belong to this shard? */
static bool any_owned_under(const struct walk *t, unsigned d)
{
	return d + 1 < t->split || owner(t->sp, t->split, t->idx, d + 1) == t->sp->shard;
}

/* The number of the sequence idx[0..len-1] (the sequence-by-sequence walk's order). */
static uint64_t seq_number(const struct walk *t, unsigned len)
{
	uint64_t n = 0;

	for (unsigned l = 1; l < len; l++)
		n += t->pow[l];
	for (unsigned i = 0; i < len; i++)
		n += t->idx[i] * t->pow[i];
	return n;
}

/*
 * Child g of a node at depth d: pruned (a persistence step repeated; the
 * namespace walk counts them, the one-file walk meets each of its pruned
 * prefixes too), skipped (not ours), or a namespace step in the one-file walk.
 */
static bool child_skipped(struct walk *t, unsigned d, unsigned g, bool count)
{
	t->idx[d] = g;
	if (t->mode == WALK_FILE && t->sp->ns[g])
		return true;
	if (d > 0 && g == t->idx[d - 1] && t->sp->persist[g]) {
		if (count && t->mode != WALK_FILE)
			t->res->pruned += owned_under(t, d);
		return true;
	}
	return !any_owned_under(t, d);
}

/* Does the sequence idx[0..len-1] hold a namespace step? */
static bool has_ns(const struct walk *t, unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		if (t->sp->ns[t->idx[i]])
			return true;
	return false;
}

/*
 * Record the sequence idx[0..len-1]: run, and a hit when its masks make a
 * finding (the namespace walk: only a sequence with a namespace step).
 */
static void record(struct walk *t, unsigned len, const uint32_t *mask)
{
	struct tree_result *r = t->res;
	bool hit = t->sp->sides == 1 ? mask[0] != 0 : mask[0] != mask[1];

	t->dfs++;
	if (owner(t->sp, t->split, t->idx, len) != t->sp->shard ||
	    (t->mode == WALK_NS && !has_ns(t, len)))
		return;
	r->run++;
	if (!hit)
		return;
	if (r->nr_hits == r->cap_hits) {
		r->cap_hits = r->cap_hits ? 2 * r->cap_hits : 1024;
		r->hits = sim_realloc_array(r->hits, r->cap_hits, sizeof(*r->hits));
	}
	r->hits[r->nr_hits++] = (struct tree_hit){ .n = seq_number(t, len),
						   .mask = { mask[0], mask[1] } };
}

static void visit(struct walk *t, struct sim_stream **w, unsigned d, const uint32_t *pm);
static void visit_children(struct walk *t, struct sim_stream **w, unsigned d, const uint32_t *pm,
			   int *lastp);

/* Steps left after depth @d. */
static unsigned sp_left(const struct walk *t, unsigned d)
{
	return t->sp->steps - d;
}

/* Child idx[d]'s step violated @m (a step's own masks, for the memo's marks). */
static void mark(struct walk *t, unsigned d, const uint32_t *m)
{
	if (t->memo && (m[0] | m[1]) && memo_recording(t->memo, d))
		memo_mark(t->memo, t->dfs, m);
}

/*
 * A node whose state was met before at the same depth: its subtree's
 * sequences, walked without running them, each with the masks the memo
 * kept for its step (memo.h) on top of the prefix's @pm.
 */
static void replay(struct walk *t, const struct memo_entry *me, uint64_t start, unsigned d,
		   const uint32_t *pm, uint32_t *next)
{
	const struct tree_space *sp = t->sp;

	for (unsigned g = 0; g < sp->nr_g; g++) {
		uint32_t m[2] = { 0, 0 }, cm[2];

		if (child_skipped(t, d, g, true))
			continue;
		memo_step_masks(t->memo, me, next, t->dfs - start, m);
		mark(t, d, m);
		cm[0] = pm[0] | m[0];
		cm[1] = pm[1] | m[1];
		record(t, d + 1, cm);
		if (d + 1 < sp->steps)
			replay(t, me, start, d + 1, cm, next);
	}
}

/* Is the node at depth @d (worlds @w) one met before?  Then replay it: true. */
static bool shared_state(struct walk *t, struct sim_stream **w, unsigned d, const uint32_t *pm,
			 struct memo_key *k)
{
	const struct memo_entry *me;
	uint32_t next = 0;
	uint64_t start = t->dfs;

	if (!t->memo || d == 0 || d < t->split || !memo_depth(t->memo, sp_left(t, d)))
		return false;
	memset(k, 0, sizeof(*k));
	for (unsigned s = 0; s < t->sp->sides; s++)
		sim_stream_key(w[s], k->k[s]);
	k->depth = d;
	k->last = t->sp->persist[t->idx[d - 1]] ? t->idx[d - 1] + 1 : 0;
	k->valid = true;
	if (!(me = memo_find(t->memo, k)))
		return false;
	replay(t, me, start, d, pm, &next);
	t->res->reused++;
	t->res->reused_seqs += t->dfs - start;
	return true;
}

/*
 * Node at depth @d with worlds @w (owned: freed or handed to the last
 * child) after a prefix that violated @pm: run every child.
 */
static void visit(struct walk *t, struct sim_stream **w, unsigned d, const uint32_t *pm)
{
	const struct tree_space *sp = t->sp;
	struct memo_key k = { .valid = false };
	uint64_t start = t->dfs;
	int last = -1;

	if (shared_state(t, w, d, pm, &k)) {
		for (unsigned s = 0; s < sp->sides; s++)
			sim_stream_free(w[s]);
		return;
	}
	if (k.valid)
		memo_begin(t->memo, d);
	visit_children(t, w, d, pm, &last);
	for (unsigned s = 0; last < 0 && s < sp->sides; s++)
		sim_stream_free(w[s]);
	if (k.valid && !t->res->interrupted)   /* a cut subtree is not kept */
		memo_end(t->memo, &k, start, d);
}

/* The children of a node (visit); *last gets the last one run, -1 if none. */
static void visit_children(struct walk *t, struct sim_stream **w, unsigned d, const uint32_t *pm,
			   int *lastp)
{
	const struct tree_space *sp = t->sp;
	int last = -1;

	for (unsigned g = 0; g < sp->nr_g; g++)
		if (!child_skipped(t, d, g, false))
			last = (int)g;
	for (unsigned g = 0; g < sp->nr_g; g++) {
		struct sim_stream *c[2] = { NULL, NULL };
		uint32_t m[2] = { 0, 0 };

		if (child_skipped(t, d, g, true))
			continue;
		if (outfile_signal) {   /* stopped by a signal: no more of the walk runs */
			t->res->interrupted = true;
			last = -1;      /* visit() frees this node's worlds */
			break;
		}
		for (unsigned s = 0; s < sp->sides; s++) {
			c[s] = (int)g == last ? w[s] : sim_stream_fork(w[s]);
			t->res->forks += (int)g != last;
			m[s] = sim_stream_step(c[s], &sp->st[d * sp->nr_g + g], true);
		}
		mark(t, d, m);
		m[0] |= pm[0];
		m[1] |= pm[1];
		record(t, d + 1, m);
		if (d + 1 < sp->steps) {
			visit(t, c, d + 1, m);
			continue;
		}
		for (unsigned s = 0; s < sp->sides; s++)
			sim_stream_free(c[s]);
	}
	*lastp = last;
}

static int cmp_hit(const void *a, const void *b)
{
	uint64_t x = ((const struct tree_hit *)a)->n, y = ((const struct tree_hit *)b)->n;

	return (x > y) - (x < y);
}

/* One walk of the space (@mode) into @res. */
static void walk_space(const struct tree_space *sp, enum walk_mode mode, struct tree_result *res)
{
	struct walk t = { .mode = mode, .sp = sp, .res = res };
	struct sim_stream *w[2] = { NULL, NULL };
	uint32_t pm[2] = { 0, 0 };

	memset(res, 0, sizeof(*res));
	t.pow[0] = 1;
	for (unsigned i = 1; i <= TREE_DEPTH_MAX; i++)
		t.pow[i] = t.pow[i - 1] * sp->nr_g;
	t.split = tree_split_depth(sp);
	for (unsigned s = 0; s < sp->sides; s++) {
		w[s] = sim_stream_open(sp->cfg[s], sp->o);
		if (mode == WALK_NS)
			sim_stream_namespace(w[s]);
	}
	if (sp->share_states)
		t.memo = memo_create(sp->steps, t.split);
	visit(&t, w, 0, pm);
	if (t.memo) {
		res->memo_entries = memo_entries(t.memo);
		memo_destroy(t.memo);
	}
}

/* The namespace walk's results @b added to the one-file walk's @a. */
static void add_result(struct tree_result *a, struct tree_result *b)
{
	a->run += b->run;
	a->pruned += b->pruned;
	a->forks += b->forks;
	a->reused += b->reused;
	a->reused_seqs += b->reused_seqs;
	a->memo_entries += b->memo_entries;
	a->interrupted |= b->interrupted;
	for (uint64_t i = 0; i < b->nr_hits; i++) {
		if (a->nr_hits == a->cap_hits) {
			a->cap_hits = a->cap_hits ? 2 * a->cap_hits : 1024;
			a->hits = sim_realloc_array(a->hits, a->cap_hits, sizeof(*a->hits));
		}
		a->hits[a->nr_hits++] = b->hits[i];
	}
	tree_result_free(b);
}

void tree_explore(const struct tree_space *sp, struct tree_result *res)
{
	bool ns = false;

	SIM_ASSERT(sp->steps >= 1 && sp->steps <= TREE_DEPTH_MAX && sp->nr_g > 0);
	SIM_ASSERT(sp->sides == 1 || sp->sides == 2);
	for (unsigned g = 0; sp->ns && g < sp->nr_g; g++)
		ns |= sp->ns[g];
	if (!ns) {
		walk_space(sp, WALK_ALL, res);
	} else {
		struct tree_result more;

		walk_space(sp, WALK_FILE, res);
		if (!res->interrupted) {
			walk_space(sp, WALK_NS, &more);
			add_result(res, &more);
		}
	}
	if (res->nr_hits)
		qsort(res->hits, res->nr_hits, sizeof(*res->hits), cmp_hit);
}

void tree_result_free(struct tree_result *res)
{
	free(res->hits);
	memset(res, 0, sizeof(*res));
}
