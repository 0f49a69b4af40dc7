#include <config.h>

#include "output/figures.h"
#include "model/format.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <math.h>
#include <string.h>

/* ---- colours ---------------------------------------------------------------- */

static gint
by_total (gconstpointer a, gconstpointer b)
{
  const TsRegionTotal *x = a, *y = b;
  double sx = x->seconds[0] + x->seconds[1], sy = y->seconds[0] + y->seconds[1];
  return sx > sy ? -1 : sx < sy ? 1 : g_strcmp0 (x->name, y->name);
}

GArray *
ts_figure_region_totals (const TsTimeline *const *t)
{
  GArray *totals = g_array_new (FALSE, TRUE, sizeof (TsRegionTotal));
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
            TsRegionTotal z = { name, ts_timeline_region_is_mpi (t[i], r), { 0, 0 } };
            g_array_append_val (totals, z);
            at = GUINT_TO_POINTER (totals->len);
            g_hash_table_insert (index, (gpointer) name, at);
          }
        g_array_index (totals, TsRegionTotal, GPOINTER_TO_UINT (at) - 1).seconds[i] += sum;
      }
  /* Ties by name: the same colours for the same trace, whatever the order
   * of its definitions. */
  g_array_sort (totals, by_total);
  return totals;
}

TsPalette *
ts_figure_palette (const GArray *totals)
{
  TsPalette *p = ts_palette_new ();
  for (guint i = 0; i < totals->len; i++)
    {
      const TsRegionTotal *r = &g_array_index (totals, TsRegionTotal, i);
      ts_palette_add (p, r->name, r->mpi);
    }
  return p;
}

/* Each pattern: its ink and the angle of its hatch. */
static const struct {
  const char *ink;
  int angle;
} hatch[TS_WAIT_N_PATTERNS] = {
  [TS_WAIT_LATE_SENDER] = { "#000000", 45 },
  [TS_WAIT_LATE_RECEIVER] = { "#000000", -45 },
  [TS_WAIT_NXN] = { "#1a1a80", 0 },
  [TS_WAIT_BARRIER] = { "#1a1a80", 90 },
  [TS_WAIT_LATE_BROADCAST] = { "#5a0070", 30 },
  [TS_WAIT_EARLY_REDUCE] = { "#5a0070", -30 },
  [TS_WAIT_PARTITIONED_LATE_SENDER] = { "#004d40", 60 },
  [TS_WAIT_LATE_SENDER_WRONG_ORDER] = { "#000000", 45 },
  [TS_WAIT_NXN_COMPLETION] = { "#1a1a80", 135 },
  [TS_WAIT_BARRIER_COMPLETION] = { "#1a1a80", 120 },
  [TS_WAIT_EARLY_SCAN] = { "#5a0070", 75 },
  [TS_WAIT_INIT_COMPLETION] = { "#4d3300", 15 },
  [TS_WAIT_FINALIZE_WAIT] = { "#4d3300", -15 },
  [TS_WAIT_OMP_BARRIER] = { "#7a4a00", 105 },
  [TS_WAIT_OMP_IDLE_THREADS] = { "#7a4a00", -105 },
  [TS_WAIT_OMP_LIMITED_PARALLELISM] = { "#7a4a00", 165 },
  [TS_WAIT_OMP_LOCK_CONTENTION] = { "#7a4a00", 15 },
};

void
ts_figure_wait_defs (GString *svg)
{
  g_string_append (svg, "<svg width=\"0\" height=\"0\" style=\"position:absolute\"><defs>\n");
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    g_string_append_printf (svg,
                            "<pattern id=\"w-%s\" patternUnits=\"userSpaceOnUse\" width=\"5\" "
                            "height=\"5\" patternTransform=\"rotate(%d)\"><rect width=\"5\" "
                            "height=\"5\" fill=\"#ffffff\" fill-opacity=\"0.55\"/><line x1=\"0\" "
                            "y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"%s\" stroke-width=\"2.2\"/>"
                            "</pattern>\n",
                            ts_wait_pattern_name (p), hatch[p].angle,
                            hatch[p].ink ? hatch[p].ink : "#000000");
  g_string_append (svg, "</defs></svg>\n");
}

