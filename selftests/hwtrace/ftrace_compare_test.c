// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace against the kernel's own tracer: record hackbench with hwtrace
 * and with trace-cmd (ftrace) at once, on the same tracepoints and the same
 * clock (CLOCK_MONOTONIC), and compare.
 *
 * Events of hackbench's own tasks happen entirely inside both recording
 * windows, so their counts must agree exactly.  IRQ and softirq events are
 * compared inside each CPU's hwtrace window (its trace_start to its
 * trace_stop); an event right at an edge may be stamped on either side of
 * it by the two tracers, so each kind may differ by at most EDGE_SLACK per
 * CPU.
 *
 * all_families_match_ftrace does the same for every other kind of event
 * with an ftrace peer (softirq raises, the x86 vectors, timers and
 * hrtimers, signals, idle, lock contention, exec, migration), all counted
 * inside each CPU's window, while the test adds what hackbench lacks (an
 * exec, signals, a thread that renames itself).  It also checks that every
 * pid any event names has a name record, that the renamed thread's last
 * name and its tgid are right, and that every IRQ is named.
 */
#include "hwt_test.h"
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define MAX_CPUS	64
#define MAX_RECS	(4u << 20)
#define MAX_PIDS	(1u << 22)
#define EDGE_SLACK	2
#define FTRACE_DAT	"/tmp/hwt-ftrace.dat"
#define TRACE_CMD_LOG	"/tmp/hwt-trace-cmd.log"
#define FTRACE_BUF_KB	"16384"
#define FTRACE_BUF_KB_N	16384ull

enum kind {
	K_SWITCH_PREV, K_SWITCH_NEXT, K_WAKEUP, K_WAKEUP_NEW, K_FORK, K_EXIT,
	K_IRQ_ENTRY, K_IRQ_EXIT, K_SOFTIRQ_ENTRY, K_SOFTIRQ_EXIT, K_NR,
};

static const char *const kind_name[K_NR] = {
	"sched_switch(prev)", "sched_switch(next)", "sched_wakeup",
	"sched_wakeup_new", "sched_process_fork", "sched_process_exit",
	"irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit",
};

struct recorder {
	int fd, ncpu, id;
	volatile bool stop;
	struct hwt_map map[MAX_CPUS];
	struct hwt_event *recs;
	uint8_t *cpu_of;	/* [i]: the CPU recs[i] was drained from */
	size_t n;
	uint8_t *hackbench;	/* [pid]: named "hackbench" */
	uint8_t *named;		/* [pid]: has a name record */
	uint8_t irq_named[1024];
	pid_t watch;		/* a tid whose last name record is kept */
	struct hwt_name watched;
};

static void drain_once(struct recorder *r)
{
	for (int c = 0; c < r->ncpu; c++) {
		size_t got;

		if (!r->map[c].meta || r->n >= MAX_RECS)
			continue;
		got = hwt_drain(&r->map[c], r->recs + r->n, MAX_RECS - r->n);
		memset(r->cpu_of + r->n, c, got);
		/* release: wait_dead_switches() reads records below n */
		__atomic_store_n(&r->n, r->n + got, __ATOMIC_RELEASE);
	}
}

static void *drain_thread(void *arg)
{
	struct recorder *r = arg;

	while (!r->stop) {
		drain_once(r);
		usleep(1000);
	}
	return NULL;
}

static void read_names(struct recorder *r)
{
	struct hwt_name names[64];
	ssize_t got;

	while ((got = read(r->fd, names, sizeof(names))) > 0) {
		for (size_t i = 0; i < got / sizeof(names[0]); i++) {
			if (names[i].kind == HWT_NAME_IRQ && names[i].id < 1024 &&
			    names[i].name[0])
				r->irq_named[names[i].id] = 1;
			if (names[i].kind != HWT_NAME_TASK || names[i].id >= MAX_PIDS)
				continue;
			if (r->watch && names[i].id == (uint32_t)r->watch)
				r->watched = names[i];
			r->named[names[i].id] = 1;
			r->hackbench[names[i].id] = !strcmp(names[i].name, "hackbench");
		}
	}
}

static pid_t spawn(char *const argv[], const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static bool file_has(const char *path, const char *want)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && strstr(buf, want);
}

