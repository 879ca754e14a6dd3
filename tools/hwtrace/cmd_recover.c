// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace recover -o FILE: save the trace a previous boot left in the
 * persistent area (hwtrace.ko persist=) as an ordinary .hwt file, marked as
 * recovered with that boot's id and how it ended.  --release gives the area
 * back for tracing.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwtrace.h"

static const char usage[] =
"usage: hwtrace recover -o FILE [-z] [--release]\n"
"       hwtrace recover --release\n"
"       hwtrace recover -i IMAGE -o FILE [-z]\n"
"\n"
"Save the trace a previous boot left in the persistent area (hwtrace.ko\n"
"loaded with persist=SIZE@ADDR or persist=NAME) to FILE: each CPU's last\n"
"records up to the crash, and the names of their tasks and IRQs.  The area\n"
"stays read-only until released: a second crash before recovery does not\n"
"overwrite the first trace.\n"
"\n"
"  -o FILE      output .hwt file\n"
"  -i IMAGE     read a copy of the area from IMAGE, not from /dev/hwtrace\n"
"  -z           compress record blocks with zstd\n"
"  --release    give the area back for tracing (after saving, with -o)\n"
"  -h, --help   this help\n"
"\n"
"Exit status: 0, 1 error (no previous trace, a corrupt one, another layout\n"
"version: the message says which), 2 usage, 3 a ring was damaged (the\n"
"others were saved).\n";

/* Why hwt_persist_check() refused the area, for the user. */
static void explain(int err, const void *area, size_t size)
{
	const struct hwt_persist_header *h = area;

	if (err == -ENODATA)
		errmsg("no previous trace in the persistent area (a cold boot, or never recorded)");
	else if (err == -EPROTONOSUPPORT && size >= sizeof(*h))
		errmsg("the previous trace has layout version %u; this hwtrace reads version %u",
		       h->version, HWT_PERSIST_VERSION);
	else if (err == -EBADMSG)
		errmsg("the previous trace is corrupt (torn header checksum or impossible layout); 'hwtrace recover --release' gives the area back");
	else
		errmsg("persistent area: %s", strerror(-err));
}

/* Write area to out; an exit code. */
static int save(const void *area, size_t size, const char *out, int compress)
{
	struct hwt_writer_opts wopts = { .sz = sizeof(wopts), .compress = compress };
	const struct hwt_persist_header *h;
	struct hwt_recovery rec = { 0 };
	struct hwt_trace_info info;
	struct hwt_writer *w;
	uint64_t *records, total = 0;
	char id[40];
	int ret;

	ret = hwt_persist_check(area, size, &h);
	if (ret) {
		explain(ret, area, size);
		return EXIT_ERR;
	}
	records = calloc(h->nr_cpus, sizeof(*records));
	if (!records) {
		errmsg("out of memory");
		return EXIT_ERR;
	}
	memset(&info, 0, sizeof(info));
	host_info(&info);
	info.nr_cpus = h->nr_cpus;
	info.clock = h->clock;
	info.cycles_per_msec = h->cycles_per_msec;
	info.families = FAMILIES_ALL;
	info.chunk_mode = HWT_CHUNK_CYC;
	rec.crash = h->crash;
	rec.crash_cpu = h->crash_cpu;
	memcpy(rec.boot_id, h->boot_id, sizeof(rec.boot_id));
	wopts.recovery = &rec;
	ret = hwt_writer_open(&w, out, &info, &wopts);
	if (ret < 0) {
		errmsg("%s: %s", out, strerror(-ret));
		free(records);
		return EXIT_ERR;
	}
	ret = hwt_persist_write(area, size, w, records);
	if (ret < 0) {
		errmsg("%s: %s", out, strerror(-ret));
		hwt_writer_abort(w);
		free(records);
		return EXIT_ERR;
	}
	if (hwt_writer_close(w) < 0) {
		errmsg("%s: %s", out, strerror(errno));
		free(records);
		return EXIT_ERR;
	}
	format_boot_id(h->boot_id, id, sizeof(id));
	fprintf(stderr, "%s: previous boot %s ended in %s", prog, id, crash_name(h->crash));
	if (h->crash)
		fprintf(stderr, " on CPU %u", h->crash_cpu);
	fputc('\n', stderr);
	for (uint32_t cpu = 0; cpu < h->nr_cpus; cpu++) {
		const struct hwt_ring_meta *m = (const void *)((const uint8_t *)area +
			h->ring_offset + (uint64_t)cpu * h->ring_stride);

		total += records[cpu];
		if (records[cpu])
			fprintf(stderr, "%s:   CPU %u: %" PRIu64 " records, %" PRIu64
				" overwritten before\n", prog, cpu, records[cpu],
				(uint64_t)m->overwritten);
	}
	fprintf(stderr, "%s: %" PRIu64 " records of %u CPUs saved to %s\n", prog,
		total, h->nr_cpus, out);
	free(records);
	return ret == HWT_PARTIAL ? EXIT_PARTIAL : EXIT_OK;
}

