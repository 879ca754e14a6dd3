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

/*
 * COBS-frame the n < 254 bytes at out + 1 where they are (out[0] is the
 * first code): no run can fill a block, each zero just points to the next.
 */
static size_t cobs_in_place(uint8_t *out, size_t n)
{
	size_t code_pos = 0;

	for (size_t i = 1; i <= n; i++) {
		if (!out[i]) {
			out[code_pos] = (uint8_t)(i - code_pos);
			code_pos = i;
		}
	}
	out[code_pos] = (uint8_t)(n + 1 - code_pos);
	out[n + 1] = 0;
	return n + 2;
}

size_t hwt_tb_cobs(uint8_t *out, const uint8_t *in, size_t n)
{
	struct hwt_tb_frame f;

	if (n < 254) {
		memcpy(out + 1, in, n);
		return cobs_in_place(out, n);
	}
	hwt_tb_begin(&f, out);
	for (size_t i = 0; i < n; i++)
		tb_u8(&f, in[i]);
	return hwt_tb_end(&f);
}

/*
 * A varlen field at p, COBS-framed as it goes (frames under 254 bytes): a
 * zero byte is only ever a whole field (id 0, a varint or u8 of 0; varint
 * bytes with more to come have bit 7 set, strings hold no zero), so such a
 * field just becomes the one the last code points to.
 */
