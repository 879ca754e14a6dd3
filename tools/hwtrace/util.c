// SPDX-License-Identifier: GPL-2.0
/* hwtrace helpers: argument parsing, device opening, messages, signals. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "hwtrace.h"

const char *prog = "hwtrace";
volatile sig_atomic_t stop_requested;

void warnx_(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void list_families(FILE *f)
{
	fputs("valid families:", f);
	for (unsigned int i = 0; i < HWT_NR_FAMILIES; i++)
		if (hwt_family_name(i))
			fprintf(f, " %s", hwt_family_name(i));
	fputs(" all\n", f);
}

/* "task,irq", "all", "all,-timer"? no: names and "all", comma separated. */
int parse_families(const char *s, uint32_t *mask, FILE *err)
{
	char *dup, *tok, *save = NULL;
	uint32_t m = 0;
	int ret = 0;

	if (!s || !*s)
		goto bad_empty;
	dup = strdup(s);
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int f;

		if (!strcasecmp(tok, "all")) {
			m |= FAMILIES_ALL;
			continue;
		}
		f = hwt_family_from_name(tok);
		if (f < 0) {
			if (err) {
				fprintf(err, "%s: unknown family '%s'; ", prog, tok);
				list_families(err);
			}
			ret = -EINVAL;
			break;
		}
		m |= 1u << f;
	}
	free(dup);
	if (ret)
		return ret;
	if (!m)
		goto bad_empty;
	*mask = m;
	return 0;
bad_empty:
	if (err) {
		fprintf(err, "%s: no family given; ", prog);
		list_families(err);
	}
	return -EINVAL;
}

/* Bytes with an optional binary suffix: 4096, 64k, 4M, 1G (K/M/G, KiB...). */
int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case '\0':
		break;
	case 'K':
		mul = 1ull << 10;
		end++;
		break;
	case 'M':
		mul = 1ull << 20;
		end++;
		break;
	case 'G':
		mul = 1ull << 30;
		end++;
		break;
	default:
		return -EINVAL;
	}
	if (mul > 1 && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
		end += strlen(end);
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int parse_size_arg(const char *what, const char *s, uint64_t *out, FILE *err)
{
	int ret = parse_size(s, out);

	if (ret == -ERANGE && err)
		fprintf(err, "%s: %s '%s' is too large: sizes go up to %" PRIu64
			" bytes (16 EiB - 1), and the module's memory cap is far lower"
			" (hwtrace ctl version)\n", prog, what, s, UINT64_MAX);
	else if (ret && err)
		fprintf(err, "%s: bad %s '%s': bytes with an optional k, M or G suffix"
			" (4096, 64k, 4M, 1G)\n", prog, what, s);
	return ret;
}

uint64_t chunk_charge(uint64_t normal, uint64_t emergency, uint32_t nr_cpus)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), ring;

	if (normal > UINT64_MAX - emergency)
		return UINT64_MAX;
	ring = normal + emergency;
	if (ring > UINT64_MAX - 2 * page)
		return UINT64_MAX;
	ring = ((ring + page - 1) & ~(page - 1)) + page;
	return nr_cpus && ring > UINT64_MAX / nr_cpus ? UINT64_MAX : ring * nr_cpus;
}

uint64_t chunk_normal_limit(const struct hwt_version *v, uint64_t emergency,
			    unsigned int nr_chunks)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t avail = v->max_memory > v->used_memory ? v->max_memory - v->used_memory : 0;
	uint64_t n = (uint64_t)v->nr_cpus * nr_chunks;
	uint64_t ring = n ? (avail / n) & ~(page - 1) : 0;

	/* less the meta page; then the ring's own ceiling */
	ring = ring > page ? ring - page : 0;
	if (ring > CHUNK_MAX_RING)
		ring = CHUNK_MAX_RING;
	return ring > emergency ? (ring - emergency) & ~(uint64_t)(HWT_EVENT_SIZE - 1) : 0;
}

int parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int is_udp_url(const char *s)
{
	return s && !strncmp(s, "udp://", 6);
}

/* The first IPv4 address of a name, else its first IPv6 one. */
static int resolve(const char *host, struct net_addr *a)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res, *pick = NULL;

	if (getaddrinfo(host, NULL, &hints, &res))
		return -ENOENT;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET) {
			pick = ai;
			break;
		}
		if (ai->ai_family == AF_INET6 && !pick)
			pick = ai;
	}
	if (pick && pick->ai_addrlen <= sizeof(a->in6)) {
		memcpy(&a->sa, pick->ai_addr, pick->ai_addrlen);
		a->len = pick->ai_addrlen;
	}
	freeaddrinfo(res);
	return pick ? 0 : -ENOENT;
}

