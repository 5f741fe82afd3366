/*
 * nsnap.c - a namespace snapshot (see nsnap.h): building, sorting, finding,
 * keying, comparing and printing one.  Nothing here reads a memory address
 * into a result: sharing is told by the index of an inode's first path.
 */
#include "nsnap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A broken promise of a caller is a bug: stop with the expression. */
#define NSNAP_CHECK(e) ((e) ? (void)0 : nsnap_fail(#e, __LINE__))

static _Noreturn void nsnap_fail(const char *expr, int line)
{
	fprintf(stderr, "lib/nsnap.c:%d: assertion failed: %s\n", line, expr);
	abort();
}

static void *nsnap_alloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size);

	NSNAP_CHECK(p != NULL);
	return p;
}

/* An empty snapshot (no entries, nothing unreachable). */
void nsnap_init(struct nsnap *s)
{
	memset(s, 0, sizeof(*s));
}

/* Free the entries; @s is empty again (and may be reused). */
void nsnap_free(struct nsnap *s)
{
	free(s->ns_e);
	nsnap_init(s);
}

/* @dst (not initialised: its old contents are not freed) becomes a deep copy of @src. */
void nsnap_copy(struct nsnap *dst, const struct nsnap *src)
{
	*dst = *src;
	dst->ns_cap = src->ns_nr;
	dst->ns_e = nsnap_alloc(src->ns_nr, sizeof(*dst->ns_e));
	if (src->ns_nr)
		memcpy(dst->ns_e, src->ns_e, src->ns_nr * sizeof(*dst->ns_e));
}

/*
 * Append a copy of @e; -ENOSPC when @s already holds NSNAP_MAX_ENTRIES
 * (nothing changes then), else 0.  The path must be NUL-terminated inside
 * NSNAP_PATH_MAX and the type one of enum nsnap_type.
 */
int nsnap_add(struct nsnap *s, const struct nsnap_entry *e)
{
	NSNAP_CHECK(memchr(e->ne_path, '\0', NSNAP_PATH_MAX) != NULL);
	NSNAP_CHECK(memchr(e->ne_target, '\0', NSNAP_TARGET_MAX) != NULL);
	NSNAP_CHECK(e->ne_type == NSNAP_REG || e->ne_type == NSNAP_DIR || e->ne_type == NSNAP_LNK);
	if (s->ns_nr >= NSNAP_MAX_ENTRIES)
		return -ENOSPC;
	if (s->ns_nr == s->ns_cap) {
		uint32_t cap = s->ns_cap ? s->ns_cap * 2 : 16;
		struct nsnap_entry *n = realloc(s->ns_e, (size_t)cap * sizeof(*n));

		NSNAP_CHECK(n != NULL);
		s->ns_e = n;
		s->ns_cap = cap;
	}
	s->ns_e[s->ns_nr++] = *e;
	return 0;
}

/*
 * Record inode @ino as in use and reached by no name: the first
 * NSNAP_MAX_UNREACHABLE are listed (the caller adds them ascending), every
 * one is counted in ns_nr_unreachable.
 */
void nsnap_add_unreachable(struct nsnap *s, uint32_t ino)
{
	if (s->ns_nr_unreachable < NSNAP_MAX_UNREACHABLE) {
		NSNAP_CHECK(s->ns_nr_unreachable == 0 ||
			    s->ns_unreachable[s->ns_nr_unreachable - 1] < ino);
		s->ns_unreachable[s->ns_nr_unreachable] = ino;
	}
	s->ns_nr_unreachable++;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct nsnap_entry *x = a, *y = b;

	return strcmp(x->ne_path, y->ne_path);
}

/* Sort the entries by path (strcmp); two entries of one path are a caller's bug. */
void nsnap_sort(struct nsnap *s)
{
	if (s->ns_nr > 1)
		qsort(s->ns_e, s->ns_nr, sizeof(*s->ns_e), entry_cmp);
	for (uint32_t i = 1; i < s->ns_nr; i++)
		NSNAP_CHECK(strcmp(s->ns_e[i - 1].ne_path, s->ns_e[i].ne_path) < 0);
}