static int from_image(const char *image, const char *out, int compress)
{
	struct stat st;
	void *area;
	int fd, rc;

	fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		errmsg("%s: %s", image, fd < 0 ? strerror(errno) : "not a non-empty regular file");
		if (fd >= 0)
			close(fd);
		return EXIT_ERR;
	}
	area = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (area == MAP_FAILED) {
		errmsg("%s: %s", image, strerror(errno));
		return EXIT_ERR;
	}
	rc = save(area, (size_t)st.st_size, out, compress);
	munmap(area, (size_t)st.st_size);
	return rc;
}

static int from_device(const char *out, int compress, int release)
{
	struct hwt_persist_info pi;
	struct hwt_dev *d;
	void *area;
	int ret, rc = EXIT_ERR;

	d = open_dev();
	if (!d)
		return EXIT_ERR;
	ret = hwt_dev_persist_info(d, &pi);
	if (ret < 0) {
		dev_error("persistent area", ret);
		goto out;
	}
	switch (pi.state) {
	case HWT_PERSIST_OFF:
		errmsg("no persistent area: load hwtrace with persist=SIZE@ADDR (memory reserved with memmap=SIZE$ADDR) or persist=NAME (reserve_mem=SIZE:ALIGN:NAME)");
		goto out;
	case HWT_PERSIST_RECORDING:
		errmsg("no previous trace: the persistent area (chunk %d) records this boot", pi.chunk);
		goto out;
	case HWT_PERSIST_CORRUPT:
	case HWT_PERSIST_OTHER_ABI:
		if (out) {
			if (pi.state == HWT_PERSIST_CORRUPT)
				explain(-EBADMSG, NULL, 0);
			else
				errmsg("the previous trace has layout version %u; this hwtrace reads version %u",
				       pi.version, HWT_PERSIST_VERSION);
			if (!release)
				goto out;
			release = 0;	/* nothing saved: keep the evidence */
		}
		break;
	default:
		break;
	}
	rc = EXIT_OK;
	if (out && pi.state == HWT_PERSIST_PREVIOUS) {
		area = mmap(NULL, pi.size, PROT_READ, MAP_SHARED, hwt_dev_fd(d),
			    (off_t)pi.mmap_offset);
		if (area == MAP_FAILED) {
			errmsg("mapping the persistent area: %s", strerror(errno));
			rc = EXIT_ERR;
			goto out;
		}
		rc = save(area, pi.size, out, compress);
		munmap(area, pi.size);
		if (rc == EXIT_ERR)
			goto out;
	}
	if (release) {
		ret = hwt_dev_persist_release(d);
		if (ret < 0) {
			dev_error("releasing the persistent area", ret);
			rc = EXIT_ERR;
			goto out;
		}
		fprintf(stderr, "%s: persistent area released: it records again\n", prog);
	}
out:
	hwt_dev_close(d);
	return rc;
}

int cmd_recover(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "release", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *image = NULL;
	int c, compress = 0, release = 0;

	if (want_help(argc, argv, usage))
		return EXIT_OK;
	while ((c = getopt_long(argc, argv, "o:i:zh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'i':
			image = optarg;
			break;
		case 'z':
			compress = 3;
			break;
		case 'R':
			release = 1;
			break;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || (!out && !release) || (image && (!out || release))) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (image)
		return from_image(image, out, compress);
	return from_device(out, compress, release);
}