int parse_host_port(const char *s, struct net_addr *a, uint16_t def_port)
{
	const char *port_s = NULL, *end;
	char host[256];
	uint32_t port = def_port;
	int bracketed = s[0] == '[';
	size_t n;

	if (bracketed) {
		end = strchr(s, ']');
		if (!end || (end[1] && end[1] != ':'))
			return -EINVAL;
		port_s = end[1] ? end + 2 : NULL;
		s++;
	} else {
		end = strchr(s, ':');
		/* one colon: HOST:PORT; more: a bare IPv6 address */
		if (end && end == strrchr(s, ':'))
			port_s = end + 1;
		else
			end = s + strlen(s);
	}
	n = (size_t)(end - s);
	if (n >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	if (port_s && (parse_u32(port_s, &port) || !port || port > 65535))
		return -EINVAL;
	if (!host[0])
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET6, host, &a->in6.sin6_addr) == 1) {
		a->in6.sin6_family = AF_INET6;
		a->len = sizeof(a->in6);
	} else if (bracketed || strchr(host, ':')) {
		return -EINVAL;		/* brackets and colons: IPv6 only */
	} else if (inet_pton(AF_INET, host, &a->in.sin_addr) == 1) {
		a->in.sin_family = AF_INET;
		a->len = sizeof(a->in);
	} else if (resolve(host, a)) {
		return -ENOENT;
	}
	if (a->sa.sa_family == AF_INET6)
		a->in6.sin6_port = htons((uint16_t)port);
	else
		a->in.sin_port = htons((uint16_t)port);
	return 0;
}

int parse_udp_url(const char *s, struct net_addr *a, uint16_t def_port)
{
	if (!is_udp_url(s))
		return -EINVAL;
	return parse_host_port(s + 6, a, def_port);
}

/* A copy of sa, an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as IPv4. */
static struct net_addr unmap(const struct sockaddr *sa)
{
	struct net_addr a;

	memset(&a, 0, sizeof(a));
	if (sa->sa_family == AF_INET) {
		memcpy(&a.in, sa, sizeof(a.in));
		return a;
	}
	memcpy(&a.in6, sa, sizeof(a.in6));
	if (!IN6_IS_ADDR_V4MAPPED(&a.in6.sin6_addr))
		return a;
	a.in.sin_port = a.in6.sin6_port;
	memcpy(&a.in.sin_addr, &a.in6.sin6_addr.s6_addr[12], 4);
	a.in.sin_family = AF_INET;
	memset(&a.in6.sin6_addr, 0, sizeof(a.in6.sin6_addr));
	return a;
}

const char *format_addr(const struct sockaddr *sa, char *buf, size_t size)
{
	struct net_addr a = unmap(sa);
	char host[INET6_ADDRSTRLEN] = "?";

	if (a.sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &a.in6.sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(a.in6.sin6_port));
	} else {
		inet_ntop(AF_INET, &a.in.sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(a.in.sin_port));
	}
	return buf;
}

int addr_matches(const struct net_addr *want, const struct sockaddr *got)
{
	struct net_addr w = unmap(&want->sa), g = unmap(got);

	if (w.sa.sa_family != g.sa.sa_family)
		return 0;
	if (w.sa.sa_family == AF_INET6)
		return !memcmp(&w.in6.sin6_addr, &g.in6.sin6_addr,
			       sizeof(w.in6.sin6_addr)) &&
		       (!w.in6.sin6_port || w.in6.sin6_port == g.in6.sin6_port);
	return w.in.sin_addr.s_addr == g.in.sin_addr.s_addr &&
	       (!w.in.sin_port || w.in.sin_port == g.in.sin_port);
}

static const struct {
	const char *name;
	uint32_t flag;
} chunk_flag_names[] = {
	{ "free", HWT_CHUNK_FREE },
	{ "full", HWT_CHUNK_FULL },
	{ "cyc", HWT_CHUNK_CYC },
	{ "jtn", HWT_CHUNK_JTN },
	{ "stop", HWT_CHUNK_STOP },
	{ "busy", HWT_CHUNK_BUSY },
	{ "nodel", HWT_CHUNK_NODEL },
	{ "compr", HWT_CHUNK_COMPR },
};

/* "stop", "cyc|nodel", "jtn,compr" or a number. */
int parse_chunk_flags(const char *s, uint32_t *flags)
{
	char *dup, *tok, *save = NULL;
	uint32_t f = 0;
	int ret = 0;

	if (s && isdigit((unsigned char)*s))
		return parse_u32(s, flags);
	if (!s || !*s)
		return -EINVAL;
	dup = strdup(s);
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",|+", &save); tok; tok = strtok_r(NULL, ",|+", &save)) {
		size_t i;

		for (i = 0; i < sizeof(chunk_flag_names) / sizeof(chunk_flag_names[0]); i++)
			if (!strcasecmp(tok, chunk_flag_names[i].name))
				break;
		if (i == sizeof(chunk_flag_names) / sizeof(chunk_flag_names[0])) {
			ret = -EINVAL;
			break;
		}
		f |= chunk_flag_names[i].flag;
	}
	free(dup);
	if (!ret)
		*flags = f;
	return ret;
}