/* ---- timelines ------------------------------------------------------------ */

void
ts_figure_append_text (GString *s, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);
  for (char *c = valid; *c; c++)
    if ((unsigned char) *c < 0x20 && *c != '\t' && *c != '\n')
      *c = ' ';
  g_autofree char *e = g_markup_escape_text (valid, -1);
  g_string_append (s, e);
}

/* @text cut to @chars characters with an ellipsis: a label that fits its
 * margin (the whole name goes in a <title>). */
static void
append_cut (GString *s, const char *text, glong chars)
{
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);
  if (g_utf8_strlen (valid, -1) <= chars)
    {
      ts_figure_append_text (s, valid);
      return;
    }
  /* g_utf8_substring reads past a shorter string: cut only a longer one. */
  g_autofree char *head = g_utf8_substring (valid, 0, chars - 1);
  ts_figure_append_text (s, head);
  g_string_append (s, "\u2026");
}

/* A step of 1, 2 or 5 x 10^k giving about @ticks ticks over @span. */
static double
nice_step (double span, int ticks)
{
  double raw = span / ticks, p = pow (10, floor (log10 (raw)));
  double m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Ticks at the multiples of a nice step within [@from, @from + @span],
 * labelled in seconds from the trace's start (the page's script draws the
 * same for a zoomed window). */
static void
time_axis (GString *s, double y, double from, double span)
{
  double step = nice_step (span, 8);
  g_string_append_printf (s, "<g class=\"axis\" data-y=\"%g\"><line x1=\"%d\" y1=\"%g\" x2=\"%d\" "
                             "y2=\"%g\" stroke=\"#444\"/>\n", y, TS_FIGURE_TIMELINE_LEFT, y,
                          TS_FIGURE_TIMELINE_LEFT + TS_FIGURE_TIMELINE_WIDTH, y);
  for (double k = ceil (from / step - 1e-9); k * step <= (from + span) * (1 + 1e-9); k++)
    {
      double x = TS_FIGURE_TIMELINE_LEFT + (k * step - from) / span * TS_FIGURE_TIMELINE_WIDTH;
      /* k x step, not a sum of steps: 0.3 is not 0.1 + 0.1 + 0.1. */
      g_autofree char *label = ts_format_seconds (k == 0 ? 0 : k * step);
      g_string_append_printf (s, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#444\"/>"
                                 "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                              x, y, x, y + 4, x, y + 16, label);
    }
  g_string_append (s, "</g>\n");
}

static void
string_free (gpointer s)
{
  g_string_free (s, TRUE);
}

/* What a column of a row shows: a region, or a pattern; G_MAXUINT32 for
 * nothing. */
typedef guint32 (*CellFunc) (const TsTimeline *t, guint row, guint col);

static guint32
region_at (const TsTimeline *t, guint row, guint col)
{
  return ts_timeline_cell (t, row, col);
}

static guint32
wait_at (const TsTimeline *t, guint row, guint col)
{
  gint p = ts_timeline_wait (t, row, col);
  return p == TS_TIMELINE_NO_WAIT ? G_MAXUINT32 : (guint32) p;
}

/* The runs of equal columns along @row: a path per key (a subpath per
 * run), keyed by key + 1, the keys in @order as first met. */
static GHashTable *
row_runs (const TsTimeline *t, guint row, double y, double h, CellFunc at, GArray *order)
{
  GHashTable *paths = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, string_free);
  guint width = ts_timeline_width (t);
  for (guint c = 0; c < width;)
    {
      guint32 key = at (t, row, c);
      guint end = c + 1;
      while (end < width && at (t, row, end) == key)
        end++;
      if (key != G_MAXUINT32)
        {
          GString *d = g_hash_table_lookup (paths, GUINT_TO_POINTER (key + 1));
          if (!d)
            {
              d = g_string_new (NULL);
              g_hash_table_insert (paths, GUINT_TO_POINTER (key + 1), d);
              g_array_append_val (order, key);
            }
          g_string_append_printf (d, "M%u %.1fh%uv%.1fh-%uz", TS_FIGURE_TIMELINE_LEFT + c, y,
                                  end - c, h, end - c);
        }
      c = end;
    }
  return paths;
}

