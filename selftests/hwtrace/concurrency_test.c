// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace under concurrency: every CPU injects while a consumer drains all
 * rings through mmap; every sequence number must be seen exactly once or be
 * counted lost.  With the kernel's own families on as well, interrupts,
 * softirqs and timers write into the ring in the middle of an injection
 * (nested reserve/commit): every record must still be whole, in time order
 * and counted, and no user event missing.  Also CPU hotplug in the middle
 * of a trace.
 */
#include "hwt_test.h"
#include <poll.h>
#include <stdio.h>
#include "kselftest_harness.h"

#define MAX_CPUS	64
#define NR_EVENTS	20000
#define RING_SLOTS	256
#define USER_ONLY	(1u << HWT_FAM_USER)

struct cpu_log {
	uint32_t next_seq;	/* every seq below was seen or lost */
	uint64_t seen;
	uint32_t last_lost;	/* par2 of the last LOST record */
	uint64_t records;	/* of any kind */
	uint64_t last_ts;
	int errors;
};

struct run {
	int fd, ncpu, id;
	bool pace;		/* producers wait for room: nothing may be lost */
	uint32_t families;	/* logged: the user family, maybe more */
	volatile bool stop;
	struct hwt_map map[MAX_CPUS];
	struct cpu_log log[MAX_CPUS];
	struct hwt_event buf[RING_SLOTS * 2];
};

struct producer {
	pthread_t thread;
	struct run *run;
	int cpu, err;
};

static uint64_t ring_used(const struct hwt_map *m)
{
	uint64_t span = 2ull * m->nr_slots;
	uint64_t head = __atomic_load_n(&m->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&m->meta->data_tail, __ATOMIC_ACQUIRE);

	return (head + span - tail) % span;
}

static void *produce(void *arg)
{
	struct producer *p = arg;
	struct hwt_map *m = &p->run->map[p->cpu];

	p->err = hwt_pin(p->cpu);
	for (uint32_t i = 0; i < NR_EVENTS && !p->err; i++) {
		while (p->run->pace && ring_used(m) > m->nr_slots / 2)
			sched_yield();
		p->err = (int)hwt_log(p->run->fd, HWT_EV_USER_EVENT_6, 0, i);
	}
	return NULL;
}

/* Check what one drain returned against the sequence so far. */
static void account(struct cpu_log *l, const struct hwt_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t ts = (uint64_t)ev[i].tsc_hi << 32 | ev[i].tsc_lo;

		/* a torn or skipped slot of a nested writer shows here */
		if (ev[i].code == 0 || ts < l->last_ts)
			l->errors++;
		l->last_ts = ts;
		l->records++;
		if (ev[i].code == HWT_EV_LOST) {
			l->last_lost = ev[i].par2;
			continue;
		}
		if (ev[i].code != HWT_EV_USER_EVENT_6)
			continue;
		/* strictly increasing: nothing twice, nothing reordered */
		if (ev[i].par2 < l->next_seq)
			l->errors++;
		l->next_seq = ev[i].par2 + 1;
		l->seen++;
	}
}

static void drain_all(struct run *r)
{
	for (int c = 0; c < r->ncpu; c++) {
		size_t n;

		if (!r->map[c].meta)
			continue;
		n = hwt_drain(&r->map[c], r->buf, RING_SLOTS * 2);
		account(&r->log[c], r->buf, n);
	}
}

static void *consume(void *arg)
{
	struct run *r = arg;

	while (!r->stop)
		drain_all(r);
	return NULL;
}

