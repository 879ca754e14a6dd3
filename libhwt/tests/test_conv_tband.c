// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Tonbandgeraet encoder: every vector of the reference encoder
 * (shared/vectors/tonbandgeraet/reference-vectors.txt, copied here as data)
 * reproduced byte for byte, the three streams of its full tracer pipeline,
 * and the converter's output decoded back (COBS + varlen) and checked.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../conv/conv_internal.h"
#include "test_conv_util.h"

/* Expected framed bytes (delimiter included), in the order of the file. */
static const char *const expected[] = {
	/* EVENT isr_name(id=0x03) isr_id=5 name=\"UART0_IRQ\" */
	"0c030555415254305f49525100",
	/* EVENT isr_name(id=0x03) isr_id=0 name=\"\" (empty string) */
	"02030100",
	/* EVENT isr_name(id=0x03) isr_id=300 name=\"ABCDEFGHIJKLMNOPQRSTUVWXYZ\" ( */
	"1803ac024142434445464748494a4b4c4d4e4f505152535400",
	/* EVENT isr_enter(id=0x04) ts=0 isr_id=0 */
	"0204010100",
	/* EVENT isr_enter(id=0x04) ts=1000 isr_id=5 */
	"0504e8070500",
	/* EVENT isr_exit(id=0x05) ts=1234 isr_id=5 */
	"0505d2090500",
	/* EVENT isr_enter(id=0x04) ts=0x123456789ABCDEF0 isr_id=0xFFFFFFFF */
	"1004f0bdf3d589cf959a12ffffffff0f00",
	/* EVENT isr_exit(id=0x05) ts=UINT64_MAX isr_id=128 */
	"0e05ffffffffffffffffff01800100",
	/* EVENT evtmarker_name(id=0x06) evtmarker_id=1 name=\"phase\" */
	"080601706861736500",
	/* EVENT evtmarker(id=0x07) ts=2000 evtmarker_id=1 msg=\"hello\" */
	"0a07d00f0168656c6c6f00",
	/* EVENT evtmarker(id=0x07) ts=2001 evtmarker_id=1 msg=\"\" (empty) */
	"0507d10f0100",
	/* EVENT evtmarker(id=0x07) ts=2002 evtmarker_id=1 msg=NULL (no str) */
	"0507d20f0100",
	/* EVENT evtmarker_begin(id=0x08) ts=3000 evtmarker_id=2 msg=\"job\" */
	"0808b817026a6f6200",
	/* EVENT evtmarker_end(id=0x09) ts=3500 evtmarker_id=2 */
	"0509ac1b0200",
	/* EVENT valmarker_name(id=0x0A) valmarker_id=3 name=\"temperature\" */
	"0e0a0374656d706572617475726500",
	/* EVENT valmarker(id=0x0B) ts=4000 valmarker_id=3 val=0 */
	"050ba01f030100",
	/* EVENT valmarker(id=0x0B) ts=4001 valmarker_id=3 val=42 */
	"060ba11f035400",
	/* EVENT valmarker(id=0x0B) ts=4002 valmarker_id=3 val=-1 */
	"060ba21f030300",
	/* EVENT valmarker(id=0x0B) ts=4003 valmarker_id=3 val=-1000 */
	"070ba31f03d10f00",
	/* EVENT valmarker(id=0x0B) ts=4004 valmarker_id=3 val=INT64_MIN */
	"060ba41f030100",
	/* EVENT valmarker(id=0x0B) ts=4005 valmarker_id=3 val=INT64_MIN+1 */
	"0f0ba51f03ffffffffffffffffff0100",
	/* EVENT valmarker(id=0x0B) ts=4006 valmarker_id=3 val=INT64_MAX */
	"0f0ba61f03feffffffffffffffff0100",
	/* EVENT valmarker(id=0x0B) ts=4007 valmarker_id=3 val=-64 */
	"070ba71f03810100",
	/* EVENT valmarker(id=0x0B) ts=4008 valmarker_id=3 val=-65 */
	"070ba81f03830100",
	/* EVENT valmarker(id=0x0B) ts=4009 valmarker_id=3 val=64 */
	"070ba91f03800100",
	/* EVENT freertos task_switched_in(id=0x54) ts=5000 task_id=7 */
	"055488270700",
	/* EVENT freertos task_name(id=0x5F) task_id=7 name=\"worker\" */
	"095f07776f726b657200",
	/* EVENT freertos task_to_rdy_state(id=0x55) ts=10012323 task_id=555 (sam */
	"0855a38de304ab0400",
	/* EVENT freertos task_priority_disinherit(id=0x5D) ts=1212121212 task_id */
	"095dfc80fec104652a00",
	/* EVENT dropped_evt_cnt(id=0x01) ts=6000 cnt=3 */
	"0501f02e0300",
	/* EVENT dropped_evt_cnt(id=0x01) ts=0 cnt=0 */
	"0201010100",
	/* EVENT ts_resolution_ns(id=0x02) ns_per_ts=10 */
	"03020a00",
	/* EVENT ts_resolution_ns(id=0x02) ns_per_ts=1 */
	"03020100",
	/* EVENT core_id(id=0x00) ts=0 core_id=0 */
	"0101010100",
	/* EVENT core_id(id=0x00) ts=7000 core_id=1 */
	"0104d8360100",
	/* EVENT core_id(id=0x00) ts=UINT64_MAX core_id=UINT32_MAX */
	"0110ffffffffffffffffff01ffffffff0f00",
	/* COBS empty message */
	"0100",
	/* COBS single zero */
	"010100",
	/* COBS trailing zero {01 00} */
	"02010100",
	/* COBS two zeros {00 00} */
	"01010100",
	/* COBS 253 nonzero bytes 01..FD */
	"fe0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfd00",
	/* COBS 254 nonzero bytes 01..FE (exactly one full block; NO extra code b */
	"ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfe00",
	/* COBS 255 nonzero bytes 01..FF */
	"ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfe02"
	"ff00",
	/* COBS 254 nonzero bytes then one zero */
	"ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfe01"
	"0100",
	/* COBS 508 nonzero bytes 0x11 (two full blocks) */
	"ff11111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"11111111111111111111111111111111111111111111111111111111111111ff"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111111111111111111111111111"
	"11111111111111111111111111111111111111111111111111111111111100",
	/* COBS zero then 254 nonzero */
	"01ff222222222222222222222222222222222222222222222222222222222222"
	"2222222222222222222222222222222222222222222222222222222222222222"
	"2222222222222222222222222222222222222222222222222222222222222222"
	"2222222222222222222222222222222222222222222222222222222222222222"
	"2222222222222222222222222222222222222222222222222222222222222222"
	"2222222222222222222222222222222222222222222222222222222222222222"
	"2222222222222222222222222222222222222222222222222222222222222222"
	"2222222222222222222222222222222222222222222222222222222222222222"
	"00",
	/* EVENT isr_name isr_id=1 name=250 x 'abc..' (payload 252 bytes, no zero */
	"fd03016162636465666768696a6b6c6d6e6f707172737475767778797a616263"
	"6465666768696a6b6c6d6e6f707172737475767778797a616263646566676869"
	"6a6b6c6d6e6f707172737475767778797a6162636465666768696a6b6c6d6e6f"
	"707172737475767778797a6162636465666768696a6b6c6d6e6f707172737475"
	"767778797a6162636465666768696a6b6c6d6e6f707172737475767778797a61"
	"62636465666768696a6b6c6d6e6f707172737475767778797a61626364656667"
	"68696a6b6c6d6e6f707172737475767778797a6162636465666768696a6b6c6d"
	"6e6f707172737475767778797a6162636465666768696a6b6c6d6e6f7000",
	/* EVENT isr_name isr_id=1 name=252 chars (payload 254 bytes = exactly on */
	"ff03016162636465666768696a6b6c6d6e6f707172737475767778797a616263"
	"6465666768696a6b6c6d6e6f707172737475767778797a616263646566676869"
	"6a6b6c6d6e6f707172737475767778797a6162636465666768696a6b6c6d6e6f"
	"707172737475767778797a6162636465666768696a6b6c6d6e6f707172737475"
	"767778797a6162636465666768696a6b6c6d6e6f707172737475767778797a61"
	"62636465666768696a6b6c6d6e6f707172737475767778797a61626364656667"
	"68696a6b6c6d6e6f707172737475767778797a6162636465666768696a6b6c6d"
	"6e6f707172737475767778797a6162636465666768696a6b6c6d6e6f70717200",
	/* EVENT isr_name isr_id=1 name=253 chars (payload 255 bytes) */
	"ff03016162636465666768696a6b6c6d6e6f707172737475767778797a616263"
	"6465666768696a6b6c6d6e6f707172737475767778797a616263646566676869"
	"6a6b6c6d6e6f707172737475767778797a6162636465666768696a6b6c6d6e6f"
	"707172737475767778797a6162636465666768696a6b6c6d6e6f707172737475"
	"767778797a6162636465666768696a6b6c6d6e6f707172737475767778797a61"
	"62636465666768696a6b6c6d6e6f707172737475767778797a61626364656667"
	"68696a6b6c6d6e6f707172737475767778797a6162636465666768696a6b6c6d"
	"6e6f707172737475767778797a6162636465666768696a6b6c6d6e6f70717202"
	"7300",
	/* EVENT evtmarker ts=0 evtmarker_id=0 msg=300 chars (payload 303 bytes;  */
	"020701ff6162636465666768696a6b6c6d6e6f707172737475767778797a6162"
	"636465666768696a6b6c6d6e6f707172737475767778797a6162636465666768"
	"696a6b6c6d6e6f707172737475767778797a6162636465666768696a6b6c6d6e"
	"6f707172737475767778797a6162636465666768696a6b6c6d6e6f7071727374"
	"75767778797a6162636465666768696a6b6c6d6e6f707172737475767778797a"
	"6162636465666768696a6b6c6d6e6f707172737475767778797a616263646566"
	"6768696a6b6c6d6e6f707172737475767778797a6162636465666768696a6b6c"
	"6d6e6f707172737475767778797a6162636465666768696a6b6c6d6e6f707172"
	"73742f75767778797a6162636465666768696a6b6c6d6e6f7071727374757677"
	"78797a6162636465666768696a6b6c6d6e00",
};

