/*
 * sweep.h - explore's sweeps (sweep.c): the kernels, block sizes and mount
 * modes one explore run covers, each combination a configuration of its
 * own.  `--kernel 6.1,6.12` (a comma list, or the flag repeated),
 * `--block-size 1024,4096` and `--data ordered,journal` list values; both
 * flags of a mount pair (`--delalloc --nodelalloc`, `--dioread-nolock
 * --dioread-lock`, `--auto-da-alloc --noauto-da-alloc`) sweep that option.
 * A dimension given one value is left to the run flags as before.
 */
#ifndef EXT4SIM_SWEEP_H
#define EXT4SIM_SWEEP_H

#include <stdio.h>

#include "run.h"

#define SWEEP_KERNELS_MAX 32            /* kernels one sweep lists */
#define SWEEP_CONFIGS_MAX 1024          /* configurations of one sweep */

enum sweep_dim { SD_KERNEL, SD_BLOCK_SIZE, SD_DATA, SD_DELALLOC, SD_DIOREAD, SD_AUTO_DA, SD_NR };

struct explore_sweep {
	char kernels[SWEEP_KERNELS_MAX][SCN_NAME_MAX];
	uint32_t block_sizes[3];
	enum scn_data_mode data[3];
	unsigned nr[SD_NR];             /* values of each dimension; 0 or 1: not swept */
};

/* Combinations of the swept dimensions' values (1 when nothing is swept). */
unsigned sweep_count(const struct explore_sweep *sw);
/* Configuration @k (< sweep_count) over @ov: the swept dimensions set, the rest as they were. */
void sweep_apply(const struct explore_sweep *sw, unsigned k, struct sim_overrides *ov);
/* "kernel 6.1, block size 1024, data=journal": the swept values of configuration @k. */
void sweep_describe(const struct explore_sweep *sw, unsigned k, char *buf, size_t cap);
/* "kernel 6.1,6.12; data ordered,journal": the swept dimensions and their values. */
void sweep_summary(const struct explore_sweep *sw, char *buf, size_t cap);
/*
 * Configuration @k's swept values as JSON keys, in dimension order:
 * "kernel": "6.1", "block_size": 1024, "data": "journal", "delalloc": false,
 * "dioread_nolock": true, "auto_da_alloc": false (only the swept ones).
 */
void sweep_json_values(const struct explore_sweep *sw, unsigned k, FILE *out);

#endif
