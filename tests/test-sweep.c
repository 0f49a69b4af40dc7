/* pipeline/sweep-values.c: the values a sweep parameter takes, the points
 * they combine into, and the templates they fill. Expected values are
 * worked out in the comments. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "pipeline/sweep-values.h"

/* @text's values joined by spaces, or "error: <message>". */
static char *
values_of (const char *text)
{
  GError *error = NULL;
  g_auto (GStrv) v = ts_sweep_values_parse (text, &error);
  if (!v)
    {
      char *said = g_strconcat ("error: ", error->message, NULL);
      g_error_free (error);
      return said;
    }
  return g_strjoinv (" ", v);
}

static void
expect_values (const char *text, const char *want)
{
  g_autofree char *got = values_of (text);
  if (!g_str_has_prefix (got, want))
    fail_msg ("'%s': got '%s', expected '%s'", text, got, want);
}

/* Ensure lists, step ranges (16, 16+16, ... up to 64 included) and factor
 * ranges (1, 2, 4, ... 64) give their values, a step that lands on the end
 * within rounding includes it (0.1 + 2 x 0.1 is 0.30000000000000004: 0.3),
 * and malformed or oversized ones are refused, saying why. */
static void
test_values (void **state)
{
  expect_values ("0.25, 0.5, 1.0", "0.25 0.5 1.0");
  expect_values ("ib-hdr,100gbe", "ib-hdr 100gbe");
  expect_values ("ib-hdr, \"10GBps,1us\"", "ib-hdr 10GBps,1us");
  expect_values ("a, \"b", "error: 'a, \"b': a double quote is not closed");
  expect_values ("16:64:16", "16 32 48 64");
  expect_values ("16:60:16", "16 32 48");
  expect_values ("1:64:*2", "1 2 4 8 16 32 64");
  expect_values ("0.1:0.3:0.1", "0.1 0.2 0.3");
  expect_values ("1:2", "error: '1:2': a range is START:STOP:STEP");
  expect_values ("5:1:1", "error: '5:1:1': the range ends before it starts");
  expect_values ("1:10:0", "error: '1:10:0': the step must be above 0");
  expect_values ("1:10:*1", "error: '1:10:*1': a factor range needs a factor above 1");
  expect_values ("a, ,b", "error: 'a, ,b': value 2 is empty");
  expect_values ("1:1e9:1", "error: '1:1e9:1': more than 10000 values");
  expect_values ("", "error: no value");
}

/* Ensure points enumerate like nested loops in the file's order (the last
 * parameter fastest): with 2 and 3 values, 6 points, and point 4 is
 * (1, 1); zipped lists of 3 give 3 points, point 2 is (2, 2); zipped lists
 * of different lengths and products over the limit give 0. */
static void
test_points (void **state)
{
  guint index[2];
  assert_int_equal (ts_sweep_point ((guint[]) { 2, 3 }, 2, FALSE, G_MAXUINT, NULL), 6);
  assert_int_equal (ts_sweep_point ((guint[]) { 2, 3 }, 2, FALSE, 4, index), 6);
  assert_int_equal (index[0], 1);
  assert_int_equal (index[1], 1);
  assert_int_equal (ts_sweep_point ((guint[]) { 2, 3 }, 2, FALSE, 2, index), 6);
  assert_int_equal (index[0], 0);
  assert_int_equal (index[1], 2);
  assert_int_equal (ts_sweep_point ((guint[]) { 3, 3 }, 2, TRUE, 2, index), 3);
  assert_int_equal (index[0], 2);
  assert_int_equal (index[1], 2);
  assert_int_equal (ts_sweep_point ((guint[]) { 2, 3 }, 2, TRUE, G_MAXUINT, NULL), 0);
  assert_int_equal (ts_sweep_point ((guint[]) { 1000, 1000 }, 2, FALSE, G_MAXUINT, NULL), 0);
}

/* Ensure a template is filled, "$$" stays a '$', and a ${name} no
 * parameter defines is reported with the template's name and its line. */
static void
test_templates (void **state)
{
  const char *names[] = { "factor", "nodes", NULL };
  const char *values[] = { "0.5", "64", NULL };
  GError *error = NULL;
  g_autofree char *filled = ts_sweep_fill ("[region:solve]\nscale = ${factor}  # $$5 of ${nodes}\n",
                                           "solver.hyp.in", names, values, &error);
  assert_non_null (filled);
  assert_string_equal (filled, "[region:solve]\nscale = 0.5  # $5 of 64\n");
  assert_null (ts_sweep_fill ("[network]\n\nlatency = ${latnecy}\n", "net.hyp.in", names, values,
                              &error));
  assert_string_equal (error->message, "net.hyp.in:3: ${latnecy} names no parameter of the sweep");
  g_clear_error (&error);
  g_auto (GStrv) unknown = ts_sweep_unknown_references ("${a}\n${factor}\n${a} ${b", names);
  assert_int_equal (g_strv_length (unknown), 2);
  assert_string_equal (unknown[0], "a:1");
  assert_string_equal (unknown[1], "(unclosed):3");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_values),
    cmocka_unit_test (test_points),
    cmocka_unit_test (test_templates),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
