// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * hwt_persist_check/write: a persistent area image as the module lays it
 * out (kmod/persist.c), good and damaged, into a .hwt file and back.
 */
#include <errno.h>
#include <zlib.h>

#include "hwt_test.h"

#define PAGE		4096u
#define NCPU		2u
#define SLOTS		100u
#define NAMES		8u
#define AREA_SIZE	(PAGE + PAGE + NCPU * (PAGE + 2 * PAGE))

/* page-aligned as the real area (its ring meta pages need 64-byte alignment) */
static uint8_t area[AREA_SIZE] __attribute__((aligned(4096)));

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
	return (struct hwt_ring_meta *)(area + hdr()->ring_offset +
					cpu * hdr()->ring_stride);
}

static struct hwt_event *slots(uint32_t cpu)
{
	return (struct hwt_event *)((uint8_t *)meta(cpu) + PAGE);
}

/* Write total records into cpu's ring as the kernel would (CYC). */
static void fill(uint32_t cpu, uint32_t total)
{
	uint32_t pos = 0;

	for (uint32_t i = 0; i < total; i++) {
		slots(cpu)[pos < SLOTS ? pos : pos - SLOTS] =
			test_event(HWT_EV_USER_EVENT_1, (uint16_t)cpu,
				   1000 + (uint64_t)i * 2 + cpu, i);
		pos = pos + 1 == 2 * SLOTS ? 0 : pos + 1;
	}
	meta(cpu)->data_head = pos;
	meta(cpu)->written = total;
	meta(cpu)->overwritten = total > SLOTS ? total - SLOTS : 0;
}

static void name(uint32_t i, uint32_t kind, uint32_t id, const char *s)
{
	struct hwt_name *n = (struct hwt_name *)(area + hdr()->names_offset) + i % NAMES;

	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->id = id;
	n->tgid = kind == HWT_NAME_TASK ? id : 0;
	memcpy(n->name, s, strnlen(s, sizeof(n->name)));
}

static void build(void)
{
	struct hwt_persist_header *h = hdr();

	memset(area, 0, sizeof(area));
	h->magic = HWT_PERSIST_MAGIC;
	h->version = HWT_PERSIST_VERSION;
	h->header_size = sizeof(*h);
	h->phys_addr = 0x20000000;
	h->size = AREA_SIZE;
	memset(h->boot_id, 0xab, sizeof(h->boot_id));
	h->clock = HWT_CLOCK_TSC;
	h->cycles_per_msec = 1000000;
	h->nr_cpus = NCPU;
	h->page_size = PAGE;
	h->names_offset = PAGE;
	h->names_max = NAMES;
	h->ring_offset = 2 * PAGE;
	h->ring_stride = 3 * PAGE;
	h->nr_slots = SLOTS;
	h->crash = HWT_CRASH_PANIC;
	h->crash_cpu = 1;
	seal();
	fill(0, 250);	/* wrapped: the last 100 survive */
	fill(1, 30);
	/* eleven names in a ring of eight: the first three are gone */
	for (uint32_t i = 0; i < 10; i++) {
		char s[16];

		snprintf(s, sizeof(s), "task%u", i);
		name(i, HWT_NAME_TASK, 100 + i, s);
	}
	name(10, HWT_NAME_IRQ, 4, "ttyS0");
	h->names_written = 11;
}

static const char *recover(int expect)
{
	const char *path = test_path("rec.hwt");
	struct hwt_trace_info info = { .nr_cpus = NCPU, .clock = HWT_CLOCK_TSC,
				       .cycles_per_msec = 1000000 };
	struct hwt_recovery rec = { .crash = HWT_CRASH_PANIC, .crash_cpu = 1 };
	struct hwt_writer_opts o = { .sz = sizeof(o), .recovery = &rec };
	uint64_t n[NCPU];
	struct hwt_writer *w;

	memset(rec.boot_id, 0xab, sizeof(rec.boot_id));
	ck_assert_int_eq(hwt_writer_open(&w, path, &info, &o), 0);
	ck_assert_int_eq(hwt_persist_write(area, sizeof(area), w, n), expect);
	ck_assert_int_eq(hwt_writer_close(w), 0);
	if (expect == 0) {
		ck_assert_uint_eq(n[0], SLOTS);
		ck_assert_uint_eq(n[1], 30);
	}
	return path;
}

