// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace recording semantics with exact counts: STOP keeps the first
 * events, CYC the last, JTN continues in the linked chunk; filters drop a
 * family and log their changes.  One pinned thread per online CPU injects
 * user events carrying a sequence number in par2.
 */
#include "hwt_test.h"
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"

#define MAX_CPUS	64

struct injector {
	pthread_t thread;
	int fd, cpu;
	uint32_t n;
	uint16_t code;
	int err;
};

static void *inject(void *arg)
{
	struct injector *in = arg;

	in->err = hwt_pin(in->cpu);
	for (uint32_t i = 0; i < in->n && !in->err; i++)
		in->err = (int)hwt_log(in->fd, in->code, (uint16_t)in->cpu, i);
	return NULL;
}

/* Inject n events of code on every online CPU in parallel. */
static int inject_all(int fd, int ncpu, uint32_t n, uint16_t code)
{
	struct injector in[MAX_CPUS];
	int err = 0;

	for (int c = 0; c < ncpu; c++) {
		in[c] = (struct injector){ .fd = fd, .cpu = c, .n = n, .code = code };
		if (!hwt_cpu_online(c))
			continue;
		if (pthread_create(&in[c].thread, NULL, inject, &in[c]))
			return -EAGAIN;
	}
	for (int c = 0; c < ncpu; c++) {
		if (!hwt_cpu_online(c))
			continue;
		pthread_join(in[c].thread, NULL);
		if (in[c].err)
			err = in[c].err;
	}
	return err;
}

FIXTURE(rec) {
	int fd, ncpu;
	struct hwt_event *buf;
};

FIXTURE_SETUP(rec)
{
	self->fd = hwt_open();
	ASSERT_LE(0, self->fd);
	hwt_reset(self->fd);
	self->ncpu = hwt_nr_cpus(self->fd);
	ASSERT_LT(0, self->ncpu);
	ASSERT_GE(MAX_CPUS, self->ncpu);
	self->buf = calloc(1 << 16, sizeof(*self->buf));
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, hwt_only(self->fd, 1u << HWT_FAM_USER));
}

FIXTURE_TEARDOWN(rec)
{
	hwt_reset(self->fd);
	free(self->buf);
	close(self->fd);
}

static void expect_start(struct __test_metadata *_metadata,
			 const struct hwt_event *ev, int cpu)
{
	EXPECT_EQ(HWT_EV_CYCLES_PER_MSEC, ev[0].code);
	EXPECT_LT(0, ev[0].par2);
	EXPECT_EQ(HWT_EV_TRACE_START, ev[1].code);
	EXPECT_EQ(HWT_EV_ID, ev[2].code);
	EXPECT_EQ(cpu, ev[2].par1);
}

/* Timestamps never go backwards within one ring. */
static void expect_ordered(struct __test_metadata *_metadata,
			   const struct hwt_event *ev, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		ASSERT_LE(hwt_event_tsc(&ev[i - 1]), hwt_event_tsc(&ev[i]))
			TH_LOG("record %zu goes back in time", i);
	}
}

TEST_F(rec, stop_keeps_first)
{
	const uint32_t normal = 64, n = 100;
	const uint32_t kept = normal - START_RECS;
	int id;

	id = hwt_create(self->fd, normal * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, inject_all(self->fd, self->ncpu, n, HWT_EV_USER_EVENT_1));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));

	for (int c = 0; c < self->ncpu; c++) {
		struct hwt_chunk_stat st;
		struct hwt_map m = { 0 };
		size_t got;

		if (!hwt_cpu_online(c))
			continue;
		ASSERT_EQ(0, hwt_stat(self->fd, id, c, &st));
		EXPECT_EQ(n - kept, st.lost);
		/* written + lost == attempted: start, n events, lost, stop */
		EXPECT_EQ(START_RECS + n + 2, st.written + st.lost);
		EXPECT_TRUE(st.flags & HWT_CHUNK_FULL);
		ASSERT_EQ(0, hwt_map(self->fd, id, c, &m));
		EXPECT_EQ(st.lost, m.meta->lost);
		EXPECT_EQ(st.written, m.meta->written);
		got = hwt_drain(&m, self->buf, 1 << 16);
		ASSERT_EQ(START_RECS + kept + 2, got);
		expect_start(_metadata, self->buf, c);
		for (uint32_t i = 0; i < kept; i++) {
			const struct hwt_event *e = &self->buf[START_RECS + i];

			ASSERT_EQ(HWT_EV_USER_EVENT_1, e->code);
			ASSERT_EQ(i, e->par2);
			ASSERT_EQ(c, e->par1);
		}
		/* the emergency area told the reader what was lost */
		EXPECT_EQ(HWT_EV_LOST, self->buf[got - 2].code);
		EXPECT_EQ(n - kept, self->buf[got - 2].par2);
		EXPECT_EQ(HWT_EV_TRACE_STOP, self->buf[got - 1].code);
		expect_ordered(_metadata, self->buf, got);
		hwt_unmap(&m);
	}
}