static void run_concurrent(struct __test_metadata *_metadata, bool pace,
			   uint32_t families)
{
	struct producer prod[MAX_CPUS];
	pthread_t consumer;
	struct run *r;
	uint64_t lost_total = 0, other_total = 0;

	r = calloc(1, sizeof(*r));
	ASSERT_NE(NULL, r);
	r->pace = pace;
	r->families = families;
	r->fd = hwt_open();
	ASSERT_LE(0, r->fd);
	hwt_reset(r->fd);
	r->ncpu = hwt_nr_cpus(r->fd);
	ASSERT_GE(MAX_CPUS, r->ncpu);
	ASSERT_EQ(0, hwt_only(r->fd, families));
	r->id = hwt_create(r->fd, RING_SLOTS * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, r->id);
	for (int c = 0; c < r->ncpu; c++)
		if (hwt_cpu_online(c)) {
			ASSERT_EQ(0, hwt_map(r->fd, r->id, c, &r->map[c]));
		}
	ASSERT_EQ(0, hwt_ioc(r->fd, HWT_IOC_CHUNK_SELECT, r->id));
	ASSERT_EQ(0, hwt_ioc(r->fd, HWT_IOC_ENABLE, 0));

	ASSERT_EQ(0, pthread_create(&consumer, NULL, consume, r));
	for (int c = 0; c < r->ncpu; c++) {
		prod[c] = (struct producer){ .run = r, .cpu = c };
		if (r->map[c].meta) {
			ASSERT_EQ(0, pthread_create(&prod[c].thread, NULL, produce, &prod[c]));
		}
	}
	for (int c = 0; c < r->ncpu; c++) {
		if (!r->map[c].meta)
			continue;
		pthread_join(prod[c].thread, NULL);
		EXPECT_EQ(0, prod[c].err);
	}
	ASSERT_EQ(0, hwt_ioc(r->fd, HWT_IOC_DISABLE, 0));
	r->stop = true;
	pthread_join(consumer, NULL);
	drain_all(r);

	for (int c = 0; c < r->ncpu; c++) {
		struct cpu_log *l = &r->log[c];
		uint64_t lost;

		if (!r->map[c].meta)
			continue;
		lost = r->map[c].meta->lost;
		EXPECT_EQ(0, l->errors);
		if (families == USER_ONLY) {
			EXPECT_EQ(NR_EVENTS, l->seen + lost)
				TH_LOG("cpu %d: seen %llu lost %llu", c,
				       (unsigned long long)l->seen,
				       (unsigned long long)lost);
		} else {
			/* losses may be of any family now: they bound the gap */
			EXPECT_GE(NR_EVENTS, l->seen);
			EXPECT_LE(NR_EVENTS, l->seen + lost)
				TH_LOG("cpu %d: seen %llu lost %llu", c,
				       (unsigned long long)l->seen,
				       (unsigned long long)lost);
		}
		/* the in-band reports add up to the counter */
		EXPECT_EQ(lost, l->last_lost);
		EXPECT_EQ(0, ring_used(&r->map[c]));
		/* every record the ring says it holds was drained, once */
		EXPECT_EQ(r->map[c].meta->written, l->records);
		lost_total += lost;
		other_total += l->records - l->seen;
		hwt_unmap(&r->map[c]);
	}
	/* kernel events come in bursts the producers' pacing cannot see */
	if (pace && families == USER_ONLY) {
		EXPECT_EQ(0, lost_total);
	}
	TH_LOG("%s: %llu of %d events lost, %llu other records", pace ? "paced" : "flat out",
	       (unsigned long long)lost_total, NR_EVENTS * r->ncpu,
	       (unsigned long long)other_total);
	hwt_reset(r->fd);
	close(r->fd);
	free(r);
}

/* 20000 ioctls per CPU under TCG take a while */
FIXTURE(conc) {
};

FIXTURE_SETUP(conc)
{
}

FIXTURE_TEARDOWN(conc)
{
}

TEST_F_TIMEOUT(conc, drain_while_injecting, 300)
{
	run_concurrent(_metadata, false, USER_ONLY);
}

TEST_F_TIMEOUT(conc, drain_keeps_up_nothing_lost, 300)
{
	run_concurrent(_metadata, true, USER_ONLY);
}

/*
 * IRQs, softirqs and timers nest inside the injecting writes.  The ring
 * may overflow with their bursts: then the check is seen <= injected <=
 * seen + lost, and every record whole, in order and counted.
 */
TEST_F_TIMEOUT(conc, nested_writers, 300)
{
	run_concurrent(_metadata, true, USER_ONLY | 1u << HWT_FAM_INTERRUPT |
		       1u << HWT_FAM_TIMER | 1u << HWT_FAM_TASK);
}

struct churn {
	int fd;
	long err;
	volatile bool done;
};

/* Create and delete chunks: hwt_lock held across allocation and RCU waits. */
static void *churn_chunks(void *arg)
{
	struct churn *c = arg;

	for (int i = 0; i < 200 && !c->err; i++) {
		int id = hwt_create(c->fd, 4096 * REC, 8 * REC, HWT_CHUNK_STOP);

		c->err = id < 0 ? id : hwt_ioc(c->fd, HWT_IOC_CHUNK_DELETE, id);
	}
	c->done = true;
	return NULL;
}

/*
 * poll() reads the chunk table without hwt_lock, under RCU: chunks come and
 * go under it (KASAN on the debug kernel sees any use after free), and it
 * still reports a ring at its watermark.
 */
