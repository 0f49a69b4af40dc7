#include <config.h>

#define G_LOG_DOMAIN "ts-run"

#include "cli/commands.h"
#include "cli/report.h"
#include "calibrate/eager.h"
#include "output/output_dir.h"
#include "calibrate/calibration.h"
#include "sim/platform.h"
#include "sim/replay.h"
#include "hypotheses/hypotheses.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef struct {
  char *platform;
  char *output;
  char *hostfile;
  gint64 eager;
  char **cfg;
  gboolean quiet;
  double trace_speed;
  gboolean exact_cpu;
  char **hypotheses;
  gboolean wait_regions;
  gboolean no_wait_states;
  char *binomial_tree;
} RunOptions;

/* --eager-threshold not given: take it from the trace (calibrate/eager.h). */
#define EAGER_INFER G_MININT64

static const char *const output_entries[] = {
  "summary.json", "predicted", "platform.xml", "waitstates.csv", NULL
};

static gboolean
write_summary (const char *path, const TsTrace *trace, const TsProfile *p,
               const TsReplayResult *res, const TsWaitStates *ws_original,
               const TsWaitStates *ws_predicted, const TsReplayOptions *ro, double wall,
               GError **error)
{
  GString *j = g_string_new ("{\n");
  g_string_append_printf (j, "  \"trace\": \"%s\",\n", ts_trace_path (trace));
  g_string_append_printf (j, "  \"ranks\": %u,\n", p->n_ranks);
  g_string_append (j, "  \"original\": {\n");
  ts_json_number (j, "    ", "runtime_s", p->runtime, TRUE);
  ts_json_array (j, "    ", "rank_end_s", p->rank_end, p->n_ranks, TRUE);
  ts_json_array (j, "    ", "clock_offset_s", p->clock_offset, p->n_ranks, FALSE);
  g_string_append (j, "  },\n  \"predicted\": {\n");
  ts_json_number (j, "    ", "runtime_s", res->runtime, TRUE);
  ts_json_array (j, "    ", "rank_end_s", (double *) res->rank_end->data, res->n_ranks, FALSE);
  g_string_append (j, "  },\n");
  ts_json_number (j, "  ", "speedup", res->runtime > 0 ? p->runtime / res->runtime : 0, TRUE);
  g_string_append_printf (j, "  \"eager_threshold_bytes\": %" G_GUINT64_FORMAT ",\n",
                          ro->eager_threshold);
  g_string_append_printf (j, "  \"binomial_tree\": \"%s\",\n",
                          ts_binomial_tree_name (ro->binomial_tree));
  /* Per region, inclusive seconds over all ranks, before and after. */
  g_string_append (j, "  \"regions\": [\n");
  gboolean first = TRUE;
  for (guint r = 0; r < res->n_regions; r++)
    {
      if (p->region_visits[r] == 0)
        continue;
      g_autofree char *name = g_strescape (ts_trace_region_name (trace, r), NULL);
      g_string_append_printf (j, "%s    {\"name\": \"%s\", \"visits\": %" G_GUINT64_FORMAT
                              ", \"original_s\": %.9g, \"predicted_s\": %.9g}",
                              first ? "" : ",\n", name, p->region_visits[r],
                              p->region_seconds[r], res->region_seconds[r]);
      first = FALSE;
    }
  g_string_append (j, "\n  ],\n");
  /* Seconds per pattern, summed over ranks. */
  if (ws_original)
    {
      g_string_append (j, "  \"wait_states\": {\n");
      const TsWaitStates *phases[2] = { ws_original, ws_predicted };
      for (guint ph = 0; ph < 2; ph++)
        {
          g_string_append_printf (j, "    \"%s\": {", ph ? "predicted" : "original");
          for (guint pat = 0; pat < TS_WAIT_N_PATTERNS; pat++)
            g_string_append_printf (j, "%s\"%s\": %.9g", pat ? ", " : "",
                                    ts_wait_pattern_name (pat),
                                    ts_wait_states_total (phases[ph], pat));
          g_string_append_printf (j, "}%s\n", ph ? "" : ",");
        }
      g_string_append (j, "  },\n");
    }
  /* How much of the MPI communication the trace recorded, and how much was
   * inferred or is missing (replayed as the time it took). */
  guint64 calls[3] = { 0 };
  double seconds[3] = { 0 };
  for (guint r = 0; r < p->n_ranks; r++)
    for (guint k = 0; k < 3; k++)
      {
        calls[k] += p->rank_stats[r].calls[k];
        seconds[k] += p->rank_stats[r].call_seconds[k];
      }
  double all_seconds = seconds[0] + seconds[1] + seconds[2];
  static const char *const names[3] = { "recorded", "inferred", "missing" };
  g_string_append (j, "  \"mpi_calls\": {");
  for (guint k = 0; k < 3; k++)
    g_string_append_printf (j, "%s\"%s\": %" G_GUINT64_FORMAT, k ? ", " : "", names[k], calls[k]);
  g_string_append (j, "},\n  \"mpi_time_share\": {");
  for (guint k = 0; k < 3; k++)
    g_string_append_printf (j, "%s\"%s\": %.6f", k ? ", " : "", names[k],
                            all_seconds > 0 ? seconds[k] / all_seconds : 0.0);
  g_string_append (j, "},\n");
  g_string_append_printf (j, "  \"actions_replayed\": %" G_GUINT64_FORMAT ",\n",
                          res->actions_replayed);
  g_string_append_printf (j, "  \"simcalls\": %" G_GUINT64_FORMAT ",\n", res->simcalls);
  ts_json_number (j, "  ", "wall_s", wall, TRUE);
  /* Peak memory of the whole process so far (Linux reports KiB). */
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  g_string_append_printf (j, "  \"max_rss_kib\": %ld\n", ru.ru_maxrss);
  g_string_append (j, "}\n");
  gboolean ok = g_file_set_contents (path, j->str, j->len, error);
  g_string_free (j, TRUE);
  return ok;
}

