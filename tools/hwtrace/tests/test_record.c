// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace record end to end against the fake device (fake_hwtrace.so):
 * every record the fake produced is in the file or counted lost or
 * overwritten, CPUs merge in time order, names arrive, and the device is
 * left as found (no chunk, filters restored, tracing off).
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <dirent.h>
#include <linux/capability.h>
#include <unistd.h>

#include <hwt/hwt.h>

#define NCPU	3

struct fake_report {
	unsigned long long produced, lost, overwritten;
	int chunks, enabled, cpu_waits;
	unsigned int filter;
};

struct file_stats {
	uint64_t total, ctl, sched;
	const char *init_name;
};

static char dir[64];
static const char *fake_total = "3000";	/* records per CPU */
static int no_rt;	/* run() takes away what SCHED_FIFO and a lower nice need */
static int start_nice;	/* run() starts hwtrace at this nice value */
static char self[4096];	/* this program, the command of the -r tests */

/* Run hwtrace with the fake device; returns its exit status. */
static int run(char *const argv[], struct fake_report *rep, char *err, size_t errlen)
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
		setenv("LD_PRELOAD", "build/tests/fake_hwtrace.so", 1);
		setenv("HWTRACE_DEV", "/fake/hwtrace", 1);
		setenv("FAKE_CPUS", "3", 1);
		setenv("FAKE_TOTAL", fake_total, 1);
		if (start_nice && setpriority(PRIO_PROCESS, 0, start_nice))
			_exit(124);
		if (no_rt) {
			/* root keeps CAP_SYS_NICE across exec unless the bounding set loses it */
			struct rlimit rl = { 0, 0 };

			if (setrlimit(RLIMIT_RTPRIO, &rl) || setrlimit(RLIMIT_NICE, &rl) ||
			    (!geteuid() && prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0)))
				_exit(125);
		}
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
	memset(rep, 0, sizeof(*rep));
	{
		const char *line = strstr(err, "fake-hwtrace:");

		ck_assert_msg(line, "no fake report in: %s", err);
		ck_assert_int_eq(sscanf(line, "fake-hwtrace: produced=%llu lost=%llu overwritten=%llu chunks=%d filter=0x%x enabled=%d cpu_waits=%d",
					&rep->produced, &rep->lost, &rep->overwritten,
					&rep->chunks, &rep->filter, &rep->enabled,
					&rep->cpu_waits), 7);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void read_trace(const char *path, struct file_stats *st)
{
	struct hwt_reader *r;
	struct hwt_record rec;
	uint64_t last = 0;
	const struct hwt_task *t;

	memset(st, 0, sizeof(*st));
	ck_assert_int_eq(hwt_reader_open(&r, path, NULL), 0);
	ck_assert_uint_eq(hwt_reader_info(r)->nr_cpus, NCPU);
	ck_assert_uint_eq(hwt_reader_info(r)->cycles_per_msec, 1000000);
	while (hwt_reader_next(r, &rec) == 1) {
		ck_assert_uint_ge(rec.ts, last);
		last = rec.ts;
		st->total++;
		if (HWT_CODE(rec.ev.code) == HWT_EV_TASK_SCHEDULE)
			st->sched++;
		else
			st->ctl++;
	}
	t = hwt_reader_task(r, 1);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->comm, "init");
	ck_assert_str_eq(hwt_reader_irq_name(r, 9), "acpi");
	hwt_reader_close(r);
}

static void check_left_clean(const struct fake_report *rep)
{
	ck_assert_int_eq(rep->chunks, 0);
	ck_assert_uint_eq(rep->filter, 0);
	ck_assert_int_eq(rep->enabled, 0);
}

static void record(const char *mode, const char *bufsize, const char *dur,
		   struct fake_report *rep, struct file_stats *st, int *rc)
{
	char out[128], err[8192];
	char *argv[] = { "hwtrace", "record", "-q", "-f", "task", "-m", (char *)mode,
			 "-b", (char *)bufsize, "-d", (char *)dur, "-o", out, NULL };

