// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Converter registry and what every format shares: the output buffer, the
 * naming scheme, name sanitizing, time scaling and the two-pass driver.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hwt/events.h>
#include "../internal.h"
#include "conv_internal.h"

static const struct {
	const char *name;
	int (*fn)(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts);
} formats[] = {
	{ "htf", hwt_conv_htf },
	{ "atf", hwt_conv_atf },
	{ "btf", hwt_conv_btf },
	{ "tband", hwt_conv_tband },
	{ "shark", hwt_conv_shark },
	{ "json", hwt_conv_json },
	{ "perfetto", hwt_conv_perfetto },
};

static const struct {
	const char *name;
	int (*fn)(struct hwt_stream *in, const char *dir,
		  const struct hwt_conv_opts *opts);
} dir_formats[] = {
	{ "ctf", hwt_conv_ctf },
};

static const char *const format_names[] = {
	"htf", "atf", "btf", "tband", "shark", "json", "perfetto", "ctf", NULL,
};

const char *const *hwt_conv_formats(void)
{
	return format_names;
}

int hwt_convert(const char *format, struct hwt_stream *in, FILE *out,
		const struct hwt_conv_opts *opts)
{
	int ret = -EINVAL;

	if (!format || !in || !in->info || !in->next || !out)
		goto out;
	if (opts && opts->sz < sizeof(size_t))
		goto out;
	for (size_t i = 0; i < CONV_ARRAY_SIZE(formats); i++) {
		if (!strcmp(format, formats[i].name)) {
			ret = formats[i].fn(in, out, opts);
			break;
		}
	}
out:
	if (ret < 0)
		errno = -ret;
	return ret;
}

int hwt_conv_format_is_dir(const char *format)
{
	for (size_t i = 0; format && i < CONV_ARRAY_SIZE(dir_formats); i++)
		if (!strcmp(format, dir_formats[i].name))
			return 1;
	return 0;
}

int hwt_convert_dir(const char *format, struct hwt_stream *in, const char *dir,
		    const struct hwt_conv_opts *opts)
{
	int ret = -EINVAL;

	if (!format || !in || !in->info || !in->next || !dir || !dir[0])
		goto out;
	if (opts && opts->sz < sizeof(size_t))
		goto out;
	for (size_t i = 0; i < CONV_ARRAY_SIZE(dir_formats); i++) {
		if (!strcmp(format, dir_formats[i].name)) {
			ret = dir_formats[i].fn(in, dir, opts);
			break;
		}
	}
out:
	if (ret < 0)
		errno = -ret;
	return ret;
}

/* --- output buffer ------------------------------------------------------------- */

int hwt_obuf_init(struct hwt_obuf *o, FILE *f, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->cap = cap ? cap : 1 << 16;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -ENOMEM;
}

int hwt_obuf_flush(struct hwt_obuf *o)
{
	if (o->f && o->len) {
		if (fwrite(o->buf, 1, o->len, o->f) != o->len && !o->err)
			o->err = -EIO;
		o->len = 0;
	}
	return o->err;
}

int hwt_obuf_room_slow(struct hwt_obuf *o, size_t n)
{
	if (o->f)
		hwt_obuf_flush(o);
	if (o->cap - o->len < n) {
		size_t cap = o->cap;
		char *b;

		while (cap - o->len < n)
			cap *= 2;
		b = realloc(o->buf, cap);
		if (!b) {
			o->err = -ENOMEM;
			return -ENOMEM;
		}
		o->buf = b;
		o->cap = cap;
	}
	return o->err;
}

void hwt_obuf_free(struct hwt_obuf *o)
{
	free(o->buf);
	o->buf = NULL;
}

const char hwt_dec2[200] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void ob_printf(struct hwt_obuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *d;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	d = ob_room(o, (size_t)n + 1);
	if (!d)
		return;
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
}

/* --- names ------------------------------------------------------------------------ */

