// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace's BPF backend: the module's probes (kmod/probes.c) as BPF
 * programs, writing the same struct hwt_event records with the same codes
 * and parameters into per-CPU rings that follow the module's ring protocol
 * (struct hwt_ring_meta), so libhwt drains both the same way.
 *
 * Maps (sizes set by the loader before load):
 *   hwt_meta   [cpu]                 struct hwt_ring_meta   mmapable
 *   hwt_ring   [cpu * nr_slots + i]  struct hwt_event       mmapable
 *   hwt_cpus   [cpu]                 struct hwt_bpf_cpu     mmapable
 *   hwt_names  ring buffer of struct hwt_name (tasks and IRQs)
 *
 * Every event program tests its family against hwt_filter_mask first.
 * Events are written only between the CPU's start and stop records, which
 * hwt_cpu_ctl writes on that CPU (run there by BPF_PROG_TEST_RUN).
 * Timestamps are bpf_ktime_get_ns(): CLOCK_MONOTONIC, the module's "mono".
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* <linux/hwtrace.h> wants <linux/types.h>, which vmlinux.h stands in for. */
#define _LINUX_TYPES_H
#define _LINUX_IOCTL_H
#include <linux/hwtrace.h>

#define HWT_BPF_NOW()		bpf_ktime_get_ns()
#define HWT_BPF_SLOT(d, slot)	ring_slot(d, slot)

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load; constant to the verifier. */
const volatile __u32 nr_slots = 1;
const volatile __u32 normal_slots = 1;
const volatile __u32 cyc;		/* 1: overwrite the oldest (CYC) */
const volatile __u64 key0, key1;	/* obj_id's SipHash key, random */
const volatile __u32 switch_has_prev_state = 1;	/* since 5.18 */

/* Written by the loader at any time. */
__u32 hwt_filter_mask;			/* bit n set: family n not logged */
__u64 hwt_names_lost;
#define IRQS_NAMED	16384
__u32 irq_named[IRQS_NAMED / 32];	/* IRQs whose name went out */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hwt_ring_meta);
} hwt_meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hwt_event);
} hwt_ring SEC(".maps");

struct hwt_bpf_cpu;
static struct hwt_event *ring_slot(void *d, __u64 slot);

#include "hwt_bpf_shared.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hwt_bpf_cpu);
} hwt_cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} hwt_names SEC(".maps");

struct ring_ctx {
	__u32 base;			/* cpu * nr_slots */
};

static __always_inline struct hwt_event *ring_slot(void *d, __u64 slot)
{
	struct ring_ctx *rc = d;
	__u32 idx = rc->base + (__u32)slot;

	return bpf_map_lookup_elem(&hwt_ring, &idx);
}

static __always_inline void emit(__u16 code, __u16 par1, __u32 par2)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ring_ctx rc = { .base = cpu * nr_slots };
	struct hwt_ring_meta *m;
	struct hwt_bpf_cpu *w;

	m = bpf_map_lookup_elem(&hwt_meta, &cpu);
	w = bpf_map_lookup_elem(&hwt_cpus, &cpu);
	if (!m || !w)
		return;
	hwt_bpf_record(w, m, &rc, nr_slots, normal_slots, cyc, HWT_BPF_W_EVENT,
		       code, par1, par2);
}

/* kmod/record.h hwt_record(): the family filter is the first test. */
#define RECORD(code, par1, par2) do {					\
	if (!(hwt_filter_mask & (1u << ((code) & HWT_FAMILY_MASK))))	\
		emit(code, par1, par2);					\
} while (0)

#define FILTERED(fam)	(hwt_filter_mask & (1u << (fam)))

/*
 * The verifier allows no arithmetic on a typed (tp_btf) pointer, so the
 * timer and lock programs are raw tracepoints, whose arguments are plain
 * numbers: they only need the address.
 */
static __always_inline __u32 obj_id(__u64 addr)
{
	return hwt_bpf_obj_id(addr, key0, key1);
}

/*
 * tp_btf and fexit arguments are typed (BTF) pointers: their fields are
 * plain loads the verifier guards, not a bpf_probe_read_kernel() call each
 * (BPF_CORE_READ), as the module reads them.  Only the fields of older
 * kernels (the ___pre flavours) go through BPF_CORE_READ.
 */

