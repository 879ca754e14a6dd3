// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Across formats: one trace converted to every format gives the same number
 * of task and ISR events (as each format can express them, checked against
 * the model); a stream that fails part-way gives complete, valid output and
 * -EBADMSG; the API's error paths.
 */
#include <stdarg.h>

#include <hwt/hwt.h>

#include "test_conv_check.h"

#define CONV_N(a)	(sizeof(a) / sizeof((a)[0]))

struct model_counts {
	size_t n[HWT_NR_MEV];	/* of what runs: not the idle tasks */
	size_t isr_resumes;	/* task resumes after an ISR */
	size_t idle_in;		/* idle task switch-ins (tband marks them idle) */
	size_t idle_runs;	/* softirqs in the idle task (tband shows them) */
	/* JSON's slices: those of positive length in ns */
	uint64_t t0, num, den, t_end;
	bool cpu_on[8];
	uint32_t cpu_idx[8];
	uint64_t cpu_start[8], irq_start[8][32];
	uint32_t irq_depth[8];
	size_t json_cpu, json_irq;
};

static uint64_t mc_ns(const struct model_counts *c, uint64_t ts)
{
	return (uint64_t)((unsigned __int128)(ts - c->t0) * c->num / c->den);
}

static void json_like(struct model_counts *c, const struct hwt_mev *ev)
{
	uint32_t cpu = ev->cpu;
	bool isr = ev->flags & HWT_MEVF_ISR;

	ck_assert_uint_lt(cpu, 8);
	if (ev->ts > c->t_end)
		c->t_end = ev->ts;
	switch (ev->type) {
	case HWT_MEV_TASK_START:
	case HWT_MEV_TASK_RESUME:
		if (isr)
			break;
		if (c->cpu_on[cpu])
			c->json_cpu += mc_ns(c, ev->ts) > mc_ns(c, c->cpu_start[cpu]);
		c->cpu_on[cpu] = true;
		c->cpu_idx[cpu] = ev->idx;
		c->cpu_start[cpu] = ev->ts;
		break;
	case HWT_MEV_TASK_PREEMPT:
	case HWT_MEV_TASK_TERMINATE:
	case HWT_MEV_TASK_WAIT:
		if (isr || !c->cpu_on[cpu] || c->cpu_idx[cpu] != ev->idx)
			break;
		c->json_cpu += mc_ns(c, ev->ts) > mc_ns(c, c->cpu_start[cpu]);
		c->cpu_on[cpu] = false;
		break;
	case HWT_MEV_ISR_START:
		ck_assert_uint_lt(c->irq_depth[cpu], 32);
		c->irq_start[cpu][c->irq_depth[cpu]++] = ev->ts;
		break;
	case HWT_MEV_ISR_TERMINATE:
		if (c->irq_depth[cpu])
			c->json_irq += mc_ns(c, ev->ts) >
				       mc_ns(c, c->irq_start[cpu][--c->irq_depth[cpu]]);
		break;
	default:
		break;
	}
}

/* The slices still open at the end close at the last timestamp. */
static void json_like_end(struct model_counts *c)
{
	for (int cpu = 0; cpu < 8; cpu++) {
		if (c->cpu_on[cpu])
			c->json_cpu += mc_ns(c, c->t_end) > mc_ns(c, c->cpu_start[cpu]);
		while (c->irq_depth[cpu])
			c->json_irq += mc_ns(c, c->t_end) >
				       mc_ns(c, c->irq_start[cpu][--c->irq_depth[cpu]]);
	}
}

static void count_ev(void *ctx, const struct hwt_mev *ev)
{
	struct model_counts *c = ctx;

	if (ev->ts > c->t_end)
		c->t_end = ev->ts;
	if (hwt_mev_is_idle(ev)) {
		if ((ev->type == HWT_MEV_TASK_START || ev->type == HWT_MEV_TASK_RESUME) &&
		    !(ev->flags & HWT_MEVF_ISR))
			c->idle_in++;
		if (ev->type == HWT_MEV_RUN_START)
			c->idle_runs++;
		return;
	}
	c->n[ev->type]++;
	if (ev->type == HWT_MEV_TASK_RESUME && (ev->flags & HWT_MEVF_ISR))
		c->isr_resumes++;
	json_like(c, ev);
}

