/* Preparing per-occurrence rules (set, balance, threads): passes over the
 * trace that measure each occurrence, so that the replay knows what each
 * rank's occurrence should become before it reaches it. */
#include <config.h>

#define G_LOG_DOMAIN "ts-hypotheses"

#include "hypotheses/hypotheses.h"
#include "hypotheses/hypotheses-private.h"
#include "model/stream.h"

#include <math.h>
#include <string.h>


/* Passes over the trace that preparing may take: each set/balance rule
 * selecting compute that an earlier unprepared one changes needs a pass of
 * its own. */
#define TS_HYPOTHESES_MAX_PASSES 64

/* Per-occurrence rules measured in one pass: none selects compute that
 * another of them changes, so none needs another's targets. */
typedef struct {
  GArray *rules;             /* guint rule indices, ascending */
  gboolean *regions;         /* regions they select */
  gboolean inclusive;        /* one of them is inclusive: it may reach any region */
} Batch;

static gboolean
batch_overlaps (const Batch *b, const TsRule *rule, guint n_regions)
{
  if (b->rules->len == 0)
    return FALSE;
  /* A phase may lie in any region: treated as reaching all of them. */
  if (b->inclusive || rule->inclusive || rule->phase)
    return TRUE;
  for (guint r = 0; r < n_regions; r++)
    if (rule->matches[r] && b->regions[r])
      return TRUE;
  return FALSE;
}

/* The next batch from rule @from: the unprepared per-occurrence rules up to
 * the first that overlaps one already in it. */
static void
next_batch (const TsHypotheses *h, guint from, guint n_regions, Batch *b)
{
  g_array_set_size (b->rules, 0);
  memset (b->regions, 0, n_regions * sizeof (gboolean));
  b->inclusive = FALSE;
  for (guint i = from; i < h->rules->len; i++)
    {
      const TsRule *rule = g_ptr_array_index (h->rules, i);
      if (!rule->kind->per_occurrence || rule->targets)
        continue;
      if (batch_overlaps (b, rule, n_regions))
        return;
      g_array_append_val (b->rules, i);
      b->inclusive |= rule->inclusive || rule->phase;
      for (guint r = 0; r < n_regions; r++)
        b->regions[r] |= rule->matches[r];
    }
}

/* One occurrence after another, the selected ranks' durations give the
 * target every rank takes. */
static gboolean
compute_targets (TsRule *rule, guint n, GError **error)
{
  gboolean ok = TRUE;
  rule->targets = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree TsSpoolReader **readers = g_new0 (TsSpoolReader *, n);
  guint64 most = 0;
  for (guint r = 0; r < n; r++)
    {
      readers[r] = ts_spool_reader_new (rule->durations, r);
      most = MAX (most, ts_spool_count (rule->durations, r));
    }
  g_autofree double *values = g_new (double, n);
  for (guint64 k = 0; k < most && ok; k++)
    {
      guint m = 0;
      for (guint r = 0; r < n && ok; r++)
        {
          GError *local = NULL;
          const double *d = ts_spool_reader_next (readers[r], &local);
          if (local)
            {
              g_propagate_error (error, local);
              ok = FALSE;
            }
          else if (d && ts_range_list_contains (rule->ranks, r))
            values[m++] = *d;
        }
      double target = m > 0 ? rule->kind->target (rule, values, m) : NAN;
      g_array_append_val (rule->targets, target);
    }
  for (guint r = 0; r < n; r++)
    ts_spool_reader_free (readers[r]);
  return ok;
}

