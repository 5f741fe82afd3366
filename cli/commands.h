/*
 * commands.h - the table of ext4sim's commands and flags (commands.c): help,
 * man page, bash completion, and the arguments normalized by getopt_long.
 */
#ifndef EXT4SIM_COMMANDS_H
#define EXT4SIM_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

/* Every flag of every command; a table row names one (commands.c). */
enum cmd_flag_id {
	F_NONE,                 /* the table's end; a positional argument in cmd_opt */
	F_BLOCK_SIZE,
	F_DATA,
	F_DELALLOC,
	F_NODELALLOC,
	F_DIOREAD_NOLOCK,
	F_DIOREAD_LOCK,
	F_AUTO_DA_ALLOC,
	F_NOAUTO_DA_ALLOC,
	F_KERNEL,
	F_DISK_BLOCKS,
	F_PATCH,
	F_VARIANT,
	F_JSON,
	F_SUMMARY,
	F_QUIET,
	F_DUMP_FILE,
	F_FAIL_ON,
	F_CRASH_BOUND,
	F_CRASH_EVERYWHERE,
	F_CRASH_REFERENCE,
	F_CHECKER_LOG,
	F_MAX_BYTES,
	F_EVENTS,
	F_EXPLAIN,
	F_TIMELINE,
	F_NOTES,
	F_C,
	F_QUIZ,
	F_REVEAL,
	F_POINT,
	F_KEEP,
	F_TOGGLES,
	F_GOOD,
	F_BAD,
	F_FORMAT,
	F_O,
	F_MODEL_DIR,
	F_TEST_NUMBER,
	F_COPYRIGHT_YEAR,
	F_FROM,
	F_NAME,
	F_POLLUTE_EOF,
	F_SEED,
	F_COUNT,
	F_OUT,
	F_NAMESPACE,
	F_DIO,
	F_STEPS,
	F_KINDS,
	F_RUN,
	F_SHARD,
	F_GRAMMAR,
	F_DIFF,
	F_CRASH_AT,
	F_FIXED_LENGTH,
	F_NO_MINIMIZE,
	F_NO_SHARE,
	F_NO_SHARE_STATES,
	F_SHARE_STATS,
	F_MAX_SPACE,
	F_DIFF_STATES,
	F_INVARIANT,
	F_ANSWERS,
	F_YAML,
	F_IMAGE,
	F_FROM_IMAGE,
	F_IMAGES,
	F_MAX_IMAGE_BYTES,
	F_NR
};

struct cmd_flag {
	enum cmd_flag_id id;
	const char *name;       /* "--block-size", or "-c" */
	const char *arg;        /* the value's name, NULL for none */
	const char *help;
};

struct cmd_desc {
	const char *name;
	const char *synopsis;
	const char *summary;
	const struct cmd_flag *flags;   /* ends with a NULL name */
};

/* One argument as parsed: a flag of the table with its value, or a positional argument. */
struct cmd_opt {
	enum cmd_flag_id id;    /* F_NONE: a positional argument, in val */
	const char *name;       /* the flag's name in the table ("--block-size"); NULL for F_NONE */
	char *val;              /* the value (the caller's string), NULL for a flag without one */
};

/* A command's arguments in the order given (order matters: -c steps, --patch). */
struct cmd_args {
	int argc;
	struct cmd_opt *opts;
};

const struct cmd_desc *cmd_find(const char *name);
/* Every command, ending with a NULL name. */
const struct cmd_desc *cmd_table(void);
void cmd_usage_all(FILE *out);
void cmd_usage(FILE *out, const struct cmd_desc *d);
/*
 * @argv through getopt_long over @d's flags into @out (free out->opts); 0, or
 * 2 after one message on stderr.
 */
int cmd_parse(const struct cmd_desc *d, int argc, char **argv, struct cmd_args *out);
/* True when @arg is a short flag with a value in any command's rows (-c, -o). */
bool cmd_is_short_valued(const char *arg);
/* A flag the table gives a command but its code does not read: a message, 2. */
int cmd_no_code(const char *cmd, const struct cmd_opt *o);
/* Drop @o's entry @i of @n (the command took it); returns the new count. */
int cmd_take(struct cmd_opt *o, int n, int i);
/* ext4sim(1) in roff, and a bash completion script, from the table (commands_doc.c). */
void cmd_print_man(FILE *out, const char *version);
void cmd_print_completion(FILE *out);

#endif
