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
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwtrace.h"
#include "record.h"
#ifdef HAVE_BPF
#include <hwt/bpf.h>
#endif

static const char usage[] =
"usage: hwtrace record [-f FAMILIES] [-o FILE|udp://HOST[:PORT]] [-b BUFSIZE]\n"
"                      [-m stream|cyclic|stop|chain] [-d SECONDS] [-z] [-q]\n"
"                      [-w MS] [-n NICE] [-r PRIO] [--backend=module|bpf|auto]\n"
"                      [-v] [--persist] [-- COMMAND ARGS...]\n"
"\n"
"Record events of every CPU until Ctrl-C (SIGINT/SIGTERM), SECONDS elapse, or\n"
"COMMAND exits (tracing starts just before COMMAND runs).\n"
"\n"
"  -f FAMILIES  comma-separated: general ipoint task irq cpu prio mutex signal\n"
"               server user data timer, or all (default all)\n"
"  -o OUT       .hwt file (default trace.hwt), or udp://HOST[:PORT] to send\n"
"               S.Ha.R.K. UDP packets (port 20000 by default, an IPv6\n"
"               HOST in brackets), paced, then an end-of-trace packet (see\n"
"               hwtrace listen)\n"
"  -b BUFSIZE   ring size per CPU, k/M/G suffixes (default 1M)\n"
"  -m MODE      stream: drained live (default); stop: keep the first BUFSIZE;\n"
"               cyclic: keep the last BUFSIZE (flight recorder); chain: two\n"
"               chunks, the second taking over when the first is full\n"
"  -d SECONDS   stop after SECONDS\n"
"  -z           compress record blocks with zstd (S.Ha.R.K.'s COMPR)\n"
"  -q           no live status line\n"
"  -w MS        longest sleep between drains; a ring a quarter full wakes\n"
"               the recorder earlier (default 10)\n"
"  -n NICE      --nice: drain at nice value NICE (-20..19); default -10 where\n"
"               allowed (root, CAP_SYS_NICE, RLIMIT_NICE) for a recorder started\n"
"               at nice 0; COMMAND keeps its own\n"
"  -r PRIO      --rt-prio: drain at real-time priority PRIO (SCHED_FIFO, 1..99;\n"
"               root or CAP_SYS_NICE); COMMAND keeps its own policy\n"
"  --backend=B  module: /dev/hwtrace (hwtrace.ko); bpf: BPF programs, no module\n"
"               needed (kernel BTF, CAP_BPF and CAP_PERFMON; modes stream, stop,\n"
"               cyclic); auto (default): the module if loaded, else bpf\n"
"  -v           --verbose: libbpf's messages, the verifier's log included\n"
"  --persist    -m cyclic into the persistent area (hwtrace.ko persist=): its\n"
"               last records survive a panic and a warm reboot (hwtrace recover)\n"
"\n"
"A final per-CPU summary, with lost event counts, goes to stderr.\n"
"Exit status: 0, 1 error, 2 usage.\n";


enum backend { BACKEND_AUTO, BACKEND_MODULE, BACKEND_BPF };

#define EMERGENCY_SIZE	4096	/* room for control records when full */
#define MIN_BUFSIZE	4096

/* What the options ask for, beyond what struct rec keeps. */
struct rec_opts {
	uint32_t families;
	uint64_t bufsize;
	int bufsize_given;
	enum backend backend;
	int verbose;
	int nice;			/* the drain's, REC_NICE_NONE: default */
	int rt_prio;			/* SCHED_FIFO for the drain, 0: none */
	struct hwt_writer_opts wopts;
	char **cmd;			/* the command to run, or NULL */
};

/* --- the module backend (the BPF one is in record_bpf.c) ----------------- */

/* set_priority events the module's kretprobes missed while tracing */
static uint64_t mod_prio_missed(struct rec *r)
{
	struct hwt_version v;

	return hwt_dev_version(r->dev, &v) < 0 ? 0 : v.prio_missed;
}

static int mod_enable(struct rec *r)
{
	r->missed_base = mod_prio_missed(r);
	return hwt_dev_enable(r->dev);
}

static int mod_disable(struct rec *r)
{
	int ret = hwt_dev_disable(r->dev);

	r->missed = mod_prio_missed(r) - r->missed_base;
	return ret;
}

