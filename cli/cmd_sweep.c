#include <config.h>

#include "cli/commands.h"
#include "pipeline/sweep.h"
#include "pipeline/sweep-run.h"

#include <stdio.h>
#include <unistd.h>

/* --dry-run: the points, one line each, nothing run. */
static void
print_points (const TsSweep *s)
{
  printf ("%s: %u points\n", ts_sweep_trace (s), ts_sweep_n_points (s));
  for (guint p = 0; p < ts_sweep_n_points (s); p++)
    {
      printf ("  p%04u", p);
      for (guint i = 0; i < ts_sweep_n_parameters (s); i++)
        printf ("  %s=%s", ts_sweep_parameter (s, i), ts_sweep_value (s, p, i));
      printf ("\n");
    }
}

int
ts_cmd_sweep (int argc, char **argv)
{
  g_autofree char *output = NULL;
  int jobs = 0;
  gboolean dry_run = FALSE, quiet = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "the sweep's directory (required)", "DIR" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "points at once (default: the number of cores)", "N" },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run, "list the points, run nothing", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress on stderr", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("sweep", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_fail ("sweep", error);
  if (argc != 2 || (!output && !dry_run))
    return ts_cmd_usage_error ("sweep", "usage: tracesim sweep FILE -o DIR");
  if (jobs < 0 || jobs > 4096)
    return ts_cmd_usage_error ("sweep", "-j: a number of points at once, 1 to 4096");
  g_autoptr (TsSweep) sweep = ts_sweep_load (argv[1], &error);
  if (!sweep)
    return ts_cmd_fail ("sweep", error);
  if (dry_run)
    {
      print_points (sweep);
      return 0;
    }
  TsSweepRunOptions o = { (guint) jobs, !quiet && isatty (STDERR_FILENO),
                          !quiet && !isatty (STDERR_FILENO) };
  TsSweepTally t;
  if (!ts_sweep_run (sweep, output, &o, &t, &error))
    return ts_cmd_fail ("sweep", error);
  printf ("%s/results.csv: %u points: %u run, %u reused, %u failed\n", output, t.points, t.ran,
          t.reused, t.failed);
  return t.failed ? 1 : 0;
}
