// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace listen udp://ADDR:PORT -o FILE: receive S.Ha.R.K. UDP trace
 * packets (from hwtrace record -o udp://..., or a S.Ha.R.K. system) into a
 * .hwt file, and say which packet numbers never arrived.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hwtrace.h"

static const char usage[] =
"usage: hwtrace listen udp://ADDR[:PORT] -o FILE [-d SECONDS] [-t IDLE] [-q]\n"
"                      [--from ADDR[:PORT]] [--any-sender] [--max-cpus N]\n"
"                      [--max-memory SIZE]\n"
"\n"
"Receive S.Ha.R.K. UDP trace packets on ADDR:PORT (port 20000 by default;\n"
"ADDR 0.0.0.0 or [::] for every interface, an IPv6 ADDR in brackets) and\n"
"write them to FILE until the sender's end-of-trace packet, Ctrl-C, SECONDS\n"
"elapse, or the sender sent nothing for IDLE seconds.  Packet numbers start\n"
"at 0; the end-of-trace packet (hwtrace record sends one) gives the count,\n"
"so packets missing at the head, in between and at the tail are all counted\n"
"and listed at the end.\n"
"\n"
"Anyone who can reach the port can send to it, so what is taken is bounded:\n"
"  --from ADDR[:PORT]  take packets from this source only (any port if none\n"
"                      is given); the rest are counted as foreign and dropped\n"
"  --any-sender        take packets from every source.  Without it or --from,\n"
"                      the first well-formed packet's source is the only one\n"
"  --max-cpus N        drop packets for CPU N and above (default 1024, at most\n"
"                      65536, what a .hwt file holds)\n"
"  --max-memory SIZE   hold at most SIZE of records and packet-number gaps,\n"
"                      k/M/G (default 128M, at least 256k); drop packets that\n"
"                      would need more\n"
"Every drop is counted, in the summary and in FILE (hwtrace stats shows it).\n"
"\n"
"Exit status: 0, 1 error, 2 usage, 3 packets were missing or dropped\n"
"(duplicates aside, whose records are in FILE), or an hwtrace sender's\n"
"end-of-trace packet never came.\n";

/* After the end packet, how long late packets may still fill gaps. */
#define END_GRACE	0.5
/* Room for bursts while the writer is busy; root may exceed rmem_max. */
#define RCVBUF_BYTES	(16 << 20)
#define MAX_DROP_WARNINGS 10
#define DEFAULT_MAX_CPUS 1024
#define DEFAULT_MAX_MEMORY (128ull << 20)
/* one CPU's 64 KiB block buffer and room for the rest */
#define MIN_MAX_MEMORY	(256ull << 10)

struct gap {
	uint32_t from, to;		/* missing packet numbers, inclusive */
};

struct listener {
	struct hwt_writer *w;
	/* sorted by number, disjoint, all below expect */
	struct gap *gaps;
	size_t nr_gaps, cap_gaps;
	uint64_t expect;		/* next number in order: 64 bits, no wrap */
	int started;
	int hwtrace_sender;		/* a CPU trailer seen: an end packet will come */
	int ended;
	double end_t;
	uint64_t records;
	struct hwt_net_counters c;
	uint64_t warnings;

	/* limits */
	struct net_addr sender;		/* packets from elsewhere are foreign */
	int have_sender;		/* --from, or the first sender locked it */
	int any_sender;
	uint32_t max_cpus;
	uint64_t max_memory;
};

/* The gap holding pn, or the one before which pn would go (nr_gaps if none). */
static size_t find_gap(const struct listener *l, uint32_t pn)
{
	size_t lo = 0, hi = l->nr_gaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->gaps[mid].to < pn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int in_gap(const struct listener *l, size_t i, uint32_t pn)
{
	return i < l->nr_gaps && l->gaps[i].from <= pn;
}

/*
 * Bytes keeping pn may add to the gap list: it grows by doubling, and
 * realloc() may hold the old array and the new one at once.
 */
static uint64_t gap_cost(const struct listener *l, uint32_t pn)
{
	size_t i = find_gap(l, pn);
	int new_gap = pn > l->expect ||
		      (in_gap(l, i, pn) && pn != l->gaps[i].from && pn != l->gaps[i].to);

	if (!new_gap || l->nr_gaps < l->cap_gaps)
		return 0;
	return (l->cap_gaps ? 2 * l->cap_gaps : 16) * sizeof(struct gap);
}

static int insert_gap(struct listener *l, size_t i, uint32_t from, uint32_t to)
{
	if (l->nr_gaps == l->cap_gaps) {
		size_t cap = l->cap_gaps ? 2 * l->cap_gaps : 16;
		struct gap *g = realloc(l->gaps, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		l->gaps = g;
		l->cap_gaps = cap;
	}
	memmove(&l->gaps[i + 1], &l->gaps[i], (l->nr_gaps - i) * sizeof(*l->gaps));
	l->gaps[i].from = from;
	l->gaps[i].to = to;
	l->nr_gaps++;
	return 0;
}

/* Is packet pn still wanted: new, or filling a gap (not a duplicate)? */
static int wanted(const struct listener *l, uint32_t pn)
{
	return pn >= l->expect || in_gap(l, find_gap(l, pn), pn);
}

/*
 * Packet pn, wanted, is kept.  Numbers start at 0, so a first packet
 * numbered 5 means 0-4 were lost.
 */
static int account(struct listener *l, uint32_t pn)
{
	size_t i;
	struct gap *g;

	if (pn >= l->expect) {
		if (pn > l->expect &&
		    insert_gap(l, l->nr_gaps, (uint32_t)l->expect, pn - 1))
			return -ENOMEM;
		l->expect = (uint64_t)pn + 1;
		return 0;
	}
	l->c.late++;
	i = find_gap(l, pn);
	g = &l->gaps[i];
	if (g->from == g->to) {
		l->nr_gaps--;
		memmove(g, g + 1, (l->nr_gaps - i) * sizeof(*g));
	} else if (pn == g->from) {
		g->from++;
	} else if (pn == g->to) {
		g->to--;
	} else {
		uint32_t to = g->to;

		g->to = pn - 1;
		return insert_gap(l, i + 1, pn + 1, to);
	}
	return 0;
}

/* The end packet's number is the count of data packets: the rest is lost. */
static int end_of_trace(struct listener *l, uint32_t count)
{
	l->c.end++;
	l->ended = 1;
	if (count > l->expect) {
		if (insert_gap(l, l->nr_gaps, (uint32_t)l->expect, count - 1))
			return -ENOMEM;
		l->expect = count;
	}
	return 0;
}

static uint64_t missing(const struct listener *l)
{
	uint64_t n = 0;

	for (size_t i = 0; i < l->nr_gaps; i++)
		n += (uint64_t)l->gaps[i].to - l->gaps[i].from + 1;
	return n;
}

/* Would keeping pn's records on cpu take us past --max-memory? */
static int over_memory(const struct listener *l, uint32_t pn, uint32_t cpu)
{
	uint64_t held = hwt_writer_mem(l->w) + l->cap_gaps * sizeof(struct gap);
	uint64_t cost = hwt_writer_cpu_cost(l->w, cpu);

	cost = cost == UINT64_MAX ? cost : cost + gap_cost(l, pn);
	return cost > l->max_memory || held > l->max_memory - cost;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_writer(struct listener *l, const char *out,
		       const struct hwt_event *ev, int n)
{
	struct hwt_trace_info info;

	memset(&info, 0, sizeof(info));
	host_info(&info);	/* the receiving host: the sender's is unknown */
	snprintf(info.backend, sizeof(info.backend), "udp");
	snprintf(info.kernel_release, sizeof(info.kernel_release), "unknown");
	info.nr_cpus = 1;
	info.clock = HWT_CLOCK_TSC;
	info.families = FAMILIES_ALL;
	info.chunk_mode = HWT_CHUNK_STOP;
	/* the sender logs cycles_per_msec first: the rate of its clock */
	for (int i = 0; i < n; i++) {
		if (HWT_CODE(ev[i].code) == HWT_EV_CYCLES_PER_MSEC) {
			info.clock = ev[i].par1;
			info.cycles_per_msec = ev[i].par2;
			break;
		}
	}
	return hwt_writer_open(&l->w, out, &info, NULL);
}

/* As much socket buffer as we may have; a smaller one only risks losses. */
static int grow_rcvbuf(int fd)
{
	int size = RCVBUF_BYTES;
	socklen_t len = sizeof(size);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &len))
		return 0;
	return size / 2;	/* the kernel doubles it for its bookkeeping */
}

/* A dropped packet: the first few say so, the summary counts them all. */
static void warn_drop(struct listener *l, const char *why,
		      const struct sockaddr *from, ssize_t len,
		      const struct hwt_udp_header *h, uint32_t cpu)
{
	char addr[64], detail[96] = "";

	if (++l->warnings > MAX_DROP_WARNINGS)
		return;
	format_addr(from, addr, sizeof(addr));
	/* h is filled once the packet is 24 bytes long */
	if (h && len >= HWT_UDP_HDR_SIZE)
		snprintf(detail, sizeof(detail), ", number %u, %u events, total_size %u",
			 h->packet_number, h->number_of_events, h->total_size);
	if (cpu != HWT_UDP_NO_CPU)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
			 ", CPU %u", cpu);
	errmsg("WARNING: %s packet from %s dropped (%zd bytes%s)%s", why, addr, len,
	       detail, l->warnings == MAX_DROP_WARNINGS ? "; no more such warnings" : "");
}

static void report(struct listener *l, const char *out)
{
	const struct hwt_net_counters *c = &l->c;

	fprintf(stderr, "%s: %" PRIu64 " packets, %" PRIu64 " records to %s; %" PRIu64
		" missing, %" PRIu64 " late, %" PRIu64 " duplicate\n", prog, c->kept,
		l->records, out, c->missing, c->late, c->duplicate);
	fprintf(stderr, "%s: %" PRIu64 " datagrams received: %" PRIu64 " kept, %" PRIu64
		" end-of-trace, %" PRIu64 " malformed, %" PRIu64 " foreign, %" PRIu64
		" over --max-cpus, %" PRIu64 " over --max-memory, %" PRIu64
		" duplicate; %" PRIu64 " dropped by the kernel (socket buffer full)\n",
		prog, c->received, c->kept, c->end, c->malformed, c->foreign,
		c->over_cpus, c->over_memory, c->duplicate, c->kernel_dropped);
	if (c->missing) {
		fprintf(stderr, "%s: WARNING: %" PRIu64 " packets missing; missing packet numbers:",
			prog, c->missing);
		for (size_t i = 0; i < l->nr_gaps && i < 32; i++) {
			if (l->gaps[i].from == l->gaps[i].to)
				fprintf(stderr, " %u", l->gaps[i].from);
			else
				fprintf(stderr, " %u-%u", l->gaps[i].from, l->gaps[i].to);
		}
		fprintf(stderr, "%s\n", l->nr_gaps > 32 ? " ..." : "");
	}
	if (l->hwtrace_sender && !l->ended)
		fprintf(stderr, "%s: WARNING: no end-of-trace packet: packets lost after number %" PRIu64 " (if any) are not counted\n",
			prog, l->expect ? l->expect - 1 : 0);
}

/* Anything lost or dropped, duplicates aside (their records are in the file). */
static int lost_any(const struct listener *l)
{
	const struct hwt_net_counters *c = &l->c;

	return c->missing || c->malformed || c->foreign || c->over_cpus ||
	       c->over_memory || c->kernel_dropped || (l->hwtrace_sender && !l->ended);
}

/*
 * One datagram, whoever sent it: 1 if it was the sender's (kept or not),
 * 0 if a stranger's or malformed, or -ENOMEM or the writer's error.
 */
static int take(struct listener *l, const char *out, const uint8_t *pkt,
		ssize_t len, const struct sockaddr *from, int quiet)
{
	struct hwt_event ev[HWT_UDP_MAX_EVENTS];
	struct hwt_udp_header h;
	uint32_t cpu;
	int n, ret;

	l->c.received++;
	if (l->have_sender && !addr_matches(&l->sender, from)) {
		l->c.foreign++;
		warn_drop(l, "foreign", from, len, NULL, HWT_UDP_NO_CPU);
		return 0;
	}
	n = hwt_udp_decode(pkt, (size_t)len, &h, &cpu, ev);
	if (n < 0) {
		/* a CPU >= 65536 lands here too: never the writer's problem */
		l->c.malformed++;
		warn_drop(l, "malformed", from, len, &h, HWT_UDP_NO_CPU);
		return 0;
	}
	if (!l->have_sender && !l->any_sender) {
		char addr[64];

		l->sender.len = from->sa_family == AF_INET6 ? sizeof(l->sender.in6) :
			       sizeof(l->sender.in);
		memcpy(&l->sender.sa, from, l->sender.len);
		l->have_sender = 1;
		if (!quiet)
			errmsg("taking packets from %s only (--any-sender takes all)",
			       format_addr(from, addr, sizeof(addr)));
	}
	l->started = 1;
	if (cpu == HWT_UDP_END) {
		if (l->ended) {
			l->c.duplicate++;
			return 1;
		}
		ret = end_of_trace(l, h.packet_number);
		return ret < 0 ? ret : 1;
	}
	if ((size_t)len > HWT_UDP_HDR_SIZE + (size_t)n * HWT_EVENT_SIZE)
		l->hwtrace_sender = 1;
	if (cpu >= l->max_cpus) {
		l->c.over_cpus++;
		warn_drop(l, "over --max-cpus", from, len, &h, cpu);
		return 1;
	}
	if (!wanted(l, h.packet_number)) {
		l->c.duplicate++;
		return 1;
	}
	if (!l->w) {
		ret = open_writer(l, out, ev, n);
		if (ret < 0)
			return ret;
	}
	if (over_memory(l, h.packet_number, cpu)) {
		l->c.over_memory++;
		warn_drop(l, "over --max-memory", from, len, &h, cpu);
		return 1;
	}
	ret = account(l, h.packet_number);
	if (ret < 0)
		return ret;
	ret = hwt_writer_add(l->w, cpu, ev, (size_t)n);
	if (ret < 0)
		return ret;
	l->c.kept++;
	l->records += (uint64_t)n;
	return 1;
}

/* recvmsg() with the socket's drop count (SO_RXQ_OVFL) when it comes. */
static ssize_t receive(int fd, uint8_t *pkt, size_t size,
		       struct sockaddr_storage *from, uint64_t *kernel_dropped)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(uint32_t))];
	} ctl;
	struct iovec iov = { .iov_base = pkt, .iov_len = size };
	struct msghdr msg = {
		.msg_name = from, .msg_namelen = sizeof(*from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t len = recvmsg(fd, &msg, 0);

	if (len < 0)
		return len;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			uint32_t drops;

			memcpy(&drops, CMSG_DATA(c), sizeof(drops));
			*kernel_dropped = drops;	/* the socket's total so far */
		}
	}
	return len;
}

