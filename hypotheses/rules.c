#include <config.h>

#include "hypotheses/rule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gboolean
parse_number (const char *value, double *out, gboolean allow_zero, GError **error)
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
  *out = v;
  return TRUE;
}

/* ---- scale: own compute time x factor ---- */

static gboolean
scale_parse (TsRule *rule, const char *value, GError **error)
{
  return parse_number (value, &rule->value, TRUE, error);
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
  return parse_number (value, &rule->value, TRUE, error);
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

const TsRuleKind *const ts_rule_kinds[] = { &scale_kind, &set_kind, &balance_kind, &remove_kind,
                                            NULL };

/* ---- rank and occurrence selections: "0-15,32", "100-" ---- */

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
  GArray *out = g_array_new (FALSE, FALSE, sizeof (TsRange));
  for (guint i = 0; parts[i]; i++)
    {
      char *part = g_strstrip (parts[i]);
      TsRange r;
      char *end;
      if (!g_ascii_isdigit (*part))
        goto bad;
      r.first = g_ascii_strtoull (part, &end, 10);
      r.last = r.first;
      if (*end == '-')
        {
          const char *rest = end + 1;
          if (*rest == '\0')
            r.last = G_MAXUINT64;
          else if (!g_ascii_isdigit (*rest))
            goto bad;
          else
            r.last = g_ascii_strtoull (rest, &end, 10);
        }
      if (r.last != G_MAXUINT64 && *end != '\0')
        goto bad;
      if (r.last < r.first)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "the range '%s' is empty (%" G_GUINT64_FORMAT " > %" G_GUINT64_FORMAT ")",
                       part, r.first, r.last);
          g_array_unref (out);
          return FALSE;
        }
      g_array_append_val (out, r);
      continue;
    bad:
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "'%s' is not a range list like 0-15,32 or 100-", text);
      g_array_unref (out);
      return FALSE;
    }
  *ranges = out;
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
