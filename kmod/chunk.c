// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace chunk table: S.Ha.R.K.'s FTrace chunk calls for many CPUs.
 *
 * A chunk owns one ring per possible CPU.  FREE means no CPU will write to
 * it: it is neither selected nor the target of a link.  select() and link()
 * take a FREE chunk and clear FREE; set_flags(FREE) gives it back once no
 * CPU writes to it.  BUSY and FULL are derived from the rings, never stored.
 *
 * Everything here runs under hwt_lock (hwt_chunk_table() takes it itself).
 * Writers reach a chunk only through
 * the per-CPU hwt_cur pointer and chunk->link, so a chunk may be freed once
 * it is unreachable and synchronize_rcu() has waited out every writer (they
 * run with preemption disabled).
 */
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/overflow.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>
#include "hwt.h"
#include "ring.h"

struct hwt_chunk *hwt_chunks[HWT_MAX_CHUNKS];
struct hwt_chunk *hwt_selected;

/* The chunk with this id, or NULL; -1/256 and deleted ids alike. */
struct hwt_chunk *hwt_chunk_get(long id)
{
	if (id < 0 || id >= HWT_MAX_CHUNKS)
		return NULL;
	return hwt_chunks[id];
}

static int chunk_lookup(long id, struct hwt_chunk **c)
{
	if (id < 0 || id >= HWT_MAX_CHUNKS)
		return -EINVAL;
	*c = hwt_chunks[id];
	return *c ? 0 : -ENOENT;
}

static bool chunk_linked_to(const struct hwt_chunk *c)
{
	int i;

	for (i = 0; i < HWT_MAX_CHUNKS; i++)
		if (hwt_chunks[i] && rcu_access_pointer(hwt_chunks[i]->link) == c)
			return true;
	return false;
}

/*
 * FULL: a STOP or JTN ring refuses events now (no room for one, or for a
 * pending lost report and one).  A consumer that drains it clears it.
 */
static bool chunk_full(const struct hwt_chunk *c, int cpu)
{
	const struct hwt_ring *r = &c->rings[cpu];
	u64 fill;

	if (r->cyc)
		return false;
	fill = hwt_ring_fill(r);
	return fill >= r->normal_slots ||
	       (fill + 1 >= r->normal_slots &&
		local_read(&r->lost) != READ_ONCE(r->lost_reported));
}

/* A ring's accounting follows its mode from the first record on. */
static bool chunk_written(const struct hwt_chunk *c)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (local_read(&c->rings[cpu].written) ||
		    local_read(&c->rings[cpu].lost))
			return true;
	return false;
}

/* Flags as userspace sees them: stored flags plus BUSY and FULL. */
static u32 chunk_flags(const struct hwt_chunk *c)
{
	u32 flags = c->flags;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (hwt_chunk_busy(c, cpu))
			flags |= HWT_CHUNK_BUSY;
		if (chunk_full(c, cpu))
			flags |= HWT_CHUNK_FULL;
	}
	return flags;
}

static void chunk_free(struct hwt_chunk *c)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hwt_ring_free(&c->rings[cpu]);
	hwt_used_memory -= c->mem;
	kfree(c);
}

static bool mode_valid(u32 flags)
{
	return HWT_CHUNK_MODE(flags) != (HWT_CHUNK_JTN | HWT_CHUNK_STOP);
}

