// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The BPF backend's userspace half: load hwt.bpf.c (embedded by a bpftool
 * skeleton), size and map its per-CPU rings, attach what the kernel has and
 * the caller wants, start and stop each CPU, drain the rings with libhwt's
 * ring protocol and collect names.  include/hwt/bpf.h is the API.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <hwt/bpf.h>
#include "internal.h"
#include "hwt.skel.h"

#define NAMES	HWT_NR_FAMILIES		/* not a family: name records */
#define ALWAYS	(HWT_NR_FAMILIES + 1)	/* fork/exec: events and names */

/*
 * kmod/probes.c's table, program by program: a tracepoint, or (nargs > 0)
 * a kernel function traced on return, as the module's kretprobes.  A
 * function may be missing from a kernel or changed (static functions get
 * inlined, or their arguments dropped): such a program is loaded only if
 * BTF shows the function as the program expects it (nargs parameters, the
 * first a struct task_struct *, an int returned if ret_int), and is counted
 * missing, not fatal, if the kernel refuses to load or attach it.
 */
static const struct prog_desc {
	const char *prog;
	const char *tp;			/* or the function */
	unsigned int family;
	unsigned int nargs;		/* 0: a tracepoint */
	bool ret_int;
} progs[] = {
#define TP(prog, tp, fam)			{ prog, tp, fam, 0, false }
#define FN(prog, fn, fam, nargs, ret_int)	{ prog, fn, fam, nargs, ret_int }
	TP("hwt_sched_switch", "sched_switch", HWT_FAM_TASK),
	TP("hwt_sched_wakeup", "sched_wakeup", HWT_FAM_TASK),
	TP("hwt_sched_wakeup_new", "sched_wakeup_new", HWT_FAM_TASK),
	TP("hwt_sched_process_fork", "sched_process_fork", ALWAYS),
	TP("hwt_sched_process_exit", "sched_process_exit", HWT_FAM_TASK),
	TP("hwt_sched_process_exec", "sched_process_exec", ALWAYS),
	TP("hwt_sched_migrate_task", "sched_migrate_task", HWT_FAM_TASK),
	TP("hwt_task_rename", "task_rename", NAMES),
	TP("hwt_sched_pi_setprio", "sched_pi_setprio", HWT_FAM_PRIORITY),
	FN("hwt_set_user_nice", "set_user_nice", HWT_FAM_PRIORITY, 2, false),
	FN("hwt_sched_setscheduler", "__sched_setscheduler", HWT_FAM_PRIORITY, 4, true),
	TP("hwt_irq_handler_entry", "irq_handler_entry", HWT_FAM_INTERRUPT),
	TP("hwt_irq_handler_exit", "irq_handler_exit", HWT_FAM_INTERRUPT),
	TP("hwt_softirq_entry", "softirq_entry", HWT_FAM_INTERRUPT),
	TP("hwt_softirq_exit", "softirq_exit", HWT_FAM_INTERRUPT),
	TP("hwt_softirq_raise", "softirq_raise", HWT_FAM_INTERRUPT),
	TP("hwt_local_timer_entry", "local_timer_entry", HWT_FAM_INTERRUPT),
	TP("hwt_local_timer_exit", "local_timer_exit", HWT_FAM_INTERRUPT),
	TP("hwt_reschedule_entry", "reschedule_entry", HWT_FAM_INTERRUPT),
	TP("hwt_reschedule_exit", "reschedule_exit", HWT_FAM_INTERRUPT),
	TP("hwt_call_function_entry", "call_function_entry", HWT_FAM_INTERRUPT),
	TP("hwt_call_function_exit", "call_function_exit", HWT_FAM_INTERRUPT),
	TP("hwt_call_function_single_entry", "call_function_single_entry", HWT_FAM_INTERRUPT),
	TP("hwt_call_function_single_exit", "call_function_single_exit", HWT_FAM_INTERRUPT),
	TP("hwt_irq_work_entry", "irq_work_entry", HWT_FAM_INTERRUPT),
	TP("hwt_irq_work_exit", "irq_work_exit", HWT_FAM_INTERRUPT),
	TP("hwt_timer_start", "timer_start", HWT_FAM_TIMER),
	TP("hwt_timer_cancel", "timer_cancel", HWT_FAM_TIMER),
	TP("hwt_timer_expire_entry", "timer_expire_entry", HWT_FAM_TIMER),
	TP("hwt_timer_expire_exit", "timer_expire_exit", HWT_FAM_TIMER),
	TP("hwt_hrtimer_start", "hrtimer_start", HWT_FAM_TIMER),
	TP("hwt_hrtimer_cancel", "hrtimer_cancel", HWT_FAM_TIMER),
	TP("hwt_hrtimer_expire_entry", "hrtimer_expire_entry", HWT_FAM_TIMER),
	TP("hwt_hrtimer_expire_exit", "hrtimer_expire_exit", HWT_FAM_TIMER),
	TP("hwt_contention_begin", "contention_begin", HWT_FAM_MUTEX),
	TP("hwt_contention_end", "contention_end", HWT_FAM_MUTEX),
	TP("hwt_signal_generate", "signal_generate", HWT_FAM_SIGNAL),
	TP("hwt_signal_deliver", "signal_deliver", HWT_FAM_SIGNAL),
	TP("hwt_cpu_idle", "cpu_idle", HWT_FAM_CPU),
	TP("hwt_cpu_frequency", "cpu_frequency", HWT_FAM_CPU),
#undef TP
#undef FN
};

