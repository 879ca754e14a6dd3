// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace event sources: which tracepoints exist and are attached, and what
 * a real fork/exec/exit/signal/sleep produces, with names for every pid.
 */
#include "hwt_test.h"
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <time.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define MAX_CPUS	64
#define BUF_RECS	(1 << 20)
#define MAX_PIDS	(1 << 22)

struct probe_state {
	char name[64];
	uint32_t family, flags;
};

static int probe_flags(int fd, const char *tp, struct probe_state *out)
{
	struct hwt_version v;

	if (ioctl(fd, HWT_IOC_GET_VERSION, &v))
		return -errno;
	for (uint32_t i = 0; i < v.nr_probes; i++) {
		struct hwt_probe_info info = { .index = i };

		if (ioctl(fd, HWT_IOC_PROBE_INFO, &info))
			return -errno;
		if (!strcmp(info.tracepoint, tp)) {
			memcpy(out->name, info.tracepoint, sizeof(out->name));
			out->family = info.family;
			out->flags = info.flags;
			return 0;
		}
	}
	return -ENOENT;
}

static uint32_t attached(int fd, const char *tp)
{
	struct probe_state st = { 0 };

	return probe_flags(fd, tp, &st) ? 0 : st.flags & HWT_PROBE_ATTACHED;
}

FIXTURE(src) {
	int fd, ncpu, id;
	struct hwt_event *buf;
	size_t n;		/* records collected from all rings */
	uint8_t *named;		/* named[pid]: a task name record arrived */
	char child_name[HWT_NAME_LEN];
	struct hwt_name buf_names[64];
};

FIXTURE_SETUP(src)
{
	self->fd = hwt_open();
	ASSERT_LE(0, self->fd);
	hwt_reset(self->fd);
	/* drop names queued by earlier runs */
	while (read(self->fd, self->buf_names, sizeof(self->buf_names)) > 0)
		;
	self->ncpu = hwt_nr_cpus(self->fd);
	ASSERT_GE(MAX_CPUS, self->ncpu);
	self->buf = calloc(BUF_RECS, sizeof(*self->buf));
	self->named = calloc(MAX_PIDS, 1);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->named);
	self->id = hwt_create(self->fd, 65536 * REC, 64 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, self->id);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_CHUNK_SELECT, self->id));
}

FIXTURE_TEARDOWN(src)
{
	hwt_reset(self->fd);
	free(self->buf);
	free(self->named);
	close(self->fd);
}

/* Drain every CPU's ring into self->buf (CPU after CPU) and read all names. */
static void collect(struct __test_metadata *_metadata,
		    FIXTURE_DATA(src) *self, pid_t child)
{
	struct hwt_name names[64];
	ssize_t got;

	self->n = 0;
	for (int c = 0; c < self->ncpu; c++) {
		struct hwt_map m;

		if (!hwt_cpu_online(c))
			continue;
		ASSERT_EQ(0, hwt_map(self->fd, self->id, c, &m));
		EXPECT_EQ(0, m.meta->lost);
		self->n += hwt_drain(&m, self->buf + self->n, BUF_RECS - self->n);
		hwt_unmap(&m);
	}
	while ((got = read(self->fd, names, sizeof(names))) > 0) {
		ASSERT_EQ(0, got % sizeof(names[0]));
		for (size_t i = 0; i < got / sizeof(names[0]); i++) {
			if (names[i].kind != HWT_NAME_TASK || names[i].id >= MAX_PIDS)
				continue;
			self->named[names[i].id] = 1;
			if ((pid_t)names[i].id == child)
				memcpy(self->child_name, names[i].name, HWT_NAME_LEN);
		}
	}
	ASSERT_EQ(0, got);
}

/* Whether some CPU's ring already holds pid's switch-out as a dead task. */
static bool dead_switch_recorded(FIXTURE_DATA(src) *self, pid_t pid)
{
	bool found = false;

	for (int c = 0; c < self->ncpu && !found; c++) {
		struct hwt_map m;
		uint64_t pos, head;

		if (!hwt_cpu_online(c) || hwt_map(self->fd, self->id, c, &m))
			continue;
		head = __atomic_load_n(&m.meta->data_head, __ATOMIC_ACQUIRE);
		for (pos = m.meta->data_tail; pos != head && !found;
		     pos = hwt_next_pos(&m, pos)) {
			const struct hwt_event *e = hwt_slot(&m, pos);

			found = e->code == HWT_EV_TASK_SCHEDULE &&
				hwt_switch_prev(e) == (uint32_t)pid &&
				hwt_switch_state(e) == HWT_STATE_DEAD;
		}
		hwt_unmap(&m);
	}
	return found;
}

static size_t count(FIXTURE_DATA(src) *self, uint16_t code, int par1, int64_t par2)
{
	size_t n = 0;

	for (size_t i = 0; i < self->n; i++)
		n += self->buf[i].code == code &&
		     (par1 < 0 || self->buf[i].par1 == par1) &&
		     (par2 < 0 || self->buf[i].par2 == par2);
	return n;
}

