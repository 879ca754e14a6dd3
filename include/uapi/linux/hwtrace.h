/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hwtrace: S.Ha.R.K.-style event tracer for Linux -- user/kernel ABI.
 *
 * Everything userspace needs to drive /dev/hwtrace and to read its per-CPU
 * rings lives here: the 16-byte event record, the event codes (generated
 * from one table, HWT_EVENT_TABLE), chunk flags, the mmap meta page and the
 * ioctls.  Documentation/hwtrace.rst explains the protocol.
 */
#ifndef _UAPI_LINUX_HWTRACE_H
#define _UAPI_LINUX_HWTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define HWT_ABI_MAJOR		1
#define HWT_ABI_MINOR		2	/* 1: nr_online_cpus; 2: POLL_CPU */

/*
 * The record, exactly S.Ha.R.K.'s: four 32-bit words in host byte order,
 * (par1 << 16 | code), TSC high, TSC low, par2.
 */
struct hwt_event {
	__u16 code;
	__u16 par1;
	__u32 tsc_hi;
	__u32 tsc_lo;
	__u32 par2;
};

#define HWT_EVENT_SIZE		16
#define HWT_FAMILY_MASK		0x0F
#define HWT_FAMILY(code)	((code) & HWT_FAMILY_MASK)
/* S.Ha.R.K. "fast" ipoints set this bit and leave par2 unwritten. */
#define HWT_CODE_FAST		0x8000
#define HWT_CODE(code)		((code) & ~HWT_CODE_FAST)

static __inline__ __u64 hwt_event_tsc(const struct hwt_event *e)
{
	return ((__u64)e->tsc_hi << 32) | e->tsc_lo;
}

#define HWT_EVENT_TSC(e)	hwt_event_tsc(e)

/* Event families: code & 0x0F. */
enum hwt_family {
	HWT_FAM_GENERAL		= 0x0,
	HWT_FAM_IPOINT		= 0x1,
	HWT_FAM_TASK		= 0x2,
	HWT_FAM_INTERRUPT	= 0x3,
	HWT_FAM_CPU		= 0x4,
	HWT_FAM_PRIORITY	= 0x5,
	HWT_FAM_MUTEX		= 0x6,
	HWT_FAM_SIGNAL		= 0x7,
	HWT_FAM_SERVER		= 0x8,
	HWT_FAM_USER		= 0x9,
	HWT_FAM_DATA		= 0xA,
	HWT_FAM_TIMER		= 0xB,
	HWT_NR_FAMILIES		= 0x10,
};

/*
 * Event codes: the table.  S.Ha.R.K.'s codes keep their values; codes marked
 * "Linux" are hwtrace's own, chosen inside the family whose meaning fits and
 * colliding with nothing.  Each comment reads "par1, par2" ("-": unused);
 * libhwt generates its event names and parameter names from these lines, so
 * keep the form.  Codes 0xF0..0xFF are control records: filter changes
 * (0xF0 | family, par1 = new status) and next_chunk (0xFF); they are never
 * filtered.  sched_switch packs three values into par1/par2: HWT_SWITCH_*().
 */
enum hwt_event_code {
	/* general */
	HWT_EV_EMPTY			= 0x00,	/* -, - */
	HWT_EV_CYCLES_PER_MSEC		= 0x10,	/* clock, cycles/ms */
	HWT_EV_TRACE_START		= 0x20,	/* -, - */
	HWT_EV_TRACE_STOP		= 0x30,	/* -, - */
	HWT_EV_BLACKOUT_START		= 0x40,	/* -, - */
	HWT_EV_BLACKOUT_END		= 0x50,	/* -, - */
	HWT_EV_ID			= 0x60,	/* cpu, pid */
	HWT_EV_NUMEVENTS		= 0x70,	/* -, events */
	HWT_EV_LOST			= 0x80,	/* lost high, lost total (Linux) */
	HWT_EV_CRASH			= 0x90,	/* kind, cpu (Linux) */

