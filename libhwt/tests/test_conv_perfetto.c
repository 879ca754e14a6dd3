// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Perfetto output of the fixture trace, decoded with the protobuf-c code
 * generated from conv/perfetto.proto: every switch of every CPU with its
 * time, pids, comms, priorities and kernel state bits; wakeups, fork, exit,
 * free, migration, IRQs, softirqs, idle and frequency as ftrace events;
 * losses on the bundles and as instants; lock contention as a slice on the
 * waiting thread; markers with their parameters; the process tree, system
 * info and clock snapshot.  Bundles stay bounded; a stream failing
 * part-way still gives a trace that decodes.  (tools/hwtrace/tests/
 * test_perfetto.sh decodes the CLI's output with protoc as well.)
 */
#include "test_conv_util.h"
#include "perfetto.pb-c.h"

typedef Perfetto__Protos__Trace Trace;
typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__FtraceEvent FtEvent;
typedef Perfetto__Protos__TrackEvent TrackEvent;

/* 2.4 GHz: 5/12 ns per tick, floored */
static uint64_t ns(uint64_t ticks)
{
	return ticks * 5 / 12;
}

static Trace *decode(struct tu_stream *t, int expect, char **buf)
{
	size_t len;
	Trace *tr;

	ck_assert_int_eq(tu_convert("perfetto", &t->s, NULL, buf, &len), expect);
	tr = perfetto__protos__trace__unpack(NULL, len, (const uint8_t *)*buf);
	ck_assert_msg(tr, "the output does not decode as perfetto.protos.Trace");
	for (size_t i = 0; i < tr->n_packet; i++) {
		ck_assert(tr->packet[i]->has_trusted_packet_sequence_id);
		ck_assert_uint_eq(tr->packet[i]->trusted_packet_sequence_id, 1);
	}
	return tr;
}

static Trace *fixture(char **buf)
{
	struct tu_stream t;
	Trace *tr;

	tu_fixture(&t);
	tr = decode(&t, 0, buf);
	tu_free(&t);
	return tr;
}

static void done(Trace *tr, char *buf)
{
	perfetto__protos__trace__free_unpacked(tr, NULL);
	free(buf);
}

/* The i-th ftrace event of cpu of the given kind (file order), or NULL. */
static const FtEvent *ft_nth(const Trace *tr, uint32_t cpu, int kind, size_t nth)
{
	for (size_t i = 0; i < tr->n_packet; i++) {
		const Packet *p = tr->packet[i];

		if (p->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS ||
		    p->ftrace_events->cpu != cpu)
			continue;
		for (size_t e = 0; e < p->ftrace_events->n_event; e++)
			if ((int)p->ftrace_events->event[e]->event_case == kind && !nth--)
				return p->ftrace_events->event[e];
	}
	return NULL;
}

static size_t ft_count(const Trace *tr, uint32_t cpu, int kind)
{
	size_t n = 0;

	while (ft_nth(tr, cpu, kind, n))
		n++;
	return n;
}

#define SW	PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH

static void check_switch(const Trace *tr, uint32_t cpu, size_t nth, uint64_t ticks,
			 int32_t prev, const char *prev_comm, int64_t state,
			 int32_t prev_prio, int32_t next, const char *next_comm)
{
	const FtEvent *e = ft_nth(tr, cpu, SW, nth);
	const Perfetto__Protos__SchedSwitchFtraceEvent *s;

	ck_assert_msg(e, "cpu%u: no switch %zu", cpu, nth);
	s = e->sched_switch;
	ck_assert_uint_eq(e->timestamp, ns(ticks));
	ck_assert_uint_eq(e->pid, (uint32_t)prev);
	ck_assert_int_eq(s->prev_pid, prev);
	ck_assert_str_eq(s->prev_comm, prev_comm);
	ck_assert_int_eq(s->prev_state, state);
	ck_assert_int_eq(s->prev_prio, prev_prio);
	ck_assert_int_eq(s->next_pid, next);
	ck_assert_str_eq(s->next_comm, next_comm);
	ck_assert_int_eq(s->next_prio, 120);
}

/* Every switch of the fixture, in order, per CPU: nothing more. */
START_TEST(test_switches)
{
	char *buf;
	Trace *tr = fixture(&buf);

	ck_assert_uint_eq(ft_count(tr, 0, SW), 3);
	ck_assert_uint_eq(ft_count(tr, 1, SW), 3);
	ck_assert_uint_eq(ft_count(tr, 2, SW), 3);
	/* R 0, S 1, D 2, X 16; odd bytes escaped as in every format */
	check_switch(tr, 0, 0, 1300, 100, "bash, \"q\"", 0, 120, 400, "worker 1");
	check_switch(tr, 0, 1, 1500, 400, "worker 1", 2, 120, 100, "bash, \"q\"");
	check_switch(tr, 0, 2, 2500, 100, "bash, \"q\"", 1, 120, 0, "swapper/0");
	check_switch(tr, 1, 0, 1350, 200, "ctl\\x01\\x09x", 1, 120, 500, "rt-task");
	check_switch(tr, 1, 1, 2050, 500, "rt-task", 0, 120, 600, "child");
	check_switch(tr, 1, 2, 2400, 600, "child", 16, 120, 500, "rt-task");
	check_switch(tr, 2, 0, 1450, 300, "bad\\xff\\xfeutf", 0, 120, 0, "swapper/2");
	check_switch(tr, 2, 1, 2170, 0, "swapper/2", 0, 120, 400, "worker 1");
	/* the inherited priority 98 since 2250 */
	check_switch(tr, 2, 2, 2450, 400, "worker 1", 1, 98, 0, "swapper/2");
	done(tr, buf);
}
END_TEST

START_TEST(test_task_events)
{
	char *buf;
	Trace *tr = fixture(&buf);
	const FtEvent *e;

	/* cpu0 runs 100 (its ID record) when 400 is woken */
	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKING, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->timestamp, ns(1200));
	ck_assert_uint_eq(e->pid, 100);
	ck_assert_int_eq(e->sched_waking->pid, 400);
	ck_assert_str_eq(e->sched_waking->comm, "worker 1");
	ck_assert_int_eq(e->sched_waking->target_cpu, 0);
	ck_assert_int_eq(e->sched_waking->prio, 120);
	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKING, 1);
	ck_assert_int_eq(e->sched_waking->target_cpu, 2);
	ck_assert_ptr_null(ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKING, 2));

	e = ft_nth(tr, 1, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FORK, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->timestamp, ns(1950));
	ck_assert_int_eq(e->sched_process_fork->parent_pid, 500);
	ck_assert_str_eq(e->sched_process_fork->parent_comm, "rt-task");
	ck_assert_int_eq(e->sched_process_fork->child_pid, 600);
	ck_assert_str_eq(e->sched_process_fork->child_comm, "child");
	e = ft_nth(tr, 1, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKEUP_NEW, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->sched_wakeup_new->pid, 600);
	ck_assert_int_eq(e->sched_wakeup_new->target_cpu, 1);
	e = ft_nth(tr, 1, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_EXIT, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->timestamp, ns(2350));
	ck_assert_int_eq(e->sched_process_exit->pid, 600);
	ck_assert_int_eq(e->sched_process_exit->tgid, 600);
	/* freed at its last switch-out, after it in the bundle */
	e = ft_nth(tr, 1, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FREE, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->timestamp, ns(2400));
	ck_assert_int_eq(e->sched_process_free->pid, 600);
	ck_assert_uint_eq(e->pid, 500);
	ck_assert_uint_eq(ft_count(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FREE) +
			  ft_count(tr, 2, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FREE), 0);
	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_MIGRATE_TASK, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->sched_migrate_task->pid, 400);
	ck_assert_int_eq(e->sched_migrate_task->dest_cpu, 2);
	done(tr, buf);
}
END_TEST

