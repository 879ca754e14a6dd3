// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The BPF backend's shared code (bpf/hwt_bpf_shared.h) run on the host: the
 * very ring writer the BPF programs run, against a fake clock and a plain
 * array, read back with libhwt's drain and snapshot; the state mapping of
 * sched_switch; and the keyed hash of timers and locks.  Nested writers (an
 * IRQ in the middle of a write) are played through the writer's hooks.
 */
#include <errno.h>
#include <stdalign.h>

#include "hwt_test.h"
#include "internal.h"

static uint64_t fake_now = 1000;
static void nest_hook(void *w);
static void commit_hook(void *w);

#define HWT_BPF_NOW()		(fake_now += 10)
#define HWT_BPF_SLOT(d, slot)	(&((struct hwt_event *)(d))[slot])
#define HWT_BPF_RESERVE_HOOK(w)	nest_hook(w)
#define HWT_BPF_COMMIT_HOOK(w)	commit_hook(w)
#include "bpf/hwt_bpf_shared.h"

#define N	16		/* slots */
#define NORMAL	12		/* event slots; 4 for control records */

struct ring {
	alignas(64) struct hwt_ring_meta meta;
	struct hwt_bpf_cpu w;
	struct hwt_event data[N];
	int cyc;
};

static struct ring R;
/* the hooks' nested write: armed for one call, then disarmed */
static int nest_armed, commit_armed;
static uint32_t nested_par2 = 0xBEEF;
static int nested_want;		/* the nested write's expected result */
static uint64_t nested_at;	/* fake_now when it ran */

static void ring_init(int cyc)
{
	memset(&R, 0, sizeof(R));
	R.cyc = cyc;
	R.meta.version = HWT_ABI_MAJOR;
	R.meta.cpu = 1;
	R.meta.nr_slots = N;
	R.meta.normal_slots = NORMAL;
	R.meta.flags = cyc ? HWT_CHUNK_CYC : HWT_CHUNK_STOP;
	R.w.head = HWT_BPF_ON;
	nest_armed = commit_armed = 0;
	nested_want = HWT_BPF_OK;
}

static int rec(uint16_t code, uint32_t par2)
{
	return hwt_bpf_record(&R.w, &R.meta, R.data, N, NORMAL, R.cyc,
			      HWT_BPF_W_EVENT, code, 7, par2);
}

static int ctl(uint16_t code)
{
	return hwt_bpf_record(&R.w, &R.meta, R.data, N, NORMAL, R.cyc,
			      HWT_BPF_W_CTL, code, 0, 0);
}

static void nest_hook(void *w)
{
	(void)w;
	if (!nest_armed)
		return;
	nest_armed = 0;
	nested_at = fake_now;
	ck_assert_int_eq(rec(HWT_EV_INTERRUPT_START, nested_par2), nested_want);
}

static void commit_hook(void *w)
{
	(void)w;
	if (!commit_armed)
		return;
	commit_armed = 0;
	nested_at = fake_now;
	ck_assert_int_eq(rec(HWT_EV_INTERRUPT_START, nested_par2), nested_want);
}

struct got {
	struct hwt_event ev[4 * N];
	uint32_t n, cpu;
};

static int sink(void *ctx, uint32_t cpu, const struct hwt_event *ev, size_t n)
{
	struct got *g = ctx;

	g->cpu = cpu;
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_lt(g->n, ARRAY_SIZE(g->ev));
		g->ev[g->n++] = ev[i];
	}
	return 0;
}

static uint32_t drain(struct got *g)
{
	int64_t n;

	memset(g, 0, sizeof(*g));
	n = hwt_ring_drain_mem(&R.meta, R.data, N, sink, g);
	ck_assert_int_ge(n, 0);
	return (uint32_t)n;
}

/* Ring order is time order on one CPU. */
static void assert_time_order(const struct got *g)
{
	for (uint32_t i = 1; i < g->n; i++)
		ck_assert_uint_le(hwt_event_tsc(&g->ev[i - 1]), hwt_event_tsc(&g->ev[i]));
}

