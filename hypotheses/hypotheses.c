#include <config.h>

#define G_LOG_DOMAIN "ts-hypotheses"

#include "hypotheses/hypotheses.h"
#include "hypotheses/hypotheses-private.h"
#include "model/stream.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (ts-hypotheses-error-quark, ts_hypotheses_error)


/* Per rule, per rank: where the rank is in the rule's occurrences. */
typedef struct {
  const TsRule *rule;
  gboolean rank_selected;
  guint64 visits;            /* occurrences entered so far */
  guint64 phase_calls;       /* phase rules: the rank's MPI calls at its last burst */
  gboolean occurrence_selected;
  double occurrence;         /* prepared duration of the current occurrence */
  double target;             /* and what it should become */
  TsSpoolReader *durations;
  /* While preparing this rule, its durations are measured, not applied:
   * each occurrence's compute goes to this log. */
  TsSpool *measure_log;
  double measuring;
  gboolean measuring_open;
  /* across_threads: the team phase's work per thread (measured), or its
   * factors per thread (applied, once read at its first selected burst). */
  double *phase;
  double *work;              /* applying: each thread's selected work in the phase, as traced */
  gboolean phase_open;       /* inside a team phase */
  double share;              /* `threads`: the phase's work of each thread beyond the trace's */
  /* The rank's other threads' bursts belong to the visit its own thread
   * makes in their team phase, which comes after them (their work is
   * forked at the phase's start): measured ahead of it, or that visit's
   * duration and target read ahead (peeked). */
  double ahead;
  gboolean peeked;
  double next_occurrence, next_target;
} RuleState;

struct TsHypothesisRank {
  const TsHypotheses *h;
  guint rank;
  double speed;              /* [hosts] speed: compute runs this much faster */
  GArray *stack;             /* guint32 open regions */
  guint64 calls;             /* MPI calls entered, when rules select phases */
  guint thread;              /* the thread of the burst being rewritten (0: the rank's own) */
  RuleState *rules;
  guint n_rules;             /* rules 0 .. n_rules-1 take part */
};

static void
rule_free (gpointer p)
{
  TsRule *r = p;
  if (r->kind && r->kind->free)
    r->kind->free (r);
  g_free (r->origin);
  g_free (r->pattern);
  if (r->ranks)
    g_array_unref (r->ranks);
  if (r->occurrences)
    g_array_unref (r->occurrences);
  g_free (r->matches);
  g_free (r->phase_matches);
  ts_rule_free_code (r);
  ts_spool_free (r->durations);
  if (r->targets)
    g_array_unref (r->targets);
  g_free (r);
}

TsHypotheses *
ts_hypotheses_new (void)
{
  TsHypotheses *h = g_new0 (TsHypotheses, 1);
  h->rules = g_ptr_array_new_with_free_func (rule_free);
  h->bandwidth = h->latency = h->speed = 1;
  return h;
}

void
ts_hypotheses_free (TsHypotheses *h)
{
  if (!h)
    return;
  g_ptr_array_unref (h->rules);
  g_free (h->region_start);
  g_free (h->by_region);
  if (h->inclusive)
    g_array_unref (h->inclusive);
  if (h->phase_rules)
    g_array_unref (h->phase_rules);
  if (h->phase_index)
    g_hash_table_unref (h->phase_index);
  g_free (h);
}

guint
ts_hypotheses_n_rules (const TsHypotheses *h)
{
  return h->rules->len;
}

double
ts_hypotheses_bandwidth_factor (const TsHypotheses *h)
{
  return h->bandwidth;
}

double
ts_hypotheses_latency_factor (const TsHypotheses *h)
{
  return h->latency;
}

const char *
ts_hypotheses_residual (const TsHypotheses *h)
{
  return h->residual;
}

const char *
ts_hypotheses_mpi_progress (const TsHypotheses *h)
{
  return h->mpi_progress;
}

guint
ts_hypotheses_team_size (const TsHypotheses *h)
{
  guint n = 0;
  for (guint i = 0; i < h->rules->len; i++)
    {
      const TsRule *rule = g_ptr_array_index (h->rules, i);
      if (ts_rule_sets_team (rule))
        n = MAX (n, (guint) rule->value);
    }
  return n;
}

double
ts_hypotheses_speed_factor (const TsHypotheses *h)
{
  return h->speed;
}


/* ---- applying ------------------------------------------------------------ */

