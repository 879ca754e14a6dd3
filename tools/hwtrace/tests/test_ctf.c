// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace convert -O ctf, read back by its readers: Debian's babeltrace2
 * must read the directory with exit status 0 and nothing on stderr but the
 * discarded-events notes the trace calls for, and python3-bt2
 * (tests/ctf_counts.py) must count, per CPU and per record code, exactly
 * what `hwtrace stats` counts in the same .hwt, see every loss as
 * events_discarded, name every task from the first event (the statedump),
 * and read odd names as the sanitized UTF-8 Documentation/hwtrace-formats.rst
 * promises.  A missing babeltrace2 or python3-bt2 fails the test.
 *
 * The fixture has a record of every code the event table knows (and one it
 * does not, a fast ipoint, an x86 vector and a timer kind lttng has no
 * event for), LOST records and more losses in the header, CYC overwrites,
 * names with invalid UTF-8, control characters and quotes; and a 300-CPU
 * variant, and a truncated one; and traces recorded from the fake device
 * with a tiny ring (STOP losses, CYC overwrites).
 */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwt/events.h>
#include <hwt/hwt.h>
#include "run.h"

#define ODD_COMM	"\xff\x01q\"\\,"	/* invalid UTF-8, control, quote */
#define ODD_COMM_CTF	"\\xff\\x01q\"\\x5c,"	/* as CTF has it (backslash escaped) */
#define UTF8_COMM	"t\xc3\xa2" "che"	/* valid UTF-8: kept */
#define LOST_CPU	1
#define LOST_TOTAL	20	/* the header's count; the records say 12 */
#define OW_CPU		2
#define OW_TOTAL	7

struct fixture {
	struct hwt_writer *w;
	uint64_t ts;
	uint32_t switches[512];	/* task_schedule records per CPU */
};

static void add(struct fixture *f, uint32_t cpu, uint16_t code, uint16_t par1,
		uint32_t par2)
{
	struct hwt_event ev = { .code = code, .par1 = par1, .par2 = par2 };

	f->ts += 7;
	ev.tsc_hi = (uint32_t)(f->ts >> 32);
	ev.tsc_lo = (uint32_t)f->ts;
	ck_assert_int_eq(hwt_writer_add(f->w, cpu, &ev, 1), 0);
	if (HWT_CODE(code) == HWT_EV_TASK_SCHEDULE)
		f->switches[cpu]++;
}

static void add_switch(struct fixture *f, uint32_t cpu, uint32_t prev,
		       uint32_t next, uint32_t state)
{
	add(f, cpu, HWT_EV_TASK_SCHEDULE, (uint16_t)HWT_SWITCH_PAR1(prev, state),
	    HWT_SWITCH_PAR2(prev, next));
}

/*
 * Per CPU: a task running at the start, switches with every state, a fork
 * and exit, one record of every code, timers of three kinds, vectors lttng
 * knows and one it does not.  Records of all CPUs interleave in time.
 */
