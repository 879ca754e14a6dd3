// SPDX-License-Identifier: GPL-2.0
/*
 * kmod's write path on simulated CPUs: ring.h, record.h, ring.c and
 * overflow.c, compiled as they are against shim/ (a fake kernel, shim.h).
 *
 * A writer nests into another at any instant the shim marks (after each
 * access to shared ring state, each clock read, the wakeup), to any depth,
 * as IRQs and NMIs nest on a real CPU, but deterministically: the fifth
 * level, which no real kernel produces, and every interleaving of up to five
 * writers on a few ring states (explore_*) are run here.  A consumer on
 * another CPU can strike at those instants too.  A CPU stop (control.c's
 * cpu_stop() in stop_machine()) never interrupts a writer; writers (NMIs)
 * interrupt it at each of its instants instead.
 *
 * After every scenario sim_check() holds the write path to its promises
 * (Documentation/hwtrace.rst, "The ring protocol" and "The write path"):
 *  - the outermost writer published everything: data_head, written, lost
 *    and overwritten in the meta page equal the ring's own counters, and no
 *    nested writer published while the writer it interrupted had not;
 *  - ring order is timestamp order, and no reader sees an unwritten slot;
 *  - every event offered was written once or counted lost (written + lost =
 *    attempted), and the counters count the records;
 *  - a STOP/JTN ring never reserved a slot the consumer had not consumed,
 *    and ordinary events stayed out of the emergency area;
 *  - every event is preceded in its ring by a LOST record whose total covers
 *    every loss the ring counted before the event reserved its slot;
 *  - nothing a CPU records has a later time than its stop record.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

/* the event every simulated probe writes; par2 is its id, par1 its depth */
#define EV		HWT_EV_USER_EVENT_0
#define MAX_RINGS	(4 * SHIM_NR_CPUS)
#define MAX_EVENTS	4096
#define MAX_DEPTH	8

/* ---- what kmod's other files define ------------------------------------ */

DEFINE_PER_CPU(struct hwt_ring __rcu *, hwt_cur);	/* control.c */
u16 hwt_filter_mask;					/* control.c */
DEFINE_STATIC_KEY_TRUE(hwt_clock_is_cycles);		/* clock.c */

u32 hwt_clock_kind(void)
{
	return static_branch_likely(&hwt_clock_is_cycles) ? HWT_CLOCK_TSC :
							     HWT_CLOCK_MONO;
}

u64 hwt_clock_rate(void)
{
	return hwt_clock_kind() == HWT_CLOCK_TSC ? tsc_khz : 1000000;
}

int shim_cpu;
int shim_preempt_count;

/* ---- the simulation ----------------------------------------------------- */

/* A record that left a ring (consumed, or overwritten by a CYC ring). */
struct gone {
	struct hwt_event ev;
	unsigned long lost_at, fill_at;
};

/* The test's view of one ring, beside the kernel's. */
struct sring {
	struct hwt_chunk *c;
	struct hwt_ring *r;
	int cpu;
	/* per position, at its last reservation: the ring's lost count, fill */
	unsigned long *lost_at, *fill_at;
	/* what left the ring, oldest first */
	struct gone *gone;
	unsigned long nr_gone, max_gone;
	unsigned long reservations;	/* positions taken, ever */
};

/* A record left ring s (the array grows: most runs move a few records). */
static void gone_add(struct sring *s, struct gone g)
{
	if (s->nr_gone == s->max_gone) {
		s->max_gone = s->max_gone ? 2 * s->max_gone : 16;
		s->gone = realloc(s->gone, s->max_gone * sizeof(*s->gone));
		if (!s->gone)
			ck_abort_msg("out of memory");
	}
	s->gone[s->nr_gone++] = g;
}

static struct sim {
	unsigned long long now;		/* the clock: one tick per read */
	unsigned long clock_reads[2];	/* cycles, mono */
	unsigned long wakeups;
	unsigned long wake_fill;	/* the watched ring's fill at the last one */
	unsigned long tail_reads;	/* acquire loads of the watched data_tail */
	unsigned long head_cas_failed;	/* failed reservations, any ring */
	unsigned long attempted;	/* events offered: ids 1..attempted */
	unsigned long untraced;		/* of them, found their CPU not tracing */
	bool looked[MAX_DEPTH + 2];	/* the writer at depth d read hwt_cur */
	int depth;			/* writers and interrupts running */
	struct hwt_ring *watch;
	/* the current test's interrupt: runs at every shim point */
	void (*irq)(enum shim_at at, const volatile void *addr);
	struct sring rings[MAX_RINGS];
	int nr_rings;
	struct hwt_chunk *chunks[4];
	int nr_chunks;
	unsigned char seen[MAX_EVENTS + 1];
	char where[128];		/* what runs, for a failure's message */
	bool trace;			/* print every point (HWT_MODEL_TRACE) */
} sim;

/*
 * ck_assert_msg() with what runs in front, but only on failure: Check
 * records every assertion that holds (a write(2) each), and the hot paths
 * here check millions of times.
 */
#define check(cond, fmt, ...) do {					\
	if (!(cond)) {							\
		sim_dump();						\
		ck_abort_msg("%s" fmt, sim.where, ##__VA_ARGS__);	\
	}								\
} while (0)
static void sim_dump(void);
#define check_op(a, op, b)						\
	check((a) op (b), "%s %s %s: %llu, %llu", #a, #op, #b,		\
	      (unsigned long long)(a), (unsigned long long)(b))

static struct sring *sring_of_head(const volatile void *head)
{
	for (int i = 0; i < sim.nr_rings; i++)
		if (&sim.rings[i].r->head == head)
			return &sim.rings[i];
	return NULL;
}

static struct sring *sring_of(const struct hwt_ring *r)
{
	return sring_of_head(&r->head);
}

static unsigned long span(const struct hwt_ring *r)
{
	return 2UL * r->nr_slots;
}

static unsigned long pos_of(const struct hwt_ring *r)
{
	return HWT_HEAD_POS((unsigned long)r->head.a);
}

static unsigned long pos_add(const struct hwt_ring *r, unsigned long pos, long n)
{
	return (pos + span(r) + n) % span(r);
}

/* Records between the consumer and position pos (no shim: not the kernel's read). */
static unsigned long fill_at(const struct hwt_ring *r, unsigned long pos)
{
	return (pos + span(r) - r->meta->data_tail) % span(r);
}