TsHypothesisRank *
ts_hypothesis_rank_new (const TsHypotheses *h, guint rank, guint n_rules)
{
  TsHypothesisRank *hr = g_new0 (TsHypothesisRank, 1);
  hr->h = h;
  hr->rank = rank;
  hr->speed = n_rules >= h->rules->len ? h->speed : 1;
  hr->stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  hr->n_rules = MIN (n_rules, h->rules->len);
  hr->rules = g_new0 (RuleState, hr->n_rules);
  for (guint i = 0; i < hr->n_rules; i++)
    {
      RuleState *st = &hr->rules[i];
      st->rule = g_ptr_array_index (h->rules, i);
      st->rank_selected = ts_range_list_contains (st->rule->ranks, rank);
      st->target = NAN;
      st->phase_calls = G_MAXUINT64; /* the first burst opens an occurrence */
      if (st->rule->kind->per_occurrence && st->rule->targets)
        st->durations = ts_spool_reader_new (st->rule->durations, rank);
      if (st->rule->across_threads)
        {
          st->phase = g_new0 (double, MAX (st->rule->n_slots, 1));
          st->work = g_new0 (double, MAX (st->rule->n_slots, 1));
        }
    }
  return hr;
}

void
ts_hypothesis_rank_free (TsHypothesisRank *hr)
{
  if (!hr)
    return;
  for (guint i = 0; i < hr->n_rules; i++)
    {
      ts_spool_reader_free (hr->rules[i].durations);
      g_free (hr->rules[i].phase);
      g_free (hr->rules[i].work);
    }
  g_array_unref (hr->stack);
  g_free (hr->rules);
  g_free (hr);
}

static void
close_measure (TsHypothesisRank *hr, RuleState *st)
{
  if (st->measuring_open)
    ts_spool_append (st->measure_log, hr->rank, &st->measuring);
  st->measuring = 0;
  st->measuring_open = FALSE;
}

/* A team phase ends on the rank (a barrier, or its team's end or next
 * begin): each across_threads rule logs what it measured in it. Every
 * phase is logged, so that the replay reads them back one for one. */
static void
close_phase (TsHypothesisRank *hr, RuleState *st)
{
  if (st->measure_log && st->phase_open)
    {
      ts_spool_append (st->measure_log, hr->rank, st->phase);
      memset (st->phase, 0, st->rule->n_slots * sizeof (double));
    }
  st->phase_open = FALSE;
}

/* A team phase begins (the team's begin, or a barrier left): measuring, it
 * starts empty; applying, its record gives each thread its factor, and a
 * `threads` rule the work each thread beyond the trace's takes. */