void format_chunk_flags(uint32_t flags, char *buf, size_t size)
{
	const char *mode = HWT_CHUNK_MODE(flags) == HWT_CHUNK_JTN ? "jtn" :
			   HWT_CHUNK_MODE(flags) == HWT_CHUNK_STOP ? "stop" :
			   HWT_CHUNK_MODE(flags) == HWT_CHUNK_CYC ? "cyc" : "jtn|stop";
	size_t n = (size_t)snprintf(buf, size, "%s", mode);

	for (size_t i = 0; i < sizeof(chunk_flag_names) / sizeof(chunk_flag_names[0]); i++) {
		uint32_t f = chunk_flag_names[i].flag;

		if (!f || f & HWT_CHUNK_MODE_MASK || !(flags & f) || n >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "|%s", chunk_flag_names[i].name);
	}
}

/* A number (0x19) or an event name (user_event_1, ipoint). */
int parse_event_code(const char *s, uint16_t *code)
{
	uint32_t v;

	if (!s || !*s)
		return -EINVAL;
	if (isdigit((unsigned char)*s)) {
		if (parse_u32(s, &v) || v > 0xFFFF)
			return -EINVAL;
		*code = (uint16_t)v;
		return 0;
	}
	for (v = 0; v <= 0xFF; v++) {
		const char *n = hwt_event_name((uint16_t)v);

		if (n && !strcasecmp(n, s)) {
			*code = (uint16_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

void format_bytes(uint64_t n, char *buf, size_t size)
{
	if (n >= 1ull << 30)
		snprintf(buf, size, "%.1f GiB", (double)n / (1ull << 30));
	else if (n >= 1ull << 20)
		snprintf(buf, size, "%.1f MiB", (double)n / (1ull << 20));
	else if (n >= 1ull << 10)
		snprintf(buf, size, "%.1f KiB", (double)n / (1ull << 10));
	else
		snprintf(buf, size, "%" PRIu64 " B", n);
}

struct hwt_dev *open_dev(void)
{
	struct hwt_dev *d;
	int err = hwt_dev_open(&d, getenv("HWTRACE_DEV"));

	if (!err)
		return d;
	if (err == -ENOENT || err == -ENXIO || err == -ENODEV)
		errmsg("%s: no such device: the hwtrace module is not loaded.\n"
		       "  Load it with:  sudo insmod kmod/hwtrace.ko   (or: sudo modprobe hwtrace)",
		       HWT_DEV_PATH);
	else if (err == -EACCES || err == -EPERM)
		errmsg("%s: permission denied: tracing needs root (the device is mode 0600).\n"
		       "  Run with sudo, or let a group use it:  sudo chgrp tracing %s && sudo chmod 0660 %s",
		       HWT_DEV_PATH, HWT_DEV_PATH, HWT_DEV_PATH);
	else
		errmsg("%s: %s", HWT_DEV_PATH, strerror(-err));
	return NULL;
}

void dev_error(const char *what, int err)
{
	const char *hint = "";

	switch (-err) {
	case EBUSY:
		hint = " (busy: tracing is on, or the chunk is selected, linked or mapped)";
		break;
	case ENOMEM:
		hint = " (over the module's memory cap: see max_memory_mb)";
		break;
	case ENOENT:
		hint = " (no such chunk)";
		break;
	case EPERM:
		hint = " (the chunk is NODEL)";
		break;
	case EACCES:
		hint = " (permission denied)";
		break;
	case ENOTTY:
		hint = " (the module does not know this request: ABI mismatch?)";
		break;
	}
	errmsg("%s: %s%s", what, strerror(-err), hint);
}

const char *crash_name(uint32_t kind)
{
	switch (kind) {
	case HWT_CRASH_PANIC:
		return "panic";
	case HWT_CRASH_OOPS:
		return "oops";
	default:
		return "no crash record (reset or watchdog?)";
	}
}

void format_boot_id(const uint8_t *id, char *buf, size_t size)
{
	snprintf(buf, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8],
		 id[9], id[10], id[11], id[12], id[13], id[14], id[15]);
}

void host_info(struct hwt_trace_info *info)
{
	struct utsname u;

	if (!uname(&u)) {
		snprintf(info->kernel_release, sizeof(info->kernel_release), "%s",
			 u.release);
		snprintf(info->hostname, sizeof(info->hostname), "%s", u.nodename);
	}
	info->creation_time = (int64_t)time(NULL);
	snprintf(info->backend, sizeof(info->backend), "module");
}

int want_help(int argc, char **argv, const char *usage)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 1;
		}
	}
	return 0;
}

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void install_stop_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a sleeping drain loop wakes up at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int open_trace(const char *path, struct hwt_reader **r)
{
	int ret = hwt_reader_open(r, path, NULL);

	if (ret >= 0)
		return ret;
	if (ret == -EBADMSG)
		errmsg("%s: not a .hwt trace file, or its header is damaged", path);
	else if (ret == -EPROTONOSUPPORT)
		errmsg("%s: written by a newer hwtrace (file format major version > %d)",
		       path, HWT_FILE_VERSION_MAJOR);
	else
		errmsg("%s: %s", path, strerror(-ret));
	return ret;
}