/* The predicted timeline's wait states: a copy of the archive is analysed
 * like any trace before the real one is written, so that the real one can
 * carry them as OTF2 metrics (one per pattern and rank, cumulative seconds). */
typedef struct {
  TsArchiveWriter *writer;
  guint n_ranks;
  guint32 metric[TS_WAIT_N_PATTERNS];
  gboolean regions;          /* --wait-regions */
  guint32 region[TS_WAIT_N_PATTERNS];
  double *cumulative;        /* [pattern * n_ranks + rank] */
  TsTrace *trace;            /* the copy, kept for region names */
  TsProfile *profile;
  TsWaitStates *wait_states;
} PredictedWaits;

static void
span_to_metric (TsWaitPattern p, guint rank, guint region, double start, double seconds,
                gpointer data)
{
  PredictedWaits *pw = data;
  double *c = &pw->cumulative[p * pw->n_ranks + rank];
  *c += seconds;
  if (pw->regions)
    ts_archive_writer_late_region (pw->writer, rank, start, start + seconds, pw->region[p]);
  ts_archive_writer_late_metric (pw->writer, rank, start + seconds, pw->metric[p], *c);
}

static gboolean
analyse_predicted (TsArchiveWriter *w, gpointer data, GError **error)
{
  PredictedWaits *pw = data;
  pw->writer = w;
  g_autofree char *scratch = g_dir_make_tmp ("tracesim-XXXXXX", error);
  if (!scratch)
    return FALSE;
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    {
      pw->metric[p] = ts_archive_writer_define_metric (w, ts_wait_pattern_name (p), "s");
      if (pw->regions)
        pw->region[p] = ts_archive_writer_define_region (w, ts_wait_pattern_name (p),
                                                         TS_REGION_USER);
    }
  g_autofree char *anchor = g_build_filename (scratch, "traces.otf2", NULL);
  gboolean ok = ts_archive_writer_write_copy (w, scratch, error)
                && (pw->trace = ts_trace_open (anchor, error))
                && (pw->profile = ts_profile_compute (pw->trace, error))
                && (pw->wait_states = ts_wait_states_analyse_spans (pw->trace, pw->profile,
                                                                   span_to_metric, pw, error));
  ts_output_dir_remove_tree (scratch);
  return ok;
}

