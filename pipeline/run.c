#include <config.h>

#define G_LOG_DOMAIN "ts-run"

#include "pipeline/run.h"
#include "output/html-report.h"
#include "pipeline/run-private.h"
#include "pipeline/run-waits.h"
#include "analysis/waitstates.h"
#include "calibrate/calibration.h"
#include "calibrate/eager.h"
#include "hypotheses/hypotheses.h"
#include "output/csv.h"
#include "model/output_dir.h"
#include "model/threads.h"
#include "output/summary.h"
#include "sim/platform.h"
#include "sim/replay.h"

#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>

/* What an output directory of `run` may hold and still be replaced. */
void
ts_run_options_init (TsRunOptions *o)
{
  memset (o, 0, sizeof *o);
  o->trace_speed = 1e9;
  o->wait_states = TRUE;
}

/* Everything one run holds; run_clear() is its one cleanup path, whatever
 * phase failed: the output directory is discarded unless committed. */
typedef struct {
  const TsRunOptions *o;
  gint64 t0;
  TsTrace *trace;                /* borrowed from o->shared when it is set */
  TsCalibration *calibration;    /* the same */
  gboolean cpu_time;             /* compute from the CPU time (o->cpu_time resolved) */
  gboolean cpu_estimated;        /* that CPU time estimated from the nodes' load */
  double calls_fair_share;       /* TsRunShared's: NAN where the CPU time does not give it */
  TsHypotheses *hypotheses;
  TsOutputDir *out;
  char *platform;
  char *hostfile;             /* the traced placement, in the output; or NULL */
  GPtrArray *cfg;            /* "--cfg=ITEM:VALUE" */
  TsReplayOptions replay;
  TsReplayResult replayed;
  gboolean replayed_set;
  TsRunWaits *waits;            /* both executions' wait states, beside the replay */
  const TsWaitStates *original_waits; /* from o->shared when it has them, or waits */
  const TsWaitStates *predicted_waits;
  const TsTrace *predicted_trace;     /* whose regions they name */
  TsRunResult *result;
} Run;

static void
run_clear (Run *run)
{
  /* Its threads read the trace and the first pass freed below. */
  g_clear_pointer (&run->waits, ts_run_waits_free);
  ts_output_dir_discard (run->out);
  if (run->replayed_set)
    ts_replay_result_clear (&run->replayed);
  const TsRunShared *shared = run->o->shared;
  g_clear_pointer (&run->hypotheses, ts_hypotheses_free);
  if (!shared)
    {
      g_clear_pointer (&run->calibration, ts_calibration_free);
      g_clear_pointer (&run->trace, ts_trace_free);
    }
  g_clear_pointer (&run->cfg, g_ptr_array_unref);
  g_clear_pointer (&run->result, ts_run_result_free);
  g_free (run->platform);
  g_free (run->hostfile);
}

static void
phase_done (const Run *run, const char *phase)
{
  g_debug ("%s: done at %.3f s wall", phase, (g_get_monotonic_time () - run->t0) / 1e6);
}

static gboolean
check_options (const TsRunOptions *o, GError **error)
{
  if (!o->trace || !*o->trace || !o->output_dir || !*o->output_dir)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   !o->trace || !*o->trace ? "no trace given"
                                          : "no output directory given (-o DIR)");
      return FALSE;
    }
  if (!(o->trace_speed > 0 && isfinite (o->trace_speed)))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--trace-speed must be a positive, finite number of flop/s");
      return FALSE;
    }
  for (guint i = 0; o->simgrid_cfg && o->simgrid_cfg[i]; i++)
    {
      /* SimGrid aborts with a backtrace on a malformed item: check first. */
      if (!ts_replay_check_cfg_item (o->simgrid_cfg[i], error))
        return FALSE;
    }
  return TRUE;
}


/* Whether the replay time-shares cores as the recording did: compute in
 * CPU time (--cpu-time), on the calibrated cluster placed as traced, from a
 * trace that says its nodes' cores and shows more ranks than cores on one. */
static gboolean
shares_cores (const Run *run)
{
  const TsRunOptions *o = run->o;
  return run->cpu_time && !o->platform && !o->hostfile && !o->ranks_per_node
         && !o->placement_given && ts_trace_time_shared (run->trace);
}

