/*
 * report.c - what ext4sim run prints about a variant: the verdict, the
 * violations with the command that reproduces each, the counters; as text
 * or as JSON.  Deterministic: no addresses, no times.
 */
#include "report.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "explain.h"
#include "nsnap.h"
#include "sha256.h"

/* The length of the valid UTF-8 sequence at @s (1 to 4), or 0 if it is not one
 * (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;

	if (s[0] < 0x80)
		return 1;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/* @s as a JSON string: valid UTF-8 whatever the input (a byte that starts
 * no valid sequence becomes U+FFFD). */
void json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else if (n == 0)
			fputs("\\ufffd", out);
		else
			fwrite(p, 1, n, out);
		p += n ? n : 1;
	}
	fputc('"', out);
}

void json_nsnap_keys(FILE *out, const struct nsnap *s)
{
	fputs(", \"namespace\": [", out);
	for (uint32_t i = 0; i < s->ns_nr; i++) {
		const struct nsnap_entry *e = &s->ns_e[i];

		fprintf(out, "%s{\"path\": ", i ? ", " : "");
		json_string(out, e->ne_path);
		fprintf(out, ", \"type\": \"%s\", \"ino\": %u, \"nlink\": %u, \"size\": %lld, "
			"\"hash\": \"%016llx%016llx\", \"target\": ", nsnap_type_name(e->ne_type),
			e->ne_ino, e->ne_nlink, (long long)e->ne_size,
			(unsigned long long)e->ne_hash[0], (unsigned long long)e->ne_hash[1]);
		json_string(out, e->ne_target);
		fputc('}', out);
	}
	fputs("], \"namespace_unreachable\": [", out);
	for (uint32_t i = 0; i < s->ns_nr_unreachable && i < NSNAP_MAX_UNREACHABLE; i++)
		fprintf(out, "%s%u", i ? ", " : "", s->ns_unreachable[i]);
	fprintf(out, "], \"namespace_orphans\": %u", s->ns_nr_orphans);
}

void report_reproduce(char *out, size_t cap, const struct scenario *s,
		      const struct sim_overrides *ov, const char *variant, bool several)
{
	size_t used = (size_t)snprintf(out, cap, "ext4sim run%s%s", ov->argv_text[0] ? " " : "",
				       ov->argv_text);

	if (strcmp(s->path, "-c") == 0) {
		for (unsigned i = 0; i < s->nr_steps && used < cap; i++)
			used += (size_t)snprintf(out + used, cap - used, " -c '%s'",
						 s->steps[i].s_text);
		return;
	}
	if (used < cap)
		used += (size_t)snprintf(out + used, cap - used, " %s", s->path);
	if (several && used < cap)
		snprintf(out + used, cap - used, " --variant %s", variant);
}

static void print_set(FILE *out, const bool *set, const struct scn_expect *e, bool from_expect)
{
	bool any = false;

	fputc('[', out);
	for (int inv = 0; inv < INV_COUNT; inv++) {
		const char *name = chk_inv_info(inv)->name;
		bool in = from_expect ? false : set[inv];

		for (unsigned k = 0; from_expect && e && k < e->e_nr; k++)
			in = in || strcmp(e->e_invariants[k], name) == 0;
		if (!in)
			continue;
		fprintf(out, "%s%s", any ? ", " : "", name);
		any = true;
	}
	fputc(']', out);
}

/* One "what happened" line for each distinct case of @inv among the violations. */
static void print_what_happened(FILE *out, const struct chk_state *c, enum chk_inv inv)
{
	bool any = false;

	for (uint32_t i = 0; i < c->nr_v; i++) {
		const char *text = chk_what_happened(inv, c->v[i].msg);
		bool seen = false;

		if (c->v[i].inv != inv)
			continue;
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = c->v[k].inv == inv && chk_what_happened(inv, c->v[k].msg) == text;
		if (!seen)
			fprintf(out, "  what happened: %s (%s)\n", text, chk_inv_info(inv)->name);
		any = true;
	}
	if (!any)
		fprintf(out, "  what happened: %s (%s)\n", chk_inv_info(inv)->plain,
			chk_inv_info(inv)->name);
}

