#include <config.h>

/* The top of a run's page: one sentence that states what changed and why,
 * the what-if's rules as written, and the regions' times, exclusive next
 * to inclusive, each with its share. */
#include "output/html-report-private.h"
#include "output/figures.h"
#include "model/format.h"

#include <math.h>
#include <string.h>

#define TABLE_REGIONS 20

/* A change as a reader writes it: "-578 ms", "+1.2 s". */
static char *
signed_seconds (double v)
{
  g_autofree char *t = ts_format_seconds (v);
  /* Rounding (2e-15 s) prints as "0 s": no sign. */
  return v > 0 && !g_str_equal (t, "0 s") ? g_strconcat ("+", t, NULL) : g_steal_pointer (&t);
}

/* The hypothesis file of summary.json's @entry as it is now: its text, or
 * NULL and *@why. *@changed when its SHA-256 is not the run's. */
static char *
rules_text (const char *dir, JsonObject *entry, gboolean *changed, char **why)
{
  const char *named = ts_page_string (entry, "path");
  g_autofree char *path = named ? ts_page_input_path (dir, named) : NULL;
  g_autoptr (GError) error = NULL;
  char *text = NULL;
  gsize len = 0;
  if (!path || !g_file_get_contents (path, &text, &len, &error))
    {
      *why = g_strdup (error ? error->message : "summary.json names no file");
      return NULL;
    }
  g_autofree char *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text, len);
  const char *recorded = ts_page_string (entry, "sha256");
  *changed = !recorded || g_ascii_strcasecmp (sum, recorded) != 0;
  return text;
}

void
ts_page_rules (GString *s, const char *dir, JsonObject *summary)
{
  JsonArray *h = ts_page_array (ts_page_object (summary, "inputs"), "hypotheses");
  for (guint i = 0; h && i < json_array_get_length (h); i++)
    {
      JsonObject *entry = ts_page_element (h, i);
      gboolean changed = FALSE;
      g_autofree char *why = NULL;
      g_autofree char *text = rules_text (dir, entry, &changed, &why);
      const char *path = ts_page_string (entry, "path");
      g_string_append (s, "<div class=\"rules\"><b>");
      ts_figure_append_text (s, path ? path : "?");
      g_string_append (s, "</b>");
      if (!text)
        {
          g_string_append (s, " <span class=\"note\">(its rules cannot be shown: ");
          ts_figure_append_text (s, why);
          g_string_append (s, ")</span></div>\n");
          continue;
        }
      if (changed)
        g_string_append (s, " <span class=\"note\">(changed since the run: its SHA-256 is not "
                            "the one summary.json records; these are its rules now)</span>");
      g_string_append (s, "<pre>");
      ts_figure_append_text (s, text);
      g_string_append (s, "</pre></div>\n");
    }
}

/* The names of the regions the what-if's rules select, as the run bound
 * them (summary.json's regions[].what_if: the hypotheses module read the
 * selectors, quoted names and regular expressions included); an older
 * summary.json without it selects none. */
static GHashTable *
what_if_regions (JsonObject *summary)
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);
  JsonArray *regions = ts_page_array (summary, "regions");
  for (guint i = 0; regions && i < json_array_get_length (regions); i++)
    {
      JsonObject *r = ts_page_element (regions, i);
      const char *name = ts_page_string (r, "name");
      if (name && json_object_has_member (r, "what_if")
          && json_object_get_boolean_member (r, "what_if"))
        g_hash_table_add (names, (gpointer) name);
    }
  return names;
}

/* The region whose exclusive time changed most: among those the rules
 * select when any does (*@selected), else among all. NULL when none
 * changed. */
static const TsRegionTotal *
cause (const GArray *totals, GHashTable *targets, gboolean *selected)
{
  const TsRegionTotal *best = NULL;
  for (int pass = g_hash_table_size (targets) ? 0 : 1; pass < 2 && !best; pass++)
    {
      for (guint i = 0; i < totals->len; i++)
        {
          const TsRegionTotal *r = &g_array_index (totals, TsRegionTotal, i);
          double d = fabs (r->seconds[1] - r->seconds[0]);
          /* Under 1 ns is rounding (a difference of sums), no change. */
          if ((pass == 1 || g_hash_table_contains (targets, r->name)) && d >= 1e-9
              && (!best || d > fabs (best->seconds[1] - best->seconds[0])))
            best = r;
        }
      *selected = pass == 0;
    }
  return best;
}