static inline uint8_t *tb_field(uint8_t *out, size_t *code_pos, uint8_t *p,
				uint64_t v)
{
	if (!v) {
		size_t i = (size_t)(p - out);

		out[*code_pos] = (uint8_t)(i - *code_pos);
		*code_pos = i;
		return p + 1;
	}
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A u8 field (the id, queue_kind): a plain byte, framed as tb_field(). */
static inline uint8_t *tb_byte(uint8_t *out, size_t *code_pos, uint8_t *p,
			       uint8_t v)
{
	if (!v)
		return tb_field(out, code_pos, p, 0);
	*p = v;
	return p + 1;
}

size_t hwt_tb_encode(uint8_t *out, const struct hwt_tb_evt *e, size_t max_str)
{
	size_t slen = 0;
	struct hwt_tb_frame f;

	if (e->str)
		slen = max_str ? strnlen(e->str, max_str) : strlen(e->str);
	if (slen <= 64) {
		/* id, ts, three u64, s64, u8: at most 53 bytes, and the string */
		size_t code_pos = 0;
		uint8_t *p = tb_byte(out, &code_pos, out + 1, e->id);

		if (e->has_ts)
			p = tb_field(out, &code_pos, p, e->ts);
		for (unsigned int i = 0; i < e->nr_u && i < CONV_ARRAY_SIZE(e->u); i++)
			p = tb_field(out, &code_pos, p, e->u[i]);
		if (e->has_s64) {
			/* sign-magnitude; INT64_MIN is "negative zero", 0x01 */
			uint64_t mag = e->s64 < 0 ? (uint64_t)0 - (uint64_t)e->s64 :
						    (uint64_t)e->s64;

			p = tb_field(out, &code_pos, p, e->s64 == INT64_MIN ? 1 :
						mag << 1 | (e->s64 < 0));
		}
		if (e->has_u8)
			p = tb_byte(out, &code_pos, p, e->u8);
		if (slen)
			memcpy(p, e->str, slen);
		p += slen;
		out[code_pos] = (uint8_t)((size_t)(p - out) - code_pos);
		*p++ = 0;
		return (size_t)(p - out);
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

bool hwt_tb_prepare_slow(struct hwt_tb_writer *w, uint32_t core, uint64_t ts)
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
 *   terminate (a sleep)    curtask_block_on_queue_receive(wait queue of the
 *                          Linux state: S, D or I), portMAX_DELAY: a wait
 *                          for an event, not a timed delay
 *   terminate (stopped,    task_suspended
 *   parked, other)
 *   wait (lock)            curtask_block_on_queue_receive(lock queue)
 *   delete / create        task_deleted / task_created
 *   ISR, softirq           isr_enter / isr_exit
 *   marker, counter        evtmarker, valmarker
 *   lock acquire/release   queue_receive / queue_send (kind mutex)
 *   lost                   dropped_evt_cnt, a running total of all CPUs
 *
 * Names are metadata, which tband-cli takes from anywhere in the stream:
 * each entity is named right before the first frame that needs it (pass 1
 * reads only the start of the trace, so the entities are met as they come).
 * What tband-cli does to a stream decides three more things:
 *  - ISR names are per core in its model (an isr_name is filed under the
 *    core of the last core_id): each ISR is named on every core it runs on,
 *    right before its first isr_enter there.
 *  - It sorts all events by timestamp with an unstable sort, so two events
 *    of a core with one timestamp may swap (a blocking wait after the
 *    task_switched_in it belongs before would block the wrong task): every
 *    core's event frames get strictly increasing timestamps, an equal one
 *    moving one unit (tick or ns) later.  A dropped_evt_cnt frame shares the
 *    timestamp of the event it precedes; their order does not matter.
 *  - It converts only the events before the smallest per-core last
 *    timestamp, plus all but one of those at it (its loop stops before
 *    max_idx): at the end every core gets a core_id one unit after the last
 *    event, and a single dropped_evt_cnt frame at that time is the one it
 *    leaves out.
 */

#define TB_QUEUE_SEND			0x66
#define TB_QUEUE_SEND_FROM_ISR		0x67
#define TB_QUEUE_RECEIVE		0x6A
#define TB_QUEUE_RECEIVE_FROM_ISR	0x6B

#define TB_NONE	UINT32_MAX

/*
 * Linux sleeps as FreeRTOS blocking waits: a binary semaphore per kind of
 * sleep, ids above any lock's queue (locks count from 0).
 */
#define TB_WAIT_QUEUE(state)	(0xFFFFFF00u | (state))
#define TB_FRQK_BINARY_SEMPHR	0x02

static const char *const tb_wait_names[] = {
	[HWT_STATE_SLEEPING] = "linux-wait-S-sleeping",
	[HWT_STATE_BLOCKED] = "linux-wait-D-uninterruptible",
	[HWT_STATE_IDLE] = "linux-wait-I-idle",
};

/* Per output core (one when only_core is set). */
struct tb_core {
	uint64_t last_ts;	/* of its last event frame */
	bool any;		/* it has an event frame */
	uint32_t cur_task;	/* the task we switched in last, or TB_NONE */
	uint8_t *named[2];	/* [0] ISRs, [1] softirqs named here, by idx */
	uint32_t nr_named[2];
};

struct tb {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_tb_writer w;
	uint8_t *named[HWT_NR_ENT_KINDS];	/* tasks, markers, ... named, by idx */
	uint32_t nr_named[HWT_NR_ENT_KINDS];
	int only_core;		/* -1: all */
	size_t max_str;
	uint32_t nr_cpus;
	uint8_t wait_named;	/* 1 << state: its wait queue is named */
	uint32_t nr_cores;	/* output cores: nr_cpus, or 1 */
	uint32_t cur_core;
	bool core_set;
	bool scale;		/* ts = ticks * 1e6 / cpm, resolution 1 ns */
	uint64_t num, den;	/* ns per tick, reduced */
	uint64_t t0;
	struct tb_core *core;	/* [nr_cores] */
	struct hwt_mk_uses mk_uses;	/* HWT_MSG_* of each marker id */
	uint8_t kind[HWT_NR_MEV];	/* hwt_mev_kind() of each event type */
};

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

/* A task's name: its comm, or the other formats' "task-<pid>" if unknown. */
static void tb_task_name(struct tb *tb, uint32_t tid)
{
	char raw[HWT_NAME_MAX];

	hwt_conv_comm(raw, sizeof(raw), tb->run.model, tid);
	if (!raw[0])
		hwt_conv_name(raw, sizeof(raw), tb->run.model, HWT_ENT_TASK, tid);
	tb_name(tb, HWT_TB_TASK_NAME, tid, raw);
	if (HWT_TID_IS_IDLE(tid))
		tb_raw(tb, &(struct hwt_tb_evt){
			.id = HWT_TB_TASK_IS_IDLE_TASK, .nr_u = 2,
			.u = { tid, tid - HWT_TID_IDLE_BASE } });
}

static int tb_header(void *ctx, struct hwt_conv_run *run)
{
	struct tb *tb = ctx;
	uint64_t num, den;

	tb->t0 = hwt_model_t0(run->model);
	hwt_conv_ns_per_tick(run->in->info, &num, &den);
	tb->num = num;
	tb->den = den;
	tb->scale = den != 1;	/* ns per tick not an integer: count ns */
	tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_TS_RESOLUTION_NS, .nr_u = 1,
					 .u = { tb->scale ? 1 : num } });
	return tb->ob.err;
}

/*
 * Set flag idx of the byte array *a of *n entries (grown as needed):
 * 1 if it was not set, 0 if it was, -ENOMEM.
 */
static int tb_mark(uint8_t **a, uint32_t *n, uint32_t idx)
{
	if (idx >= *n) {
		uint32_t nn = idx + 1 > 2 * *n ? idx + 1 : 2 * *n;
		uint8_t *na = realloc(*a, nn);

		if (!na)
			return -ENOMEM;
		memset(na + *n, 0, nn - *n);
		*a = na;
		*n = nn;
	}
	if ((*a)[idx])
		return 0;
	(*a)[idx] = 1;
	return 1;
}

/* Name entity (kind, id) with index idx before its first frame. */
static void tb_name_new(struct tb *tb, enum hwt_entity_kind kind, uint32_t idx,
			uint32_t id)
{
	static const uint8_t name_id[HWT_NR_ENT_KINDS] = {
		[HWT_ENT_MARKER] = HWT_TB_EVTMARKER_NAME,
		[HWT_ENT_COUNTER] = HWT_TB_VALMARKER_NAME,
		[HWT_ENT_LOCK] = HWT_TB_QUEUE_NAME,
	};
	char raw[HWT_NAME_MAX];
	int ret = tb_mark(&tb->named[kind], &tb->nr_named[kind], idx);

	if (ret <= 0) {
		if (ret)
			tb->ob.err = ret;
		return;
	}
	if (kind == HWT_ENT_TASK) {
		tb_task_name(tb, id);
		return;
	}
	/* markers, counters and queues are known by their index */
	hwt_conv_name(raw, sizeof(raw), tb->run.model, kind, id);
	tb_name(tb, name_id[kind], idx, raw);
	if (kind == HWT_ENT_LOCK)
		tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_QUEUE_KIND, .nr_u = 1,
						 .u = { idx }, .has_u8 = true,
						 .u8 = HWT_TB_FRQK_MUTEX });
}