TEST_F(src, probe_table)
{
	struct hwt_probe_info info = { .index = 100000 };
	struct probe_state st;

	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_PROBE_INFO, (unsigned long)&info));
	info.index = 0;
	info.reserved = 1;
	EXPECT_EQ(-EINVAL, hwt_ioc(self->fd, HWT_IOC_PROBE_INFO, (unsigned long)&info));
	EXPECT_EQ(-EFAULT, hwt_ioc(self->fd, HWT_IOC_PROBE_INFO, 16UL));
	/* Debian's 6.1 has every tracepoint hwtrace uses */
	ASSERT_EQ(0, probe_flags(self->fd, "sched_switch", &st));
	EXPECT_EQ(HWT_FAM_TASK, st.family);
	EXPECT_EQ(HWT_PROBE_AVAILABLE, st.flags);
	ASSERT_EQ(0, probe_flags(self->fd, "contention_begin", &st));
	EXPECT_EQ(HWT_FAM_MUTEX, st.family);
	EXPECT_TRUE(st.flags & HWT_PROBE_AVAILABLE);
	ASSERT_EQ(0, probe_flags(self->fd, "irq_handler_entry", &st));
	EXPECT_EQ(HWT_FAM_INTERRUPT, st.family);
}

TEST_F(src, attached_only_when_wanted)
{
	ASSERT_EQ(0, hwt_only(self->fd, 1u << HWT_FAM_TASK));
	EXPECT_EQ(0, attached(self->fd, "sched_switch"));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	EXPECT_TRUE(attached(self->fd, "sched_switch"));
	EXPECT_TRUE(attached(self->fd, "task_rename"));
	EXPECT_EQ(0, attached(self->fd, "irq_handler_entry"));
	/* filter changes attach and detach while tracing */
	ASSERT_EQ(0, hwt_filter(self->fd, HWT_FAM_INTERRUPT, 0));
	EXPECT_TRUE(attached(self->fd, "irq_handler_entry"));
	ASSERT_EQ(0, hwt_filter(self->fd, HWT_FAM_TASK, 1));
	EXPECT_EQ(0, attached(self->fd, "sched_switch"));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	EXPECT_EQ(0, attached(self->fd, "irq_handler_entry"));
	EXPECT_EQ(0, attached(self->fd, "task_rename"));
}

TEST_F(src, task_lifecycle)
{
	uint32_t last_next[MAX_CPUS];
	bool have_last[MAX_CPUS] = { false };
	int status, cpu = -1, unnamed = 0, child_deaths = 0;
	pid_t child;

	ASSERT_EQ(0, hwt_only(self->fd, (1u << HWT_FAM_TASK) | (1u << HWT_FAM_SIGNAL)));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		execl("/bin/sleep", "sleep", "5", NULL);
		_exit(127);
	}
	usleep(200000);
	ASSERT_EQ(0, kill(child, SIGTERM));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	/*
	 * waitpid() returns once the child has notified its parent, which
	 * may be before its CPU switches away from it for the last time:
	 * keep tracing until that switch is in a ring (or give up after 5 s).
	 */
	for (int i = 0; i < 500 && !dead_switch_recorded(self, child); i++)
		usleep(10000);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	collect(_metadata, self, child);

	EXPECT_EQ(1, count(self, HWT_EV_TASK_CREATE, -1, child));
	EXPECT_EQ(1, count(self, HWT_EV_TASK_EXEC, -1, child));
	EXPECT_EQ(1, count(self, HWT_EV_TASK_END, -1, child));
	EXPECT_LE(1, count(self, HWT_EV_TASK_ACTIVATE, -1, child));
	EXPECT_EQ(1, count(self, HWT_EV_SIGNAL, SIGTERM, child));
	EXPECT_STREQ("sleep", self->child_name);

	/* per CPU, the next task of one switch is the prev of the following */
	for (size_t i = 0; i < self->n; i++) {
		const struct hwt_event *e = &self->buf[i];

		if (e->code == HWT_EV_ID) {
			cpu = e->par1;
			ASSERT_GT(MAX_CPUS, cpu);
			last_next[cpu] = e->par2;
			have_last[cpu] = true;
		}
		if (e->code != HWT_EV_TASK_SCHEDULE || cpu < 0)
			continue;
		if (have_last[cpu])
			ASSERT_EQ(last_next[cpu], hwt_switch_prev(e));
		last_next[cpu] = hwt_switch_next(e);
		have_last[cpu] = true;
		if (hwt_switch_prev(e) && !self->named[hwt_switch_prev(e)])
			unnamed++;
		if (hwt_switch_next(e) && !self->named[hwt_switch_next(e)])
			unnamed++;
		if (hwt_switch_prev(e) == (uint32_t)child &&
		    hwt_switch_state(e) == HWT_STATE_DEAD)
			child_deaths++;
	}
	EXPECT_EQ(0, unnamed);
	/* it was switched out dead exactly once (its other switch-outs slept) */
	EXPECT_EQ(1, child_deaths);
}

