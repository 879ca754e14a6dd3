/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtrace ring fast path: reserve, timestamp, store, commit.
 *
 *   positions run over [0, 2N) for a ring of N slots, so that full (N apart)
 *   and empty (equal) differ without a division or a power-of-two size:
 *
 *        data_tail (user)          position (kernel)
 *            |                        |
 *   slots: [ . . . R R R R R R R R R R . . . . ]   slot = pos < N ? pos : pos - N
 *            <------ fill = (pos - tail) mod 2N ------>
 *
 * The writer's one word, head, holds the next position and the room:
 *
 *   head = position << HWT_ROOM_BITS | closed | lap | loss generation | room
 *
 * room is how many more events the fast path may write without looking at
 * anything else.  For a STOP/JTN ring it counts up to the event that
 * reaches the watermark or fills the normal area, as of the consumer
 * position the slow path last read; for a CYC ring it is as large as the
 * field; neither goes past the lap (below).  What must stop the fast path
 * (a loss to report, the CPU stopping) sets room to 0 in the same word, so
 * a writer that reserved on the old word fails its cmpxchg and looks
 * again; a stopped CPU's ring is also marked closed there, and refuses
 * events until its next start record.  A loss also moves the word's loss
 * generation, even where the room was 0 already: the loss count a
 * reservation read is the count at its cmpxchg.  The fast path thus reads
 * neither the consumer's cache line nor the loss counters.
 *
 * Reserve is one local cmpxchg on head (position + 1, room - 1), retried if
 * a nested writer (an IRQ or NMI on this CPU) moved it meanwhile.  The
 * timestamp is taken inside the retry loop, so a successful reservation has a
 * timestamp no nested writer can undercut: ring order is time order.
 *
 * The positions [0, N) and [N, 2N) are the ring's two laps, and the head
 * word says which one its position is in.  Room never reaches a lap's
 * last slot: the slow path writes it.  So the fast path never wraps, and
 * finds a position's slot from its lap's start (lap_data) in one add.
 *
 * Commit follows perf: only the outermost writer publishes data_head (after
 * smp_wmb(), so the records are visible first), then re-checks that no
 * nested writer reserved meanwhile.  Userspace reads data_head with acquire
 * and stores data_tail with release; the slow path reads data_tail with
 * acquire before it gives the fast path more room.
 *
 * When the room is used up, hwt_ring_write() (ring.c) writes with every
 * check: fill against the consumer, the watermark wakeup (an irq_work: the
 * write path never wakes anyone itself), and the room that follows.
 */
#ifndef _HWT_RING_H
#define _HWT_RING_H

#include <linux/compiler.h>
#include <asm/barrier.h>
#include "hwt.h"
#include "compat.h"

#define HWT_ROOM_BITS		(BITS_PER_LONG / 2)
/* the low half's top bit: the CPU stopped on this ring, events are refused */
#define HWT_HEAD_CLOSED		(1UL << (HWT_ROOM_BITS - 1))
/* then the position's lap: set from position nr_slots on */
#define HWT_LAP_SHIFT		(HWT_ROOM_BITS - 2)
#define HWT_HEAD_LAP		BIT(HWT_LAP_SHIFT)
/* then the loss generation, moved by every loss counted; then the room */
#define HWT_GEN_SHIFT		(HWT_ROOM_BITS / 2)
#define HWT_GEN_MASK		(HWT_HEAD_LAP - (1UL << HWT_GEN_SHIFT))
#define HWT_ROOM_MASK		((1UL << HWT_GEN_SHIFT) - 1)
#define HWT_HEAD(pos, room)	((unsigned long)(pos) << HWT_ROOM_BITS | (room))
#define HWT_HEAD_POS(head)	((head) >> HWT_ROOM_BITS)
/* the most slots a ring may have: its 2 * N positions fit above the room */
#define HWT_MAX_SLOTS		((1UL << (BITS_PER_LONG - HWT_ROOM_BITS - 1)) - 1)

static __always_inline u64 hwt_now(void)
{
	if (static_branch_likely(&hwt_clock_is_cycles))
		return hwt_cycles();
	return ktime_get_mono_fast_ns();
}

/*
 * Records held at position pos, from the untrusted consumer position.  A
 * data_tail outside the ring yields a fill above nr_slots, which every
 * caller treats as full.
 */
