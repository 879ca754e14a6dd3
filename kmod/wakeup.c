// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace consumer wakeups: the write path queues an irq_work when a ring
 * reaches its watermark, which wakes poll(); readiness itself is lockless.
 *
 * A poller of every CPU's rings sleeps on hwt_wait; a poller scoped to one
 * CPU (HWT_IOC_POLL_CPU: a drain thread per CPU) sleeps on that CPU's own
 * queue, so that one CPU's watermark wakes its drain thread and the
 * pollers of every CPU, not the drain threads of all the other CPUs.
 */
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/wait.h>
#include "hwt.h"

static DECLARE_WAIT_QUEUE_HEAD(hwt_wait);

struct hwt_cpu_wakeup {
	struct irq_work work;
	struct wait_queue_head wait;	/* pollers of this CPU's rings */
};

static DEFINE_PER_CPU(struct hwt_cpu_wakeup, hwt_cpu_wakeup);

static void wake_consumers(struct irq_work *work)
{
	wake_up_all(&hwt_wait);
}

static struct irq_work hwt_wakeup_work = IRQ_WORK_INIT(wake_consumers);

static void wake_cpu_consumers(struct irq_work *work)
{
	struct hwt_cpu_wakeup *w = container_of(work, struct hwt_cpu_wakeup, work);

	wake_up_all(&w->wait);
	wake_up_all(&hwt_wait);
}

void hwt_wakeup_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct hwt_cpu_wakeup *w = per_cpu_ptr(&hwt_cpu_wakeup, cpu);

		init_irq_work(&w->work, wake_cpu_consumers);
		init_waitqueue_head(&w->wait);
	}
}

/* Module exit: no wakeup may still be queued (it would run module code). */
void hwt_wakeup_exit(void)
{
	int cpu;

	irq_work_sync(&hwt_wakeup_work);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&hwt_cpu_wakeup, cpu)->work);
}

/*
 * Any context, NMI included: the wakeup itself runs from the irq_work.
 * For what only a poller of every CPU reads (the name queue).
 */
void hwt_wakeup(void)
{
	irq_work_queue(&hwt_wakeup_work);
}

/*
 * This CPU's ring reached its watermark: wake its pollers and those of
 * every CPU.  Any context, preemption off; a writer writes only its own
 * CPU's ring, so the ring is this CPU's.
 */
void hwt_wakeup_ring(void)
{
	irq_work_queue(&this_cpu_ptr(&hwt_cpu_wakeup)->work);
}

/* Process context (tracing off, say): every poller, scoped or not. */
void hwt_wakeup_all(void)
{
	int cpu;

	wake_up_all(&hwt_wait);
	for_each_possible_cpu(cpu)
		wake_up_all(&per_cpu_ptr(&hwt_cpu_wakeup, cpu)->wait);
}

/* The queue a poller of only_cpu's rings (-1: every CPU's) sleeps on. */
struct wait_queue_head *hwt_poll_queue(int only_cpu)
{
	return only_cpu < 0 ? &hwt_wait : &per_cpu_ptr(&hwt_cpu_wakeup, only_cpu)->wait;
}

static bool ring_ready(struct hwt_chunk *c, int cpu)
{
	return hwt_ring_fill(&c->rings[cpu]) >= c->rings[cpu].watermark;
}

/*
 * poll() readiness: a ring at its watermark (a ring of only_cpu, unless it
 * is -1), names piling up (for a poller of every CPU: the one that reads
 * them), or tracing off (the consumer drains what is left and stops).
 * Lockless, so that a consumer never waits behind hwt_lock (held across
 * big allocations and grace periods) while its rings fill: a chunk is
 * published with release and freed only after a grace period
 * (hwt_chunk_delete).
 */
bool hwt_ready(int only_cpu)
{
	bool ready = false;
	int id, cpu;

	if (!READ_ONCE(hwt_enabled) || (only_cpu < 0 && hwt_names_ready()))
		return true;
	rcu_read_lock();
	for (id = 0; id < HWT_MAX_CHUNKS && !ready; id++) {
		struct hwt_chunk *c = READ_ONCE(hwt_chunks[id]);

		if (!c || HWT_CHUNK_MODE(READ_ONCE(c->flags)) == HWT_CHUNK_CYC)
			continue;
		if (only_cpu >= 0) {
			ready = ring_ready(c, only_cpu);
			continue;
		}
		for_each_possible_cpu(cpu) {
			if (ring_ready(c, cpu)) {
				ready = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return ready;
}
