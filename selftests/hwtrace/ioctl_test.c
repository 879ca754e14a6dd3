// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace ioctl and mmap interface: every call's good path and the bad
 * inputs it must refuse without harm.
 */
#include "hwt_test.h"
#include <stdio.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define PAGE	((uint64_t)sysconf(_SC_PAGESIZE))
#define BAD_PTR	16UL	/* unmapped user address */

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = hwt_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", HWT_DEV, strerror(errno));
	hwt_reset(self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	hwt_reset(self->fd);
	close(self->fd);
}

TEST_F(dev, version)
{
	struct hwt_version v;

	memset(&v, 0xAA, sizeof(v));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(HWT_ABI_MAJOR, v.abi_major);
	EXPECT_EQ(HWT_EVENT_SIZE, v.event_size);
	EXPECT_EQ(HWT_MAX_CHUNKS, v.max_chunks);
	EXPECT_LE(1, v.nr_cpus);
	EXPECT_LT(0, v.cycles_per_msec);
	EXPECT_LT(0, v.max_memory);
	EXPECT_EQ(0, v.enabled);
	/* reserved words are zeroed, not stale kernel stack */
	EXPECT_EQ(HWT_ABI_MINOR, v.abi_minor);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), v.nr_online_cpus);
	EXPECT_GE(v.nr_cpus, v.nr_online_cpus);
	for (size_t i = 0; i < sizeof(v.reserved) / sizeof(v.reserved[0]); i++) {
		EXPECT_EQ(0, v.reserved[i]);
	}
	EXPECT_LT(0, v.nr_probes);
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, BAD_PTR));
}

TEST_F(dev, unknown_ioctl)
{
	EXPECT_EQ(-ENOTTY, hwt_ioc(self->fd, _IO(HWT_IOC_MAGIC, 0x7F), 0));
	EXPECT_EQ(-ENOTTY, hwt_ioc(self->fd, _IO('x', 0x01), 0));
	/* refused before the argument is read: ENOTTY, not EFAULT */
	EXPECT_EQ(-ENOTTY, hwt_ioc(self->fd, _IOW(HWT_IOC_MAGIC, 0x7F, struct hwt_log),
				   BAD_PTR));
	EXPECT_EQ(-ENOTTY, hwt_ioc(self->fd, _IOWR(HWT_IOC_MAGIC, 0x7F, uint32_t),
				   BAD_PTR));
	/* a known number with another size or direction is another command */
	EXPECT_EQ(-ENOTTY, hwt_ioc(self->fd, _IOW(HWT_IOC_MAGIC, 0x0D, uint64_t),
				   BAD_PTR));
	EXPECT_EQ(-ENOTTY, hwt_ioc(self->fd, _IOR(HWT_IOC_MAGIC, 0x0D, struct hwt_log),
				   BAD_PTR));
	EXPECT_EQ(-ENOTTY, hwt_ioc(self->fd, _IO(HWT_IOC_MAGIC, 0x00), BAD_PTR));
}

TEST_F(dev, create_good)
{
	struct hwt_chunk_stat st;
	uint32_t flags;
	int id, id2;

	id = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	id2 = hwt_create(self->fd, 1000000, 1000000, HWT_CHUNK_JTN | HWT_CHUNK_NODEL);
	ASSERT_LE(0, id2);
	ASSERT_NE(id, id2);
	ASSERT_EQ(0, hwt_get_flags(self->fd, id, &flags));
	EXPECT_EQ(HWT_CHUNK_STOP | HWT_CHUNK_FREE, flags);
	ASSERT_EQ(0, hwt_stat(self->fd, id, 0, &st));
	EXPECT_EQ(64 * REC, st.normal_size);
	EXPECT_EQ(4 * REC, st.emergency_size);
	EXPECT_EQ(0, st.fill);
	EXPECT_EQ(0, st.written);
	EXPECT_EQ(HWT_NO_CHUNK, st.link);
	ASSERT_EQ(0, hwt_set_flags(self->fd, id2, HWT_CHUNK_JTN | HWT_CHUNK_FREE));
}

