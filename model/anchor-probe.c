#include <config.h>

/* Checks of an archive's files before OTF2 reads them: the anchor opened in
 * a bounded child, the event files whole. */

#include "model/trace-private.h"
#include "model/output_dir.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* What opening an anchor file may cost: a real one takes kilobytes and
 * milliseconds. */
#define TS_ANCHOR_PROBE_BYTES (512ul << 20)
#define TS_ANCHOR_PROBE_SECONDS 3

/* How the probing child ends. */
enum { PROBE_OK, PROBE_REFUSED, PROBE_TOO_MANY, PROBE_DEFINITIONS, PROBE_MEMORY };

/* The anchor files (NAME.otf2, regular files) in @dir, as "@dir/NAME.otf2",
 * into @found; its subdirectories into @subdirs if not NULL. */
static void
list_anchors (const char *dir, GPtrArray *found, GPtrArray *subdirs)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_str_has_suffix (name, ".otf2") && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        g_ptr_array_add (found, g_steal_pointer (&path));
      else if (subdirs && g_file_test (path, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (subdirs, g_steal_pointer (&path));
    }
}

static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char *
ts_trace_directory_hint (const char *dir)
{
  g_autofree char *shown = g_strdup (dir);
  for (gsize len = strlen (shown); len > 1 && shown[len - 1] == '/'; len--)
    shown[len - 1] = '\0';
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) subdirs = g_ptr_array_new_with_free_func (g_free);
  list_anchors (shown, found, subdirs);
  /* An archive's anchor sits beside the directory of its event files: a
   * directory given one level too high (the run's, holding the trace's
   * directory) is common, so one level down is looked at too. */
  if (found->len == 0)
    for (guint i = 0; i < subdirs->len; i++)
      list_anchors (g_ptr_array_index (subdirs, i), found, NULL);
  /* Sorted for a message that does not depend on the file system's order. */
  g_ptr_array_sort (found, compare_paths);
  if (found->len == 0)
    return g_strdup_printf ("%s is a directory, and neither it nor its subdirectories hold "
                            "an OTF2 anchor file (NAME.otf2): give the anchor file of the "
                            "trace", shown);
  g_autoptr (GString) list = g_string_new (NULL);
  guint listed = MIN (found->len, 5u);
  for (guint i = 0; i < listed; i++)
    g_string_append_printf (list, "%s%s", i == 0 ? "" : i + 1 == found->len ? " or " : ", ",
                            (char *) g_ptr_array_index (found, i));
  if (found->len > listed)
    g_string_append_printf (list, " (and %u more)", found->len - listed);
  return g_strdup_printf ("%s is a directory: give %s: %s", shown,
                          found->len == 1 ? "the trace's anchor file" : "one of the anchor files "
                                                                        "found",
                          list->str);
}

/* Size of the global definitions beside @anchor ("x.otf2" -> "x.def"), or -1. */
static gint64
definitions_size (const char *anchor)
{
  g_autofree char *stem = g_str_has_suffix (anchor, ".otf2")
                            ? g_strndup (anchor, strlen (anchor) - 5) : g_strdup (anchor);
  g_autofree char *defs = g_strconcat (stem, ".def", NULL);
  GStatBuf st;
  return g_stat (defs, &st) == 0 ? (gint64) st.st_size : -1;
}

/* In the child: open the anchor, check its counts against the definitions
 * file on disk (every location and definition takes at least a byte of
 * it), and read every global definition, as the parent is about to. */
static int
probe (const char *path)
{
  OTF2_Reader *reader = OTF2_Reader_Open (path);
  if (!reader)
    return PROBE_REFUSED;
  uint64_t locations = 0, definitions = 0;
  gint64 bytes = definitions_size (path);
  if (OTF2_Reader_GetNumberOfLocations (reader, &locations) != OTF2_SUCCESS
      || OTF2_Reader_GetNumberOfGlobalDefinitions (reader, &definitions) != OTF2_SUCCESS)
    return PROBE_REFUSED;
  if (bytes >= 0 && (locations > (guint64) bytes || definitions > (guint64) bytes))
    return PROBE_TOO_MANY;
  OTF2_GlobalDefReader *defs = OTF2_Reader_GetGlobalDefReader (reader);
  uint64_t read = 0;
  if (!defs)
    return PROBE_DEFINITIONS;
  OTF2_ErrorCode status = OTF2_Reader_ReadAllGlobalDefinitions (reader, defs, &read);
  if (status == OTF2_ERROR_MEM_ALLOC_FAILED || status == OTF2_ERROR_MEM_FAULT)
    return PROBE_MEMORY; /* the limit: a count no file of this size can back */
  return status == OTF2_SUCCESS ? PROBE_OK : PROBE_DEFINITIONS;
}

/* OTF2 trusts the counts in the anchor and definitions files: a few changed
 * bytes make it allocate gigabytes and fill them for minutes (otf2-print
 * hangs the same way). The anchor is opened and the global definitions read
 * first in a child whose memory and time are bounded; FALSE and @error when
 * the child did not come back, or found the files inconsistent. */
