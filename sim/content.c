/*
 * content.c - a file's content as a reader sees it, sparse, and where two
 * contents differ (see content.h).  The pages read are those the page cache
 * holds and those an extent maps; every other page reads zero and is
 * neither hashed nor kept, so a 1 TiB sparse file costs what its data does.
 */
#include "content.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

/* The first page at or after @p that a folio or an extent covers; INT64_MAX: none. */
static int64_t next_page(const struct ext4_fs *fs, int64_t p, uint32_t *fi, uint32_t *ei)
{
	const struct address_space *m = &fs->inode->i_mapping;
	const struct ext4_es_tree *t = &fs->inode->i_es;
	uint32_t bits = ext4_blkbits(fs);
	int64_t best = INT64_MAX;

	while (*fi < m->a_nr && (int64_t)m->a_folios[*fi]->index < p)
		(*fi)++;
	if (*fi < m->a_nr)
		best = (int64_t)m->a_folios[*fi]->index;
	while (*ei < t->es_nr &&
	       ((((int64_t)t->es[*ei].es_lblk + t->es[*ei].es_len) << bits) - 1) >> PAGE_SHIFT < p)
		(*ei)++;
	if (*ei < t->es_nr) {
		int64_t first = ((int64_t)t->es[*ei].es_lblk << bits) >> PAGE_SHIFT;

		best = SIM_MIN(best, SIM_MAX(first, p));
	}
	return best;
}

static bool all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

void sim_content_capture(const struct ext4_fs *fs, bool keep, struct sim_content *c)
{
	int64_t size = fs->inode->i_size, last = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	uint8_t *buf = sim_zalloc(PAGE_SIZE), rec[8], d[32];
	uint32_t fi = 0, ei = 0;
	struct sha256 h;

	memset(c, 0, sizeof(*c));
	c->size = size;
	sha256_init(&h);
	put_le64(rec, (uint64_t)size);
	sha256_update(&h, rec, sizeof(rec));
	for (int64_t p = next_page(fs, 0, &fi, &ei); p < last; p = next_page(fs, p + 1, &fi, &ei)) {
		int64_t n = SIM_MIN((int64_t)PAGE_SIZE, size - (p << PAGE_SHIFT));

		memset(buf, 0, PAGE_SIZE);
		ext4_peek(fs, p << PAGE_SHIFT, n, buf);
		if (all_zero(buf, PAGE_SIZE))
			continue;
		put_le64(rec, (uint64_t)p);
		sha256_update(&h, rec, sizeof(rec));
		sha256_update(&h, buf, PAGE_SIZE);
		if (!keep)
			continue;
		if (c->nr == CONTENT_PAGES_MAX) {
			c->truncated = true;
			continue;
		}
		c->pages = realloc(c->pages, (c->nr + 1) * sizeof(*c->pages));
		SIM_ASSERT(c->pages != NULL);
		c->pages[c->nr].index = p;
		c->pages[c->nr].bytes = sim_zalloc(PAGE_SIZE);
		memcpy(c->pages[c->nr++].bytes, buf, PAGE_SIZE);
	}
	free(buf);
	sha256_final(&h, d);
	sha256_hex(d, c->sha256);
}

void sim_content_free(struct sim_content *c)
{
	for (uint32_t i = 0; i < c->nr; i++)
		free(c->pages[i].bytes);
	free(c->pages);
	memset(c, 0, sizeof(*c));
}

/* The byte at @off of @c (zero where no page is kept); *@k is a cursor into its pages. */
static uint8_t byte_at(const struct sim_content *c, int64_t off, uint32_t *k)
{
	int64_t p = off >> PAGE_SHIFT;

	while (*k < c->nr && c->pages[*k].index < p)
		(*k)++;
	if (*k < c->nr && c->pages[*k].index == p)
		return c->pages[*k].bytes[off & (PAGE_SIZE - 1)];
	return 0;
}

/*
 * The end of the run of equal bytes of @c that starts at @o, at most @e:
 * a page not kept reads zero and is passed whole, and the bytes at or past
 * @c's size are one run (past EOF) however long.
 */
static int64_t run_end(const struct sim_content *c, int64_t o, int64_t e, uint32_t *k)
{
	uint8_t b;
	int64_t n = o;

	if (o >= c->size)
		return e;
	e = SIM_MIN(e, c->size);
	b = byte_at(c, o, k);
	while (n < e) {
		int64_t p = n >> PAGE_SHIFT;

		while (*k < c->nr && c->pages[*k].index < p)
			(*k)++;
		if (b == 0 && (*k == c->nr || c->pages[*k].index != p)) {
			n = SIM_MIN(e, (p + 1) << PAGE_SHIFT);   /* a page that reads zero */
			continue;
		}
		if (byte_at(c, n, k) != b)
			break;
		n++;
	}
	return n;
}

