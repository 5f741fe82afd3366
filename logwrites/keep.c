/*
 * keep.c - keep lists, the subsets of pending writes on logreplay's command
 * line and in its output: "none", or numbers and ranges from 1 ("1,3-5"),
 * as the model's `crash --keep` writes them (see cmd.h).
 */
#include "cmd.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A decimal number at *@s (advanced past it); 0, or -1 if there is none or it is too big. */
static int number(const char **s, uint64_t *v)
{
	if (!isdigit((unsigned char)**s))
		return -1;
	*v = 0;
	while (isdigit((unsigned char)**s)) {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*(*s)++ - '0');
	}
	return 0;
}

int lr_parse_keep(const char *list, uint64_t n, uint8_t *keep, char *err, size_t errlen)
{
	const char *s = list;

	memset(keep, 0, n);
	if (!strcmp(list, "none"))
		return 0;
	for (;;) {
		uint64_t lo, hi;

		if (number(&s, &lo)) {
			snprintf(err, errlen, "--keep %s: a number expected at column %d", list,
				 (int)(s - list) + 1);
			return -1;
		}
		hi = lo;
		if (*s == '-' && (s++, number(&s, &hi))) {
			snprintf(err, errlen, "--keep %s: a number expected at column %d", list,
				 (int)(s - list) + 1);
			return -1;
		}
		if (lo < 1 || hi < lo || hi > n) {
			snprintf(err, errlen, "--keep %s: %llu-%llu is not a range of the %llu pending "
				 "write(s)", list, (unsigned long long)lo, (unsigned long long)hi,
				 (unsigned long long)n);
			return -1;
		}
		memset(keep + lo - 1, 1, hi - lo + 1);
		if (!*s)
			return 0;
		if (*s++ != ',') {
			snprintf(err, errlen, "--keep %s: ',' expected at column %d", list,
				 (int)(s - list));
			return -1;
		}
	}
}

void lr_format_keep(const uint8_t *keep, uint64_t n, char *out, size_t outlen)
{
	size_t used = 0;

	out[0] = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t j = i;

		if (!keep[i])
			continue;
		while (j + 1 < n && keep[j + 1])
			j++;
		if (outlen - used < 48)
			break;
		used += (size_t)snprintf(out + used, outlen - used, j > i ? "%s%llu-%llu" : "%s%llu",
					 used ? "," : "", (unsigned long long)i + 1,
					 (unsigned long long)j + 1);
		i = j;
	}
	if (!used)
		snprintf(out, outlen, "none");
}
