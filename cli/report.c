#include <config.h>

#include "cli/report.h"
#include "calibrate/eager.h"
#include "model/format.h"
#include "model/node-load.h"

#include <math.h>
#include <string.h>

static void
spread (const double *v, guint n, double *min, double *max)
{
  *min = INFINITY;
  *max = -INFINITY;
  for (guint i = 0; i < n; i++)
    {
      *min = MIN (*min, v[i]);
      *max = MAX (*max, v[i]);
    }
}

typedef struct {
  guint region;
  double seconds;
} RegionTime;

static gint
by_seconds (gconstpointer a, gconstpointer b)
{
  const RegionTime *x = a, *y = b;
  return x->seconds > y->seconds ? -1 : x->seconds < y->seconds;
}

static void
top_regions (FILE *out, const TsTrace *trace, const TsCalibration *p, guint count)
{
  GArray *rt = g_array_new (FALSE, FALSE, sizeof (RegionTime));
  for (guint r = 0; r < ts_trace_n_regions (trace); r++)
    if (ts_calibration_region_visits (p, r) > 0)
      {
        RegionTime x = { r, ts_calibration_region_seconds (p, r) };
        g_array_append_val (rt, x);
      }
  g_array_sort (rt, by_seconds);
  /* Demangled C++ names are long: the column takes the longest shown. */
  int width = (int) strlen ("region (inclusive, all ranks)");
  for (guint i = 0; i < rt->len && i < count; i++)
    width = MAX (width, (int) strlen (ts_trace_region_name (trace, g_array_index (rt, RegionTime,
                                                                                  i).region)));
  fprintf (out, "  %-*s %12s %10s\n", width, "region (inclusive, all ranks)", "visits", "time");
  for (guint i = 0; i < rt->len && i < count; i++)
    {
      RegionTime *x = &g_array_index (rt, RegionTime, i);
      g_autofree char *t = ts_format_seconds (x->seconds);
      fprintf (out, "  %-*s %12" G_GUINT64_FORMAT " %10s\n", width,
               ts_trace_region_name (trace, x->region), ts_calibration_region_visits (p, x->region),
               t);
    }
  g_array_unref (rt);
}

/* Where the time went: the regions that took longest before or after, with
 * the change (a region that got faster, or an MPI call that now waits more). */
static void
before_after (FILE *out, const TsRunResult *res, guint count)
{
  GArray *rt = g_array_new (FALSE, FALSE, sizeof (RegionTime));
  for (guint i = 0; i < res->regions->len; i++)
    {
      const TsRegionResult *x = &g_array_index (res->regions, TsRegionResult, i);
      RegionTime t = { i, MAX (x->original_s, x->predicted_s) };
      g_array_append_val (rt, t);
    }
  g_array_sort (rt, by_seconds);
  fprintf (out, "  %-28s %9s %12s %12s %12s\n", "region (inclusive, all ranks)", "visits",
           "original s", "predicted s", "change s");
  for (guint i = 0; i < rt->len && i < count; i++)
    {
      const TsRegionResult *x
        = &g_array_index (res->regions, TsRegionResult, g_array_index (rt, RegionTime, i).region);
      fprintf (out, "  %-28s %9" G_GUINT64_FORMAT " %12.6f %12.6f %+12.6f\n", x->name, x->visits,
               x->original_s, x->predicted_s, x->predicted_s - x->original_s);
    }
  g_array_unref (rt);
}

/* The patterns that occur (13 would mostly be zeros); waitstates.csv and
 * summary.json have every one. */
static void
wait_state_totals (FILE *out, const TsRunResult *res)
{
  fprintf (out, "  %-24s %12s    predicted\n", "wait states (s, all ranks)", "original");
  guint shown = 0;
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    if (res->wait_original[p] > 0 || res->wait_predicted[p] > 0)
      {
        fprintf (out, "  %-24s %12.6f %12.6f\n", ts_wait_pattern_name (p), res->wait_original[p],
                 res->wait_predicted[p]);
        shown++;
      }
  if (shown == 0)
    fprintf (out, "  %-24s %12s %12s\n", "(none)", "0", "0");
}