TEST_F(dev, create_bad)
{
	struct hwt_version v;
	struct hwt_chunk_create c = {
		.normal_size = 64 * REC, .emergency_size = 4 * REC,
		.reserved = { 1 },
	};

	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 0, 4 * REC, 0));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 17, 4 * REC, 0));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 64 * REC, 0, 0));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 64 * REC, 3 * REC, 0));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 64 * REC, 4 * REC + 1, 0));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, UINT64_MAX - 15, 4 * REC, 0));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 1ull << 62, 1ull << 62, 0));
	EXPECT_EQ(-ENOMEM, hwt_create(self->fd, v.max_memory, 4 * REC, 0));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 64 * REC, 4 * REC, 0x80));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_FULL));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_BUSY));
	EXPECT_EQ(-EINVAL, hwt_create(self->fd, 64 * REC, 4 * REC,
				      HWT_CHUNK_JTN | HWT_CHUNK_STOP));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_CHUNK_CREATE, (unsigned long)&c));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_CHUNK_CREATE, BAD_PTR));
	/* nothing was left behind by the failures */
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(0, v.used_memory);
}

TEST_F(dev, chunk_limit)
{
	int ids[HWT_MAX_CHUNKS];

	for (int i = 0; i < HWT_MAX_CHUNKS; i++) {
		ids[i] = hwt_create(self->fd, REC, 4 * REC, HWT_CHUNK_STOP);
		ASSERT_EQ(i, ids[i]);
	}
	EXPECT_EQ(-ENOSPC, hwt_create(self->fd, REC, 4 * REC, HWT_CHUNK_STOP));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, 100));
	/* the freed id is reused */
	EXPECT_EQ(100, hwt_create(self->fd, REC, 4 * REC, HWT_CHUNK_STOP));
}

TEST_F(dev, delete_bad)
{
	struct hwt_map m = { 0 };
	int id, nodel;

	id = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	nodel = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_NODEL);
	ASSERT_LE(0, id);
	ASSERT_LE(0, nodel);
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, -1));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, 256));
	EXPECT_EQ(-ENOENT, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, 200));
	EXPECT_EQ(-EPERM, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, nodel));

	/* mapped: busy until unmapped */
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, id));
	hwt_unmap(&m);

	/* selected: busy */
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, id));

	/* deleted ids are gone */
	ASSERT_EQ(0, hwt_set_flags(self->fd, nodel, 0));
	ASSERT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, nodel));
	ASSERT_EQ(0, hwt_set_flags(self->fd, nodel, HWT_CHUNK_FREE));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, nodel));
	EXPECT_EQ(-ENOENT, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, nodel));
	EXPECT_EQ(-ENOENT, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, nodel));
	EXPECT_EQ(-ENOENT, hwt_set_flags(self->fd, nodel, HWT_CHUNK_FREE));
}

TEST_F(dev, flags)
{
	uint32_t flags;
	int id;

	id = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_CYC);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_set_flags(self->fd, id, HWT_CHUNK_FREE | HWT_CHUNK_JTN |
				   HWT_CHUNK_COMPR));
	ASSERT_EQ(0, hwt_get_flags(self->fd, id, &flags));
	EXPECT_EQ(HWT_CHUNK_FREE | HWT_CHUNK_JTN | HWT_CHUNK_COMPR, flags);
	EXPECT_EQ(-EINVAL, hwt_set_flags(self->fd, id, 0x80));
	EXPECT_EQ(-EINVAL, hwt_set_flags(self->fd, id, HWT_CHUNK_FULL));
	EXPECT_EQ(-EINVAL, hwt_set_flags(self->fd, id, HWT_CHUNK_BUSY));
	EXPECT_EQ(-EINVAL, hwt_set_flags(self->fd, id, HWT_CHUNK_MODE_MASK));
	EXPECT_EQ(-EINVAL, hwt_set_flags(self->fd, -1, 0));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_GET_CHUNK_FLAGS, BAD_PTR));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_SET_CHUNK_FLAGS, BAD_PTR));

	/* the mode of a chunk being written cannot change; BUSY shows it */
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_get_flags(self->fd, id, &flags));
	EXPECT_EQ(HWT_CHUNK_JTN | HWT_CHUNK_COMPR | HWT_CHUNK_BUSY, flags);
	EXPECT_EQ(-EBUSY, hwt_set_flags(self->fd, id, HWT_CHUNK_STOP));
	EXPECT_EQ(-EBUSY, hwt_set_flags(self->fd, id, HWT_CHUNK_JTN | HWT_CHUNK_FREE));
	EXPECT_EQ(0, hwt_set_flags(self->fd, id, HWT_CHUNK_JTN | HWT_CHUNK_NODEL));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	/* nor, once written, afterwards (mode_fixed_once_written) */
	EXPECT_EQ(-EBUSY, hwt_set_flags(self->fd, id, HWT_CHUNK_STOP));
}

