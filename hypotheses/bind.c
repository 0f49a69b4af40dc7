/* Binding hypotheses to a trace: region and phase patterns become the
 * regions and phases they select, refused with the closest names when they
 * select nothing, and with what to write instead when they select no
 * compute; and `tracesim hypotheses check`'s description of each rule. */
#include <config.h>

#define G_LOG_DOMAIN "ts-hypotheses"

#include "hypotheses/hypotheses.h"
#include "hypotheses/hypotheses-private.h"
#include "model/format.h"
#include "model/decode.h"

#include <string.h>

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

/* @names: the region or phase names the rule could have matched. */
static gboolean
no_match (const TsRule *rule, const TsTrace *trace, GPtrArray *all, GError **error)
{
  /* A copy that owns nothing: g_ptr_array_copy() would take @all's free
   * function too. */
  g_autoptr (GPtrArray) names = g_ptr_array_sized_new (all->len);
  g_ptr_array_extend (names, all, NULL, NULL);
  g_ptr_array_sort_with_data (names, compare_by_distance, rule->pattern);
  g_autoptr (GString) near = g_string_new (NULL);
  for (guint k = 0; k < MIN (3u, names->len); k++)
    g_string_append_printf (near, "%s%s", k ? ", " : "",
                            (const char *) g_ptr_array_index (names, k));
  g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
               "%s:%u: [%s:%.60s] matches no %s of %s; closest names: %s", rule->origin,
               rule->line, TS_RULE_SECTION (rule), rule->pattern, TS_RULE_SECTION (rule),
               ts_trace_path (trace), names->len ? near->str : "(none: the trace has no compute between MPI calls)");
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
                       "%s:%u: [%s:%.60s] ranks: there is no rank %" G_GUINT64_FORMAT
                       " in %s, which has %u (0-%u; an open range like 4- runs to the last)",
                       rule->origin, rule->line, TS_RULE_SECTION (rule), rule->pattern, beyond,
                       ts_trace_path (trace), n, n - 1);
          return FALSE;
        }
    }
  return TRUE;
}

/* A `threads = N` rule changes the thread teams of ranks that have them:
 * traced with more than one thread, or whose own location began a team
 * (an OpenMP parallel region run by one thread, from the calibration's
 * first pass). On a trace without any, it would change nothing, and is
 * refused rather than said to apply. */
/* A `threads = N` rule makes every team N threads: a thread with MPI of its
 * own in its rank's teams at N or beyond would be left out of them, and its
 * calls have no thread to go to: refused. (Below N, and under across =
 * threads, its work is read from its own stream, prepare.c.) */
static gboolean
check_team_streams (const TsRule *rule, const TsTrace *trace, GError **error)
{
  for (guint i = ts_trace_n_ranks (trace); i < ts_trace_n_streams (trace); i++)
    if (ts_trace_stream_in_teams (trace, i) && ts_trace_stream_thread (trace, i) >= rule->value)
      {
        g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
                     "%s:%u: [%s:%.60s] threads = %g: rank %u, thread %u calls MPI inside its "
                     "rank's thread teams, and the rule leaves it out of them: its calls would "
                     "have no thread to run on (not modelled; doc/threads.md)",
                     rule->origin, rule->line, TS_RULE_SECTION (rule), rule->pattern, rule->value,
                     ts_trace_stream_rank (trace, i), ts_trace_stream_thread (trace, i));
        return FALSE;
      }
  return TRUE;
}

static gboolean
check_teams (const TsRule *rule, const TsHypotheses *h, GError **error)
{
  if (ts_rule_sets_team (rule) && !check_team_streams (rule, h->trace, error))
    return FALSE;
  if (!ts_rule_sets_team (rule))
    return TRUE;
  const TsTrace *trace = h->trace;
  for (guint r = 0; r < ts_trace_n_ranks (trace); r++)
    if (h->calibration ? ts_calibration_rank_has_teams (h->calibration, trace, r)
                       : ts_trace_rank_n_threads (trace, r) >= 2)
      return TRUE;
  g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
               "%s:%u: [%s:%.60s] threads: no rank of %s ran a thread team (an OpenMP "
               "parallel region, THREAD_TEAM_BEGIN): a thread count what-if needs one",
               rule->origin, rule->line, TS_RULE_SECTION (rule), rule->pattern,
               ts_trace_path (trace));
  return FALSE;
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
ts_hypotheses_selects_region (const TsHypotheses *h, guint region)
{
  g_return_val_if_fail (h != NULL, FALSE);
  return h->region_start && h->trace && region < ts_trace_n_regions (h->trace)
         && h->region_start[region + 1] > h->region_start[region];
}

