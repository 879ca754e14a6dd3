// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * ALL-TIMES Trace Format 1.0 (shared/specs/atf-*.txt), valid against
 * libhwt/conv/atf.xsd (our schema, written from the spec's normative text).
 *
 * SystemConfiguration: ToolInfo, one Resource (Scheduler "Linux") holding a
 * SystemElement per task, ISR ("isr"), softirq ("runnable") and core
 * ("unknown", the reference of lost-event errors), with unique IDs from 1;
 * the standard Annotations Priority and the Appendix B timing values (CET,
 * GET, RT, IPT, DT, PRE as min/max/av, in ticks of the TimeBase) measured
 * over each task's and ISR's complete instances; EventIDMappings with only
 * EventTypeEnum values ("terminate", never the examples' "end"); markers,
 * counters and lock operations are user events named in a UserTable;
 * TimeBase: ns per tick as an exact reduced Fraction.
 *
 * Cores: one TraceData per core ("Core_<n>" in its Comment), each with
 * Start and Stop, ToolInfo and a TraceEntry per event of that core, Time
 * in ticks since the first record.  A TraceEntry names no resource, so a
 * Resource per core would need an element per task and core and would
 * split a migrating task's timing values; a TraceData per core keeps one
 * element per task (values over its whole instances) while each TraceData
 * is one core's trace, where one thing runs at a time ("each entry
 * represents a separately taken trace").  An activation is in the waker's
 * core's TraceData; a task that migrates is preempted in one core's and
 * resumed in another's.  The entries are kept per core in temporary files
 * until the end.  A task's wait inside its instance (lock) is a preempt
 * (ATF has no wait); its release has no entry.
 *
 * Losses: the SystemConfiguration's Comment gives every count the trace
 * has; each gap is an "error" entry on its core's element and a
 * TimeStampComment in that core's TraceInformation, which also says the
 * core's totals.
 *
 * XML 1.0 cannot carry control characters even as references: names are
 * sanitized (\xHH) before escaping.
 */
#include <errno.h>
#include <stdlib.h>

#include "conv_internal.h"

enum {
	EV_ACTIVATION = 1, EV_START, EV_PREEMPT, EV_RESUME, EV_TERMINATE, EV_ERROR,
	EV_USER,
};

_Static_assert(EV_USER <= 9, "event ids are written as one digit");

static const char *const ev_type[] = {
	[EV_ACTIVATION] = "activation", [EV_START] = "start",
	[EV_PREEMPT] = "preempt", [EV_RESUME] = "resume",
	[EV_TERMINATE] = "terminate", [EV_ERROR] = "error", [EV_USER] = "user",
};

static const uint8_t atf_event[HWT_NR_MEV] = {
	[HWT_MEV_TASK_ACTIVATE] = EV_ACTIVATION,
	[HWT_MEV_TASK_START] = EV_START,
	[HWT_MEV_TASK_PREEMPT] = EV_PREEMPT,
	[HWT_MEV_TASK_WAIT] = EV_PREEMPT,
	[HWT_MEV_TASK_RESUME] = EV_RESUME,
	[HWT_MEV_TASK_TERMINATE] = EV_TERMINATE,
	[HWT_MEV_ISR_START] = EV_START,
	[HWT_MEV_ISR_PREEMPT] = EV_PREEMPT,
	[HWT_MEV_ISR_RESUME] = EV_RESUME,
	[HWT_MEV_ISR_TERMINATE] = EV_TERMINATE,
	[HWT_MEV_RUN_START] = EV_START,
	[HWT_MEV_RUN_SUSPEND] = EV_PREEMPT,
	[HWT_MEV_RUN_RESUME] = EV_RESUME,
	[HWT_MEV_RUN_TERMINATE] = EV_TERMINATE,
	[HWT_MEV_MARKER] = EV_USER,
	[HWT_MEV_COUNTER] = EV_USER,
	[HWT_MEV_LOCK_WAIT] = EV_USER,
	[HWT_MEV_LOCK_ACQUIRE] = EV_USER,
	[HWT_MEV_LOCK_RELEASE] = EV_USER,
	[HWT_MEV_LOST] = EV_ERROR,
};

static const char *const lock_ops[] = { "contended", "acquired", "released" };

/* A core's gaps (LOST events), for its TraceInformation. */
struct atf_gap {
	uint64_t ts;		/* ticks since the first record */
	uint32_t n;		/* events lost there */
	uint64_t total;		/* on this core so far */
};

struct atf_gaps {
	struct atf_gap *v;
	size_t n, cap;
};

struct atf {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_names names;
	uint32_t nr_cpus;
	struct hwt_obuf *core;		/* [nr_cpus] entries on temporary files */
	FILE **tmp;			/* opened at a core's first entry */
	struct atf_gaps *gaps;		/* [nr_cpus] */
	int err;
	uint32_t base[HWT_NR_ENT_KINDS];	/* SystemElement ID of idx 0 */
	uint32_t core_base;
	uint32_t user_base[HWT_NR_ENT_KINDS];	/* UserTable ReferenceID of idx 0 */
	uint64_t t0;
	uint64_t t_last;		/* ts of t_text */
	bool t_valid;
	uint32_t t_len;
	char t_text[24];		/* Time of the last entry */
};

static void xml_esc(struct hwt_obuf *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			ob_puts(o, "&amp;");
			break;
		case '<':
			ob_puts(o, "&lt;");
			break;
		case '>':
			ob_puts(o, "&gt;");
			break;
		case '"':
			ob_puts(o, "&quot;");
			break;
		case '\'':
			ob_puts(o, "&apos;");
			break;
		default:
			ob_putc(o, *s);
		}
	}
}