/* A reader's view of one ring's user events: seq numbers and lost reports. */
struct gap_check {
	uint32_t next;		/* sequence number expected next */
	uint64_t missing;	/* events seen missing so far */
	uint64_t reported;	/* the last lost total read */
	uint16_t prev;		/* code of the record before */
	uint32_t gaps;
};

static void check_gaps(struct __test_metadata *_metadata, struct gap_check *g,
		       const struct hwt_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ev[i].code == HWT_EV_LOST)
			g->reported = (uint64_t)ev[i].par1 << 32 | ev[i].par2;
		if (ev[i].code == HWT_EV_USER_EVENT_0) {
			if (ev[i].par2 != g->next) {
				ASSERT_LT(g->next, ev[i].par2);
				g->missing += ev[i].par2 - g->next;
				g->gaps++;
				/* the record just before a gap says it, and covers it */
				ASSERT_EQ(HWT_EV_LOST, g->prev)
					TH_LOG("gap before %u: no lost record", ev[i].par2);
				ASSERT_LE(g->missing, g->reported);
			}
			g->next = ev[i].par2 + 1;
		}
		g->prev = ev[i].code;
	}
}

/*
 * A slow consumer of a STOP ring: every gap is preceded by a lost record
 * whose total covers it.  The ring is left with room for one record (the
 * event, not the report and the event) on purpose, then at random.
 */
TEST_F(rec, every_gap_reported)
{
	const uint32_t normal = 32;
	struct gap_check g = { .prev = HWT_EV_EMPTY };
	struct rng rng = { .s = 0x9E3779B97F4A7C15ULL };
	struct hwt_chunk_stat st;
	struct hwt_map m = { 0 };
	uint32_t sent = 0;
	size_t got;
	int id;

	ASSERT_EQ(0, hwt_pin(0));
	id = hwt_create(self->fd, normal * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));

	/* full, with a loss; then one slot free: no room for report + event */
	for (; sent < normal + 8; sent++)
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, sent));
	got = hwt_drain(&m, self->buf, 1);
	check_gaps(_metadata, &g, self->buf, got);
	ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, sent++));
	got = hwt_drain(&m, self->buf, 1 << 16);
	check_gaps(_metadata, &g, self->buf, got);

	/* and at random: bursts against partial reads */
	for (int round = 0; round < 3000; round++) {
		uint32_t burst = 1 + below(&rng, 12);

		for (uint32_t i = 0; i < burst; i++, sent++)
			ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, sent));
		got = hwt_drain(&m, self->buf, below(&rng, 10));
		check_gaps(_metadata, &g, self->buf, got);
	}
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	got = hwt_drain(&m, self->buf, 1 << 16);
	check_gaps(_metadata, &g, self->buf, got);
	/* a loss at the end is no gap before an event: count it here */
	g.missing += sent - g.next;
	EXPECT_LT(0, g.gaps);

	ASSERT_EQ(0, hwt_stat(self->fd, id, 0, &st));
	EXPECT_EQ(g.missing, st.lost);
	EXPECT_EQ(st.lost, g.reported);		/* reported in full at stop */
	EXPECT_EQ(st.lost, m.meta->lost);
	hwt_unmap(&m);
}

