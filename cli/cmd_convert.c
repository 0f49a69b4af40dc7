#include <config.h>

#include "cli/commands.h"
#include "output/ti_export.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

static gboolean
convert (const char *trace_path, const char *output, double host_speed, gboolean quiet,
         GError **error)
{
  TsTiStats stats = { 0 };
  if (!ts_ti_export_trace (trace_path, output, host_speed, &stats, error))
    return FALSE;
  if (stats.subcomm_collectives > 0)
    fprintf (stderr,
             "tracesim convert: warning: %" G_GUINT64_FORMAT " collectives on sub-communicators "
             "were written as MPI_COMM_WORLD collectives (SimGrid's format has no other "
             "communicator): the TI trace does not replay them faithfully\n",
             stats.subcomm_collectives);
  if (!quiet)
    printf ("%s: %u ranks, %" G_GUINT64_FORMAT " actions read, %" G_GUINT64_FORMAT
            " TI actions written, %" G_GUINT64_FORMAT " without TI equivalent\n",
            output, stats.ranks, stats.actions_read, stats.lines_written, stats.skipped);
  return TRUE;
}
int
ts_cmd_convert (int argc, char **argv)
{
  char *to = NULL, *output = NULL;
  double host_speed = 1e9;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "to", 0, 0, G_OPTION_ARG_STRING, &to, "output format: ti (SimGrid time-independent)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "output directory (required)", "DIR" },
    { "trace-speed", 0, 0, G_OPTION_ARG_DOUBLE, &host_speed,
      "flop rate of a core of the traced machine: a CPU second is this many flops "
      "(default 1e9, as for run)", "FLOPS" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "print nothing on success", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("convert", entries);
  GError *error = NULL;
  gboolean ok = g_option_context_parse (ctx, &argc, &argv, &error);
  if (ok && (argc != 2 || !output || !to))
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "usage: tracesim convert TRACE --to ti -o DIR");
      ok = FALSE;
    }
  if (ok && strcmp (to, "ti") != 0)
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown format '%s' for --to (known: ti)", to);
      ok = FALSE;
    }
  if (ok && !(host_speed > 0 && isfinite (host_speed)))
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--trace-speed must be a positive, finite number of flop/s");
      ok = FALSE;
    }
  /* Everything refused so far is the command line's: status 2. */
  gboolean usage = !ok;
  if (ok)
    ok = convert (argv[1], output, host_speed, quiet, &error);
  g_free (to);
  g_free (output);
  return ok ? 0 : usage ? ts_cmd_option_error ("convert", error) : ts_cmd_fail ("convert", error);
}
