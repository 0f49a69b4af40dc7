#include <config.h>

#include "pipeline/sweep.h"
#include "pipeline/sweep-private.h"
#include "pipeline/sweep-values.h"
#include "sim/cluster.h"
#include "model/output_dir.h"
#include "model/key-line.h"

#include <glib/gstdio.h>
#include <string.h>

/* A sweep file is a few dozen lines. */
#define TS_SWEEP_MAX_BYTES (1u << 20)

/* Parameters passed to `run` options, by name ('-' may stand for '_'). */
static const char *const run_options[] = { "ranks_per_node", "placement", "trace_speed",
                                           "eager_threshold", "residual", "mpi_progress", NULL };

static void
input_clear (Input *in)
{
  g_free (in->path);
  g_free (in->text);
}

void
ts_sweep_free (TsSweep *s)
{
  if (!s)
    return;
  g_free (s->path);
  g_free (s->dir);
  g_free (s->trace);
  g_strfreev (s->inputs);
  input_clear (&s->hypothesis);
  input_clear (&s->platform);
  g_strfreev (s->labels);
  g_ptr_array_unref (s->names);
  g_ptr_array_unref (s->values);
  g_hash_table_unref (s->as_written);
  g_free (s);
}

/* The line of [@group] or of @key in it (the first), 1-based; 0 if none. */
static guint
line_of (const char *text, const char *group, const char *key)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean in_group = FALSE;
  for (guint i = 0; lines[i]; i++)
    {
      char *l = g_strstrip (lines[i]);
      if (*l == '[')
        {
          in_group = strlen (l) == strlen (group) + 2 && strncmp (l + 1, group, strlen (group)) == 0;
          if (in_group && !key)
            return i + 1;
          continue;
        }
      char *eq = strchr (l, '=');
      if (in_group && key && eq)
        {
          *eq = '\0';
          if (strcmp (g_strstrip (l), key) == 0)
            return i + 1;
        }
    }
  return 0;
}

static gboolean
fail_at (GError **error, const TsSweep *s, const char *text, const char *group, const char *key,
         const char *format, ...) G_GNUC_PRINTF (6, 7);
static gboolean
fail_at (GError **error, const TsSweep *s, const char *text, const char *group, const char *key,
         const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s:%u: %s", s->path,
               line_of (text, group, key), message);
  return FALSE;
}

static char *
resolve (TsSweep *s, const char *rel)
{
  char *path = g_path_is_absolute (rel) ? g_strdup (rel) : g_build_filename (s->dir, rel, NULL);
  g_hash_table_replace (s->as_written, g_strdup (path), g_strdup (rel));
  return path;
}

/* @path (resolved) as the sweep file writes it. */
const char *
ts_sweep_as_written (const TsSweep *s, const char *path)
{
  const char *written = g_hash_table_lookup (s->as_written, path);
  return written ? written : path;
}

gboolean
ts_sweep_is_run_option (const char *name)
{
  return g_strv_contains (run_options, name);
}

/* [sweep] hypothesis or platform: a list of files (a parameter named @key),
 * a template (holds ${...}) or one file. */
static gboolean
load_input (TsSweep *s, GKeyFile *kf, const char *text, const char *key, Input *in,
            GError **error)
{
  g_autofree char *value = g_key_file_get_string (kf, "sweep", key, NULL);
  if (!value)
    return TRUE;
  g_auto (GStrv) files = g_strsplit (value, ",", -1);
  for (guint i = 0; files[i]; i++)
    {
      char *path = resolve (s, g_strstrip (files[i]));
      g_free (files[i]);
      files[i] = path;
      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return fail_at (error, s, text, "sweep", key, "%s: no such file", path);
    }
  if (g_strv_length (files) > 1)
    {
      in->kind = INPUT_LIST;
      g_ptr_array_add (s->names, g_strdup (key));
      g_ptr_array_add (s->values, g_steal_pointer (&files));
      return TRUE;
    }
  in->path = g_strdup (files[0]);
  gsize len = 0;
  if (!g_file_get_contents (in->path, &in->text, &len, error))
    return FALSE;
  in->kind = strstr (in->text, "${") ? INPUT_TEMPLATE : INPUT_FILE;
  return TRUE;
}

