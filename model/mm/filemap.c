/*
 * filemap.c - the page cache (see filemap.h).  A sorted array of folio
 * pointers, so memory follows the folios that exist and a write at 1 TiB
 * costs one folio.
 */
#include "filemap.h"

#include <stdlib.h>
#include <string.h>

void mapping_init(struct address_space *m, uint32_t blocksize)
{
	memset(m, 0, sizeof(*m));
	SIM_ASSERT(blocksize == 1024 || blocksize == 2048 || blocksize == 4096);
	m->a_blocksize = blocksize;
	m->a_blkbits = blocksize == 1024 ? 10 : blocksize == 2048 ? 11 : 12;
}

void mapping_destroy(struct address_space *m)
{
	for (uint32_t i = 0; i < m->a_nr; i++)
		free(m->a_folios[i]);
	free(m->a_folios);
	m->a_folios = NULL;
	m->a_nr = m->a_cap = 0;
}

void mapping_clone(struct address_space *dst, const struct address_space *src)
{
	*dst = *src;
	dst->a_folios = sim_dup_array(src->a_folios, src->a_nr, src->a_cap, sizeof(*src->a_folios));
	for (uint32_t i = 0; i < dst->a_nr; i++) {
		dst->a_folios[i] = sim_dup_array(src->a_folios[i], 1, 1, sizeof(struct folio));
		dst->a_folios[i]->mapping = dst;
	}
}

unsigned folio_nr_buffers(const struct address_space *m)
{
	return PAGE_SIZE / m->a_blocksize;
}

