/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The .hwt layout, shared by the writer and the reader.  The prose is in
 * Documentation/hwt-file-format.rst; keep the two in step.
 *
 *   +-------------+----------------------------------------------------+
 *   | file header | 256 bytes: identity, clock, host, header CRC       |
 *   +-------------+----------------------------------------------------+
 *   | block       | 32-byte header {type, cpu, count, sizes, CRCs}     |
 *   |             | payload: RECORDS (raw or zstd), NAMES, COUNTERS    |
 *   | block ...   | in the order the writer produced them              |
 *   | END block   | the writer closed the file cleanly                 |
 *   +-------------+----------------------------------------------------+
 *
 * All integers are little-endian; records are S.Ha.R.K.'s 16 bytes.  A
 * reader needs nothing but the header and the block headers to find every
 * CPU's records, which is what lets it stream a large file with small RSS,
 * and lets a file cut off mid-block be read up to its last whole record.
 */
#ifndef HWT_FILE_FMT_H
#define HWT_FILE_FMT_H

#include <stdint.h>

/* PNG-style: non-ASCII first byte, CR-LF and ^Z catch text-mode mangling. */
#define HWT_FILE_MAGIC		"\x89HWT\r\n\x1a\n"
#define HWT_FILE_MAGIC_LEN	8
#define HWT_FILE_ENDIAN		0x01020304u
#define HWT_FILE_HEADER_SIZE	256
#define HWT_FILE_MAX_CPUS	65536	/* what HWT_MMAP_OFFSET can name */

struct hwt_file_header {
	char magic[8];			/* HWT_FILE_MAGIC */
	uint32_t endian;		/* HWT_FILE_ENDIAN */
	uint16_t version_major;		/* readers refuse a newer major */
	uint16_t version_minor;		/* and accept any minor */
	uint32_t header_size;		/* HWT_FILE_HEADER_SIZE */
	uint32_t nr_cpus;		/* CPUs at creation (COUNTERS may raise) */
	uint32_t clock;			/* enum hwt_clock */
	uint32_t families;		/* bit n: family n recorded */
	uint32_t chunk_mode;		/* HWT_CHUNK_CYC / JTN / STOP */
	uint32_t flags;			/* HWT_FH_* */
	uint64_t cycles_per_msec;
	int64_t creation_time;		/* seconds since the epoch, UTC */
	uint32_t block_records;		/* writer's block size, informative */
	uint32_t reserved0;
	char kernel_release[65];	/* NUL-terminated (uname -r) */
	char hostname[65];
	char backend[16];		/* "module" or "bpf" */
	/* HWT_FH_RECOVERED: the persistent area's (hwtrace recover) */
	uint8_t boot_id[16];		/* boot that wrote the trace */
	uint32_t crash;			/* enum hwt_crash_kind */
	uint32_t crash_cpu;
	char writer_version[16];	/* hwt_version() of the writer (1.1) */
	uint8_t reserved1[2];
	uint32_t header_crc;		/* CRC-32 of the 252 bytes before it */
} __attribute__((packed));

_Static_assert(sizeof(struct hwt_file_header) == HWT_FILE_HEADER_SIZE,
	       "file header is 256 bytes");

#define HWT_FH_COMPRESSED	0x1	/* the writer compressed record blocks */
#define HWT_FH_RECOVERED	0x2	/* a previous boot's persistent trace */

#define HWT_BLOCK_MAGIC		0x42545748u	/* "HWTB" */

struct hwt_block_header {
	uint32_t magic;			/* HWT_BLOCK_MAGIC */
	uint16_t type;			/* enum hwt_block_type */
	uint16_t flags;			/* HWT_BF_* */
	uint32_t cpu;			/* RECORDS: the CPU; others: ~0 */
	uint32_t count;			/* records, names or CPUs */
	uint32_t stored_size;		/* payload bytes that follow */
	uint32_t raw_size;		/* payload bytes once decompressed */
	uint32_t payload_crc;		/* CRC-32 of the stored payload */
	uint32_t header_crc;		/* CRC-32 of the 28 bytes before it */
} __attribute__((packed));

_Static_assert(sizeof(struct hwt_block_header) == 32, "block header is 32 bytes");

enum hwt_block_type {
	HWT_BLOCK_RECORDS	= 1,	/* count records of cpu, oldest first */
	HWT_BLOCK_NAMES		= 2,	/* count name entries */
	HWT_BLOCK_COUNTERS	= 3,	/* loss counters of count CPUs, totals */
	HWT_BLOCK_END		= 4,	/* clean close */
};

#define HWT_BF_ZSTD		0x1	/* payload is one zstd frame */

/* NAMES entry: 16 bytes then len name bytes (no NUL), padded to 4. */
struct hwt_name_entry {
	uint32_t kind;			/* HWT_NAME_TASK, HWT_NAME_IRQ */
	uint32_t id;			/* pid or irq */
	uint32_t tgid;			/* tasks; 0 for irqs */
	uint16_t len;
	uint16_t reserved;
} __attribute__((packed));

/*
 * COUNTERS payload: this header, then count struct hwt_cpu_counters, then
 * (minor version 1, a UDP receiver's file only) u64 nr and nr u64 net
 * counters in struct hwt_net_counters order.  Readers of minor 0 stop
 * after the CPUs and never see them.
 */
struct hwt_counters_header {
	uint64_t names_lost;
	uint64_t lost_nocpu;		/* events lost on no known CPU */
} __attribute__((packed));

struct hwt_cpu_counters {
	uint64_t lost;
	uint64_t overwritten;
} __attribute__((packed));

/* END payload */
struct hwt_end {
	uint64_t records;		/* records in all RECORDS blocks */
	uint64_t blocks;		/* blocks before this one */
} __attribute__((packed));

/* Sanity limits a reader enforces: a corrupt size never becomes a malloc. */
#define HWT_MAX_BLOCK_RECORDS	(1u << 16)		/* 1 MiB of records */
/* decoded blocks held at once (one per CPU): a zstd bomb stops here */
#define HWT_READER_MEM_LIMIT	(256ull << 20)
#define HWT_MAX_META_PAYLOAD	(16u << 20)
#define HWT_MAX_NAME_LEN	255

#endif /* HWT_FILE_FMT_H */
