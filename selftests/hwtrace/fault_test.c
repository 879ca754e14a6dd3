// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace under allocation failure: chunk_create, open, mmap, enable and
 * filter changes must fail cleanly (-ENOMEM, nothing half done, nothing
 * leaked) or succeed, and the device must work normally afterwards.
 *
 * Two ways to fail allocations, both for this task only:
 *
 *  - fail-nth (/proc/thread-self/fail-nth = n): exactly the n-th allocation
 *    of the operation fails.  n runs from 1 upward until the operation gets
 *    through without reaching n, so every allocation site on its path fails
 *    once.
 *  - armed (failslab and fail_page_alloc with probability=100, interval=1,
 *    times=N, task-filter=Y, verbose=0, and make-it-fail=1): the first N
 *    allocations fail, for N = 1..ARMED_MAX, i.e. memory is short.
 *
 * Both need CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and
 * FAULT_INJECTION_DEBUG_FS (the debug kernel of `make check-debug`); on a
 * kernel without them every test is skipped.  Leaks are found by kmemleak,
 * which scripts/debug-kernel/vm-run.sh scans after the module is unloaded.
 *
 * vmalloc() reports a failed allocation with a stack dump (warn_alloc);
 * the test brackets its injections with "hwt-fault-injection: begin/end"
 * lines in the kernel log so that the log check can tell those expected
 * dumps from real reports.
 */
#include "hwt_test.h"
#include <stdarg.h>
#include <stdio.h>
#include "kselftest_harness.h"

#define DEBUGFS		"/sys/kernel/debug"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define MAKE_IT_FAIL	"/proc/thread-self/make-it-fail"
#define NTH_MAX		5000	/* allocations on one path: far fewer */
#define ARMED_MAX	12
#define MAX_PROBES	256

static const char *const fault_dirs[] = { "failslab", "fail_page_alloc" };

/* The attributes we change and restore: name, value while testing. */
static const char *const fault_attrs[][2] = {
	{ "probability", "0" },
	{ "interval", "1" },
	{ "times", "0" },
	{ "space", "0" },
	{ "verbose", "0" },
	{ "task-filter", "Y" },
	/* GFP_KERNEL allocations are exempt by default */
	{ "ignore-gfp-wait", "N" },
};

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : n < 0 ? -errno : -EIO;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int attr_path(char *path, size_t len, const char *dir, const char *attr)
{
	return snprintf(path, len, DEBUGFS "/%s/%s", dir, attr) < (int)len ? 0 : -1;
}

/* A line in the kernel log, so that the log check can bracket our dumps. */
static void kmsg(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, line, strlen(line)) < 0)
		line[0] = '\0';
	close(fd);
}

#define NR_SAVED	(2 * (sizeof(fault_attrs) / sizeof(fault_attrs[0]) + 2))

struct saved_attr {
	char path[128];
	char val[64];
};

FIXTURE(fault) {
	int fd;			/* the device, opened without faults */
	int nth_fd;		/* /proc/thread-self/fail-nth */
	int nr_saved;
	struct saved_attr saved[NR_SAVED];
	uint64_t used_memory;	/* baseline */
	uint32_t nr_entries;	/* chunk table baseline */
	/* per operation */
	int chunk;
	int newfd;
	void *map;
	size_t map_len;
	uint32_t family;
	uint32_t mask_before;
	/* results of one sweep */
	int sites, enomem, absorbed;
};

static int save_and_set(FIXTURE_DATA(fault) *self, const char *dir,
			const char *attr, const char *val)
{
	struct saved_attr *s = &self->saved[self->nr_saved];

	if (self->nr_saved >= (int)NR_SAVED || attr_path(s->path, sizeof(s->path), dir, attr))
		return -ENOSPC;
	if (read_str(s->path, s->val, sizeof(s->val)))
		return -errno;
	/* "times" reads back as a signed number; the rest as written */
	self->nr_saved++;
	return write_str(s->path, val);
}

static bool fault_available(void)
{
	char path[128];

	for (size_t i = 0; i < sizeof(fault_dirs) / sizeof(fault_dirs[0]); i++) {
		if (attr_path(path, sizeof(path), fault_dirs[i], "times") ||
		    access(path, W_OK))
			return false;
	}
	return !access(FAIL_NTH, W_OK) && !access(MAKE_IT_FAIL, W_OK);
}

