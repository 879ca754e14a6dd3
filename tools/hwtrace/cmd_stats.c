// SPDX-License-Identifier: GPL-2.0
/* hwtrace stats FILE: counts per family, event and CPU; losses; rates. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hwtrace.h"

static const char usage[] =
"usage: hwtrace stats FILE\n"
"\n"
"Summarise FILE: duration, records per family, per event and per CPU with\n"
"rates, events lost and records overwritten per CPU, names known, and for a\n"
"trace received by hwtrace listen what became of its packets.\n"
"\n"
"Exit status: 0, 1 error, 2 usage, 3 the file is truncated or damaged (the\n"
"counts cover what could be read).\n";

#define NCODES	0x10000

/* What hwtrace listen did with the datagrams it read. */
static void print_net(const struct hwt_net_counters *c)
{
	uint64_t dropped = c->malformed + c->foreign + c->over_cpus +
			   c->over_memory + c->duplicate;

	printf("packets:     %" PRIu64 " received, %" PRIu64 " kept, %" PRIu64
	       " end-of-trace, %" PRIu64 " dropped%s\n", c->received, c->kept,
	       c->end, dropped, dropped ? ":" : "");
	if (dropped)
		printf("             %" PRIu64 " malformed, %" PRIu64 " foreign, %" PRIu64
		       " over --max-cpus, %" PRIu64 " over --max-memory, %" PRIu64
		       " duplicate\n", c->malformed, c->foreign, c->over_cpus,
		       c->over_memory, c->duplicate);
	printf("             %" PRIu64 " late, %" PRIu64 " missing, %" PRIu64
	       " dropped by the receiver's kernel%s\n", c->late, c->missing,
	       c->kernel_dropped, c->missing || c->kernel_dropped ?
	       "  <-- packets are missing" : "");
}

