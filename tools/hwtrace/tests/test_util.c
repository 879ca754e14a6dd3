// SPDX-License-Identifier: GPL-2.0
/* hwtrace's argument parsers: families, sizes, UDP URLs, flags, codes. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwtrace.h"

START_TEST(test_families)
{
	uint32_t m = 0;
	char *buf;
	size_t len;
	FILE *err = open_memstream(&buf, &len);

	ck_assert_int_eq(parse_families("task", &m, NULL), 0);
	ck_assert_uint_eq(m, 1u << HWT_FAM_TASK);
	ck_assert_int_eq(parse_families("task,irq,timer,ipoint", &m, NULL), 0);
	ck_assert_uint_eq(m, 1u << HWT_FAM_TASK | 1u << HWT_FAM_INTERRUPT |
			  1u << HWT_FAM_TIMER | 1u << HWT_FAM_IPOINT);
	ck_assert_int_eq(parse_families("interrupt,PRIORITY", &m, NULL), 0);
	ck_assert_uint_eq(m, 1u << HWT_FAM_INTERRUPT | 1u << HWT_FAM_PRIORITY);
	ck_assert_int_eq(parse_families("all", &m, NULL), 0);
	ck_assert_uint_eq(m, FAMILIES_ALL);
	ck_assert_int_eq(parse_families("all,task", &m, NULL), 0);
	ck_assert_uint_eq(m, FAMILIES_ALL);
	/* bad names are refused with the valid ones listed; m is untouched */
	m = 7;
	ck_assert_int_eq(parse_families("task,bogus", &m, err), -EINVAL);
	ck_assert_uint_eq(m, 7);
	ck_assert_int_eq(parse_families("", &m, err), -EINVAL);
	ck_assert_int_eq(parse_families(",", &m, err), -EINVAL);
	fclose(err);
	ck_assert_ptr_nonnull(strstr(buf, "unknown family 'bogus'"));
	ck_assert_ptr_nonnull(strstr(buf, "task irq cpu"));
	ck_assert_ptr_nonnull(strstr(buf, "no family given"));
	free(buf);
}
END_TEST