	/* ipoint */
	HWT_EV_IPOINT			= 0x01,	/* number, value */

	/* task */
	HWT_EV_TASK_CREATE		= 0x02,	/* -, pid */
	HWT_EV_TASK_ACTIVATE		= 0x12,	/* cpu|new, pid */
	HWT_EV_TASK_DISPATCH		= 0x22,	/* -, - */
	HWT_EV_TASK_EPILOGUE		= 0x32,	/* -, - */
	HWT_EV_TASK_END			= 0x42,	/* -, pid */
	HWT_EV_TASK_BEGIN_CYCLE		= 0x52,	/* -, - */
	HWT_EV_TASK_END_CYCLE		= 0x62,	/* context, level */
	HWT_EV_TASK_SLEEP		= 0x72,	/* -, - */
	HWT_EV_TASK_SCHEDULE		= 0x82,	/* prev, next */
	HWT_EV_TASK_TIMER		= 0x92,	/* context, level */
	HWT_EV_TASK_DISABLE		= 0xA2,	/* -, - */
	HWT_EV_TASK_DEADLINE_MISS	= 0xB2,	/* context, - */
	HWT_EV_TASK_WCET_VIOLATION	= 0xC2,	/* context, - */
	HWT_EV_TASK_EXEC		= 0xD2,	/* -, pid (Linux) */
	HWT_EV_TASK_MIGRATE		= 0xE2,	/* dest cpu, pid (Linux) */

	/* interrupt */
	HWT_EV_INTERRUPT_START		= 0x03,	/* irq, - */
	HWT_EV_INTERRUPT_END		= 0x13,	/* irq, handled */
	HWT_EV_INTERRUPT_HIT		= 0x23,	/* irq, - */
	HWT_EV_INTERRUPT_COUNT		= 0x33,	/* -, count */
	HWT_EV_SOFTIRQ_START		= 0x53,	/* vector, - (Linux) */
	HWT_EV_SOFTIRQ_END		= 0x63,	/* vector, - (Linux) */
	HWT_EV_SOFTIRQ_RAISE		= 0x73,	/* vector, - (Linux) */
	HWT_EV_VECTOR_START		= 0x83,	/* vector, - (Linux) */
	HWT_EV_VECTOR_END		= 0x93,	/* vector, - (Linux) */

	/* CPU */
	HWT_EV_TO_REAL_MODE		= 0x04,	/* -, - */
	HWT_EV_TO_PROTECTED_MODE	= 0x14,	/* -, - */
	HWT_EV_CLI			= 0x24,	/* -, - */
	HWT_EV_STI			= 0x34,	/* -, - */
	HWT_EV_IDLE_ENTER		= 0x44,	/* state, - (Linux) */
	HWT_EV_IDLE_EXIT		= 0x54,	/* -, - (Linux) */
	HWT_EV_FREQUENCY		= 0x64,	/* cpu, kHz (Linux) */

	/* priority */
	HWT_EV_SET_PRIORITY		= 0x05,	/* prio, pid */
	HWT_EV_CONTEXT_SWITCH		= 0x15,	/* context, - */
	HWT_EV_INHERITANCE		= 0x25,	/* prio, pid */

	/* mutex */
	HWT_EV_MUTEX_CREATE		= 0x06,	/* -, - */
	HWT_EV_MUTEX_LOCK		= 0x16,	/* flags, lock */
	HWT_EV_MUTEX_INHERIT		= 0x26,	/* -, - */
	HWT_EV_MUTEX_UNLOCK		= 0x36,	/* flags, lock */
	HWT_EV_MUTEX_WAIT		= 0x46,	/* flags, lock */
	HWT_EV_MUTEX_POST		= 0x56,	/* flags, lock */

	/* signal */
	HWT_EV_SIGNAL			= 0x07,	/* signal, pid */
	HWT_EV_SIGNAL_DELIVER		= 0x17,	/* signal, pid (Linux) */