#define NR_PROGS	ARRAY_SIZE(progs)

struct hwt_bpf {
	struct hwt_bpf_skel *skel;
	struct bpf_link *links[NR_PROGS];
	struct ring_buffer *names_rb;
	uint32_t nr_cpus, nr_slots, normal_slots, mode;
	unsigned int nr_attached, nr_missing;
	bool want[NR_PROGS];		/* asked for and loadable here */
	struct hwt_ring_meta *meta;		/* [nr_cpus] */
	const struct hwt_event *ring;		/* [nr_cpus * nr_slots] */
	struct hwt_bpf_cpu *cpus;		/* [nr_cpus] */
	size_t meta_len, ring_len, cpus_len;
	bool started, stopped;		/* one start and one stop per open */
	/* names from the ring buffer and the task iterator, until read */
	struct hwt_name *names;
	size_t nr_names, cap_names, names_head;
	int names_err;
};

/* hwt.bpf.c's per-CPU writer state and constants, as the programs see them */
#include "hwt_bpf_shared.h"

/* --- libbpf's messages --------------------------------------------------- */

static int log_verbose;
static char log_first[256];		/* first warning since the last reset */
static char log_prog[64];		/* first program a warning names */

static void log_reset(void)
{
	log_first[0] = '\0';
	log_prog[0] = '\0';
}

/* "libbpf: prog 'NAME': ..." -> NAME */
static void prog_from_msg(const char *msg, char *prog, size_t size)
{
	const char *p = strstr(msg, "prog '");
	const char *e;

	if (!p)
		return;
	p += 6;
	e = strchr(p, '\'');
	if (e && e > p && (size_t)(e - p) < size) {
		memcpy(prog, p, (size_t)(e - p));
		prog[e - p] = '\0';
	}
}

/*
 * Keep the first warning and the first program named in a warning (the
 * one the verifier refused: libbpf names it in every message about it),
 * whatever the verbosity; print warnings and infos (the verifier's log is
 * a warning) if verbose, debug messages too if verbose > 1.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN && (!log_first[0] || !log_prog[0])) {
		char msg[256];
		va_list aq;
		size_t n;

		va_copy(aq, ap);
		vsnprintf(msg, sizeof(msg), fmt, aq);
		va_end(aq);
		if (!log_prog[0])
			prog_from_msg(msg, log_prog, sizeof(log_prog));
		if (!log_first[0]) {
			n = strlen(msg);
			while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
				msg[--n] = '\0';
			memcpy(log_first, msg, n + 1);
		}
	}
	if (log_verbose > (level == LIBBPF_DEBUG))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* What this kernel lacks: shown with the verbose messages, else at info. */
static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_verbose)
		fprintf(stderr, "libhwt: bpf: %s\n", msg);
	else
		pr_info("bpf: %s\n", msg);
}

/* --- checks before any bpf() call ---------------------------------------- */

unsigned int hwt_bpf_missing_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	unsigned int missing = 0;
	uint64_t eff;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return 0;	/* cannot tell: let the kernel decide */
	eff = (uint64_t)data[1].effective << 32 | data[0].effective;
