/* The decoder of a trace's events (ts_decoder_open()): one OTF2 event reader
 * per rank, read in chunks, whose callbacks (decode-events.c) convert events
 * into actions that ts_rank_decoder_next() hands out once nothing later can
 * change them. */
#include <config.h>

#define G_LOG_DOMAIN "ts-stream"

#include "model/decode-private.h"

#include <math.h>

/* Events read per refill: small enough to keep memory flat, large enough that
 * the OTF2 call overhead is amortised. */
#define CHUNK_EVENTS 512
/* From a writer's events there is no read to amortise: one event at a time
 * (ts_rank_decoder_next() asks for more only while nothing can be handed
 * out) keeps every rank's pending actions to what the rank holds, all ranks
 * being open at once. 32 events a refill grew each rank's queue to 64
 * actions, 4 KiB a rank, the largest share of a run's peak (issue 41); the
 * actions handed out do not depend on the chunk. */
#define CHUNK_FED 1

/* ---- the source ---------------------------------------------------------- */

/* Does the tracer read the statuses of MPI_Waitany & co. right? */
static gboolean
statuses_trusted (const TsTrace *trace)
{
  const char *creator = trace->creator;
  return creator && (g_str_has_prefix (creator, "Score-P")
                     || g_str_has_prefix (creator, "tracesim-record"));
}

/* A source of @trace's ranks' streams, none asked for yet. */
static TsDecoder *
decoder_new (const TsTrace *trace)
{
  TsDecoder *src = g_new0 (TsDecoder, 1);
  src->trace = trace;
  src->streams = g_ptr_array_new ();
  g_ptr_array_set_size (src->streams, ts_trace_n_streams (trace));
  src->statuses_trusted = statuses_trusted (trace);
  for (guint i = 0; i < REGION_CACHE_SIZE; i++)
    {
      /* An empty slot answers for the undefined ref, correctly: no region. */
      src->region_cache[i].ref = OTF2_UNDEFINED_REGION;
      src->region_cache[i].region = -1;
    }
  return src;
}

