// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: any datagram given to the S.Ha.R.K. UDP decoder (what
 * `hwtrace listen` takes from the network).  It must refuse it or decode
 * it, and whatever it decodes must encode back to the very same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwt/hwt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hwt_event ev[HWT_UDP_MAX_EVENTS];
	static uint8_t again[HWT_UDP_MAX_PACKET];
	struct hwt_udp_header hdr;
	uint32_t cpu = 0;
	size_t trailer;
	int n, len;

	hwt_set_print(NULL);
	n = hwt_udp_decode(data, size, &hdr, &cpu, ev);
	if (n < 0)
		return 0;
	if (n > HWT_UDP_MAX_EVENTS || (cpu >= HWT_UDP_MAX_CPUS && cpu != HWT_UDP_END))
		abort();
	/* a packet without the CPU trailer is S.Ha.R.K.'s own */
	trailer = size - HWT_UDP_HDR_SIZE - (size_t)n * HWT_EVENT_SIZE;
	if (cpu != HWT_UDP_END && !trailer)
		cpu = HWT_UDP_NO_CPU;
	len = hwt_udp_encode(again, sizeof(again), hdr.packet_number, cpu, ev,
			     (size_t)n);
	if (len < 0 || (size_t)len != size || memcmp(again, data, size))
		abort();
	return 0;
}
