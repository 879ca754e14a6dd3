// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: any byte string read as a .hwt file and converted to
 * one format (picked by the input's last byte, so every converter and the
 * timing model are fuzzed).  Each must return 0 or an error; never crash,
 * leak or loop.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwt/conv.h>
#include <hwt/hwt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *const *formats = hwt_conv_formats();
	struct hwt_reader_opts nocrc = { .sz = sizeof(nocrc),
					 .flags = HWT_READER_NO_CRC };
	struct hwt_stream in;
	struct hwt_reader *r;
	size_t nformats = 0;
	FILE *out = NULL;
	int fd;

	hwt_set_print(NULL);
	while (formats[nformats])
		nformats++;
	fd = memfd_create("fuzz.hwt", MFD_CLOEXEC);
	if (fd < 0 || !size || write(fd, data, size) != (ssize_t)size)
		goto out;
	/* CRCs stop nearly every mutation at the door: mostly go without them */
	if (hwt_reader_fdopen(&r, fd, size & 3 ? &nocrc : NULL) < 0)
		goto out;
	out = fopen("/dev/null", "w");
	if (out && !hwt_reader_stream(r, &in))
		hwt_convert(formats[data[size - 1] % nformats], &in, out, NULL);
	if (out)
		fclose(out);
	hwt_reader_close(r);
out:
	if (fd >= 0)
		close(fd);
	return 0;
}