void report_verdict(FILE *out, const struct scenario *s, const struct sim_variant_result *r,
		    const char *reproduce)
{
	(void)s;
	for (uint32_t i = 0; i < r->chk.nr_v; i++) {
		const struct chk_violation *v = &r->chk.v[i];
		const struct chk_inv_info *info = chk_inv_info(v->inv);

		if (!r->violated[v->inv] && !r->show_notes)
			continue;       /* an informational note: only with --notes */
		fprintf(out, "  %s %s at step %u: %s\n", r->violated[v->inv] ? "VIOLATION" : "note",
			info->name, v->step, v->msg);
	}
	fprintf(out, "  verdict %s: %s; violated ", r->cfg.name, r->passed ? "PASS" : "FAIL");
	print_set(out, r->violated, NULL, false);
	if (r->has_expect) {
		fputs(", expected ", out);
		print_set(out, NULL, r->expect, true);
	}
	fputc('\n', out);
	for (int inv = 0; inv < INV_COUNT; inv++)
		if (r->violated[inv])
			print_what_happened(out, &r->chk, (enum chk_inv)inv);
	if (r->cs_mismatch[0])
		fprintf(out, "  %s\n", r->cs_mismatch);
	if (!r->passed)
		fprintf(out, "  reproduce: %s\n", reproduce);
}

void report_summary_line(FILE *out, const struct scenario *s,
			 const struct sim_variant_result *r)
{
	fprintf(out, "%-44s %-12s %-4s ", s->name, r->cfg.name, r->passed ? "PASS" : "FAIL");
	print_set(out, r->violated, NULL, false);
	if (r->cs_mismatch[0])
		fprintf(out, " (%s)", r->cs_mismatch);
	fputc('\n', out);
}

unsigned report_counters_flat(const struct sim_counters *c, struct named_count *out)
{
	unsigned n = 0;

	out[n++] = (struct named_count){ "handles_started", c->handles_started };
	out[n++] = (struct named_count){ "copy_under_handle", c->copy_under_handle };
	for (int s = 0; s < SITE_COUNT; s++) {
		static char names[SITE_COUNT][48];

		snprintf(names[s], sizeof(names[s]), "folio_lock_under_handle.%s",
			 sim_lock_site_name(s));
		out[n++] = (struct named_count){ names[s], c->folio_lock_under_handle[s] };
	}
	out[n++] = (struct named_count){ "mark_dirty_calls", c->mark_dirty_calls };
	out[n++] = (struct named_count){ "update_i_disksize_calls", c->update_i_disksize_calls };
	out[n++] = (struct named_count){ "ordered_ranges_added", c->ordered_ranges_added };
	out[n++] = (struct named_count){ "j_state_lock_reads", c->j_state_lock_reads };
	out[n++] = (struct named_count){ "sync_waits", c->sync_waits };
	out[n++] = (struct named_count){ "commits", c->commits };
	out[n++] = (struct named_count){ "checkpoints", c->checkpoints };
	out[n++] = (struct named_count){ "bios_submitted", c->bios_submitted };
	out[n++] = (struct named_count){ "flushes", c->flushes };
	out[n++] = (struct named_count){ "disksize_over_size", c->disksize_over_size };
	out[n++] = (struct named_count){ "datasync_dirty_checks", c->datasync_dirty_checks };
	out[n++] = (struct named_count){ "nonda_switches", c->nonda_switches };
	SIM_ASSERT(n <= REPORT_COUNTERS_MAX);
	return n;
}

void json_counters(FILE *out, const struct sim_counters *c)
{
	fprintf(out, "{\"handles_started\": %llu, \"copy_under_handle\": %llu, "
		"\"folio_lock_under_handle\": {", (unsigned long long)c->handles_started,
		(unsigned long long)c->copy_under_handle);
	for (int s = 0; s < SITE_COUNT; s++)
		fprintf(out, "%s\"%s\": %llu", s ? ", " : "", sim_lock_site_name(s),
			(unsigned long long)c->folio_lock_under_handle[s]);
	fprintf(out, "}, \"mark_dirty_calls\": %llu, \"update_i_disksize_calls\": %llu, "
		"\"ordered_ranges_added\": %llu, "
		"\"j_state_lock_reads\": %llu, \"sync_waits\": %llu, \"commits\": %llu, "
		"\"checkpoints\": %llu, \"bios_submitted\": %llu, \"flushes\": %llu, "
		"\"disksize_over_size\": %llu, \"datasync_dirty_checks\": %llu, "
		"\"nonda_switches\": %llu}",
		(unsigned long long)c->mark_dirty_calls,
		(unsigned long long)c->update_i_disksize_calls,
		(unsigned long long)c->ordered_ranges_added,
		(unsigned long long)c->j_state_lock_reads, (unsigned long long)c->sync_waits,
		(unsigned long long)c->commits, (unsigned long long)c->checkpoints,
		(unsigned long long)c->bios_submitted, (unsigned long long)c->flushes,
		(unsigned long long)c->disksize_over_size,
		(unsigned long long)c->datasync_dirty_checks,
		(unsigned long long)c->nonda_switches);
}

