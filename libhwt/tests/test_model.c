// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The timing-model state machine: its event sequence for the fixture trace
 * (golden), the state charts checked on every entity for the fixture, for
 * one pass without learning and for random garbage, and hand-made cases
 * (start state, lock wait, exit, lost counts, timing values).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <hwt/model.h>
#include "test_conv_util.h"

/* --- a checker of the charts ---------------------------------------------------- */

enum { S_NONE, S_ACTIVE, S_RUNNING, S_READY, S_WAITING, S_DONE };

struct ent_state {
	uint32_t kind, id, inst;
	int state;
	bool live;
};

struct checker {
	struct ent_state *e;
	size_t n, cap;
	uint64_t last_ts[64];
	size_t count[HWT_NR_MEV];
	size_t synth;
	char *dump;		/* text of every event, if dumping */
	size_t dump_len;
	FILE *df;
	struct hwt_model *m;
	int isr_depth[64];
	uint64_t lost_total;
};

static struct ent_state *find(struct checker *c, uint32_t kind, uint32_t id,
			      uint32_t inst)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].kind == kind && c->e[i].id == id && c->e[i].inst == inst)
			return &c->e[i];
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->e = realloc(c->e, c->cap * sizeof(*c->e));
		ck_assert_ptr_nonnull(c->e);
	}
	c->e[c->n] = (struct ent_state){ kind, id, inst, S_NONE, false };
	return &c->e[c->n++];
}

/* One transition of BTF's process chart (tasks, ISRs) or runnable chart. */
static void step(struct ent_state *s, unsigned int type)
{
	int from = s->state, to = -1;

	switch (type) {
	case HWT_MEV_TASK_ACTIVATE:
		to = from == S_NONE ? S_ACTIVE : -1;
		break;
	case HWT_MEV_TASK_START:
		to = from == S_ACTIVE ? S_RUNNING : -1;
		break;
	case HWT_MEV_ISR_START:
	case HWT_MEV_RUN_START:
		to = from == S_NONE ? S_RUNNING : -1;
		break;
	case HWT_MEV_TASK_PREEMPT:
	case HWT_MEV_ISR_PREEMPT:
	case HWT_MEV_RUN_SUSPEND:
		to = from == S_RUNNING ? S_READY : -1;
		break;
	case HWT_MEV_TASK_RESUME:
	case HWT_MEV_ISR_RESUME:
	case HWT_MEV_RUN_RESUME:
		to = from == S_READY ? S_RUNNING : -1;
		break;
	case HWT_MEV_TASK_WAIT:
		to = from == S_RUNNING ? S_WAITING : -1;
		break;
	case HWT_MEV_TASK_RELEASE:
		to = from == S_WAITING ? S_READY : -1;
		break;
	case HWT_MEV_TASK_TERMINATE:
	case HWT_MEV_ISR_TERMINATE:
	case HWT_MEV_RUN_TERMINATE:
		/* running; or never started when its end was lost (SYNTH) */
		to = from != S_NONE && from != S_DONE ? S_DONE : -1;
		break;
	}
	ck_assert_msg(to >= 0, "%s not allowed in state %d (entity %u inst %u)",
		      hwt_mev_name(type), from, s->id, s->inst);
	s->state = to;
}

