/*
 * export_yaml.c - export --format yaml (and scenario.yaml under
 * --model-dir): the steps as export runs them on a real ext4, with a close
 * where each xfs_io process ends, in the configuration of the exported
 * variant, as a scenario the model can replay.
 */
#include <stdio.h>

#include "export.h"

void xp_write_yaml(FILE *out, const struct xctx *x)
{
	char desc[SCN_TEXT_MAX + 512];
	struct orc_yaml y = {
		.name = x->ld->s.name, .description = desc, .source = x->ld->s.path,
		.config = &x->oc, .steps = x->run.steps, .nr_steps = x->run.nr_steps,
	};

	snprintf(desc, sizeof(desc), "The steps of %s as export runs them on a real ext4 (a "
		 "close where the xfs_io process ends), in the configuration of variant %s.  %s",
		 x->ld->s.name, x->cfg->name, x->ld->s.description);
	orc_write_yaml(out, &y);
}