START_TEST(test_siphash_vector)
{
	/* SipHash-2-4 paper: key 00..0f, message 00..07 */
	uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;

	ck_assert_uint_eq(hwt_bpf_siphash_1u64(0x0706050403020100ULL, k0, k1),
			  0x93f5f5799a932462ULL);
	/* an id depends on the key, is stable, and is not the address */
	ck_assert_uint_eq(hwt_bpf_obj_id(0xffff888012345678ULL, 1, 2),
			  hwt_bpf_obj_id(0xffff888012345678ULL, 1, 2));
	ck_assert_uint_ne(hwt_bpf_obj_id(0xffff888012345678ULL, 1, 2),
			  hwt_bpf_obj_id(0xffff888012345678ULL, 3, 2));
	ck_assert_uint_ne(hwt_bpf_obj_id(0xffff888012345678ULL, 1, 2), 0x12345678);
	ck_assert_uint_ne(hwt_bpf_obj_id(0xffff888012345678ULL, 1, 2),
			  hwt_bpf_obj_id(0xffff888012345680ULL, 1, 2));
}
END_TEST

/* kmod/probes.c task_state(), case by case */
START_TEST(test_task_state)
{
	ck_assert_uint_eq(hwt_bpf_task_state(1, HWT_TASK_INTERRUPTIBLE), HWT_STATE_RUNNABLE);
	ck_assert_uint_eq(hwt_bpf_task_state(0, HWT_TASK_RUNNING), HWT_STATE_RUNNABLE);
	ck_assert_uint_eq(hwt_bpf_task_state(0, HWT_TASK_INTERRUPTIBLE), HWT_STATE_SLEEPING);
	ck_assert_uint_eq(hwt_bpf_task_state(0, HWT_TASK_UNINTERRUPTIBLE), HWT_STATE_BLOCKED);
	/* TASK_IDLE = UNINTERRUPTIBLE | NOLOAD (0x400): an idle wait, not D */
	ck_assert_uint_eq(hwt_bpf_task_state(0, 0x402), HWT_STATE_IDLE);
	ck_assert_uint_eq(hwt_bpf_task_state(0, 0x400), HWT_STATE_OTHER);
	/* TASK_KILLABLE = UNINTERRUPTIBLE | WAKEKILL (0x100) */
	ck_assert_uint_eq(hwt_bpf_task_state(0, 0x102), HWT_STATE_BLOCKED);
	ck_assert_uint_eq(hwt_bpf_task_state(0, HWT___TASK_STOPPED), HWT_STATE_STOPPED);
	ck_assert_uint_eq(hwt_bpf_task_state(0, HWT___TASK_TRACED), HWT_STATE_STOPPED);
	ck_assert_uint_eq(hwt_bpf_task_state(0, HWT_TASK_DEAD), HWT_STATE_DEAD);
	ck_assert_uint_eq(hwt_bpf_task_state(0, HWT_EXIT_ZOMBIE), HWT_STATE_DEAD);
	ck_assert_uint_eq(hwt_bpf_task_state(0, HWT_EXIT_DEAD), HWT_STATE_DEAD);
	ck_assert_uint_eq(hwt_bpf_task_state(0, 0x40 /* PARKED */), HWT_STATE_OTHER);
}
END_TEST

START_TEST(test_write_drain)
{
	struct got g;

	ring_init(0);
	for (uint32_t i = 0; i < 5; i++)
		ck_assert_int_eq(rec(HWT_EV_IPOINT, i), HWT_BPF_OK);
	ck_assert_uint_eq(R.w.nest, 0);
	ck_assert_uint_eq(R.meta.data_head, 5);
	ck_assert_uint_eq(R.meta.written, 5);
	ck_assert_uint_eq(drain(&g), 5);
	ck_assert_uint_eq(g.cpu, 1);
	for (uint32_t i = 0; i < 5; i++) {
		ck_assert_uint_eq(g.ev[i].code, HWT_EV_IPOINT);
		ck_assert_uint_eq(g.ev[i].par1, 7);
		ck_assert_uint_eq(g.ev[i].par2, i);
	}
	assert_time_order(&g);
	/* positions run over [0, 2N): many rounds wrap both */
	for (uint32_t round = 0; round < 50; round++) {
		for (uint32_t i = 0; i < 1 + round % NORMAL; i++)
			ck_assert_int_eq(rec(HWT_EV_IPOINT, i), HWT_BPF_OK);
		ck_assert_uint_eq(drain(&g), 1 + round % NORMAL);
		ck_assert_uint_lt(R.meta.data_head, 2 * N);
	}
	ck_assert_uint_eq(R.meta.lost, 0);
}
END_TEST

