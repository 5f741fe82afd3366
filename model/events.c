/*
 * events.c - the model's event log (see events.h).  Appending is the only
 * operation; the sim layer reads the array between steps.
 */
#include "events.h"

#include <stdlib.h>
#include <string.h>

#include "sim.h"

void ev_record(struct ev_log *log, enum ev_type type, const char *func, int64_t a, int64_t b,
	       int64_t c, int64_t d)
{
	ev_record5(log, type, func, a, b, c, d, 0);
}

void ev_record5(struct ev_log *log, enum ev_type type, const char *func, int64_t a, int64_t b,
		int64_t c, int64_t d, int64_t e_)
{
	struct sim_event *e;

	if (!log)
		return;
	SIM_ASSERT(type < EV_TYPE_COUNT);
	SIM_ASSERT(func != NULL);
	log->l_next_no++;
	if (log->l_nr == EV_LOG_MAX) {
		log->l_dropped++;
		return;
	}
	if (log->l_nr == log->l_cap) {
		log->l_cap = log->l_cap ? 2 * log->l_cap : 256;
		log->l_ev = sim_realloc_array(log->l_ev, log->l_cap, sizeof(*log->l_ev));
	}
	e = &log->l_ev[log->l_nr++];
	e->ev_no = log->l_next_no;
	e->ev_type = (uint8_t)type;
	e->ev_cause = log->l_cause;
	e->ev_func = func;
	e->ev_rule = NULL;
	e->ev_a = a;
	e->ev_b = b;
	e->ev_c = c;
	e->ev_d = d;
	e->ev_e = e_;
	if (log->l_observe)
		log->l_observe(log->l_observe_ctx, e);
}

void ev_record_size(struct ev_log *log, enum ev_type type, const char *func,
		    const struct ext4_size_rule *rule, int64_t old_size, int64_t new_size)
{
	SIM_ASSERT(type == EV_I_SIZE || type == EV_I_DISKSIZE);
	SIM_ASSERT(rule != NULL);
	if (!log)
		return;
	ev_record(log, type, func, old_size, new_size, 0, 0);
	if (log->l_nr && log->l_ev[log->l_nr - 1].ev_no == log->l_next_no)
		log->l_ev[log->l_nr - 1].ev_rule = rule;
}

uint32_t ev_next_no(const struct ev_log *log)
{
	return log ? log->l_next_no + 1 : 0;
}

uint8_t ev_cause_push(struct ev_log *log, enum ev_cause cause)
{
	uint8_t previous;

	SIM_ASSERT(cause < EVC_COUNT);
	if (!log)
		return EVC_STEP;
	previous = log->l_cause;
	log->l_cause = (uint8_t)cause;
	return previous;
}

void ev_cause_pop(struct ev_log *log, uint8_t previous)
{
	SIM_ASSERT(previous < EVC_COUNT);
	if (log)
		log->l_cause = previous;
}

void ev_log_free(struct ev_log *log)
{
	free(log->l_ev);
	memset(log, 0, sizeof(*log));
}

const char *ev_type_name(enum ev_type type)
{
	static const char *const names[EV_TYPE_COUNT] = {
		[EV_BIO_SUBMIT] = "bio_submit", [EV_BIO_COMPLETE] = "bio_complete",
		[EV_FLUSH] = "flush", [EV_HANDLE_START] = "handle_start",
		[EV_HANDLE_STOP] = "handle_stop", [EV_TX_STATE] = "transaction_state",
		[EV_ORDERED_WAIT] = "ordered_wait", [EV_CHECKPOINT] = "checkpoint",
		[EV_REVOKE] = "revoke", [EV_RECOVERY] = "recovery",
		[EV_FOLIO_CREATE] = "folio_create", [EV_FOLIO_DIRTY] = "folio_dirty",
		[EV_FOLIO_WRITEBACK] = "folio_writeback", [EV_FOLIO_WB_END] = "folio_writeback_end",
		[EV_FOLIO_CLEAN] = "folio_clean", [EV_FOLIO_DROP] = "folio_drop",
		[EV_RESERVE] = "reserve", [EV_RELEASE] = "release", [EV_ALLOC] = "alloc",
		[EV_FREE] = "free", [EV_FREE_RELEASED] = "free_released",
		[EV_CONVERT] = "convert", [EV_I_SIZE] = "i_size", [EV_I_DISKSIZE] = "i_disksize",
		[EV_FAULT] = "fault",
	};

	SIM_ASSERT(type < EV_TYPE_COUNT);
	return names[type];
}

const char *ev_cause_name(enum ev_cause cause)
{
	static const char *const names[EVC_COUNT] = {
		[EVC_STEP] = "step", [EVC_ORDERED] = "ordered", [EVC_COMMIT] = "commit",
		[EVC_CHECKPOINT] = "checkpoint", [EVC_RECOVERY] = "recovery",
	};

	SIM_ASSERT(cause < EVC_COUNT);
	return names[cause];
}