static struct hwt_event *slot(const struct hwt_ring *r, unsigned long pos)
{
	return &r->data[pos < r->nr_slots ? pos : pos - r->nr_slots];
}

/*
 * What the fast path may do with r's head: write its room's positions, at
 * its lap's lap_data.  The head knows its lap, and room never reaches a
 * lap's last slot.
 */
static void check_lap(const struct hwt_ring *r)
{
	unsigned long head = (unsigned long)r->head.a, pos = pos_of(r);
	unsigned long room = head & HWT_ROOM_MASK, lap = pos >= r->nr_slots;
	unsigned long lap_end = lap ? span(r) : r->nr_slots;

	check(!!(head & HWT_HEAD_LAP) == lap, "ring %u: position %lu, lap bit %d",
	      r->meta->chunk, pos, !!(head & HWT_HEAD_LAP));
	check((struct hwt_event *)r->lap_data[lap] + pos == slot(r, pos),
	      "ring %u: lap_data[%lu] is not position %lu's lap", r->meta->chunk,
	      lap, pos);
	check(!room || pos + room < lap_end,
	      "ring %u: room %lu from position %lu reaches its lap's last slot (%lu)",
	      r->meta->chunk, room, pos, lap_end - 1);
}

static unsigned long lost_total(const struct hwt_event *e)
{
	return (unsigned long)e->par1 << 32 | e->par2;
}

/*
 * A reservation on r: note what the ring had lost and held then; a CYC ring
 * is about to overwrite a record (it leaves), a STOP or JTN ring must not.
 */
static void reserved(struct sring *s, unsigned long old)
{
	struct hwt_ring *r = s->r;
	unsigned long pos = HWT_HEAD_POS(old), fill = fill_at(r, pos);

	if (pos == pos_of(r))
		return;		/* only the room changed: hwt_ring_stop_fast_path() */
	s->lost_at[pos] = r->lost.a;
	s->fill_at[pos] = fill;
	if (!r->cyc)
		check(fill < r->nr_slots,
		      "ring %d/%d reserved position %lu, which the consumer (tail %llu) has not consumed",
		      r->meta->chunk, s->cpu, pos,
		      (unsigned long long)r->meta->data_tail);
	else if (s->reservations >= r->nr_slots)
		gone_add(s, (struct gone){ *slot(r, pos),
			s->lost_at[pos_add(r, pos, -(long)r->nr_slots)],
			s->fill_at[pos_add(r, pos, -(long)r->nr_slots)] });
	s->reservations++;
}

/* With HWT_MODEL_TRACE set: every point, for reading an interleaving. */
static void trace_point(enum shim_at at, const volatile void *addr, unsigned long val)
{
	static const char *const kinds[] = {
		"local", "cmpxchg ok", "cmpxchg fail", "xchg", "read", "write",
		"acquire", "barrier", "percpu", "cycles", "mono", "wakeup",
	};
	const char *what = "";
	struct hwt_ring *r = sim.watch ? hwt_cur[shim_cpu] ?: sim.watch : NULL;

	if (r && addr == &r->head)
		what = "head";
	else if (r && addr == &r->nest)
		what = "nest";
	else if (r && addr == &r->lost)
		what = "lost";
	else if (r && addr == &r->written)
		what = "written";
	else if (r && addr == &r->lost_reported)
		what = "lost_reported";
	else if (r && addr == &r->meta->data_tail)
		what = "data_tail";
	else if (r && addr == &r->meta->data_head)
		what = "data_head";
	else if (addr == &hwt_cur[shim_cpu])
		what = "hwt_cur";
	fprintf(stderr, "  depth %d: %s %s%s", sim.depth, kinds[at], what,
		addr && !*what ? "?" : "");
	if (r)
		fprintf(stderr, " (pos %lu room %lu nest %ld lost %ld reported %lu)",
			pos_of(r), (unsigned long)r->head.a & HWT_ROOM_MASK,
			r->nest.a, r->lost.a, r->lost_reported);
	fprintf(stderr, at == SHIM_CYCLES || at == SHIM_MONO ? " = %lu\n" : "\n", val);
}

void shim_point(enum shim_at at, const volatile void *addr, unsigned long val)
{
	struct sring *s;

	if (sim.trace)
		trace_point(at, addr, val);
	if (at == SHIM_ACQUIRE && sim.watch && addr == &sim.watch->meta->data_tail)
		sim.tail_reads++;
	/* a writer's first look at its ring: NULL, and it was never offered */
	if (at == SHIM_PERCPU && addr == &hwt_cur[shim_cpu] && !sim.looked[sim.depth]) {
		sim.looked[sim.depth] = true;
		sim.untraced += !hwt_cur[shim_cpu];
	}
	if (at == SHIM_CMPXCHG_OK || at == SHIM_CMPXCHG_FAIL) {
		s = sring_of_head(addr);
		if (s && at == SHIM_CMPXCHG_FAIL)
			sim.head_cas_failed++;
		else if (s)
			reserved(s, val);
		if (s)
			check_lap(s->r);
	}
	if (sim.irq)
		sim.irq(at, addr);
}

unsigned long long shim_clock(enum shim_at kind)
{
	unsigned long long t = ++sim.now;

	/* every record's time is from the clock tracing runs on */
	check((kind == SHIM_CYCLES) == hwt_clock_is_cycles.enabled,
	      "a %s clock read while tracing runs on the other",
	      kind == SHIM_CYCLES ? "cycles" : "mono");
	sim.clock_reads[kind == SHIM_MONO]++;
	shim_point(kind, NULL, t);
	return t;
}

void shim_bug(const char *what, const char *file, int line)
{
	ck_abort_msg("%s:%d: %s", file, line, what);
	abort();
}

/* wakeup.c's ring wakeup is an irq_work; here it is counted and is a point */
void hwt_wakeup_ring(void)
{
	sim.wakeups++;
	if (sim.watch)
		sim.wake_fill = fill_at(sim.watch, pos_of(sim.watch));
	shim_point(SHIM_WAKEUP, NULL, 0);
}

