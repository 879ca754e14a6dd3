// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Consumer: every CPU ring of one or more chunks, drained in one pass, and a
 * wait for more in between.
 *
 * The wait is poll(2) on /dev/hwtrace, which the kernel wakes (from an
 * irq_work) when a ring reaches a quarter of its capacity; wait_us (10 ms by
 * default) caps the sleep so that a quiet trace is still written out
 * steadily.  The consumer sleeps before every drain, even when there is
 * data: one that never sleeps looks like a CPU hog to the scheduler, which
 * starves it under load until its rings overflow.
 *
 * hwt_consumer_poll_cpu() is the same for one CPU, for a drain thread per
 * CPU: it waits on a descriptor of its own that the kernel wakes for that
 * CPU's rings only (HWT_IOC_POLL_CPU), so another CPU's full ring neither
 * wakes it nor keeps its poll() from sleeping.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

#define DEFAULT_WAIT_US	10000

struct hwt_consumer {
	struct hwt_dev *dev;
	uint32_t wait_us;
	uint32_t nr_cpus;
	int *cpu_fd;			/* [nr_cpus]: poll_cpu's descriptors, -1 unopened */
	struct hwt_ring **rings;	/* chunk by chunk, CPU by CPU */
	size_t nr_rings, cap_rings;
};

int hwt_consumer_new(struct hwt_consumer **out, struct hwt_dev *d,
		     const struct hwt_consumer_opts *opts)
{
	struct hwt_consumer *c;
	struct hwt_version v;
	int err;

	*out = NULL;
	err = hwt_dev_version(d, &v);
	if (err)
		return err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return hwt_err(-ENOMEM);
	c->dev = d;
	c->nr_cpus = v.nr_cpus;
	c->cpu_fd = malloc(v.nr_cpus * sizeof(*c->cpu_fd));
	if (!c->cpu_fd) {
		free(c);
		return hwt_err(-ENOMEM);
	}
	for (uint32_t cpu = 0; cpu < v.nr_cpus; cpu++)
		c->cpu_fd[cpu] = -1;
	c->wait_us = HWT_OPT(opts, wait_us, 0);
	if (!c->wait_us)
		c->wait_us = DEFAULT_WAIT_US;
	*out = c;
	return 0;
}

void hwt_consumer_free(struct hwt_consumer *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_rings; i++)
		hwt_ring_unmap(c->rings[i]);
	for (uint32_t cpu = 0; cpu < c->nr_cpus; cpu++)
		if (c->cpu_fd[cpu] >= 0)
			close(c->cpu_fd[cpu]);
	free(c->cpu_fd);
	free(c->rings);
	free(c);
}

int hwt_consumer_add_chunk(struct hwt_consumer *c, int chunk)
{
	size_t added = 0;

	if (chunk < 0)
		return hwt_err(-EINVAL);
	for (uint32_t cpu = 0; cpu < c->nr_cpus; cpu++) {
		struct hwt_ring *r;
		int err = hwt_ring_map(c->dev, (uint32_t)chunk, cpu, &r);

		if (err == -EINVAL && added)
			continue;	/* a hole in the possible-CPU mask */
		if (err)
			return err;
		if (c->nr_rings == c->cap_rings) {
			size_t cap = c->cap_rings ? 2 * c->cap_rings : 16;
			struct hwt_ring **p = realloc(c->rings, cap * sizeof(*p));

			if (!p) {
				hwt_ring_unmap(r);
				return hwt_err(-ENOMEM);
			}
			c->rings = p;
			c->cap_rings = cap;
		}
		c->rings[c->nr_rings++] = r;
		added++;
	}
	return 0;
}

size_t hwt_consumer_nr_rings(const struct hwt_consumer *c)
{
	return c->nr_rings;
}

struct hwt_ring *hwt_consumer_ring(const struct hwt_consumer *c, size_t i)
{
	return i < c->nr_rings ? c->rings[i] : NULL;
}

#define ALL_CPUS	UINT32_MAX

/* The rings of cpu (or ALL_CPUS), CYC ones too if cyc. */
static int64_t consume(struct hwt_consumer *c, unsigned int flags, int cyc,
		       uint32_t cpu, hwt_sink_fn_t sink, void *ctx)
{
	int64_t total = 0;

	for (size_t i = 0; i < c->nr_rings; i++) {
		const struct hwt_ring_meta *m = hwt_ring_meta(c->rings[i]);
		int64_t n;

		if (cpu != ALL_CPUS && hwt_ring_cpu(c->rings[i]) != cpu)
			continue;
		if (!cyc && HWT_CHUNK_MODE(__atomic_load_n(&m->flags,
							   __ATOMIC_RELAXED)) ==
			    HWT_CHUNK_CYC)
			continue;
		n = hwt_ring_consume(c->rings[i], flags, sink, ctx);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

int64_t hwt_consumer_consume(struct hwt_consumer *c, unsigned int flags,
			     hwt_sink_fn_t sink, void *ctx)
{
	return consume(c, flags, 1, ALL_CPUS, sink, ctx);
}

/* Sleep on fd until it is ready, wait_us or timeout_ms. */
static int wait_ready(const struct hwt_consumer *c, int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int wait_ms = (int)(c->wait_us / 1000) ?: 1;

	if (timeout_ms >= 0 && timeout_ms < wait_ms)
		wait_ms = timeout_ms;
	return poll(&pfd, 1, wait_ms) < 0 ? hwt_err(-errno) : 0;
}

/* CYC rings are skipped: a snapshot of them would repeat what it gave. */
int64_t hwt_consumer_poll(struct hwt_consumer *c, int timeout_ms,
			  hwt_sink_fn_t sink, void *ctx)
{
	int err = wait_ready(c, hwt_dev_fd(c->dev), timeout_ms);

	return err ? err : consume(c, 0, 0, ALL_CPUS, sink, ctx);
}

static int has_cpu(const struct hwt_consumer *c, uint32_t cpu)
{
	for (size_t i = 0; i < c->nr_rings; i++)
		if (hwt_ring_cpu(c->rings[i]) == cpu)
			return 1;
	return 0;
}

/*
 * This CPU's descriptor, opened and scoped to the CPU on first use;
 * -ENOENT if no ring of the CPU was added.
 */
static int cpu_fd(struct hwt_consumer *c, uint32_t cpu)
{
	int fd;

	if (c->cpu_fd[cpu] >= 0)
		return c->cpu_fd[cpu];
	if (!has_cpu(c, cpu))
		return hwt_err(-ENOENT);
	fd = hwt_dev_reopen(c->dev);
	if (fd < 0)
		return fd;
	if (ioctl(fd, HWT_IOC_POLL_CPU, (unsigned long)cpu) < 0) {
		int err = -errno;

		close(fd);
		return hwt_err(err);
	}
	c->cpu_fd[cpu] = fd;
	return fd;
}

int64_t hwt_consumer_poll_cpu(struct hwt_consumer *c, uint32_t cpu,
			      int timeout_ms, hwt_sink_fn_t sink, void *ctx)
{
	int fd, err;

	if (cpu >= c->nr_cpus)
		return hwt_err(-EINVAL);
	fd = cpu_fd(c, cpu);
	if (fd < 0)
		return fd;
	err = wait_ready(c, fd, timeout_ms);
	return err ? err : consume(c, 0, 0, cpu, sink, ctx);
}

int hwt_consumer_epoll_fd(const struct hwt_consumer *c)
{
	return hwt_dev_fd(c->dev);
}
