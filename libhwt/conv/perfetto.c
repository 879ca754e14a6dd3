// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Perfetto's native trace (protobuf, conv/perfetto.proto), for
 * ui.perfetto.dev and trace_processor: what it turns into CPU tracks,
 * thread states, wakeups and its scheduling tables comes from ftrace
 * events, so the Linux records are written as the kernel's own ftrace
 * events; what only hwtrace has becomes track events.
 *
 *   Trace.packet*: system_info, clock_snapshot, process_tree,
 *                  then per CPU FtraceEventBundles of at most
 *                  BUNDLE_EVENTS events / BUNDLE_BYTES bytes,
 *                  interleaved with track descriptors and track events
 *
 * Records map one to one to ftrace events (pf_rec(), before the model sees
 * the record); the shared model (model.c) supplies names, thread groups,
 * priorities, the dead task's end, markers, lock contention and losses.
 * Each FtraceEvent is packed by protobuf-c into its CPU's pending bundle at
 * once, so memory is bounded by CPUs x BUNDLE_BYTES plus the tasks.
 * Timestamps are ns of the trace clock; Documentation/hwtrace-formats.rst
 * has the mapping and what the clock snapshot says.
 */
#include <errno.h>
#include <stdlib.h>

#include <hwt/events.h>
#include "conv_internal.h"
#include "perfetto.pb-c.h"

#define BUNDLE_EVENTS	1024
#define BUNDLE_BYTES	(16 << 10)
#define SEQ_ID		1	/* one writer: every packet on one sequence */
#define TREE_CHUNK	512	/* process_tree entries per packet */

/* Track uuids: one hwtrace track per CPU, one per thread that needs one. */
#define UUID_CPU(cpu)	((1ull << 40) | (cpu))
#define UUID_THREAD(t)	((2ull << 40) | (t))

/* cpu_idle's state when a CPU leaves idle (the kernel's PWR_EVENT_EXIT) */
#define IDLE_EXIT_STATE	4294967295u
#define PRIO_DEFAULT	120

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__FtraceEvent FtEvent;
typedef Perfetto__Protos__TrackEvent TrackEvent;
typedef Perfetto__Protos__DebugAnnotation Annotation;

struct pf_cpu {
	uint8_t *buf;		/* packed FtraceEvents (field 2 of the bundle),
				 * allocated at the CPU's first event */
	size_t len;
	uint32_t n;		/* events in buf */
	bool lost;		/* the next bundle says events were lost before it */
	bool seen;		/* a record of this CPU was met in pass 2 */
	bool track;		/* its track descriptor is written */
	uint32_t cur;		/* pid running on it (0: idle) */
	uint32_t vec_depth;	/* open x86-vector slices on its track */
	char idle[24];		/* "swapper/N" */
};

struct pf_task {
	char *comm;		/* sanitized, NULL: not made yet; "" unknown */
	int32_t prio;
	bool track;		/* its thread track descriptor is written */
	bool lock_open;		/* a lock-contention slice is open on it */
};

struct pf {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_names names;	/* markers, locks, vectors */
	struct hwt_mk_uses mk_uses;
	const char *(*mk_args)[2];	/* [marker id] argument names, lazily */
	size_t nr_mk_args;
	uint32_t nr_cpus;
	uint64_t num, den;	/* ns per tick */
	struct pf_cpu *cpus;
	struct pf_task *tasks;	/* [model task idx] */
	size_t nr_tasks;
	char **irq_names;	/* [irq] sanitized action names, lazily */
	size_t nr_irq_names;
	bool first_packet;
	int err;
};

