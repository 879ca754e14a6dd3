/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtrace internals shared by the files of kmod/.
 *
 * Data flow: probe or ioctl -> hwt_record() (record.h: family filter, this
 * CPU's current chunk) -> hwt_ring_write() (ring.h: reserve, timestamp,
 * store, commit) -> the (chunk, CPU) ring that userspace mmap()s.
 */
#ifndef _HWT_H
#define _HWT_H

#include <linux/types.h>
#include <linux/cache.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/jump_label.h>
#include <asm/local.h>
#include <linux/hwtrace.h>

#define HWT_MIN_EMERGENCY	(4 * HWT_EVENT_SIZE)
/* ring writers nested on one CPU at most: task, softirq, irq, NMI */
#define HWT_MAX_NEST		4
/* a lost record carries bits 32..47 of the total in par1, 0..31 in par2 */
#define HWT_LOST_PAR1(lost)	((u16)upper_32_bits(lost))

/*
 * One ring: the records of one chunk taken on one CPU.
 *
 * Only the owning CPU writes the writer fields, with writers nesting like a
 * stack (task < softirq < irq < NMI); local_t operations are atomic against
 * such nesting without a LOCK prefix.  Other CPUs (ioctls) only read them.
 * The fields the fast path touches come first, in one cache line.
 */
struct hwt_ring {
	/* the fast path's line: ring.h */
	local_t head;			/* HWT_HEAD(position, room), see ring.h */
	local_t nest;			/* writers inside reserve..commit */
	local_t written;		/* records committed, overwritten ones too */
	unsigned long lap_data[2];	/* position p of lap l at lap_data[l] + p * 16 */
	struct hwt_ring_meta *meta;	/* one page, user-mappable */
	u32 nr_slots;			/* capacity, emergency area included */
	bool cyc;			/* overwrite (CYC) rather than refuse */

	/* the slow path's: overflow.c, ring.c */
	struct hwt_event *data;		/* nr_slots records, user-mappable */
	u32 normal_slots;		/* capacity for ordinary events */
	u32 watermark;			/* fill that wakes poll(): normal / 4 */
	local_t lost;
	unsigned long lost_reported;	/* lost total last logged in-band */
	u64 data_size;			/* bytes of data, page aligned */
} ____cacheline_aligned_in_smp;

struct hwt_chunk {
	int id;
	u32 flags;			/* HWT_CHUNK_USER_FLAGS, under hwt_lock */
	struct hwt_chunk __rcu *link;	/* JTN target; writers follow it under RCU-sched */
	u64 normal_size;
	u64 emergency_size;
	u64 mem;			/* bytes charged against max_memory */
	atomic_t mappings;		/* live vmas; delete waits for none */
	bool persist;			/* rings in the persist= area (persist.c) */
	struct hwt_ring rings[];	/* one per possible CPU, by CPU number */
};

/* The chunk whose ring for CPU cpu is r (rings[] is indexed by CPU). */
static inline struct hwt_chunk *hwt_ring_chunk(struct hwt_ring *r, int cpu)
{
	return container_of(r - cpu, struct hwt_chunk, rings[0]);
}

/* main.c: module parameters and global state */
extern struct mutex hwt_lock;
extern u64 hwt_max_memory;
extern u64 hwt_used_memory;		/* under hwt_lock */

/* chunk.c: the chunk table, written under hwt_lock (hwt_ready() reads it under RCU) */
extern struct hwt_chunk *hwt_chunks[HWT_MAX_CHUNKS];
extern struct hwt_chunk *hwt_selected;
int hwt_chunk_create(struct hwt_chunk_create *arg);
int hwt_chunk_delete(long id);
int hwt_chunk_set_flags(const struct hwt_chunk_flags *arg);
int hwt_chunk_get_flags(struct hwt_chunk_flags *arg);
int hwt_chunk_select(long id);
int hwt_chunk_link(const struct hwt_chunk_link *arg);
int hwt_chunk_first(unsigned long flags);
int hwt_chunk_table(struct hwt_chunk_table *arg);
int hwt_chunk_ring_info(struct hwt_ring_info *arg);
struct hwt_chunk *hwt_chunk_get(long id);
void hwt_chunk_free_all(void);

