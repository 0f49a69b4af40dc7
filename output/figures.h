/* The report's figures as inline SVG (output/html-report.h): timelines,
 * bars and a heat map, each appended to a GString. Hand-written SVG, not a
 * plotting library's: the page must be one file with nothing to fetch, a
 * browser draws it, and its elements carry what they show (data-rank,
 * data-pattern) for a reader's tools and the tests. A page's colours come
 * from one palette (output/palette.h), so a region has the same colour in
 * every figure of the page. */
#ifndef TS_FIGURES_H
#define TS_FIGURES_H

#include <glib.h>
#include "output/palette.h"
#include "output/timeline.h"

G_BEGIN_DECLS

/* Pixel columns of a timeline, and the margin left of them (rank labels). */
#define TS_FIGURE_TIMELINE_WIDTH 800
#define TS_FIGURE_TIMELINE_LEFT 60

/* A region's time over all ranks in each of two executions (exclusive:
 * ts_timeline_region_total), by name. */
typedef struct {
  const char *name;       /* owned by the timeline it came from */
  gboolean mpi;
  double seconds[2];      /* [as traced, predicted] */
} TsRegionTotal;
/* The regions of @timelines (2, either may be NULL) with any time, the
 * largest (both executions together) first; caller frees. */
GArray *ts_figure_region_totals (const TsTimeline *const *timelines);
/* The page's palette: @totals' regions in their order (ts_palette_add);
 * caller frees. */
TsPalette *ts_figure_palette (const GArray *totals);
/* Regions named in a figure's legend. */
#define TS_FIGURE_LEGEND_REGIONS TS_PALETTE_DISTINCT

/* @text as XML text or attribute value: made valid UTF-8 (a trace's names
 * need not be), control characters dropped (XML 1.0 has none), markup
 * escaped. */
void ts_figure_append_text (GString *s, const char *text);

/* The hatch patterns of the wait states, once per page (<defs>). */
void ts_figure_wait_defs (GString *svg);

/* Timelines on one time axis of @span seconds from @from (the window the
 * timelines were built for), one above the other (the original, then the
 * predicted; either may be NULL), with their @titles; below them a legend
 * of @totals' first TS_FIGURE_LEGEND_REGIONS regions and of the patterns
 * @patterns marks. The rows are an inner <svg class="plot"> whose viewBox
 * the page's script narrows (zoom); the axis is redrawn by it. */
typedef struct {
  const TsTimeline *const *timelines;
  const char *const *titles;
  guint n;
  double from, span;
  TsPalette *palette;
  const GArray *totals;      /* TsRegionTotal */
  const gboolean *patterns;  /* [TS_WAIT_N_PATTERNS] */
} TsTimelineFigure;
void ts_figure_timelines (GString *html, const TsTimelineFigure *f);

/* Horizontal bars, @n_series per label, left of a zero line for negative
 * values, with a legend of @series. @group_class names each label's group
 * element's class ("pattern-bar") and @keys its data-key. A @unit of "s"
 * prints values as times (model/format.h); with @whole, each also as a
 * share of its series' whole. Labels wider than the margin are cut with an ellipsis,
 * whole in their <title>. */
typedef struct {
  guint n_labels, n_series;
  const char *const *labels, *const *keys, *const *series;
  const double *values;          /* [label * n_series + series] */
  const char *group_class, *unit;
  const double *whole;           /* [series] or NULL: print shares of it */
} TsBars;
void ts_figure_bars (GString *html, const TsBars *bars);

/* Ranks x regions: the seconds each rank spent in each of @regions in
 * @t, shaded by the column's largest (printed under its name), with the
 * scale of the shades. */
void ts_figure_heat_map (GString *html, const TsTimeline *t, const guint32 *regions,
                         guint n_regions);

/* The PNG twin of a figure: @svg is one of the <svg> elements above, as
 * written into the page (the hatches are added to it), drawn by librsvg
 * on a white background. NULL and @error if librsvg cannot draw it. */
GBytes *ts_figure_png (const char *svg, gsize len, GError **error);

G_END_DECLS

#endif
