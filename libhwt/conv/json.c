// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Chrome/Perfetto trace-event JSON ({"traceEvents": [...]}), for
 * ui.perfetto.dev and chrome://tracing.
 *
 * Tracks: a pseudo-process "CPUs" with three threads per CPU, "CPU n"
 * (task slices), "CPU n irq" (hard-IRQ slices, nested as they nest) and
 * "CPU n softirq"; one thread per task under its process (tgid), with
 * "Running" and "Runnable" slices, and a slice named after the lock while
 * it waits for one (contention begin to acquisition, its sleep included:
 * a lock wait is not a sleep).  Slices are complete ("X") events written
 * when they end, each track strictly nested; a slice of zero length is
 * left out (B/E pairs of zero length confuse readers once X events are
 * present; with X alone there are none).  Markers are instant events on
 * the CPU track, counters "C" events, lost events instants on the CPU
 * track of the loss.  Names come from metadata events (process_name,
 * thread_name).  Slices still open at the end are closed at the last
 * timestamp.  ts and dur are in µs with ns digits, the trace-event
 * default unit (no displayTimeUnit: Perfetto builds before 2022 read ts as
 * ns when it is set).
 */
#include <errno.h>
#include <stdlib.h>

#include "conv_internal.h"

#define PID_CPUS	0x7FFFFFF0u	/* the pseudo-process holding CPU tracks */
#define TID_IRQ		100000u
#define TID_SOFTIRQ	200000u

enum { TS_NONE, TS_RUNNING, TS_RUNNABLE, TS_LOCK };

#define JSON_MAX_NEST	32	/* irq slices open per CPU */

struct json {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_names names;
	uint32_t nr_cpus;
	uint64_t t0, cpm, num, den;
	uint8_t *tstate;	/* [task idx] open slice on the task's track */
	uint64_t *tstart;	/* [task idx] its start */
	uint32_t *tlock;	/* [task idx] TS_LOCK: the lock's idx */
	uint32_t *cpu_task;	/* [cpu] task idx with an open CPU slice, or NONE */
	uint64_t *cpu_start;	/* [cpu] its start */
	uint32_t *irq_depth;	/* [cpu] */
	uint64_t *irq_start;	/* [cpu][JSON_MAX_NEST] */
	uint32_t *irq_idx;	/* [cpu][JSON_MAX_NEST] */
	uint8_t *soft_open;	/* [cpu] */
	uint64_t *soft_start;	/* [cpu] */
	uint32_t *soft_idx;	/* [cpu] */
	bool first;
	/*
	 * The per-event path: each track's '","pid":P,"tid":T,"ts":' once,
	 * CPU n's three tracks at [3n], [3n + 1] (irq), [3n + 2] (softirq).
	 */
	struct hwt_str *ctrack;
	struct hwt_str *ttrack;	/* [task idx] */
	struct hwt_mk_uses mk_uses;	/* HWT_MSG_* of each marker id */
	size_t line_max;	/* room for any event, slack included */
	uint64_t t_last;	/* ts of t_text */
	bool t_valid;
	uint32_t t_len;
	char t_text[32];	/* "<µs>.<ns digits>" */
};

#define JNONE	UINT32_MAX

static void json_str(struct hwt_obuf *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	ob_putc(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			ob_putc(o, '\\');
			ob_putc(o, (char)c);
		} else if (c < 0x20) {
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF] };

			ob_write(o, esc, sizeof(esc));
		} else if (c == 0xC2 && (unsigned char)s[1] == 0x85) {
			/* line breaks to JavaScript and Unicode-aware readers */
			ob_puts(o, "\\u0085");
			s++;
		} else if (c == 0xE2 && (unsigned char)s[1] == 0x80 &&
			   ((unsigned char)s[2] == 0xA8 || (unsigned char)s[2] == 0xA9)) {
			ob_puts(o, (unsigned char)s[2] == 0xA8 ? "\\u2028" : "\\u2029");
			s += 2;
		} else {
			ob_putc(o, (char)c);
		}
	}
	ob_putc(o, '"');
}

static void json_sep(struct json *j)
{
	ob_puts(&j->ob, j->first ? "\n" : ",\n");
	j->first = false;
}