#define TS(v)	.has_ts = true, .ts = (v)
#define U1(a)	.nr_u = 1, .u = { (a) }
#define U2(a, b)	.nr_u = 2, .u = { (a), (b) }

/* The reference's calls, in the order of reference-vectors.txt part 1. */
static const struct vec_evt {
	struct hwt_tb_evt e;
	size_t max_str;
} evt_calls[] = {
	{ { .id = HWT_TB_ISR_NAME, U1(5), .str = "UART0_IRQ" }, 20 },
	{ { .id = HWT_TB_ISR_NAME, U1(0), .str = "" }, 20 },
	{ { .id = HWT_TB_ISR_NAME, U1(300), .str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" }, 20 },
	{ { .id = HWT_TB_ISR_ENTER, TS(0), U1(0) }, 20 },
	{ { .id = HWT_TB_ISR_ENTER, TS(1000), U1(5) }, 20 },
	{ { .id = HWT_TB_ISR_EXIT, TS(1234), U1(5) }, 20 },
	{ { .id = HWT_TB_ISR_ENTER, TS(0x123456789ABCDEF0ull), U1(0xFFFFFFFFu) }, 20 },
	{ { .id = HWT_TB_ISR_EXIT, TS(UINT64_MAX), U1(128) }, 20 },
	{ { .id = HWT_TB_EVTMARKER_NAME, U1(1), .str = "phase" }, 20 },
	{ { .id = HWT_TB_EVTMARKER, TS(2000), U1(1), .str = "hello" }, 20 },
	{ { .id = HWT_TB_EVTMARKER, TS(2001), U1(1), .str = "" }, 20 },
	{ { .id = HWT_TB_EVTMARKER, TS(2002), U1(1), .str = NULL }, 20 },
	{ { .id = HWT_TB_EVTMARKER_BEGIN, TS(3000), U1(2), .str = "job" }, 20 },
	{ { .id = HWT_TB_EVTMARKER_END, TS(3500), U1(2) }, 20 },
	{ { .id = HWT_TB_VALMARKER_NAME, U1(3), .str = "temperature" }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4000), U1(3), .has_s64 = true, .s64 = 0 }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4001), U1(3), .has_s64 = true, .s64 = 42 }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4002), U1(3), .has_s64 = true, .s64 = -1 }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4003), U1(3), .has_s64 = true, .s64 = -1000 }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4004), U1(3), .has_s64 = true, .s64 = INT64_MIN }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4005), U1(3), .has_s64 = true, .s64 = INT64_MIN + 1 }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4006), U1(3), .has_s64 = true, .s64 = INT64_MAX }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4007), U1(3), .has_s64 = true, .s64 = -64 }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4008), U1(3), .has_s64 = true, .s64 = -65 }, 20 },
	{ { .id = HWT_TB_VALMARKER, TS(4009), U1(3), .has_s64 = true, .s64 = 64 }, 20 },
	{ { .id = HWT_TB_TASK_SWITCHED_IN, TS(5000), U1(7) }, 20 },
	{ { .id = HWT_TB_TASK_NAME, U1(7), .str = "worker" }, 20 },
	{ { .id = HWT_TB_TASK_TO_RDY_STATE, TS(10012323), U1(555) }, 20 },
	{ { .id = HWT_TB_TASK_PRIORITY_DISINHERIT, TS(1212121212), U2(101, 42) }, 20 },
	{ { .id = HWT_TB_DROPPED_EVT_CNT, TS(6000), U1(3) }, 20 },
	{ { .id = HWT_TB_DROPPED_EVT_CNT, TS(0), U1(0) }, 20 },
	{ { .id = HWT_TB_TS_RESOLUTION_NS, U1(10) }, 20 },
	{ { .id = HWT_TB_TS_RESOLUTION_NS, U1(1) }, 20 },
	{ { .id = HWT_TB_CORE_ID, TS(0), U1(0) }, 20 },
	{ { .id = HWT_TB_CORE_ID, TS(7000), U1(1) }, 20 },
	{ { .id = HWT_TB_CORE_ID, TS(UINT64_MAX), U1(UINT32_MAX) }, 20 },
};

