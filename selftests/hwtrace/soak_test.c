// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace soak: recording under load (hackbench, stress-ng when present,
 * and a built-in forker) while CPUs go offline and online, chunks come and
 * go, filters toggle and pinned threads inject user events with sequence
 * numbers, drained by a consumer.  HWT_SOAK_SECS (default 60) bounds it.
 *
 * Phase 1 (a third of the time) is exact: only the user family is logged,
 * into one dedicated STOP chunk, so the only records in CPU c's ring are the
 * control records of enable/disable (which always fit: they may use the
 * emergency area and the normal area never overfills it) and the events of
 * the thread pinned to c.  The consumer drains slowly enough that rings
 * fill up.  At the end, for every CPU:
 *     events seen + the ring's lost counter == events injected,
 * the last in-band lost record carries that counter, the ring's written
 * counter equals the records drained, and sequence numbers only increase.
 * The hotplug thread parks a CPU's producer before taking the CPU down, so
 * each producer's events stay on its CPU.  Chunks other than the dedicated
 * one are created, linked, unlinked and deleted meanwhile.
 *
 * Phase 2 logs every family and churns the chunks the CPUs write to:
 * generations of a small JTN chunk linked to a STOP (or, every third time,
 * CYC) chunk are selected in turn while tracing and retired behind them;
 * filters of every family but user toggle.  Losses are no longer
 * attributable to the user events, so the checks are the invariants that
 * still hold exactly: for every retired ring, written == records drained
 * (STOP/JTN) or overwritten == written - slots (CYC); no empty record; time
 * and sequence numbers never go back; and per CPU
 *     seen <= injected <= seen + lost + overwritten (over all its rings).
 * A ring is read for the last time only after a grace period
 * (membarrier(MEMBARRIER_CMD_GLOBAL) is synchronize_rcu()), when no writer
 * can be inside it.
 */
#include "hwt_test.h"
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <time.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "hwt_watchdog.h"
#include "kselftest_harness.h"

#define MAX_CPUS	64
#define MAX_GENS	4
#define MAX_ERRORS	16
#define CODE_P1		HWT_EV_USER_EVENT_1
#define CODE_P2		HWT_EV_USER_EVENT_2

extern char **environ;

/* Consumer state of one (chunk, CPU) ring. */
struct ring {
	struct hwt_map m;
	int chunk, cpu;
	bool cyc;
	uint64_t drained;	/* records read */
	uint64_t last_ts;
	bool have_seq;
	uint32_t last_seq;
	uint32_t last_lost;	/* par2 of the last lost record */
	uint64_t user_seen;
	bool stopped;		/* last record read was trace_stop */
};

struct gen {
	bool live;
	int j, t;		/* JTN chunk, its STOP/CYC target */
	struct ring rings[2][MAX_CPUS];
};

struct producer {
	pthread_t thread;
	struct soak *s;
	int cpu;
	bool running;
	volatile bool pause_req;	/* hotplug wants the CPU */
	volatile bool paused;
	uint64_t produced;
	int err;
};

struct soak {
	int fd, ncpu;
	uint16_t code;			/* the user event of this phase */
	volatile bool stop;		/* phase threads stop */
	volatile bool stop_load;
	struct rng rng;
	struct producer prod[MAX_CPUS];
	pthread_mutex_t lock;		/* the rings below and their state */
	struct ring p1[MAX_CPUS];	/* phase 1: the dedicated chunk */
	int p1_chunk;
	struct gen gens[MAX_GENS];	/* phase 2 */
	uint64_t seen[MAX_CPUS];	/* phase 2: user events per CPU, retired rings */
	uint64_t lost[MAX_CPUS];	/* phase 2: lost + overwritten, retired rings */
	pthread_mutex_t err_lock;
	int nr_errors;
	char errors[MAX_ERRORS][200];
	/* statistics */
	uint64_t offlines, offline_fail, gens_made, churned, toggles, load_runs;
};