static __always_inline unsigned long hwt_ring_used(const struct hwt_ring *r,
						   unsigned long pos)
{
	unsigned long span = 2UL * r->nr_slots;
	/* acquire: the consumer is done with slots before its data_tail */
	u64 tail = smp_load_acquire(&r->meta->data_tail);

	if (unlikely(tail >= span))
		return ULONG_MAX;
	return pos >= tail ? pos - tail : pos + span - (unsigned long)tail;
}

/* The head word of position pos, with that much room. */
static __always_inline unsigned long hwt_head(const struct hwt_ring *r,
					      unsigned long pos,
					      unsigned long room)
{
	return HWT_HEAD(pos, room) | (pos < r->nr_slots ? 0 : HWT_HEAD_LAP);
}

/* The slot of position pos. */
static __always_inline u64 *hwt_ring_slot(const struct hwt_ring *r,
					  unsigned long pos)
{
	return (u64 *)&r->data[pos < r->nr_slots ? pos : pos - r->nr_slots];
}

/*
 * One record, as two 8-byte stores (struct hwt_event's five fields would be
 * five): code, par1 and tsc_hi, then tsc_lo and par2, in memory order.
 */
static __always_inline void hwt_ring_store(u64 *slot, u16 code, u16 par1,
					   u32 par2, u64 ts)
{
	BUILD_BUG_ON(offsetof(struct hwt_event, tsc_lo) != 8);
#ifdef __LITTLE_ENDIAN
	slot[0] = code | (u64)par1 << 16 | (ts & GENMASK_ULL(63, 32));
	slot[1] = lower_32_bits(ts) | (u64)par2 << 32;
#else
	slot[0] = (u64)code << 48 | (u64)par1 << 32 | upper_32_bits(ts);
	slot[1] = ts << 32 | par2;
#endif
}

/*
 * Leave a writer's section (nest was raised on entry).  The outermost
 * writer publishes what every writer nested in it wrote.
 */
static __always_inline void hwt_ring_commit(struct hwt_ring *r)
{
	struct hwt_ring_meta *meta = r->meta;
	unsigned long head, written;

	for (;;) {
		if (local_read(&r->nest) > 1) {
			/* nested: the interrupted writer publishes for us */
			local_dec(&r->nest);
			return;
		}
		head = local_read(&r->head);
		written = local_read(&r->written);
		smp_wmb();	/* records before data_head; pairs with user acquire */
		WRITE_ONCE(meta->data_head, HWT_HEAD_POS(head));
		WRITE_ONCE(meta->written, written);
		if (r->cyc && written > r->nr_slots)
			WRITE_ONCE(meta->overwritten, written - r->nr_slots);
		barrier();
		local_set(&r->nest, 0);
		barrier();
		/* a writer that nested after the publish left its record unpublished */
		if (likely(head == local_read(&r->head)))
			return;
		local_set(&r->nest, 1);
	}
}

/*
 * The fast path: write one event if the room allows, timestamped with the
 * cycle counter (cycles) or the monotonic clock.  Returns false, having
 * written nothing, when the slow path must decide: no room left
 * (watermark, full ring, a loss to report) or writers nested too deep.
 * Preemption must be disabled.
 */
static __always_inline bool hwt_ring_try_write(struct hwt_ring *r, u16 code,
					       u16 par1, u32 par2, bool cycles)
{
	unsigned long head, lap;
	u64 ts;

	/* writers nest task < softirq < irq < NMI; deeper is refused (LTTng's bound) */
	if (unlikely(local_inc_return(&r->nest) > HWT_MAX_NEST))
		goto refuse;
	do {
		head = local_read(&r->head);
		if (unlikely(!(head & HWT_ROOM_MASK)))
			goto refuse;
		ts = cycles ? hwt_cycles() : ktime_get_mono_fast_ns();
		/* position + 1, room - 1: room ends before the lap does */
	} while (local_cmpxchg(&r->head, head, head + HWT_HEAD(1, 0) - 1) != head);
	lap = r->lap_data[(head >> HWT_LAP_SHIFT) & 1];
	hwt_ring_store((u64 *)(lap + HWT_HEAD_POS(head) * HWT_EVENT_SIZE), code,
		       par1, par2, ts);
	local_inc(&r->written);
	hwt_ring_commit(r);
	return true;
refuse:
	/* publishes what a writer nested here before the refusal wrote */
	hwt_ring_commit(r);
	return false;
}

#endif /* _HWT_RING_H */