static uint32_t task_pid(struct json *j, uint32_t tid)
{
	struct hwt_stream *s = hwt_model_names(j->run.model);
	const struct hwt_task *t;

	if (HWT_TID_IS_IDLE(tid))
		return 0;
	t = s && s->task ? s->task(s->ctx, tid) : NULL;
	return t && t->tgid ? t->tgid : tid;
}

static int track_set(struct hwt_str *d, uint32_t pid, uint32_t tid)
{
	char tmp[64];

	snprintf(tmp, sizeof(tmp), "\",\"pid\":%u,\"tid\":%u,\"ts\":", pid, tid);
	return hwt_str_set(d, tmp);
}

static uint64_t json_ns(const struct json *j, uint64_t ts)
{
	return hwt_muldiv(ts - j->t0, j->num, j->den);
}

/* ns as µs with three decimals ("12.345"); returns the end. */
static char *json_put_us(char *d, uint64_t ns)
{
	d = hwt_put_u64(d, ns / 1000);
	d[0] = '.';
	memcpy(d + 1, hwt_dec2 + 2 * (ns / 10 % 100), 2);
	d[3] = (char)('0' + ns % 10);
	return d + 4;
}

/*
 * An event is built in place, in one room reservation: the separator,
 * '{"ph":"X","pid":P,"tid":T,"ts":' and ts (µs with ns digits, reused
 * while the timestamp stays); the caller adds its fields and ends it.
 */
static char *json_begin(struct json *j, char ph, const struct hwt_str *track,
			uint64_t ts)
{
	char *d = ob_room(&j->ob, j->line_max);

	if (!d)
		return NULL;
	if (j->first)
		*d++ = '\n';
	else
		d = hwt_put_lit(d, ",\n");
	j->first = false;
	d = hwt_put_lit(d, "{\"ph\":\"");
	*d++ = ph;
	d = hwt_put_str(d, track->s, track->len);
	if (!j->t_valid || ts != j->t_last) {
		j->t_len = (uint32_t)(json_put_us(j->t_text, json_ns(j, ts)) - j->t_text);
		j->t_last = ts;
		j->t_valid = true;
	}
	memcpy(d, j->t_text, 24);	/* at most 24 used */
	return d + j->t_len;
}

static void json_end(struct json *j, char *d)
{
	j->ob.len = (size_t)(d - j->ob.buf);
}

static void json_meta(struct json *j, const char *what, uint32_t pid, uint32_t tid,
		      const char *name_json)
{
	json_sep(j);
	ob_printf(&j->ob, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\","
		  "\"args\":{\"name\":", pid, tid, what);
	ob_puts(&j->ob, name_json);
	ob_puts(&j->ob, "}}");
}