static void report(struct soak *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(struct soak *s, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&s->err_lock);
	if (s->nr_errors < MAX_ERRORS) {
		va_start(ap, fmt);
		vsnprintf(s->errors[s->nr_errors], sizeof(s->errors[0]), fmt, ap);
		va_end(ap);
	}
	s->nr_errors++;
	pthread_mutex_unlock(&s->err_lock);
}

/* Every writer that could still be inside a ring has left it. */
static int grace_period(void)
{
	return syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) ? -errno : 0;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Check and count records read from ring r. */
static void parse(struct soak *s, struct ring *r, const struct hwt_event *ev,
		  size_t n, bool exact)
{
	for (size_t i = 0; i < n; i++) {
		uint16_t code = HWT_CODE(ev[i].code);
		uint64_t ts = hwt_event_tsc(&ev[i]);

		r->drained++;
		r->stopped = code == HWT_EV_TRACE_STOP;
		if (!ev[i].code && !ts) {
			report(s, "chunk %d cpu %d: empty record at %llu", r->chunk, r->cpu,
			       (unsigned long long)r->drained);
			continue;
		}
		if (ts < r->last_ts)
			report(s, "chunk %d cpu %d: time goes back at record %llu (code %#x)",
			       r->chunk, r->cpu, (unsigned long long)r->drained, code);
		r->last_ts = ts;
		if (code == s->code) {
			if (ev[i].par1 != r->cpu)
				report(s, "chunk %d cpu %d: event of cpu %u", r->chunk,
				       r->cpu, ev[i].par1);
			else if (r->have_seq && ev[i].par2 <= r->last_seq)
				report(s, "chunk %d cpu %d: seq %u after %u", r->chunk,
				       r->cpu, ev[i].par2, r->last_seq);
			r->have_seq = true;
			r->last_seq = ev[i].par2;
			r->user_seen++;
		} else if (code == HWT_EV_LOST) {
			if (ev[i].par2 < r->last_lost)
				report(s, "chunk %d cpu %d: lost total %u after %u", r->chunk,
				       r->cpu, ev[i].par2, r->last_lost);
			r->last_lost = ev[i].par2;
		} else if (exact && code != HWT_EV_CYCLES_PER_MSEC &&
			   code != HWT_EV_TRACE_START && code != HWT_EV_ID &&
			   code != HWT_EV_TRACE_STOP) {
			report(s, "chunk %d cpu %d: unexpected code %#x in phase 1",
			       r->chunk, r->cpu, code);
		}
	}
}

static void drain_ring(struct soak *s, struct ring *r, bool exact)
{
	struct hwt_event buf[256];
	size_t n;

	if (!r->m.meta || r->cyc)
		return;
	do {
		n = hwt_drain(&r->m, buf, 256);
		parse(s, r, buf, n, exact);
	} while (n == 256);
}

/*
 * Map a ring, not inherited by the load's forked children: a child's copy
 * would keep the chunk busy (mapped) when the test deletes it.
 */
/*
 * A child forked between mmap() and madvise(MADV_DONTFORK) would hold a
 * copy of the mapping, and with it the chunk, until it exits: the forker
 * waits for this lock.
 */
static pthread_mutex_t map_fork_lock = PTHREAD_MUTEX_INITIALIZER;

static int map_nofork(int fd, int chunk, int cpu, struct hwt_map *m)
{
	int ret;

	pthread_mutex_lock(&map_fork_lock);
	ret = hwt_map(fd, chunk, cpu, m);
	if (!ret && (madvise(m->meta, 4096, MADV_DONTFORK) ||
		     madvise((void *)m->data, m->data_size, MADV_DONTFORK))) {
		ret = -errno;
		hwt_unmap(m);
		memset(m, 0, sizeof(*m));
	}
	pthread_mutex_unlock(&map_fork_lock);
	return ret;
}

static int map_ring(struct soak *s, struct ring *r, int chunk, int cpu, bool cyc)
{
	memset(r, 0, sizeof(*r));
	r->chunk = chunk;
	r->cpu = cpu;
	r->cyc = cyc;
	return map_nofork(s->fd, chunk, cpu, &r->m);
}

