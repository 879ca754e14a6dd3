// SPDX-License-Identifier: GPL-2.0
/*
 * hwt_prio_miss: priority changes that hwtrace's kretprobes must miss, for
 * the kselftest probes_test.  A kprobe on this module's own function calls
 * set_user_nice() from its handler, so hwtrace's kretprobe on
 * set_user_nice() fires inside another kprobe's handler: kprobes refuse
 * that reentry and count it in nmissed, every time.  Loading the module
 * makes `calls` such calls and returns; it stays loaded until removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>

static unsigned int calls = 10;
module_param(calls, uint, 0444);
MODULE_PARM_DESC(calls, "set_user_nice() calls made from a kprobe handler");

static noinline void hwt_prio_miss_target(void)
{
	asm volatile("" ::: "memory");	/* a call gcc must keep */
}

/* the caller's own nice value again: nothing changes but the call */
static int renice_current(struct kprobe *p, struct pt_regs *regs)
{
	set_user_nice(current, task_nice(current));
	return 0;
}

static struct kprobe kp = {
	.addr = (kprobe_opcode_t *)hwt_prio_miss_target,
	.pre_handler = renice_current,
};

static int __init hwt_prio_miss_init(void)
{
	unsigned int i;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	for (i = 0; i < calls; i++)
		hwt_prio_miss_target();
	pr_info("%u calls, %lu missed by our own kprobe\n", calls, kp.nmissed);
	unregister_kprobe(&kp);
	return 0;
}

static void __exit hwt_prio_miss_exit(void)
{
}

module_init(hwt_prio_miss_init);
module_exit(hwt_prio_miss_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtrace kselftest helper: priority changes its kretprobes miss");
