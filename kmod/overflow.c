// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace ring overflow, the slow path of a write: a JTN chunk moves the
 * CPU on to its link; anything else counts the event lost, and lost totals
 * are reported in-band.
 */
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include "hwt.h"
#include "ring.h"

/*
 * Write the lost total, if a loss is unreported, where ctl records go (the
 * emergency area).  Only for a writer no other record can follow unseen: a
 * CPU stopping or leaving the ring.
 */
void hwt_report_lost(const struct hwt_chunk *c, struct hwt_ring *r)
{
	bool cyc = HWT_CHUNK_MODE(READ_ONCE(c->flags)) == HWT_CHUNK_CYC;
	unsigned long lost = local_read(&r->lost);

	if (lost != r->lost_reported &&
	    !hwt_ring_write(r, cyc, r->nr_slots, HWT_EV_LOST,
			    HWT_LOST_PAR1(lost), (u32)lost))
		r->lost_reported = lost;
}

void hwt_count_lost(struct hwt_ring *r)
{
	unsigned long lost;

	local_inc(&r->lost);
	/* a loss nested between the read and the store must not be undone */
	do {
		lost = local_read(&r->lost);
		WRITE_ONCE(r->meta->lost, lost);
	} while (lost != local_read(&r->lost));
}

/*
 * An event did not fit.  A JTN chunk with a link moves this CPU on to the
 * linked chunk, marks the jump with a next_chunk record in the emergency
 * area, and writes the event there (S.Ha.R.K. dropped it).  Anything else
 * counts it lost.  A chain is followed at most HWT_MAX_CHUNKS steps.
 */
void hwt_ring_overflow(struct hwt_chunk *c, struct hwt_ring *r, u16 code,
		       u16 par1, u32 par2, bool ctl)
{
	struct hwt_chunk *next;
	int cpu = smp_processor_id();
	int hops;
	bool cyc;

	for (hops = 0; hops < HWT_MAX_CHUNKS; hops++) {
		next = rcu_dereference_sched(c->link);
		if (HWT_CHUNK_MODE(READ_ONCE(c->flags)) != HWT_CHUNK_JTN || !next)
			break;
		/* only the writer that moves the CPU marks the jump */
		if (this_cpu_cmpxchg(hwt_cur, c, next) == c) {
			hwt_report_lost(c, r);
			if (hwt_ring_write(r, false, r->nr_slots, HWT_EV_NEXT_CHUNK,
					   next->id, c->id))
				hwt_count_lost(r);
		}
		c = this_cpu_read(hwt_cur);
		if (!c)
			break;	/* stopped meanwhile: the event is lost */
		r = &c->rings[cpu];
		cyc = HWT_CHUNK_MODE(READ_ONCE(c->flags)) == HWT_CHUNK_CYC;
		if (!hwt_ring_write(r, cyc, ctl ? r->nr_slots : r->normal_slots,
				    code, par1, par2))
			return;
	}
	hwt_count_lost(r);
}
