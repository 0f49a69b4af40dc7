#include <config.h>

#include "cli/commands.h"
#include "calibrate/calibration.h"
#include "sim/platform.h"

#include <stdio.h>

int
ts_cmd_calibrate (int argc, char **argv)
{
  char *output = NULL;
  double trace_speed = 1e9;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "platform file to write (required)", "FILE" },
    { "trace-speed", 0, 0, G_OPTION_ARG_DOUBLE, &trace_speed,
      "flop rate of a core of the traced machine (default 1e9), as for run", "FLOPS" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("calibrate", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_fail ("calibrate", error);
  if (argc != 2 || !output)
    return ts_cmd_usage_error ("calibrate", "usage: tracesim calibrate TRACE -o platform.xml");
  if (!(trace_speed > 0 && trace_speed < 1e18))
    return ts_cmd_usage_error ("calibrate", "--trace-speed: a flop rate above 0 (e.g. 2e9)");
  g_autoptr (TsTrace) trace = ts_trace_open (argv[1], &error);
  if (!trace)
    return ts_cmd_fail ("calibrate", error);
  g_autoptr (TsCalibration) calibration = ts_calibration_compute (trace, &error);
  if (!calibration)
    return ts_cmd_fail ("calibrate", error);
  TsClusterSpec spec = ts_platform_spec_from_calibration (calibration, trace_speed);
  if (!ts_platform_write_cluster (&spec, output, &error))
    return ts_cmd_fail ("calibrate", error);
  printf ("%s: %u hosts, latency %.3g s, bandwidth %.3g B/s (%s)\n", output, spec.n_hosts,
          spec.latency, spec.bandwidth,
          ts_calibration_network (calibration).samples ? "fitted to the trace's receives" : "defaults: nothing to fit");
  g_free (output);
  return 0;
}
