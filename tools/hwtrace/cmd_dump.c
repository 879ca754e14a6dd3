// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace dump FILE: every record, none skipped (S.Ha.R.K.'s reader
 * silently dropped unknown codes; here they print as unknown(0xNNNN)).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "hwtrace.h"

static const char usage[] =
"usage: hwtrace dump [-r] FILE\n"
"\n"
"Print every record of FILE in time order, all CPUs merged:\n"
"  TIMESTAMP  +MICROSECONDS  [CPU]  FAMILY  EVENT  PARAMETERS\n"
"Parameters are decoded from the event table (pids with task names, irqs\n"
"with handler names, task_schedule's prev/state/next).\n"
"\n"
"  -r, --raw     also print par1/par2 in hex on every line\n"
"  -h, --help    this help\n"
"\n"
"Exit status: 0, 1 error, 2 usage, 3 the file is truncated or damaged (what\n"
"could be read was printed, up to the last whole record).\n";

static const char *const state_names[] = {
	"R", "S", "D", "T", "X", "?", "I",
};

struct dump_ctx {
	struct hwt_reader *r;
	FILE *out;
};

static void put_task(struct dump_ctx *d, const char *key, uint32_t pid)
{
	const struct hwt_task *t = hwt_reader_task(d->r, pid);

	fprintf(d->out, " %s=%u", key, pid);
	if (!pid)
		fputs("(idle)", d->out);
	else if (t && t->tgid && t->tgid != pid)
		fprintf(d->out, "(%s/%u)", t->comm, t->tgid);
	else if (t)
		fprintf(d->out, "(%s)", t->comm);
}

static void put_irq(struct dump_ctx *d, uint32_t irq)
{
	const char *n = hwt_reader_irq_name(d->r, irq);

	fprintf(d->out, " irq=%u", irq);
	if (n)
		fprintf(d->out, "(%s)", n);
}

/* One parameter by its meaning in the table ("pid", "irq", "cpu|new", ...). */
static void put_param(struct dump_ctx *d, const char *meaning, uint32_t v)
{
	if (!meaning || !strcmp(meaning, "-"))
		return;
	if (!strcmp(meaning, "pid")) {
		put_task(d, "pid", v);
	} else if (!strcmp(meaning, "irq")) {
		put_irq(d, v);
	} else if (!strcmp(meaning, "cpu|new")) {
		fprintf(d->out, " cpu=%u%s", v & ~HWT_ACTIVATE_NEW & 0xFFFF,
			v & HWT_ACTIVATE_NEW ? " new" : "");
	} else if (!strcmp(meaning, "clock")) {
		fprintf(d->out, " clock=%s", v == HWT_CLOCK_TSC ? "tsc" :
			v == HWT_CLOCK_MONO ? "mono" : "?");
	} else {
		char key[32];
		size_t i;

		/* "lost total" -> lost_total, "cycles/ms" -> cycles/ms */
		snprintf(key, sizeof(key), "%s", meaning);
		for (i = 0; key[i]; i++)
			if (key[i] == ' ')
				key[i] = '_';
		if (!strcmp(key, "lock") || !strcmp(key, "data") ||
		    !strcmp(key, "timer") || !strcmp(key, "server"))
			fprintf(d->out, " %s=0x%x", key, v);
		else
			fprintf(d->out, " %s=%u", key, v);
	}
}