static void xml_text(struct hwt_obuf *o, const char *raw)
{
	char clean[HWT_NAME_MAX * 4 + 1];

	hwt_name_sanitize(clean, sizeof(clean), raw, 0, HWT_SAN_CTRL);
	xml_esc(o, clean);
}

static void annotation(struct hwt_obuf *o, const char *name, uint64_t v)
{
	ob_printf(o, "        <Annotation><Name>%s</Name><Value>%llu</Value></Annotation>\n",
		  name, (unsigned long long)v);
}

static void timing(struct atf *a, enum hwt_entity_kind kind, uint32_t id)
{
	static const char *const abbr[HWT_NR_TIMING] = {
		[HWT_TIMING_IPT] = "IPT", [HWT_TIMING_CET] = "CET",
		[HWT_TIMING_GET] = "GET", [HWT_TIMING_RT] = "RT",
		[HWT_TIMING_DT] = "DT", [HWT_TIMING_PRE] = "PRE",
	};
	const struct hwt_stat *s = hwt_model_timing(a->run.model, kind, id);
	char name[16];

	for (int k = 0; s && k < HWT_NR_TIMING; k++) {
		if (!s[k].n)
			continue;
		snprintf(name, sizeof(name), "%smin", abbr[k]);
		annotation(&a->ob, name, s[k].min);
		snprintf(name, sizeof(name), "%smax", abbr[k]);
		annotation(&a->ob, name, s[k].max);
		snprintf(name, sizeof(name), "%sav", abbr[k]);
		annotation(&a->ob, name, (s[k].sum + s[k].n / 2) / s[k].n);
	}
}

static void element(struct atf *a, enum hwt_entity_kind kind, size_t idx,
		    const char *type)
{
	struct hwt_model *m = a->run.model;
	uint32_t id = hwt_model_id(m, kind, idx);
	int64_t prio;
	bool prio_ok = kind == HWT_ENT_TASK && hwt_model_priority(m, id, &prio);
	const struct hwt_stat *s = hwt_model_timing(m, kind, id);
	bool any = prio_ok;

	for (int k = 0; s && k < HWT_NR_TIMING; k++)
		any |= s[k].n > 0;
	ob_printf(&a->ob, "      <SystemElement Name=\"%s\" ID=\"%u\" Type=\"%s\"%s\n",
		  a->names.v[kind][idx], a->base[kind] + (uint32_t)idx, type,
		  any ? ">" : " />");
	if (!any)
		return;
	/* ATF, like OSEK, counts higher as more urgent */
	if (prio_ok)
		ob_printf(&a->ob, "        <Annotation><Name>Priority</Name>"
			  "<Value>%lld</Value></Annotation>\n",
			  (long long)hwt_prio_urgency(prio));
	timing(a, kind, id);
	ob_puts(&a->ob, "      </SystemElement>\n");
}

