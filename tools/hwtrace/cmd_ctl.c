// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace ctl ...: S.Ha.R.K.'s FTrace calls from the shell, one ioctl each;
 * hwtrace log CODE PAR1 PAR2: TRACER_LOGEVENT from the shell.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hwtrace.h"

static const char usage[] =
"usage: hwtrace ctl COMMAND ...\n"
"\n"
"  chunk create NORMAL EMERGENCY FLAGS   FTrace_chunk_create; prints the id\n"
"  chunk delete ID                       FTrace_chunk_delete\n"
"  chunk select ID                       FTrace_actual_chunk_select (-1: none)\n"
"  chunk link A B                        FTrace_chunk_link (B = -1 unlinks)\n"
"  chunk flags ID [FLAGS]                FTrace_get/set_chunk_flags\n"
"  chunk first FLAGS                     FTrace_get_first_chunk\n"
"  table                                 FTrace_get_chunk_table, one line per CPU ring\n"
"  filter [FAMILY on|off]                FTrace_set_filter; no argument: show all\n"
"  enable | disable                      FTrace_enable / FTrace_disable\n"
"  clock tsc|mono                        timestamp clock (tracing off)\n"
"  version                               module ABI, CPUs, clock, memory\n"
"  probes                                which tracepoints feed which family\n"
"\n"
"Sizes take k/M/G suffixes (bytes per CPU, multiples of 16; EMERGENCY >= 64).\n"
"FLAGS: cyc, jtn or stop, plus nodel, compr, free: joined by | or , (or a number).\n"
"A filter 'on' means the family is NOT logged (S.Ha.R.K.'s status 1).\n"
"\n"
"Exit status: 0, 1 error (no module, permission, the module refused), 2 usage.\n";

static const char log_usage[] =
"usage: hwtrace log CODE PAR1 PAR2\n"
"\n"
"Log one event on this CPU, as S.Ha.R.K.'s TRACER_LOGEVENT.  CODE is an\n"
"ipoint or user-family code, by number (0x19) or name (user_event_1,\n"
"ipoint); set bit 0x8000 on an ipoint for a fast ipoint.  PAR1 is 16 bits,\n"
"PAR2 32 bits.\n"
"\n"
"Exit status: 0, 1 error (no module, permission, a code not loggable), 2 usage.\n";

static int need(int argc, int n)
{
	if (argc == n)
		return 0;
	fputs(usage, stderr);
	return -1;
}

static int parse_id(const char *s, int *id, int allow_none)
{
	uint32_t v;

	if (allow_none && !strcmp(s, "-1")) {
		*id = HWT_NO_CHUNK;
		return 0;
	}
	if (parse_u32(s, &v) || v >= HWT_MAX_CHUNKS) {
		errmsg("bad chunk id '%s' (0..%d%s)", s, HWT_MAX_CHUNKS - 1,
		       allow_none ? ", or -1" : "");
		return -1;
	}
	*id = (int)v;
	return 0;
}

static int flags_arg(const char *s, uint32_t *flags)
{
	if (parse_chunk_flags(s, flags)) {
		errmsg("bad flags '%s': use cyc, jtn, stop, nodel, compr, free joined by |",
		       s);
		return -1;
	}
	return 0;
}

static int show_table(struct hwt_dev *d)
{
	struct hwt_chunk_stat *st = NULL;
	int n = 0, ret;

	/* the table may grow between the two calls: retry until it fits */
	for (;;) {
		ret = hwt_dev_chunk_table(d, st, (uint32_t)n);
		if (ret < 0) {
			free(st);
			dev_error("chunk table", ret);
			return EXIT_ERR;
		}
		if (ret <= n)
			break;
		n = ret;
		free(st);
		st = calloc((size_t)n, sizeof(*st));
		if (!st) {
			errmsg("out of memory");
			return EXIT_ERR;
		}
	}
	printf("%-5s %-4s %-22s %-5s %10s %10s %10s %12s %10s %12s\n", "chunk", "cpu",
	       "flags", "link", "normal", "emergency", "fill", "written", "lost",
	       "overwritten");
	for (int i = 0; i < ret; i++) {
		char flags[64];

		format_chunk_flags(st[i].flags, flags, sizeof(flags));
		printf("%-5u %-4u %-22s %-5d %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %12" PRIu64 " %10" PRIu64 " %12" PRIu64 "\n",
		       st[i].id, st[i].cpu, flags, st[i].link,
		       (uint64_t)st[i].normal_size, (uint64_t)st[i].emergency_size,
		       (uint64_t)st[i].fill, (uint64_t)st[i].written,
		       (uint64_t)st[i].lost, (uint64_t)st[i].overwritten);
	}
	if (!ret)
		printf("(no chunks)\n");
	free(st);
	return EXIT_OK;
}

