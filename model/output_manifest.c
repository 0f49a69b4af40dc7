#include <config.h>

#define G_LOG_DOMAIN "tracesim-output"

#include "model/output_dir.h"
#include "model/output_dir-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <nettle/sha2.h>
#include <string.h>
#include <unistd.h>

/* The manifest (TS_OUTPUT_MANIFEST) lists every entry tracesim wrote below
 * an output directory, one a line, PATH below the directory, escaped
 * (g_strescape) and last, so that it may hold spaces:
 *
 *   file SIZE MTIME SHA256 PATH
 *   dir - - - PATH
 *   special - - - PATH        (neither: tracesim writes none)
 *
 * A file is tracesim's own when its size and SHA-256 are those listed:
 * its content, not its inode or times, so that a copy (`cp -r`, new
 * mtimes) or a move of the directory stays usable, and one byte changed is
 * seen. MTIME (seconds.nanoseconds) only spares hashing a file whose size
 * and modification time are still those listed, as git's index and rsync
 * do: editing a file changes its mtime, so this costs a re-run nothing and
 * decides nothing that the hash would decide otherwise in practice.
 *
 * Manifests written before the hashes (format 1) list "f SIZE MTIME PATH",
 * "d - - PATH" and "other - - PATH": such lines are still read, and decide
 * by size and modification time as they did; a copy of such a directory is
 * refused with a message saying why. Both kinds of line may meet in one
 * manifest (a report added to an old run directory). */

/* The escaped path of a manifest line of either format, or NULL. */
static gboolean
line_is_hashed (const char *line)
{
  return g_str_has_prefix (line, "file ") || g_str_has_prefix (line, "dir ")
         || g_str_has_prefix (line, "special ");
}

static const char *
line_path (const char *line)
{
  guint fields = line_is_hashed (line) ? 4 : 3;
  for (guint field = 0; line && field < fields; field++)
    line = (line = strchr (line, ' ')) ? line + 1 : NULL;
  return line;
}

static char *
mtime_text (const GStatBuf *st)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ".%09ld", (gint64) st->st_mtim.tv_sec,
                          (long) st->st_mtim.tv_nsec);
}

/* A format-1 line for an entry, to compare with one read. */
static char *
line_by_mtime (const char *rel, const GStatBuf *st)
{
  g_autofree char *escaped = g_strescape (rel, NULL);
  g_autofree char *mtime = mtime_text (st);
  if (S_ISDIR (st->st_mode))
    return g_strdup_printf ("d - - %s", escaped);
  if (S_ISREG (st->st_mode))
    return g_strdup_printf ("f %" G_GINT64_FORMAT " %s %s", (gint64) st->st_size, mtime, escaped);
  return g_strdup_printf ("other - - %s", escaped);
}

/* The line for an entry: @sha256 the hex digest of a regular file's content. */
static char *
entry_line (const char *rel, const GStatBuf *st, const char *sha256)
{
  g_autofree char *escaped = g_strescape (rel, NULL);
  g_autofree char *mtime = mtime_text (st);
  if (S_ISDIR (st->st_mode))
    return g_strdup_printf ("dir - - - %s", escaped);
  if (S_ISREG (st->st_mode))
    return g_strdup_printf ("file %" G_GINT64_FORMAT " %s %s %s", (gint64) st->st_size, mtime,
                            sha256, escaped);
  return g_strdup_printf ("special - - - %s", escaped);
}

/* The SHA-256 of the file at @path as hex (caller frees), read in blocks
 * (an archive may be larger than memory); NULL with errno set. Nettle's,
 * not GChecksum's: it uses the CPU's SHA extensions where there are some,
 * about 7 times GChecksum's 180 MB/s here, and a run hashes every file of
 * its predicted archive. */
static char *
file_sha256 (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return NULL;
  struct sha256_ctx sum;
  sha256_init (&sum);
  gsize size = 1 << 17;
  g_autofree guchar *block = g_malloc (size);
  ssize_t got;
  while ((got = read (fd, block, size)) != 0)
    {
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int saved = errno;
          close (fd);
          errno = saved;
          return NULL;
        }
      sha256_update (&sum, (size_t) got, block);
    }
  close (fd);
  guint8 digest[SHA256_DIGEST_SIZE];
  sha256_digest (&sum, sizeof digest, digest);
  char *hex = g_malloc (2 * sizeof digest + 1);
  for (gsize i = 0; i < sizeof digest; i++)
    g_snprintf (hex + 2 * i, 3, "%02x", digest[i]);
  return hex;
}

