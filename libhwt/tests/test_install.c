// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The library as a user gets it: `make install` into a scratch DESTDIR,
 * then a program built with `pkg-config --cflags --libs libhwt` against the
 * installed headers and shared library writes a trace and reads it back.
 */
#include <check.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char prog[] =
	"#include <hwt/hwt.h>\n"
	"#include <stdio.h>\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	struct hwt_trace_info info = { .nr_cpus = 2, .cycles_per_msec = 1000000 };\n"
	"	struct hwt_event ev = { .code = HWT_EV_USER_EVENT_0, .tsc_lo = 5, .par2 = 42 };\n"
	"	struct hwt_writer *w;\n"
	"	struct hwt_reader *r;\n"
	"	struct hwt_record rec;\n"
	"	int n = 0;\n"
	"	if (argc != 2 || hwt_writer_open(&w, argv[1], &info, NULL) ||\n"
	"	    hwt_writer_add(w, 1, &ev, 1) || hwt_writer_close(w) ||\n"
	"	    hwt_reader_open(&r, argv[1], NULL))\n"
	"		return 1;\n"
	"	while (hwt_reader_next(r, &rec) == 1)\n"
	"		n += rec.cpu == 1 && rec.ev.par2 == 42;\n"
	"	hwt_reader_close(r);\n"
	"	printf(\"%d\\n\", n);\n"
	"	return n == 1 ? 0 : 1;\n"
	"}\n";

/* Run a shell command made from fmt and its arguments; its exit status. */
static __attribute__((format(printf, 1, 2))) int sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

START_TEST(test_install_and_link)
{
	char dir[] = "/tmp/hwt-install-XXXXXX";
	const char *src = getenv("HWT_SRCDIR");
	char path[PATH_MAX];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_ptr_nonnull(src);
	/*
	 * the plain build, whatever this test program was built with, and
	 * the default LIBDIR whatever a calling make (debian/rules) set
	 */
	ck_assert_int_eq(sh("MAKEFLAGS= make -s -C '%s' install SAN=0 DESTDIR='%s' "
			    "PREFIX=/usr LIBDIR=/usr/lib "
			    ">'%s/install.log' 2>&1", src, dir, dir), 0);
	snprintf(path, sizeof(path), "%s/prog.c", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(prog, f);
	fclose(f);
	/* the installed pkg-config file, made to point into DESTDIR */
	ck_assert_int_eq(sh("cd '%s' && export PKG_CONFIG_SYSROOT_DIR='%s' "
			    "PKG_CONFIG_PATH='%s/usr/lib/pkgconfig' && "
			    "cc -std=c11 -Wall -Wextra -Werror -o prog prog.c "
			    "$(pkg-config --cflags --libs libhwt) >cc.log 2>&1",
			    dir, dir, dir), 0);
	/* it runs against the shared library, soname libhwt.so.1 */
	ck_assert_int_eq(sh("cd '%s' && readelf -d prog | grep -q 'NEEDED.*libhwt\\.so\\.1' && "
			    "LD_LIBRARY_PATH='%s/usr/lib' ./prog t.hwt >run.log 2>&1",
			    dir, dir), 0);
	ck_assert_int_eq(sh("rm -rf '%s'", dir), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("install");
	TCase *tc = tcase_create("install");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_install_and_link);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
