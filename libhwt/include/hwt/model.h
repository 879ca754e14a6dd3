/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libhwt: the Linux-to-timing-model state machine shared by all converters.
 *
 * Timing-analysis formats (HTF, BTF, ATF, ...) describe tasks and ISRs whose
 * instances follow a state chart: activate -> start -> (preempt -> resume)*
 * -> terminate.  Linux records wakeups and context switches.  The model turns
 * one into the other, record by record, and calls a sink with model events
 * (struct hwt_mev) in time order; every entity's event sequence it emits is
 * valid from its first event, whatever the input (lost events, a trace that
 * starts in the middle of things, garbage): what it has to infer it emits
 * with HWT_MEVF_SYNTH.
 *
 * The mapping (Documentation/hwtrace-formats.rst has the full chart):
 *
 *   sched_wakeup            -> TASK_ACTIVATE: a new instance (a "job")
 *   switch-in               -> TASK_START (first run of the instance) or RESUME
 *   switch-out, runnable    -> TASK_PREEMPT
 *   switch-out, blocked     -> TASK_TERMINATE: the job is done; the next
 *                              wakeup activates the next instance
 *   switch-out, blocked while contending for a lock
 *                           -> TASK_WAIT, and the wakeup is TASK_RELEASE
 *                              (the job is not done: it waits for the lock)
 *   exit                    -> TASK_TERMINATE then TASK_DELETE at the final
 *                              switch-out
 *   hard IRQ / x86 vector   -> ISR_START .. ISR_TERMINATE, nesting as
 *                              ISR_PREEMPT/RESUME; the interrupted task gets
 *                              TASK_PREEMPT/RESUME with HWT_MEVF_ISR
 *   softirq                 -> RUN_*: a runnable of the task it runs in
 *   ipoint, user, signal, timer, ... -> MARKER; frequency, idle -> COUNTER
 *   lock contention         -> LOCK_WAIT / LOCK_ACQUIRE (/ LOCK_RELEASE)
 *   LOST records, info->lost -> LOST (per-CPU and global running totals)
 *
 * pid 0 is one idle task per CPU, tid HWT_TID_IDLE(cpu).  The model keeps
 * its events (Tonbandgeraet has an idle task), but a CPU running it is
 * idle: it is never the executing context (ctx_kind HWT_ENT_NONE), and
 * formats without an idle task drop its events (hwt_mev_is_idle()).
 *
 * Converters run the model twice when the stream can rewind: pass 1 learns
 * what was running when the trace started on each CPU (its first ID record
 * or context switch) and which interrupt was in progress (an exit before
 * any other interrupt record or switch on it), and, when it reads the whole
 * stream, the entities (for header tables) and the per-task timing values;
 * hwt_model_restart() then keeps what was learned and pass 2 emits.  With
 * the learned start state, pass 2 synthesizes the initial activate/start
 * (and ISR start) at each CPU's first record; anything else (a task first
 * seen being switched in, and everything in a single pass) is synthesized
 * where it is first seen.  The start is known after a few records of each
 * CPU (hwt_model_start_known()): a converter that needs nothing else from
 * pass 1 stops it there.
 */
#ifndef HWT_MODEL_H
#define HWT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwt/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Task ids: the pid, except pid 0, which is one idle task per CPU. */
#define HWT_TID_IDLE_BASE	(1u << 22)	/* above any pid (PID_MAX_LIMIT) */
#define HWT_TID_IDLE(cpu)	(HWT_TID_IDLE_BASE + (cpu))
#define HWT_TID_IS_IDLE(tid)	((tid) >= HWT_TID_IDLE_BASE)
#define HWT_TID_PID(tid)	(HWT_TID_IS_IDLE(tid) ? 0 : (tid))

/* ISR ids: the irq number, or an x86 vector above all irq numbers. */
#define HWT_ISR_VECTOR_BASE	0x10000u
#define HWT_ISR_VECTOR(v)	(HWT_ISR_VECTOR_BASE + (v))
#define HWT_ISR_IS_VECTOR(id)	((id) >= HWT_ISR_VECTOR_BASE)

enum hwt_entity_kind {
	HWT_ENT_TASK,		/* id: tid */
	HWT_ENT_ISR,		/* id: irq, or HWT_ISR_VECTOR(vector) */
	HWT_ENT_RUNNABLE,	/* id: softirq number */
	HWT_ENT_LOCK,		/* id: the lock's 32-bit id */
	HWT_ENT_MARKER,		/* id: index in the marker table */
	HWT_ENT_COUNTER,	/* id: index in the counter table */
	HWT_NR_ENT_KINDS,
	HWT_ENT_NONE = HWT_NR_ENT_KINDS,
};

