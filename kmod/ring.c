// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace rings: allocation, the meta page, the write with every check (the
 * slow path's; the fast path is inline in ring.h), and fill as the ioctls
 * see it.  A ring knows nothing of chunks: which chunk it belongs to is
 * only written to its meta page.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include "hwt.h"
#include "ring.h"

/*
 * Zeroed pages on the writing CPU's NUMA node, in one vmalloc area that
 * userspace may map (VM_USERMAP, what vmalloc_user() gives, which has no
 * node variant for modules).  vfree() puts the pages and the array.
 */
static void *ring_alloc(u64 size, int node)
{
	unsigned long i, n = size >> PAGE_SHIFT;
	struct page **pages;
	void *addr;

	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO, 0);
		if (!pages[i])
			goto fail;
	}
	addr = vmap(pages, n, VM_MAP | VM_USERMAP | VM_MAP_PUT_PAGES, PAGE_KERNEL);
	if (addr)
		return addr;
fail:
	while (i--)
		__free_page(pages[i]);
	kvfree(pages);
	return NULL;
}

/*
 * How many events the fast path may write from position pos once fill
 * records are held: up to the one that reaches the watermark (it wakes the
 * consumer), then up to the normal area's end, where the consumer position
 * must be read again; and never the lap's last slot (ring.h).  None while a
 * loss waits to be reported.
 */
static unsigned long ring_room(const struct hwt_ring *r, unsigned long pos,
			       unsigned long fill)
{
	unsigned long lap_end = pos < r->nr_slots ? r->nr_slots : 2UL * r->nr_slots;
	unsigned long room = 0;

	if (local_read(&r->lost) != READ_ONCE(r->lost_reported))
		return 0;
	if (r->cyc)
		room = HWT_ROOM_MASK;
	else if (fill < r->watermark)
		room = r->watermark - 1 - fill;
	else if (fill < r->normal_slots)
		room = r->normal_slots - fill;
	return min3(room, lap_end - 1 - pos, HWT_ROOM_MASK);
}

/* lost_reported up to total, never down: a nested writer may be ahead. */
static void ring_reported(struct hwt_ring *r, unsigned long total)
{
	unsigned long old;

	do {
		old = READ_ONCE(r->lost_reported);
		if (old >= total)
			return;
	} while (cmpxchg_local(&r->lost_reported, old, total) != old);
}

/*
 * Reserve, stamp, store and commit one record with every check.  The loss
 * counts are read inside the reservation: a writer nested between the read
 * and the cmpxchg that counts a loss or reports one moves the head word.
 * So they are the counts at the reservation, and no report ever carries a
 * total below an earlier one's.
 */
static int ring_write(struct hwt_ring *r, u32 limit, u16 code, u16 par1,
		      u32 par2, bool lost)
{
	unsigned long head, next, pos, total, reported, used = 0;
	int ret = 0;
	u64 ts;

	local_inc(&r->nest);
	do {
		head = local_read(&r->head);
		pos = HWT_HEAD_POS(head);
		/* a stopped CPU's ring takes control records only (its start) */
		if (head & HWT_HEAD_CLOSED && limit < r->nr_slots) {
			ret = -ENOSPC;
			goto commit;
		}
		if (!r->cyc) {
			used = hwt_ring_used(r, pos);
			if (used >= limit) {
				ret = -ENOSPC;
				goto commit;
			}
		}
		total = local_read(&r->lost);
		reported = READ_ONCE(r->lost_reported);
		if (lost) {
			if (total == reported)
				goto commit;	/* a nested writer reported it */
			par1 = HWT_LOST_PAR1(total);
			par2 = (u32)total;
		}
		pos = pos + 1 == 2UL * r->nr_slots ? 0 : pos + 1;
		next = hwt_head(r, pos, ring_room(r, pos, used + 1));
		ts = hwt_now();
	} while (local_cmpxchg(&r->head, head, next) != head);
	/*
	 * An event's slot, but a loss counted before it is unreported: one
	 * the caller has not reported yet, or one a writer nested after the
	 * caller's report counted.  The slot reports it instead; the caller
	 * writes the event again.  A loss counted after the reservation is
	 * the next writer's to report.
	 */
	if (!lost && limit < r->nr_slots && total != reported) {
		lost = true;
		code = HWT_EV_LOST;
		par1 = HWT_LOST_PAR1(total);
		par2 = (u32)total;
		ret = -EAGAIN;
	}
	if (lost)
		ring_reported(r, total);
	hwt_ring_store(hwt_ring_slot(r, HWT_HEAD_POS(head)), code, par1, par2, ts);
	local_inc(&r->written);
	/* the consumer sleeps in poll() until a ring reaches its watermark */
	if (!r->cyc && used + 1 == r->watermark)
		hwt_wakeup_ring();
commit:
	hwt_ring_commit(r);
	return ret;
}

/*
 * Write one record with every check, and give the fast path its room.
 * limit is the fill a STOP/JTN ring may reach before this record is
 * refused: normal_slots for events, nr_slots for control records (the
 * emergency area).  A CYC ring overwrites instead.  Events are refused on a
 * closed ring (-ENOSPC: the caller counts the loss).  While a loss is
 * unreported the record becomes its report (-EAGAIN: the caller writes the
 * event again), so that no event follows a loss unreported.  Preemption
 * must be disabled.
 */
int hwt_ring_write(struct hwt_ring *r, u32 limit, u16 code, u16 par1, u32 par2)
{
	return ring_write(r, limit, code, par1, par2, false);
}