	snprintf(out, sizeof(out), "%s/%s.hwt", dir, mode);
	*rc = run(argv, rep, err, sizeof(err));
	ck_assert_msg(*rc == 0, "hwtrace record -m %s: exit %d: %s", mode, *rc, err);
	ck_assert_ptr_nonnull(strstr(err, "events in"));
	if (rep->lost)
		ck_assert_ptr_nonnull(strstr(err, "LOST"));
	read_trace(out, st);
	unlink(out);
	check_left_clean(rep);
}

START_TEST(test_stream)
{
	struct fake_report rep;
	struct file_stats st;
	int rc;

	/* 3000 records per CPU at ~100k/s, a 64 KiB ring: nothing need be lost */
	record("stream", "64k", "1", &rep, &st, &rc);
	ck_assert_uint_eq(rep.produced, 3 * 3000);
	ck_assert_uint_eq(st.sched + rep.lost, rep.produced);
	ck_assert_uint_eq(st.ctl, 3 * NCPU);	/* cycles_per_msec, start, stop */
	/* a drain thread per CPU, each waiting on its own CPU's rings */
	ck_assert_int_eq(rep.cpu_waits, NCPU);
}
END_TEST

/* A module without HWT_IOC_POLL_CPU: one drain, every record still there. */
START_TEST(test_stream_no_cpu_wait)
{
	struct fake_report rep;
	struct file_stats st;
	int rc;

	setenv("FAKE_NO_POLL_CPU", "1", 1);
	record("stream", "64k", "1", &rep, &st, &rc);
	unsetenv("FAKE_NO_POLL_CPU");
	ck_assert_uint_eq(rep.produced, 3 * 3000);
	ck_assert_uint_eq(st.sched + rep.lost, rep.produced);
	ck_assert_uint_eq(st.ctl, 3 * NCPU);
	ck_assert_int_eq(rep.cpu_waits, 0);
}
END_TEST

START_TEST(test_stop)
{
	struct fake_report rep;
	struct file_stats st;
	int rc;

	/* 4 KiB: 256 records per CPU fit, the rest is lost and counted */
	record("stop", "4k", "0.5", &rep, &st, &rc);
	ck_assert_uint_gt(rep.lost, 0);
	ck_assert_uint_eq(st.sched + rep.lost, rep.produced);
	ck_assert_uint_eq(st.sched, NCPU * (256 - 2));
}
END_TEST

START_TEST(test_cyclic)
{
	struct fake_report rep;
	struct file_stats st;
	int rc;

	/* the last 256 + 256 (emergency) slots of each CPU */
	record("cyclic", "4k", "0.5", &rep, &st, &rc);
	ck_assert_uint_eq(rep.lost, 0);
	ck_assert_uint_eq(st.total, NCPU * 512);
	ck_assert_uint_eq(st.total + rep.overwritten, rep.produced + 3 * NCPU);
}
END_TEST

START_TEST(test_chain)
{
	struct fake_report rep;
	struct file_stats st;
	int rc;

	record("chain", "4k", "0.5", &rep, &st, &rc);
	ck_assert_uint_eq(st.sched + rep.lost, rep.produced);
	/* the second chunk took over: twice the stop mode, and the jumps */
	ck_assert_uint_gt(st.sched, NCPU * 256);
	ck_assert_uint_eq(st.ctl, 3 * NCPU + NCPU);
}
END_TEST

START_TEST(test_command)
{
	struct fake_report rep;
	char err[8192], out[128];
	char *argv[] = { "hwtrace", "record", "-q", "-o", out, "--", "sh", "-c",
			 "sleep 0.2; exit 0", NULL };

	snprintf(out, sizeof(out), "%s/cmd.hwt", dir);
	ck_assert_int_eq(run(argv, &rep, err, sizeof(err)), 0);
	check_left_clean(&rep);
	unlink(out);
}
END_TEST