static void sim_free(void)
{
	for (int i = 0; i < sim.nr_rings; i++) {
		struct sring *s = &sim.rings[i];

		free(s->r->meta);
		free(s->r->data);
		free(s->lost_at);
		free(s->fill_at);
		free(s->gone);
	}
	for (int i = 0; i < sim.nr_chunks; i++)
		free(sim.chunks[i]);
}

/* A fresh machine: no chunk, tracing off, CPU 0, the given clock. */
static void sim_reset(bool cycles)
{
	sim_free();
	memset(&sim, 0, sizeof(sim));
	memset(hwt_cur, 0, sizeof(hwt_cur));
	hwt_filter_mask = 0;
	hwt_clock_is_cycles.enabled = cycles;
	shim_cpu = 0;
	shim_preempt_count = 0;
}

static void *zalloc(size_t align, size_t size)
{
	size = (size + align - 1) / align * align;
	void *p = aligned_alloc(align, size);

	check(p, "out of memory");
	return memset(p, 0, size);
}

/*
 * A chunk (id: its index) of the given mode, with a ring per simulated CPU
 * as chunk.c makes them, but on the test's memory (hwt_ring_setup()).
 */
static struct hwt_chunk *sim_chunk(u32 mode, u32 normal, u32 emergency)
{
	size_t size = sizeof(struct hwt_chunk) + SHIM_NR_CPUS * sizeof(struct hwt_ring);
	struct hwt_chunk *c = zalloc(_Alignof(struct hwt_chunk), size);
	u32 nr = normal + emergency;

	c->id = sim.nr_chunks;
	c->flags = mode;
	c->normal_size = normal * HWT_EVENT_SIZE;
	c->emergency_size = emergency * HWT_EVENT_SIZE;
	sim.chunks[sim.nr_chunks++] = c;
	for (int cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		struct sring *s = &sim.rings[sim.nr_rings++];

		s->c = c;
		s->r = &c->rings[cpu];
		s->cpu = cpu;
		s->lost_at = zalloc(16, 2 * nr * sizeof(long));
		s->fill_at = zalloc(16, 2 * nr * sizeof(long));
		hwt_ring_setup(s->r, zalloc(4096, 4096),
			       zalloc(16, nr * HWT_EVENT_SIZE), nr, normal,
			       c->id, mode, cpu);
	}
	return c;
}

/* This CPU traces into chunk c (control.c's set_cur(), start records aside). */
static struct hwt_ring *sim_start(struct hwt_chunk *c)
{
	hwt_cur[shim_cpu] = &c->rings[shim_cpu];
	sim.watch = hwt_cur[shim_cpu];
	return sim.watch;
}

/* One event, as a probe on this CPU writes it. */
static void sim_event(void)
{
	unsigned long id = ++sim.attempted;

	check(id <= MAX_EVENTS, "more than %d events", MAX_EVENTS);
	sim.depth++;
	check(sim.depth <= MAX_DEPTH, "nested deeper than %d", MAX_DEPTH);
	sim.looked[sim.depth] = false;
	hwt_record(EV, (u16)sim.depth, (u32)id);
	sim.depth--;
}

static void sim_events(int n)
{
	while (n--)
		sim_event();
}

/* An interrupt on this CPU: irq_enter() raises the preempt count. */
static void sim_irq_event(void)
{
	shim_preempt_count++;
	sim_event();
	shim_preempt_count--;
}

/*
 * control.c's cpu_stop() (static there), run by stop_machine() on this CPU
 * with interrupts off, never inside a writer of this CPU's own (only an
 * NMI, a plan's act, interrupts it): off the ring first, then the pending
 * loss and the stop record (edge_record()), and the ring closed.
 */
static void sim_cpu_stop(void)
{
	struct hwt_ring *r;

	ck_assert_int_eq(sim.depth, 0);
	shim_preempt_count++;
	sim.depth++;
	sim.looked[sim.depth] = true;
	r = unrcu_pointer(xchg(this_cpu_ptr(&hwt_cur), NULL));
	if (r) {
		hwt_report_lost(r);
		if (hwt_ring_write(r, r->nr_slots, HWT_EV_TRACE_STOP, 0, 0))
			hwt_count_lost(r);
		hwt_ring_close(r);
	}
	sim.depth--;
	shim_preempt_count--;
}

/*
 * The consumer, on another CPU: takes up to n published records of a STOP
 * or JTN ring (acquire data_head, read, release data_tail).
 */