static int atf_header(void *ctx, struct hwt_conv_run *run)
{
	struct atf *a = ctx;
	struct hwt_model *m = run->model;
	const struct hwt_trace_info *info = run->in->info;
	static const enum hwt_entity_kind user_kinds[] = {
		HWT_ENT_MARKER, HWT_ENT_COUNTER, HWT_ENT_LOCK,
	};
	uint64_t num, den;
	uint32_t id = 1, ref = 1;
	char date[32], losses[1024];
	int ret;

	ret = hwt_names_build(&a->names, m, HWT_SAN_CTRL, xml_esc);
	if (ret)
		return ret;
	a->t0 = hwt_model_t0(m);
	a->base[HWT_ENT_TASK] = id;
	id += (uint32_t)a->names.n[HWT_ENT_TASK];
	a->base[HWT_ENT_ISR] = id;
	id += (uint32_t)a->names.n[HWT_ENT_ISR];
	a->base[HWT_ENT_RUNNABLE] = id;
	id += (uint32_t)a->names.n[HWT_ENT_RUNNABLE];
	a->core_base = id;
	for (size_t i = 0; i < CONV_ARRAY_SIZE(user_kinds); i++) {
		a->user_base[user_kinds[i]] = ref;
		ref += (uint32_t)a->names.n[user_kinds[i]] *
		       (user_kinds[i] == HWT_ENT_LOCK ? 3 : 1);
	}
	hwt_conv_ns_per_tick(info, &num, &den);
	hwt_conv_date(date, sizeof(date), info->creation_time, ' ');

	ob_puts(&a->ob, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<CommonFormat xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""
		" xsi:noNamespaceSchemaLocation=\"atf.xsd\" Version=\"1.0\">\n"
		"  <SystemConfiguration Name=\"");
	xml_text(&a->ob, info->hostname);
	ob_puts(&a->ob, "\">\n    <Comment>Linux ");
	xml_text(&a->ob, info->kernel_release);
	hwt_conv_losses(losses, sizeof(losses), info);
	ob_printf(&a->ob, ", %u cores, traced %s UTC by hwtrace; losses: %s</Comment>\n"
		  "    <ToolInfo Vendor=\"hwtrace\" Tool=\"libhwt\" Version=\"1.0\" />\n"
		  "    <Resource ID=\"0\" Scheduler=\"Linux\">\n", info->nr_cpus, date, losses);
	for (size_t i = 0; i < a->names.n[HWT_ENT_TASK]; i++)
		/* a core running its idle task runs nothing: no element */
		if (!HWT_TID_IS_IDLE(hwt_model_id(m, HWT_ENT_TASK, i)))
			element(a, HWT_ENT_TASK, i, "task");
	for (size_t i = 0; i < a->names.n[HWT_ENT_ISR]; i++)
		element(a, HWT_ENT_ISR, i, "isr");
	for (size_t i = 0; i < a->names.n[HWT_ENT_RUNNABLE]; i++)
		element(a, HWT_ENT_RUNNABLE, i, "runnable");
	for (uint32_t c = 0; c < a->nr_cpus; c++)
		ob_printf(&a->ob, "      <SystemElement Name=\"Core_%u\" ID=\"%u\""
			  " Type=\"unknown\" />\n", c, a->core_base + c);
	ob_puts(&a->ob, "    </Resource>\n    <EventIDMappings>\n");
	for (int e = EV_ACTIVATION; e < EV_USER; e++)
		ob_printf(&a->ob, "      <EventIDMapping EventID=\"%d\" EventType=\"%s\" />\n",
			  e, ev_type[e]);
	ob_printf(&a->ob, "      <EventIDMapping EventID=\"%d\" EventType=\"user\">\n"
		  "        <UserTable>\n", EV_USER);
	for (size_t k = 0; k < CONV_ARRAY_SIZE(user_kinds); k++) {
		enum hwt_entity_kind kind = user_kinds[k];

		for (size_t i = 0; i < a->names.n[kind]; i++) {
			if (kind != HWT_ENT_LOCK) {
				ob_printf(&a->ob, "          <Info ReferenceID=\"%u\">%s</Info>\n",
					  a->user_base[kind] + (uint32_t)i,
					  a->names.v[kind][i]);
				continue;
			}
			for (int op = 0; op < 3; op++)
				ob_printf(&a->ob, "          <Info ReferenceID=\"%u\">%s %s</Info>\n",
					  a->user_base[kind] + 3 * (uint32_t)i + op,
					  a->names.v[kind][i], lock_ops[op]);
		}
	}
	ob_printf(&a->ob, "        </UserTable>\n      </EventIDMapping>\n"
		  "    </EventIDMappings>\n"
		  "    <TimeBase Unit=\"ns\">\n"
		  "      <Value Numerator=\"%llu\" Denominator=\"%llu\" />\n"
		  "    </TimeBase>\n  </SystemConfiguration>\n",
		  (unsigned long long)num, (unsigned long long)den);
	return a->ob.err;
}

