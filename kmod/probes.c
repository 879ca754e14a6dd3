// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace probes: kernel tracepoints -> hwt_record().
 *
 * Tracepoints are found by name (most are not exported to modules) and a
 * family's probes are attached only while tracing is enabled and the family
 * is not filtered, so a filtered family costs nothing.  Detaching waits for
 * running probes (tracepoint_synchronize_unregister) before returning.
 *
 * Every mapping from a tracepoint to a record is here; Documentation/
 * hwtrace.rst tabulates them.  No kernel pointer is ever recorded: timers and
 * locks are identified by a keyed hash of their address.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lockdep.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kprobes.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/siphash.h>
#include <linux/timer.h>
#include <linux/tracepoint.h>
#include <trace/events/irq.h>
#include <trace/events/lock.h>
#include <trace/events/power.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/task.h>
#include <trace/events/timer.h>
#ifdef CONFIG_X86
#include <asm/trace/irq_vectors.h>
#endif
#include "hwt.h"
#include "record.h"
#include "compat.h"

/* cpu_idle reports the end of idle with this state */
#define HWT_PWR_EVENT_EXIT	((unsigned int)-1)

static siphash_key_t ptr_key;

/* A stable 32-bit name for a kernel object that reveals nothing of its address. */
static __always_inline u32 obj_id(const void *p)
{
	return (u32)siphash_1u64((u64)(unsigned long)p, &ptr_key);
}

/* An event naming an object: hashed only when its family is logged. */
static __always_inline void record_obj(u16 code, u16 par1, const void *obj)
{
	if (hwt_family_on(code))
		hwt_write(code, par1, obj_id(obj));
}

/* The state a task is switched out in: the part a timing model needs. */
static __always_inline u32 task_state(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return HWT_STATE_RUNNABLE;
	if (state & (TASK_DEAD | EXIT_DEAD | EXIT_ZOMBIE))
		return HWT_STATE_DEAD;
	if (state & TASK_INTERRUPTIBLE)
		return HWT_STATE_SLEEPING;
	/* kworkers, rcu threads: not an I/O wait (ftrace's "I") */
	if ((state & TASK_IDLE) == TASK_IDLE)
		return HWT_STATE_IDLE;
	if (state & TASK_UNINTERRUPTIBLE)
		return HWT_STATE_BLOCKED;
	if (state & (__TASK_STOPPED | __TASK_TRACED))
		return HWT_STATE_STOPPED;
	return HWT_STATE_OTHER;
}

/* task */

static void probe_sched_switch(HWT_SWITCH_PROTO)
{
	u32 state = task_state(preempt, hwt_switch_prev_state(prev));

	hwt_record(HWT_EV_TASK_SCHEDULE, HWT_SWITCH_PAR1(prev->pid, state),
		   HWT_SWITCH_PAR2(prev->pid, next->pid));
}

static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	hwt_record(HWT_EV_TASK_ACTIVATE, task_cpu(p), p->pid);
}

static void probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	hwt_record(HWT_EV_TASK_ACTIVATE, task_cpu(p) | HWT_ACTIVATE_NEW, p->pid);
}

static void probe_sched_process_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	hwt_record(HWT_EV_TASK_CREATE, 0, child->pid);
}

static void probe_sched_process_exit(void *data, struct task_struct *p)
{
	hwt_record(HWT_EV_TASK_END, 0, p->pid);
}

static void probe_sched_process_exec(void *data, struct task_struct *p,
				     pid_t old_pid, struct linux_binprm *bprm)
{
	hwt_record(HWT_EV_TASK_EXEC, 0, p->pid);
}

static void probe_sched_migrate_task(void *data, struct task_struct *p,
				     int dest_cpu)
{
	hwt_record(HWT_EV_TASK_MIGRATE, dest_cpu, p->pid);
}

/* priority */

static void probe_sched_pi_setprio(void *data, struct task_struct *tsk,
				   struct task_struct *pi_task)
{
	int prio = pi_task ? min(tsk->normal_prio, pi_task->prio) : tsk->normal_prio;

	hwt_record(HWT_EV_INHERITANCE, prio, tsk->pid);
}

/*
 * No tracepoint reports a task's new priority after setpriority(),
 * sched_setscheduler() or sched_setattr(): kretprobes on the functions they
 * all end in record the task's normal priority once the change is made.
 * The caller holds a reference to the task throughout.
 */
struct prio_call {
	struct task_struct *p;
};

static int prio_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct prio_call *call = (struct prio_call *)ri->data;

	call->p = (struct task_struct *)regs_get_kernel_argument(regs, 0);
	return 0;
}

static int prio_set(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct prio_call *call = (struct prio_call *)ri->data;

	hwt_record(HWT_EV_SET_PRIORITY, READ_ONCE(call->p->normal_prio),
		   call->p->pid);
	return 0;
}

