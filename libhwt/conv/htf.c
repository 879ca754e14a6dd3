// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * AMALTHEA Hardware Trace Format 1.0 (shared/specs/htf-*.txt).
 *
 * Header parameters in the order of the spec's section 2, the reference
 * tables of section 3 (all six types and their event tables with the spec's
 * ids, then every entity used), and #TraceData with one "#-NN" section per
 * core: datasets of exactly TimestampLength + EntityLength + EventLength
 * bytes in hex.  Timestamps are ticks since the trace's first record;
 * TimeScaleNumerator/Denominator turn them into ns exactly.
 *
 * The data are time-ordered across cores but written core by core, and the
 * header's tables and widths are only known at the end (pass 1 reads just
 * the start of the trace): each core's events go to a temporary file as
 * fixed binary records first, and are written out as datasets after the
 * header.  Memory stays bounded; disk briefly holds about the size of the
 * output.
 *
 * Where the spec's appendix example disagrees with its text, the text wins:
 * "#Format HTF" (not HFT), "#TimeScale" and "#TimestampLength" spelled as in
 * sections 2.9 and 2.11, "#TraceData" as in section 4, entity ids in hex.
 */
#include <errno.h>
#include <stdlib.h>

#include "conv_internal.h"

enum { TYPE_TASK, TYPE_ISR, TYPE_RUNNABLE, TYPE_CODEBLOCK, TYPE_SIGNAL,
       TYPE_SEMAPHORE };

static const char *const type_names[] = {
	"Task", "ISR", "Runnable", "CodeBlock", "Signal", "Semaphore",
};

/* The spec's event tables, ids are the positions. */
static const char *const task_events[] = {
	"activate", "start", "resume", "preempt", "terminate", "wait", "release",
	"poll", "run_polling", "park", "poll_parking", "release_parking",
};
static const char *const isr_events[] = { "start", "resume", "preempt", "terminate" };
static const char *const runnable_events[] = { "start", "suspend", "resume", "terminate" };
static const char *const codeblock_events[] = { "start", "stop" };
static const char *const signal_events[] = { "read", "write" };
static const char *const semaphore_events[] = { "lock", "unlock" };

static const struct {
	const char *table;
	const char *const *ev;
	size_t n;
} event_tables[] = {
	{ "TaskEventTable", task_events, CONV_ARRAY_SIZE(task_events) },
	{ "ISREventTable", isr_events, CONV_ARRAY_SIZE(isr_events) },
	{ "RunnableEventTable", runnable_events, CONV_ARRAY_SIZE(runnable_events) },
	{ "CodeBlockEventTable", codeblock_events, CONV_ARRAY_SIZE(codeblock_events) },
	{ "SignalEventTable", signal_events, CONV_ARRAY_SIZE(signal_events) },
	{ "SemaphoreEventTable", semaphore_events, CONV_ARRAY_SIZE(semaphore_events) },
};

/* Model event -> HTF event id (-1: none).  Ids from the tables above. */
static const int8_t htf_event[HWT_NR_MEV] = {
	[HWT_MEV_TASK_CREATE] = -1,
	[HWT_MEV_TASK_ACTIVATE] = 0x00,
	[HWT_MEV_TASK_START] = 0x01,
	[HWT_MEV_TASK_RESUME] = 0x02,
	[HWT_MEV_TASK_PREEMPT] = 0x03,
	[HWT_MEV_TASK_TERMINATE] = 0x04,
	[HWT_MEV_TASK_WAIT] = 0x05,
	[HWT_MEV_TASK_RELEASE] = 0x06,
	[HWT_MEV_TASK_DELETE] = -1,
	[HWT_MEV_ISR_START] = 0x00,
	[HWT_MEV_ISR_RESUME] = 0x01,
	[HWT_MEV_ISR_PREEMPT] = 0x02,
	[HWT_MEV_ISR_TERMINATE] = 0x03,
	[HWT_MEV_RUN_START] = 0x00,
	[HWT_MEV_RUN_SUSPEND] = 0x01,
	[HWT_MEV_RUN_RESUME] = 0x02,
	[HWT_MEV_RUN_TERMINATE] = 0x03,
	[HWT_MEV_MARKER] = 0x01,	/* Signal write */
	[HWT_MEV_COUNTER] = 0x01,	/* Signal write */
	[HWT_MEV_LOCK_WAIT] = -1,	/* the task's wait shows it */
	[HWT_MEV_LOCK_ACQUIRE] = 0x00,	/* Semaphore lock */
	[HWT_MEV_LOCK_RELEASE] = 0x01,	/* Semaphore unlock */
	[HWT_MEV_PRIORITY] = -1,
	[HWT_MEV_LOST] = 0x01,		/* Signal "lost_events" write */
};

