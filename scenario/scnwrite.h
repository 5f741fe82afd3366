/*
 * scnwrite.h - a scenario written back as YAML (see scnwrite.c).
 */
#ifndef EXT4SIM_SCNWRITE_H
#define EXT4SIM_SCNWRITE_H

#include "run.h"

struct scn_write {
	const struct scenario *w_scn;           /* name and steps */
	const char *w_description;
	const struct sim_variant_cfg *w_cfg;    /* mount options (and semantics alone) */
	const struct sim_variant_cfg *w_variants;       /* NULL: one variant, "default" */
	unsigned w_nr_variants;
	const bool (*w_expect)[INV_COUNT];      /* per variant: what it must violate */
};

/* Write @w to @path (temporary name, then rename); -1 with a message in @err. */
int scn_write_yaml(const struct scn_write *w, const char *path, char *err, size_t errlen);

#endif