/*
 * [s, e) of @c as runs of one byte: "0x11 x16, 0x00 x16" (at most 4 runs,
 * then "..."); the bytes at or past @c's size as "past EOF" (they are not
 * in the file, not zeros).
 */
static void runs_text(const struct sim_content *c, int64_t s, int64_t e, char *out, size_t cap)
{
	uint32_t k = 0;
	size_t used = 0;
	unsigned nr = 0;

	out[0] = 0;
	for (int64_t o = s; o < e && used < cap;) {
		uint8_t b = o < c->size ? byte_at(c, o, &k) : 0;
		int64_t end = run_end(c, o, e, &k), n = end - o;

		if (nr++ == 4) {
			snprintf(out + used, cap - used, ", ...");
			return;
		}
		if (o >= c->size)
			used += (size_t)snprintf(out + used, cap - used, "%spast EOF", nr > 1 ? ", " : "");
		else
			used += (size_t)snprintf(out + used, cap - used, "%s0x%02x", nr > 1 ? ", " : "", b);
		if (n != e - s && used < cap)
			used += (size_t)snprintf(out + used, cap - used, " x%lld", (long long)n);
		o = end;
	}
}

/* The next page index at or after @p that either side keeps; INT64_MAX: none. */
static int64_t next_kept(const struct sim_content *a, const struct sim_content *b, int64_t p,
			 uint32_t *ka, uint32_t *kb)
{
	int64_t best = INT64_MAX;

	while (*ka < a->nr && a->pages[*ka].index < p)
		(*ka)++;
	while (*kb < b->nr && b->pages[*kb].index < p)
		(*kb)++;
	if (*ka < a->nr)
		best = a->pages[*ka].index;
	if (*kb < b->nr)
		best = SIM_MIN(best, b->pages[*kb].index);
	return best;
}

/* Append one line to @out (at most @max_lines shown); counts it in *@n. */
static void add_line(char *out, size_t cap, unsigned max_lines, unsigned *n, const char *line)
{
	size_t used = strlen(out);

	if ((*n)++ < max_lines && used < cap)
		snprintf(out + used, cap - used, "%s\n", line);
}

static void add_range(const struct sim_content *a, const struct sim_content *b, int64_t s,
		      int64_t e, char *out, size_t cap, unsigned max_lines, unsigned *n)
{
	char x[160], y[160], line[400];

	runs_text(a, s, e, x, sizeof(x));
	runs_text(b, s, e, y, sizeof(y));
	snprintf(line, sizeof(line), "[%lld, %lld): %s | %s", (long long)s, (long long)e, x, y);
	add_line(out, cap, max_lines, n, line);
}

unsigned sim_content_diff(const struct sim_content *a, const struct sim_content *b,
			  unsigned max_lines, char *out, size_t cap)
{
	int64_t lim = SIM_MIN(a->size, b->size), start = -1, prev_end = 0;
	uint32_t ka = 0, kb = 0, ca = 0, cb = 0;
	unsigned n = 0;
	char line[160];

	out[0] = 0;
	if (a->size != b->size) {
		snprintf(line, sizeof(line), "size %lld | %lld", (long long)a->size,
			 (long long)b->size);
		add_line(out, cap, max_lines, &n, line);
	}
	for (int64_t p = next_kept(a, b, 0, &ka, &kb); p != INT64_MAX && (p << PAGE_SHIFT) < lim;
	     p = next_kept(a, b, p + 1, &ka, &kb)) {
		int64_t end = SIM_MIN(lim, (p + 1) << PAGE_SHIFT);

		if (start >= 0 && prev_end < (p << PAGE_SHIFT)) {      /* equal zero pages between */
			add_range(a, b, start, prev_end, out, cap, max_lines, &n);
			start = -1;
		}
		for (int64_t o = p << PAGE_SHIFT; o < end; o++) {
			bool differ = byte_at(a, o, &ca) != byte_at(b, o, &cb);

			if (differ && start < 0)
				start = o;
			if (!differ && start >= 0) {
				add_range(a, b, start, o, out, cap, max_lines, &n);
				start = -1;
			}
		}
		prev_end = end;
	}
	if (start >= 0)
		add_range(a, b, start, prev_end, out, cap, max_lines, &n);
	if (a->size != b->size)         /* past one side's EOF: every byte differs */
		add_range(a, b, lim, SIM_MAX(a->size, b->size), out, cap, max_lines, &n);
	if (n == 0 && strcmp(a->sha256, b->sha256))
		add_line(out, cap, max_lines, &n, "(they differ past the first 16 MiB kept)");
	if (n > max_lines) {
		size_t used = strlen(out);

		snprintf(out + used, cap - used, "... %u more range(s)\n", n - max_lines);
	}
	return n;
}
