// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace listen against hand-made packets on 127.0.0.1 and ::1: crafted
 * CPU numbers, reordered and duplicated packets, losses at the head and the
 * tail (told by the end-of-trace packet), a burst that must fit in the
 * socket buffer, strangers (--from, the first sender's lock, forged end
 * packets), the CPU and memory limits, and floods of hostile packets while
 * a sender's numbered packets must all arrive.  The packets are built byte
 * by byte here, so the wire format is pinned, not just whatever
 * hwt_udp_encode() does.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
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
	struct sockaddr_storage addr;	/* where listen listens */
	socklen_t alen;
	int port;
	char out[128], errpath[128];
	char err[16384];
	int status;			/* exit status, 128 + signal, or -1 */
	int keep;			/* finish() leaves the file */
};

struct result {
	uint64_t records;
	struct hwt_net_counters net;	/* from the file's COUNTERS block */
	uint32_t nr_cpus;
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

/* A loopback address of family (AF_INET or AF_INET6) and port. */
static socklen_t loopback(int family, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		a->sin6_port = htons((uint16_t)port);
		return sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a->sin_port = htons((uint16_t)port);
		return sizeof(*a);
	}
}

/* A port free right now: bind port 0 and let it go. */
static int free_port(int family)
{
	struct sockaddr_storage a;
	socklen_t alen = loopback(family, 0, &a);
	int fd = socket(family, SOCK_DGRAM, 0), port;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, alen), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port :
		     ((struct sockaddr_in *)&a)->sin_port);
	close(fd);
	return port;
}

/* A sending socket of family bound to a loopback port; returns the port. */
static int sender(int family, int *fd)
{
	struct sockaddr_storage a;
	socklen_t alen = loopback(family, 0, &a);

	*fd = socket(family, SOCK_DGRAM, 0);
	ck_assert_int_ge(*fd, 0);
	ck_assert_int_eq(bind(*fd, (struct sockaddr *)&a, alen), 0);
	ck_assert_int_eq(getsockname(*fd, (struct sockaddr *)&a, &alen), 0);
	return ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port :
		     ((struct sockaddr_in *)&a)->sin_port);
}

/*
 * Start listen on a loopback address of family with the extra options
 * (NULL-terminated), and wait until it says it has bound its socket.
 */
static void start_opts(struct lst *l, const char *name, int family,
		       const char *const *extra)
{
	const char *argv[32] = { "hwtrace", "listen" };
	char url[64];
	int argc = 2;
	double t0;

	memset(l, 0, sizeof(*l));
	l->port = free_port(family);
	l->alen = loopback(family, l->port, &l->addr);
	snprintf(url, sizeof(url), family == AF_INET6 ? "udp://[::1]:%d" :
		 "udp://127.0.0.1:%d", l->port);
	snprintf(l->out, sizeof(l->out), "%s/%s.hwt", dir, name);
	snprintf(l->errpath, sizeof(l->errpath), "%s/%s.err", dir, name);
	argv[argc++] = url;
	argv[argc++] = "-o";
	argv[argc++] = l->out;
	/* -t: an old listen without the end packet stops too */
	argv[argc++] = "-t";
	argv[argc++] = "2";
	argv[argc++] = "-d";
	argv[argc++] = "30";
	for (; extra && *extra; extra++)
		argv[argc++] = *extra;
	argv[argc] = NULL;
	ck_assert_int_lt(argc, 32);
	l->pid = fork();
	ck_assert_int_ge(l->pid, 0);
	if (!l->pid) {
		if (!freopen(l->errpath, "w", stderr))
			_exit(126);
		execv("build/hwtrace", (char *const *)argv);
		_exit(127);
	}
	for (t0 = now(); now() - t0 < 5; usleep(10000)) {
		slurp(l->errpath, l->err, sizeof(l->err));
		if (strstr(l->err, "listening on"))
			break;
	}
	ck_assert_msg(strstr(l->err, "listening on"), "listen did not start: %s", l->err);
	sender(family, &l->tx);
}

static void start(struct lst *l, const char *name)
{
	start_opts(l, name, AF_INET, NULL);
}

