/*
 * export_output.c - what xfs_io prints for the steps of an exported test, as
 * the model predicts it (the fstests golden output): "wrote B/L bytes at
 * offset O" and "read B/L bytes at offset O", each with the rate line as
 * fstests' _filter_xfs_io leaves it, and for a step the model fails the
 * message xfs_io's perror() prints ("fallocate: Invalid argument").  The
 * words are xfs_io's (io/pwrite.c, io/pread.c, io/prealloc.c,
 * io/truncate.c, io/fsync.c, io/copy_file_range.c), checked with xfs_io
 * 6.1.0 on 6.18.44.  A failure whose words export does not know is refused.
 */
#include <stdio.h>
#include <string.h>

#include "export.h"

/* The rate line of pwrite and pread after _filter_xfs_io. */
static const char rate_line[] = "XXX Bytes, X ops; XX:XX:XX.X (XXX YYY/sec and XXX ops/sec)\n";

/* The name xfs_io hands perror() when the command of @op fails; NULL: not known. */
static const char *perror_name(enum scn_op op)
{
	switch (op) {
	case SCN_PWRITE: return "pwrite";
	case SCN_PREAD: case SCN_DIO_READ: return "pread";
	case SCN_FALLOC: case SCN_FZERO: case SCN_FPUNCH:
	case SCN_FCOLLAPSE: case SCN_FINSERT: return "fallocate";
	case SCN_TRUNCATE: return "ftruncate";
	case SCN_COPY_RANGE: return "copy_range";
	case SCN_FSYNC: return "fsync";
	case SCN_FDATASYNC: return "fdatasync";
	default: return NULL;
	}
}

/*
 * Why export cannot say what xfs_io prints for step @i of the as-run
 * scenario, or NULL: a failure of a command whose message is not known, or
 * a write that fails part way (xfs_io's count of what it wrote then depends
 * on its buffer size).
 */
static const char *unknown_output(const struct xctx *x, uint32_t i)
{
	const struct scn_step *st = &x->run.steps[i];
	const struct sim_step_result *sr = &x->r.steps[i];

	if (!sr->err || scn_step_is_namespace(st))     /* the test's ns helper prints it */
		return NULL;
	if (!perror_name(st->s_op))
		return "its failure's message from xfs_io is not known to export";
	if ((st->s_op == SCN_PWRITE || st->s_op == SCN_PREAD) && sr->bytes > 0)
		return "it fails part way, and what xfs_io reports then depends on its buffer";
	return NULL;
}

int xp_check_io_output(const struct xctx *x)
{
	for (uint32_t i = 0; i < x->run.nr_steps; i++) {
		const char *why = unknown_output(x, i);

		if (why)
			return xp_refuse(x, &x->run.steps[i], "%s (step %u) fails (%s) in the model: "
					 "%s, so the fstests golden output cannot hold it",
					 scn_op_name(x->run.steps[i].s_op), i + 1,
					 strerror(-x->r.steps[i].err), why);
	}
	return 0;
}

/* What xfs_io prints on stdout for step @i (a successful one). */
static void step_stdout(FILE *out, const struct scn_step *st, const struct sim_step_result *sr)
{
	switch (st->s_op) {
	case SCN_PWRITE:
		fprintf(out, "wrote %lld/%lld bytes at offset %lld\n%s", (long long)sr->bytes,
			(long long)st->s_len, (long long)st->s_off, rate_line);
		break;
	case SCN_PREAD:
	case SCN_DIO_READ:
		fprintf(out, "read %lld/%lld bytes at offset %lld\n%s", (long long)sr->bytes,
			(long long)st->s_len, (long long)st->s_off, rate_line);
		break;
	default:
		break;
	}
}

void xp_io_output(FILE *out, const struct xctx *x, uint32_t first, uint32_t end)
{
	SIM_ASSERT(first <= end && end <= x->run.nr_steps);
	for (uint32_t i = first; i < end; i++)
		if (!x->r.steps[i].err)
			step_stdout(out, &x->run.steps[i], &x->r.steps[i]);
	for (uint32_t i = first; i < end; i++)
		if (x->r.steps[i].err)
			fprintf(out, "%s: %s\n", perror_name(x->run.steps[i].s_op),
				strerror(-x->r.steps[i].err));
}

bool xp_uses_io(const struct xctx *x)
{
	for (uint32_t i = 0; i < x->run.nr_steps; i++)
		if (orc_step_in_process(&x->run.steps[i]) || x->run.steps[i].s_op == SCN_DIO_READ ||
		    x->run.steps[i].s_op == SCN_CHATTR)
			return true;
	return false;
}
