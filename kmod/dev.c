// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtrace: the misc device, its ioctls (the FTrace API) and mmap of the
 * rings.  Every ioctl runs under hwt_lock; the tracing fast path never takes
 * it.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/capability.h>
#include <linux/cred.h>
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

#define HWT_FILE_INJECT_ONLY	((void *)1)

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
	if (hwt_may_trace()) {
		file->private_data = NULL;
		return 0;
	}
	if (hwt_may_inject()) {
		file->private_data = HWT_FILE_INJECT_ONLY;
		return 0;
	}
	return -EPERM;
}

static bool hwt_full_access(const struct file *file)
{
	return file->private_data != HWT_FILE_INJECT_ONLY;
}

static int hwt_get_version(struct hwt_version *v)
{
	memset(v, 0, sizeof(*v));
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
 * buf holds the copied-in argument of pointer ioctls.  Value ioctls take an
 * int (ids, flags, clock): userspace passes one through ioctl()'s varargs,
 * so only the low 32 bits of arg are defined.
 */
static long hwt_ioctl_locked(unsigned int cmd, unsigned long arg, void *buf)
{
	switch (cmd) {
	case HWT_IOC_GET_VERSION:
		return hwt_get_version(buf);
	case HWT_IOC_ENABLE:
		return hwt_enable();
	case HWT_IOC_DISABLE:
		hwt_disable();
		return 0;
	case HWT_IOC_CHUNK_CREATE:
		return hwt_chunk_create(buf);
	case HWT_IOC_CHUNK_DELETE:
		return hwt_chunk_delete((int)arg);
	case HWT_IOC_SET_CHUNK_FLAGS:
		return hwt_chunk_set_flags(buf);
	case HWT_IOC_GET_CHUNK_FLAGS:
		return hwt_chunk_get_flags(buf);
	case HWT_IOC_CHUNK_SELECT:
		return hwt_chunk_select((int)arg);
	case HWT_IOC_CHUNK_LINK:
		return hwt_chunk_link(buf);
	case HWT_IOC_GET_FIRST_CHUNK:
		return hwt_chunk_first((unsigned int)arg);
	case HWT_IOC_SET_FILTER:
		return hwt_set_filter(buf);
	case HWT_IOC_GET_FILTER:
		*(u32 *)buf = hwt_filter_mask;
		return 0;
	case HWT_IOC_RING_INFO:
		return hwt_chunk_ring_info(buf);
	case HWT_IOC_SET_CLOCK:
		return hwt_set_clock((unsigned int)arg);
	case HWT_IOC_PROBE_INFO:
		return hwt_probe_info(buf);
	case HWT_IOC_PERSIST_INFO:
		return hwt_persist_info(buf);
	case HWT_IOC_PERSIST_RELEASE:
		return hwt_persist_release();
	default:
		return -ENOTTY;
	}
}

/*
 * The commands, each exactly as numbered (type, number, direction and
 * argument size): anything else is -ENOTTY before its argument is touched.
 */
static bool hwt_ioctl_known(unsigned int cmd)
{
	switch (cmd) {
	case HWT_IOC_GET_VERSION:
	case HWT_IOC_ENABLE:
	case HWT_IOC_DISABLE:
	case HWT_IOC_CHUNK_CREATE:
	case HWT_IOC_CHUNK_DELETE:
	case HWT_IOC_SET_CHUNK_FLAGS:
	case HWT_IOC_GET_CHUNK_FLAGS:
	case HWT_IOC_CHUNK_SELECT:
	case HWT_IOC_CHUNK_LINK:
	case HWT_IOC_GET_FIRST_CHUNK:
	case HWT_IOC_CHUNK_TABLE:
	case HWT_IOC_SET_FILTER:
	case HWT_IOC_GET_FILTER:
	case HWT_IOC_LOG_EVENT:
	case HWT_IOC_RING_INFO:
	case HWT_IOC_SET_CLOCK:
	case HWT_IOC_PROBE_INFO:
	case HWT_IOC_PERSIST_INFO:
	case HWT_IOC_PERSIST_RELEASE:
		return true;
	default:
		return false;
	}
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
	void __user *uarg = (void __user *)arg;
	unsigned int size = _IOC_SIZE(cmd);
	long ret;

	if (!hwt_ioctl_known(cmd))
		return -ENOTTY;
	if (!hwt_full_access(file) && cmd != HWT_IOC_LOG_EVENT &&
	    cmd != HWT_IOC_GET_VERSION)
		return -EPERM;
	if (WARN_ON_ONCE(size > sizeof(buf)))	/* a command buf lacks */
		return -ENOTTY;
	memset(&buf, 0, sizeof(buf));
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&buf, uarg, size))
		return -EFAULT;

	/* injection is the fast path from userspace: no lock */
	if (cmd == HWT_IOC_LOG_EVENT)
		return hwt_log_user(&buf.log);

	/* the table copies to user memory itself, outside hwt_lock */
	if (cmd == HWT_IOC_CHUNK_TABLE) {
		ret = hwt_chunk_table(&buf.table);
	} else {
		mutex_lock(&hwt_lock);
		ret = hwt_ioctl_locked(cmd, arg, &buf);
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
	poll_wait(file, &hwt_wait, wait);
	return hwt_ready() ? EPOLLIN | EPOLLRDNORM : 0;
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
