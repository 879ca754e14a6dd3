/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API that kmod's write path uses (ring.h, record.h, ring.c,
 * overflow.c and the hwt.h/compat.h they include), for a host program that
 * compiles those files unchanged and runs them on simulated CPUs.
 *
 * Every fake <linux/...> and <asm/...> header beside this one only includes
 * it: the kernel reaches most of these names through chains of includes, and
 * one file keeps the whole fake kernel in view.  What is here is what the
 * write path needs, and no more.
 *
 * Interrupts are simulated, not real: right after each access a nested writer
 * could see (a local_t operation, READ_ONCE/WRITE_ONCE, an acquire load, a
 * barrier, the per-CPU ring pointer, xchg/cmpxchg), after each clock read
 * and at the wakeup call, the write path calls shim_point(), which the test
 * defines.  The test may run a nested writer there (hwt_record() again, as an
 * IRQ or NMI arriving at that instruction would), or let a consumer on
 * another CPU advance data_tail.  A plain store or load is no
 * such point: the code under test says by the accessor it uses what it
 * shares.
 */
#ifndef HWT_SHIM_H
#define HWT_SHIM_H

/* libc first: its <sys/cdefs.h> and <endian.h> must not redefine ours */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/types.h>
/* __u8 .. __u64 for the UAPI header, from the system's asm/types.h */
#include <asm/types.h>

/* ---- the hooks the test defines ---------------------------------------- */

enum shim_at {
	SHIM_LOCAL,		/* a local_t read, write or read-modify-write */
	SHIM_CMPXCHG_OK,	/* local_cmpxchg() that swapped (old in val) */
	SHIM_CMPXCHG_FAIL,	/* local_cmpxchg() that found another value */
	SHIM_XCHG,		/* xchg(), cmpxchg_local() */
	SHIM_READ,		/* READ_ONCE(), rcu_dereference_sched() */
	SHIM_WRITE,		/* WRITE_ONCE(), rcu_assign_pointer() */
	SHIM_ACQUIRE,		/* smp_load_acquire() */
	SHIM_BARRIER,		/* barrier(), smp_wmb() */
	SHIM_PERCPU,		/* this_cpu_read(): a writer has read hwt_cur */
	SHIM_CYCLES,		/* the cycle counter was read (val: the time) */
	SHIM_MONO,		/* the monotonic clock was read (val: the time) */
	SHIM_WAKEUP,		/* hwt_wakeup_ring() queued the consumer's wakeup */
};

/* After an access to addr (NULL for a clock read or the wakeup). */
void shim_point(enum shim_at at, const volatile void *addr, unsigned long val);
/* The simulated clock: strictly increasing, one tick per read. */
unsigned long long shim_clock(enum shim_at kind);
/* A kernel BUG(): the test fails. */
void shim_bug(const char *what, const char *file, int line) __attribute__((noreturn));
/* The simulated CPU that runs now, and its preempt count (writers raise it). */
extern int shim_cpu;
extern int shim_preempt_count;
#define SHIM_NR_CPUS		2

/* ---- compiler.h, compiler_types.h --------------------------------------- */

/* the kernel's definition, not glibc's (they differ by a token) */
#undef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
/* sparse's address spaces: nothing to a compiler */
#define __rcu
#define __force
#define __user
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define BUILD_BUG_ON(c)		_Static_assert(!(c), "BUILD_BUG_ON(" #c ")")

#define READ_ONCE(x) ({							\
	__typeof__(x) __r1 = *(const volatile __typeof__(x) *)&(x);	\
	shim_point(SHIM_READ, &(x), 0);					\
	__r1; })
#define WRITE_ONCE(x, v) do {						\
	*(volatile __typeof__(x) *)&(x) = (v);				\
	shim_point(SHIM_WRITE, &(x), 0);				\
} while (0)
/* the compiler barrier is a point: the code says an interrupt matters there */
#define barrier() do {							\
	__asm__ __volatile__("" ::: "memory");				\
	shim_point(SHIM_BARRIER, NULL, 0);				\
} while (0)

/* ---- asm/barrier.h: one CPU writes, so only the points matter ---------- */

#define smp_wmb()		barrier()
#define smp_load_acquire(p) ({						\
	__typeof__(*(p)) __r2 = __atomic_load_n((p), __ATOMIC_ACQUIRE);	\
	shim_point(SHIM_ACQUIRE, (p), 0);				\
	__r2; })

/* ---- types, bits, minmax, container_of ---------------------------------- */

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef struct { int counter; } atomic_t;	/* struct hwt_chunk has one */

#define BITS_PER_LONG		(__SIZEOF_LONG__ * 8)
#define BIT(n)			(1UL << (n))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))
#define upper_32_bits(n)	((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))
/* the kernel's type check: min() of two types is a build error */
#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);	\
	(void)(&__a == &__b); __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);	\
	(void)(&__a == &__b); __a > __b ? __a : __b; })
#define min3(a, b, c)	min(min(a, b), c)
#define min_t(t, a, b)		min((t)(a), (t)(b))

/* the record's byte order: the host's (glibc defines both names) */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#undef __LITTLE_ENDIAN
#endif

/* ---- asm/local.h: a plain long, since interrupts are only at the points */

typedef struct { long a; } local_t;

static inline long local_read(const local_t *l)
{
	long v = l->a;

	shim_point(SHIM_LOCAL, l, 0);
	return v;
}

static inline void local_set(local_t *l, long v)
{
	l->a = v;
	shim_point(SHIM_LOCAL, l, 0);
}

static inline long local_add_return(long i, local_t *l)
{
	long v = l->a += i;

	shim_point(SHIM_LOCAL, l, 0);
	return v;
}

