/*
 * test_inode.c - the page cache and the write, read, truncate, fsync and
 * writeback paths of the model (model/ext4/file.c, inode.c, readpage.c,
 * truncate.c, fsync.c, writepages.c, page-io.c, super.c) against a naive
 * reference: a byte array plus a size, what POSIX says the file holds.
 *
 * Random sequences of 200 operations over a small file (offsets within
 * 64 KiB, lengths 0..9000, often at or next to block, page and EOF
 * boundaries) run for 15 fixed seeds in every configuration: block size
 * 1024, 2048 and 4096 x data=ordered delalloc, data=ordered nodelalloc,
 * data=writeback delalloc and data=journal, the delalloc ones with and
 * without dioread_nolock.  The operations: write(2) (a random fill byte,
 * sometimes a short copy: the reference applies exactly the bytes the
 * model reports written), truncate up and down, fsync and fdatasync (whole
 * file or a range), sync_file_range 'w' (sometimes followed by 'a'),
 * writeback with its I/O completed, a jbd2 commit, a checkpoint, evicting
 * clean folios, close, a clean unmount and mount (everything must
 * persist), a read of a random range, and fsync followed by a crash and
 * recovery (the file must equal the reference at the fsync); and
 * fallocate in every mode (mode 0, KEEP_SIZE, ZERO_RANGE with and without
 * KEEP_SIZE, PUNCH_HOLE, COLLAPSE_RANGE and INSERT_RANGE, aligned or not:
 * the reference says which must fail with EINVAL) and stores through a
 * shared mapping (bytes past EOF inside the EOF page are not file content
 * and must read as zeros once an extension exposes them; a page past the
 * EOF page is SIGBUS after the stores before it).
 *
 * After every operation: ext4_check_state(); i_size equals the reference
 * size and 0 <= i_disksize <= i_size; ext4_peek() of the whole file returns
 * the reference bytes and leaves the page cache, the block map and the
 * device untouched; ext4_file_read() of the whole file (and past EOF)
 * returns the reference bytes.  The whole-file read fills the page cache,
 * which would hide the paths that work on folios that are not uptodate
 * (writes into evicted or never-read folios, short copies that count as
 * zero), so odd seeds read after every operation and even seeds only after
 * one in eight (ext4_peek checks them after every operation).  After a
 * whole-file fsync: no folio dirty or under writeback, no I/O in flight,
 * nothing unwritten below EOF, i_disksize == i_size (check_synced_mode()
 * says why clean delayed blocks may remain after short copies).
 *
 * Targeted tests: a sparse write at 1 TiB (a few folios only), EFBIG at
 * and past ext4_max_size(), ENOSPC on a tiny device (the bytes reported
 * written read back, fsync succeeds, and they survive a crash), and the
 * state of a delalloc file after fsync; and one for each of several
 * toggles, its before and after rule (each names its commit).
 *
 * Model bugs this file found, each fixed and kept as a regression test:
 * test_inode__fsync_after_a_short_allocation_writes_every_folio and
 * test_inode__dioread_nolock_wait_for_folio_sharing_an_io_end.
 *
 * Every failure message names the configuration, the seed and the
 * operation index; a model assertion (abort) prints them too.
 * TEST_INODE_SEED=N runs seed N only; TEST_INODE_TRACE=1 prints every
 * operation, =2 also the block map and buffers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blkdev.h"
#include "ext4.h"
#include "mke2fs.h"
#include "prng.h"

/* The default profile's semantics. */
static const struct ext4_semantics *default_sem(void)
{
	static struct ext4_semantics sem;

	ext4_profile_semantics(ext4_profile_default(), &sem);
	return &sem;
}


#define FILE_SPAN (64 * 1024)           /* random offsets fall in [0, FILE_SPAN] */
#define MAX_LEN 9000
#define MAX_SIZE (FILE_SPAN + MAX_LEN)  /* largest size a random sequence makes */
#define NR_OPS 200
#define NR_SEEDS 15
#define DISK_BLOCKS 16384u
#define TIB ((int64_t)1 << 40)

struct cfg {
	const char *name;
	uint32_t bs;
	enum ext4_data_mode data;
	bool delalloc;
	bool dioread_nolock;
};

/* One mounted file system and its reference. */
struct world {
	const struct cfg *cfg;
	struct ext4_mount_opts o;
	struct blkdev *bd;
	struct sim_counters c;
	struct jbd2_recovery_info ri;
	struct ext4_fs fs;
	struct prng rng;
	uint64_t seed;
	int op;                         /* index of the operation, from 0 */
	bool read_every;                /* whole-file read after every operation */
	bool preallocated;              /* fallocate may have left unwritten blocks */
	uint8_t ref[MAX_SIZE + 16];     /* bytes past ref_size are always zero */
	int64_t ref_size;
	uint8_t got[MAX_SIZE + 8192];
	uint8_t *win[2];                /* check_window's buffers */
};

/* What a failure (or a model abort) is about. */
static char g_ctx[256] = "(setup)";

static int g_trace;                     /* TEST_INODE_TRACE */
static void dump_state(const struct world *w);

#define FAIL(w, fmt, ...)                                                     \
	do {                                                                  \
		if (g_trace > 1)                                              \
			dump_state(w);                                        \
		fail_msg("%s: " fmt, g_ctx, __VA_ARGS__);                     \
	} while (0)
#define CHECK(w, cond, fmt, ...)                                              \
	do {                                                                  \
		if (!(cond))                                                  \
			FAIL(w, fmt, __VA_ARGS__);                            \
	} while (0)

