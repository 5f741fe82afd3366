/*
 * quiz_mask.c - `ext4sim run --quiz [--reveal]`: the step trace with the
 * answers hidden, for predicting before seeing (see quiz.h).
 *
 * The trace `run --quiz` prints has a size line on every step and every
 * state line on a crash or read step (trace.h), so that no line's absence
 * tells a value.  It is filtered line by line: i_size and i_disksize on a
 * size line; the raw, distinct and violating counts of a crash-states line
 * and its unflushed writes and blocks (the raw count follows from them);
 * the same counts of a hypothetical crash (--crash-everywhere); the crash
 * line (in-flight writes, the transaction lost, the blocks
 * recovery replayed) and the extents, cache and journal lines of a crash
 * step; a read's byte count, its hex dump (one blank for the whole dump)
 * and the state lines of a read step; the violated invariants of a verdict:
 * each becomes a numbered blank ?1, ?2, ... in the order they appear.  The
 * counts derived from the raw count (after folding, evaluated) become a bare
 * ?.  Lines that would give an answer away (a step's violations, the writes
 * a crash --keep kept and lost, the VIOLATION and "what happened" lines, a
 * crash_states mismatch, the reproduce line) are left out, and the last
 * line keeps only the scenario and variant counts.  --reveal prints the
 * same masked trace, then the answer key: every blank with the step or
 * verdict it belongs to and its value, and every line left out, in trace
 * order.
 */
#include "quiz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define SIZE_PREFIX "      size:    i_size "
#define CRASH_PREFIX "      crash states: "
#define HYPO_PREFIX "      crash states if it crashed here: "
#define VERDICT_PREFIX "  verdict "
#define STATE_INDENT "      "

/* What the step being masked is: its state lines are answers after a crash or a read. */
enum qstep { Q_OTHER, Q_CRASH, Q_READ };

struct qmask {
	FILE *out;
	FILE *key;                      /* the answer key, written as blanks appear */
	unsigned next;                  /* the next blank's number */
	char where[96];                 /* "[3]" or "verdict default" */
	enum qstep step;
	FILE *dump;                     /* a read's hex dump, gathered for its one blank */
	char *dump_buf;
	size_t dump_len;
	unsigned dump_blank;            /* its number, 0: no dump open */
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
	fputs(" raw (", q->out);
	blank_num(q, "unflushed writes", writes);
	fputs(" unflushed write(s) to ", q->out);
	blank_num(q, "blocks written", blocks);
	fprintf(q->out, " block(s)), ? after folding equal writes, ? evaluated (%s), ", how);
	blank_num(q, "distinct crash states", distinct);
	fputs(" distinct, ", q->out);
	blank_num(q, "violating crash states", violating);
	fputs(" violating\n", q->out);
}