FIXTURE_SETUP(fault)
{
	struct hwt_chunk_table t = { 0 };
	struct hwt_version v;

	self->nth_fd = -1;
	self->chunk = -1;
	self->newfd = -1;
	self->fd = hwt_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", HWT_DEV, strerror(errno));
	hwt_reset(self->fd);
	if (!fault_available())
		SKIP(return, "no fault injection (failslab, fail_page_alloc, fail-nth) on this kernel");
	for (size_t d = 0; d < sizeof(fault_dirs) / sizeof(fault_dirs[0]); d++)
		for (size_t a = 0; a < sizeof(fault_attrs) / sizeof(fault_attrs[0]); a++)
			ASSERT_EQ(0, save_and_set(self, fault_dirs[d], fault_attrs[a][0],
						  fault_attrs[a][1]));
	ASSERT_EQ(0, save_and_set(self, "failslab", "cache-filter", "N"));
	ASSERT_EQ(0, save_and_set(self, "fail_page_alloc", "min-order", "0"));
	ASSERT_EQ(0, save_and_set(self, "fail_page_alloc", "ignore-gfp-highmem", "N"));
	self->nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth_fd);

	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	self->used_memory = v.used_memory;
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_TABLE, (unsigned long)&t));
	self->nr_entries = t.nr_entries;
	kmsg("hwt-fault-injection: begin %s\n", _metadata->name);
}

FIXTURE_TEARDOWN(fault)
{
	if (self->nth_fd >= 0) {
		write_str(MAKE_IT_FAIL, "0");
		if (pwrite(self->nth_fd, "0", 1, 0) < 0)
			TH_LOG("cannot reset fail-nth");
		close(self->nth_fd);
		kmsg("hwt-fault-injection: end %s\n", _metadata->name);
	}
	/* restore in reverse: probability goes back to 0 before anything else */
	while (self->nr_saved > 0) {
		struct saved_attr *s = &self->saved[--self->nr_saved];

		write_str(s->path, s->val);
	}
	if (self->newfd >= 0)
		close(self->newfd);
	if (self->map)
		munmap(self->map, self->map_len);
	hwt_reset(self->fd);
	close(self->fd);
}

/* Fail the n-th allocation this thread makes from now on (0: none). */
static int set_nth(FIXTURE_DATA(fault) *self, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(self->nth_fd, buf, len, 0) == len ? 0 : -errno;
}

