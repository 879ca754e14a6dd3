// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * CTF 1.8, laid out as an lttng-modules 2.13 kernel trace: a directory with
 * a TSDL `metadata` file and one stream file per CPU (`channel0_<cpu>`),
 * which babeltrace2 2.0 and Trace Compass ("Linux Kernel Trace") read.
 *
 *   pass 1: the records, for the tasks alive at the start (their first
 *           sighting says what they were doing: running, runnable, blocked)
 *   pass 2: one CTF event per record, in per-CPU packets of at most
 *           CTF_PACKET bytes written as they fill; then `metadata`, which
 *           declares the event classes met (written last, so every class
 *           a record needed is known)
 *
 * Unlike the timing formats this one is record-driven: a kernel trace
 * reader wants the kernel's own events, one for each record (so per-CPU
 * event counts equal `hwtrace stats`), not the model's instances.  It
 * keeps what the records imply per task (its priority, its last CPU) and
 * per CPU (who runs), and names through conv.c like every format.
 *
 * All integers are little-endian and byte-aligned (align = 8 bits, as
 * lttng-modules on x86), so an event is its fields packed back to back.
 * Documentation/hwtrace-formats.rst has the mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <hwt/events.h>
#include "conv_internal.h"

#define CTF_MAGIC		0xC1FC1FC1u
#define CTF_PACKET		(32 * 1024)	/* bytes per packet, at most */
#define CTF_EVENT_MAX		512		/* bytes one event takes, at most */
#define CTF_HDR_SIZE		24		/* magic, uuid, stream_id */
#define CTF_CTX_SIZE		52		/* the packet context below */
#define CTF_STR_MAX		(HWT_COMM_LEN * 4 + 1)	/* a sanitized comm */
#define CTF_DEFAULT_PRIO	120		/* the kernel's prio of a nice-0 task */
#define CTF_MAX_RT_PRIO		100		/* lttng writes prio - MAX_RT_PRIO */

/* lttng_statedump_process_state's status (lttng-modules' enum). */
#define CTF_SD_UNNAMED		0
#define CTF_SD_WAIT_CPU		2
#define CTF_SD_WAIT		5
#define CTF_SD_RUN		6

/*
 * The event classes with an lttng-modules 2.13 name, and their fields in
 * TSDL (the emitter writes them in this order).  Field names carry
 * lttng's leading underscore, which readers strip ("_clock" is no keyword).
 */
enum ctf_class {
	C_STATEDUMP,
	C_SCHED_SWITCH,
	C_SCHED_WAKEUP,
	C_SCHED_WAKEUP_NEW,
	C_SCHED_FORK,
	C_SCHED_EXIT,
	C_SCHED_FREE,
	C_SCHED_EXEC,
	C_SCHED_MIGRATE,
	C_SCHED_PI_SETPRIO,
	C_IRQ_ENTRY,
	C_IRQ_EXIT,
	C_SOFTIRQ_ENTRY,
	C_SOFTIRQ_EXIT,
	C_SOFTIRQ_RAISE,
	C_TIMER_START,
	C_TIMER_CANCEL,
	C_TIMER_EXPIRE_ENTRY,
	C_TIMER_EXPIRE_EXIT,
	C_HRTIMER_START,
	C_HRTIMER_CANCEL,
	C_HRTIMER_EXPIRE_ENTRY,
	C_HRTIMER_EXPIRE_EXIT,
	C_CPU_IDLE,
	C_CPU_FREQUENCY,
	C_VECTOR_FIRST,		/* x86_irq_vectors_<name>_entry, _exit pairs */
};

static const char *const sched_task_fields =
	"string _comm; int32_t _tid; int32_t _prio;";

static const struct {
	const char *name;
	const char *fields;
} fixed_classes[C_VECTOR_FIRST] = {
	[C_STATEDUMP] = { "lttng_statedump_process_state",
		"int32_t _tid; int32_t _vtid; int32_t _pid; int32_t _vpid; "
		"int32_t _ppid; int32_t _vppid; string _name; int32_t _type; "
		"int32_t _mode; int32_t _submode; int32_t _status; int32_t _cpu;" },
	[C_SCHED_SWITCH] = { "sched_switch",
		"string _prev_comm; int32_t _prev_tid; int32_t _prev_prio; "
		"int64_t _prev_state; string _next_comm; int32_t _next_tid; "
		"int32_t _next_prio;" },
	[C_SCHED_WAKEUP] = { "sched_wakeup",
		"string _comm; int32_t _tid; int32_t _prio; int32_t _target_cpu;" },
	[C_SCHED_WAKEUP_NEW] = { "sched_wakeup_new",
		"string _comm; int32_t _tid; int32_t _prio; int32_t _target_cpu;" },
	[C_SCHED_FORK] = { "sched_process_fork",
		"string _parent_comm; int32_t _parent_tid; int32_t _parent_pid; "
		"string _child_comm; int32_t _child_tid; int32_t _child_pid;" },
	[C_SCHED_EXIT] = { "sched_process_exit", NULL },	/* sched_task_fields */
	[C_SCHED_FREE] = { "sched_process_free", NULL },
	[C_SCHED_EXEC] = { "sched_process_exec",
		"string _filename; int32_t _tid; int32_t _old_tid;" },
	[C_SCHED_MIGRATE] = { "sched_migrate_task",
		"string _comm; int32_t _tid; int32_t _prio; int32_t _orig_cpu; "
		"int32_t _dest_cpu;" },
	[C_SCHED_PI_SETPRIO] = { "sched_pi_setprio",
		"string _comm; int32_t _tid; int32_t _oldprio; int32_t _newprio;" },
	[C_IRQ_ENTRY] = { "irq_handler_entry", "int32_t _irq; string _name;" },
	[C_IRQ_EXIT] = { "irq_handler_exit", "int32_t _irq; int32_t _ret;" },
	[C_SOFTIRQ_ENTRY] = { "irq_softirq_entry", "uint32_t _vec;" },
	[C_SOFTIRQ_EXIT] = { "irq_softirq_exit", "uint32_t _vec;" },
	[C_SOFTIRQ_RAISE] = { "irq_softirq_raise", "uint32_t _vec;" },
	[C_TIMER_START] = { "timer_start", "hex64_t _timer;" },
	[C_TIMER_CANCEL] = { "timer_cancel", "hex64_t _timer;" },
	[C_TIMER_EXPIRE_ENTRY] = { "timer_expire_entry", "hex64_t _timer;" },
	[C_TIMER_EXPIRE_EXIT] = { "timer_expire_exit", "hex64_t _timer;" },
	[C_HRTIMER_START] = { "timer_hrtimer_start", "hex64_t _hrtimer;" },
	[C_HRTIMER_CANCEL] = { "timer_hrtimer_cancel", "hex64_t _hrtimer;" },
	[C_HRTIMER_EXPIRE_ENTRY] = { "timer_hrtimer_expire_entry", "hex64_t _hrtimer;" },
	[C_HRTIMER_EXPIRE_EXIT] = { "timer_hrtimer_expire_exit", "hex64_t _hrtimer;" },
	[C_CPU_IDLE] = { "power_cpu_idle", "uint32_t _state; uint32_t _cpu_id;" },
	[C_CPU_FREQUENCY] = { "power_cpu_frequency", "uint32_t _state; uint32_t _cpu_id;" },
};