/* A ring counts by one mode from its first record: no change after that. */
TEST_F(dev, mode_fixed_once_written)
{
	struct hwt_map m = { 0 };
	uint32_t flags;
	int id;

	id = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	/* unwritten: any mode, and the meta page says which */
	ASSERT_EQ(0, hwt_set_flags(self->fd, id, HWT_CHUNK_CYC | HWT_CHUNK_FREE));
	EXPECT_EQ(HWT_CHUNK_CYC | HWT_CHUNK_FREE, m.meta->flags);
	ASSERT_EQ(0, hwt_set_flags(self->fd, id, HWT_CHUNK_STOP | HWT_CHUNK_FREE));
	EXPECT_EQ(HWT_CHUNK_STOP | HWT_CHUNK_FREE, m.meta->flags);

	ASSERT_EQ(0, hwt_only(self->fd, 1u << HWT_FAM_USER));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, 1));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, HWT_NO_CHUNK));

	/* written: the mode stays, other flags may change */
	EXPECT_EQ(-EBUSY, hwt_set_flags(self->fd, id, HWT_CHUNK_CYC | HWT_CHUNK_FREE));
	EXPECT_EQ(-EBUSY, hwt_set_flags(self->fd, id, HWT_CHUNK_JTN | HWT_CHUNK_FREE));
	ASSERT_EQ(0, hwt_get_flags(self->fd, id, &flags));
	EXPECT_EQ(HWT_CHUNK_STOP, flags & HWT_CHUNK_MODE_MASK);
	EXPECT_EQ(0, hwt_set_flags(self->fd, id, HWT_CHUNK_STOP | HWT_CHUNK_FREE |
				   HWT_CHUNK_COMPR));
	EXPECT_EQ(HWT_CHUNK_STOP | HWT_CHUNK_FREE | HWT_CHUNK_COMPR, m.meta->flags);
	hwt_unmap(&m);
}

TEST_F(dev, select_and_enable)
{
	int a, b;

	a = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	b = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, -2));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, 256));
	EXPECT_EQ(-ENOENT, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, 255));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, a));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, a));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	/* switching chunks while tracing moves every CPU */
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, b));
	/* no deselecting under a running trace */
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, HWT_NO_CHUNK));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));

	/* b stays selected until dropped; then it can be given back */
	EXPECT_EQ(-EBUSY, hwt_set_flags(self->fd, b, HWT_CHUNK_STOP | HWT_CHUNK_FREE));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, HWT_NO_CHUNK));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	EXPECT_EQ(0, hwt_set_flags(self->fd, b, HWT_CHUNK_STOP | HWT_CHUNK_FREE));
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, b));
}

TEST_F(dev, link)
{
	struct hwt_chunk_stat st;
	int a, b, c;

	a = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_JTN);
	b = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	c = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, c);
	EXPECT_EQ(-EINVAL, hwt_link(self->fd, a, a));
	EXPECT_EQ(-EINVAL, hwt_link(self->fd, -1, b));
	EXPECT_EQ(-EINVAL, hwt_link(self->fd, a, 256));
	EXPECT_EQ(-ENOENT, hwt_link(self->fd, a, 77));
	ASSERT_EQ(0, hwt_link(self->fd, a, b));
	ASSERT_EQ(0, hwt_stat(self->fd, a, 0, &st));
	EXPECT_EQ(b, st.link);
	/* b is in use now: neither linkable nor selectable nor deletable */
	EXPECT_EQ(-EBUSY, hwt_link(self->fd, c, b));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, b));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, b));
	/* freeing b needs the link gone first */
	EXPECT_EQ(-EBUSY, hwt_set_flags(self->fd, b, HWT_CHUNK_STOP | HWT_CHUNK_FREE));
	/* while tracing, a CPU may jump into b at any time: its mode stays */
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, a));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	EXPECT_EQ(-EBUSY, hwt_set_flags(self->fd, b, HWT_CHUNK_CYC));
	EXPECT_EQ(0, hwt_set_flags(self->fd, b, HWT_CHUNK_STOP | HWT_CHUNK_COMPR));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	EXPECT_EQ(0, hwt_set_flags(self->fd, b, HWT_CHUNK_CYC));
	EXPECT_EQ(0, hwt_set_flags(self->fd, b, HWT_CHUNK_STOP));
	ASSERT_EQ(0, hwt_link(self->fd, a, HWT_NO_CHUNK));
	EXPECT_EQ(0, hwt_set_flags(self->fd, b, HWT_CHUNK_STOP | HWT_CHUNK_FREE));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_CHUNK_LINK, BAD_PTR));
}

