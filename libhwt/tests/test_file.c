// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The .hwt writer and reader: round trips, merge order, damage. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>

#include "hwt_test.h"
#include "file_fmt.h"

#define NCPU	3

static struct hwt_trace_info test_info(uint32_t nr_cpus)
{
	struct hwt_trace_info info;

	memset(&info, 0, sizeof(info));
	info.nr_cpus = nr_cpus;
	info.clock = HWT_CLOCK_TSC;
	info.cycles_per_msec = 2400000;
	info.creation_time = 1700000000;
	info.families = 1u << HWT_FAM_TASK | 1u << HWT_FAM_INTERRUPT;
	info.chunk_mode = HWT_CHUNK_STOP;
	strcpy(info.kernel_release, "6.1.0-test");
	strcpy(info.hostname, "testhost");
	strcpy(info.backend, "module");
	return info;
}

/* Record i of cpu c: timestamps interleave across CPUs, par2 identifies it. */
static struct hwt_event ev_of(uint32_t cpu, uint32_t i)
{
	uint64_t ts = 1000 + (uint64_t)i * 10 + cpu * 3 + ((uint64_t)1 << 32);

	return test_event(HWT_EV_IPOINT, (uint16_t)cpu, ts, cpu << 24 | i);
}

static const uint32_t per_cpu[NCPU] = { 50, 7, 23 };

/* Write the reference trace; returns the total record count. */
static uint32_t write_trace(const char *path, int compress, uint32_t block,
			    int close_it)
{
	struct hwt_trace_info info = test_info(NCPU);
	struct hwt_writer_opts o = { .sz = sizeof(o), .compress = compress,
				     .block_records = block };
	struct hwt_writer *w;
	uint32_t total = 0;

	ck_assert_int_eq(hwt_writer_open(&w, path, &info, &o), 0);
	/* batches of a few records per CPU, as a live drain produces them */
	for (uint32_t i = 0; i < 50; i += 5) {
		for (uint32_t c = 0; c < NCPU; c++) {
			struct hwt_event b[5];
			uint32_t n = 0;

			for (uint32_t k = i; k < i + 5 && k < per_cpu[c]; k++)
				b[n++] = ev_of(c, k);
			ck_assert_int_eq(hwt_writer_add(w, c, b, n), 0);
			total += n;
		}
	}
	ck_assert_int_eq(hwt_writer_add_task(w, 42, 40, "worker"), 0);
	ck_assert_int_eq(hwt_writer_add_irq(w, 9, "acpi"), 0);
	ck_assert_int_eq(hwt_writer_set_lost(w, 1, 17, 0), 0);
	ck_assert_int_eq(hwt_writer_set_lost(w, 2, 0, 5), 0);
	ck_assert_int_eq(hwt_writer_set_names_lost(w, 3), 0);
	ck_assert_int_eq(hwt_writer_set_lost_nocpu(w, 11), 0);
	if (close_it)
		ck_assert_int_eq(hwt_writer_close(w), 0);
	else
		hwt_writer_abort(w);
	return total;
}

