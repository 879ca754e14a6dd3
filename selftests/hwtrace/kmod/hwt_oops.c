// SPDX-License-Identifier: GPL-2.0
/*
 * hwt_oops: oops on a chosen CPU, for persist_test.sh (the persistent flight
 * recorder's die notifier).  Loading it with cpu=N starts a kthread bound to
 * CPU N that hits BUG(): the kernel oopses there and, with panic_on_oops=0,
 * kills the kthread and runs on.  The module cannot be unloaded; the test
 * reboots.  scripts/vm/check-log.sh accepts this one oops (its BUG() line
 * names this file) after "# HWT-VM: expected oops".
 */
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static unsigned int cpu;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "CPU to oops on");

static int hwt_oops_thread(void *unused)
{
	BUG();
	return 0;
}

static int __init hwt_oops_init(void)
{
	struct task_struct *t;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	t = kthread_create_on_cpu(hwt_oops_thread, NULL, cpu, "hwt_oops/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	return 0;
}
module_init(hwt_oops_init);

MODULE_DESCRIPTION("Oops on a chosen CPU (hwtrace persist_test.sh)");
MODULE_LICENSE("GPL");