/* record -o udp:// into hwtrace listen over loopback: the same records. */
START_TEST(test_udp)
{
	struct fake_report rep;
	struct hwt_reader *r;
	struct hwt_record rec;
	char err[8192], out[128], url[64];
	char *argv[] = { "hwtrace", "record", "-q", "-f", "task", "-b", "64k", "-d",
			 "0.5", "-o", url, NULL };
	uint64_t n = 0;
	int port = 20000 + getpid() % 20000, status;
	pid_t l;

	snprintf(url, sizeof(url), "udp://127.0.0.1:%d", port);
	snprintf(out, sizeof(out), "%s/udp.hwt", dir);
	l = fork();
	ck_assert_int_ge(l, 0);
	if (!l) {
		execl("build/hwtrace", "hwtrace", "listen", url, "-o", out, "-q",
		      "-t", "1", "-d", "20", (char *)NULL);
		_exit(127);
	}
	usleep(300000);		/* let it bind */
	ck_assert_int_eq(run(argv, &rep, err, sizeof(err)), 0);
	check_left_clean(&rep);
	ck_assert_int_eq(waitpid(l, &status, 0), l);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "listen: status 0x%x", status);
	ck_assert_int_eq(hwt_reader_open(&r, out, NULL), 0);
	ck_assert_uint_eq(hwt_reader_info(r)->nr_cpus, NCPU);
	ck_assert_uint_eq(hwt_reader_info(r)->cycles_per_msec, 1000000);
	while (hwt_reader_next(r, &rec) == 1)
		n++;
	ck_assert_uint_eq(n, rep.produced - rep.lost + 3 * NCPU);
	hwt_reader_close(r);
	unlink(out);
}
END_TEST

/*
 * A STOP ring is sent all at once at the end: record must pace it (one
 * pause of >= 100 us every 16 packets) and end with the end-of-trace
 * packet, numbered with the count of data packets.  Kernel receive
 * timestamps give the pace; a large socket buffer keeps every packet.
 */
START_TEST(test_udp_paced)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct fake_report rep;
	char err[8192], url[64];
	char *argv[] = { "hwtrace", "record", "-q", "-f", "task", "-m", "stop",
			 "-b", "128k", "-d", "0.5", "-o", url, NULL };
	int fd, one = 1, size = 16 << 20, ended = 0;
	uint32_t data = 0, next = 0, end_count = 0;
	double first = 0, last = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)), 0);
	snprintf(url, sizeof(url), "udp://127.0.0.1:%d", ntohs(a.sin_port));
	fake_total = "20000";
	ck_assert_int_eq(run(argv, &rep, err, sizeof(err)), 0);
	fake_total = "3000";
	check_left_clean(&rep);
	for (;;) {
		uint8_t pkt[2048];
		char cbuf[CMSG_SPACE(sizeof(struct timespec))];
		struct iovec iov = { .iov_base = pkt, .iov_len = sizeof(pkt) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct hwt_event ev[HWT_UDP_MAX_EVENTS];
		struct hwt_udp_header h;
		struct cmsghdr *cm;
		ssize_t len = recvmsg(fd, &m, 0);
		uint32_t cpu;
		double t = 0;

		if (len < 0)
			break;
		ck_assert_int_ge(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, ev), 0);
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
				t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
			}
		}
		ck_assert(t > 0);
		if (cpu == HWT_UDP_END) {
			ended++;
			end_count = h.packet_number;
			continue;
		}
		ck_assert_int_eq(ended, 0);
		ck_assert_uint_eq(h.packet_number, next);	/* none lost here */
		next++;
		data++;
		if (!first)
			first = t;
		last = t;
	}
	close(fd);
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_eq(end_count, data);
	ck_assert_uint_gt(data, 3 * 64);
	/* all sent at the end, yet no faster than 16 packets per 100 us */
	ck_assert_msg(last - first >= (data / 16 - 1) * 100e-6,
		      "%u packets in %.6f s", data, last - first);
}
END_TEST

