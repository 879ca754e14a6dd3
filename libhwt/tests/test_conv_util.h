/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Shared by the converter and model tests: an in-memory struct hwt_stream,
 * the fixed synthetic trace the golden files come from, golden-file
 * comparison (HWT_REGEN_GOLDEN=1 rewrites them) and small helpers.
 */
#ifndef TEST_CONV_UTIL_H
#define TEST_CONV_UTIL_H

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwt/conv.h>
#include <hwt/model.h>
#include <hwt/types.h>
#include <linux/hwtrace.h>

#define TU_FN static __attribute__((unused))

/* --- an in-memory stream --------------------------------------------------- */

struct tu_name {
	uint32_t id;
	uint32_t tgid;
	const char *name;
};

struct tu_stream {
	struct hwt_stream s;
	struct hwt_trace_info info;
	uint64_t lost[8];
	struct hwt_record *recs;
	size_t n, cap, pos;
	size_t nr_read;		/* records next() returned, rewinds included */
	size_t fail_at;		/* next() fails when pos reaches it (0: never) */
	int no_rewind;
	const struct tu_name *tasks;
	const struct tu_name *irqs;
	struct hwt_task task_buf;
};

TU_FN int tu_next(void *ctx, struct hwt_record *rec)
{
	struct tu_stream *t = ctx;

	if (t->fail_at && t->pos >= t->fail_at)
		return -EIO;
	if (t->pos >= t->n)
		return 0;
	*rec = t->recs[t->pos++];
	t->nr_read++;
	return 1;
}

TU_FN int tu_rewind(void *ctx)
{
	struct tu_stream *t = ctx;

	if (t->no_rewind)
		return -ESPIPE;
	t->pos = 0;
	return 0;
}

TU_FN const struct hwt_task *tu_task(void *ctx, uint32_t pid)
{
	struct tu_stream *t = ctx;

	for (const struct tu_name *n = t->tasks; n && n->name; n++) {
		if (n->id != pid)
			continue;
		memset(&t->task_buf, 0, sizeof(t->task_buf));
		t->task_buf.pid = pid;
		t->task_buf.tgid = n->tgid;
		strncpy(t->task_buf.comm, n->name, HWT_COMM_LEN - 1);
		return &t->task_buf;
	}
	return NULL;
}

TU_FN const char *tu_irq(void *ctx, uint32_t irq)
{
	struct tu_stream *t = ctx;

	for (const struct tu_name *n = t->irqs; n && n->name; n++)
		if (n->id == irq)
			return n->name;
	return NULL;
}

TU_FN void tu_init(struct tu_stream *t, uint32_t nr_cpus, uint64_t cpm)
{
	memset(t, 0, sizeof(*t));
	t->info.nr_cpus = nr_cpus;
	t->info.clock = HWT_CLOCK_TSC;
	t->info.cycles_per_msec = cpm;
	t->info.creation_time = 1700000000;	/* 2023-11-14 22:13:20 UTC */
	t->info.families = 0xFFF;
	t->info.chunk_mode = HWT_CHUNK_STOP;
	strcpy(t->info.kernel_release, "6.1.0-test");
	strcpy(t->info.hostname, "testhost");
	strcpy(t->info.backend, "module");
	t->info.lost = t->lost;
	t->s.info = &t->info;
	t->s.next = tu_next;
	t->s.rewind = tu_rewind;
	t->s.task = tu_task;
	t->s.irq_name = tu_irq;
	t->s.ctx = t;
}

TU_FN void tu_free(struct tu_stream *t)
{
	free(t->recs);
	t->recs = NULL;
}

TU_FN void tu_add(struct tu_stream *t, uint64_t ts, uint32_t cpu, uint16_t code,
		  uint16_t par1, uint32_t par2)
{
	struct hwt_record *r;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->recs = realloc(t->recs, t->cap * sizeof(*t->recs));
		ck_assert_ptr_nonnull(t->recs);
	}
	r = &t->recs[t->n++];
	memset(r, 0, sizeof(*r));
	r->ts = ts;
	r->cpu = cpu;
	r->ev.code = code;
	r->ev.par1 = par1;
	r->ev.par2 = par2;
	r->ev.tsc_hi = (uint32_t)(ts >> 32);
	r->ev.tsc_lo = (uint32_t)ts;
}

TU_FN void tu_switch(struct tu_stream *t, uint64_t ts, uint32_t cpu,
		     uint32_t prev, uint32_t state, uint32_t next)
{
	tu_add(t, ts, cpu, HWT_EV_TASK_SCHEDULE,
	       (uint16_t)HWT_SWITCH_PAR1(prev, state), HWT_SWITCH_PAR2(prev, next));
}

/* --- the fixed synthetic trace ------------------------------------------------ */

