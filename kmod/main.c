// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace: a S.Ha.R.K.-style event tracer for Linux.
 *
 * Events (16-byte S.Ha.R.K. records) go into per-CPU rings of "chunks" that
 * userspace maps; see Documentation/hwtrace.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/build_bug.h>
#include <linux/mm.h>
#include <linux/stddef.h>
#include "hwt.h"

/* serialises every control operation (ioctl, mmap setup, unload) */
DEFINE_MUTEX(hwt_lock);
u64 hwt_used_memory;
u64 hwt_max_memory;

static unsigned int max_memory_mb = 256;
module_param(max_memory_mb, uint, 0444);
MODULE_PARM_DESC(max_memory_mb, "Cap on ring memory of all chunks, MiB (default 256; at most half the RAM)");

static char *clock = "auto";
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "Timestamp clock: auto, tsc or mono (default auto)");

static void __init hwt_abi_checks(void)
{
	BUILD_BUG_ON(sizeof(struct hwt_event) != HWT_EVENT_SIZE);
	BUILD_BUG_ON(offsetof(struct hwt_event, code) != 0);
	BUILD_BUG_ON(offsetof(struct hwt_event, par1) != 2);
	BUILD_BUG_ON(offsetof(struct hwt_event, tsc_hi) != 4);
	BUILD_BUG_ON(offsetof(struct hwt_event, tsc_lo) != 8);
	BUILD_BUG_ON(offsetof(struct hwt_event, par2) != 12);
	BUILD_BUG_ON(sizeof(struct hwt_ring_meta) > PAGE_SIZE);
	BUILD_BUG_ON(offsetof(struct hwt_ring_meta, data_head) % 64);
	BUILD_BUG_ON(offsetof(struct hwt_ring_meta, data_tail) % 64);
	BUILD_BUG_ON(HWT_FAM_TIMER >= HWT_NR_FAMILIES);
}

static int __init hwt_init(void)
{
	int ret;

	hwt_abi_checks();
	/* rings are never swapped: a cap above half the RAM would invite the OOM killer */
	hwt_max_memory = min((u64)max_memory_mb << 20,
			     ((u64)totalram_pages() << PAGE_SHIFT) / 2);
	hwt_clock_init();
	ret = 0;
	mutex_lock(&hwt_lock);	/* nobody else yet, but hwt_set_clock() asserts it */
	if (!strcmp(clock, "mono"))
		ret = hwt_set_clock(HWT_CLOCK_MONO);
	else if (!strcmp(clock, "tsc"))
		ret = hwt_set_clock(HWT_CLOCK_TSC);
	else if (strcmp(clock, "auto"))
		ret = -EINVAL;
	mutex_unlock(&hwt_lock);
	if (ret) {
		pr_err("clock=%s is not usable here (%d)\n", clock, ret);
		return ret;
	}
	hwt_probes_init();
	hwt_wakeup_init();
	ret = hwt_names_init();
	if (ret)
		return ret;
	ret = hwt_control_init();
	if (ret)
		goto err_names;
	ret = hwt_persist_init();
	if (ret)
		goto err_control;
	ret = hwt_dev_init();
	if (ret)
		goto err_persist;
	pr_info("ready: %u CPUs, clock %s, %u MiB cap\n", nr_cpu_ids,
		hwt_clock_kind() == HWT_CLOCK_TSC ? "tsc" : "mono",
		(unsigned int)(hwt_max_memory >> 20));
	return 0;

err_persist:
	mutex_lock(&hwt_lock);
	hwt_persist_exit();
	mutex_unlock(&hwt_lock);
err_control:
	hwt_control_exit();
err_names:
	hwt_names_exit();
	return ret;
}

static void __exit hwt_exit(void)
{
	/* no file is open (the module is pinned while one is): no mapping */
	hwt_dev_exit();
	mutex_lock(&hwt_lock);
	hwt_disable();
	hwt_persist_exit();
	hwt_chunk_free_all();
	mutex_unlock(&hwt_lock);
	hwt_control_exit();
	hwt_names_exit();
}

module_init(hwt_init);
module_exit(hwt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("S.Ha.R.K.-style event tracer with per-CPU mmap rings");
MODULE_AUTHOR("hwtrace developers");
MODULE_VERSION(HWT_VERSION);