/* record -o udp://[::1]:PORT sends over IPv6: data, then the end packet. */
START_TEST(test_udp_ipv6)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	socklen_t alen = sizeof(a);
	struct fake_report rep;
	char err[8192], url[64];
	char *argv[] = { "hwtrace", "record", "-q", "-f", "task", "-m", "stop",
			 "-b", "128k", "-d", "0.5", "-o", url, NULL };
	int fd, size = 16 << 20, ended = 0;
	uint32_t data = 0, end_count = 0;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	snprintf(url, sizeof(url), "udp://[::1]:%d", ntohs(a.sin6_port));
	ck_assert_int_eq(run(argv, &rep, err, sizeof(err)), 0);
	check_left_clean(&rep);
	for (;;) {
		struct hwt_event ev[HWT_UDP_MAX_EVENTS];
		struct hwt_udp_header h;
		uint8_t pkt[2048];
		ssize_t len = recv(fd, pkt, sizeof(pkt), 0);
		uint32_t cpu;

		if (len < 0)
			break;
		ck_assert_int_ge(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, ev), 0);
		if (cpu == HWT_UDP_END) {
			ended++;
			end_count = h.packet_number;
		} else {
			data++;
		}
	}
	close(fd);
	ck_assert_int_eq(ended, 1);
	ck_assert_uint_gt(data, 0);
	ck_assert_uint_eq(end_count, data);
}
END_TEST

/*
 * "N": every thread of pid at nice value N, and at least 1 + NCPU of them
 * (the main thread, a drain per CPU; the fake's producer may have ended);
 * else what differs.
 */
static void thread_nices(FILE *f, pid_t pid)
{
	char path[64];
	struct dirent *e;
	int nice = 0, n = 0, mixed = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		int tid = atoi(e->d_name), v;

		if (tid <= 0)
			continue;
		errno = 0;
		v = getpriority(PRIO_PROCESS, (id_t)tid);	/* Linux: one thread's */
		if (errno)
			continue;	/* gone meanwhile */
		mixed |= n && v != nice;
		nice = v;
		n++;
	}
	if (d)
		closedir(d);
	if (mixed)
		fprintf(f, "mixed over %d threads", n);
	else if (n < 1 + NCPU)
		fprintf(f, "%d but only %d threads", nice, n);
	else
		fprintf(f, "%d", nice);
}

/*
 * The -r and -n tests' command: the policy and nice values of its parent
 * (hwtrace: every thread, once its drain threads run) and of itself, into
 * FILE.
 */
static int sched_report(const char *path)
{
	struct sched_param pp, sp;
	pid_t parent = getppid();
	int ppol = sched_getscheduler(parent), spol = sched_getscheduler(0);
	FILE *f = fopen(path, "w");
	char dir_path[64];

	/* the main thread and one drain thread per CPU; not a test's verdict */
	snprintf(dir_path, sizeof(dir_path), "/proc/%d/task", (int)parent);
	for (int i = 0; i < 1000; i++) {
		DIR *d = opendir(dir_path);
		int n = 0;

		while (d && readdir(d))
			n++;
		if (d)
			closedir(d);
		if (n - 2 >= 1 + NCPU)	/* less . and .. */
			break;
		usleep(10000);
	}
	if (!f || sched_getparam(parent, &pp) || sched_getparam(0, &sp))
		return 1;
	fprintf(f, "parent %s %d, nice ",
		ppol == SCHED_FIFO ? "fifo" : ppol == SCHED_OTHER ? "other" : "?",
		pp.sched_priority);
	thread_nices(f, parent);
	fprintf(f, "; self %s %d, nice %d\n",
		spol == SCHED_FIFO ? "fifo" : spol == SCHED_OTHER ? "other" : "?",
		sp.sched_priority, getpriority(PRIO_PROCESS, 0));
	return fclose(f) ? 1 : 0;
}