/* Merged order: non-decreasing ts, ties by CPU, every record once. */
static void check_merged(struct hwt_reader *r, uint32_t expect)
{
	uint32_t seen[NCPU] = { 0 };
	struct hwt_record rec, prev = { 0 };
	uint32_t n = 0;
	int ret;

	while ((ret = hwt_reader_next(r, &rec)) == 1) {
		uint32_t c = rec.cpu;

		ck_assert_uint_lt(c, NCPU);
		ck_assert_uint_eq(rec.ev.par2, c << 24 | seen[c]);
		ck_assert_uint_eq(rec.ts, HWT_EVENT_TSC(&rec.ev));
		if (n)
			ck_assert(prev.ts < rec.ts ||
				  (prev.ts == rec.ts && prev.cpu < rec.cpu));
		seen[c]++;
		prev = rec;
		n++;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(n, expect);
}

static void round_trip(int compress, uint32_t block)
{
	const char *path = test_path("rt.hwt");
	const struct hwt_trace_info *info;
	struct hwt_reader *r;
	uint32_t total;

	total = write_trace(path, compress, block, 1);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ck_assert_int_eq(hwt_reader_status(r), 0);
	info = hwt_reader_info(r);
	ck_assert_uint_eq(info->nr_cpus, NCPU);
	ck_assert_uint_eq(info->clock, HWT_CLOCK_TSC);
	ck_assert_uint_eq(info->cycles_per_msec, 2400000);
	ck_assert_int_eq(info->creation_time, 1700000000);
	ck_assert_uint_eq(info->families, 1u << HWT_FAM_TASK | 1u << HWT_FAM_INTERRUPT);
	ck_assert_uint_eq(info->chunk_mode, HWT_CHUNK_STOP);
	ck_assert_str_eq(info->kernel_release, "6.1.0-test");
	ck_assert_str_eq(info->hostname, "testhost");
	ck_assert_str_eq(info->backend, "module");
	ck_assert_str_eq(info->writer_version, hwt_version());
	ck_assert_uint_eq(info->nr_records, total);
	for (uint32_t c = 0; c < NCPU; c++)
		ck_assert_uint_eq(hwt_reader_cpu_records(r, c), per_cpu[c]);
	check_merged(r, total);
	/* a second pass sees the same */
	ck_assert_int_eq(hwt_reader_rewind(r), 0);
	check_merged(r, total);
	hwt_reader_close(r);
	unlink(path);
}

/* The header names the writer: the version in hwtrace's one VERSION file. */
START_TEST(test_writer_version)
{
	const char *src = getenv("HWT_SRCDIR");
	char path[4096], want[32] = "";
	FILE *f;

	ck_assert_ptr_nonnull(src);
	snprintf(path, sizeof(path), "%s/../VERSION", src);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	ck_assert_str_eq(hwt_version(), want);
}
END_TEST

START_TEST(test_round_trip_raw)
{
	round_trip(0, 4);
	round_trip(0, 0);
}
END_TEST

START_TEST(test_round_trip_zstd)
{
	round_trip(3, 4);
	round_trip(19, 0);
}
END_TEST

START_TEST(test_zstd_smaller)
{
	struct hwt_trace_info info = test_info(1);
	struct hwt_writer_opts o = { .sz = sizeof(o) };
	const char *path = test_path("z.hwt");
	struct hwt_writer *w;
	struct stat raw, z;
	struct hwt_reader *r;
	struct hwt_record rec;
	uint32_t n = 0;

	for (int pass = 0; pass < 2; pass++) {
		o.compress = pass ? 3 : 0;
		ck_assert_int_eq(hwt_writer_open(&w, path, &info, &o), 0);
		for (uint32_t i = 0; i < 10000; i++) {
			struct hwt_event e = test_event(HWT_EV_TASK_SCHEDULE, 1,
							i * 100, i % 7);

			ck_assert_int_eq(hwt_writer_add(w, 0, &e, 1), 0);
		}
		ck_assert_int_eq(hwt_writer_close(w), 0);
		ck_assert_int_eq(stat(path, pass ? &z : &raw), 0);
	}
	ck_assert_int_lt(z.st_size * 4, raw.st_size);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	while (hwt_reader_next(r, &rec) == 1) {
		ck_assert_uint_eq(rec.ts, (uint64_t)n * 100);
		ck_assert_uint_eq(rec.ev.par2, n % 7);
		n++;
	}
	ck_assert_uint_eq(n, 10000);
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

START_TEST(test_names)
{
	struct hwt_trace_info info = test_info(1);
	const char *path = test_path("names.hwt");
	const struct hwt_task *t;
	struct hwt_writer *w;
	struct hwt_reader *r;
	char longname[300];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 100, 100, "bash"), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 7, 1, "kworker/0:1"), 0);
	ck_assert_int_eq(hwt_writer_add_irq(w, 24, "eth0-rx"), 0);
	ck_assert_int_eq(hwt_writer_flush(w), 0);
	/* exec renames: the later name wins, even across blocks */
	ck_assert_int_eq(hwt_writer_add_task(w, 100, 100, "hackbench"), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 5, 5, longname), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 6, 6, ""), 0);
	ck_assert_int_eq(hwt_writer_add_irq(w, 3, longname), 0);
	ck_assert_int_eq(hwt_writer_close(w), 0);

	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	t = hwt_reader_task(r, 100);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->comm, "hackbench");
	t = hwt_reader_task(r, 7);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->tgid, 1);
	ck_assert_str_eq(t->comm, "kworker/0:1");
	t = hwt_reader_task(r, 5);
	ck_assert_uint_eq(strlen(t->comm), HWT_COMM_LEN - 1);
	ck_assert_str_eq(hwt_reader_task(r, 6)->comm, "");
	ck_assert_ptr_null(hwt_reader_task(r, 8));
	ck_assert_str_eq(hwt_reader_irq_name(r, 24), "eth0-rx");
	ck_assert_uint_eq(strlen(hwt_reader_irq_name(r, 3)), 255);
	ck_assert_ptr_null(hwt_reader_irq_name(r, 25));
	/* task_at walks pids in order */
	ck_assert_uint_eq(hwt_reader_task_at(r, 0)->pid, 5);
	ck_assert_uint_eq(hwt_reader_task_at(r, 3)->pid, 100);
	ck_assert_ptr_null(hwt_reader_task_at(r, 4));
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