#define NR_EVT_CALLS	(sizeof(evt_calls) / sizeof(evt_calls[0]))
#define NR_COBS		10
#define NR_LONG		4

static void check_frame(size_t i, const uint8_t *got, size_t len)
{
	uint8_t want[1024];
	size_t n = tu_unhex(want, expected[i]);

	ck_assert_msg(len == n && !memcmp(got, want, n),
		      "vector %zu: %zu bytes, want %zu", i, len, n);
}

START_TEST(test_event_vectors)
{
	uint8_t buf[HWT_TB_EVT_MAX(64)];

	ck_assert_uint_eq(sizeof(expected) / sizeof(expected[0]),
			  NR_EVT_CALLS + NR_COBS + NR_LONG);
	for (size_t i = 0; i < NR_EVT_CALLS; i++) {
		size_t n = hwt_tb_encode(buf, &evt_calls[i].e, evt_calls[i].max_str);

		check_frame(i, buf, n);
	}
}
END_TEST

START_TEST(test_cobs_vectors)
{
	static uint8_t in[NR_COBS][600];
	size_t len[NR_COBS] = { 0, 1, 2, 2, 253, 254, 255, 255, 508, 255 };
	uint8_t out[HWT_TB_FRAME_MAX(600)];

	memset(in, 0, sizeof(in));
	in[2][0] = 0x01;
	for (int i = 0; i < 255; i++) {
		in[4][i] = (uint8_t)(i + 1);	/* 01..FD, 01..FE, 01..FF */
		in[5][i] = (uint8_t)(i + 1);
		in[6][i] = (uint8_t)(i + 1);
		in[7][i] = i < 254 ? (uint8_t)(i + 1) : 0;
		in[9][i] = i ? 0x22 : 0;
	}
	memset(in[8], 0x11, 508);
	for (size_t v = 0; v < NR_COBS; v++) {
		size_t n = hwt_tb_cobs(out, in[v], len[v]);

		ck_assert_uint_le(n, HWT_TB_FRAME_MAX(len[v]) + (len[v] == 0));
		check_frame(NR_EVT_CALLS + v, out, n);
	}
}
END_TEST

START_TEST(test_long_string_vectors)
{
	static const size_t nlen[NR_LONG] = { 250, 252, 253, 300 };
	char s[400];
	uint8_t out[HWT_TB_EVT_MAX(400)];

	for (size_t v = 0; v < NR_LONG; v++) {
		struct hwt_tb_evt e = { .id = HWT_TB_ISR_NAME, .nr_u = 1, .u = { 1 } };
		size_t n;

		for (size_t i = 0; i < nlen[v]; i++)
			s[i] = (char)('a' + i % 26);
		s[nlen[v]] = '\0';
		if (v == 3) {
			e.id = HWT_TB_EVTMARKER;
			e.has_ts = true;
			e.ts = 0;
			e.u[0] = 0;
		}
		e.str = s;
		n = hwt_tb_encode(out, &e, 400);
		check_frame(NR_EVT_CALLS + NR_COBS + v, out, n);
	}
}
END_TEST

/*
 * The one-pass framing (payload first, then COBS) against the byte-by-byte
 * frame builder, on random payloads around the block limits.
 */
START_TEST(test_encode_paths)
{
	static uint8_t in[600], a[HWT_TB_FRAME_MAX(600)], b[HWT_TB_FRAME_MAX(600)];
	static char str[300];
	uint64_t x = 99;

	for (int k = 0; k < 4000; k++) {
		size_t n = (size_t)(k % 300), na, nb;
		struct hwt_tb_frame f;
		struct hwt_tb_evt e = { 0 };

		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			/* some payloads all non-zero, others with zeros */
			in[i] = (uint8_t)(x >> 56) & (k % 3 ? 0xFF : 0x3);
			if (k % 5 == 0 && !in[i])
				in[i] = 7;
		}
		na = hwt_tb_cobs(a, in, n);
		hwt_tb_begin(&f, b);
		for (size_t i = 0; i < n; i++)
			hwt_tb_u8(&f, in[i]);
		nb = hwt_tb_end(&f);
		ck_assert_uint_eq(na, nb);
		ck_assert(!memcmp(a, b, na));

		/* an event of random fields and a string of n/2 bytes */
		e.id = (uint8_t)(x >> 8);
		e.has_ts = k & 1;
		e.ts = x >> (k % 64);
		e.nr_u = (uint8_t)(k % 4);
		e.u[0] = x >> 3;
		e.u[1] = k;
		e.u[2] = UINT64_MAX >> (k % 64);
		e.has_s64 = k & 2;
		e.s64 = k % 7 == 0 ? INT64_MIN : (int64_t)(x >> 1) * (k & 4 ? -1 : 1);
		e.has_u8 = k & 8;
		e.u8 = (uint8_t)k;
		for (size_t i = 0; i < n / 2; i++)
			str[i] = (char)(1 + in[i] % 255);
		str[n / 2] = '\0';
		e.str = k % 11 ? str : NULL;
		na = hwt_tb_encode(a, &e, k & 16 ? 40 : 0);
		hwt_tb_begin(&f, b);
		hwt_tb_u8(&f, e.id);
		if (e.has_ts)
			hwt_tb_u64(&f, e.ts);
		for (unsigned int i = 0; i < e.nr_u; i++)
			hwt_tb_u64(&f, e.u[i]);
		if (e.has_s64)
			hwt_tb_s64(&f, e.s64);
		if (e.has_u8)
			hwt_tb_u8(&f, e.u8);
		hwt_tb_str(&f, e.str, k & 16 ? 40 : 0);
		nb = hwt_tb_end(&f);
		ck_assert_uint_eq(na, nb);
		ck_assert(!memcmp(a, b, na));
	}
}
END_TEST

/* --- the reference's full pipeline (parts 3 and 4 of the vectors) ------------ */

static const char stream_every50[] =
	"010101010003020a000c030555415254305f495251000806017068617365000e"
	"0a0374656d706572617475726500010101010004046405000505960105000a07"
	"c8010168656c6c6f00050190030100060b90030301000501f40301000608f403"
	"0178000501d80401000509d80401000501bc0501000703066c61746500";