static int json_header(void *ctx, struct hwt_conv_run *run)
{
	struct json *j = ctx;
	struct hwt_model *m = run->model;
	const struct hwt_trace_info *info = run->in->info;
	char tmp[HWT_NAME_MAX * 4 + 16], date[32];
	size_t ntask;
	int ret;

	/* names as in the other formats: \xHH, a backslash escaped too */
	ret = hwt_names_build(&j->names, m, HWT_SAN_CTRL, json_str);
	if (ret)
		return ret;
	ntask = j->names.n[HWT_ENT_TASK];
	j->tstate = calloc(ntask ? ntask : 1, 1);
	j->tstart = calloc(ntask ? ntask : 1, sizeof(*j->tstart));
	j->tlock = calloc(ntask ? ntask : 1, sizeof(*j->tlock));
	j->cpu_task = malloc(j->nr_cpus * sizeof(*j->cpu_task));
	j->cpu_start = calloc(j->nr_cpus, sizeof(*j->cpu_start));
	j->irq_depth = calloc(j->nr_cpus, sizeof(*j->irq_depth));
	j->irq_start = calloc((size_t)j->nr_cpus * JSON_MAX_NEST, sizeof(*j->irq_start));
	j->irq_idx = calloc((size_t)j->nr_cpus * JSON_MAX_NEST, sizeof(*j->irq_idx));
	j->soft_open = calloc(j->nr_cpus, 1);
	j->soft_start = calloc(j->nr_cpus, sizeof(*j->soft_start));
	j->soft_idx = calloc(j->nr_cpus, sizeof(*j->soft_idx));
	j->ctrack = calloc(3 * (size_t)j->nr_cpus, sizeof(*j->ctrack));
	j->ttrack = calloc(ntask ? ntask : 1, sizeof(*j->ttrack));
	if (!j->tstate || !j->tstart || !j->tlock || !j->cpu_task || !j->cpu_start ||
	    !j->irq_depth || !j->irq_start || !j->irq_idx || !j->soft_open ||
	    !j->soft_start || !j->soft_idx || !j->ctrack || !j->ttrack)
		return -ENOMEM;
	for (uint32_t c = 0; c < j->nr_cpus; c++) {
		j->cpu_task[c] = JNONE;
		if (track_set(&j->ctrack[3 * (size_t)c], PID_CPUS, c) ||
		    track_set(&j->ctrack[3 * (size_t)c + 1], PID_CPUS, TID_IRQ + c) ||
		    track_set(&j->ctrack[3 * (size_t)c + 2], PID_CPUS, TID_SOFTIRQ + c))
			return -ENOMEM;
	}
	for (size_t i = 0; i < ntask; i++) {
		uint32_t tid = hwt_model_id(m, HWT_ENT_TASK, i);

		if (track_set(&j->ttrack[i], task_pid(j, tid), tid))
			return -ENOMEM;
	}
	/* separator, ph, track, ts, one name, fields, and slack */
	j->line_max = j->names.max_len + 256;
	j->t0 = hwt_model_t0(m);
	j->cpm = hwt_conv_cpm(info);
	hwt_conv_ns_per_tick(info, &j->num, &j->den);
	hwt_conv_date(date, sizeof(date), info->creation_time, 'T');
	ob_puts(&j->ob, "{\"otherData\":{\"tool\":\"hwtrace\",\"host\":");
	hwt_name_sanitize(tmp, sizeof(tmp), info->hostname, 0, HWT_SAN_CTRL);
	json_str(&j->ob, tmp);
	ob_puts(&j->ob, ",\"kernel\":");
	hwt_name_sanitize(tmp, sizeof(tmp), info->kernel_release, 0, HWT_SAN_CTRL);
	json_str(&j->ob, tmp);
	ob_printf(&j->ob, ",\"created\":\"%sZ\",\"cpus\":%u,\"losses\":", date,
		  info->nr_cpus);
	hwt_conv_losses(tmp, sizeof(tmp), info);
	json_str(&j->ob, tmp);
	ob_puts(&j->ob, "},\n\"traceEvents\":[");
	j->first = true;
	json_meta(j, "process_name", PID_CPUS, 0, "\"CPUs\"");
	for (uint32_t c = 0; c < j->nr_cpus; c++) {
		snprintf(tmp, sizeof(tmp), "\"CPU %u\"", c);
		json_meta(j, "thread_name", PID_CPUS, c, tmp);
		snprintf(tmp, sizeof(tmp), "\"CPU %u irq\"", c);
		json_meta(j, "thread_name", PID_CPUS, TID_IRQ + c, tmp);
		snprintf(tmp, sizeof(tmp), "\"CPU %u softirq\"", c);
		json_meta(j, "thread_name", PID_CPUS, TID_SOFTIRQ + c, tmp);
	}
	for (size_t i = 0; i < ntask; i++) {
		uint32_t tid = hwt_model_id(m, HWT_ENT_TASK, i);
		uint32_t pid = task_pid(j, tid);

		if (HWT_TID_IS_IDLE(tid))
			continue;	/* never a track: idle is a gap */
		json_meta(j, "thread_name", pid, tid, j->names.v[HWT_ENT_TASK][i]);
		/* a process is named after its main thread */
		if (pid == tid) {
			json_meta(j, "process_name", pid, 0, j->names.v[HWT_ENT_TASK][i]);
		}
	}
	return j->ob.err;
}

/* Padded literals for hwt_put_str(). */
static const char lit_running[32] = "\"Running\"", lit_runnable[32] = "\"Runnable\"",
	cat_sched[32] = "sched", cat_task[32] = "task", cat_irq[32] = "irq",
	cat_softirq[32] = "softirq", cat_lock[32] = "lock";

