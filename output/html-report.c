#include <config.h>

#include "output/html-report.h"
#include "output/html-report-private.h"
#include "output/figures.h"
#include "output/timeline.h"
#include "model/output_dir.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#define MAX_ROWS 256       /* rank rows of a timeline and a heat map */
#define HEAT_REGIONS 8     /* columns of a heat map */
#define LEGEND_REGIONS 16
#define DOMINANT_REGIONS 3 /* the regions whose imbalance per rank is shown */

/* ---- reading outputs ---------------------------------------------------------- */

static JsonObject *
read_object (JsonParser *parser, const char *path, const char *what, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no such file: %s", path, what);
      return NULL;
    }
  if (!json_parser_load_from_file (parser, path, &local)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not a JSON object (%s): %s",
                   path, local ? local->message : "another kind of value", what);
      return NULL;
    }
  return json_node_get_object (json_parser_get_root (parser));
}

/* A member the page needs; its absence means an older or damaged output. */
static JsonObject *
need_object (JsonObject *o, const char *member, const char *path, GError **error)
{
  if (ts_page_object (o, member))
    return ts_page_object (o, member);
  const char *version = ts_page_string (o, "tracesim_version");
  version = version ? version : "an unknown version";
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
               "%s has no '%s': written by %s of tracesim, or damaged; run it again to draw its "
               "report", path, member, version);
  return NULL;
}

double
ts_page_member_double (JsonObject *o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  GType type = n && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;
  return type == G_TYPE_DOUBLE || type == G_TYPE_INT64 ? json_node_get_double (n) : NAN;
}

