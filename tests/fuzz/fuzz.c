/*
 * fuzz.c - helpers of the libFuzzer harnesses (see fuzz.h): scratch files
 * named by the process id under $TMPDIR (or /tmp), of one length whatever the
 * id (a path in a message must not change what a run covers), and a strict
 * JSON reader.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path_buf[8][512];

static const char *scratch(const char *suffix, unsigned slot)
{
	const char *dir = getenv("TMPDIR");

	snprintf(path_buf[slot], sizeof(path_buf[slot]), "%s/ext4sim-fuzz-%010ld-%s",
		 dir && *dir ? dir : "/tmp", (long)getpid(), suffix);
	return path_buf[slot];
}

const char *fuzz_file(const char *suffix, const uint8_t *data, size_t size)
{
	const char *p = scratch(suffix, 0);
	FILE *f = fopen(p, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		fuzz_fail("cannot write the scratch file", p);
	return p;
}

char *fuzz_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = 2 * cap + 4096 + 1;
			buf = realloc(buf, cap);
			if (!buf)
				fuzz_fail("out of memory", path);
		}
		size_t got = fread(buf + n, 1, 4096, f);

		n += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

const char *fuzz_stdout_to(const char *suffix)
{
	const char *p = scratch(suffix, 1);

	fflush(stdout);
	if (!freopen(p, "w", stdout))
		fuzz_fail("cannot redirect stdout", p);
	return p;
}

void fuzz_fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz: %s: %.2000s\n", what, detail ? detail : "");
	abort();
}

/* --- JSON --- */

struct jr {
	const unsigned char *p, *end;
	unsigned depth;
};

static void ws(struct jr *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* One UTF-8 sequence of a string: the shortest form, no surrogates. */
static bool utf8(struct jr *j)
{
	unsigned c = *j->p, n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
	uint32_t v = c & (n == 3 ? 0x07 : n == 2 ? 0x0f : 0x1f);

	if (c < 0xc2 || c > 0xf4 || j->end - j->p <= (long)n)
		return false;
	for (unsigned k = 1; k <= n; k++) {
		if ((j->p[k] & 0xc0) != 0x80)
			return false;
		v = v << 6 | (j->p[k] & 0x3f);
	}
	if ((n == 2 && v < 0x800) || (n == 3 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff))
		return false;
	j->p += n + 1;
	return true;
}

static bool string(struct jr *j)
{
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p < 0x20)
			return false;
		if (*j->p >= 0x80) {
			if (!utf8(j))
				return false;
			continue;
		}
		if (*j->p++ != '\\')
			continue;
		if (j->p == j->end || !strchr("\"\\/bfnrtu", *j->p))
			return false;
		if (*j->p++ == 'u')
			for (int k = 0; k < 4; k++, j->p++)
				if (j->p == j->end || !strchr("0123456789abcdefABCDEF", *j->p))
					return false;
	}
	if (j->p == j->end)
		return false;
	j->p++;
	return true;
}

static bool digits(struct jr *j)
{
	const unsigned char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

static bool number(struct jr *j)
{
	if (*j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!digits(j))
		return false;
	if (j->p < j->end && *j->p == '.' && (j->p++, !digits(j)))
		return false;
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		return digits(j);
	}
	return true;
}

static bool value(struct jr *j);

static bool members(struct jr *j, char close, bool keys)
{
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return true;
	}
	for (;;) {
		ws(j);
		if (keys) {
			if (j->p == j->end || *j->p != '"' || !string(j))
				return false;
			ws(j);
			if (j->p == j->end || *j->p++ != ':')
				return false;
		}
		if (!value(j))
			return false;
		ws(j);
		if (j->p == j->end)
			return false;
		if (*j->p == close) {
			j->p++;
			return true;
		}
		if (*j->p++ != ',')
			return false;
	}
}

static bool literal(struct jr *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static bool value(struct jr *j)
{
	bool ok;

	ws(j);
	if (j->p == j->end || ++j->depth > 256)
		return false;
	switch (*j->p) {
	case '{': ok = members(j, '}', true); break;
	case '[': ok = members(j, ']', false); break;
	case '"': ok = string(j); break;
	case 't': ok = literal(j, "true"); break;
	case 'f': ok = literal(j, "false"); break;
	case 'n': ok = literal(j, "null"); break;
	default: ok = number(j); break;
	}
	j->depth--;
	return ok;
}

bool fuzz_json_valid(const char *s, size_t len)
{
	struct jr j = { (const unsigned char *)s, (const unsigned char *)s + len, 0 };

	if (!value(&j))
		return false;
	ws(&j);
	return j.p == j.end;
}