static void model_counts(struct tu_stream *t, struct model_counts *c)
{
	struct hwt_model *m;
	struct hwt_record r;

	memset(c, 0, sizeof(*c));
	c->num = 1000000;
	c->den = t->info.cycles_per_msec;
	ck_assert_int_eq(hwt_model_new(&m, &t->info, &t->s), 0);
	t->pos = 0;
	while (tu_next(t, &r) > 0) {
		if (t->pos == 1)
			c->t0 = r.ts;
		if (r.ts > c->t_end)
			c->t_end = r.ts;
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	}
	ck_assert_int_eq(hwt_model_restart(m), 0);
	hwt_model_set_sink(m, count_ev, c);
	t->pos = 0;
	while (tu_next(t, &r) > 0)
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	ck_assert_int_eq(hwt_model_end(m), 0);
	json_like_end(c);
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
	tc_atf_cores(buf, t->info.nr_cpus);
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
	ck_assert_uint_eq(isr_in, htf.isr[TC_I_START] + htf.runnable[0] + mc.idle_runs);
	/* JSON: the slices of positive length (none of zero is written) */
	ck_assert_uint_eq(irq, mc.json_irq);
	ck_assert_uint_le(irq, htf.isr[TC_I_START]);
	ck_assert_uint_eq(sw, htf.task[TC_START] + htf.task[TC_RESUME] - mc.isr_resumes +
			  mc.idle_in);
	/* JSON: the idle task is a gap on the CPU track */
	ck_assert_uint_eq(cpu, mc.json_cpu);
	ck_assert_uint_le(cpu, sw - mc.idle_in);
}

/* --- task names: every format names the same tasks as the records ---------- */

#define NP_MAX	1024		/* test pids are below it; idle counts as 0 */

/* The pid a task name ends with ("<comm>-<pid>"), 0 for "swapper/<cpu>". */
static uint32_t name_pid(const char *name)
{
	const char *dash = strrchr(name, '-');
	char *end;
	unsigned long pid;

	if (!strncmp(name, "swapper/", 8))
		return 0;
	ck_assert_msg(dash, "task name '%s' has no pid", name);
	pid = strtoul(dash + 1, &end, 10);
	ck_assert_msg(!*end && pid < NP_MAX, "task name '%s'", name);
	return (uint32_t)pid;
}

static uint32_t tid_pid(uint64_t tid)
{
	return tid >= HWT_TID_IDLE_BASE ? 0 : (uint32_t)tid;
}

/* What `hwtrace dump` names: the pids the scheduling records carry. */
static void pids_of_records(const struct tu_stream *t, bool set[NP_MAX])
{
	memset(set, 0, NP_MAX);
	for (size_t i = 0; i < t->n; i++) {
		const struct hwt_record *r = &t->recs[i];

		switch (HWT_CODE(r->ev.code)) {
		case HWT_EV_TASK_SCHEDULE:
			set[HWT_SWITCH_PREV(&r->ev) % NP_MAX] = true;
			set[HWT_SWITCH_NEXT(&r->ev) % NP_MAX] = true;
			break;
		case HWT_EV_TASK_ACTIVATE:
		case HWT_EV_ID:
		case HWT_EV_TASK_CREATE:
		case HWT_EV_TASK_END:
		case HWT_EV_SET_PRIORITY:
		case HWT_EV_INHERITANCE:
			set[(r->ev.par2 & HWT_PID_MASK) % NP_MAX] = true;
			break;
		default:
			break;
		}
	}
	set[0] = false;		/* idle is not a task */
}

