/* What the pages of output/html-report.c and output/html-sweep.c share. */
#ifndef TS_HTML_REPORT_PRIVATE_H
#define TS_HTML_REPORT_PRIVATE_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include "output/timeline.h"

G_BEGIN_DECLS

/* The page's head (title, style, the hatch patterns) and its end. */
void ts_page_open (GString *s, const char *title);
void ts_page_close (GString *s);
/* Around each figure whose PNG twin is report-NAME.png. */
void ts_page_figure_open (GString *s, const char *name);
void ts_page_figure_close (GString *s);
/* Members of the outputs read, NULL (NAN) where @o or the member is
 * missing or of another type: an older or damaged output draws what it
 * has, with no GLib critical. */
double ts_page_member_double (JsonObject *o, const char *member);
JsonObject *ts_page_object (JsonObject *o, const char *member);
JsonArray *ts_page_array (JsonObject *o, const char *member);
const char *ts_page_string (JsonObject *o, const char *member);
JsonObject *ts_page_element (JsonArray *a, guint i);

/* A file summary.json names (@named): as written (relative to where the
 * run was started) or relative to the output directory @dir's parent.
 * Caller frees. */
char *ts_page_input_path (const char *dir, const char *named);

/* The timelines' zoom: a few lines of script at the page's end (drag
 * across the timelines to narrow them to a window, double-click to undo). */
void ts_page_zoom_script (GString *s);

/* output/html-story.c. The what-if's rules as written, each hypothesis
 * file of @summary read again (and said when it changed since the run). */
void ts_page_rules (GString *s, const char *dir, JsonObject *summary);
/* One sentence of what changed and why: the region of the what-if whose
 * exclusive time changed most (@totals, when @both executions were read),
 * the wait state that changed most, the runtime. */
void ts_page_story (GString *s, JsonObject *summary, const GArray *totals, gboolean both);
/* The regions' inclusive (summary.json) and exclusive (@totals, from
 * @both timelines, either NULL when not read) times, with their shares. */
void ts_page_region_table (GString *s, JsonObject *summary, const GArray *totals,
                           const TsTimeline *const *both);

/* The page of a sweep's output directory @dir (an advise run's with
 * @advise); NULL and @error when it has no table yet. */
char *ts_html_sweep_page (const char *dir, gboolean advise, GError **error);

G_END_DECLS

#endif
