// SPDX-License-Identifier: GPL-2.0
/* hwtrace convert -O FORMAT [-o OUT] FILE: the libhwt converters. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwtrace.h"

#ifdef HAVE_CONVERT
#include <hwt/conv.h>
#endif

static const char usage[] =
"usage: hwtrace convert -O FORMAT [-o OUT] [--btf-isr-i] [--core N] [--cpu N] FILE\n"
"\n"
"Convert a .hwt file.  Formats: htf (AMALTHEA hardware trace), atf\n"
"(ALL-TIMES), btf (Best Trace Format), tband (Tonbandgeraet), shark (raw\n"
"S.Ha.R.K. records, time-ordered), json (Chrome/Perfetto JSON), perfetto\n"
"(Perfetto's native protobuf: CPU tracks, thread states, wakeups), ctf\n"
"(CTF 1.8 as an LTTng kernel trace, for babeltrace2 and Trace Compass: a\n"
"directory).\n"
"\n"
"  -O FORMAT     output format\n"
"  -o OUT        output file (default: standard output); for ctf a new or\n"
"                empty directory, required; shark without --cpu: the\n"
"                directory (default: .) of one file per CPU, 0trace.dat,\n"
"                1trace.dat, ... as S.Ha.R.K. names them\n"
"  --btf-isr-i   BTF: type I for interrupt routines (BTF >= 2.1.5), not ISR\n"
"  --core N      tband: only core N (default: one stream, core_id events)\n"
"  --cpu N       shark: only CPU N, to OUT (default: a file per CPU)\n"
"\n"
"Exit status: 0, 1 error, 2 usage, 3 the input is truncated or damaged\n"
"(what could be read is converted).\n";

#ifndef HAVE_CONVERT
int cmd_convert(int argc, char **argv)
{
	if (want_help(argc, argv, usage))
		return EXIT_OK;
	errmsg("convert: this build of libhwt has no converters (libhwt/conv)");
	return EXIT_ERR;
}
#else
static void list_formats(FILE *f)
{
	const char *const *fmt = hwt_conv_formats();

	fputs("valid formats:", f);
	for (; fmt && *fmt; fmt++)
		fprintf(f, " %s", *fmt);
	fputc('\n', f);
}

/*
 * shark without --cpu: S.Ha.R.K.'s host tools read one processor's
 * records, so each CPU gets its own <n>trace.dat in dir.  Returns the
 * converter's result, or 1 after an error message.
 */
static int convert_shark_files(struct hwt_stream *s, struct hwt_conv_opts *copts,
			       const char *dir)
{
	uint32_t nr = s->info->nr_cpus;
	FILE **f = calloc(nr ? nr : 1, sizeof(*f));
	char path[4096];
	int ret = 0;

	if (!f) {
		errmsg("out of memory");
		return 1;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		errmsg("%s: %s", dir, strerror(errno));
		ret = 1;
	}
	for (uint32_t c = 0; !ret && c < nr; c++) {
		snprintf(path, sizeof(path), "%s/%utrace.dat", dir, c);
		f[c] = fopen(path, "wb");
		if (!f[c]) {
			errmsg("%s: %s", path, strerror(errno));
			ret = 1;
		}
	}
	if (!ret) {
		copts->shark_files = f;
		ret = hwt_convert("shark", s, f[0], copts);
	}
	for (uint32_t c = 0; c < nr; c++) {
		if (f[c] && fclose(f[c]) && (ret == 0 || ret == -EBADMSG)) {
			snprintf(path, sizeof(path), "%s/%utrace.dat", dir, c);
			errmsg("%s: %s", path, strerror(errno));
			ret = 1;
		}
	}
	free(f);
	return ret;
}

static int known_format(const char *name)
{
	const char *const *fmt = hwt_conv_formats();

	for (; fmt && *fmt; fmt++)
		if (!strcmp(*fmt, name))
			return 1;
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'O' },
		{ "output", required_argument, NULL, 'o' },
		{ "btf-isr-i", no_argument, NULL, 'I' },
		{ "core", required_argument, NULL, 'C' },
		{ "cpu", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_conv_opts copts = {
		.sz = sizeof(copts), .tband_core = -1, .tband_drop_every = -1,
		.shark_cpu = -1,
	};
	const char *format = NULL, *outname = NULL;
	struct hwt_reader *r;
	struct hwt_stream s;
	uint32_t v;
	FILE *out = stdout;
	int c, ret, status, rc = EXIT_ERR;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	while ((c = getopt_long(argc, argv, "O:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'O':
			format = optarg;
			break;
		case 'o':
			outname = optarg;
			break;
		case 'I':
			copts.btf_isr_type_i = 1;
			break;
		case 'C':
		case 'P':
			if (parse_u32(optarg, &v) || v > 65535) {
				errmsg("bad CPU number '%s'", optarg);
				return EXIT_USAGE;
			}
			if (c == 'C')
				copts.tband_core = (int)v;
			else
				copts.shark_cpu = (int)v;
			break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!format || optind + 1 != argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!known_format(format)) {
		errmsg("unknown format '%s'", format);
		list_formats(stderr);
		return EXIT_USAGE;
	}
	if (hwt_conv_format_is_dir(format) && !outname) {
		errmsg("%s writes a directory: give it with -o DIR", format);
		return EXIT_USAGE;
	}
	ret = open_trace(argv[optind], &r);
	if (ret < 0) {
		return EXIT_ERR;
	}
	hwt_reader_stream(r, &s);
	if (hwt_conv_format_is_dir(format)) {
		out = NULL;
		ret = hwt_convert_dir(format, &s, outname, &copts);
		if (ret < 0 && ret != -EBADMSG) {
			errmsg("convert to %s: %s: %s", format, outname, strerror(-ret));
			goto out;
		}
	} else if (!strcmp(format, "shark") && copts.shark_cpu < 0) {
		out = NULL;
		ret = convert_shark_files(&s, &copts, outname ? outname : ".");
		if (ret == 1)
			goto out;
		if (ret < 0 && ret != -EBADMSG) {
			errmsg("convert to %s: %s", format, strerror(-ret));
			goto out;
		}
	} else {
		if (outname) {
			out = fopen(outname, "wb");
			if (!out) {
				errmsg("%s: %s", outname, strerror(errno));
				goto out;
			}
		}
		ret = hwt_convert(format, &s, out, &copts);
		if (fflush(out) || ferror(out)) {
			errmsg("%s: %s", outname ? outname : "stdout", strerror(errno));
			goto out;
		}
		if (ret < 0 && ret != -EBADMSG) {
			errmsg("convert to %s: %s", format, strerror(-ret));
			goto out;
		}
	}
	status = hwt_reader_status(r);
	if (ret == -EBADMSG || status) {
		errmsg("%s: truncated or damaged: converted what could be read", argv[optind]);
		rc = EXIT_PARTIAL;
	} else {
		rc = EXIT_OK;
	}
out:
	if (out && out != stdout && fclose(out) && rc != EXIT_ERR) {
		errmsg("%s: %s", outname, strerror(errno));
		rc = EXIT_ERR;
	}
	hwt_reader_close(r);
	return rc;
}
#endif