static void make_trace(struct fixture *f, const char *path, uint32_t ncpu, bool all)
{
	struct hwt_trace_info info = {
		.nr_cpus = ncpu, .clock = HWT_CLOCK_TSC, .cycles_per_msec = 2400000,
		.families = 0xFFF, .chunk_mode = HWT_CHUNK_CYC,
		.creation_time = 1764000000,
	};
	struct hwt_writer_opts o = { .sz = sizeof(o), .block_records = 64 };

	memset(f, 0, sizeof(*f));
	f->ts = 1000000;
	snprintf(info.hostname, sizeof(info.hostname), "host \"q\" \x01");
	snprintf(info.kernel_release, sizeof(info.kernel_release), "6.1.0-test");
	snprintf(info.backend, sizeof(info.backend), "module");
	ck_assert_int_eq(hwt_writer_open(&f->w, path, &info, &o), 0);
	ck_assert_int_eq(hwt_writer_add_task(f->w, 100, 100, "worker"), 0);
	ck_assert_int_eq(hwt_writer_add_task(f->w, 101, 100, ODD_COMM), 0);
	ck_assert_int_eq(hwt_writer_add_task(f->w, 102, 102, UTF8_COMM), 0);
	/* 103: no name record (task-103) */
	ck_assert_int_eq(hwt_writer_add_irq(f->w, 11, "eth\x02\xc3"), 0);

	for (uint32_t c = 0; c < ncpu; c++)
		add(f, c, HWT_EV_ID, (uint16_t)c, 100 + c % 3);
	for (uint32_t c = 0; c < ncpu; c++) {
		add_switch(f, c, 100 + c % 3, 0, HWT_STATE_SLEEPING);
		add(f, c, HWT_EV_TASK_ACTIVATE, (uint16_t)c, 101);
		add_switch(f, c, 0, 101, HWT_STATE_RUNNABLE);
	}
	if (!all)
		goto out;
	for (uint32_t c = 0; c < ncpu; c++) {
		add(f, c, HWT_EV_TASK_CREATE, 0, 103);
		add(f, c, HWT_EV_TASK_ACTIVATE, (uint16_t)(c | HWT_ACTIVATE_NEW), 103);
		add_switch(f, c, 101, 103, HWT_STATE_BLOCKED);
		add(f, c, HWT_EV_VECTOR_START, 0xec, 0);
		add(f, c, HWT_EV_VECTOR_END, 0xec, 0);
		add(f, c, HWT_EV_VECTOR_START, 0x20, 0);
		add(f, c, HWT_EV_VECTOR_END, 0x20, 0);
		for (uint16_t kind = 0; kind < 3; kind++)
			for (uint16_t code = HWT_EV_TIMER_POST; code <= HWT_EV_TIMER_WAKEUP_END;
			     code += 0x10)
				add(f, c, code, kind, 0xdeadbeef);
		add(f, c, HWT_EV_IPOINT | HWT_CODE_FAST, 4, 0);
		add(f, c, 0x7C, 1, 2);		/* no such code */
		add(f, c, HWT_EV_FILTER(HWT_FAM_TIMER), 1, 0);
		/* one record of every other code the table knows */
		for (uint32_t code = 0; code < 0x100; code++)
			if (hwt_event_name((uint16_t)code) && code != HWT_EV_LOST &&
			    code != HWT_EV_TASK_SCHEDULE && code != HWT_EV_SET_PRIORITY &&
			    code != HWT_EV_INHERITANCE)
				add(f, c, (uint16_t)code, (uint16_t)(code == HWT_EV_INTERRUPT_START ||
						code == HWT_EV_INTERRUPT_END ? 11 : 1), 103);
		add(f, c, HWT_EV_INHERITANCE, 90, 103);
		add(f, c, HWT_EV_SET_PRIORITY, 110, 103);
		add(f, c, HWT_EV_TASK_END, 0, 103);
		add_switch(f, c, 103, 102, HWT_STATE_DEAD);
		add_switch(f, c, 102, 0, HWT_STATE_STOPPED);
		add_switch(f, c, 0, 100, HWT_STATE_OTHER);
	}
	add(f, LOST_CPU, HWT_EV_LOST, 0, 5);
	add_switch(f, LOST_CPU, 100, 0, HWT_STATE_SLEEPING);
	add(f, LOST_CPU, HWT_EV_LOST, 0, 12);
	add_switch(f, LOST_CPU, 0, 100, HWT_STATE_RUNNABLE);
	ck_assert_int_eq(hwt_writer_set_lost(f->w, LOST_CPU, LOST_TOTAL, 0), 0);
	ck_assert_int_eq(hwt_writer_set_lost(f->w, OW_CPU, 0, OW_TOTAL), 0);
out:
	ck_assert_int_eq(hwt_writer_close(f->w), 0);
}

/* Run a shell command line; its exit status. */
static int sh(const char *fmt, const char *a, const char *b, const char *c)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), fmt, a, b, c);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Counts by name and by CPU: from `hwtrace stats` and from ctf_counts.py. */
struct counts {
	char name[160][32];
	uint64_t by_name[160];
	int nr_names;
	uint64_t by_cpu[512];
	uint64_t discarded[512];
	uint64_t lost[512];	/* stats: lost + overwritten per CPU */
	uint64_t switches[512];
	char text[1 << 20];
};

