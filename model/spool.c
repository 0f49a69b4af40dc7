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

/* Records are packed, not copied: each 8-byte word is stored as its
 * difference from the same word of the rank's previous record, zigzagged,
 * in as few bytes as it needs (a nibble per word says how many). Successive
 * records of one rank share most of their fields (kind, communicator, the
 * high bits of a time), so an action of 64 bytes takes about 15 and an
 * archive event of 48 about 10: the replay's spools were most of its system
 * time when they were copied whole. */
#define WORD 8
/* A word is written with one unaligned 8-byte store, of which only the
 * needed bytes count: buffers carry this much slack after their end. */
#define SLACK WORD
/* What the blocks of all ranks together may hold, per spool: a rank's blocks
 * (its append buffer and what a reader holds) are at most this divided by
 * the ranks, and at most the block size asked for. Up to 2,048 ranks this
 * leaves 16 KiB blocks as they were; at 131,072 ranks a block is 256 bytes
 * (or two worst records, whichever is more), where 16 KiB per rank and
 * buffer were 2 GiB each. Smaller blocks cost more, smaller writes and
 * reads only; where records are packed and which base they are packed
 * against do not depend on blocks. */
#define BUDGET (32u << 20)

typedef struct {
  guint64 offset;
  guint32 len;
} Block;

typedef struct {
  guint8 *buffer;      /* append buffer, NULL until the first append */
  guint8 *previous;    /* the last record appended (the packing's base) */
  gsize fill;          /* bytes in buffer */
  gsize capacity;      /* bytes buffer holds (plus SLACK), up to block_bytes */
  GArray *blocks;      /* Block: where this rank's blocks are, in order (lock) */
  guint64 count;
} RankPart;

struct TsSpool {
  int fd;
  char *path;          /* for messages only: the file is unlinked */
  gsize record_size;
  guint words;         /* record_size / WORD */
  gsize header_size;   /* a nibble per word */
  gsize block_bytes;   /* the most a block holds, at least two records' worst case */
  guint64 file_end;
  guint n_ranks;
  RankPart *parts;
  gboolean finished;   /* (lock) */
  /* file_end, error, blocks and finished: ranks may append from several
   * threads, and readers may read while ranks are appended to. */
  GMutex lock;
  GCond grown;         /* a block was written, or the spool finished */
  GError *error;       /* first write error */
  struct Behind *behind; /* packing on a thread (ts_spool_pack_behind) */
};

/* Packing on a thread: appends are copied into a batch per rank, and full
 * batches go to a thread that packs them, in the order they came. */
typedef struct Behind {
  guint batch_len;     /* records a batch */
  guint8 **stage;      /* per rank: the batch being filled, or NULL */
  guint *fill;         /* per rank: its records */
  GAsyncQueue *full;   /* Batch *, or the STOP batch */
  GAsyncQueue *spare;  /* batch buffers packed, to fill again */
  guint buffers;       /* made so far, at most max_buffers */
  guint max_buffers;
  GThread *thread;
} Behind;

typedef struct {
  guint rank;
  guint len;
  guint8 *records;
} Batch;

static void append_now (TsSpool *log, guint rank, const void *record);
static gpointer pack_behind (gpointer data);
static void stop_behind (TsSpool *log);
static void hand_over (struct Behind *b, guint rank);

struct TsSpoolReader {
  const TsSpool *log;
  const RankPart *part;
  guint8 *buffer;      /* the block being read, NULL before the first and after the last */
  gsize capacity;      /* what buffer holds (plus a worst record and SLACK) */
  guint8 *record;      /* the last record read, the base of the next */
  guint64 next;        /* index of the next record */
  guint block;         /* index of the next block to load */
  guint64 count;       /* the rank's records, once the spool is seen finished */
  gboolean counted;
  gsize block_len;     /* bytes loaded in buffer */
  gsize block_pos;
};

static gsize
worst_record (const TsSpool *log)
{
  return log->header_size + log->record_size;
}

/* The block size of a spool of @n_ranks: at most @asked, at most a share of
 * BUDGET, and at least two worst records. */
static gsize
block_size (const TsSpool *log, guint n_ranks, gsize asked)
{
  gsize share = BUDGET / n_ranks;
  return MAX (MIN (asked, share), 2 * worst_record (log));
}

