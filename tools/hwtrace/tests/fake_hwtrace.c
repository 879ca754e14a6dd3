// SPDX-License-Identifier: GPL-2.0
/*
 * A fake /dev/hwtrace for host tests, loaded with LD_PRELOAD: open() of
 * $HWTRACE_DEV, ioctl(), mmap() and read() on it are served here, and a
 * producer thread plays the kernel's writers (ring.h's protocol: STOP rings
 * refuse and count, CYC rings overwrite, JTN rings jump to their link) on
 * FAKE_CPUS CPUs, FAKE_TOTAL records each, at about 100k records/s per CPU.
 * Chunks are charged against a cap of FAKE_MAX_MEMORY_MB (default 64) as
 * kmod/chunk.c charges them: over it, -ENOMEM; a ring over 2^31 - 1 slots,
 * -EINVAL.  FAKE_PRESET=cyc:BYTES makes the first open find a cyclic chunk
 * of BYTES per CPU already selected and enabled, its producer run to the
 * end (so that a snapshot of it holds the same records every time).
 * Every open() of the device is served (each file with its own poll()
 * scope, HWT_IOC_POLL_CPU), and poll() is ready when the kernel's would
 * be: tracing off, or a STOP/JTN ring a quarter full.  FAKE_NO_POLL_CPU=1
 * plays a module older than HWT_IOC_POLL_CPU (-ENOTTY).
 *
 * At exit it prints one line the tests check:
 *   fake-hwtrace: produced=N lost=N overwritten=N chunks=N filter=0xN enabled=N
 *                 cpu_waits=N
 * (cpu_waits: HWT_IOC_POLL_CPU calls that scoped a file to one CPU).
 */
#include <dlfcn.h>
#include <poll.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtrace.h>

#define MAXCPU		8
#define MAXCHUNK	8
#define PAGE		4096ul

struct fring {
	int memfd;
	struct hwt_ring_meta *meta;	/* our own mapping of the memfd */
	struct hwt_event *data;
	uint32_t n, normal;
	uint64_t head, written, lost, overwritten;
	size_t data_size;
};

struct fchunk {
	int used;
	uint32_t flags;
	int link;
	uint64_t normal, emerg, mem;
	struct fring r[MAXCPU];
};

#define MAXFD		(MAXCPU + 4)

static int fake_fd = -1;		/* the first open file of the device */
static struct ffile {
	int fd;				/* -1: free */
	int poll_cpu;			/* -1: every CPU */
} files[MAXFD] = { [0 ... MAXFD - 1] = { -1, -1 } };
static int ncpu = 2;
static uint64_t total = 20000;
static struct fchunk chunks[MAXCHUNK];
static int selected = -1, enabled, cur[MAXCPU];
static uint16_t filter;
static pthread_t producer;
static int running;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t clock_now = 1000, produced, names_sent;
static uint64_t max_memory = 64ull << 20, used_memory;
static int producer_joined;
static int cpu_waits;

static int (*real_open)(const char *, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_close)(int);

__attribute__((constructor)) static void init(void)
{
	const char *s;

	real_open = dlsym(RTLD_NEXT, "open");
	real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	real_mmap = dlsym(RTLD_NEXT, "mmap");
	real_read = dlsym(RTLD_NEXT, "read");
	real_poll = dlsym(RTLD_NEXT, "poll");
	real_close = dlsym(RTLD_NEXT, "close");
	s = getenv("FAKE_CPUS");
	if (s)
		ncpu = atoi(s) > 0 && atoi(s) <= MAXCPU ? atoi(s) : 2;
	s = getenv("FAKE_TOTAL");
	if (s)
		total = strtoull(s, NULL, 0);
	s = getenv("FAKE_MAX_MEMORY_MB");
	if (s)
		max_memory = strtoull(s, NULL, 0) << 20;
}

