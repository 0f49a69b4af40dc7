#include <config.h>

#define G_LOG_DOMAIN "ts-hypotheses"

#include "hypotheses/hypotheses.h"
#include "hypotheses/rule.h"
#include "model/stream.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (ts-hypotheses-error-quark, ts_hypotheses_error)

struct TsHypotheses {
  GPtrArray *rules;          /* TsRule*, in file order, files in load order */
  double bandwidth, latency, speed;
};

/* Per rule, per rank: where the rank is in the rule's occurrences. */
typedef struct {
  const TsRule *rule;
  gboolean rank_selected;
  guint64 visits;            /* occurrences entered so far */
  gboolean occurrence_selected;
  double occurrence;         /* prepared duration of the current occurrence */
  double target;             /* and what it should become */
  TsSpoolReader *durations;
  /* While preparing this rule: the current occurrence's compute so far. */
  double measuring;
  gboolean measuring_open;
} RuleState;

struct TsHypothesisRank {
  guint rank;
  double speed;              /* [hosts] speed: compute runs this much faster */
  GArray *stack;             /* guint32 open regions */
  RuleState *rules;
  guint n_rules;
  /* Preparing rule `measure` (or G_MAXUINT): its durations go to this log. */
  guint measure;
  TsSpool *measure_log;
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
  g_free (h);
}

/* ---- reading a file ------------------------------------------------------ */

/* GKeyFile has no line numbers and no trailing comments; the text is read
 * once here to strip "  # comment" tails (the hypothesis files of the docs
 * use them) and to remember the line of every section and key. */
typedef struct {
  const char *origin;
  GHashTable *lines;         /* "group" or "group\nkey" -> line */
} Source;

static char *
prepare_text (const char *text, Source *src)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);
  char *group = NULL;
  for (guint i = 0; lines[i]; i++)
    {
      char *line = lines[i];
      /* A '#' after blank space ends the value; a '#' first is a comment line. */
      char *hash = NULL;
      for (char *c = line; *c; c++)
        if (*c == '#' && (c == line || g_ascii_isspace (c[-1])))
          {
            hash = c;
            break;
          }
      if (hash)
        *hash = '\0';
      g_strchomp (line);
      char *s = line;
      while (g_ascii_isspace (*s))
        s++;
      if (*s == '[')
        {
          char *close = strrchr (s, ']');
          g_free (group);
          group = close ? g_strndup (s + 1, close - s - 1) : g_strdup (s + 1);
          g_hash_table_insert (src->lines, g_strdup (group), GUINT_TO_POINTER (i + 1));
        }
      else if (group && strchr (s, '='))
        {
          g_autofree char *key = g_strndup (s, strchr (s, '=') - s);
          g_strstrip (key);
          g_hash_table_insert (src->lines, g_strdup_printf ("%s\n%s", group, key),
                               GUINT_TO_POINTER (i + 1));
        }
      g_string_append (out, s);
      g_string_append_c (out, '\n');
    }
  g_free (group);
  return g_string_free (out, FALSE);
}

static guint
line_of (const Source *src, const char *group, const char *key)
{
  g_autofree char *k = key ? g_strdup_printf ("%s\n%s", group, key) : g_strdup (group);
  return GPOINTER_TO_UINT (g_hash_table_lookup (src->lines, k));
}

static gboolean
fail_at (GError **error, const Source *src, guint line, TsHypothesesError code, const char *fmt,
         ...) G_GNUC_PRINTF (5, 6);

static gboolean
fail_at (GError **error, const Source *src, guint line, TsHypothesesError code, const char *fmt,
         ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, TS_HYPOTHESES_ERROR, code, "%s:%u: %s", src->origin, line, msg);
  return FALSE;
}

/* A factor key of [network] or [hosts]: positive, multiplied in. */
static gboolean
read_factor (GKeyFile *kf, const Source *src, const char *group, const char *key, double *into,
             GError **error)
{
  g_autofree char *value = g_key_file_get_value (kf, group, key, NULL);
  char *end;
  double v = g_ascii_strtod (value, &end);
  guint line = line_of (src, group, key);
  if (*value == '\0' || *end != '\0' || !isfinite (v))
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s] %s: '%s' is not a number", group, key, value);
  if (v <= 0)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s] %s: a factor must be positive, not %s", group, key, value);
  *into *= v;
  return TRUE;
}

