/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwt_record(): what every probe calls.  Inline, because it is the fast path:
 * one filter test, this CPU's current chunk, one ring write.  Everything rare
 * (a full ring, a loss to report) is out of line in overflow.c.
 */
#ifndef _HWT_RECORD_H
#define _HWT_RECORD_H

#include <linux/preempt.h>
#include "ring.h"

/*
 * Write to this CPU's current chunk.  ctl records (start/stop, filter
 * changes, loss reports) may use the emergency area and bypass the filter.
 */
static __always_inline void __hwt_record(u16 code, u16 par1, u32 par2, bool ctl)
{
	struct hwt_chunk *c;
	struct hwt_ring *r;
	unsigned long lost;
	bool cyc;

	preempt_disable_notrace();
	c = this_cpu_read(hwt_cur);	/* NULL while tracing is disabled */
	if (unlikely(!c))
		goto out;
	r = &c->rings[smp_processor_id()];
	/* writers nest task < softirq < irq < NMI; deeper is refused (LTTng's bound) */
	if (unlikely(local_read(&r->nest) >= HWT_MAX_NEST)) {
		hwt_count_lost(r);
		goto out;
	}
	cyc = HWT_CHUNK_MODE(READ_ONCE(c->flags)) == HWT_CHUNK_CYC;
	/*
	 * A ring that lost events says how many before the next event: the
	 * report and the event go in together or neither does (the event is
	 * then lost too), so no gap is ever without a report before it.
	 */
	lost = local_read(&r->lost);
	if (unlikely(lost != r->lost_reported) && !ctl) {
		if (hwt_ring_write(r, cyc, r->normal_slots - 1, HWT_EV_LOST,
				   HWT_LOST_PAR1(lost), (u32)lost))
			goto full;
		r->lost_reported = lost;	/* what was written, not a later count */
	}
	if (likely(!hwt_ring_write(r, cyc, ctl ? r->nr_slots : r->normal_slots,
				   code, par1, par2)))
		goto out;
full:
	hwt_ring_overflow(c, r, code, par1, par2, ctl);
out:
	preempt_enable_notrace();
}

/* Log an event unless its family is filtered: the one test a filter costs. */
static __always_inline void hwt_record(u16 code, u16 par1, u32 par2)
{
	if (READ_ONCE(hwt_filter_mask) & BIT(code & HWT_FAMILY_MASK))
		return;
	__hwt_record(code, par1, par2, false);
}

#endif /* _HWT_RECORD_H */