/* Length of the valid UTF-8 character at s (n bytes left), 0 if invalid. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ||
	    cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return len;
}

size_t hwt_name_sanitize(char *dst, size_t dst_size, const char *src,
			 size_t max_bytes, unsigned int flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t n = strlen(src), o = 0, limit;

	if (!dst_size)
		return 0;
	limit = dst_size - 1;
	if (max_bytes && max_bytes < limit)
		limit = max_bytes;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_char(s + i, n - i);
		/*
		 * Text formats: C0 controls and DEL, the backslash (or "\x41"
		 * in a name would read as an escape), and the line breaks of
		 * Unicode-aware readers: U+0085, U+2028, U+2029
		 */
		bool ctrl = (len == 1 && (s[i] < 0x20 || s[i] == 0x7F || s[i] == '\\')) ||
			    (len == 2 && s[i] == 0xC2 && s[i + 1] == 0x85) ||
			    (len == 3 && s[i] == 0xE2 && s[i + 1] == 0x80 &&
			     (s[i + 2] == 0xA8 || s[i + 2] == 0xA9));

		if (ctrl && len > 1 && (flags & HWT_SAN_CTRL)) {
			/* each byte of the character as \xHH */
			if (o + 4 * len > limit)
				break;
			for (size_t k = 0; k < len; k++, i++) {
				dst[o++] = '\\';
				dst[o++] = 'x';
				dst[o++] = hex[s[i] >> 4];
				dst[o++] = hex[s[i] & 0xF];
			}
			continue;
		}
		if (len && !(ctrl && (flags & HWT_SAN_CTRL))) {
			if (o + len > limit)
				break;
			memcpy(dst + o, s + i, len);
			o += len;
			i += len;
			continue;
		}
		if (o + 4 > limit)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[s[i] >> 4];
		dst[o++] = hex[s[i] & 0xF];
		i++;
	}
	dst[o] = '\0';
	return o;
}

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

void hwt_conv_comm(char *dst, size_t size, const struct hwt_model *m, uint32_t tid)
{
	struct hwt_stream *s = hwt_model_names(m);
	const struct hwt_task *t;

	if (HWT_TID_IS_IDLE(tid)) {
		snprintf(dst, size, "swapper/%u", tid - HWT_TID_IDLE_BASE);
		return;
	}
	t = s && s->task ? s->task(s->ctx, tid) : NULL;
	snprintf(dst, size, "%.*s", HWT_COMM_LEN, t ? t->comm : "");
}

void hwt_conv_name(char *dst, size_t size, const struct hwt_model *m,
		   enum hwt_entity_kind kind, uint32_t id)
{
	struct hwt_stream *s = hwt_model_names(m);

	switch (kind) {
	case HWT_ENT_TASK: {
		char comm[HWT_COMM_LEN + 1];

		if (HWT_TID_IS_IDLE(id)) {
			hwt_conv_comm(dst, size, m, id);
			return;
		}
		hwt_conv_comm(comm, sizeof(comm), m, id);
		snprintf(dst, size, "%s-%u", comm[0] ? comm : "task", id);
		return;
	}
	case HWT_ENT_ISR: {
		const char *n;

		if (HWT_ISR_IS_VECTOR(id)) {
			snprintf(dst, size, "vector-0x%02x", id - HWT_ISR_VECTOR_BASE);
			return;
		}
		n = s && s->irq_name ? s->irq_name(s->ctx, id) : NULL;
		if (n && n[0])
			snprintf(dst, size, "irq%u-%.48s", id, n);
		else
			snprintf(dst, size, "irq%u", id);
		return;
	}
	case HWT_ENT_RUNNABLE:
		if (id < CONV_ARRAY_SIZE(softirq_names))
			snprintf(dst, size, "softirq-%s", softirq_names[id]);
		else
			snprintf(dst, size, "softirq-%u", id);
		return;
	case HWT_ENT_LOCK:
		snprintf(dst, size, "lock-%08x", id);
		return;
	case HWT_ENT_MARKER: {
		const struct hwt_marker_info *mi = hwt_model_marker(m, id);
		const char *ev = mi ? hwt_event_name(mi->code) : NULL;
		char def[24];

		if (!ev) {
			snprintf(def, sizeof(def), "event_0x%02x", mi ? mi->code : 0);
			ev = def;
		}
		if (mi && mi->numbered)
			snprintf(dst, size, "%s-%u", ev, mi->number);
		else
			snprintf(dst, size, "%s", ev);
		return;
	}
	case HWT_ENT_COUNTER: {
		const struct hwt_counter_info *ci = hwt_model_counter(m, id);

		snprintf(dst, size, "cpu%u-%s", ci ? ci->cpu : 0,
			 ci && ci->code == HWT_EV_FREQUENCY ? "frequency" : "idle");
		return;
	}
	default:
		snprintf(dst, size, "?");
		return;
	}
}

