// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HTF, BTF, ATF, JSON and shark output of the fixture trace: golden files
 * (HWT_REGEN_GOLDEN=1 rewrites them) and validators written from each spec
 * (test_conv_check.h); ATF is validated with xmllint against conv/atf.xsd.
 */
#include "test_conv_check.h"
#include "../conv/conv_internal.h"

static char *convert(const char *fmt, const struct hwt_conv_opts *o, size_t *len)
{
	struct tu_stream t;
	char *buf;

	tu_fixture(&t);
	ck_assert_int_eq(tu_convert(fmt, &t.s, o, &buf, len), 0);
	tu_free(&t);
	return buf;
}

START_TEST(test_htf)
{
	struct tc_counts c;
	size_t len;
	char *buf = convert("htf", NULL, &len);

	tu_golden("fixture.htf", buf, len);
	tc_htf(buf, len, 3, 5, 12, &c);		/* 2.4 GHz: 5/12 ns per tick */
	ck_assert_uint_eq(c.task[TC_WAIT], 1);
	ck_assert_uint_eq(c.task[TC_REL], 1);
	ck_assert_uint_eq(c.isr[TC_I_START], 3);
	ck_assert_uint_eq(c.isr[TC_I_PREEMPT], 1);
	ck_assert_uint_eq(c.lost_marks, 4);
	free(buf);
}
END_TEST

/* A validator that accepts anything proves nothing: break a dataset. */
START_TEST(test_htf_validator_fails)
{
	size_t len;
	char *buf = convert("htf", NULL, &len);
	char *d = strstr(buf, "#-01\n");

	ck_assert_ptr_nonnull(d);
	d[5] = 'x';		/* first dataset of core 1 */
	{
		struct tc_counts c;

		tc_expect_fail(tc_htf(buf, len, 3, 5, 12, &c));
	}
	free(buf);
}
END_TEST

START_TEST(test_btf)
{
	struct tc_counts c;
	size_t len;
	char *buf = convert("btf", NULL, &len);

	tu_golden("fixture.btf", buf, len);
	tc_btf(buf, len, "ISR", &c);
	ck_assert_uint_eq(c.task[TC_WAIT], 1);
	ck_assert_uint_eq(c.isr[TC_I_START], 3);
	ck_assert_uint_eq(c.runnable[1], 1);	/* softirq suspended by irq 16 */
	ck_assert_uint_eq(c.lost_marks, 8);	/* comment + SIG, 4 times */
	free(buf);
}
END_TEST

START_TEST(test_btf_isr_type_i)
{
	struct hwt_conv_opts o = { .sz = sizeof(o), .btf_isr_type_i = 1,
				   .tband_core = -1, .shark_cpu = -1 };
	struct tc_counts c;
	size_t len;
	char *buf = convert("btf", &o, &len);

	ck_assert_ptr_null(strstr(buf, ",ISR,"));
	ck_assert_ptr_nonnull(strstr(buf, ",I,"));
	tc_btf(buf, len, "I", &c);
	ck_assert_uint_eq(c.isr[TC_I_START], 3);
	free(buf);
}
END_TEST

START_TEST(test_btf_checker_fails)
{
	size_t len;
	char *buf = convert("btf", NULL, &len);
	char *p = strstr(buf, ",resume\n");
	struct tc_counts c;

	ck_assert_ptr_nonnull(p);
	memcpy(p, ",start \n", 8);	/* a second start: not in the chart */
	p[6] = '\n';
	p[7] = '\n';
	tc_expect_fail(tc_btf(buf, len, "ISR", &c));
	free(buf);
}
END_TEST

START_TEST(test_atf)
{
	size_t len, ev[8];
	char *buf = convert("atf", NULL, &len);

	tu_golden("fixture.atf", buf, len);
	ck_assert_int_eq(tc_xmllint(buf, len), 0);
	tc_atf_counts(buf, ev);
	ck_assert_uint_eq(ev[6], 4);		/* lost events: error entries */
	ck_assert_ptr_nonnull(strstr(buf, "<Value Numerator=\"5\" Denominator=\"12\" />"));
	ck_assert_ptr_nonnull(strstr(buf, "<Name>Priority</Name><Value>98</Value>"));
	ck_assert_ptr_nonnull(strstr(buf, "<Name>CETmax</Name><Value>480</Value>"));
	ck_assert_ptr_nonnull(strstr(buf, "Name=\"bash, &quot;q&quot;-100\""));
	ck_assert_ptr_nonnull(strstr(buf, "Name=\"irq17-timer&quot;x&lt;&amp;&gt;\""));
	ck_assert_ptr_nonnull(strstr(buf, "Name=\"ctl\\x01\\x09x-200\""));
	ck_assert_ptr_null(strstr(buf, "\"end\""));
	free(buf);
}
END_TEST

