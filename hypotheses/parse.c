#include <config.h>

#define G_LOG_DOMAIN "ts-hypotheses"

#include "hypotheses/hypotheses-private.h"
#include "model/key-line.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* Bounds on what a hypothesis file may be, so that a hostile one costs
 * milliseconds and kilobytes: a real file is a few dozen lines. */
#define TS_HYPOTHESES_MAX_BYTES (4u << 20)
#define TS_HYPOTHESES_MAX_LINE 4096
#define TS_HYPOTHESES_MAX_SECTION 1024

/* ---- reading a file ------------------------------------------------------ */

/* GKeyFile has no line numbers, no trailing comments, and merges what it
 * sees twice; the text is read once here, line by line: it strips "  #
 * comment" tails (the hypothesis files of the docs use them), remembers the
 * line of every section and key, and refuses what GKeyFile would take
 * silently or report without a line (a repeated section or key, a NUL byte,
 * a line that is neither) and what is too large to be a hypothesis file. */
typedef struct {
  const char *origin;
  GHashTable *lines;         /* "group" or "group\nkey" -> line */
  GPtrArray *groups;         /* the sections' names as written, in order */
} Source;

static gboolean fail_at (GError **error, const Source *src, guint line, TsHypothesesError code,
                         const char *fmt, ...) G_GNUC_PRINTF (5, 6);

/* A shortened copy of @s for a message. */
static char *
excerpt (const char *s)
{
  return strlen (s) > 60 ? g_strdup_printf ("%.57s...", s) : g_strdup (s);
}

static gboolean
scan_header (char *s, guint line, char **group, Source *src, GError **error)
{
  const char *close = ts_key_line_header_end (s);
  if (!close)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "a section header needs its closing ']'");
  if ((gsize) (close - s - 1) > TS_HYPOTHESES_MAX_SECTION)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "a section name of %zu characters (at most %u)", (gsize) (close - s - 1),
                    TS_HYPOTHESES_MAX_SECTION);
  g_free (*group);
  *group = g_strndup (s + 1, close - s - 1);
  if (!g_utf8_validate (*group, -1, NULL))
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "a section name that is not UTF-8 text");
  guint first = GPOINTER_TO_UINT (g_hash_table_lookup (src->lines, *group));
  if (first)
    {
      g_autofree char *name = excerpt (*group);
      return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                      "[%s] again (first at line %u): one section per name; to put two rules "
                      "on the same regions, use two files", name, first);
    }
  g_hash_table_insert (src->lines, g_strdup (*group), GUINT_TO_POINTER (line));
  g_ptr_array_add (src->groups, g_strdup (*group));
  return TRUE;
}

static gboolean
scan_key (char *s, guint line, const char *group, Source *src, GError **error)
{
  /* Its end-of-line comment goes: the rule every user key file follows. */
  ts_key_line_strip_comment (s);
  const char *eq = strchr (s, '=');
  if (!eq)
    {
      g_autofree char *what = excerpt (s);
      return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                      "'%s' is neither a [section], a key = value line nor a # comment", what);
    }
  if (!group)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "a key before the first [section]");
  g_autofree char *key = g_strstrip (g_strndup (s, eq - s));
  char *id = g_strdup_printf ("%s\n%s", group, key);
  guint first = GPOINTER_TO_UINT (g_hash_table_lookup (src->lines, id));
  if (first)
    {
      g_free (id);
      g_autofree char *name = excerpt (group);
      return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                      "'%s' again in [%s] (first at line %u): give each key once", key, name,
                      first);
    }
  g_hash_table_insert (src->lines, id, GUINT_TO_POINTER (line));
  return TRUE;
}

static guint
line_at (const char *text, const char *at)
{
  guint line = 1;
  for (const char *c = text; c < at; c++)
    line += *c == '\n';
  return line;
}

