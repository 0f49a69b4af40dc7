#include <config.h>

#include "pipeline/sweep-results.h"
#include "model/output_dir.h"
#include "output/csv.h"
#include "output/plot.h"
#include "output/summary.h"

#include <math.h>

#include <json-glib/json-glib.h>
#include <string.h>

#define TOP_REGIONS 5

/* A finished point's summary (NULL unless its key is current). */
static JsonObject *
read_summary (const TsSweepRow *row, JsonParser *parser)
{
  g_autofree char *key = NULL;
  if (row->unusable || !g_file_get_contents (row->key_path, &key, NULL, NULL)
      || !g_str_equal (g_strstrip (key), row->key))
    return NULL;
  g_autofree char *path = g_build_filename (row->dir, "summary.json", NULL);
  if (!json_parser_load_from_file (parser, path, NULL))
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  return o && json_object_has_member (o, "predicted") && json_object_has_member (o, "speedup")
           ? o : NULL;
}

/* The patterns and the top regions, from the first finished point (every
 * point replays the same trace). */
static void
columns_from (JsonObject *summary, GPtrArray *patterns, GPtrArray *regions)
{
  JsonObject *w = json_object_has_member (summary, "wait_states")
                    ? json_object_get_object_member (summary, "wait_states") : NULL;
  JsonObject *pw = w && json_object_has_member (w, "predicted")
                     ? json_object_get_object_member (w, "predicted") : NULL;
  g_autoptr (GList) names = pw ? json_object_get_members (pw) : NULL;
  for (GList *l = names; l; l = l->next)
    g_ptr_array_add (patterns, g_strdup (l->data));
  JsonArray *rs = json_object_get_array_member (summary, "regions");
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; rs && i < json_array_get_length (rs); i++)
    g_array_append_val (order, i);
  /* By original time, most first: a few regions, a selection sort. */
  for (guint k = 0; k < MIN (order->len, TOP_REGIONS); k++)
    {
      guint best = k;
      for (guint j = k + 1; j < order->len; j++)
        if (json_object_get_double_member (json_array_get_object_element (rs, g_array_index (order, guint, j)), "original_s")
            > json_object_get_double_member (json_array_get_object_element (rs, g_array_index (order, guint, best)), "original_s"))
          best = j;
      guint t = g_array_index (order, guint, k);
      g_array_index (order, guint, k) = g_array_index (order, guint, best);
      g_array_index (order, guint, best) = t;
      JsonObject *r = json_array_get_object_element (rs, g_array_index (order, guint, k));
      g_ptr_array_add (regions, g_strdup (json_object_get_string_member (r, "name")));
    }
}

/* The predicted wait state @pattern, and region @name's predicted time. */
static double
pattern_seconds (JsonObject *summary, const char *pattern)
{
  JsonObject *w = json_object_has_member (summary, "wait_states")
                    ? json_object_get_object_member (summary, "wait_states") : NULL;
  JsonObject *pw = w && json_object_has_member (w, "predicted")
                     ? json_object_get_object_member (w, "predicted") : NULL;
  return pw && json_object_has_member (pw, pattern) ? json_object_get_double_member (pw, pattern) : 0;
}

static double
region_seconds (JsonObject *summary, const char *name)
{
  JsonArray *rs = json_object_get_array_member (summary, "regions");
  for (guint i = 0; rs && i < json_array_get_length (rs); i++)
    {
      JsonObject *r = json_array_get_object_element (rs, i);
      if (g_strcmp0 (json_object_get_string_member (r, "name"), name) == 0)
        return json_object_get_double_member (r, "predicted_s");
    }
  return 0;
}

/* One column per name of @names in the row @csv, and the same as the JSON
 * object @member of @b: each one's seconds in @summary. */
static void
add_seconds (GString *csv, JsonBuilder *b, const char *member, JsonObject *summary,
             GPtrArray *names, double (*seconds) (JsonObject *summary, const char *name))
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  for (guint i = 0; i < names->len; i++)
    {
      double v = seconds (summary, g_ptr_array_index (names, i));
      g_string_append_printf (csv, ",%.17g", v);
      ts_json_add_double (b, g_ptr_array_index (names, i), v);
    }
  json_builder_end_object (b);
}

