// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * .hwt reader: index on open, records on demand, k-way merge over CPUs.
 *
 * open() reads the file header and walks the block headers, seeking over
 * record payloads: the result is, per CPU, the list of its RECORDS blocks
 * (offset, sizes, count).  NAMES and COUNTERS payloads are small and are
 * loaded then.  The walk stops at the END block, at the end of the file
 * (truncated: no END block), or at a block header that fails its CRC (the
 * length in it cannot be trusted, so nothing after it can be found).
 *
 * Reading holds one decoded block per CPU.  A min-heap of the CPU cursors,
 * keyed by (timestamp, cpu), yields the records of all CPUs in time order.
 * Each cursor only ever exposes its next record, so a CPU whose records go
 * backwards in time keeps its own file order instead of confusing the heap.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"
#include "file_fmt.h"

struct block_ref {
	uint64_t offset;		/* of the payload */
	uint32_t stored;
	uint32_t count;			/* whole records available */
	uint32_t crc;
	uint16_t flags;
	uint8_t partial;		/* cut off: count < header's, no CRC check */
	uint8_t verified;		/* CRC matched once: a rewind skips it */
};

struct cursor {
	uint32_t cpu;
	struct block_ref *blocks;
	size_t nr_blocks, cap_blocks;
	uint64_t records;
	size_t next_block;		/* to load when buf runs out */
	struct hwt_event *buf;		/* host order, one block */
	size_t buf_cap;
	uint32_t n, pos;
	struct hwt_record cur;		/* valid while in the heap */
};

struct irq_name {
	uint32_t irq;
	uint32_t seq;
	char *name;
};

struct task_ent {
	struct hwt_task t;
	uint32_t seq;
};

struct hwt_reader {
	int fd;
	int no_crc;			/* HWT_READER_NO_CRC */
	uint64_t size;
	int status;
	struct hwt_trace_info info;
	uint64_t *lost;
	uint64_t *overwritten;
	struct hwt_net_counters net;	/* info.net points here if the file has them */

	struct cursor *cpus;		/* [info.nr_cpus] */
	struct cursor **heap;
	size_t heap_n;
	struct cursor *rival;		/* the smaller child of heap[0], or NULL */
	int started;

	struct task_ent *tasks;
	size_t nr_tasks, cap_tasks;
	struct irq_name *irqs;
	size_t nr_irqs, cap_irqs;
	uint32_t name_seq;

	void *zbuf;			/* stored payload of a compressed block */
	size_t zbuf_cap;
	ZSTD_DCtx *dctx;
	uint64_t buf_bytes;		/* cursor buffers, all CPUs */
};

static int read_at(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
	char *p = buf;

	*got = 0;
	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
		*got += (size_t)n;
	}
	return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = max(*cap * 2, (size_t)16);
	if (ncap < need)
		ncap = need;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* CPUs are learnt from the header, COUNTERS and RECORDS blocks alike. */
static int set_nr_cpus(struct hwt_reader *r, uint32_t nr)
{
	void *p;

	if (nr <= r->info.nr_cpus)
		return 0;
	if (nr > HWT_FILE_MAX_CPUS)
		return -EBADMSG;
	p = realloc(r->cpus, nr * sizeof(*r->cpus));
	if (!p)
		return -ENOMEM;
	r->cpus = p;
	memset(r->cpus + r->info.nr_cpus, 0,
	       (nr - r->info.nr_cpus) * sizeof(*r->cpus));
	for (uint32_t i = r->info.nr_cpus; i < nr; i++)
		r->cpus[i].cpu = i;
	p = realloc(r->lost, nr * sizeof(*r->lost));
	if (!p)
		return -ENOMEM;
	r->lost = p;
	p = realloc(r->overwritten, nr * sizeof(*r->overwritten));
	if (!p)
		return -ENOMEM;
	r->overwritten = p;
	for (uint32_t i = r->info.nr_cpus; i < nr; i++) {
		r->lost[i] = 0;
		r->overwritten[i] = 0;
	}
	r->info.nr_cpus = nr;
	return 0;
}

