#include <config.h>

#include "cli/commands.h"
#include "output/output_dir.h"
#include "output/ti_export.h"

#include <errno.h>
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

/* What `convert -o DIR` owns: an old output made of these may be replaced. */
static const char *const output_entries[] = { "traces.txt", "ranks", NULL };

static gboolean
export_ti (const TsTrace *trace, const TsProfile *profile, const char *dir, double host_speed,
           TsTiStats *stats, GError **error)
{
  g_autofree char *ranks_dir = g_build_filename (dir, "ranks", NULL);
  if (g_mkdir_with_parents (ranks_dir, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", ranks_dir,
                   g_strerror (errno));
      return FALSE;
    }
  g_autoptr (TsActionFeed) feed = ts_action_feed_open (trace, profile, error);
  if (!feed)
    return FALSE;
  g_autoptr (GString) list = g_string_new (NULL);
  for (guint r = 0; r < profile->n_ranks; r++)
    {
      /* Relative names: SimGrid opens them from the directory smpirun runs in,
       * so the list works wherever the output directory is moved. */
      g_autofree char *name = g_strdup_printf ("ranks/rank-%u.txt", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_string_append_printf (list, "%s\n", name);
      FILE *f = fopen (path, "w");
      if (!f)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", path,
                       g_strerror (errno));
          return FALSE;
        }
      gboolean ok = ts_ti_export_rank (trace, feed, r, host_speed, f, stats, error);
      if (fclose (f) != 0 && ok)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", path,
                       g_strerror (errno));
          ok = FALSE;
        }
      if (!ok)
        return FALSE;
    }
  g_autofree char *list_path = g_build_filename (dir, "traces.txt", NULL);
  return g_file_set_contents (list_path, list->str, list->len, error);
}

static gboolean
convert (const char *trace_path, const char *output, double host_speed, gboolean quiet,
         GError **error)
{
  g_autoptr (TsTrace) trace = ts_trace_open (trace_path, error);
  if (!trace)
    return FALSE;
  g_autoptr (TsProfile) profile = ts_profile_compute (trace, error);
  if (!profile)
    return FALSE;
  TsOutputDir *dir = ts_output_dir_new (output, output_entries, error);
  if (!dir)
    return FALSE;
  TsTiStats stats = { 0 };
  if (!export_ti (trace, profile, ts_output_dir_get_tmp_path (dir), host_speed, &stats, error))
    {
      ts_output_dir_discard (dir);
      return FALSE;
    }
  if (!ts_output_dir_commit (dir, error))
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
            output, profile->n_ranks, stats.actions_read, stats.lines_written, stats.skipped);
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
  g_autoptr (GOptionContext) ctx
    = g_option_context_new ("TRACE - convert a trace for another replay tool");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (
    ctx, "--to ti writes DIR/traces.txt (the list smpirun -replay takes) and one file per rank\n"
         "in DIR/ranks/. Run smpirun from inside DIR: the list names the files relative to it.\n");
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
  if (ok && !(host_speed > 0))
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--trace-speed must be positive");
      ok = FALSE;
    }
  if (ok)
    ok = convert (argv[1], output, host_speed, quiet, &error);
  g_free (to);
  g_free (output);
  return ok ? 0 : ts_cmd_fail ("convert", error);
}