static void send_from(struct lst *l, int fd, const void *pkt, size_t len)
{
	ck_assert_int_eq(sendto(fd, pkt, len, 0, (struct sockaddr *)&l->addr,
				l->alen), (ssize_t)len);
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
static size_t make_data(uint8_t *pkt, uint32_t pn, uint32_t cpu)
{
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
	return len;
}

static void send_data_from(struct lst *l, int fd, uint32_t pn, uint32_t cpu)
{
	uint8_t pkt[HWT_UDP_MAX_PACKET];

	send_from(l, fd, pkt, make_data(pkt, pn, cpu));
}

static void send_data(struct lst *l, uint32_t pn, uint32_t cpu)
{
	send_data_from(l, l->tx, pn, cpu);
}

/* The end-of-trace packet: no records, "HWT-END" trailer, number = count. */
static size_t make_end(uint8_t *pkt, uint32_t count)
{
	header(pkt, count, 0, 32);
	memcpy(pkt + 24, "HWT-END\0", 8);
	return 32;
}

static void send_end_from(struct lst *l, int fd, uint32_t count)
{
	uint8_t pkt[32];

	send_from(l, fd, pkt, make_end(pkt, count));
}

static void send_end(struct lst *l, uint32_t count)
{
	send_end_from(l, l->tx, count);
}

/* xorshift32: the hostile packets are random, but the same every run */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * A hostile datagram: junk, a good packet with a random CPU (up to 65535),
 * number and size, a wrong id, a wrong total_size, or a forged end packet.
 */
static size_t make_hostile(uint8_t *pkt, uint32_t *seed)
{
	uint32_t kind = rnd(seed) % 6, n = rnd(seed) % (HWT_UDP_MAX_EVENTS - 1);
	size_t len;

	switch (kind) {
	case 0:		/* junk of any size up to a jumbo datagram */
		len = rnd(seed) % 1500;
		for (size_t i = 0; i < len; i++)
			pkt[i] = (uint8_t)rnd(seed);
		return len;
	case 4:
		return make_end(pkt, rnd(seed) % 4);
	case 5:		/* a huge count: would make listen wait for a flood of numbers */
		return make_end(pkt, UINT32_MAX);
	default:
		len = 24 + n * 16 + 4;
		header(pkt, rnd(seed), n, (uint32_t)len);
		for (size_t i = 24; i < len; i++)
			pkt[i] = (uint8_t)rnd(seed);
		put32(pkt + len - 4, rnd(seed) % 65536);
		if (kind == 2)
			pkt[rnd(seed) % 11] ^= 0x20;		/* wrong id */
		else if (kind == 3)
			put32(pkt + 20, (uint32_t)len + 16);	/* wrong size */
		return len;
	}
}

/*
 * A well-formed data packet from a stranger: random number, records and
 * CPU (up to 65535): what --max-cpus and --max-memory must stop.
 */
static size_t make_random_data(uint8_t *pkt, uint32_t *seed)
{
	uint32_t n = 1 + rnd(seed) % (HWT_UDP_MAX_EVENTS - 2);
	size_t len = 24 + n * 16 + 4;

	header(pkt, rnd(seed), n, (uint32_t)len);
	for (size_t i = 24; i < len; i++)
		pkt[i] = (uint8_t)rnd(seed);
	put32(pkt + len - 4, rnd(seed) % 65536);
	return len;
}

/* The listen socket's queued bytes and drops, from /proc/net/udp{,6}. */
static int udp_queue(const struct lst *l, unsigned long *queued,
		     unsigned long *drops)
{
	FILE *f = fopen(l->addr.ss_family == AF_INET6 ? "/proc/net/udp6" :
			"/proc/net/udp", "r");
	char line[512], want[16];
	int found = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), ":%04X", l->port);
	while (fgets(line, sizeof(line), f)) {
		char *tok[16], *save, *t;
		int n = 0;

		for (t = strtok_r(line, " \n", &save); t && n < 16;
		     t = strtok_r(NULL, " \n", &save))
			tok[n++] = t;
		/* sl local rem st tx:rx tr retrnsmt uid timeout inode ref ptr drops */
		if (n < 13 || strcmp(strchr(tok[1], ':') ? strrchr(tok[1], ':') : "", want))
			continue;
		*queued = strtoul(strchr(tok[4], ':') + 1, NULL, 16);
		*drops = strtoul(tok[12], NULL, 10);
		found = 1;
	}
	fclose(f);
	return found;
}