static void check_ev(void *ctx, const struct hwt_mev *ev)
{
	struct checker *c = ctx;
	enum hwt_entity_kind kind = hwt_mev_kind(ev->type);

	ck_assert_uint_lt(ev->type, HWT_NR_MEV);
	ck_assert_uint_lt(ev->cpu, 64);
	ck_assert_msg(ev->ts >= c->last_ts[ev->cpu], "time goes back on cpu %u",
		      ev->cpu);
	c->last_ts[ev->cpu] = ev->ts;
	c->count[ev->type]++;
	if (ev->flags & HWT_MEVF_SYNTH) {
		c->synth++;
		ck_assert_ptr_null(ev->rec);
	} else {
		ck_assert_ptr_nonnull(ev->rec);
	}
	if (c->df) {
		char name[128] = "";

		if (c->m && kind != HWT_ENT_NONE)
			snprintf(name, sizeof(name), "%u", ev->id);
		fprintf(c->df, "%llu cpu%u %s id=%s inst=%u idx=%u%s%s%s v=%lld v2=%llu ctx=%u:%u:%u\n",
			(unsigned long long)ev->ts, ev->cpu, hwt_mev_name(ev->type),
			name, ev->inst, ev->idx,
			ev->flags & HWT_MEVF_SYNTH ? " synth" : "",
			ev->flags & HWT_MEVF_ISR ? " isr" : "",
			ev->flags & HWT_MEVF_NEW ? " new" : "",
			(long long)ev->value, (unsigned long long)ev->value2,
			ev->ctx_kind, ev->ctx_id, ev->ctx_inst);
	}
	switch (ev->type) {
	case HWT_MEV_ISR_START:
		c->isr_depth[ev->cpu]++;
		break;
	case HWT_MEV_ISR_TERMINATE:
		ck_assert_int_gt(c->isr_depth[ev->cpu], 0);
		c->isr_depth[ev->cpu]--;
		break;
	case HWT_MEV_TASK_START:
	case HWT_MEV_TASK_RESUME:
		/* a task runs only when no ISR does */
		ck_assert_int_eq(c->isr_depth[ev->cpu], 0);
		break;
	case HWT_MEV_LOST:
		ck_assert_uint_ge(ev->value2, c->lost_total);
		c->lost_total = ev->value2;
		break;
	default:
		break;
	}
	if (ev->type == HWT_MEV_TASK_CREATE || ev->type == HWT_MEV_TASK_DELETE ||
	    ev->type == HWT_MEV_PRIORITY || kind == HWT_ENT_NONE ||
	    kind == HWT_ENT_MARKER || kind == HWT_ENT_COUNTER || kind == HWT_ENT_LOCK)
		return;
	step(find(c, kind, ev->id, ev->inst), ev->type);
}

static void checker_free(struct checker *c)
{
	free(c->e);
	memset(c, 0, sizeof(*c));
}

/* Run the model like a converter: pass 1 (learn), pass 2 (check). */
static void run_two_pass(struct tu_stream *t, struct checker *c, bool stats,
			 struct hwt_model **out)
{
	struct hwt_model *m;
	struct hwt_record r;

	ck_assert_int_eq(hwt_model_new(&m, &t->info, &t->s), 0);
	hwt_model_set_stats(m, stats);
	t->pos = 0;
	while (tu_next(t, &r) > 0)
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	ck_assert_int_eq(hwt_model_restart(m), 0);
	c->m = m;
	hwt_model_set_sink(m, check_ev, c);
	t->pos = 0;
	while (tu_next(t, &r) > 0)
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	ck_assert_int_eq(hwt_model_end(m), 0);
	if (out)
		*out = m;
	else
		hwt_model_free(m);
}

static void run_one_pass(struct tu_stream *t, struct checker *c)
{
	struct hwt_model *m;
	struct hwt_record r;

	ck_assert_int_eq(hwt_model_new(&m, &t->info, &t->s), 0);
	hwt_model_set_sink(m, check_ev, c);
	t->pos = 0;
	while (tu_next(t, &r) > 0)
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	ck_assert_int_eq(hwt_model_end(m), 0);
	hwt_model_free(m);
}

START_TEST(test_fixture_golden)
{
	struct tu_stream t;
	struct checker c = { 0 };

	tu_fixture(&t);
	c.df = open_memstream(&c.dump, &c.dump_len);
	run_two_pass(&t, &c, false, NULL);
	fclose(c.df);
	tu_golden("fixture.model", c.dump, c.dump_len);
	/* what the fixture is made to exercise */
	ck_assert_uint_eq(c.count[HWT_MEV_TASK_WAIT], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_TASK_RELEASE], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_TASK_DELETE], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_RUN_START], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_RUN_SUSPEND], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_ISR_PREEMPT], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_ISR_START], 3);	/* 16, 17, vector 0xec */
	ck_assert_uint_eq(c.lost_total, 10);
	free(c.dump);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

