#include <config.h>

#include "cli/commands.h"
#include "cli/report.h"
#include "analysis/waitstates.h"
#include "output/csv.h"

#include <stdio.h>

/* tracesim waitstates TRACE [-o FILE.csv]: the original execution's wait
 * states, without simulating. */
int
ts_cmd_waitstates (int argc, char **argv)
{
  char *output = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "also write the per-region CSV (timeline,pattern,region,rank,seconds)", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("waitstates", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("waitstates", error);
  if (argc != 2)
    return ts_cmd_usage_error ("waitstates", "give exactly one trace");
  g_autoptr (TsTrace) trace = ts_trace_open (argv[1], &error);
  if (!trace)
    return ts_cmd_fail ("waitstates", error);
  g_autoptr (TsCalibration) calibration = ts_calibration_compute (trace, &error);
  if (!calibration)
    return ts_cmd_fail ("waitstates", error);
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse (trace, calibration, &error);
  if (!w)
    return ts_cmd_fail ("waitstates", error);
  ts_report_wait_states (stdout, trace, w);
  if (output)
    {
      g_autoptr (GString) csv = g_string_new (TS_WAIT_STATES_CSV_HEADER);
      ts_csv_append_wait_states (csv, "original", trace, w);
      if (!g_file_set_contents (output, csv->str, csv->len, &error))
        return ts_cmd_fail ("waitstates", error);
    }
  g_free (output);
  return 0;
}