/* A row's label: its rank, and for another thread of it "rank:thread", as
 * Vampir names threads. Caller frees. */
static char *
row_label (const TsTimeline *t, guint row)
{
  guint thread = ts_timeline_row_thread (t, row);
  return thread > 0 ? g_strdup_printf ("%u:%u", ts_timeline_row_rank (t, row), thread)
                    : g_strdup_printf ("%u", ts_timeline_row_rank (t, row));
}

/* One row: a path per region, then a hatched path per wait-state pattern. */
static void
timeline_row (GString *s, const TsTimeline *t, TsPalette *palette, const char *run, guint row,
              double y, double h)
{
  guint rank = ts_timeline_row_rank (t, row), thread = ts_timeline_row_thread (t, row);
  g_string_append_printf (s, "<g class=\"rank-row\" data-run=\"%s\" data-rank=\"%u\"", run, rank);
  if (thread > 0)
    g_string_append_printf (s, " data-thread=\"%u\"", thread);
  g_string_append (s, ">");
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GHashTable) regions = row_runs (t, row, y, h, region_at, order);
  for (guint i = 0; i < order->len; i++)
    {
      guint32 region = g_array_index (order, guint32, i);
      const char *name = ts_timeline_region_name (t, region);
      const char *colour = ts_palette_colour (palette, name, ts_timeline_region_is_mpi (t, region));
      GString *d = g_hash_table_lookup (regions, GUINT_TO_POINTER (region + 1));
      g_string_append_printf (s, "<path fill=\"%s\" d=\"%s\"><title>", colour, d->str);
      ts_figure_append_text (s, name);
      g_string_append (s, "</title></path>");
    }
  g_array_set_size (order, 0);
  g_autoptr (GHashTable) waits = row_runs (t, row, y, h, wait_at, order);
  for (guint i = 0; i < order->len; i++)
    {
      guint32 p = g_array_index (order, guint32, i);
      const char *name = ts_wait_pattern_name (p);
      GString *d = g_hash_table_lookup (waits, GUINT_TO_POINTER (p + 1));
      g_string_append_printf (s, "<path class=\"wait\" data-pattern=\"%s\" fill=\"url(#w-%s)\" "
                                 "d=\"%s\"><title>%s</title></path>", name, name, d->str, name);
    }
  g_string_append (s, "</g>\n");
}

/* The messages, as lines from the sender's row to the receiver's, when the
 * trace has few (ts_timeline_messages); a zoom does not thicken them. */
static void
timeline_messages (GString *s, const TsTimeline *t, double top, double h, double from, double span)
{
  const GArray *m = ts_timeline_messages (t);
  for (guint i = 0; m && i < m->len; i++)
    {
      const TsTimelineMessage *e = &g_array_index (m, TsTimelineMessage, i);
      gint src = ts_timeline_rank_row (t, e->src), dst = ts_timeline_rank_row (t, e->dst);
      if (src < 0 || dst < 0)
        continue;
      double x1 = TS_FIGURE_TIMELINE_LEFT + (e->sent - from) / span * TS_FIGURE_TIMELINE_WIDTH;
      double x2 = TS_FIGURE_TIMELINE_LEFT + (e->received - from) / span * TS_FIGURE_TIMELINE_WIDTH;
      g_string_append_printf (s, "<line class=\"message\" data-from=\"%u\" data-to=\"%u\" "
                                 "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#111\" "
                                 "stroke-width=\"0.8\" vector-effect=\"non-scaling-stroke\"/>\n",
                              e->src, e->dst, x1, top + (src + 0.5) * h, x2, top + (dst + 0.5) * h);
    }
}

static void
legend_entry (GString *s, double x, double y, const char *fill, const char *name, const char *key)
{
  g_string_append_printf (s, "<g class=\"legend-entry\" data-key=\"%s\"><rect x=\"%.0f\" y=\"%.0f\" "
                             "width=\"14\" height=\"11\" fill=\"%s\" stroke=\"#999\" "
                             "stroke-width=\"0.5\"/><text x=\"%.0f\" y=\"%.0f\"><title>", key,
                          x, y, fill, x + 18, y + 10);
  ts_figure_append_text (s, name);
  g_string_append (s, "</title>");
  append_cut (s, name, 30);
  g_string_append (s, "</text></g>\n");
}