/* FULL says the ring refuses events now: draining it clears FULL. */
TEST_F(rec, full_clears_when_drained)
{
	const uint32_t normal = 32;
	struct hwt_chunk_stat st;
	struct hwt_map m = { 0 };
	int id;

	ASSERT_EQ(0, hwt_pin(0));
	id = hwt_create(self->fd, normal * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	for (uint32_t i = 0; i < normal; i++)
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, i));
	ASSERT_EQ(0, hwt_stat(self->fd, id, 0, &st));
	EXPECT_TRUE(st.flags & HWT_CHUNK_FULL);
	EXPECT_LT(0, st.lost);
	hwt_drain(&m, self->buf, 1 << 16);
	ASSERT_EQ(0, hwt_stat(self->fd, id, 0, &st));
	EXPECT_FALSE(st.flags & HWT_CHUNK_FULL);
	/* and the ring takes events again, its loss reported first */
	ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, normal));
	ASSERT_EQ(2, hwt_drain(&m, self->buf, 1 << 16));
	EXPECT_EQ(HWT_EV_LOST, self->buf[0].code);
	EXPECT_EQ(HWT_EV_USER_EVENT_0, self->buf[1].code);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	hwt_unmap(&m);
}

TEST_F(rec, stop_drained_is_a_stream)
{
	const uint32_t normal = 64, n = 1000;
	struct hwt_map m = { 0 };
	uint32_t seen = 0;
	int id;

	ASSERT_EQ(0, hwt_pin(0));
	id = hwt_create(self->fd, normal * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	/* 1000 events through a 64-record ring, drained every 16 */
	for (uint32_t i = 0; i <= n; i++) {
		long ret = i == n ? hwt_ioc(self->fd, HWT_IOC_DISABLE, 0) :
			   hwt_log(self->fd, HWT_EV_USER_EVENT_2, 0, i);

		ASSERT_EQ(0, ret);
		if (i % 16 == 15 || i == n) {
			size_t got = hwt_drain(&m, self->buf, 1 << 16);

			for (size_t k = 0; k < got; k++) {
				if (self->buf[k].code != HWT_EV_USER_EVENT_2)
					continue;
				ASSERT_EQ(seen, self->buf[k].par2);
				seen++;
			}
		}
	}
	EXPECT_EQ(n, seen);
	EXPECT_EQ(0, m.meta->lost);
	hwt_unmap(&m);
}

TEST_F(rec, cyc_keeps_last)
{
	const uint32_t normal = 64, emerg = 8, n = 500;
	const uint32_t slots = normal + emerg;
	int id;

	id = hwt_create(self->fd, normal * REC, emerg * REC, HWT_CHUNK_CYC);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, inject_all(self->fd, self->ncpu, n, HWT_EV_USER_EVENT_3));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));

	for (int c = 0; c < self->ncpu; c++) {
		struct hwt_chunk_stat st;
		struct hwt_map m = { 0 };
		size_t got;

		if (!hwt_cpu_online(c))
			continue;
		ASSERT_EQ(0, hwt_stat(self->fd, id, c, &st));
		EXPECT_EQ(0, st.lost);
		EXPECT_EQ(START_RECS + n + 1, st.written);
		EXPECT_EQ(st.written - slots, st.overwritten);
		EXPECT_EQ(slots, st.fill);
		ASSERT_EQ(0, hwt_map(self->fd, id, c, &m));
		EXPECT_EQ(st.overwritten, m.meta->overwritten);
		got = hwt_read_cyc(&m, self->buf);
		ASSERT_EQ(slots, got);
		for (uint32_t i = 0; i < slots - 1; i++) {
			ASSERT_EQ(HWT_EV_USER_EVENT_3, self->buf[i].code);
			ASSERT_EQ(n - (slots - 1) + i, self->buf[i].par2);
		}
		EXPECT_EQ(HWT_EV_TRACE_STOP, self->buf[slots - 1].code);
		expect_ordered(_metadata, self->buf, got);
		hwt_unmap(&m);
	}
}

