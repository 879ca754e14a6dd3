/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtrace record's parts:
 *
 *   cmd_record.c    options, backend choice, chunks and filters, the child,
 *                   teardown and the summary
 *   record_drain.c  the drain: rings -> .hwt file or UDP, live (a thread per
 *                   CPU where the backend drains CPU by CPU) and at the end
 *   record_bpf.c    the BPF backend (opening it, its rec_backend calls)
 *
 * The drain sees a backend only through struct rec_backend, so it can be
 * run (and profiled, and tested: tests/test_drain.c) against any source.
 */
#ifndef HWTRACE_RECORD_H
#define HWTRACE_RECORD_H

#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include <hwt/hwt.h>

enum rec_mode { MODE_STREAM, MODE_STOP, MODE_CYCLIC, MODE_CHAIN };

struct rec;

/* A backend's calls, as the drain needs them; errors are -errno. */
struct rec_backend {
	int (*enable)(struct rec *r);
	int (*disable)(struct rec *r);
	/* stream: wait (at most timeout_ms) for records, pass them to fn */
	int64_t (*poll)(struct rec *r, int timeout_ms, hwt_sink_fn_t fn);
	/*
	 * The same for one CPU's rings, from that CPU's drain thread, if the
	 * backend has it (NULL: poll() from one thread).  fn locks r->lock.
	 */
	int64_t (*poll_cpu)(struct rec *r, uint32_t cpu, int timeout_ms,
			    hwt_sink_fn_t fn);
	/* tracing off: everything the rings hold (STOP drained, CYC saved) */
	int64_t (*consume)(struct rec *r, hwt_sink_fn_t fn);
	/* task and irq names since the last call; 0 none, -EOPNOTSUPP never */
	int (*read_names)(struct rec *r, struct hwt_name *names, size_t n);
	/* lost and overwritten per CPU (added to lost[], ow[]), the fullest ring in % */
	void (*counters)(struct rec *r, uint64_t *lost, uint64_t *ow, uint64_t *fill_pct);
	/* names that did not fit, at the end */
	uint64_t (*names_lost)(struct rec *r);
};

struct rec {
	const struct rec_backend *be;
	struct hwt_dev *dev;
	struct hwt_bpf *bpf;		/* the BPF backend instead of dev */
	struct hwt_consumer *cons;
	struct hwt_version ver;		/* nr_cpus and clock, for either backend */
	enum rec_mode mode;
	int chunk[2];
	int nr_chunks;
	int persist;			/* chunk[0] is the persistent area's */
	int enabled;
	int old_filter;

	/* the output: a file (w), or UDP packets (udp >= 0) */
	const char *out;
	struct hwt_writer *w;
	int udp;
	struct net_addr addr;
	uint32_t packet_no;
	uint64_t udp_refused;

	/* the drain's settings */
	uint32_t wait_ms;		/* longest sleep between drains */
	double duration;		/* seconds, 0: until stopped */
	int quiet;			/* no status line */
	pid_t child;			/* the command; -1 none or reaped */
	int child_status;

	/*
	 * Drain threads, one per CPU (poll_cpu): each has its own share of
	 * the CPU, as trace-cmd's per-CPU readers do, so a loaded machine
	 * starves them less than one drain.  lock: the output and the
	 * counts below, which they share with the main thread.
	 */
	pthread_mutex_t lock;
	pthread_t *drainers;
	uint32_t nr_drainers;
	int drainers_stop;		/* atomic */
	int drainers_err;		/* atomic: the first error, -errno */

	/* what the drain saw */
	uint64_t *cpu_records;		/* [ver.nr_cpus] */
	uint64_t *lost, *ow;		/* [ver.nr_cpus], as of the last counters() */
	uint64_t fill;			/* the fullest ring, % */
	uint64_t total;
	uint64_t missed;		/* events lost on no known CPU: bpf programs
					 * the kernel did not run, set_priority
					 * calls the module's kretprobes missed */
	uint64_t missed_base;		/* ... before the trace began */
	double t0;			/* when the drain began (CLOCK_MONOTONIC) */
	int names_ok;
	int err;
};

/* record_drain.c */
double rec_now(void);
/* The per-CPU arrays; 0 or -ENOMEM. */
int rec_alloc(struct rec *r);
void rec_free(struct rec *r);
/*
 * Tracing is on: drain (stream mode) or wait, until stop_requested, the
 * duration, the child's exit or an error (r->err).  Flushes the file and
 * its loss counters every second.
 */
void rec_drain(struct rec *r);
/* Disable tracing, then take everything left and close the output. */
void rec_drain_rest(struct rec *r);
/*
 * -r PRIO: a SCHED_FIFO priority (1..99) into *prio; 0, or -1 with the
 * range said.
 */
int rec_parse_rt_prio(const char *s, int *prio);
/*
 * The drain (the calling thread) at SCHED_FIFO prio, as trace-cmd -r: a
 * busy machine cannot starve it until its rings overflow.  0, or -errno
 * with the reason said.
 */
int rec_set_rt_prio(int prio);
/* Nice values: the default of the drain, and the range -n takes. */
#define REC_NICE_DEFAULT	(-10)
#define REC_NICE_NONE		INT_MIN		/* no -n: the default, if allowed */
/* -n NICE: a nice value (-20..19) into *nice; 0, or -1 with the range said. */
int rec_parse_nice(const char *s, int *nice);
/*
 * The drain (the calling thread, and the threads it starts) at nice value
 * nice.  REC_NICE_NONE: REC_NICE_DEFAULT, but only for a recorder started
 * at nice 0 (a user who chose a nice keeps it) and only where allowed,
 * silently.  0, or -errno with the reason said (nice given with -n only).
 */
int rec_set_nice(int nice);
/* Events, losses per CPU and warnings, to stderr. */
void rec_summary(const struct rec *r);

/* record_bpf.c: open libhwt's BPF backend, explaining failures; 0 or an exit code */
int rec_bpf_open(struct rec *r, uint32_t families, uint64_t bufsize, int verbose);

#endif /* HWTRACE_RECORD_H */
