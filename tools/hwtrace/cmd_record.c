// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace record: create a chunk, let only the chosen families log, enable,
 * drain every CPU ring to a .hwt file (or S.Ha.R.K. UDP packets) until
 * Ctrl-C, the duration or the command's exit; then put the device back as
 * it was (chunks deleted, filters restored) and say what was lost.
 *
 *   stream   one STOP chunk, drained live: nothing is lost unless the drain
 *            falls behind a full ring
 *   stop     one STOP chunk read at the end: the first BUFSIZE of events
 *   cyclic   one CYC chunk read at the end: the last BUFSIZE of events
 *   chain    two chunks, JTN -> STOP, read at the end: 2 x BUFSIZE
 *
 * Backends: the module (/dev/hwtrace), or libhwt's BPF programs (no module:
 * the same records in per-CPU rings of BPF maps; stream, stop and cyclic).
 * auto takes the module when it is loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwtrace.h"
#ifdef HAVE_BPF
#include <hwt/bpf.h>
#endif

static const char usage[] =
"usage: hwtrace record [-f FAMILIES] [-o FILE|udp://HOST[:PORT]] [-b BUFSIZE]\n"
"                      [-m stream|cyclic|stop|chain] [-d SECONDS] [-z] [-q]\n"
"                      [-w MS] [--backend=module|bpf|auto] [-v] [--persist]\n"
"                      [-- COMMAND ARGS...]\n"
"\n"
"Record events of every CPU until Ctrl-C (SIGINT/SIGTERM), SECONDS elapse, or\n"
"COMMAND exits (tracing starts just before COMMAND runs).\n"
"\n"
"  -f FAMILIES  comma-separated: general ipoint task irq cpu prio mutex signal\n"
"               server user data timer, or all (default all)\n"
"  -o OUT       .hwt file (default trace.hwt), or udp://HOST[:PORT] to send\n"
"               S.Ha.R.K. UDP packets (port 20000 by default), paced, then\n"
"               an end-of-trace packet (see hwtrace listen)\n"
"  -b BUFSIZE   ring size per CPU, k/M/G suffixes (default 1M)\n"
"  -m MODE      stream: drained live (default); stop: keep the first BUFSIZE;\n"
"               cyclic: keep the last BUFSIZE (flight recorder); chain: two\n"
"               chunks, the second taking over when the first is full\n"
"  -d SECONDS   stop after SECONDS\n"
"  -z           compress record blocks with zstd (S.Ha.R.K.'s COMPR)\n"
"  -q           no live status line\n"
"  -w MS        longest sleep between drains; a ring a quarter full wakes\n"
"               the recorder earlier (default 10)\n"
"  --backend=B  module: /dev/hwtrace (hwtrace.ko); bpf: BPF programs, no module\n"
"               needed (kernel BTF, CAP_BPF and CAP_PERFMON; modes stream, stop,\n"
"               cyclic); auto (default): the module if loaded, else bpf\n"
"  -v           --verbose: libbpf's messages, the verifier's log included\n"
"  --persist    -m cyclic into the persistent area (hwtrace.ko persist=): its\n"
"               last records survive a panic and a warm reboot (hwtrace recover)\n"
"\n"
"A final per-CPU summary, with lost event counts, goes to stderr.\n"
"Exit status: 0, 1 error, 2 usage.\n";

enum mode { MODE_STREAM, MODE_STOP, MODE_CYCLIC, MODE_CHAIN };
enum backend { BACKEND_AUTO, BACKEND_MODULE, BACKEND_BPF };

#define EMERGENCY_SIZE	4096	/* room for control records when full */
#define MIN_BUFSIZE	4096

struct rec {
	struct hwt_dev *dev;
	struct hwt_bpf *bpf;		/* the BPF backend instead of dev */
	struct hwt_version ver;
	enum mode mode;
	int chunk[2];
	int nr_chunks;
	int persist;			/* chunk[0] is the persistent area's */
	int enabled;
	int old_filter;
	struct hwt_consumer *cons;
	struct hwt_writer *w;
	int udp;
	struct sockaddr_in addr;
	uint32_t packet_no;
	uint64_t udp_refused;
	uint64_t *cpu_records;
	uint64_t total;
	uint64_t missed;		/* bpf: events the kernel ran no program for */
	uint64_t missed_base;		/* ... before the trace began */
	int names_ok;
	int err;
};

