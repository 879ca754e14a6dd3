// SPDX-License-Identifier: GPL-2.0
/*
 * Step 1 of `make bench`, inside the VM: give hwtrace a CYC chunk with the
 * same memory per CPU as hwt_bench.ko gives ring_buffer and relay, enable
 * tracing with every family but user filtered, load hwt_bench.ko (which
 * measures and logs), and check that hwtrace really stored every event.
 *
 * With -i, the same set-up for make bench-insn: the chunk in MODE (cyc or
 * stop), then hwt_bench.ko, already loaded with insn=N, makes its calls on
 * CPU 0 (writing MODE to its insn_run parameter) for gdb to single-step.
 * A STOP chunk must not fill: the calls must take its common path.
 *
 * CLOCK (tsc or mono) is hwtrace's clock for the run, and relay's
 * (hwt_bench's clock_tsc); the module's own clock is set back at the end.
 *
 * usage: write_path HWT_BENCH_KO EVENTS MEM_KB ROUNDS CLOCK
 *        write_path -i cyc|stop MEM_KB CLOCK
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/hwtrace.h>

static int fail(const char *what)
{
	fprintf(stderr, "write_path: %s: %s\n", what, strerror(errno));
	return 1;
}

/* hwtrace's clock: "tsc" or "mono"; *tsc says which */
static int set_clock(int fd, const char *clock, int *tsc)
{
	*tsc = !strcmp(clock, "tsc");
	if (!*tsc && strcmp(clock, "mono"))
		return fprintf(stderr, "write_path: clock %s: want tsc or mono\n", clock), 2;
	if (ioctl(fd, HWT_IOC_SET_CLOCK, *tsc ? HWT_CLOCK_TSC : HWT_CLOCK_MONO))
		return fail(clock);
	return 0;
}

/* a chunk of FLAGS with MEM_KB per CPU, selected, tracing only family user */
static int trace_user(int fd, struct hwt_chunk_create *cc, unsigned int flags,
		      unsigned long long mem_kb)
{
	cc->emergency_size = 4096;
	cc->normal_size = mem_kb * 1024 - cc->emergency_size;
	cc->flags = flags;
	if (ioctl(fd, HWT_IOC_CHUNK_CREATE, cc))
		return fail("chunk_create");
	for (unsigned int f = 0; f < HWT_NR_FAMILIES; f++) {
		struct hwt_filter flt = { .family = f, .status = f != HWT_FAM_USER };

		if (ioctl(fd, HWT_IOC_SET_FILTER, &flt))
			return fail("set_filter");
	}
	if (ioctl(fd, HWT_IOC_CHUNK_SELECT, cc->id) || ioctl(fd, HWT_IOC_ENABLE, 0))
		return fail("select/enable");
	return 0;
}

/* write VAL to hwt_bench's parameter NAME */
static int bench_param(const char *name, const char *val)
{
	char path[96];
	int pfd;

	snprintf(path, sizeof(path), "/sys/module/hwt_bench/parameters/%s", name);
	pfd = open(path, O_WRONLY | O_CLOEXEC);
	if (pfd < 0 || write(pfd, val, strlen(val)) != (ssize_t)strlen(val))
		return fail(path);
	close(pfd);
	return 0;
}

/* -i MODE MEM_KB CLOCK: hwt_bench.ko's insn calls into a chunk in MODE */
static int insn(int fd, const char *mode, unsigned long long mem_kb, const char *clock)
{
	struct hwt_chunk_create cc = { 0 };
	struct hwt_chunk_stat st[1024];
	struct hwt_chunk_table t = { .entries = (unsigned long)st, .nr_entries = 1024 };
	int stop = !strcmp(mode, "stop"), tsc, bad = 0;

	if (!stop && strcmp(mode, "cyc"))
		return fprintf(stderr, "write_path: mode %s: want cyc or stop\n", mode), 2;
	if (set_clock(fd, clock, &tsc) || bench_param("clock_tsc", tsc ? "1" : "0"))
		return 1;
	if (trace_user(fd, &cc, stop ? HWT_CHUNK_STOP : HWT_CHUNK_CYC, mem_kb))
		return 1;
	if (bench_param("insn_run", mode))
		return 1;
	if (ioctl(fd, HWT_IOC_DISABLE, 0) || ioctl(fd, HWT_IOC_CHUNK_TABLE, &t))
		return fail("disable/table");
	for (unsigned int i = 0; i < t.nr_entries && i < 1024; i++) {
		if (st[i].id != (unsigned int)cc.id || !st[i].written)
			continue;
		printf("hwt_bench: insn-check mode=%s clock=%s cpu=%u written=%llu overwritten=%llu lost=%llu\n",
		       mode, clock, st[i].cpu, (unsigned long long)st[i].written,
		       (unsigned long long)st[i].overwritten,
		       (unsigned long long)st[i].lost);
		if (st[i].lost || (stop && st[i].flags & HWT_CHUNK_FULL))
			bad = 1;
	}
	return bad;
}