/* The entry of @path in sorted @s (a binary search), or NULL. */
const struct nsnap_entry *nsnap_find(const struct nsnap *s, const char *path)
{
	uint32_t lo = 0, hi = s->ns_nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->ns_e[mid].ne_path, path);

		if (c == 0)
			return &s->ns_e[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* How many entries of @s name inode @ino. */
uint32_t nsnap_names_of(const struct nsnap *s, uint32_t ino)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->ns_nr; i++)
		n += s->ns_e[i].ne_ino == ino;
	return n;
}

struct ino_at {
	uint32_t ino;
	uint32_t idx;
};

static int ino_at_cmp(const void *a, const void *b)
{
	const struct ino_at *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * share[i]: the index of the first entry of sorted @s that names the same
 * inode as entry i (i itself for an inode's first path); the caller frees it.
 */
static uint32_t *share_index(const struct nsnap *s)
{
	struct ino_at *a = nsnap_alloc(s->ns_nr, sizeof(*a));
	uint32_t *share = nsnap_alloc(s->ns_nr, sizeof(*share));

	for (uint32_t i = 0; i < s->ns_nr; i++)
		a[i] = (struct ino_at){ s->ns_e[i].ne_ino, i };
	if (s->ns_nr > 1)
		qsort(a, s->ns_nr, sizeof(*a), ino_at_cmp);
	for (uint32_t i = 0, first = 0; i < s->ns_nr; i++) {
		if (i == 0 || a[i].ino != a[i - 1].ino)
			first = a[i].idx;
		share[a[i].idx] = first;
	}
	free(a);
	return share;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The digest of @m as ne_hash: bytes 0-7 and 8-15, little-endian. */
static void digest_words(struct md5 *m, uint64_t out[2])
{
	uint8_t d[16];

	md5_final(m, d);
	out[0] = out[1] = 0;
	for (int i = 7; i >= 0; i--) {
		out[0] = out[0] << 8 | d[i];
		out[1] = out[1] << 8 | d[8 + i];
	}
}

/* One entry into the key: every field but the inode number, which @share stands for. */
static void key_entry(struct md5 *m, const struct nsnap_entry *e, uint32_t share)
{
	uint8_t b[8 * 6];

	md5_update(m, e->ne_path, strlen(e->ne_path) + 1);
	md5_update(m, e->ne_target, strlen(e->ne_target) + 1);
	put64(b, e->ne_type);
	put64(b + 8, e->ne_nlink);
	put64(b + 16, (uint64_t)e->ne_size);
	put64(b + 24, e->ne_hash[0]);
	put64(b + 32, e->ne_hash[1]);
	put64(b + 40, share);
	md5_update(m, b, sizeof(b));
	if (e->ne_nr_xattrs == 0)
		return;                 /* the key of a namespace without attributes, unchanged */
	put64(b, e->ne_nr_xattrs);
	put64(b + 8, e->ne_xattr_hash[0]);
	put64(b + 16, e->ne_xattr_hash[1]);
	md5_update(m, b, 24);
}

/*
 * The 128-bit key of sorted @s (nsnap.h): MD5 over the entry count, each
 * entry (key_entry) and the unreachable and orphan counts.
 */
void nsnap_key(const struct nsnap *s, uint64_t key[2])
{
	uint32_t *share = share_index(s);
	struct md5 m;
	uint8_t b[24];

	md5_init(&m);
	put64(b, s->ns_nr);
	md5_update(&m, b, 8);
	for (uint32_t i = 0; i < s->ns_nr; i++)
		key_entry(&m, &s->ns_e[i], share[i]);
	put64(b + 8, s->ns_nr_unreachable);
	put64(b + 16, s->ns_nr_orphans);
	md5_update(&m, b + 8, 16);
	digest_words(&m, key);
	free(share);
}

static bool entry_same(const struct nsnap_entry *x, const struct nsnap_entry *y)
{
	return strcmp(x->ne_path, y->ne_path) == 0 && x->ne_type == y->ne_type &&
	       x->ne_nlink == y->ne_nlink && x->ne_size == y->ne_size &&
	       x->ne_hash[0] == y->ne_hash[0] && x->ne_hash[1] == y->ne_hash[1] &&
	       strcmp(x->ne_target, y->ne_target) == 0 && x->ne_nr_xattrs == y->ne_nr_xattrs &&
	       x->ne_xattr_hash[0] == y->ne_xattr_hash[0] &&
	       x->ne_xattr_hash[1] == y->ne_xattr_hash[1];
}

/* Are sorted @a and @b the same namespace, field by field as nsnap_key reads them? */
bool nsnap_equal(const struct nsnap *a, const struct nsnap *b)
{
	uint32_t *sa, *sb;
	bool same = a->ns_nr == b->ns_nr && a->ns_nr_unreachable == b->ns_nr_unreachable &&
		    a->ns_nr_orphans == b->ns_nr_orphans;

	if (!same)
		return false;
	sa = share_index(a);
	sb = share_index(b);
	for (uint32_t i = 0; i < a->ns_nr && same; i++)
		same = sa[i] == sb[i] && entry_same(&a->ns_e[i], &b->ns_e[i]);
	free(sa);
	free(sb);
	return same;
}

/* Append @line to @buf if it fits with room for "...\n" after it; false once it does not. */
static bool put_line(char *buf, size_t cap, size_t *used, const char *line)
{
	size_t n = strlen(line);

	if (*used + n + sizeof("...\n") > cap)
		return false;
	memcpy(buf + *used, line, n + 1);
	*used += n;
	return true;
}

static void entry_line(const struct nsnap_entry *e, char *line, size_t cap)
{
	int n = snprintf(line, cap, "%s %s ino %u nlink %u size %lld %016llx%016llx", e->ne_path,
			 nsnap_type_name(e->ne_type), e->ne_ino, e->ne_nlink,
			 (long long)e->ne_size, (unsigned long long)e->ne_hash[0],
			 (unsigned long long)e->ne_hash[1]);

	NSNAP_CHECK(n > 0 && (size_t)n < cap);
	if (e->ne_type == NSNAP_LNK)
		n += snprintf(line + n, cap - (size_t)n, " -> %s", e->ne_target);
	if (e->ne_nr_xattrs)
		n += snprintf(line + n, cap - (size_t)n, " xattrs %u %016llx%016llx",
			      e->ne_nr_xattrs, (unsigned long long)e->ne_xattr_hash[0],
			      (unsigned long long)e->ne_xattr_hash[1]);
	snprintf(line + n, cap - (size_t)n, "\n");
}

/* "unreachable 13 14 (2)\n" and "orphans 1\n" lines, only when there are any. */
static void tail_lines(const struct nsnap *s, char *line, size_t cap)
{
	size_t n = 0;
	uint32_t listed = s->ns_nr_unreachable < NSNAP_MAX_UNREACHABLE ? s->ns_nr_unreachable :
			  NSNAP_MAX_UNREACHABLE;

	line[0] = '\0';
	if (s->ns_nr_unreachable) {
		n += (size_t)snprintf(line + n, cap - n, "unreachable");
		for (uint32_t i = 0; i < listed; i++)
			n += (size_t)snprintf(line + n, cap - n, " %u", s->ns_unreachable[i]);
		n += (size_t)snprintf(line + n, cap - n, " (%u)\n", s->ns_nr_unreachable);
	}
	if (s->ns_nr_orphans)
		snprintf(line + n, cap - n, "orphans %u\n", s->ns_nr_orphans);
}

/*
 * The text of nsnap.h into @buf of @cap bytes (at least 5), NUL-terminated:
 * one line per entry (a link's target after " -> "), then an
 * "unreachable INO... (N)" and an "orphans N" line when there are any; cut
 * at a line's start with "...\n" when the rest does not fit.  Returns the
 * length written, the NUL not counted.
 */
size_t nsnap_text(const struct nsnap *s, char *buf, size_t cap)
{
	char line[NSNAP_PATH_MAX + NSNAP_TARGET_MAX + 128];
	char tail[NSNAP_MAX_UNREACHABLE * 11 + 64];
	size_t used = 0;
	bool fits = true;

	NSNAP_CHECK(cap >= sizeof("...\n"));
	buf[0] = '\0';
	for (uint32_t i = 0; i < s->ns_nr && fits; i++) {
		entry_line(&s->ns_e[i], line, sizeof(line));
		fits = put_line(buf, cap, &used, line);
	}
	tail_lines(s, tail, sizeof(tail));
	if (fits && used + strlen(tail) + 1 <= cap) {
		memcpy(buf + used, tail, strlen(tail) + 1);
		return used + strlen(tail);
	}
	memcpy(buf + used, "...\n", sizeof("...\n"));
	return used + 4;
}

static int xattr_cmp(const void *a, const void *b)
{
	return strcmp(((const struct nsnap_xattr *)a)->nx_name,
		      ((const struct nsnap_xattr *)b)->nx_name);
}

void nsnap_xattr_hash(struct nsnap_xattr *x, uint32_t n, uint64_t hash[2])
{
	struct md5 m;
	uint8_t b[8];

	hash[0] = hash[1] = 0;
	if (n == 0)
		return;
	qsort(x, n, sizeof(*x), xattr_cmp);
	md5_init(&m);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t nl = (uint32_t)strlen(x[i].nx_name);

		put64(b, nl);
		md5_update(&m, b, 4);
		md5_update(&m, x[i].nx_name, nl);
		put64(b, x[i].nx_len);
		md5_update(&m, b, 4);
		if (x[i].nx_len)
			md5_update(&m, x[i].nx_value, x[i].nx_len);
	}
	digest_words(&m, hash);
}

const char *nsnap_type_name(uint8_t type)
{
	switch (type) {
	case NSNAP_REG:
		return "reg";
	case NSNAP_DIR:
		return "dir";
	case NSNAP_LNK:
		return "lnk";
	default:
		return "?";
	}
}

void nsnap_hash_init(struct nsnap_hasher *h)
{
	md5_init(&h->nh_md5);
	h->nh_run = 0;
	h->nh_byte = 0;
}

/* The gathered run into the digest (length, then byte). */
static void hash_flush(struct nsnap_hasher *h)
{
	uint8_t b[9];

	if (!h->nh_run)
		return;
	put64(b, h->nh_run);
	b[8] = h->nh_byte;
	md5_update(&h->nh_md5, b, sizeof(b));
	h->nh_run = 0;
}

void nsnap_hash_fill(struct nsnap_hasher *h, uint8_t byte, uint64_t len)
{
	if (!len)
		return;
	if (h->nh_run && h->nh_byte != byte)
		hash_flush(h);
	h->nh_byte = byte;
	h->nh_run += len;
}

void nsnap_hash_update(struct nsnap_hasher *h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0, s = 0; i < len; i = s) {
		for (s = i + 1; s < len && p[s] == p[i]; s++)
			;
		nsnap_hash_fill(h, p[i], s - i);
	}
}

void nsnap_hash_final(struct nsnap_hasher *h, uint64_t hash[2])
{
	hash_flush(h);
	digest_words(&h->nh_md5, hash);
}

void nsnap_hash_bytes(const void *data, size_t len, uint64_t hash[2])
{
	struct nsnap_hasher h;

	nsnap_hash_init(&h);
	nsnap_hash_update(&h, data, len);
	nsnap_hash_final(&h, hash);
}
