// SPDX-License-Identifier: GPL-2.0
/*
 * record's live status line: on a terminal (a pseudo-terminal here) it is
 * rewritten in place with elapsed time, events, events/s, bytes written,
 * lost events and ring fill; with standard error a file, as in scripts and
 * in these tests, it never appears, and neither does -q's.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

/*
 * "\rhwtrace:     0.5 s         1500 events       3000 ev/s     23.4 KiB  lost 0
 *  fill   2% " (one line)
 */
#define STATUS_RE "\rhwtrace: +[0-9]+\\.[0-9] s +[0-9]+ events +[0-9]+ ev/s +" \
		  "[0-9.]+ (B|KiB|MiB|GiB) +lost [0-9]+ +fill +[0-9]+% "

static int matches(const char *text, int *count)
{
	regex_t re;
	regmatch_t m;
	const char *p = text;

	ck_assert_int_eq(regcomp(&re, STATUS_RE, REG_EXTENDED), 0);
	*count = 0;
	while (!regexec(&re, p, 1, &m, 0)) {
		(*count)++;
		p += m.rm_eo;
	}
	regfree(&re);
	return *count > 0;
}

/* Run record on a pseudo-terminal; everything it wrote there. */
static void run_on_pty(char *const argv[], char *buf, size_t len, int *status)
{
	size_t n = 0;
	int master;
	pid_t pid = forkpty(&master, NULL, NULL, NULL);

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		putenv("LD_PRELOAD=build/tests/fake_hwtrace.so");
		putenv("HWTRACE_DEV=/fake/hwtrace");
		putenv("FAKE_CPUS=2");
		putenv("FAKE_TOTAL=100000");	/* ~1 s of events */
		execv("build/hwtrace", argv);
		_exit(127);
	}
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		ssize_t k;

		if (poll(&p, 1, 10000) <= 0)
			break;
		k = read(master, buf + n, len - 1 - n);
		if (k <= 0)	/* EIO once the child has closed the terminal */
			break;
		n += (size_t)k;
		if (n == len - 1)
			break;
	}
	buf[n] = '\0';
	close(master);
	ck_assert_int_eq(waitpid(pid, status, 0), pid);
}

START_TEST(test_status_on_tty)
{
	static char buf[65536];
	char out[128];
	char *argv[] = { "hwtrace", "record", "-f", "task", "-b", "64k", "-d", "1.6", "-o",
			 (char *)tmp_path(out, sizeof(out), "tty.hwt"), NULL };
	int status, n;

	run_on_pty(argv, buf, sizeof(buf), &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x: %s",
		      status, buf);
	/* every 0.5 s: at 0.5, 1.0 and 1.5 s */
	ck_assert_msg(matches(buf, &n) && n >= 2, "%d status lines in: %s", n, buf);
	/* the summary starts on a line of its own */
	ck_assert_ptr_nonnull(strstr(buf, "% \r\nhwtrace: "));
	ck_assert_ptr_nonnull(strstr(buf, " events in "));
}
END_TEST

START_TEST(test_quiet_on_tty)
{
	static char buf[65536];
	char out[128];
	char *argv[] = { "hwtrace", "record", "-q", "-f", "task", "-b", "64k", "-d", "1.1",
			 "-o", (char *)tmp_path(out, sizeof(out), "q.hwt"), NULL };
	int status, n;

	run_on_pty(argv, buf, sizeof(buf), &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", buf);
	ck_assert_msg(!matches(buf, &n), "-q, yet: %s", buf);
	ck_assert_ptr_nonnull(strstr(buf, " events in "));
}
END_TEST

/* stdout and stderr are files (run_hwtrace): no status line, no \r. */
START_TEST(test_no_status_off_tty)
{
	static struct run r;
	char out[128];
	char *argv[] = { "hwtrace", "record", "-f", "task", "-b", "64k", "-d", "1.1", "-o",
			 (char *)tmp_path(out, sizeof(out), "notty.hwt"), NULL };
	char *env[] = { FAKE_ENV("2", "100000"), NULL };
	int n;

	run_hwtrace(&r, argv, env);
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_ptr_nonnull(strstr(r.err, " events in "));
	ck_assert_msg(!matches(r.err, &n) && !strchr(r.err, '\r') && !strstr(r.err, "ev/s"),
		      "status line off a terminal: %s", r.err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwtrace-status");
	TCase *tc = tcase_create("status line");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, run_setup, run_teardown);
	tcase_add_test(tc, test_status_on_tty);
	tcase_add_test(tc, test_quiet_on_tty);
	tcase_add_test(tc, test_no_status_off_tty);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