/* __sched_setscheduler() returns an error code: record only successes */
static int prio_setscheduler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs))
		return 0;
	return prio_set(ri, regs);
}

#define PRIO_KRETPROBE(sym, fn) {					\
	.kp.symbol_name = #sym,						\
	.entry_handler = prio_entry,					\
	.handler = fn,							\
	.data_size = sizeof(struct prio_call),				\
}

static struct kretprobe krp_set_user_nice = PRIO_KRETPROBE(set_user_nice, prio_set);
static struct kretprobe krp_setscheduler =
	PRIO_KRETPROBE(__sched_setscheduler, prio_setscheduler);

/* what registrations before the current ones missed; under hwt_lock */
static u64 prio_missed_before;

static u64 krp_missed(const struct kretprobe *krp)
{
	return (u64)READ_ONCE(krp->nmissed) + READ_ONCE(krp->kp.nmissed);
}

/*
 * The set_priority events the kretprobes did not record.  A kretprobe
 * misses a call when all its instances are in use (maxactive) or when it
 * would recurse; the priority family then lost that event, on a CPU nobody
 * knows.  Counts both kretprobes' misses since the module was loaded: a
 * registration starts from zero, so what each one missed is kept when it
 * ends, and the count never goes back.
 */
u64 hwt_prio_missed(void)
{
	return READ_ONCE(prio_missed_before) + krp_missed(&krp_set_user_nice) +
	       krp_missed(&krp_setscheduler);
}

/* interrupt */

static void probe_irq_handler_entry(void *data, int irq, struct irqaction *action)
{
	hwt_name_irq(irq, action->name);
	hwt_record(HWT_EV_INTERRUPT_START, irq, 0);
}

static void probe_irq_handler_exit(void *data, int irq, struct irqaction *action,
				   int ret)
{
	hwt_record(HWT_EV_INTERRUPT_END, irq, ret);
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	hwt_record(HWT_EV_SOFTIRQ_START, vec, 0);
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	hwt_record(HWT_EV_SOFTIRQ_END, vec, 0);
}

static void probe_softirq_raise(void *data, unsigned int vec)
{
	hwt_record(HWT_EV_SOFTIRQ_RAISE, vec, 0);
}

#ifdef CONFIG_X86	/* the x86 vectors' own tracepoints */
static void probe_vector_entry(void *data, int vector)
{
	hwt_record(HWT_EV_VECTOR_START, vector, 0);
}

static void probe_vector_exit(void *data, int vector)
{
	hwt_record(HWT_EV_VECTOR_END, vector, 0);
}
#endif

/* timer: par1 0 = timer wheel, 1 = hrtimer */

static void probe_timer_start(HWT_TIMER_START_PROTO)
{
	record_obj(HWT_EV_TIMER_POST, 0, timer);
}

static void probe_timer_cancel(void *data, struct timer_list *timer)
{
	record_obj(HWT_EV_TIMER_DELETE, 0, timer);
}

static void probe_timer_expire_entry(void *data, struct timer_list *timer,
				     unsigned long baseclk)
{
	record_obj(HWT_EV_TIMER_WAKEUP_START, 0, timer);
}

static void probe_timer_expire_exit(void *data, struct timer_list *timer)
{
	record_obj(HWT_EV_TIMER_WAKEUP_END, 0, timer);
}

static void probe_hrtimer_start(HWT_HRTIMER_START_PROTO)
{
	record_obj(HWT_EV_TIMER_POST, 1, hrtimer);
}

static void probe_hrtimer_cancel(void *data, struct hrtimer *hrtimer)
{
	record_obj(HWT_EV_TIMER_DELETE, 1, hrtimer);
}

static void probe_hrtimer_expire_entry(void *data, struct hrtimer *hrtimer,
				       ktime_t *now)
{
	record_obj(HWT_EV_TIMER_WAKEUP_START, 1, hrtimer);
}

static void probe_hrtimer_expire_exit(void *data, struct hrtimer *hrtimer)
{
	record_obj(HWT_EV_TIMER_WAKEUP_END, 1, hrtimer);
}

/* mutex: lock contention of any sleeping or spinning lock */

#ifdef HWT_HAVE_CONTENTION
static void probe_contention_begin(void *data, void *lock, unsigned int flags)
{
	record_obj(HWT_EV_MUTEX_WAIT, flags, lock);
}

static void probe_contention_end(void *data, void *lock, int ret)
{
	record_obj(HWT_EV_MUTEX_LOCK, ret, lock);
}
#endif

/* signal */

static void probe_signal_generate(void *data, int sig, struct kernel_siginfo *info,
				  struct task_struct *task, int group, int result)
{
	hwt_record(HWT_EV_SIGNAL, sig, task->pid);
}

