/*
 * fuzz.h - what the libFuzzer harnesses of tests/fuzz/ share (fuzz.c): the
 * input as a file (the loaders read paths), a strict JSON reader to parse
 * the program's JSON back, and a failure that libFuzzer reports as a crash.
 */
#ifndef EXT4SIM_FUZZ_H
#define EXT4SIM_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Write @data to this process's scratch file named @suffix; returns its path. */
const char *fuzz_file(const char *suffix, const uint8_t *data, size_t size);
/* Read a whole file (NUL-terminated, length in *@len); NULL when it cannot. */
char *fuzz_read(const char *path, size_t *len);
/* Is @s[0..@len) one JSON value (RFC 8259: UTF-8, escapes, nesting under 256)? */
bool fuzz_json_valid(const char *s, size_t len);
/* A broken property: print @what and abort, which libFuzzer records. */
void fuzz_fail(const char *what, const char *detail) __attribute__((noreturn));
/* Send stdout to the scratch file @suffix (emptied); returns its path. */
const char *fuzz_stdout_to(const char *suffix);

#endif
