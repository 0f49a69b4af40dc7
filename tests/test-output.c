/* Tests of output/: CSV quoting, summary.json escaping, failed writes. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "output/csv.h"
#include "output/summary.h"

/* A name that breaks hand-written JSON (a quote, a backslash, and g_strescape's
 * octal escapes for non-ASCII) and unquoted CSV (a comma). */
#define HOSTILE "na\"me\\x,\xc3\xa9"

/* Ensure that CSV fields are quoted exactly when RFC 4180 needs it. */
static void
test_csv_field (void **state)
{
  (void) state;
  const struct { const char *in, *out; } cases[] = {
    { "MPI_Recv", "MPI_Recv" },                  /* nothing to quote */
    { "a,b", "\"a,b\"" },                        /* separator */
    { "say \"hi\"", "\"say \"\"hi\"\"\"" },      /* quotes doubled */
    { "two\nlines", "\"two\nlines\"" },          /* line break */
    { "caf\xc3\xa9", "caf\xc3\xa9" },             /* UTF-8 goes as it is */
    { "", "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      ts_csv_append_field (s, cases[i].in);
      assert_string_equal (s->str, cases[i].out);
    }
}

static TsRunResult *
hostile_result (void)
{
  TsRunResult *r = ts_run_result_new (2);
  r->inputs.trace = g_strdup ("/tmp/\"quoted\" \\ \xc3\xa9/traces.otf2");
  TsRegionResult x = { g_strdup (HOSTILE), 3, 1.5, 0.75 };
  g_array_append_val (r->regions, x);
  TsInputFile h = { g_strdup ("what \"if\".hyp"), g_strdup ("00ff") };
  g_array_append_val (r->inputs.hypotheses, h);
  r->original_runtime = 2.0;
  r->predicted_runtime = 1.0;
  r->original_rank_end[1] = 2.0;
  r->predicted_rank_end[1] = 1.0;
  return r;
}

/* Ensure that summary.json escapes names and paths as JSON requires, and
 * that json-glib reads back exactly the strings written. (Python's json
 * reads the same from a real run in tests/test-outputs.sh.) */
static void
test_summary_escapes (void **state)
{
  (void) state;
  g_autoptr (TsRunResult) r = hostile_result ();
  g_autofree char *dir = g_dir_make_tmp ("ts-output-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "summary.json", NULL);
  GError *error = NULL;
  assert_true (ts_summary_write (r, path, &error));
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  assert_true (g_utf8_validate (text, -1, NULL));
  assert_null (strstr (text, "\\303"));   /* no octal escape (not JSON) */

  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_data (parser, text, -1, &error));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  assert_string_equal (json_object_get_string_member (o, "trace"), r->inputs.trace);
  JsonObject *region
    = json_array_get_object_element (json_object_get_array_member (o, "regions"), 0);
  assert_string_equal (json_object_get_string_member (region, "name"), HOSTILE);
  assert_int_equal (json_object_get_int_member (region, "visits"), 3);
  /* speed-up = 2.0 / 1.0 */
  assert_true (json_object_get_double_member (o, "speedup") == 2.0);
  JsonObject *hyp = json_array_get_object_element (
    json_object_get_array_member (json_object_get_object_member (o, "inputs"), "hypotheses"), 0);
  assert_string_equal (json_object_get_string_member (hyp, "path"), "what \"if\".hyp");
  g_unlink (path);
  g_rmdir (dir);
}

/* Ensure that a summary that cannot be written says which file and why. */
static void
test_summary_write_fails (void **state)
{
  (void) state;
  g_autoptr (TsRunResult) r = hostile_result ();
  GError *error = NULL;
  assert_false (ts_summary_write (r, "/nonexistent-dir/summary.json", &error));
  assert_non_null (error);
  assert_non_null (strstr (error->message, "/nonexistent-dir/summary.json"));
  g_clear_error (&error);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_csv_field),
    cmocka_unit_test (test_summary_escapes),
    cmocka_unit_test (test_summary_write_fails),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