TEST_F_TIMEOUT(conc, poll_while_chunks_churn, 300)
{
	struct churn ch = { 0 };
	struct pollfd pfd;
	pthread_t t;
	int fd, id;
	long polls = 0;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	id = hwt_create(fd, 64 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	ch.fd = fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, churn_chunks, &ch));
	while (!ch.done) {
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		ASSERT_LE(0, poll(&pfd, 1, 0));
		ASSERT_EQ(0, pfd.revents & (POLLERR | POLLNVAL));
		polls++;
	}
	pthread_join(t, NULL);
	ASSERT_EQ(0, ch.err);
	EXPECT_LT(0, polls);

	/* a quarter of the ring: readable */
	ASSERT_EQ(0, hwt_pin(0));
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_0, 0, i));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLIN);
	hwt_reset(fd);
	close(fd);
}

#define CHAIN		48	/* small JTN chunks, each linked to the next */
#define AFTER		200	/* events each CPU logs after the select */

struct jumper {
	pthread_t thread;
	int fd, cpu;
	volatile int *phase;	/* 0 before the select, 1 after, 2 stop */
	uint32_t after;		/* events logged in phase 1 */
	long err;
};

static void *jump_inject(void *arg)
{
	struct jumper *j = arg;

	j->err = hwt_pin(j->cpu);
	for (uint32_t i = 0; !j->err; i++) {
		int ph = __atomic_load_n(j->phase, __ATOMIC_ACQUIRE);

		if (ph == 2 || j->after == AFTER)
			break;
		j->err = hwt_log(j->fd, HWT_EV_USER_EVENT_3, (uint16_t)ph, i);
		if (ph == 1)
			__atomic_store_n(&j->after, j->after + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * A select while tracing races JTN jumps on every CPU: once the select has
 * returned, every event goes to the selected chunk (a jump in flight must
 * not take a CPU back into the chain).
 */
TEST_F_TIMEOUT(conc, select_during_jumps, 300)
{
	struct jumper j[MAX_CPUS];
	int fd, ncpu, target, chain[CHAIN];

	fd = hwt_open();
	ASSERT_LE(0, fd);
	ncpu = hwt_nr_cpus(fd);
	ASSERT_GE(MAX_CPUS, ncpu);
	for (int round = 0; round < 10; round++) {
		volatile int phase = 0;
		struct hwt_event *buf = calloc(8192, sizeof(*buf));
		int64_t missing;

		ASSERT_NE(NULL, buf);
		hwt_reset(fd);
		ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
		for (int i = 0; i < CHAIN; i++) {
			chain[i] = hwt_create(fd, 16 * REC, 8 * REC, HWT_CHUNK_JTN);
			ASSERT_LE(0, chain[i]);
			if (i)
				ASSERT_EQ(0, hwt_link(fd, chain[i - 1], chain[i]));
		}
		target = hwt_create(fd, 4096 * REC, 8 * REC, HWT_CHUNK_STOP);
		ASSERT_LE(0, target);
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, chain[0]));
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
		for (int c = 0; c < ncpu; c++) {
			j[c] = (struct jumper){ .fd = fd, .cpu = c, .phase = &phase };
			if (hwt_cpu_online(c))
				ASSERT_EQ(0, pthread_create(&j[c].thread, NULL, jump_inject, &j[c]));
		}
		/* select while the CPUs are jumping along the chain */
		for (int moved = 0; !moved;) {
			struct hwt_chunk_stat st;

			for (int c = 0; c < ncpu && !moved; c++)
				moved = hwt_cpu_online(c) &&
					!hwt_stat(fd, chain[round % 8 + 1], c, &st) && st.written;
		}
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, target));
		__atomic_store_n(&phase, 1, __ATOMIC_RELEASE);
		for (int c = 0; c < ncpu; c++) {
			if (!hwt_cpu_online(c))
				continue;
			pthread_join(j[c].thread, NULL);
			ASSERT_EQ(0, j[c].err);
		}
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));

		/*
		 * Every event logged after the select is in the selected chunk
		 * or counted lost there (it may fill before the logger sees
		 * the phase change), none in the chain.
		 */
		for (int c = 0; c < ncpu; c++) {
			struct hwt_map m = { 0 };
			size_t got;

			if (!hwt_cpu_online(c))
				continue;
			for (int k = 0; k < CHAIN; k++) {
				ASSERT_EQ(0, hwt_map(fd, chain[k], c, &m));
				got = hwt_drain(&m, buf, 8192);
				for (size_t i = 0; i < got; i++)
					ASSERT_FALSE(buf[i].code == HWT_EV_USER_EVENT_3 &&
						     buf[i].par1 == 1)
						TH_LOG("round %d: CPU %d in chain chunk %d after the select",
						       round, c, k);
				hwt_unmap(&m);
			}
			ASSERT_EQ(0, hwt_map(fd, target, c, &m));
			got = hwt_drain(&m, buf, 8192);
			missing = j[c].after;
			for (size_t i = 0; i < got; i++)
				if (buf[i].code == HWT_EV_USER_EVENT_3 && buf[i].par1 == 1)
					missing--;
			EXPECT_LE(missing, m.meta->lost)
				TH_LOG("round %d: CPU %d: events after the select missing", round, c);
			hwt_unmap(&m);
		}
		free(buf);
	}
	hwt_reset(fd);
	close(fd);
}