static guint64
phase_key (guint32 call, guint32 caller)
{
  return (guint64) call << 32 | caller;
}

gint
ts_hypotheses_phase_of (const TsHypotheses *h, const TsAction *a)
{
  guint32 call, caller;
  if (!h->phase_index || !ts_action_phase (a, &call, &caller))
    return -1;
  guint64 key = phase_key (call, caller);
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (h->phase_index, &key)) - 1;
}

/* A rule's pattern against each name; the matches in @matches. */
static gboolean
match_names (TsRule *rule, GPtrArray *names, gboolean *matches, GError **error)
{
  rule->n_matched = 0;
  rule->only_region = TS_NO_REGION;
  for (guint i = 0; i < names->len; i++)
    {
      GError *local = NULL;
      int m = ts_rule_selects (rule, names->pdata[i], &local);
      if (m < 0)
        {
          g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_SYNTAX,
                       "%s:%u: [%s:%.60s]: %s", rule->origin, rule->line,
                       TS_RULE_SECTION (rule), rule->pattern, local->message);
          g_error_free (local);
          return FALSE;
        }
      matches[i] = m;
      rule->n_matched += m;
      if (m && !rule->phase)
        rule->only_region = rule->n_matched == 1 ? i : TS_NO_REGION;
    }
  return TRUE;
}

/* The calibration's phases by name; and h->phase_index, from (call,
 * caller) to phase. Once per bind, at the first phase rule. */
static GPtrArray *
index_phases (TsHypotheses *h)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  guint n = ts_calibration_n_phases (h->calibration);
  h->phase_index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < n; i++)
    {
      const TsPhase *f = ts_calibration_phase (h->calibration, i);
      g_ptr_array_add (names, ts_trace_phase_name (h->trace, f->call, f->caller));
      guint64 key = phase_key (f->call, f->caller);
      g_hash_table_insert (h->phase_index, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (i + 1));
    }
  return names;
}

/* A rule that selects regions with no compute of their own changes
 * nothing: say why and what to write instead. Inclusive rules reach what
 * the regions call, which the first pass does not add up per region. */
static gboolean
check_selects_compute (const TsHypotheses *h, const TsRule *rule, GError **error)
{
  if (!h->calibration || rule->phase || rule->inclusive)
    return TRUE;
  double compute = 0;
  guint64 visits = 0;
  gboolean all_mpi = TRUE;
  const char *name = NULL;
  for (guint r = 0; r < ts_trace_n_regions (h->trace); r++)
    if (rule->matches[r])
      {
        compute += ts_calibration_region_compute (h->calibration, r);
        visits += ts_calibration_region_visits (h->calibration, r);
        all_mpi &= ts_trace_region_call (h->trace, r) != TS_CALL_USER;
        name = name ? name : ts_trace_region_name (h->trace, r);
      }
  if (compute > 0)
    return TRUE;
  const char *why
    = visits == 0 ? "it is never entered in the trace"
    : all_mpi ? "it is an MPI call, whose time is the communication and waiting the replay "
                "recomputes. For a faster network write [network] (bandwidth, latency); for "
                "the compute before a call, [phase:CALL*] (tracesim hypotheses check lists "
                "the phases)"
              : "all its time is in the regions it calls: add inclusive = true to change "
                "them too, or name them";
  g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
               "%s:%u: [region:%.60s] changes nothing: %s%s has no compute of its own (%"
               G_GUINT64_FORMAT " visits, 0 s of compute); %s", rule->origin, rule->line,
               rule->pattern, name, rule->n_matched > 1 ? " and the other regions it matches"
                                                         : "", visits, why);
  return FALSE;
}

