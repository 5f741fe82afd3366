/*
 * scnwrite.c - write a scenario as YAML (explore's findings, minimize's
 * result): its name and description, the variant's settings as config:
 * (block size, data mode, delalloc, disk size, kernel profile, and every
 * toggle that differs from the profile as patches:), the steps as typed,
 * and what each variant must violate.  The file is written under a
 * temporary name and renamed, so a failure leaves no partial file.
 */
#include "scnwrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A YAML double-quoted scalar. */
static void yaml_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* "{a: on, b: off}": every toggle of @sem that differs from profile @p. */
static void write_patches(FILE *f, const struct ext4_semantics *sem, const struct ext4_profile *p)
{
	struct ext4_semantics base;
	unsigned any = 0;

	ext4_profile_semantics(p, &base);
	fputc('{', f);
	for (unsigned t = 0; t < T_COUNT; t++) {
		const struct ext4_toggle *tg = ext4_toggle_at(t);

		if (ext4_toggle_get(sem, tg) != ext4_toggle_get(&base, tg))
			fprintf(f, "%s%s: %s", any++ ? ", " : "", tg->name,
				ext4_toggle_get(sem, tg) ? "on" : "off");
	}
	fputc('}', f);
}

/* config: the mount options, and (without variants) the kernel and patches. */
static void write_config(FILE *f, const struct sim_variant_cfg *cfg, bool semantics)
{
	static const char *const modes[] = { "ordered", "writeback", "journal" };
	const struct ext4_mount_opts *o = &cfg->opts;

	fprintf(f, "config:\n  block_size: %u\n  data: %s\n", o->block_size, modes[o->data]);
	if (o->data != DATA_JOURNAL)
		fprintf(f, "  delalloc: %s\n", o->delalloc ? "true" : "false");
	fprintf(f, "  disk_blocks: %u\n", o->disk_blocks);
	if (!semantics)
		return;
	fputs("  kernel: ", f);
	yaml_quoted(f, cfg->profile->name);
	fputs("\n  patches: ", f);
	write_patches(f, &cfg->sem, cfg->profile);
	fputc('\n', f);
}

static void write_expect(FILE *f, const char *variant, const bool *violated)
{
	unsigned any = 0;

	fprintf(f, "  %s: [", variant);
	for (int inv = 0; inv < INV_COUNT; inv++)
		if (violated[inv])
			fprintf(f, "%s%s", any++ ? ", " : "", chk_inv_info(inv)->name);
	fputs("]\n", f);
}

static int write_body(FILE *f, const struct scn_write *w)
{
	const struct scenario *s = w->w_scn;

	fprintf(f, "name: %s\ndescription: ", s->name);
	yaml_quoted(f, w->w_description);
	fputc('\n', f);
	write_config(f, w->w_cfg, w->w_nr_variants == 0);
	fputs("steps:\n", f);
	for (unsigned i = 0; i < s->nr_steps; i++) {
		fputs("  - ", f);
		yaml_quoted(f, s->steps[i].s_text);
		fputc('\n', f);
	}
	if (w->w_nr_variants) {
		fputs("variants:\n", f);
		for (unsigned v = 0; v < w->w_nr_variants; v++) {
			fprintf(f, "  - {name: %s, kernel: ", w->w_variants[v].name);
			yaml_quoted(f, w->w_variants[v].profile->name);
			fputs(", patches: ", f);
			write_patches(f, &w->w_variants[v].sem, w->w_variants[v].profile);
			fputs("}\n", f);
		}
	}
	fputs("expect:\n", f);
	for (unsigned v = 0; v < (w->w_nr_variants ? w->w_nr_variants : 1); v++)
		write_expect(f, w->w_nr_variants ? w->w_variants[v].name : "default",
			     w->w_expect[v]);
	return ferror(f) ? -1 : 0;
}

int scn_write_yaml(const struct scn_write *w, const char *path, char *err, size_t errlen)
{
	char tmp[4096];
	FILE *f;
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "path too long: %s", path);
		return -1;
	}
	if (!(f = fopen(tmp, "w"))) {
		snprintf(err, errlen, "cannot write %s", tmp);
		return -1;
	}
	rc = write_body(f, w);
	if (fclose(f) != 0 || rc < 0 || rename(tmp, path) != 0) {
		remove(tmp);
		snprintf(err, errlen, "cannot write %s", path);
		return -1;
	}
	return 0;
}
