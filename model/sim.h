/*
 * sim.h - what every model file shares: assertions, error codes, byte-order
 * helpers and the run counters.
 *
 * The model is single-threaded and deterministic: no clock, no randomness,
 * no stdio, no iteration in pointer or hash order.  Model bugs stop the
 * program through SIM_ASSERT; kernel-visible errors are negative errno values
 * returned up to the step that caused them.
 */
#ifndef EXT4SIM_SIM_H
#define EXT4SIM_SIM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

_Noreturn void sim_assert_fail(const char *expr, const char *file, int line);

/* One condition per assertion; reports file, line and expression. */
#define SIM_ASSERT(e) ((e) ? (void)0 : sim_assert_fail(#e, __FILE__, __LINE__))

#define PAGE_SHIFT 12
#define PAGE_SIZE (1u << PAGE_SHIFT)
#define SIM_BLOCKS_PER_PAGE_MAX 4       /* 1 KiB blocks in a 4 KiB page */

#define SIM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SIM_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Allocation that cannot fail: the model treats host OOM as fatal. */
void *sim_zalloc(size_t size);
void *sim_realloc_array(void *ptr, size_t nmemb, size_t size);
/* A new array of capacity @cap holding @src's first @n elements (NULL when @cap is 0). */
void *sim_dup_array(const void *src, size_t n, size_t cap, size_t size);

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* Where a folio lock was taken; counted when a jbd2 handle is open. */
enum sim_lock_site {
	SITE_WRITE_BEGIN,       /* ext4_write_begin / ext4_da_write_begin */
	SITE_WRITEPAGES,        /* mpage_prepare_extent_to_map */
	SITE_ZERO_PARTIAL,      /* ext4_block_zero_page_range (truncate, zero) */
	SITE_ISIZE_EXT,         /* pagecache_isize_extended */
	SITE_READ,              /* filemap_read / ext4_read_folio */
	SITE_PAGE_MKWRITE,      /* ext4_page_mkwrite / block_page_mkwrite */
	SITE_COUNT
};

/* Counters kept for every run (docs/counters.md). */
struct sim_counters {
	uint64_t handles_started;       /* top-level jbd2 handle starts */
	uint64_t copy_under_handle;     /* user copies done with a handle open */
	uint64_t folio_lock_under_handle[SITE_COUNT];
	uint64_t mark_dirty_calls;      /* ext4_mark_inode_dirty */
	uint64_t update_i_disksize_calls; /* ext4_update_i_disksize (i_data_sem for writing) */
	uint64_t ordered_ranges_added;  /* ext4_jbd2_inode_add_write/_wait */
	uint64_t j_state_lock_reads;    /* read_lock(&journal->j_state_lock) */
	uint64_t sync_waits;            /* waits for writeback in sync paths */
	uint64_t commits;               /* transactions committed */
	uint64_t checkpoints;           /* checkpoint passes */
	uint64_t bios_submitted;        /* block writes submitted */
	uint64_t flushes;               /* device cache flushes */
	uint64_t disksize_over_size;    /* handle stops that saw i_disksize > i_size */
	uint64_t datasync_dirty_checks; /* ext4_inode_datasync_dirty (iomap lookups) */
	uint64_t nonda_switches;        /* ext4_nonda_switch said: too little free space for delalloc */
};

const char *sim_lock_site_name(enum sim_lock_site site);

#endif
