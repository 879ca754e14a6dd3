// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Ring consumer: one (chunk, CPU) ring mapped from /dev/hwtrace, read with
 * the protocol of <linux/hwtrace.h> and no system call per event.
 *
 *   positions run over [0, 2N) for N slots; slot = pos < N ? pos : pos - N
 *
 *        data_tail (ours)          data_head (kernel)
 *            |                        |
 *   slots: [ . . . R R R R R R R R R R . . . . ]
 *
 * STOP and JTN rings are drained: load-acquire data_head, hand records
 * [tail, head) to the sink (in two spans when they wrap past slot N-1),
 * then store-release data_tail = head, which gives the slots back.
 *
 * CYC rings overwrite their oldest record and ignore data_tail.  A snapshot
 * copies the min(written, N) records that end at data_head, then reads
 * data_head again: every record written meanwhile landed on one of the
 * oldest slots of the copy, so that many (plus a margin for writers still
 * between reserve and commit, when the ring is live) are dropped from the
 * front instead of being mixed in.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

struct hwt_ring {
	struct hwt_ring_meta *meta;	/* shared page, read-write */
	const struct hwt_event *data;	/* read-only mapping */
	size_t meta_size, data_size;
	uint32_t chunk, cpu, nr_slots;
};

static uint64_t load_head(const struct hwt_ring_meta *meta)
{
	/* pairs with the kernel's smp_wmb() before it stores data_head */
	return __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
}

int64_t hwt_ring_drain_mem(struct hwt_ring_meta *meta,
			   const struct hwt_event *data, uint32_t nr_slots,
			   hwt_sink_fn_t sink, void *ctx)
{
	uint64_t span = 2 * (uint64_t)nr_slots;
	uint64_t head, tail, count, slot, first;
	uint32_t cpu = meta->cpu;
	int err;

	if (!nr_slots)
		return hwt_err(-EINVAL);
	head = load_head(meta);
	tail = __atomic_load_n(&meta->data_tail, __ATOMIC_RELAXED);	/* ours */
	if (head >= span || tail >= span)
		return hwt_err(-EPROTO);
	count = head >= tail ? head - tail : head + span - tail;
	if (count > nr_slots)
		return hwt_err(-EPROTO);
	if (!count)
		return 0;
	slot = tail < nr_slots ? tail : tail - nr_slots;
	first = min(count, nr_slots - slot);
	err = sink(ctx, cpu, data + slot, first);
	if (!err && count > first)
		err = sink(ctx, cpu, data, count - first);
	if (err)
		return hwt_err(err);
	/* the records are read before the kernel may reuse their slots */
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	return (int64_t)count;
}

int64_t hwt_ring_snapshot_mem(const struct hwt_ring_meta *meta,
			      const struct hwt_event *data, uint32_t nr_slots,
			      unsigned int flags, hwt_sink_fn_t sink, void *ctx)
{
	uint64_t span = 2 * (uint64_t)nr_slots;
	uint64_t head, head2, written, written2, n, start, moved, drop, i;
	struct hwt_event *copy;
	int err = 0;

	if (!nr_slots || flags & ~HWT_SNAP_LIVE)
		return hwt_err(-EINVAL);
	head = load_head(meta);
	written = __atomic_load_n(&meta->written, __ATOMIC_RELAXED);
	if (head >= span)
		return hwt_err(-EPROTO);
	n = min(written, (uint64_t)nr_slots);
	/* not wrapped yet: the records are positions [0, head) */
	if (written < nr_slots)
		n = min(n, head);
	if (!n)
		return 0;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return hwt_err(-ENOMEM);
	start = (head + span - n) % span;
	for (i = 0; i < n; i++) {
		uint64_t pos = (start + i) % span;

		copy[i] = data[pos < nr_slots ? pos : pos - nr_slots];
	}
	/* the copy is done before we look at how far the writers got */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	head2 = load_head(meta);
	moved = (head2 + span - head) % span;
	/* written is exact where head wraps: a writer lapping the ring twice */
	written2 = __atomic_load_n(&meta->written, __ATOMIC_RELAXED);
	if (written2 > written && written2 - written > moved)
		moved = written2 - written;
	drop = hwt_snapshot_drop(n, nr_slots, moved, flags & HWT_SNAP_LIVE);
	if (drop < n)
		err = sink(ctx, meta->cpu, copy + drop, n - drop);
	free(copy);
	if (err)
		return hwt_err(err);
	return drop < n ? (int64_t)(n - drop) : 0;
}