#define local_inc_return(l)	local_add_return(1, (l))
#define local_inc(l)		((void)local_add_return(1, (l)))
#define local_dec(l)		((void)local_add_return(-1, (l)))

static inline long local_cmpxchg(local_t *l, long old, long new)
{
	long v = l->a;

	if (v == old)
		l->a = new;
	shim_point(v == old ? SHIM_CMPXCHG_OK : SHIM_CMPXCHG_FAIL, l,
		   (unsigned long)v);
	return v;
}

/* ---- atomics on ordinary words: JTN's and cpu_stop's hwt_cur ---------- */

#define cmpxchg_local(p, o, n) ({					\
	__typeof__(*(p)) __c = *(p);					\
	if (__c == (o))							\
		*(p) = (n);						\
	shim_point(SHIM_XCHG, (p), 0);					\
	__c; })
#define xchg(p, v) ({							\
	__typeof__(*(p)) __x = *(p);					\
	*(p) = (v);							\
	shim_point(SHIM_XCHG, (p), 0);					\
	__x; })

/* ---- percpu.h, smp.h: SHIM_NR_CPUS copies, shim_cpu runs -------------- */

#define DECLARE_PER_CPU(type, name)	extern type name[SHIM_NR_CPUS]
#define DEFINE_PER_CPU(type, name)	type name[SHIM_NR_CPUS]
#define per_cpu(var, cpu)		((var)[cpu])
#define this_cpu_ptr(p)			(&(*(p))[smp_processor_id()])
#define this_cpu_read(var) ({						\
	__typeof__((var)[0]) __p = (var)[smp_processor_id()];		\
	shim_point(SHIM_PERCPU, &(var)[shim_cpu], 0);			\
	__p; })

/* CONFIG_DEBUG_PREEMPT's check: this CPU means nothing if we may migrate */
static inline int smp_processor_id(void)
{
	if (shim_preempt_count <= 0)
		shim_bug("smp_processor_id() preemptible", __FILE__, __LINE__);
	return shim_cpu;
}

/* ---- preempt.h ---------------------------------------------------------- */

#define preempt_disable_notrace() do { shim_preempt_count++; barrier(); } while (0)
#define preempt_enable_notrace() do { barrier(); shim_preempt_count--; } while (0)

/* ---- rcupdate.h: RCU-sched readers are the preempt-disabled writers ---- */

#define RCU_INITIALIZER(v)		((__typeof__(*(v)) *)(v))
#define unrcu_pointer(p)		(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_dereference_sched(p)	READ_ONCE(p)
#define rcu_assign_pointer(p, v)	WRITE_ONCE(p, v)
#define rcu_read_lock_sched_held()	(shim_preempt_count > 0)
#define RCU_LOCKDEP_WARN(c, s) do {					\
	if (c)								\
		shim_bug(s, __FILE__, __LINE__);			\
} while (0)

/* ---- jump_label.h: a key is a flag the test sets ----------------------- */

struct static_key_true { bool enabled; };
#define DECLARE_STATIC_KEY_TRUE(name)	extern struct static_key_true name
#define DEFINE_STATIC_KEY_TRUE(name)	struct static_key_true name = { true }
#define static_branch_likely(k)		((k)->enabled)

/* ---- the clocks: compat.h's x86 branch, the one the kernel builds ------ */

#define CONFIG_X86			1
#define rdtsc_ordered()			shim_clock(SHIM_CYCLES)
#define ktime_get_mono_fast_ns()	shim_clock(SHIM_MONO)
#define check_tsc_unstable()		0
#define tsc_khz				1000000U
#define boot_cpu_has(f)			((void)(f), 1)
#define X86_FEATURE_CONSTANT_TSC	0
#define X86_FEATURE_NONSTOP_TSC		1

/* ---- version.h, mm.h: what compat.h's vm_flags helper needs (6.1) ----- */

#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 1, 0)
struct vm_area_struct { unsigned long vm_flags; };

/* hwt.h declares these for files the test does not build */
struct mutex { int unused; };
#define ____cacheline_aligned_in_smp	__attribute__((__aligned__(64)))

/*
 * ---- allocation: ring.c's ring_alloc() and hwt_ring_init() ---------------
 * Not the write path: the test builds rings on its own memory with
 * hwt_ring_setup().  These let ring.c compile whole, and fail if reached.
 */
#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PAGE_ALIGN(x)		(((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define PAGE_KERNEL		0
#define GFP_KERNEL		0
#define __GFP_ZERO		0
#define VM_MAP			0
#define VM_USERMAP		0
#define VM_MAP_PUT_PAGES	0
#define cpu_to_node(cpu)	((void)(cpu), 0)
struct page;
#define SHIM_NOT_HERE(f)	shim_bug(f " is not simulated", __FILE__, __LINE__)
#define kvcalloc(n, size, gfp)	((void)(n), (void)(gfp), SHIM_NOT_HERE("kvcalloc"), NULL)
#define alloc_pages_node(node, gfp, order) \
	((void)(node), SHIM_NOT_HERE("alloc_pages_node"), (struct page *)NULL)
#define vmap(pages, n, flags, prot) \
	((void)(pages), (void)(n), SHIM_NOT_HERE("vmap"), NULL)
#define __free_page(p)		((void)(p), SHIM_NOT_HERE("__free_page"))
#define kvfree(p)		((void)(p), SHIM_NOT_HERE("kvfree"))
#define vfree(p)		((void)(p), SHIM_NOT_HERE("vfree"))

#endif /* HWT_SHIM_H */
