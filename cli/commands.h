/*
 * commands.h - the table of ext4sim's commands and flags (commands.c): help,
 * man page, bash completion, and the arguments normalized by getopt_long.
 */
#ifndef EXT4SIM_COMMANDS_H
#define EXT4SIM_COMMANDS_H

#include <stdio.h>

struct cmd_flag {
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

struct cmd_args {
	int argc;
	char **argv;            /* "--flag value" form; the strings are the caller's or static */
};

const struct cmd_desc *cmd_find(const char *name);
/* Every command, ending with a NULL name. */
const struct cmd_desc *cmd_table(void);
void cmd_usage_all(FILE *out);
void cmd_usage(FILE *out, const struct cmd_desc *d);
/* @argv through getopt_long over @d's flags; 0, or 2 after one message on stderr. */
int cmd_normalize(const struct cmd_desc *d, int argc, char **argv, struct cmd_args *out);
/* ext4sim(1) in roff, and a bash completion script, from the table (commands_doc.c). */
void cmd_print_man(FILE *out, const char *version);
void cmd_print_completion(FILE *out);

#endif