START_TEST(test_irq_power_events)
{
	char *buf;
	Trace *tr = fixture(&buf);
	const FtEvent *e;

	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_IRQ_HANDLER_ENTRY, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->timestamp, ns(1650));
	ck_assert_int_eq(e->irq_handler_entry->irq, 16);
	ck_assert_str_eq(e->irq_handler_entry->name, "eth0,rx");
	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_IRQ_HANDLER_ENTRY, 1);
	ck_assert_str_eq(e->irq_handler_entry->name, "timer\"x<&>");
	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_IRQ_HANDLER_EXIT, 0);
	ck_assert_int_eq(e->irq_handler_exit->irq, 17);
	ck_assert_int_eq(e->irq_handler_exit->ret, 1);
	ck_assert_uint_eq(ft_count(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_IRQ_HANDLER_EXIT), 2);
	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SOFTIRQ_ENTRY, 0);
	ck_assert_uint_eq(e->timestamp, ns(1600));
	ck_assert_uint_eq(e->softirq_entry->vec, 3);
	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SOFTIRQ_EXIT, 0);
	ck_assert_uint_eq(e->timestamp, ns(1850));
	e = ft_nth(tr, 2, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_CPU_IDLE, 0);
	ck_assert_uint_eq(e->cpu_idle->state, 1);
	ck_assert_uint_eq(e->cpu_idle->cpu_id, 2);
	e = ft_nth(tr, 2, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_CPU_IDLE, 1);
	ck_assert_uint_eq(e->timestamp, ns(2165));
	ck_assert_uint_eq(e->cpu_idle->state, 4294967295u);
	e = ft_nth(tr, 0, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_CPU_FREQUENCY, 0);
	ck_assert_uint_eq(e->cpu_frequency->state, 2400000);
	ck_assert_uint_eq(e->cpu_frequency->cpu_id, 0);
	done(tr, buf);
}
END_TEST

