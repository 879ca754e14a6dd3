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

/* The fixture in fmt with one edit must fail its validator. */
static void edit_fails(const char *fmt, const char *from, const char *to)
{
	size_t len, fl = strlen(from), tl = strlen(to);
	char *out = convert(fmt, NULL, &len);
	char *p = strstr(out, from), *buf = malloc(len + tl + 1);
	struct tc_counts c;

	ck_assert_msg(p, "%s", from);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, out, (size_t)(p - out));
	memcpy(buf + (p - out), to, tl);
	memcpy(buf + (p - out) + tl, p + fl, len - (size_t)(p - out) - fl + 1);
	len = len - fl + tl;
	free(out);
	if (!strcmp(fmt, "htf"))
		tc_expect_fail(tc_htf(buf, len, 3, 5, 12, &c));
	else
		tc_expect_fail(tc_btf(buf, len, "ISR", &c));
	free(buf);
}

/* ... and a misspelt event, a table left out, a control char in a name. */
START_TEST(test_htf_validator_tables)
{
	static const struct { const char *from, *to; } edit[] = {
		{ "#-0B release_parking\n", "#-0B release_parkinf\n" },
		{ "#SemaphoreEventTable\n#-00 lock\n#-01 unlock\n", "" },
		{ "#-03 preempt\n#-04 terminate", "#-03 preempt\n#-05 terminate" },
		{ "rt-task-500", "rt-task\001500" },
	};

	for (size_t k = 0; k < CONV_ARRAY_SIZE(edit); k++)
		edit_fails("htf", edit[k].from, edit[k].to);
}
END_TEST

/*
 * A trace longer than 2^32 ticks needs 8-byte timestamps: every dataset
 * has 2 * (8 + 2 + 1) digits, the last one the span.
 */
