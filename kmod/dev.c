// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtrace: the misc device, its ioctls (the FTrace API) and mmap of the
 * rings.  One table (hwt_ioctls[]) lists the commands: who may use each and
 * whether it runs under hwt_lock (all but injection and the chunk table).
 * The tracing fast path never takes that lock.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "hwt.h"
#include "compat.h"

/*
 * Access.  The tracer sees every task's scheduling, names and signals:
 * state changes, rings and names need CAP_PERFMON (or CAP_SYS_ADMIN), in
 * the initial pid namespace (records carry its pids), checked at open and
 * again at mmap.  The admin may open injection (LOG_EVENT, GET_VERSION) to
 * one group: inject_gid, with the node's group and mode set to match.
 */
static int inject_gid = -1;
module_param(inject_gid, int, 0644);
MODULE_PARM_DESC(inject_gid, "Group that may open /dev/hwtrace to inject events only (default -1: none)");

/* One open /dev/hwtrace. */
struct hwt_file {
	bool inject_only;	/* LOG_EVENT and GET_VERSION only */
	int poll_cpu;		/* poll() watches this CPU's rings; -1: all */
};

static bool hwt_may_trace(void)
{
	return perfmon_capable() && task_active_pid_ns(current) == &init_pid_ns;
}

static bool hwt_may_inject(void)
{
	int gid = READ_ONCE(inject_gid);

	return gid >= 0 && in_group_p(make_kgid(&init_user_ns, gid));
}

static int hwt_open(struct inode *inode, struct file *file)
{
	struct hwt_file *f;
	bool inject_only;

	if (hwt_may_trace())
		inject_only = false;
	else if (hwt_may_inject())
		inject_only = true;
	else
		return -EPERM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->inject_only = inject_only;
	f->poll_cpu = -1;
	file->private_data = f;
	return 0;
}

static int hwt_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static bool hwt_full_access(const struct file *file)
{
	const struct hwt_file *f = file->private_data;

	return !f->inject_only;
}

static long hwt_get_version(struct hwt_file *f, void *buf, unsigned long arg)
{
	struct hwt_version *v = buf;

	v->abi_major = HWT_ABI_MAJOR;
	v->abi_minor = HWT_ABI_MINOR;
	v->nr_cpus = nr_cpu_ids;
	v->max_chunks = HWT_MAX_CHUNKS;
	v->event_size = HWT_EVENT_SIZE;
	v->clock = hwt_clock_kind();
	v->cycles_per_msec = hwt_clock_rate();
	v->max_memory = hwt_max_memory;
	v->used_memory = hwt_used_memory;
	v->enabled = hwt_enabled;
	v->filter_mask = hwt_filter_mask;
	v->names_lost = hwt_names_lost();
	v->nr_probes = hwt_nr_probes();
	v->nr_online_cpus = num_online_cpus();
	v->prio_missed = hwt_prio_missed();
	return 0;
}

/*
 * One handler per command: f is the open file, buf holds the copied-in
 * argument of pointer ioctls (zeroed first, copied out after success for
 * _IOR ones).  Value ioctls take an int (ids, flags, clock, a CPU):
 * userspace passes one through ioctl()'s varargs, so only the low 32 bits
 * of arg are defined.
 */
static long hwt_ioc_enable(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_enable();
}

static long hwt_ioc_disable(struct hwt_file *f, void *buf, unsigned long arg)
{
	hwt_disable();
	return 0;
}

static long hwt_ioc_chunk_create(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_create(buf);
}

static long hwt_ioc_chunk_delete(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_delete((int)arg);
}

static long hwt_ioc_set_chunk_flags(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_set_flags(buf);
}

static long hwt_ioc_get_chunk_flags(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_get_flags(buf);
}

static long hwt_ioc_chunk_select(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_select((int)arg);
}

static long hwt_ioc_chunk_link(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_link(buf);
}

static long hwt_ioc_get_first_chunk(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_first((unsigned int)arg);
}

static long hwt_ioc_chunk_table(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_table(buf);
}

static long hwt_ioc_set_filter(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_set_filter(buf);
}

static long hwt_ioc_get_filter(struct hwt_file *f, void *buf, unsigned long arg)
{
	*(u32 *)buf = hwt_filter_mask;
	return 0;
}

static long hwt_ioc_log_event(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_log_user(buf);
}

static long hwt_ioc_ring_info(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_chunk_ring_info(buf);
}

static long hwt_ioc_set_clock(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_set_clock((unsigned int)arg);
}

static long hwt_ioc_probe_info(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_probe_info(buf);
}

static long hwt_ioc_persist_info(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_persist_info(buf);
}

static long hwt_ioc_persist_release(struct hwt_file *f, void *buf, unsigned long arg)
{
	return hwt_persist_release();
}