static void sim_consume(struct hwt_ring *r, unsigned long n)
{
	struct sring *s = sring_of(r);
	unsigned long head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	unsigned long tail = r->meta->data_tail;

	for (; tail != head && n; tail = pos_add(r, tail, 1), n--)
		gone_add(s, (struct gone){ *slot(r, tail),
			s->lost_at[tail], s->fill_at[tail] });
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void sim_consume_cpu(void)
{
	for (int i = 0; i < sim.nr_rings; i++)
		if (sim.rings[i].cpu == shim_cpu && !sim.rings[i].r->cyc)
			sim_consume(sim.rings[i].r, ULONG_MAX);
}

/* The i-th record a reader of r has (consumed or overwritten ones first). */
static unsigned long stream_len(const struct sring *s)
{
	const struct hwt_ring *r = s->r;
	unsigned long live;

	if (r->cyc)
		live = min_t(unsigned long, r->written.a, r->nr_slots);
	else
		live = fill_at(r, pos_of(r));
	return s->nr_gone + live;
}

static struct gone stream_at(const struct sring *s, unsigned long i)
{
	const struct hwt_ring *r = s->r;
	unsigned long pos;

	if (i < s->nr_gone)
		return s->gone[i];
	pos = pos_add(r, pos_of(r), (long)(i - stream_len(s)));
	return (struct gone){ *slot(r, pos), s->lost_at[pos], s->fill_at[pos] };
}

/* Every ring's records, with HWT_MODEL_VERBOSE set: for a failure. */
static void sim_dump(void)
{
	if (!getenv("HWT_MODEL_VERBOSE"))
		return;
	fprintf(stderr, "%s\n", sim.where);
	for (int i = 0; i < sim.nr_rings; i++) {
		struct sring *s = &sim.rings[i];
		struct hwt_ring *r = s->r;

		if (!r->written.a && !r->lost.a)
			continue;
		fprintf(stderr, "ring %d/%d: head %lu room %lu written %ld lost %ld reported %lu tail %llu\n",
			s->c->id, s->cpu, pos_of(r),
			(unsigned long)r->head.a & HWT_ROOM_MASK, r->written.a,
			r->lost.a, r->lost_reported,
			(unsigned long long)r->meta->data_tail);
		for (unsigned long j = 0; j < stream_len(s); j++) {
			struct gone g = stream_at(s, j);

			fprintf(stderr, "  %3lu: code 0x%02x par1 %u par2 %u time %llu (lost %lu, fill %lu at reservation)\n",
				j, g.ev.code, g.ev.par1, g.ev.par2,
				(unsigned long long)hwt_event_tsc(&g.ev),
				g.lost_at, g.fill_at);
		}
	}
}

/* The promises (see the top of this file), with every writer done. */
static void sim_check(void)
{
	unsigned long events = 0, lost = 0;
	u64 stop_at[SHIM_NR_CPUS] = { 0 };

	memset(sim.seen, 0, sizeof(sim.seen));
	check_op(shim_preempt_count, ==, 0);
	for (int i = 0; i < sim.nr_rings; i++) {
		struct sring *s = &sim.rings[i];
		struct hwt_ring *r = s->r;
		struct hwt_ring_meta *m = r->meta;
		unsigned long n = stream_len(s), covered = 0, written;
		u64 last_ts = 0;

		written = r->written.a;
		check_lap(r);
		check_op(r->nest.a, ==, 0);
		check_op(m->data_head, ==, pos_of(r));
		check_op(m->written, ==, written);
		check_op(m->lost, ==, r->lost.a);
		if (r->cyc)
			check_op(m->overwritten, ==,
				 written > r->nr_slots ? written - r->nr_slots : 0);
		/* every record written is in the stream, none twice */
		check_op(n, ==, written);
		lost += r->lost.a;
		for (unsigned long j = 0; j < n; j++) {
			struct gone g = stream_at(s, j);
			u64 ts = hwt_event_tsc(&g.ev);

			check(g.ev.code != HWT_EV_EMPTY,
			      "ring %d/%d: record %lu of %lu was never written",
			      s->c->id, s->cpu, j, n);
			check(ts > last_ts,
			      "ring %d/%d: record %lu (time %llu) is not after the one before (%llu)",
			      s->c->id, s->cpu, j, (unsigned long long)ts,
			      (unsigned long long)last_ts);
			last_ts = ts;
			if (g.ev.code == HWT_EV_TRACE_STOP)
				stop_at[s->cpu] = ts;
			if (g.ev.code == HWT_EV_LOST) {
				check_op(lost_total(&g.ev), >=, covered);
				covered = lost_total(&g.ev);
				continue;
			}
			if (g.ev.code != EV)
				continue;
			events++;
			check_op(g.ev.par2, >=, 1);
			check_op(g.ev.par2, <=, sim.attempted);
			check(!sim.seen[g.ev.par2]++, "event %u written twice",
			      g.ev.par2);
			if (!r->cyc)
				check(g.fill_at < r->normal_slots,
				      "event %u in the emergency area (fill %lu of %u)",
				      g.ev.par2, g.fill_at, r->normal_slots);
			check(g.lost_at <= covered,
			      "ring %d/%d: event %u follows %lu losses, but the LOST record before it says %lu",
			      s->c->id, s->cpu, g.ev.par2, g.lost_at, covered);
		}
	}
	check(events + lost == sim.attempted - sim.untraced,
	      "written %lu + lost %lu != attempted %lu", events, lost,
	      sim.attempted - sim.untraced);
	/* nothing after a CPU's stop record, in any of its rings */
	for (int i = 0; i < sim.nr_rings; i++) {
		struct sring *s = &sim.rings[i];

		for (unsigned long j = 0; stop_at[s->cpu] && j < stream_len(s); j++) {
			struct gone g = stream_at(s, j);

			check(hwt_event_tsc(&g.ev) <= stop_at[s->cpu],
			      "CPU %d: code 0x%x (par2 %u) recorded after its stop record",
			      s->cpu, g.ev.code, g.ev.par2);
		}
	}
}

/* The record at position pos of r. */
static struct hwt_event *rec(struct hwt_ring *r, unsigned long pos)
{
	return slot(r, pos % span(r));
}

/* n records written, and all of them published to the consumer */
static void assert_published(const struct hwt_ring *r, unsigned long n)
{
	ck_assert_uint_eq(r->meta->data_head, n);
	ck_assert_uint_eq(r->meta->written, n);
}

/* Records from position from on: n of {code, par2} (for LOST: the total). */
struct want {
	u16 code;
	unsigned long val;
};

static void expect_records(struct hwt_ring *r, unsigned long from,
			   const struct want *w, int n)
{
	ck_assert_uint_eq(fill_at(r, pos_of(r)) - fill_at(r, from), n);
	for (int i = 0; i < n; i++) {
		struct hwt_event *e = rec(r, from + i);

		ck_assert_msg(e->code == w[i].code, "record %d: code 0x%x, want 0x%x",
			      i, e->code, w[i].code);
		ck_assert_msg((e->code == HWT_EV_LOST ? lost_total(e) : e->par2) == w[i].val,
			      "record %d (code 0x%x): %lu, want %lu", i, e->code,
			      e->code == HWT_EV_LOST ? lost_total(e) : e->par2,
			      w[i].val);
	}
}

#define EXPECT(r, from, ...) do {					\
	const struct want __w[] = { __VA_ARGS__ };			\
	expect_records((r), (from), __w, sizeof(__w) / sizeof(__w[0]));	\
} while (0)

/* ---- 1: five writers deep ---------------------------------------------- */

static int irqs_left;

/* At every clock read, while any are left, an interrupt writes. */
static void nest_at_clock(enum shim_at at, const volatile void *addr)
{
	(void)addr;
	if ((at == SHIM_CYCLES || at == SHIM_MONO) && irqs_left > 0) {
		irqs_left--;
		sim_irq_event();
	}
}

/*
 * Task, softirq, IRQ, NMI, and a fifth writer nested in the NMI: the fifth
 * is refused and counted lost, the four others are written, and the first
 * of them to write after the refusal (the NMI's, which retries) is preceded
 * by a LOST record that covers it.  Fails if HWT_MAX_NEST is not 4.
 */
