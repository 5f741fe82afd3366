/*
 * timeline.c - the block timeline of a step (see timeline.h).  The tracker
 * is the event log's observer: after each event it samples, for every row,
 * the bytes in each place and names them by version.  The names of a block's
 * versions live over the whole run; the rows and columns over one step.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "report.h"
#include "world.h"

enum tl_kind { TLK_DATA, TLK_META, TLK_DESC, TLK_REVOKE, TLK_COMMIT };

#define TL_RUNS_TEXT 96
#define TL_RUNS_SHOWN 4

/* One version of a block: the hash of its bytes and its label. */
struct tl_version {
	uint64_t h;
	char label[TL_LABEL];
	char runs[TL_RUNS_TEXT];        /* a data block's vN: its bytes as runs */
};

/* The versions of one block (a file block, or a metadata block), over the run. */
struct tl_vers {
	uint8_t kind;                   /* TLK_DATA or TLK_META */
	int64_t id;                     /* lblk or blocknr */
	struct tl_version *v;
	uint32_t nr, cap, nr_mixed;
	int64_t pblk;                   /* data: the last home block seen, -1 none */
};

/* A journal block written for the log, followed while it is needed. */
struct tl_logent {
	uint32_t blk;                   /* device block in the log */
	uint8_t kind;                   /* enum tl_kind: what it holds */
	int64_t home;                   /* a copy's block (meta blocknr, data lblk) */
	uint32_t tid;
	uint64_t seq;                   /* its write */
	uint64_t h;                     /* its bytes */
	char label[TL_LABEL];
};

struct tl_row {
	uint8_t kind;
	int64_t id;                     /* lblk, blocknr, or the log block */
	uint32_t tid;
	char (*cells)[TL_COLS_MAX][TL_LABEL];   /* [TL_PLACES] */
};

struct tl_tracker {
	struct world *w;
	struct tl_vers *vers;
	uint32_t nr_vers, cap_vers;
	struct tl_logent log[TL_LOG_MAX];
	uint32_t nr_log;
	struct tl_row rows[TL_ROWS_MAX];
	uint32_t nr_rows;
	int64_t cols[TL_COLS_MAX];
	uint32_t nr_cols;
	bool truncated, in_step;
	uint8_t *sentinel;              /* a never-written block's bytes */
};

static const char *const place_names[TL_PLACES] = {
	[TL_CACHE] = "cache", [TL_LOG_PENDING] = "log_pending", [TL_LOG_MEDIA] = "log_media",
	[TL_HOME_PENDING] = "home_pending", [TL_HOME_MEDIA] = "home_media",
};

const char *tl_place_name(enum tl_place p)
{
	SIM_ASSERT(p < TL_PLACES);
	return place_names[p];
}

/* A 64-bit hash of a block's bytes (grouping into versions only). */
static uint64_t tl_hash(const uint8_t *p, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i + 8 <= n; i += 8) {
		uint64_t x;

		memcpy(&x, p + i, 8);
		h = (h ^ x) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	return h;
}

static struct tl_vers *vers_of(struct tl_tracker *t, uint8_t kind, int64_t id)
{
	for (uint32_t i = 0; i < t->nr_vers; i++)
		if (t->vers[i].kind == kind && t->vers[i].id == id)
			return &t->vers[i];
	if (t->nr_vers == t->cap_vers) {
		t->cap_vers = t->cap_vers ? 2 * t->cap_vers : 32;
		t->vers = sim_realloc_array(t->vers, t->cap_vers, sizeof(*t->vers));
	}
	memset(&t->vers[t->nr_vers], 0, sizeof(t->vers[0]));
	t->vers[t->nr_vers].kind = kind;
	t->vers[t->nr_vers].id = id;
	t->vers[t->nr_vers].pblk = -1;
	return &t->vers[t->nr_vers++];
}

/* A data block's name by its bytes: "aa", "aa/00" (two runs), or NULL. */
static bool pattern_label(const uint8_t *p, uint32_t n, char *out)
{
	uint32_t i = 1;

	while (i < n && p[i] == p[0])
		i++;
	if (i == n) {
		snprintf(out, TL_LABEL, "%02x", p[0]);
		return true;
	}
	for (uint32_t k = i + 1; k < n; k++)
		if (p[k] != p[i])
			return false;
	snprintf(out, TL_LABEL, "%02x/%02x", p[0], p[i]);
	return true;
}

