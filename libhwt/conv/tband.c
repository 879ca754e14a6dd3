// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Tonbandgeraet encoding: COBS framing, varlen fields and the reference
 * tracer's dropped-event accounting, byte for byte as the reference encoder
 * (checked against its vectors in tests/test_conv_tband.c).
 *
 * A frame is one event: id byte, ts (u64) unless metadata, fields.  u32/u64
 * are LEB128 (7 bits a byte, low first, bit 7 = more); s64 is
 * (|v| << 1 | sign), INT64_MIN as 0x01; a string runs to the end of the frame.
 * COBS replaces each zero by the distance to the next one; a run of 254
 * non-zero bytes closes a block without a zero, and a frame that ends right
 * after such a block gets no extra code byte.
 */
#include <errno.h>
#include <stdlib.h>

#include "conv_internal.h"

void hwt_tb_begin(struct hwt_tb_frame *f, uint8_t *out)
{
	f->buf = out;
	f->pos = 1;		/* byte 0 is the first code */
	f->code_pos = 0;
	f->code = 1;
	f->block_done = false;
}

static inline void tb_u8(struct hwt_tb_frame *f, uint8_t v)
{
	f->block_done = false;
	if (v) {
		f->buf[f->pos++] = v;
		f->code++;
	}
	if (!v || f->code == 0xFF) {
		f->block_done = v != 0;
		f->buf[f->code_pos] = f->code;
		f->code = 1;
		f->code_pos = f->pos++;
	}
}

void hwt_tb_u8(struct hwt_tb_frame *f, uint8_t v)
{
	tb_u8(f, v);
}