/* Off (before start, after stop): dropped, not lost; control records pass. */
START_TEST(test_off)
{
	struct got g;

	ring_init(0);
	R.w.head = 0;
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 1), HWT_BPF_OFF);
	/* refused: the generation moved, the position did not */
	ck_assert_uint_eq(R.w.head, HWT_BPF_GEN_ONE);
	ck_assert_int_eq(ctl(HWT_EV_TRACE_START), HWT_BPF_OK);
	ck_assert_uint_eq(R.w.head & HWT_BPF_ON, 0);
	ck_assert_uint_eq(R.meta.lost, 0);
	ck_assert_uint_eq(R.w.nest, 0);
	ck_assert_uint_eq(drain(&g), 1);
	ck_assert_uint_eq(g.ev[0].code, HWT_EV_TRACE_START);
}
END_TEST

/*
 * A full STOP ring refuses events and counts them; control records use the
 * emergency slots; after a drain the loss is reported in-band, before the
 * next event, as the module does.
 */
START_TEST(test_full_lost)
{
	struct got g;
	uint32_t i;

	ring_init(0);
	for (i = 0; i < NORMAL; i++)
		ck_assert_int_eq(rec(HWT_EV_IPOINT, i), HWT_BPF_OK);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(rec(HWT_EV_IPOINT, 100 + i), HWT_BPF_FULL);
	ck_assert_uint_eq(R.meta.lost, 3);
	ck_assert_int_eq(ctl(HWT_EV_TRACE_STOP), HWT_BPF_OK);
	ck_assert_uint_eq(drain(&g), NORMAL + 1);
	ck_assert_uint_eq(g.ev[NORMAL].code, HWT_EV_TRACE_STOP);

	ck_assert_int_eq(rec(HWT_EV_IPOINT, 200), HWT_BPF_OK);
	ck_assert_uint_eq(drain(&g), 2);
	ck_assert_uint_eq(g.ev[0].code, HWT_EV_LOST);
	ck_assert_uint_eq(g.ev[0].par2, 3);
	ck_assert_uint_eq(g.ev[1].par2, 200);
	/* reported once */
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 201), HWT_BPF_OK);
	ck_assert_uint_eq(drain(&g), 1);
	ck_assert_uint_eq(g.ev[0].par2, 201);
}
END_TEST

/*
 * A loss pending at fill == NORMAL - 1: the report does not fit before the
 * event, so the event is lost too (never a gap without a report); after a
 * drain both go in.  The report carries the total's bits 32..47 in par1.
 */
START_TEST(test_lost_report_or_nothing)
{
	struct got g;
	uint32_t i;

	ring_init(0);
	for (i = 0; i < NORMAL - 1; i++)
		ck_assert_int_eq(rec(HWT_EV_IPOINT, i), HWT_BPF_OK);
	R.meta.lost = (1ull << 32) + 5;		/* as if that many had not fitted */
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 100), HWT_BPF_FULL);
	ck_assert_uint_eq(R.meta.lost, (1ull << 32) + 6);
	ck_assert_uint_eq(drain(&g), NORMAL - 1);
	for (i = 0; i < g.n; i++)
		ck_assert_uint_ne(g.ev[i].par2, 100);
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 101), HWT_BPF_OK);
	ck_assert_uint_eq(drain(&g), 2);
	ck_assert_uint_eq(g.ev[0].code, HWT_EV_LOST);
	ck_assert_uint_eq(g.ev[0].par1, 1);
	ck_assert_uint_eq(g.ev[0].par2, 6);
	ck_assert_uint_eq(g.ev[1].par2, 101);
}
END_TEST

/* An untrusted data_tail outside the ring makes it full, never an index. */
START_TEST(test_bad_tail)
{
	ring_init(0);
	R.meta.data_tail = 5 * N;
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 1), HWT_BPF_FULL);
	ck_assert_uint_eq(R.meta.lost, 1);
	ck_assert_uint_eq(R.w.head & HWT_BPF_POS_MASK, 0);
}
END_TEST

/*
 * An IRQ writes between the outer writer's timestamp and its cmpxchg: the
 * outer writer retries with a new timestamp, so the nested record comes
 * first in the ring and in time.
 */
START_TEST(test_nested_reserve)
{
	struct got g;

	ring_init(0);
	nest_armed = 1;
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 1), HWT_BPF_OK);
	ck_assert_uint_eq(R.w.nest, 0);
	ck_assert_uint_eq(drain(&g), 2);
	ck_assert_uint_eq(g.ev[0].par2, nested_par2);
	ck_assert_uint_eq(g.ev[1].par2, 1);
	assert_time_order(&g);
}
END_TEST

