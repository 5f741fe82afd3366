/*
 * explain.c - events and rules in words (see explain.h).  Deterministic
 * text only: the words depend on the events and the layout alone.
 */
#include "explain.h"

#include <string.h>

#include "pending.h"
#include "report.h"

/* The states of enum t_state, as fs/jbd2/commit.c moves a transaction through them. */
static const char *const tx_states[T_STATE_COUNT] = {
	[T_RUNNING] = "T_RUNNING (handles may join it)",
	[T_LOCKED] = "T_LOCKED (no new handle joins it; wait for the open ones)",
	[T_SWITCH] = "T_SWITCH (no handle open; unused reserved buffers go back, the revoke table "
		     "is switched)",
	[T_FLUSH] = "T_FLUSH (committing; a new transaction may start; ordered data and revoke "
		    "records go out)",
	[T_COMMIT] = "T_COMMIT (descriptors and block copies go to the log; wait for the "
		     "ordered data)",
	[T_COMMIT_DFLUSH] = "T_COMMIT_DFLUSH (wait for the log writes)",
	[T_COMMIT_JFLUSH] = "T_COMMIT_JFLUSH (flush the device, then the commit block with FUA)",
	[T_COMMIT_CALLBACK] = "T_COMMIT_CALLBACK (committed; the file system's commit callback "
			      "runs)",
	[T_FINISHED] = "T_FINISHED (committed; its blocks wait for a checkpoint)",
};

/* Block I/O events. */
static void explain_bio_event(const struct ext4_layout *lay, const struct sim_event *e,
			      char *out, size_t cap)
{
	char what[200];

	switch (e->ev_type) {
	case EV_BIO_SUBMIT:
		cs_write_text(lay, (enum bio_what)e->ev_b, (uint32_t)e->ev_a, e->ev_c,
			      (uint32_t)e->ev_d, what, sizeof(what));
		snprintf(out, cap, "submit %s%s", what, e->ev_e ? ", FUA" : "");
		return;
	case EV_BIO_COMPLETE:
		snprintf(out, cap, "complete the write of e%lld (disk %lld)%s", (long long)e->ev_c,
			 (long long)e->ev_a, e->ev_e ? ": on the media (FUA)" :
			 ": in the volatile cache");
		return;
	default:
		snprintf(out, cap, "flush the device cache: %lld completed write(s) now durable",
			 (long long)e->ev_a);
		return;
	}
}

/* jbd2 events. */
static void explain_jbd2_event(const struct sim_event *e, char *out, size_t cap)
{
	switch (e->ev_type) {
	case EV_HANDLE_START:
		snprintf(out, cap, "%s handle in tid %lld, %lld credit(s)",
			 e->ev_d ? "nested start of the" : "start a", (long long)e->ev_c,
			 (long long)e->ev_a);
		return;
	case EV_HANDLE_STOP:
		snprintf(out, cap, "stop the %shandle of tid %lld", e->ev_d ? "nested " : "",
			 (long long)e->ev_a);
		return;
	case EV_TX_STATE:
		snprintf(out, cap, "tid %lld is now %s", (long long)e->ev_a,
			 e->ev_b >= 0 && e->ev_b < T_STATE_COUNT ? tx_states[e->ev_b] : "?");
		return;
	case EV_ORDERED_WAIT:
		snprintf(out, cap, "commit of tid %lld waits for the ordered data writes of bytes "
			 "[%lld, %lld] before its commit block", (long long)e->ev_a,
			 (long long)e->ev_b, (long long)e->ev_c);
		return;
	case EV_CHECKPOINT:
		snprintf(out, cap, "checkpoint: %lld block(s) written home, log tail at tid %lld",
			 (long long)e->ev_a, (long long)e->ev_b);
		return;
	case EV_REVOKE:
		snprintf(out, cap, "revoke disk %lld in tid %lld", (long long)e->ev_a,
			 (long long)e->ev_b);
		return;
	default:
		snprintf(out, cap, "recovery replayed tids [%lld, %lld): %lld block(s)",
			 (long long)e->ev_a, (long long)e->ev_b, (long long)e->ev_c);
		return;
	}
}