START_TEST(test_roundtrip)
{
	const struct hwt_persist_header *h;
	const struct hwt_trace_info *info;
	struct hwt_reader *r;
	struct hwt_record rec;
	uint32_t next[NCPU] = { 150, 0 };
	const char *path;

	build();
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), 0);
	ck_assert_ptr_eq(h, area);
	path = recover(0);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	info = hwt_reader_info(r);
	ck_assert_uint_eq(info->recovery.recovered, 1);
	ck_assert_uint_eq(info->recovery.crash, HWT_CRASH_PANIC);
	ck_assert_uint_eq(info->recovery.crash_cpu, 1);
	ck_assert_uint_eq(info->recovery.boot_id[15], 0xab);
	ck_assert_uint_eq(info->overwritten[0], 150);
	ck_assert_uint_eq(hwt_reader_cpu_records(r, 0), SLOTS);
	/* each CPU's records consecutive, oldest surviving first */
	while (hwt_reader_next(r, &rec) == 1) {
		ck_assert_uint_lt(rec.cpu, NCPU);
		ck_assert_uint_eq(rec.ev.par2, next[rec.cpu]);
		next[rec.cpu]++;
	}
	ck_assert_uint_eq(next[0], 250);
	ck_assert_uint_eq(next[1], 30);
	ck_assert_ptr_null(hwt_reader_task(r, 100));
	ck_assert_ptr_null(hwt_reader_task(r, 102));
	ck_assert_ptr_nonnull(hwt_reader_task(r, 103));
	ck_assert_str_eq(hwt_reader_task(r, 103)->comm, "task3");
	ck_assert_str_eq(hwt_reader_task(r, 109)->comm, "task9");
	ck_assert_str_eq(hwt_reader_irq_name(r, 4), "ttyS0");
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

/* A plain file has no recovery fields. */
START_TEST(test_not_recovered)
{
	const char *path = test_path("plain.hwt");
	struct hwt_trace_info info = { .nr_cpus = 1 };
	struct hwt_writer *w;
	struct hwt_reader *r;

	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	ck_assert_int_eq(hwt_writer_close(w), 0);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ck_assert_uint_eq(hwt_reader_info(r)->recovery.recovered, 0);
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

START_TEST(test_garbage)
{
	const struct hwt_persist_header *h = (void *)1;

	srand(7);
	for (size_t i = 0; i < sizeof(area); i++)
		area[i] = (uint8_t)rand();
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), -ENODATA);
	ck_assert_ptr_null(h);
	memset(area, 0, sizeof(area));
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), -ENODATA);
	ck_assert_int_eq(hwt_persist_check(area, 8, &h), -ENODATA);
}
END_TEST

START_TEST(test_other_version)
{
	const struct hwt_persist_header *h;

	build();
	hdr()->version = HWT_PERSIST_VERSION + 1;
	seal();
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), -EPROTONOSUPPORT);
}
END_TEST

START_TEST(test_torn_header)
{
	const struct hwt_persist_header *h;

	build();
	hdr()->nr_slots ^= 1;	/* one field changed, the checksum not */
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), -EBADMSG);
}
END_TEST

/* A checksummed header whose layout does not fit is refused, never read. */
START_TEST(test_bad_layout)
{
	const struct hwt_persist_header *h;

	build();
	hdr()->ring_stride = AREA_SIZE;
	seal();
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), -EBADMSG);
	build();
	hdr()->nr_slots = 3 * PAGE;
	seal();
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), -EBADMSG);
	build();
	hdr()->names_max = UINT32_MAX;
	seal();
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), -EBADMSG);
	build();
	hdr()->nr_cpus = 0x40000000;	/* nr_cpus * stride wraps nothing */
	seal();
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area), &h), -EBADMSG);
	build();
	ck_assert_int_eq(hwt_persist_check(area, sizeof(area) - PAGE, &h), -EBADMSG);
}
END_TEST

/* A ring whose position is out of range is left out; the others are kept. */
START_TEST(test_bad_ring)
{
	struct hwt_reader *r;
	const char *path;

	build();
	meta(1)->data_head = 2 * SLOTS;
	test_warnings = 0;
	path = recover(HWT_PARTIAL);
	ck_assert_int_ge(test_warnings, 1);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ck_assert_uint_eq(hwt_reader_cpu_records(r, 0), SLOTS);
	ck_assert_uint_eq(hwt_reader_cpu_records(r, 1), 0);
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("persist");
	TCase *tc = tcase_create("good");
	TCase *bad = tcase_create("bad");

	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_not_recovered);
	tcase_add_test(bad, test_garbage);
	tcase_add_test(bad, test_other_version);
	tcase_add_test(bad, test_torn_header);
	tcase_add_test(bad, test_bad_layout);
	tcase_add_test(bad, test_bad_ring);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, bad);
	return test_run(s);
}