void hwt_tb_u64(struct hwt_tb_frame *f, uint64_t v)
{
	while (v >= 0x80) {
		hwt_tb_u8(f, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	hwt_tb_u8(f, (uint8_t)v);
}

void hwt_tb_u32(struct hwt_tb_frame *f, uint32_t v)
{
	hwt_tb_u64(f, v);
}

void hwt_tb_s64(struct hwt_tb_frame *f, int64_t v)
{
	uint64_t mag;

	if (v == INT64_MIN) {
		hwt_tb_u8(f, 0x01);	/* "negative zero" */
		return;
	}
	mag = v < 0 ? (uint64_t)-v : (uint64_t)v;
	hwt_tb_u64(f, mag << 1 | (v < 0));
}

void hwt_tb_str(struct hwt_tb_frame *f, const char *s, size_t max)
{
	if (!s)
		return;
	for (size_t i = 0; s[i] && (!max || i < max); i++)
		hwt_tb_u8(f, (uint8_t)s[i]);
}

size_t hwt_tb_end(struct hwt_tb_frame *f)
{
	if (f->block_done) {
		/* the pending code byte becomes the delimiter */
		f->buf[f->code_pos] = 0;
		return f->pos;
	}
	f->buf[f->code_pos] = f->code;
	f->buf[f->pos] = 0;
	return f->pos + 1;
}

size_t hwt_tb_cobs(uint8_t *out, const uint8_t *in, size_t n)
{
	struct hwt_tb_frame f;

	if (n < 254) {
		/* no run can fill a block: each zero just points to the next */
		size_t code_pos = 0;

		memcpy(out + 1, in, n);
		for (size_t i = 0; i < n; i++) {
			if (!in[i]) {
				out[code_pos] = (uint8_t)(i + 1 - code_pos);
				code_pos = i + 1;
			}
		}
		out[code_pos] = (uint8_t)(n + 1 - code_pos);
		out[n + 1] = 0;
		return n + 2;
	}
	hwt_tb_begin(&f, out);
	for (size_t i = 0; i < n; i++)
		tb_u8(&f, in[i]);
	return hwt_tb_end(&f);
}

/* LEB128 into a plain buffer (COBS comes after). */
static inline uint8_t *raw_u64(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

size_t hwt_tb_encode(uint8_t *out, const struct hwt_tb_evt *e, size_t max_str)
{
	/* id, ts, three u64, s64, u8: at most 53 bytes, and the string */
	uint8_t raw[128], *p = raw;
	size_t slen = 0;
	struct hwt_tb_frame f;

	if (e->str)
		slen = max_str ? strnlen(e->str, max_str) : strlen(e->str);
	if (slen <= sizeof(raw) - 64) {
		/* the payload first, then framed in one pass */
		*p++ = e->id;
		if (e->has_ts)
			p = raw_u64(p, e->ts);
		for (unsigned int i = 0; i < e->nr_u && i < CONV_ARRAY_SIZE(e->u); i++)
			p = raw_u64(p, e->u[i]);
		if (e->has_s64) {
			if (e->s64 == INT64_MIN)
				*p++ = 0x01;	/* as hwt_tb_s64() */
			else
				p = raw_u64(p, (e->s64 < 0 ? (uint64_t)0 - (uint64_t)e->s64 :
						(uint64_t)e->s64) << 1 | (e->s64 < 0));
		}
		if (e->has_u8)
			*p++ = e->u8;
		memcpy(p, e->str ? e->str : "", slen);
		return hwt_tb_cobs(out, raw, (size_t)(p - raw) + slen);
	}
	hwt_tb_begin(&f, out);
	hwt_tb_u8(&f, e->id);
	if (e->has_ts)
		hwt_tb_u64(&f, e->ts);
	for (unsigned int i = 0; i < e->nr_u && i < CONV_ARRAY_SIZE(e->u); i++)
		hwt_tb_u64(&f, e->u[i]);
	if (e->has_s64)
		hwt_tb_s64(&f, e->s64);
	if (e->has_u8)
		hwt_tb_u8(&f, e->u8);
	hwt_tb_str(&f, e->str, max_str);
	return hwt_tb_end(&f);
}

int hwt_tb_writer_init(struct hwt_tb_writer *w, uint32_t nr_cores, uint32_t every)
{
	memset(w, 0, sizeof(*w));
	if (!nr_cores)
		nr_cores = 1;
	w->period = calloc(nr_cores, sizeof(*w->period));
	w->last = calloc(nr_cores, sizeof(*w->last));
	if (!w->period || !w->last) {
		hwt_tb_writer_free(w);
		return -ENOMEM;
	}
	w->nr_cores = nr_cores;
	w->every = every;
	return 0;
}

void hwt_tb_writer_free(struct hwt_tb_writer *w)
{
	free(w->period);
	free(w->last);
	w->period = NULL;
	w->last = NULL;
}

bool hwt_tb_prepare(struct hwt_tb_writer *w, uint32_t core, uint64_t ts)
{
	uint8_t buf[HWT_TB_EVT_MAX(0)];
	bool periodic = w->every > 0;

	if (core >= w->nr_cores)
		core = 0;
	if ((periodic && w->period[core] == 0) || w->last[core] != w->dropped) {
		struct hwt_tb_evt e = {
			.id = HWT_TB_DROPPED_EVT_CNT, .has_ts = true, .ts = ts,
			.nr_u = 1, .u = { (uint32_t)w->dropped },
		};
		size_t n = hwt_tb_encode(buf, &e, 0);

		if (w->sink(w->ctx, buf, n)) {
			/* as the target: count it, try again next time */
			w->dropped++;
			return false;
		}
		if (!w->ref_stale_last)
			w->last[core] = w->dropped;
		if (periodic)
			w->period[core] = w->every;
	} else if (periodic) {
		w->period[core]--;
	}
	return true;
}

void hwt_tb_submit(struct hwt_tb_writer *w, uint32_t core, const uint8_t *frame,
		   size_t len, uint64_t ts)
{
	if (hwt_tb_prepare(w, core, ts) && w->sink(w->ctx, frame, len))
		w->dropped++;
}

/* --- the converter -------------------------------------------------------------- */

/*
 * FreeRTOS-mode mapping (Documentation/hwtrace-formats.rst):
 *   activate, release      task_to_rdy_state
 *   start, resume          task_switched_in (not after an ISR: ISRs nest)
 *   terminate (blocked)    curtask_delay(0) before the next switch-in
 *   terminate (stopped)    task_suspended
 *   wait (lock)            curtask_block_on_queue_receive(lock queue)
 *   delete / create        task_deleted / task_created
 *   ISR, softirq           isr_enter / isr_exit
 *   marker, counter        evtmarker, valmarker
 *   lock acquire/release   queue_receive / queue_send (kind mutex)
 *   lost                   dropped_evt_cnt, a running total of all CPUs
 */

#define TB_QUEUE_SEND			0x66
#define TB_QUEUE_SEND_FROM_ISR		0x67
#define TB_QUEUE_RECEIVE		0x6A
#define TB_QUEUE_RECEIVE_FROM_ISR	0x6B

struct tb {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_tb_writer w;
	int only_core;		/* -1: all */
	size_t max_str;
	uint32_t nr_cpus;
	uint32_t cur_core;
	bool core_set;
	bool scale;		/* ts = ticks * 1e6 / cpm, resolution 1 ns */
	uint64_t cpm;
	uint64_t num, den;	/* ns per tick, reduced */
	uint64_t t0;
	uint64_t last_ts;
	uint32_t *cur_task;	/* [nr_cpus] task we switched in last, or NONE */
	uint8_t *mk_uses;	/* HWT_MSG_* of each marker id */
};

#define TB_NONE	UINT32_MAX

static bool tb_sink(void *ctx, const uint8_t *buf, size_t len)
{
	ob_write(&((struct tb *)ctx)->ob, buf, len);
	return false;		/* a file never drops; write errors are in ob.err */
}

static uint64_t tb_ts(const struct tb *tb, uint64_t ticks)
{
	uint64_t rel = ticks >= tb->t0 ? ticks - tb->t0 : 0;

	return tb->scale ? hwt_muldiv(rel, tb->num, tb->den) : rel;
}

/* Metadata and core_id frames go out as they are. */
static void tb_raw(struct tb *tb, const struct hwt_tb_evt *e)
{
	uint8_t *d = (uint8_t *)ob_room(&tb->ob, HWT_TB_EVT_MAX(HWT_NAME_MAX * 4));

	if (d)
		tb->ob.len += hwt_tb_encode(d, e, tb->max_str);
}

static void tb_name(struct tb *tb, uint8_t id, uint32_t eid, const char *raw)
{
	char name[HWT_NAME_MAX * 4 + 1];
	struct hwt_tb_evt e = { .id = id, .nr_u = 1, .u = { eid }, .str = name };

	/* valid UTF-8, cut at a character boundary */
	hwt_name_sanitize(name, sizeof(name), raw, tb->max_str, HWT_SAN_CTRL);
	tb_raw(tb, &e);
}

static int tb_header(void *ctx, struct hwt_conv_run *run)
{
	struct tb *tb = ctx;
	struct hwt_model *m = run->model;
	char raw[HWT_NAME_MAX];
	uint64_t num, den;

	tb->mk_uses = hwt_conv_marker_uses(m);
	if (!tb->mk_uses)
		return -ENOMEM;
	tb->t0 = hwt_model_t0(m);
	tb->cpm = hwt_conv_cpm(run->in->info);
	hwt_conv_ns_per_tick(run->in->info, &num, &den);
	tb->num = num;
	tb->den = den;
	tb->scale = den != 1;	/* ns per tick not an integer: count ns */
	tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_TS_RESOLUTION_NS, .nr_u = 1,
					 .u = { tb->scale ? 1 : num } });
	for (size_t i = 0; i < hwt_model_count(m, HWT_ENT_TASK); i++) {
		uint32_t tid = hwt_model_id(m, HWT_ENT_TASK, i);

		hwt_conv_comm(raw, sizeof(raw), m, tid);
		tb_name(tb, HWT_TB_TASK_NAME, tid, raw);
		if (HWT_TID_IS_IDLE(tid))
			tb_raw(tb, &(struct hwt_tb_evt){
				.id = HWT_TB_TASK_IS_IDLE_TASK, .nr_u = 2,
				.u = { tid, tid - HWT_TID_IDLE_BASE } });
	}
	for (size_t i = 0; i < hwt_model_count(m, HWT_ENT_ISR); i++) {
		uint32_t id = hwt_model_id(m, HWT_ENT_ISR, i);

		hwt_conv_name(raw, sizeof(raw), m, HWT_ENT_ISR, id);
		tb_name(tb, HWT_TB_ISR_NAME, id, raw);
	}
	for (size_t i = 0; i < hwt_model_count(m, HWT_ENT_RUNNABLE); i++) {
		uint32_t id = hwt_model_id(m, HWT_ENT_RUNNABLE, i);

		hwt_conv_name(raw, sizeof(raw), m, HWT_ENT_RUNNABLE, id);
		tb_name(tb, HWT_TB_ISR_NAME, HWT_TB_SOFTIRQ_BASE + id, raw);
	}
	for (size_t i = 0; i < hwt_model_count(m, HWT_ENT_MARKER); i++) {
		hwt_conv_name(raw, sizeof(raw), m, HWT_ENT_MARKER,
			      hwt_model_id(m, HWT_ENT_MARKER, i));
		tb_name(tb, HWT_TB_EVTMARKER_NAME, (uint32_t)i, raw);
	}
	for (size_t i = 0; i < hwt_model_count(m, HWT_ENT_COUNTER); i++) {
		hwt_conv_name(raw, sizeof(raw), m, HWT_ENT_COUNTER,
			      hwt_model_id(m, HWT_ENT_COUNTER, i));
		tb_name(tb, HWT_TB_VALMARKER_NAME, (uint32_t)i, raw);
	}
	for (size_t i = 0; i < hwt_model_count(m, HWT_ENT_LOCK); i++) {
		hwt_conv_name(raw, sizeof(raw), m, HWT_ENT_LOCK,
			      hwt_model_id(m, HWT_ENT_LOCK, i));
		tb_name(tb, HWT_TB_QUEUE_NAME, (uint32_t)i, raw);
		tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_QUEUE_KIND, .nr_u = 1,
						 .u = { i }, .has_u8 = true,
						 .u8 = HWT_TB_FRQK_MUTEX });
	}
	return tb->ob.err;
}

