// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace module lifetime: rmmod is refused while the device is open or a
 * ring is mapped, and succeeds (tearing down a running trace) once neither
 * is.  The module is loaded again afterwards from $HWT_KO.
 */
#include "hwt_test.h"
#include <stdio.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"

static int unload(void)
{
	return syscall(SYS_delete_module, "hwtrace", O_NONBLOCK) ? -errno : 0;
}

static int load(void)
{
	const char *ko = getenv("HWT_KO");
	int fd, ret;

	fd = open(ko ? ko : "/hwt/hwtrace.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
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

TEST_HARNESS_MAIN
