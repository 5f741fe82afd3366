/*
 * suggest.c - the closest name to a mistyped word (optimal string alignment
 * distance: insertions, deletions, substitutions and adjacent transpositions
 * each cost one), for "did you mean" hints in error messages.
 */
#include "suggest.h"

#include <stdio.h>
#include <string.h>

#define SUGGEST_LEN_MAX 64

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

const char *suggest_closest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
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
	return best;
}

const char *suggest_hint(char *buf, size_t cap, const char *word, const char *const *names,
			 size_t n)
{
	const char *s = suggest_closest(word, names, n);

	if (s)
		snprintf(buf, cap, " (did you mean '%s'?)", s);
	else if (cap)
		buf[0] = '\0';
	return buf;
}
