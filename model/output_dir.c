#include <config.h>

#define G_LOG_DOMAIN "tracesim-output"

#include "model/output_dir.h"
#include "model/output_dir-private.h"
#include "model/fd-io.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

struct TsOutputDir {
  char *dir;            /* target, trailing slashes removed */
  char *tmp_dir;        /* what we write into until commit */
  GPtrArray *made_dirs; /* ancestors of dir we created, deepest first */
};

/* ---- removal when interrupted ------------------------------------------------ */

/* The temporary paths tracesim is writing, removed by the handler of the
 * signals that end the process. A signal handler reaches only global state,
 * hence this table; the handler removes the trees with system calls only
 * (openat, getdents64, unlinkat): it may not allocate, nor fork (glibc's
 * fork takes the allocator's locks, which the signal may have interrupted,
 * and waits forever). */
#define TS_MAX_GUARDED 32
#define TS_MAX_GUARDED_PATH 4096
static char guarded[TS_MAX_GUARDED][TS_MAX_GUARDED_PATH];
static volatile sig_atomic_t cleanup_installed;

void
ts_output_dir_hold_signals (sigset_t *old)
{
  sigset_t set;
  sigemptyset (&set);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGHUP);
  pthread_sigmask (SIG_BLOCK, &set, old);
}

GThread *
ts_output_dir_thread_try_new (const char *name, GThreadFunc func, gpointer data, GError **error)
{
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  GThread *thread = g_thread_try_new (name, func, data, error);
  ts_output_dir_release_signals (&old);
  return thread;
}

GThread *
ts_output_dir_thread_new (const char *name, GThreadFunc func, gpointer data)
{
  g_autoptr (GError) error = NULL;
  GThread *thread = ts_output_dir_thread_try_new (name, func, data, &error);
  if (!thread)
    g_error ("creating thread '%s': %s", name, error->message);
  return thread;
}

void
ts_output_dir_release_signals (const sigset_t *old)
{
  pthread_sigmask (SIG_SETMASK, old, NULL);
}

void
ts_output_dir_guard (const char *path)
{
  if (strlen (path) >= TS_MAX_GUARDED_PATH)
    return;
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  for (guint i = 0; i < TS_MAX_GUARDED; i++)
    if (!guarded[i][0])
      {
        g_strlcpy (guarded[i], path, TS_MAX_GUARDED_PATH);
        break;
      }
  ts_output_dir_release_signals (&old);
}

int
ts_output_dir_guarded_temp (char *tmpl, int flags)
{
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  int fd = g_mkstemp_full (tmpl, flags | O_CLOEXEC, 0666);
  int saved = errno;
  if (fd >= 0)
    ts_output_dir_guard (tmpl);
  ts_output_dir_release_signals (&old);
  errno = saved;
  return fd;
}

gboolean
ts_output_dir_finish_temp (const char *tmp, const char *path, gboolean written)
{
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  gboolean ok = written && g_rename (tmp, path) == 0;
  int saved = written ? errno : 0;
  if (!ok)
    g_unlink (tmp);
  ts_output_dir_unguard (tmp);
  ts_output_dir_release_signals (&old);
  errno = ok ? 0 : saved;
  return ok;
}

void
ts_output_dir_unguard (const char *path)
{
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  for (guint i = 0; i < TS_MAX_GUARDED; i++)
    if (guarded[i][0] && strcmp (guarded[i], path) == 0)
      {
        guarded[i][0] = '\0';
        break;
      }
  ts_output_dir_release_signals (&old);
}

/* One directory level's getdents64 buffer per depth: the handler may run
 * on a small alternate stack. */
#define TS_MAX_DEPTH 8
static char dents[TS_MAX_DEPTH][2048];

struct ts_dirent64 {
  guint64 d_ino;
  gint64 d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

static void remove_entries (int fd, guint depth, guint *seen, guint *removed);
/* Remove @name below @dirfd, a directory with what is in it, with system
 * calls only (async-signal-safe); whether it is gone. */
static gboolean
remove_tree_at (int dirfd, const char *name, guint depth)
{
  if (unlinkat (dirfd, name, 0) == 0)
    return TRUE;
  int fd = depth < TS_MAX_DEPTH ? openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW
                                                    | O_CLOEXEC) : -1;
  if (fd < 0)
    return FALSE;
  /* A thread may be making files in it (the archive's, ahead): again while
   * a round removed all it found, or found nothing and came too early. */
  gboolean gone = FALSE, again = TRUE;
  for (guint round = 0; round < 1000 && again && !gone; round++)
    {
      guint seen = 0, removed = 0;
      remove_entries (fd, depth, &seen, &removed);
      gone = unlinkat (dirfd, name, AT_REMOVEDIR) == 0;
      again = (errno == ENOTEMPTY || errno == EEXIST) && removed == seen;
    }
  close (fd);
  return gone;
}

