// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * /dev/hwtrace: one wrapper per ioctl, S.Ha.R.K.'s FTrace calls for Linux.
 * The module does the checking; this file only marshals and turns -1/errno
 * into negative errno returns.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

struct hwt_dev {
	int fd;
	char *path;		/* for hwt_dev_reopen() */
};

/* ioctl() with the result as a negative errno. */
static int dev_ioctl(struct hwt_dev *d, unsigned long cmd, unsigned long arg)
{
	int ret;

	do {
		ret = ioctl(d->fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? hwt_err(-errno) : ret;
}

static int dev_ioctl_ptr(struct hwt_dev *d, unsigned long cmd, void *arg)
{
	return dev_ioctl(d, cmd, (unsigned long)arg);
}

int hwt_dev_open(struct hwt_dev **out, const char *path)
{
	struct hwt_dev *d;
	int err;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return hwt_err(-ENOMEM);
	d->path = strdup(path ? path : HWT_DEV_PATH);
	if (!d->path) {
		free(d);
		return hwt_err(-ENOMEM);
	}
	d->fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		err = -errno;
		free(d->path);
		free(d);
		return hwt_err(err);
	}
	*out = d;
	return 0;
}

void hwt_dev_close(struct hwt_dev *d)
{
	if (!d)
		return;
	close(d->fd);
	free(d->path);
	free(d);
}

/* A second open file of the device: its own poll() scope. */
int hwt_dev_reopen(const struct hwt_dev *d)
{
	int fd = open(d->path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? hwt_err(-errno) : fd;
}

int hwt_dev_fd(const struct hwt_dev *d)
{
	return d->fd;
}

int hwt_dev_version(struct hwt_dev *d, struct hwt_version *v)
{
	int ret;

	memset(v, 0, sizeof(*v));
	ret = dev_ioctl_ptr(d, HWT_IOC_GET_VERSION, v);
	if (ret < 0)
		return ret;
	/* a record layout we do not know would be misread silently */
	if (v->abi_major != HWT_ABI_MAJOR || v->event_size != HWT_EVENT_SIZE) {
		pr_warn("module ABI %u.%u (record size %u), libhwt speaks %u.x (%u)\n",
			v->abi_major, v->abi_minor, v->event_size, HWT_ABI_MAJOR,
			HWT_EVENT_SIZE);
		return hwt_err(-EPROTO);
	}
	return 0;
}

int hwt_dev_enable(struct hwt_dev *d)
{
	return dev_ioctl(d, HWT_IOC_ENABLE, 0);
}

int hwt_dev_disable(struct hwt_dev *d)
{
	return dev_ioctl(d, HWT_IOC_DISABLE, 0);
}

int hwt_dev_chunk_create(struct hwt_dev *d, uint64_t normal_size,
			 uint64_t emergency_size, uint32_t flags)
{
	struct hwt_chunk_create c = {
		.normal_size = normal_size,
		.emergency_size = emergency_size,
		.flags = flags,
		.id = -1,
	};
	int ret = dev_ioctl_ptr(d, HWT_IOC_CHUNK_CREATE, &c);

	return ret < 0 ? ret : c.id;
}

int hwt_dev_chunk_delete(struct hwt_dev *d, int id)
{
	return dev_ioctl(d, HWT_IOC_CHUNK_DELETE, (unsigned long)id);
}

int hwt_dev_chunk_set_flags(struct hwt_dev *d, int id, uint32_t flags)
{
	struct hwt_chunk_flags f = { .id = (uint32_t)id, .flags = flags };

	if (id < 0)
		return hwt_err(-EINVAL);
	return dev_ioctl_ptr(d, HWT_IOC_SET_CHUNK_FLAGS, &f);
}

int hwt_dev_chunk_get_flags(struct hwt_dev *d, int id)
{
	struct hwt_chunk_flags f = { .id = (uint32_t)id };
	int ret;

	if (id < 0)
		return hwt_err(-EINVAL);
	ret = dev_ioctl_ptr(d, HWT_IOC_GET_CHUNK_FLAGS, &f);
	return ret < 0 ? ret : (int)f.flags;
}

int hwt_dev_chunk_select(struct hwt_dev *d, int id)
{
	return dev_ioctl(d, HWT_IOC_CHUNK_SELECT, (unsigned long)id);
}

int hwt_dev_chunk_link(struct hwt_dev *d, int from, int to)
{
	struct hwt_chunk_link l = { .from = (uint32_t)from, .to = to };

	if (from < 0)
		return hwt_err(-EINVAL);
	return dev_ioctl_ptr(d, HWT_IOC_CHUNK_LINK, &l);
}

int hwt_dev_chunk_first(struct hwt_dev *d, uint32_t flags)
{
	return dev_ioctl(d, HWT_IOC_GET_FIRST_CHUNK, flags);
}

int hwt_dev_chunk_table(struct hwt_dev *d, struct hwt_chunk_stat *st,
			uint32_t room)
{
	struct hwt_chunk_table t = {
		.entries = (uint64_t)(uintptr_t)st,
		.nr_entries = st ? room : 0,
	};
	int ret = dev_ioctl_ptr(d, HWT_IOC_CHUNK_TABLE, &t);

	return ret < 0 ? ret : (int)t.nr_entries;
}

int hwt_dev_filter_set(struct hwt_dev *d, unsigned int family, int status)
{
	struct hwt_filter f = { .family = family, .status = status ? 1 : 0 };

	return dev_ioctl_ptr(d, HWT_IOC_SET_FILTER, &f);
}

int hwt_dev_filter_get(struct hwt_dev *d)
{
	uint32_t mask = 0;
	int ret = dev_ioctl_ptr(d, HWT_IOC_GET_FILTER, &mask);

	return ret < 0 ? ret : (int)(mask & 0xFFFF);
}

int hwt_dev_log_event(struct hwt_dev *d, uint16_t code, uint16_t par1,
		      uint32_t par2)
{
	struct hwt_log l = { .code = code, .par1 = par1, .par2 = par2 };

	return dev_ioctl_ptr(d, HWT_IOC_LOG_EVENT, &l);
}

int hwt_dev_set_clock(struct hwt_dev *d, unsigned int clock)
{
	return dev_ioctl(d, HWT_IOC_SET_CLOCK, clock);
}

int hwt_dev_ring_info(struct hwt_dev *d, uint32_t chunk, uint32_t cpu,
		      struct hwt_ring_info *info)
{
	memset(info, 0, sizeof(*info));
	info->chunk = chunk;
	info->cpu = cpu;
	return dev_ioctl_ptr(d, HWT_IOC_RING_INFO, info);
}

int hwt_dev_probe_info(struct hwt_dev *d, uint32_t index,
		       struct hwt_probe_info *info)
{
	memset(info, 0, sizeof(*info));
	info->index = index;
	return dev_ioctl_ptr(d, HWT_IOC_PROBE_INFO, info);
}

int hwt_dev_persist_info(struct hwt_dev *d, struct hwt_persist_info *info)
{
	memset(info, 0, sizeof(*info));
	return dev_ioctl_ptr(d, HWT_IOC_PERSIST_INFO, info);
}

int hwt_dev_persist_release(struct hwt_dev *d)
{
	return dev_ioctl(d, HWT_IOC_PERSIST_RELEASE, 0);
}

int hwt_dev_read_names(struct hwt_dev *d, struct hwt_name *names, size_t n)
{
	ssize_t got;

	if (!n)
		return 0;
	do {
		got = read(d->fd, names, n * sizeof(*names));
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		/* a module without the name channel has no read() */
		return hwt_err(errno == EINVAL ? -EOPNOTSUPP : -errno);
	return (int)((size_t)got / sizeof(*names));
}
