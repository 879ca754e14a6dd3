/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the BPF programs (hwt.bpf.c) and userspace (loader.c, the host tests)
 * must agree on, written once so that the host tests run the very code the
 * programs run:
 *
 *   - the per-CPU ring writer: kmod/ring.h's hwt_ring_write() and record.h's
 *     __hwt_record(), ported to BPF atomics, on the same struct hwt_ring_meta
 *     so that libhwt's hwt_ring_drain_mem()/hwt_ring_snapshot_mem() read it,
 *     and control.c's cpu_start()/cpu_stop() (hwt_cpu_ctl runs them);
 *   - sched_switch's state mapping (kmod/probes.c task_state());
 *   - the keyed hash that names timers and locks (SipHash-2-4 of the
 *     address, as the module's siphash_1u64()).
 *
 * The includer provides the types (__u16.. __u64, struct hwt_event,
 * struct hwt_ring_meta: vmlinux.h + <linux/hwtrace.h> in BPF, stdint +
 * <linux/hwtrace.h> on the host) and three hooks:
 *   HWT_BPF_NOW()            the timestamp (bpf_ktime_get_ns() in BPF)
 *   HWT_BPF_SLOT(d, slot)    pointer to data slot `slot` of the ring d, or NULL
 *   HWT_BPF_RESERVE_HOOK(w)  optional: runs between timestamp and cmpxchg,
 *   HWT_BPF_COMMIT_HOOK(w)   and between publishing data_head and dropping
 *                            nest (tests nest a writer there)
 */
#ifndef HWT_BPF_SHARED_H
#define HWT_BPF_SHARED_H

#ifndef HWT_BPF_RESERVE_HOOK
#define HWT_BPF_RESERVE_HOOK(w)	do { } while (0)
#endif
#ifndef HWT_BPF_COMMIT_HOOK
#define HWT_BPF_COMMIT_HOOK(w)	do { } while (0)
#endif

#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif

#define HWT_BPF_READ(x)		(*(volatile __typeof__(x) *)&(x))
#define HWT_BPF_WRITE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define HWT_BPF_BARRIER()	__asm__ __volatile__("" ::: "memory")

/*
 * Reserve attempts: each failed cmpxchg means a nested writer (IRQ, NMI)
 * completed a record in between; past this many the event counts as lost.
 */
#define HWT_BPF_TRIES		8

/* The BPF backend's clock: bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC. */
#define HWT_BPF_CLOCK		HWT_CLOCK_MONO
#define HWT_BPF_NS_PER_MSEC	1000000u

/* What hwt_cpu_ctl (run on each CPU through BPF_PROG_TEST_RUN) does. */
enum hwt_bpf_ctl {
	HWT_BPF_CTL_START	= 1,	/* start records, then record events */
	HWT_BPF_CTL_STOP	= 2,	/* pending loss, trace_stop, no more events */
};

/* hwt_bpf_ring_write() results */
#define HWT_BPF_OK	0
#define HWT_BPF_FULL	1	/* no room (STOP ring), or lost every race: lost */
#define HWT_BPF_OFF	2	/* this CPU is not between start and stop */

/*
 * What a write is, to hwt_bpf_ring_write(): an event is written only while
 * the CPU is on; a control record in any state; the start records switch
 * the CPU on and the stop record switches it off, in the same cmpxchg that
 * reserves them.
 */
enum hwt_bpf_kind {
	HWT_BPF_W_EVENT	= 0,
	HWT_BPF_W_CTL	= 1,
	HWT_BPF_W_START	= 2,
	HWT_BPF_W_STOP	= 3,
};

/*
 * hwt_bpf_cpu.head: the next position and the CPU's state in one word, so
 * that reserving the start or stop records and switching the CPU on or off
 * is one cmpxchg, and no writer nested in hwt_cpu_ctl (an IRQ when it runs
 * on the recorder's own CPU, not in an IPI) can land between the two:
 *
 *   63  62           40 39                 0
 *  +---+---------------+--------------------+
 *  |on |  generation   |  position          |
 *  +---+---------------+--------------------+
 *
 * position: [0, 2 * nr_slots), as kmod/ring.h's head.  on: between the
 * CPU's start and stop records.  generation: bumped by every event refused
 * while off, so that a start that took its timestamp before such an event
 * fails its cmpxchg and takes a later one: an event is refused only if it
 * came before the start's timestamp.
 */
#define HWT_BPF_POS_MASK	((1ULL << 40) - 1)
#define HWT_BPF_GEN_ONE		(1ULL << 40)
#define HWT_BPF_GEN_MASK	(((1ULL << 23) - 1) << 40)
#define HWT_BPF_ON		(1ULL << 63)

/*
 * Per-CPU writer state, a BPF array map (mmapable: userspace waits for nest
 * to reach 0 before its last drain, and switches offline CPUs on and off
 * with an atomic or/and on head).
 */
struct hwt_bpf_cpu {
	__u64 head;		/* position | generation | HWT_BPF_ON, above */
	__u64 nest;		/* writers in flight on this CPU */
	__u64 written;
	__u64 overwritten;	/* CYC: records written over */
	__u64 lost_reported;	/* meta->lost when the last lost record went out */
	__u64 pad[3];
};

/* One record to write: the writer adds the timestamp. */
struct hwt_bpf_rec {
	__u16 code;
	__u16 par1;
	__u32 par2;
};

/* Task states as in <linux/sched.h> (stable across 5.x and 6.x). */
#define HWT_TASK_RUNNING		0x0000
#define HWT_TASK_INTERRUPTIBLE		0x0001
#define HWT_TASK_UNINTERRUPTIBLE	0x0002
#define HWT___TASK_STOPPED		0x0004
#define HWT___TASK_TRACED		0x0008
#define HWT_EXIT_DEAD			0x0010
#define HWT_EXIT_ZOMBIE			0x0020
#define HWT_TASK_DEAD			0x0080
#define HWT_TASK_NOLOAD			0x0400
#define HWT_TASK_IDLE			(HWT_TASK_UNINTERRUPTIBLE | HWT_TASK_NOLOAD)

/* kmod/probes.c task_state(): the state a task is switched out in. */
static __always_inline __u32 hwt_bpf_task_state(int preempt, __u32 state)
{
	if (preempt || state == HWT_TASK_RUNNING)
		return HWT_STATE_RUNNABLE;
	if (state & (HWT_TASK_DEAD | HWT_EXIT_DEAD | HWT_EXIT_ZOMBIE))
		return HWT_STATE_DEAD;
	if (state & HWT_TASK_INTERRUPTIBLE)
		return HWT_STATE_SLEEPING;
	/* kworkers, rcu threads: not an I/O wait (ftrace's "I") */
	if ((state & HWT_TASK_IDLE) == HWT_TASK_IDLE)
		return HWT_STATE_IDLE;
	if (state & HWT_TASK_UNINTERRUPTIBLE)
		return HWT_STATE_BLOCKED;
	if (state & (HWT___TASK_STOPPED | HWT___TASK_TRACED))
		return HWT_STATE_STOPPED;
	return HWT_STATE_OTHER;
}

/* SipHash-2-4 of one 64-bit word, as the kernel's siphash_1u64(). */
#define HWT_ROL64(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))
#define HWT_SIPROUND(v0, v1, v2, v3) do {				\
	v0 += v1; v1 = HWT_ROL64(v1, 13); v1 ^= v0; v0 = HWT_ROL64(v0, 32); \
	v2 += v3; v3 = HWT_ROL64(v3, 16); v3 ^= v2;			\
	v0 += v3; v3 = HWT_ROL64(v3, 21); v3 ^= v0;			\
	v2 += v1; v1 = HWT_ROL64(v1, 17); v1 ^= v2; v2 = HWT_ROL64(v2, 32); \
} while (0)