/*
 * trace-cmd is recording once it has set the clock, enabled the events and
 * turned tracing on (its "Hit Ctrl^C" line is stuck in stdio buffers).
 */
static bool trace_cmd_ready(void)
{
	return file_has("/sys/kernel/tracing/trace_clock", "[mono]") &&
	       file_has("/sys/kernel/tracing/events/irq/softirq_exit/enable", "1") &&
	       file_has("/sys/kernel/tracing/tracing_on", "1");
}

static uint32_t field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? (uint32_t)strtoul(p + strlen(key), NULL, 10) : UINT32_MAX;
}

/*
 * "comm-pid [cpu] secs.nanos: event: fields", from trace-cmd report -N -t
 * (-N: no plugins, so sched events print their fields as name=value):
 * the CPU, the time and "event: fields", or NULL for any other line.
 */
static char *report_line(char *line, unsigned long *cpu, uint64_t *ts)
{
	unsigned long secs, nanos;
	char *ev = strstr(line, "] ");
	char *c = strstr(line, " [");

	if (!ev || !c || sscanf(c + 2, "%lu]", cpu) != 1 || *cpu >= MAX_CPUS ||
	    sscanf(ev + 1, " %lu.%lu:", &secs, &nanos) != 2)
		return NULL;
	*ts = secs * 1000000000ull + nanos;
	ev = strchr(ev, ':');
	return ev ? ev + 2 : NULL;
}

static int ftrace_counts(struct recorder *r, const uint64_t *t0,
			 const uint64_t *t1, long counts[K_NR])
{
	char line[1024];
	FILE *f = popen("trace-cmd report -N -t -i " FTRACE_DAT " 2>/dev/null", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long cpu;
		uint64_t ts;
		uint32_t pid;
		char *ev = report_line(line, &cpu, &ts);

		if (!ev)
			continue;
		if (!strncmp(ev, "sched_switch:", 13)) {
			pid = field(ev, " prev_pid=");
			counts[K_SWITCH_PREV] += pid < MAX_PIDS && r->hackbench[pid];
			pid = field(ev, " next_pid=");
			counts[K_SWITCH_NEXT] += pid < MAX_PIDS && r->hackbench[pid];
		} else if (!strncmp(ev, "sched_wakeup:", 13)) {
			pid = field(ev, " pid=");
			counts[K_WAKEUP] += pid < MAX_PIDS && r->hackbench[pid];
		} else if (!strncmp(ev, "sched_wakeup_new:", 17)) {
			pid = field(ev, " pid=");
			counts[K_WAKEUP_NEW] += pid < MAX_PIDS && r->hackbench[pid];
		} else if (!strncmp(ev, "sched_process_fork:", 19)) {
			pid = field(ev, " child_pid=");
			counts[K_FORK] += pid < MAX_PIDS && r->hackbench[pid];
		} else if (!strncmp(ev, "sched_process_exit:", 19)) {
			pid = field(ev, " pid=");
			counts[K_EXIT] += pid < MAX_PIDS && r->hackbench[pid];
		} else if (ts >= t0[cpu] && ts <= t1[cpu]) {
			counts[K_IRQ_ENTRY] += !strncmp(ev, "irq_handler_entry:", 18);
			counts[K_IRQ_EXIT] += !strncmp(ev, "irq_handler_exit:", 17);
			counts[K_SOFTIRQ_ENTRY] += !strncmp(ev, "softirq_entry:", 14);
			counts[K_SOFTIRQ_EXIT] += !strncmp(ev, "softirq_exit:", 13);
		}
	}
	return pclose(f) == 0 ? 0 : -EIO;
}