TsSpool *
ts_spool_new (guint n_ranks, gsize record_size, gsize block_bytes, GError **error)
{
  g_return_val_if_fail (n_ranks > 0 && record_size > 0 && record_size % WORD == 0, NULL);
  g_return_val_if_fail (block_bytes <= (1u << 24), NULL);
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
  g_cond_init (&log->grown);
  log->fd = fd;
  log->path = path;
  log->record_size = record_size;
  log->words = (guint) (record_size / WORD);
  log->header_size = (log->words + 1) / 2;
  log->block_bytes = block_size (log, n_ranks, block_bytes);
  log->n_ranks = n_ranks;
  log->parts = g_new0 (RankPart, n_ranks);
  for (guint r = 0; r < n_ranks; r++)
    log->parts[r].blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  return log;
}

void
ts_spool_free (TsSpool *log)
{
  if (!log)
    return;
  stop_behind (log);
  for (guint r = 0; r < log->n_ranks; r++)
    {
      g_free (log->parts[r].buffer);
      g_free (log->parts[r].previous);
      g_array_unref (log->parts[r].blocks);
    }
  g_free (log->parts);
  close (log->fd);
  g_free (log->path);
  g_clear_error (&log->error);
  g_mutex_clear (&log->lock);
  g_cond_clear (&log->grown);
  g_free (log);
}

/* ---- packing ------------------------------------------------------------ */

static inline guint64
load_word (const guint8 *p)
{
  guint64 w;
  memcpy (&w, p, sizeof w);
  return w;
}

/* The low n bytes of a word, n = 0..8; nibbles above 8 are damage. */
static const guint64 low_bytes[16] = {
  0, 0xff, 0xffff, 0xffffff, 0xffffffffull, 0xffffffffffull, 0xffffffffffffull,
  0xffffffffffffffull, G_MAXUINT64, G_MAXUINT64, G_MAXUINT64, G_MAXUINT64, G_MAXUINT64,
  G_MAXUINT64, G_MAXUINT64, G_MAXUINT64,
};

/* @record packed against @base (updated to @record) at @out; returns the
 * bytes written. @out has room for worst_record(). */
static gsize
pack (const TsSpool *log, guint8 *base, const guint8 *record, guint8 *out)
{
  guint8 *header = out;
  guint8 *p = out + log->header_size;
  guint8 nibbles = 0;
  for (guint i = 0; i < log->words; i++)
    {
      guint64 d = load_word (record + i * WORD) - load_word (base + i * WORD);
      guint64 z = (d << 1) ^ (guint64) ((gint64) d >> 63);
      guint n = z ? (guint) (71 - __builtin_clzll (z)) / 8 : 0;
      guint64 le = GUINT64_TO_LE (z);
      memcpy (p, &le, WORD);
      p += n;
      if (i % 2 == 0)
        nibbles = (guint8) n;
      else
        header[i / 2] = (guint8) (nibbles | n << 4);
    }
  if (log->words % 2)
    header[log->words / 2] = nibbles;
  memcpy (base, record, log->record_size);
  return (gsize) (p - out);
}

/* The record at @in (@avail bytes, readable up to worst_record() + SLACK
 * beyond) unpacked
 * onto @record, which holds the previous one; returns the bytes read, 0
 * when they do not make a record. */
static gsize
unpack (const TsSpool *log, const guint8 *in, gsize avail, guint8 *record)
{
  if (avail < log->header_size)
    return 0;
  const guint8 *p = in + log->header_size;
  guint bad = 0;
  for (guint i = 0; i < log->words; i++)
    {
      guint n = (in[i / 2] >> (4 * (i % 2))) & 0xf;
      bad |= n > WORD;
      guint64 z = GUINT64_FROM_LE (load_word (p)) & low_bytes[n];
      guint64 w = load_word (record + i * WORD) + ((z >> 1) ^ (guint64) - (gint64) (z & 1));
      memcpy (record + i * WORD, &w, WORD);
      p += MIN (n, WORD);
    }
  /* Checked after the fact, for speed: a damaged record reads at most a
   * worst record (and a word) past @avail, which the reader's buffer has
   * room for, and is refused here. */
  gsize used = (gsize) (p - in);
  return bad || used > avail ? 0 : used;
}

/* ---- writing ------------------------------------------------------------ */

static void
write_block (TsSpool *log, RankPart *part)
{
  if (part->fill == 0)
    return;
  gsize len = part->fill;
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
  Block b = { offset, (guint32) len };
  g_mutex_lock (&log->lock);
  g_array_append_val (part->blocks, b);
  g_cond_broadcast (&log->grown);
  g_mutex_unlock (&log->lock);
  part->fill = 0;
}

