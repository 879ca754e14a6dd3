// SPDX-License-Identifier: GPL-2.0
/*
 * dump, stats and convert on .hwt files cut off or damaged the ways a crash,
 * a full disk or a bad copy leave them: each must print a warning, exit 3
 * (hwtrace(1)) and give exactly the records up to the last whole one.
 *
 * The expected records are worked out here from the block headers (the
 * layout of Documentation/hwt-file-format.rst), not by asking the reader:
 * every whole RECORDS block before the damage, and of a raw block cut
 * short its whole records; a zstd block cut short gives none, and a block
 * that fails its checksum is skipped.
 */
#include <check.h>
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwt/hwt.h>
#include "file_fmt.h"		/* libhwt's: the block header layout */
#include "run.h"

#define NCPU		2
#define PER_CPU		500	/* records each: 8 blocks of 64 */
#define BLOCK		64
#define TS0		1000000

struct blk {
	uint64_t off;		/* of the block header */
	uint16_t type, flags;
	uint32_t cpu, count, stored;
};

/* Record i of the trace is on CPU i % NCPU at TS0 + i: unique and ordered. */
static void make_trace(const char *path, int compress)
{
	struct hwt_writer_opts o = { .sz = sizeof(o), .compress = compress,
				     .block_records = BLOCK };
	struct hwt_trace_info info = { .nr_cpus = NCPU, .clock = HWT_CLOCK_MONO,
				       .cycles_per_msec = 1000000,
				       .families = 1u << HWT_FAM_USER,
				       .chunk_mode = HWT_CHUNK_STOP };
	struct hwt_writer *w;

	snprintf(info.hostname, sizeof(info.hostname), "test");
	snprintf(info.backend, sizeof(info.backend), "module");
	ck_assert_int_eq(hwt_writer_open(&w, path, &info, &o), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 42, 42, "worker"), 0);
	for (uint64_t i = 0; i < NCPU * PER_CPU; i++) {
		uint64_t ts = TS0 + i;
		struct hwt_event ev = {
			.code = HWT_EV_USER_EVENT_1, .par1 = 1,
			.tsc_hi = (uint32_t)(ts >> 32), .tsc_lo = (uint32_t)ts, .par2 = 42,
		};

		ck_assert_int_eq(hwt_writer_add(w, (uint32_t)(i % NCPU), &ev, 1), 0);
	}
	ck_assert_int_eq(hwt_writer_close(w), 0);
}

static int scan(const char *path, struct blk *b, int max)
{
	FILE *f = fopen(path, "rb");
	uint64_t off = HWT_FILE_HEADER_SIZE;
	struct hwt_block_header h;
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (n < max && !fseeko(f, (off_t)off, SEEK_SET) && fread(&h, sizeof(h), 1, f) == 1) {
		ck_assert_uint_eq(le32toh(h.magic), HWT_BLOCK_MAGIC);
		b[n] = (struct blk){ .off = off, .type = le16toh(h.type),
				     .flags = le16toh(h.flags), .cpu = le32toh(h.cpu),
				     .count = le32toh(h.count),
				     .stored = le32toh(h.stored_size) };
		off += sizeof(h) + b[n].stored;
		n++;
	}
	fclose(f);
	return n;
}

/* The n-th RECORDS block (from 0) with the given zstd flag. */
static const struct blk *nth_records(const struct blk *b, int nb, int n, int zstd)
{
	for (int i = 0; i < nb; i++)
		if (b[i].type == HWT_BLOCK_RECORDS && !!(b[i].flags & HWT_BF_ZSTD) == zstd &&
		    !n--)
			return &b[i];
	ck_abort_msg("no such block");
	return NULL;
}

/*
 * The timestamps a reader must give, sorted: per CPU, its records in block
 * order up to size, less the block skipped (bad, or NULL).
 */