int hwt_chunk_create(struct hwt_chunk_create *arg)
{
	u64 ring_bytes, per_cpu, mem;
	struct hwt_chunk *c;
	int id, cpu, ret;

	lockdep_assert_held(&hwt_lock);
	if (arg->flags & ~HWT_CHUNK_USER_FLAGS || !mode_valid(arg->flags) ||
	    arg->reserved[0] || arg->reserved[1])
		return -EINVAL;
	if (!arg->normal_size || arg->normal_size % HWT_EVENT_SIZE ||
	    arg->emergency_size < HWT_MIN_EMERGENCY ||
	    arg->emergency_size % HWT_EVENT_SIZE ||
	    check_add_overflow(arg->normal_size, arg->emergency_size, &ring_bytes) ||
	    ring_bytes / HWT_EVENT_SIZE > HWT_MAX_SLOTS)
		return -EINVAL;

	/* charge whole pages, meta page included, on every possible CPU */
	per_cpu = PAGE_ALIGN(ring_bytes) + PAGE_SIZE;
	if (check_mul_overflow(per_cpu, (u64)num_possible_cpus(), &mem) ||
	    mem > hwt_max_memory - hwt_used_memory)
		return -ENOMEM;

	for (id = 0; id < HWT_MAX_CHUNKS && hwt_chunks[id]; id++)
		;
	if (id == HWT_MAX_CHUNKS)
		return -ENOSPC;

	c = kzalloc(struct_size(c, rings, nr_cpu_ids), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->id = id;
	c->flags = arg->flags | HWT_CHUNK_FREE;
	c->normal_size = arg->normal_size;
	c->emergency_size = arg->emergency_size;
	c->mem = mem;
	hwt_used_memory += mem;
	for_each_possible_cpu(cpu) {
		ret = hwt_ring_init(&c->rings[cpu], c->normal_size, c->emergency_size,
				    c->id, c->flags, cpu);
		if (ret) {
			chunk_free(c);
			return ret;
		}
	}
	/* poll() finds chunks without hwt_lock: rings first, then the chunk */
	smp_store_release(&hwt_chunks[id], c);
	arg->id = id;
	return 0;
}

int hwt_chunk_delete(long id)
{
	struct hwt_chunk *c;
	int cpu, ret;

	lockdep_assert_held(&hwt_lock);
	ret = chunk_lookup(id, &c);
	if (ret)
		return ret;
	if (c->flags & HWT_CHUNK_NODEL || c->persist)
		return -EPERM;
	if (!(c->flags & HWT_CHUNK_FREE) || atomic_read(&c->mappings))
		return -EBUSY;

	/*
	 * FREE: not selected, nobody links to it, no CPU is on it.  A writer
	 * may still have read an old link to it; wait for such writers, then
	 * make sure none of them moved a CPU here.
	 */
	WRITE_ONCE(hwt_chunks[id], NULL);
	synchronize_rcu();	/* and poll() readers (hwt_ready) */
	for_each_possible_cpu(cpu) {
		if (hwt_chunk_busy(c, cpu)) {
			hwt_chunks[id] = c;
			return -EBUSY;
		}
	}
	chunk_free(c);
	return 0;
}

int hwt_chunk_set_flags(const struct hwt_chunk_flags *arg)
{
	struct hwt_chunk *c;
	int cpu, ret;
	u32 changed;

	lockdep_assert_held(&hwt_lock);
	if (arg->reserved)
		return -EINVAL;
	ret = chunk_lookup(arg->id, &c);
	if (ret)
		return ret;
	if (arg->flags & ~HWT_CHUNK_USER_FLAGS || !mode_valid(arg->flags))
		return -EINVAL;
	changed = c->flags ^ arg->flags;

	if (changed & HWT_CHUNK_MODE_MASK) {
		/*
		 * A ring's mode cannot change under its writers, nor while a
		 * CPU may jump in (selected, or a link target while tracing).
		 */
		if (hwt_enabled && (c == hwt_selected || chunk_linked_to(c)))
			return -EBUSY;
		/* STOP and CYC count differently: no ring may mix the two */
		if (chunk_written(c))
			return -EBUSY;
		for_each_possible_cpu(cpu)
			if (hwt_chunk_busy(c, cpu))
				return -EBUSY;
	}
	if (changed & arg->flags & HWT_CHUNK_FREE) {
		/* giving a chunk back: nothing may still lead a CPU to it */
		if (c == hwt_selected || chunk_linked_to(c))
			return -EBUSY;
		for_each_possible_cpu(cpu)
			if (hwt_chunk_busy(c, cpu))
				return -EBUSY;
	}
	WRITE_ONCE(c->flags, arg->flags);
	for_each_possible_cpu(cpu) {
		if (changed & HWT_CHUNK_MODE_MASK)
			hwt_ring_set_mode(&c->rings[cpu], arg->flags);
		WRITE_ONCE(c->rings[cpu].meta->flags, arg->flags);
	}
	return 0;
}

int hwt_chunk_get_flags(struct hwt_chunk_flags *arg)
{
	struct hwt_chunk *c;
	int ret;

	if (arg->reserved)
		return -EINVAL;
	ret = chunk_lookup(arg->id, &c);
	if (ret)
		return ret;
	arg->flags = chunk_flags(c);
	return 0;
}

/*
 * Select the chunk tracing starts in (or, while tracing, move every CPU to
 * it).  HWT_NO_CHUNK drops the selection while tracing is off, so that the
 * chunk can be given back with set_flags(FREE).
 */
int hwt_chunk_select(long id)
{
	struct hwt_chunk *c;
	int ret;

	lockdep_assert_held(&hwt_lock);
	if (id == HWT_NO_CHUNK) {
		if (hwt_enabled)
			return -EBUSY;
		hwt_selected = NULL;
		return 0;
	}
	ret = chunk_lookup(id, &c);
	if (ret)
		return ret;
	if (!(c->flags & HWT_CHUNK_FREE))
		return -EBUSY;
	WRITE_ONCE(c->flags, c->flags & ~HWT_CHUNK_FREE);
	hwt_selected = c;
	if (hwt_enabled) {
		cpus_read_lock();
		hwt_move_cpus(c);
		cpus_read_unlock();
	}
	return 0;
}

int hwt_chunk_link(const struct hwt_chunk_link *arg)
{
	struct hwt_chunk *from, *to = NULL;
	int ret;

	lockdep_assert_held(&hwt_lock);
	if (arg->reserved)
		return -EINVAL;
	ret = chunk_lookup(arg->from, &from);
	if (ret)
		return ret;
	if (arg->to != HWT_NO_CHUNK) {
		ret = chunk_lookup(arg->to, &to);
		if (ret)
			return ret;
		if (to == from)
			return -EINVAL;
		if (!(to->flags & HWT_CHUNK_FREE))
			return -EBUSY;
		WRITE_ONCE(to->flags, to->flags & ~HWT_CHUNK_FREE);
	}
	/* an old target stays in use: its data is the chain's */
	rcu_assign_pointer(from->link, to);
	return 0;
}

int hwt_chunk_first(unsigned long flags)
{
	int id;

	if (flags & ~(unsigned long)(HWT_CHUNK_USER_FLAGS | HWT_CHUNK_FULL |
				     HWT_CHUNK_BUSY))
		return -EINVAL;
	for (id = 0; id < HWT_MAX_CHUNKS; id++)
		if (hwt_chunks[id] && (chunk_flags(hwt_chunks[id]) & flags) == flags)
			return id;
	return -ENOENT;
}

static void chunk_stat(const struct hwt_chunk *c, int cpu,
		       struct hwt_chunk_stat *st)
{
	const struct hwt_ring *r = &c->rings[cpu];
	const struct hwt_chunk *link;

	lockdep_assert_held(&hwt_lock);
	link = rcu_dereference_protected(c->link, lockdep_is_held(&hwt_lock));
	memset(st, 0, sizeof(*st));
	st->id = c->id;
	st->cpu = cpu;
	st->flags = c->flags;
	if (hwt_chunk_busy(c, cpu))
		st->flags |= HWT_CHUNK_BUSY;
	if (chunk_full(c, cpu))
		st->flags |= HWT_CHUNK_FULL;
	st->link = link ? link->id : HWT_NO_CHUNK;
	st->normal_size = c->normal_size;
	st->emergency_size = c->emergency_size;
	st->fill = hwt_ring_fill(r);
	st->written = local_read(&r->written);
	st->lost = local_read(&r->lost);
	st->overwritten = hwt_ring_overwritten(r);
}

#define TABLE_BATCH	32

/*
 * One entry per (chunk, possible CPU), by chunk id then CPU.  Called without
 * hwt_lock: copying to user memory may fault, and a fault may need the
 * mmap_lock that mmap() holds while hwt_mmap() waits for hwt_lock.  So the
 * table is filled in batches under the lock and copied out after it; a
 * chunk created or deleted in between may be missed or seen.
 */
int hwt_chunk_table(struct hwt_chunk_table *arg)
{
	struct hwt_chunk_stat __user *out = u64_to_user_ptr(arg->entries);
	u32 ncpus = num_possible_cpus(), n = 0, done = 0, k;
	struct hwt_chunk_stat *batch;
	int id, cpu, ret = 0;

	if (arg->reserved)
		return -EINVAL;
	batch = kmalloc_array(TABLE_BATCH, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	do {
		k = 0;
		n = 0;
		mutex_lock(&hwt_lock);
		for (id = 0; id < HWT_MAX_CHUNKS; id++) {
			if (!hwt_chunks[id])
				continue;
			if (n + ncpus <= done || done >= arg->nr_entries) {
				n += ncpus;
				continue;
			}
			for_each_possible_cpu(cpu) {
				if (n >= done && n < arg->nr_entries && k < TABLE_BATCH)
					chunk_stat(hwt_chunks[id], cpu, &batch[k++]);
				n++;
			}
		}
		mutex_unlock(&hwt_lock);
		if (k && copy_to_user(&out[done], batch, k * sizeof(*batch))) {
			ret = -EFAULT;
			break;
		}
		done += k;
	} while (k == TABLE_BATCH);
	kfree(batch);
	arg->nr_entries = n;
	return ret;
}

int hwt_chunk_ring_info(struct hwt_ring_info *arg)
{
	const struct hwt_ring *r;
	struct hwt_chunk *c;
	int ret;

	ret = chunk_lookup(arg->chunk, &c);
	if (ret)
		return ret;
	if (arg->cpu >= nr_cpu_ids || !cpu_possible(arg->cpu) ||
	    arg->reserved[0] || arg->reserved[1])
		return -EINVAL;
	r = &c->rings[arg->cpu];
	arg->meta_offset = HWT_MMAP_OFFSET(c->id, arg->cpu, HWT_AREA_META);
	arg->meta_size = PAGE_SIZE;
	arg->data_offset = HWT_MMAP_OFFSET(c->id, arg->cpu, HWT_AREA_DATA);
	arg->data_size = r->data_size;
	arg->nr_slots = r->nr_slots;
	arg->normal_slots = r->normal_slots;
	return 0;
}

/* Module exit: tracing is off and no file is open, so nothing maps a ring. */
void hwt_chunk_free_all(void)
{
	int id;

	hwt_selected = NULL;
	for (id = 0; id < HWT_MAX_CHUNKS; id++) {
		if (hwt_chunks[id])
			chunk_free(hwt_chunks[id]);
		hwt_chunks[id] = NULL;
	}
}
