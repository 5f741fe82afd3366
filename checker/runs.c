/*
 * runs.c - the run-list file reference (see runs.h).  Runs are sorted and
 * disjoint; a run is found by binary search and a fill merges with equal
 * neighbours, so a write or a read costs O(log n) plus the runs it touches
 * (n the runs, not the bytes; sequential writes of one byte make one run).
 */
#include "runs.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"

void runs_init(struct runs *rs)
{
	memset(rs, 0, sizeof(*rs));
}

void runs_destroy(struct runs *rs)
{
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

void runs_copy(struct runs *dst, const struct runs *src)
{
	runs_init(dst);
	dst->cap = src->nr ? src->nr : 1;
	dst->r = sim_realloc_array(NULL, dst->cap, sizeof(*dst->r));
	if (src->nr)
		memcpy(dst->r, src->r, src->nr * sizeof(*src->r));
	dst->nr = src->nr;
	dst->size = src->size;
}

static void insert_run(struct runs *rs, uint32_t i, struct run r)
{
	if (rs->nr == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 16;
		rs->r = sim_realloc_array(rs->r, rs->cap, sizeof(*rs->r));
	}
	memmove(&rs->r[i + 1], &rs->r[i], (rs->nr - i) * sizeof(*rs->r));
	rs->r[i] = r;
	rs->nr++;
}

static void delete_run(struct runs *rs, uint32_t i)
{
	memmove(&rs->r[i], &rs->r[i + 1], (rs->nr - i - 1) * sizeof(*rs->r));
	rs->nr--;
}

/* The first run that ends after @off (rs->nr if none). */
static uint32_t first_after(const struct runs *rs, int64_t off)
{
	uint32_t lo = 0, hi = rs->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rs->r[mid].r_off + rs->r[mid].r_len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Remove [off, off+len) from the runs, splitting at the edges. */
static uint32_t punch(struct runs *rs, int64_t off, int64_t len)
{
	int64_t end = off + len;
	uint32_t i = first_after(rs, off);

	if (i < rs->nr && rs->r[i].r_off < off) {       /* split the first */
		struct run tail = rs->r[i];

		tail.r_len = tail.r_off + tail.r_len - off;
		tail.r_off = off;
		rs->r[i].r_len = off - rs->r[i].r_off;
		insert_run(rs, ++i, tail);
	}
	while (i < rs->nr && rs->r[i].r_off < end) {
		struct run *r = &rs->r[i];

		if (r->r_off + r->r_len <= end) {
			delete_run(rs, i);
			continue;
		}
		r->r_len = r->r_off + r->r_len - end;
		r->r_off = end;
		break;
	}
	return i;
}

void runs_fill(struct runs *rs, int64_t off, int64_t len, uint8_t byte)
{
	uint32_t i;

	SIM_ASSERT(off >= 0);
	SIM_ASSERT(len >= 0);
	if (len == 0)
		return;
	i = punch(rs, off, len);
	rs->size = SIM_MAX(rs->size, off + len);
	if (byte == 0)
		return;
	if (i > 0 && rs->r[i - 1].r_byte == byte && rs->r[i - 1].r_off + rs->r[i - 1].r_len == off) {
		rs->r[i - 1].r_len += len;              /* merge with the run before */
		if (i < rs->nr && rs->r[i].r_byte == byte && rs->r[i].r_off == off + len) {
			rs->r[i - 1].r_len += rs->r[i].r_len;
			delete_run(rs, i);
		}
		return;
	}
	if (i < rs->nr && rs->r[i].r_byte == byte && rs->r[i].r_off == off + len) {
		rs->r[i].r_off = off;                   /* merge with the run after */
		rs->r[i].r_len += len;
		return;
	}
	insert_run(rs, i, (struct run){ .r_off = off, .r_len = len, .r_byte = byte });
}

void runs_truncate(struct runs *rs, int64_t size)
{
	SIM_ASSERT(size >= 0);
	if (size < rs->size)
		punch(rs, size, rs->size - size);
	rs->size = size;
}

void runs_collapse(struct runs *rs, int64_t off, int64_t len)
{
	SIM_ASSERT(off >= 0 && len >= 0 && off + len <= rs->size);
	for (uint32_t i = punch(rs, off, len); i < rs->nr; i++)
		rs->r[i].r_off -= len;
	rs->size -= len;
}

void runs_insert(struct runs *rs, int64_t off, int64_t len)
{
	SIM_ASSERT(off >= 0 && len >= 0 && off <= rs->size);
	for (uint32_t i = punch(rs, off, 0); i < rs->nr; i++)
		rs->r[i].r_off += len;
	rs->size += len;
}

uint8_t runs_byte_at(const struct runs *rs, int64_t off)
{
	uint32_t lo = first_after(rs, off);

	if (lo < rs->nr && rs->r[lo].r_off <= off)
		return rs->r[lo].r_byte;
	return 0;
}

void runs_read(const struct runs *rs, int64_t off, int64_t len, uint8_t *out)
{
	memset(out, 0, (size_t)len);
	for (uint32_t i = first_after(rs, off); i < rs->nr && rs->r[i].r_off < off + len; i++) {
		const struct run *r = &rs->r[i];
		int64_t s = SIM_MAX(off, r->r_off), e = SIM_MIN(off + len, r->r_off + r->r_len);

		if (s < e)
			memset(out + (s - off), r->r_byte, (size_t)(e - s));
	}
}
