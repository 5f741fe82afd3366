/*
 * scnpath.c - the path operand of a namespace step (docs/scenario-format.md,
 * "Namespace steps"): its bytes, components and limits, checked where the
 * step is parsed, so that a bad path is bad input (FILE:LINE:COL) and never
 * a model error.
 *
 * A path names a file from the file system's root: "a/b" and "/a/b" are the
 * same path, kept as "/a/b".  "." and ".." are taken as names and left for
 * the model to resolve (as the kernel's path walk does); an empty component
 * ("a//b", "a/") is refused, as is an empty path.  The limits are
 * SCN_PATH_MAX (the NUL and a leading '/' counted), SCN_PATH_DEPTH
 * components and SCN_NAME_LEN bytes a component (EXT4_NAME_LEN); the
 * components are checked first, so that a name too long for ext4 is told
 * as such, not as a path too long.
 */
#include "scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Record a path error at byte @off of the operand.  Returns -1. */
__attribute__((format(printf, 5, 6)))
static int path_err(char *err, size_t errlen, unsigned *col_out, unsigned off,
		    const char *fmt, ...)
{
	va_list ap;

	if (col_out)
		*col_out = off;
	if (err == NULL || errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The first byte of @t outside 0x21-0x7e, or -1. */
static long path_bad_byte(const char *t)
{
	for (size_t i = 0; t[i]; i++)
		if ((unsigned char)t[i] < 0x21 || (unsigned char)t[i] > 0x7e)
			return (long)i;
	return -1;
}

/*
 * Walk the components of @t (past its leading '/', if any, at @start):
 * none empty, none longer than SCN_NAME_LEN, at most SCN_PATH_DEPTH.
 */
static int path_components(const char *t, size_t start, const char *what, char *err,
			   size_t errlen, unsigned *col_out)
{
	char q[SCN_QUOTE_BUF];
	unsigned depth = 0;

	for (size_t i = start; t[i];) {
		size_t n = strcspn(t + i, "/");

		if (n == 0)
			return path_err(err, errlen, col_out, (unsigned)i, "%s '%s' has an empty "
					"component (names are separated by one '/', and a path "
					"does not end with one)", what, scn_quote(q, t));
		if (n > SCN_NAME_LEN)
			return path_err(err, errlen, col_out, (unsigned)i, "%s '%s': a name of %zu "
					"bytes (max %d, EXT4_NAME_LEN)", what, scn_quote(q, t), n,
					SCN_NAME_LEN);
		if (++depth > SCN_PATH_DEPTH)
			return path_err(err, errlen, col_out, (unsigned)i, "%s '%s' has more than "
					"%d components", what, scn_quote(q, t), SCN_PATH_DEPTH);
		i += n;
		if (t[i] == '/' && t[i + 1] == '\0')
			return path_err(err, errlen, col_out, (unsigned)i, "%s '%s' has an "
					"empty component (names are separated by one '/', and a "
					"path does not end with one)", what, scn_quote(q, t));
		i += t[i] == '/';
	}
	return 0;
}

/* Check a namespace step's path operand; see scenario.h. */
int scn_parse_path(const char *text, const char *what, char out[SCN_PATH_MAX], char *err,
		   size_t errlen, unsigned *col_out)
{
	size_t len = strlen(text), lead = text[0] == '/';
	char q[SCN_QUOTE_BUF];
	long bad = path_bad_byte(text);

	if (col_out)
		*col_out = 0;
	if (len == 0)
		return path_err(err, errlen, col_out, 0, "%s is empty", what);
	if (bad >= 0)
		return path_err(err, errlen, col_out, (unsigned)bad, "%s '%s': byte 0x%02x (a "
				"path takes the bytes 0x21-0x7e)", what, scn_quote(q, text),
				(unsigned char)text[bad]);
	if (path_components(text, lead, what, err, errlen, col_out) < 0)
		return -1;
	if (len + !lead >= SCN_PATH_MAX)
		return path_err(err, errlen, col_out, 0, "%s '%s' is too long (%zu bytes with "
				"its leading '/', max %u)", what, scn_quote(q, text), len + !lead,
				SCN_PATH_MAX - 1);
	snprintf(out, SCN_PATH_MAX, "%s%s", lead ? "" : "/", text);
	return 0;
}
