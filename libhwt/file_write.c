// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * .hwt writer: streams records into per-CPU blocks while a trace records.
 *
 * Each CPU has one block buffer (block_records records); a full buffer is
 * written as one RECORDS block at once, so memory stays bounded however
 * long the trace runs.  Names gather in one buffer written as a NAMES
 * block.  flush() writes everything pending plus a COUNTERS block, so a
 * recorder that flushes every second loses at most that second in a crash;
 * close() adds the END block that says the file is complete.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"
#include "file_fmt.h"

_Static_assert(sizeof(struct hwt_net_counters) ==
	       HWT_NET_NR_COUNTERS * sizeof(uint64_t),
	       "HWT_NET_NR_COUNTERS counts every net counter");

#define DEFAULT_BLOCK_RECORDS	4096	/* 64 KiB per CPU */
#define NAMES_FLUSH_BYTES	(64u << 10)

struct cpu_buf {
	struct hwt_event *ev;		/* little-endian records */
	uint32_t n;
};

struct hwt_writer {
	int fd;
	int err;			/* sticky: first write error */
	uint64_t bytes;
	uint64_t records;
	uint64_t blocks;
	uint32_t block_records;
	int compress;			/* zstd level, 0: off */
	struct hwt_recovery recovery;	/* recovered: 0 unless hwtrace recover */
	ZSTD_CCtx *cctx;
	void *zbuf;
	size_t zbuf_size;

	uint32_t nr_cpus;		/* arrays below have this many */
	struct cpu_buf *cpus;
	uint64_t *lost;
	uint64_t *overwritten;
	uint64_t names_lost;
	uint64_t lost_nocpu;
	struct hwt_net_counters net;	/* a UDP receiver's, if has_net */
	int has_net;
	int counters_dirty;

	uint8_t *names;			/* NAMES payload being built */
	size_t names_len, names_cap;
	uint32_t names_count;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int put_block(struct hwt_writer *w, uint16_t type, uint16_t flags,
		     uint32_t cpu, uint32_t count, const void *payload,
		     uint32_t stored, uint32_t raw)
{
	struct hwt_block_header h = {
		.magic = htole32(HWT_BLOCK_MAGIC),
		.type = htole16(type),
		.flags = htole16(flags),
		.cpu = htole32(cpu),
		.count = htole32(count),
		.stored_size = htole32(stored),
		.raw_size = htole32(raw),
		.payload_crc = htole32(hwt_crc32(0, payload, stored)),
	};
	int err;

	if (w->err)
		return w->err;
	h.header_crc = htole32(hwt_crc32(0, &h, offsetof(struct hwt_block_header,
							  header_crc)));
	err = write_all(w->fd, &h, sizeof(h));
	if (!err && stored)
		err = write_all(w->fd, payload, stored);
	if (err) {
		w->err = err;
		return err;
	}
	w->bytes += sizeof(h) + stored;
	w->blocks++;
	return 0;
}

static int flush_cpu(struct hwt_writer *w, uint32_t cpu)
{
	struct cpu_buf *b = &w->cpus[cpu];
	uint32_t raw = b->n * HWT_EVENT_SIZE;
	const void *payload = b->ev;
	uint32_t stored = raw;
	uint16_t flags = 0;
	int err;

	if (!b->n)
		return 0;
	if (w->compress) {
		size_t z = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zbuf_size,
					     b->ev, raw, w->compress);

		/* incompressible data is stored raw: never larger than raw */
		if (!ZSTD_isError(z) && z < raw) {
			payload = w->zbuf;
			stored = (uint32_t)z;
			flags = HWT_BF_ZSTD;
		}
	}
	err = put_block(w, HWT_BLOCK_RECORDS, flags, cpu, b->n, payload, stored, raw);
	if (err)
		return err;
	w->records += b->n;
	b->n = 0;
	return 0;
}

static int flush_names(struct hwt_writer *w)
{
	int err;

	if (!w->names_count)
		return 0;
	err = put_block(w, HWT_BLOCK_NAMES, 0, UINT32_MAX, w->names_count,
			w->names, (uint32_t)w->names_len, (uint32_t)w->names_len);
	if (err)
		return err;
	w->names_len = 0;
	w->names_count = 0;
	return 0;
}

/* The COUNTERS payload: header, CPUs, then the net counters if any. */
static size_t counters_size(const struct hwt_writer *w)
{
	return sizeof(struct hwt_counters_header) +
	       (size_t)w->nr_cpus * sizeof(struct hwt_cpu_counters) +
	       (w->has_net ? (1 + HWT_NET_NR_COUNTERS) * sizeof(uint64_t) : 0);
}