/* A block's bytes as runs: "0-99: 0xaa, 100-4095: 0x00" (the first few). */
static void runs_text(const uint8_t *p, uint32_t n, char *out, size_t cap)
{
	size_t used = 0;
	uint32_t nr = 0;

	out[0] = 0;
	for (uint32_t i = 0, j; i < n && used < cap; i = j, nr++) {
		for (j = i + 1; j < n && p[j] == p[i];)
			j++;
		if (nr == TL_RUNS_SHOWN) {
			snprintf(out + used, cap - used, ", ...");
			return;
		}
		used += (size_t)snprintf(out + used, cap - used, "%s%u-%u: 0x%02x", nr ? ", " : "", i, j - 1,
					 p[i]);
	}
}

/* The label of bytes @p as a version of block @v. */
static const char *version_label(struct tl_tracker *t, struct tl_vers *v, const uint8_t *p)
{
	uint32_t bs = t->w->bd->bd_block_size;
	uint64_t h = tl_hash(p, bs);
	struct tl_version *x;

	for (uint32_t i = 0; i < v->nr; i++)
		if (v->v[i].h == h)
			return v->v[i].label;
	if (v->nr == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 8;
		v->v = sim_realloc_array(v->v, v->cap, sizeof(*v->v));
	}
	x = &v->v[v->nr++];
	x->h = h;
	x->runs[0] = 0;
	if (v->kind == TLK_DATA && pattern_label(p, bs, x->label))
		return x->label;
	snprintf(x->label, TL_LABEL, "v%u", v->kind == TLK_DATA ? ++v->nr_mixed : v->nr_mixed++);
	if (v->kind == TLK_DATA)
		runs_text(p, bs, x->runs, sizeof(x->runs));
	return x->label;
}

/* The newest write to @blk not yet durable, or NULL. */
static const struct bio_rec *newest_bio(const struct blkdev *bd, uint32_t blk)
{
	for (uint32_t i = bd->bd_nr_bios; i-- > 0;)
		if (bd->bd_bios[i].b_blocknr == blk)
			return &bd->bd_bios[i];
	return NULL;
}

static const struct bio_rec *bio_by_seq(const struct blkdev *bd, uint64_t seq)
{
	for (uint32_t i = bd->bd_nr_bios; i-- > 0;)
		if (bd->bd_bios[i].b_seq == seq)
			return &bd->bd_bios[i];
	return NULL;
}

static const uint8_t *durable(const struct tl_tracker *t, uint32_t blk)
{
	const uint8_t *p = blkdev_peek_durable(t->w->bd, blk);

	return p ? p : t->sentinel;
}

static bool mounted(const struct ext4_fs *fs)
{
	return fs->s_bufs != NULL && fs->inode != NULL;
}

/* "~V" for a write in flight, "V" for one in the volatile cache. */
static void pending_cell(char *cell, const struct bio_rec *b, const char *label)
{
	snprintf(cell, TL_LABEL, "%s%s", b->b_state == BIO_SUBMITTED ? "~" : "", label);
}

/* The home places of block @blk as versions of @v. */
static void home_cells(struct tl_tracker *t, struct tl_vers *v, uint32_t blk,
		       char cell[TL_PLACES][TL_LABEL])
{
	const struct bio_rec *b = newest_bio(t->w->bd, blk);

	if (b && b->b_kind != BIO_JOURNAL && b->b_kind != BIO_COMMIT && b->b_kind != BIO_JSB)
		pending_cell(cell[TL_HOME_PENDING], b, version_label(t, v, b->b_data));
	snprintf(cell[TL_HOME_MEDIA], TL_LABEL, "%s", version_label(t, v, durable(t, blk)));
}

/* The log places of the journal's copies of @home (kind TLK_DATA or TLK_META). */
static void log_cells(struct tl_tracker *t, uint8_t kind, int64_t home,
		      char cell[TL_PLACES][TL_LABEL])
{
	uint32_t bs = t->w->bd->bd_block_size;

	for (uint32_t i = 0; i < t->nr_log; i++) {
		const struct tl_logent *e = &t->log[i];
		const struct bio_rec *b;

		if (e->kind != kind || e->home != home)
			continue;
		if ((b = bio_by_seq(t->w->bd, e->seq)))
			pending_cell(cell[TL_LOG_PENDING], b, e->label);
		else if (tl_hash(durable(t, e->blk), bs) == e->h)
			snprintf(cell[TL_LOG_MEDIA], TL_LABEL, "%s", e->label);
	}
}

static bool cells_empty(char cell[TL_PLACES][TL_LABEL])
{
	for (unsigned p = 0; p < TL_PLACES; p++)
		if (cell[p][0])
			return false;
	return true;
}

