// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Across formats: one trace converted to every format gives the same number
 * of task and ISR events (as each format can express them, checked against
 * the model); a stream that fails part-way gives complete, valid output and
 * -EBADMSG; the API's error paths.
 */
#include "test_conv_check.h"

#define CONV_N(a)	(sizeof(a) / sizeof((a)[0]))

struct model_counts {
	size_t n[HWT_NR_MEV];
	size_t isr_resumes;	/* task resumes after an ISR */
};

static void count_ev(void *ctx, const struct hwt_mev *ev)
{
	struct model_counts *c = ctx;

	c->n[ev->type]++;
	if (ev->type == HWT_MEV_TASK_RESUME && (ev->flags & HWT_MEVF_ISR))
		c->isr_resumes++;
}

static void model_counts(struct tu_stream *t, struct model_counts *c)
{
	struct hwt_model *m;
	struct hwt_record r;

	memset(c, 0, sizeof(*c));
	ck_assert_int_eq(hwt_model_new(&m, &t->info, &t->s), 0);
	t->pos = 0;
	while (tu_next(t, &r) > 0)
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	ck_assert_int_eq(hwt_model_restart(m), 0);
	hwt_model_set_sink(m, count_ev, c);
	t->pos = 0;
	while (tu_next(t, &r) > 0)
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	ck_assert_int_eq(hwt_model_end(m), 0);
	hwt_model_free(m);
}

/* tband: count isr_enter/exit and switched_in frames (decoded by hand). */
static void tband_counts(const uint8_t *b, size_t len, size_t *isr_in, size_t *sw)
{
	*isr_in = *sw = 0;
	for (size_t i = 0; i < len;) {
		const uint8_t *z = memchr(b + i, 0, len - i);
		uint8_t id;

		ck_assert_ptr_nonnull(z);
		/* the id is the first payload byte; a COBS code of 1 means it is 0 */
		id = b[i] == 1 ? 0 : b[i + 1];
		if (id == 0x04)
			(*isr_in)++;
		if (id == 0x54)
			(*sw)++;
		i = (size_t)(z - b) + 1;
	}
}