static void probe_signal_deliver(void *data, int sig, struct kernel_siginfo *info,
				 struct k_sigaction *ka)
{
	hwt_record(HWT_EV_SIGNAL_DELIVER, sig, current->pid);
}

/* CPU */

static void probe_cpu_idle(void *data, unsigned int state, unsigned int cpu)
{
	if (state == HWT_PWR_EVENT_EXIT)
		hwt_record(HWT_EV_IDLE_EXIT, 0, 0);
	else
		hwt_record(HWT_EV_IDLE_ENTER, state, 0);
}

static void probe_cpu_frequency(void *data, unsigned int khz, unsigned int cpu)
{
	hwt_record(HWT_EV_FREQUENCY, cpu, khz);
}

/* names: not events, attached whenever tracing is on */

static void probe_name_fork(void *data, struct task_struct *parent,
			    struct task_struct *child)
{
	hwt_name_task(child, NULL);
}

static void probe_name_exec(void *data, struct task_struct *p, pid_t old_pid,
			    struct linux_binprm *bprm)
{
	hwt_name_task(p, NULL);
}

static void probe_name_rename(void *data, struct task_struct *task,
			      const char *comm)
{
	hwt_name_task(task, comm);
}

#define HWT_NAMES HWT_NR_FAMILIES

struct hwt_probe {
	const char *tracepoint;		/* or kernel function, for a kretprobe */
	void *func;
	unsigned int family;		/* or HWT_NAMES */
	struct kretprobe *krp;		/* instead of a tracepoint */
	struct tracepoint *tp;		/* NULL: not on this kernel */
	bool available;
	bool attached;
};

/*
 * A probe is called through a pointer of its tracepoint's type, and kCFI
 * traps on any other: each entry is a build error unless probe_<fn> has
 * exactly the type register_trace_<tp>() takes (no cost at run time).
 */