/* Allocations still to go before the failure; 0 once it was injected. */
static long get_nth(FIXTURE_DATA(fault) *self)
{
	char buf[16];
	ssize_t n = pread(self->nth_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/*
 * The files that arm and disarm, opened in advance: while armed, opening a
 * file is an allocation that fails.  Writing them allocates nothing.
 */
struct arm_fds {
	int make_it_fail;
	int times[2], probability[2];
};

static int open_arm_fds(struct arm_fds *a)
{
	char path[128];

	a->make_it_fail = open(MAKE_IT_FAIL, O_WRONLY | O_CLOEXEC);
	for (size_t i = 0; i < 2; i++) {
		attr_path(path, sizeof(path), fault_dirs[i], "times");
		a->times[i] = open(path, O_WRONLY | O_CLOEXEC);
		attr_path(path, sizeof(path), fault_dirs[i], "probability");
		a->probability[i] = open(path, O_WRONLY | O_CLOEXEC);
		if (a->times[i] < 0 || a->probability[i] < 0)
			return -errno;
	}
	return a->make_it_fail < 0 ? -errno : 0;
}

static void close_arm_fds(struct arm_fds *a)
{
	close(a->make_it_fail);
	for (size_t i = 0; i < 2; i++) {
		close(a->times[i]);
		close(a->probability[i]);
	}
}

/* write(), not pwrite(): debugfs attributes are not seekable (ESPIPE) */
static int put(int fd, const char *val)
{
	ssize_t n = write(fd, val, strlen(val));

	return n == (ssize_t)strlen(val) ? 0 : n < 0 ? -errno : -EIO;
}

/* The first `times` allocations of this thread fail, every one after works. */
static int arm(struct arm_fds *a, unsigned int times)
{
	char val[16];
	int ret = 0;

	snprintf(val, sizeof(val), "%u", times);
	for (size_t i = 0; i < 2; i++) {
		ret = ret ?: put(a->times[i], val);
		ret = ret ?: put(a->probability[i], "100");
	}
	return ret ?: put(a->make_it_fail, "1");
}

static int disarm(struct arm_fds *a)
{
	int ret = put(a->make_it_fail, "0");

	for (size_t i = 0; i < 2; i++) {
		ret = ret ?: put(a->probability[i], "0");
		ret = ret ?: put(a->times[i], "0");
	}
	return ret;
}

/*
 * One operation under test: prep (no faults), run (faults on: no output, no
 * other syscall), check (no faults: the device state after run returned
 * ret), undo (no faults: back to the state before prep).
 */
struct op {
	const char *name;
	void (*prep)(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self);
	long (*run)(FIXTURE_DATA(fault) *self);
	void (*check)(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self,
		      long ret);
	void (*undo)(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self,
		     long ret);
};

static void expect_clean_failure(struct __test_metadata *_metadata,
				 FIXTURE_DATA(fault) *self, const char *what,
				 long ret)
{
	if (ret >= 0) {
		self->absorbed++;	/* the path recovered by itself */
		return;
	}
	self->enomem += ret == -ENOMEM;
	EXPECT_EQ(-ENOMEM, ret) TH_LOG("%s under an allocation failure: %s",
				       what, strerror((int)-ret));
}

/* Each allocation site on the path fails once, in order. */
static void sweep_nth(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fault) *self, const struct op *op)
{
	unsigned int n;
	long ret, left;

	self->sites = self->enomem = self->absorbed = 0;
	for (n = 1; n <= NTH_MAX; n++) {
		if (op->prep)
			op->prep(_metadata, self);
		ASSERT_EQ(0, set_nth(self, n));
		ret = op->run(self);
		left = get_nth(self);
		ASSERT_EQ(0, set_nth(self, 0));
		ASSERT_LE(0, left);
		if (left > 0) {
			/* no n-th allocation: the operation ran without a fault */
			EXPECT_LE(0, ret) TH_LOG("%s failed without a fault: %s",
						 op->name, strerror((int)-ret));
		} else {
			self->sites++;
			expect_clean_failure(_metadata, self, op->name, ret);
		}
		if (op->check)
			op->check(_metadata, self, ret);
		if (op->undo)
			op->undo(_metadata, self, ret);
		if (left > 0 || !_metadata->passed)
			break;
	}
	EXPECT_GE(NTH_MAX, n) TH_LOG("%s: more than %d allocations", op->name, NTH_MAX);
	TH_LOG("%s: %d allocation sites, %d failed with ENOMEM, %d absorbed",
	       op->name, self->sites, self->enomem, self->absorbed);
}

/* Memory is short: the first `times` allocations fail. */
static void sweep_armed(struct __test_metadata *_metadata,
			FIXTURE_DATA(fault) *self, const struct op *op)
{
	struct arm_fds a;
	long ret;

	ASSERT_EQ(0, open_arm_fds(&a));
	self->sites = self->enomem = self->absorbed = 0;
	for (unsigned int times = 1; times <= ARMED_MAX && _metadata->passed; times++) {
		if (op->prep)
			op->prep(_metadata, self);
		ASSERT_EQ(0, arm(&a, times));
		ret = op->run(self);
		ASSERT_EQ(0, disarm(&a));
		self->sites++;
		expect_clean_failure(_metadata, self, op->name, ret);
		if (op->check)
			op->check(_metadata, self, ret);
		if (op->undo)
			op->undo(_metadata, self, ret);
	}
	close_arm_fds(&a);
	TH_LOG("%s armed: %d runs, %d failed with ENOMEM, %d absorbed",
	       op->name, self->sites, self->enomem, self->absorbed);
}

/* After all that, a normal trace works: create, map, enable, inject, drain. */
static void round_trip(struct __test_metadata *_metadata, int fd)
{
	struct hwt_event ev[64];
	struct hwt_map m = { 0 };
	struct hwt_version v;
	int id, got = 0;
	size_t n;

	hwt_reset(fd);
	ASSERT_EQ(0, hwt_pin(0));
	ASSERT_EQ(0, hwt_only(fd, 1u << HWT_FAM_USER));
	id = hwt_create(fd, 32 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, hwt_map(fd, id, 0, &m));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_CHUNK_SELECT, id));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_ENABLE, 0));
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(0, hwt_log(fd, HWT_EV_USER_EVENT_3, 7, i));
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_DISABLE, 0));
	n = hwt_drain(&m, ev, 64);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].code == HWT_EV_USER_EVENT_3) {
			EXPECT_EQ((uint32_t)got, ev[i].par2);
			got++;
		}
	}
	EXPECT_EQ(5, got);
	EXPECT_EQ(HWT_EV_TRACE_STOP, ev[n - 1].code);
	EXPECT_EQ(0, m.meta->lost);
	hwt_unmap(&m);
	hwt_reset(fd);
	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(0, v.used_memory);
	EXPECT_EQ(0, v.enabled);
}

/* Chunk table size and memory charged are back to the baseline. */
static void expect_baseline(struct __test_metadata *_metadata,
			    FIXTURE_DATA(fault) *self, const char *what)
{
	struct hwt_chunk_table t = { 0 };
	struct hwt_version v;

	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_TABLE, (unsigned long)&t));
	EXPECT_EQ(self->used_memory, v.used_memory) TH_LOG("%s: memory charge leaked", what);
	EXPECT_EQ(self->nr_entries, t.nr_entries) TH_LOG("%s: chunk left behind", what);
}