struct htf {
	struct hwt_conv_run run;
	struct hwt_obuf ob;
	struct hwt_names names;
	struct hwt_obuf *core;		/* [nr_cpus] buffers on temporary files */
	FILE **tmp;			/* opened at a core's first event */
	uint32_t nr_cpus;
	int err;
	uint32_t *ent[HWT_NR_ENT_KINDS];	/* event idx -> entity id */
	uint32_t lost_entity;
	unsigned int ts_digits, ent_digits;
	uint64_t t0;
	uint8_t kind[HWT_NR_MEV];	/* hwt_mev_kind() of each event type */
};

/*
 * An event in a core's temporary file.  A LOST event is two records: the
 * second carries the total of all cores in ts.
 */
struct htf_rec {
	uint64_t ts;			/* ticks since the first record */
	uint32_t idx;			/* ev->idx; LOST: events lost */
	uint8_t kind;			/* HWT_ENT_*; HWT_ENT_NONE: LOST */
	uint8_t code;			/* HTF event id */
	uint16_t pad;
};

_Static_assert(sizeof(struct htf_rec) == 16, "records are 16 bytes");

static int htf_begin(void *ctx, struct hwt_conv_run *run)
{
	struct htf *h = ctx;

	h->t0 = hwt_model_t0(run->model);
	return 0;
}

static void htf_mev(void *ctx, const struct hwt_mev *ev)
{
	struct htf *h = ctx;
	struct hwt_obuf *o;
	int8_t code = htf_event[ev->type];
	struct htf_rec r[2] = { {
		.ts = ev->ts - h->t0, .idx = ev->idx, .code = (uint8_t)code,
		.kind = h->kind[ev->type],
	} };

	if (code < 0 || ev->cpu >= h->nr_cpus || h->err || hwt_mev_is_idle(ev))
		return;
	/* a file per core that has events: a header may declare 65536 CPUs */
	if (!h->tmp[ev->cpu]) {
		h->tmp[ev->cpu] = hwt_conv_tmpfile();
		h->err = h->tmp[ev->cpu] ?
			 hwt_obuf_init(&h->core[ev->cpu], h->tmp[ev->cpu], HWT_OBUF_PER_CORE) : -EIO;
		if (h->err)
			return;
	}
	o = &h->core[ev->cpu];
	if (ev->type == HWT_MEV_LOST) {
		r[0].idx = ev->inst;
		r[1].ts = ev->value2;
		ob_write(o, r, sizeof(r));
		return;
	}
	ob_write(o, r, sizeof(r[0]));
}

/*
 * The end: entities sorted for the tables, each event's entity id from its
 * index, the widths the trace needs.
 */
static int htf_entities(struct htf *h)
{
	static const enum hwt_entity_kind order[] = {
		HWT_ENT_TASK, HWT_ENT_ISR, HWT_ENT_RUNNABLE, HWT_ENT_MARKER,
		HWT_ENT_COUNTER, HWT_ENT_LOCK,
	};
	struct hwt_model *m = h->run.model;
	uint32_t n = 0;

	/* the ids of the indexes events carry, before they are sorted */
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++) {
		size_t nk = hwt_model_count(m, (enum hwt_entity_kind)k);

		h->ent[k] = malloc((nk ? nk : 1) * sizeof(uint32_t));
		if (!h->ent[k])
			return -ENOMEM;
		for (size_t i = 0; i < nk; i++)
			h->ent[k][i] = hwt_model_id(m, (enum hwt_entity_kind)k, i);
	}
	hwt_model_sort(m);
	for (size_t o = 0; o < CONV_ARRAY_SIZE(order); o++) {
		enum hwt_entity_kind k = order[o];
		size_t nk = hwt_model_count(m, k);

		for (size_t i = 0; i < nk; i++)
			h->ent[k][i] = n + (uint32_t)hwt_model_index(m, k, h->ent[k][i]);
		n += (uint32_t)nk;
	}
	h->lost_entity = n++;
	h->ent_digits = n > 0xFFFF ? 8 : 4;
	h->ts_digits = hwt_model_t_end(m) - h->t0 > UINT32_MAX ? 16 : 8;
	return hwt_names_build(&h->names, m, HWT_SAN_CTRL, NULL);
}

/* Idle tasks have no events and no entity: a gap in the ids. */
static bool htf_idle(struct hwt_model *m, enum hwt_entity_kind k, size_t idx)
{
	return k == HWT_ENT_TASK && HWT_TID_IS_IDLE(hwt_model_id(m, k, idx));
}

