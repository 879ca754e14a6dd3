// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The CTF directory, checked against CTF 1.8 by hand: `metadata` and one
 * stream per CPU, every packet's header (magic, the trace's uuid, stream 0)
 * and context (timestamps in order, sizes matching the bytes, sequence
 * numbers from 0, events_discarded 0 in the first packet and never going
 * down, the stream's CPU), packets bounded in size, the loss counts, 300
 * CPUs, a stream failing part-way (-EBADMSG, still complete), and the API's
 * refusals.  What the readers make of it: tools/hwtrace/tests/test_ctf.c.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwt/conv.h>
#include "test_conv_util.h"

#define PACKET_MAX	(32 * 1024)

static char dir[64];

static void mkdir_tmp(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hwt-ctf-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void rm_tmp(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The uuid the metadata declares, as 16 bytes. */
static void meta_uuid(const char *meta, unsigned char *uuid)
{
	const char *p = strstr(meta, "uuid = \"");
	int n = 0;

	ck_assert_ptr_nonnull(p);
	for (p += 8; *p != '"' && n < 16; p++) {
		unsigned int b;

		if (*p == '-')
			continue;
		ck_assert_int_eq(sscanf(p, "%2x", &b), 1);
		uuid[n++] = (unsigned char)b;
		p++;
	}
	ck_assert_int_eq(n, 16);
}

struct stream_check {
	uint64_t packets;
	uint64_t discarded;	/* of the last packet */
	uint64_t ts_first, ts_last;
};

/* Every packet of channel0_<cpu>; returns what it saw. */
static struct stream_check check_stream(uint32_t cpu, const unsigned char *uuid)
{
	struct stream_check sc = { 0 };
	char path[128];
	unsigned char *b;
	size_t len, off = 0;
	uint64_t prev_end = 0;

	snprintf(path, sizeof(path), "%s/channel0_%u", dir, cpu);
	b = (unsigned char *)slurp(path, &len);
	ck_assert_uint_gt(len, 0);
	while (off < len) {
		const unsigned char *p = b + off, *ctx = p + 24;
		uint64_t begin = le(ctx, 8), end = le(ctx + 8, 8);
		uint64_t content = le(ctx + 16, 8), size = le(ctx + 24, 8);
		uint64_t seq = le(ctx + 32, 8), disc = le(ctx + 40, 8);

		ck_assert_uint_ge(len - off, 76);
		ck_assert_uint_eq(le(p, 4), 0xC1FC1FC1u);
		ck_assert_int_eq(memcmp(p + 4, uuid, 16), 0);
		ck_assert_uint_eq(le(p + 20, 4), 0);
		ck_assert_uint_eq(le(ctx + 48, 4), cpu);
		ck_assert_uint_le(begin, end);
		ck_assert_uint_ge(begin, prev_end);
		ck_assert_uint_eq(seq, sc.packets);
		ck_assert_uint_eq(content % 8, 0);
		ck_assert_uint_eq(content, size);
		ck_assert_uint_ge(size / 8, 76);
		ck_assert_uint_le(size / 8, PACKET_MAX);
		ck_assert_uint_le(size / 8, len - off);
		if (!sc.packets) {
			ck_assert_uint_eq(disc, 0);
			sc.ts_first = begin;
		}
		ck_assert_uint_ge(disc, sc.discarded);
		sc.discarded = disc;
		sc.ts_last = end;
		prev_end = end;
		sc.packets++;
		off += size / 8;
	}
	ck_assert_uint_eq(off, len);
	free(b);
	return sc;
}

static size_t count_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static char *metadata(void)
{
	char path[128];
	size_t len;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	return slurp(path, &len);
}

START_TEST(test_structure)
{
	struct tu_stream t;
	uint64_t ow[3] = { 0, 0, 9 };
	unsigned char uuid[16];
	char *meta;

	tu_fixture(&t);
	t.lost[1] += 4;			/* more than its LOST records say */
	t.info.overwritten = ow;
	mkdir_tmp();
	ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, dir, NULL), 0);
	meta = metadata();
	ck_assert_int_eq(strncmp(meta, "/* CTF 1.8 */", 13), 0);
	for (const char *const *k = (const char *const[]){
		"domain = \"kernel\";", "tracer_name = \"lttng-modules\";",
		"tracer_major = 2;", "tracer_minor = 13;",
		"trace_buffering_scheme = \"global\";", "hostname = \"testhost\";",
		"kernel_release = \"6.1.0-test\";", "sysname = \"Linux\";",
		"hwtrace_clock = \"tsc\";", "hwtrace_backend = \"module\";",
		"hwtrace_chunk_mode = \"stop\";", "freq = 2400000000;",
		"byte_order = le;", "uint32_t magic;", "uint64_t events_discarded;",
		"uint32_t cpu_id;", "uint64_t packet_seq_num;",
		"name = \"sched_switch\";", "name = \"lttng_statedump_process_state\";",
		"name = \"x86_irq_vectors_local_timer_entry\";", NULL }; *k; k++)
		ck_assert_msg(strstr(meta, *k), "metadata lacks %s", *k);
	meta_uuid(meta, uuid);
	ck_assert_uint_eq(count_entries(), 1 + t.info.nr_cpus);
	for (uint32_t c = 0; c < t.info.nr_cpus; c++) {
		struct stream_check sc = check_stream(c, uuid);
		uint64_t lost = 0;

		/* the LOST records' total on each CPU, or the header's when more */
		for (size_t i = 0; i < t.n; i++)
			if (t.recs[i].cpu == c && t.recs[i].ev.code == HWT_EV_LOST)
				lost = t.recs[i].ev.par2;
		if (t.lost[c] > lost)
			lost = t.lost[c];
		ck_assert_uint_eq(sc.discarded, lost + ow[c]);
	}
	free(meta);
	/* the same trace again gives the same bytes (uuid included) */
	{
		char first[64], cmd[200];

		snprintf(first, sizeof(first), "%s", dir);
		mkdir_tmp();
		ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, dir, NULL), 0);
		snprintf(cmd, sizeof(cmd), "diff -r '%s' '%s' >/dev/null", first, dir);
		ck_assert_int_eq(system(cmd), 0);
		rm_tmp();
		snprintf(dir, sizeof(dir), "%s", first);
	}
	rm_tmp();
	tu_free(&t);
}
END_TEST