/* Remove what @fd holds, listing it again while a pass did: adds up seen, removed. */
static void
remove_entries (int fd, guint depth, guint *seen, guint *removed_all)
{
  for (gboolean removed = TRUE; removed;)
    {
      removed = FALSE;
      lseek (fd, 0, SEEK_SET);
      long n;
      while ((n = syscall (SYS_getdents64, fd, dents[depth], sizeof dents[depth])) > 0)
        for (long off = 0; off < n;)
          {
            struct ts_dirent64 *d = (struct ts_dirent64 *) (dents[depth] + off);
            off += d->d_reclen;
            gboolean entry = strcmp (d->d_name, ".") != 0 && strcmp (d->d_name, "..") != 0;
            gboolean gone = entry && remove_tree_at (fd, d->d_name, depth + 1);
            *seen += entry, *removed_all += gone, removed |= gone;
          }
    }
}

static void
say (const char *text)
{
  ssize_t ignored = write (STDERR_FILENO, text, strlen (text));
  (void) ignored;
}

/* One line: what was interrupted and what became of it. The first guarded
 * output directory is shown as its target (the temporary directory's name without
 * ".tmp-XXXXXX"). Only write() and strlen(): async-signal-safe. */
static void
say_interrupted (int sig, const char *first)
{
  say (sig == SIGINT ? "tracesim: interrupted (SIGINT)"
       : sig == SIGTERM ? "tracesim: terminated (SIGTERM)" : "tracesim: hung up (SIGHUP)");
  if (first)
    {
      size_t len = strlen (first);
      size_t shown = len > 11 && strncmp (first + len - 11, ".tmp-", 5) == 0 ? len - 11 : len;
      say (" while writing ");
      ssize_t ignored = write (STDERR_FILENO, first, shown);
      (void) ignored;
      say (": nothing of it was written (its temporary files are removed)\n");
    }
  else
    say (" before writing anything\n");
}

static void
on_fatal_signal (int sig)
{
  const char *first = NULL;
  for (guint i = 0; i < TS_MAX_GUARDED; i++)
    if (guarded[i][0])
      {
        /* The outermost output directory (nested ones are inside it), not
         * a scratch directory. */
        if (strstr (guarded[i], ".tmp-") && (!first || strlen (guarded[i]) < strlen (first)))
          first = guarded[i];
        remove_tree_at (AT_FDCWD, guarded[i], 0);
      }
  gboolean crash = sig != SIGINT && sig != SIGTERM && sig != SIGHUP;
  if (crash)
    say ("tracesim: the simulation crashed (see above: SimGrid's reason, if it gave one); "
         "what it was writing is removed\n");
  else
    say_interrupted (sig, first);
  /* The system call itself, not _exit(): AddressSanitizer precedes every
   * call of a noreturn function with a hook that allocates, and the signal
   * may have interrupted its allocator (CI's ASan run hung there). */
  syscall (SYS_exit_group, 128 + sig);
  _exit (128 + sig);
}

/* Signals that end the process: asked (interrupt, terminate, hang-up) or a
 * crash (SimGrid aborts on settings it accepted but cannot run, e.g.
 * --cfg=network/bandwidth-factor:0). */
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE };

void
ts_output_dir_drop_cleanup (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (fatal_signals); i++)
    signal (fatal_signals[i], SIG_DFL);
  cleanup_installed = 0;
}

void
ts_output_dir_with_signals_held (void (*fn) (void *data), void *data)
{
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  fn (data);
  if (cleanup_installed)
    {
      cleanup_installed = 0;
      ts_output_dir_install_cleanup ();
    }
  ts_output_dir_release_signals (&old);
}

void
ts_output_dir_install_cleanup (void)
{
  if (cleanup_installed)
    return;
  cleanup_installed = 1;
  struct sigaction sa = { 0 };
  sa.sa_handler = on_fatal_signal;
  /* On SimGrid's alternate stack when it has one (a context whose stack
   * overflowed cannot run a handler on it). */
  sa.sa_flags = SA_ONSTACK;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (fatal_signals); i++)
    sigaddset (&sa.sa_mask, fatal_signals[i]);
  for (guint i = 0; i < G_N_ELEMENTS (fatal_signals); i++)
    sigaction (fatal_signals[i], &sa, NULL);
}