static void json_names(FILE *out, const bool *set)
{
	bool any = false;

	fputc('[', out);
	for (int inv = 0; inv < INV_COUNT; inv++) {
		if (!set[inv])
			continue;
		fprintf(out, "%s\"%s\"", any ? ", " : "", chk_inv_info(inv)->name);
		any = true;
	}
	fputc(']', out);
}

/* One distinct crash state; with the point's writes, which its example kept. */
static void json_crash_state(FILE *out, const struct sim_variant_result *r,
			     const struct cs_point *p, const struct cs_state *st, bool first)
{
	char writes[4096];

	fprintf(out, "%s{\"size\": %lld, \"sha256\": \"%s\", \"violations\": ",
		first ? "" : ", ", (long long)st->size, st->sha256);
	json_names(out, st->violated);
	fprintf(out, ", \"bytes\": ");
	json_string(out, st->runs);
	fprintf(out, ", \"raw_states\": %llu, \"example\": ", (unsigned long long)st->raw_states);
	json_string(out, st->example);
	fprintf(out, ", \"replayed_tids\": [");
	for (uint32_t t = st->replay_first; t && t < st->replay_end; t++)
		fprintf(out, "%s%u", t > st->replay_first ? ", " : "", t);
	fputc(']', out);
	cs_describe_writes(&r->lay, p, st, writes, sizeof(writes));
	if (writes[0]) {
		fprintf(out, ", \"writes\": ");
		json_string(out, writes);
	}
	if (st->detail) {
		fprintf(out, ", \"messages\": ");
		json_string(out, st->detail);
	}
	if (st->ns_snap)        /* a namespace scenario: the recovered tree (version 5) */
		json_nsnap_keys(out, st->ns_snap);
	if (st->ns) {           /* ... and nsnap_text's lines */
		fprintf(out, ", \"namespace_text\": ");
		json_string(out, st->ns);
	}
	if (st->image) {        /* crashstates --images: the file of its device */
		fprintf(out, ", \"image\": ");
		json_string(out, st->image);
	}
	if (st->tx_kept) {      /* a violating state: its size and extents, kept and lost */
		fprintf(out, ", \"recovered\": ");
		json_string(out, st->tx_kept);
		fprintf(out, ", \"lost\": ");
		json_string(out, st->tx_lost ? st->tx_lost : "");
	}
	fputc('}', out);
}

/* The point's pending writes, numbered as crash --keep numbers them. */
static void json_pending_writes(FILE *out, const struct sim_variant_result *r,
				const struct cs_point *p)
{
	char what[NSNAP_PATH_MAX + 256];

	fprintf(out, ", \"pending_writes\": [");
	for (uint32_t i = 0; i < p->nr_writes; i++) {
		const struct cs_write *w = &p->writes[i];

		cs_bio_text(&r->lay, p, w, what, sizeof(what));
		fprintf(out, "%s{\"write\": %u, \"event\": %u, \"blocknr\": %u, \"kind\": \"%s\", "
			"\"state\": \"%s\", \"fua\": %s, \"function\": ", i ? ", " : "", i + 1,
			w->w_info.bi_event, w->w_blocknr, blkdev_what_name(w->w_info.bi_what),
			w->w_state == BIO_SUBMITTED ? "in_flight" : "completed",
			w->w_fua ? "true" : "false");
		json_string(out, w->w_info.bi_func ? w->w_info.bi_func : "");
		fprintf(out, ", \"what\": ");
		json_string(out, what);
		fputc('}', out);
	}
	fputc(']', out);
}

/* The crash points of a variant, in the shape `crashstates --json` prints. */
/* A state count as JSON: past the largest double (2^1024 states) it stays DBL_MAX. */
static double json_count(double n)
{
	return isfinite(n) ? n : DBL_MAX;
}