static int htf_header(struct htf *h)
{
	struct hwt_model *m = h->run.model;
	const struct hwt_trace_info *info = h->run.in->info;
	static const uint8_t kind_type[HWT_NR_ENT_KINDS] = {
		[HWT_ENT_TASK] = TYPE_TASK, [HWT_ENT_ISR] = TYPE_ISR,
		[HWT_ENT_RUNNABLE] = TYPE_RUNNABLE, [HWT_ENT_LOCK] = TYPE_SEMAPHORE,
		[HWT_ENT_MARKER] = TYPE_SIGNAL, [HWT_ENT_COUNTER] = TYPE_SIGNAL,
	};
	static const enum hwt_entity_kind order[] = {
		HWT_ENT_TASK, HWT_ENT_ISR, HWT_ENT_RUNNABLE, HWT_ENT_MARKER,
		HWT_ENT_COUNTER, HWT_ENT_LOCK,
	};
	char date[32], host[HWT_HOST_LEN * 4 + 1], rel[HWT_HOST_LEN * 4 + 1];
	char losses[1024];
	uint64_t num, den, total = 0;
	uint32_t id = 0;

	hwt_conv_ns_per_tick(info, &num, &den);
	hwt_conv_date(date, sizeof(date), info->creation_time, ' ');
	hwt_name_sanitize(host, sizeof(host), info->hostname, 0, HWT_SAN_CTRL);
	hwt_name_sanitize(rel, sizeof(rel), info->kernel_release, 0, HWT_SAN_CTRL);
	for (uint32_t c = 0; info->lost && c < info->nr_cpus; c++)
		total += info->lost[c];

	ob_puts(&h->ob, "#Format HTF\n#Version 1.0\n"
		"#URL http://wiki.eclipse.org/Auto_IWG#Publications\n"
		"#Project hwtrace\n");
	ob_printf(&h->ob, "#TargetSystem %s, Linux %s\n", host, rel);
	/* the losses where a reader looks; each gap has its lost_events write */
	hwt_conv_losses(losses, sizeof(losses), info);
	ob_printf(&h->ob, "#Description Linux kernel trace (hwtrace): %zu tasks, "
		  "%zu interrupts, %llu events lost; losses: %s\n",
		  hwt_model_count(m, HWT_ENT_TASK), hwt_model_count(m, HWT_ENT_ISR),
		  (unsigned long long)total, losses);
	ob_printf(&h->ob, "#NumberOfCores %u\n#CreationDate %s\n#TimeScale ns\n"
		  "#TimeScaleNumerator %llu\n#TimeScaleDenominator %llu\n"
		  "#TimestampLength %u\n#EntityLength %u\n#EventLength 1\n",
		  info->nr_cpus, date, (unsigned long long)num,
		  (unsigned long long)den, h->ts_digits / 2, h->ent_digits / 2);

	ob_puts(&h->ob, "\n#TypeTable\n");
	for (size_t t = 0; t < CONV_ARRAY_SIZE(type_names); t++)
		ob_printf(&h->ob, "#-%02zX %s\n", t, type_names[t]);
	for (size_t t = 0; t < CONV_ARRAY_SIZE(event_tables); t++) {
		ob_printf(&h->ob, "\n#%s\n", event_tables[t].table);
		for (size_t e = 0; e < event_tables[t].n; e++)
			ob_printf(&h->ob, "#-%02zX %s\n", e, event_tables[t].ev[e]);
	}

	/* entity ids: the kinds in this order, each sorted */
	ob_puts(&h->ob, "\n#EntityTable\n");
	for (size_t i = 0; i < CONV_ARRAY_SIZE(order); i++) {
		enum hwt_entity_kind k = order[i];

		for (size_t e = 0; e < h->names.n[k]; e++, id++) {
			if (htf_idle(m, k, e))
				continue;
			ob_puts(&h->ob, "#-");
			ob_hex(&h->ob, id, h->ent_digits);
			ob_printf(&h->ob, " %s\n", h->names.v[k][e]);
		}
	}
	ob_puts(&h->ob, "#-");
	ob_hex(&h->ob, h->lost_entity, h->ent_digits);
	ob_puts(&h->ob, " lost_events\n");

	id = 0;
	ob_puts(&h->ob, "\n#EntityTypeTable\n");
	for (size_t i = 0; i < CONV_ARRAY_SIZE(order); i++) {
		enum hwt_entity_kind k = order[i];

		for (size_t e = 0; e < h->names.n[k]; e++, id++) {
			if (htf_idle(m, k, e))
				continue;
			ob_puts(&h->ob, "#-");
			ob_hex(&h->ob, id, h->ent_digits);
			ob_printf(&h->ob, " %02X\n", kind_type[k]);
		}
	}
	ob_puts(&h->ob, "#-");
	ob_hex(&h->ob, h->lost_entity, h->ent_digits);
	ob_printf(&h->ob, " %02X\n", TYPE_SIGNAL);
	return h->ob.err;
}

