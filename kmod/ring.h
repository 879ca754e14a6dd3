/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtrace ring fast path: reserve, timestamp, store, commit.
 *
 *   positions run over [0, 2N) for a ring of N slots, so that full (N apart)
 *   and empty (equal) differ without a division or a power-of-two size:
 *
 *        data_tail (user)          head (kernel)
 *            |                        |
 *   slots: [ . . . R R R R R R R R R R . . . . ]   slot = pos < N ? pos : pos - N
 *            <------ fill = (head - tail) mod 2N ------>
 *
 * Reserve is one local cmpxchg on head, retried if a nested writer (an IRQ
 * or NMI on this CPU) moved head meanwhile.  The timestamp is taken inside
 * the retry loop, so a successful reservation has a timestamp no nested
 * writer can undercut: ring order is time order.
 *
 * Commit follows perf: only the outermost writer publishes data_head (after
 * smp_wmb(), so the records are visible first), then re-checks that no
 * nested writer reserved meanwhile.  The record that fills a STOP/JTN ring
 * to its watermark (a quarter) queues an irq_work that wakes poll(): the
 * write path itself never wakes anyone.  Userspace reads data_head with acquire
 * and stores data_tail with release; the kernel reads data_tail with acquire
 * before it overwrites a slot.
 */
#ifndef _HWT_RING_H
#define _HWT_RING_H

#include <linux/compiler.h>
#include <asm/barrier.h>
#include "hwt.h"
#include "compat.h"

static __always_inline u64 hwt_now(void)
{
	if (static_branch_likely(&hwt_clock_is_cycles))
		return hwt_cycles();
	return ktime_get_mono_fast_ns();
}

/*
 * Records held, from the untrusted consumer position.  A data_tail outside
 * the ring yields a fill above nr_slots, which every caller treats as full.
 */
static __always_inline unsigned long hwt_ring_used(const struct hwt_ring *r,
						   unsigned long head)
{
	unsigned long span = 2UL * r->nr_slots;
	/* acquire: the consumer is done with slots before its data_tail */
	u64 tail = smp_load_acquire(&r->meta->data_tail);

	if (unlikely(tail >= span))
		return ULONG_MAX;
	return head >= tail ? head - tail : head + span - (unsigned long)tail;
}

/*
 * Write one record.  limit is the fill a STOP/JTN ring may reach before this
 * record is refused: normal_slots for events, nr_slots for control records
 * (the emergency area).  CYC rings overwrite instead.  Returns 0 or -ENOSPC;
 * the caller counts the loss.  Preemption must be disabled.
 */
static __always_inline int hwt_ring_write(struct hwt_ring *r, bool cyc,
					  unsigned long limit, u16 code,
					  u16 par1, u32 par2)
{
	unsigned long head, next, used = 0;
	struct hwt_event *ev;
	u64 ts;
	int ret = 0;

	local_inc(&r->nest);
	do {
		head = local_read(&r->head);
		if (!cyc) {
			used = hwt_ring_used(r, head);
			if (used >= limit) {
				ret = -ENOSPC;
				goto commit;
			}
		}
		next = head + 1;
		if (next == 2UL * r->nr_slots)
			next = 0;
		ts = hwt_now();
	} while (local_cmpxchg(&r->head, head, next) != head);

	ev = &r->data[head < r->nr_slots ? head : head - r->nr_slots];
	ev->code = code;
	ev->par1 = par1;
	ev->tsc_hi = upper_32_bits(ts);
	ev->tsc_lo = lower_32_bits(ts);
	ev->par2 = par2;
	if (cyc && local_inc_return(&r->written) > r->nr_slots)
		local_inc(&r->overwritten);
	else if (!cyc)
		local_inc(&r->written);
	/* the consumer sleeps in poll() until a ring reaches its watermark */
	if (unlikely(!cyc && used + 1 == r->watermark))
		hwt_wakeup();

commit:
	for (;;) {
		if (local_read(&r->nest) > 1) {
			/* nested: the interrupted writer publishes for us */
			local_dec(&r->nest);
			break;
		}
		head = local_read(&r->head);
		smp_wmb();	/* records before data_head; pairs with user acquire */
		WRITE_ONCE(r->meta->data_head, head);
		WRITE_ONCE(r->meta->written, local_read(&r->written));
		if (cyc)
			WRITE_ONCE(r->meta->overwritten, local_read(&r->overwritten));
		barrier();
		local_set(&r->nest, 0);
		barrier();
		/* a writer that nested after the publish left its record unpublished */
		if (likely(head == local_read(&r->head)))
			break;
		local_set(&r->nest, 1);
	}
	return ret;
}

#endif /* _HWT_RING_H */