/* One record into ring r, as hwt_ring_write(): 0, or -ENOSPC. */
static int ring_write(struct fring *r, int cyc, uint32_t limit, uint16_t code,
		      uint16_t par1, uint32_t par2)
{
	uint64_t span = 2ull * r->n;
	uint64_t tail = __atomic_load_n(&r->meta->data_tail, __ATOMIC_ACQUIRE);
	uint64_t used = tail >= span ? UINT64_MAX :
			r->head >= tail ? r->head - tail : r->head + span - tail;
	uint64_t ts = __atomic_add_fetch(&clock_now, 1, __ATOMIC_RELAXED);
	struct hwt_event *ev;

	if (!cyc && used >= limit)
		return -ENOSPC;
	ev = &r->data[r->head < r->n ? r->head : r->head - r->n];
	ev->code = code;
	ev->par1 = par1;
	ev->tsc_hi = (uint32_t)(ts >> 32);
	ev->tsc_lo = (uint32_t)ts;
	ev->par2 = par2;
	r->head = (r->head + 1) % span;
	if (cyc && ++r->written > r->n)
		r->overwritten++;
	else if (!cyc)
		r->written++;
	__atomic_store_n(&r->meta->written, r->written, __ATOMIC_RELAXED);
	__atomic_store_n(&r->meta->overwritten, r->overwritten, __ATOMIC_RELAXED);
	__atomic_store_n(&r->meta->data_head, r->head, __ATOMIC_RELEASE);
	return 0;
}

/* An event on cpu: the current chunk, a JTN jump, or a loss. */
static void record(int cpu, uint16_t code, uint16_t par1, uint32_t par2, int ctl)
{
	for (int hops = 0; hops < MAXCHUNK; hops++) {
		struct fchunk *c = &chunks[cur[cpu]];
		struct fring *r = &c->r[cpu];
		int cyc = HWT_CHUNK_MODE(c->flags) == HWT_CHUNK_CYC;

		if (!ring_write(r, cyc, ctl ? r->n : r->normal, code, par1, par2))
			return;
		if (HWT_CHUNK_MODE(c->flags) != HWT_CHUNK_JTN || c->link < 0) {
			r->lost++;
			__atomic_store_n(&r->meta->lost, r->lost, __ATOMIC_RELAXED);
			return;
		}
		ring_write(r, 0, r->n, HWT_EV_NEXT_CHUNK, (uint16_t)c->link,
			   (uint32_t)cur[cpu]);
		cur[cpu] = c->link;
	}
}

