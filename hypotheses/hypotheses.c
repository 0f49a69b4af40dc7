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
  gboolean occurrence_selected;
  double occurrence;         /* prepared duration of the current occurrence */
  double target;             /* and what it should become */
  TsSpoolReader *durations;
  /* While preparing this rule, its durations are measured, not applied:
   * each occurrence's compute goes to this log. */
  TsSpool *measure_log;
  double measuring;
  gboolean measuring_open;
} RuleState;

struct TsHypothesisRank {
  const TsHypotheses *h;
  guint rank;
  double speed;              /* [hosts] speed: compute runs this much faster */
  GArray *stack;             /* guint32 open regions */
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
  g_free (h);
}

/* ---- binding to a trace -------------------------------------------------- */

/* Edit distance, for "did you mean". */
static guint
distance (const char *a, const char *b)
{
  guint la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);
  for (guint j = 0; j <= lb; j++)
    row[j] = j;
  for (guint i = 1; i <= la; i++)
    {
      guint diag = row[0];
      row[0] = i;
      for (guint j = 1; j <= lb; j++)
        {
          guint up = row[j];
          guint cost = g_ascii_tolower (a[i - 1]) == g_ascii_tolower (b[j - 1]) ? 0 : 1;
          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diag + cost);
          diag = up;
        }
    }
  return row[lb];
}

static int
compare_by_distance (gconstpointer a, gconstpointer b, gpointer pattern)
{
  guint da = distance (*(const char *const *) a, pattern);
  guint db = distance (*(const char *const *) b, pattern);
  return da < db ? -1 : da > db;
}

static gboolean
no_match (const TsRule *rule, const TsTrace *trace, GError **error)
{
  guint n = ts_trace_n_regions (trace);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (guint r = 0; r < n; r++)
    g_ptr_array_add (names, (gpointer) ts_trace_region_name (trace, r));
  g_ptr_array_sort_with_data (names, compare_by_distance, rule->pattern);
  g_autoptr (GString) near = g_string_new (NULL);
  for (guint k = 0; k < MIN (3u, names->len); k++)
    g_string_append_printf (near, "%s%s", k ? ", " : "",
                            (const char *) g_ptr_array_index (names, k));
  g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
               "%s:%u: [region:%.60s] matches no region of %s; closest names: %s", rule->origin,
               rule->line, rule->pattern, ts_trace_path (trace), near->str);
  return FALSE;
}

/* The ranks a rule names exist in the trace: one beyond it is a mistake (a
 * file written for another run), not a rule that selects less. */
static gboolean
check_ranks (const TsRule *rule, const TsTrace *trace, GError **error)
{
  guint n = ts_trace_n_ranks (trace);
  for (guint i = 0; rule->ranks && i < rule->ranks->len; i++)
    {
      const TsRange *r = &g_array_index (rule->ranks, TsRange, i);
      guint64 beyond = r->first >= n ? r->first : r->last != G_MAXUINT64 && r->last >= n ? r->last : 0;
      if (beyond)
        {
          g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
                       "%s:%u: [region:%.60s] ranks: there is no rank %" G_GUINT64_FORMAT
                       " in %s, which has %u (0-%u; an open range like 4- runs to the last)",
                       rule->origin, rule->line, rule->pattern, beyond, ts_trace_path (trace), n,
                       n - 1);
          return FALSE;
        }
    }
  return TRUE;
}