#define TOGGLES		100

struct injector {
	pthread_t thread;
	int fd, cpu;
	volatile bool *stop;
	long err;
};

static void *inject_flat_out(void *arg)
{
	struct injector *in = arg;

	in->err = hwt_pin(in->cpu);
	for (uint32_t i = 0; !in->err && !*in->stop; i++)
		in->err = hwt_log(in->fd, HWT_EV_USER_EVENT_4, 0, i);
	return NULL;
}

/*
 * Stopping a trace loses nothing: a CPU stops where no writer of its own
 * is half-way through a record, so an event is before its stop record or
 * not attempted at all.  Every CPU injects flat out into a cyclic chunk
 * (nothing can be lost to a full ring) while tracing goes on and off; a
 * stop that interrupted a writer counted its event lost.
 */
TEST_F_TIMEOUT(conc, stop_during_writes_loses_nothing, 600)
{
	struct injector in[MAX_CPUS];
	struct hwt_event *buf;
	volatile bool stop = false;
	int fd, id, ncpu;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	ncpu = hwt_nr_cpus(fd);
	ASSERT_GE(MAX_CPUS, ncpu);
	buf = calloc(2048, sizeof(*buf));
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	id = hwt_create(fd, 1024 * REC, 8 * REC, HWT_CHUNK_CYC);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	for (int c = 0; c < ncpu; c++) {
		in[c] = (struct injector){ .fd = fd, .cpu = c, .stop = &stop };
		if (hwt_cpu_online(c))
			ASSERT_EQ(0, pthread_create(&in[c].thread, NULL,
						    inject_flat_out, &in[c]));
	}
	for (int i = 0; i < TOGGLES; i++) {
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
	}
	stop = true;
	for (int c = 0; c < ncpu; c++) {
		struct hwt_chunk_stat st;
		struct hwt_map m = { 0 };
		size_t got;

		if (!hwt_cpu_online(c))
			continue;
		pthread_join(in[c].thread, NULL);
		ASSERT_EQ(0, in[c].err);
		ASSERT_EQ(0, hwt_stat(fd, id, c, &st));
		EXPECT_EQ(0, st.lost)
			TH_LOG("cpu %d: %llu events lost in %d stops", c,
			       (unsigned long long)st.lost, TOGGLES);
		/* 4 control records a toggle (3 start, 1 stop): and events */
		EXPECT_LT(TOGGLES * 4, st.written);
		ASSERT_EQ(0, hwt_map(fd, id, c, &m));
		got = hwt_read_cyc(&m, buf);
		ASSERT_LT(0, got);
		EXPECT_EQ(HWT_EV_TRACE_STOP, buf[got - 1].code);
		hwt_unmap(&m);
	}
	hwt_reset(fd);
	free(buf);
	close(fd);
}

TEST_F_TIMEOUT(conc, cpu_hotplug_mid_trace, 120)
{
	struct hwt_event *buf;
	struct hwt_map m = { 0 };
	size_t got;
	uint32_t seq = 0;
	int fd, id, c1 = 1;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	if (hwt_nr_cpus(fd) < 2 || !hwt_cpu_online(c1) ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(close(fd); return, "needs a second CPU that can go offline");
	buf = calloc(4096, sizeof(*buf));
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	id = hwt_create(fd, 1024 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));

	ASSERT_EQ(0, hwt_pin(c1));
	for (; seq < 100; seq++) {
		ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_7, 1, seq));
	}
	ASSERT_EQ(0, hwt_pin(0));
	ASSERT_EQ(0, hwt_cpu_set_online(c1, false));
	for (int i = 0; i < 100; i++) {
		ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_7, 0, i));
	}
	ASSERT_EQ(0, hwt_cpu_set_online(c1, true));
	ASSERT_EQ(0, hwt_pin(c1));
	for (; seq < 200; seq++) {
		ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_7, 1, seq));
	}
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));

	/* what CPU 1 recorded before going offline is all there */
	ASSERT_EQ(0, hwt_map(fd, id, c1, &m));
	got = hwt_drain(&m, buf, 4096);
	seq = 0;
	for (size_t i = 0; i < got; i++)
		if (buf[i].code == HWT_EV_USER_EVENT_7) {
			ASSERT_EQ(seq++, buf[i].par2);
		}
	EXPECT_EQ(200, seq);
	EXPECT_EQ(0, m.meta->lost);
	EXPECT_EQ(HWT_EV_TRACE_STOP, buf[got - 1].code);
	hwt_unmap(&m);
	hwt_reset(fd);
	free(buf);
	close(fd);
}

