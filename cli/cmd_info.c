#include <config.h>

#include "cli/commands.h"
#include "cli/report.h"
#include "output/info.h"
#include "output/summary.h"

#include <stdio.h>

int
ts_cmd_info (int argc, char **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print one JSON object instead of text", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("info", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_fail ("info", error);
  if (argc != 2)
    return ts_cmd_usage_error ("info", "give exactly one trace");
  g_autoptr (TsTrace) trace = ts_trace_open (argv[1], &error);
  if (!trace)
    return ts_cmd_fail ("info", error);
  g_autoptr (TsCalibration) calibration = ts_calibration_compute (trace, &error);
  if (!calibration)
    return ts_cmd_fail ("info", error);
  if (!json)
    {
      ts_report_info (stdout, trace, calibration);
      return 0;
    }
  g_autoptr (JsonNode) root = ts_info_to_json (trace, calibration);
  g_autofree char *text = ts_json_to_text (root);
  fputs (text, stdout);
  return 0;
}