static int64_t mod_poll(struct rec *r, int timeout_ms, hwt_sink_fn_t fn)
{
	return hwt_consumer_poll(r->cons, timeout_ms, fn, r);
}

/* One CPU's stream rings, after a wait that only they end. */
static int64_t mod_poll_cpu(struct rec *r, uint32_t cpu, int timeout_ms,
			    hwt_sink_fn_t fn)
{
	return hwt_consumer_poll_cpu(r->cons, cpu, timeout_ms, fn, r);
}

static int64_t mod_consume(struct rec *r, hwt_sink_fn_t fn)
{
	return hwt_consumer_consume(r->cons, 0, fn, r);
}

static int mod_read_names(struct rec *r, struct hwt_name *names, size_t n)
{
	return hwt_dev_read_names(r->dev, names, n);
}

/* Lost and overwritten per CPU, summed over the chunks. */
static void mod_counters(struct rec *r, uint64_t *lost, uint64_t *ow, uint64_t *fill_pct)
{
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

static uint64_t mod_names_lost(struct rec *r)
{
	struct hwt_version v;

	return hwt_dev_version(r->dev, &v) == 0 ? v.names_lost : 0;
}

static const struct rec_backend module_backend = {
	.enable = mod_enable,
	.disable = mod_disable,
	.poll = mod_poll,
	.poll_cpu = mod_poll_cpu,
	.consume = mod_consume,
	.read_names = mod_read_names,
	.counters = mod_counters,
	.names_lost = mod_names_lost,
};

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

/*
 * The ring size the module's memory cap allows: o->bufsize, or the default
 * shrunk to fit.  0, or EXIT_USAGE with the limit said.
 */
static int fit_memory(const struct rec *r, struct rec_opts *o)
{
	/* each chunk charges whole pages plus a meta page, on every CPU */
	uint64_t per_cpu = ((o->bufsize + EMERGENCY_SIZE + 4095) & ~4095ull) + 4096;
	uint64_t avail = r->ver.max_memory > r->ver.used_memory ?
			 r->ver.max_memory - r->ver.used_memory : 0;
	uint64_t n = (uint64_t)r->ver.nr_cpus * (r->mode == MODE_CHAIN ? 2 : 1);
	uint64_t limit = n ? avail / n : 0;
	char lb[32], mb[32];

	limit = limit > 8192 + EMERGENCY_SIZE ?
		((limit - 4096 - EMERGENCY_SIZE) & ~4095ull) : 0;
	if (per_cpu * n <= avail)
		return 0;
	if (!o->bufsize_given && limit >= MIN_BUFSIZE) {
		o->bufsize = limit;	/* the default shrinks to fit */
		return 0;
	}
	format_bytes(limit, lb, sizeof(lb));
	format_bytes(r->ver.max_memory, mb, sizeof(mb));
	errmsg("buffer size %" PRIu64 " refused: with %u CPUs%s the limit is %s (%" PRIu64
	       " bytes) per CPU; the module caps ring memory at %s (module parameter max_memory_mb)",
	       o->bufsize, r->ver.nr_cpus, r->mode == MODE_CHAIN ? " and 2 chunks" : "",
	       lb, limit, mb);
	return EXIT_USAGE;
}

/* /dev/hwtrace (r->dev if open already): chunks made, families filtered. */
static int open_module(struct rec *r, struct rec_opts *o)
{
	struct hwt_consumer_opts copts = { .sz = sizeof(copts) };
	int ret;

	r->be = &module_backend;
	if (!r->dev)
		r->dev = open_dev();
	if (!r->dev)
		return EXIT_ERR;
	ret = hwt_dev_version(r->dev, &r->ver);
	if (ret < 0) {
		dev_error("version", ret);
		return EXIT_ERR;
	}
	if (r->ver.enabled) {
		errmsg("tracing is already on (another recorder?): stop it first with 'hwtrace ctl disable'");
		return EXIT_ERR;
	}
	/* the persistent area's chunk exists already, with its own size */
	ret = r->persist ? 0 : fit_memory(r, o);
	if (ret)
		return ret;
	copts.wait_us = r->wait_ms * 1000;
	ret = hwt_consumer_new(&r->cons, r->dev, &copts);
	if (ret < 0) {
		dev_error("consumer", ret);
		return EXIT_ERR;
	}
	if (setup_chunks(r, o->bufsize))
		return EXIT_ERR;
	r->old_filter = hwt_dev_filter_get(r->dev);
	for (unsigned int f = 0; f < HWT_NR_FAMILIES; f++) {
		ret = hwt_dev_filter_set(r->dev, f, !(o->families & (1u << f)));
		if (ret < 0) {
			dev_error("set filter", ret);
			return EXIT_ERR;
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

/* --- options, output, the command ---------------------------------------- */

/* -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct rec *r, struct rec_opts *o)
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
		{ "nice", required_argument, NULL, 'n' },
		{ "rt-prio", required_argument, NULL, 'r' },
		{ "backend", required_argument, NULL, 'B' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "persist", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const mode_names[] = { "stream", "stop", "cyclic", "chain" };
	int c;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	while ((c = getopt_long(argc, argv, "+f:o:b:m:d:zqw:n:r:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (parse_families(optarg, &o->families, stderr))
				return EXIT_USAGE;
			break;
		case 'o':
			r->out = optarg;
			break;
		case 'b':
			if (parse_size_arg("buffer size", optarg, &o->bufsize, stderr))
				return EXIT_USAGE;
			o->bufsize_given = 1;
			break;
		case 'm':
			for (r->mode = 0; r->mode < 4; r->mode++)
				if (!strcmp(optarg, mode_names[r->mode]))
					break;
			if (r->mode == 4) {
				errmsg("unknown mode '%s'; valid modes: stream cyclic stop chain",
				       optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd': {
			char *end;

			r->duration = strtod(optarg, &end);
			if (*end || !(r->duration > 0) || !isfinite(r->duration)) {
				errmsg("bad duration '%s': seconds > 0", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'z':
			o->wopts.compress = 3;
			break;
		case 'q':
			r->quiet = 1;
			break;
		case 'w':
			if (parse_u32(optarg, &r->wait_ms) || !r->wait_ms || r->wait_ms > 10000) {
				errmsg("bad wait '%s': 1..10000 ms", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (rec_parse_nice(optarg, &o->nice))
				return EXIT_USAGE;
			break;
		case 'r':
			if (rec_parse_rt_prio(optarg, &o->rt_prio))
				return EXIT_USAGE;
			break;
		case 'B':
			if (!strcmp(optarg, "module")) {
				o->backend = BACKEND_MODULE;
			} else if (!strcmp(optarg, "bpf")) {
				o->backend = BACKEND_BPF;
			} else if (!strcmp(optarg, "auto")) {
				o->backend = BACKEND_AUTO;
			} else {
				errmsg("unknown backend '%s'; valid backends: module bpf auto", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'P':
			r->persist = 1;
			break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (r->persist && (r->mode != MODE_CYCLIC || o->bufsize_given ||
			   o->backend == BACKEND_BPF)) {
		errmsg("--persist records -m cyclic with the module, into the persistent area's own size (no -b)");
		return EXIT_USAGE;
	}
	if (o->bufsize % HWT_EVENT_SIZE || o->bufsize < MIN_BUFSIZE) {
		errmsg("buffer size %" PRIu64 " refused: at least %d bytes, a multiple of %d",
		       o->bufsize, MIN_BUFSIZE, HWT_EVENT_SIZE);
		return EXIT_USAGE;
	}
	if (is_udp_url(r->out) && parse_udp_url(r->out, &r->addr, HWT_UDP_DEFAULT_PORT)) {
		errmsg("bad UDP address '%s': udp://HOST[:PORT]", r->out);
		return EXIT_USAGE;
	}
	o->cmd = optind < argc ? argv + optind : NULL;
	return -1;
}

/* The module if it is loaded, else bpf; 0 or an exit code. */
static int open_backend(struct rec *r, struct rec_opts *o)
{
	if (o->backend == BACKEND_AUTO) {
		/* any failure but a missing module is the module's to explain */
		int ret = hwt_dev_open(&r->dev, getenv("HWTRACE_DEV"));

		if (!ret) {
			o->backend = BACKEND_MODULE;
			errmsg("backend: module (%s)", HWT_DEV_PATH);
		} else if (ret == -ENOENT || ret == -ENXIO || ret == -ENODEV) {
			o->backend = BACKEND_BPF;
			errmsg("backend: bpf (the hwtrace module is not loaded)");
		} else {
			o->backend = BACKEND_MODULE;
		}
	}
	if (o->backend == BACKEND_MODULE)
		return open_module(r, o);
	if (r->mode == MODE_CHAIN) {
		errmsg("-m chain needs the module's linked chunks; with the bpf backend use -m stream, stop or cyclic");
		return EXIT_USAGE;
	}
	return rec_bpf_open(r, o->families, o->bufsize, o->verbose);
}

/* The .hwt file, or the UDP socket; 0 or -1 with the reason said. */
static int open_output(struct rec *r, struct rec_opts *o)
{
	struct hwt_trace_info info;
	int ret;

	if (is_udp_url(r->out)) {
		r->udp = socket(r->addr.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (r->udp < 0 || connect(r->udp, &r->addr.sa, r->addr.len)) {
			errmsg("%s: %s", r->out, strerror(errno));
			return -1;
		}
		return 0;
	}
	memset(&info, 0, sizeof(info));
	host_info(&info);
	info.nr_cpus = r->ver.nr_cpus;
	info.clock = r->ver.clock;
	info.cycles_per_msec = r->ver.cycles_per_msec;
	info.families = o->families;
	info.chunk_mode = r->mode == MODE_CYCLIC ? HWT_CHUNK_CYC :
			  r->mode == MODE_CHAIN ? HWT_CHUNK_JTN : HWT_CHUNK_STOP;
	if (r->bpf)
		snprintf(info.backend, sizeof(info.backend), "bpf");
	ret = hwt_writer_open(&r->w, r->out, &info, &o->wopts);
	if (ret < 0) {
		errmsg("%s: %s", r->out, strerror(-ret));
		return -1;
	}
	return 0;
}

/* Fork the command, held until a byte comes through *gate (tracing is on). */
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

int cmd_record(int argc, char **argv)
{
	struct rec r = {
		.chunk = { -1, -1 }, .old_filter = -1, .udp = -1, .names_ok = 1,
		.out = "trace.hwt", .wait_ms = 10, .child = -1,
	};
	struct rec_opts o = {
		.families = FAMILIES_ALL, .bufsize = 1 << 20, .nice = REC_NICE_NONE,
		.wopts = { .sz = sizeof(o.wopts) },
	};
	int ret, rc = EXIT_ERR, gate = -1;

	rc = parse_args(argc, argv, &r, &o);
	if (rc >= 0)
		return rc;
	rc = open_backend(&r, &o);
	if (rc)
		goto out;
	rc = EXIT_ERR;
	if (rec_alloc(&r)) {
		errmsg("out of memory");
		goto out;
	}
	if (open_output(&r, &o))
		goto out;
	if (o.cmd) {
		r.child = spawn(o.cmd, &gate);
		if (r.child < 0) {
			errmsg("starting %s: %s", o.cmd[0], strerror(errno));
			goto out;
		}
	}
	/* after the fork: the command keeps the nice and policy it was started with */
	if (rec_set_nice(o.nice) || (o.rt_prio && rec_set_rt_prio(o.rt_prio)))
		goto out;
	install_stop_handlers();
	ret = r.be->enable(&r);
	if (ret < 0) {
		dev_error("enable", ret);
		goto out;
	}
	r.enabled = 1;
	if (gate >= 0) {
		if (write(gate, "g", 1) != 1)
			errmsg("starting %s: %s", o.cmd[0], strerror(errno));
		close(gate);
		gate = -1;
	}

	r.quiet = r.quiet || !isatty(STDERR_FILENO);
	rec_drain(&r);
	rec_drain_rest(&r);
	rec_summary(&r);
	if (r.child > 0) {
		kill(r.child, SIGTERM);
		waitpid(r.child, &r.child_status, 0);
	} else if (o.cmd && WIFEXITED(r.child_status) && WEXITSTATUS(r.child_status)) {
		errmsg("note: %s exited with status %d", o.cmd[0],
		       WEXITSTATUS(r.child_status));
	}
	rc = r.err ? EXIT_ERR : EXIT_OK;
out:
	if (gate >= 0)
		close(gate);
	if (r.child > 0 && rc != EXIT_OK)
		waitpid(r.child, NULL, 0);
	if (r.w) {
		/* an error before the end: keep what was written, marked complete */
		hwt_writer_close(r.w);
	}
	if (r.dev) {
		teardown(&r);
		hwt_dev_close(r.dev);
	}
#ifdef HAVE_BPF
	hwt_bpf_close(r.bpf);
#endif
	if (r.udp >= 0)
		close(r.udp);
	rec_free(&r);
	return rc;
}
