// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* S.Ha.R.K.'s UDP packets: encoding, decoding, and a loopback exchange. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "hwt_test.h"
#include "internal.h"

static void fill(struct hwt_event *ev, size_t n, uint32_t base)
{
	for (size_t i = 0; i < n; i++)
		ev[i] = test_event(HWT_EV_TASK_SCHEDULE, (uint16_t)i,
				   0x100000000ull + base + i, base + (uint32_t)i);
}

START_TEST(test_encode_layout)
{
	uint8_t pkt[HWT_UDP_MAX_PACKET];
	struct hwt_event ev[2];
	int len;

	fill(ev, 2, 7);
	len = hwt_udp_encode(pkt, sizeof(pkt), 5, HWT_UDP_NO_CPU, ev, 2);
	ck_assert_int_eq(len, 24 + 32);
	/* byte for byte what S.Ha.R.K.'s sender put on the wire */
	ck_assert_int_eq(memcmp(pkt, "TRACER-V1.0\0", 12), 0);
	ck_assert_uint_eq(pkt[12], 5);
	ck_assert_uint_eq(pkt[16], 2);
	ck_assert_uint_eq(pkt[20], 56);
	/* record 0: code, par1, TSC high, TSC low, par2 */
	ck_assert_uint_eq(pkt[24], HWT_EV_TASK_SCHEDULE);
	ck_assert_uint_eq(pkt[26], 0);
	ck_assert_uint_eq(pkt[28], 1);		/* TSC high = 1 */
	ck_assert_uint_eq(pkt[32], 7);		/* TSC low = 7 */
	ck_assert_uint_eq(pkt[36], 7);		/* par2 */
}
END_TEST

START_TEST(test_round_trip)
{
	uint8_t pkt[HWT_UDP_MAX_PACKET];
	struct hwt_event ev[HWT_UDP_MAX_EVENTS], out[HWT_UDP_MAX_EVENTS];
	struct hwt_udp_header h;
	uint32_t cpu = 99;
	size_t max_cpu = (HWT_UDP_MAX_PACKET - HWT_UDP_HDR_SIZE -
			  HWT_UDP_TRAILER_SIZE) / HWT_EVENT_SIZE;
	int len;

	fill(ev, HWT_UDP_MAX_EVENTS, 0);
	/* S.Ha.R.K.'s packet: 61 records, CPU 0 */
	len = hwt_udp_encode(pkt, sizeof(pkt), 1, HWT_UDP_NO_CPU, ev,
			     HWT_UDP_MAX_EVENTS);
	ck_assert_int_le(len, HWT_UDP_MAX_PACKET);
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out),
			 HWT_UDP_MAX_EVENTS);
	ck_assert_uint_eq(cpu, 0);
	ck_assert_uint_eq(h.packet_number, 1);
	ck_assert_int_eq(memcmp(ev, out, sizeof(ev)), 0);
	/* with the CPU trailer: one record fewer fits */
	ck_assert_int_eq(hwt_udp_encode(pkt, sizeof(pkt), 2, 3, ev,
					HWT_UDP_MAX_EVENTS), -EINVAL);
	len = hwt_udp_encode(pkt, sizeof(pkt), 2, 3, ev, max_cpu);
	ck_assert_int_gt(len, 0);
	ck_assert_int_le(len, HWT_UDP_MAX_PACKET);
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out),
			 (int)max_cpu);
	ck_assert_uint_eq(cpu, 3);
	ck_assert_int_eq(memcmp(ev, out, max_cpu * sizeof(*ev)), 0);
	/* no room */
	ck_assert_int_eq(hwt_udp_encode(pkt, 30, 1, HWT_UDP_NO_CPU, ev, 1), -EINVAL);
	/* empty packet */
	len = hwt_udp_encode(pkt, sizeof(pkt), 0, 1, ev, 0);
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out), 0);
}
END_TEST

START_TEST(test_decode_bad)
{
	uint8_t pkt[HWT_UDP_MAX_PACKET];
	struct hwt_event ev[4], out[HWT_UDP_MAX_EVENTS];
	struct hwt_udp_header h;
	uint32_t cpu;
	int len;

	fill(ev, 4, 0);
	len = hwt_udp_encode(pkt, sizeof(pkt), 1, 2, ev, 4);
	ck_assert_int_eq(hwt_udp_decode(pkt, 10, &h, &cpu, out), -EBADMSG);
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len - 1, &h, &cpu, out),
			 -EBADMSG);
	pkt[16] = 200;				/* number_of_events */
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out), -EBADMSG);
	pkt[16] = 3;				/* sizes disagree */
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out), -EBADMSG);
	pkt[16] = 4;
	pkt[3] = 'X';				/* id */
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out), -EBADMSG);
	pkt[3] = 'C';
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out), 4);
}
END_TEST

/* A CPU trailer no .hwt file can hold is refused at both ends. */
START_TEST(test_bad_cpu)
{
	static const uint32_t bad[] = { HWT_UDP_MAX_CPUS, 1u << 31, HWT_UDP_END,
					UINT32_MAX };
	uint8_t pkt[HWT_UDP_MAX_PACKET];
	struct hwt_event ev[2], out[HWT_UDP_MAX_EVENTS];
	struct hwt_udp_header h;
	uint32_t cpu;
	int len;

	fill(ev, 2, 0);
	ck_assert_int_eq(hwt_udp_encode(pkt, sizeof(pkt), 0, HWT_UDP_MAX_CPUS,
					ev, 2), -EINVAL);
	len = hwt_udp_encode(pkt, sizeof(pkt), 0, HWT_UDP_MAX_CPUS - 1, ev, 2);
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out), 2);
	ck_assert_uint_eq(cpu, HWT_UDP_MAX_CPUS - 1);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint32_t le = htole32(bad[i]);

		memcpy(pkt + len - HWT_UDP_TRAILER_SIZE, &le, sizeof(le));
		ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out),
				 -EBADMSG);
	}
}
END_TEST