/* Room in @part's buffer for a worst record: the buffer starts at two worst
 * records and doubles up to a block, so that a rank with few records holds
 * little; a full block is written out. */
static void
make_room (TsSpool *log, RankPart *part)
{
  if (part->capacity < log->block_bytes)
    {
      part->capacity = part->capacity ? MIN (2 * part->capacity, log->block_bytes)
                                      : 2 * worst_record (log);
      part->buffer = g_realloc (part->buffer, part->capacity + SLACK);
      if (!part->previous)
        part->previous = g_malloc0 (log->record_size);
    }
  else
    write_block (log, part);
}

void
ts_spool_append (TsSpool *log, guint rank, const void *record)
{
  g_return_if_fail (rank < log->n_ranks && !log->finished);
  Behind *b = log->behind;
  if (!b)
    {
      append_now (log, rank, record);
      return;
    }
  /* Started by the first append, not before: a caller may fork between
   * (the replay probes a file in a child), and threads do not follow. */
  if (!b->thread)
    b->thread = ts_output_dir_thread_new ("spool packing", pack_behind, log);
  if (!b->stage[rank])
    {
      if (b->buffers < b->max_buffers)
        {
          b->buffers++;
          b->stage[rank] = g_malloc (b->batch_len * log->record_size);
        }
      else
        b->stage[rank] = g_async_queue_pop (b->spare);
    }
  memcpy (b->stage[rank] + b->fill[rank] * log->record_size, record, log->record_size);
  if (++b->fill[rank] == b->batch_len)
    hand_over (b, rank);
}

static void
append_now (TsSpool *log, guint rank, const void *record)
{
  RankPart *part = &log->parts[rank];
  if (part->fill + worst_record (log) > part->capacity)
    make_room (log, part);
  part->fill += pack (log, part->previous, record, part->buffer + part->fill);
  part->count++;
}

/* ---- packing on a thread ------------------------------------------------- */

static Batch stop_batch;

static gpointer
pack_behind (gpointer data)
{
  TsSpool *log = data;
  Behind *b = log->behind;
  Batch *batch;
  while ((batch = g_async_queue_pop (b->full)) != &stop_batch)
    {
      for (guint i = 0; i < batch->len; i++)
        append_now (log, batch->rank, batch->records + i * log->record_size);
      g_async_queue_push (b->spare, batch->records);
      g_free (batch);
    }
  return NULL;
}

void
ts_spool_pack_behind (TsSpool *log, gsize budget)
{
  g_return_if_fail (log->behind == NULL && !log->finished);
  /* Two batches a rank, or none: with fewer than 16 records a batch,
   * handing them over would cost more than packing them. */
  gsize len = budget / (2 * (gsize) log->n_ranks * log->record_size);
  if (len < 16)
    return;
  Behind *b = g_new0 (Behind, 1);
  b->batch_len = (guint) MIN (len, 256);
  b->stage = g_new0 (guint8 *, log->n_ranks);
  b->fill = g_new0 (guint, log->n_ranks);
  b->full = g_async_queue_new ();
  b->spare = g_async_queue_new_full (g_free);
  b->max_buffers = 2 * log->n_ranks;
  log->behind = b;
}

/* Hand @rank's batch to the thread, and give the rank an empty one: a
 * spare, a new one while there are fewer than max_buffers, or else the
 * first the thread has packed. */
static void
hand_over (Behind *b, guint rank)
{
  Batch *batch = g_new (Batch, 1);
  *batch = (Batch) { rank, b->fill[rank], b->stage[rank] };
  g_async_queue_push (b->full, batch);
  b->fill[rank] = 0;
  b->stage[rank] = g_async_queue_try_pop (b->spare);
}

/* Pack what is still staged, in rank order, and end the thread. */
static void
stop_behind (TsSpool *log)
{
  Behind *b = log->behind;
  if (!b)
    return;
  for (guint r = 0; r < log->n_ranks && b->thread; r++)
    if (b->fill[r] > 0)
      hand_over (b, r);
  if (b->thread)
    {
      g_async_queue_push (b->full, &stop_batch);
      g_thread_join (b->thread);
    }
  for (guint r = 0; r < log->n_ranks; r++)
    g_free (b->stage[r]);
  g_free (b->stage);
  g_free (b->fill);
  g_async_queue_unref (b->full);
  g_async_queue_unref (b->spare);
  g_free (b);
  log->behind = NULL;
}

