/*
 * export.h - what the files of ext4sim export share (private to
 * oracle/export*.c and oracle/preambles.c): the command's context, the
 * read-back points the model predicts, the step -> xfs_io emitter, and the
 * writer of each output format.
 */
#ifndef EXT4SIM_EXPORT_H
#define EXT4SIM_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "oracle.h"

#define EXPORT_READ_MAX (64LL << 20)    /* largest file read back at a point */

enum xformat { XF_XFS_IO, XF_FSTESTS, XF_YAML };

enum xkind { XP_PRE, XP_POST, XP_FINAL };

/* One read-back point: before crash N, after it, or the end. */
struct xpoint {
	enum xkind kind;
	unsigned crash_no;              /* 1-based (pre, post) */
	uint32_t upto;                  /* steps of the as-run scenario run before reading */
	int64_t size;
	char sha[65];
	char md5[33];
	char file[16];                  /* pre1, post1, ..., final */
	const struct cs_point *cp;      /* post: the crash point's states */
	char *ns;                       /* pre, final of a namespace scenario: the model's
					 * namespace there (nsnap_text), else NULL */
	bool cont_listed;               /* post: the continuing state is among them */
	char *md5s;                     /* fstests, a namespace point whose tree the golden
					 * output lists: each regular file's "PATH MD5" line
					 * in the model there, else NULL */
};

struct xctx {
	struct cli *c;
	struct loaded *ld;
	const struct sim_variant_cfg *cfg;
	struct scenario run;            /* the as-run scenario (own step array) */
	struct sim_variant_result r;    /* its full run */
	bool have_r;
	struct xpoint *pts;
	unsigned nr_pts;
	struct orc_config oc;
	enum xformat fmt;
	bool ns;                        /* a namespace scenario: the script reads the tree */
	const char *out_dir;
	const char *model_dir;
	const char *test_number;
	const char *copyright_year;     /* fstests' copyright line (--copyright-year) */
	char tmp_dir[256];              /* for dumps without --model-dir */
	const struct sim_variant_cfg *bug_cfg; /* a variant expected to fail, when the
					       * exported one is the fixed side */
};

/* The shell text of one xfs_io process being gathered, and where it goes. */
struct emitter {
	FILE *out;
	enum xformat fmt;
	const struct scenario *s;
	char line[65536];               /* the process's command line being built */
	char steps[65536];              /* its steps, as comment lines */
	bool mapped;
	bool direct;                    /* the process's file is O_DIRECT (xfs_io -d, open -d) */
	uint32_t open_step;             /* 1-based: the open step that starts the process; 0 */
	uint32_t first, end;            /* the process's steps: [first, end) of s */
	/* called after a process's command line is written (NULL: nothing) */
	void (*flushed)(struct emitter *e, uint32_t first, uint32_t end, void *arg);
	void *flush_arg;
};

