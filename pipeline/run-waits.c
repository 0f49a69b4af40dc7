#include <config.h>

#define G_LOG_DOMAIN "ts-run"

#include "pipeline/run-waits.h"
#include "model/archive_writer.h"
#include "model/output_dir.h"
#include "model/stream.h"


/* One analysis on a thread of its own: @work's result, its error and wall
 * time once joined. */
typedef struct {
  GThread *thread;
  gboolean (*work) (TsRunWaits *rw, GError **error);
  TsRunWaits *rw;
  gboolean joined;
  gboolean ok;
  GError *error;
  double seconds;
} Beside;

struct TsRunWaits {
  const TsTrace *trace;
  const TsCalibration *calibration;
  gboolean want_original;

  /* The original execution's; cancelled when the run fails. */
  Beside original_thread;
  GCancellable *original_cancel;
  TsWaitStates *original;

  /* The predicted timeline's, found before its archive is written so that
   * it can carry them as OTF2 metrics (one per pattern and rank, cumulative
   * seconds): the writer's logged events are decoded and analysed like any
   * trace's, with the archive's definitions, written to a scratch
   * directory. */
  Beside predicted_thread;
  TsArchiveWriter *writer;
  guint n_ranks;
  guint32 metric[TS_WAIT_N_PATTERNS];
  gboolean regions;          /* --wait-regions */
  guint32 region[TS_WAIT_N_PATTERNS];
  double *cumulative;        /* [pattern * n_ranks + rank] */
  char *scratch;
  TsTrace *predicted_trace;  /* the copy, kept for region names */
  TsCalibration *predicted_calibration;  /* read back after revisions only */
  TsActionStream *stream;    /* the writer's events, as the thread reads them */
  TsWaitStates *predicted;
};

TsRunWaits *
ts_run_waits_new (const TsTrace *trace, const TsCalibration *calibration, gboolean original,
                  gboolean regions)
{
  TsRunWaits *rw = g_new0 (TsRunWaits, 1);
  rw->trace = trace;
  rw->calibration = calibration;
  rw->want_original = original;
  rw->regions = regions;
  rw->n_ranks = ts_calibration_n_ranks (calibration);
  rw->cumulative = g_new0 (double, TS_WAIT_N_PATTERNS * rw->n_ranks);
  rw->original_cancel = g_cancellable_new ();
  return rw;
}

/* Wait for @b's thread, if it was started; whether it ran (now or before). */
static gboolean
beside_join (Beside *b)
{
  if (b->thread)
    {
      g_thread_join (g_steal_pointer (&b->thread));
      b->joined = TRUE;
    }
  return b->joined;
}

static gpointer
beside_main (gpointer data)
{
  Beside *b = data;
  gint64 t0 = g_get_monotonic_time ();
  b->ok = b->work (b->rw, &b->error);
  b->seconds = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
  return NULL;
}

static void
beside_start (Beside *b, const char *name, gboolean (*work) (TsRunWaits *, GError **),
              TsRunWaits *rw)
{
  g_autoptr (GError) error = NULL;
  b->work = work;
  b->rw = rw;
  b->thread = ts_output_dir_thread_try_new (name, beside_main, b, &error);
  if (!b->thread)
    g_debug ("%s: no thread (%s), analysed after the replay", name, error->message);
}

/* @b's result once joined: TRUE, or FALSE and @error. */
static gboolean
beside_result (Beside *b, const char *name, GError **error)
{
  g_debug ("%s: %.3f s, on a thread beside the replay", name, b->seconds);
  if (!b->ok)
    g_propagate_error (error, g_steal_pointer (&b->error));
  return b->ok;
}

static void
scratch_remove (TsRunWaits *rw)
{
  g_clear_pointer (&rw->stream, ts_action_stream_free);
  if (rw->scratch)
    {
      ts_output_dir_remove_tree (rw->scratch);
      ts_output_dir_unguard (rw->scratch);
      g_clear_pointer (&rw->scratch, g_free);
    }
}

