// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace listen against hand-made packets on 127.0.0.1: crafted CPU
 * numbers, reordered and duplicated packets, losses at the head and the
 * tail (told by the end-of-trace packet), and a burst that must fit in the
 * socket buffer.  The packets are built byte by byte here, so the wire
 * format is pinned, not just whatever hwt_udp_encode() does.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hwt/hwt.h>

#define PER_PACKET	10	/* records in each test packet */
#define MAX_PACKETS	4096

struct lst {
	pid_t pid;
	int tx;
	struct sockaddr_in addr;
	char out[128], errpath[128];
	char err[16384];
	int status;			/* exit status, 128 + signal, or -1 */
};

struct result {
	uint64_t records;
	uint32_t per_packet[MAX_PACKETS];	/* records seen from each packet */
};

static char dir[64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : 0;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* A port free right now: bind port 0 and let it go. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), port;

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* Start listen and wait until it says it has bound its socket. */
static void start(struct lst *l, const char *name)
{
	char url[64];
	double t0;

	memset(l, 0, sizeof(*l));
	l->addr.sin_family = AF_INET;
	l->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l->addr.sin_port = htons((uint16_t)free_port());
	snprintf(url, sizeof(url), "udp://127.0.0.1:%d", ntohs(l->addr.sin_port));
	snprintf(l->out, sizeof(l->out), "%s/%s.hwt", dir, name);
	snprintf(l->errpath, sizeof(l->errpath), "%s/%s.err", dir, name);
	l->pid = fork();
	ck_assert_int_ge(l->pid, 0);
	if (!l->pid) {
		if (!freopen(l->errpath, "w", stderr))
			_exit(126);
		/* -t: an old listen without the end packet stops too */
		execl("build/hwtrace", "hwtrace", "listen", url, "-o", l->out,
		      "-t", "2", "-d", "10", (char *)NULL);
		_exit(127);
	}
	for (t0 = now(); now() - t0 < 5; usleep(10000)) {
		slurp(l->errpath, l->err, sizeof(l->err));
		if (strstr(l->err, "listening on"))
			break;
	}
	ck_assert_msg(strstr(l->err, "listening on"), "listen did not start: %s", l->err);
	l->tx = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(l->tx, 0);
}

static void send_raw(struct lst *l, const void *pkt, size_t len)
{
	ck_assert_int_eq(sendto(l->tx, pkt, len, 0, (struct sockaddr *)&l->addr,
				sizeof(l->addr)), (ssize_t)len);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The 24-byte S.Ha.R.K. header; returns the header size. */
static size_t header(uint8_t *p, uint32_t pn, uint32_t n, uint32_t total)
{
	memset(p, 0, 12);
	memcpy(p, "TRACER-V1.0", 11);
	put32(p + 12, pn);
	put32(p + 16, n);
	put32(p + 20, total);
	return 24;
}

/* Packet pn: PER_PACKET records, par2 = pn, TSC from pn; the CPU trailer. */
static void send_data(struct lst *l, uint32_t pn, uint32_t cpu)
{
	uint8_t pkt[HWT_UDP_MAX_PACKET];
	size_t len = 24 + PER_PACKET * 16 + 4;
	uint8_t *p = pkt + header(pkt, pn, PER_PACKET, (uint32_t)len);

	for (uint32_t i = 0; i < PER_PACKET; i++, p += 16) {
		uint64_t tsc = 1000000 + (uint64_t)pn * 100 + i;

		put32(p, HWT_EV_TASK_SCHEDULE | i << 16);
		put32(p + 4, (uint32_t)(tsc >> 32));
		put32(p + 8, (uint32_t)tsc);
		put32(p + 12, pn);
	}
	put32(p, cpu);
	send_raw(l, pkt, len);
}

/* The end-of-trace packet: no records, "HWT-END" trailer, number = count. */
static void send_end(struct lst *l, uint32_t count)
{
	uint8_t pkt[32];

	header(pkt, count, 0, sizeof(pkt));
	memcpy(pkt + 24, "HWT-END\0", 8);
	send_raw(l, pkt, sizeof(pkt));
}

/* Wait (bounded) for listen to exit; read its report and its file. */
static void finish(struct lst *l, struct result *res)
{
	struct hwt_reader *r;
	struct hwt_record rec;
	double t0 = now();
	int st;

	l->status = -1;
	while (now() - t0 < 15) {
		pid_t p = waitpid(l->pid, &st, WNOHANG);

		ck_assert_int_ge(p, 0);
		if (p == l->pid) {
			l->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		usleep(10000);
	}
	if (l->status < 0) {
		kill(l->pid, SIGKILL);
		waitpid(l->pid, &st, 0);
	}
	close(l->tx);
	slurp(l->errpath, l->err, sizeof(l->err));
	unlink(l->errpath);
	ck_assert_msg(l->status >= 0, "listen still running after 15 s: %s", l->err);
	ck_assert_msg(l->status < 128, "listen killed by signal %d: %s",
		      l->status - 128, l->err);
	memset(res, 0, sizeof(*res));
	if (hwt_reader_open(&r, l->out, NULL))
		return;
	while (hwt_reader_next(r, &rec) == 1) {
		res->records++;
		if (rec.ev.par2 < MAX_PACKETS)
			res->per_packet[rec.ev.par2]++;
	}
	hwt_reader_close(r);
	unlink(l->out);
}

/* One packet with a CPU no writer can take: malformed, and listen goes on. */
START_TEST(test_bad_cpu)
{
	static const uint32_t bad[] = { UINT32_MAX, UINT32_MAX - 1, 65536, 1u << 31 };
	struct result res;
	struct lst l;

	start(&l, "badcpu");
	send_data(&l, 0, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		send_data(&l, 1, bad[i]);
	send_data(&l, 1, 2);
	send_end(&l, 2);
	finish(&l, &res);
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "4 malformed"), "%s", l.err);
	ck_assert_msg(strstr(l.err, "0 missing"), "%s", l.err);
	ck_assert_msg(strstr(l.err, "WARNING: malformed packet"), "%s", l.err);
	ck_assert_uint_eq(res.records, 2 * PER_PACKET);
	ck_assert_uint_eq(res.per_packet[1], PER_PACKET);
}
END_TEST

/* Packets numbered from 0: those before the first and after the last count. */
START_TEST(test_head_tail_loss)
{
	struct result res;
	struct lst l;

	start(&l, "loss");
	send_data(&l, 2, 0);
	send_data(&l, 3, 1);
	send_end(&l, 6);
	finish(&l, &res);
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "4 missing"), "%s", l.err);
	ck_assert_msg(strstr(l.err, "missing packet numbers: 0-1 4-5"), "%s", l.err);
	ck_assert_uint_eq(res.records, 2 * PER_PACKET);
}
END_TEST

