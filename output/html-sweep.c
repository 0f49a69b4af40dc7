#include <config.h>

#include "output/html-report-private.h"
#include "output/figures.h"
#include "model/format.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ---- a sweep, an advise run ----------------------------------------------- */

static const char *
row_parameter (JsonObject *row, const char *name)
{
  const char *v = ts_page_string (ts_page_object (row, "parameters"), name);
  return v ? v : "";
}

/* The table: each row's parameters, predicted runtime, speed-up, saving. */
static void
sweep_table (GString *s, JsonArray *rows)
{
  JsonObject *first = ts_page_element (rows, 0);
  JsonObject *p0 = ts_page_object (first, "parameters");
  g_autoptr (GList) names = p0 ? json_object_get_members (p0) : NULL;
  gboolean saving = first && json_object_has_member (first, "saving_s");
  g_string_append (s, "<table class=\"results\"><tr><th>point</th>");
  for (GList *l = names; l; l = l->next)
    {
      g_string_append (s, "<th>");
      ts_figure_append_text (s, l->data);
      g_string_append (s, "</th>");
    }
  g_string_append_printf (s, "<th>predicted runtime</th><th>speed-up</th>%s<th>error</th></tr>\n",
                          saving ? "<th>saving</th>" : "");
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = ts_page_element (rows, i);
      g_string_append_printf (s, "<tr class=\"result\"><td>%u</td>", i);
      for (GList *l = names; l; l = l->next)
        {
          const char *value = row_parameter (r, l->data);
          g_autofree char *base = *value ? g_path_get_basename (value) : g_strdup ("");
          g_string_append (s, "<td style=\"text-align:left\">");
          ts_figure_append_text (s, g_str_equal (l->data, "hypothesis")
                                      || g_str_equal (l->data, "platform") ? base : value);
          g_string_append (s, "</td>");
        }
      g_autofree char *runtime = ts_format_seconds (ts_page_member_double (r, "predicted_runtime_s"));
      g_autofree char *saved = ts_format_seconds (ts_page_member_double (r, "saving_s"));
      g_string_append_printf (s, "<td>%s</td><td>%.3g</td>", runtime, ts_page_member_double (r, "speedup"));
      if (saving)
        g_string_append_printf (s, "<td>%s</td>", saved);
      const char *err = ts_page_string (r, "error");
      g_string_append (s, "<td style=\"text-align:left\">");
      ts_figure_append_text (s, err ? err : "");
      g_string_append (s, "</td></tr>\n");
    }
  g_string_append (s, "</table>\n");
}

/* The sweep's own plots (plot-*.svg), as images: each is a whole SVG
 * document with its own ids, which inline they would share. */
static void
sweep_plots (GString *s, const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) plots = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    if (g_str_has_prefix (name, "plot-") && g_str_has_suffix (name, ".svg"))
      g_ptr_array_add (plots, g_strdup (name));
  g_ptr_array_sort (plots, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < plots->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, plots->pdata[i], NULL);
      g_autofree char *svg = NULL;
      gsize len = 0;
      if (!g_file_get_contents (path, &svg, &len, NULL))
        continue;
      g_autofree char *b64 = g_base64_encode ((const guchar *) svg, len);
      g_string_append (s, "<img class=\"plot\" alt=\"");
      ts_figure_append_text (s, plots->pdata[i]);
      g_string_append_printf (s, "\" src=\"data:image/svg+xml;base64,%s\">\n", b64);
    }
}

/* Largest first by the first double. */
static gint
by_first (gconstpointer a, gconstpointer b)
{
  const double *x = a, *y = b;
  return x[0] > y[0] ? -1 : x[0] < y[0];
}

/* An advise run's changes, ranked by saving (the baseline left out). */
static void
advise_bars (GString *s, JsonArray *rows)
{
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (double) * 2);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = ts_page_element (rows, i);
      double e[2] = { ts_page_member_double (r, "saving_s"), i };
      if (!g_str_equal (row_parameter (r, "change"), "none") && !isnan (e[0]))
        g_array_append_vals (order, e, 1);
    }
  g_array_sort (order, by_first);
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *values = g_new (double, MAX (order->len, 1));
  for (guint i = 0; i < order->len; i++)
    {
      const double *e = &g_array_index (order, double, 2 * i);
      JsonObject *r = ts_page_element (rows, (guint) e[1]);
      g_ptr_array_add (labels, g_strdup_printf ("%s, %s", row_parameter (r, "region"),
                                                row_parameter (r, "change")));
      values[i] = e[0];
    }
  g_string_append (s, "<h2>What to optimise first: the predicted saving of each change alone</h2>\n");
  const char *series[] = { "saving" };
  TsBars b = { order->len, 1, (const char *const *) labels->pdata,
               (const char *const *) labels->pdata, series, values, "advice-bar", "s" };
  ts_page_figure_open (s, "advice");
  ts_figure_bars (s, &b);
  ts_page_figure_close (s);
}