static void *produce(void *arg)
{
	uint64_t done = 0;

	(void)arg;
	while (__atomic_load_n(&running, __ATOMIC_ACQUIRE) && done < total) {
		struct timespec ts = { .tv_nsec = 1000000 };

		pthread_mutex_lock(&lock);
		for (int i = 0; i < 100 && done < total; i++, done++) {
			for (int cpu = 0; cpu < ncpu; cpu++) {
				uint16_t code = HWT_EV_TASK_SCHEDULE;

				if (filter & (1u << HWT_FAMILY(code)))
					continue;
				record(cpu, code, HWT_SWITCH_PAR1(1, 0),
				       HWT_SWITCH_PAR2(1, (uint32_t)done % 5 + 1), 0);
				__atomic_add_fetch(&produced, 1, __ATOMIC_RELAXED);
			}
		}
		pthread_mutex_unlock(&lock);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int ring_init(struct fring *r, int id, int cpu, uint64_t normal, uint64_t emerg,
		     uint32_t flags)
{
	r->n = (uint32_t)((normal + emerg) / 16);
	r->normal = (uint32_t)(normal / 16);
	r->data_size = (r->n * 16ul + PAGE - 1) & ~(PAGE - 1);
	r->memfd = memfd_create("fake-ring", MFD_CLOEXEC);
	if (r->memfd < 0 || ftruncate(r->memfd, (off_t)(PAGE + r->data_size)))
		return -ENOMEM;
	r->meta = real_mmap(NULL, PAGE + r->data_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, r->memfd, 0);
	if (r->meta == MAP_FAILED)
		return -ENOMEM;
	r->data = (struct hwt_event *)((char *)r->meta + PAGE);
	r->meta->version = HWT_ABI_MAJOR;
	r->meta->meta_size = sizeof(*r->meta);
	r->meta->chunk = (uint32_t)id;
	r->meta->cpu = (uint32_t)cpu;
	r->meta->nr_slots = r->n;
	r->meta->normal_slots = r->normal;
	r->meta->flags = flags;
	r->meta->clock = HWT_CLOCK_MONO;
	r->meta->cycles_per_msec = 1000000;
	r->meta->data_offset = HWT_MMAP_OFFSET(id, cpu, HWT_AREA_DATA);
	r->meta->data_size = r->data_size;
	return 0;
}

static int linked_to(int id)
{
	for (int i = 0; i < MAXCHUNK; i++)
		if (chunks[i].used && chunks[i].link == id)
			return 1;
	return 0;
}

/* The open file of the device fd is, or NULL. */
static struct ffile *fake_file(int fd)
{
	for (int i = 0; fd >= 0 && i < MAXFD; i++)
		if (files[i].fd == fd)
			return &files[i];
	return NULL;
}

static int do_ioctl(int fd, unsigned long cmd, unsigned long arg)
{
	void *p = (void *)arg;
	int id = (int)arg;

	switch (cmd) {
	case HWT_IOC_POLL_CPU:
		if (getenv("FAKE_NO_POLL_CPU"))
			return -ENOTTY;
		if (id != -1 && (id < 0 || id >= ncpu))
			return -EINVAL;
		fake_file(fd)->poll_cpu = id;
		cpu_waits += id >= 0;
		return 0;
	case HWT_IOC_GET_VERSION: {
		struct hwt_version *v = p;

		memset(v, 0, sizeof(*v));
		v->abi_major = HWT_ABI_MAJOR;
		v->abi_minor = HWT_ABI_MINOR;
		v->nr_cpus = (uint32_t)ncpu;
		v->nr_online_cpus = (uint32_t)ncpu;
		v->max_chunks = MAXCHUNK;
		v->event_size = HWT_EVENT_SIZE;
		v->clock = HWT_CLOCK_MONO;
		v->cycles_per_msec = 1000000;
		v->max_memory = max_memory;
		v->used_memory = used_memory;
		v->enabled = (uint32_t)enabled;
		v->filter_mask = filter;
		return 0;
	}
	case HWT_IOC_CHUNK_CREATE: {
		struct hwt_chunk_create *c = p;
		uint64_t ring = c->normal_size + c->emergency_size, mem;

		if (!c->normal_size || c->normal_size % 16 || c->emergency_size < 64 ||
		    c->emergency_size % 16 || ring < c->normal_size ||
		    ring / 16 > UINT32_MAX / 2)
			return -EINVAL;
		/* kmod/chunk.c: whole pages and a meta page, on every CPU */
		mem = (((ring + PAGE - 1) & ~(PAGE - 1)) + PAGE) * (uint64_t)ncpu;
		if (mem > max_memory - used_memory)
			return -ENOMEM;
		for (id = 0; id < MAXCHUNK && chunks[id].used; id++)
			;
		if (id == MAXCHUNK)
			return -ENOSPC;
		memset(&chunks[id], 0, sizeof(chunks[id]));
		chunks[id].used = 1;
		chunks[id].mem = mem;
		used_memory += mem;
		chunks[id].flags = c->flags | HWT_CHUNK_FREE;
		chunks[id].link = -1;
		for (int cpu = 0; cpu < ncpu; cpu++)
			if (ring_init(&chunks[id].r[cpu], id, cpu, c->normal_size,
				      c->emergency_size, chunks[id].flags))
				return -ENOMEM;
		c->id = id;
		return 0;
	}
	case HWT_IOC_CHUNK_DELETE:
		if (id < 0 || id >= MAXCHUNK || !chunks[id].used)
			return -ENOENT;
		if (!(chunks[id].flags & HWT_CHUNK_FREE))
			return -EBUSY;
		chunks[id].used = 0;
		used_memory -= chunks[id].mem;
		return 0;
	case HWT_IOC_SET_CHUNK_FLAGS: {
		struct hwt_chunk_flags *f = p;

		if (f->id >= MAXCHUNK || !chunks[f->id].used)
			return -ENOENT;
		if (f->flags & HWT_CHUNK_FREE & ~chunks[f->id].flags &&
		    ((int)f->id == selected || linked_to((int)f->id)))
			return -EBUSY;
		chunks[f->id].flags = f->flags;
		return 0;
	}
	case HWT_IOC_GET_CHUNK_FLAGS: {
		struct hwt_chunk_flags *f = p;

		if (f->id >= MAXCHUNK || !chunks[f->id].used)
			return -ENOENT;
		f->flags = chunks[f->id].flags;
		return 0;
	}
	case HWT_IOC_CHUNK_SELECT:
		if (id == HWT_NO_CHUNK) {
			if (enabled)
				return -EBUSY;
			selected = -1;
			return 0;
		}
		if (id < 0 || id >= MAXCHUNK || !chunks[id].used)
			return -ENOENT;
		if (!(chunks[id].flags & HWT_CHUNK_FREE))
			return -EBUSY;
		chunks[id].flags &= ~HWT_CHUNK_FREE;
		selected = id;
		return 0;
	case HWT_IOC_CHUNK_LINK: {
		struct hwt_chunk_link *l = p;

		if (l->from >= MAXCHUNK || !chunks[l->from].used)
			return -ENOENT;
		if (l->to != HWT_NO_CHUNK) {
			if (l->to < 0 || l->to >= MAXCHUNK || !chunks[l->to].used)
				return -ENOENT;
			if (!(chunks[l->to].flags & HWT_CHUNK_FREE))
				return -EBUSY;
			chunks[l->to].flags &= ~HWT_CHUNK_FREE;
		}
		chunks[l->from].link = l->to;
		return 0;
	}
	case HWT_IOC_SET_FILTER: {
		struct hwt_filter *f = p;

		if (f->family >= HWT_NR_FAMILIES || f->status > 1)
			return -EINVAL;
		filter = (uint16_t)((filter & ~(1u << f->family)) |
				    (f->status << f->family));
		return 0;
	}
	case HWT_IOC_GET_FILTER:
		*(uint32_t *)p = filter;
		return 0;
	case HWT_IOC_RING_INFO: {
		struct hwt_ring_info *ri = p;
		struct fring *r;

		if (ri->chunk >= MAXCHUNK || !chunks[ri->chunk].used)
			return -ENOENT;
		if (ri->cpu >= (uint32_t)ncpu)
			return -EINVAL;
		r = &chunks[ri->chunk].r[ri->cpu];
		ri->meta_offset = HWT_MMAP_OFFSET(ri->chunk, ri->cpu, HWT_AREA_META);
		ri->meta_size = PAGE;
		ri->data_offset = HWT_MMAP_OFFSET(ri->chunk, ri->cpu, HWT_AREA_DATA);
		ri->data_size = r->data_size;
		ri->nr_slots = r->n;
		ri->normal_slots = r->normal;
		return 0;
	}
	case HWT_IOC_ENABLE:
		if (enabled)
			return -EBUSY;
		if (selected < 0)
			return -EINVAL;
		for (int cpu = 0; cpu < ncpu; cpu++) {
			cur[cpu] = selected;
			record(cpu, HWT_EV_CYCLES_PER_MSEC, HWT_CLOCK_MONO, 1000000, 1);
			record(cpu, HWT_EV_TRACE_START, 0, 0, 1);
		}
		enabled = 1;
		running = 1;
		names_sent = 0;
		producer_joined = 0;
		return pthread_create(&producer, NULL, produce, NULL) ? -EAGAIN : 0;
	/* HWT_IOC_DISABLE: in ioctl(), which must join the producer unlocked */
	default:
		return -ENOTTY;
	}
}

int ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	unsigned long arg;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (!fake_file(fd))
		return real_ioctl(fd, cmd, arg);
	pthread_mutex_lock(&lock);
	if (cmd == HWT_IOC_DISABLE) {
		/* the producer takes the lock: join it unlocked */
		pthread_mutex_unlock(&lock);
		__atomic_store_n(&running, 0, __ATOMIC_RELEASE);
		if (enabled && !producer_joined)
			pthread_join(producer, NULL);
		pthread_mutex_lock(&lock);
		if (enabled)
			for (int cpu = 0; cpu < ncpu; cpu++)
				record(cpu, HWT_EV_TRACE_STOP, 0, 0, 1);
		enabled = 0;
		ret = 0;
	} else {
		ret = do_ioctl(fd, cmd, arg);
	}
	pthread_mutex_unlock(&lock);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/* FAKE_PRESET=cyc:BYTES: a flight recorder that has been running a while. */
static void preset(void)
{
	const char *s = getenv("FAKE_PRESET");
	struct hwt_chunk_create c = { .emergency_size = 4096, .flags = HWT_CHUNK_CYC };
	int ret;

	if (!s || strncmp(s, "cyc:", 4))
		return;
	c.normal_size = strtoull(s + 4, NULL, 0);
	pthread_mutex_lock(&lock);
	ret = do_ioctl(fake_fd, HWT_IOC_CHUNK_CREATE, (unsigned long)&c);
	if (!ret)
		ret = do_ioctl(fake_fd, HWT_IOC_CHUNK_SELECT, (unsigned long)c.id);
	if (!ret)
		ret = do_ioctl(fake_fd, HWT_IOC_ENABLE, 0);
	pthread_mutex_unlock(&lock);
	if (ret) {
		fprintf(stderr, "fake-hwtrace: FAKE_PRESET=%s: %s\n", s, strerror(-ret));
		return;
	}
	/* all FAKE_TOTAL records written: the rings hold a fixed content */
	pthread_join(producer, NULL);
	producer_joined = 1;
}

int open(const char *path, int flags, ...)
{
	const char *dev = getenv("HWTRACE_DEV");
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = va_arg(ap, mode_t);
	va_end(ap);
	if (dev && !strcmp(path, dev)) {
		struct ffile *f = NULL;
		int fd;

		for (int i = 0; !f && i < MAXFD; i++)
			if (files[i].fd < 0)
				f = &files[i];
		if (!f) {
			errno = EMFILE;
			return -1;
		}
		fd = real_open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return fd;
		*f = (struct ffile){ fd, -1 };
		if (fake_fd < 0) {
			fake_fd = fd;
			preset();
		}
		return fd;
	}
	return real_open(path, flags, mode);
}

int close(int fd)
{
	struct ffile *f = fake_file(fd);

	if (f && fd != fake_fd)
		f->fd = -1;
	return real_close(fd);
}

/* The kernel's hwt_ready(): tracing off, or a stream ring a quarter full. */
static int ready(int only_cpu)
{
	int yes;

	pthread_mutex_lock(&lock);
	yes = !enabled;
	for (int i = 0; i < MAXCHUNK && !yes; i++) {
		if (!chunks[i].used || HWT_CHUNK_MODE(chunks[i].flags) == HWT_CHUNK_CYC)
			continue;
		for (int cpu = 0; cpu < ncpu; cpu++) {
			struct fring *r = &chunks[i].r[cpu];
			uint64_t span = 2ull * r->n, tail;

			if (only_cpu >= 0 && cpu != only_cpu)
				continue;
			tail = __atomic_load_n(&r->meta->data_tail, __ATOMIC_ACQUIRE);
			if ((r->head + span - tail) % span >= r->normal / 4)
				yes = 1;
		}
	}
	pthread_mutex_unlock(&lock);
	return yes;
}

/* glibc declares fds write-only (access attribute): it is read here */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct ffile *f = n == 1 ? fake_file(fds[0].fd) : NULL;

	if (!f)
		return real_poll(fds, n, timeout);
	for (int waited = 0;; waited++) {
		struct timespec ts = { .tv_nsec = 1000000 };

		if (ready(f->poll_cpu)) {
			fds[0].revents = POLLIN;
			return 1;
		}
		if (timeout >= 0 && waited >= timeout) {
			fds[0].revents = 0;
			return 0;
		}
		nanosleep(&ts, NULL);
	}
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	uint64_t tok = (uint64_t)off >> HWT_MMAP_SHIFT;
	uint32_t id = (uint32_t)(tok >> 17), cpu = (tok >> 1) & 0xFFFF;
	int area = tok & 1;
	struct fring *r;

	if (!fake_file(fd))
		return real_mmap(addr, len, prot, flags, fd, off);
	if (id >= MAXCHUNK || !chunks[id].used || cpu >= (uint32_t)ncpu) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	r = &chunks[id].r[cpu];
	if (len != (area ? r->data_size : PAGE) || (area && prot & PROT_WRITE)) {
		errno = area && prot & PROT_WRITE ? EPERM : EINVAL;
		return MAP_FAILED;
	}
	return real_mmap(addr, len, prot, flags, r->memfd, area ? (off_t)PAGE : 0);
}

void *mmap64(void *, size_t, int, int, int, off_t) __attribute__((alias("mmap")));

/* The name channel: two names, once per enable. */
ssize_t read(int fd, void *buf, size_t count)
{
	static const struct hwt_name names[] = {
		{ .kind = HWT_NAME_TASK, .id = 1, .tgid = 1, .name = "init" },
		{ .kind = HWT_NAME_IRQ, .id = 9, .name = "acpi" },
	};

	if (!fake_file(fd))
		return real_read(fd, buf, count);
	if (names_sent || count < sizeof(names))
		return 0;
	memcpy(buf, names, sizeof(names));
	names_sent = 1;
	return sizeof(names);
}

__attribute__((destructor)) static void report(void)
{
	uint64_t lost = 0, ow = 0;
	int n = 0;

	if (fake_fd < 0)
		return;
	for (int i = 0; i < MAXCHUNK; i++) {
		for (int cpu = 0; cpu < ncpu && chunks[i].r[cpu].meta; cpu++) {
			lost += chunks[i].r[cpu].lost;
			ow += chunks[i].r[cpu].overwritten;
		}
		n += chunks[i].used;
	}
	fprintf(stderr, "fake-hwtrace: produced=%llu lost=%llu overwritten=%llu chunks=%d filter=0x%x enabled=%d cpu_waits=%d\n",
		(unsigned long long)produced, (unsigned long long)lost,
		(unsigned long long)ow, n, filter, enabled, cpu_waits);
}
