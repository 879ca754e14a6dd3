// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace record's drain: what the rings hold goes to the .hwt file or out
 * as S.Ha.R.K. UDP packets, with the names and the loss counters.
 *
 *   rec_drain()       while tracing: poll, drain, names, the child, the
 *                     duration, a flush and a status line every so often
 *   rec_drain_rest()  tracing off: the rest, then the output closed
 *
 * With a backend that drains CPU by CPU (poll_cpu), each CPU's rings have
 * a drain thread of their own, and the main thread keeps the rest: names,
 * the child, flushes, the status line.  r->lock serialises the output.
 *
 * The backend is reached only through r->be (record.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwtrace.h"
#include "record.h"

/*
 * UDP has no flow control: a burst (a STOP ring drained at the end) would
 * overflow the receiver's socket buffer.  A pause every UDP_BURST packets
 * caps the rate at about 100k packets (6M records) a second.
 */
#define UDP_BURST	16
#define UDP_PAUSE_NS	100000

double rec_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rec_alloc(struct rec *r)
{
	pthread_mutex_init(&r->lock, NULL);
	r->cpu_records = calloc(r->ver.nr_cpus, sizeof(*r->cpu_records));
	r->lost = calloc(r->ver.nr_cpus, sizeof(*r->lost));
	r->ow = calloc(r->ver.nr_cpus, sizeof(*r->ow));
	return r->cpu_records && r->lost && r->ow ? 0 : -ENOMEM;
}

void rec_free(struct rec *r)
{
	free(r->cpu_records);
	free(r->lost);
	free(r->ow);
	r->cpu_records = r->lost = r->ow = NULL;
	pthread_mutex_destroy(&r->lock);
}

int rec_parse_rt_prio(const char *s, int *prio)
{
	int lo = sched_get_priority_min(SCHED_FIFO), hi = sched_get_priority_max(SCHED_FIFO);
	uint32_t v;

	if (parse_u32(s, &v) || v < (uint32_t)lo || v > (uint32_t)hi) {
		errmsg("bad real-time priority '%s': %d..%d (SCHED_FIFO)", s, lo, hi);
		return -1;
	}
	*prio = (int)v;
	return 0;
}

int rec_set_rt_prio(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (!sched_setscheduler(0, SCHED_FIFO, &sp))
		return 0;
	if (errno == EPERM)
		errmsg("real-time priority %d refused (EPERM): SCHED_FIFO needs root, CAP_SYS_NICE\n"
		       "  or an RLIMIT_RTPRIO of at least %d (ulimit -r); or record without -r",
		       prio, prio);
	else
		errmsg("real-time priority %d: %s", prio, strerror(errno));
	return -errno;
}

int rec_parse_nice(const char *s, int *nice)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < -20 || v > 19) {
		errmsg("bad nice value '%s': -20..19", s);
		return -1;
	}
	*nice = (int)v;
	return 0;
}

/*
 * The drain's work is set by the event rate, not by its priority: a lower
 * nice value does not let it take more CPU, only take it sooner, before a
 * ring overflows while CFS shares the CPUs among a crowd of busy tasks.
 */
int rec_set_nice(int nice)
{
	int given = nice != REC_NICE_NONE, cur, err;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (!given) {
		if (errno || cur != 0)
			return 0;
		nice = REC_NICE_DEFAULT;
	}
	/* on Linux, the calling thread's nice value: set before any thread starts */
	if (!setpriority(PRIO_PROCESS, 0, nice) || !given)
		return 0;
	err = errno;
	if (err == EACCES || err == EPERM)
		errmsg("nice value %d refused (%s): a nice value below the current one needs\n"
		       "  root, CAP_SYS_NICE or an RLIMIT_NICE of at least %d (ulimit -e); or record without -n",
		       nice, err == EACCES ? "EACCES" : "EPERM", 20 - nice);
	else
		errmsg("nice value %d: %s", nice, strerror(err));
	return -err;
}