static const char stream_with_drop[] =
	"010101010003020a000c030555415254305f495251000806017068617365000e"
	"0a0374656d706572617475726500010101010003016401000404640500050596"
	"0105000a07c8010168656c6c6f00050190030100060b90030301000501f40301"
	"000608f4030178000501d80401000509d80401000501bc0501000703066c6174"
	"6500";

struct pipe {
	uint8_t out[512];
	size_t len;
	uint8_t meta[256];
	size_t meta_len;
	bool streaming;
	bool drop_next;
};

static bool pipe_sink(void *ctx, const uint8_t *buf, size_t len)
{
	struct pipe *p = ctx;

	if (!p->streaming)
		return false;		/* not enabled: nothing goes out */
	if (p->drop_next) {
		p->drop_next = false;
		return true;
	}
	ck_assert_uint_le(p->len + len, sizeof(p->out));
	memcpy(p->out + p->len, buf, len);
	p->len += len;
	return false;
}

/* A hook: encode, keep metadata in the metadata buffer, submit. */
static void hook(struct hwt_tb_writer *w, struct pipe *p,
		 const struct hwt_tb_evt *e, uint64_t now)
{
	uint8_t buf[HWT_TB_EVT_MAX(20)];
	size_t n = hwt_tb_encode(buf, e, 20);

	if (!e->has_ts) {
		memcpy(p->meta + p->meta_len, buf, n);
		p->meta_len += n;
	}
	hwt_tb_submit(w, 0, buf, n, now);
}

static void run_pipeline(uint32_t every, const char *want_hex)
{
	struct hwt_tb_writer w;
	struct pipe p = { .len = 0 };
	uint8_t want[512], buf[32];
	size_t n;
	const struct hwt_tb_evt core0 = { .id = HWT_TB_CORE_ID, .has_ts = true,
					  .nr_u = 1 };

	ck_assert_int_eq(hwt_tb_writer_init(&w, 1, every), 0);
	w.sink = pipe_sink;
	w.ctx = &p;
	w.ref_stale_last = true;
	/* metadata before tband_start_streaming() */
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_TS_RESOLUTION_NS,
					   .nr_u = 1, .u = { 10 } }, 0);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_ISR_NAME, .nr_u = 1,
					   .u = { 5 }, .str = "UART0_IRQ" }, 0);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_EVTMARKER_NAME,
					   .nr_u = 1, .u = { 1 }, .str = "phase" }, 0);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_VALMARKER_NAME,
					   .nr_u = 1, .u = { 3 },
					   .str = "temperature" }, 0);
	/* start: core_id(0, 0), the metadata buffer, core_id(0, this core) */
	p.streaming = true;
	n = hwt_tb_encode(buf, &core0, 0);
	pipe_sink(&p, buf, n);
	pipe_sink(&p, p.meta, p.meta_len);
	pipe_sink(&p, buf, n);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_ISR_ENTER, .has_ts = true,
					   .ts = 100, .nr_u = 1, .u = { 5 } }, 100);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_ISR_EXIT, .has_ts = true,
					   .ts = 150, .nr_u = 1, .u = { 5 } }, 150);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_EVTMARKER, .has_ts = true,
					   .ts = 200, .nr_u = 1, .u = { 1 },
					   .str = "hello" }, 200);
	p.drop_next = true;	/* the backend drops this one */
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_VALMARKER, .has_ts = true,
					   .ts = 300, .nr_u = 1, .u = { 3 },
					   .has_s64 = true, .s64 = -5 }, 300);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_VALMARKER, .has_ts = true,
					   .ts = 400, .nr_u = 1, .u = { 3 },
					   .has_s64 = true, .s64 = INT64_MIN }, 400);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_EVTMARKER_BEGIN,
					   .has_ts = true, .ts = 500, .nr_u = 1,
					   .u = { 1 }, .str = "x" }, 500);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_EVTMARKER_END,
					   .has_ts = true, .ts = 600, .nr_u = 1,
					   .u = { 1 } }, 600);
	hook(&w, &p, &(struct hwt_tb_evt){ .id = HWT_TB_ISR_NAME, .nr_u = 1,
					   .u = { 6 }, .str = "late" }, 700);
	n = tu_unhex(want, want_hex);
	ck_assert_uint_eq(p.len, n);
	ck_assert_mem_eq(p.out, want, n);
	ck_assert_uint_eq(w.dropped, 1);
	hwt_tb_writer_free(&w);
}

START_TEST(test_stream_every50)
{
	run_pipeline(50, stream_every50);
}
END_TEST

START_TEST(test_stream_with_drop)
{
	run_pipeline(3, stream_with_drop);
}
END_TEST

START_TEST(test_stream_no_drops)
{
	/* the vectors say TRACE_DROP_CNT_EVERY=0 gives part 3's bytes */
	run_pipeline(0, stream_every50);
}
END_TEST

/*
 * The .bin files themselves: libhwt/tests/vectors/tonbandgeraet/ (copied
 * from the project's shared/vectors, so a clone tests on its own), or the
 * directory HWT_TB_VECTORS names.  Missing files fail: a vector that is not read
 * checks nothing.
 */
START_TEST(test_stream_files)
{
	static const struct { const char *file; const char *hex; } f[] = {
		{ "stream-every50.bin", stream_every50 },
		{ "stream-with-drop.bin", stream_with_drop },
		{ "stream-no-drops.bin", stream_every50 },
	};

	const char *dir = getenv("HWT_TB_VECTORS");

	for (size_t i = 0; i < 3; i++) {
		char *rel, *path, *buf;
		size_t len, n;
		uint8_t want[512];

		if (dir) {
			ck_assert_int_gt(asprintf(&path, "%s/%s", dir, f[i].file), 0);
		} else {
			ck_assert_int_gt(asprintf(&rel, "tests/vectors/tonbandgeraet/%s",
						  f[i].file), 0);
			path = tu_path(rel);
			free(rel);
		}
		ck_assert_msg(tu_read_file(path, &buf, &len) == 0,
			      "%s: cannot read (HWT_TB_VECTORS names the directory)", path);
		n = tu_unhex(want, f[i].hex);
		ck_assert_uint_eq(len, n);
		ck_assert_mem_eq(buf, want, n);
		free(buf);
		free(path);
	}
}
END_TEST

/* --- a decoder written from the format description ------------------------------ */

struct tb_field_desc {
	uint8_t id;
	bool ts;
	uint8_t nr_u;
	bool s64;
	bool u8;
	bool str;
};