static __always_inline __u64 hwt_bpf_siphash_1u64(__u64 first, __u64 k0, __u64 k1)
{
	__u64 v0 = 0x736f6d6570736575ULL ^ k0;
	__u64 v1 = 0x646f72616e646f6dULL ^ k1;
	__u64 v2 = 0x6c7967656e657261ULL ^ k0;
	__u64 v3 = 0x7465646279746573ULL ^ k1;
	__u64 b = 8ULL << 56;

	v3 ^= first;
	HWT_SIPROUND(v0, v1, v2, v3);
	HWT_SIPROUND(v0, v1, v2, v3);
	v0 ^= first;
	v3 ^= b;
	HWT_SIPROUND(v0, v1, v2, v3);
	HWT_SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	HWT_SIPROUND(v0, v1, v2, v3);
	HWT_SIPROUND(v0, v1, v2, v3);
	HWT_SIPROUND(v0, v1, v2, v3);
	HWT_SIPROUND(v0, v1, v2, v3);
	return (v0 ^ v1) ^ (v2 ^ v3);
}

/* The 32-bit id of a kernel object: a keyed hash, never the address. */
static __always_inline __u32 hwt_bpf_obj_id(__u64 addr, __u64 k0, __u64 k1)
{
	return (__u32)hwt_bpf_siphash_1u64(addr, k0, k1);
}

