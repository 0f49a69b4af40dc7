/* What the pages of output/html-report.c and output/html-sweep.c share. */
#ifndef TS_HTML_REPORT_PRIVATE_H
#define TS_HTML_REPORT_PRIVATE_H

#include <glib.h>
#include <json-glib/json-glib.h>

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

/* The page of a sweep's output directory @dir (an advise run's with
 * @advise); NULL and @error when it has no table yet. */
char *ts_html_sweep_page (const char *dir, gboolean advise, GError **error);

G_END_DECLS

#endif