static int show_filters(struct hwt_dev *d)
{
	int mask = hwt_dev_filter_get(d);

	if (mask < 0) {
		dev_error("get filter", mask);
		return EXIT_ERR;
	}
	printf("filter mask 0x%04x\n", mask);
	for (unsigned int f = 0; f < HWT_NR_FAMILIES; f++)
		if (hwt_family_name(f))
			printf("  %-8s %s\n", hwt_family_name(f),
			       mask & (1 << f) ? "filtered (not logged)" : "logged");
	return EXIT_OK;
}

static int show_version(struct hwt_dev *d)
{
	struct hwt_version v;
	char max[32], used[32];
	int ret = hwt_dev_version(d, &v);

	if (ret < 0) {
		dev_error("version", ret);
		return EXIT_ERR;
	}
	format_bytes(v.max_memory, max, sizeof(max));
	format_bytes(v.used_memory, used, sizeof(used));
	printf("ABI:         %u.%u (libhwt %d.%d)\n", v.abi_major, v.abi_minor,
	       HWT_ABI_MAJOR, HWT_ABI_MINOR);
	/* memory is charged for every possible CPU, often more than online */
	if (v.abi_minor >= 1)
		printf("CPUs:        %u possible, %u online\n", v.nr_cpus, v.nr_online_cpus);
	else
		printf("CPUs:        %u possible\n", v.nr_cpus);
	printf("clock:       %s, %" PRIu64 " ticks/ms\n",
	       v.clock == HWT_CLOCK_TSC ? "tsc" : "mono", (uint64_t)v.cycles_per_msec);
	printf("memory:      %s of %s used\n", used, max);
	printf("tracing:     %s\n", v.enabled ? "enabled" : "disabled");
	printf("filter mask: 0x%04x\n", v.filter_mask);
	printf("max chunks:  %u\n", v.max_chunks);
	printf("names lost:  %" PRIu64 "\n", (uint64_t)v.names_lost);
	/* losses of the priority family no ring could count (kretprobe misses) */
	if (v.abi_minor >= 1)
		printf("prio missed: %" PRIu64 "\n", (uint64_t)v.prio_missed);
	return EXIT_OK;
}

static int show_probes(struct hwt_dev *d)
{
	struct hwt_version v;
	int ret = hwt_dev_version(d, &v);

	if (ret < 0) {
		dev_error("version", ret);
		return EXIT_ERR;
	}
	printf("%-8s %-10s %-9s %s\n", "family", "available", "attached", "tracepoint");
	for (uint32_t i = 0; i < v.nr_probes; i++) {
		struct hwt_probe_info p;
		const char *fam;

		ret = hwt_dev_probe_info(d, i, &p);
		if (ret < 0) {
			dev_error("probe info", ret);
			return EXIT_ERR;
		}
		p.tracepoint[sizeof(p.tracepoint) - 1] = '\0';
		fam = p.family == HWT_NR_FAMILIES ? "names" : hwt_family_name(p.family);
		printf("%-8s %-10s %-9s %s\n", fam ? fam : "?",
		       p.flags & HWT_PROBE_AVAILABLE ? "yes" : "no",
		       p.flags & HWT_PROBE_ATTACHED ? "yes" : "no", p.tracepoint);
	}
	return EXIT_OK;
}

/*
 * The largest NORMAL the module would take now, and its cap, in bytes and
 * binary units: what a refused chunk create needs to be told.
 */
static void say_limit(const struct hwt_version *v, uint64_t emerg)
{
	uint64_t limit = chunk_normal_limit(v, emerg, 1);
	char lb[32], mb[32], ub[32];

	format_bytes(limit, lb, sizeof(lb));
	format_bytes(v->max_memory, mb, sizeof(mb));
	format_bytes(v->used_memory, ub, sizeof(ub));
	if (limit)
		errmsg("chunk create: with %u CPUs and EMERGENCY %" PRIu64
		       ", NORMAL can be at most %s (%" PRIu64 " bytes) per CPU",
		       v->nr_cpus, emerg, lb, limit);
	else
		errmsg("chunk create: no room for another chunk on %u CPUs: "
		       "delete one (hwtrace ctl table)", v->nr_cpus);
	errmsg("  the module caps ring memory at %s (%" PRIu64
	       " bytes, module parameter max_memory_mb); in use: %s", mb,
	       (uint64_t)v->max_memory, v->used_memory ? ub : "none");
}