uint32_t filemap_first_at(const struct address_space *m, uint64_t index)
{
	uint32_t lo = 0, hi = m->a_nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->a_folios[mid]->index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct folio *filemap_get_folio(const struct address_space *m, uint64_t index)
{
	uint32_t i = filemap_first_at(m, index);

	if (i < m->a_nr && m->a_folios[i]->index == index)
		return m->a_folios[i];
	return NULL;
}

struct folio *filemap_grab_folio(struct address_space *m, uint64_t index)
{
	uint32_t i = filemap_first_at(m, index);
	struct folio *f;

	if (i < m->a_nr && m->a_folios[i]->index == index)
		return m->a_folios[i];
	if (m->a_nr == m->a_cap) {
		m->a_cap = m->a_cap ? 2 * m->a_cap : 16;
		m->a_folios = sim_realloc_array(m->a_folios, m->a_cap, sizeof(*m->a_folios));
	}
	f = sim_zalloc(sizeof(*f));
	f->mapping = m;
	f->index = index;
	memset(f->data, FOLIO_FRESH_FILL, sizeof(f->data));   /* not zeroed */
	EV_RECORD(m->a_events, EV_FOLIO_CREATE, "filemap_grab_folio", (int64_t)index, 0, 0, 0);
	memmove(&m->a_folios[i + 1], &m->a_folios[i], (m->a_nr - i) * sizeof(*m->a_folios));
	m->a_folios[i] = f;
	m->a_nr++;
	return f;
}

void filemap_remove_folio(struct address_space *m, struct folio *f)
{
	uint32_t i = filemap_first_at(m, f->index);

	SIM_ASSERT(i < m->a_nr);
	SIM_ASSERT(m->a_folios[i] == f);
	SIM_ASSERT(!(f->flags & PG_writeback));
	EV_RECORD(m->a_events, EV_FOLIO_DROP, "filemap_remove_folio", (int64_t)f->index, 0, 0, 0);
	memmove(&m->a_folios[i], &m->a_folios[i + 1], (m->a_nr - i - 1) * sizeof(*m->a_folios));
	m->a_nr--;
	free(f);
}

/* Attach buffers; an uptodate folio gets uptodate buffers. */
void create_empty_buffers(const struct address_space *m, struct folio *f)
{
	if (f->flags & PG_buffers)
		return;
	for (unsigned i = 0; i < folio_nr_buffers(m); i++) {
		f->bh[i].b_state = (f->flags & PG_uptodate) ? BH_Uptodate : 0;
		f->bh[i].b_blocknr = 0;
	}
	f->flags |= PG_buffers;
}

void folio_zero_segment(struct folio *f, uint32_t start, uint32_t end)
{
	SIM_ASSERT(start <= end);
	SIM_ASSERT(end <= PAGE_SIZE);
	memset(f->data + start, 0, end - start);
}

/* mapping_tagged(mapping, PAGECACHE_TAG_DIRTY): a dirty folio anywhere in the file. */
bool mapping_tagged_dirty(const struct address_space *m)
{
	for (uint32_t i = 0; i < m->a_nr; i++)
		if (m->a_folios[i]->flags & PG_dirty)
			return true;
	return false;
}

void folio_mark_dirty(struct folio *f)
{
	if (!(f->flags & PG_dirty))
		EV_RECORD(f->mapping->a_events, EV_FOLIO_DIRTY, "folio_mark_dirty",
			  (int64_t)f->index, 0, 0, 0);
	f->flags |= PG_dirty;
}

void folio_clear_dirty_for_io(struct folio *f)
{
	if (f->flags & PG_dirty)
		EV_RECORD(f->mapping->a_events, EV_FOLIO_CLEAN, "folio_clear_dirty_for_io",
			  (int64_t)f->index, 0, 0, 0);
	f->flags &= (uint8_t)~(PG_dirty | PG_mkwrite);
}

void block_dirty_folio(const struct address_space *m, struct folio *f)
{
	if (f->flags & PG_buffers)
		for (unsigned i = 0; i < folio_nr_buffers(m); i++)
			f->bh[i].b_state |= BH_Dirty;
	folio_mark_dirty(f);
}

void mark_buffer_dirty(struct folio *f, unsigned i)
{
	SIM_ASSERT(f->flags & PG_buffers);
	f->bh[i].b_state |= BH_Dirty;
	folio_mark_dirty(f);
}

bool folio_all_buffers(const struct address_space *m, const struct folio *f,
		       uint16_t bit)
{
	for (unsigned i = 0; i < folio_nr_buffers(m); i++)
		if (!(f->bh[i].b_state & bit))
			return false;
	return true;
}

bool folio_any_buffer(const struct address_space *m, const struct folio *f,
		      uint16_t bit)
{
	for (unsigned i = 0; i < folio_nr_buffers(m); i++)
		if (f->bh[i].b_state & bit)
			return true;
	return false;
}

/* The events of a change of @f's summary bits from @old. */
static void summary_events(const struct address_space *m, const struct folio *f, uint8_t old)
{
	uint8_t changed = (uint8_t)(old ^ f->flags);

	if (changed & PG_dirty)
		ev_record(m->a_events, f->flags & PG_dirty ? EV_FOLIO_DIRTY : EV_FOLIO_CLEAN,
			  f->flags & PG_dirty ? "folio_mark_dirty" : "folio_cancel_dirty",
			  (int64_t)f->index, 0, 0, 0);
	if (changed & PG_writeback)
		ev_record(m->a_events, f->flags & PG_writeback ? EV_FOLIO_WRITEBACK : EV_FOLIO_WB_END,
			  f->flags & PG_writeback ? "folio_start_writeback" : "folio_end_writeback",
			  (int64_t)f->index, 0, 0, 0);
}

void folio_update_summary(const struct address_space *m, struct folio *f)
{
	uint8_t old = f->flags;

	if (!(f->flags & PG_buffers))
		return;
	if (folio_any_buffer(m, f, BH_Dirty | BH_JBDDirty))
		f->flags |= PG_dirty;
	else
		f->flags &= (uint8_t)~PG_dirty;
	if (folio_any_buffer(m, f, BH_Async_Write))
		f->flags |= PG_writeback;
	else
		f->flags &= (uint8_t)~PG_writeback;
	if (m->a_events)
		summary_events(m, f, old);
}

void folio_check(const struct address_space *m, const struct folio *f)
{
	if (!(f->flags & PG_buffers))
		return;
	for (unsigned i = 0; i < folio_nr_buffers(m); i++) {
		uint16_t s = f->bh[i].b_state;

		if (s & BH_Delay) {
			SIM_ASSERT(s & BH_Mapped);
			SIM_ASSERT(!(s & BH_Unwritten));
		}
		if (s & BH_Dirty)
			SIM_ASSERT(f->flags & PG_dirty);
	}
	if (f->flags & PG_uptodate)
		SIM_ASSERT(folio_all_buffers(m, f, BH_Uptodate));
}
