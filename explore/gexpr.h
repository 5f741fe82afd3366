/*
 * gexpr.h - step templates of the explore grammar: a step line whose
 * numbers may be written in terms of the block size and the page size.
 *
 * An expression is integer arithmetic over numbers (xfs_io syntax:
 * decimal, 0x hex, k/m/g/t suffixes), the names BS (block size) and PAGE
 * (page size), + - * / and parentheses (at most GX_DEPTH_MAX deep); no
 * spaces inside.  Division must be exact; every value, intermediate ones
 * included, stays within +-SCN_OFFSET_MAX and the result must not be
 * negative.  In a template, a token (space separated) that does not start
 * with - or + is an expression if it names BS or PAGE or holds one of
 * + - * / ( ); every other token (the step name, options such as -S, -k,
 * --short, +S, plain numbers, --keep lists) is kept as written.  The
 * operands of a namespace step (open, creat, mkdir, rmdir, link, unlink,
 * rename, symlink, fsync, fdatasync, setxattr, removexattr: paths such as
 * /A/x, names, values) are never expressions: the whole line is kept as
 * written.  Pure: no model, no I/O.
 */
#ifndef EXT4SIM_GEXPR_H
#define EXT4SIM_GEXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

#define GX_DEPTH_MAX 8           /* nested parentheses */
#define GX_TOKEN_MAX 64          /* bytes in one expression */

/*
 * Evaluate the expression @s (@len bytes, not NUL-terminated) with BS =
 * @bs and PAGE = @page.  Returns 0 and *@out, or -1 with a message in
 * @err and in *@col the 0-based offset in @s where the problem is.
 */
int gx_eval(const char *s, size_t len, int64_t bs, int64_t page, int64_t *out, char *err,
	    size_t errlen, unsigned *col);

/* Is the token @tok (@len bytes) an expression (see above)? */
bool gx_is_expr(const char *tok, size_t len);

/* Is @tmpl a namespace step's line (its operands kept as written, above)? */
bool gx_path_step(const char *tmpl);

/*
 * Expand the template @tmpl: every expression token replaced by its
 * decimal value, tokens joined by one space, into @out (at most
 * SCN_STEP_TEXT_MAX - 1 bytes).  Returns 0, or -1 with a message and the
 * 0-based offset in @tmpl of the problem.
 */
int gx_expand(const char *tmpl, int64_t bs, int64_t page, char out[SCN_STEP_TEXT_MAX],
	      char *err, size_t errlen, unsigned *col);

/*
 * Byte offset @off of the expanded line @out, as an offset in its
 * template @tmpl: the same byte in a token kept as written, the start of
 * an expression token.
 */
unsigned gx_source_col(const char *tmpl, const char *out, unsigned off);

#endif
