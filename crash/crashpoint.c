/*
 * crashpoint.c - the crash policy of a run: where crash states are
 * enumerated and judged, and what a crash step leaves.
 *
 * Three kinds of crash point, each enumerated by crashstates.c and reported
 * into the run's checker:
 *   - a crash step (crash, shutdown): enumerate, then take the crash as a real
 *     shutdown leaves it (crash_device: the device completes what it was
 *     given, or crash --keep keeps a chosen subset) and mount again;
 *   - --crash-everywhere after a step (crash_here): judged, not taken;
 *   - --crash-everywhere inside a step (crash_inside): the block device calls
 *     the hook just before a flush or a FUA write while other writes are
 *     pending; judged with the step's own change counted as possibly done.
 * The world (sim/world.h) is the interpreter's; this file only reads it,
 * except crash_step, which replaces its file system by the recovered one.
 */
#include "crashpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "cpmemo.h"
#include "namespace.h"
#include "world.h"

/*
 * cs_enumerate, or its result for an equal crash point met before, when the
 * options carry a memo (explore's tree walk; crash/cpmemo.c) and no image
 * sink (a recalled result writes no image).
 */
static void enumerate_or_recall(struct world *w, const struct chk_state *chk, uint32_t idx,
				struct cs_point *pt)
{
	const struct sim_options *o = w->o;
	unsigned flags = (o->json || o->crash_digest ? CS_DIGEST : 0) |
			 (o->crash_reference ? CS_REFERENCE : 0) | (o->name_writes ? CS_WRITES : 0);
	uint64_t key[2];

	if (o->crash_memo && !o->image_sink) {
		world_crash_key(w, chk, idx, flags, o->crash_bound, key);
		if (cp_memo_get(o->crash_memo, key, &w->fs.sem, pt))
			return;
	}
	cs_enumerate_to(&w->fs, w->bd, chk, idx, o->crash_bound, flags, o->image_sink, pt);
	if (o->crash_memo && !o->image_sink)
		cp_memo_put(o->crash_memo, key, &w->fs.sem, pt);
}

/* Every state the crash can leave, before the run goes on with one of them. */
static struct cs_point *enumerate_crash_states(struct world *w, uint32_t idx,
					       const struct chk_state *chk)
{
	struct sim_variant_result *r = w->r;

	const struct sim_options *o = w->o;
	struct cs_point *pt;

	if (!o || o->crash_bound == 0)
		return NULL;
	w->points_seen++;
	if (o->only_point && w->points_seen != o->only_point)
		return NULL;
	if (r->nr_points == r->cap_points) {
		r->cap_points = r->cap_points ? 2 * r->cap_points : 8;
		r->points = sim_realloc_array(r->points, r->cap_points, sizeof(*r->points));
	}
	pt = &r->points[r->nr_points++];
	if (o->has_keep)
		cs_evaluate_kept_to(&w->fs, w->bd, chk, idx, o->keep, o->nr_keep, o->image_sink,
				    pt);
	else
		enumerate_or_recall(w, chk, idx, pt);
	if (w->ns_view && pt->writes)   /* a namespace scenario: whose each write is */
		cs_name_writes(pt, &w->fs, w->ns_view);
	pt->point_no = w->points_seen;
	return pt;
}

/*
 * Invariants some crash state violates that the continuing state (reported
 * from index @nv on) does not: report them once each, with how many states
 * and an example.
 */
