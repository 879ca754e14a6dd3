// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace recover -i IMAGE: a persistent area as the module lays it out,
 * good and damaged, and what the user is told.  (From /dev/hwtrace it runs
 * in the VM: selftests/hwtrace/persist_test.sh.)
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <linux/hwtrace.h>

#include "run.h"

#define PAGE		4096u
#define NCPU		2u
#define SLOTS		64u
#define AREA_SIZE	(2 * PAGE + NCPU * 2 * PAGE)

static uint8_t area[AREA_SIZE];

static struct hwt_persist_header *hdr(void)
{
	return (struct hwt_persist_header *)area;
}

static void seal(void)
{
	hdr()->header_crc = (uint32_t)crc32(0, area,
		offsetof(struct hwt_persist_header, header_crc));
}

static struct hwt_ring_meta *meta(uint32_t cpu)
{
	return (struct hwt_ring_meta *)(area + 2 * PAGE + cpu * 2 * PAGE);
}

/* cpu's ring: user events numbered 0..total-1, then the crash record. */
static void fill(uint32_t cpu, uint32_t total)
{
	struct hwt_event *slot = (struct hwt_event *)((uint8_t *)meta(cpu) + PAGE);
	uint32_t pos = 0;

	for (uint32_t i = 0; i <= total; i++) {
		struct hwt_event *e = &slot[pos < SLOTS ? pos : pos - SLOTS];

		memset(e, 0, sizeof(*e));
		e->code = i < total ? HWT_EV_USER_EVENT_1 : HWT_EV_CRASH;
		e->par1 = i < total ? (uint16_t)cpu : HWT_CRASH_PANIC;
		e->tsc_lo = 1000 + i * 10 + cpu;
		e->par2 = i < total ? i : 1;
		pos = pos + 1 == 2 * SLOTS ? 0 : pos + 1;
	}
	meta(cpu)->data_head = pos;
	meta(cpu)->written = total + 1;
	meta(cpu)->overwritten = total + 1 > SLOTS ? total + 1 - SLOTS : 0;
}

static void build(void)
{
	struct hwt_persist_header *h = hdr();
	struct hwt_name *n = (struct hwt_name *)(area + PAGE);

	memset(area, 0, sizeof(area));
	h->magic = HWT_PERSIST_MAGIC;
	h->version = HWT_PERSIST_VERSION;
	h->header_size = sizeof(*h);
	h->size = AREA_SIZE;
	for (int i = 0; i < 16; i++)
		h->boot_id[i] = (uint8_t)(0x10 + i);
	h->clock = HWT_CLOCK_MONO;
	h->cycles_per_msec = 1000000;
	h->nr_cpus = NCPU;
	h->page_size = PAGE;
	h->names_offset = PAGE;
	h->names_max = 4;
	h->ring_offset = 2 * PAGE;
	h->ring_stride = 2 * PAGE;
	h->nr_slots = SLOTS;
	h->crash = HWT_CRASH_PANIC;
	h->crash_cpu = 1;
	seal();
	fill(0, 100);
	fill(1, 10);
	n->kind = HWT_NAME_TASK;
	n->id = 42;
	n->tgid = 42;
	strcpy(n->name, "injector");
	h->names_written = 1;
}

static const char *save(const char *name)
{
	static char path[128];
	FILE *f;

	tmp_path(path, sizeof(path), name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(area, 1, sizeof(area), f), sizeof(area));
	fclose(f);
	return path;
}

static void recover(struct run *r, const char *image)
{
	char out[128];
	char *argv[] = { "hwtrace", "recover", "-i", (char *)image, "-o", out, NULL };

	tmp_path(out, sizeof(out), "crash.hwt");
	run_hwtrace(r, argv, NULL);
}

START_TEST(test_good)
{
	static struct run r;
	char out[128];
	char *dump[] = { "hwtrace", "dump", out, NULL };

	build();
	recover(&r, save("area.img"));
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_msg(strstr(r.err, "previous boot 10111213-1415-1617-1819-1a1b1c1d1e1f ended in panic on CPU 1"),
		      "%s", r.err);
	ck_assert_msg(strstr(r.err, "CPU 0: 64 records, 37 overwritten before"), "%s", r.err);
	ck_assert_msg(strstr(r.err, "CPU 1: 11 records, 0 overwritten before"), "%s", r.err);
	ck_assert_msg(strstr(r.err, "75 records of 2 CPUs saved"), "%s", r.err);

	tmp_path(out, sizeof(out), "crash.hwt");
	run_hwtrace(&r, dump, NULL);
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_msg(strstr(r.out, "# recovered from the persistent area: boot "
			      "10111213-1415-1617-1819-1a1b1c1d1e1f ended in panic on CPU 1\n"),
		      "%s", r.out);
	/* the oldest surviving record of the wrapped ring, and the last ones */
	ck_assert_msg(strstr(r.out, "user_event_1         free=0 free=37\n"), "%s", r.out);
	ck_assert_msg(!strstr(r.out, "free=0 free=36\n"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "[000] general  crash                kind=1 cpu=1\n"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "[001] general  crash                kind=1 cpu=1\n"), "%s", r.out);
}
END_TEST

START_TEST(test_no_trace)
{
	static struct run r;

	srand(1);
	for (size_t i = 0; i < sizeof(area); i++)
		area[i] = (uint8_t)rand();
	recover(&r, save("garbage.img"));
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.err, "no previous trace"), "%s", r.err);
}
END_TEST

START_TEST(test_torn)
{
	static struct run r;

	build();
	hdr()->crash_cpu = 0;	/* changed after the checksum */
	recover(&r, save("torn.img"));
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.err, "corrupt"), "%s", r.err);
}
END_TEST

START_TEST(test_other_version)
{
	static struct run r;

	build();
	hdr()->version = 7;
	seal();
	recover(&r, save("v7.img"));
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.err, "layout version 7"), "%s", r.err);
}
END_TEST

/* One ring's position out of range: the other is saved, exit 3. */
START_TEST(test_damaged_ring)
{
	static struct run r;

	build();
	meta(0)->data_head = 2 * SLOTS + 5;
	recover(&r, save("ring.img"));
	ck_assert_int_eq(r.status, 3);
	ck_assert_msg(strstr(r.err, "CPU 0's ring position"), "%s", r.err);
	ck_assert_msg(strstr(r.err, "11 records of 2 CPUs saved"), "%s", r.err);
}
END_TEST

START_TEST(test_usage)
{
	static struct run r;
	char *no_out[] = { "hwtrace", "recover", "-i", "x.img", NULL };
	char *nothing[] = { "hwtrace", "recover", NULL };
	char *both[] = { "hwtrace", "recover", "-i", "x", "-o", "y", "--release", NULL };
	char *missing[] = { "hwtrace", "recover", "-i", "/nonexistent.img", "-o", "y", NULL };

	run_hwtrace(&r, no_out, NULL);
	ck_assert_int_eq(r.status, 2);
	run_hwtrace(&r, nothing, NULL);
	ck_assert_int_eq(r.status, 2);
	run_hwtrace(&r, both, NULL);
	ck_assert_int_eq(r.status, 2);
	run_hwtrace(&r, missing, NULL);
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.err, "/nonexistent.img"), "%s", r.err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recover");
	TCase *tc = tcase_create("recover");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, run_setup, run_teardown);
	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_no_trace);
	tcase_add_test(tc, test_torn);
	tcase_add_test(tc, test_other_version);
	tcase_add_test(tc, test_damaged_ring);
	tcase_add_test(tc, test_usage);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