/*
 * Flow control, not a timing threshold: wait (bounded) until listen has
 * read its queue down to limit bytes, so the socket drops nothing.  0 when
 * it has, -1 if the socket is gone or listen left it queued for 20 s.
 */
static int wait_queue(const struct lst *l, unsigned long limit)
{
	unsigned long queued = 0, drops;
	double t0 = now();

	do {
		if (!udp_queue(l, &queued, &drops))
			return -1;
		if (queued <= limit)
			return 0;
		usleep(1000);
	} while (now() - t0 < 20);
	return -1;
}

/* Peak resident memory of pid, KiB (VmHWM). */
static unsigned long vm_hwm(pid_t pid)
{
	char path[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	slurp(path, buf, sizeof(buf));
	p = strstr(buf, "VmHWM:");
	ck_assert_msg(p, "no VmHWM in %s", path);
	return strtoul(p + 6, NULL, 10);
}

/* What listen read = what it kept + the end packet + every kind of drop. */
static void check_sum(const struct hwt_net_counters *c)
{
	ck_assert_uint_eq(c->received, c->kept + c->end + c->malformed + c->foreign +
			  c->over_cpus + c->over_memory + c->duplicate);
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
	if (hwt_reader_info(r)->net)
		res->net = *hwt_reader_info(r)->net;
	res->nr_cpus = hwt_reader_info(r)->nr_cpus;
	while (hwt_reader_next(r, &rec) == 1) {
		res->records++;
		if (rec.ev.par2 < MAX_PACKETS)
			res->per_packet[rec.ev.par2]++;
	}
	hwt_reader_close(r);
	if (!l->keep)
		unlink(l->out);
}

/* What `hwtrace CMD FILE` prints on stdout. */
static void run_on(const char *cmd, const char *file, char *buf, size_t len)
{
	char line[256];
	FILE *p;
	size_t n;

	snprintf(line, sizeof(line), "build/hwtrace %s %s", cmd, file);
	p = popen(line, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(buf, 1, len - 1, p);
	buf[n] = '\0';
	pclose(p);
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
 * 600 numbers in a shuffled order, every seventh never sent and some sent
 * twice: the sorted gap list splits, shrinks and closes gaps in every way.
 */
START_TEST(test_shuffled)
{
	enum { N = 600 };
	static uint32_t order[N];
	uint32_t seed = 0xabcd, sent = 0, dups = 0;
	struct result res;
	struct lst l;
	char want[64];

	for (uint32_t i = 0; i < N; i++)
		order[i] = i;
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = rnd(&seed) % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	start(&l, "shuffled");
	for (uint32_t i = 0; i < N; i++) {
		if (order[i] % 7 == 3)
			continue;
		send_data(&l, order[i], order[i] % 3);
		sent++;
		if (i % 11 == 0) {
			send_data(&l, order[i], order[i] % 3);
			dups++;
		}
		if (i % 64 == 0)
			ck_assert_int_eq(wait_queue(&l, 0), 0);
	}
	send_end(&l, N);
	finish(&l, &res);
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_uint_eq(res.net.kept, sent);
	ck_assert_uint_eq(res.net.duplicate, dups);
	ck_assert_uint_eq(res.net.missing, N - sent);
	for (uint32_t pn = 0; pn < N; pn++)
		ck_assert_uint_eq(res.per_packet[pn], pn % 7 == 3 ? 0 : PER_PACKET);
	snprintf(want, sizeof(want), "%u packets missing; missing packet numbers: 3 10 17 24",
		 N - sent);
	ck_assert_msg(strstr(l.err, want), "%s", l.err);
	check_sum(&res.net);
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

/* Counters as one line, for the log and for failure messages. */
static const char *counters(const struct hwt_net_counters *c)
{
	static char buf[320];

	snprintf(buf, sizeof(buf), "received %llu = kept %llu + end %llu + malformed %llu + foreign %llu + over_cpus %llu + over_memory %llu + duplicate %llu; late %llu, missing %llu, kernel_dropped %llu",
		 (unsigned long long)c->received, (unsigned long long)c->kept,
		 (unsigned long long)c->end, (unsigned long long)c->malformed,
		 (unsigned long long)c->foreign, (unsigned long long)c->over_cpus,
		 (unsigned long long)c->over_memory, (unsigned long long)c->duplicate,
		 (unsigned long long)c->late, (unsigned long long)c->missing,
		 (unsigned long long)c->kernel_dropped);
	return buf;
}

/* The first sender locks the session: a stranger's end packet ends nothing. */
START_TEST(test_first_sender_locks)
{
	struct result res;
	struct lst l;
	char want[64];
	int other, port;

	start(&l, "lock");
	l.keep = 1;
	port = sender(AF_INET, &other);
	send_data(&l, 0, 0);
	ck_assert_int_eq(wait_queue(&l, 0), 0);
	send_end_from(&l, other, 1);
	send_data_from(&l, other, 1, 0);
	send_data(&l, 1, 1);
	send_end(&l, 2);
	finish(&l, &res);
	close(other);
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "taking packets from 127.0.0.1:"), "%s", l.err);
	snprintf(want, sizeof(want), "foreign packet from 127.0.0.1:%d dropped", port);
	ck_assert_msg(strstr(l.err, want), "%s", l.err);
	ck_assert_msg(strstr(l.err, "2 foreign"), "%s", l.err);
	ck_assert_uint_eq(res.records, 2 * PER_PACKET);
	ck_assert_uint_eq(res.net.received, 5);
	ck_assert_uint_eq(res.net.kept, 2);
	ck_assert_uint_eq(res.net.end, 1);
	ck_assert_uint_eq(res.net.foreign, 2);
	ck_assert_uint_eq(res.net.missing, 0);
	check_sum(&res.net);

	/* stats and dump say it too */
	run_on("stats", l.out, l.err, sizeof(l.err));
	ck_assert_msg(strstr(l.err, "packets:     5 received, 2 kept, 1 end-of-trace, 2 dropped:"),
		      "%s", l.err);
	ck_assert_msg(strstr(l.err, "0 malformed, 2 foreign, 0 over --max-cpus"), "%s", l.err);
	run_on("dump", l.out, l.err, sizeof(l.err));
	ck_assert_msg(strstr(l.err, "# packets: 5 received, 2 kept, 1 end, 0 malformed, 2 foreign,"),
		      "%s", l.err);
	unlink(l.out);
}
END_TEST

/* IPv6, --from with a port: the stranger who sends first is not taken. */
START_TEST(test_from_ipv6)
{
	struct result res;
	struct lst l;
	char from[64];
	const char *opts[] = { "--from", from, NULL };
	int real, port;

	port = sender(AF_INET6, &real);
	snprintf(from, sizeof(from), "[::1]:%d", port);
	start_opts(&l, "from6", AF_INET6, opts);
	ck_assert_msg(strstr(l.err, "listening on udp://[::1]:"), "%s", l.err);
	send_data(&l, 0, 0);		/* l.tx: another port of ::1 */
	for (uint32_t pn = 0; pn < 3; pn++)
		send_data_from(&l, real, pn, pn);
	send_end_from(&l, real, 3);
	finish(&l, &res);
	close(real);
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "foreign packet from [::1]:"), "%s", l.err);
	ck_assert_uint_eq(res.records, 3 * PER_PACKET);
	for (uint32_t pn = 0; pn < 3; pn++)
		ck_assert_uint_eq(res.per_packet[pn], PER_PACKET);
	ck_assert_uint_eq(res.net.kept, 3);
	ck_assert_uint_eq(res.net.foreign, 1);
	ck_assert_uint_eq(res.net.received, 5);
	check_sum(&res.net);
}
END_TEST