/* Page-cache, allocator, block-map and size events. */
static void explain_fs_event(const struct sim_event *e, char *out, size_t cap)
{
	static const char *const folio[] = {
		[EV_FOLIO_CREATE - EV_FOLIO_CREATE] = "added to the page cache",
		[EV_FOLIO_DIRTY - EV_FOLIO_CREATE] = "dirty",
		[EV_FOLIO_WRITEBACK - EV_FOLIO_CREATE] = "under writeback",
		[EV_FOLIO_WB_END - EV_FOLIO_CREATE] = "writeback ended",
		[EV_FOLIO_CLEAN - EV_FOLIO_CREATE] = "clean",
		[EV_FOLIO_DROP - EV_FOLIO_CREATE] = "dropped from the page cache",
	};
	long long a = e->ev_a, b = e->ev_b, c = e->ev_c;

	if (e->ev_type >= EV_FOLIO_CREATE && e->ev_type <= EV_FOLIO_DROP) {
		snprintf(out, cap, "folio %lld %s", a, folio[e->ev_type - EV_FOLIO_CREATE]);
		return;
	}
	switch (e->ev_type) {
	case EV_RESERVE: snprintf(out, cap, "reserve %lld block(s) for delayed allocation", a); return;
	case EV_RELEASE: snprintf(out, cap, "release %lld reserved block(s)", a); return;
	case EV_ALLOC:
		snprintf(out, cap, "allocate file block(s) %lld-%lld at disk %lld-%lld%s", a,
			 a + c - 1, b, b + c - 1, e->ev_d ? " as unwritten" : "");
		return;
	case EV_FREE:
		snprintf(out, cap, "free disk %lld-%lld%s", a, a + b - 1,
			 e->ev_d ? " (reusable once the transaction commits)" : "");
		return;
	case EV_FREE_RELEASED:
		snprintf(out, cap, "disk %lld-%lld reusable: the freeing transaction committed", a,
			 a + b - 1);
		return;
	case EV_CONVERT:
		snprintf(out, cap, "convert file block(s) %lld-%lld (disk %lld) unwritten -> written",
			 a, a + b - 1, c);
		return;
	case EV_FAULT:
		if (a == 1)
			snprintf(out, cap, "injected fault: too little free space, no delayed "
				 "allocation (nodelalloc fallback)");
		else if (c == 0)
			snprintf(out, cap, "injected fault: the allocation of %lld block(s) fails "
				 "with ENOSPC", b);
		else
			snprintf(out, cap, "injected fault: %lld block(s) asked, %lld given before "
				 "the ENOSPC", b, c);
		return;
	default:
		snprintf(out, cap, "%s %lld -> %lld", e->ev_type == EV_I_SIZE ? "i_size" : "i_disksize",
			 a, b);
		return;
	}
}

void explain_event(const struct ext4_layout *lay, const struct sim_event *e, char *out,
		   size_t cap)
{
	char text[EXPLAIN_LINE_MAX];

	if (e->ev_type <= EV_FLUSH)
		explain_bio_event(lay, e, text, sizeof(text));
	else if (e->ev_type <= EV_RECOVERY)
		explain_jbd2_event(e, text, sizeof(text));
	else
		explain_fs_event(e, text, sizeof(text));
	if (e->ev_cause != EVC_STEP)
		snprintf(out, cap, "%s: %s [%s]", e->ev_func, text,
			 ev_cause_name((enum ev_cause)e->ev_cause));
	else
		snprintf(out, cap, "%s: %s", e->ev_func, text);
}

void explain_print_events(FILE *out, const struct ext4_layout *lay, const struct ev_log *log,
			  uint32_t first, uint32_t end)
{
	char text[EXPLAIN_LINE_MAX + 64];

	SIM_ASSERT(first <= end);
	SIM_ASSERT(end <= log->l_nr);
	if (first == end)
		return;
	fprintf(out, "      events:\n");
	for (uint32_t i = first; i < end; i++) {
		explain_event(lay, &log->l_ev[i], text, sizeof(text));
		fprintf(out, "        e%u %s\n", log->l_ev[i].ev_no, text);
	}
}

void explain_json_events(FILE *out, const struct ext4_layout *lay, const struct ev_log *log,
			 uint32_t first, uint32_t end)
{
	char text[EXPLAIN_LINE_MAX + 64];

	SIM_ASSERT(first <= end);
	SIM_ASSERT(end <= log->l_nr);
	fputc('[', out);
	for (uint32_t i = first; i < end; i++) {
		const struct sim_event *e = &log->l_ev[i];

		fprintf(out, "%s{\"event\": %u, \"type\": \"%s\", \"function\": ", i > first ? ", " : "",
			e->ev_no, ev_type_name((enum ev_type)e->ev_type));
		json_string(out, e->ev_func);
		fprintf(out, ", \"cause\": \"%s\", \"args\": [%lld, %lld, %lld, %lld, %lld], "
			"\"text\": ", ev_cause_name((enum ev_cause)e->ev_cause), (long long)e->ev_a,
			(long long)e->ev_b, (long long)e->ev_c, (long long)e->ev_d, (long long)e->ev_e);
		explain_event(lay, e, text, sizeof(text));
		json_string(out, text);
		fputc('}', out);
	}
	fputc(']', out);
}

/* The toggle whose field is @offset in struct ext4_semantics. */
static const struct ext4_toggle *toggle_of_field(size_t offset)
{
	for (unsigned i = 0; i < ext4_toggle_count(); i++)
		if (ext4_toggle_at(i)->offset == offset)
			return ext4_toggle_at(i);
	SIM_ASSERT(!"a size rule names a field that no toggle has");
	return NULL;
}

bool explain_same_rule(const struct sim_event *a, const struct sim_event *b)
{
	if (a->ev_type != b->ev_type)
		return false;
	if (a->ev_rule || b->ev_rule)
		return a->ev_rule == b->ev_rule;
	return strcmp(a->ev_func, b->ev_func) == 0;
}

