// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace dump: the state a task is switched out in, with ftrace's letters
 * (R S D T X, I for a TASK_IDLE wait, ? for anything else).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwt/hwt.h>
#include "run.h"

START_TEST(test_switch_states)
{
	static const struct { uint32_t state; const char *letter; } st[] = {
		{ HWT_STATE_RUNNABLE, "R" }, { HWT_STATE_SLEEPING, "S" },
		{ HWT_STATE_BLOCKED, "D" }, { HWT_STATE_STOPPED, "T" },
		{ HWT_STATE_DEAD, "X" }, { HWT_STATE_OTHER, "?" },
		{ HWT_STATE_IDLE, "I" }, { 9, "?" },
	};
	struct hwt_writer_opts o = { .sz = sizeof(o) };
	struct hwt_trace_info info = { .nr_cpus = 1, .clock = HWT_CLOCK_MONO,
				       .cycles_per_msec = 1000000,
				       .families = 1u << HWT_FAM_TASK,
				       .chunk_mode = HWT_CHUNK_STOP };
	static struct run r;
	char path[128], *line, *save = NULL;
	char *dump[] = { "hwtrace", "dump", path, NULL };
	struct hwt_writer *w;
	size_t n = 0;

	tmp_path(path, sizeof(path), "states.hwt");
	snprintf(info.hostname, sizeof(info.hostname), "test");
	snprintf(info.backend, sizeof(info.backend), "module");
	ck_assert_int_eq(hwt_writer_open(&w, path, &info, &o), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 42, 42, "kworker"), 0);
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		struct hwt_event ev = {
			.code = HWT_EV_TASK_SCHEDULE,
			.par1 = (uint16_t)HWT_SWITCH_PAR1(42, st[i].state),
			.par2 = HWT_SWITCH_PAR2(42, 0),
			.tsc_lo = (uint32_t)(1000 + i),
		};

		ck_assert_int_eq(hwt_writer_add(w, 0, &ev, 1), 0);
	}
	ck_assert_int_eq(hwt_writer_close(w), 0);
	run_hwtrace(&r, dump, NULL);
	ck_assert_msg(r.status == 0, "dump: exit %d: %s", r.status, r.err);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char want[32];

		if (line[0] == '#' || !strstr(line, "task_schedule"))
			continue;
		ck_assert_uint_lt(n, sizeof(st) / sizeof(st[0]));
		snprintf(want, sizeof(want), " state=%s ", st[n].letter);
		ck_assert_msg(strstr(line, want), "'%s' lacks '%s'", line, want);
		n++;
	}
	ck_assert_uint_eq(n, sizeof(st) / sizeof(st[0]));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dump");
	TCase *tc = tcase_create("states");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, run_setup, run_teardown);
	tcase_add_test(tc, test_switch_states);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