TEST_F(dev, first_chunk)
{
	int a, b;

	EXPECT_EQ(-ENOENT, hwt_ioc(self->fd, HWT_IOC_GET_FIRST_CHUNK, HWT_CHUNK_FREE));
	a = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	b = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_JTN);
	ASSERT_LE(0, b);
	EXPECT_EQ(a, hwt_ioc(self->fd, HWT_IOC_GET_FIRST_CHUNK, HWT_CHUNK_FREE));
	EXPECT_EQ(b, hwt_ioc(self->fd, HWT_IOC_GET_FIRST_CHUNK, HWT_CHUNK_JTN));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, a));
	EXPECT_EQ(b, hwt_ioc(self->fd, HWT_IOC_GET_FIRST_CHUNK, HWT_CHUNK_FREE));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_GET_FIRST_CHUNK, 0x80));
}

TEST_F(dev, chunk_table)
{
	struct hwt_chunk_stat st[64];
	struct hwt_chunk_table t = { .entries = (uintptr_t)st, .nr_entries = 0 };
	int ncpu = hwt_nr_cpus(self->fd);

	ASSERT_LE(0, hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP));
	ASSERT_LE(0, hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_TABLE, (unsigned long)&t));
	EXPECT_EQ(2 * ncpu, t.nr_entries);
	t.nr_entries = 64;
	memset(st, 0xAA, sizeof(st));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_TABLE, (unsigned long)&t));
	ASSERT_EQ(2 * ncpu, t.nr_entries);
	for (int i = 0; i < 2 * ncpu; i++) {
		EXPECT_EQ(i / ncpu, st[i].id);
		EXPECT_EQ(i % ncpu, st[i].cpu);
		EXPECT_EQ(0, st[i].reserved[0]);
		EXPECT_EQ(0, st[i].reserved[1]);
	}
	t.entries = BAD_PTR;
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_CHUNK_TABLE, (unsigned long)&t));
	t.reserved = 1;
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_CHUNK_TABLE, (unsigned long)&t));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_CHUNK_TABLE, BAD_PTR));
}

TEST_F(dev, filter_args)
{
	uint32_t mask = 0;

	ASSERT_EQ(0, hwt_only(self->fd, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_FILTER, (unsigned long)&mask));
	EXPECT_EQ(0xFFFF, mask);
	ASSERT_EQ(0, hwt_filter(self->fd, HWT_FAM_TASK, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_FILTER, (unsigned long)&mask));
	EXPECT_EQ(0xFFFF & ~(1u << HWT_FAM_TASK), mask);
	EXPECT_EQ(-EINVAL, hwt_filter(self->fd, 16, 1));
	EXPECT_EQ(-EINVAL, hwt_filter(self->fd, HWT_FAM_TASK, 2));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_SET_FILTER, BAD_PTR));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_GET_FILTER, BAD_PTR));
}

