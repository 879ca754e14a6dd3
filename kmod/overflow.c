// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace slow path: what the fast path (record.h) leaves when its room is
 * used up.  Losses are counted and reported in-band, before the next event;
 * a full JTN chunk moves the CPU on to its link; control records use the
 * emergency area.
 */
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include "hwt.h"
#include "record.h"

/*
 * Write the lost total, if a loss is unreported, where control records go
 * (the emergency area).  Only for a writer no other record can follow
 * unseen: a CPU stopping or leaving the ring.
 */
void hwt_report_lost(struct hwt_ring *r)
{
	hwt_ring_report_lost(r, r->nr_slots);
}

/* Count an event lost; the next writer takes the slow path to report it. */
void hwt_count_lost(struct hwt_ring *r)
{
	unsigned long lost;

	local_inc(&r->lost);
	/* a loss nested between the read and the store must not be undone */
	do {
		lost = local_read(&r->lost);
		WRITE_ONCE(r->meta->lost, lost);
	} while (lost != local_read(&r->lost));
	hwt_ring_stop_fast_path(r);
}

/*
 * The pending loss report, then the record, into r: both or neither (the
 * record is then lost too), so that no gap is ever without a report before
 * it.  A loss a nested writer counts between the two takes the record's
 * slot, and we go round again.  limit as for hwt_ring_write().  Returns 0
 * or -ENOSPC.
 */
static int write_reported(struct hwt_ring *r, u32 limit, u16 code, u16 par1,
			  u32 par2)
{
	int ret;

	do {
		ret = hwt_ring_report_lost(r, limit - 1);
		if (!ret)
			ret = hwt_ring_write(r, limit, code, par1, par2);
	} while (ret == -EAGAIN);
	return ret;
}

/*
 * A record did not fit in ring r, this CPU's.  A JTN chunk with a link
 * moves this CPU on to its ring in the linked chunk, marks the jump with a
 * next_chunk record in the emergency area, and writes the record there
 * (S.Ha.R.K. dropped it).  Anything else counts it lost.  A chain is
 * followed at most HWT_MAX_CHUNKS steps.
 */
static void ring_overflow(struct hwt_ring *r, u16 code, u16 par1, u32 par2,
			  bool ctl)
{
	int cpu = smp_processor_id();
	struct hwt_ring *to, *cur;
	struct hwt_chunk *c, *next;
	int hops;

	for (hops = 0; hops < HWT_MAX_CHUNKS; hops++) {
		c = hwt_ring_chunk(r, cpu);
		next = rcu_dereference_sched(c->link);
		if (HWT_CHUNK_MODE(READ_ONCE(c->flags)) != HWT_CHUNK_JTN || !next)
			break;
		to = &next->rings[cpu];
		/*
		 * Only the writer that moves the CPU marks the jump.  Local:
		 * only this CPU's writers (and its IPIs) change its hwt_cur.
		 */
		if (cmpxchg_local(this_cpu_ptr(&hwt_cur), RCU_INITIALIZER(r),
				  RCU_INITIALIZER(to)) == RCU_INITIALIZER(r)) {
			hwt_report_lost(r);
			if (hwt_ring_write(r, r->nr_slots, HWT_EV_NEXT_CHUNK,
					   next->id, c->id))
				hwt_count_lost(r);
		}
		cur = hwt_cur_ring();
		if (!cur)
			break;	/* stopped meanwhile: the record is lost */
		r = cur;
		if (!write_reported(r, ctl ? r->nr_slots : r->normal_slots,
				    code, par1, par2))
			return;
	}
	hwt_count_lost(r);
}

/*
 * The fast path's room is used up: writers nested too deep, a loss to
 * report, the watermark, a ring that may be full, or the CPU moved on.
 */
void hwt_record_slow(struct hwt_ring *r, u16 code, u16 par1, u32 par2)
{
	struct hwt_ring *cur = hwt_cur_ring();

	/*
	 * The CPU moved on (a select) since this writer read its ring.  A
	 * stop never interrupts a writer (stop_machine()); were the CPU off
	 * its ring, the event would be counted lost, never written after
	 * the stop record (a closed ring refuses it too).
	 */
	if (unlikely(cur != r)) {
		if (!cur) {
			hwt_count_lost(r);
			return;
		}
		r = cur;
	}
	if (local_read(&r->nest) >= HWT_MAX_NEST) {
		hwt_count_lost(r);
		return;
	}
	if (!write_reported(r, r->normal_slots, code, par1, par2))
		return;
	ring_overflow(r, code, par1, par2, false);
}

/* hwt_record() with the monotonic clock. */
void hwt_record_mono(struct hwt_ring *r, u16 code, u16 par1, u32 par2)
{
	if (unlikely(!hwt_ring_try_write(r, code, par1, par2, false)))
		hwt_record_slow(r, code, par1, par2);
}

/*
 * A control record (start, stop, filter change) into this CPU's ring: no
 * filter applies, and it may use the emergency area.
 */
void hwt_record_ctl(u16 code, u16 par1, u32 par2)
{
	struct hwt_ring *r;

	preempt_disable_notrace();
	r = hwt_cur_ring();
	if (r && hwt_ring_write(r, r->nr_slots, code, par1, par2))
		ring_overflow(r, code, par1, par2, true);
	preempt_enable_notrace();
}
