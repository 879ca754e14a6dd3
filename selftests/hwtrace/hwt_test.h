/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the hwtrace kselftests.  The ring reader here is written
 * from Documentation/hwtrace.rst alone, independently of libhwt, so the
 * tests check the documented protocol rather than one implementation of it.
 */
#ifndef HWT_TEST_H
#define HWT_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/hwtrace.h>

#define HWT_DEV "/dev/hwtrace"
#define REC	HWT_EVENT_SIZE
/* what enable writes first on every CPU: cycles_per_msec, trace_start, id */
#define START_RECS	3

static inline int hwt_open(void)
{
	return open(HWT_DEV, O_RDWR | O_CLOEXEC);
}

/* ioctl returning -errno instead of -1, for compact assertions */
static inline long hwt_ioc(int fd, unsigned long cmd, unsigned long arg)
{
	long ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* xorshift64*: small, seedable, good enough to pick arguments */
struct rng {
	uint64_t s;
};

static inline uint64_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

static inline uint32_t below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd(r) % n) : 0;
}

static inline int hwt_create(int fd, uint64_t normal, uint64_t emergency,
			     uint32_t flags)
{
	struct hwt_chunk_create c = {
		.normal_size = normal,
		.emergency_size = emergency,
		.flags = flags,
	};
	long ret = hwt_ioc(fd, HWT_IOC_CHUNK_CREATE, (unsigned long)&c);

	return ret < 0 ? (int)ret : c.id;
}

static inline long hwt_filter(int fd, uint32_t family, uint32_t status)
{
	struct hwt_filter f = { .family = family, .status = status };

	return hwt_ioc(fd, HWT_IOC_SET_FILTER, (unsigned long)&f);
}

/* Log only the families in keep (a bit mask); the rest are filtered. */
static inline long hwt_only(int fd, uint32_t keep)
{
	long ret = 0;

	for (uint32_t f = 0; f < HWT_NR_FAMILIES && !ret; f++)
		ret = hwt_filter(fd, f, !(keep & (1u << f)));
	return ret;
}

static inline long hwt_log(int fd, uint16_t code, uint16_t par1, uint32_t par2)
{
	struct hwt_log l = { .code = code, .par1 = par1, .par2 = par2 };

	return hwt_ioc(fd, HWT_IOC_LOG_EVENT, (unsigned long)&l);
}

static inline long hwt_link(int fd, uint32_t from, int32_t to)
{
	struct hwt_chunk_link l = { .from = from, .to = to };

	return hwt_ioc(fd, HWT_IOC_CHUNK_LINK, (unsigned long)&l);
}

static inline long hwt_get_flags(int fd, uint32_t id, uint32_t *flags)
{
	struct hwt_chunk_flags f = { .id = id };
	long ret = hwt_ioc(fd, HWT_IOC_GET_CHUNK_FLAGS, (unsigned long)&f);

	*flags = f.flags;
	return ret;
}

static inline long hwt_set_flags(int fd, uint32_t id, uint32_t flags)
{
	struct hwt_chunk_flags f = { .id = id, .flags = flags };

	return hwt_ioc(fd, HWT_IOC_SET_CHUNK_FLAGS, (unsigned long)&f);
}

static inline int hwt_nr_cpus(int fd)
{
	struct hwt_version v;

	if (ioctl(fd, HWT_IOC_GET_VERSION, &v))
		return -errno;
	return (int)v.nr_cpus;
}

/* Per-(chunk, CPU) statistics from the chunk table. */
static inline int hwt_stat(int fd, uint32_t chunk, uint32_t cpu,
			   struct hwt_chunk_stat *out)
{
	struct hwt_chunk_stat st[4096];
	struct hwt_chunk_table t = {
		.entries = (uintptr_t)st,
		.nr_entries = 4096,
	};

	if (ioctl(fd, HWT_IOC_CHUNK_TABLE, &t))
		return -errno;
	for (uint32_t i = 0; i < t.nr_entries && i < 4096; i++) {
		if (st[i].id == chunk && st[i].cpu == cpu) {
			*out = st[i];
			return 0;
		}
	}
	return -ENOENT;
}