int hwt_ring_map(struct hwt_dev *d, uint32_t chunk, uint32_t cpu,
		 struct hwt_ring **out)
{
	struct hwt_ring_info info;
	struct hwt_ring *r;
	void *p;
	int err;

	*out = NULL;
	err = hwt_dev_ring_info(d, chunk, cpu, &info);
	if (err)
		return err;
	/* the data mapping must hold every slot the kernel may write */
	if (!info.nr_slots ||
	    info.data_size / HWT_EVENT_SIZE < info.nr_slots ||
	    info.meta_size < sizeof(struct hwt_ring_meta))
		return hwt_err(-EPROTO);
	r = calloc(1, sizeof(*r));
	if (!r)
		return hwt_err(-ENOMEM);
	r->chunk = chunk;
	r->cpu = cpu;
	r->nr_slots = info.nr_slots;
	r->meta_size = info.meta_size;
	r->data_size = info.data_size;
	p = mmap(NULL, info.meta_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 hwt_dev_fd(d), (off_t)info.meta_offset);
	if (p == MAP_FAILED) {
		err = -errno;
		goto err;
	}
	r->meta = p;
	p = mmap(NULL, info.data_size, PROT_READ, MAP_SHARED, hwt_dev_fd(d),
		 (off_t)info.data_offset);
	if (p == MAP_FAILED) {
		err = -errno;
		goto err;
	}
	r->data = p;
	if (r->meta->version != HWT_ABI_MAJOR || r->meta->nr_slots != r->nr_slots ||
	    r->meta->cpu != cpu) {
		pr_warn("ring %u/%u: meta page disagrees with RING_INFO\n", chunk, cpu);
		err = -EPROTO;
		goto err;
	}
	*out = r;
	return 0;
err:
	hwt_ring_unmap(r);
	return hwt_err(err);
}

void hwt_ring_unmap(struct hwt_ring *r)
{
	if (!r)
		return;
	if (r->data)
		munmap((void *)r->data, r->data_size);
	if (r->meta)
		munmap(r->meta, r->meta_size);
	free(r);
}

uint32_t hwt_ring_cpu(const struct hwt_ring *r)
{
	return r->cpu;
}

uint32_t hwt_ring_chunk(const struct hwt_ring *r)
{
	return r->chunk;
}

uint32_t hwt_ring_slots(const struct hwt_ring *r)
{
	return r->nr_slots;
}

const struct hwt_ring_meta *hwt_ring_meta(const struct hwt_ring *r)
{
	return r->meta;
}

static int ring_is_cyc(const struct hwt_ring *r)
{
	return HWT_CHUNK_MODE(__atomic_load_n(&r->meta->flags, __ATOMIC_RELAXED)) ==
	       HWT_CHUNK_CYC;
}

uint64_t hwt_ring_fill(const struct hwt_ring *r)
{
	uint64_t span = 2 * (uint64_t)r->nr_slots;
	uint64_t head = load_head(r->meta), tail;

	if (ring_is_cyc(r))
		return min(__atomic_load_n(&r->meta->written, __ATOMIC_RELAXED),
			   (uint64_t)r->nr_slots);
	tail = __atomic_load_n(&r->meta->data_tail, __ATOMIC_RELAXED);
	if (head >= span || tail >= span)
		return r->nr_slots;
	return head >= tail ? head - tail : head + span - tail;
}

int64_t hwt_ring_consume(struct hwt_ring *r, unsigned int flags,
			 hwt_sink_fn_t sink, void *ctx)
{
	if (ring_is_cyc(r))
		return hwt_ring_snapshot_mem(r->meta, r->data, r->nr_slots,
					     flags, sink, ctx);
	return hwt_ring_drain_mem(r->meta, r->data, r->nr_slots, sink, ctx);
}