static void set_ctx(const struct world *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_ctx(const struct world *w, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(g_ctx, sizeof(g_ctx), "%s seed=%llu op=%d %s", w->cfg ? w->cfg->name : "?",
		 (unsigned long long)w->seed, w->op, what);
}

/* ------------------------------------------------------------------ */
/* the world                                                           */

static void mount_world(struct world *w)
{
	int err = ext4_fill_super(&w->fs, w->bd, &w->o, default_sem(), &w->c,
				  &w->ri);

	CHECK(w, err == 0, "ext4_fill_super returned %d", err);
}

/* The world a failing test leaves behind (fail_msg unwinds), for teardown. */
static struct world *g_live;

static struct world *world_new(const struct cfg *cfg, uint32_t disk_blocks, uint64_t seed)
{
	struct world *w = calloc(1, sizeof(*w));
	const char *why = NULL;

	assert_non_null(w);
	g_live = w;
	w->cfg = cfg;
	w->seed = seed;
	prng_seed(&w->rng, seed);
	w->o = (struct ext4_mount_opts){
		.block_size = cfg->bs,
		.data = cfg->data,
		.delalloc = cfg->delalloc,
		.dioread_nolock = cfg->dioread_nolock,
		.auto_da_alloc = true,
		.disk_blocks = disk_blocks,
	};
	w->bd = mke2fs_device(disk_blocks, cfg->bs, &why);
	if (!w->bd)
		fail_msg("mke2fs_device(%u, %u): %s", disk_blocks, cfg->bs, why);
	set_ctx(w, "mount");
	mount_world(w);
	return w;
}

static void world_free(struct world *w)
{
	free(w->win[0]);
	free(w->win[1]);
	ext4_free_fs(&w->fs);
	blkdev_destroy(w->bd);
	free(w);
	g_live = NULL;
}

static int free_leftover_world(void **state)
{
	(void)state;
	if (g_live)
		world_free(g_live);
	return 0;
}

/* A crash: completed writes survive, memory and in-flight writes do not. */
static void crash_and_mount(struct world *w)
{
	blkdev_crash(w->bd);
	ext4_free_fs(&w->fs);
	mount_world(w);
}

static bool any_folio_dirty(const struct world *w)
{
	const struct address_space *m = &w->fs.inode->i_mapping;

	for (uint32_t i = 0; i < m->a_nr; i++)
		if (m->a_folios[i]->flags & PG_dirty)
			return true;
	return false;
}

/* Whole-file fsync or fdatasync. */
static int fsync_whole(struct world *w, bool datasync)
{
	return ext4_sync_file(&w->fs, 0, INT64_MAX, datasync);
}

static void remount_clean(struct world *w)
{
	ext4_put_super(&w->fs);
	mount_world(w);
}

/* TEST_INODE_TRACE=2 also prints the block map and the buffers. */
static void dump_state(const struct world *w)
{
	const struct ext4_inode_info *ei = w->fs.inode;

	for (uint32_t i = 0; i < ei->i_es.es_nr; i++)
		fprintf(stderr, "    extent %u+%u -> %u %s\n", ei->i_es.es[i].es_lblk,
			ei->i_es.es[i].es_len, ei->i_es.es[i].es_pblk,
			es_state_name(ei->i_es.es[i].es_state));
	for (uint32_t i = 0; i < ei->i_mapping.a_nr; i++) {
		const struct folio *f = ei->i_mapping.a_folios[i];

		fprintf(stderr, "    folio %llu flags 0x%x bh", (unsigned long long)f->index,
			f->flags);
		for (unsigned k = 0; k < folio_nr_buffers(&ei->i_mapping); k++)
			fprintf(stderr, " %03x:%u", f->bh[k].b_state, f->bh[k].b_blocknr);
		fprintf(stderr, "\n");
	}
}

/* ------------------------------------------------------------------ */
/* the reference                                                       */

static void ref_write(struct world *w, int64_t pos, int64_t len, uint8_t fill)
{
	if (len <= 0)
		return;
	assert_true(pos + len <= MAX_SIZE);
	memset(w->ref + pos, fill, (size_t)len);
	if (pos + len > w->ref_size)
		w->ref_size = pos + len;
}

/* collapse range: [pos, pos+len) goes, what follows moves down. */
static void ref_collapse(struct world *w, int64_t pos, int64_t len)
{
	memmove(w->ref + pos, w->ref + pos + len, (size_t)(w->ref_size - pos - len));
	memset(w->ref + w->ref_size - len, 0, (size_t)len);
	w->ref_size -= len;
}

/* insert range: [pos, size) moves up by len, zeros in between. */
static void ref_insert(struct world *w, int64_t pos, int64_t len)
{
	assert_true(w->ref_size + len <= MAX_SIZE);
	memmove(w->ref + pos + len, w->ref + pos, (size_t)(w->ref_size - pos));
	memset(w->ref + pos, 0, (size_t)len);
	w->ref_size += len;
}

static void ref_truncate(struct world *w, int64_t size)
{
	assert_true(size <= MAX_SIZE);
	if (size < w->ref_size)
		memset(w->ref + size, 0, (size_t)(w->ref_size - size));
	w->ref_size = size;
}

/* ------------------------------------------------------------------ */
/* checks                                                              */

static void compare_bytes(struct world *w, const char *what, int64_t pos, const uint8_t *got,
			  const uint8_t *want, int64_t len)
{
	for (int64_t i = 0; i < len; i++) {
		if (got[i] == want[i])
			continue;
		int64_t last = i;

		while (last + 1 < len && got[last + 1] != want[last + 1])
			last++;
		FAIL(w, "%s: byte %lld reads 0x%02x, the reference says 0x%02x "
		     "(bad through %lld; i_size %lld, i_disksize %lld)", what,
		     (long long)(pos + i), got[i], want[i], (long long)(pos + last),
		     (long long)w->fs.inode->i_size, (long long)w->fs.inode->i_disksize);
	}
}

/* Enough of the cache, block map and device to see that a peek changed nothing. */
struct snapshot {
	uint32_t a_nr;
	struct folio *folios;
	uint32_t es_nr;
	struct extent_status *es;
	int64_t i_size;
	int64_t i_disksize;
	uint32_t i_reserved;
	uint64_t bd_next_seq;
	uint32_t bd_nr_bios;
	uint32_t nr_ios;
	struct sim_counters counters;
};

static void snap_take(const struct world *w, struct snapshot *s)
{
	const struct address_space *m = &w->fs.inode->i_mapping;
	const struct ext4_es_tree *t = &w->fs.inode->i_es;

	s->a_nr = m->a_nr;
	s->folios = calloc(m->a_nr + 1, sizeof(*s->folios));
	assert_non_null(s->folios);
	for (uint32_t i = 0; i < m->a_nr; i++)
		s->folios[i] = *m->a_folios[i];
	s->es_nr = t->es_nr;
	s->es = calloc(t->es_nr + 1, sizeof(*s->es));
	assert_non_null(s->es);
	if (t->es_nr)
		memcpy(s->es, t->es, t->es_nr * sizeof(*s->es));
	s->i_size = w->fs.inode->i_size;
	s->i_disksize = w->fs.inode->i_disksize;
	s->i_reserved = w->fs.inode->i_reserved_data_blocks;
	s->bd_next_seq = w->bd->bd_next_seq;
	s->bd_nr_bios = w->bd->bd_nr_bios;
	s->nr_ios = w->fs.nr_ios;
	s->counters = w->c;
}

static void snap_check_free(struct world *w, struct snapshot *s)
{
	const struct address_space *m = &w->fs.inode->i_mapping;
	const struct ext4_es_tree *t = &w->fs.inode->i_es;
	bool same = s->a_nr == m->a_nr && s->es_nr == t->es_nr &&
		    s->i_size == w->fs.inode->i_size && s->i_disksize == w->fs.inode->i_disksize &&
		    s->i_reserved == w->fs.inode->i_reserved_data_blocks &&
		    s->bd_next_seq == w->bd->bd_next_seq && s->bd_nr_bios == w->bd->bd_nr_bios &&
		    s->nr_ios == w->fs.nr_ios && memcmp(&s->counters, &w->c, sizeof(w->c)) == 0;

	for (uint32_t i = 0; same && i < m->a_nr; i++) {
		const struct folio *a = &s->folios[i], *b = m->a_folios[i];

		same = a->index == b->index && a->flags == b->flags &&
		       memcmp(a->data, b->data, PAGE_SIZE) == 0;
		for (unsigned k = 0; same && k < SIM_BLOCKS_PER_PAGE_MAX; k++)
			same = a->bh[k].b_state == b->bh[k].b_state &&
			       a->bh[k].b_blocknr == b->bh[k].b_blocknr;
	}
	for (uint32_t i = 0; same && i < t->es_nr; i++)
		same = s->es[i].es_lblk == t->es[i].es_lblk && s->es[i].es_len == t->es[i].es_len &&
		       s->es[i].es_pblk == t->es[i].es_pblk &&
		       s->es[i].es_state == t->es[i].es_state;
	free(s->folios);
	free(s->es);
	CHECK(w, same, "ext4_peek changed the page cache, block map or device (%s)",
	      "it must only look");
}

static void check_whole_read(struct world *w)
{
	int64_t got = -1;
	int err = ext4_file_read(&w->fs, 0, w->ref_size + 4096, w->got, &got);

	CHECK(w, err == 0, "ext4_file_read(0, %lld) returned %d", (long long)w->ref_size + 4096,
	      err);
	CHECK(w, got == w->ref_size, "ext4_file_read of the whole file got %lld bytes, size %lld",
	      (long long)got, (long long)w->ref_size);
	compare_bytes(w, "ext4_file_read", 0, w->got, w->ref, w->ref_size);
	err = ext4_file_read(&w->fs, w->ref_size, 100, w->got, &got);
	CHECK(w, err == 0 && got == 0, "read at EOF %lld returned %d and %lld bytes",
	      (long long)w->ref_size, err, (long long)got);
}

/* After every operation. */
static void check_world(struct world *w, bool force_read)
{
	struct snapshot s;

	ext4_check_state(&w->fs);
	CHECK(w, w->fs.journal.j_current_handle == NULL, "a handle is open (%s)", "between steps");
	CHECK(w, w->fs.inode->i_size == w->ref_size, "i_size %lld, the reference size %lld",
	      (long long)w->fs.inode->i_size, (long long)w->ref_size);
	CHECK(w, w->fs.inode->i_disksize >= 0 && w->fs.inode->i_disksize <= w->fs.inode->i_size,
	      "i_disksize %lld, i_size %lld", (long long)w->fs.inode->i_disksize,
	      (long long)w->fs.inode->i_size);
	snap_take(w, &s);
	memset(w->got, 0x5a, (size_t)w->ref_size);
	ext4_peek(&w->fs, 0, w->ref_size, w->got);
	snap_check_free(w, &s);
	compare_bytes(w, "ext4_peek", 0, w->got, w->ref, w->ref_size);
	if (force_read || w->read_every || prng_below(&w->rng, 8) == 0)
		check_whole_read(w);
}

/*
 * After a whole-file fsync: no folio dirty or under writeback, no I/O in
 * flight, nothing unwritten below the EOF block's end, i_disksize ==
 * i_size; with @strict also nothing delayed anywhere.
 *
 * Without @strict delayed blocks may remain, clean: a short copy into a
 * folio that is not uptodate counts as zero bytes (ext4_da_write_end) but
 * keeps the delayed blocks its write_begin reserved past EOF, and writeback
 * cleans their buffers without mapping them (they lie past i_size).  A
 * later extension brings them below EOF with nothing to write; they read
 * as zeros and stay reserved until a truncate, as in the kernel.
 */
static void check_synced_mode(struct world *w, bool strict)
{
	const struct ext4_inode_info *ei = w->fs.inode;
	uint64_t eof_blocks = ((uint64_t)ei->i_size + w->cfg->bs - 1) >> ext4_blkbits(&w->fs);
	uint64_t delayed = 0, unwritten = 0;
	uint32_t busy = 0;

	for (uint32_t i = 0; i < ei->i_es.es_nr; i++) {
		const struct extent_status *e = &ei->i_es.es[i];
		uint64_t below_eof = e->es_lblk >= eof_blocks ? 0 :
				     SIM_MIN((uint64_t)e->es_len, eof_blocks - e->es_lblk);

		if (e->es_state == ES_DELAYED)
			delayed += e->es_len;
		else if (e->es_state == ES_UNWRITTEN)
			unwritten += below_eof;
	}
	for (uint32_t i = 0; i < ei->i_mapping.a_nr; i++)
		if (ei->i_mapping.a_folios[i]->flags & (PG_dirty | PG_writeback))
			busy++;
	if (w->preallocated)
		unwritten = 0;          /* fallocate's unwritten blocks stay unwritten */
	CHECK(w, unwritten == 0 && busy == 0 && (!strict || delayed == 0),
	      "after fsync: %llu unwritten block(s) below the EOF block's end, %u folio(s) "
	      "dirty or under writeback, %llu delayed block(s), %u reserved",
	      (unsigned long long)unwritten, busy, (unsigned long long)delayed,
	      ei->i_reserved_data_blocks);
	CHECK(w, ei->i_disksize == ei->i_size, "after fsync: i_disksize %lld != i_size %lld",
	      (long long)ei->i_disksize, (long long)ei->i_size);
	CHECK(w, w->fs.nr_ios == 0, "after fsync: %u bio(s) still in flight", w->fs.nr_ios);
}

static void check_synced(struct world *w)
{
	check_synced_mode(w, false);
}

/* ------------------------------------------------------------------ */
/* random choices                                                      */

static uint64_t below(struct world *w, uint64_t n)
{
	return prng_below(&w->rng, n);
}

/* An offset in [0, max], often at or next to a block, page or EOF boundary. */
static int64_t pick_pos(struct world *w, int64_t max)
{
	int64_t bs = w->cfg->bs, p;
	uint64_t r = below(w, 8);

	if (r < 3) {
		int64_t unit = below(w, 2) ? bs : (int64_t)PAGE_SIZE;

		p = (int64_t)below(w, (uint64_t)(max / unit) + 1) * unit + (int64_t)below(w, 5) - 2;
	} else if (r < 5) {
		int64_t eof = w->ref_size;

		if (below(w, 2))
			eof = (eof + bs - 1) / bs * bs;
		p = eof + (int64_t)below(w, 9) - 4;
	} else {
		p = (int64_t)below(w, (uint64_t)max + 1);
	}
	return SIM_MAX((int64_t)0, SIM_MIN(p, max));
}

/* A length in [0, MAX_LEN], often whole blocks or pages, or ending on one. */
static int64_t pick_len(struct world *w, int64_t pos)
{
	int64_t bs = w->cfg->bs, len;
	uint64_t r = below(w, 16);

	if (r == 0)
		return 0;
	if (r < 4) {
		int64_t unit = below(w, 2) ? bs : (int64_t)PAGE_SIZE;

		len = (int64_t)(1 + below(w, 2)) * unit + (int64_t)below(w, 3) - 1;
	} else if (r < 6) {
		int64_t end = (pos / bs + 1 + (int64_t)below(w, 3)) * bs;

		len = end - pos;
	} else {
		len = 1 + (int64_t)below(w, MAX_LEN);
	}
	return SIM_MAX((int64_t)0, SIM_MIN(len, (int64_t)MAX_LEN));
}

/* ------------------------------------------------------------------ */
/* operations                                                          */

static void op_write(struct world *w)
{
	int64_t pos = pick_pos(w, FILE_SPAN), len = pick_len(w, pos), readable = len, written;
	uint8_t fill = (uint8_t)(1 + below(w, 255));
	int err;

	if (fill == BLKDEV_SENTINEL)
		fill = 0x5e;
	if (len > 0 && below(w, 6) == 0)
		readable = (int64_t)below(w, (uint64_t)len);    /* short copy */
	set_ctx(w, "write(pos %lld, len %lld, fill 0x%02x, readable %lld)", (long long)pos,
		(long long)len, fill, (long long)readable);
	err = ext4_file_write(&w->fs, pos, len, fill, readable, &written);
	CHECK(w, written >= 0 && written <= SIM_MIN(len, readable),
	      "write reported %lld bytes written", (long long)written);
	if (len > 0 && readable == 0)
		CHECK(w, err == -EFAULT && written == 0, "write returned %d, %lld written, want "
		      "-EFAULT", err, (long long)written);
	else
		CHECK(w, err == 0 && written == SIM_MIN(len, readable), "write returned %d, "
		      "%lld bytes written, want 0 and %lld", err, (long long)written,
		      (long long)SIM_MIN(len, readable));
	ref_write(w, pos, written, fill);
}

static void op_truncate(struct world *w)
{
	int64_t size = w->ref_size, bs = w->cfg->bs, newsize;
	uint64_t r = below(w, 4);
	int err;

	if (r == 0)
		newsize = (int64_t)below(w, (uint64_t)size + 1);
	else if (r == 1)
		newsize = size + 1 + (int64_t)below(w, 2 * bs);
	else if (r == 2) {
		int64_t blocks = size / bs + (int64_t)below(w, 3) - 1;

		newsize = blocks * bs + (int64_t)below(w, 3) - 1;
		newsize = SIM_MAX((int64_t)0, newsize);
	} else
		newsize = pick_pos(w, MAX_SIZE);
	newsize = SIM_MIN(newsize, (int64_t)MAX_SIZE);
	set_ctx(w, "truncate(%lld) from %lld", (long long)newsize, (long long)size);
	err = ext4_setattr_size(&w->fs, newsize);
	CHECK(w, err == 0, "truncate returned %d", err);
	ref_truncate(w, newsize);
}

static void op_fsync(struct world *w)
{
	bool datasync = below(w, 2), whole = below(w, 4) != 0;
	int64_t start = 0, end = INT64_MAX;
	int err;

	if (!whole) {
		start = pick_pos(w, FILE_SPAN);
		end = start + (int64_t)below(w, MAX_LEN);
	}
	set_ctx(w, "%s(%lld, %lld)", datasync ? "fdatasync" : "fsync", (long long)start,
		(long long)end);
	err = whole ? fsync_whole(w, datasync) : ext4_sync_file(&w->fs, start, end, datasync);
	CHECK(w, err == 0, "fsync returned %d", err);
	if (whole)
		check_synced(w);
}

static void op_sync_range(struct world *w)
{
	int64_t off = pick_pos(w, FILE_SPAN), len = below(w, 3) ? pick_len(w, off) : 0;
	bool wait = below(w, 2);
	int err;

	set_ctx(w, "sync_file_range(%lld, %lld, 'w'%s)", (long long)off, (long long)len,
		wait ? " then 'a'" : "");
	err = ext4_sync_file_range(&w->fs, off, len, 'w');
	CHECK(w, err == 0, "sync_file_range 'w' returned %d", err);
	if (wait) {
		err = ext4_sync_file_range(&w->fs, off, len, 'a');
		CHECK(w, err == 0, "sync_file_range 'a' returned %d", err);
	}
}

static void op_writeback(struct world *w)
{
	int64_t start = 0, end = INT64_MAX;
	int err;

	if (below(w, 2)) {
		start = pick_pos(w, FILE_SPAN);
		end = start + (int64_t)below(w, MAX_LEN);
	}
	set_ctx(w, "writeback(%lld, %lld)", (long long)start, (long long)end);
	err = ext4_writepages(&w->fs, start, end, WB_SYNC_NONE, true);
	CHECK(w, err == 0, "ext4_writepages returned %d", err);
	ext4_wait_io_range(&w->fs, start, end);
}

/* A range for collapse or insert: mostly block-aligned, sometimes not (EINVAL). */
static void pick_shift_range(struct world *w, int64_t *pos, int64_t *len)
{
	int64_t bs = w->cfg->bs;

	*pos = (int64_t)below(w, (uint64_t)(w->ref_size / bs) + 2) * bs;
	*len = (int64_t)(1 + below(w, 3)) * (below(w, 2) ? bs : (int64_t)PAGE_SIZE);
	if (below(w, 8) == 0)
		*pos += 1 + (int64_t)below(w, (uint64_t)bs - 1);
	else if (below(w, 8) == 0)
		*len += 1;
}

/* The errno ext4_fallocate() must return for @mode on the reference file. */
static int falloc_expected(const struct world *w, int mode, int64_t pos, int64_t len)
{
	int64_t bs = w->cfg->bs;
	bool aligned = pos % bs == 0 && len % bs == 0;

	if (len <= 0)
		return -EINVAL;
	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		return !aligned || pos + len >= w->ref_size ? -EINVAL : 0;
	if (mode & FALLOC_FL_INSERT_RANGE)
		return !aligned || pos >= w->ref_size ? -EINVAL : 0;
	return 0;
}

/* What a successful fallocate does to the reference. */
static void ref_fallocate(struct world *w, int mode, int64_t pos, int64_t len)
{
	bool keep = mode & FALLOC_FL_KEEP_SIZE;
	int64_t end = pos + len, zend = keep ? SIM_MIN(end, w->ref_size) : end;

	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		ref_collapse(w, pos, len);
	else if (mode & FALLOC_FL_INSERT_RANGE)
		ref_insert(w, pos, len);
	else if (mode & (FALLOC_FL_ZERO_RANGE | FALLOC_FL_PUNCH_HOLE))
		ref_write(w, pos, zend - pos, 0);
	else if (!keep && end > w->ref_size)
		ref_truncate(w, end);
}

/*
 * fallocate(2) in every mode: mode 0, KEEP_SIZE, ZERO_RANGE with and
 * without KEEP_SIZE, PUNCH_HOLE, COLLAPSE_RANGE, INSERT_RANGE (an insert
 * that would pass the reference's capacity is skipped).
 */
static void op_fallocate(struct world *w)
{
	static const int modes[] = {
		0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_ZERO_RANGE,
		FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_COLLAPSE_RANGE, FALLOC_FL_INSERT_RANGE,
	};
	int mode = modes[below(w, sizeof(modes) / sizeof(modes[0]))], want, err;
	int64_t pos, len;

	if (mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)) {
		pick_shift_range(w, &pos, &len);
	} else {
		pos = pick_pos(w, FILE_SPAN);
		len = pick_len(w, pos);
	}
	want = falloc_expected(w, mode, pos, len);
	set_ctx(w, "fallocate(mode 0x%x, pos %lld, len %lld) on size %lld", mode,
		(long long)pos, (long long)len, (long long)w->ref_size);
	if ((mode & FALLOC_FL_INSERT_RANGE) && w->ref_size + len > MAX_SIZE)
		return;
	err = ext4_fallocate(&w->fs, mode, pos, len);
	CHECK(w, err == want, "fallocate returned %d, want %d", err, want);
	if (err == 0)
		ref_fallocate(w, mode, pos, len);
	if (!(mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)))
		w->preallocated = true;
}