static unsigned int marker_uses(const struct hwt_model *m, uint32_t id)
{
	const struct hwt_marker_info *mi = hwt_model_marker(m, id);
	const char *p1 = mi ? hwt_event_par1(mi->code) : NULL;
	const char *p2 = mi ? hwt_event_par2(mi->code) : NULL;
	bool use1 = !(mi && mi->numbered) && !(p1 && !strcmp(p1, "-"));
	bool use2 = !(p2 && !strcmp(p2, "-"));

	return (use1 ? HWT_MSG_VALUE2 : 0) | (use2 ? HWT_MSG_VALUE : 0);
}

void hwt_conv_marker_msg(char *dst, size_t size, const struct hwt_model *m,
			 const struct hwt_mev *ev)
{
	char tmp[48];
	size_t n = (size_t)(hwt_put_marker_msg(tmp, marker_uses(m, ev->id), ev) - tmp);

	if (!size)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(dst, tmp, n);
	dst[n] = '\0';
}

int hwt_mk_uses_slow(struct hwt_mk_uses *u, const struct hwt_model *m, uint32_t id)
{
	if (id >= u->n) {
		size_t n = id + 1 > 2 * u->n ? id + 1 : 2 * u->n;
		uint8_t *v = realloc(u->v, n);

		if (!v)
			return -ENOMEM;
		memset(v + u->n, 0, n - u->n);
		u->v = v;
		u->n = n;
	}
	u->v[id] = (uint8_t)(marker_uses(m, id) | HWT_MSG_KNOWN);
	return u->v[id] & ~HWT_MSG_KNOWN;
}

char *hwt_name_dup(const char *raw, unsigned int san, hwt_name_esc_fn esc)
{
	char clean[HWT_NAME_MAX * 4 + 1];
	struct hwt_obuf o;
	char *r;

	hwt_name_sanitize(clean, sizeof(clean), raw, 0, san);
	if (hwt_obuf_init(&o, NULL, 64))
		return NULL;
	if (esc)
		esc(&o, clean);
	else
		ob_puts(&o, clean);
	/* the NUL and the padding */
	if (ob_room(&o, 1 + HWT_STR_PAD)) {
		memset(o.buf + o.len, 0, 1 + HWT_STR_PAD);
		o.len += 1 + HWT_STR_PAD;
	}
	if (o.err) {
		hwt_obuf_free(&o);
		return NULL;
	}
	r = o.buf;		/* ownership moves to the caller */
	return r;
}

void hwt_names_init(struct hwt_names *nm, const struct hwt_model *m,
		    unsigned int san, hwt_name_esc_fn esc)
{
	memset(nm, 0, sizeof(*nm));
	nm->m = m;
	nm->san = san;
	nm->esc = esc;
}

