// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Event and family names come from the UAPI table. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwt/hwt.h>

START_TEST(test_event_names)
{
	ck_assert_str_eq(hwt_event_name(HWT_EV_TASK_SCHEDULE), "task_schedule");
	ck_assert_str_eq(hwt_event_name(HWT_EV_MUTEX_UNLOCK), "mutex_unlock");
	ck_assert_str_eq(hwt_event_name(HWT_EV_IPOINT | HWT_CODE_FAST), "ipoint");
	ck_assert_str_eq(hwt_event_name(HWT_EV_FILTER(HWT_FAM_TIMER)), "filter_timer");
	ck_assert_str_eq(hwt_event_name(HWT_EV_NEXT_CHUNK), "next_chunk");
	ck_assert_ptr_null(hwt_event_name(0x0C));
	ck_assert_str_eq(hwt_event_par1(HWT_EV_INTERRUPT_START), "irq");
}
END_TEST

START_TEST(test_family_names)
{
	ck_assert_int_eq(hwt_family_from_name("task"), HWT_FAM_TASK);
	ck_assert_int_eq(hwt_family_from_name("interrupt"), HWT_FAM_INTERRUPT);
	ck_assert_int_eq(hwt_family_from_name("IRQ"), HWT_FAM_INTERRUPT);
	ck_assert_int_eq(hwt_family_from_name("nope"), -EINVAL);
	ck_assert_str_eq(hwt_family_name(HWT_FAM_TIMER), "timer");
	ck_assert_ptr_null(hwt_family_name(HWT_NR_FAMILIES));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("events");
	TCase *tc = tcase_create("names");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_event_names);
	tcase_add_test(tc, test_family_names);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
