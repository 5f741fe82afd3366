/*
 * cvtnum.c - numbers.  scn_parse_cvtnum() is xfs_io's syntax (libfrog's
 * cvtnum), as the steps take it: strtoll base 0 (decimal, 0x hex, a leading 0
 * for octal), then at most one suffix, any case: k m g t p e (1024-based), b
 * (xfs_io's block: 4096 on a file system other than XFS, whatever its block
 * size; checked on a 1 KiB-block ext4) and s (a 512-byte sector).
 * scn_parse_num() is the stricter form of the YAML config and the command-line
 * flags: decimal or 0x hex, k m g t only, and a leading zero refused rather
 * than guessed.  Both refuse negative numbers, a sign and trailing
 * characters; values stop at SCN_OFFSET_MAX (16 TiB).
 */
#include "scenario.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#define CVTNUM_BLOCK 4096        /* init_cvtnum(): a foreign file system's block */
#define CVTNUM_SECTOR 512

/* Value of digit @c in bases up to 16, or 16 if it is not one. */
static unsigned num_digit(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a') + 10;
	if (c >= 'A' && c <= 'F')
		return (unsigned)(c - 'A') + 10;
	return 16;
}

/* The multiplier of suffix @c (any case), or 0 if @c is not one. */
static uint64_t num_unit(char c, bool cvtnum)
{
	switch (c | 0x20) {
	case 'k': return 1ull << 10;
	case 'm': return 1ull << 20;
	case 'g': return 1ull << 30;
	case 't': return 1ull << 40;
	case 'p': return cvtnum ? 1ull << 50 : 0;
	case 'e': return cvtnum ? 1ull << 60 : 0;
	case 'b': return cvtnum ? CVTNUM_BLOCK : 0;
	case 's': return cvtnum ? CVTNUM_SECTOR : 0;
	default: return 0;
	}
}

/* The base strtoll(.., 0) picks for @s, and where its digits start; 0 for
 * a leading zero the strict form refuses. */
static unsigned num_base(const char **s, bool cvtnum)
{
	if ((*s)[0] == '0' && ((*s)[1] == 'x' || (*s)[1] == 'X')) {
		*s += 2;
		return 16;
	}
	if ((*s)[0] == '0' && (*s)[1] != '\0' && num_digit((*s)[1]) < 10)
		return cvtnum ? 8 : 0;
	return 10;
}

/* Returns 0, -EINVAL (not a number: empty, sign, trailing garbage, a digit
 * its base does not have) or -ERANGE (above SCN_OFFSET_MAX). */
static int parse_num(const char *s, int64_t *out, bool cvtnum)
{
	unsigned base, nr_digits = 0;
	uint64_t v = 0, unit = 1;
	bool big = false;

	if (s == NULL || out == NULL)
		return -EINVAL;
	base = num_base(&s, cvtnum);
	if (base == 0)
		return -EINVAL;
	for (; num_digit(*s) < base; s++, nr_digits++) {
		v = v * base + num_digit(*s);
		if (v > (uint64_t)SCN_OFFSET_MAX) {
			big = true;
			v = (uint64_t)SCN_OFFSET_MAX + 1;
		}
	}
	if (*s != '\0' && (unit = num_unit(*s, cvtnum)) != 0)
		s++;
	if (nr_digits == 0 || *s != '\0' || unit == 0)
		return -EINVAL;
	if (big || v > (uint64_t)SCN_OFFSET_MAX / unit)
		return -ERANGE;
	*out = (int64_t)(v * unit);
	return 0;
}

int scn_parse_num(const char *s, int64_t *out)
{
	return parse_num(s, out, false);
}

int scn_parse_cvtnum(const char *s, int64_t *out)
{
	return parse_num(s, out, true);
}