/*
 * A drain thread per CPU polls its own descriptor: it sleeps on that CPU's
 * wait queue and readiness (hwt_ready()) counts only that CPU's rings, so
 * another CPU's full ring neither wakes it nor keeps its poll() returning
 * at once.  An epoll watch made before the scope changed keeps the queue
 * it was made on: set the scope first.
 */
static long hwt_ioc_poll_cpu(struct hwt_file *f, void *buf, unsigned long arg)
{
	int cpu = (int)arg;

	if (cpu != -1 && (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu)))
		return -EINVAL;
	WRITE_ONCE(f->poll_cpu, cpu);
	return 0;
}

/* the command may be used on a descriptor opened for injection only */
#define HWT_IOC_INJECT		BIT(0)
/*
 * runs without hwt_lock: injection is userspace's fast path, and the chunk
 * table copies to user memory itself
 */
#define HWT_IOC_UNLOCKED	BIT(1)

struct hwt_ioctl_desc {
	unsigned int cmd;
	unsigned int flags;
	long (*fn)(struct hwt_file *f, void *buf, unsigned long arg);
};

#define HWT_IOCTL(name, handler, fl)					\
	[_IOC_NR(HWT_IOC_##name)] = {					\
		.cmd = HWT_IOC_##name, .flags = (fl), .fn = (handler)	\
	}

/* Every command, each exactly as numbered: the one list the dispatch reads. */
static const struct hwt_ioctl_desc hwt_ioctls[] = {
	HWT_IOCTL(GET_VERSION, hwt_get_version, HWT_IOC_INJECT),
	HWT_IOCTL(ENABLE, hwt_ioc_enable, 0),
	HWT_IOCTL(DISABLE, hwt_ioc_disable, 0),
	HWT_IOCTL(CHUNK_CREATE, hwt_ioc_chunk_create, 0),
	HWT_IOCTL(CHUNK_DELETE, hwt_ioc_chunk_delete, 0),
	HWT_IOCTL(SET_CHUNK_FLAGS, hwt_ioc_set_chunk_flags, 0),
	HWT_IOCTL(GET_CHUNK_FLAGS, hwt_ioc_get_chunk_flags, 0),
	HWT_IOCTL(CHUNK_SELECT, hwt_ioc_chunk_select, 0),
	HWT_IOCTL(CHUNK_LINK, hwt_ioc_chunk_link, 0),
	HWT_IOCTL(GET_FIRST_CHUNK, hwt_ioc_get_first_chunk, 0),
	HWT_IOCTL(CHUNK_TABLE, hwt_ioc_chunk_table, HWT_IOC_UNLOCKED),
	HWT_IOCTL(SET_FILTER, hwt_ioc_set_filter, 0),
	HWT_IOCTL(GET_FILTER, hwt_ioc_get_filter, 0),
	HWT_IOCTL(LOG_EVENT, hwt_ioc_log_event, HWT_IOC_INJECT | HWT_IOC_UNLOCKED),
	HWT_IOCTL(RING_INFO, hwt_ioc_ring_info, 0),
	HWT_IOCTL(SET_CLOCK, hwt_ioc_set_clock, 0),
	HWT_IOCTL(PROBE_INFO, hwt_ioc_probe_info, 0),
	HWT_IOCTL(PERSIST_INFO, hwt_ioc_persist_info, 0),
	HWT_IOCTL(PERSIST_RELEASE, hwt_ioc_persist_release, 0),
	HWT_IOCTL(POLL_CPU, hwt_ioc_poll_cpu, HWT_IOC_UNLOCKED),
};

/* The command's entry, or NULL: anything not listed exactly is -ENOTTY. */
static const struct hwt_ioctl_desc *hwt_ioctl_find(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	if (_IOC_TYPE(cmd) != HWT_IOC_MAGIC || nr >= ARRAY_SIZE(hwt_ioctls))
		return NULL;
	nr = array_index_nospec(nr, ARRAY_SIZE(hwt_ioctls));
	if (!hwt_ioctls[nr].fn || hwt_ioctls[nr].cmd != cmd)
		return NULL;
	return &hwt_ioctls[nr];
}

static long hwt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	union {
		struct hwt_version version;
		struct hwt_chunk_create create;
		struct hwt_chunk_flags flags;
		struct hwt_chunk_link link;
		struct hwt_chunk_table table;
		struct hwt_filter filter;
		struct hwt_log log;
		struct hwt_ring_info info;
		struct hwt_probe_info probe;
		struct hwt_persist_info persist;
		u32 mask;
	} buf;
	const struct hwt_ioctl_desc *ioc = hwt_ioctl_find(cmd);
	void __user *uarg = (void __user *)arg;
	unsigned int size = _IOC_SIZE(cmd);
	long ret;

	/* before the argument is touched */
	if (!ioc)
		return -ENOTTY;
	if (!hwt_full_access(file) && !(ioc->flags & HWT_IOC_INJECT))
		return -EPERM;
	if (WARN_ON_ONCE(size > sizeof(buf)))	/* a command buf lacks */
		return -ENOTTY;
	memset(&buf, 0, sizeof(buf));
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&buf, uarg, size))
		return -EFAULT;

	if (ioc->flags & HWT_IOC_UNLOCKED) {
		ret = ioc->fn(file->private_data, &buf, arg);
	} else {
		mutex_lock(&hwt_lock);
		ret = ioc->fn(file->private_data, &buf, arg);
		mutex_unlock(&hwt_lock);
	}

	if (ret >= 0 && (_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, &buf, size))
		return -EFAULT;
	return ret;
}

