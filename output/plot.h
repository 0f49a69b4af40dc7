/* A line plot drawn with cairo, as SVG and PNG (a sweep's runtime against
 * one parameter, one line per value of the others: doc/sweeps.md).
 * cairo because it is Debian's well-kept 2-D library that writes both
 * formats from one drawing, with no process to drive (gnuplot) and no
 * fonts or scripts to fetch. */
#ifndef TS_PLOT_H
#define TS_PLOT_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *title, *x_label, *y_label;
  guint n_x;                    /* points along x */
  const char *const *x_labels;  /* n_x labels */
  const double *x_values;       /* n_x numbers for a numeric axis, or NULL: evenly spaced */
  guint n_series;
  const char *const *series;    /* n_series names */
  const double *y;              /* [series * n_x + x]; NAN: no point there */
  gboolean y_seconds;           /* y is a time: ticks as model/format.h prints
                                 * times ("800 ms"), not "0.8" */
} TsPlot;

#define TS_PLOT_WIDTH 800
#define TS_PLOT_HEIGHT 500

/* Draw @plot into @svg_path and @png_path (each written whole, renamed into
 * place). */
gboolean ts_plot_write (const TsPlot *plot, const char *svg_path, const char *png_path,
                        GError **error);

G_END_DECLS

#endif