void
ts_report_run (FILE *out, const TsRunResult *res)
{
  double omin, omax, pmin, pmax;
  spread (res->original_rank_end, res->n_ranks, &omin, &omax);
  spread (res->predicted_rank_end, res->n_ranks, &pmin, &pmax);
  fprintf (out, "tracesim: %s (%u ranks)\n", res->inputs.trace, res->n_ranks);
  fprintf (out, "  original runtime   %12.6f s   rank ends %.6f .. %.6f s\n", res->original_runtime,
           omin, omax);
  fprintf (out, "  predicted runtime  %12.6f s   rank ends %.6f .. %.6f s\n",
           res->predicted_runtime, pmin, pmax);
  if (res->original_runtime > 0 && res->predicted_runtime > 0)
    fprintf (out, "  speed-up           %12.4f x (prediction / original %.4f)\n",
             ts_run_result_speedup (res), res->predicted_runtime / res->original_runtime);
  TsRankTime t = ts_run_result_time (res);
  fprintf (out, "  predicted time: work %.6f s, simulated %.6f s, residual %.6f s (all ranks; "
           "the residual %s)\n", t.work, t.simulated, t.residual,
           g_str_equal (res->inputs.residual, "pinned") ? "where the trace had it"
           : g_str_equal (res->inputs.residual, "noise") ? "redrawn as noise"
                                                          : "left out");
  if (res->inputs.shared_cores)
    fprintf (out, "  cores shared as traced: more ranks than cores on a node, their CPU time "
             "time-shares the node's cores (waits: %s)%s\n", res->inputs.mpi_wait,
             g_str_equal (res->inputs.residual, "none") ? "; the recording's residual was that "
             "sharing, replayed as such (--residual none)" : "");
  if (res->clocks.aligned)
    fprintf (out, "  clocks aligned: %u synchronising collectives were not causal, "
             "%u collectives after the first estimate\n", res->clocks.sync_violations,
             res->clocks.coll_repairs);
  if (res->clocks.drift)
    fprintf (out, "  clocks drift: no offset per rank makes every collective causal\n");
  if (res->guessed_taken_as_arrived)
    fprintf (out, "  matching: the guessed sources of %u receives deadlocked the replay; those "
             "receives took their messages as they arrived\n", res->guessed_receives);
  if (res->buffered_pairs > 0)
    fprintf (out, "  protocol: rendezvous sends between %u pairs of ranks deadlocked the replay "
             "waiting for their receivers; the program went past them, so sends of up to that "
             "size between those pairs were buffered (%u revised replays)\n",
             res->buffered_pairs, res->revisions);
  before_after (out, res, 10);
  fprintf (out, "  %" G_GUINT64_FORMAT " actions replayed (%" G_GUINT64_FORMAT
           " simcalls) in %.3f s\n", res->actions_replayed, res->simcalls, res->wall_s);
  fprintf (out, "  written:");
  for (guint i = 0; i < res->written->len; i++)
    fprintf (out, "%s %s/%s", i ? "," : "", res->output_dir,
             (const char *) g_ptr_array_index (res->written, i));
  fputc ('\n', out);
  if (res->inputs.eager_inferred && res->eager_threshold > TS_EAGER_DEFAULT_THRESHOLD)
    fprintf (out, "  eager threshold     %" G_GUINT64_FORMAT " bytes: the trace sent %"
             G_GUINT64_FORMAT " bytes without waiting for the receiver\n", res->eager_threshold,
             res->eager_threshold - 1);
  if (res->has_wait_states)
    wait_state_totals (out, res);
}

static void
report_clocks (FILE *out, const TsClockAlignment *clocks)
{
  if (clocks->aligned)
    fprintf (out, "clocks:     aligned (%u synchronising collectives were not causal; "
             "%u collectives still not causal after the first estimate)\n",
             clocks->sync_violations, clocks->coll_repairs);
  else if (clocks->drift)
    fprintf (out, "clocks:     drifting (no offset per rank makes every collective causal)\n");
  else
    fprintf (out, "clocks:     causal as recorded\n");
}

/* A fit's bandwidth, or why there is none and the @fallback the platform
 * keeps instead. */