START_TEST(test_fixture_one_pass)
{
	struct tu_stream t;
	struct checker c = { 0 };

	tu_fixture(&t);
	run_one_pass(&t, &c);
	ck_assert_uint_eq(c.count[HWT_MEV_ISR_START], 3);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/* Learned start: tasks running at the start begin at the CPU's first record. */
START_TEST(test_start_state)
{
	struct tu_stream t;
	struct checker c = { 0 };

	tu_fixture(&t);
	c.df = open_memstream(&c.dump, &c.dump_len);
	run_two_pass(&t, &c, false, NULL);
	fclose(c.df);
	/* 300 ran on cpu2 before its first switch: started at cpu2's first record */
	ck_assert_ptr_nonnull(strstr(c.dump, "1020 cpu2 task_start id=300 inst=0"));
	/* 500 is first seen switched in: activated there (when it became
	 * runnable, before the trace, is not known) */
	ck_assert_ptr_nonnull(strstr(c.dump, "1350 cpu1 task_activate id=500 inst=0"));
	ck_assert_ptr_nonnull(strstr(c.dump, "1350 cpu1 task_start id=500 inst=0"));
	/* cpu1 was inside vector 0xec: it starts at cpu1's first record */
	ck_assert_ptr_nonnull(strstr(c.dump, "1010 cpu1 isr_start id=65772"));
	ck_assert_ptr_nonnull(strstr(c.dump, "1015 cpu1 isr_terminate id=65772"));
	free(c.dump);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/*
 * The start is settled per CPU by its first records: the task by an ID
 * record or the first switch (its prev), an ISR in progress by the first
 * ISR record (an exit) or switch.  Later exits without entry are lost
 * records, repaired where they are; hwt_model_start_known() says when
 * pass 1 may stop.
 */
START_TEST(test_start_known)
{
	struct tu_stream t;
	struct checker c = { 0 };
	struct hwt_model *m;
	struct hwt_record r;
	size_t known_at = 0;

	tu_init(&t, 2, 1000000);
	tu_add(&t, 10, 0, HWT_EV_ID, 0, 5);
	tu_add(&t, 11, 1, HWT_EV_TASK_ACTIVATE, 1, 7);
	tu_add(&t, 12, 0, HWT_EV_VECTOR_END, 0xec, 0);	/* in progress at 10 */
	tu_add(&t, 13, 1, HWT_EV_INTERRUPT_END, 9, 0);	/* and at 11 */
	tu_switch(&t, 15, 1, 6, HWT_STATE_RUNNABLE, 7);	/* 6 ran since 11 */
	tu_add(&t, 20, 0, HWT_EV_INTERRUPT_END, 3, 0);	/* a lost entry */
	tu_switch(&t, 30, 0, 5, HWT_STATE_SLEEPING, 8);
	ck_assert_int_eq(hwt_model_new(&m, &t.info, &t.s), 0);
	for (size_t i = 0; tu_next(&t, &r) > 0; i++) {
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
		if (!known_at && hwt_model_start_known(m))
			known_at = i + 1;
	}
	ck_assert_uint_eq(known_at, 5);		/* at cpu1's first switch */
	hwt_model_free(m);

	c.df = open_memstream(&c.dump, &c.dump_len);
	run_two_pass(&t, &c, false, NULL);
	fclose(c.df);
	/* what was going on at each CPU's first record */
	ck_assert_ptr_nonnull(strstr(c.dump, "\n10 cpu0 task_start id=5 inst=0 idx=0 synth"));
	ck_assert_ptr_nonnull(strstr(c.dump, "\n10 cpu0 isr_start id=65772 inst=0 idx=2 synth"));
	ck_assert_ptr_nonnull(strstr(c.dump, "\n11 cpu1 task_start id=6 inst=0 idx=1 synth"));
	ck_assert_ptr_nonnull(strstr(c.dump, "\n11 cpu1 isr_start id=9 inst=0 idx=1 synth"));
	/* after that, repairs where the loss shows */
	ck_assert_ptr_nonnull(strstr(c.dump, "\n20 cpu0 isr_start id=3 inst=0 idx=0 synth"));
	ck_assert_ptr_nonnull(strstr(c.dump, "\n15 cpu1 task_start id=7 inst=0 idx=2 v"));
	free(c.dump);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/*
 * A softirq before its CPU's first switch runs in the task pass 2 replays
 * there, which pass 1 does not know yet: pass 1 still knows the runnable,
 * so the header tables of a whole pass 1 (ATF, JSON) name it.
 */
START_TEST(test_pass1_entities)
{
	struct tu_stream t;
	struct checker c = { 0 };
	struct hwt_model *m;
	struct hwt_record r;

	tu_init(&t, 1, 1000000);
	tu_add(&t, 5, 0, HWT_EV_SOFTIRQ_START, 1, 0);
	tu_add(&t, 6, 0, HWT_EV_SOFTIRQ_END, 1, 0);
	tu_switch(&t, 10, 0, 5, HWT_STATE_SLEEPING, 0);
	ck_assert_int_eq(hwt_model_new(&m, &t.info, &t.s), 0);
	while (tu_next(&t, &r) > 0)
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	ck_assert_uint_eq(hwt_model_count(m, HWT_ENT_RUNNABLE), 1);
	hwt_model_free(m);
	run_two_pass(&t, &c, false, NULL);
	ck_assert_uint_eq(c.count[HWT_MEV_RUN_START], 1);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/* A periodic task: activate 0, start 10, preempt 20, resume 30, end 40; again at 100. */
START_TEST(test_timing_values)
{
	struct tu_stream t;
	struct checker c = { 0 };
	struct hwt_model *m;
	const struct hwt_stat *s;

	tu_init(&t, 1, 1000000);
	tu_add(&t, 0, 0, HWT_EV_ID, 0, 0);
	for (uint64_t base = 100; base <= 200; base += 100) {
		tu_add(&t, base, 0, HWT_EV_TASK_ACTIVATE, 0, 7);
		tu_switch(&t, base + 10, 0, 0, HWT_STATE_RUNNABLE, 7);
		tu_switch(&t, base + 20, 0, 7, HWT_STATE_RUNNABLE, 8);
		tu_switch(&t, base + 30, 0, 8, HWT_STATE_SLEEPING, 7);
		tu_switch(&t, base + 40, 0, 7, HWT_STATE_SLEEPING, 0);
	}
	run_two_pass(&t, &c, true, &m);
	s = hwt_model_timing(m, HWT_ENT_TASK, 7);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s[HWT_TIMING_IPT].n, 2);
	ck_assert_uint_eq(s[HWT_TIMING_IPT].max, 10);
	ck_assert_uint_eq(s[HWT_TIMING_CET].min, 20);
	ck_assert_uint_eq(s[HWT_TIMING_GET].max, 30);
	ck_assert_uint_eq(s[HWT_TIMING_RT].sum, 80);
	ck_assert_uint_eq(s[HWT_TIMING_DT].n, 1);
	ck_assert_uint_eq(s[HWT_TIMING_DT].max, 100);
	ck_assert_uint_eq(s[HWT_TIMING_PRE].max, 10);
	/* 8 is never woken: both its instances begin synthesized, no values */
	s = hwt_model_timing(m, HWT_ENT_TASK, 8);
	ck_assert_uint_eq(s[HWT_TIMING_RT].n, 0);
	ck_assert_uint_eq(s[HWT_TIMING_CET].n, 0);
	hwt_model_free(m);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/* Blocking while contending for a lock is a wait, not the end of the job. */
START_TEST(test_lock_wait)
{
	struct tu_stream t;
	struct checker c = { 0 };

	tu_init(&t, 1, 1000000);
	tu_add(&t, 0, 0, HWT_EV_ID, 0, 5);
	tu_add(&t, 1, 0, HWT_EV_MUTEX_WAIT, 0, 77);
	tu_switch(&t, 2, 0, 5, HWT_STATE_BLOCKED, 0);
	tu_add(&t, 3, 0, HWT_EV_TASK_ACTIVATE, 0, 5);
	tu_switch(&t, 4, 0, 0, HWT_STATE_RUNNABLE, 5);
	tu_add(&t, 5, 0, HWT_EV_MUTEX_LOCK, 0, 77);
	tu_switch(&t, 6, 0, 5, HWT_STATE_BLOCKED, 0);	/* now the job ends */
	run_two_pass(&t, &c, false, NULL);
	ck_assert_uint_eq(c.count[HWT_MEV_TASK_WAIT], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_TASK_RELEASE], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_TASK_TERMINATE], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_LOCK_WAIT], 1);
	ck_assert_uint_eq(c.count[HWT_MEV_LOCK_ACQUIRE], 1);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/*
 * A task's own priority is the last set_priority, never an inherited one;
 * PRE runs from a preemption or a wait (ATF shows both as preempt) to the
 * resume.
 */
START_TEST(test_priority_and_pre)
{
	struct tu_stream t;
	struct checker c = { 0 };
	struct hwt_model *m;
	const struct hwt_stat *s;
	int64_t prio;

	tu_init(&t, 1, 1000000);
	tu_add(&t, 0, 0, HWT_EV_ID, 0, 0);
	tu_add(&t, 1, 0, HWT_EV_SET_PRIORITY, 120, 5);
	tu_add(&t, 2, 0, HWT_EV_INHERITANCE, 98, 5);
	tu_add(&t, 3, 0, HWT_EV_INHERITANCE, 90, 6);
	tu_add(&t, 10, 0, HWT_EV_TASK_ACTIVATE, 0, 5);
	tu_switch(&t, 20, 0, 0, HWT_STATE_RUNNABLE, 5);
	tu_add(&t, 21, 0, HWT_EV_MUTEX_WAIT, 0, 77);
	tu_switch(&t, 30, 0, 5, HWT_STATE_BLOCKED, 0);	/* wait */
	tu_add(&t, 50, 0, HWT_EV_TASK_ACTIVATE, 0, 5);	/* release */
	tu_switch(&t, 55, 0, 0, HWT_STATE_RUNNABLE, 5);	/* resume after 25 */
	tu_add(&t, 56, 0, HWT_EV_MUTEX_LOCK, 0, 77);
	tu_switch(&t, 60, 0, 5, HWT_STATE_SLEEPING, 0);
	tu_add(&t, 61, 0, HWT_EV_SET_PRIORITY, 0xFFFF, 7);	/* SCHED_DEADLINE */
	run_two_pass(&t, &c, true, &m);
	ck_assert(hwt_model_priority(m, 5, &prio));
	ck_assert_int_eq(prio, 120);
	ck_assert(!hwt_model_priority(m, 6, &prio));	/* only borrowed */
	ck_assert(hwt_model_priority(m, 7, &prio));
	ck_assert_int_eq(prio, HWT_PRIO_DEADLINE);
	ck_assert_int_eq(hwt_prio_urgency(prio), 140);
	ck_assert_uint_eq(c.count[HWT_MEV_PRIORITY], 4);
	s = hwt_model_timing(m, HWT_ENT_TASK, 5);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s[HWT_TIMING_PRE].n, 1);
	ck_assert_uint_eq(s[HWT_TIMING_PRE].max, 25);
	ck_assert_uint_eq(s[HWT_TIMING_CET].max, 15);
	ck_assert_uint_eq(s[HWT_TIMING_GET].max, 40);
	hwt_model_free(m);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/* A lost total carries bits 32..47 in par1: a count past 2^32 is no wrap. */
START_TEST(test_lost_past_32_bits)
{
	struct tu_stream t;
	struct checker c = { 0 };

	tu_init(&t, 1, 1000000);
	tu_add(&t, 10, 0, HWT_EV_LOST, 0, 0xFFFFFFF0u);
	tu_add(&t, 11, 0, HWT_EV_LOST, 1, 0x10);	/* 2^32 + 16 */
	tu_add(&t, 12, 0, HWT_EV_LOST, 2, 0);		/* 2^33 */
	run_two_pass(&t, &c, false, NULL);
	ck_assert_uint_eq(c.lost_total, 1ull << 33);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/* Lost switches: a task switched in on two CPUs, an IRQ exit without entry,
 * a switch inside an IRQ. */
START_TEST(test_repairs)
{
	struct tu_stream t;
	struct checker c = { 0 };

	tu_init(&t, 2, 1000000);
	tu_switch(&t, 10, 0, 1, HWT_STATE_RUNNABLE, 2);
	tu_switch(&t, 11, 1, 3, HWT_STATE_RUNNABLE, 2);	/* 2 on both */
	tu_add(&t, 12, 0, HWT_EV_INTERRUPT_END, 9, 0);
	tu_add(&t, 13, 1, HWT_EV_INTERRUPT_START, 9, 0);
	tu_switch(&t, 14, 1, 2, HWT_STATE_SLEEPING, 4);	/* inside irq 9 */
	tu_add(&t, 15, 1, HWT_EV_INTERRUPT_END, 9, 0);
	tu_add(&t, 16, 0, HWT_EV_TASK_END, 0, 1);
	tu_add(&t, 17, 0, HWT_EV_TASK_CREATE, 0, 2);	/* pid reuse */
	tu_add(&t, 18, 1, HWT_EV_LOST, 0, 3);
	tu_add(&t, 19, 1, HWT_EV_LOST, 0, 1);		/* a new counter */
	run_two_pass(&t, &c, true, NULL);
	ck_assert_uint_gt(c.synth, 0);
	ck_assert_uint_eq(c.lost_total, 4);
	checker_free(&c);
	checker_free(&c);
	run_one_pass(&t, &c);
	checker_free(&c);
	tu_free(&t);
}
END_TEST

/* Random records, every code, random pids: the charts hold, nothing crashes. */
START_TEST(test_random)
{
	static const uint16_t codes[] = {
		HWT_EV_TASK_SCHEDULE, HWT_EV_TASK_SCHEDULE, HWT_EV_TASK_SCHEDULE,
		HWT_EV_TASK_ACTIVATE, HWT_EV_TASK_ACTIVATE, HWT_EV_ID,
		HWT_EV_TASK_CREATE, HWT_EV_TASK_END, HWT_EV_INTERRUPT_START,
		HWT_EV_INTERRUPT_END, HWT_EV_VECTOR_START, HWT_EV_VECTOR_END,
		HWT_EV_SOFTIRQ_START, HWT_EV_SOFTIRQ_END, HWT_EV_MUTEX_WAIT,
		HWT_EV_MUTEX_LOCK, HWT_EV_MUTEX_UNLOCK, HWT_EV_IPOINT,
		HWT_EV_USER_EVENT_3, HWT_EV_LOST, HWT_EV_FREQUENCY,
		HWT_EV_IDLE_ENTER, HWT_EV_IDLE_EXIT, HWT_EV_INHERITANCE,
		HWT_EV_SIGNAL, HWT_EV_NEXT_CHUNK, 0x7F, 0xF3,
	};
	unsigned int seed = 12345;

	for (int round = 0; round < 20; round++) {
		struct tu_stream t;
		struct checker c = { 0 };
		uint64_t ts = 0;

		tu_init(&t, 4, 1000000);
		for (int i = 0; i < 3000; i++) {
			uint16_t code = codes[rand_r(&seed) % (sizeof(codes) / sizeof(codes[0]))];
			uint32_t cpu = (uint32_t)rand_r(&seed) % 4;
			uint32_t a = (uint32_t)rand_r(&seed) % 6, b = (uint32_t)rand_r(&seed) % 6;
			uint32_t st = (uint32_t)rand_r(&seed) % 6;

			ts += (uint64_t)(rand_r(&seed) % 3);
			if (code == HWT_EV_TASK_SCHEDULE)
				tu_switch(&t, ts, cpu, a, st, b);
			else
				tu_add(&t, ts, cpu, code, (uint16_t)(a | (st << 12)),
				       b | (uint32_t)rand_r(&seed) % 3 << 8);
		}
		t.lost[1] = 100000;
		t.info.lost = t.lost;
		run_two_pass(&t, &c, true, NULL);
		checker_free(&c);
		run_one_pass(&t, &c);
		checker_free(&c);
		tu_free(&t);
	}
}
END_TEST

START_TEST(test_bad_args)
{
	struct hwt_model *m;
	struct hwt_trace_info info = { .nr_cpus = 0 };

	ck_assert_int_eq(hwt_model_new(&m, &info, NULL), -EINVAL);
	ck_assert_int_eq(hwt_model_new(&m, NULL, NULL), -EINVAL);
	ck_assert_ptr_null(hwt_mev_name(HWT_NR_MEV));
	ck_assert_int_eq(hwt_mev_kind(HWT_MEV_LOST), HWT_ENT_NONE);
}
END_TEST

TU_MAIN("model", test_fixture_golden, test_fixture_one_pass, test_start_state,
	test_start_known, test_pass1_entities,
	test_timing_values, test_lock_wait, test_priority_and_pre, test_repairs,
	test_lost_past_32_bits, test_random, test_bad_args)