void explain_size_event(const struct sim_event *e, const struct ext4_semantics *sem, char *out,
			size_t cap)
{
	size_t used;

	SIM_ASSERT(e->ev_type == EV_I_SIZE || e->ev_type == EV_I_DISKSIZE);
	used = (size_t)snprintf(out, cap, "%s %lld -> %lld: ", e->ev_type == EV_I_DISKSIZE ?
				"i_disksize" : "i_size", (long long)e->ev_a, (long long)e->ev_b);
	if (used < cap)
		explain_size_rule(e, sem, out + used, cap - used);
}

void explain_size_rule(const struct sim_event *e, const struct ext4_semantics *sem, char *out,
		       size_t cap)
{
	const struct ext4_size_rule *r = e->ev_rule;
	size_t used = (size_t)snprintf(out, cap, "%s", e->ev_func);

	SIM_ASSERT(e->ev_type == EV_I_SIZE || e->ev_type == EV_I_DISKSIZE);
	if (r && used < cap)
		used += (size_t)snprintf(out + used, cap - used, " (%s)", r->sr_rule);
	if (r && r->sr_toggled && used < cap) {
		const struct ext4_toggle *t = toggle_of_field(r->sr_toggle);

		snprintf(out + used, cap - used, "; toggle %s is %s here", t->name,
			 ext4_toggle_get(sem, t) ? "on" : "off");
	}
}

void explain_print_sizes(FILE *out, const struct ev_log *log, uint32_t first, uint32_t end,
			 const struct ext4_semantics *sem)
{
	char text[EXPLAIN_LINE_MAX + 256];

	SIM_ASSERT(first <= end);
	SIM_ASSERT(end <= log->l_nr);
	for (uint32_t i = first; i < end; i++) {
		const struct sim_event *e = &log->l_ev[i];

		if (e->ev_type != EV_I_SIZE && e->ev_type != EV_I_DISKSIZE)
			continue;
		explain_size_event(e, sem, text, sizeof(text));
		fprintf(out, "      why: e%u %s\n", e->ev_no, text);
	}
}

void explain_json_sizes(FILE *out, const struct ev_log *log, uint32_t first, uint32_t end,
			const struct ext4_semantics *sem)
{
	char text[EXPLAIN_LINE_MAX + 256];
	bool any = false;

	SIM_ASSERT(first <= end);
	SIM_ASSERT(end <= log->l_nr);
	fputc('[', out);
	for (uint32_t i = first; i < end; i++) {
		const struct sim_event *e = &log->l_ev[i];

		if (e->ev_type != EV_I_SIZE && e->ev_type != EV_I_DISKSIZE)
			continue;
		explain_size_event(e, sem, text, sizeof(text));
		fprintf(out, "%s{\"event\": %u, \"text\": ", any ? ", " : "", e->ev_no);
		json_string(out, text);
		fputc('}', out);
		any = true;
	}
	fputc(']', out);
}

/* The block-map events of [first, end), one "why extents:" line each. */
static void print_extent_causes(FILE *out, const struct ext4_layout *lay, const struct ev_log *log,
				uint32_t first, uint32_t end)
{
	char text[EXPLAIN_LINE_MAX + 64];

	for (uint32_t i = first; i < end; i++) {
		const struct sim_event *e = &log->l_ev[i];

		if (e->ev_type != EV_ALLOC && e->ev_type != EV_CONVERT && e->ev_type != EV_FREE)
			continue;
		explain_event(lay, e, text, sizeof(text));
		fprintf(out, "      why extents: e%u %s\n", e->ev_no, text);
	}
}

/* The page-cache events of [first, end), counted by type and function on one line. */
static void print_cache_causes(FILE *out, const struct ev_log *log, uint32_t first, uint32_t end)
{
	size_t used = 0;
	char line[EXPLAIN_LINE_MAX * 2];

	for (uint32_t i = first; i < end; i++) {
		const struct sim_event *e = &log->l_ev[i];
		uint32_t n = 0;
		bool seen = false;

		if (e->ev_type < EV_FOLIO_CREATE || e->ev_type > EV_FOLIO_DROP)
			continue;
		for (uint32_t k = first; k < i && !seen; k++)
			seen = log->l_ev[k].ev_type == e->ev_type &&
			       strcmp(log->l_ev[k].ev_func, e->ev_func) == 0;
		if (seen)
			continue;
		for (uint32_t k = i; k < end; k++)
			n += log->l_ev[k].ev_type == e->ev_type &&
			     strcmp(log->l_ev[k].ev_func, e->ev_func) == 0;
		if (used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s %s x%u",
						 used ? ", " : "", e->ev_func,
						 ev_type_name((enum ev_type)e->ev_type) + 6, n);
	}
	if (used)
		fprintf(out, "      why cache: %s\n", line);
}

void explain_print_fields(FILE *out, const struct ext4_layout *lay, const struct ev_log *log,
			  uint32_t first, uint32_t end, bool extents, bool cache)
{
	SIM_ASSERT(first <= end);
	SIM_ASSERT(end <= log->l_nr);
	if (extents)
		print_extent_causes(out, lay, log, first, end);
	if (cache)
		print_cache_causes(out, log, first, end);
}