static gboolean
bind_rule (TsHypotheses *h, TsRule *rule, GPtrArray *region_names, GPtrArray **phase_names,
           GError **error)
{
  guint n = region_names->len;
  g_free (rule->matches);
  rule->matches = g_new0 (gboolean, n);
  g_clear_pointer (&rule->phase_matches, g_free);
  if (rule->phase)
    {
      if (!h->calibration)
        {
          g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
                       "%s:%u: [phase:%.60s]: phases need the trace's first pass",
                       rule->origin, rule->line, rule->pattern);
          return FALSE;
        }
      if (!*phase_names)
        *phase_names = index_phases (h);
      GPtrArray *names = *phase_names;
      rule->phase_matches = g_new0 (gboolean, names->len + 1);
      if (!match_names (rule, names, rule->phase_matches, error))
        return FALSE;
      if (rule->n_matched == 0)
        return no_match (rule, h->trace, names, error);
    }
  else
    {
      if (!match_names (rule, region_names, rule->matches, error))
        return FALSE;
      if (rule->n_matched == 0)
        return no_match (rule, h->trace, region_names, error);
      if (!check_selects_compute (h, rule, error))
        return FALSE;
    }
  return check_ranks (rule, h->trace, error) && check_teams (rule, h, error);
}

gboolean
ts_hypotheses_bind (TsHypotheses *h, const TsTrace *trace, const TsCalibration *calibration,
                    GError **error)
{
  guint n = ts_trace_n_regions (trace);
  h->trace = trace;
  h->calibration = calibration;
  g_clear_pointer (&h->phase_index, g_hash_table_unref);
  if (h->phase_rules)
    g_array_set_size (h->phase_rules, 0);
  else
    h->phase_rules = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) region_names = g_ptr_array_new ();
  g_autoptr (GPtrArray) phase_names = NULL;
  for (guint r = 0; r < n; r++)
    g_ptr_array_add (region_names, (gpointer) ts_trace_region_name (trace, r));
  for (guint i = 0; i < h->rules->len; i++)
    {
      TsRule *rule = g_ptr_array_index (h->rules, i);
      if (!bind_rule (h, rule, region_names, &phase_names, error))
        return FALSE;
      if (rule->phase)
        g_array_append_val (h->phase_rules, i);
    }
  index_rules (h, n);
  return TRUE;
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

/* Add @a, a burst of a rank whose open regions are @stack, to the sum of
 * each inclusive rule that covers it, by the replay's own rule
 * (ts_rule_covers). */
static void
add_covered (const TsHypotheses *h, const GArray *stack, const TsAction *a, double *sums)
{
  for (guint k = 0; k < h->inclusive->len; k++)
    {
      guint i = g_array_index (h->inclusive, guint, k);
      if (ts_rule_covers (g_ptr_array_index (h->rules, i), stack))
        sums[i] += a->seconds;
    }
}

/* Per rule, the compute an inclusive rule changes: the bursts in a region
 * it selects or in any region called from one, seconds summed over ranks,
 * as traced (decoded as the first pass decodes them, so that a region
 * calling nothing gets its own compute); 0 for the other rules. The first
 * pass keeps only each region's own compute, hence one more pass over the
 * actions, made only when a rule is inclusive. NULL and @error if the
 * trace cannot be read; caller frees. */
static double *
inclusive_compute (const TsHypotheses *h, GError **error)
{
  g_autofree double *sums = g_new0 (double, h->rules->len);
  if (!h->inclusive || h->inclusive->len == 0)
    return g_steal_pointer (&sums);
  g_autoptr (TsDecoder) src = ts_decoder_open (h->trace, error);
  if (!src)
    return NULL;
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  GError *local = NULL;
  for (guint r = 0; r < ts_trace_n_ranks (h->trace) && !local; r++)
    {
      TsRankDecoder *s = ts_decoder_rank (src, r, NULL);
      g_array_set_size (stack, 0);
      TsAction a;
      while (ts_rank_decoder_next (s, &a, &local))
        if (a.kind == TS_ACTION_ENTER)
          g_array_append_val (stack, a.region);
        else if (a.kind == TS_ACTION_LEAVE)
          ts_region_stack_leave (stack, a.region);
        else if (a.kind == TS_ACTION_COMPUTE)
          add_covered (h, stack, &a, sums);
      ts_decoder_release (src, r);
    }
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  return g_steal_pointer (&sums);
}

