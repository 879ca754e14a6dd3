// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace ioctl and mmap fuzzer, and what the kernel must never leak.
 *
 * fuzz: for HWT_FUZZ_SECS (default 20) seconds, several threads issue
 * random ioctls (every HWT_IOC_* and random command numbers) with random
 * arguments -- valid and invalid ids, sizes, flags; NULL, unmapped,
 * read-only, misaligned and page-crossing pointers -- while others record
 * (select, enable, inject, disable), mmap and munmap rings (also mremap and
 * fork), drain them, write garbage into the meta pages (data_tail above
 * all, which the kernel must treat as untrusted), read the name channel and
 * close and reopen the device.  The PRNG seed is printed; HWT_FUZZ_SEED
 * replays a run's choices (not its interleaving).  Every error code must be
 * one the ABI documents.  Afterwards the device is reset, must work, and
 * (with HWT_KO set, as in the VM) the module must unload and load again.
 *
 * no_stale_bytes: every structure an _IOR/_IOWR ioctl or read(2) returns
 * has its reserved and padding bytes zeroed, and copies no more than asked.
 * fresh_pages_zeroed: the meta and data pages of a new chunk are zero, even
 * when the memory of a just deleted, full chunk is reused.
 */
#include "hwt_test.h"
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "hwt_watchdog.h"
#include "kselftest_harness.h"

#define FD_BASE		200	/* fds FD_BASE.. always name /dev/hwtrace (or nothing) */
#define NR_FDS		3
#define NR_IOCTLERS	3
#define MAX_MAPS	48
#define MAX_CPUS	64
#define MAX_ERRORS	8
#define PG		4096UL

static void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
	r->s = (seed ^ (stream * 0x9E3779B97F4A7C15ULL)) | 1;
	for (int i = 0; i < 8; i++)
		rnd(r);
}

struct ring_map {
	struct hwt_ring_meta *meta;
	const struct hwt_event *data;
	size_t data_len;
	uint32_t nr_slots;
};

struct fuzz {
	uint64_t seed;
	int ncpu;
	volatile bool stop;
	pthread_rwlock_t lock;		/* maps: readers use them, writers unmap */
	struct ring_map maps[MAX_MAPS];
	char *rw;			/* 4 RW pages, then a PROT_NONE page */
	char *ro;			/* a read-only page */
	char *none;			/* an inaccessible page */
	pthread_mutex_t err_lock;
	int nr_errors;
	char errors[MAX_ERRORS][160];
	/* statistics */
	uint64_t ioctls, ioctl_ok, mmaps, mmap_ok, munmaps, drained, garbage,
		 reopens, forks, reads, enables;
};

#define STAT(f, field)	__atomic_add_fetch(&(f)->field, 1, __ATOMIC_RELAXED)

static void report(struct fuzz *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(struct fuzz *f, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&f->err_lock);
	if (f->nr_errors < MAX_ERRORS) {
		va_start(ap, fmt);
		vsnprintf(f->errors[f->nr_errors], sizeof(f->errors[0]), fmt, ap);
		va_end(ap);
	}
	f->nr_errors++;
	pthread_mutex_unlock(&f->err_lock);
}

static const unsigned long hwt_cmds[] = {
	HWT_IOC_GET_VERSION, HWT_IOC_ENABLE, HWT_IOC_DISABLE,
	HWT_IOC_CHUNK_CREATE, HWT_IOC_CHUNK_DELETE, HWT_IOC_SET_CHUNK_FLAGS,
	HWT_IOC_GET_CHUNK_FLAGS, HWT_IOC_CHUNK_SELECT, HWT_IOC_CHUNK_LINK,
	HWT_IOC_GET_FIRST_CHUNK, HWT_IOC_CHUNK_TABLE, HWT_IOC_SET_FILTER,
	HWT_IOC_GET_FILTER, HWT_IOC_LOG_EVENT, HWT_IOC_RING_INFO,
	HWT_IOC_SET_CLOCK, HWT_IOC_PROBE_INFO, HWT_IOC_PERSIST_INFO,
	HWT_IOC_PERSIST_RELEASE, HWT_IOC_POLL_CPU,
};

#define NR_CMDS	(sizeof(hwt_cmds) / sizeof(hwt_cmds[0]))

/* The errors Documentation/hwtrace.rst lists; anything else is a bug. */
static bool documented_errno(int e)
{
	switch (e) {
	case EINVAL: case ENOENT: case EBUSY: case EPERM: case EFAULT:
	case ENOTTY: case ENOMEM: case ENOSPC: case EOPNOTSUPP:
	case EBADF:	/* the fd was being reopened */
		return true;
	}
	return false;
}

/*
 * ioctl types the VFS itself handles before the driver (do_vfs_ioctl:
 * FIONBIO, FIFREEZE, FS_IOC_*, FICLONE, FIGETBSZ, ...): random commands
 * avoid them, or the fuzzer would freeze /dev's filesystem.
 */
static bool vfs_type(unsigned int type)
{
	return type == 'T' || type == 'X' || type == 'f' || type == 0x94 || type == 0;
}

