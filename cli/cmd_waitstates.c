#include <config.h>

#include "cli/commands.h"
#include "cli/report.h"
#include "analysis/waitstates.h"
#include "model/output_dir.h"
#include "output/csv.h"
#include "output/summary.h"

#include <stdio.h>

/* What opens every wait-state CSV tracesim writes, before and after its
 * first column was renamed (phase, then timeline): the mark that lets -o
 * replace such a file and nothing else (ts_output_file_write). */
#define CSV_MARK "pattern,region,rank,seconds\n"

/* tracesim waitstates TRACE [-o FILE.csv]: the original execution's wait
 * states, without simulating. */
int
ts_cmd_waitstates (int argc, char **argv)
{
  char *output = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "also write the per-region CSV (timeline,pattern,region,rank,seconds)", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "print the CSV's rows as a JSON array of objects (numbers as numbers) instead of the "
      "table", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("waitstates", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("waitstates", error);
  if (argc != 2)
    return ts_cmd_usage_error ("waitstates", "give exactly one trace");
  /* Checked before the analysis, which may take minutes. */
  if (output && !ts_output_file_may_write (output, CSV_MARK, &error))
    return ts_cmd_fail ("waitstates", error);
  g_autoptr (TsTrace) trace = ts_trace_open (argv[1], &error);
  if (!trace)
    return ts_cmd_fail ("waitstates", error);
  g_autoptr (TsCalibration) calibration = ts_calibration_compute (trace, &error);
  if (!calibration)
    return ts_cmd_fail ("waitstates", error);
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse (trace, calibration, &error);
  if (!w)
    return ts_cmd_fail ("waitstates", error);
  /* The file first: a failure leaves nothing on standard output. */
  if (output)
    {
      g_autoptr (GString) csv = g_string_new (TS_WAIT_STATES_CSV_HEADER);
      ts_csv_append_wait_states (csv, "original", trace, w);
      if (!ts_output_file_write (output, csv->str, csv->len, CSV_MARK, &error))
        return ts_cmd_fail ("waitstates", error);
    }
  if (json)
    {
      g_autoptr (JsonArray) rows = json_array_new ();
      ts_csv_wait_states_to_json (rows, "original", trace, w);
      g_autoptr (JsonNode) root = json_node_init_array (json_node_alloc (), rows);
      g_autofree char *text = ts_json_to_text (root);
      fputs (text, stdout);
    }
  else
    ts_report_wait_states (stdout, trace, w);
  g_free (output);
  return 0;
}
