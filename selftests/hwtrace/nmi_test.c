// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace writers interrupted by NMIs.  hwt_nmi_test.ko (nmi/) writes a
 * numbered sequence on every CPU from a bound kthread while NMIs, sent to
 * each CPU in turn, write a second numbered sequence from NMI context into
 * the same ring, most of them in the middle of a task-context write.  Every
 * record must be whole and in time order, both sequences complete and in
 * order on every CPU, and the ring's written count must equal what it
 * holds: an NMI writer nested into a reservation neither tears a slot nor
 * loses or duplicates a record.
 *
 * Then the same while tracing is switched off and on again and again: a
 * CPU's records come in runs that each begin with its start records, also
 * when an NMI lands as the CPU starts (it writes nothing before them).
 */
#include "hwt_test.h"
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"

#define MAX_CPUS	64
#define EVENTS		100000
#define NMI_ROOM	(EVENTS / 2)	/* the sender sends far fewer */

static int load_helper(int events, int msecs)
{
	const char *ko = getenv("HWT_NMI_KO");
	char params[48];
	int fd, ret;

	snprintf(params, sizeof(params), "events=%d msecs=%d", events, msecs);
	fd = open(ko ? ko : "/hwt/hwt_nmi_test.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static unsigned long helper_param(const char *name)
{
	char path[96], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/hwt_nmi_test/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtoul(buf, NULL, 10);
}

TEST(nmi_writers_nest_into_task_writers)
{
	static struct hwt_event ev[EVENTS + NMI_ROOM + 64];
	unsigned long nmis, landed, nmi_seen = 0;
	int fd = hwt_open(), ncpu, id, cpus_with_nmi = 0;

	ASSERT_LE(0, fd);
	hwt_reset(fd);
	ncpu = hwt_nr_cpus(fd);
	ASSERT_LT(0, ncpu);
	ASSERT_GE(MAX_CPUS, ncpu);
	id = hwt_create(fd, (uint64_t)(EVENTS + NMI_ROOM) * REC, 4096,
			HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, load_helper(EVENTS, 0));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
	nmis = helper_param("nmis");
	landed = helper_param("landed");
	ASSERT_EQ(0, syscall(SYS_delete_module, "hwt_nmi_test", O_NONBLOCK));
	TH_LOG("%lu NMI records, %lu of them inside a task-context write", nmis,
	       landed);
	/* the test means nothing unless NMIs did interrupt writes */
	ASSERT_LT(0, landed);

	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct hwt_chunk_stat st;
		struct hwt_map m;
		uint32_t task_seq = 0, nmi_seq = 0;
		uint64_t last_ts = 0;
		size_t n;

		if (!hwt_cpu_online(cpu))
			continue;
		ASSERT_EQ(0, hwt_map(fd, id, cpu, &m));
		n = hwt_drain(&m, ev, sizeof(ev) / sizeof(ev[0]));
		ASSERT_EQ(0, hwt_stat(fd, id, cpu, &st));
		/* nothing lost, and the ring holds exactly what it counted */
		EXPECT_EQ(0, st.lost);
		EXPECT_EQ(st.written, n);
		for (size_t i = 0; i < n; i++) {
			uint64_t ts = (uint64_t)ev[i].tsc_hi << 32 | ev[i].tsc_lo;

			EXPECT_LE(last_ts, ts) TH_LOG("cpu %d record %zu out of time order", cpu, i);
			last_ts = ts;
			if (ev[i].code == HWT_EV_USER_EVENT_0) {
				EXPECT_EQ(cpu, ev[i].par1);
				EXPECT_EQ(task_seq, ev[i].par2)
					TH_LOG("cpu %d: task record %u is %u", cpu,
					       task_seq, ev[i].par2);
				task_seq = ev[i].par2 + 1;
			} else if (ev[i].code == HWT_EV_USER_EVENT_1) {
				EXPECT_EQ(cpu, ev[i].par1);
				EXPECT_EQ(nmi_seq, ev[i].par2)
					TH_LOG("cpu %d: NMI record %u is %u", cpu,
					       nmi_seq, ev[i].par2);
				nmi_seq = ev[i].par2 + 1;
			} else {
				/* start, stop and clock records of the CPU only */
				EXPECT_EQ(HWT_FAM_GENERAL, ev[i].code & HWT_FAMILY_MASK)
					TH_LOG("cpu %d record %zu: code 0x%x", cpu, i,
					       ev[i].code);
			}
		}
		EXPECT_EQ(EVENTS, task_seq) TH_LOG("cpu %d", cpu);
		nmi_seen += nmi_seq;
		cpus_with_nmi += nmi_seq > 0;
		hwt_unmap(&m);
	}
	/* every NMI record the helper attempted is in some ring */
	EXPECT_EQ(nmis, nmi_seen);
	EXPECT_LT(0, cpus_with_nmi);
	hwt_reset(fd);
	close(fd);
}

/* The writers and the NMIs go on this long while tracing goes off and on. */
#define CYCLE_MSECS	5000
#define DRAIN_BATCH	4096

static void *load_thread(void *done)
{
	static int ret;

	ret = load_helper(0, CYCLE_MSECS);
	__atomic_store_n((int *)done, 1, __ATOMIC_RELEASE);
	return &ret;
}

/* One CPU's records as they come: runs, each opened by the start records. */
struct run_check {
	struct hwt_map m;
	bool stopped;		/* no run open: the start records come next */
	int next_start;		/* which of them */
	int starts;
	uint32_t task_next, nmi_next;
};

static void check_drain(struct __test_metadata *_metadata, int cpu,
			struct run_check *c)
{
	static const uint16_t start[START_RECS] = {
		HWT_EV_CYCLES_PER_MSEC, HWT_EV_TRACE_START, HWT_EV_ID,
	};
	struct hwt_event ev[DRAIN_BATCH];
	size_t n, i;

	while ((n = hwt_drain(&c->m, ev, DRAIN_BATCH)) > 0) {
		for (i = 0; i < n; i++) {
			uint16_t code = ev[i].code;

			if (c->stopped) {
				/* a stray record is reported once, then skipped */
				EXPECT_EQ(start[c->next_start], code)
					TH_LOG("cpu %d: 0x%x where start record %d belongs",
					       cpu, code, c->next_start);
				if (code == start[c->next_start] &&
				    ++c->next_start == START_RECS) {
					c->stopped = false;
					c->next_start = 0;
					c->starts++;
				}
			} else if (code == HWT_EV_TRACE_STOP) {
				c->stopped = true;
			} else if (code == HWT_EV_USER_EVENT_0) {
				/* runs have gaps (tracing was off), never step back */
				EXPECT_LE(c->task_next, ev[i].par2);
				c->task_next = ev[i].par2 + 1;
			} else if (code == HWT_EV_USER_EVENT_1) {
				EXPECT_LE(c->nmi_next, ev[i].par2);
				c->nmi_next = ev[i].par2 + 1;
			} else {
				/* a ring the drain did not keep up with reports it */
				EXPECT_EQ(HWT_EV_LOST, code)
					TH_LOG("cpu %d: code 0x%x", cpu, code);
			}
		}
	}
}

TEST(nmi_never_before_start_records)
{
	static struct run_check chk[MAX_CPUS];
	int fd = hwt_open(), ncpu, id, cpu, done = 0, cycles = 0;
	unsigned long nmis;
	pthread_t t;
	void *ret;

	ASSERT_LE(0, fd);
	hwt_reset(fd);
	ncpu = hwt_nr_cpus(fd);
	ASSERT_LT(0, ncpu);
	ASSERT_GE(MAX_CPUS, ncpu);
	id = hwt_create(fd, 64 * 1024 * REC, 64 * 1024, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	for (cpu = 0; cpu < ncpu; cpu++) {
		chk[cpu].stopped = true;
		if (hwt_cpu_online(cpu))
			ASSERT_EQ(0, hwt_map(fd, id, cpu, &chk[cpu].m));
	}
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, load_thread, &done));
	/* off and on while the writers and the NMIs run, draining meanwhile */
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		for (cpu = 0; cpu < ncpu; cpu++)
			if (hwt_cpu_online(cpu))
				check_drain(_metadata, cpu, &chk[cpu]);
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
		cycles++;
	}
	ASSERT_EQ(0, pthread_join(t, &ret));
	ASSERT_EQ(0, *(int *)ret);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
	nmis = helper_param("nmis");
	ASSERT_EQ(0, syscall(SYS_delete_module, "hwt_nmi_test", O_NONBLOCK));
	TH_LOG("%d times off and on, %lu NMI records", cycles, nmis);
	ASSERT_LT(0, cycles);
	ASSERT_LT(0, nmis);

	for (cpu = 0; cpu < ncpu; cpu++) {
		if (!hwt_cpu_online(cpu))
			continue;
		check_drain(_metadata, cpu, &chk[cpu]);
		hwt_unmap(&chk[cpu].m);
		EXPECT_TRUE(chk[cpu].stopped) TH_LOG("cpu %d: the last run has no stop record", cpu);
		/* started once at first and once per cycle */
		EXPECT_EQ(cycles + 1, chk[cpu].starts) TH_LOG("cpu %d", cpu);
	}
	hwt_reset(fd);
	close(fd);
}

TEST_HARNESS_MAIN
