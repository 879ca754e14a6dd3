/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libhwt: converters from a record stream to timing-analysis trace formats.
 *
 *   htf    AMALTHEA Hardware Trace Format 1.0 (text, hex datasets per core)
 *   atf    ALL-TIMES Trace Format 1.0 (XML; schema in libhwt/conv/atf.xsd)
 *   btf    Best Trace Format 2.1.3 (CSV)
 *   tband  Tonbandgeraet binary trace (COBS frames, FreeRTOS mode)
 *   shark  S.Ha.R.K. raw 16-byte records, time-ordered (per CPU or all)
 *   json   Chrome/Perfetto trace-event JSON
 *   perfetto  Perfetto's native protobuf trace (ftrace events, track events)
 *   ctf    CTF 1.8 laid out as an lttng-modules kernel trace: a directory
 *          (metadata + one stream per CPU) for babeltrace2 and Trace Compass
 *
 * Every converter streams: memory does not grow with the trace length, only
 * with the number of tasks, IRQs and other entities.  All but shark read the
 * stream twice (hwt_stream.rewind): once for the header tables and the state
 * at the start of the trace, once to write.  Documentation/hwtrace-formats.rst
 * describes the mapping of each format.
 */
#ifndef HWT_CONV_H
#define HWT_CONV_H

#include <stddef.h>
#include <stdio.h>

#include <hwt/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hwt_conv_opts {
	size_t sz;		/* sizeof(struct hwt_conv_opts) */
	int btf_isr_type_i;	/* BTF: type "I" for ISRs (BTF >= 2.1.5), not "ISR" */
	int tband_core;		/* tband: -1 one stream of all cores with core_id
				 * events; N: only core N (file@N for tband-cli) */
	int tband_drop_every;	/* tband: also repeat dropped_evt_cnt every N
				 * events per core (reference default 50); 0: only
				 * when it changes; < 0: 50 */
	int tband_max_str;	/* tband: cut names to this many bytes, as the
				 * reference's tband_configMAX_STR_LEN; 0: no limit */
	int shark_cpu;		/* shark: -1 all CPUs interleaved; N: only CPU N */
	FILE *const *shark_files; /* shark, with shark_cpu -1: one stream per CPU
				 * ([info->nr_cpus], NULL skips that CPU), as
				 * S.Ha.R.K.'s <n>trace.dat files; out unused */
};

/*
 * Convert in to format, writing out.  opts may be NULL (defaults: ISR,
 * tband_core -1, tband_drop_every 50, tband_max_str 0, shark_cpu -1).
 *
 * Returns 0, or a negative errno:
 *   -EBADMSG  the stream failed part-way (in->next() returned an error):
 *             what came before is converted and the output is complete and
 *             well-formed; warn and exit non-zero.
 *   -ESPIPE   the format needs a second pass and in->rewind failed.
 *   -EINVAL   unknown format or bad options; nothing written.
 *   -ENOMEM, -EIO (writing out, or a temporary file): output unusable.
 */
int hwt_convert(const char *format, struct hwt_stream *in, FILE *out,
		const struct hwt_conv_opts *opts);

/* The format names, NULL-terminated, in the order above. */
const char *const *hwt_conv_formats(void);

/*
 * 1 if format writes a directory (ctf) rather than one file, else 0
 * (also for an unknown format).  Since LIBHWT_1.1.
 */
int hwt_conv_format_is_dir(const char *format);

/*
 * Convert in to a directory format, writing into dir: created if missing,
 * refused with -ENOTEMPTY if it holds anything (a stale stream of another
 * trace would join this one).  Returns as hwt_convert(); -EINVAL for a
 * format that writes one file (and hwt_convert() refuses a directory
 * format the same way).  Since LIBHWT_1.1.
 */
int hwt_convert_dir(const char *format, struct hwt_stream *in, const char *dir,
		    const struct hwt_conv_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* HWT_CONV_H */
