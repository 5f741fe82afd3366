/*
 * commands_doc.c - the man page ext4sim(1) and the bash completion script,
 * printed from the command table (commands.c), so neither can drift from
 * what the program takes; the man page's EXAMPLES (each run by the cli
 * topic) and FILES; the completion completes flags, the values of the
 * flags that take a fixed set (--format, --data, --from, --kernel, ...) and
 * `help COMMAND`.  `make install` writes both.
 */
#include <string.h>

#include "commands.h"
#include "profile.h"

/* @s with roff's special characters escaped ('-' as "\-", a leading '.' guarded). */
static void roff(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			fputc('\\', out);
		fputc(*s == '\\' ? 'e' : *s, out);
	}
}

static void man_command(FILE *out, const struct cmd_desc *d)
{
	fputs(".TP\n.B ext4sim ", out);
	roff(out, d->name);
	fputc(' ', out);
	roff(out, d->synopsis);
	fputc('\n', out);
	roff(out, d->summary);
	fputs(".\n", out);
	for (const struct cmd_flag *f = d->flags; f->name; f++) {
		fputs(".RS\n.TP\n.B ", out);
		roff(out, f->name);
		if (f->arg) {
			fputs(" \\fI", out);
			roff(out, f->arg);
			fputs("\\fR", out);
		}
		fputc('\n', out);
		roff(out, f->help);
		fputs("\n.RE\n", out);
	}
}

/*
 * Where make install puts the documentation: its default PREFIX, which
 * make install replaces by the one it was given (Makefile, install).
 */
#define DOC_PREFIX "/usr/local"

/* Commands of the man page's EXAMPLES, each run from the documentation directory by
 * tests/topics/cli.sh. */
static const struct {
	const char *cmd;
	const char *what;
} examples[] = {
	{ "ext4sim run scenarios/crash/two-crashes.yaml",
	  "replay a scenario: its step trace and a verdict per variant" },
	{ "ext4sim run -c \"pwrite -S 0xaa 0 5000\" -c fsync -c crash",
	  "steps on the command line, in xfs_io syntax" },
	{ "ext4sim crashstates scenarios/crash/two-crashes.yaml",
	  "every state a crash can leave at each crash point, judged" },
	{ "ext4sim crashstates --images states scenarios/crash/unwritten-until-converted.yaml",
	  "also each distinct crash state's device as the power cut left it, a sparse image "
	  "a state under states/ (run --from-image opens one)" },
	{ "ext4sim diff --patch short_copy_zero scenarios/bugs/2023-short-copy-disksize.yaml",
	  "each variant with a toggle off and on, side by side (exit 1: a verdict differs)" },
	{ "ext4sim explore --steps 2 --kinds write,truncate,crash",
	  "search every sequence of two steps of those kinds for findings" },
	{ "ext4sim export --format fstests --test-number 042 scenarios/crash/two-crashes.yaml",
	  "the scenario as an fstests test and its golden output" },
	{ "printf 'pwrite -S 0xaa 0 4k\\nfsync\\n' | ext4sim import --from xfs_io /dev/stdin",
	  "xfs_io commands (or an fsx log, fsx --record-ops) as a scenario, on standard output" },
};

static void man_examples(FILE *out)
{
	fputs(".SH EXAMPLES\n", out);
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		fputs(".TP\n.B ", out);
		roff(out, examples[i].cmd);
		fputc('\n', out);
		roff(out, examples[i].what);
		fputs(".\n", out);
	}
}

