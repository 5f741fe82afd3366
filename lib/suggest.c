/*
 * suggest.c - the closest name to a mistyped word (optimal string alignment
 * distance: insertions, deletions, substitutions and adjacent transpositions
 * each cost one), for "did you mean" hints in error messages; a word that
 * is close to none but starts names (a truncated one: "expl", "--crash")
 * gets the one it starts, or all of them up to SUGGEST_PREFIX_MAX.
 */
#include "suggest.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SUGGEST_LEN_MAX 64
#define SUGGEST_PREFIX_MAX 6     /* names a truncated one may start and all be named */

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

/* The distance between @a and @b (both shorter than SUGGEST_LEN_MAX). */
static unsigned osa_distance(const char *a, const char *b)
{
	static unsigned d[SUGGEST_LEN_MAX + 1][SUGGEST_LEN_MAX + 1];
	size_t n = strlen(a), m = strlen(b);

	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			unsigned cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[n][m];
}

/* Whether @name starts with @word, a word of at least two bytes with a letter or digit. */
static bool is_prefix(const char *word, size_t wl, const char *name)
{
	return wl >= 2 && strspn(word, "-") < wl && strlen(name) > wl &&
	       strncmp(word, name, wl) == 0;
}

/* How many of @names start with @word (a truncated name), the first in *@first. */
static size_t prefix_matches(const char *word, const char *const *names, size_t n,
			     const char **first)
{
	size_t wl = strlen(word), m = 0;

	*first = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!is_prefix(word, wl, names[i]))
			continue;
		if (!m++)
			*first = names[i];
	}
	return m;
}

const char *suggest_closest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL, *first;
	unsigned best_d = ~0u;
	size_t wl = strlen(word);

	if (wl == 0 || wl >= SUGGEST_LEN_MAX)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t nl = strlen(names[i]), longer = nl > wl ? nl : wl;
		unsigned dist, limit = (unsigned)(longer / 3) ? (unsigned)(longer / 3) : 1;

		if (nl >= SUGGEST_LEN_MAX)
			continue;
		dist = osa_distance(word, names[i]);
		if (dist <= limit && dist < best_d) {
			best = names[i];
			best_d = dist;
		}
	}
	if (!best && prefix_matches(word, names, n, &first) == 1)
		best = first;           /* a truncated name: the one it starts */
	return best;
}

const char *suggest_hint(char *buf, size_t cap, const char *word, const char *const *names,
			 size_t n)
{
	const char *s = suggest_closest(word, names, n), *first;
	size_t m = s ? 0 : prefix_matches(word, names, n, &first), len, k = 0;

	if (cap)
		buf[0] = '\0';
	if (s) {
		snprintf(buf, cap, " (did you mean '%s'?)", s);
		return buf;
	}
	if (m < 2 || m > SUGGEST_PREFIX_MAX)
		return buf;
	/* a truncated name that starts several: name them all */
	snprintf(buf, cap, " (did you mean");
	for (size_t i = 0; i < n && (len = strlen(buf)) < cap; i++) {
		if (!is_prefix(word, strlen(word), names[i]))
			continue;
		k++;
		snprintf(buf + len, cap - len, "%s'%s'%s", k == 1 ? " " : k == m ? " or " : ", ",
			 names[i], k == m ? "?)" : "");
	}
	return buf;
}