JsonObject *
ts_page_object (JsonObject *o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

JsonArray *
ts_page_array (JsonObject *o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

const char *
ts_page_string (JsonObject *o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
           ? json_node_get_string (n) : NULL;
}

JsonObject *
ts_page_element (JsonArray *a, guint i)
{
  JsonNode *n = a && i < json_array_get_length (a) ? json_array_get_element (a, i) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

/* The original trace: @given, else summary.json's, as written (relative to
 * where the run was started) or relative to the output's parent. */
static char *
original_trace (const char *dir, const char *given, JsonObject *summary)
{
  if (given)
    return g_strdup (given);
  const char *named = ts_page_string (summary, "trace");
  if (!named)
    return NULL;
  if (g_path_is_absolute (named) || g_file_test (named, G_FILE_TEST_IS_REGULAR))
    return g_strdup (named);
  /* "out/" is "out": its parent is the directory above. */
  g_autofree char *bare = g_strdup (dir);
  for (gsize n = strlen (bare); n > 1 && bare[n - 1] == '/'; n--)
    bare[n - 1] = '\0';
  g_autofree char *parent = g_path_get_dirname (bare);
  return g_build_filename (parent, named, NULL);
}

/* ---- page pieces ------------------------------------------------------------ */


void
ts_page_open (GString *s, const char *title)
{
  g_string_append (s, "<!DOCTYPE html>\n<!-- " TS_WRITTEN_MARK " report: one file, nothing to "
                      "fetch -->\n<html><head><meta charset=\"utf-8\"><title>");
  ts_figure_append_text (s, title);
  g_string_append (s, "</title><style>\n"
                      "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1100px}\n"
                      "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}\n"
                      "table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ccc;"
                      "padding:2px 6px;text-align:right}th{background:#f0f0f0}\n"
                      ".legend span{display:inline-block;margin:2px 10px 2px 0;font-size:.8em}\n"
                      ".legend svg{vertical-align:middle;margin-right:3px}\n"
                      ".note{color:#8a4b00}.figures{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0}\n"
                      "</style></head><body>\n");
  ts_figure_wait_defs (s);
}

void
ts_page_close (GString *s)
{
  g_string_append (s, "</body></html>\n");
}

/* A figure of the page: its SVG, and its PNG twin report-NAME.png
 * (ts_html_report_figures). */
void
ts_page_figure_open (GString *s, const char *name)
{
  g_string_append_printf (s, "<figure id=\"fig-%s\">", name);
}

void
ts_page_figure_close (GString *s)
{
  g_string_append (s, "</figure>\n");
}

static void
legend_swatch (GString *s, const char *fill, const char *name)
{
  g_string_append_printf (s, "<span><svg width=\"14\" height=\"12\"><rect width=\"14\" "
                             "height=\"12\" fill=\"%s\"/></svg>", fill);
  ts_figure_append_text (s, name);
  g_string_append (s, "</span>");
}

/* Region totals over ranks, by name, of both timelines. */
typedef struct {
  const char *name;
  gboolean mpi;
  double seconds[2];
} RegionTotal;

static gint
by_total (gconstpointer a, gconstpointer b)
{
  const RegionTotal *x = a, *y = b;
  double sx = x->seconds[0] + x->seconds[1], sy = y->seconds[0] + y->seconds[1];
  return sx > sy ? -1 : sx < sy;
}

static GArray *
region_totals (const TsTimeline *const *t)
{
  GArray *totals = g_array_new (FALSE, TRUE, sizeof (RegionTotal));
  g_autoptr (GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < 2; i++)
    for (guint32 r = 0; t[i] && r < ts_timeline_n_regions (t[i]); r++)
      {
        double sum = ts_timeline_region_total (t[i], r);
        if (sum <= 0)
          continue;
        const char *name = ts_timeline_region_name (t[i], r);
        gpointer at = g_hash_table_lookup (index, name);
        if (!at)
          {
            RegionTotal z = { name, ts_timeline_region_is_mpi (t[i], r), { 0, 0 } };
            g_array_append_val (totals, z);
            at = GUINT_TO_POINTER (totals->len);
            g_hash_table_insert (index, (gpointer) name, at);
          }
        g_array_index (totals, RegionTotal, GPOINTER_TO_UINT (at) - 1).seconds[i] += sum;
      }
  g_array_sort (totals, by_total);
  return totals;
}

static void
legends (GString *s, const GArray *totals, const double *waits)
{
  g_string_append (s, "<div class=\"legend\"><span><svg width=\"14\" height=\"12\"><rect "
                      "width=\"14\" height=\"12\" fill=\"#ffffff\" stroke=\"#999\"/></svg>no "
                      "region (compute in a trace of MPI calls only)</span>");
  for (guint i = 0; i < MIN (totals->len, LEGEND_REGIONS); i++)
    {
      const RegionTotal *r = &g_array_index (totals, RegionTotal, i);
      char colour[8];
      ts_figure_region_colour (r->name, r->mpi, colour);
      legend_swatch (s, colour, r->name);
    }
  g_string_append (s, "<br>");
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    if (p != TS_WAIT_LATE_SENDER_WRONG_ORDER && (waits[2 * p] > 0 || waits[2 * p + 1] > 0))
      {
        g_autofree char *fill = g_strdup_printf ("url(#w-%s)", ts_wait_pattern_name (p));
        legend_swatch (s, fill, ts_wait_pattern_name (p));
      }
  g_string_append (s, "</div>\n");
}

/* ---- a run -------------------------------------------------------------------- */

static void
run_header (GString *s, JsonObject *summary, const char *trace, const char *note)
{
  JsonObject *o = ts_page_object (summary, "original");
  JsonObject *p = ts_page_object (summary, "predicted");
  JsonObject *in = ts_page_object (summary, "inputs");
  g_string_append (s, "<h1>tracesim: the run as traced and as predicted</h1>\n<table>");
  g_string_append (s, "<tr><th>trace</th><td style=\"text-align:left\">");
  ts_figure_append_text (s, trace ? trace : "(unknown)");
  g_string_append (s, "</td></tr>\n<tr><th>what-if</th><td style=\"text-align:left\">");
  JsonArray *h = ts_page_array (in, "hypotheses");
  for (guint i = 0; h && i < json_array_get_length (h); i++)
    {
      const char *path = ts_page_string (ts_page_element (h, i), "path");
      g_string_append (s, i ? ", " : "");
      ts_figure_append_text (s, path ? path : "?");
    }
  g_string_append_printf (s, "%s</td></tr>\n<tr><th>ranks</th><td>%" G_GINT64_FORMAT "</td></tr>"
                             "<tr><th>runtime as traced</th><td>%.6f s</td></tr>"
                             "<tr><th>runtime predicted</th><td>%.6f s</td></tr>"
                             "<tr><th>speed-up</th><td class=\"speedup\">%.3fx</td></tr></table>\n",
                          h && json_array_get_length (h) ? "" : "none (the run as traced)",
                          (gint64) ts_page_member_double (summary, "ranks"),
                          ts_page_member_double (o, "runtime_s"), ts_page_member_double (p, "runtime_s"),
                          ts_page_member_double (summary, "speedup"));
  if (note)
    {
      g_string_append (s, "<p class=\"note\">");
      ts_figure_append_text (s, note);
      g_string_append (s, "</p>\n");
    }
}

/* A bar per pattern either execution has, original against predicted;
 * @waits gets [pattern * 2 + execution]. */
static void
wait_bars (GString *s, JsonObject *summary, double *waits)
{
  JsonObject *w = ts_page_object (summary, "wait_states");
  const char *which[2] = { "original", "predicted" };
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    {
      for (guint e = 0; e < 2; e++)
        {
          JsonObject *x = ts_page_object (w, which[e]);
          double v = ts_page_member_double (x, ts_wait_pattern_name (p));
          waits[2 * p + e] = isnan (v) ? 0 : v;
        }
      if (waits[2 * p] > 0 || waits[2 * p + 1] > 0)
        {
          g_ptr_array_add (names, (gpointer) ts_wait_pattern_name (p));
          g_array_append_vals (values, &waits[2 * p], 2);
        }
    }
  g_string_append (s, "<h2>Where the waiting went</h2>\n");
  if (!w)
    {
      g_string_append (s, "<p>The run found no wait states (--no-wait-states).</p>\n");
      return;
    }
  if (names->len == 0)
    {
      g_string_append (s, "<p>Neither execution waits.</p>\n");
      return;
    }
  TsBars b = { names->len, 2, (const char *const *) names->pdata,
               (const char *const *) names->pdata, which, (double *) values->data,
               "pattern-bar", "s" };
  ts_page_figure_open (s, "wait-states");
  ts_figure_bars (s, &b);
  ts_page_figure_close (s);
}

static gint
by_either (gconstpointer a, gconstpointer b)
{
  const double *x = a, *y = b; /* original, predicted */
  double mx = MAX (x[0], x[1]), my = MAX (y[0], y[1]);
  return mx > my ? -1 : mx < my;
}

/* The regions with the most time, before and after (summary.json's regions). */
static void
region_bars (GString *s, JsonObject *summary)
{
  JsonArray *rs = ts_page_array (summary, "regions");
  guint n = rs ? json_array_get_length (rs) : 0;
  /* Rows of three doubles: original, predicted, the region's index. */
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, 3 * sizeof (double));
  for (guint i = 0; i < n; i++)
    {
      JsonObject *r = ts_page_element (rs, i);
      if (!ts_page_string (r, "name"))
        continue;
      double row[3] = { ts_page_member_double (r, "original_s"), ts_page_member_double (r, "predicted_s"), i };
      if (!isnan (row[0]) && !isnan (row[1]))
        g_array_append_vals (rows, row, 1);
    }
  g_array_sort (rows, by_either);
  guint shown = MIN (rows->len, 10u);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autofree double *values = g_new (double, 2 * MAX (shown, 1));
  for (guint i = 0; i < shown; i++)
    {
      const double *row = &g_array_index (rows, double, 3 * i);
      JsonObject *r = ts_page_element (rs, (guint) row[2]);
      g_ptr_array_add (names, (gpointer) ts_page_string (r, "name"));
      values[2 * i] = row[0];
      values[2 * i + 1] = row[1];
    }
  g_string_append (s, "<h2>The regions with the most time, before and after</h2>\n");
  const char *series[] = { "original", "predicted" };
  TsBars b = { shown, 2, (const char *const *) names->pdata, (const char *const *) names->pdata,
               series, values, "region-bar", "s" };
  ts_page_figure_open (s, "regions");
  ts_figure_bars (s, &b);
  ts_page_figure_close (s);
}

/* The regions of @totals (by name) as indices of @t; those it lacks are
 * left out. Returns how many. */
static guint
regions_in (const TsTimeline *t, const GArray *totals, gboolean user_only, guint most,
            guint32 *out)
{
  guint n = 0;
  double first = 0;
  for (guint i = 0; i < totals->len && n < most; i++)
    {
      const RegionTotal *r = &g_array_index (totals, RegionTotal, i);
      guint32 id = ts_timeline_region_by_name (t, r->name);
      double total = r->seconds[0] + r->seconds[1];
      if (id == TS_TIMELINE_NONE || (user_only && r->mpi))
        continue;
      /* Dominant: within a factor 20 of the first. */
      if (n > 0 && total < first / 20)
        break;
      first = n == 0 ? total : first;
      out[n++] = id;
    }
  return n;
}

/* Each rank's time in the dominant regions (the program's own, else any),
 * less the mean over ranks, in both executions: Scalasca's "which ranks"
 * and seed 002's imbalance of the time-dominant functions. */
static void
deviation_bars (GString *s, const TsTimeline *const *t, const GArray *totals)
{
  const TsTimeline *shape = t[0] ? t[0] : t[1];
  gboolean user = FALSE;
  for (guint i = 0; i < totals->len && !user; i++)
    user = !g_array_index (totals, RegionTotal, i).mpi;
  guint rows = ts_timeline_n_rows (shape);
  g_autofree double *values = g_new0 (double, 2 * rows);
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint e = 0; e < 2; e++)
    {
      guint32 ids[DOMINANT_REGIONS];
      guint n = t[e] ? regions_in (t[e], totals, user, DOMINANT_REGIONS, ids) : 0;
      if (e == (t[0] ? 0u : 1u))
        for (guint k = 0; k < n; k++)
          g_string_append_printf (names, "%s%s", k ? ", " : "", ts_timeline_region_name (t[e], ids[k]));
      /* The mean over every rank, from the regions' totals. */
      double mean = 0;
      for (guint k = 0; k < n; k++)
        mean += ts_timeline_region_total (t[e], ids[k]) / ts_timeline_n_ranks (t[e]);
      for (guint row = 0; row < rows && t[e] && row < ts_timeline_n_rows (t[e]); row++)
        {
          values[2 * row + e] = -mean;
          for (guint k = 0; k < n; k++)
            values[2 * row + e] += ts_timeline_row_seconds (t[e], row, ids[k]);
        }
    }
  for (guint row = 0; row < rows; row++)
    g_ptr_array_add (labels, g_strdup_printf ("rank %u", ts_timeline_row_rank (shape, row)));
  g_string_append (s, "<h3>Each rank against the mean, in ");
  ts_figure_append_text (s, names->str);
  g_string_append (s, "</h3>\n");
  const char *series[] = { "original", "predicted" };
  TsBars b = { rows, 2, (const char *const *) labels->pdata, (const char *const *) labels->pdata,
               series, values, "rank-bar", "s" };
  ts_page_figure_open (s, "deviation");
  ts_figure_bars (s, &b);
  ts_page_figure_close (s);
}

static void
rank_sections (GString *s, const TsTimeline *const *t, const GArray *totals)
{
  g_string_append (s, "<h2>Which ranks vary</h2>\n<p>Seconds each rank spent in the regions with "
                      "the most time (darker: closer to the slowest rank).</p>\n"
                      "<div class=\"figures\">");
  const char *titles[] = { "as traced", "predicted" };
  for (guint e = 0; e < 2; e++)
    if (t[e])
      {
        guint32 ids[HEAT_REGIONS];
        guint n = regions_in (t[e], totals, FALSE, HEAT_REGIONS, ids);
        g_string_append_printf (s, "<div><h3>%s</h3>", titles[e]);
        ts_page_figure_open (s, e == 0 ? "heat-original" : "heat-predicted");
        ts_figure_heat_map (s, t[e], ids, n);
        ts_page_figure_close (s);
        g_string_append (s, "</div>");
      }
  g_string_append (s, "</div>\n");
  deviation_bars (s, t, totals);
}

/* What a user may point `tracesim report` at by mistake. */
static gboolean
check_output_dir (const char *dir, GError **error)
{
  g_autofree char *base = g_path_get_basename (dir);
  if (strstr (base, ".tmp-"))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s is the temporary directory of a run that did not finish (interrupted or "
                   "failed): run it again; tracesim removes such directories when it can", dir);
      return FALSE;
    }
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no such directory", dir);
      return FALSE;
    }
  return TRUE;
}