static void put_net(uint8_t *p, const struct hwt_net_counters *net)
{
	const uint64_t v[HWT_NET_NR_COUNTERS] = {
		net->received, net->kept, net->end, net->malformed,
		net->foreign, net->over_cpus, net->over_memory, net->duplicate,
		net->late, net->missing, net->kernel_dropped,
	};
	uint64_t le = htole64(HWT_NET_NR_COUNTERS);

	memcpy(p, &le, sizeof(le));
	for (size_t i = 0; i < HWT_NET_NR_COUNTERS; i++) {
		le = htole64(v[i]);
		memcpy(p + (i + 1) * sizeof(le), &le, sizeof(le));
	}
}

static int flush_counters(struct hwt_writer *w)
{
	size_t size = counters_size(w);
	struct hwt_counters_header *h;
	struct hwt_cpu_counters *c;
	int err;

	if (!w->counters_dirty)
		return 0;
	h = calloc(1, size);
	if (!h)
		return -ENOMEM;
	h->names_lost = htole64(w->names_lost);
	h->lost_nocpu = htole64(w->lost_nocpu);
	c = (struct hwt_cpu_counters *)(h + 1);
	for (uint32_t i = 0; i < w->nr_cpus; i++) {
		c[i].lost = htole64(w->lost[i]);
		c[i].overwritten = htole64(w->overwritten[i]);
	}
	if (w->has_net)
		put_net((uint8_t *)(c + w->nr_cpus), &w->net);
	err = put_block(w, HWT_BLOCK_COUNTERS, 0, UINT32_MAX, w->nr_cpus, h,
			(uint32_t)size, (uint32_t)size);
	free(h);
	if (!err)
		w->counters_dirty = 0;
	return err;
}

/* Make room for cpu in the per-CPU arrays (a UDP listener learns CPUs late). */
static int grow_cpus(struct hwt_writer *w, uint32_t nr)
{
	struct cpu_buf *cpus;
	uint64_t *lost, *ow;

	if (nr <= w->nr_cpus)
		return 0;
	if (nr > HWT_FILE_MAX_CPUS)
		return -EINVAL;
	cpus = realloc(w->cpus, nr * sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	w->cpus = cpus;
	lost = realloc(w->lost, nr * sizeof(*lost));
	if (!lost)
		return -ENOMEM;
	w->lost = lost;
	ow = realloc(w->overwritten, nr * sizeof(*ow));
	if (!ow)
		return -ENOMEM;
	w->overwritten = ow;
	for (uint32_t i = w->nr_cpus; i < nr; i++) {
		cpus[i].ev = NULL;
		cpus[i].n = 0;
		lost[i] = 0;
		ow[i] = 0;
	}
	w->nr_cpus = nr;
	w->counters_dirty = 1;
	return 0;
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	memset(dst, 0, size);
	if (n)
		memcpy(dst, src, n);
}

static int write_header(struct hwt_writer *w, const struct hwt_trace_info *info)
{
	struct hwt_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, HWT_FILE_MAGIC, HWT_FILE_MAGIC_LEN);
	h.endian = htole32(HWT_FILE_ENDIAN);
	h.version_major = htole16(HWT_FILE_VERSION_MAJOR);
	h.version_minor = htole16(HWT_FILE_VERSION_MINOR);
	h.header_size = htole32(HWT_FILE_HEADER_SIZE);
	h.nr_cpus = htole32(info->nr_cpus);
	h.clock = htole32(info->clock);
	h.families = htole32(info->families);
	h.chunk_mode = htole32(info->chunk_mode);
	h.flags = htole32((w->compress ? HWT_FH_COMPRESSED : 0) |
			  (w->recovery.recovered ? HWT_FH_RECOVERED : 0));
	if (w->recovery.recovered) {
		memcpy(h.boot_id, w->recovery.boot_id, sizeof(h.boot_id));
		h.crash = htole32(w->recovery.crash);
		h.crash_cpu = htole32(w->recovery.crash_cpu);
	}
	h.cycles_per_msec = htole64(info->cycles_per_msec);
	h.creation_time = (int64_t)htole64((uint64_t)info->creation_time);
	h.block_records = htole32(w->block_records);
	copy_str(h.kernel_release, sizeof(h.kernel_release), info->kernel_release);
	copy_str(h.hostname, sizeof(h.hostname), info->hostname);
	copy_str(h.backend, sizeof(h.backend), info->backend);
	copy_str(h.writer_version, sizeof(h.writer_version), hwt_version());
	h.header_crc = htole32(hwt_crc32(0, &h, offsetof(struct hwt_file_header,
							  header_crc)));
	w->err = write_all(w->fd, &h, sizeof(h));
	if (!w->err)
		w->bytes += sizeof(h);
	return w->err;
}