/* May this process (as hwtrace would) lower its nice value to nice? */
static int nice_allowed(int nice)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(setpriority(PRIO_PROCESS, 0, nice) ? 1 : 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Run argv (its command: sched_report into report); the report's line. */
static void run_report(char *const argv[], const char *report, char *got, size_t len)
{
	struct fake_report rep;
	char err[8192];
	int rc = run(argv, &rep, err, sizeof(err));
	FILE *f;

	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	check_left_clean(&rep);
	f = fopen(report, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(got, (int)len, f));
	fclose(f);
	unlink(report);
}

#define NICE_ARGV(out, report, ...) \
	{ "hwtrace", "record", "-q", "-f", "task", "-o", out, __VA_ARGS__ "--", self, \
	  "--sched-report", report, NULL }

/* May this process (as hwtrace would) switch to SCHED_FIFO? */
static int rt_allowed(void)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct sched_param sp = { .sched_priority = 1 };

		_exit(sched_setscheduler(0, SCHED_FIFO, &sp) ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* argv of "record -r PRIO -- this program --sched-report FILE" */
#define RT_ARGV(prio, out, report) \
	{ "hwtrace", "record", "-q", "-r", prio, "-f", "task", "-o", out, "--", self, \
	  "--sched-report", report, NULL }

/*
 * -r 7: the drain (hwtrace's process, the command's parent) runs SCHED_FIFO
 * at 7 while the command runs, and the command keeps SCHED_OTHER.  Where
 * SCHED_FIFO is not allowed (no root, no CAP_SYS_NICE), hwtrace says so.
 */
START_TEST(test_rt_prio)
{
	struct fake_report rep;
	char err[8192], out[128], report[128], got[256];
	char *argv[] = RT_ARGV("7", out, report);
	int rc;

	snprintf(out, sizeof(out), "%s/rt.hwt", dir);
	snprintf(report, sizeof(report), "%s/rt.sched", dir);
	rc = run(argv, &rep, err, sizeof(err));
	check_left_clean(&rep);
	if (!rt_allowed()) {
		ck_assert_int_eq(rc, 1);
		ck_assert_ptr_nonnull(strstr(err, "real-time priority 7 refused (EPERM)"));
		return;
	}
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	{
		FILE *f = fopen(report, "r");

		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(fgets(got, sizeof(got), f));
		fclose(f);
	}
	ck_assert_str_eq(got, nice_allowed(-10) ?
			 "parent fifo 7, nice -10; self other 0, nice 0\n" :
			 "parent fifo 7, nice 0; self other 0, nice 0\n");
	unlink(report);
	unlink(out);
}
END_TEST

/* SCHED_FIFO refused (no CAP_SYS_NICE, RLIMIT_RTPRIO 0): an error, before tracing */
START_TEST(test_rt_prio_refused)
{
	struct fake_report rep;
	char err[8192], out[128], report[128];
	char *argv[] = RT_ARGV("7", out, report);

	snprintf(out, sizeof(out), "%s/rtno.hwt", dir);
	snprintf(report, sizeof(report), "%s/rtno.sched", dir);
	no_rt = 1;
	ck_assert_int_eq(run(argv, &rep, err, sizeof(err)), 1);
	no_rt = 0;
	ck_assert_msg(strstr(err, "real-time priority 7 refused (EPERM): SCHED_FIFO needs root, CAP_SYS_NICE"),
		      "%s", err);
	ck_assert_uint_eq(rep.produced, 0);	/* never enabled */
	check_left_clean(&rep);
	ck_assert_int_ne(access(report, F_OK), 0);	/* the command never ran */
	unlink(out);
}
END_TEST

/*
 * No -n: every thread of the recorder (the main one and the drains) runs
 * at nice -10 where that is allowed, at 0 where not; the command at 0.
 */
START_TEST(test_nice_default)
{
	char out[128], report[128], got[256];
	char *argv[] = NICE_ARGV(out, report);

	snprintf(out, sizeof(out), "%s/nice.hwt", dir);
	snprintf(report, sizeof(report), "%s/nice.sched", dir);
	run_report(argv, report, got, sizeof(got));
	if (nice_allowed(-10))
		ck_assert_str_eq(got, "parent other 0, nice -10; self other 0, nice 0\n");
	else
		ck_assert_str_eq(got, "parent other 0, nice 0; self other 0, nice 0\n");
	/* without the right to lower it: no error, the nice value stays */
	no_rt = 1;
	run_report(argv, report, got, sizeof(got));
	no_rt = 0;
	ck_assert_str_eq(got, "parent other 0, nice 0; self other 0, nice 0\n");
	unlink(out);
}
END_TEST

/* -n 5: a higher nice value needs no right; the command keeps 0. */
START_TEST(test_nice_given)
{
	char out[128], report[128], got[256];
	char *argv[] = NICE_ARGV(out, report, "-n", "5",);

	snprintf(out, sizeof(out), "%s/nice5.hwt", dir);
	snprintf(report, sizeof(report), "%s/nice5.sched", dir);
	no_rt = 1;
	run_report(argv, report, got, sizeof(got));
	no_rt = 0;
	ck_assert_str_eq(got, "parent other 0, nice 5; self other 0, nice 0\n");
	unlink(out);
}
END_TEST

/* Started at nice 3 (the user's choice), no -n: the recorder stays at 3. */
START_TEST(test_nice_kept)
{
	char out[128], report[128], got[256];
	char *argv[] = NICE_ARGV(out, report);

	snprintf(out, sizeof(out), "%s/nice3.hwt", dir);
	snprintf(report, sizeof(report), "%s/nice3.sched", dir);
	start_nice = 3;
	run_report(argv, report, got, sizeof(got));
	start_nice = 0;
	ck_assert_str_eq(got, "parent other 0, nice 3; self other 0, nice 3\n");
	unlink(out);
}
END_TEST

/* -n -5 without CAP_SYS_NICE or RLIMIT_NICE: an error before tracing starts */
START_TEST(test_nice_refused)
{
	struct fake_report rep;
	char err[8192], out[128], report[128];
	char *argv[] = NICE_ARGV(out, report, "-n", "-5",);

	snprintf(out, sizeof(out), "%s/niceno.hwt", dir);
	snprintf(report, sizeof(report), "%s/niceno.sched", dir);
	no_rt = 1;
	ck_assert_int_eq(run(argv, &rep, err, sizeof(err)), 1);
	no_rt = 0;
	ck_assert_msg(strstr(err, "nice value -5 refused (EACCES): a nice value below the current one needs\n"
			     "  root, CAP_SYS_NICE or an RLIMIT_NICE of at least 25 (ulimit -e)"),
		      "%s", err);
	ck_assert_uint_eq(rep.produced, 0);	/* never enabled */
	check_left_clean(&rep);
	ck_assert_int_ne(access(report, F_OK), 0);	/* the command never ran */
	unlink(out);
}
END_TEST

START_TEST(test_too_big)
{
	struct fake_report rep;
	char err[8192];
	char *argv[] = { "hwtrace", "record", "-q", "-b", "1G", "-o", "/nonexistent/x",
			 NULL };

	/* 3 CPUs x 1 GiB over the fake's 64 MiB cap: refused with the limit */
	ck_assert_int_eq(run(argv, &rep, err, sizeof(err)), 2);
	ck_assert_ptr_nonnull(strstr(err, "the limit is"));
	check_left_clean(&rep);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--sched-report"))
		return sched_report(argv[2]);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return EXIT_FAILURE;
	self[n] = '\0';
	s = suite_create("hwtrace-record");
	tc = tcase_create("fake device");

	snprintf(dir, sizeof(dir), "/tmp/hwtrace-rec-XXXXXX");
	if (!mkdtemp(dir))
		return EXIT_FAILURE;
	tcase_add_test(tc, test_stream);
	tcase_add_test(tc, test_stream_no_cpu_wait);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_cyclic);
	tcase_add_test(tc, test_chain);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_rt_prio);
	tcase_add_test(tc, test_rt_prio_refused);
	tcase_add_test(tc, test_nice_default);
	tcase_add_test(tc, test_nice_given);
	tcase_add_test(tc, test_nice_kept);
	tcase_add_test(tc, test_nice_refused);
	tcase_add_test(tc, test_udp);
	tcase_add_test(tc, test_udp_paced);
	tcase_add_test(tc, test_udp_ipv6);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rmdir(dir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
