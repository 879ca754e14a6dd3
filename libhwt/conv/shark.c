// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * S.Ha.R.K. raw records: the stream's records, in its time order, as the
 * four little-endian 32-bit words S.Ha.R.K.'s disk files hold:
 * (par1 << 16 | code), TSC high, TSC low, par2.  Unlike S.Ha.R.K.'s dumper,
 * which writes a wrapped cyclic chunk in address order, the output is sorted
 * by time.  Records carry no CPU and S.Ha.R.K.'s host tools assume one
 * processor: shark_files writes each CPU's records to its own stream (the
 * CLI's 0trace.dat, 1trace.dat, ... as S.Ha.R.K. names them), shark_cpu
 * only one CPU's; with neither, all CPUs interleave in out.  Code-0 (empty)
 * records are skipped, as S.Ha.R.K.'s own files skip them.  A single pass.
 *
 * task_schedule (0x82) carries hwtrace's packed pids and state
 * (Documentation/hwtrace.rst), not S.Ha.R.K.'s context ids: a S.Ha.R.K.
 * tool prints them as numbers it cannot name.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>

#include "conv_internal.h"

static void shark_put(struct hwt_obuf *ob, const struct hwt_record *rec)
{
	uint32_t words[4] = {
		htole32((uint32_t)rec->ev.par1 << 16 | rec->ev.code),
		htole32(rec->ev.tsc_hi),
		htole32(rec->ev.tsc_lo),
		htole32(rec->ev.par2),
	};

	ob_write(ob, words, sizeof(words));
}

int hwt_conv_shark(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	int cpu = CONV_OPT(opts, shark_cpu, -1);
	FILE *const *files = CONV_OPT(opts, shark_files, NULL);
	uint32_t nr = files && cpu < 0 ? in->info->nr_cpus : 1;
	struct hwt_obuf *ob;
	struct hwt_record rec;
	int ret = 0, err = 0;

	if (cpu < -1 || (cpu >= 0 && (uint32_t)cpu >= in->info->nr_cpus))
		return -EINVAL;
	ob = calloc(nr, sizeof(*ob));
	if (!ob)
		return -ENOMEM;
	/* many CPUs, many buffers: smaller ones each */
	for (uint32_t c = 0; !ret && c < nr; c++)
		ret = hwt_obuf_init(&ob[c], nr > 1 ? files[c] : out, nr > 1 ? 1 << 14 : HWT_OBUF_OUT);
	/* from the first record, if the stream can; a pipe just goes on */
	if (!ret && in->rewind)
		(void)in->rewind(in->ctx);
	while (!ret) {
		ret = in->next(in->ctx, &rec);
		if (ret <= 0)
			break;
		ret = 0;
		if (HWT_CODE(rec.ev.code) == HWT_EV_EMPTY)
			continue;
		if (cpu >= 0 && rec.cpu != (uint32_t)cpu)
			continue;
		if (nr > 1) {
			if (rec.cpu < nr && files[rec.cpu])
				shark_put(&ob[rec.cpu], &rec);
			continue;
		}
		shark_put(&ob[0], &rec);
	}
	if (ret < 0 && ret != -ENOMEM)
		err = -EBADMSG;
	ret = ret == -ENOMEM ? ret : 0;
	for (uint32_t c = 0; c < nr; c++) {
		int r = ob[c].f ? hwt_obuf_flush(&ob[c]) : ob[c].err;

		if (!ret && r)
			ret = r;
		if (!ret && ob[c].f && fflush(ob[c].f))
			ret = -EIO;
		hwt_obuf_free(&ob[c]);
	}
	free(ob);
	return ret ? ret : err;
}