static void count_name(struct counts *k, const char *name, uint64_t n)
{
	for (int i = 0; i < k->nr_names; i++) {
		if (!strcmp(k->name[i], name)) {
			k->by_name[i] += n;
			return;
		}
	}
	ck_assert_int_lt(k->nr_names, 160);
	snprintf(k->name[k->nr_names], sizeof(k->name[0]), "%s", name);
	k->by_name[k->nr_names++] = n;
}

static void stats_counts(const char *hwt, struct counts *k)
{
	char *argv[] = { "hwtrace", "stats", (char *)hwt, NULL };
	static struct run r;
	char *line, *save = NULL;
	int table = 0;

	memset(k, 0, sizeof(*k));
	run_hwtrace(&r, argv, NULL);
	ck_assert_msg(r.status == 0 || r.status == 3, "stats: %d %s", r.status, r.err);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned int code, cpu;
		uint64_t n, x, y;
		double rate;

		if (!strncmp(line, "event ", 6))
			table = 1;
		else if (!strncmp(line, "cpu ", 4))
			table = 2;
		else if (table == 1 && sscanf(line, "%63s 0x%x %" SCNu64, name, &code, &n) == 3)
			count_name(k, name, n);
		else if (table == 2 && sscanf(line, "%u %" SCNu64 " %lf %" SCNu64 " %" SCNu64,
					      &cpu, &n, &rate, &x, &y) == 5 && cpu < 512) {
			k->by_cpu[cpu] = n;
			k->lost[cpu] = x + y;
		}
	}
}

static void ctf_counts(const char *dir, struct counts *k)
{
	char out[256];
	char *line, *save = NULL;

	memset(k, 0, sizeof(*k));
	tmp_path(out, sizeof(out), "counts.txt");
	ck_assert_int_eq(sh("/usr/bin/python3 tests/ctf_counts.py '%s' > '%s' 2>&1%s", dir,
			    out, ""), 0);
	slurp_file(out, k->text, sizeof(k->text));
	{
		static char copy[1 << 20];

		memcpy(copy, k->text, sizeof(copy));
		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char name[64];
			unsigned int cpu;
			uint64_t n;

			if (sscanf(line, "EVENT %u %63s %" SCNu64, &cpu, name, &n) == 3) {
				ck_assert_uint_lt(cpu, 512);
				count_name(k, name, n);
				k->by_cpu[cpu] += n;
				if (!strcmp(name, "task_schedule"))
					k->switches[cpu] += n;
			} else if (sscanf(line, "DISCARDED %u %" SCNu64, &cpu, &n) == 2) {
				ck_assert_uint_lt(cpu, 512);
				k->discarded[cpu] += n;
			}
		}
	}
}

/* babeltrace2 reads DIR: exit 0, stderr only what discarded events explain. */
static void babeltrace_reads(const char *dir, int expect_discard_notes)
{
	char out[256], err[256];
	static char text[16384];
	int notes = 0;

	tmp_path(out, sizeof(out), "bt.out");
	tmp_path(err, sizeof(err), "bt.err");
	ck_assert_int_eq(sh("babeltrace2 '%s' > '%s' 2> '%s'", dir, out, err), 0);
	slurp_file(err, text, sizeof(text));
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		ck_assert_msg(strstr(l, "discarded") && strstr(l, "event"),
			      "babeltrace2 says: %s", l);
		notes++;
	}
	if (expect_discard_notes >= 0)
		ck_assert_int_eq(!!notes, !!expect_discard_notes);
}

static void convert(const char *hwt, const char *dir, int expect)
{
	char *argv[] = { "hwtrace", "convert", "-O", "ctf", "-o", (char *)dir,
			 (char *)hwt, NULL };
	static struct run r;

	run_hwtrace(&r, argv, NULL);
	ck_assert_msg(r.status == expect, "convert: %d, %s", r.status, r.err);
	if (expect == 3)
		ck_assert_ptr_nonnull(strstr(r.err, "truncated or damaged"));
	else
		ck_assert_str_eq(r.err, "");
}