static int udp_send(struct rec *r, const void *pkt, size_t len)
{
	if (send(r->udp, pkt, len, 0) < 0) {
		/* an ICMP "port unreachable" for an earlier packet */
		if (errno != ECONNREFUSED)
			return -errno;
		r->udp_refused++;
	}
	return 0;
}

static int send_packets(struct rec *r, uint32_t cpu, const struct hwt_event *ev,
			size_t n)
{
	const size_t per = (HWT_UDP_MAX_PACKET - HWT_UDP_HDR_SIZE -
			    HWT_UDP_TRAILER_SIZE) / HWT_EVENT_SIZE;
	uint8_t pkt[HWT_UDP_MAX_PACKET];

	while (n) {
		size_t k = n < per ? n : per;
		int len = hwt_udp_encode(pkt, sizeof(pkt), r->packet_no, cpu, ev, k);

		if (len < 0)
			return len;
		len = udp_send(r, pkt, (size_t)len);
		if (len < 0)
			return len;
		if (++r->packet_no % UDP_BURST == 0) {
			struct timespec ts = { .tv_nsec = UDP_PAUSE_NS };

			nanosleep(&ts, NULL);
		}
		ev += k;
		n -= k;
	}
	return 0;
}

/* Numbered after the last data packet: the receiver can count tail losses. */
static void send_end(struct rec *r)
{
	uint8_t pkt[HWT_UDP_END_SIZE];
	int len = hwt_udp_encode(pkt, sizeof(pkt), r->packet_no, HWT_UDP_END,
				 NULL, 0);

	if (len > 0)
		len = udp_send(r, pkt, (size_t)len);
	if (len < 0)
		errmsg("sending the end-of-trace packet: %s", strerror(-len));
}

/* Where every drained run of records goes, from any drain thread. */
static int sink(void *ctx, uint32_t cpu, const struct hwt_event *ev, size_t n)
{
	struct rec *r = ctx;
	int err;

	if (cpu >= r->ver.nr_cpus)
		return -EPROTO;
	pthread_mutex_lock(&r->lock);
	err = r->udp >= 0 ? send_packets(r, cpu, ev, n) :
			    hwt_writer_add(r->w, cpu, ev, n);
	if (!err) {
		r->cpu_records[cpu] += n;
		r->total += n;
	}
	pthread_mutex_unlock(&r->lock);
	return err;
}

/* Name records go into the file as they come. */
static void pump_names(struct rec *r)
{
	struct hwt_name names[64];
	int n = 0;

	while (r->names_ok && (n = r->be->read_names(r, names, 64)) > 0) {
		pthread_mutex_lock(&r->lock);
		for (int i = 0; r->w && i < n; i++) {
			names[i].name[HWT_NAME_LEN - 1] = '\0';
			if (names[i].kind == HWT_NAME_TASK)
				hwt_writer_add_task(r->w, names[i].id, names[i].tgid,
						    names[i].name);
			else if (names[i].kind == HWT_NAME_IRQ)
				hwt_writer_add_irq(r->w, names[i].id, names[i].name);
		}
		pthread_mutex_unlock(&r->lock);
	}
	if (r->names_ok && n < 0) {
		if (n != -EOPNOTSUPP)
			errmsg("reading task names: %s (trace will lack names)",
			       strerror(-n));
		r->names_ok = 0;
	}
}

/* r->lost, r->ow and r->fill from the backend; into the file at its next flush. */
static void counters(struct rec *r)
{
	memset(r->lost, 0, r->ver.nr_cpus * sizeof(*r->lost));
	memset(r->ow, 0, r->ver.nr_cpus * sizeof(*r->ow));
	r->fill = 0;
	r->be->counters(r, r->lost, r->ow, &r->fill);
	if (!r->w)
		return;
	pthread_mutex_lock(&r->lock);
	for (uint32_t cpu = 0; cpu < r->ver.nr_cpus; cpu++)
		hwt_writer_set_lost(r->w, cpu, r->lost[cpu], r->ow[cpu]);
	hwt_writer_set_lost_nocpu(r->w, r->missed);
	pthread_mutex_unlock(&r->lock);
}

