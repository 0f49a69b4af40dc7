#include <config.h>

#include "hypotheses/rule.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Beyond these a compute burst outgrows what the simulated clock resolves
 * (a microsecond in a double: about 9e9 s). */
#define TS_RULE_MAX_SCALE 1e6
#define TS_RULE_MAX_SECONDS 1e6

static gboolean
parse_number (const char *value, double *out, gboolean allow_zero, double max, GError **error)
{
  char *end;
  double v = g_ascii_strtod (value, &end);
  if (*value == '\0' || *end != '\0' || !isfinite (v))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "'%s' is not a number",
                   value);
      return FALSE;
    }
  if (v < 0 || (!allow_zero && v == 0))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s must be %s, not %s",
                   "the value", allow_zero ? "zero or positive" : "positive", value);
      return FALSE;
    }
  if (v > max)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s is more than %g", value,
                   max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* ---- scale: own compute time x factor ---- */

static gboolean
scale_parse (TsRule *rule, const char *value, GError **error)
{
  return parse_number (value, &rule->value, TRUE, TS_RULE_MAX_SCALE, error);
}

static double
scale_apply (const TsRule *rule, double seconds, double occurrence, double target)
{
  return seconds * rule->value;
}

static const TsRuleKind scale_kind = { "scale", FALSE, scale_parse, scale_apply, NULL, NULL };

/* ---- remove: duration 0 ---- */

static gboolean
remove_parse (TsRule *rule, const char *value, GError **error)
{
  if (g_ascii_strcasecmp (value, "true") != 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "remove takes 'true', not '%s'", value);
      return FALSE;
    }
  return TRUE;
}

static double
remove_apply (const TsRule *rule, double seconds, double occurrence, double target)
{
  return 0;
}

static const TsRuleKind remove_kind = { "remove", FALSE, remove_parse, remove_apply, NULL, NULL };

/* ---- per occurrence: a burst keeps its share of the occurrence ---- */

static double
occurrence_apply (const TsRule *rule, double seconds, double occurrence, double target)
{
  /* An occurrence with no compute cannot be stretched: it stays empty. */
  if (!(occurrence > 0) || isnan (target))
    return seconds;
  return seconds * (target / occurrence);
}

/* ---- set: every occurrence lasts the given seconds ---- */

static gboolean
set_parse (TsRule *rule, const char *value, GError **error)
{
  return parse_number (value, &rule->value, TRUE, TS_RULE_MAX_SECONDS, error);
}

static double
set_target (const TsRule *rule, double *durations, guint n)
{
  return rule->value;
}

static const TsRuleKind set_kind = { "set", TRUE, set_parse, occurrence_apply, set_target, NULL };

/* ---- balance: every selected rank takes the same duration ---- */

typedef enum { BALANCE_MEAN, BALANCE_MEDIAN, BALANCE_MIN, BALANCE_MAX } Balance;
static const char *const balance_names[] = { "mean", "median", "min", "max", NULL };

static gboolean
balance_parse (TsRule *rule, const char *value, GError **error)
{
  for (guint i = 0; balance_names[i]; i++)
    if (strcmp (value, balance_names[i]) == 0)
      {
        rule->data = GUINT_TO_POINTER (i + 1);
        return TRUE;
      }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "balance takes mean, median, min or max, not '%s'", value);
  return FALSE;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
balance_target (const TsRule *rule, double *d, guint n)
{
  double v = d[0];
  switch ((Balance) (GPOINTER_TO_UINT (rule->data) - 1))
    {
    case BALANCE_MEAN:
      v = 0;
      for (guint i = 0; i < n; i++)
        v += d[i];
      return v / n;
    case BALANCE_MEDIAN:
      qsort (d, n, sizeof *d, compare_double);
      return n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
    case BALANCE_MIN:
      for (guint i = 1; i < n; i++)
        v = MIN (v, d[i]);
      return v;
    case BALANCE_MAX:
      for (guint i = 1; i < n; i++)
        v = MAX (v, d[i]);
      return v;
    }
  return v;
}

static const TsRuleKind balance_kind
  = { "balance", TRUE, balance_parse, occurrence_apply, balance_target, NULL };

/* ---- threads: a team phase's work spread over a team of N threads ---- */

/* The phase's selected work, summed over the threads that ran it, split
 * evenly over N threads (a worksharing loop's iterations spread evenly
 * over the new team). Threads 0..N-1 of the trace take a share each;
 * those beyond N no longer exist and take none; threads the trace did not
 * have are forked with a share each and nothing else (sim/team.c). */
static gboolean
threads_parse (TsRule *rule, const char *value, GError **error)
{
  char *end;
  guint64 v = g_ascii_strtoull (value, &end, 10);
  if (*value == '\0' || *end != '\0' || v < 1 || v > 4096)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "threads takes a team size from 1 to 4096, not '%s'", value);
      return FALSE;
    }
  rule->value = (double) v;
  rule->across_threads = TRUE;
  return TRUE;
}

static double
threads_target (const TsRule *rule, double *d, guint n)
{
  double sum = 0;
  for (guint i = 0; i < n; i++)
    sum += d[i];
  return sum / rule->value;
}

static const TsRuleKind threads_kind
  = { "threads", TRUE, threads_parse, occurrence_apply, threads_target, NULL };

gboolean
ts_rule_sets_team (const TsRule *rule)
{
  return rule->kind == &threads_kind;
}

