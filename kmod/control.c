// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace control: tracing on and off on every CPU (start and stop records,
 * CPUs coming online), which chunk each CPU writes to, family filters, and
 * injection from userspace and other modules.
 */
#include <linux/lockdep.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/export.h>
#include <linux/wait.h>
#include <linux/smp.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/stop_machine.h>
#include "hwt.h"
#include "hwtrace_log.h"
#include "record.h"

/* The ring each CPU writes to; NULL while it does not trace. */
DEFINE_PER_CPU(struct hwt_ring __rcu *, hwt_cur);
/*
 * The chunk a CPU that was offline at enable starts in when it comes
 * online; its hwt_cur stays NULL until then, so that nothing it does on the
 * way up is recorded before its start records.  Written under
 * cpus_read_lock(), read by the CPU's own hotplug callback.
 */
static DEFINE_PER_CPU(struct hwt_chunk *, hwt_pending);
static enum cpuhp_state hwt_online_state;
u16 hwt_filter_mask;		/* bit n set: family n is not logged */
bool hwt_enabled;		/* written under hwt_lock */

/* Module exit: no CPU callback or wakeup may still run module code. */
void hwt_control_exit(void)
{
	if (hwt_online_state > 0)
		cpuhp_remove_state_nocalls(hwt_online_state);
	hwt_wakeup_exit();
}

bool hwt_chunk_busy(const struct hwt_chunk *c, int cpu)
{
	return rcu_access_pointer(per_cpu(hwt_cur, cpu)) == &c->rings[cpu] ||
	       READ_ONCE(per_cpu(hwt_pending, cpu)) == c;
}

/* Point this CPU at its ring in chunk c. */
static void set_cur(struct hwt_chunk *c)
{
	rcu_assign_pointer(*this_cpu_ptr(&hwt_cur), &c->rings[smp_processor_id()]);
}

static void move_cpu(void *to)
{
	set_cur(to);
}

/*
 * Point every CPU at a chunk.  An online CPU moves itself, in an IPI: its
 * JTN jumps use this_cpu_cmpxchg(), atomic only against its own interrupts
 * (no LOCK prefix on x86), so a store from another CPU could be undone by a
 * jump in flight.  A jump is now wholly before the IPI (and overridden) or
 * after it (its cmpxchg fails and it follows the new chunk).  Offline CPUs
 * write nothing: they are set directly, and hotplug waits for us.
 */
void hwt_move_cpus(struct hwt_chunk *to)
{
	int cpu;

	/* and cpus_read_lock() (lockdep_assert_cpus_held() is not exported) */
	lockdep_assert_held(&hwt_lock);
	on_each_cpu(move_cpu, to, 1);
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			continue;
		/* not started yet: it starts in the new chunk */
		if (per_cpu(hwt_pending, cpu))
			per_cpu(hwt_pending, cpu) = to;
		else
			rcu_assign_pointer(per_cpu(hwt_cur, cpu), &to->rings[cpu]);
	}
}

/*
 * Start runs on each CPU in an IPI, stop in stop_machine(), interrupts off:
 * a CPU's trace begins and ends at one instant, no probe event can slip in
 * between the chunk pointer and the start or stop records.  These go
 * straight into the ring (the emergency area is theirs too).
 */
static void edge_record(struct hwt_ring *r, u16 code, u16 par1, u32 par2)
{
	if (hwt_ring_write(r, r->nr_slots, code, par1, par2))
		hwt_count_lost(r);
}

/*
 * The start records go into the ring before the CPU points at it: an NMI
 * (which interrupts-off does not keep out) meanwhile records nothing,
 * rather than something before the start.
 */
static void cpu_start(void *chunk)
{
	struct hwt_chunk *c = chunk;
	struct hwt_ring *r = &c->rings[smp_processor_id()];

	edge_record(r, HWT_EV_CYCLES_PER_MSEC, hwt_clock_kind(),
		    (u32)hwt_clock_rate());
	edge_record(r, HWT_EV_TRACE_START, 0, 0);
	/* who runs here now: the first switch on this CPU switches it out */
	edge_record(r, HWT_EV_ID, smp_processor_id(), task_pid_nr(current));
	set_cur(c);
}

/*
 * The CPU stops pointing at its ring before the stop record goes in, as it
 * points at it only after the start records: an NMI meanwhile records
 * nothing, rather than something after the stop.  The ring is closed (no
 * room, events refused until the next start record): nothing ever follows
 * a stop record.
 */
static void cpu_stop(void)
{
	struct hwt_ring *r = unrcu_pointer(xchg(this_cpu_ptr(&hwt_cur), NULL));

	if (!r)
		return;
	hwt_report_lost(r);
	edge_record(r, HWT_EV_TRACE_STOP, 0, 0);
	hwt_ring_close(r);
}

/*
 * Every CPU stops at once, in stop_machine(): there, unlike in an IPI, no
 * writer of the CPU's own is half-way through a record (writers run with
 * preemption or interrupts off), so each event attempted while tracing is
 * written before the stop record, not lost to it.  Hotplug waits for us:
 * the first CPU also takes the offline ones off their rings.
 */
