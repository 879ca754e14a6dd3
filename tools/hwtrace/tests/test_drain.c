// SPDX-License-Identifier: GPL-2.0
/*
 * record_drain.c on its own, against a scripted backend: every record the
 * backend hands over is in the file on its CPU, in order, with the names
 * and the loss counters; the loop ends on a stop request, the duration, the
 * command's exit and a drain error (and then takes nothing more).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwtrace.h"
#include "record.h"

#define NCPU		2
#define PER_POLL	100	/* records per CPU per poll */

/* The scripted backend's state: what it did and what it should do. */
static struct {
	int polls, consumes, enabled;
	int stop_after;		/* set stop_requested at this poll, 0 never */
	int fail_at;		/* this poll returns fail_err, 0 never */
	int fail_err;
	int give;		/* polls that hand over records, the rest none */
	uint32_t seq[NCPU];	/* next record's par2 per CPU */
	int names_given;
	/* per CPU, each its drain thread's own: polls; the poll that fails */
	int cpu_polls[NCPU], cpu_fail_at[NCPU];
	int cpu_give;		/* polls of a CPU that hand over records */
	int cpu_err[NCPU];	/* every poll of this CPU fails so, 0 never */
} fake;

static int fake_enable(struct rec *r)
{
	(void)r;
	fake.enabled = 1;
	return 0;
}

static int fake_disable(struct rec *r)
{
	(void)r;
	fake.enabled = 0;
	return 0;
}

/* PER_POLL records of one CPU, numbered, ts growing */
static int64_t hand_over_cpu(struct rec *r, uint32_t cpu, hwt_sink_fn_t fn)
{
	struct hwt_event ev[PER_POLL];

	for (int i = 0; i < PER_POLL; i++) {
		uint64_t ts = 1000 + (uint64_t)fake.seq[cpu] * 10 + cpu;

		memset(&ev[i], 0, sizeof(ev[i]));
		ev[i].code = HWT_EV_TASK_SCHEDULE;
		ev[i].tsc_hi = (uint32_t)(ts >> 32);
		ev[i].tsc_lo = (uint32_t)ts;
		ev[i].par2 = fake.seq[cpu]++;
	}
	/* in two runs, as a ring that wraps */
	if (fn(r, cpu, ev, 30) || fn(r, cpu, ev + 30, PER_POLL - 30))
		return -EIO;
	return PER_POLL;
}

/* PER_POLL records on each CPU */
static int64_t hand_over(struct rec *r, hwt_sink_fn_t fn)
{
	for (uint32_t cpu = 0; cpu < NCPU; cpu++)
		if (hand_over_cpu(r, cpu, fn) < 0)
			return -EIO;
	return NCPU * PER_POLL;
}

/* From CPU cpu's drain thread: only its own fields of fake are touched. */
static int64_t fake_poll_cpu(struct rec *r, uint32_t cpu, int timeout_ms,
			     hwt_sink_fn_t fn)
{
	(void)timeout_ms;
	ck_assert_uint_lt(cpu, NCPU);
	fake.cpu_polls[cpu]++;
	if (fake.cpu_err[cpu])
		return fake.cpu_err[cpu];
	if (fake.cpu_polls[cpu] == fake.cpu_fail_at[cpu])
		return fake.fail_err;
	if (fake.cpu_polls[cpu] > fake.cpu_give) {
		usleep(1000);
		return 0;
	}
	return hand_over_cpu(r, cpu, fn);
}

static int64_t fake_poll(struct rec *r, int timeout_ms, hwt_sink_fn_t fn)
{
	(void)timeout_ms;
	ck_assert_int_eq(fake.enabled, 1);
	fake.polls++;
	if (fake.stop_after && fake.polls >= fake.stop_after)
		stop_requested = 1;
	if (fake.fail_at && fake.polls == fake.fail_at)
		return fake.fail_err;
	if (fake.polls > fake.give) {
		usleep(1000);
		return 0;
	}
	return hand_over(r, fn);
}

static int64_t fake_consume(struct rec *r, hwt_sink_fn_t fn)
{
	ck_assert_int_eq(fake.enabled, 0);
	fake.consumes++;
	return hand_over(r, fn);
}

static int fake_read_names(struct rec *r, struct hwt_name *names, size_t n)
{
	(void)r;
	ck_assert_uint_ge(n, 1);
	if (fake.names_given)
		return 0;
	fake.names_given = 1;
	memset(names, 0, sizeof(*names));
	names->kind = HWT_NAME_TASK;
	names->id = 42;
	names->tgid = 42;
	strcpy(names->name, "drainee");
	return 1;
}

static void fake_counters(struct rec *r, uint64_t *lost, uint64_t *ow, uint64_t *fill)
{
	(void)r;
	lost[1] += 7;
	ow[0] += 0;
	*fill = 50;
}

static uint64_t fake_names_lost(struct rec *r)
{
	(void)r;
	return 3;
}

static const struct rec_backend fake_backend = {
	.enable = fake_enable,
	.disable = fake_disable,
	.poll = fake_poll,
	.consume = fake_consume,
	.read_names = fake_read_names,
	.counters = fake_counters,
	.names_lost = fake_names_lost,
};

