/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libhwt's BPF backend: record without the module.  In libhwt-bpf.a (it
 * needs libbpf: link with `pkg-config --libs libbpf`); the programs are
 * embedded (a bpftool skeleton), nothing is read from disk but the kernel's
 * BTF.  Documentation/hwtrace-bpf.rst explains the design.
 *
 *   hwt_bpf_open()    check BTF and capabilities, load (verifier), map the
 *                     rings, attach the programs (events still off)
 *   hwt_bpf_start()   name every task alive, then start each CPU: its
 *                     cycles_per_msec, trace_start and id records
 *   hwt_bpf_poll()    drain the per-CPU rings into a hwt_sink_fn_t
 *   hwt_bpf_read_names()  task and IRQ names, as hwt_dev_read_names()
 *   hwt_bpf_stop()    each CPU's trace_stop, detach, wait for writers
 *   hwt_bpf_consume() the rest (STOP drained, CYC snapshotted)
 *
 * The records are the module's: same codes, parameters, per-CPU order and
 * loss counting; the clock is CLOCK_MONOTONIC (HWT_CLOCK_MONO, 1000000
 * ticks per ms).  Timer and lock ids are a keyed hash with a key of their
 * own: stable within one trace, never an address.
 */
#ifndef HWT_BPF_H
#define HWT_BPF_H

#include <hwt/hwt.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HWT_BPF_BTF_PATH	"/sys/kernel/btf/vmlinux"
#define HWT_BPF_DEFAULT_BUFSIZE	(1u << 20)
/* records kept per CPU for control records when the ring is full */
#define HWT_BPF_EMERGENCY_SLOTS	256

struct hwt_bpf;

struct hwt_bpf_opts {
	size_t sz;			/* sizeof(struct hwt_bpf_opts) */
	uint32_t families;		/* bit n: record family n; 0: all */
	uint64_t bufsize;		/* event bytes per CPU; 0: 1 MiB */
	uint32_t mode;			/* HWT_CHUNK_STOP (default) or HWT_CHUNK_CYC */
	int verbose;			/* libbpf's messages (verifier log) to stderr */
	const char *btf_path;		/* NULL: HWT_BPF_BTF_PATH */
};

/* What stopped hwt_bpf_open(), for a message that says what to do. */
enum hwt_bpf_stage {
	HWT_BPF_STAGE_NONE,
	HWT_BPF_STAGE_BTF,		/* -ENOENT: the kernel has no BTF */
	HWT_BPF_STAGE_PERM,		/* -EPERM: capabilities missing */
	HWT_BPF_STAGE_SETUP,		/* bad options, no memory */
	HWT_BPF_STAGE_LOAD,		/* the verifier rejected prog */
	HWT_BPF_STAGE_MAP,		/* mapping the rings */
	HWT_BPF_STAGE_ATTACH,		/* attaching prog */
};

#define HWT_BPF_CAP_BPF		0x1	/* CAP_BPF (or CAP_SYS_ADMIN) */
#define HWT_BPF_CAP_PERFMON	0x2	/* CAP_PERFMON (or CAP_SYS_ADMIN) */

struct hwt_bpf_error {
	enum hwt_bpf_stage stage;
	unsigned int missing_caps;	/* HWT_BPF_CAP_* */
	char prog[64];			/* the program concerned, if any */
	char msg[256];			/* libbpf's first warning, if any */
};

/* Capabilities this process lacks to load tracing programs (HWT_BPF_CAP_*). */
unsigned int hwt_bpf_missing_caps(void);

/* err may be NULL.  Returns 0 or a negative errno (see err->stage). */
int hwt_bpf_open(struct hwt_bpf **out, const struct hwt_bpf_opts *opts,
		 struct hwt_bpf_error *err);
/* Stops if needed, detaches, unmaps, frees.  NULL is fine. */
void hwt_bpf_close(struct hwt_bpf *b);
/* Possible CPUs: one ring each. */
uint32_t hwt_bpf_nr_cpus(const struct hwt_bpf *b);
/* Records per CPU ring (events plus HWT_BPF_EMERGENCY_SLOTS). */
uint32_t hwt_bpf_slots(const struct hwt_bpf *b);
/* Programs attached, and the tracepoints of wanted families this kernel lacks. */
unsigned int hwt_bpf_nr_attached(const struct hwt_bpf *b);
unsigned int hwt_bpf_nr_missing(const struct hwt_bpf *b);

/* Once each per open: a stopped backend cannot start again (-EINVAL). */
int hwt_bpf_start(struct hwt_bpf *b);
int hwt_bpf_stop(struct hwt_bpf *b);

/*
 * One pass over every CPU ring: STOP rings drained, CYC rings snapshotted
 * (flags: HWT_SNAP_LIVE while tracing).  Returns records passed on.
 */
int64_t hwt_bpf_consume(struct hwt_bpf *b, unsigned int flags,
			hwt_sink_fn_t sink, void *ctx);
/*
 * Sleep wait_us (0: 10 ms), then drain the STOP rings in bulk; again while
 * nothing came, up to timeout_ms (-1: forever).  Returns records passed on
 * (0: timed out) or -EINTR.  Shaped like hwt_consumer_poll().
 */
int64_t hwt_bpf_poll(struct hwt_bpf *b, int timeout_ms, uint32_t wait_us,
		     hwt_sink_fn_t sink, void *ctx);
/* Queued name records (never blocks); returns how many, 0 when none. */
int hwt_bpf_read_names(struct hwt_bpf *b, struct hwt_name *names, size_t n);

/* Per-CPU counters (as the module's meta page): events lost, overwritten. */
int hwt_bpf_counters(const struct hwt_bpf *b, uint32_t cpu, uint64_t *lost,
		     uint64_t *overwritten);
/* Records held by a CPU ring now (unconsumed, or the CYC window). */
uint64_t hwt_bpf_fill(const struct hwt_bpf *b, uint32_t cpu);
/* Name records dropped (the names ring buffer was full). */
uint64_t hwt_bpf_names_lost(const struct hwt_bpf *b);
/*
 * Events the kernel did not run a program for because another program
 * was running on that CPU (bpf_prog_info.recursion_misses, all programs):
 * lost too, but the kernel does not say on which CPU.
 */
uint64_t hwt_bpf_missed(const struct hwt_bpf *b);

#ifdef __cplusplus
}
#endif

#endif /* HWT_BPF_H */