/*
 * An IRQ writes after the outer writer published data_head: the nested
 * writer does not publish (the outer one is in flight), so the outer one
 * must see head move and publish again.
 */
START_TEST(test_nested_commit)
{
	struct got g;

	ring_init(0);
	commit_armed = 1;
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 1), HWT_BPF_OK);
	ck_assert_uint_eq(R.w.nest, 0);
	ck_assert_uint_eq(R.meta.data_head, 2);
	ck_assert_uint_eq(R.meta.written, 2);
	ck_assert_uint_eq(drain(&g), 2);
	ck_assert_uint_eq(g.ev[0].par2, 1);
	ck_assert_uint_eq(g.ev[1].par2, nested_par2);
	assert_time_order(&g);
}
END_TEST

static int cpu_start(void)
{
	return hwt_bpf_cpu_start(&R.w, &R.meta, R.data, N, R.cyc, 1, 42);
}

static int cpu_stop(void)
{
	return hwt_bpf_cpu_stop(&R.w, &R.meta, R.data, N, R.cyc);
}

/* The start records, one reservation at one instant, at g->ev[i..i+2]. */
static void assert_start(const struct got *g, uint32_t i)
{
	ck_assert_uint_eq(g->ev[i].code, HWT_EV_CYCLES_PER_MSEC);
	ck_assert_uint_eq(g->ev[i].par1, HWT_BPF_CLOCK);
	ck_assert_uint_eq(g->ev[i].par2, HWT_BPF_NS_PER_MSEC);
	ck_assert_uint_eq(g->ev[i + 1].code, HWT_EV_TRACE_START);
	ck_assert_uint_eq(g->ev[i + 2].code, HWT_EV_ID);
	ck_assert_uint_eq(g->ev[i + 2].par1, 1);
	ck_assert_uint_eq(g->ev[i + 2].par2, 42);
	ck_assert_uint_eq(hwt_event_tsc(&g->ev[i]), hwt_event_tsc(&g->ev[i + 2]));
}

/*
 * kmod/control.c cpu_start()/cpu_stop(): the start records switch the CPU
 * on, trace_stop (after a pending loss) switches it off; a CPU that is off
 * has nothing to stop.
 */
START_TEST(test_start_stop)
{
	struct got g;

	ring_init(0);
	R.w.head = 0;
	ck_assert_int_eq(cpu_stop(), HWT_BPF_OFF);
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 1), HWT_BPF_OFF);
	ck_assert_int_eq(cpu_start(), HWT_BPF_OK);
	ck_assert_uint_ne(R.w.head & HWT_BPF_ON, 0);
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 2), HWT_BPF_OK);
	R.meta.lost = 5;			/* as if 5 had not fitted */
	ck_assert_int_eq(cpu_stop(), HWT_BPF_OK);
	ck_assert_uint_eq(R.w.head & HWT_BPF_ON, 0);
	ck_assert_int_eq(rec(HWT_EV_IPOINT, 3), HWT_BPF_OFF);
	ck_assert_uint_eq(R.w.nest, 0);
	ck_assert_uint_eq(drain(&g), 6);
	assert_start(&g, 0);
	ck_assert_uint_eq(g.ev[3].par2, 2);
	ck_assert_uint_eq(g.ev[4].code, HWT_EV_LOST);
	ck_assert_uint_eq(g.ev[4].par2, 5);
	ck_assert_uint_eq(g.ev[5].code, HWT_EV_TRACE_STOP);
	assert_time_order(&g);
	ck_assert_uint_eq(R.meta.lost, 5);
}
END_TEST

/*
 * hwt_cpu_ctl on the recorder's own CPU runs with interrupts on.  An IRQ
 * between the start's timestamp and its cmpxchg is refused (the CPU is
 * off), but moves the generation: the start retries with a later
 * timestamp, so no event after the start's time is refused.  An IRQ after
 * the reservation lands after the start records.
 */