static void copy_field(char *dst, size_t dsize, const char *src, size_t ssize)
{
	size_t n = strnlen(src, ssize);

	if (n >= dsize)
		n = dsize - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int read_header(struct hwt_reader *r)
{
	struct hwt_file_header h;
	size_t got;
	int err;

	err = read_at(r->fd, &h, sizeof(h), 0, &got);
	if (err)
		return err;
	if (got < HWT_FILE_MAGIC_LEN || memcmp(h.magic, HWT_FILE_MAGIC,
					       HWT_FILE_MAGIC_LEN)) {
		pr_warn("not a .hwt trace file (bad magic)\n");
		return -EBADMSG;
	}
	if (got < sizeof(h)) {
		pr_warn("file header cut off at %zu of %d bytes\n", got,
			HWT_FILE_HEADER_SIZE);
		return -EBADMSG;
	}
	if (le32toh(h.endian) != HWT_FILE_ENDIAN) {
		pr_warn("byte order marker is 0x%08x, not 0x%08x: not written by a conforming writer\n",
			le32toh(h.endian), HWT_FILE_ENDIAN);
		return -EBADMSG;
	}
	if (le16toh(h.version_major) != HWT_FILE_VERSION_MAJOR) {
		pr_warn("file format version %u.%u, this libhwt reads %u.x\n",
			le16toh(h.version_major), le16toh(h.version_minor),
			HWT_FILE_VERSION_MAJOR);
		return -EPROTONOSUPPORT;
	}
	if (!r->no_crc &&
	    hwt_crc32(0, &h, offsetof(struct hwt_file_header, header_crc)) !=
	    le32toh(h.header_crc)) {
		pr_warn("file header checksum mismatch: corrupt header\n");
		return -EBADMSG;
	}
	if (le32toh(h.header_size) != HWT_FILE_HEADER_SIZE ||
	    le32toh(h.nr_cpus) > HWT_FILE_MAX_CPUS) {
		pr_warn("file header: impossible header size or CPU count\n");
		return -EBADMSG;
	}
	err = set_nr_cpus(r, le32toh(h.nr_cpus));
	if (err)
		return err;
	r->info.clock = le32toh(h.clock);
	r->info.families = le32toh(h.families);
	r->info.chunk_mode = le32toh(h.chunk_mode);
	r->info.cycles_per_msec = le64toh(h.cycles_per_msec);
	r->info.creation_time = (int64_t)le64toh((uint64_t)h.creation_time);
	copy_field(r->info.kernel_release, sizeof(r->info.kernel_release),
		   h.kernel_release, sizeof(h.kernel_release));
	copy_field(r->info.hostname, sizeof(r->info.hostname), h.hostname,
		   sizeof(h.hostname));
	copy_field(r->info.backend, sizeof(r->info.backend), h.backend,
		   sizeof(h.backend));
	if (le32toh(h.flags) & HWT_FH_RECOVERED) {
		r->info.recovery.recovered = 1;
		r->info.recovery.crash = le32toh(h.crash);
		r->info.recovery.crash_cpu = le32toh(h.crash_cpu);
		memcpy(r->info.recovery.boot_id, h.boot_id, sizeof(h.boot_id));
	}
	copy_field(r->info.writer_version, sizeof(r->info.writer_version),
		   h.writer_version, sizeof(h.writer_version));
	return 0;
}

static int add_task(struct hwt_reader *r, uint32_t pid, uint32_t tgid,
		    const char *name, size_t len)
{
	struct task_ent *t;

	if (grow((void **)&r->tasks, &r->cap_tasks, r->nr_tasks + 1, sizeof(*t)))
		return -ENOMEM;
	t = &r->tasks[r->nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->t.pid = pid;
	t->t.tgid = tgid;
	memcpy(t->t.comm, name, min(len, sizeof(t->t.comm) - 1));
	t->seq = r->name_seq++;
	return 0;
}

static int add_irq(struct hwt_reader *r, uint32_t irq, const char *name,
		   size_t len)
{
	struct irq_name *q;

	if (grow((void **)&r->irqs, &r->cap_irqs, r->nr_irqs + 1, sizeof(*q)))
		return -ENOMEM;
	q = &r->irqs[r->nr_irqs];
	q->irq = irq;
	q->seq = r->name_seq++;
	q->name = strndup(name, len);
	if (!q->name)
		return -ENOMEM;
	r->nr_irqs++;
	return 0;
}

static int parse_names(struct hwt_reader *r, const uint8_t *p, size_t len,
		       uint32_t count)
{
	size_t off = 0;
	int err = 0;

	for (uint32_t i = 0; i < count && !err; i++) {
		struct hwt_name_entry e;
		size_t nlen;

		if (len - off < sizeof(e))
			return -EBADMSG;
		memcpy(&e, p + off, sizeof(e));
		off += sizeof(e);
		nlen = le16toh(e.len);
		if (nlen > HWT_MAX_NAME_LEN || len - off < ((nlen + 3) & ~(size_t)3))
			return -EBADMSG;
		if (le32toh(e.kind) == HWT_NAME_TASK)
			err = add_task(r, le32toh(e.id), le32toh(e.tgid),
				       (const char *)p + off, nlen);
		else if (le32toh(e.kind) == HWT_NAME_IRQ)
			err = add_irq(r, le32toh(e.id), (const char *)p + off, nlen);
		/* other kinds: a newer minor version's, skipped */
		off += (nlen + 3) & ~(size_t)3;
	}
	return err;
}

/*
 * A UDP receiver's counters after the CPUs (minor 1): u64 nr, nr values.
 * Fewer than we know (an older writer) leave the rest 0; more (a newer
 * one) are skipped.
 */
static int parse_net(struct hwt_reader *r, const uint8_t *p, size_t len)
{
	uint64_t v[HWT_NET_NR_COUNTERS] = { 0 };
	uint64_t nr;

	if (!len)
		return 0;
	if (len < sizeof(nr))
		return -EBADMSG;
	memcpy(&nr, p, sizeof(nr));
	nr = le64toh(nr);
	if (nr > (len - sizeof(nr)) / sizeof(uint64_t))
		return -EBADMSG;
	for (uint64_t i = 0; i < nr && i < HWT_NET_NR_COUNTERS; i++) {
		memcpy(&v[i], p + (i + 1) * sizeof(uint64_t), sizeof(v[i]));
		v[i] = le64toh(v[i]);
	}
	r->net = (struct hwt_net_counters) {
		.received = v[0], .kept = v[1], .end = v[2], .malformed = v[3],
		.foreign = v[4], .over_cpus = v[5], .over_memory = v[6],
		.duplicate = v[7], .late = v[8], .missing = v[9],
		.kernel_dropped = v[10],
	};
	r->info.net = &r->net;
	return 0;
}

static int parse_counters(struct hwt_reader *r, const uint8_t *p, size_t len,
			  uint32_t count)
{
	struct hwt_counters_header h;
	int err;

	if (len < sizeof(h) ||
	    (len - sizeof(h)) / sizeof(struct hwt_cpu_counters) < count)
		return -EBADMSG;
	err = set_nr_cpus(r, count);
	if (err)
		return err;
	memcpy(&h, p, sizeof(h));
	r->info.names_lost = le64toh(h.names_lost);
	r->info.lost_nocpu = le64toh(h.lost_nocpu);
	p += sizeof(h);
	/* totals, not increments: the last block wins */
	for (uint32_t i = 0; i < count; i++) {
		struct hwt_cpu_counters c;

		memcpy(&c, p + i * sizeof(c), sizeof(c));
		r->lost[i] = le64toh(c.lost);
		r->overwritten[i] = le64toh(c.overwritten);
	}
	return parse_net(r, p + (size_t)count * sizeof(struct hwt_cpu_counters),
			 len - sizeof(h) - (size_t)count * sizeof(struct hwt_cpu_counters));
}

static int add_block(struct hwt_reader *r, uint32_t cpu, const struct block_ref *b)
{
	struct cursor *c;
	int err = set_nr_cpus(r, cpu + 1);

	if (err)
		return err;
	c = &r->cpus[cpu];
	if (grow((void **)&c->blocks, &c->cap_blocks, c->nr_blocks + 1,
		 sizeof(*b)))
		return -ENOMEM;
	c->blocks[c->nr_blocks++] = *b;
	c->records += b->count;
	r->info.nr_records += b->count;
	return 0;
}

/* A NAMES or COUNTERS payload, read and checked now. */
static int load_meta(struct hwt_reader *r, const struct hwt_block_header *h,
		     uint64_t off)
{
	uint32_t stored = le32toh(h->stored_size);
	uint8_t *p;
	size_t got;
	int err;

	p = malloc(stored ? stored : 1);
	if (!p)
		return -ENOMEM;
	err = read_at(r->fd, p, stored, off, &got);
	if (err)
		goto out;
	if (!r->no_crc && hwt_crc32(0, p, stored) != le32toh(h->payload_crc)) {
		pr_warn("block at offset %llu: payload checksum mismatch, skipped\n",
			(unsigned long long)(off - sizeof(*h)));
		r->status |= HWT_READ_CORRUPT;
		goto out;
	}
	if (le16toh(h->type) == HWT_BLOCK_NAMES)
		err = parse_names(r, p, stored, le32toh(h->count));
	else
		err = parse_counters(r, p, stored, le32toh(h->count));
	if (err == -EBADMSG) {
		pr_warn("block at offset %llu: malformed payload, skipped\n",
			(unsigned long long)(off - sizeof(*h)));
		r->status |= HWT_READ_CORRUPT;
		err = 0;
	}
out:
	free(p);
	return err;
}

static int check_block(const struct hwt_block_header *h, uint32_t nr_cpus_max,
		       int no_crc)
{
	uint16_t type = le16toh(h->type);
	uint32_t count = le32toh(h->count);
	uint32_t stored = le32toh(h->stored_size);
	uint32_t raw = le32toh(h->raw_size);
	uint16_t flags = le16toh(h->flags);

	if (le32toh(h->magic) != HWT_BLOCK_MAGIC ||
	    (!no_crc &&
	     hwt_crc32(0, h, offsetof(struct hwt_block_header, header_crc)) !=
	     le32toh(h->header_crc)))
		return -EBADMSG;
	switch (type) {
	case HWT_BLOCK_RECORDS:
		if (le32toh(h->cpu) >= nr_cpus_max || !count ||
		    count > HWT_MAX_BLOCK_RECORDS ||
		    raw != count * HWT_EVENT_SIZE || flags & ~HWT_BF_ZSTD ||
		    (!(flags & HWT_BF_ZSTD) && stored != raw) ||
		    stored > ZSTD_compressBound(raw))
			return -EBADMSG;
		return 0;
	case HWT_BLOCK_NAMES:
	case HWT_BLOCK_COUNTERS:
	case HWT_BLOCK_END:
		if (flags || stored != raw || stored > HWT_MAX_META_PAYLOAD)
			return -EBADMSG;
		return 0;
	default:
		/* a newer minor version's block: skippable if sane */
		return stored > HWT_MAX_META_PAYLOAD ? -EBADMSG : 0;
	}
}

static int scan(struct hwt_reader *r)
{
	uint64_t off = HWT_FILE_HEADER_SIZE;
	struct hwt_block_header h;
	struct block_ref b;
	uint64_t blocks = 0;
	size_t got;
	int err;

	for (;;) {
		uint32_t stored;
		uint16_t type;

		err = read_at(r->fd, &h, sizeof(h), off, &got);
		if (err)
			return err;
		if (got < sizeof(h)) {
			pr_warn("no end block: the file was cut off at offset %llu (crash, full disk or kill); reading up to its last whole record\n",
				(unsigned long long)(off + got));
			r->status |= HWT_READ_TRUNCATED;
			return 0;
		}
		if (check_block(&h, HWT_FILE_MAX_CPUS, r->no_crc)) {
			pr_warn("corrupt block header at offset %llu: reading stops there\n",
				(unsigned long long)off);
			r->status |= HWT_READ_CORRUPT | HWT_READ_TRUNCATED;
			return 0;
		}
		type = le16toh(h.type);
		stored = le32toh(h.stored_size);
		off += sizeof(h);
		if (stored > r->size - min(off, r->size)) {
			uint64_t avail = r->size - min(off, r->size);

			pr_warn("block at offset %llu cut off (%llu of %u payload bytes): reading up to its last whole record\n",
				(unsigned long long)(off - sizeof(h)),
				(unsigned long long)avail, stored);
			r->status |= HWT_READ_TRUNCATED;
			/* raw records are readable up to the cut; a zstd frame is not */
			if (type == HWT_BLOCK_RECORDS &&
			    !(le16toh(h.flags) & HWT_BF_ZSTD) &&
			    avail >= HWT_EVENT_SIZE) {
				memset(&b, 0, sizeof(b));
				b.offset = off;
				b.count = (uint32_t)(avail / HWT_EVENT_SIZE);
				b.stored = b.count * HWT_EVENT_SIZE;
				b.partial = 1;
				return add_block(r, le32toh(h.cpu), &b);
			}
			return 0;
		}
		switch (type) {
		case HWT_BLOCK_RECORDS:
			memset(&b, 0, sizeof(b));
			b.offset = off;
			b.stored = stored;
			b.count = le32toh(h.count);
			b.crc = le32toh(h.payload_crc);
			b.flags = le16toh(h.flags);
			err = add_block(r, le32toh(h.cpu), &b);
			break;
		case HWT_BLOCK_NAMES:
		case HWT_BLOCK_COUNTERS:
			err = load_meta(r, &h, off);
			break;
		case HWT_BLOCK_END:
			if (off + stored < r->size)
				pr_warn("%llu bytes after the end block ignored\n",
					(unsigned long long)(r->size - off - stored));
			return 0;
		default:
			pr_debug("block type %u at offset %llu skipped\n", type,
				 (unsigned long long)(off - sizeof(h)));
			break;
		}
		if (err)
			return err;
		off += stored;
		blocks++;
	}
}

static int cmp_task(const void *a, const void *b)
{
	const struct task_ent *x = a, *y = b;

	if (x->t.pid != y->t.pid)
		return x->t.pid < y->t.pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_irq(const void *a, const void *b)
{
	const struct irq_name *x = a, *y = b;

	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort names by id; of several for one id, the last written wins. */
static void index_names(struct hwt_reader *r)
{
	size_t i, n;

	if (r->nr_tasks) {
		qsort(r->tasks, r->nr_tasks, sizeof(*r->tasks), cmp_task);
		for (i = 1, n = 0; i < r->nr_tasks; i++) {
			if (r->tasks[i].t.pid != r->tasks[n].t.pid)
				n++;
			r->tasks[n] = r->tasks[i];
		}
		r->nr_tasks = n + 1;
	}
	if (r->nr_irqs) {
		qsort(r->irqs, r->nr_irqs, sizeof(*r->irqs), cmp_irq);
		for (i = 1, n = 0; i < r->nr_irqs; i++) {
			if (r->irqs[i].irq != r->irqs[n].irq)
				n++;
			else
				free(r->irqs[n].name);
			r->irqs[n] = r->irqs[i];
		}
		r->nr_irqs = n + 1;
	}
}

void hwt_reader_close(struct hwt_reader *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->info.nr_cpus; i++) {
		free(r->cpus[i].blocks);
		free(r->cpus[i].buf);
	}
	for (size_t i = 0; i < r->nr_irqs; i++)
		free(r->irqs[i].name);
	free(r->irqs);
	free(r->tasks);
	free(r->cpus);
	free(r->heap);
	free(r->lost);
	free(r->overwritten);
	free(r->zbuf);
	ZSTD_freeDCtx(r->dctx);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

int hwt_reader_fdopen(struct hwt_reader **out, int fd,
		      const struct hwt_reader_opts *opts)
{
	struct hwt_reader *r;
	struct stat st;
	int err;

	*out = NULL;
	if (HWT_OPT(opts, flags, 0) & ~HWT_READER_NO_CRC)
		return hwt_err(-EINVAL);
	r = calloc(1, sizeof(*r));
	if (!r)
		return hwt_err(-ENOMEM);
	r->no_crc = !!(HWT_OPT(opts, flags, 0) & HWT_READER_NO_CRC);
	r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (r->fd < 0) {
		err = -errno;
		goto err;
	}
	if (fstat(r->fd, &st)) {
		err = -errno;
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;	/* the index needs a seekable file */
		goto err;
	}
	r->size = (uint64_t)st.st_size;
	err = read_header(r);
	if (err)
		goto err;
	err = scan(r);
	if (err)
		goto err;
	index_names(r);
	r->heap = calloc(r->info.nr_cpus ? r->info.nr_cpus : 1, sizeof(*r->heap));
	if (!r->heap) {
		err = -ENOMEM;
		goto err;
	}
	r->info.lost = r->lost;
	r->info.overwritten = r->overwritten;
	*out = r;
	return r->status ? HWT_PARTIAL : 0;
err:
	hwt_reader_close(r);
	return hwt_err(err);
}

int hwt_reader_open(struct hwt_reader **out, const char *path,
		    const struct hwt_reader_opts *opts)
{
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hwt_err(-errno);
	err = hwt_reader_fdopen(out, fd, opts);
	close(fd);
	return err;
}

int hwt_reader_status(const struct hwt_reader *r)
{
	return r->status;
}

const struct hwt_trace_info *hwt_reader_info(const struct hwt_reader *r)
{
	return &r->info;
}

uint64_t hwt_reader_cpu_records(const struct hwt_reader *r, uint32_t cpu)
{
	return cpu < r->info.nr_cpus ? r->cpus[cpu].records : 0;
}

const struct hwt_task *hwt_reader_task(const struct hwt_reader *r, uint32_t pid)
{
	size_t lo = 0, hi = r->nr_tasks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->tasks[mid].t.pid == pid)
			return &r->tasks[mid].t;
		if (r->tasks[mid].t.pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct hwt_task *hwt_reader_task_at(const struct hwt_reader *r, size_t i)
{
	return i < r->nr_tasks ? &r->tasks[i].t : NULL;
}

const char *hwt_reader_irq_name(const struct hwt_reader *r, uint32_t irq)
{
	size_t lo = 0, hi = r->nr_irqs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->irqs[mid].irq == irq)
			return r->irqs[mid].name;
		if (r->irqs[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Read and decode one block into c->buf; -EBADMSG: skip it.  A block's CRC
 * is checked the first time it is read: a converter's second pass (after a
 * rewind) reads the same bytes again.
 */
static int load_block(struct hwt_reader *r, struct cursor *c,
		      struct block_ref *b)
{
	size_t raw = (size_t)b->count * HWT_EVENT_SIZE;
	void *dst;
	size_t got;
	int err;

	if (b->count > c->buf_cap) {
		uint64_t old = (uint64_t)c->buf_cap * sizeof(*c->buf);
		uint64_t need = (uint64_t)b->count * sizeof(*c->buf);

		if (r->buf_bytes - old + need > HWT_READER_MEM_LIMIT) {
			pr_warn("CPU %u: decoded blocks would exceed %llu MiB: giving up\n",
				c->cpu, HWT_READER_MEM_LIMIT >> 20);
			return -ENOMEM;
		}
		free(c->buf);
		r->buf_bytes -= old;
		c->buf_cap = 0;
		c->buf = malloc(need);
		if (!c->buf)
			return -ENOMEM;
		c->buf_cap = b->count;
		r->buf_bytes += need;
	}
	if (!(b->flags & HWT_BF_ZSTD)) {
		dst = c->buf;
		err = read_at(r->fd, dst, b->stored, b->offset, &got);
		if (err)
			return err;
		if (got < b->stored)
			return -EBADMSG;	/* the file shrank under us */
		if (!b->partial && !r->no_crc && !b->verified) {
			if (hwt_crc32(0, dst, b->stored) != b->crc)
				return -EBADMSG;
			b->verified = 1;
		}
	} else {
		if (grow(&r->zbuf, &r->zbuf_cap, b->stored, 1))
			return -ENOMEM;
		if (!r->dctx) {
			r->dctx = ZSTD_createDCtx();
			if (!r->dctx)
				return -ENOMEM;
		}
		err = read_at(r->fd, r->zbuf, b->stored, b->offset, &got);
		if (err)
			return err;
		if (got < b->stored)
			return -EBADMSG;
		if (!r->no_crc && !b->verified) {
			if (hwt_crc32(0, r->zbuf, b->stored) != b->crc)
				return -EBADMSG;
			b->verified = 1;
		}
		got = ZSTD_decompressDCtx(r->dctx, c->buf, raw, r->zbuf, b->stored);
		if (ZSTD_isError(got) || got != raw)
			return -EBADMSG;
	}
	for (uint32_t i = 0; i < b->count; i++)
		hwt_event_from_le(&c->buf[i], &c->buf[i]);
	c->n = b->count;
	c->pos = 0;
	return 0;
}

/* Load c's next block (skipping bad ones): 1, 0 at its end, or an error. */
static int cursor_refill(struct hwt_reader *r, struct cursor *c)
{
	int err;

	while (c->pos >= c->n) {
		struct block_ref *b;

		if (c->next_block >= c->nr_blocks) {
			/* done with this CPU: give its buffer back */
			r->buf_bytes -= (uint64_t)c->buf_cap * sizeof(*c->buf);
			free(c->buf);
			c->buf = NULL;
			c->buf_cap = 0;
			return 0;
		}
		b = &c->blocks[c->next_block++];
		err = load_block(r, c, b);
		if (err == -EBADMSG) {
			pr_warn("CPU %u: block at offset %llu failed its checksum or would not decompress: %u records skipped\n",
				c->cpu, (unsigned long long)(b->offset -
							   sizeof(struct hwt_block_header)),
				b->count);
			r->status |= HWT_READ_CORRUPT;
			c->n = c->pos = 0;
			continue;
		}
		if (err)
			return err;
	}
	return 1;
}

/* Move c to its next record: 1 if it has one, 0 at its end, or an error. */
static inline int cursor_advance(struct hwt_reader *r, struct cursor *c)
{
	const struct hwt_event *e;

	if (c->pos >= c->n) {
		int ret = cursor_refill(r, c);

		if (ret <= 0)
			return ret;
	}
	e = &c->buf[c->pos++];
	c->cur.ev = *e;
	c->cur.ts = HWT_EVENT_TSC(e);
	return 1;
}

static inline int before(const struct cursor *a, const struct cursor *b)
{
	if (a->cur.ts != b->cur.ts)
		return a->cur.ts < b->cur.ts;
	return a->cpu < b->cpu;
}

static void sift_down(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cursor *t;

		if (l < n && before(h[l], h[m]))
			m = l;
		if (l + 1 < n && before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* The cursor heap[0] has to stay ahead of: the smaller of its children. */
static void set_rival(struct hwt_reader *r)
{
	struct cursor **h = r->heap;

	if (r->heap_n < 2)
		r->rival = NULL;
	else if (r->heap_n == 2 || before(h[1], h[2]))
		r->rival = h[1];
	else
		r->rival = h[2];
}

static int start(struct hwt_reader *r)
{
	int ret;

	r->heap_n = 0;
	for (uint32_t i = 0; i < r->info.nr_cpus; i++) {
		struct cursor *c = &r->cpus[i];

		c->next_block = 0;
		c->n = c->pos = 0;
		c->cur.cpu = c->cpu;
		c->cur.reserved = 0;
		ret = cursor_advance(r, c);
		if (ret < 0)
			return ret;
		if (ret)
			r->heap[r->heap_n++] = c;
	}
	for (size_t i = r->heap_n / 2; i-- > 0;)
		sift_down(r->heap, r->heap_n, i);
	set_rival(r);
	r->started = 1;
	return 0;
}

/*
 * A CPU's records usually come in runs (a block, a burst of events): while
 * the top cursor stays ahead of its rival, the heap is left alone.  The
 * cursors' keys (ts, cpu) never tie, so the order is the heap's exactly.
 */
int hwt_reader_next(struct hwt_reader *r, struct hwt_record *rec)
{
	struct cursor *c;
	int ret;

	if (!r->started) {
		ret = start(r);
		if (ret)
			return hwt_err(ret);
	}
	if (!r->heap_n)
		return 0;
	c = r->heap[0];
	*rec = c->cur;
	ret = cursor_advance(r, c);
	if (ret < 0)
		return hwt_err(ret);
	if (ret && (!r->rival || before(c, r->rival)))
		return 1;
	if (!ret)
		r->heap[0] = r->heap[--r->heap_n];
	sift_down(r->heap, r->heap_n, 0);
	set_rival(r);
	return 1;
}

int hwt_reader_rewind(struct hwt_reader *r)
{
	r->started = 0;
	r->heap_n = 0;
	return 0;
}

static int stream_next(void *ctx, struct hwt_record *rec)
{
	return hwt_reader_next(ctx, rec);
}

static int stream_rewind(void *ctx)
{
	return hwt_reader_rewind(ctx);
}

static const struct hwt_task *stream_task(void *ctx, uint32_t pid)
{
	return hwt_reader_task(ctx, pid);
}

static const char *stream_irq_name(void *ctx, uint32_t irq)
{
	return hwt_reader_irq_name(ctx, irq);
}

int hwt_reader_stream(struct hwt_reader *r, struct hwt_stream *s)
{
	memset(s, 0, sizeof(*s));
	s->info = &r->info;
	s->next = stream_next;
	s->rewind = stream_rewind;
	s->task = stream_task;
	s->irq_name = stream_irq_name;
	s->ctx = r;
	return 0;
}
