// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The Linux-to-timing-model state machine (include/hwt/model.h).
 *
 * Task states and the events that move between them; every arrow is one
 * model event, and nothing else is ever emitted for a task:
 *
 *                 ACTIVATE              START
 *   (UNKNOWN,  ------------>  ACTIVE  ---------->  RUNNING
 *    DORMANT,                                    |  ^  |   |
 *    DEAD)   <------------------------------------'  |  |   | WAIT (blocked
 *      ^            TERMINATE (blocked, exit)         |  |   v  on a lock)
 *      |                                     RESUME   |  | WAITING
 *      |                        READY  --------------'  |   |
 *      |                          ^     PREEMPT          |   | RELEASE
 *      |                          '----------------------'   |  (wakeup)
 *      |                          '--------------------------'
 *
 * Input the chart does not allow (a switch-in of a task we believed blocked,
 * a switch-out on a CPU where another task was running, an IRQ exit without
 * entry) is repaired by emitting the missing transitions first, flagged
 * HWT_MEVF_SYNTH.  Timing values are only taken from instances that have no
 * synthesized event, so repairs and the trace's edges never distort them.
 *
 * Entities live in per-kind arrays, found through one open-addressing hash
 * table keyed by (kind, id).  Memory grows with the number of entities,
 * never with the number of records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwt/events.h>
#include <hwt/model.h>

#define MODEL_HIDDEN	__attribute__((visibility("hidden")))
#define NONE		UINT32_MAX
#define MAX_NEST	32	/* ISR nesting we track per CPU */

enum tstate {
	T_UNKNOWN,	/* never seen */
	T_ACTIVE,	/* activated, not started */
	T_RUNNING,
	T_READY,	/* preempted */
	T_WAITING,	/* blocked on a lock inside its instance */
	T_DORMANT,	/* instance terminated, task alive */
	T_DEAD,		/* exited */
};

struct timing {
	struct hwt_stat v[HWT_NR_TIMING];
};

struct task {
	uint32_t tid;
	uint32_t idx;
	uint8_t state;
	bool exiting;
	bool contending;	/* between LOCK_WAIT and LOCK_ACQUIRE */
	bool inst_synth;	/* this instance has a synthesized event */
	bool started;		/* the instance has started */
	bool has_prio;		/* prio: its own (set_priority), not a boost */
	bool boosted;		/* boost: an inherited priority in force */
	bool rsusp;		/* its runnable is suspended */
	bool prev_start_ok;	/* prev_start is a real start (for DT) */
	bool from_preempt;	/* off the CPU by PREEMPT or WAIT (for PRE) */
	uint32_t cpu;		/* running on, or last ran on */
	uint32_t inst;		/* current instance */
	uint32_t ninst;		/* instances so far */
	uint32_t lock;
	uint32_t rvec;		/* its running softirq, or NONE */
	uint32_t rinst;
	int64_t prio;
	int64_t boost;
	uint64_t t_act, t_start, t_run, t_pre, prev_start, cet;
};

struct isr {
	uint32_t id;
	uint32_t idx;
	uint32_t ninst;
	bool prev_start_ok;
	uint64_t prev_start;
};

struct simple {			/* runnables, locks */
	uint32_t id;
	uint32_t idx;
	uint32_t ninst;
};

struct marker {
	struct hwt_marker_info info;
	uint32_t id;
	uint32_t idx;
};

struct counter {
	struct hwt_counter_info info;
	uint32_t id;
	uint32_t idx;
};

struct frame {			/* one ISR in progress on a CPU */
	uint32_t isr;		/* index in m->isrs */
	uint32_t inst;
	bool synth;
	bool from_preempt;
	uint64_t t_start, t_run, t_pre, cet;
};

struct cpu {
	uint32_t cur;		/* index in m->tasks, or NONE */
	uint32_t depth;		/* frames in use */
	struct frame stack[MAX_NEST];
	uint64_t lost_raw;	/* last LOST total (par1 << 32 | par2) */
	uint64_t lost;		/* running total for this CPU */
	bool seen;		/* a record of this CPU was fed (this pass) */
	/*
	 * Learned in pass 1 from this CPU's first records, replayed at its
	 * first record in pass 2.  What ran when the trace started is settled
	 * by its first ID record or context switch (the prev), an ISR in
	 * progress by its first ISR record (an exit without entry) or switch
	 * (none can be in progress then).
	 */
	uint8_t settled;	/* SETTLED_* */
	uint32_t init_task;	/* running at the start, or NONE */
	uint32_t init_isr;	/* in progress at the start, or NONE */
};

#define SETTLED_TASK	0x1
#define SETTLED_ISR	0x2
#define SETTLED_ALL	(SETTLED_TASK | SETTLED_ISR)

struct vec {
	void *a;
	size_t n, cap, size;
};

struct hwt_model {
	const struct hwt_trace_info *info;
	struct hwt_stream *names;
	hwt_mev_fn sink;
	void *sink_ctx;
	bool stats;
	bool learned;		/* pass 1 done: replay the start state */
	uint32_t nr_settled;	/* CPUs whose start state is known */
	uint32_t nr_cpus;
	struct cpu *cpus;
	struct vec ent[HWT_NR_ENT_KINDS];
	struct vec timing[2];	/* [0] tasks, [1] ISRs; parallel to ent[] */
	uint32_t *order[HWT_NR_ENT_KINDS];	/* idx -> array index (sorted) */
	size_t nr_order[HWT_NR_ENT_KINDS];	/* entities sorted; later ones: idx = index */
	/* hash: key (kind << 32 | id) + 1, value: index in ent[kind] */
	uint64_t *hkeys;
	uint32_t *hvals;
	size_t hcap, hn;
	uint64_t t0, t_end;
	bool any;
	uint64_t lost_total;
	uint64_t nr_bad_cpu;	/* records of a CPU >= nr_cpus, dropped */
	const struct hwt_record *rec;	/* the record being fed */
	int err;
};

static const size_t ent_size[HWT_NR_ENT_KINDS] = {
	[HWT_ENT_TASK] = sizeof(struct task),
	[HWT_ENT_ISR] = sizeof(struct isr),
	[HWT_ENT_RUNNABLE] = sizeof(struct simple),
	[HWT_ENT_LOCK] = sizeof(struct simple),
	[HWT_ENT_MARKER] = sizeof(struct marker),
	[HWT_ENT_COUNTER] = sizeof(struct counter),
};