gboolean
ts_trace_probe_anchor (const char *path, GError **error)
{
  /* A large, valid definitions file gets room and time in proportion
   * (reading them costs a few bytes and nanoseconds a byte). */
  gint64 defs = MAX (definitions_size (path), 0);
  guint64 bytes = TS_ANCHOR_PROBE_BYTES + 8 * (guint64) defs;
  guint seconds = TS_ANCHOR_PROBE_SECONDS + (guint) (defs >> 25);
  fflush (NULL);
  pid_t child = fork ();
  if (child == 0)
    {
      ts_output_dir_drop_cleanup (); /* its death must not touch the parent's output */
      /* Relative to what the process has mapped, so that it holds under
       * AddressSanitizer too, which reserves terabytes for its shadow. */
      long pages = 0;
      FILE *statm = fopen ("/proc/self/statm", "r");
      if (statm && fscanf (statm, "%ld", &pages) == 1)
        {
          rlim_t limit = (rlim_t) pages * sysconf (_SC_PAGESIZE) + bytes;
          struct rlimit lim = { limit, limit };
          setrlimit (RLIMIT_AS, &lim);
        }
      if (statm)
        fclose (statm);
      /* A handler the program installed (libFuzzer's for its own time-outs)
       * must not stop the alarm from ending the child. */
      signal (SIGALRM, SIG_DFL);
      alarm (seconds);
      _exit (probe (path));
    }
  if (child < 0)
    return TRUE; /* no probe: the open below is the same, unbounded */
  int status = 0;
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED (status) && WEXITSTATUS (status) == PROBE_OK)
    return TRUE;
  if (WIFEXITED (status) && WEXITSTATUS (status) == PROBE_TOO_MANY)
    g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                 "%s: the anchor file is corrupt: it counts more locations or definitions "
                 "than its definitions file (%" G_GINT64_FORMAT " bytes) can hold",
                 path, definitions_size (path));
  else if (WIFEXITED (status) && WEXITSTATUS (status) == PROBE_DEFINITIONS)
    /* Refused within the bounds: the parent reads them again and says
     * which record is wrong. */
    return TRUE;
  else if (WIFEXITED (status) && WEXITSTATUS (status) == PROBE_MEMORY)
    g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                 "%s: the definitions file is corrupt: reading it needs more than %"
                 G_GUINT64_FORMAT " MiB", path, bytes >> 20);
  else if (WIFEXITED (status)) /* OTF2 refused it, or could not have what it asked for */
    g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                 "%s: the anchor file is corrupt or truncated: OTF2 cannot open it", path);
  else
    g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
               "%s: the anchor or definitions file is corrupt: OTF2 could not read them within "
               "%" G_GUINT64_FORMAT " MiB and %u s (%s)", path, bytes >> 20, seconds,
               WTERMSIG (status) == SIGALRM ? "out of time" : g_strsignal (WTERMSIG (status)));
  return FALSE;
}

/* The last two bytes OTF2 writes into every complete local file (event or
 * definition): its end-of-file record type (2) and the end-of-buffer marker
 * (1) that follows it. */
static const guint8 otf2_file_tail[2] = { 2, 1 };

/* A truncated event file does not end as OTF2 ends them, and OTF2 reads past
 * its end into memory it never filled: depending on what is there it fails
 * or waits forever for the next chunk. So each rank's event file is checked
 * to end with OTF2's end-of-file record before any is read (plain POSIX
 * archives only: compressed and SIONlib files end otherwise). */
gboolean
ts_trace_check_event_files (const TsTrace *t, OTF2_Reader *reader, GError **error)
{
  OTF2_FileSubstrate substrate = OTF2_SUBSTRATE_POSIX;
  OTF2_Compression compression = OTF2_COMPRESSION_NONE;
  if (OTF2_Reader_GetFileSubstrate (reader, &substrate) != OTF2_SUCCESS
      || OTF2_Reader_GetCompression (reader, &compression) != OTF2_SUCCESS
      || substrate != OTF2_SUBSTRATE_POSIX || compression != OTF2_COMPRESSION_NONE)
    return TRUE;
  g_autofree char *dir = g_strndup (t->path, strlen (t->path) - strlen (".otf2"));
  for (guint r = 0; r < t->n_ranks; r++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "%" G_GUINT64_FORMAT ".evt",
                  (guint64) g_array_index (t->rank_location, OTF2_LocationRef, r));
      g_autofree char *path = g_build_filename (dir, name, NULL);
      FILE *f = fopen (path, "rb");
      if (!f)
        {
          g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                       "%s: rank %u: cannot open its event file %s: %s", t->path, r, path,
                       g_strerror (errno));
          return FALSE;
        }
      guint8 tail[2] = { 0, 0 };
      gboolean complete = fseek (f, -2, SEEK_END) == 0 && fread (tail, 1, 2, f) == 2
                          && memcmp (tail, otf2_file_tail, 2) == 0;
      fclose (f);
      if (!complete)
        {
          g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS,
                       "%s: rank %u: its event file %s is truncated (it does not end with "
                       "OTF2's end-of-file record)", t->path, r, path);
          return FALSE;
        }
    }
  return TRUE;
}
