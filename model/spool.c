#include <config.h>
/* O_TMPFILE */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#define G_LOG_DOMAIN "ts-rank-log"

#include "model/spool.h"
#include "model/fd-io.h"
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
  if (!failed && !ts_fd_write_all (log->fd, (gint64) offset, part->buffer, len))
    {
      int code = errno;
      g_mutex_lock (&log->lock);
      if (!log->error)
        g_set_error (&log->error, G_IO_ERROR, g_io_error_from_errno (code),
                     "temporary file %s: %s", log->path, g_strerror (code));
      g_mutex_unlock (&log->lock);
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
      if (!ts_fd_read_all (log->fd, (gint64) offset, rd->buffer, len))
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved ? saved : EIO),
                       "temporary file %s: %s", log->path,
                       saved ? g_strerror (saved) : "unexpected end of file");
          return NULL;
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

/* The index: record size, records per block, and per rank its record count
 * and the file offset of each block. */
#define SPOOL_INDEX_TYPE "(tua(tat))"

/* @len bytes (at most @buffer's size) from @src in @from to @dst in @to. */
static gboolean
copy_range (int from, guint64 src, int to, guint64 dst, gsize len, guint8 *buffer,
            const char *what, GError **error)
{
  gboolean read = ts_fd_read_all (from, (gint64) src, buffer, len);
  if (read && ts_fd_write_all (to, (gint64) dst, buffer, len))
    return TRUE;
  int code = errno ? errno : EIO;
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (code), "%s: %s", what,
               g_strerror (code));
  return FALSE;
}

GVariant *
ts_spool_export (const TsSpool *log, int fd, guint64 *offset, GError **error)
{
  g_return_val_if_fail (log->finished, NULL);
  gsize block_len = (gsize) log->block_records * log->record_size;
  g_autofree guint8 *buffer = g_malloc (block_len);
  GVariantBuilder ranks;
  g_variant_builder_init (&ranks, G_VARIANT_TYPE ("a(tat)"));
  for (guint r = 0; r < log->n_ranks; r++)
    {
      const RankPart *part = &log->parts[r];
      g_autofree guint64 *moved = g_new (guint64, MAX (part->blocks->len, 1));
      for (guint b = 0; b < part->blocks->len; b++)
        {
          guint64 first = (guint64) b * log->block_records;
          gsize len = (gsize) MIN (part->count - first, (guint64) log->block_records)
                      * log->record_size;
          moved[b] = *offset;
          if (!copy_range (log->fd, g_array_index (part->blocks, guint64, b), fd, *offset, len,
                           buffer, log->path, error))
            {
              g_variant_builder_clear (&ranks);
              return NULL;
            }
          *offset += len;
        }
      g_variant_builder_add (&ranks, "(t@at)", part->count,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT64, moved,
                                                        part->blocks->len, sizeof (guint64)));
    }
  return g_variant_new ("(tua(tat))", (guint64) log->record_size, log->block_records, &ranks);
}

static gboolean
import_rank (TsSpool *log, guint r, GVariant *entry, guint64 file_size)
{
  guint64 count = 0;
  g_autoptr (GVariant) blocks = NULL;
  g_variant_get (entry, "(t@at)", &count, &blocks);
  gsize n = 0;
  const guint64 *offsets = g_variant_get_fixed_array (blocks, &n, sizeof (guint64));
  if (count / log->block_records + (count % log->block_records != 0) != n)
    return FALSE;
  for (gsize b = 0; b < n; b++)
    {
      guint64 len = MIN (count - (guint64) b * log->block_records, (guint64) log->block_records)
                    * log->record_size;
      if (offsets[b] > file_size || len > file_size - offsets[b])
        return FALSE;
    }
  log->parts[r].count = count;
  g_array_append_vals (log->parts[r].blocks, offsets, (guint) n);
  return TRUE;
}

TsSpool *
ts_spool_import (int fd, guint64 file_size, GVariant *index, guint n_ranks, gsize record_size,
                 GError **error)
{
  guint64 size = 0;
  guint block_records = 0;
  g_autoptr (GVariant) ranks = NULL;
  gboolean ok = index && g_variant_is_of_type (index, G_VARIANT_TYPE (SPOOL_INDEX_TYPE));
  if (ok)
    {
      g_variant_get (index, "(tu@a(tat))", &size, &block_records, &ranks);
      ok = size == record_size && block_records > 0 && block_records <= (1u << 24)
           && g_variant_n_children (ranks) == n_ranks;
    }
  int own = ok ? fcntl (fd, F_DUPFD_CLOEXEC, 0) : -1;
  TsSpool *log = NULL;
  if (own >= 0)
    {
      log = g_new0 (TsSpool, 1);
      g_mutex_init (&log->lock);
      log->fd = own;
      log->path = g_strdup ("the first pass's cache");
      log->record_size = record_size;
      log->block_records = block_records;
      log->n_ranks = n_ranks;
      log->parts = g_new0 (RankPart, n_ranks);
      log->finished = TRUE;
      for (guint r = 0; r < n_ranks; r++)
        {
          log->parts[r].blocks = g_array_new (FALSE, FALSE, sizeof (guint64));
          g_autoptr (GVariant) entry = g_variant_get_child_value (ranks, r);
          ok = ok && import_rank (log, r, entry, file_size);
        }
    }
  if (!ok || own < 0)
    {
      g_clear_pointer (&log, ts_spool_free);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the spooled actions' index does not fit the file");
      return NULL;
    }
  return log;
}