typedef struct {
  const char *anchor;
  const TsTimelineOptions *options;
  TsTimeline *timeline;
  GError *error;
} Build;

static gpointer
build_thread (gpointer data)
{
  Build *b = data;
  b->timeline = ts_timeline_build (b->anchor, b->options, &b->error);
  return NULL;
}

char *
ts_html_report_run (const char *dir, const char *trace, GError **error)
{
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no such directory", dir);
      return NULL;
    }
  g_autofree char *summary_path = g_build_filename (dir, "summary.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *summary = read_object (parser, summary_path,
                                     "not the output of a finished tracesim run", error);
  if (!summary || !need_object (summary, "original", summary_path, error)
      || !need_object (summary, "predicted", summary_path, error))
    return NULL;
  g_autofree char *predicted = g_build_filename (dir, "predicted", "traces.otf2", NULL);
  if (!g_file_test (predicted, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   "%s: no predicted timeline: the run wrote no archive (a sweep's point that "
                   "computed its runtime only); run it with tracesim run to draw it", predicted);
      return NULL;
    }
  double span = fmax (ts_page_member_double (ts_page_object (summary, "original"), "runtime_s"),
                      ts_page_member_double (ts_page_object (summary, "predicted"), "runtime_s"));
  if (!(span > 0))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s gives no runtime (original.runtime_s, predicted.runtime_s): damaged, or "
                   "written by another version; run it again", summary_path);
      return NULL;
    }
  /* Hatches only where the run found wait states (not --no-wait-states). */
  TsTimelineOptions to = { TS_FIGURE_TIMELINE_WIDTH, span, MAX_ROWS,
                           json_object_has_member (summary, "wait_states") };
  g_autofree char *original = original_trace (dir, trace, summary);
  /* The two archives are read at once, one a thread: each is a first pass
   * and a wait-state analysis, and the machine has a core for each. */
  Build ob = { original, &to, NULL, NULL };
  GThread *other = original ? g_thread_new ("report-original", build_thread, &ob) : NULL;
  GError *failed = NULL;
  g_autoptr (TsTimeline) pt = ts_timeline_build (predicted, &to, &failed);
  if (other)
    g_thread_join (other);
  g_autoptr (TsTimeline) ot = ob.timeline;
  g_autoptr (GError) missing = ob.error;
  if (!pt)
    {
      g_propagate_error (error, failed);
      return NULL;
    }
  g_autofree char *note
    = ot ? NULL
         : g_strdup_printf ("The original trace cannot be read (%s): only the predicted timeline "
                            "is drawn. Give it with tracesim report --trace.",
                            missing ? missing->message : "summary.json names none");
  const TsTimeline *both[2] = { ot, pt };
  g_autoptr (GArray) totals = region_totals (both);
  double waits[2 * TS_WAIT_N_PATTERNS];
  g_autoptr (GString) s = g_string_new (NULL);
  ts_page_open (s, "tracesim report");
  run_header (s, summary, original, note);
  GString *later = g_string_new (NULL);
  wait_bars (later, summary, waits);
  g_string_append (s, "<h2>Timelines: as traced, above, and predicted, on one time axis</h2>\n");
  legends (s, totals, waits);
  const char *titles[] = { "as traced", "predicted" };
  ts_page_figure_open (s, "timelines");
  ts_figure_timelines (s, both, titles, 2, span);
  ts_page_figure_close (s);
  g_string_append (s, later->str);
  g_string_free (later, TRUE);
  region_bars (s, summary);
  rank_sections (s, both, totals);
  ts_page_close (s);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* ---- writing ------------------------------------------------------------------ */

