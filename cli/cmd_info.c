#include <config.h>

#include "cli/commands.h"
#include "cli/report.h"

int
ts_cmd_info (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("info", NULL);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_fail ("info", error);
  if (argc != 2)
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "give exactly one trace");
      return ts_cmd_fail ("info", error);
    }
  g_autoptr (TsTrace) trace = ts_trace_open (argv[1], &error);
  if (!trace)
    return ts_cmd_fail ("info", error);
  g_autoptr (TsCalibration) calibration = ts_calibration_compute (trace, &error);
  if (!calibration)
    return ts_cmd_fail ("info", error);
  ts_report_info (stdout, trace, calibration);
  return 0;
}
