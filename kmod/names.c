// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace name channel: pid -> (tgid, comm) and irq -> action name records,
 * queued while tracing and read(2) from /dev/hwtrace, so a trace file can
 * name every task and IRQ it mentions, including tasks long gone.
 *
 * Names change rarely (fork, exec, rename, an IRQ's first interrupt), so a
 * single queue under an irq-safe raw spinlock is enough; it is never taken
 * from NMI.  A full queue drops the record and counts it.
 */
#include <linux/bitmap.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "hwt.h"

#define NAMES_MAX	32768		/* queued records: 1.5 MiB */
#define IRQS_NAMED	16384		/* irqs whose first-sight we remember */

static struct hwt_name *queue;		/* ring of NAMES_MAX records */
static unsigned int head, tail;	/* free-running, under names_lock */
static u64 names_lost;
static DEFINE_RAW_SPINLOCK(names_lock);
static DECLARE_BITMAP(irq_named, IRQS_NAMED);

static void push(u32 kind, u32 id, u32 tgid, const char *name)
{
	struct hwt_name *n;
	unsigned long flags;

	hwt_persist_name(kind, id, tgid, name);
	raw_spin_lock_irqsave(&names_lock, flags);
	if (head - tail == NAMES_MAX) {
		names_lost++;
	} else {
		if (head - tail == NAMES_MAX / 2)
			hwt_wakeup();
		n = &queue[head++ % NAMES_MAX];
		n->kind = kind;
		n->id = id;
		n->tgid = tgid;
		n->reserved = 0;
		strscpy_pad(n->name, name, sizeof(n->name));
	}
	raw_spin_unlock_irqrestore(&names_lock, flags);
}

void hwt_name_task(struct task_struct *p, const char *comm)
{
	char buf[TASK_COMM_LEN];

	/*
	 * A rename's comm is any string, maybe shorter than the array (KASAN
	 * caught the 16-byte read past a kworker's name).  p->comm is the
	 * array itself and may change under us: a torn name is fixed by the
	 * rename record that follows.
	 */
	if (comm) {
		strscpy(buf, comm, sizeof(buf));
	} else {
		memcpy(buf, p->comm, sizeof(buf));
		buf[sizeof(buf) - 1] = '\0';
	}
	push(HWT_NAME_TASK, p->pid, p->tgid, buf);
}

void hwt_name_irq(int irq, const char *name)
{
	if (irq < 0 || irq >= IRQS_NAMED || test_and_set_bit(irq, irq_named))
		return;
	push(HWT_NAME_IRQ, irq, 0, name ? name : "");
}

/* At enable: every task alive now, and IRQ names afresh. */
void hwt_names_snapshot(void)
{
	struct task_struct *g, *p;

	bitmap_zero(irq_named, IRQS_NAMED);
	rcu_read_lock();
	for_each_process_thread(g, p)
		hwt_name_task(p, NULL);
	rcu_read_unlock();
}

bool hwt_names_ready(void)
{
	return READ_ONCE(head) - READ_ONCE(tail) >= NAMES_MAX / 2;
}

u64 hwt_names_lost(void)
{
	return READ_ONCE(names_lost);
}

/* read(2): whole records only, never blocking. */
ssize_t hwt_names_read(char __user *buf, size_t count)
{
	struct hwt_name bounce[16];
	size_t done = 0, n, i;
	unsigned long flags;

	if (count < sizeof(struct hwt_name))
		return -EINVAL;
	while (done + sizeof(struct hwt_name) <= count) {
		n = min((count - done) / sizeof(struct hwt_name), ARRAY_SIZE(bounce));
		raw_spin_lock_irqsave(&names_lock, flags);
		n = min_t(size_t, n, head - tail);
		for (i = 0; i < n; i++)
			bounce[i] = queue[tail++ % NAMES_MAX];
		raw_spin_unlock_irqrestore(&names_lock, flags);
		if (!n)
			break;
		/* records taken are consumed; a fault loses them (as for pipes) */
		if (copy_to_user(buf + done, bounce, n * sizeof(bounce[0])))
			return done ? done : -EFAULT;
		done += n * sizeof(bounce[0]);
	}
	return done;
}

int hwt_names_init(void)
{
	queue = vzalloc(array_size(NAMES_MAX, sizeof(*queue)));
	return queue ? 0 : -ENOMEM;
}

void hwt_names_exit(void)
{
	vfree(queue);
}