static void
print_fit (FILE *out, const char *label, TsNetworkFit fit, double fallback)
{
  g_autofree char *latency = ts_format_seconds (fit.latency);
  g_autofree char *rate = ts_format_rate (fit.bandwidth > 0 ? fit.bandwidth : fallback);
  if (fit.bandwidth > 0)
    fprintf (out, "%s latency %s, bandwidth %s (%u size classes)\n", label, latency, rate,
             fit.samples);
  else
    fprintf (out, "%s latency %s, bandwidth not measurable (%u size class%s, no slope: "
             "%s is used)\n", label, latency, fit.samples, fit.samples == 1 ? "" : "es", rate);
}

static void
report_network (FILE *out, const TsTrace *trace, const TsCalibration *p)
{
  TsNetworkFit fit = ts_calibration_network (p);
  if (fit.samples)
    print_fit (out, "network fit:", fit, TS_CALIBRATION_DEFAULT_BANDWIDTH);
  else
    {
      g_autofree char *latency = ts_format_seconds (TS_CALIBRATION_DEFAULT_LATENCY);
      g_autofree char *rate = ts_format_rate (TS_CALIBRATION_DEFAULT_BANDWIDTH);
      fprintf (out, "network: latency %s, bandwidth %s (defaults: no blocking receive to fit)\n",
               latency, rate);
    }
  static const char *const places[2] = { "within a node", "between nodes" };
  for (guint k = 0; k < 2; k++)
    {
      TsNetworkFit placed = ts_calibration_network_placed (p, k);
      if (!placed.samples)
        continue;
      g_autofree char *label = g_strdup_printf ("  %-13s", places[k]);
      print_fit (out, label, placed,
                 ts_network_fit_bandwidth (fit, TS_CALIBRATION_DEFAULT_BANDWIDTH));
    }
  guint mpich = ts_calibration_binomial_contradictions (p, TS_BINOMIAL_MPICH);
  guint ompi = ts_calibration_binomial_contradictions (p, TS_BINOMIAL_OPENMPI);
  guint samples = ts_calibration_binomial_samples (p);
  TsBinomialTree library_tree;
  const char *library = ts_trace_mpi_library (trace);
  if (mpich == ompi && ts_binomial_tree_of_library (library, &library_tree))
    fprintf (out, "binomial trees: %s's, as the trace's MPI library builds them (no call of "
             "%u broadcasts and reductions on 4 ranks or more tells the shapes apart)\n",
             library_tree == TS_BINOMIAL_MPICH ? "MPICH" : "Open MPI", samples);
  else if (mpich == ompi)
    fprintf (out, "binomial trees: MPICH's, assumed (no call of %u broadcasts and reductions on "
             "4 ranks or more tells the shapes apart)\n", samples);
  else
    fprintf (out, "binomial trees: %s's (of %u broadcasts and reductions on 4 ranks or more, "
             "calls contradicting MPICH's shape: %u, Open MPI's: %u)\n",
             ts_calibration_binomial_tree (p) == TS_BINOMIAL_MPICH ? "MPICH" : "Open MPI",
             samples, mpich, ompi);
}