/*
 * A ring nobody writes to any more (after a grace period): read the rest,
 * check its counters against what was read, and unmap it.
 */
static void retire_ring(struct soak *s, struct ring *r)
{
	struct hwt_chunk_stat st;
	struct hwt_event *win;
	size_t n;

	if (!r->m.meta)
		return;
	if (hwt_stat(s->fd, r->chunk, r->cpu, &st)) {
		report(s, "chunk %d cpu %d: no stat", r->chunk, r->cpu);
		goto out;
	}
	if (r->cyc) {
		win = calloc(r->m.nr_slots, sizeof(*win));
		if (!win) {
			report(s, "out of memory");
			goto out;
		}
		n = hwt_read_cyc(&r->m, win);
		parse(s, r, win, n, false);
		free(win);
		if (st.overwritten != (st.written > r->m.nr_slots ? st.written - r->m.nr_slots : 0))
			report(s, "CYC chunk %d cpu %d: written %llu overwritten %llu slots %u",
			       r->chunk, r->cpu, (unsigned long long)st.written,
			       (unsigned long long)st.overwritten, r->m.nr_slots);
	} else {
		drain_ring(s, r, false);
		if (r->drained != st.written)
			report(s, "chunk %d cpu %d: written %llu, drained %llu", r->chunk,
			       r->cpu, (unsigned long long)st.written,
			       (unsigned long long)r->drained);
		if (r->last_lost > st.lost)
			report(s, "chunk %d cpu %d: lost record %u > counter %llu",
			       r->chunk, r->cpu, r->last_lost, (unsigned long long)st.lost);
	}
	if (r->m.meta->lost != st.lost || r->m.meta->written != st.written)
		report(s, "chunk %d cpu %d: meta page counters differ from the table",
		       r->chunk, r->cpu);
	s->seen[r->cpu] += r->user_seen;
	s->lost[r->cpu] += st.lost + st.overwritten;
out:
	hwt_unmap(&r->m);
	memset(&r->m, 0, sizeof(r->m));
}

/* Inject numbered events on one CPU; park while the CPU is taken down. */
static void *produce(void *arg)
{
	struct producer *p = arg;
	struct soak *s = p->s;
	uint32_t seq = 0;

	p->err = hwt_pin(p->cpu);
	while (!p->err && !s->stop) {
		if (p->pause_req) {
			__atomic_store_n(&p->paused, true, __ATOMIC_RELEASE);
			while (p->pause_req) {
				if (s->stop)
					return NULL;	/* the CPU may be down */
				sleep_ms(1);
			}
			/* the CPU is back: the kernel broke our affinity */
			p->err = hwt_pin(p->cpu);
			__atomic_store_n(&p->paused, false, __ATOMIC_RELEASE);
			continue;
		}
		if (sched_getcpu() != p->cpu) {
			report(s, "producer %d runs on cpu %d", p->cpu, sched_getcpu());
			p->err = -EXDEV;
			break;
		}
		p->err = (int)hwt_log(s->fd, s->code, (uint16_t)p->cpu, seq);
		if (!p->err) {
			seq++;
			p->produced++;
		}
		if (!(seq & 255))
			sched_yield();
	}
	return NULL;
}

static bool can_hotplug(int cpu)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return cpu > 0 && !access(path, W_OK) && hwt_cpu_online(cpu);
}

/* Take CPUs 1.. down and up again, one at a time, parking their producer. */
static void *hotplug(void *arg)
{
	struct soak *s = arg;
	struct rng r = { s->rng.s ^ 0x1234 };

	while (!s->stop) {
		for (int c = 1; c < s->ncpu && !s->stop; c++) {
			struct producer *p = &s->prod[c];

			if (!p->running)
				continue;
			p->pause_req = true;
			while (!__atomic_load_n(&p->paused, __ATOMIC_ACQUIRE) && !s->stop &&
			       p->running && !p->err)
				sleep_ms(1);
			if (hwt_cpu_set_online(c, false)) {
				s->offline_fail++;
			} else {
				s->offlines++;
				sleep_ms(20 + below(&r, 200));
				if (hwt_cpu_set_online(c, true)) {
					report(s, "cpu %d does not come back online", c);
					s->stop = true;
				}
			}
			/* wait until the producer is pinned again */
			p->pause_req = false;
			while (__atomic_load_n(&p->paused, __ATOMIC_ACQUIRE) && !s->stop &&
			       !p->err)
				sleep_ms(1);
			sleep_ms(100 + below(&r, 400));
		}
	}
	return NULL;
}