int
ts_cmd_run (int argc, char **argv)
{
  RunOptions o = { .eager = EAGER_INFER, .trace_speed = 1e9 };
  GOptionEntry entries[] = {
    { "platform", 'p', 0, G_OPTION_ARG_FILENAME, &o.platform,
      "SimGrid platform XML (default: a cluster calibrated from the trace)", "FILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "output directory (required)", "DIR" },
    { "hostfile", 0, 0, G_OPTION_ARG_FILENAME, &o.hostfile,
      "host of each rank, one name per line (default: block mapping)", "FILE" },
    { "eager-threshold", 0, 0, G_OPTION_ARG_INT64, &o.eager,
      "messages smaller than this do not wait for the receiver (default: inferred from the trace, 65536 without evidence)",
      "BYTES" },
    { "binomial-tree", 0, 0, G_OPTION_ARG_STRING, &o.binomial_tree,
      "shape of the binomial trees of broadcasts and reductions: mpich or openmpi (default: "
      "the one the trace shows, see tracesim info)", "NAME" },
    { "cfg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.cfg,
      "SimGrid configuration item, e.g. network/model:LV08 (repeatable)", "ITEM:VALUE" },
    { "hypothesis", 'H', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.hypotheses,
      "what-if hypothesis file (repeatable: applied in order; see doc/hypotheses.md)", "FILE" },
    { "trace-speed", 0, 0, G_OPTION_ARG_DOUBLE, &o.trace_speed,
      "flop rate of a core of the traced machine (default 1e9): faster hosts compute faster",
      "FLOPS" },
    { "exact-cpu", 0, 0, G_OPTION_ARG_NONE, &o.exact_cpu,
      "model every compute burst as a SimGrid execution, even on unshared cores (needed "
      "with host speed profiles)", NULL },
    { "wait-regions", 0, 0, G_OPTION_ARG_NONE, &o.wait_regions,
      "nest a region named after each wait-state pattern inside the MPI call for its waiting "
      "span, in the predicted timeline", NULL },
    { "no-wait-states", 0, 0, G_OPTION_ARG_NONE, &o.no_wait_states,
      "skip the wait-state analysis of both executions (replay only: no waitstates.csv, no "
      "metrics)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "print no summary or progress", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("TRACE - predict a run from its trace");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_help_enabled (ctx, TRUE);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_fail ("run", error);
  if (argc != 2)
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   argc < 2 ? "no trace given (tracesim run TRACE -o DIR)"
                            : "more than one trace given");
      return ts_cmd_fail ("run", error);
    }
  if (!o.output)
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "no output directory given (-o DIR)");
      return ts_cmd_fail ("run", error);
    }
  if (!(o.trace_speed > 0))
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--trace-speed must be positive");
      return ts_cmd_fail ("run", error);
    }
  for (guint i = 0; o.cfg && o.cfg[i]; i++)
    {
      /* SimGrid aborts with a backtrace on a malformed item: check first. */
      const char *colon = strchr (o.cfg[i], ':');
      if (!colon || colon == o.cfg[i] || colon[1] == '\0')
        {
          g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--cfg '%s': expected ITEM:VALUE, e.g. network/model:LV08", o.cfg[i]);
          return ts_cmd_fail ("run", error);
        }
    }
  TsBinomialTree tree = TS_BINOMIAL_MPICH;
  if (o.binomial_tree && !ts_binomial_tree_parse (o.binomial_tree, &tree))
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--binomial-tree '%s': expected mpich or openmpi", o.binomial_tree);
      return ts_cmd_fail ("run", error);
    }
  if (o.eager < 0 && o.eager != EAGER_INFER)
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--eager-threshold must not be negative");
      return ts_cmd_fail ("run", error);
    }

  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (TsTrace) trace = ts_trace_open (argv[1], &error);
  if (!trace)
    return ts_cmd_fail ("run", error);
  g_debug ("definitions: %.3f s wall", (g_get_monotonic_time () - t0) / 1e6);
  g_autoptr (TsProfile) profile = ts_profile_compute (trace, &error);
  if (!profile)
    return ts_cmd_fail ("run", error);
  g_debug ("first pass (profile): %.3f s wall", (g_get_monotonic_time () - t0) / 1e6);

  g_autoptr (TsHypotheses) hyp = NULL;
  if (o.hypotheses)
    {
      hyp = ts_hypotheses_new ();
      for (guint i = 0; o.hypotheses[i]; i++)
        if (!ts_hypotheses_load_file (hyp, o.hypotheses[i], &error))
          return ts_cmd_fail ("run", error);
      if (!ts_hypotheses_bind (hyp, trace, &error)
          || !ts_hypotheses_prepare (hyp, trace, profile, &error))
        return ts_cmd_fail ("run", error);
    }

  TsReplayOptions ro;
  ts_replay_options_init (&ro);
  ro.hypotheses = hyp;
  g_autoptr (GPtrArray) cfg = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; o.cfg && o.cfg[i]; i++)
    g_ptr_array_add (cfg, g_strdup_printf ("--cfg=%s", o.cfg[i]));
  g_ptr_array_add (cfg, NULL);
  ro.simgrid_cfg = (const char *const *) cfg->pdata;
  if (!ts_replay_check_config (&ro, &error))
    return ts_cmd_fail ("run", error);

  TsOutputDir *out = ts_output_dir_new (o.output, output_entries, &error);
  if (!out)
    return ts_cmd_fail ("run", error);
  const char *tmp = ts_output_dir_get_tmp_path (out);
  g_autofree char *platform = NULL;
  if (o.platform)
    platform = g_strdup (o.platform);
  else
    {
      platform = g_build_filename (tmp, "platform.xml", NULL);
      TsClusterSpec spec = ts_platform_spec_from_profile (profile);
      if (!ts_platform_write_cluster (&spec, platform, &error))
        {
          ts_output_dir_discard (out);
          return ts_cmd_fail ("run", error);
        }
    }

  ro.platform_path = platform;
  ro.hostfile = o.hostfile;
  if (o.eager == EAGER_INFER)
    {
      ro.eager_threshold = ts_eager_threshold_infer (trace, profile, 65536, &error);
      if (ro.eager_threshold == 0)
        {
          ts_output_dir_discard (out);
          return ts_cmd_fail ("run", error);
        }
    }
  else
    ro.eager_threshold = (guint64) o.eager;
  ro.trace_speed = o.trace_speed;
  ro.exact_cpu = o.exact_cpu;
  ro.binomial_tree = o.binomial_tree ? tree : profile->binomial_tree;
  g_autofree char *predicted = g_build_filename (tmp, "predicted", NULL);
  ro.predicted_dir = predicted;
  ro.progress = !o.quiet && isatty (STDERR_FILENO);

  PredictedWaits pw = { .n_ranks = profile->n_ranks, .regions = o.wait_regions };
  pw.cumulative = g_new0 (double, TS_WAIT_N_PATTERNS * pw.n_ranks);
  if (!o.no_wait_states)
    {
      ro.before_close = analyse_predicted;
      ro.before_close_data = &pw;
    }

  TsReplayResult res;
  if (!ts_replay_run (trace, profile, &ro, &res, &error))
    {
      g_free (pw.cumulative);
      ts_wait_states_free (pw.wait_states);
      ts_profile_free (pw.profile);
      ts_trace_free (pw.trace);
      ts_output_dir_discard (out);
      return ts_cmd_fail ("run", error);
    }
  /* Wait states of both executions by the same analysis: the predicted ones
   * were found in a copy of the predicted archive before it was written. */
  g_autoptr (TsWaitStates) ws_original
    = o.no_wait_states ? NULL : ts_wait_states_analyse (trace, profile, &error);
  g_autoptr (TsTrace) predicted_trace = pw.trace;
  g_autoptr (TsProfile) predicted_profile = pw.profile;
  g_autoptr (TsWaitStates) ws_predicted = pw.wait_states;
  g_free (pw.cumulative);
  if (!o.no_wait_states && !ws_original)
    {
      ts_replay_result_clear (&res);
      ts_output_dir_discard (out);
      return ts_cmd_fail ("run", error);
    }
  g_autoptr (GString) csv = g_string_new ("phase,pattern,region,rank,seconds\n");
  if (ws_original)
    {
      ts_wait_states_csv (csv, "original", trace, ws_original);
      ts_wait_states_csv (csv, "predicted", predicted_trace, ws_predicted);
    }
  g_autofree char *csv_path = g_build_filename (tmp, "waitstates.csv", NULL);

  double wall = (g_get_monotonic_time () - t0) / 1e6;
  g_autofree char *summary = g_build_filename (tmp, "summary.json", NULL);
  if ((ws_original && !g_file_set_contents (csv_path, csv->str, csv->len, &error))
      || !write_summary (summary, trace, profile, &res, ws_original, ws_predicted,
                         &ro, wall, &error)
      || !ts_output_dir_commit (out, &error))
    {
      ts_replay_result_clear (&res);
      return ts_cmd_fail ("run", error);
    }
  if (!o.quiet)
    {
      ts_report_run (stdout, trace, profile, &res, o.output, wall);
      if (o.eager == EAGER_INFER && ro.eager_threshold > 65536)
        printf ("  eager threshold     %" G_GUINT64_FORMAT " bytes: the trace sent %" G_GUINT64_FORMAT
                " bytes without waiting for the receiver\n", ro.eager_threshold, ro.eager_threshold - 1);
      if (ws_original)
        ts_report_wait_states (stdout, trace, ws_original, ws_predicted);
    }
  ts_replay_result_clear (&res);
  g_free (o.platform);
  g_free (o.output);
  g_free (o.binomial_tree);
  g_free (o.hostfile);
  g_strfreev (o.cfg);
  g_strfreev (o.hypotheses);
  return 0;
}