/* What a listener would do with such a CPU: -EINVAL, no wrap in cpu + 1. */
START_TEST(test_writer_bad_cpu)
{
	struct hwt_trace_info info = { .nr_cpus = 1 };
	struct hwt_event e = test_event(HWT_EV_IPOINT, 0, 5, 0);
	const char *path = test_path("cpu.hwt");
	struct hwt_writer *w;

	ck_assert_int_eq(hwt_writer_open(&w, path, &info, NULL), 0);
	ck_assert_int_eq(hwt_writer_add(w, UINT32_MAX, &e, 1), -EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(hwt_writer_add(w, HWT_UDP_MAX_CPUS, &e, 1), -EINVAL);
	ck_assert_int_eq(hwt_writer_set_lost(w, UINT32_MAX, 1, 0), -EINVAL);
	ck_assert_int_eq(hwt_writer_set_lost(w, HWT_UDP_MAX_CPUS, 1, 0), -EINVAL);
	ck_assert_int_eq(hwt_writer_add(w, 3, &e, 1), 0);
	ck_assert_int_eq(hwt_writer_set_lost(w, 3, 1, 0), 0);
	ck_assert_int_eq(hwt_writer_close(w), 0);
	unlink(path);
}
END_TEST

/* The end-of-trace packet: byte for byte, and told apart from data. */
START_TEST(test_end_packet)
{
	static const uint8_t want[HWT_UDP_END_SIZE] = {
		'T', 'R', 'A', 'C', 'E', 'R', '-', 'V', '1', '.', '0', 0,
		42, 0, 0, 0,			/* packet_number: packets sent */
		0, 0, 0, 0,			/* number_of_events */
		32, 0, 0, 0,			/* total_size */
		'H', 'W', 'T', '-', 'E', 'N', 'D', 0,
	};
	uint8_t pkt[HWT_UDP_MAX_PACKET];
	struct hwt_event ev[1], out[HWT_UDP_MAX_EVENTS];
	struct hwt_udp_header h;
	uint32_t cpu = 0;
	int len;

	len = hwt_udp_encode(pkt, sizeof(pkt), 42, HWT_UDP_END, NULL, 0);
	ck_assert_int_eq(len, HWT_UDP_END_SIZE);
	ck_assert_int_eq(memcmp(pkt, want, sizeof(want)), 0);
	ck_assert_int_eq(hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out), 0);
	ck_assert_uint_eq(cpu, HWT_UDP_END);
	ck_assert_uint_eq(h.packet_number, 42);
	ck_assert_int_eq(hwt_udp_encode(pkt, 31, 42, HWT_UDP_END, NULL, 0), -EINVAL);
	/* with records it is no end packet */
	fill(ev, 1, 0);
	ck_assert_int_eq(hwt_udp_encode(pkt, sizeof(pkt), 1, HWT_UDP_END, ev, 1),
			 -EINVAL);
	/* another 8-byte trailer is not one either */
	memcpy(pkt, want, sizeof(want));
	pkt[24] = 'X';
	ck_assert_int_eq(hwt_udp_decode(pkt, sizeof(want), &h, &cpu, out), -EBADMSG);
}
END_TEST

/* Over 127.0.0.1: packets 0, 1, 3 sent; the receiver sees 2 is missing. */
START_TEST(test_loopback)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 2 };
	socklen_t alen = sizeof(addr);
	static const uint32_t numbers[] = { 0, 1, 3 };
	uint32_t expect = 0, missing = 0, got = 0;
	int rx, tx;

	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(rx, 0);
	ck_assert_int_ge(tx, 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(rx, (struct sockaddr *)&addr, sizeof(addr)), 0);
	ck_assert_int_eq(getsockname(rx, (struct sockaddr *)&addr, &alen), 0);
	ck_assert_int_eq(setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);

	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++) {
		uint8_t pkt[HWT_UDP_MAX_PACKET];
		struct hwt_event ev[10];
		int len;

		fill(ev, 10, numbers[i] * 10);
		len = hwt_udp_encode(pkt, sizeof(pkt), numbers[i], 1, ev, 10);
		ck_assert_int_eq(sendto(tx, pkt, (size_t)len, 0,
					(struct sockaddr *)&addr, sizeof(addr)), len);
	}
	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++) {
		uint8_t pkt[2048];
		struct hwt_event out[HWT_UDP_MAX_EVENTS];
		struct hwt_udp_header h;
		uint32_t cpu;
		ssize_t len = recv(rx, pkt, sizeof(pkt), 0);
		int n;

		ck_assert_int_gt(len, 0);
		n = hwt_udp_decode(pkt, (size_t)len, &h, &cpu, out);
		ck_assert_int_eq(n, 10);
		ck_assert_uint_eq(cpu, 1);
		ck_assert_uint_eq(out[0].par2, h.packet_number * 10);
		if (h.packet_number > expect)
			missing += h.packet_number - expect;
		expect = h.packet_number + 1;
		got++;
	}
	ck_assert_uint_eq(got, 3);
	ck_assert_uint_eq(missing, 1);
	close(rx);
	close(tx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("udp");
	TCase *tc = tcase_create("packets");

	tcase_add_test(tc, test_encode_layout);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_decode_bad);
	tcase_add_test(tc, test_bad_cpu);
	tcase_add_test(tc, test_writer_bad_cpu);
	tcase_add_test(tc, test_end_packet);
	tcase_add_test(tc, test_loopback);
	suite_add_tcase(s, tc);
	return test_run(s);
}