/* "nodes: 2 (vm-a: 4 ranks, vm-b: 4 ranks)", or that the trace does not say. */
static void
report_nodes (FILE *out, const TsTrace *trace)
{
  guint n = ts_trace_n_nodes (trace);
  if (n == 0)
    {
      fprintf (out, "nodes:      not recorded (the trace names no host of class \"node\")\n");
      return;
    }
  g_autofree guint *ranks = g_new0 (guint, n);
  g_autofree guint *threads = g_new0 (guint, n);
  for (guint r = 0; r < ts_trace_n_ranks (trace); r++)
    {
      ranks[ts_trace_rank_node (trace, r)]++;
      threads[ts_trace_rank_node (trace, r)] += ts_trace_rank_n_threads (trace, r);
    }
  fprintf (out, "nodes:      %u (", n);
  for (guint i = 0; i < n && i < 8; i++)
    {
      fprintf (out, "%s%s: %u rank%s", i ? ", " : "", ts_trace_node_name (trace, i), ranks[i],
               ranks[i] == 1 ? "" : "s");
      if (threads[i] > ranks[i])
        fprintf (out, " (%u threads)", threads[i]);
      if (ts_trace_node_cores (trace, i))
        fprintf (out, " on %u core%s", ts_trace_node_cores (trace, i),
                 ts_trace_node_cores (trace, i) == 1 ? "" : "s");
    }
  fprintf (out, "%s)\n", n > 8 ? ", ..." : "");
  if (!ts_trace_time_shared (trace))
    return;
  /* What a time-shared recording means for its replays. */
  if (ts_trace_n_threads (trace) > ts_trace_n_ranks (trace))
    fprintf (out, "            time-shared: more threads than cores on a node; the wall time "
             "of their work\n            holds the sharing, replayed on a core per thread "
             "(doc/threads.md)\n");
  else if (ts_trace_has_cpu_time (trace))
    fprintf (out, "            time-shared: more ranks than cores on a node; `run` replays "
             "their CPU time on the\n            node's cores, time-shared as recorded "
             "(--cpu-time by default; --wall-time: the\n            wall time on a core per "
             "rank; doc/architecture.md, \"Shared cores\")\n");
  else if (ts_run_load_estimate_chosen (trace))
    fprintf (out, "            time-shared: more ranks than cores on a node, and no CPU time; "
             "`run` estimates\n            each burst's CPU time from the node's load (the "
             "ranks in compute over its cores,\n            ranks waiting in MPI calls taken "
             "to leave their core) and replays it on the\n            node's cores "
             "(--cpu-estimate by default; --wall-time: the wall time on a core per\n"
             "            rank; doc/architecture.md, \"Shared cores from wall time alone\")\n");
  else
    fprintf (out, "            time-shared, without CPU time, and %s: the compute's wall time "
             "holds the\n            sharing, replayed on a core per rank (tracesim-record "
             "--cpu-time records it)\n", ts_trace_cores_known (trace) ? "an MPI library that polls (MPICH)"
                                                           : "not every node's cores");
}

static void report_load (FILE *out, const TsTrace *trace);

/* A rank's threads, when it has more than its own location or the latter
 * has threading events. */
static void
report_rank_threads (FILE *out, const TsTrace *trace, const TsCalibration *p,
                     const TsThreadScan *threads, guint r)
{
  guint n = ts_trace_rank_n_threads (trace, r);
  guint64 own = ts_calibration_rank_stats (p, r)->thread_events;
  if (n == 1 && own == 0)
    return;
  fprintf (out, "            %u thread%s: %" G_GUINT64_FORMAT " threading events of its own "
           "(fork, join, teams), %" G_GUINT64_FORMAT " events of %u other%s\n",
           n, n == 1 ? "" : "s", own, threads->rank[r].events, n - 1, n == 2 ? "" : "s");
}

/* The trace's locations beyond the ranks' own, and communicators not MPI's. */
static void
report_threads (FILE *out, const TsTrace *trace, const TsThreadScan *threads)
{
  g_autofree char *note = ts_thread_scan_describe (threads, trace);
  if (note)
    fprintf (out, "threads:    %s\n", note);
  guint unplaced = ts_trace_n_unplaced_locations (trace), foreign = ts_trace_n_foreign_comms (trace);
  if (unplaced)
    fprintf (out, "            %u location%s of no rank (a process without events, outside the "
             "MPI rank list, or not a CPU thread): not read\n", unplaced, unplaced == 1 ? "" : "s");
  if (foreign)
    fprintf (out, "            %u communicator%s not MPI's (thread teams) or without a group: not "
             "replayed\n", foreign, foreign == 1 ? "" : "s");
}

