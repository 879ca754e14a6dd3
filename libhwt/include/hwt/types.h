/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libhwt: types shared by the reader, the merge iterator and the converters.
 *
 * A converter never sees a file or a device: it reads a struct hwt_stream,
 * which yields records of all CPUs in time order and answers name look-ups.
 * The .hwt reader, the live consumer and the tests' in-memory traces all
 * provide one.
 */
#ifndef HWT_TYPES_H
#define HWT_TYPES_H

#include <stdint.h>
#include <linux/hwtrace.h>

#ifdef __cplusplus
extern "C" {
#endif

_Static_assert(sizeof(struct hwt_event) == HWT_EVENT_SIZE, "record is 16 bytes");

/* A record with the CPU it was taken on and its full timestamp. */
struct hwt_record {
	uint64_t ts;		/* clock ticks: HWT_EVENT_TSC(&ev) */
	uint32_t cpu;
	uint32_t reserved;
	struct hwt_event ev;
};

#define HWT_COMM_LEN	16
#define HWT_HOST_LEN	65

struct hwt_task {
	uint32_t pid;
	uint32_t tgid;
	char comm[HWT_COMM_LEN];	/* NUL-terminated, bytes as the kernel had them */
};

/*
 * What hwtrace listen did with the datagrams it read (a .hwt COUNTERS block
 * carries them; Documentation/hwt-file-format.rst).  received = kept + end +
 * every drop (malformed ... duplicate); late packets are among the kept;
 * missing counts packet numbers below the last one (or the end packet's
 * count) whose records are not in the file.  New fields go at the end.
 */
struct hwt_net_counters {
	uint64_t received;		/* datagrams read from the socket */
	uint64_t kept;			/* data packets whose records were written */
	uint64_t end;			/* end-of-trace packets accepted (0 or 1) */
	uint64_t malformed;		/* not a S.Ha.R.K./hwtrace packet */
	uint64_t foreign;		/* from a source other than the sender's */
	uint64_t over_cpus;		/* a CPU >= the listener's --max-cpus */
	uint64_t over_memory;		/* would have taken more than --max-memory */
	uint64_t duplicate;		/* a packet number already kept */
	uint64_t late;			/* kept, after a higher number had come */
	uint64_t missing;		/* packet numbers never kept */
	uint64_t kernel_dropped;	/* the socket buffer overflowed (any source) */
};

#define HWT_NET_NR_COUNTERS	11	/* u64 fields of struct hwt_net_counters */

/* What a trace says about itself (the .hwt header plus its metadata). */
/*
 * A trace recovered from the persistent area after a reboot: which boot
 * wrote it and whether it ended in a crash (enum hwt_crash_kind).
 */
struct hwt_recovery {
	uint32_t recovered;		/* 1: the fields below are set */
	uint32_t crash;			/* HWT_CRASH_NONE / PANIC / OOPS */
	uint32_t crash_cpu;
	uint8_t boot_id[16];
};

struct hwt_trace_info {
	uint32_t nr_cpus;
	uint32_t clock;			/* enum hwt_clock */
	uint64_t cycles_per_msec;	/* ticks per millisecond of ts */
	int64_t creation_time;		/* seconds since the epoch, UTC */
	uint32_t families;		/* bit n: family n was recorded */
	uint32_t chunk_mode;		/* HWT_CHUNK_CYC / JTN / STOP */
	char kernel_release[HWT_HOST_LEN];
	char hostname[HWT_HOST_LEN];
	char backend[16];		/* "module" or "bpf" */
	const uint64_t *lost;		/* [nr_cpus] events lost per CPU */
	const uint64_t *overwritten;	/* [nr_cpus] records overwritten per CPU */
	/* added by the .hwt reader; a producer may leave them 0 */
	uint64_t nr_records;		/* records in the trace, all CPUs */
	uint64_t names_lost;		/* name records the kernel dropped */
	uint64_t lost_nocpu;		/* events lost on no known CPU (bpf) */
	/* received over UDP (hwtrace listen): its packet counters, else NULL */
	const struct hwt_net_counters *net;
	/* added by the .hwt reader: set in files hwtrace recover wrote */
	struct hwt_recovery recovery;
	char writer_version[16];	/* libhwt that wrote it; "" before 1.1 */
};

/*
 * A time-ordered source of records.  next() returns 1 and fills rec, 0 at the
 * end, or a negative errno.  rewind() restarts at the first record (for a
 * converter's second pass).  task() and irq_name() return NULL when unknown.
 */
struct hwt_stream {
	const struct hwt_trace_info *info;
	int (*next)(void *ctx, struct hwt_record *rec);
	int (*rewind)(void *ctx);
	const struct hwt_task *(*task)(void *ctx, uint32_t pid);
	const char *(*irq_name)(void *ctx, uint32_t irq);
	void *ctx;
};

#ifdef __cplusplus
}
#endif

#endif /* HWT_TYPES_H */
