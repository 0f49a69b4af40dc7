/* The report's figures as inline SVG (output/html-report.h): timelines,
 * bars and a heat map, each appended to a GString. Hand-written SVG, not a
 * plotting library's: the page must be one file with nothing to fetch, a
 * browser draws it, and its elements carry what they show (data-rank,
 * data-pattern) for a reader's tools and the tests. Colours are fixed per
 * name, so a region has the same colour in every figure and every report. */
#ifndef TS_FIGURES_H
#define TS_FIGURES_H

#include <glib.h>
#include "output/timeline.h"

G_BEGIN_DECLS

/* Pixel columns of a timeline, and the margin left of them (rank labels). */
#define TS_FIGURE_TIMELINE_WIDTH 800
#define TS_FIGURE_TIMELINE_LEFT 60

/* "#rrggbb" for region @name: MPI calls in reds and oranges, the program's
 * own regions in greens, blues and violets. */
void ts_figure_region_colour (const char *name, gboolean mpi, char colour[8]);

/* @text as XML text or attribute value: made valid UTF-8 (a trace's names
 * need not be), control characters dropped (XML 1.0 has none), markup
 * escaped. */
void ts_figure_append_text (GString *s, const char *text);

/* The hatch patterns of the wait states, once per page (<defs>). */
void ts_figure_wait_defs (GString *svg);

/* Timelines on one time axis of @span seconds, one above the other (the
 * original, then the predicted; either may be NULL), with their @titles. */
void ts_figure_timelines (GString *html, const TsTimeline *const *timelines,
                          const char *const *titles, guint n, double span);

/* Horizontal bars, @n_series per label, left of a zero line for negative
 * values, with a legend of @series. @group_class names each label's group
 * element's class ("pattern-bar") and @keys its data-key. */
typedef struct {
  guint n_labels, n_series;
  const char *const *labels, *const *keys, *const *series;
  const double *values;          /* [label * n_series + series] */
  const char *group_class, *unit;
} TsBars;
void ts_figure_bars (GString *html, const TsBars *bars);

/* Ranks x regions: the seconds each rank spent in each of @regions in
 * @t, shaded by the column's largest. */
void ts_figure_heat_map (GString *html, const TsTimeline *t, const guint32 *regions,
                         guint n_regions);

/* The PNG twin of a figure: @svg is one of the <svg> elements above, as
 * written into the page (the hatches are added to it), drawn by librsvg
 * on a white background. NULL and @error if librsvg cannot draw it. */
GBytes *ts_figure_png (const char *svg, gsize len, GError **error);

G_END_DECLS

#endif