static int stop_cpus(void *unused)
{
	int cpu;

	cpu_stop();
	if (smp_processor_id() != cpumask_first(cpu_online_mask))
		return 0;
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			continue;
		per_cpu(hwt_pending, cpu) = NULL;
		RCU_INIT_POINTER(per_cpu(hwt_cur, cpu), NULL);
	}
	return 0;
}

/*
 * Probes are attached before any CPU starts and detached after all have
 * stopped; until then they find no chunk and record nothing.
 */
int hwt_enable(void)
{
	int cpu, ret;

	lockdep_assert_held(&hwt_lock);
	if (hwt_enabled)
		return -EBUSY;
	if (!hwt_selected)
		return -EINVAL;
	WRITE_ONCE(hwt_enabled, true);
	ret = hwt_probes_sync();
	if (ret) {
		WRITE_ONCE(hwt_enabled, false);
		hwt_probes_sync();
		return ret;
	}
	/*
	 * After the fork/exec/rename probes are attached: a task the
	 * snapshot misses was born or renamed since, and a probe named it.
	 */
	hwt_names_snapshot();
	/* no CPU comes or goes until each one has started or is set to */
	cpus_read_lock();
	on_each_cpu(cpu_start, hwt_selected, 1);
	/* offline CPUs start when they come back (hwt_cpu_online) */
	for_each_possible_cpu(cpu)
		per_cpu(hwt_pending, cpu) = cpu_online(cpu) ? NULL : hwt_selected;
	cpus_read_unlock();
	return 0;
}

void hwt_disable(void)
{
	lockdep_assert_held(&hwt_lock);
	if (!hwt_enabled)
		return;
	WRITE_ONCE(hwt_enabled, false);
	stop_machine(stop_cpus, NULL, cpu_online_mask);
	hwt_probes_sync();
	/* writers run with preemption off: after this none is in a ring */
	synchronize_rcu();
	hwt_wakeup_all();
}

static void log_filter(void *info)
{
	const struct hwt_filter *f = info;

	hwt_record_ctl(HWT_EV_FILTER(f->family), f->status, 0);
}

int hwt_set_filter(const struct hwt_filter *arg)
{
	u16 old = hwt_filter_mask, mask;
	int ret;

	lockdep_assert_held(&hwt_lock);
	if (arg->family >= HWT_NR_FAMILIES || arg->status > 1 || arg->reserved)
		return -EINVAL;
	mask = old & ~BIT(arg->family);
	if (arg->status)
		mask |= BIT(arg->family);
	WRITE_ONCE(hwt_filter_mask, mask);
	if (!hwt_enabled)
		return 0;
	/* a filtered family has no probe attached */
	ret = hwt_probes_sync();
	if (ret) {
		/* a probe failed to attach: all as before, or as near as we can */
		WRITE_ONCE(hwt_filter_mask, old);
		hwt_probes_sync();
		return ret;
	}
	on_each_cpu(log_filter, (void *)arg, 1);
	return 0;
}

/*
 * A CPU that was offline at enable comes online: it points itself at its
 * chunk and writes its start records first, with interrupts off so that it
 * is one instant as in an IPI.  Until then its hwt_cur is NULL: what it does
 * on the way up is not traced (modules get no STARTING-phase state, so this
 * runs in the AP online states, on the CPU).  Enable, disable and select
 * hold cpus_read_lock(): none runs meanwhile.
 */
static int hwt_cpu_online(unsigned int cpu)
{
	unsigned long flags;
	struct hwt_chunk *c;

	local_irq_save(flags);
	c = this_cpu_read(hwt_pending);
	if (c && smp_processor_id() == cpu) {
		this_cpu_write(hwt_pending, NULL);
		cpu_start(c);
	}
	local_irq_restore(flags);
	return 0;
}

int hwt_control_init(void)
{
	int ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "hwtrace:online",
					    hwt_cpu_online, NULL);

	if (ret < 0)
		return ret;
	hwt_online_state = ret;
	return 0;
}

/* Userspace injection: ipoint and user families only, never control codes. */
int hwt_log_user(const struct hwt_log *arg)
{
	u16 code = HWT_CODE(arg->code);
	u16 fam = HWT_FAMILY(code);

	if (code > 0xFF || HWT_IS_CONTROL(code) || arg->reserved ||
	    (fam != HWT_FAM_IPOINT && fam != HWT_FAM_USER) ||
	    (arg->code & HWT_CODE_FAST && fam != HWT_FAM_IPOINT))
		return -EINVAL;
	hwt_record(arg->code, arg->par1, arg->par2);
	return 0;
}

/**
 * hwtrace_log() - write one record from another kernel module
 * @code: event code, any family but control (0xF0..0xFF)
 * @par1: first parameter, as the code defines it
 * @par2: second parameter, as the code defines it
 *
 * Writes into this CPU's ring of the current chunk, unless tracing is off
 * or the code's family is filtered.  Any context, NMI included; never
 * sleeps.  A record that does not fit is counted lost.
 *
 * Return: -EINVAL for a control code, else 0 (also when nothing was written).
 */
int hwtrace_log(u16 code, u16 par1, u32 par2)
{
	if (HWT_IS_CONTROL(code))
		return -EINVAL;
	hwt_record(code, par1, par2);
	return 0;
}
EXPORT_SYMBOL_GPL(hwtrace_log);