static void writer_free(struct hwt_writer *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->nr_cpus; i++)
		free(w->cpus[i].ev);
	free(w->cpus);
	free(w->lost);
	free(w->overwritten);
	free(w->names);
	free(w->zbuf);
	ZSTD_freeCCtx(w->cctx);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}

int hwt_writer_fdopen(struct hwt_writer **out, int fd,
		      const struct hwt_trace_info *info,
		      const struct hwt_writer_opts *opts)
{
	struct hwt_writer *w;
	int err;

	*out = NULL;
	if (!info || info->nr_cpus > HWT_FILE_MAX_CPUS || fd < 0)
		return hwt_err(-EINVAL);
	w = calloc(1, sizeof(*w));
	if (!w)
		return hwt_err(-ENOMEM);
	w->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (w->fd < 0) {
		err = -errno;
		goto err;
	}
	w->compress = HWT_OPT(opts, compress, 0);
	w->block_records = HWT_OPT(opts, block_records, 0);
	if (HWT_OPT(opts, recovery, NULL)) {
		w->recovery = *opts->recovery;
		w->recovery.recovered = 1;
	}
	if (!w->block_records)
		w->block_records = DEFAULT_BLOCK_RECORDS;
	err = -EINVAL;
	if (w->block_records > HWT_MAX_BLOCK_RECORDS || w->compress < 0 ||
	    w->compress > ZSTD_maxCLevel())
		goto err;
	if (w->compress) {
		err = -ENOMEM;
		w->cctx = ZSTD_createCCtx();
		w->zbuf_size = ZSTD_compressBound((size_t)w->block_records *
						  HWT_EVENT_SIZE);
		w->zbuf = malloc(w->zbuf_size);
		if (!w->cctx || !w->zbuf)
			goto err;
	}
	err = grow_cpus(w, info->nr_cpus ? info->nr_cpus : 1);
	if (err)
		goto err;
	err = write_header(w, info);
	if (err)
		goto err;
	*out = w;
	return 0;
err:
	writer_free(w);
	return hwt_err(err);
}

int hwt_writer_open(struct hwt_writer **out, const char *path,
		    const struct hwt_trace_info *info,
		    const struct hwt_writer_opts *opts)
{
	int fd, err;

	*out = NULL;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return hwt_err(-errno);
	err = hwt_writer_fdopen(out, fd, info, opts);
	close(fd);
	if (err)
		unlink(path);
	return err;
}

int hwt_writer_add(struct hwt_writer *w, uint32_t cpu,
		   const struct hwt_event *ev, size_t n)
{
	struct cpu_buf *b;
	int err;

	/* before cpu + 1, which wraps for UINT32_MAX (a UDP packet's say) */
	if (cpu >= HWT_FILE_MAX_CPUS)
		return hwt_err(-EINVAL);
	if (w->err)
		return hwt_err(w->err);
	err = grow_cpus(w, cpu + 1);
	if (err)
		return hwt_err(err);
	b = &w->cpus[cpu];
	if (!b->ev) {
		b->ev = malloc((size_t)w->block_records * sizeof(*b->ev));
		if (!b->ev)
			return hwt_err(-ENOMEM);
	}
	while (n) {
		size_t k = min(n, (size_t)(w->block_records - b->n));

		for (size_t i = 0; i < k; i++)
			hwt_event_to_le(&b->ev[b->n + i], &ev[i]);
		b->n += (uint32_t)k;
		ev += k;
		n -= k;
		if (b->n == w->block_records) {
			err = flush_cpu(w, cpu);
			if (err)
				return hwt_err(err);
		}
	}
	return 0;
}

static int add_name(struct hwt_writer *w, uint32_t kind, uint32_t id,
		    uint32_t tgid, const char *name)
{
	size_t len = name ? strnlen(name, HWT_MAX_NAME_LEN) : 0;
	size_t need = sizeof(struct hwt_name_entry) + ((len + 3) & ~(size_t)3);
	struct hwt_name_entry e = {
		.kind = htole32(kind),
		.id = htole32(id),
		.tgid = htole32(tgid),
		.len = htole16((uint16_t)len),
	};

	if (w->err)
		return hwt_err(w->err);
	if (w->names_len + need > w->names_cap) {
		size_t cap = max(w->names_cap * 2, (size_t)4096);
		uint8_t *p = realloc(w->names, cap);

		if (!p)
			return hwt_err(-ENOMEM);
		w->names = p;
		w->names_cap = cap;
	}
	memset(w->names + w->names_len, 0, need);
	memcpy(w->names + w->names_len, &e, sizeof(e));
	if (len)
		memcpy(w->names + w->names_len + sizeof(e), name, len);
	w->names_len += need;
	w->names_count++;
	if (w->names_len >= NAMES_FLUSH_BYTES)
		return hwt_err(flush_names(w));
	return 0;
}