/* A CPU offline at enable starts its trace when it comes online. */
TEST_F_TIMEOUT(conc, cpu_offline_at_enable, 120)
{
	struct hwt_event buf[64];
	struct hwt_map m = { 0 };
	size_t got;
	int fd, id, c1 = 1;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	if (hwt_nr_cpus(fd) < 2 || !hwt_cpu_online(c1) ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(close(fd); return, "needs a second CPU that can go offline");
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	id = hwt_create(fd, 1024 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_pin(0));
	ASSERT_EQ(0, hwt_cpu_set_online(c1, false));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_cpu_set_online(c1, true));
	ASSERT_EQ(0, hwt_pin(c1));
	for (uint32_t seq = 0; seq < 10; seq++) {
		ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_7, 1, seq));
	}
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
	ASSERT_EQ(0, hwt_pin(0));

	ASSERT_EQ(0, hwt_map(fd, id, c1, &m));
	got = hwt_drain(&m, buf, 64);
	hwt_unmap(&m);
	ASSERT_EQ(START_RECS + 10 + 1, got);
	EXPECT_EQ(HWT_EV_CYCLES_PER_MSEC, buf[0].code);
	EXPECT_EQ(HWT_EV_TRACE_START, buf[1].code);
	EXPECT_EQ(HWT_EV_ID, buf[2].code);
	EXPECT_EQ(c1, buf[2].par1);
	for (uint32_t i = 0; i < 10; i++) {
		EXPECT_EQ(HWT_EV_USER_EVENT_7, buf[START_RECS + i].code);
		EXPECT_EQ(i, buf[START_RECS + i].par2);
	}
	EXPECT_EQ(HWT_EV_TRACE_STOP, buf[got - 1].code);
	hwt_reset(fd);
	close(fd);
}

/*
 * A CPU coming online with the kernel's families traced (timers, idle,
 * switches, interrupts all fire on its way up): its ring's first records
 * are its start records, every time.
 */
TEST_F_TIMEOUT(conc, cpu_online_starts_first, 300)
{
	const uint32_t fams = 1u << HWT_FAM_TASK | 1u << HWT_FAM_INTERRUPT |
			      1u << HWT_FAM_TIMER | 1u << HWT_FAM_CPU | 1u << HWT_FAM_USER;
	struct hwt_event *buf;
	int fd, c1 = 1;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	if (hwt_nr_cpus(fd) < 2 || !hwt_cpu_online(c1) ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(close(fd); return, "needs a second CPU that can go offline");
	buf = calloc(1 << 16, sizeof(*buf));
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, hwt_pin(0));
	for (int round = 0; round < 5; round++) {
		struct hwt_map m = { 0 };
		size_t got;
		int id;

		hwt_reset(fd);
		ASSERT_EQ(0, hwt_only(fd, fams));
		id = hwt_create(fd, 16384 * REC, 8 * REC, HWT_CHUNK_STOP);
		ASSERT_LE(0, id);
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
		ASSERT_EQ(0, hwt_cpu_set_online(c1, false));
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
		ASSERT_EQ(0, hwt_cpu_set_online(c1, true));
		/* and something to do there */
		ASSERT_EQ(0, hwt_pin(c1));
		ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_7, 1, round));
		ASSERT_EQ(0, hwt_pin(0));
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));

		ASSERT_EQ(0, hwt_map(fd, id, c1, &m));
		got = hwt_drain(&m, buf, 1 << 16);
		hwt_unmap(&m);
		ASSERT_LE(START_RECS + 2, got);
		EXPECT_EQ(HWT_EV_CYCLES_PER_MSEC, buf[0].code)
			TH_LOG("round %d: first record 0x%x", round, buf[0].code);
		EXPECT_EQ(HWT_EV_TRACE_START, buf[1].code);
		EXPECT_EQ(HWT_EV_ID, buf[2].code);
		EXPECT_EQ(c1, buf[2].par1);
		EXPECT_EQ(HWT_EV_TRACE_STOP, buf[got - 1].code);
	}
	hwt_reset(fd);
	free(buf);
	close(fd);
}

TEST_HARNESS_MAIN