	/* server */
	HWT_EV_SERVER_CREATE		= 0x08,	/* -, server */
	HWT_EV_SERVER_REPLENISH		= 0x18,	/* -, server */
	HWT_EV_SERVER_EXHAUST		= 0x28,	/* -, server */
	HWT_EV_SERVER_RECLAIMING	= 0x38,	/* -, server */
	HWT_EV_SERVER_REMOVE		= 0x48,	/* -, server */
	HWT_EV_SERVER_ACTIVE		= 0x58,	/* -, server */
	HWT_EV_SERVER_USING_REC		= 0x68,	/* reclaiming, server */

	/* user */
	HWT_EV_USER_EVENT_0		= 0x09,	/* free, free */
	HWT_EV_USER_EVENT_1		= 0x19,	/* free, free */
	HWT_EV_USER_EVENT_2		= 0x29,	/* free, free */
	HWT_EV_USER_EVENT_3		= 0x39,	/* free, free */
	HWT_EV_USER_EVENT_4		= 0x49,	/* free, free */
	HWT_EV_USER_EVENT_5		= 0x59,	/* free, free */
	HWT_EV_USER_EVENT_6		= 0x69,	/* free, free */
	HWT_EV_USER_EVENT_7		= 0x79,	/* free, free */
	HWT_EV_USER_EVENT_8		= 0x89,	/* free, free */
	HWT_EV_USER_EVENT_9		= 0x99,	/* free, free */
	HWT_EV_USER_EVENT_10		= 0xA9,	/* free, free */
	HWT_EV_USER_EVENT_11		= 0xB9,	/* free, free */
	HWT_EV_USER_EVENT_12		= 0xC9,	/* free, free */
	HWT_EV_USER_EVENT_13		= 0xD9,	/* free, free */
	HWT_EV_USER_EVENT_14		= 0xE9,	/* free, free */

	/* data */
	HWT_EV_DATA_POINTER		= 0x1A,	/* -, data */

	/* timer */
	HWT_EV_TIMER_POST		= 0x0B,	/* kind, timer */
	HWT_EV_TIMER_DELETE		= 0x1B,	/* kind, timer */
	HWT_EV_TIMER_WAKEUP_START	= 0x2B,	/* kind, timer */
	HWT_EV_TIMER_WAKEUP_END		= 0x3B,	/* kind, timer */

	/* control */
	HWT_EV_NEXT_CHUNK		= 0xFF,	/* to chunk, from chunk */
};

/* Filter-change record: code 0xF0 | family, par1 = new status (1 = filtered). */
#define HWT_EV_FILTER_BASE	0xF0
#define HWT_EV_FILTER(family)	(HWT_EV_FILTER_BASE | (family))
#define HWT_IS_CONTROL(code)	((HWT_CODE(code) & 0xF0) == 0xF0)

/* cycles_per_msec par1: which clock the timestamps come from. */
enum hwt_clock {
	HWT_CLOCK_TSC	= 0,	/* CPU cycle counter (rdtsc on x86) */
	HWT_CLOCK_MONO	= 1,	/* CLOCK_MONOTONIC in ns (1000000 per ms) */
};

/*
 * crash par1: what stopped a persistent chunk (the last record of each of
 * its rings); par2 is the CPU that panicked or oopsed.
 */
enum hwt_crash_kind {
	HWT_CRASH_NONE	= 0,
	HWT_CRASH_PANIC	= 1,
	HWT_CRASH_OOPS	= 2,
};

/* task_activate par1: target CPU, bit 15 set for a newly created task. */
#define HWT_ACTIVATE_NEW	0x8000

/*
 * task_schedule (sched_switch): a PID is below PID_MAX_LIMIT (2^22), so one
 * record carries both PIDs and the state the previous task left in:
 *   par2[21:0]  next pid          par2[31:22] prev pid bits 9..0
 *   par1[11:0]  prev pid 21..10   par1[15:12] prev state (enum hwt_task_state)
 */
