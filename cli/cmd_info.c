#include <config.h>

#include "cli/commands.h"
#include "cli/report.h"
#include "model/output_dir.h"
#include "output/info.h"
#include "output/summary.h"
#include "pipeline/run.h"
#include "sim/replay.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

/* The identity replay on the cluster calibrated from the trace, as `tracesim
 * run` would make it (no archive; the CPU time of a time-shared recording
 * that has it, as run takes by itself), into a temporary directory removed
 * afterwards: what
 * it had to choose where the trace does not tell (guessed matches, the eager
 * threshold) and what it revised after a deadlock are known only once it
 * ran. NULL with @error when it fails. */
static TsRunResult *
identity_replay (const char *trace, const TsRunShared *shared, const TsMpiProgress *mpi_progress,
                 GError **error)
{
  g_autofree char *tmp = g_dir_make_tmp ("tracesim-info-XXXXXX", error);
  if (!tmp)
    return NULL;
  ts_output_dir_guard (tmp);
  g_autofree char *out = g_build_filename (tmp, "replay", NULL);
  TsRunOptions o;
  ts_run_options_init (&o);
  o.trace = trace;
  o.output_dir = out;
  o.wait_states = FALSE;
  o.no_archive = TRUE;
  o.shared = shared;
  o.cpu_time = TS_CPU_TIME_AUTO;
  o.mpi_progress_given = mpi_progress != NULL;
  if (mpi_progress)
    o.mpi_progress = *mpi_progress;
  TsRunResult *result = ts_run (&o, error);
  ts_output_dir_remove_tree (tmp);
  ts_output_dir_unguard (tmp);
  return result;
}

/* Into @root's replay: what the identity replay took compute from, and
 * what the residual does in it and in a what-if (as the text says). */
static void
add_clock_and_residual (JsonNode *root, const TsTrace *trace, const TsRunResult *r)
{
  JsonObject *replay = json_object_get_object_member (json_node_get_object (root), "replay");
  if (!replay)
    return;
  const TsRunInputs *in = &r->inputs;
  json_object_set_string_member (replay, "compute_clock", in->cpu_estimated ? "cpu_estimated"
                                                          : in->cpu_time    ? "cpu"
                                                                            : "wall");
  if (isnan (in->calls_fair_share))
    json_object_set_null_member (replay, "calls_fair_share");
  else
    json_object_set_double_member (replay, "calls_fair_share", in->calls_fair_share);
  JsonObject *residual = json_object_new ();
  json_object_set_string_member (residual, "identity", in->residual);
  json_object_set_string_member (residual, "what_if",
                                 ts_residual_name (ts_run_default_residual (trace, in->shared_cores, TRUE)));
  json_object_set_object_member (replay, "residual", residual);
}

int
ts_cmd_info (int argc, char **argv)
{
  gboolean json = FALSE, no_replay = FALSE;
  g_autofree char *mpi_progress = NULL;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print one JSON object instead of text", NULL },
    { "no-replay", 0, 0, G_OPTION_ARG_NONE, &no_replay,
      "only read the trace: no identity replay (which tells how closely it reproduces the "
      "trace and which of its choices a deadlock made it revise)", NULL },
    { "mpi-progress", 0, 0, G_OPTION_ARG_STRING, &mpi_progress,
      "the identity replay's MPI progress, as `tracesim run --mpi-progress` (in-calls, the "
      "default, or async)", "MODE" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("info", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("info", error);
  if (argc != 2)
    return ts_cmd_usage_error ("info", "give exactly one trace");
  TsMpiProgress progress = TS_MPI_PROGRESS_IN_CALLS;
  if (mpi_progress && !ts_mpi_progress_parse (mpi_progress, &progress))
    return ts_cmd_usage_error ("info", "--mpi-progress: expected in-calls or async");
  g_autoptr (TsRunShared) shared = ts_run_shared_new (argv[1], FALSE, TS_CPU_TIME_AUTO, &error);
  if (!shared)
    return ts_cmd_fail ("info", error);
  const TsTrace *trace = ts_run_shared_trace (shared);
  const TsCalibration *calibration = ts_run_shared_calibration (shared);
  const TsThreadScan *threads = ts_trace_thread_scan (trace);
  g_autoptr (TsThreadScan) none = threads ? NULL : ts_thread_scan (trace, &error);
  if (!threads)
    threads = none;
  if (!threads)
    return ts_cmd_fail ("info", error);
  /* A replay that fails is a finding about the trace, reported as such. */
  g_autoptr (GError) replay_error = NULL;
  g_autoptr (TsRunResult) replay = no_replay ? NULL
                                             : identity_replay (argv[1], shared, mpi_progress ? &progress : NULL,
                                                               &replay_error);
  if (!json)
    {
      ts_report_info (stdout, trace, calibration, threads, !no_replay);
      if (!no_replay)
        ts_report_info_replay (stdout, trace, replay, replay_error);
      return 0;
    }
  g_autoptr (JsonNode) root = ts_info_to_json (trace, calibration, threads);
  if (!no_replay)
    ts_info_add_replay (root, replay, replay_error);
  if (replay)
    add_clock_and_residual (root, trace, replay);
  g_autofree char *text = ts_json_to_text (root);
  fputs (text, stdout);
  return 0;
}