char *
ts_output_dir_user_path (const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  for (guint i = 0; parts[i]; i++)
    {
      char *mark = g_strrstr (parts[i], ".tmp-");
      if (mark && strlen (mark) == strlen (".tmp-XXXXXX") && mark != parts[i])
        *mark = '\0';
    }
  return g_strjoinv ("/", parts);
}

gboolean
ts_output_dir_write_file (const char *path, const char *data, gsize len, GError **error)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  gboolean ok = fd >= 0 && ts_fd_write_all (fd, -1, data, len);
  int saved = errno;
  if (fd >= 0 && close (fd) != 0 && ok)
    {
      saved = errno;
      ok = FALSE;
    }
  if (!ok)
    {
      g_autofree char *shown = ts_output_dir_user_path (path);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: cannot write: %s",
                   shown, g_strerror (saved));
    }
  return ok;
}

gboolean
ts_output_dir_remove_tree (const char *path)
{
  GStatBuf st;
  if (g_lstat (path, &st) != 0)
    return errno == ENOENT;
  if (!S_ISDIR (st.st_mode))
    return g_unlink (path) == 0;
  GDir *d = g_dir_open (path, 0, NULL);
  if (d)
    {
      const char *entry;
      while ((entry = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, entry, NULL);
          ts_output_dir_remove_tree (child);
        }
      g_dir_close (d);
    }
  return g_rmdir (path) == 0;
}

static void
output_dir_free (TsOutputDir *d)
{
  g_free (d->dir);
  g_free (d->tmp_dir);
  g_ptr_array_unref (d->made_dirs);
  g_free (d);
}

void
ts_output_dir_set_errno_error (GError **error, int saved, const char *format, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), format, path,
               g_strerror (saved));
}

/* `-o $HOME` must never delete a home directory: only a target holding
 * nothing but our own kind of output may be replaced. */
static gboolean
check_replaceable (const TsOutputDir *d, gboolean *exists, GError **error)
{
  GStatBuf st;
  *exists = FALSE;
  if (g_lstat (d->dir, &st) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      ts_output_dir_set_errno_error (error, errno, "%s: %s", d->dir);
      return FALSE;
    }
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                   "%s exists and is not a directory; refusing to replace it", d->dir);
      return FALSE;
    }
  *exists = TRUE;
  /* An empty directory (made for the output) holds nothing to lose. */
  g_autoptr (GDir) dir = g_dir_open (d->dir, 0, NULL);
  const char *first = dir ? g_dir_read_name (dir) : NULL;
  if (dir && !first)
    return TRUE;
  return ts_output_manifest_check (d->dir, first ? first : "?", error);
}

/* Create the parent of the target, remembering which directories we made so
 * that discard can take them back. */