TEST_F(dev, log_args)
{
	EXPECT_EQ(0, hwt_log(self->fd, HWT_EV_IPOINT, 1, 2));
	EXPECT_EQ(0, hwt_log(self->fd, HWT_EV_IPOINT | HWT_CODE_FAST, 1, 0));
	EXPECT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_14, 1, 2));
	EXPECT_EQ(-EINVAL, hwt_log(self->fd, HWT_EV_TASK_CREATE, 0, 1));
	EXPECT_EQ(-EINVAL, hwt_log(self->fd, HWT_EV_TRACE_STOP, 0, 0));
	EXPECT_EQ(-EINVAL, hwt_log(self->fd, HWT_EV_FILTER(HWT_FAM_USER), 0, 0));
	EXPECT_EQ(-EINVAL, hwt_log(self->fd, HWT_EV_NEXT_CHUNK, 0, 0));
	EXPECT_EQ(-EINVAL, hwt_log(self->fd, 0x109, 0, 0));
	EXPECT_EQ(-EINVAL, hwt_log(self->fd, HWT_EV_USER_EVENT_0 | HWT_CODE_FAST, 0, 0));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_LOG_EVENT, BAD_PTR));
}

/* Reserved fields are for the ABI to grow: today they must be zero. */
TEST_F(dev, reserved_must_be_zero)
{
	struct hwt_chunk_flags f = { .reserved = 1 };
	struct hwt_chunk_link l = { .to = HWT_NO_CHUNK, .reserved = 1 };
	struct hwt_filter fi = { .family = HWT_FAM_USER, .reserved = 1 };
	struct hwt_log lg = { .code = HWT_EV_USER_EVENT_0, .reserved = 1 };
	int id;

	id = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	f.id = id;
	f.flags = HWT_CHUNK_STOP | HWT_CHUNK_FREE;
	l.from = id;
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_SET_CHUNK_FLAGS, (unsigned long)&f));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_GET_CHUNK_FLAGS, (unsigned long)&f));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_CHUNK_LINK, (unsigned long)&l));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_SET_FILTER, (unsigned long)&fi));
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_LOG_EVENT, (unsigned long)&lg));
	/* the same calls with the field zero go through */
	f.reserved = l.reserved = fi.reserved = lg.reserved = 0;
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_SET_CHUNK_FLAGS, (unsigned long)&f));
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_CHUNK_FLAGS, (unsigned long)&f));
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_LINK, (unsigned long)&l));
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_SET_FILTER, (unsigned long)&fi));
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_LOG_EVENT, (unsigned long)&lg));
}

TEST_F(dev, clock)
{
	struct hwt_version v;
	uint32_t dflt;
	int id;

	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	dflt = v.clock;
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_SET_CLOCK, 7));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_SET_CLOCK, HWT_CLOCK_MONO));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(HWT_CLOCK_MONO, v.clock);
	EXPECT_EQ(1000000, v.cycles_per_msec);
	id = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_SET_CLOCK, HWT_CLOCK_MONO));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	if (hwt_ioc(self->fd, HWT_IOC_SET_CLOCK, HWT_CLOCK_TSC) == -EOPNOTSUPP) {
		/* HWT_EXPECT_TSC=1: a machine with an invariant TSC */
		ASSERT_EQ(NULL, getenv("HWT_EXPECT_TSC"))
			TH_LOG("the TSC is invariant here but refused as a clock");
		TH_LOG("TSC not usable as a clock here; mono stays");
		EXPECT_EQ(HWT_CLOCK_MONO, dflt);
		return;
	}
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(HWT_CLOCK_TSC, v.clock);
	/* tsc_khz: a real x86 core runs at 100 MHz or more */
	EXPECT_LE(100000, v.cycles_per_msec);
	/* back to the default the module chose, for the tests after this one */
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_SET_CLOCK, dflt));
}

