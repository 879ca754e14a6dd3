// SPDX-License-Identifier: GPL-2.0
/*
 * hwt_bench: the cost of one 16-byte record on the write path of three
 * per-CPU tracing buffers, measured in the same boot:
 *
 *   hwtrace      hwtrace_log() into the selected chunk (set up by the caller
 *                as a CYC chunk with every family but user filtered)
 *   ring_buffer  ring_buffer_lock_reserve() + copy + unlock_commit() on a
 *                private overwriting buffer, as ftrace writes
 *   relay        relay_write() on an overwriting buffer-only channel,
 *                stamped with the clock hwtrace uses (clock_tsc: the TSC,
 *                else the monotonic clock), as a tracer built on it would
 *
 * ring_buffer keeps its own clock (trace_clock_local(): sched_clock(), the
 * TSC scaled to ns where the TSC is usable).  Each gets the same memory per
 * CPU.  The loops run on every online CPU in
 * a kernel thread bound to it, `rounds` times in turn, and the result lines
 * ("hwt_bench: round R cpu C <name> <ps> ps/event <cycles> cycles/kevent
 * clock <tsc|mono>")
 * go to the kernel log; bench/report.sh collects them.  Loading the
 * module runs the benchmark; it stays loaded until removed.
 *
 * With insn=N (make bench-insn) loading only sets the buffers up.  Each
 * write of a hwtrace chunk mode to the parameter insn_run ("cyc" or "stop",
 * the mode of the chunk bench/write_path.c selected) then warms the buffers
 * up and calls every write function N times, in a kthread on CPU 0, for
 * bench/insn-count.py to single-step through QEMU's gdbstub: the write
 * functions are noinline and named hwt_bench_write_<buffer>, so that gdb
 * can break on them, and hwt_bench_insn_begin() tells it the mode and the
 * clock ("cyc-tsc", "stop-mono", ...).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/relay.h>
#include <linux/ring_buffer.h>
#include <linux/timex.h>
#include <linux/hwtrace.h>
#include "hwtrace_log.h"

static unsigned int events = 1000000;
module_param(events, uint, 0444);
MODULE_PARM_DESC(events, "records per CPU per round");

static unsigned int mem_kb = 1024;
module_param(mem_kb, uint, 0444);
MODULE_PARM_DESC(mem_kb, "buffer memory per CPU, KiB (give hwtrace's chunk the same)");

static unsigned int rounds = 5;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "times each buffer is measured");

static bool clock_tsc;
module_param(clock_tsc, bool, 0644);
MODULE_PARM_DESC(clock_tsc, "relay stamps with the TSC, as hwtrace with clock=tsc (else the monotonic clock)");

static unsigned int insn;
module_param(insn, uint, 0444);
MODULE_PARM_DESC(insn, "calls per buffer to single-step (0: run the timing benchmark)");

/* set by gdb (bench/insn-count.py) once its breakpoints are in */
static unsigned int insn_go;
module_param(insn_go, uint, 0444);
MODULE_PARM_DESC(insn_go, "nonzero once the debugger is ready (insn mode)");

static struct trace_buffer *rb;
static struct rchan *relay;

struct payload {
	u16 code;
	u16 par1;
	u32 tsc_hi;
	u32 tsc_lo;
	u32 par2;
};

/*
 * The write functions are what gdb steps through, from entry to return:
 * noinline and __noclone so that each keeps its symbol name and signature.
 */
static noinline __noclone void hwt_bench_write_hwtrace(unsigned int i)
{
	hwtrace_log(HWT_EV_USER_EVENT_0, (u16)i, i);
}

static noinline __noclone void hwt_bench_write_ring_buffer(unsigned int i)
{
	struct ring_buffer_event *ev;
	struct payload *p;

	ev = ring_buffer_lock_reserve(rb, sizeof(*p));
	if (!ev)
		return;
	p = ring_buffer_event_data(ev);
	p->code = HWT_EV_USER_EVENT_0;
	p->par1 = (u16)i;
	p->par2 = i;
	ring_buffer_unlock_commit(rb, ev);
}

/* relay does not timestamp; a tracer built on it reads hwtrace's clock */
static noinline __noclone void hwt_bench_write_relay(unsigned int i)
{
#ifdef CONFIG_X86
	u64 ts = clock_tsc ? rdtsc_ordered() : ktime_get_mono_fast_ns();
#else
	u64 ts = ktime_get_mono_fast_ns();
#endif
	struct payload p = {
		.code = HWT_EV_USER_EVENT_0, .par1 = (u16)i, .par2 = i,
		.tsc_hi = upper_32_bits(ts), .tsc_lo = lower_32_bits(ts),
	};

	relay_write(relay, &p, sizeof(p));
}

static const struct {
	const char *name;
	void (*write)(unsigned int i);
} buffers[] = {
	{ "hwtrace", hwt_bench_write_hwtrace },
	{ "ring_buffer", hwt_bench_write_ring_buffer },
	{ "relay", hwt_bench_write_relay },
};

static int measure(void *arg)
{
	unsigned int b, round, i, cpu = smp_processor_id();
	u64 t0, t1;
	cycles_t c0, c1;

	for (round = 0; round < rounds; round++) {
		for (b = 0; b < ARRAY_SIZE(buffers); b++) {
			c0 = get_cycles();
			t0 = ktime_get_ns();
			for (i = 0; i < events; i++)
				buffers[b].write(i);
			t1 = ktime_get_ns();
			c1 = get_cycles();
			pr_info("round %u cpu %u %s %llu ps/event %llu cycles/kevent clock %s\n",
				round, cpu, buffers[b].name,
				div_u64((t1 - t0) * 1000, events),
				div_u64((u64)(c1 - c0) * 1000, events),
				clock_tsc ? "tsc" : "mono");
			cond_resched();
		}
	}
	complete(arg);
	return 0;
}