/* IPv6 end to end, nothing lost: exit 0, and the first sender named. */
START_TEST(test_ipv6)
{
	struct result res;
	struct lst l;

	start_opts(&l, "ipv6", AF_INET6, NULL);
	for (uint32_t pn = 0; pn < 5; pn++)
		send_data(&l, pn, pn % 2);
	send_end(&l, 5);
	finish(&l, &res);
	ck_assert_msg(l.status == 0, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "taking packets from [::1]:"), "%s", l.err);
	ck_assert_uint_eq(res.records, 5 * PER_PACKET);
	ck_assert_uint_eq(res.net.received, 6);
	ck_assert_uint_eq(res.net.kept, 5);
	ck_assert_uint_eq(res.net.end, 1);
	check_sum(&res.net);
}
END_TEST

/* --max-cpus 4: CPUs 4 and 5 are dropped, and their numbers are missing. */
START_TEST(test_max_cpus)
{
	static const char *const opts[] = { "--max-cpus", "4", NULL };
	struct result res;
	struct lst l;

	start_opts(&l, "maxcpus", AF_INET, opts);
	for (uint32_t pn = 0; pn < 6; pn++)
		send_data(&l, pn, pn);
	send_end(&l, 6);
	finish(&l, &res);
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "over --max-cpus packet from"), "%s", l.err);
	ck_assert_msg(strstr(l.err, "missing packet numbers: 4-5"), "%s", l.err);
	ck_assert_uint_eq(res.records, 4 * PER_PACKET);
	ck_assert_uint_eq(res.nr_cpus, 4);
	ck_assert_uint_eq(res.net.kept, 4);
	ck_assert_uint_eq(res.net.over_cpus, 2);
	ck_assert_uint_eq(res.net.missing, 2);
	check_sum(&res.net);
}
END_TEST