START_TEST(nest_five_deep)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 64, 8));
	irqs_left = 4;
	sim.irq = nest_at_clock;
	sim_event();
	sim.irq = NULL;
	ck_assert_uint_eq(r->lost.a, 1);
	ck_assert_uint_eq(r->meta->lost, 1);
	/* event 5 (the fifth writer) is lost; 4 (the NMI) retried after it */
	EXPECT(r, 0, { HWT_EV_LOST, 1 }, { EV, 4 }, { EV, 3 }, { EV, 2 }, { EV, 1 });
	assert_published(r, 5);
	sim_event();
	EXPECT(r, 5, { EV, 6 });
	sim_check();
}
END_TEST

/* ---- 2: a nested writer inside the reservation ------------------------- */

static int nest_at_kind = -1, nest_at_nth;
static const volatile void *nest_at_addr;

/*
 * Once: an interrupt writes at the nth point of the kind (and address) given.
 * It writes, but while the writer it interrupted is inside the ring (nest
 * above 0) only that writer may publish.
 */
static void nest_once(enum shim_at at, const volatile void *addr)
{
	struct hwt_ring *r = sim.watch;
	unsigned long pos = pos_of(r);
	u64 published = r->meta->data_head;
	long nest = r->nest.a;

	if ((int)at != nest_at_kind || (nest_at_addr && addr != nest_at_addr) ||
	    --nest_at_nth > 0)
		return;
	nest_at_kind = -1;
	sim_irq_event();
	ck_assert_uint_eq(pos_of(r), pos_add(r, pos, 1));
	if (nest > 0)
		ck_assert_uint_eq(r->meta->data_head, published);
	else
		ck_assert_uint_eq(r->meta->data_head, pos_of(r));
}

static void nest_at(int kind, const volatile void *addr, int nth)
{
	nest_at_kind = kind;
	nest_at_addr = addr;
	nest_at_nth = nth;
	sim.irq = nest_once;
}

/* One event with an interrupt at the nth access of kind (to addr), which must come. */
static void event_nested_at(int kind, const volatile void *addr, int nth)
{
	nest_at(kind, addr, nth);
	sim_event();
	sim.irq = NULL;
	ck_assert_int_eq(nest_at_kind, -1);
}

/*
 * The outer writer read head and the clock, then an interrupt wrote: the
 * outer's cmpxchg fails and it retries with a new time, so its record comes
 * second and is later.  Both are published when the outer commits, not
 * before.  Fails with the clock read outside the retry loop, or with a
 * commit that publishes for a nested writer.
 */
START_TEST(nest_retry_keeps_time_order)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 64, 8));
	sim_events(2);
	sim.head_cas_failed = 0;
	/* event 3; the interrupt's is 4 */
	event_nested_at(_i == 0 ? SHIM_CYCLES : SHIM_MONO, NULL, 1);
	ck_assert_uint_eq(sim.head_cas_failed, 1);
	EXPECT(r, 2, { EV, 4 }, { EV, 3 });
	ck_assert_uint_lt(hwt_event_tsc(rec(r, 2)), hwt_event_tsc(rec(r, 3)));
	assert_published(r, 4);
	sim_check();
}
END_TEST

/*
 * An interrupt writes just after the outer writer published data_head, and
 * then just after it cleared nest: either way data_head covers both records
 * when the outer returns (its commit looks again).  Fails without the
 * commit's re-check.
 */
START_TEST(nest_during_commit_is_published)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 64, 8));
	event_nested_at(SHIM_WRITE, &r->meta->data_head, 1);
	EXPECT(r, 0, { EV, 1 }, { EV, 2 });
	assert_published(r, 2);

	/*
	 * After the commit's local_set(&r->nest, 0), the third point on nest
	 * in a write (local_inc_return, local_read, local_set): the interrupt
	 * is outermost then and publishes itself, the outer looks again.
	 */
	event_nested_at(SHIM_LOCAL, &r->nest, 3);
	EXPECT(r, 2, { EV, 3 }, { EV, 4 });
	assert_published(r, 4);
	sim_check();
}
END_TEST

/* ---- 3: room, the watermark and data_tail ------------------------------ */

/*
 * A STOP ring filled with nothing consumed: the fast path reads data_tail
 * only when its room runs out (at the watermark and at the normal area's
 * end), the wakeup fires once, when the fill reaches normal / 4, and the
 * ring holds exactly its normal area's worth of events: the rest are lost.
 */
START_TEST(room_stop_fill)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 32, 8));
	ck_assert_uint_eq(r->watermark, 8);
	sim.tail_reads = 0;
	for (int i = 1; i <= 40; i++) {
		unsigned long reads = sim.tail_reads, wakeups = sim.wakeups;

		sim_event();
		reads = sim.tail_reads - reads;
		if (i == 8 || i == 33)		/* the room ran out */
			ck_assert_msg(reads == 1, "event %d read data_tail %lu times", i, reads);
		else if (i < 33)
			ck_assert_msg(reads == 0, "event %d read data_tail %lu times", i, reads);
		ck_assert_uint_eq(sim.wakeups - wakeups, i == 8);
	}
	ck_assert_uint_eq(sim.wake_fill, 8);
	ck_assert_uint_eq(r->written.a, 32);
	ck_assert_uint_eq(r->lost.a, 8);
	ck_assert_uint_eq(fill_at(r, pos_of(r)), 32);
	sim_check();
}
END_TEST

/*
 * The same with interrupts taking the room from under each writer: at every
 * clock read one more event nests, two deep at most.  Still one wakeup at
 * fill 8, no reservation over an unconsumed record (checked at each one),
 * 32 events held and the rest lost.
 */
static void nest_two_deep_at_clock(enum shim_at at, const volatile void *addr)
{
	(void)addr;
	/* bounded: each retry reads the clock again, and would nest again */
	if ((at == SHIM_CYCLES || at == SHIM_MONO) && sim.depth < 3 &&
	    sim.attempted < MAX_EVENTS / 2)
		sim_irq_event();
}

START_TEST(room_taken_by_nested_writers)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 32, 8));
	sim_events(6);				/* one event of room left */
	sim.irq = nest_two_deep_at_clock;
	while (sim.attempted < 60)
		sim_event();
	sim.irq = NULL;
	ck_assert_uint_eq(sim.wakeups, 1);
	ck_assert_uint_eq(sim.wake_fill, 8);
	ck_assert_uint_eq(fill_at(r, pos_of(r)), 32);
	ck_assert_uint_eq(r->written.a, 32);
	ck_assert_uint_eq(r->written.a + r->lost.a, sim.attempted);
	sim_check();
}
END_TEST