static void btf_pids(char *buf, size_t len, bool set[NP_MAX])
{
	char **ln;
	size_t n = tu_lines(buf, len, &ln);

	for (size_t i = 0; i < n; i++) {
		char *f[8];

		if (!ln[i][0] || ln[i][0] == '#')
			continue;
		ck_assert_int_ge(tc_csv(ln[i], f), 7);
		if (!strcmp(f[3], "T"))
			set[name_pid(f[4])] = true;
	}
	free(ln);
}

/* HTF: the entity table's names whose entity type is 00 (Task). */
static void htf_pids(char *buf, size_t len, bool set[NP_MAX])
{
	char **ln;
	size_t n = tu_lines(buf, len, &ln), ent = 0, typ = 0;
	struct { char id[12]; char name[200]; } *e = calloc(4096, sizeof(*e));

	ck_assert_ptr_nonnull(e);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(ln[i], "#EntityTable")) {
			for (i++; i < n && !strncmp(ln[i], "#-", 2); i++, ent++) {
				ck_assert_uint_lt(ent, 4096);
				sscanf(ln[i] + 2, "%11s", e[ent].id);
				snprintf(e[ent].name, sizeof(e[ent].name), "%s",
					 strchr(ln[i], ' ') + 1);
			}
		}
		if (!strcmp(ln[i], "#EntityTypeTable")) {
			for (i++; i < n && !strncmp(ln[i], "#-", 2); i++, typ++) {
				ck_assert_uint_lt(typ, ent);
				if (!strcmp(strchr(ln[i], ' ') + 1, "00"))
					set[name_pid(e[typ].name)] = true;
			}
		}
	}
	ck_assert_uint_eq(ent, typ);
	free(e);
	free(ln);
}

static void atf_pids(const char *buf, bool set[NP_MAX])
{
	for (const char *p = buf; (p = strstr(p, "<SystemElement Name=\"")); p++) {
		const char *q = p + 21, *e = strchr(q, '"');
		char name[256];

		ck_assert_ptr_nonnull(e);
		if (strncmp(strstr(e, "Type=\""), "Type=\"task\"", 11))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(e - q), q);
		set[name_pid(name)] = true;
	}
}

/* JSON: thread_name metadata of threads outside the CPUs pseudo-process. */
static void json_pids(const char *buf, bool set[NP_MAX])
{
	const char *p = buf;
	unsigned long pid, tid;

	while ((p = strstr(p, "{\"ph\":\"M\",\"pid\":"))) {
		ck_assert_int_eq(sscanf(p, "{\"ph\":\"M\",\"pid\":%lu,\"tid\":%lu", &pid, &tid), 2);
		p++;
		if (pid == 0x7FFFFFF0u || !strstr(p, "\"name\":\"thread_name\"") ||
		    strstr(p, "\"name\":\"thread_name\"") > strchr(p, '}'))
			continue;
		set[tid_pid(tid) % NP_MAX] = true;
	}
}

/* tband: the ids of task_name frames (0x5F: id, varlen tid, string). */
static void tband_pids(const uint8_t *b, size_t len, bool set[NP_MAX])
{
	for (size_t i = 0; i < len;) {
		const uint8_t *z = memchr(b + i, 0, len - i);
		uint8_t p[1024];
		size_t n = 0, k = i;
		uint64_t tid = 0;

		ck_assert_ptr_nonnull(z);
		/* COBS: each code byte gives the distance to the next zero */
		while (k < (size_t)(z - b)) {
			uint8_t code = b[k++];

			for (uint8_t c = 1; c < code; c++)
				p[n++] = b[k++];
			if (code != 0xFF && k < (size_t)(z - b))
				p[n++] = 0;
		}
		if (n && p[0] == 0x5F) {
			for (size_t j = 1, sh = 0; j < n; j++, sh += 7) {
				tid |= (uint64_t)(p[j] & 0x7F) << sh;
				if (!(p[j] & 0x80))
					break;
			}
			/* the idle tasks: marked task_is_idle_task, not counted */
			if (tid < HWT_TID_IDLE_BASE)
				set[tid % NP_MAX] = true;
		}
		i = (size_t)(z - b) + 1;
	}
}