/* 256k holds three CPUs' 64 KiB blocks: the fourth CPU on is dropped. */
START_TEST(test_max_memory)
{
	static const char *const opts[] = { "--max-memory", "256k", NULL };
	struct result res;
	struct lst l;

	start_opts(&l, "maxmem", AF_INET, opts);
	for (uint32_t pn = 0; pn < 6; pn++)
		send_data(&l, pn, pn);
	/* an old CPU still has room */
	send_data(&l, 6, 1);
	send_end(&l, 7);
	finish(&l, &res);
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_msg(strstr(l.err, "over --max-memory packet from"), "%s", l.err);
	ck_assert_msg(strstr(l.err, "missing packet numbers: 3-5"), "%s", l.err);
	ck_assert_uint_eq(res.records, 4 * PER_PACKET);
	ck_assert_uint_eq(res.per_packet[6], PER_PACKET);
	ck_assert_uint_eq(res.net.kept, 4);
	ck_assert_uint_eq(res.net.over_memory, 3);
	ck_assert_uint_eq(res.net.missing, 3);
	check_sum(&res.net);
}
END_TEST

#define FLOOD_VALID	3000		/* the sender's numbered packets */
#define FLOOD_HOSTILE	20000		/* the stranger's */
#define FLOOD_QUEUE	(64ul << 10)	/* senders wait while more is queued */

/* The stranger: hostile datagrams from another port and another address. */
static void spray(const struct lst *l, int count, int (*make)(uint8_t *, uint32_t *))
{
	struct sockaddr_in other = { .sin_family = AF_INET };
	uint32_t seed = 0x5eed;
	uint8_t pkt[2048];
	int fd[2];

	fd[0] = socket(AF_INET, SOCK_DGRAM, 0);
	fd[1] = socket(AF_INET, SOCK_DGRAM, 0);
	other.sin_addr.s_addr = htonl(0x7F000002);	/* 127.0.0.2 */
	if (fd[0] < 0 || fd[1] < 0 ||
	    bind(fd[1], (struct sockaddr *)&other, sizeof(other)))
		_exit(2);
	for (int i = 0; i < count; i++) {
		size_t len = (size_t)make(pkt, &seed);

		if (i % 8 == 0 && wait_queue(l, FLOOD_QUEUE))
			_exit(3);
		if (sendto(fd[i % 2], pkt, len, 0, (const struct sockaddr *)&l->addr,
			   l->alen) != (ssize_t)len)
			_exit(4);
	}
	_exit(0);
}