/* The lost total in-band, if a loss is unreported; as hwt_ring_write(). */
int hwt_ring_report_lost(struct hwt_ring *r, u32 limit)
{
	if (local_read(&r->lost) == READ_ONCE(r->lost_reported))
		return 0;
	return ring_write(r, limit, HWT_EV_LOST, 0, 0, true);
}

/*
 * A loss was counted: send the next writer to the slow path to report it,
 * and move the loss generation, so that the head word changes also where
 * there was no room.
 */
void hwt_ring_stop_fast_path(struct hwt_ring *r)
{
	unsigned long head, gen;

	do {
		head = local_read(&r->head);
		gen = (head + (1UL << HWT_GEN_SHIFT)) & HWT_GEN_MASK;
	} while (local_cmpxchg(&r->head, head,
			       (head & ~(HWT_GEN_MASK | HWT_ROOM_MASK)) | gen) != head);
}

/*
 * The CPU stopped on this ring: no room, and events are refused, also in the
 * slow path, until a control record (the next start) reopens it.
 */
void hwt_ring_close(struct hwt_ring *r)
{
	unsigned long head;

	do {
		head = local_read(&r->head);
	} while (local_cmpxchg(&r->head, head,
			       (head & ~HWT_ROOM_MASK) | HWT_HEAD_CLOSED) != head);
}

/*
 * An empty ring of nr_slots records in meta and data (zeroed), for CPU cpu;
 * chunk and flags only go into the meta page, for the reader, but the mode
 * in flags is the ring's.
 */
void hwt_ring_setup(struct hwt_ring *r, struct hwt_ring_meta *meta,
		    struct hwt_event *data, u32 nr_slots, u32 normal_slots,
		    u32 chunk, u32 flags, int cpu)
{
	r->meta = meta;
	r->data = data;
	r->nr_slots = nr_slots;
	r->lap_data[0] = (unsigned long)data;
	r->lap_data[1] = (unsigned long)data - (unsigned long)nr_slots * HWT_EVENT_SIZE;
	r->normal_slots = normal_slots;
	/* wake the consumer early: 3/4 of the ring absorbs its wakeup latency */
	r->watermark = max(normal_slots / 4, 1U);
	r->data_size = PAGE_ALIGN((u64)nr_slots * HWT_EVENT_SIZE);
	local_set(&r->nest, 0);
	local_set(&r->written, 0);
	local_set(&r->lost, 0);
	r->lost_reported = 0;
	local_set(&r->head, 0);
	hwt_ring_set_mode(r, flags);

	meta->version = HWT_ABI_MAJOR;
	meta->meta_size = sizeof(*meta);
	meta->chunk = chunk;
	meta->cpu = cpu;
	meta->nr_slots = nr_slots;
	meta->normal_slots = normal_slots;
	meta->flags = flags;
	meta->data_offset = HWT_MMAP_OFFSET(chunk, cpu, HWT_AREA_DATA);
	meta->data_size = r->data_size;
	hwt_ring_set_clock(r);
}

/* A ring of normal + emergency bytes for CPU cpu, on its node. */
int hwt_ring_init(struct hwt_ring *r, u64 normal_size, u64 emergency_size,
		  u32 chunk, u32 flags, int cpu)
{
	u32 nr_slots = (normal_size + emergency_size) / HWT_EVENT_SIZE;
	struct hwt_ring_meta *meta;
	struct hwt_event *data;

	/* zeroed: nothing stale ever reaches userspace */
	meta = ring_alloc(PAGE_SIZE, cpu_to_node(cpu));
	data = ring_alloc(PAGE_ALIGN((u64)nr_slots * HWT_EVENT_SIZE), cpu_to_node(cpu));
	if (!meta || !data) {
		vfree(data);
		vfree(meta);
		return -ENOMEM;
	}
	hwt_ring_setup(r, meta, data, nr_slots, normal_size / HWT_EVENT_SIZE,
		       chunk, flags, cpu);
	return 0;
}

void hwt_ring_free(struct hwt_ring *r)
{
	vfree(r->data);
	vfree(r->meta);
	r->data = NULL;
	r->meta = NULL;
}

/*
 * The mode of a ring no CPU writes to and nothing was written to (the
 * chunk table refuses the change otherwise): overwrite or refuse.
 */
void hwt_ring_set_mode(struct hwt_ring *r, u32 flags)
{
	unsigned long pos = HWT_HEAD_POS(local_read(&r->head));

	r->cyc = HWT_CHUNK_MODE(flags) == HWT_CHUNK_CYC;
	local_set(&r->head, hwt_head(r, pos, ring_room(r, pos, hwt_ring_fill(r))));
}

void hwt_ring_set_clock(struct hwt_ring *r)
{
	WRITE_ONCE(r->meta->clock, hwt_clock_kind());
	WRITE_ONCE(r->meta->cycles_per_msec, hwt_clock_rate());
}

/* Records a reader can still get: unconsumed ones, or a CYC ring's window. */
u64 hwt_ring_fill(const struct hwt_ring *r)
{
	unsigned long used;

	if (r->cyc)
		return min_t(u64, local_read(&r->written), r->nr_slots);
	used = hwt_ring_used(r, HWT_HEAD_POS(local_read(&r->head)));
	return min_t(u64, used, r->nr_slots);
}

/* Records a CYC ring wrote over: all it wrote but the window it holds. */
u64 hwt_ring_overwritten(const struct hwt_ring *r)
{
	unsigned long written = local_read(&r->written);

	return r->cyc && written > r->nr_slots ? written - r->nr_slots : 0;
}
