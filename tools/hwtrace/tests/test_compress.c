// SPDX-License-Identifier: GPL-2.0
/*
 * record -z and snapshot -z against the fake device: the file says it is
 * compressed (header flag, zstd record blocks), is smaller, and reads back
 * record for record, names included, as an uncompressed file of the same
 * data.  The fake's data is the same on every run: its clock counts
 * writes, and with rings that never fill every run writes the same.
 */
#include <check.h>
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hwt/hwt.h>
#include "file_fmt.h"		/* libhwt's: header flags, block header */
#include "run.h"

#define NCPU	3

struct layout {
	uint32_t header_flags;
	int zstd_blocks, raw_blocks;
	uint64_t size;
};

static void layout(const char *path, struct layout *l)
{
	struct hwt_file_header fh;
	struct hwt_block_header h;
	uint64_t off = HWT_FILE_HEADER_SIZE;
	FILE *f = fopen(path, "rb");

	memset(l, 0, sizeof(*l));
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fread(&fh, sizeof(fh), 1, f), 1);
	l->header_flags = le32toh(fh.flags);
	while (!fseeko(f, (off_t)off, SEEK_SET) && fread(&h, sizeof(h), 1, f) == 1) {
		if (le16toh(h.type) == HWT_BLOCK_RECORDS) {
			if (le16toh(h.flags) & HWT_BF_ZSTD)
				l->zstd_blocks++;
			else
				l->raw_blocks++;
		}
		off += sizeof(h) + le32toh(h.stored_size);
	}
	l->size = off;
	fclose(f);
}

/* Both files hold the same records in the same order, and the same names. */
static uint64_t same_records(const char *a, const char *b)
{
	struct hwt_reader *ra, *rb;
	struct hwt_record x, y;
	uint64_t n = 0;
	int ka, kb;

	ck_assert_int_eq(hwt_reader_open(&ra, a, NULL), 0);
	ck_assert_int_eq(hwt_reader_open(&rb, b, NULL), 0);
	ck_assert_uint_eq(hwt_reader_info(ra)->nr_cpus, hwt_reader_info(rb)->nr_cpus);
	ck_assert_uint_eq(hwt_reader_info(ra)->nr_records, hwt_reader_info(rb)->nr_records);
	for (;;) {
		ka = hwt_reader_next(ra, &x);
		kb = hwt_reader_next(rb, &y);
		ck_assert_int_ge(ka, 0);
		ck_assert_int_eq(ka, kb);
		if (!ka)
			break;
		ck_assert_msg(x.cpu == y.cpu && x.ts == y.ts && x.ev.code == y.ev.code &&
			      x.ev.par1 == y.ev.par1 && x.ev.par2 == y.ev.par2,
			      "record %" PRIu64 " differs: cpu %u/%u ts %" PRIu64 "/%" PRIu64,
			      n, x.cpu, y.cpu, x.ts, y.ts);
		n++;
	}
	for (size_t i = 0;; i++) {
		const struct hwt_task *ta = hwt_reader_task_at(ra, i);
		const struct hwt_task *tb = hwt_reader_task_at(rb, i);

		ck_assert_int_eq(!ta, !tb);
		if (!ta)
			break;
		ck_assert_str_eq(ta->comm, tb->comm);
	}
	ck_assert_int_eq(hwt_reader_status(ra), 0);
	ck_assert_int_eq(hwt_reader_status(rb), 0);
	hwt_reader_close(ra);
	hwt_reader_close(rb);
	return n;
}

static void check_compressed(const char *plain, const char *z)
{
	struct layout lp, lz;

	layout(plain, &lp);
	layout(z, &lz);
	ck_assert_uint_eq(lp.header_flags & HWT_FH_COMPRESSED, 0);
	ck_assert_int_eq(lp.zstd_blocks, 0);
	ck_assert_int_gt(lp.raw_blocks, 0);
	ck_assert_uint_ne(lz.header_flags & HWT_FH_COMPRESSED, 0);
	ck_assert_int_gt(lz.zstd_blocks, 0);
	/* the fake's records differ in little but the timestamp */
	ck_assert_msg(lz.size * 2 < lp.size, "compressed %" PRIu64 " bytes, plain %" PRIu64,
		      lz.size, lp.size);
}

START_TEST(test_record_z)
{
	static struct run r;
	char plain[128], z[128];
	char *argv[] = { "hwtrace", "record", "-q", "-f", "task", "-b", "64k", "-d", "0.5",
			 "-o", plain, NULL, NULL };
	char *env[] = { FAKE_ENV("3", "3000"), NULL };
	uint64_t n;

	tmp_path(plain, sizeof(plain), "plain.hwt");
	tmp_path(z, sizeof(z), "z.hwt");
	run_hwtrace(&r, argv, env);
	ck_assert_msg(r.status == 0, "record: %s", r.err);
	argv[10] = z;
	argv[11] = "-z";
	run_hwtrace(&r, argv, env);
	ck_assert_msg(r.status == 0, "record -z: %s", r.err);
	ck_assert_msg(strstr(r.err, "lost=0 "), "%s", r.err);
	check_compressed(plain, z);
	n = same_records(plain, z);
	/* every record: 3000 per CPU, and cycles_per_msec, start, stop */
	ck_assert_uint_eq(n, NCPU * (3000 + 3));
}
END_TEST

/* A flight recorder that ran (FAKE_PRESET), saved twice while it is on. */
START_TEST(test_snapshot_z)
{
	static struct run r;
	char plain[128], z[128];
	char *argv[] = { "hwtrace", "snapshot", "-o", plain, NULL, NULL };
	char *env[] = { FAKE_ENV("3", "3000"), "FAKE_PRESET=cyc:16384", NULL };
	uint64_t n;

	tmp_path(plain, sizeof(plain), "plain.hwt");
	tmp_path(z, sizeof(z), "z.hwt");
	run_hwtrace(&r, argv, env);
	ck_assert_msg(r.status == 0, "snapshot: %s", r.err);
	ck_assert_msg(strstr(r.err, "(tracing still on)"), "%s", r.err);
	argv[3] = z;
	argv[4] = "-z";
	run_hwtrace(&r, argv, env);
	ck_assert_msg(r.status == 0, "snapshot -z: %s", r.err);
	check_compressed(plain, z);
	n = same_records(plain, z);
	/* at most the ring (1024 + 256 slots) per CPU, the live margin less */
	ck_assert_uint_gt(n, NCPU * 1024);
	ck_assert_uint_le(n, NCPU * (1024 + 256));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwtrace-compress");
	TCase *tc = tcase_create("zstd");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, run_setup, run_teardown);
	tcase_add_test(tc, test_record_z);
	tcase_add_test(tc, test_snapshot_z);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
