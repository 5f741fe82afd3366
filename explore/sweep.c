/*
 * sweep.c - the kernels, block sizes and mount modes one explore run
 * sweeps (sweep.h).  Configuration k is the mixed-radix number of its
 * values' indexes, the kernel the lowest digit, so configurations come in
 * a fixed order: the order of the values as given.
 */
#include "sweep.h"

#include <stdio.h>
#include <string.h>

/* The flag ids of each dimension: a value flag, or the on/off pair. */
static const enum cmd_flag_id dim_on[SD_NR] = { F_KERNEL, F_BLOCK_SIZE, F_DATA, F_DELALLOC,
						F_DIOREAD_NOLOCK, F_AUTO_DA_ALLOC };
static const enum cmd_flag_id dim_off[SD_NR] = { F_NONE, F_NONE, F_NONE, F_NODELALLOC,
						 F_DIOREAD_LOCK, F_NOAUTO_DA_ALLOC };
static const char *const dim_name[SD_NR] = { "--kernel ", "--block-size ", "--data ", "", "",
					     "" };

/* The dimension flag @id sweeps (*@off: the pair's off flag), or -1. */
static int dim_of(enum cmd_flag_id id, bool *off)
{
	for (int d = 0; d < SD_NR; d++) {
		if (id == dim_on[d] || (dim_off[d] != F_NONE && id == dim_off[d])) {
			*off = id != dim_on[d];
			return d;
		}
	}
	return -1;
}

/* Item @v of dimension @d as value number @i: 0, 2 after the message. */
static int add_value(struct explore_sweep *sw, int d, unsigned i, const char *v)
{
	if (d == SD_KERNEL) {
		if (i == SWEEP_KERNELS_MAX)
			return bad_usage("--kernel lists more than " STR(SWEEP_KERNELS_MAX)
					 " kernels%s", "");
		if (parse_kernel_name(v))
			return 2;
		snprintf(sw->kernels[i], SCN_NAME_MAX, "%s", v);
		for (unsigned k = 0; k < i; k++)
			if (strcmp(sw->kernels[k], v) == 0)
				return bad_usage("--kernel lists '%s' twice", v);
		return 0;
	}
	if (i == 3)
		return bad_usage("a sweep lists a value twice: '%s'", v);
	if (d == SD_BLOCK_SIZE && parse_block_size(v, &sw->block_sizes[i]))
		return 2;
	if (d == SD_DATA && parse_data_mode(v, &sw->data[i]))
		return 2;
	for (unsigned k = 0; k < i; k++)
		if (d == SD_BLOCK_SIZE ? sw->block_sizes[k] == sw->block_sizes[i] :
		    sw->data[k] == sw->data[i])
			return bad_usage(d == SD_BLOCK_SIZE ? "--block-size lists '%s' twice" :
					 "--data lists '%s' twice", v);
	return 0;
}

/* The comma list @v of value dimension @d, after the values it has. */
static int add_list(struct explore_sweep *sw, int d, const char *v)
{
	char buf[1024], *save = NULL;
	unsigned n = 0;
	int rc;

	if (snprintf(buf, sizeof(buf), "%s", v) >= (int)sizeof(buf) || !v[0] ||
	    v[strlen(v) - 1] == ',' || v[0] == ',' || strstr(v, ",,"))
		return bad_usage("a sweep takes values apart by single commas, not '%s'", v);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++)
		if ((rc = add_value(sw, d, sw->nr[d] + n, t)))
			return rc;
	sw->nr[d] += n;
	return 0;
}

/*
 * Two passes over @opts: gather each dimension's values, then drop the
 * flags of the dimensions that have more than one (sweep.h).
 */
int sweep_take(struct explore_sweep *sw, int *argc, struct cmd_opt *opts)
{
	unsigned seen[SD_NR] = { 0 };   /* value dims: values; pairs: bit 1 on, bit 2 off */
	int n = 0, rc;
	bool off;

	memset(sw, 0, sizeof(*sw));
	for (int i = 0; i < *argc; i++) {
		int d = dim_of(opts[i].id, &off);

		if (d >= SD_DELALLOC)
			seen[d] |= off ? 2u : 1u;
		else if (d >= 0 && (rc = add_list(sw, d, opts[i].val)))
			return rc;
	}
	for (int d = SD_DELALLOC; d < SD_NR; d++)
		sw->nr[d] = seen[d] == 3 ? 2 : 0;
	for (int d = 0; d < SD_DELALLOC; d++)
		sw->nr[d] = sw->nr[d] > 1 ? sw->nr[d] : 0;
	for (int i = 0; i < *argc; i++) {
		int d = dim_of(opts[i].id, &off);

		if (d < 0 || sw->nr[d] < 2)
			opts[n++] = opts[i];
	}
	*argc = n;
	return 0;
}

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
					 d < SD_DELALLOC ? dim_name[d] + 2 : "");
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