void json_crash_points(FILE *out, const struct sim_variant_result *r)
{
	fputs("[", out);
	for (uint32_t i = 0; i < r->nr_points; i++) {
		const struct cs_point *p = &r->points[i];

		static const char *const within[] = { "after_step", "before_flush", "before_fua" };

		fprintf(out, "%s{\"point\": %u, \"step\": %u, \"where\": \"%s\", "
			"\"raw_states\": %.0f, \"exhaustive\": %s, \"hypothetical\": %s, "
			"\"inside_commit\": %u, \"unflushed_writes\": %u, \"reduced_states\": %.0f, "
			"\"evaluated\": %llu, \"recovery_blocks\": %llu, \"states\": [", i ? ", " : "",
			p->point_no, p->step, within[p->within], json_count(p->raw_states),
			p->exhaustive ? "true" : "false", p->hypothetical ? "true" : "false",
			p->in_commit, p->nr_pending, json_count(p->reduced_states),
			(unsigned long long)p->evaluated, (unsigned long long)p->recovery_blocks);
		for (uint32_t k = 0; k < p->nr_states; k++)
			json_crash_state(out, r, p, &p->states[k], k == 0);
		fputc(']', out);
		if (p->writes)
			json_pending_writes(out, r, p);
		fputc('}', out);
	}
	fputs("]", out);
}

/*
 * One step; with run --json also the step as typed, the state after it, its
 * events, the rule behind each size change and, for crash --keep, the writes
 * kept and lost (docs/json.md).
 */
static void json_step(FILE *out, const struct scenario *s, const struct sim_variant_result *r,
		      unsigned i)
{
	const struct sim_step_result *sr = &r->steps[i];

	fprintf(out, "%s{\"step\": %u, \"op\": \"%s\", \"result\": %d, \"bytes\": %lld, "
		"\"i_size\": %lld, \"i_disksize\": %lld", i ? ", " : "", i + 1,
		scn_op_name(s->steps[i].s_op), sr->err, (long long)sr->bytes,
		(long long)sr->i_size, (long long)sr->i_disksize);
	if (sr->state_json) {
		fputs(", \"text\": ", out);
		json_string(out, s->steps[i].s_text);
		fputs(", \"note\": ", out);
		json_string(out, sr->note);
		fprintf(out, ", \"state\": %s, \"events\": ", sr->state_json);
		explain_json_events(out, &r->lay, &r->events, sr->ev_first, sr->ev_end);
		fputs(", \"why\": ", out);
		explain_json_sizes(out, &r->events, sr->ev_first, sr->ev_end, &r->cfg.sem);
		if (sr->timeline_json)
			fprintf(out, ", \"timeline\": %s", sr->timeline_json);
		if (sr->writes_note) {
			fputs(", \"writes\": ", out);
			json_string(out, sr->writes_note);
		}
	}
	fputc('}', out);
}

void report_mount_words(char *buf, size_t cap, const struct sim_variant_cfg *cfg)
{
	const struct ext4_mount_opts m = ext4_set_def_opts(&cfg->opts, &cfg->sem);

	snprintf(buf, cap, "%s%s%s", m.delalloc ? "delalloc" : "nodelalloc",
		 ext4_should_dioread_nolock_opts(&m) ? ", dioread_nolock" :
		 m.delalloc ? ", dioread_lock" : "", m.auto_da_alloc ? "" : ", noauto_da_alloc");
}

void report_judging_words(char *buf, size_t cap, const struct sim_judging *j)
{
	size_t n = 0;
	unsigned any = 0;

	SIM_ASSERT(cap > 0);
	buf[0] = '\0';
	if (j->j_crash_everywhere)
		n += (size_t)snprintf(buf + n, cap - n, "%scrash judged inside every step",
				      any++ ? ", " : "; ");
	if (n < cap && j->j_crash_bound != CS_BOUND_DEFAULT)
		n += (size_t)snprintf(buf + n, cap - n, "%scrash bound %llu", any++ ? ", " : "; ",
				      (unsigned long long)j->j_crash_bound);
	for (int inv = 0, f = 0; inv < INV_COUNT && n < cap; inv++)
		if (j->j_fail_on[inv])
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", f++ ? ", " :
					      any++ ? ", fail on " : "; fail on ",
					      chk_inv_info(inv)->name);
}

/*
 * A variant's "judging": how its crash points and invariants were judged
 * (the scenario's config: keys crash_everywhere, crash_bound and fail_on,
 * with the command line's flags layered over them), every key always
 * written; fail_on in the checker's table order.
 */
static void json_judging(FILE *out, const struct sim_judging *j)
{
	unsigned any = 0;

	fprintf(out, "{\"crash_everywhere\": %s, \"crash_bound\": %llu, \"fail_on\": [",
		j->j_crash_everywhere ? "true" : "false", (unsigned long long)j->j_crash_bound);
	for (int inv = 0; inv < INV_COUNT; inv++)
		if (j->j_fail_on[inv])
			fprintf(out, "%s\"%s\"", any++ ? ", " : "", chk_inv_info(inv)->name);
	fputs("]}", out);
}

