/*
 * quiz.h - predict, then reveal (docs/tutorial/README.md): `run --quiz`
 * prints the step trace with the answers hidden (quiz_mask.c), and
 * `ext4sim quiz --seed S` generates a crash problem whose answers are the
 * model's own crash states (quiz.c).
 */
#ifndef EXT4SIM_QUIZ_H
#define EXT4SIM_QUIZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/*
 * Take --quiz and --reveal out of @argv (--reveal implies --quiz); the other
 * arguments keep their order.  Returns the new argument count.
 */
int quiz_take_flags(int argc, struct cmd_opt *opts, bool *quiz, bool *reveal);

/* --quiz with a flag that prints answers (--json, --events, ...): usage, 2. */
int quiz_check_flags(const struct cli *c);

/* run --quiz: the trace is written to memory, then masked. */
struct quiz_out {
	FILE *out;
	char *buf;
	size_t len;
};

/* A stream for the trace. */
FILE *quiz_open(struct quiz_out *q);
/* Print the masked trace (and with @reveal the answers); returns 0, or @rc if 2. */
int quiz_close(struct quiz_out *q, bool reveal, int rc);

/*
 * Print @text, the trace `run` printed, to @out with every size, crash-state
 * count and verdict replaced by a numbered blank (?1, ?2, ...), and the
 * lines that would give them away (violations, what happened) left out;
 * with @reveal, then the answer key: each blank's value and where it is,
 * and the lines left out.
 */
void quiz_mask_print(FILE *out, const char *text, size_t len, bool reveal);

/* ext4sim quiz --seed S [--answers | --yaml] (quiz.c) */
int cmd_quiz(int argc, struct cmd_opt *opts);

#endif