enum hwt_task_state {
	HWT_STATE_RUNNABLE	= 0,	/* preempted, still runnable */
	HWT_STATE_SLEEPING	= 1,	/* interruptible wait */
	HWT_STATE_BLOCKED	= 2,	/* uninterruptible wait */
	HWT_STATE_STOPPED	= 3,	/* stopped or traced */
	HWT_STATE_DEAD		= 4,	/* exiting */
	HWT_STATE_OTHER		= 5,
	HWT_STATE_IDLE		= 6,	/* TASK_IDLE: waits for work, no load */
};

#define HWT_PID_BITS		22
#define HWT_PID_MASK		((1u << HWT_PID_BITS) - 1)
#define HWT_SWITCH_PAR2(prev, next) \
	(((next) & HWT_PID_MASK) | (((prev) & 0x3FFu) << HWT_PID_BITS))
#define HWT_SWITCH_PAR1(prev, state) \
	((((prev) >> 10) & 0xFFFu) | (((state) & 0xFu) << 12))

static __inline__ __u32 hwt_switch_next(const struct hwt_event *e)
{
	return e->par2 & HWT_PID_MASK;
}

static __inline__ __u32 hwt_switch_prev(const struct hwt_event *e)
{
	return (e->par2 >> HWT_PID_BITS) | (((__u32)e->par1 & 0xFFFu) << 10);
}

static __inline__ __u32 hwt_switch_state(const struct hwt_event *e)
{
	return (e->par1 >> 12) & 0xFu;
}

#define HWT_SWITCH_NEXT(e)	hwt_switch_next(e)
#define HWT_SWITCH_PREV(e)	hwt_switch_prev(e)
#define HWT_SWITCH_STATE(e)	hwt_switch_state(e)

/* Chunk flags, S.Ha.R.K.'s values.  mode = flags & HWT_CHUNK_MODE_MASK. */
#define HWT_CHUNK_FREE		0x01	/* not selected nor linked to: selectable */
#define HWT_CHUNK_FULL		0x02	/* a ring of it filled up (state) */
#define HWT_CHUNK_CYC		0x00	/* overwrite oldest (flight recorder) */
#define HWT_CHUNK_JTN		0x04	/* jump to the linked chunk when full */
#define HWT_CHUNK_STOP		0x08	/* drop new events when full */
#define HWT_CHUNK_BUSY		0x10	/* some CPU writes to it now (state) */
#define HWT_CHUNK_NODEL		0x20	/* chunk_delete refuses it */
#define HWT_CHUNK_COMPR		0x40	/* compress when saved (userspace) */
#define HWT_CHUNK_MODE_MASK	0x0C
#define HWT_CHUNK_MODE(flags)	((flags) & HWT_CHUNK_MODE_MASK)
/* Flags userspace may set; FULL and BUSY are state the kernel reports. */
#define HWT_CHUNK_USER_FLAGS	(HWT_CHUNK_FREE | HWT_CHUNK_MODE_MASK | \
				 HWT_CHUNK_NODEL | HWT_CHUNK_COMPR)
#define HWT_MAX_CHUNKS		256
#define HWT_NO_CHUNK		(-1)

/*
 * The meta page, page 0 of each (chunk, CPU) ring mapping.
 *
 * Positions count records and run over [0, 2 * nr_slots): record at position
 * p lives in slot (p < nr_slots ? p : p - nr_slots).  The ring holds
 * (data_head - data_tail) mod 2 * nr_slots records.
 *
 * Producer (kernel) fields are written only by the kernel; data_tail is the
 * only field userspace writes.  Ordering, as perf's ring buffer:
 *   kernel: store records; smp_wmb(); store data_head.
 *   user:   head = load_acquire(data_head); read records [tail, head);
 *           store_release(data_tail, head).
 * The kernel treats data_tail as untrusted: a value outside the ring makes
 * the ring count as full (STOP) and is never used as an index.
 * CYC rings ignore data_tail: they overwrite the oldest record and count it.
 */