/* The writer: only where the includer provides its hooks. */
#ifdef HWT_BPF_NOW

/* Records held, from the untrusted data_tail (outside the ring: full). */
static __always_inline __u64 hwt_bpf_ring_used(struct hwt_ring_meta *m,
					       __u64 head, __u64 span)
{
	__u64 tail = HWT_BPF_READ(m->data_tail);

	if (tail >= span)
		return ~0ULL;
	return head >= tail ? head - tail : head + span - tail;
}

/*
 * kmod/ring.h hwt_ring_write(), in BPF atomics: reserve n consecutive slots
 * by cmpxchg on head with the timestamp taken inside the retry loop (ring
 * order is time order), store, and let the outermost writer on this CPU
 * publish data_head.  __sync_lock_test_and_set is BPF_XCHG, fully ordered:
 * the record stores are visible before data_head.  The data_tail load is
 * ordered before the slot stores by the (fully ordered) cmpxchg between them.
 *
 * kind (enum hwt_bpf_kind): whether the CPU must be on, and whether the
 * reserving cmpxchg switches it on or off.  A writer nested between another
 * one's timestamp and cmpxchg changes head (a reservation, or the generation
 * if it is refused), so the other one retries with a later timestamp; this
 * holds for hwt_cpu_ctl's writes too, so on each CPU:
 *
 *   - every record lies in ring order and in time order between the start
 *     and stop records, never before or after them;
 *   - an event is refused (HWT_BPF_OFF) only if it was decided before the
 *     start's timestamp or after the stop's.
 *
 * limit: the fill at which the records are refused (normal slots for
 * events, all slots for control records).  The n records share one
 * timestamp: they are reserved at one instant.
 */
