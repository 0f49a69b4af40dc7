#include <config.h>

#include "output/html-report.h"
#include "output/html-report-private.h"
#include "output/figures.h"
#include "output/timeline.h"
#include "model/format.h"
#include "model/output_dir.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#define MAX_ROWS 256       /* rank rows of a timeline and a heat map */
#define HEAT_REGIONS 8     /* columns of a heat map */
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

/* The original trace: @given, else summary.json's (ts_page_input_path). */
static char *
original_trace (const char *dir, const char *given, JsonObject *summary)
{
  if (given)
    return g_strdup (given);
  const char *named = ts_page_string (summary, "trace");
  return named ? ts_page_input_path (dir, named) : NULL;
}

/* The window of the timelines: [from, from + span) of a run @whole long. */
typedef struct {
  double from, span, whole;
  gboolean narrowed;  /* --from or --to given */
} Window;

/* ---- a run -------------------------------------------------------------------- */

static void
header_row (GString *s, const char *name, const char *value)
{
  g_string_append_printf (s, "<tr><th>%s</th><td style=\"text-align:left\">", name);
  ts_figure_append_text (s, value);
  g_string_append (s, "</td></tr>\n");
}

/* The numbers, the window drawn, and the note of what is missing. */
static void
run_header (GString *s, JsonObject *summary, const char *trace, const Window *w, const char *note)
{
  double before = ts_page_member_double (ts_page_object (summary, "original"), "runtime_s");
  double after = ts_page_member_double (ts_page_object (summary, "predicted"), "runtime_s");
  g_autofree char *b = ts_format_seconds (before), *a = ts_format_seconds (after);
  g_autofree char *change = ts_format_percent (after - before, before);
  g_autofree char *predicted = g_strdup_printf ("%s (%s%s)", a, after > before ? "+" : "", change);
  g_autofree char *ranks = g_strdup_printf ("%" G_GINT64_FORMAT,
                                            (gint64) ts_page_member_double (summary, "ranks"));
  g_autofree char *speedup = g_strdup_printf ("%.3gx", ts_page_member_double (summary, "speedup"));
  g_string_append (s, "<table class=\"numbers\">");
  header_row (s, "trace", trace ? trace : "(unknown)");
  header_row (s, "ranks", ranks);
  header_row (s, "runtime as traced", b);
  header_row (s, "runtime predicted", predicted);
  g_string_append_printf (s, "<tr><th>speed-up</th><td class=\"speedup\">%s</td></tr>", speedup);
  g_autofree char *from = ts_format_seconds (w->from), *to = ts_format_seconds (w->from + w->span);
  g_autofree char *whole = ts_format_seconds (w->whole);
  g_string_append_printf (s, "<tr><th>timelines</th><td style=\"text-align:left\"><span id=\"window\">"
                             "%s to %s</span> of %s%s</td></tr></table>\n", from, to, whole,
                          w->narrowed ? " (tracesim report --from/--to)" : "");
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
  double ranks = ts_page_member_double (summary, "ranks");
  double whole[2] = { ranks * ts_page_member_double (ts_page_object (summary, "original"), "runtime_s"),
                      ranks * ts_page_member_double (ts_page_object (summary, "predicted"), "runtime_s") };
  TsBars b = { names->len, 2, (const char *const *) names->pdata,
               (const char *const *) names->pdata, which, (double *) values->data,
               "pattern-bar", "s", whole };
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
  g_string_append (s, "<h2>The regions with the most time, before and after</h2>\n<p>Inclusive "
                      "time over all ranks, and its share of the execution's rank-time (ranks "
                      "&#215; runtime).</p>\n");
  const char *series[] = { "original", "predicted" };
  double ranks = ts_page_member_double (summary, "ranks");
  double whole[2] = { ranks * ts_page_member_double (ts_page_object (summary, "original"), "runtime_s"),
                      ranks * ts_page_member_double (ts_page_object (summary, "predicted"), "runtime_s") };
  TsBars b = { shown, 2, (const char *const *) names->pdata, (const char *const *) names->pdata,
               series, values, "region-bar", "s", whole };
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
      const TsRegionTotal *r = &g_array_index (totals, TsRegionTotal, i);
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
    user = !g_array_index (totals, TsRegionTotal, i).mpi;
  /* The ranks' own rows only (their threads' rows have their own mean),
   * each found by its rank in both timelines, whose threads may differ (a
   * `threads` what-if). */
  g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint row = 0; row < ts_timeline_n_rows (shape); row++)
    if (ts_timeline_row_thread (shape, row) == 0)
      {
        guint r = ts_timeline_row_rank (shape, row);
        g_array_append_val (ranks, r);
      }
  guint rows = ranks->len;
  g_autofree double *values = g_new0 (double, 2 * MAX (rows, 1));
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
      for (guint i = 0; i < rows && t[e]; i++)
        {
          gint row = ts_timeline_rank_row (t[e], g_array_index (ranks, guint, i));
          if (row < 0)
            continue;
          values[2 * i + e] = -mean;
          for (guint k = 0; k < n; k++)
            values[2 * i + e] += ts_timeline_row_seconds (t[e], (guint) row, ids[k]);
        }
    }
  for (guint i = 0; i < rows; i++)
    g_ptr_array_add (labels, g_strdup_printf ("rank %u", g_array_index (ranks, guint, i)));
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