/* chunk_create */

static long create_run(FIXTURE_DATA(fault) *self)
{
	/* three data pages per CPU: several page allocations per ring */
	return hwt_create(self->fd, 3 * 4096 - 4 * REC, 4 * REC, HWT_CHUNK_STOP);
}

static void create_check(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fault) *self, long ret)
{
	if (ret < 0)
		expect_baseline(_metadata, self, "chunk_create");
}

static void create_undo(struct __test_metadata *_metadata,
			FIXTURE_DATA(fault) *self, long ret)
{
	if (ret >= 0) {
		ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, ret));
	}
	expect_baseline(_metadata, self, "chunk_create + delete");
}

static const struct op op_create = {
	"chunk_create", NULL, create_run, create_check, create_undo,
};

/* open */

static long open_run(FIXTURE_DATA(fault) *self)
{
	self->newfd = hwt_open();
	return self->newfd < 0 ? -errno : self->newfd;
}

static void open_undo(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fault) *self, long ret)
{
	struct hwt_version v;

	if (self->newfd >= 0) {
		EXPECT_EQ(0, hwt_ioc(self->newfd, HWT_IOC_GET_VERSION, (unsigned long)&v));
		close(self->newfd);
	}
	self->newfd = -1;
}

static const struct op op_open = { "open", NULL, open_run, NULL, open_undo };

/* mmap of the meta page and of the data pages */

static void map_prep(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self)
{
	self->chunk = hwt_create(self->fd, 2 * 4096 - 4 * REC, 4 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, self->chunk);
}

static long map_run(FIXTURE_DATA(fault) *self, int area, int prot)
{
	size_t len = area == HWT_AREA_META ? 4096 : 2 * 4096;
	void *p = mmap(NULL, len, prot, MAP_SHARED, self->fd,
		       (off_t)HWT_MMAP_OFFSET(self->chunk, 0, area));

	if (p == MAP_FAILED)
		return -errno;
	self->map = p;
	self->map_len = len;
	return 0;
}

static long map_meta_run(FIXTURE_DATA(fault) *self)
{
	return map_run(self, HWT_AREA_META, PROT_READ | PROT_WRITE);
}

static long map_data_run(FIXTURE_DATA(fault) *self)
{
	return map_run(self, HWT_AREA_DATA, PROT_READ);
}

static void map_undo(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fault) *self, long ret)
{
	if (self->map) {
		const struct hwt_ring_meta *meta = self->map;

		/* the mapping works: the meta page or zeroed data */
		if (self->map_len == 4096) {
			EXPECT_EQ(HWT_ABI_MAJOR, meta->version);
		} else {
			EXPECT_EQ(0, ((const uint64_t *)self->map)[0]);
		}
		/* while mapped, the chunk cannot go */
		EXPECT_EQ(-EBUSY, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, self->chunk));
		munmap(self->map, self->map_len);
		self->map = NULL;
	}
	/* a failed mmap left no mapping count behind: delete works */
	EXPECT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, self->chunk))
		TH_LOG("mmap %s: the chunk stays busy", ret ? "failed" : "worked");
	self->chunk = -1;
	expect_baseline(_metadata, self, "mmap");
}

static const struct op op_map_meta = {
	"mmap meta", map_prep, map_meta_run, NULL, map_undo,
};

static const struct op op_map_data = {
	"mmap data", map_prep, map_data_run, NULL, map_undo,
};

/* enable, and filter changes while tracing: both attach tracepoint probes */

static uint32_t get_mask(struct __test_metadata *_metadata, int fd)
{
	uint32_t mask = 0;

	EXPECT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_FILTER, (unsigned long)&mask));
	return mask;
}

/*
 * The documented invariant: a probe is attached iff tracing is on and its
 * family is not filtered (name probes: iff tracing is on).
 */
static void expect_probes_match(struct __test_metadata *_metadata, int fd,
				const char *what)
{
	struct hwt_version v;
	uint32_t mask;

	ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	mask = get_mask(_metadata, fd);
	for (uint32_t i = 0; i < v.nr_probes && i < MAX_PROBES; i++) {
		struct hwt_probe_info p = { .index = i };
		bool want;

		ASSERT_EQ(0, hwt_ioc(fd, HWT_IOC_PROBE_INFO, (unsigned long)&p));
		if (!(p.flags & HWT_PROBE_AVAILABLE))
			continue;
		want = v.enabled && (p.family >= HWT_NR_FAMILIES ||
				     !(mask & (1u << p.family)));
		EXPECT_EQ(want, !!(p.flags & HWT_PROBE_ATTACHED))
			TH_LOG("%s: probe %s (family %u) %sattached, tracing %s, mask %#x",
			       what, p.tracepoint, p.family,
			       p.flags & HWT_PROBE_ATTACHED ? "" : "not ",
			       v.enabled ? "on" : "off", mask);
	}
}