static __always_inline int hwt_bpf_ring_write(struct hwt_bpf_cpu *w,
					      struct hwt_ring_meta *m, void *d,
					      __u32 nr_slots, int cyc, __u64 limit,
					      int kind, const struct hwt_bpf_rec *r,
					      __u32 n)
{
	__u64 span = 2ULL * nr_slots;
	__u64 cur, head = 0, pos, next, used, old, ts = 0;
	struct hwt_event *ev;
	int ret = HWT_BPF_FULL, i;
	__u32 k;

	__sync_fetch_and_add(&w->nest, 1);
	for (i = 0; i < HWT_BPF_TRIES; i++) {
		cur = HWT_BPF_READ(w->head);
		head = cur & HWT_BPF_POS_MASK;
		if (kind == HWT_BPF_W_EVENT && !(cur & HWT_BPF_ON)) {
			/* refused: let a start in flight see it (generation) */
			next = (cur & ~HWT_BPF_GEN_MASK) |
			       ((cur + HWT_BPF_GEN_ONE) & HWT_BPF_GEN_MASK);
			if (__sync_val_compare_and_swap(&w->head, cur, next) == cur) {
				ret = HWT_BPF_OFF;
				goto commit;
			}
			continue;
		}
		if (head >= span)	/* cannot happen; keeps the index provable */
			goto commit;
		if (!cyc) {
			used = hwt_bpf_ring_used(m, head, span);
			if (used > limit || limit - used < n)
				goto commit;
		}
		pos = head + n;
		if (pos >= span)
			pos -= span;
		next = (cur & ~HWT_BPF_POS_MASK) | pos;
		if (kind == HWT_BPF_W_START)
			next |= HWT_BPF_ON;
		else if (kind == HWT_BPF_W_STOP)
			next &= ~HWT_BPF_ON;
		ts = HWT_BPF_NOW();
		HWT_BPF_RESERVE_HOOK(w);
		if (__sync_val_compare_and_swap(&w->head, cur, next) == cur) {
			ret = HWT_BPF_OK;
			break;
		}
	}
	if (ret != HWT_BPF_OK)
		goto commit;

	for (k = 0; k < n; k++) {
		pos = head + k;
		if (pos >= span)
			pos -= span;
		ev = HWT_BPF_SLOT(d, pos < nr_slots ? pos : pos - nr_slots);
		if (!ev)
			continue;
		ev->code = r[k].code;
		ev->par1 = r[k].par1;
		ev->tsc_hi = (__u32)(ts >> 32);
		ev->tsc_lo = (__u32)ts;
		ev->par2 = r[k].par2;
	}
	old = __sync_fetch_and_add(&w->written, n);
	if (cyc && old + n > nr_slots)
		__sync_fetch_and_add(&w->overwritten,
				     old >= nr_slots ? n : old + n - nr_slots);

commit:
	for (i = 0; i < HWT_BPF_TRIES; i++) {
		if (HWT_BPF_READ(w->nest) > 1) {
			/* nested: the interrupted writer publishes for us */
			__sync_fetch_and_add(&w->nest, -1);
			break;
		}
		head = HWT_BPF_READ(w->head) & HWT_BPF_POS_MASK;
		__sync_lock_test_and_set(&m->data_head, head);
		HWT_BPF_WRITE(m->written, HWT_BPF_READ(w->written));
		if (cyc)
			HWT_BPF_WRITE(m->overwritten, HWT_BPF_READ(w->overwritten));
		HWT_BPF_COMMIT_HOOK(w);
		HWT_BPF_BARRIER();
		HWT_BPF_WRITE(w->nest, 0);
		HWT_BPF_BARRIER();
		/*
		 * A writer that nested after the publish left its record
		 * unpublished: publish again (the last try leaves it to the
		 * next writer, but never leaves nest raised).
		 */
		if (head == (HWT_BPF_READ(w->head) & HWT_BPF_POS_MASK) ||
		    i == HWT_BPF_TRIES - 1)
			break;
		HWT_BPF_WRITE(w->nest, 1);
	}
	return ret;
}

/*
 * kmod/record.h __hwt_record(): report earlier losses before the next event
 * (once there is room for both), write the event, count it lost if it does
 * not fit.  kind: HWT_BPF_W_EVENT or HWT_BPF_W_CTL.  Returns
 * hwt_bpf_ring_write()'s result.
 */
