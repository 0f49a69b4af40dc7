#include <config.h>

#include "cli/commands.h"
#include "output/html-report.h"
#include "sim/units.h"

#include <math.h>
#include <stdio.h>

/* A time of --from or --to as the pages print one ("200 ms") or SimGrid
 * writes one ("200ms", "1.5s"; "0" alone needs no unit): NAN when not
 * given. NULL, or what is wrong (caller frees). */
static char *
window_time (const char *option, const char *text, double *value)
{
  *value = NAN;
  if (!text)
    return NULL;
  g_autofree char *compact = g_strdup (text);
  char *w = compact;
  for (const char *r = text; *r; r++)
    if (*r != ' ')
      *w++ = *r;
  *w = '\0';
  if (g_str_equal (compact, "0"))
    {
      *value = 0;
      return NULL;
    }
  g_autofree char *why = ts_unit_parse (TS_UNIT_LATENCY, compact, value);
  return why ? g_strdup_printf ("%s %s: %s", option, text, why) : NULL;
}

/* tracesim report DIR [--trace TRACE] [--from T] [--to T]: (re)draw
 * DIR/report.html from a finished run, sweep or advise run; a run's
 * timelines over a window. */
int
ts_cmd_report (int argc, char **argv)
{
  g_autofree char *trace = NULL;
  g_autofree char *from_text = NULL, *to_text = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_STRING, &from_text,
      "draw the timelines from this time on (\"200ms\", \"1.5s\", from the trace's start)", "T" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to_text,
      "draw the timelines up to this time (default: the run's end)", "T" },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &trace,
      "a run's original trace (default: the one its summary.json names)", "TRACE" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "print nothing when done", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("report", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("report", error);
  if (argc != 2)
    return ts_cmd_usage_error ("report", "give exactly one output directory");
  double from, to;
  g_autofree char *bad_from = window_time ("--from", from_text, &from);
  g_autofree char *bad_to = window_time ("--to", to_text, &to);
  if (bad_from || bad_to)
    return ts_cmd_usage_error ("report", bad_from ? bad_from : bad_to);
  TsReportKind kind;
  if (!ts_html_report_write_window (argv[1], trace, from, to, &kind, &error))
    return ts_cmd_fail ("report", error);
  static const char *const kinds[] = { "run", "sweep", "advise run" };
  if (!quiet)
    printf ("written: %s/%s (the %s's report)\n", argv[1], TS_REPORT_FILE, kinds[kind]);
  return 0;
}
