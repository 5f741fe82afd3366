/*
 * image.h - building the device a crash point leaves: the base image (the
 * device before the log began), every durable entry applied in log order,
 * then the chosen volatile writes in log order (a later write to a sector
 * replaces an earlier one).  A discard leaves zeros (qemu punches a hole in
 * the image file; a real device may leave anything, which this does not
 * model).
 */
#ifndef EXT4SIM_IMAGE_H
#define EXT4SIM_IMAGE_H

#include <stdint.h>

#include "logfmt.h"
#include "point.h"

/* Apply entry @e to @img (@p's device); an entry outside it does nothing. */
void lw_apply(const struct lw_log *log, const struct lw_point *p, const struct lw_entry *e,
	      uint8_t *img);

/* Apply the part of its entry that unit @u covers to @img. */
void lw_apply_unit(const struct lw_log *log, const struct lw_unit *u, uint8_t *img);

/* @img (the base, lp_dev_bytes long) becomes the device at the last flush. */
void lw_apply_durable(const struct lw_log *log, const struct lw_point *p, uint8_t *img);

/*
 * @img (the device at the last flush) becomes the device with the pending
 * units whose @keep byte is non-zero, and every FUA unit, on the media.
 */
void lw_apply_pending(const struct lw_log *log, const struct lw_point *p, const uint8_t *keep,
		      uint8_t *img);

#endif
