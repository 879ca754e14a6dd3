// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ring protocol against a fake meta page and data array: a producer
 * here plays the kernel (ring.h's hwt_ring_write, minus nesting).
 */
#include <errno.h>
#include <stdalign.h>

#include "hwt_test.h"
#include "internal.h"

#define MAXN	64

struct fake {
	alignas(64) struct hwt_ring_meta meta;
	struct hwt_event data[MAXN];
	uint32_t n;		/* nr_slots */
	int cyc;
	uint32_t next;		/* sequence number of the next record */
	uint64_t lost;
};

static void fake_init(struct fake *f, uint32_t n, int cyc)
{
	memset(f, 0, sizeof(*f));
	f->n = n;
	f->cyc = cyc;
	f->meta.version = HWT_ABI_MAJOR;
	f->meta.nr_slots = n;
	f->meta.cpu = 3;
	f->meta.flags = cyc ? HWT_CHUNK_CYC : HWT_CHUNK_STOP;
}

/* The kernel's write: refuse when full (STOP), overwrite (CYC). */
static void produce(struct fake *f, uint32_t k)
{
	uint64_t span = 2 * (uint64_t)f->n;

	while (k--) {
		uint64_t head = f->meta.data_head, tail = f->meta.data_tail;
		uint64_t used = head >= tail ? head - tail : head + span - tail;

		if (!f->cyc && used >= f->n) {
			f->lost++;
			continue;
		}
		f->data[head < f->n ? head : head - f->n] =
			test_event(HWT_EV_IPOINT, 0, 1000 + f->next, f->next);
		f->next++;
		f->meta.written++;
		__atomic_store_n(&f->meta.data_head, (head + 1) % span,
				 __ATOMIC_RELEASE);
	}
}

struct sink {
	uint32_t got[4 * MAXN];
	uint32_t n;
	uint32_t calls;
	uint32_t cpu;
	int fail;
};

static int sink_fn(void *ctx, uint32_t cpu, const struct hwt_event *ev, size_t n)
{
	struct sink *s = ctx;

	if (s->fail)
		return -ENOSPC;
	s->calls++;
	s->cpu = cpu;
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_lt(s->n, ARRAY_SIZE(s->got));
		s->got[s->n++] = ev[i].par2;
	}
	return 0;
}

static int64_t drain(struct fake *f, struct sink *s)
{
	return hwt_ring_drain_mem(&f->meta, f->data, f->n, sink_fn, s);
}

START_TEST(test_drain_empty)
{
	struct fake f;
	struct sink s = { 0 };

	fake_init(&f, 8, 0);
	ck_assert_int_eq(drain(&f, &s), 0);
	ck_assert_uint_eq(s.calls, 0);
	ck_assert_uint_eq(f.meta.data_tail, 0);
}
END_TEST

START_TEST(test_drain_simple)
{
	struct fake f;
	struct sink s = { 0 };

	fake_init(&f, 8, 0);
	produce(&f, 5);
	ck_assert_int_eq(drain(&f, &s), 5);
	ck_assert_uint_eq(s.calls, 1);
	ck_assert_uint_eq(s.cpu, 3);
	for (uint32_t i = 0; i < 5; i++)
		ck_assert_uint_eq(s.got[i], i);
	ck_assert_uint_eq(f.meta.data_tail, 5);
	ck_assert_int_eq(drain(&f, &s), 0);
}
END_TEST

/* Batches of every size walk the slots past N-1 and positions past 2N-1. */
START_TEST(test_drain_wrap)
{
	struct fake f;
	struct sink s;
	uint32_t expect = 0;

	fake_init(&f, 7, 0);
	for (uint32_t round = 0; round < 200; round++) {
		uint32_t k = 1 + round % 7;

		memset(&s, 0, sizeof(s));
		produce(&f, k);
		ck_assert_int_eq(drain(&f, &s), k);
		ck_assert_uint_le(s.calls, 2);
		for (uint32_t i = 0; i < k; i++)
			ck_assert_uint_eq(s.got[i], expect++);
		ck_assert_uint_lt(f.meta.data_tail, 14);
	}
	ck_assert_uint_eq(f.lost, 0);
}
END_TEST

/* A full STOP ring: N records (fill == N, positions N apart), then losses. */
START_TEST(test_drain_stop_full)
{
	struct fake f;
	struct sink s = { 0 };

	fake_init(&f, 8, 0);
	produce(&f, 3);
	ck_assert_int_eq(drain(&f, &s), 3);
	produce(&f, 12);		/* 8 fit, 4 lost */
	ck_assert_uint_eq(f.lost, 4);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(drain(&f, &s), 8);
	ck_assert_uint_eq(s.calls, 2);	/* slots 3..7, then 0..2 */
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_uint_eq(s.got[i], 3 + i);
	ck_assert_uint_eq(f.meta.data_tail, f.meta.data_head);
	/* the space is back */
	produce(&f, 8);
	ck_assert_uint_eq(f.lost, 4);
}
END_TEST