/* The row (kind, id, tid), created with empty cells; NULL when the rows are full. */
static struct tl_row *row_of(struct tl_tracker *t, uint8_t kind, int64_t id, uint32_t tid)
{
	struct tl_row *r;

	for (uint32_t i = 0; i < t->nr_rows; i++)
		if (t->rows[i].kind == kind && t->rows[i].id == id && t->rows[i].tid == tid)
			return &t->rows[i];
	if (t->nr_rows == TL_ROWS_MAX) {
		t->truncated = true;
		return NULL;
	}
	r = &t->rows[t->nr_rows++];
	r->kind = kind;
	r->id = id;
	r->tid = tid;
	if (!r->cells)
		r->cells = sim_zalloc(TL_PLACES * sizeof(*r->cells));
	memset(r->cells, 0, TL_PLACES * sizeof(*r->cells));
	return r;
}

/*
 * Store a sample in column @col.  @backfill (a metadata block first wanted
 * now): before, it was in no transaction, write or log, so its buffer and
 * its home held what its home holds now; the columns before get that.
 */
static void put_cells(struct tl_tracker *t, uint8_t kind, int64_t id, uint32_t tid, uint32_t col,
		      char cell[TL_PLACES][TL_LABEL], bool backfill)
{
	bool fresh = false;
	struct tl_row *r;

	for (uint32_t i = 0; i < t->nr_rows && !fresh; i++)
		fresh = t->rows[i].kind == kind && t->rows[i].id == id && t->rows[i].tid == tid;
	fresh = !fresh;
	if (fresh && cells_empty(cell))
		return;
	if (!(r = row_of(t, kind, id, tid)))
		return;
	for (unsigned p = 0; p < TL_PLACES; p++)
		memcpy(r->cells[p][col], cell[p], TL_LABEL);
	for (uint32_t c = 0; fresh && backfill && c < col; c++) {
		memcpy(r->cells[TL_CACHE][c], cell[TL_HOME_MEDIA], TL_LABEL);
		memcpy(r->cells[TL_HOME_MEDIA][c], cell[TL_HOME_MEDIA], TL_LABEL);
	}
}

/* Data block @l: its buffer, its home, its journaled copies. */
static void sample_data(struct tl_tracker *t, uint32_t l, uint32_t col)
{
	struct ext4_fs *fs = &t->w->fs;
	uint32_t bs = t->w->bd->bd_block_size, pblk, len;
	struct tl_vers *v = vers_of(t, TLK_DATA, l);
	char cell[TL_PLACES][TL_LABEL] = { { 0 } };

	if (mounted(fs)) {
		uint64_t pos = (uint64_t)l * bs;
		const struct folio *f = filemap_get_folio(&fs->inode->i_mapping, pos >> PAGE_SHIFT);
		unsigned k = (unsigned)((pos & (PAGE_SIZE - 1)) / bs);
		enum es_state st = es_lookup(&fs->inode->i_es, l, &pblk, &len);

		v->pblk = st == ES_WRITTEN || st == ES_UNWRITTEN ? (int64_t)pblk : -1;
		if (f && ((f->flags & PG_buffers) ? f->bh[k].b_state & BH_Uptodate : f->flags & PG_uptodate)) {
			uint16_t dirty = BH_Dirty | BH_Delay | BH_JBDDirty;
			bool d = (f->flags & PG_buffers) ? f->bh[k].b_state & dirty : f->flags & PG_dirty;

			snprintf(cell[TL_CACHE], TL_LABEL, "%s%s", version_label(t, v, f->data + (pos & (PAGE_SIZE - 1))),
				 d ? "*" : "");
		}
	}
	if (v->pblk >= 0)
		home_cells(t, v, (uint32_t)v->pblk, cell);
	log_cells(t, TLK_DATA, l, cell);
	put_cells(t, TLK_DATA, l, 0, col, cell, false);
}

static bool tx_carries(const transaction_t *tx, uint32_t b)
{
	for (uint32_t i = 0; tx && i < tx->t_nr_buffers; i++)
		if (tx->t_buffers[i].jb_blocknr == b && tx->t_buffers[i].jb_lblk < 0)
			return true;
	return false;
}

/*
 * Is metadata block @b worth a row at this sample: one of the three the
 * file always has, or one a transaction, the checkpoint list, a pending
 * write or the log holds (any other one has the same bytes in memory and on
 * the media), or one with a row already.
 */