/* Create, link, unlink and delete chunks nobody writes to. */
static void churn(struct soak *s, struct rng *r)
{
	int a = hwt_create(s->fd, 16 * (16 + below(r, 256)), 64, HWT_CHUNK_JTN);
	int b = hwt_create(s->fd, 16 * (16 + below(r, 256)), 64,
			   below(r, 2) ? HWT_CHUNK_STOP : HWT_CHUNK_CYC);
	struct hwt_map m = { 0 };
	uint32_t flags = 0;
	long ret[4];

	if (a < 0 || b < 0) {
		report(s, "churn: create %d %d", a, b);
		return;
	}
	if (hwt_link(s->fd, a, b) || hwt_get_flags(s->fd, b, &flags) ||
	    flags & HWT_CHUNK_FREE)
		report(s, "churn: link %d -> %d", a, b);
	if (map_nofork(s->fd, b, below(r, s->ncpu), &m) == 0) {
		if (hwt_ioc(s->fd, HWT_IOC_CHUNK_DELETE, b) != -EBUSY)
			report(s, "churn: deleted a linked, mapped chunk");
		hwt_unmap(&m);
	}
	ret[0] = hwt_link(s->fd, a, HWT_NO_CHUNK);
	ret[1] = hwt_set_flags(s->fd, b, (flags & HWT_CHUNK_MODE_MASK) | HWT_CHUNK_FREE);
	ret[2] = hwt_ioc(s->fd, HWT_IOC_CHUNK_DELETE, a);
	ret[3] = hwt_ioc(s->fd, HWT_IOC_CHUNK_DELETE, b);
	if (ret[0] || ret[1] || ret[2] || ret[3])
		report(s, "churn %d -> %d: unlink %ld, free %ld, delete %ld, %ld", a, b,
		       ret[0], ret[1], ret[2], ret[3]);
	s->churned++;
}

/* Phase 1: drain the dedicated chunk, slowly enough to lose some. */
static void *consume_p1(void *arg)
{
	struct soak *s = arg;
	struct rng r = { s->rng.s ^ 0x5678 };

	while (!s->stop) {
		pthread_mutex_lock(&s->lock);
		for (int c = 0; c < s->ncpu; c++)
			drain_ring(s, &s->p1[c], true);
		pthread_mutex_unlock(&s->lock);
		if (!below(&r, 8))
			churn(s, &r);
		sleep_ms(below(&r, 60));
	}
	return NULL;
}

static int make_gen(struct soak *s, struct gen *g, bool cyc)
{
	memset(g, 0, sizeof(*g));
	g->j = hwt_create(s->fd, 64 * REC, 8 * REC, HWT_CHUNK_JTN);
	g->t = hwt_create(s->fd, 512 * REC, 8 * REC, cyc ? HWT_CHUNK_CYC : HWT_CHUNK_STOP);
	if (g->j < 0 || g->t < 0)
		return -ENOMEM;
	if (hwt_link(s->fd, g->j, g->t))
		return -EINVAL;
	for (int c = 0; c < s->ncpu; c++) {
		if (map_ring(s, &g->rings[0][c], g->j, c, false) ||
		    map_ring(s, &g->rings[1][c], g->t, c, cyc))
			return -ENOMEM;
	}
	g->live = true;
	return 0;
}

