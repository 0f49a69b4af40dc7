#include <config.h>

/* Writing a report: its page and the PNG twins of its figures into an
 * output directory, as tracesim's own files. */
#include "output/html-report.h"
#include "output/html-report-private.h"
#include "output/figures.h"
#include "model/output_dir.h"

#include <math.h>
#include <string.h>

/* What a user may point `tracesim report` at by mistake. */
static gboolean
check_output_dir (const char *dir, GError **error)
{
  g_autofree char *base = g_path_get_basename (dir);
  if (strstr (base, ".tmp-"))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s is the temporary directory of a run that did not finish (interrupted or "
                   "failed): run it again; tracesim removes such directories when it can", dir);
      return FALSE;
    }
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no such directory", dir);
      return FALSE;
    }
  return TRUE;
}

/* ---- writing ------------------------------------------------------------------ */

void
ts_report_figure_free (TsReportFigure *f)
{
  g_free (f->file);
  if (f->png)
    g_bytes_unref (f->png);
  g_free (f);
}

typedef struct {
  TsReportFigure *figure;
  const char *svg;
  gsize len;
  GError *error;
} Drawing;

static gpointer
draw_figure (gpointer data)
{
  Drawing *d = data;
  if (!(d->figure->png = ts_figure_png (d->svg, d->len, &d->error)))
    g_prefix_error (&d->error, "the figure %s: ", d->figure->file);
  return NULL;
}

GPtrArray *
ts_html_report_figures (const char *html, GError **error)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ts_report_figure_free);
  g_autoptr (GArray) drawings = g_array_new (FALSE, TRUE, sizeof (Drawing));
  static const char open[] = "<figure id=\"fig-";
  for (const char *at = strstr (html, open); at; at = strstr (at, open))
    {
      const char *name = at + strlen (open), *quote = strchr (name, '"');
      const char *svg = quote ? strstr (quote, "<svg ") : NULL;
      const char *close = svg ? strstr (svg, "</figure>") : NULL;
      /* The figure's outermost <svg> ends at its last </svg> (the
       * timelines' rows are an <svg> within it). */
      const char *end = NULL;
      for (const char *e = svg; close && (e = strstr (e, "</svg>")) && e < close; e++)
        end = e;
      if (!end)
        break;
      end += strlen ("</svg>");
      TsReportFigure *f = g_new0 (TsReportFigure, 1);
      g_autofree char *bare = g_strndup (name, quote - name);
      f->file = g_strdup_printf ("report-%s.png", bare);
      g_ptr_array_add (out, f);
      Drawing d = { f, svg, end - svg, NULL };
      g_array_append_val (drawings, d);
      at = end;
    }
  /* The first figure (the timelines, the largest) on a thread of its own,
   * the others meanwhile. */
  Drawing *d = (Drawing *) drawings->data;
  GThread *first = drawings->len ? g_thread_new ("report-figure", draw_figure, &d[0]) : NULL;
  for (guint i = 1; i < drawings->len; i++)
    draw_figure (&d[i]);
  if (first)
    g_thread_join (first);
  for (guint i = 0; i < drawings->len; i++)
    if (d[i].error)
      {
        g_propagate_error (error, d[i].error);
        for (guint j = i + 1; j < drawings->len; j++)
          g_clear_error (&d[j].error);
        g_ptr_array_unref (out);
        return NULL;
      }
  return out;
}

/* One file of the report into @dir, as @how says. */
static gboolean
write_one (const char *dir, const char *name, const char *data, gsize len, TsReportInto how,
           const char *mark, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  switch (how)
    {
    case TS_REPORT_INTO_NEW:
      return ts_output_dir_write_file (path, data, len, error);
    case TS_REPORT_INTO_RUN:
      return ts_output_dir_add_file (dir, name, data, len, error);
    case TS_REPORT_INTO_SWEEP:
    default:
      return ts_output_file_write (path, data, len, mark, error);
    }
}

/* Whether every file of the report may be written into @dir, as @how
 * says: checked for all before the first is written, so that a report
 * refused for one file (a user's, or a copy edited) leaves the others as
 * they were. NEW writes into a directory being made: nothing to check. */
static gboolean
may_write_all (const char *dir, GPtrArray *figures, TsReportInto how, GError **error)
{
  for (guint i = 0; i <= figures->len; i++)
    {
      const char *name = i < figures->len
                           ? ((const TsReportFigure *) figures->pdata[i])->file : TS_REPORT_FILE;
      const char *mark = i < figures->len ? "\x89PNG" : TS_WRITTEN_MARK;
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (how == TS_REPORT_INTO_RUN && !ts_output_dir_may_add (dir, name, error))
        return FALSE;
      if (how == TS_REPORT_INTO_SWEEP && !ts_output_file_may_write (path, mark, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ts_html_report_write_files (const char *dir, const char *html, TsReportInto how,
                            GPtrArray *written, GError **error)
{
  g_autoptr (GPtrArray) figures = ts_html_report_figures (html, error);
  if (!figures || !may_write_all (dir, figures, how, error))
    return FALSE;
  for (guint i = 0; i < figures->len; i++)
    {
      const TsReportFigure *f = figures->pdata[i];
      gsize len;
      const char *png = g_bytes_get_data (f->png, &len);
      if (!write_one (dir, f->file, png, len, how, "\x89PNG", error))
        return FALSE;
      if (written)
        g_ptr_array_add (written, g_strdup (f->file));
    }
  if (!write_one (dir, TS_REPORT_FILE, html, strlen (html), how, TS_WRITTEN_MARK, error))
    return FALSE;
  if (written)
    g_ptr_array_add (written, g_strdup (TS_REPORT_FILE));
  return TRUE;
}

gboolean
ts_html_report_write_window (const char *dir, const char *trace, double from, double to,
                             TsReportKind *kind, GError **error)
{
  g_autofree char *mark = g_build_filename (dir, ".tracesim-sweep", NULL);
  g_autofree char *advise = g_build_filename (dir, "inputs", "advise", "advise.sweep", NULL);
  g_autofree char *html = NULL;
  if (!check_output_dir (dir, error))
    return FALSE;
  if (g_file_test (mark, G_FILE_TEST_EXISTS))
    {
      *kind = g_file_test (advise, G_FILE_TEST_EXISTS) ? TS_REPORT_ADVISE : TS_REPORT_SWEEP;
      if (!isnan (from) || !isnan (to))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "%s is a sweep's output: --from and --to narrow a run's timelines, and "
                       "its page has none (report one of its points' directories)", dir);
          return FALSE;
        }
      html = ts_html_sweep_page (dir, *kind == TS_REPORT_ADVISE, error);
      /* A sweep's directory has no manifest: the page says it is ours. */
      return html && ts_html_report_write_files (dir, html, TS_REPORT_INTO_SWEEP, NULL, error);
    }
  *kind = TS_REPORT_RUN;
  html = ts_html_report_run_window (dir, trace, from, to, error);
  return html && ts_html_report_write_files (dir, html, TS_REPORT_INTO_RUN, NULL, error);
}

gboolean
ts_html_report_write (const char *dir, const char *trace, TsReportKind *kind, GError **error)
{
  return ts_html_report_write_window (dir, trace, NAN, NAN, kind, error);
}
