/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A watchdog for the kselftests that can hang in the kernel (the ioctl
 * fuzzer, the soak).
 */
#ifndef HWT_WATCHDOG_H
#define HWT_WATCHDOG_H

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

/*
 * A kernel deadlock of ours blocks the test's threads in uninterruptible
 * sleeps, and with mmap_lock involved, every page fault of the process
 * (the main thread's too): nothing inside the process can report it.  A
 * forked watchdog can: unless the test is done within its deadline, it
 * prints the kernel stack of every thread and kills the test, which the
 * harness reports as a failure.  Its own copy of the address space does not
 * share the mmap_lock.
 */
struct watchdog {
	pid_t pid;
	int fd;		/* closing it tells the watchdog we are done */
};

static inline void dump_stacks(pid_t pid)
{
	char path[300], buf[4096];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		ssize_t n;
		int fd;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", pid, d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n < 0)
			n = 0;
		buf[n] = '\0';
		fprintf(stderr, "# watchdog: thread %s kernel stack:\n", d->d_name);
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
			fprintf(stderr, "#   %s\n", line);
	}
	closedir(dir);
}

static inline void watchdog_start(struct watchdog *w, unsigned int secs, const char *what)
{
	pid_t parent = getpid();
	int p[2];

	w->pid = -1;
	w->fd = -1;
	if (pipe2(p, O_CLOEXEC))
		return;
	w->pid = fork();
	if (w->pid == 0) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };

		close(p[1]);
		if (poll(&pfd, 1, (int)secs * 1000) != 0)
			_exit(0);	/* done (EOF), or poll failed */
		fprintf(stderr, "# watchdog: %s still running after %u s: kernel deadlock? "
			"(see the hung-task or lockdep report in the kernel log)\n", what, secs);
		dump_stacks(parent);
		fflush(stderr);
		kill(parent, SIGKILL);
		_exit(0);
	}
	close(p[0]);
	w->fd = p[1];
}

static inline void watchdog_stop(struct watchdog *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->pid > 0)
		waitpid(w->pid, NULL, 0);
}

#endif /* HWT_WATCHDOG_H */
