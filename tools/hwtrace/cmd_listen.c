// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace listen udp://ADDR:PORT -o FILE: receive S.Ha.R.K. UDP trace
 * packets (from hwtrace record -o udp://..., or a S.Ha.R.K. system) into a
 * .hwt file, and say which packet numbers never arrived.
 */
#include <arpa/inet.h>
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
"\n"
"Receive S.Ha.R.K. UDP trace packets on ADDR:PORT (port 20000 by default;\n"
"ADDR 0.0.0.0 for every interface) and write them to FILE until the sender's\n"
"end-of-trace packet, Ctrl-C, SECONDS elapse, or no packet came for IDLE\n"
"seconds after the first.  Packet numbers start at 0; the end-of-trace\n"
"packet (hwtrace record sends one) gives the count, so packets missing at\n"
"the head, in between and at the tail are all counted and listed at the end.\n"
"\n"
"Exit status: 0, 1 error, 2 usage, 3 packets were missing or malformed, or\n"
"an hwtrace sender's end-of-trace packet never came.\n";

/* After the end packet, how long late packets may still fill gaps. */
#define END_GRACE	0.5
/* Room for bursts while the writer is busy; root may exceed rmem_max. */
#define RCVBUF_BYTES	(16 << 20)
#define MAX_BAD_WARNINGS 10

struct gap {
	uint32_t from, to;		/* missing packet numbers, inclusive */
};

struct listener {
	struct hwt_writer *w;
	struct gap *gaps;
	size_t nr_gaps, cap_gaps;
	uint64_t expect;		/* next number in order: 64 bits, no wrap */
	int started;
	int hwtrace_sender;		/* a CPU trailer seen: an end packet will come */
	int ended;
	double end_t;
	uint64_t packets, records, bad, late, dup;
};

static int add_gap(struct listener *l, uint32_t from, uint32_t to)
{
	if (l->nr_gaps == l->cap_gaps) {
		size_t cap = l->cap_gaps ? 2 * l->cap_gaps : 16;
		struct gap *g = realloc(l->gaps, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		l->gaps = g;
		l->cap_gaps = cap;
	}
	l->gaps[l->nr_gaps].from = from;
	l->gaps[l->nr_gaps].to = to;
	l->nr_gaps++;
	return 0;
}

/* A late packet fills (part of) a gap: 1; not in any gap, a duplicate: 0. */
static int fill_gap(struct listener *l, uint32_t pn)
{
	for (size_t i = 0; i < l->nr_gaps; i++) {
		struct gap *g = &l->gaps[i];
		uint32_t to = g->to;

		if (pn < g->from || pn > g->to)
			continue;
		if (g->from == g->to) {
			l->gaps[i] = l->gaps[--l->nr_gaps];
		} else if (pn == g->from) {
			g->from++;
		} else if (pn == g->to) {
			g->to--;
		} else {
			g->to = pn - 1;
			if (add_gap(l, pn + 1, to))
				return -ENOMEM;
		}
		return 1;
	}
	return 0;
}

/*
 * Packet pn arrived: 1 to keep its records, 0 for a duplicate.  Numbers
 * start at 0, so a first packet numbered 5 means 0-4 were lost.
 */
static int account(struct listener *l, uint32_t pn)
{
	if (pn >= l->expect) {
		if (pn > l->expect && add_gap(l, (uint32_t)l->expect, pn - 1))
			return -ENOMEM;
		l->expect = (uint64_t)pn + 1;
		return 1;
	}
	switch (fill_gap(l, pn)) {
	case 1:
		l->late++;
		return 1;
	case 0:
		l->dup++;
		return 0;
	default:
		return -ENOMEM;
	}
}

/* The end packet's number is the count of data packets: the rest is lost. */
static int end_of_trace(struct listener *l, uint32_t count)
{
	if (l->ended) {
		l->dup++;
		return 0;
	}
	if (count > l->expect) {
		if (add_gap(l, (uint32_t)l->expect, count - 1))
			return -ENOMEM;
		l->expect = count;
	}
	l->ended = 1;
	return 0;
}

static int cmp_gap(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static uint64_t missing(const struct listener *l)
{
	uint64_t n = 0;

	for (size_t i = 0; i < l->nr_gaps; i++)
		n += (uint64_t)l->gaps[i].to - l->gaps[i].from + 1;
	return n;
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

static void warn_bad(struct listener *l, const struct sockaddr_in *from,
		     ssize_t len, const struct hwt_udp_header *h)
{
	char addr[INET_ADDRSTRLEN] = "?";

	l->bad++;
	if (l->bad > MAX_BAD_WARNINGS)
		return;
	inet_ntop(AF_INET, &from->sin_addr, addr, sizeof(addr));
	/* hdr is filled once the packet is 24 bytes long */
	if (len >= HWT_UDP_HDR_SIZE)
		errmsg("WARNING: malformed packet from %s:%u (%zd bytes, number %u, %u events, total_size %u)%s",
		       addr, ntohs(from->sin_port), len, h->packet_number,
		       h->number_of_events, h->total_size,
		       l->bad == MAX_BAD_WARNINGS ? "; no more such warnings" : "");
	else
		errmsg("WARNING: malformed packet from %s:%u (%zd bytes)%s", addr,
		       ntohs(from->sin_port), len,
		       l->bad == MAX_BAD_WARNINGS ? "; no more such warnings" : "");
}

static void report(struct listener *l, const char *out)
{
	uint64_t miss = missing(l);

	fprintf(stderr, "%s: %" PRIu64 " packets, %" PRIu64 " records to %s; %" PRIu64
		" missing, %" PRIu64 " malformed, %" PRIu64 " late, %" PRIu64
		" duplicate\n", prog, l->packets, l->records, out, miss, l->bad,
		l->late, l->dup);
	if (miss) {
		qsort(l->gaps, l->nr_gaps, sizeof(*l->gaps), cmp_gap);
		fprintf(stderr, "%s: WARNING: %" PRIu64 " packets missing; missing packet numbers:",
			prog, miss);
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

int cmd_listen(int argc, char **argv)
{
	struct listener l = { 0 };
	struct sockaddr_in addr;
	const char *out = NULL, *url;
	double duration = 0, idle = 0, t0, last_rx = 0;
	int c, fd = -1, quiet = 0, ret, rc = EXIT_ERR, rcvbuf;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	while ((c = getopt(argc, argv, "o:d:t:qh")) != -1) {
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
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!out || optind + 1 != argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	url = argv[optind];
	if (parse_udp_url(url, &addr, HWT_UDP_DEFAULT_PORT)) {
		errmsg("bad address '%s': udp://ADDR[:PORT]", url);
		return EXIT_USAGE;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		errmsg("%s: %s", url, strerror(errno));
		goto out;
	}
	rcvbuf = grow_rcvbuf(fd);
	install_stop_handlers();
	if (!quiet)
		fprintf(stderr, "%s: listening on %s (%d KiB socket buffer)\n", prog,
			url, rcvbuf >> 10);
	t0 = now();
	while (!stop_requested) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct hwt_event ev[HWT_UDP_MAX_EVENTS];
		struct hwt_udp_header h;
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		uint8_t pkt[2048];
		uint32_t cpu;
		ssize_t len;
		int n;
		double t = now();

		if (duration > 0 && t - t0 >= duration)
			break;
		if (idle > 0 && l.started && t - last_rx >= idle)
			break;
		if (l.ended && (!l.nr_gaps || t - l.end_t >= END_GRACE))
			break;
		if (poll(&p, 1, 100) <= 0)
			continue;
		len = recvfrom(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&from, &flen);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			errmsg("%s: %s", url, strerror(errno));
			goto out;
		}
		last_rx = now();
		l.started = 1;
		n = hwt_udp_decode(pkt, (size_t)len, &h, &cpu, ev);
		if (n < 0) {
			/* a CPU out of range lands here too: never the writer's problem */
			warn_bad(&l, &from, len, &h);
			continue;
		}
		if (cpu == HWT_UDP_END) {
			if (end_of_trace(&l, h.packet_number))
				goto nomem;
			l.end_t = last_rx;
			continue;
		}
		if ((size_t)len > HWT_UDP_HDR_SIZE + (size_t)n * HWT_EVENT_SIZE)
			l.hwtrace_sender = 1;
		ret = account(&l, h.packet_number);
		if (ret < 0)
			goto nomem;
		if (!ret)
			continue;	/* a duplicate */
		if (!l.w) {
			ret = open_writer(&l, out, ev, n);
			if (ret < 0) {
				errmsg("%s: %s", out, strerror(-ret));
				goto out;
			}
		}
		ret = hwt_writer_add(l.w, cpu, ev, (size_t)n);
		if (ret < 0) {
			errmsg("%s: %s", out, strerror(-ret));
			goto out;
		}
		l.packets++;
		l.records += (uint64_t)n;
	}
	if (!l.w) {
		ret = open_writer(&l, out, NULL, 0);	/* an empty trace, but a trace */
		if (ret < 0) {
			errmsg("%s: %s", out, strerror(-ret));
			goto out;
		}
	}
	ret = hwt_writer_close(l.w);
	l.w = NULL;
	if (ret < 0) {
		errmsg("%s: %s", out, strerror(-ret));
		goto out;
	}
	report(&l, out);
	rc = missing(&l) || l.bad || (l.hwtrace_sender && !l.ended) ?
	     EXIT_PARTIAL : EXIT_OK;
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