START_TEST(test_sizes)
{
	uint64_t v;

	ck_assert_int_eq(parse_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(parse_size("64k", &v), 0);
	ck_assert_uint_eq(v, 65536);
	ck_assert_int_eq(parse_size("4M", &v), 0);
	ck_assert_uint_eq(v, 4u << 20);
	ck_assert_int_eq(parse_size("1G", &v), 0);
	ck_assert_uint_eq(v, 1u << 30);
	ck_assert_int_eq(parse_size("2MiB", &v), 0);
	ck_assert_uint_eq(v, 2u << 20);
	ck_assert_int_eq(parse_size("8kb", &v), 0);
	ck_assert_uint_eq(v, 8192);
	ck_assert_int_eq(parse_size("0x1000", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(parse_size("", &v), -EINVAL);
	ck_assert_int_eq(parse_size("-1", &v), -EINVAL);
	ck_assert_int_eq(parse_size("4X", &v), -EINVAL);
	ck_assert_int_eq(parse_size("4Mx", &v), -EINVAL);
	ck_assert_int_eq(parse_size("M", &v), -EINVAL);
	ck_assert_int_eq(parse_size("99999999999999999999", &v), -ERANGE);
	ck_assert_int_eq(parse_size("17179869184G", &v), -ERANGE);
	ck_assert_int_eq(parse_size("18446744073709551615", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(parse_size("16G", &v), 0);
	ck_assert_uint_eq(v, 16ull << 30);
}
END_TEST

/* A refused size says why; one too large says what the largest is. */
START_TEST(test_size_messages)
{
	uint64_t v = 7;
	char *buf;
	size_t len;
	FILE *err = open_memstream(&buf, &len);

	ck_assert_int_eq(parse_size_arg("buffer size", "17179869184G", &v, err), -ERANGE);
	ck_assert_int_eq(parse_size_arg("buffer size", "4X", &v, err), -EINVAL);
	ck_assert_int_eq(parse_size_arg("buffer size", "64k", &v, err), 0);
	ck_assert_uint_eq(v, 65536);
	fclose(err);
	ck_assert_str_eq(buf,
		"hwtrace: buffer size '17179869184G' is too large: sizes go up to "
		"18446744073709551615 bytes (16 EiB - 1), and the module's memory cap "
		"is far lower (hwtrace ctl version)\n"
		"hwtrace: bad buffer size '4X': bytes with an optional k, M or G suffix "
		"(4096, 64k, 4M, 1G)\n");
	free(buf);
}
END_TEST

/* What kmod/chunk.c charges, and the largest NORMAL that fits. */
START_TEST(test_chunk_limits)
{
	struct hwt_version ver = { .nr_cpus = 4, .max_memory = 16 << 20 };

	ck_assert_int_eq(sysconf(_SC_PAGESIZE), 4096);
	ck_assert_uint_eq(chunk_charge(4096, 4096, 4), 4 * 3 * 4096);
	ck_assert_uint_eq(chunk_charge(4096 + 16, 64, 2), 2 * 3 * 4096);
	ck_assert_uint_eq(chunk_charge(UINT64_MAX - 15, 64, 2), UINT64_MAX);
	ck_assert_uint_eq(chunk_charge(1ull << 62, 4096, 8), UINT64_MAX);
	ck_assert_uint_eq(chunk_normal_limit(&ver, 4096, 1), (4 << 20) - 8192);
	ck_assert_uint_le(chunk_charge(chunk_normal_limit(&ver, 4096, 1), 4096, 4),
			  ver.max_memory);
	ck_assert_uint_gt(chunk_charge(chunk_normal_limit(&ver, 4096, 1) + 16, 4096, 4),
			  ver.max_memory);
	ck_assert_uint_eq(chunk_normal_limit(&ver, 4096, 2), (2 << 20) - 8192);
	ver.used_memory = ver.max_memory - 4096;
	ck_assert_uint_eq(chunk_normal_limit(&ver, 4096, 1), 0);
	/* the ring's own ceiling: 2^31 - 1 slots */
	ver.used_memory = 0;
	ver.max_memory = 1ull << 40;
	ck_assert_uint_eq(chunk_normal_limit(&ver, 4096, 1), CHUNK_MAX_RING - 4096);
}
END_TEST

START_TEST(test_udp_url)
{
	struct net_addr a;
	char buf[64];

	ck_assert(is_udp_url("udp://1.2.3.4"));
	ck_assert(!is_udp_url("trace.hwt"));
	ck_assert_int_eq(parse_udp_url("udp://10.0.0.2:1234", &a, 20000), 0);
	ck_assert_uint_eq(a.sa.sa_family, AF_INET);
	ck_assert_uint_eq(a.len, sizeof(a.in));
	ck_assert_uint_eq(ntohs(a.in.sin_port), 1234);
	ck_assert_uint_eq(ntohl(a.in.sin_addr.s_addr), 0x0A000002);
	ck_assert_int_eq(parse_udp_url("udp://127.0.0.1", &a, 20000), 0);
	ck_assert_uint_eq(ntohs(a.in.sin_port), 20000);
	ck_assert_int_eq(parse_udp_url("udp://0.0.0.0:9", &a, 20000), 0);
	ck_assert_uint_eq(a.in.sin_addr.s_addr, 0);
	ck_assert_int_eq(parse_udp_url("udp://localhost:7", &a, 20000), 0);
	ck_assert_uint_eq(a.sa.sa_family, AF_INET);
	ck_assert_uint_eq(ntohl(a.in.sin_addr.s_addr), 0x7F000001);
	ck_assert_int_eq(parse_udp_url("udp://1.2.3.4:0", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://1.2.3.4:65536", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://1.2.3.4:x", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://1.2.3.4:", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://:5", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("tcp://1.2.3.4:5", &a, 1), -EINVAL);

	/* IPv6: in brackets with a port, bare without */
	ck_assert_int_eq(parse_udp_url("udp://[::1]:20001", &a, 20000), 0);
	ck_assert_uint_eq(a.sa.sa_family, AF_INET6);
	ck_assert_uint_eq(a.len, sizeof(a.in6));
	ck_assert(IN6_IS_ADDR_LOOPBACK(&a.in6.sin6_addr));
	ck_assert_uint_eq(ntohs(a.in6.sin6_port), 20001);
	ck_assert_int_eq(parse_udp_url("udp://[::]", &a, 20000), 0);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&a.in6.sin6_addr));
	ck_assert_uint_eq(ntohs(a.in6.sin6_port), 20000);
	ck_assert_int_eq(parse_udp_url("udp://fe80::2", &a, 20000), 0);
	ck_assert_uint_eq(a.sa.sa_family, AF_INET6);
	ck_assert_uint_eq(ntohs(a.in6.sin6_port), 20000);
	ck_assert_str_eq(format_addr(&a.sa, buf, sizeof(buf)), "[fe80::2]:20000");
	ck_assert_int_eq(parse_udp_url("udp://[::1", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://[::1]x", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://[::1]:", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://[1.2.3.4]:5", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://[]:5", &a, 1), -EINVAL);
	ck_assert_int_eq(parse_udp_url("udp://::g:5", &a, 1), -EINVAL);
}
END_TEST

/* --from: a port of 0 (none given) matches any; IPv4 matches its mapped form. */
START_TEST(test_addr_matches)
{
	struct net_addr want, got;
	char buf[64];

	ck_assert_int_eq(parse_host_port("10.0.0.2", &want, 0), 0);
	ck_assert_uint_eq(want.in.sin_port, 0);
	ck_assert_int_eq(parse_host_port("10.0.0.2:999", &got, 0), 0);
	ck_assert(addr_matches(&want, &got.sa));
	ck_assert_int_eq(parse_host_port("10.0.0.3:999", &got, 0), 0);
	ck_assert(!addr_matches(&want, &got.sa));
	ck_assert_int_eq(parse_host_port("[::ffff:10.0.0.2]:7", &got, 0), 0);
	ck_assert(addr_matches(&want, &got.sa));
	ck_assert_str_eq(format_addr(&got.sa, buf, sizeof(buf)), "10.0.0.2:7");

	ck_assert_int_eq(parse_host_port("10.0.0.2:5", &want, 0), 0);
	ck_assert(!addr_matches(&want, &got.sa));
	ck_assert_int_eq(parse_host_port("10.0.0.2:7", &want, 0), 0);
	ck_assert(addr_matches(&want, &got.sa));

	ck_assert_int_eq(parse_host_port("::1", &want, 0), 0);
	ck_assert_int_eq(parse_host_port("[::1]:40000", &got, 0), 0);
	ck_assert(addr_matches(&want, &got.sa));
	ck_assert_int_eq(parse_host_port("127.0.0.1:40000", &got, 0), 0);
	ck_assert(!addr_matches(&want, &got.sa));
	ck_assert_int_eq(parse_host_port("[::2]:40000", &got, 0), 0);
	ck_assert(!addr_matches(&want, &got.sa));
	ck_assert_int_eq(parse_host_port("[::1]:40001", &want, 0), 0);
	ck_assert(!addr_matches(&want, &got.sa));
	ck_assert_int_eq(parse_host_port("", &want, 0), -EINVAL);
	ck_assert_int_eq(parse_host_port("1.2.3.4:0", &want, 0), -EINVAL);
}
END_TEST

START_TEST(test_chunk_flags)
{
	uint32_t f;
	char buf[64];

	ck_assert_int_eq(parse_chunk_flags("stop", &f), 0);
	ck_assert_uint_eq(f, HWT_CHUNK_STOP);
	ck_assert_int_eq(parse_chunk_flags("cyc|nodel", &f), 0);
	ck_assert_uint_eq(f, HWT_CHUNK_CYC | HWT_CHUNK_NODEL);
	ck_assert_int_eq(parse_chunk_flags("JTN,compr", &f), 0);
	ck_assert_uint_eq(f, HWT_CHUNK_JTN | HWT_CHUNK_COMPR);
	ck_assert_int_eq(parse_chunk_flags("0x08", &f), 0);
	ck_assert_uint_eq(f, 8);
	ck_assert_int_eq(parse_chunk_flags("stopp", &f), -EINVAL);
	format_chunk_flags(HWT_CHUNK_STOP | HWT_CHUNK_FULL | HWT_CHUNK_BUSY, buf,
			   sizeof(buf));
	ck_assert_str_eq(buf, "stop|full|busy");
	format_chunk_flags(HWT_CHUNK_CYC | HWT_CHUNK_FREE, buf, sizeof(buf));
	ck_assert_str_eq(buf, "cyc|free");
}
END_TEST

START_TEST(test_event_codes)
{
	uint16_t c;

	ck_assert_int_eq(parse_event_code("user_event_1", &c), 0);
	ck_assert_uint_eq(c, HWT_EV_USER_EVENT_1);
	ck_assert_int_eq(parse_event_code("IPOINT", &c), 0);
	ck_assert_uint_eq(c, HWT_EV_IPOINT);
	ck_assert_int_eq(parse_event_code("0x8001", &c), 0);
	ck_assert_uint_eq(c, 0x8001);
	ck_assert_int_eq(parse_event_code("0x10000", &c), -EINVAL);
	ck_assert_int_eq(parse_event_code("nope", &c), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwtrace-util");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_families);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_size_messages);
	tcase_add_test(tc, test_chunk_limits);
	tcase_add_test(tc, test_udp_url);
	tcase_add_test(tc, test_addr_matches);
	tcase_add_test(tc, test_chunk_flags);
	tcase_add_test(tc, test_event_codes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