/* chunk create refused with err: which limit, with the module's numbers. */
static void explain_create(struct hwt_dev *d, uint64_t normal, uint64_t emerg, int err)
{
	struct hwt_version v;
	uint64_t avail, charge;
	char rb[32], cb[32];

	if (hwt_dev_version(d, &v) < 0) {
		dev_error("chunk create", err);
		return;
	}
	avail = v.max_memory > v.used_memory ? v.max_memory - v.used_memory : 0;
	charge = chunk_charge(normal, emerg, v.nr_cpus);
	if (err == -EINVAL && (normal > UINT64_MAX - emerg || normal + emerg > CHUNK_MAX_RING)) {
		format_bytes(CHUNK_MAX_RING, rb, sizeof(rb));
		errmsg("chunk create: NORMAL + EMERGENCY is over the largest ring, %s (%" PRIu64
		       " bytes) per CPU", rb, CHUNK_MAX_RING);
		say_limit(&v, emerg);
	} else if (err == -EINVAL) {
		errmsg("chunk create: invalid: sizes must be multiples of 16, NORMAL > 0, "
		       "EMERGENCY >= 64, and one mode of cyc/jtn/stop");
	} else if (err == -ENOMEM && charge > avail) {
		format_bytes(charge, cb, sizeof(cb));
		errmsg("chunk create: over the module's memory cap: the chunk needs %s (%" PRIu64
		       " bytes: ring and meta page on each of %u CPUs)", cb, charge, v.nr_cpus);
		say_limit(&v, emerg);
	} else if (err == -ENOMEM) {
		errmsg("chunk create: the kernel is out of memory "
		       "(the chunk is within the module's cap)");
	} else if (err == -ENOSPC) {
		errmsg("chunk create: all %u chunks exist: delete one (hwtrace ctl table)",
		       v.max_chunks);
	} else {
		dev_error("chunk create", err);
	}
}

