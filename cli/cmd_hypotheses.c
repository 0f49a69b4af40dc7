#include <config.h>

#include "cli/commands.h"
#include "hypotheses/hypotheses.h"

#include <stdio.h>
#include <string.h>

/* The phases [phase:...] rules may name, most compute first. */
static void
print_phases (const TsTrace *trace, const TsCalibration *calibration)
{
  guint n = ts_calibration_n_phases (calibration);
  if (n == 0)
    return;
  printf ("phases (compute between MPI calls, named by the call ending it%s):\n",
          n > 10 ? "; the 10 with the most" : "");
  guint shown = MIN (n, 10u);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  int width = (int) strlen ("phase");
  for (guint i = 0; i < shown; i++)
    {
      const TsPhase *f = ts_calibration_phase (calibration, i);
      g_ptr_array_add (names, ts_trace_phase_name (trace, f->call, f->caller));
      width = MAX (width, (int) strlen (names->pdata[i]));
    }
  printf ("  %-*s %10s %14s\n", width, "phase", "bursts", "compute (s)");
  for (guint i = 0; i < shown; i++)
    {
      const TsPhase *f = ts_calibration_phase (calibration, i);
      printf ("  %-*s %10" G_GUINT64_FORMAT " %14.6f\n", width, (char *) names->pdata[i], f->bursts,
              f->compute);
    }
}

/* tracesim hypotheses check FILE... TRACE: parse, bind, and show what each
 * rule selects, without replaying. */
static int
check (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("hypotheses check", NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("hypotheses check", error);
  if (argc < 3)
    return ts_cmd_usage_error ("hypotheses", "usage: tracesim hypotheses check FILE... TRACE");
  g_autoptr (TsHypotheses) h = ts_hypotheses_new ();
  for (int i = 1; i < argc - 1; i++)
    if (!ts_hypotheses_load_file (h, argv[i], &error))
      return ts_cmd_fail ("hypotheses check", error);
  /* The first pass says what each rule selects (visits, ranks, compute)
   * and names the phases. */
  g_autoptr (TsTrace) trace = ts_trace_open (argv[argc - 1], &error);
  g_autoptr (TsCalibration) calibration = trace ? ts_calibration_compute (trace, &error) : NULL;
  if (!calibration || !ts_hypotheses_bind (h, trace, calibration, &error))
    return ts_cmd_fail ("hypotheses check", error);
  g_autoptr (GString) out = g_string_new (NULL);
  ts_hypotheses_describe (h, trace, out);
  printf ("%s%u rule(s), each selects compute of %s\n", out->str, ts_hypotheses_n_rules (h),
          argv[argc - 1]);
  print_phases (trace, calibration);
  return 0;
}

int
ts_cmd_hypotheses (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "check") == 0)
    return check (argc - 1, argv + 1);
  /* No subcommand: --help describes the command, anything else is a usage error. */
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("hypotheses", NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("hypotheses", error);
  return ts_cmd_usage_error ("hypotheses", argc < 2 ? "no subcommand given (hypotheses check)"
                                                    : "unknown subcommand (hypotheses check)");
}