/* advise's own content (OUT/advise.json, pipeline/advise.h): what no
 * change touches, and the changes ranked by saving with the CLI's
 * explanation of each that saved less than it removed. FALSE where an
 * advise run of an older tracesim wrote none. */
static gboolean
advise_ranked (GString *s, const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "advise.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_file (parser, path, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return FALSE;
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  JsonArray *rows = ts_page_array (o, "rows");
  const char *outside = ts_page_string (o, "outside");
  /* Shares of the baseline's predicted runtime, as the CLI gives them. */
  double runtime = ts_page_member_double (ts_page_element (rows, 0), "predicted_runtime_s");
  double factor = ts_page_member_double (o, "factor");
  if (outside && *outside)
    {
      g_string_append (s, "<p class=\"outside\">");
      ts_figure_append_text (s, outside);
      g_string_append (s, ".</p>\n");
    }
  g_string_append (s, "<h2>Each change alone, ranked by its saving</h2>\n"
                      "<table class=\"results advice\"><tr><th>region</th><th>change</th>"
                      "<th>predicted runtime</th><th>saving</th><th>share</th>"
                      "<th>where the time went</th></tr>\n");
  g_autofree char *faster = g_strdup_printf ("%gx faster", factor > 0 ? 1 / factor : 0);
  for (guint i = 1; rows && i < json_array_get_length (rows); i++)
    {
      JsonObject *r = ts_page_element (rows, i);
      const char *change = ts_page_string (r, "change");
      const char *error = ts_page_string (r, "error");
      g_string_append (s, "<tr class=\"advice-row\"><td style=\"text-align:left\">");
      ts_figure_append_text (s, ts_page_string (r, "region") ? ts_page_string (r, "region") : "");
      g_string_append (s, "</td><td>");
      ts_figure_append_text (s, g_strcmp0 (change, "faster") == 0 ? faster : change ? change : "");
      g_string_append (s, "</td>");
      if (error)
        {
          g_string_append (s, "<td colspan=\"4\" style=\"text-align:left\">failed: ");
          ts_figure_append_text (s, error);
          g_string_append (s, "</td></tr>\n");
          continue;
        }
      double saving = ts_page_member_double (r, "saving_s");
      g_autofree char *predicted = ts_format_seconds (ts_page_member_double (r, "predicted_runtime_s"));
      g_autofree char *saved = ts_format_seconds (saving);
      g_autofree char *share = ts_format_percent (saving, runtime);
      g_string_append_printf (s, "<td>%s</td><td>%s</td><td>%s</td><td style=\"text-align:left\">",
                              predicted, saved, share);
      ts_figure_append_text (s, ts_page_string (r, "explanation") ? ts_page_string (r, "explanation") : "");
      g_string_append (s, "</td></tr>\n");
    }
  g_string_append (s, "</table>\n");
  return TRUE;
}

char *
ts_html_sweep_page (const char *dir, gboolean advise, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "results.json", NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   "%s: no such file: the sweep did not finish (interrupted, or still running); "
                   "run the same command again to resume it", path);
      return NULL;
    }
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  if (!json_parser_load_from_file (parser, path, &local)
      || !JSON_NODE_HOLDS_ARRAY (json_parser_get_root (parser)))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not a sweep's table (%s)", path,
                   local ? local->message : "not a JSON array");
      return NULL;
    }
  JsonArray *rows = json_node_get_array (json_parser_get_root (parser));
  g_autoptr (GString) s = g_string_new (NULL);
  ts_page_open (s, advise ? "tracesim advise" : "tracesim sweep");
  g_string_append_printf (s, "<h1>tracesim %s: %u points</h1>\n", advise ? "advise" : "sweep",
                          json_array_get_length (rows));
  /* advise's own page: its ranking, not a sweep's plots against its
   * point labels (p0000.hyp, "(as traced)", which no axis orders). */
  if (advise)
    advise_bars (s, rows);
  if (advise && advise_ranked (s, dir))
    {
      ts_page_close (s);
      return g_string_free (g_steal_pointer (&s), FALSE);
    }
  if (!advise)
    {
      g_string_append (s, "<h2>Predicted runtime against each parameter</h2>\n");
      sweep_plots (s, dir);
    }
  g_string_append (s, "<h2>The table</h2>\n");
  sweep_table (s, rows);
  ts_page_close (s);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