/* The cycle counter: records carry it, the start record says its rate. */
TEST_F(dev, tsc_records)
{
	struct hwt_event ev[16];
	struct hwt_version v;
	uint32_t dflt;
	struct hwt_map m = { 0 };
	uint64_t t0, t1;
	size_t n;
	int id;

	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	dflt = v.clock;
	if (hwt_ioc(self->fd, HWT_IOC_SET_CLOCK, HWT_CLOCK_TSC) == -EOPNOTSUPP) {
		ASSERT_EQ(NULL, getenv("HWT_EXPECT_TSC"));
		SKIP(return, "no usable TSC on this machine");
	}
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	ASSERT_EQ(0, hwt_pin(0));
	ASSERT_EQ(0, hwt_only(self->fd, 1u << HWT_FAM_USER));
	id = hwt_create(self->fd, 64 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, 1));
	usleep(20000);
	ASSERT_EQ(0, hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, 2));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_SET_CLOCK, dflt));
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	n = hwt_drain(&m, ev, 16);
	hwt_unmap(&m);
	ASSERT_LE(START_RECS + 3, n);
	EXPECT_EQ(HWT_EV_CYCLES_PER_MSEC, ev[0].code);
	EXPECT_EQ(HWT_CLOCK_TSC, ev[0].par1);
	EXPECT_EQ(v.cycles_per_msec, ev[0].par2);
	ASSERT_EQ(HWT_EV_USER_EVENT_0, ev[START_RECS].code);
	ASSERT_EQ(HWT_EV_USER_EVENT_0, ev[START_RECS + 1].code);
	t0 = (uint64_t)ev[START_RECS].tsc_hi << 32 | ev[START_RECS].tsc_lo;
	t1 = (uint64_t)ev[START_RECS + 1].tsc_hi << 32 | ev[START_RECS + 1].tsc_lo;
	/* 20 ms of sleep are at least 20 ms of cycles (no upper bound: TCG) */
	EXPECT_LE(t0 + 20ull * v.cycles_per_msec, t1)
		TH_LOG("t0 %llu t1 %llu, %llu cycles/ms", (unsigned long long)t0,
		       (unsigned long long)t1, (unsigned long long)v.cycles_per_msec);
}

TEST_F(dev, ring_info)
{
	struct hwt_ring_info info = { 0 };
	int id;

	id = hwt_create(self->fd, 100 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	info.chunk = id;
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_RING_INFO, (unsigned long)&info));
	EXPECT_EQ(104, info.nr_slots);
	EXPECT_EQ(100, info.normal_slots);
	EXPECT_EQ(PAGE, info.meta_size);
	EXPECT_EQ((104 * REC + PAGE - 1) / PAGE * PAGE, info.data_size);
	EXPECT_EQ(HWT_MMAP_OFFSET(id, 0, HWT_AREA_META), info.meta_offset);
	EXPECT_EQ(HWT_MMAP_OFFSET(id, 0, HWT_AREA_DATA), info.data_offset);
	info.cpu = 1 << 20;
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_RING_INFO, (unsigned long)&info));
	info.cpu = 0;
	info.chunk = 999;
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_RING_INFO, (unsigned long)&info));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_RING_INFO, BAD_PTR));
}

TEST_F(dev, mmap_bad)
{
	struct hwt_map m = { 0 };
	size_t data;
	void *p;
	int id;

	/* 300 records: data spans two pages */
	id = hwt_create(self->fd, 296 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	EXPECT_EQ(HWT_ABI_MAJOR, m.meta->version);
	EXPECT_EQ(300, m.meta->nr_slots);
	EXPECT_EQ(296, m.meta->normal_slots);
	EXPECT_EQ((uint32_t)id, m.meta->chunk);
	EXPECT_EQ(m.data_size, m.meta->data_size);
	EXPECT_EQ(HWT_MMAP_OFFSET(id, 0, HWT_AREA_DATA), m.meta->data_offset);
	data = m.data_size;
	ASSERT_EQ(2 * PAGE, data);
	hwt_unmap(&m);

	/* data pages are never writable */
	p = mmap(NULL, data, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_DATA));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, data, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_DATA));
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_NE(0, mprotect(p, data, PROT_READ | PROT_WRITE));
	EXPECT_NE(0, mprotect(p, data, PROT_READ | PROT_EXEC));
	/* a partial unmap splits the vma; the count of mappings follows */
	EXPECT_EQ(0, munmap(p, PAGE));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, id));
	munmap((char *)p + PAGE, PAGE);

	/* no area is ever executable */
	p = mmap(NULL, data, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_DATA));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_META));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_META));
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_NE(0, mprotect(p, PAGE, PROT_READ | PROT_EXEC));
	munmap(p, PAGE);

	/* wrong length, wrong offset, no such chunk or CPU */
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_DATA));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, PAGE * 2, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_META));
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_META) + PAGE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id + 1, 0, HWT_AREA_META));
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 4095, HWT_AREA_META));
	EXPECT_EQ(MAP_FAILED, p);
	/* every mapping is gone: the chunk can go */
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, id));
}

