/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libhwt: the public API.
 *
 *   /dev/hwtrace --ioctl--> struct hwt_dev       (device.c: the FTrace calls)
 *   per-CPU rings --mmap--> struct hwt_ring      (ring.c: drain, snapshot)
 *                           struct hwt_consumer  (consumer.c: all rings, waiting)
 *   records --> struct hwt_writer --> .hwt file  (file_write.c)
 *   .hwt file --> struct hwt_reader --> k-way merge --> struct hwt_stream
 *                                                 (file_read.c, merge in file_read.c)
 *   records <--> S.Ha.R.K. UDP packets           (udp.c)
 *
 * Conventions (libbpf's): opaque handles; functions return 0 or a count on
 * success and a negative errno on failure, with errno set to the positive
 * value as well; option structs start with a size field (set it to
 * sizeof(struct ...)) so they can grow without breaking callers.
 */
#ifndef HWT_HWT_H
#define HWT_HWT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwt/types.h>
#include <hwt/events.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- diagnostics ---------------------------------------------------------- */

enum hwt_print_level {
	HWT_WARN,
	HWT_INFO,
	HWT_DEBUG,
};

typedef int (*hwt_print_fn_t)(enum hwt_print_level level, const char *fmt,
			      va_list ap);

/*
 * Where the library's messages go (a truncated file, a corrupt block).  The
 * default prints warnings to stderr, prefixed "libhwt: ".  NULL silences it.
 * Returns the previous function.
 */
hwt_print_fn_t hwt_set_print(hwt_print_fn_t fn);

/* This library's version, "MAJOR.MINOR.PATCH" (hwtrace's VERSION file). */
const char *hwt_version(void);

/* --- .hwt trace files (Documentation/hwt-file-format.rst) ------------------ */

#define HWT_FILE_VERSION_MAJOR	1
/* 1: COUNTERS may carry net counters; recovery fields; writer_version */
#define HWT_FILE_VERSION_MINOR	1

struct hwt_writer;

struct hwt_writer_opts {
	size_t sz;			/* sizeof(struct hwt_writer_opts) */
	int compress;			/* 0: raw records; 1..22: zstd level */
	uint32_t block_records;		/* records per block per CPU; 0: 4096 */
	/* hwtrace recover: mark the file as a previous boot's trace */
	const struct hwt_recovery *recovery;
};

/*
 * Create a trace file and write its header from info (nr_cpus, clock,
 * cycles_per_msec, families, chunk_mode, creation_time, kernel_release,
 * hostname, backend; lost/overwritten are ignored: see set_lost).  The file
 * is written as blocks while recording: at most block_records records per
 * CPU are held in memory.  hwt_writer_fdopen() writes to fd (a dup of it).
 */
int hwt_writer_open(struct hwt_writer **out, const char *path,
		    const struct hwt_trace_info *info,
		    const struct hwt_writer_opts *opts);
int hwt_writer_fdopen(struct hwt_writer **out, int fd,
		      const struct hwt_trace_info *info,
		      const struct hwt_writer_opts *opts);
/* Append n records taken on cpu, oldest first.  -EINVAL: cpu >= 65536. */
int hwt_writer_add(struct hwt_writer *w, uint32_t cpu,
		   const struct hwt_event *ev, size_t n);
/* Names: the last one given for a pid or irq wins. */
int hwt_writer_add_task(struct hwt_writer *w, uint32_t pid, uint32_t tgid,
			const char *comm);
int hwt_writer_add_irq(struct hwt_writer *w, uint32_t irq, const char *name);
/* Per-CPU totals so far (not increments); written at each flush. */
int hwt_writer_set_lost(struct hwt_writer *w, uint32_t cpu, uint64_t lost,
			uint64_t overwritten);
int hwt_writer_set_names_lost(struct hwt_writer *w, uint64_t names_lost);
/*
 * Events lost whose CPU nobody knows (the BPF backend: the kernel ran no
 * program for them because one was running already), a total.
 */
int hwt_writer_set_lost_nocpu(struct hwt_writer *w, uint64_t lost);
/* A UDP receiver's packet counters, totals so far; written at each flush. */
int hwt_writer_set_net(struct hwt_writer *w, const struct hwt_net_counters *c);
/*
 * Bytes the writer holds in memory now, and at most how many more
 * hwt_writer_add() for cpu may take (0 once that CPU has its block buffer),
 * so that a caller fed by others (hwtrace listen) can keep a budget.
 */
uint64_t hwt_writer_mem(const struct hwt_writer *w);
uint64_t hwt_writer_cpu_cost(const struct hwt_writer *w, uint32_t cpu);
/* Write every buffered record and name, and the loss counters, now. */
int hwt_writer_flush(struct hwt_writer *w);
/* Bytes written to the file so far. */
uint64_t hwt_writer_bytes(const struct hwt_writer *w);
/* Flush, write the end block, close; frees w even on error. */
int hwt_writer_close(struct hwt_writer *w);
/* Close without the end block (tests; a crashed recorder looks like this). */
void hwt_writer_abort(struct hwt_writer *w);

struct hwt_reader;

/* hwt_reader_open()'s positive return and hwt_reader_status() bits */
#define HWT_READ_TRUNCATED	0x1	/* no end block: cut off mid-write */
#define HWT_READ_CORRUPT	0x2	/* a block failed its checksum: skipped */
#define HWT_PARTIAL		1	/* open: readable, but status != 0 */

/* Skip CRC checks: forensic recovery of a damaged file, and fuzzing. */
#define HWT_READER_NO_CRC	0x1

struct hwt_reader_opts {
	size_t sz;			/* sizeof(struct hwt_reader_opts) */
	uint32_t flags;			/* HWT_READER_* */
};

/*
 * Open a trace file: reads the header, then scans the block headers (not
 * the records) to index each CPU's blocks and to load names and counters.
 * Returns 0, HWT_PARTIAL when the file is cut off or damaged but readable
 * up to its last whole record (a warning says where), or a negative errno:
 * -EBADMSG not a .hwt file or a corrupt header, -EPROTONOSUPPORT a newer
 * major version.  Records are read block by block as the merge needs them.
 */
int hwt_reader_open(struct hwt_reader **out, const char *path,
		    const struct hwt_reader_opts *opts);
int hwt_reader_fdopen(struct hwt_reader **out, int fd,
		      const struct hwt_reader_opts *opts);
void hwt_reader_close(struct hwt_reader *r);
/* HWT_READ_* bits; CORRUPT may be added while reading. */
int hwt_reader_status(const struct hwt_reader *r);
const struct hwt_trace_info *hwt_reader_info(const struct hwt_reader *r);
/* Records of one CPU as indexed (whole records only). */
uint64_t hwt_reader_cpu_records(const struct hwt_reader *r, uint32_t cpu);
const struct hwt_task *hwt_reader_task(const struct hwt_reader *r, uint32_t pid);
const char *hwt_reader_irq_name(const struct hwt_reader *r, uint32_t irq);
/* Every known task, by pid, for i in [0, nr): NULL past the end. */
const struct hwt_task *hwt_reader_task_at(const struct hwt_reader *r, size_t i);
/*
 * The next record of all CPUs in time order (ties: lower CPU first; a CPU
 * whose own records go backwards keeps its file order).  1: rec filled,
 * 0: end, negative errno: I/O error.
 */
int hwt_reader_next(struct hwt_reader *r, struct hwt_record *rec);
int hwt_reader_rewind(struct hwt_reader *r);
/* A struct hwt_stream over the reader, for the converters. */
int hwt_reader_stream(struct hwt_reader *r, struct hwt_stream *s);

/* --- /dev/hwtrace: the FTrace API ----------------------------------------- */

#define HWT_DEV_PATH	"/dev/hwtrace"

struct hwt_dev;

/* path NULL: /dev/hwtrace.  -ENOENT: module not loaded; -EACCES: not root. */
int hwt_dev_open(struct hwt_dev **out, const char *path);
void hwt_dev_close(struct hwt_dev *d);
int hwt_dev_fd(const struct hwt_dev *d);
/* Also checks the ABI major and record size: -EPROTO on a mismatch. */
int hwt_dev_version(struct hwt_dev *d, struct hwt_version *v);
int hwt_dev_enable(struct hwt_dev *d);
int hwt_dev_disable(struct hwt_dev *d);
/* Returns the new chunk id. */
int hwt_dev_chunk_create(struct hwt_dev *d, uint64_t normal_size,
			 uint64_t emergency_size, uint32_t flags);
int hwt_dev_chunk_delete(struct hwt_dev *d, int id);
int hwt_dev_chunk_set_flags(struct hwt_dev *d, int id, uint32_t flags);
/* Returns the flags (FULL and BUSY included). */
int hwt_dev_chunk_get_flags(struct hwt_dev *d, int id);
int hwt_dev_chunk_select(struct hwt_dev *d, int id);
/* to = HWT_NO_CHUNK unlinks. */
int hwt_dev_chunk_link(struct hwt_dev *d, int from, int to);
/* First chunk whose flags include all of flags, or -ENOENT. */
int hwt_dev_chunk_first(struct hwt_dev *d, uint32_t flags);
/*
 * Fill up to room entries (chunk id, then CPU); returns how many exist,
 * which may exceed room: call again with more.
 */
int hwt_dev_chunk_table(struct hwt_dev *d, struct hwt_chunk_stat *st,
			uint32_t room);
/* status 1: do not log the family; 0: log it. */
int hwt_dev_filter_set(struct hwt_dev *d, unsigned int family, int status);
/* Returns the mask: bit n set, family n is filtered out. */
int hwt_dev_filter_get(struct hwt_dev *d);
int hwt_dev_log_event(struct hwt_dev *d, uint16_t code, uint16_t par1,
		      uint32_t par2);
int hwt_dev_set_clock(struct hwt_dev *d, unsigned int clock);
int hwt_dev_ring_info(struct hwt_dev *d, uint32_t chunk, uint32_t cpu,
		      struct hwt_ring_info *info);
int hwt_dev_probe_info(struct hwt_dev *d, uint32_t index,
		       struct hwt_probe_info *info);
/* The persist= area: what it holds; release a kept trace so it records again. */
int hwt_dev_persist_info(struct hwt_dev *d, struct hwt_persist_info *info);
int hwt_dev_persist_release(struct hwt_dev *d);
/*
 * Read queued name records (never blocks); returns how many, 0 when none.
 * -EOPNOTSUPP when the module has no name channel.
 */
int hwt_dev_read_names(struct hwt_dev *d, struct hwt_name *names, size_t n);

/* --- rings: one (chunk, CPU) mapping --------------------------------------- */

/*
 * Receives records in order, in at most two spans per call (the ring wraps).
 * The span points into the mapping or a scratch buffer: copy what you keep.
 * Return 0, or a negative errno to stop: the ring is then left unconsumed.
 */
typedef int (*hwt_sink_fn_t)(void *ctx, uint32_t cpu,
			     const struct hwt_event *ev, size_t n);

struct hwt_ring;

/* Map the meta page (read-write) and data pages (read-only) of a ring. */
int hwt_ring_map(struct hwt_dev *d, uint32_t chunk, uint32_t cpu,
		 struct hwt_ring **out);
void hwt_ring_unmap(struct hwt_ring *r);
uint32_t hwt_ring_cpu(const struct hwt_ring *r);
uint32_t hwt_ring_chunk(const struct hwt_ring *r);
uint32_t hwt_ring_slots(const struct hwt_ring *r);
/* The live meta page (counters: written, lost, overwritten). */
const struct hwt_ring_meta *hwt_ring_meta(const struct hwt_ring *r);
/* Records held now: unconsumed (STOP/JTN) or the CYC window. */
uint64_t hwt_ring_fill(const struct hwt_ring *r);
/* The ring may be written while it is read (tracing on): see snapshot. */
#define HWT_SNAP_LIVE		0x1
/* Records a live snapshot gives up to writers between reserve and commit. */
#define HWT_SNAP_MARGIN		8

/*
 * Hand the ring's records to sink: STOP/JTN rings are drained
 * (hwt_ring_drain_mem), CYC rings snapshotted (hwt_ring_snapshot_mem, flags
 * HWT_SNAP_*).  Returns the number of records passed on.
 */
int64_t hwt_ring_consume(struct hwt_ring *r, unsigned int flags,
			 hwt_sink_fn_t sink, void *ctx);

/*
 * The protocol itself, on a mapping given by pointer (so tests can drive a
 * fake meta page).  nr_slots is the caller's, never the meta page's; the
 * CPU passed to sink is the meta page's.
 *
 * drain: head = load_acquire(data_head); pass records [data_tail, head);
 *   store_release(data_tail, head).  -EPROTO if the positions are
 *   impossible; a sink error leaves data_tail where it was.
 * snapshot (CYC): the min(written, nr_slots) records ending at data_head,
 *   oldest first.  They are copied out, then data_head and written are read
 *   again: the oldest records, which writers overwrote meanwhile, are
 *   dropped rather than mixed in (with HWT_SNAP_LIVE, HWT_SNAP_MARGIN more
 *   for writes in flight).  data_tail is neither read nor written.
 */
int64_t hwt_ring_drain_mem(struct hwt_ring_meta *meta,
			   const struct hwt_event *data, uint32_t nr_slots,
			   hwt_sink_fn_t sink, void *ctx);
int64_t hwt_ring_snapshot_mem(const struct hwt_ring_meta *meta,
			      const struct hwt_event *data, uint32_t nr_slots,
			      unsigned int flags, hwt_sink_fn_t sink, void *ctx);

/* --- consumer: every CPU ring of some chunks ------------------------------ */

struct hwt_consumer;

struct hwt_consumer_opts {
	size_t sz;			/* sizeof(struct hwt_consumer_opts) */
	uint32_t wait_us;		/* longest sleep between drains; 0: 10000 */
};

int hwt_consumer_new(struct hwt_consumer **out, struct hwt_dev *d,
		     const struct hwt_consumer_opts *opts);
void hwt_consumer_free(struct hwt_consumer *c);
/* Map every CPU ring of a chunk; chunks are consumed in the order added. */
int hwt_consumer_add_chunk(struct hwt_consumer *c, int chunk);
size_t hwt_consumer_nr_rings(const struct hwt_consumer *c);
struct hwt_ring *hwt_consumer_ring(const struct hwt_consumer *c, size_t i);
/*
 * One pass over every ring without waiting; returns records passed on.
 * flags: HWT_SNAP_LIVE if tracing may be on (matters for CYC rings only).
 */
int64_t hwt_consumer_consume(struct hwt_consumer *c, unsigned int flags,
			     hwt_sink_fn_t sink, void *ctx);
/*
 * Sleep in poll(2) until a ring is a quarter full, wait_us passes or timeout_ms
 * passes (-1: no limit but wait_us), then drain the STOP/JTN rings.  CYC
 * rings are left to hwt_consumer_consume().  Returns records passed on
 * (0: none came), or -EINTR when a signal interrupted the wait.
 */
int64_t hwt_consumer_poll(struct hwt_consumer *c, int timeout_ms,
			  hwt_sink_fn_t sink, void *ctx);
/*
 * hwt_consumer_poll() for one CPU's rings, woken by those alone: for a
 * drain thread per CPU (calls for different CPUs may run concurrently).
 * The first call opens the device again for the CPU.  -ENOENT: no ring of
 * that CPU was added; -ENOTTY: the module predates per-CPU waits (ABI
 * minor 2).
 */
int64_t hwt_consumer_poll_cpu(struct hwt_consumer *c, uint32_t cpu,
			      int timeout_ms, hwt_sink_fn_t sink, void *ctx);
/* The file descriptor hwt_consumer_poll() waits on, for the caller's epoll. */
int hwt_consumer_epoll_fd(const struct hwt_consumer *c);

/* --- S.Ha.R.K.'s UDP format ------------------------------------------------ */

#define HWT_UDP_ID		"TRACER-V1.0"
#define HWT_UDP_HDR_SIZE	24
#define HWT_UDP_MAX_PACKET	1000
#define HWT_UDP_MAX_EVENTS	((HWT_UDP_MAX_PACKET - HWT_UDP_HDR_SIZE) / HWT_EVENT_SIZE)
#define HWT_UDP_DEFAULT_PORT	20000

struct hwt_udp_header {
	char id[12];			/* "TRACER-V1.0", NUL padded */
	uint32_t packet_number;
	uint32_t number_of_events;
	uint32_t total_size;		/* bytes of the packet, header included */
};

/*
 * S.Ha.R.K. had one CPU.  hwtrace sends each CPU's records in packets of
 * their own and appends the CPU number as a 4-byte trailer after the
 * records, counted in total_size: a S.Ha.R.K. reader, which reads
 * number_of_events records, never sees it; a packet without it is CPU 0.
 */
#define HWT_UDP_NO_CPU		UINT32_MAX
#define HWT_UDP_TRAILER_SIZE	4
#define HWT_UDP_MAX_CPUS	65536	/* as in a .hwt file; more is malformed */

/*
 * The end of a trace: packets are numbered from 0, so the receiver learns
 * of losses before the first packet it got, but only this packet tells it
 * of losses after the last.  It has no records and an 8-byte trailer
 * "HWT-END\0" (total_size 32); its packet_number is the next one, the
 * count of data packets sent before it.  A S.Ha.R.K. receiver reads
 * number_of_events = 0 records from it, and sees no gap.
 */
#define HWT_UDP_END		(UINT32_MAX - 1)	/* as the cpu argument */
#define HWT_UDP_END_ID		"HWT-END"
#define HWT_UDP_END_SIZE	(HWT_UDP_HDR_SIZE + 8)

/*
 * Encode n <= HWT_UDP_MAX_EVENTS records (one fewer with a CPU trailer)
 * into buf: returns the packet size, or -EINVAL (too many, no room, a cpu
 * >= HWT_UDP_MAX_CPUS).  cpu = HWT_UDP_NO_CPU writes S.Ha.R.K.'s packet
 * exactly; cpu = HWT_UDP_END with n = 0 the end-of-trace packet.
 */
int hwt_udp_encode(void *buf, size_t room, uint32_t packet_number,
		   uint32_t cpu, const struct hwt_event *ev, size_t n);
/*
 * Check and decode a packet: fills hdr, *cpu (0 without a trailer,
 * HWT_UDP_END for the end-of-trace packet), and copies the records to ev
 * (room for HWT_UDP_MAX_EVENTS).  Returns the record count, or -EBADMSG
 * (also for a CPU >= HWT_UDP_MAX_CPUS).
 */
int hwt_udp_decode(const void *buf, size_t len, struct hwt_udp_header *hdr,
		   uint32_t *cpu, struct hwt_event *ev);

/* --- the persistent area: a previous boot's trace (hwtrace recover) --------- */

/*
 * Check an image of the persist= area (struct hwt_persist_header in
 * <linux/hwtrace.h>), size bytes.  Returns 0 and *hdr, -ENODATA when it
 * holds no trace of ours (a cold boot's garbage), -EPROTONOSUPPORT for
 * another layout version, -EBADMSG for a torn header (checksum) or a layout
 * that does not fit the area.
 */
int hwt_persist_check(const void *area, size_t size,
		      const struct hwt_persist_header **hdr);
/*
 * Write a checked area's records (each CPU's ring, oldest first) and names
 * to w, and each ring's loss counters.  records[nr_cpus], if not NULL, gets
 * the records of each CPU.  Returns 0, HWT_PARTIAL when a ring's counters
 * were damaged (that ring is left out, with a warning), or a negative errno.
 */
int hwt_persist_write(const void *area, size_t size, struct hwt_writer *w,
		      uint64_t *records);

#ifdef __cplusplus
}
#endif

#endif /* HWT_HWT_H */