static void put_params(struct dump_ctx *d, const struct hwt_event *ev, int raw)
{
	uint16_t code = HWT_CODE(ev->code);
	int fast = !!(ev->code & HWT_CODE_FAST);

	if (code == HWT_EV_TASK_SCHEDULE) {
		uint32_t st = HWT_SWITCH_STATE(ev);

		put_task(d, "prev", HWT_SWITCH_PREV(ev));
		fprintf(d->out, " state=%s", state_names[st < 7 ? st : 5]);
		put_task(d, "next", HWT_SWITCH_NEXT(ev));
	} else if (code >= HWT_EV_FILTER_BASE && code < HWT_EV_NEXT_CHUNK) {
		const char *f = hwt_family_name(code & HWT_FAMILY_MASK);

		fprintf(d->out, " family=%s %s", f ? f : "?",
			ev->par1 ? "off(filtered)" : "on(logged)");
	} else if (code == HWT_EV_NEXT_CHUNK) {
		fprintf(d->out, " to_chunk=%u from_chunk=%u", ev->par1, ev->par2);
	} else if (hwt_event_name(code)) {
		put_param(d, hwt_event_par1(code), ev->par1);
		if (!fast)
			put_param(d, hwt_event_par2(code), ev->par2);
	} else {
		raw = 1;
	}
	if (fast)
		fputs(" fast", d->out);
	if (raw)
		fprintf(d->out, " par1=0x%04x par2=0x%08x", ev->par1, ev->par2);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct hwt_trace_info *info;
	struct dump_ctx d = { .out = stdout };
	struct hwt_record rec;
	uint64_t t0 = 0, n = 0, lost = 0;
	int raw = 0, ret, c, status;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	while ((c = getopt_long(argc, argv, "rh", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			raw = 1;
			break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	ret = open_trace(argv[optind], &d.r);
	if (ret < 0) {
		return EXIT_ERR;
	}
	info = hwt_reader_info(d.r);
	for (uint32_t i = 0; i < info->nr_cpus; i++)
		lost += info->lost[i];
	lost += info->lost_nocpu;
	fprintf(d.out, "# %s: %u CPUs, %" PRIu64 " records, clock %s at %" PRIu64
		" ticks/ms, host %s, kernel %s, backend %s, %" PRIu64 " lost\n",
		argv[optind], info->nr_cpus, info->nr_records,
		info->clock == HWT_CLOCK_TSC ? "tsc" : "mono", info->cycles_per_msec,
		info->hostname, info->kernel_release, info->backend, lost);
	if (info->net)
		fprintf(d.out, "# packets: %" PRIu64 " received, %" PRIu64 " kept, %" PRIu64
			" end, %" PRIu64 " malformed, %" PRIu64 " foreign, %" PRIu64
			" over_cpus, %" PRIu64 " over_memory, %" PRIu64 " duplicate, %"
			PRIu64 " late, %" PRIu64 " missing, %" PRIu64 " kernel_dropped\n",
			info->net->received, info->net->kept, info->net->end,
			info->net->malformed, info->net->foreign, info->net->over_cpus,
			info->net->over_memory, info->net->duplicate, info->net->late,
			info->net->missing, info->net->kernel_dropped);
	if (info->recovery.recovered) {
		char id[40];

		format_boot_id(info->recovery.boot_id, id, sizeof(id));
		fprintf(d.out, "# recovered from the persistent area: boot %s ended in %s",
			id, crash_name(info->recovery.crash));
		if (info->recovery.crash)
			fprintf(d.out, " on CPU %u", info->recovery.crash_cpu);
		fputc('\n', d.out);
	}
	while ((ret = hwt_reader_next(d.r, &rec)) == 1) {
		const char *name = hwt_event_name(rec.ev.code);
		const char *fam = hwt_family_name(HWT_FAMILY(rec.ev.code));
		char unk[24];

		if (!n)
			t0 = rec.ts;
		n++;
		if (!name) {
			snprintf(unk, sizeof(unk), "unknown(0x%04x)", rec.ev.code);
			name = unk;
		}
		if (HWT_IS_CONTROL(rec.ev.code))
			fam = "control";
		fprintf(d.out, "%20" PRIu64 " ", rec.ts);
		if (info->cycles_per_msec && rec.ts >= t0)
			fprintf(d.out, "%+16.3f", (double)(rec.ts - t0) * 1000.0 /
				(double)info->cycles_per_msec);
		else if (info->cycles_per_msec)
			fprintf(d.out, "%16.3f", -(double)(t0 - rec.ts) * 1000.0 /
				(double)info->cycles_per_msec);
		else
			fprintf(d.out, "%16s", "-");
		fprintf(d.out, " [%03u] %-8s %-20s", rec.cpu, fam ? fam : "?", name);
		put_params(&d, &rec.ev, raw);
		fputc('\n', d.out);
	}
	status = hwt_reader_status(d.r);
	hwt_reader_close(d.r);
	if (fflush(stdout) || ferror(stdout)) {
		errmsg("writing output: %s", strerror(errno));
		return EXIT_ERR;
	}
	if (ret < 0) {
		errmsg("%s: read error: %s", argv[optind], strerror(-ret));
		return EXIT_ERR;
	}
	if (status) {
		errmsg("%s: %s: %" PRIu64 " records printed, up to the damage", argv[optind],
		       status & HWT_READ_CORRUPT ? "damaged" : "truncated", n);
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}