/* A slice that ended: a complete (X) event, none if it has no length. */
static void json_slice(struct json *j, const struct hwt_str *track, uint64_t start,
		       uint64_t end, const char *name, size_t name_len,
		       const char *cat)
{
	uint64_t ns0 = json_ns(j, start), ns1 = json_ns(j, end);
	char *d;

	if (ns1 <= ns0)
		return;
	d = json_begin(j, 'X', track, start);
	if (!d)
		return;
	d = hwt_put_lit(d, ",\"dur\":");
	d = json_put_us(d, ns1 - ns0);
	d = hwt_put_lit(d, ",\"cat\":\"");
	d = hwt_put_str(d, cat, strlen(cat));
	d = hwt_put_lit(d, "\",\"name\":");
	d = hwt_put_str(d, name, name_len);
	*d++ = '}';
	json_end(j, d);
}

#define NAME(kind, idx)	j->names.v[kind][idx], j->names.len[kind][idx]

/*
 * The task's own track: Running, Runnable, or waiting for a lock (from
 * contention to acquisition, whatever the scheduler does meanwhile).
 */
static void task_track(struct json *j, uint32_t idx, uint64_t ts, int to)
{
	const struct hwt_str *t = &j->ttrack[idx];

	switch (j->tstate[idx]) {
	case TS_RUNNING:
		json_slice(j, t, j->tstart[idx], ts, lit_running, 9, cat_sched);
		break;
	case TS_RUNNABLE:
		json_slice(j, t, j->tstart[idx], ts, lit_runnable, 10, cat_sched);
		break;
	case TS_LOCK:
		json_slice(j, t, j->tstart[idx], ts, NAME(HWT_ENT_LOCK, j->tlock[idx]),
			   cat_lock);
		break;
	default:
		break;
	}
	j->tstate[idx] = (uint8_t)to;
	j->tstart[idx] = ts;
}

/* End the CPU's task slice, its innermost irq slice, its softirq slice. */
static void cpu_end(struct json *j, uint32_t cpu, uint64_t ts)
{
	uint32_t idx = j->cpu_task[cpu];

	if (idx == JNONE)
		return;
	json_slice(j, &j->ctrack[3 * (size_t)cpu], j->cpu_start[cpu], ts,
		   NAME(HWT_ENT_TASK, idx), cat_task);
	j->cpu_task[cpu] = JNONE;
}

static void irq_end(struct json *j, uint32_t cpu, uint64_t ts)
{
	uint32_t d = --j->irq_depth[cpu];
	size_t k = (size_t)cpu * JSON_MAX_NEST + d;

	if (d < JSON_MAX_NEST)
		json_slice(j, &j->ctrack[3 * (size_t)cpu + 1], j->irq_start[k], ts,
			   NAME(HWT_ENT_ISR, j->irq_idx[k]), cat_irq);
}

static void soft_end(struct json *j, uint32_t cpu, uint64_t ts)
{
	if (!j->soft_open[cpu])
		return;
	json_slice(j, &j->ctrack[3 * (size_t)cpu + 2], j->soft_start[cpu], ts,
		   NAME(HWT_ENT_RUNNABLE, j->soft_idx[cpu]), cat_softirq);
	j->soft_open[cpu] = 0;
}

