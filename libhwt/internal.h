/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* libhwt internals shared by its files; not installed. */
#ifndef HWT_INTERNAL_H
#define HWT_INTERNAL_H

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <zlib.h>

#include <hwt/hwt.h>

/* Not exported although hwt_-prefixed: the symbol map exports hwt_*. */
#define HWT_HIDDEN	__attribute__((visibility("hidden")))

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))

/* Every public error path: errno set, negative errno returned. */
static inline int hwt_err(int err)
{
	if (err < 0)
		errno = -err;
	return err;
}

/* An option struct's field is present if the caller's sz covers it. */
#define HWT_OPT(opts, field, def)					\
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) +	\
		   sizeof((opts)->field) ? (opts)->field : (def))

HWT_HIDDEN __attribute__((format(printf, 2, 3)))
void hwt_pr(enum hwt_print_level level, const char *fmt, ...);
#define pr_warn(fmt, ...)	hwt_pr(HWT_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	hwt_pr(HWT_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	hwt_pr(HWT_DEBUG, fmt, ##__VA_ARGS__)

/* CRC-32 (IEEE 802.3) of the .hwt header and blocks: zlib's, crc starts at 0 */
static inline uint32_t hwt_crc32(uint32_t crc, const void *buf, size_t len)
{
	const Bytef *p = buf;
	uLong c = crc;

	/* zlib takes lengths as uInt */
	for (; len > UINT32_MAX; len -= UINT32_MAX, p += UINT32_MAX)
		c = crc32(c, p, UINT32_MAX);
	return (uint32_t)crc32(c, p, (uInt)len);
}

/* device.c: a new open file of d's device, or -errno */
HWT_HIDDEN int hwt_dev_reopen(const struct hwt_dev *d);

/* file_fmt.h has the on-disk layout */

/* Records in the file are little-endian, as S.Ha.R.K.'s. */
static inline void hwt_event_to_le(struct hwt_event *dst, const struct hwt_event *src)
{
	dst->code = htole16(src->code);
	dst->par1 = htole16(src->par1);
	dst->tsc_hi = htole32(src->tsc_hi);
	dst->tsc_lo = htole32(src->tsc_lo);
	dst->par2 = htole32(src->par2);
}

static inline void hwt_event_from_le(struct hwt_event *dst, const struct hwt_event *src)
{
	dst->code = le16toh(src->code);
	dst->par1 = le16toh(src->par1);
	dst->tsc_hi = le32toh(src->tsc_hi);
	dst->tsc_lo = le32toh(src->tsc_lo);
	dst->par2 = le32toh(src->par2);
}

/*
 * Records to drop from the front of an n-record CYC snapshot of a ring of
 * nr_slots after writers moved it on by moved records (plus HWT_SNAP_MARGIN
 * in flight if live): position head + k overwrote a copied slot only for
 * k >= nr_slots - n.
 */
static inline uint64_t hwt_snapshot_drop(uint64_t n, uint32_t nr_slots,
					 uint64_t moved, int live)
{
	uint64_t d = moved + (live ? HWT_SNAP_MARGIN : 0);

	d = d > nr_slots - n ? d - (nr_slots - n) : 0;
	return d < n ? d : n;
}

#endif /* HWT_INTERNAL_H */