static bool meta_wanted(const struct tl_tracker *t, uint32_t b)
{
	const struct ext4_fs *fs = &t->w->fs;
	const struct ext4_layout *lay = &t->w->r->lay;
	const journal_t *j = &fs->journal;

	if (b == lay->inode_blk || (mounted(fs) && b == ext4_block_bitmap(fs, 0)) ||
	    newest_bio(t->w->bd, b))
		return true;
	for (uint32_t i = 0; i < t->nr_log; i++)
		if (t->log[i].kind == TLK_META && t->log[i].home == b)
			return true;
	for (uint32_t i = 0; i < t->nr_rows; i++)
		if (t->rows[i].kind == TLK_META && t->rows[i].id == b)
			return true;
	if (!mounted(fs))
		return false;
	for (uint32_t i = 0; i < j->j_nr_cp; i++)
		if (j->j_cp[i].cp_blocknr == b)
			return true;
	return tx_carries(j->j_running_transaction, b) || tx_carries(j->j_committing_transaction, b);
}

static void sample_meta(struct tl_tracker *t, uint32_t b, uint32_t col)
{
	struct ext4_fs *fs = &t->w->fs;
	struct tl_vers *v = vers_of(t, TLK_META, b);
	char cell[TL_PLACES][TL_LABEL] = { { 0 } };

	if (mounted(fs) && ext4_meta_peek(fs, b))
		snprintf(cell[TL_CACHE], TL_LABEL, "%s", version_label(t, v, ext4_meta_peek(fs, b)));
	home_cells(t, v, b, cell);
	log_cells(t, TLK_META, b, cell);
	put_cells(t, TLK_META, b, 0, col, cell, true);
}

/* The journal's own blocks (descriptor, revoke, commit) of the log entries. */
static void sample_journal(struct tl_tracker *t, uint32_t col)
{
	uint32_t bs = t->w->bd->bd_block_size;

	for (uint32_t i = 0; i < t->nr_log; i++) {
		const struct tl_logent *e = &t->log[i];
		char cell[TL_PLACES][TL_LABEL] = { { 0 } };
		const struct bio_rec *b;

		if (e->kind == TLK_DATA || e->kind == TLK_META)
			continue;
		if ((b = bio_by_seq(t->w->bd, e->seq)))
			pending_cell(cell[TL_LOG_PENDING], b, e->label);
		else if (tl_hash(durable(t, e->blk), bs) == e->h)
			snprintf(cell[TL_LOG_MEDIA], TL_LABEL, "%s", e->label);
		put_cells(t, e->kind, e->blk, e->tid, col, cell, false);
	}
}

/* Is a log entry's transaction still needed (pending, in the log, or mid-mount)? */
static bool logent_live(const struct tl_tracker *t, const struct tl_logent *e)
{
	const journal_t *j = &t->w->fs.journal;

	if (bio_by_seq(t->w->bd, e->seq) || !mounted(&t->w->fs))
		return true;
	if (j->j_committing_transaction && j->j_committing_transaction->t_tid == e->tid)
		return true;
	for (uint32_t i = 0; i < j->j_nr_logged; i++)
		if (j->j_logged[i].lt_tid == e->tid)
			return true;
	return false;
}

static void prune_log(struct tl_tracker *t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->nr_log; i++)
		if (logent_live(t, &t->log[i]))
			t->log[n++] = t->log[i];
	t->nr_log = n;
}

/* The file blocks worth a row: up to the end of i_size, the cache and the extents. */
static uint32_t data_rows(const struct tl_tracker *t)
{
	const struct ext4_fs *fs = &t->w->fs;
	uint32_t bs = t->w->bd->bd_block_size, n = 0;

	for (uint32_t i = 0; i < t->nr_rows; i++)
		if (t->rows[i].kind == TLK_DATA)
			n = SIM_MAX(n, (uint32_t)t->rows[i].id + 1);
	if (mounted(fs)) {
		const struct ext4_es_tree *es = &fs->inode->i_es;
		const struct address_space *m = &fs->inode->i_mapping;

		n = SIM_MAX(n, (uint32_t)SIM_MIN((fs->inode->i_size + bs - 1) / bs, TL_DATA_ROWS));
		if (m->a_nr)
			n = SIM_MAX(n, (uint32_t)SIM_MIN((m->a_folios[m->a_nr - 1]->index + 1) * (PAGE_SIZE / bs),
							  TL_DATA_ROWS));
		if (es->es_nr)
			n = SIM_MAX(n, SIM_MIN(es->es[es->es_nr - 1].es_lblk + es->es[es->es_nr - 1].es_len,
					       TL_DATA_ROWS));
	}
	for (uint32_t i = 0; i < t->nr_log; i++)
		if (t->log[i].kind == TLK_DATA)
			n = SIM_MAX(n, (uint32_t)SIM_MIN(t->log[i].home + 1, TL_DATA_ROWS));
	return n;
}