/* The run's summary.json (in @parser), checked for what the page needs;
 * @span gets the longer runtime. */
static JsonObject *
load_run (const char *dir, JsonParser *parser, double *span, GError **error)
{
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no such directory", dir);
      return NULL;
    }
  g_autofree char *summary_path = g_build_filename (dir, "summary.json", NULL);
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
  *span = fmax (ts_page_member_double (ts_page_object (summary, "original"), "runtime_s"),
                ts_page_member_double (ts_page_object (summary, "predicted"), "runtime_s"));
  if (!(*span > 0))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s gives no runtime (original.runtime_s, predicted.runtime_s): damaged, or "
                   "written by another version; run it again", summary_path);
      return NULL;
    }
  return summary;
}

/* The window [@from, @to) of a run @whole long (NAN: its start, its end);
 * a --to past the end is the end, as a viewer's zoom stops there. */
static gboolean
window_of (double from, double to, double whole, Window *w, GError **error)
{
  w->narrowed = !isnan (from) || !isnan (to);
  from = isnan (from) ? 0 : from;
  to = isnan (to) ? whole : MIN (to, whole);
  w->whole = whole;
  g_autofree char *f = ts_format_seconds (from), *t = ts_format_seconds (to);
  g_autofree char *end = ts_format_seconds (whole);
  if (from < 0 || from >= whole)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--from %s: the run's timelines span 0 s to %s (the longer of its runtimes, "
                   "from the trace's start)", f, end);
      return FALSE;
    }
  if (!(to > from))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--to %s is not after --from %s: give a window of some length", t, f);
      return FALSE;
    }
  w->from = from;
  w->span = to - from;
  return TRUE;
}

/* The timelines of the original trace (NULL and @missing when it cannot
 * be read) and of the prediction, over @o's window. */
static gboolean
build_both (const char *original, const char *predicted, const TsTimelineOptions *o,
            TsTimeline **both, GError **missing, GError **error)
{
  /* The two archives are read at once, one a thread: each is a first pass
   * and a wait-state analysis, and the machine has a core for each. */
  Build ob = { original, o, NULL, NULL };
  GThread *other = original ? g_thread_new ("report-original", build_thread, &ob) : NULL;
  both[1] = ts_timeline_build (predicted, o, error);
  if (other)
    g_thread_join (other);
  both[0] = ob.timeline;
  if (ob.error)
    g_propagate_error (missing, ob.error);
  if (!both[1])
    g_clear_pointer (&both[0], ts_timeline_free);
  return both[1] != NULL;
}

/* The whole page, from the top: the sentence, the numbers, the rules, the
 * timelines, the waiting, the regions, the ranks. */
