// SPDX-License-Identifier: GPL-2.0
/* hwtrace: the command line of the hwtrace tracer.  See hwtrace(1). */
#include <stdio.h>
#include <string.h>

#include "hwtrace.h"

static const struct cmd cmds[] = {
	{ "record",	cmd_record,	"record events of all CPUs to a .hwt file or UDP" },
	{ "dump",	cmd_dump,	"print every record of a .hwt file" },
	{ "stats",	cmd_stats,	"counts per family, event and CPU; losses; rates" },
	{ "convert",	cmd_convert,	"convert a .hwt file to another trace format" },
	{ "ctl",	cmd_ctl,	"the FTrace calls: chunks, filters, enable/disable" },
	{ "log",	cmd_log,	"log a user or ipoint event" },
	{ "snapshot",	cmd_snapshot,	"save a cyclic (flight recorder) chunk to a file" },
	{ "recover",	cmd_recover,	"save a previous boot's trace from the persistent area" },
	{ "listen",	cmd_listen,	"receive S.Ha.R.K. UDP trace packets into a .hwt file" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: hwtrace COMMAND [ARGS...]    (hwtrace COMMAND --help)\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nexit status: 0 ok, 1 error, 2 usage, 3 partial or truncated input\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char *help_argv[] = { argv[2], "--help", NULL };

			for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
				if (!strcmp(cmds[i].name, argv[2]))
					return cmds[i].fn(2, help_argv);
		}
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("hwtrace %s (file format %d.%d, ABI %d.%d)\n", HWT_VERSION,
		       HWT_FILE_VERSION_MAJOR, HWT_FILE_VERSION_MINOR,
		       HWT_ABI_MAJOR, HWT_ABI_MINOR);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, argv[1]))
			return cmds[i].fn(argc - 1, argv + 1);
	errmsg("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