/* setpriority() and sched_setscheduler() on a child: its new priorities */
TEST_F(src, priority_changes)
{
	struct sched_param rt = { .sched_priority = 10 }, bad = { .sched_priority = 1000 };
	struct probe_state st;
	int status;
	pid_t child;

	if (probe_flags(self->fd, "set_user_nice", &st) || !(st.flags & HWT_PROBE_AVAILABLE))
		SKIP(return, "set_user_nice cannot be probed on this kernel");
	ASSERT_EQ(0, hwt_only(self->fd, 1u << HWT_FAM_PRIORITY));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pause();
		_exit(0);
	}
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, child, 5));
	ASSERT_EQ(0, sched_setscheduler(child, SCHED_FIFO, &rt));
	EXPECT_NE(0, sched_setscheduler(child, SCHED_FIFO, &bad));
	kill(child, SIGKILL);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	collect(_metadata, self, child);

	/* nice 5 is kernel priority 125; SCHED_FIFO 10 is 99 - 10 */
	EXPECT_EQ(1, count(self, HWT_EV_SET_PRIORITY, 125, child));
	EXPECT_EQ(1, count(self, HWT_EV_SET_PRIORITY, 89, child));
	/* the refused call logged nothing */
	EXPECT_EQ(2, count(self, HWT_EV_SET_PRIORITY, -1, child));
}

/* Load a helper module with PARAMS; 0 or -errno. */
static int load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * Priority changes the kretprobes miss are counted (hwt_version.prio_missed),
 * not lost without a trace: hwt_prio_miss.ko renices from inside a kprobe
 * handler, where kprobes refuse hwtrace's kretprobe every time.
 */
TEST_F(src, priority_misses_counted)
{
	const char *ko = getenv("HWT_PRIO_MISS_KO");
	struct hwt_version before, after;
	struct probe_state st;

	if (probe_flags(self->fd, "set_user_nice", &st) || !(st.flags & HWT_PROBE_AVAILABLE))
		SKIP(return, "set_user_nice cannot be probed on this kernel");
	ASSERT_EQ(0, hwt_only(self->fd, 1u << HWT_FAM_PRIORITY));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&before));
	ASSERT_EQ(0, load_module(ko ? ko : "/hwt/hwt_prio_miss.ko", "calls=10"));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&after));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	ASSERT_EQ(0, syscall(SYS_delete_module, "hwt_prio_miss", O_NONBLOCK));
	EXPECT_LE(before.prio_missed + 10, after.prio_missed)
		TH_LOG("prio_missed %llu -> %llu", (unsigned long long)before.prio_missed,
		       (unsigned long long)after.prio_missed);
	/*
	 * The kretprobes are registered afresh at the next enable, from zero:
	 * the count since load keeps what they missed (hwtrace record takes
	 * differences of it; one going back read as 2^64 - 10 lost).
	 */
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_GET_VERSION, (unsigned long)&before));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	EXPECT_LE(after.prio_missed, before.prio_missed)
		TH_LOG("prio_missed went back from %llu to %llu after a new registration",
		       (unsigned long long)after.prio_missed,
		       (unsigned long long)before.prio_missed);
}

TEST_F(src, irq_timer_cpu)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	ASSERT_EQ(0, hwt_only(self->fd, (1u << HWT_FAM_INTERRUPT) |
			      (1u << HWT_FAM_TIMER) | (1u << HWT_FAM_CPU)));
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_ENABLE, 0));
	for (int i = 0; i < 5; i++)
		nanosleep(&ts, NULL);
	ASSERT_EQ(0, hwt_ioc(self->fd, HWT_IOC_DISABLE, 0));
	collect(_metadata, self, 0);

	/* sleeping arms an hrtimer and the local APIC timer fires it */
	EXPECT_LE(5, count(self, HWT_EV_TIMER_POST, 1, -1));
	EXPECT_LE(5, count(self, HWT_EV_TIMER_WAKEUP_START, 1, -1));
	EXPECT_EQ(count(self, HWT_EV_VECTOR_START, -1, -1) > 0, 1);
	EXPECT_EQ(count(self, HWT_EV_IDLE_ENTER, -1, -1) > 0, 1);
	/* no task events slipped in */
	EXPECT_EQ(0, count(self, HWT_EV_TASK_SCHEDULE, -1, -1));
	/* entries and exits pair up, but for one cut per CPU at each edge */
	EXPECT_GE(2 * self->ncpu, labs((long)count(self, HWT_EV_TIMER_WAKEUP_END, 1, -1) -
				   (long)count(self, HWT_EV_TIMER_WAKEUP_START, 1, -1)));
}

TEST_HARNESS_MAIN
