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
 */
#include "hwt_test.h"
#include <stdio.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"

#define MAX_CPUS	64
#define EVENTS		100000
#define NMI_ROOM	(EVENTS / 2)	/* the sender sends far fewer */

static int load_helper(void)
{
	const char *ko = getenv("HWT_NMI_KO");
	char params[32];
	int fd, ret;

	snprintf(params, sizeof(params), "events=%d", EVENTS);
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
	ASSERT_EQ(0, load_helper());
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

TEST_HARNESS_MAIN
