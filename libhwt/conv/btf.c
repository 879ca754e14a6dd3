// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Best Trace Format 2.1.3 (shared/specs/btf-*.txt), symbolic mode.
 *
 *   <Time>,<Source>,<SourceInstance>,<TargetType>,<Target>,<TargetInstance>,<Event>[,<Note>]
 *
 * Time in ns since the first record (#timeScale ns), floored so it never
 * decreases.  Tasks and ISRs follow the process state chart, softirqs the
 * runnable chart (their source is the task they run in).  Cores are
 * "Core_<n>" with instance -1 (the spec's text: non-instanceable entities
 * have -1; its examples write 0).  Activations come from the waker (a task
 * or ISR instance) or, when none is known, from the stimulus "STI_trace";
 * ISR activations from a stimulus named after the ISR.  Markers and
 * counters are SIG writes with the value as note; lock contention uses the
 * process-semaphore events of later BTF versions (2.1.3 lists the SEM type
 * but no events): requestsemaphore and waiting, assigned, released.  Lost
 * events: a comment line and a SIG write of "lost_events".
 *
 * Names with a comma, quote or space are quoted, quotes doubled; control
 * characters and invalid UTF-8 become \xHH.
 */
#include <errno.h>
#include <stdlib.h>

#include "conv_internal.h"

struct btf {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_names names;
	char **core;			/* "Core_<n>" */
	char **isr_sti;			/* stimulus of each ISR */
	uint32_t nr_cpus;
	uint64_t t0, num, den;
	const char *isr_type;
};

static void btf_quote(struct hwt_obuf *o, const char *s)
{
	if (!strpbrk(s, ", \"") && s[0] != '#' && s[0]) {
		ob_puts(o, s);
		return;
	}
	ob_putc(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			ob_putc(o, '"');
		ob_putc(o, *s);
	}
	ob_putc(o, '"');
}

static int btf_header(void *ctx, struct hwt_conv_run *run)
{
	struct btf *b = ctx;
	struct hwt_model *m = run->model;
	const struct hwt_trace_info *info = run->in->info;
	char date[32], tmp[HWT_NAME_MAX + 8];
	uint64_t total = 0;
	int ret;

	ret = hwt_names_build(&b->names, m, HWT_SAN_CTRL, btf_quote);
	if (ret)
		return ret;
	b->core = calloc(b->nr_cpus, sizeof(char *));
	b->isr_sti = calloc(b->names.n[HWT_ENT_ISR] + 1, sizeof(char *));
	if (!b->core || !b->isr_sti)
		return -ENOMEM;
	for (uint32_t c = 0; c < b->nr_cpus; c++) {
		snprintf(tmp, sizeof(tmp), "Core_%u", c);
		b->core[c] = strdup(tmp);
		if (!b->core[c])
			return -ENOMEM;
	}
	for (size_t i = 0; i < b->names.n[HWT_ENT_ISR]; i++) {
		char raw[HWT_NAME_MAX];

		hwt_conv_name(raw, sizeof(raw), m, HWT_ENT_ISR,
			      hwt_model_id(m, HWT_ENT_ISR, i));
		snprintf(tmp, sizeof(tmp), "STI_%s", raw);
		b->isr_sti[i] = hwt_name_dup(tmp, HWT_SAN_CTRL, btf_quote);
		if (!b->isr_sti[i])
			return -ENOMEM;
	}
	b->t0 = hwt_model_t0(m);
	hwt_conv_ns_per_tick(info, &b->num, &b->den);
	hwt_conv_date(date, sizeof(date), info->creation_time, 'T');
	for (uint32_t c = 0; info->lost && c < info->nr_cpus; c++)
		total += info->lost[c];
	ob_printf(&b->ob, "#version 2.1.3\n#creator hwtrace (libhwt)\n"
		  "#creationDate %sZ\n#timeScale ns\n", date);
	hwt_name_sanitize(tmp, sizeof(tmp), info->hostname, 0, HWT_SAN_CTRL);
	ob_printf(&b->ob, "# host %s, %u cores, clock %s, %llu ticks/ms, "
		  "%llu events lost\n", tmp, info->nr_cpus,
		  info->clock == HWT_CLOCK_MONO ? "monotonic" : "tsc",
		  (unsigned long long)hwt_conv_cpm(info), (unsigned long long)total);
	return b->ob.err;
}

static void btf_time(struct btf *b, uint64_t ts)
{
	ob_u64(&b->ob, hwt_muldiv(ts - b->t0, b->num, b->den));
	ob_putc(&b->ob, ',');
}

/* <source>,<inst>, */
static void btf_src(struct btf *b, const char *name, int64_t inst)
{
	ob_puts(&b->ob, name);
	ob_putc(&b->ob, ',');
	ob_s64(&b->ob, inst);
	ob_putc(&b->ob, ',');
}

/* The executing context as source, or the stimulus STI_trace. */
static void btf_ctx(struct btf *b, const struct hwt_mev *ev)
{
	if (ev->ctx_kind == HWT_ENT_TASK)
		btf_src(b, b->names.v[HWT_ENT_TASK][ev->ctx_idx], ev->ctx_inst);
	else if (ev->ctx_kind == HWT_ENT_ISR)
		btf_src(b, b->names.v[HWT_ENT_ISR][ev->ctx_idx], ev->ctx_inst);
	else
		btf_src(b, "STI_trace", -1);
}

/* <type>,<target>,<inst>,<event>[,<note>]\n */
static void btf_tgt(struct btf *b, const char *type, const char *name,
		    int64_t inst, const char *event, const char *note)
{
	ob_puts(&b->ob, type);
	ob_putc(&b->ob, ',');
	ob_puts(&b->ob, name);
	ob_putc(&b->ob, ',');
	ob_s64(&b->ob, inst);
	ob_putc(&b->ob, ',');
	ob_puts(&b->ob, event);
	if (note) {
		ob_putc(&b->ob, ',');
		btf_quote(&b->ob, note);
	}
	ob_putc(&b->ob, '\n');
}

static void btf_line_core(struct btf *b, const struct hwt_mev *ev, uint32_t cpu,
			  const char *type, const char *name, const char *event)
{
	btf_time(b, ev->ts);
	btf_src(b, cpu < b->nr_cpus ? b->core[cpu] : "Core_0", -1);
	btf_tgt(b, type, name, ev->inst, event, NULL);
}

static void btf_mev(void *ctx, const struct hwt_mev *ev)
{
	static const char *const task_ev[HWT_NR_MEV] = {
		[HWT_MEV_TASK_START] = "start", [HWT_MEV_TASK_PREEMPT] = "preempt",
		[HWT_MEV_TASK_RESUME] = "resume", [HWT_MEV_TASK_TERMINATE] = "terminate",
		[HWT_MEV_TASK_WAIT] = "wait",
		[HWT_MEV_ISR_START] = "start", [HWT_MEV_ISR_PREEMPT] = "preempt",
		[HWT_MEV_ISR_RESUME] = "resume", [HWT_MEV_ISR_TERMINATE] = "terminate",
		[HWT_MEV_RUN_START] = "start", [HWT_MEV_RUN_SUSPEND] = "suspend",
		[HWT_MEV_RUN_RESUME] = "resume", [HWT_MEV_RUN_TERMINATE] = "terminate",
	};
	struct btf *b = ctx;
	struct hwt_model *m = b->run.model;
	char note[64];
	const char *tname = NULL;

	switch (ev->type) {
	case HWT_MEV_TASK_ACTIVATE:
		btf_time(b, ev->ts);
		btf_ctx(b, ev);
		btf_tgt(b, "T", b->names.v[HWT_ENT_TASK][ev->idx], ev->inst,
			"activate", NULL);
		break;
	case HWT_MEV_TASK_RELEASE:
		/* source: the core it waited on */
		btf_line_core(b, ev, ev->last_cpu, "T",
			      b->names.v[HWT_ENT_TASK][ev->idx], "release");
		break;
	case HWT_MEV_TASK_START:
	case HWT_MEV_TASK_PREEMPT:
	case HWT_MEV_TASK_RESUME:
	case HWT_MEV_TASK_TERMINATE:
	case HWT_MEV_TASK_WAIT:
		btf_line_core(b, ev, ev->cpu, "T", b->names.v[HWT_ENT_TASK][ev->idx],
			      task_ev[ev->type]);
		break;
	case HWT_MEV_ISR_START:
		/* the chart starts with an activation */
		tname = b->names.v[HWT_ENT_ISR][ev->idx];
		btf_time(b, ev->ts);
		btf_src(b, b->isr_sti[ev->idx], ev->inst);
		btf_tgt(b, b->isr_type, tname, ev->inst, "activate", NULL);
		/* fall through */
	case HWT_MEV_ISR_PREEMPT:
	case HWT_MEV_ISR_RESUME:
	case HWT_MEV_ISR_TERMINATE:
		btf_line_core(b, ev, ev->cpu, b->isr_type,
			      b->names.v[HWT_ENT_ISR][ev->idx], task_ev[ev->type]);
		break;
	case HWT_MEV_RUN_START:
	case HWT_MEV_RUN_SUSPEND:
	case HWT_MEV_RUN_RESUME:
	case HWT_MEV_RUN_TERMINATE:
		btf_time(b, ev->ts);
		btf_ctx(b, ev);
		btf_tgt(b, "R", b->names.v[HWT_ENT_RUNNABLE][ev->idx], ev->inst,
			task_ev[ev->type], NULL);
		break;
	case HWT_MEV_MARKER:
		hwt_conv_marker_msg(note, sizeof(note), m, ev);
		btf_time(b, ev->ts);
		btf_ctx(b, ev);
		btf_tgt(b, "SIG", b->names.v[HWT_ENT_MARKER][ev->idx], 0, "write",
			note[0] ? note : NULL);
		break;
	case HWT_MEV_COUNTER:
		snprintf(note, sizeof(note), "%lld", (long long)ev->value);
		btf_time(b, ev->ts);
		btf_ctx(b, ev);
		btf_tgt(b, "SIG", b->names.v[HWT_ENT_COUNTER][ev->idx], 0, "write",
			note);
		break;
	case HWT_MEV_LOCK_WAIT:
		btf_time(b, ev->ts);
		btf_ctx(b, ev);
		btf_tgt(b, "SEM", b->names.v[HWT_ENT_LOCK][ev->idx], 0,
			"requestsemaphore", NULL);
		btf_time(b, ev->ts);
		btf_ctx(b, ev);
		btf_tgt(b, "SEM", b->names.v[HWT_ENT_LOCK][ev->idx], 0, "waiting", NULL);
		break;
	case HWT_MEV_LOCK_ACQUIRE:
	case HWT_MEV_LOCK_RELEASE:
		btf_time(b, ev->ts);
		btf_ctx(b, ev);
		btf_tgt(b, "SEM", b->names.v[HWT_ENT_LOCK][ev->idx], 0,
			ev->type == HWT_MEV_LOCK_ACQUIRE ? "assigned" : "released", NULL);
		break;
	case HWT_MEV_LOST:
		ob_printf(&b->ob, "# lost %u events on Core_%u, %llu in all\n",
			  ev->inst, ev->cpu, (unsigned long long)ev->value2);
		snprintf(note, sizeof(note), "%llu", (unsigned long long)ev->value2);
		btf_time(b, ev->ts);
		btf_src(b, "STI_trace", -1);
		btf_tgt(b, "SIG", "lost_events", 0, "write", note);
		break;
	default:
		break;		/* create, delete, priority: BTF has no event */
	}
}

int hwt_conv_btf(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	struct btf b = { .run = { .in = in, .opts = opts } };
	int ret;

	b.nr_cpus = in->info->nr_cpus;
	b.isr_type = CONV_OPT(opts, btf_isr_type_i, 0) ? "I" : "ISR";
	ret = hwt_obuf_init(&b.ob, out, 1 << 18);
	if (!ret)
		ret = hwt_conv_drive(&b.run, true, false, btf_mev, &b, btf_header);
	if (!ret)
		ret = hwt_obuf_flush(&b.ob);
	if (!ret && fflush(out))
		ret = -EIO;
	if (!ret && b.run.stream_err)
		ret = -EBADMSG;
	for (uint32_t c = 0; b.core && c < b.nr_cpus; c++)
		free(b.core[c]);
	for (size_t i = 0; b.isr_sti && i < b.names.n[HWT_ENT_ISR]; i++)
		free(b.isr_sti[i]);
	free(b.core);
	free(b.isr_sti);
	hwt_names_free(&b.names);
	hwt_obuf_free(&b.ob);
	hwt_model_free(b.run.model);
	return ret;
}