/* An event on core cpu: switch the stream's core first. */
static void tb_evt(struct tb *tb, uint32_t cpu, struct hwt_tb_evt *e)
{
	uint8_t *d;

	if (tb->only_core >= 0 && cpu != (uint32_t)tb->only_core)
		return;
	e->has_ts = true;
	if (tb->only_core < 0 && (!tb->core_set || tb->cur_core != cpu)) {
		tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_CORE_ID, .has_ts = true,
						 .ts = e->ts, .nr_u = 1,
						 .u = { cpu } });
		tb->cur_core = cpu;
		tb->core_set = true;
	}
	/* hwt_tb_submit() with tb_sink(), which never drops: framed in place */
	if (!hwt_tb_prepare(&tb->w, tb->only_core < 0 ? cpu : 0, e->ts))
		return;
	d = (uint8_t *)ob_room(&tb->ob, HWT_TB_EVT_MAX(HWT_NAME_MAX * 4));
	if (d)
		tb->ob.len += hwt_tb_encode(d, e, tb->max_str);
}

static void tb_mev(void *ctx, const struct hwt_mev *ev)
{
	struct tb *tb = ctx;
	struct hwt_model *m = tb->run.model;
	struct hwt_tb_evt e = { .ts = tb_ts(tb, ev->ts), .nr_u = 1, .u = { ev->id } };
	char msg[64];
	bool in_isr = ev->ctx_kind == HWT_ENT_ISR;

	tb->last_ts = e.ts;
	switch (ev->type) {
	case HWT_MEV_TASK_CREATE:
		e.id = HWT_TB_TASK_CREATED;
		break;
	case HWT_MEV_TASK_ACTIVATE:
	case HWT_MEV_TASK_RELEASE:
		e.id = HWT_TB_TASK_TO_RDY_STATE;
		break;
	case HWT_MEV_TASK_START:
	case HWT_MEV_TASK_RESUME:
		if (ev->flags & HWT_MEVF_ISR)
			return;		/* the task never left: the ISR nested */
		e.id = HWT_TB_TASK_SWITCHED_IN;
		tb->cur_task[ev->cpu] = ev->id;
		break;
	case HWT_MEV_TASK_TERMINATE:
		/* what the next switch-in does to this task, if it is current */
		if (tb->cur_task[ev->cpu] != ev->id || ev->value == HWT_STATE_DEAD)
			return;
		if (ev->value == HWT_STATE_STOPPED) {
			e.id = HWT_TB_TASK_SUSPENDED;
		} else {
			e.id = HWT_TB_CURTASK_DELAY;
			e.u[0] = 0;
		}
		break;
	case HWT_MEV_TASK_WAIT:
		if (tb->cur_task[ev->cpu] != ev->id)
			return;
		e.id = HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE;
		e.nr_u = 2;
		e.u[0] = (uint64_t)hwt_model_index(m, HWT_ENT_LOCK, (uint32_t)ev->value2);
		e.u[1] = UINT32_MAX;	/* portMAX_DELAY */
		break;
	case HWT_MEV_TASK_DELETE:
		e.id = HWT_TB_TASK_DELETED;
		break;
	case HWT_MEV_ISR_START:
	case HWT_MEV_ISR_TERMINATE:
		e.id = ev->type == HWT_MEV_ISR_START ? HWT_TB_ISR_ENTER : HWT_TB_ISR_EXIT;
		break;
	case HWT_MEV_RUN_START:
	case HWT_MEV_RUN_TERMINATE:
		e.id = ev->type == HWT_MEV_RUN_START ? HWT_TB_ISR_ENTER : HWT_TB_ISR_EXIT;
		e.u[0] = HWT_TB_SOFTIRQ_BASE + ev->id;
		break;
	case HWT_MEV_MARKER:
		*hwt_put_marker_msg(msg, tb->mk_uses[ev->id], ev) = '\0';
		e.id = HWT_TB_EVTMARKER;
		e.u[0] = ev->idx;
		e.str = msg;
		break;
	case HWT_MEV_COUNTER:
		e.id = HWT_TB_VALMARKER;
		e.u[0] = ev->idx;
		e.has_s64 = true;
		e.s64 = ev->value;
		break;
	case HWT_MEV_LOCK_ACQUIRE:
	case HWT_MEV_LOCK_RELEASE:
		if (ev->type == HWT_MEV_LOCK_ACQUIRE)
			e.id = in_isr ? TB_QUEUE_RECEIVE_FROM_ISR : TB_QUEUE_RECEIVE;
		else
			e.id = in_isr ? TB_QUEUE_SEND_FROM_ISR : TB_QUEUE_SEND;
		e.nr_u = 2;
		e.u[0] = ev->idx;
		e.u[1] = ev->type == HWT_MEV_LOCK_ACQUIRE ? 0 : 1;	/* len_after */
		break;
	case HWT_MEV_PRIORITY:
		e.id = ev->flags & HWT_MEVF_INHERIT ? HWT_TB_TASK_PRIORITY_INHERIT :
						      HWT_TB_TASK_PRIORITY_SET;
		e.nr_u = 2;
		e.u[1] = (uint64_t)ev->value;
		break;
	case HWT_MEV_LOST:
		/* the next event of each core carries it */
		tb->w.dropped = ev->value2;
		return;
	default:
		return;		/* preempt (the next switch-in says it), lock wait */
	}
	tb_evt(tb, ev->cpu, &e);
}

