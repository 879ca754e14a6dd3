// SPDX-License-Identifier: GPL-2.0
/*
 * A 32-bit process (built -m32, run through the kernel's IA32 emulation)
 * drives hwtrace: the ioctls through compat_ptr_ioctl, with the same
 * struct layouts, and mmap of any ring, whose token must fit mmap2's
 * 32-bit page offset.
 */
#include "hwt_test.h"
#include "kselftest_harness.h"

_Static_assert(sizeof(void *) == 4, "build this test with -m32");

TEST(ioctls_and_mmap_from_32_bit)
{
	struct hwt_chunk_stat st[4];
	struct hwt_chunk_table t = { .entries = (uintptr_t)st, .nr_entries = 4 };
	struct hwt_event ev[16];
	struct hwt_version v;
	struct hwt_map m = { 0 };
	int fd, a, b, cpu;
	size_t got;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(HWT_ABI_MAJOR, v.abi_major);
	EXPECT_EQ(HWT_EVENT_SIZE, v.event_size);
	cpu = hwt_nr_cpus(fd) - 1;
	while (cpu > 0 && !hwt_cpu_online(cpu))
		cpu--;
	a = hwt_create(fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	b = hwt_create(fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, a);
	ASSERT_LT(a, b);
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, b));
	ASSERT_EQ(0, hwt_pin(cpu));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_2, 3, 0xCAFE));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
	/* a table through a 32-bit user pointer: every ring of both chunks */
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_TABLE, (unsigned long)&t));
	EXPECT_EQ((uint32_t)(2 * hwt_nr_cpus(fd)), t.nr_entries);
	EXPECT_EQ((uint32_t)a, st[0].id);
	EXPECT_EQ(64 * REC, st[0].normal_size);

	/* chunk b on the last CPU: a token far above 4 GiB */
	ASSERT_EQ(0, hwt_map(fd, b, cpu, &m));
	EXPECT_EQ((uint32_t)b, m.meta->chunk);
	EXPECT_EQ((uint32_t)cpu, m.meta->cpu);
	EXPECT_EQ(68, m.meta->nr_slots);
	got = hwt_drain(&m, ev, 16);
	ASSERT_EQ(START_RECS + 2, got);
	EXPECT_EQ(HWT_EV_USER_EVENT_2, ev[START_RECS].code);
	EXPECT_EQ(3, ev[START_RECS].par1);
	EXPECT_EQ(0xCAFE, ev[START_RECS].par2);
	EXPECT_EQ(HWT_EV_TRACE_STOP, ev[START_RECS + 1].code);
	hwt_unmap(&m);
	hwt_reset(fd);
	close(fd);
}

TEST_HARNESS_MAIN