static inline void tb_named(struct tb *tb, enum hwt_entity_kind kind, uint32_t idx,
			    uint32_t id)
{
	if (idx >= tb->nr_named[kind] || !tb->named[kind][idx])
		tb_name_new(tb, kind, idx, id);
}

/* The output core of cpu, NULL if it is not converted. */
static struct tb_core *tb_core_of(struct tb *tb, uint32_t cpu)
{
	if (tb->only_core >= 0)
		return cpu == (uint32_t)tb->only_core ? &tb->core[0] : NULL;
	return cpu < tb->nr_cores ? &tb->core[cpu] : NULL;
}

/*
 * Make cpu the stream's core for an event frame at *ts: a core's event
 * frames get strictly increasing timestamps (*ts may move up).
 */
static inline void tb_switch_core(struct tb *tb, struct tb_core *c, uint32_t cpu,
				  uint64_t *ts)
{
	if (c->any && *ts <= c->last_ts)
		*ts = c->last_ts + 1;
	c->any = true;
	c->last_ts = *ts;
	if (tb->only_core < 0 && (!tb->core_set || tb->cur_core != cpu)) {
		tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_CORE_ID, .has_ts = true,
						 .ts = *ts, .nr_u = 1, .u = { cpu } });
		tb->cur_core = cpu;
		tb->core_set = true;
	}
}