static void check_names(struct tu_stream *t)
{
	static const char *const fmt[] = { "btf", "htf", "atf", "json", "tband" };
	bool want[NP_MAX], got[NP_MAX];

	pids_of_records(t, want);
	for (size_t f = 0; f < CONV_N(fmt); f++) {
		char *buf;
		size_t len;

		memset(got, 0, sizeof(got));
		ck_assert_int_eq(tu_convert(fmt[f], &t->s, NULL, &buf, &len), 0);
		if (!strcmp(fmt[f], "btf"))
			btf_pids(buf, len, got);
		else if (!strcmp(fmt[f], "htf"))
			htf_pids(buf, len, got);
		else if (!strcmp(fmt[f], "atf"))
			atf_pids(buf, got);
		else if (!strcmp(fmt[f], "json"))
			json_pids(buf, got);
		else
			tband_pids((uint8_t *)buf, len, got);
		free(buf);
		for (uint32_t pid = 0; pid < NP_MAX; pid++)
			ck_assert_msg(got[pid] == want[pid], "%s: task %u %s", fmt[f], pid,
				      want[pid] ? "missing" : "not in the records");
	}
}

/* An interrupt on cpu0 before the task that sorts first is ever named. */
static void irq_first_trace(struct tu_stream *t)
{
	static const struct tu_name tasks[] = {
		{ 100, 100, "first" }, { 200, 200, "second" }, { 0, 0, NULL },
	};

	tu_init(t, 2, 1000000);
	t->tasks = tasks;
	tu_add(t, 1000, 0, HWT_EV_ID, 0, 0);
	tu_add(t, 1000, 1, HWT_EV_ID, 1, 200);
	tu_add(t, 1100, 0, HWT_EV_INTERRUPT_START, 5, 0);
	tu_add(t, 1150, 0, HWT_EV_TASK_ACTIVATE, 0, 100);
	tu_add(t, 1200, 0, HWT_EV_INTERRUPT_END, 5, 1);
	tu_switch(t, 1300, 0, 0, HWT_STATE_RUNNABLE, 100);
	tu_switch(t, 1400, 0, 100, HWT_STATE_SLEEPING, 0);
	tu_switch(t, 1500, 1, 200, HWT_STATE_SLEEPING, 0);
}

START_TEST(test_task_names)
{
	struct tu_stream t;

	tu_fixture(&t);
	check_names(&t);
	tu_free(&t);
	irq_first_trace(&t);
	check_names(&t);
	tu_free(&t);
}
END_TEST

/*
 * A core's load: what BTF shows busy (a process or an ISR running from
 * Core_n, nesting counted) equals the time the records show the CPU in a
 * task other than its idle task or in an interrupt.
 */
static void btf_busy(char *buf, size_t len, uint64_t busy[4])
{
	char **ln;
	size_t n = tu_lines(buf, len, &ln);
	int depth[4] = { 0 };
	uint64_t since[4] = { 0 };

	memset(busy, 0, 4 * sizeof(*busy));
	for (size_t i = 0; i < n; i++) {
		char *f[8];
		uint64_t t;
		unsigned int c;
		int d;

		if (!ln[i][0] || ln[i][0] == '#')
			continue;
		ck_assert_int_ge(tc_csv(ln[i], f), 7);
		if (strcmp(f[3], "T") && strcmp(f[3], "ISR"))
			continue;
		if (sscanf(f[1], "Core_%u", &c) != 1)
			continue;	/* activations */
		ck_assert_uint_lt(c, 4);
		t = strtoull(f[0], NULL, 10);
		d = !strcmp(f[6], "start") || !strcmp(f[6], "resume") ? 1 :
		    !strcmp(f[6], "preempt") || !strcmp(f[6], "terminate") ||
		    !strcmp(f[6], "wait") ? -1 : 0;
		if (d > 0 && depth[c]++ == 0)
			since[c] = t;
		if (d < 0 && --depth[c] == 0)
			busy[c] += t - since[c];
		ck_assert_int_ge(depth[c], 0);
		ck_assert_int_le(depth[c], 1);	/* one thing runs on a core */
	}
	free(ln);
}