/* x86 system vectors (arch/x86/include/asm/irq_vectors.h) and lttng's names. */
static const struct {
	uint8_t vector;
	const char *name;
} x86_vectors[] = {
	{ 0xec, "local_timer" },
	{ 0xf4, "deferred_error_apic" },
	{ 0xf6, "irq_work" },
	{ 0xf7, "x86_platform_ipi" },
	{ 0xf9, "threshold_apic" },
	{ 0xfa, "thermal_apic" },
	{ 0xfb, "call_function_single" },
	{ 0xfc, "call_function" },
	{ 0xfd, "reschedule" },
	{ 0xfe, "error_apic" },
	{ 0xff, "spurious_apic" },
};

#define NR_FIXED	(C_VECTOR_FIRST + 2 * CONV_ARRAY_SIZE(x86_vectors))
#define NR_CODES	0x8000		/* HWT_CODE() values */

struct ctf_task {
	uint32_t tid;		/* pid; 0 is a free slot (idle is per CPU) */
	int32_t prio;		/* kernel prio: its own (set_priority) */
	int32_t boost;		/* prio lent by inheritance, when boosted */
	bool boosted;
	bool seen;		/* pass 1: first sighting classified */
	bool at_start;		/* alive when the trace started */
	bool cpu_known;		/* cpu is where it last ran or was sent */
	uint8_t status;		/* CTF_SD_* at the start */
	uint32_t cpu;		/* pass 2: last CPU it ran on */
	uint32_t start_cpu;
	char comm[CTF_STR_MAX];	/* sanitized, "" until first needed */
};

struct ctf_stream {
	uint8_t *buf;		/* the packet being filled, header room first */
	size_t len;
	uint64_t ts_begin, ts_last;
	uint64_t seq;		/* packets written */
	uint64_t discarded;	/* running loss count, at the end of this packet */
	uint64_t disc_written;	/* the count the last packet written said */
	uint64_t lost_sum;	/* LOST records' total */
	uint32_t lost_raw;	/* last LOST par2 */
	uint32_t nr_events;	/* in the packet being filled */
	uint32_t cur;		/* pid running here (0: idle or unknown) */
	bool any;		/* an event or a packet exists */
	char idle[24];		/* "swapper/<cpu>" */
};

struct ctf {
	struct hwt_stream *in;
	const struct hwt_trace_info *info;
	int dirfd;
	int err;
	uint8_t uuid[16];
	uint64_t t0;
	uint32_t first_cpu;
	struct ctf_stream *s;
	uint32_t nr_streams;
	struct ctf_task *tasks;	/* open addressing on tid */
	size_t tcap, tn;
	uint16_t *code_class;	/* [NR_CODES] 0: none yet, else class id + 1 */
	uint16_t *class_code;	/* generic class id - NR_FIXED -> code */
	uint32_t nr_generic;
};


/* --- tasks ------------------------------------------------------------------- */

static struct ctf_task *task_get(struct ctf *c, uint32_t tid)
{
	size_t i;

	if (c->tn * 2 >= c->tcap) {
		size_t ncap = c->tcap ? 2 * c->tcap : 1024;
		struct ctf_task *n = calloc(ncap, sizeof(*n));

		if (!n) {
			c->err = -ENOMEM;
			return NULL;
		}
		for (size_t j = 0; j < c->tcap; j++) {
			if (!c->tasks[j].tid)
				continue;
			for (i = c->tasks[j].tid * 2654435761u & (ncap - 1); n[i].tid;
			     i = (i + 1) & (ncap - 1))
				;
			n[i] = c->tasks[j];
		}
		free(c->tasks);
		c->tasks = n;
		c->tcap = ncap;
	}
	for (i = tid * 2654435761u & (c->tcap - 1); c->tasks[i].tid;
	     i = (i + 1) & (c->tcap - 1))
		if (c->tasks[i].tid == tid)
			return &c->tasks[i];
	c->tasks[i].tid = tid;
	c->tasks[i].prio = CTF_DEFAULT_PRIO;
	c->tn++;
	return &c->tasks[i];
}