static gboolean
load_parameters (TsSweep *s, GKeyFile *kf, const char *text, GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, "parameters", NULL, NULL);
  for (guint i = 0; keys && keys[i]; i++)
    {
      g_autofree char *value = g_key_file_get_string (kf, "parameters", keys[i], NULL);
      g_autoptr (GError) local = NULL;
      char **values = ts_sweep_values_parse (value ? value : "", &local);
      if (!values)
        return fail_at (error, s, text, "parameters", keys[i], "%s: %s", keys[i], local->message);
      g_autofree char *name = g_strdelimit (g_strdup (keys[i]), "-", '_');
      if (g_strcmp0 (name, "hypothesis") == 0 || g_strcmp0 (name, "platform") == 0)
        {
          g_strfreev (values);
          return fail_at (error, s, text, "parameters", keys[i],
                          "'%s' is the [sweep] key's own parameter: list its files there", name);
        }
      g_ptr_array_add (s->names, g_steal_pointer (&name));
      g_ptr_array_add (s->values, values);
    }
  return TRUE;
}

/* A run option from a parameter's value. */
gboolean
ts_sweep_set_option (TsRunOptions *o, const char *name, const char *value, GError **error)
{
  guint64 n;
  double d;
  char *end;
  gboolean ok = TRUE;
  if (g_str_equal (name, "ranks_per_node"))
    ok = g_ascii_string_to_unsigned (value, 10, 1, 1000000, &n, NULL)
         && (o->ranks_per_node = (guint) n);
  else if (g_str_equal (name, "placement"))
    ok = (o->placement_given = ts_placement_parse (value, &o->placement));
  else if (g_str_equal (name, "trace_speed"))
    ok = (d = g_ascii_strtod (value, &end), *end == '\0' && d > 0 && d < 1e18)
         && (o->trace_speed = d) > 0;
  else if (g_str_equal (name, "eager_threshold"))
    ok = g_ascii_string_to_unsigned (value, 10, 0, G_MAXINT64, &n, NULL)
         && ((o->eager_threshold = n), (o->eager_given = TRUE));
  else if (g_str_equal (name, "residual"))
    ok = (o->residual_given = ts_residual_parse (value, &o->residual));
  else if (g_str_equal (name, "mpi_progress"))
    ok = (o->mpi_progress_given = ts_mpi_progress_parse (value, &o->mpi_progress));
  if (!ok)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                 "%s = %s: not a value of run's option", name, value);
  return ok;
}

