/*
 * scnwrite.c - write a scenario as YAML (explore's findings, minimize's
 * result): its name and description, the variant's settings as config:
 * (block size, data mode, delalloc, disk size, kernel profile, and every
 * toggle that differs from the profile as patches:, and how it was judged:
 * crash_everywhere, crash_bound and fail_on), the steps as typed, and what
 * each variant must violate.  The file is written under a
 * temporary name and renamed, so a failure leaves no partial file.
 *
 * Also the YAML scalars of every scenario writer (this one and oracle's
 * orc_write_yaml): plain where that is safe, double-quoted with escapes
 * otherwise, or a folded block of prose; scn_load() reads each back.
 */
#include "scnwrite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

/* ------------------------------------------------------------------ */
/* Scalars                                                            */
/* ------------------------------------------------------------------ */

/*
 * The length of the well-formed UTF-8 character at @s (overlong forms,
 * surrogates and code points past U+10FFFF are not), its code point in
 * *cp; 0 if @s does not start one.
 */
static unsigned utf8_char(const unsigned char *s, uint32_t *cp)
{
	static const struct { unsigned char lo, hi; } second[] = {
		[0xe0 - 0xc0] = { 0xa0, 0xbf }, [0xed - 0xc0] = { 0x80, 0x9f },
		[0xf0 - 0xc0] = { 0x90, 0xbf }, [0xf4 - 0xc0] = { 0x80, 0x8f },
	};
	unsigned n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	if (second[s[0] - 0xc0].lo) {
		lo = second[s[0] - 0xc0].lo;
		hi = second[s[0] - 0xc0].hi;
	}
	*cp = s[0] & (0x7f >> n);
	for (unsigned i = 1; i < n; i++) {
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	return n;
}

/*
 * Can a YAML stream hold code point @cp (past ASCII) as is?  Not the C1
 * controls, which libyaml refuses (but for U+0085, a line break), nor the
 * line and paragraph separators, nor a byte order mark or a non-character.
 */
static bool yaml_raw_ok(uint32_t cp)
{
	return cp >= 0xa0 && cp != 0x2028 && cp != 0x2029 && cp != 0xfeff && cp != 0xfffe &&
	       cp != 0xffff;
}

/*
 * One character of a double-quoted scalar, written with the escape it
 * needs; returns the bytes of @s it took.  A byte that is not part of
 * UTF-8 (YAML text is UTF-8) is written as '?'.
 */
static size_t quoted_char(FILE *f, const unsigned char *s)
{
	uint32_t cp;
	unsigned n;

	if (*s == '"' || *s == '\\')
		fprintf(f, "\\%c", *s);
	else if (*s == '\n')
		fputs("\\n", f);
	else if (*s == '\t' || (*s >= 0x20 && *s < 0x7f))
		fputc(*s, f);
	else if (*s < 0x80)
		fprintf(f, "\\x%02x", *s);
	else if (!(n = utf8_char(s, &cp)))
		fputc('?', f);
	else if (yaml_raw_ok(cp))
		return fwrite(s, 1, n, f), n;
	else if (cp < 0x100)
		return fprintf(f, "\\x%02x", (unsigned)cp), n;
	else
		return fprintf(f, "\\u%04x", (unsigned)cp), n;
	return 1;
}

/* A double-quoted scalar: reads back as @s (but for bytes that are not UTF-8). */
static void yaml_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s)
		s += quoted_char(f, (const unsigned char *)s);
	fputc('"', f);
}

/*
 * Does @s read back as itself as a plain scalar in a block collection?
 * Printable ASCII without what starts or ends another construct: an
 * indicator (or flow punctuation) first, ": " or " #" inside, a ':' or blank at either end.  (In a
 * flow collection ",[]{}" end it too: the names written there have none.)
 */
static bool yaml_plain_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || s[0] == ' ' || s[0] == ':' || s[n - 1] == ' ' || s[n - 1] == ':')
		return false;
	if (strchr(",[]{}&*!|>'\"%@`#", s[0]) || (strchr("-?:", s[0]) && s[1] == '\0'))
		return false;
	if ((s[0] == '-' || s[0] == '?' || s[0] == ':') && s[1] == ' ')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return !strstr(s, ": ") && !strstr(s, " #");
}