/* A generation no CPU can reach: last read of its rings, then delete it. */
static void retire_gen(struct soak *s, struct gen *g)
{
	uint32_t fj = 0, ft = 0;

	if (hwt_link(s->fd, g->j, HWT_NO_CHUNK) ||
	    hwt_get_flags(s->fd, g->j, &fj) || hwt_get_flags(s->fd, g->t, &ft) ||
	    hwt_set_flags(s->fd, g->j, (fj & HWT_CHUNK_MODE_MASK) | HWT_CHUNK_FREE) ||
	    hwt_set_flags(s->fd, g->t, (ft & HWT_CHUNK_MODE_MASK) | HWT_CHUNK_FREE))
		report(s, "gen %d/%d: cannot give the chunks back (flags %#x %#x)",
		       g->j, g->t, fj, ft);
	if (grace_period())
		report(s, "membarrier: %s", strerror(errno));
	pthread_mutex_lock(&s->lock);
	for (int c = 0; c < s->ncpu; c++) {
		retire_ring(s, &g->rings[0][c]);
		retire_ring(s, &g->rings[1][c]);
	}
	g->live = false;
	pthread_mutex_unlock(&s->lock);
	if (hwt_ioc(s->fd, HWT_IOC_CHUNK_DELETE, g->j) ||
	    hwt_ioc(s->fd, HWT_IOC_CHUNK_DELETE, g->t))
		report(s, "gen %d/%d: delete refused", g->j, g->t);
}

/* Phase 2: select a new generation, retire the one before. */
static void *manage_p2(void *arg)
{
	struct soak *s = arg;
	struct rng r = { s->rng.s ^ 0x9abc };
	int cur = 0;

	while (!s->stop) {
		int next = (cur + 1) % MAX_GENS;
		struct gen *g = &s->gens[next];

		sleep_ms(200 + below(&r, 600));
		if (g->live)
			retire_gen(s, g);
		pthread_mutex_lock(&s->lock);
		if (make_gen(s, g, !(++s->gens_made % 3))) {
			pthread_mutex_unlock(&s->lock);
			report(s, "cannot make a chunk generation");
			break;
		}
		pthread_mutex_unlock(&s->lock);
		if (hwt_ioc(s->fd, HWT_IOC_CHUNK_SELECT, g->j)) {
			report(s, "select %d while tracing", g->j);
			break;
		}
		retire_gen(s, &s->gens[cur]);
		cur = next;
		if (!below(&r, 3))
			churn(s, &r);
	}
	return NULL;
}

static void *consume_p2(void *arg)
{
	struct soak *s = arg;
	struct rng r = { s->rng.s ^ 0xdef0 };

	while (!s->stop) {
		pthread_mutex_lock(&s->lock);
		for (int gi = 0; gi < MAX_GENS; gi++) {
			if (!s->gens[gi].live)
				continue;
			for (int c = 0; c < s->ncpu; c++) {
				drain_ring(s, &s->gens[gi].rings[0][c], false);
				drain_ring(s, &s->gens[gi].rings[1][c], false);
			}
		}
		pthread_mutex_unlock(&s->lock);
		sleep_ms(below(&r, 30));
	}
	return NULL;
}

/* Every family but user on and off while tracing. */
static void *toggle_filters(void *arg)
{
	struct soak *s = arg;
	struct rng r = { s->rng.s ^ 0x4242 };

	while (!s->stop) {
		uint32_t fam = below(&r, HWT_NR_FAMILIES);

		if (fam != HWT_FAM_USER) {
			if (hwt_filter(s->fd, fam, below(&r, 2)))
				report(s, "set_filter(%u) while tracing", fam);
			s->toggles++;
		}
		/*
		 * Each change attaches or detaches probes, which patches kernel
		 * text: not faster than that (see PATCH_GAP_MS in
		 * fuzz_ioctl_test.c for what TCG does with more).
		 */
		sleep_ms(250 + below(&r, 500));
	}
	return NULL;
}

/*
 * Load: hackbench and stress-ng if the system has them, and a forker.
 * stress-ng's timer stressor arms POSIX timers, which are hrtimers; not its
 * hrtimers stressor, whose 32 SCHED_RR processes keep a TCG guest's CPU
 * RT-throttled: the CFS tasks an RCU-tasks grace period waits for then
 * starve, and the kprobe optimizer behind a kretprobe toggle sat blocked
 * for over 120 s on the debug kernel (a hung-task panic).
 */
