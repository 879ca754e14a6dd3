/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtrace(1): one file per subcommand, helpers in util.c; record is in
 * three (record.h).
 *
 *   record/snapshot: /dev/hwtrace -> libhwt consumer -> .hwt file or UDP
 *   listen:          UDP -> .hwt file
 *   dump/stats/convert: .hwt file -> libhwt reader -> text / converters
 *   ctl/log:         the FTrace calls, one ioctl each
 */
#ifndef HWTRACE_H
#define HWTRACE_H

#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <hwt/hwt.h>

/* Exit codes (documented in hwtrace(1)). */
enum {
	EXIT_OK		= 0,
	EXIT_ERR	= 1,
	EXIT_USAGE	= 2,
	EXIT_PARTIAL	= 3,	/* input truncated or damaged, or data missing */
};

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_ctl(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_listen(int argc, char **argv);
int cmd_recover(int argc, char **argv);

/* util.c: parsing (unit-tested in tests/test_util.c) */
#define FAMILIES_ALL	0x0FFFu		/* families 0..11 have events */
int parse_families(const char *s, uint32_t *mask, FILE *err);
void list_families(FILE *f);
int parse_size(const char *s, uint64_t *out);
int parse_u32(const char *s, uint32_t *out);
/* An IPv4 or IPv6 socket address and its length, for bind/connect/sendto. */
struct net_addr {
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	};
	socklen_t len;
};

/*
 * HOST[:PORT], [IPV6][:PORT] or a bare IPv6 address (no port); HOST an
 * IPv4 or IPv6 address or a name (its IPv4 address if it has one).
 * def_port when no port is given (0 is allowed here, unlike a given one).
 */
int parse_host_port(const char *s, struct net_addr *a, uint16_t def_port);
/* udp:// then parse_host_port(). */
int parse_udp_url(const char *s, struct net_addr *a, uint16_t def_port);
/* "1.2.3.4:5" or "[::1]:5"; an IPv4-mapped IPv6 address as IPv4. */
const char *format_addr(const struct sockaddr *sa, char *buf, size_t size);
/*
 * Is got the source want names?  Same address (IPv4 matches its IPv6-mapped
 * form, as a [::] socket reports IPv4 senders) and port, or any port when
 * want's is 0.
 */
int addr_matches(const struct net_addr *want, const struct sockaddr *got);
int is_udp_url(const char *s);
int parse_chunk_flags(const char *s, uint32_t *flags);
void format_chunk_flags(uint32_t flags, char *buf, size_t size);
int parse_event_code(const char *s, uint16_t *code);
void format_bytes(uint64_t n, char *buf, size_t size);

/* util.c: device and messages */
extern const char *prog;
__attribute__((format(printf, 1, 2))) void warnx_(const char *fmt, ...);
#define errmsg(...)	warnx_(__VA_ARGS__)
/* Open /dev/hwtrace, explaining a missing module or missing permission. */
struct hwt_dev *open_dev(void);
/* Explain a failed ioctl: -err from libhwt. */
void dev_error(const char *what, int err);
/* hwt_reader_open() with a message saying what went wrong. */
int open_trace(const char *path, struct hwt_reader **r);
/* A recovered trace: enum hwt_crash_kind in words; a boot id as a UUID. */
const char *crash_name(uint32_t kind);
void format_boot_id(const uint8_t *id, char *buf, size_t size);
/* Fill a trace-info for this host (uname, hostname, time, backend). */
void host_info(struct hwt_trace_info *info);
/* -h/--help seen in argv: print usage and return 1. */
int want_help(int argc, char **argv, const char *usage);
/* Interrupt flag set by SIGINT/SIGTERM (install_stop_handlers). */
extern volatile sig_atomic_t stop_requested;
void install_stop_handlers(void);

/*
 * The largest ring (NORMAL + EMERGENCY, per CPU) the module takes: its
 * slot count must fit in 31 bits (kmod/chunk.c, hwt_chunk_create()).
 */
#define CHUNK_MAX_RING	((uint64_t)(UINT32_MAX / 2) * HWT_EVENT_SIZE)

/*
 * parse_size(), and on failure one line to err naming the argument (what),
 * the text, and why: not a size, or too large (with the largest size).
 */
int parse_size_arg(const char *what, const char *s, uint64_t *out, FILE *err);

/*
 * What the module charges for a chunk (kmod/chunk.c): the ring rounded up
 * to whole pages plus a meta page, on every CPU.  UINT64_MAX on overflow.
 */
uint64_t chunk_charge(uint64_t normal, uint64_t emergency, uint32_t nr_cpus);

/*
 * The largest NORMAL per CPU that nr_chunks more chunks with this EMERGENCY
 * may each have, given the module's cap and use in v; 0 if none fits.
 */
uint64_t chunk_normal_limit(const struct hwt_version *v, uint64_t emergency,
			    unsigned int nr_chunks);

#endif /* HWTRACE_H */
