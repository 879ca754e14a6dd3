// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace clock: the cycle counter by default where it is invariant (one
 * rate in every state, on every CPU), else the monotonic clock.  The cycle
 * counter may also be chosen explicitly wherever its rate is known and the
 * kernel has not found it unstable (a VM's TSC, say), as ftrace's x86-tsc
 * clock may.  Chosen while tracing is off.
 */
#include <linux/lockdep.h>
#include <linux/jump_label.h>
#include <linux/time64.h>
#include "hwt.h"
#include "ring.h"

DEFINE_STATIC_KEY_TRUE(hwt_clock_is_cycles);

u32 hwt_clock_kind(void)
{
	return static_branch_likely(&hwt_clock_is_cycles) ? HWT_CLOCK_TSC :
							     HWT_CLOCK_MONO;
}

u64 hwt_clock_rate(void)
{
	return hwt_clock_kind() == HWT_CLOCK_TSC ? hwt_cycles_per_msec() :
						   NSEC_PER_MSEC;
}

int hwt_set_clock(unsigned long clock)
{
	int id, cpu;

	lockdep_assert_held(&hwt_lock);
	if (clock != HWT_CLOCK_TSC && clock != HWT_CLOCK_MONO)
		return -EINVAL;
	if (clock == HWT_CLOCK_TSC && !hwt_cycles_per_msec())
		return -EOPNOTSUPP;
	if (hwt_enabled)
		return -EBUSY;
	if (clock == HWT_CLOCK_TSC)
		static_branch_enable(&hwt_clock_is_cycles);
	else
		static_branch_disable(&hwt_clock_is_cycles);
	for (id = 0; id < HWT_MAX_CHUNKS; id++) {
		if (!hwt_chunks[id])
			continue;
		for_each_possible_cpu(cpu)
			hwt_ring_set_clock(&hwt_chunks[id]->rings[cpu]);
	}
	return 0;
}

/* Default clock: the cycle counter when it is invariant. */
int hwt_clock_init(void)
{
	if (!HWT_HAVE_CYCLES || !hwt_cycles_per_msec() || !hwt_cycles_invariant())
		static_branch_disable(&hwt_clock_is_cycles);
	return 0;
}