/*
 * UDP has no flow control: a burst (a STOP ring drained at the end) would
 * overflow the receiver's socket buffer.  A pause every UDP_BURST packets
 * caps the rate at about 100k packets (6M records) a second.
 */
#define UDP_BURST	16
#define UDP_PAUSE_NS	100000

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

static int sink(void *ctx, uint32_t cpu, const struct hwt_event *ev, size_t n)
{
	struct rec *r = ctx;
	int err;

	if (cpu >= r->ver.nr_cpus)
		return -EPROTO;
	err = r->udp >= 0 ? send_packets(r, cpu, ev, n) :
			    hwt_writer_add(r->w, cpu, ev, n);
	if (err)
		return err;
	r->cpu_records[cpu] += n;
	r->total += n;
	return 0;
}

/* Name records from the module go into the file as they come. */
static int read_names(struct rec *r, struct hwt_name *names, size_t n)
{
#ifdef HAVE_BPF
	if (r->bpf)
		return hwt_bpf_read_names(r->bpf, names, n);
#endif
	return hwt_dev_read_names(r->dev, names, n);
}

static void pump_names(struct rec *r)
{
	struct hwt_name names[64];
	int n;

	while (r->names_ok && (n = read_names(r, names, 64)) > 0) {
		for (int i = 0; r->w && i < n; i++) {
			names[i].name[HWT_NAME_LEN - 1] = '\0';
			if (names[i].kind == HWT_NAME_TASK)
				hwt_writer_add_task(r->w, names[i].id, names[i].tgid,
						    names[i].name);
			else if (names[i].kind == HWT_NAME_IRQ)
				hwt_writer_add_irq(r->w, names[i].id, names[i].name);
		}
	}
	if (r->names_ok && n < 0) {
		if (n != -EOPNOTSUPP)
			errmsg("reading task names: %s (trace will lack names)",
			       strerror(-n));
		r->names_ok = 0;
	}
}

/* Lost and overwritten per CPU, summed over the chunks. */
static void counters(struct rec *r, uint64_t *lost, uint64_t *ow, uint64_t *fill_pct)
{
	memset(lost, 0, r->ver.nr_cpus * sizeof(*lost));
	memset(ow, 0, r->ver.nr_cpus * sizeof(*ow));
	*fill_pct = 0;
#ifdef HAVE_BPF
	if (r->bpf) {
		r->missed = hwt_bpf_missed(r->bpf) - r->missed_base;
		for (uint32_t cpu = 0; cpu < r->ver.nr_cpus; cpu++) {
			uint64_t pct = hwt_bpf_fill(r->bpf, cpu) * 100 / hwt_bpf_slots(r->bpf);

			hwt_bpf_counters(r->bpf, cpu, &lost[cpu], &ow[cpu]);
			if (pct > *fill_pct)
				*fill_pct = pct;
		}
		return;
	}
#endif
	for (size_t i = 0; i < hwt_consumer_nr_rings(r->cons); i++) {
		struct hwt_ring *ring = hwt_consumer_ring(r->cons, i);
		const struct hwt_ring_meta *m = hwt_ring_meta(ring);
		uint32_t cpu = hwt_ring_cpu(ring);
		uint64_t pct;

		if (cpu >= r->ver.nr_cpus)
			continue;
		lost[cpu] += __atomic_load_n(&m->lost, __ATOMIC_RELAXED);
		ow[cpu] += __atomic_load_n(&m->overwritten, __ATOMIC_RELAXED);
		pct = hwt_ring_fill(ring) * 100 / hwt_ring_slots(ring);
		if (pct > *fill_pct)
			*fill_pct = pct;
	}
}

/* The loss counters into the file: written at its next flush. */
static void save_counters(struct rec *r, const uint64_t *lost, const uint64_t *ow)
{
	for (uint32_t cpu = 0; cpu < r->ver.nr_cpus; cpu++)
		hwt_writer_set_lost(r->w, cpu, lost[cpu], ow[cpu]);
	hwt_writer_set_lost_nocpu(r->w, r->missed);
}