static const struct {
	const char *name;
	enum hwt_entity_kind kind;
} mev_desc[HWT_NR_MEV] = {
	[HWT_MEV_TASK_CREATE] = { "task_create", HWT_ENT_TASK },
	[HWT_MEV_TASK_ACTIVATE] = { "task_activate", HWT_ENT_TASK },
	[HWT_MEV_TASK_START] = { "task_start", HWT_ENT_TASK },
	[HWT_MEV_TASK_PREEMPT] = { "task_preempt", HWT_ENT_TASK },
	[HWT_MEV_TASK_RESUME] = { "task_resume", HWT_ENT_TASK },
	[HWT_MEV_TASK_WAIT] = { "task_wait", HWT_ENT_TASK },
	[HWT_MEV_TASK_RELEASE] = { "task_release", HWT_ENT_TASK },
	[HWT_MEV_TASK_TERMINATE] = { "task_terminate", HWT_ENT_TASK },
	[HWT_MEV_TASK_DELETE] = { "task_delete", HWT_ENT_TASK },
	[HWT_MEV_ISR_START] = { "isr_start", HWT_ENT_ISR },
	[HWT_MEV_ISR_PREEMPT] = { "isr_preempt", HWT_ENT_ISR },
	[HWT_MEV_ISR_RESUME] = { "isr_resume", HWT_ENT_ISR },
	[HWT_MEV_ISR_TERMINATE] = { "isr_terminate", HWT_ENT_ISR },
	[HWT_MEV_RUN_START] = { "runnable_start", HWT_ENT_RUNNABLE },
	[HWT_MEV_RUN_SUSPEND] = { "runnable_suspend", HWT_ENT_RUNNABLE },
	[HWT_MEV_RUN_RESUME] = { "runnable_resume", HWT_ENT_RUNNABLE },
	[HWT_MEV_RUN_TERMINATE] = { "runnable_terminate", HWT_ENT_RUNNABLE },
	[HWT_MEV_MARKER] = { "marker", HWT_ENT_MARKER },
	[HWT_MEV_COUNTER] = { "counter", HWT_ENT_COUNTER },
	[HWT_MEV_LOCK_WAIT] = { "lock_wait", HWT_ENT_LOCK },
	[HWT_MEV_LOCK_ACQUIRE] = { "lock_acquire", HWT_ENT_LOCK },
	[HWT_MEV_LOCK_RELEASE] = { "lock_release", HWT_ENT_LOCK },
	[HWT_MEV_PRIORITY] = { "priority", HWT_ENT_TASK },
	[HWT_MEV_LOST] = { "lost", HWT_ENT_NONE },
};

enum hwt_entity_kind hwt_mev_kind(unsigned int type)
{
	return type < HWT_NR_MEV ? mev_desc[type].kind : HWT_ENT_NONE;
}

const char *hwt_mev_name(unsigned int type)
{
	return type < HWT_NR_MEV ? mev_desc[type].name : NULL;
}

/* --- storage ----------------------------------------------------------------- */

static inline void *vec_at(const struct vec *v, size_t i)
{
	return (char *)v->a + i * v->size;
}

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		void *a = realloc(v->a, cap * v->size);

		if (!a)
			return NULL;
		v->a = a;
		v->cap = cap;
	}
	memset(vec_at(v, v->n), 0, v->size);
	return vec_at(v, v->n++);
}

static inline uint64_t hkey(enum hwt_entity_kind kind, uint32_t id)
{
	return ((uint64_t)kind << 32 | id) + 1;
}

static inline size_t hslot(uint64_t key, size_t cap)
{
	key *= 0x9E3779B97F4A7C15ull;	/* Fibonacci hashing */
	return (size_t)(key >> 32) & (cap - 1);
}

/* The table exists from hwt_model_new() on: no test for an empty one. */
static inline uint32_t hfind(const struct hwt_model *m,
			     enum hwt_entity_kind kind, uint32_t id)
{
	uint64_t key = hkey(kind, id);

	for (size_t i = hslot(key, m->hcap);; i = (i + 1) & (m->hcap - 1)) {
		if (m->hkeys[i] == key)
			return m->hvals[i];
		if (!m->hkeys[i])
			return NONE;
	}
}