int hwt_names_add(struct hwt_names *nm, enum hwt_entity_kind kind, uint32_t idx,
		  uint32_t id)
{
	char raw[HWT_NAME_MAX];

	if (idx >= nm->n[kind]) {
		size_t n = idx + 1 > 2 * nm->n[kind] ? idx + 1 : 2 * nm->n[kind];
		char **v = realloc(nm->v[kind], n * sizeof(*v));
		uint32_t *len;

		if (!v)
			return -ENOMEM;
		nm->v[kind] = v;
		len = realloc(nm->len[kind], n * sizeof(*len));
		if (!len)
			return -ENOMEM;
		nm->len[kind] = len;
		memset(v + nm->n[kind], 0, (n - nm->n[kind]) * sizeof(*v));
		memset(len + nm->n[kind], 0, (n - nm->n[kind]) * sizeof(*len));
		nm->n[kind] = n;
	}
	if (nm->v[kind][idx])
		return 0;
	hwt_conv_name(raw, sizeof(raw), nm->m, kind, id);
	nm->v[kind][idx] = hwt_name_dup(raw, nm->san, nm->esc);
	if (!nm->v[kind][idx])
		return -ENOMEM;
	nm->len[kind][idx] = (uint32_t)strlen(nm->v[kind][idx]);
	if (nm->len[kind][idx] > nm->max_len)
		nm->max_len = nm->len[kind][idx];
	return 0;
}

int hwt_names_build(struct hwt_names *nm, const struct hwt_model *m,
		    unsigned int san, hwt_name_esc_fn esc)
{
	hwt_names_init(nm, m, san, esc);
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++) {
		size_t n = hwt_model_count(m, (enum hwt_entity_kind)k);

		/* every kind has its arrays, empty or not */
		nm->v[k] = calloc(n ? n : 1, sizeof(char *));
		nm->len[k] = calloc(n ? n : 1, sizeof(uint32_t));
		if (!nm->v[k] || !nm->len[k])
			return -ENOMEM;
		nm->n[k] = n;
		for (size_t i = 0; i < n; i++) {
			int ret = hwt_names_add(nm, (enum hwt_entity_kind)k, (uint32_t)i,
						hwt_model_id(m, (enum hwt_entity_kind)k, i));

			if (ret)
				return ret;
		}
	}
	return 0;
}

int hwt_str_set(struct hwt_str *d, const char *s)
{
	size_t len = strlen(s);

	d->s = calloc(1, len + 1 + HWT_STR_PAD);
	if (!d->s)
		return -ENOMEM;
	memcpy(d->s, s, len);
	d->len = (uint32_t)len;
	return 0;
}

void hwt_names_free(struct hwt_names *nm)
{
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++) {
		for (size_t i = 0; nm->v[k] && i < nm->n[k]; i++)
			free(nm->v[k][i]);
		free(nm->v[k]);
		free(nm->len[k]);
		nm->v[k] = NULL;
		nm->len[k] = NULL;
	}
}

/* "<what> N (cpuC n, ...)" of a per-CPU array, appended at *o. */
static void losses_per_cpu(char *dst, size_t size, size_t *o, const char *what,
			   const uint64_t *v, uint32_t nr_cpus)
{
	uint64_t total = 0;
	bool first = true;

	for (uint32_t c = 0; v && c < nr_cpus; c++)
		total += v[c];
	*o += (size_t)snprintf(dst + *o, size - *o, "%s %llu", what,
			       (unsigned long long)total);
	for (uint32_t c = 0; total && c < nr_cpus && *o < size; c++) {
		if (!v[c])
			continue;
		if (*o + 40 >= size) {
			*o += (size_t)snprintf(dst + *o, size - *o, ", ...");
			break;
		}
		*o += (size_t)snprintf(dst + *o, size - *o, "%scpu%u %llu",
				       first ? " (" : ", ", c, (unsigned long long)v[c]);
		first = false;
	}
	if (!first && *o < size)
		*o += (size_t)snprintf(dst + *o, size - *o, ")");
}