static size_t expected(const struct blk *b, int nb, uint64_t size, const struct blk *bad,
		       uint64_t *ts)
{
	uint32_t got[NCPU] = { 0 };
	size_t n = 0;

	for (int i = 0; i < nb; i++) {
		uint64_t payload = b[i].off + sizeof(struct hwt_block_header);
		uint32_t k = b[i].count;

		if (b[i].type != HWT_BLOCK_RECORDS)
			continue;
		if (payload > size)
			break;
		if (payload + b[i].stored > size)	/* cut: raw keeps whole records */
			k = b[i].flags & HWT_BF_ZSTD ? 0 : (uint32_t)((size - payload) / 16);
		for (uint32_t j = 0; j < k && &b[i] != bad; j++)
			ts[n++] = TS0 + (uint64_t)(got[b[i].cpu] + j) * NCPU + b[i].cpu;
		got[b[i].cpu] += b[i].count;
	}
	/* merge order is time order */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ts[j - 1] > ts[j]; j--) {
			uint64_t t = ts[j];

			ts[j] = ts[j - 1];
			ts[j - 1] = t;
		}
	return n;
}

/*
 * dump, stats and convert -O shark on path: exit status 3 (0 if whole), a
 * warning with the word given, and exactly the records in want.
 */
static void check_commands(const char *path, const uint64_t *want, size_t nwant,
			   const char *word)
{
	static struct run r;
	char out[128], *line, *save = NULL;
	char *dump[] = { "hwtrace", "dump", (char *)path, NULL };
	char *stats[] = { "hwtrace", "stats", (char *)path, NULL };
	char *conv[] = { "hwtrace", "convert", "-O", "shark", "-o",
			 (char *)tmp_path(out, sizeof(out), "shark"), (char *)path, NULL };
	int rc = word ? 3 : 0;
	char line_want[64];
	size_t n = 0;
	struct stat st;
	FILE *f;

	run_hwtrace(&r, dump, NULL);
	ck_assert_msg(r.status == rc, "dump: exit %d: %s", r.status, r.err);
	ck_assert_msg(r.out_len < sizeof(r.out) - 1, "dump output cut");
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t ts;

		if (line[0] == '#')
			continue;
		ck_assert_int_eq(sscanf(line, "%" SCNu64, &ts), 1);
		ck_assert_uint_lt(n, nwant);
		ck_assert_msg(ts == want[n], "dump line %zu: ts %" PRIu64 ", want %" PRIu64,
			      n, ts, want[n]);
		n++;
	}
	ck_assert_uint_eq(n, nwant);
	if (word) {
		snprintf(line_want, sizeof(line_want), "%s: %zu records printed, up to the damage",
			 word, nwant);
		ck_assert_msg(strstr(r.err, line_want), "dump: %s", r.err);
		ck_assert_msg(strstr(r.err, "libhwt: "), "dump: no reader warning: %s", r.err);
	}

	run_hwtrace(&r, stats, NULL);
	ck_assert_msg(r.status == rc, "stats: exit %d: %s", r.status, r.err);
	snprintf(line_want, sizeof(line_want), "\nrecords:     %zu\n", nwant);
	ck_assert_msg(strstr(r.out, line_want), "stats: %s", r.out);
	if (word) {
		snprintf(line_want, sizeof(line_want), "%s: counts cover what could be read", word);
		ck_assert_msg(strstr(r.err, line_want), "stats: %s", r.err);
	}

	/* a directory of S.Ha.R.K.'s per-CPU files; record i is on CPU i % NCPU */
	run_hwtrace(&r, conv, NULL);
	ck_assert_msg(r.status == rc, "convert: exit %d: %s", r.status, r.err);
	n = 0;
	for (int cpu = 0; cpu < NCPU; cpu++) {
		char file[160];
		size_t k = 0;

		snprintf(file, sizeof(file), "%s/%dtrace.dat", out, cpu);
		ck_assert_int_eq(stat(file, &st), 0);
		f = fopen(file, "rb");
		ck_assert_ptr_nonnull(f);
		for (size_t i = 0; i < nwant; i++) {
			uint32_t w[4];

			if ((want[i] - TS0) % NCPU != (uint64_t)cpu)
				continue;
			ck_assert_int_eq(fread(w, sizeof(w), 1, f), 1);
			ck_assert_uint_eq(((uint64_t)le32toh(w[1]) << 32) | le32toh(w[2]),
					  want[i]);
			k++;
		}
		ck_assert_uint_eq((uint64_t)st.st_size, k * 16);
		n += k;
		fclose(f);
	}
	ck_assert_uint_eq(n, nwant);
	if (word)
		ck_assert_msg(strstr(r.err, "truncated or damaged: converted what could be read"),
			      "convert: %s", r.err);
}

