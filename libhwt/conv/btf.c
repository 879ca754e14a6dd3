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
 * ISR activations from a stimulus named after the ISR.  Stimuli are
 * instanceable: each use of one is its next instance, from 0 (an ISR's
 * stimulus triggers once per ISR instance, so it has the ISR's numbers).
 * Markers and
 * counters are SIG writes with the value as note; lock contention uses the
 * process-semaphore events of later BTF versions (2.1.3 lists the SEM type
 * but no events): requestsemaphore and waiting, assigned, released.  Losses:
 * a "# losses:" header comment with every count the trace has, and at each
 * gap a comment line and a SIG write of "lost_events" (the running total).
 *
 * Names: Trace Compass splits a line at its first commas with no quote
 * handling, so a comma in a name would shift the columns and a quote would
 * stay in it.  Names carry no comma, quote or space: each becomes '_'
 * (a "# name" comment line before a name's first use keeps the original);
 * control characters, backslashes, U+0085/U+2028/U+2029 and invalid UTF-8
 * become \xHH.  A marker's note is digits, spaces and '-', unquoted.
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
	struct hwt_names names;		/* made as entities come */
	struct hwt_str *core;		/* "Core_<n>,-1," */
	struct hwt_str *isr_sti;	/* stimulus of each ISR (by idx), as names */
	size_t nr_isr_sti;
	struct hwt_mk_uses mk_uses;	/* HWT_MSG_* of each marker id */
	uint32_t nr_cpus;
	uint64_t sti_trace_inst;	/* next instance of STI_trace */
	uint64_t t0, num, den;
	const struct btf_lit *isr_type;
	size_t line_max;		/* room for any line, slack included */
	/* the time field of the last line: lines often share it */
	uint64_t t_last;		/* in ticks */
	struct hwt_dec_clock t_ns;
	uint8_t kind[HWT_NR_MEV];	/* hwt_mev_kind() of each event type */
};

/* What Trace Compass would misparse in a name becomes '_'. */
#define BTF_NAME_SUBST	"_"

static void btf_esc(struct hwt_obuf *o, const char *s)
{
	for (; *s; s++)
		ob_putc(o, *s == ',' || *s == '"' || *s == ' ' ? BTF_NAME_SUBST[0] : *s);
}

/* A "# name" comment with the original when the BTF name had to change. */
static void btf_name_orig(struct btf *b, const char *raw, const char *name)
{
	char clean[HWT_NAME_MAX * 4 + 1];

	hwt_name_sanitize(clean, sizeof(clean), raw, 0, HWT_SAN_CTRL);
	if (strcmp(clean, name))
		ob_printf(&b->ob, "# name %s is \"%s\"\n", name, clean);
}

static int btf_header(void *ctx, struct hwt_conv_run *run)
{
	struct btf *b = ctx;
	struct hwt_model *m = run->model;
	const struct hwt_trace_info *info = run->in->info;
	char date[32], tmp[HWT_NAME_MAX + 8], losses[1024];
	uint64_t total = 0;

	/* BTF has no table of entities: names are made as they come */
	hwt_names_init(&b->names, m, HWT_SAN_CTRL, btf_esc);
	b->core = calloc(b->nr_cpus, sizeof(*b->core));
	if (!b->core)
		return -ENOMEM;
	for (uint32_t c = 0; c < b->nr_cpus; c++) {
		/* a core is a source with instance -1 */
		snprintf(tmp, sizeof(tmp), "Core_%u,-1,", c);
		if (hwt_str_set(&b->core[c], tmp))
			return -ENOMEM;
	}
	b->line_max = 256;
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
	/* where a reader looks first; each gap also has its own marker below */
	hwt_conv_losses(losses, sizeof(losses), info);
	ob_printf(&b->ob, "# losses: %s\n", losses);
	return b->ob.err;
}

/* Room for a line of two names as long as len, slack included. */
static void btf_fit(struct btf *b, size_t len)
{
	/* time, two names, three numbers, type, event, note, and slack */
	if (2 * len + 256 > b->line_max)
		b->line_max = 2 * len + 256;
}

static bool btf_name_new(struct btf *b, unsigned int kind, uint32_t idx, uint32_t id)
{
	char raw[HWT_NAME_MAX];

	if (hwt_names_add(&b->names, kind, idx, id)) {
		b->ob.err = -ENOMEM;
		return false;
	}
	hwt_conv_name(raw, sizeof(raw), b->run.model, (enum hwt_entity_kind)kind, id);
	btf_name_orig(b, raw, b->names.v[kind][idx]);
	btf_fit(b, b->names.max_len);
	return true;
}

/* Make the name of entity (kind, id) with index idx if it has none yet. */
static inline bool btf_name(struct btf *b, unsigned int kind, uint32_t idx,
			    uint32_t id)
{
	return hwt_names_has(&b->names, kind, idx) || btf_name_new(b, kind, idx, id);
}

/* The stimulus of ISR (idx, id): "STI_<isr name>". */
static const struct hwt_str *btf_isr_sti(struct btf *b, uint32_t idx, uint32_t id)
{
	char raw[HWT_NAME_MAX], tmp[HWT_NAME_MAX + 8];
	struct hwt_str *sti;

	if (idx >= b->nr_isr_sti) {
		size_t n = idx + 1 > 2 * b->nr_isr_sti ? idx + 1 : 2 * b->nr_isr_sti;

		sti = realloc(b->isr_sti, n * sizeof(*sti));
		if (!sti)
			goto nomem;
		memset(sti + b->nr_isr_sti, 0, (n - b->nr_isr_sti) * sizeof(*sti));
		b->isr_sti = sti;
		b->nr_isr_sti = n;
	}
	sti = &b->isr_sti[idx];
	if (sti->s)
		return sti;
	hwt_conv_name(raw, sizeof(raw), b->run.model, HWT_ENT_ISR, id);
	snprintf(tmp, sizeof(tmp), "STI_%s", raw);
	sti->s = hwt_name_dup(tmp, HWT_SAN_CTRL, btf_esc);
	if (!sti->s)
		goto nomem;
	sti->len = (uint32_t)strlen(sti->s);
	btf_name_orig(b, tmp, sti->s);
	btf_fit(b, sti->len);
	return sti;
nomem:
	b->ob.err = -ENOMEM;
	return NULL;
}

/*
 * A line is built in place, in one room reservation for the longest line:
 * names are copied as whole chunks (hwt_put_str()), numbers formatted
 * directly.  The time field starts it: "<ns>,", reused while the
 * timestamp stays the same.  The small helpers of this path are inlined:
 * a call would cost as much as their work.
 */
static inline __attribute__((always_inline))
char *btf_line(struct btf *b, uint64_t ts)
{
	char *d = ob_room(&b->ob, b->line_max);

	if (!d)
		return NULL;
	if (!b->t_ns.valid || ts != b->t_last) {
		hwt_dec_clock_set(&b->t_ns, hwt_muldiv(ts - b->t0, b->num, b->den));
		b->t_last = ts;
	}
	memcpy(d, b->t_ns.s, 24);	/* at most 20 used */
	d += b->t_ns.len;
	*d++ = ',';
	return d;
}

static void btf_end(struct btf *b, char *d)
{
	*d++ = '\n';
	b->ob.len = (size_t)(d - b->ob.buf);
}

/* <source>,<inst>, */
static inline __attribute__((always_inline))
char *btf_src(char *d, const char *name, uint32_t len, int64_t inst)
{
	d = hwt_put_str(d, name, len);
	*d++ = ',';
	d = hwt_put_s64(d, inst);
	*d++ = ',';
	return d;
}

/* cpu < nr_cpus: the model drops the records of any other (with a warning) */
static char *btf_core(struct btf *b, char *d, uint32_t cpu)
{
	const struct hwt_str *c = &b->core[cpu];

	return hwt_put_str(d, c->s, c->len);
}

/* The stimulus STI_trace as source: its next instance. */
static char *btf_sti_trace(struct btf *b, char *d)
{
	d = hwt_put_lit(d, "STI_trace,");
	d = hwt_put_u64(d, b->sti_trace_inst++);
	*d++ = ',';
	return d;
}

/* The executing context as source, or the stimulus STI_trace. */
static inline __attribute__((always_inline))
char *btf_ctx(struct btf *b, char *d, const struct hwt_mev *ev)
{
	uint32_t k = ev->ctx_kind;

	if (k == HWT_ENT_TASK || k == HWT_ENT_ISR)
		return btf_src(d, b->names.v[k][ev->ctx_idx],
			       b->names.len[k][ev->ctx_idx], ev->ctx_inst);
	return btf_sti_trace(b, d);
}

/* <type>,<target>,<inst>,<event> (the caller ends the line) */
static inline __attribute__((always_inline))
char *btf_tgt(struct btf *b, char *d, const struct btf_lit *type,
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
	unsigned int kind = b->kind[ev->type];
	const struct hwt_str *sti;
	int uses;
	char *d;

	/* a CPU running its idle task runs nothing */
	if (hwt_mev_is_idle(ev))
		return;
	/* the names the line needs */
	if (kind < HWT_NR_ENT_KINDS && !btf_name(b, kind, ev->idx, ev->id))
		return;
	if ((ev->ctx_kind == HWT_ENT_TASK || ev->ctx_kind == HWT_ENT_ISR) &&
	    !btf_name(b, ev->ctx_kind, ev->ctx_idx, ev->ctx_id))
		return;
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
		sti = btf_isr_sti(b, ev->idx, ev->id);
		d = sti ? btf_line(b, ev->ts) : NULL;
		if (!d)
			return;
		d = btf_src(d, sti->s, sti->len, ev->inst);
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
		/* the parameters as the note: digits, '-' and a space */
		uses = hwt_mk_uses(&b->mk_uses, b->run.model, ev->id);
		if (uses < 0) {
			b->ob.err = -ENOMEM;
			return;
		}
		if (uses) {
			*d++ = ',';
			d = hwt_put_marker_msg(d, (unsigned int)uses, ev);
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
		d = btf_sti_trace(b, d);
		d = hwt_put_lit(d, "SIG,lost_events,0,write,");
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
	for (unsigned int t = 0; t < HWT_NR_MEV; t++)
		b.kind[t] = (uint8_t)hwt_mev_kind(t);
	b.isr_type = CONV_OPT(opts, btf_isr_type_i, 0) ? &lit_i : &lit_isr;
	ret = hwt_obuf_init(&b.ob, out, HWT_OBUF_OUT);
	if (!ret)
		ret = hwt_conv_drive(&b.run, false, false, btf_mev, &b, btf_header);
	if (!ret)
		ret = hwt_obuf_flush(&b.ob);
	if (!ret && fflush(out))
		ret = -EIO;
	if (!ret && b.run.stream_err)
		ret = -EBADMSG;
	for (uint32_t c = 0; b.core && c < b.nr_cpus; c++)
		free(b.core[c].s);
	for (size_t i = 0; i < b.nr_isr_sti; i++)
		free(b.isr_sti[i].s);
	free(b.core);
	free(b.isr_sti);
	free(b.mk_uses.v);
	hwt_names_free(&b.names);
	hwt_obuf_free(&b.ob);
	hwt_model_free(b.run.model);
	return ret;
}