/* Odd names on purpose: commas, quotes, spaces, control chars, bad UTF-8. */
static const struct tu_name tu_fixture_tasks[] = {
	{ 100, 100, "bash, \"q\"" },
	{ 200, 200, "ctl\x01\tx" },
	{ 300, 300, "bad\xff\xfeutf" },
	{ 400, 100, "worker 1" },
	{ 500, 500, "rt-task" },
	{ 600, 600, "child" },
	{ 0, 0, NULL },
};

static const struct tu_name tu_fixture_irqs[] = {
	{ 16, 0, "eth0,rx" },
	{ 17, 0, "timer\"x<&>" },
	{ 0, 0, NULL },
};

#define TU_CPM		2400000		/* 2.4 GHz: 5/12 ns per tick */

/*
 * Three CPUs.  cpu0 starts in task 100 (ID record), cpu1 in 200 and inside
 * x86 vector 0xec (its END comes first), cpu2 has no ID record: 300 is only
 * seen as prev.  400 is blocked at the start, woken by 100, preempts it,
 * contends for a lock and waits, migrates to cpu2 and finishes.  500 is
 * runnable at the start (first seen as next), forks 600, which runs and
 * exits.  100 runs softirq NET_RX, interrupted by irq 16 with irq 17 nested.
 * LOST records on cpu1 and more losses only in info->lost.
 */
TU_FN void tu_fixture(struct tu_stream *t)
{
	tu_init(t, 3, TU_CPM);
	t->tasks = tu_fixture_tasks;
	t->irqs = tu_fixture_irqs;
	t->lost[0] = 0;
	t->lost[1] = 8;
	t->lost[2] = 2;
	for (uint32_t c = 0; c < 3; c++) {
		uint64_t ts = 1000 + 10 * c;

		tu_add(t, ts, c, HWT_EV_CYCLES_PER_MSEC, HWT_CLOCK_TSC, TU_CPM);
		tu_add(t, ts, c, HWT_EV_TRACE_START, 0, 0);
		if (c == 0)
			tu_add(t, ts, c, HWT_EV_ID, 0, 100);
		if (c == 1) {
			tu_add(t, ts, c, HWT_EV_ID, 1, 200);
			tu_add(t, ts + 5, c, HWT_EV_VECTOR_END, 0xec, 0);
		}
	}
	tu_add(t, 1100, 0, HWT_EV_FREQUENCY, 0, 2400000);
	tu_add(t, 1200, 0, HWT_EV_TASK_ACTIVATE, 0, 400);
	tu_switch(t, 1300, 0, 100, HWT_STATE_RUNNABLE, 400);
	tu_switch(t, 1350, 1, 200, HWT_STATE_SLEEPING, 500);
	tu_add(t, 1400, 0, HWT_EV_MUTEX_WAIT, 0, 0xdeadbeef);
	tu_switch(t, 1450, 2, 300, HWT_STATE_RUNNABLE, 0);
	tu_add(t, 1460, 2, HWT_EV_IDLE_ENTER, 1, 0);
	tu_switch(t, 1500, 0, 400, HWT_STATE_BLOCKED, 100);
	tu_add(t, 1550, 0, HWT_EV_IPOINT, 3, 42);
	tu_add(t, 1600, 0, HWT_EV_SOFTIRQ_START, 3, 0);
	tu_add(t, 1650, 0, HWT_EV_INTERRUPT_START, 16, 0);
	tu_add(t, 1700, 0, HWT_EV_INTERRUPT_START, 17, 0);
	tu_add(t, 1750, 0, HWT_EV_INTERRUPT_END, 17, 1);
	tu_add(t, 1800, 0, HWT_EV_INTERRUPT_END, 16, 1);
	tu_add(t, 1850, 0, HWT_EV_SOFTIRQ_END, 3, 0);
	tu_add(t, 1900, 1, HWT_EV_LOST, 0, 5);
	tu_add(t, 1950, 1, HWT_EV_TASK_CREATE, 0, 600);
	tu_add(t, 2000, 1, HWT_EV_TASK_ACTIVATE, 1 | HWT_ACTIVATE_NEW, 600);
	tu_switch(t, 2050, 1, 500, HWT_STATE_RUNNABLE, 600);
	tu_add(t, 2100, 1, HWT_EV_USER_EVENT_2, 7, 99);
	tu_add(t, 2150, 0, HWT_EV_TASK_MIGRATE, 2, 400);
	tu_add(t, 2160, 0, HWT_EV_TASK_ACTIVATE, 2, 400);
	tu_add(t, 2165, 2, HWT_EV_IDLE_EXIT, 0, 0);
	tu_switch(t, 2170, 2, 0, HWT_STATE_RUNNABLE, 400);
	tu_add(t, 2200, 2, HWT_EV_MUTEX_LOCK, 0, 0xdeadbeef);
	tu_add(t, 2250, 0, HWT_EV_INHERITANCE, 98, 400);
	tu_add(t, 2300, 1, HWT_EV_SIGNAL, 9, 600);
	tu_add(t, 2350, 1, HWT_EV_TASK_END, 0, 600);
	tu_switch(t, 2400, 1, 600, HWT_STATE_DEAD, 500);
	tu_switch(t, 2450, 2, 400, HWT_STATE_SLEEPING, 0);
	tu_switch(t, 2500, 0, 100, HWT_STATE_SLEEPING, 0);
	tu_add(t, 2590, 1, HWT_EV_LOST, 0, 6);
	for (uint32_t c = 0; c < 3; c++)
		tu_add(t, 2600, c, HWT_EV_TRACE_STOP, 0, 0);
}

