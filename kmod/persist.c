// SPDX-License-Identifier: GPL-2.0
/*
 * hwtrace persistent flight recorder: a CYC chunk whose rings live in memory
 * reserved at boot (memmap=SIZE$ADDR, or reserve_mem=SIZE:ALIGN:NAME from
 * 6.11), which a warm reboot leaves alone.  The UAPI header describes the
 * layout (struct hwt_persist_header):
 *
 *   phys  +--------+-------------+-----------------+-----------------+---
 *         | header | names ring  | CPU 0: meta pg, | CPU 1: meta pg, | ...
 *         | (page) | 4096 x 48 B | nr_slots recs   | nr_slots recs   |
 *         +--------+-------------+-----------------+-----------------+---
 *                   names_offset  ring_offset       + ring_stride
 *
 * The rings are a chunk's rings with their pages here instead of vmalloc:
 * the write path (ring.h) does not know the difference, and the meta pages
 * already hold what a reader needs after a crash (data_head, written,
 * overwritten).
 *
 * At load, the area holds one of: nothing of ours (a cold boot, garbage:
 * it is laid out afresh and records), this boot's own earlier trace (module
 * reloaded: the same), a previous boot's trace (kept read-only until
 * HWT_IOC_PERSIST_RELEASE), or a header of ours that is torn or of another
 * version (kept, reported, released the same way).
 *
 * On a panic, each ring gets a crash record and tracing stops, so that the
 * panic path's own events do not overwrite the last ones before it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": persist: " fmt

#include <linux/crc32.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kdebug.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uuid.h>
#include "hwt.h"
#include "ring.h"
#include "compat.h"

static char *persist;
module_param(persist, charp, 0444);
MODULE_PARM_DESC(persist, "Persistent flight recorder: SIZE@ADDR of memory reserved with memmap=SIZE$ADDR, or a reserve_mem= name (6.11+)");

/* a name ring of at most this many entries: 192 KiB */
#define PERSIST_NAMES_MAX	4096
#define PERSIST_MIN_SLOTS	64

/* Set at load; state, chunk and names change under hwt_lock (release). */
static struct {
	phys_addr_t phys;
	u64 size;
	void *virt;			/* memremap()ed, whole area */
	struct hwt_persist_header *hdr;	/* == virt */
	u32 state;			/* enum hwt_persist_state; writers acquire it */
	u32 found_version;		/* OTHER_ABI: the version found */
	struct hwt_chunk *chunk;	/* RECORDING: in hwt_chunks[] */
	struct hwt_name *names;		/* RECORDING: under persist_names_lock */
	bool stopped;			/* set once by a crash: no more writes */
	atomic_t mappings;		/* vmas of the read-only kept area */
	u8 boot_id[16];			/* this boot's */
} pa;

static DEFINE_RAW_SPINLOCK(persist_names_lock);

static u32 header_crc(const struct hwt_persist_header *h)
{
	return ~crc32_le(~0U, (const u8 *)h, offsetof(struct hwt_persist_header, header_crc));
}

/* The boot id userspace sees (journalctl --list-boots), or a random one. */
static void read_boot_id(void)
{
	char buf[UUID_STRING_LEN + 1] = "";
	struct file *f;
	loff_t pos = 0;
	uuid_t id;

	f = filp_open("/proc/sys/kernel/random/boot_id", O_RDONLY, 0);
	if (!IS_ERR(f)) {
		if (kernel_read(f, buf, UUID_STRING_LEN, &pos) == UUID_STRING_LEN &&
		    !uuid_parse(buf, &id)) {
			memcpy(pa.boot_id, &id, sizeof(pa.boot_id));
			filp_close(f, NULL);
			return;
		}
		filp_close(f, NULL);
	}
	pr_warn("no boot_id: a reload in this boot will look like a previous boot\n");
	get_random_bytes(pa.boot_id, sizeof(pa.boot_id));
}

static int covered(struct resource *res, void *arg)
{
	*(u64 *)arg += resource_size(res);
	return 0;
}

