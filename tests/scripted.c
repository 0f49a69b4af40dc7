#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tests/scripted.h"
#include "model/output_dir.h"
#include "tools/tracegen/script.h"

char *
ts_test_script_write (const char *script, char **dir)
{
  GError *error = NULL;
  *dir = g_dir_make_tmp ("ts-test-XXXXXX", &error);
  if (!*dir)
    fail_msg ("temporary directory: %s", error->message);
  if (!ts_script_load_string (script, "test", *dir, "traces", &error))
    fail_msg ("script: %s", error->message);
  return g_build_filename (*dir, "traces.otf2", NULL);
}

TsTrace *
ts_test_script_open (const char *script, char **dir)
{
  g_autofree char *anchor = ts_test_script_write (script, dir);
  GError *error = NULL;
  TsTrace *t = ts_trace_open (anchor, &error);
  if (!t)
    fail_msg ("%s", error->message);
  return t;
}

void
ts_test_script_remove (char *dir)
{
  assert_true (ts_output_dir_remove_tree (dir));
  g_free (dir);
}