struct load {
	pthread_t hackbench, forker;
	pid_t stress;
	bool have_hackbench;
	struct soak *s;
};

static pid_t spawn(const char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int ret;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return ret ? -1 : pid;
}

static bool in_path(const char *prog)
{
	char path[256];
	const char *dirs[] = { "/usr/bin", "/bin", "/usr/sbin", "/usr/local/bin" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], prog);
		if (!access(path, X_OK))
			return true;
	}
	return false;
}

static void *run_hackbench(void *arg)
{
	struct load *l = arg;
	const char *const argv[] = {
		"hackbench", "-p", "-g", "2", "-f", "4", "-l", "50", "-s", "64", NULL,
	};

	while (!l->s->stop_load) {
		pid_t pid = spawn(argv);

		if (pid < 0)
			break;
		waitpid(pid, NULL, 0);
		l->s->load_runs++;
	}
	return NULL;
}

/* Task creation and exit, signals, timers: events of several families. */
static void *run_forker(void *arg)
{
	struct load *l = arg;

	while (!l->s->stop_load) {
		pid_t pid;

		pthread_mutex_lock(&map_fork_lock);
		pid = fork();
		if (pid)
			pthread_mutex_unlock(&map_fork_lock);

		if (pid == 0) {
			sleep_ms(1);
			_exit(0);
		}
		if (pid > 0) {
			kill(pid, SIGCONT);
			waitpid(pid, NULL, 0);
		}
		sleep_ms(5);
	}
	return NULL;
}

static void start_load(struct soak *s, struct load *l, uint64_t secs)
{
	char timeout[32];
	const char *const argv[] = {
		"stress-ng", "--timer", "1", "--timer-freq", "2000", "--switch", "1",
		"--sigq", "1", "--timeout", timeout, "--quiet", NULL,
	};

	l->s = s;
	l->stress = -1;
	if (in_path("stress-ng")) {
		snprintf(timeout, sizeof(timeout), "%llus", (unsigned long long)secs + 60);
		l->stress = spawn(argv);
	}
	l->have_hackbench = in_path("hackbench");
	if (l->have_hackbench)
		pthread_create(&l->hackbench, NULL, run_hackbench, l);
	pthread_create(&l->forker, NULL, run_forker, l);
}

static void stop_load(struct soak *s, struct load *l)
{
	s->stop_load = true;
	if (l->stress > 0) {
		kill(l->stress, SIGTERM);
		waitpid(l->stress, NULL, 0);
	}
	if (l->have_hackbench)
		pthread_join(l->hackbench, NULL);
	pthread_join(l->forker, NULL);
}

static void start_producers(struct soak *s, uint16_t code)
{
	s->code = code;
	for (int c = 0; c < s->ncpu; c++) {
		struct producer *p = &s->prod[c];

		*p = (struct producer){ .s = s, .cpu = c };
		if (!hwt_cpu_online(c))
			continue;
		p->running = !pthread_create(&p->thread, NULL, produce, p);
	}
}

static void stop_producers(struct soak *s)
{
	for (int c = 0; c < s->ncpu; c++) {
		if (s->prod[c].running)
			pthread_join(s->prod[c].thread, NULL);
	}
}

static void all_online(struct soak *s)
{
	for (int c = 1; c < s->ncpu; c++)
		if (!hwt_cpu_online(c))
			hwt_cpu_set_online(c, true);
}

static void log_errors(struct __test_metadata *_metadata, struct soak *s)
{
	for (int i = 0; i < s->nr_errors && i < MAX_ERRORS; i++)
		TH_LOG("%s", s->errors[i]);
	if (s->nr_errors > MAX_ERRORS)
		TH_LOG("... %d errors in all", s->nr_errors);
	EXPECT_EQ(0, s->nr_errors);
}

