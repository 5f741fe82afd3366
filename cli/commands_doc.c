/*
 * commands_doc.c - the man page ext4sim(1) and the bash completion script,
 * printed from the command table (commands.c), so neither can drift from
 * what the program takes.  `make install` writes both.
 */
#include <string.h>

#include "commands.h"

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

void cmd_print_man(FILE *out, const char *version)
{
	fprintf(out, ".TH EXT4SIM 1 \"\" \"ext4sim %s\" \"User Commands\"\n", version);
	fputs(".SH NAME\next4sim \\- a deterministic model of the ext4 buffered-write path and its "
	      "crash states\n.SH SYNOPSIS\n.B ext4sim\n\\fICOMMAND\\fR [\\fIFLAGS\\fR] ...\n"
	      ".SH DESCRIPTION\nReplays scenarios of xfs_io\\-style steps against a model of "
	      "ext4's page cache, allocator, extent map, jbd2 and block device, enumerates the "
	      "states a crash can leave and checks crash\\-consistency invariants; exports "
	      "scenarios as xfs_io scripts and fstests tests and imports fsx logs.  A flag "
	      "with a value may be written \\fB\\-\\-flag=value\\fR.\n.SH COMMANDS\n", out);
	for (const struct cmd_desc *d = cmd_table(); d->name; d++)
		man_command(out, d);
	fputs(".SH EXIT STATUS\n0: every variant met its expectations; 1: one did not (diff: a "
	      "verdict differs; bisect: nothing differs); 2: bad input, with one message on "
	      "standard error (\\fIFILE\\fR:\\fILINE\\fR:\\fICOL\\fR: for a file) and nothing "
	      "on standard output.\n.SH FILES\nThe documentation and example scenarios are "
	      "installed under \\fIPREFIX\\fR/share/doc/ext4sim.\n.SH SEE ALSO\n"
	      ".BR xfs_io (8),\n.BR mkfs.ext4 (8)\n", out);
}

void cmd_print_completion(FILE *out)
{
	fputs("# bash completion for ext4sim (ext4sim help --completion)\n"
	      "_ext4sim() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}\n"
	      "\tif [ \"$COMP_CWORD\" = 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"", out);
	for (const struct cmd_desc *d = cmd_table(); d->name; d++)
		fprintf(out, "%s ", d->name);
	fputs("help --help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $cmd in\n", out);
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
