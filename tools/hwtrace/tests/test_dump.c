// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace dump: the state a task is switched out in, with ftrace's letters
 * (R S D T X, I for a TASK_IDLE wait, ? for anything else); the tasks it
 * names are the tasks every converted format names.
 */
#include <check.h>
#include <stdbool.h>
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

static void add(struct hwt_writer *w, uint32_t cpu, uint64_t ts, uint16_t code,
		uint16_t par1, uint32_t par2)
{
	struct hwt_event ev = { .code = code, .par1 = par1, .par2 = par2,
				.tsc_hi = (uint32_t)(ts >> 32), .tsc_lo = (uint32_t)ts };

	ck_assert_int_eq(hwt_writer_add(w, cpu, &ev, 1), 0);
}

/* Add "<comm>-<pid>" to the set (a NUL-separated list) if new. */
static void set_add(char *set, size_t size, const char *name)
{
	size_t n = 0;

	for (const char *p = set; *p; p += strlen(p) + 1, n = (size_t)(p - set))
		if (!strcmp(p, name))
			return;
	for (const char *p = set; *p; p += strlen(p) + 1)
		n = (size_t)(p - set) + strlen(p) + 1;
	ck_assert_uint_lt(n + strlen(name) + 2, size);
	strcpy(set + n, name);
	set[n + strlen(name) + 1] = '\0';
}

static size_t set_count(const char *set)
{
	size_t n = 0;

	for (const char *p = set; *p; p += strlen(p) + 1)
		n++;
	return n;
}

static bool set_has(const char *set, const char *name)
{
	for (const char *p = set; *p; p += strlen(p) + 1)
		if (!strcmp(p, name))
			return true;
	return false;
}

/*
 * Add to set every "<comm>-<tid>" a reader's text names: after each key
 * (say "prev_comm = \"" or "name: \"") a quoted comm, after the matching
 * tid key the number; tid 0 (idle) is no task.
 */
static void add_named(char *set, size_t size, const char *text, const char *comm_key,
		      const char *tid_key)
{
	for (const char *p = text; (p = strstr(p, comm_key)); ) {
		const char *c = p + strlen(comm_key), *t = strstr(c, tid_key);
		char comm[64], name[96];
		unsigned int tid;

		p = c;
		if (!t || sscanf(c, "%63[^\"]", comm) != 1 ||
		    sscanf(t + strlen(tid_key), "%u", &tid) != 1 || !tid)
			continue;
		snprintf(name, sizeof(name), "%s-%u", comm, tid);
		set_add(set, size, name);
	}
}

/*
 * The kernel-event formats, read by their own readers: babeltrace2 prints
 * ctf's sched_switch (prev_comm before prev_tid) and statedump (tid before
 * name: paired within its line); protoc decodes perfetto's sched_switch
 * (prev_comm before prev_pid).
 */
