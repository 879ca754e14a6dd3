// SPDX-License-Identifier: GPL-2.0
/*
 * gen_trace FILE EVENTS [CPUS]: a synthetic but consistent .hwt trace for
 * converter benchmarks: per CPU, tasks switch in and out (each switch's prev
 * is the last one's next), wake each other, and IRQs and timers fire in
 * between, on a 1 GHz clock.  Every task has a name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwt/hwt.h>

#define NR_TASKS	256
#define BATCH		4096

int main(int argc, char **argv)
{
	struct hwt_trace_info info = {
		.clock = HWT_CLOCK_TSC, .cycles_per_msec = 1000000,
		.families = (1u << HWT_FAM_TASK) | (1u << HWT_FAM_INTERRUPT) |
			    (1u << HWT_FAM_TIMER),
		.chunk_mode = HWT_CHUNK_STOP, .kernel_release = "synthetic",
		.hostname = "gen_trace", .backend = "module",
	};
	static struct hwt_event buf[64][BATCH];
	uint32_t cur[64], n[64] = { 0 };
	unsigned long long events, i;
	struct hwt_writer *w;
	uint64_t ts = 1000;
	char comm[16];
	int ret;

	if (argc < 3)
		return fprintf(stderr, "usage: %s FILE EVENTS [CPUS]\n", argv[0]), 2;
	events = strtoull(argv[2], NULL, 0);
	info.nr_cpus = argc > 3 ? (uint32_t)atoi(argv[3]) : 4;
	if (info.nr_cpus < 1 || info.nr_cpus > 64)
		return fprintf(stderr, "gen_trace: 1..64 CPUs\n"), 2;
	ret = hwt_writer_open(&w, argv[1], &info, NULL);
	if (ret)
		return fprintf(stderr, "gen_trace: %s: %s\n", argv[1], strerror(-ret)), 1;
	for (uint32_t p = 1; p <= NR_TASKS; p++) {
		snprintf(comm, sizeof(comm), "task-%u", p);
		hwt_writer_add_task(w, 1000 + p, 1000 + p, comm);
	}
	hwt_writer_add_irq(w, 11, "eth0");
	for (uint32_t c = 0; c < info.nr_cpus; c++)
		cur[c] = 0;

	/* a fixed cycle of 8 events per step keeps every sequence valid */
	for (i = 0; i < events; i++) {
		uint32_t c = (uint32_t)(i / 8) % info.nr_cpus;
		uint32_t next = 1001 + (uint32_t)((i * 7919) % NR_TASKS);
		struct hwt_event *e = &buf[c][n[c]];

		ts += 37;
		memset(e, 0, sizeof(*e));
		e->tsc_hi = (uint32_t)(ts >> 32);
		e->tsc_lo = (uint32_t)ts;
		switch (i % 8) {
		case 0:
			e->code = HWT_EV_TASK_ACTIVATE;
			e->par1 = (uint16_t)c;
			e->par2 = next;
			break;
		case 1:
			e->code = HWT_EV_TASK_SCHEDULE;
			e->par1 = HWT_SWITCH_PAR1(cur[c], HWT_STATE_SLEEPING);
			e->par2 = HWT_SWITCH_PAR2(cur[c], next);
			cur[c] = next;
			break;
		case 2:
			e->code = HWT_EV_INTERRUPT_START;
			e->par1 = 11;
			break;
		case 3:
			e->code = HWT_EV_TIMER_WAKEUP_START;
			e->par1 = 1;
			e->par2 = 42;
			break;
		case 4:
			e->code = HWT_EV_TIMER_WAKEUP_END;
			e->par1 = 1;
			e->par2 = 42;
			break;
		case 5:
			e->code = HWT_EV_INTERRUPT_END;
			e->par1 = 11;
			e->par2 = 1;
			break;
		case 6:
			e->code = HWT_EV_TASK_SCHEDULE;
			e->par1 = HWT_SWITCH_PAR1(cur[c], HWT_STATE_RUNNABLE);
			e->par2 = HWT_SWITCH_PAR2(cur[c], 0);
			cur[c] = 0;
			break;
		default:
			e->code = HWT_EV_SOFTIRQ_START + (i % 16 == 7 ? 0x10 : 0);
			e->par1 = 1;
			break;
		}
		if (++n[c] == BATCH) {
			ret = hwt_writer_add(w, c, buf[c], n[c]);
			n[c] = 0;
			if (ret)
				break;
		}
	}
	for (uint32_t c = 0; c < info.nr_cpus && !ret; c++)
		ret = n[c] ? hwt_writer_add(w, c, buf[c], n[c]) : 0;
	ret = ret ?: hwt_writer_close(w);
	if (ret)
		return fprintf(stderr, "gen_trace: %s\n", strerror(-ret)), 1;
	return 0;
}