static gboolean
make_parent (TsOutputDir *d, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (d->dir);
  char *probe = g_strdup (parent);
  while (!g_file_test (probe, G_FILE_TEST_EXISTS))
    {
      char *up = g_path_get_dirname (probe);
      g_ptr_array_add (d->made_dirs, probe);
      probe = up;
      if (strcmp (up, g_ptr_array_index (d->made_dirs, d->made_dirs->len - 1)) == 0)
        break;
    }
  g_free (probe);
  if (g_mkdir_with_parents (parent, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create directory %s for %s: %s", parent, d->dir, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

TsOutputDir *
ts_output_dir_new (const char *dir, GError **error)
{
  g_return_val_if_fail (dir != NULL && *dir != '\0', NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  TsOutputDir *d = g_new0 (TsOutputDir, 1);
  d->dir = g_strdup (dir);
  for (gsize len = strlen (d->dir); len > 1 && d->dir[len - 1] == '/'; len--)
    d->dir[len - 1] = '\0';
  d->made_dirs = g_ptr_array_new_with_free_func (g_free);

  g_autofree char *base = g_path_get_basename (d->dir);
  gboolean exists;
  if (strcmp (base, ".") == 0 || strcmp (base, "..") == 0 || strcmp (base, "/") == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s cannot be renamed into place; name a subdirectory instead", dir);
      goto fail;
    }
  /* Checked now as well as at commit so that a refusal costs no work. */
  if (!check_replaceable (d, &exists, error) || !make_parent (d, error))
    goto fail;

  /* mkdtemp gives 0700; ask for 0777 so the umask decides, as for mkdir. */
  char *tmpl = g_strconcat (d->dir, ".tmp-XXXXXX", NULL);
  if (g_mkdtemp_full (tmpl, 0777) == NULL)
    {
      ts_output_dir_set_errno_error (error, errno,
                                     "cannot create a temporary directory beside %s: %s", d->dir);
      g_free (tmpl);
      goto fail;
    }
  d->tmp_dir = tmpl;
  ts_output_dir_guard (d->tmp_dir);
  return d;

fail:
  ts_output_dir_discard (d);
  return NULL;
}

const char *
ts_output_dir_get_tmp_path (const TsOutputDir *d)
{
  g_return_val_if_fail (d != NULL, NULL);
  return d->tmp_dir;
}

const char *
ts_output_dir_get_path (const TsOutputDir *d)
{
  g_return_val_if_fail (d != NULL, NULL);
  return d->dir;
}

/* The old target is moved aside first and deleted only once the new one is
 * in place, so a failure never leaves the target missing. */
static gboolean
move_into_place (TsOutputDir *d, GError **error)
{
  gboolean exists;
  if (!check_replaceable (d, &exists, error))
    return FALSE;
  g_autofree char *old = NULL;
  if (exists)
    {
      old = g_strconcat (d->dir, ".old-XXXXXX", NULL);
      /* mkdtemp reserves a unique name; rename() may replace an empty directory. */
      if (g_mkdtemp (old) == NULL || g_rename (d->dir, old) != 0)
        {
          ts_output_dir_set_errno_error (error, errno,
                                         "%s: cannot move the old content aside: %s", d->dir);
          g_rmdir (old);
          return FALSE;
        }
    }
  if (g_rename (d->tmp_dir, d->dir) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot rename %s to %s: %s", d->tmp_dir, d->dir, g_strerror (saved));
      if (old)
        g_rename (old, d->dir);
      return FALSE;
    }
  g_clear_pointer (&d->tmp_dir, g_free);
  g_ptr_array_set_size (d->made_dirs, 0);
  if (old && !ts_output_dir_remove_tree (old))
    g_warning ("%s: could not remove the replaced content", old);
  return TRUE;
}

gboolean
ts_output_dir_commit (TsOutputDir *d, GError **error)
{
  g_return_val_if_fail (d != NULL, FALSE);
  /* Not interrupted between moving the old content aside and the new in. */
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  g_autofree char *tmp = g_strdup (d->tmp_dir);
  gboolean ok = ts_output_manifest_write (d->tmp_dir, error) && move_into_place (d, error);
  if (ok)
    ts_output_dir_unguard (tmp);
  ts_output_dir_release_signals (&old);
  if (ok)
    output_dir_free (d);
  else
    ts_output_dir_discard (d);
  return ok;
}

void
ts_output_dir_discard (TsOutputDir *d)
{
  if (!d)
    return;
  if (d->tmp_dir)
    {
      ts_output_dir_remove_tree (d->tmp_dir);
      ts_output_dir_unguard (d->tmp_dir);
    }
  for (guint i = 0; i < d->made_dirs->len; i++)
    g_rmdir (g_ptr_array_index (d->made_dirs, i));
  output_dir_free (d);
}

/* A guarded temporary file beside @path holding @data; its name (caller
 * frees), or NULL and @error. */
char *
ts_output_dir_temp_beside (const char *path, const char *data, gsize len, GError **error)
{
  char *tmp = g_strconcat (path, ".tmp-XXXXXX", NULL);
  int fd = ts_output_dir_guarded_temp (tmp, O_WRONLY);
  if (fd < 0)
    {
      ts_output_dir_set_errno_error (error, errno, "cannot create a file beside %s: %s", path);
      g_free (tmp);
      return NULL;
    }
  close (fd);
  if (!ts_output_dir_write_file (tmp, data, len, error))
    {
      ts_output_dir_finish_temp (tmp, path, FALSE);
      g_free (tmp);
      return NULL;
    }
  return tmp;
}

gboolean
ts_output_file_may_write (const char *path, const char *mark, GError **error)
{
  GStatBuf st;
  if (mark && g_lstat (path, &st) == 0)
    {
      char head[1025] = "";
      FILE *f = S_ISREG (st.st_mode) ? fopen (path, "r") : NULL;
      size_t got = f ? fread (head, 1, sizeof head - 1, f) : 0;
      head[got] = '\0';
      if (f)
        fclose (f);
      if (!strstr (head, mark))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       "%s already exists and tracesim did not write it; refusing to replace "
                       "it (remove it, or give another file)", path);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
ts_output_file_write (const char *path, const char *data, gsize len, const char *mark,
                      GError **error)
{
  if (!ts_output_file_may_write (path, mark, error))
    return FALSE;
  g_autofree char *tmp = ts_output_dir_temp_beside (path, data, len, error);
  if (!tmp)
    return FALSE;
  if (ts_output_dir_finish_temp (tmp, path, TRUE))
    return TRUE;
  ts_output_dir_set_errno_error (error, errno, "cannot rename into %s: %s", path);
  return FALSE;
}