static void phase1(struct __test_metadata *_metadata, struct soak *s, uint64_t secs)
{
	pthread_t cons, hp;
	bool hotplug_on = s->ncpu > 1 && can_hotplug(1);

	ASSERT_EQ(0, hwt_only(s->fd, 1u << HWT_FAM_USER));
	s->p1_chunk = hwt_create(s->fd, 512 * REC, 16 * REC, HWT_CHUNK_STOP);
	ASSERT_LE(0, s->p1_chunk);
	for (int c = 0; c < s->ncpu; c++) {
		ASSERT_EQ(0, map_ring(s, &s->p1[c], s->p1_chunk, c, false));
	}
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_CHUNK_SELECT, s->p1_chunk));
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_ENABLE, 0));
	s->stop = false;
	start_producers(s, CODE_P1);
	ASSERT_EQ(0, pthread_create(&cons, NULL, consume_p1, s));
	if (hotplug_on) {
		ASSERT_EQ(0, pthread_create(&hp, NULL, hotplug, s));
	}
	sleep(secs);
	s->stop = true;
	if (hotplug_on)
		pthread_join(hp, NULL);
	stop_producers(s);
	pthread_join(cons, NULL);
	all_online(s);
	/* disable writes the pending lost totals and trace_stop on every CPU */
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_DISABLE, 0));

	for (int c = 0; c < s->ncpu; c++) {
		struct ring *r = &s->p1[c];
		struct producer *p = &s->prod[c];
		struct hwt_chunk_stat st;

		drain_ring(s, r, true);
		ASSERT_EQ(0, hwt_stat(s->fd, s->p1_chunk, c, &st));
		EXPECT_EQ(0, p->err) TH_LOG("producer %d: %s", c, strerror(-p->err));
		TH_LOG("phase 1 cpu %d: injected %llu, seen %llu, lost %llu",
		       c, (unsigned long long)p->produced, (unsigned long long)r->user_seen,
		       (unsigned long long)st.lost);
		/* the accounting is exact */
		EXPECT_EQ(p->produced, r->user_seen + st.lost);
		EXPECT_EQ(st.lost, r->m.meta->lost);
		EXPECT_EQ((uint32_t)st.lost, r->last_lost);
		EXPECT_EQ(st.written, r->drained);
		if (p->running) {
			EXPECT_TRUE(r->stopped) TH_LOG("cpu %d: no trace_stop at the end", c);
		}
		hwt_unmap(&r->m);
		memset(&r->m, 0, sizeof(r->m));
	}
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_CHUNK_SELECT, HWT_NO_CHUNK));
	ASSERT_EQ(0, hwt_set_flags(s->fd, s->p1_chunk, HWT_CHUNK_STOP | HWT_CHUNK_FREE));
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_CHUNK_DELETE, s->p1_chunk));
	TH_LOG("phase 1: %llu cpu offlines (%llu refused), %llu chunk pairs churned",
	       (unsigned long long)s->offlines, (unsigned long long)s->offline_fail,
	       (unsigned long long)s->churned);
}