START_TEST(test_start_nested)
{
	struct got g;

	ring_init(0);
	R.w.head = 0;
	nest_armed = 1;
	nested_want = HWT_BPF_OFF;
	ck_assert_int_eq(cpu_start(), HWT_BPF_OK);
	ck_assert_int_eq(nest_armed, 0);
	ck_assert_uint_eq(drain(&g), 3);
	assert_start(&g, 0);
	ck_assert_uint_gt(hwt_event_tsc(&g.ev[0]), nested_at);

	ring_init(0);
	R.w.head = 0;
	commit_armed = 1;
	ck_assert_int_eq(cpu_start(), HWT_BPF_OK);
	ck_assert_int_eq(commit_armed, 0);
	ck_assert_uint_eq(R.w.nest, 0);
	ck_assert_uint_eq(drain(&g), 4);
	assert_start(&g, 0);
	ck_assert_uint_eq(g.ev[3].par2, nested_par2);
	assert_time_order(&g);
}
END_TEST

/*
 * The same at stop: an IRQ between the stop's timestamp and its cmpxchg
 * is written, before trace_stop, which retries with a later timestamp; an
 * IRQ after the reservation is refused, neither written nor lost.
 */
START_TEST(test_stop_nested)
{
	struct got g;

	ring_init(0);
	nest_armed = 1;
	ck_assert_int_eq(cpu_stop(), HWT_BPF_OK);
	ck_assert_int_eq(nest_armed, 0);
	ck_assert_uint_eq(drain(&g), 2);
	ck_assert_uint_eq(g.ev[0].par2, nested_par2);
	ck_assert_uint_eq(g.ev[1].code, HWT_EV_TRACE_STOP);
	assert_time_order(&g);

	ring_init(0);
	commit_armed = 1;
	nested_want = HWT_BPF_OFF;
	ck_assert_int_eq(cpu_stop(), HWT_BPF_OK);
	ck_assert_int_eq(commit_armed, 0);
	ck_assert_uint_eq(R.w.nest, 0);
	ck_assert_uint_eq(drain(&g), 1);
	ck_assert_uint_eq(g.ev[0].code, HWT_EV_TRACE_STOP);
	ck_assert_uint_eq(R.meta.lost, 0);
}
END_TEST

/* A trace_stop that cannot be written: the CPU goes off all the same. */
START_TEST(test_stop_bad_tail)
{
	ring_init(0);
	R.meta.data_tail = 5 * N;
	ck_assert_int_eq(cpu_stop(), HWT_BPF_FULL);
	ck_assert_uint_eq(R.w.head & HWT_BPF_ON, 0);
	ck_assert_uint_eq(R.meta.lost, 1);
	ck_assert_uint_eq(R.w.nest, 0);
	/* and a start that cannot be written leaves it off */
	ck_assert_int_eq(cpu_start(), HWT_BPF_FULL);
	ck_assert_uint_eq(R.w.head & HWT_BPF_ON, 0);
}
END_TEST

/* CYC: overwrite the oldest, count it; a snapshot has the last N records. */
START_TEST(test_cyclic)
{
	struct got g;
	int64_t n;

	ring_init(1);
	for (uint32_t i = 0; i < 3 * N + 5; i++)
		ck_assert_int_eq(rec(HWT_EV_IPOINT, i), HWT_BPF_OK);
	ck_assert_uint_eq(R.meta.lost, 0);
	ck_assert_uint_eq(R.meta.written, 3 * N + 5);
	ck_assert_uint_eq(R.meta.overwritten, 2 * N + 5);
	memset(&g, 0, sizeof(g));
	n = hwt_ring_snapshot_mem(&R.meta, R.data, N, 0, sink, &g);
	ck_assert_int_eq(n, N);
	for (uint32_t i = 0; i < N; i++)
		ck_assert_uint_eq(g.ev[i].par2, 2 * N + 5 + i);
	assert_time_order(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bpf_shared");
	TCase *h = tcase_create("helpers");
	TCase *w = tcase_create("writer");

	tcase_add_test(h, test_siphash_vector);
	tcase_add_test(h, test_task_state);
	suite_add_tcase(s, h);
	tcase_add_test(w, test_write_drain);
	tcase_add_test(w, test_off);
	tcase_add_test(w, test_full_lost);
	tcase_add_test(w, test_lost_report_or_nothing);
	tcase_add_test(w, test_bad_tail);
	tcase_add_test(w, test_nested_reserve);
	tcase_add_test(w, test_nested_commit);
	tcase_add_test(w, test_start_stop);
	tcase_add_test(w, test_start_nested);
	tcase_add_test(w, test_stop_nested);
	tcase_add_test(w, test_stop_bad_tail);
	tcase_add_test(w, test_cyclic);
	suite_add_tcase(s, w);
	return test_run(s);
}