/* Per region, the rules matching it, in rule order. */
static void
index_rules (TsHypotheses *h, guint n_regions)
{
  g_free (h->region_start);
  g_free (h->by_region);
  g_clear_pointer (&h->inclusive, g_array_unref);
  h->region_start = g_new0 (guint, n_regions + 1);
  h->inclusive = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < h->rules->len; i++)
    {
      const TsRule *rule = g_ptr_array_index (h->rules, i);
      for (guint r = 0; r < n_regions; r++)
        h->region_start[r + 1] += rule->matches[r];
      if (rule->inclusive)
        g_array_append_val (h->inclusive, i);
    }
  for (guint r = 0; r < n_regions; r++)
    h->region_start[r + 1] += h->region_start[r];
  h->by_region = g_new (guint, h->region_start[n_regions] + 1);
  g_autofree guint *fill = g_memdup2 (h->region_start, n_regions * sizeof (guint));
  for (guint i = 0; i < h->rules->len; i++)
    {
      const TsRule *rule = g_ptr_array_index (h->rules, i);
      for (guint r = 0; r < n_regions; r++)
        if (rule->matches[r])
          h->by_region[fill[r]++] = i;
    }
}

gboolean
ts_hypotheses_bind (TsHypotheses *h, const TsTrace *trace, GError **error)
{
  guint n = ts_trace_n_regions (trace);
  for (guint i = 0; i < h->rules->len; i++)
    {
      TsRule *rule = g_ptr_array_index (h->rules, i);
      g_free (rule->matches);
      rule->matches = g_new0 (gboolean, n);
      rule->n_matched = 0;
      for (guint r = 0; r < n; r++)
        {
          GError *local = NULL;
          int m = ts_rule_selects (rule, ts_trace_region_name (trace, r), &local);
          if (m < 0)
            {
              g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_SYNTAX,
                           "%s:%u: [region:%.60s]: %s", rule->origin, rule->line, rule->pattern,
                           local->message);
              g_error_free (local);
              return FALSE;
            }
          rule->matches[r] = m;
          rule->n_matched += m;
        }
      if (rule->n_matched == 0)
        return no_match (rule, trace, error);
      if (!check_ranks (rule, trace, error))
        return FALSE;
    }
  index_rules (h, n);
  return TRUE;
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

double
ts_hypotheses_speed_factor (const TsHypotheses *h)
{
  return h->speed;
}

static void
append_ranges (GString *out, const char *what, const GArray *ranges)
{
  if (!ranges)
    return;
  g_string_append_printf (out, ", %s ", what);
  for (guint i = 0; i < ranges->len; i++)
    {
      const TsRange *r = &g_array_index (ranges, TsRange, i);
      g_string_append_printf (out, "%s%" G_GUINT64_FORMAT, i ? "," : "", r->first);
      if (r->last == G_MAXUINT64)
        g_string_append (out, "-");
      else if (r->last != r->first)
        g_string_append_printf (out, "-%" G_GUINT64_FORMAT, r->last);
    }
}

void
ts_hypotheses_describe (const TsHypotheses *h, const TsTrace *trace, GString *out)
{
  for (guint i = 0; i < h->rules->len; i++)
    {
      const TsRule *rule = g_ptr_array_index (h->rules, i);
      g_string_append_printf (out, "%s:%u: %s", rule->origin, rule->line, rule->kind->key);
      if (rule->kind->per_occurrence && rule->data)
        g_string_append_printf (out, " %s",
                                (const char *[]) { "mean", "median", "min", "max" }
                                  [GPOINTER_TO_UINT (rule->data) - 1]);
      else if (rule->kind->per_occurrence || strcmp (rule->kind->key, "scale") == 0)
        g_string_append_printf (out, " %g", rule->value);
      g_string_append_printf (out, " on the %s compute of", rule->inclusive ? "inclusive" : "own");
      guint shown = 0;
      for (guint r = 0; r < ts_trace_n_regions (trace) && rule->matches; r++)
        if (rule->matches[r] && shown++ < 8)
          g_string_append_printf (out, "%s %s", shown > 1 ? "," : "", ts_trace_region_name (trace, r));
      if (shown > 8)
        g_string_append_printf (out, " and %u more", shown - 8);
      append_ranges (out, "ranks", rule->ranks);
      append_ranges (out, "occurrences", rule->occurrences);
      g_string_append_c (out, '\n');
    }
  if (h->bandwidth != 1 || h->latency != 1)
    g_string_append_printf (out, "network: bandwidth x %g, latency x %g\n", h->bandwidth,
                            h->latency);
  if (h->speed != 1)
    g_string_append_printf (out, "hosts: compute %g x faster\n", h->speed);
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
      if (st->rule->kind->per_occurrence && st->rule->targets)
        st->durations = ts_spool_reader_new (st->rule->durations, rank);
    }
  return hr;
}

