// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace snapshot -o FILE: save a cyclic (flight recorder) chunk, the last
 * events of every CPU, oldest first.  While tracing goes on, the few oldest
 * records writers may be overwriting during the copy are left out.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hwtrace.h"

static const char usage[] =
"usage: hwtrace snapshot -o FILE [-c CHUNK] [-z]\n"
"\n"
"Save the records of a cyclic chunk (the first one, or CHUNK) to FILE.\n"
"Tracing may be on: the chunk keeps recording.  Set one up with e.g.\n"
"  hwtrace ctl chunk create 4M 4k cyc && hwtrace ctl chunk select 0 && hwtrace ctl enable\n"
"\n"
"  -o FILE    output .hwt file\n"
"  -c CHUNK   chunk id (default: the first cyclic chunk)\n"
"  -z         compress record blocks with zstd\n"
"\n"
"Exit status: 0 (events lost while recording are a warning), 1 error, 2 usage.\n";

struct snap {
	struct hwt_writer *w;
	uint64_t n;
};

static int sink(void *ctx, uint32_t cpu, const struct hwt_event *ev, size_t n)
{
	struct snap *s = ctx;

	s->n += n;
	return hwt_writer_add(s->w, cpu, ev, n);
}

static int find_cyc(struct hwt_dev *d)
{
	for (int id = 0; id < HWT_MAX_CHUNKS; id++) {
		int flags = hwt_dev_chunk_get_flags(d, id);

		if (flags >= 0 && HWT_CHUNK_MODE((uint32_t)flags) == HWT_CHUNK_CYC)
			return id;
	}
	return -ENOENT;
}

int cmd_snapshot(int argc, char **argv)
{
	struct hwt_writer_opts wopts = { .sz = sizeof(wopts) };
	struct hwt_consumer *cons = NULL;
	struct hwt_trace_info info;
	struct hwt_version ver;
	struct hwt_dev *d = NULL;
	struct snap s = { 0 };
	const char *out = NULL;
	uint32_t chunk = UINT32_MAX;
	uint64_t *lost = NULL, *ow = NULL, tl = 0;
	int c, ret, id, rc = EXIT_ERR;
	int64_t n;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	while ((c = getopt(argc, argv, "o:c:zh")) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'c':
			if (parse_u32(optarg, &chunk) || chunk >= HWT_MAX_CHUNKS) {
				errmsg("bad chunk id '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'z':
			wopts.compress = 3;
			break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!out || optind != argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	d = open_dev();
	if (!d)
		return EXIT_ERR;
	ret = hwt_dev_version(d, &ver);
	if (ret < 0) {
		dev_error("version", ret);
		goto out;
	}
	id = chunk == UINT32_MAX ? find_cyc(d) : (int)chunk;
	if (id < 0) {
		errmsg("no cyclic chunk to save (hwtrace ctl table)");
		goto out;
	}
	ret = hwt_dev_chunk_get_flags(d, id);
	if (ret < 0) {
		dev_error("chunk flags", ret);
		goto out;
	}
	if (HWT_CHUNK_MODE((uint32_t)ret) != HWT_CHUNK_CYC) {
		errmsg("chunk %d is not cyclic: only a cyclic chunk can be saved while it records", id);
		goto out;
	}
	ret = hwt_consumer_new(&cons, d, NULL);
	if (!ret)
		ret = hwt_consumer_add_chunk(cons, id);
	if (ret < 0) {
		dev_error("mapping the rings", ret);
		goto out;
	}
	memset(&info, 0, sizeof(info));
	host_info(&info);
	info.nr_cpus = ver.nr_cpus;
	info.clock = ver.clock;
	info.cycles_per_msec = ver.cycles_per_msec;
	info.families = ~ver.filter_mask & FAMILIES_ALL;
	info.chunk_mode = HWT_CHUNK_CYC;
	ret = hwt_writer_open(&s.w, out, &info, &wopts);
	if (ret < 0) {
		errmsg("%s: %s", out, strerror(-ret));
		goto out;
	}
	n = hwt_consumer_consume(cons, ver.enabled ? HWT_SNAP_LIVE : 0, sink, &s);
	if (n < 0) {
		errmsg("reading chunk %d: %s", id, strerror((int)-n));
		hwt_writer_close(s.w);
		goto out;
	}
	lost = calloc(ver.nr_cpus, sizeof(*lost));
	ow = calloc(ver.nr_cpus, sizeof(*ow));
	for (size_t i = 0; lost && ow && i < hwt_consumer_nr_rings(cons); i++) {
		struct hwt_ring *r = hwt_consumer_ring(cons, i);
		uint32_t cpu = hwt_ring_cpu(r);

		if (cpu < ver.nr_cpus) {
			lost[cpu] = hwt_ring_meta(r)->lost;
			ow[cpu] = hwt_ring_meta(r)->overwritten;
			tl += lost[cpu];
			hwt_writer_set_lost(s.w, cpu, lost[cpu], ow[cpu]);
		}
	}
	ret = hwt_writer_close(s.w);
	if (ret < 0) {
		errmsg("%s: %s", out, strerror(-ret));
		goto out;
	}
	fprintf(stderr, "%s: chunk %d: %" PRIu64 " records of %zu CPU rings saved to %s%s\n",
		prog, id, s.n, hwt_consumer_nr_rings(cons), out,
		ver.enabled ? " (tracing still on)" : "");
	if (tl)
		fprintf(stderr, "%s: WARNING: %" PRIu64 " events lost\n", prog, tl);
	rc = EXIT_OK;
out:
	free(lost);
	free(ow);
	hwt_consumer_free(cons);
	hwt_dev_close(d);
	return rc;
}
