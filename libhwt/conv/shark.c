// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * S.Ha.R.K. raw records: the stream's records, in its time order, as the
 * four little-endian 32-bit words S.Ha.R.K.'s disk files hold:
 * (par1 << 16 | code), TSC high, TSC low, par2.  Unlike S.Ha.R.K.'s dumper,
 * which writes a wrapped cyclic chunk in address order, the output is sorted
 * by time.  Records carry no CPU: one CPU's records (shark_cpu) make a file
 * S.Ha.R.K.'s tools read as one processor's trace.  Code-0 (empty) records
 * are skipped, as S.Ha.R.K.'s own files skip them.  A single pass.
 */
#include <endian.h>
#include <errno.h>

#include "conv_internal.h"

int hwt_conv_shark(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	int cpu = CONV_OPT(opts, shark_cpu, -1);
	struct hwt_obuf ob;
	struct hwt_record rec;
	int ret, err = 0;

	if (cpu < -1 || (cpu >= 0 && (uint32_t)cpu >= in->info->nr_cpus))
		return -EINVAL;
	ret = hwt_obuf_init(&ob, out, 1 << 18);
	if (ret)
		return ret;
	/* from the first record, if the stream can; a pipe just goes on */
	if (in->rewind)
		(void)in->rewind(in->ctx);
	for (;;) {
		uint32_t *w;

		ret = in->next(in->ctx, &rec);
		if (ret <= 0)
			break;
		if (HWT_CODE(rec.ev.code) == HWT_EV_EMPTY)
			continue;
		if (cpu >= 0 && rec.cpu != (uint32_t)cpu)
			continue;
		w = (uint32_t *)ob_room(&ob, HWT_EVENT_SIZE);
		if (!w)
			break;
		/* ob_room() memory is char: store through memcpy-safe words */
		uint32_t words[4] = {
			htole32((uint32_t)rec.ev.par1 << 16 | rec.ev.code),
			htole32(rec.ev.tsc_hi),
			htole32(rec.ev.tsc_lo),
			htole32(rec.ev.par2),
		};
		memcpy(w, words, sizeof(words));
		ob.len += HWT_EVENT_SIZE;
	}
	if (ret < 0)
		err = -EBADMSG;
	ret = hwt_obuf_flush(&ob);
	hwt_obuf_free(&ob);
	if (!ret && fflush(out))
		ret = -EIO;
	return ret ? ret : err;
}
