// SPDX-License-Identifier: GPL-2.0
/*
 * hwt_nmi_test: hwtrace writers interrupted by NMIs, for the kselftest
 * nmi_test.  Loading it runs the test and returns when it is done:
 *
 *   - one kthread per online CPU, bound to it, writes `events` records
 *     (USER_EVENT_0, par1 = CPU, par2 = 0, 1, 2, ...) with hwtrace_log(),
 *     and more until `msecs` have passed;
 *   - meanwhile a sender kthread sends NMIs to those CPUs in turn (one
 *     outstanding per CPU), and an NMI handler writes USER_EVENT_1 (par1 =
 *     CPU, par2 = its own per-CPU sequence) from NMI context, so NMI writers
 *     nest into task-context writers mid-reservation.
 *
 * The kselftest then reads the rings: both sequences must be whole and in
 * order, the records in time order.  What happened is in the read-only
 * parameters: nmis (NMI records attempted), landed (NMIs that arrived while
 * a writer on that CPU was inside hwtrace_log()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <linux/hwtrace.h>
#include "hwtrace_log.h"

static unsigned int events = 100000;
module_param(events, uint, 0444);
MODULE_PARM_DESC(events, "records each CPU's writer thread writes");

static unsigned int msecs;
module_param(msecs, uint, 0444);
MODULE_PARM_DESC(msecs, "and go on writing for at least this long");

static unsigned int nmis;
module_param(nmis, uint, 0444);
MODULE_PARM_DESC(nmis, "NMI records attempted (output)");

static unsigned int landed;
module_param(landed, uint, 0444);
MODULE_PARM_DESC(landed, "NMIs that interrupted a writer inside hwtrace_log() (output)");

static DEFINE_PER_CPU(atomic_t, nmi_pending);
static DEFINE_PER_CPU(unsigned int, nmi_seq);
static DEFINE_PER_CPU(int, in_write);
static atomic_t nmi_total = ATOMIC_INIT(0);
static atomic_t nmi_landed = ATOMIC_INIT(0);
static atomic_t writers_left;

/* Ours only when we sent it: other NMIs (watchdog, backtraces) pass on. */
static int hwt_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	int cpu = smp_processor_id();

	if (!atomic_xchg(this_cpu_ptr(&nmi_pending), 0))
		return NMI_DONE;
	if (READ_ONCE(*this_cpu_ptr(&in_write)))
		atomic_inc(&nmi_landed);
	atomic_inc(&nmi_total);
	hwtrace_log(HWT_EV_USER_EVENT_1, cpu, this_cpu_inc_return(nmi_seq) - 1);
	return NMI_HANDLED;
}

static int writer(void *arg)
{
	unsigned long end = jiffies + msecs_to_jiffies(msecs);
	unsigned int i, cpu = smp_processor_id();

	for (i = 0; i < events || time_before(jiffies, end); i++) {
		WRITE_ONCE(*this_cpu_ptr(&in_write), 1);
		barrier();
		hwtrace_log(HWT_EV_USER_EVENT_0, cpu, i);
		barrier();
		WRITE_ONCE(*this_cpu_ptr(&in_write), 0);
		if (!(i & 1023))
			cond_resched();
	}
	atomic_dec(&writers_left);
	complete(arg);
	return 0;
}

/* One NMI outstanding per CPU, round robin, until the writers are done. */
static int sender(void *arg)
{
	unsigned int cpu;
	int wait;

	while (atomic_read(&writers_left) > 0) {
		for_each_online_cpu(cpu) {
			atomic_t *p = per_cpu_ptr(&nmi_pending, cpu);

			if (atomic_cmpxchg(p, 0, 1))
				continue;
			apic->send_IPI(cpu, NMI_VECTOR);
			/* delivered within microseconds; never spin forever */
			for (wait = 0; wait < 1000 && atomic_read(p); wait++)
				udelay(1);
		}
		cond_resched();
	}
	complete(arg);
	return 0;
}

static int __init hwt_nmi_test_init(void)
{
	struct completion *done;
	struct task_struct *t;
	unsigned int cpu, n = 0, i;
	int ret;

	done = kcalloc(nr_cpu_ids + 1, sizeof(*done), GFP_KERNEL);
	if (!done)
		return -ENOMEM;
	ret = register_nmi_handler(NMI_LOCAL, hwt_nmi_handler, 0, "hwt_nmi_test");
	if (ret)
		goto out;

	cpus_read_lock();
	atomic_set(&writers_left, num_online_cpus());
	for_each_online_cpu(cpu) {
		init_completion(&done[n]);
		t = kthread_create_on_cpu(writer, &done[n], cpu, "hwt_nmi_w/%u");
		if (IS_ERR(t)) {
			atomic_dec(&writers_left);
			continue;
		}
		wake_up_process(t);
		n++;
	}
	init_completion(&done[n]);
	t = kthread_run(sender, &done[n], "hwt_nmi_send");
	if (IS_ERR(t)) {
		atomic_set(&writers_left, 0);
		ret = PTR_ERR(t);
	} else {
		n++;
	}
	for (i = 0; i < n; i++)
		wait_for_completion(&done[i]);
	cpus_read_unlock();

	/* a last NMI may still be on its way to a CPU */
	for_each_online_cpu(cpu) {
		for (i = 0; i < 1000 && atomic_read(per_cpu_ptr(&nmi_pending, cpu)); i++)
			usleep_range(10, 20);
		atomic_set(per_cpu_ptr(&nmi_pending, cpu), 0);
	}
	unregister_nmi_handler(NMI_LOCAL, "hwt_nmi_test");
	nmis = atomic_read(&nmi_total);
	landed = atomic_read(&nmi_landed);
	pr_info("%u NMI records, %u NMIs inside a write, %u events per CPU\n",
		nmis, landed, events);
out:
	kfree(done);
	return ret;
}

static void __exit hwt_nmi_test_exit(void)
{
}

module_init(hwt_nmi_test_init);
module_exit(hwt_nmi_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtrace kselftest helper: writers interrupted by NMIs");
