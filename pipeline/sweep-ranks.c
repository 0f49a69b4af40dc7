#include <config.h>

#include "pipeline/sweep-ranks.h"
#include "model/output_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static char *
extrapolated_dir (const char *out, guint ranks)
{
  g_autofree char *name = g_strdup_printf ("np%u", ranks);
  return g_build_filename (out, "inputs", "extrapolated", name, NULL);
}

char *
ts_sweep_ranks_trace (const char *out, guint ranks)
{
  g_autofree char *dir = extrapolated_dir (out, ranks);
  return g_build_filename (dir, "traces.otf2", NULL);
}

char *
ts_sweep_ranks_key (const TsSweep *s, guint ranks)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  const char *const *inputs = ts_sweep_extrapolation_inputs (s);
  for (guint i = 0; inputs[i]; i++)
    {
      g_autofree char *state = ts_run_trace_state (inputs[i]);
      g_checksum_update (sum, (const guchar *) state, -1);
    }
  /* The grid's order only when set: keys made before it existed stay valid. */
  g_autofree char *order = ts_grid_order_name (ts_sweep_grid_order (s));
  g_autofree char *rest = g_strdup_printf ("ranks %u boundaries %d%s%s%s%s%s tracesim %s", ranks,
                                           ts_sweep_boundaries (s), order ? " " : "",
                                           order ? order : "",
                                           ts_sweep_all_to_all (s) ? " all-to-all" : "",
                                           ts_sweep_recursive_doubling (s) ? " recursive-doubling"
                                                                           : "",
                                           ts_sweep_cpu_time (s) == TS_CPU_TIME_ON ? " cpu-time" : "",
                                           PACKAGE_VERSION);
  g_checksum_update (sum, (const guchar *) rest, -1);
  return g_strdup (g_checksum_get_string (sum));
}

gboolean
ts_sweep_ranks_prepare (const TsSweep *s, const char *out, guint ranks, char **note,
                        GError **error)
{
  g_autofree char *dir = extrapolated_dir (out, ranks);
  g_autofree char *parent = g_path_get_dirname (dir);
  if (g_mkdir_with_parents (parent, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", parent,
                   g_strerror (saved));
      return FALSE;
    }
  g_autofree char *key_path = g_strconcat (dir, ".key", NULL);
  g_autofree char *lock_path = g_strconcat (dir, ".lock", NULL);
  g_autofree char *trace = ts_sweep_ranks_trace (out, ranks);
  g_autofree char *key = ts_sweep_ranks_key (s, ranks);
  /* Unlocked, two tasks could extrapolate into the same directory at once:
   * no lock, no extrapolation. */
  int lock = open (lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  int locked = -1;
  while (lock >= 0 && (locked = flock (lock, LOCK_EX)) != 0 && errno == EINTR)
    ;
  if (lock < 0 || locked != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: cannot lock: %s",
                   lock_path, g_strerror (saved));
      if (lock >= 0)
        close (lock);
      return FALSE;
    }
  g_autofree char *old = NULL;
  gboolean ok = TRUE;
  if (g_file_get_contents (key_path, &old, NULL, NULL) && g_str_equal (g_strstrip (old), key)
      && g_file_test (trace, G_FILE_TEST_IS_REGULAR))
    {
      if (note)
        *note = g_strdup_printf ("the trace at %u ranks is the one extrapolated before (%s)",
                                 ranks, trace);
    }
  else
    {
      /* A key not matching what is there must not survive a failure. */
      g_unlink (key_path);
      const char *const *inputs = ts_sweep_extrapolation_inputs (s);
      TsExtrapolateOptions o = { .ranks = ranks, .output_dir = dir,
                                 .boundaries = ts_sweep_boundaries (s),
                                 .grid_order = ts_sweep_grid_order (s),
                                 .all_to_all = ts_sweep_all_to_all (s),
                                 .recursive_doubling = ts_sweep_recursive_doubling (s),
                                 .cpu_time = ts_sweep_cpu_time (s) == TS_CPU_TIME_ON };
      g_autofree char *line = g_strconcat (key, "\n", NULL);
      ok = ts_extrapolate (inputs, g_strv_length ((char **) inputs), &o, NULL, error)
           && ts_output_file_write (key_path, line, strlen (line), NULL, error);
      if (ok && note)
        *note = g_strdup_printf ("extrapolated the trace at %u ranks (%s)", ranks, trace);
    }
  close (lock);
  return ok;
}