/* Whether the run changes what the trace ran or where: hypotheses, or a
 * platform or placement of the user's. */
static gboolean
changed (const Run *run)
{
  const TsRunOptions *o = run->o;
  return (o->hypotheses && o->hypotheses[0]) || o->platform || o->hostfile || o->ranks_per_node
         || o->placement_given;
}

/* What the residual does (doc/architecture.md, "Three kinds of time"):
 * --residual if given, else the hypotheses' [residual] mode, else
 * - none where the replay shares cores: a time-shared recording's residual
 *   was the sharing, which the replay simulates;
 * - pinned in an identity replay, which it keeps exact;
 * - scaled in a changed run of a trace whose ranks had cores of their own:
 *   there it is noise and descheduling, which follow the work; and of a
 *   trace with threads, whose residual at their teams' barriers is the
 *   sharing of their cores and late wake-ups, which follow the threads'
 *   work (bench/hybrid-whatif.sh, 2 ranks of 2 threads on 2 cores, the
 *   kernel 2x cheaper: scaled -2.8%, pinned +26%, none -47%);
 * - pinned in a changed run of a trace that does not say, or shares cores
 *   without the CPU time to simulate them: its residual may be the
 *   sharing, and moved onto other calls it meets other ranks' sharing at
 *   every collective (lammps_melt_np4: scaled 2.34 s, noise 2.56 s, none
 *   0.51 s for a 1.61 s run). */
static TsResidual
residual_mode (const Run *run)
{
  TsResidual mode = run->o->residual;
  const char *said = run->hypotheses ? ts_hypotheses_residual (run->hypotheses) : NULL;
  if (run->o->residual_given)
    return mode;
  if (said && !ts_residual_parse (said, &mode))
    g_assert_not_reached (); /* the hypotheses accept the replay's names only */
  if (said)
    return mode;
  return ts_run_default_residual (run->trace, shares_cores (run), changed (run));
}

TsResidual
ts_run_default_residual (const TsTrace *trace, gboolean shares_cores, gboolean changed)
{
  if (shares_cores)
    return TS_RESIDUAL_NONE;
  return changed && (ts_trace_cores_own (trace) || ts_trace_n_threads (trace) > ts_trace_n_ranks (trace))
           ? TS_RESIDUAL_SCALED
           : TS_RESIDUAL_PINNED;
}

/* How a rank waits on a core it shares: --mpi-wait, except that recorded
 * is blocking where the CPU time is estimated from the load: that
 * estimate took waiting ranks to leave their core, and the trace records
 * no CPU time of its calls to tell otherwise. */
static TsMpiWait
mpi_wait (const Run *run)
{
  return run->cpu_estimated && run->o->mpi_wait == TS_MPI_WAIT_RECORDED ? TS_MPI_WAIT_BLOCKING
                                                                         : run->o->mpi_wait;
}

/* How rendezvous messages move: --mpi-progress if given, else the
 * hypotheses' [mpi] progress, else in calls. */
static TsMpiProgress
mpi_progress (const Run *run)
{
  TsMpiProgress mode = run->o->mpi_progress;
  const char *said = run->hypotheses ? ts_hypotheses_mpi_progress (run->hypotheses) : NULL;
  if (!run->o->mpi_progress_given && said && !ts_mpi_progress_parse (said, &mode))
    g_assert_not_reached (); /* the hypotheses accept the replay's names only */
  return mode;
}

/* The SimGrid configuration, checked in a child before anything is written
 * when the user gave items (tracesim's own are known good). */
static gboolean
configure_replay (Run *run, GError **error)
{
  const TsRunOptions *o = run->o;
  ts_replay_options_init (&run->replay);
  run->replay.hypotheses = run->hypotheses;
  run->cfg = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; o->simgrid_cfg && o->simgrid_cfg[i]; i++)
    g_ptr_array_add (run->cfg, g_strdup_printf ("--cfg=%s", o->simgrid_cfg[i]));
  g_ptr_array_add (run->cfg, NULL);
  run->replay.simgrid_cfg = (const char *const *) run->cfg->pdata;
  run->replay.hostfile = o->hostfile;
  run->replay.ranks_per_node = o->ranks_per_node;
  run->replay.placement = o->placement;
  run->replay.trace_speed = o->trace_speed;
  run->replay.exact_cpu = o->exact_cpu;
  run->replay.progress = o->progress;
  run->replay.residual = residual_mode (run);
  run->replay.mpi_progress = mpi_progress (run);
  run->replay.mpi_wait = mpi_wait (run);
  run->replay.omp_active = o->omp_active;
  run->replay.omp_fork_cost = o->omp_fork_cost;
  run->replay.omp_barrier_cost = o->omp_barrier_cost;
  run->replay.seed = o->seed;
  run->replay.binomial_tree = o->binomial_tree_given
                                ? o->binomial_tree
                                : ts_calibration_binomial_tree (run->calibration);
  return ts_replay_check_config (&run->replay, error);
}