static void
header (GString *csv, const TsSweep *s, GPtrArray *patterns, GPtrArray *regions)
{
  for (guint i = 0; i < ts_sweep_n_parameters (s); i++)
    {
      ts_csv_append_field (csv, ts_sweep_parameter (s, i));
      g_string_append_c (csv, ',');
    }
  g_string_append (csv, TS_SWEEP_RESULTS_COLUMNS);
  if (ts_sweep_baseline (s) != G_MAXUINT)
    g_string_append (csv, ",saving_s");
  for (guint i = 0; i < patterns->len; i++)
    g_string_append_printf (csv, ",%s_s", (char *) g_ptr_array_index (patterns, i));
  for (guint i = 0; i < regions->len; i++)
    {
      g_autofree char *col = g_strdup_printf ("region:%s_s", (char *) g_ptr_array_index (regions, i));
      g_string_append_c (csv, ',');
      ts_csv_append_field (csv, col);
    }
  g_string_append_c (csv, '\n');
}

/* One row of the CSV and one object of the JSON array. */
static void
row (GString *csv, JsonBuilder *b, const TsSweep *s, const TsSweepRow *r, JsonObject *summary,
     double baseline, GPtrArray *patterns, GPtrArray *regions)
{
  gboolean saving = ts_sweep_baseline (s) != G_MAXUINT;
  json_builder_begin_object (b);
  /* Its name: its run output is points/NAME/, its inputs inputs/NAME/. */
  g_autofree char *name = g_path_get_basename (r->dir);
  json_builder_set_member_name (b, "point");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_object (b);
  for (guint i = 0; i < ts_sweep_n_parameters (s); i++)
    {
      ts_csv_append_field (csv, ts_sweep_value (s, r->point, i));
      g_string_append_c (csv, ',');
      json_builder_set_member_name (b, ts_sweep_parameter (s, i));
      json_builder_add_string_value (b, ts_sweep_value (s, r->point, i));
    }
  json_builder_end_object (b);
  if (!summary)
    {
      g_autofree char *why = NULL;
      if (!g_file_get_contents (r->error_path, &why, NULL, NULL))
        why = g_strdup ("not run");
      g_string_append (csv, ",,");
      ts_csv_append_field (csv, g_strstrip (why));
      for (guint i = 0; i < patterns->len + regions->len + saving; i++)
        g_string_append_c (csv, ',');
      g_string_append_c (csv, '\n');
      json_builder_set_member_name (b, "error");
      json_builder_add_string_value (b, why);
      json_builder_end_object (b);
      return;
    }
  double runtime = json_object_get_double_member (json_object_get_object_member (summary, "predicted"),
                                                  "runtime_s");
  double speedup = json_object_get_double_member (summary, "speedup");
  g_string_append_printf (csv, "%.17g,%.17g,", runtime, speedup);
  ts_json_add_double (b, "predicted_runtime_s", runtime);
  ts_json_add_double (b, "speedup", speedup);
  /* Saved against the baseline point: empty where that one failed. */
  if (saving && !isnan (baseline))
    {
      g_string_append_printf (csv, ",%.17g", baseline - runtime);
      ts_json_add_double (b, "saving_s", baseline - runtime);
    }
  else if (saving)
    g_string_append_c (csv, ',');
  add_seconds (csv, b, "wait_states_s", summary, patterns, pattern_seconds);
  add_seconds (csv, b, "regions_s", summary, regions, region_seconds);
  g_string_append_c (csv, '\n');
  json_builder_end_object (b);
}

gboolean
ts_sweep_results_write (const TsSweep *s, const char *out, GPtrArray *rows, GError **error)
{
  g_autoptr (GPtrArray) parsers = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) summaries = g_ptr_array_new ();
  g_autoptr (GPtrArray) patterns = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) regions = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < rows->len; i++)
    {
      JsonParser *parser = json_parser_new ();
      g_ptr_array_add (parsers, parser);
      JsonObject *summary = read_summary (g_ptr_array_index (rows, i), parser);
      g_ptr_array_add (summaries, summary);
      if (summary && patterns->len == 0 && regions->len == 0)
        columns_from (summary, patterns, regions);
    }
  g_autofree double *runtime = g_new (double, ts_sweep_n_points (s));
  for (guint i = 0; i < ts_sweep_n_points (s); i++)
    runtime[i] = NAN;
  for (guint i = 0; i < rows->len; i++)
    {
      JsonObject *summary = g_ptr_array_index (summaries, i);
      const TsSweepRow *r = g_ptr_array_index (rows, i);
      if (summary && r->point < ts_sweep_n_points (s))
        runtime[r->point] = json_object_get_double_member (
          json_object_get_object_member (summary, "predicted"), "runtime_s");
    }
  g_autoptr (GString) csv = g_string_new (NULL);
  header (csv, s, patterns, regions);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    row (csv, b, s, g_ptr_array_index (rows, i), g_ptr_array_index (summaries, i),
         ts_sweep_baseline (s) != G_MAXUINT ? runtime[ts_sweep_baseline (s)] : NAN, patterns,
         regions);
  json_builder_end_array (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree char *json = ts_json_to_text (root);
  g_autofree char *csv_path = g_build_filename (out, "results.csv", NULL);
  g_autofree char *json_path = g_build_filename (out, "results.json", NULL);
  return ts_output_file_write (csv_path, csv->str, csv->len, TS_SWEEP_RESULTS_COLUMNS, error)
         && ts_output_file_write (json_path, json, strlen (json), "\"parameters\"", error)
         && ts_sweep_plots_write (s, out, runtime, error);
}

