/* A sweep's point: the files its templates give, the `run` options of its
 * parameters, and its key, what its result depends on (pipeline/sweep.h).
 * Split from sweep.c, which loads the sweep file. */
#include <config.h>

#include "pipeline/sweep-private.h"
#include "pipeline/sweep-values.h"
#include "sim/cluster.h"
#include "model/output_dir.h"
#include "model/key-line.h"

#include <string.h>

/* Parameter @i's value at @point as names and keys hold it: a list's file
 * as the sweep file writes it (relative to the sweep file, or absolute). */
const char *
ts_sweep_key_value (const TsSweep *s, guint point, guint i)
{
  const char *name = s->names->pdata[i], *value = ts_sweep_value (s, point, i);
  gboolean file = g_str_equal (name, "hypothesis") || g_str_equal (name, "platform");
  return file ? ts_sweep_as_written (s, value) : value;
}

/* A template filled for the point, or a platform template turned into a
 * SimGrid platform: a [cluster] key file goes through the generator. */
static char *
fill_input (const Input *in, const char *const *names, const char *const *values,
            gboolean platform, GError **error)
{
  g_autofree char *filled = ts_sweep_fill (in->text, in->path, names, values, error);
  if (!filled || !platform || strstr (filled, "<platform"))
    return g_steal_pointer (&filled);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_auto (TsCluster) c;
  ts_cluster_init (&c);
  g_autoptr (GError) local = NULL;
  if (!ts_key_file_load_commented (kf, filled, -1, &local)
      || !ts_cluster_load_key_file (&c, kf, in->path, &local) || !ts_cluster_check (&c, &local))
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s%s%s",
                   g_str_has_prefix (local->message, in->path) ? "" : in->path,
                   g_str_has_prefix (local->message, in->path) ? "" : ": ", local->message);
      return NULL;
    }
  return ts_cluster_to_xml (&c);
}

/* A point's key (ts_sweep_point_options), and the key the same inputs had
 * when points were named by their index (pNNNN: the parameters hashed in
 * the file's order), by which such a point is carried over. */
typedef struct {
  GChecksum *now, *legacy;
} Keys;

/* @now to the key, @legacy to the legacy key (which holds paths as they
 * were resolved, the sweep file's directory as typed). */
static void
keys_add_each (Keys *k, const char *now, const char *legacy)
{
  g_checksum_update (k->now, (const guchar *) now, -1);
  if (k->legacy)
    g_checksum_update (k->legacy, (const guchar *) legacy, -1);
}

static void
keys_add (Keys *k, const char *text)
{
  keys_add_each (k, text, text);
}

/* The point's file for @in: the file itself, or the filled template written
 * into @dir as @name (into nothing when @dir is NULL: a dry run). NULL and
 * @error on failure; "" when there is none. */
static char *
point_input (const Input *in, const char *dir, const char *name, const char *const *names,
             const char *const *values, gboolean platform, Keys *key, GError **error)
{
  if (in->kind == INPUT_NONE || in->kind == INPUT_LIST)
    return g_strdup ("");
  keys_add (key, in->text);
  if (in->kind == INPUT_FILE)
    return g_strdup (in->path);
  g_autofree char *text = fill_input (in, names, values, platform, error);
  if (!text)
    return NULL;
  keys_add (key, text);
  if (!dir)
    return g_strdup (name);
  char *path = g_build_filename (dir, name, NULL);
  /* Renamed into place whole: a Slurm array's tasks each write every
   * point's inputs while others read theirs (in place, a task could read
   * a file another had just truncated: a point without its hypothesis).
   * Any earlier file here is this sweep's own. */
  if (!ts_output_file_write (path, text, strlen (text), NULL, error))
    g_clear_pointer (&path, g_free);
  return path;
}