static int hostile(uint8_t *pkt, uint32_t *seed)
{
	return (int)make_hostile(pkt, seed);
}

/*
 * The flood: a sender's numbered packets while a stranger sprays hostile
 * ones (forged end packets among them) at the same port.  The first
 * sender locks the session, so every packet of the sender that the kernel
 * delivered is in the file, the stranger's are all foreign, the peak RSS
 * stays within --max-memory of where it started, and the counters add up.
 */
START_TEST(test_flood_locked)
{
	static const char *const opts[] = { "--max-memory", "4M", NULL };
	unsigned long base, hwm, queued = 0, drops = 0;
	uint64_t whole = 0;
	struct result res;
	struct lst l;
	pid_t child;
	int st;

	start_opts(&l, "flood", AF_INET, opts);
	base = vm_hwm(l.pid);
	send_data(&l, 0, 0);
	ck_assert_int_eq(wait_queue(&l, 0), 0);	/* packet 0 taken: the sender locked */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child)
		spray(&l, FLOOD_HOSTILE, hostile);
	for (uint32_t pn = 1; pn < FLOOD_VALID; pn++) {
		if (pn % 8 == 0)
			ck_assert_int_eq(wait_queue(&l, FLOOD_QUEUE), 0);
		send_data(&l, pn, pn % 4);
	}
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert_msg(WIFEXITED(st) && !WEXITSTATUS(st), "sprayer: status 0x%x", st);
	ck_assert_int_eq(wait_queue(&l, 0), 0);
	hwm = vm_hwm(l.pid);
	ck_assert(udp_queue(&l, &queued, &drops));
	send_end(&l, FLOOD_VALID);
	finish(&l, &res);
	fprintf(stderr, "test_flood_locked: peak RSS %lu KiB (%lu KiB at start, cap 4096 KiB); socket drops %lu; %s\n",
		hwm, base, drops, counters(&res.net));
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_msg(hwm - base <= 4096, "peak RSS %lu KiB from %lu KiB", hwm, base);
	check_sum(&res.net);
	ck_assert_uint_le(res.net.kernel_dropped, drops);
	/* the forged end packets ended nothing: the sender's own did */
	ck_assert_uint_eq(res.net.end, 1);
	ck_assert_uint_eq(res.net.malformed + res.net.over_cpus +
			  res.net.over_memory + res.net.duplicate, 0);
	/* each of the sender's packets is whole in the file or counted missing */
	for (uint32_t pn = 0; pn < FLOOD_VALID; pn++) {
		ck_assert(res.per_packet[pn] == 0 || res.per_packet[pn] == PER_PACKET);
		whole += res.per_packet[pn] == PER_PACKET;
	}
	ck_assert_uint_eq(whole, res.net.kept);
	ck_assert_uint_eq(whole + res.net.missing, FLOOD_VALID);
	/* and only a packet the kernel dropped may be missing */
	ck_assert_uint_le(res.net.missing, drops);
	ck_assert_uint_eq(res.net.kept + res.net.foreign + 1 + drops,
			  FLOOD_VALID + FLOOD_HOSTILE + 1);
	if (!drops) {
		ck_assert_uint_eq(res.net.kept, FLOOD_VALID);
		ck_assert_uint_eq(res.net.foreign, FLOOD_HOSTILE);
	}
}
END_TEST

static int random_data(uint8_t *pkt, uint32_t *seed)
{
	return (int)make_random_data(pkt, seed);
}

/*
 * --any-sender: well-formed packets for random CPUs up to 65535 are taken
 * from anyone, and only --max-cpus and --max-memory bound what they cost.
 */