static int hgrow(struct hwt_model *m)
{
	size_t cap = m->hcap ? 2 * m->hcap : 1024;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->hcap; i++) {
		size_t j;

		if (!m->hkeys[i])
			continue;
		for (j = hslot(m->hkeys[i], cap); keys[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = m->hkeys[i];
		vals[j] = m->hvals[i];
	}
	free(m->hkeys);
	free(m->hvals);
	m->hkeys = keys;
	m->hvals = vals;
	m->hcap = cap;
	return 0;
}

static int hput(struct hwt_model *m, uint64_t key, uint32_t val)
{
	if (2 * (m->hn + 1) > m->hcap && hgrow(m))
		return -ENOMEM;
	for (size_t i = hslot(key, m->hcap);; i = (i + 1) & (m->hcap - 1)) {
		if (!m->hkeys[i]) {
			m->hkeys[i] = key;
			m->hvals[i] = val;
			m->hn++;
			return 0;
		}
	}
}

static void *entity_new(struct hwt_model *m, enum hwt_entity_kind kind,
			uint32_t id, uint32_t *index);

/* The entity (kind, id), created on first sight; NULL only on ENOMEM. */
static inline void *entity(struct hwt_model *m, enum hwt_entity_kind kind,
			   uint32_t id, uint32_t *index)
{
	uint32_t i = hfind(m, kind, id);

	if (i == NONE)
		return entity_new(m, kind, id, index);
	if (index)
		*index = i;
	return vec_at(&m->ent[kind], i);
}

static void *entity_new(struct hwt_model *m, enum hwt_entity_kind kind,
			uint32_t id, uint32_t *index)
{
	uint32_t i = (uint32_t)m->ent[kind].n;
	void *e;

	e = vec_push(&m->ent[kind]);
	if (!e || hput(m, hkey(kind, id), i)) {
		if (e)
			m->ent[kind].n--;
		m->err = -ENOMEM;
		return NULL;
	}
	if (kind == HWT_ENT_TASK || kind == HWT_ENT_ISR) {
		struct vec *tv = &m->timing[kind == HWT_ENT_ISR];

		if (!vec_push(tv)) {
			m->err = -ENOMEM;
			return NULL;
		}
		for (int k = 0; k < HWT_NR_TIMING; k++)
			((struct timing *)vec_at(tv, i))->v[k].min = UINT64_MAX;
	}
	/* idx until hwt_model_sort(): first-seen order */
	switch (kind) {
	case HWT_ENT_TASK: {
		struct task *t = e;

		t->tid = id;
		t->idx = i;
		t->rvec = NONE;
		t->cpu = HWT_TID_IS_IDLE(id) ? id - HWT_TID_IDLE_BASE : 0;
		break;
	}
	case HWT_ENT_ISR:
		((struct isr *)e)->id = id;
		((struct isr *)e)->idx = i;
		break;
	case HWT_ENT_RUNNABLE:
	case HWT_ENT_LOCK:
		((struct simple *)e)->id = id;
		((struct simple *)e)->idx = i;
		break;
	case HWT_ENT_MARKER:
		((struct marker *)e)->id = id;
		((struct marker *)e)->idx = i;
		break;
	case HWT_ENT_COUNTER:
		((struct counter *)e)->id = id;
		((struct counter *)e)->idx = i;
		break;
	default:
		break;
	}
	if (index)
		*index = i;
	return e;
}

static inline struct task *task_at(struct hwt_model *m, uint32_t i)
{
	return (struct task *)m->ent[HWT_ENT_TASK].a + i;
}

static inline struct isr *isr_at(struct hwt_model *m, uint32_t i)
{
	return (struct isr *)m->ent[HWT_ENT_ISR].a + i;
}

static uint32_t tid_of(uint32_t pid, uint32_t cpu)
{
	return pid ? pid : HWT_TID_IDLE(cpu);
}

/* --- emitting ---------------------------------------------------------------- */

static void set_ctx(struct hwt_model *m, struct hwt_mev *ev, uint32_t cpu)
{
	struct cpu *c = &m->cpus[cpu];

	ev->ctx_kind = HWT_ENT_NONE;
	if (c->depth) {
		struct frame *f = &c->stack[c->depth - 1];
		struct isr *s = isr_at(m, f->isr);

		ev->ctx_kind = HWT_ENT_ISR;
		ev->ctx_id = s->id;
		ev->ctx_inst = f->inst;
		ev->ctx_idx = s->idx;
	} else if (c->cur != NONE) {
		struct task *t = task_at(m, c->cur);

		/* the idle task runs when nothing does */
		if (t->state == T_RUNNING && t->cpu == cpu &&
		    !HWT_TID_IS_IDLE(t->tid)) {
			ev->ctx_kind = HWT_ENT_TASK;
			ev->ctx_id = t->tid;
			ev->ctx_inst = t->inst;
			ev->ctx_idx = t->idx;
		}
	}
}

/* Pass 1 has no sink: the frequent events are not even built then. */
static void emit(struct hwt_model *m, struct hwt_mev *ev)
{
	if (!(ev->flags & HWT_MEVF_SYNTH))
		ev->rec = m->rec;
	if (m->sink)
		m->sink(m->sink_ctx, ev);
}

static void emit_task_ev(struct hwt_model *m, struct task *t, unsigned int type,
			 uint64_t ts, uint32_t cpu, unsigned int flags,
			 int64_t value)
{
	struct hwt_mev ev = {
		.ts = ts, .type = (uint16_t)type, .flags = (uint16_t)flags,
		.cpu = cpu, .id = t->tid, .inst = t->inst, .idx = t->idx,
		.value = value, .value2 = t->lock, .last_cpu = t->cpu,
	};

	/* the source of an activation; other task events have none */
	if (type == HWT_MEV_TASK_ACTIVATE)
		set_ctx(m, &ev, cpu);
	else
		ev.ctx_kind = HWT_ENT_NONE;
	emit(m, &ev);
}

/* Inline: pass 1 (no sink) pays one test, not a call. */
static inline void emit_task(struct hwt_model *m, struct task *t,
			     unsigned int type, uint64_t ts, uint32_t cpu,
			     unsigned int flags, int64_t value)
{
	if (m->sink)
		emit_task_ev(m, t, type, ts, cpu, flags, value);
}

static void stat_add(struct hwt_stat *s, uint64_t v)
{
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->sum += v;
	s->n++;
}

/* timing[0] is parallel to the task array */
static struct timing *task_timing(struct hwt_model *m, struct task *t)
{
	return vec_at(&m->timing[0], (size_t)(t - (struct task *)m->ent[HWT_ENT_TASK].a));
}

/* --- task transitions ----------------------------------------------------------- */

static void t_activate(struct hwt_model *m, struct task *t, uint64_t ts,
		       uint32_t cpu, unsigned int flags)
{
	t->inst = t->ninst++;
	t->state = T_ACTIVE;
	t->started = false;
	t->inst_synth = flags & HWT_MEVF_SYNTH;
	t->t_act = ts;
	t->cet = 0;
	t->contending = false;
	emit_task(m, t, HWT_MEV_TASK_ACTIVATE, ts, cpu, flags, 0);
}

static void run_event_ev(struct hwt_model *m, struct task *t, unsigned int type,
			 uint64_t ts, uint32_t cpu, unsigned int flags)
{
	struct hwt_mev ev = {
		.ts = ts, .type = (uint16_t)type, .flags = (uint16_t)flags,
		.cpu = cpu, .id = t->rvec, .inst = t->rinst,
		.ctx_kind = HWT_ENT_TASK, .ctx_id = t->tid, .ctx_inst = t->inst,
		.ctx_idx = t->idx,
	};
	uint32_t i = hfind(m, HWT_ENT_RUNNABLE, t->rvec);

	ev.idx = ((struct simple *)vec_at(&m->ent[HWT_ENT_RUNNABLE], i))->idx;
	emit(m, &ev);
}

static inline void run_event(struct hwt_model *m, struct task *t,
			     unsigned int type, uint64_t ts, uint32_t cpu,
			     unsigned int flags)
{
	if (m->sink)
		run_event_ev(m, t, type, ts, cpu, flags);
}

/* Take a running task off its CPU: PREEMPT, WAIT or TERMINATE. */
static void t_stop(struct hwt_model *m, struct task *t, unsigned int type,
		   uint64_t ts, unsigned int flags, int64_t state)
{
	uint32_t cpu = t->cpu;

	if (t->rvec != NONE && !t->rsusp) {
		if (type == HWT_MEV_TASK_TERMINATE) {
			run_event(m, t, HWT_MEV_RUN_TERMINATE, ts, cpu,
				  HWT_MEVF_SYNTH);
			t->rvec = NONE;
		} else {
			run_event(m, t, HWT_MEV_RUN_SUSPEND, ts, cpu,
				  flags & (HWT_MEVF_ISR | HWT_MEVF_SYNTH));
			t->rsusp = true;
		}
	}
	if (flags & HWT_MEVF_SYNTH)
		t->inst_synth = true;
	emit_task(m, t, type, ts, cpu, flags, state);
	if (m->stats) {
		struct timing *tm = task_timing(m, t);

		t->cet += ts - t->t_run;
		if (type == HWT_MEV_TASK_TERMINATE && !t->inst_synth) {
			stat_add(&tm->v[HWT_TIMING_CET], t->cet);
			stat_add(&tm->v[HWT_TIMING_GET], ts - t->t_start);
			stat_add(&tm->v[HWT_TIMING_RT], ts - t->t_act);
		}
	}
	t->t_pre = ts;
	/* ATF shows a wait as a preemption: PRE counts it up to the resume */
	t->from_preempt = type == HWT_MEV_TASK_PREEMPT || type == HWT_MEV_TASK_WAIT;
	switch (type) {
	case HWT_MEV_TASK_PREEMPT:
		t->state = T_READY;
		break;
	case HWT_MEV_TASK_WAIT:
		t->state = T_WAITING;
		break;
	default:
		t->state = T_DORMANT;
		t->rvec = NONE;
		break;
	}
	if (m->cpus[cpu].cur != NONE && task_at(m, m->cpus[cpu].cur) == t)
		m->cpus[cpu].cur = NONE;
}

static void t_release(struct hwt_model *m, struct task *t, uint64_t ts,
		      uint32_t cpu, unsigned int flags)
{
	if (flags & HWT_MEVF_SYNTH)
		t->inst_synth = true;
	emit_task(m, t, HWT_MEV_TASK_RELEASE, ts, cpu, flags, 0);
	t->state = T_READY;
}

static void cpu_put_off(struct hwt_model *m, uint32_t cpu, uint64_t ts);

/*
 * Put t on cpu (a switch-in, an ID record): START or RESUME, after whatever
 * the chart needs first.  Everything but the final START/RESUME is
 * synthesized; flags apply to that last event.
 */
static void t_run(struct hwt_model *m, struct task *t, uint64_t ts, uint32_t cpu,
		  unsigned int flags)
{
	unsigned int type;

	if (t->state == T_RUNNING) {
		if (t->cpu == cpu)
			return;
		/* still running elsewhere: its switch-out there was lost */
		t_stop(m, t, HWT_MEV_TASK_PREEMPT, ts, HWT_MEVF_SYNTH,
		       HWT_STATE_RUNNABLE);
	}
	if (t->state == T_WAITING)
		t_release(m, t, ts, cpu, HWT_MEVF_SYNTH);
	if (t->state != T_ACTIVE && t->state != T_READY)
		t_activate(m, t, ts, cpu, HWT_MEVF_SYNTH);
	/* whoever we thought ran here was switched out unseen */
	if (m->cpus[cpu].cur != NONE && task_at(m, m->cpus[cpu].cur) != t)
		cpu_put_off(m, cpu, ts);
	type = t->state == T_ACTIVE ? HWT_MEV_TASK_START : HWT_MEV_TASK_RESUME;
	if (flags & HWT_MEVF_SYNTH)
		t->inst_synth = true;
	t->state = T_RUNNING;
	t->cpu = cpu;
	m->cpus[cpu].cur = (uint32_t)(((char *)t - (char *)m->ent[HWT_ENT_TASK].a) /
				      sizeof(*t));
	if (m->stats) {
		struct timing *tm = task_timing(m, t);

		if (type == HWT_MEV_TASK_START) {
			bool real = !(flags & HWT_MEVF_SYNTH) && !t->inst_synth;

			if (real)
				stat_add(&tm->v[HWT_TIMING_IPT], ts - t->t_act);
			if (real && t->prev_start_ok)
				stat_add(&tm->v[HWT_TIMING_DT], ts - t->prev_start);
			t->prev_start_ok = real;
			t->prev_start = ts;
			t->t_start = ts;
		} else if (t->from_preempt && !t->inst_synth &&
			   !(flags & HWT_MEVF_SYNTH)) {
			stat_add(&tm->v[HWT_TIMING_PRE], ts - t->t_pre);
		}
		t->t_run = ts;
	}
	t->started = true;
	emit_task(m, t, type, ts, cpu, flags, 0);
	if (t->rvec != NONE && t->rsusp) {
		run_event(m, t, HWT_MEV_RUN_RESUME, ts, cpu,
			  flags & (HWT_MEVF_ISR | HWT_MEVF_SYNTH));
		t->rsusp = false;
	}
}

/* The CPU's current task was switched out without a record: preempt it. */
static void cpu_put_off(struct hwt_model *m, uint32_t cpu, uint64_t ts)
{
	struct cpu *c = &m->cpus[cpu];
	struct task *t;

	if (c->cur == NONE)
		return;
	t = task_at(m, c->cur);
	c->cur = NONE;
	if (t->state == T_RUNNING && t->cpu == cpu)
		t_stop(m, t, HWT_MEV_TASK_PREEMPT, ts, HWT_MEVF_SYNTH,
		       HWT_STATE_RUNNABLE);
}

/* --- ISRs -------------------------------------------------------------------- */

static void emit_isr_ev(struct hwt_model *m, struct frame *f, unsigned int type,
			uint64_t ts, uint32_t cpu, unsigned int flags)
{
	struct isr *s = isr_at(m, f->isr);
	struct hwt_mev ev = {
		.ts = ts, .type = (uint16_t)type, .flags = (uint16_t)flags,
		.cpu = cpu, .id = s->id, .inst = f->inst, .idx = s->idx,
		.ctx_kind = HWT_ENT_NONE,	/* not "task index 0" */
	};

	emit(m, &ev);
}

static inline void emit_isr(struct hwt_model *m, struct frame *f,
			    unsigned int type, uint64_t ts, uint32_t cpu,
			    unsigned int flags)
{
	if (flags & HWT_MEVF_SYNTH)
		f->synth = true;
	if (m->sink)
		emit_isr_ev(m, f, type, ts, cpu, flags);
}

static struct timing *isr_timing(struct hwt_model *m, uint32_t i)
{
	return vec_at(&m->timing[1], i);
}

/* The interrupted context: the nested ISR, or the task (with its runnable). */
static void isr_enter(struct hwt_model *m, uint32_t cpu, uint32_t id, uint64_t ts,
		      unsigned int flags)
{
	struct cpu *c = &m->cpus[cpu];
	struct frame *f;
	struct isr *s;
	uint32_t i;

	s = entity(m, HWT_ENT_ISR, id, &i);
	if (!s)
		return;
	if (c->depth == MAX_NEST)
		return;		/* deeper than any real machine nests */
	if (c->depth) {
		f = &c->stack[c->depth - 1];
		emit_isr(m, f, HWT_MEV_ISR_PREEMPT, ts, cpu, flags);
		f->cet += ts - f->t_run;
		f->t_pre = ts;
		f->from_preempt = true;
	} else if (c->cur != NONE) {
		struct task *t = task_at(m, c->cur);

		if (t->state == T_RUNNING && t->cpu == cpu) {
			t_stop(m, t, HWT_MEV_TASK_PREEMPT, ts, flags | HWT_MEVF_ISR,
			       HWT_STATE_RUNNABLE);
			c->cur = (uint32_t)(t - (struct task *)m->ent[HWT_ENT_TASK].a);
		}
	}
	f = &c->stack[c->depth++];
	memset(f, 0, sizeof(*f));
	f->isr = i;
	f->inst = s->ninst++;
	f->t_start = ts;
	f->t_run = ts;
	emit_isr(m, f, HWT_MEV_ISR_START, ts, cpu, flags);
	if (m->stats) {
		if (!(flags & HWT_MEVF_SYNTH) && s->prev_start_ok)
			stat_add(&isr_timing(m, i)->v[HWT_TIMING_DT],
				 ts - s->prev_start);
		s->prev_start_ok = !(flags & HWT_MEVF_SYNTH);
		s->prev_start = ts;
	}
}

/* Pop the top frame: TERMINATE it, RESUME what it interrupted. */
static void isr_pop(struct hwt_model *m, uint32_t cpu, uint64_t ts,
		    unsigned int flags)
{
	struct cpu *c = &m->cpus[cpu];
	struct frame *f = &c->stack[c->depth - 1];

	emit_isr(m, f, HWT_MEV_ISR_TERMINATE, ts, cpu, flags);
	if (m->stats && !f->synth) {
		struct timing *tm = isr_timing(m, f->isr);

		f->cet += ts - f->t_run;
		stat_add(&tm->v[HWT_TIMING_CET], f->cet);
		stat_add(&tm->v[HWT_TIMING_GET], ts - f->t_start);
	}
	c->depth--;
	if (c->depth) {
		f = &c->stack[c->depth - 1];
		emit_isr(m, f, HWT_MEV_ISR_RESUME, ts, cpu, flags);
		if (m->stats && f->from_preempt && !f->synth)
			stat_add(&isr_timing(m, f->isr)->v[HWT_TIMING_PRE],
				 ts - f->t_pre);
		f->t_run = ts;
	} else if (c->cur != NONE) {
		struct task *t = task_at(m, c->cur);

		if (t->state == T_READY)
			t_run(m, t, ts, cpu, flags | HWT_MEVF_ISR);
	}
}

static void isr_exit(struct hwt_model *m, uint32_t cpu, uint32_t id, uint64_t ts)
{
	struct cpu *c = &m->cpus[cpu];
	uint32_t i;
	int k;

	/* usually the innermost one exits: no lookup */
	if (c->depth && isr_at(m, c->stack[c->depth - 1].isr)->id == id) {
		isr_pop(m, cpu, ts, 0);
		return;
	}
	i = hfind(m, HWT_ENT_ISR, id);
	for (k = (int)c->depth - 1; k >= 0; k--)
		if (c->stack[k].isr == i)
			break;
	if (k < 0) {
		/* an exit without entry: the trace started inside it? */
		if (!m->learned && !(c->settled & SETTLED_ISR) && c->depth == 0)
			c->init_isr = id;
		isr_enter(m, cpu, id, ts, HWT_MEVF_SYNTH);
		if (!c->depth || isr_at(m, c->stack[c->depth - 1].isr)->id != id)
			return;
		k = (int)c->depth - 1;
	}
	while ((int)c->depth - 1 > k)
		isr_pop(m, cpu, ts, HWT_MEVF_SYNTH);	/* their exits were lost */
	isr_pop(m, cpu, ts, 0);
}

/* A context switch cannot happen inside an ISR: close what is open. */
static void isr_close_all(struct hwt_model *m, uint32_t cpu, uint64_t ts)
{
	while (m->cpus[cpu].depth)
		isr_pop(m, cpu, ts, HWT_MEVF_SYNTH);
}

/* --- records ----------------------------------------------------------------- */

static inline struct task *task_of(struct hwt_model *m, uint32_t pid, uint32_t cpu)
{
	uint32_t tid = tid_of(pid & HWT_PID_MASK, cpu), i = hfind(m, HWT_ENT_TASK, tid);

	if (i != NONE)
		return task_at(m, i);
	return entity_new(m, HWT_ENT_TASK, tid, NULL);
}

/* Pass 1: what a CPU's first records say about its start is known. */
static void settle(struct hwt_model *m, struct cpu *c, uint8_t what)
{
	if (m->learned || (c->settled & what) == what)
		return;
	c->settled |= what;
	if (c->settled == SETTLED_ALL)
		m->nr_settled++;
}

static void do_switch(struct hwt_model *m, const struct hwt_record *r)
{
	uint32_t cpu = r->cpu;
	uint32_t prev = HWT_SWITCH_PREV(&r->ev), next = HWT_SWITCH_NEXT(&r->ev);
	uint32_t state = HWT_SWITCH_STATE(&r->ev);
	struct task *tp, *tn;
	unsigned int type;

	isr_close_all(m, cpu, r->ts);
	/* usually prev is who we know runs here: no lookup */
	if (m->cpus[cpu].cur != NONE &&
	    task_at(m, m->cpus[cpu].cur)->tid == tid_of(prev, cpu))
		tp = task_at(m, m->cpus[cpu].cur);
	else
		tp = task_of(m, prev, cpu);
	if (!tp)
		return;
	/* the first switch: prev ran since the start, no ISR was in progress */
	if (!m->learned && !(m->cpus[cpu].settled & SETTLED_TASK))
		m->cpus[cpu].init_task = (uint32_t)(tp - (struct task *)m->ent[HWT_ENT_TASK].a);
	settle(m, &m->cpus[cpu], SETTLED_ALL);
	if (tp->state != T_RUNNING || tp->cpu != cpu)
		t_run(m, tp, r->ts, cpu, HWT_MEVF_SYNTH);
	if (state == HWT_STATE_DEAD || tp->exiting)
		type = HWT_MEV_TASK_TERMINATE;
	else if (state == HWT_STATE_RUNNABLE)
		type = HWT_MEV_TASK_PREEMPT;
	else if (tp->contending)
		type = HWT_MEV_TASK_WAIT;
	else
		type = HWT_MEV_TASK_TERMINATE;
	t_stop(m, tp, type, r->ts, 0, (int64_t)state);
	if (type == HWT_MEV_TASK_TERMINATE && (state == HWT_STATE_DEAD || tp->exiting)) {
		tp->exiting = false;
		tp->state = T_DEAD;
		emit_task(m, tp, HWT_MEV_TASK_DELETE, r->ts, cpu, 0, 0);
	}
	tn = task_of(m, next, cpu);
	if (!tn)
		return;
	tp = NULL;		/* entity() may have moved the array */
	t_run(m, tn, r->ts, cpu, 0);
}

static void do_wakeup(struct hwt_model *m, const struct hwt_record *r)
{
	struct task *t = task_of(m, r->ev.par2, r->cpu);

	if (!r->ev.par2 || !t)
		return;		/* idle is never woken */
	switch (t->state) {
	case T_UNKNOWN:
	case T_DORMANT:
	case T_DEAD:
		t_activate(m, t, r->ts, r->cpu,
			   r->ev.par1 & HWT_ACTIVATE_NEW ? HWT_MEVF_NEW : 0);
		break;
	case T_WAITING:
		t_release(m, t, r->ts, r->cpu, 0);
		break;
	default:
		break;		/* already runnable or running */
	}
}

static void do_id(struct hwt_model *m, const struct hwt_record *r)
{
	uint32_t cpu = r->cpu;
	struct task *t = task_of(m, r->ev.par2, cpu);

	if (!t)
		return;
	if (!m->learned && !(m->cpus[cpu].settled & SETTLED_TASK))
		m->cpus[cpu].init_task = (uint32_t)(t - (struct task *)m->ent[HWT_ENT_TASK].a);
	settle(m, &m->cpus[cpu], SETTLED_TASK);
	if (t->state == T_RUNNING && t->cpu == cpu)
		return;
	/* interrupted right now: the ISR's exit resumes it */
	if (m->cpus[cpu].depth && m->cpus[cpu].cur != NONE &&
	    task_at(m, m->cpus[cpu].cur) == t)
		return;
	isr_close_all(m, cpu, r->ts);
	t_run(m, t, r->ts, cpu, HWT_MEVF_SYNTH);
}

static void do_create(struct hwt_model *m, const struct hwt_record *r)
{
	struct task *t = task_of(m, r->ev.par2, r->cpu);

	if (!r->ev.par2 || !t)
		return;
	/* pid reuse with an instance still open: its end was lost */
	if (t->state == T_RUNNING)
		t_stop(m, t, HWT_MEV_TASK_TERMINATE, r->ts, HWT_MEVF_SYNTH,
		       HWT_STATE_DEAD);
	else if (t->state == T_ACTIVE || t->state == T_READY || t->state == T_WAITING)
		emit_task(m, t, HWT_MEV_TASK_TERMINATE, r->ts, r->cpu,
			  HWT_MEVF_SYNTH, HWT_STATE_DEAD);
	t->state = T_DORMANT;
	t->exiting = false;
	t->rvec = NONE;
	emit_task(m, t, HWT_MEV_TASK_CREATE, r->ts, r->cpu, 0, 0);
}

static void do_exit(struct hwt_model *m, const struct hwt_record *r)
{
	struct task *t = task_of(m, r->ev.par2, r->cpu);

	if (!r->ev.par2 || !t)
		return;
	if (t->state == T_RUNNING) {
		t->exiting = true;	/* the final switch-out terminates */
		return;
	}
	if (t->state == T_ACTIVE || t->state == T_READY || t->state == T_WAITING) {
		emit_task(m, t, HWT_MEV_TASK_TERMINATE, r->ts, r->cpu,
			  HWT_MEVF_SYNTH, HWT_STATE_DEAD);
	}
	if (t->state != T_DEAD) {
		t->state = T_DEAD;
		emit_task(m, t, HWT_MEV_TASK_DELETE, r->ts, r->cpu, 0, 0);
	}
}

static void do_softirq(struct hwt_model *m, const struct hwt_record *r, bool start)
{
	struct cpu *c = &m->cpus[r->cpu];
	struct task *t;
	struct simple *s = NULL;
	uint32_t vec = r->ev.par1;

	/*
	 * A runnable belongs to the task it runs in; none known: skip it.  The
	 * entity exists either way, so that pass 1, which may know less of
	 * what runs, finds every runnable pass 2 uses.
	 */
	if (start) {
		s = entity(m, HWT_ENT_RUNNABLE, vec, NULL);
		if (!s)
			return;
	}
	if (c->depth || c->cur == NONE)
		return;
	t = task_at(m, c->cur);
	if (t->state != T_RUNNING || t->cpu != r->cpu)
		return;
	if (!start) {
		if (t->rvec == vec && !t->rsusp) {
			run_event(m, t, HWT_MEV_RUN_TERMINATE, r->ts, r->cpu, 0);
			t->rvec = NONE;
		}
		return;
	}
	if (t->rvec != NONE)
		run_event(m, t, HWT_MEV_RUN_TERMINATE, r->ts, r->cpu, HWT_MEVF_SYNTH);
	t->rvec = vec;
	t->rinst = s->ninst++;
	t->rsusp = false;
	run_event(m, t, HWT_MEV_RUN_START, r->ts, r->cpu, 0);
}

static void do_lock(struct hwt_model *m, const struct hwt_record *r,
		    unsigned int type)
{
	struct cpu *c = &m->cpus[r->cpu];
	struct simple *l = entity(m, HWT_ENT_LOCK, r->ev.par2, NULL);
	struct hwt_mev ev = {
		.ts = r->ts, .type = (uint16_t)type, .cpu = r->cpu,
		.id = r->ev.par2, .value = r->ev.par1,
	};

	if (!l)
		return;
	ev.idx = l->idx;
	ev.inst = type == HWT_MEV_LOCK_WAIT ? l->ninst++ :
		  (l->ninst ? l->ninst - 1 : 0);
	set_ctx(m, &ev, r->cpu);
	/* only a task can block on a lock; in an ISR it spins */
	if (ev.ctx_kind == HWT_ENT_TASK && type != HWT_MEV_LOCK_RELEASE) {
		struct task *t = task_at(m, c->cur);

		t->contending = type == HWT_MEV_LOCK_WAIT;
		t->lock = r->ev.par2;
	}
	emit(m, &ev);
}

static void do_marker(struct hwt_model *m, const struct hwt_record *r, bool numbered,
		      uint32_t number, int64_t value, uint64_t value2)
{
	uint16_t code = HWT_CODE(r->ev.code);
	uint32_t key = (uint32_t)code << 16 | (numbered ? (number & 0xFFFF) : 0);
	uint32_t i = hfind(m, HWT_ENT_MARKER, key);
	struct marker *mk;
	struct hwt_mev ev;

	if (i == NONE) {
		/* ids are dense (table order), the hash key is (code, number) */
		uint32_t id = (uint32_t)m->ent[HWT_ENT_MARKER].n;

		mk = vec_push(&m->ent[HWT_ENT_MARKER]);
		if (!mk || hput(m, hkey(HWT_ENT_MARKER, key), id)) {
			m->err = -ENOMEM;
			return;
		}
		mk->id = id;
		mk->idx = id;
		mk->info.code = code;
		mk->info.numbered = numbered;
		mk->info.number = numbered ? (number & 0xFFFF) : 0;
		i = id;
	}
	if (!m->sink)
		return;
	mk = vec_at(&m->ent[HWT_ENT_MARKER], i);
	ev = (struct hwt_mev){
		.ts = r->ts, .type = HWT_MEV_MARKER, .cpu = r->cpu,
		.value = value, .value2 = value2,
	};
	ev.id = mk->id;
	ev.idx = mk->idx;
	set_ctx(m, &ev, r->cpu);
	emit(m, &ev);
}

static void do_counter(struct hwt_model *m, const struct hwt_record *r,
		       uint32_t cpu, int64_t value)
{
	uint16_t code = HWT_CODE(r->ev.code);
	uint32_t key = (uint32_t)code << 16 | (cpu & 0xFFFF);
	uint32_t i = hfind(m, HWT_ENT_COUNTER, key);
	struct counter *ct;
	struct hwt_mev ev;

	if (i == NONE) {
		uint32_t id = (uint32_t)m->ent[HWT_ENT_COUNTER].n;

		ct = vec_push(&m->ent[HWT_ENT_COUNTER]);
		if (!ct || hput(m, hkey(HWT_ENT_COUNTER, key), id)) {
			m->err = -ENOMEM;
			return;
		}
		ct->id = id;
		ct->idx = id;
		ct->info.code = code;
		ct->info.cpu = cpu & 0xFFFF;
		i = id;
	}
	if (!m->sink)
		return;
	ct = vec_at(&m->ent[HWT_ENT_COUNTER], i);
	ev = (struct hwt_mev){
		.ts = r->ts, .type = HWT_MEV_COUNTER, .cpu = r->cpu, .value = value,
	};
	ev.id = ct->id;
	ev.idx = ct->idx;
	set_ctx(m, &ev, r->cpu);
	emit(m, &ev);
}

static void do_priority(struct hwt_model *m, const struct hwt_record *r)
{
	struct task *t = task_of(m, r->ev.par2, r->cpu);
	bool inherit = HWT_CODE(r->ev.code) == HWT_EV_INHERITANCE;
	/* the 16-bit field holds SCHED_DEADLINE's -1 as 65535 */
	int64_t prio = r->ev.par1 == 0xFFFF ? HWT_PRIO_DEADLINE : r->ev.par1;
	unsigned int flags = 0;

	if (!t)
		return;
	if (!inherit) {
		/* a boost is borrowed: only set_priority says the task's own */
		t->prio = prio;
		t->has_prio = true;
	} else if ((t->has_prio && prio == t->prio) ||
		   (t->boosted && prio > t->boost)) {
		/*
		 * pi_setprio back to the task's own priority, or to a less
		 * urgent one than the boost it had: the boost ends or lessens
		 */
		flags = HWT_MEVF_INHERIT | HWT_MEVF_DISINHERIT;
		t->boosted = !(t->has_prio && prio == t->prio);
		t->boost = prio;
	} else {
		flags = HWT_MEVF_INHERIT;
		t->boosted = true;
		t->boost = prio;
	}
	emit_task(m, t, HWT_MEV_PRIORITY, r->ts, r->cpu, flags, prio);
}

static void lost_add(struct hwt_model *m, uint32_t cpu, uint64_t delta,
		     uint64_t ts, unsigned int flags)
{
	struct hwt_mev ev = {
		.ts = ts, .type = HWT_MEV_LOST, .flags = (uint16_t)flags,
		.cpu = cpu, .id = cpu, .ctx_kind = HWT_ENT_NONE,
	};

	if (!delta)
		return;
	m->cpus[cpu].lost += delta;
	m->lost_total += delta;
	ev.value = (int64_t)m->cpus[cpu].lost;
	ev.value2 = m->lost_total;
	ev.inst = (uint32_t)delta;
	emit(m, &ev);
}

static void do_lost(struct hwt_model *m, const struct hwt_record *r)
{
	struct cpu *c = &m->cpus[r->cpu];
	uint64_t raw = (uint64_t)r->ev.par1 << 32 | r->ev.par2;
	/* a running total; a smaller value is a new counter (another chunk) */
	uint64_t delta = raw >= c->lost_raw ? raw - c->lost_raw : raw;

	c->lost_raw = raw;
	lost_add(m, r->cpu, delta, r->ts, 0);
}

/* Pass 2: what pass 1 learned was going on at this CPU's start. */
static void replay_start(struct hwt_model *m, uint32_t cpu, uint64_t ts)
{
	struct cpu *c = &m->cpus[cpu];

	if (c->init_task != NONE) {
		struct task *t = task_at(m, c->init_task);

		if (t->state == T_UNKNOWN)
			t_run(m, t, ts, cpu, HWT_MEVF_SYNTH);
	}
	if (c->init_isr != NONE)
		isr_enter(m, cpu, c->init_isr, ts, HWT_MEVF_SYNTH);
}

int hwt_model_feed(struct hwt_model *m, const struct hwt_record *r)
{
	uint16_t code = HWT_CODE(r->ev.code);
	struct cpu *c;

	if (r->cpu >= m->nr_cpus) {
		/* no core to put it on in any format: dropped, counted */
		m->nr_bad_cpu++;
		return 0;
	}
	if (!m->any) {
		m->any = true;
		m->t0 = r->ts;
	}
	if (r->ts > m->t_end)
		m->t_end = r->ts;
	m->rec = r;
	c = &m->cpus[r->cpu];
	if (!c->seen) {
		c->seen = true;
		if (m->learned)
			replay_start(m, r->cpu, r->ts);
	}
	switch (code) {
	case HWT_EV_TASK_SCHEDULE:
		do_switch(m, r);
		break;
	case HWT_EV_TASK_ACTIVATE:
		do_wakeup(m, r);
		break;
	case HWT_EV_ID:
		do_id(m, r);
		break;
	case HWT_EV_TASK_CREATE:
		do_create(m, r);
		break;
	case HWT_EV_TASK_END:
		do_exit(m, r);
		break;
	case HWT_EV_INTERRUPT_START:
		settle(m, c, SETTLED_ISR);
		isr_enter(m, r->cpu, r->ev.par1, r->ts, 0);
		break;
	case HWT_EV_INTERRUPT_END:
		isr_exit(m, r->cpu, r->ev.par1, r->ts);
		settle(m, c, SETTLED_ISR);
		break;
	case HWT_EV_VECTOR_START:
		settle(m, c, SETTLED_ISR);
		isr_enter(m, r->cpu, HWT_ISR_VECTOR(r->ev.par1 & 0xFFFF), r->ts, 0);
		break;
	case HWT_EV_VECTOR_END:
		isr_exit(m, r->cpu, HWT_ISR_VECTOR(r->ev.par1 & 0xFFFF), r->ts);
		settle(m, c, SETTLED_ISR);
		break;
	case HWT_EV_SOFTIRQ_START:
	case HWT_EV_SOFTIRQ_END:
		do_softirq(m, r, code == HWT_EV_SOFTIRQ_START);
		break;
	case HWT_EV_MUTEX_WAIT:
		do_lock(m, r, HWT_MEV_LOCK_WAIT);
		break;
	case HWT_EV_MUTEX_LOCK:
		do_lock(m, r, HWT_MEV_LOCK_ACQUIRE);
		break;
	case HWT_EV_MUTEX_UNLOCK:
		do_lock(m, r, HWT_MEV_LOCK_RELEASE);
		break;
	case HWT_EV_SET_PRIORITY:
	case HWT_EV_INHERITANCE:
		do_priority(m, r);
		break;
	case HWT_EV_LOST:
		do_lost(m, r);
		break;
	case HWT_EV_FREQUENCY:
		do_counter(m, r, r->ev.par1, r->ev.par2);
		break;
	case HWT_EV_IDLE_ENTER:
		do_counter(m, r, r->cpu, r->ev.par1);
		break;
	case HWT_EV_IDLE_EXIT:
		/* one idle-state counter per CPU: -1 is "not idle" */
		do_counter(m, &(struct hwt_record){ .ts = r->ts, .cpu = r->cpu,
			   .ev.code = HWT_EV_IDLE_ENTER }, r->cpu, -1);
		break;
	/* bookkeeping records: no event of the model */
	case HWT_EV_EMPTY:
	case HWT_EV_CYCLES_PER_MSEC:
	case HWT_EV_TRACE_START:
	case HWT_EV_TRACE_STOP:
	case HWT_EV_NUMEVENTS:
	case HWT_EV_NEXT_CHUNK:
		break;
	case HWT_EV_IPOINT:
		/* a "fast" ipoint has no par2 */
		do_marker(m, r, true, r->ev.par1,
			  r->ev.code & HWT_CODE_FAST ? 0 : r->ev.par2, r->ev.par1);
		break;
	case HWT_EV_SIGNAL:
	case HWT_EV_SIGNAL_DELIVER:
	case HWT_EV_TIMER_POST:
	case HWT_EV_TIMER_DELETE:
	case HWT_EV_TIMER_WAKEUP_START:
	case HWT_EV_TIMER_WAKEUP_END:
	case HWT_EV_SOFTIRQ_RAISE:
	case HWT_EV_INTERRUPT_HIT:
		/* numbered by par1 (signal, timer kind, vector, irq) */
		do_marker(m, r, true, r->ev.par1, r->ev.par2, r->ev.par1);
		break;
	default:
		if (HWT_IS_CONTROL(code))
			break;	/* filter changes */
		/* everything else, S.Ha.R.K.'s own codes included: a marker */
		do_marker(m, r, false, 0, r->ev.par2, r->ev.par1);
		break;
	}
	m->rec = NULL;
	return m->err;
}

int hwt_model_end(struct hwt_model *m)
{
	const uint64_t *lost = m->info ? m->info->lost : NULL;

	for (uint32_t cpu = 0; lost && cpu < m->nr_cpus; cpu++)
		if (lost[cpu] > m->cpus[cpu].lost)
			lost_add(m, cpu, lost[cpu] - m->cpus[cpu].lost, m->t_end,
				 HWT_MEVF_SYNTH | HWT_MEVF_END);
	return m->err;
}

int hwt_model_restart(struct hwt_model *m)
{
	if (m->err)
		return m->err;
	m->learned = true;
	hwt_model_sort(m);
	for (size_t i = 0; i < m->ent[HWT_ENT_TASK].n; i++) {
		struct task *t = task_at(m, (uint32_t)i);
		uint32_t tid = t->tid, idx = t->idx;
		bool has_prio = t->has_prio;
		int64_t prio = t->prio;

		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->idx = idx;
		t->has_prio = has_prio;
		t->prio = prio;
		t->rvec = NONE;
		t->cpu = HWT_TID_IS_IDLE(tid) ? tid - HWT_TID_IDLE_BASE : 0;
	}
	for (size_t i = 0; i < m->ent[HWT_ENT_ISR].n; i++) {
		struct isr *s = isr_at(m, (uint32_t)i);

		s->ninst = 0;
		s->prev_start_ok = false;
	}
	for (int k = HWT_ENT_RUNNABLE; k <= HWT_ENT_LOCK; k++)
		for (size_t i = 0; i < m->ent[k].n; i++)
			((struct simple *)vec_at(&m->ent[k], i))->ninst = 0;
	for (uint32_t cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct cpu *c = &m->cpus[cpu];

		c->cur = NONE;
		c->depth = 0;
		c->lost = 0;
		c->lost_raw = 0;
		c->seen = false;
	}
	m->lost_total = 0;
	m->nr_bad_cpu = 0;
	m->stats = false;	/* pass 1 measured; measuring again would double */
	m->any = false;
	return 0;
}

/* --- tables ------------------------------------------------------------------ */

static uint64_t sort_key(enum hwt_entity_kind kind, const void *e)
{
	switch (kind) {
	case HWT_ENT_TASK:
		return ((const struct task *)e)->tid;
	case HWT_ENT_ISR:
		return ((const struct isr *)e)->id;
	case HWT_ENT_RUNNABLE:
	case HWT_ENT_LOCK:
		return ((const struct simple *)e)->id;
	case HWT_ENT_MARKER: {
		const struct hwt_marker_info *i = &((const struct marker *)e)->info;

		return (uint64_t)i->code << 32 | i->number;
	}
	case HWT_ENT_COUNTER: {
		const struct hwt_counter_info *i = &((const struct counter *)e)->info;

		return (uint64_t)i->code << 32 | i->cpu;
	}
	default:
		return 0;
	}
}

static uint32_t ent_id(enum hwt_entity_kind kind, const void *e)
{
	switch (kind) {
	case HWT_ENT_TASK:
		return ((const struct task *)e)->tid;
	case HWT_ENT_ISR:
		return ((const struct isr *)e)->id;
	case HWT_ENT_MARKER:
		return ((const struct marker *)e)->id;
	case HWT_ENT_COUNTER:
		return ((const struct counter *)e)->id;
	default:
		return ((const struct simple *)e)->id;
	}
}

struct sort_ctx {
	const struct vec *v;
	enum hwt_entity_kind kind;
};

static int cmp_idx(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *sc = arg;
	uint64_t ka = sort_key(sc->kind, vec_at(sc->v, *(const uint32_t *)a));
	uint64_t kb = sort_key(sc->kind, vec_at(sc->v, *(const uint32_t *)b));

	return ka < kb ? -1 : ka > kb;
}

static void set_idx(struct hwt_model *m, enum hwt_entity_kind kind, uint32_t i,
		    uint32_t idx)
{
	void *e = vec_at(&m->ent[kind], i);

	switch (kind) {
	case HWT_ENT_TASK:
		((struct task *)e)->idx = idx;
		break;
	case HWT_ENT_ISR:
		((struct isr *)e)->idx = idx;
		break;
	case HWT_ENT_RUNNABLE:
	case HWT_ENT_LOCK:
		((struct simple *)e)->idx = idx;
		break;
	case HWT_ENT_MARKER:
		((struct marker *)e)->idx = idx;
		break;
	case HWT_ENT_COUNTER:
		((struct counter *)e)->idx = idx;
		break;
	default:
		break;
	}
}

/*
 * Sort order lives in ->idx; the arrays stay in first-seen order so that
 * indexes held elsewhere (hash values, CPU state) remain valid.  Entities
 * created after a sort are numbered on in first-seen order.
 */
void hwt_model_sort(struct hwt_model *m)
{
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++) {
		size_t n = m->ent[k].n;
		uint32_t *order = realloc(m->order[k], (n ? n : 1) * sizeof(*order));
		struct sort_ctx sc = { &m->ent[k], (enum hwt_entity_kind)k };

		if (!order) {
			m->err = -ENOMEM;
			return;
		}
		m->order[k] = order;
		m->nr_order[k] = n;
		for (size_t i = 0; i < n; i++)
			order[i] = (uint32_t)i;
		qsort_r(order, n, sizeof(*order), cmp_idx, &sc);
		for (size_t i = 0; i < n; i++)
			set_idx(m, (enum hwt_entity_kind)k, order[i], (uint32_t)i);
	}
}

