/* Writing an output directory all at once.
 *
 * The content is built in a temporary directory beside the target
 * (`<dir>.tmp-XXXXXX`) and renamed into place by ts_output_dir_commit(), so
 * readers never see a half-written directory and a failure leaves the old
 * target untouched. Used by the OTF2 archive writer.
 *
 * An existing target is replaced only if everything in it, at any depth, is
 * what an earlier output wrote there, as its manifest (TS_OUTPUT_MANIFEST,
 * written with the outputs: each file's size and SHA-256, see
 * output_manifest.c) lists it: pointing the output at a directory with
 * other files, or with a file of the user's anywhere inside, or one of
 * tracesim's files changed since, is refused rather than deleting them. A
 * copy of an output (new inodes and times, same content) is tracesim's. An
 * empty directory is replaced.
 *
 * Error contract: functions taking GError** return FALSE/NULL and set it on
 * failure (domain G_IO_ERROR, the path in the message). */
#ifndef TS_OUTPUT_DIR_H
#define TS_OUTPUT_DIR_H

#include <glib.h>
#include <signal.h>

G_BEGIN_DECLS

typedef struct TsOutputDir TsOutputDir;

/* The manifest's name in an output directory, and the largest one read. */
#define TS_OUTPUT_MANIFEST ".tracesim-manifest"
#define TS_OUTPUT_MANIFEST_MAX (64 << 20)

/* Create the temporary directory for target @dir, creating the parent of @dir
 * if needed. Caller frees the result with ts_output_dir_commit() or
 * ts_output_dir_discard(). */
TsOutputDir *ts_output_dir_new (const char *dir, GError **error);

/* Path to write into until commit. Owned by @d. */
const char *ts_output_dir_get_tmp_path (const TsOutputDir *d);
/* The target, trailing slashes removed. Owned by @d. */
const char *ts_output_dir_get_path (const TsOutputDir *d);

/* Write the manifest, and rename the temporary directory to the target,
 * replacing an old target only once the new one is in place. On failure the temporary directory is removed.
 * Frees @d whatever the outcome. */
gboolean ts_output_dir_commit (TsOutputDir *d, GError **error);
/* Remove the temporary directory and any parent directories new() created
 * (if still empty), and free @d. NULL is ignored. */
void ts_output_dir_discard (TsOutputDir *d);

/* On SIGINT, SIGTERM or SIGHUP, or a crash (SIGABRT, SIGSEGV, SIGBUS,
 * SIGFPE), remove every temporary directory still being written (those of
 * ts_output_dir_new() and any ts_output_dir_guard() names), say so and exit
 * with 128 + the signal. Called once by main(). */
void ts_output_dir_install_cleanup (void);
/* Call @fn(@data), which installs signal handlers of its own (SimGrid's
 * initialisation does: its SIGINT handler calls exit(), which may deadlock
 * in a signal handler and leaves the temporary output behind), with SIGINT,
 * SIGTERM and SIGHUP held; then put tracesim's handlers back if they were
 * installed, and release the signals: one that came meanwhile is taken by
 * them. */
void ts_output_dir_with_signals_held (void (*fn) (void *data), void *data);
/* In a child process that tries something that may crash: its death must
 * not remove what the parent is writing. */
void ts_output_dir_drop_cleanup (void);
/* Hold SIGINT, SIGTERM and SIGHUP in the calling thread (threads it starts
 * inherit the mask) until released: for what must not be cut in two by
 * them, or threads that must leave them to the one writing the output. */
void ts_output_dir_hold_signals (sigset_t *old);
void ts_output_dir_release_signals (const sigset_t *old);
/* A thread that leaves those signals to the thread handling them (the one
 * writing the output): started with them held, which it inherits. As
 * g_thread_try_new(), and g_thread_new(), which aborts if it cannot. */
GThread *ts_output_dir_thread_try_new (const char *name, GThreadFunc func, gpointer data,
                                       GError **error);
GThread *ts_output_dir_thread_new (const char *name, GThreadFunc func, gpointer data);
/* Remove @path too if the process is interrupted, until unguarded. */
void ts_output_dir_guard (const char *path);
void ts_output_dir_unguard (const char *path);
/* Create a file from @tmpl (its trailing XXXXXX replaced, as g_mkstemp_full
 * does) and open it with @flags | O_CLOEXEC, guarded from its creation on
 * (no signal comes in between). The descriptor, or -1 with errno set. */
int ts_output_dir_guarded_temp (char *tmpl, int flags);
/* Finish such a file: if @written, rename @tmp to @path, and otherwise (or
 * if the rename fails) remove @tmp; it is unguarded in the same step, so a
 * signal never comes between the rename and the unguarding. TRUE if @path
 * is the new file now; FALSE with errno set by the failed rename, or 0. */
gboolean ts_output_dir_finish_temp (const char *tmp, const char *path, gboolean written);

/* @path as the user will know it: every "NAME.tmp-XXXXXX" component of a
 * temporary directory shown as NAME. Caller frees. */
char *ts_output_dir_user_path (const char *path);
/* Write @len bytes to @path; on failure an error naming the file as the user
 * knows it and the system's reason ("No space left on device"). */
gboolean ts_output_dir_write_file (const char *path, const char *data, gsize len, GError **error);

/* The words that open every file tracesim writes outside an output
 * directory (platforms, hostfiles): such a file may be replaced. */
#define TS_WRITTEN_MARK "Written by tracesim"

/* Write one file at @path all at once (a temporary name beside it, renamed
 * into place; removed if interrupted). An existing @path is replaced only
 * if its first KiB holds @mark (TS_WRITTEN_MARK, or what else opens the
 * kind of file); otherwise it is refused (G_IO_ERROR_EXISTS), naming it.
 * A NULL @mark replaces it unread: for callers that know it is theirs. */
gboolean ts_output_file_write (const char *path, const char *data, gsize len, const char *mark,
                               GError **error);
/* Whether ts_output_file_write() would replace @path: absent, or holding
 * @mark. For a writer of several files that checks them all first. */
gboolean ts_output_file_may_write (const char *path, const char *mark, GError **error);

/* Add the file @name (in the directory itself, not below) to @dir, a
 * finished output directory: written all at once, then listed in its
 * manifest, so that a later run may replace the directory with it (a
 * report drawn afterwards). An existing @name is replaced only if the
 * manifest lists it as tracesim wrote it (its content, not its time). */
gboolean ts_output_dir_add_file (const char *dir, const char *name, const char *data, gsize len,
                                 GError **error);
/* Whether ts_output_dir_add_file() would add @name to @dir (the same
 * checks, nothing written): for a writer of several files, so that one it
 * may not replace stops it before the first is written. */
gboolean ts_output_dir_may_add (const char *dir, const char *name, GError **error);

/* Remove @path and everything below it without following symbolic links.
 * Returns FALSE if something could not be removed. */
gboolean ts_output_dir_remove_tree (const char *path);

G_END_DECLS

#endif