/* Name ISR (k 0) or softirq (k 1) idx on core c before its first event there. */
static void tb_isr_name_new(struct tb *tb, struct tb_core *c, int k, uint32_t idx,
			    uint32_t id)
{
	char raw[HWT_NAME_MAX];
	int ret = tb_mark(&c->named[k], &c->nr_named[k], idx);

	if (ret <= 0) {
		if (ret)
			tb->ob.err = ret;
		return;
	}
	hwt_conv_name(raw, sizeof(raw), tb->run.model,
		      k ? HWT_ENT_RUNNABLE : HWT_ENT_ISR, id);
	tb_name(tb, HWT_TB_ISR_NAME, k ? HWT_TB_SOFTIRQ_BASE + id : id, raw);
}

static inline void tb_isr_name(struct tb *tb, struct tb_core *c, int k,
			       uint32_t idx, uint32_t id)
{
	if (idx >= c->nr_named[k] || !c->named[k][idx])
		tb_isr_name_new(tb, c, k, idx, id);
}

/* The frame before an event goes out, then the event. */
static void tb_frame(struct tb *tb, uint32_t cpu, const struct hwt_tb_evt *e)
{
	uint8_t *d;

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
	struct tb_core *c = tb_core_of(tb, ev->cpu);
	struct hwt_tb_evt e = { .has_ts = true, .nr_u = 1, .u = { ev->id } };
	char msg[64];
	bool in_isr = ev->ctx_kind == HWT_ENT_ISR;
	int isr_kind = -1, uses;
	uint32_t lock = TB_NONE;	/* the lock a task waits for */
	int64_t wait = -1;		/* the sleep (HWT_STATE_*) it waits in */

	if (ev->type == HWT_MEV_LOST) {
		/* the next event of each core carries it */
		tb->w.dropped = ev->value2;
		return;
	}
	if (!c)
		return;
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
		c->cur_task = ev->id;
		break;
	case HWT_MEV_TASK_TERMINATE:
		/* what the next switch-in does to this task, if it is current */
		if (c->cur_task != ev->id || ev->value == HWT_STATE_DEAD)
			return;
		if (ev->value == HWT_STATE_SLEEPING || ev->value == HWT_STATE_BLOCKED ||
		    ev->value == HWT_STATE_IDLE) {
			/* blocked until an event, which is no timed delay */
			e.id = HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE;
			e.nr_u = 2;
			wait = ev->value;
			e.u[0] = TB_WAIT_QUEUE(ev->value);
			e.u[1] = UINT32_MAX;	/* portMAX_DELAY */
		} else {
			e.id = HWT_TB_TASK_SUSPENDED;
		}
		break;
	case HWT_MEV_TASK_WAIT:
		if (c->cur_task != ev->id)
			return;
		e.id = HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE;
		e.nr_u = 2;
		lock = (uint32_t)ev->value2;
		e.u[0] = (uint64_t)hwt_model_index(m, HWT_ENT_LOCK, lock);
		e.u[1] = UINT32_MAX;	/* portMAX_DELAY */
		break;
	case HWT_MEV_TASK_DELETE:
		e.id = HWT_TB_TASK_DELETED;
		break;
	case HWT_MEV_ISR_START:
	case HWT_MEV_ISR_TERMINATE:
		e.id = ev->type == HWT_MEV_ISR_START ? HWT_TB_ISR_ENTER : HWT_TB_ISR_EXIT;
		isr_kind = 0;
		break;
	case HWT_MEV_RUN_START:
	case HWT_MEV_RUN_TERMINATE:
		e.id = ev->type == HWT_MEV_RUN_START ? HWT_TB_ISR_ENTER : HWT_TB_ISR_EXIT;
		e.u[0] = HWT_TB_SOFTIRQ_BASE + ev->id;
		isr_kind = 1;
		break;
	case HWT_MEV_MARKER:
		uses = hwt_mk_uses(&tb->mk_uses, m, ev->id);
		if (uses < 0) {
			tb->ob.err = uses;
			return;
		}
		*hwt_put_marker_msg(msg, (unsigned int)uses, ev) = '\0';
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
		e.id = ev->flags & HWT_MEVF_DISINHERIT ? HWT_TB_TASK_PRIORITY_DISINHERIT :
		       ev->flags & HWT_MEVF_INHERIT ? HWT_TB_TASK_PRIORITY_INHERIT :
						      HWT_TB_TASK_PRIORITY_SET;
		e.nr_u = 2;
		/* FreeRTOS: higher is more urgent */
		e.u[1] = (uint64_t)hwt_prio_urgency(ev->value);
		break;
	default:
		return;		/* preempt (the next switch-in says it), lock wait */
	}
	e.ts = tb_ts(tb, ev->ts);
	tb_switch_core(tb, c, ev->cpu, &e.ts);
	/* the names the frame needs, right before it */
	if (isr_kind >= 0)
		tb_isr_name(tb, c, isr_kind, ev->idx, ev->id);
	else if (e.id != HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE)
		tb_named(tb, tb->kind[ev->type], ev->idx, ev->id);
	if (lock != TB_NONE)
		tb_named(tb, HWT_ENT_LOCK, (uint32_t)e.u[0], lock);
	if (wait >= 0 && !(tb->wait_named & (1u << wait))) {
		tb->wait_named |= (uint8_t)(1u << wait);
		tb_name(tb, HWT_TB_QUEUE_NAME, (uint32_t)e.u[0], tb_wait_names[wait]);
		tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_QUEUE_KIND, .nr_u = 1,
						 .u = { e.u[0] }, .has_u8 = true,
						 .u8 = TB_FRQK_BINARY_SEMPHR });
	}
	tb_frame(tb, ev->cpu, &e);
}

