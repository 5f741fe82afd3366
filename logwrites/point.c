/*
 * point.c - splitting a write log at a crash point (see point.h): find the
 * last flush before it, then list the writes between that flush and the
 * point, checking that every write before the point fits the device.
 */
#include "point.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int changes_device(const struct lw_entry *e)
{
	return !(e->le_flags & LW_MARK) && e->le_nr_sectors > 0;
}

int lw_point_inside(const struct lw_point *p, const struct lw_log *log, const struct lw_entry *e)
{
	return changes_device(e) && e->le_sector < p->lp_dev_bytes / log->lw_sectorsize;
}

/* Check every entry before the point against the device's size; count those past its end. */
static int check_ranges(struct lw_point *p, const struct lw_log *log, char *err, size_t errlen)
{
	uint64_t dev = p->lp_dev_bytes / log->lw_sectorsize;

	for (uint64_t i = 0; i < p->lp_end; i++) {
		const struct lw_entry *e = &log->lw_entries[i];

		if (!changes_device(e))
			continue;
		if (e->le_sector >= dev) {
			p->lp_outside++;
			continue;
		}
		if (e->le_nr_sectors > dev - e->le_sector) {
			snprintf(err, errlen, "entry %llu (byte %llu): sectors %llu-%llu straddle the "
				 "device's end (%llu sectors)", (unsigned long long)i,
				 (unsigned long long)e->le_offset, (unsigned long long)e->le_sector,
				 (unsigned long long)(e->le_sector + e->le_nr_sectors - 1),
				 (unsigned long long)dev);
			return -1;
		}
	}
	return 0;
}

/* The number of units entry @e makes with pieces of @split sectors (0: one). */
static uint64_t units_of(const struct lw_entry *e, uint64_t split)
{
	return split ? (e->le_nr_sectors + split - 1) / split : 1;
}

/* List the units of the entries in [lp_flush, lp_end) inside the device; 0 or -1. */
static int list_units(struct lw_point *p, const struct lw_log *log, uint64_t split)
{
	uint64_t n = 0;

	for (uint64_t i = p->lp_flush; i < p->lp_end; i++)
		if (lw_point_inside(p, log, &log->lw_entries[i]))
			n += units_of(&log->lw_entries[i], split);
	p->lp_pending = calloc(n + 1, sizeof(*p->lp_pending));
	p->lp_forced = calloc(n + 1, 1);
	if (!p->lp_pending || !p->lp_forced)
		return -1;
	for (uint64_t i = p->lp_flush; i < p->lp_end; i++) {
		const struct lw_entry *e = &log->lw_entries[i];

		if (!lw_point_inside(p, log, e))
			continue;
		for (uint64_t first = 0; first < e->le_nr_sectors;
		     first += split ? split : e->le_nr_sectors) {
			uint64_t left = e->le_nr_sectors - first;

			p->lp_forced[p->lp_nr_pending] = (e->le_flags & LW_FUA) != 0;
			p->lp_pending[p->lp_nr_pending++] = (struct lw_unit){
				i, first, split && split < left ? split : left };
		}
	}
	return 0;
}

int lw_point_init(struct lw_point *p, const struct lw_log *log, uint64_t end, uint64_t dev_bytes,
		  uint64_t split, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	if (end > log->lw_nr) {
		snprintf(err, errlen, "crash point after entry %llu: the log has %llu",
			 (unsigned long long)end, (unsigned long long)log->lw_nr);
		return -1;
	}
	if (dev_bytes == 0 || dev_bytes % log->lw_sectorsize) {
		snprintf(err, errlen, "device of %llu bytes: not a positive multiple of the log's "
			 "%u-byte sectors", (unsigned long long)dev_bytes, log->lw_sectorsize);
		return -1;
	}
	p->lp_end = end;
	p->lp_dev_bytes = dev_bytes;
	if (check_ranges(p, log, err, errlen))
		return -1;
	for (uint64_t i = 0; i < end; i++)
		if (log->lw_entries[i].le_flags & LW_FLUSH)
			p->lp_flush = i;
	if (list_units(p, log, split)) {
		lw_point_free(p);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void lw_point_free(struct lw_point *p)
{
	free(p->lp_pending);
	free(p->lp_forced);
	p->lp_pending = NULL;
	p->lp_forced = NULL;
	p->lp_nr_pending = 0;
}
