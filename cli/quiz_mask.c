/*
 * quiz_mask.c - `ext4sim run --quiz [--reveal]`: the step trace with the
 * answers hidden, for predicting before seeing (see quiz.h).
 *
 * The trace `run` prints is filtered line by line: i_size and i_disksize on
 * a size line, the raw, distinct and violating counts of a crash-states line
 * and the violated invariants of a verdict become numbered blanks ?1, ?2, ...
 * in the order they appear; the counts derived from the raw count (after
 * folding, evaluated) become a bare ?.  Lines that would give an answer away
 * (a step's violations, the VIOLATION and "what happened" lines, a
 * crash_states mismatch, the reproduce line) are left out, and the last
 * line keeps only the scenario and variant counts.  --reveal prints the same
 * masked trace, then the answer key: every blank with the step or verdict it
 * belongs to and its value, and every line left out, in trace order.
 */
#include "quiz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define SIZE_PREFIX "      size:    i_size "
#define CRASH_PREFIX "      crash states: "
#define VERDICT_PREFIX "  verdict "

struct qmask {
	FILE *out;
	FILE *key;                      /* the answer key, written as blanks appear */
	unsigned next;                  /* the next blank's number */
	char where[96];                 /* "[3]" or "verdict default" */
};

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Print ?N in the trace and "?N  WHERE WHAT: VALUE" in the key. */
static void blank(struct qmask *q, const char *what, const char *value)
{
	unsigned n = ++q->next;

	fprintf(q->out, "?%u", n);
	fprintf(q->key, "  ?%-3u %s %s: %s\n", n, q->where, what, value);
}

static void blank_num(struct qmask *q, const char *what, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	blank(q, what, buf);
}

/* "      size:    i_size A, i_disksize B[, orphan]" */
static void mask_sizes(struct qmask *q, const char *line)
{
	long long a, b;
	int n = -1;

	if (sscanf(line + strlen(SIZE_PREFIX), "%lld, i_disksize %lld%n", &a, &b, &n) != 2 ||
	    n < 0) {
		fputs(SIZE_PREFIX, q->out);
		blank(q, "size line", line + strlen(SIZE_PREFIX));
		fputc('\n', q->out);
		return;
	}
	fputs(SIZE_PREFIX, q->out);
	blank_num(q, "i_size", (unsigned long long)a);
	fputs(", i_disksize ", q->out);
	blank_num(q, "i_disksize", (unsigned long long)b);
	fprintf(q->out, "%s\n", line + strlen(SIZE_PREFIX) + n);
}

/* "      crash states: R raw (N unflushed write(s) to B block(s)), F after ..." */
static void mask_crash_states(struct qmask *q, const char *line)
{
	const char *p = line + strlen(CRASH_PREFIX);
	unsigned long long raw, folded, evaluated;
	unsigned writes, blocks, distinct, violating;
	char how[16];
	int n = -1;

	fputs(CRASH_PREFIX, q->out);
	if (sscanf(p, "%llu raw (%u unflushed write(s) to %u block(s)), %llu after folding equal "
		   "writes, %llu evaluated (%15[a-z]), %u distinct, %u violating%n", &raw, &writes,
		   &blocks, &folded, &evaluated, how, &distinct, &violating, &n) != 8 || n < 0 ||
	    p[n] != '\0') {
		blank(q, "crash states", p);
		fputc('\n', q->out);
		return;
	}
	blank_num(q, "raw crash states", raw);
	fprintf(q->out, " raw (%u unflushed write(s) to %u block(s)), ? after folding equal "
		"writes, ? evaluated (%s), ", writes, blocks, how);
	blank_num(q, "distinct crash states", distinct);
	fputs(" distinct, ", q->out);
	blank_num(q, "violating crash states", violating);
	fputs(" violating\n", q->out);
}

/* "  verdict NAME: PASS; violated [..][, expected [..]]" */
static void mask_verdict(struct qmask *q, const char *line)
{
	const char *name = line + strlen(VERDICT_PREFIX), *colon = strstr(name, ": ");
	const char *viol = colon ? strstr(colon, "; violated ") : NULL;
	char value[1024];

	if (!viol) {
		fputs(VERDICT_PREFIX, q->out);
		blank(q, "verdict", name);
		fputc('\n', q->out);
		return;
	}
	snprintf(q->where, sizeof(q->where), "verdict %.*s", (int)(colon - name), name);
	fprintf(q->out, "%.*s: violated ", (int)(colon - line), line);
	snprintf(value, sizeof(value), "%s (%.*s)", viol + strlen("; violated "),
		 (int)(viol - colon - 2), colon + 2);
	blank(q, "violated", value);
	fputc('\n', q->out);
}