/* Field layouts of the events the converter writes (docs, "Trace Events Index"). */
static const struct tb_field_desc tb_desc[] = {
	{ 0x00, true, 1, false, false, false },	/* core_id */
	{ 0x01, true, 1, false, false, false },	/* dropped_evt_cnt */
	{ 0x02, false, 1, false, false, false },	/* ts_resolution_ns */
	{ 0x03, false, 1, false, false, true },	/* isr_name */
	{ 0x04, true, 1, false, false, false },	/* isr_enter */
	{ 0x05, true, 1, false, false, false },	/* isr_exit */
	{ 0x06, false, 1, false, false, true },	/* evtmarker_name */
	{ 0x07, true, 1, false, false, true },	/* evtmarker */
	{ 0x0A, false, 1, false, false, true },	/* valmarker_name */
	{ 0x0B, true, 1, true, false, false },	/* valmarker */
	{ 0x54, true, 1, false, false, false },	/* task_switched_in */
	{ 0x55, true, 1, false, false, false },	/* task_to_rdy_state */
	{ 0x58, true, 1, false, false, false },	/* task_suspended */
	{ 0x59, true, 1, false, false, false },	/* curtask_delay */
	{ 0x5B, true, 2, false, false, false },	/* task_priority_set */
	{ 0x5C, true, 2, false, false, false },	/* task_priority_inherit */
	{ 0x5D, true, 2, false, false, false },	/* task_priority_disinherit */
	{ 0x5E, true, 1, false, false, false },	/* task_created */
	{ 0x5F, false, 1, false, false, true },	/* task_name */
	{ 0x60, false, 2, false, false, false },	/* task_is_idle_task */
	{ 0x62, true, 1, false, false, false },	/* task_deleted */
	{ 0x64, false, 1, false, false, true },	/* queue_name */
	{ 0x65, false, 1, false, true, false },	/* queue_kind */
	{ 0x66, true, 2, false, false, false },	/* queue_send */
	{ 0x6A, true, 2, false, false, false },	/* queue_receive */
	{ 0x6F, true, 2, false, false, false },	/* curtask_block_on_queue_receive */
};

struct tb_dec {
	uint8_t id;
	bool has_ts;
	uint64_t ts;
	uint64_t u[2];
	int64_t s64;
	char str[512];
};

static size_t cobs_decode(uint8_t *out, const uint8_t *in, size_t n)
{
	size_t o = 0, i = 0;

	while (i < n) {
		uint8_t code = in[i++];

		ck_assert_uint_ne(code, 0);
		for (uint8_t k = 1; k < code; k++) {
			ck_assert_uint_lt(i, n);
			out[o++] = in[i++];
		}
		if (code != 0xFF && i < n)
			out[o++] = 0;
	}
	return o;
}

static uint64_t varlen(const uint8_t *p, size_t n, size_t *pos, unsigned int max)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < max; i++) {
		ck_assert_uint_lt(*pos, n);
		v |= (uint64_t)(p[*pos] & 0x7F) << (7 * i);
		if (!(p[(*pos)++] & 0x80))
			return v;
	}
	ck_abort_msg("varlen too long");
	return 0;
}

static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int len = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 :
			  (*p >> 3) == 30 ? 4 : 0;

		if (!len)
			return false;
		for (int i = 1; i < len; i++)
			if ((p[i] & 0xC0) != 0x80)
				return false;
		p += len;
	}
	return true;
}

/* Decode one frame (without its delimiter). */
static void tb_decode(const uint8_t *frame, size_t n, struct tb_dec *d)
{
	uint8_t p[1024];
	size_t len = cobs_decode(p, frame, n), pos = 1;
	const struct tb_field_desc *fd = NULL;

	ck_assert_uint_gt(len, 0);
	memset(d, 0, sizeof(*d));
	d->id = p[0];
	for (size_t i = 0; i < sizeof(tb_desc) / sizeof(tb_desc[0]); i++)
		if (tb_desc[i].id == d->id)
			fd = &tb_desc[i];
	ck_assert_msg(fd, "unknown event id 0x%02x", d->id);
	d->has_ts = fd->ts;
	if (fd->ts)
		d->ts = varlen(p, len, &pos, 10);
	for (int i = 0; i < fd->nr_u; i++)
		d->u[i] = varlen(p, len, &pos, 10);
	if (fd->s64) {
		uint64_t v = varlen(p, len, &pos, 10);

		d->s64 = v == 1 ? INT64_MIN : (v & 1) ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
	}
	if (fd->u8) {
		ck_assert_uint_lt(pos, len);
		pos++;
	}
	if (fd->str) {
		ck_assert_uint_lt(len - pos, sizeof(d->str));
		memcpy(d->str, p + pos, len - pos);
		d->str[len - pos] = '\0';
		ck_assert_uint_eq(strlen(d->str), len - pos);	/* no NUL inside */
		ck_assert_msg(utf8_ok(d->str), "string not UTF-8");
		pos = len;
	}
	ck_assert_uint_eq(pos, len);	/* nothing left over */
}

#define TB_MAX_CORES	8

struct tb_summary {
	size_t frames, meta, isr_enter, isr_exit, switched_in, rdy, names;
	size_t dropped_frames;
	uint64_t last_dropped;
	uint64_t res;
	uint64_t core_max[TB_MAX_CORES];	/* last ts, core_id frames included */
	bool core_seen[TB_MAX_CORES];
	/* ISR names per core, task names: as tband-cli files them */
	uint32_t isr_named[TB_MAX_CORES][32];
	char isr_name[TB_MAX_CORES][32][128];
	size_t nr_isr_named[TB_MAX_CORES];
	uint32_t task_named[256];
	char task_name[256][128];
	size_t nr_task_named;
	/* what tband-cli converts (its TraceEvtSequence::convertable_evt_idx) */
	uint64_t limit;			/* the smallest per-core last ts */
	size_t at_limit;		/* event frames at it: one is left out */
	uint64_t dropped_converted;	/* the last count before the limit */
};

static const char *tb_isr_named(const struct tb_summary *s, uint32_t core,
				uint32_t id)
{
	for (size_t i = 0; i < s->nr_isr_named[core]; i++)
		if (s->isr_named[core][i] == id)
			return s->isr_name[core][i];
	return NULL;
}

static const char *tb_task_named(const struct tb_summary *s, uint32_t id)
{
	for (size_t i = 0; i < s->nr_task_named; i++)
		if (s->task_named[i] == id)
			return s->task_name[i];
	return NULL;
}

/*
 * Walk a whole stream as tband-cli would: core_id switches, per-core order,
 * names filed per core (ISRs) or globally (tasks) and named before use, and
 * which events its conversion keeps.  The converter's promises: a core's
 * event frames have strictly increasing timestamps (an unstable sort cannot
 * swap them; a dropped_evt_cnt shares the time of the event after it), and
 * every real event comes before the limit, where only dropped_evt_cnt
 * frames are.
 */