static int cmp_blk(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void cand_add(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t b)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = sim_realloc_array(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = b;
}

/*
 * The metadata blocks a row may follow, sorted and unique: the journaled
 * set and extent blocks of the mounted file system, the log's and the rows'
 * blocks, and every block with a pending write that is neither data nor
 * journal.
 */
static uint32_t *meta_candidates(const struct tl_tracker *t, uint32_t *nr)
{
	const struct ext4_fs *fs = &t->w->fs;
	const struct ext4_layout *lay = &t->w->r->lay;
	const struct blkdev *bd = t->w->bd;
	uint32_t n = 0, cap = 0, u = 0, ns = 0, *set = NULL, *v = NULL;

	if (mounted(fs)) {
		set = ext4_journaled_set(fs, &ns);
		for (uint32_t i = 0; i < fs->inode->i_ext_nr_leaves; i++)
			cand_add(&v, &n, &cap, fs->inode->i_ext_leaves[i].el_pblk);
	}
	for (uint32_t i = 0; i < ns; i++)
		cand_add(&v, &n, &cap, set[i]);
	for (uint32_t i = 0; i < t->nr_log; i++)
		if (t->log[i].kind == TLK_META)
			cand_add(&v, &n, &cap, t->log[i].home);
	for (uint32_t i = 0; i < t->nr_rows; i++)
		if (t->rows[i].kind == TLK_META)
			cand_add(&v, &n, &cap, (uint32_t)t->rows[i].id);
	for (uint32_t i = 0; i < bd->bd_nr_bios; i++) {
		const char *role = ext4_block_role(lay, bd->bd_bios[i].b_blocknr);

		if (strcmp(role, "data") && strcmp(role, "journal"))
			cand_add(&v, &n, &cap, bd->bd_bios[i].b_blocknr);
	}
	free(set);
	if (n)
		qsort(v, n, sizeof(*v), cmp_blk);
	for (uint32_t i = 0; i < n; i++)
		if (u == 0 || v[u - 1] != v[i])
			v[u++] = v[i];
	*nr = u;
	return v;
}

/* Every row's places, into column @col. */
static void sample(struct tl_tracker *t, uint32_t col)
{
	uint32_t nd, nc;
	uint32_t *cand;

	prune_log(t);
	nd = data_rows(t);
	for (uint32_t l = 0; l < nd; l++)
		sample_data(t, l, col);
	cand = meta_candidates(t, &nc);
	for (uint32_t i = 0; i < nc; i++)
		if (meta_wanted(t, cand[i]))
			sample_meta(t, cand[i], col);
	free(cand);
	sample_journal(t, col);
}

/* A journal write was submitted: follow it. */
static void note_log_write(struct tl_tracker *t, const struct sim_event *e)
{
	/* the kind + 1 of what each journal write holds; 0: not a journal block followed */
	static const uint8_t kinds[BW_COUNT] = { [BW_JDESC] = TLK_DESC + 1, [BW_JCOPY] = TLK_META + 1,
		[BW_JDATA] = TLK_DATA + 1, [BW_JREVOKE] = TLK_REVOKE + 1, [BW_JCOMMIT] = TLK_COMMIT + 1 };
	static const char *const labels[] = { [TLK_DESC] = "TxB", [TLK_REVOKE] = "R", [TLK_COMMIT] = "TxE" };
	const struct bio_rec *b = newest_bio(t->w->bd, (uint32_t)e->ev_a);
	uint32_t bs = t->w->bd->bd_block_size, n = 0;
	struct tl_logent x = { .blk = (uint32_t)e->ev_a, .home = e->ev_c, .tid = (uint32_t)e->ev_d };

	if (e->ev_b < 0 || e->ev_b >= BW_COUNT || !kinds[e->ev_b] || !b)
		return;
	x.kind = kinds[e->ev_b] - 1;
	x.seq = b->b_seq;
	x.h = tl_hash(b->b_data, bs);
	if (x.kind == TLK_DATA || x.kind == TLK_META)
		snprintf(x.label, TL_LABEL, "%s", version_label(t, vers_of(t, x.kind, x.home), b->b_data));
	else
		snprintf(x.label, TL_LABEL, "%s", labels[x.kind]);
	for (uint32_t i = 0; i < t->nr_log; i++)
		if (t->log[i].blk != x.blk)
			t->log[n++] = t->log[i];
	t->nr_log = n;
	if (t->nr_log < TL_LOG_MAX)
		t->log[t->nr_log++] = x;
	else
		t->truncated = true;
}

static void add_column(struct tl_tracker *t, int64_t col)
{
	if (t->nr_cols == TL_COLS_MAX) {
		t->truncated = true;
		return;
	}
	t->cols[t->nr_cols] = col;
	sample(t, t->nr_cols++);
}

static void tl_observe(void *ctx, const struct sim_event *e)
{
	struct tl_tracker *t = ctx;

	if (e->ev_type == EV_BIO_SUBMIT)
		note_log_write(t, e);
	if (t->in_step)
		add_column(t, e->ev_no);
}

struct tl_tracker *tl_create(struct world *w)
{
	struct tl_tracker *t = sim_zalloc(sizeof(*t));

	t->w = w;
	t->sentinel = sim_zalloc(w->bd->bd_block_size);
	memset(t->sentinel, BLKDEV_SENTINEL, w->bd->bd_block_size);
	w->r->events.l_observe = tl_observe;
	w->r->events.l_observe_ctx = t;
	return t;
}

void tl_destroy(struct tl_tracker *t)
{
	if (!t)
		return;
	t->w->r->events.l_observe = NULL;
	for (uint32_t i = 0; i < t->nr_vers; i++)
		free(t->vers[i].v);
	free(t->vers);
	for (uint32_t i = 0; i < TL_ROWS_MAX; i++)
		free(t->rows[i].cells);
	free(t->sentinel);
	free(t);
}

void tl_step_begin(struct tl_tracker *t)
{
	t->nr_rows = 0;
	t->nr_cols = 0;
	t->truncated = false;
	t->in_step = true;
	add_column(t, 0);
}

/* Does column @c equal column @c - 1 in every row? */
static bool column_same(const struct tl_tracker *t, uint32_t c)
{
	for (uint32_t i = 0; i < t->nr_rows; i++)
		for (unsigned p = 0; p < TL_PLACES; p++)
			if (strcmp(t->rows[i].cells[p][c], t->rows[i].cells[p][c - 1]))
				return false;
	return true;
}

static int row_cmp(const void *a, const void *b)
{
	const struct tl_row *x = a, *y = b;
	int kx = x->kind >= TLK_DESC ? 2 : x->kind, ky = y->kind >= TLK_DESC ? 2 : y->kind;

	if (kx != ky)
		return kx - ky;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Does a cell of @r name version @label (with its ~ and * marks)? */
static bool row_names(const struct tl_tracker *t, const struct tl_row *r, const char *label)
{
	for (unsigned p = 0; p < TL_PLACES; p++)
		for (uint32_t c = 0; c < t->nr_cols; c++) {
			const char *x = r->cells[p][c] + (r->cells[p][c][0] == '~');
			size_t n = strlen(label);

			if (!strncmp(x, label, n) && (!x[n] || !strcmp(x + n, "*")))
				return true;
		}
	return false;
}

/* The data versions a data row names that are not their bytes (vN), with their runs. */
static const struct tl_vers *mixed_of(const struct tl_tracker *t, const struct tl_row *r)
{
	for (uint32_t i = 0; r->kind == TLK_DATA && i < t->nr_vers; i++)
		if (t->vers[i].kind == TLK_DATA && t->vers[i].id == r->id)
			return &t->vers[i];
	return NULL;
}

static void json_versions(FILE *f, const struct tl_tracker *t, const struct tl_row *r)
{
	const struct tl_vers *v = mixed_of(t, r);
	bool any = false;

	for (uint32_t i = 0; v && i < v->nr; i++) {
		if (!v->v[i].runs[0] || !row_names(t, r, v->v[i].label))
			continue;
		fprintf(f, "%s\"%s\": \"%s\"", any ? ", " : ", \"versions\": {", v->v[i].label, v->v[i].runs);
		any = true;
	}
	if (any)
		fputc('}', f);
}

static void json_row(FILE *f, const struct tl_tracker *t, const struct tl_row *r)
{
	static const char *const kinds[] = { "data", "metadata", "descriptor", "revoke", "commit" };
	const struct ext4_layout *lay = &t->w->r->lay;
	bool any = false;

	fprintf(f, "{\"kind\": \"%s\", ", kinds[r->kind]);
	if (r->kind == TLK_DATA)
		fprintf(f, "\"lblk\": %lld, \"blocknr\": %lld", (long long)r->id,
			(long long)vers_of((struct tl_tracker *)t, TLK_DATA, r->id)->pblk);
	else if (r->kind == TLK_META)
		fprintf(f, "\"blocknr\": %lld, \"what\": \"%s\"", (long long)r->id,
			ext4_block_role(lay, (uint32_t)r->id));
	else
		fprintf(f, "\"blocknr\": %lld, \"tid\": %u", (long long)r->id, r->tid);
	fputs(", \"places\": {", f);
	for (unsigned p = 0; p < TL_PLACES; p++) {
		bool used = false;

		for (uint32_t c = 0; c < t->nr_cols && !used; c++)
			used = r->cells[p][c][0] != 0;
		if (!used)
			continue;
		fprintf(f, "%s\"%s\": [", any ? ", " : "", place_names[p]);
		for (uint32_t c = 0; c < t->nr_cols; c++)
			fprintf(f, "%s\"%s\"", c ? ", " : "", r->cells[p][c]);
		fputc(']', f);
		any = true;
	}
	fputc('}', f);
	json_versions(f, t, r);
	fputc('}', f);
}

char *tl_step_end(struct tl_tracker *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	t->in_step = false;
	add_column(t, -1);
	if (t->nr_cols > 1 && column_same(t, t->nr_cols - 1))
		t->nr_cols--;
	qsort(t->rows, t->nr_rows, sizeof(t->rows[0]), row_cmp);
	SIM_ASSERT((f = open_memstream(&buf, &len)) != NULL);
	fputs("{\"columns\": [", f);
	for (uint32_t c = 0; c < t->nr_cols; c++)
		fprintf(f, "%s%lld", c ? ", " : "", (long long)t->cols[c]);
	fputs("], \"rows\": [", f);
	for (uint32_t i = 0; i < t->nr_rows; i++) {
		fputs(i ? ", " : "", f);
		json_row(f, t, &t->rows[i]);
	}
	fprintf(f, "], \"truncated\": %s}", t->truncated ? "true" : "false");
	SIM_ASSERT(fclose(f) == 0);
	return buf;
}

/* --- the text view (run --timeline) --- */

#define TL_TEXT_WIDTH 100
#define TL_NAME_WIDTH 22

static const char *const place_words[TL_PLACES] = {
	[TL_CACHE] = "page cache", [TL_LOG_PENDING] = "log, not durable", [TL_LOG_MEDIA] = "log, on media",
	[TL_HOME_PENDING] = "home, not durable", [TL_HOME_MEDIA] = "home, on media",
};

static void row_name(const struct tl_tracker *t, const struct tl_row *r, char *out, size_t cap)
{
	const struct ext4_layout *lay = &t->w->r->lay;
	int64_t pblk = -1;

	for (uint32_t i = 0; r->kind == TLK_DATA && i < t->nr_vers; i++)
		if (t->vers[i].kind == TLK_DATA && t->vers[i].id == r->id)
			pblk = t->vers[i].pblk;
	if (r->kind == TLK_DATA && pblk >= 0)
		snprintf(out, cap, "file block %lld (disk %lld)", (long long)r->id, (long long)pblk);
	else if (r->kind == TLK_DATA)
		snprintf(out, cap, "file block %lld (no disk block)", (long long)r->id);
	else if (r->kind == TLK_META)
		snprintf(out, cap, "%s (disk %lld)", ext4_block_role(lay, (uint32_t)r->id), (long long)r->id);
	else
		snprintf(out, cap, "journal %s of tid %u (disk %lld)", r->kind == TLK_DESC ? "descriptor" :
			 r->kind == TLK_COMMIT ? "commit block" : "revoke block", r->tid, (long long)r->id);
}

static void col_head(const struct tl_tracker *t, uint32_t c, char *out, size_t cap)
{
	if (t->cols[c] == 0)
		snprintf(out, cap, "before");
	else if (t->cols[c] < 0)
		snprintf(out, cap, "end");
	else
		snprintf(out, cap, "e%lld", (long long)t->cols[c]);
}

static unsigned col_width(const struct tl_tracker *t, uint32_t c)
{
	char h[24];
	size_t w;

	col_head(t, c, h, sizeof(h));
	w = strlen(h);
	for (uint32_t i = 0; i < t->nr_rows; i++)
		for (unsigned p = 0; p < TL_PLACES; p++)
			w = SIM_MAX(w, strlen(t->rows[i].cells[p][c]));
	return (unsigned)w + 2;
}

static bool place_used(const struct tl_tracker *t, const struct tl_row *r, unsigned p)
{
	for (uint32_t c = 0; c < t->nr_cols; c++)
		if (r->cells[p][c][0])
			return true;
	return false;
}

/* Did any place of row @r change over the step? (The text view shows only those rows.) */
static bool row_moved(const struct tl_tracker *t, const struct tl_row *r)
{
	for (unsigned p = 0; p < TL_PLACES; p++)
		for (uint32_t c = 1; c < t->nr_cols; c++)
			if (strcmp(r->cells[p][c], r->cells[p][c - 1]))
				return true;
	return false;
}

/* Print @s padded to @w, unless it ends the line. */
static void cell_out(FILE *out, const char *s, unsigned w, bool last)
{
	if (last)
		fputs(s, out);
	else
		fprintf(out, "%-*s", (int)w, s);
}

/* Columns @cols[0..n) as one table. */
static void print_chunk(FILE *out, const struct tl_tracker *t, const uint32_t *cols, uint32_t n)
{
	char name[96], h[24];

	fprintf(out, "      %-*s", TL_NAME_WIDTH + 2, "");
	for (uint32_t k = 0; k < n; k++) {
		col_head(t, cols[k], h, sizeof(h));
		cell_out(out, h, col_width(t, cols[k]), k + 1 == n);
	}
	fputc('\n', out);
	for (uint32_t i = 0; i < t->nr_rows; i++) {
		const struct tl_row *r = &t->rows[i];

		if (!row_moved(t, r))
			continue;
		row_name(t, r, name, sizeof(name));
		fprintf(out, "      %s\n", name);
		for (unsigned p = 0; p < TL_PLACES; p++) {
			if (!place_used(t, r, p))
				continue;
			fprintf(out, "        %-*s", TL_NAME_WIDTH, place_words[p]);
			for (uint32_t k = 0; k < n; k++)
				cell_out(out, r->cells[p][cols[k]][0] ? r->cells[p][cols[k]] : ".",
					 col_width(t, cols[k]), k + 1 == n);
			fputc('\n', out);
		}
	}
}

/* The bytes of each vN a shown data row names. */
static void print_versions(FILE *out, const struct tl_tracker *t)
{
	for (uint32_t i = 0; i < t->nr_rows; i++) {
		const struct tl_vers *v = mixed_of(t, &t->rows[i]);

		for (uint32_t k = 0; v && row_moved(t, &t->rows[i]) && k < v->nr; k++)
			if (v->v[k].runs[0] && row_names(t, &t->rows[i], v->v[k].label))
				fprintf(out, "        file block %lld %s: %s\n", (long long)v->id, v->v[k].label,
					v->v[k].runs);
	}
}

void tl_print(FILE *out, const struct tl_tracker *t, const struct ext4_layout *lay,
	      const struct ev_log *log, uint32_t first, uint32_t end)
{
	uint32_t shown[TL_COLS_MAX], n = 0;
	char text[EXPLAIN_LINE_MAX + 64];

	for (uint32_t c = 0; c < t->nr_cols; c++)
		if (c == 0 || !column_same(t, c))
			shown[n++] = c;
	if (n == 1) {
		fprintf(out, "      timeline: no block moved\n");
		return;
	}
	fprintf(out, "      timeline: the blocks that moved, before the step and after each event "
		"that moved one (~ in flight, * dirty)%s\n", t->truncated ? "; truncated" : "");
	for (uint32_t k = 0, w; k < n; k += w) {
		unsigned width = TL_NAME_WIDTH + 8;

		for (w = 0; k + w < n && (w == 0 || width + col_width(t, shown[k + w]) <= TL_TEXT_WIDTH); w++)
			width += col_width(t, shown[k + w]);
		print_chunk(out, t, shown + k, w);
	}
	print_versions(out, t);
	for (uint32_t k = 0; k < n; k++) {
		int64_t no = t->cols[shown[k]];

		if (no <= 0 || first == end || no < log->l_ev[first].ev_no)
			continue;
		if ((uint32_t)(no - log->l_ev[first].ev_no) + first >= end ||
		    log->l_ev[first + (no - log->l_ev[first].ev_no)].ev_no != no)
			continue;
		explain_event(lay, &log->l_ev[first + (no - log->l_ev[first].ev_no)], text, sizeof(text));
		fprintf(out, "        e%lld %s\n", (long long)no, text);
	}
}