/* The same from the records (1 tick = 1 ns): a task other than pid 0, or an IRQ. */
static void records_busy(const struct tu_stream *t, uint64_t busy[4])
{
	uint32_t pid[4] = { 0 };
	int depth[4] = { 0 };
	uint64_t last[4] = { 0 };

	memset(busy, 0, 4 * sizeof(*busy));
	for (size_t i = 0; i < t->n; i++) {
		const struct hwt_record *r = &t->recs[i];
		uint32_t c = r->cpu;

		if (last[c] && (pid[c] || depth[c]))
			busy[c] += r->ts - last[c];
		last[c] = r->ts;
		switch (HWT_CODE(r->ev.code)) {
		case HWT_EV_ID:
			pid[c] = r->ev.par2;
			break;
		case HWT_EV_TASK_SCHEDULE:
			pid[c] = HWT_SWITCH_NEXT(&r->ev);
			break;
		case HWT_EV_INTERRUPT_START:
			depth[c]++;
			break;
		case HWT_EV_INTERRUPT_END:
			depth[c]--;
			break;
		default:
			break;
		}
	}
}

START_TEST(test_idle_core_load)
{
	static const struct tu_name tasks[] = {
		{ 100, 100, "worker" }, { 200, 200, "other" }, { 300, 300, "third" },
		{ 0, 0, NULL },
	};
	struct tu_stream t;
	uint64_t want[4], got[4];
	char *buf;
	size_t len;

	tu_init(&t, 2, 1000000);
	t.tasks = tasks;
	tu_add(&t, 1000, 0, HWT_EV_ID, 0, 0);
	tu_add(&t, 1000, 1, HWT_EV_ID, 1, 300);
	tu_add(&t, 1050, 0, HWT_EV_TASK_ACTIVATE, 0, 100);
	tu_switch(&t, 1100, 0, 0, HWT_STATE_RUNNABLE, 100);
	tu_add(&t, 1200, 0, HWT_EV_INTERRUPT_START, 9, 0);
	tu_add(&t, 1250, 0, HWT_EV_INTERRUPT_END, 9, 1);
	tu_switch(&t, 1300, 1, 300, HWT_STATE_SLEEPING, 0);
	tu_switch(&t, 1500, 0, 100, HWT_STATE_SLEEPING, 0);
	tu_add(&t, 1600, 0, HWT_EV_INTERRUPT_START, 9, 0);
	tu_add(&t, 1640, 0, HWT_EV_TASK_ACTIVATE, 0, 100);
	tu_add(&t, 1650, 0, HWT_EV_INTERRUPT_END, 9, 1);
	tu_switch(&t, 1700, 0, 0, HWT_STATE_RUNNABLE, 100);
	tu_add(&t, 1750, 0, HWT_EV_TASK_ACTIVATE, 0, 200);
	tu_switch(&t, 1800, 0, 100, HWT_STATE_RUNNABLE, 200);
	tu_switch(&t, 1900, 0, 200, HWT_STATE_SLEEPING, 100);
	tu_switch(&t, 2000, 0, 100, HWT_STATE_SLEEPING, 0);
	tu_add(&t, 2100, 0, HWT_EV_TRACE_STOP, 0, 0);
	tu_add(&t, 2100, 1, HWT_EV_TRACE_STOP, 0, 0);
	records_busy(&t, want);
	ck_assert_uint_eq(want[0], 400 + 50 + 300);
	ck_assert_uint_eq(want[1], 300);
	ck_assert_int_eq(tu_convert("btf", &t.s, NULL, &buf, &len), 0);
	btf_busy(buf, len, got);
	free(buf);
	ck_assert_uint_eq(got[0], want[0]);
	ck_assert_uint_eq(got[1], want[1]);
	tu_free(&t);
}
END_TEST

static char warned[1024];