static __always_inline int hwt_bpf_record(struct hwt_bpf_cpu *w,
					  struct hwt_ring_meta *m, void *d,
					  __u32 nr_slots, __u32 normal_slots,
					  int cyc, int kind, __u16 code,
					  __u16 par1, __u32 par2)
{
	struct hwt_bpf_rec r = { .code = code, .par1 = par1, .par2 = par2 };
	__u64 lost = HWT_BPF_READ(m->lost);
	int ret;

	if (lost != HWT_BPF_READ(w->lost_reported) && kind == HWT_BPF_W_EVENT) {
		struct hwt_bpf_rec l = { .code = HWT_EV_LOST,
					 .par1 = (__u16)(lost >> 32),
					 .par2 = (__u32)lost };

		/*
		 * The report leaves a slot for the event; without the report
		 * the event is lost too, so no gap goes unreported.
		 */
		ret = hwt_bpf_ring_write(w, m, d, nr_slots, cyc, normal_slots - 1,
					 HWT_BPF_W_EVENT, &l, 1);
		if (ret != HWT_BPF_OK)
			goto refused;
		HWT_BPF_WRITE(w->lost_reported, lost);
	}
	ret = hwt_bpf_ring_write(w, m, d, nr_slots, cyc,
				 kind == HWT_BPF_W_EVENT ? normal_slots : nr_slots,
				 kind, &r, 1);
refused:
	if (ret == HWT_BPF_FULL)
		__sync_fetch_and_add(&m->lost, 1);
	return ret;
}

/*
 * kmod/control.c cpu_start(): cycles_per_msec, trace_start and id (this
 * CPU, the pid running here: the first switch's prev), reserved together
 * by the cmpxchg that switches the CPU on, so they come first.  Returns
 * HWT_BPF_OK, else the CPU stays off.
 */
static __always_inline int hwt_bpf_cpu_start(struct hwt_bpf_cpu *w,
					     struct hwt_ring_meta *m, void *d,
					     __u32 nr_slots, int cyc, __u32 cpu,
					     __u32 pid)
{
	struct hwt_bpf_rec r[3] = {
		{ .code = HWT_EV_CYCLES_PER_MSEC, .par1 = HWT_BPF_CLOCK,
		  .par2 = HWT_BPF_NS_PER_MSEC },
		{ .code = HWT_EV_TRACE_START },
		{ .code = HWT_EV_ID, .par1 = (__u16)cpu, .par2 = pid },
	};

	return hwt_bpf_ring_write(w, m, d, nr_slots, cyc, nr_slots,
				  HWT_BPF_W_START, r, 3);
}

/*
 * kmod/control.c cpu_stop(): a pending loss, then trace_stop, reserved by
 * the cmpxchg that switches the CPU off, so it comes last.  A CPU that is
 * off has nothing to stop.  If trace_stop cannot be written (a corrupt
 * data_tail, every race lost) the CPU is switched off all the same and the
 * record counts as lost.  Returns hwt_bpf_ring_write()'s result.
 */
static __always_inline int hwt_bpf_cpu_stop(struct hwt_bpf_cpu *w,
					    struct hwt_ring_meta *m, void *d,
					    __u32 nr_slots, int cyc)
{
	struct hwt_bpf_rec r = { .code = HWT_EV_TRACE_STOP };
	__u64 lost;
	int ret;

	if (!(HWT_BPF_READ(w->head) & HWT_BPF_ON))
		return HWT_BPF_OFF;
	lost = HWT_BPF_READ(m->lost);
	if (lost != HWT_BPF_READ(w->lost_reported)) {
		struct hwt_bpf_rec l = { .code = HWT_EV_LOST,
					 .par1 = (__u16)(lost >> 32),
					 .par2 = (__u32)lost };

		if (hwt_bpf_ring_write(w, m, d, nr_slots, cyc, nr_slots,
				       HWT_BPF_W_CTL, &l, 1) == HWT_BPF_OK)
			HWT_BPF_WRITE(w->lost_reported, lost);
	}
	ret = hwt_bpf_ring_write(w, m, d, nr_slots, cyc, nr_slots,
				 HWT_BPF_W_STOP, &r, 1);
	if (ret != HWT_BPF_OK) {
		__sync_fetch_and_and(&w->head, ~HWT_BPF_ON);
		__sync_fetch_and_add(&m->lost, 1);
	}
	return ret;
}

#endif /* HWT_BPF_NOW */

#endif /* HWT_BPF_SHARED_H */
