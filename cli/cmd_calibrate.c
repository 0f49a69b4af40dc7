#include <config.h>

#include "cli/commands.h"
#include "calibrate/calibration.h"
#include "sim/platform.h"

#include "model/format.h"
#include "model/output_dir.h"

#include <stdio.h>
#include <string.h>

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
    return ts_cmd_option_error ("calibrate", error);
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
  ts_platform_spec_fit_threads (&spec, trace);
  /* The platform run calibrates: ranks that shared a node share a host, and
   * the hostfile beside it places them as traced (run --hostfile). */
  g_autofree char *hosts = ts_platform_place_as_traced (&spec, trace, FALSE);
  g_autofree char *hostfile = g_strconcat (output, ".hostfile", NULL);
  if (!ts_platform_write_cluster (&spec, output, &error)
      || (hosts && !ts_output_file_write (hostfile, hosts, strlen (hosts), TS_WRITTEN_MARK, &error)))
    return ts_cmd_fail ("calibrate", error);
  if (hosts)
    printf ("%s: the ranks on %u hosts of %u cores as the trace places them: "
            "tracesim run --hostfile %s -p %s\n", hostfile, spec.n_hosts, spec.cores, hostfile,
            output);
  /* Units as every command prints them (model/format.h). */
  g_autofree char *latency = ts_format_seconds (spec.latency);
  g_autofree char *bandwidth = ts_format_rate (spec.bandwidth);
  g_autofree char *intra_latency = ts_format_seconds (spec.intra_latency);
  g_autofree char *intra_bandwidth = ts_format_rate (spec.intra_bandwidth);
  printf ("%s: %u host%s, latency %s, bandwidth %s; within a node %s, %s (%s)\n", output,
          spec.n_hosts, spec.n_hosts == 1 ? "" : "s", latency, bandwidth, intra_latency,
          intra_bandwidth, ts_calibration_network (calibration).samples
                             ? "fitted to the trace's receives" : "defaults: nothing to fit");
  g_free (output);
  return 0;
}
