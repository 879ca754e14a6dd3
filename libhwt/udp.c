// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * S.Ha.R.K.'s UDP trace packets: a 24-byte header {id "TRACER-V1.0",
 * packet_number, number_of_events, total_size}, then the records, at most
 * 1000 bytes a datagram; little-endian, as S.Ha.R.K. on x86 sent them.
 * hwtrace appends the CPU as a 4-byte trailer and ends a trace with an
 * end-of-trace packet (see hwt.h).
 */
#include "internal.h"
#include "file_fmt.h"

_Static_assert(sizeof(struct hwt_udp_header) == HWT_UDP_HDR_SIZE,
	       "S.Ha.R.K.'s UDP header is 24 bytes");
_Static_assert(HWT_UDP_MAX_CPUS == HWT_FILE_MAX_CPUS,
	       "a packet's CPU must fit in a .hwt file");

static const char udp_id[12] = HWT_UDP_ID;
static const char end_id[HWT_UDP_END_SIZE - HWT_UDP_HDR_SIZE] = HWT_UDP_END_ID;

static void put_header(void *buf, uint32_t packet_number, uint32_t n,
		       size_t size)
{
	struct hwt_udp_header h;

	memcpy(h.id, udp_id, sizeof(h.id));
	h.packet_number = htole32(packet_number);
	h.number_of_events = htole32(n);
	h.total_size = htole32((uint32_t)size);
	memcpy(buf, &h, sizeof(h));
}

static int encode_end(void *buf, size_t room, uint32_t packet_number)
{
	if (room < HWT_UDP_END_SIZE)
		return hwt_err(-EINVAL);
	put_header(buf, packet_number, 0, HWT_UDP_END_SIZE);
	memcpy((uint8_t *)buf + HWT_UDP_HDR_SIZE, end_id, sizeof(end_id));
	return HWT_UDP_END_SIZE;
}

int hwt_udp_encode(void *buf, size_t room, uint32_t packet_number,
		   uint32_t cpu, const struct hwt_event *ev, size_t n)
{
	size_t trailer = cpu == HWT_UDP_NO_CPU ? 0 : HWT_UDP_TRAILER_SIZE;
	size_t size = HWT_UDP_HDR_SIZE + n * HWT_EVENT_SIZE + trailer;
	uint8_t *p = buf;

	if (cpu == HWT_UDP_END && !n)
		return encode_end(buf, room, packet_number);
	if (size > HWT_UDP_MAX_PACKET || size > room ||
	    (trailer && cpu >= HWT_UDP_MAX_CPUS))
		return hwt_err(-EINVAL);
	put_header(p, packet_number, (uint32_t)n, size);
	p += HWT_UDP_HDR_SIZE;
	for (size_t i = 0; i < n; i++) {
		struct hwt_event le;

		hwt_event_to_le(&le, &ev[i]);
		memcpy(p, &le, sizeof(le));
		p += sizeof(le);
	}
	if (trailer) {
		uint32_t c = htole32(cpu);

		memcpy(p, &c, sizeof(c));
	}
	return (int)size;
}

int hwt_udp_decode(const void *buf, size_t len, struct hwt_udp_header *hdr,
		   uint32_t *cpu, struct hwt_event *ev)
{
	const uint8_t *p = buf;
	uint32_t n, total;

	if (len < HWT_UDP_HDR_SIZE)
		return hwt_err(-EBADMSG);
	memcpy(hdr, p, sizeof(*hdr));
	hdr->packet_number = le32toh(hdr->packet_number);
	hdr->number_of_events = le32toh(hdr->number_of_events);
	hdr->total_size = le32toh(hdr->total_size);
	n = hdr->number_of_events;
	total = hdr->total_size;
	if (memcmp(hdr->id, udp_id, sizeof(udp_id)) || n > HWT_UDP_MAX_EVENTS ||
	    total != len)
		return hwt_err(-EBADMSG);
	if (total == HWT_UDP_HDR_SIZE + n * HWT_EVENT_SIZE) {
		*cpu = 0;
	} else if (total == HWT_UDP_HDR_SIZE + n * HWT_EVENT_SIZE +
		   HWT_UDP_TRAILER_SIZE) {
		memcpy(cpu, p + total - HWT_UDP_TRAILER_SIZE, sizeof(*cpu));
		*cpu = le32toh(*cpu);
		/* a writer could not take it (and must not be asked to) */
		if (*cpu >= HWT_UDP_MAX_CPUS)
			return hwt_err(-EBADMSG);
	} else if (!n && total == HWT_UDP_END_SIZE &&
		   !memcmp(p + HWT_UDP_HDR_SIZE, end_id, sizeof(end_id))) {
		*cpu = HWT_UDP_END;
	} else {
		return hwt_err(-EBADMSG);
	}
	p += HWT_UDP_HDR_SIZE;
	for (uint32_t i = 0; i < n; i++) {
		struct hwt_event le;

		memcpy(&le, p + (size_t)i * HWT_EVENT_SIZE, sizeof(le));
		hwt_event_from_le(&ev[i], &le);
	}
	return (int)n;
}
