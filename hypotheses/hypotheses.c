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
  /* ... and the region it is given: that of the phase's longest selected
   * burst of another thread so far, or the rule's only region. */
  guint32 share_region;
  double share_burst;
  /* The rank's other threads' bursts belong to the visit its own thread
   * makes in their team phase, which comes after them (their work is
   * forked at the phase's start): measured ahead of it, or that visit's
   * duration and target read ahead (peeked). */
  double ahead;
  gboolean peeked;
  double next_occurrence, next_target;
  /* Measuring across_threads on a thread with MPI of its own: where its
   * phases go (TsStreamPhase; the caller's). On its rank: those of its
   * threads with MPI in its teams (Member), merged phase by phase. */
  GArray *phases_out;
  GArray *members;
} RuleState;

/* A thread of the rank with MPI of its own, seen from the rank measuring an
 * across_threads rule: its phases, and the teams of the rank it is in. */
typedef struct {
  guint thread;
  guint stream;
  const GArray *phases;      /* TsStreamPhase, in order */
  guint next;
  guint64 teams;             /* the rank's teams it has been in so far */
  gboolean matched;          /* it had a part in the phase being closed */
} Member;

struct TsHypothesisRank {
  const TsHypotheses *h;
  guint rank;
  guint stream;              /* the rank's, or a thread's with MPI of its own */
  guint own_thread;          /* that thread (0: the rank's own location) */
  gboolean burst_ahead;      /* the burst is another thread's, in the rank's stream */
  guint64 teams;             /* teams begun (a thread: those it is in) */
  guint team_phase;          /* the phase of the current team, from 1 */
  guint64 team_members;      /* the rank's current team, as traced (TEAM_BEGIN's bytes) */
  double speed;              /* [hosts] speed: compute runs this much faster */
  GArray *stack;             /* guint32 open regions */
  guint64 calls;             /* MPI calls entered, when rules select phases */
  guint thread;              /* the thread of the burst being rewritten (0: the rank's own) */
  guint32 region;            /* and its region */
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
ts_hypothesis_rank_new (const TsHypotheses *h, guint stream, guint n_rules)
{
  TsHypothesisRank *hr = g_new0 (TsHypothesisRank, 1);
  hr->h = h;
  hr->stream = stream;
  hr->rank = h->trace ? ts_trace_stream_rank (h->trace, stream) : stream;
  hr->own_thread = h->trace ? ts_trace_stream_thread (h->trace, stream) : 0;
  guint rank = hr->rank;
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
      /* A thread with MPI of its own has logs of its own for the phases
       * of its rank's teams; the rank's occurrences are the rank's
       * (preparing refuses rules across ranks that select its bursts). */
      if (st->rule->kind->per_occurrence && st->rule->targets
          && (stream == rank || st->rule->across_threads))
        st->durations = ts_spool_reader_new (st->rule->durations, stream);
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
      if (hr->rules[i].members)
        g_array_unref (hr->rules[i].members);
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
    ts_spool_append (st->measure_log, hr->stream, &st->measuring);
  st->measuring = 0;
  st->measuring_open = FALSE;
}

/* An empty record for the thread of @mb, for a phase of its that no
 * phase of its rank's took. */
static void
skip_phase (RuleState *st, const Member *mb)
{
  double *zero = g_alloca (st->rule->n_slots * sizeof (double));
  memset (zero, 0, st->rule->n_slots * sizeof (double));
  ts_spool_append (st->measure_log, mb->stream, zero);
}

/* Whether thread @k is in the rank's current team, as traced. */
static gboolean
team_has (const TsHypothesisRank *hr, guint k)
{
  return k >= 64 || (hr->team_members >> k & 1);
}

/* A team phase ends on the rank (a barrier, or its team's end or next
 * begin): each across_threads rule logs what it measured in it. Every
 * phase is logged, so that the replay reads them back one for one. */
static void
close_phase (TsHypothesisRank *hr, RuleState *st)
{
  if (st->phases_out && st->phase_open)
    {
      /* A thread with MPI: its rank merges this phase into its own. */
      TsStreamPhase p = { hr->teams, hr->team_phase,
                          hr->own_thread < st->rule->n_slots ? st->phase[hr->own_thread] : 0 };
      g_array_append_val (st->phases_out, p);
      memset (st->phase, 0, st->rule->n_slots * sizeof (double));
    }
  else if (st->measure_log && st->phase_open)
    {
      /* The rank's threads with MPI in this team add their part of the
       * phase; each that had one gets the whole phase's record too, to
       * read its factor from in the replay. */
      guint n_members = st->members ? st->members->len : 0;
      for (guint m = 0; m < n_members; m++)
        {
          Member *mb = &g_array_index (st->members, Member, m);
          mb->matched = FALSE;
          if (!team_has (hr, mb->thread))
            continue;
          /* Phases the rank has passed without the thread are not its:
           * each gets an empty record (factor 1), so that the thread
           * reads its records one for one with its phases. */
          const TsStreamPhase *p = NULL;
          for (; mb->next < mb->phases->len; mb->next++)
            {
              p = &g_array_index (mb->phases, TsStreamPhase, mb->next);
              if (p->team > mb->teams || (p->team == mb->teams && p->phase >= hr->team_phase))
                break;
              skip_phase (st, mb);
            }
          if (mb->next == mb->phases->len || p->team != mb->teams || p->phase != hr->team_phase)
            continue;
          if (mb->thread < st->rule->n_slots)
            st->phase[mb->thread] += p->work;
          mb->next++;
          mb->matched = TRUE;
        }
      ts_spool_append (st->measure_log, hr->stream, st->phase);
      for (guint m = 0; m < n_members; m++)
        {
          const Member *mb = &g_array_index (st->members, Member, m);
          if (mb->matched)
            ts_spool_append (st->measure_log, mb->stream, st->phase);
        }
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
  st->share_region = st->rule->only_region;
  st->share_burst = 0;
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
      if (a->region == TS_NO_REGION)
        a->region = st->share_region;
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
  if (hr->burst_ahead && seconds > st->share_burst)
    {
      st->share_burst = seconds;
      st->share_region = hr->region;
    }
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

/* A rule across ranks (set, balance) on a burst of a thread with MPI of
 * its own: whose occurrence it would be (the rank's visits are on another
 * stream) is not modelled, so one it selects is refused. */
static double
stream_occurrence (TsHypothesisRank *hr, RuleState *st, double seconds, GError **error)
{
  if (st->rank_selected)
    g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
                 "%s:%u: [%s:%.60s] %s: rank %u, thread %u runs the selected compute in a "
                 "stream of its own (it calls MPI), and a per-occurrence rule on such a thread "
                 "is not modelled: the occurrences are its rank's visits, on the rank's own "
                 "stream (balance across = threads is modelled, doc/threads.md)",
                 st->rule->origin, st->rule->line, TS_RULE_SECTION (st->rule), st->rule->pattern,
                 st->rule->kind->key, hr->rank, hr->own_thread);
  return seconds;
}

/* Rule @i's turn on a compute burst now at @seconds: measured or applied. */
static double
rule_on_burst (TsHypothesisRank *hr, guint i, double seconds, GError **error)
{
  RuleState *st = &hr->rules[i];
  if (st->rule->across_threads)
    return thread_rule_on_burst (hr, st, seconds);
  if (hr->burst_ahead)
    return ahead_on_burst (hr, st, seconds, error);
  if (hr->own_thread > 0 && st->rule->kind->per_occurrence)
    return stream_occurrence (hr, st, seconds, error);
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
  GError *local = NULL;
  *seconds = rule_on_burst (hr, i, *seconds, &local); /* never across threads */
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
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

/* The across_threads rules' phases close (@open FALSE) or open. */
static gboolean
team_phases (TsHypothesisRank *hr, gboolean open, GError **error)
{
  for (guint i = 0; i < hr->n_rules; i++)
    {
      RuleState *st = &hr->rules[i];
      if (!st->rule->across_threads)
        continue;
      if (!open)
        close_phase (hr, st);
      else if (!open_phase (hr, st, error))
        return FALSE;
    }
  return TRUE;
}

/* The rank begins a team of the threads in @members (bit k: thread k). */
static void
begin_team (TsHypothesisRank *hr, guint64 members)
{
  hr->teams++;
  hr->team_phase = 1;
  hr->team_members = members;
  for (guint i = 0; i < hr->n_rules; i++)
    for (guint m = 0; hr->rules[i].members && m < hr->rules[i].members->len; m++)
      {
        Member *mb = &g_array_index (hr->rules[i].members, Member, m);
        mb->teams += team_has (hr, mb->thread);
      }
}

/* A phase of the rank's team ends or begins: the rank's fork or barrier,
 * or a thread with MPI of its own beginning (THREAD_AWAIT) or ending
 * (THREAD_ARRIVE) its part of one. */
static gboolean
team_event (TsHypothesisRank *hr, const TsAction *a, GError **error)
{
  if (!team_phases (hr, FALSE, error))
    return FALSE;
  switch ((TsActionKind) a->kind)
    {
    case TS_ACTION_TEAM_BEGIN:
      begin_team (hr, a->bytes);
      return team_phases (hr, TRUE, error);
    case TS_ACTION_TEAM_BARRIER:
      /* A barrier without a region is the team's end. */
      hr->team_phase++;
      return a->region >= ts_trace_n_regions (hr->h->trace) || team_phases (hr, TRUE, error);
    case TS_ACTION_THREAD_AWAIT:
      if (a->peer == 1)
        hr->teams++, hr->team_phase = 1;
      else
        hr->team_phase++;
      return team_phases (hr, TRUE, error);
    default:
      return TRUE; /* THREAD_ARRIVE */
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
    case TS_ACTION_THREAD_AWAIT:
    case TS_ACTION_THREAD_ARRIVE:
      return team_event (hr, a, error);
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
              a->region = st->share_region;
            }
        }
      return TRUE;
    case TS_ACTION_COMPUTE:
      hr->region = a->region;
      hr->thread = hr->own_thread;
      hr->burst_ahead = FALSE;
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
      hr->region = a->region;
      hr->burst_ahead = TRUE;
      if (!apply_to_burst (hr, a->region, -1, &a->seconds, error))
        return FALSE;
      a->seconds /= hr->speed;
      give_share (hr, a);
      return TRUE;
    default:
      return TRUE;
    }
}

void
ts_hypothesis_rank_measure (TsHypothesisRank *hr, guint i, TsSpool *log, GArray *phases)
{
  g_return_if_fail (i < hr->n_rules);
  RuleState *st = &hr->rules[i];
  /* A thread's bursts are not occurrences of its rank's (refused where a
   * rule across ranks selects one). */
  if (hr->own_thread > 0 && !st->rule->across_threads)
    return;
  st->measure_log = log;
  st->phases_out = hr->own_thread > 0 ? phases : NULL;
}

void
ts_hypothesis_rank_add_thread (TsHypothesisRank *hr, guint i, guint thread, guint stream,
                               const GArray *phases)
{
  g_return_if_fail (i < hr->n_rules);
  RuleState *st = &hr->rules[i];
  if (!st->members)
    st->members = g_array_new (FALSE, TRUE, sizeof (Member));
  Member mb = { .thread = thread, .stream = stream, .phases = phases };
  g_array_append_val (st->members, mb);
}

void
ts_hypothesis_rank_end (TsHypothesisRank *hr)
{
  for (guint i = 0; i < hr->n_rules; i++)
    {
      RuleState *st = &hr->rules[i];
      if (!st->measure_log && !st->phases_out)
        continue;
      close_measure (hr, st);
      if (st->rule->across_threads)
        close_phase (hr, st);
      for (guint m = 0; st->members && m < st->members->len; m++)
        {
          Member *mb = &g_array_index (st->members, Member, m);
          for (; mb->next < mb->phases->len; mb->next++)
            skip_phase (st, mb);
        }
    }
}