/* Whether the entry @rel (at @full, as @st) is what @listed, its line in
 * the manifest, says tracesim wrote. */
static gboolean
entry_is_listed (const char *listed, const char *rel, const char *full, const GStatBuf *st)
{
  if (!line_is_hashed (listed))
    {
      g_autofree char *now = line_by_mtime (rel, st);
      return strcmp (listed, now) == 0;
    }
  g_auto (GStrv) field = g_strsplit (listed, " ", 5);
  if (g_strv_length (field) < 5)
    return FALSE;
  if (strcmp (field[0], "dir") == 0)
    return S_ISDIR (st->st_mode);
  if (strcmp (field[0], "special") == 0)
    return !S_ISDIR (st->st_mode) && !S_ISREG (st->st_mode);
  g_autofree char *size = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) st->st_size);
  if (!S_ISREG (st->st_mode) || strcmp (field[1], size) != 0)
    return FALSE;
  g_autofree char *mtime = mtime_text (st);
  if (strcmp (field[2], mtime) == 0)
    return TRUE;
  g_autofree char *sha256 = file_sha256 (full);
  return sha256 && strcmp (sha256, field[3]) == 0;
}

typedef struct
{
  char *rel;  /* below the target */
  char *full; /* as opened */
  GStatBuf st;
} Entry;

static void
entry_free (gpointer p)
{
  Entry *e = p;
  g_free (e->rel);
  g_free (e->full);
  g_free (e);
}

/* Every entry below @path (@rel its path below the target, NULL for the
 * target), depth first, the manifest itself left out, into @found. */
static gboolean
list_tree (const char *path, const char *rel, GPtrArray *found, GError **error)
{
  g_autoptr (GError) local = NULL;
  GDir *dir = g_dir_open (path, 0, &local);
  if (!dir)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", local->message);
      return FALSE;
    }
  const char *name;
  gboolean ok = TRUE;
  while (ok && (name = g_dir_read_name (dir)) != NULL)
    {
      if (!rel && strcmp (name, TS_OUTPUT_MANIFEST) == 0)
        continue;
      Entry *e = g_new0 (Entry, 1);
      e->rel = rel ? g_strconcat (rel, "/", name, NULL) : g_strdup (name);
      e->full = g_build_filename (path, name, NULL);
      g_ptr_array_add (found, e);
      if (g_lstat (e->full, &e->st) != 0)
        {
          ts_output_dir_set_errno_error (error, errno, "%s: %s", e->full);
          ok = FALSE;
        }
      else if (S_ISDIR (e->st.st_mode))
        ok = list_tree (e->full, e->rel, found, error);
    }
  g_dir_close (dir);
  return ok;
}

/* The manifest of an earlier output in @dir: its lines by their escaped
 * path; NULL and @error when there is none or it cannot be read. */
static GHashTable *
read_manifest (const char *dir, const char *example, GError **error)
{
  g_autofree char *path = g_build_filename (dir, TS_OUTPUT_MANIFEST, NULL);
  GStatBuf st;
  char *text = NULL;
  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > TS_OUTPUT_MANIFEST_MAX
      || !g_file_get_contents (path, &text, NULL, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "%s already exists and holds '%s', and no %s: tracesim did not write it; "
                   "refusing to replace it (remove it, or give another output directory)",
                   dir, example, TS_OUTPUT_MANIFEST);
      return NULL;
    }
  /* The keys point into the lines, which the table owns as values. */
  GHashTable *lines = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_auto (GStrv) split = g_strsplit (text, "\n", -1);
  g_free (text);
  for (guint i = 0; split[i]; i++)
    {
      const char *rel = line_path (split[i]);
      if (split[i][0] != '#' && rel)
        {
          char *line = g_strdup (split[i]);
          g_hash_table_replace (lines, line + (rel - split[i]), line);
        }
    }
  return lines;
}

