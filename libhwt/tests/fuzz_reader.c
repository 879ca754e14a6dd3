// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: any byte string given to the .hwt reader.  It must
 * return an error or read records; never crash, leak or loop.
 */
#include <stdint.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwt/hwt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct hwt_trace_info *info;
	struct hwt_reader *r;
	struct hwt_record rec;
	struct hwt_reader_opts nocrc = { .sz = sizeof(nocrc),
					 .flags = HWT_READER_NO_CRC };
	int fd, pass;

	hwt_set_print(NULL);
	fd = memfd_create("fuzz.hwt", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		goto out;
	/* CRCs stop nearly every mutation at the door: also fuzz without them */
	if (hwt_reader_fdopen(&r, fd, size & 1 ? &nocrc : NULL) < 0)
		goto out;
	info = hwt_reader_info(r);
	for (uint32_t c = 0; c < info->nr_cpus; c++)
		(void)(info->lost[c] + info->overwritten[c] +
		       hwt_reader_cpu_records(r, c));
	for (pass = 0; pass < 2; pass++) {
		while (hwt_reader_next(r, &rec) == 1) {
			hwt_reader_task(r, rec.ev.par2);
			hwt_reader_irq_name(r, rec.ev.par1);
		}
		hwt_reader_rewind(r);
	}
	for (size_t i = 0; hwt_reader_task_at(r, i); i++)
		;
	hwt_reader_close(r);
out:
	if (fd >= 0)
		close(fd);
	return 0;
}