static gboolean
open_phase (TsHypothesisRank *hr, RuleState *st, GError **error)
{
  st->phase_open = TRUE;
  st->share = 0;
  if (st->measure_log || !st->durations)
    return TRUE;
  GError *local = NULL;
  const double *work = ts_spool_reader_next (st->durations, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (!work)
    {
      st->phase_open = FALSE; /* a phase the measuring pass did not see */
      return TRUE;
    }
  st->share = ts_rule_thread_factors (st->rule, work, st->rule->n_slots, st->phase);
  memcpy (st->work, work, st->rule->n_slots * sizeof (double));
  return TRUE;
}

/* `threads = N`: a thread of the trace's team (below N) that did not run
 * the rule's regions in this phase takes its share all the same, once, on
 * its first burst of the phase (the decoder gives an idle thread an empty
 * one). */
static void
give_share (TsHypothesisRank *hr, TsAction *a)
{
  guint t = (guint) MAX (a->peer, 0);
  for (guint i = 0; i < hr->n_rules; i++)
    {
      RuleState *st = &hr->rules[i];
      if (!st->phase_open || st->measure_log || !st->rank_selected || !(st->share > 0)
          || !ts_rule_sets_team (st->rule) || t >= st->rule->n_slots || t >= st->rule->value
          || st->work[t] != 0)
        continue;
      a->seconds += st->share / hr->speed;
      st->work[t] = -1; /* given */
    }
}

/* An across_threads rule on a burst of thread hr->thread in a team phase:
 * measured (its thread's share of the phase's record) or applied (its
 * thread's factor). Bursts outside a team (one thread) are left alone. */
static double
thread_rule_on_burst (TsHypothesisRank *hr, RuleState *st, double seconds)
{
  guint t = hr->thread;
  if (!st->phase_open || t >= st->rule->n_slots)
    return seconds;
  if (st->measure_log)
    {
      st->phase[t] += seconds;
      return seconds;
    }
  if (!st->rank_selected)
    return seconds;
  return seconds * st->phase[t];
}

static gboolean
enter_occurrence (TsHypothesisRank *hr, guint i, GError **error)
{
  RuleState *st = &hr->rules[i];
  if (st->rule->across_threads)
    return TRUE; /* its occurrences are team phases */
  st->visits++;
  st->occurrence_selected = ts_range_list_contains (st->rule->occurrences, st->visits);
  if (st->measure_log)
    {
      close_measure (hr, st);
      st->measuring_open = TRUE;
      st->measuring = st->ahead;
      st->ahead = 0;
      return TRUE;
    }
  if (st->peeked)
    {
      st->occurrence = st->next_occurrence;
      st->target = st->next_target;
      st->peeked = FALSE;
      return TRUE;
    }
  if (!st->rule->kind->per_occurrence || !st->durations)
    return TRUE; /* not prepared: per_occurrence kinds leave the bursts alone */
  GError *local = NULL;
  const double *d = ts_spool_reader_next (st->durations, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  const GArray *targets = st->rule->targets;
  st->occurrence = d ? *d : 0;
  st->target = targets && st->visits <= targets->len
                 ? g_array_index (targets, double, st->visits - 1) : NAN;
  return TRUE;
}

/* Rule @st on a burst of one of the rank's other threads, which belongs to
 * the visit after the rank's current one (RuleState.ahead). */
static double
ahead_on_burst (TsHypothesisRank *hr, RuleState *st, double seconds, GError **error)
{
  guint64 visit = st->visits + 1;
  if (st->measure_log)
    {
      st->ahead += seconds;
      return seconds;
    }
  if (!st->rank_selected || !ts_range_list_contains (st->rule->occurrences, visit))
    return seconds;
  if (!st->rule->kind->per_occurrence)
    return st->rule->kind->apply (st->rule, seconds, 0, NAN);
  if (!st->durations)
    return seconds;
  if (!st->peeked)
    {
      GError *local = NULL;
      const double *d = ts_spool_reader_next (st->durations, &local);
      if (local)
        {
          g_propagate_error (error, local);
          return seconds;
        }
      const GArray *targets = st->rule->targets;
      st->next_occurrence = d ? *d : 0;
      st->next_target = targets && visit <= targets->len
                          ? g_array_index (targets, double, visit - 1) : NAN;
      st->peeked = TRUE;
    }
  return st->rule->kind->apply (st->rule, seconds, st->next_occurrence, st->next_target);
}

/* Rule @i's turn on a compute burst now at @seconds: measured or applied. */
static double
rule_on_burst (TsHypothesisRank *hr, guint i, double seconds, GError **error)
{
  RuleState *st = &hr->rules[i];
  if (st->rule->across_threads)
    return thread_rule_on_burst (hr, st, seconds);
  if (hr->thread > 0)
    return ahead_on_burst (hr, st, seconds, error);
  if (st->measure_log)
    {
      if (st->measuring_open)
        st->measuring += seconds;
      return seconds;
    }
  if (!st->rank_selected || !st->occurrence_selected)
    return seconds;
  return st->rule->kind->apply (st->rule, seconds, st->occurrence, st->target);
}

/* A phase rule's turn on a burst of phase @phase: the first burst since
 * the rank's last MPI call opens an occurrence. */
static gboolean
phase_rule_on_burst (TsHypothesisRank *hr, guint i, gint phase, double *seconds, GError **error)
{
  RuleState *st = &hr->rules[i];
  if (phase < 0 || !st->rule->phase_matches[phase])
    return TRUE;
  if (st->phase_calls != hr->calls)
    {
      st->phase_calls = hr->calls;
      if (!enter_occurrence (hr, i, error))
        return FALSE;
    }
  *seconds = rule_on_burst (hr, i, *seconds, NULL); /* never across threads */
  return TRUE;
}

/* The rules covering a burst in @region of phase @phase (-1: none), in rule
 * order: those matching the region itself (not inclusive) merged with the
 * inclusive ones matching a region open around it and the phase rules. */
static gboolean
apply_to_burst (TsHypothesisRank *hr, guint32 region, gint phase, double *burst, GError **error)
{
  const TsHypotheses *h = hr->h;
  double seconds = *burst;
  guint k = 0, k_end = 0, j = 0, p = 0;
  if (region != G_MAXUINT32)
    {
      k = h->region_start[region];
      k_end = h->region_start[region + 1];
    }
  const GArray *inc = h->inclusive;
  GError *local = NULL;
  for (;;)
    {
      while (k < k_end && ((const TsRule *) g_ptr_array_index (h->rules, h->by_region[k]))->inclusive)
        k++;
      guint own = k < k_end ? h->by_region[k] : G_MAXUINT;
      guint incl = j < inc->len ? g_array_index (inc, guint, j) : G_MAXUINT;
      guint ph = p < h->phase_rules->len ? g_array_index (h->phase_rules, guint, p) : G_MAXUINT;
      guint i = MIN (MIN (own, incl), ph);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      if (i >= hr->n_rules)
        {
          *burst = seconds;
          return TRUE;
        }
      if (i == ph)
        {
          if (!phase_rule_on_burst (hr, i, phase, &seconds, error))
            return FALSE;
          p++;
        }
      else if (i == own)
        {
          seconds = rule_on_burst (hr, i, seconds, &local);
          k++;
        }
      else
        {
          if (ts_rule_covers (g_ptr_array_index (h->rules, i), hr->stack))
            seconds = rule_on_burst (hr, i, seconds, &local);
          j++;
        }
    }
}

gboolean
ts_hypothesis_rank_apply (TsHypothesisRank *hr, TsAction *a, GError **error)
{
  const TsHypotheses *h = hr->h;
  switch ((TsActionKind) a->kind)
    {
    case TS_ACTION_ENTER:
      g_array_append_val (hr->stack, a->region);
      if (h->phase_rules->len && ts_trace_region_call (h->trace, a->region) != TS_CALL_USER)
        hr->calls++;
      for (guint k = h->region_start[a->region]; k < h->region_start[a->region + 1]; k++)
        {
          guint i = h->by_region[k];
          if (i >= hr->n_rules)
            break;
          if (!enter_occurrence (hr, i, error))
            return FALSE;
        }
      return TRUE;
    case TS_ACTION_LEAVE:
      ts_region_stack_leave (hr->stack, a->region);
      return TRUE;
    case TS_ACTION_TEAM_BEGIN:
    case TS_ACTION_TEAM_BARRIER:
      for (guint i = 0; i < hr->n_rules; i++)
        {
          RuleState *st = &hr->rules[i];
          if (!st->rule->across_threads)
            continue;
          close_phase (hr, st);
          /* A barrier without a region is the team's end. */
          if ((a->kind == TS_ACTION_TEAM_BEGIN || a->region < ts_trace_n_regions (h->trace))
              && !open_phase (hr, st, error))
            return FALSE;
        }
      return TRUE;
    case TS_ACTION_TEAM_FORK:
      /* `threads = N` beyond the trace's team: N threads, each new one
       * taking its share of the phase's work. */
      for (guint i = 0; i < hr->n_rules; i++)
        {
          const RuleState *st = &hr->rules[i];
          if (st->phase_open && st->rank_selected && st->share > 0 && !st->measure_log
              && a->peer < (gint32) st->rule->value && ts_rule_sets_team (st->rule))
            {
              a->seconds += st->share / hr->speed;
              a->peer = MAX (a->peer, (gint32) st->rule->value);
            }
        }
      return TRUE;
    case TS_ACTION_COMPUTE:
      hr->thread = 0;
      if (!apply_to_burst (hr, a->region, h->phase_rules->len ? ts_hypotheses_phase_of (h, a) : -1,
                           &a->seconds, error))
        return FALSE;
      a->seconds /= hr->speed;
      return TRUE;
    case TS_ACTION_THREAD_COMPUTE:
      /* A thread's late wake-up is no work: no rule, speed or share. */
      if (a->flags & TS_ACTION_LATE_WAKE)
        return TRUE;
      /* Another thread's work in its region, as the rank's own would be
       * (the rank's open regions around it: the team's). */
      hr->thread = (guint) MAX (a->peer, 0);
      if (!apply_to_burst (hr, a->region, -1, &a->seconds, error))
        return FALSE;
      a->seconds /= hr->speed;
      give_share (hr, a);
      return TRUE;
    default:
      return TRUE;
    }
}

/* ---- preparing per-occurrence rules ---------------------------------------- */

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

/* One pass over every rank's actions with the rules before the batch's last
 * applied, logging the duration of each occurrence of every rule of the
 * batch; then their targets. */
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
      rule->durations = ts_spool_new (n, rule->n_slots * sizeof (double), 4096, error);
      if (!rule->durations)
        return FALSE;
    }
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (calibration, trace, error);
  if (!stream)
    return FALSE;
  guint last = g_array_index (b->rules, guint, b->rules->len - 1);
  gboolean ok = TRUE;
  for (guint r = 0; r < n && ok; r++)
    {
      TsHypothesisRank *hr = ts_hypothesis_rank_new (h, r, last + 1);
      for (guint k = 0; k < b->rules->len; k++)
        {
          RuleState *st = &hr->rules[g_array_index (b->rules, guint, k)];
          st->measure_log = st->rule->durations;
        }
      TsAction a;
      GError *local = NULL;
      while (ok && ts_action_stream_next (stream, r, &a, &local))
        ok = ts_hypothesis_rank_apply (hr, &a, &local);
      for (guint k = 0; k < b->rules->len; k++)
        {
          RuleState *st = &hr->rules[g_array_index (b->rules, guint, k)];
          close_measure (hr, st);
          if (st->rule->across_threads)
            close_phase (hr, st);
        }
      ts_hypothesis_rank_free (hr);
      if (local)
        {
          g_propagate_error (error, local);
          ok = FALSE;
        }
    }
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
