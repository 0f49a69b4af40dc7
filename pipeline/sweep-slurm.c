#include <config.h>

#include "pipeline/sweep-slurm.h"
#include "model/output_dir.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* A word the shell reads back as it is. */
static char *
quoted (const char *s)
{
  return g_shell_quote (s);
}

char *
ts_sweep_write_sbatch (const TsSweep *s, const TsSweepSlurm *sl, GError **error)
{
  guint minutes = (guint) MAX (1, ceil (3 * sl->task_seconds / 60));
  guint64 mib = MAX (256, (2 * sl->task_bytes + (1u << 20) - 1) >> 20);
  g_autofree char *logs = g_path_is_absolute (sl->out)
                            ? g_build_filename (sl->out, "slurm", NULL)
                            : g_build_filename (sl->cwd, sl->out, "slurm", NULL);
  if (g_mkdir_with_parents (logs, 0777) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cannot create", logs);
      return NULL;
    }
  g_autofree char *limit = sl->max_parallel ? g_strdup_printf ("%%%u", sl->max_parallel) : g_strdup ("");
  g_autofree char *q_tracesim = quoted (sl->tracesim);
  g_autofree char *q_sweep = quoted (sl->sweep_path);
  g_autofree char *q_out = quoted (sl->out);
  g_autofree char *q_cwd = quoted (sl->cwd);
  g_autofree char *text = g_strdup_printf (
    "#!/bin/sh\n"
    "# " TS_WRITTEN_MARK " sweep --slurm: one task a point of %s (%u points).\n"
    "# Limits from a point measured here: %.1f s and %" G_GUINT64_FORMAT " MiB.\n"
    "# Submit with sbatch; when every task is done:\n"
    "#   %s sweep %s -o %s --collect\n"
    "#SBATCH --job-name=tracesim-sweep\n"
    "#SBATCH --array=0-%u%s\n"
    "#SBATCH --ntasks=1\n"
    "#SBATCH --time=%u:%02u:00\n"
    "#SBATCH --mem=%" G_GUINT64_FORMAT "M\n"
    "#SBATCH --output=%s/%%A_%%a.out\n"
    "# From where the sweep was written, with its paths as given: the points'\n"
    "# names and keys are of the paths as the sweep file names them.\n"
    "cd %s || exit 1\n"
    "exec %s sweep %s -o %s --point \"$SLURM_ARRAY_TASK_ID\" -q\n",
    sl->sweep_path, ts_sweep_n_points (s), sl->task_seconds, sl->task_bytes >> 20, q_tracesim,
    q_sweep, q_out, ts_sweep_n_points (s) - 1, limit, minutes / 60, minutes % 60, mib, logs,
    q_cwd, q_tracesim, q_sweep, q_out);
  char *path = g_build_filename (sl->out, "sweep.sbatch", NULL);
  if (!ts_output_file_write (path, text, strlen (text), TS_WRITTEN_MARK, error))
    g_clear_pointer (&path, g_free);
  else
    g_chmod (path, 0755);
  return path;
}
