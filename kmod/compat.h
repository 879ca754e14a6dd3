/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtrace: every kernel-version and architecture difference lives here, so
 * the rest of kmod/ is written against one API (5.15 LTS .. current 6.x).
 */
#ifndef _HWT_COMPAT_H
#define _HWT_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>
#elif defined(CONFIG_ARM64)
#include <linux/timex.h>
#include <asm/arch_timer.h>
#endif

/* vm_flags became read-only behind helpers in 6.3. */
static inline void hwt_vm_flags_set(struct vm_area_struct *vma, unsigned long set,
				    unsigned long clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * The cycle counter: rdtsc_ordered() on x86 (ordered against the reservation
 * that precedes it); get_cycles() on arm64, the generic timer's counter
 * (system-wide, so one clock for all CPUs; read through the kernel's errata
 * workarounds).  Other architectures have no counter rate we can trust:
 * they use the monotonic clock.
 */
#ifdef CONFIG_X86
#define HWT_HAVE_CYCLES	1
static __always_inline u64 hwt_cycles(void)
{
	return rdtsc_ordered();
}

/* Cycles per ms, or 0 when the kernel found the TSC unstable. */
static inline u64 hwt_cycles_per_msec(void)
{
	return check_tsc_unstable() ? 0 : tsc_khz;
}

/* One rate in every state and on every CPU: the default clock then. */
static inline bool hwt_cycles_invariant(void)
{
	return boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	       boot_cpu_has(X86_FEATURE_NONSTOP_TSC);
}
#elif defined(CONFIG_ARM64)
#define HWT_HAVE_CYCLES	1
static __always_inline u64 hwt_cycles(void)
{
	return get_cycles();
}

/*
 * Ticks per ms of the generic timer (CNTFRQ_EL0, as userspace reads it), or
 * 0 if firmware left it unset or it is no whole number of ticks per ms.
 */
static inline u64 hwt_cycles_per_msec(void)
{
	u32 rate = arch_timer_get_cntfrq();

	return !rate || rate % MSEC_PER_SEC ? 0 : rate / MSEC_PER_SEC;
}

/* The generic timer is system-wide and never stops. */
static inline bool hwt_cycles_invariant(void)
{
	return true;
}
#else
#define HWT_HAVE_CYCLES	0
static __always_inline u64 hwt_cycles(void)
{
	return 0;
}

static inline u64 hwt_cycles_per_msec(void)
{
	return 0;
}

static inline bool hwt_cycles_invariant(void)
{
	return false;
}
#endif

/*
 * Tracepoint prototypes.  A probe must match its tracepoint exactly (kCFI
 * checks it); Kbuild detects the variants from the kernel's headers, and
 * probes.c checks every probe against its tracepoint's type at build time.
 */

/* sched_switch gained prev_state in 5.18; before, read it from the task. */
#ifdef HWT_SWITCH_HAS_PREV_STATE
#define HWT_SWITCH_PROTO	void *data, bool preempt, struct task_struct *prev, \
				struct task_struct *next, unsigned int prev_state
#define hwt_switch_prev_state(prev)	(prev_state)
#else
#define HWT_SWITCH_PROTO	void *data, bool preempt, struct task_struct *prev, \
				struct task_struct *next
#define hwt_switch_prev_state(prev)	READ_ONCE((prev)->__state)
#endif

/* hrtimer_start gained was_armed in some stable series. */
#ifdef HWT_HRTIMER_START_HAS_WAS_ARMED
#define HWT_HRTIMER_START_PROTO	void *data, struct hrtimer *hrtimer, \
				enum hrtimer_mode mode, bool was_armed
#else
#define HWT_HRTIMER_START_PROTO	void *data, struct hrtimer *hrtimer, \
				enum hrtimer_mode mode
#endif

/* reserve_mem=SIZE:ALIGN:NAME and its lookup came in 6.11. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define HWT_HAVE_RESERVE_MEM	1
#endif

/* timer_start passes bucket_expiry instead of expires and flags in 6.12. */
#ifdef HWT_TIMER_START_HAS_BUCKET_EXPIRY
#define HWT_TIMER_START_PROTO	void *data, struct timer_list *timer, \
				unsigned long bucket_expiry
#else
#define HWT_TIMER_START_PROTO	void *data, struct timer_list *timer, \
				unsigned long expires, unsigned int flags
#endif

#endif /* _HWT_COMPAT_H */