#define PROBE_TYPE_OK(tp, fn) \
	__same_type(register_trace_##tp, int (typeof(probe_##fn) *, void *))
#define PROBE(tp, fn, fam) \
	{ #tp, probe_##fn, (fam) + BUILD_BUG_ON_ZERO(!PROBE_TYPE_OK(tp, fn)) }
#define KRETPROBE(sym, krp, fam) { #sym, NULL, fam, &(krp) }

static struct hwt_probe probes[] = {
	PROBE(sched_switch, sched_switch, HWT_FAM_TASK),
	PROBE(sched_wakeup, sched_wakeup, HWT_FAM_TASK),
	PROBE(sched_wakeup_new, sched_wakeup_new, HWT_FAM_TASK),
	PROBE(sched_process_fork, sched_process_fork, HWT_FAM_TASK),
	PROBE(sched_process_exit, sched_process_exit, HWT_FAM_TASK),
	PROBE(sched_process_exec, sched_process_exec, HWT_FAM_TASK),
	PROBE(sched_migrate_task, sched_migrate_task, HWT_FAM_TASK),
	PROBE(sched_pi_setprio, sched_pi_setprio, HWT_FAM_PRIORITY),
	KRETPROBE(set_user_nice, krp_set_user_nice, HWT_FAM_PRIORITY),
	KRETPROBE(__sched_setscheduler, krp_setscheduler, HWT_FAM_PRIORITY),
	PROBE(irq_handler_entry, irq_handler_entry, HWT_FAM_INTERRUPT),
	PROBE(irq_handler_exit, irq_handler_exit, HWT_FAM_INTERRUPT),
	PROBE(softirq_entry, softirq_entry, HWT_FAM_INTERRUPT),
	PROBE(softirq_exit, softirq_exit, HWT_FAM_INTERRUPT),
	PROBE(softirq_raise, softirq_raise, HWT_FAM_INTERRUPT),
#ifdef CONFIG_X86
	PROBE(local_timer_entry, vector_entry, HWT_FAM_INTERRUPT),
	PROBE(local_timer_exit, vector_exit, HWT_FAM_INTERRUPT),
	PROBE(reschedule_entry, vector_entry, HWT_FAM_INTERRUPT),
	PROBE(reschedule_exit, vector_exit, HWT_FAM_INTERRUPT),
	PROBE(call_function_entry, vector_entry, HWT_FAM_INTERRUPT),
	PROBE(call_function_exit, vector_exit, HWT_FAM_INTERRUPT),
	PROBE(call_function_single_entry, vector_entry, HWT_FAM_INTERRUPT),
	PROBE(call_function_single_exit, vector_exit, HWT_FAM_INTERRUPT),
	PROBE(irq_work_entry, vector_entry, HWT_FAM_INTERRUPT),
	PROBE(irq_work_exit, vector_exit, HWT_FAM_INTERRUPT),
#endif
	PROBE(timer_start, timer_start, HWT_FAM_TIMER),
	PROBE(timer_cancel, timer_cancel, HWT_FAM_TIMER),
	PROBE(timer_expire_entry, timer_expire_entry, HWT_FAM_TIMER),
	PROBE(timer_expire_exit, timer_expire_exit, HWT_FAM_TIMER),
	PROBE(hrtimer_start, hrtimer_start, HWT_FAM_TIMER),
	PROBE(hrtimer_cancel, hrtimer_cancel, HWT_FAM_TIMER),
	PROBE(hrtimer_expire_entry, hrtimer_expire_entry, HWT_FAM_TIMER),
	PROBE(hrtimer_expire_exit, hrtimer_expire_exit, HWT_FAM_TIMER),
#ifdef HWT_HAVE_CONTENTION	/* 5.19 */
	PROBE(contention_begin, contention_begin, HWT_FAM_MUTEX),
	PROBE(contention_end, contention_end, HWT_FAM_MUTEX),
#endif
	PROBE(signal_generate, signal_generate, HWT_FAM_SIGNAL),
	PROBE(signal_deliver, signal_deliver, HWT_FAM_SIGNAL),
	PROBE(cpu_idle, cpu_idle, HWT_FAM_CPU),
	PROBE(cpu_frequency, cpu_frequency, HWT_FAM_CPU),
	PROBE(sched_process_fork, name_fork, HWT_NAMES),
	PROBE(sched_process_exec, name_exec, HWT_NAMES),
	PROBE(task_rename, name_rename, HWT_NAMES),
};

static void find_tracepoint(struct tracepoint *tp, void *unused)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		if (!probes[i].krp && !strcmp(tp->name, probes[i].tracepoint))
			probes[i].tp = tp;
}

unsigned int hwt_nr_probes(void)
{
	return ARRAY_SIZE(probes);
}

int hwt_probe_info(struct hwt_probe_info *info)
{
	const struct hwt_probe *p;

	if (info->index >= ARRAY_SIZE(probes) || info->reserved)
		return -EINVAL;
	p = &probes[info->index];
	info->family = p->family;
	info->flags = (p->available ? HWT_PROBE_AVAILABLE : 0) |
		      (p->attached ? HWT_PROBE_ATTACHED : 0);
	strscpy_pad(info->tracepoint, p->tracepoint, sizeof(info->tracepoint));
	return 0;
}

static int attach(struct hwt_probe *p)
{
	if (!p->krp)
		return tracepoint_probe_register(p->tp, p->func, NULL);
	/* a kretprobe is registered afresh each time: by name, not address */
	p->krp->kp.addr = NULL;
	p->krp->kp.flags = 0;
	p->krp->nmissed = 0;
	p->krp->kp.nmissed = 0;
	return register_kretprobe(p->krp);
}

/* unregister_kretprobe() itself waits for running handlers */
static int detach(struct hwt_probe *p)
{
	if (!p->krp)
		return tracepoint_probe_unregister(p->tp, p->func, NULL);
	unregister_kretprobe(p->krp);
	WRITE_ONCE(prio_missed_before, prio_missed_before + krp_missed(p->krp));
	p->krp->nmissed = 0;
	p->krp->kp.nmissed = 0;
	return 0;
}

static bool wanted(const struct hwt_probe *p)
{
	if (!hwt_enabled || !p->available)
		return false;
	return p->family == HWT_NAMES || !(hwt_filter_mask & BIT(p->family));
}

/*
 * Attach what tracing and the filters want, detach the rest.  Called under
 * hwt_lock after any change of either.  On return no detached probe runs.
 */
int hwt_probes_sync(void)
{
	bool detached = false;
	unsigned int i;
	int ret, err = 0;

	lockdep_assert_held(&hwt_lock);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		struct hwt_probe *p = &probes[i];

		if (wanted(p) == p->attached)
			continue;
		if (p->attached) {
			ret = detach(p);
			detached = true;
		} else {
			ret = attach(p);
		}
		if (ret) {
			pr_warn_once("%s %s: %d\n", p->attached ? "detach" : "attach",
				     p->tracepoint, ret);
			err = err ?: ret;
			continue;
		}
		p->attached = !p->attached;
	}
	if (detached)
		tracepoint_synchronize_unregister();
	return err;
}

int hwt_probes_init(void)
{
	unsigned int i, missing = 0;

	get_random_bytes(&ptr_key, sizeof(ptr_key));
	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		struct hwt_probe *p = &probes[i];

		/* a function may be inlined or not probeable on this build */
		p->available = p->krp ? !attach(p) && !detach(p) : !!p->tp;
		if (!p->available) {
			pr_info("%s %s not on this kernel\n",
				p->krp ? "function" : "tracepoint", p->tracepoint);
			missing++;
		}
	}
	return missing;
}