static void same_counts(const struct counts *st, const struct counts *ctf, uint32_t ncpu)
{
	ck_assert_int_eq(st->nr_names, ctf->nr_names);
	for (int i = 0; i < st->nr_names; i++) {
		int j;

		for (j = 0; j < ctf->nr_names; j++)
			if (!strcmp(st->name[i], ctf->name[j]))
				break;
		ck_assert_msg(j < ctf->nr_names, "%s: not in the CTF", st->name[i]);
		ck_assert_msg(st->by_name[i] == ctf->by_name[j], "%s: stats %" PRIu64
			      ", CTF %" PRIu64, st->name[i], st->by_name[i], ctf->by_name[j]);
	}
	for (uint32_t c = 0; c < ncpu; c++)
		ck_assert_msg(st->by_cpu[c] == ctf->by_cpu[c], "cpu %u: stats %" PRIu64
			      ", CTF %" PRIu64, c, st->by_cpu[c], ctf->by_cpu[c]);
}

static struct fixture fx;
static struct counts kst, kctf;

START_TEST(test_every_code)
{
	char hwt[256], dir[256], line[128];

	tmp_path(hwt, sizeof(hwt), "t.hwt");
	tmp_path(dir, sizeof(dir), "ctf");
	make_trace(&fx, hwt, 4, true);
	convert(hwt, dir, 0);
	babeltrace_reads(dir, 1);
	stats_counts(hwt, &kst);
	ctf_counts(dir, &kctf);
	same_counts(&kst, &kctf, 4);
	for (uint32_t c = 0; c < 4; c++) {
		ck_assert_uint_eq(kctf.switches[c], fx.switches[c]);
		ck_assert_uint_eq(kctf.discarded[c], c == LOST_CPU ? LOST_TOTAL :
				  c == OW_CPU ? OW_TOTAL : 0);
	}
	/* names: from the statedump on, sanitized, unknown ones task-<pid> */
	ck_assert_ptr_nonnull(strstr(kctf.text, "STATEDUMP 100 worker\n"));
	ck_assert_ptr_nonnull(strstr(kctf.text, "STATEDUMP 101 " ODD_COMM_CTF "\n"));
	ck_assert_ptr_nonnull(strstr(kctf.text, "STATEDUMP 102 " UTF8_COMM "\n"));
	ck_assert_ptr_nonnull(strstr(kctf.text, "COMM 103 task-103\n"));
	/* 103 is forked in the trace: no statedump */
	ck_assert_ptr_null(strstr(kctf.text, "STATEDUMP 103 "));
	/* its final switch-out (dead) is followed by sched_process_free */
	for (uint32_t c = 0; c < 4; c++) {
		snprintf(line, sizeof(line), "FREE %u 103\n", c);
		ck_assert_ptr_nonnull(strstr(kctf.text, line));
	}
	ck_assert_ptr_null(strstr(kctf.text, "FREE 0 102\n"));
	/*
	 * prev_state in the kernel's report bits, prio as lttng writes it
	 * (kernel prio - 100): 120 by default, 90 lent by inheritance (the
	 * set_priority after it changes the task's own, not the boost)
	 */
	for (const char *const *l = (const char *const[]){
		"SWITCH 0 100 20 1 0 20\n", "SWITCH 0 0 20 0 101 20\n",
		"SWITCH 0 101 20 2 103 20\n", "PI 103 20 -10\n",
		"SWITCH 0 103 -10 16 102 20\n", "SWITCH 0 102 20 4 0 20\n",
		"SWITCH 0 0 20 64 100 20\n", NULL }; *l; l++)
		ck_assert_msg(strstr(kctf.text, *l), "no %s", *l);
	snprintf(line, sizeof(line), "COMM 0 swapper/3\n");
	ck_assert_ptr_nonnull(strstr(kctf.text, line));
	/* converting into a directory that holds something is refused */
	{
		char *argv[] = { "hwtrace", "convert", "-O", "ctf", "-o", dir, hwt, NULL };
		char *noout[] = { "hwtrace", "convert", "-O", "ctf", hwt, NULL };
		static struct run r;

		run_hwtrace(&r, argv, NULL);
		ck_assert_int_eq(r.status, 1);
		ck_assert_ptr_nonnull(strstr(r.err, "not empty"));
		run_hwtrace(&r, noout, NULL);
		ck_assert_int_eq(r.status, 2);
	}
}
END_TEST

