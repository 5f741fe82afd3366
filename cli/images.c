/*
 * images.c - the image flags of run and crashstates (see cli.h and
 * sim/blkimage.h): --image and --images want one variant to write,
 * --from-image loads its image once, checks its size against the variants'
 * device and that their mount takes it, before anything runs; and
 * crashstates --images holds stdout back until every image is written, so
 * that a failed one leaves neither output nor files.
 */
#define _POSIX_C_SOURCE 200809L         /* open_memstream */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "blkimage.h"
#include "outfile.h"

/* The variants of @ld that run (--variant: one). */
static unsigned variants_run(const struct cli *c, const struct loaded *ld)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ld->nr_cfg; i++)
		n += !c->o.variant || strcmp(ld->cfg[i].name, c->o.variant) == 0;
	return n;
}

/* --from-image against every variant of @ld that runs: its size, then its mount. */
static int check_from_image(struct cli *c, const struct loaded *ld)
{
	char err[SIM_IMAGE_ERR_MAX], msg[256];

	for (unsigned i = 0; i < ld->nr_cfg; i++) {
		const struct sim_variant_cfg *cfg = &ld->cfg[i];
		uint32_t bs = cfg->opts.block_size, nr = cfg->opts.disk_blocks;

		if (c->o.variant && strcmp(cfg->name, c->o.variant))
			continue;
		if (!c->from_dev && !(c->from_dev = sim_image_load(c->from_image, bs, nr, err,
								   sizeof(err)))) {
			fprintf(stderr, "%s\n", err);
			return 2;
		}
		if (c->from_dev->bd_block_size != bs || c->from_dev->bd_nr_blocks != nr) {
			fprintf(stderr, "%s: the image is %lld bytes, variant %s's device %lld (block "
				"size %u times disk_blocks %u)\n", c->from_image,
				(long long)c->from_dev->bd_block_size * c->from_dev->bd_nr_blocks,
				cfg->name, (long long)bs * nr, bs, nr);
			return 2;
		}
		if (sim_image_probe(c->from_dev, cfg, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "%s: the mount refuses it (variant %s): %s\n", c->from_image,
				cfg->name, msg);
			return 2;
		}
	}
	c->o.from_image = c->from_dev;
	return 0;
}

int images_check_loaded(struct cli *c, const struct loaded *ld, bool one_scenario)
{
	unsigned n = variants_run(c, ld);
	const char *what = c->o.image ? "--image" : "--images";

	if ((c->o.image || c->images) && (!one_scenario || n != 1)) {
		fprintf(stderr, "ext4sim: %s writes the device of one variant of one scenario: "
			"%s%s (ext4sim --help for usage)\n", what, one_scenario ? ld->s.path : "",
			one_scenario ? " has several variants; give --variant NAME" :
			"give one scenario file or -c steps");
		return 2;
	}
	return c->from_image ? check_from_image(c, ld) : 0;
}

void images_free(struct cli *c)
{
	blkdev_destroy(c->from_dev);
	c->from_dev = NULL;
	c->o.from_image = NULL;
}

int images_begin(struct cli *c, const struct loaded *ld, struct images_run *ir)
{
	char err[SIM_IMAGE_ERR_MAX];

	memset(ir, 0, sizeof(*ir));
	if (!c->images)
		return 0;
	ir->dir = calloc(1, sizeof(*ir->dir));
	SIM_ASSERT(ir->dir != NULL);
	if (sim_image_dir_open(ir->dir, c->images, c->o.max_image_bytes, ld->s.nr_steps, err,
			       sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		free(ir->dir);
		ir->dir = NULL;
		return 2;
	}
	c->o.image_sink = &ir->dir->sink;
	fflush(stdout);
	ir->saved_stdout = stdout;
	stdout = open_memstream(&ir->buf, &ir->len);
	SIM_ASSERT(stdout != NULL);
	return 0;
}

int images_end(struct images_run *ir, int rc)
{
	char err[SIM_IMAGE_ERR_MAX];

	if (!ir->dir)
		return rc;
	fclose(stdout);
	stdout = ir->saved_stdout;
	if (sim_image_dir_close(ir->dir, rc != 2, err, sizeof(err)) < 0) {
		if (err[0])
			fprintf(stderr, "%s\n", err);
		rc = 2;
	} else {
		fwrite(ir->buf, 1, ir->len, stdout);
	}
	free(ir->buf);
	free(ir->dir);
	memset(ir, 0, sizeof(*ir));
	return rc;
}
