/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libhwt converters: helpers shared by the files in conv/, not installed.
 *
 *   struct hwt_stream --> hwt_model (model.c) --> struct hwt_mev --> format
 *
 * Output goes through struct hwt_obuf, a large buffer flushed with fwrite(),
 * and small formatters that avoid printf on the per-event path.  Entity
 * names come from one place (conv.c) so every format names a task, an ISR or
 * a marker the same way; each format only quotes or escapes them.
 */
#ifndef HWT_CONV_INTERNAL_H
#define HWT_CONV_INTERNAL_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hwt/conv.h>
#include <hwt/model.h>

#define HWT_CONV_HIDDEN	__attribute__((visibility("hidden")))
#define CONV_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* --- output buffer --------------------------------------------------------- */

struct hwt_obuf {
	FILE *f;		/* NULL: data stays in buf (tests, tband frames) */
	char *buf;
	size_t len;
	size_t cap;
	int err;		/* first negative errno from a write */
};

/*
 * The output file's buffer, and the smaller one of each core's spill file
 * (ATF, HTF: one per CPU, so it is what grows with the machine).
 */
#define HWT_OBUF_OUT		(1 << 18)
#define HWT_OBUF_PER_CORE	(1 << 16)

HWT_CONV_HIDDEN int hwt_obuf_init(struct hwt_obuf *o, FILE *f, size_t cap);
HWT_CONV_HIDDEN int hwt_obuf_flush(struct hwt_obuf *o);
HWT_CONV_HIDDEN void hwt_obuf_free(struct hwt_obuf *o);
/* Make room for n bytes; flushes (or grows when f is NULL). */
HWT_CONV_HIDDEN int hwt_obuf_room_slow(struct hwt_obuf *o, size_t n);

static inline char *ob_room(struct hwt_obuf *o, size_t n)
{
	if (o->cap - o->len < n && hwt_obuf_room_slow(o, n))
		return NULL;
	return o->buf + o->len;
}

static inline void ob_write(struct hwt_obuf *o, const void *p, size_t n)
{
	char *d = ob_room(o, n);

	if (d) {
		memcpy(d, p, n);
		o->len += n;
	}
}

static inline void ob_putc(struct hwt_obuf *o, char c)
{
	char *d = ob_room(o, 1);

	if (d) {
		*d = c;
		o->len++;
	}
}

static inline void ob_puts(struct hwt_obuf *o, const char *s)
{
	ob_write(o, s, strlen(s));
}

/* "00" .. "99" */
HWT_CONV_HIDDEN extern const char hwt_dec2[200];