/* The uuid of the track named name, or of the thread track of tid. */
static uint64_t track_uuid(const Trace *tr, const char *name, int32_t tid)
{
	for (size_t i = 0; i < tr->n_packet; i++) {
		const Packet *p = tr->packet[i];
		const Perfetto__Protos__TrackDescriptor *td = p->track_descriptor;

		if (p->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR)
			continue;
		if (name && td->name && !strcmp(td->name, name))
			return td->uuid;
		if (!name && td->thread && td->thread->tid == tid)
			return td->uuid;
	}
	ck_abort_msg("no track %s/%d", name ? name : "-", tid);
	return 0;
}

/* The nth track event on uuid of the given type, or NULL. */
static const Packet *te_nth(const Trace *tr, uint64_t uuid, int type, size_t nth)
{
	for (size_t i = 0; i < tr->n_packet; i++) {
		const Packet *p = tr->packet[i];

		if (p->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT &&
		    p->track_event->track_uuid == uuid && (int)p->track_event->type == type &&
		    !nth--)
			return p;
	}
	return NULL;
}

static int64_t arg(const TrackEvent *te, const char *name)
{
	for (size_t i = 0; i < te->n_debug_annotations; i++)
		if (!strcmp(te->debug_annotations[i]->name, name))
			return te->debug_annotations[i]->int_value;
	ck_abort_msg("no argument %s on %s", name, te->name);
	return 0;
}

#define INSTANT	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT
#define BEGIN	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
#define END	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END

