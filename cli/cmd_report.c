#include <config.h>

#include "cli/commands.h"
#include "output/html-report.h"

#include <stdio.h>

/* tracesim report DIR [--trace TRACE]: (re)draw DIR/report.html from a
 * finished run, sweep or advise run. */
int
ts_cmd_report (int argc, char **argv)
{
  g_autofree char *trace = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
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
  TsReportKind kind;
  if (!ts_html_report_write (argv[1], trace, &kind, &error))
    return ts_cmd_fail ("report", error);
  static const char *const kinds[] = { "run", "sweep", "advise run" };
  if (!quiet)
    printf ("written: %s/%s (the %s's report)\n", argv[1], TS_REPORT_FILE, kinds[kind]);
  return 0;
}
