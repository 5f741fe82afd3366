/*
 * ldr.h - the YAML loader's internals, shared by the scenario loader
 * (scenario.c) and the explore grammar loader (grammar.c).
 *
 * Both read a file of at most SCN_FILE_BYTES_MAX bytes with libyaml's
 * event parser in two passes (ldr_scan: the stream's shape; then the
 * caller's schema pass), and report the first error as
 * "PATH:LINE:COL: message" (1-based) into a caller buffer.  The functions
 * return 0 or -1 (the error recorded); the first error wins.
 */
#ifndef EXT4SIM_LDR_H
#define EXT4SIM_LDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "scenario.h"

/* The loader's whole state; one per load call. */
struct ldr {
	const char *l_path;              /* file as given, for messages */
	const char *l_what;              /* "a scenario", "a grammar": for messages */
	unsigned char *l_buf;            /* the file's bytes */
	size_t l_len;                    /* bytes in l_buf */
	yaml_parser_t l_parser;
	yaml_event_t l_ev;               /* current event, valid if l_has_ev */
	bool l_has_ev;
	unsigned l_depth;                /* open collections, <= SCN_DEPTH_MAX */
	bool l_failed;                   /* an error has been recorded */
	char *l_err;
	size_t l_errlen;
	struct scenario *l_scn;          /* scenario.c only */
	bool (*l_is_invariant)(const char *name);
	unsigned l_steps_cap;            /* allocated entries of l_scn->steps */
	void *l_ctx;                     /* the caller's, for other schemas */
};

/* A mapping with a fixed set of keys. */
struct ldr_keys {
	const char *k_where;             /* "at the top level", "in config", ... */
	const char *const *k_names;      /* NULL-terminated, at most 32 */
};

typedef int (*ldr_key_fn)(struct ldr *L, unsigned idx, void *ctx);
typedef int (*ldr_entry_fn)(struct ldr *L, void *ctx);

/* Errors at a 0-based position, a libyaml mark, the current event. */
int ldr_err_at(struct ldr *L, size_t line0, size_t col0, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int ldr_err_mark(struct ldr *L, const yaml_mark_t *mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ldr_err_ev(struct ldr *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error @off bytes into the current scalar (exact on one plain or simply quoted line). */
int ldr_step_err(struct ldr *L, unsigned off, const char *msg);
/* Words for the kind of node @ev starts ("a scalar", "a sequence", ...). */
const char *ldr_kind(const yaml_event_t *ev);

/* Read the file (size-checked); run a pass; pass 1 (one document, shape). */
int ldr_read_file(struct ldr *L);
int ldr_pass(struct ldr *L, int (*pass)(struct ldr *L));
int ldr_scan(struct ldr *L);
/* The next event, with the stream-wide rules (depth, no aliases/anchors/tags). */
int ldr_next(struct ldr *L);

/* The current scalar; is it exactly @word? */
const char *ev_str(const struct ldr *L);
bool ev_is(const struct ldr *L, const char *word);

/* Advance to @key's value, which must start with an event of @type. */
int ldr_value(struct ldr *L, const char *key, yaml_event_type_t type, const char *what);
/* @key's value, a sequence: @item(L, @ctx) for each element (its first event current). */
int ldr_sequence(struct ldr *L, const char *key, const char *what,
		 int (*item)(struct ldr *L, void *ctx), void *ctx);
int ldr_take_str(struct ldr *L, const char *what, char *dst, size_t cap);
/* A name: [a-z0-9._-]+, at most SCN_NAME_MAX - 1 bytes. */
int ldr_name(struct ldr *L, const char *key, char dst[SCN_NAME_MAX]);
int ldr_text(struct ldr *L, const char *key, char *dst, size_t cap);
int ldr_bool(struct ldr *L, const char *key, bool *out);
/* A plain number (scn_parse_num); above SCN_OFFSET_MAX gives INT64_MAX. */
int ldr_number(struct ldr *L, const char *key, int64_t *out);
int ldr_key_scalar(struct ldr *L);
/* Advance to the document's root, which must be a mapping (its start in *root). */
int ldr_root_mapping(struct ldr *L, yaml_mark_t *root);
/* Pass 2: the root mapping's fixed keys, then @finish over the keys seen. */
typedef int (*ldr_finish_fn)(struct ldr *L, uint32_t seen, const yaml_mark_t *root);
int ldr_root_schema(struct ldr *L, const struct ldr_keys *keys, ldr_key_fn fn,
		    ldr_finish_fn finish);
/* Mappings with fixed keys (each at most once) and with the user's keys. */
int ldr_fixed_mapping(struct ldr *L, const struct ldr_keys *keys, ldr_key_fn fn, void *ctx,
		      uint32_t *seen_out);
int ldr_open_mapping(struct ldr *L, ldr_entry_fn fn, void *ctx);

/*
 * The config: keys of how a scenario is judged (runcfg.c): their names, in
 * this order, follow the mount options' in the config key list, and
 * ldr_run_config_key() reads key @idx (an LDR_RC_* value) into @rc.
 */
enum { LDR_RC_CRASH_EVERYWHERE, LDR_RC_CRASH_BOUND, LDR_RC_FAIL_ON, LDR_RC_COUNT };
#define LDR_RUN_CONFIG_KEY_NAMES "crash_everywhere", "crash_bound", "fail_on"
int ldr_run_config_key(struct ldr *L, unsigned idx, struct scn_run_config *rc);

#endif