/* Where the trace shows ranks sharing nodes and the user placed none: the
 * calibrated cluster gets a host per traced node, with as many cores as
 * the most ranks one held, and the output a hostfile placing each rank on
 * its node's host, which the replay follows. */
static gboolean
place_as_traced (Run *run, TsClusterSpec *spec, GError **error)
{
  const TsRunOptions *o = run->o;
  if (o->hostfile || o->ranks_per_node || o->placement_given)
    return TRUE;
  g_autofree char *lines = ts_platform_place_as_traced (spec, run->trace, shares_cores (run));
  if (!lines)
    return TRUE;
  run->hostfile = g_build_filename (ts_output_dir_get_tmp_path (run->out), "hostfile", NULL);
  if (!ts_output_dir_write_file (run->hostfile, lines, strlen (lines), error))
    return FALSE;
  run->replay.hostfile = run->hostfile;
  run->result->inputs.placement = "as traced";
  g_ptr_array_add (run->result->written, g_strdup ("hostfile"));
  return TRUE;
}

/* The platform given, or one calibrated from the trace into the output. */
static gboolean
prepare_platform (Run *run, GError **error)
{
  if (run->o->platform)
    run->platform = g_strdup (run->o->platform);
  else
    {
      const char *tmp = ts_output_dir_get_tmp_path (run->out);
      run->platform = g_build_filename (tmp, "platform.xml", NULL);
      TsClusterSpec spec = ts_platform_spec_from_calibration (run->calibration, run->o->trace_speed);
      ts_platform_spec_fit_threads (&spec, run->trace);
      if (!place_as_traced (run, &spec, error))
        return FALSE;
      /* Threads a `threads = N` what-if adds take the cores the nodes had
       * beyond the traced threads' (where the trace does not say, they
       * share the traced threads' cores: give -p). */
      if (run->hypotheses && ts_hypotheses_team_size (run->hypotheses) > 0)
        ts_platform_spec_fit_node_cores (&spec, run->trace);
      if (!ts_platform_write_cluster (&spec, run->platform, error))
        return FALSE;
      g_ptr_array_add (run->result->written, g_strdup ("platform.xml"));
    }
  run->replay.platform_path = run->platform;
  if (!run->o->platform)
    run->replay.platform_name = "the platform calibrated from the trace (give yours with -p)";
  /* A platform of the user's could abort SimGrid: it is tried first. */
  return !run->o->platform || ts_replay_check_config (&run->replay, error);
}

static gboolean
choose_eager_threshold (Run *run, GError **error)
{
  if (run->o->eager_given)
    {
      run->replay.eager_threshold = run->o->eager_threshold;
      return TRUE;
    }
  run->replay.eager_threshold
    = ts_eager_threshold_infer (run->trace, run->calibration, TS_EAGER_DEFAULT_THRESHOLD,
                                error);
  return run->replay.eager_threshold != 0;
}

/* The replay, and the wait states of the predicted execution, found in a
 * copy of its archive before the archive is written. */