static void enable_prep(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self)
{
	/* the families with the most probes: every attach may fail */
	ASSERT_EQ(0, hwt_only(self->fd, (1u << HWT_FAM_TASK) | (1u << HWT_FAM_INTERRUPT) |
			      (1u << HWT_FAM_TIMER) | (1u << HWT_FAM_USER)));
	self->chunk = hwt_create(self->fd, 256 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, self->chunk);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, self->chunk));
}

static long enable_run(FIXTURE_DATA(fault) *self)
{
	return hwt_ioc(self->fd, HWT_IOC_ENABLE, 0);
}

static void enable_check(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fault) *self, long ret)
{
	struct hwt_version v;

	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&v));
	EXPECT_EQ(ret == 0, v.enabled);
	expect_probes_match(_metadata, self->fd, "enable");
}

static void trace_undo(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fault) *self, long ret)
{
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	expect_probes_match(_metadata, self->fd, "disable");
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, HWT_NO_CHUNK));
	ASSERT_EQ(0, hwt_set_flags(self->fd, self->chunk, HWT_CHUNK_STOP | HWT_CHUNK_FREE));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_DELETE, self->chunk));
	self->chunk = -1;
	expect_baseline(_metadata, self, "enable");
}

static const struct op op_enable = {
	"enable", enable_prep, enable_run, enable_check, trace_undo,
};

static void filter_prep(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self)
{
	ASSERT_EQ(0, hwt_only(self->fd, 1u << HWT_FAM_USER));
	self->chunk = hwt_create(self->fd, 256 * REC, 8 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, self->chunk);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, self->chunk));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	self->mask_before = get_mask(_metadata, self->fd);
}

static long filter_run(FIXTURE_DATA(fault) *self)
{
	/* unfilter a family while tracing: its probes are attached now */
	return hwt_filter(self->fd, self->family, 0);
}

static void filter_check(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fault) *self, long ret)
{
	uint32_t mask = get_mask(_metadata, self->fd);

	if (ret == 0) {
		EXPECT_EQ(self->mask_before & ~(1u << self->family), mask);
	} else {
		/* a failed filter change changes nothing */
		EXPECT_EQ(self->mask_before, mask)
			TH_LOG("set_filter(%u, 0) failed (%s) but the mask changed",
			       self->family, strerror((int)-ret));
	}
	expect_probes_match(_metadata, self->fd, "set_filter");
}

static const struct op op_filter = {
	"set_filter", filter_prep, filter_run, filter_check, trace_undo,
};

static void run_op(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self,
		   const struct op *op)
{
	/* SKIP() in FIXTURE_SETUP does not stop the test body */
	if (_metadata->skip)
		return;
	sweep_nth(_metadata, self, op);
	if (!_metadata->passed)
		return;
	sweep_armed(_metadata, self, op);
	if (!_metadata->passed)
		return;
	round_trip(_metadata, self->fd);
}

TEST_F_TIMEOUT(fault, chunk_create, 600)
{
	run_op(_metadata, self, &op_create);
}

TEST_F_TIMEOUT(fault, open, 600)
{
	run_op(_metadata, self, &op_open);
}

TEST_F_TIMEOUT(fault, mmap_meta, 600)
{
	run_op(_metadata, self, &op_map_meta);
}

TEST_F_TIMEOUT(fault, mmap_data, 600)
{
	run_op(_metadata, self, &op_map_data);
}

TEST_F_TIMEOUT(fault, enable, 600)
{
	run_op(_metadata, self, &op_enable);
}

TEST_F_TIMEOUT(fault, filter_change, 600)
{
	static const uint32_t families[] = {
		HWT_FAM_TASK, HWT_FAM_INTERRUPT, HWT_FAM_TIMER, HWT_FAM_MUTEX,
		HWT_FAM_SIGNAL, HWT_FAM_CPU, HWT_FAM_PRIORITY,
	};

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]) &&
			   !_metadata->skip; i++) {
		self->family = families[i];
		TH_LOG("family %u", self->family);
		run_op(_metadata, self, &op_filter);
		if (!_metadata->passed)
			break;
	}
}

TEST_HARNESS_MAIN