START_TEST(test_track_events)
{
	char *buf;
	Trace *tr = fixture(&buf);
	uint64_t t400 = track_uuid(tr, NULL, 400), t100 = track_uuid(tr, NULL, 100);
	uint64_t cpu1 = track_uuid(tr, "CPU 1 hwtrace", 0);
	const Packet *p;

	/* 400 contends at 1400 and gets the lock at 2200: a slice on it */
	p = te_nth(tr, t400, BEGIN, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->timestamp, ns(1400));
	ck_assert_str_eq(p->track_event->name, "lock-deadbeef");
	p = te_nth(tr, t400, END, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->timestamp, ns(2200));
	ck_assert_ptr_null(te_nth(tr, t400, BEGIN, 1));
	/* its thread track is in its process */
	for (size_t i = 0; i < tr->n_packet; i++)
		if (tr->packet[i]->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR &&
		    tr->packet[i]->track_descriptor->uuid == t400)
			ck_assert_int_eq(tr->packet[i]->track_descriptor->thread->pid, 100);
	/* ipoint 3 by 100, its value as an argument */
	p = te_nth(tr, t100, INSTANT, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->timestamp, ns(1550));
	ck_assert_str_eq(p->track_event->name, "ipoint-3");
	ck_assert_int_eq(arg(p->track_event, "value"), 42);
	/* user event 2 by 600: both parameters, the table names them alike */
	p = te_nth(tr, track_uuid(tr, NULL, 600), INSTANT, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->track_event->name, "user_event_2");
	ck_assert_int_eq(arg(p->track_event, "par1"), 7);
	ck_assert_int_eq(arg(p->track_event, "par2"), 99);
	/* x86 vector 0xec, in progress when the trace started on cpu1 */
	p = te_nth(tr, cpu1, BEGIN, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->track_event->name, "vector-0xec");
	ck_assert_uint_eq(te_nth(tr, cpu1, END, 0)->timestamp, ns(1015));
	/* losses of cpu1: 5 at 1900, 1 at 2590, 2 more in info->lost at the end */
	p = te_nth(tr, cpu1, INSTANT, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->track_event->name, "lost events");
	ck_assert_uint_eq(p->timestamp, ns(1900));
	ck_assert_int_eq(arg(p->track_event, "count"), 5);
	ck_assert_int_eq(arg(p->track_event, "cpu_total"), 5);
	p = te_nth(tr, cpu1, INSTANT, 2);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(arg(p->track_event, "count"), 2);
	ck_assert_int_eq(arg(p->track_event, "cpu_total"), 8);
	ck_assert_int_eq(arg(p->track_event, "total"), 8);	/* cpu2's come after */
	done(tr, buf);
}
END_TEST