/* Nothing lost: the end packet alone ends the trace, exit 0. */
START_TEST(test_complete)
{
	struct result res;
	struct lst l;
	double t0;

	start(&l, "complete");
	for (uint32_t pn = 0; pn < 5; pn++)
		send_data(&l, pn, pn % 2);
	t0 = now();
	send_end(&l, 5);
	finish(&l, &res);
	ck_assert_msg(l.status == 0, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "0 missing"), "%s", l.err);
	ck_assert_uint_eq(res.records, 5 * PER_PACKET);
	/* the end packet stopped it, not the 2 s idle timeout */
	ck_assert_double_lt(now() - t0, 1.5);
}
END_TEST

/* Late packets that fill a gap are kept; a real duplicate is not. */
START_TEST(test_reorder)
{
	static const uint32_t order[] = { 1, 0, 6, 3, 3, 2, 5, 4, 0 };
	struct result res;
	struct lst l;

	start(&l, "reorder");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		send_data(&l, order[i], 0);
	send_end(&l, 7);
	finish(&l, &res);
	ck_assert_msg(l.status == 0, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "0 missing"), "%s", l.err);
	ck_assert_msg(strstr(l.err, "2 duplicate"), "%s", l.err);
	ck_assert_uint_eq(res.records, 7 * PER_PACKET);
	for (uint32_t pn = 0; pn < 7; pn++)
		ck_assert_uint_eq(res.per_packet[pn], PER_PACKET);
}
END_TEST

/*
 * listen stopped while 3000 packets (3 MB) arrive: only its socket buffer
 * holds them, so it must be larger than the usual 208 KiB default.
 */
START_TEST(test_burst)
{
	const uint32_t n = 3000;
	struct result res;
	struct lst l;

	if (geteuid()) {
		char s[32] = "";

		/* unprivileged, SO_RCVBUF stops at rmem_max */
		slurp("/proc/sys/net/core/rmem_max", s, sizeof(s));
		if (strtoul(s, NULL, 0) < 16u << 20) {
			fprintf(stderr, "test_burst: skipped (not root, small rmem_max)\n");
			return;
		}
	}
	start(&l, "burst");
	ck_assert_int_eq(kill(l.pid, SIGSTOP), 0);
	for (uint32_t pn = 0; pn < n; pn++)
		send_data(&l, pn, pn % 4);
	send_end(&l, n);
	ck_assert_int_eq(kill(l.pid, SIGCONT), 0);
	finish(&l, &res);
	ck_assert_msg(l.status == 0, "exit %d: %s", l.status, l.err);
	ck_assert_uint_eq(res.records, (uint64_t)n * PER_PACKET);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwtrace-listen");
	TCase *tc = tcase_create("loopback");
	SRunner *sr;
	int failed;

	snprintf(dir, sizeof(dir), "/tmp/hwtrace-listen-XXXXXX");
	if (!mkdtemp(dir))
		return EXIT_FAILURE;
	tcase_add_test(tc, test_bad_cpu);
	tcase_add_test(tc, test_head_tail_loss);
	tcase_add_test(tc, test_complete);
	tcase_add_test(tc, test_reorder);
	tcase_add_test(tc, test_burst);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rmdir(dir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
