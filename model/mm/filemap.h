/*
 * filemap.h - the page cache of the one modelled file: folios of PAGE_SIZE
 * bytes with per-block buffer heads.  Mirrors the parts of mm/filemap.c,
 * mm/truncate.c and fs/buffer.c that the ext4 write path uses.
 *
 * Folio and buffer states (set -> cleared, by function):
 *   BH_Mapped    get_block maps the block        | truncate
 *   BH_New       get_block allocated/reserved it | block_commit_write
 *   BH_Delay     ext4_da_get_block_prep          | mpage_process_folio
 *   BH_Unwritten block over an unwritten extent  | mpage_process_folio
 *   BH_Uptodate  read, write, zeroing            | (invalidate)
 *   BH_Dirty     mark_buffer_dirty               | ext4_bio_write_folio
 *   BH_Async_Write  submitted for write          | ext4_end_io
 *   BH_JBDDirty  data=journal: in the running tx | commit (then BH_Dirty)
 *   PG_uptodate / PG_dirty / PG_writeback: folio-level summaries.
 *   PG_mkwrite   a store fault ran ->page_mkwrite and the mapping may store
 *                without another fault | writeback (folio_mkclean),
 *                pagecache_isize_extended, ext4_truncate_folio, commit of
 *                journaled data, munmap (close)
 * Invariants (folio_check): a folio is uptodate iff every buffer is; a
 * delayed buffer is mapped and not unwritten; a dirty folio has a dirty or
 * journaled buffer or none yet attached; memory follows the folios present.
 */
#ifndef EXT4SIM_FILEMAP_H
#define EXT4SIM_FILEMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "sim.h"

#define BH_Uptodate (1u << 0)
#define BH_Dirty (1u << 1)
#define BH_Mapped (1u << 2)
#define BH_New (1u << 3)
#define BH_Delay (1u << 4)
#define BH_Unwritten (1u << 5)
#define BH_Async_Write (1u << 6)
#define BH_JBDDirty (1u << 7)

#define PG_uptodate (1u << 0)
#define PG_dirty (1u << 1)
#define PG_writeback (1u << 2)
#define PG_buffers (1u << 3)
#define PG_mkwrite (1u << 4)    /* mapped writable: stores need no fault */

struct buffer_head {
	uint16_t b_state;
	uint32_t b_blocknr;
};

struct address_space;

/*
 * A folio the page cache allocates is not zeroed (no __GFP_ZERO): its bytes
 * are the page's previous user's until a read, a copy or a zeroing fills
 * them.  The model fills a new folio with the device's sentinel byte
 * (BLKDEV_SENTINEL), so that bytes no path filled show as stale data.
 */
#define FOLIO_FRESH_FILL 0xee

struct folio {
	struct address_space *mapping;
	uint64_t index;
	uint8_t flags;
	struct buffer_head bh[SIM_BLOCKS_PER_PAGE_MAX];
	uint8_t data[PAGE_SIZE];
};

struct address_space {
	struct folio **a_folios;        /* sorted by index */
	uint32_t a_nr;
	uint32_t a_cap;
	uint32_t a_blocksize;
	uint32_t a_blkbits;
	struct ev_log *a_events;        /* the run's event log (events.h), or NULL */
};

void mapping_init(struct address_space *m, uint32_t blocksize);
void mapping_destroy(struct address_space *m);
/* A deep copy of @src's folios into @dst (a forked world's page cache). */
void mapping_clone(struct address_space *dst, const struct address_space *src);
unsigned folio_nr_buffers(const struct address_space *m);

/* Lookup; NULL if absent. */
struct folio *filemap_get_folio(const struct address_space *m, uint64_t index);
/* Lookup or create an empty (not uptodate) folio: __filemap_get_folio(FGP_CREAT). */
struct folio *filemap_grab_folio(struct address_space *m, uint64_t index);
/* Position of the first folio with index >= @index (for walks). */
uint32_t filemap_first_at(const struct address_space *m, uint64_t index);
void filemap_remove_folio(struct address_space *m, struct folio *f);

void create_empty_buffers(const struct address_space *m, struct folio *f);
void folio_zero_segment(struct folio *f, uint32_t start, uint32_t end);
bool mapping_tagged_dirty(const struct address_space *m);
void folio_mark_dirty(struct folio *f);
/* folio_clear_dirty_for_io(): not dirty, write-protected, about to be written. */
void folio_clear_dirty_for_io(struct folio *f);
/* block_dirty_folio(): dirty the folio and every buffer it has. */
void block_dirty_folio(const struct address_space *m, struct folio *f);
void mark_buffer_dirty(struct folio *f, unsigned i);
bool folio_all_buffers(const struct address_space *m, const struct folio *f,
		       uint16_t bit);
bool folio_any_buffer(const struct address_space *m, const struct folio *f,
		      uint16_t bit);
/* Recompute PG_dirty / PG_writeback from the buffers. */
void folio_update_summary(const struct address_space *m, struct folio *f);
void folio_check(const struct address_space *m, const struct folio *f);

#endif
