// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include "conv_internal.h"

int hwt_conv_htf(struct hwt_stream *in, FILE *out, const struct hwt_conv_opts *opts)
{
	(void)in; (void)out; (void)opts;
	return -ENOSYS;
}
