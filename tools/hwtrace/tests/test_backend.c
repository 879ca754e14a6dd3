// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace record --backend: the choices and errors that need no kernel
 * (the VM's bpf_test.sh records for real): an unknown backend, -m chain
 * with bpf, auto without the module, a kernel without BTF.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

/* Run build/hwtrace with env (NAME=VALUE, ... NULL); exit status, stderr. */
static int run(char *const argv[], char *const env[], char *err, size_t errlen)
{
	char errpath[128];
	pid_t pid;
	int status;
	FILE *f;
	size_t n;

	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (!freopen(errpath, "w", stderr))
			_exit(126);
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv("build/hwtrace", argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	f = fopen(errpath, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(err, 1, errlen - 1, f);
	err[n] = '\0';
	fclose(f);
	unlink(errpath);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

START_TEST(test_unknown_backend)
{
	char *argv[] = { "hwtrace", "record", "--backend=kernel", "-d", "1", NULL };
	char err[4096];

	ck_assert_int_eq(run(argv, NULL, err, sizeof(err)), 2);
	ck_assert_ptr_nonnull(strstr(err, "module bpf auto"));
}
END_TEST

START_TEST(test_bpf_chain_refused)
{
	char *argv[] = { "hwtrace", "record", "--backend=bpf", "-m", "chain", "-d", "1",
			 "-o", "/nonexistent/x.hwt", NULL };
	char err[4096];

	ck_assert_int_eq(run(argv, NULL, err, sizeof(err)), 2);
	ck_assert_ptr_nonnull(strstr(err, "-m chain"));
}
END_TEST

/* auto without the module takes bpf and says so; no BTF is then explained */
START_TEST(test_auto_no_module_no_btf)
{
	char *argv[] = { "hwtrace", "record", "--backend=auto", "-d", "1",
			 "-o", "/nonexistent/x.hwt", NULL };
	char *env[] = { "HWTRACE_DEV=/nonexistent/hwtrace", "HWTRACE_BTF=/nonexistent/btf",
			NULL };
	char err[4096];

	ck_assert_int_eq(run(argv, env, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "backend: bpf"), "stderr: %s", err);
#ifdef HAVE_BPF
	ck_assert_msg(strstr(err, "no BTF"), "stderr: %s", err);
#else
	ck_assert_msg(strstr(err, "without the BPF backend"), "stderr: %s", err);
#endif
}
END_TEST

/* the default is auto */
START_TEST(test_default_is_auto)
{
	char *argv[] = { "hwtrace", "record", "-d", "1", "-o", "/nonexistent/x.hwt", NULL };
	char *env[] = { "HWTRACE_DEV=/nonexistent/hwtrace", "HWTRACE_BTF=/nonexistent/btf",
			NULL };
	char err[4096];

	ck_assert_int_eq(run(argv, env, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "backend: bpf"), "stderr: %s", err);
}
END_TEST

/* --backend=module keeps the module's own message */
START_TEST(test_module_missing)
{
	char *argv[] = { "hwtrace", "record", "--backend=module", "-d", "1",
			 "-o", "/nonexistent/x.hwt", NULL };
	char *env[] = { "HWTRACE_DEV=/nonexistent/hwtrace", NULL };
	char err[4096];

	ck_assert_int_eq(run(argv, env, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "insmod"), "stderr: %s", err);
	ck_assert_ptr_null(strstr(err, "backend: bpf"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("backend");
	TCase *tc = tcase_create("record");
	SRunner *sr;
	int failed;

	snprintf(dir, sizeof(dir), "/tmp/hwtrace-backend.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	tcase_add_test(tc, test_unknown_backend);
	tcase_add_test(tc, test_bpf_chain_refused);
	tcase_add_test(tc, test_auto_no_module_no_btf);
	tcase_add_test(tc, test_default_is_auto);
	tcase_add_test(tc, test_module_missing);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rmdir(dir);
	return failed ? 1 : 0;
}