static int chunk_cmd(struct hwt_dev *d, int argc, char **argv)
{
	const char *sub = argc > 0 ? argv[0] : "";
	uint64_t normal, emerg;
	uint32_t flags;
	int id, to, ret;

	if (!strcmp(sub, "create")) {
		if (need(argc, 4))
			return EXIT_USAGE;
		ret = parse_size_arg("NORMAL size", argv[1], &normal, stderr);
		if (!ret)
			ret = parse_size_arg("EMERGENCY size", argv[2], &emerg, stderr);
		if (ret) {
			struct hwt_version v;

			/* too large: the module's numbers say how large it may be */
			if (ret == -ERANGE && hwt_dev_version(d, &v) == 0) {
				if (parse_size(argv[2], &emerg) || emerg > CHUNK_MAX_RING)
					emerg = 64;	/* the least there is */
				say_limit(&v, emerg);
			}
			return EXIT_USAGE;
		}
		if (flags_arg(argv[3], &flags))
			return EXIT_USAGE;
		ret = hwt_dev_chunk_create(d, normal, emerg, flags);
		if (ret < 0) {
			explain_create(d, normal, emerg, ret);
			return EXIT_ERR;
		}
		printf("%d\n", ret);
		return EXIT_OK;
	}
	if (!strcmp(sub, "delete") || !strcmp(sub, "select")) {
		int sel = sub[0] == 's';

		if (need(argc, 2) || parse_id(argv[1], &id, sel))
			return EXIT_USAGE;
		ret = sel ? hwt_dev_chunk_select(d, id) : hwt_dev_chunk_delete(d, id);
		if (ret < 0) {
			dev_error(sel ? "chunk select" : "chunk delete", ret);
			return EXIT_ERR;
		}
		return EXIT_OK;
	}
	if (!strcmp(sub, "link")) {
		if (need(argc, 3) || parse_id(argv[1], &id, 0) ||
		    parse_id(argv[2], &to, 1))
			return EXIT_USAGE;
		ret = hwt_dev_chunk_link(d, id, to);
		if (ret < 0) {
			dev_error("chunk link", ret);
			return EXIT_ERR;
		}
		return EXIT_OK;
	}
	if (!strcmp(sub, "flags")) {
		char buf[64];

		if ((argc != 2 && argc != 3) || parse_id(argv[1], &id, 0)) {
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
		if (argc == 3) {
			if (flags_arg(argv[2], &flags))
				return EXIT_USAGE;
			ret = hwt_dev_chunk_set_flags(d, id, flags);
		} else {
			ret = hwt_dev_chunk_get_flags(d, id);
			if (ret >= 0) {
				format_chunk_flags((uint32_t)ret, buf, sizeof(buf));
				printf("0x%02x %s\n", ret, buf);
			}
		}
		if (ret < 0) {
			dev_error("chunk flags", ret);
			return EXIT_ERR;
		}
		return EXIT_OK;
	}
	if (!strcmp(sub, "first")) {
		if (need(argc, 2) || flags_arg(argv[1], &flags))
			return EXIT_USAGE;
		ret = hwt_dev_chunk_first(d, flags);
		if (ret < 0) {
			dev_error("chunk first", ret);
			return EXIT_ERR;
		}
		printf("%d\n", ret);
		return EXIT_OK;
	}
	errmsg("unknown chunk command '%s'", sub);
	fputs(usage, stderr);
	return EXIT_USAGE;
}

int cmd_ctl(int argc, char **argv)
{
	struct hwt_dev *d;
	const char *sub;
	int ret = EXIT_OK, err;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	/* usage errors before touching the device */
	if (strcmp(sub, "chunk") && strcmp(sub, "table") && strcmp(sub, "filter") &&
	    strcmp(sub, "enable") && strcmp(sub, "disable") && strcmp(sub, "version") &&
	    strcmp(sub, "clock") && strcmp(sub, "probes")) {
		errmsg("unknown ctl command '%s'", sub);
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(sub, "filter") && argc == 4) {
		if (hwt_family_from_name(argv[2]) < 0) {
			errmsg("unknown family '%s'", argv[2]);
			list_families(stderr);
			return EXIT_USAGE;
		}
		if (strcmp(argv[3], "on") && strcmp(argv[3], "off")) {
			errmsg("filter state must be 'on' (not logged) or 'off' (logged)");
			return EXIT_USAGE;
		}
	} else if (!strcmp(sub, "filter") && argc != 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(sub, "clock") && (argc != 3 || (strcmp(argv[2], "tsc") &&
						     strcmp(argv[2], "mono")))) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	d = open_dev();
	if (!d)
		return EXIT_ERR;
	if (!strcmp(sub, "chunk")) {
		ret = chunk_cmd(d, argc - 2, argv + 2);
	} else if (!strcmp(sub, "table")) {
		ret = show_table(d);
	} else if (!strcmp(sub, "filter")) {
		if (argc == 2) {
			ret = show_filters(d);
		} else {
			err = hwt_dev_filter_set(d, (unsigned int)hwt_family_from_name(argv[2]),
						 !strcmp(argv[3], "on"));
			if (err < 0) {
				dev_error("set filter", err);
				ret = EXIT_ERR;
			}
		}
	} else if (!strcmp(sub, "enable") || !strcmp(sub, "disable")) {
		err = sub[0] == 'e' ? hwt_dev_enable(d) : hwt_dev_disable(d);
		if (err == -EINVAL && sub[0] == 'e')
			errmsg("enable: no chunk selected (hwtrace ctl chunk select ID)");
		else if (err < 0)
			dev_error(sub, err);
		ret = err < 0 ? EXIT_ERR : EXIT_OK;
	} else if (!strcmp(sub, "clock")) {
		err = hwt_dev_set_clock(d, strcmp(argv[2], "tsc") ? HWT_CLOCK_MONO :
						 HWT_CLOCK_TSC);
		if (err < 0) {
			dev_error("clock", err);
			ret = EXIT_ERR;
		}
	} else if (!strcmp(sub, "version")) {
		ret = show_version(d);
	} else {
		ret = show_probes(d);
	}
	hwt_dev_close(d);
	return ret;
}

int cmd_log(int argc, char **argv)
{
	struct hwt_dev *d;
	uint16_t code;
	uint32_t p1, p2;
	int err;

	if (want_help(argc, argv, log_usage))
		return EXIT_OK;
	if (argc != 4) {
		fputs(log_usage, stderr);
		return EXIT_USAGE;
	}
	if (parse_event_code(argv[1], &code)) {
		errmsg("unknown event code '%s'", argv[1]);
		return EXIT_USAGE;
	}
	if (parse_u32(argv[2], &p1) || p1 > 0xFFFF || parse_u32(argv[3], &p2)) {
		errmsg("PAR1 is 0..65535, PAR2 0..4294967295");
		return EXIT_USAGE;
	}
	d = open_dev();
	if (!d)
		return EXIT_ERR;
	err = hwt_dev_log_event(d, code, (uint16_t)p1, p2);
	hwt_dev_close(d);
	if (err == -EINVAL) {
		errmsg("log: only ipoint (0x01) and user-family codes (0x09, 0x19 .. 0xE9) can be logged from userspace");
		return EXIT_ERR;
	}
	if (err < 0) {
		dev_error("log", err);
		return EXIT_ERR;
	}
	return EXIT_OK;
}
