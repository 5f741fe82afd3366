/*
 * cli.h - the command line shared by the ext4sim commands: flags into
 * struct cli, scenario inputs (files, directories, -c steps), loading and
 * resolving each scenario's variants.  Bad usage prints one message on
 * stderr and returns 2; nothing is printed on stdout.
 */
#ifndef EXT4SIM_CLI_H
#define EXT4SIM_CLI_H

#include "commands.h"
#include "run.h"
#include "scenario.h"

#define EXT4SIM_VERSION "0.1.0"
#define MAX_INPUTS 4096
#define INPUT_DIR_FILES_MAX 10000       /* entries of one scenario directory */
#define INPUT_FILES_MAX 100000          /* scenario files one command takes, in all */
#define INPUT_DEPTH_MAX 8               /* directories nested under an input */
#define STR_(x) #x
#define STR(x) STR_(x)

/*
 * The judging flags (--crash-everywhere, --crash-bound, --fail-on) as the
 * command line and the command gave them, kept at the first scenario
 * loaded, so that each scenario's config: layers over them alone.
 */
struct cli_judging {
	bool j_saved;
	bool j_set_crash_bound;         /* --crash-bound given */
	bool j_crash_everywhere;
	uint64_t j_crash_bound;
	bool j_fail_on[INV_COUNT];
};

struct cli {
	struct sim_overrides ov;
	struct cli_judging judging;
	struct sim_options o;
	char *inputs[MAX_INPUTS];
	unsigned nr_inputs;
	char *cmds[SCN_STEPS_MAX];
	unsigned nr_cmds;
	const char *from_image;         /* --from-image FILE */
	const char *images;             /* crashstates --images DIR */
	bool has_max_image_bytes;
	struct blkdev *from_dev;        /* --from-image's device, loaded (c->o.from_image) */
};

struct input_list {
	char **paths;
	unsigned nr;
	unsigned cap;
};

/* A loaded scenario and its resolved variants. */
struct loaded {
	struct scenario s;
	struct sim_variant_cfg cfg[SCN_VARIANTS_MAX];
	unsigned nr_cfg;
};

/* "ext4sim: MESSAGE" (printf-like, one %s for @arg) and the usage hint; returns 2. */
int bad_usage(const char *fmt, const char *arg);
int parse_u32(const char *s, uint32_t *out);
/*
 * The values of the configuration flags every command spells the same way:
 * --block-size (1024, 2048 or 4096), --data (ordered, writeback, journal) and
 * --kernel (a profile's name).  0, or 2 after the one message for each.
 */
int parse_block_size(const char *v, uint32_t *out);
int parse_data_mode(const char *v, enum scn_data_mode *out);
int parse_kernel_name(const char *v);
/*
 * The mount flags with no value past --delalloc/--nodelalloc (--dioread-nolock,
 * --dioread-lock, --auto-da-alloc, --noauto-da-alloc) into @ov, noted for
 * reproduce lines: 0, or 1 when @o is none of them.
 */
int mount_flag(struct sim_overrides *ov, const struct cmd_opt *o);
/* The flags and inputs of run, crashstates and diff. */
int parse_run_args(struct cli *c, int argc, const struct cmd_opt *opts);
/* parse_run_args over @argv parsed with run's flags (for tools that build argv). */
int parse_run_argv(struct cli *c, int argc, char **argv);
/* Inputs as scenario paths: directories expanded to their *.yaml, in name order. */
int expand_inputs(struct cli *c, struct input_list *l);
/* The -c steps as a scenario named "inline". */
int inline_scenario(struct cli *c, struct scenario *s);
/* Load @path (NULL: already in ld->s) and resolve its variants with the flags. */
int load_one(struct cli *c, const char *path, struct loaded *ld);

/*
 * What a run of a scenario shows, as matrix and bisect compare it
 * (matrix.c): the invariants counted as violated (the scenario's expect:
 * set aside), the final bytes' SHA-256, a digest of every crash state.
 */
struct run_outcome {
	bool violated[INV_COUNT];
	char final_sha256[65];
	char states_sha256[65];
};

void outcome_run(const struct loaded *ld, const struct sim_variant_cfg *cfg,
		 const struct sim_options *o, struct run_outcome *out);
bool outcome_same_verdict(const struct run_outcome *a, const struct run_outcome *b);
bool outcome_same(const struct run_outcome *a, const struct run_outcome *b);
/*
 * With the scenario's expect: set aside: "violates nothing" or "violates
 * a, b" (the invariants counted as violated); never PASS/FAIL, which run
 * and diff keep for "as expected".
 */
void outcome_verdict_text(const struct run_outcome *oc, char *out, size_t cap);
/* The scenario's settings under profile @p, with variant @variant's patches (NULL: none). */
int cfg_for_profile(const struct cli *c, const struct loaded *ld, const char *variant,
		    const struct ext4_profile *p, struct sim_variant_cfg *out);
/*
 * The image flags against scenario @ld (images.c): --image and --images
 * want one variant to write, --from-image an image of the variants' size
 * that their mount takes (loaded once into c->from_dev, then c->o.from_image;
 * every later scenario must have the same size).  0, or 2 after the message.
 */
int images_check_loaded(struct cli *c, const struct loaded *ld, bool one_scenario);
/* Free --from-image's device. */
void images_free(struct cli *c);
/*
 * crashstates --images: stdout into memory (@buf) and DIR's temporary
 * directory opened as c->o.image_sink; images_end writes the output and
 * renames the directory, or removes it and exits 2 when an image failed.
 */
struct images_run {
	struct sim_image_dir *dir;
	FILE *saved_stdout;
	char *buf;
	size_t len;
};
int images_begin(struct cli *c, const struct loaded *ld, struct images_run *ir);
int images_end(struct images_run *ir, int rc);

/* Load the one scenario file or the -c steps of command @cmd. */
int load_single(struct cli *c, struct loaded *ld, const char *cmd);

/* ext4sim diff (diff.c), matrix (matrix.c), bisect (bisect.c), minimize (minimize.c),
 * explore (explore.c) */
int cmd_diff(int argc, struct cmd_opt *opts);
int cmd_matrix(int argc, struct cmd_opt *opts);
int cmd_bisect(int argc, struct cmd_opt *opts);
int cmd_minimize(int argc, struct cmd_opt *opts);
int cmd_explore(int argc, struct cmd_opt *opts);
int cmd_merge(int argc, struct cmd_opt *opts);
/* ext4sim export, import, gen (export.c, import.c, gen.c; docs/real-kernel.md) */
int cmd_export(int argc, struct cmd_opt *opts);
int cmd_import(int argc, struct cmd_opt *opts);
int cmd_gen(int argc, struct cmd_opt *opts);

#endif
