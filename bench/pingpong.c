// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong ROUNDS: two processes hand a byte back and forth over two pipes
 * ROUNDS times, then print "Time: SECONDS" as hackbench does.
 *
 * Each round is two context switches whatever the timing (each side blocks
 * in read() until the other has written), so the end-to-end overhead of
 * every tracer is measured on the same work.  hackbench's work is not the same from run to run: how its
 * sockets batch messages decides how often it switches, and a tracer's cost
 * changes that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* send a byte on out and wait for it on in, rounds times (or the reverse) */
static void play(int in, int out, long rounds, int serve)
{
	char c = 0;

	for (long i = 0; i < rounds; i++) {
		if (serve && write(out, &c, 1) != 1)
			die("write");
		if (read(in, &c, 1) != 1)
			die("read");
		if (!serve && write(out, &c, 1) != 1)
			die("write");
	}
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	int ping[2], pong[2], status;
	long rounds;
	pid_t pid;

	if (argc != 2 || (rounds = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: pingpong ROUNDS\n");
		return 2;
	}
	if (pipe(ping) || pipe(pong))
		die("pipe");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		play(ping[0], pong[1], rounds, 0);
		return 0;
	}
	play(pong[0], ping[1], rounds, 1);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pingpong: the other side failed\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("Rounds: %ld\nTime: %.6f\n", rounds,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
