/*
 * runcfg.c - the config: keys that say how a scenario is judged, not how
 * its file system is mounted: crash_everywhere (a crash judged after every
 * step and before every flush and FUA write inside one, as
 * --crash-everywhere), crash_bound (the crash states evaluated per crash
 * point, as --crash-bound) and fail_on (informational invariants counted,
 * as --fail-on).  explore and minimize write them (scnwrite.c), so that a
 * finding replays by itself; the command line layers its flags over them
 * (cli.c; docs/scenario-format.md, "The file").
 */
#include <stdint.h>
#include <string.h>

#include "ldr.h"

/* crash_bound: 0 .. SCN_CRASH_BOUND_MAX, as --crash-bound takes. */
static int ldr_crash_bound(struct ldr *L, struct scn_run_config *rc)
{
	char q[SCN_QUOTE_BUF];
	int64_t v;

	if (ldr_number(L, "crash_bound", &v) < 0)
		return -1;
	if (v < 0 || v > SCN_CRASH_BOUND_MAX)
		return ldr_err_ev(L, "'crash_bound' must be between 0 and %u, not '%s'",
				  SCN_CRASH_BOUND_MAX, scn_quote(q, ev_str(L)));
	rc->rc_set_crash_bound = true;
	rc->rc_crash_bound = (uint64_t)v;
	return 0;
}

/* One name of fail_on (the current event): a known invariant, not listed before. */
static int ldr_fail_on_name(struct ldr *L, void *vctx)
{
	struct scn_run_config *rc = vctx;
	char *name;

	if (L->l_ev.type != YAML_SCALAR_EVENT)
		return ldr_err_ev(L, "each fail_on entry must be an invariant name, not %s",
				  ldr_kind(&L->l_ev));
	if (rc->rc_nr_fail_on == SCN_EXPECT_MAX)
		return ldr_err_ev(L, "too many invariants in fail_on (max %d)", SCN_EXPECT_MAX);
	name = rc->rc_fail_on[rc->rc_nr_fail_on];
	if (ldr_take_str(L, "invariant name", name, SCN_NAME_MAX) < 0)
		return -1;
	if (L->l_is_invariant != NULL && !L->l_is_invariant(name))
		return ldr_err_ev(L, "unknown invariant '%s' in fail_on", name);
	for (unsigned i = 0; i < rc->rc_nr_fail_on; i++)
		if (strcmp(rc->rc_fail_on[i], name) == 0)
			return ldr_err_ev(L, "invariant '%s' listed twice in fail_on", name);
	rc->rc_nr_fail_on++;
	return 0;
}

/* fail_on: a sequence of invariant names. */
static int ldr_fail_on(struct ldr *L, struct scn_run_config *rc)
{
	return ldr_sequence(L, "fail_on", "a sequence of invariant names", ldr_fail_on_name, rc);
}

int ldr_run_config_key(struct ldr *L, unsigned idx, struct scn_run_config *rc)
{
	switch (idx) {
	case LDR_RC_CRASH_EVERYWHERE:
		rc->rc_set_crash_everywhere = true;
		return ldr_bool(L, "crash_everywhere", &rc->rc_crash_everywhere);
	case LDR_RC_CRASH_BOUND:
		return ldr_crash_bound(L, rc);
	default:
		return ldr_fail_on(L, rc);
	}
}