/* Counts per kind, and each CPU's window: its trace_start to trace_stop. */
static void hwt_counts(struct recorder *r, long counts[K_NR], uint64_t *t0,
		       uint64_t *t1)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct hwt_event *e = &r->recs[i];
		uint32_t pid = e->par2 & HWT_PID_MASK;

		switch (e->code) {
		case HWT_EV_TRACE_START:
			t0[r->cpu_of[i]] = hwt_event_tsc(e);
			break;
		case HWT_EV_TRACE_STOP:
			t1[r->cpu_of[i]] = hwt_event_tsc(e);
			break;
		case HWT_EV_TASK_SCHEDULE:
			counts[K_SWITCH_PREV] += r->hackbench[hwt_switch_prev(e)];
			counts[K_SWITCH_NEXT] += r->hackbench[hwt_switch_next(e)];
			break;
		case HWT_EV_TASK_ACTIVATE:
			counts[e->par1 & HWT_ACTIVATE_NEW ? K_WAKEUP_NEW : K_WAKEUP] +=
				r->hackbench[pid];
			break;
		case HWT_EV_TASK_CREATE:
			counts[K_FORK] += r->hackbench[pid];
			break;
		case HWT_EV_TASK_END:
			counts[K_EXIT] += r->hackbench[pid];
			break;
		case HWT_EV_INTERRUPT_START:
			counts[K_IRQ_ENTRY]++;
			break;
		case HWT_EV_INTERRUPT_END:
			counts[K_IRQ_EXIT]++;
			break;
		case HWT_EV_SOFTIRQ_START:
			counts[K_SOFTIRQ_ENTRY]++;
			break;
		case HWT_EV_SOFTIRQ_END:
			counts[K_SOFTIRQ_EXIT]++;
			break;
		}
	}
}

/* Per CPU, each switch's prev is the previous switch's next. */
static long unpaired_switches(struct recorder *r)
{
	uint32_t next[MAX_CPUS];
	bool have[MAX_CPUS] = { false };
	long bad = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct hwt_event *e = &r->recs[i];
		int cpu = r->cpu_of[i];

		if (e->code == HWT_EV_ID) {
			next[cpu] = e->par2;
			have[cpu] = true;
		} else if (e->code == HWT_EV_TASK_SCHEDULE) {
			bad += have[cpu] && next[cpu] != hwt_switch_prev(e);
			next[cpu] = hwt_switch_next(e);
			have[cpu] = true;
		}
	}
	return bad;
}

/*
 * A recorder with one big STOP chunk on every online CPU for the families
 * in mask, on the clock trace-cmd uses, and the name channel emptied of
 * what earlier tests left.
 */
static struct recorder *recorder_new(uint32_t mask)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->recs = calloc(MAX_RECS, sizeof(*r->recs));
	r->cpu_of = calloc(MAX_RECS, 1);
	r->hackbench = calloc(MAX_PIDS, 1);
	r->named = calloc(MAX_PIDS, 1);
	r->fd = hwt_open();
	if (!r->recs || !r->cpu_of || !r->hackbench || !r->named || r->fd < 0)
		return NULL;
	hwt_reset(r->fd);
	read_names(r);
	memset(r->named, 0, MAX_PIDS);
	memset(r->hackbench, 0, MAX_PIDS);
	r->ncpu = hwt_nr_cpus(r->fd);
	if (hwt_ioc(r->fd, HWT_IOC_SET_CLOCK, HWT_CLOCK_MONO) || hwt_only(r->fd, mask))
		return NULL;
	/* the memory trace-cmd gets: 16 MiB per CPU */
	r->id = hwt_create(r->fd, (FTRACE_BUF_KB_N << 10) - 64 * REC, 64 * REC,
			   HWT_CHUNK_STOP);
	if (r->id < 0)
		return NULL;
	for (int c = 0; c < r->ncpu; c++) {
		if (hwt_cpu_online(c) && hwt_map(r->fd, r->id, c, &r->map[c]))
			return NULL;
	}
	return hwt_ioc(r->fd, HWT_IOC_CHUNK_SELECT, r->id) ? NULL : r;
}

static void recorder_free(struct recorder *r)
{
	for (int c = 0; c < r->ncpu; c++) {
		if (r->map[c].meta)
			hwt_unmap(&r->map[c]);
	}
	hwt_reset(r->fd);
	close(r->fd);
	free(r->recs);
	free(r->cpu_of);
	free(r->hackbench);
	free(r->named);
	free(r);
}

/* trace-cmd first, then hwtrace inside its window, drained as it goes. */
static pid_t start_both(struct recorder *r, char *const tc_argv[], pthread_t *drainer)
{
	pid_t tc = spawn(tc_argv, TRACE_CMD_LOG);

	if (tc < 0)
		return -1;
	for (int i = 0; i < 1200 && !trace_cmd_ready(); i++)
		usleep(50000);
	if (!trace_cmd_ready())
		return -1;
	sleep(1);	/* its per-CPU readers start after tracing_on */
	if (pthread_create(drainer, NULL, drain_thread, r) ||
	    hwt_ioc(r->fd, HWT_IOC_ENABLE, 0))
		return -1;
	return tc;
}