static void report_crash_states(struct chk_state *c, struct cs_point *pt, uint32_t nv)
{
	uint32_t any = 0;

	for (uint32_t i = 0; i < pt->nr_states; i++)
		any |= pt->states[i].mask;
	for (int inv = 0; inv < INV_COUNT; inv++) {
		const struct cs_state *ex = NULL;
		uint64_t n = 0;
		bool seen = false;

		if (!(any & (1u << inv)))
			continue;               /* no state violates it */
		for (uint32_t i = nv; i < c->nr_v; i++)
			seen = seen || c->v[i].inv == (enum chk_inv)inv;
		for (uint32_t i = 0; i < pt->nr_states; i++) {
			if (!pt->states[i].violated[inv])
				continue;
			n += pt->states[i].raw_states;
			ex = ex ? ex : &pt->states[i];
		}
		if (ex && !seen) {
			char where[CS_EXAMPLE_MAX + 256];

			cs_describe_state(pt, ex, where, sizeof(where));
			chk_report(c, (enum chk_inv)inv, pt->step, "in %llu of %.0f %scrash "
				   "states (%s): %s%s%s", (unsigned long long)n, pt->raw_states,
				   pt->hypothetical ? "hypothetical " : "", where, ex->first_msg,
				   ex->tx_lost ? "; metadata lost " : "",
				   ex->tx_lost ? ex->tx_lost : "");
		}
	}
	for (uint32_t i = 0; any && i < pt->nr_states; i++)
		for (int inv = 0; inv < INV_COUNT; inv++)
			if (pt->states[i].violated[inv] && !chk_inv_info(inv)->informational) {
				pt->nr_violating++;
				break;
			}
}

/* Can a crash inside step @st be judged (note_intended() knows its change)? */
bool crash_judgeable_inside(const struct scn_step *st)
{
	return st->s_op != SCN_CRASH && st->s_op != SCN_SHUTDOWN;
}

/*
 * What a crash inside step @st may leave of the step's own change: note it
 * in @c as if done (the post-crash checks then allow it, not demand it).
 * A flush inside a fallocate comes after vfs_fallocate's argument checks,
 * but not always after the mode's own: before 6.5, data=journal collapse
 * and insert call ext4_force_commit() before they take the inode lock and
 * test the range against i_size (EINVAL for a collapse reaching EOF, an
 * insert at or past it), so a crash inside that commit comes before a
 * change the step will refuse, and nothing of it is noted.
 */
static void note_intended(struct chk_state *c, const struct scn_step *st, int64_t size)
{
	int64_t off = st->s_off, len = st->s_len;

	SIM_ASSERT(crash_judgeable_inside(st));
	switch (st->s_op) {
	case SCN_PWRITE:
		chk_note_write(c, off, len, st->s_fill);
		if (off + len > size)   /* it may fail and trim past EOF */
			chk_note_free_from(c, SIM_MIN(off, size));
		break;
	case SCN_TRUNCATE: chk_note_truncate(c, len); break;
	case SCN_MWRITE:
		if (off < size)
			chk_note_write(c, off, SIM_MIN(len, size - off), st->s_fill);
		break;
	case SCN_FALLOC:
		if (!st->s_keep_size)
			chk_note_extend(c, off + len);
		break;
	case SCN_FZERO: chk_note_zero(c, off, len, !st->s_keep_size); break;
	case SCN_FPUNCH: chk_note_punch(c, off, len); break;
	case SCN_FCOLLAPSE:
		if (off + len < size)
			chk_note_collapse(c, off, len);
		break;
	case SCN_FINSERT:
		if (off < size)
			chk_note_insert(c, off, len);
		break;
	default: break;
	}
}

/*
 * The namespace reference for a crash inside step @ic->st: a copy of the
 * run's into @ns, with a data step's change to the bytes of the file it
 * works on noted as possibly done (its content no longer promised: an
 * O_SYNC write's bytes may land before its size, an fsync's promise of the
 * old bytes then fails wrongly); @ns itself.  The namespace steps note
 * their own.
 */
static struct chk_ns *note_intended_ns(struct chk_ns *ns, const struct world *w,
				       const struct crash_inside_ctx *ic)
{
	const struct scn_step *st = ic->st;

	chk_ns_copy(ns, w->chk->c_ns);
	if (sim_step_on_file(st->s_op) && !scn_step_is_namespace(st) &&
	    S_ISREG(w->fs.inode->i_mode))
		chk_ns_note_unknown(ns, w->fs.inode->i_ino,
				    SIM_MAX(ic->size_before, st->s_off + st->s_len));
	return ns;
}