TEST_F(rec, jtn_continues_in_link)
{
	const uint32_t na = 64, nb = 256, n = 200;
	const uint32_t in_a = na - START_RECS;
	int a, b;

	a = hwt_create(self->fd, na * REC, 8 * REC, HWT_CHUNK_JTN);
	b = hwt_create(self->fd, nb * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, hwt_link(self->fd, a, b));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, a));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, inject_all(self->fd, self->ncpu, n, HWT_EV_USER_EVENT_4));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));

	for (int c = 0; c < self->ncpu; c++) {
		struct hwt_chunk_stat sa, sb;
		struct hwt_map ma = { 0 }, mb = { 0 };
		size_t got;

		if (!hwt_cpu_online(c))
			continue;
		ASSERT_EQ(0, hwt_stat(self->fd, a, c, &sa));
		ASSERT_EQ(0, hwt_stat(self->fd, b, c, &sb));
		EXPECT_EQ(0, sa.lost);
		EXPECT_EQ(0, sb.lost);
		EXPECT_TRUE(sa.flags & HWT_CHUNK_FULL);
		/*
		 * written + lost == attempted over the chain: start records,
		 * n events, next_chunk, trace_stop
		 */
		EXPECT_EQ(START_RECS + n + 2, sa.written + sb.written);

		ASSERT_EQ(0, hwt_map(self->fd, a, c, &ma));
		got = hwt_drain(&ma, self->buf, 1 << 16);
		ASSERT_EQ(START_RECS + in_a + 1, got);
		expect_start(_metadata, self->buf, c);
		for (uint32_t i = 0; i < in_a; i++) {
			ASSERT_EQ(i, self->buf[START_RECS + i].par2);
		}
		EXPECT_EQ(HWT_EV_NEXT_CHUNK, self->buf[got - 1].code);
		EXPECT_EQ(b, self->buf[got - 1].par1);
		EXPECT_EQ(a, self->buf[got - 1].par2);
		hwt_unmap(&ma);

		/* the event that found A full is the first one in B */
		ASSERT_EQ(0, hwt_map(self->fd, b, c, &mb));
		got = hwt_drain(&mb, self->buf, 1 << 16);
		ASSERT_EQ(n - in_a + 1, got);
		for (uint32_t i = 0; i < n - in_a; i++) {
			ASSERT_EQ(HWT_EV_USER_EVENT_4, self->buf[i].code);
			ASSERT_EQ(in_a + i, self->buf[i].par2);
		}
		EXPECT_EQ(HWT_EV_TRACE_STOP, self->buf[got - 1].code);
		hwt_unmap(&mb);
	}
}

TEST_F(rec, jtn_without_link_stops)
{
	struct hwt_chunk_stat st;
	int a;

	ASSERT_EQ(0, hwt_pin(0));
	a = hwt_create(self->fd, 16 * REC, 4 * REC, HWT_CHUNK_JTN);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, a));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	for (int i = 0; i < 50; i++) {
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, i));
	}
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	ASSERT_EQ(0, hwt_stat(self->fd, a, 0, &st));
	EXPECT_EQ(50 - (16 - START_RECS), st.lost);
}

TEST_F(rec, filters)
{
	struct hwt_map m = { 0 };
	size_t got;
	int id, ipoints = 0, users = 0, f_on = 0, f_off = 0;

	ASSERT_EQ(0, hwt_pin(0));
	ASSERT_EQ(0, hwt_only(self->fd, (1u << HWT_FAM_USER) | (1u << HWT_FAM_IPOINT)));
	id = hwt_create(self->fd, 1024 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_IPOINT, 1, 0));
	ASSERT_EQ(0, hwt_filter(self->fd, HWT_FAM_IPOINT, 1));
	for (int i = 0; i < 10; i++) {
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_IPOINT, 2, i));
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_5, 2, i));
	}
	ASSERT_EQ(0, hwt_filter(self->fd, HWT_FAM_IPOINT, 0));
	ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_IPOINT | HWT_CODE_FAST, 3, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));

	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	got = hwt_drain(&m, self->buf, 1 << 16);
	for (size_t i = 0; i < got; i++) {
		const struct hwt_event *e = &self->buf[i];

		if (HWT_CODE(e->code) == HWT_EV_IPOINT) {
			ipoints++;
			EXPECT_NE(2, e->par1) TH_LOG("filtered ipoint logged");
		}
		if (e->code == HWT_EV_USER_EVENT_5)
			users++;
		if (e->code == HWT_EV_FILTER(HWT_FAM_IPOINT)) {
			f_on += e->par1 == 1;
			f_off += e->par1 == 0;
		}
	}
	EXPECT_EQ(2, ipoints);
	EXPECT_EQ(10, users);
	EXPECT_EQ(1, f_on);
	EXPECT_EQ(1, f_off);
	EXPECT_EQ(0, m.meta->lost);
	hwt_unmap(&m);
}

