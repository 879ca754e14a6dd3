/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtrace for other kernel modules: S.Ha.R.K.'s TRACER_LOGEVENT.
 *
 * hwtrace_log() writes one record into this CPU's ring of the current chunk,
 * subject to the family filters, from any context (task, softirq, IRQ,
 * NMI).  It returns -EINVAL for control codes (0xF0..0xFF), else 0, also
 * when tracing is off or the event was filtered or lost (the ring counts
 * losses).  Codes and parameter meanings: <linux/hwtrace.h>.
 */
#ifndef _HWTRACE_LOG_H
#define _HWTRACE_LOG_H

#include <linux/types.h>

int hwtrace_log(u16 code, u16 par1, u32 par2);

#endif /* _HWTRACE_LOG_H */