START_TEST(test_300_cpus)
{
	char hwt[256], dir[256], path[300];
	struct stat st;

	tmp_path(hwt, sizeof(hwt), "t.hwt");
	tmp_path(dir, sizeof(dir), "ctf");
	make_trace(&fx, hwt, 300, false);
	convert(hwt, dir, 0);
	for (int c = 0; c < 300; c++) {
		snprintf(path, sizeof(path), "%s/channel0_%d", dir, c);
		ck_assert_int_eq(stat(path, &st), 0);
	}
	babeltrace_reads(dir, 0);
	stats_counts(hwt, &kst);
	ctf_counts(dir, &kctf);
	same_counts(&kst, &kctf, 300);
	for (uint32_t c = 0; c < 300; c++)
		ck_assert_uint_eq(kctf.switches[c], 2);
	ck_assert_ptr_nonnull(strstr(kctf.text, "COMM 101 " ODD_COMM_CTF "\n"));
}
END_TEST

START_TEST(test_truncated)
{
	char hwt[256], dir[256];
	struct stat st;

	tmp_path(hwt, sizeof(hwt), "t.hwt");
	tmp_path(dir, sizeof(dir), "ctf");
	make_trace(&fx, hwt, 4, true);
	ck_assert_int_eq(stat(hwt, &st), 0);
	/* cut inside the records, a few blocks in */
	ck_assert_int_eq(truncate(hwt, st.st_size * 2 / 3 + 5), 0);
	convert(hwt, dir, 3);
	babeltrace_reads(dir, -1);
	stats_counts(hwt, &kst);
	ctf_counts(dir, &kctf);
	same_counts(&kst, &kctf, 4);
	ck_assert_uint_gt(kst.by_cpu[0] + kst.by_cpu[1], 0);
}
END_TEST

/*
 * Recorded with a tiny ring under load (the fake /dev/hwtrace of
 * test_record): every event a full STOP ring dropped and every record a
 * CYC ring overwrote is in events_discarded, per CPU, as stats counts it.
 */
START_TEST(test_recorded_losses)
{
	static const char *const modes[] = { "stop", "cyclic" };
	char *env[] = { FAKE_ENV("3", "3000"), NULL };
	char hwt[256], dir[256];
	static struct run r;

	for (size_t m = 0; m < 2; m++) {
		char *rec[] = { "hwtrace", "record", "-q", "-f", "task", "-m", (char *)modes[m],
				"-b", "4k", "-d", "0.5", "-o", hwt, NULL };
		uint64_t total = 0;

		snprintf(hwt, sizeof(hwt), "%s/%s.hwt", run_dir, modes[m]);
		snprintf(dir, sizeof(dir), "%s/%s-ctf", run_dir, modes[m]);
		run_hwtrace(&r, rec, env);
		ck_assert_msg(r.status == 0, "record -m %s: %d %s", modes[m], r.status, r.err);
		convert(hwt, dir, 0);
		babeltrace_reads(dir, 1);
		stats_counts(hwt, &kst);
		ctf_counts(dir, &kctf);
		same_counts(&kst, &kctf, 3);
		for (uint32_t c = 0; c < 3; c++) {
			ck_assert_msg(kctf.discarded[c] == kst.lost[c], "%s cpu %u: discarded %"
				      PRIu64 ", stats %" PRIu64, modes[m], c,
				      kctf.discarded[c], kst.lost[c]);
			total += kst.lost[c];
		}
		ck_assert_uint_gt(total, 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctf");
	TCase *tc = tcase_create("ctf");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, run_setup, run_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_code);
	tcase_add_test(tc, test_300_cpus);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_recorded_losses);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
