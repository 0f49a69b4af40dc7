#include <config.h>

#include "output/plot.h"
#include "model/format.h"
#include "model/output_dir.h"

#include <cairo.h>
#include <cairo-svg.h>
#include <gio/gio.h>
#include <math.h>
#include <string.h>

#define LEFT 80.0
#define RIGHT 260.0   /* room for the legend */
#define LEGEND_CHARS 34
#define TOP 40.0
#define BOTTOM 60.0
#define MAX_SERIES 12

/* Colours a reader tells apart (the Okabe-Ito palette and greys). */
static const double palette[][3] = {
  { 0.00, 0.45, 0.70 }, { 0.90, 0.62, 0.00 }, { 0.00, 0.62, 0.45 }, { 0.80, 0.47, 0.65 },
  { 0.34, 0.71, 0.91 }, { 0.84, 0.37, 0.00 }, { 0.94, 0.89, 0.26 }, { 0.00, 0.00, 0.00 },
  { 0.45, 0.45, 0.45 }, { 0.60, 0.30, 0.10 }, { 0.30, 0.30, 0.60 }, { 0.60, 0.60, 0.20 },
};

/* A tick step of 1, 2 or 5 times a power of ten giving about 5 ticks. */
static double
nice_step (double span)
{
  double raw = span / 5, p = pow (10, floor (log10 (raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static double
x_at (const TsPlot *p, guint i, double x0, double x1)
{
  double w = TS_PLOT_WIDTH - LEFT - RIGHT;
  if (p->n_x < 2)
    return LEFT + w / 2;
  if (p->x_values)
    return LEFT + w * (p->x_values[i] - x0) / (x1 - x0 > 0 ? x1 - x0 : 1);
  return LEFT + w * i / (p->n_x - 1);
}

static void
text (cairo_t *cr, double x, double y, const char *s, double align)
{
  cairo_text_extents_t e;
  cairo_text_extents (cr, s, &e);
  cairo_move_to (cr, x - align * e.width, y);
  cairo_show_text (cr, s);
}

static void
draw_axes (cairo_t *cr, const TsPlot *p, double y0, double y1, double x0, double x1)
{
  double h = TS_PLOT_HEIGHT - TOP - BOTTOM, w = TS_PLOT_WIDTH - LEFT - RIGHT;
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, LEFT, TOP, w, h);
  cairo_stroke (cr);
  cairo_set_font_size (cr, 11);
  double step = nice_step (y1 - y0);
  for (double v = ceil (y0 / step) * step; v <= y1 + step * 1e-9; v += step)
    {
      double y = TOP + h * (1 - (v - y0) / (y1 - y0));
      cairo_move_to (cr, LEFT - 4, y);
      cairo_line_to (cr, LEFT, y);
      cairo_stroke (cr);
      g_autofree char *label = p->y_seconds ? ts_format_seconds (fabs (v) < step * 1e-9 ? 0 : v)
                                            : g_strdup_printf ("%g", v);
      text (cr, LEFT - 6, y + 4, label, 1);
    }
  for (guint i = 0; i < p->n_x; i++)
    {
      double x = x_at (p, i, x0, x1);
      cairo_move_to (cr, x, TOP + h);
      cairo_line_to (cr, x, TOP + h + 4);
      cairo_stroke (cr);
      text (cr, x, TOP + h + 18, p->x_labels[i], 0.5);
    }
  cairo_set_font_size (cr, 13);
  text (cr, LEFT + w / 2, TS_PLOT_HEIGHT - 15, p->x_label, 0.5);
  text (cr, LEFT + w / 2, 24, p->title, 0.5);
  cairo_save (cr);
  cairo_translate (cr, 22, TOP + h / 2);
  cairo_rotate (cr, -G_PI / 2);
  text (cr, 0, 0, p->y_label, 0.5);
  cairo_restore (cr);
}

static void
draw (cairo_t *cr, const TsPlot *p)
{
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  double y0 = INFINITY, y1 = -INFINITY, x0 = INFINITY, x1 = -INFINITY;
  for (guint i = 0; i < p->n_series * p->n_x; i++)
    if (!isnan (p->y[i]))
      y0 = MIN (y0, p->y[i]), y1 = MAX (y1, p->y[i]);
  for (guint i = 0; p->x_values && i < p->n_x; i++)
    x0 = MIN (x0, p->x_values[i]), x1 = MAX (x1, p->x_values[i]);
  if (!isfinite (y0))
    y0 = 0, y1 = 1;
  /* From 0 when the values are not far from it: a runtime's scale. */
  y0 = y0 > 0 && y0 < (y1 - y0) * 2 ? 0 : y0;
  if (y1 - y0 <= 0)
    y1 = y0 + (y0 != 0 ? fabs (y0) * 0.1 : 1);
  y1 += (y1 - y0) * 0.05;
  draw_axes (cr, p, y0, y1, x0, x1);
  double h = TS_PLOT_HEIGHT - TOP - BOTTOM;
  cairo_set_font_size (cr, 11);
  for (guint s = 0; s < MIN (p->n_series, MAX_SERIES); s++)
    {
      cairo_set_source_rgb (cr, palette[s][0], palette[s][1], palette[s][2]);
      cairo_set_line_width (cr, 2);
      gboolean drawing = FALSE;
      for (guint i = 0; i < p->n_x; i++)
        {
          double v = p->y[s * p->n_x + i];
          if (isnan (v))
            {
              drawing = FALSE;
              continue;
            }
          double x = x_at (p, i, x0, x1), y = TOP + h * (1 - (v - y0) / (y1 - y0));
          if (drawing)
            cairo_line_to (cr, x, y);
          else
            cairo_move_to (cr, x, y);
          drawing = TRUE;
        }
      cairo_stroke (cr);
      for (guint i = 0; i < p->n_x; i++)
        if (!isnan (p->y[s * p->n_x + i]))
          {
            double v = p->y[s * p->n_x + i];
            cairo_arc (cr, x_at (p, i, x0, x1), TOP + h * (1 - (v - y0) / (y1 - y0)), 3.5, 0, 2 * G_PI);
            cairo_fill (cr);
          }
      double ly = TOP + 10 + s * 16;
      cairo_rectangle (cr, TS_PLOT_WIDTH - RIGHT + 14, ly - 8, 18, 4);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0, 0, 0);
      /* Long names cut to fit the legend (results.csv has them whole). */
      g_autofree char *name = NULL;
      if (g_utf8_strlen (p->series[s], -1) > LEGEND_CHARS)
        {
          /* g_utf8_substring() reads past a shorter string: only cut a longer one. */
          g_autofree char *head = g_utf8_substring (p->series[s], 0, LEGEND_CHARS - 1);
          name = g_strconcat (head, "...", NULL);
        }
      else
        name = g_strdup (p->series[s]);
      text (cr, TS_PLOT_WIDTH - RIGHT + 38, ly - 2, name, 0);
    }
  if (p->n_series > MAX_SERIES)
    {
      g_autofree char *more = g_strdup_printf ("(+%u more lines in results.csv)", p->n_series - MAX_SERIES);
      text (cr, TS_PLOT_WIDTH - RIGHT + 14, TOP + 10 + MAX_SERIES * 16, more, 0);
    }
}

static cairo_status_t
append (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

gboolean
ts_plot_write (const TsPlot *p, const char *svg_path, const char *png_path, GError **error)
{
  g_autoptr (GByteArray) svg = g_byte_array_new ();
  cairo_surface_t *s = cairo_svg_surface_create_for_stream (append, svg, TS_PLOT_WIDTH, TS_PLOT_HEIGHT);
  cairo_t *cr = cairo_create (s);
  draw (cr, p);
  cairo_destroy (cr);
  cairo_surface_finish (s);
  cairo_status_t st = cairo_surface_status (s);
  cairo_surface_destroy (s);
  g_autoptr (GByteArray) png = g_byte_array_new ();
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, TS_PLOT_WIDTH, TS_PLOT_HEIGHT);
  cr = cairo_create (img);
  draw (cr, p);
  cairo_destroy (cr);
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_write_to_png_stream (img, append, png);
  cairo_surface_destroy (img);
  if (st != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cairo: %s", svg_path,
                   cairo_status_to_string (st));
      return FALSE;
    }
  /* The files' own signatures are their marks: what a plot may replace. */
  return ts_output_file_write (svg_path, (const char *) svg->data, svg->len, "<svg", error)
         && ts_output_file_write (png_path, (const char *) png->data, png->len, "PNG", error);
}