/* hwtrace off and drained, names read, then trace-cmd flushed and ended. */
static int stop_both(struct recorder *r, pid_t tc, pthread_t drainer)
{
	int status;

	if (hwt_ioc(r->fd, HWT_IOC_DISABLE, 0))
		return -1;
	r->stop = true;
	pthread_join(drainer, NULL);
	drain_once(r);
	read_names(r);
	/* let trace-cmd's readers catch up before it flushes and exits */
	sleep(1);
	kill(tc, SIGINT);
	if (waitpid(tc, &status, 0) != tc || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

static uint64_t lost_total(const struct recorder *r)
{
	uint64_t lost = 0;

	for (int c = 0; c < r->ncpu; c++) {
		if (r->map[c].meta)
			lost += r->map[c].meta->lost;
	}
	return lost;
}

/*
 * hackbench's loop count: 100, or HWT_HACKBENCH_LOOPS (make check-debug
 * makes it smaller: under KASAN and TCG one loop costs 20 times more).
 */
static char *hackbench_loops(void)
{
	char *env = getenv("HWT_HACKBENCH_LOOPS");

	return env && atoi(env) > 0 ? env : "100";
}

/*
 * waitpid() returns once a task is a zombie, before its last switch-out:
 * wait until every hackbench task that exited was switched out dead, so
 * that the trace does not stop between the two.
 */
static void wait_dead_switches(struct recorder *r)
{
	for (int tries = 0; tries < 200; tries++) {
		size_t n = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE);
		long exits = 0, dead = 0;

		read_names(r);
		for (size_t i = 0; i < n; i++) {
			const struct hwt_event *e = &r->recs[i];

			if (e->code == HWT_EV_TASK_END)
				exits += r->hackbench[e->par2 & HWT_PID_MASK];
			else if (e->code == HWT_EV_TASK_SCHEDULE &&
				 hwt_switch_state(e) == HWT_STATE_DEAD)
				dead += r->hackbench[hwt_switch_prev(e)];
		}
		if (exits && dead >= exits)
			return;
		usleep(50000);
	}
}

/*
 * hackbench in both windows; it reports on the serial console, so the
 * console's IRQs fall in them too.  Its exit status, or -1.
 */
static int run_hackbench(void)
{
	char *argv[] = { "hackbench", "-g", "1", "-l", hackbench_loops(), NULL };
	pid_t hb = spawn(argv, "/dev/console");
	int status;

	if (hb < 0 || waitpid(hb, &status, 0) != hb)
		return -1;
	return status;
}

/* hackbench under two tracers is slow under TCG: a generous deadline */
FIXTURE(cmp) {
};

FIXTURE_SETUP(cmp)
{
}

FIXTURE_TEARDOWN(cmp)
{
}

TEST_F_TIMEOUT(cmp, hackbench_matches_ftrace, 900)
{
	char *tc_argv[] = {
		"trace-cmd", "record", "-C", "mono", "-b", FTRACE_BUF_KB, "-o", FTRACE_DAT,
		"-e", "sched:sched_switch", "-e", "sched:sched_wakeup",
		"-e", "sched:sched_wakeup_new", "-e", "sched:sched_process_fork",
		"-e", "sched:sched_process_exit", "-e", "irq:irq_handler_entry",
		"-e", "irq:irq_handler_exit", "-e", "irq:softirq_entry",
		"-e", "irq:softirq_exit", NULL,
	};
	long want[K_NR] = { 0 }, got[K_NR] = { 0 };
	struct recorder *r;
	pthread_t drainer;
	pid_t tc;
	uint64_t t0[MAX_CPUS] = { 0 }, t1[MAX_CPUS] = { 0 }, unnamed = 0;

	if (system("command -v trace-cmd >/dev/null && command -v hackbench >/dev/null"))
		SKIP(return, "trace-cmd or hackbench not installed");
	r = recorder_new(1u << HWT_FAM_TASK | 1u << HWT_FAM_INTERRUPT);
	ASSERT_NE(NULL, r);

	/* ftrace first, hwtrace inside it, hackbench inside both */
	tc = start_both(r, tc_argv, &drainer);
	ASSERT_LT(0, tc);
	EXPECT_EQ(0, run_hackbench());
	wait_dead_switches(r);
	ASSERT_EQ(0, stop_both(r, tc, drainer));

	EXPECT_EQ(0, lost_total(r));
	ASSERT_GT(MAX_RECS, r->n);
	EXPECT_EQ(0, unpaired_switches(r));
	hwt_counts(r, got, t0, t1);
	ASSERT_EQ(0, ftrace_counts(r, t0, t1, want));

	for (int k = 0; k < K_NR; k++) {
		long slack = k >= K_IRQ_ENTRY ? EDGE_SLACK * r->ncpu : 0;

		TH_LOG("%-20s hwtrace %7ld  ftrace %7ld", kind_name[k], got[k], want[k]);
		EXPECT_GE(slack, labs(got[k] - want[k]));
	}
	/* hackbench did run, and its tasks were seen by both */
	EXPECT_LT(100, got[K_SWITCH_NEXT]);
	EXPECT_LT(0, got[K_FORK]);
	for (size_t i = 0; i < r->n; i++) {
		const struct hwt_event *e = &r->recs[i];

		if (e->code != HWT_EV_TASK_SCHEDULE)
			continue;
		unnamed += hwt_switch_prev(e) && !r->named[hwt_switch_prev(e)];
		unnamed += hwt_switch_next(e) && !r->named[hwt_switch_next(e)];
	}
	EXPECT_EQ(0, unnamed);
	recorder_free(r);
}

/*
 * Kinds counted inside each CPU's window.  An ftrace event counts for a
 * kind if its name matches and, for cpu_idle, its state says enter or exit;
 * a hwtrace record if its code matches and par1 does (par1 < 0: any).
 */
struct window_kind {
	const char *name;
	const char *const ftrace[6];	/* events, "system:" prefix dropped */
	uint16_t code;
	int par1;
};

#define IDLE_EXIT_STATE	"state=4294967295"

static const struct window_kind wkinds[] = {
	{ "softirq_raise", { "softirq_raise" }, HWT_EV_SOFTIRQ_RAISE, -1 },
	{ "vector_entry", { "local_timer_entry", "reschedule_entry",
			    "call_function_entry", "call_function_single_entry",
			    "irq_work_entry" }, HWT_EV_VECTOR_START, -1 },
	{ "vector_exit", { "local_timer_exit", "reschedule_exit",
			   "call_function_exit", "call_function_single_exit",
			   "irq_work_exit" }, HWT_EV_VECTOR_END, -1 },
	{ "timer_start", { "timer_start" }, HWT_EV_TIMER_POST, 0 },
	{ "timer_cancel", { "timer_cancel" }, HWT_EV_TIMER_DELETE, 0 },
	{ "timer_expire_entry", { "timer_expire_entry" }, HWT_EV_TIMER_WAKEUP_START, 0 },
	{ "timer_expire_exit", { "timer_expire_exit" }, HWT_EV_TIMER_WAKEUP_END, 0 },
	{ "hrtimer_start", { "hrtimer_start" }, HWT_EV_TIMER_POST, 1 },
	{ "hrtimer_cancel", { "hrtimer_cancel" }, HWT_EV_TIMER_DELETE, 1 },
	{ "hrtimer_expire_entry", { "hrtimer_expire_entry" }, HWT_EV_TIMER_WAKEUP_START, 1 },
	{ "hrtimer_expire_exit", { "hrtimer_expire_exit" }, HWT_EV_TIMER_WAKEUP_END, 1 },
	{ "signal_generate", { "signal_generate" }, HWT_EV_SIGNAL, -1 },
	{ "signal_deliver", { "signal_deliver" }, HWT_EV_SIGNAL_DELIVER, -1 },
	{ "idle_enter", { "cpu_idle" }, HWT_EV_IDLE_ENTER, -1 },
	{ "idle_exit", { "cpu_idle" }, HWT_EV_IDLE_EXIT, -1 },
	{ "contention_begin", { "contention_begin" }, HWT_EV_MUTEX_WAIT, -1 },
	{ "contention_end", { "contention_end" }, HWT_EV_MUTEX_LOCK, -1 },
	{ "sched_process_exec", { "sched_process_exec" }, HWT_EV_TASK_EXEC, -1 },
	{ "sched_migrate_task", { "sched_migrate_task" }, HWT_EV_TASK_MIGRATE, -1 },
};

#define NR_WKINDS	(sizeof(wkinds) / sizeof(wkinds[0]))

static bool wkind_has(const struct window_kind *k, const char *ev)
{
	for (int i = 0; i < 6 && k->ftrace[i]; i++) {
		size_t len = strlen(k->ftrace[i]);

		if (!strncmp(ev, k->ftrace[i], len) && ev[len] == ':') {
			if (k->code == HWT_EV_IDLE_ENTER)
				return !strstr(ev, IDLE_EXIT_STATE);
			if (k->code == HWT_EV_IDLE_EXIT)
				return strstr(ev, IDLE_EXIT_STATE);
			return true;
		}
	}
	return false;
}

static int ftrace_window_counts(const uint64_t *t0, const uint64_t *t1,
				long counts[NR_WKINDS])
{
	char line[1024];
	FILE *f = popen("trace-cmd report -N -t -i " FTRACE_DAT " 2>/dev/null", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long cpu;
		uint64_t ts;
		char *ev = report_line(line, &cpu, &ts);

		if (!ev || ts < t0[cpu] || ts > t1[cpu])
			continue;
		for (size_t k = 0; k < NR_WKINDS; k++)
			counts[k] += wkind_has(&wkinds[k], ev);
	}
	return pclose(f) == 0 ? 0 : -EIO;
}

/* The pid an event names, or 0. */
static uint32_t event_pid(const struct hwt_event *e)
{
	switch (e->code) {
	case HWT_EV_TASK_ACTIVATE:
	case HWT_EV_TASK_CREATE:
	case HWT_EV_TASK_END:
	case HWT_EV_TASK_EXEC:
	case HWT_EV_TASK_MIGRATE:
	case HWT_EV_SIGNAL:
	case HWT_EV_SIGNAL_DELIVER:
	case HWT_EV_INHERITANCE:
		return e->par2 & HWT_PID_MASK;
	}
	return 0;
}

static void *rename_self(void *arg)
{
	prctl(PR_SET_NAME, "hwt-renamed");
	*(pid_t *)arg = gettid();
	return NULL;
}

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	usr1_seen++;
}