/* Stream @stream's actions through @hr to its end. */
static gboolean
measure_stream (TsHypothesisRank *hr, TsActionStream *stream, guint index, GError **error)
{
  TsAction a;
  GError *local = NULL;
  gboolean ok = TRUE;
  while (ok && ts_action_stream_next (stream, index, &a, &local))
    ok = ts_hypothesis_rank_apply (hr, &a, &local);
  ts_hypothesis_rank_end (hr);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

/* Rank @r's threads with MPI of their own first (streams @first up to the
 * next rank's; their phases go to @phases, one array a rule of the batch
 * and a thread), then the rank, which merges its threads' phases into its
 * own. */
static gboolean
measure_rank (TsHypotheses *h, const Batch *b, TsActionStream *stream, guint r, guint *first,
              GPtrArray *phases, GError **error)
{
  const TsTrace *trace = h->trace;
  guint last = g_array_index (b->rules, guint, b->rules->len - 1);
  guint s0 = *first, s = s0;
  gboolean ok = TRUE;
  g_ptr_array_set_size (phases, 0);
  for (; ok && s < ts_trace_n_streams (trace) && ts_trace_stream_rank (trace, s) == r; s++)
    {
      TsHypothesisRank *hr = ts_hypothesis_rank_new (h, s, last + 1);
      for (guint k = 0; k < b->rules->len; k++)
        {
          guint i = g_array_index (b->rules, guint, k);
          GArray *mine = g_array_new (FALSE, FALSE, sizeof (TsStreamPhase));
          g_ptr_array_add (phases, mine);
          ts_hypothesis_rank_measure (hr, i, ((TsRule *) g_ptr_array_index (h->rules, i))->durations,
                                      mine);
        }
      ok = measure_stream (hr, stream, s, error);
      ts_hypothesis_rank_free (hr);
    }
  *first = s;
  if (!ok)
    return FALSE;
  TsHypothesisRank *hr = ts_hypothesis_rank_new (h, r, last + 1);
  for (guint k = 0; k < b->rules->len; k++)
    {
      guint i = g_array_index (b->rules, guint, k);
      const TsRule *rule = g_ptr_array_index (h->rules, i);
      ts_hypothesis_rank_measure (hr, i, rule->durations, NULL);
      for (guint t = s0; rule->across_threads && t < s; t++)
        if (ts_trace_stream_in_teams (trace, t))
          ts_hypothesis_rank_add_thread (hr, i, ts_trace_stream_thread (trace, t), t,
                                         g_ptr_array_index (phases, (t - s0) * b->rules->len + k));
    }
  ok = measure_stream (hr, stream, r, error);
  ts_hypothesis_rank_free (hr);
  return ok;
}

/* One pass over every rank's actions with the rules before the batch's last
 * applied, logging the duration of each occurrence of every rule of the
 * batch; then their targets. A rule across threads logs each team phase of
 * a rank, and a copy for each thread with MPI of its own that had a part
 * in it (the records are per stream). */
static gboolean
prepare_batch (TsHypotheses *h, const Batch *b, const TsTrace *trace,
               const TsCalibration *calibration, GError **error)
{
  guint n = ts_calibration_n_ranks (calibration);
  guint n_slots = 1;
  for (guint r = 0; r < n; r++)
    n_slots = MAX (n_slots, ts_trace_rank_n_threads (trace, r));
  for (guint k = 0; k < b->rules->len; k++)
    {
      TsRule *rule = g_ptr_array_index (h->rules, g_array_index (b->rules, guint, k));
      rule->n_slots = rule->across_threads ? n_slots : 1;
      rule->durations = ts_spool_new (ts_trace_n_streams (trace), rule->n_slots * sizeof (double),
                                      4096, error);
      if (!rule->durations)
        return FALSE;
    }
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (calibration, trace, error);
  if (!stream)
    return FALSE;
  gboolean ok = TRUE;
  g_autoptr (GPtrArray) phases = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  guint first = n; /* the threads with MPI, in rank order after the ranks */
  for (guint r = 0; r < n && ok; r++)
    ok = measure_rank (h, b, stream, r, &first, phases, error);
  for (guint k = 0; k < b->rules->len && ok; k++)
    {
      TsRule *rule = g_ptr_array_index (h->rules, g_array_index (b->rules, guint, k));
      ok = ts_spool_finish (rule->durations, error);
      if (ok && rule->across_threads)
        rule->targets = g_array_new (FALSE, FALSE, sizeof (double)); /* per phase, applied */
      else if (ok)
        ok = compute_targets (rule, n, error);
    }
  return ok;
}

gboolean
ts_hypotheses_prepare (TsHypotheses *h, const TsTrace *trace, const TsCalibration *calibration,
                       GError **error)
{
  guint n_regions = ts_trace_n_regions (trace);
  Batch b = { g_array_new (FALSE, FALSE, sizeof (guint)), g_new0 (gboolean, n_regions + 1), FALSE };
  gboolean ok = TRUE;
  for (guint passes = 0; ok; passes++)
    {
      next_batch (h, 0, n_regions, &b);
      if (b.rules->len == 0)
        break;
      if (passes == TS_HYPOTHESES_MAX_PASSES)
        {
          const TsRule *rule = g_ptr_array_index (h->rules, g_array_index (b.rules, guint, 0));
          g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_SYNTAX,
                       "%s:%u: [region:%.60s]: preparing the set and balance rules takes more "
                       "than %u passes over the trace (a rule selecting compute that an earlier "
                       "set or balance rule changes needs a pass of its own): merge rules on "
                       "the same regions into one section", rule->origin, rule->line,
                       rule->pattern, TS_HYPOTHESES_MAX_PASSES);
          ok = FALSE;
          break;
        }
      ok = prepare_batch (h, &b, trace, calibration, error);
    }
  g_array_unref (b.rules);
  g_free (b.regions);
  return ok;
}