/* The same, drained by a thread per CPU. */
static const struct rec_backend fake_threaded_backend = {
	.enable = fake_enable,
	.disable = fake_disable,
	.poll = fake_poll,
	.poll_cpu = fake_poll_cpu,
	.consume = fake_consume,
	.read_names = fake_read_names,
	.counters = fake_counters,
	.names_lost = fake_names_lost,
};

static char path[64];

static void setup_rec(struct rec *r, enum rec_mode mode)
{
	struct hwt_trace_info info = { .nr_cpus = NCPU, .cycles_per_msec = 1000000 };

	memset(&fake, 0, sizeof(fake));
	stop_requested = 0;
	memset(r, 0, sizeof(*r));
	r->be = &fake_backend;
	r->ver.nr_cpus = NCPU;
	r->mode = mode;
	r->chunk[0] = r->chunk[1] = -1;
	r->udp = -1;
	r->names_ok = 1;
	r->quiet = 1;
	r->wait_ms = 1;
	r->child = -1;
	snprintf(path, sizeof(path), "/tmp/hwtrace-drain-XXXXXX");
	ck_assert_int_ge(mkstemp(path), 0);
	r->out = path;
	ck_assert_int_eq(rec_alloc(r), 0);
	ck_assert_int_eq(hwt_writer_open(&r->w, path, &info, NULL), 0);
	ck_assert_int_eq(fake_enable(r), 0);
	r->enabled = 1;
}

/* The file holds n records per CPU, each CPU's numbered 0..n-1 in order. */
static void check_file(uint64_t n)
{
	uint32_t next[NCPU] = { 0 };
	struct hwt_reader *rd;
	struct hwt_record rec;
	const struct hwt_trace_info *info;

	ck_assert_int_eq(hwt_reader_open(&rd, path, NULL), 0);
	while (hwt_reader_next(rd, &rec) == 1) {
		ck_assert_uint_lt(rec.cpu, NCPU);
		ck_assert_uint_eq(rec.ev.par2, next[rec.cpu]);
		next[rec.cpu]++;
	}
	for (int c = 0; c < NCPU; c++)
		ck_assert_uint_eq(next[c], n);
	info = hwt_reader_info(rd);
	ck_assert_uint_eq(info->lost[0], 0);
	ck_assert_uint_eq(info->lost[1], 7);
	ck_assert_uint_eq(info->names_lost, 3);
	ck_assert_ptr_nonnull(hwt_reader_task(rd, 42));
	ck_assert_str_eq(hwt_reader_task(rd, 42)->comm, "drainee");
	hwt_reader_close(rd);
	unlink(path);
}

static void finish(struct rec *r)
{
	rec_drain_rest(r);
	ck_assert_int_eq(r->enabled, 0);
	ck_assert_int_eq(fake.enabled, 0);
	ck_assert_ptr_null(r->w);
}

START_TEST(test_stream_until_stopped)
{
	struct rec r;

	setup_rec(&r, MODE_STREAM);
	fake.give = 5;
	fake.stop_after = 5;
	rec_drain(&r);
	ck_assert_int_eq(fake.polls, 5);
	ck_assert_int_eq(r.err, 0);
	finish(&r);
	ck_assert_int_eq(fake.consumes, 1);
	/* five polls and the final consume */
	ck_assert_uint_eq(r.total, 6 * NCPU * PER_POLL);
	ck_assert_uint_eq(r.cpu_records[0], 6 * PER_POLL);
	ck_assert_uint_eq(r.cpu_records[1], 6 * PER_POLL);
	ck_assert_uint_eq(r.lost[1], 7);
	check_file(6 * PER_POLL);
	rec_free(&r);
}
END_TEST

START_TEST(test_stream_duration)
{
	struct rec r;
	double t;

	setup_rec(&r, MODE_STREAM);
	fake.give = 2;
	r.duration = 0.05;
	t = rec_now();
	rec_drain(&r);
	ck_assert(rec_now() - t >= 0.05);
	ck_assert_int_gt(fake.polls, 2);
	finish(&r);
	check_file(3 * PER_POLL);
	rec_free(&r);
}
END_TEST

/* EINTR (a signal) is no error; anything else ends the drain, nothing more is read. */
START_TEST(test_stream_error)
{
	struct rec r;

	setup_rec(&r, MODE_STREAM);
	fake.give = 100;
	fake.fail_at = 2;
	fake.fail_err = -EINTR;
	fake.stop_after = 4;
	rec_drain(&r);
	ck_assert_int_eq(r.err, 0);
	ck_assert_int_eq(fake.polls, 4);
	finish(&r);
	unlink(path);
	rec_free(&r);

	setup_rec(&r, MODE_STREAM);
	fake.give = 100;
	fake.fail_at = 3;
	fake.fail_err = -EIO;
	rec_drain(&r);
	ck_assert_int_eq(r.err, -EIO);
	ck_assert_int_eq(fake.polls, 3);
	finish(&r);
	ck_assert_int_eq(fake.consumes, 0);
	ck_assert_uint_eq(r.total, 2 * NCPU * PER_POLL);
	check_file(2 * PER_POLL);
	rec_free(&r);
}
END_TEST