/* Every parameter goes somewhere, and every ${name} of a template is one. */
static gboolean
check_uses (TsSweep *s, const char *text, GError **error)
{
  g_ptr_array_add (s->names, NULL);
  const char *const *names = (const char *const *) s->names->pdata;
  const Input *templates[] = { &s->hypothesis, &s->platform };
  gboolean ok = TRUE;
  for (guint t = 0; t < 2 && ok; t++)
    if (templates[t]->kind == INPUT_TEMPLATE)
      {
        g_auto (GStrv) unknown = ts_sweep_unknown_references (templates[t]->text, names);
        if (unknown[0])
          {
            const char *colon = strrchr (unknown[0], ':');
            g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_NOT_FOUND,
                         "%s:%s: ${%.*s} names no parameter of %s", templates[t]->path,
                         colon + 1, (int) (colon - unknown[0]), unknown[0], s->path);
            ok = FALSE;
          }
      }
  for (guint i = 0; ok && names[i]; i++)
    {
      g_autofree char *ref = g_strdup_printf ("${%s}", names[i]);
      gboolean used = ts_sweep_is_run_option (names[i]) || g_str_equal (names[i], "hypothesis")
                      || (s->inputs && g_str_equal (names[i], "ranks"))
                      || g_str_equal (names[i], "platform")
                      || g_strv_contains ((const char *const *) s->labels, names[i]);
      for (guint t = 0; t < 2 && !used; t++)
        used = templates[t]->kind == INPUT_TEMPLATE && strstr (templates[t]->text, ref);
      if (!used)
        ok = fail_at (error, s, text, "parameters", names[i],
                      "%s is neither a run option (ranks_per_node, placement, trace_speed, "
                      "eager_threshold, residual, mpi_progress) nor used by a template as "
                      "${%s} nor one of the [sweep] labels", names[i], names[i]);
      /* A run option's values are checked now, not when their point runs. */
      const char *const *values = s->values->pdata[i];
      TsRunOptions scratch;
      g_autoptr (GError) local = NULL;
      for (guint v = 0; ok && ts_sweep_is_run_option (names[i]) && values[v]; v++)
        if ((ts_run_options_init (&scratch), !ts_sweep_set_option (&scratch, names[i], values[v], &local)))
          ok = fail_at (error, s, text, "parameters", names[i], "%s", local->message);
    }
  g_ptr_array_remove_index (s->names, s->names->len - 1);
  return ok;
}

/* [sweep] KEY = true | false, @absent when absent; anything else is refused. */
static gboolean
get_flag (TsSweep *s, GKeyFile *kf, const char *text, const char *key, gboolean absent,
          gboolean *flag, GError **error)
{
  g_autoptr (GError) local = NULL;
  *flag = absent;
  if (!g_key_file_has_key (kf, "sweep", key, NULL))
    return TRUE;
  *flag = g_key_file_get_boolean (kf, "sweep", key, &local);
  if (local)
    return fail_at (error, s, text, "sweep", key, "%s: give true or false", key);
  return TRUE;
}

/* [sweep] all_to_all = true, recursive_doubling = true (only with
 * extrapolate = ...). */
static gboolean
load_all_to_all (TsSweep *s, GKeyFile *kf, const char *text, gboolean extrapolated,
                 GError **error)
{
  static const char *const keys[] = { "all_to_all", "recursive_doubling" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (!extrapolated && g_key_file_has_key (kf, "sweep", keys[i], NULL))
      return fail_at (error, s, text, "sweep", keys[i], "%s is for extrapolate = ...", keys[i]);
  return get_flag (s, kf, text, "all_to_all", FALSE, &s->all_to_all, error)
         && get_flag (s, kf, text, "recursive_doubling", FALSE, &s->recursive_doubling, error);
}

/* [sweep] trace = T, or extrapolate = T1, T2, ... (and boundaries): the
 * points' trace, or the traces each point's rank count is extrapolated
 * from (the ranks parameter, checked by load_ranks). */
static gboolean
load_traces (TsSweep *s, GKeyFile *kf, const char *text, GError **error)
{
  g_autofree char *trace = g_key_file_get_string (kf, "sweep", "trace", NULL);
  g_autofree char *listed = g_key_file_get_string (kf, "sweep", "extrapolate", NULL);
  g_auto (GStrv) inputs = listed ? g_strsplit (listed, ",", -1) : NULL;
  if (trace && inputs)
    return fail_at (error, s, text, "sweep", "extrapolate",
                    "give the trace (trace = ...) or the traces to extrapolate from "
                    "(extrapolate = ...), not both");
  if (!trace && !inputs)
    return fail_at (error, s, text, "sweep", NULL,
                    "[sweep] needs the trace (trace = ...) or the traces to extrapolate from "
                    "(extrapolate = A, B, C and a ranks parameter)");
  g_autofree char *boundaries = g_key_file_get_string (kf, "sweep", "boundaries", NULL);
  if (boundaries && !inputs)
    return fail_at (error, s, text, "sweep", "boundaries",
                    "boundaries is for extrapolate = ...");
  if (boundaries && !ts_boundaries_parse (g_strstrip (boundaries), &s->boundaries))
    return fail_at (error, s, text, "sweep", "boundaries",
                    "boundaries = %s: give periodic or open", boundaries);
  g_autofree char *grid_order = g_key_file_get_string (kf, "sweep", "grid_order", NULL);
  if (grid_order && !inputs)
    return fail_at (error, s, text, "sweep", "grid_order", "grid_order is for extrapolate = ...");
  if (grid_order && !ts_grid_order_parse (g_strstrip (grid_order), &s->grid_order))
    return fail_at (error, s, text, "sweep", "grid_order",
                    "grid_order = %s: give largest-first, largest-last or the factors "
                    "each dimension takes (e.g. middle,largest,smallest)", grid_order);
  if (!load_all_to_all (s, kf, text, inputs != NULL, error))
    return FALSE;
  if (trace)
    {
      s->trace = resolve (s, g_strstrip (trace));
      if (!g_file_test (s->trace, G_FILE_TEST_IS_REGULAR))
        return fail_at (error, s, text, "sweep", "trace", "%s: no such trace", s->trace);
      return TRUE;
    }
  guint n = g_strv_length (inputs);
  if (n < 2)
    return fail_at (error, s, text, "sweep", "extrapolate",
                    "extrapolate = needs traces at two rank counts or more");
  s->inputs = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      s->inputs[i] = resolve (s, g_strstrip (inputs[i]));
      if (!g_file_test (s->inputs[i], G_FILE_TEST_IS_REGULAR))
        return fail_at (error, s, text, "sweep", "extrapolate", "%s: no such trace",
                        s->inputs[i]);
    }
  return TRUE;
}