gboolean
ts_spool_finish (TsSpool *log, GError **error)
{
  stop_behind (log);
  if (!log->finished)
    {
      for (guint r = 0; r < log->n_ranks; r++)
        {
          write_block (log, &log->parts[r]);
          g_clear_pointer (&log->parts[r].buffer, g_free);
          g_clear_pointer (&log->parts[r].previous, g_free);
          log->parts[r].capacity = 0;
        }
      g_mutex_lock (&log->lock);
      log->finished = TRUE;
      g_cond_broadcast (&log->grown);
      g_mutex_unlock (&log->lock);
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

gsize
ts_spool_buffer_bytes (const TsSpool *log)
{
  gsize sum = 0;
  for (guint r = 0; r < log->n_ranks; r++)
    sum += log->parts[r].buffer ? log->parts[r].capacity + SLACK : 0;
  return sum;
}

/* ---- reading ------------------------------------------------------------ */

TsSpoolReader *
ts_spool_reader_new (const TsSpool *log, guint rank)
{
  g_return_val_if_fail (rank < log->n_ranks, NULL);
  TsSpoolReader *rd = g_new0 (TsSpoolReader, 1);
  rd->log = log;
  rd->part = &log->parts[rank];
  return rd;
}

/* The reader's next block loaded: TRUE; FALSE at the end (the spool
 * finished and every block read) or on an error (@error set). Until the
 * spool is finished, a reader that has read every block waits for the
 * next one. */
static gboolean
load_block (TsSpoolReader *rd, GError **error)
{
  TsSpool *log = (TsSpool *) rd->log;  /* its lock and condition only */
  g_mutex_lock (&log->lock);
  while (rd->block >= rd->part->blocks->len && !log->finished)
    g_cond_wait (&log->grown, &log->lock);
  gboolean have = rd->block < rd->part->blocks->len;
  Block b = have ? g_array_index (rd->part->blocks, Block, rd->block) : (Block) { 0, 0 };
  if (log->finished && !rd->counted)
    {
      rd->count = rd->part->count;
      rd->counted = TRUE;
    }
  g_mutex_unlock (&log->lock);
  if (!have && rd->next != rd->count)
    {
      /* Fewer records in the blocks than counted: a damaged cache. */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "temporary file %s: %" G_GUINT64_FORMAT " records where %" G_GUINT64_FORMAT
                   " were written", log->path, rd->next, rd->count);
      return FALSE;
    }
  if (!have)
    {
      /* The end: a reader kept open (the replay keeps one per rank) holds
       * nothing more. */
      g_clear_pointer (&rd->buffer, g_free);
      rd->capacity = 0;
      return FALSE;
    }
  /* As large as the largest block read so far: a rank's blocks are all
   * full but its last, so this is a block or the rank's few records. */
  if (b.len > rd->capacity)
    {
      rd->capacity = b.len;
      g_free (rd->buffer);
      rd->buffer = g_malloc (rd->capacity + worst_record (log) + SLACK);
    }
  if (!ts_fd_read_all (log->fd, (gint64) b.offset, rd->buffer, b.len))
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved ? saved : EIO),
                   "temporary file %s: %s", log->path,
                   saved ? g_strerror (saved) : "unexpected end of file");
      return FALSE;
    }
  rd->block++;
  rd->block_len = b.len;
  rd->block_pos = 0;
  return TRUE;
}

const void *
ts_spool_reader_next (TsSpoolReader *rd, GError **error)
{
  const TsSpool *log = rd->log;
  /* The blocks may hold more than the count says only if damaged. */
  if (rd->counted && rd->next >= rd->count)
    {
      g_clear_pointer (&rd->buffer, g_free);
      rd->capacity = 0;
      return NULL;
    }
  if (rd->block_pos == rd->block_len && !load_block (rd, error))
    return NULL;
  if (!rd->record)
    rd->record = g_malloc0 (log->record_size);
  gsize used = unpack (log, rd->buffer + rd->block_pos, rd->block_len - rd->block_pos, rd->record);
  if (used == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "temporary file %s: record %" G_GUINT64_FORMAT " is damaged", log->path,
                   rd->next);
      return NULL;
    }
  rd->block_pos += used;
  rd->next++;
  return rd->record;
}

gsize
ts_spool_reader_buffer_bytes (const TsSpoolReader *rd)
{
  return rd->buffer ? rd->capacity + worst_record (rd->log) + SLACK : 0;
}

