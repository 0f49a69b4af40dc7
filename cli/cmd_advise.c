#include <config.h>

#include "cli/commands.h"
#include "model/format.h"
#include "model/output_dir.h"
#include "pipeline/advise.h"
#include "pipeline/sweep-run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void
print_table (const GPtrArray *rows, const TsRunShared *shared, const TsAdviseOptions *o)
{
  const TsAdvice *base = g_ptr_array_index (rows, 0);
  printf ("tracesim advise: %s (%u ranks)\n", o->trace, ts_trace_n_ranks (ts_run_shared_trace (shared)));
  if (base->error)
    {
      printf ("  the replay as traced failed: %s\n", base->error);
      return;
    }
  g_autofree char *outside = ts_advise_outside_sentence (shared);
  g_autofree char *as_traced = ts_format_seconds (base->runtime);
  /* What no row can change, before the rows: a saving of 2% means little
   * when MPI_Init holds 80% of the run. */
  if (outside)
    printf ("  %s\n", outside);
  printf ("  predicted as traced: %s; each change alone:\n", as_traced);
  /* Phase names of C++ programs are long: the column takes the longest. */
  g_autofree char *faster = g_strdup_printf ("%gx faster", 1 / o->factor);
  int width = (int) strlen ("region"), cw = 12;
  for (guint i = 1; i < rows->len; i++)
    {
      const TsAdvice *a = g_ptr_array_index (rows, i);
      width = MAX (width, (int) strlen (a->region));
      if (!g_str_equal (a->change, TS_ADVISE_FASTER))
        cw = MAX (cw, (int) strlen (a->change)); /* threads-balanced */
    }
  printf ("  %-*s %-*s %12s %11s %7s\n", width, "region", cw, "change", "predicted_s", "saving_s",
          "saving");
  for (guint i = 1; i < rows->len; i++)
    {
      const TsAdvice *a = g_ptr_array_index (rows, i);
      const char *change = g_str_equal (a->change, TS_ADVISE_FASTER) ? faster : a->change;
      if (a->error)
        {
          printf ("  %-*s %-*s failed: %s\n", width, a->region, cw, change, a->error);
          continue;
        }
      printf ("  %-*s %-*s %12.6f %11.6f %6.1f%%", width, a->region, cw, change, a->runtime,
              a->saving,
              base->runtime > 0 ? 100 * a->saving / base->runtime : 0.0);
      /* Why a speed-up bought little: the time it freed went into waiting. */
      g_autofree char *why = ts_advice_explanation (a, shared, o->factor);
      printf ("%s%s\n", why ? "   " : "", why ? why : "");
    }
}

/* Without -o: a temporary directory, removed at the end. */
static char *
scratch_dir (char **tmp, GError **error)
{
  *tmp = g_dir_make_tmp ("tracesim-advise-XXXXXX", error);
  if (!*tmp)
    return NULL;
  ts_output_dir_guard (*tmp);
  return g_build_filename (*tmp, "advise", NULL);
}

