/* What output_dir.c (writing a directory all at once) and
 * output_manifest.c (what tracesim wrote in it) share. Not for other
 * modules: they use model/output_dir.h. */
#ifndef TS_OUTPUT_DIR_PRIVATE_H
#define TS_OUTPUT_DIR_PRIVATE_H

#include <glib.h>

G_BEGIN_DECLS

/* Set @error from errno value @saved: @format holds two %s, @path and the
 * system's reason, in that order. */
void ts_output_dir_set_errno_error (GError **error, int saved, const char *format,
                                    const char *path);

/* A guarded temporary file beside @path holding @data; its name (caller
 * frees, and finishes it with ts_output_dir_finish_temp()), or NULL and
 * @error. */
char *ts_output_dir_temp_beside (const char *path, const char *data, gsize len, GError **error);

/* Whether everything in @dir, an existing non-empty directory, at every
 * level, is listed in its manifest as tracesim wrote it (same type, and
 * for a file the same size and content). @example names one entry for
 * the message when there is no manifest. FALSE and @error
 * (G_IO_ERROR_EXISTS, naming the first file that is not) otherwise. */
gboolean ts_output_manifest_check (const char *dir, const char *example, GError **error);

/* Write @dir's manifest, listing everything in it (each file hashed). */
gboolean ts_output_manifest_write (const char *dir, GError **error);

G_END_DECLS

#endif