/* Close: the last drop count on every core, and every core at the end time,
 * so the reference converter (which stops at the smallest per-core last
 * timestamp) converts everything. */
static void tb_finish(struct tb *tb)
{
	uint64_t ts = tb->run.model ? tb_ts(tb, hwt_model_t_end(tb->run.model)) : 0;

	if (ts < tb->last_ts)
		ts = tb->last_ts;
	for (uint32_t c = 0; c < tb->nr_cpus; c++) {
		uint32_t core = tb->only_core < 0 ? c : 0;

		if (tb->only_core >= 0 && c != (uint32_t)tb->only_core)
			continue;
		if (tb->only_core < 0 && (!tb->core_set || tb->cur_core != c)) {
			tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_CORE_ID,
							 .has_ts = true, .ts = ts,
							 .nr_u = 1, .u = { c } });
			tb->cur_core = c;
			tb->core_set = true;
		}
		if (tb->w.last[core] != tb->w.dropped) {
			uint8_t buf[HWT_TB_EVT_MAX(0)];
			size_t n = hwt_tb_encode(buf, &(struct hwt_tb_evt){
				.id = HWT_TB_DROPPED_EVT_CNT, .has_ts = true, .ts = ts,
				.nr_u = 1, .u = { (uint32_t)tb->w.dropped } }, 0);

			ob_write(&tb->ob, buf, n);
			tb->w.last[core] = tb->w.dropped;
		}
	}
}