double
ts_rule_thread_factors (const TsRule *rule, const double *work, guint n, double *factor)
{
  /* The threads that ran the selected regions in this phase: one that did
   * not (a `single` elsewhere, a thread without iterations) cannot be
   * stretched, and its zero would pull a mean down. */
  g_autofree double *ran = g_new (double, n);
  guint m = 0;
  for (guint t = 0; t < n; t++)
    if (work[t] > 0)
      ran[m++] = work[t];
  double target = m ? rule->kind->target (rule, ran, m) : NAN;
  for (guint t = 0; t < n; t++)
    if (rule->kind == &threads_kind && t >= rule->value)
      factor[t] = 0;
    else
      factor[t] = work[t] > 0 && m ? target / work[t] : 1;
  return m ? target : 0;
}

const TsRuleKind *const ts_rule_kinds[] = { &scale_kind, &set_kind, &balance_kind, &remove_kind,
                                            &threads_kind, NULL };

/* ---- region patterns: globs and regular expressions ---- */

/* PCRE2 steps one region name may cost: a catastrophic pattern like
 * (a+)+$ fails on one name within milliseconds instead of minutes. */
#define TS_RULE_MATCH_LIMIT 100000
#define TS_RULE_DEPTH_LIMIT 10000

gboolean
ts_rule_compile (TsRule *rule, GError **error)
{
  int code;
  PCRE2_SIZE offset;
  /* Anchored at both ends by options, not by wrapping the text: \Q...
   * would quote the wrapping. */
  pcre2_code *re = pcre2_compile ((PCRE2_SPTR) rule->pattern, PCRE2_ZERO_TERMINATED,
                                  PCRE2_ANCHORED | PCRE2_ENDANCHORED, &code, &offset, NULL);
  if (!re)
    {
      PCRE2_UCHAR why[256];
      pcre2_get_error_message (code, why, sizeof why);
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "bad regex at character %zu: %s", (gsize) offset + 1,
                   (const char *) why);
      return FALSE;
    }
  rule->code = re;
  return TRUE;
}

int
ts_rule_selects (const TsRule *rule, const char *name, GError **error)
{
  if (rule->exact)
    return strcmp (rule->pattern, name) == 0;
  if (!rule->regex)
    {
      /* GLib's glob matching asserts on invalid UTF-8 (found by
       * tests/fuzz/fuzz-hypotheses): a trace's region names need not be. */
      if (g_utf8_validate (name, -1, NULL))
        return g_pattern_match_simple (rule->pattern, name);
      g_autofree char *valid = g_utf8_make_valid (name, -1);
      return g_pattern_match_simple (rule->pattern, valid);
    }
  pcre2_match_data *md = pcre2_match_data_create_from_pattern (rule->code, NULL);
  pcre2_match_context *mc = pcre2_match_context_create (NULL);
  pcre2_set_match_limit (mc, TS_RULE_MATCH_LIMIT);
  pcre2_set_depth_limit (mc, TS_RULE_DEPTH_LIMIT);
  int rc = pcre2_match (rule->code, (PCRE2_SPTR) name, strlen (name), 0, 0, md, mc);
  pcre2_match_context_free (mc);
  pcre2_match_data_free (md);
  if (rc >= 0)
    return 1;
  if (rc == PCRE2_ERROR_NOMATCH)
    return 0;
  PCRE2_UCHAR why[256];
  pcre2_get_error_message (rc, why, sizeof why);
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "the regular expression fails on the region '%.60s' (%s): simplify it", name,
               (const char *) why);
  return -1;
}

void
ts_rule_free_code (TsRule *rule)
{
  pcre2_code_free (rule->code);
  rule->code = NULL;
}

/* ---- rank and occurrence selections: "0-15,32", "100-" ---- */

/* One bound of a range: digits only, below 2^64 - 1 (which means open). */
static gboolean
parse_bound (const char *text, gsize n, guint64 *v, GError **error)
{
  g_autofree char *digits = g_strndup (text, n);
  for (const char *c = digits; *c; c++)
    if (!g_ascii_isdigit (*c))
      return FALSE;
  GError *local = NULL;
  if (!g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT64 - 1, v, &local))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "'%.40s' is too large",
                   digits);
      g_error_free (local);
    }
  return *digits != '\0';
}

gboolean
ts_range_list_parse (const char *text, GArray **ranges, GError **error)
{
  if (*text == '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "the list is empty (give e.g. 0-15,32 or 100-)");
      return FALSE;
    }
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (TsRange));
  for (guint i = 0; parts[i]; i++)
    {
      char *part = g_strstrip (parts[i]);
      const char *dash = strchr (part, '-');
      gsize n = dash ? (gsize) (dash - part) : strlen (part);
      TsRange r = { 0, G_MAXUINT64 };
      GError *local = NULL;
      gboolean ok = parse_bound (part, n, &r.first, &local);
      if (ok && !local && !dash)
        r.last = r.first;
      else if (ok && !local && dash[1] != '\0')
        ok = parse_bound (dash + 1, strlen (dash + 1), &r.last, &local);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      if (!ok)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "'%.60s' is not a range list like 0-15,32 or 100-", text);
          return FALSE;
        }
      if (r.last < r.first)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "the range '%s' is empty (%" G_GUINT64_FORMAT " > %" G_GUINT64_FORMAT ")",
                       part, r.first, r.last);
          return FALSE;
        }
      g_array_append_val (out, r);
    }
  *ranges = g_steal_pointer (&out);
  return TRUE;
}

gboolean
ts_range_list_contains (const GArray *ranges, guint64 v)
{
  if (!ranges)
    return TRUE;
  for (guint i = 0; i < ranges->len; i++)
    {
      const TsRange *r = &g_array_index (ranges, TsRange, i);
      if (v >= r->first && v <= r->last)
        return TRUE;
    }
  return FALSE;
}

void
ts_region_stack_leave (GArray *stack, guint32 region)
{
  guint depth = stack->len;
  while (depth > 0 && g_array_index (stack, guint32, depth - 1) != region)
    depth--;
  if (depth > 0)
    g_array_set_size (stack, depth - 1);
}