START_TEST(test_flood_any_sender)
{
	static const char *const opts[] = { "--any-sender", "--max-memory", "1M", NULL };
	unsigned long base, hwm, queued = 0, drops = 0;
	struct result res;
	struct lst l;
	pid_t child;
	int st;

	start_opts(&l, "floodany", AF_INET, opts);
	base = vm_hwm(l.pid);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child)
		spray(&l, FLOOD_HOSTILE, random_data);
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert_msg(WIFEXITED(st) && !WEXITSTATUS(st), "sprayer: status 0x%x", st);
	ck_assert_int_eq(wait_queue(&l, 0), 0);
	hwm = vm_hwm(l.pid);
	ck_assert(udp_queue(&l, &queued, &drops));
	send_end(&l, 0);
	finish(&l, &res);
	fprintf(stderr, "test_flood_any_sender: peak RSS %lu KiB (%lu KiB at start, cap 1024 KiB); socket drops %lu; %s\n",
		hwm, base, drops, counters(&res.net));
	ck_assert_msg(l.status == 3, "exit %d: %s", l.status, l.err);
	ck_assert_msg(hwm - base <= 1024, "peak RSS %lu KiB from %lu KiB", hwm, base);
	check_sum(&res.net);
	ck_assert_uint_eq(res.net.received + drops, FLOOD_HOSTILE + 1);
	ck_assert_uint_eq(res.net.foreign + res.net.malformed, 0);
	ck_assert_uint_gt(res.net.kept, 0);
	ck_assert_uint_gt(res.net.over_cpus, res.net.kept);
	ck_assert_uint_gt(res.net.over_memory, 0);
	ck_assert_uint_le(res.nr_cpus, 1024);
}
END_TEST

/* Run listen with bad options: exit 2, the reason, and no file. */
static void bad_option(const char *want, const char *a1, const char *a2,
		       const char *a3)
{
	char out[128], errpath[128], err[4096];
	pid_t pid;
	int st;

	snprintf(out, sizeof(out), "%s/bad.hwt", dir);
	snprintf(errpath, sizeof(errpath), "%s/bad.err", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (!freopen(errpath, "w", stderr))
			_exit(126);
		execl("build/hwtrace", "hwtrace", "listen", "-o", out, "-d", "1",
		      a1, a2, a3, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	slurp(errpath, err, sizeof(err));
	unlink(errpath);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s %s %s: status 0x%x: %s",
		      a1, a2, a3 ? a3 : "", st, err);
	ck_assert_msg(strstr(err, want), "%s %s %s: %s", a1, a2, a3 ? a3 : "", err);
	ck_assert_int_ne(access(out, F_OK), 0);
}

START_TEST(test_bad_options)
{
	const char *url = "udp://127.0.0.1:9";

	bad_option("bad --max-cpus '0'", "--max-cpus", "0", url);
	bad_option("bad --max-cpus '65537': 1 to 65536", "--max-cpus", "65537", url);
	bad_option("bad --max-cpus 'x'", "--max-cpus", "x", url);
	bad_option("bad --max-cpus '-1'", "--max-cpus", "-1", url);
	bad_option("at least 256k", "--max-memory", "100k", url);
	bad_option("--max-memory", "--max-memory", "lots", url);
	bad_option("bad --from '[::1'", "--from", "[::1", url);
	bad_option("bad --from '1.2.3.4:0'", "--from", "1.2.3.4:0", url);
	bad_option("bad --from 'no.such.host.invalid'", "--from", "no.such.host.invalid", url);
	bad_option("contradict", "--from=127.0.0.1", "--any-sender", url);
	bad_option("bad address 'udp://[::1'", "udp://[::1", NULL, NULL);
	bad_option("bad address 'udp://[::1]:0'", "udp://[::1]:0", NULL, NULL);
	bad_option("usage:", "--no-such-option", url, NULL);
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
	tcase_add_test(tc, test_shuffled);
	tcase_add_test(tc, test_first_sender_locks);
	tcase_add_test(tc, test_from_ipv6);
	tcase_add_test(tc, test_ipv6);
	tcase_add_test(tc, test_max_cpus);
	tcase_add_test(tc, test_max_memory);
	tcase_add_test(tc, test_flood_locked);
	tcase_add_test(tc, test_flood_any_sender);
	tcase_add_test(tc, test_bad_options);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rmdir(dir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
