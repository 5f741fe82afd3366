/*
 * json_check.c - `json-check FILE...`: exit 0 when each file holds one valid
 * JSON value (fuzz.c's strict reader), 1 otherwise with the file named; the
 * test topics use it to parse the program's JSON back.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int main(int argc, char **argv)
{
	int rc = argc > 1 ? 0 : 2;

	for (int i = 1; i < argc; i++) {
		size_t len;
		char *s = fuzz_read(argv[i], &len);

		if (!s || !fuzz_json_valid(s, len)) {
			fprintf(stderr, "json-check: %s: %s\n", argv[i], s ? "not valid JSON" : "cannot read");
			rc = 1;
		}
		free(s);
	}
	return rc;
}
