/*
 * sweep.c - the kernels, block sizes and mount modes one explore run
 * sweeps (sweep.h); the flags that list them are read by the command line
 * (cli/explore_cmd.c).  Configuration k is the mixed-radix number of its
 * values' indexes, the kernel the lowest digit, so configurations come in
 * a fixed order: the order of the values as given.
 */
#include "sweep.h"

#include <stdio.h>
#include <string.h>

/* The flags' names of the value dimensions, as the summary spells them. */
static const char *const dim_name[SD_NR] = { "kernel ", "block-size ", "data ", "", "", "" };

/* The product of the swept dimensions' value counts (sweep.h). */
unsigned sweep_count(const struct explore_sweep *sw)
{
	unsigned n = 1;

	for (int d = 0; d < SD_NR; d++)
		n *= sw->nr[d] > 1 ? sw->nr[d] : 1;
	return n;
}

/* The value index of dimension @d in configuration @k. */
static unsigned digit(const struct explore_sweep *sw, unsigned k, int d)
{
	for (int i = 0; i < d; i++)
		k /= sw->nr[i] > 1 ? sw->nr[i] : 1;
	return sw->nr[d] > 1 ? k % sw->nr[d] : 0;
}

/* Configuration @k's value of each swept dimension into @ov (sweep.h). */
void sweep_apply(const struct explore_sweep *sw, unsigned k, struct sim_overrides *ov)
{
	SIM_ASSERT(k < sweep_count(sw));
	if (sw->nr[SD_KERNEL] > 1) {
		ov->has_kernel = true;
		snprintf(ov->kernel, sizeof(ov->kernel), "%s", sw->kernels[digit(sw, k, SD_KERNEL)]);
	}
	if (sw->nr[SD_BLOCK_SIZE] > 1) {
		ov->has_block_size = true;
		ov->block_size = sw->block_sizes[digit(sw, k, SD_BLOCK_SIZE)];
	}
	if (sw->nr[SD_DATA] > 1) {
		ov->has_data = true;
		ov->data = sw->data[digit(sw, k, SD_DATA)];
	}
	if (sw->nr[SD_DELALLOC] > 1) {
		ov->has_delalloc = true;
		ov->delalloc = digit(sw, k, SD_DELALLOC) == 0;
	}
	if (sw->nr[SD_DIOREAD] > 1) {
		ov->has_dioread_nolock = true;
		ov->dioread_nolock = digit(sw, k, SD_DIOREAD) == 0;
	}
	if (sw->nr[SD_AUTO_DA] > 1) {
		ov->has_auto_da_alloc = true;
		ov->auto_da_alloc = digit(sw, k, SD_AUTO_DA) == 0;
	}
}

static const char *const data_names[] = { "ordered", "writeback", "journal" };
static const char *const pair_names[SD_NR][2] = {
	[SD_DELALLOC] = { "delalloc", "nodelalloc" },
	[SD_DIOREAD] = { "dioread_nolock", "dioread_lock" },
	[SD_AUTO_DA] = { "auto_da_alloc", "noauto_da_alloc" },
};

/* Value @i of dimension @d as text (a data mode as "data=MODE" with @eq). */
static void value_text(const struct explore_sweep *sw, int d, unsigned i, bool eq, char *buf,
		       size_t cap)
{
	if (d == SD_KERNEL)
		snprintf(buf, cap, "%s", sw->kernels[i]);
	else if (d == SD_BLOCK_SIZE)
		snprintf(buf, cap, "%u", sw->block_sizes[i]);
	else if (d == SD_DATA)
		snprintf(buf, cap, "%s%s", eq ? "data=" : "", data_names[sw->data[i]]);
	else
		snprintf(buf, cap, "%s", pair_names[d][i]);
}

/* Configuration @k's swept values, in dimension order (sweep.h). */
void sweep_describe(const struct explore_sweep *sw, unsigned k, char *buf, size_t cap)
{
	static const char *const label[SD_NR] = { "kernel ", "block size ", "", "", "", "" };
	size_t used = 0;

	buf[0] = '\0';
	for (int d = 0; d < SD_NR && used < cap; d++) {
		char v[SCN_NAME_MAX + 16];

		if (sw->nr[d] < 2)
			continue;
		value_text(sw, d, digit(sw, k, d), true, v, sizeof(v));
		used += (size_t)snprintf(buf + used, cap - used, "%s%s%s", used ? ", " : "",
					 label[d], v);
	}
}

/* Each swept dimension with its values, "; " apart (sweep.h). */
void sweep_summary(const struct explore_sweep *sw, char *buf, size_t cap)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int d = 0; d < SD_NR && used < cap; d++) {
		if (sw->nr[d] < 2)
			continue;
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? "; " : "",
					 dim_name[d]);
		for (unsigned i = 0; i < sw->nr[d] && used < cap; i++) {
			char v[SCN_NAME_MAX + 16];

			value_text(sw, d, i, false, v, sizeof(v));
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? "," : "", v);
		}
	}
}

/* Configuration @k's swept values as JSON keys (sweep.h). */
void sweep_json_values(const struct explore_sweep *sw, unsigned k, FILE *out)
{
	static const char *const key[SD_NR] = { "kernel", "block_size", "data", "delalloc",
						"dioread_nolock", "auto_da_alloc" };
	unsigned any = 0;

	for (int d = 0; d < SD_NR; d++) {
		unsigned i = digit(sw, k, d);

		if (sw->nr[d] < 2)
			continue;
		fprintf(out, "%s\"%s\": ", any++ ? ", " : "", key[d]);
		if (d == SD_KERNEL)
			fprintf(out, "\"%s\"", sw->kernels[i]);
		else if (d == SD_BLOCK_SIZE)
			fprintf(out, "%u", sw->block_sizes[i]);
		else if (d == SD_DATA)
			fprintf(out, "\"%s\"", data_names[sw->data[i]]);
		else
			fputs(i == 0 ? "true" : "false", out);
	}
}