START_TEST(test_drain_impossible)
{
	struct fake f;
	struct sink s = { 0 };

	fake_init(&f, 8, 0);
	f.meta.data_head = 16;			/* outside [0, 2N) */
	ck_assert_int_eq(drain(&f, &s), -EPROTO);
	ck_assert_int_eq(errno, EPROTO);
	f.meta.data_head = 3;
	f.meta.data_tail = 99;
	ck_assert_int_eq(drain(&f, &s), -EPROTO);
	f.meta.data_tail = 10;			/* 9 records in 8 slots */
	f.meta.data_head = 3;
	ck_assert_int_eq(drain(&f, &s), -EPROTO);
	ck_assert_uint_eq(s.calls, 0);
	ck_assert_int_eq(hwt_ring_drain_mem(&f.meta, f.data, 0, sink_fn, &s),
			 -EINVAL);
}
END_TEST

/* A failing sink (full disk) leaves the records in the ring. */
START_TEST(test_drain_sink_error)
{
	struct fake f;
	struct sink s = { .fail = 1 };

	fake_init(&f, 8, 0);
	produce(&f, 4);
	ck_assert_int_eq(drain(&f, &s), -ENOSPC);
	ck_assert_uint_eq(f.meta.data_tail, 0);
	s.fail = 0;
	ck_assert_int_eq(drain(&f, &s), 4);
}
END_TEST

static int64_t snap(struct fake *f, struct sink *s, unsigned int flags)
{
	memset(s, 0, sizeof(*s));
	return hwt_ring_snapshot_mem(&f->meta, f->data, f->n, flags, sink_fn, s);
}

START_TEST(test_cyc_snapshot)
{
	struct fake f;
	struct sink s;

	fake_init(&f, 8, 1);
	ck_assert_int_eq(snap(&f, &s, 0), 0);
	produce(&f, 3);
	ck_assert_int_eq(snap(&f, &s, 0), 3);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_uint_eq(s.got[i], i);
	/* wrapped: the last 8, oldest first, one call */
	produce(&f, 10);
	ck_assert_int_eq(snap(&f, &s, 0), 8);
	ck_assert_uint_eq(s.calls, 1);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_uint_eq(s.got[i], 5 + i);
	/* data_tail means nothing to a CYC ring */
	ck_assert_uint_eq(f.meta.data_tail, 0);
	/* positions past 2N, and exactly on a boundary */
	for (uint32_t k = 0; k < 40; k++) {
		produce(&f, 1);
		ck_assert_int_eq(snap(&f, &s, 0), 8);
		for (uint32_t i = 0; i < 8; i++)
			ck_assert_uint_eq(s.got[i], f.next - 8 + i);
	}
	/* live: the margin for writers in flight goes first */
	ck_assert_int_eq(snap(&f, &s, HWT_SNAP_LIVE), 0);
	ck_assert_int_eq(hwt_ring_snapshot_mem(&f.meta, f.data, 8, 0x80, sink_fn,
					       &s), -EINVAL);
	f.meta.data_head = 16;
	ck_assert_int_eq(snap(&f, &s, 0), -EPROTO);
}
END_TEST

START_TEST(test_cyc_live_partial)
{
	struct fake f;
	struct sink s;

	fake_init(&f, 32, 1);
	produce(&f, 20);
	/* 12 free slots absorb the margin: nothing dropped */
	ck_assert_int_eq(snap(&f, &s, HWT_SNAP_LIVE), 20);
	ck_assert_uint_eq(s.got[0], 0);
	produce(&f, 40);
	ck_assert_int_eq(snap(&f, &s, HWT_SNAP_LIVE), 32 - HWT_SNAP_MARGIN);
	ck_assert_uint_eq(s.got[0], 60 - 32 + HWT_SNAP_MARGIN);
	ck_assert_uint_eq(s.got[32 - HWT_SNAP_MARGIN - 1], 59);
}
END_TEST

/* What a writer overwrote during the copy is dropped, oldest first. */
START_TEST(test_cyc_drop)
{
	/* full window: every record written meanwhile cost one */
	ck_assert_uint_eq(hwt_snapshot_drop(8, 8, 0, 0), 0);
	ck_assert_uint_eq(hwt_snapshot_drop(8, 8, 3, 0), 3);
	ck_assert_uint_eq(hwt_snapshot_drop(8, 8, 3, 1), 8);
	ck_assert_uint_eq(hwt_snapshot_drop(8, 64, 3, 0), 0);
	/* free slots absorb writes first */
	ck_assert_uint_eq(hwt_snapshot_drop(5, 8, 3, 0), 0);
	ck_assert_uint_eq(hwt_snapshot_drop(5, 8, 4, 0), 1);
	/* lapped: all of it */
	ck_assert_uint_eq(hwt_snapshot_drop(8, 8, 1000, 0), 8);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ring");
	TCase *d = tcase_create("drain");
	TCase *c = tcase_create("cyclic");

	tcase_add_test(d, test_drain_empty);
	tcase_add_test(d, test_drain_simple);
	tcase_add_test(d, test_drain_wrap);
	tcase_add_test(d, test_drain_stop_full);
	tcase_add_test(d, test_drain_impossible);
	tcase_add_test(d, test_drain_sink_error);
	suite_add_tcase(s, d);
	tcase_add_test(c, test_cyc_snapshot);
	tcase_add_test(c, test_cyc_live_partial);
	tcase_add_test(c, test_cyc_drop);
	suite_add_tcase(s, c);
	return test_run(s);
}
