/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Helpers shared by libhwt's Check programs. */
#ifndef HWT_TEST_H
#define HWT_TEST_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwt/hwt.h>

/* Library warnings are counted and kept quiet unless HWT_TEST_VERBOSE is set. */
static int test_warnings;
static char test_last_warning[512];

static inline int test_print(enum hwt_print_level level, const char *fmt,
			     va_list ap)
{
	if (level == HWT_WARN) {
		va_list aq;

		va_copy(aq, ap);
		test_warnings++;
		vsnprintf(test_last_warning, sizeof(test_last_warning), fmt, aq);
		va_end(aq);
	}
	if (getenv("HWT_TEST_VERBOSE"))
		vfprintf(stderr, fmt, ap);
	return 0;
}

/* One scratch directory per program, made before the tests fork. */
static char test_dir[64];

static inline const char *test_path(const char *name)
{
	static char path[128];

	ck_assert(test_dir[0]);
	snprintf(path, sizeof(path), "%s/%s", test_dir, name);
	return path;
}

static inline struct hwt_event test_event(uint16_t code, uint16_t par1,
					  uint64_t ts, uint32_t par2)
{
	struct hwt_event e = {
		.code = code,
		.par1 = par1,
		.tsc_hi = (uint32_t)(ts >> 32),
		.tsc_lo = (uint32_t)ts,
		.par2 = par2,
	};
	return e;
}

static inline int test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	hwt_set_print(test_print);
	snprintf(test_dir, sizeof(test_dir), "/tmp/hwt-test-XXXXXX");
	if (!mkdtemp(test_dir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	srunner_run_all(sr, CK_ENV);
	if (rmdir(test_dir))	/* tests unlink their files; a failed one may not */
		fprintf(stderr, "note: %s left behind\n", test_dir);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* HWT_TEST_H */