static gboolean
replay (Run *run, GError **error)
{
  g_autofree char *predicted
    = g_build_filename (ts_output_dir_get_tmp_path (run->out), "predicted", NULL);
  run->replay.predicted_dir = run->o->no_archive && !run->o->wait_states ? NULL : predicted;
  if (run->o->wait_states)
    {
      gboolean cached = run->o->shared && run->o->shared->original_waits;
      run->waits = ts_run_waits_new (run->trace, run->calibration, !cached,
                                     run->o->wait_regions);
      ts_run_waits_attach (run->waits, &run->replay);
    }
  run->replayed_set = ts_replay_run (run->trace, run->calibration, &run->replay,
                                     &run->replayed, error);
  /* A second replay in another process wrote the archive (and its
   * metrics); its wait states are read back from it here. */
  if (run->replayed_set && run->replayed.revisions > 0 && run->o->wait_states)
    {
      g_autofree char *anchor = g_build_filename (run->replay.predicted_dir, "traces.otf2", NULL);
      if (!ts_run_waits_read_predicted (run->waits, anchor, error))
        return FALSE;
    }
  if (run->replayed_set && run->o->wait_states)
    {
      run->predicted_waits = ts_run_waits_predicted (run->waits);
      run->predicted_trace = ts_run_waits_predicted_trace (run->waits);
    }
  if (run->replayed_set && run->replay.predicted_dir)
    g_ptr_array_add (run->result->written, g_strdup ("predicted/traces.otf2"));
  run->replay.predicted_dir = NULL;
  return run->replayed_set;
}

/* Read @path once (a hypothesis file within its bounds if @hypotheses): its
 * SHA-256 into @f, its text (caller frees) returned, its length in @len. */
static TsInputFile
input_file (const char *path, const char *bytes, gsize len)
{
  return (TsInputFile) { g_strdup (path),
                         g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) bytes,
                                                      len) };
}

/* Hypotheses read (each file once: the bytes hashed for summary.json are
 * the bytes parsed), bound to the trace's regions and ranks, and prepared
 * against its calibration. */
static gboolean
load_hypotheses (Run *run, GError **error)
{
  const char *const *files = run->o->hypotheses;
  if (!files || !files[0])
    return TRUE;
  run->hypotheses = ts_hypotheses_new ();
  for (guint i = 0; files[i]; i++)
    {
      gsize len = 0;
      g_autofree char *text = ts_hypotheses_read_file (files[i], &len, error);
      if (text)
        {
          TsInputFile f = input_file (files[i], text, len);
          g_array_append_val (run->result->inputs.hypotheses, f);
        }
      if (!text || !ts_hypotheses_load_bytes (run->hypotheses, text, len, files[i], error))
        return FALSE;
    }
  return ts_hypotheses_bind (run->hypotheses, run->trace, run->calibration, error)
         && ts_hypotheses_prepare (run->hypotheses, run->trace, run->calibration, error);
}

static gboolean
record_inputs (Run *run, GError **error)
{
  const TsRunOptions *o = run->o;
  TsRunInputs *in = &run->result->inputs;
  in->trace = g_strdup (o->trace);
  if (o->platform)
    {
      gsize len = 0;
      g_autofree char *text = NULL;
      if (!g_file_get_contents (o->platform, &text, &len, error))
        return FALSE;
      in->platform = input_file (o->platform, text, len);
    }
  in->hostfile = g_strdup (o->hostfile);
  in->ranks_per_node = o->ranks_per_node;
  in->placement = o->placement == TS_PLACEMENT_CYCLIC ? "cyclic" : "block";
  in->eager_inferred = !o->eager_given;
  in->trace_speed = o->trace_speed;
  in->exact_cpu = o->exact_cpu;
  in->cpu_time = run->cpu_time;
  in->cpu_estimated = run->cpu_estimated;
  in->calls_fair_share = run->calls_fair_share;
  in->wait_states = o->wait_states;
  in->wait_regions = o->wait_regions;
  in->binomial_tree_given = o->binomial_tree_given;
  in->residual = ts_residual_name (residual_mode (run));
  in->mpi_progress = ts_mpi_progress_name (mpi_progress (run));
  in->mpi_wait = ts_mpi_wait_name (mpi_wait (run));
  in->omp_active = o->omp_active;
  in->omp_fork_cost = o->omp_fork_cost;
  in->omp_barrier_cost = o->omp_barrier_cost;
  in->shared_cores = shares_cores (run);
  in->seed = o->seed;
  in->simgrid_cfg = g_strdupv ((char **) o->simgrid_cfg);
  run->result->output_dir = g_strdup (o->output_dir);
  return TRUE;
}

/* The numbers of both executions, copied out of the calibration and the
 * replay so that the result outlives them. */