/* HWT_BENCH_KO EVENTS MEM_KB ROUNDS CLOCK: the timing benchmark */
static int timing(int fd, char **argv)
{
	struct hwt_chunk_create cc = { 0 };
	struct hwt_chunk_stat st[1024];
	struct hwt_chunk_table t = { .entries = (unsigned long)st, .nr_entries = 1024 };
	unsigned long long events, mem_kb, rounds, expect;
	char params[160];
	int ko, tsc, bad = 0;

	events = strtoull(argv[1], NULL, 0);
	mem_kb = strtoull(argv[2], NULL, 0);
	rounds = strtoull(argv[3], NULL, 0);
	if (set_clock(fd, argv[4], &tsc) || trace_user(fd, &cc, HWT_CHUNK_CYC, mem_kb))
		return 1;

	snprintf(params, sizeof(params), "events=%llu mem_kb=%llu rounds=%llu clock_tsc=%d",
		 events, mem_kb, rounds, tsc);
	ko = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (ko < 0 || syscall(SYS_finit_module, ko, params, 0))
		return fail(argv[0]);
	close(ko);
	if (ioctl(fd, HWT_IOC_DISABLE, 0) || ioctl(fd, HWT_IOC_CHUNK_TABLE, &t))
		return fail("disable/table");

	/* each CPU ran every round: its ring saw exactly that many events */
	expect = events * rounds;
	for (unsigned int i = 0; i < t.nr_entries && i < 1024; i++) {
		if (st[i].id != (unsigned int)cc.id || !st[i].written)
			continue;
		/* + cycles_per_msec, trace_start, id, trace_stop */
		if (st[i].written != expect + 4 || st[i].lost) {
			fprintf(stderr, "write_path: cpu %u wrote %llu lost %llu, want %llu\n",
				st[i].cpu, (unsigned long long)st[i].written,
				(unsigned long long)st[i].lost, expect + 4);
			bad = 1;
		}
		printf("hwt_bench: check cpu %u written %llu overwritten %llu lost %llu\n",
		       st[i].cpu, (unsigned long long)st[i].written,
		       (unsigned long long)st[i].overwritten,
		       (unsigned long long)st[i].lost);
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct hwt_version v;
	int fd, ret;

	if ((argc != 6 || !strcmp(argv[1], "-i")) && (argc != 5 || strcmp(argv[1], "-i")))
		return fprintf(stderr, "usage: %s HWT_BENCH_KO EVENTS MEM_KB ROUNDS tsc|mono\n"
			       "       %s -i cyc|stop MEM_KB tsc|mono\n", argv[0], argv[0]), 2;
	fd = open("/dev/hwtrace", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("/dev/hwtrace");
	if (ioctl(fd, HWT_IOC_GET_VERSION, &v))
		return fail("get_version");
	if (argc == 5)
		ret = insn(fd, argv[2], strtoull(argv[3], NULL, 0), argv[4]);
	else
		ret = timing(fd, argv + 1);
	/* the module's clock as it was, for what runs after */
	if (ioctl(fd, HWT_IOC_DISABLE, 0) || ioctl(fd, HWT_IOC_SET_CLOCK, v.clock))
		ret = ret ? ret : fail("restore the clock");
	return ret;
}
