// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace's command line as a user meets it: every subcommand's --help and
 * its exit-status line, the list of formats after a bad -O, and what
 * `ctl chunk create` says when a size is too large for the module or too
 * large to parse (the fake device charges chunks as kmod/chunk.c does).
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "run.h"

/* The subcommands `hwtrace --help` lists: "  NAME   summary" lines. */
static int list_commands(char names[][32], int max)
{
	static struct run r;
	char *argv[] = { "hwtrace", "--help", NULL };
	char *line, *save = NULL;
	int n = 0;

	run_hwtrace(&r, argv, NULL);
	ck_assert_int_eq(r.status, 0);
	for (line = strtok_r(r.out, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "  ", 2) || !islower((unsigned char)line[2]))
			continue;
		ck_assert_int_eq(sscanf(line, "%31s", names[n]), 1);
		n++;
	}
	return n;
}

/* From the help's last line that starts with "Exit status:" to its end. */
static const char *exit_status_lines(const char *text)
{
	const char *found = NULL;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncasecmp(p, "exit status:", 12))
			found = p;
	return found;
}

/*
 * Every subcommand: --help exits 0 on stdout and ends with its exit status
 * ("Exit status: ..." to the end, maybe two lines), naming the codes
 * hwtrace(1) documents: 0, 1 error, 2 usage, and 3 only where the man page
 * says a command can be partial.
 */
START_TEST(test_help_exit_status)
{
	static const char *const partial[] = { "dump", "stats", "convert", "listen", "recover" };
	static struct run r;
	char names[16][32];
	int n = list_commands(names, 16);

	ck_assert_int_ge(n, 8);
	for (int i = 0; i < n; i++) {
		char *argv[] = { "hwtrace", names[i], "--help", NULL };
		const char *last;
		int can_be_partial = 0;

		run_hwtrace(&r, argv, NULL);
		ck_assert_msg(r.status == 0, "%s --help: exit %d", names[i], r.status);
		ck_assert_msg(!strncmp(r.out, "usage: hwtrace ", 15), "%s --help: %s",
			      names[i], r.out);
		last = exit_status_lines(r.out);
		ck_assert_msg(last, "%s --help has no exit-status line: %s", names[i], r.out);
		ck_assert_msg(!strstr(last, "\n\n") && r.out[r.out_len - 1] == '\n',
			      "%s --help does not end with its exit status: %s", names[i],
			      last);
		ck_assert_msg(strstr(last, "0") && strstr(last, "1 error") &&
			      strstr(last, "2 usage"), "%s: %s", names[i], last);
		for (size_t k = 0; k < sizeof(partial) / sizeof(partial[0]); k++)
			can_be_partial |= !strcmp(names[i], partial[k]);
		ck_assert_msg(!!strstr(last, "3 ") == can_be_partial,
			      "%s: exit status 3 %s: %s", names[i],
			      can_be_partial ? "missing" : "not in hwtrace(1)", last);
	}
	/* `hwtrace help CMD` is CMD --help */
	{
		char *argv[] = { "hwtrace", "help", "snapshot", NULL };

		run_hwtrace(&r, argv, NULL);
		ck_assert_int_eq(r.status, 0);
		ck_assert_ptr_nonnull(strstr(r.out, "usage: hwtrace snapshot"));
	}
}
END_TEST

START_TEST(test_convert_unknown_format)
{
	static struct run r;
	char *argv[] = { "hwtrace", "convert", "-O", "pdf", "/nonexistent.hwt", NULL };

	run_hwtrace(&r, argv, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "unknown format 'pdf'"), "%s", r.err);
	ck_assert_msg(strstr(r.err, "valid formats: htf atf btf tband shark json perfetto ctf\n"),
		      "%s", r.err);
	/* refused before the file is opened: no "No such file" */
	ck_assert_ptr_null(strstr(r.err, "nonexistent"));
}
END_TEST

/*
 * 4 CPUs and a 16 MiB cap: a chunk charges page-rounded NORMAL + EMERGENCY
 * plus a 4 KiB meta page per CPU, so with EMERGENCY 4k the largest NORMAL
 * is 16 MiB / 4 - 8 KiB = 4186112 bytes.
 */
#define CAP_ENV	"LD_PRELOAD=build/tests/fake_hwtrace.so", "HWTRACE_DEV=/fake/hwtrace", \
		"FAKE_CPUS=4", "FAKE_MAX_MEMORY_MB=16"

START_TEST(test_chunk_over_cap)
{
	static struct run r;
	char *argv[] = { "hwtrace", "ctl", "chunk", "create", "8M", "4k", "cyc", NULL };
	char *env[] = { CAP_ENV, NULL };

	run_hwtrace(&r, argv, env);
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.err, "over the module's memory cap"), "%s", r.err);
	ck_assert_msg(strstr(r.err, "the chunk needs 32.0 MiB (33587200 bytes"), "%s", r.err);
	ck_assert_msg(strstr(r.err, "NORMAL can be at most 4.0 MiB (4186112 bytes) per CPU"),
		      "%s", r.err);
	ck_assert_msg(strstr(r.err, "caps ring memory at 16.0 MiB (16777216 bytes, "
			      "module parameter max_memory_mb)"), "%s", r.err);
	ck_assert_msg(!strstr(r.err, "see max_memory_mb"), "%s", r.err);

	/* and that size is taken */
	argv[4] = "4186112";
	run_hwtrace(&r, argv, env);
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_str_eq(r.out, "0\n");
}
END_TEST

