/*
 * ace.h - CrashMonkey ACE's workload spaces as a generator (ace.c): the
 * bounds of B3's seq-1, seq-2 and seq-3 metadata runs (docs/ace.md), each
 * workload built in ACE's order with ACE's dependency pass and written as
 * the j-lang text ACE's generator writes, so that `import --from ace`'s
 * lowering (ace_parse) turns it into the scenario explore judges.  A
 * grammar file selects a space with `space: NAME` (docs/explore.md, "ACE's
 * spaces").
 */
#ifndef EXT4SIM_ACE_H
#define EXT4SIM_ACE_H

#include <stdint.h>
#include <stddef.h>

enum ace_space { ACE_SPACE_NONE, ACE_B3_SEQ1, ACE_B3_SEQ2, ACE_B3_SEQ3_META, ACE_SPACE_COUNT };

#define ACE_SPACE_NAMES_TEXT "b3-seq1, b3-seq2, b3-seq3-meta"
#define ACE_JLANG_MAX 4096              /* bytes of one generated j-lang file */

/* The space named @name ("b3-seq2"), or ACE_SPACE_NONE. */
enum ace_space ace_space_lookup(const char *name);
const char *ace_space_name(enum ace_space sp);

/*
 * Called for each workload: its number in the walk (1-based, as ACE's
 * global_count), its j-lang text (NUL-terminated); nonzero stops the walk.
 */
typedef int (*ace_fn)(void *arg, uint64_t n, const char *jlang);

/*
 * Walk space @sp in ACE's order (skeletons, parameter combinations,
 * persistence choices), calling @fn for the workloads numbered @first to
 * @last (1-based; the walk stops after @last); with @fn NULL nothing is
 * built and the walk counts the whole space.  Returns how many workloads
 * it met: with @fn NULL the space's size (ACE's count, duplicates
 * included).
 */
uint64_t ace_walk(enum ace_space sp, uint64_t first, uint64_t last, ace_fn fn, void *arg);

#endif
