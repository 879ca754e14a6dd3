// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The library's version: HWT_VERSION comes from the top-level VERSION file. */
#include "internal.h"

const char *hwt_version(void)
{
	return HWT_VERSION;
}
