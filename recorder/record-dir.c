/* libtracesim-record: the output directory (doc/recorder.md, "Recording
 * again into one directory").
 *
 * A recording's directory holds the OTF2 archive (traces.otf2, traces.def,
 * traces/) and a marker, tracesim-record.txt, written by rank 0 once the
 * archive is open: what recorded it, when, how many ranks, under which MPI
 * library. The marker is how a later recording into the same directory
 * knows the directory for tracesim-record's own: it moves such a directory
 * aside, as Score-P moves an old experiment directory, and never moves or
 * removes one holding anything else. tracesim-record (the script) refuses
 * such a directory on every rank before the program starts; the checks
 * here are the library's, for programs linked with it. */
#include <config.h>

#include "recorder/record-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What tracesim-record writes into a directory, and nothing else. */
static gboolean
is_recording_entry (const char *name)
{
  return strcmp (name, "traces.otf2") == 0 || strcmp (name, "traces.def") == 0
         || strcmp (name, "traces") == 0 || strcmp (name, TS_REC_MARKER) == 0;
}

/* The first entry of @dir that tracesim-record did not write, or NULL
 * (caller frees). Sets *@marked if the marker is there, *@n to the
 * entries seen. */
static char *
foreign_entry (GDir *d, gboolean *marked, guint *n)
{
  const char *name;
  *marked = FALSE;
  *n = 0;
  while ((name = g_dir_read_name (d)))
    {
      (*n)++;
      if (!is_recording_entry (name))
        return g_strdup (name);
      *marked |= strcmp (name, TS_REC_MARKER) == 0;
    }
  return NULL;
}

/* @dir-YYYYMMDD_HHMMSS of the marker's time (when the old recording
 * started), with -2, -3... where that is taken. NULL if none is free. */
static char *
aside_name (const char *dir)
{
  g_autofree char *marker = g_build_filename (dir, TS_REC_MARKER, NULL);
  GStatBuf st;
  time_t when = g_stat (marker, &st) == 0 ? st.st_mtime : time (NULL);
  struct tm tm;
  char stamp[32];
  localtime_r (&when, &tm);
  strftime (stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
  g_autofree char *trimmed = g_strdup (dir);
  while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, G_DIR_SEPARATOR_S))
    trimmed[strlen (trimmed) - 1] = '\0';
  for (guint k = 1; k < 1000; k++)
    {
      char *name = k == 1 ? g_strdup_printf ("%s-%s", trimmed, stamp)
                          : g_strdup_printf ("%s-%s-%u", trimmed, stamp, k);
      if (!g_file_test (name, G_FILE_TEST_EXISTS) && !g_file_test (name, G_FILE_TEST_IS_SYMLINK))
        return name;
      g_free (name);
    }
  return NULL;
}

char *
ts_rec_dir_prepare (const char *dir, char **moved_to)
{
  *moved_to = NULL;
  GStatBuf st;
  /* A symbolic link to a directory is that directory, as the script sees it. */
  if (g_stat (dir, &st) != 0)
    return NULL;              /* absent: OTF2 makes it */
  if (!S_ISDIR (st.st_mode))
    return g_strdup_printf ("%s exists and is not a directory", dir);
  g_autoptr (GError) error = NULL;
  GDir *d = g_dir_open (dir, 0, &error);
  if (!d)
    return g_strdup_printf ("cannot read %s: %s", dir, error->message);
  gboolean marked;
  guint n;
  g_autofree char *foreign = foreign_entry (d, &marked, &n);
  g_dir_close (d);
  if (foreign)
    return g_strdup_printf ("%s holds %s, which tracesim-record did not write: it moves only "
                            "its own earlier recording aside (name another directory)",
                            dir, foreign);
  if (n == 0)
    return NULL;
  if (!marked)
    return g_strdup_printf ("%s holds an OTF2 archive without %s: not a recording of this "
                            "tracesim-record, left as it is (name another directory)",
                            dir, TS_REC_MARKER);
  /* -o a symbolic link (trace -> /scratch/me/trace): the recording is the
   * link's target, moved aside beside it and made again, so that the new
   * one lands there too and the path the user named still leads to it. */
  GStatBuf lst;
  g_autofree char *target = g_lstat (dir, &lst) == 0 && S_ISLNK (lst.st_mode)
                              ? realpath (dir, NULL) : NULL;
  const char *moved = target ? target : dir;
  g_autofree char *aside = aside_name (moved);
  if (!aside || g_rename (moved, aside) != 0)
    return g_strdup_printf ("cannot move the earlier recording %s aside%s%s", moved,
                            aside ? ": " : "", aside ? g_strerror (errno) : "");
  *moved_to = g_steal_pointer (&aside);
  if (target && g_mkdir (target, st.st_mode & 07777) != 0)
    return g_strdup_printf ("cannot make %s again (where %s leads): %s", target, dir,
                            g_strerror (errno));
  return NULL;
}