/* Core c's records as datasets. */
static int htf_core_data(struct htf *h, uint32_t c, struct htf_rec *buf, size_t cap)
{
	FILE *f = h->tmp[c];
	size_t n;

	if (fflush(f) || fseek(f, 0, SEEK_SET))
		return -EIO;
	while ((n = fread(buf, sizeof(*buf), cap, f)) > 0) {
		for (size_t i = 0; i < n; i++) {
			struct htf_rec r = buf[i];
			bool lost = r.kind == HWT_ENT_NONE;
			uint32_t ent = lost ? h->lost_entity : h->ent[r.kind][r.idx];
			/* at most 16 + 8 + 2 digits; hwt_put_hex() stores words */
			char *d = ob_room(&h->ob, 16 + 8 + 16);

			if (!d)
				return h->ob.err;
			d = hwt_put_hex(d, r.ts, h->ts_digits);
			d = hwt_put_hex(d, ent, h->ent_digits);
			d[0] = "0123456789ABCDEF"[r.code >> 4];
			d[1] = "0123456789ABCDEF"[r.code & 0xF];
			h->ob.len = (size_t)(d + 2 - h->ob.buf);
			if (lost) {
				uint64_t total = 0;

				/* the total follows, maybe in the next read */
				if (++i < n)
					total = buf[i].ts;
				else if (fread(buf, sizeof(*buf), 1, f) == 1)
					total = buf[0].ts;
				ob_printf(&h->ob, " //lost %u events on core %u, %llu in all",
					  r.idx, c, (unsigned long long)total);
			}
			ob_putc(&h->ob, '\n');
		}
	}
	return ferror(f) ? -EIO : h->ob.err;
}

/* The header, then the cores' sections. */
static int htf_finish(struct htf *h)
{
	size_t cap = 4096;
	struct htf_rec *buf;
	int ret = h->err;

	for (uint32_t c = 0; !ret && c < h->nr_cpus; c++)
		if (h->tmp[c])
			ret = hwt_obuf_flush(&h->core[c]);
	if (!ret)
		ret = htf_entities(h);
	if (!ret)
		ret = htf_header(h);
	if (ret)
		return ret;
	buf = malloc(cap * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	ob_puts(&h->ob, "\n#TraceData\n");
	for (uint32_t c = 0; !ret && c < h->nr_cpus; c++) {
		/* the spec's two digits, four for every core past 256 */
		ob_printf(&h->ob, "#-%0*X\n", h->nr_cpus > 256 ? 4 : 2, c);
		if (h->tmp[c])
			ret = htf_core_data(h, c, buf, cap);
	}
	free(buf);
	return ret ? ret : h->ob.err;
}

int hwt_conv_htf(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	struct htf h = { .run = { .in = in, .opts = opts } };
	int ret;

	h.nr_cpus = in->info->nr_cpus;
	for (unsigned int t = 0; t < HWT_NR_MEV; t++)
		h.kind[t] = (uint8_t)hwt_mev_kind(t);
	h.core = calloc(h.nr_cpus ? h.nr_cpus : 1, sizeof(*h.core));
	h.tmp = calloc(h.nr_cpus ? h.nr_cpus : 1, sizeof(*h.tmp));
	ret = h.core && h.tmp ? hwt_obuf_init(&h.ob, out, HWT_OBUF_OUT) : -ENOMEM;
	if (!ret)
		ret = hwt_conv_drive(&h.run, false, false, htf_mev, &h, htf_begin);
	if (!ret)
		ret = htf_finish(&h);
	if (!ret)
		ret = hwt_obuf_flush(&h.ob);
	if (!ret && fflush(out))
		ret = -EIO;
	if (!ret && h.run.stream_err)
		ret = -EBADMSG;
	for (uint32_t c = 0; h.core && h.tmp && c < h.nr_cpus; c++) {
		if (!h.tmp[c])
			continue;
		hwt_obuf_free(&h.core[c]);
		fclose(h.tmp[c]);
	}
	for (int k = 0; k < HWT_NR_ENT_KINDS; k++)
		free(h.ent[k]);
	free(h.core);
	free(h.tmp);
	hwt_names_free(&h.names);
	hwt_obuf_free(&h.ob);
	hwt_model_free(h.run.model);
	return ret;
}