static uint64_t sum(const uint64_t *v, uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void status_line(struct rec *r, uint64_t *last_total, double *last_t)
{
	double t = rec_now(), rate;
	uint64_t total, written;
	char bytes[32];

	pthread_mutex_lock(&r->lock);
	total = r->total;
	written = r->w ? hwt_writer_bytes(r->w) : total * HWT_EVENT_SIZE;
	pthread_mutex_unlock(&r->lock);
	rate = t > *last_t ? (double)(total - *last_total) / (t - *last_t) : 0;
	format_bytes(written, bytes, sizeof(bytes));
	fprintf(stderr, "\r%s: %7.1f s %12" PRIu64 " events %10.0f ev/s %11s  lost %-8" PRIu64
		" fill %3" PRIu64 "%% ", prog, t - r->t0, total, rate, bytes,
		sum(r->lost, r->ver.nr_cpus), r->fill);
	*last_total = total;
	*last_t = t;
}

/* Stream mode: one wait and one drain of every ring; 0 or -errno. */
static int drain_once(struct rec *r)
{
	int64_t n = r->be->poll(r, 100, sink);

	if (n < 0 && n != -EINTR) {
		errmsg("draining: %s", strerror((int)-n));
		return (int)n;
	}
	return 0;
}

struct drainer {
	struct rec *r;
	uint32_t cpu;
};

/* One CPU's drain thread: its rings, until told to stop or an error. */
static void *drainer(void *arg)
{
	struct drainer *d = arg;
	struct rec *r = d->r;

	while (!__atomic_load_n(&r->drainers_stop, __ATOMIC_RELAXED)) {
		int64_t n = r->be->poll_cpu(r, d->cpu, 100, sink);

		if (n < 0 && n != -EINTR) {
			int none = 0;

			__atomic_compare_exchange_n(&r->drainers_err, &none, (int)n, 0,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			break;
		}
	}
	free(d);
	return NULL;
}

/*
 * A drain thread per CPU, with every signal blocked (they are the main
 * thread's) and its scheduling policy (-r), for each CPU that has rings.
 * A first pass without waiting tells whether the backend can wait per CPU
 * (-ENOTTY: an older module, which the main thread then drains alone; no
 * thread started yet).  0 or -errno.
 */
static int drainers_start(struct rec *r)
{
	sigset_t all, old;
	int ret = 0;

	r->drainers_stop = 0;
	r->drainers_err = 0;
	r->drainers = calloc(r->ver.nr_cpus, sizeof(*r->drainers));
	if (!r->drainers)
		return -ENOMEM;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (uint32_t cpu = 0; cpu < r->ver.nr_cpus && !ret; cpu++) {
		int64_t n = r->be->poll_cpu(r, cpu, 0, sink);
		struct drainer *d;

		if (n == -ENOENT)	/* no ring: a hole in the CPU numbers */
			continue;
		if (n < 0) {
			ret = (int)n;
			break;
		}
		d = malloc(sizeof(*d));
		if (!d) {
			ret = -ENOMEM;
			break;
		}
		*d = (struct drainer){ r, cpu };
		ret = -pthread_create(&r->drainers[r->nr_drainers], NULL, drainer, d);
		if (ret)
			free(d);
		else
			r->nr_drainers++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* Each drain thread ends within its poll's timeout. */
static void drainers_stop(struct rec *r)
{
	__atomic_store_n(&r->drainers_stop, 1, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < r->nr_drainers; i++)
		pthread_join(r->drainers[i], NULL);
	free(r->drainers);
	r->drainers = NULL;
	r->nr_drainers = 0;
}

/* The first error of a drain thread, said; 0 if none. */
static int drainers_error(struct rec *r)
{
	int err = __atomic_load_n(&r->drainers_err, __ATOMIC_RELAXED);

	if (err)
		errmsg("draining: %s", strerror(-err));
	return err;
}

void rec_drain(struct rec *r)
{
	double last_status, last_flush, t;
	uint64_t last_total = 0;
	int ret;

	r->t0 = last_status = last_flush = rec_now();
	if (r->mode == MODE_STREAM && r->be->poll_cpu) {
		r->err = drainers_start(r);
		if (r->err == -ENOTTY)
			r->err = 0;
		else if (r->err)
			errmsg("drain threads: %s", strerror(-r->err));
	}
	while (!stop_requested && !r->err) {
		if (r->mode == MODE_STREAM && !r->nr_drainers) {
			r->err = drain_once(r);
			if (r->err)
				break;
		} else {
			/* the rings are the drain threads' or stay till the end */
			struct timespec ts = { .tv_nsec = 100 * 1000000 };

			r->err = drainers_error(r);
			if (r->err)
				break;
			nanosleep(&ts, NULL);
		}
		pump_names(r);
		if (r->child > 0 && waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child = -1;
			break;
		}
		t = rec_now();
		if (r->duration > 0 && t - r->t0 >= r->duration)
			break;
		if (t - last_flush >= 1.0) {
			counters(r);
			/* a crash now loses at most the last second */
			pthread_mutex_lock(&r->lock);
			ret = r->w ? hwt_writer_flush(r->w) : 0;
			pthread_mutex_unlock(&r->lock);
			if (ret < 0) {
				r->err = ret;
				errmsg("%s: %s", r->out, strerror(-ret));
				break;
			}
			last_flush = t;
		}
		if (!r->quiet && t - last_status >= 0.5)
			status_line(r, &last_total, &last_status);
	}
	drainers_stop(r);
	if (!r->quiet)
		fputc('\n', stderr);
}

void rec_drain_rest(struct rec *r)
{
	int ret;

	/* stop writers, then everything they left: STOP/JTN drained, CYC saved */
	ret = r->be->disable(r);
	if (ret < 0)
		dev_error("disable", ret);
	r->enabled = 0;
	if (!r->err) {
		int64_t n = r->be->consume(r, sink);

		if (n < 0) {
			r->err = (int)n;
			errmsg("draining: %s", strerror((int)-n));
		}
	}
	pump_names(r);
	if (r->udp >= 0)
		send_end(r);
	counters(r);
	if (r->w) {
		hwt_writer_set_names_lost(r->w, r->be->names_lost(r));
		ret = hwt_writer_close(r->w);
		r->w = NULL;
		if (ret < 0 && !r->err) {
			r->err = ret;
			errmsg("%s: %s", r->out, strerror(-ret));
		}
	}
}

void rec_summary(const struct rec *r)
{
	double secs = rec_now() - r->t0;
	uint64_t tl = sum(r->lost, r->ver.nr_cpus), to = sum(r->ow, r->ver.nr_cpus);

	fprintf(stderr, "%s: %" PRIu64 " events in %.1f s to %s\n", prog, r->total,
		secs, r->out);
	fprintf(stderr, "  %-5s %12s %12s %12s\n", "cpu", "events", "lost", "overwritten");
	for (uint32_t c = 0; c < r->ver.nr_cpus; c++)
		fprintf(stderr, "  %-5u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", c,
			r->cpu_records[c], r->lost[c], r->ow[c]);
	if (tl)
		fprintf(stderr, "%s: WARNING: %" PRIu64 " events LOST (rings full%s): use a larger -b%s\n",
			prog, tl, r->mode == MODE_STREAM ? ", drain too slow" : "",
			r->mode == MODE_STREAM ? ", or -r PRIO on a busy machine" : ", or -m stream");
	if (to)
		fprintf(stderr, "%s: %" PRIu64 " older records overwritten (cyclic mode keeps the last %s)\n",
			prog, to, "BUFSIZE");
	if (r->missed)
		fprintf(stderr, "%s: WARNING: %" PRIu64 " events LOST, CPU unknown: %s\n",
			prog, r->missed, r->bpf ?
			"the kernel did not run a BPF program nested in itself" :
			"set_priority calls the kretprobes missed (maxactive)");
	if (r->udp >= 0)
		fprintf(stderr, "%s: %" PRIu32 " UDP packets sent, then the end-of-trace packet\n",
			prog, r->packet_no);
	if (r->udp_refused)
		fprintf(stderr, "%s: WARNING: %" PRIu64 " UDP packets refused by the receiver\n",
			prog, r->udp_refused);
}
