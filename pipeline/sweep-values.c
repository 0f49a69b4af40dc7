#include <config.h>

#include "pipeline/sweep-values.h"
#include "model/fail.h"

#include <math.h>
#include <string.h>

#define invalid(error, ...) \
  ts_fail (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, __VA_ARGS__)

/* A finite number, all of @text. */
static gboolean
number (const char *text, double *v)
{
  char *end;
  *v = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && isfinite (*v);
}

/* A value as written in a range: integers stay integers ("16", not "16.0"). */
static char *
format_value (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (v == floor (v) && fabs (v) < 1e15)
    return g_strdup_printf ("%.0f", v);
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.12g", v));
}

/* "start:stop:step" or "start:stop:*factor". */
static char **
parse_range (const char *text, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ":", -1);
  double start, stop, step;
  gboolean geometric = g_strv_length (parts) == 3 && g_strstrip (parts[2])[0] == '*';
  if (g_strv_length (parts) != 3 || !number (g_strstrip (parts[0]), &start)
      || !number (g_strstrip (parts[1]), &stop) || !number (parts[2] + geometric, &step))
    {
      invalid (error, "'%s': a range is START:STOP:STEP or START:STOP:*FACTOR (e.g. 16:64:16, "
               "1:64:*2)", text);
      return NULL;
    }
  if (geometric ? !(step > 1 && start > 0) : !(step > 0))
    {
      invalid (error, geometric ? "'%s': a factor range needs a factor above 1 and a start above 0"
                                : "'%s': the step must be above 0", text);
      return NULL;
    }
  if (stop < start)
    {
      invalid (error, "'%s': the range ends before it starts", text);
      return NULL;
    }
  GPtrArray *values = g_ptr_array_new ();
  /* A step that lands on the end within rounding includes it. */
  double slack = geometric ? stop * 1e-9 : step * 1e-9;
  for (guint i = 0;; i++)
    {
      double v = geometric ? start * pow (step, i) : start + i * step;
      if (v > stop + slack)
        break;
      if (values->len >= TS_SWEEP_MAX_VALUES)
        {
          g_ptr_array_set_free_func (values, g_free);
          g_ptr_array_unref (values);
          invalid (error, "'%s': more than %u values", text, TS_SWEEP_MAX_VALUES);
          return NULL;
        }
      g_ptr_array_add (values, format_value (fabs (v - stop) <= slack ? stop : v));
    }
  g_ptr_array_add (values, NULL);
  return (char **) g_ptr_array_free (values, FALSE);
}

/* @text split at the commas outside double quotes; the quotes go. */
static char **
split_list (const char *text, GError **error)
{
  GPtrArray *parts = g_ptr_array_new ();
  GString *cur = g_string_new (NULL);
  gboolean quoted = FALSE;
  for (const char *c = text;; c++)
    {
      if (*c == '"')
        quoted = !quoted;
      else if ((*c == ',' && !quoted) || *c == '\0')
        {
          g_ptr_array_add (parts, g_string_free (cur, FALSE));
          if (*c == '\0')
            break;
          cur = g_string_new (NULL);
        }
      else
        g_string_append_c (cur, *c);
    }
  g_ptr_array_add (parts, NULL);
  char **v = (char **) g_ptr_array_free (parts, FALSE);
  if (quoted)
    {
      g_strfreev (v);
      invalid (error, "'%s': a double quote is not closed", text);
      return NULL;
    }
  return v;
}

char **
ts_sweep_values_parse (const char *text, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  if (*copy == '\0')
    {
      invalid (error, "no value");
      return NULL;
    }
  if (!strchr (copy, ',') && strchr (copy, ':') && *copy != '"')
    return parse_range (copy, error);
  g_auto (GStrv) parts = split_list (copy, error);
  if (!parts)
    return NULL;
  if (g_strv_length (parts) > TS_SWEEP_MAX_VALUES)
    {
      invalid (error, "more than %u values", TS_SWEEP_MAX_VALUES);
      return NULL;
    }
  for (guint i = 0; parts[i]; i++)
    if (*g_strstrip (parts[i]) == '\0')
      {
        invalid (error, "'%s': value %u is empty", copy, i + 1);
        return NULL;
      }
  return g_steal_pointer (&parts);
}

