#include <config.h>

#include "model/fd-io.h"

#include <errno.h>
#include <unistd.h>

gboolean
ts_fd_write_all (int fd, gint64 offset, const void *data, gsize len)
{
  const guint8 *p = data;
  gsize done = 0;
  while (done < len)
    {
      ssize_t n = offset < 0 ? write (fd, p + done, len - done)
                             : pwrite (fd, p + done, len - done, (off_t) offset + (off_t) done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = ENOSPC;
          return FALSE;
        }
      done += (gsize) n;
    }
  return TRUE;
}

gboolean
ts_fd_read_all (int fd, gint64 offset, void *data, gsize len)
{
  guint8 *p = data;
  gsize done = 0;
  while (done < len)
    {
      ssize_t n = offset < 0 ? read (fd, p + done, len - done)
                             : pread (fd, p + done, len - done, (off_t) offset + (off_t) done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = 0;
          return FALSE;
        }
      done += (gsize) n;
    }
  return TRUE;
}