/* --- helpers ------------------------------------------------------------------ */

/* Convert into memory; returns hwt_convert()'s result. */
TU_FN int tu_convert(const char *fmt, struct hwt_stream *in,
		     const struct hwt_conv_opts *opts, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int ret;

	ck_assert_ptr_nonnull(f);
	ret = hwt_convert(fmt, in, f, opts);
	ck_assert_int_eq(fclose(f), 0);
	return ret;
}

/* libhwt/ (where `make check` runs tests, HWT_SRCDIR), or from __FILE__. */
TU_FN const char *tu_srcdir(void)
{
	static char dir[4096];
	const char *env = getenv("HWT_SRCDIR");
	char *slash;

	if (env)
		return env;
	snprintf(dir, sizeof(dir), "%s", __FILE__);
	slash = strrchr(dir, '/');
	if (!slash)
		return ".";
	*slash = '\0';			/* .../tests */
	slash = strrchr(dir, '/');
	if (!slash)
		return "..";
	*slash = '\0';			/* .../libhwt */
	return dir;
}

TU_FN char *tu_path(const char *rel)
{
	char *p;

	ck_assert_int_gt(asprintf(&p, "%s/%s", tu_srcdir(), rel), 0);
	return p;
}

TU_FN int tu_read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*buf = malloc(n + 1);
	ck_assert_ptr_nonnull(*buf);
	*len = fread(*buf, 1, n, f);
	(*buf)[*len] = '\0';
	fclose(f);
	return 0;
}

TU_FN void tu_write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f, "cannot write %s", path);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* Compare with tests/golden/<name>; HWT_REGEN_GOLDEN=1 rewrites it instead. */
TU_FN void tu_golden(const char *name, const char *buf, size_t len)
{
	char *rel, *path, *want = NULL;
	size_t want_len = 0;

	ck_assert_int_gt(asprintf(&rel, "tests/golden/%s", name), 0);
	path = tu_path(rel);
	if (getenv("HWT_REGEN_GOLDEN")) {
		tu_write_file(path, buf, len);
	} else {
		ck_assert_msg(tu_read_file(path, &want, &want_len) == 0,
			      "missing golden %s (HWT_REGEN_GOLDEN=1 makes it)", path);
		if (want_len != len || memcmp(want, buf, len)) {
			char *got;

			ck_assert_int_gt(asprintf(&got, "%s.got", path), 0);
			tu_write_file(got, buf, len);
			ck_abort_msg("%s differs from the golden file; output in %s",
				     name, got);
		}
		free(want);
	}
	free(rel);
	free(path);
}

/* Bytes from a hex string ("0c03..."); returns the count. */
TU_FN size_t tu_unhex(uint8_t *out, const char *hex)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned int b;

		ck_assert_int_eq(sscanf(hex, "%2x", &b), 1);
		out[n++] = (uint8_t)b;
	}
	return n;
}

/* Split buf into lines in place; returns the count, lines[] point into buf. */
TU_FN size_t tu_lines(char *buf, size_t len, char ***lines)
{
	size_t n = 0, cap = 1024;

	*lines = malloc(cap * sizeof(char *));
	ck_assert_ptr_nonnull(*lines);
	for (size_t i = 0; i < len;) {
		char *nl = memchr(buf + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - buf) : len;

		if (n == cap) {
			cap *= 2;
			*lines = realloc(*lines, cap * sizeof(char *));
			ck_assert_ptr_nonnull(*lines);
		}
		(*lines)[n++] = buf + i;
		if (nl)
			*nl = '\0';
		i = end + 1;
	}
	return n;
}

/* Run a Check suite of one test case: the tests' main(). */
#define TU_MAIN(suite_name, ...)					\
int main(void)								\
{									\
	Suite *s = suite_create(suite_name);				\
	TCase *tc = tcase_create("all");				\
	const TTest *const tests[] = { __VA_ARGS__ };			\
	SRunner *sr;							\
	int failed;							\
									\
	tcase_set_timeout(tc, 120);					\
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)	\
		tcase_add_test(tc, tests[i]);				\
	suite_add_tcase(s, tc);						\
	sr = srunner_create(s);						\
	srunner_run_all(sr, CK_NORMAL);					\
	failed = srunner_ntests_failed(sr);				\
	srunner_free(sr);						\
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;			\
}

#endif /* TEST_CONV_UTIL_H */