guint
ts_sweep_point (const guint *n_values, guint n, gboolean zip, guint point, guint *index)
{
  guint64 points = n ? 1 : 0;
  for (guint i = 0; i < n; i++)
    {
      if (zip && n_values[i] != n_values[0])
        return 0;
      points = zip ? n_values[0] : points * n_values[i];
      if (points > TS_SWEEP_MAX_POINTS)
        return 0;
    }
  if (point == G_MAXUINT)
    return (guint) points;
  g_return_val_if_fail (point < points, 0);
  /* The last parameter varies fastest, as nested loops over the file's order. */
  guint rest = point;
  for (guint i = n; i-- > 0;)
    {
      index[i] = zip ? point : rest % n_values[i];
      rest = zip ? rest : rest / n_values[i];
    }
  return (guint) points;
}

/* Each ${name} of @text in turn: @fn (name, line, data); FALSE stops. */
static gboolean
each_reference (const char *text, gboolean (*fn) (const char *, guint, const char *, gpointer),
                gpointer data)
{
  guint line = 1;
  for (const char *c = text; *c; c++)
    {
      if (*c == '\n')
        line++;
      if (c[0] == '$' && c[1] == '$')
        {
          c++; /* a literal '$' */
          continue;
        }
      if (c[0] != '$' || c[1] != '{')
        continue;
      const char *close = strchr (c + 2, '}');
      g_autofree char *name = close ? g_strndup (c + 2, close - c - 2) : NULL;
      if (!fn (name, line, c, data))
        return FALSE;
      if (close)
        c = close;
    }
  return TRUE;
}

static gint
name_index (const char *const *names, const char *name)
{
  for (guint i = 0; name && names[i]; i++)
    if (strcmp (names[i], name) == 0)
      return (gint) i;
  return -1;
}

typedef struct {
  const char *const *names;
  GPtrArray *unknown;
  GHashTable *seen;
} Unknown;

static gboolean
collect_unknown (const char *name, guint line, const char *at, gpointer data)
{
  Unknown *u = data;
  const char *shown = name ? name : "(unclosed)";
  if (name_index (u->names, name) < 0 && !g_hash_table_contains (u->seen, shown))
    {
      g_hash_table_add (u->seen, g_strdup (shown));
      g_ptr_array_add (u->unknown, g_strdup_printf ("%s:%u", shown, line));
    }
  return TRUE;
}

char **
ts_sweep_unknown_references (const char *text, const char *const *names)
{
  Unknown u = { names, g_ptr_array_new (), g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL) };
  each_reference (text, collect_unknown, &u);
  g_hash_table_unref (u.seen);
  g_ptr_array_add (u.unknown, NULL);
  return (char **) g_ptr_array_free (u.unknown, FALSE);
}

char *
ts_sweep_fill (const char *text, const char *origin, const char *const *names,
               const char *const *values, GError **error)
{
  g_auto (GStrv) unknown = ts_sweep_unknown_references (text, names);
  if (unknown[0])
    {
      const char *colon = strrchr (unknown[0], ':');
      g_autofree char *name = g_strndup (unknown[0], colon - unknown[0]);
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_NOT_FOUND,
                   "%s:%s: ${%s} names no parameter of the sweep", origin, colon + 1, name);
      return NULL;
    }
  GString *out = g_string_new (NULL);
  for (const char *c = text; *c; c++)
    {
      if (c[0] == '$' && c[1] == '$')
        {
          g_string_append_c (out, '$');
          c++;
          continue;
        }
      if (c[0] == '$' && c[1] == '{')
        {
          const char *close = strchr (c + 2, '}');
          g_autofree char *name = g_strndup (c + 2, close - c - 2);
          g_string_append (out, values[name_index (names, name)]);
          c = close;
          continue;
        }
      g_string_append_c (out, *c);
    }
  return g_string_free (out, FALSE);
}