static void
fill_result (Run *run)
{
  TsRunResult *r = run->result;
  const TsCalibration *cal = run->calibration;
  r->original_runtime = ts_calibration_runtime (cal);
  memcpy (r->original_rank_end, ts_calibration_rank_ends (cal), r->n_ranks * sizeof (double));
  for (guint i = 0; i < r->n_ranks; i++)
    r->clock_offset[i] = ts_calibration_clock_offset (cal, i);
  r->clocks = *ts_calibration_clocks (cal);
  r->predicted_runtime = run->replayed.runtime;
  memcpy (r->predicted_rank_end, run->replayed.rank_end->data, r->n_ranks * sizeof (double));
  memcpy (r->predicted_rank_time, run->replayed.rank_time->data, r->n_ranks * sizeof (TsRankTime));
  r->eager_threshold = run->replay.eager_threshold;
  r->binomial_tree = run->replay.binomial_tree;
  for (guint i = 0; i < run->replayed.n_regions; i++)
    {
      if (ts_calibration_region_visits (cal, i) == 0)
        continue;
      TsRegionResult x = { g_strdup (ts_trace_region_name (run->trace, i)),
                           ts_calibration_region_visits (cal, i),
                           ts_calibration_region_seconds (cal, i),
                           run->replayed.region_seconds[i],
                           run->replayed.region_residual[i],
                           run->hypotheses && ts_hypotheses_selects_region (run->hypotheses, i) };
      g_array_append_val (r->regions, x);
    }
  r->has_wait_states = run->original_waits != NULL;
  for (guint p = 0; r->has_wait_states && p < TS_WAIT_N_PATTERNS; p++)
    {
      r->wait_original[p] = ts_wait_states_total (run->original_waits, p);
      r->wait_predicted[p] = ts_wait_states_total (run->predicted_waits, p);
    }
  r->messages = ts_calibration_message_info (cal);
  r->actions_replayed = run->replayed.actions_replayed;
  r->simcalls = run->replayed.simcalls;
  r->guessed_receives = ts_calibration_guessed_receives (run->calibration);
  r->status_receives = ts_calibration_status_receives (run->calibration);
  r->guessed_taken_as_arrived = run->replayed.guessed_as_arrived;
  r->status_taken_as_arrived = run->replayed.status_as_arrived;
  r->revisions = run->replayed.revisions;
  r->buffered_pairs = run->replayed.buffered_pairs;
}

/* waitstates.csv and summary.json into the temporary directory, then the
 * directory into place. */
static gboolean
write_outputs (Run *run, GError **error)
{
  const char *tmp = ts_output_dir_get_tmp_path (run->out);
  TsRunResult *r = run->result;
  if (run->original_waits)
    {
      g_autoptr (GString) csv = g_string_new (TS_WAIT_STATES_CSV_HEADER);
      ts_csv_append_wait_states (csv, "original", run->trace, run->original_waits);
      ts_csv_append_wait_states (csv, "predicted", run->predicted_trace, run->predicted_waits);
      g_autofree char *path = g_build_filename (tmp, "waitstates.csv", NULL);
      if (!ts_output_dir_write_file (path, csv->str, csv->len, error))
        return FALSE;
      g_ptr_array_add (r->written, g_strdup ("waitstates.csv"));
    }
  r->wall_s = (g_get_monotonic_time () - run->t0) / 1e6;
  /* Peak memory of the whole process so far (Linux reports KiB). */
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  r->max_rss_kib = ru.ru_maxrss;
  g_autofree char *summary = g_build_filename (tmp, "summary.json", NULL);
  if (!ts_summary_write (r, summary, error))
    return FALSE;
  g_ptr_array_add (r->written, g_strdup ("summary.json"));
  if (run->o->report)
    {
      /* Drawn from the outputs just written, as tracesim report would. A
       * report that fails costs the page, not the run: it is said. */
      g_autoptr (GError) failed = NULL;
      guint before = r->written->len;
      g_autofree char *html = ts_html_report_run (tmp, run->o->trace, &failed);
      if (!html || !ts_html_report_write_files (tmp, html, TS_REPORT_INTO_NEW, r->written, &failed))
        {
          r->report_failure = g_strdup (failed->message);
          /* No half report: the figures already written go too. */
          for (guint i = before; i < r->written->len; i++)
            {
              g_autofree char *path = g_build_filename (tmp, r->written->pdata[i], NULL);
              g_unlink (path);
            }
          g_ptr_array_set_size (r->written, before);
        }
    }
  TsOutputDir *out = g_steal_pointer (&run->out);
  return ts_output_dir_commit (out, error);
}