/* The text GKeyFile reads, or NULL and @error. */
static char *
scan_text (const char *text, gsize len, Source *src, GError **error)
{
  if (len > TS_HYPOTHESES_MAX_BYTES)
    {
      fail_at (error, src, 0, TS_HYPOTHESES_ERROR_SYNTAX,
               "%zu bytes: a hypothesis file holds at most %u MiB", len,
               TS_HYPOTHESES_MAX_BYTES >> 20);
      return NULL;
    }
  const char *nul = memchr (text, '\0', len);
  if (nul)
    {
      fail_at (error, src, line_at (text, nul), TS_HYPOTHESES_ERROR_SYNTAX,
               "a NUL byte: not a text file");
      return NULL;
    }
  GString *out = g_string_sized_new (len + 1);
  g_autofree char *group = NULL;
  guint line = 0;
  gboolean ok = TRUE;
  for (const char *p = text, *end = text + len; ok && p < end; line++)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize n = nl ? (gsize) (nl - p) : (gsize) (end - p);
      if (n > TS_HYPOTHESES_MAX_LINE)
        {
          ok = fail_at (error, src, line + 1, TS_HYPOTHESES_ERROR_SYNTAX,
                        "a line of %zu characters (at most %u)", n, TS_HYPOTHESES_MAX_LINE);
          break;
        }
      g_autofree char *copy = g_strndup (p, n);
      p = nl ? nl + 1 : end;
      char *s = g_strstrip (copy);
      if (*s == '[')
        ok = scan_header (s, line + 1, &group, src, error);
      else if (*s != '\0' && *s != '#')
        ok = scan_key (s, line + 1, group, src, error);
      /* GKeyFile refuses '[' and ']' in a section's name, which C++
       * names hold (operator[]): it sees each section by its number,
       * src->groups has its name. */
      if (ok && *s == '[')
        g_string_append_printf (out, "[%u]\n", src->groups->len - 1);
      else if (ok && *s != '#')
        g_string_append_printf (out, "%s\n", s);
    }
  if (!ok)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
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
         ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (line)
    g_set_error (error, TS_HYPOTHESES_ERROR, code, "%s:%u: %s", src->origin, line, msg);
  else
    g_set_error (error, TS_HYPOTHESES_ERROR, code, "%s: %s", src->origin, msg);
  return FALSE;
}

/* A factor key of [network] or [hosts]: positive, multiplied in. */
static gboolean
read_factor (GKeyFile *kf, const Source *src, const char *id, const char *group, const char *key,
             double *into, GError **error)
{
  g_autofree char *value = g_key_file_get_value (kf, id, key, NULL);
  char *end;
  double v = g_ascii_strtod (value, &end);
  guint line = line_of (src, group, key);
  if (*value == '\0' || *end != '\0' || !isfinite (v))
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s] %s: '%s' is not a number", group, key, value);
  if (v <= 0)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s] %s: a factor must be positive, not %s", group, key, value);
  if (v < TS_HYPOTHESES_MIN_FACTOR || v > TS_HYPOTHESES_MAX_FACTOR)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s] %s: %s is outside %g..%g", group, key, value, TS_HYPOTHESES_MIN_FACTOR,
                    TS_HYPOTHESES_MAX_FACTOR);
  if (*into * v < TS_HYPOTHESES_MIN_COMPOSED || *into * v > TS_HYPOTHESES_MAX_COMPOSED)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s] %s: with the files before, the factor becomes %g, outside %g..%g",
                    group, key, *into * v, TS_HYPOTHESES_MIN_COMPOSED,
                    TS_HYPOTHESES_MAX_COMPOSED);
  *into *= v;
  return TRUE;
}

/* [network] ideal = true: no latency and a bandwidth beyond what any
 * message notices (TS_HYPOTHESES_MAX_COMPOSED times the platform's: a
 * 10 Gbit/s link moves a gigabyte in under a nanosecond). */