static int
advise (const TsAdviseOptions *o, guint jobs, gboolean quiet, gboolean scratch)
{
  GError *error = NULL;
  if (!ts_advise_check_options (o, &error) || !ts_sweep_prepare_output (o->output_dir, &error))
    return ts_cmd_fail ("advise", error);
  g_autofree char *cache = g_build_filename (o->output_dir, "inputs", "first-pass.cache", NULL);
  gboolean loaded = FALSE;
  g_autofree char *note = NULL;
  g_autoptr (TsRunShared) shared = ts_run_shared_cached (o->trace, TRUE, o->cpu_time, cache, &loaded, &note,
                                                         &error);
  /* Without -o the first pass is removed with the rest: say so, not
   * where it is "kept". */
  if (shared && !quiet)
    fprintf (stderr, "advise: %s\n", scratch ? (loaded ? "first pass read"
                                                        : "first pass computed (in a temporary "
                                                          "directory, removed at the end: -o DIR "
                                                          "keeps it for the next advise)")
                                              : note);
  g_autofree char *sweep_path = shared ? ts_advise_write_sweep (o, shared, &error) : NULL;
  g_autoptr (TsSweep) sweep = sweep_path ? ts_sweep_load (sweep_path, &error) : NULL;
  if (!sweep)
    return ts_cmd_fail ("advise", error);
  TsSweepRunOptions ro = { jobs, !quiet && isatty (STDERR_FILENO), FALSE, G_MAXUINT, FALSE,
                           shared };
  TsSweepTally tally;
  if (!ts_sweep_run (sweep, o->output_dir, &ro, &tally, &error))
    return ts_cmd_fail ("advise", error);
  ts_sweep_tally_clear (&tally);
  g_autoptr (GPtrArray) rows = ts_advise_read (sweep, o->output_dir, &error);
  if (!rows)
    return ts_cmd_fail ("advise", error);
  /* The table stands without it: a failure here is said, not fatal. */
  if (!ts_advise_explain (o, shared, rows, &ro, &error))
    {
      fprintf (stderr, "advise: where the time went is not known for every row: %s\n",
               error->message);
      g_clear_error (&error);
    }
  print_table (rows, shared, o);
  /* The page's data (tracesim report OUT); nothing to keep in a scratch
   * directory. */
  if (!scratch && !ts_advise_write_json (o, shared, rows, &error))
    return ts_cmd_fail ("advise", error);
  return tally.failed ? 1 : 0;
}

int
ts_cmd_advise (int argc, char **argv)
{
  g_autofree char *output = NULL;
  double factor = 0.5;
  int top = 10, jobs = 0;
  gboolean quiet = FALSE, cpu_time = FALSE, wall_time = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "keep the sweep here (results.csv, a run per point; a rerun resumes); default: a "
      "temporary directory, removed", "DIR" },
    { "factor", 0, 0, G_OPTION_ARG_DOUBLE, &factor,
      "the time a faster region keeps, above 0 and below 1 (default 0.5: 2x faster)", "F" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top,
      "the regions with the most exclusive compute to try (default 10)", "N" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "replays at once (default: the number of cores)", "N" },
    { "cpu-time", 0, 0, G_OPTION_ARG_NONE, &cpu_time,
      "take compute from the trace's CPU time, as run --cpu-time (the default for a trace "
      "recorded with more ranks than cores that has it: tracesim-record --cpu-time)", NULL },
    { "wall-time", 0, 0, G_OPTION_ARG_NONE, &wall_time,
      "take compute from the trace's wall time, as run --wall-time", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress on stderr", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("advise", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("advise", error);
  if (argc != 2)
    return ts_cmd_usage_error ("advise", "give exactly one trace");
  if (jobs < 0 || jobs > 4096)
    return ts_cmd_usage_error ("advise", "-j: a number of replays at once, 1 to 4096");
  TsCpuTime clock;
  if (!ts_cmd_cpu_time (cpu_time, wall_time, FALSE, &clock))
    return ts_cmd_usage_error ("advise", "--cpu-time and --wall-time: give one");
  TsAdviseOptions o = { argv[1], output, factor, top < 0 ? 0 : (guint) top, clock };
  if (!ts_advise_check_options (&o, &error))
    return ts_cmd_option_error ("advise", error);
  g_autofree char *tmp = NULL, *scratch = NULL;
  if (!output && !(o.output_dir = scratch = scratch_dir (&tmp, &error)))
    return ts_cmd_fail ("advise", error);
  int status = advise (&o, (guint) jobs, quiet, tmp != NULL);
  if (tmp)
    {
      ts_output_dir_remove_tree (tmp);
      ts_output_dir_unguard (tmp);
    }
  else if (status == 0)
    printf ("  written: %s/results.csv (and a run per point in %s/points)\n", output, output);
  return status;
}