#define LEGEND_COLUMNS 4
#define LEGEND_COLUMN_W 220
#define LEGEND_ROW_H 16

/* The regions of the legend, then the patterns on a row of their own: in
 * the figure, so that its PNG twin has it too (legend_height: its height). */
static void
timeline_legend (GString *s, const TsTimelineFigure *f, double y)
{
  guint n = 0;
  g_string_append_printf (s, "<g class=\"legend\"><text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">"
                             "Regions (the largest first)</text>\n", TS_FIGURE_TIMELINE_LEFT, y + 11);
  y += 16;
  for (guint i = 0; i < MIN (f->totals->len, TS_FIGURE_LEGEND_REGIONS); i++, n++)
    {
      const TsRegionTotal *r = &g_array_index (f->totals, TsRegionTotal, i);
      g_autofree char *key = g_markup_escape_text (r->name, -1);
      legend_entry (s, TS_FIGURE_TIMELINE_LEFT + n % LEGEND_COLUMNS * LEGEND_COLUMN_W,
                    y + n / LEGEND_COLUMNS * LEGEND_ROW_H,
                    ts_palette_colour (f->palette, r->name, r->mpi), r->name, key);
    }
  n = (n + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS * LEGEND_COLUMNS;
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    if (p != TS_WAIT_LATE_SENDER_WRONG_ORDER && f->patterns[p])
      {
        g_autofree char *fill = g_strdup_printf ("url(#w-%s)", ts_wait_pattern_name (p));
        legend_entry (s, TS_FIGURE_TIMELINE_LEFT + n % LEGEND_COLUMNS * LEGEND_COLUMN_W,
                      y + n / LEGEND_COLUMNS * LEGEND_ROW_H, fill, ts_wait_pattern_name (p),
                      ts_wait_pattern_name (p));
        n++;
      }
  g_string_append (s, "</g>\n");
}

/* The height of the legend timeline_legend draws. */
static double
legend_height (const TsTimelineFigure *f)
{
  guint n = MIN (f->totals->len, TS_FIGURE_LEGEND_REGIONS);
  n = (n + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS * LEGEND_COLUMNS;
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    n += p != TS_WAIT_LATE_SENDER_WRONG_ORDER && f->patterns[p];
  return 16 + (n + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS * LEGEND_ROW_H;
}

void
ts_figure_timelines (GString *s, const TsTimelineFigure *f)
{
  guint rows = 0;
  for (guint i = 0; i < f->n; i++)
    rows = MAX (rows, f->timelines[i] ? ts_timeline_n_rows (f->timelines[i]) : 0);
  double h = CLAMP (360.0 / MAX (rows, 1), 2.0, 14.0);
  double y = 0, height = 0;
  for (guint i = 0; i < f->n; i++)
    if (f->timelines[i])
      height += 22 + ts_timeline_n_rows (f->timelines[i]) * h + 8;
  double width = MAX (TS_FIGURE_TIMELINE_LEFT + TS_FIGURE_TIMELINE_WIDTH + 20,
                      TS_FIGURE_TIMELINE_LEFT + LEGEND_COLUMNS * LEGEND_COLUMN_W);
  g_string_append_printf (s, "<svg class=\"timelines\" width=\"%.0f\" height=\"%.0f\" "
                             "font-family=\"sans-serif\" font-size=\"11\" data-from=\"%.9g\" "
                             "data-span=\"%.9g\" data-left=\"%d\" data-width=\"%d\">\n",
                          width, height + 34 + legend_height (f), f->from, f->span,
                          TS_FIGURE_TIMELINE_LEFT, TS_FIGURE_TIMELINE_WIDTH);
  for (guint i = 0; i < f->n; i++)
    {
      const TsTimeline *t = f->timelines[i];
      if (!t)
        continue;
      const char *run = i == 0 ? "original" : "predicted";
      guint n_rows = ts_timeline_n_rows (t);
      g_string_append_printf (s, "<g class=\"timeline\" data-run=\"%s\"><text x=\"%d\" y=\"%.0f\" "
                                 "font-weight=\"bold\">", run, TS_FIGURE_TIMELINE_LEFT, y + 15);
      ts_figure_append_text (s, f->titles[i]);
      g_string_append (s, "</text>\n");
      y += 22;
      double rh = h >= 8 ? h * 0.9 : h;
      for (guint r = 0; r < n_rows && h >= 7; r++)
        {
          g_autofree char *label = row_label (t, r);
          g_string_append_printf (s, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                                     "font-size=\"%.0f\">%s</text>", TS_FIGURE_TIMELINE_LEFT - 4,
                                  y + r * h + rh * 0.85, MIN (h, 11.0), label);
        }
      /* The rows in a viewport of their own: a zoom narrows its viewBox
       * (stretching the columns), the labels and the axis stay. */
      g_string_append_printf (s, "<svg class=\"plot\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
                                 "viewBox=\"%d %.1f %d %.1f\" preserveAspectRatio=\"none\">\n",
                              TS_FIGURE_TIMELINE_LEFT, y, TS_FIGURE_TIMELINE_WIDTH, n_rows * h,
                              TS_FIGURE_TIMELINE_LEFT, y, TS_FIGURE_TIMELINE_WIDTH, n_rows * h);
      for (guint r = 0; r < n_rows; r++)
        timeline_row (s, t, f->palette, run, r, y + r * h, rh);
      timeline_messages (s, t, y, h, f->from, f->span);
      g_string_append (s, "</svg>\n");
      y += n_rows * h + 8;
      g_string_append (s, "</g>\n");
    }
  time_axis (s, y + 2, f->from, f->span);
  timeline_legend (s, f, y + 30);
  g_string_append (s, "</svg>\n");
}

/* ---- bars ------------------------------------------------------------------- */

static const char *const series_colours[] = { "#8c8c8c", "#2f6fd0", "#d07a2f", "#3a9a3a" };

/* A bar's value as printed: a time (and its share of its series' whole)
 * for a unit of "s", else the number and the unit. */
static char *
bar_value (const TsBars *b, guint series, double v)
{
  if (!g_str_equal (b->unit, "s"))
    return g_strdup_printf ("%.3g %s", v, b->unit);
  g_autofree char *t = ts_format_seconds (v);
  if (!b->whole || !(b->whole[series] > 0))
    return g_steal_pointer (&t);
  g_autofree char *share = ts_format_percent (v, b->whole[series]);
  /* Escaped: a share may be "<0.01%". */
  g_autofree char *text = g_strdup_printf ("%s (%s)", t, share);
  return g_markup_escape_text (text, -1);
}

#define BAR_LABEL_CHARS 60

void
ts_figure_bars (GString *s, const TsBars *b)
{
  /* Signed values: bars go left or right of the zero line. */
  double lo = 0, hi = 0;
  glong longest = 8;
  for (guint i = 0; i < b->n_labels * b->n_series; i++)
    {
      lo = MIN (lo, b->values[i]);
      hi = MAX (hi, b->values[i]);
    }
  for (guint i = 0; i < b->n_labels; i++)
    longest = MAX (longest, g_utf8_strlen (b->labels[i], -1));
  /* The labels' margin from the longest (6.2 px a character at 11 px),
   * up to BAR_LABEL_CHARS characters; longer ones are cut. */
  const double bar = 12, label_w = 12 + 6.2 * MIN (longest, BAR_LABEL_CHARS), plot_w = 420;
  double scale = hi > lo ? plot_w / (hi - lo) : 0, zero = label_w + -lo * scale;
  double group = b->n_series * bar + 8;
  g_string_append_printf (s, "<svg class=\"bars\" width=\"%.0f\" height=\"%.0f\" "
                             "font-family=\"sans-serif\" font-size=\"11\">\n",
                          label_w + plot_w + 150, b->n_labels * group + 22);
  for (guint j = 0; j < b->n_series; j++)
    {
      g_string_append_printf (s, "<rect x=\"%.0f\" y=\"2\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                                 "<text x=\"%.0f\" y=\"11\">", label_w + j * 110,
                              series_colours[j % G_N_ELEMENTS (series_colours)], label_w + j * 110 + 14);
      ts_figure_append_text (s, b->series[j]);
      g_string_append (s, "</text>\n");
    }
  if (lo < 0)
    g_string_append_printf (s, "<line x1=\"%.1f\" y1=\"16\" x2=\"%.1f\" y2=\"%.0f\" "
                               "stroke=\"#444\"/>\n", zero, zero, b->n_labels * group + 20);
  for (guint i = 0; i < b->n_labels; i++)
    {
      double y = 20 + i * group;
      g_string_append_printf (s, "<g class=\"%s\" data-key=\"", b->group_class);
      ts_figure_append_text (s, b->keys[i]);
      g_string_append_printf (s, "\"><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\"><title>",
                              label_w - 6, y + group / 2);
      ts_figure_append_text (s, b->labels[i]);
      g_string_append (s, "</title>");
      append_cut (s, b->labels[i], BAR_LABEL_CHARS);
      g_string_append (s, "</text>");
      for (guint j = 0; j < b->n_series; j++)
        {
          double v = b->values[i * b->n_series + j], w = fabs (v) * scale;
          double x = v < 0 ? zero - w : zero;
          g_autofree char *value = bar_value (b, j, v);
          g_string_append_printf (s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" "
                                     "fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>",
                                  x, y + j * bar, w, bar - 2,
                                  series_colours[j % G_N_ELEMENTS (series_colours)],
                                  MAX (zero, x + w) + 4, y + j * bar + bar - 3, value);
        }
      g_string_append (s, "</g>\n");
    }
  g_string_append (s, "</svg>\n");
}

/* ---- heat map --------------------------------------------------------------- */

#define HEAT_NAME_CHARS 28

static void
heat_shade (double f, char out[8])
{
  int shade = (int) lround (255 - f * 200);
  g_snprintf (out, 8, "#%02x%02xff", shade, shade);
}

/* The scale of the shades: a ramp from 0 to the column's slowest rank. */
static void
heat_scale (GString *s, double x, double y)
{
  g_string_append_printf (s, "<g class=\"heat-scale\"><text x=\"%.0f\" y=\"%.0f\">share of the "
                             "column's slowest rank</text>", x, y);
  for (int i = 0; i <= 10; i++)
    {
      char c[8];
      heat_shade (i / 10.0, c);
      g_string_append_printf (s, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"10\" fill=\"%s\" "
                                 "stroke=\"#ccc\" stroke-width=\"0.5\"/>", x + i * 14, y + 5, c);
    }
  g_string_append_printf (s, "<text x=\"%.0f\" y=\"%.0f\">0%%</text><text x=\"%.0f\" y=\"%.0f\" "
                             "text-anchor=\"end\">100%%</text></g>\n", x, y + 27, x + 154, y + 27);
}

void
ts_figure_heat_map (GString *s, const TsTimeline *t, const guint32 *regions, guint n)
{
  guint rows = ts_timeline_n_rows (t);
  glong longest = 4;
  for (guint k = 0; k < n; k++)
    longest = MAX (longest, MIN (g_utf8_strlen (ts_timeline_region_name (t, regions[k]), -1),
                                 HEAT_NAME_CHARS));
  /* Names at -30 degrees: room above for the longest (6 px a character at
   * 10 px), and to the right of the last column. */
  const double cell_w = 90, left = 60, name_w = 6.0 * longest;
  const double top = 40 + name_w * 0.5, scale_h = 40;
  double cell_h = CLAMP (320.0 / MAX (rows, 1), 2.0, 14.0);
  g_autofree double *most = g_new0 (double, MAX (n, 1));
  for (guint r = 0; r < rows; r++)
    for (guint k = 0; k < n; k++)
      most[k] = MAX (most[k], ts_timeline_row_seconds (t, r, regions[k]));
  g_string_append_printf (s, "<svg class=\"heat-map\" width=\"%.0f\" height=\"%.0f\" "
                             "font-family=\"sans-serif\" font-size=\"10\">\n",
                          left + MAX (n * cell_w + name_w * 0.87, 200), top + rows * cell_h + 10 + scale_h);
  for (guint k = 0; k < n; k++)
    {
      const char *name = ts_timeline_region_name (t, regions[k]);
      g_autofree char *max = ts_format_seconds (most[k]);
      g_string_append_printf (s, "<text transform=\"translate(%.0f,%.0f) rotate(-30)\"><title>",
                              left + k * cell_w + 4, top - 18);
      ts_figure_append_text (s, name);
      g_string_append (s, "</title>");
      append_cut (s, name, HEAT_NAME_CHARS);
      g_string_append_printf (s, "</text><text class=\"heat-max\" x=\"%.0f\" y=\"%.0f\">max %s</text>\n",
                              left + k * cell_w + 2, top - 4, max);
    }
  for (guint r = 0; r < rows; r++)
    {
      guint rank = ts_timeline_row_rank (t, r), thread = ts_timeline_row_thread (t, r);
      g_autofree char *label = row_label (t, r);
      g_autofree char *who = thread > 0 ? g_strdup_printf ("rank %u thread %u", rank, thread)
                                        : g_strdup_printf ("rank %u", rank);
      double y = top + r * cell_h;
      g_string_append_printf (s, "<g class=\"heat-row\" data-rank=\"%u\"", rank);
      if (thread > 0)
        g_string_append_printf (s, " data-thread=\"%u\"", thread);
      g_string_append (s, ">");
      if (cell_h >= 7)
        g_string_append_printf (s, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                                left - 4, y + cell_h * 0.8, label);
      for (guint k = 0; k < n; k++)
        {
          double v = ts_timeline_row_seconds (t, r, regions[k]);
          char fill[8];
          heat_shade (most[k] > 0 ? v / most[k] : 0, fill);
          g_autofree char *value = ts_format_seconds (v);
          g_autofree char *percent = ts_format_percent (v, most[k]);
          g_autofree char *share = g_markup_escape_text (percent, -1);
          g_string_append_printf (s, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" "
                                     "fill=\"%s\"><title>%s: %s (%s of the slowest)</title>"
                                     "</rect>", left + k * cell_w, y, cell_w - 1, cell_h * 0.92,
                                  fill, who, value, share);
        }
      g_string_append (s, "</g>\n");
    }
  heat_scale (s, left, top + rows * cell_h + 14);
  g_string_append (s, "</svg>\n");
}

/* ---- PNG twins ---------------------------------------------------------------- */

static cairo_status_t
to_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

GBytes *
ts_figure_png (const char *svg, gsize len, GError **error)
{
  /* A document of its own: the namespace the page's parser implies, and
   * the hatch patterns the page defines once. */
  const char *open_end = memchr (svg, '>', len);
  if (!open_end || len < 5 || strncmp (svg, "<svg ", 5) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not a figure");
      return NULL;
    }
  g_autoptr (GString) doc = g_string_new ("<svg xmlns=\"http://www.w3.org/2000/svg\" ");
  g_string_append_len (doc, svg + 5, open_end + 1 - (svg + 5));
  g_autoptr (GString) defs = g_string_new (NULL);
  ts_figure_wait_defs (defs);
  g_string_append (doc, defs->str);
  g_string_append_len (doc, open_end + 1, len - (open_end + 1 - svg));
  RsvgHandle *h = rsvg_handle_new_from_data ((const guint8 *) doc->str, doc->len, error);
  if (!h)
    return NULL;
  gdouble w = 0, ht = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels (h, &w, &ht) || w < 1 || ht < 1)
    w = 800, ht = 600;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) ceil (w),
                                                         (int) ceil (ht));
  cairo_t *cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  RsvgRectangle viewport = { 0, 0, w, ht };
  gboolean ok = rsvg_handle_render_document (h, cr, &viewport, error);
  cairo_destroy (cr);
  GByteArray *png = g_byte_array_new ();
  if (ok && cairo_surface_write_to_png_stream (surface, to_bytes, png) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot encode a PNG");
      ok = FALSE;
    }
  cairo_surface_destroy (surface);
  g_object_unref (h);
  if (!ok)
    {
      g_byte_array_unref (png);
      return NULL;
    }
  return g_byte_array_free_to_bytes (png);
}