static void tb_walk(const uint8_t *buf, size_t len, struct tb_summary *s,
		    bool multi, uint32_t nr_cores)
{
	uint32_t core = 0;
	uint64_t last_evt[TB_MAX_CORES] = { 0 };
	bool any_evt[TB_MAX_CORES] = { false };
	struct { uint64_t ts; uint8_t id; uint64_t cnt; } *ev = NULL;
	size_t nev = 0, cap = 0;

	memset(s, 0, sizeof(*s));
	ck_assert_uint_le(nr_cores, TB_MAX_CORES);
	for (size_t i = 0; i < len;) {
		const uint8_t *z = memchr(buf + i, 0, len - i);
		struct tb_dec d;

		ck_assert_ptr_nonnull(z);	/* every frame delimited */
		tb_decode(buf + i, (size_t)(z - (buf + i)), &d);
		i = (size_t)(z - buf) + 1;
		s->frames++;
		if (!d.has_ts) {
			s->meta++;
			if (d.id == HWT_TB_TS_RESOLUTION_NS)
				s->res = d.u[0];
			if (d.id == HWT_TB_TASK_NAME) {
				ck_assert_ptr_null(tb_task_named(s, (uint32_t)d.u[0]));
				ck_assert_uint_lt(s->nr_task_named, 256);
				s->task_named[s->nr_task_named] = (uint32_t)d.u[0];
				snprintf(s->task_name[s->nr_task_named++], 128, "%.127s", d.str);
				s->names++;
			}
			if (d.id == HWT_TB_ISR_NAME) {
				size_t *n = &s->nr_isr_named[core];

				ck_assert_ptr_null(tb_isr_named(s, core, (uint32_t)d.u[0]));
				ck_assert_uint_lt(*n, 32);
				s->isr_named[core][*n] = (uint32_t)d.u[0];
				snprintf(s->isr_name[core][(*n)++], 128, "%.127s", d.str);
				s->names++;
			}
			continue;
		}
		if (d.id == HWT_TB_CORE_ID) {
			ck_assert(multi);
			ck_assert_uint_lt(d.u[0], nr_cores);
			core = (uint32_t)d.u[0];
		}
		ck_assert_msg(d.ts >= s->core_max[core],
			      "core %u: ts %llu after %llu", core,
			      (unsigned long long)d.ts,
			      (unsigned long long)s->core_max[core]);
		s->core_max[core] = d.ts;
		s->core_seen[core] = true;
		if (d.id == HWT_TB_CORE_ID)
			continue;	/* tband-cli keeps only its time */
		if (d.id != HWT_TB_DROPPED_EVT_CNT) {
			ck_assert_msg(!any_evt[core] || d.ts > last_evt[core],
				      "core %u: two events at %llu", core,
				      (unsigned long long)d.ts);
			any_evt[core] = true;
			last_evt[core] = d.ts;
		}
		if (nev == cap) {
			cap = cap ? 2 * cap : 256;
			ev = realloc(ev, cap * sizeof(*ev));
			ck_assert_ptr_nonnull(ev);
		}
		ev[nev].ts = d.ts;
		ev[nev].id = d.id;
		ev[nev++].cnt = d.u[0];
		switch (d.id) {
		case HWT_TB_ISR_ENTER:
		case HWT_TB_ISR_EXIT:
			ck_assert_msg(tb_isr_named(s, core, (uint32_t)d.u[0]),
				      "isr %llu not named on core %u",
				      (unsigned long long)d.u[0], core);
			if (d.id == HWT_TB_ISR_ENTER)
				s->isr_enter++;
			else
				s->isr_exit++;
			break;
		case HWT_TB_TASK_SWITCHED_IN:
			ck_assert_ptr_nonnull(tb_task_named(s, (uint32_t)d.u[0]));
			s->switched_in++;
			break;
		case HWT_TB_TASK_TO_RDY_STATE:
			s->rdy++;
			break;
		case HWT_TB_DROPPED_EVT_CNT:
			ck_assert_uint_ge(d.u[0], s->last_dropped);	/* a running total */
			s->last_dropped = d.u[0];
			s->dropped_frames++;
			break;
		default:
			break;
		}
	}
	/* the conversion: up to the smallest last ts, less one event at it */
	s->limit = UINT64_MAX;
	for (uint32_t c = 0; c < (multi ? nr_cores : 1); c++)
		if (s->core_max[c] < s->limit)
			s->limit = s->core_max[c];
	for (size_t k = 0; k < nev; k++) {
		ck_assert_msg(ev[k].ts < s->limit || ev[k].id == HWT_TB_DROPPED_EVT_CNT,
			      "event 0x%02x at %llu, not before the limit %llu",
			      ev[k].id, (unsigned long long)ev[k].ts,
			      (unsigned long long)s->limit);
		ck_assert_uint_le(ev[k].ts, s->limit);
		if (ev[k].ts == s->limit)
			s->at_limit++;
		else if (ev[k].id == HWT_TB_DROPPED_EVT_CNT)
			s->dropped_converted = ev[k].cnt;
	}
	free(ev);
}

START_TEST(test_convert_fixture)
{
	struct tu_stream t;
	struct tb_summary s;
	char *buf;
	size_t len;

	tu_fixture(&t);
	ck_assert_int_eq(tu_convert("tband", &t.s, NULL, &buf, &len), 0);
	tu_golden("fixture.tband", buf, len);
	tb_walk((uint8_t *)buf, len, &s, true, 3);
	ck_assert_uint_eq(s.res, 1);		/* 5/12 ns per tick: ns */
	ck_assert_uint_eq(s.isr_enter, s.isr_exit);
	ck_assert_uint_gt(s.isr_enter, 0);
	ck_assert_uint_gt(s.switched_in, 0);
	ck_assert_uint_eq(s.last_dropped, 10);	/* 6 in LOST records, 4 more in info->lost */
	/* tband-cli converts everything: the final count too */
	ck_assert_uint_eq(s.dropped_converted, 10);
	ck_assert_uint_eq(s.at_limit, 1);
	for (int c = 0; c < 3; c++) {
		ck_assert(s.core_seen[c]);
		ck_assert_uint_eq(s.core_max[c], s.core_max[0]);
	}
	free(buf);
	tu_free(&t);
}
END_TEST

START_TEST(test_convert_one_core)
{
	struct tu_stream t;
	struct tb_summary all, one[3];
	struct hwt_conv_opts o = { .sz = sizeof(o), .tband_drop_every = 0 };
	size_t isr = 0;

	tu_fixture(&t);
	for (int c = 0; c < 3; c++) {
		char *buf;
		size_t len;

		o.tband_core = c;
		ck_assert_int_eq(tu_convert("tband", &t.s, &o, &buf, &len), 0);
		tb_walk((uint8_t *)buf, len, &one[c], false, 1);
		isr += one[c].isr_enter;
		ck_assert_uint_eq(one[c].at_limit, 1);
		free(buf);
	}
	{
		char *buf;
		size_t len;

		o.tband_core = -1;
		ck_assert_int_eq(tu_convert("tband", &t.s, &o, &buf, &len), 0);
		tb_walk((uint8_t *)buf, len, &all, true, 3);
		free(buf);
	}
	ck_assert_uint_eq(isr, all.isr_enter);
	o.tband_core = 3;
	{
		char *buf;
		size_t len;

		ck_assert_int_eq(tu_convert("tband", &t.s, &o, &buf, &len), -EINVAL);
		free(buf);
	}
	tu_free(&t);
}
END_TEST

