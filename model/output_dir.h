/* Writing an output directory all at once.
 *
 * The content is built in a temporary directory beside the target
 * (`<dir>.tmp-XXXXXX`) and renamed into place by ts_output_dir_commit(), so
 * readers never see a half-written directory and a failure leaves the old
 * target untouched. Used by the OTF2 archive writer.
 *
 * An existing target is replaced only if everything in it, at any depth, is
 * among the entries the caller names (those of an earlier output of the same
 * kind): pointing the output at a directory with other files, or with a file
 * of the user's inside one of those entries, is refused rather than deleting
 * them.
 *
 * Error contract: functions taking GError** return FALSE/NULL and set it on
 * failure (domain G_IO_ERROR, the path in the message). */
#ifndef TS_OUTPUT_DIR_H
#define TS_OUTPUT_DIR_H

#include <glib.h>
#include <signal.h>

G_BEGIN_DECLS

typedef struct TsOutputDir TsOutputDir;

/* Create the temporary directory for target @dir, creating the parent of @dir
 * if needed. @entries is a NULL-terminated list of the paths an existing @dir
 * may hold and still be replaced (copied): '/'-separated below @dir, with
 * '*' and '?' matching within one component (e.g. "*.evt" below
 * "predicted/traces"); a directory's contents must be listed too. Caller frees the result with
 * ts_output_dir_commit() or ts_output_dir_discard(). */
TsOutputDir *ts_output_dir_new (const char *dir, const char *const *entries, GError **error);

/* Path to write into until commit. Owned by @d. */
const char *ts_output_dir_get_tmp_path (const TsOutputDir *d);
/* The target, trailing slashes removed. Owned by @d. */
const char *ts_output_dir_get_path (const TsOutputDir *d);

/* Rename the temporary directory to the target, replacing an old target only
 * once the new one is in place. On failure the temporary directory is removed.
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
/* Remove @path too if the process is interrupted, until unguarded. */
void ts_output_dir_guard (const char *path);
void ts_output_dir_unguard (const char *path);

/* Remove @path and everything below it without following symbolic links.
 * Returns FALSE if something could not be removed. */
gboolean ts_output_dir_remove_tree (const char *path);

G_END_DECLS

#endif