static uint64_t ns(const struct pf *p, uint64_t ts)
{
	return hwt_muldiv(ts, p->num, p->den);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static size_t put_varint(uint8_t *d, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		d[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	d[n++] = (uint8_t)v;
	return n;
}

static void fail(struct pf *p, int err)
{
	if (!p->err)
		p->err = err;
}

/* --- names ------------------------------------------------------------------ */

static char *dup_sanitized(const char *raw)
{
	char clean[HWT_NAME_MAX * 4 + 1];

	hwt_name_sanitize(clean, sizeof(clean), raw, 0, HWT_SAN_CTRL);
	return strdup(clean);
}

/* The model's task for tid (pid 0 is the idle task of cpu), or NULL. */
static struct pf_task *task_get(struct pf *p, uint32_t tid)
{
	int64_t idx = hwt_model_index(p->run.model, HWT_ENT_TASK, tid);
	struct pf_task *t;

	if (idx < 0 || (size_t)idx >= p->nr_tasks)
		return NULL;
	t = &p->tasks[idx];
	if (!t->comm) {
		char raw[HWT_COMM_LEN + 16];

		hwt_conv_comm(raw, sizeof(raw), p->run.model, tid);
		t->comm = dup_sanitized(raw);
		if (!t->comm)
			fail(p, -ENOMEM);
	}
	return t;
}

static uint32_t tid_of(uint32_t pid, uint32_t cpu)
{
	return pid ? pid : HWT_TID_IDLE(cpu);
}

/* comm of pid as seen on cpu; NULL when unknown (the field is left out) */
static char *comm_of(struct pf *p, uint32_t pid, uint32_t cpu)
{
	struct pf_task *t = task_get(p, tid_of(pid, cpu));

	return t && t->comm && t->comm[0] ? t->comm : NULL;
}

static int32_t prio_of(struct pf *p, uint32_t pid, uint32_t cpu)
{
	struct pf_task *t = task_get(p, tid_of(pid, cpu));

	return t ? t->prio : PRIO_DEFAULT;
}

static uint32_t tgid_of(struct pf *p, uint32_t pid)
{
	struct hwt_stream *s = hwt_model_names(p->run.model);
	const struct hwt_task *t = pid && s && s->task ? s->task(s->ctx, pid) : NULL;

	return t && t->tgid ? t->tgid : pid;
}

static char *irq_name(struct pf *p, uint32_t irq)
{
	struct hwt_stream *s = hwt_model_names(p->run.model);
	const char *raw;

	if (irq >= p->nr_irq_names) {
		size_t n = irq + 1 > 2 * p->nr_irq_names ? irq + 1 : 2 * p->nr_irq_names;
		char **v = realloc(p->irq_names, n * sizeof(*v));

		if (!v) {
			fail(p, -ENOMEM);
			return NULL;
		}
		memset(v + p->nr_irq_names, 0, (n - p->nr_irq_names) * sizeof(*v));
		p->irq_names = v;
		p->nr_irq_names = n;
	}
	if (!p->irq_names[irq]) {
		raw = s && s->irq_name ? s->irq_name(s->ctx, irq) : NULL;
		p->irq_names[irq] = dup_sanitized(raw ? raw : "");
		if (!p->irq_names[irq])
			fail(p, -ENOMEM);
	}
	return p->irq_names[irq] && p->irq_names[irq][0] ? p->irq_names[irq] : NULL;
}

/* A name of the model's tables (markers, locks, vectors), made if new. */
static const char *ent_name(struct pf *p, enum hwt_entity_kind kind, uint32_t idx,
			    uint32_t id)
{
	if (!hwt_names_has(&p->names, kind, idx)) {
		int ret = hwt_names_add(&p->names, kind, idx, id);

		if (ret) {
			fail(p, ret);
			return NULL;
		}
	}
	return p->names.v[kind][idx];
}

/* --- packets ------------------------------------------------------------------ */

/* Trace.packet: field 1, length-delimited. */
static void put_packet(struct pf *p, Packet *pkt)
{
	size_t n;
	uint8_t *d;

	pkt->has_trusted_packet_sequence_id = 1;
	pkt->trusted_packet_sequence_id = SEQ_ID;
	if (p->first_packet) {
		/* nothing before it on the sequence: its state starts clean */
		pkt->has_sequence_flags = 1;
		pkt->sequence_flags = 1;	/* SEQ_INCREMENTAL_STATE_CLEARED */
		pkt->has_first_packet_on_sequence = 1;
		pkt->first_packet_on_sequence = 1;
		p->first_packet = false;
	}
	n = perfetto__protos__trace_packet__get_packed_size(pkt);
	d = (uint8_t *)ob_room(&p->ob, 11 + n);
	if (!d)
		return;
	d[0] = 0x0A;
	d += 1 + put_varint(d + 1, n);
	perfetto__protos__trace_packet__pack(pkt, d);
	p->ob.len = (size_t)((char *)d + n - p->ob.buf);
}

/*
 * A CPU's pending events as one packet.  The bundle's cpu and lost_events
 * and the packet's own fields are packed by protobuf-c; the events are
 * already packed: a message's fields may come in any order, so the bundle
 * is its head followed by the events.
 */
static void bundle_flush(struct pf *p, uint32_t cpu)
{
	struct pf_cpu *c = &p->cpus[cpu];
	Perfetto__Protos__FtraceEventBundle b = PERFETTO__PROTOS__FTRACE_EVENT_BUNDLE__INIT;
	Packet pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	uint8_t head[32], phead[32];
	size_t hn, pn, blen, plen;
	uint8_t *d;

	if (!c->n && !c->lost)
		return;
	b.has_cpu = 1;
	b.cpu = cpu;
	if (c->lost) {
		b.has_lost_events = 1;
		b.lost_events = 1;
	}
	hn = perfetto__protos__ftrace_event_bundle__pack(&b, head);
	pkt.has_trusted_packet_sequence_id = 1;
	pkt.trusted_packet_sequence_id = SEQ_ID;
	pn = perfetto__protos__trace_packet__pack(&pkt, phead);
	blen = hn + c->len;
	/* packet: its head, then field 1 (ftrace_events) holding the bundle */
	plen = pn + 1 + varint_len(blen) + blen;
	d = (uint8_t *)ob_room(&p->ob, 1 + 10 + plen);
	if (d) {
		d[0] = 0x0A;
		d += 1 + put_varint(d + 1, plen);
		memcpy(d, phead, pn);
		d += pn;
		*d++ = 0x0A;
		d += put_varint(d, blen);
		memcpy(d, head, hn);
		if (c->len)
			memcpy(d + hn, c->buf, c->len);
		p->ob.len = (size_t)((char *)d + hn + c->len - p->ob.buf);
	}
	c->len = 0;
	c->n = 0;
	c->lost = false;
}

/* Append one FtraceEvent (its oneof already set) to cpu's bundle. */
static void ft_put(struct pf *p, uint32_t cpu, uint64_t ts, uint32_t pid, FtEvent *fe)
{
	struct pf_cpu *c = &p->cpus[cpu];
	size_t n;

	fe->has_timestamp = 1;
	fe->timestamp = ns(p, ts);
	fe->has_pid = 1;
	fe->pid = pid;
	n = perfetto__protos__ftrace_event__get_packed_size(fe);
	if (!c->buf || c->len + n + 11 > BUNDLE_BYTES + 1024) {
		/* a CPU's first event, or a huge one: the buffer grows for it */
		size_t cap = c->len + n + 11 > BUNDLE_BYTES + 1024 ?
			     c->len + n + 11 : BUNDLE_BYTES + 1024;
		uint8_t *b = realloc(c->buf, cap);

		if (!b) {
			fail(p, -ENOMEM);
			return;
		}
		c->buf = b;
	}
	c->buf[c->len++] = 0x12;	/* field 2 (event), length-delimited */
	c->len += put_varint(c->buf + c->len, n);
	c->len += perfetto__protos__ftrace_event__pack(fe, c->buf + c->len);
	if (++c->n >= BUNDLE_EVENTS || c->len >= BUNDLE_BYTES)
		bundle_flush(p, cpu);
}

/* --- track events ----------------------------------------------------------------- */

static uint64_t cpu_track(struct pf *p, uint32_t cpu)
{
	struct pf_cpu *c = &p->cpus[cpu];

	if (!c->track) {
		Packet pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
		Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		char name[32];

		snprintf(name, sizeof(name), "CPU %u hwtrace", cpu);
		td.has_uuid = 1;
		td.uuid = UUID_CPU(cpu);
		td.name = name;
		pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
		pkt.track_descriptor = &td;
		put_packet(p, &pkt);
		c->track = true;
	}
	return UUID_CPU(cpu);
}

/* The track of thread tid (its slices merge with its scheduling states). */
static uint64_t thread_track(struct pf *p, uint32_t tid)
{
	struct pf_task *t = task_get(p, tid);

	if (t && !t->track) {
		Packet pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
		Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		Perfetto__Protos__ThreadDescriptor th = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

		th.has_pid = 1;
		th.pid = (int32_t)tgid_of(p, tid);
		th.has_tid = 1;
		th.tid = (int32_t)tid;
		if (t->comm && t->comm[0])
			th.thread_name = t->comm;
		td.has_uuid = 1;
		td.uuid = UUID_THREAD(tid);
		td.thread = &th;
		pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
		pkt.track_descriptor = &td;
		put_packet(p, &pkt);
		t->track = true;
	}
	return UUID_THREAD(tid);
}

/* The thread track of the task executing an event, else the CPU's track. */
static uint64_t ctx_track(struct pf *p, const struct hwt_mev *ev)
{
	if (ev->ctx_kind == HWT_ENT_TASK && !HWT_TID_IS_IDLE(ev->ctx_id) &&
	    task_get(p, ev->ctx_id))
		return thread_track(p, ev->ctx_id);
	return cpu_track(p, ev->cpu);
}

static void track_event(struct pf *p, uint64_t ts, uint64_t uuid, int type,
			const char *cat, const char *name, Annotation **args,
			size_t nargs)
{
	Packet pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	char *cats[1] = { (char *)cat };

	pkt.has_timestamp = 1;
	pkt.timestamp = ns(p, ts);
	te.has_type = 1;
	te.type = (Perfetto__Protos__TrackEvent__Type)type;
	te.has_track_uuid = 1;
	te.track_uuid = uuid;
	if (cat) {
		te.n_categories = 1;
		te.categories = cats;
	}
	te.name = (char *)name;
	te.n_debug_annotations = nargs;
	te.debug_annotations = args;
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	pkt.track_event = &te;
	put_packet(p, &pkt);
}

#define INSTANT	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT
#define BEGIN	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
#define END	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END

static void arg_int(Annotation *a, const char *name, int64_t v)
{
	perfetto__protos__debug_annotation__init(a);
	a->name = (char *)name;
	a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
	a->int_value = v;
}

static void arg_str(Annotation *a, const char *name, const char *v)
{
	perfetto__protos__debug_annotation__init(a);
	a->name = (char *)name;
	a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
	a->string_value = (char *)v;
}

/* Losses: an instant on the CPU's track; its next bundle is flagged. */
static void lost_mark(struct pf *p, uint32_t cpu, uint64_t ts, const char *what,
		      int64_t n, int64_t cpu_total, int64_t total)
{
	Annotation a[3], *args[3] = { &a[0], &a[1], &a[2] };
	size_t nargs = 1;

	arg_int(&a[0], "count", n);
	if (cpu_total >= 0) {
		arg_int(&a[1], "cpu_total", cpu_total);
		arg_int(&a[2], "total", total);
		nargs = 3;
	}
	/* the events before the loss go out unflagged; a flag pending stays */
	if (p->cpus[cpu].n)
		bundle_flush(p, cpu);
	p->cpus[cpu].lost = true;
	track_event(p, ts, cpu_track(p, cpu), INSTANT, "hwtrace", what, args, nargs);
}

/* --- the records, as the kernel's ftrace events --------------------------------------- */

/* The kernel's event of a record, if it has one. */
static void pf_rec(void *ctx, const struct hwt_record *r)
{
	struct pf *p = ctx;
	uint32_t cpu = r->cpu, code = HWT_CODE(r->ev.code), par1 = r->ev.par1;
	uint32_t par2 = r->ev.par2, pid;
	FtEvent fe = PERFETTO__PROTOS__FTRACE_EVENT__INIT;
	struct pf_cpu *c;
	union {
		Perfetto__Protos__SchedSwitchFtraceEvent sw;
		Perfetto__Protos__SchedWakingFtraceEvent wk;
		Perfetto__Protos__SchedWakeupNewFtraceEvent wn;
		Perfetto__Protos__SchedProcessForkFtraceEvent fork;
		Perfetto__Protos__SchedProcessExitFtraceEvent exit;
		Perfetto__Protos__SchedMigrateTaskFtraceEvent mig;
		Perfetto__Protos__TaskRenameFtraceEvent ren;
		Perfetto__Protos__IrqHandlerEntryFtraceEvent ie;
		Perfetto__Protos__IrqHandlerExitFtraceEvent ix;
		Perfetto__Protos__SoftirqEntryFtraceEvent se;
		Perfetto__Protos__SoftirqExitFtraceEvent sx;
		Perfetto__Protos__SoftirqRaiseFtraceEvent sr;
		Perfetto__Protos__CpuIdleFtraceEvent idle;
		Perfetto__Protos__CpuFrequencyFtraceEvent freq;
	} u;

	if (cpu >= p->nr_cpus)
		return;
	c = &p->cpus[cpu];
	if (!c->seen) {
		const uint64_t *ow = p->run.in->info->overwritten;

		c->seen = true;
		/* a cyclic ring lost its oldest records: before the first */
		if (ow && ow[cpu])
			lost_mark(p, cpu, r->ts, "overwritten", (int64_t)ow[cpu], -1, 0);
	}
	pid = c->cur;
	switch (code) {
	case HWT_EV_ID:
		c->cur = par2;
		return;
	case HWT_EV_TASK_SCHEDULE: {
		uint32_t prev = HWT_SWITCH_PREV(&r->ev), next = HWT_SWITCH_NEXT(&r->ev);

		perfetto__protos__sched_switch_ftrace_event__init(&u.sw);
		u.sw.prev_comm = comm_of(p, prev, cpu);
		u.sw.has_prev_pid = u.sw.has_prev_prio = u.sw.has_prev_state = 1;
		u.sw.prev_pid = (int32_t)prev;
		u.sw.prev_prio = prio_of(p, prev, cpu);
		u.sw.prev_state = hwt_conv_report_state(HWT_SWITCH_STATE(&r->ev));
		u.sw.next_comm = comm_of(p, next, cpu);
		u.sw.has_next_pid = u.sw.has_next_prio = 1;
		u.sw.next_pid = (int32_t)next;
		u.sw.next_prio = prio_of(p, next, cpu);
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH;
		fe.sched_switch = &u.sw;
		pid = prev;
		c->cur = next;
		break;
	}
	case HWT_EV_TASK_ACTIVATE: {
		uint32_t target = par1 & ~HWT_ACTIVATE_NEW & 0xFFFF;

		/*
		 * hwtrace hooks sched_wakeup; Perfetto takes Runnable states
		 * and wakers from sched_waking, the first tracepoint of the
		 * same wakeup, with the same fields: written as that.
		 */
#define FILL_WAKE(w)	do {							\
		(w).comm = comm_of(p, par2, target);				\
		(w).has_pid = (w).has_prio = (w).has_success = 1;		\
		(w).has_target_cpu = 1;						\
		(w).pid = (int32_t)par2;					\
		(w).prio = prio_of(p, par2, target);				\
		(w).success = 1;						\
		(w).target_cpu = (int32_t)target;				\
	} while (0)
		if (par1 & HWT_ACTIVATE_NEW) {
			perfetto__protos__sched_wakeup_new_ftrace_event__init(&u.wn);
			FILL_WAKE(u.wn);
			fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKEUP_NEW;
			fe.sched_wakeup_new = &u.wn;
		} else {
			perfetto__protos__sched_waking_ftrace_event__init(&u.wk);
			FILL_WAKE(u.wk);
			fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKING;
			fe.sched_waking = &u.wk;
		}
#undef FILL_WAKE
		break;
	}
	case HWT_EV_TASK_CREATE:
		perfetto__protos__sched_process_fork_ftrace_event__init(&u.fork);
		u.fork.parent_comm = comm_of(p, pid, cpu);
		u.fork.has_parent_pid = u.fork.has_child_pid = 1;
		u.fork.parent_pid = (int32_t)pid;
		u.fork.child_comm = comm_of(p, par2, cpu);
		u.fork.child_pid = (int32_t)par2;
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FORK;
		fe.sched_process_fork = &u.fork;
		break;
	case HWT_EV_TASK_END:
		perfetto__protos__sched_process_exit_ftrace_event__init(&u.exit);
		u.exit.comm = comm_of(p, par2, cpu);
		u.exit.has_pid = u.exit.has_tgid = u.exit.has_prio = 1;
		u.exit.pid = (int32_t)par2;
		u.exit.tgid = (int32_t)tgid_of(p, par2);
		u.exit.prio = prio_of(p, par2, cpu);
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_EXIT;
		fe.sched_process_exit = &u.exit;
		break;
	case HWT_EV_TASK_EXEC:
		/* exec renames the task (the kernel's task_rename fires there) */
		perfetto__protos__task_rename_ftrace_event__init(&u.ren);
		u.ren.has_pid = 1;
		u.ren.pid = (int32_t)par2;
		u.ren.newcomm = comm_of(p, par2, cpu);
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_TASK_RENAME;
		fe.task_rename = &u.ren;
		break;
	case HWT_EV_TASK_MIGRATE:
		perfetto__protos__sched_migrate_task_ftrace_event__init(&u.mig);
		u.mig.comm = comm_of(p, par2, cpu);
		u.mig.has_pid = u.mig.has_prio = u.mig.has_dest_cpu = 1;
		u.mig.pid = (int32_t)par2;
		u.mig.prio = prio_of(p, par2, cpu);
		u.mig.dest_cpu = (int32_t)par1;
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_MIGRATE_TASK;
		fe.sched_migrate_task = &u.mig;
		break;
	case HWT_EV_INTERRUPT_START:
		perfetto__protos__irq_handler_entry_ftrace_event__init(&u.ie);
		u.ie.has_irq = 1;
		u.ie.irq = (int32_t)par1;
		u.ie.name = irq_name(p, par1);
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_IRQ_HANDLER_ENTRY;
		fe.irq_handler_entry = &u.ie;
		break;
	case HWT_EV_INTERRUPT_END:
		perfetto__protos__irq_handler_exit_ftrace_event__init(&u.ix);
		u.ix.has_irq = u.ix.has_ret = 1;
		u.ix.irq = (int32_t)par1;
		u.ix.ret = (int32_t)par2;
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_IRQ_HANDLER_EXIT;
		fe.irq_handler_exit = &u.ix;
		break;
	case HWT_EV_SOFTIRQ_START:
		perfetto__protos__softirq_entry_ftrace_event__init(&u.se);
		u.se.has_vec = 1;
		u.se.vec = par1;
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SOFTIRQ_ENTRY;
		fe.softirq_entry = &u.se;
		break;
	case HWT_EV_SOFTIRQ_END:
		perfetto__protos__softirq_exit_ftrace_event__init(&u.sx);
		u.sx.has_vec = 1;
		u.sx.vec = par1;
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SOFTIRQ_EXIT;
		fe.softirq_exit = &u.sx;
		break;
	case HWT_EV_SOFTIRQ_RAISE:
		perfetto__protos__softirq_raise_ftrace_event__init(&u.sr);
		u.sr.has_vec = 1;
		u.sr.vec = par1;
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SOFTIRQ_RAISE;
		fe.softirq_raise = &u.sr;
		break;
	case HWT_EV_IDLE_ENTER:
	case HWT_EV_IDLE_EXIT:
		perfetto__protos__cpu_idle_ftrace_event__init(&u.idle);
		u.idle.has_state = u.idle.has_cpu_id = 1;
		u.idle.state = code == HWT_EV_IDLE_ENTER ? par1 : IDLE_EXIT_STATE;
		u.idle.cpu_id = cpu;
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_CPU_IDLE;
		fe.cpu_idle = &u.idle;
		break;
	case HWT_EV_FREQUENCY:
		perfetto__protos__cpu_frequency_ftrace_event__init(&u.freq);
		u.freq.has_state = u.freq.has_cpu_id = 1;
		u.freq.state = par2;
		u.freq.cpu_id = par1;
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_CPU_FREQUENCY;
		fe.cpu_frequency = &u.freq;
		break;
	default:
		return;		/* the model's events cover the rest */
	}
	ft_put(p, cpu, r->ts, pid, &fe);
}

/* Markers whose record is written as an ftrace event already. */
static bool marker_is_ftrace(const struct hwt_model *m, uint32_t id)
{
	const struct hwt_marker_info *mi = hwt_model_marker(m, id);
	uint16_t code = mi ? mi->code : 0;

	return code == HWT_EV_SOFTIRQ_RAISE || code == HWT_EV_TASK_EXEC ||
	       code == HWT_EV_TASK_MIGRATE;
}

/*
 * A marker's argument names: its parameters' names in the event table,
 * "par1"/"par2" when they share one (user events: "free").  Looked up once
 * per marker: the table is searched linearly.
 */
static const char *const *marker_args(struct pf *p, uint32_t id)
{
	if (id >= p->nr_mk_args) {
		size_t n = id + 1 > 2 * p->nr_mk_args ? id + 1 : 2 * p->nr_mk_args;
		const char *(*v)[2] = realloc(p->mk_args, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + p->nr_mk_args, 0, (n - p->nr_mk_args) * sizeof(*v));
		p->mk_args = v;
		p->nr_mk_args = n;
	}
	if (!p->mk_args[id][0]) {
		const struct hwt_marker_info *mi = hwt_model_marker(p->run.model, id);
		const char *n1 = mi ? hwt_event_par1(mi->code) : NULL;
		const char *n2 = mi ? hwt_event_par2(mi->code) : NULL;

		if (!n1 || !n2 || !strcmp(n1, n2)) {
			n1 = "par1";
			n2 = "par2";
		}
		p->mk_args[id][0] = n1;
		p->mk_args[id][1] = n2;
	}
	return p->mk_args[id];
}

static void marker_event(struct pf *p, const struct hwt_mev *ev)
{
	const char *const *names = marker_args(p, ev->id);
	Annotation a[2], *args[2] = { &a[0], &a[1] };
	int uses = hwt_mk_uses(&p->mk_uses, p->run.model, ev->id);
	size_t nargs = 0;

	if (uses < 0 || !names) {
		fail(p, -ENOMEM);
		return;
	}
	if (uses & HWT_MSG_VALUE2)
		arg_int(&a[nargs++], names[0], (int64_t)ev->value2);
	if (uses & HWT_MSG_VALUE)
		arg_int(&a[nargs++], names[1], ev->value);
	track_event(p, ev->ts, ctx_track(p, ev), INSTANT, "marker",
		    ent_name(p, HWT_ENT_MARKER, ev->idx, ev->id), args, nargs);
}

static void lock_event(struct pf *p, const struct hwt_mev *ev)
{
	const char *lock = ent_name(p, HWT_ENT_LOCK, ev->idx, ev->id);
	struct pf_task *t = NULL;
	Annotation a;
	Annotation *args[1] = { &a };

	if (ev->ctx_kind == HWT_ENT_TASK && !HWT_TID_IS_IDLE(ev->ctx_id))
		t = task_get(p, ev->ctx_id);
	/* contention by a task: a slice on it from contention to acquisition */
	if (t && ev->type == HWT_MEV_LOCK_WAIT && !t->lock_open) {
		track_event(p, ev->ts, thread_track(p, ev->ctx_id), BEGIN, "lock",
			    lock, NULL, 0);
		t->lock_open = true;
		return;
	}
	if (t && ev->type == HWT_MEV_LOCK_ACQUIRE && t->lock_open) {
		track_event(p, ev->ts, thread_track(p, ev->ctx_id), END, NULL, NULL,
			    NULL, 0);
		t->lock_open = false;
		return;
	}
	arg_str(&a, "op", ev->type == HWT_MEV_LOCK_WAIT ? "contended" :
		ev->type == HWT_MEV_LOCK_ACQUIRE ? "acquired" : "released");
	track_event(p, ev->ts, ctx_track(p, ev), INSTANT, "lock", lock, args, 1);
}

/* What the model adds to the records. */
static void pf_mev(void *ctx, const struct hwt_mev *ev)
{
	struct pf *p = ctx;
	uint32_t cpu = ev->cpu;

	if (cpu >= p->nr_cpus)
		return;
	switch (ev->type) {
	case HWT_MEV_PRIORITY:
		if (ev->idx < p->nr_tasks)
			p->tasks[ev->idx].prio = (int32_t)ev->value;
		break;
	case HWT_MEV_TASK_DELETE: {
		/*
		 * The dead task's last switch-out: the kernel frees it soon
		 * after.  Perfetto ends the thread there, so a reused pid is a
		 * new thread.
		 */
		Perfetto__Protos__SchedProcessFreeFtraceEvent fr =
			PERFETTO__PROTOS__SCHED_PROCESS_FREE_FTRACE_EVENT__INIT;
		FtEvent fe = PERFETTO__PROTOS__FTRACE_EVENT__INIT;
		uint32_t pid = HWT_TID_PID(ev->id);

		if (!pid)
			break;
		fr.comm = comm_of(p, pid, cpu);
		fr.has_pid = fr.has_prio = 1;
		fr.pid = (int32_t)pid;
		fr.prio = prio_of(p, pid, cpu);
		fe.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FREE;
		fe.sched_process_free = &fr;
		ft_put(p, cpu, ev->ts, p->cpus[cpu].cur, &fe);
		break;
	}
	case HWT_MEV_ISR_START:
		/* x86 system vectors have no ftrace event Perfetto reads */
		if (HWT_ISR_IS_VECTOR(ev->id)) {
			track_event(p, ev->ts, cpu_track(p, cpu), BEGIN, "irq",
				    ent_name(p, HWT_ENT_ISR, ev->idx, ev->id), NULL, 0);
			p->cpus[cpu].vec_depth++;
		}
		break;
	case HWT_MEV_ISR_TERMINATE:
		if (HWT_ISR_IS_VECTOR(ev->id) && p->cpus[cpu].vec_depth) {
			track_event(p, ev->ts, cpu_track(p, cpu), END, NULL, NULL, NULL, 0);
			p->cpus[cpu].vec_depth--;
		}
		break;
	case HWT_MEV_MARKER:
		if (!marker_is_ftrace(p->run.model, ev->id))
			marker_event(p, ev);
		break;
	case HWT_MEV_LOCK_WAIT:
	case HWT_MEV_LOCK_ACQUIRE:
	case HWT_MEV_LOCK_RELEASE:
		lock_event(p, ev);
		break;
	case HWT_MEV_LOST:
		lost_mark(p, cpu, ev->ts, "lost events", ev->inst, ev->value,
			  (int64_t)ev->value2);
		break;
	default:
		break;
	}
}

/* --- the start: system, clocks, processes ------------------------------------------- */

static void put_system_info(struct pf *p, const struct hwt_trace_info *info)
{
	Packet pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__SystemInfo si = PERFETTO__PROTOS__SYSTEM_INFO__INIT;
	Perfetto__Protos__Utsname un = PERFETTO__PROTOS__UTSNAME__INIT;
	char release[HWT_HOST_LEN * 4];

	un.sysname = "Linux";
	hwt_name_sanitize(release, sizeof(release), info->kernel_release, 0,
			  HWT_SAN_CTRL);
	if (release[0])
		un.release = release;
	si.utsname = &un;
	si.has_num_cpus = 1;
	si.num_cpus = p->nr_cpus;
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_SYSTEM_INFO;
	pkt.system_info = &si;
	put_packet(p, &pkt);
}

/*
 * Timestamps are ns of the trace clock, taken as Perfetto's BOOTTIME (what
 * ftrace events are in).  The snapshot says what else is known at the
 * first record: CLOCK_MONOTONIC equals it (the mono clock, assuming no
 * suspend since boot), and the wall clock of the file's creation (to the
 * second).
 */
static void put_clock_snapshot(struct pf *p, const struct hwt_trace_info *info,
			       uint64_t t0)
{
	Packet pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock cl[3], *clocks[3] = { &cl[0], &cl[1], &cl[2] };
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		perfetto__protos__clock_snapshot__clock__init(&cl[i]);
		cl[i].has_clock_id = cl[i].has_timestamp = 1;
	}
	cl[n].clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME;
	cl[n++].timestamp = t0;
	if (info->clock == HWT_CLOCK_MONO) {
		cl[n].clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
		cl[n++].timestamp = t0;
	}
	if (info->creation_time > 0) {
		cl[n].clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_REALTIME;
		cl[n++].timestamp = (uint64_t)info->creation_time * 1000000000ull;
	}
	if (n < 2)
		return;		/* nothing to relate */
	cs.n_clocks = n;
	cs.clocks = clocks;
	cs.has_primary_trace_clock = 1;
	cs.primary_trace_clock = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME;
	pkt.has_timestamp = 1;
	pkt.timestamp = t0;
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	pkt.clock_snapshot = &cs;
	put_packet(p, &pkt);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void put_tree(struct pf *p, uint64_t t0,
		     Perfetto__Protos__ProcessTree__Process **procs, size_t np,
		     Perfetto__Protos__ProcessTree__Thread **threads, size_t nt)
{
	Packet pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ProcessTree tree = PERFETTO__PROTOS__PROCESS_TREE__INIT;

	tree.n_processes = np;
	tree.processes = procs;
	tree.n_threads = nt;
	tree.threads = threads;
	pkt.has_timestamp = 1;
	pkt.timestamp = t0;
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_TREE;
	pkt.process_tree = &tree;
	put_packet(p, &pkt);
}

/*
 * Every task of the trace: each thread group as a process (named by its
 * leader's comm) and each thread under it, in packets of TREE_CHUNK.
 */
static int put_process_tree(struct pf *p, uint64_t t0)
{
	Perfetto__Protos__ProcessTree__Process proc[TREE_CHUNK], *procs[TREE_CHUNK];
	Perfetto__Protos__ProcessTree__Thread th[TREE_CHUNK], *threads[TREE_CHUNK];
	char *cmd[TREE_CHUNK], *leader[TREE_CHUNK] = { NULL };
	uint32_t *tgids = calloc(p->nr_tasks + 1, sizeof(*tgids));
	size_t ng = 0, n = 0;

	if (!tgids)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_tasks; i++) {
		uint32_t tid = hwt_model_id(p->run.model, HWT_ENT_TASK, i);

		if (HWT_TID_IS_IDLE(tid) || !task_get(p, tid))
			continue;
		tgids[ng++] = tgid_of(p, tid);
		perfetto__protos__process_tree__thread__init(&th[n]);
		th[n].has_tid = th[n].has_tgid = 1;
		th[n].tid = (int32_t)tid;
		th[n].tgid = (int32_t)tgids[ng - 1];
		if (p->tasks[i].comm && p->tasks[i].comm[0])
			th[n].name = p->tasks[i].comm;
		threads[n] = &th[n];
		if (++n == TREE_CHUNK) {
			put_tree(p, t0, NULL, 0, threads, n);
			n = 0;
		}
	}
	if (n)
		put_tree(p, t0, NULL, 0, threads, n);
	qsort(tgids, ng, sizeof(*tgids), cmp_u32);
	n = 0;
	for (size_t i = 0; i < ng; i++) {
		char raw[HWT_COMM_LEN + 16];

		if (i && tgids[i] == tgids[i - 1])
			continue;
		perfetto__protos__process_tree__process__init(&proc[n]);
		proc[n].has_pid = 1;
		proc[n].pid = (int32_t)tgids[i];
		hwt_conv_comm(raw, sizeof(raw), p->run.model, tgids[i]);
		if (raw[0]) {
			leader[n] = dup_sanitized(raw);
			if (!leader[n]) {
				fail(p, -ENOMEM);
				break;
			}
			cmd[n] = leader[n];
			proc[n].n_cmdline = 1;
			proc[n].cmdline = &cmd[n];
		}
		procs[n] = &proc[n];
		if (++n == TREE_CHUNK || i + 1 == ng) {
			put_tree(p, t0, procs, n, NULL, 0);
			for (size_t k = 0; k < n; k++) {
				free(leader[k]);
				leader[k] = NULL;
			}
			n = 0;
		}
	}
	for (size_t k = 0; k < n; k++)
		free(leader[k]);
	free(tgids);
	return p->err;
}