static inline unsigned int hwt_dec_len(uint64_t v)
{
	unsigned int n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

/* Decimal digits of v at d (at most 20); returns the end. */
static inline char *hwt_put_u64(char *d, uint64_t v)
{
	char *end = d + hwt_dec_len(v), *p = end;

	/* two digits per division, from the right */
	while (v >= 100) {
		p -= 2;
		memcpy(p, hwt_dec2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(p - 2, hwt_dec2 + 2 * v, 2);
	else
		p[-1] = (char)('0' + v);
	return end;
}

/* At most 20 bytes at d. */
static inline char *hwt_put_s64(char *d, int64_t v)
{
	if (v >= 0)
		return hwt_put_u64(d, (uint64_t)v);
	*d = '-';
	return hwt_put_u64(d + 1, (uint64_t)0 - (uint64_t)v);
}

/*
 * A timestamp's decimal digits kept from one event to the next: a time a
 * little after the last one (the usual case) changes only the last three
 * digits, without a carry beyond them.
 */
struct hwt_dec_clock {
	uint64_t v;
	uint32_t len;
	bool valid;
	char s[24];		/* len digits (at most 20), no NUL */
};

static inline void hwt_dec_clock_set(struct hwt_dec_clock *c, uint64_t v)
{
	if (c->valid && v >= c->v && v - c->v < 1000 && c->len >= 3) {
		char *p = c->s + c->len - 3;
		unsigned int n = (unsigned int)(p[0] - '0') * 100 +
				 (unsigned int)(p[1] - '0') * 10 +
				 (unsigned int)(p[2] - '0') + (unsigned int)(v - c->v);

		if (n < 1000) {
			p[0] = (char)('0' + n / 100);
			memcpy(p + 1, hwt_dec2 + 2 * (n % 100), 2);
			c->v = v;
			return;
		}
	}
	c->len = (uint32_t)(hwt_put_u64(c->s, v) - c->s);
	c->v = v;
	c->valid = true;
}

/* Decimal, unsigned and signed. */
static inline void ob_u64(struct hwt_obuf *o, uint64_t v)
{
	char *d = ob_room(o, 20);

	if (d)
		o->len = (size_t)(hwt_put_u64(d, v) - o->buf);
}

static inline void ob_s64(struct hwt_obuf *o, int64_t v)
{
	char *d = ob_room(o, 20);

	if (d)
		o->len = (size_t)(hwt_put_s64(d, v) - o->buf);
}

/*
 * Strings of the per-event path (names) are allocated with HWT_STR_PAD
 * zero bytes after their NUL, and lines are built in a room reserved with
 * HWT_STR_PAD bytes of slack: hwt_put_str() copies whole 16-byte chunks
 * instead of calling memcpy() for every name.
 */
#define HWT_STR_PAD	16

static inline char *hwt_put_str(char *d, const char *s, size_t len)
{
	/* most names fit the first chunk */
	memcpy(d, s, 16);
	for (size_t i = 16; i < len; i += 16)
		memcpy(d + i, s + i, 16);
	return d + len;
}

/* A padded string of the per-event path and its length. */
struct hwt_str {
	char *s;
	uint32_t len;
};

/* A padded copy of s; -ENOMEM. */
HWT_CONV_HIDDEN int hwt_str_set(struct hwt_str *d, const char *s);

/* A string literal, its length known at compile time. */
#define hwt_put_lit(d, lit)	\
	(memcpy((d), (lit), sizeof(lit) - 1), (d) + sizeof(lit) - 1)
/*
 * The 8 upper-case hex digits of v, as a word to store big-endian: each
 * nibble spread to a byte, then '0' added, and 7 more where it is >= 10.
 */
static inline uint64_t hwt_hex8(uint32_t v)
{
	uint64_t x = v;

	x = (x | x << 16) & 0x0000FFFF0000FFFFull;
	x = (x | x << 8) & 0x00FF00FF00FF00FFull;
	x = (x | x << 4) & 0x0F0F0F0F0F0F0F0Full;
	x += 0x3030303030303030ull +
	     7 * (((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull);
	return htobe64(x);
}

/*
 * Upper-case hex, zero-padded to exactly width (1..16) digits; returns
 * d + width.  Stores whole words: d must have room for 16 bytes.
 */
static inline char *hwt_put_hex(char *d, uint64_t v, unsigned int width)
{
	uint64_t w;

	if (width > 8) {
		/* the top width - 8 digits first, then the low 8 */
		w = hwt_hex8((uint32_t)(v >> 32) << ((4 * (16 - width)) % 32));
		memcpy(d, &w, 8);
		d += width - 8;
		width = 8;
	}
	/* the width digits to the top of the word: they come out first */
	w = hwt_hex8((uint32_t)v << ((4 * (8 - width)) % 32));
	memcpy(d, &w, 8);
	return d + width;
}

static inline void ob_hex(struct hwt_obuf *o, uint64_t v, unsigned int width)
{
	char *d = ob_room(o, 16);

	if (d)
		o->len += (size_t)(hwt_put_hex(d, v, width) - d);
}
HWT_CONV_HIDDEN __attribute__((format(printf, 2, 3)))
void ob_printf(struct hwt_obuf *o, const char *fmt, ...);

/* --- names ------------------------------------------------------------------ */

/*
 * Make a name safe for a text format: valid UTF-8 (overlong forms,
 * surrogates, code points past U+10FFFF and U+FFFE/U+FFFF count as
 * invalid), and, with HWT_SAN_CTRL (text formats), no C0 control, DEL,
 * backslash, U+0085, U+2028 or U+2029 (line breaks to Unicode-aware
 * readers).  Each offending byte becomes the four characters \xHH.  At most max_bytes bytes of output
 * (0: no limit), never cutting a character; the result is NUL-terminated.
 * Returns its length.
 */
#define HWT_SAN_CTRL	0x1
HWT_CONV_HIDDEN size_t hwt_name_sanitize(char *dst, size_t dst_size,
					 const char *src, size_t max_bytes,
					 unsigned int flags);

/* Longest name hwt_conv_name() writes, NUL included, before sanitizing. */
#define HWT_NAME_MAX	96

/*
 * The one naming scheme (Documentation/hwtrace-formats.rst): tasks
 * "<comm>-<pid>" or "swapper/<cpu>", ISRs "irq<n>-<name>" or "vector<n>",
 * softirqs "softirq-<NAME>", locks "lock-<hex>", markers and counters from
 * the event table.  Raw bytes: formats sanitize and quote.
 */
HWT_CONV_HIDDEN void hwt_conv_name(char *dst, size_t size,
				   const struct hwt_model *m,
				   enum hwt_entity_kind kind, uint32_t id);
/* A task's comm alone (tband task names); "" if unknown. */
HWT_CONV_HIDDEN void hwt_conv_comm(char *dst, size_t size,
				   const struct hwt_model *m, uint32_t tid);

/*
 * A marker's parameters as text, from the event table: the number in the
 * marker's name is left out, an unused parameter ("-") too.
 */
HWT_CONV_HIDDEN void hwt_conv_marker_msg(char *dst, size_t size,
					 const struct hwt_model *m,
					 const struct hwt_mev *ev);

/*
 * The same from what the event table says once per marker: which of the
 * parameters the message shows (HWT_MSG_*), per marker id (ev->id), looked
 * up when a marker is first met.  hwt_mk_uses() returns them, or -ENOMEM;
 * free(u->v) at the end.
 */
#define HWT_MSG_VALUE2	0x1	/* ev->value2 (par1 of an unnumbered marker) */
#define HWT_MSG_VALUE	0x2	/* ev->value */
#define HWT_MSG_KNOWN	0x80	/* v[id] is filled in */

struct hwt_mk_uses {
	uint8_t *v;		/* [n] HWT_MSG_* | HWT_MSG_KNOWN, 0: not yet */
	size_t n;
};

HWT_CONV_HIDDEN int hwt_mk_uses_slow(struct hwt_mk_uses *u, const struct hwt_model *m,
				     uint32_t id);

static inline int hwt_mk_uses(struct hwt_mk_uses *u, const struct hwt_model *m,
			      uint32_t id)
{
	if (id < u->n && u->v[id])
		return u->v[id] & ~HWT_MSG_KNOWN;
	return hwt_mk_uses_slow(u, m, id);
}

/* The message at d (at most 41 bytes, no NUL); returns the end. */
static inline char *hwt_put_marker_msg(char *d, unsigned int uses,
				       const struct hwt_mev *ev)
{
	if (uses & HWT_MSG_VALUE2)
		d = hwt_put_u64(d, ev->value2);
	if (uses == (HWT_MSG_VALUE2 | HWT_MSG_VALUE))
		*d++ = ' ';
	if (uses & HWT_MSG_VALUE)
		d = hwt_put_s64(d, ev->value);
	return d;
}

/* Softirq runnables become Tonbandgeraet ISRs above irqs and vectors. */
#define HWT_TB_SOFTIRQ_BASE	0x20000u

/*
 * Entity names, sanitized (san flags) and escaped by esc() once, for the
 * per-event path: v[kind][idx], len[kind][idx] bytes and HWT_STR_PAD zero
 * bytes after the NUL.  esc NULL copies the sanitized name.
 * hwt_names_build() names every entity the model knows; a format that
 * meets entities as they come (no whole pass 1) starts with
 * hwt_names_init() and adds each name with hwt_names_add() when it first
 * needs it (hwt_names_has() false: not made yet).
 */
typedef void (*hwt_name_esc_fn)(struct hwt_obuf *o, const char *name);

struct hwt_names {
	char **v[HWT_NR_ENT_KINDS];
	uint32_t *len[HWT_NR_ENT_KINDS];
	size_t n[HWT_NR_ENT_KINDS];	/* v[] and len[] hold n entries */
	size_t max_len;			/* of all of them */
	const struct hwt_model *m;
	unsigned int san;
	hwt_name_esc_fn esc;
};

HWT_CONV_HIDDEN void hwt_names_init(struct hwt_names *nm, const struct hwt_model *m,
				    unsigned int san, hwt_name_esc_fn esc);
HWT_CONV_HIDDEN int hwt_names_build(struct hwt_names *nm, const struct hwt_model *m,
				    unsigned int san, hwt_name_esc_fn esc);
/* Make the name of entity (kind, id) with index idx; -ENOMEM. */
HWT_CONV_HIDDEN int hwt_names_add(struct hwt_names *nm, enum hwt_entity_kind kind,
				  uint32_t idx, uint32_t id);
HWT_CONV_HIDDEN void hwt_names_free(struct hwt_names *nm);

static inline bool hwt_names_has(const struct hwt_names *nm, unsigned int kind,
				 uint32_t idx)
{
	return idx < nm->n[kind] && nm->v[kind][idx];
}

/* One name built the same way (entities outside the model: cores, ...),
 * padded as the names. */
HWT_CONV_HIDDEN char *hwt_name_dup(const char *raw, unsigned int san,
				   hwt_name_esc_fn esc);

/*
 * Every loss the trace knows, one line of text for a header: "events lost
 * 10 (cpu1 8, cpu2 2), records overwritten 0, lost on no CPU 0, name
 * records lost 0" (CPUs without losses left out; a long list is cut with
 * "...").  No newline.
 */
HWT_CONV_HIDDEN void hwt_conv_losses(char *dst, size_t size,
				     const struct hwt_trace_info *info);

/* An unlinked temporary file ($TMPDIR or /tmp), for per-core sections. */
HWT_CONV_HIDDEN FILE *hwt_conv_tmpfile(void);

/* "yyyy-mm-dd hh:mm:ss" (sep ' ') or "yyyy-mm-ddThh:mm:ss" in UTC. */
HWT_CONV_HIDDEN void hwt_conv_date(char *dst, size_t size, int64_t t, char sep);

/* --- time ------------------------------------------------------------------- */

/* ticks per ms; 0 in a trace means "unknown": taken as ns (1000000/ms). */
static inline uint64_t hwt_conv_cpm(const struct hwt_trace_info *info)
{
	return info && info->cycles_per_msec ? info->cycles_per_msec : 1000000;
}

/* floor(ticks * mul / div) without overflow. */
static inline uint64_t hwt_muldiv(uint64_t ticks, uint64_t mul, uint64_t div)
{
	/* 128-bit division is slow: only when the product needs it */
	if (mul == 1 && div == 1)
		return ticks;
	if (ticks <= UINT64_MAX / mul)
		return ticks * mul / div;
	return (uint64_t)((unsigned __int128)ticks * mul / div);
}

static inline uint64_t hwt_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* ns per tick as a reduced fraction num/den. */
HWT_CONV_HIDDEN void hwt_conv_ns_per_tick(const struct hwt_trace_info *info,
					  uint64_t *num, uint64_t *den);

/* --- the common converter driver ---------------------------------------------- */

/*
 * Run the model over the stream: pass 1 learns what was already running at
 * the start and, if whole_pass1, reads the whole stream for the entities
 * (header tables) and timing values (want_stats); without it, pass 1 stops
 * as soon as the start is known (a few records per CPU) and the format
 * meets entities as they come.  Pass 2 feeds the format's callback.  A
 * stream error is handled the same way for every format: pass 2 stops
 * where the stream failed, the format finishes its output, and the caller
 * returns -EBADMSG.
 */
struct hwt_conv_run {
	struct hwt_stream *in;
	const struct hwt_conv_opts *opts;
	struct hwt_model *model;
	uint64_t nr_records;	/* records read in pass 1 */
	uint64_t limit;		/* pass 2 stops here after a pass-1 error */
	int stream_err;		/* first error of in->next(), 0 if none */
	bool two_pass;
	/*
	 * Pass 2 hands each record to rec (if set) before the model sees it:
	 * for a format that writes records as they are (perfetto's ftrace
	 * events) besides the model's events.
	 */
	void (*rec)(void *ctx, const struct hwt_record *rec);
};

/* Called between passes with the model filled (tables known). */
typedef int (*hwt_conv_header_fn)(void *ctx, struct hwt_conv_run *run);

HWT_CONV_HIDDEN int hwt_conv_drive(struct hwt_conv_run *run,
				   bool whole_pass1, bool want_stats,
				   hwt_mev_fn emit, void *ctx,
				   hwt_conv_header_fn header);

/* The formats. */
HWT_CONV_HIDDEN int hwt_conv_htf(struct hwt_stream *in, FILE *out,
				 const struct hwt_conv_opts *opts);
HWT_CONV_HIDDEN int hwt_conv_atf(struct hwt_stream *in, FILE *out,
				 const struct hwt_conv_opts *opts);
HWT_CONV_HIDDEN int hwt_conv_btf(struct hwt_stream *in, FILE *out,
				 const struct hwt_conv_opts *opts);
HWT_CONV_HIDDEN int hwt_conv_tband(struct hwt_stream *in, FILE *out,
				   const struct hwt_conv_opts *opts);
HWT_CONV_HIDDEN int hwt_conv_shark(struct hwt_stream *in, FILE *out,
				   const struct hwt_conv_opts *opts);
HWT_CONV_HIDDEN int hwt_conv_json(struct hwt_stream *in, FILE *out,
				  const struct hwt_conv_opts *opts);
HWT_CONV_HIDDEN int hwt_conv_perfetto(struct hwt_stream *in, FILE *out,
				      const struct hwt_conv_opts *opts);
/* A directory format. */
HWT_CONV_HIDDEN int hwt_conv_ctf(struct hwt_stream *in, const char *dir,
				 const struct hwt_conv_opts *opts);

/* Option with a default when the caller's struct is older (shorter). */
#define CONV_OPT(opts, field, def)					\
	((opts) && (opts)->sz >= offsetof(struct hwt_conv_opts, field) +	\
		   sizeof((opts)->field) ? (opts)->field : (def))

/* --- Tonbandgerät encoding (tband.c; tests use it directly) -------------------- */

/* Event ids of the reference encoder (Tonbandgerät docs, "Trace Events Index"). */
enum hwt_tb_id {
	HWT_TB_CORE_ID			= 0x00,
	HWT_TB_DROPPED_EVT_CNT		= 0x01,
	HWT_TB_TS_RESOLUTION_NS		= 0x02,
	HWT_TB_ISR_NAME			= 0x03,
	HWT_TB_ISR_ENTER		= 0x04,
	HWT_TB_ISR_EXIT			= 0x05,
	HWT_TB_EVTMARKER_NAME		= 0x06,
	HWT_TB_EVTMARKER		= 0x07,
	HWT_TB_EVTMARKER_BEGIN		= 0x08,
	HWT_TB_EVTMARKER_END		= 0x09,
	HWT_TB_VALMARKER_NAME		= 0x0A,
	HWT_TB_VALMARKER		= 0x0B,
	HWT_TB_TASK_SWITCHED_IN		= 0x54,
	HWT_TB_TASK_TO_RDY_STATE	= 0x55,
	HWT_TB_TASK_SUSPENDED		= 0x58,
	HWT_TB_CURTASK_DELAY		= 0x59,
	HWT_TB_TASK_PRIORITY_SET	= 0x5B,
	HWT_TB_TASK_PRIORITY_INHERIT	= 0x5C,
	HWT_TB_TASK_PRIORITY_DISINHERIT	= 0x5D,
	HWT_TB_TASK_CREATED		= 0x5E,
	HWT_TB_TASK_NAME		= 0x5F,
	HWT_TB_TASK_IS_IDLE_TASK	= 0x60,
	HWT_TB_TASK_DELETED		= 0x62,
	HWT_TB_QUEUE_NAME		= 0x64,
	HWT_TB_QUEUE_KIND		= 0x65,
	HWT_TB_CURTASK_BLOCK_ON_QUEUE_RECEIVE = 0x6F,
};

#define HWT_TB_FRQK_MUTEX	0x03	/* FrQueueKind */

/* COBS frame under construction, same output as the reference cobs_*(). */
struct hwt_tb_frame {
	uint8_t *buf;
	size_t pos;
	size_t code_pos;
	uint8_t code;
	bool block_done;	/* last byte completed a 254-byte block */
};

/* Longest frame for n payload bytes, delimiter included. */
#define HWT_TB_FRAME_MAX(n)	((n) == 0 ? 2 : 1 + ((n) + 253) / 254 + (n))

HWT_CONV_HIDDEN void hwt_tb_begin(struct hwt_tb_frame *f, uint8_t *out);
HWT_CONV_HIDDEN void hwt_tb_u8(struct hwt_tb_frame *f, uint8_t v);
HWT_CONV_HIDDEN void hwt_tb_u32(struct hwt_tb_frame *f, uint32_t v);
HWT_CONV_HIDDEN void hwt_tb_u64(struct hwt_tb_frame *f, uint64_t v);
HWT_CONV_HIDDEN void hwt_tb_s64(struct hwt_tb_frame *f, int64_t v);
/* At most max bytes of s (0: all); NULL writes nothing. */
HWT_CONV_HIDDEN void hwt_tb_str(struct hwt_tb_frame *f, const char *s, size_t max);
/* Close the frame; returns its length including the 0x00 delimiter. */
HWT_CONV_HIDDEN size_t hwt_tb_end(struct hwt_tb_frame *f);
/* COBS-frame an arbitrary message (tests). */
HWT_CONV_HIDDEN size_t hwt_tb_cobs(uint8_t *out, const uint8_t *in, size_t n);

/* One event: id, [ts], up to three varlen fields, an optional string. */
struct hwt_tb_evt {
	uint8_t id;
	bool has_ts;
	uint64_t ts;
	uint8_t nr_u;		/* fields in u[] */
	uint64_t u[3];		/* u32/u64 fields in order */
	bool has_s64;		/* a trailing s64 (valmarkers) */
	int64_t s64;
	bool has_u8;		/* a trailing u8 (queue_kind) */
	uint8_t u8;
	const char *str;	/* trailing varlen string or NULL */
};

/* Largest frame hwt_tb_encode() writes for a string of at most s bytes. */
#define HWT_TB_EVT_MAX(s)	HWT_TB_FRAME_MAX(1 + 10 + 3 * 10 + 10 + 1 + (s))
HWT_CONV_HIDDEN size_t hwt_tb_encode(uint8_t *out, const struct hwt_tb_evt *e,
				     size_t max_str);

/*
 * The reference tracer's handle_trace_evt(): before an event, a
 * dropped_evt_cnt frame when the count changed since this core last traced
 * it or when the periodic counter ran out (every > 0).  sink() returns true
 * when it dropped the frame, which counts as a dropped event, as on the
 * target.  ref_stale_last reproduces the reference, which never records
 * what it traced (so it repeats the count before every later event); the
 * converter records it.
 */
struct hwt_tb_writer {
	bool (*sink)(void *ctx, const uint8_t *buf, size_t len);
	void *ctx;
	uint32_t every;
	uint32_t nr_cores;
	uint32_t *period;	/* [nr_cores] */
	uint64_t *last;		/* [nr_cores] */
	uint64_t dropped;	/* the global count */
	bool ref_stale_last;
};

HWT_CONV_HIDDEN int hwt_tb_writer_init(struct hwt_tb_writer *w, uint32_t nr_cores,
				       uint32_t every);
HWT_CONV_HIDDEN void hwt_tb_writer_free(struct hwt_tb_writer *w);
/*
 * The dropped_evt_cnt frame due before an event of core, if any; false when
 * the sink dropped it (the event is then not sent either, as on the target).
 */
HWT_CONV_HIDDEN bool hwt_tb_prepare_slow(struct hwt_tb_writer *w, uint32_t core,
					 uint64_t ts);

static inline bool hwt_tb_prepare(struct hwt_tb_writer *w, uint32_t core,
				  uint64_t ts)
{
	/* usually nothing is due: the count as traced, the period running */
	if (core < w->nr_cores && w->last[core] == w->dropped &&
	    (!w->every || w->period[core])) {
		if (w->every)
			w->period[core]--;
		return true;
	}
	return hwt_tb_prepare_slow(w, core, ts);
}
/* Submit one framed event for core; ts is the event's (or now for metadata). */
HWT_CONV_HIDDEN void hwt_tb_submit(struct hwt_tb_writer *w, uint32_t core,
				   const uint8_t *frame, size_t len, uint64_t ts);

/*
 * sched_switch's prev_state as the kernel reports it (its TASK_REPORT bits,
 * kernels >= 4.14), for the formats that carry the kernel's own events (ctf,
 * perfetto): R 0, S 1, D 2, T 4, X 0x10 (EXIT_DEAD), I 0x80
 * (TASK_REPORT_IDLE), and for "other" 0x40 (TASK_PARKED, its common case).
 */
HWT_CONV_HIDDEN uint32_t hwt_conv_report_state(uint32_t hwt_state);

#endif /* HWT_CONV_INTERNAL_H */