static void phase2(struct __test_metadata *_metadata, struct soak *s, uint64_t secs)
{
	pthread_t cons, mgr, tog, hp;
	bool hotplug_on = s->ncpu > 1 && can_hotplug(1);

	s->offlines = s->offline_fail = s->churned = 0;
	ASSERT_EQ(0, make_gen(s, &s->gens[0], false));
	ASSERT_EQ(0, hwt_only(s->fd, 0xFFFF));
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_CHUNK_SELECT, s->gens[0].j));
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_ENABLE, 0));
	s->stop = false;
	start_producers(s, CODE_P2);
	ASSERT_EQ(0, pthread_create(&cons, NULL, consume_p2, s));
	ASSERT_EQ(0, pthread_create(&mgr, NULL, manage_p2, s));
	ASSERT_EQ(0, pthread_create(&tog, NULL, toggle_filters, s));
	if (hotplug_on) {
		ASSERT_EQ(0, pthread_create(&hp, NULL, hotplug, s));
	}
	sleep(secs);
	s->stop = true;
	if (hotplug_on)
		pthread_join(hp, NULL);
	stop_producers(s);
	pthread_join(tog, NULL);
	pthread_join(mgr, NULL);
	pthread_join(cons, NULL);
	all_online(s);
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_DISABLE, 0));
	ASSERT_EQ(0, hwt_ioc(s->fd, HWT_IOC_CHUNK_SELECT, HWT_NO_CHUNK));
	for (int gi = 0; gi < MAX_GENS; gi++)
		if (s->gens[gi].live)
			retire_gen(s, &s->gens[gi]);

	for (int c = 0; c < s->ncpu; c++) {
		struct producer *p = &s->prod[c];

		EXPECT_EQ(0, p->err) TH_LOG("producer %d: %s", c, strerror(-p->err));
		TH_LOG("phase 2 cpu %d: injected %llu, seen %llu, lost or overwritten %llu (all families)",
		       c, (unsigned long long)p->produced, (unsigned long long)s->seen[c],
		       (unsigned long long)s->lost[c]);
		EXPECT_LE(s->seen[c], p->produced);
		EXPECT_LE(p->produced, s->seen[c] + s->lost[c]);
	}
	TH_LOG("phase 2: %llu generations, %llu cpu offlines (%llu refused), %llu filter changes, "
	       "%llu chunk pairs churned, %llu hackbench runs",
	       (unsigned long long)s->gens_made, (unsigned long long)s->offlines,
	       (unsigned long long)s->offline_fail, (unsigned long long)s->toggles,
	       (unsigned long long)s->churned, (unsigned long long)s->load_runs);
}

FIXTURE(soak) {
	struct soak *s;
};

FIXTURE_SETUP(soak)
{
	self->s = calloc(1, sizeof(*self->s));
	ASSERT_NE(NULL, self->s);
}

FIXTURE_TEARDOWN(soak)
{
	struct soak *s = self->s;

	if (s->fd > 0) {
		all_online(s);
		hwt_reset(s->fd);
		close(s->fd);
	}
	free(s);
}

/* The duration is HWT_SOAK_SECS; the harness timeout only catches hangs. */
TEST_F_TIMEOUT(soak, record_under_load, 86400)
{
	const char *env = getenv("HWT_SOAK_SECS");
	uint64_t secs = env && *env ? strtoull(env, NULL, 0) : 60;
	uint64_t p1 = secs / 3 > 5 ? secs / 3 : 5;
	uint64_t p2 = secs > p1 + 5 ? secs - p1 : 5;
	struct soak *s = self->s;
	struct watchdog w;
	struct timespec ts;
	struct load load;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->rng.s = ((uint64_t)ts.tv_sec << 20 ^ ts.tv_nsec) | 1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->err_lock, NULL);
	s->fd = hwt_open();
	ASSERT_LE(0, s->fd);
	hwt_reset(s->fd);
	s->ncpu = hwt_nr_cpus(s->fd);
	ASSERT_LT(0, s->ncpu);
	ASSERT_GE(MAX_CPUS, s->ncpu);
	ASSERT_EQ(0, grace_period()) TH_LOG("membarrier(MEMBARRIER_CMD_GLOBAL) is needed");
	TH_LOG("%llu s: phase 1 %llu s, phase 2 %llu s; %d CPUs, hotplug %s, hackbench %s, stress-ng %s",
	       (unsigned long long)secs, (unsigned long long)p1, (unsigned long long)p2,
	       s->ncpu, s->ncpu > 1 && can_hotplug(1) ? "yes" : "no",
	       in_path("hackbench") ? "yes" : "no", in_path("stress-ng") ? "yes" : "no");

	/* setup and teardown of each phase take seconds, under KASAN tens */
	watchdog_start(&w, secs + 300, "soak");
	start_load(s, &load, secs);
	phase1(_metadata, s, p1);
	if (_metadata->passed && !s->nr_errors)
		phase2(_metadata, s, p2);
	stop_load(s, &load);
	log_errors(_metadata, s);
	watchdog_stop(&w);
}

TEST_HARNESS_MAIN
