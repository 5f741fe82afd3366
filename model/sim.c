/*
 * sim.c - shared helpers: the assertion handler and allocation wrappers
 * (an allocation that fails ends the process with a message and exit 2,
 * never an assertion's abort).
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void sim_assert_fail(const char *expr, const char *file, int line)
{
	fprintf(stderr, "ext4sim: model assertion failed: %s (%s:%d)\n", expr,
		file, line);
	abort();
}

/*
 * Out of memory: the run needs more than the machine gives (the check before
 * a run, docs/performance.md "Limits", estimates it from the steps; this is
 * what is left when the estimate was short).  Exit 2 after one line.
 */
_Noreturn static void sim_out_of_memory(size_t size)
{
	fprintf(stderr, "ext4sim: out of memory: %zu more bytes could not be allocated "
		"(docs/performance.md, \"Limits\")\n", size);
	exit(2);
}

void *sim_zalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (p == NULL)
		sim_out_of_memory(size);
	return p;
}

void *sim_realloc_array(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	SIM_ASSERT(size == 0 || nmemb <= SIZE_MAX / size);
	p = realloc(ptr, (nmemb * size) != 0 ? nmemb * size : 1);
	if (p == NULL)
		sim_out_of_memory(nmemb * size);
	return p;
}

void *sim_dup_array(const void *src, size_t n, size_t cap, size_t size)
{
	void *dst;

	SIM_ASSERT(n <= cap);
	if (!cap)
		return NULL;
	dst = sim_realloc_array(NULL, cap, size);
	if (n)
		memcpy(dst, src, n * size);
	return dst;
}

const char *sim_lock_site_name(enum sim_lock_site site)
{
	static const char *const names[SITE_COUNT] = {
		[SITE_WRITE_BEGIN] = "write_begin",
		[SITE_WRITEPAGES] = "writepages",
		[SITE_ZERO_PARTIAL] = "zero_partial",
		[SITE_ISIZE_EXT] = "isize_ext",
		[SITE_READ] = "read",
		[SITE_PAGE_MKWRITE] = "page_mkwrite",
	};

	SIM_ASSERT((unsigned)site < SITE_COUNT);
	return names[site];
}