static gboolean
read_ideal (TsHypotheses *h, GKeyFile *kf, const Source *src, const char *id, const char *group,
            const char *key, GError **error)
{
  g_autofree char *value = g_key_file_get_value (kf, id, key, NULL);
  g_strstrip (value);
  if (g_ascii_strcasecmp (value, "true") != 0 && g_ascii_strcasecmp (value, "false") != 0)
    return fail_at (error, src, line_of (src, group, key), TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s] ideal takes true or false, not '%s'", group, value);
  if (g_ascii_strcasecmp (value, "true") == 0)
    {
      h->latency = 0;
      h->bandwidth = TS_HYPOTHESES_MAX_COMPOSED;
    }
  return TRUE;
}

/* A section of one key that names a mode of the replay: [residual] mode =
 * pinned | noise | none, [mpi] progress = in-calls | async (the names of
 * sim/replay.h's TsResidual and TsMpiProgress, which the replay parses
 * again: tests/test-residual.sh and test-progress.sh run each through a
 * hypothesis file). */
static gboolean
parse_mode (GKeyFile *kf, const Source *src, const char *id, const char *group,
            const char *key, const char *const *modes, const char **into, GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, id, NULL, NULL);
  for (guint k = 0; keys && keys[k]; k++)
    {
      guint line = line_of (src, group, keys[k]);
      if (strcmp (keys[k], key) != 0)
        return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                        "unknown key '%s' in [%s] (known: %s)", keys[k], group, key);
      g_autofree char *value = g_key_file_get_value (kf, id, keys[k], NULL);
      g_strstrip (value);
      guint m = 0;
      while (modes[m] && strcmp (modes[m], value) != 0)
        m++;
      if (!modes[m])
        {
          /* "a, b or c" */
          guint n = g_strv_length ((char **) modes);
          g_autofree char *head = g_strjoinv (", ", (char **) modes);
          char *comma = n > 1 ? g_strrstr (head, ", ") : NULL;
          g_autofree char *known = comma ? g_strdup_printf ("%.*s or %s", (int) (comma - head),
                                                            head, comma + 2)
                                         : g_strdup (head);
          return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                          "[%s] %s takes %s, not '%s'", group, key, known, value);
        }
      *into = modes[m];
    }
  return TRUE;
}

static gboolean
parse_machine (TsHypotheses *h, GKeyFile *kf, const Source *src, const char *id,
               const char *group, const char *const *known, double *const *into, GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, id, NULL, NULL);
  for (guint k = 0; keys && keys[k]; k++)
    {
      guint i = 0;
      while (known[i] && strcmp (known[i], keys[k]) != 0)
        i++;
      if (!known[i] && into[0] == &h->bandwidth && strcmp (keys[k], "ideal") == 0)
        {
          if (!read_ideal (h, kf, src, id, group, keys[k], error))
            return FALSE;
          continue;
        }
      if (!known[i])
        {
          g_autofree char *list = g_strjoinv (", ", (char **) known);
          return fail_at (error, src, line_of (src, group, keys[k]), TS_HYPOTHESES_ERROR_SYNTAX,
                          "unknown key '%s' in [%s] (known: %s)", keys[k], group, list);
        }
      if (!read_factor (kf, src, id, group, keys[k], into[i], error))
        return FALSE;
    }
  return TRUE;
}

/* A rule kind's parsed value, before the section's rules are made. */
static void
parsed_free (gpointer p)
{
  TsRule *parsed = p;
  if (parsed->kind && parsed->kind->free)
    parsed->kind->free (parsed);
  g_free (parsed);
}

/* One key of a [region:...] or [phase:...] section: a rule kind and its
 * value (parsed into a TsRule appended to @kinds; the section's rules take
 * them once it is read) or a qualifier (match, inclusive, ranks,
 * occurrences) set on @rule. */
