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

/* Literals copied as whole chunks: zero-padded in place. */
struct btf_lit {
	char s[32];
	uint32_t len;
};

#define LIT(str)	{ str, sizeof(str) - 1 }

struct btf {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_names names;
	struct hwt_str *core;		/* "Core_<n>,-1," */
	struct hwt_str *isr_sti;	/* stimulus of each ISR */
	uint8_t *mk_uses;		/* HWT_MSG_* of each marker id */
	uint32_t nr_cpus;
	uint64_t t0, num, den;
	const struct btf_lit *isr_type;
	size_t line_max;		/* room for any line, slack included */
	/* the time field of the last line: lines often share it */
	uint64_t t_last;
	bool t_valid;
	uint32_t t_len;
	char t_text[32];		/* "<ns>," */
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

	size_t longest;
	int ret;

	ret = hwt_names_build(&b->names, m, HWT_SAN_CTRL, btf_quote);
	if (ret)
		return ret;
	longest = b->names.max_len;
	b->core = calloc(b->nr_cpus, sizeof(*b->core));
	b->isr_sti = calloc(b->names.n[HWT_ENT_ISR] + 1, sizeof(*b->isr_sti));
	b->mk_uses = hwt_conv_marker_uses(m);
	if (!b->core || !b->isr_sti || !b->mk_uses)
		return -ENOMEM;
	for (uint32_t c = 0; c < b->nr_cpus; c++) {
		/* a core is a source with instance -1 */
		snprintf(tmp, sizeof(tmp), "Core_%u,-1,", c);
		if (hwt_str_set(&b->core[c], tmp))
			return -ENOMEM;
	}
	for (size_t i = 0; i < b->names.n[HWT_ENT_ISR]; i++) {
		char raw[HWT_NAME_MAX];

		hwt_conv_name(raw, sizeof(raw), m, HWT_ENT_ISR,
			      hwt_model_id(m, HWT_ENT_ISR, i));
		snprintf(tmp, sizeof(tmp), "STI_%s", raw);
		b->isr_sti[i].s = hwt_name_dup(tmp, HWT_SAN_CTRL, btf_quote);
		if (!b->isr_sti[i].s)
			return -ENOMEM;
		b->isr_sti[i].len = (uint32_t)strlen(b->isr_sti[i].s);
		if (b->isr_sti[i].len > longest)
			longest = b->isr_sti[i].len;
	}
	/* time, two names, three numbers, type, event, note, and slack */
	b->line_max = 2 * longest + 256;
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

/*
 * A line is built in place, in one room reservation for the longest line:
 * names are copied as whole chunks (hwt_put_str()), numbers formatted
 * directly.  The time field starts it: "<ns>,", reused while the
 * timestamp stays the same.
 */
static char *btf_line(struct btf *b, uint64_t ts)
{
	char *d = ob_room(&b->ob, b->line_max);

	if (!d)
		return NULL;
	if (!b->t_valid || ts != b->t_last) {
		char *e = hwt_put_u64(b->t_text,
				      hwt_muldiv(ts - b->t0, b->num, b->den));

		*e++ = ',';
		b->t_len = (uint32_t)(e - b->t_text);
		b->t_last = ts;
		b->t_valid = true;
	}
	memcpy(d, b->t_text, 24);	/* at most 21 used */
	return d + b->t_len;
}

static void btf_end(struct btf *b, char *d)
{
	*d++ = '\n';
	b->ob.len = (size_t)(d - b->ob.buf);
}

/* <source>,<inst>, */
static char *btf_src(char *d, const char *name, uint32_t len, int64_t inst)
{
	d = hwt_put_str(d, name, len);
	*d++ = ',';
	d = hwt_put_s64(d, inst);
	*d++ = ',';
	return d;
}

static char *btf_core(struct btf *b, char *d, uint32_t cpu)
{
	const struct hwt_str *c = &b->core[cpu < b->nr_cpus ? cpu : 0];

	return hwt_put_str(d, c->s, c->len);
}

/* The executing context as source, or the stimulus STI_trace. */
static char *btf_ctx(struct btf *b, char *d, const struct hwt_mev *ev)
{
	uint32_t k = ev->ctx_kind;

	if (k == HWT_ENT_TASK || k == HWT_ENT_ISR)
		return btf_src(d, b->names.v[k][ev->ctx_idx],
			       b->names.len[k][ev->ctx_idx], ev->ctx_inst);
	return hwt_put_lit(d, "STI_trace,-1,");
}

/* <type>,<target>,<inst>,<event> (the caller ends the line) */
static char *btf_tgt(struct btf *b, char *d, const struct btf_lit *type,
		     unsigned int kind, uint32_t idx, int64_t inst,
		     const struct btf_lit *event)
{
	d = hwt_put_str(d, type->s, type->len);
	*d++ = ',';
	d = btf_src(d, b->names.v[kind][idx], b->names.len[kind][idx], inst);
	return hwt_put_str(d, event->s, event->len);
}

static const struct btf_lit lit_t = LIT("T"), lit_isr = LIT("ISR"),
	lit_i = LIT("I"), lit_r = LIT("R"), lit_sig = LIT("SIG"),
	lit_sem = LIT("SEM"), lit_activate = LIT("activate"),
	lit_release = LIT("release"), lit_write = LIT("write"),
	lit_request = LIT("requestsemaphore"), lit_waiting = LIT("waiting"),
	lit_assigned = LIT("assigned"), lit_released = LIT("released");

static void btf_mev(void *ctx, const struct hwt_mev *ev)
{
	static const struct btf_lit state_ev[HWT_NR_MEV] = {
		[HWT_MEV_TASK_START] = LIT("start"), [HWT_MEV_TASK_PREEMPT] = LIT("preempt"),
		[HWT_MEV_TASK_RESUME] = LIT("resume"), [HWT_MEV_TASK_TERMINATE] = LIT("terminate"),
		[HWT_MEV_TASK_WAIT] = LIT("wait"),
		[HWT_MEV_ISR_START] = LIT("start"), [HWT_MEV_ISR_PREEMPT] = LIT("preempt"),
		[HWT_MEV_ISR_RESUME] = LIT("resume"), [HWT_MEV_ISR_TERMINATE] = LIT("terminate"),
		[HWT_MEV_RUN_START] = LIT("start"), [HWT_MEV_RUN_SUSPEND] = LIT("suspend"),
		[HWT_MEV_RUN_RESUME] = LIT("resume"), [HWT_MEV_RUN_TERMINATE] = LIT("terminate"),
	};
	struct btf *b = ctx;
	unsigned int uses;
	char *d;

	switch (ev->type) {
	case HWT_MEV_TASK_ACTIVATE:
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_ctx(b, d, ev);
		d = btf_tgt(b, d, &lit_t, HWT_ENT_TASK, ev->idx, ev->inst, &lit_activate);
		break;
	case HWT_MEV_TASK_RELEASE:
		/* source: the core it waited on */
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_core(b, d, ev->last_cpu);
		d = btf_tgt(b, d, &lit_t, HWT_ENT_TASK, ev->idx, ev->inst, &lit_release);
		break;
	case HWT_MEV_TASK_START:
	case HWT_MEV_TASK_PREEMPT:
	case HWT_MEV_TASK_RESUME:
	case HWT_MEV_TASK_TERMINATE:
	case HWT_MEV_TASK_WAIT:
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_core(b, d, ev->cpu);
		d = btf_tgt(b, d, &lit_t, HWT_ENT_TASK, ev->idx, ev->inst,
			    &state_ev[ev->type]);
		break;
	case HWT_MEV_ISR_START:
		/* the chart starts with an activation */
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_src(d, b->isr_sti[ev->idx].s, b->isr_sti[ev->idx].len,
			    ev->inst);
		d = btf_tgt(b, d, b->isr_type, HWT_ENT_ISR, ev->idx, ev->inst,
			    &lit_activate);
		btf_end(b, d);
		/* fall through */
	case HWT_MEV_ISR_PREEMPT:
	case HWT_MEV_ISR_RESUME:
	case HWT_MEV_ISR_TERMINATE:
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_core(b, d, ev->cpu);
		d = btf_tgt(b, d, b->isr_type, HWT_ENT_ISR, ev->idx, ev->inst,
			    &state_ev[ev->type]);
		break;
	case HWT_MEV_RUN_START:
	case HWT_MEV_RUN_SUSPEND:
	case HWT_MEV_RUN_RESUME:
	case HWT_MEV_RUN_TERMINATE:
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_ctx(b, d, ev);
		d = btf_tgt(b, d, &lit_r, HWT_ENT_RUNNABLE, ev->idx, ev->inst,
			    &state_ev[ev->type]);
		break;
	case HWT_MEV_MARKER:
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_ctx(b, d, ev);
		d = btf_tgt(b, d, &lit_sig, HWT_ENT_MARKER, ev->idx, 0, &lit_write);
		/* the parameters; quoted (btf_quote()) when there are two */
		uses = b->mk_uses[ev->id];
		if (uses) {
			*d++ = ',';
			if (uses == (HWT_MSG_VALUE2 | HWT_MSG_VALUE)) {
				*d++ = '"';
				d = hwt_put_marker_msg(d, uses, ev);
				*d++ = '"';
			} else {
				d = hwt_put_marker_msg(d, uses, ev);
			}
		}
		break;
	case HWT_MEV_COUNTER:
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_ctx(b, d, ev);
		d = btf_tgt(b, d, &lit_sig, HWT_ENT_COUNTER, ev->idx, 0, &lit_write);
		*d++ = ',';
		d = hwt_put_s64(d, ev->value);
		break;
	case HWT_MEV_LOCK_WAIT:
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_ctx(b, d, ev);
		d = btf_tgt(b, d, &lit_sem, HWT_ENT_LOCK, ev->idx, 0, &lit_request);
		btf_end(b, d);
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_ctx(b, d, ev);
		d = btf_tgt(b, d, &lit_sem, HWT_ENT_LOCK, ev->idx, 0, &lit_waiting);
		break;
	case HWT_MEV_LOCK_ACQUIRE:
	case HWT_MEV_LOCK_RELEASE:
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = btf_ctx(b, d, ev);
		d = btf_tgt(b, d, &lit_sem, HWT_ENT_LOCK, ev->idx, 0,
			    ev->type == HWT_MEV_LOCK_ACQUIRE ? &lit_assigned :
							       &lit_released);
		break;
	case HWT_MEV_LOST:
		ob_printf(&b->ob, "# lost %u events on Core_%u, %llu in all\n",
			  ev->inst, ev->cpu, (unsigned long long)ev->value2);
		d = btf_line(b, ev->ts);
		if (!d)
			return;
		d = hwt_put_lit(d, "STI_trace,-1,SIG,lost_events,0,write,");
		d = hwt_put_u64(d, ev->value2);
		break;
	default:
		return;		/* create, delete, priority: BTF has no event */
	}
	btf_end(b, d);
}

int hwt_conv_btf(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	struct btf b = { .run = { .in = in, .opts = opts } };
	int ret;

	b.nr_cpus = in->info->nr_cpus;
	b.isr_type = CONV_OPT(opts, btf_isr_type_i, 0) ? &lit_i : &lit_isr;
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
		free(b.core[c].s);
	for (size_t i = 0; b.isr_sti && i < b.names.n[HWT_ENT_ISR]; i++)
		free(b.isr_sti[i].s);
	free(b.core);
	free(b.isr_sti);
	free(b.mk_uses);
	hwt_names_free(&b.names);
	hwt_obuf_free(&b.ob);
	hwt_model_free(b.run.model);
	return ret;
}