static gboolean
parse_machine (TsHypotheses *h, GKeyFile *kf, const Source *src, const char *group,
               const char *const *known, double *const *into, GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);
  for (guint k = 0; keys && keys[k]; k++)
    {
      guint i = 0;
      while (known[i] && strcmp (known[i], keys[k]) != 0)
        i++;
      if (!known[i])
        {
          g_autofree char *list = g_strjoinv (", ", (char **) known);
          return fail_at (error, src, line_of (src, group, keys[k]), TS_HYPOTHESES_ERROR_SYNTAX,
                          "unknown key '%s' in [%s] (known: %s)", keys[k], group, list);
        }
      if (!read_factor (kf, src, group, keys[k], into[i], error))
        return FALSE;
    }
  return TRUE;
}

/* One key of a [region:...] section: its rule kind and value, or a
 * qualifier (match, inclusive, ranks, occurrences). */
static gboolean
parse_rule_key (TsRule *rule, const Source *src, const char *group, const char *key,
                const char *value, guint kline, GError **error)
{
  GError *local = NULL;
  const TsRuleKind *kind = NULL;
  for (guint i = 0; ts_rule_kinds[i]; i++)
    if (strcmp (ts_rule_kinds[i]->key, key) == 0)
      kind = ts_rule_kinds[i];
  if (kind)
    {
      if (rule->kind)
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "[%s] has both '%s' and '%s': one kind of rule per section", group,
                        rule->kind->key, key);
      rule->kind = kind;
      kind->parse (rule, value, &local);
    }
  else if (strcmp (key, "match") == 0)
    {
      if (strcmp (value, "regex") != 0 && strcmp (value, "glob") != 0)
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "match takes glob or regex, not '%s'", value);
      rule->regex = strcmp (value, "regex") == 0;
    }
  else if (strcmp (key, "inclusive") == 0)
    {
      if (g_ascii_strcasecmp (value, "true") != 0 && g_ascii_strcasecmp (value, "false") != 0)
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "inclusive takes true or false, not '%s'", value);
      rule->inclusive = g_ascii_strcasecmp (value, "true") == 0;
    }
  else if (strcmp (key, "ranks") == 0)
    ts_range_list_parse (value, &rule->ranks, &local);
  else if (strcmp (key, "occurrences") == 0)
    {
      if (ts_range_list_parse (value, &rule->occurrences, &local)
          && ts_range_list_contains (rule->occurrences, 0))
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "occurrences count from 1 (the first visit), not 0");
    }
  else
    {
      g_autoptr (GString) known = g_string_new ("match, inclusive, ranks, occurrences");
      for (guint i = 0; ts_rule_kinds[i]; i++)
        g_string_append_printf (known, ", %s", ts_rule_kinds[i]->key);
      return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                      "unknown key '%s' in [%s] (known: %s)", key, group, known->str);
    }
  if (local)
    {
      fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX, "[%s] %s: %s", group, key,
               local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_region (TsHypotheses *h, GKeyFile *kf, const Source *src, const char *group,
              GError **error)
{
  guint line = line_of (src, group, NULL);
  const char *pattern = group + strlen ("region:");
  if (*pattern == '\0')
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[region:] needs a region name or pattern after the colon");
  TsRule *rule = g_new0 (TsRule, 1);
  rule->origin = g_strdup (src->origin);
  rule->line = line;
  rule->pattern = g_strdup (pattern);
  g_ptr_array_add (h->rules, rule); /* freed with h, even on error */

  g_auto (GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);
  for (guint k = 0; keys && keys[k]; k++)
    {
      g_autofree char *value = g_key_file_get_value (kf, group, keys[k], NULL);
      g_strstrip (value);
      if (!parse_rule_key (rule, src, group, keys[k], value, line_of (src, group, keys[k]),
                           error))
        return FALSE;
    }
  if (!rule->kind)
    {
      g_autoptr (GString) kinds = g_string_new (NULL);
      for (guint i = 0; ts_rule_kinds[i]; i++)
        g_string_append_printf (kinds, "%s%s", i ? ", " : "", ts_rule_kinds[i]->key);
      return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                      "[%s] says nothing to do: give one of %s", group, kinds->str);
    }
  if (rule->regex)
    {
      g_autoptr (GError) local = NULL;
      g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, &local);
      if (!re)
        return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX, "[%s]: bad regex: %s",
                        group, local->message);
    }
  return TRUE;
}

