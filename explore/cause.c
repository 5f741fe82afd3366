/*
 * cause.c - the cause of a minimized explore finding: the toggles whose
 * flip on the finding's profile removes it, else the function where the
 * violation first shows (from the model's events, docs/events.md).  explore
 * writes one file per cause, so a dozen findings of one bug are one entry.
 */
#include "cause.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

/* Does the finding still show with @sem in place of its semantics? */
static bool shows_with(const struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr,
		       const struct ext4_semantics *sem)
{
	struct min_target f = *t;

	f.cfg.sem = *sem;
	return min_reproduces(&f, texts, nr);
}

/* Append "NAME on|off" to the list @out. */
static size_t list_add(char *out, size_t cap, size_t used, const struct ext4_toggle *tg, bool on)
{
	if (used >= cap)
		return used;
	return used + (size_t)snprintf(out + used, cap - used, "%s%s %s", used ? ", " : "",
				       tg->name, on ? "on" : "off");
}

/*
 * The toggles set against the profile (--patch, an experimental idea) whose
 * return to the profile's value makes the finding go away.
 */
static size_t patched_removers(const struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX],
			       unsigned nr, char *out, size_t cap)
{
	struct ext4_semantics prof;
	size_t used = 0;

	ext4_profile_semantics(t->cfg.profile, &prof);
	for (unsigned i = 0; i < ext4_toggle_count(); i++) {
		const struct ext4_toggle *tg = ext4_toggle_at(i);
		struct ext4_semantics sem = t->cfg.sem;
		bool v = ext4_toggle_get(&prof, tg);

		if (tg == t->diff || ext4_toggle_get(&sem, tg) == v)
			continue;
		ext4_toggle_set(&sem, tg, v);
		if (!shows_with(t, texts, nr, &sem))
			used = list_add(out, cap, used, tg, v);
	}
	return used;
}

/* @sem with every toggle mainline profile @m has turned on. */
static void with_release(const struct min_target *t, const struct ext4_profile *m,
			 struct ext4_semantics *sem)
{
	*sem = t->cfg.sem;
	for (unsigned i = 0; i < ext4_toggle_count(); i++)
		if (ext4_profile_has(m, i) && ext4_toggle_at(i) != t->diff)
			ext4_toggle_set(sem, ext4_toggle_at(i), true);
}

/*
 * Kernel history, walked forward: the first mainline release whose changes,
 * added to the finding's semantics, make it go away, and of the changes new
 * in that release those that do it alone on top of the releases before
 * ("6.13 with eof_zero_fs on").  0 when no release removes it.
 */
static size_t release_removers(const struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX],
			       unsigned nr, char *out, size_t cap)
{
	const struct ext4_profile **m = sim_zalloc(ext4_profile_count() * sizeof(*m));
	unsigned n = ext4_profile_mainline(m);
	struct ext4_semantics before = t->cfg.sem, after;
	size_t used = 0;

	for (unsigned r = 0; r < n && !used; r++) {
		size_t k = 0;

		with_release(t, m[r], &after);
		if (!shows_with(t, texts, nr, &after)) {
			char list[CAUSE_TEXT_MAX] = "";

			for (unsigned i = 0; i < ext4_toggle_count(); i++) {
				const struct ext4_toggle *tg = ext4_toggle_at(i);
				struct ext4_semantics one = before;

				if (ext4_toggle_get(&before, tg) == ext4_toggle_get(&after, tg))
					continue;
				ext4_toggle_set(&one, tg, true);
				if (!shows_with(t, texts, nr, &one))
					k = list_add(list, sizeof(list), k, tg, true);
			}
			used = (size_t)snprintf(out, cap, "%s with %s", m[r]->name,
						k ? list : "its changes together");
		}
		before = after;
	}
	free(m);
	return used;
}

/* The step (1-based) where @inv is first reported in @r, or 0. */
static uint32_t first_step(const struct sim_variant_result *r, int inv)
{
	for (uint32_t i = 0; i < r->chk.nr_v; i++)
		if ((int)r->chk.v[i].inv == inv)
			return r->chk.v[i].step;
	return 0;
}

/* The function of that step's last size change, else of its last event, else its op. */
static const char *step_function(const struct sim_variant_result *r, const struct scenario *s,
				 uint32_t step)
{
	const struct sim_step_result *sr = &r->steps[step - 1];
	const char *last = NULL;

	for (uint32_t e = sr->ev_end; e > sr->ev_first; e--) {
		const struct sim_event *ev = &r->events.l_ev[e - 1];

		if (ev->ev_type == EV_I_SIZE || ev->ev_type == EV_I_DISKSIZE)
			return ev->ev_func;
		if (!last)
			last = ev->ev_func;
	}
	return last ? last : scn_op_name(s->steps[step - 1].s_op);
}

/* "first in FUNC": the function in the step where the violation first shows. */
static void first_function(const struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX],
			   unsigned nr, char *out, size_t cap)
{
	struct sim_variant_cfg cfg = t->cfg;
	struct sim_options o = t->o;
	struct sim_variant_result r;
	struct scenario s;
	char err[SCN_ERR_MAX];
	uint32_t step;

	if (t->diff)
		ext4_toggle_set(&cfg.sem, t->diff, t->diff_on_side);
	o.record_events = true;
	min_build(&s, "cause", texts, nr);
	SIM_ASSERT(sim_run_variant(&s, &cfg, &o, NULL, NULL, &r, err, sizeof(err)) == 0);
	step = first_step(&r, t->inv);
	snprintf(out, cap, "first in %s", step ? step_function(&r, &s, step) : "the run's end");
	sim_variant_result_free(&r, s.nr_steps);
	scn_free(&s);
}

void cause_signature(const struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr,
		     char *out, size_t cap)
{
	size_t used = (size_t)snprintf(out, cap, "%s%s%s: ", chk_inv_info(t->inv)->name,
				       t->diff ? " differs with " : "",
				       t->diff ? t->diff->name : "");
	char list[CAUSE_TEXT_MAX];

	if (used >= cap)
		return;
	if (patched_removers(t, texts, nr, list, sizeof(list)))
		snprintf(out + used, cap - used, "gone with %s (as in %s)", list,
			 t->cfg.profile->name);
	else if (release_removers(t, texts, nr, list, sizeof(list)))
		snprintf(out + used, cap - used, "gone in %s", list);
	else
		first_function(t, texts, nr, out + used, cap - used);
}
