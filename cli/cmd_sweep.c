#include <config.h>

#include "cli/commands.h"
#include "pipeline/sweep.h"
#include "pipeline/sweep-run.h"
#include "pipeline/sweep-slurm.h"
#include "output/html-report.h"

#include <sys/resource.h>

#include <stdio.h>
#include <unistd.h>

/* --dry-run: the points, one line each (its number, its name under
 * OUT/points/, its values, what a run would do), nothing run or written. */
static int
print_points (const TsSweep *s, const char *output)
{
  GError *error = NULL;
  TsSweepRunOptions o = { 1, FALSE, FALSE, G_MAXUINT, FALSE, NULL, TRUE };
  TsSweepTally t;
  /* Without -o, every point is to run: no directory holds any. */
  if (!ts_sweep_run (s, output, &o, &t, &error))
    return ts_cmd_fail ("sweep", error);
  const char *const *inputs = ts_sweep_extrapolation_inputs (s);
  if (inputs)
    printf ("extrapolated from %u traces: ", g_strv_length ((char **) inputs));
  else
    printf ("%s: ", ts_sweep_trace (s));
  printf ("%u points: %u to run, %u done before%s, %u failing; a dry run: nothing run, "
          "nothing written\n", t.points, t.points - t.reused - t.failed, t.reused,
          t.carried ? " (of the layout before names, carried over by a run)" : "", t.failed);
  static const char *const what[] = { "to run", "done", "fails" };
  for (guint p = 0; p < t.points; p++)
    {
      g_autofree char *name = ts_sweep_point_name (s, p);
      g_autofree char *label = ts_sweep_point_label (s, p);
      printf ("  %4u  %s  %s  (%s)\n", p, name, label, what[t.states[p]]);
    }
  ts_sweep_tally_clear (&t);
  return 0;
}

/* --collect: the points no task finished, by number and values. */
static void
print_missing (const TsSweep *s, const TsSweepTally *t)
{
  fprintf (stderr, "sweep: %u points missing (not run, or their task did not finish; "
                   "run them with --point K, or the sweep without --collect):\n", t->missing);
  for (guint p = 0; p < t->points; p++)
    if (t->states[p] == TS_SWEEP_TO_RUN)
      {
        g_autofree char *label = ts_sweep_point_label (s, p);
        fprintf (stderr, "  point %u: %s\n", p, label);
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
  ts_sweep_tally_clear (&t);
  struct rusage self, children;
  getrusage (RUSAGE_SELF, &self);
  getrusage (RUSAGE_CHILDREN, &children);
  g_autofree char *tracesim = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *cwd = g_get_current_dir ();
  TsSweepSlurm sl = { path, output, cwd, tracesim ? tracesim : "tracesim", (guint) parallel,
                      (g_get_monotonic_time () - t0) / 1e6,
                      (guint64) MAX (self.ru_maxrss, children.ru_maxrss) * 1024 };
  g_autofree char *script = ts_sweep_write_sbatch (sweep, &sl, &error);
  if (!script)
    return ts_cmd_fail ("sweep", error);
  printf ("%s: %u tasks (point 0 done here in %.1f s); submit with: sbatch %s\n", script,
          ts_sweep_n_points (sweep), sl.task_seconds, script);
  return 0;
}

/* --point K (@text, NULL if not given) in @point (-1: not given); 0, or
 * the usage error's status when K is no point of the sweep. Taken as a
 * string: as an int, "-5" read as no --point and ran every point, and the
 * range is known only once the sweep file is read. */
static int
point_of (const TsSweep *sweep, const char *text, int *point)
{
  guint64 k = 0;
  guint n = ts_sweep_n_points (sweep);
  *point = -1;
  if (text && !g_ascii_string_to_unsigned (text, 10, 0, n - 1, &k, NULL))
    {
      g_autofree char *bad = g_strdup_printf ("--point %s: the sweep has points 0 to %u", text,
                                              n - 1);
      return ts_cmd_usage_error ("sweep", bad);
    }
  *point = text ? (int) k : -1;
  return 0;
}

int
ts_cmd_sweep (int argc, char **argv)
{
  g_autofree char *output = NULL, *point_text = NULL;
  int jobs = 0, point = -1, parallel = 0;
  gboolean dry_run = FALSE, quiet = FALSE, slurm = FALSE, collect = FALSE, report = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "the sweep's directory (required)", "DIR" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "points at once (default: the number of cores)", "N" },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run, "list the points, run nothing", NULL },
    { "slurm", 0, 0, G_OPTION_ARG_NONE, &slurm,
      "write DIR/sweep.sbatch, a Slurm job array of one task a point", NULL },
    { "array-parallel", 0, 0, G_OPTION_ARG_INT, &parallel,
      "with --slurm: tasks at once (--array=...%M; default: no limit)", "M" },
    { "point", 0, 0, G_OPTION_ARG_STRING, &point_text,
      "run this point only, write no table (a task)", "K" },
    { "collect", 0, 0, G_OPTION_ARG_NONE, &collect, "run nothing: the table of the points done", NULL },
    { "report", 0, 0, G_OPTION_ARG_NONE, &report,
      "also write DIR/report.html (redrawn by every run once there)", NULL },
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
  int bad_point = point_of (sweep, point_text, &point);
  if (bad_point)
    return bad_point;
  if (dry_run)
    return print_points (sweep, output);
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
  int status = t.failed || t.missing ? 1 : 0;
  if (point >= 0)
    {
      if (!quiet)
        printf ("point %d: %s\n", point, t.failed ? "failed" : t.ran ? "done" : "done before");
      ts_sweep_tally_clear (&t);
      return status;
    }
  if (t.carried + t.dropped > 0 && !quiet)
    fprintf (stderr, "sweep: points are named by their values now (%s/points/NAME): %u points "
             "of the old layout (pNNNN) carried over, %u out of date removed\n", output,
             t.carried, t.dropped);
  g_autofree char *table = g_build_filename (output, "results.csv", NULL);
  printf ("%s: %u points: %u run, %u reused, %u failed", table, t.points, t.ran, t.reused,
          t.failed);
  if (t.missing)
    {
      printf (", %u missing\n", t.missing);
      print_missing (sweep, &t);
    }
  else
    printf ("\n");
  ts_sweep_tally_clear (&t);
  /* A page drawn before is redrawn: it never gives another table's total. */
  g_autofree char *page = g_build_filename (output, TS_REPORT_FILE, NULL);
  TsReportKind kind;
  if ((report || g_file_test (page, G_FILE_TEST_EXISTS))
      && !ts_html_report_write (output, NULL, &kind, &error))
    return ts_cmd_fail ("sweep", error);
  if (report && !quiet)
    printf ("written: %s\n", page);
  return status;
}