/* "FILE:LINE:COL: export: ..." for a step of a file, or the -c form; returns 2. */
int xp_refuse(const struct xctx *x, const struct scn_step *st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool xp_is_crash(enum scn_op op);

/* export_model.c: the as-run scenario, and the model's run and read-back points. */
void xp_build_as_run(struct xctx *x);
/* The model's namespace (nsnap_text) after the first @upto steps of the as-run scenario, in a new string. */
char *xp_model_namespace(const struct xctx *x, uint32_t upto);
int xp_run_model(struct xctx *x);
/*
 * After xp_run_model: a warning on stderr when the other side of the test
 * (a bug scenario's failing variant, else the variant nearest in toggles),
 * its toggles on the exported variant's mount options, gives the same
 * bytes at every read-back point (the test cannot tell the two apart),
 * naming the toggles and the test that can (the power-cut campaign).
 */
void xp_warn_indistinct(const struct xctx *x);

/*
 * export_steps.c: the steps as shell text.  xp_emit_steps() gathers each run
 * of in-process steps into one xfs_io command line and, for a step outside a
 * process, writes out what was gathered and the step's comment, then calls
 * @outside, which writes the format's own command for step @i.
 */
typedef void (*xp_outside_fn)(struct emitter *e, uint32_t i, void *arg);
void xp_emit_steps(struct emitter *e, xp_outside_fn outside, void *arg);
void xp_print_step_list(FILE *out, const struct scenario *s, const char *prefix);
/* @prefix then @word as one single-quoted shell word (a ' as '\''). */
void xp_shell_word(FILE *out, const char *prefix, const char *word);
/* The namespace script's "use ./PATH [-f] [-t] [-d] [-s]": open step @st names the process's file. */
void xp_emit_use(FILE *out, const struct scn_step *st);
/* The fstests test's "file=$SCRATCH_MNT/PATH" of open step @st (its flags go on the io line). */
void xp_emit_file(FILE *out, const struct scn_step *st);
void xp_print_config_line(FILE *out, const struct xctx *x, const char *prefix);
/* The real mount options of the export (orc_mount_options_all, dioread as the model mounts). */
void xp_mount_options(const struct xctx *x, char *buf, size_t cap);
void xp_print_mapping_doc(FILE *out, const char *prefix);

/*
 * preambles.c: the shell text that opens each script, as templates.  A
 * template is written as is but for "@{key}", replaced by the text of the
 * variable of that key or by what its print function writes.
 */
struct xp_var {
	const char *key;
	const char *text;               /* NULL: print() writes the value */
	void (*print)(FILE *out, const struct xctx *x);
};
/*
 * The scripts' opening checks, shared by the one-file and the namespace
 * script: the arguments, root, the tools @tools (a string of names), the
 * mount point's file system and block size, the save directory.
 */
#define XP_SCRIPT_CHECKS(tools) \
	"set -u\n" \
	"export LC_ALL=C\n" \
	"die() { echo \"@{name}: $*\" >&2; exit 2; }\n" \
	"[ $# -ge 1 ] && [ $# -le 2 ] || die \"usage: $0 MOUNTPOINT [SAVE_DIR]\"\n" \
	"MNT=$1\n" \
	"SAVE=${2:-}\n" \
	"OPTS=${EXT4SIM_MOUNT_OPTIONS:-@{options}}\n" \
	"LOG=/dev/null\n" \
	"[ \"$(id -u)\" = 0 ] || die \"must run as root (shutdown, mount, drop_caches)\"\n" \
	"for t in " tools "; do\n" \
	"\tcommand -v $t > /dev/null || die \"missing tool: $t\"\n" \
	"done\n" \
	"DEV=$(findmnt -n -o SOURCE --mountpoint \"$MNT\") || die \"$MNT is not a mount point\"\n" \
	"[ \"$(findmnt -n -o FSTYPE --mountpoint \"$MNT\")\" = ext4 ] || die \"$MNT is not ext4\"\n" \
	"[ \"$(stat -f -c %S \"$MNT\")\" = @{block_size} ] ||\n" \
	"\tdie \"$MNT has $(stat -f -c %S \"$MNT\")-byte blocks; the scenario needs @{block_size}\"\n" \
	"if [ -n \"$SAVE\" ]; then\n" \
	"\tmkdir -p \"$SAVE\" || die \"cannot create $SAVE\"\n" \
	"\tLOG=$SAVE/xfs_io.log\n" \
	"\t: > \"$LOG\"\n" \
	"fi\n"

extern const char xp_xfs_io_preamble[];
extern const char xp_xfs_io_ns_preamble[];      /* a namespace scenario's (preambles_ns.c) */
extern const char xp_fstests_preamble[];
extern const char xp_fstests_golden_doc[], xp_fstests_print_state[];
extern const char xp_fstests_ns_golden_doc[];    /* a namespace test's (preambles_ns.c) */
extern const char xp_fstests_io_helper[];
extern const char xp_fstests_check_state_helper[];
extern const char xp_fstests_commit_helper[];
extern const char xp_fstests_ns_helpers[];       /* a namespace test's (preambles_ns.c) */
extern const char xp_fstests_ns_print_helper[], xp_fstests_ns_step_helper[];
extern const char xp_fstests_ns_io_helper[], xp_fstests_ns_fsck_helper[];
extern const char xp_fstests_ns_check_helper[];
void xp_fill(FILE *out, const char *tmpl, const struct xp_var *vars, unsigned nr_vars,
	     const struct xctx *x);

/*
 * export_output.c: what xfs_io prints for steps [first, end) of the as-run
 * scenario (stdout's lines, then the errors); xp_check_io_output() refuses
 * (0, or 2 after the message) a failure whose words are not known;
 * xp_uses_io(): whether any step runs xfs_io on the file.
 */
void xp_io_output(FILE *out, const struct xctx *x, uint32_t first, uint32_t end);
int xp_check_io_output(const struct xctx *x);
bool xp_uses_io(const struct xctx *x);
/* One file per output format. */
void xp_write_xfs_io(FILE *out, const struct xctx *x);
void xp_write_fstests(FILE *test, FILE *golden, const struct xctx *x);
void xp_write_yaml(FILE *out, const struct xctx *x);

/*
 * export_fstests_ns.c: the fstests test of a namespace scenario.  A
 * namespace point's tree in the form the test compares states by (the
 * names' lines of nsnap_text, each inode number replaced by "#RANK", its
 * rank in order of first appearance), in a new string; the golden listing
 * of a point (names, types, link counts, sizes, a regular file's MD5 from
 * @md5s, a link's target, "link of FIRST" for a later name of an inode);
 * the test's command and golden line of namespace step @i; the test's
 * command and golden lines of point @p (labelled @label).
 */
char *xp_ns_check_form(const char *ns);
void xp_ns_golden_tree(FILE *out, const char *ns, const char *md5s);
void xp_fstests_ns_step(FILE *test, FILE *golden, const struct xctx *x, uint32_t i);
void xp_fstests_ns_point(FILE *test, FILE *golden, const struct xpoint *p, const char *label);
/* Whether the golden output lists point @p's tree (one state the model is sure of). */
bool xp_ns_point_listed(const struct xpoint *p);

#endif