void
ts_report_figure_free (TsReportFigure *f)
{
  g_free (f->file);
  if (f->png)
    g_bytes_unref (f->png);
  g_free (f);
}

typedef struct {
  TsReportFigure *figure;
  const char *svg;
  gsize len;
  GError *error;
} Drawing;

static gpointer
draw_figure (gpointer data)
{
  Drawing *d = data;
  if (!(d->figure->png = ts_figure_png (d->svg, d->len, &d->error)))
    g_prefix_error (&d->error, "the figure %s: ", d->figure->file);
  return NULL;
}

GPtrArray *
ts_html_report_figures (const char *html, GError **error)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ts_report_figure_free);
  g_autoptr (GArray) drawings = g_array_new (FALSE, TRUE, sizeof (Drawing));
  static const char open[] = "<figure id=\"fig-";
  for (const char *at = strstr (html, open); at; at = strstr (at, open))
    {
      const char *name = at + strlen (open), *quote = strchr (name, '"');
      const char *svg = quote ? strstr (quote, "<svg ") : NULL;
      const char *end = svg ? strstr (svg, "</svg>") : NULL;
      if (!end)
        break;
      end += strlen ("</svg>");
      TsReportFigure *f = g_new0 (TsReportFigure, 1);
      g_autofree char *bare = g_strndup (name, quote - name);
      f->file = g_strdup_printf ("report-%s.png", bare);
      g_ptr_array_add (out, f);
      Drawing d = { f, svg, end - svg, NULL };
      g_array_append_val (drawings, d);
      at = end;
    }
  /* The first figure (the timelines, the largest) on a thread of its own,
   * the others meanwhile. */
  Drawing *d = (Drawing *) drawings->data;
  GThread *first = drawings->len ? g_thread_new ("report-figure", draw_figure, &d[0]) : NULL;
  for (guint i = 1; i < drawings->len; i++)
    draw_figure (&d[i]);
  if (first)
    g_thread_join (first);
  for (guint i = 0; i < drawings->len; i++)
    if (d[i].error)
      {
        g_propagate_error (error, d[i].error);
        for (guint j = i + 1; j < drawings->len; j++)
          g_clear_error (&d[j].error);
        g_ptr_array_unref (out);
        return NULL;
      }
  return out;
}

