// SPDX-License-Identifier: GPL-2.0
/*
 * hwt_bench: the cost of one 16-byte record on the write path of three
 * per-CPU tracing buffers, measured in the same boot:
 *
 *   hwtrace      hwtrace_log() into the selected chunk (set up by the caller
 *                as a CYC chunk with every family but user filtered)
 *   ring_buffer  ring_buffer_lock_reserve() + copy + unlock_commit() on a
 *                private overwriting buffer, as ftrace writes
 *   relay        relay_write() on an overwriting buffer-only channel
 *
 * Each gets the same memory per CPU.  The loops run on every online CPU in
 * a kernel thread bound to it, `rounds` times in turn, and the result lines
 * ("hwt_bench: round R cpu C <name> <ns> ns/event <cycles> cycles/event")
 * go to the kernel log; bench/run-bench.sh collects them.  Loading the
 * module runs the benchmark; it stays loaded until removed.
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

static struct trace_buffer *rb;
static struct rchan *relay;

struct payload {
	u16 code;
	u16 par1;
	u32 tsc_hi;
	u32 tsc_lo;
	u32 par2;
};

static void write_hwtrace(unsigned int i)
{
	hwtrace_log(HWT_EV_USER_EVENT_0, (u16)i, i);
}

static void write_ring_buffer(unsigned int i)
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

/* relay does not timestamp; a tracer built on it reads a clock itself */
static void write_relay(unsigned int i)
{
	u64 ts = ktime_get_mono_fast_ns();
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
	{ "hwtrace", write_hwtrace },
	{ "ring_buffer", write_ring_buffer },
	{ "relay", write_relay },
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
			pr_info("round %u cpu %u %s %llu ps/event %llu cycles/kevent\n",
				round, cpu, buffers[b].name,
				div_u64((t1 - t0) * 1000, events),
				div_u64((u64)(c1 - c0) * 1000, events));
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

static int __init hwt_bench_init(void)
{
	struct completion *done;
	struct task_struct *t;
	unsigned int cpu, n = 0;
	int ret = -ENOMEM;

	rb = ring_buffer_alloc((unsigned long)mem_kb << 10, RB_FL_OVERWRITE);
	relay = relay_open("hwt_bench", NULL, PAGE_SIZE * 4,
			   ((size_t)mem_kb << 10) / (PAGE_SIZE * 4), &relay_cb, NULL);
	done = kcalloc(nr_cpu_ids, sizeof(*done), GFP_KERNEL);
	if (!rb || !relay || !done)
		goto out;

	/* one CPU at a time: the numbers must not depend on sharing a core */
	for_each_online_cpu(cpu) {
		init_completion(&done[cpu]);
		t = kthread_create_on_cpu(measure, &done[cpu], cpu, "hwt_bench/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto out;
		}
		wake_up_process(t);
		wait_for_completion(&done[cpu]);
		n++;
	}
	pr_info("done: %u CPUs, %u events x %u rounds, %u KiB per CPU\n", n,
		events, rounds, mem_kb);
	ret = 0;
out:
	kfree(done);
	if (relay)
		relay_close(relay);
	if (rb)
		ring_buffer_free(rb);
	return ret;
}

static void __exit hwt_bench_exit(void)
{
}

module_init(hwt_bench_init);
module_exit(hwt_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtrace write-path benchmark against ring_buffer and relay");