void
ts_page_story (GString *s, JsonObject *summary, const GArray *totals, gboolean both)
{
  g_autoptr (GHashTable) targets = what_if_regions (summary);
  double before = ts_page_member_double (ts_page_object (summary, "original"), "runtime_s");
  double after = ts_page_member_double (ts_page_object (summary, "predicted"), "runtime_s");
  g_string_append (s, "<p class=\"story\">");
  gboolean selected = FALSE;
  const TsRegionTotal *r = both ? cause (totals, targets, &selected) : NULL;
  if (r)
    {
      g_autofree char *d = signed_seconds (r->seconds[1] - r->seconds[0]);
      g_string_append (s, "<b>");
      ts_figure_append_text (s, r->name);
      g_string_append_printf (s, "</b> %s &#8594; ", d);
    }
  JsonObject *w = ts_page_object (summary, "wait_states");
  int most = -1;
  double dmost = 0;
  for (guint p = 0; w && p < TS_WAIT_N_PATTERNS; p++)
    {
      double a = ts_page_member_double (ts_page_object (w, "original"), ts_wait_pattern_name (p));
      double b = ts_page_member_double (ts_page_object (w, "predicted"), ts_wait_pattern_name (p));
      if (!isnan (a) && !isnan (b) && fabs (b - a) >= 1e-9 && fabs (b - a) > fabs (dmost))
        most = (int) p, dmost = b - a;
    }
  if (most >= 0)
    {
      g_autofree char *d = signed_seconds (dmost);
      g_string_append_printf (s, "<b>%s</b> %s &#8594; ", ts_wait_pattern_name (most), d);
    }
  g_autofree char *pct = ts_format_percent (after - before, before);
  g_autofree char *b = ts_format_seconds (before), *a = ts_format_seconds (after);
  g_string_append_printf (s, "<b>runtime %s", after > before && before > 0 ? "+" : "");
  ts_figure_append_text (s, pct); /* "<0.01%" */
  g_string_append_printf (s, "</b> (%s &#8594; %s)</p>\n", b, a);
  g_string_append (s, "<p class=\"story-key\">Read: ");
  if (r)
    g_string_append_printf (s, "the %s whose own time (exclusive, all ranks) changed most, ",
                            selected ? "region of the what-if" : "region");
  if (most >= 0)
    g_string_append (s, "the wait state that changed most (all ranks), ");
  g_string_append (s, "the runtime, as traced &#8594; predicted.</p>\n");
}

/* "1.23 s (41%)": @v and its share of @whole. */
static void
time_cell (GString *s, double v, double whole)
{
  if (isnan (v))
    {
      g_string_append (s, "<td></td>");
      return;
    }
  g_autofree char *t = ts_format_seconds (v), *p = ts_format_percent (v, whole);
  g_string_append_printf (s, "<td>%s <small>(", t);
  ts_figure_append_text (s, p); /* "<0.01%" */
  g_string_append (s, ")</small></td>");
}

static gint
by_largest (gconstpointer a, gconstpointer b)
{
  const double *x = a, *y = b;
  return x[0] > y[0] ? -1 : x[0] < y[0];
}

void
ts_page_region_table (GString *s, JsonObject *summary, const GArray *totals,
                      const TsTimeline *const *both)
{
  JsonArray *rs = ts_page_array (summary, "regions");
  double ranks = ts_page_member_double (summary, "ranks");
  double whole[2] = { ranks * ts_page_member_double (ts_page_object (summary, "original"), "runtime_s"),
                      ranks * ts_page_member_double (ts_page_object (summary, "predicted"), "runtime_s") };
  g_autoptr (GHashTable) exclusive = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < totals->len; i++)
    {
      const TsRegionTotal *r = &g_array_index (totals, TsRegionTotal, i);
      g_hash_table_insert (exclusive, (gpointer) r->name, (gpointer) r);
    }
  /* Rows: the largest inclusive time of either execution, and the index. */
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, 2 * sizeof (double));
  for (guint i = 0; rs && i < json_array_get_length (rs); i++)
    {
      JsonObject *r = ts_page_element (rs, i);
      double e[2] = { fmax (ts_page_member_double (r, "original_s"), ts_page_member_double (r, "predicted_s")), i };
      if (ts_page_string (r, "name") && !isnan (e[0]))
        g_array_append_vals (order, e, 1);
    }
  g_array_sort (order, by_largest);
  g_string_append (s, "<table class=\"regions\"><tr><th rowspan=\"2\">region</th><th colspan=\"2\">"
                      "as traced</th><th colspan=\"2\">predicted</th><th rowspan=\"2\">change "
                      "(exclusive)</th></tr>\n<tr><th>inclusive</th><th>exclusive</th>"
                      "<th>inclusive</th><th>exclusive</th></tr>\n");
  for (guint i = 0; i < MIN (order->len, TABLE_REGIONS); i++)
    {
      JsonObject *r = ts_page_element (rs, (guint) g_array_index (order, double, 2 * i + 1));
      const char *name = ts_page_string (r, "name");
      const TsRegionTotal *x = g_hash_table_lookup (exclusive, name);
      g_string_append (s, "<tr class=\"region\"><td style=\"text-align:left\">");
      ts_figure_append_text (s, name);
      g_string_append (s, "</td>");
      for (guint e = 0; e < 2; e++)
        {
          time_cell (s, ts_page_member_double (r, e ? "predicted_s" : "original_s"), whole[e]);
          /* Not in @totals: no time of its own where the timeline was read. */
          time_cell (s, x ? x->seconds[e] : both[e] ? 0 : NAN, whole[e]);
        }
      g_autofree char *d = x && both[0] && both[1] ? signed_seconds (x->seconds[1] - x->seconds[0])
                                                   : g_strdup ("");
      g_string_append_printf (s, "<td>%s</td></tr>\n", d);
    }
  g_string_append (s, "</table>\n<p>Inclusive: the time between a region's entry and its exit, "
                      "over all ranks; exclusive: the part not in a region it entered. Shares "
                      "are of the execution's rank-time (ranks &#215; runtime).</p>\n");
}