/* The schema rejects what the spec forbids, e.g. the examples' "end". */
START_TEST(test_atf_schema_rejects)
{
	size_t len;
	char *buf = convert("atf", NULL, &len);
	char *p = strstr(buf, "EventType=\"terminate\"");

	ck_assert_ptr_nonnull(p);
	memcpy(p, "EventType=\"end\"      ", 21);
	ck_assert_int_ne(tc_xmllint(buf, len), 0);
	free(buf);
	buf = convert("atf", NULL, &len);
	p = strstr(buf, "Version=\"1.0\">");
	memcpy(p, "Version=\"0.2\">", 14);
	ck_assert_int_ne(tc_xmllint(buf, len), 0);
	free(buf);
}
END_TEST

START_TEST(test_json)
{
	size_t len, cpu, irq, lost;
	char *buf = convert("json", NULL, &len);

	tu_golden("fixture.json", buf, len);
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"ctl\\u0001\\u0009x-200\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"bad\\\\xff\\\\xfeutf-300\""));
	tc_json(buf, len, &cpu, &irq, &lost);	/* splits buf into lines */
	ck_assert_uint_eq(irq, 3);
	ck_assert_uint_eq(lost, 4);
	free(buf);
}
END_TEST

START_TEST(test_json_validator_fails)
{
	size_t len, a, b, c;
	char *buf = convert("json", NULL, &len);

	buf[len - 3] = ',';	/* "]}" -> ",}" */
	tc_expect_fail(tc_json(buf, len, &a, &b, &c));
	free(buf);
}
END_TEST

START_TEST(test_shark)
{
	struct tu_stream t;
	struct hwt_conv_opts o = { .sz = sizeof(o), .tband_core = -1, .shark_cpu = 1 };
	char *buf;
	size_t len, n1 = 0;

	tu_fixture(&t);
	ck_assert_int_eq(tu_convert("shark", &t.s, NULL, &buf, &len), 0);
	tu_golden("fixture.shark", buf, len);
	ck_assert_uint_eq(len, 16 * t.n);
	for (size_t i = 0; i < t.n; i++) {
		const uint8_t *r = (const uint8_t *)buf + 16 * i;
		uint32_t w0 = r[0] | r[1] << 8 | (uint32_t)r[2] << 16 | (uint32_t)r[3] << 24;
		uint32_t lo = r[8] | r[9] << 8 | (uint32_t)r[10] << 16 | (uint32_t)r[11] << 24;

		ck_assert_uint_eq(w0 & 0xFFFF, t.recs[i].ev.code);
		ck_assert_uint_eq(w0 >> 16, t.recs[i].ev.par1);
		ck_assert_uint_eq(lo, (uint32_t)t.recs[i].ts);
		n1 += t.recs[i].cpu == 1;
	}
	free(buf);
	ck_assert_int_eq(tu_convert("shark", &t.s, &o, &buf, &len), 0);
	ck_assert_uint_eq(len, 16 * n1);
	free(buf);
	tu_free(&t);
}
END_TEST

/* The hand-rolled formatters against printf, at the edges of each width. */
START_TEST(test_formatters)
{
	static const uint64_t vals[] = {
		0, 1, 9, 10, 15, 16, 99, 100, 0xABCDEF, 999999999, 1000000000,
		0x7FFFFFFF, 0xFFFFFFFF, 0x100000000ull, 0x123456789ABCDEFull,
		9999999999999999999ull, 10000000000000000000ull, UINT64_MAX,
	};
	struct hwt_obuf o;
	char want[64];
	uint64_t x = 12345;

	ck_assert_int_eq(hwt_obuf_init(&o, NULL, 16), 0);
	for (size_t i = 0; i < CONV_ARRAY_SIZE(vals) + 2000; i++) {
		uint64_t v = i < CONV_ARRAY_SIZE(vals) ? vals[i] :
			     (x = x * 6364136223846793005ull + 1442695040888963407ull) >>
			     (i % 64);

		for (unsigned int w = 1; w <= 16; w++) {
			o.len = 0;
			ob_hex(&o, v, w);
			snprintf(want, sizeof(want), "%016llX", (unsigned long long)v);
			ck_assert_uint_eq(o.len, w);
			ck_assert(!memcmp(o.buf, want + 16 - w, w));
		}
		o.len = 0;
		ob_u64(&o, v);
		ob_putc(&o, ' ');
		ob_s64(&o, (int64_t)v);
		snprintf(want, sizeof(want), "%llu %lld", (unsigned long long)v,
			 (long long)v);
		ck_assert_uint_eq(o.len, strlen(want));
		ck_assert(!memcmp(o.buf, want, o.len));
	}
	hwt_obuf_free(&o);
}
END_TEST

TU_MAIN("formats", test_htf, test_htf_validator_fails, test_btf,
	test_btf_isr_type_i, test_btf_checker_fails, test_atf,
	test_atf_schema_rejects, test_json, test_json_validator_fails, test_shark,
	test_formatters)