START_TEST(test_max_str)
{
	struct tu_stream t;
	struct hwt_conv_opts o = { .sz = sizeof(o), .tband_core = -1,
				   .tband_max_str = 4 };
	struct tb_summary s;
	char *buf;
	size_t len;

	tu_fixture(&t);
	ck_assert_int_eq(tu_convert("tband", &t.s, &o, &buf, &len), 0);
	tb_walk((uint8_t *)buf, len, &s, true, 3);	/* checks names are UTF-8 */
	/* task 300 "bad\xff\xfeutf": cut to 4 bytes, never inside an escape */
	ck_assert_ptr_nonnull(memmem(buf, len, "\x07\x5f\xac\x02" "bad" "\x00", 8));
	free(buf);
	tu_free(&t);
}
END_TEST

/*
 * Priorities in FreeRTOS's direction (higher is more urgent): kernel prio
 * 120 is 19, a boost to 98 is 41, SCHED_DEADLINE (65535, -1) is 140; the
 * boost's end (pi_setprio back to the own priority) is a disinherit.
 */
START_TEST(test_priorities)
{
	static const struct { uint8_t id; uint64_t tid, prio; } want[] = {
		{ HWT_TB_TASK_PRIORITY_SET, 5, 19 },
		{ HWT_TB_TASK_PRIORITY_INHERIT, 5, 41 },
		{ HWT_TB_TASK_PRIORITY_INHERIT, 5, 49 },
		{ HWT_TB_TASK_PRIORITY_DISINHERIT, 5, 41 },
		{ HWT_TB_TASK_PRIORITY_DISINHERIT, 5, 19 },
		{ HWT_TB_TASK_PRIORITY_SET, 6, 140 },
	};
	struct tu_stream t;
	char *buf;
	size_t len, n = 0;

	tu_init(&t, 1, 1000000);
	tu_add(&t, 100, 0, HWT_EV_ID, 0, 5);
	tu_add(&t, 110, 0, HWT_EV_SET_PRIORITY, 120, 5);
	tu_add(&t, 120, 0, HWT_EV_INHERITANCE, 98, 5);
	tu_add(&t, 130, 0, HWT_EV_INHERITANCE, 90, 5);
	tu_add(&t, 140, 0, HWT_EV_INHERITANCE, 98, 5);
	tu_add(&t, 150, 0, HWT_EV_INHERITANCE, 120, 5);
	tu_add(&t, 160, 0, HWT_EV_SET_PRIORITY, 0xFFFF, 6);
	ck_assert_int_eq(tu_convert("tband", &t.s, NULL, &buf, &len), 0);
	for (size_t i = 0; i < len;) {
		const uint8_t *z = memchr(buf + i, 0, len - i);
		struct tb_dec d;

		ck_assert_ptr_nonnull(z);
		tb_decode((uint8_t *)buf + i, (size_t)(z - ((uint8_t *)buf + i)), &d);
		i = (size_t)(z - (uint8_t *)buf) + 1;
		if (d.id < HWT_TB_TASK_PRIORITY_SET || d.id > HWT_TB_TASK_PRIORITY_DISINHERIT)
			continue;
		ck_assert_uint_lt(n, 6);
		ck_assert_uint_eq(d.id, want[n].id);
		ck_assert_uint_eq(d.u[0], want[n].tid);
		ck_assert_uint_eq(d.u[1], want[n].prio);
		n++;
	}
	ck_assert_uint_eq(n, 6);
	free(buf);
	tu_free(&t);
}
END_TEST

/*
 * tband-cli files an isr_name under the core of the last core_id: an IRQ
 * that runs on two cores is named on both.
 */
START_TEST(test_isr_names_per_core)
{
	static const struct tu_name irqs[] = { { 16, 0, "eth0" }, { 0, 0, NULL } };
	struct tu_stream t;
	struct tb_summary s;
	char *buf;
	size_t len;

	tu_init(&t, 3, 1000000);
	t.irqs = irqs;
	tu_add(&t, 100, 0, HWT_EV_INTERRUPT_START, 16, 0);
	tu_add(&t, 110, 0, HWT_EV_INTERRUPT_END, 16, 0);
	tu_add(&t, 120, 2, HWT_EV_INTERRUPT_START, 16, 0);
	tu_add(&t, 130, 2, HWT_EV_INTERRUPT_END, 16, 0);
	tu_add(&t, 140, 0, HWT_EV_INTERRUPT_START, 16, 0);
	tu_add(&t, 150, 0, HWT_EV_INTERRUPT_END, 16, 0);
	tu_add(&t, 160, 1, HWT_EV_IPOINT, 1, 0);
	ck_assert_int_eq(tu_convert("tband", &t.s, NULL, &buf, &len), 0);
	tb_walk((uint8_t *)buf, len, &s, true, 3);	/* named before use, per core */
	ck_assert_str_eq(tb_isr_named(&s, 0, 16), "irq16-eth0");
	ck_assert_str_eq(tb_isr_named(&s, 2, 16), "irq16-eth0");
	ck_assert_ptr_null(tb_isr_named(&s, 1, 16));
	ck_assert_uint_eq(s.nr_isr_named[0], 1);	/* once per core */
	ck_assert_uint_eq(s.isr_enter, 3);
	free(buf);
	tu_free(&t);
}
END_TEST

/*
 * A loss-free trace whose last record is the end of an ISR: tband-cli
 * leaves out one event at the smallest per-core last timestamp, so every
 * core needs a frame after the last real event, and only the dummy may be
 * at it.
 */
START_TEST(test_end_loss_free)
{
	struct tu_stream t;
	struct tb_summary s;
	char *buf;
	size_t len;

	tu_init(&t, 2, 1000000);
	tu_add(&t, 100, 0, HWT_EV_ID, 0, 5);
	tu_add(&t, 100, 1, HWT_EV_ID, 1, 6);
	tu_add(&t, 200, 1, HWT_EV_INTERRUPT_START, 9, 0);
	tu_add(&t, 300, 0, HWT_EV_INTERRUPT_START, 9, 0);
	tu_add(&t, 400, 0, HWT_EV_INTERRUPT_END, 9, 0);	/* the last one */
	t.info.lost = NULL;
	ck_assert_int_eq(tu_convert("tband", &t.s, NULL, &buf, &len), 0);
	tb_walk((uint8_t *)buf, len, &s, true, 2);
	ck_assert_uint_eq(s.last_dropped, 0);
	ck_assert_uint_eq(s.isr_enter, 2);
	ck_assert_uint_eq(s.isr_exit, 1);
	ck_assert_uint_eq(s.limit, 301);	/* ns since the first record, + 1 */
	ck_assert_uint_eq(s.at_limit, 1);
	free(buf);
	tu_free(&t);
}
END_TEST