struct hwt_ring_meta {
	/* static after creation */
	__u32 version;		/* HWT_ABI_MAJOR */
	__u32 meta_size;	/* sizeof(struct hwt_ring_meta) */
	__u32 chunk;
	__u32 cpu;
	__u32 nr_slots;		/* capacity in records, emergency area included */
	__u32 normal_slots;	/* records ordinary events may fill */
	__u32 flags;		/* chunk's user flags (mode, FREE, ...), kept current */
	__u32 clock;		/* enum hwt_clock */
	__u64 cycles_per_msec;
	__u64 data_offset;	/* mmap offset of the data pages */
	__u64 data_size;	/* bytes to map there */
	__u64 reserved0[2];

	/* kernel-written, cache line of its own */
	__u64 data_head __attribute__((aligned(64)));
	__u64 written;		/* records committed to this ring */
	__u64 lost;		/* events dropped: full ring or no space */
	__u64 overwritten;	/* committed records a CYC ring overwrote */
	__u64 reserved1[4];

	/* user-written */
	__u64 data_tail __attribute__((aligned(64)));
	__u64 reserved2[7];
};

/*
 * mmap offsets: one token per (chunk, cpu, area); HWT_IOC_RING_INFO returns
 * the same values.  The meta page may be mapped read-write, data pages only
 * read-only; length must be exactly the area's size.
 */
#define HWT_AREA_META		0
#define HWT_AREA_DATA		1
/*
 * Tokens are multiples of 64 KiB (any page size) and below 2^41, so a
 * 32-bit process reaches every one through mmap2's 32-bit page offset.
 */
#define HWT_MMAP_SHIFT		16
#define HWT_MMAP_OFFSET(chunk, cpu, area) \
	((((__u64)(chunk) << 17 | (__u64)(cpu) << 1 | (area))) << HWT_MMAP_SHIFT)

/* ioctl arguments.  Reserved fields must be zero. */
struct hwt_version {
	__u32 abi_major;
	__u32 abi_minor;
	__u32 nr_cpus;		/* possible CPUs: ring count per chunk */
	__u32 max_chunks;
	__u32 event_size;
	__u32 clock;		/* enum hwt_clock in use */
	__u64 cycles_per_msec;
	__u64 max_memory;	/* module cap on ring memory, bytes */
	__u64 used_memory;
	__u32 enabled;
	__u32 filter_mask;
	__u64 names_lost;	/* name records dropped: read(2) too slow */
	__u32 nr_probes;	/* valid indexes for HWT_IOC_PROBE_INFO */
	__u32 nr_online_cpus;	/* online now (ABI 1.1; 0 before) */
	__u64 prio_missed;	/* set_priority events missed (ABI 1.1) */
	__u64 reserved[1];
};

struct hwt_chunk_create {
	__u64 normal_size;	/* bytes per CPU, a multiple of 16, > 0 */
	__u64 emergency_size;	/* bytes per CPU for control records, >= 64 */
	__u32 flags;		/* HWT_CHUNK_USER_FLAGS; FREE is implied */
	__s32 id;		/* out */
	__u64 reserved[2];
};

struct hwt_chunk_flags {
	__u32 id;
	__u32 flags;
	__u64 reserved;
};

struct hwt_chunk_link {
	__u32 from;
	__s32 to;		/* chunk id, or HWT_NO_CHUNK to unlink */
	__u64 reserved;
};

struct hwt_filter {
	__u32 family;		/* 0..15 */
	__u32 status;		/* 1: do not log the family, 0: log it */
	__u64 reserved;
};

struct hwt_log {
	__u16 code;		/* ipoint or user family only */
	__u16 par1;
	__u32 par2;
	__u64 reserved;
};

/* One (chunk, CPU) ring in HWT_IOC_CHUNK_TABLE. */
struct hwt_chunk_stat {
	__u32 id;
	__u32 cpu;
	__u32 flags;		/* chunk flags; FULL and BUSY for this ring */
	__s32 link;
	__u64 normal_size;
	__u64 emergency_size;
	__u64 fill;		/* records resident (unconsumed for STOP/JTN) */
	__u64 written;
	__u64 lost;
	__u64 overwritten;
	__u64 reserved[2];
};

