/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwt_record(): what every probe calls.  Inline, because it is the fast path:
 * one filter test, this CPU's ring, one reservation with room to spare.
 * Everything rare (a loss to report, the watermark, a full ring, a JTN
 * jump) is out of line in overflow.c.
 */
#ifndef _HWT_RECORD_H
#define _HWT_RECORD_H

#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include "ring.h"

/*
 * This CPU's ring, NULL while it does not trace.  One %gs-relative load:
 * rcu_dereference_sched() would first compute this CPU's address of
 * hwt_cur.  Writers run with preemption off, so RCU-sched protects the ring.
 */
static __always_inline struct hwt_ring *hwt_cur_ring(void)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_sched_held(),
			 "hwt_cur read outside an RCU-sched section");
	return (struct hwt_ring __force *)this_cpu_read(hwt_cur);
}

/* Is the family of code logged?  The one test a filter costs. */
static __always_inline bool hwt_family_on(u16 code)
{
	return !(READ_ONCE(hwt_filter_mask) & BIT(code & HWT_FAMILY_MASK));
}

/*
 * Write an event whose family is on.  The monotonic clock is a call: its
 * path is out of line (overflow.c), so that the cycle counter's needs no
 * registers saved around a call.
 */
static __always_inline void hwt_write(u16 code, u16 par1, u32 par2)
{
	struct hwt_ring *r;

	preempt_disable_notrace();
	r = hwt_cur_ring();
	if (likely(r)) {
		if (!static_branch_likely(&hwt_clock_is_cycles))
			hwt_record_mono(r, code, par1, par2);
		else if (unlikely(!hwt_ring_try_write(r, code, par1, par2, true)))
			hwt_record_slow(r, code, par1, par2);
	}
	preempt_enable_notrace();
}

static __always_inline void hwt_record(u16 code, u16 par1, u32 par2)
{
	if (hwt_family_on(code))
		hwt_write(code, par1, par2);
}

#endif /* _HWT_RECORD_H */
