// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Event and family names, generated from the UAPI's event-code enum. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include <hwt/events.h>
#include <linux/hwtrace.h>

struct event_desc {
	uint16_t code;
	const char *name;
	const char *par1;
	const char *par2;
};

/* The UAPI enum is the table; gen-events.sh turns it into these rows. */
static const struct event_desc events[] = {
#include "events.inc"
};

#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

static const char *const families[HWT_NR_FAMILIES] = {
	"general", "ipoint", "task", "irq", "cpu", "prio", "mutex", "signal",
	"server", "user", "data", "timer", NULL, NULL, NULL, NULL,
};

static const char *const filter_names[HWT_NR_FAMILIES] = {
	"filter_general", "filter_ipoint", "filter_task", "filter_irq",
	"filter_cpu", "filter_prio", "filter_mutex", "filter_signal",
	"filter_server", "filter_user", "filter_data", "filter_timer",
	"filter_12", "filter_13", "filter_14", NULL,
};

static const struct event_desc *lookup(uint16_t code, size_t *idx)
{
	code = HWT_CODE(code);
	for (size_t i = 0; i < NR_EVENTS; i++) {
		if (events[i].code == code) {
			*idx = i;
			return &events[i];
		}
	}
	return NULL;
}

const char *hwt_event_name(uint16_t code)
{
	size_t i;
	const struct event_desc *d = lookup(code, &i);

	if (!d) {
		code = HWT_CODE(code);
		if (code >= HWT_EV_FILTER_BASE && code <= 0xFF)
			return filter_names[code & HWT_FAMILY_MASK];
		return NULL;
	}
	return d->name;
}

const char *hwt_event_par1(uint16_t code)
{
	size_t i;
	const struct event_desc *d = lookup(code, &i);

	return d ? d->par1 : NULL;
}

const char *hwt_event_par2(uint16_t code)
{
	size_t i;
	const struct event_desc *d = lookup(code, &i);

	return d ? d->par2 : NULL;
}

const char *hwt_family_name(unsigned int family)
{
	return family < HWT_NR_FAMILIES ? families[family] : NULL;
}

int hwt_family_from_name(const char *name)
{
	if (!strcasecmp(name, "interrupt"))
		return HWT_FAM_INTERRUPT;
	if (!strcasecmp(name, "priority"))
		return HWT_FAM_PRIORITY;
	for (unsigned int f = 0; f < HWT_NR_FAMILIES; f++)
		if (families[f] && !strcasecmp(name, families[f]))
			return (int)f;
	return -EINVAL;
}
