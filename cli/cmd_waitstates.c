#include <config.h>

#include "cli/commands.h"
#include "cli/report.h"
#include "analysis/waitstates.h"

#include <stdio.h>

/* tracesim waitstates TRACE [-o FILE.csv]: the original execution's wait
 * states, without simulating. */
int
ts_cmd_waitstates (int argc, char **argv)
{
  char *output = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "also write the per-region CSV (phase,pattern,region,rank,seconds)", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx
    = g_option_context_new ("TRACE - find the wait states of a trace (Scalasca's patterns)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_fail ("waitstates", error);
  if (argc != 2)
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "usage: tracesim waitstates TRACE [-o FILE.csv]");
      return ts_cmd_fail ("waitstates", error);
    }
  g_autoptr (TsTrace) trace = ts_trace_open (argv[1], &error);
  if (!trace)
    return ts_cmd_fail ("waitstates", error);
  g_autoptr (TsProfile) profile = ts_profile_compute (trace, &error);
  if (!profile)
    return ts_cmd_fail ("waitstates", error);
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse (trace, profile, &error);
  if (!w)
    return ts_cmd_fail ("waitstates", error);
  ts_report_wait_states (stdout, trace, w, NULL);
  if (output)
    {
      g_autoptr (GString) csv = g_string_new ("phase,pattern,region,rank,seconds\n");
      ts_wait_states_csv (csv, "original", trace, w);
      if (!g_file_set_contents (output, csv->str, csv->len, &error))
        return ts_cmd_fail ("waitstates", error);
    }
  g_free (output);
  return 0;
}