/* What a rule selects: the names, then the ranges, then by the first pass
 * visits (bursts of a phase), ranks, and seconds of compute summed over
 * ranks: its own compute, or @inclusive (what inclusive_compute() found,
 * negative if it could not) for an inclusive rule. */
static void
describe_selection (const TsHypotheses *h, const TsRule *rule, double inclusive, GString *out)
{
  guint64 visits = 0, ranks = 0;
  double compute = 0;
  guint shown = 0;
  guint n = rule->phase ? ts_calibration_n_phases (h->calibration) : ts_trace_n_regions (h->trace);
  for (guint i = 0; i < n; i++)
    {
      if (!(rule->phase ? rule->phase_matches[i] : rule->matches[i]))
        continue;
      g_autofree char *name = NULL;
      if (rule->phase)
        {
          const TsPhase *f = ts_calibration_phase (h->calibration, i);
          visits += f->bursts;
          compute += f->compute;
          ranks = MAX (ranks, f->ranks);
          name = ts_trace_phase_name (h->trace, f->call, f->caller);
        }
      else
        {
          name = g_strdup (ts_trace_region_name (h->trace, i));
          if (h->calibration)
            {
              visits += ts_calibration_region_visits (h->calibration, i);
              compute += ts_calibration_region_compute (h->calibration, i);
            }
        }
      if (shown++ < 8)
        g_string_append_printf (out, "%s %s", shown > 1 ? "," : "", name);
    }
  if (shown > 8)
    g_string_append_printf (out, " and %u more", shown - 8);
  append_ranges (out, "ranks", rule->ranks);
  append_ranges (out, "occurrences", rule->occurrences);
  if (!h->calibration)
    return;
  /* The first pass adds regions up over ranks: a rule taking some ranks
   * or visits selects part of this. */
  g_string_append_printf (out, ": %" G_GUINT64_FORMAT " %s", visits,
                          rule->phase ? "bursts" : "visits");
  if (rule->phase)
    g_string_append_printf (out, " on %" G_GUINT64_FORMAT " rank(s)", ranks);
  g_autofree char *inclusive_s = ts_format_seconds (inclusive);
  g_autofree char *compute_s = ts_format_seconds (compute);
  if (rule->inclusive && inclusive >= 0)
    g_string_append_printf (out, ", %s of inclusive compute as traced (summed over all "
                                 "ranks; %s of it their own)", inclusive_s, compute_s);
  else
    g_string_append_printf (out, ", %s of %scompute as traced (summed over all ranks)",
                            compute_s, rule->inclusive ? "own " : "");
}

void
ts_hypotheses_describe (const TsHypotheses *h, const TsTrace *trace, GString *out)
{
  g_autoptr (GError) unread = NULL;
  g_autofree double *inclusive = h->calibration ? inclusive_compute (h, &unread) : NULL;
  if (unread)
    g_string_append_printf (out, "(inclusive compute not measured: %s)\n", unread->message);
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
      if (rule->across_threads)
        g_string_append (out, strcmp (rule->kind->key, "threads") == 0
                                ? " (each team phase's work spread over that many threads)"
                                : " across each rank's threads, team phase by team phase");
      if (rule->phase)
        g_string_append (out, " on the compute of the phase(s)");
      else
        g_string_append_printf (out, " on the %s compute of", rule->inclusive ? "inclusive" : "own");
      describe_selection (h, rule, inclusive ? inclusive[i] : -1, out);
      g_string_append_c (out, '\n');
    }
  if (h->latency == 0)
    g_string_append_printf (out, "network: ideal (no latency, bandwidth x %g)\n", h->bandwidth);
  else if (h->bandwidth != 1 || h->latency != 1)
    g_string_append_printf (out, "network: bandwidth x %g, latency x %g\n", h->bandwidth,
                            h->latency);
  if (h->speed != 1)
    g_string_append_printf (out, "hosts: compute %g x faster\n", h->speed);
  if (h->residual)
    g_string_append_printf (out, "residual: %s (what MPI calls spent beyond their cost, waiting "
                            "and transfer)\n", h->residual);
  if (h->mpi_progress)
    g_string_append_printf (out, "MPI progress: %s (when a rendezvous message moves)\n",
                            h->mpi_progress);
}