/*
 * Stores through a shared mapping: the bytes below EOF become file content,
 * those past EOF in the EOF page only pollute the page cache (a later
 * extension must read them as zeros), a page past the EOF page is SIGBUS.
 */
static void op_mwrite(struct world *w)
{
	int64_t pos = pick_pos(w, FILE_SPAN), len = pick_len(w, pos), stored = -1;
	int64_t eof_page_end = (w->ref_size + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
	int64_t want = pos >= eof_page_end ? 0 : SIM_MIN(len, eof_page_end - pos);
	uint8_t fill = (uint8_t)(1 + below(w, 255));
	int err;

	if (fill == BLKDEV_SENTINEL)
		fill = 0x5f;
	set_ctx(w, "mwrite(pos %lld, len %lld, fill 0x%02x) on size %lld", (long long)pos,
		(long long)len, fill, (long long)w->ref_size);
	err = ext4_mmap_store(&w->fs, pos, len, fill, &stored);
	CHECK(w, stored == want && err == (want < len ? -EFAULT : 0),
	      "returned %d with %lld stored, want %lld", err, (long long)stored, (long long)want);
	if (pos < w->ref_size)
		ref_write(w, pos, SIM_MIN(stored, w->ref_size - pos), fill);
}

static void op_read_range(struct world *w)
{
	int64_t pos = pick_pos(w, MAX_SIZE), len = pick_len(w, pos), got = -1;
	int64_t want = SIM_MAX((int64_t)0, SIM_MIN(len, w->ref_size - pos));
	int err;

	set_ctx(w, "read(%lld, %lld)", (long long)pos, (long long)len);
	err = ext4_file_read(&w->fs, pos, len, w->got, &got);
	CHECK(w, err == 0 && got == want, "read returned %d and %lld bytes, want %lld", err,
	      (long long)got, (long long)want);
	compare_bytes(w, "ext4_file_read (range)", pos, w->got, w->ref + pos, want);
}

/* fsync, then a crash: recovery must give back exactly the fsynced file. */
static void op_fsync_crash(struct world *w)
{
	bool datasync = below(w, 2);
	int err;

	set_ctx(w, "%s then crash", datasync ? "fdatasync" : "fsync");
	err = fsync_whole(w, datasync);
	CHECK(w, err == 0, "fsync returned %d", err);
	check_synced(w);
	crash_and_mount(w);
}

static void run_op(struct world *w)
{
	uint64_t r = below(w, 120);

	if (r >= 100) {
		if (r < 112)
			op_fallocate(w);
		else
			op_mwrite(w);
	} else if (r < 40) {
		op_write(w);
	} else if (r < 50) {
		op_truncate(w);
	} else if (r < 58) {
		op_fsync(w);
	} else if (r < 64) {
		op_sync_range(w);
	} else if (r < 69) {
		op_writeback(w);
	} else if (r < 74) {
		set_ctx(w, "commit%s", w->fs.journal.j_running_transaction ? "" : " (none running)");
		if (w->fs.journal.j_running_transaction)
			jbd2_journal_commit_transaction(&w->fs.journal);
	} else if (r < 77) {
		set_ctx(w, "checkpoint");
		jbd2_log_do_checkpoint(&w->fs.journal);
	} else if (r < 82) {
		set_ctx(w, "evict clean folios");
		ext4_evict_clean(&w->fs);
	} else if (r < 85) {
		set_ctx(w, "close");
		ext4_munmap(&w->fs);
		CHECK(w, ext4_release_file(&w->fs) == 0, "close returned an error (%s)", "release");
	} else if (r < 87) {
		set_ctx(w, "clean unmount and mount");
		remount_clean(w);
		CHECK(w, w->fs.inode->i_disksize == w->fs.inode->i_size,
		      "after a clean mount i_disksize %lld != i_size %lld",
		      (long long)w->fs.inode->i_disksize, (long long)w->fs.inode->i_size);
	} else if (r < 89) {
		op_fsync_crash(w);
	} else {
		op_read_range(w);
	}
}

/* TEST_INODE_TRACE=1 prints every operation; TEST_INODE_SEED=N runs seed N only. */
static void trace_op(const struct world *w)
{
	const struct ext4_inode_info *ei = w->fs.inode;

	fprintf(stderr, "%s -> size %lld disksize %lld, %u folio(s), %u extent(s), "
		"%u reserved, %u bio(s) in flight\n", g_ctx, (long long)ei->i_size,
		(long long)ei->i_disksize, ei->i_mapping.a_nr, ei->i_es.es_nr,
		ei->i_reserved_data_blocks, w->fs.nr_ios);
}

static void run_random(const struct cfg *cfg)
{
	const char *only = getenv("TEST_INODE_SEED");
	const char *trace_env = getenv("TEST_INODE_TRACE");
	int trace = trace_env ? atoi(trace_env) : 0;

	g_trace = trace;
	for (uint64_t seed = 1; seed <= NR_SEEDS; seed++) {
		struct world *w;

		if (only && strtoull(only, NULL, 10) != seed)
			continue;
		w = world_new(cfg, DISK_BLOCKS, seed);
		w->read_every = seed % 2 == 1;
		for (w->op = 0; w->op < NR_OPS; w->op++) {
			run_op(w);
			if (trace)
				trace_op(w);
			if (trace > 1)
				dump_state(w);
			check_world(w, false);
		}
		w->op = NR_OPS;
		set_ctx(w, "final clean unmount and mount");
		remount_clean(w);
		check_world(w, true);
		world_free(w);
	}
	snprintf(g_ctx, sizeof(g_ctx), "(between tests)");
}

#define RANDOM_TEST(id, bs_, data_, da, dio)                                  \
	static void test_inode__random_##id(void **state)                    \
	{                                                                     \
		static const struct cfg c = { #id, bs_, data_, da, dio };     \
		(void)state;                                                  \
		run_random(&c);                                               \
	}

RANDOM_TEST(1k_ordered_delalloc, 1024, DATA_ORDERED, true, false)
RANDOM_TEST(1k_ordered_delalloc_dioread_nolock, 1024, DATA_ORDERED, true, true)
RANDOM_TEST(1k_ordered_nodelalloc, 1024, DATA_ORDERED, false, false)
RANDOM_TEST(1k_writeback_delalloc, 1024, DATA_WRITEBACK, true, false)
RANDOM_TEST(1k_writeback_delalloc_dioread_nolock, 1024, DATA_WRITEBACK, true, true)
RANDOM_TEST(1k_journal, 1024, DATA_JOURNAL, false, false)
RANDOM_TEST(2k_ordered_delalloc, 2048, DATA_ORDERED, true, false)
RANDOM_TEST(2k_ordered_delalloc_dioread_nolock, 2048, DATA_ORDERED, true, true)
RANDOM_TEST(2k_ordered_nodelalloc, 2048, DATA_ORDERED, false, false)
RANDOM_TEST(2k_writeback_delalloc, 2048, DATA_WRITEBACK, true, false)
RANDOM_TEST(2k_writeback_delalloc_dioread_nolock, 2048, DATA_WRITEBACK, true, true)
RANDOM_TEST(2k_journal, 2048, DATA_JOURNAL, false, false)
RANDOM_TEST(4k_ordered_delalloc, 4096, DATA_ORDERED, true, false)
RANDOM_TEST(4k_ordered_delalloc_dioread_nolock, 4096, DATA_ORDERED, true, true)
RANDOM_TEST(4k_ordered_nodelalloc, 4096, DATA_ORDERED, false, false)
RANDOM_TEST(4k_writeback_delalloc, 4096, DATA_WRITEBACK, true, false)
RANDOM_TEST(4k_writeback_delalloc_dioread_nolock, 4096, DATA_WRITEBACK, true, true)
RANDOM_TEST(4k_journal, 4096, DATA_JOURNAL, false, false)

/* ------------------------------------------------------------------ */
/* targeted tests                                                      */

static const struct cfg mode_cfgs[] = {
	{ "1k_ordered_delalloc", 1024, DATA_ORDERED, true, false },
	{ "1k_ordered_delalloc_dioread_nolock", 1024, DATA_ORDERED, true, true },
	{ "1k_ordered_nodelalloc", 1024, DATA_ORDERED, false, false },
	{ "1k_writeback_delalloc", 1024, DATA_WRITEBACK, true, false },
	{ "1k_journal", 1024, DATA_JOURNAL, false, false },
	{ "4k_ordered_delalloc", 4096, DATA_ORDERED, true, false },
	{ "4k_ordered_nodelalloc", 4096, DATA_ORDERED, false, false },
	{ "4k_journal", 4096, DATA_JOURNAL, false, false },
};

#define NR_MODE_CFGS (sizeof(mode_cfgs) / sizeof(mode_cfgs[0]))

/* Compare [pos, pos+len) of the file, read through ext4_peek and ext4_file_read. */
static void check_window(struct world *w, int64_t pos, int64_t len, uint8_t byte)
{
	uint8_t *got, *want;
	int64_t n = -1;
	int err;

	free(w->win[0]);
	free(w->win[1]);
	got = w->win[0] = malloc((size_t)len);
	want = w->win[1] = malloc((size_t)len);
	assert_non_null(got);
	assert_non_null(want);
	memset(want, byte, (size_t)len);
	ext4_peek(&w->fs, pos, len, got);
	compare_bytes(w, "ext4_peek (window)", pos, got, want, len);
	memset(got, 0x5a, (size_t)len);
	err = ext4_file_read(&w->fs, pos, len, got, &n);
	CHECK(w, err == 0 && n == len, "read(%lld, %lld) returned %d and %lld bytes",
	      (long long)pos, (long long)len, err, (long long)n);
	compare_bytes(w, "ext4_file_read (window)", pos, got, want, len);
}

/* A write at 1 TiB makes a sparse file: a few folios, zeros before it. */
static void test_inode__write_at_1tib_is_sparse(void **state)
{
	(void)state;
	for (unsigned k = 0; k < NR_MODE_CFGS; k++) {
		struct world *w = world_new(&mode_cfgs[k], DISK_BLOCKS, 0);
		int64_t pos = TIB + 100, written = -1;
		int err;

		set_ctx(w, "write 5000 bytes at 1 TiB + 100");
		err = ext4_file_write(&w->fs, pos, 5000, 0xa1, 5000, &written);
		CHECK(w, err == 0 && written == 5000, "write returned %d, %lld written", err,
		      (long long)written);
		CHECK(w, w->fs.inode->i_size == pos + 5000, "i_size %lld",
		      (long long)w->fs.inode->i_size);
		CHECK(w, w->fs.inode->i_mapping.a_nr == 2, "%u folios after the write, want 2",
		      w->fs.inode->i_mapping.a_nr);
		ext4_check_state(&w->fs);
		check_window(w, pos, 5000, 0xa1);
		check_window(w, pos - 3 * PAGE_SIZE, 3 * PAGE_SIZE, 0);
		check_window(w, 0, 2 * PAGE_SIZE, 0);
		CHECK(w, w->fs.inode->i_mapping.a_nr <= 8, "%u folios after reading three windows",
		      w->fs.inode->i_mapping.a_nr);

		set_ctx(w, "fsync, crash and mount");
		CHECK(w, ext4_sync_file(&w->fs, 0, INT64_MAX, false) == 0, "fsync %s", "failed");
		check_synced_mode(w, true);
		crash_and_mount(w);
		ext4_check_state(&w->fs);
		CHECK(w, w->fs.inode->i_size == pos + 5000, "i_size %lld after the crash",
		      (long long)w->fs.inode->i_size);
		CHECK(w, w->fs.inode->i_mapping.a_nr == 0, "%u folios after mount",
		      w->fs.inode->i_mapping.a_nr);
		check_window(w, pos - 100, 100, 0);
		check_window(w, pos, 5000, 0xa1);
		CHECK(w, w->fs.inode->i_mapping.a_nr == 2, "%u folios after reading [1 TiB, EOF)",
		      w->fs.inode->i_mapping.a_nr);

		set_ctx(w, "truncate to 0");
		CHECK(w, ext4_setattr_size(&w->fs, 0) == 0, "truncate %s", "failed");
		ext4_check_state(&w->fs);
		CHECK(w, w->fs.inode->i_mapping.a_nr == 0 && w->fs.inode->i_es.es_nr == 0,
		      "%u folios, %u extents after truncate to 0", w->fs.inode->i_mapping.a_nr,
		      w->fs.inode->i_es.es_nr);
		world_free(w);
	}
}

/* EFBIG at and past ext4_max_size(); a write across it is cut short there. */
static void test_inode__efbig_at_max_size(void **state)
{
	(void)state;
	for (unsigned k = 0; k < NR_MODE_CFGS; k++) {
		struct world *w = world_new(&mode_cfgs[k], DISK_BLOCKS, 0);
		int64_t max = ext4_max_size(&w->fs), written = -1;
		int err;

		CHECK(w, max == ((int64_t)1 << 32) * w->cfg->bs - w->cfg->bs, "max size %lld",
		      (long long)max);
		set_ctx(w, "write at max size %lld", (long long)max);
		err = ext4_file_write(&w->fs, max, 1, 0xb2, 1, &written);
		CHECK(w, err == -EFBIG && written == 0, "returned %d, %lld written", err,
		      (long long)written);
		err = ext4_file_write(&w->fs, max + 4096, 10, 0xb2, 10, &written);
		CHECK(w, err == -EFBIG && written == 0, "past max: returned %d, %lld written", err,
		      (long long)written);
		err = ext4_file_write(&w->fs, -1, 10, 0xb2, 10, &written);
		CHECK(w, err == -EINVAL && written == 0, "at -1: returned %d, %lld written", err,
		      (long long)written);
		CHECK(w, w->fs.inode->i_size == 0 && w->fs.inode->i_mapping.a_nr == 0,
		      "refused writes left i_size %lld and %u folios", (long long)w->fs.inode->i_size,
		      w->fs.inode->i_mapping.a_nr);
		CHECK(w, ext4_setattr_size(&w->fs, max + 1) == -EFBIG, "truncate past max %s",
		      "not refused");
		CHECK(w, ext4_setattr_size(&w->fs, -1) == -EINVAL, "truncate to -1 %s",
		      "not refused");
		ext4_check_state(&w->fs);

		set_ctx(w, "write 100 bytes at max size - 10");
		err = ext4_file_write(&w->fs, max - 10, 100, 0xb3, 100, &written);
		CHECK(w, err == 0 && written == 10, "returned %d, %lld written, want 0 and 10", err,
		      (long long)written);
		CHECK(w, w->fs.inode->i_size == max, "i_size %lld, want the max size",
		      (long long)w->fs.inode->i_size);
		ext4_check_state(&w->fs);
		check_window(w, max - 10, 10, 0xb3);
		check_window(w, max - 2 * PAGE_SIZE, 2 * PAGE_SIZE - 10, 0);
		CHECK(w, ext4_setattr_size(&w->fs, max) == 0, "truncate to the max size %s",
		      "failed");

		set_ctx(w, "fsync, crash and mount at max size");
		CHECK(w, ext4_sync_file(&w->fs, 0, INT64_MAX, false) == 0, "fsync %s", "failed");
		check_synced_mode(w, true);
		crash_and_mount(w);
		ext4_check_state(&w->fs);
		CHECK(w, w->fs.inode->i_size == max, "i_size %lld after the crash",
		      (long long)w->fs.inode->i_size);
		check_window(w, max - 10, 10, 0xb3);
		check_window(w, max - PAGE_SIZE, PAGE_SIZE - 10, 0);
		CHECK(w, ext4_setattr_size(&w->fs, 0) == 0, "truncate to 0 %s", "failed");
		ext4_check_state(&w->fs);
		CHECK(w, w->fs.inode->i_es.es_nr == 0, "%u extents left after truncate to 0",
		      w->fs.inode->i_es.es_nr);
		world_free(w);
	}
}

/*
 * Writing 4 MiB to a 2 MiB device: the write stops at ENOSPC and reports
 * what it wrote (every free block of mke2fs's image but the reserved pool
 * and the extent tree's leaf blocks); those bytes read back, fsync succeeds and they survive a
 * crash.  A further write gets -ENOSPC or writes what still fits.
 */
static void test_inode__enospc_fill_reads_back_and_fsyncs(void **state)
{
	const int64_t total = 4 << 20;

	(void)state;
	for (unsigned k = 0; k < NR_MODE_CFGS; k++) {
		struct world *w;
		int64_t written = -1, more = -1, size, fits;
		int err;

		if (mode_cfgs[k].bs != 1024)
			continue;
		w = world_new(&mode_cfgs[k], 2048, 0);
		/* what fits: the free blocks but the reserved pool and the tree's leaves */
		fits = ((int64_t)w->fs.s_freeclusters - 2048 / 50 - EXT4_EXT_MAX_LEAVES) * 1024;
		set_ctx(w, "write 4 MiB on a 2048-block device");
		err = ext4_file_write(&w->fs, 0, total, 0x3c, total, &written);
		CHECK(w, err == 0 && written > 0 && written < total,
		      "returned %d with %lld written, want 0 and a short count", err,
		      (long long)written);
		CHECK(w, written >= fits, "only %lld bytes fit on a device with %llu free blocks",
		      (long long)written, (unsigned long long)w->fs.s_freeclusters);
		CHECK(w, w->fs.inode->i_size == written, "i_size %lld, %lld written",
		      (long long)w->fs.inode->i_size, (long long)written);
		ext4_check_state(&w->fs);
		set_ctx(w, "write 64 KiB more at %lld", (long long)written);
		err = ext4_file_write(&w->fs, written, 65536, 0x3c, 65536, &more);
		CHECK(w, (err == -ENOSPC && more == 0) || (err == 0 && more > 0),
		      "returned %d with %lld written", err, (long long)more);
		size = written + more;
		CHECK(w, w->fs.inode->i_size == size, "i_size %lld, %lld written",
		      (long long)w->fs.inode->i_size, (long long)size);
		ext4_check_state(&w->fs);
		check_window(w, 0, size, 0x3c);

		set_ctx(w, "fsync after ENOSPC (size %lld)", (long long)size);
		err = ext4_sync_file(&w->fs, 0, INT64_MAX, false);
		CHECK(w, err == 0, "fsync returned %d", err);
		check_synced_mode(w, true);
		ext4_check_state(&w->fs);
		check_window(w, 0, size, 0x3c);
		set_ctx(w, "crash after fsync after ENOSPC (size %lld)", (long long)size);
		crash_and_mount(w);
		ext4_check_state(&w->fs);
		CHECK(w, w->fs.inode->i_size == size, "i_size %lld after the crash, want %lld",
		      (long long)w->fs.inode->i_size, (long long)size);
		check_window(w, 0, size, 0x3c);
		world_free(w);
	}
}

/*
 * After fsync of a delalloc file with holes, extensions and partial
 * blocks, every block that holds written data is a written extent, nothing
 * is delayed or unwritten, no reservation is left, i_disksize == i_size,
 * and the blocks never written are still holes.
 */
static void test_inode__fsync_delalloc_leaves_only_written_extents(void **state)
{
	static const struct cfg da_cfgs[] = {
		{ "1k_ordered_delalloc", 1024, DATA_ORDERED, true, false },
		{ "1k_ordered_delalloc_dioread_nolock", 1024, DATA_ORDERED, true, true },
		{ "2k_writeback_delalloc", 2048, DATA_WRITEBACK, true, false },
		{ "2k_writeback_delalloc_dioread_nolock", 2048, DATA_WRITEBACK, true, true },
		{ "4k_ordered_delalloc", 4096, DATA_ORDERED, true, false },
		{ "4k_ordered_delalloc_dioread_nolock", 4096, DATA_ORDERED, true, true },
	};
	static const struct { int64_t pos, len; uint8_t fill; } wr[] = {
		{ 0, 100, 0x11 }, { 5000, 3000, 0x22 }, { 20000, 1, 0x33 },
		{ 40960, 4096, 0x44 }, { 4500, 10, 0x55 }, { 53000, 700, 0x66 },
	};

	(void)state;
	for (unsigned k = 0; k < sizeof(da_cfgs) / sizeof(da_cfgs[0]); k++) {
		struct world *w = world_new(&da_cfgs[k], DISK_BLOCKS, 0);
		uint32_t bits = ext4_blkbits(&w->fs), pblk, len;
		enum es_state st;

		w->read_every = true;
		for (unsigned i = 0; i < sizeof(wr) / sizeof(wr[0]); i++) {
			int64_t written = -1;

			w->op = (int)i;
			set_ctx(w, "write(%lld, %lld)", (long long)wr[i].pos, (long long)wr[i].len);
			CHECK(w, ext4_file_write(&w->fs, wr[i].pos, wr[i].len, wr[i].fill, wr[i].len,
						 &written) == 0 && written == wr[i].len,
			      "write failed, %lld written", (long long)written);
			ref_write(w, wr[i].pos, written, wr[i].fill);
			if (i == 3) {
				CHECK(w, ext4_setattr_size(&w->fs, 50001) == 0, "truncate %s",
				      "failed");
				ref_truncate(w, 50001);
			}
		}
		CHECK(w, es_count(&w->fs.inode->i_es, ES_DELAYED) > 0, "no delayed block before "
		      "fsync (%s)", "delalloc should delay");
		CHECK(w, w->fs.inode->i_disksize < w->fs.inode->i_size, "i_disksize %lld already "
		      "at i_size before fsync", (long long)w->fs.inode->i_disksize);
		w->op++;
		set_ctx(w, "fsync");
		CHECK(w, ext4_sync_file(&w->fs, 0, INT64_MAX, false) == 0, "fsync %s", "failed");
		check_synced_mode(w, true);
		check_world(w, true);
		for (int64_t b = 0; b << bits < w->ref_size; b++) {
			int64_t s = b << bits, e = SIM_MIN(s + ((int64_t)1 << bits), w->ref_size);
			bool data = false;

			st = es_lookup(&w->fs.inode->i_es, (uint32_t)b, &pblk, &len);
			for (int64_t p = s; p < e && !data; p++)
				data = w->ref[p] != 0;
			if (data)
				CHECK(w, st == ES_WRITTEN, "block %lld holds data but is %s",
				      (long long)b, es_state_name(st));
		}
		st = es_lookup(&w->fs.inode->i_es, (uint32_t)(24576 >> bits), &pblk, &len);
		CHECK(w, st == ES_HOLE, "block at byte 24576 was never written but is %s",
		      es_state_name(st));
		set_ctx(w, "crash after fsync");
		crash_and_mount(w);
		check_world(w, true);
		world_free(w);
	}
}

/*
 * Regression test: fsync once left dirty delalloc folios unwritten when
 * the allocator returned fewer blocks than writeback asked for.
 *
 * model/ext4/writepages.c, ext4_writepages() / writepages_map_pass(), before the
 * fix: the mapping pass collects one extent of delayed buffers; when the collection
 * ends in a folio whose last block is the EOF block,
 * mpage_process_page_bufs() sets scanned_until_end.  If ext4_map_blocks()
 * then allocates only part of that extent (free space is fragmented),
 * mpage_map_and_submit_buffers() maps and submits the folios of the part
 * it got and stops; the later folios of the collected extent stay dirty
 * and delayed, and the loop in ext4_writepages() ends because
 * scanned_until_end is set.  The kernel's ext4_do_writepages() calls
 * mpage_release_unused_pages() after each pass, which clears
 * scanned_until_end when first_page < next_page, so the next pass writes
 * them.  Consequence: fsync (and a clean unmount) returns success with
 * data not written and i_disksize short of i_size; after a crash the file
 * is short (the checker reports fsync_durable).
 *
 * Reproduce (1 KiB blocks, the obstacles make the free run at the
 * allocation goal 4 blocks long):
 *   ext4sim run --block-size 1024 -c 'pwrite 51200 1024' -c fsync
 *     -c 'pwrite 61440 1024' -c fsync -c 'pwrite 56320 1024' -c fsync
 *     -c 'truncate 0' -c 'pwrite -S 0x77 0 12288' -c fsync -c crash
 * Expected: after the fsync no folio is dirty, i_disksize == i_size ==
 * 12288, and after the crash the file is 12288 bytes of 0x77.  Actual:
 * folios 1 and 2 stay dirty with 8 delayed blocks, i_disksize 4096, and
 * the recovered file is 4096 bytes long.
 */
static void test_inode__fsync_after_a_short_allocation_writes_every_folio(void **state)
{
	static const struct cfg cfgs[] = {
		{ "1k_ordered_delalloc", 1024, DATA_ORDERED, true, false },
		{ "1k_ordered_delalloc_dioread_nolock", 1024, DATA_ORDERED, true, true },
	};

	(void)state;
	for (unsigned k = 0; k < sizeof(cfgs) / sizeof(cfgs[0]); k++) {
		static const int64_t obstacles[] = { 51200, 61440, 56320 };
		struct world *w = world_new(&cfgs[k], DISK_BLOCKS, 0);
		int64_t written;

		for (unsigned i = 0; i < 3; i++) {
			set_ctx(w, "write 1024 bytes at %lld and fsync", (long long)obstacles[i]);
			CHECK(w, ext4_file_write(&w->fs, obstacles[i], 1024, 0x11, 1024, &written) ==
				 0 && written == 1024, "write %s", "failed");
			CHECK(w, ext4_sync_file(&w->fs, 0, INT64_MAX, false) == 0, "fsync %s",
			      "failed");
		}
		set_ctx(w, "truncate to 0 (the freed blocks stay busy until the commit)");
		CHECK(w, ext4_setattr_size(&w->fs, 0) == 0, "truncate %s", "failed");
		set_ctx(w, "write 12288 bytes at 0, fsync");
		CHECK(w, ext4_file_write(&w->fs, 0, 12288, 0x77, 12288, &written) == 0 &&
			 written == 12288, "write %s", "failed");
		CHECK(w, ext4_sync_file(&w->fs, 0, INT64_MAX, false) == 0, "fsync %s", "failed");
		ext4_check_state(&w->fs);
		CHECK(w, !any_folio_dirty(w) && es_count(&w->fs.inode->i_es, ES_DELAYED) == 0,
		      "BUG (model/ext4/writepages.c): fsync returned 0 but left dirty folios and %llu "
		      "delayed block(s); i_disksize %lld, i_size %lld",
		      (unsigned long long)es_count(&w->fs.inode->i_es, ES_DELAYED),
		      (long long)w->fs.inode->i_disksize, (long long)w->fs.inode->i_size);
		set_ctx(w, "crash after the fsync");
		crash_and_mount(w);
		CHECK(w, w->fs.inode->i_size == 12288, "recovered size %lld, want 12288",
		      (long long)w->fs.inode->i_size);
		check_window(w, 0, 12288, 0x77);
		world_free(w);
	}
}

/*
 * Unwritten buffer not marked new (2cd8bdb5efc1, scenarios/bugs/f8-*):
 * with dioread_nolock, a delalloc write that falls back
 * to nodelalloc (inject nonda) maps a preallocated block with
 * ext4_get_block_unwritten.  Writing its second half: with the fix the
 * first half reads zero; without it, the bytes of the fresh folio.
 */
static void test_inode__fallback_write_into_unwritten_block(void **state)
{
	static const struct cfg cfg = { "4k_ordered_delalloc_dioread_nolock", 4096,
					DATA_ORDERED, true, true };

	(void)state;
	for (int on = 0; on < 2; on++) {
		struct world *w = world_new(&cfg, DISK_BLOCKS, 0);
		uint8_t got[2048], want = on ? 0 : FOLIO_FRESH_FILL;
		int64_t n = 0, written = 0;

		w->fs.sem.get_block_unwritten_new = on;
		set_ctx(w, "get_block_unwritten_new %d: fallocate [0, 4096), fsync, inject nonda, "
			"write [2048, 4096), read [0, 2048)", on);
		CHECK(w, ext4_fallocate(&w->fs, 0, 0, 4096) == 0, "fallocate %s", "failed");
		CHECK(w, ext4_sync_file(&w->fs, 0, INT64_MAX, false) == 0, "fsync %s", "failed");
		ext4_fault_inject(&w->fs, EXT4_FAULT_NONDA, 0);
		CHECK(w, ext4_file_write(&w->fs, 2048, 2048, 0x22, 2048, &written) == 0 &&
			 written == 2048, "write %s", "failed");
		CHECK(w, es_count(&w->fs.inode->i_es, ES_DELAYED) == 0 &&
			 es_count(&w->fs.inode->i_es, ES_UNWRITTEN) == 1,
		      "the fallback write left %llu delayed and %llu unwritten block(s), want 0 and 1",
		      (unsigned long long)es_count(&w->fs.inode->i_es, ES_DELAYED),
		      (unsigned long long)es_count(&w->fs.inode->i_es, ES_UNWRITTEN));
		CHECK(w, ext4_file_read(&w->fs, 0, 2048, got, &n) == 0 && n == 2048,
		      "read returned %lld bytes", (long long)n);
		for (unsigned i = 0; i < sizeof(got); i++)
			CHECK(w, got[i] == want, "byte %u reads 0x%02x, want 0x%02x", i, got[i], want);
		ext4_fault_inject(&w->fs, EXT4_FAULT_CLEAR, 0);
		CHECK(w, !ext4_nonda_switch(&w->fs), "inject clear left the %s", "fallback on");
		world_free(w);
	}
}

/*
 * fallocate and zero range without KEEP_SIZE ending between i_disksize and
 * i_size (51e3ae81ec58, scenarios/bugs/g456-falloc-disksize.yaml): a
 * delalloc write of 8 KiB leaves i_disksize 0; mode 0 or ZERO_RANGE of
 * [0, 4096) raises i_disksize to 4096 with the fix and leaves it at 0
 * without; i_size stays 8192 either way.  (Without 9d80eaa1a1d3, whose
 * ext4_update_disksize_before_punch raises it for zero range by itself.)
 */
static void test_inode__falloc_below_isize_raises_disksize(void **state)
{
	static const struct cfg cfg = { "4k_ordered_delalloc", 4096, DATA_ORDERED, true, false };
	static const int modes[] = { 0, FALLOC_FL_ZERO_RANGE };

	(void)state;
	for (int m = 0; m < 2; m++) {
		for (int on = 0; on < 2; on++) {
			struct world *w = world_new(&cfg, DISK_BLOCKS, 0);
			int64_t written = 0, want = on ? 4096 : 0;

			w->fs.sem.falloc_disksize = on;
			w->fs.sem.disksize_before_punch_partial = false;
			set_ctx(w, "falloc_disksize %d: write [0, 8192), fallocate mode 0x%x "
				"[0, 4096)", on, modes[m]);
			CHECK(w, ext4_file_write(&w->fs, 0, 8192, 0x11, 8192, &written) == 0 &&
				 written == 8192, "write %s", "failed");
			CHECK(w, ext4_fallocate(&w->fs, modes[m], 0, 4096) == 0, "fallocate %s",
			      "failed");
			CHECK(w, w->fs.inode->i_size == 8192 && w->fs.inode->i_disksize == want,
			      "i_size %lld, i_disksize %lld; want 8192 and %lld",
			      (long long)w->fs.inode->i_size, (long long)w->fs.inode->i_disksize,
			      (long long)want);
			world_free(w);
		}
	}
}

/*
 * The zeroout of ext4_ext_convert_to_initialized (801674f34ecf,
 * scenarios/bugs/g456-zeroout-disksize.yaml): i_size 64 KiB + 1 with
 * i_disksize 0, a KEEP_SIZE preallocation of blocks 0-7, a write into
 * block 1 and its writeback (dioread_lock).  Bounded by i_size (before the
 * fix) the rest of the extent is zeroed and converted: blocks 1-7 written
 * while i_disksize is only raised to 8192, a written block past its EOF
 * block.  Bounded by i_disksize (or the range's end, block 2) the extent
 * is split: block 1 written, blocks 2-7 unwritten.
 */
static void test_inode__convert_zeroout_bounded_by_disksize(void **state)
{
	static const struct cfg cfg = { "4k_ordered_delalloc", 4096, DATA_ORDERED, true, false };

	(void)state;
	for (int on = 0; on < 2; on++) {
		struct world *w = world_new(&cfg, DISK_BLOCKS, 0);
		enum es_state want = on ? ES_UNWRITTEN : ES_WRITTEN;
		uint32_t pblk, len;
		int64_t written = 0;

		w->fs.sem.zeroout_disksize = on;
		set_ctx(w, "zeroout_disksize %d: write [65536, 65537), fallocate -k [0, 32768), "
			"write [4096, 8192), writeback [4096, 8192)", on);
		CHECK(w, ext4_file_write(&w->fs, 65536, 1, 0x11, 1, &written) == 0 &&
			 written == 1, "write %s", "failed");
		CHECK(w, ext4_fallocate(&w->fs, FALLOC_FL_KEEP_SIZE, 0, 32768) == 0,
		      "fallocate %s", "failed");
		CHECK(w, ext4_file_write(&w->fs, 4096, 4096, 0x22, 4096, &written) == 0 &&
			 written == 4096, "write %s", "failed");
		CHECK(w, ext4_writepages(&w->fs, 4096, 8191, WB_SYNC_ALL, true) == 0,
		      "writeback %s", "failed");
		ext4_wait_io_range(&w->fs, 4096, 8191);
		CHECK(w, es_lookup(&w->fs.inode->i_es, 1, &pblk, &len) == ES_WRITTEN,
		      "block 1 is %s, want written",
		      es_state_name(es_lookup(&w->fs.inode->i_es, 1, &pblk, &len)));
		CHECK(w, es_lookup(&w->fs.inode->i_es, 7, &pblk, &len) == want,
		      "block 7 is %s, want %s",
		      es_state_name(es_lookup(&w->fs.inode->i_es, 7, &pblk, &len)),
		      es_state_name(want));
		CHECK(w, w->fs.inode->i_disksize == 8192, "i_disksize %lld, want 8192",
		      (long long)w->fs.inode->i_disksize);
		world_free(w);
	}
}

/*
 * Stale data when the mapping loop bails out (ded2d726a304, scenarios/bugs/f7-*):
 * writeback of 16 delayed 1 KiB blocks whose allocation
 * gets 6 blocks and then an ENOSPC (inject enospc --after 6).  Either way
 * the retry after the forced commit (one commit) writes everything.  A
 * crash after the I/O recovers the forced commit's i_disksize: 4096 before
 * the fix (the end of folio 0), 6144 with it (blocks 4-5 submitted first).
 * The stale-data window is scenarios/bugs/f7-writeback-bailout-stale.yaml's.
 */
static void test_inode__writeback_enospc_after_first_extent(void **state)
{
	static const struct cfg cfg = { "1k_ordered_delalloc", 1024, DATA_ORDERED, true, false };

	(void)state;
	for (int on = 0; on < 2; on++) {
		struct world *w = world_new(&cfg, DISK_BLOCKS, 0);
		uint32_t tid;
		int64_t written = 0;

		w->fs.sem.wb_submit_partial_folio = on;
		set_ctx(w, "wb_submit_partial_folio %d: write 16384 at 0, inject enospc --after 6, "
			"writeback", on);
		CHECK(w, ext4_file_write(&w->fs, 0, 16384, 0x11, 16384, &written) == 0 &&
			 written == 16384, "write %s", "failed");
		tid = w->fs.journal.j_commit_sequence;
		ext4_fault_inject(&w->fs, EXT4_FAULT_ENOSPC, 6);
		CHECK(w, ext4_writepages(&w->fs, 0, INT64_MAX, WB_SYNC_ALL, true) == 0,
		      "writeback %s", "failed");
		CHECK(w, !w->fs.s_fault_enospc && !w->fs.s_fault_fired,
		      "the fault is still armed (%d) or not retried (%d)", w->fs.s_fault_enospc,
		      w->fs.s_fault_fired);
		CHECK(w, w->fs.journal.j_commit_sequence == tid + 1,
		      "the ENOSPC retry committed %u transaction(s), want 1",
		      w->fs.journal.j_commit_sequence - tid);
		CHECK(w, !any_folio_dirty(w) && es_count(&w->fs.inode->i_es, ES_DELAYED) == 0 &&
			 w->fs.inode->i_disksize == 16384, "left dirty folios or delayed blocks, "
		      "i_disksize %lld", (long long)w->fs.inode->i_disksize);
		ext4_wait_io_range(&w->fs, 0, INT64_MAX);
		crash_and_mount(w);
		/* the forced commit's i_disksize: before folio 1 (4096) or after block 5 */
		CHECK(w, w->fs.inode->i_size == (on ? 6144 : 4096), "recovered size %lld, want %d",
		      (long long)w->fs.inode->i_size, on ? 6144 : 4096);
		check_window(w, 0, on ? 6144 : 4096, 0x11);
		world_free(w);
	}
}

/*
 * An ENOSPC before any extent is mapped (inject enospc --after 0) returns
 * from the mapping loop at once; ext4_do_writepages commits and retries.
 */
static void test_inode__writeback_enospc_first_allocation_retries(void **state)
{
	static const struct cfg cfg = { "4k_ordered_delalloc", 4096, DATA_ORDERED, true, false };
	struct world *w = world_new(&cfg, DISK_BLOCKS, 0);
	int64_t written = 0;

	(void)state;
	set_ctx(w, "write 8192 at 0, inject enospc --after 0, fsync");
	CHECK(w, ext4_file_write(&w->fs, 0, 8192, 0x33, 8192, &written) == 0 && written == 8192,
	      "write %s", "failed");
	ext4_fault_inject(&w->fs, EXT4_FAULT_ENOSPC, 0);
	CHECK(w, ext4_sync_file(&w->fs, 0, INT64_MAX, false) == 0, "fsync %s", "failed");
	CHECK(w, es_count(&w->fs.inode->i_es, ES_DELAYED) == 0 && w->fs.inode->i_disksize == 8192,
	      "fsync left delayed blocks or i_disksize %lld", (long long)w->fs.inode->i_disksize);
	crash_and_mount(w);
	check_window(w, 0, 8192, 0x33);
	world_free(w);
}

/*
 * The two sequences of the io_end bug, run in a child process: no cmocka
 * assertion here (it would unwind into the child's copy of the runner).
 * Exit status 0: completed with the right bytes; 1: wrong bytes; 2: an
 * operation failed.
 */
static int child_io_end_sequence(bool truncate)
{
	struct ext4_mount_opts o = { .block_size = 1024, .data = DATA_ORDERED, .delalloc = true,
				     .dioread_nolock = true, .auto_da_alloc = true,
				     .disk_blocks = DISK_BLOCKS };
	const char *why = NULL;
	struct blkdev *bd = mke2fs_device(DISK_BLOCKS, 1024, &why);
	struct sim_counters c = { 0 };
	struct jbd2_recovery_info ri;
	struct ext4_fs fs;
	uint8_t want[8192], got[8192];
	int64_t written, size = truncate ? 4096 : 8192;
	int rc = 0;

	snprintf(g_ctx, sizeof(g_ctx), "child: write 8192 at 0, sync_file_range 'w', %s",
		 truncate ? "truncate to 4096" : "write 10 at 4096, fsync");
	if (!bd)
		return 2;
	if (ext4_fill_super(&fs, bd, &o, default_sem(), &c, &ri) != 0 ||
	    ext4_file_write(&fs, 0, 8192, 0x41, 8192, &written) != 0 || written != 8192 ||
	    ext4_sync_file_range(&fs, 0, 0, 'w') != 0)
		return 2;
	memset(want, 0x41, sizeof(want));
	if (truncate) {
		if (ext4_setattr_size(&fs, 4096) != 0)
			return 2;
	} else {
		if (ext4_file_write(&fs, 4096, 10, 0x42, 10, &written) != 0 || written != 10 ||
		    ext4_sync_file(&fs, 0, INT64_MAX, false) != 0)
			return 2;
		memset(want + 4096, 0x42, 10);
	}
	ext4_check_state(&fs);
	ext4_peek(&fs, 0, size, got);
	if (fs.inode->i_size != size || memcmp(got, want, (size_t)size) != 0)
		rc = 1;
	ext4_free_fs(&fs);
	blkdev_destroy(bd);
	return rc;
}

static void run_child(bool truncate, const char *what, const char *site)
{
	pid_t pid;
	int status = 0;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_io_end_sequence(truncate));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("BUG (model/ext4/page-io.c ext4_wait_io_range): %s aborted with signal %d: "
			 "a folio whose bio is complete stays under writeback because its "
			 "unwritten io_end still has a bio outside the waited range (%s)", what,
			 WTERMSIG(status), site);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * Regression test for a model bug this file found (fixed in 87e05b4,
 * model/ext4/page-io.c ext4_wait_io_range): with dioread_nolock, waiting for
 * the writeback of one folio whose bio belongs to an unwritten io_end that
 * also has bios for folios outside the wait left that folio under
 * writeback (the io_end converts and ends writeback only when its last bio
 * completes), and the model aborted: "!(f->flags & PG_writeback)" in
 * wait_folio_writeback() (fsync meeting a folio under writeback) and in
 * filemap_remove_folio() (truncate_pagecache()).  The sequences run in a
 * child process so that an abort fails this test only.
 *   ext4sim run -c 'pwrite -S 0x41 0 8192' -c 'sync_range -w 0 0'
 *     -c 'pwrite -S 0x42 4096 10' -c fsync
 *   ext4sim run -c 'pwrite -S 0x41 0 8192' -c 'sync_range -w 0 0' -c 'truncate 4096'
 */
static void test_inode__dioread_nolock_wait_for_folio_sharing_an_io_end(void **state)
{
	(void)state;
	run_child(false, "write, sync_file_range 'w', write into the second folio, fsync",
		  "model/ext4/writepages.c wait_folio_writeback");
	run_child(true, "write, sync_file_range 'w', truncate to the first folio",
		  "model/mm/filemap.c filemap_remove_folio from truncate_pagecache");
}

/* One delalloc write at @pos of @len bytes; the counter's growth. */
static uint64_t disksize_calls_of_write(struct ext4_fs *fs, struct sim_counters *c,
					int64_t pos, int64_t len)
{
	uint64_t before = c->update_i_disksize_calls;
	int64_t written;

	assert_int_equal(ext4_file_write(fs, pos, len, 0x33, len, &written), 0);
	assert_int_equal(written, len);
	ext4_check_state(fs);
	return c->update_i_disksize_calls - before;
}

/*
 * update_i_disksize_calls counts ext4_update_i_disksize(), where delalloc
 * write_end raises i_disksize in a block already on disk.  4 KiB blocks on
 * @profile (with 4df031ff5876 forced to @disksize_vs_isize): 10 bytes
 * fsynced (writeback raises i_disksize: 1 call), 10 more inside the
 * written block 0 past i_size (1 call on every kernel), 4 KiB delayed at
 * 8 KiB (none), then 10 bytes at 30, in block 0, past i_disksize (20) but
 * inside i_size: before 4df031ff5876 write_end compared with i_disksize
 * and raised it to 40 (1 call); after it, with i_size, and left it (0).
 */
static void disksize_calls_on(const char *profile, bool disksize_vs_isize)
{
	struct ext4_mount_opts o = { .block_size = 4096, .data = DATA_ORDERED, .delalloc = true,
				     .dioread_nolock = true, .auto_da_alloc = true,
				     .disk_blocks = DISK_BLOCKS };
	const char *why = NULL;
	struct blkdev *bd = mke2fs_device(DISK_BLOCKS, 4096, &why);
	struct ext4_semantics sem;
	struct sim_counters c = { 0 };
	struct jbd2_recovery_info ri;
	struct ext4_fs fs;

	snprintf(g_ctx, sizeof(g_ctx), "update_i_disksize_calls on %s, da_disksize_vs_isize %d",
		 profile, disksize_vs_isize);
	assert_non_null(ext4_profile_find(profile));
	ext4_profile_semantics(ext4_profile_find(profile), &sem);
	ext4_toggle_set(&sem, ext4_toggle_find("da_disksize_vs_isize"), disksize_vs_isize);
	assert_non_null(bd);
	assert_int_equal(ext4_fill_super(&fs, bd, &o, &sem, &c, &ri), 0);
	assert_int_equal(disksize_calls_of_write(&fs, &c, 0, 10), 0);
	assert_int_equal(ext4_sync_file(&fs, 0, INT64_MAX, false), 0);
	assert_int_equal(c.update_i_disksize_calls, 1);
	assert_int_equal(fs.inode->i_disksize, 10);
	assert_int_equal(disksize_calls_of_write(&fs, &c, 10, 10), 1);
	assert_int_equal(fs.inode->i_disksize, 20);
	assert_int_equal(disksize_calls_of_write(&fs, &c, 8192, 4096), 0);
	assert_int_equal(fs.inode->i_size, 12288);
	assert_int_equal(disksize_calls_of_write(&fs, &c, 30, 10), disksize_vs_isize ? 0 : 1);
	assert_int_equal(fs.inode->i_disksize, disksize_vs_isize ? 20 : 40);
	ext4_free_fs(&fs);
	blkdev_destroy(bd);
}

static void test_inode__update_i_disksize_calls_delalloc_write_end(void **state)
{
	(void)state;
	disksize_calls_on("4.19", false);
	disksize_calls_on("4.19", true);
	disksize_calls_on("5.14", false);
	disksize_calls_on("5.15", true);
	disksize_calls_on("6.18", true);
}

/* A SIM_ASSERT in the model aborts the binary: say where it happened. */
static void on_abort(int sig)
{
	static const char pre[] = "test_inode: model assertion at ";
	size_t n = strnlen(g_ctx, sizeof(g_ctx));

	if (write(STDERR_FILENO, pre, sizeof(pre) - 1) < 0 || write(STDERR_FILENO, g_ctx, n) < 0 ||
	    write(STDERR_FILENO, "\n", 1) < 0)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_teardown(fn, free_leftover_world)
		T(test_inode__random_1k_ordered_delalloc),
		T(test_inode__random_1k_ordered_delalloc_dioread_nolock),
		T(test_inode__random_1k_ordered_nodelalloc),
		T(test_inode__random_1k_writeback_delalloc),
		T(test_inode__random_1k_writeback_delalloc_dioread_nolock),
		T(test_inode__random_1k_journal),
		T(test_inode__random_2k_ordered_delalloc),
		T(test_inode__random_2k_ordered_delalloc_dioread_nolock),
		T(test_inode__random_2k_ordered_nodelalloc),
		T(test_inode__random_2k_writeback_delalloc),
		T(test_inode__random_2k_writeback_delalloc_dioread_nolock),
		T(test_inode__random_2k_journal),
		T(test_inode__random_4k_ordered_delalloc),
		T(test_inode__random_4k_ordered_delalloc_dioread_nolock),
		T(test_inode__random_4k_ordered_nodelalloc),
		T(test_inode__random_4k_writeback_delalloc),
		T(test_inode__random_4k_writeback_delalloc_dioread_nolock),
		T(test_inode__random_4k_journal),
		T(test_inode__write_at_1tib_is_sparse),
		T(test_inode__efbig_at_max_size),
		T(test_inode__enospc_fill_reads_back_and_fsyncs),
		T(test_inode__fsync_delalloc_leaves_only_written_extents),
		T(test_inode__fsync_after_a_short_allocation_writes_every_folio),
		T(test_inode__fallback_write_into_unwritten_block),
		T(test_inode__falloc_below_isize_raises_disksize),
		T(test_inode__convert_zeroout_bounded_by_disksize),
		T(test_inode__writeback_enospc_after_first_extent),
		T(test_inode__writeback_enospc_first_allocation_retries),
		T(test_inode__dioread_nolock_wait_for_folio_sharing_an_io_end),
		T(test_inode__update_i_disksize_calls_delalloc_write_end),
#undef T
	};

	signal(SIGABRT, on_abort);
	return cmocka_run_group_tests_name("inode", tests, NULL, NULL);
}