static gboolean
parse_rule_key (TsRule *rule, GPtrArray *kinds, const Source *src, const char *group,
                const char *key, const char *value, guint kline, GError **error)
{
  GError *local = NULL;
  const TsRuleKind *kind = NULL;
  for (guint i = 0; ts_rule_kinds[i]; i++)
    if (strcmp (ts_rule_kinds[i]->key, key) == 0)
      kind = ts_rule_kinds[i];
  if (kind)
    {
      TsRule *parsed = g_new0 (TsRule, 1);
      parsed->kind = kind;
      g_ptr_array_add (kinds, parsed);
      kind->parse (parsed, value, &local);
    }
  else if (strcmp (key, "match") == 0)
    {
      if (strcmp (value, "regex") != 0 && strcmp (value, "glob") != 0)
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "match takes glob or regex, not '%s'", value);
      rule->regex = strcmp (value, "regex") == 0;
      if (rule->regex && rule->exact)
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "[%s]: a name in double quotes is matched as written; match = regex "
                        "takes a pattern without them", group);
    }
  else if (strcmp (key, "inclusive") == 0)
    {
      if (g_ascii_strcasecmp (value, "true") != 0 && g_ascii_strcasecmp (value, "false") != 0)
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "inclusive takes true or false, not '%s'", value);
      if (rule->phase)
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "[%s]: a phase calls nothing, so inclusive means nothing for it", group);
      rule->inclusive = g_ascii_strcasecmp (value, "true") == 0;
    }
  else if (strcmp (key, "across") == 0)
    {
      if (strcmp (value, "ranks") != 0 && strcmp (value, "threads") != 0)
        return fail_at (error, src, kline, TS_HYPOTHESES_ERROR_SYNTAX,
                        "across takes ranks or threads, not '%s'", value);
      rule->across_threads = strcmp (value, "threads") == 0;
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
      g_autoptr (GString) known = g_string_new ("match, inclusive, ranks, occurrences, across");
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

/* The kinds one section may combine: at most one that sets each
 * occurrence's duration (set, balance, threads) and then scale; remove alone. The
 * rules apply in that order (balance, then scale), whatever the key order. */
static gboolean
check_kinds (GPtrArray *kinds, const Source *src, const char *group, guint line, GError **error)
{
  const TsRuleKind *per = NULL, *scale = NULL, *other = NULL;
  for (guint i = 0; i < kinds->len; i++)
    {
      const TsRuleKind *k = ((const TsRule *) kinds->pdata[i])->kind;
      const TsRuleKind **slot = k->per_occurrence ? &per : strcmp (k->key, "scale") == 0 ? &scale
                                                                                      : &other;
      /* The same slot twice, anything after remove, remove after anything. */
      const TsRuleKind *clash = *slot;
      if (!clash && other)
        clash = other;
      if (!clash && slot == &other && i > 0)
        clash = ((const TsRule *) kinds->pdata[0])->kind;
      if (clash)
        return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                        "[%s] has both '%s' and '%s': a section may combine one of set, "
                        "balance or threads with scale; write other rules in sections of their own", group,
                        clash->key, k->key);
      *slot = k;
    }
  if (kinds->len == 0)
    {
      g_autoptr (GString) names = g_string_new (NULL);
      for (guint i = 0; ts_rule_kinds[i]; i++)
        g_string_append_printf (names, "%s%s", i ? ", " : "", ts_rule_kinds[i]->key);
      return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                      "[%s] says nothing to do: give one of %s", group, names->str);
    }
  /* The per-occurrence kind first: scale then applies to what it set. */
  if (kinds->len == 2 && !((const TsRule *) kinds->pdata[0])->kind->per_occurrence)
    {
      gpointer first = kinds->pdata[0];
      kinds->pdata[0] = kinds->pdata[1];
      kinds->pdata[1] = first;
    }
  return TRUE;
}

/* Whether a section's kinds fit across = threads (or `threads`, which
 * implies it): the rank's threads share a team phase's target, so the
 * per-occurrence kind must be one that takes it from them. */