/* What the trace's threads beyond each rank's own location hold: counted
 * and said; MPI on one is refused where the thread level the program was
 * given forbids it. */
static gboolean
count_threads (Run *run, GError **error)
{
  const TsThreadScan *scan = ts_trace_thread_scan (run->trace);
  g_autoptr (TsThreadScan) none = scan ? NULL : ts_thread_scan (run->trace, error);
  if (!scan)
    scan = none;
  if (!scan || !ts_thread_scan_check_mpi (scan, run->trace, error))
    return FALSE;
  run->result->threads = ts_trace_n_threads (run->trace);
  run->result->thread_events_unreplayed = scan->events - scan->mpi_replayed;
  run->result->threads_note = ts_thread_scan_describe (scan, run->trace);
  return TRUE;
}

/* What compute was taken from, for messages. */
static const char *
clock_name (gboolean cpu_time, gboolean estimated)
{
  return estimated ? "the CPU time estimated from the nodes' load"
         : cpu_time ? "the CPU time" : "the wall time";
}

/* Calibration phases: nothing is written yet. */
static gboolean
prepare (Run *run, GError **error)
{
  if (!check_options (run->o, error))
    return FALSE;
  const TsRunShared *shared = run->o->shared;
  if (shared && run->o->cpu_time != TS_CPU_TIME_AUTO
      && (shared->cpu_time != (run->o->cpu_time != TS_CPU_TIME_OFF)
          || shared->cpu_estimated != (run->o->cpu_time == TS_CPU_TIME_LOAD)))
    {
      /* A caller's mistake, said rather than replayed with the other clock. */
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "%s: the first pass given was made with compute from %s, the run asks for "
                   "another", run->o->trace, clock_name (shared->cpu_time, shared->cpu_estimated));
      return FALSE;
    }
  if (shared)
    {
      run->trace = shared->trace;
      run->calibration = shared->calibration;
      run->cpu_time = shared->cpu_time;
      run->cpu_estimated = shared->cpu_estimated;
      run->calls_fair_share = shared->calls_fair_share;
    }
  else
    {
      g_autoptr (TsRunShared) own = ts_run_shared_new (run->o->trace, FALSE, run->o->cpu_time, error);
      if (!own)
        return FALSE;
      run->trace = g_steal_pointer (&own->trace);
      run->calibration = g_steal_pointer (&own->calibration);
      run->cpu_time = own->cpu_time;
      run->cpu_estimated = own->cpu_estimated;
      run->calls_fair_share = own->calls_fair_share;
    }
  phase_done (run, "calibration (first pass)");
  run->result = ts_run_result_new (ts_calibration_n_ranks (run->calibration));
  if (!count_threads (run, error))
    return FALSE;
  if (!load_hypotheses (run, error) || !record_inputs (run, error))
    return FALSE;
  phase_done (run, "hypotheses");
  return configure_replay (run, error);
}

TsRunResult *
ts_run (const TsRunOptions *o, GError **error)
{
  Run run = { .o = o, .t0 = g_get_monotonic_time () };
  gboolean ok = prepare (&run, error)
                && (run.out = ts_output_dir_new (o->output_dir, error))
                && prepare_platform (&run, error) && choose_eager_threshold (&run, error);
  if (ok)
    phase_done (&run, "platform and eager threshold");
  ok = ok && replay (&run, error);
  if (ok)
    phase_done (&run, "replay and predicted wait states");
  if (ok && o->wait_states && o->shared && o->shared->original_waits)
    run.original_waits = o->shared->original_waits;
  else if (ok && o->wait_states)
    {
      /* Both executions by the same analysis. */
      run.original_waits = ts_run_waits_original (run.waits, error);
      ok = run.original_waits != NULL;
      if (ok)
        phase_done (&run, "original wait states");
    }
  if (ok)
    {
      fill_result (&run);
      ok = write_outputs (&run, error);
      phase_done (&run, "outputs");
    }
  TsRunResult *result = ok ? g_steal_pointer (&run.result) : NULL;
  run_clear (&run);
  return result;
}