static void json_mev(void *ctx, const struct hwt_mev *ev)
{
	struct json *j = ctx;
	uint32_t cpu = ev->cpu;
	const struct hwt_str *ct = &j->ctrack[3 * (size_t)cpu];
	int uses;
	char *d;

	/* the idle task is a gap on the CPU track, not a slice */
	if (cpu >= j->nr_cpus ||
	    (ev->type <= HWT_MEV_TASK_DELETE && HWT_TID_IS_IDLE(ev->id)))
		return;
	switch (ev->type) {
	case HWT_MEV_TASK_ACTIVATE:
	case HWT_MEV_TASK_RELEASE:
		if (j->tstate[ev->idx] != TS_LOCK)
			task_track(j, ev->idx, ev->ts, TS_RUNNABLE);
		break;
	case HWT_MEV_TASK_START:
	case HWT_MEV_TASK_RESUME:
		if (ev->flags & HWT_MEVF_ISR)
			break;		/* the IRQ track shows the interruption */
		cpu_end(j, cpu, ev->ts);
		j->cpu_task[cpu] = ev->idx;
		j->cpu_start[cpu] = ev->ts;
		if (j->tstate[ev->idx] != TS_LOCK)
			task_track(j, ev->idx, ev->ts, TS_RUNNING);
		break;
	case HWT_MEV_TASK_PREEMPT:
	case HWT_MEV_TASK_TERMINATE:
	case HWT_MEV_TASK_WAIT:
		if (ev->flags & HWT_MEVF_ISR)
			break;
		if (j->cpu_task[cpu] == ev->idx)
			cpu_end(j, cpu, ev->ts);
		/* a lock wait goes on through its sleep, until acquisition */
		if (j->tstate[ev->idx] != TS_LOCK || ev->type == HWT_MEV_TASK_TERMINATE)
			task_track(j, ev->idx, ev->ts,
				   ev->type == HWT_MEV_TASK_PREEMPT ? TS_RUNNABLE : TS_NONE);
		break;
	case HWT_MEV_TASK_CREATE:
	case HWT_MEV_TASK_DELETE:
	case HWT_MEV_PRIORITY:
		d = json_begin(j, 'i', &j->ttrack[ev->idx], ev->ts);
		if (!d)
			return;
		json_end(j, d);
		ob_printf(&j->ob, ",\"s\":\"t\",\"name\":\"%s\"",
			  ev->type == HWT_MEV_TASK_CREATE ? "fork" :
			  ev->type == HWT_MEV_TASK_DELETE ? "exit" : "priority");
		if (ev->type == HWT_MEV_PRIORITY)
			ob_printf(&j->ob, ",\"args\":{\"prio\":%lld%s}",
				  (long long)ev->value,
				  ev->flags & HWT_MEVF_DISINHERIT ? ",\"boost_ends\":true" :
				  ev->flags & HWT_MEVF_INHERIT ? ",\"inherited\":true" : "");
		ob_putc(&j->ob, '}');
		break;
	case HWT_MEV_ISR_START:
		if (j->irq_depth[cpu] < JSON_MAX_NEST) {
			size_t k = (size_t)cpu * JSON_MAX_NEST + j->irq_depth[cpu];

			j->irq_start[k] = ev->ts;
			j->irq_idx[k] = ev->idx;
		}
		j->irq_depth[cpu]++;
		break;
	case HWT_MEV_ISR_TERMINATE:
		if (j->irq_depth[cpu])
			irq_end(j, cpu, ev->ts);
		break;
	case HWT_MEV_RUN_START:
		soft_end(j, cpu, ev->ts);
		j->soft_open[cpu] = 1;
		j->soft_start[cpu] = ev->ts;
		j->soft_idx[cpu] = ev->idx;
		break;
	case HWT_MEV_RUN_TERMINATE:
		soft_end(j, cpu, ev->ts);
		break;
	case HWT_MEV_MARKER:
		uses = hwt_mk_uses(&j->mk_uses, j->run.model, ev->id);
		d = uses < 0 ? NULL : json_begin(j, 'i', ct, ev->ts);
		if (!d)
			return;
		d = hwt_put_lit(d, ",\"s\":\"t\",\"cat\":\"marker\",\"name\":");
		d = hwt_put_str(d, NAME(HWT_ENT_MARKER, ev->idx));
		/* digits, '-' and a space: nothing to escape */
		d = hwt_put_lit(d, ",\"args\":{\"value\":\"");
		d = hwt_put_marker_msg(d, (unsigned int)uses, ev);
		d = hwt_put_lit(d, "\"}}");
		json_end(j, d);
		break;
	case HWT_MEV_COUNTER:
		d = json_begin(j, 'C', &j->ctrack[0], ev->ts);
		if (!d)
			return;
		d = hwt_put_lit(d, ",\"name\":");
		d = hwt_put_str(d, NAME(HWT_ENT_COUNTER, ev->idx));
		d = hwt_put_lit(d, ",\"args\":{\"value\":");
		d = hwt_put_s64(d, ev->value);
		d = hwt_put_lit(d, "}}");
		json_end(j, d);
		break;
	case HWT_MEV_LOCK_WAIT:
	case HWT_MEV_LOCK_ACQUIRE:
		/* a task's wait: a slice on its own track */
		if (ev->ctx_kind == HWT_ENT_TASK) {
			if (ev->type == HWT_MEV_LOCK_WAIT) {
				task_track(j, ev->ctx_idx, ev->ts, TS_LOCK);
				j->tlock[ev->ctx_idx] = ev->idx;
			} else if (j->tstate[ev->ctx_idx] == TS_LOCK) {
				task_track(j, ev->ctx_idx, ev->ts, TS_RUNNING);
			}
			break;
		}
		/* in an ISR it spins: an instant */
		/* fall through */
	case HWT_MEV_LOCK_RELEASE:
		d = json_begin(j, 'i', ct, ev->ts);
		if (!d)
			return;
		json_end(j, d);
		ob_puts(&j->ob, ",\"s\":\"t\",\"cat\":\"lock\",\"name\":");
		ob_puts(&j->ob, j->names.v[HWT_ENT_LOCK][ev->idx]);
		ob_printf(&j->ob, ",\"args\":{\"op\":\"%s\"}}",
			  ev->type == HWT_MEV_LOCK_WAIT ? "contended" :
			  ev->type == HWT_MEV_LOCK_ACQUIRE ? "acquired" : "released");
		break;
	case HWT_MEV_LOST:
		d = json_begin(j, 'i', ct, ev->ts);
		if (!d)
			return;
		json_end(j, d);
		/* on the CPU track of the gap */
		ob_printf(&j->ob, ",\"s\":\"t\",\"cat\":\"hwtrace\",\"name\":\"lost events\","
			  "\"args\":{\"cpu\":%u,\"lost\":%u,\"cpu_total\":%lld,\"total\":%llu}}",
			  cpu, ev->inst, (long long)ev->value,
			  (unsigned long long)ev->value2);
		break;
	default:
		break;
	}
}