static gboolean
check_across (TsRule *first, GPtrArray *kinds, GKeyFile *kf, const char *id, const Source *src,
              const char *group, GError **error)
{
  const TsRule *per = kinds->len && ((const TsRule *) kinds->pdata[0])->kind->per_occurrence
                        ? kinds->pdata[0] : NULL;
  g_autofree char *across = g_key_file_get_value (kf, id, "across", NULL);
  guint line = line_of (src, group, across ? "across" : NULL);
  if (per && per->across_threads && across && strcmp (g_strstrip (across), "ranks") == 0)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s]: threads spreads a phase's work over a rank's threads; it cannot be "
                    "across = ranks", group);
  if (!first->across_threads && !(per && per->across_threads))
    return TRUE;
  if (!per || (first->across_threads && strcmp (per->kind->key, "balance") != 0))
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s]: across = threads goes with balance (each team phase's threads take "
                    "the mean, median, min or max of their work)%s", group,
                    per ? "" : "; there is none here");
  if (first->phase)
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s]: a phase is a rank's compute between MPI calls, on its own location; "
                    "a rank's threads share regions: write [region:...]", group);
  if (first->occurrences)
    return fail_at (error, src, line_of (src, group, "occurrences"), TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s]: across a rank's threads, every team phase is an occurrence of its "
                    "own; occurrences (visits of the region) do not apply", group);
  return TRUE;
}

/* A rule with @first's pattern and qualifiers. */
static TsRule *
rule_like (const TsRule *first)
{
  TsRule *rule = g_new0 (TsRule, 1);
  rule->origin = g_strdup (first->origin);
  rule->line = first->line;
  rule->pattern = g_strdup (first->pattern);
  rule->phase = first->phase;
  rule->regex = first->regex;
  rule->exact = first->exact;
  rule->inclusive = first->inclusive;
  rule->across_threads = first->across_threads;
  if (first->ranks)
    rule->ranks = g_array_copy (first->ranks);
  if (first->occurrences)
    rule->occurrences = g_array_copy (first->occurrences);
  return rule;
}

static gboolean
parse_region (TsHypotheses *h, GKeyFile *kf, const Source *src, const char *id,
              const char *group, gboolean phase, GError **error)
{
  guint line = line_of (src, group, NULL);
  const char *what = phase ? "phase" : "region";
  const char *pattern = strchr (group, ':') + 1;
  gsize len = strlen (pattern);
  /* "NAME" in double quotes: exactly that name, whose '*' and '?' are
   * characters of it (C++'s operator*), not wildcards. */
  gboolean exact = len >= 2 && pattern[0] == '"' && pattern[len - 1] == '"';
  if (*pattern == '\0' || (exact && len == 2))
    return fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX,
                    "[%s:] needs a %s name or pattern after the colon", what, what);
  TsRule *first = g_new0 (TsRule, 1);
  first->origin = g_strdup (src->origin);
  first->line = line;
  first->pattern = exact ? g_strndup (pattern + 1, len - 2) : g_strdup (pattern);
  first->exact = exact;
  first->phase = phase;
  g_ptr_array_add (h->rules, first); /* freed with h, even on error */

  g_autoptr (GPtrArray) kinds = g_ptr_array_new_with_free_func (parsed_free);
  gboolean ok = TRUE;
  g_auto (GStrv) keys = g_key_file_get_keys (kf, id, NULL, NULL);
  for (guint k = 0; ok && keys && keys[k]; k++)
    {
      g_autofree char *value = g_key_file_get_value (kf, id, keys[k], NULL);
      g_strstrip (value);
      ok = parse_rule_key (first, kinds, src, group, keys[k], value,
                           line_of (src, group, keys[k]), error);
    }
  ok = ok && check_kinds (kinds, src, group, line, error);
  ok = ok && check_across (first, kinds, kf, id, src, group, error);
  for (guint i = 0; ok && i < kinds->len; i++)
    {
      TsRule *parsed = kinds->pdata[i];
      TsRule *rule = i == 0 ? first : rule_like (first);
      if (i > 0)
        g_ptr_array_add (h->rules, rule);
      rule->kind = parsed->kind;
      rule->value = parsed->value;
      rule->data = parsed->data;
      rule->across_threads = (rule->across_threads || parsed->across_threads)
                             && rule->kind->per_occurrence;
      parsed->kind = NULL; /* its value is the rule's now */
      g_autoptr (GError) local = NULL;
      if (rule->regex && !ts_rule_compile (rule, &local))
        {
          g_autofree char *name = excerpt (group);
          ok = fail_at (error, src, line, TS_HYPOTHESES_ERROR_SYNTAX, "[%s]: %s", name,
                        local->message);
        }
    }
  return ok;
}