void
ts_hypothesis_rank_free (TsHypothesisRank *hr)
{
  if (!hr)
    return;
  for (guint i = 0; i < hr->n_rules; i++)
    ts_spool_reader_free (hr->rules[i].durations);
  g_array_unref (hr->stack);
  g_free (hr->rules);
  g_free (hr);
}

static gboolean
inclusive_covers (const TsRule *rule, const TsHypothesisRank *hr)
{
  for (guint d = 0; d < hr->stack->len; d++)
    if (rule->matches[g_array_index (hr->stack, guint32, d)])
      return TRUE;
  return FALSE;
}

static void
close_measure (TsHypothesisRank *hr, RuleState *st)
{
  if (st->measuring_open)
    ts_spool_append (st->measure_log, hr->rank, &st->measuring);
  st->measuring = 0;
  st->measuring_open = FALSE;
}

static gboolean
enter_occurrence (TsHypothesisRank *hr, guint i, GError **error)
{
  RuleState *st = &hr->rules[i];
  st->visits++;
  st->occurrence_selected = ts_range_list_contains (st->rule->occurrences, st->visits);
  if (st->measure_log)
    {
      close_measure (hr, st);
      st->measuring_open = TRUE;
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

/* Rule @i's turn on a compute burst now at @seconds: measured or applied. */
static double
rule_on_burst (TsHypothesisRank *hr, guint i, double seconds)
{
  RuleState *st = &hr->rules[i];
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

/* The rules covering a burst in @region, in rule order: those matching the
 * region itself (not inclusive) merged with the inclusive ones matching a
 * region open around it. */
static double
apply_to_burst (TsHypothesisRank *hr, guint32 region, double seconds)
{
  const TsHypotheses *h = hr->h;
  guint k = 0, k_end = 0, j = 0;
  if (region != G_MAXUINT32)
    {
      k = h->region_start[region];
      k_end = h->region_start[region + 1];
    }
  const GArray *inc = h->inclusive;
  for (;;)
    {
      while (k < k_end && ((const TsRule *) g_ptr_array_index (h->rules, h->by_region[k]))->inclusive)
        k++;
      guint own = k < k_end ? h->by_region[k] : G_MAXUINT;
      guint incl = j < inc->len ? g_array_index (inc, guint, j) : G_MAXUINT;
      guint i = MIN (own, incl);
      if (i >= hr->n_rules)
        return seconds;
      if (i == own)
        {
          seconds = rule_on_burst (hr, i, seconds);
          k++;
        }
      else
        {
          if (inclusive_covers (g_ptr_array_index (h->rules, i), hr))
            seconds = rule_on_burst (hr, i, seconds);
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
      {
        guint depth = hr->stack->len;
        while (depth > 0 && g_array_index (hr->stack, guint32, depth - 1) != a->region)
          depth--;
        if (depth > 0)
          g_array_set_size (hr->stack, depth - 1);
        return TRUE;
      }
    case TS_ACTION_COMPUTE:
      a->seconds = apply_to_burst (hr, a->region, a->seconds) / hr->speed;
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
  if (b->inclusive || rule->inclusive)
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
      b->inclusive |= rule->inclusive;
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
  for (guint k = 0; k < b->rules->len; k++)
    {
      TsRule *rule = g_ptr_array_index (h->rules, g_array_index (b->rules, guint, k));
      rule->durations = ts_spool_new (n, sizeof (double), 4096, error);
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
        close_measure (hr, &hr->rules[g_array_index (b->rules, guint, k)]);
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
      ok = ts_spool_finish (rule->durations, error) && compute_targets (rule, n, error);
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