/* The comm of a task, sanitized once: valid UTF-8, no control characters. */
static const char *task_comm(struct ctf *c, struct ctf_task *t)
{
	if (!t->comm[0]) {
		const struct hwt_task *k = c->in->task ? c->in->task(c->in->ctx, t->tid) : NULL;
		char raw[HWT_COMM_LEN + 16];

		if (k && k->comm[0])
			snprintf(raw, sizeof(raw), "%.*s", HWT_COMM_LEN, k->comm);
		else
			snprintf(raw, sizeof(raw), "task-%u", t->tid);
		hwt_name_sanitize(t->comm, sizeof(t->comm), raw, 0, HWT_SAN_CTRL);
	}
	return t->comm;
}

static uint32_t task_tgid(struct ctf *c, uint32_t pid)
{
	const struct hwt_task *k = c->in->task && pid ? c->in->task(c->in->ctx, pid) : NULL;

	return k && k->tgid ? k->tgid : pid;
}

/* lttng's prio fields: the kernel's prio - MAX_RT_PRIO (a nice-0 task: 20). */
static int32_t task_prio(const struct ctf_task *t)
{
	return (t->boosted ? t->boost : t->prio) - CTF_MAX_RT_PRIO;
}

/* Pass 1: what a task's first sighting says about it at the start. */
static void first_seen(struct ctf *c, uint32_t pid, uint32_t cpu, uint8_t status,
		       bool born)
{
	struct ctf_task *t;

	if (!pid)
		return;
	t = task_get(c, pid);
	if (!t || t->seen)
		return;
	t->seen = true;
	t->at_start = !born;
	t->status = status;
	t->start_cpu = cpu;
}

static void learn(struct ctf *c, const struct hwt_record *r)
{
	const struct hwt_event *e = &r->ev;

	switch (HWT_CODE(e->code)) {
	case HWT_EV_TASK_SCHEDULE:
		first_seen(c, HWT_SWITCH_PREV(e), r->cpu, CTF_SD_RUN, false);
		first_seen(c, HWT_SWITCH_NEXT(e), r->cpu, CTF_SD_WAIT_CPU, false);
		break;
	case HWT_EV_ID:
		first_seen(c, e->par2, r->cpu, CTF_SD_RUN, false);
		break;
	case HWT_EV_TASK_ACTIVATE:
		/* its runqueue: the wakeup's target */
		first_seen(c, e->par2, e->par1 & ~HWT_ACTIVATE_NEW, CTF_SD_WAIT,
			   e->par1 & HWT_ACTIVATE_NEW);
		break;
	case HWT_EV_TASK_CREATE:
		first_seen(c, e->par2, r->cpu, CTF_SD_UNNAMED, true);
		break;
	case HWT_EV_TASK_END:
	case HWT_EV_TASK_EXEC:
		/* in the task's own context: it runs */
		first_seen(c, e->par2, r->cpu, CTF_SD_RUN, false);
		break;
	case HWT_EV_TASK_MIGRATE:
	case HWT_EV_SET_PRIORITY:
	case HWT_EV_INHERITANCE:
		first_seen(c, e->par2, r->cpu, CTF_SD_UNNAMED, false);
		break;
	default:
		break;
	}
}

/* --- streams and packets --------------------------------------------------------- */