static int pf_header(void *ctx, struct hwt_conv_run *run)
{
	struct pf *p = ctx;
	const struct hwt_trace_info *info = run->in->info;
	uint64_t t0;
	int ret;

	ret = hwt_names_build(&p->names, run->model, HWT_SAN_CTRL, NULL);
	if (ret)
		return ret;
	p->nr_tasks = hwt_model_count(run->model, HWT_ENT_TASK);
	p->tasks = calloc(p->nr_tasks + 1, sizeof(*p->tasks));
	if (!p->tasks)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_tasks; i++)
		p->tasks[i].prio = PRIO_DEFAULT;
	hwt_conv_ns_per_tick(info, &p->num, &p->den);
	t0 = ns(p, hwt_model_t0(run->model));
	put_system_info(p, info);
	put_clock_snapshot(p, info, t0);
	ret = put_process_tree(p, t0);
	return ret ? ret : p->ob.err;
}

/* The end: pending bundles, slices still open, losses never followed. */
static void pf_finish(struct pf *p)
{
	uint64_t end = hwt_model_t_end(p->run.model);
	const uint64_t *ow = p->run.in->info->overwritten;

	for (size_t i = 0; p->tasks && i < p->nr_tasks; i++) {
		if (p->tasks[i].lock_open) {
			uint32_t tid = hwt_model_id(p->run.model, HWT_ENT_TASK, i);

			track_event(p, end, thread_track(p, tid), END, NULL, NULL, NULL, 0);
			p->tasks[i].lock_open = false;
		}
	}
	for (uint32_t c = 0; c < p->nr_cpus; c++) {
		struct pf_cpu *pc = &p->cpus[c];

		for (; pc->vec_depth; pc->vec_depth--)
			track_event(p, end, cpu_track(p, c), END, NULL, NULL, NULL, 0);
		if (!pc->seen && ow && ow[c])
			lost_mark(p, c, end, "overwritten", (int64_t)ow[c], -1, 0);
		bundle_flush(p, c);
	}
}