START_TEST(test_child_exit)
{
	struct rec r;

	setup_rec(&r, MODE_STREAM);
	r.child = fork();
	ck_assert_int_ge(r.child, 0);
	if (!r.child)
		_exit(3);
	rec_drain(&r);
	ck_assert_int_eq(r.child, -1);
	ck_assert(WIFEXITED(r.child_status));
	ck_assert_int_eq(WEXITSTATUS(r.child_status), 3);
	finish(&r);
	check_file(PER_POLL);	/* the polls gave nothing (give = 0) */
	rec_free(&r);
}
END_TEST

/*
 * A drain thread per CPU: each CPU's records all in the file, in order,
 * none from poll(); the threads are joined when the duration ends, and
 * the final consume follows.
 */
START_TEST(test_threads)
{
	struct rec r;

	setup_rec(&r, MODE_STREAM);
	r.be = &fake_threaded_backend;
	fake.cpu_give = 5;
	r.duration = 0.2;
	rec_drain(&r);
	ck_assert_int_eq(r.err, 0);
	ck_assert_int_eq(fake.polls, 0);
	ck_assert_uint_eq(r.nr_drainers, 0);
	for (int c = 0; c < NCPU; c++)
		ck_assert_int_gt(fake.cpu_polls[c], 5);
	finish(&r);
	ck_assert_uint_eq(r.total, 6 * NCPU * PER_POLL);
	check_file(6 * PER_POLL);
	rec_free(&r);
}
END_TEST

/* A drain thread's error ends the drain, and the other thread stops too. */
START_TEST(test_threads_error)
{
	struct rec r;

	setup_rec(&r, MODE_STREAM);
	r.be = &fake_threaded_backend;
	fake.cpu_give = 2;
	fake.cpu_fail_at[1] = 3;
	fake.fail_err = -EIO;
	rec_drain(&r);
	ck_assert_int_eq(r.err, -EIO);
	ck_assert_int_eq(fake.cpu_polls[1], 3);
	finish(&r);
	ck_assert_int_eq(fake.consumes, 0);
	ck_assert_uint_eq(r.cpu_records[1], 2 * PER_POLL);
	unlink(path);
	rec_free(&r);
}
END_TEST

/* A CPU without rings (-ENOENT, a hole in the numbers) gets no thread. */
START_TEST(test_threads_hole)
{
	struct rec r;

	setup_rec(&r, MODE_STREAM);
	r.be = &fake_threaded_backend;
	fake.cpu_give = 5;
	fake.cpu_err[0] = -ENOENT;
	r.duration = 0.2;
	rec_drain(&r);
	ck_assert_int_eq(r.err, 0);
	ck_assert_int_eq(fake.polls, 0);
	ck_assert_int_eq(fake.cpu_polls[0], 1);	/* the first pass only */
	ck_assert_int_gt(fake.cpu_polls[1], 5);
	finish(&r);
	ck_assert_uint_eq(r.cpu_records[0], PER_POLL);	/* the final consume */
	ck_assert_uint_eq(r.cpu_records[1], 6 * PER_POLL);
	unlink(path);
	rec_free(&r);
}
END_TEST

/*
 * A module without per-CPU waits (-ENOTTY on the first pass): no thread,
 * the main thread drains every CPU with poll(), nothing is lost.
 */
START_TEST(test_threads_unsupported)
{
	struct rec r;

	setup_rec(&r, MODE_STREAM);
	r.be = &fake_threaded_backend;
	fake.cpu_err[0] = fake.cpu_err[1] = -ENOTTY;
	fake.give = 5;
	fake.stop_after = 5;
	rec_drain(&r);
	ck_assert_int_eq(r.err, 0);
	ck_assert_int_eq(fake.cpu_polls[0], 1);
	ck_assert_int_eq(fake.cpu_polls[1], 0);
	ck_assert_int_eq(fake.polls, 5);
	finish(&r);
	check_file(6 * PER_POLL);
	rec_free(&r);
}
END_TEST

/* stop, cyclic, chain: nothing is polled, all is taken at the end */
START_TEST(test_stop_mode)
{
	struct rec r;

	setup_rec(&r, MODE_STOP);
	fake.stop_after = 1;
	r.duration = 0.01;
	rec_drain(&r);
	ck_assert_int_eq(fake.polls, 0);
	finish(&r);
	ck_assert_int_eq(fake.consumes, 1);
	check_file(PER_POLL);
	rec_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwtrace-drain");
	TCase *tc = tcase_create("scripted backend");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_stream_until_stopped);
	tcase_add_test(tc, test_stream_duration);
	tcase_add_test(tc, test_stream_error);
	tcase_add_test(tc, test_child_exit);
	tcase_add_test(tc, test_stop_mode);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_threads_error);
	tcase_add_test(tc, test_threads_hole);
	tcase_add_test(tc, test_threads_unsupported);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