static bool fold_blank(char c)
{
	return c == ' ' || c == '\n' || c == '\t';
}

/*
 * Can @s be written as a folded block of its words?  It must have a word,
 * and no character a block scalar cannot hold as is (it has no escapes).
 */
static bool yaml_fold_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	bool word = false;
	uint32_t cp;
	unsigned n;

	while (*p) {
		if (fold_blank((char)*p) || (*p >= 0x21 && *p < 0x7f)) {
			word |= !fold_blank((char)*p);
			p++;
			continue;
		}
		if (*p < 0x80 || !(n = utf8_char(p, &cp)) || !yaml_raw_ok(cp))
			return false;
		word = true;
		p += n;
	}
	return word;
}

/*
 * A folded block (">") of the words of @text, wrapped before column 88 and
 * indented by @indent and two blanks.  Its value is the words one blank
 * apart, and a final line break: runs of blanks and line breaks in @text
 * are not kept (a description is prose).
 */
static void yaml_folded(FILE *f, const char *indent, const char *text)
{
	size_t col = 0;

	fputs(">\n", f);
	while (*text) {
		size_t n = 0;

		while (fold_blank(*text))
			text++;
		while (text[n] && !fold_blank(text[n]))
			n++;
		if (!n)
			break;
		if (col && col + 1 + n > 86) {
			fputc('\n', f);
			col = 0;
		}
		if (!col)
			fprintf(f, "%s  ", indent);
		else
			fputc(' ', f);
		fwrite(text, 1, n, f);
		col += n + 1;
		text += n;
	}
	fputc('\n', f);
}

void scn_yaml_scalar(FILE *f, const char *s, enum scn_yaml_style style)
{
	if (style == SCN_YAML_PLAIN && yaml_plain_ok(s))
		fputs(s, f);
	else
		yaml_quoted(f, s);
}

void scn_yaml_line(FILE *f, const char *indent, const char *key, const char *value,
		   enum scn_yaml_style style)
{
	fprintf(f, "%s%s: ", indent, key);
	if (style == SCN_YAML_FOLDED && yaml_fold_ok(value)) {
		yaml_folded(f, indent, value);
		return;
	}
	scn_yaml_scalar(f, value, style);
	fputc('\n', f);
}

void scn_yaml_item(FILE *f, const char *indent, const char *value, enum scn_yaml_style style)
{
	fprintf(f, "%s- ", indent);
	scn_yaml_scalar(f, value, style);
	fputc('\n', f);
}

/* ------------------------------------------------------------------ */
/* Scenarios                                                          */
/* ------------------------------------------------------------------ */

/* "{a: on, b: off}": every toggle of @sem that differs from profile @p. */
static void write_patches(FILE *f, const struct ext4_semantics *sem, const struct ext4_profile *p)
{
	struct ext4_semantics base;
	unsigned any = 0;

	ext4_profile_semantics(p, &base);
	fputc('{', f);
	for (unsigned t = 0; t < ext4_toggle_count(); t++) {
		const struct ext4_toggle *tg = ext4_toggle_at(t);

		if (ext4_toggle_get(sem, tg) != ext4_toggle_get(&base, tg))
			fprintf(f, "%s%s: %s", any++ ? ", " : "", tg->name,
				ext4_toggle_get(sem, tg) ? "on" : "off");
	}
	fputc('}', f);
}

/*
 * The config: keys of how the scenario was judged (scenario/runcfg.c), each
 * where it is not the default: a crash judged inside every step, the crash
 * bound, the informational invariants counted.  A finding then replays by
 * itself: run, minimize, diff and export judge as the search did.
 */
