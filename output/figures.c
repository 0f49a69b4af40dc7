#include <config.h>

#include "output/figures.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <math.h>
#include <string.h>

/* ---- colours ---------------------------------------------------------------- */

static void
hsl_to_hex (double h, double s, double l, char out[8])
{
  double c = (1 - fabs (2 * l - 1)) * s, hp = fmod (h, 360) / 60;
  double x = c * (1 - fabs (fmod (hp, 2) - 1)), m = l - c / 2;
  double r = 0, g = 0, b = 0;
  if (hp < 1)
    r = c, g = x;
  else if (hp < 2)
    r = x, g = c;
  else if (hp < 3)
    g = c, b = x;
  else if (hp < 4)
    g = x, b = c;
  else if (hp < 5)
    r = x, b = c;
  else
    r = c, b = x;
  g_snprintf (out, 8, "#%02x%02x%02x", (int) lround ((r + m) * 255), (int) lround ((g + m) * 255),
              (int) lround ((b + m) * 255));
}

void
ts_figure_region_colour (const char *name, gboolean mpi, char colour[8])
{
  /* The name's own hash, not its place in a trace: the same in every report. */
  /* A few well-separated hues and three lightnesses, so that names next
   * to each other in a timeline rarely look alike. */
  guint h = g_str_hash (name);
  double light = (h / 9 % 3) * 0.12;
  if (mpi)
    hsl_to_hex ((h % 5) * 10, 0.8, 0.40 + light, colour);
  else
    hsl_to_hex (95 + (h % 9) * 24, 0.55, 0.36 + light, colour);
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

/* A step of 1, 2 or 5 x 10^k giving about @ticks ticks over @span. */
static double
nice_step (double span, int ticks)
{
  double raw = span / ticks, p = pow (10, floor (log10 (raw)));
  double m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void
time_label (double t, double step, char *buf, gsize len)
{
  if (step >= 1)
    g_snprintf (buf, len, "%g s", t);
  else if (step >= 1e-3)
    g_snprintf (buf, len, "%g ms", round (t * 1e6) / 1e3);
  else
    g_snprintf (buf, len, "%g us", round (t * 1e9) / 1e3);
}

static void
time_axis (GString *s, double y, double span)
{
  double step = nice_step (span, 8);
  g_string_append_printf (s, "<g class=\"axis\"><line x1=\"%d\" y1=\"%g\" x2=\"%d\" y2=\"%g\" "
                             "stroke=\"#444\"/>\n", TS_FIGURE_TIMELINE_LEFT, y,
                          TS_FIGURE_TIMELINE_LEFT + TS_FIGURE_TIMELINE_WIDTH, y);
  for (int i = 0; i * step <= span * (1 + 1e-9); i++)
    {
      double x = TS_FIGURE_TIMELINE_LEFT + i * step / span * TS_FIGURE_TIMELINE_WIDTH;
      char label[32];
      time_label (i * step, step, label, sizeof label);
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

/* One row: a path per region, then a hatched path per wait-state pattern. */
static void
timeline_row (GString *s, const TsTimeline *t, const char *run, guint row, double y, double h)
{
  guint rank = ts_timeline_row_rank (t, row);
  g_string_append_printf (s, "<g class=\"rank-row\" data-run=\"%s\" data-rank=\"%u\">", run, rank);
  if (h >= 7)
    g_string_append_printf (s, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"%.0f\">%u"
                               "</text>", TS_FIGURE_TIMELINE_LEFT - 4, y + h * 0.8, MIN (h, 11.0),
                            rank);
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GHashTable) regions = row_runs (t, row, y, h, region_at, order);
  for (guint i = 0; i < order->len; i++)
    {
      guint32 region = g_array_index (order, guint32, i);
      const char *name = ts_timeline_region_name (t, region);
      char colour[8];
      ts_figure_region_colour (name, ts_timeline_region_is_mpi (t, region), colour);
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
 * trace has few (ts_timeline_messages). */
static void
timeline_messages (GString *s, const TsTimeline *t, double top, double h, double span)
{
  const GArray *m = ts_timeline_messages (t);
  for (guint i = 0; m && i < m->len; i++)
    {
      const TsTimelineMessage *e = &g_array_index (m, TsTimelineMessage, i);
      gint from = ts_timeline_rank_row (t, e->src), to = ts_timeline_rank_row (t, e->dst);
      if (from < 0 || to < 0)
        continue;
      double x1 = TS_FIGURE_TIMELINE_LEFT + e->sent / span * TS_FIGURE_TIMELINE_WIDTH;
      double x2 = TS_FIGURE_TIMELINE_LEFT + e->received / span * TS_FIGURE_TIMELINE_WIDTH;
      g_string_append_printf (s, "<line class=\"message\" data-from=\"%u\" data-to=\"%u\" "
                                 "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#111\" "
                                 "stroke-width=\"0.8\"/>\n", e->src, e->dst, x1, top + (from + 0.5) * h,
                              x2, top + (to + 0.5) * h);
    }
}

void
ts_figure_timelines (GString *s, const TsTimeline *const *timelines, const char *const *titles,
                     guint n, double span)
{
  guint rows = 0;
  for (guint i = 0; i < n; i++)
    rows = MAX (rows, timelines[i] ? ts_timeline_n_rows (timelines[i]) : 0);
  double h = CLAMP (360.0 / MAX (rows, 1), 2.0, 14.0);
  double y = 0, height = 0;
  for (guint i = 0; i < n; i++)
    if (timelines[i])
      height += 22 + ts_timeline_n_rows (timelines[i]) * h + 8;
  g_string_append_printf (s, "<svg class=\"timelines\" width=\"%d\" height=\"%.0f\" "
                             "font-family=\"sans-serif\" font-size=\"11\">\n",
                          TS_FIGURE_TIMELINE_LEFT + TS_FIGURE_TIMELINE_WIDTH + 20, height + 30);
  for (guint i = 0; i < n; i++)
    {
      const TsTimeline *t = timelines[i];
      if (!t)
        continue;
      g_string_append_printf (s, "<g class=\"timeline\" data-run=\"%s\"><text x=\"%d\" y=\"%.0f\" "
                                 "font-weight=\"bold\">", i == 0 ? "original" : "predicted",
                              TS_FIGURE_TIMELINE_LEFT, y + 15);
      ts_figure_append_text (s, titles[i]);
      g_string_append (s, "</text>\n");
      y += 22;
      for (guint r = 0; r < ts_timeline_n_rows (t); r++)
        timeline_row (s, t, i == 0 ? "original" : "predicted", r, y + r * h, h >= 8 ? h * 0.9 : h);
      timeline_messages (s, t, y, h, span);
      y += ts_timeline_n_rows (t) * h + 8;
      g_string_append (s, "</g>\n");
    }
  time_axis (s, y + 2, span);
  g_string_append (s, "</svg>\n");
}

/* ---- bars ------------------------------------------------------------------- */

static const char *const series_colours[] = { "#8c8c8c", "#2f6fd0", "#d07a2f", "#3a9a3a" };

void
ts_figure_bars (GString *s, const TsBars *b)
{
  /* Signed values: bars go left or right of the zero line. */
  double lo = 0, hi = 0;
  for (guint i = 0; i < b->n_labels * b->n_series; i++)
    {
      lo = MIN (lo, b->values[i]);
      hi = MAX (hi, b->values[i]);
    }
  const double bar = 12, label_w = 260, plot_w = 420;
  double scale = hi > lo ? plot_w / (hi - lo) : 0, zero = label_w + -lo * scale;
  double group = b->n_series * bar + 8;
  g_string_append_printf (s, "<svg class=\"bars\" width=\"%.0f\" height=\"%.0f\" "
                             "font-family=\"sans-serif\" font-size=\"11\">\n",
                          label_w + plot_w + 130, b->n_labels * group + 22);
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
      g_string_append_printf (s, "\"><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">",
                              label_w - 6, y + group / 2);
      ts_figure_append_text (s, b->labels[i]);
      g_string_append (s, "</text>");
      for (guint j = 0; j < b->n_series; j++)
        {
          double v = b->values[i * b->n_series + j], w = fabs (v) * scale;
          double x = v < 0 ? zero - w : zero;
          g_string_append_printf (s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" "
                                     "fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">%.6g %s</text>",
                                  x, y + j * bar, w, bar - 2,
                                  series_colours[j % G_N_ELEMENTS (series_colours)],
                                  MAX (zero, x + w) + 4, y + j * bar + bar - 3, v, b->unit);
        }
      g_string_append (s, "</g>\n");
    }
  g_string_append (s, "</svg>\n");
}

/* ---- heat map --------------------------------------------------------------- */

void
ts_figure_heat_map (GString *s, const TsTimeline *t, const guint32 *regions, guint n)
{
  guint rows = ts_timeline_n_rows (t);
  const double cell_w = 90, left = 60, top = 70;
  double cell_h = CLAMP (320.0 / MAX (rows, 1), 2.0, 14.0);
  g_autofree double *most = g_new0 (double, MAX (n, 1));
  for (guint r = 0; r < rows; r++)
    for (guint k = 0; k < n; k++)
      most[k] = MAX (most[k], ts_timeline_row_seconds (t, r, regions[k]));
  g_string_append_printf (s, "<svg class=\"heat-map\" width=\"%.0f\" height=\"%.0f\" "
                             "font-family=\"sans-serif\" font-size=\"10\">\n",
                          left + n * cell_w + 80, top + rows * cell_h + 10);
  for (guint k = 0; k < n; k++)
    {
      g_string_append_printf (s, "<text transform=\"translate(%.0f,%.0f) rotate(-25)\">",
                              left + k * cell_w + 4, top - 6);
      ts_figure_append_text (s, ts_timeline_region_name (t, regions[k]));
      g_string_append (s, "</text>\n");
    }
  for (guint r = 0; r < rows; r++)
    {
      guint rank = ts_timeline_row_rank (t, r);
      double y = top + r * cell_h;
      g_string_append_printf (s, "<g class=\"heat-row\" data-rank=\"%u\">", rank);
      if (cell_h >= 7)
        g_string_append_printf (s, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%u</text>",
                                left - 4, y + cell_h * 0.8, rank);
      for (guint k = 0; k < n; k++)
        {
          double v = ts_timeline_row_seconds (t, r, regions[k]);
          double f = most[k] > 0 ? v / most[k] : 0;
          int shade = (int) lround (255 - f * 200);
          g_string_append_printf (s, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" "
                                     "fill=\"#%02x%02xff\"><title>rank %u: %.6f s</title></rect>",
                                  left + k * cell_w, y, cell_w - 1, cell_h * 0.92, shade, shade,
                                  rank, v);
        }
      g_string_append (s, "</g>\n");
    }
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
