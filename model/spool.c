#include <config.h>
/* O_TMPFILE */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#define G_LOG_DOMAIN "ts-rank-log"

#include "model/spool.h"
#include "model/output_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  guint8 *buffer;      /* append buffer, NULL until the first append */
  guint fill;          /* records in buffer */
  GArray *blocks;      /* guint64 file offsets of this rank's full blocks */
  guint64 count;
} RankPart;

struct TsSpool {
  int fd;
  char *path;          /* for messages only: the file is unlinked */
  gsize record_size;
  guint block_records;
  guint64 file_end;
  guint n_ranks;
  RankPart *parts;
  gboolean finished;
  GMutex lock;         /* file_end and error: ranks may append from several threads */
  GError *error;       /* first write error */
};

struct TsSpoolReader {
  const TsSpool *log;
  const RankPart *part;
  guint8 *buffer;
  guint64 next;        /* index of the next record */
  guint block_fill;    /* records loaded in buffer */
  guint block_pos;
};

TsSpool *
ts_spool_new (guint n_ranks, gsize record_size, gsize block_bytes, GError **error)
{
  g_return_val_if_fail (n_ranks > 0 && record_size > 0, NULL);
  /* A file without a name (O_TMPFILE): the space is reclaimed when the log
   * is freed or the process dies, whatever happens, even a signal between
   * creating and unlinking a named one. Where the file system cannot, a
   * named file unlinked at once, with the signals that end a run held. */
  char *path = g_build_filename (g_get_tmp_dir (), "tracesim spool (unnamed)", NULL);
  int fd = open (g_get_tmp_dir (), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      g_free (path);
      path = NULL;
      sigset_t old;
      ts_output_dir_hold_signals (&old);
      fd = g_file_open_tmp ("tracesim-XXXXXX.spool", &path, error);
      if (fd >= 0)
        g_unlink (path);
      ts_output_dir_release_signals (&old);
      if (fd < 0)
        return NULL;
    }
  TsSpool *log = g_new0 (TsSpool, 1);
  g_mutex_init (&log->lock);
  log->fd = fd;
  log->path = path;
  log->record_size = record_size;
  log->block_records = MAX (1, block_bytes / record_size);
  log->n_ranks = n_ranks;
  log->parts = g_new0 (RankPart, n_ranks);
  for (guint r = 0; r < n_ranks; r++)
    log->parts[r].blocks = g_array_new (FALSE, FALSE, sizeof (guint64));
  return log;
}

void
ts_spool_free (TsSpool *log)
{
  if (!log)
    return;
  for (guint r = 0; r < log->n_ranks; r++)
    {
      g_free (log->parts[r].buffer);
      g_array_unref (log->parts[r].blocks);
    }
  g_free (log->parts);
  close (log->fd);
  g_free (log->path);
  g_clear_error (&log->error);
  g_mutex_clear (&log->lock);
  g_free (log);
}

static void
write_block (TsSpool *log, RankPart *part)
{
  if (part->fill == 0)
    return;
  gsize len = (gsize) part->fill * log->record_size;
  g_mutex_lock (&log->lock);
  guint64 offset = log->file_end;
  log->file_end += len;
  gboolean failed = log->error != NULL;
  g_mutex_unlock (&log->lock);
  const guint8 *p = part->buffer;
  gsize done = 0;
  while (done < len && !failed)
    {
      ssize_t n = pwrite (log->fd, p + done, len - done, (off_t) (offset + done));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int code = n < 0 ? errno : ENOSPC;
          g_mutex_lock (&log->lock);
          if (!log->error)
            g_set_error (&log->error, G_IO_ERROR, g_io_error_from_errno (code),
                         "temporary file %s: %s", log->path, g_strerror (code));
          g_mutex_unlock (&log->lock);
          failed = TRUE;
        }
      else
        done += (gsize) n;
    }
  /* A block is always written whole (full blocks, or the last partial one),
   * so a reader finds the record count of every block from the total. */
  g_array_append_val (part->blocks, offset);
  part->fill = 0;
}

void
ts_spool_append (TsSpool *log, guint rank, const void *record)
{
  g_return_if_fail (rank < log->n_ranks && !log->finished);
  RankPart *part = &log->parts[rank];
  if (!part->buffer)
    part->buffer = g_malloc ((gsize) log->block_records * log->record_size);
  memcpy (part->buffer + (gsize) part->fill * log->record_size, record, log->record_size);
  part->count++;
  if (++part->fill == log->block_records)
    write_block (log, part);
}

gboolean
ts_spool_finish (TsSpool *log, GError **error)
{
  if (!log->finished)
    {
      for (guint r = 0; r < log->n_ranks; r++)
        {
          write_block (log, &log->parts[r]);
          g_clear_pointer (&log->parts[r].buffer, g_free);
        }
      log->finished = TRUE;
    }
  if (log->error)
    {
      g_propagate_error (error, g_error_copy (log->error));
      return FALSE;
    }
  return TRUE;
}

guint64
ts_spool_count (const TsSpool *log, guint rank)
{
  g_return_val_if_fail (rank < log->n_ranks, 0);
  return log->parts[rank].count;
}

TsSpoolReader *
ts_spool_reader_new (const TsSpool *log, guint rank)
{
  g_return_val_if_fail (log->finished && rank < log->n_ranks, NULL);
  TsSpoolReader *rd = g_new0 (TsSpoolReader, 1);
  rd->log = log;
  rd->part = &log->parts[rank];
  return rd;
}

const void *
ts_spool_reader_next (TsSpoolReader *rd, GError **error)
{
  const TsSpool *log = rd->log;
  if (rd->next >= rd->part->count)
    return NULL;
  if (rd->block_pos == rd->block_fill)
    {
      guint64 block = rd->next / log->block_records;
      guint64 left = rd->part->count - rd->next;
      guint n = (guint) MIN (left, (guint64) log->block_records);
      gsize len = (gsize) n * log->record_size;
      if (!rd->buffer)
        rd->buffer = g_malloc ((gsize) log->block_records * log->record_size);
      guint64 offset = g_array_index (rd->part->blocks, guint64, block);
      gsize done = 0;
      while (done < len)
        {
          ssize_t got = pread (log->fd, rd->buffer + done, len - done, (off_t) (offset + done));
          if (got < 0 && errno == EINTR)
            continue;
          if (got <= 0)
            {
              g_set_error (error, G_IO_ERROR, g_io_error_from_errno (got < 0 ? errno : EIO),
                           "temporary file %s: %s", log->path,
                           got < 0 ? g_strerror (errno) : "unexpected end of file");
              return NULL;
            }
          done += (gsize) got;
        }
      rd->block_fill = n;
      rd->block_pos = 0;
    }
  rd->next++;
  return rd->buffer + (gsize) rd->block_pos++ * log->record_size;
}

void
ts_spool_reader_free (TsSpoolReader *rd)
{
  if (!rd)
    return;
  g_free (rd->buffer);
  g_free (rd);
}