/* ring.c */
void hwt_ring_setup(struct hwt_ring *r, struct hwt_ring_meta *meta,
		    struct hwt_event *data, u32 nr_slots, u32 normal_slots,
		    u32 chunk, u32 flags, int cpu);
int hwt_ring_init(struct hwt_ring *r, u64 normal_size, u64 emergency_size,
		  u32 chunk, u32 flags, int cpu);
void hwt_ring_free(struct hwt_ring *r);
void hwt_ring_set_mode(struct hwt_ring *r, u32 flags);
u64 hwt_ring_fill(const struct hwt_ring *r);
u64 hwt_ring_overwritten(const struct hwt_ring *r);
void hwt_ring_set_clock(struct hwt_ring *r);
int hwt_ring_write(struct hwt_ring *r, u32 limit, u16 code, u16 par1, u32 par2);
int hwt_ring_report_lost(struct hwt_ring *r, u32 limit);
void hwt_ring_stop_fast_path(struct hwt_ring *r);
void hwt_ring_close(struct hwt_ring *r);

/*
 * control.c: tracing on/off per CPU, which ring each CPU writes to, filters,
 * injection.  hwt_cur is this CPU's ring in its current chunk, NULL while
 * the CPU does not trace; writers follow it with preemption off (RCU-sched).
 */
DECLARE_PER_CPU(struct hwt_ring __rcu *, hwt_cur);
extern u16 hwt_filter_mask;
extern bool hwt_enabled;
int hwt_enable(void);
void hwt_disable(void);
int hwt_set_filter(const struct hwt_filter *arg);
void hwt_move_cpus(struct hwt_chunk *to);
bool hwt_chunk_busy(const struct hwt_chunk *c, int cpu);
int hwt_log_user(const struct hwt_log *arg);
int hwt_control_init(void);
void hwt_control_exit(void);

/* clock.c: the timestamp clock */
DECLARE_STATIC_KEY_TRUE(hwt_clock_is_cycles);
int hwt_set_clock(unsigned long clock);
int hwt_clock_init(void);
u32 hwt_clock_kind(void);
u64 hwt_clock_rate(void);

/* overflow.c: the slow path of a record that the fast path did not take */
void hwt_record_slow(struct hwt_ring *r, u16 code, u16 par1, u32 par2);
void hwt_record_mono(struct hwt_ring *r, u16 code, u16 par1, u32 par2);
void hwt_record_ctl(u16 code, u16 par1, u32 par2);
void hwt_count_lost(struct hwt_ring *r);
void hwt_report_lost(struct hwt_ring *r);

/* wakeup.c: poll() readiness and consumer wakeups */
void hwt_wakeup_init(void);
void hwt_wakeup_exit(void);
void hwt_wakeup(void);
void hwt_wakeup_ring(void);
void hwt_wakeup_all(void);
struct wait_queue_head *hwt_poll_queue(int only_cpu);
bool hwt_ready(int only_cpu);

/* probes.c: tracepoints -> hwt_record() */
int hwt_probes_init(void);
int hwt_probes_sync(void);
unsigned int hwt_nr_probes(void);
int hwt_probe_info(struct hwt_probe_info *info);
u64 hwt_prio_missed(void);

/* names.c: the pid/irq name channel read(2) from the device */
struct task_struct;
int hwt_names_init(void);
void hwt_names_exit(void);
void hwt_names_snapshot(void);
void hwt_name_task(struct task_struct *p, const char *comm);
void hwt_name_irq(int irq, const char *name);
u64 hwt_names_lost(void);
bool hwt_names_ready(void);
ssize_t hwt_names_read(char __user *buf, size_t count);

/* persist.c: the flight recorder that survives a warm reboot */
struct vm_area_struct;
int hwt_persist_init(void);
void hwt_persist_exit(void);
void hwt_persist_name(u32 kind, u32 id, u32 tgid, const char *name);
int hwt_persist_info(struct hwt_persist_info *info);
int hwt_persist_release(void);
int hwt_persist_mmap(struct vm_area_struct *vma);
int hwt_persist_remap(struct vm_area_struct *vma, void *mem, u64 size);

/* dev.c */
int hwt_dev_init(void);
void hwt_dev_exit(void);

#endif /* _HWT_H */
