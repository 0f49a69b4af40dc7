#include <config.h>

#define G_LOG_DOMAIN "ts-stream"

#include "model/stream.h"
#include "model/output_dir.h"

/* Reading ahead (ts_action_stream_read_ahead): each rank has two batches
 * of actions; the reader takes from one while a thread fills the other. A
 * batch is either the reader's (ready) or the thread's (being filled). */
typedef struct {
  TsAction *actions;
  guint len;
  gboolean end;                /* the rank's last batch (len may be 0) */
  GError *error;               /* the read failed after len actions */
  gint ready;                  /* atomic: filled, the reader's */
} Batch;

typedef struct {
  Batch batch[2];
  guint cur;                   /* the batch the reader takes from */
  guint pos;
} Ahead;

struct TsActionStream {
  const TsTrace *trace;
  const TsDecodeOptions *options; /* per rank */
  guint n_ranks;
  guint n_streams;             /* ts_trace_n_streams: the ranks, then threads with MPI */
  TsSpoolReader **spooled;     /* per rank, when there is a spool */
  TsDecoder *decoder;          /* otherwise, and for the threads' streams */
  TsRankDecoder **ranks;       /* per stream, where decoded */
  /* Reading ahead, when started: */
  Ahead *ahead;                /* per rank */
  guint batch_len;
  GThread *reader;
  GAsyncQueue *requests;       /* (rank * 2 + batch + 1) to fill, or STOP */
  GMutex lock;                 /* with filled: a batch became ready */
  GCond filled;
  gboolean waiting;            /* under lock: the reader waits for a batch */
};

TsActionStream *
ts_action_stream_open (const TsTrace *trace, const TsSpool *spool,
                       const TsDecodeOptions *options, GError **error)
{
  TsActionStream *f = g_new0 (TsActionStream, 1);
  f->trace = trace;
  f->options = options;
  f->n_ranks = ts_trace_n_ranks (trace);
  f->n_streams = ts_trace_n_streams (trace);
  guint decoded = 0;
  if (spool)
    {
      f->spooled = g_new0 (TsSpoolReader *, f->n_ranks);
      for (guint r = 0; r < f->n_ranks; r++)
        f->spooled[r] = ts_spool_reader_new (spool, r);
      /* The spool holds the ranks' own: threads with MPI are decoded. */
      decoded = f->n_ranks;
      if (f->n_streams == f->n_ranks)
        return f;
    }
  f->decoder = ts_decoder_open (trace, error);
  if (!f->decoder)
    {
      ts_action_stream_free (f);
      return NULL;
    }
  f->ranks = g_new0 (TsRankDecoder *, f->n_streams);
  for (guint i = decoded; i < f->n_streams; i++)
    f->ranks[i] = ts_decoder_rank (f->decoder, i, &options[ts_trace_stream_rank (trace, i)]);
  return f;
}

TsActionStream *
ts_action_stream_open_writer (const TsTrace *trace, TsArchiveWriter *writer)
{
  TsActionStream *f = g_new0 (TsActionStream, 1);
  f->trace = trace;
  f->n_ranks = ts_trace_n_ranks (trace);
  f->n_streams = ts_trace_n_streams (trace);
  f->decoder = ts_decoder_open_writer (trace, writer);
  f->ranks = g_new0 (TsRankDecoder *, f->n_streams);
  for (guint i = 0; i < f->n_streams; i++)
    f->ranks[i] = ts_decoder_rank (f->decoder, i, NULL);
  return f;
}

guint
ts_action_stream_n (const TsActionStream *f)
{
  return f->n_streams;
}

static void stop_reading_ahead (TsActionStream *f);

void
ts_action_stream_free (TsActionStream *f)
{
  if (!f)
    return;
  stop_reading_ahead (f);
  if (f->spooled)
    for (guint r = 0; r < f->n_ranks; r++)
      ts_spool_reader_free (f->spooled[r]);
  g_free (f->spooled);
  g_free (f->ranks);
  if (f->decoder)
    ts_decoder_free (f->decoder);
  g_free (f);
}

/* @rank's next spooled action, with its options applied; FALSE at the
 * end or on an error. */
static gboolean
next_spooled (TsActionStream *f, guint rank, TsAction *a, GError **error)
{
  const TsAction *raw = ts_spool_reader_next (f->spooled[rank], error);
  if (!raw)
    return FALSE;
  /* The spool holds the actions decoded without options: apply them here,
   * exactly as the decoder would have. */
  *a = *raw;
  const TsDecodeOptions *o = &f->options[rank];
  a->time += o->clock_offset;
  if (a->kind == TS_ACTION_COLLECTIVE)
    a->end += o->clock_offset;
  if ((a->flags & TS_ACTION_CALL_FIRST) && o->call_costs)
    a->seconds = o->call_costs[ts_trace_region_call (f->trace, a->call) * TS_N_SIZE_CLASSES
                               + a->size_class];
  return TRUE;
}