struct poller {
	int fd, ret;
	short revents;
	pid_t tid;
};

static void *poll_thread(void *arg)
{
	struct poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	__atomic_store_n(&p->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	p->ret = poll(&pfd, 1, 60000);
	p->revents = pfd.revents;
	return NULL;
}

/* A line "KEY: N" of this process's thread tid's status file, or -1. */
static long thread_status(pid_t tid, const char *key)
{
	char path[64], line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			v = strtol(line + len + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* Start a poller of fd and return once it sleeps (in poll(): nothing else blocks it). */
static void start_poller(pthread_t *t, struct poller *p)
{
	char path[64], stat[512], *state;
	FILE *f;

	if (pthread_create(t, NULL, poll_thread, p))
		abort();
	while (!__atomic_load_n(&p->tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)p->tid);
	for (;;) {
		f = fopen(path, "r");
		if (!f || !fgets(stat, sizeof(stat), f))
			abort();
		fclose(f);
		state = strrchr(stat, ')');
		if (state && state[1] == ' ' && state[2] == 'S')
			return;
		usleep(1000);
	}
}

/* poll() sleeps until a ring is a quarter full, and is ready once tracing stops. */
TEST_F(rec, poll_wakes_at_watermark)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct poller p = { .fd = self->fd };
	struct hwt_map m = { 0 };
	pthread_t t;
	int id;

	ASSERT_EQ(0, hwt_pin(0));
	/* 64 slots: the watermark is 16; the start records take 3 */
	id = hwt_create(self->fd, 64 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	EXPECT_EQ(0, poll(&pfd, 1, 50));
	for (int i = 0; i < 16 - START_RECS - 1; i++) {
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, i));
	}
	EXPECT_EQ(0, poll(&pfd, 1, 50));

	/* a poller blocked now is woken by the record that reaches 16 */
	ASSERT_EQ(0, pthread_create(&t, NULL, poll_thread, &p));
	usleep(100000);
	ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, 99));
	pthread_join(t, NULL);
	EXPECT_EQ(1, p.ret);
	EXPECT_TRUE(p.revents & POLLIN);

	/* draining below the watermark makes it sleep again */
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	hwt_drain(&m, self->buf, 1 << 16);
	hwt_unmap(&m);
	EXPECT_EQ(0, poll(&pfd, 1, 50));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	EXPECT_EQ(1, poll(&pfd, 1, 0));
}

/*
 * HWT_IOC_POLL_CPU: a descriptor scoped to one CPU is ready for that CPU's
 * rings only (and once tracing is off); -1 watches every CPU again.
 */