/* --crash-everywhere: "...if it crashed here: R raw (W unflushed write(s)), E evaluated (how), D distinct, V violating" */
static void mask_hypothetical(struct qmask *q, const char *line)
{
	const char *p = line + strlen(HYPO_PREFIX);
	unsigned long long raw, evaluated;
	unsigned writes, distinct, violating;
	char how[16];
	int n = -1;

	fputs(HYPO_PREFIX, q->out);
	if (sscanf(p, "%llu raw (%u unflushed write(s)), %llu evaluated (%15[a-z]), %u distinct, "
		   "%u violating%n", &raw, &writes, &evaluated, how, &distinct, &violating, &n) != 6 ||
	    n < 0 || p[n] != '\0') {
		blank(q, "crash states if it crashed here", p);
		fputc('\n', q->out);
		return;
	}
	blank_num(q, "raw crash states if it crashed here", raw);
	fputs(" raw (", q->out);
	blank_num(q, "unflushed writes if it crashed here", writes);
	fprintf(q->out, " unflushed write(s)), ? evaluated (%s), ", how);
	blank_num(q, "distinct crash states if it crashed here", distinct);
	fputs(" distinct, ", q->out);
	blank_num(q, "violating crash states if it crashed here", violating);
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
		"  what happened: ", "  reproduce: ", "  crash_states ", "      kept: ",
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

/* Write the key entry of the open hex dump: its lines, or "(none)". */
static void dump_close(struct qmask *q)
{
	if (!q->dump_blank)
		return;
	fclose(q->dump);
	fprintf(q->key, "  ?%-3u %s the bytes:%s%.*s", q->dump_blank, q->where,
		q->dump_len ? "\n" : " (none)\n", (int)q->dump_len, q->dump_buf);
	free(q->dump_buf);
	q->dump_blank = 0;
}

/* "      read N bytes at OFF[ with O_DIRECT]": the count, then one blank for the dump. */
static void mask_read(struct qmask *q, const char *line)
{
	long long got;
	int n = -1;

	if (sscanf(line, STATE_INDENT "read %lld bytes%n", &got, &n) != 1 || n < 0) {
		fputs(STATE_INDENT, q->out);
		blank(q, "read", line + strlen(STATE_INDENT));
		fputc('\n', q->out);
		return;
	}
	fputs(STATE_INDENT "read ", q->out);
	blank_num(q, "bytes read", (unsigned long long)got);
	fprintf(q->out, "%s\n" STATE_INDENT, line + strlen(STATE_INDENT "read ") +
		strcspn(line + strlen(STATE_INDENT "read "), " "));
	q->dump_blank = ++q->next;
	fprintf(q->out, "?%u (the bytes read)\n", q->dump_blank);
	q->dump = open_memstream(&q->dump_buf, &q->dump_len);
	SIM_ASSERT(q->dump != NULL);
}

/* A hex dump line "      0000abcd: ..." of the open read: into its blank. */
static bool dump_line(struct qmask *q, const char *line)
{
	unsigned off;
	int n = -1;

	if (!q->dump_blank || sscanf(line, STATE_INDENT "%8x:%n", &off, &n) != 1 || n != 15)
		return false;
	fprintf(q->dump, "         %s\n", line + strlen(STATE_INDENT));
	return true;
}

/* A crash or read step's crash line or state line: one blank for its text. */
static bool mask_state(struct qmask *q, const char *line)
{
	static const char *const names[] = { "crash: ", "extents: ", "cache:   ", "journal: " };
	char what[16];

	if (q->step == Q_OTHER || !starts(line, STATE_INDENT))
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!starts(line + strlen(STATE_INDENT), names[i]))
			continue;
		snprintf(what, sizeof(what), "%.*s", (int)strcspn(names[i], ":"), names[i]);
		fprintf(q->out, STATE_INDENT "%s", names[i]);
		blank(q, what, line + strlen(STATE_INDENT) + strlen(names[i]));
		fputc('\n', q->out);
		return true;
	}
	return false;
}

/* Where the line is: a step (and its kind), a variant's start, its end. */
static void mask_where(struct qmask *q, const char *line)
{
	static const char *const reads[] = { "pread", "dio_read", "r ", "read " };
	unsigned a;
	int n = -1;

	if (starts(line, "  [") && sscanf(line, "  [%u]%n", &a, &n) == 1 && n > 0) {
		snprintf(q->where, sizeof(q->where), "[%u]", a);
		q->step = starts(line + n, " crash") || starts(line + n, " shutdown") ||
			  starts(line + n, " godown") ? Q_CRASH : Q_OTHER;
		for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
			if (starts(line + n + 1, reads[i]))
				q->step = Q_READ;
	} else if (starts(line, "-- variant ")) {
		fprintf(q->key, "  %.*s\n", (int)strcspn(line, ";"), line);
		snprintf(q->where, sizeof(q->where), "start");
		q->step = Q_OTHER;
	} else if (starts(line, "  ") && line[2] != ' ' && line[2] != '[') {
		snprintf(q->where, sizeof(q->where), "end");
		q->step = Q_OTHER;
	}
}

static void mask_line(struct qmask *q, const char *line)
{
	unsigned a, b;
	int n = -1;

	if (dump_line(q, line))
		return;
	dump_close(q);
	mask_where(q, line);
	if (starts(line, SIZE_PREFIX))
		mask_sizes(q, line);
	else if (starts(line, CRASH_PREFIX))
		mask_crash_states(q, line);
	else if (starts(line, HYPO_PREFIX))
		mask_hypothetical(q, line);
	else if (starts(line, VERDICT_PREFIX))
		mask_verdict(q, line);
	else if (q->step == Q_READ && starts(line, STATE_INDENT "read "))
		mask_read(q, line);
	else if (mask_state(q, line) || left_out(q, line))
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
	dump_close(&q);
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