/* Close what is still open at the last timestamp, then the array. */
static void json_finish(struct json *j)
{
	struct hwt_model *m = j->run.model;
	uint64_t end = hwt_model_t_end(m);

	for (uint32_t c = 0; j->cpu_task && c < j->nr_cpus; c++) {
		cpu_end(j, c, end);
		while (j->irq_depth[c])
			irq_end(j, c, end);
		soft_end(j, c, end);
	}
	for (size_t i = 0; j->tstate && i < j->names.n[HWT_ENT_TASK]; i++)
		if (j->tstate[i] != TS_NONE)
			task_track(j, (uint32_t)i, end, TS_NONE);
	ob_puts(&j->ob, "\n]}\n");
}

int hwt_conv_json(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	struct json j = { .run = { .in = in, .opts = opts } };
	int ret;

	j.nr_cpus = in->info->nr_cpus;
	ret = hwt_obuf_init(&j.ob, out, HWT_OBUF_OUT);
	if (!ret)
		ret = hwt_conv_drive(&j.run, true, false, json_mev, &j, json_header);
	if (!ret) {
		json_finish(&j);
		ret = hwt_obuf_flush(&j.ob);
	}
	if (!ret && fflush(out))
		ret = -EIO;
	if (!ret && j.run.stream_err)
		ret = -EBADMSG;
	free(j.tstate);
	free(j.tstart);
	free(j.tlock);
	free(j.cpu_task);
	free(j.cpu_start);
	free(j.irq_depth);
	free(j.irq_start);
	free(j.irq_idx);
	free(j.soft_open);
	free(j.soft_start);
	free(j.soft_idx);
	for (size_t i = 0; j.ctrack && i < 3 * (size_t)j.nr_cpus; i++)
		free(j.ctrack[i].s);
	for (size_t i = 0; j.ttrack && i < j.names.n[HWT_ENT_TASK]; i++)
		free(j.ttrack[i].s);
	free(j.ctrack);
	free(j.ttrack);
	free(j.mk_uses.v);
	hwt_names_free(&j.names);
	hwt_obuf_free(&j.ob);
	hwt_model_free(j.run.model);
	return ret;
}