TEST_F(rec, poll_cpu)
{
	struct pollfd all = { .fd = self->fd, .events = POLLIN };
	struct pollfd mine = { .events = POLLIN }, other = { .events = POLLIN };
	int id;

	mine.fd = hwt_open();
	ASSERT_LE(0, mine.fd);
	EXPECT_EQ(-EINVAL, hwt_ioc(mine.fd, HWT_IOC_POLL_CPU, self->ncpu));
	EXPECT_EQ(-EINVAL, hwt_ioc(mine.fd, HWT_IOC_POLL_CPU, (unsigned int)-2));
	EXPECT_EQ(-EINVAL, hwt_ioc(mine.fd, HWT_IOC_POLL_CPU, INT_MAX));
	EXPECT_EQ(0, hwt_ioc(mine.fd, HWT_IOC_POLL_CPU, (unsigned int)-1));
	ASSERT_EQ(0, hwt_ioc(mine.fd, HWT_IOC_POLL_CPU, 0));
	if (self->ncpu < 2) {
		close(mine.fd);
		SKIP(return, "one CPU: no other CPU's ring to tell apart");
	}
	other.fd = hwt_open();
	ASSERT_LE(0, other.fd);
	ASSERT_EQ(0, hwt_ioc(other.fd, HWT_IOC_POLL_CPU, 1));

	/* 64 slots: the watermark is 16; the start records take 3 */
	id = hwt_create(self->fd, 64 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	EXPECT_EQ(0, poll(&mine, 1, 0));
	EXPECT_EQ(0, poll(&other, 1, 0));
	EXPECT_EQ(0, poll(&all, 1, 0));

	/* CPU 0 at its watermark: ready for CPU 0 and for all, not for CPU 1 */
	ASSERT_EQ(0, hwt_pin(0));
	for (int i = 0; i < 16 - START_RECS; i++)
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, i));
	EXPECT_EQ(1, poll(&mine, 1, 0));
	EXPECT_EQ(1, poll(&all, 1, 0));
	EXPECT_EQ(0, poll(&other, 1, 100));

	/* and CPU 1's: now the other one too */
	ASSERT_EQ(0, hwt_pin(1));
	for (int i = 0; i < 16 - START_RECS; i++)
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 1, i));
	EXPECT_EQ(1, poll(&other, 1, 0));

	/* scoped back to every CPU; and all are ready once tracing is off */
	ASSERT_EQ(0, hwt_ioc(other.fd, HWT_IOC_POLL_CPU, (unsigned int)-1));
	EXPECT_EQ(1, poll(&other, 1, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	EXPECT_EQ(1, poll(&mine, 1, 0));
	close(mine.fd);
	close(other.fd);
}

/*
 * A poller scoped to CPU 1 sleeps through CPU 0's watermark (its own wait
 * queue: not woken, not even to find itself not ready), while CPU 0's
 * poller wakes; CPU 1's watermark then wakes it.
 */
TEST_F(rec, poll_cpu_wakeup)
{
	struct poller p0 = { 0 }, p1 = { 0 };
	pthread_t t0, t1;
	long before;
	int id;

	if (self->ncpu < 2)
		SKIP(return, "one CPU: no other CPU's ring to tell apart");
	p0.fd = hwt_open();
	p1.fd = hwt_open();
	ASSERT_LE(0, p0.fd);
	ASSERT_LE(0, p1.fd);
	ASSERT_EQ(0, hwt_ioc(p0.fd, HWT_IOC_POLL_CPU, 0));
	ASSERT_EQ(0, hwt_ioc(p1.fd, HWT_IOC_POLL_CPU, 1));
	/* 64 slots: the watermark is 16; the start records take 3 */
	id = hwt_create(self->fd, 64 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	start_poller(&t0, &p0);
	start_poller(&t1, &p1);
	before = thread_status(p1.tid, "voluntary_ctxt_switches");
	ASSERT_LT(0, before);

	ASSERT_EQ(0, hwt_pin(0));
	for (int i = 0; i < 16 - START_RECS; i++)
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, i));
	pthread_join(t0, NULL);
	EXPECT_EQ(1, p0.ret);
	/* time for a wrong wakeup to show: a woken poller sleeps again */
	usleep(200000);
	EXPECT_EQ(before, thread_status(p1.tid, "voluntary_ctxt_switches"))
		TH_LOG("CPU 0's watermark woke CPU 1's poller");

	ASSERT_EQ(0, hwt_pin(1));
	for (int i = 0; i < 16 - START_RECS; i++)
		ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 1, i));
	pthread_join(t1, NULL);
	EXPECT_EQ(1, p1.ret);
	EXPECT_TRUE(p1.revents & POLLIN);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	close(p0.fd);
	close(p1.fd);
}

TEST_HARNESS_MAIN