size_t hwt_model_count(const struct hwt_model *m, enum hwt_entity_kind kind)
{
	return kind < HWT_NR_ENT_KINDS ? m->ent[kind].n : 0;
}

uint32_t hwt_model_id(const struct hwt_model *m, enum hwt_entity_kind kind,
		      size_t idx)
{
	if (kind >= HWT_NR_ENT_KINDS || idx >= m->ent[kind].n)
		return NONE;
	/* entities new since the last sort keep their first-seen index */
	if (idx < m->nr_order[kind])
		idx = m->order[kind][idx];
	return ent_id(kind, vec_at(&m->ent[kind], idx));
}

int64_t hwt_model_index(const struct hwt_model *m, enum hwt_entity_kind kind,
			uint32_t id)
{
	uint32_t i;

	if (kind >= HWT_NR_ENT_KINDS)
		return -1;
	if (kind == HWT_ENT_MARKER || kind == HWT_ENT_COUNTER)
		i = id < m->ent[kind].n ? id : NONE;	/* ids are array indexes */
	else
		i = hfind(m, kind, id);
	if (i == NONE)
		return -1;
	switch (kind) {
	case HWT_ENT_TASK:
		return ((const struct task *)vec_at(&m->ent[kind], i))->idx;
	case HWT_ENT_ISR:
		return ((const struct isr *)vec_at(&m->ent[kind], i))->idx;
	case HWT_ENT_MARKER:
		return ((const struct marker *)vec_at(&m->ent[kind], i))->idx;
	case HWT_ENT_COUNTER:
		return ((const struct counter *)vec_at(&m->ent[kind], i))->idx;
	default:
		return ((const struct simple *)vec_at(&m->ent[kind], i))->idx;
	}
}