void cmd_print_man(FILE *out, const char *version)
{
	fprintf(out, ".TH EXT4SIM 1 \"\" \"ext4sim %s\" \"User Commands\"\n", version);
	fputs(".SH NAME\next4sim \\- a deterministic model of the ext4 buffered-write path and its "
	      "crash states\n.SH SYNOPSIS\n.B ext4sim\n\\fICOMMAND\\fR [\\fIFLAGS\\fR] ...\n"
	      ".SH DESCRIPTION\nReplays scenarios of xfs_io\\-style steps against a model of "
	      "ext4's page cache, allocator, extent map, jbd2 and block device, enumerates the "
	      "states a crash can leave and checks crash\\-consistency invariants; exports "
	      "scenarios as xfs_io scripts and fstests tests and imports fsx logs, xfs_io "
	      "commands and CrashMonkey ACE workloads.  A flag "
	      "with a value may be written \\fB\\-\\-flag=value\\fR.\n.SH COMMANDS\n", out);
	for (const struct cmd_desc *d = cmd_table(); d->name; d++)
		man_command(out, d);
	fputs(".SH EXIT STATUS\n0: every variant met its expectations; 1: one did not (diff: a "
	      "verdict differs; bisect: nothing differs); 2: bad input, with one message on "
	      "standard error (\\fIFILE\\fR:\\fILINE\\fR:\\fICOL\\fR: for a file) and nothing "
	      "on standard output.\n", out);
	man_examples(out);
	fputs(".SH FILES\n"
	      ".TP\n.I " DOC_PREFIX "/share/doc/ext4sim/\n"
	      "README.md, the documentation (docs/: docs/scenario-format.md for the steps and "
	      "the flags, docs/real-kernel.md for export and import) and the example scenarios "
	      "(scenarios/), which the examples above name from this directory.\n"
	      ".TP\n.I " DOC_PREFIX "/share/bash-completion/completions/ext4sim\n"
	      "the bash completion (\\fBext4sim help \\-\\-completion\\fR).\n"
	      ".PP\nAs \\fBmake install PREFIX=" DOC_PREFIX "\\fR installs them.\n"
	      ".SH SEE ALSO\n.BR xfs_io (8),\n.BR mkfs.ext4 (8)\n", out);
}

/* The values a flag takes, for completion: a fixed list, or NULL (file names). */
static const struct {
	const char *flag;
	const char *values;
} flag_values[] = {
	{ "--format", "xfs_io fstests yaml" },
	{ "--data", "ordered writeback journal" },
	{ "--from", "fsx xfs_io ace fstests" },
	{ "--block-size", "1024 2048 4096" },
	{ "--checker-log", "summary full eager" },
	{ "--crash-at", "everywhere persist crash none" },
};

/* The completion of a flag's value (the word before is the flag, or "=" after it). */
static void completion_values(FILE *out)
{
	fputs("\tlocal prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\t[ \"$cur\" = \"=\" ] && prev=${COMP_WORDS[COMP_CWORD-1]}= && cur=\n"
	      "\t[ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -gt 2 ] && prev=${COMP_WORDS[COMP_CWORD-2]}\n"
	      "\tprev=${prev%=}\n"
	      "\tcase $prev in\n", out);
	for (size_t i = 0; i < sizeof(flag_values) / sizeof(flag_values[0]); i++)
		fprintf(out, "\t%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n",
			flag_values[i].flag, flag_values[i].values);
	fputs("\t--kernel) COMPREPLY=($(compgen -W \"", out);
	for (unsigned i = 0; i < ext4_profile_count(); i++)
		fprintf(out, "%s%s", i ? " " : "", ext4_profile_at(i)->name);
	fputs("\" -- \"$cur\")); return;;\n\tesac\n", out);
}

void cmd_print_completion(FILE *out)
{
	fputs("# bash completion for ext4sim (ext4sim help --completion)\n"
	      "_ext4sim() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} names=\"", out);
	for (const struct cmd_desc *d = cmd_table(); d->name; d++)
		fprintf(out, "%s ", d->name);
	fputs("help\"\n\tif [ \"$COMP_CWORD\" = 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$names --help --version\" -- \"$cur\"))\n"
	      "\t\treturn\n\tfi\n"
	      "\tif [ \"$cmd\" = help ]; then\n"
	      "\t\t[ \"$COMP_CWORD\" = 2 ] && COMPREPLY=($(compgen -W \"${names% help} --man "
	      "--completion\" -- \"$cur\"))\n\t\treturn\n\tfi\n", out);
	completion_values(out);
	fputs("\tcase $cmd in\n", out);
	for (const struct cmd_desc *d = cmd_table(); d->name; d++) {
		fprintf(out, "\t%s) flags=\"", d->name);
		for (const struct cmd_flag *f = d->flags; f->name; f++)
			fprintf(out, "%s ", f->name);
		fputs("--help\";;\n", out);
	}
	fputs("\t*) flags=\"\";;\n\tesac\n\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n"
	      "complete -o filenames -F _ext4sim ext4sim\n", out);
}
