/* Whole reads and writes on file descriptors: read(2) and write(2) may
 * stop short or be interrupted, so every caller that needs all of a buffer
 * moved goes through these.
 *
 * @offset >= 0 uses pread/pwrite at that offset (the file position is left
 * alone); a negative @offset reads or writes at the file position (pipes).
 * Error contract: FALSE with errno set. A write that moves nothing sets
 * ENOSPC (a full disk on a regular file); a read that meets the end of the
 * file before @len bytes sets errno to 0. */
#ifndef TS_FD_IO_H
#define TS_FD_IO_H

#include <glib.h>

G_BEGIN_DECLS

gboolean ts_fd_write_all (int fd, gint64 offset, const void *data, gsize len);
gboolean ts_fd_read_all (int fd, gint64 offset, void *data, gsize len);

G_END_DECLS

#endif