/* With extrapolate, a parameter ranks of rank counts (and only then). */
static gboolean
load_ranks (TsSweep *s, const char *text, GError **error)
{
  for (guint i = 0; i < s->names->len; i++)
    if (g_str_equal (g_ptr_array_index (s->names, i), "ranks"))
      {
        if (!s->inputs)
          return fail_at (error, s, text, "parameters", "ranks",
                          "ranks needs the traces to extrapolate from ([sweep] extrapolate = "
                          "A, B, C): one trace has one rank count");
        const char *const *values = g_ptr_array_index (s->values, i);
        for (guint v = 0; values[v]; v++)
          {
            guint64 p;
            if (!g_ascii_string_to_unsigned (values[v], 10, 1, TS_SWEEP_MAX_RANKS, &p, NULL))
              return fail_at (error, s, text, "parameters", "ranks",
                              "ranks = %s: give rank counts from 1 to %u", values[v],
                              TS_SWEEP_MAX_RANKS);
          }
        return TRUE;
      }
  if (s->inputs)
    return fail_at (error, s, text, "sweep", "extrapolate",
                    "extrapolate = ... needs a parameter ranks: the rank counts to predict");
  return TRUE;
}


/* Two points of the same values would be one directory (a point's name is
 * its values; run at once, both would write it): refused, naming the
 * first parameter whose place differs between them, whose list repeats the
 * value (zipped lists each repeat theirs). */
