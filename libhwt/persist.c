// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The persist= area after a reboot: check its header and turn its rings and
 * names into a .hwt file.  The area is untrusted memory (a torn write, a
 * cold boot's garbage): every offset and count is checked against its size
 * before it is used.
 */
#include <stdlib.h>

#include "file_fmt.h"
#include "internal.h"

static uint32_t header_crc(const struct hwt_persist_header *h)
{
	return hwt_crc32(0, h, offsetof(struct hwt_persist_header, header_crc));
}

static int layout_fits(const struct hwt_persist_header *h, size_t size)
{
	uint64_t rings;

	if (h->header_size != sizeof(*h) || h->size != size || !h->nr_cpus ||
	    h->nr_cpus > HWT_FILE_MAX_CPUS || h->page_size < sizeof(struct hwt_ring_meta) ||
	    h->names_offset < sizeof(*h) || h->names_offset > size ||
	    h->names_max > (size - h->names_offset) / sizeof(struct hwt_name) ||
	    h->ring_offset > size || h->ring_stride < h->page_size ||
	    !h->nr_slots ||
	    h->nr_slots > (h->ring_stride - h->page_size) / HWT_EVENT_SIZE)
		return 0;
	rings = (uint64_t)h->nr_cpus * h->ring_stride;
	return rings / h->nr_cpus == h->ring_stride && rings <= size - h->ring_offset;
}

int hwt_persist_check(const void *area, size_t size,
		      const struct hwt_persist_header **hdr)
{
	const struct hwt_persist_header *h = area;

	*hdr = NULL;
	if (!area || size < sizeof(*h) || h->magic != HWT_PERSIST_MAGIC)
		return hwt_err(-ENODATA);
	if (h->version != HWT_PERSIST_VERSION)
		return hwt_err(-EPROTONOSUPPORT);
	if (h->header_crc != header_crc(h) || !layout_fits(h, size))
		return hwt_err(-EBADMSG);
	*hdr = h;
	return 0;
}

/* One ring, oldest first; 1 if its counters are damaged. */
static int write_ring(const struct hwt_persist_header *h, const uint8_t *base,
		      uint32_t cpu, struct hwt_writer *w, struct hwt_event *buf,
		      uint64_t *records)
{
	const struct hwt_ring_meta *m = (const void *)(base + h->ring_offset +
						       (uint64_t)cpu * h->ring_stride);
	const struct hwt_event *data = (const void *)((const uint8_t *)m + h->page_size);
	uint64_t n = h->nr_slots, span = 2 * n, head = m->data_head, pos;
	uint64_t count = min(m->written, n);
	int err;

	*records = 0;
	if (head >= span) {
		pr_warn("persistent area: CPU %u's ring position %llu is outside its %llu slots: ring left out\n",
			cpu, (unsigned long long)head, (unsigned long long)n);
		return 1;
	}
	pos = (head + span - count) % span;
	for (uint64_t i = 0; i < count; i++) {
		buf[i] = data[pos < n ? pos : pos - n];
		pos = pos + 1 == span ? 0 : pos + 1;
	}
	err = hwt_writer_add(w, cpu, buf, count);
	if (!err)
		err = hwt_writer_set_lost(w, cpu, m->lost, m->overwritten);
	if (err)
		return err;
	*records = count;
	return 0;
}

static int write_names(const struct hwt_persist_header *h, const uint8_t *base,
		       struct hwt_writer *w)
{
	const struct hwt_name *names = (const void *)(base + h->names_offset);
	uint64_t total = h->names_written, count;
	char name[HWT_NAME_LEN + 1];
	int err = 0;

	if (!h->names_max)
		return 0;
	count = min(total, h->names_max);
	for (uint64_t i = total - count; i < total && !err; i++) {
		const struct hwt_name *e = &names[i % h->names_max];

		memcpy(name, e->name, HWT_NAME_LEN);
		name[HWT_NAME_LEN] = '\0';
		if (e->kind == HWT_NAME_TASK)
			err = hwt_writer_add_task(w, e->id, e->tgid, name);
		else if (e->kind == HWT_NAME_IRQ)
			err = hwt_writer_add_irq(w, e->id, name);
	}
	return err;
}

int hwt_persist_write(const void *area, size_t size, struct hwt_writer *w,
		      uint64_t *records)
{
	const struct hwt_persist_header *h;
	struct hwt_event *buf;
	int err, partial = 0;

	err = hwt_persist_check(area, size, &h);
	if (err)
		return err;
	buf = malloc((size_t)h->nr_slots * sizeof(*buf));
	if (!buf)
		return hwt_err(-ENOMEM);
	for (uint32_t cpu = 0; cpu < h->nr_cpus; cpu++) {
		uint64_t n;

		err = write_ring(h, area, cpu, w, buf, &n);
		if (records)
			records[cpu] = n;
		if (err < 0)
			goto out;
		partial |= err;
	}
	err = write_names(h, area, w);
out:
	free(buf);
	if (err)
		return hwt_err(err);
	return partial ? HWT_PARTIAL : 0;
}
