// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace rings: allocation, the meta page, and fill as the ioctls see it.
 * The write path itself is inline in ring.h.  A ring knows nothing of
 * chunks: which chunk it belongs to is only written to its meta page.
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
 * A ring of normal + emergency bytes for CPU cpu; chunk and flags only go
 * into the meta page, for the reader.
 */
int hwt_ring_init(struct hwt_ring *r, u64 normal_size, u64 emergency_size,
		  u32 chunk, u32 flags, int cpu)
{
	struct hwt_ring_meta *m;

	r->nr_slots = (normal_size + emergency_size) / HWT_EVENT_SIZE;
	r->normal_slots = normal_size / HWT_EVENT_SIZE;
	/* wake the consumer early: 3/4 of the ring absorbs its wakeup latency */
	r->watermark = max(r->normal_slots / 4, 1U);
	r->data_size = PAGE_ALIGN((u64)r->nr_slots * HWT_EVENT_SIZE);
	local_set(&r->head, 0);
	local_set(&r->nest, 0);
	local_set(&r->written, 0);
	local_set(&r->lost, 0);
	local_set(&r->overwritten, 0);
	r->lost_reported = 0;

	/* zeroed: nothing stale ever reaches userspace */
	r->meta = ring_alloc(PAGE_SIZE, cpu_to_node(cpu));
	r->data = ring_alloc(r->data_size, cpu_to_node(cpu));
	if (!r->meta || !r->data) {
		hwt_ring_free(r);
		return -ENOMEM;
	}

	m = r->meta;
	m->version = HWT_ABI_MAJOR;
	m->meta_size = sizeof(*m);
	m->chunk = chunk;
	m->cpu = cpu;
	m->nr_slots = r->nr_slots;
	m->normal_slots = r->normal_slots;
	m->flags = flags;
	m->data_offset = HWT_MMAP_OFFSET(chunk, cpu, HWT_AREA_DATA);
	m->data_size = r->data_size;
	hwt_ring_set_clock(r);
	return 0;
}

void hwt_ring_free(struct hwt_ring *r)
{
	vfree(r->data);
	vfree(r->meta);
	r->data = NULL;
	r->meta = NULL;
}

void hwt_ring_set_clock(struct hwt_ring *r)
{
	WRITE_ONCE(r->meta->clock, hwt_clock_kind());
	WRITE_ONCE(r->meta->cycles_per_msec, hwt_clock_rate());
}

/* Records a reader can still get: unconsumed ones, or a CYC ring's window. */
u64 hwt_ring_fill(const struct hwt_ring *r, bool cyc)
{
	unsigned long used;

	if (cyc)
		return min_t(u64, local_read(&r->written), r->nr_slots);
	used = hwt_ring_used(r, local_read(&r->head));
	return min_t(u64, used, r->nr_slots);
}