/* A data_tail outside the ring: full, whatever it says, and never an index. */
START_TEST(room_bad_data_tail)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 16, 4));
	sim_events(3);				/* the room: up to the watermark (4) */
	r->meta->data_tail = 2 * r->nr_slots + 5;
	sim_events(10);				/* the 4th reads it */
	ck_assert_uint_eq(r->written.a, 3);
	ck_assert_uint_eq(r->lost.a, 10);
	r->meta->data_tail = 0;
	sim_event();
	EXPECT(r, 3, { HWT_EV_LOST, 10 }, { EV, 14 });
	sim_check();
}
END_TEST

/* ---- 4: loss reports ------------------------------------------------------ */

/*
 * A full STOP ring loses events; once the consumer drained it, the next
 * event is preceded by a LOST record with the total.  A total past 32 bits
 * (as 4G losses would leave it) has its bits 32..47 in par1.
 */
START_TEST(loss_reported_after_drain)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 16, 4));
	sim_events(21);
	ck_assert_uint_eq(r->written.a, 16);
	ck_assert_uint_eq(r->lost.a, 5);
	ck_assert_uint_eq(r->meta->lost, 5);
	sim_consume(r, ULONG_MAX);
	sim_event();
	EXPECT(r, 16, { HWT_EV_LOST, 5 }, { EV, 22 });
	ck_assert_uint_eq(rec(r, 16)->par1, 0);
	ck_assert_uint_eq(rec(r, 16)->par2, 5);
	sim_check();

	/* four billion losses later */
	local_set(&r->lost, (1L << 32) + 7);
	hwt_ring_stop_fast_path(r);
	sim_event();
	EXPECT(r, 18, { HWT_EV_LOST, (1UL << 32) + 7 }, { EV, 23 });
	ck_assert_uint_eq(rec(r, 18)->par1, 1);
	ck_assert_uint_eq(rec(r, 18)->par2, 7);
}
END_TEST

/*
 * Writers 2..4 interrupt the one before just after it first raised nest
 * (before it reads head); a 5th interrupts the 4th's reservation at its
 * clock read.
 */
static bool nested_once[MAX_DEPTH + 1];

static void nest_before_head_then_fifth(enum shim_at at, const volatile void *addr)
{
	struct hwt_ring *r = sim.watch;

	if (sim.depth < 4 && at == SHIM_LOCAL && addr == &r->nest &&
	    r->nest.a == sim.depth && !nested_once[sim.depth]) {
		nested_once[sim.depth] = true;
		sim_irq_event();
	}
	else if (sim.depth == 4 && (at == SHIM_CYCLES || at == SHIM_MONO) &&
		 !nested_once[4]) {
		nested_once[4] = true;
		sim_irq_event();
	}
}

/*
 * The fourth writer checked its room and read the clock; a fifth, refused,
 * counts its event lost in between.  That loss alone (the head word's room
 * set to 0, nothing else moved) fails the fourth's cmpxchg, and the slow
 * path writes the LOST record before the fourth's event.
 */
START_TEST(loss_in_reservation_fails_cmpxchg)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 64, 8));
	memset(nested_once, 0, sizeof(nested_once));
	sim.irq = nest_before_head_then_fifth;
	sim_event();
	sim.irq = NULL;
	ck_assert_uint_eq(sim.attempted, 5);
	ck_assert_uint_eq(sim.head_cas_failed, 1);
	ck_assert_uint_eq(r->lost.a, 1);
	EXPECT(r, 0, { HWT_EV_LOST, 1 }, { EV, 4 }, { EV, 3 }, { EV, 2 }, { EV, 1 });
	sim_check();
}
END_TEST

/*
 * The same in the slow path, where the room was 0 already: the fourth
 * writer reserves a lap's last slot.  The fifth's loss still moves the
 * head word (its loss generation), so the fourth's reservation fails and
 * reads the loss count again; its slot reports the loss.
 */
START_TEST(loss_in_slow_reservation_fails_cmpxchg)
{
	struct hwt_ring *r;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_STOP, 64, 8));
	sim_events(64);
	sim_consume(r, 64);
	sim_events(7);
	ck_assert_uint_eq(pos_of(r), 71);
	ck_assert_uint_eq(r->head.a & HWT_ROOM_MASK, 0);
	memset(nested_once, 0, sizeof(nested_once));
	sim.irq = nest_before_head_then_fifth;
	sim.head_cas_failed = 0;
	sim_event();
	sim.irq = NULL;
	ck_assert_uint_eq(sim.attempted, 64 + 7 + 5);
	ck_assert_uint_eq(sim.head_cas_failed, 1);
	ck_assert_uint_eq(r->lost.a, 1);
	EXPECT(r, 71, { HWT_EV_LOST, 1 }, { EV, 75 }, { EV, 74 }, { EV, 73 }, { EV, 72 });
	sim_check();
}
END_TEST

/* ---- 5: CYC --------------------------------------------------------------- */

/*
 * A CYC ring overwrites: written counts every record, overwritten those
 * gone (written - nr_slots once wrapped), the ring holds the last nr_slots
 * in order, data_head runs over 2 * nr_slots; data_tail is never read and
 * nothing wakes the consumer.  Nested writers at every clock read count too.
 */
START_TEST(cyc_overwrites)
{
	struct hwt_ring *r;
	unsigned long n;

	sim_reset(_i == 0);
	r = sim_start(sim_chunk(HWT_CHUNK_CYC, 8, 4));
	sim.tail_reads = 0;
	for (n = 1; n <= 40; n++) {
		sim_event();
		ck_assert_uint_eq(r->meta->written, n);
		ck_assert_uint_eq(r->meta->overwritten, n > 12 ? n - 12 : 0);
		ck_assert_uint_eq(r->meta->data_head, n % 24);
	}
	for (n = 0; n < 12; n++)
		ck_assert_uint_eq(rec(r, 40 - 12 + n)->par2, 40 - 12 + n + 1);
	sim.irq = nest_two_deep_at_clock;
	while (sim.attempted < 100)
		sim_event();
	sim.irq = NULL;
	ck_assert_uint_eq(r->meta->written, sim.attempted);
	ck_assert_uint_eq(r->meta->overwritten, sim.attempted - 12);
	ck_assert_uint_eq(r->lost.a, 0);
	ck_assert_uint_eq(sim.tail_reads, 0);
	ck_assert_uint_eq(sim.wakeups, 0);
	sim_check();
}
END_TEST