gboolean
ts_hypotheses_load_data (TsHypotheses *h, const char *text, const char *origin, GError **error)
{
  Source src = { origin, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL) };
  g_autofree char *clean = prepare_text (text, &src);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  GError *local = NULL;
  gboolean ok = g_key_file_load_from_data (kf, clean, -1, G_KEY_FILE_NONE, &local);
  if (!ok)
    {
      /* GKeyFile's messages carry the line already ("...on line 3"). */
      g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_SYNTAX, "%s: %s", origin,
                   local->message);
      g_error_free (local);
    }
  g_auto (GStrv) groups = ok ? g_key_file_get_groups (kf, NULL) : NULL;
  for (guint i = 0; ok && groups[i]; i++)
    {
      const char *g = groups[i];
      if (g_str_has_prefix (g, "region:"))
        ok = parse_region (h, kf, &src, g, error);
      else if (strcmp (g, "network") == 0)
        ok = parse_machine (h, kf, &src, g, (const char *const[]) { "bandwidth", "latency", NULL },
                            (double *const[]) { &h->bandwidth, &h->latency }, error);
      else if (strcmp (g, "hosts") == 0)
        ok = parse_machine (h, kf, &src, g, (const char *const[]) { "speed", NULL },
                            (double *const[]) { &h->speed }, error);
      else
        ok = fail_at (error, &src, line_of (&src, g, NULL), TS_HYPOTHESES_ERROR_SYNTAX,
                      "unknown section [%s] (known: [region:NAME], [network], [hosts])", g);
    }
  g_hash_table_unref (src.lines);
  return ok;
}

gboolean
ts_hypotheses_load_file (TsHypotheses *h, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  return ts_hypotheses_load_data (h, text, path, error);
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
      g_autoptr (GRegex) re = NULL;
      if (rule->regex)
        {
          g_autofree char *anchored = g_strdup_printf ("^(?:%s)$", rule->pattern);
          re = g_regex_new (anchored, 0, 0, NULL);
        }
      for (guint r = 0; r < n; r++)
        {
          const char *name = ts_trace_region_name (trace, r);
          gboolean m = re ? g_regex_match (re, name, 0, NULL)
                          : g_pattern_match_simple (rule->pattern, name);
          rule->matches[r] = m;
          rule->n_matched += m;
        }
      if (rule->n_matched == 0)
        {
          g_autoptr (GPtrArray) names = g_ptr_array_new ();
          for (guint r = 0; r < n; r++)
            g_ptr_array_add (names, (gpointer) ts_trace_region_name (trace, r));
          g_ptr_array_sort_with_data (names, compare_by_distance, rule->pattern);
          GString *near = g_string_new (NULL);
          for (guint k = 0; k < MIN (3u, names->len); k++)
            g_string_append_printf (near, "%s%s", k ? ", " : "",
                                    (const char *) g_ptr_array_index (names, k));
          g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_NO_MATCH,
                       "%s:%u: [region:%s] matches no region of %s; closest names: %s",
                       rule->origin, rule->line, rule->pattern, ts_trace_path (trace), near->str);
          g_string_free (near, TRUE);
          return FALSE;
        }
    }
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
  hr->rank = rank;
  hr->speed = n_rules >= h->rules->len ? h->speed : 1;
  hr->stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  hr->n_rules = MIN (n_rules, h->rules->len);
  hr->rules = g_new0 (RuleState, hr->n_rules + 1);
  hr->measure = G_MAXUINT;
  for (guint i = 0; i < h->rules->len && i <= hr->n_rules; i++)
    {
      RuleState *st = &hr->rules[i];
      st->rule = g_ptr_array_index (h->rules, i);
      st->rank_selected = ts_range_list_contains (st->rule->ranks, rank);
      st->target = NAN;
      if (i < hr->n_rules && st->rule->kind->per_occurrence && st->rule->durations)
        st->durations = ts_spool_reader_new (st->rule->durations, rank);
    }
  return hr;
}