#define HAS(cap)	(eff & (1ull << (cap)))
	/* CAP_BPF and CAP_PERFMON exist since 5.8; CAP_SYS_ADMIN covers both */
	if (!HAS(39) && !HAS(CAP_SYS_ADMIN))
		missing |= HWT_BPF_CAP_BPF;
	if (!HAS(38) && !HAS(CAP_SYS_ADMIN))
		missing |= HWT_BPF_CAP_PERFMON;
#undef HAS
	return missing;
}

/* Does the running kernel have tracepoint tp (its btf_trace_ typedef)? */
static bool have_tracepoint(const struct btf *vmlinux, const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0;
}

static const struct btf_type *skip_mods(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/*
 * Does the running kernel have function fn as prog d expects it: nargs
 * parameters, the first a struct task_struct *, an int returned if
 * d->ret_int?  A function absent from BTF cannot be traced (inlined
 * everywhere, or renamed by the compiler, .constprop and the like).
 */
static bool have_function(const struct btf *vmlinux, const struct prog_desc *d)
{
	int id = btf__find_by_name_kind(vmlinux, d->tp, BTF_KIND_FUNC);
	const struct btf_type *fn, *proto, *t;

	if (id <= 0)
		return false;
	fn = btf__type_by_id(vmlinux, (uint32_t)id);
	proto = fn ? btf__type_by_id(vmlinux, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) != d->nargs)
		return false;
	if (d->ret_int) {
		t = proto->type ? skip_mods(vmlinux, proto->type) : NULL;
		if (!t || !btf_is_int(t))
			return false;
	}
	t = skip_mods(vmlinux, btf_params(proto)[0].type);
	t = t && btf_is_ptr(t) ? skip_mods(vmlinux, t->type) : NULL;
	return t && btf_is_struct(t) &&
	       !strcmp(btf__name_by_offset(vmlinux, t->name_off), "task_struct");
}