/* A child that takes n SIGUSR1 one after the other, then SIGTERM. */
static int signal_child(int n)
{
	sigset_t block, old;
	pid_t pid;
	int status;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid == 0) {
		signal(SIGUSR1, on_usr1);
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (;;)
			pause();
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		kill(pid, SIGUSR1);
		usleep(2000);
	}
	kill(pid, SIGTERM);
	return waitpid(pid, &status, 0) == pid ? 0 : -1;
}

TEST_F_TIMEOUT(cmp, all_families_match_ftrace, 900)
{
	char *tc_argv[] = {
		"trace-cmd", "record", "-C", "mono", "-b", FTRACE_BUF_KB, "-o", FTRACE_DAT,
		"-e", "irq:softirq_raise", "-e", "irq_vectors:local_timer_entry",
		"-e", "irq_vectors:local_timer_exit", "-e", "irq_vectors:reschedule_entry",
		"-e", "irq_vectors:reschedule_exit", "-e", "irq_vectors:call_function_entry",
		"-e", "irq_vectors:call_function_exit",
		"-e", "irq_vectors:call_function_single_entry",
		"-e", "irq_vectors:call_function_single_exit",
		"-e", "irq_vectors:irq_work_entry", "-e", "irq_vectors:irq_work_exit",
		"-e", "timer:timer_start", "-e", "timer:timer_cancel",
		"-e", "timer:timer_expire_entry", "-e", "timer:timer_expire_exit",
		"-e", "timer:hrtimer_start", "-e", "timer:hrtimer_cancel",
		"-e", "timer:hrtimer_expire_entry", "-e", "timer:hrtimer_expire_exit",
		"-e", "signal:signal_generate", "-e", "signal:signal_deliver",
		"-e", "power:cpu_idle", "-e", "lock:contention_begin",
		"-e", "lock:contention_end", "-e", "sched:sched_process_exec",
		"-e", "sched:sched_migrate_task",
		/* trace_cmd_ready() waits for this one */
		"-e", "irq:softirq_exit", NULL,
	};
	/* kinds the workload always produces */
	static const char *const must_see[] = {
		"softirq_raise", "vector_entry", "hrtimer_start", "hrtimer_expire_entry",
		"signal_generate", "signal_deliver", "idle_enter", "sched_process_exec",
	};
	long want[NR_WKINDS] = { 0 }, got[NR_WKINDS] = { 0 };
	uint64_t t0[MAX_CPUS] = { 0 }, t1[MAX_CPUS] = { 0 };
	long unnamed = 0, irqs = 0, unnamed_irqs = 0;
	pid_t tc, renamed = 0;
	struct recorder *r;
	pthread_t drainer, th;

	if (system("command -v trace-cmd >/dev/null && command -v hackbench >/dev/null"))
		SKIP(return, "trace-cmd or hackbench not installed");
	r = recorder_new(1u << HWT_FAM_TASK | 1u << HWT_FAM_INTERRUPT |
			 1u << HWT_FAM_TIMER | 1u << HWT_FAM_SIGNAL | 1u << HWT_FAM_CPU |
			 1u << HWT_FAM_MUTEX | 1u << HWT_FAM_PRIORITY);
	ASSERT_NE(NULL, r);

	tc = start_both(r, tc_argv, &drainer);
	ASSERT_LT(0, tc);
	/* an exec (the spawn), forks, wakeups, IRQs on the console */
	EXPECT_EQ(0, run_hackbench());
	ASSERT_EQ(0, signal_child(20));
	ASSERT_EQ(0, pthread_create(&th, NULL, rename_self, &renamed));
	ASSERT_EQ(0, pthread_join(th, NULL));
	usleep(100000);
	r->watch = renamed;
	ASSERT_EQ(0, stop_both(r, tc, drainer));

	EXPECT_EQ(0, lost_total(r));
	ASSERT_GT(MAX_RECS, r->n);
	EXPECT_EQ(0, unpaired_switches(r));

	for (size_t i = 0; i < r->n; i++) {
		const struct hwt_event *e = &r->recs[i];
		uint32_t pid = event_pid(e);

		switch (e->code) {
		case HWT_EV_TRACE_START:
			t0[r->cpu_of[i]] = hwt_event_tsc(e);
			break;
		case HWT_EV_TRACE_STOP:
			t1[r->cpu_of[i]] = hwt_event_tsc(e);
			break;
		case HWT_EV_INTERRUPT_START:
			irqs++;
			unnamed_irqs += e->par1 >= 1024 || !r->irq_named[e->par1];
			break;
		}
		for (size_t k = 0; k < NR_WKINDS; k++)
			got[k] += e->code == wkinds[k].code &&
				  (wkinds[k].par1 < 0 || e->par1 == wkinds[k].par1);
		if (pid && !r->named[pid]) {
			TH_LOG("code 0x%02x names pid %u, which has no name", e->code, pid);
			unnamed++;
		}
	}
	ASSERT_EQ(0, ftrace_window_counts(t0, t1, want));
	for (size_t k = 0; k < NR_WKINDS; k++) {
		TH_LOG("%-20s hwtrace %7ld  ftrace %7ld", wkinds[k].name, got[k], want[k]);
		EXPECT_GE(EDGE_SLACK * r->ncpu, labs(got[k] - want[k]));
		for (size_t m = 0; m < sizeof(must_see) / sizeof(must_see[0]); m++)
			if (!strcmp(must_see[m], wkinds[k].name))
				EXPECT_LT(0, got[k]) TH_LOG("no %s at all", wkinds[k].name);
	}
	EXPECT_EQ(0, unnamed);
	EXPECT_LT(0, irqs);
	EXPECT_EQ(0, unnamed_irqs);
	/* the thread's rename reached the name channel, with its process */
	ASSERT_NE(0, renamed);
	EXPECT_EQ((uint32_t)renamed, r->watched.id);
	EXPECT_STREQ("hwt-renamed", r->watched.name);
	EXPECT_EQ((uint32_t)getpid(), r->watched.tgid);
	recorder_free(r);
}

TEST_HARNESS_MAIN