static ssize_t hwt_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	if (!hwt_full_access(file))
		return -EPERM;
	return hwt_names_read(buf, count);
}

/* Readable when a ring reaches its watermark (see hwt_ready()). */
static __poll_t hwt_poll(struct file *file, poll_table *wait)
{
	const struct hwt_file *f = file->private_data;
	int cpu = READ_ONCE(f->poll_cpu);

	poll_wait(file, hwt_poll_queue(cpu), wait);
	return hwt_ready(cpu) ? EPOLLIN | EPOLLRDNORM : 0;
}

static void hwt_vma_open(struct vm_area_struct *vma)
{
	struct hwt_chunk *c = vma->vm_private_data;

	atomic_inc(&c->mappings);
}

static void hwt_vma_close(struct vm_area_struct *vma)
{
	struct hwt_chunk *c = vma->vm_private_data;

	atomic_dec(&c->mappings);
}

static const struct vm_operations_struct hwt_vm_ops = {
	.open = hwt_vma_open,
	.close = hwt_vma_close,
};

/*
 * The offset names the ring and the area (HWT_MMAP_OFFSET); the length must
 * be the whole area.  Data pages are never writable from userspace.
 */
static int hwt_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned int cpu, area;
	struct hwt_chunk *c;
	struct hwt_ring *r;
	void *mem;
	u64 size;
	int ret;

	/* the fd may have been passed on: the mapper needs the right too */
	if (!hwt_full_access(file) || !hwt_may_trace())
		return -EPERM;
	if (off == HWT_PERSIST_MMAP_OFFSET)
		return hwt_persist_mmap(vma);
	if (off & (BIT_ULL(HWT_MMAP_SHIFT) - 1))
		return -EINVAL;
	off >>= HWT_MMAP_SHIFT;
	area = off & 1;
	cpu = (off >> 1) & 0xFFFF;
	if (off >> 17 >= HWT_MAX_CHUNKS || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;

	/*
	 * The consumer's data_tail must reach the kernel: a private copy of
	 * the meta page would leave a STOP ring full for good.  A forked
	 * child does not inherit the mappings (it maps the rings itself).
	 */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	mutex_lock(&hwt_lock);
	c = hwt_chunk_get(off >> 17);
	ret = -EINVAL;
	if (!c)
		goto out;
	r = &c->rings[cpu];
	mem = area == HWT_AREA_META ? (void *)r->meta : (void *)r->data;
	size = area == HWT_AREA_META ? PAGE_SIZE : r->data_size;
	if (len != size)
		goto out;
	if (area == HWT_AREA_DATA) {
		ret = -EPERM;
		if (vma->vm_flags & VM_WRITE)
			goto out;
		hwt_vm_flags_set(vma, 0, VM_MAYWRITE);
	}
	/* trace data is never code */
	ret = -EPERM;
	if (vma->vm_flags & VM_EXEC)
		goto out;
	hwt_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY, VM_MAYEXEC);
	if (c->persist)
		ret = hwt_persist_remap(vma, mem, size);
	else
		ret = remap_vmalloc_range(vma, mem, 0);
	if (ret)
		goto out;
	vma->vm_private_data = c;
	vma->vm_ops = &hwt_vm_ops;
	atomic_inc(&c->mappings);
out:
	mutex_unlock(&hwt_lock);
	return ret;
}

static const struct file_operations hwt_fops = {
	.owner = THIS_MODULE,
	.open = hwt_open,
	.release = hwt_release,
	.read = hwt_read,
	.poll = hwt_poll,
	.unlocked_ioctl = hwt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = hwt_mmap,
	.llseek = noop_llseek,
};

/*
 * Mode 0600 by default; a node opened up by chmod still admits only the
 * callers hwt_open() lets in.
 */
static struct miscdevice hwt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hwtrace",
	.fops = &hwt_fops,
	.mode = 0600,
};

int hwt_dev_init(void)
{
	return misc_register(&hwt_misc);
}

void hwt_dev_exit(void)
{
	misc_deregister(&hwt_misc);
}
