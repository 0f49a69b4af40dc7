/* The visual report of a tracesim output directory: report.html, one file
 * that opens in any browser offline (figures as inline SVG, a few lines of
 * inline script for the timelines' zoom, no font, nothing fetched;
 * output/figures.h draws them).
 *
 * - A run: the original and the predicted timelines on one time axis (the
 *   region of each pixel column, wait states hatched), where the waiting
 *   went (a bar per pattern, original against predicted), the regions
 *   before and after, and which ranks vary (rank x region heat maps, and
 *   each rank's deviation from the mean in the dominant regions).
 * - A sweep: its table and its plots. An advise run: also the changes
 *   ranked by saving.
 *
 * It reads only what the run wrote (summary.json, predicted/traces.otf2)
 * and the original trace, one streaming pass per archive into per-pixel
 * grids: its memory and time do not grow with the trace's length beyond
 * those passes. */
#ifndef TS_HTML_REPORT_H
#define TS_HTML_REPORT_H

#include <glib.h>

G_BEGIN_DECLS

#define TS_REPORT_FILE "report.html"

typedef enum { TS_REPORT_RUN, TS_REPORT_SWEEP, TS_REPORT_ADVISE } TsReportKind;

/* The page of the run whose outputs are in @dir, its original trace at
 * @trace (NULL: where summary.json says, if it is there; without it the
 * page has the predicted timeline only and says why). Caller frees; NULL
 * and @error when @dir is not a finished run's output. */
char *ts_html_report_run (const char *dir, const char *trace, GError **error);
/* The same with its timelines drawn over [@from, @to) only, seconds from
 * the trace's start (NAN: the run's start, its end; a @to past the end is
 * the end): tracesim report --from --to. The numbers, bars and heat maps
 * stay the whole run's. NULL and @error for a window outside the run. */
char *ts_html_report_run_window (const char *dir, const char *trace, double from, double to,
                                 GError **error);

/* Write @dir/report.html for the tracesim output in @dir, whose kind goes
 * to @kind: an output directory (@trace as for ts_html_report_run) or a
 * sweep's (tracesim sweep, advise). An
 * interrupted or older output is refused with what to do, and nothing is
 * written. The figures' PNG twins go beside it (ts_html_report_figures).
 * In a run's directory the files join its manifest, so a later run may
 * replace them; in a sweep's, a report-*.png is replaced only by another. */
gboolean ts_html_report_write (const char *dir, const char *trace, TsReportKind *kind,
                               GError **error);
/* The same, a run's timelines drawn over [@from, @to) as for
 * ts_html_report_run_window; a window given for a sweep's directory is an
 * error (its page has no timelines). */
gboolean ts_html_report_write_window (const char *dir, const char *trace, double from, double to,
                                      TsReportKind *kind, GError **error);

/* The PNG twin of a figure of a page: written as @file (report-NAME.png)
 * beside report.html. */
typedef struct {
  char *file;
  GBytes *png;
} TsReportFigure;
void ts_report_figure_free (TsReportFigure *f);

/* The PNG twins of the figures of @html, a page of this module, in page
 * order (TsReportFigure elements); NULL and @error if one cannot be drawn. */
GPtrArray *ts_html_report_figures (const char *html, GError **error);

/* How report.html and its PNG twins go into a directory. */
typedef enum {
  TS_REPORT_INTO_NEW,      /* a directory being written, its manifest to come */
  TS_REPORT_INTO_RUN,      /* a finished output: each file joins its manifest */
  TS_REPORT_INTO_SWEEP     /* a sweep's: replaced only if ours (mark, PNG) */
} TsReportInto;

/* Write @html (a page of this module) as @dir/report.html and the PNG
 * twins of its figures beside it; the names written are added to @written
 * (may be NULL). FALSE and @error at the first failure. */
gboolean ts_html_report_write_files (const char *dir, const char *html, TsReportInto how,
                                     GPtrArray *written, GError **error);

G_END_DECLS

#endif