static uint64_t want[NCPU * PER_CPU];
static struct blk blocks[256];

/* A whole file: exit 0, every record (the baseline the others cut from). */
START_TEST(test_whole)
{
	char path[128];
	int nb;

	for (int z = 0; z <= 1; z++) {
		make_trace(tmp_path(path, sizeof(path), "t.hwt"), z ? 3 : 0);
		nb = scan(path, blocks, 256);
		ck_assert_uint_eq(expected(blocks, nb, UINT64_MAX, NULL, want),
				  NCPU * PER_CPU);
		check_commands(path, want, NCPU * PER_CPU, NULL);
	}
}
END_TEST

/* Cut off inside a record of a raw block: the whole records before it. */
START_TEST(test_cut_mid_record)
{
	char path[128];
	const struct blk *b;
	uint64_t cut;
	size_t n;
	int nb;

	make_trace(tmp_path(path, sizeof(path), "t.hwt"), 0);
	nb = scan(path, blocks, 256);
	b = nth_records(blocks, nb, 5, 0);
	cut = b->off + sizeof(struct hwt_block_header) + 10 * 16 + 7;
	ck_assert_int_eq(truncate(path, (off_t)cut), 0);
	n = expected(blocks, nb, cut, NULL, want);
	ck_assert_uint_eq(n, 5 * BLOCK + 10);	/* blocks 0..4, then 10 records */
	check_commands(path, want, n, "truncated");
}
END_TEST

/* Cut off inside a block header: the blocks before it. */
START_TEST(test_cut_mid_block_header)
{
	char path[128];
	const struct blk *b;
	uint64_t cut;
	size_t n;
	int nb;

	make_trace(tmp_path(path, sizeof(path), "t.hwt"), 0);
	nb = scan(path, blocks, 256);
	b = nth_records(blocks, nb, 7, 0);
	cut = b->off + 20;
	ck_assert_int_eq(truncate(path, (off_t)cut), 0);
	n = expected(blocks, nb, cut, NULL, want);
	ck_assert_uint_gt(n, 0);
	check_commands(path, want, n, "truncated");
}
END_TEST

/* Cut off inside a zstd frame: that block is lost, the ones before kept. */
START_TEST(test_cut_zstd)
{
	char path[128];
	const struct blk *b;
	uint64_t cut;
	size_t n;
	int nb;

	make_trace(tmp_path(path, sizeof(path), "t.hwt"), 3);
	nb = scan(path, blocks, 256);
	b = nth_records(blocks, nb, 6, 1);
	ck_assert_uint_lt(b->stored, b->count * 16);	/* really compressed */
	cut = b->off + sizeof(struct hwt_block_header) + b->stored / 2;
	ck_assert_int_eq(truncate(path, (off_t)cut), 0);
	n = expected(blocks, nb, cut, NULL, want);
	ck_assert_uint_eq(n, 6 * BLOCK);
	check_commands(path, want, n, "truncated");
}
END_TEST

/* A flipped byte in a block's payload: that block is skipped, not the rest. */
START_TEST(test_corrupt_block)
{
	char path[128];
	const struct blk *b;
	size_t n;
	int nb;

	for (int z = 0; z <= 1; z++) {
		FILE *f;
		int c;

		make_trace(tmp_path(path, sizeof(path), "t.hwt"), z ? 3 : 0);
		nb = scan(path, blocks, 256);
		b = nth_records(blocks, nb, 3, z);
		f = fopen(path, "r+b");
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(fseeko(f, (off_t)(b->off + 32 + b->stored / 2), SEEK_SET), 0);
		c = fgetc(f);
		ck_assert_int_eq(fseeko(f, -1, SEEK_CUR), 0);
		fputc(c ^ 0x5a, f);
		fclose(f);
		n = expected(blocks, nb, UINT64_MAX, b, want);
		ck_assert_uint_eq(n, NCPU * PER_CPU - BLOCK);
		check_commands(path, want, n, "damaged");
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwtrace-damaged");
	TCase *tc = tcase_create("damaged files");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, run_setup, run_teardown);
	tcase_add_test(tc, test_whole);
	tcase_add_test(tc, test_cut_mid_record);
	tcase_add_test(tc, test_cut_mid_block_header);
	tcase_add_test(tc, test_cut_zstd);
	tcase_add_test(tc, test_corrupt_block);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