/*
 * Commands that attach or detach tracepoint probes (enable, disable, filter
 * changes) or flip the clock's static key patch kernel text.  Under QEMU
 * TCG with several vCPUs, patching text at a high rate sooner or later
 * leaves a vCPU executing a stale translation of a removed int3 for ever
 * (seen with QEMU 7.2: both vCPUs trap at a patch site whose bytes are
 * already a NOP, and the kernel's int3 handler retries the instruction),
 * which freezes the guest.  So at most one of them runs every
 * PATCH_GAP_MS, from any thread; the rest of the time the fuzzers pick
 * another command.
 */
#define PATCH_GAP_MS	250

static uint64_t next_patch_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* May this thread patch kernel text now?  Claims the slot if so. */
static bool patch_slot(void)
{
	uint64_t now = now_ns(), next = __atomic_load_n(&next_patch_ns, __ATOMIC_RELAXED);

	return now >= next &&
	       __atomic_compare_exchange_n(&next_patch_ns, &next,
					   now + PATCH_GAP_MS * 1000000ULL, false,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static bool patches_text(unsigned long c)
{
	return c == HWT_IOC_ENABLE || c == HWT_IOC_DISABLE || c == HWT_IOC_SET_FILTER ||
	       c == HWT_IOC_SET_CLOCK;
}

static unsigned long random_cmd(struct rng *r)
{
	unsigned long c = hwt_cmds[below(r, NR_CMDS)];
	unsigned int type;

	while (patches_text(c) && !patch_slot())
		c = hwt_cmds[below(r, NR_CMDS)];

	switch (below(r, 10)) {
	case 0:	/* our magic, anything else random */
		return _IOC(below(r, 4), HWT_IOC_MAGIC, below(r, 0x30), below(r, 0x400));
	case 1:	/* a known command with the wrong size or direction */
		return _IOC(below(r, 4), HWT_IOC_MAGIC, _IOC_NR(c), below(r, 300));
	case 2:
		do {
			c = (unsigned long)(uint32_t)rnd(r);
			type = _IOC_TYPE(c);
		} while (vfs_type(type));
		return c;
	default:
		return c;
	}
}

static uint64_t random_u64(struct rng *r)
{
	static const uint64_t edges[] = {
		0, 1, 15, 16, 17, 63, 64, 4095, 4096, 1ULL << 31, 1ULL << 32,
		UINT32_MAX, UINT64_MAX, UINT64_MAX - 15, 1ULL << 62, INT64_MAX,
	};

	switch (below(r, 4)) {
	case 0:
		return edges[below(r, sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return rnd(r);
	default:
		return below(r, 2048);
	}
}

static int32_t random_id(struct rng *r)
{
	switch (below(r, 8)) {
	case 0:
		return -1;
	case 1:
		return (int32_t)rnd(r);
	case 2:
		return 250 + below(r, 10);
	default:
		return below(r, 12);
	}
}

/* A plausible (often valid, sometimes not) argument structure for cmd. */
static void fill_struct(struct rng *r, unsigned long cmd, void *buf, size_t len,
			char *table_buf, size_t table_len)
{
	memset(buf, 0, len);
	if (!below(r, 8)) {	/* pure noise, reserved fields included */
		for (size_t i = 0; i < len; i++)
			((uint8_t *)buf)[i] = (uint8_t)rnd(r);
		return;
	}
	switch (cmd) {
	case HWT_IOC_CHUNK_CREATE: {
		struct hwt_chunk_create *c = buf;

		c->normal_size = below(r, 6) ? 16 * (1 + below(r, 600)) : random_u64(r);
		c->emergency_size = below(r, 6) ? 16 * (4 + below(r, 8)) : random_u64(r);
		c->flags = below(r, 4) ? below(r, 0x80) & HWT_CHUNK_USER_FLAGS :
					 (uint32_t)rnd(r);
		break;
	}
	case HWT_IOC_SET_CHUNK_FLAGS:
	case HWT_IOC_GET_CHUNK_FLAGS: {
		struct hwt_chunk_flags *fl = buf;

		fl->id = random_id(r);
		fl->flags = below(r, 4) ? below(r, 0x80) : (uint32_t)rnd(r);
		break;
	}
	case HWT_IOC_CHUNK_LINK: {
		struct hwt_chunk_link *l = buf;

		l->from = random_id(r);
		l->to = random_id(r);
		break;
	}
	case HWT_IOC_CHUNK_TABLE: {
		struct hwt_chunk_table *t = buf;

		switch (below(r, 4)) {
		case 0:
			t->entries = random_u64(r);
			break;
		case 1:	/* room to the end of the buffer, then a guard page */
			t->entries = (uintptr_t)(table_buf + table_len) -
				     sizeof(struct hwt_chunk_stat) * (1 + below(r, 4));
			break;
		default:
			t->entries = (uintptr_t)table_buf;
		}
		t->nr_entries = below(r, 4) ? below(r, table_len / sizeof(struct hwt_chunk_stat) + 8) :
					      (uint32_t)rnd(r);
		t->reserved = !below(r, 8);
		break;
	}
	case HWT_IOC_SET_FILTER: {
		struct hwt_filter *fi = buf;

		fi->family = below(r, 8) ? below(r, 18) : (uint32_t)rnd(r);
		fi->status = below(r, 8) ? below(r, 2) : (uint32_t)rnd(r);
		break;
	}
	case HWT_IOC_LOG_EVENT: {
		struct hwt_log *lg = buf;

		lg->code = below(r, 4) ? (below(r, 2) ? 0x09 : 0x01) | below(r, 16) << 4 :
					 (uint16_t)rnd(r);
		lg->par1 = (uint16_t)rnd(r);
		lg->par2 = (uint32_t)rnd(r);
		break;
	}
	case HWT_IOC_RING_INFO: {
		struct hwt_ring_info *ri = buf;

		ri->chunk = random_id(r);
		ri->cpu = below(r, 4) ? below(r, 4) : (uint32_t)rnd(r);
		ri->reserved[0] = !below(r, 8);
		break;
	}
	case HWT_IOC_PROBE_INFO: {
		struct hwt_probe_info *pi = buf;

		pi->index = below(r, 4) ? below(r, 80) : (uint32_t)rnd(r);
		pi->reserved = !below(r, 8);
		break;
	}
	default:
		break;
	}
}

struct ioctler {
	pthread_t thread;
	struct fuzz *f;
	int idx;
	char *buf;		/* a page of our own in f->rw */
};

static unsigned long random_arg(struct ioctler *t, struct rng *r, unsigned long cmd)
{
	struct fuzz *f = t->f;
	size_t size = _IOC_SIZE(cmd);

	if (_IOC_DIR(cmd) == _IOC_NONE || !below(r, 6)) {
		/* value commands take ids, flags, clocks */
		switch (below(r, 3)) {
		case 0:
			return (unsigned long)random_id(r);
		case 1:
			return (unsigned long)random_u64(r);
		default:
			return below(r, 3);
		}
	}
	switch (below(r, 12)) {
	case 0:
		return 0;
	case 1:
		return (unsigned long)(f->none + below(r, PG));
	case 2:	/* readable, not writable: fine for _IOW, EFAULT for _IOR */
		return (unsigned long)(f->ro + below(r, PG - size));
	case 3:	/* the structure runs into the guard page */
		return (unsigned long)(f->rw + 4 * PG - below(r, size + 1));
	case 4:	/* a kernel address */
		return 0xffff888000000000UL + (rnd(r) & 0xFFFFF0);
	case 5:
		return (unsigned long)rnd(r);
	default: {
		/* a plausible structure, sometimes misaligned */
		char *p = t->buf + (below(r, 4) ? 0 : 1 + below(r, 7));

		fill_struct(r, cmd, p, size < 512 ? size : 512, t->buf + 1024, PG - 1024);
		return (unsigned long)p;
	}
	}
}

static void *ioctl_thread(void *arg)
{
	struct ioctler *t = arg;
	struct fuzz *f = t->f;
	struct rng r;

	rng_init(&r, f->seed, 100 + t->idx);
	while (!f->stop) {
		unsigned long cmd = random_cmd(&r);
		unsigned long a = random_arg(t, &r, cmd);
		int fd = FD_BASE + below(&r, NR_FDS);
		long ret;

		/* enabling with every family unfiltered floods the rings: fine */
		ret = ioctl(fd, cmd, a);
		STAT(f, ioctls);
		if (ret >= 0)
			STAT(f, ioctl_ok);
		else if (!documented_errno(errno))
			report(f, "ioctl(%#lx, %#lx) = %s", cmd, a, strerror(errno));
	}
	return NULL;
}

/* select some chunk, enable, inject a burst, maybe change filters, disable */
static void *record_thread(void *arg)
{
	struct fuzz *f = arg;
	struct rng r;

	rng_init(&r, f->seed, 1);
	while (!f->stop) {
		int fd = FD_BASE + below(&r, NR_FDS);
		long id = ioctl(fd, HWT_IOC_GET_FIRST_CHUNK, HWT_CHUNK_FREE);

		if (id < 0 || !below(&r, 4))
			id = hwt_create(fd, 16 * (8 + below(&r, 256)), 64,
					below(&r, 3) == 0 ? HWT_CHUNK_CYC :
					below(&r, 2) ? HWT_CHUNK_STOP : HWT_CHUNK_JTN);
		if (id >= 0)
			ioctl(fd, HWT_IOC_CHUNK_SELECT, id);
		if (!below(&r, 3) && patch_slot())
			hwt_filter(fd, below(&r, HWT_NR_FAMILIES), below(&r, 2));
		if (patch_slot() && !ioctl(fd, HWT_IOC_ENABLE, 0))
			STAT(f, enables);
		hwt_pin(below(&r, f->ncpu));
		for (int i = below(&r, 200); i > 0; i--)
			hwt_log(fd, HWT_EV_USER_EVENT_0 | below(&r, 15) << 4, i, (uint32_t)rnd(&r));
		if (below(&r, 4) && patch_slot())
			ioctl(fd, HWT_IOC_DISABLE, 0);
		usleep(1000);
	}
	return NULL;
}

static int add_map(struct fuzz *f, struct ring_map *m)
{
	int ret = -ENOSPC;

	pthread_rwlock_wrlock(&f->lock);
	for (int i = 0; i < MAX_MAPS; i++) {
		if (!f->maps[i].meta) {
			f->maps[i] = *m;
			ret = 0;
			break;
		}
	}
	pthread_rwlock_unlock(&f->lock);
	return ret;
}

static void drop_map(struct ring_map *m)
{
	if (m->data)
		munmap((void *)m->data, m->data_len);
	if (m->meta)
		munmap(m->meta, PG);
	memset(m, 0, sizeof(*m));
}

/* Map rings (rightly and wrongly), unmap, mremap, fork with them mapped. */
static void *mmap_thread(void *arg)
{
	struct fuzz *f = arg;
	struct rng r;

	rng_init(&r, f->seed, 2);
	while (!f->stop) {
		int fd = FD_BASE + below(&r, NR_FDS);
		struct hwt_ring_info info = {
			.chunk = below(&r, 12), .cpu = below(&r, f->ncpu + 1),
		};
		struct ring_map m = { 0 };
		unsigned int what = below(&r, 10);
		void *p;


		if (what < 4) {
			if (ioctl(fd, HWT_IOC_RING_INFO, &info))
				continue;
			STAT(f, mmaps);
			p = mmap(NULL, info.meta_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, (off_t)info.meta_offset);
			if (p == MAP_FAILED)
				continue;
			m.meta = p;
			p = mmap(NULL, info.data_size, PROT_READ, MAP_SHARED, fd,
				 (off_t)info.data_offset);
			if (p == MAP_FAILED) {
				munmap(m.meta, PG);
				continue;
			}
			STAT(f, mmap_ok);
			m.data = p;
			m.data_len = info.data_size;
			m.nr_slots = info.nr_slots;
			if (add_map(f, &m))
				drop_map(&m);
		} else if (what < 7) {
			int i = below(&r, MAX_MAPS);

			pthread_rwlock_wrlock(&f->lock);
			if (f->maps[i].meta) {
				drop_map(&f->maps[i]);
				STAT(f, munmaps);
			}
			pthread_rwlock_unlock(&f->lock);
		} else if (what == 7) {
			/* wrong length, prot, offset; partial munmap; mprotect */
			off_t off = (off_t)HWT_MMAP_OFFSET(info.chunk, info.cpu,
							   below(&r, 2)) + below(&r, 3) * PG;
			size_t len = PG * (1 + below(&r, 3));

			p = mmap(NULL, len, PROT_READ | (below(&r, 2) ? PROT_WRITE : 0),
				 MAP_SHARED, fd, off);
			if (p != MAP_FAILED) {
				mprotect(p, len, PROT_READ | PROT_WRITE);
				munmap(p, PG);
				if (len > PG)
					munmap((char *)p + PG, len - PG);
			}
		} else if (what == 8) {
			/* move a meta page elsewhere: the vma is copied and closed */
			int i = below(&r, MAX_MAPS);

			pthread_rwlock_wrlock(&f->lock);
			if (f->maps[i].meta) {
				p = mremap(f->maps[i].meta, PG, PG, MREMAP_MAYMOVE);
				if (p != MAP_FAILED)
					f->maps[i].meta = p;
			}
			pthread_rwlock_unlock(&f->lock);
		} else {
			/* a child inherits every mapping and drops them at exit */
			pid_t pid;

			pthread_rwlock_rdlock(&f->lock);
			pid = fork();
			if (pid == 0) {
				volatile uint64_t sum = 0;

				for (int i = 0; i < MAX_MAPS; i++)
					if (f->maps[i].meta)
						sum += f->maps[i].meta->data_head +
						       f->maps[i].data[0].par2;
				_exit(0);
			}
			pthread_rwlock_unlock(&f->lock);
			if (pid > 0) {
				waitpid(pid, NULL, 0);
				STAT(f, forks);
			}
		}
	}
	return NULL;
}

/* Drain like a consumer that distrusts the meta page, as it must. */
static void *drain_thread(void *arg)
{
	struct fuzz *f = arg;

	while (!f->stop) {
		pthread_rwlock_rdlock(&f->lock);
		for (int i = 0; i < MAX_MAPS; i++) {
			struct ring_map *m = &f->maps[i];
			uint64_t span, head, tail;
			volatile uint32_t sink = 0;

			if (!m->meta)
				continue;
			span = 2ull * m->nr_slots;
			head = __atomic_load_n(&m->meta->data_head, __ATOMIC_ACQUIRE);
			tail = __atomic_load_n(&m->meta->data_tail, __ATOMIC_RELAXED);
			if (head >= span)
				continue;	/* someone scribbled over it */
			if (tail >= span)
				tail = head;
			while (tail != head) {
				sink += m->data[tail < m->nr_slots ? tail : tail - m->nr_slots].code;
				tail = tail + 1 == span ? 0 : tail + 1;
				STAT(f, drained);
			}
			__atomic_store_n(&m->meta->data_tail, tail, __ATOMIC_RELEASE);
		}
		pthread_rwlock_unlock(&f->lock);
		usleep(1000);
	}
	return NULL;
}

/* The consumer position (and the rest of the meta page) is ours to garble. */
static void *garbage_thread(void *arg)
{
	struct fuzz *f = arg;
	struct rng r;

	rng_init(&r, f->seed, 3);
	while (!f->stop) {
		int i = below(&r, MAX_MAPS);

		pthread_rwlock_rdlock(&f->lock);
		if (f->maps[i].meta) {
			struct hwt_ring_meta *m = f->maps[i].meta;
			uint64_t n = f->maps[i].nr_slots;
			uint64_t head = m->data_head;
			const uint64_t tails[] = {
				rnd(&r), UINT64_MAX, 2 * n, 2 * n - 1, 2 * n + 1, n,
				head + 1, head - n - 1, head + n, 1ULL << 63,
				(uint32_t)rnd(&r), head,
			};

			m->data_tail = tails[below(&r, sizeof(tails) / sizeof(tails[0]))];
			if (!below(&r, 8))	/* kernel-written fields too */
				((uint64_t *)m)[below(&r, PG / 8)] = rnd(&r);
			STAT(f, garbage);
		}
		pthread_rwlock_unlock(&f->lock);
		usleep(below(&r, 2000));
	}
	return NULL;
}

/* Close and reopen the device under the other threads' feet. */
static void *reopen_thread(void *arg)
{
	struct fuzz *f = arg;
	struct rng r;

	rng_init(&r, f->seed, 4);
	while (!f->stop) {
		int slot = FD_BASE + below(&r, NR_FDS), fd;

		close(slot);
		usleep(below(&r, 3000));
		fd = hwt_open();
		if (fd < 0) {
			report(f, "reopen: %s", strerror(errno));
			break;
		}
		if (dup2(fd, slot) < 0)
			report(f, "dup2: %s", strerror(errno));
		close(fd);
		STAT(f, reopens);
		usleep(below(&r, 20000));
	}
	return NULL;
}

/* read(2) of the name channel with every kind of buffer. */
static void *read_thread(void *arg)
{
	struct fuzz *f = arg;
	struct rng r;
	char *buf = f->rw + 3 * PG;

	rng_init(&r, f->seed, 5);
	while (!f->stop) {
		int fd = FD_BASE + below(&r, NR_FDS);
		size_t len = below(&r, 4) ? sizeof(struct hwt_name) * (1 + below(&r, 20)) :
					    below(&r, 200);
		char *p;
		ssize_t n;

		switch (below(&r, 5)) {
		case 0:
			p = NULL;
			break;
		case 1:
			p = f->ro;
			break;
		case 2:	/* runs into the guard page */
			p = f->rw + 4 * PG - below(&r, 3 * sizeof(struct hwt_name));
			break;
		default:
			p = buf;
			len = len < PG ? len : PG;
		}
		n = read(fd, p, len);
		STAT(f, reads);
		if (n < 0 && errno != EINVAL && errno != EFAULT && errno != EBADF)
			report(f, "read(%zu) = %s", len, strerror(errno));
		else if (n > 0 && n % sizeof(struct hwt_name))
			report(f, "read(%zu) returned %zd: not whole records", len, n);
		usleep(below(&r, 5000));
	}
	return NULL;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static int unload(void)
{
	return syscall(SYS_delete_module, "hwtrace", O_NONBLOCK) ? -errno : 0;
}

static int load(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* A normal trace after all that: create, map, enable, inject, drain. */
static void round_trip(struct __test_metadata *_metadata, int fd)
{
	struct hwt_event ev[64];
	struct hwt_map m = { 0 };
	int id, n, got = 0;

	ASSERT_EQ(0, hwt_pin(0));
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	id = hwt_create(fd, 32 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_map(fd, id, 0, &m));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	for (int i = 0; i < 10; i++) {
		ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_5, 1, i));
	}
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
	n = (int)hwt_drain(&m, ev, 64);
	for (int i = 0; i < n; i++) {
		if (ev[i].code == HWT_EV_USER_EVENT_5) {
			EXPECT_EQ((uint32_t)got, ev[i].par2);
			got++;
		}
	}
	EXPECT_EQ(10, got);
	EXPECT_EQ(0, m.meta->lost);
	hwt_unmap(&m);
	hwt_reset(fd);
}

FIXTURE(fz) {
};

FIXTURE_SETUP(fz)
{
}

FIXTURE_TEARDOWN(fz)
{
}

TEST_F_TIMEOUT(fz, fuzz, 600)
{
	uint64_t secs = env_u64("HWT_FUZZ_SECS", 20);
	struct ioctler io[NR_IOCTLERS];
	pthread_t rec, mm, dr, gb, ro, rd;
	struct hwt_version v0, v;
	struct watchdog w;
	struct timespec ts;
	const char *ko;
	struct fuzz *f;
	char *area;
	int fd;

	f = calloc(1, sizeof(*f));
	ASSERT_NE(NULL, f);
	clock_gettime(CLOCK_REALTIME, &ts);
	f->seed = env_u64("HWT_FUZZ_SEED", (uint64_t)ts.tv_sec * 1000003 ^ ts.tv_nsec ^ getpid());
	TH_LOG("seed %llu (HWT_FUZZ_SEED=%llu replays the choices), %llu s",
	       (unsigned long long)f->seed, (unsigned long long)f->seed,
	       (unsigned long long)secs);
	pthread_rwlock_init(&f->lock, NULL);
	pthread_mutex_init(&f->err_lock, NULL);
	/* the fuzzing, then reset, round trip and reload: a minute is plenty */
	watchdog_start(&w, secs + 120, "fuzz");

	area = mmap(NULL, 7 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	f->rw = area;
	f->ro = area + 5 * PG;
	f->none = area + 6 * PG;
	memset(f->ro, 0x5A, PG);
	ASSERT_EQ(0, mprotect(area + 4 * PG, PG, PROT_NONE));
	ASSERT_EQ(0, mprotect(f->ro, PG, PROT_READ));
	ASSERT_EQ(0, mprotect(f->none, PG, PROT_NONE));

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_VERSION, (unsigned long)&v0));
	f->ncpu = v0.nr_cpus < MAX_CPUS ? v0.nr_cpus : MAX_CPUS;
	for (int i = 0; i < NR_FDS; i++) {
		int nfd = hwt_open();

		ASSERT_LE(0, nfd);
		ASSERT_EQ(FD_BASE + i, dup2(nfd, FD_BASE + i));
		close(nfd);
	}

	for (int i = 0; i < NR_IOCTLERS; i++) {
		io[i] = (struct ioctler){ .f = f, .idx = i, .buf = f->rw + i * PG };
		ASSERT_EQ(0, pthread_create(&io[i].thread, NULL, ioctl_thread, &io[i]));
	}
	ASSERT_EQ(0, pthread_create(&rec, NULL, record_thread, f));
	ASSERT_EQ(0, pthread_create(&mm, NULL, mmap_thread, f));
	ASSERT_EQ(0, pthread_create(&dr, NULL, drain_thread, f));
	ASSERT_EQ(0, pthread_create(&gb, NULL, garbage_thread, f));
	ASSERT_EQ(0, pthread_create(&ro, NULL, reopen_thread, f));
	ASSERT_EQ(0, pthread_create(&rd, NULL, read_thread, f));
	sleep(secs);
	f->stop = true;
	for (int i = 0; i < NR_IOCTLERS; i++)
		pthread_join(io[i].thread, NULL);
	pthread_join(rec, NULL);
	pthread_join(mm, NULL);
	pthread_join(dr, NULL);
	pthread_join(gb, NULL);
	pthread_join(ro, NULL);
	pthread_join(rd, NULL);

	TH_LOG("%llu ioctls (%llu ok), %llu enables, %llu mmaps (%llu ok), %llu munmaps, "
	       "%llu forks, %llu records drained, %llu garbage writes, %llu reopens, %llu reads",
	       (unsigned long long)f->ioctls, (unsigned long long)f->ioctl_ok,
	       (unsigned long long)f->enables, (unsigned long long)f->mmaps,
	       (unsigned long long)f->mmap_ok, (unsigned long long)f->munmaps,
	       (unsigned long long)f->forks, (unsigned long long)f->drained,
	       (unsigned long long)f->garbage, (unsigned long long)f->reopens,
	       (unsigned long long)f->reads);
	for (int i = 0; i < f->nr_errors && i < MAX_ERRORS; i++)
		TH_LOG("%s", f->errors[i]);
	EXPECT_EQ(0, f->nr_errors);
	EXPECT_LT(0, f->ioctl_ok);

	/* everything goes: no mapping, no other fd */
	for (int i = 0; i < MAX_MAPS; i++)
		drop_map(&f->maps[i]);
	for (int i = 0; i < NR_FDS; i++)
		close(FD_BASE + i);

	/* the device is whole: a reset empties it and a trace works */
	hwt_reset(fd);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(0, v.enabled);
	EXPECT_EQ(0, v.used_memory);
	EXPECT_EQ(-ENOENT, hwt_ioc(fd, HWT_IOC_GET_FIRST_CHUNK, 0));
	if (v.clock != v0.clock) {
		EXPECT_EQ(0, hwt_ioc(fd, HWT_IOC_SET_CLOCK, v0.clock));
	}
	round_trip(_metadata, fd);
	close(fd);

	/* no reference was leaked: the module unloads (and comes back) */
	ko = getenv("HWT_KO");
	if (ko) {
		EXPECT_EQ(0, unload()) TH_LOG("rmmod after fuzzing: %s", strerror(errno));
		ASSERT_EQ(0, load(ko));
	} else {
		TH_LOG("HWT_KO not set: module unload not checked");
	}
	munmap(area, 7 * PG);
	free(f);
	watchdog_stop(&w);
}

/* No byte the kernel returns is stale: reserved, padding, beyond room. */
/*
 * Every command of the UAPI reaches its handler: whatever a zeroed argument
 * makes it answer, it is never -ENOTTY, which only unknown numbers get.
 */
TEST(every_command_known)
{
	static char arg[4096] __attribute__((aligned(64)));
	int fd = hwt_open();

	ASSERT_LE(0, fd);
	for (size_t i = 0; i < NR_CMDS; i++) {
		memset(arg, 0, sizeof(arg));
		EXPECT_NE(-ENOTTY, hwt_ioc(fd, hwt_cmds[i], (unsigned long)arg)) {
			TH_LOG("command 0x%lx answered -ENOTTY", hwt_cmds[i]);
		}
		hwt_reset(fd);
	}
	close(fd);
}

TEST(no_stale_bytes)
{
	struct hwt_chunk_stat st[3 * MAX_CPUS];
	struct hwt_chunk_table t;
	struct hwt_version v;
	struct hwt_name names[64];
	struct hwt_chunk_create c = { 0 };
	struct hwt_chunk_flags fl;
	struct hwt_ring_info ri;
	uint32_t mask[2];
	int fd, ncpu, a, b;
	ssize_t n;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);

	memset(&v, 0xAA, sizeof(v));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_GE(v.nr_cpus, v.nr_online_cpus);
	EXPECT_EQ(0, v.reserved[0]);
	/* a count, not the 0xAA filler: the field was written */
	EXPECT_NE(0xAAAAAAAAAAAAAAAAull, v.prio_missed);
	EXPECT_EQ(0, v.enabled);
	EXPECT_EQ(0, v.filter_mask >> 16);
	ncpu = (int)v.nr_cpus;
	ASSERT_GE(MAX_CPUS, ncpu);

	c.normal_size = 64 * REC;
	c.emergency_size = 4 * REC;
	c.flags = HWT_CHUNK_STOP;
	c.id = (int32_t)0xAAAAAAAA;
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_CREATE, (unsigned long)&c));
	a = c.id;
	EXPECT_LE(0, a);
	EXPECT_EQ(0, c.reserved[0]);
	EXPECT_EQ(0, c.reserved[1]);
	EXPECT_EQ(64 * REC, c.normal_size);
	b = hwt_create(fd, 32 * REC, 4 * REC, HWT_CHUNK_JTN);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, hwt_link(fd, a, b));

	fl.id = a;
	fl.flags = 0xAAAAAAAA;
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_CHUNK_FLAGS, (unsigned long)&fl));
	EXPECT_EQ(0, fl.flags & ~(HWT_CHUNK_USER_FLAGS | HWT_CHUNK_FULL | HWT_CHUNK_BUSY));
	EXPECT_EQ((uint32_t)a, fl.id);

	/* room for fewer entries than exist: nothing beyond the room is written */
	memset(st, 0xAA, sizeof(st));
	t = (struct hwt_chunk_table){ .entries = (uintptr_t)st, .nr_entries = ncpu + 1 };
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_TABLE, (unsigned long)&t));
	EXPECT_EQ(2 * ncpu, t.nr_entries);
	EXPECT_EQ(0, t.reserved);
	for (int i = 0; i < ncpu + 1; i++) {
		EXPECT_EQ(0, st[i].reserved[0]);
		EXPECT_EQ(0, st[i].reserved[1]);
		EXPECT_EQ(0, st[i].flags & ~(HWT_CHUNK_USER_FLAGS | HWT_CHUNK_FULL |
					     HWT_CHUNK_BUSY));
	}
	for (size_t i = ncpu + 1; i < sizeof(st) / sizeof(st[0]); i++) {
		const uint8_t *p = (const uint8_t *)&st[i];

		for (size_t j = 0; j < sizeof(st[i]); j++)
			if (p[j] != 0xAA) {
				EXPECT_EQ(0xAA, p[j]) TH_LOG("entry %zu byte %zu written beyond the room", i, j);
				break;
			}
	}

	/* a u32 out: the next word is not touched */
	mask[0] = mask[1] = 0xAAAAAAAA;
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_FILTER, (unsigned long)mask));
	EXPECT_EQ(0, mask[0] >> 16);
	EXPECT_EQ(0xAAAAAAAA, mask[1]);

	memset(&ri, 0xAA, sizeof(ri));
	ri.chunk = a;
	ri.cpu = 0;
	ri.reserved[0] = ri.reserved[1] = 0;
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_RING_INFO, (unsigned long)&ri));
	EXPECT_EQ(0, ri.reserved[0]);
	EXPECT_EQ(0, ri.reserved[1]);
	EXPECT_EQ(4096, ri.meta_size);

	for (uint32_t i = 0; i < v.nr_probes; i++) {
		struct hwt_probe_info pi;
		size_t len;

		memset(&pi, 0xAA, sizeof(pi));
		pi.index = i;
		pi.reserved = 0;
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_PROBE_INFO, (unsigned long)&pi));
		EXPECT_EQ(0, pi.reserved);
		EXPECT_EQ(0, pi.flags & ~(HWT_PROBE_AVAILABLE | HWT_PROBE_ATTACHED));
		EXPECT_GE(HWT_NR_FAMILIES, pi.family);
		len = strnlen(pi.tracepoint, sizeof(pi.tracepoint));
		ASSERT_GT(sizeof(pi.tracepoint), len);
		for (size_t j = len; j < sizeof(pi.tracepoint); j++)
			if (pi.tracepoint[j]) {
				EXPECT_EQ(0, pi.tracepoint[j]) TH_LOG("probe %u: byte %zu after the name", i, j);
				break;
			}
	}

	/* name records: enabling queues one per task */
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, a));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
	do {
		memset(names, 0xAA, sizeof(names));
		n = read(fd, names, sizeof(names));
		ASSERT_LE(0, n);
		ASSERT_EQ(0, n % sizeof(names[0]));
		for (size_t i = 0; i < n / sizeof(names[0]); i++) {
			size_t len = strnlen(names[i].name, HWT_NAME_LEN);

			EXPECT_TRUE(names[i].kind == HWT_NAME_TASK || names[i].kind == HWT_NAME_IRQ);
			EXPECT_EQ(0, names[i].reserved);
			ASSERT_GT(HWT_NAME_LEN, len);
			for (size_t j = len; j < HWT_NAME_LEN; j++)
				if (names[i].name[j]) {
					EXPECT_EQ(0, names[i].name[j])
						TH_LOG("name %u: byte %zu after the name", names[i].id, j);
					break;
				}
		}
		/* nothing beyond what read() returned */
		for (size_t i = n / sizeof(names[0]); i < 64; i++) {
			EXPECT_EQ(0xAAAAAAAA, names[i].kind);
		}
	} while (n > 0 && _metadata->passed);
	hwt_reset(fd);
	close(fd);
}

