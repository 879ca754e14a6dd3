// SPDX-License-Identifier: GPL-2.0
/*
 * persist_inject CPU READY_FILE: pinned to CPU, log user_event_1 records
 * numbered 0, 1, 2, ... (par1 = CPU, par2 = number) until killed or the
 * machine panics; READY_FILE is created after the first 200000 (more than
 * a CPU's ring in the test's 4 MiB area holds), so that persist_test.sh
 * crashes the machine mid-stream, with every ring wrapped.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/hwtrace.h>

int main(int argc, char **argv)
{
	struct hwt_log log = { .code = HWT_EV_USER_EVENT_1 };
	cpu_set_t set;
	int fd, cpu;

	if (argc != 3) {
		fprintf(stderr, "usage: persist_inject CPU READY_FILE\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	fd = open("/dev/hwtrace", O_RDWR);
	if (fd < 0) {
		perror("/dev/hwtrace");
		return 1;
	}
	log.par1 = (__u16)cpu;
	for (;;) {
		if (ioctl(fd, HWT_IOC_LOG_EVENT, &log)) {
			perror("HWT_IOC_LOG_EVENT");
			return 1;
		}
		if (++log.par2 == 200000)
			close(open(argv[2], O_WRONLY | O_CREAT, 0644));
	}
}