/*
 * Only shared mappings: a private copy of the meta page would keep the
 * consumer's data_tail from the kernel.  A child does not inherit them.
 */
TEST_F(dev, mmap_shared_only)
{
	struct hwt_map m = { 0 };
	int id, status;
	pid_t pid;
	void *p;

	id = hwt_create(self->fd, 296 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_META));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_META));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE, self->fd,
		 (off_t)HWT_MMAP_OFFSET(id, 0, HWT_AREA_DATA));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* msync() fails with ENOMEM on a range that is not mapped */
		bool meta_gone = msync((void *)m.meta, PAGE, MS_ASYNC) && errno == ENOMEM;
		bool data_gone = msync((void *)m.data, m.data_size, MS_ASYNC) &&
				 errno == ENOMEM;

		_exit(meta_gone && data_gone ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the parent's mappings are its own still */
	EXPECT_EQ(0, msync((void *)m.meta, PAGE, MS_ASYNC));
	EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, id));
	hwt_unmap(&m);
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, id));
}

/* The NUMA node of a CPU, from sysfs; -1 if it names none. */
static int cpu_node(int cpu)
{
	char path[64];

	for (int n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", cpu, n);
		if (!access(path, F_OK))
			return n;
	}
	return -1;
}

/*
 * Each CPU's ring is on that CPU's NUMA node: /proc/vmallocinfo lists a
 * ring's pages per node (N<node>=<pages>).  Meaningful on a guest with
 * several nodes (make check-vm-numa); trivially true on one.
 */
TEST_F(dev, rings_on_cpu_node)
{
	int want[64] = { 0 }, got[64] = { 0 }, ncpu, id, rings = 0;
	const unsigned int pages = 37;	/* a size no other area has */
	char line[512];
	FILE *f;

	ncpu = hwt_nr_cpus(self->fd);
	ASSERT_LT(0, ncpu);
	id = hwt_create(self->fd, pages * PAGE - 4 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	for (int c = 0; c < ncpu; c++) {
		int n = cpu_node(c);

		if (n < 0)
			SKIP(return, "CPU %d has no node in sysfs (not present)", c);
		want[n]++;
	}
	f = fopen("/proc/vmallocinfo", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char tag[16];
		int node = -1;

		snprintf(tag, sizeof(tag), " pages=%u ", pages);
		if (!strstr(line, "[hwtrace]") || !strstr(line, tag))
			continue;
		rings++;
		/* all pages on one node */
		for (int n = 0; n < 64; n++) {
			char count[24];

			snprintf(count, sizeof(count), " N%d=", n);
			if (!strstr(line, count))
				continue;
			EXPECT_EQ(-1, node) TH_LOG("pages on two nodes: %s", line);
			snprintf(count, sizeof(count), " N%d=%u", n, pages);
			EXPECT_NE(NULL, strstr(line, count)) TH_LOG("%s", line);
			node = n;
		}
		ASSERT_LE(0, node) TH_LOG("no node counts: %s", line);
		got[node]++;
	}
	fclose(f);
	EXPECT_EQ(ncpu, rings);
	for (int n = 0; n < 64; n++) {
		EXPECT_EQ(want[n], got[n]) TH_LOG("node %d", n);
	}
}

/* The consumer position is userspace's: garbage there must not hurt. */
/*
 * A consumer position outside the ring: the writer reads data_tail only
 * when the room it had (as of the last sane position) is used up, then
 * refuses everything.  Each event is written or counted lost, nothing is
 * written outside the ring, and a sane position makes it work again.
 */
TEST_F(dev, garbage_tail)
{
	struct hwt_chunk_stat st;
	struct hwt_event ev[64];
	struct hwt_map m = { 0 };
	uint64_t written;
	int id;

	ASSERT_EQ(0, hwt_pin(0));
	id = hwt_create(self->fd, 32 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_EQ(0, hwt_map(self->fd, id, 0, &m));
	ASSERT_EQ(0, hwt_only(self->fd, 1u << HWT_FAM_USER));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_stat(self->fd, id, 0, &st));
	written = st.written;
	m.meta->data_tail = UINT64_MAX;
	for (int i = 0; i < 10; i++)
		hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, i);
	m.meta->data_tail = 2 * m.nr_slots + 5;
	for (int i = 0; i < 10; i++)
		hwt_log(self->fd, HWT_EV_USER_EVENT_0, 0, i);
	ASSERT_EQ(0, hwt_stat(self->fd, id, 0, &st));
	EXPECT_EQ(20, st.written - written + st.lost);
	EXPECT_LE(10, st.lost);
	EXPECT_EQ(st.lost, m.meta->lost);
	EXPECT_GE(m.nr_slots, st.fill);
	/* the tail is read again at the latest where the watermark (32 / 4) is hit */
	EXPECT_GT(32 / 4, st.written);
	/* a sane tail again: the ring works and reports what it lost */
	m.meta->data_tail = m.meta->data_head;
	hwt_log(self->fd, HWT_EV_USER_EVENT_0, 1, 99);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	ASSERT_EQ(3, hwt_drain(&m, ev, 64));
	EXPECT_EQ(HWT_EV_LOST, ev[0].code);
	EXPECT_EQ(st.lost, ev[0].par2);
	EXPECT_EQ(HWT_EV_USER_EVENT_0, ev[1].code);
	EXPECT_EQ(99, ev[1].par2);
	EXPECT_EQ(HWT_EV_TRACE_STOP, ev[2].code);
	hwt_unmap(&m);
}

