// SPDX-License-Identifier: GPL-2.0
/*
 * rusage COMMAND ARGS...: run COMMAND and print, on stderr,
 *   rusage: wall=S user=S sys=S maxrss_kb=K status=N
 * (busybox's time has no peak RSS).  Exits with COMMAND's status.  SIGINT
 * and SIGTERM are passed on to COMMAND, so that a tracer run in the
 * background can be stopped through its wrapper.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static volatile pid_t child;

static void pass_on(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = pass_on };
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: %s COMMAND ARGS...\n", argv[0]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		/* a shell's background job starts with SIGINT ignored */
		signal(SIGINT, SIG_DFL);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0)
		return 1;
	child = pid;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (wait4(pid, &status, 0, &ru) != pid)
		if (errno != EINTR)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "rusage: wall=%.3f user=%.3f sys=%.3f maxrss_kb=%ld status=%d\n",
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