/* The parameters' indices, by name. */
static guint *
sorted_parameters (const TsSweep *s)
{
  guint n = s->names->len;
  guint *order = g_new (guint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    order[i] = i;
  /* A few parameters: an insertion sort. */
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && strcmp (s->names->pdata[order[j - 1]], s->names->pdata[order[j]]) > 0; j--)
      {
        guint t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
  return order;
}

char *
ts_sweep_point_name (const TsSweep *s, guint point)
{
  g_return_val_if_fail (point < s->n_points, NULL);
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guint *order = sorted_parameters (s);
  /* Each name and value with its NUL: no two points hash the same text. */
  for (guint i = 0; i < s->names->len; i++)
    {
      const char *name = s->names->pdata[order[i]], *value = ts_sweep_key_value (s, point, order[i]);
      g_checksum_update (sum, (const guchar *) name, strlen (name) + 1);
      g_checksum_update (sum, (const guchar *) value, strlen (value) + 1);
    }
  return g_strndup (g_checksum_get_string (sum), TS_SWEEP_NAME_LENGTH);
}

char *
ts_sweep_point_label (const TsSweep *s, guint point)
{
  g_return_val_if_fail (point < s->n_points, NULL);
  GString *label = g_string_new (NULL);
  for (guint i = 0; i < s->names->len; i++)
    g_string_append_printf (label, "%s%s=%s", i ? " " : "", (char *) s->names->pdata[i],
                            ts_sweep_value (s, point, i));
  return g_string_free (label, FALSE);
}

/* What a point's key holds before its inputs: the trace or the traces
 * extrapolated from, its parameters (sorted by name for the key, in the
 * file's order for the legacy one), and what it computes. */
static void
key_head (const TsSweep *s, guint point, Keys *k)
{
  if (s->trace)
    keys_add_each (k, ts_sweep_as_written (s, s->trace), s->trace);
  for (guint i = 0; s->inputs && s->inputs[i]; i++)
    {
      /* all-to-all and the grid's order only when set: keys made before
       * they existed stay valid. */
      g_autofree char *all = g_strconcat (s->all_to_all ? " all-to-all" : "",
                                          s->recursive_doubling ? " recursive-doubling" : "",
                                          NULL);
      g_autofree char *named = ts_grid_order_name (s->grid_order);
      g_autofree char *order = named ? g_strconcat (" ", named, NULL) : g_strdup ("");
      g_autofree char *item = g_strdup_printf ("extrapolate %s boundaries %d%s%s\n",
                                               ts_sweep_as_written (s, s->inputs[i]), s->boundaries, all,
                                               order);
      g_autofree char *legacy = g_strdup_printf ("extrapolate %s boundaries %d%s%s\n",
                                                 s->inputs[i], s->boundaries, all, order);
      keys_add_each (k, item, legacy);
    }
  g_autofree guint *order = sorted_parameters (s);
  for (guint i = 0; i < s->names->len; i++)
    {
      g_autofree char *sorted = g_strdup_printf ("\n%s=%s", (char *) s->names->pdata[order[i]],
                                                 ts_sweep_key_value (s, point, order[i]));
      g_autofree char *item = g_strdup_printf ("\n%s=%s", (char *) s->names->pdata[i],
                                               ts_sweep_value (s, point, i));
      g_checksum_update (k->now, (const guchar *) sorted, -1);
      if (k->legacy)
        g_checksum_update (k->legacy, (const guchar *) item, -1);
    }
  /* Points that computed less are not the same points (existing sweeps'
   * keys, with both, are unchanged). */
  if (!s->wait_states || !s->archive)
    {
      g_autofree char *item = g_strdup_printf ("\nwait_states=%d archive=%d", s->wait_states,
                                               s->archive);
      keys_add (k, item);
    }
  /* Only when set, likewise (AUTO only in today's keys). */
  if (s->cpu_time != TS_CPU_TIME_OFF)
    keys_add_each (k, s->cpu_time == TS_CPU_TIME_ON ? "\ncpu_time=1" : "\ncpu_time=auto",
                   s->cpu_time == TS_CPU_TIME_ON ? "\ncpu_time=1" : "");
}

/* The options the point's parameters give: lists of files, run options. */
static gboolean
point_parameters (const TsSweep *s, const char *const *names, const char *const *values,
                  const char **hyps, TsRunOptions *o, Keys *k, GError **error)
{
  guint n = s->names->len;
  for (guint i = 0; i < n; i++)
    {
      /* A list of ready files is a parameter of its own. */
      if (g_str_equal (names[i], "hypothesis"))
        hyps[0] = values[i];
      else if (g_str_equal (names[i], "platform"))
        o->platform = values[i];
      else if (ts_sweep_is_run_option (names[i]) && !ts_sweep_set_option (o, names[i], values[i], error))
        return FALSE;
    }
  /* The files of a list count by their content, as templates do. */
  for (guint i = 0; i < n; i++)
    if (g_str_equal (names[i], "hypothesis") || g_str_equal (names[i], "platform"))
      {
        g_autofree char *text = NULL;
        if (g_file_get_contents (values[i], &text, NULL, NULL))
          keys_add (k, text);
      }
  return TRUE;
}

gboolean
ts_sweep_point_options (const TsSweep *s, guint point, const char *dir, TsRunOptions *o,
                        GPtrArray *keep, char **key, char **legacy_key, GError **error)
{
  guint n = s->names->len;
  g_autofree const char **names = g_new0 (const char *, n + 1);
  g_autofree const char **values = g_new0 (const char *, n + 1);
  g_autoptr (GChecksum) now = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GChecksum) legacy = legacy_key ? g_checksum_new (G_CHECKSUM_SHA256) : NULL;
  Keys k = { now, legacy };
  key_head (s, point, &k);
  for (guint i = 0; i < n; i++)
    {
      names[i] = ts_sweep_parameter (s, i);
      values[i] = ts_sweep_value (s, point, i);
    }
  o->trace = s->trace;
  o->wait_states = s->wait_states;
  o->no_archive = !s->archive;
  /* An extrapolated trace took its compute from the inputs' CPU time and
   * carries none of its own. */
  o->cpu_time = s->trace ? ts_sweep_cpu_time (s) : TS_CPU_TIME_OFF;
  char *hyp = point_input (&s->hypothesis, dir, "hypothesis.hyp", names, values, FALSE, &k, error);
  char *platform = hyp ? point_input (&s->platform, dir, "platform.xml", names, values, TRUE, &k,
                                      error)
                       : NULL;
  if (hyp)
    g_ptr_array_add (keep, hyp);
  if (platform)
    g_ptr_array_add (keep, platform);
  if (!hyp || !platform)
    return FALSE;
  const char **hyps = g_new0 (const char *, 2);
  g_ptr_array_add (keep, hyps);
  hyps[0] = *hyp ? hyp : NULL;
  o->hypotheses = hyps;
  o->platform = *platform ? platform : NULL;
  if (!point_parameters (s, names, values, hyps, o, &k, error))
    return FALSE;
  *key = g_strdup (g_checksum_get_string (now));
  if (legacy_key)
    *legacy_key = g_strdup (g_checksum_get_string (legacy));
  return TRUE;
}