static char *
run_page (const char *dir, JsonObject *summary, const char *original, const Window *w,
          const TsTimeline *const *both, const char *note)
{
  g_autoptr (GArray) totals = ts_figure_region_totals (both);
  g_autoptr (TsPalette) palette = ts_figure_palette (totals);
  g_autoptr (GString) rules = g_string_new (NULL);
  ts_page_rules (rules, dir, summary);
  g_autoptr (GString) s = g_string_new (NULL);
  ts_page_open (s, "tracesim report");
  g_string_append (s, "<h1>tracesim: the run as traced and as predicted</h1>\n");
  ts_page_story (s, summary, totals, both[0] != NULL);
  run_header (s, summary, original, w, note);
  g_string_append (s, "<h2>The what-if</h2>\n");
  g_string_append (s, rules->len ? rules->str : "<p>None: the run as traced, replayed.</p>\n");
  /* run --cpu-time: what the rank's compute is, which a reader of a
   * time-shared recording needs to weigh the prediction. */
  JsonObject *options = ts_page_object (ts_page_object (summary, "inputs"), "options");
  gboolean estimated = options && json_object_has_member (options, "cpu_time_estimated")
                       && json_object_get_boolean_member (options, "cpu_time_estimated");
  if (estimated)
    g_string_append (s, "<p>Compute was the trace's wall time times the share of a core its "
                        "node's load left each rank (<code>--cpu-estimate</code>: the trace has "
                        "no CPU time): the time a rank spent descheduled in the recording is not "
                        "replayed as its work.</p>\n");
  else if (options && json_object_has_member (options, "cpu_time")
           && json_object_get_boolean_member (options, "cpu_time"))
    g_string_append (s, "<p>Compute was taken from the trace's CPU time (<code>--cpu-time</code>): "
                        "the time a rank spent descheduled in the recording is not replayed as "
                        "its work.</p>\n");
  double waits[2 * TS_WAIT_N_PATTERNS];
  gboolean patterns[TS_WAIT_N_PATTERNS];
  g_autoptr (GString) later = g_string_new (NULL);
  wait_bars (later, summary, waits);
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    patterns[p] = waits[2 * p] > 0 || waits[2 * p + 1] > 0;
  g_string_append (s, "<h2>Timelines: as traced, above, and predicted, on one time axis</h2>\n"
                      "<p class=\"hint\">Drag across the timelines to zoom into a window; "
                      "double-click for the whole span. <code>tracesim report --from T --to "
                      "T</code> draws a window at full resolution.</p>\n");
  const char *titles[] = { "as traced", "predicted" };
  TsTimelineFigure f = { both, titles, 2, w->from, w->span, palette, totals, patterns };
  ts_page_figure_open (s, "timelines");
  ts_figure_timelines (s, &f);
  ts_page_figure_close (s);
  g_string_append (s, later->str);
  region_bars (s, summary);
  ts_page_region_table (s, summary, totals, both);
  rank_sections (s, both, totals);
  ts_page_zoom_script (s);
  ts_page_close (s);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
ts_html_report_run_window (const char *dir, const char *trace, double from, double to,
                           GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  double whole = 0;
  Window w;
  JsonObject *summary = load_run (dir, parser, &whole, error);
  if (!summary || !window_of (from, to, whole, &w, error))
    return NULL;
  g_autofree char *predicted = g_build_filename (dir, "predicted", "traces.otf2", NULL);
  /* Hatches only where the run found wait states (not --no-wait-states). */
  TsTimelineOptions o = { TS_FIGURE_TIMELINE_WIDTH, w.span, MAX_ROWS,
                          json_object_has_member (summary, "wait_states"), w.from };
  g_autofree char *original = original_trace (dir, trace, summary);
  TsTimeline *both[2] = { NULL, NULL };
  g_autoptr (GError) missing = NULL;
  if (!build_both (original, predicted, &o, both, &missing, error))
    return NULL;
  g_autofree char *note
    = both[0] ? NULL
              : g_strdup_printf ("The original trace cannot be read (%s): only the predicted "
                                 "timeline is drawn. Give it with tracesim report --trace.",
                                 missing ? missing->message : "summary.json names none");
  char *html = run_page (dir, summary, original, &w, (const TsTimeline *const *) both, note);
  ts_timeline_free (both[0]);
  ts_timeline_free (both[1]);
  return html;
}

char *
ts_html_report_run (const char *dir, const char *trace, GError **error)
{
  return ts_html_report_run_window (dir, trace, NAN, NAN, error);
}