/* Why @rel, listed as @ours (NULL if unlisted), is not tracesim's. */
static void
set_not_ours (GError **error, const char *dir, const char *rel, const char *ours)
{
  const char *why
    = !ours ? "%s already exists and holds '%s', which tracesim did not write; refusing to "
              "replace it"
      : line_is_hashed (ours)
        ? "%s already exists and its '%s' changed since tracesim wrote it; refusing to "
          "replace it"
        : "%s already exists and its '%s' is not as tracesim wrote it; its manifest, from a "
          "tracesim that recorded modification times and not content, cannot tell a copy "
          "from an edit; refusing to replace it (remove it, or give another output directory)";
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, why, dir, rel);
}

gboolean
ts_output_manifest_check (const char *dir, const char *example, GError **error)
{
  g_autoptr (GHashTable) listed = read_manifest (dir, example, error);
  if (!listed)
    return FALSE;
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (entry_free);
  if (!list_tree (dir, NULL, found, error))
    return FALSE;
  for (guint i = 0; i < found->len; i++)
    {
      const Entry *e = g_ptr_array_index (found, i);
      g_autofree char *escaped = g_strescape (e->rel, NULL);
      const char *ours = g_hash_table_lookup (listed, escaped);
      if (ours && entry_is_listed (ours, e->rel, e->full, &e->st))
        continue;
      set_not_ours (error, dir, e->rel, ours);
      return FALSE;
    }
  return TRUE;
}

/* A manifest's text: its header, then @lines (char *), one a line. */
static GString *
manifest_text (GList *lines)
{
  GString *text = g_string_new ("# written by " PACKAGE_STRING ": what a later run may replace "
                                "here (type, size, mtime, SHA-256, path)\n");
  for (GList *l = lines; l; l = l->next)
    g_string_append_printf (text, "%s\n", (char *) l->data);
  return text;
}

/* The lines of the manifest in @dir, a directory below the target at @rel
 * (an output written inside this one, such as a run's predicted archive),
 * added to @known under their paths below the target. None if it has no
 * readable manifest. */
static void
add_nested (GHashTable *known, const char *dir, const char *rel)
{
  g_autoptr (GHashTable) lines = read_manifest (dir, "", NULL);
  if (!lines)
    return;
  g_autofree char *prefix = g_strescape (rel, NULL);
  GHashTableIter it;
  gpointer key, line;
  g_hash_table_iter_init (&it, lines);
  while (g_hash_table_iter_next (&it, &key, &line))
    if (line_is_hashed (line))
      g_hash_table_replace (known, g_strconcat (prefix, "/", key, NULL), g_strdup (line));
}

/* The SHA-256 that @listed, a line of a nested manifest, gives the file
 * @st if its size and modification time are still those listed (the
 * shortcut the check takes), as the file's own; otherwise NULL. */
static char *
listed_sha256 (const char *listed, const GStatBuf *st)
{
  g_auto (GStrv) field = g_strsplit (listed, " ", 5);
  if (g_strv_length (field) < 5 || strcmp (field[0], "file") != 0)
    return NULL;
  g_autofree char *size = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) st->st_size);
  g_autofree char *mtime = mtime_text (st);
  if (strcmp (field[1], size) != 0 || strcmp (field[2], mtime) != 0)
    return NULL;
  return g_strdup (field[3]);
}

/* An output written inside this one (the run's predicted archive) hashed
 * its files a moment ago: its manifest gives their SHA-256 where a file is
 * unchanged since (size and modification time), instead of reading them
 * all again. */
gboolean
ts_output_manifest_write (const char *dir, GError **error)
{
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (entry_free);
  if (!list_tree (dir, NULL, found, error))
    return FALSE;
  g_autoptr (GHashTable) known = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < found->len; i++)
    {
      const Entry *e = g_ptr_array_index (found, i);
      if (S_ISDIR (e->st.st_mode))
        add_nested (known, e->full, e->rel);
      g_autofree char *sha256 = NULL;
      if (S_ISREG (e->st.st_mode))
        {
          g_autofree char *escaped = g_strescape (e->rel, NULL);
          const char *listed = g_hash_table_lookup (known, escaped);
          sha256 = listed ? listed_sha256 (listed, &e->st) : NULL;
          if (!sha256)
            sha256 = file_sha256 (e->full);
        }
      if (S_ISREG (e->st.st_mode) && !sha256)
        {
          ts_output_dir_set_errno_error (error, errno, "%s: cannot read it back: %s", e->full);
          return FALSE;
        }
      g_ptr_array_add (lines, entry_line (e->rel, &e->st, sha256));
    }
  g_autoptr (GList) list = NULL;
  for (guint i = lines->len; i > 0; i--)
    list = g_list_prepend (list, g_ptr_array_index (lines, i - 1));
  g_autoptr (GString) text = manifest_text (list);
  g_autofree char *path = g_build_filename (dir, TS_OUTPUT_MANIFEST, NULL);
  return ts_output_dir_write_file (path, text->str, text->len, error);
}

