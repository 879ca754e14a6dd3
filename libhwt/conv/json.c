// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Chrome/Perfetto trace-event JSON ({"traceEvents": [...]}), for
 * ui.perfetto.dev and chrome://tracing.
 *
 * Tracks: a pseudo-process "CPUs" with three threads per CPU, "CPU n"
 * (task slices), "CPU n irq" (hard-IRQ slices, nested as they nest) and
 * "CPU n softirq"; one thread per task under its process (tgid), with
 * "Running" and "Runnable" slices.  Slices are B/E pairs written in time
 * order, each track strictly nested, so equal timestamps keep their file
 * order (the order the trace-event spec implies).  Markers are instant
 * events on the CPU track, counters "C" events, lost events global instants.
 * Names come from metadata events (process_name, thread_name).  Slices
 * still open at the end are closed at the last timestamp.  ts is in µs with
 * ns digits.
 */
#include <errno.h>
#include <stdlib.h>

#include "conv_internal.h"

#define PID_CPUS	0x7FFFFFF0u	/* the pseudo-process holding CPU tracks */
#define TID_IRQ		100000u
#define TID_SOFTIRQ	200000u

enum { TS_NONE, TS_RUNNING, TS_RUNNABLE };

struct json {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_names names;
	uint32_t nr_cpus;
	uint64_t t0, cpm, num, den;
	uint8_t *tstate;	/* [task idx] open slice on the task's track */
	uint32_t *cpu_task;	/* [cpu] task idx with an open CPU slice, or NONE */
	uint32_t *irq_depth;	/* [cpu] */
	uint8_t *soft_open;	/* [cpu] */
	bool first;
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

static void json_ts(struct json *j, uint64_t ts)
{
	uint64_t ns = hwt_muldiv(ts - j->t0, j->num, j->den);
	char frac[4] = { (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
			 (char)('0' + ns % 10), 0 };

	ob_u64(&j->ob, ns / 1000);
	ob_putc(&j->ob, '.');
	ob_puts(&j->ob, frac);
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

/* {"ph":"X","pid":P,"tid":T,"ts":..., then the caller's fields and "}". */
static void json_begin(struct json *j, char ph, uint32_t pid, uint32_t tid,
		       uint64_t ts)
{
	json_sep(j);
	ob_puts(&j->ob, "{\"ph\":\"");
	ob_putc(&j->ob, ph);
	ob_puts(&j->ob, "\",\"pid\":");
	ob_u64(&j->ob, pid);
	ob_puts(&j->ob, ",\"tid\":");
	ob_u64(&j->ob, tid);
	ob_puts(&j->ob, ",\"ts\":");
	json_ts(j, ts);
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
	bool idle_named = false;
	int ret;

	ret = hwt_names_build(&j->names, m, 0, json_str);
	if (ret)
		return ret;
	ntask = j->names.n[HWT_ENT_TASK];
	j->tstate = calloc(ntask ? ntask : 1, 1);
	j->cpu_task = malloc(j->nr_cpus * sizeof(*j->cpu_task));
	j->irq_depth = calloc(j->nr_cpus, sizeof(*j->irq_depth));
	j->soft_open = calloc(j->nr_cpus, 1);
	if (!j->tstate || !j->cpu_task || !j->irq_depth || !j->soft_open)
		return -ENOMEM;
	for (uint32_t c = 0; c < j->nr_cpus; c++)
		j->cpu_task[c] = JNONE;
	j->t0 = hwt_model_t0(m);
	j->cpm = hwt_conv_cpm(info);
	hwt_conv_ns_per_tick(info, &j->num, &j->den);
	hwt_conv_date(date, sizeof(date), info->creation_time, 'T');
	ob_puts(&j->ob, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"hwtrace\",\"host\":");
	hwt_name_sanitize(tmp, sizeof(tmp), info->hostname, 0, 0);
	json_str(&j->ob, tmp);
	ob_puts(&j->ob, ",\"kernel\":");
	hwt_name_sanitize(tmp, sizeof(tmp), info->kernel_release, 0, 0);
	json_str(&j->ob, tmp);
	ob_printf(&j->ob, ",\"created\":\"%sZ\",\"cpus\":%u},\n\"traceEvents\":[",
		  date, info->nr_cpus);
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

		json_meta(j, "thread_name", pid, tid, j->names.v[HWT_ENT_TASK][i]);
		/* a process is named after its main thread, pid 0 once */
		if (pid == 0 && !idle_named) {
			json_meta(j, "process_name", 0, 0, "\"swapper\"");
			idle_named = true;
		} else if (pid && pid == tid) {
			json_meta(j, "process_name", pid, 0, j->names.v[HWT_ENT_TASK][i]);
		}
	}
	return j->ob.err;
}

/* A B or E slice event with name and optional args. */
static void json_slice(struct json *j, char ph, uint32_t pid, uint32_t tid,
		       uint64_t ts, const char *name_json, const char *cat)
{
	json_begin(j, ph, pid, tid, ts);
	if (ph == 'B') {
		ob_puts(&j->ob, ",\"cat\":\"");
		ob_puts(&j->ob, cat);
		ob_puts(&j->ob, "\",\"name\":");
		ob_puts(&j->ob, name_json);
	}
	ob_putc(&j->ob, '}');
}

static void task_track(struct json *j, uint32_t idx, uint32_t tid, uint64_t ts,
		       int to)
{
	uint32_t pid = task_pid(j, tid);

	if (j->tstate[idx] != TS_NONE)
		json_slice(j, 'E', pid, tid, ts, NULL, NULL);
	if (to == TS_RUNNING)
		json_slice(j, 'B', pid, tid, ts, "\"Running\"", "sched");
	else if (to == TS_RUNNABLE)
		json_slice(j, 'B', pid, tid, ts, "\"Runnable\"", "sched");
	j->tstate[idx] = (uint8_t)to;
}

static void json_mev(void *ctx, const struct hwt_mev *ev)
{
	struct json *j = ctx;
	struct hwt_model *m = j->run.model;
	uint32_t cpu = ev->cpu;
	char msg[64];

	if (cpu >= j->nr_cpus)
		return;
	switch (ev->type) {
	case HWT_MEV_TASK_ACTIVATE:
	case HWT_MEV_TASK_RELEASE:
		task_track(j, ev->idx, ev->id, ev->ts, TS_RUNNABLE);
		break;
	case HWT_MEV_TASK_START:
	case HWT_MEV_TASK_RESUME:
		if (ev->flags & HWT_MEVF_ISR)
			break;		/* the IRQ track shows the interruption */
		if (j->cpu_task[cpu] != JNONE)
			json_slice(j, 'E', PID_CPUS, cpu, ev->ts, NULL, NULL);
		json_slice(j, 'B', PID_CPUS, cpu, ev->ts,
			   j->names.v[HWT_ENT_TASK][ev->idx], "task");
		j->cpu_task[cpu] = ev->idx;
		task_track(j, ev->idx, ev->id, ev->ts, TS_RUNNING);
		break;
	case HWT_MEV_TASK_PREEMPT:
	case HWT_MEV_TASK_TERMINATE:
	case HWT_MEV_TASK_WAIT:
		if (ev->flags & HWT_MEVF_ISR)
			break;
		if (j->cpu_task[cpu] == ev->idx) {
			json_slice(j, 'E', PID_CPUS, cpu, ev->ts, NULL, NULL);
			j->cpu_task[cpu] = JNONE;
		}
		task_track(j, ev->idx, ev->id, ev->ts,
			   ev->type == HWT_MEV_TASK_PREEMPT ? TS_RUNNABLE : TS_NONE);
		break;
	case HWT_MEV_TASK_CREATE:
	case HWT_MEV_TASK_DELETE:
	case HWT_MEV_PRIORITY:
		json_begin(j, 'i', task_pid(j, ev->id), ev->id, ev->ts);
		ob_printf(&j->ob, ",\"s\":\"t\",\"name\":\"%s\"",
			  ev->type == HWT_MEV_TASK_CREATE ? "fork" :
			  ev->type == HWT_MEV_TASK_DELETE ? "exit" : "priority");
		if (ev->type == HWT_MEV_PRIORITY)
			ob_printf(&j->ob, ",\"args\":{\"prio\":%lld%s}",
				  (long long)ev->value,
				  ev->flags & HWT_MEVF_INHERIT ? ",\"inherited\":true" : "");
		ob_putc(&j->ob, '}');
		break;
	case HWT_MEV_ISR_START:
		json_slice(j, 'B', PID_CPUS, TID_IRQ + cpu, ev->ts,
			   j->names.v[HWT_ENT_ISR][ev->idx], "irq");
		j->irq_depth[cpu]++;
		break;
	case HWT_MEV_ISR_TERMINATE:
		if (j->irq_depth[cpu]) {
			json_slice(j, 'E', PID_CPUS, TID_IRQ + cpu, ev->ts, NULL, NULL);
			j->irq_depth[cpu]--;
		}
		break;
	case HWT_MEV_RUN_START:
		json_slice(j, 'B', PID_CPUS, TID_SOFTIRQ + cpu, ev->ts,
			   j->names.v[HWT_ENT_RUNNABLE][ev->idx], "softirq");
		j->soft_open[cpu] = 1;
		break;
	case HWT_MEV_RUN_TERMINATE:
		if (j->soft_open[cpu]) {
			json_slice(j, 'E', PID_CPUS, TID_SOFTIRQ + cpu, ev->ts, NULL, NULL);
			j->soft_open[cpu] = 0;
		}
		break;
	case HWT_MEV_MARKER:
		hwt_conv_marker_msg(msg, sizeof(msg), m, ev);
		json_begin(j, 'i', PID_CPUS, cpu, ev->ts);
		ob_puts(&j->ob, ",\"s\":\"t\",\"cat\":\"marker\",\"name\":");
		ob_puts(&j->ob, j->names.v[HWT_ENT_MARKER][ev->idx]);
		ob_puts(&j->ob, ",\"args\":{\"value\":");
		json_str(&j->ob, msg);
		ob_puts(&j->ob, "}}");
		break;
	case HWT_MEV_COUNTER:
		json_begin(j, 'C', PID_CPUS, 0, ev->ts);
		ob_puts(&j->ob, ",\"name\":");
		ob_puts(&j->ob, j->names.v[HWT_ENT_COUNTER][ev->idx]);
		ob_printf(&j->ob, ",\"args\":{\"value\":%lld}}", (long long)ev->value);
		break;
	case HWT_MEV_LOCK_WAIT:
	case HWT_MEV_LOCK_ACQUIRE:
	case HWT_MEV_LOCK_RELEASE:
		json_begin(j, 'i', PID_CPUS, cpu, ev->ts);
		ob_puts(&j->ob, ",\"s\":\"t\",\"cat\":\"lock\",\"name\":");
		ob_puts(&j->ob, j->names.v[HWT_ENT_LOCK][ev->idx]);
		ob_printf(&j->ob, ",\"args\":{\"op\":\"%s\"}}",
			  ev->type == HWT_MEV_LOCK_WAIT ? "contended" :
			  ev->type == HWT_MEV_LOCK_ACQUIRE ? "acquired" : "released");
		break;
	case HWT_MEV_LOST:
		json_begin(j, 'i', PID_CPUS, cpu, ev->ts);
		ob_printf(&j->ob, ",\"s\":\"g\",\"cat\":\"hwtrace\",\"name\":\"lost events\","
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
		if (j->cpu_task[c] != JNONE)
			json_slice(j, 'E', PID_CPUS, c, end, NULL, NULL);
		for (; j->irq_depth[c]; j->irq_depth[c]--)
			json_slice(j, 'E', PID_CPUS, TID_IRQ + c, end, NULL, NULL);
		if (j->soft_open[c])
			json_slice(j, 'E', PID_CPUS, TID_SOFTIRQ + c, end, NULL, NULL);
	}
	for (size_t i = 0; j->tstate && i < j->names.n[HWT_ENT_TASK]; i++)
		if (j->tstate[i] != TS_NONE)
			task_track(j, (uint32_t)i, hwt_model_id(m, HWT_ENT_TASK, i),
				   end, TS_NONE);
	ob_puts(&j->ob, "\n]}\n");
}

int hwt_conv_json(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	struct json j = { .run = { .in = in, .opts = opts } };
	int ret;

	j.nr_cpus = in->info->nr_cpus;
	ret = hwt_obuf_init(&j.ob, out, 1 << 18);
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
	free(j.cpu_task);
	free(j.irq_depth);
	free(j.soft_open);
	hwt_names_free(&j.names);
	hwt_obuf_free(&j.ob);
	hwt_model_free(j.run.model);
	return ret;
}