/* sched_switch passes prev_state since 5.18: five parameters with __data. */
static bool switch_has_prev_state(const struct btf *vmlinux)
{
	int id = btf__find_by_name_kind(vmlinux, "btf_trace_sched_switch",
					BTF_KIND_TYPEDEF);
	const struct btf_type *t;

	if (id <= 0)
		return true;
	t = btf__type_by_id(vmlinux, (uint32_t)id);
	t = t ? btf__type_by_id(vmlinux, t->type) : NULL;	/* pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(vmlinux, t->type) : NULL;
	if (!t || !btf_is_func_proto(t))
		return true;
	return btf_vlen(t) >= 5;
}

/* --- names ---------------------------------------------------------------- */

static int push_name(struct hwt_bpf *b, const struct hwt_name *n)
{
	if (b->nr_names == b->cap_names) {
		size_t cap = b->cap_names ? 2 * b->cap_names : 1024;
		struct hwt_name *p;

		/* compact what was read before growing */
		if (b->names_head) {
			memmove(b->names, b->names + b->names_head,
				(b->nr_names - b->names_head) * sizeof(*p));
			b->nr_names -= b->names_head;
			b->names_head = 0;
		}
		if (b->nr_names == b->cap_names) {
			p = realloc(b->names, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			b->names = p;
			b->cap_names = cap;
		}
	}
	b->names[b->nr_names] = *n;
	b->names[b->nr_names].name[HWT_NAME_LEN - 1] = '\0';
	b->nr_names++;
	return 0;
}

static int on_name(void *ctx, void *data, size_t size)
{
	struct hwt_bpf *b = ctx;

	if (size < sizeof(struct hwt_name))
		return 0;
	if (push_name(b, data))
		b->names_err = -ENOMEM;
	return 0;
}

#define PID_LIMIT	(1u << 22)	/* PID_MAX_LIMIT */

/* comm of /proc/PID/task/TID into name (NUL-padded); 0 or -errno */
static int read_comm(const char *pid, const char *tid, char *name, size_t size)
{
	char path[600];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(name, 0, size);
	n = read(fd, name, size - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	if (name[n - 1] == '\n')
		name[n - 1] = '\0';
	return 0;
}

/*
 * The threads /proc shows that the iterator did not visit (some kernels'
 * iter/task skips threads of some processes).  seen: a PID_LIMIT bitmap.
 */
static int snapshot_proc(struct hwt_bpf *b, const uint8_t *seen)
{
	DIR *proc = opendir("/proc"), *tasks;
	struct dirent *p, *t;
	char path[600];
	int err = 0;

	if (!proc)
		return 0;	/* no /proc: the iterator's names are all we have */
	while (!err && (p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;	/* gone meanwhile */
		while (!err && (t = readdir(tasks))) {
			struct hwt_name n = { .kind = HWT_NAME_TASK };
			unsigned long tid = strtoul(t->d_name, NULL, 10);

			if (!tid || tid >= PID_LIMIT || seen[tid / 8] & (1u << (tid % 8)))
				continue;
			if (read_comm(p->d_name, t->d_name, n.name, sizeof(n.name)))
				continue;
			n.id = (uint32_t)tid;
			n.tgid = (uint32_t)strtoul(p->d_name, NULL, 10);
			err = push_name(b, &n);
		}
		closedir(tasks);
	}
	closedir(proc);
	return err;
}

/* Every task alive now: the task iterator, then what only /proc shows. */
static int snapshot_tasks(struct hwt_bpf *b)
{
	struct bpf_link *link;
	struct hwt_name buf[64];
	uint8_t *seen;
	ssize_t got;
	size_t have = 0, first = b->nr_names;
	int fd, err = 0;

	link = bpf_program__attach_iter(b->skel->progs.hwt_task_names, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	/* read() may end mid-record: keep the partial one for the next read */
	while ((got = read(fd, (char *)buf + have, sizeof(buf) - have)) > 0) {
		size_t n;

		have += (size_t)got;
		n = have / sizeof(buf[0]);
		for (size_t i = 0; i < n && !err; i++)
			err = push_name(b, &buf[i]);
		have -= n * sizeof(buf[0]);
		memmove(buf, (char *)buf + n * sizeof(buf[0]), have);
		if (err)
			break;
	}
	if (got < 0 && !err)
		err = -errno;
	close(fd);
out:
	bpf_link__destroy(link);
	if (err)
		return err;
	seen = calloc(PID_LIMIT / 8, 1);
	if (!seen)
		return -ENOMEM;
	for (size_t i = first; i < b->nr_names; i++)
		if (b->names[i].id < PID_LIMIT)
			seen[b->names[i].id / 8] |= (uint8_t)(1u << (b->names[i].id % 8));
	err = snapshot_proc(b, seen);
	free(seen);
	return err;
}

int hwt_bpf_read_names(struct hwt_bpf *b, struct hwt_name *names, size_t n)
{
	size_t k;
	int ret;

	ret = ring_buffer__consume(b->names_rb);
	if (ret < 0)
		return hwt_err(ret);
	if (b->names_err)
		return hwt_err(b->names_err);
	k = min(n, b->nr_names - b->names_head);
	memcpy(names, b->names + b->names_head, k * sizeof(*names));
	b->names_head += k;
	if (b->names_head == b->nr_names)
		b->names_head = b->nr_names = 0;
	return (int)k;
}

/* --- open, start, stop, close -------------------------------------------- */

static void *map_map(struct bpf_map *map, size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, bpf_map__fd(map), 0);

	return p == MAP_FAILED ? NULL : p;
}

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

static int fail(struct hwt_bpf_error *e, enum hwt_bpf_stage stage, int err)
{
	if (e) {
		e->stage = stage;
		snprintf(e->msg, sizeof(e->msg), "%s", log_first);
		if (!e->prog[0])
			snprintf(e->prog, sizeof(e->prog), "%s", log_prog);
	}
	return hwt_err(err);
}

/* progs[] index of the program called name, or -1 */
static int prog_index(const char *name)
{
	for (size_t i = 0; i < NR_PROGS; i++)
		if (!strcmp(progs[i].prog, name))
			return (int)i;
	return -1;
}

/* Size and configure the opened skeleton, load what b->want says. */
static int load(struct hwt_bpf *b, uint32_t families, const uint64_t key[2],
		bool prev_state)
{
	struct hwt_bpf_skel *s = b->skel;

	s->rodata->nr_slots = b->nr_slots;
	s->rodata->normal_slots = b->normal_slots;
	s->rodata->cyc = b->mode == HWT_CHUNK_CYC;
	s->rodata->key0 = key[0];
	s->rodata->key1 = key[1];
	s->rodata->switch_has_prev_state = prev_state;
	s->bss->hwt_filter_mask = ~families & 0xFFFF;
	bpf_map__set_max_entries(s->maps.hwt_meta, b->nr_cpus);
	bpf_map__set_max_entries(s->maps.hwt_cpus, b->nr_cpus);
	bpf_map__set_max_entries(s->maps.hwt_ring, b->nr_cpus * b->nr_slots);
	for (size_t i = 0; i < NR_PROGS; i++)
		bpf_program__set_autoload(bpf_object__find_program_by_name(s->obj,
									   progs[i].prog),
					  b->want[i]);
	log_reset();
	return hwt_bpf_skel__load(s);
}

/* A hwt_bpf sized for opts, nothing loaded yet; 0 or -errno. */
static int bpf_new(struct hwt_bpf **out, const struct hwt_bpf_opts *opts)
{
	uint64_t bufsize = HWT_OPT(opts, bufsize, 0);
	struct hwt_bpf *b;
	int n;

	if (!bufsize)
		bufsize = HWT_BPF_DEFAULT_BUFSIZE;
	b = *out = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->mode = HWT_OPT(opts, mode, HWT_CHUNK_STOP);
	n = libbpf_num_possible_cpus();
	if (n <= 0)
		return n ? n : -EINVAL;
	b->nr_cpus = (uint32_t)n;
	b->normal_slots = (uint32_t)min(bufsize / HWT_EVENT_SIZE, (uint64_t)UINT32_MAX);
	if ((b->mode != HWT_CHUNK_STOP && b->mode != HWT_CHUNK_CYC) ||
	    bufsize % HWT_EVENT_SIZE || b->normal_slots < 2 ||
	    (uint64_t)b->normal_slots + HWT_BPF_EMERGENCY_SLOTS >
	    UINT32_MAX / b->nr_cpus)
		return -EINVAL;
	b->nr_slots = b->normal_slots + HWT_BPF_EMERGENCY_SLOTS;
	return 0;
}

/*
 * b->want[]: what the caller wants and this kernel has (BTF says); what it
 * lacks counted missing.  -ENOENT (e->prog named) if the skeleton lacks a
 * program of progs[].
 */
static int choose_progs(struct hwt_bpf *b, const struct btf *vmlinux,
			uint32_t families, struct hwt_bpf_error *e)
{
	for (size_t i = 0; i < NR_PROGS; i++) {
		const struct prog_desc *d = &progs[i];
		bool want = d->family >= NAMES || (families & (1u << d->family));

		if (!bpf_object__find_program_by_name(b->skel->obj, d->prog)) {
			snprintf(e->prog, sizeof(e->prog), "%s", d->prog);
			return -ENOENT;
		}
		if (want && !(d->nargs ? have_function(vmlinux, d) :
				       have_tracepoint(vmlinux, d->tp))) {
			note("no %s %s on this kernel", d->nargs ? "function" : "tracepoint",
			     d->tp);
			b->nr_missing++;
			want = false;
		}
		b->want[i] = want;
	}
	return 0;
}

/*
 * Load b->want[]'s programs.  A function in BTF may still be refused (not
 * traceable, its symbol renamed, fentry/fexit denied by a security
 * module): leave its program out and load the rest again, as the module
 * leaves out a kretprobe that does not register.  If it was all programs,
 * the next one refused is a tracepoint's: that is an error.
 */
static int load_what_loads(struct hwt_bpf *b, uint32_t families,
			   const uint64_t key[2], bool prev_state)
{
	int err, bad;

	while ((err = load(b, families, key, prev_state))) {
		bad = prog_index(log_prog);
		if (bad < 0 || !progs[bad].nargs || !b->want[bad])
			return err;
		note("function %s cannot be traced on this kernel (%s): %s",
		     progs[bad].tp, strerror(-err), log_first);
		b->want[bad] = false;
		b->nr_missing++;
		hwt_bpf_skel__destroy(b->skel);
		b->skel = hwt_bpf_skel__open();
		if (!b->skel)
			return -errno;
	}
	return 0;
}

/* The rings, their meta pages and the writer states into our memory. */
static int map_rings(struct hwt_bpf *b)
{
	struct hwt_bpf_skel *s = b->skel;

	b->meta_len = page_round((size_t)b->nr_cpus * sizeof(struct hwt_ring_meta));
	b->cpus_len = page_round((size_t)b->nr_cpus * sizeof(struct hwt_bpf_cpu));
	b->ring_len = page_round((size_t)b->nr_cpus * b->nr_slots * HWT_EVENT_SIZE);
	b->meta = map_map(s->maps.hwt_meta, b->meta_len, PROT_READ | PROT_WRITE);
	b->cpus = map_map(s->maps.hwt_cpus, b->cpus_len, PROT_READ | PROT_WRITE);
	b->ring = map_map(s->maps.hwt_ring, b->ring_len, PROT_READ);
	if (!b->meta || !b->cpus || !b->ring)
		return -errno;
	for (uint32_t c = 0; c < b->nr_cpus; c++) {
		struct hwt_ring_meta *m = &b->meta[c];

		m->version = HWT_ABI_MAJOR;
		m->meta_size = sizeof(*m);
		m->cpu = c;
		m->nr_slots = b->nr_slots;
		m->normal_slots = b->normal_slots;
		m->flags = b->mode;
		m->clock = HWT_BPF_CLOCK;
		m->cycles_per_msec = HWT_BPF_NS_PER_MSEC;
	}
	b->names_rb = ring_buffer__new(bpf_map__fd(s->maps.hwt_names), on_name, b, NULL);
	return b->names_rb ? 0 : -errno;
}

/*
 * Attach every loaded program (events stay off, per CPU, until
 * hwt_bpf_start()).  A function that does not attach is counted missing;
 * a tracepoint that does not is an error, e->prog named.
 */
static int attach_all(struct hwt_bpf *b, struct hwt_bpf_error *e)
{
	for (size_t i = 0; i < NR_PROGS; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(b->skel->obj,
									 progs[i].prog);

		if (!b->want[i])
			continue;
		b->links[i] = bpf_program__attach(p);
		if (!b->links[i] && progs[i].nargs) {
			note("function %s cannot be traced on this kernel: %s",
			     progs[i].tp, strerror(errno));
			b->nr_missing++;
			continue;
		}
		if (!b->links[i]) {
			snprintf(e->prog, sizeof(e->prog), "%s", progs[i].prog);
			return -errno;
		}
		b->nr_attached++;
	}
	return 0;
}

int hwt_bpf_open(struct hwt_bpf **out, const struct hwt_bpf_opts *opts,
		 struct hwt_bpf_error *e)
{
	const char *btf_path = HWT_OPT(opts, btf_path, NULL);
	uint32_t families = HWT_OPT(opts, families, 0);
	struct hwt_bpf_error dummy;
	struct btf *vmlinux;
	struct hwt_bpf *b = NULL;
	enum hwt_bpf_stage stage;
	bool prev_state;
	uint64_t key[2];
	int err;

	*out = NULL;
	if (!e)
		e = &dummy;
	memset(e, 0, sizeof(*e));
	log_reset();
	log_verbose = HWT_OPT(opts, verbose, 0);
	libbpf_set_print(libbpf_print);

	if (!btf_path)
		btf_path = HWT_BPF_BTF_PATH;
	if (access(btf_path, R_OK))
		return fail(e, HWT_BPF_STAGE_BTF, -ENOENT);
	e->missing_caps = hwt_bpf_missing_caps();
	if (e->missing_caps)
		return fail(e, HWT_BPF_STAGE_PERM, -EPERM);
	if (!families)
		families = (1u << HWT_NR_FAMILIES) - 1;

	stage = HWT_BPF_STAGE_SETUP;
	err = bpf_new(&b, opts);
	if (!err && getrandom(key, sizeof(key), 0) != sizeof(key))
		err = -errno;
	if (!err && !(b->skel = hwt_bpf_skel__open()))
		err = -errno;
	if (err)
		goto fail;

	stage = HWT_BPF_STAGE_BTF;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		err = -errno;
		goto fail;
	}
	prev_state = switch_has_prev_state(vmlinux);
	err = choose_progs(b, vmlinux, families, e);
	btf__free(vmlinux);
	stage = HWT_BPF_STAGE_LOAD;
	if (err)
		goto fail;

	err = load_what_loads(b, families, key, prev_state);
	if (err) {
		/* -EPERM: a capability check we could not see (LSM, sysctl) */
		stage = !b->skel ? HWT_BPF_STAGE_SETUP :
			err == -EPERM ? HWT_BPF_STAGE_PERM : HWT_BPF_STAGE_LOAD;
		goto fail;
	}
	stage = HWT_BPF_STAGE_MAP;
	err = map_rings(b);
	if (err)
		goto fail;
	stage = HWT_BPF_STAGE_ATTACH;
	err = attach_all(b, e);
	if (err)
		goto fail;
	*out = b;
	return 0;

fail:
	hwt_bpf_close(b);
	return fail(e, stage, err);
}

/*
 * Run hwt_cpu_ctl on cpu: an IPI, as the module's on_each_cpu(), except on
 * the CPU this thread runs on, where the kernel runs it directly with
 * interrupts on (hwt.bpf.c says why that is safe).
 */
static int cpu_ctl(struct hwt_bpf *b, uint32_t cpu, uint64_t cmd)
{
	uint64_t args[1] = { cmd };
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.ctx_in = args,
		.ctx_size_in = sizeof(args),
		.flags = BPF_F_TEST_RUN_ON_CPU,
		.cpu = cpu,
	);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(b->skel->progs.hwt_cpu_ctl), &o);
	if (err)
		return -errno;
	return o.retval ? -EIO : 0;
}

int hwt_bpf_start(struct hwt_bpf *b)
{
	int err;

	if (b->started)
		return hwt_err(-EBUSY);
	if (b->stopped)
		return hwt_err(-EINVAL);	/* the programs are detached */
	/* fork, exec and rename are attached: no task can slip by unnamed */
	err = snapshot_tasks(b);
	if (err)
		return hwt_err(err);
	memset(b->skel->bss->irq_named, 0, sizeof(b->skel->bss->irq_named));
	b->started = true;
	for (uint32_t c = 0; c < b->nr_cpus; c++) {
		err = cpu_ctl(b, c, HWT_BPF_CTL_START);
		/* offline CPUs start writing when they come back */
		if (err == -ENXIO)
			__atomic_fetch_or(&b->cpus[c].head, HWT_BPF_ON, __ATOMIC_SEQ_CST);
		else if (err)
			return hwt_err(err);
	}
	return 0;
}

int hwt_bpf_stop(struct hwt_bpf *b)
{
	int err, ret = 0;

	if (!b->started)
		return 0;
	b->started = false;
	b->stopped = true;
	for (uint32_t c = 0; c < b->nr_cpus; c++) {
		err = cpu_ctl(b, c, HWT_BPF_CTL_STOP);
		if (err == -ENXIO)
			__atomic_fetch_and(&b->cpus[c].head, ~HWT_BPF_ON, __ATOMIC_SEQ_CST);
		else if (err && !ret)
			ret = err;
	}
	for (size_t i = 0; i < NR_PROGS; i++) {
		bpf_link__destroy(b->links[i]);
		b->links[i] = NULL;
	}
	/*
	 * A writer interrupted by the stop IPI may still commit a record it
	 * reserved before: wait (a little) until no CPU has one in flight.
	 */
	for (int tries = 0; tries < 1000; tries++) {
		bool busy = false;
		struct timespec ts = { .tv_nsec = 1000000 };

		for (uint32_t c = 0; c < b->nr_cpus; c++)
			busy |= __atomic_load_n(&b->cpus[c].nest, __ATOMIC_ACQUIRE) != 0;
		if (!busy)
			break;
		nanosleep(&ts, NULL);
	}
	return ret ? hwt_err(ret) : 0;
}

void hwt_bpf_close(struct hwt_bpf *b)
{
	if (!b)
		return;
	if (b->started)
		hwt_bpf_stop(b);
	for (size_t i = 0; i < NR_PROGS; i++)
		bpf_link__destroy(b->links[i]);
	ring_buffer__free(b->names_rb);
	if (b->meta)
		munmap(b->meta, b->meta_len);
	if (b->cpus)
		munmap(b->cpus, b->cpus_len);
	if (b->ring)
		munmap((void *)b->ring, b->ring_len);
	hwt_bpf_skel__destroy(b->skel);
	free(b->names);
	free(b);
}

/* --- draining ------------------------------------------------------------- */

uint32_t hwt_bpf_nr_cpus(const struct hwt_bpf *b)
{
	return b->nr_cpus;
}

uint32_t hwt_bpf_slots(const struct hwt_bpf *b)
{
	return b->nr_slots;
}

unsigned int hwt_bpf_nr_attached(const struct hwt_bpf *b)
{
	return b->nr_attached;
}

unsigned int hwt_bpf_nr_missing(const struct hwt_bpf *b)
{
	return b->nr_missing;
}

int64_t hwt_bpf_consume(struct hwt_bpf *b, unsigned int flags,
			hwt_sink_fn_t sink, void *ctx)
{
	int64_t total = 0, n;

	for (uint32_t c = 0; c < b->nr_cpus; c++) {
		const struct hwt_event *data = b->ring + (size_t)c * b->nr_slots;

		if (b->mode == HWT_CHUNK_CYC)
			n = hwt_ring_snapshot_mem(&b->meta[c], data, b->nr_slots,
						  flags, sink, ctx);
		else
			n = hwt_ring_drain_mem(&b->meta[c], data, b->nr_slots,
					       sink, ctx);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Sleep, then drain, as libhwt's consumer does for the module (consumer.c
 * says why): every drain takes what a whole wait gathered, in bulk, and a
 * drain at a real-time priority never spins on a ring that fills slowly.
 * The BPF rings have no watermark wakeup: wait_us is the sleep.
 */
int64_t hwt_bpf_poll(struct hwt_bpf *b, int timeout_ms, uint32_t wait_us,
		     hwt_sink_fn_t sink, void *ctx)
{
	int64_t deadline = timeout_ms < 0 ? INT64_MAX : now_ms() + timeout_ms;

	if (!wait_us)
		wait_us = 10000;
	if (b->mode == HWT_CHUNK_CYC)
		return hwt_err(-EINVAL);
	for (;;) {
		int64_t left = deadline - now_ms(), n;
		uint64_t us = wait_us;
		struct timespec ts;

		if (left < 0)
			left = 0;
		if ((uint64_t)left * 1000 < us)
			us = (uint64_t)left * 1000;
		ts.tv_sec = (time_t)(us / 1000000);
		ts.tv_nsec = (long)(us % 1000000) * 1000;
		if (us && nanosleep(&ts, NULL))
			return hwt_err(-errno);
		n = hwt_bpf_consume(b, 0, sink, ctx);
		if (n || now_ms() >= deadline)
			return n;
	}
}

int hwt_bpf_counters(const struct hwt_bpf *b, uint32_t cpu, uint64_t *lost,
		     uint64_t *overwritten)
{
	if (cpu >= b->nr_cpus)
		return hwt_err(-EINVAL);
	*lost = __atomic_load_n(&b->meta[cpu].lost, __ATOMIC_RELAXED);
	*overwritten = __atomic_load_n(&b->meta[cpu].overwritten, __ATOMIC_RELAXED);
	return 0;
}

uint64_t hwt_bpf_fill(const struct hwt_bpf *b, uint32_t cpu)
{
	const struct hwt_ring_meta *m = &b->meta[cpu];
	uint64_t span = 2 * (uint64_t)b->nr_slots, head, tail;

	if (b->mode == HWT_CHUNK_CYC)
		return min(__atomic_load_n(&m->written, __ATOMIC_RELAXED),
			   (uint64_t)b->nr_slots);
	head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&m->data_tail, __ATOMIC_RELAXED);
	if (head >= span || tail >= span)
		return b->nr_slots;
	return head >= tail ? head - tail : head + span - tail;
}

uint64_t hwt_bpf_names_lost(const struct hwt_bpf *b)
{
	return __atomic_load_n(&b->skel->bss->hwt_names_lost, __ATOMIC_RELAXED);
}

uint64_t hwt_bpf_missed(const struct hwt_bpf *b)
{
	uint64_t missed = 0;

	for (size_t i = 0; i < NR_PROGS; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(b->skel->obj,
									 progs[i].prog);
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);

		if (!p || bpf_program__fd(p) < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			missed += info.recursion_misses;
	}
	return missed;
}