bool hwt_model_start_known(const struct hwt_model *m)
{
	return m->learned || m->nr_settled == m->nr_cpus;
}

uint64_t hwt_model_nr_bad_cpu(const struct hwt_model *m)
{
	return m->nr_bad_cpu;
}

uint64_t hwt_model_t0(const struct hwt_model *m)
{
	return m->t0;
}

uint64_t hwt_model_t_end(const struct hwt_model *m)
{
	return m->t_end;
}

uint32_t hwt_model_nr_cpus(const struct hwt_model *m)
{
	return m->nr_cpus;
}

const struct hwt_trace_info *hwt_model_info(const struct hwt_model *m)
{
	return m->info;
}

struct hwt_stream *hwt_model_names(const struct hwt_model *m)
{
	return m->names;
}

const struct hwt_marker_info *hwt_model_marker(const struct hwt_model *m,
						uint32_t id)
{
	if (id >= m->ent[HWT_ENT_MARKER].n)
		return NULL;
	return &((const struct marker *)vec_at(&m->ent[HWT_ENT_MARKER], id))->info;
}

const struct hwt_counter_info *hwt_model_counter(const struct hwt_model *m,
						  uint32_t id)
{
	if (id >= m->ent[HWT_ENT_COUNTER].n)
		return NULL;
	return &((const struct counter *)vec_at(&m->ent[HWT_ENT_COUNTER], id))->info;
}