/*
 * --crash-everywhere, inside a step: just before the media changes (a
 * flush, a FUA write) while other writes are pending.  A crash anywhere
 * else inside the step leaves a subset of the states of the next such
 * moment or of the step's end, since until the media changes the pending
 * writes only grow; so these moments and the step ends cover every crash.
 * The step's own change counts as possibly done.
 */
void crash_inside(void *p, enum bd_point what, const struct bio_rec *fua)
{
	struct crash_inside_ctx *ic = p;
	struct world *w = ic->w;
	struct cs_point *pt;
	struct chk_state cc;
	struct chk_ns ns;

	chk_copy(&cc, w->chk);
	note_intended(&cc, ic->st, ic->size_before);
	if (w->chk->c_ns)
		cc.c_ns = note_intended_ns(&ns, w, ic);
	pt = enumerate_crash_states(w, ic->step, &cc);
	if (w->chk->c_ns)
		chk_ns_destroy(&ns);
	chk_destroy(&cc);
	if (!pt)
		return;
	pt->hypothetical = true;
	pt->within = (uint8_t)what;
	pt->fua_kind = fua ? fua->b_kind : 0;
	report_crash_states(w->chk, pt, w->chk->nr_v);
}

/*
 * --crash-everywhere: the states a crash right after step @idx would leave,
 * judged without taking the crash (crash steps enumerate their own).
 */
void crash_here(struct world *w, const struct scn_step *st, uint32_t idx,
		       struct sim_step_result *sr)
{
	struct cs_point *pt;

	if (st->s_op == SCN_CRASH || (st->s_op == SCN_SHUTDOWN && sr->err == 0))
		return;
	pt = enumerate_crash_states(w, idx, w->chk);
	if (!pt)
		return;
	pt->hypothetical = true;
	report_crash_states(w->chk, pt, w->chk->nr_v);
	snprintf(sr->note2, sizeof(sr->note2), "crash states if it crashed here: %.0f raw "
		 "(%u unflushed write(s)), %llu evaluated (%s), %u distinct, %u violating",
		 pt->raw_states, pt->nr_pending, (unsigned long long)pt->evaluated,
		 pt->exhaustive ? "exhaustive" : "sampled", pt->nr_states, pt->nr_violating);
}

/* How many writes crash --keep names. */
static uint32_t keep_count(const struct scn_step *st)
{
	uint32_t n = 0;

	for (uint16_t k = 0; k < st->s_nr_persist; k++)
		n += (uint32_t)st->s_persist[k][1] - st->s_persist[k][0] + 1;
	return n;
}

/* crash --keep: which pending writes it keeps and loses, in words (sr->writes_note). */
static void name_kept_writes(const struct world *w, const struct scn_step *st,
			     struct sim_step_result *sr)
{
	struct cs_point p = { 0 };
	struct cs_state ex = { 0 };
	size_t used = (size_t)snprintf(ex.example, sizeof(ex.example), "crash --keep");
	char text[4096];

	for (uint16_t k = 0; k < st->s_nr_persist && used < sizeof(ex.example); k++)
		used += (size_t)snprintf(ex.example + used, sizeof(ex.example) - used, "%s%u-%u",
					 k ? "," : " ", st->s_persist[k][0], st->s_persist[k][1]);
	if (st->s_nr_persist == 0)
		snprintf(ex.example, sizeof(ex.example), "crash --keep none");
	cs_keep_writes(&p, w->bd);
	if (w->ns_view)
		cs_name_writes(&p, &w->fs, w->ns_view);
	cs_describe_writes(&w->fs.lay, &p, &ex, text, sizeof(text));
	free(p.writes);
	free(p.owners);
	free(sr->writes_note);
	sr->writes_note = text[0] ? strdup(text) : NULL;
}