enum hwt_mev_type {
	HWT_MEV_TASK_CREATE,	/* fork: the tid is (re)born */
	HWT_MEV_TASK_ACTIVATE,
	HWT_MEV_TASK_START,
	HWT_MEV_TASK_PREEMPT,	/* value: the Linux state (HWT_STATE_RUNNABLE) */
	HWT_MEV_TASK_RESUME,
	HWT_MEV_TASK_WAIT,	/* value: Linux state; lock: ev->value2 */
	HWT_MEV_TASK_RELEASE,	/* last_cpu: where it waited */
	HWT_MEV_TASK_TERMINATE,	/* value: Linux state it left in */
	HWT_MEV_TASK_DELETE,	/* after the final TERMINATE of an exit */
	HWT_MEV_ISR_START,
	HWT_MEV_ISR_PREEMPT,	/* by a nested ISR */
	HWT_MEV_ISR_RESUME,
	HWT_MEV_ISR_TERMINATE,
	HWT_MEV_RUN_START,	/* ctx: the task it runs in */
	HWT_MEV_RUN_SUSPEND,
	HWT_MEV_RUN_RESUME,
	HWT_MEV_RUN_TERMINATE,
	HWT_MEV_MARKER,		/* value, value2: the record's parameters */
	HWT_MEV_COUNTER,	/* value: the new value */
	HWT_MEV_LOCK_WAIT,	/* contention begins */
	HWT_MEV_LOCK_ACQUIRE,	/* contention ends */
	HWT_MEV_LOCK_RELEASE,	/* unlock (S.Ha.R.K. mutex_unlock) */
	HWT_MEV_PRIORITY,	/* value: new priority of task id (hwt_prio_*) */
	HWT_MEV_LOST,		/* id: cpu; value: lost on it; value2: all CPUs */
	HWT_NR_MEV,
};

#define HWT_MEVF_SYNTH		0x01	/* inferred, not recorded */
#define HWT_MEVF_ISR		0x02	/* preempt/resume/suspend caused by an ISR */
#define HWT_MEVF_NEW		0x04	/* activation of a newly forked task */
#define HWT_MEVF_INHERIT	0x08	/* priority from inheritance */
#define HWT_MEVF_END		0x10	/* LOST: counted only in info->lost */
#define HWT_MEVF_DISINHERIT	0x20	/* PRIORITY: a boost ends (or lessens) */

struct hwt_mev {
	uint64_t ts;		/* clock ticks, as hwt_record.ts */
	uint16_t type;		/* enum hwt_mev_type */
	uint16_t flags;		/* HWT_MEVF_* */
	uint32_t cpu;		/* where it happened (output core) */
	uint32_t id;		/* entity of the type's kind (hwt_mev_kind()) */
	uint32_t inst;		/* instance of that entity, counted from 0 */
	uint32_t idx;		/* dense index of the entity (hwt_model_sort()) */
	uint32_t last_cpu;	/* TASK_RELEASE: core it last ran on */
	int64_t value;
	uint64_t value2;
	/*
	 * Who executes on cpu: the source of activations, markers, counters,
	 * locks and runnables (HWT_ENT_NONE in other events).
	 */
	uint32_t ctx_kind;	/* HWT_ENT_TASK, HWT_ENT_ISR or HWT_ENT_NONE */
	uint32_t ctx_id;
	uint32_t ctx_inst;
	uint32_t ctx_idx;
	const struct hwt_record *rec;	/* the record it came from, NULL if SYNTH */
};

/*
 * An event of a CPU's idle task (pid 0), or of a softirq run inside it: the
 * CPU is idle, not busy (Documentation/hwtrace-formats.rst, "Idle").
 */
static inline bool hwt_mev_is_idle(const struct hwt_mev *ev)
{
	if (ev->type <= HWT_MEV_TASK_DELETE)
		return HWT_TID_IS_IDLE(ev->id);
	return ev->type >= HWT_MEV_RUN_START && ev->type <= HWT_MEV_RUN_TERMINATE &&
	       HWT_TID_IS_IDLE(ev->ctx_id);
}

/*
 * Priorities are the kernel's: task_struct prio, 0..139, lower is more
 * urgent, -1 for SCHED_DEADLINE (recorded as 65535 in the 16-bit par1; the
 * model's PRIORITY value and hwt_model_priority() give -1).  OSEK, FreeRTOS
 * and ATF count the other way: hwt_prio_urgency() is 139 - prio, so 0 is
 * the least urgent (nice 19) and 140 SCHED_DEADLINE.
 */
#define HWT_PRIO_DEADLINE	(-1)
#define HWT_PRIO_MAX		139

static inline int64_t hwt_prio_urgency(int64_t prio)
{
	return HWT_PRIO_MAX - prio;
}