bool hwt_model_priority(const struct hwt_model *m, uint32_t tid, int64_t *prio)
{
	uint32_t i = hfind(m, HWT_ENT_TASK, tid);
	const struct task *t;

	if (i == NONE)
		return false;
	t = vec_at(&m->ent[HWT_ENT_TASK], i);
	if (!t->has_prio)
		return false;
	*prio = t->prio;
	return true;
}

const struct hwt_stat *hwt_model_timing(const struct hwt_model *m,
					enum hwt_entity_kind kind, uint32_t id)
{
	uint32_t i;

	if (kind != HWT_ENT_TASK && kind != HWT_ENT_ISR)
		return NULL;
	i = hfind(m, kind, id);
	if (i == NONE || i >= m->timing[kind == HWT_ENT_ISR].n)
		return NULL;
	return ((const struct timing *)vec_at(&m->timing[kind == HWT_ENT_ISR], i))->v;
}

/* --- life cycle -------------------------------------------------------------- */

int hwt_model_new(struct hwt_model **out, const struct hwt_trace_info *info,
		  struct hwt_stream *names)
{
	struct hwt_model *m;

	*out = NULL;
	if (!info || !info->nr_cpus || info->nr_cpus > 65536)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->info = info;
	m->names = names;
	m->nr_cpus = info->nr_cpus;
	m->cpus = calloc(m->nr_cpus, sizeof(*m->cpus));
	if (!m->cpus) {
		free(m);
		return -ENOMEM;
	}
	for (uint32_t cpu = 0; cpu < m->nr_cpus; cpu++) {
		m->cpus[cpu].cur = NONE;
		m->cpus[cpu].init_task = NONE;
		m->cpus[cpu].init_isr = NONE;
	}
	if (hgrow(m)) {
		hwt_model_free(m);
		return -ENOMEM;
	}
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++)
		m->ent[k].size = ent_size[k];
	m->timing[0].size = sizeof(struct timing);
	m->timing[1].size = sizeof(struct timing);
	*out = m;
	return 0;
}

void hwt_model_free(struct hwt_model *m)
{
	if (!m)
		return;
	free(m->cpus);
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++)
		free(m->ent[k].a);
	free(m->timing[0].a);
	free(m->timing[1].a);
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++)
		free(m->order[k]);
	free(m->hkeys);
	free(m->hvals);
	free(m);
}

void hwt_model_set_sink(struct hwt_model *m, hwt_mev_fn fn, void *ctx)
{
	m->sink = fn;
	m->sink_ctx = ctx;
}

void hwt_model_set_stats(struct hwt_model *m, bool on)
{
	m->stats = on;
}