/* ---- 6: JTN ----------------------------------------------------------------- */

/*
 * On CPU 1, a full JTN ring whose chunk links to a STOP chunk: the CPU
 * moves to the linked chunk's ring, a NEXT_CHUNK record (to, from) goes into
 * the old ring's emergency area, and the event that did not fit is the
 * first in the new ring; when that fills too, events are lost.  CPU 0's
 * rings stay empty.  written + lost = attempted.
 */
START_TEST(jtn_moves_on)
{
	struct hwt_chunk *a, *b;
	struct hwt_ring *ra, *rb;

	sim_reset(_i == 0);
	a = sim_chunk(HWT_CHUNK_JTN, 8, 4);
	b = sim_chunk(HWT_CHUNK_STOP, 8, 4);
	a->link = b;
	shim_cpu = 1;
	ra = sim_start(a);
	rb = &b->rings[1];
	sim_events(8);
	ck_assert_ptr_eq(hwt_cur[1], ra);
	sim_event();
	ck_assert_ptr_eq(hwt_cur[1], rb);
	EXPECT(ra, 8, { HWT_EV_NEXT_CHUNK, a->id });
	ck_assert_uint_eq(rec(ra, 8)->par1, b->id);
	EXPECT(rb, 0, { EV, 9 });
	sim_events(11);
	ck_assert_uint_eq(ra->written.a, 9);
	ck_assert_uint_eq(rb->written.a, 8);
	ck_assert_uint_eq(rb->lost.a, 4);
	ck_assert_uint_eq(ra->lost.a, 0);
	ck_assert_uint_eq(a->rings[0].written.a + b->rings[0].written.a, 0);
	sim_check();
}
END_TEST

/*
 * A chain: A full jumps to B, already full, which jumps to C.  Each jump
 * leaves its NEXT_CHUNK record; the event lands in C.
 */
START_TEST(jtn_chain)
{
	struct hwt_chunk *a, *b, *c;

	sim_reset(_i == 0);
	a = sim_chunk(HWT_CHUNK_JTN, 4, 4);
	b = sim_chunk(HWT_CHUNK_JTN, 4, 4);
	c = sim_chunk(HWT_CHUNK_STOP, 4, 4);
	/* B first, alone: full */
	sim_start(b);
	sim_events(4);
	sim_start(a);
	a->link = b;
	b->link = c;
	sim_events(5);
	ck_assert_ptr_eq(hwt_cur[0], &c->rings[0]);
	EXPECT(&a->rings[0], 4, { HWT_EV_NEXT_CHUNK, a->id });
	EXPECT(&b->rings[0], 0, { EV, 1 }, { EV, 2 }, { EV, 3 }, { EV, 4 },
	       { HWT_EV_NEXT_CHUNK, b->id });
	EXPECT(&c->rings[0], 0, { EV, 9 });
	sim_check();
}
END_TEST

/* ---- every interleaving ------------------------------------------------ */

/*
 * A plan: at depth d (1: the outermost writer, or the CPU stopping if the
 * pattern starts with 's'; d + 1: what interrupts depth d), at the k[d]-th
 * shim point that depth reaches, do act[d]: 'N' an interrupt (an NMI, in a
 * stop) writes an event, 'C' the consumer on another CPU drains what is
 * published.  A stop never interrupts a writer (stop_machine()).  explore()
 * runs every plan of a pattern of acts on a scenario (a ring state built
 * from scratch for each run) and sim_check()s it, then writes one more event
 * (a pending loss must be reported before it) and checks again.
 */
struct plan {
	bool stop;		/* the outermost is the CPU stopping */
	int n;
	int k[MAX_DEPTH + 1];
	char act[MAX_DEPTH + 1];
};

static struct plan plan;
static int plan_count[MAX_DEPTH + 2];
static bool plan_fired[MAX_DEPTH + 2];

static void plan_act(char act)
{
	struct hwt_ring *r = hwt_cur[shim_cpu];
	u64 published = r ? r->meta->data_head : 0;
	long nest = r ? r->nest.a : 0;

	switch (act) {
	case 'N':
		sim_irq_event();
		/* a writer was inside r: only it may publish r */
		if (r && nest > 0)
			check(r->meta->data_head == published,
			      "a nested writer published ring %d/%d",
			      r->meta->chunk, shim_cpu);
		break;
	case 'C':
		sim.depth++;
		sim_consume_cpu();
		sim.depth--;
		break;
	}
}

static void plan_irq(enum shim_at at, const volatile void *addr)
{
	int d = sim.depth;

	(void)at;
	(void)addr;
	if (d < 1 || d > plan.n || plan_fired[d] || ++plan_count[d] != plan.k[d])
		return;
	plan_fired[d] = true;
	plan_act(plan.act[d]);
}

struct scenario {
	const char *name;
	void (*setup)(void);
	const char *acts[6];		/* patterns to explore, each a string of acts */
};

static unsigned long explore_runs;

/* Run plan p on scenario sc; true if its last act happened. */
static bool run_plan(const struct scenario *sc, bool cycles, const struct plan *p)
{
	int len;

	sim_reset(cycles);
	len = snprintf(sim.where, sizeof(sim.where), "%s, %s, plan%s", sc->name,
		       cycles ? "cycles" : "mono", p->stop ? " stop," : "");
	for (int d = 1; d <= p->n; d++)
		len += snprintf(sim.where + len, sizeof(sim.where) - len, " %c@%d",
				p->act[d], p->k[d]);
	snprintf(sim.where + len, sizeof(sim.where) - len, ": ");
	sc->setup();
	sim.head_cas_failed = 0;
	plan = *p;
	memset(plan_count, 0, sizeof(plan_count));
	memset(plan_fired, 0, sizeof(plan_fired));
	sim.irq = plan_irq;
	sim.trace = getenv("HWT_MODEL_TRACE") && !strcmp(getenv("HWT_MODEL_TRACE"), sim.where);
	if (p->stop)
		sim_cpu_stop();
	else
		sim_event();
	sim.trace = false;
	sim.irq = NULL;
	explore_runs++;
	sim_check();
	if (hwt_cur[shim_cpu]) {
		sim_consume_cpu();
		sim_event();
		sim_check();
	}
	return plan_fired[p->n];
}