/* Tear down every chunk so each test starts from an empty table. */
static inline void hwt_reset(int fd)
{
	struct hwt_name names[64];
	uint32_t flags;

	ioctl(fd, HWT_IOC_DISABLE, 0);
	ioctl(fd, HWT_IOC_CHUNK_SELECT, HWT_NO_CHUNK);
	/* no kernel source logs until a test asks for it */
	hwt_only(fd, 0);
	for (int id = 0; id < HWT_MAX_CHUNKS; id++) {
		if (hwt_get_flags(fd, id, &flags))
			continue;
		for (int from = 0; from < HWT_MAX_CHUNKS; from++)
			hwt_link(fd, from, HWT_NO_CHUNK);
		hwt_set_flags(fd, id, (flags & HWT_CHUNK_MODE_MASK) | HWT_CHUNK_FREE);
	}
	for (int id = 0; id < HWT_MAX_CHUNKS; id++)
		ioctl(fd, HWT_IOC_CHUNK_DELETE, id);
	/* names earlier enables queued would make poll() ready */
	while (read(fd, names, sizeof(names)) > 0)
		;
}

struct hwt_map {
	struct hwt_ring_meta *meta;
	const struct hwt_event *data;
	uint32_t nr_slots;
	size_t data_size;
};

static inline int hwt_map(int fd, uint32_t chunk, uint32_t cpu,
			  struct hwt_map *m)
{
	struct hwt_ring_info info = { .chunk = chunk, .cpu = cpu };
	void *p;

	memset(m, 0, sizeof(*m));
	if (ioctl(fd, HWT_IOC_RING_INFO, &info))
		return -errno;
	p = mmap(NULL, info.meta_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)info.meta_offset);
	if (p == MAP_FAILED)
		return -errno;
	m->meta = p;
	p = mmap(NULL, info.data_size, PROT_READ, MAP_SHARED, fd,
		 (off_t)info.data_offset);
	if (p == MAP_FAILED) {
		munmap(m->meta, info.meta_size);
		return -errno;
	}
	m->data = p;
	m->nr_slots = info.nr_slots;
	m->data_size = info.data_size;
	return 0;
}

static inline void hwt_unmap(struct hwt_map *m)
{
	munmap((void *)m->data, m->data_size);
	munmap(m->meta, (size_t)sysconf(_SC_PAGESIZE));
}

static inline const struct hwt_event *hwt_slot(const struct hwt_map *m,
					       uint64_t pos)
{
	return &m->data[pos < m->nr_slots ? pos : pos - m->nr_slots];
}

static inline uint64_t hwt_next_pos(const struct hwt_map *m, uint64_t pos)
{
	return pos + 1 == 2ull * m->nr_slots ? 0 : pos + 1;
}

/*
 * Drain a STOP/JTN ring: copy [data_tail, data_head) into out (room for max
 * records) and release them.  Returns the number of records copied.
 */
static inline size_t hwt_drain(struct hwt_map *m, struct hwt_event *out,
			       size_t max)
{
	uint64_t head = __atomic_load_n(&m->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = m->meta->data_tail;
	size_t n = 0;

	while (tail != head && n < max) {
		out[n++] = *hwt_slot(m, tail);
		tail = hwt_next_pos(m, tail);
	}
	__atomic_store_n(&m->meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/* Read a stopped CYC ring: its last min(written, nr_slots) records. */
static inline size_t hwt_read_cyc(const struct hwt_map *m, struct hwt_event *out)
{
	uint64_t head = m->meta->data_head;
	uint64_t n = m->meta->written < m->nr_slots ? m->meta->written : m->nr_slots;
	uint64_t span = 2ull * m->nr_slots;
	uint64_t pos = (head + span - n) % span;

	for (uint64_t i = 0; i < n; i++) {
		out[i] = *hwt_slot(m, pos);
		pos = hwt_next_pos(m, pos);
	}
	return n;
}

static inline int hwt_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Is this CPU online (cpu0 may have no "online" file)? */
static inline bool hwt_cpu_online(int cpu)
{
	char path[64], c = '1';
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return cpu == 0 || errno == ENOENT;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	return c == '1';
}

static inline int hwt_cpu_set_online(int cpu, bool on)
{
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

#endif /* HWT_TEST_H */
