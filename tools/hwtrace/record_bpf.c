// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace record --backend=bpf: open libhwt's BPF backend and explain what
 * went wrong in words a user can act on (no BTF, which capability is
 * missing, which program the verifier rejected and how to see why).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwtrace.h"
#include "record.h"

#ifdef HAVE_BPF
#include <hwt/bpf.h>

static int bpf_enable(struct rec *r)
{
	/* the programs ran (and may have missed) since they attached */
	r->missed_base = hwt_bpf_missed(r->bpf);
	return hwt_bpf_start(r->bpf);
}

static int bpf_disable(struct rec *r)
{
	return hwt_bpf_stop(r->bpf);
}

static int64_t bpf_poll(struct rec *r, int timeout_ms, hwt_sink_fn_t fn)
{
	return hwt_bpf_poll(r->bpf, timeout_ms, r->wait_ms * 1000, fn, r);
}

static int64_t bpf_consume(struct rec *r, hwt_sink_fn_t fn)
{
	return hwt_bpf_consume(r->bpf, 0, fn, r);
}

static int bpf_read_names(struct rec *r, struct hwt_name *names, size_t n)
{
	return hwt_bpf_read_names(r->bpf, names, n);
}

static void bpf_counters(struct rec *r, uint64_t *lost, uint64_t *ow, uint64_t *fill_pct)
{
	r->missed = hwt_bpf_missed(r->bpf) - r->missed_base;
	for (uint32_t cpu = 0; cpu < r->ver.nr_cpus; cpu++) {
		uint64_t pct = hwt_bpf_fill(r->bpf, cpu) * 100 / hwt_bpf_slots(r->bpf);

		hwt_bpf_counters(r->bpf, cpu, &lost[cpu], &ow[cpu]);
		if (pct > *fill_pct)
			*fill_pct = pct;
	}
}

static uint64_t bpf_names_lost(struct rec *r)
{
	return hwt_bpf_names_lost(r->bpf);
}

static const struct rec_backend bpf_backend = {
	.enable = bpf_enable,
	.disable = bpf_disable,
	.poll = bpf_poll,
	.consume = bpf_consume,
	.read_names = bpf_read_names,
	.counters = bpf_counters,
	.names_lost = bpf_names_lost,
};

static int open_bpf(struct hwt_bpf **out, uint32_t families, uint64_t bufsize,
		    uint32_t mode, int verbose)
{
	const char *env = getenv("HWT_BPF_VERBOSE");
	struct hwt_bpf_opts o = {
		.sz = sizeof(o),
		.families = families,
		.bufsize = bufsize,
		.mode = mode,
		.verbose = verbose,
		/* tests point this elsewhere to see the no-BTF error */
		.btf_path = getenv("HWTRACE_BTF"),
	};
	struct hwt_bpf_error e;
	int ret;

	if (env && *env)
		o.verbose = atoi(env) > 1 ? 2 : 1;
	ret = hwt_bpf_open(out, &o, &e);
	if (!ret) {
		/* tracepoints this kernel lacks, functions it cannot trace */
		if (hwt_bpf_nr_missing(*out))
			errmsg("note: %u probe%s of the chosen families %s not available on this kernel%s",
			       hwt_bpf_nr_missing(*out), hwt_bpf_nr_missing(*out) == 1 ? "" : "s",
			       hwt_bpf_nr_missing(*out) == 1 ? "is" : "are",
			       o.verbose ? "" : " (--verbose lists them)");
		return 0;
	}
	switch (e.stage) {
	case HWT_BPF_STAGE_BTF:
		errmsg("BPF backend: the kernel has no BTF (%s missing): it needs CONFIG_DEBUG_INFO_BTF=y.\n"
		       "  Use the module instead:  sudo insmod kmod/hwtrace.ko  and --backend=module",
		       o.btf_path ? o.btf_path : HWT_BPF_BTF_PATH);
		break;
	case HWT_BPF_STAGE_PERM:
		if (e.missing_caps)
			errmsg("BPF backend: permission denied: loading tracing programs needs CAP_BPF and CAP_PERFMON; missing:%s%s.\n"
			       "  Run as root, or grant them:  sudo setcap cap_bpf,cap_perfmon+ep hwtrace",
			       e.missing_caps & HWT_BPF_CAP_BPF ? " CAP_BPF" : "",
			       e.missing_caps & HWT_BPF_CAP_PERFMON ? " CAP_PERFMON" : "");
		else
			errmsg("BPF backend: permission denied by the kernel although CAP_BPF and CAP_PERFMON are held\n"
			       "  (a security module or kernel.unprivileged_bpf_disabled?): %s",
			       e.msg[0] ? e.msg : strerror(-ret));
		break;
	case HWT_BPF_STAGE_LOAD:
		errmsg("BPF backend: the kernel refused program %s: %s.%s",
		       e.prog[0] ? e.prog : "(unknown)", strerror(-ret),
		       o.verbose ? " libbpf's messages above hold the verifier's log." :
		       "\n  Run with --verbose (or HWT_BPF_VERBOSE=1) for the verifier's log");
		break;
	case HWT_BPF_STAGE_ATTACH:
		errmsg("BPF backend: attaching %s: %s", e.prog[0] ? e.prog : "a program",
		       strerror(-ret));
		break;
	case HWT_BPF_STAGE_SETUP:
		if (ret == -EINVAL) {
			errmsg("BPF backend: buffer size %llu refused", (unsigned long long)bufsize);
			return EXIT_USAGE;
		}
		errmsg("BPF backend: %s", strerror(-ret));
		break;
	default:
		errmsg("BPF backend: %s%s%s", strerror(-ret), e.msg[0] ? ": " : "", e.msg);
		break;
	}
	return EXIT_ERR;
}

int rec_bpf_open(struct rec *r, uint32_t families, uint64_t bufsize, int verbose)
{
	int ret = open_bpf(&r->bpf, families, bufsize,
			   r->mode == MODE_CYCLIC ? HWT_CHUNK_CYC : HWT_CHUNK_STOP,
			   verbose);

	if (ret)
		return ret;
	r->be = &bpf_backend;
	r->ver.nr_cpus = hwt_bpf_nr_cpus(r->bpf);
	r->ver.clock = HWT_CLOCK_MONO;
	r->ver.cycles_per_msec = 1000000;	/* bpf_ktime_get_ns() */
	return 0;
}
#else
int rec_bpf_open(struct rec *r, uint32_t families, uint64_t bufsize, int verbose)
{
	(void)r;
	(void)families;
	(void)bufsize;
	(void)verbose;
	errmsg("this hwtrace was built without the BPF backend (it needs libbpf-dev, bpftool and clang at build time)");
	return EXIT_ERR;
}
#endif