void
ts_report_info (FILE *out, const TsTrace *trace, const TsCalibration *p,
                const TsThreadScan *threads, gboolean replayed)
{
  guint n = ts_calibration_n_ranks (p);
  fprintf (out, "trace:      %s\n", ts_trace_path (trace));
  fprintf (out, "creator:    %s\n", *ts_trace_creator (trace) ? ts_trace_creator (trace) : "(unknown)");
  fprintf (out, "mpi:        %s\n", *ts_trace_mpi_library (trace) ? ts_trace_mpi_library (trace)
                                                                   : "(not recorded)");
  if (*ts_trace_mpi_thread_level (trace))
    {
      g_autofree char *conflict = threads ? ts_thread_scan_level_conflict (threads, trace) : NULL;
      fprintf (out, "mpi level:  %s%s%s\n", ts_trace_mpi_thread_level (trace),
               conflict ? ": but " : "", conflict ? conflict : "");
    }
  fprintf (out, "cpu time:   %s\n", ts_trace_has_cpu_time (trace)
                                      ? "recorded (run --cpu-time takes compute from it)"
                                      : "not recorded (tracesim-record --cpu-time records it)");
  report_load (out, trace);
  fprintf (out, "ranks:      %u\n", n);
  report_nodes (out, trace);
  fprintf (out, "events:     %" G_GUINT64_FORMAT "\n", ts_calibration_events (p));
  g_autofree char *span = ts_format_seconds (ts_calibration_runtime (p));
  fprintf (out, "span:       %s\n", span);
  fprintf (out, "regions:    %u\n", ts_trace_n_regions (trace));
  fprintf (out, "comms:      %u\n", ts_trace_n_comms (trace));
  for (guint r = 0; r < n; r++)
    {
      g_autofree char *end = ts_format_seconds (ts_calibration_rank_ends (p)[r]);
      double offset = ts_calibration_clock_offset (p, r);
      g_autofree char *shift = ts_format_seconds (offset);
      fprintf (out, "  rank %-4u events %10" G_GUINT64_FORMAT "  end %-8s  clock offset %s%s\n",
               r, ts_calibration_rank_stats (p, r)->events, end, offset >= 0 ? "+" : "", shift);
      report_rank_threads (out, trace, p, threads, r);
    }
  report_threads (out, trace, threads);
  report_clocks (out, ts_calibration_clocks (p));
  TsMessageInfo m = ts_calibration_message_info (p);
  guint64 all = m.calls[0] + m.calls[1] + m.calls[2];
  double all_s = m.seconds[0] + m.seconds[1] + m.seconds[2];
  static const char *names[] = { "recorded", "inferred", "missing" };
  fprintf (out, "MPI calls by message information:\n");
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *t = ts_format_seconds (m.seconds[i]);
      fprintf (out, "  %-9s %10" G_GUINT64_FORMAT " calls (%5.1f%%)  %10s (%5.1f%% of MPI time)\n",
               names[i], m.calls[i], all ? 100.0 * m.calls[i] / all : 0, t,
               all_s > 0 ? 100.0 * m.seconds[i] / all_s : 0);
    }
  /* Those are the ranks' own locations' calls; other threads' are not in
   * them: said, never left out without a word. */
  if (threads && threads->calls_replayed > 0)
    fprintf (out, "  on other threads %" G_GUINT64_FORMAT " calls, not in the above: replayed "
             "on the threads' own locations, beside their ranks' (doc/threads.md)\n",
             threads->calls_replayed);
  if (ts_calibration_guessed_receives (p) > 0 || ts_calibration_unreceived_messages (p) > 0)
    fprintf (out, "matching:   %u receives recorded no source and were given a message by "
             "guess; %u messages no receive took (the replay sends them without waiting).%s\n",
             ts_calibration_guessed_receives (p), ts_calibration_unreceived_messages (p),
             replayed ? "" : " Whether a replay had to revise the guesses, `tracesim info` "
             "without --no-replay says.");
  report_network (out, trace, p);
  top_regions (out, trace, p, 20);
}

/* The CPU time estimated from the nodes' load, where @trace's compute
 * takes it (pipeline/first-pass.c): per node, what its compute had of
 * the cores over what it wanted. */
static void
report_load (FILE *out, const TsTrace *trace)
{
  const TsNodeLoad *load = ts_trace_node_load (trace);
  if (!load)
    return;
  fprintf (out, "            estimated from the nodes' load (run --cpu-estimate):");
  guint n = ts_trace_n_nodes (trace);
  for (guint i = 0; i < n && i < 8; i++)
    {
      double cpu = 0, wall = 0;
      ts_node_load_totals (load, i, &cpu, &wall);
      fprintf (out, "%s %s %.2f s of CPU time in %.2f s of compute (%.0f%%)", i ? "," : "",
               ts_trace_node_name (trace, i), cpu, wall, wall > 0 ? 100 * cpu / wall : 100.0);
    }
  fprintf (out, "%s\n", n > 8 ? ", ..." : "");
}

