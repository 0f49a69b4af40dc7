#include <config.h>

#include "output/info.h"
#include "output/summary.h"

static void
add_ranks (JsonBuilder *b, const TsTrace *trace, const TsCalibration *c,
           const TsThreadScan *threads)
{
  json_builder_set_member_name (b, "per_rank");
  json_builder_begin_array (b);
  for (guint r = 0; r < ts_calibration_n_ranks (c); r++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "events");
      json_builder_add_int_value (b, (gint64) ts_calibration_rank_stats (c, r)->events);
      ts_json_add_double (b, "end_s", ts_calibration_rank_ends (c)[r]);
      ts_json_add_double (b, "clock_offset_s", ts_calibration_clock_offset (c, r));
      /* Its CPU threads (its own location first), the threading events
       * (fork, join, teams) on its own, and the events and MPI events of
       * the others: none of them replayed. */
      json_builder_set_member_name (b, "threads");
      json_builder_add_int_value (b, ts_trace_rank_n_threads (trace, r));
      json_builder_set_member_name (b, "thread_events");
      json_builder_add_int_value (b, (gint64) ts_calibration_rank_stats (c, r)->thread_events);
      json_builder_set_member_name (b, "other_threads_events");
      json_builder_add_int_value (b, (gint64) threads->rank[r].events);
      json_builder_set_member_name (b, "other_threads_mpi_events");
      json_builder_add_int_value (b, (gint64) threads->rank[r].mpi);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_clocks_and_network (JsonBuilder *b, const TsCalibration *c)
{
  const TsClockAlignment *clocks = ts_calibration_clocks (c);
  json_builder_set_member_name (b, "clocks");
  json_builder_add_string_value (b, clocks->aligned ? "aligned"
                                    : clocks->drift ? "drifting" : "causal");
  TsNetworkFit fit = ts_calibration_network (c);
  json_builder_set_member_name (b, "network");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "fitted");
  json_builder_add_boolean_value (b, fit.samples > 0);
  ts_json_add_double (b, "latency_s", fit.samples ? fit.latency : TS_CALIBRATION_DEFAULT_LATENCY);
  /* No slope (one size class): the bandwidth the platform keeps. */
  double bandwidth = ts_network_fit_bandwidth (fit, TS_CALIBRATION_DEFAULT_BANDWIDTH);
  ts_json_add_double (b, "bandwidth_Bps", bandwidth);
  json_builder_set_member_name (b, "bandwidth_measured");
  json_builder_add_boolean_value (b, fit.bandwidth > 0);
  json_builder_set_member_name (b, "size_classes");
  json_builder_add_int_value (b, fit.samples);
  /* The same fit by where the messages went, when the trace tells. */
  static const char *const places[2] = { "within_node", "between_nodes" };
  for (guint k = 0; k < 2; k++)
    {
      TsNetworkFit placed = ts_calibration_network_placed (c, k);
      json_builder_set_member_name (b, places[k]);
      if (!placed.samples)
        {
          json_builder_add_null_value (b);
          continue;
        }
      json_builder_begin_object (b);
      ts_json_add_double (b, "latency_s", placed.latency);
      ts_json_add_double (b, "bandwidth_Bps", ts_network_fit_bandwidth (placed, bandwidth));
      json_builder_set_member_name (b, "bandwidth_measured");
      json_builder_add_boolean_value (b, placed.bandwidth > 0);
      json_builder_set_member_name (b, "size_classes");
      json_builder_add_int_value (b, placed.samples);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "binomial_tree");
  json_builder_add_string_value (b, ts_binomial_tree_name (ts_calibration_binomial_tree (c)));
}

static void
add_messages_and_regions (JsonBuilder *b, const TsTrace *trace, const TsCalibration *c)
{
  static const char *const names[3] = { "recorded", "inferred", "missing" };
  TsMessageInfo m = ts_calibration_message_info (c);
  json_builder_set_member_name (b, "mpi_calls");
  json_builder_begin_object (b);
  for (guint k = 0; k < 3; k++)
    {
      json_builder_set_member_name (b, names[k]);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "calls");
      json_builder_add_int_value (b, (gint64) m.calls[k]);
      ts_json_add_double (b, "seconds", m.seconds[k]);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "matching");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "guessed_receives");
  json_builder_add_int_value (b, ts_calibration_guessed_receives (c));
  json_builder_set_member_name (b, "unreceived_messages");
  json_builder_add_int_value (b, ts_calibration_unreceived_messages (c));
  json_builder_end_object (b);
  json_builder_set_member_name (b, "regions");
  json_builder_begin_array (b);
  for (guint r = 0; r < ts_trace_n_regions (trace); r++)
    {
      if (ts_calibration_region_visits (c, r) == 0)
        continue;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, ts_trace_region_name (trace, r));
      json_builder_set_member_name (b, "mpi");
      json_builder_add_boolean_value (b, ts_trace_region_call (trace, r) != TS_CALL_USER);
      json_builder_set_member_name (b, "visits");
      json_builder_add_int_value (b, (gint64) ts_calibration_region_visits (c, r));
      ts_json_add_double (b, "inclusive_s", ts_calibration_region_seconds (c, r));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The trace's locations: the ranks' threads, of which the ranks' own are
 * replayed, and what no rank holds. */