static int stream_grow(struct ctf *c, uint32_t cpu)
{
	uint32_t n = c->nr_streams;
	struct ctf_stream *s;

	if (cpu < n)
		return 0;
	if (cpu >= 65536)
		return -EINVAL;
	s = realloc(c->s, (size_t)(cpu + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s + n, 0, (size_t)(cpu + 1 - n) * sizeof(*s));
	for (uint32_t i = n; i <= cpu; i++)
		snprintf(s[i].idle, sizeof(s[i].idle), "swapper/%u", i);
	c->s = s;
	c->nr_streams = cpu + 1;
	return 0;
}

static inline void put8(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Write the packet being filled (even empty) and start the next one. */
static void packet_flush(struct ctf *c, uint32_t cpu)
{
	struct ctf_stream *s = &c->s[cpu];
	uint8_t *p = s->buf;
	char name[32];
	ssize_t w;
	int fd;

	if (c->err)
		return;
	put8(p, CTF_MAGIC, 4);
	memcpy(p + 4, c->uuid, 16);
	put8(p + 20, 0, 4);				/* stream_id */
	p += CTF_HDR_SIZE;
	put8(p, s->ts_begin, 8);			/* timestamp_begin */
	put8(p + 8, s->ts_last, 8);			/* timestamp_end */
	put8(p + 16, (uint64_t)s->len * 8, 8);		/* content_size, bits */
	put8(p + 24, (uint64_t)s->len * 8, 8);		/* packet_size, bits */
	put8(p + 32, s->seq, 8);			/* packet_seq_num */
	put8(p + 40, s->discarded, 8);			/* events_discarded */
	put8(p + 48, cpu, 4);				/* cpu_id */
	snprintf(name, sizeof(name), "channel0_%u", cpu);
	fd = openat(c->dirfd, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
		    (s->seq ? 0 : O_TRUNC), 0644);
	if (fd < 0) {
		c->err = -errno;
		return;
	}
	w = write(fd, s->buf, s->len);
	if (w != (ssize_t)s->len)
		c->err = w < 0 ? -errno : -EIO;
	if (close(fd) && !c->err)
		c->err = -EIO;
	s->seq++;
	s->disc_written = s->discarded;
	s->any = true;
	s->len = CTF_HDR_SIZE + CTF_CTX_SIZE;
	s->nr_events = 0;
	s->ts_begin = s->ts_last;
}

static void set_discarded(struct ctf *c, uint32_t cpu, uint64_t ts, uint64_t total);

static int stream_open(struct ctf *c, uint32_t cpu, uint64_t ts)
{
	struct ctf_stream *s;
	int ret = stream_grow(c, cpu);

	if (ret)
		return ret;
	s = &c->s[cpu];
	if (s->buf)
		return 0;
	s->buf = malloc(CTF_PACKET);
	if (!s->buf)
		return -ENOMEM;
	s->len = CTF_HDR_SIZE + CTF_CTX_SIZE;
	s->ts_begin = s->ts_last = ts;
	/* a CYC ring overwrote its oldest records: lost before this one */
	if (c->info->overwritten && cpu < c->info->nr_cpus)
		set_discarded(c, cpu, ts, c->info->overwritten[cpu]);
	return c->err;
}

/*
 * The loss count of a CPU becomes total from ts on.  A packet says the
 * count at its end, and readers report the difference between two packets
 * of a stream: so the packet before the change is closed first (an empty
 * one if the stream has none yet: the first packet's count is 0).
 */
static void set_discarded(struct ctf *c, uint32_t cpu, uint64_t ts, uint64_t total)
{
	struct ctf_stream *s = &c->s[cpu];

	if (total <= s->discarded)
		return;
	if (ts > s->ts_last)
		s->ts_last = ts;
	if (s->nr_events || !s->seq)
		packet_flush(c, cpu);
	s->discarded = total;
}

/* Room for one event of cpu at ts (never before the stream's last). */
static uint8_t *event_begin(struct ctf *c, uint32_t cpu, uint64_t *ts, unsigned int id)
{
	struct ctf_stream *s = &c->s[cpu];
	uint8_t *p;

	if (*ts < s->ts_last)
		*ts = s->ts_last;
	if (s->len + CTF_EVENT_MAX > CTF_PACKET)
		packet_flush(c, cpu);
	if (!s->nr_events)
		s->ts_begin = *ts;
	s->ts_last = *ts;
	s->nr_events++;
	p = s->buf + s->len;
	put8(p, id, 2);
	put8(p + 2, *ts, 8);
	return p + 10;
}

static inline void event_end(struct ctf *c, uint32_t cpu, const uint8_t *end)
{
	c->s[cpu].len = (size_t)(end - c->s[cpu].buf);
}

static inline uint8_t *put_u32(uint8_t *p, uint32_t v)
{
	put8(p, v, 4);
	return p + 4;
}

static inline uint8_t *put_u64(uint8_t *p, uint64_t v)
{
	put8(p, v, 8);
	return p + 8;
}

/* A sanitized string of at most CTF_STR_MAX - 1 bytes, NUL-terminated. */
static inline uint8_t *put_str(uint8_t *p, const char *s)
{
	size_t n = strnlen(s, CTF_STR_MAX - 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p + n + 1;
}

/* --- event classes ------------------------------------------------------------------ */

/* The hwtrace-only class of a record's code, made when first met. */
static uint16_t generic_class(struct ctf *c, uint16_t code)
{
	if (!c->code_class[code]) {
		c->class_code[c->nr_generic] = code;
		c->code_class[code] = (uint16_t)(NR_FIXED + c->nr_generic + 1);
		c->nr_generic++;
	}
	return (uint16_t)(c->code_class[code] - 1);
}

static int vector_class(uint32_t vector, bool exit)
{
	for (size_t i = 0; i < CONV_ARRAY_SIZE(x86_vectors); i++)
		if (x86_vectors[i].vector == vector)
			return (int)(C_VECTOR_FIRST + 2 * i + exit);
	return -1;
}

/* --- records -> events ----------------------------------------------------------- */

static const char *comm_of(struct ctf *c, uint32_t pid, uint32_t cpu, struct ctf_task **tp)
{
	struct ctf_task *t;

	*tp = NULL;
	if (!pid)
		return c->s[cpu].idle;
	t = task_get(c, pid);
	if (!t)
		return "";
	*tp = t;
	return task_comm(c, t);
}

static int32_t prio_of(const struct ctf_task *t)
{
	return t ? task_prio(t) : CTF_DEFAULT_PRIO - CTF_MAX_RT_PRIO;
}

static uint8_t *put_task(struct ctf *c, uint8_t *p, uint32_t pid, uint32_t cpu)
{
	struct ctf_task *t;

	p = put_str(p, comm_of(c, pid, cpu, &t));
	p = put_u32(p, pid);
	return put_u32(p, (uint32_t)prio_of(t));
}

/*
 * The parameter names of a code from the event table ("-": unused, NULL:
 * the table does not say); a filter change's par1 is the new status.
 */
static void generic_pars(uint16_t code, const char **p1, const char **p2)
{
	if (code >= HWT_EV_FILTER_BASE && code < HWT_EV_NEXT_CHUNK) {
		*p1 = "status";
		*p2 = "-";
		return;
	}
	*p1 = hwt_event_par1(code);
	*p2 = hwt_event_par2(code);
}

static void emit_generic(struct ctf *c, const struct hwt_record *r, uint64_t ts)
{
	uint16_t code = HWT_CODE(r->ev.code);
	const char *p1, *p2;
	uint8_t *p;

	generic_pars(code, &p1, &p2);

	p = event_begin(c, r->cpu, &ts, generic_class(c, code));
	if (!p1 || strcmp(p1, "-"))
		p = put_u32(p, r->ev.par1);
	if (!p2 || strcmp(p2, "-"))
		p = put_u32(p, r->ev.par2);
	event_end(c, r->cpu, p);
}

static void emit(struct ctf *c, const struct hwt_record *r)
{
	const struct hwt_event *e = &r->ev;
	struct ctf_stream *s = &c->s[r->cpu];
	uint32_t cpu = r->cpu;
	uint64_t ts = r->ts;
	struct ctf_task *t;
	uint8_t *p = NULL;
	int cls;

	switch (HWT_CODE(e->code)) {
	case HWT_EV_TASK_SCHEDULE: {
		uint32_t prev = HWT_SWITCH_PREV(e), next = HWT_SWITCH_NEXT(e);

		p = event_begin(c, cpu, &ts, C_SCHED_SWITCH);
		p = put_str(p, comm_of(c, prev, cpu, &t));
		p = put_u32(p, prev);
		p = put_u32(p, (uint32_t)prio_of(t));
		p = put_u64(p, hwt_conv_report_state(HWT_SWITCH_STATE(e)));
		p = put_task(c, p, next, cpu);
		if (next && (t = task_get(c, next))) {
			t->cpu = cpu;
			t->cpu_known = true;
		}
		s->cur = next;
		if (HWT_SWITCH_STATE(e) != HWT_STATE_DEAD || !prev)
			break;
		/*
		 * Its final switch-out: the task is gone.  No record says when
		 * the kernel frees it; readers end a thread at sched_process_free
		 * (Trace Compass), so it follows here, synthesized.
		 */
		event_end(c, cpu, p);
		p = event_begin(c, cpu, &ts, C_SCHED_FREE);
		p = put_task(c, p, prev, cpu);
		break;
	}
	case HWT_EV_TASK_ACTIVATE:
		if (!e->par2)
			break;
		p = event_begin(c, cpu, &ts, e->par1 & HWT_ACTIVATE_NEW ?
				C_SCHED_WAKEUP_NEW : C_SCHED_WAKEUP);
		p = put_task(c, p, e->par2, cpu);
		p = put_u32(p, e->par1 & ~HWT_ACTIVATE_NEW);
		break;
	case HWT_EV_TASK_CREATE: {
		/* taken in the parent's context: the task running here */
		uint32_t parent = s->cur;

		p = event_begin(c, cpu, &ts, C_SCHED_FORK);
		p = put_str(p, comm_of(c, parent, cpu, &t));
		p = put_u32(p, parent);
		p = put_u32(p, task_tgid(c, parent));
		p = put_str(p, comm_of(c, e->par2, cpu, &t));
		p = put_u32(p, e->par2);
		p = put_u32(p, task_tgid(c, e->par2));
		if (t) {
			/* a child has its parent's own priority, no boost */
			struct ctf_task *pt = parent ? task_get(c, parent) : NULL;
			int32_t prio = pt ? pt->prio : CTF_DEFAULT_PRIO;

			t = task_get(c, e->par2);	/* pt may have moved */
			if (t) {
				t->prio = prio;
				t->boosted = false;
			}
		}
		break;
	}
	case HWT_EV_TASK_END:
		p = event_begin(c, cpu, &ts, C_SCHED_EXIT);
		p = put_task(c, p, e->par2, cpu);
		break;
	case HWT_EV_TASK_EXEC:
		/* the path is not recorded: the new comm stands for it */
		p = event_begin(c, cpu, &ts, C_SCHED_EXEC);
		p = put_str(p, comm_of(c, e->par2, cpu, &t));
		p = put_u32(p, e->par2);
		p = put_u32(p, e->par2);
		break;
	case HWT_EV_TASK_MIGRATE:
		p = event_begin(c, cpu, &ts, C_SCHED_MIGRATE);
		p = put_task(c, p, e->par2, cpu);
		t = e->par2 ? task_get(c, e->par2) : NULL;
		p = put_u32(p, t && t->cpu_known ? t->cpu : cpu);
		p = put_u32(p, e->par1);
		if (t) {
			t->cpu = e->par1;
			t->cpu_known = true;
		}
		break;
	case HWT_EV_SET_PRIORITY:
		/* the task's own priority: no lttng event, the fields show it */
		if (e->par2 && (t = task_get(c, e->par2)))
			t->prio = e->par1;
		emit_generic(c, r, ts);
		return;
	case HWT_EV_INHERITANCE:
		p = event_begin(c, cpu, &ts, C_SCHED_PI_SETPRIO);
		p = put_task(c, p, e->par2, cpu);	/* oldprio */
		p = put_u32(p, (uint32_t)(e->par1 - CTF_MAX_RT_PRIO));
		if (e->par2 && (t = task_get(c, e->par2))) {
			/* back to its own priority: no longer boosted */
			t->boosted = e->par1 != t->prio;
			t->boost = e->par1;
		}
		break;
	case HWT_EV_INTERRUPT_START: {
		const char *n = c->in->irq_name ? c->in->irq_name(c->in->ctx, e->par1) : NULL;
		char clean[HWT_NAME_MAX * 4 + 1];

		hwt_name_sanitize(clean, sizeof(clean), n ? n : "", 0, HWT_SAN_CTRL);
		p = event_begin(c, cpu, &ts, C_IRQ_ENTRY);
		p = put_u32(p, e->par1);
		memcpy(p, clean, strlen(clean) + 1);
		p += strlen(clean) + 1;
		break;
	}
	case HWT_EV_INTERRUPT_END:
		p = event_begin(c, cpu, &ts, C_IRQ_EXIT);
		p = put_u32(p, e->par1);
		p = put_u32(p, e->par2);
		break;
	case HWT_EV_SOFTIRQ_START:
	case HWT_EV_SOFTIRQ_END:
	case HWT_EV_SOFTIRQ_RAISE:
		cls = HWT_CODE(e->code) == HWT_EV_SOFTIRQ_START ? C_SOFTIRQ_ENTRY :
		      HWT_CODE(e->code) == HWT_EV_SOFTIRQ_END ? C_SOFTIRQ_EXIT :
		      C_SOFTIRQ_RAISE;
		p = event_begin(c, cpu, &ts, (unsigned int)cls);
		p = put_u32(p, e->par1);
		break;
	case HWT_EV_VECTOR_START:
	case HWT_EV_VECTOR_END:
		cls = vector_class(e->par1, HWT_CODE(e->code) == HWT_EV_VECTOR_END);
		if (cls < 0)
			break;
		p = event_begin(c, cpu, &ts, (unsigned int)cls);
		p = put_u32(p, e->par1);
		break;
	case HWT_EV_TIMER_POST:
	case HWT_EV_TIMER_DELETE:
	case HWT_EV_TIMER_WAKEUP_START:
	case HWT_EV_TIMER_WAKEUP_END:
		if (e->par1 > 1)
			break;		/* a kind lttng has no event for */
		cls = (e->par1 ? C_HRTIMER_START : C_TIMER_START) +
		      (HWT_CODE(e->code) >> 4);
		p = event_begin(c, cpu, &ts, (unsigned int)cls);
		p = put_u64(p, e->par2);
		break;
	case HWT_EV_IDLE_ENTER:
	case HWT_EV_IDLE_EXIT:
		p = event_begin(c, cpu, &ts, C_CPU_IDLE);
		p = put_u32(p, HWT_CODE(e->code) == HWT_EV_IDLE_EXIT ? UINT32_MAX : e->par1);
		p = put_u32(p, cpu);
		break;
	case HWT_EV_FREQUENCY:
		p = event_begin(c, cpu, &ts, C_CPU_FREQUENCY);
		p = put_u32(p, e->par2);
		p = put_u32(p, e->par1);
		break;
	case HWT_EV_LOST: {
		/* a running total; a smaller value is a new counter (another chunk) */
		uint32_t raw = e->par2;

		s->lost_sum += raw >= s->lost_raw ? raw - s->lost_raw : raw;
		s->lost_raw = raw;
		set_discarded(c, cpu, ts, s->lost_sum +
			      (c->info->overwritten ? c->info->overwritten[cpu] : 0));
		break;
	}
	default:
		break;
	}
	if (p)
		event_end(c, cpu, p);
	else
		emit_generic(c, r, ts);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* At t0, on the first record's CPU: every task alive at the start, by tid. */
static void emit_statedump(struct ctf *c)
{
	uint32_t *tids = malloc((c->tn ? c->tn : 1) * sizeof(*tids));
	size_t n = 0;

	if (!tids) {
		c->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < c->tcap; i++)
		if (c->tasks[i].tid && c->tasks[i].at_start)
			tids[n++] = c->tasks[i].tid;
	qsort(tids, n, sizeof(*tids), cmp_u32);
	for (size_t i = 0; i < n; i++) {
		struct ctf_task *t = task_get(c, tids[i]);
		uint32_t tgid = task_tgid(c, tids[i]);
		uint64_t ts = c->t0;
		uint8_t *p;

		if (!t)
			break;
		p = event_begin(c, c->first_cpu, &ts, C_STATEDUMP);
		p = put_u32(p, t->tid);
		p = put_u32(p, t->tid);
		p = put_u32(p, tgid);
		p = put_u32(p, tgid);
		p = put_u32(p, 0);		/* ppid: not recorded */
		p = put_u32(p, 0);
		p = put_str(p, task_comm(c, t));
		p = put_u32(p, 0);		/* type: user thread */
		p = put_u32(p, 0);		/* mode: unknown */
		p = put_u32(p, 0);		/* submode: none */
		p = put_u32(p, t->status);
		p = put_u32(p, t->start_cpu);
		event_end(c, c->first_cpu, p);
	}
	free(tids);
}

/* --- metadata ------------------------------------------------------------------------ */

/* A TSDL string literal: printable ASCII, anything else as the text \xHH. */
static void tsdl_str(struct hwt_obuf *o, const char *s)
{
	ob_putc(o, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			ob_putc(o, '\\');
			ob_putc(o, (char)*p);
		} else if (*p >= 0x20 && *p < 0x7F) {
			ob_putc(o, (char)*p);
		} else {
			ob_printf(o, "\\\\x%02x", *p);
		}
	}
	ob_putc(o, '"');
}

/* A parameter name of the event table as a field name: "dest cpu" -> "_dest_cpu". */
static void field_name(char *dst, size_t size, const char *par, const char *dflt)
{
	size_t n = 0;

	if (!par || !par[0]) {
		snprintf(dst, size, "_%s", dflt);
		return;
	}
	dst[n++] = '_';
	for (; *par && n + 1 < size; par++)
		dst[n++] = (*par >= 'a' && *par <= 'z') || (*par >= 'A' && *par <= 'Z') ||
			   (*par >= '0' && *par <= '9') ? *par : '_';
	dst[n] = '\0';
}

static void meta_event(struct hwt_obuf *o, unsigned int id, const char *name,
		       const char *fields)
{
	ob_printf(o, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n", name, id);
	if (fields)
		ob_printf(o, "\tfields := struct { %s };\n", fields);
	ob_puts(o, "};\n\n");
}

static void meta_generic(struct hwt_obuf *o, unsigned int id, uint16_t code)
{
	const char *name = hwt_event_name(code);
	const char *p1, *p2;
	char f1[48], f2[48], fields[128], ev[48];

	generic_pars(code, &p1, &p2);

	if (name)
		snprintf(ev, sizeof(ev), "hwtrace_%s", name);
	else
		snprintf(ev, sizeof(ev), "hwtrace_event_0x%04x", code);
	field_name(f1, sizeof(f1), p1, "par1");
	field_name(f2, sizeof(f2), p2, "par2");
	if (!strcmp(f1, f2)) {		/* "free, free" */
		snprintf(f1, sizeof(f1), "_par1");
		snprintf(f2, sizeof(f2), "_par2");
	}
	fields[0] = '\0';
	if (!p1 || strcmp(p1, "-"))
		snprintf(fields, sizeof(fields), "uint32_t %s;", f1);
	if (!p2 || strcmp(p2, "-"))
		snprintf(fields + strlen(fields), sizeof(fields) - strlen(fields),
			 "%suint32_t %s;", fields[0] ? " " : "", f2);
	meta_event(o, id, ev, fields[0] ? fields : NULL);
}

static const char *chunk_mode_name(uint32_t mode)
{
	return mode == HWT_CHUNK_CYC ? "cyc" : mode == HWT_CHUNK_JTN ? "jtn" : "stop";
}

static int write_metadata(struct ctf *c)
{
	const struct hwt_trace_info *info = c->info;
	bool tsc = info->clock == HWT_CLOCK_TSC && info->cycles_per_msec;
	uint64_t lost = 0, ow = 0;
	struct hwt_obuf o;
	char uuid[40], date[32];
	int fd, ret;

	for (uint32_t i = 0; i < info->nr_cpus; i++) {
		lost += info->lost ? info->lost[i] : 0;
		ow += info->overwritten ? info->overwritten[i] : 0;
	}
	for (int i = 0, n = 0; i < 16; i++)
		n += snprintf(uuid + n, sizeof(uuid) - (size_t)n, "%02x%s", c->uuid[i],
			      i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	{
		/* ISO 8601 basic, UTC, as lttng-tools writes it: 20261125T041500+0000 */
		time_t t = (time_t)info->creation_time;
		struct tm tm;

		if (!gmtime_r(&t, &tm))
			memset(&tm, 0, sizeof(tm));
		strftime(date, sizeof(date), "%Y%m%dT%H%M%S+0000", &tm);
	}
	ret = hwt_obuf_init(&o, NULL, 1 << 14);
	if (ret)
		return ret;
	ob_puts(&o, "/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; base = 16; } := hex64_t;\n"
		"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n\n");
	ob_printf(&o, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n"
		  "\tbyte_order = le;\n\tpacket.header := struct {\n"
		  "\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n\t\tuint32_t stream_id;\n"
		  "\t};\n};\n\n", uuid);
	ob_puts(&o, "env {\n\tdomain = \"kernel\";\n\ttracer_name = \"lttng-modules\";\n"
		"\ttracer_major = 2;\n\ttracer_minor = 13;\n\ttracer_patchlevel = 0;\n"
		"\ttrace_buffering_scheme = \"global\";\n\tsysname = \"Linux\";\n"
		"\thostname = ");
	tsdl_str(&o, info->hostname);
	ob_puts(&o, ";\n\tkernel_release = ");
	tsdl_str(&o, info->kernel_release);
	ob_puts(&o, ";\n\tkernel_version = \"\";\n\ttrace_name = \"hwtrace\";\n"
		"\ttrace_creation_datetime = ");
	tsdl_str(&o, date);
	ob_printf(&o, ";\n\thwtrace_version = \"%s\";\n\thwtrace_clock = \"%s\";\n"
		  "\thwtrace_cycles_per_msec = %llu;\n\thwtrace_backend = ",
		  HWT_VERSION, info->clock == HWT_CLOCK_TSC ? "tsc" : "mono",
		  (unsigned long long)info->cycles_per_msec);
	tsdl_str(&o, info->backend);
	ob_printf(&o, ";\n\thwtrace_chunk_mode = \"%s\";\n\thwtrace_families = %u;\n"
		  "\thwtrace_lost = %llu;\n\thwtrace_overwritten = %llu;\n};\n\n",
		  chunk_mode_name(info->chunk_mode), info->families,
		  (unsigned long long)lost, (unsigned long long)ow);
	/*
	 * The records' own ticks: no realtime reference in a .hwt (its
	 * creation time has one-second resolution and no tick beside it), so
	 * the offset is 0 and times count from the clock's origin (boot).
	 */
	ob_printf(&o, "clock {\n\tname = \"%s\";\n\tuuid = \"%s\";\n"
		  "\tdescription = \"%s\";\n\tfreq = %llu;\n\tprecision = 1;\n"
		  "\toffset_s = 0;\n\toffset = 0;\n\tabsolute = FALSE;\n};\n\n",
		  tsc ? "tsc" : "monotonic", uuid,
		  tsc ? "CPU cycle counter, as recorded" : "CLOCK_MONOTONIC, ns",
		  (unsigned long long)(hwt_conv_cpm(info) * 1000));
	ob_printf(&o, "typealias integer { size = 64; align = 8; signed = false; "
		  "map = clock.%s.value; } := uint64_clock_t;\n\n",
		  tsc ? "tsc" : "monotonic");
	ob_puts(&o, "stream {\n\tid = 0;\n"
		"\tevent.header := struct {\n\t\tuint16_t id;\n"
		"\t\tuint64_clock_t timestamp;\n\t};\n"
		"\tpacket.context := struct {\n"
		"\t\tuint64_clock_t timestamp_begin;\n"
		"\t\tuint64_clock_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
		"\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
		"\t\tuint32_t cpu_id;\n\t};\n};\n\n");
	for (unsigned int i = 0; i < C_VECTOR_FIRST; i++)
		meta_event(&o, i, fixed_classes[i].name,
			   fixed_classes[i].fields ? fixed_classes[i].fields :
			   sched_task_fields);
	for (unsigned int i = 0; i < CONV_ARRAY_SIZE(x86_vectors); i++) {
		char name[64];

		for (unsigned int x = 0; x < 2; x++) {
			snprintf(name, sizeof(name), "x86_irq_vectors_%s_%s",
				 x86_vectors[i].name, x ? "exit" : "entry");
			meta_event(&o, C_VECTOR_FIRST + 2 * i + x, name, "int32_t _vector;");
		}
	}
	for (uint32_t i = 0; i < c->nr_generic; i++)
		meta_generic(&o, NR_FIXED + i, c->class_code[i]);
	if (o.err) {
		ret = o.err;
		goto out;
	}
	fd = openat(c->dirfd, "metadata", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = write(fd, o.buf, o.len) == (ssize_t)o.len ? 0 : -EIO;
	if (close(fd) && !ret)
		ret = -EIO;
out:
	hwt_obuf_free(&o);
	return ret;
}

/* --- the driver -------------------------------------------------------------------------- */

/* A name for the trace that is the same for the same input (reproducible). */
static void make_uuid(struct ctf *c, uint64_t nr)
{
	const struct hwt_trace_info *info = c->info;
	uint64_t h[2] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };
	uint64_t v[] = { info->nr_cpus, info->clock, info->cycles_per_msec,
			 (uint64_t)info->creation_time, c->t0, nr };

	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < CONV_ARRAY_SIZE(v); i++)
			for (int b = 0; b < 64; b += 8)
				h[k] = (h[k] ^ ((v[i] >> b) & 0xFF)) * 0x100000001b3ull;
		for (const char *s = info->hostname; *s; s++)
			h[k] = (h[k] ^ (uint8_t)*s) * 0x100000001b3ull;
	}
	put8(c->uuid, h[0], 8);
	put8(c->uuid + 8, h[1], 8);
	c->uuid[6] = (uint8_t)((c->uuid[6] & 0x0F) | 0x40);	/* version 4 */
	c->uuid[8] = (uint8_t)((c->uuid[8] & 0x3F) | 0x80);	/* RFC 4122 */
}

/* Every CPU gets a stream; each ends with its final loss count. */
static void finish_streams(struct ctf *c, uint64_t t_end)
{
	const struct hwt_trace_info *info = c->info;

	for (uint32_t cpu = 0; cpu < c->nr_streams && !c->err; cpu++) {
		struct ctf_stream *s = &c->s[cpu];
		uint64_t ow = info->overwritten && cpu < info->nr_cpus ?
			      info->overwritten[cpu] : 0;
		uint64_t lost = info->lost && cpu < info->nr_cpus ? info->lost[cpu] : 0;

		if (!s->buf && stream_open(c, cpu, s->any ? s->ts_last : t_end)) {
			c->err = -ENOMEM;
			return;
		}
		/* info->lost may count more than the LOST records said */
		set_discarded(c, cpu, s->ts_last,
			      (lost > s->lost_sum ? lost : s->lost_sum) + ow);
		if (s->nr_events || !s->seq || s->discarded != s->disc_written)
			packet_flush(c, cpu);
		free(s->buf);
		s->buf = NULL;
	}
}

static int check_dir(const char *dir, int *dirfd)
{
	struct dirent *d;
	DIR *dp;
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dp = fdopendir(dup(fd));
	if (!dp) {
		close(fd);
		return -errno;
	}
	while ((d = readdir(dp))) {
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			closedir(dp);
			close(fd);
			return -ENOTEMPTY;
		}
	}
	closedir(dp);
	*dirfd = fd;
	return 0;
}

int hwt_conv_ctf(struct hwt_stream *in, const char *dir, const struct hwt_conv_opts *opts)
{
	struct ctf c = { .in = in, .info = in->info, .dirfd = -1 };
	struct hwt_record rec;
	uint64_t n = 0, limit = 0, t_end = 0;
	int ret, stream_err = 0;
	bool any = false;

	(void)opts;
	if (!in->rewind || in->rewind(in->ctx))
		return -ESPIPE;
	ret = check_dir(dir, &c.dirfd);
	if (ret)
		return ret;
	c.code_class = calloc(NR_CODES, sizeof(*c.code_class));
	c.class_code = calloc(NR_CODES, sizeof(*c.class_code));
	if (!c.code_class || !c.class_code) {
		ret = -ENOMEM;
		goto out;
	}
	/* pass 1: who was alive at the start */
	while ((ret = in->next(in->ctx, &rec)) > 0) {
		if (!n) {
			c.t0 = rec.ts;
			c.first_cpu = rec.cpu;
		}
		n++;
		learn(&c, &rec);
		if (c.err) {
			ret = c.err;
			goto out;
		}
	}
	if (ret < 0) {
		stream_err = ret;
		limit = n;
	}
	make_uuid(&c, n);
	if (in->rewind(in->ctx)) {
		ret = -EIO;
		goto out;
	}
	/* pass 2: the events */
	for (uint64_t i = 0; !stream_err || i < limit; i++) {
		ret = in->next(in->ctx, &rec);
		if (ret <= 0) {
			if (ret < 0 && !stream_err)
				stream_err = ret;
			break;
		}
		ret = stream_open(&c, rec.cpu, rec.ts);
		if (ret)
			goto out;
		if (!any) {
			/* the statedump, on the first record's CPU at t0 */
			any = true;
			ret = stream_open(&c, c.first_cpu, c.t0);
			if (ret)
				goto out;
			emit_statedump(&c);
		}
		emit(&c, &rec);
		if (rec.ts > t_end)
			t_end = rec.ts;
		if (c.err) {
			ret = c.err;
			goto out;
		}
	}
	if (c.info->nr_cpus && (ret = stream_grow(&c, c.info->nr_cpus - 1)))
		goto out;
	finish_streams(&c, t_end ? t_end : c.t0);
	ret = c.err;
	if (!ret)
		ret = write_metadata(&c);
	if (!ret && stream_err)
		ret = -EBADMSG;
out:
	for (uint32_t i = 0; i < c.nr_streams; i++)
		free(c.s[i].buf);
	free(c.s);
	free(c.tasks);
	free(c.code_class);
	free(c.class_code);
	if (c.dirfd >= 0)
		close(c.dirfd);
	return ret;
}