/* The manifest of @dir read (NULL and @error when @name may not be added):
 * @name absent, or listed there as tracesim wrote it. Sets @existed. */
static GHashTable *
check_add (const char *dir, const char *name, gboolean *existed, GError **error)
{
  g_autofree char *manifest = g_build_filename (dir, TS_OUTPUT_MANIFEST, NULL);
  if (!g_file_test (manifest, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "%s has no %s: not an output directory tracesim wrote; nothing added", dir,
                   TS_OUTPUT_MANIFEST);
      return NULL;
    }
  g_autoptr (GHashTable) listed = read_manifest (dir, name, error);
  if (!listed)
    return NULL;
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GStatBuf st;
  *existed = g_lstat (path, &st) == 0;
  if (*existed)
    {
      g_autofree char *escaped = g_strescape (name, NULL);
      const char *ours = g_hash_table_lookup (listed, escaped);
      if (!ours || !entry_is_listed (ours, name, path, &st))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       "%s already exists and tracesim did not write it as it is; refusing to "
                       "replace it", path);
          return NULL;
        }
    }
  return g_steal_pointer (&listed);
}

gboolean
ts_output_dir_may_add (const char *dir, const char *name, GError **error)
{
  gboolean existed;
  g_autoptr (GHashTable) listed = check_add (dir, name, &existed, error);
  return listed != NULL;
}

gboolean
ts_output_dir_add_file (const char *dir, const char *name, const char *data, gsize len,
                        GError **error)
{
  gboolean existed;
  g_autoptr (GHashTable) listed = check_add (dir, name, &existed, error);
  if (!listed)
    return FALSE;
  g_autofree char *manifest = g_build_filename (dir, TS_OUTPUT_MANIFEST, NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GStatBuf st;
  /* Both written beside their targets first, then renamed in a row with
   * the signals held: an interruption leaves the old pair or the new. */
  g_autofree char *tmp = ts_output_dir_temp_beside (path, data, len, error);
  if (!tmp)
    return FALSE;
  if (g_lstat (tmp, &st) != 0)
    {
      ts_output_dir_set_errno_error (error, errno, "%s: %s", tmp);
      ts_output_dir_finish_temp (tmp, path, FALSE);
      return FALSE;
    }
  /* The rename keeps size and time; the content is @data. */
  g_autofree char *sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data,
                                                         len);
  char *line = entry_line (name, &st, sha256);
  g_hash_table_replace (listed, (char *) line_path (line), line);
  g_autoptr (GList) lines = g_hash_table_get_values (listed);
  lines = g_list_sort (lines, (GCompareFunc) g_strcmp0);
  g_autoptr (GString) text = manifest_text (lines);
  g_autofree char *manifest_tmp = ts_output_dir_temp_beside (manifest, text->str, text->len, error);
  if (!manifest_tmp)
    {
      ts_output_dir_finish_temp (tmp, path, FALSE);
      return FALSE;
    }
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  gboolean ok = ts_output_dir_finish_temp (tmp, path, TRUE);
  if (ok && !ts_output_dir_finish_temp (manifest_tmp, manifest, TRUE))
    {
      /* The file is in place but unlisted: it goes, unless it replaced ours. */
      if (!existed)
        g_unlink (path);
      ok = FALSE;
    }
  else if (!ok)
    ts_output_dir_finish_temp (manifest_tmp, manifest, FALSE);
  int saved = errno;
  ts_output_dir_release_signals (&old);
  if (!ok)
    ts_output_dir_set_errno_error (error, saved, "cannot rename into %s: %s", dir);
  return ok;
}