int hwt_conv_tband(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	struct tb tb = { .run = { .in = in, .opts = opts } };
	int every = CONV_OPT(opts, tband_drop_every, -1);
	int max_str = CONV_OPT(opts, tband_max_str, 0);
	int ret;

	tb.only_core = CONV_OPT(opts, tband_core, -1);
	tb.nr_cpus = in->info->nr_cpus;
	if (tb.only_core >= (int)tb.nr_cpus || tb.only_core < -1 || max_str < 0)
		return -EINVAL;
	tb.max_str = (size_t)max_str;
	if (tb.max_str > HWT_NAME_MAX * 4)
		tb.max_str = HWT_NAME_MAX * 4;
	tb.cur_task = malloc((tb.nr_cpus ? tb.nr_cpus : 1) * sizeof(*tb.cur_task));
	ret = tb.cur_task ? hwt_obuf_init(&tb.ob, out, 1 << 18) : -ENOMEM;
	if (ret)
		goto out;
	for (uint32_t c = 0; c < tb.nr_cpus; c++)
		tb.cur_task[c] = TB_NONE;
	ret = hwt_tb_writer_init(&tb.w, tb.only_core < 0 ? tb.nr_cpus : 1,
				 every < 0 ? 50 : (uint32_t)every);
	if (ret)
		goto out;
	tb.w.sink = tb_sink;
	tb.w.ctx = &tb;
	ret = hwt_conv_drive(&tb.run, true, false, tb_mev, &tb, tb_header);
	if (ret)
		goto out;
	tb_finish(&tb);
	ret = hwt_obuf_flush(&tb.ob);
	if (!ret && fflush(out))
		ret = -EIO;
	if (!ret && tb.run.stream_err)
		ret = -EBADMSG;
out:
	hwt_tb_writer_free(&tb.w);
	hwt_obuf_free(&tb.ob);
	hwt_model_free(tb.run.model);
	free(tb.cur_task);
	free(tb.mk_uses);
	return ret;
}