/* SIZE@ADDR: memory the firmware map marks reserved, no byte of it RAM. */
static int persist_parse_range(const char *s)
{
	u64 size, addr = 0, seen = 0;
	char *p;
	bool at;

	size = memparse(s, &p);
	at = *p == '@';
	if (at)
		addr = memparse(p + 1, &p);
	if (!at || (*p && *p != '\n')) {
		pr_err("persist=%s: not SIZE@ADDR (4M@0x20000000) nor a reserve_mem name\n", s);
		return -EINVAL;
	}
	if (!size || !PAGE_ALIGNED(size) || !PAGE_ALIGNED(addr) ||
	    addr + size < addr) {
		pr_err("persist=%s: size and address must be whole pages\n", s);
		return -EINVAL;
	}
	if (region_intersects(addr, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pr_err("persist=%s: overlaps System RAM the kernel uses; reserve it with memmap=%llu$0x%llx\n",
		       s, size, addr);
		return -EINVAL;
	}
	walk_iomem_res_desc(IORES_DESC_RESERVED, IORESOURCE_MEM, addr,
			    addr + size - 1, &seen, covered);
	if (seen != size) {
		pr_err("persist=%s: not reserved memory (%llu of %llu bytes are); reserve it with memmap=%llu$0x%llx\n",
		       s, seen, size, size, addr);
		return -EINVAL;
	}
	pa.phys = addr;
	pa.size = size;
	return 0;
}

static int persist_parse(const char *s)
{
	if (isdigit(*s))
		return persist_parse_range(s);
#ifdef HWT_HAVE_RESERVE_MEM
	{
		phys_addr_t start, size;

		if (!reserve_mem_find_by_name(s, &start, &size)) {
			pr_err("persist=%s: no reserve_mem=SIZE:ALIGN:%s on the kernel command line\n",
			       s, s);
			return -EINVAL;
		}
		if (!PAGE_ALIGNED(start) || !PAGE_ALIGNED(size)) {
			pr_err("persist=%s: reserve_mem area not page aligned\n", s);
			return -EINVAL;
		}
		pa.phys = start;
		pa.size = size;
		return 0;
	}
#else
	pr_err("persist=%s: not SIZE@ADDR, and this kernel has no reserve_mem=\n", s);
	return -EINVAL;
#endif
}

/* A fresh layout for this area and the possible CPUs; false if too small. */
static bool persist_layout(struct hwt_persist_header *h)
{
	u64 names_bytes, rest, stride;

	memset(h, 0, sizeof(*h));
	h->magic = HWT_PERSIST_MAGIC;
	h->version = HWT_PERSIST_VERSION;
	h->header_size = sizeof(*h);
	h->phys_addr = pa.phys;
	h->size = pa.size;
	memcpy(h->boot_id, pa.boot_id, sizeof(h->boot_id));
	h->clock = hwt_clock_kind();
	h->cycles_per_msec = hwt_clock_rate();
	h->nr_cpus = nr_cpu_ids;
	h->page_size = PAGE_SIZE;
	h->names_offset = PAGE_SIZE;
	/* names take at most a sixteenth of the area */
	names_bytes = min_t(u64, PERSIST_NAMES_MAX * sizeof(struct hwt_name),
			    pa.size / 16);
	h->names_max = names_bytes / sizeof(struct hwt_name);
	h->ring_offset = PAGE_SIZE + PAGE_ALIGN(names_bytes);
	if (h->ring_offset >= pa.size)
		return false;
	rest = pa.size - h->ring_offset;
	stride = rest / nr_cpu_ids & PAGE_MASK;
	if (stride < PAGE_SIZE + PERSIST_MIN_SLOTS * HWT_EVENT_SIZE)
		return false;
	h->ring_stride = stride;
	h->nr_slots = min_t(u64, (stride - PAGE_SIZE) / HWT_EVENT_SIZE, HWT_MAX_SLOTS);
	h->header_crc = header_crc(h);
	return true;
}

/* Does a header of ours describe a layout that fits the area? */
static bool persist_header_sane(const struct hwt_persist_header *h)
{
	u64 rings;

	if (h->header_size != sizeof(*h) || h->phys_addr != pa.phys ||
	    h->size != pa.size || h->page_size != PAGE_SIZE || !h->nr_cpus ||
	    h->nr_cpus > 65536 || h->names_offset < PAGE_SIZE ||
	    h->names_offset > pa.size || h->names_max >
	    (pa.size - h->names_offset) / sizeof(struct hwt_name) ||
	    h->ring_offset > pa.size || h->ring_stride < PAGE_SIZE ||
	    !h->nr_slots || h->nr_slots > (h->ring_stride - PAGE_SIZE) / HWT_EVENT_SIZE)
		return false;
	rings = (u64)h->nr_cpus * h->ring_stride;
	return rings / h->nr_cpus == h->ring_stride &&
	       rings <= pa.size - h->ring_offset;
}

static struct hwt_ring_meta *persist_meta(int cpu)
{
	return pa.virt + pa.hdr->ring_offset + (u64)cpu * pa.hdr->ring_stride;
}

/* Lay the area out for this boot and put its chunk in the table. */
static int persist_start(void)
{
	struct hwt_persist_header *h = pa.hdr;
	struct hwt_chunk *c;
	int id, cpu;

	for (id = 0; id < HWT_MAX_CHUNKS && hwt_chunks[id]; id++)
		;
	if (id == HWT_MAX_CHUNKS)
		return -ENOSPC;
	c = kzalloc(struct_size(c, rings, nr_cpu_ids), GFP_KERNEL);
	if (!c)
		return -ENOMEM;

	memset(pa.virt, 0, pa.size);
	if (!persist_layout(h)) {
		kfree(c);
		pr_err("%llu bytes are too few for %u CPUs\n", pa.size, nr_cpu_ids);
		return -EINVAL;
	}
	pa.names = pa.virt + h->names_offset;
	c->id = id;
	c->flags = HWT_CHUNK_CYC | HWT_CHUNK_FREE | HWT_CHUNK_NODEL;
	c->persist = true;
	c->normal_size = ((u64)h->nr_slots * HWT_EVENT_SIZE) - HWT_MIN_EMERGENCY;
	c->emergency_size = HWT_MIN_EMERGENCY;
	for_each_possible_cpu(cpu) {
		struct hwt_ring_meta *m = persist_meta(cpu);

		hwt_ring_setup(&c->rings[cpu], m, (void *)m + PAGE_SIZE,
			       h->nr_slots, c->normal_size / HWT_EVENT_SIZE, id,
			       c->flags, cpu);
	}
	pa.stopped = false;
	pa.chunk = c;
	/* names, chunk and layout before the state that lets writers in */
	smp_store_release(&pa.state, HWT_PERSIST_RECORDING);
	hwt_chunks[id] = c;
	pr_info("chunk %d records into %llu bytes at 0x%llx: %u records per CPU\n",
		id, pa.size, (u64)pa.phys, h->nr_slots);
	return 0;
}

/* What the area holds at load. */
static u32 persist_examine(void)
{
	struct hwt_persist_header *h = pa.hdr;
	bool same_boot;

	if (READ_ONCE(h->magic) != HWT_PERSIST_MAGIC) {
		pr_info("no previous trace at 0x%llx\n", (u64)pa.phys);
		return HWT_PERSIST_OFF;
	}
	if (h->version != HWT_PERSIST_VERSION) {
		pa.found_version = h->version;
		pr_warn("trace at 0x%llx has layout version %u, not %u: kept until released\n",
			(u64)pa.phys, h->version, HWT_PERSIST_VERSION);
		return HWT_PERSIST_OTHER_ABI;
	}
	if (h->header_crc != header_crc(h) || !persist_header_sane(h)) {
		pr_warn("trace at 0x%llx is corrupt (header checksum or layout): kept until released\n",
			(u64)pa.phys);
		return HWT_PERSIST_CORRUPT;
	}
	/* a reload: this boot's trace is kept only if it ended in an oops */
	same_boot = !memcmp(h->boot_id, pa.boot_id, sizeof(h->boot_id));
	if (same_boot && !h->crash) {
		pr_info("trace at 0x%llx is this boot's own: recording afresh\n",
			(u64)pa.phys);
		return HWT_PERSIST_OFF;
	}
	pr_info("%s trace at 0x%llx (%s, %u CPUs): read-only until released\n",
		same_boot ? "this boot's" : "previous boot's", (u64)pa.phys,
		h->crash == HWT_CRASH_PANIC ? "panic" :
		h->crash == HWT_CRASH_OOPS ? "oops" : "no crash record", h->nr_cpus);
	return HWT_PERSIST_PREVIOUS;
}

/*
 * The crash record on a ring whose CPU is stopped (panic: every other CPU
 * is halted; this one is here).  Written at head and published at once.
 */
static void persist_final(struct hwt_ring *r, u16 kind, u32 cpu)
{
	unsigned long pos = HWT_HEAD_POS(local_read(&r->head));

	hwt_ring_store(hwt_ring_slot(r, pos), HWT_EV_CRASH, kind, cpu, hwt_now());
	pos = pos + 1 == 2UL * r->nr_slots ? 0 : pos + 1;
	local_set(&r->head, hwt_head(r, pos, 0));	/* no room: nothing follows */
	local_inc(&r->written);
	smp_wmb();	/* the record before data_head, as in hwt_ring_commit() */
	WRITE_ONCE(r->meta->data_head, pos);
	WRITE_ONCE(r->meta->written, local_read(&r->written));
	WRITE_ONCE(r->meta->overwritten, hwt_ring_overwritten(r));
}

/* Stop writes into the area; the header says why.  Any context. */
static void persist_crash(u16 kind)
{
	struct hwt_chunk *c = pa.chunk;
	u32 me = raw_smp_processor_id();
	int cpu;

	/* acquire: pairs with persist_start()'s release of the state */
	if (smp_load_acquire(&pa.state) != HWT_PERSIST_RECORDING ||
	    xchg(&pa.stopped, true))
		return;
	for_each_possible_cpu(cpu)
		if (rcu_access_pointer(per_cpu(hwt_cur, cpu)) == &c->rings[cpu])
			RCU_INIT_POINTER(per_cpu(hwt_cur, cpu), NULL);
	if (!(READ_ONCE(c->flags) & HWT_CHUNK_FREE)) {
		/* after a panic every other CPU is halted: their rings are still */
		if (kind == HWT_CRASH_PANIC) {
			for_each_possible_cpu(cpu)
				persist_final(&c->rings[cpu], kind, me);
		} else {
			persist_final(&c->rings[me], kind, me);
		}
	}
	pa.hdr->crash = kind;
	pa.hdr->crash_cpu = me;
	pa.hdr->clock = hwt_clock_kind();
	pa.hdr->cycles_per_msec = hwt_clock_rate();
	pa.hdr->header_crc = header_crc(pa.hdr);
}

static int persist_panic(struct notifier_block *nb, unsigned long ev, void *data)
{
	persist_crash(HWT_CRASH_PANIC);
	return NOTIFY_DONE;
}

/*
 * An oops may not panic: the other CPUs run on, so only this CPU's ring can
 * get its record.  Writes stop all the same: what led to the oops is what a
 * post-mortem wants, not what a damaged kernel did after it.
 */
static int persist_die(struct notifier_block *nb, unsigned long ev, void *data)
{
	if (ev == DIE_OOPS) {
		preempt_disable_notrace();
		persist_crash(HWT_CRASH_OOPS);
		preempt_enable_notrace();
	}
	return NOTIFY_DONE;
}

static struct notifier_block persist_panic_nb = {
	.notifier_call = persist_panic,
	.priority = INT_MAX,	/* before the notifiers whose noise we skip */
};

static struct notifier_block persist_die_nb = {
	.notifier_call = persist_die,
};

/* names.c: a name also goes to the area, newest names_max kept. */
void hwt_persist_name(u32 kind, u32 id, u32 tgid, const char *name)
{
	struct hwt_persist_header *h = pa.hdr;
	struct hwt_name *n;
	unsigned long flags;

	/* acquire: pairs with persist_start()'s release of the state */
	if (smp_load_acquire(&pa.state) != HWT_PERSIST_RECORDING ||
	    READ_ONCE(pa.stopped) || !h->names_max)
		return;
	raw_spin_lock_irqsave(&persist_names_lock, flags);
	n = &pa.names[h->names_written % h->names_max];
	n->kind = kind;
	n->id = id;
	n->tgid = tgid;
	n->reserved = 0;
	strscpy_pad(n->name, name, sizeof(n->name));
	smp_wmb();	/* the entry before the count that says it is there */
	WRITE_ONCE(h->names_written, h->names_written + 1);
	raw_spin_unlock_irqrestore(&persist_names_lock, flags);
}

int hwt_persist_info(struct hwt_persist_info *info)
{
	memset(info, 0, sizeof(*info));
	info->state = pa.state;
	info->chunk = pa.state == HWT_PERSIST_RECORDING ? pa.chunk->id : HWT_NO_CHUNK;
	info->phys_addr = pa.phys;
	info->size = pa.size;
	if (pa.state >= HWT_PERSIST_PREVIOUS)
		info->mmap_offset = HWT_PERSIST_MMAP_OFFSET;
	info->version = pa.found_version;
	return 0;
}

/* Give a kept trace up: the area records again.  Under hwt_lock. */
int hwt_persist_release(void)
{
	if (pa.state < HWT_PERSIST_PREVIOUS)
		return pa.state == HWT_PERSIST_OFF ? -ENOENT : -EINVAL;
	if (atomic_read(&pa.mappings))
		return -EBUSY;
	pr_info("previous trace at 0x%llx released\n", (u64)pa.phys);
	return persist_start();
}

/* dev.c: map a ring page range of the persistent chunk. */
int hwt_persist_remap(struct vm_area_struct *vma, void *mem, u64 size)
{
	phys_addr_t phys = pa.phys + (mem - pa.virt);

	return remap_pfn_range(vma, vma->vm_start, PHYS_PFN(phys), size,
			       vma->vm_page_prot);
}

static void persist_vma_open(struct vm_area_struct *vma)
{
	atomic_inc(&pa.mappings);
}

static void persist_vma_close(struct vm_area_struct *vma)
{
	atomic_dec(&pa.mappings);
}

static const struct vm_operations_struct persist_vm_ops = {
	.open = persist_vma_open,
	.close = persist_vma_close,
};

/* dev.c: the kept trace, whole and read-only, at HWT_PERSIST_MMAP_OFFSET. */
int hwt_persist_mmap(struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	int ret;

	mutex_lock(&hwt_lock);
	ret = -EINVAL;
	if (pa.state < HWT_PERSIST_PREVIOUS || len != pa.size)
		goto out;
	ret = -EPERM;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		goto out;
	hwt_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE | VM_MAYEXEC);
	ret = remap_pfn_range(vma, vma->vm_start, PHYS_PFN(pa.phys), len,
			      vma->vm_page_prot);
	if (ret)
		goto out;
	vma->vm_ops = &persist_vm_ops;
	atomic_inc(&pa.mappings);
out:
	mutex_unlock(&hwt_lock);
	return ret;
}