static int capture(enum hwt_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(warned);

	(void)level;
	vsnprintf(warned + n, sizeof(warned) - n, fmt, ap);
	return 0;
}

/*
 * A record of a CPU the trace does not have (>= nr_cpus): every format
 * leaves it out (BTF used to put it on Core_0, HTF dropped it silently),
 * and the library warns.
 */
START_TEST(test_cpu_out_of_range)
{
	static const char *const fmt[] = { "btf", "htf", "atf", "json", "tband" };
	hwt_print_fn_t old = hwt_set_print(capture);
	struct tu_stream t;

	tu_init(&t, 2, 1000000);
	tu_add(&t, 100, 0, HWT_EV_ID, 0, 5);
	tu_add(&t, 100, 1, HWT_EV_ID, 1, 6);
	tu_add(&t, 150, 5, HWT_EV_INTERRUPT_START, 9, 0);
	tu_add(&t, 160, 5, HWT_EV_INTERRUPT_END, 9, 0);
	tu_add(&t, 200, 0, HWT_EV_INTERRUPT_START, 3, 0);
	tu_add(&t, 210, 0, HWT_EV_INTERRUPT_END, 3, 0);
	for (size_t f = 0; f < CONV_N(fmt); f++) {
		char *buf;
		size_t len;

		warned[0] = '\0';
		ck_assert_int_eq(tu_convert(fmt[f], &t.s, NULL, &buf, &len), 0);
		ck_assert_msg(strstr(warned, "2 records of CPUs >= 2"), "%s: '%s'", fmt[f], warned);
		ck_assert_msg(!memmem(buf, len, "irq9", 4), "%s shows irq 9", fmt[f]);
		ck_assert_msg(!strcmp(fmt[f], "tband") || memmem(buf, len, "irq3", 4),
			      "%s lacks irq 3", fmt[f]);
		free(buf);
	}
	hwt_set_print(old);
	tu_free(&t);
}
END_TEST

static size_t count_str(const char *buf, const char *s)
{
	size_t n = 0;

	for (const char *p = buf; (p = strstr(p, s)); p++)
		n++;
	return n;
}

/*
 * Every loss the trace has is where each format's readers look: the
 * header's summary (events lost per CPU, overwrites, losses on no CPU,
 * lost names) and a marker at each gap, on the gap's core.
 */