/* What a what-if does with @trace's residual by default (pipeline/run.c's
 * residual_mode, as ts_run_default_residual says for a replay that shares
 * the cores as @r's did), and why. */
static const char *
changed_residual (const TsTrace *trace, const TsRunResult *r)
{
  if (ts_run_default_residual (trace, r->inputs.shared_cores, TRUE) == TS_RESIDUAL_NONE)
    return "a what-if leaves it out too: the recording time-shared its cores, the residual\n"
           "            was that sharing, and the replay simulates it (--wall-time: pinned)";
  if (ts_run_polled (&r->inputs))
    return "a what-if keeps it where the trace had it: the recording time-shared its cores,\n"
           "            its MPI calls polled, and the residual is the waiting for time slices, "
           "which the\n            replay does not model (see compute: above)";
  if (ts_trace_cores_own (trace))
    return "a what-if scales it with each rank's work (--residual scaled): the trace says\n"
           "            its ranks had cores of their own, so it is noise and descheduling, "
           "which follow\n            what a rank does";
  if (ts_trace_n_threads (trace) > ts_trace_n_ranks (trace))
    return "a what-if scales it with each rank's work (--residual scaled): the trace has\n"
           "            threads, and what their teams' barriers waited beyond the slowest "
           "thread is the\n            sharing of cores and late wake-ups, which follow "
           "the threads' work";
  if (ts_trace_time_shared (trace))
    return "a what-if keeps it where the trace had it: the recording time-shared its cores,\n"
           "            and the residual is that sharing (run simulates it, by default, where "
           "the trace\n            has CPU time or says each node's cores; tracesim-record "
           "--cpu-time records it)";
  return "a what-if keeps it where the trace had it: the trace does not say whether its\n"
         "            ranks had cores of their own, and a residual that is the sharing of "
         "cores, moved\n            elsewhere, meets the other ranks' at every collective "
         "(--residual scaled if they\n            had)";
}

/* The identity replay's time by kind, and why a what-if moves only part of
 * it (doc/architecture.md, "Three kinds of time"). */
static void
report_time_kinds (FILE *out, const TsTrace *trace, const TsRunResult *r)
{
  TsRankTime t = ts_run_result_time (r);
  double all = t.work + t.simulated + t.residual;
  if (!(all > 0))
    return;
  fprintf (out, "time:       all ranks: work %.6f s (%.1f%%), simulated %.6f s (%.1f%%), "
           "residual %.6f s (%.1f%%)\n", t.work, 100 * t.work / all, t.simulated,
           100 * t.simulated / all, t.residual, 100 * t.residual / all);
  fprintf (out, "            work (compute, each call's own cost) moves with [region] and "
           "[hosts] rules; simulated\n"
           "            (waiting, transfers, shared cores) is recomputed, and moves with any "
           "change;\n"
           "            the residual (time calls spent beyond both: a descheduled rank, "
           "noise) is %s;\n            %s;\n            --residual none predicts the run "
           "without it, noise redraws it\n",
           g_str_equal (r->inputs.residual, "none")
             ? "not\n            replayed (--residual none: the shared cores are simulated)"
             : "replayed\n            where the trace had it (--residual pinned), which keeps "
               "this replay exact",
           changed_residual (trace, r));
  g_autoptr (GPtrArray) calls = ts_run_result_residual_calls (r, 3);
  if (calls->len == 0)
    return;
  fprintf (out, "            residual by call:");
  for (guint i = 0; i < calls->len; i++)
    {
      const TsRegionResult *x = g_ptr_array_index (calls, i);
      fprintf (out, "%s %s %.6f s", i ? "," : "", x->name, x->residual_s);
    }
  fputc ('\n', out);
}