/* The buffer of core cpu's entries; NULL on error. */
static struct hwt_obuf *atf_core(struct atf *a, uint32_t cpu)
{
	if (a->err || cpu >= a->nr_cpus)
		return NULL;
	if (!a->tmp[cpu]) {
		a->tmp[cpu] = hwt_conv_tmpfile();
		a->err = a->tmp[cpu] ?
			 hwt_obuf_init(&a->core[cpu], a->tmp[cpu], HWT_OBUF_PER_CORE) : -EIO;
		if (a->err)
			return NULL;
	}
	return &a->core[cpu];
}

/* A core's losses: its totals and a TimeStampComment at each gap. */
static void atf_gaps(struct atf *a, uint32_t c)
{
	const struct hwt_trace_info *info = a->run.in->info;
	const struct atf_gaps *g = &a->gaps[c];
	uint64_t lost = info->lost ? info->lost[c] : 0;
	uint64_t over = info->overwritten ? info->overwritten[c] : 0;

	if (!g->n && !lost && !over)
		return;
	ob_printf(&a->ob, "    <TraceInformation>\n"
		  "      <Comment>Core_%u: %llu events lost, %llu records overwritten</Comment>\n",
		  c, (unsigned long long)lost, (unsigned long long)over);
	for (size_t i = 0; i < g->n; i++)
		ob_printf(&a->ob, "      <TimeStampComment At=\"%llu\" Text=\"%u events lost "
			  "here, %llu on Core_%u so far\" />\n",
			  (unsigned long long)g->v[i].ts, g->v[i].n,
			  (unsigned long long)g->v[i].total, c);
	ob_puts(&a->ob, "    </TraceInformation>\n");
}

/* One TraceData per core: its entries from the temporary file. */
static int atf_finish(struct atf *a)
{
	uint64_t stop = hwt_model_t_end(a->run.model) - a->t0;
	char buf[1 << 14];
	int ret = a->err;

	for (uint32_t c = 0; !ret && c < a->nr_cpus; c++) {
		FILE *f = a->tmp[c];
		size_t n;

		ob_printf(&a->ob, "  <TraceData Start=\"0\" Stop=\"%llu\">\n"
			  "    <Comment>Core_%u: times in ticks of the TimeBase since the "
			  "first record</Comment>\n"
			  "    <ToolInfo Vendor=\"hwtrace\" Tool=\"libhwt\" Version=\"1.0\" />\n",
			  (unsigned long long)stop, c);
		if (f) {
			ret = hwt_obuf_flush(&a->core[c]);
			if (!ret && (fflush(f) || fseek(f, 0, SEEK_SET)))
				ret = -EIO;
			while (!ret && (n = fread(buf, 1, sizeof(buf), f)) > 0)
				ob_write(&a->ob, buf, n);
			if (!ret && ferror(f))
				ret = -EIO;
		}
		atf_gaps(a, c);
		ob_puts(&a->ob, "  </TraceData>\n");
	}
	return ret ? ret : a->ob.err;
}