void
ts_run_waits_free (TsRunWaits *rw)
{
  if (!rw)
    return;
  /* before_close() stopped the predicted thread, whatever became of the
   * replay; the original one may still run. */
  g_warn_if_fail (rw->predicted_thread.thread == NULL);
  /* Still running here, its result is not wanted (the run failed). */
  g_cancellable_cancel (rw->original_cancel);
  beside_join (&rw->original_thread);
  g_object_unref (rw->original_cancel);
  g_clear_error (&rw->original_thread.error);
  g_clear_error (&rw->predicted_thread.error);
  scratch_remove (rw);
  g_clear_pointer (&rw->original, ts_wait_states_free);
  g_clear_pointer (&rw->predicted, ts_wait_states_free);
  g_clear_pointer (&rw->predicted_calibration, ts_calibration_free);
  g_clear_pointer (&rw->predicted_trace, ts_trace_free);
  g_free (rw->cumulative);
  g_free (rw);
}

/* ---- the original execution ---------------------------------------------- */

static gboolean
original_analyse (TsRunWaits *rw, GError **error)
{
  rw->original = ts_wait_states_analyse_cancellable (rw->trace, rw->calibration,
                                                     rw->original_cancel, error);
  return rw->original != NULL;
}

const TsWaitStates *
ts_run_waits_original (TsRunWaits *rw, GError **error)
{
  g_return_val_if_fail (rw->want_original, NULL);
  if (beside_join (&rw->original_thread))
    return beside_result (&rw->original_thread, "original wait states", error)
           ? rw->original : NULL;
  return rw->original || original_analyse (rw, error) ? rw->original : NULL;
}

/* ---- the predicted execution --------------------------------------------- */

static void
span_to_metric (TsWaitPattern p, guint rank, guint region, double start, double seconds,
                gpointer data)
{
  TsRunWaits *rw = data;
  double *c = &rw->cumulative[p * rw->n_ranks + rank];
  *c += seconds;
  if (rw->regions)
    ts_archive_writer_late_region (rw->writer, rank, start, start + seconds, rw->region[p]);
  ts_archive_writer_late_metric (rw->writer, rank, start + seconds, rw->metric[p], *c);
}

/* The metrics (and regions) the analysis adds, the archive's definitions
 * in the scratch directory, opened as a trace, and the writer's events as
 * a stream. All definitions are made before the replay logs an event, so
 * this may come before or after it. */
static gboolean
predicted_open (TsRunWaits *rw, TsArchiveWriter *w, GError **error)
{
  g_clear_pointer (&rw->predicted_trace, ts_trace_free);
  rw->writer = w;
  rw->scratch = g_dir_make_tmp ("tracesim-XXXXXX", error);
  if (!rw->scratch)
    return FALSE;
  ts_output_dir_guard (rw->scratch);
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    {
      rw->metric[p] = ts_archive_writer_define_metric (w, ts_wait_pattern_name (p), "s");
      if (rw->regions)
        rw->region[p] = ts_archive_writer_define_region (w, ts_wait_pattern_name (p),
                                                         TS_REGION_USER);
    }
  g_autofree char *anchor = g_build_filename (rw->scratch, "traces.otf2", NULL);
  if (!ts_archive_writer_write_definitions (w, rw->scratch, error)
      || !(rw->predicted_trace = ts_trace_open_definitions (anchor, error)))
    return FALSE;
  ts_trace_copy_streams (rw->predicted_trace, rw->trace);
  rw->stream = ts_action_stream_open_writer (rw->predicted_trace, w);
  return TRUE;
}

static gboolean
predicted_analyse (TsRunWaits *rw, GError **error)
{
  rw->predicted = ts_wait_states_analyse_stream (rw->predicted_trace, rw->stream, span_to_metric,
                                                 rw, error);
  return rw->predicted != NULL;
}