int hwt_conv_perfetto(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	struct pf p = { .run = { .in = in, .opts = opts, .rec = pf_rec },
			.first_packet = true };
	int ret;

	p.nr_cpus = in->info->nr_cpus;
	p.cpus = calloc(p.nr_cpus ? p.nr_cpus : 1, sizeof(*p.cpus));
	ret = p.cpus ? hwt_obuf_init(&p.ob, out, HWT_OBUF_OUT) : -ENOMEM;
	if (!ret)
		ret = hwt_conv_drive(&p.run, true, false, pf_mev, &p, pf_header);
	if (!ret) {
		pf_finish(&p);
		ret = p.err ? p.err : hwt_obuf_flush(&p.ob);
	}
	if (!ret && fflush(out))
		ret = -EIO;
	if (!ret && p.run.stream_err)
		ret = -EBADMSG;
	for (uint32_t c = 0; p.cpus && c < p.nr_cpus; c++)
		free(p.cpus[c].buf);
	free(p.cpus);
	for (size_t i = 0; p.tasks && i < p.nr_tasks; i++)
		free(p.tasks[i].comm);
	free(p.tasks);
	for (size_t i = 0; i < p.nr_irq_names; i++)
		free(p.irq_names[i]);
	free(p.irq_names);
	free(p.mk_uses.v);
	free(p.mk_args);
	hwt_names_free(&p.names);
	hwt_obuf_free(&p.ob);
	hwt_model_free(p.run.model);
	return ret;
}