static gboolean
load_text (TsHypotheses *h, const char *text, gsize len, const char *origin, GError **error)
{
  Source src = { origin, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
                 g_ptr_array_new_with_free_func (g_free) };
  g_autofree char *clean = scan_text (text, len, &src, error);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  GError *local = NULL;
  gboolean ok = clean && g_key_file_load_from_data (kf, clean, -1, G_KEY_FILE_NONE, &local);
  if (!ok && local)
    {
      /* GKeyFile's messages carry the line already ("...on line 3"). */
      g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_SYNTAX, "%s: %s", origin,
                   local->message);
      g_error_free (local);
    }
  g_auto (GStrv) groups = ok ? g_key_file_get_groups (kf, NULL) : NULL;
  for (guint i = 0; ok && groups[i]; i++)
    {
      const char *id = groups[i];
      const char *g = src.groups->pdata[g_ascii_strtoull (id, NULL, 10)];
      if (g_str_has_prefix (g, "region:") || g_str_has_prefix (g, "phase:"))
        ok = parse_region (h, kf, &src, id, g, g_str_has_prefix (g, "phase:"), error);
      else if (strcmp (g, "network") == 0)
        ok = parse_machine (h, kf, &src, id, g,
                            (const char *const[]) { "bandwidth", "latency", NULL },
                            (double *const[]) { &h->bandwidth, &h->latency }, error);
      else if (strcmp (g, "hosts") == 0)
        ok = parse_machine (h, kf, &src, id, g, (const char *const[]) { "speed", NULL },
                            (double *const[]) { &h->speed }, error);
      else if (strcmp (g, "residual") == 0)
        ok = parse_mode (kf, &src, id, g, "mode",
                         (const char *const[]) { "pinned", "noise", "none", "scaled", NULL },
                         &h->residual, error);
      else if (strcmp (g, "mpi") == 0)
        ok = parse_mode (kf, &src, id, g, "progress",
                         (const char *const[]) { "in-calls", "async", NULL }, &h->mpi_progress,
                         error);
      else
        ok = fail_at (error, &src, line_of (&src, g, NULL), TS_HYPOTHESES_ERROR_SYNTAX,
                      "unknown section [%s] (known: [region:NAME], [phase:NAME], [network], "
                      "[hosts], [residual], [mpi])", g);
    }
  g_hash_table_unref (src.lines);
  g_ptr_array_unref (src.groups);
  return ok;
}

gboolean
ts_hypotheses_load_data (TsHypotheses *h, const char *text, const char *origin, GError **error)
{
  return load_text (h, text, strlen (text), origin, error);
}

gboolean
ts_hypotheses_load_bytes (TsHypotheses *h, const char *text, gsize len, const char *origin,
                          GError **error)
{
  return load_text (h, text, len, origin, error);
}

char *
ts_hypotheses_read_file (const char *path, gsize *len, GError **error)
{
  /* The size first: a file far too large is refused before it is read. */
  GStatBuf st;
  if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > TS_HYPOTHESES_MAX_BYTES)
    {
      g_set_error (error, TS_HYPOTHESES_ERROR, TS_HYPOTHESES_ERROR_SYNTAX,
                   "%s: %" G_GINT64_FORMAT " bytes: a hypothesis file holds at most %u MiB",
                   path, (gint64) st.st_size, TS_HYPOTHESES_MAX_BYTES >> 20);
      return NULL;
    }
  char *text = NULL;
  if (!g_file_get_contents (path, &text, len, error))
    return NULL;
  return text;
}

gboolean
ts_hypotheses_load_file (TsHypotheses *h, const char *path, GError **error)
{
  gsize len = 0;
  g_autofree char *text = ts_hypotheses_read_file (path, &len, error);
  return text && load_text (h, text, len, path, error);
}