/* ---- reading ahead -------------------------------------------------------- */

/* The request that ends the thread (a queue holds no NULL). */
#define STOP G_MAXUINT

static void
fill (TsActionStream *f, guint rank, Batch *b)
{
  b->len = 0;
  while (b->len < f->batch_len && next_spooled (f, rank, &b->actions[b->len], &b->error))
    b->len++;
  b->end = b->len < f->batch_len;
  g_mutex_lock (&f->lock);
  g_atomic_int_set (&b->ready, 1);
  if (f->waiting)
    g_cond_broadcast (&f->filled);
  g_mutex_unlock (&f->lock);
}

static gpointer
read_ahead (gpointer data)
{
  TsActionStream *f = data;
  guint request;
  while ((request = GPOINTER_TO_UINT (g_async_queue_pop (f->requests))) != STOP)
    {
      guint rank = (request - 1) / 2;
      fill (f, rank, &f->ahead[rank].batch[(request - 1) % 2]);
    }
  return NULL;
}

static void
request (TsActionStream *f, guint rank, guint batch)
{
  g_async_queue_push (f->requests, GUINT_TO_POINTER (rank * 2 + batch + 1));
}

void
ts_action_stream_read_ahead (TsActionStream *f, gsize budget)
{
  g_return_if_fail (f != NULL && f->ahead == NULL);
  /* Two batches a rank within @budget, or not at all: with too few
   * actions a batch, handing them over would cost more than reading. */
  gsize len = budget / (2 * (gsize) f->n_ranks * sizeof (TsAction));
  if (!f->spooled || len < 16 || f->n_ranks > G_MAXUINT / 2 - 1)
    return;
  f->batch_len = (guint) MIN (len, 256);
  f->ahead = g_new0 (Ahead, f->n_ranks);
  for (guint r = 0; r < f->n_ranks; r++)
    for (guint i = 0; i < 2; i++)
      f->ahead[r].batch[i].actions = g_new (TsAction, f->batch_len);
  g_mutex_init (&f->lock);
  g_cond_init (&f->filled);
  f->requests = g_async_queue_new ();
  for (guint i = 0; i < 2; i++)
    for (guint r = 0; r < f->n_ranks; r++)
      request (f, r, i);
  f->reader = ts_output_dir_thread_new ("read ahead", read_ahead, f);
}

static void
stop_reading_ahead (TsActionStream *f)
{
  if (!f->ahead)
    return;
  g_async_queue_push_front (f->requests, GUINT_TO_POINTER (STOP));
  g_thread_join (f->reader);
  g_async_queue_unref (f->requests);
  g_mutex_clear (&f->lock);
  g_cond_clear (&f->filled);
  for (guint r = 0; r < f->n_ranks; r++)
    for (guint i = 0; i < 2; i++)
      {
        g_free (f->ahead[r].batch[i].actions);
        g_clear_error (&f->ahead[r].batch[i].error);
      }
  g_clear_pointer (&f->ahead, g_free);
}

/* The next action of @rank from its batches. */
static gboolean
next_ahead (TsActionStream *f, guint rank, TsAction *a, GError **error)
{
  Ahead *h = &f->ahead[rank];
  Batch *b = &h->batch[h->cur];
  if (!g_atomic_int_get (&b->ready))
    {
      g_mutex_lock (&f->lock);
      f->waiting = TRUE;
      while (!g_atomic_int_get (&b->ready))
        g_cond_wait (&f->filled, &f->lock);
      f->waiting = FALSE;
      g_mutex_unlock (&f->lock);
    }
  if (h->pos < b->len)
    {
      *a = b->actions[h->pos++];
      if (h->pos == b->len && !b->end)
        {
          /* Taken whole: the thread fills it again while the other one is
           * read. */
          g_atomic_int_set (&b->ready, 0);
          request (f, rank, h->cur);
          h->cur ^= 1;
          h->pos = 0;
        }
      return TRUE;
    }
  /* The rank's end (ready for good), or its read error. */
  if (b->error)
    g_propagate_error (error, g_steal_pointer (&b->error));
  return FALSE;
}

gboolean
ts_action_stream_next (TsActionStream *f, guint rank, TsAction *a, GError **error)
{
  g_return_val_if_fail (rank < f->n_streams, FALSE);
  if (rank >= f->n_ranks || !f->spooled)
    return ts_rank_decoder_next (f->ranks[rank], a, error);
  if (f->ahead)
    return next_ahead (f, rank, a, error);
  return next_spooled (f, rank, a, error);
}

gboolean
ts_action_stream_is_spooled (const TsActionStream *f)
{
  return f->spooled != NULL;
}
