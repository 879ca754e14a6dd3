// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Library messages: one replaceable print function, as libbpf_set_print(). */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static int default_print(enum hwt_print_level level, const char *fmt, va_list ap)
{
	if (level > HWT_WARN)
		return 0;
	fputs("libhwt: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static hwt_print_fn_t print_fn = default_print;

hwt_print_fn_t hwt_set_print(hwt_print_fn_t fn)
{
	hwt_print_fn_t old = print_fn;

	print_fn = fn;
	return old;
}

void hwt_pr(enum hwt_print_level level, const char *fmt, ...)
{
	va_list ap;
	int err = errno;	/* a message must not clobber the caller's errno */

	if (!print_fn)
		return;
	va_start(ap, fmt);
	print_fn(level, fmt, ap);
	va_end(ap);
	errno = err;
}