static gboolean
check_distinct (const TsSweep *s, const char *text, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n = s->values->len;
  g_autofree guint *counts = g_new (guint, MAX (n, 1));
  g_autofree guint *at = g_new (guint, MAX (n, 1));
  g_autofree guint *first_at = g_new (guint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    counts[i] = g_strv_length (g_ptr_array_index (s->values, i));
  for (guint p = 0; p < s->n_points; p++)
    {
      char *name = ts_sweep_point_name (s, p);
      gpointer first;
      if (!g_hash_table_lookup_extended (seen, name, NULL, &first))
        {
          g_hash_table_insert (seen, name, GUINT_TO_POINTER (p));
          continue;
        }
      g_free (name);
      ts_sweep_point (counts, n, s->zip, GPOINTER_TO_UINT (first), first_at);
      ts_sweep_point (counts, n, s->zip, p, at);
      guint i = 0;
      while (i + 1 < n && at[i] == first_at[i])
        i++;
      const char *param = s->names->pdata[i];
      gboolean listed = g_str_equal (param, "hypothesis") || g_str_equal (param, "platform");
      g_autofree char *label = ts_sweep_point_label (s, p);
      return fail_at (error, s, text, listed ? "sweep" : "parameters", param,
                      "%s = %s twice: points %u and %u would be one (%s); give each value once",
                      param, ts_sweep_key_value (s, p, i), GPOINTER_TO_UINT (first), p, label);
    }
  return TRUE;
}

static gboolean
load_text (TsSweep *s, const char *text, gsize len, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  if (!g_key_file_load_from_data (kf, text, len, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE, "%s: %s", s->path,
                   local->message);
      return FALSE;
    }
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  for (guint i = 0; groups[i]; i++)
    if (!g_str_equal (groups[i], "sweep") && !g_str_equal (groups[i], "parameters"))
      return fail_at (error, s, text, groups[i], NULL, "unknown section [%s] ([sweep], [parameters])",
                      groups[i]);
  static const char *const sweep_keys[] = { "trace", "extrapolate", "boundaries", "grid_order",
                                            "all_to_all", "recursive_doubling",
                                            "hypothesis", "platform", "zip", "labels",
                                            "baseline", "wait_states", "archive", "cpu_time",
                                            NULL };
  g_auto (GStrv) keys = g_key_file_get_keys (kf, "sweep", NULL, NULL);
  for (guint i = 0; keys && keys[i]; i++)
    if (!g_strv_contains (sweep_keys, keys[i]))
      return fail_at (error, s, text, "sweep", keys[i],
                      "unknown key '%s' in [sweep] (trace, extrapolate, boundaries, grid_order, "
                      "all_to_all, recursive_doubling, "
                      "hypothesis, platform, zip, labels, baseline, wait_states, archive, "
                      "cpu_time)", keys[i]);
  if (!load_traces (s, kf, text, error))
    return FALSE;
  s->zip = g_key_file_get_boolean (kf, "sweep", "zip", NULL);
  gboolean cpu; /* TS_CPU_TIME_AUTO when the file is silent */
  if (!get_flag (s, kf, text, "wait_states", TRUE, &s->wait_states, error)
      || !get_flag (s, kf, text, "archive", TRUE, &s->archive, error)
      || !get_flag (s, kf, text, "cpu_time", TS_CPU_TIME_AUTO, &cpu, error))
    return FALSE;
  s->cpu_time = (TsCpuTime) cpu;
  if (s->wait_states && !s->archive)
    return fail_at (error, s, text, "sweep", "archive",
                    "archive = false needs wait_states = false: the predicted wait states are "
                    "found in the predicted archive");
  s->labels = g_key_file_get_string_list (kf, "sweep", "labels", NULL, NULL);
  if (!s->labels)
    s->labels = g_new0 (char *, 1);
  for (guint i = 0; s->labels[i]; i++)
    g_strdelimit (g_strstrip (s->labels[i]), "-", '_');
  if (!load_input (s, kf, text, "hypothesis", &s->hypothesis, error)
      || !load_input (s, kf, text, "platform", &s->platform, error)
      || !load_parameters (s, kf, text, error) || !load_ranks (s, text, error)
      || !check_uses (s, text, error))
    return FALSE;
  g_autofree guint *counts = g_new (guint, MAX (s->values->len, 1));
  for (guint i = 0; i < s->values->len; i++)
    counts[i] = g_strv_length (g_ptr_array_index (s->values, i));
  s->n_points = s->values->len ? ts_sweep_point (counts, s->values->len, s->zip, G_MAXUINT, NULL) : 1;
  if (s->n_points == 0)
    return fail_at (error, s, text, "parameters", NULL,
                    s->zip ? "zipped parameters need lists of the same length"
                           : "more than %u points", TS_SWEEP_MAX_POINTS);
  s->baseline = G_MAXUINT;
  g_autofree char *baseline = g_key_file_get_string (kf, "sweep", "baseline", NULL);
  guint64 b;
  if (baseline
      && !g_ascii_string_to_unsigned (g_strstrip (baseline), 10, 0, s->n_points - 1, &b, NULL))
    return fail_at (error, s, text, "sweep", "baseline",
                    "baseline = %s: give the number of a point, 0 to %u", baseline,
                    s->n_points - 1);
  if (baseline)
    s->baseline = (guint) b;
  return check_distinct (s, text, error);
}

TsSweep *
ts_sweep_load (const char *path, GError **error)
{
  TsSweep *s = g_new0 (TsSweep, 1);
  s->path = g_strdup (path);
  s->dir = g_path_get_dirname (path);
  s->names = g_ptr_array_new_with_free_func (g_free);
  s->values = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  s->as_written = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GStatBuf st;
  g_autofree char *text = NULL;
  gsize len = 0;
  if (g_stat (path, &st) == 0 && st.st_size > TS_SWEEP_MAX_BYTES)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %" G_GINT64_FORMAT
                 " bytes: a sweep file holds at most 1 MiB", path, (gint64) st.st_size);
  else if (g_file_get_contents (path, &text, &len, error))
    {
      /* A NUL byte ends the text, as it does GKeyFile's. */
      g_autofree char *bare = ts_key_text_uncomment (text);
      if (load_text (s, bare, strlen (bare), error))
        return s;
    }
  ts_sweep_free (s);
  return NULL;
}

