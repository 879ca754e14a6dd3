// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace consumer wakeups: the write path queues an irq_work when a ring
 * reaches its watermark, which wakes poll(); readiness itself is lockless.
 */
#include <linux/irq_work.h>
#include <linux/rcupdate.h>
#include <linux/wait.h>
#include "hwt.h"

DECLARE_WAIT_QUEUE_HEAD(hwt_wait);

static void wake_consumers(struct irq_work *work)
{
	wake_up_all(&hwt_wait);
}

static struct irq_work hwt_wakeup_work = IRQ_WORK_INIT(wake_consumers);

/* Module exit: no wakeup may still be queued (it would run module code). */
void hwt_wakeup_exit(void)
{
	irq_work_sync(&hwt_wakeup_work);
}

/* Any context, NMI included: the wakeup itself runs from the irq_work. */
void hwt_wakeup(void)
{
	irq_work_queue(&hwt_wakeup_work);
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
		for_each_possible_cpu(cpu)
			if ((only_cpu < 0 || cpu == only_cpu) &&
			    hwt_ring_fill(&c->rings[cpu]) >= c->rings[cpu].watermark)
				ready = true;
	}
	rcu_read_unlock();
	return ready;
}
