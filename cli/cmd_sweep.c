#include <config.h>

#include "cli/commands.h"
#include "pipeline/sweep.h"
#include "pipeline/sweep-run.h"
#include "pipeline/sweep-slurm.h"

#include <sys/resource.h>

#include <stdio.h>
#include <unistd.h>

/* --dry-run: the points, one line each, nothing run. */
static void
print_points (const TsSweep *s)
{
  const char *const *inputs = ts_sweep_extrapolation_inputs (s);
  if (inputs)
    printf ("extrapolated from %u traces: %u points\n", g_strv_length ((char **) inputs),
            ts_sweep_n_points (s));
  else
    printf ("%s: %u points\n", ts_sweep_trace (s), ts_sweep_n_points (s));
  for (guint p = 0; p < ts_sweep_n_points (s); p++)
    {
      printf ("  p%04u", p);
      for (guint i = 0; i < ts_sweep_n_parameters (s); i++)
        printf ("  %s=%s", ts_sweep_parameter (s, i), ts_sweep_value (s, p, i));
      printf ("\n");
    }
}

/* --slurm: point 0 run here to measure a task, then the job array script. */
static int
write_slurm (const TsSweep *sweep, const char *path, const char *output, int parallel)
{
  GError *error = NULL;
  TsSweepRunOptions o = { 1, FALSE, FALSE, 0, FALSE, NULL };
  TsSweepTally t;
  gint64 t0 = g_get_monotonic_time ();
  if (!ts_sweep_run (sweep, output, &o, &t, &error))
    return ts_cmd_fail ("sweep", error);
  g_free (t.first_pass);
  struct rusage self, children;
  getrusage (RUSAGE_SELF, &self);
  getrusage (RUSAGE_CHILDREN, &children);
  g_autofree char *tracesim = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *abs_sweep = g_canonicalize_filename (path, NULL);
  g_autofree char *abs_out = g_canonicalize_filename (output, NULL);
  TsSweepSlurm sl = { abs_sweep, abs_out, tracesim ? tracesim : "tracesim", (guint) parallel,
                      (g_get_monotonic_time () - t0) / 1e6,
                      (guint64) MAX (self.ru_maxrss, children.ru_maxrss) * 1024 };
  g_autofree char *script = ts_sweep_write_sbatch (sweep, &sl, &error);
  if (!script)
    return ts_cmd_fail ("sweep", error);
  printf ("%s: %u tasks (point 0 done here in %.1f s); submit with: sbatch %s\n", script,
          ts_sweep_n_points (sweep), sl.task_seconds, script);
  return 0;
}

int
ts_cmd_sweep (int argc, char **argv)
{
  g_autofree char *output = NULL;
  int jobs = 0, point = -1, parallel = 0;
  gboolean dry_run = FALSE, quiet = FALSE, slurm = FALSE, collect = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "the sweep's directory (required)", "DIR" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "points at once (default: the number of cores)", "N" },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run, "list the points, run nothing", NULL },
    { "slurm", 0, 0, G_OPTION_ARG_NONE, &slurm,
      "write DIR/sweep.sbatch, a Slurm job array of one task a point", NULL },
    { "array-parallel", 0, 0, G_OPTION_ARG_INT, &parallel,
      "with --slurm: tasks at once (--array=...%M; default: no limit)", "M" },
    { "point", 0, 0, G_OPTION_ARG_INT, &point, "run this point only, write no table (a task)", "K" },
    { "collect", 0, 0, G_OPTION_ARG_NONE, &collect, "run nothing: the table of the points done", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress on stderr", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("sweep", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("sweep", error);
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
  if ((slurm + collect + (point >= 0)) > 1 || parallel < 0)
    return ts_cmd_usage_error ("sweep", "give one of --slurm, --point and --collect");
  if (slurm)
    return write_slurm (sweep, argv[1], output, parallel);
  TsSweepRunOptions o = { (guint) jobs, !quiet && isatty (STDERR_FILENO),
                          !quiet && !isatty (STDERR_FILENO), point >= 0 ? (guint) point : G_MAXUINT,
                          collect, NULL };
  TsSweepTally t;
  if (!ts_sweep_run (sweep, output, &o, &t, &error))
    return ts_cmd_fail ("sweep", error);
  g_free (t.first_pass);
  if (point >= 0)
    {
      if (!quiet)
        printf ("point %d: %s\n", point, t.failed ? "failed" : t.ran ? "done" : "done before");
      return t.failed ? 1 : 0;
    }
  printf ("%s/results.csv: %u points: %u run, %u reused, %u failed\n", output, t.points, t.ran,
          t.reused, t.failed);
  return t.failed || (collect && t.reused < t.points) ? 1 : 0;
}