int hwt_writer_add_task(struct hwt_writer *w, uint32_t pid, uint32_t tgid,
			const char *comm)
{
	return add_name(w, HWT_NAME_TASK, pid, tgid, comm);
}

int hwt_writer_add_irq(struct hwt_writer *w, uint32_t irq, const char *name)
{
	return add_name(w, HWT_NAME_IRQ, irq, 0, name);
}

int hwt_writer_set_lost(struct hwt_writer *w, uint32_t cpu, uint64_t lost,
			uint64_t overwritten)
{
	int err;

	if (cpu >= HWT_FILE_MAX_CPUS)	/* before cpu + 1 wraps */
		return hwt_err(-EINVAL);
	err = grow_cpus(w, cpu + 1);
	if (err)
		return hwt_err(err);
	if (w->lost[cpu] != lost || w->overwritten[cpu] != overwritten)
		w->counters_dirty = 1;
	w->lost[cpu] = lost;
	w->overwritten[cpu] = overwritten;
	return 0;
}

int hwt_writer_set_names_lost(struct hwt_writer *w, uint64_t names_lost)
{
	if (w->names_lost != names_lost)
		w->counters_dirty = 1;
	w->names_lost = names_lost;
	return 0;
}

int hwt_writer_set_lost_nocpu(struct hwt_writer *w, uint64_t lost)
{
	if (w->lost_nocpu != lost)
		w->counters_dirty = 1;
	w->lost_nocpu = lost;
	return 0;
}

int hwt_writer_set_net(struct hwt_writer *w, const struct hwt_net_counters *c)
{
	if (!w->has_net || memcmp(&w->net, c, sizeof(*c)))
		w->counters_dirty = 1;
	w->net = *c;
	w->has_net = 1;
	return 0;
}

/* What grow_cpus() keeps per CPU, and flush_counters() for a moment. */
#define CPU_ARRAYS_BYTES	(sizeof(struct cpu_buf) + 2 * sizeof(uint64_t) + \
				 sizeof(struct hwt_cpu_counters))

uint64_t hwt_writer_mem(const struct hwt_writer *w)
{
	uint64_t n = sizeof(*w) + (uint64_t)w->nr_cpus * CPU_ARRAYS_BYTES +
		     counters_size(w) - (uint64_t)w->nr_cpus *
		     sizeof(struct hwt_cpu_counters) + w->names_cap + w->zbuf_size +
		     ZSTD_sizeof_CCtx(w->cctx);

	for (uint32_t i = 0; i < w->nr_cpus; i++)
		if (w->cpus[i].ev)
			n += (uint64_t)w->block_records * HWT_EVENT_SIZE;
	return n;
}

uint64_t hwt_writer_cpu_cost(const struct hwt_writer *w, uint32_t cpu)
{
	uint64_t n = 0;

	if (cpu >= HWT_FILE_MAX_CPUS)
		return UINT64_MAX;
	/* realloc() may hold the old arrays and the new ones at once */
	if (cpu >= w->nr_cpus)
		n += (uint64_t)(cpu + 1) * CPU_ARRAYS_BYTES;
	if (cpu >= w->nr_cpus || !w->cpus[cpu].ev)
		n += (uint64_t)w->block_records * HWT_EVENT_SIZE;
	return n;
}

int hwt_writer_flush(struct hwt_writer *w)
{
	int err = w->err;

	for (uint32_t cpu = 0; !err && cpu < w->nr_cpus; cpu++)
		err = flush_cpu(w, cpu);
	if (!err)
		err = flush_names(w);
	if (!err)
		err = flush_counters(w);
	return hwt_err(err);
}

uint64_t hwt_writer_bytes(const struct hwt_writer *w)
{
	return w->bytes;
}

int hwt_writer_close(struct hwt_writer *w)
{
	struct hwt_end end;
	int err;

	if (!w)
		return 0;
	/* the last COUNTERS block is the final word, even if nothing changed */
	w->counters_dirty = 1;
	err = hwt_writer_flush(w);
	if (!err) {
		end.records = htole64(w->records);
		end.blocks = htole64(w->blocks);
		err = put_block(w, HWT_BLOCK_END, 0, UINT32_MAX, 0, &end,
				sizeof(end), sizeof(end));
	}
	if (!err && close(w->fd) && errno != EINTR)
		err = -errno;
	w->fd = -1;
	writer_free(w);
	return hwt_err(err);
}

void hwt_writer_abort(struct hwt_writer *w)
{
	writer_free(w);
}