START_TEST(test_lost_counts)
{
	struct hwt_trace_info info = test_info(2);
	const char *path = test_path("lost.hwt");
	const struct hwt_trace_info *ri;
	struct hwt_event e = test_event(HWT_EV_IPOINT, 0, 5, 0);
	struct hwt_writer *w;
	struct hwt_reader *r;

	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	ck_assert_int_eq(hwt_writer_set_lost(w, 0, 10, 1), 0);
	ck_assert_int_eq(hwt_writer_flush(w), 0);
	/* totals: the last COUNTERS block wins */
	ck_assert_int_eq(hwt_writer_set_lost(w, 0, 12, 2), 0);
	/* a CPU beyond the header's count (a UDP sender's) grows the file */
	ck_assert_int_eq(hwt_writer_add(w, 4, &e, 1), 0);
	ck_assert_int_eq(hwt_writer_set_lost(w, 3, 99, 0), 0);
	ck_assert_int_eq(hwt_writer_add(w, HWT_FILE_MAX_CPUS, &e, 1), -EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(hwt_writer_close(w), 0);

	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ri = hwt_reader_info(r);
	ck_assert_uint_eq(ri->nr_cpus, 5);
	ck_assert_uint_eq(ri->lost[0], 12);
	ck_assert_uint_eq(ri->overwritten[0], 2);
	ck_assert_uint_eq(ri->lost[1], 0);
	ck_assert_uint_eq(ri->lost[3], 99);
	ck_assert_uint_eq(hwt_reader_cpu_records(r, 4), 1);
	hwt_reader_close(r);
	unlink(path);

	/* and the reference trace's */
	write_trace(path, 0, 0, 1);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ri = hwt_reader_info(r);
	ck_assert_uint_eq(ri->lost[1], 17);
	ck_assert_uint_eq(ri->overwritten[2], 5);
	ck_assert_uint_eq(ri->names_lost, 3);
	ck_assert_uint_eq(ri->lost_nocpu, 11);
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

START_TEST(test_empty)
{
	struct hwt_trace_info info = test_info(4);
	const char *path = test_path("empty.hwt");
	struct hwt_writer *w;
	struct hwt_reader *r;
	struct hwt_record rec;
	struct hwt_stream s;

	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	ck_assert_int_eq(hwt_writer_close(w), 0);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ck_assert_uint_eq(hwt_reader_info(r)->nr_records, 0);
	ck_assert_uint_eq(hwt_reader_info(r)->nr_cpus, 4);
	ck_assert_int_eq(hwt_reader_next(r, &rec), 0);
	ck_assert_int_eq(hwt_reader_stream(r, &s), 0);
	ck_assert_int_eq(s.rewind(s.ctx), 0);
	ck_assert_int_eq(s.next(s.ctx, &rec), 0);
	ck_assert_ptr_null(s.task(s.ctx, 1));
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

/* A CPU whose records go backwards: its own order is kept, nothing lost. */
START_TEST(test_backwards)
{
	struct hwt_trace_info info = test_info(2);
	const char *path = test_path("back.hwt");
	struct hwt_event c0[] = {
		test_event(HWT_EV_IPOINT, 0, 10, 0),
		test_event(HWT_EV_IPOINT, 0, 5, 1),
		test_event(HWT_EV_IPOINT, 0, 20, 2),
	};
	struct hwt_event c1 = test_event(HWT_EV_IPOINT, 1, 7, 3);
	static const uint32_t expect[] = { 3, 0, 1, 2 };
	struct hwt_writer *w;
	struct hwt_reader *r;
	struct hwt_record rec;
	int n = 0;

	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	ck_assert_int_eq(hwt_writer_add(w, 0, c0, 3), 0);
	ck_assert_int_eq(hwt_writer_add(w, 1, &c1, 1), 0);
	ck_assert_int_eq(hwt_writer_close(w), 0);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	while (hwt_reader_next(r, &rec) == 1) {
		ck_assert_int_lt(n, 4);
		ck_assert_uint_eq(rec.ev.par2, expect[n]);
		n++;
	}
	ck_assert_int_eq(n, 4);
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spill(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Offset of the payload of the last block of this type, or 0. */
static size_t last_block(const char *buf, size_t len, uint16_t type)
{
	size_t off = HWT_FILE_HEADER_SIZE, found = 0;
	struct hwt_block_header h;

	while (off + sizeof(h) <= len) {
		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		if (le16toh(h.type) == type)
			found = off;
		off += le32toh(h.stored_size);
	}
	return found;
}

/* Rewrite block header h at p with the CRCs of its (changed) payload. */
static void seal_block(char *p, struct hwt_block_header *h)
{
	h->payload_crc = htole32((uint32_t)crc32(0, (const Bytef *)p + sizeof(*h),
						 le32toh(h->stored_size)));
	h->header_crc = htole32((uint32_t)crc32(0, (const Bytef *)h,
				offsetof(struct hwt_block_header, header_crc)));
	memcpy(p, h, sizeof(*h));
}

/* hwtrace listen's packet counters ride at the end of the COUNTERS block. */
START_TEST(test_net_counts)
{
	struct hwt_trace_info info = test_info(2);
	const char *path = test_path("net.hwt");
	struct hwt_net_counters net = { .received = 20, .kept = 10, .end = 1,
		.malformed = 2, .foreign = 3, .over_cpus = 1, .over_memory = 1,
		.duplicate = 2, .late = 4, .missing = 5, .kernel_dropped = 6 };
	struct hwt_net_counters first = { .received = 1, .kept = 1 };
	struct hwt_event e = test_event(HWT_EV_IPOINT, 0, 5, 0);
	struct hwt_block_header h;
	struct hwt_writer *w;
	struct hwt_reader *r;
	size_t len, pay, cpus_end;
	uint64_t nr, mem, cost;
	char *buf;

	/* no net counters: none read */
	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	ck_assert_int_eq(hwt_writer_close(w), 0);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ck_assert_ptr_null(hwt_reader_info(r)->net);
	hwt_reader_close(r);

	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	ck_assert_int_eq(hwt_writer_set_net(w, &first), 0);
	ck_assert_int_eq(hwt_writer_flush(w), 0);
	/* what a new CPU costs is what the writer then holds */
	mem = hwt_writer_mem(w);
	cost = hwt_writer_cpu_cost(w, 3);
	ck_assert_uint_ge(cost, 4096 * HWT_EVENT_SIZE);
	ck_assert_int_eq(hwt_writer_add(w, 3, &e, 1), 0);
	ck_assert_uint_gt(hwt_writer_mem(w), mem + 4096 * HWT_EVENT_SIZE);
	ck_assert_uint_le(hwt_writer_mem(w), mem + cost);
	ck_assert_uint_eq(hwt_writer_cpu_cost(w, 3), 0);
	ck_assert_uint_eq(hwt_writer_cpu_cost(w, 2), 4096 * HWT_EVENT_SIZE);
	ck_assert_uint_eq(hwt_writer_cpu_cost(w, HWT_FILE_MAX_CPUS), UINT64_MAX);
	ck_assert_int_eq(hwt_writer_set_net(w, &net), 0);
	ck_assert_int_eq(hwt_writer_close(w), 0);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ck_assert_ptr_nonnull(hwt_reader_info(r)->net);
	/* totals: the last block's */
	ck_assert_mem_eq(hwt_reader_info(r)->net, &net, sizeof(net));
	ck_assert_uint_eq(hwt_reader_info(r)->nr_cpus, 4);
	hwt_reader_close(r);

	/* an older writer's shorter list: what it lacks reads 0 */
	buf = slurp(path, &len);
	pay = last_block(buf, len, HWT_BLOCK_COUNTERS);
	ck_assert_uint_gt(pay, 0);
	cpus_end = pay + sizeof(struct hwt_counters_header) +
		   4 * sizeof(struct hwt_cpu_counters);
	memcpy(&h, buf + pay - sizeof(h), sizeof(h));
	ck_assert_uint_eq(le32toh(h.stored_size), cpus_end - pay + 12 * 8);
	nr = htole64(3);
	memcpy(buf + cpus_end, &nr, sizeof(nr));
	seal_block(buf + pay - sizeof(h), &h);
	spill(path, buf, len);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ck_assert_uint_eq(hwt_reader_info(r)->net->received, 20);
	ck_assert_uint_eq(hwt_reader_info(r)->net->end, 1);
	ck_assert_uint_eq(hwt_reader_info(r)->net->malformed, 0);
	ck_assert_uint_eq(hwt_reader_info(r)->net->kernel_dropped, 0);
	hwt_reader_close(r);

	/* a count beyond the payload: the block is malformed and skipped */
	nr = htole64(12);
	memcpy(buf + cpus_end, &nr, sizeof(nr));
	seal_block(buf + pay - sizeof(h), &h);
	spill(path, buf, len);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), HWT_PARTIAL);
	ck_assert_int_eq(hwt_reader_status(r), HWT_READ_CORRUPT);
	/* the first block's stand */
	ck_assert_uint_eq(hwt_reader_info(r)->net->received, 1);
	hwt_reader_close(r);
	free(buf);
	unlink(path);
}
END_TEST

/*
 * Cut the file at every byte: the reader never crashes, says PARTIAL, and
 * yields a prefix of each CPU's records that grows with the cut.  Raw
 * blocks yield every whole record before the cut.
 */
static void truncate_everywhere(int compress)
{
	char full[128], cut[128];
	uint32_t total, prev = 0;
	size_t len;
	char *buf;

	snprintf(full, sizeof(full), "%s", test_path("full.hwt"));
	total = write_trace(full, compress, 4, 1);
	buf = slurp(full, &len);
	snprintf(cut, sizeof(cut), "%s", test_path("cut.hwt"));
	for (size_t at = 0; at <= len; at++) {
		struct hwt_reader *r;
		struct hwt_record rec;
		uint32_t seen[NCPU] = { 0 };
		uint32_t n = 0;
		int ret;

		spill(cut, buf, at);
		test_warnings = 0;
		ret = hwt_reader_open(&r, cut, NULL);
		if (at < HWT_FILE_HEADER_SIZE) {
			ck_assert_int_eq(ret, -EBADMSG);
			continue;
		}
		if (at == len) {
			ck_assert_int_eq(ret, 0);
		} else {
			ck_assert_int_eq(ret, HWT_PARTIAL);
			ck_assert_int_eq(hwt_reader_status(r) & HWT_READ_TRUNCATED,
					 HWT_READ_TRUNCATED);
			ck_assert_int_gt(test_warnings, 0);
		}
		while ((ret = hwt_reader_next(r, &rec)) == 1) {
			ck_assert_uint_eq(rec.ev.par2, rec.cpu << 24 | seen[rec.cpu]);
			seen[rec.cpu]++;
			n++;
		}
		ck_assert_int_eq(ret, 0);
		ck_assert_uint_ge(n, prev);
		if (!compress) {
			/* whole records before the cut, minus block headers */
			size_t hdrs = 0, off = HWT_FILE_HEADER_SIZE, recs = 0;

			while (off + sizeof(struct hwt_block_header) <= at) {
				struct hwt_block_header h;
				size_t avail, stored;

				memcpy(&h, buf + off, sizeof(h));
				stored = h.stored_size;
				avail = at - off - sizeof(h);
				if (avail > stored)
					avail = stored;
				if (h.type == HWT_BLOCK_RECORDS)
					recs += avail / HWT_EVENT_SIZE;
				hdrs++;
				off += sizeof(h) + stored;
			}
			ck_assert_uint_eq(n, recs);
		}
		prev = n;
		hwt_reader_close(r);
	}
	ck_assert_uint_eq(prev, total);
	free(buf);
	unlink(cut);
	unlink(full);
}

START_TEST(test_truncated_raw)
{
	truncate_everywhere(0);
}
END_TEST

START_TEST(test_truncated_zstd)
{
	truncate_everywhere(3);
}
END_TEST

/* A recorder that died without its END block (and lost its buffers). */
START_TEST(test_aborted)
{
	const char *path = test_path("abort.hwt");
	struct hwt_reader *r;

	write_trace(path, 0, 4, 0);
	test_warnings = 0;
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), HWT_PARTIAL);
	ck_assert_int_eq(hwt_reader_status(r), HWT_READ_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(test_last_warning, "no end block"));
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

static int open_modified(size_t at, uint8_t xor, struct hwt_reader **r)
{
	const char *path = test_path("mod.hwt");
	size_t len;
	char *buf;
	int ret;

	write_trace(path, 0, 4, 1);
	buf = slurp(path, &len);
	ck_assert_uint_lt(at, len);
	buf[at] ^= (char)xor;
	spill(path, buf, len);
	free(buf);
	test_warnings = 0;
	ret = hwt_reader_open(r, path, NULL);
	unlink(path);
	return ret;
}

START_TEST(test_corrupt_header)
{
	struct hwt_reader *r;

	/* magic */
	ck_assert_int_eq(open_modified(0, 0xFF, &r), -EBADMSG);
	ck_assert_ptr_null(r);
	ck_assert_ptr_nonnull(strstr(test_last_warning, "not a .hwt"));
	/* a field under the CRC */
	ck_assert_int_eq(open_modified(offsetof(struct hwt_file_header, nr_cpus),
				       1, &r), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(test_last_warning, "checksum"));
	/* a newer major version is refused as such, before the CRC */
	ck_assert_int_eq(open_modified(offsetof(struct hwt_file_header,
						version_major), 3, &r),
			 -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(test_last_warning, "version"));
	/* byte-swapped */
	ck_assert_int_eq(open_modified(offsetof(struct hwt_file_header, endian),
				       0x05, &r), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(test_last_warning, "byte order"));
}
END_TEST

START_TEST(test_corrupt_block)
{
	size_t first = HWT_FILE_HEADER_SIZE;
	struct hwt_reader *r;
	struct hwt_record rec;
	uint32_t n = 0;

	/* the first block's header: nothing after it can be found */
	ck_assert_int_eq(open_modified(first + 12, 0x40, &r), HWT_PARTIAL);
	ck_assert_int_eq(hwt_reader_status(r),
			 HWT_READ_CORRUPT | HWT_READ_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(test_last_warning, "corrupt block header"));
	ck_assert_int_eq(hwt_reader_next(r, &rec), 0);
	hwt_reader_close(r);

	/* a record in the first block (CPU 0, 4 records): that block is skipped */
	ck_assert_int_eq(open_modified(first + 32 + 20, 0x01, &r), 0);
	while (hwt_reader_next(r, &rec) == 1)
		n++;
	ck_assert_uint_eq(n, 50 + 7 + 23 - 4);
	ck_assert_int_eq(hwt_reader_status(r), HWT_READ_CORRUPT);
	ck_assert_ptr_nonnull(strstr(test_last_warning, "checksum"));
	/* a second pass checks it again: only good blocks skip the CRC */
	test_last_warning[0] = '\0';
	ck_assert_int_eq(hwt_reader_rewind(r), 0);
	for (n = 0; hwt_reader_next(r, &rec) == 1;)
		n++;
	ck_assert_uint_eq(n, 50 + 7 + 23 - 4);
	ck_assert_ptr_nonnull(strstr(test_last_warning, "checksum"));
	hwt_reader_close(r);
}
END_TEST

START_TEST(test_not_regular)
{
	struct hwt_reader *r;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(hwt_reader_fdopen(&r, p[0], NULL), -EINVAL);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(hwt_reader_open(&r, "/nonexistent/x.hwt", NULL), -ENOENT);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/*
 * Runs, ties and steps back in time: the merge picks, at every step, the
 * smallest (ts, cpu) among the CPUs' next records, exactly as a naive scan.
 */
START_TEST(test_merge_runs)
{
	enum { NC = 5, PER = 3000 };
	struct hwt_trace_info info = test_info(NC);
	struct hwt_writer_opts o = { .sz = sizeof(o), .block_records = 7 };
	const char *path = test_path("runs.hwt");
	static struct hwt_event ev[NC][PER];
	uint32_t pos[NC] = { 0 }, x = 7, n = 0;
	struct hwt_writer *w;
	struct hwt_reader *r;
	struct hwt_record rec;

	for (uint32_t c = 0; c < NC; c++) {
		uint64_t ts = 100;

		for (uint32_t i = 0; i < PER; i++) {
			x = x * 1103515245u + 12345u;
			/* mostly small steps (ties, runs), now and then back */
			if ((x >> 24) < 8 && ts > 50)
				ts -= x >> 29;
			else
				ts += (x >> 16) % (c == 2 ? 2 : 9);
			ev[c][i] = test_event(HWT_EV_IPOINT, (uint16_t)c, ts,
					      c << 24 | i);
		}
	}
	ck_assert_int_eq(hwt_writer_open(&w, path, &info, &o), 0);
	for (uint32_t c = 0; c < NC; c++)
		ck_assert_int_eq(hwt_writer_add(w, c, ev[c], PER), 0);
	ck_assert_int_eq(hwt_writer_close(w), 0);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	for (int pass = 0; pass < 2; pass++) {
		memset(pos, 0, sizeof(pos));
		for (n = 0; hwt_reader_next(r, &rec) == 1; n++) {
			uint32_t best = NC;

			for (uint32_t c = 0; c < NC; c++)
				if (pos[c] < PER &&
				    (best == NC || HWT_EVENT_TSC(&ev[c][pos[c]]) <
				     HWT_EVENT_TSC(&ev[best][pos[best]])))
					best = c;
			ck_assert_uint_lt(best, NC);
			ck_assert_uint_eq(rec.cpu, best);
			ck_assert_uint_eq(rec.ev.par2, best << 24 | pos[best]);
			pos[best]++;
		}
		ck_assert_uint_eq(n, NC * PER);
		ck_assert_int_eq(hwt_reader_rewind(r), 0);
	}
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

/* Many records, many blocks: order holds, memory is per block. */
START_TEST(test_large)
{
	struct hwt_trace_info info = test_info(4);
	const char *path = test_path("large.hwt");
	struct hwt_writer *w;
	struct hwt_reader *r;
	struct hwt_record rec;
	uint64_t last = 0, n = 0;
	uint32_t x = 1;

	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	for (uint32_t i = 0; i < 200000; i++) {
		uint32_t cpu = i % 4;
		struct hwt_event e;

		x = x * 1103515245u + 12345u;	/* jitter within a CPU's order */
		e = test_event(HWT_EV_IPOINT, 0, (uint64_t)i * 16 + (x >> 28), i);
		ck_assert_int_eq(hwt_writer_add(w, cpu, &e, 1), 0);
	}
	ck_assert_int_eq(hwt_writer_close(w), 0);
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	while (hwt_reader_next(r, &rec) == 1) {
		ck_assert_uint_ge(rec.ts, last);
		last = rec.ts;
		n++;
	}
	ck_assert_uint_eq(n, 200000);
	hwt_reader_close(r);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("file");
	TCase *tc = tcase_create("round trip");
	TCase *bad = tcase_create("damage");

	tcase_add_test(tc, test_writer_version);
	tcase_add_test(tc, test_round_trip_raw);
	tcase_add_test(tc, test_merge_runs);
	tcase_add_test(tc, test_round_trip_zstd);
	tcase_add_test(tc, test_zstd_smaller);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_net_counts);
	tcase_add_test(tc, test_lost_counts);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_backwards);
	tcase_add_test(tc, test_large);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tcase_add_test(bad, test_truncated_raw);
	tcase_add_test(bad, test_truncated_zstd);
	tcase_add_test(bad, test_aborted);
	tcase_add_test(bad, test_corrupt_header);
	tcase_add_test(bad, test_corrupt_block);
	tcase_add_test(bad, test_not_regular);
	tcase_set_timeout(bad, 120);
	suite_add_tcase(s, bad);
	return test_run(s);
}