/* Many records on one CPU: many packets, none over the bound. */
START_TEST(test_packets_bounded)
{
	struct tu_stream t;
	unsigned char uuid[16];
	struct stream_check sc;
	char *meta;

	tu_init(&t, 1, 1000000);
	for (uint32_t i = 0; i < 20000; i++)
		tu_switch(&t, 1000 + i, 0, 100 + i % 7, i % 3, 100 + (i + 1) % 7);
	mkdir_tmp();
	ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, dir, NULL), 0);
	meta = metadata();
	ck_assert_ptr_nonnull(strstr(meta, "freq = 1000000000;"));
	meta_uuid(meta, uuid);
	sc = check_stream(0, uuid);
	ck_assert_uint_gt(sc.packets, 10);
	ck_assert_uint_eq(sc.discarded, 0);
	ck_assert_uint_eq(sc.ts_first, 1000);
	ck_assert_uint_eq(sc.ts_last, 1000 + 19999);
	free(meta);
	rm_tmp();
	tu_free(&t);
}
END_TEST

/* 300 CPUs, odd names: a stream for each, also for CPUs without records. */
START_TEST(test_300_cpus)
{
	static const struct tu_name odd[] = {
		{ 7, 7, "a\"b\\c\x01\xff" }, { 0, 0, NULL },
	};
	static uint64_t lost[300];	/* tu_stream's own has 8 */
	struct tu_stream t;
	unsigned char uuid[16];
	char *meta;

	tu_init(&t, 300, 2400000);
	t.info.lost = lost;
	lost[299] = 3;
	t.tasks = odd;
	strcpy(t.info.hostname, "h\"o\\st\x7f");
	for (uint32_t c = 0; c < 300; c += 2)
		tu_switch(&t, 5000 + c, c, 7, HWT_STATE_RUNNABLE, 0);
	mkdir_tmp();
	ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, dir, NULL), 0);
	ck_assert_uint_eq(count_entries(), 301);
	meta = metadata();
	/* the TSDL literal escapes quote and backslash, spells out the rest */
	ck_assert_ptr_nonnull(strstr(meta, "hostname = \"h\\\"o\\\\st\\\\x7f\";"));
	meta_uuid(meta, uuid);
	for (uint32_t c = 0; c < 300; c++)
		ck_assert_uint_eq(check_stream(c, uuid).discarded, lost[c]);
	free(meta);
	rm_tmp();
	tu_free(&t);
}
END_TEST

/* A stream failing part-way: -EBADMSG, and a complete trace of what came. */
START_TEST(test_stream_error)
{
	struct tu_stream t;
	unsigned char uuid[16];
	char *meta;

	tu_fixture(&t);
	t.fail_at = t.n / 2;
	mkdir_tmp();
	ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, dir, NULL), -EBADMSG);
	meta = metadata();
	meta_uuid(meta, uuid);
	for (uint32_t c = 0; c < t.info.nr_cpus; c++)
		check_stream(c, uuid);
	free(meta);
	rm_tmp();
	tu_free(&t);
}
END_TEST

START_TEST(test_api)
{
	struct tu_stream t;
	char path[128];
	FILE *f;

	ck_assert_int_eq(hwt_conv_format_is_dir("ctf"), 1);
	ck_assert_int_eq(hwt_conv_format_is_dir("btf"), 0);
	ck_assert_int_eq(hwt_conv_format_is_dir("pdf"), 0);
	ck_assert_int_eq(hwt_conv_format_is_dir(NULL), 0);
	tu_fixture(&t);
	mkdir_tmp();
	/* a one-file API for a directory format, and the reverse */
	ck_assert_int_eq(hwt_convert("ctf", &t.s, stdout, NULL), -EINVAL);
	ck_assert_int_eq(hwt_convert_dir("btf", &t.s, dir, NULL), -EINVAL);
	ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, "", NULL), -EINVAL);
	ck_assert_uint_eq(count_entries(), 0);
	/* a directory holding anything is left alone */
	snprintf(path, sizeof(path), "%s/keep", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, dir, NULL), -ENOTEMPTY);
	ck_assert_uint_eq(count_entries(), 1);
	ck_assert_int_eq(unlink(path), 0);
	/* two passes: a stream that cannot rewind */
	t.no_rewind = 1;
	ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, dir, NULL), -ESPIPE);
	ck_assert_uint_eq(count_entries(), 0);
	/* a directory that does not exist yet is made */
	t.no_rewind = 0;
	snprintf(path, sizeof(path), "%s/new", dir);
	ck_assert_int_eq(hwt_convert_dir("ctf", &t.s, path, NULL), 0);
	rm_tmp();
	tu_free(&t);
}
END_TEST

TU_MAIN("conv_ctf", test_structure, test_packets_bounded, test_300_cpus,
	test_stream_error, test_api)