void hwt_conv_losses(char *dst, size_t size, const struct hwt_trace_info *info)
{
	size_t o = 0;

	if (!size)
		return;
	dst[0] = '\0';
	losses_per_cpu(dst, size, &o, "events lost", info->lost, info->nr_cpus);
	if (o < size)
		losses_per_cpu(dst, size, &o, ", records overwritten", info->overwritten,
			       info->nr_cpus);
	if (o < size)
		snprintf(dst + o, size - o, ", lost on no CPU %llu, name records lost %llu",
			 (unsigned long long)info->lost_nocpu,
			 (unsigned long long)info->names_lost);
}

FILE *hwt_conv_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/hwtrace-conv-XXXXXX",
		 dir && dir[0] ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	unlink(path);		/* gone when closed, whatever happens */
	f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

void hwt_conv_date(char *dst, size_t size, int64_t t, char sep)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm))
		memset(&tm, 0, sizeof(tm));
	snprintf(dst, size, "%04d-%02d-%02d%c%02d:%02d:%02d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, sep, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* --- time ----------------------------------------------------------------------- */

void hwt_conv_ns_per_tick(const struct hwt_trace_info *info, uint64_t *num,
			  uint64_t *den)
{
	uint64_t cpm = hwt_conv_cpm(info), g = hwt_gcd(1000000, cpm);

	*num = 1000000 / g;
	*den = cpm / g;
}

/* --- the driver --------------------------------------------------------------------- */

int hwt_conv_drive(struct hwt_conv_run *run, bool whole_pass1, bool want_stats,
		   hwt_mev_fn emit, void *ctx, hwt_conv_header_fn header)
{
	struct hwt_stream *in = run->in;
	struct hwt_record rec;
	uint64_t n = 0;
	int ret;

	if (!in->rewind || in->rewind(in->ctx))
		return -ESPIPE;
	ret = hwt_model_new(&run->model, in->info, in);
	if (ret)
		return ret;
	hwt_model_set_stats(run->model, want_stats);
	/* pass 1: the state at the start; entities and timing values if whole */
	for (;;) {
		if (!whole_pass1 && hwt_model_start_known(run->model))
			break;
		ret = in->next(in->ctx, &rec);
		if (ret <= 0)
			break;
		n++;
		ret = hwt_model_feed(run->model, &rec);
		if (ret)
			return ret;
	}
	if (ret < 0) {
		/* pass 2 stops at the same record */
		run->stream_err = ret;
		run->limit = n;
	}
	run->nr_records = n;
	run->two_pass = true;
	ret = hwt_model_restart(run->model);
	if (ret)
		return ret;
	if (header) {
		ret = header(ctx, run);
		if (ret)
			return ret;
	}
	if (in->rewind(in->ctx))
		return -EIO;
	/* pass 2: the records, to the format */
	hwt_model_set_sink(run->model, emit, ctx);
	for (uint64_t i = 0; !run->stream_err || i < run->limit; i++) {
		ret = in->next(in->ctx, &rec);
		if (ret <= 0) {
			if (ret < 0 && !run->stream_err)
				run->stream_err = ret;
			break;
		}
		if (run->rec)
			run->rec(ctx, &rec);
		ret = hwt_model_feed(run->model, &rec);
		if (ret)
			return ret;
	}
	if (hwt_model_nr_bad_cpu(run->model))
		pr_warn("%llu records of CPUs >= %u (the trace's CPU count) left out\n",
			(unsigned long long)hwt_model_nr_bad_cpu(run->model),
			hwt_model_nr_cpus(run->model));
	return hwt_model_end(run->model);
}

uint32_t hwt_conv_report_state(uint32_t hwt_state)
{
	switch (hwt_state) {
	case HWT_STATE_RUNNABLE:
		return 0x00;
	case HWT_STATE_SLEEPING:
		return 0x01;
	case HWT_STATE_BLOCKED:
		return 0x02;
	case HWT_STATE_STOPPED:
		return 0x04;
	case HWT_STATE_DEAD:
		return 0x10;
	case HWT_STATE_IDLE:
		return 0x80;
	default:
		return 0x40;
	}
}
