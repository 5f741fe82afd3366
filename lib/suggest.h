/*
 * suggest.h - "did you mean": the closest of a list of names to a word
 * mistyped (edit distance, transpositions counted as one edit).
 */
#ifndef EXT4SIM_SUGGEST_H
#define EXT4SIM_SUGGEST_H

#include <stddef.h>

/* The name of @names[0..@n) closest to @word, or NULL when none is close
 * (more than a third of the longer word's letters, at least 1, differ) and
 * @word, two bytes or more, is not the start of exactly one of them. */
const char *suggest_closest(const char *word, const char *const *names, size_t n);

/* " (did you mean 'NAME'?)" into @buf; for a word that starts 2 to 6 names
 * and is close to none, " (did you mean 'A', 'B' or 'C'?)"; "" otherwise. */
const char *suggest_hint(char *buf, size_t cap, const char *word, const char *const *names,
			 size_t n);

#endif