/* @value's index among @seen, appended when new. */
static guint
index_of (GPtrArray *seen, const char *value)
{
  for (guint i = 0; i < seen->len; i++)
    if (g_str_equal (g_ptr_array_index (seen, i), value))
      return i;
  g_ptr_array_add (seen, g_strdup (value));
  return seen->len - 1;
}

/* A value as a plot shows it: a file of a list by its name alone. */
static char *
shown (const char *value)
{
  return strchr (value, '/') ? g_path_get_basename (value) : g_strdup (value);
}

/* plot-PARAM.svg and .png: the predicted runtime against parameter @k, one
 * line per combination of the other parameters' values. */
static gboolean
plot_parameter (const TsSweep *s, const char *out, guint k, const double *runtime, GError **error)
{
  guint n_points = ts_sweep_n_points (s), n_params = ts_sweep_n_parameters (s);
  g_autoptr (GPtrArray) xs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) series = g_ptr_array_new_with_free_func (g_free);
  g_autofree guint *xi = g_new (guint, n_points), *si = g_new (guint, n_points);
  for (guint p = 0; p < n_points; p++)
    {
      g_autofree char *x = shown (ts_sweep_value (s, p, k));
      xi[p] = index_of (xs, x);
      g_autoptr (GString) name = g_string_new (NULL);
      for (guint i = 0; i < n_params; i++)
        if (i != k)
          {
            g_autofree char *v = shown (ts_sweep_value (s, p, i));
            g_string_append_printf (name, "%s%s=%s", name->len ? ", " : "", ts_sweep_parameter (s, i), v);
          }
      si[p] = index_of (series, name->len ? name->str : "all");
    }
  if (xs->len < 2)
    return TRUE;
  g_autofree double *y = g_new (double, series->len * xs->len);
  for (guint i = 0; i < series->len * xs->len; i++)
    y[i] = NAN;
  for (guint p = 0; p < n_points; p++)
    y[si[p] * xs->len + xi[p]] = runtime[p];
  /* A numeric axis when every value is a number. */
  g_autofree double *xv = g_new (double, xs->len);
  gboolean numeric = TRUE;
  for (guint i = 0; i < xs->len; i++)
    {
      char *end;
      xv[i] = g_ascii_strtod (g_ptr_array_index (xs, i), &end);
      numeric &= *end == '\0' && end != g_ptr_array_index (xs, i);
    }
  g_autofree char *title = g_strdup_printf ("Predicted runtime against %s", ts_sweep_parameter (s, k));
  g_ptr_array_add (xs, NULL);
  g_ptr_array_add (series, NULL);
  TsPlot plot = { title, ts_sweep_parameter (s, k), "predicted runtime", xs->len - 1,
                  (const char *const *) xs->pdata, numeric ? xv : NULL, series->len - 1,
                  (const char *const *) series->pdata, y, TRUE };
  g_autofree char *stem = g_strdelimit (g_strdup (ts_sweep_parameter (s, k)), "/\\ ", '_');
  g_autofree char *svg = g_strdup_printf ("%s/plot-%s.svg", out, stem);
  g_autofree char *png = g_strdup_printf ("%s/plot-%s.png", out, stem);
  return ts_plot_write (&plot, svg, png, error);
}

gboolean
ts_sweep_plots_write (const TsSweep *s, const char *out, const double *runtime, GError **error)
{
  for (guint k = 0; k < ts_sweep_n_parameters (s); k++)
    if (!plot_parameter (s, out, k, runtime, error))
      return FALSE;
  return TRUE;
}