/*
 * With a 1 MiB chunk there (4 x (1 MiB + 4 KiB ring + 4 KiB meta) =
 * 4227072 bytes), what is left: (16 MiB - 4227072) / 4 = 3137536 per CPU,
 * less the meta page and EMERGENCY.
 */
START_TEST(test_chunk_over_cap_in_use)
{
	static struct run r;
	char *argv[] = { "hwtrace", "ctl", "chunk", "create", "4M", "4k", "stop", NULL };
	char *env[] = { CAP_ENV, "FAKE_PRESET=cyc:1048576", "FAKE_TOTAL=100", NULL };

	run_hwtrace(&r, argv, env);
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.err, "NORMAL can be at most 3.0 MiB (3129344 bytes) per CPU"),
		      "%s", r.err);
	ck_assert_msg(strstr(r.err, "in use: 4.0 MiB"), "%s", r.err);
}
END_TEST

/* A ring over 2^31 - 1 slots: the module says EINVAL; we say why. */
START_TEST(test_chunk_ring_too_large)
{
	static struct run r;
	char *argv[] = { "hwtrace", "ctl", "chunk", "create", "64G", "4k", "stop", NULL };
	char *env[] = { CAP_ENV, NULL };

	run_hwtrace(&r, argv, env);
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.err, "over the largest ring, 32.0 GiB (34359738352 bytes) per CPU"),
		      "%s", r.err);
	ck_assert_msg(strstr(r.err, "NORMAL can be at most 4.0 MiB (4186112 bytes)"), "%s", r.err);
}
END_TEST

/* Too large to parse at all: the parser's maximum, then the module's. */
START_TEST(test_size_too_large_to_parse)
{
	static struct run r;
	char *argv[] = { "hwtrace", "ctl", "chunk", "create", "17179869184G", "4k", "cyc",
			 NULL };
	char *env[] = { CAP_ENV, NULL };

	run_hwtrace(&r, argv, env);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "NORMAL size '17179869184G' is too large: "
			      "sizes go up to 18446744073709551615 bytes"), "%s", r.err);
	ck_assert_msg(strstr(r.err, "NORMAL can be at most 4.0 MiB (4186112 bytes)"), "%s", r.err);
	ck_assert_ptr_null(strstr(r.err, "bad "));
}
END_TEST

START_TEST(test_record_size_too_large)
{
	static struct run r;
	char *argv[] = { "hwtrace", "record", "-b", "17179869184G", "-d", "1", NULL };
	char *env[] = { CAP_ENV, NULL };

	run_hwtrace(&r, argv, env);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "buffer size '17179869184G' is too large: "
			      "sizes go up to 18446744073709551615 bytes"), "%s", r.err);
}
END_TEST

/* -r: SCHED_FIFO's range, refused before anything is touched */
START_TEST(test_record_bad_rt_prio)
{
	static const char *const bad[] = { "0", "100", "-1", "x", "", "5x", "4294967297" };
	static struct run r;
	char *env[] = { CAP_ENV, NULL };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "hwtrace", "record", "-q", "-r", (char *)bad[i], "-d", "1", NULL };
		char want[96];

		run_hwtrace(&r, argv, env);
		ck_assert_msg(r.status == 2, "-r '%s': exit %d", bad[i], r.status);
		snprintf(want, sizeof(want), "bad real-time priority '%s': 1..99 (SCHED_FIFO)", bad[i]);
		ck_assert_msg(strstr(r.err, want), "-r '%s': %s", bad[i], r.err);
		ck_assert_ptr_null(strstr(r.err, "events in"));
	}
}
END_TEST

/* -n: the nice range, refused before anything is touched */
START_TEST(test_record_bad_nice)
{
	static const char *const bad[] = { "20", "-21", "x", "", "5x", "-", "99999999999" };
	static struct run r;
	char *env[] = { CAP_ENV, NULL };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "hwtrace", "record", "-q", "-n", (char *)bad[i], "-d", "1", NULL };
		char want[96];

		run_hwtrace(&r, argv, env);
		ck_assert_msg(r.status == 2, "-n '%s': exit %d", bad[i], r.status);
		snprintf(want, sizeof(want), "bad nice value '%s': -20..19", bad[i]);
		ck_assert_msg(strstr(r.err, want), "-n '%s': %s", bad[i], r.err);
		ck_assert_ptr_null(strstr(r.err, "events in"));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwtrace-cli");
	TCase *tc = tcase_create("cli");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, run_setup, run_teardown);
	tcase_add_test(tc, test_help_exit_status);
	tcase_add_test(tc, test_convert_unknown_format);
	tcase_add_test(tc, test_chunk_over_cap);
	tcase_add_test(tc, test_chunk_over_cap_in_use);
	tcase_add_test(tc, test_chunk_ring_too_large);
	tcase_add_test(tc, test_size_too_large_to_parse);
	tcase_add_test(tc, test_record_size_too_large);
	tcase_add_test(tc, test_record_bad_rt_prio);
	tcase_add_test(tc, test_record_bad_nice);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