int cmd_listen(int argc, char **argv)
{
	enum { OPT_FROM = 256, OPT_ANY, OPT_MAX_CPUS, OPT_MAX_MEMORY };
	static const struct option opts[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "any-sender", no_argument, NULL, OPT_ANY },
		{ "max-cpus", required_argument, NULL, OPT_MAX_CPUS },
		{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct listener l = {
		.max_cpus = DEFAULT_MAX_CPUS,
		.max_memory = DEFAULT_MAX_MEMORY,
	};
	struct net_addr addr;
	const char *out = NULL, *url;
	double duration = 0, idle = 0, t0, last_rx = 0;
	int c, fd = -1, quiet = 0, ret, rc = EXIT_ERR, rcvbuf, one = 1;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	while ((c = getopt_long(argc, argv, "o:d:t:qh", opts, NULL)) != -1) {
		char *end;
		double v;

		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'd':
		case 't':
			v = strtod(optarg, &end);
			if (*end || !(v > 0) || !isfinite(v)) {
				errmsg("bad time '%s': seconds > 0", optarg);
				return EXIT_USAGE;
			}
			if (c == 'd')
				duration = v;
			else
				idle = v;
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_FROM:
			if (parse_host_port(optarg, &l.sender, 0)) {
				errmsg("bad --from '%s': ADDR[:PORT], an IPv6 ADDR in brackets",
				       optarg);
				return EXIT_USAGE;
			}
			l.have_sender = 1;
			break;
		case OPT_ANY:
			l.any_sender = 1;
			break;
		case OPT_MAX_CPUS:
			if (parse_u32(optarg, &l.max_cpus) || !l.max_cpus ||
			    l.max_cpus > HWT_UDP_MAX_CPUS) {
				errmsg("bad --max-cpus '%s': 1 to %d, what a .hwt file holds",
				       optarg, HWT_UDP_MAX_CPUS);
				return EXIT_USAGE;
			}
			break;
		case OPT_MAX_MEMORY:
			if (parse_size_arg("--max-memory", optarg, &l.max_memory, stderr))
				return EXIT_USAGE;
			if (l.max_memory < MIN_MAX_MEMORY) {
				errmsg("bad --max-memory '%s': at least 256k (a CPU's block is 64k)",
				       optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!out || optind + 1 != argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (l.have_sender && l.any_sender) {
		errmsg("--from and --any-sender contradict each other");
		return EXIT_USAGE;
	}
	url = argv[optind];
	if (parse_udp_url(url, &addr, HWT_UDP_DEFAULT_PORT)) {
		errmsg("bad address '%s': udp://ADDR[:PORT], an IPv6 ADDR in brackets",
		       url);
		return EXIT_USAGE;
	}
	fd = socket(addr.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, &addr.sa, addr.len)) {
		errmsg("%s: %s", url, strerror(errno));
		goto out;
	}
	rcvbuf = grow_rcvbuf(fd);
	/* best effort: without it kernel drops are just not counted */
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	install_stop_handlers();
	if (!quiet)
		fprintf(stderr, "%s: listening on %s (%d KiB socket buffer)\n", prog,
			url, rcvbuf >> 10);
	t0 = now();
	while (!stop_requested) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_storage from;
		uint8_t pkt[2048];
		ssize_t len;
		double t = now();

		if (duration > 0 && t - t0 >= duration)
			break;
		if (idle > 0 && l.started && t - last_rx >= idle)
			break;
		if (l.ended && (!l.nr_gaps || t - l.end_t >= END_GRACE))
			break;
		if (poll(&p, 1, 100) <= 0)
			continue;
		len = receive(fd, pkt, sizeof(pkt), &from, &l.c.kernel_dropped);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			errmsg("%s: %s", url, strerror(errno));
			goto out;
		}
		ret = take(&l, out, pkt, len, (struct sockaddr *)&from, quiet);
		if (ret == -ENOMEM)
			goto nomem;
		if (ret < 0) {
			errmsg("%s: %s", out, strerror(-ret));
			goto out;
		}
		/* the sender's packets, not a stranger's, keep the session alive */
		if (ret)
			last_rx = now();
		if (l.ended && !l.end_t)
			l.end_t = now();
	}
	if (!l.w) {
		ret = open_writer(&l, out, NULL, 0);	/* an empty trace, but a trace */
		if (ret < 0) {
			errmsg("%s: %s", out, strerror(-ret));
			goto out;
		}
	}
	l.c.missing = missing(&l);
	hwt_writer_set_net(l.w, &l.c);
	ret = hwt_writer_close(l.w);
	l.w = NULL;
	if (ret < 0) {
		errmsg("%s: %s", out, strerror(-ret));
		goto out;
	}
	report(&l, out);
	rc = lost_any(&l) ? EXIT_PARTIAL : EXIT_OK;
	goto out;
nomem:
	errmsg("out of memory");
out:
	if (l.w)
		hwt_writer_close(l.w);
	free(l.gaps);
	if (fd >= 0)
		close(fd);
	return rc;
}