struct hwt_chunk_table {
	__u64 entries;		/* user pointer to struct hwt_chunk_stat[] */
	__u32 nr_entries;	/* in: room; out: entries that exist */
	__u32 reserved;
};

struct hwt_ring_info {
	__u32 chunk;
	__u32 cpu;
	__u64 meta_offset;
	__u64 meta_size;
	__u64 data_offset;
	__u64 data_size;
	__u32 nr_slots;
	__u32 normal_slots;
	__u64 reserved[2];
};

/*
 * Name records, read(2) from /dev/hwtrace: who the pids and irqs in a trace
 * are.  While tracing, the kernel queues one per task alive at enable, per
 * fork, exec and rename, and per IRQ at its first interrupt.  read() returns
 * whole records, 0 when none is queued; it never blocks.
 */
enum hwt_name_kind {
	HWT_NAME_TASK	= 1,	/* id = pid, tgid = thread group */
	HWT_NAME_IRQ	= 2,	/* id = irq number, name = first action */
};

#define HWT_NAME_LEN		32

struct hwt_name {
	__u32 kind;
	__u32 id;
	__u32 tgid;
	__u32 reserved;
	char name[HWT_NAME_LEN];	/* NUL-padded */
};

/* Which kernel tracepoints feed which family, and whether this kernel has them. */
#define HWT_PROBE_AVAILABLE	0x1	/* the tracepoint exists here */
#define HWT_PROBE_ATTACHED	0x2	/* tracing, and the family unfiltered */

struct hwt_probe_info {
	__u32 index;		/* in: 0 .. nr_probes - 1 */
	__u32 family;		/* enum hwt_family, or HWT_NR_FAMILIES: names */
	__u32 flags;
	__u32 reserved;
	char tracepoint[64];
};

/*
 * The persistent area (module parameter persist=): a CYC chunk in memory
 * reserved at boot, which a warm reboot leaves alone.  Layout, all offsets
 * from the start of the area:
 *   0               struct hwt_persist_header (one page)
 *   names_offset    names_max struct hwt_name, a ring: entry i % names_max
 *   ring_offset     nr_cpus rings of ring_stride bytes, by CPU number: a
 *                   struct hwt_ring_meta page (data_head, written,
 *                   overwritten), then nr_slots records
 * header_crc covers the header up to itself; the fields after it change
 * while tracing.  A previous boot's area is mapped read-only, whole, at
 * HWT_PERSIST_MMAP_OFFSET.
 */
#define HWT_PERSIST_MAGIC	0x31535250545748ULL	/* "HWTPRS1" */
#define HWT_PERSIST_VERSION	1

struct hwt_persist_header {
	__u64 magic;
	__u32 version;		/* HWT_PERSIST_VERSION */
	__u32 header_size;	/* sizeof(struct hwt_persist_header) */
	__u64 phys_addr;	/* where the area is: a moved area holds no trace */
	__u64 size;		/* bytes of the area */
	__u8 boot_id[16];	/* /proc/sys/kernel/random/boot_id of the writer */
	__u32 clock;		/* enum hwt_clock at load or at the crash */
	__u32 nr_cpus;		/* rings */
	__u64 cycles_per_msec;
	__u64 names_offset;
	__u32 names_max;
	__u32 page_size;
	__u64 ring_offset;
	__u64 ring_stride;
	__u32 nr_slots;		/* records per ring */
	__u32 crash;		/* enum hwt_crash_kind: what stopped it */
	__u32 crash_cpu;
	__u32 reserved0;
	__u64 reserved[4];
	__u32 header_crc;	/* CRC-32 (zlib's) of the bytes before it */
	__u32 reserved1;
	/* live, not covered by the CRC */
	__u64 names_written;	/* names ever stored: entries in the ring */
};