static void check_all(struct tu_stream *t, int expect)
{
	struct model_counts mc;
	struct tc_counts htf, btf;
	size_t atf[8], isr_in, sw, cpu, irq, lost, len;
	char *buf;
	uint64_t num = 1000000, den = t->info.cycles_per_msec, a = num, b = den;

	while (b) {		/* ns per tick, reduced */
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	num /= a;
	den /= a;
	model_counts(t, &mc);

	ck_assert_int_eq(tu_convert("htf", &t->s, NULL, &buf, &len), expect);
	tc_htf(buf, len, t->info.nr_cpus, num, den, &htf);
	free(buf);
	ck_assert_int_eq(tu_convert("btf", &t->s, NULL, &buf, &len), expect);
	tc_btf(buf, len, "ISR", &btf);
	free(buf);
	ck_assert_int_eq(tu_convert("atf", &t->s, NULL, &buf, &len), expect);
	ck_assert_int_eq(tc_xmllint(buf, len), 0);
	tc_atf_counts(buf, atf);
	free(buf);
	ck_assert_int_eq(tu_convert("tband", &t->s, NULL, &buf, &len), expect);
	tband_counts((uint8_t *)buf, len, &isr_in, &sw);
	free(buf);
	ck_assert_int_eq(tu_convert("json", &t->s, NULL, &buf, &len), expect);
	tc_json(buf, len, &cpu, &irq, &lost);
	free(buf);

	/* HTF and BTF: every task and ISR event of the model */
	ck_assert_uint_eq(htf.task[TC_ACT], mc.n[HWT_MEV_TASK_ACTIVATE]);
	ck_assert_uint_eq(htf.task[TC_START], mc.n[HWT_MEV_TASK_START]);
	ck_assert_uint_eq(htf.task[TC_RESUME], mc.n[HWT_MEV_TASK_RESUME]);
	ck_assert_uint_eq(htf.task[TC_PREEMPT], mc.n[HWT_MEV_TASK_PREEMPT]);
	ck_assert_uint_eq(htf.task[TC_TERM], mc.n[HWT_MEV_TASK_TERMINATE]);
	ck_assert_uint_eq(htf.task[TC_WAIT], mc.n[HWT_MEV_TASK_WAIT]);
	ck_assert_uint_eq(htf.task[TC_REL], mc.n[HWT_MEV_TASK_RELEASE]);
	ck_assert_mem_eq(htf.task, btf.task, sizeof(htf.task));
	ck_assert_mem_eq(htf.isr, btf.isr, sizeof(htf.isr));
	ck_assert_mem_eq(htf.runnable, btf.runnable, sizeof(htf.runnable));
	ck_assert_uint_eq(htf.isr[TC_I_START], mc.n[HWT_MEV_ISR_START]);
	ck_assert_uint_eq(htf.isr[TC_I_TERM], mc.n[HWT_MEV_ISR_TERMINATE]);
	ck_assert_uint_eq(htf.isr[TC_I_PREEMPT], mc.n[HWT_MEV_ISR_PREEMPT]);
	/* ATF: wait is a preempt, release has no entry */
	ck_assert_uint_eq(atf[1], htf.task[TC_ACT]);
	ck_assert_uint_eq(atf[2], htf.task[TC_START] + htf.isr[TC_I_START] +
			  htf.runnable[0]);
	ck_assert_uint_eq(atf[3], htf.task[TC_PREEMPT] + htf.task[TC_WAIT] +
			  htf.isr[TC_I_PREEMPT] + htf.runnable[1]);
	ck_assert_uint_eq(atf[5], htf.task[TC_TERM] + htf.isr[TC_I_TERM] +
			  htf.runnable[3]);
	/* tband and JSON: ISRs nest, the task they interrupt keeps running */
	ck_assert_uint_eq(isr_in, htf.isr[TC_I_START] + htf.runnable[0]);
	ck_assert_uint_eq(irq, htf.isr[TC_I_START]);
	ck_assert_uint_eq(sw, htf.task[TC_START] + htf.task[TC_RESUME] - mc.isr_resumes);
	ck_assert_uint_eq(cpu, sw);
}

START_TEST(test_cross_fixture)
{
	struct tu_stream t;

	tu_fixture(&t);
	check_all(&t, 0);
	tu_free(&t);
}
END_TEST

/* A bigger random-ish trace: many tasks, IRQ storms, losses. */
START_TEST(test_cross_generated)
{
	struct tu_stream t;
	unsigned int seed = 7;
	uint32_t cur[4] = { 0, 0, 0, 0 };
	uint64_t ts = 5000;

	tu_init(&t, 4, 3000000);	/* 3 GHz: 1/3 ns */
	for (uint32_t c = 0; c < 4; c++)
		tu_add(&t, ts, c, HWT_EV_ID, (uint16_t)c, 0);
	for (int i = 0; i < 20000; i++) {
		uint32_t c = (uint32_t)rand_r(&seed) % 4;
		uint32_t next = 10 + (uint32_t)rand_r(&seed) % 40;
		int r = rand_r(&seed) % 10;

		ts += 1 + (uint64_t)(rand_r(&seed) % 50);
		if (r < 4) {
			tu_add(&t, ts, c, HWT_EV_TASK_ACTIVATE, (uint16_t)c, next);
		} else if (r < 8) {
			tu_switch(&t, ts, c, cur[c], (uint32_t)rand_r(&seed) % 3, next);
			cur[c] = next;
		} else if (r == 8) {
			tu_add(&t, ts, c, HWT_EV_INTERRUPT_START, 30, 0);
			tu_add(&t, ts + 1, c, HWT_EV_INTERRUPT_END, 30, 1);
		} else {
			tu_add(&t, ts, c, HWT_EV_LOST, 0, (uint32_t)i);
		}
	}
	check_all(&t, 0);
	tu_free(&t);
}
END_TEST

/* The stream fails part-way: complete output, -EBADMSG, fewer events. */
START_TEST(test_truncated_stream)
{
	struct tu_stream t;

	tu_fixture(&t);
	/* before and after the start is known (the formats that stop pass 1
	 * there meet the error in pass 2 only in the second case) */
	t.fail_at = 5;
	check_all(&t, -EBADMSG);
	t.fail_at = t.n / 2;
	check_all(&t, -EBADMSG);
	{
		char *buf;
		size_t len;

		ck_assert_int_eq(tu_convert("shark", &t.s, NULL, &buf, &len), -EBADMSG);
		ck_assert_uint_eq(len, 16 * (t.n / 2));
		free(buf);
	}
	tu_free(&t);
}
END_TEST

START_TEST(test_no_rewind)
{
	static const char *const two_pass[] = { "htf", "atf", "btf", "tband", "json",
						 "perfetto" };
	struct tu_stream t;
	char *buf;
	size_t len;

	tu_fixture(&t);
	t.no_rewind = 1;
	for (size_t i = 0; i < CONV_N(two_pass); i++) {
		ck_assert_int_eq(tu_convert(two_pass[i], &t.s, NULL, &buf, &len), -ESPIPE);
		free(buf);
	}
	ck_assert_int_eq(tu_convert("shark", &t.s, NULL, &buf, &len), 0);
	ck_assert_uint_eq(len, 16 * t.n);
	free(buf);
	tu_free(&t);
}
END_TEST

/*
 * HTF, BTF and Tonbandgeraet read the stream once, and its start twice: pass
 * 1 stops when every CPU's start is known (the fixture: at cpu2's first
 * switch, record 15 of 44).  ATF, JSON and Perfetto need their tables
 * first: two whole passes.  The output is the same model either way.
 */
START_TEST(test_pass1_reads_start)
{
	static const char *const fmt[] = { "htf", "btf", "tband", "atf", "json", "perfetto" };
	struct tu_stream t;

	tu_fixture(&t);
	for (size_t i = 0; i < CONV_N(fmt); i++) {
		char *buf;
		size_t len;

		t.nr_read = 0;
		ck_assert_int_eq(tu_convert(fmt[i], &t.s, NULL, &buf, &len), 0);
		free(buf);
		ck_assert_uint_eq(t.n, 44);
		ck_assert_uint_eq(t.nr_read, t.n + (i < 3 ? 15 : t.n));
	}
	/* a CPU that never has a record: pass 1 reads it all to be sure */
	t.info.nr_cpus = 4;
	t.nr_read = 0;
	{
		char *buf;
		size_t len;

		ck_assert_int_eq(tu_convert("btf", &t.s, NULL, &buf, &len), 0);
		free(buf);
	}
	ck_assert_uint_eq(t.nr_read, 2 * t.n);
	tu_free(&t);
}
END_TEST

START_TEST(test_api)
{
	const char *const *f = hwt_conv_formats();
	static const char *const want[] = { "htf", "atf", "btf", "tband", "shark", "json",
					    "perfetto", "ctf" };
	struct tu_stream t;
	struct hwt_conv_opts o = { .sz = 1 };
	FILE *full;
	char *buf;
	size_t len;

	for (size_t i = 0; i < CONV_N(want); i++)
		ck_assert_str_eq(f[i], want[i]);
	ck_assert_ptr_null(f[CONV_N(want)]);
	tu_fixture(&t);
	ck_assert_int_eq(tu_convert("pdf", &t.s, NULL, &buf, &len), -EINVAL);
	ck_assert_uint_eq(len, 0);
	free(buf);
	ck_assert_int_eq(tu_convert("htf", &t.s, &o, &buf, &len), -EINVAL);
	free(buf);
	/* an older, shorter opts struct: defaults for the fields it lacks */
	o.sz = offsetof(struct hwt_conv_opts, tband_core);
	ck_assert_int_eq(tu_convert("tband", &t.s, &o, &buf, &len), 0);
	free(buf);
	ck_assert_int_eq(hwt_convert("htf", NULL, stdout, NULL), -EINVAL);
	/* a full disk is -EIO, for every format that writes a file (ctf, a
	 * directory, is refused by hwt_convert) */
	full = fopen("/dev/full", "w");
	if (full) {
		for (size_t i = 0; i < CONV_N(want); i++)
			ck_assert_int_eq(hwt_convert(want[i], &t.s, full, NULL),
					 hwt_conv_format_is_dir(want[i]) ? -EINVAL : -EIO);
		fclose(full);
	}
	tu_free(&t);
}
END_TEST

/* cycles_per_msec 0 (unknown) is taken as ns; exact scales reduce. */
START_TEST(test_time_scales)
{
	static const struct { uint64_t cpm; const char *num, *den; } s[] = {
		{ 0, "#TimeScaleNumerator 1\n", "#TimeScaleDenominator 1\n" },
		{ 1000, "#TimeScaleNumerator 1000\n", "#TimeScaleDenominator 1\n" },
		{ 3000000, "#TimeScaleNumerator 1\n", "#TimeScaleDenominator 3\n" },
		{ 2893437, "#TimeScaleNumerator 1000000\n", "#TimeScaleDenominator 2893437\n" },
	};

	for (size_t i = 0; i < 4; i++) {
		struct tu_stream t;
		char *buf;
		size_t len;

		tu_fixture(&t);
		t.info.cycles_per_msec = s[i].cpm;
		ck_assert_int_eq(tu_convert("htf", &t.s, NULL, &buf, &len), 0);
		ck_assert_ptr_nonnull(strstr(buf, s[i].num));
		ck_assert_ptr_nonnull(strstr(buf, s[i].den));
		free(buf);
		ck_assert_int_eq(tu_convert("atf", &t.s, NULL, &buf, &len), 0);
		ck_assert_int_eq(tc_xmllint(buf, len), 0);
		free(buf);
		tu_free(&t);
	}
}
END_TEST

TU_MAIN("cross", test_cross_fixture, test_cross_generated, test_truncated_stream,
	test_no_rewind, test_pass1_reads_start, test_api, test_time_scales)