void
ts_report_info_replay (FILE *out, const TsTrace *trace, const TsRunResult *r,
                       const GError *failure)
{
  if (!r)
    {
      fprintf (out, "replay:     the identity replay fails: %s\n", failure->message);
      return;
    }
  g_autofree char *predicted = ts_format_seconds (r->predicted_runtime);
  g_autofree char *traced = ts_format_seconds (r->original_runtime);
  if (ts_run_polled (&r->inputs))
    fprintf (out, "compute:    wall time, not the CPU time: the MPI calls polled (they took %.0f%% of "
             "their fair share\n            of the cores), so the recording's sharing was in the "
             "scheduler's time slices,\n            which the replay does not model "
             "(doc/architecture.md, \"Polling on shared cores\";\n            --cpu-time "
             "forces the CPU time)\n", 100 * r->inputs.calls_fair_share);
  fprintf (out, "replay:     identity, on the cluster calibrated from the trace%s: %s predicted, "
           "%s traced (%+.1f%%)\n",
           r->inputs.cpu_estimated ? " (compute from CPU time estimated from the nodes' load, cores shared as recorded)"
           : r->inputs.cpu_time ? " (compute from CPU time, cores shared as recorded)" : "",
           predicted, traced, r->original_runtime > 0
             ? 100 * (r->predicted_runtime - r->original_runtime) / r->original_runtime : 0.0);
  report_time_kinds (out, trace, r);
  fprintf (out, "progress:   MPI progress %s: %s\n", r->inputs.mpi_progress,
           g_str_equal (r->inputs.mpi_progress, "async")
             ? "a rendezvous message moves once both sides posted (a progress thread)"
             : "a rendezvous message moves once both sides posted and its receiver is\n"
               "            inside an MPI call (Open MPI and MPICH by default); "
               "--mpi-progress async for a\n            library with a progress thread");
  fprintf (out, "choices:    %u matches guessed; eager threshold %" G_GUINT64_FORMAT
           " bytes (%s)\n", r->guessed_receives, r->eager_threshold,
           r->inputs.eager_inferred ? "inferred from the trace" : "given");
  if (r->revisions == 0)
    {
      fprintf (out, "revised:    none (the first replay completed)\n");
      return;
    }
  fprintf (out, "revised:    %u replay%s made again after deadlocks:", r->revisions,
           r->revisions == 1 ? "" : "s");
  if (r->guessed_taken_as_arrived && r->status_taken_as_arrived)
    fprintf (out, " the %u guessed receives and the %u whose envelope MPI_Waitany & co. gave "
             "took their messages as they arrived%s", r->guessed_receives, r->status_receives,
             r->buffered_pairs > 0 ? ";" : "");
  else if (r->status_taken_as_arrived)
    fprintf (out, " the %u receives whose envelope MPI_Waitany & co. gave took their messages "
             "as they arrived%s", r->status_receives, r->buffered_pairs > 0 ? ";" : "");
  else if (r->guessed_taken_as_arrived)
    fprintf (out, " the %u guessed receives took their messages as they arrived%s",
             r->guessed_receives, r->buffered_pairs > 0 ? ";" : "");
  if (r->buffered_pairs > 0)
    fprintf (out, " rendezvous sends between %u pair%s of ranks were buffered", r->buffered_pairs,
             r->buffered_pairs == 1 ? "" : "s");
  fputc ('\n', out);
}

void
ts_report_wait_states (FILE *out, const TsTrace *trace, const TsWaitStates *original)
{
  guint n = ts_trace_n_ranks (trace);
  gboolean occurs[TS_WAIT_N_PATTERNS];
  guint shown = 0;
  fprintf (out, "  %-24s %12s\n", "wait states (s, all ranks)", "original");
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    {
      occurs[p] = ts_wait_states_total (original, p) > 0;
      shown += occurs[p];
      if (occurs[p])
        fprintf (out, "  %-24s %12.6f\n", ts_wait_pattern_name (p),
                 ts_wait_states_total (original, p));
    }
  if (shown == 0)
    fprintf (out, "  %-24s %12s\n", "(none)", "0");
  if (n > 16 || shown == 0)
    return;
  fprintf (out, "  %-24s", "per rank (original)");
  for (guint r = 0; r < n; r++)
    fprintf (out, "     rank %2u", r);
  fputc ('\n', out);
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    {
      if (!occurs[p])
        continue;
      fprintf (out, "  %-24s", ts_wait_pattern_name (p));
      for (guint r = 0; r < n; r++)
        fprintf (out, " %11.6f", ts_wait_states_rank (original, p, r));
      fputc ('\n', out);
    }
}