START_TEST(test_htf_timestamp_length_8)
{
	struct tu_stream t;
	struct tc_counts c;
	uint64_t span = 0x123456789ull;
	char *buf;
	size_t len;

	tu_init(&t, 2, 1000000);
	tu_add(&t, 1000, 0, HWT_EV_ID, 0, 5);
	tu_add(&t, 1000, 1, HWT_EV_ID, 1, 6);
	tu_add(&t, 2000, 0, HWT_EV_INTERRUPT_START, 9, 0);
	tu_add(&t, 1000 + span, 0, HWT_EV_INTERRUPT_END, 9, 0);
	ck_assert_int_eq(tu_convert("htf", &t.s, NULL, &buf, &len), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\n#TimestampLength 8\n"));
	/* ISR 9 terminates at the span: entity 0002 (tasks 5, 6 first), event 03 */
	ck_assert_ptr_nonnull(strstr(buf, "\n0000000123456789000203\n"));
	tc_htf(buf, len, 2, 1, 1, &c);
	ck_assert_uint_eq(c.isr[TC_I_TERM], 1);
	free(buf);
	/* one tick less than 2^32 still fits 4 bytes */
	t.recs[3].ts = 1000 + 0xFFFFFFFFull;
	ck_assert_int_eq(tu_convert("htf", &t.s, NULL, &buf, &len), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\n#TimestampLength 4\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nFFFFFFFF000203\n"));
	tc_htf(buf, len, 2, 1, 1, &c);
	free(buf);
	tu_free(&t);
}
END_TEST

START_TEST(test_btf)
{
	struct tc_counts c;
	size_t len;
	char *buf = convert("btf", NULL, &len);

	tu_golden("fixture.btf", buf, len);
	/* Trace Compass drops or misreads no line; odd names come through */
	ck_assert_uint_gt(tc_btf_tracecompass(buf, len), 50);
	ck_assert_ptr_nonnull(strstr(buf, ",T,bash___q_-100,"));
	ck_assert_ptr_nonnull(strstr(buf, "# name bash___q_-100 is \"bash, \"q\"-100\"\n"));
	ck_assert_ptr_nonnull(strstr(buf, ",ISR,irq16-eth0_rx,"));
	ck_assert_ptr_nonnull(strstr(buf, ",worker_1-400,"));
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
	ck_assert_uint_gt(tc_btf_tracecompass(buf, len), 50);
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

/*
 * A literal backslash and the Unicode line breaks (U+0085, U+2028, U+2029)
 * in a name: \xHH in every text format, so "\x41" in a name is not "A"
 * and no reader splits a line.
 */
START_TEST(test_name_escapes)
{
	static const struct tu_name tasks[] = {
		{ 7, 7, "a\\x41\xc2\x85\xe2\x80\xa8\xe2\x80\xa9z" }, { 0, 0, NULL },
	};
	static const char *const fmt[] = { "btf", "htf", "atf", "json" };
	struct tu_stream t;

	tu_init(&t, 1, 1000000);
	t.tasks = tasks;
	tu_add(&t, 100, 0, HWT_EV_ID, 0, 7);
	tu_switch(&t, 200, 0, 7, HWT_STATE_SLEEPING, 0);
	for (size_t f = 0; f < CONV_ARRAY_SIZE(fmt); f++) {
		const char *want = strcmp(fmt[f], "json") ?
			"a\\x5cx41\\xc2\\x85\\xe2\\x80\\xa8\\xe2\\x80\\xa9z-7" :
			"a\\\\x5cx41\\\\xc2\\\\x85\\\\xe2\\\\x80\\\\xa8\\\\xe2\\\\x80\\\\xa9z-7";
		char *buf;
		size_t len;

		ck_assert_int_eq(tu_convert(fmt[f], &t.s, NULL, &buf, &len), 0);
		ck_assert_msg(strstr(buf, want), "%s: no %s", fmt[f], want);
		ck_assert_ptr_null(memmem(buf, len, "\xc2\x85", 2));
		ck_assert_ptr_null(memmem(buf, len, "\xe2\x80\xa8", 3));
		ck_assert_ptr_null(memmem(buf, len, "\xe2\x80\xa9", 3));
		ck_assert_ptr_null(strstr(buf, "a\\x41"));
		free(buf);
	}
	tu_free(&t);
}
END_TEST

/* The reader-facing validators reject what readers would misread. */
START_TEST(test_reader_validators_fail)
{
	static const char atf_two[] =
		"<SystemElement Name=\"a-1\" ID=\"1\" Type=\"task\" />\n"
		"<SystemElement Name=\"b-2\" ID=\"2\" Type=\"task\" />\n"
		"<TraceData Start=\"0\">\n<Comment>Core_0: x</Comment>\n"
		"<TraceEntry Time=\"1\" EventID=\"2\" ReferenceID=\"1\" />\n"
		"<TraceEntry Time=\"2\" EventID=\"2\" ReferenceID=\"2\" />\n</TraceData>\n";
	static const char btf_comma[] = "#version 2.1.3\n0,Core_0,-1,T,\"a, b\"-1,0,start\n";
	static const char btf_time[] = "5.0,Core_0,-1,T,a-1,0,start\n";
	static const char btf_type[] = "5,Core_0,-1,TASK,a-1,0,start\n";
	size_t len, a, b, c;
	char *buf = convert("json", NULL, &len), *p = strstr(buf, "{\"ph\":\"X\"");

	ck_assert_ptr_nonnull(p);
	p[7] = 'B';	/* a B slice */
	tc_expect_fail(tc_json(buf, len, &a, &b, &c));
	free(buf);
	ck_assert_uint_eq(tc_btf_tracecompass("0,Core_0,-1,T,a-1,0,start\n", 26), 1);
	tc_expect_fail(tc_btf_tracecompass(btf_comma, strlen(btf_comma)));
	tc_expect_fail(tc_btf_tracecompass(btf_time, strlen(btf_time)));
	tc_expect_fail(tc_btf_tracecompass(btf_type, strlen(btf_type)));
	tc_expect_fail(tc_atf_cores(atf_two, 1));
	tc_expect_fail(tc_atf_cores(atf_two, 2));	/* one TraceData for two cores */
}
END_TEST

/* Stimuli are instanceable: -1 (non-instanceable) or a skipped number fails. */
START_TEST(test_btf_checker_instances)
{
	static const struct { const char *from, *to; } edit[] = {
		{ ",STI_trace,1,", ",STI_trace,-1," },
		{ ",STI_trace,2,", ",STI_trace,3," },
		{ ",STI_irq16-eth0_rx,0,", ",STI_irq16-eth0_rx,1," },
		{ ",Core_0,-1,", ",Core_0,0," },
	};

	for (size_t k = 0; k < CONV_ARRAY_SIZE(edit); k++)
		edit_fails("btf", edit[k].from, edit[k].to);
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
	/* 400's only priority is borrowed (inheritance): not its own */
	ck_assert_ptr_null(strstr(buf, "<Name>Priority</Name>"));
	ck_assert_ptr_nonnull(strstr(buf, "<Name>CETmax</Name><Value>480</Value>"));
	ck_assert_ptr_nonnull(strstr(buf, "Name=\"bash, &quot;q&quot;-100\""));
	ck_assert_ptr_nonnull(strstr(buf, "Name=\"irq17-timer&quot;x&lt;&amp;&gt;\""));
	ck_assert_ptr_nonnull(strstr(buf, "Name=\"ctl\\x01\\x09x-200\""));
	ck_assert_ptr_null(strstr(buf, "\"end\""));
	free(buf);
}
END_TEST

/*
 * Priority is the task's own, not a boost; PRE counts what TraceData shows
 * as preempt -> resume, a lock wait included.  Task 5 (priority 120,
 * boosted to 98 while it holds a lock) waits 30 ticks for lock 77, and is
 * preempted 10 ticks.
 */
START_TEST(test_atf_priority_and_pre)
{
	struct tu_stream t;
	char *buf;
	size_t len, ev[8];

	tu_init(&t, 1, 1000000);
	tu_add(&t, 0, 0, HWT_EV_ID, 0, 0);
	tu_add(&t, 5, 0, HWT_EV_SET_PRIORITY, 120, 5);
	tu_add(&t, 10, 0, HWT_EV_TASK_ACTIVATE, 0, 5);
	tu_switch(&t, 20, 0, 0, HWT_STATE_RUNNABLE, 5);
	tu_add(&t, 25, 0, HWT_EV_INHERITANCE, 98, 5);
	tu_add(&t, 30, 0, HWT_EV_MUTEX_WAIT, 0, 77);
	tu_switch(&t, 40, 0, 5, HWT_STATE_BLOCKED, 0);		/* wait */
	tu_add(&t, 60, 0, HWT_EV_TASK_ACTIVATE, 0, 5);		/* release */
	tu_switch(&t, 70, 0, 0, HWT_STATE_RUNNABLE, 5);		/* resume: 30 */
	tu_add(&t, 75, 0, HWT_EV_MUTEX_LOCK, 0, 77);
	tu_switch(&t, 80, 0, 5, HWT_STATE_RUNNABLE, 0);		/* preempt */
	tu_switch(&t, 90, 0, 0, HWT_STATE_RUNNABLE, 5);		/* resume: 10 */
	tu_switch(&t, 100, 0, 5, HWT_STATE_SLEEPING, 0);	/* terminate */
	ck_assert_int_eq(tu_convert("atf", &t.s, NULL, &buf, &len), 0);
	ck_assert_int_eq(tc_xmllint(buf, len), 0);
	/* higher is more urgent in ATF: kernel prio 120 is 139 - 120 */
	ck_assert_ptr_nonnull(strstr(buf, "<Name>Priority</Name><Value>19</Value>"));
	ck_assert_ptr_null(strstr(buf, "<Name>Priority</Name><Value>41</Value>"));
	ck_assert_ptr_null(strstr(buf, "<Value>120</Value>"));
	/* the entries: two preempts (the wait, the preemption), two resumes */
	tc_atf_counts(buf, ev);
	ck_assert_uint_eq(ev[3], 2);	/* none of the idle task: it is no task */
	ck_assert_ptr_nonnull(strstr(buf, "<Name>PREmin</Name><Value>10</Value>"));
	ck_assert_ptr_nonnull(strstr(buf, "<Name>PREmax</Name><Value>30</Value>"));
	ck_assert_ptr_nonnull(strstr(buf, "<Name>PREav</Name><Value>20</Value>"));
	/* CET excludes both: 20 + 10 + 10 */
	ck_assert_ptr_nonnull(strstr(buf, "<Name>CETmax</Name><Value>40</Value>"));
	free(buf);
	/* SCHED_DEADLINE's -1 (65535 in par1) is the most urgent of all */
	tu_add(&t, 110, 0, HWT_EV_SET_PRIORITY, 0xFFFF, 5);
	ck_assert_int_eq(tu_convert("atf", &t.s, NULL, &buf, &len), 0);
	ck_assert_ptr_nonnull(strstr(buf, "<Name>Priority</Name><Value>140</Value>"));
	free(buf);
	tu_free(&t);
}
END_TEST

/*
 * make install puts the schema the ATF output names where the
 * documentation says: $(PREFIX)/share/hwtrace/atf.xsd (a dry run: nothing
 * is built or written).
 */
START_TEST(test_atf_xsd_installed)
{
	char *cmd, *out;
	size_t len;
	FILE *f;

	ck_assert_int_gt(asprintf(&cmd, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "
				  "make -s -n -C '%s' install DESTDIR=/nonexistent "
				  "PREFIX=/opt/hwt 2>&1", tu_srcdir()), 0);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	out = calloc(1, 1 << 16);
	ck_assert_ptr_nonnull(out);
	len = fread(out, 1, (1 << 16) - 1, f);
	out[len] = '\0';
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_msg(tc_match("install -m 644 conv/atf\\.xsd "
			       "/nonexistent/opt/hwt/share/hwtrace/?(atf\\.xsd)?\n", out),
		      "%s", out);
	free(out);
	free(cmd);
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
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"ctl\\\\x01\\\\x09x-200\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"bad\\\\xff\\\\xfeutf-300\""));
	/* 400 waits for the lock from contention to acquisition, its sleep too */
	ck_assert_ptr_nonnull(strstr(buf, "\"pid\":100,\"tid\":400,\"ts\":0.166,\"dur\":0.334,"
				      "\"cat\":\"lock\",\"name\":\"lock-deadbeef\"}"));
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

/*
 * One stream per CPU (S.Ha.R.K.'s <n>trace.dat): each holds exactly its
 * CPU's records in time order; a NULL stream skips its CPU.
 */
START_TEST(test_shark_per_cpu)
{
	struct tu_stream t;
	char *buf[3] = { NULL, NULL, NULL };
	size_t len[3] = { 0, 0, 0 };
	FILE *f[3];
	struct hwt_conv_opts o = { .sz = sizeof(o), .tband_core = -1, .shark_cpu = -1,
				   .shark_files = f };

	tu_fixture(&t);
	for (int c = 0; c < 3; c++)
		f[c] = c == 2 ? NULL : open_memstream(&buf[c], &len[c]);
	ck_assert_int_eq(hwt_convert("shark", &t.s, stdout, &o), 0);
	for (int c = 0; c < 2; c++)
		ck_assert_int_eq(fclose(f[c]), 0);
	for (uint32_t c = 0; c < 2; c++) {
		size_t k = 0;

		for (size_t i = 0; i < t.n; i++) {
			const uint8_t *r = (const uint8_t *)buf[c] + 16 * k;
			uint32_t lo;

			if (t.recs[i].cpu != c)
				continue;
			ck_assert_uint_lt(16 * k, len[c]);
			lo = r[8] | r[9] << 8 | (uint32_t)r[10] << 16 | (uint32_t)r[11] << 24;
			ck_assert_uint_eq(lo, (uint32_t)t.recs[i].ts);
			k++;
		}
		ck_assert_uint_eq(len[c], 16 * k);
		ck_assert_uint_gt(k, 0);
		free(buf[c]);
	}
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

/* The decimal clock against printf: small steps (carries, a digit more), jumps, going back. */
START_TEST(test_dec_clock)
{
	static const uint64_t steps[] = { 0, 1, 9, 37, 99, 999, 99999, 100000, 12345678 };
	struct hwt_dec_clock c = { .valid = false };
	uint64_t v = 0, x = 7;
	char want[32];

	for (int i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if (i == 1000)
			v = 9999999999999999990ull;	/* toward 20 digits */
		else if (x % 97 == 0)
			v = x >> (x % 64);		/* anywhere, back too */
		else if (v < UINT64_MAX - 20000000)
			v += steps[(x >> 8) % CONV_ARRAY_SIZE(steps)];
		hwt_dec_clock_set(&c, v);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		ck_assert_uint_eq(c.len, strlen(want));
		ck_assert(!memcmp(c.s, want, c.len));
	}
}
END_TEST

/* ctf's and perfetto's prev_state: the kernel's report bits, ftrace's letters */
START_TEST(test_report_state)
{
	static const struct { uint32_t st, bits; } m[] = {
		{ HWT_STATE_RUNNABLE, 0x00 }, { HWT_STATE_SLEEPING, 0x01 },
		{ HWT_STATE_BLOCKED, 0x02 }, { HWT_STATE_STOPPED, 0x04 },
		{ HWT_STATE_DEAD, 0x10 }, { HWT_STATE_OTHER, 0x40 },
		{ HWT_STATE_IDLE, 0x80 },	/* TASK_REPORT_IDLE, not D */
	};

	for (size_t i = 0; i < CONV_ARRAY_SIZE(m); i++)
		ck_assert_uint_eq(hwt_conv_report_state(m[i].st), m[i].bits);
}
END_TEST

TU_MAIN("formats", test_report_state, test_htf, test_htf_validator_fails, test_htf_validator_tables,
	test_htf_timestamp_length_8, test_btf, test_btf_isr_type_i,
	test_btf_checker_fails, test_btf_checker_instances, test_atf,
	test_atf_priority_and_pre, test_atf_xsd_installed, test_atf_schema_rejects,
	test_json, test_json_validator_fails, test_reader_validators_fail, test_name_escapes, test_shark_per_cpu, test_shark, test_formatters,
	test_dec_clock)