/* decode-events.c's functions, registered with OTF2. */
static OTF2_EvtReaderCallbacks *
callbacks_new (void)
{
  const TsEventSink *k = ts_decode_sink ();
  OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New ();
  OTF2_EvtReaderCallbacks_SetEnterCallback (cb, k->enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback (cb, k->leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback (cb, k->mpi_send);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback (cb, k->mpi_recv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback (cb, k->mpi_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback (cb, k->mpi_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback (cb, k->mpi_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback (cb, k->mpi_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback (cb, k->mpi_request_test);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback (cb, k->mpi_request_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback (cb, k->mpi_collective_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback (cb, k->mpi_collective_end);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (cb, k->nbc_request);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (cb, k->nbc_complete);
  OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback (cb, k->parameter_uint);
  OTF2_EvtReaderCallbacks_SetMetricCallback (cb, k->metric);
  ts_decode_register_thread_events (cb);
  return cb;
}

TsDecoder *
ts_decoder_open (const TsTrace *trace, GError **error)
{
  return ts_decoder_open_some (trace, 0, 1, trace->n_ranks, error);
}

/* OTF2 finds a selected location by walking the list of those selected
 * (otf2_archive_find_location, and otf2_archive_add_location to select
 * one), so selecting every location and reading each one's definitions
 * costs the square of the ranks: at 131,072 ranks, 88% of a 120 s first
 * pass. A decoder of a few ranks keeps that list short. */
TsDecoder *
ts_decoder_open_some (const TsTrace *trace, guint first, guint step, guint count,
                      GError **error)
{
  g_return_val_if_fail (step > 0 && (count == 0 || first + (guint64) (count - 1) * step
                                                     < trace->n_ranks), NULL);
  ts_otf2_quiet ();
  OTF2_Reader *reader = OTF2_Reader_Open (trace->path);
  if (!reader)
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                   "%s: cannot open as an OTF2 archive", trace->path);
      return NULL;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  /* The ranks' locations, and their other threads (their teams' work). */
  g_autoptr (GArray) locs = g_array_new (FALSE, FALSE, sizeof (OTF2_LocationRef));
  for (guint i = 0; i < count; i++)
    for (guint k = 0; k < ts_trace_rank_n_threads (trace, first + i * step); k++)
      {
        OTF2_LocationRef loc = ts_trace_rank_thread_location (trace, first + i * step, k);
        if (k == 0 || ts_trace_location_has_events (trace, loc))
          g_array_append_val (locs, loc);
      }
  for (guint i = 0; i < locs->len; i++)
    OTF2_Reader_SelectLocation (reader, g_array_index (locs, OTF2_LocationRef, i));

  OTF2_ErrorCode rc = OTF2_Reader_OpenEvtFiles (reader);
  if (rc != OTF2_SUCCESS)
    {
      ts_trace_set_otf2_error (trace, rc, "opening the event files", error);
      OTF2_Reader_Close (reader);
      return NULL;
    }
  /* Local definitions carry the id mappings some writers (Score-P) need. */
  gboolean have_defs = OTF2_Reader_OpenDefFiles (reader) == OTF2_SUCCESS;
  for (guint i = 0; i < locs->len && have_defs; i++)
    {
      OTF2_DefReader *dr = OTF2_Reader_GetDefReader (reader,
                                                     g_array_index (locs, OTF2_LocationRef, i));
      if (dr)
        {
          uint64_t n = 0;
          OTF2_Reader_ReadAllLocalDefinitions (reader, dr, &n);
          OTF2_Reader_CloseDefReader (reader, dr);
        }
    }
  if (have_defs)
    OTF2_Reader_CloseDefFiles (reader);

  TsDecoder *src = decoder_new (trace);
  src->reader = reader;
  src->callbacks = callbacks_new ();
  return src;
}

TsDecoder *
ts_decoder_open_writer (const TsTrace *trace, TsArchiveWriter *writer)
{
  TsDecoder *src = decoder_new (trace);
  src->writer = writer;
  return src;
}

static void
stream_free (TsRankDecoder *s)
{
  if (!s)
    return;
  g_array_unref (s->pending);
  g_array_unref (s->stack);
  g_queue_clear (&s->outstanding);
  g_hash_table_unref (s->requests);
  g_clear_pointer (&s->partitioned, g_hash_table_unref);
  ts_team_decoder_free (s->source, s->team);
  ts_archive_feed_free (s->feed);
  g_clear_error (&s->error);
  g_free (s);
}

/* A released rank's place in TsDecoder.streams: not NULL, so that it is not
 * opened again, and no stream. */
static const char released;
#define RELEASED ((gpointer) &released)

void
ts_decoder_free (TsDecoder *src)
{
  if (!src)
    return;
  for (guint r = 0; r < src->streams->len; r++)
    {
      TsRankDecoder *s = src->streams->pdata[r];
      if (s == RELEASED)
        continue;
      if (s && s->reader)
        OTF2_Reader_CloseEvtReader (src->reader, s->reader);
      stream_free (s);
    }
  g_ptr_array_unref (src->streams);
  if (src->reader)
    {
      OTF2_EvtReaderCallbacks_Delete (src->callbacks);
      OTF2_Reader_CloseEvtFiles (src->reader);
      OTF2_Reader_Close (src->reader);
    }
  g_free (src);
}

TsRankDecoder *
ts_decoder_rank (TsDecoder *src, guint stream, const TsDecodeOptions *options)
{
  g_return_val_if_fail (stream < src->streams->len, NULL);
  g_return_val_if_fail (src->streams->pdata[stream] == NULL, NULL);

  TsRankDecoder *s = g_new0 (TsRankDecoder, 1);
  s->source = src;
  s->rank = ts_trace_stream_rank (src->trace, stream);
  s->thread = ts_trace_stream_thread (src->trace, stream);
  if (options)
    s->options = *options;
  /* The inferred envelopes are the rank's own location's (the inference
   * reads the ranks): a thread's receive without one is missing. */
  if (s->thread > 0)
    {
      s->options.inferred = NULL;
      s->options.unresolved_deadlines = NULL;
    }
  /* From a writer's events every rank is open at once: pending grows with
   * what the rank holds (4 KiB reserved per rank was 512 MiB at 131,072
   * ranks). From OTF2 a refill brings a chunk at once. */
  s->pending = src->writer ? g_array_new (FALSE, FALSE, sizeof (TsAction))
                           : g_array_sized_new (FALSE, FALSE, sizeof (TsAction), CHUNK_EVENTS * 2);
  s->stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  s->user_region = NO_REGION;
  s->call = NO_REGION;
  s->requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  s->first_unresolved = G_MAXUINT64;
  s->burst_first_seq = G_MAXUINT64;
  s->stats.first_time = INFINITY;
  s->stats.last_time = -INFINITY;
  src->streams->pdata[stream] = s;
  if (src->writer)
    {
      guint location = s->thread ? ts_archive_writer_thread (src->writer, s->rank, s->thread)
                                 : s->rank;
      s->feed = ts_archive_writer_feed_new (src->writer, location, &s->error);
      if (!s->feed && !s->error)
        g_set_error (&s->error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                     "%s: rank %u: the logged events cannot be read", src->trace->path, s->rank);
      if (s->thread == 0)
        s->team = ts_team_decoder_new (src, s->rank);
      return s;
    }
  /* A thread's team work is its rank's team's; a thread with MPI of its
   * own is a stream of its own, and in no team (see decode-threads.c). */
  s->reader = OTF2_Reader_GetEvtReader (src->reader, ts_trace_rank_thread_location (src->trace,
                                                                                 s->rank,
                                                                                 s->thread));
  if (s->reader)
    {
      OTF2_Reader_RegisterEvtCallbacks (src->reader, s->reader, src->callbacks, s);
      if (s->thread == 0)
        s->team = ts_team_decoder_new (src, s->rank);
    }
  else
    {
      g_autofree char *where = ts_decode_where (s);
      g_set_error (&s->error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                   "%s: %s: cannot open its event file", src->trace->path, where);
    }
  return s;
}

char *
ts_decode_where (const TsRankDecoder *s)
{
  if (s->thread == 0)
    return g_strdup_printf ("rank %u", s->rank);
  return g_strdup_printf ("rank %u, thread %u (location %" G_GUINT64_FORMAT ")", s->rank,
                          s->thread,
                          ts_trace_rank_thread_location (s->source->trace, s->rank, s->thread));
}

/* From a writer's events (the handed-out actions already dropped). */
static gboolean
refill_fed (TsRankDecoder *s, GError **error)
{
  gint n = ts_archive_feed_next (s->feed, ts_decode_sink (), s, CHUNK_FED, error);
  if (n < 0)
    return FALSE;
  if (s->error)
    {
      g_propagate_error (error, g_steal_pointer (&s->error));
      return FALSE;
    }
  if (n < CHUNK_FED)
    ts_decode_finish (s);
  return TRUE;
}

static gboolean
refill (TsRankDecoder *s, GError **error)
{
  if (s->error)
    {
      g_propagate_error (error, g_steal_pointer (&s->error));
      return FALSE;
    }
  /* Drop what was handed out before reading more. */
  if (s->head > 0)
    {
      g_array_remove_range (s->pending, 0, s->head);
      s->base += s->head;
      s->head = 0;
    }
  if (s->feed)
    return refill_fed (s, error);
  uint64_t n = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadLocalEvents (s->source->reader, s->reader,
                                                   CHUNK_EVENTS, &n);
  if (s->error)
    {
      g_propagate_error (error, g_steal_pointer (&s->error));
      return FALSE;
    }
  if (rc != OTF2_SUCCESS)
    {
      g_autofree char *where = ts_decode_where (s);
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS,
                   "%s: %s, after event %" G_GUINT64_FORMAT
                   ": cannot read events: %s (truncated or corrupt event file?)",
                   s->source->trace->path, where, s->position,
                   OTF2_Error_GetDescription (rc));
      return FALSE;
    }
  /* A short read is the end: OTF2 reports an error, not 0, if asked again. */
  if (n < CHUNK_EVENTS)
    ts_decode_finish (s);
  return TRUE;
}

gboolean
ts_rank_decoder_next (TsRankDecoder *s, TsAction *action, GError **error)
{
  for (;;)
    {
      guint64 seq = s->base + s->head;
      gboolean have = s->head < s->pending->len;
      /* Hold what follows an unresolved receive, the actions of an MPI
       * call until it ends (its cost is known only then), and the bursts
       * since the last call until the next names their phase. */
      gboolean held = (s->n_unresolved > 0 && seq >= s->first_unresolved)
                      || (s->call != NO_REGION && s->call_first_seq != G_MAXUINT64
                          && seq >= s->call_first_seq)
                      || seq >= s->burst_first_seq;
      if (have && !held)
        {
          *action = g_array_index (s->pending, TsAction, s->head++);
          return TRUE;
        }
      if (s->eof)
        return FALSE;
      if (!refill (s, error))
        return FALSE;
    }
}

void
ts_decoder_release (TsDecoder *src, guint rank)
{
  g_return_if_fail (rank < src->streams->len);
  TsRankDecoder *s = src->streams->pdata[rank];
  if (!s || s == RELEASED)
    return;
  if (s->reader)
    OTF2_Reader_CloseEvtReader (src->reader, s->reader);
  /* All of it: a pass over the ranks one at a time (calibration) would
   * otherwise keep a chunk of actions and a stream per rank it has read,
   * 64 KiB and 1 KiB at every rank. */
  stream_free (s);
  src->streams->pdata[rank] = RELEASED;
}

const TsDecodeStats *
ts_rank_decoder_stats (const TsRankDecoder *s)
{
  return &s->stats;
}

/* ---- helpers of decode-events.c and the readers beside it --------------- */

/* Peer @peer of @comm exists? MPI_PROC_NULL and garbage peers do not. */
gboolean
ts_decode_peer_valid (TsRankDecoder *s, guint32 comm, guint32 peer)
{
  return peer < ts_trace_comm_size (s->source->trace, comm);
}

gint
ts_decode_comm_index (TsRankDecoder *s, OTF2_CommRef ref)
{
  gint c = ts_trace_comm_of_ref (s->source->trace, ref);
  const char *foreign = c < 0 ? ts_trace_foreign_comm (s->source->trace, ref) : NULL;
  if (foreign)
    ts_decode_fail (s, "an MPI event on %s", foreign);
  else if (c < 0)
    ts_decode_fail (s, "undefined communicator %u", (guint) ref);
  return c;
}