/* lost_events on the bundles that follow a loss, and only there. */
START_TEST(test_bundle_losses)
{
	char *buf;
	Trace *tr = fixture(&buf);
	size_t lost[3] = { 0 };
	bool fork_flagged = false;

	for (size_t i = 0; i < tr->n_packet; i++) {
		const Perfetto__Protos__FtraceEventBundle *b = tr->packet[i]->ftrace_events;

		if (tr->packet[i]->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			continue;
		ck_assert_uint_lt(b->cpu, 3);
		if (!b->lost_events)
			continue;
		lost[b->cpu]++;
		/* the events after the loss at 1900 start with the fork */
		if (b->cpu == 1 && b->n_event &&
		    b->event[0]->event_case == PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FORK)
			fork_flagged = true;
	}
	ck_assert(fork_flagged);
	ck_assert_uint_eq(lost[0], 0);
	ck_assert_uint_eq(lost[1], 2);	/* 1900; 2590 and the end's, no event between */
	ck_assert_uint_eq(lost[2], 1);	/* info->lost only */
	done(tr, buf);
}
END_TEST

START_TEST(test_start_packets)
{
	char *buf;
	Trace *tr = fixture(&buf);
	const Packet *p = tr->packet[0];
	const Perfetto__Protos__ClockSnapshot *cs = NULL;
	const Perfetto__Protos__ProcessTree__Thread *th[700] = { NULL };
	const char *proc[700] = { NULL };

	ck_assert_int_eq(p->data_case, PERFETTO__PROTOS__TRACE_PACKET__DATA_SYSTEM_INFO);
	ck_assert(p->first_packet_on_sequence);
	ck_assert_uint_eq(p->sequence_flags, 1);
	ck_assert_str_eq(p->system_info->utsname->release, "6.1.0-test");
	ck_assert_str_eq(p->system_info->utsname->sysname, "Linux");
	ck_assert_uint_eq(p->system_info->num_cpus, 3);
	for (size_t i = 1; i < tr->n_packet; i++) {
		p = tr->packet[i];
		ck_assert(!p->first_packet_on_sequence);
		if (p->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT)
			cs = p->clock_snapshot;
		if (p->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_TREE)
			continue;
		for (size_t k = 0; k < p->process_tree->n_threads; k++)
			th[p->process_tree->threads[k]->tid] = p->process_tree->threads[k];
		for (size_t k = 0; k < p->process_tree->n_processes; k++) {
			const Perfetto__Protos__ProcessTree__Process *pr =
				p->process_tree->processes[k];

			ck_assert_ptr_null(proc[pr->pid]);
			proc[pr->pid] = pr->n_cmdline ? pr->cmdline[0] : "";
		}
	}
	/* the TSC clock: BOOTTIME at the first record, REALTIME the file's date */
	ck_assert_ptr_nonnull(cs);
	ck_assert_uint_eq(cs->n_clocks, 2);
	ck_assert_uint_eq(cs->clocks[0]->clock_id, 6);
	ck_assert_uint_eq(cs->clocks[0]->timestamp, ns(1000));
	ck_assert_uint_eq(cs->clocks[1]->clock_id, 1);
	ck_assert_uint_eq(cs->clocks[1]->timestamp, 1700000000ull * 1000000000ull);
	/* every thread under its process; no idle task */
	ck_assert_ptr_null(th[0]);
	ck_assert_int_eq(th[400]->tgid, 100);
	ck_assert_str_eq(th[400]->name, "worker 1");
	ck_assert_int_eq(th[600]->tgid, 600);
	ck_assert_str_eq(th[200]->name, "ctl\\x01\\x09x");
	ck_assert_str_eq(proc[100], "bash, \"q\"");
	ck_assert_str_eq(proc[500], "rt-task");
	ck_assert_ptr_null(proc[400]);
	done(tr, buf);
}
END_TEST

/* The mono clock adds CLOCK_MONOTONIC = BOOTTIME to the snapshot. */
START_TEST(test_mono_clock)
{
	struct tu_stream t;
	char *buf;
	Trace *tr;

	tu_init(&t, 1, 1000000);
	t.info.clock = HWT_CLOCK_MONO;
	t.info.creation_time = 0;
	tu_switch(&t, 5000, 0, 0, HWT_STATE_RUNNABLE, 7);
	tr = decode(&t, 0, &buf);
	for (size_t i = 0; i < tr->n_packet; i++) {
		const Perfetto__Protos__ClockSnapshot *cs = tr->packet[i]->clock_snapshot;

		if (tr->packet[i]->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT)
			continue;
		ck_assert_uint_eq(cs->n_clocks, 2);
		ck_assert_uint_eq(cs->clocks[1]->clock_id, 3);
		ck_assert_uint_eq(cs->clocks[1]->timestamp, 5000);
		ck_assert_uint_eq(cs->clocks[0]->timestamp, 5000);
		done(tr, buf);
		tu_free(&t);
		return;
	}
	ck_abort_msg("no clock snapshot");
}
END_TEST

/* Many events: bundles of at most 1024, every switch there once, in order. */
START_TEST(test_bundles_bounded)
{
	struct tu_stream t;
	size_t n = 0, bundles = 0;
	uint64_t last = 0;
	char *buf;
	Trace *tr;

	tu_init(&t, 2, 1000000);
	for (uint32_t i = 0; i < 10000; i++)
		tu_switch(&t, 100 + i, 1, 10 + i % 5, HWT_STATE_RUNNABLE, 10 + (i + 1) % 5);
	tr = decode(&t, 0, &buf);
	for (size_t i = 0; i < tr->n_packet; i++) {
		const Perfetto__Protos__FtraceEventBundle *b = tr->packet[i]->ftrace_events;

		if (tr->packet[i]->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			continue;
		bundles++;
		ck_assert_uint_eq(b->cpu, 1);
		ck_assert_uint_le(b->n_event, 1024);
		for (size_t e = 0; e < b->n_event; e++, n++) {
			ck_assert_uint_eq(b->event[e]->timestamp, 100 + n);
			ck_assert_uint_ge(b->event[e]->timestamp, last);
			ck_assert_int_eq(b->event[e]->sched_switch->next_pid,
					 (int32_t)(10 + (n + 1) % 5));
			last = b->event[e]->timestamp;
		}
	}
	ck_assert_uint_eq(n, 10000);
	ck_assert_uint_ge(bundles, 10);
	done(tr, buf);
	tu_free(&t);
}
END_TEST

/* A stream failing part-way: -EBADMSG, a whole trace of what came before. */
START_TEST(test_truncated)
{
	struct tu_stream t;
	char *buf;
	Trace *tr;
	size_t n = 0;

	tu_fixture(&t);
	t.fail_at = 24;		/* after cpu0's and cpu1's first switches */
	tr = decode(&t, -EBADMSG, &buf);
	for (uint32_t c = 0; c < 3; c++)
		n += ft_count(tr, c, SW);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(ft_count(tr, 1, PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FORK), 0);
	done(tr, buf);
	tu_free(&t);
}
END_TEST

/* Overwritten records of a cyclic ring: flagged on the CPU's first bundle. */
START_TEST(test_overwritten)
{
	struct tu_stream t;
	uint64_t ow[2] = { 0, 17 };
	char *buf;
	Trace *tr;
	const Packet *p;
	bool flagged = false;

	tu_init(&t, 2, 1000000);
	t.info.overwritten = ow;
	tu_switch(&t, 100, 0, 0, HWT_STATE_RUNNABLE, 7);
	tu_switch(&t, 200, 1, 0, HWT_STATE_RUNNABLE, 8);
	tr = decode(&t, 0, &buf);
	p = te_nth(tr, track_uuid(tr, "CPU 1 hwtrace", 0), INSTANT, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->track_event->name, "overwritten");
	ck_assert_uint_eq(p->timestamp, 200);
	ck_assert_int_eq(arg(p->track_event, "count"), 17);
	for (size_t i = 0; i < tr->n_packet; i++) {
		const Perfetto__Protos__FtraceEventBundle *b = tr->packet[i]->ftrace_events;

		if (tr->packet[i]->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			continue;
		ck_assert_int_eq(b->lost_events, b->cpu == 1);
		flagged |= b->lost_events;
	}
	ck_assert(flagged);
	done(tr, buf);
	tu_free(&t);
}
END_TEST

/* 300 CPUs: a bundle each, only for the CPUs with events. */
START_TEST(test_many_cpus)
{
	struct tu_stream t;
	size_t seen[300] = { 0 }, bundles = 0;
	char *buf;
	Trace *tr;

	tu_init(&t, 300, 1000000);
	t.info.lost = NULL;	/* the fixture's array has 8 */
	for (uint32_t c = 0; c < 300; c += 2)
		tu_switch(&t, 100 + c, c, 0, HWT_STATE_RUNNABLE, 1000 + c);
	tr = decode(&t, 0, &buf);
	for (size_t i = 0; i < tr->n_packet; i++) {
		const Perfetto__Protos__FtraceEventBundle *b = tr->packet[i]->ftrace_events;

		if (tr->packet[i]->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			continue;
		bundles++;
		ck_assert_uint_lt(b->cpu, 300);
		ck_assert_uint_eq(b->n_event, 1);
		ck_assert_int_eq(b->event[0]->sched_switch->next_pid, (int32_t)(1000 + b->cpu));
		seen[b->cpu]++;
	}
	ck_assert_uint_eq(bundles, 150);
	for (uint32_t c = 0; c < 300; c++)
		ck_assert_uint_eq(seen[c], c % 2 ? 0 : 1);
	ck_assert_uint_eq(tr->packet[0]->system_info->num_cpus, 300);
	done(tr, buf);
	tu_free(&t);
}
END_TEST

TU_MAIN("conv_perfetto", test_switches, test_task_events, test_irq_power_events,
	test_track_events, test_bundle_losses, test_start_packets, test_mono_clock,
	test_bundles_bounded, test_truncated, test_overwritten, test_many_cpus)