/* True if the bytes [from, to) of p are all zero; logs the first that is not. */
static bool zero_bytes(struct __test_metadata *_metadata, const void *p,
		       size_t from, size_t to, const char *what)
{
	for (size_t i = from; i < to; i++)
		if (((const uint8_t *)p)[i]) {
			TH_LOG("%s: byte %zu is %#x", what, i, ((const uint8_t *)p)[i]);
			return false;
		}
	return true;
}

/* Pages of a new chunk are zero, even on memory a full chunk just gave back. */
TEST_F_TIMEOUT(fz, fresh_pages_zeroed, 300)
{
	const size_t kw0 = offsetof(struct hwt_ring_meta, data_head);
	const size_t user = offsetof(struct hwt_ring_meta, data_tail);
	int fd, ncpu;

	fd = hwt_open();
	ASSERT_LE(0, fd);
	hwt_reset(fd);
	ncpu = hwt_nr_cpus(fd);
	ASSERT_LT(0, ncpu);
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));

	for (int round = 0; round < 4; round++) {
		/* 1: a chunk full of non-zero records, then deleted */
		int old = hwt_create(fd, 1020 * REC, 4 * REC, HWT_CHUNK_CYC);
		int id;

		ASSERT_LE(0, old);
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, old));
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
		for (int c = 0; c < ncpu; c++) {
			if (!hwt_cpu_online(c) || hwt_pin(c))
				continue;
			for (int i = 0; i < 1100; i++)
				hwt_log(fd, HWT_EV_USER_EVENT_14, 0xFFFF, 0xFFFFFFFF);
		}
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, HWT_NO_CHUNK));
		ASSERT_EQ(0, hwt_set_flags(fd, old, HWT_CHUNK_CYC | HWT_CHUNK_FREE));
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_DELETE, old));

		/* 2: a new chunk, same size or not: every byte is fresh */
		id = hwt_create(fd, (round & 1 ? 1020 : 250) * REC, 4 * REC, HWT_CHUNK_STOP);
		ASSERT_LE(0, id);
		for (int c = 0; c < ncpu; c++) {
			struct hwt_map m = { 0 };
			const struct hwt_ring_meta *meta;
			char what[64];

			ASSERT_EQ(0, hwt_map(fd, id, c, &m));
			meta = m.meta;
			snprintf(what, sizeof(what), "round %d cpu %d data", round, c);
			EXPECT_TRUE(zero_bytes(_metadata, m.data, 0, m.data_size, what));
			snprintf(what, sizeof(what), "round %d cpu %d meta", round, c);
			/* static part: reserved0 and the padding up to data_head */
			EXPECT_EQ(0, meta->reserved0[0]);
			EXPECT_EQ(0, meta->reserved0[1]);
			EXPECT_TRUE(zero_bytes(_metadata, meta,
					       offsetof(struct hwt_ring_meta, reserved0),
					       kw0, what));
			/* kernel-written part: nothing written yet */
			EXPECT_TRUE(zero_bytes(_metadata, meta, kw0, user, what));
			/* user part and the rest of the page */
			EXPECT_TRUE(zero_bytes(_metadata, meta, user, 4096, what));
			hwt_unmap(&m);
		}
		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_DELETE, id));
	}
	hwt_reset(fd);
	close(fd);
}

TEST_HARNESS_MAIN