enum hwt_persist_state {
	HWT_PERSIST_OFF		= 0,	/* no persist= parameter */
	HWT_PERSIST_RECORDING	= 1,	/* this boot's: chunk records into it */
	HWT_PERSIST_PREVIOUS	= 2,	/* a previous boot's trace, read-only */
	HWT_PERSIST_CORRUPT	= 3,	/* our magic, but a torn or bad header */
	HWT_PERSIST_OTHER_ABI	= 4,	/* written by another layout version */
};

struct hwt_persist_info {
	__u32 state;		/* enum hwt_persist_state */
	__s32 chunk;		/* RECORDING: the chunk's id; else -1 */
	__u64 phys_addr;
	__u64 size;		/* bytes to map at mmap_offset */
	__u64 mmap_offset;	/* PREVIOUS, CORRUPT, OTHER_ABI: read-only */
	__u32 version;		/* OTHER_ABI: the version found */
	__u32 reserved0;
	__u64 reserved[3];
};

#define HWT_PERSIST_MMAP_OFFSET	HWT_MMAP_OFFSET(HWT_MAX_CHUNKS, 0, 0)

#define HWT_IOC_MAGIC		0xB8
#define HWT_IOC_GET_VERSION	_IOR(HWT_IOC_MAGIC, 0x00, struct hwt_version)
#define HWT_IOC_ENABLE		_IO(HWT_IOC_MAGIC, 0x01)
#define HWT_IOC_DISABLE		_IO(HWT_IOC_MAGIC, 0x02)
#define HWT_IOC_CHUNK_CREATE	_IOWR(HWT_IOC_MAGIC, 0x03, struct hwt_chunk_create)
#define HWT_IOC_CHUNK_DELETE	_IO(HWT_IOC_MAGIC, 0x04)	/* arg: id */
#define HWT_IOC_SET_CHUNK_FLAGS	_IOW(HWT_IOC_MAGIC, 0x05, struct hwt_chunk_flags)
#define HWT_IOC_GET_CHUNK_FLAGS	_IOWR(HWT_IOC_MAGIC, 0x06, struct hwt_chunk_flags)
#define HWT_IOC_CHUNK_SELECT	_IO(HWT_IOC_MAGIC, 0x07)	/* arg: id */
#define HWT_IOC_CHUNK_LINK	_IOW(HWT_IOC_MAGIC, 0x08, struct hwt_chunk_link)
#define HWT_IOC_GET_FIRST_CHUNK	_IO(HWT_IOC_MAGIC, 0x09)	/* arg: flags */
#define HWT_IOC_CHUNK_TABLE	_IOWR(HWT_IOC_MAGIC, 0x0A, struct hwt_chunk_table)
#define HWT_IOC_SET_FILTER	_IOW(HWT_IOC_MAGIC, 0x0B, struct hwt_filter)
#define HWT_IOC_GET_FILTER	_IOR(HWT_IOC_MAGIC, 0x0C, __u32)
#define HWT_IOC_LOG_EVENT	_IOW(HWT_IOC_MAGIC, 0x0D, struct hwt_log)
#define HWT_IOC_RING_INFO	_IOWR(HWT_IOC_MAGIC, 0x0E, struct hwt_ring_info)
#define HWT_IOC_SET_CLOCK	_IO(HWT_IOC_MAGIC, 0x0F)	/* arg: hwt_clock */
#define HWT_IOC_PROBE_INFO	_IOWR(HWT_IOC_MAGIC, 0x10, struct hwt_probe_info)
#define HWT_IOC_PERSIST_INFO	_IOR(HWT_IOC_MAGIC, 0x11, struct hwt_persist_info)
/* Drop a previous boot's (or a corrupt) trace: the area records again. */
#define HWT_IOC_PERSIST_RELEASE	_IO(HWT_IOC_MAGIC, 0x12)
/* This descriptor's poll() watches one CPU's rings (arg: CPU), or all (-1). */
#define HWT_IOC_POLL_CPU	_IO(HWT_IOC_MAGIC, 0x13)

#endif /* _UAPI_LINUX_HWTRACE_H */