void
ts_spool_reader_free (TsSpoolReader *rd)
{
  if (!rd)
    return;
  g_free (rd->buffer);
  g_free (rd->record);
  g_free (rd);
}

/* ---- keeping a spool ---------------------------------------------------- */

/* The index: record size, block size, and per rank its record count and the
 * file offset and length of each block. */
#define SPOOL_INDEX_TYPE "(tua(tatau))"

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
  g_autofree guint8 *buffer = g_malloc (log->block_bytes);
  GVariantBuilder ranks;
  g_variant_builder_init (&ranks, G_VARIANT_TYPE ("a(tatau)"));
  for (guint r = 0; r < log->n_ranks; r++)
    {
      const RankPart *part = &log->parts[r];
      guint n = part->blocks->len;
      g_autofree guint64 *moved = g_new (guint64, MAX (n, 1));
      g_autofree guint32 *lens = g_new (guint32, MAX (n, 1));
      for (guint b = 0; b < n; b++)
        {
          const Block *block = &g_array_index (part->blocks, Block, b);
          moved[b] = *offset;
          lens[b] = block->len;
          if (!copy_range (log->fd, block->offset, fd, *offset, block->len, buffer, log->path,
                           error))
            {
              g_variant_builder_clear (&ranks);
              return NULL;
            }
          *offset += block->len;
        }
      g_variant_builder_add (&ranks, "(t@at@au)", part->count,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT64, moved, n,
                                                        sizeof (guint64)),
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, lens, n,
                                                        sizeof (guint32)));
    }
  return g_variant_new ("(tua(tatau))", (guint64) log->record_size, (guint32) log->block_bytes,
                        &ranks);
}

static gboolean
import_rank (TsSpool *log, guint r, GVariant *entry, guint64 file_size)
{
  guint64 count = 0;
  g_autoptr (GVariant) offsets_v = NULL, lens_v = NULL;
  g_variant_get (entry, "(t@at@au)", &count, &offsets_v, &lens_v);
  gsize n = 0, n_lens = 0;
  const guint64 *offsets = g_variant_get_fixed_array (offsets_v, &n, sizeof (guint64));
  const guint32 *lens = g_variant_get_fixed_array (lens_v, &n_lens, sizeof (guint32));
  /* A block holds at least one record; the reader finds any other mismatch
   * of count and blocks as a damaged record. */
  if (n != n_lens || (count == 0) != (n == 0) || n > count)
    return FALSE;
  for (gsize b = 0; b < n; b++)
    {
      if (lens[b] == 0 || lens[b] > log->block_bytes || offsets[b] > file_size
          || lens[b] > file_size - offsets[b])
        return FALSE;
      Block block = { offsets[b], lens[b] };
      g_array_append_val (log->parts[r].blocks, block);
    }
  log->parts[r].count = count;
  return TRUE;
}

TsSpool *
ts_spool_import (int fd, guint64 file_size, GVariant *index, guint n_ranks, gsize record_size,
                 GError **error)
{
  guint64 size = 0;
  guint block_bytes = 0;
  g_autoptr (GVariant) ranks = NULL;
  gboolean ok = index && g_variant_is_of_type (index, G_VARIANT_TYPE (SPOOL_INDEX_TYPE))
                && record_size % WORD == 0;
  if (ok)
    {
      g_variant_get (index, "(tu@a(tatau))", &size, &block_bytes, &ranks);
      ok = size == record_size && block_bytes >= record_size && block_bytes <= (1u << 30)
           && g_variant_n_children (ranks) == n_ranks;
    }
  int own = ok ? fcntl (fd, F_DUPFD_CLOEXEC, 0) : -1;
  TsSpool *log = NULL;
  if (own >= 0)
    {
      log = g_new0 (TsSpool, 1);
      g_mutex_init (&log->lock);
      g_cond_init (&log->grown);
      log->fd = own;
      log->path = g_strdup ("the first pass's cache");
      log->record_size = record_size;
      log->words = (guint) (record_size / WORD);
      log->header_size = (log->words + 1) / 2;
      log->block_bytes = block_bytes;
      log->n_ranks = n_ranks;
      log->parts = g_new0 (RankPart, n_ranks);
      log->finished = TRUE;
      for (guint r = 0; r < n_ranks; r++)
        {
          log->parts[r].blocks = g_array_new (FALSE, FALSE, sizeof (Block));
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
