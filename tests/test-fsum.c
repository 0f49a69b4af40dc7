/* ts_fsum: exact sums, whatever the order of the terms. Expected values are
 * the exact sums of the terms, rounded once; each test also shows what a
 * running double total gives instead, so that it could fail. */
#include <config.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/fsum.h"

static double
fsum_of (const double *v, guint n)
{
  TsFsum s = TS_FSUM_INIT;
  for (guint i = 0; i < n; i++)
    ts_fsum_add (&s, v[i]);
  double r = ts_fsum_result (&s);
  ts_fsum_clear (&s);
  return r;
}

static double
naive_of (const double *v, guint n)
{
  double t = 0;
  for (guint i = 0; i < n; i++)
    t += v[i];
  return t;
}

/* 1e16 + 1 rounds back to 1e16 (its ulp is 2): left to right, the first 1
 * is lost and the total is 1; with the ones first it is 2. The exact sum
 * is 2 in either order. */
static void
test_order_does_not_matter (void **state)
{
  const double a[] = { 1e16, 1.0, -1e16, 1.0 };
  const double b[] = { 1.0, 1.0, 1e16, -1e16 };
  assert_true (naive_of (a, 4) == 1.0);
  assert_true (naive_of (b, 4) == 2.0);
  assert_true (fsum_of (a, 4) == 2.0);
  assert_true (fsum_of (b, 4) == 2.0);
}

/* Ten times 0.1 (0.1000000000000000055511151231257827 as a double): the
 * exact sum is 1.000000000000000055511151231257827, which rounds to 1.0;
 * a running total gives 0.9999999999999999. */
static void
test_tenths (void **state)
{
  double v[10];
  for (guint i = 0; i < 10; i++)
    v[i] = 0.1;
  assert_true (naive_of (v, 10) == 0.99999999999999989);
  assert_true (fsum_of (v, 10) == 1.0);
}

/* 1 + 1e-16 + 1e-16: each 1e-16 alone is below half an ulp of 1
 * (1.11e-16) and a running total stays 1; together they are 2e-16, nearer
 * to one ulp (2.22e-16) than to none, so the exact sum rounds to
 * 1.0000000000000002. */
static void
test_small_terms_add_up (void **state)
{
  const double v[] = { 1.0, 1e-16, 1e-16 };
  assert_true (naive_of (v, 3) == 1.0);
  assert_true (fsum_of (v, 3) == 1.0000000000000002);
}

/* Nothing added: 0. */
static void
test_empty (void **state)
{
  TsFsum s = TS_FSUM_INIT;
  assert_true (ts_fsum_result (&s) == 0.0);
  ts_fsum_clear (&s);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_order_does_not_matter),
    cmocka_unit_test (test_tenths),
    cmocka_unit_test (test_small_terms_add_up),
    cmocka_unit_test (test_empty),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
