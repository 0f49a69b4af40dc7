#include <config.h>

/* The archive's files made ahead of time, beside the replay.
 *
 * OTF2 writes an event file and a definition file per location when the
 * archive is closed. Creating them is cheap on a fresh file system, but
 * ext4 allocates an inode by scanning past the recently deleted ones of
 * its group: where a previous output of the same size was just removed,
 * 32,768 files took from 1.5 to 13 s in back-to-back runs. So the empty
 * files are created on a thread while the replay simulates, in a directory
 * beside the archive's (OTF2 makes its own and refuses one that exists),
 * which then replaces the empty one OTF2 made; OTF2 opens its files by
 * name when it writes them, and truncates them. Any file the thread did
 * not make, OTF2 makes. */
#include "model/archive-private.h"
#include "model/output_dir.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

static char *
staging_path (const TsArchiveWriter *w)
{
  g_autofree char *name = g_strconcat (w->name, ".files", NULL);
  return g_build_filename (w->tmp_dir, name, NULL);
}

static gpointer
create_files (gpointer data)
{
  TsArchiveWriter *w = data;
  g_autofree char *path = staging_path (w);
  /* The umask decides, as for OTF2's own. */
  if (g_mkdir (path, 0777) != 0)
    return NULL;
  int dir = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return NULL;
  char name[32];
  /* OTF2's archive layout: <location>.evt and <location>.def, the
   * locations numbered by rank (ts_archive_writer_close). */
  for (guint f = 0; f < w->n_ranks * 2 && !g_atomic_int_get (&w->files_stop); f++)
    {
      g_snprintf (name, sizeof name, "%u.%s", f / 2, f % 2 ? "def" : "evt");
      int fd = openat (dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0)
        break;
      close (fd);
    }
  close (dir);
  return NULL;
}

void
ts_archive_writer_create_files_beside (TsArchiveWriter *w)
{
  g_return_if_fail (w != NULL && w->files == NULL);
  w->files = ts_output_dir_thread_try_new ("archive files", create_files, w, NULL);
}

void
ts_archive_files_join (TsArchiveWriter *w, gboolean stop)
{
  if (!w->files)
    return;
  if (stop)
    g_atomic_int_set (&w->files_stop, 1);
  g_thread_join (g_steal_pointer (&w->files));
}

void
ts_archive_files_install (TsArchiveWriter *w)
{
  g_autofree char *staging = staging_path (w);
  if (!g_file_test (staging, G_FILE_TEST_IS_DIR))
    return;
  /* rename(2) replaces an empty directory; where OTF2 put something in it
   * already, its files stay and the staged ones go. */
  g_autofree char *archive = g_build_filename (w->tmp_dir, w->name, NULL);
  if (g_rename (staging, archive) != 0 && !ts_output_dir_remove_tree (staging))
    g_warning ("%s: could not remove the files made ahead of the archive", staging);
}