static uint64_t sum(const uint64_t *v, uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pid_t spawn(char **argv, int *gate)
{
	int p[2];
	pid_t pid;
	char go;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		/* wait until tracing is on; EOF without a byte means give up */
		close(p[1]);
		if (read(p[0], &go, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*gate = p[1];
	return pid;
}

static int setup_chunks(struct rec *r, uint64_t bufsize)
{
	static const uint32_t mode_flags[] = {
		[MODE_STREAM] = HWT_CHUNK_STOP,
		[MODE_STOP] = HWT_CHUNK_STOP,
		[MODE_CYCLIC] = HWT_CHUNK_CYC,
		[MODE_CHAIN] = HWT_CHUNK_JTN,
	};
	int ret;

	r->nr_chunks = r->mode == MODE_CHAIN ? 2 : 1;
	if (r->persist) {
		struct hwt_persist_info pi;

		ret = hwt_dev_persist_info(r->dev, &pi);
		if (ret < 0) {
			dev_error("persistent area", ret);
			return ret;
		}
		if (pi.state != HWT_PERSIST_RECORDING) {
			errmsg("%s", pi.state == HWT_PERSIST_OFF ?
			       "no persistent area: load hwtrace with persist= (see hwtrace(1))" :
			       "the persistent area holds a previous boot's trace: save it with 'hwtrace recover -o FILE --release' first");
			return -EBUSY;
		}
		r->chunk[0] = pi.chunk;
	}
	for (int i = r->persist; i < r->nr_chunks; i++) {
		uint32_t flags = i ? HWT_CHUNK_STOP : mode_flags[r->mode];

		ret = hwt_dev_chunk_create(r->dev, bufsize, EMERGENCY_SIZE, flags);
		if (ret < 0) {
			dev_error("chunk create", ret);
			return ret;
		}
		r->chunk[i] = ret;
	}
	if (r->mode == MODE_CHAIN) {
		ret = hwt_dev_chunk_link(r->dev, r->chunk[0], r->chunk[1]);
		if (ret < 0) {
			dev_error("chunk link", ret);
			return ret;
		}
	}
	ret = hwt_dev_chunk_select(r->dev, r->chunk[0]);
	if (ret < 0) {
		dev_error("chunk select", ret);
		return ret;
	}
	for (int i = 0; i < r->nr_chunks; i++) {
		ret = hwt_consumer_add_chunk(r->cons, r->chunk[i]);
		if (ret < 0) {
			dev_error("mapping the rings", ret);
			return ret;
		}
	}
	return 0;
}

/* Give the device back as we found it, whatever state we got to. */
static void teardown(struct rec *r)
{
	if (r->enabled)
		hwt_dev_disable(r->dev);
	hwt_consumer_free(r->cons);	/* unmap: a mapped chunk cannot go */
	r->cons = NULL;
	if (r->chunk[0] >= 0) {
		hwt_dev_chunk_select(r->dev, HWT_NO_CHUNK);
		if (r->chunk[1] >= 0)
			hwt_dev_chunk_link(r->dev, r->chunk[0], HWT_NO_CHUNK);
	}
	for (int i = 0; i < 2; i++) {
		int flags;

		if (r->chunk[i] < 0)
			continue;
		flags = hwt_dev_chunk_get_flags(r->dev, r->chunk[i]);
		if (flags >= 0)
			hwt_dev_chunk_set_flags(r->dev, r->chunk[i],
						((uint32_t)flags & HWT_CHUNK_USER_FLAGS) |
						HWT_CHUNK_FREE);
		if (i == 0 && r->persist)
			continue;	/* the area's chunk stays, for the next recording */
		if (hwt_dev_chunk_delete(r->dev, r->chunk[i]) < 0)
			errmsg("note: chunk %d left behind (hwtrace ctl table)", r->chunk[i]);
	}
	if (r->old_filter >= 0)
		for (unsigned int f = 0; f < HWT_NR_FAMILIES; f++)
			hwt_dev_filter_set(r->dev, f, !!(r->old_filter & (1 << f)));
}

/* The backend's calls, one place each. */
static int enable(struct rec *r)
{
#ifdef HAVE_BPF
	if (r->bpf) {
		/* the programs ran (and may have missed) since they attached */
		r->missed_base = hwt_bpf_missed(r->bpf);
		return hwt_bpf_start(r->bpf);
	}
#endif
	return hwt_dev_enable(r->dev);
}

static int disable(struct rec *r)
{
#ifdef HAVE_BPF
	if (r->bpf)
		return hwt_bpf_stop(r->bpf);
#endif
	return hwt_dev_disable(r->dev);
}

static int64_t poll_rings(struct rec *r, int timeout_ms, uint32_t wait_ms,
			  hwt_sink_fn_t fn)
{
#ifdef HAVE_BPF
	if (r->bpf)
		return hwt_bpf_poll(r->bpf, timeout_ms, wait_ms * 1000, fn, r);
#endif
	(void)wait_ms;
	return hwt_consumer_poll(r->cons, timeout_ms, fn, r);
}

/* Tracing is off: everything the rings hold (STOP drained, CYC saved). */
static int64_t consume_rings(struct rec *r, hwt_sink_fn_t fn)
{
#ifdef HAVE_BPF
	if (r->bpf)
		return hwt_bpf_consume(r->bpf, 0, fn, r);
#endif
	return hwt_consumer_consume(r->cons, 0, fn, r);
}

static void status_line(struct rec *r, double t0, uint64_t *last_total,
			double *last_t, const uint64_t *lost, uint64_t fill)
{
	double t = now();
	double rate = t > *last_t ? (double)(r->total - *last_total) / (t - *last_t) : 0;
	char bytes[32];

	format_bytes(r->w ? hwt_writer_bytes(r->w) : r->total * HWT_EVENT_SIZE,
		     bytes, sizeof(bytes));
	fprintf(stderr, "\r%s: %7.1f s %12" PRIu64 " events %10.0f ev/s %11s  lost %-8" PRIu64
		" fill %3" PRIu64 "%% ", prog, t - t0, r->total, rate, bytes,
		sum(lost, r->ver.nr_cpus), fill);
	*last_total = r->total;
	*last_t = t;
}

static void summary(struct rec *r, const char *out, const uint64_t *lost,
		    const uint64_t *ow, double secs)
{
	uint64_t tl = sum(lost, r->ver.nr_cpus), to = sum(ow, r->ver.nr_cpus);

	fprintf(stderr, "%s: %" PRIu64 " events in %.1f s to %s\n", prog, r->total,
		secs, out);
	fprintf(stderr, "  %-5s %12s %12s %12s\n", "cpu", "events", "lost", "overwritten");
	for (uint32_t c = 0; c < r->ver.nr_cpus; c++)
		fprintf(stderr, "  %-5u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", c,
			r->cpu_records[c], lost[c], ow[c]);
	if (tl)
		fprintf(stderr, "%s: WARNING: %" PRIu64 " events LOST (rings full%s): use a larger -b%s\n",
			prog, tl, r->mode == MODE_STREAM ? ", drain too slow" : "",
			r->mode == MODE_STREAM ? " or a shorter -w" : ", or -m stream");
	if (to)
		fprintf(stderr, "%s: %" PRIu64 " older records overwritten (cyclic mode keeps the last %s)\n",
			prog, to, "BUFSIZE");
	if (r->missed)
		fprintf(stderr, "%s: WARNING: %" PRIu64 " events LOST, CPU unknown: the kernel did not run a BPF program nested in itself\n",
			prog, r->missed);
	if (r->udp >= 0)
		fprintf(stderr, "%s: %" PRIu32 " UDP packets sent, then the end-of-trace packet\n",
			prog, r->packet_no);
	if (r->udp_refused)
		fprintf(stderr, "%s: WARNING: %" PRIu64 " UDP packets refused by the receiver\n",
			prog, r->udp_refused);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "families", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "bufsize", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "compress", no_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "wait", required_argument, NULL, 'w' },
		{ "backend", required_argument, NULL, 'B' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "persist", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const mode_names[] = { "stream", "stop", "cyclic", "chain" };
	struct rec r = { .chunk = { -1, -1 }, .old_filter = -1, .udp = -1, .names_ok = 1 };
	struct hwt_consumer_opts copts = { .sz = sizeof(copts) };
	struct hwt_writer_opts wopts = { .sz = sizeof(wopts) };
	struct hwt_trace_info info;
	uint32_t families = FAMILIES_ALL, wait_ms = 10;
	uint64_t bufsize = 1 << 20, *lost = NULL, *ow = NULL, fill = 0, last_total = 0;
	const char *out = "trace.hwt";
	double duration = 0, t0, last_status, last_flush;
	int quiet = 0, c, ret, rc = EXIT_ERR, gate = -1, bufsize_given = 0, verbose = 0;
	enum backend backend = BACKEND_AUTO;
	pid_t child = -1;
	int child_status = 0;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	while ((c = getopt_long(argc, argv, "+f:o:b:m:d:zqw:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (parse_families(optarg, &families, stderr))
				return EXIT_USAGE;
			break;
		case 'o':
			out = optarg;
			break;
		case 'b':
			if (parse_size_arg("buffer size", optarg, &bufsize, stderr))
				return EXIT_USAGE;
			bufsize_given = 1;
			break;
		case 'm':
			for (r.mode = 0; r.mode < 4; r.mode++)
				if (!strcmp(optarg, mode_names[r.mode]))
					break;
			if (r.mode == 4) {
				errmsg("unknown mode '%s'; valid modes: stream cyclic stop chain",
				       optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd': {
			char *end;

			duration = strtod(optarg, &end);
			if (*end || !(duration > 0) || !isfinite(duration)) {
				errmsg("bad duration '%s': seconds > 0", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'z':
			wopts.compress = 3;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'w':
			if (parse_u32(optarg, &wait_ms) || !wait_ms || wait_ms > 10000) {
				errmsg("bad wait '%s': 1..10000 ms", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'B':
			if (!strcmp(optarg, "module")) {
				backend = BACKEND_MODULE;
			} else if (!strcmp(optarg, "bpf")) {
				backend = BACKEND_BPF;
			} else if (!strcmp(optarg, "auto")) {
				backend = BACKEND_AUTO;
			} else {
				errmsg("unknown backend '%s'; valid backends: module bpf auto", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'P':
			r.persist = 1;
			break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (r.persist && (r.mode != MODE_CYCLIC || bufsize_given ||
			  backend == BACKEND_BPF)) {
		errmsg("--persist records -m cyclic with the module, into the persistent area's own size (no -b)");
		return EXIT_USAGE;
	}
	if (bufsize % HWT_EVENT_SIZE || bufsize < MIN_BUFSIZE) {
		errmsg("buffer size %" PRIu64 " refused: at least %d bytes, a multiple of %d",
		       bufsize, MIN_BUFSIZE, HWT_EVENT_SIZE);
		return EXIT_USAGE;
	}
	if (is_udp_url(out)) {
		if (parse_udp_url(out, &r.addr, HWT_UDP_DEFAULT_PORT)) {
			errmsg("bad UDP address '%s': udp://HOST[:PORT]", out);
			return EXIT_USAGE;
		}
		r.udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (r.udp < 0 || connect(r.udp, (struct sockaddr *)&r.addr, sizeof(r.addr))) {
			errmsg("%s: %s", out, strerror(errno));
			return EXIT_ERR;
		}
	}

	if (backend == BACKEND_AUTO) {
		/* the module if it is loaded; any other failure is the module's to explain */
		ret = hwt_dev_open(&r.dev, getenv("HWTRACE_DEV"));
		if (!ret) {
			backend = BACKEND_MODULE;
			errmsg("backend: module (%s)", HWT_DEV_PATH);
		} else if (ret == -ENOENT || ret == -ENXIO || ret == -ENODEV) {
			backend = BACKEND_BPF;
			errmsg("backend: bpf (the hwtrace module is not loaded)");
		} else {
			backend = BACKEND_MODULE;
		}
	}
	if (backend == BACKEND_BPF) {
		if (r.mode == MODE_CHAIN) {
			errmsg("-m chain needs the module's linked chunks; with the bpf backend use -m stream, stop or cyclic");
			rc = EXIT_USAGE;
			goto out;
		}
		ret = rec_bpf_open(&r.bpf, families, bufsize,
				   r.mode == MODE_CYCLIC ? HWT_CHUNK_CYC : HWT_CHUNK_STOP,
				   verbose);
		if (ret) {
			rc = ret;
			goto out;
		}
#ifdef HAVE_BPF
		r.ver.nr_cpus = hwt_bpf_nr_cpus(r.bpf);
#endif
		r.ver.clock = HWT_CLOCK_MONO;
		r.ver.cycles_per_msec = 1000000;	/* bpf_ktime_get_ns() */
		goto allocate;
	}

	if (!r.dev)
		r.dev = open_dev();
	if (!r.dev)
		goto out;
	ret = hwt_dev_version(r.dev, &r.ver);
	if (ret < 0) {
		dev_error("version", ret);
		goto out;
	}
	if (r.ver.enabled) {
		errmsg("tracing is already on (another recorder?): stop it first with 'hwtrace ctl disable'");
		goto out;
	}
	if (!r.persist) {
		/* each chunk charges whole pages plus a meta page, on every CPU */
		uint64_t per_cpu = ((bufsize + EMERGENCY_SIZE + 4095) & ~4095ull) + 4096;
		uint64_t avail = r.ver.max_memory > r.ver.used_memory ?
				 r.ver.max_memory - r.ver.used_memory : 0;
		uint64_t n = (uint64_t)r.ver.nr_cpus * (r.mode == MODE_CHAIN ? 2 : 1);
		uint64_t limit = n ? avail / n : 0;

		limit = limit > 8192 + EMERGENCY_SIZE ?
			((limit - 4096 - EMERGENCY_SIZE) & ~4095ull) : 0;
		if (per_cpu * n > avail) {
			char lb[32], mb[32];

			if (!bufsize_given && limit >= MIN_BUFSIZE) {
				bufsize = limit;	/* the default shrinks to fit */
			} else {
				format_bytes(limit, lb, sizeof(lb));
				format_bytes(r.ver.max_memory, mb, sizeof(mb));
				errmsg("buffer size %" PRIu64 " refused: with %u CPUs%s the limit is %s (%" PRIu64
				       " bytes) per CPU; the module caps ring memory at %s (module parameter max_memory_mb)",
				       bufsize, r.ver.nr_cpus, r.mode == MODE_CHAIN ? " and 2 chunks" : "",
				       lb, limit, mb);
				rc = EXIT_USAGE;
				goto out;
			}
		}
	}

allocate:
	r.cpu_records = calloc(r.ver.nr_cpus, sizeof(*r.cpu_records));
	lost = calloc(r.ver.nr_cpus, sizeof(*lost));
	ow = calloc(r.ver.nr_cpus, sizeof(*ow));
	if (!r.cpu_records || !lost || !ow) {
		errmsg("out of memory");
		goto out;
	}
	copts.wait_us = wait_ms * 1000;
	if (r.dev) {
		ret = hwt_consumer_new(&r.cons, r.dev, &copts);
		if (ret < 0) {
			dev_error("consumer", ret);
			goto out;
		}
		if (setup_chunks(&r, bufsize))
			goto out;

		r.old_filter = hwt_dev_filter_get(r.dev);
		for (unsigned int f = 0; f < HWT_NR_FAMILIES; f++) {
			ret = hwt_dev_filter_set(r.dev, f, !(families & (1u << f)));
			if (ret < 0) {
				dev_error("set filter", ret);
				goto out;
			}
		}
	}

	memset(&info, 0, sizeof(info));
	host_info(&info);
	info.nr_cpus = r.ver.nr_cpus;
	info.clock = r.ver.clock;
	info.cycles_per_msec = r.ver.cycles_per_msec;
	info.families = families;
	info.chunk_mode = r.mode == MODE_CYCLIC ? HWT_CHUNK_CYC :
			  r.mode == MODE_CHAIN ? HWT_CHUNK_JTN : HWT_CHUNK_STOP;
	if (r.bpf)
		snprintf(info.backend, sizeof(info.backend), "bpf");
	if (r.udp < 0) {
		ret = hwt_writer_open(&r.w, out, &info, &wopts);
		if (ret < 0) {
			errmsg("%s: %s", out, strerror(-ret));
			goto out;
		}
	}

	if (optind < argc) {
		child = spawn(argv + optind, &gate);
		if (child < 0) {
			errmsg("starting %s: %s", argv[optind], strerror(errno));
			goto out;
		}
	}
	install_stop_handlers();
	ret = enable(&r);
	if (ret < 0) {
		dev_error("enable", ret);
		goto out;
	}
	r.enabled = 1;
	if (gate >= 0) {
		if (write(gate, "g", 1) != 1)
			errmsg("starting %s: %s", argv[optind], strerror(errno));
		close(gate);
		gate = -1;
	}

	t0 = last_status = last_flush = now();
	quiet = quiet || !isatty(STDERR_FILENO);
	while (!stop_requested) {
		double t;

		if (r.mode == MODE_STREAM) {
			int64_t n = poll_rings(&r, 100, wait_ms, sink);

			if (n < 0 && n != -EINTR) {
				r.err = (int)n;
				errmsg("draining: %s", strerror((int)-n));
				break;
			}
		} else {
			struct timespec ts = { .tv_nsec = 100 * 1000000 };

			nanosleep(&ts, NULL);
		}
		pump_names(&r);
		if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
			child = -1;
			break;
		}
		t = now();
		if (duration > 0 && t - t0 >= duration)
			break;
		if (t - last_flush >= 1.0) {
			counters(&r, lost, ow, &fill);
			if (r.w) {
				save_counters(&r, lost, ow);
				/* a crash now loses at most the last second */
				ret = hwt_writer_flush(r.w);
				if (ret < 0) {
					r.err = ret;
					errmsg("%s: %s", out, strerror(-ret));
					break;
				}
			}
			last_flush = t;
		}
		if (!quiet && t - last_status >= 0.5)
			status_line(&r, t0, &last_total, &last_status, lost, fill);
	}
	if (!quiet)
		fputc('\n', stderr);

	/* stop writers, then everything they left: STOP/JTN drained, CYC saved */
	ret = disable(&r);
	if (ret < 0)
		dev_error("disable", ret);
	r.enabled = 0;
	if (!r.err) {
		int64_t n = consume_rings(&r, sink);

		if (n < 0) {
			r.err = (int)n;
			errmsg("draining: %s", strerror((int)-n));
		}
	}
	pump_names(&r);
	if (r.udp >= 0)
		send_end(&r);
	counters(&r, lost, ow, &fill);
	if (r.w) {
		save_counters(&r, lost, ow);
		if (r.dev && hwt_dev_version(r.dev, &r.ver) == 0)
			hwt_writer_set_names_lost(r.w, r.ver.names_lost);
#ifdef HAVE_BPF
		if (r.bpf)
			hwt_writer_set_names_lost(r.w, hwt_bpf_names_lost(r.bpf));
#endif
		ret = hwt_writer_close(r.w);
		r.w = NULL;
		if (ret < 0 && !r.err) {
			r.err = ret;
			errmsg("%s: %s", out, strerror(-ret));
		}
	}
	summary(&r, out, lost, ow, now() - t0);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &child_status, 0);
	} else if (optind < argc && WIFEXITED(child_status) && WEXITSTATUS(child_status)) {
		errmsg("note: %s exited with status %d", argv[optind],
		       WEXITSTATUS(child_status));
	}
	rc = r.err ? EXIT_ERR : EXIT_OK;
out:
	if (gate >= 0)
		close(gate);
	if (child > 0 && rc != EXIT_OK)
		waitpid(child, NULL, 0);
	if (r.w) {
		/* an error before the end: keep what was written, marked complete */
		hwt_writer_close(r.w);
	}
	if (r.dev) {
		teardown(&r);
		hwt_dev_close(r.dev);
	} else {
		hwt_consumer_free(r.cons);
	}
#ifdef HAVE_BPF
	hwt_bpf_close(r.bpf);
#endif
	if (r.udp >= 0)
		close(r.udp);
	free(r.cpu_records);
	free(lost);
	free(ow);
	return rc;
}