void
ts_hypothesis_rank_free (TsHypothesisRank *hr)
{
  if (!hr)
    return;
  for (guint i = 0; i <= hr->n_rules; i++)
    ts_spool_reader_free (hr->rules[i].durations);
  g_array_unref (hr->stack);
  g_free (hr->rules);
  g_free (hr);
}

static gboolean
rule_covers (const RuleState *st, const TsHypothesisRank *hr, guint32 region)
{
  const TsRule *rule = st->rule;
  if (!rule->inclusive)
    return region != G_MAXUINT32 && rule->matches[region];
  for (guint d = 0; d < hr->stack->len; d++)
    if (rule->matches[g_array_index (hr->stack, guint32, d)])
      return TRUE;
  return FALSE;
}

static void
close_measure (TsHypothesisRank *hr)
{
  RuleState *st = &hr->rules[hr->measure];
  if (st->measuring_open)
    ts_spool_append (hr->measure_log, hr->rank, &st->measuring);
  st->measuring = 0;
  st->measuring_open = FALSE;
}

static gboolean
enter_occurrence (TsHypothesisRank *hr, guint i, GError **error)
{
  RuleState *st = &hr->rules[i];
  st->visits++;
  st->occurrence_selected = ts_range_list_contains (st->rule->occurrences, st->visits);
  if (i == hr->measure)
    {
      close_measure (hr);
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

gboolean
ts_hypothesis_rank_apply (TsHypothesisRank *hr, TsAction *a, GError **error)
{
  switch ((TsActionKind) a->kind)
    {
    case TS_ACTION_ENTER:
      g_array_append_val (hr->stack, a->region);
      for (guint i = 0; i < hr->n_rules || i == hr->measure; i++)
        if (hr->rules[i].rule->matches[a->region] && !enter_occurrence (hr, i, error))
          return FALSE;
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
      break;
    default:
      return TRUE;
    }
  double seconds = a->seconds;
  for (guint i = 0; i < hr->n_rules; i++)
    {
      RuleState *st = &hr->rules[i];
      if (!st->rank_selected || !st->occurrence_selected || !rule_covers (st, hr, a->region))
        continue;
      seconds = st->rule->kind->apply (st->rule, seconds, st->occurrence, st->target);
    }
  if (hr->measure != G_MAXUINT)
    {
      RuleState *st = &hr->rules[hr->measure];
      if (st->measuring_open && rule_covers (st, hr, a->region))
        st->measuring += seconds;
    }
  a->seconds = seconds / hr->speed;
  return TRUE;
}

/* ---- preparing per-occurrence rules ---------------------------------------- */

/* One pass over every rank's actions with the rules before @i applied,
 * logging the duration of each of rule @i's occurrences; then the target of
 * each occurrence from the selected ranks' durations, read in lockstep. */
static gboolean
prepare_rule (TsHypotheses *h, guint i, const TsTrace *trace, const TsCalibration *calibration,
              GError **error)
{
  TsRule *rule = g_ptr_array_index (h->rules, i);
  guint n = ts_calibration_n_ranks (calibration);
  rule->durations = ts_spool_new (n, sizeof (double), 4096, error);
  if (!rule->durations)
    return FALSE;
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (calibration, trace, error);
  if (!stream)
    return FALSE;
  gboolean ok = TRUE;
  for (guint r = 0; r < n && ok; r++)
    {
      TsHypothesisRank *hr = ts_hypothesis_rank_new (h, r, i);
      hr->measure = i;
      hr->measure_log = rule->durations;
      TsAction a;
      GError *local = NULL;
      while (ok && ts_action_stream_next (stream, r, &a, &local))
        ok = ts_hypothesis_rank_apply (hr, &a, &local);
      close_measure (hr);
      ts_hypothesis_rank_free (hr);
      if (local)
        {
          g_propagate_error (error, local);
          ok = FALSE;
        }
    }
  ok = ok && ts_spool_finish (rule->durations, error);
  if (!ok)
    return FALSE;

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

gboolean
ts_hypotheses_prepare (TsHypotheses *h, const TsTrace *trace, const TsCalibration *calibration,
                       GError **error)
{
  for (guint i = 0; i < h->rules->len; i++)
    {
      TsRule *rule = g_ptr_array_index (h->rules, i);
      if (rule->kind->per_occurrence && !rule->targets
          && !prepare_rule (h, i, trace, calibration, error))
        return FALSE;
    }
  return TRUE;
}