/* The device's side of the crash: the real-shutdown outcome, or crash --keep. */
static void crash_device(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	sr->pending = w->bd->bd_nr_bios;
	for (uint16_t k = 0; st->s_has_persist && k < st->s_nr_persist; k++) {
		if (st->s_persist[k][1] > w->bd->bd_nr_bios) {
			sr->err = -EINVAL;      /* no such write: the default outcome */
			break;
		}
	}
	if (st->s_has_persist && sr->err == 0) {
		name_kept_writes(w, st, sr);
		blkdev_crash_keep(w->bd, st->s_persist, st->s_nr_persist);
		return;
	}
	blkdev_complete_all(w->bd);
	blkdev_crash(w->bd);
}

/*
 * crash / shutdown, as `xfs_io -x -c shutdown` leaves a real system: the
 * device finishes the writes it was given (without any further file-system
 * work: no unwritten conversion, no commit), then everything in memory and
 * every uncommitted transaction is lost; mount (recovery, orphan cleanup)
 * and check what survived.  The power cut that also drops in-flight and
 * cached writes is one of the states crash-state enumeration covers.
 */
void crash_step(struct world *w, const struct scn_step *st, uint32_t idx,
		       struct sim_step_result *sr)
{
	uint32_t nset, *set = ext4_journaled_set(&w->fs, &nset);
	uint64_t expected = chk_expected_meta_hash_set(&w->fs, false, set, nset), replayed;
	uint32_t running = w->fs.journal.j_running_transaction ?
			   w->fs.journal.j_running_transaction->t_tid : 0;
	uint32_t inflight = w->fs.nr_ios, pending = w->bd->bd_nr_bios, nv;
	struct cs_point *pt = enumerate_crash_states(w, idx, w->chk);

	crash_device(w, st, sr);
	ext4_free_fs(&w->fs);
	SIM_ASSERT(world_mount(w) == 0);
	replayed = chk_device_meta_hash_set(&w->fs, set, nset);
	free(set);
	sim_ns_rebase(w);
	nv = w->chk->nr_v;
	chk_after_recovery(w->chk, &w->fs, idx, expected, replayed);
	if (pt)
		report_crash_states(w->chk, pt, nv);
	if (st->s_has_persist && sr->err == 0)
		note(sr, "crash: %u of the %u unflushed write(s) kept (--keep), the rest lost%s; "
		     "recovery replayed %u block(s)", keep_count(st), pending,
		     running ? ", running transaction lost" : "", w->rec->nr_replayed);
	else if (running)
		note(sr, "crash: %u in-flight write(s) completed by the device, running "
		     "transaction %u lost; recovery replayed %u block(s); continuing from the "
		     "state a real shutdown leaves", inflight, running, w->rec->nr_replayed);
	else
		note(sr, "crash: %u in-flight write(s) completed by the device; recovery "
		     "replayed %u block(s); continuing from the state a real shutdown leaves",
		     inflight, w->rec->nr_replayed);
	if (pt)
		snprintf(sr->note2, sizeof(sr->note2), "crash states: %.0f raw (%u unflushed "
			 "write(s) to %u block(s)), %.0f after folding equal writes, %llu "
			 "evaluated (%s), %u distinct, %u violating", pt->raw_states,
			 pt->nr_pending, pt->nr_blocks, pt->reduced_states,
			 (unsigned long long)pt->evaluated, pt->exhaustive ? "exhaustive" : "sampled",
			 pt->nr_states, pt->nr_violating);
}

/* Arm (or disarm) the device's hook for crash points inside step @st. */
void crash_arm_inside(struct crash_inside_ctx *ic, const struct scn_step *st, uint32_t idx,
		      bool judge)
{
	struct world *w = ic->w;

	ic->step = idx;
	ic->st = st;
	ic->size_before = w->fs.inode->i_size;
	w->bd->bd_durable_hook = judge && w->o && w->o->crash_bound &&
				 crash_judgeable_inside(st) ? crash_inside : NULL;
	w->bd->bd_hook_ctx = ic;
}