/* One file of the report into @dir, as @how says. */
static gboolean
write_one (const char *dir, const char *name, const char *data, gsize len, TsReportInto how,
           const char *mark, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  switch (how)
    {
    case TS_REPORT_INTO_NEW:
      return ts_output_dir_write_file (path, data, len, error);
    case TS_REPORT_INTO_RUN:
      return ts_output_dir_add_file (dir, name, data, len, error);
    case TS_REPORT_INTO_SWEEP:
    default:
      return ts_output_file_write (path, data, len, mark, error);
    }
}

gboolean
ts_html_report_write_files (const char *dir, const char *html, TsReportInto how,
                            GPtrArray *written, GError **error)
{
  g_autoptr (GPtrArray) figures = ts_html_report_figures (html, error);
  if (!figures)
    return FALSE;
  for (guint i = 0; i < figures->len; i++)
    {
      const TsReportFigure *f = figures->pdata[i];
      gsize len;
      const char *png = g_bytes_get_data (f->png, &len);
      if (!write_one (dir, f->file, png, len, how, "\x89PNG", error))
        return FALSE;
      if (written)
        g_ptr_array_add (written, g_strdup (f->file));
    }
  if (!write_one (dir, TS_REPORT_FILE, html, strlen (html), how, TS_WRITTEN_MARK, error))
    return FALSE;
  if (written)
    g_ptr_array_add (written, g_strdup (TS_REPORT_FILE));
  return TRUE;
}

gboolean
ts_html_report_write (const char *dir, const char *trace, TsReportKind *kind, GError **error)
{
  g_autofree char *mark = g_build_filename (dir, ".tracesim-sweep", NULL);
  g_autofree char *advise = g_build_filename (dir, "inputs", "advise", "advise.sweep", NULL);
  g_autofree char *html = NULL;
  if (!check_output_dir (dir, error))
    return FALSE;
  if (g_file_test (mark, G_FILE_TEST_EXISTS))
    {
      *kind = g_file_test (advise, G_FILE_TEST_EXISTS) ? TS_REPORT_ADVISE : TS_REPORT_SWEEP;
      html = ts_html_sweep_page (dir, *kind == TS_REPORT_ADVISE, error);
      /* A sweep's directory has no manifest: the page says it is ours. */
      return html && ts_html_report_write_files (dir, html, TS_REPORT_INTO_SWEEP, NULL, error);
    }
  *kind = TS_REPORT_RUN;
  html = ts_html_report_run (dir, trace, error);
  return html && ts_html_report_write_files (dir, html, TS_REPORT_INTO_RUN, NULL, error);
}