static void write_judging(FILE *f, const struct sim_options *o)
{
	unsigned any = 0;

	if (o->crash_everywhere)
		fputs("  crash_everywhere: true\n", f);
	if (o->crash_bound != CS_BOUND_DEFAULT)
		fprintf(f, "  crash_bound: %llu\n", (unsigned long long)o->crash_bound);
	for (int inv = 0; inv < INV_COUNT; inv++)
		if (o->fail_on[inv])
			fprintf(f, "%s%s", any++ ? ", " : "  fail_on: [", chk_inv_info(inv)->name);
	if (any)
		fputs("]\n", f);
}

/* config: the mount options, and (without variants) the kernel and patches. */
static void write_config(FILE *f, const struct sim_variant_cfg *cfg, bool semantics)
{
	static const char *const modes[] = { "ordered", "writeback", "journal" };
	const struct ext4_mount_opts *o = &cfg->opts;

	fprintf(f, "config:\n  block_size: %u\n  data: %s\n", o->block_size, modes[o->data]);
	if (o->data != DATA_JOURNAL)
		fprintf(f, "  delalloc: %s\n", o->delalloc ? "true" : "false");
	if (!o->dioread_nolock)
		fputs("  dioread_nolock: false\n", f);
	if (!o->auto_da_alloc)
		fputs("  auto_da_alloc: false\n", f);
	fprintf(f, "  disk_blocks: %u\n", o->disk_blocks);
	if (!semantics)
		return;
	scn_yaml_line(f, "  ", "kernel", cfg->profile->name, SCN_YAML_QUOTED);
	fputs("  patches: ", f);
	write_patches(f, &cfg->sem, cfg->profile);
	fputc('\n', f);
}

/* ", key: value" for each mount option of a variant (@o) that differs from config:'s (@c). */
static void write_variant_mount(FILE *f, const struct ext4_mount_opts *o,
				const struct ext4_mount_opts *c)
{
	static const char *const modes[] = { "ordered", "writeback", "journal" };

	if (o->block_size != c->block_size)
		fprintf(f, ", block_size: %u", o->block_size);
	if (o->data != c->data)
		fprintf(f, ", data: %s", modes[o->data]);
	if (o->delalloc != c->delalloc && o->data != DATA_JOURNAL)
		fprintf(f, ", delalloc: %s", o->delalloc ? "true" : "false");
	if (o->dioread_nolock != c->dioread_nolock)
		fprintf(f, ", dioread_nolock: %s", o->dioread_nolock ? "true" : "false");
	if (o->auto_da_alloc != c->auto_da_alloc)
		fprintf(f, ", auto_da_alloc: %s", o->auto_da_alloc ? "true" : "false");
	if (o->disk_blocks != c->disk_blocks)
		fprintf(f, ", disk_blocks: %u", o->disk_blocks);
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

	scn_yaml_line(f, "", "name", s->name, SCN_YAML_PLAIN);
	scn_yaml_line(f, "", "description", w->w_description, SCN_YAML_QUOTED);
	write_config(f, w->w_cfg, w->w_nr_variants == 0);
	if (w->w_judging)
		write_judging(f, w->w_judging);
	fputs("steps:\n", f);
	for (unsigned i = 0; i < s->nr_steps; i++)
		scn_yaml_item(f, "  ", s->steps[i].s_text, SCN_YAML_QUOTED);
	if (w->w_nr_variants) {
		fputs("variants:\n", f);
		for (unsigned v = 0; v < w->w_nr_variants; v++) {
			fputs("  - {name: ", f);
			scn_yaml_scalar(f, w->w_variants[v].name, SCN_YAML_PLAIN);
			fputs(", kernel: ", f);
			scn_yaml_scalar(f, w->w_variants[v].profile->name, SCN_YAML_QUOTED);
			fputs(", patches: ", f);
			write_patches(f, &w->w_variants[v].sem, w->w_variants[v].profile);
			write_variant_mount(f, &w->w_variants[v].opts, &w->w_cfg->opts);
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
	struct outfile o;

	if (outfile_open(&o, path, false, err, errlen) < 0)
		return -1;
	if (write_body(o.f, w) < 0) {
		outfile_abort(&o);
		snprintf(err, errlen, "ext4sim: cannot write %s", path);
		return -1;
	}
	return outfile_commit(&o, err, errlen);
}