int hwt_persist_init(void)
{
	int ret;

	if (!persist || !*persist)
		return 0;
	ret = persist_parse(persist);
	if (ret)
		return ret;
	if (pa.size < 2 * PAGE_SIZE) {
		pr_err("persist=%s: at least two pages\n", persist);
		return -EINVAL;
	}
	pa.virt = memremap(pa.phys, pa.size, MEMREMAP_WB);
	if (!pa.virt) {
		pr_err("persist=%s: cannot map 0x%llx\n", persist, (u64)pa.phys);
		return -ENOMEM;
	}
	pa.hdr = pa.virt;
	read_boot_id();

	mutex_lock(&hwt_lock);
	pa.state = persist_examine();
	ret = pa.state == HWT_PERSIST_OFF ? persist_start() : 0;
	mutex_unlock(&hwt_lock);
	if (ret) {
		memunmap(pa.virt);
		pa.virt = NULL;
		pa.state = HWT_PERSIST_OFF;
		return ret;
	}
	atomic_notifier_chain_register(&panic_notifier_list, &persist_panic_nb);
	register_die_notifier(&persist_die_nb);
	return 0;
}

/* Module exit, under hwt_lock with tracing off and no file open. */
void hwt_persist_exit(void)
{
	if (!pa.virt)
		return;
	unregister_die_notifier(&persist_die_nb);
	atomic_notifier_chain_unregister(&panic_notifier_list, &persist_panic_nb);
	if (pa.chunk) {
		if (hwt_selected == pa.chunk)
			hwt_selected = NULL;
		hwt_chunks[pa.chunk->id] = NULL;
		kfree(pa.chunk);
		pa.chunk = NULL;
	}
	pa.state = HWT_PERSIST_OFF;
	memunmap(pa.virt);
	pa.virt = NULL;
}
