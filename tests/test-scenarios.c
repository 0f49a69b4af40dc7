/* Golden scenario tests: each scenarios/<name>/ holds a trace script, and an
 * expected.ini naming the platform and the expected summary values with
 * their hand derivation. The test writes the trace with ts-tracegen, replays
 * it with tracesim and compares summary.json to 1 microsecond. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "tests/tool-run.h"

#define TOLERANCE 1e-6

static const char *scenario_names[] = { "late-sender", "allreduce4", "iallreduce-overlap", "persistent",
                                         "sender-faster", "imbalance-mean", "selection",
                                         "polling-faster", "polling-slower", NULL };

/* The array or number under "<section>": { ... "<key>": ... } in summary.json. */
static GArray *
summary_values (const char *json, const char *dotted_key)
{
  g_auto (GStrv) parts = g_strsplit (dotted_key, ".", 2);
  const char *section = parts[1] ? strstr (json, g_strdup_printf ("\"%s\": {", parts[0])) : json;
  const char *key = parts[1] ? parts[1] : parts[0];
  GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
  if (!section)
    return values;
  g_autofree char *pattern = g_strdup_printf ("\"%s\": \\[?([^\\]\\n]*)", key);
  g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  if (g_regex_match (re, section, 0, &m))
    {
      g_autofree char *list = g_match_info_fetch (m, 1);
      g_auto (GStrv) items = g_strsplit (list, ",", -1);
      for (guint i = 0; items[i]; i++)
        {
          char *item = g_strstrip (items[i]);
          if (*item == '\0')
            continue;
          double v = g_ascii_strtod (item, NULL);
          g_array_append_val (values, v);
        }
    }
  return values;
}

/* Ensure that every scenario's predicted summary matches its derivation. */
static void
test_scenario (void **state)
{
  const char *name = *state;
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", name, NULL);
  g_autofree char *ini = g_build_filename (dir, "expected.ini", NULL);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  GError *error = NULL;
  assert_true (g_key_file_load_from_file (kf, ini, G_KEY_FILE_NONE, &error));
  g_autofree char *platform_rel = g_key_file_get_string (kf, "scenario", "platform", &error);
  assert_non_null (platform_rel);
  g_autofree char *platform = g_build_filename (ts_test_srcdir (), "scenarios", platform_rel, NULL);

  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *trace = ts_test_generate (work, dir);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  for (const char *const *w = (const char *const[]) { "run", trace, "-p", platform, "-o", out, "-q",
                                                      NULL };
       *w; w++)
    g_ptr_array_add (args, g_strdup (*w));
  /* Optional hypothesis files, relative to the scenario, applied in order. */
  g_auto (GStrv) hyps = g_key_file_get_string_list (kf, "scenario", "hypotheses", NULL, NULL);
  for (guint i = 0; hyps && hyps[i]; i++)
    {
      g_ptr_array_add (args, g_strdup ("-H"));
      g_ptr_array_add (args, g_build_filename (dir, hyps[i], NULL));
    }
  g_ptr_array_add (args, NULL);
  TsToolResult res = ts_run_tracesim ((const char **) args->pdata);
  if (res.status != 0)
    fail_msg ("tracesim failed on %s: %s", name, res.err);
  ts_tool_result_clear (&res);

  g_autofree char *summary_path = g_build_filename (out, "summary.json", NULL);
  g_autofree char *json = NULL;
  assert_true (g_file_get_contents (summary_path, &json, NULL, NULL));

  g_auto (GStrv) keys = g_key_file_get_keys (kf, "expect", NULL, NULL);
  assert_non_null (keys);
  for (guint k = 0; keys[k]; k++)
    {
      gsize n = 0;
      double *want = g_key_file_get_double_list (kf, "expect", keys[k], &n, &error);
      assert_non_null (want);
      GArray *got = summary_values (json, keys[k]);
      if (got->len != n)
        fail_msg ("%s: %s has %u values, expected %zu", name, keys[k], got->len, n);
      for (guint i = 0; i < n; i++)
        if (fabs (g_array_index (got, double, i) - want[i]) > TOLERANCE)
          fail_msg ("%s: %s[%u] = %.9f, derived %.9f", name, keys[k], i,
                    g_array_index (got, double, i), want[i]);
      g_array_unref (got);
      g_free (want);
    }
  ts_test_rmtree (work);
}

int
main (void)
{
  GPtrArray *tests = g_ptr_array_new ();
  for (guint i = 0; scenario_names[i]; i++)
    {
      struct CMUnitTest *t = g_new0 (struct CMUnitTest, 1);
      t->name = scenario_names[i];
      t->test_func = test_scenario;
      t->initial_state = (void *) scenario_names[i];
      g_ptr_array_add (tests, t);
    }
  struct CMUnitTest *flat = g_new0 (struct CMUnitTest, tests->len);
  for (guint i = 0; i < tests->len; i++)
    flat[i] = *(struct CMUnitTest *) tests->pdata[i];
  return _cmocka_run_group_tests ("scenarios", flat, tests->len, NULL, NULL);
}