int cmd_stats(int argc, char **argv)
{
	const struct hwt_trace_info *info;
	struct hwt_reader *r;
	struct hwt_record rec;
	uint64_t *by_code = NULL, *by_cpu = NULL, *cpu_first = NULL, *cpu_last = NULL;
	uint64_t by_fam[HWT_NR_FAMILIES + 1] = { 0 };
	uint64_t n = 0, first = 0, last = 0, lost = 0, ow = 0, ntasks = 0;
	double secs = 0;
	int ret, status, rc = EXIT_ERR;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	if (argc != 2 || argv[1][0] == '-') {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	ret = open_trace(argv[1], &r);
	if (ret < 0) {
		return EXIT_ERR;
	}
	info = hwt_reader_info(r);
	by_code = calloc(NCODES, sizeof(*by_code));
	by_cpu = calloc(info->nr_cpus + 1, sizeof(*by_cpu));
	cpu_first = calloc(info->nr_cpus + 1, sizeof(*cpu_first));
	cpu_last = calloc(info->nr_cpus + 1, sizeof(*cpu_last));
	if (!by_code || !by_cpu || !cpu_first || !cpu_last) {
		errmsg("out of memory");
		goto out;
	}
	while ((ret = hwt_reader_next(r, &rec)) == 1) {
		uint16_t code = HWT_CODE(rec.ev.code);

		if (!n)
			first = rec.ts;
		if (rec.ts > last)
			last = rec.ts;
		n++;
		by_code[code]++;
		by_fam[HWT_IS_CONTROL(code) ? HWT_NR_FAMILIES : HWT_FAMILY(code)]++;
		if (!by_cpu[rec.cpu])
			cpu_first[rec.cpu] = rec.ts;
		cpu_last[rec.cpu] = rec.ts;
		by_cpu[rec.cpu]++;
	}
	if (ret < 0) {
		errmsg("%s: read error: %s", argv[1], strerror(-ret));
		goto out;
	}
	for (uint32_t i = 0; i < info->nr_cpus; i++) {
		lost += info->lost[i];
		ow += info->overwritten[i];
	}
	while (hwt_reader_task_at(r, ntasks))
		ntasks++;
	if (info->cycles_per_msec && last > first)
		secs = (double)(last - first) / (double)info->cycles_per_msec / 1000.0;

	printf("file:        %s\n", argv[1]);
	printf("host:        %s, kernel %s, backend %s\n", info->hostname,
	       info->kernel_release, info->backend);
	if (info->writer_version[0])
		printf("written by:  libhwt %s\n", info->writer_version);
	printf("clock:       %s, %" PRIu64 " ticks/ms\n",
	       info->clock == HWT_CLOCK_TSC ? "tsc" : "mono", info->cycles_per_msec);
	printf("chunk mode:  %s\n", info->chunk_mode == HWT_CHUNK_CYC ? "cyclic" :
	       info->chunk_mode == HWT_CHUNK_JTN ? "chain (jtn)" : "stop");
	printf("CPUs:        %u\n", info->nr_cpus);
	printf("records:     %" PRIu64 "\n", n);
	if (info->cycles_per_msec)
		printf("duration:    %.6f s\n", secs);
	else
		printf("duration:    %" PRIu64 " ticks (rate unknown)\n", last - first);
	if (secs > 0)
		printf("rate:        %.0f events/s\n", (double)n / secs);
	/* events the kernel never handed to any CPU's ring (bpf) */
	lost += info->lost_nocpu;
	printf("lost:        %" PRIu64 " events%s\n", lost,
	       lost ? "  <-- rings were full: use a larger -b or a faster drain" : "");
	if (info->lost_nocpu)
		printf("             %" PRIu64 " of them on no known CPU (a BPF program"
		       " was already running)\n", info->lost_nocpu);
	printf("overwritten: %" PRIu64 " records\n", ow);
	printf("names:       %" PRIu64 " tasks, %" PRIu64 " name records lost\n",
	       ntasks, info->names_lost);
	if (info->net)
		print_net(info->net);

	printf("\n%-10s %12s %12s\n", "family", "events", "events/s");
	for (unsigned int f = 0; f <= HWT_NR_FAMILIES; f++) {
		const char *name = f == HWT_NR_FAMILIES ? "control" : hwt_family_name(f);
		char other[16];

		if (!by_fam[f])
			continue;
		if (!name) {
			snprintf(other, sizeof(other), "family%u", f);
			name = other;
		}
		printf("%-10s %12" PRIu64 " %12.0f\n", name, by_fam[f],
		       secs > 0 ? (double)by_fam[f] / secs : 0.0);
	}

	printf("\n%-24s %8s %12s %12s\n", "event", "code", "events", "events/s");
	for (uint32_t code = 0; code < NCODES; code++) {
		const char *name = hwt_event_name((uint16_t)code);
		char unk[24];

		if (!by_code[code])
			continue;
		if (!name) {
			snprintf(unk, sizeof(unk), "unknown(0x%04x)", code);
			name = unk;
		}
		printf("%-24s   0x%04x %12" PRIu64 " %12.0f\n", name, code, by_code[code],
		       secs > 0 ? (double)by_code[code] / secs : 0.0);
	}

	printf("\n%-5s %12s %12s %12s %12s\n", "cpu", "records", "events/s", "lost",
	       "overwritten");
	for (uint32_t i = 0; i < info->nr_cpus; i++) {
		double s = info->cycles_per_msec && cpu_last[i] > cpu_first[i] ?
			   (double)(cpu_last[i] - cpu_first[i]) /
			   (double)info->cycles_per_msec / 1000.0 : 0;

		printf("%-5u %12" PRIu64 " %12.0f %12" PRIu64 " %12" PRIu64 "\n", i,
		       by_cpu[i], s > 0 ? (double)by_cpu[i] / s : 0.0, info->lost[i],
		       info->overwritten[i]);
	}
	rc = EXIT_OK;
	status = hwt_reader_status(r);
	if (status) {
		errmsg("%s: %s: counts cover what could be read", argv[1],
		       status & HWT_READ_CORRUPT ? "damaged" : "truncated");
		rc = EXIT_PARTIAL;
	}
	if (lost)
		errmsg("warning: %" PRIu64 " events were lost while recording", lost);
out:
	free(by_code);
	free(by_cpu);
	free(cpu_first);
	free(cpu_last);
	hwt_reader_close(r);
	return rc;
}
