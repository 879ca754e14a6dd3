# SPDX-License-Identifier: GPL-2.0
#
# SAN=1 for a Check test build (libhwt, tests/kmod): ASan+UBSan, objects in
# build-san/, tests run with CHECK_ENV.  Sets B, SAN_FLAGS and CHECK_ENV.
#
# Check forks a child per test by default.  Under the sanitizers the tests
# run in-process (CK_FORK=no): the first report aborts the program with its
# full stack on stderr and a non-zero exit, instead of being folded into a
# one-line "signal 6" error by the parent, and LeakSanitizer checks the whole
# program once at exit rather than every forked child (whose still-reachable
# copy of Check's own state made for noisy, flaky reports).
ifeq ($(SAN),1)
B	:= build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=all
CHECK_ENV := CK_FORK=no ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else
B	:= build
SAN_FLAGS :=
CHECK_ENV :=
endif
