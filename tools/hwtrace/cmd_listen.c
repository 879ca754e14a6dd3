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
"ADDR 0.0.0.0 for every interface) and write them to FILE until Ctrl-C,\n"
"SECONDS elapse, or no packet came for IDLE seconds after the first.\n"
"Missing packet numbers are reported at the end.\n"
"\n"
"Exit status: 0, 1 error, 2 usage, 3 packets were missing or malformed.\n";

struct gap {
	uint32_t from, to;		/* missing packet numbers, inclusive */
};

struct listener {
	struct hwt_writer *w;
	struct gap *gaps;
	size_t nr_gaps, cap_gaps;
	uint32_t expect;
	int started;
	uint64_t packets, records, bad, late;
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

/* A late packet fills (part of) a gap; anything else is a duplicate. */
static int fill_gap(struct listener *l, uint32_t pn)
{
	for (size_t i = 0; i < l->nr_gaps; i++) {
		struct gap *g = &l->gaps[i];

		if (pn < g->from || pn > g->to)
			continue;
		if (g->from == g->to) {
			l->gaps[i] = l->gaps[--l->nr_gaps];
		} else if (pn == g->from) {
			g->from++;
		} else if (pn == g->to) {
			g->to--;
		} else {
			uint32_t to = g->to;

			g->to = pn - 1;
			return add_gap(l, pn + 1, to);
		}
		return 1;
	}
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

int cmd_listen(int argc, char **argv)
{
	struct listener l = { 0 };
	struct sockaddr_in addr;
	const char *out = NULL, *url;
	double duration = 0, idle = 0, t0, last_rx = 0;
	int c, fd = -1, quiet = 0, ret, rc = EXIT_ERR;
	uint64_t miss;

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
	install_stop_handlers();
	if (!quiet)
		fprintf(stderr, "%s: listening on %s\n", prog, url);
	t0 = now();
	while (!stop_requested) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct hwt_event ev[HWT_UDP_MAX_EVENTS];
		struct hwt_udp_header h;
		uint8_t pkt[2048];
		uint32_t cpu;
		ssize_t len;
		int n;
		double t = now();

		if (duration > 0 && t - t0 >= duration)
			break;
		if (idle > 0 && l.started && t - last_rx >= idle)
			break;
		if (poll(&p, 1, 100) <= 0)
			continue;
		len = recv(fd, pkt, sizeof(pkt), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			errmsg("%s: %s", url, strerror(errno));
			goto out;
		}
		last_rx = now();
		n = hwt_udp_decode(pkt, (size_t)len, &h, &cpu, ev);
		if (n < 0) {
			l.bad++;
			continue;
		}
		if (!l.w) {
			ret = open_writer(&l, out, ev, n);
			if (ret < 0) {
				errmsg("%s: %s", out, strerror(-ret));
				goto out;
			}
		}
		if (!l.started) {
			l.started = 1;
			l.expect = h.packet_number;
		}
		if (h.packet_number > l.expect) {
			if (add_gap(&l, l.expect, h.packet_number - 1)) {
				errmsg("out of memory");
				goto out;
			}
		} else if (h.packet_number < l.expect) {
			l.late++;
			if (!fill_gap(&l, h.packet_number))
				continue;	/* a duplicate */
		}
		if (h.packet_number >= l.expect)
			l.expect = h.packet_number + 1;
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
	miss = missing(&l);
	fprintf(stderr, "%s: %" PRIu64 " packets, %" PRIu64 " records to %s; %" PRIu64
		" missing, %" PRIu64 " malformed, %" PRIu64 " late\n", prog, l.packets,
		l.records, out, miss, l.bad, l.late);
	if (miss) {
		qsort(l.gaps, l.nr_gaps, sizeof(*l.gaps), cmp_gap);
		fprintf(stderr, "%s: WARNING: missing packet numbers:", prog);
		for (size_t i = 0; i < l.nr_gaps && i < 32; i++) {
			if (l.gaps[i].from == l.gaps[i].to)
				fprintf(stderr, " %u", l.gaps[i].from);
			else
				fprintf(stderr, " %u-%u", l.gaps[i].from, l.gaps[i].to);
		}
		fprintf(stderr, "%s\n", l.nr_gaps > 32 ? " ..." : "");
	}
	rc = miss || l.bad ? EXIT_PARTIAL : EXIT_OK;
out:
	if (l.w)
		hwt_writer_close(l.w);
	free(l.gaps);
	if (fd >= 0)
		close(fd);
	return rc;
}