TEST(non_root_denied)
{
	pid_t pid;
	int status;

	if (geteuid() != 0)
		SKIP(return, "needs root to drop privileges");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(hwt_open() < 0 && errno == EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

#define NOBODY		65534
#define INJECT_GID	"/sys/module/hwtrace/parameters/inject_gid"

/* fn's exit code, run as uid/gid NOBODY without capabilities or groups. */
static int as_nobody(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 102;
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		_exit(fn());
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 101;
	return WEXITSTATUS(status);
}

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(s, f) < 0 ? -EIO : 0;
	return fclose(f) ? -errno : ret;
}

static int open_refused(void)
{
	int fd = hwt_open();

	return fd < 0 && errno == EPERM ? 0 : 1;
}

/* Injection only: log and version, nothing else. */
static int inject_only(void)
{
	struct hwt_version v;
	char c;
	int fd = hwt_open();

	if (fd < 0)
		return 10;
	if (hwt_log(fd, HWT_EV_USER_EVENT_0, 0, 1))
		return 11;
	if (hwt_ioc(fd, HWT_IOC_GET_VERSION, (unsigned long)&v))
		return 12;
	if (hwt_ioc(fd, HWT_IOC_ENABLE, 0) != -EPERM ||
	    hwt_ioc(fd, HWT_IOC_CHUNK_DELETE, 0) != -EPERM ||
	    hwt_ioc(fd, HWT_IOC_SET_CLOCK, HWT_CLOCK_MONO) != -EPERM)
		return 13;
	if (mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED || errno != EPERM)
		return 14;
	if (read(fd, &c, 1) != -1 || errno != EPERM)
		return 15;
	return 0;
}

/*
 * The node's mode is not the access model: opened up by chmod, it still
 * admits only CAP_PERFMON/CAP_SYS_ADMIN, or injection to inject_gid.
 */
TEST(access_needs_capability)
{
	int chmod_ret, refused, injected, refused_again, reset;

	if (geteuid() != 0)
		SKIP(return, "needs root to drop privileges");
	ASSERT_EQ(0, access(INJECT_GID, W_OK));
	chmod_ret = chmod(HWT_DEV, 0666);
	refused = as_nobody(open_refused);
	reset = write_str(INJECT_GID, "65534");
	injected = reset ? 99 : as_nobody(inject_only);
	reset = write_str(INJECT_GID, "-1");
	refused_again = as_nobody(open_refused);
	chmod(HWT_DEV, 0600);
	ASSERT_EQ(0, chmod_ret);
	EXPECT_EQ(0, refused);
	EXPECT_EQ(0, injected);
	EXPECT_EQ(0, reset);
	EXPECT_EQ(0, refused_again);
}

/* Records carry initial-namespace pids: a tracer in another pid ns is refused. */
TEST(other_pid_namespace_refused)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to unshare a pid namespace");
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(open_refused());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