char *
ts_rec_dir_failure (const char *dir)
{
  /* OTF2 does not say why: the system does, when asked to do the same
   * (make the directory, a file in it). What the probe made, it removes. */
  gboolean made = !g_file_test (dir, G_FILE_TEST_EXISTS);
  if (made && g_mkdir (dir, 0777) != 0)
    return g_strdup_printf ("cannot create the directory %s: %s", dir, g_strerror (errno));
  g_autofree char *file = g_build_filename (dir, ".tracesim-record-probe-XXXXXX", NULL);
  int fd = g_mkstemp (file);
  int saved = errno;
  if (fd >= 0)
    {
      close (fd);
      g_remove (file);
    }
  if (made)
    g_rmdir (dir);
  if (fd < 0)
    return g_strdup_printf ("cannot write into %s: %s", dir, g_strerror (saved));
  return g_strdup_printf ("cannot create the OTF2 archive in %s, though it is writable "
                          "(is the disk full?)", dir);
}

void
ts_rec_dir_write_marker (const char *dir, int ranks, const char *mpi_library)
{
  g_autofree char *path = g_build_filename (dir, TS_REC_MARKER, NULL);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *when = g_date_time_format_iso8601 (now);
  g_autofree char *text = g_strdup_printf (
    "Recorded by tracesim-record %s: traces.otf2 (the anchor), traces.def and traces/.\n"
    "tracesim-record moves this directory aside (DIR-YYYYMMDD_HHMMSS) when it records into\n"
    "it again, while it holds nothing but these and this file.\n"
    "started: %s\nranks: %d\nMPI library: %s\n",
    PACKAGE_VERSION, when, ranks, *mpi_library ? mpi_library : "(unknown)");
  if (!g_file_set_contents (path, text, -1, NULL))
    fprintf (stderr, "tracesim-record: cannot write %s: a later recording into %s will not "
                     "know it for tracesim-record's\n", path, dir);
}

void
ts_rec_dir_remove_marker (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, TS_REC_MARKER, NULL);
  g_remove (path);
}

char *
ts_rec_mpi_library (void)
{
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  if (PMPI_Get_library_version (version, &len) != MPI_SUCCESS)
    return g_strdup ("");
  version[MIN (MAX (len, 0), MPI_MAX_LIBRARY_VERSION_STRING - 1)] = '\0';
  /* The first line ("Open MPI v4.1.4, package: ...", "MPICH Version:
   * 4.0.2"), its blanks made single spaces: MPICH's continues with its whole
   * configure line. */
  char *nl = strchr (version, '\n');
  if (nl)
    *nl = '\0';
  g_auto (GStrv) words = g_strsplit_set (version, " \t\r", -1);
  GString *out = g_string_new (NULL);
  for (guint i = 0; words[i]; i++)
    if (*words[i])
      g_string_append_printf (out, "%s%s", out->len ? " " : "", words[i]);
  return g_string_free (out, FALSE);
}