static void explore(const struct scenario *sc, bool cycles, const char *acts,
		    int depth, struct plan *p)
{
	for (int k = 1; ; k++) {
		p->n = depth;
		p->k[depth] = k;
		p->act[depth] = acts[depth - 1];
		if (!run_plan(sc, cycles, p))
			break;
		if (acts[depth])
			explore(sc, cycles, acts, depth + 1, p);
	}
}

/* STOP, 64 + 8 slots, two events in: room to spare */
static void setup_fast(void)
{
	sim_start(sim_chunk(HWT_CHUNK_STOP, 64, 8));
	sim_events(2);
}

/* STOP, 32 + 8, one event of room before the watermark (8) */
static void setup_watermark(void)
{
	sim_start(sim_chunk(HWT_CHUNK_STOP, 32, 8));
	sim_events(6);
}

/* STOP, 8 + 4, one event short of full */
static void setup_full(void)
{
	sim_start(sim_chunk(HWT_CHUNK_STOP, 8, 4));
	sim_events(7);
}

/* STOP, 8 + 4: full, one event lost, half drained: a loss to report */
static void setup_lost(void)
{
	struct hwt_ring *r = sim_start(sim_chunk(HWT_CHUNK_STOP, 8, 4));

	sim_events(9);
	sim_consume(r, 4);
}

/* CYC, 8 + 4, wrapped */
static void setup_cyc(void)
{
	sim_start(sim_chunk(HWT_CHUNK_CYC, 8, 4));
	sim_events(14);
}

/* STOP, 8 + 4, at the first lap's last slot (11), three records held */
static void setup_lap(void)
{
	struct hwt_ring *r = sim_start(sim_chunk(HWT_CHUNK_STOP, 8, 4));

	sim_events(8);
	sim_consume(r, 8);
	sim_events(3);
}

/* STOP, 8 + 4, at the last position (23), seven records held */
static void setup_wrap(void)
{
	struct hwt_ring *r = sim_start(sim_chunk(HWT_CHUNK_STOP, 8, 4));

	sim_events(8);
	sim_consume(r, 8);
	sim_events(8);
	sim_consume(r, 8);
	sim_events(7);
}

/* CYC, 8 + 4, at the first lap's last slot: the next but one overwrites */
static void setup_cyc_lap(void)
{
	sim_start(sim_chunk(HWT_CHUNK_CYC, 8, 4));
	sim_events(11);
}

/* CYC, 8 + 4, at the last position (23), wrapped */
static void setup_cyc_wrap(void)
{
	sim_start(sim_chunk(HWT_CHUNK_CYC, 8, 4));
	sim_events(23);
}

/* JTN, 4 + 4, full, linked to a STOP chunk */
static void setup_jtn(void)
{
	struct hwt_chunk *a = sim_chunk(HWT_CHUNK_JTN, 4, 4);

	a->link = sim_chunk(HWT_CHUNK_STOP, 4, 4);
	sim_start(a);
	sim_events(4);
}

static const struct scenario scenarios[] = {
	{ "fast", setup_fast, { "NNNN", "sN", "sNN", "sC", "CN", "NC" } },
	{ "watermark", setup_watermark, { "NNNN", "sN", "sNN", "sC", "CN", "NC" } },
	{ "full", setup_full, { "NNN", "sN", "sNN", "CN", "NC", "NNC" } },
	{ "lost", setup_lost, { "NNN", "sN", "sNN", "CN", "NC", "NNC" } },
	{ "cyc", setup_cyc, { "NNNN", "sN", "sNN" } },
	{ "lap", setup_lap, { "NNNN", "sN", "sNN", "sC", "CN", "NC" } },
	{ "wrap", setup_wrap, { "NNNN", "sN", "sNN", "sC", "CN", "NC" } },
	{ "cyc_lap", setup_cyc_lap, { "NNNN", "sN", "sNN" } },
	{ "cyc_wrap", setup_cyc_wrap, { "NNNN", "sN", "sNN" } },
	{ "jtn", setup_jtn, { "NNN", "sN", "sNN", "sC", "CN", "NC" } },
};

#define NR_SCENARIOS	(sizeof(scenarios) / sizeof(scenarios[0]))

START_TEST(explore_scenario)
{
	const struct scenario *sc = &scenarios[_i / 2];
	struct plan p = { 0 };

	explore_runs = 0;
	for (int a = 0; a < 6 && sc->acts[a]; a++) {
		const char *acts = sc->acts[a];

		p.stop = acts[0] == 's';
		explore(sc, _i % 2 == 0, acts + p.stop, 1, &p);
	}
	if (getenv("HWT_MODEL_VERBOSE"))
		fprintf(stderr, "%s, %s: %lu runs\n", sc->name,
			_i % 2 == 0 ? "cycles" : "mono", explore_runs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kmod write path");
	TCase *tc = tcase_create("nesting");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, nest_five_deep, 0, 2);
	tcase_add_loop_test(tc, nest_retry_keeps_time_order, 0, 2);
	tcase_add_loop_test(tc, nest_during_commit_is_published, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("room");
	tcase_add_loop_test(tc, room_stop_fill, 0, 2);
	tcase_add_loop_test(tc, room_taken_by_nested_writers, 0, 2);
	tcase_add_loop_test(tc, room_bad_data_tail, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("loss");
	tcase_add_loop_test(tc, loss_reported_after_drain, 0, 2);
	tcase_add_loop_test(tc, loss_in_reservation_fails_cmpxchg, 0, 2);
	tcase_add_loop_test(tc, loss_in_slow_reservation_fails_cmpxchg, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("modes");
	tcase_add_loop_test(tc, cyc_overwrites, 0, 2);
	tcase_add_loop_test(tc, jtn_moves_on, 0, 2);
	tcase_add_loop_test(tc, jtn_chain, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("interleavings");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, explore_scenario, 0, 2 * NR_SCENARIOS);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	sim_free();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