/*
 * A switch gives a blocking wait and task_switched_in at one timestamp;
 * tband-cli's unstable sort could swap them and block the wrong task: the
 * second moves one unit (here one 10 ns tick) later, and everything after
 * on that core keeps its order.
 */
START_TEST(test_same_ts_order)
{
	struct tu_stream t;
	struct tb_summary s;
	char *buf;
	size_t len;
	/*
	 * curtask_block_on_queue_receive(S wait queue 0xFFFFFF01,
	 * portMAX_DELAY) at tick 10, task_switched_in(7) at tick 11
	 */
	static const uint8_t delay[] = { 0x0d, 0x6f, 0x0a, 0x81, 0xfe, 0xff, 0xff, 0x0f,
					 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00 };
	static const uint8_t sw[] = { 0x04, 0x54, 0x0b, 0x07, 0x00 };

	tu_init(&t, 1, 100000);		/* 10 ns per tick */
	tu_add(&t, 0, 0, HWT_EV_ID, 0, 5);
	tu_add(&t, 5, 0, HWT_EV_TASK_ACTIVATE, 0, 7);
	tu_switch(&t, 10, 0, 5, HWT_STATE_SLEEPING, 7);
	tu_add(&t, 11, 0, HWT_EV_IPOINT, 1, 0);
	t.info.lost = NULL;
	ck_assert_int_eq(tu_convert("tband", &t.s, NULL, &buf, &len), 0);
	tb_walk((uint8_t *)buf, len, &s, true, 1);	/* strictly increasing */
	ck_assert_uint_eq(s.res, 10);
	ck_assert_ptr_nonnull(memmem(buf, len, delay, sizeof(delay)));
	ck_assert_ptr_nonnull(memmem(buf, len, sw, sizeof(sw)));
	free(buf);
	tu_free(&t);
}
END_TEST

/*
 * Linux sleeps are FreeRTOS blocking waits on one binary semaphore per kind
 * (S, D, I: named, kind 0x02), never curtask_delay (a timed delay); a
 * stopped or parked task is suspended.
 */
START_TEST(test_sleeps)
{
	static const uint32_t state[] = {
		HWT_STATE_SLEEPING, HWT_STATE_BLOCKED, HWT_STATE_IDLE, HWT_STATE_IDLE,
		HWT_STATE_STOPPED, HWT_STATE_OTHER,
	};
	static const struct { uint8_t id; uint64_t q; } want[] = {
		{ HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE, 0xFFFFFF01 },
		{ HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE, 0xFFFFFF02 },
		{ HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE, 0xFFFFFF06 },
		{ HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE, 0xFFFFFF06 },
		{ HWT_TB_TASK_SUSPENDED, 5 },
		{ HWT_TB_TASK_SUSPENDED, 5 },
	};
	struct tu_stream t;
	char *buf;
	size_t len, n = 0, names = 0;
	uint64_t ts = 100;

	tu_init(&t, 1, 1000000);
	tu_add(&t, ts, 0, HWT_EV_ID, 0, 5);
	for (size_t i = 0; i < 6; i++) {
		tu_switch(&t, ts += 10, 0, 5, state[i], 0);
		tu_add(&t, ts += 10, 0, HWT_EV_TASK_ACTIVATE, 0, 5);
		tu_switch(&t, ts += 10, 0, 0, HWT_STATE_RUNNABLE, 5);
	}
	ck_assert_int_eq(tu_convert("tband", &t.s, NULL, &buf, &len), 0);
	for (size_t i = 0; i < len;) {
		const uint8_t *z = memchr(buf + i, 0, len - i);
		struct tb_dec d;

		ck_assert_ptr_nonnull(z);
		tb_decode((uint8_t *)buf + i, (size_t)(z - ((uint8_t *)buf + i)), &d);
		i = (size_t)(z - (uint8_t *)buf) + 1;
		ck_assert_uint_ne(d.id, HWT_TB_CURTASK_DELAY);
		if (d.id == HWT_TB_QUEUE_NAME) {
			ck_assert_uint_eq(d.u[0] & 0xFFFFFF00u, 0xFFFFFF00u);
			ck_assert_str_eq(d.str, (d.u[0] & 0xFF) == 1 ? "linux-wait-S-sleeping" :
					 (d.u[0] & 0xFF) == 2 ? "linux-wait-D-uninterruptible" :
					 "linux-wait-I-idle");
			/* named before its first use */
			ck_assert_uint_eq(n, names > 1 ? 2 : names);
			names++;
		}
		if (d.id != HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE && d.id != HWT_TB_TASK_SUSPENDED)
			continue;
		ck_assert_uint_lt(n, 6);
		ck_assert_uint_eq(d.id, want[n].id);
		ck_assert_uint_eq(d.u[0], want[n].q);
		if (d.id == HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE)
			ck_assert_uint_eq(d.u[1], UINT32_MAX);
		n++;
	}
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(names, 3);
	free(buf);
	tu_free(&t);
}
END_TEST

/* A task without a known comm has the other formats' name. */
START_TEST(test_unknown_task_name)
{
	struct tu_stream t;
	struct tb_summary s;
	char *buf;
	size_t len;

	tu_init(&t, 1, 1000000);
	tu_add(&t, 0, 0, HWT_EV_ID, 0, 700);
	tu_switch(&t, 10, 0, 700, HWT_STATE_SLEEPING, 0);
	ck_assert_int_eq(tu_convert("tband", &t.s, NULL, &buf, &len), 0);
	tb_walk((uint8_t *)buf, len, &s, true, 1);
	ck_assert_str_eq(tb_task_named(&s, 700), "task-700");
	ck_assert_str_eq(tb_task_named(&s, HWT_TID_IDLE(0)), "swapper/0");
	free(buf);
	ck_assert_int_eq(tu_convert("btf", &t.s, NULL, &buf, &len), 0);
	ck_assert_ptr_nonnull(strstr(buf, ",T,task-700,0,start\n"));
	free(buf);
	tu_free(&t);
}
END_TEST

TU_MAIN("tband", test_event_vectors, test_cobs_vectors, test_long_string_vectors,
	test_encode_paths,
	test_stream_every50, test_stream_with_drop, test_stream_no_drops,
	test_stream_files, test_convert_fixture, test_convert_one_core, test_max_str,
	test_sleeps, test_priorities, test_isr_names_per_core, test_end_loss_free, test_same_ts_order,
	test_unknown_task_name)