const char *ts_sweep_trace (const TsSweep *s) { return s->trace; }
const char *const *ts_sweep_extrapolation_inputs (const TsSweep *s)
{
  return (const char *const *) s->inputs;
}
TsBoundaries ts_sweep_boundaries (const TsSweep *s) { return s->boundaries; }
TsGridOrder ts_sweep_grid_order (const TsSweep *s) { return s->grid_order; }
gboolean ts_sweep_all_to_all (const TsSweep *s) { return s->all_to_all; }
gboolean ts_sweep_recursive_doubling (const TsSweep *s) { return s->recursive_doubling; }
TsCpuTime ts_sweep_cpu_time (const TsSweep *s) { return s->cpu_time; }

guint
ts_sweep_point_ranks (const TsSweep *s, guint point)
{
  for (guint i = 0; s->inputs && i < s->names->len; i++)
    if (g_str_equal (g_ptr_array_index (s->names, i), "ranks"))
      return (guint) g_ascii_strtoull (ts_sweep_value (s, point, i), NULL, 10);
  return 0;
}
guint ts_sweep_baseline (const TsSweep *s) { return s->baseline; }
gboolean ts_sweep_wait_states (const TsSweep *s) { return s->wait_states; }
guint ts_sweep_n_points (const TsSweep *s) { return s->n_points; }
guint ts_sweep_n_parameters (const TsSweep *s) { return s->names->len; }

const char *
ts_sweep_parameter (const TsSweep *s, guint i)
{
  g_return_val_if_fail (i < s->names->len, NULL);
  return g_ptr_array_index (s->names, i);
}

const char *
ts_sweep_value (const TsSweep *s, guint point, guint i)
{
  g_return_val_if_fail (point < s->n_points && i < s->names->len, NULL);
  g_autofree guint *counts = g_new (guint, s->values->len);
  g_autofree guint *index = g_new (guint, s->values->len);
  for (guint k = 0; k < s->values->len; k++)
    counts[k] = g_strv_length (g_ptr_array_index (s->values, k));
  ts_sweep_point (counts, s->values->len, s->zip, point, index);
  return ((char **) g_ptr_array_index (s->values, i))[index[i]];
}

