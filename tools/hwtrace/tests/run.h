/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run build/hwtrace from a Check test, as a user would: its exit status,
 * standard output and standard error, optionally against the fake device
 * (fake_hwtrace.so, LD_PRELOAD'ed with HWTRACE_DEV pointing at it).
 */
#ifndef HWTRACE_TEST_RUN_H
#define HWTRACE_TEST_RUN_H

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct run {
	int status;		/* exit status, or 128 + signal */
	char out[1 << 20];	/* standard output, NUL-terminated, maybe cut */
	char err[16384];	/* standard error */
	size_t out_len;
};

/* Environment for the fake device: FAKE_CPUS cpus, FAKE_TOTAL records each. */
#define FAKE_ENV(cpus, total)	\
	"LD_PRELOAD=build/tests/fake_hwtrace.so", "HWTRACE_DEV=/fake/hwtrace", \
	"FAKE_CPUS=" cpus, "FAKE_TOTAL=" total

/* one directory per test case, made and removed outside the forked tests */
static char run_dir[64];

static inline void run_setup(void)
{
	snprintf(run_dir, sizeof(run_dir), "/tmp/hwtrace-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(run_dir));
}

static inline void run_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", run_dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", run_dir);
}

/* A path in the test's directory. */
static inline const char *tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", run_dir, name);
	return buf;
}

static inline size_t slurp_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
	return n;
}

/* argv[0] is ignored; env: NAME=VALUE strings, NULL-terminated, or NULL. */
static inline void run_hwtrace(struct run *r, char *const argv[], char *const env[])
{
	char outpath[128], errpath[128];
	pid_t pid;
	int status;

	tmp_path(outpath, sizeof(outpath), "run.stdout");
	tmp_path(errpath, sizeof(errpath), "run.stderr");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (!freopen(outpath, "w", stdout) || !freopen(errpath, "w", stderr))
			_exit(126);
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv("build/hwtrace", argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->out_len = slurp_file(outpath, r->out, sizeof(r->out));
	slurp_file(errpath, r->err, sizeof(r->err));
	unlink(outpath);
	unlink(errpath);
}

#endif /* HWTRACE_TEST_RUN_H */
