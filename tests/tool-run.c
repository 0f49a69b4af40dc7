#include <config.h>

#include "tests/tool-run.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char *
ts_test_srcdir (void)
{
  const char *d = g_getenv ("top_srcdir");
  return d ? d : ".";
}

const char *
ts_test_builddir (void)
{
  const char *d = g_getenv ("top_builddir");
  return d ? d : ".";
}

void
ts_test_rmtree (const char *path)
{
  const char *argv[] = { "rm", "-rf", path, NULL };
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
}

char *
ts_test_workdir (const char *name)
{
  char *dir = g_build_filename (ts_test_builddir (), "tests", "work", name, NULL);
  ts_test_rmtree (dir);
  g_mkdir_with_parents (dir, 0755);
  return dir;
}

static TsToolResult
run (const char *tool, const char **args)
{
  GPtrArray *argv = g_ptr_array_new ();
  /* timeout(1) turns a hang into a failure instead of a stuck test suite. */
  g_ptr_array_add (argv, "timeout");
  g_ptr_array_add (argv, "60");
  g_ptr_array_add (argv, (gpointer) tool);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  TsToolResult r = { -1, NULL, NULL };
  int wait_status = 0;
  GError *error = NULL;
  if (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &r.out,
                    &r.err, &wait_status, &error))
    r.status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  else
    {
      r.err = g_strdup (error->message);
      g_error_free (error);
    }
  g_ptr_array_unref (argv);
  return r;
}

/* Every predicted archive a test makes must be a valid trace (balanced and
 * nested regions, time never going back, MPI records inside calls, read by
 * otf2-print without a word): ts-check-archive says why if not, and the
 * test stops there. */
static void
check_predicted (const char **args)
{
  const char *out = NULL;
  for (guint i = 1; args[i]; i++)
    if (strcmp (args[i - 1], "-o") == 0 || strcmp (args[i - 1], "--output") == 0)
      out = args[i];
  if (strcmp (args[0], "run") != 0 || !out)
    return;
  g_autofree char *anchor = g_build_filename (out, "predicted", "traces.otf2", NULL);
  if (!g_file_test (anchor, G_FILE_TEST_EXISTS))
    return;
  g_autofree char *tool = g_build_filename (ts_test_builddir (), "ts-check-archive", NULL);
  TsToolResult r = run (tool, (const char *[]) { anchor, NULL });
  if (r.status != 0)
    g_error ("the predicted archive is not a valid trace:\n%s", r.err);
  ts_tool_result_clear (&r);
}

TsToolResult
ts_run_tracesim (const char **args)
{
  g_autofree char *tool = g_build_filename (ts_test_builddir (), "tracesim", NULL);
  TsToolResult r = run (tool, args);
  if (r.status == 0)
    check_predicted (args);
  return r;
}

void
ts_tool_result_clear (TsToolResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

static char *
generate (const char *work, const char *script)
{
  g_autofree char *tool = g_build_filename (ts_test_builddir (), "ts-tracegen", NULL);
  g_autofree char *dir = g_build_filename (work, "trace", NULL);
  TsToolResult r = run (tool, (const char *[]) { "script", script, "-o", dir, NULL });
  if (r.status != 0)
    g_error ("ts-tracegen failed on %s: %s", script, r.err);
  ts_tool_result_clear (&r);
  return g_build_filename (dir, "traces.otf2", NULL);
}

char *
ts_test_generate (const char *work, const char *scenario_dir)
{
  g_autofree char *script = g_build_filename (scenario_dir, "trace.script", NULL);
  return generate (work, script);
}

char *
ts_test_generate_text (const char *work, const char *text)
{
  g_autofree char *script = g_build_filename (work, "trace.script", NULL);
  g_assert (g_file_set_contents (script, text, -1, NULL));
  return generate (work, script);
}

gboolean
ts_test_dir_has_prefix (const char *dir, const char *prefix)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  if (!d)
    return FALSE;
  const char *name;
  gboolean found = FALSE;
  while ((name = g_dir_read_name (d)))
    found |= g_str_has_prefix (name, prefix);
  g_dir_close (d);
  return found;
}

char *
ts_run_tracesim_output (const char **args, const char *dir, const char *name, char **why)
{
  TsToolResult r = ts_run_tracesim (args);
  if (r.status != 0)
    {
      *why = g_steal_pointer (&r.err);
      ts_tool_result_clear (&r);
      return NULL;
    }
  ts_tool_result_clear (&r);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  char *contents = NULL;
  if (!g_file_get_contents (path, &contents, NULL, &error))
    *why = g_strdup (error->message);
  return contents;
}