static void atf_mev(void *ctx, const struct hwt_mev *ev)
{
	struct atf *a = ctx;
	uint8_t e = atf_event[ev->type];
	enum hwt_entity_kind kind = hwt_mev_kind(ev->type);
	struct hwt_obuf *o;
	uint32_t ref;
	char *d;

	if (!e || hwt_mev_is_idle(ev))
		return;
	o = atf_core(a, ev->cpu);
	if (!o)
		return;
	switch (ev->type) {
	case HWT_MEV_LOST: {
		struct atf_gaps *g = &a->gaps[ev->cpu];

		ref = a->core_base + ev->cpu;
		if (g->n == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 16;
			struct atf_gap *v = realloc(g->v, cap * sizeof(*v));

			if (!v) {
				a->err = -ENOMEM;
				return;
			}
			g->v = v;
			g->cap = cap;
		}
		g->v[g->n++] = (struct atf_gap){ ev->ts - a->t0, ev->inst,
						 (uint64_t)ev->value };
		break;
	}
	case HWT_MEV_LOCK_WAIT:
	case HWT_MEV_LOCK_ACQUIRE:
	case HWT_MEV_LOCK_RELEASE:
		ref = a->user_base[kind] + 3 * ev->idx +
		      (uint32_t)(ev->type - HWT_MEV_LOCK_WAIT);
		break;
	case HWT_MEV_MARKER:
	case HWT_MEV_COUNTER:
		ref = a->user_base[kind] + ev->idx;
		break;
	default:
		ref = a->base[kind] + ev->idx;
		break;
	}
	/* one room for the entry: the literals and three numbers */
	d = ob_room(o, 128);
	if (!d)
		return;
	d = hwt_put_lit(d, "    <TraceEntry Time=\"");
	/* entries often share a timestamp: its digits are kept */
	if (!a->t_valid || ev->ts != a->t_last) {
		a->t_len = (uint32_t)(hwt_put_u64(a->t_text, ev->ts - a->t0) - a->t_text);
		a->t_last = ev->ts;
		a->t_valid = true;
	}
	memcpy(d, a->t_text, 24);	/* at most 20 used */
	d += a->t_len;
	d = hwt_put_lit(d, "\" EventID=\"");
	*d++ = (char)('0' + e);		/* EV_* are single digits */
	d = hwt_put_lit(d, "\" ReferenceID=\"");
	d = hwt_put_u64(d, ref);
	d = hwt_put_lit(d, "\" />\n");
	o->len = (size_t)(d - o->buf);
}

int hwt_conv_atf(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	struct atf a = { .run = { .in = in, .opts = opts } };
	int ret;

	a.nr_cpus = in->info->nr_cpus;
	a.core = calloc(a.nr_cpus ? a.nr_cpus : 1, sizeof(*a.core));
	a.tmp = calloc(a.nr_cpus ? a.nr_cpus : 1, sizeof(*a.tmp));
	a.gaps = calloc(a.nr_cpus ? a.nr_cpus : 1, sizeof(*a.gaps));
	ret = a.core && a.tmp && a.gaps ? hwt_obuf_init(&a.ob, out, HWT_OBUF_OUT) : -ENOMEM;
	if (!ret)
		ret = hwt_conv_drive(&a.run, true, true, atf_mev, &a, atf_header);
	if (!ret)
		ret = atf_finish(&a);
	if (!ret) {
		ob_puts(&a.ob, "</CommonFormat>\n");
		ret = hwt_obuf_flush(&a.ob);
	}
	if (!ret && fflush(out))
		ret = -EIO;
	if (!ret && a.run.stream_err)
		ret = -EBADMSG;
	for (uint32_t c = 0; a.core && a.tmp && c < a.nr_cpus; c++) {
		if (!a.tmp[c])
			continue;
		hwt_obuf_free(&a.core[c]);
		fclose(a.tmp[c]);
	}
	for (uint32_t c = 0; a.gaps && c < a.nr_cpus; c++)
		free(a.gaps[c].v);
	free(a.gaps);
	free(a.core);
	free(a.tmp);
	hwt_names_free(&a.names);
	hwt_obuf_free(&a.ob);
	hwt_model_free(a.run.model);
	return ret;
}