/* An analysis holds about 1.5 KiB a rank while it runs (its cursors,
 * totals and request tables, its spool readers; the predicted one also its
 * decoders of the writer's events and their pending actions). Beside the
 * replay that adds to the replay's own peak, after it not: 16,384 stencil
 * ranks peaked at 195 MB with the original's beside, 172 MB after; at
 * 131,072 ranks the predicted one's came to 210 MB of a 970 MB heap
 * (heaptrack). Each runs beside the replay (costing no wall time on a spare
 * core) while that state stays within 32 MiB, up to 21,845 ranks, and after
 * it beyond, where memory is what decides whether a run fits the machine
 * (and where the predicted one waited for the ranks' last blocks anyway:
 * at 256 bytes a block, a rank's events come to it in a few). */
#define BESIDE_BYTES (32u << 20)
#define BYTES_PER_RANK 1536u

/* The most ranks whose analyses run beside the replay: the budget's, or
 * TS_WAIT_STATES_BESIDE_RANKS (0: every analysis after the replay), which
 * lets a test take the path of large runs on a small trace. */
static guint
beside_max_ranks (void)
{
  const char *env = g_getenv ("TS_WAIT_STATES_BESIDE_RANKS");
  return env ? (guint) MIN (g_ascii_strtoull (env, NULL, 10), G_MAXUINT)
             : BESIDE_BYTES / BYTES_PER_RANK;
}

/* TsReplayOptions.beside: the simulation is about to start. */
static void
start_beside (TsArchiveWriter *writer, gpointer data)
{
  TsRunWaits *rw = data;
  /* Opening the definitions copy probes it in a child process: before any
   * thread runs. */
  g_autoptr (GError) error = NULL;
  gboolean beside = rw->n_ranks <= beside_max_ranks ();
  gboolean opened = writer && beside && predicted_open (rw, writer, &error);
  if (error)
    g_debug ("predicted wait states: %s; analysed after the replay", error->message);
  if (!beside)
    g_debug ("wait states: after the replay (%u ranks: their state would add to the "
             "replay's peak)", rw->n_ranks);
  if (rw->want_original && beside)
    beside_start (&rw->original_thread, "original wait states", original_analyse, rw);
  if (opened)
    beside_start (&rw->predicted_thread, "predicted wait states", predicted_analyse, rw);
  if (!rw->predicted_thread.thread)
    scratch_remove (rw);
}

/* TsReplayOptions.before_close: the replay ended, its archive is about to
 * be written (@replayed) or discarded. */
static gboolean
before_close (TsArchiveWriter *w, gboolean replayed, gpointer data, GError **error)
{
  TsRunWaits *rw = data;
  /* The feeds see their end, and the thread its last events. */
  gboolean ended = ts_archive_writer_end_events (w, replayed ? error : NULL);
  if (beside_join (&rw->predicted_thread))
    {
      gboolean ok = replayed && ended
                    && beside_result (&rw->predicted_thread, "predicted wait states", error);
      scratch_remove (rw);
      return ok;
    }
  if (!replayed || !ended)
    return FALSE;
  /* No thread runs while predicted_open() forks its probe. */
  beside_join (&rw->original_thread);
  gboolean ok = predicted_open (rw, w, error) && predicted_analyse (rw, error);
  scratch_remove (rw);
  return ok;
}

void
ts_run_waits_attach (TsRunWaits *rw, TsReplayOptions *replay)
{
  replay->beside = start_beside;
  replay->beside_data = rw;
  replay->before_close = before_close;
  replay->before_close_data = rw;
}

gboolean
ts_run_waits_read_predicted (TsRunWaits *rw, const char *anchor, GError **error)
{
  /* Opening a trace probes it in a child process: no thread may run. */
  beside_join (&rw->original_thread);
  g_clear_pointer (&rw->predicted, ts_wait_states_free);
  g_clear_pointer (&rw->predicted_trace, ts_trace_free);
  return (rw->predicted_trace = ts_trace_open (anchor, error))
         && (rw->predicted_calibration = ts_calibration_compute (rw->predicted_trace, error))
         && (rw->predicted = ts_wait_states_analyse (rw->predicted_trace,
                                                     rw->predicted_calibration, error));
}

const TsWaitStates *
ts_run_waits_predicted (const TsRunWaits *rw)
{
  return rw->predicted;
}

const TsTrace *
ts_run_waits_predicted_trace (const TsRunWaits *rw)
{
  return rw->predicted_trace;
}
