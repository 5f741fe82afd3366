/*
 * cpmemo.h - a memo of crash points' results (cpmemo.c), so that explore judges
 * a crash point once however many prefixes reach it.
 */
#ifndef EXT4SIM_CPMEMO_H
#define EXT4SIM_CPMEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "crashstates.h"

struct cp_memo;

/* A memo holding at most about @max_bytes of results (then it starts empty again). */
struct cp_memo *cp_memo_create(uint64_t max_bytes);
void cp_memo_destroy(struct cp_memo *m);
/*
 * The result stored under @key for semantics that agree with @sem where it
 * read them, deep-copied into @out; false if none.
 */
bool cp_memo_get(struct cp_memo *m, const uint64_t key[2], const struct ext4_semantics *sem,
		 struct cs_point *out);
/*
 * Store a deep copy of @p, judged under @sem, under @key (a result already
 * valid for @sem there is left as it is).
 */
void cp_memo_put(struct cp_memo *m, const uint64_t key[2], const struct ext4_semantics *sem,
		 const struct cs_point *p);
/* Lookups answered so far. */
uint64_t cp_memo_hits(const struct cp_memo *m);

#endif