/* task_cpu(): thread_info.cpu since 5.16, task_struct.cpu before. */
struct task_struct___pre516 {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_cpu_of(struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return p->thread_info.cpu;
	return BPF_CORE_READ((struct task_struct___pre516 *)p, cpu);
}

/* task_struct.state became __state in 5.14. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_state_of(struct task_struct *p)
{
	if (bpf_core_field_exists(p->__state))
		return p->__state;
	return (__u32)BPF_CORE_READ((struct task_struct___pre514 *)p, state);
}

/* names: not events (never filtered), as the module's name channel */

static __always_inline void name_task(struct task_struct *p, const char *comm)
{
	struct hwt_name *n = bpf_ringbuf_reserve(&hwt_names, sizeof(*n), 0);

	if (!n) {
		__sync_fetch_and_add(&hwt_names_lost, 1);
		return;
	}
	n->kind = HWT_NAME_TASK;
	n->id = p->pid;
	n->tgid = p->tgid;
	n->reserved = 0;
	__builtin_memset(n->name, 0, sizeof(n->name));
	/* a torn name is fixed by the rename record, as in the module */
	if (comm)
		bpf_probe_read_kernel_str(n->name, 16, comm);
	else
		bpf_probe_read_kernel_str(n->name, 16, &p->comm);
	/* userspace polls: no wakeup from the traced context */
	bpf_ringbuf_submit(n, BPF_RB_NO_WAKEUP);
}

static __always_inline void name_irq(int irq, struct irqaction *action)
{
	struct hwt_name *n;
	__u32 bit, old;
	const char *name;

	if (irq < 0 || irq >= IRQS_NAMED)
		return;
	bit = 1u << (irq & 31);
	old = __sync_fetch_and_or(&irq_named[irq >> 5], bit);
	if (old & bit)
		return;
	n = bpf_ringbuf_reserve(&hwt_names, sizeof(*n), 0);
	if (!n) {
		__sync_fetch_and_add(&hwt_names_lost, 1);
		return;
	}
	n->kind = HWT_NAME_IRQ;
	n->id = irq;
	n->tgid = 0;
	n->reserved = 0;
	__builtin_memset(n->name, 0, sizeof(n->name));
	name = action->name;
	if (name)
		bpf_probe_read_kernel_str(n->name, sizeof(n->name), name);
	bpf_ringbuf_submit(n, BPF_RB_NO_WAKEUP);
}

/* task */

SEC("tp_btf/sched_switch")
int BPF_PROG(hwt_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 state, prev_pid, next_pid;

	if (FILTERED(HWT_FAM_TASK))
		return 0;
	/* the tracepoint passes prev_state since 5.18; read it before */
	if (switch_has_prev_state)
		state = (__u32)ctx[3];
	else
		state = task_state_of(prev);
	state = hwt_bpf_task_state(preempt, state);
	prev_pid = prev->pid;
	next_pid = next->pid;
	emit(HWT_EV_TASK_SCHEDULE, HWT_SWITCH_PAR1(prev_pid, state),
	     HWT_SWITCH_PAR2(prev_pid, next_pid));
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(hwt_sched_wakeup, struct task_struct *p)
{
	RECORD(HWT_EV_TASK_ACTIVATE, task_cpu_of(p), p->pid);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(hwt_sched_wakeup_new, struct task_struct *p)
{
	RECORD(HWT_EV_TASK_ACTIVATE, task_cpu_of(p) | HWT_ACTIVATE_NEW,
	       p->pid);
	return 0;
}

/* fork and exec also name the task: one program per tracepoint */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(hwt_sched_process_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	RECORD(HWT_EV_TASK_CREATE, 0, child->pid);
	name_task(child, NULL);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(hwt_sched_process_exit, struct task_struct *p)
{
	RECORD(HWT_EV_TASK_END, 0, p->pid);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(hwt_sched_process_exec, struct task_struct *p)
{
	RECORD(HWT_EV_TASK_EXEC, 0, p->pid);
	name_task(p, NULL);
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(hwt_sched_migrate_task, struct task_struct *p, int dest_cpu)
{
	RECORD(HWT_EV_TASK_MIGRATE, dest_cpu, p->pid);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(hwt_task_rename, struct task_struct *task, const char *comm)
{
	name_task(task, comm);
	return 0;
}

/* priority */

SEC("tp_btf/sched_pi_setprio")
int BPF_PROG(hwt_sched_pi_setprio, struct task_struct *tsk,
	     struct task_struct *pi_task)
{
	int prio, pi_prio;

	if (FILTERED(HWT_FAM_PRIORITY))
		return 0;
	prio = tsk->normal_prio;
	if (pi_task) {
		pi_prio = pi_task->prio;
		if (pi_prio < prio)
			prio = pi_prio;
	}
	emit(HWT_EV_INHERITANCE, prio, tsk->pid);
	return 0;
}

/*
 * No tracepoint reports a task's new priority after setpriority(),
 * sched_setscheduler() or sched_setattr(): as the module's kretprobes,
 * fexit programs on the functions they all end in record the task's normal
 * priority once the change is made.  The loader loads them only if the
 * kernel's BTF has the function with this signature (static functions may
 * be inlined away or changed) and counts them missing if attaching fails.
 */
SEC("fexit/set_user_nice")
int BPF_PROG(hwt_set_user_nice, struct task_struct *p, long nice)
{
	RECORD(HWT_EV_SET_PRIORITY, p->normal_prio,
	       p->pid);
	return 0;
}

/* __sched_setscheduler() returns an error code: record only successes */
SEC("fexit/__sched_setscheduler")
int BPF_PROG(hwt_sched_setscheduler, struct task_struct *p,
	     const struct sched_attr *attr, bool user, bool pi, int ret)
{
	if (ret)
		return 0;
	RECORD(HWT_EV_SET_PRIORITY, p->normal_prio,
	       p->pid);
	return 0;
}

/* interrupt */

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(hwt_irq_handler_entry, int irq, struct irqaction *action)
{
	if (FILTERED(HWT_FAM_INTERRUPT))
		return 0;
	name_irq(irq, action);
	emit(HWT_EV_INTERRUPT_START, irq, 0);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(hwt_irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	RECORD(HWT_EV_INTERRUPT_END, irq, ret);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(hwt_softirq_entry, unsigned int vec)
{
	RECORD(HWT_EV_SOFTIRQ_START, vec, 0);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(hwt_softirq_exit, unsigned int vec)
{
	RECORD(HWT_EV_SOFTIRQ_END, vec, 0);
	return 0;
}

SEC("tp_btf/softirq_raise")
int BPF_PROG(hwt_softirq_raise, unsigned int vec)
{
	RECORD(HWT_EV_SOFTIRQ_RAISE, vec, 0);
	return 0;
}

/* x86 vector tracepoints: one program each, as each needs its own attach */
#define VECTOR_PROG(tp, code)						\
SEC("tp_btf/" #tp)							\
int BPF_PROG(hwt_##tp, int vector)					\
{									\
	RECORD(code, vector, 0);					\
	return 0;							\
}

VECTOR_PROG(local_timer_entry, HWT_EV_VECTOR_START)
VECTOR_PROG(local_timer_exit, HWT_EV_VECTOR_END)
VECTOR_PROG(reschedule_entry, HWT_EV_VECTOR_START)
VECTOR_PROG(reschedule_exit, HWT_EV_VECTOR_END)
VECTOR_PROG(call_function_entry, HWT_EV_VECTOR_START)
VECTOR_PROG(call_function_exit, HWT_EV_VECTOR_END)
VECTOR_PROG(call_function_single_entry, HWT_EV_VECTOR_START)
VECTOR_PROG(call_function_single_exit, HWT_EV_VECTOR_END)
VECTOR_PROG(irq_work_entry, HWT_EV_VECTOR_START)
VECTOR_PROG(irq_work_exit, HWT_EV_VECTOR_END)

/* timer: par1 0 = timer wheel, 1 = hrtimer; the id is a keyed hash */
#define TIMER_PROG(tp, code, kind)					\
SEC("raw_tp/" #tp)							\
int hwt_##tp(struct bpf_raw_tracepoint_args *ctx)			\
{									\
	if (FILTERED(HWT_FAM_TIMER))					\
		return 0;						\
	emit(code, kind, obj_id(ctx->args[0]));			\
	return 0;							\
}

TIMER_PROG(timer_start, HWT_EV_TIMER_POST, 0)
TIMER_PROG(timer_cancel, HWT_EV_TIMER_DELETE, 0)
TIMER_PROG(timer_expire_entry, HWT_EV_TIMER_WAKEUP_START, 0)
TIMER_PROG(timer_expire_exit, HWT_EV_TIMER_WAKEUP_END, 0)
TIMER_PROG(hrtimer_start, HWT_EV_TIMER_POST, 1)
TIMER_PROG(hrtimer_cancel, HWT_EV_TIMER_DELETE, 1)
TIMER_PROG(hrtimer_expire_entry, HWT_EV_TIMER_WAKEUP_START, 1)
TIMER_PROG(hrtimer_expire_exit, HWT_EV_TIMER_WAKEUP_END, 1)

/* mutex: contention of any sleeping or spinning lock */

SEC("raw_tp/contention_begin")
int hwt_contention_begin(struct bpf_raw_tracepoint_args *ctx)
{
	if (FILTERED(HWT_FAM_MUTEX))
		return 0;
	/* (void *lock, unsigned int flags) */
	emit(HWT_EV_MUTEX_WAIT, (__u16)ctx->args[1], obj_id(ctx->args[0]));
	return 0;
}

SEC("raw_tp/contention_end")
int hwt_contention_end(struct bpf_raw_tracepoint_args *ctx)
{
	if (FILTERED(HWT_FAM_MUTEX))
		return 0;
	/* (void *lock, int ret) */
	emit(HWT_EV_MUTEX_LOCK, (__u16)ctx->args[1], obj_id(ctx->args[0]));
	return 0;
}

/* signal */

SEC("tp_btf/signal_generate")
int BPF_PROG(hwt_signal_generate, int sig, struct kernel_siginfo *info,
	     struct task_struct *task)
{
	if (FILTERED(HWT_FAM_SIGNAL))
		return 0;
	emit(HWT_EV_SIGNAL, sig, task->pid);
	return 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(hwt_signal_deliver, int sig)
{
	/* current->pid: the low half of pid_tgid */
	RECORD(HWT_EV_SIGNAL_DELIVER, sig, (__u32)bpf_get_current_pid_tgid());
	return 0;
}

/* CPU */

SEC("tp_btf/cpu_idle")
int BPF_PROG(hwt_cpu_idle, unsigned int state, unsigned int cpu_id)
{
	if (FILTERED(HWT_FAM_CPU))
		return 0;
	if (state == (unsigned int)-1)		/* PWR_EVENT_EXIT */
		emit(HWT_EV_IDLE_EXIT, 0, 0);
	else
		emit(HWT_EV_IDLE_ENTER, state, 0);
	return 0;
}

SEC("tp_btf/cpu_frequency")
int BPF_PROG(hwt_cpu_frequency, unsigned int khz, unsigned int cpu_id)
{
	RECORD(HWT_EV_FREQUENCY, cpu_id, khz);
	return 0;
}

/*
 * kmod/control.c cpu_start()/cpu_stop(), run on one CPU by the loader with
 * BPF_PROG_TEST_RUN and BPF_F_TEST_RUN_ON_CPU: in an IPI (interrupts off)
 * on another CPU, but directly, with only preemption off, on the
 * recorder's own.  There an IRQ may record in the middle of it; the start
 * and stop records are therefore reserved by the cmpxchg that switches the
 * CPU on or off (hwt_bpf_cpu_start()/_stop()), so that no event lands
 * before the start records or after the stop record, and none in between
 * is refused.
 */
SEC("raw_tp")
int hwt_cpu_ctl(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 cmd = ctx->args[0];
	__u32 cpu = bpf_get_smp_processor_id();
	struct ring_ctx rc = { .base = cpu * nr_slots };
	struct hwt_ring_meta *m;
	struct hwt_bpf_cpu *w;

	m = bpf_map_lookup_elem(&hwt_meta, &cpu);
	w = bpf_map_lookup_elem(&hwt_cpus, &cpu);
	if (!m || !w)
		return -1;
	if (cmd == HWT_BPF_CTL_START)
		return hwt_bpf_cpu_start(w, m, &rc, nr_slots, cyc, cpu,
					 (__u32)bpf_get_current_pid_tgid()) ==
		       HWT_BPF_OK ? 0 : -1;
	if (cmd == HWT_BPF_CTL_STOP) {
		/* off in any case; a trace_stop that did not fit is lost */
		hwt_bpf_cpu_stop(w, m, &rc, nr_slots, cyc);
		return 0;
	}
	return -1;
}

/* Every task alive at start, named: what the module's enable snapshot does. */
SEC("iter/task")
int hwt_task_names(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct hwt_name n = { .kind = HWT_NAME_TASK };

	if (!task)
		return 0;
	n.id = task->pid;
	n.tgid = task->tgid;
	bpf_probe_read_kernel_str(n.name, 16, task->comm);
	bpf_seq_write(ctx->meta->seq, &n, sizeof(n));
	return 0;
}