START_TEST(test_losses)
{
	static const char sum[] = "events lost 10 (cpu1 8, cpu2 2), records overwritten 4 "
				  "(cpu0 1, cpu2 3), lost on no CPU 4, name records lost 5";
	static const uint64_t over[3] = { 1, 0, 3 };
	struct model_counts mc;
	struct tu_stream t;
	char *buf, want[256];
	size_t len, gaps, atf[8];

	tu_fixture(&t);
	t.info.overwritten = over;
	t.info.lost_nocpu = 4;
	t.info.names_lost = 5;
	model_counts(&t, &mc);
	gaps = mc.n[HWT_MEV_LOST];
	ck_assert_uint_eq(gaps, 4);	/* cpu1: 5, +1, +2 at the end; cpu2: 2 at the end */

	ck_assert_int_eq(tu_convert("btf", &t.s, NULL, &buf, &len), 0);
	snprintf(want, sizeof(want), "\n# losses: %s\n", sum);
	ck_assert_ptr_nonnull(strstr(buf, want));
	ck_assert_uint_eq(count_str(buf, "\n# lost "), gaps);
	ck_assert_uint_eq(count_str(buf, ",SIG,lost_events,0,write,"), gaps);
	free(buf);

	ck_assert_int_eq(tu_convert("htf", &t.s, NULL, &buf, &len), 0);
	snprintf(want, sizeof(want), "; losses: %s\n", sum);
	ck_assert_ptr_nonnull(strstr(buf, want));
	ck_assert_uint_eq(count_str(buf, " //lost "), gaps);
	free(buf);

	ck_assert_int_eq(tu_convert("atf", &t.s, NULL, &buf, &len), 0);
	ck_assert_int_eq(tc_xmllint(buf, len), 0);
	snprintf(want, sizeof(want), "losses: %s</Comment>", sum);
	ck_assert_ptr_nonnull(strstr(buf, want));
	tc_atf_counts(buf, atf);
	ck_assert_uint_eq(atf[6], gaps);
	ck_assert_uint_eq(count_str(buf, "<TimeStampComment At="), gaps);
	ck_assert_ptr_nonnull(strstr(buf, "<Comment>Core_1: 8 events lost, 0 records overwritten"));
	ck_assert_ptr_nonnull(strstr(buf, "<Comment>Core_0: 0 events lost, 1 records overwritten"));
	/* cpu2's gap is in Core_2's TraceData */
	ck_assert_ptr_nonnull(strstr(strstr(buf, "<Comment>Core_2: times"),
				     "Text=\"2 events lost here, 2 on Core_2 so far\""));
	free(buf);

	ck_assert_int_eq(tu_convert("json", &t.s, NULL, &buf, &len), 0);
	snprintf(want, sizeof(want), "\"losses\":\"%s\"", sum);
	ck_assert_ptr_nonnull(strstr(buf, want));
	ck_assert_uint_eq(count_str(buf, "\"s\":\"t\",\"cat\":\"hwtrace\",\"name\":\"lost events\""),
			  gaps);
	/* each on its CPU's track: tid n, "cpu":n */
	for (const char *p = buf; (p = strstr(p, "\"name\":\"lost events\"")); p++) {
		const char *l = p;
		unsigned int tid, cpu;

		while (l > buf && l[-1] != '\n')
			l--;
		ck_assert_int_eq(sscanf(l, "{\"ph\":\"i\",\"pid\":2147483632,\"tid\":%u,", &tid), 1);
		ck_assert_int_eq(sscanf(strstr(p, "\"cpu\":"), "\"cpu\":%u", &cpu), 1);
		ck_assert_uint_eq(tid, cpu);
	}
	free(buf);
	tu_free(&t);
}
END_TEST

/* HTF core ids: one width for all, four hex digits past 256 cores. */
START_TEST(test_htf_many_cores)
{
	struct tu_stream t;
	char *buf;
	size_t len;

	tu_init(&t, 300, 1000000);
	t.info.lost = NULL;
	tu_add(&t, 100, 299, HWT_EV_ID, 0, 5);
	tu_add(&t, 110, 299, HWT_EV_INTERRUPT_START, 3, 0);
	ck_assert_int_eq(tu_convert("htf", &t.s, NULL, &buf, &len), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\n#TraceData\n#-0000\n#-0001\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n#-012B\n0"));
	ck_assert_ptr_null(strstr(buf, "\n#-12B\n"));
	free(buf);
	tu_free(&t);
}
END_TEST

/* An ISR has no executing context of its own: never "task index 0". */
static void isr_ctx(void *ctx, const struct hwt_mev *ev)
{
	size_t *n = ctx;

	if (hwt_mev_kind(ev->type) == HWT_ENT_ISR) {
		ck_assert_uint_eq(ev->ctx_kind, HWT_ENT_NONE);
		(*n)++;
	}
}

START_TEST(test_isr_context_none)
{
	struct tu_stream t;
	struct hwt_model *m;
	struct hwt_record r;
	size_t n = 0;

	irq_first_trace(&t);
	ck_assert_int_eq(hwt_model_new(&m, &t.info, &t.s), 0);
	hwt_model_set_sink(m, isr_ctx, &n);
	while (tu_next(&t, &r) > 0)
		ck_assert_int_eq(hwt_model_feed(m, &r), 0);
	ck_assert_uint_eq(n, 2);
	hwt_model_free(m);
	tu_free(&t);
}
END_TEST

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
	test_no_rewind, test_pass1_reads_start, test_api, test_time_scales,
	test_task_names, test_isr_context_none, test_idle_core_load,
	test_cpu_out_of_range, test_htf_many_cores, test_losses)