void report_json_variant(FILE *out, const struct scenario *s,
			 const struct sim_variant_result *r, const char *reproduce)
{
	const struct ext4_mount_opts *o = &r->cfg.opts;
	static const char *const modes[] = { "ordered", "writeback", "journal" };
	char mount[96];

	fprintf(out, "{\"name\": ");
	json_string(out, r->cfg.name);
	fprintf(out, ", \"kernel\": ");
	json_string(out, r->cfg.profile->name);
	report_mount_words(mount, sizeof(mount), &r->cfg);
	fprintf(out, ", \"config\": {\"block_size\": %u, \"data\": \"%s\", \"delalloc\": %s, "
		"\"dioread_nolock\": %s, \"auto_da_alloc\": %s, \"disk_blocks\": %u, "
		"\"mount\": \"%s\"}",
		o->block_size, modes[o->data], o->delalloc ? "true" : "false",
		o->dioread_nolock ? "true" : "false", o->auto_da_alloc ? "true" : "false",
		o->disk_blocks, mount);
	fputs(", \"judging\": ", out);
	json_judging(out, &r->judging);
	fprintf(out, ", \"toggles_on\": [");
	for (unsigned t = 0, any = 0; t < ext4_toggle_count(); t++) {
		if (!ext4_toggle_get(&r->cfg.sem, ext4_toggle_at(t)))
			continue;
		fprintf(out, "%s\"%s\"", any++ ? ", " : "", ext4_toggle_at(t)->name);
	}
	fputc(']', out);
	fprintf(out, ", \"verdict\": \"%s\", ", r->passed ? "pass" : "fail");
	if (r->cs_mismatch[0]) {
		fprintf(out, "\"crash_states_check\": ");
		json_string(out, r->cs_mismatch);
		fprintf(out, ", ");
	}
	fprintf(out, "\"violated\": ");
	json_names(out, r->violated);
	fprintf(out, ", \"reported\": ");
	json_names(out, r->seen);
	fprintf(out, ", \"violations\": [");
	for (uint32_t i = 0; i < r->chk.nr_v; i++) {
		fprintf(out, "%s{\"invariant\": \"%s\", \"step\": %u, \"message\": ", i ? ", " : "",
			chk_inv_info(r->chk.v[i].inv)->name, r->chk.v[i].step);
		json_string(out, r->chk.v[i].msg);
		fprintf(out, ", \"reproduce\": ");
		json_string(out, reproduce);
		fputc('}', out);
	}
	fprintf(out, "], \"crash_points\": ");
	json_crash_points(out, r);
	fprintf(out, ", \"counters\": ");
	json_counters(out, &r->counters);
	fprintf(out, ", \"final\": {\"i_size\": %lld, \"i_disksize\": %lld}, \"steps\": [",
		(long long)r->final_size, (long long)r->final_disksize);
	for (unsigned i = 0; i < s->nr_steps; i++)
		json_step(out, s, r, i);
	fprintf(out, "]}");
}

void report_json_scenario(FILE *out, const struct scenario *s,
			  const struct sim_variant_result *r, unsigned nr, bool first,
			  const char *const *reproduce)
{
	fprintf(out, "%s{\"scenario\": ", first ? "" : ",\n ");
	json_string(out, s->name);
	fprintf(out, ", \"file\": ");
	json_string(out, s->path);
	fprintf(out, ", \"variants\": [");
	for (unsigned i = 0; i < nr; i++) {
		if (i)
			fputs(", ", out);
		report_json_variant(out, s, &r[i], reproduce[i]);
	}
	fprintf(out, "]}");
}

/* A digest of every crash point's distinct states: where, sizes, bytes, violations. */
void report_states_digest(const struct sim_variant_result *r, char out[65])
{
	struct sha256 h;
	uint8_t d[32];

	sha256_init(&h);
	for (uint32_t i = 0; i < r->nr_points; i++) {
		const struct cs_point *p = &r->points[i];

		sha256_update(&h, &p->step, sizeof(p->step));
		sha256_update(&h, &p->within, sizeof(p->within));
		for (uint32_t k = 0; k < p->nr_states; k++) {
			sha256_update(&h, p->states[k].sha256, 64);
			sha256_update(&h, &p->states[k].mask, sizeof(p->states[k].mask));
		}
	}
	sha256_final(&h, d);
	sha256_hex(d, out);
}
