/*
 * image.c - replaying log entries onto an image in memory (see image.h).
 */
#include "image.h"

#include <string.h>

void lw_apply(const struct lw_log *log, const struct lw_point *p, const struct lw_entry *e,
	      uint8_t *img)
{
	uint64_t off = e->le_sector * log->lw_sectorsize;
	uint64_t len = e->le_nr_sectors * log->lw_sectorsize;

	if (!lw_point_inside(p, log, e))
		return;
	if (e->le_flags & LW_DISCARD)
		memset(img + off, 0, len);
	else
		memcpy(img + off, log->lw_buf + e->le_data, len);
}

void lw_apply_unit(const struct lw_log *log, const struct lw_unit *u, uint8_t *img)
{
	const struct lw_entry *e = &log->lw_entries[u->lu_entry];
	uint64_t off = (e->le_sector + u->lu_first) * log->lw_sectorsize;
	uint64_t len = u->lu_count * log->lw_sectorsize;

	if (e->le_flags & LW_DISCARD)
		memset(img + off, 0, len);
	else
		memcpy(img + off, log->lw_buf + e->le_data + u->lu_first * log->lw_sectorsize, len);
}

void lw_apply_durable(const struct lw_log *log, const struct lw_point *p, uint8_t *img)
{
	for (uint64_t i = 0; i < p->lp_flush; i++)
		lw_apply(log, p, &log->lw_entries[i], img);
}

void lw_apply_pending(const struct lw_log *log, const struct lw_point *p, const uint8_t *keep,
		      uint8_t *img)
{
	for (uint64_t k = 0; k < p->lp_nr_pending; k++)
		if (keep[k] || p->lp_forced[k])
			lw_apply_unit(log, &p->lp_pending[k], img);
}