/* A line that would give an answer away: only in the key. */
static bool left_out(struct qmask *q, const char *line)
{
	static const char *const give_away[] = {
		"      violation: ", "      note: ", "  VIOLATION ", "  note ",
		"  what happened: ", "  reproduce: ", "  crash_states ",
	};
	const char *p = line;

	for (size_t i = 0; i < sizeof(give_away) / sizeof(give_away[0]); i++) {
		if (!starts(line, give_away[i]))
			continue;
		while (*p == ' ')
			p++;
		fprintf(q->key, "  --   %s %s\n", q->where, p);
		return true;
	}
	return false;
}

static void mask_line(struct qmask *q, const char *line)
{
	unsigned a, b;
	int n = -1;

	if (starts(line, "  [") && sscanf(line, "  [%u]%n", &a, &n) == 1 && n > 0) {
		snprintf(q->where, sizeof(q->where), "[%u]", a);
	} else if (starts(line, "-- variant ")) {
		fprintf(q->key, "  %.*s\n", (int)strcspn(line, ";"), line);
		snprintf(q->where, sizeof(q->where), "start");
	} else if (starts(line, "  ") && line[2] != ' ' && line[2] != '[') {
		snprintf(q->where, sizeof(q->where), "end");
	}
	if (starts(line, SIZE_PREFIX))
		mask_sizes(q, line);
	else if (starts(line, CRASH_PREFIX))
		mask_crash_states(q, line);
	else if (starts(line, VERDICT_PREFIX))
		mask_verdict(q, line);
	else if (left_out(q, line))
		return;
	else if (sscanf(line, "%u scenario(s), %u variant(s): %n", &a, &b, &n) == 2 && n > 0)
		fprintf(q->out, "%u scenario(s), %u variant(s)\n", a, b);
	else
		fprintf(q->out, "%s\n", line);
}

void quiz_mask_print(FILE *out, const char *text, size_t len, bool reveal)
{
	struct qmask q = { .out = out, .where = "" };
	char *key = NULL, *line = malloc(len + 1);
	size_t key_len = 0, start = 0;

	SIM_ASSERT(line != NULL);
	q.key = open_memstream(&key, &key_len);
	SIM_ASSERT(q.key != NULL);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		if (i == len && i == start)
			break;
		memcpy(line, text + start, i - start);
		line[i - start] = '\0';
		mask_line(&q, line);
		start = i + 1;
	}
	fclose(q.key);
	if (reveal)
		fprintf(out, "\nanswers (the blanks in order; -- marks a line the quiz left out):\n%s",
			key);
	free(key);
	free(line);
}

int quiz_take_flags(int argc, struct cmd_opt *opts, bool *quiz, bool *reveal)
{
	int kept = 0;

	for (int i = 0; i < argc; i++) {
		if (opts[i].id == F_QUIZ) {
			*quiz = true;
		} else if (opts[i].id == F_REVEAL) {
			*quiz = true;
			*reveal = true;
		} else {
			opts[kept++] = opts[i];
		}
	}
	return kept;
}

int quiz_check_flags(const struct cli *c)
{
	if (c->o.json || c->o.summary || c->o.events || c->o.explain || c->o.notes ||
	    c->o.dump_file)
		return bad_usage("--quiz hides the answers that --json, --summary, --events, "
				 "--explain, --notes and --dump-file show%s", "");
	return 0;
}

FILE *quiz_open(struct quiz_out *q)
{
	q->out = open_memstream(&q->buf, &q->len);
	SIM_ASSERT(q->out != NULL);
	return q->out;
}

int quiz_close(struct quiz_out *q, bool reveal, int rc)
{
	fclose(q->out);
	if (rc != 2)
		quiz_mask_print(stdout, q->buf, q->len, reveal);
	free(q->buf);
	return rc == 2 ? 2 : 0;
}