/* A dropped_evt_cnt frame with the running total, outside the writer. */
static void tb_dropped(struct tb *tb, uint64_t ts)
{
	tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_DROPPED_EVT_CNT, .has_ts = true,
					 .ts = ts, .nr_u = 1,
					 .u = { (uint32_t)tb->w.dropped } });
}

/*
 * Close: the last drop count on every core that has not traced it, then
 * every core one unit after the last event, and the one frame at that time
 * that tband-cli leaves out (see above).
 */
static void tb_finish(struct tb *tb)
{
	uint64_t end = tb->run.model ? tb_ts(tb, hwt_model_t_end(tb->run.model)) : 0;

	for (uint32_t c = 0; c < tb->nr_cores; c++) {
		uint32_t cpu = tb->only_core < 0 ? c : (uint32_t)tb->only_core;
		uint64_t ts = end;

		if (tb->w.last[c] == tb->w.dropped)
			continue;
		tb_switch_core(tb, &tb->core[c], cpu, &ts);
		tb_dropped(tb, ts);
		tb->w.last[c] = tb->w.dropped;
	}
	for (uint32_t c = 0; c < tb->nr_cores; c++)
		if (tb->core[c].any && tb->core[c].last_ts > end)
			end = tb->core[c].last_ts;
	end++;
	for (uint32_t c = 0; c < tb->nr_cores && tb->only_core < 0; c++) {
		tb_raw(tb, &(struct hwt_tb_evt){ .id = HWT_TB_CORE_ID, .has_ts = true,
						 .ts = end, .nr_u = 1, .u = { c } });
		tb->cur_core = c;
		tb->core_set = true;
	}
	tb_dropped(tb, end);
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
	tb.nr_cores = tb.only_core < 0 ? tb.nr_cpus : 1;
	for (unsigned int t = 0; t < HWT_NR_MEV; t++)
		tb.kind[t] = (uint8_t)hwt_mev_kind(t);
	tb.core = calloc(tb.nr_cores ? tb.nr_cores : 1, sizeof(*tb.core));
	ret = tb.core ? hwt_obuf_init(&tb.ob, out, HWT_OBUF_OUT) : -ENOMEM;
	if (ret)
		goto out;
	for (uint32_t c = 0; c < tb.nr_cores; c++)
		tb.core[c].cur_task = TB_NONE;
	ret = hwt_tb_writer_init(&tb.w, tb.nr_cores, every < 0 ? 50 : (uint32_t)every);
	if (ret)
		goto out;
	tb.w.sink = tb_sink;
	tb.w.ctx = &tb;
	ret = hwt_conv_drive(&tb.run, false, false, tb_mev, &tb, tb_header);
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
	for (uint32_t c = 0; tb.core && c < tb.nr_cores; c++) {
		free(tb.core[c].named[0]);
		free(tb.core[c].named[1]);
	}
	free(tb.core);
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++)
		free(tb.named[k]);
	free(tb.mk_uses.v);
	return ret;
}
