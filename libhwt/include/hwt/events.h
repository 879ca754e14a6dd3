/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* libhwt: names of event codes and families, from the UAPI enum. */
#ifndef HWT_EVENTS_H
#define HWT_EVENTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Event name ("task_schedule"), or NULL for a code hwtrace does not define.
 * Filter records (0xF0 | family) are named "filter_<family>".
 */
const char *hwt_event_name(uint16_t code);
/* par1 / par2 meaning from the table ("pid", "irq", "-"), or NULL. */
const char *hwt_event_par1(uint16_t code);
const char *hwt_event_par2(uint16_t code);

/* Family name ("task", "irq", ...) for 0..15; "family<N>" names are not used. */
const char *hwt_family_name(unsigned int family);
/* Family number for a name (also accepts "interrupt" for irq, "priority"
 * for prio), or -EINVAL.
 */
int hwt_family_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* HWT_EVENTS_H */