/* relay: overwrite like the others; per-CPU files in debugfs, as relay wants */
static int relay_overwrite(struct rchan_buf *buf, void *subbuf, void *prev,
			   size_t prev_padding)
{
	return 1;
}

static struct dentry *relay_create(const char *filename, struct dentry *parent,
				   umode_t mode, struct rchan_buf *buf,
				   int *is_global)
{
	return debugfs_create_file(filename, mode, parent, buf,
				   &relay_file_operations);
}

static int relay_remove(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks relay_cb = {
	.subbuf_start = relay_overwrite,
	.create_buf_file = relay_create,
	.remove_buf_file = relay_remove,
};

/*
 * Instruction counting (insn=N).  hwt_bench_calib() is the counter's
 * cross-check: its instructions can be read from objdump -d hwt_bench.ko,
 * and it reads two known cache lines.
 */
static u32 calib_data[32] __aligned(64);
static u32 calib_sum;

static noinline __noclone u32 hwt_bench_calib(u32 i)
{
	return READ_ONCE(calib_data[0]) + READ_ONCE(calib_data[16]) + i;
}

/* gdb breaks here to learn the hwtrace chunk mode of the calls that follow */
static noinline __noclone void hwt_bench_insn_begin(const char *mode)
{
	asm volatile("" : : "r" (mode) : "memory");	/* a call gcc must keep */
}

struct insn_run {
	struct completion done;
	bool stop;
};

static int insn_sample(void *arg)
{
	struct insn_run *run = arg;
	unsigned long slots = ((unsigned long)mem_kb << 10) / sizeof(struct payload);
	/*
	 * Steady state: CYC, ring_buffer and relay wrap twice.  A STOP chunk
	 * has no consumer here, so it gets an eighth of its slots: never full,
	 * and below the watermark (a quarter) whose record wakes the consumer.
	 */
	unsigned long i, warm = run->stop ? slots / 8 : 2 * slots;
	unsigned int b, s, nr = run->stop ? 1 : ARRAY_SIZE(buffers);

	for (b = 0; b < nr; b++) {
		for (i = 0; i < warm; i++)
			buffers[b].write(i);
		cond_resched();
	}
	hwt_bench_insn_begin(run->stop ? (clock_tsc ? "stop-tsc" : "stop-mono") :
					 (clock_tsc ? "cyc-tsc" : "cyc-mono"));
	for (s = 0; s < insn; s++) {
		calib_sum += hwt_bench_calib(s);
		for (b = 0; b < nr; b++) {
			/*
			 * need_resched clear, as it nearly always is: set (a
			 * tick saw other tasks waiting), each preempt_enable()
			 * in the write takes its resched branch.
			 */
			cond_resched();
			buffers[b].write(warm + s);
		}
	}
	pr_info("insn: %u calls per buffer after %lu, hwtrace chunk %s, clock %s\n",
		insn, warm, run->stop ? "stop" : "cyc", clock_tsc ? "tsc" : "mono");
	complete(&run->done);
	return 0;
}

/* insn_run=cyc|stop: one sampling run on CPU 0, its hwtrace chunk in that mode */
static int insn_run_set(const char *val, const struct kernel_param *kp)
{
	struct insn_run run;
	struct task_struct *t;

	if (!insn || !rb || !relay)
		return -EINVAL;
	if (sysfs_streq(val, "stop"))
		run.stop = true;
	else if (sysfs_streq(val, "cyc"))
		run.stop = false;
	else
		return -EINVAL;
	init_completion(&run.done);
	t = kthread_create_on_cpu(insn_sample, &run, 0, "hwt_bench_insn");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	wait_for_completion(&run.done);
	return 0;
}

static const struct kernel_param_ops insn_run_ops = {
	.set = insn_run_set,
};
module_param_cb(insn_run, &insn_run_ops, NULL, 0200);
MODULE_PARM_DESC(insn_run, "insn mode: cyc or stop, the hwtrace chunk's mode; runs the calls");

static void free_buffers(void)
{
	if (relay)
		relay_close(relay);
	if (rb)
		ring_buffer_free(rb);
	relay = NULL;
	rb = NULL;
}

/* one CPU at a time: the numbers must not depend on sharing a core */
static int run_timing(void)
{
	struct completion *done;
	struct task_struct *t;
	unsigned int cpu, n = 0;
	int ret = 0;

	done = kcalloc(nr_cpu_ids, sizeof(*done), GFP_KERNEL);
	if (!done)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		init_completion(&done[cpu]);
		t = kthread_create_on_cpu(measure, &done[cpu], cpu, "hwt_bench/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		wake_up_process(t);
		wait_for_completion(&done[cpu]);
		n++;
	}
	if (!ret)
		pr_info("done: %u CPUs, %u events x %u rounds, %u KiB per CPU\n", n,
			events, rounds, mem_kb);
	kfree(done);
	return ret;
}

static int __init hwt_bench_init(void)
{
	int ret;

	rb = ring_buffer_alloc((unsigned long)mem_kb << 10, RB_FL_OVERWRITE);
	relay = relay_open("hwt_bench", NULL, PAGE_SIZE * 4,
			   ((size_t)mem_kb << 10) / (PAGE_SIZE * 4), &relay_cb, NULL);
	if (!rb || !relay) {
		free_buffers();
		return -ENOMEM;
	}
	if (insn)
		return 0;	/* the buffers stay for insn_run until the module goes */
	ret = run_timing();
	free_buffers();
	return ret;
}

static void __exit hwt_bench_exit(void)
{
	free_buffers();
}

module_init(hwt_bench_init);
module_exit(hwt_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtrace write-path benchmark against ring_buffer and relay");