static void
add_threads (JsonBuilder *b, const TsTrace *trace, const TsThreadScan *threads)
{
  json_builder_set_member_name (b, "threads");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "locations");
  json_builder_add_int_value (b, ts_trace_n_threads (trace));
  json_builder_set_member_name (b, "replayed");
  json_builder_add_int_value (b, ts_trace_n_ranks (trace));
  /* Threads that call MPI outside teams: streams of their own. */
  json_builder_set_member_name (b, "mpi_threads_replayed");
  json_builder_add_int_value (b, threads->mpi_threads->len);
  json_builder_set_member_name (b, "mpi_calls_replayed");
  json_builder_add_int_value (b, (gint64) threads->calls_replayed);
  json_builder_set_member_name (b, "events_not_replayed");
  json_builder_add_int_value (b, (gint64) (threads->events - threads->mpi_replayed));
  json_builder_set_member_name (b, "mpi_events_not_replayed");
  json_builder_add_int_value (b, (gint64) (threads->mpi - threads->mpi_replayed));
  json_builder_set_member_name (b, "mpi_calls_not_replayed");
  json_builder_add_int_value (b, (gint64) (threads->calls - threads->calls_replayed));
  json_builder_set_member_name (b, "unplaced_locations");
  json_builder_add_int_value (b, ts_trace_n_unplaced_locations (trace));
  json_builder_set_member_name (b, "foreign_comms");
  json_builder_add_int_value (b, ts_trace_n_foreign_comms (trace));
  json_builder_end_object (b);
}

JsonNode *
ts_info_to_json (const TsTrace *trace, const TsCalibration *c, const TsThreadScan *threads)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "tracesim_version");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "trace");
  json_builder_add_string_value (b, ts_trace_path (trace));
  json_builder_set_member_name (b, "creator");
  json_builder_add_string_value (b, ts_trace_creator (trace));
  json_builder_set_member_name (b, "mpi_library");
  json_builder_add_string_value (b, ts_trace_mpi_library (trace));
  json_builder_set_member_name (b, "mpi_thread_level");
  json_builder_add_string_value (b, ts_trace_mpi_thread_level (trace));
  json_builder_set_member_name (b, "cpu_time_recorded");
  json_builder_add_boolean_value (b, ts_trace_has_cpu_time (trace));
  json_builder_set_member_name (b, "ranks");
  json_builder_add_int_value (b, ts_calibration_n_ranks (c));
  /* The host of each rank where the trace records it; [] otherwise. */
  json_builder_set_member_name (b, "nodes");
  json_builder_begin_array (b);
  for (guint i = 0; i < ts_trace_n_nodes (trace); i++)
    json_builder_add_string_value (b, ts_trace_node_name (trace, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "rank_nodes");
  json_builder_begin_array (b);
  for (guint r = 0; ts_trace_n_nodes (trace) && r < ts_trace_n_ranks (trace); r++)
    json_builder_add_int_value (b, ts_trace_rank_node (trace, r));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "events");
  json_builder_add_int_value (b, (gint64) ts_calibration_events (c));
  ts_json_add_double (b, "span_s", ts_calibration_runtime (c));
  json_builder_set_member_name (b, "comms");
  json_builder_add_int_value (b, ts_trace_n_comms (trace));
  add_threads (b, trace, threads);
  add_ranks (b, trace, c, threads);
  add_clocks_and_network (b, c);
  add_messages_and_regions (b, trace, c);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

void
ts_info_add_replay (JsonNode *root, const TsRunResult *r, const GError *failure)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  if (!r)
    {
      json_builder_set_member_name (b, "error");
      json_builder_add_string_value (b, failure->message);
    }
  else
    {
      ts_json_add_double (b, "original_runtime_s", r->original_runtime);
      ts_json_add_double (b, "predicted_runtime_s", r->predicted_runtime);
      json_builder_set_member_name (b, "eager_threshold_bytes");
      json_builder_add_int_value (b, (gint64) r->eager_threshold);
      ts_summary_add_matching (b, r);
      TsRankTime t = ts_run_result_time (r);
      json_builder_set_member_name (b, "time");
      json_builder_begin_object (b);
      ts_json_add_double (b, "work_s", t.work);
      ts_json_add_double (b, "simulated_s", t.simulated);
      ts_json_add_double (b, "residual_s", t.residual);
      json_builder_set_member_name (b, "residual_calls");
      json_builder_begin_array (b);
      g_autoptr (GPtrArray) calls = ts_run_result_residual_calls (r, 5);
      for (guint i = 0; i < calls->len; i++)
        {
          const TsRegionResult *x = g_ptr_array_index (calls, i);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, x->name);
          ts_json_add_double (b, "residual_s", x->residual_s);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_object_set_member (json_node_get_object (root), "replay", json_builder_get_root (b));
}
