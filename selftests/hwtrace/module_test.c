// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace module lifetime: rmmod is refused while the device is open or a
 * ring is mapped, and succeeds (tearing down a running trace) once neither
 * is.  The module is loaded again afterwards from $HWT_KO.
 */
#include "hwt_test.h"
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include "kselftest_harness.h"

static int unload(void)
{
	return syscall(SYS_delete_module, "hwtrace", O_NONBLOCK) ? -errno : 0;
}

static int load_with(const char *params)
{
	const char *ko = getenv("HWT_KO");
	int fd, ret;

	fd = open(ko ? ko : "/hwt/hwtrace.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int load(void)
{
	return load_with("");
}

/* The kernel says "in use" with EWOULDBLOCK for a non-blocking delete. */
static bool busy(int err)
{
	return err == -EWOULDBLOCK || err == -EBUSY;
}

TEST(rmmod_refused_while_open_or_mapped)
{
	struct hwt_map m = { 0 };
	int fd, id;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	id = hwt_create(fd, 64 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	EXPECT_TRUE(busy(unload()));

	ASSERT_EQ(0, hwt_map(fd, id, 0, &m));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	close(fd);
	/* closed, but the mapping still holds the device */
	EXPECT_TRUE(busy(unload()));
	EXPECT_EQ(HWT_ABI_MAJOR, m.meta->version);
	hwt_unmap(&m);

	/* nothing holds it: unload stops the trace and frees everything */
	ASSERT_EQ(0, unload());
	EXPECT_NE(0, access(HWT_DEV, F_OK));
	ASSERT_EQ(0, load());
	fd = hwt_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOENT, hwt_ioc(fd, HWT_IOC_GET_FIRST_CHUNK, 0));
	close(fd);
}

/* hrtimer ids seen in 300 ms of tracing (the tick's timer among them). */
static int timer_ids(uint32_t *ids, int max)
{
	struct hwt_event ev[4096];
	struct hwt_map m = { 0 };
	int fd, id, n = 0;
	size_t got;

	fd = hwt_open();
	if (fd < 0)
		return -1;
	hwt_reset(fd);
	id = hwt_create(fd, 4096 * REC, 64 * REC, HWT_CHUNK_STOP);
	if (id < 0 || hwt_only(fd, 1u << HWT_FAM_TIMER) ||
	    hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id) || hwt_ioc(fd, HWT_IOC_ENABLE, 0))
		return -1;
	usleep(300000);
	hwt_ioc(fd, HWT_IOC_DISABLE, 0);
	for (int c = 0; c < hwt_nr_cpus(fd); c++) {
		if (!hwt_cpu_online(c) || hwt_map(fd, id, c, &m))
			continue;
		got = hwt_drain(&m, ev, 4096);
		for (size_t i = 0; i < got && n < max; i++)
			if (ev[i].code == HWT_EV_TIMER_WAKEUP_START && ev[i].par1 == 1)
				ids[n++] = ev[i].par2;
		hwt_unmap(&m);
	}
	hwt_reset(fd);
	close(fd);
	return n;
}

/*
 * Timers are named by a keyed hash of their address, the key drawn at load:
 * the same kernel timers get other names after a reload.  Truncated
 * addresses would come back the same.
 */
TEST(no_kernel_pointers_in_timer_ids)
{
	static uint32_t a[4096], b[4096];
	int na, nb, same = 0;

	na = timer_ids(a, 4096);
	ASSERT_LT(0, na);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load());
	nb = timer_ids(b, 4096);
	ASSERT_LT(0, nb);
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			same += a[i] == b[j];
	EXPECT_EQ(0, same);
}

/* Ring pages cannot be swapped: the cap never exceeds half the RAM. */
TEST(memory_cap_bounded_by_ram)
{
	struct hwt_version v;
	struct sysinfo si;
	uint64_t half;
	int fd;

	ASSERT_EQ(0, sysinfo(&si));
	half = (uint64_t)si.totalram * si.mem_unit / 2;
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load_with("max_memory_mb=4194304"));	/* 4 TiB */
	fd = hwt_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_GE(half, v.max_memory);
	/* and more than the default 256 MiB where the RAM allows it */
	if (half > (512ull << 20)) {
		EXPECT_LT(256ull << 20, v.max_memory);
	}
	/* a chunk bigger than the cap is refused, not attempted */
	EXPECT_EQ(-ENOMEM, hwt_create(fd, (v.max_memory / hwt_nr_cpus(fd) + 4096) & ~15ull,
				      64, HWT_CHUNK_STOP));
	close(fd);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load());
}

TEST_HARNESS_MAIN