static void reader_tasks(const char *fmt, const char *out, char *got, size_t size)
{
	static char text[1 << 17];
	char cmd[512], txt[160];
	FILE *f;
	size_t n;

	tmp_path(txt, sizeof(txt), "reader.txt");
	if (!strcmp(fmt, "ctf"))
		snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' > '%s'", out, txt);
	else
		snprintf(cmd, sizeof(cmd), "protoc --proto_path=../../libhwt/conv "
			 "--decode=perfetto.protos.Trace ../../libhwt/conv/perfetto.proto "
			 "< '%s' > '%s'", out, txt);
	ck_assert_msg(system(cmd) == 0, "%s failed (is its reader installed?)", cmd);
	f = fopen(txt, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (!strcmp(fmt, "ctf")) {
		add_named(got, size, text, "prev_comm = \"", "prev_tid = ");
		add_named(got, size, text, "next_comm = \"", "next_tid = ");
		/* lttng_statedump_process_state: { tid = N, ..., name = "comm", ... } */
		for (char *l = strstr(text, "lttng_statedump_process_state"); l;
		     l = strstr(l + 1, "lttng_statedump_process_state")) {
			char *end = strchr(l, '\n'), *nm, comm[64], name[96];
			unsigned int tid;

			if (end)
				*end = '\0';
			nm = strstr(l, "name = \"");
			if (nm && sscanf(strstr(l, "tid = ") + 6, "%u", &tid) == 1 && tid &&
			    sscanf(nm + 8, "%63[^\"]", comm) == 1) {
				snprintf(name, sizeof(name), "%s-%u", comm, tid);
				set_add(got, size, name);
			}
			if (end)
				*end = '\n';
		}
	} else {
		add_named(got, size, text, "prev_comm: \"", "prev_pid: ");
		add_named(got, size, text, "next_comm: \"", "next_pid: ");
	}
}

/*
 * dump's tasks ("pid=N(comm)", prev=, next=; idle is no task) are the
 * tasks of BTF, HTF, ATF, JSON, CTF and Perfetto, by "<comm>-<pid>"; an interrupt comes
 * before the first task is named (it once made BTF name that task
 * task-0), and idle runs in between (it once was a task swapper/N).
 */
START_TEST(test_task_names_match_dump)
{
	static const char *const fmt[] = { "btf", "htf", "atf", "json", "ctf", "perfetto" };
	struct hwt_writer_opts o = { .sz = sizeof(o) };
	struct hwt_trace_info info = { .nr_cpus = 2, .clock = HWT_CLOCK_MONO,
				       .cycles_per_msec = 1000000,
				       .families = 1u << HWT_FAM_TASK | 1u << HWT_FAM_INTERRUPT,
				       .chunk_mode = HWT_CHUNK_STOP };
	static struct run r;
	static char want[4096], got[4096];
	char path[128], out[128], name[160], *p;
	char *dump[] = { "hwtrace", "dump", path, NULL };
	struct hwt_writer *w;

	tmp_path(path, sizeof(path), "names.hwt");
	snprintf(info.hostname, sizeof(info.hostname), "test");
	snprintf(info.backend, sizeof(info.backend), "module");
	ck_assert_int_eq(hwt_writer_open(&w, path, &info, &o), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 100, 100, "first"), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 200, 200, "second"), 0);
	ck_assert_int_eq(hwt_writer_add_task(w, 300, 300, "third"), 0);
	add(w, 0, 1000, HWT_EV_ID, 0, 0);
	add(w, 1, 1000, HWT_EV_ID, 1, 200);
	add(w, 0, 1100, HWT_EV_INTERRUPT_START, 5, 0);
	add(w, 0, 1150, HWT_EV_TASK_ACTIVATE, 0, 100);
	add(w, 0, 1200, HWT_EV_INTERRUPT_END, 5, 1);
	add(w, 0, 1300, HWT_EV_TASK_SCHEDULE, (uint16_t)HWT_SWITCH_PAR1(0, 0),
	    HWT_SWITCH_PAR2(0, 100));
	add(w, 1, 1350, HWT_EV_TASK_SCHEDULE, (uint16_t)HWT_SWITCH_PAR1(200, 1),
	    HWT_SWITCH_PAR2(200, 300));
	add(w, 0, 1400, HWT_EV_TASK_SCHEDULE, (uint16_t)HWT_SWITCH_PAR1(100, 1),
	    HWT_SWITCH_PAR2(100, 0));
	add(w, 1, 1500, HWT_EV_TASK_SCHEDULE, (uint16_t)HWT_SWITCH_PAR1(300, 1),
	    HWT_SWITCH_PAR2(300, 0));
	ck_assert_int_eq(hwt_writer_close(w), 0);

	run_hwtrace(&r, dump, NULL);
	ck_assert_msg(r.status == 0, "dump: exit %d: %s", r.status, r.err);
	want[0] = '\0';
	for (p = r.out; (p = strchr(p, '=')); p++) {
		unsigned int pid;
		char comm[32];

		if (strncmp(p - 3, "pid", 3) && strncmp(p - 4, "prev", 4) &&
		    strncmp(p - 4, "next", 4))
			continue;
		if (sscanf(p, "=%u(%31[^)])", &pid, comm) != 2 || !pid)
			continue;
		snprintf(name, sizeof(name), "%s-%u", comm, pid);
		set_add(want, sizeof(want), name);
	}
	ck_assert_uint_eq(set_count(want), 3);

	for (size_t f = 0; f < sizeof(fmt) / sizeof(fmt[0]); f++) {
		char *conv[] = { "hwtrace", "convert", "-O", (char *)fmt[f], "-o", out, path, NULL };
		static char buf[1 << 16];
		char *line, *save = NULL;
		size_t n;

		tmp_path(out, sizeof(out), fmt[f]);
		run_hwtrace(&r, conv, NULL);
		ck_assert_msg(r.status == 0, "convert %s: exit %d: %s", fmt[f], r.status, r.err);
		got[0] = '\0';
		if (!strcmp(fmt[f], "ctf") || !strcmp(fmt[f], "perfetto")) {
			reader_tasks(fmt[f], out, got, sizeof(got));
			goto compare;
		}
		n = slurp_file(out, buf, sizeof(buf));
		ck_assert_uint_gt(n, 0);
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *q;

			if (!strcmp(fmt[f], "btf") && line[0] != '#') {
				/* time,source,inst,T,target,... */
				char *c[5];

				c[0] = line;
				for (int k = 1; k < 5 && c[k - 1]; k++) {
					c[k] = strchr(c[k - 1], ',');
					if (c[k])
						*c[k]++ = '\0';
				}
				if (c[4] && !strcmp(c[3], "T")) {
					*strchrnul(c[4], ',') = '\0';
					set_add(got, sizeof(got), c[4]);
				}
			} else if (!strcmp(fmt[f], "htf") && !strncmp(line, "#-", 2) &&
				   (q = strchr(line, ' ')) && strchr(q, '-') && q - line == 6) {
				/* the entity table: ids of 4 digits; tasks are "<comm>-<pid>" */
				if (strncmp(q + 1, "irq", 3) && strncmp(q + 1, "lost", 4))
					set_add(got, sizeof(got), q + 1);
			} else if (!strcmp(fmt[f], "atf") && (q = strstr(line, "Type=\"task\"")) &&
				   (q = strstr(line, "Name=\""))) {
				*strchr(q + 6, '"') = '\0';
				set_add(got, sizeof(got), q + 6);
			} else if (!strcmp(fmt[f], "json") && strstr(line, "\"thread_name\"") &&
				   !strstr(line, "\"pid\":2147483632")) {
				q = strstr(line, "\"args\":{\"name\":\"") + 16;
				*strchr(q, '"') = '\0';
				set_add(got, sizeof(got), q);
			}
		}
compare:
		ck_assert_msg(set_count(got) == set_count(want), "%s: %zu tasks, dump %zu",
			      fmt[f], set_count(got), set_count(want));
		for (p = want; *p; p += strlen(p) + 1)
			ck_assert_msg(set_has(got, p), "%s lacks %s", fmt[f], p);
	}
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
	tcase_add_test(tc, test_task_names_match_dump);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
