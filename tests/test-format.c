/* Ensure that times, rates, sizes and shares print in one form, N unit
 * with 1 <= N < 1000 and three significant digits (model/format.h). */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model/format.h"

static void
expect_seconds (double s, const char *want)
{
  g_autofree char *got = ts_format_seconds (s);
  assert_string_equal (got, want);
}

/* Ensure that each time takes the unit that puts it in [1, 1000): the
 * issue's two page values, 1.0138e-05 s = 10.138 us -> "10.1 us" and
 * 0.000120353 s = 120.353 us -> "120 us"; 1.37 s stays in seconds; 0.6 us
 * (an InfiniBand latency) is below a microsecond, so 600 ns. */
static void
test_seconds_units (void **state)
{
  expect_seconds (1.0138e-05, "10.1 us");
  expect_seconds (0.000120353, "120 us");
  expect_seconds (1.37, "1.37 s");
  expect_seconds (0.6e-6, "600 ns");
  expect_seconds (0.25, "250 ms");
  expect_seconds (0, "0 s");
  expect_seconds (-0.578, "-578 ms");
}

/* Ensure that a value that rounds up to 1000 of a unit moves to the next:
 * 999.96 us is 0.99996 ms, three digits "1 ms"; 999.7 s and 1234.4 s are
 * whole seconds, there being no unit above. Below a ns there is no unit:
 * 2.66e-15 s (the exclusive-time change of a region a report computed as
 * a difference of two sums) is rounding, "0 s", not "2.66e-06 ns"; 0.7 ns
 * rounds to "1 ns", -0.7 ns to "-1 ns". */
static void
test_seconds_rounding (void **state)
{
  expect_seconds (999.96e-6, "1 ms");
  expect_seconds (999.4e-6, "999 us");
  expect_seconds (999.7, "1000 s");
  expect_seconds (1234.4, "1234 s");
  expect_seconds (NAN, "n/a");
  expect_seconds (2.66e-15, "0 s");
  expect_seconds (-1.39e-15, "0 s");
  expect_seconds (0.7e-9, "1 ns");
  expect_seconds (-0.7e-9, "-1 ns");
}

/* Ensure rates and sizes use decimal prefixes: 200 Gb/s is 25e9 B/s,
 * "25 GB/s"; 12.5e9 -> "12.5 GB/s"; 135 KB of a pipeline item, 135000 B,
 * "135 kB"; 8 B stays "8 B". */
static void
test_rates_and_sizes (void **state)
{
  g_autofree char *r1 = ts_format_rate (200e9 / 8);
  assert_string_equal (r1, "25 GB/s");
  g_autofree char *r2 = ts_format_rate (12.5e9);
  assert_string_equal (r2, "12.5 GB/s");
  g_autofree char *b1 = ts_format_bytes (135000);
  assert_string_equal (b1, "135 kB");
  g_autofree char *b2 = ts_format_bytes (8);
  assert_string_equal (b2, "8 B");
}

/* Ensure percentages: 0.578 of 1.41 is 40.99% -> "41%"; 0.0568 of 1.37
 * is 4.146% -> "4.1%"; a share of nothing is "n/a"; 1.87 us of 15.1 s
 * (a report's early_reduce) is 1.24e-5% -> "<0.01%", not "1.2e-05%". */
static void
test_percent (void **state)
{
  g_autofree char *p1 = ts_format_percent (0.578, 1.41);
  assert_string_equal (p1, "41%");
  g_autofree char *p2 = ts_format_percent (0.0568, 1.37);
  assert_string_equal (p2, "4.1%");
  g_autofree char *p3 = ts_format_percent (1, 0);
  assert_string_equal (p3, "n/a");
  g_autofree char *p4 = ts_format_percent (1.87e-6, 15.1);
  assert_string_equal (p4, "<0.01%");
  g_autofree char *p5 = ts_format_percent (-1.87e-6, 15.1);
  assert_string_equal (p5, "-<0.01%");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_seconds_units),
    cmocka_unit_test (test_seconds_rounding),
    cmocka_unit_test (test_rates_and_sizes),
    cmocka_unit_test (test_percent),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