/* The entity kind of a model event's id. */
enum hwt_entity_kind hwt_mev_kind(unsigned int type);
/* "task_activate", ... for messages and tests. */
const char *hwt_mev_name(unsigned int type);

typedef void (*hwt_mev_fn)(void *ctx, const struct hwt_mev *ev);

struct hwt_model;

/*
 * names: the stream whose task()/irq_name() name entities (may be NULL).
 * info must outlive the model.
 */
int hwt_model_new(struct hwt_model **out, const struct hwt_trace_info *info,
		  struct hwt_stream *names);
void hwt_model_free(struct hwt_model *m);

/* Where events go; NULL drops them (pass 1). */
void hwt_model_set_sink(struct hwt_model *m, hwt_mev_fn fn, void *ctx);
/* Collect timing values (CET, GET, ...) from now on. */
void hwt_model_set_stats(struct hwt_model *m, bool on);

/* Feed the next record (time order).  0, or -ENOMEM. */
int hwt_model_feed(struct hwt_model *m, const struct hwt_record *rec);
/*
 * End of the records: emits LOST for what info->lost[] counts beyond the
 * LOST records, at the last timestamp.  0, or -ENOMEM.
 */
int hwt_model_end(struct hwt_model *m);
/*
 * Start pass 2: forget the running state, keep entities, indexes, timing
 * values and what pass 1 learned about the start of the trace.
 */
int hwt_model_restart(struct hwt_model *m);
/* Pass 1 has seen what every CPU was doing when the trace started. */
bool hwt_model_start_known(const struct hwt_model *m);

/* Entities seen so far, per kind, and their dense indexes. */
size_t hwt_model_count(const struct hwt_model *m, enum hwt_entity_kind kind);
/*
 * Give every entity its index: entities of a kind sorted by id (markers by
 * event code and number).  Done by hwt_model_restart(); events carry idx.
 * Entities created after a sort get the next indexes, in first-seen order.
 */
void hwt_model_sort(struct hwt_model *m);
/* The index of entity (kind, id), or -1 if unknown. */
int64_t hwt_model_index(const struct hwt_model *m, enum hwt_entity_kind kind,
			uint32_t id);
/* The id of the entity with index idx (after hwt_model_sort()). */
uint32_t hwt_model_id(const struct hwt_model *m, enum hwt_entity_kind kind,
		      size_t idx);

/*
 * Records of a CPU >= info->nr_cpus, which the model drops (one rule for
 * every format; the converters warn), counted in the current pass.
 */
uint64_t hwt_model_nr_bad_cpu(const struct hwt_model *m);

/* First and last timestamp fed (0 before any record). */
uint64_t hwt_model_t0(const struct hwt_model *m);
uint64_t hwt_model_t_end(const struct hwt_model *m);
uint32_t hwt_model_nr_cpus(const struct hwt_model *m);
const struct hwt_trace_info *hwt_model_info(const struct hwt_model *m);
struct hwt_stream *hwt_model_names(const struct hwt_model *m);

/* A marker: which event code (HWT_CODE()) and, if numbered, which number. */
struct hwt_marker_info {
	uint16_t code;
	bool numbered;		/* ipoint number, signal, timer kind, softirq */
	uint32_t number;
};
const struct hwt_marker_info *hwt_model_marker(const struct hwt_model *m,
						uint32_t id);
/* A counter: event code (frequency, idle_enter) and CPU. */
struct hwt_counter_info {
	uint16_t code;
	uint32_t cpu;
};
const struct hwt_counter_info *hwt_model_counter(const struct hwt_model *m,
						  uint32_t id);

/*
 * A task's own (base) priority: the last set_priority seen.  Priority
 * inheritance only lends a priority, so it never counts; false if none.
 */
bool hwt_model_priority(const struct hwt_model *m, uint32_t tid, int64_t *prio);

/* Timing values of ATF's Appendix B, in ticks, over complete instances. */
enum hwt_timing_kind {
	HWT_TIMING_IPT,		/* initial pending time: activate -> start */
	HWT_TIMING_CET,		/* core execution time: running, no preemption */
	HWT_TIMING_GET,		/* gross execution time: start -> terminate */
	HWT_TIMING_RT,		/* response time: activate -> terminate */
	HWT_TIMING_DT,		/* delta time: start -> next start */
	HWT_TIMING_PRE,		/* preemption: preempt or wait -> resume */
	HWT_NR_TIMING,
};

struct hwt_stat {
	uint64_t min;
	uint64_t max;
	uint64_t sum;
	uint64_t n;
};

/* Per task or ISR (kind) id; NULL if stats were off or the id is unknown. */
const struct hwt_stat *hwt_model_timing(const struct hwt_model *m,
					enum hwt_entity_kind kind, uint32_t id);

#ifdef __cplusplus
}
#endif

#endif /* HWT_MODEL_H */
