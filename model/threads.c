/* Counting what the ranks' other threads hold (threads.h). */
#include <config.h>

#define G_LOG_DOMAIN "ts-trace"

#include "model/threads.h"
#include "model/trace-private.h"

#include <stdio.h>
#include <string.h>

/* Locations per OTF2 reader: OTF2 finds a selected location by walking a
 * list, so one reader of every thread would cost their square. */
#define BATCH 256

typedef struct {
  const TsTrace *trace;
  TsThreadScan *scan;  /* counting (ts_thread_scan), or NULL: */
  TsThreadRegionFn on_region;  /* reporting regions (ts_thread_regions_read) */
  gpointer user_data;
  GHashTable *where;   /* location ref -> (rank << 32 | thread) + 1 */
  GArray *mpi;         /* MpiThread: the threads that call MPI, in reading order (rank
                        * and thread) */
  GHashTable *in_team; /* rank << 32 | thread: the threads seen working in a team */
} ScanState;

/* A region entered or left on a thread, for ts_thread_regions_read. */
static OTF2_CallbackCode
region_event (void *ud, OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_RegionRef ref,
              gboolean enter)
{
  ScanState *st = ud;
  guint64 w = GPOINTER_TO_SIZE (g_hash_table_lookup (st->where, &loc)) - 1;
  gint region = ts_trace_region_of_ref (st->trace, ref);
  double seconds = (double) (t - st->trace->global_offset) / (double) st->trace->timer_resolution;
  st->on_region ((guint) (w >> 32), (guint) (w & 0xffffffffu), enter, region, seconds,
                 st->user_data);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_region_leave (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                 OTF2_AttributeList *a, OTF2_RegionRef ref)
{
  return region_event (ud, loc, t, ref, FALSE);
}

/* A thread that calls MPI. */
typedef struct {
  guint64 key;               /* rank << 32 | thread */
  guint64 events, calls;     /* its MPI events, and calls entered */
} MpiThread;

/* Where a location is: (rank << 32 | thread). */
static guint64
where (const ScanState *st, OTF2_LocationRef loc)
{
  return GPOINTER_TO_SIZE (g_hash_table_lookup (st->where, &loc)) - 1;
}

/* An MPI event on a thread: counted, for the thread too. */
static OTF2_CallbackCode
mpi_event (void *ud, OTF2_LocationRef loc, gboolean call)
{
  ScanState *st = ud;
  guint64 w = where (st, loc);
  guint rank = (guint) (w >> 32);
  TsThreadScan *scan = st->scan;
  scan->rank[rank].mpi++;
  scan->mpi++;
  scan->rank[rank].calls += call;
  scan->calls += call;
  /* A location's events are read whole, one location after another. */
  GArray *mpi = st->mpi;
  if (mpi->len == 0 || g_array_index (mpi, MpiThread, mpi->len - 1).key != w)
    {
      MpiThread f = { w, 0, 0 };
      g_array_append_val (mpi, f);
    }
  MpiThread *f = &g_array_index (mpi, MpiThread, mpi->len - 1);
  f->events++;
  f->calls += call;
  return OTF2_CALLBACK_SUCCESS;
}

/* The thread works in a team of its rank's (OpenMP). */
static void
in_team (ScanState *st, OTF2_LocationRef loc)
{
  guint64 w = where (st, loc);
  g_hash_table_add (st->in_team, g_memdup2 (&w, sizeof w));
}

static OTF2_CallbackCode
on_team_begin (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
               OTF2_AttributeList *a, OTF2_CommRef team)
{
  in_team (ud, loc);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_enter (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
          OTF2_AttributeList *a, OTF2_RegionRef ref)
{
  ScanState *st = ud;
  if (st->on_region)
    return region_event (ud, loc, t, ref, TRUE);
  gint region = ts_trace_region_of_ref (st->trace, ref);
  /* As the decoder finds a thread's part of a team (decode-threads.c). */
  if (region >= 0 && ts_trace_region_team_task (st->trace, (guint) region))
    in_team (st, loc);
  if (region < 0 || ts_trace_region_call (st->trace, (guint) region) == TS_CALL_USER)
    return OTF2_CALLBACK_SUCCESS;
  return mpi_event (ud, loc, TRUE);
}

/* The MPI records, by OTF2's name, whatever their arguments. */
#define RECORD(name, ...)                                                        \
  static OTF2_CallbackCode on_##name (OTF2_LocationRef loc, OTF2_TimeStamp t,    \
                                      uint64_t pos, void *ud,                    \
                                      OTF2_AttributeList *a, __VA_ARGS__)        \
  {                                                                              \
    return mpi_event (ud, loc, FALSE);                                           \
  }
RECORD (MpiSend, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n)
RECORD (MpiIsend, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n, uint64_t req)
RECORD (MpiIsendComplete, uint64_t req)
RECORD (MpiIrecvRequest, uint64_t req)
RECORD (MpiRecv, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n)
RECORD (MpiIrecv, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n, uint64_t req)
RECORD (MpiRequestTest, uint64_t req)
RECORD (MpiRequestCancelled, uint64_t req)
RECORD (MpiCollectiveEnd, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent,
        uint64_t received)
RECORD (NonBlockingCollectiveRequest, uint64_t req)
RECORD (NonBlockingCollectiveComplete, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root,
        uint64_t sent, uint64_t received, uint64_t req)
#undef RECORD

static OTF2_EvtReaderCallbacks *
callbacks_new (const ScanState *st)
{
  OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New ();
  OTF2_EvtReaderCallbacks_SetEnterCallback (cb, on_enter);
  if (st->on_region)
    {
      OTF2_EvtReaderCallbacks_SetLeaveCallback (cb, on_region_leave);
      return cb;
    }
  OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback (cb, on_team_begin);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback (cb, on_MpiSend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback (cb, on_MpiIsend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback (cb, on_MpiIsendComplete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback (cb, on_MpiIrecvRequest);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback (cb, on_MpiRecv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback (cb, on_MpiIrecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback (cb, on_MpiRequestTest);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback (cb, on_MpiRequestCancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback (cb, on_MpiCollectiveEnd);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (
    cb, on_NonBlockingCollectiveRequest);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (
    cb, on_NonBlockingCollectiveComplete);
  return cb;
}

/* Read @n of the locations in @locs (with their event files) into @st. */
static gboolean
scan_batch (ScanState *st, const OTF2_LocationRef *locs, guint n, GError **error)
{
  OTF2_Reader *reader = OTF2_Reader_Open (st->trace->path);
  if (!reader)
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                   "%s: cannot open as an OTF2 archive", st->trace->path);
      return FALSE;
    }
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  for (guint i = 0; i < n; i++)
    OTF2_Reader_SelectLocation (reader, locs[i]);
  gboolean ok = FALSE;
  OTF2_EvtReaderCallbacks *cb = callbacks_new (st);
  OTF2_ErrorCode rc = OTF2_Reader_OpenEvtFiles (reader);
  if (rc != OTF2_SUCCESS)
    {
      ts_trace_set_otf2_error (st->trace, rc, "opening the threads' event files", error);
      goto out;
    }
  /* Local definitions carry the id mappings some writers (Score-P) need. */
  if (OTF2_Reader_OpenDefFiles (reader) == OTF2_SUCCESS)
    {
      for (guint i = 0; i < n; i++)
        {
          OTF2_DefReader *dr = OTF2_Reader_GetDefReader (reader, locs[i]);
          uint64_t defs = 0;
          if (dr)
            {
              OTF2_Reader_ReadAllLocalDefinitions (reader, dr, &defs);
              OTF2_Reader_CloseDefReader (reader, dr);
            }
        }
      OTF2_Reader_CloseDefFiles (reader);
    }
  for (guint i = 0; i < n; i++)
    {
      guint64 w = GPOINTER_TO_SIZE (g_hash_table_lookup (st->where, &locs[i])) - 1;
      OTF2_EvtReader *er = OTF2_Reader_GetEvtReader (reader, locs[i]);
      uint64_t events = 0;
      if (er)
        {
          OTF2_Reader_RegisterEvtCallbacks (reader, er, cb, st);
          rc = OTF2_Reader_ReadAllLocalEvents (reader, er, &events);
          OTF2_Reader_CloseEvtReader (reader, er);
        }
      if (!er || rc != OTF2_SUCCESS)
        {
          g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS,
                       "%s: rank %u, thread %u (location %" G_GUINT64_FORMAT
                       "): cannot read its events after event %" G_GUINT64_FORMAT
                       " (truncated or corrupt event file?)",
                       st->trace->path, (guint) (w >> 32), (guint) (w & 0xffffffffu),
                       (guint64) locs[i], (guint64) events);
          goto out;
        }
      if (st->scan)
        {
          st->scan->rank[w >> 32].events += events;
          st->scan->events += events;
        }
    }
  ok = TRUE;
out:
  OTF2_EvtReaderCallbacks_Delete (cb);
  OTF2_Reader_CloseEvtFiles (reader);
  OTF2_Reader_Close (reader);
  return ok;
}

/* Read every rank's other threads with events into @st, a batch of
 * locations per reader, each location's events whole and in order. */
static gboolean
scan_threads (ScanState *st, GError **error)
{
  const TsTrace *trace = st->trace;
  ts_otf2_quiet ();
  st->where = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GArray) todo = g_array_new (FALSE, FALSE, sizeof (OTF2_LocationRef));
  for (guint r = 0; r < ts_trace_n_ranks (trace); r++)
    for (guint k = 1; k < ts_trace_rank_n_threads (trace, r); k++)
      {
        OTF2_LocationRef loc = ts_trace_rank_thread_location (trace, r, k);
        g_hash_table_insert (st->where, g_memdup2 (&loc, sizeof loc),
                             GSIZE_TO_POINTER (((guint64) r << 32 | k) + 1));
        if (ts_trace_location_has_events (trace, loc))
          g_array_append_val (todo, loc);
      }
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < todo->len; i += BATCH)
    ok = scan_batch (st, &g_array_index (todo, OTF2_LocationRef, i),
                     MIN (BATCH, todo->len - i), error);
  g_clear_pointer (&st->where, g_hash_table_unref);
  return ok;
}

TsThreadScan *
ts_thread_scan (const TsTrace *trace, GError **error)
{
  g_autoptr (TsThreadScan) scan = g_new0 (TsThreadScan, 1);
  scan->n_ranks = ts_trace_n_ranks (trace);
  scan->rank = g_new0 (TsThreadCount, scan->n_ranks);
  scan->mpi_threads = g_array_new (FALSE, FALSE, sizeof (guint64));
  scan->mpi_in_teams = g_array_new (FALSE, FALSE, sizeof (gboolean));
  scan->threads = ts_trace_n_threads (trace) - scan->n_ranks;
  if (scan->threads == 0)
    return g_steal_pointer (&scan);

  ScanState st = { trace, scan, NULL, NULL, NULL, NULL, NULL };
  st.mpi = g_array_new (FALSE, FALSE, sizeof (MpiThread));
  st.in_team = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  gboolean ok = scan_threads (&st, error);
  /* Each thread that calls MPI is a stream of its own; those that work in
   * their rank's teams too join its phases (model/decode-threads.c). */
  for (guint i = 0; ok && i < st.mpi->len; i++)
    {
      const MpiThread *f = &g_array_index (st.mpi, MpiThread, i);
      gboolean team = g_hash_table_contains (st.in_team, &f->key);
      g_array_append_val (scan->mpi_threads, f->key);
      g_array_append_val (scan->mpi_in_teams, team);
      scan->mpi_replayed += f->events;
      scan->calls_replayed += f->calls;
    }
  g_array_unref (st.mpi);
  g_hash_table_unref (st.in_team);
  if (!ok)
    return NULL;
  return g_steal_pointer (&scan);
}

gboolean
ts_thread_regions_read (const TsTrace *trace, TsThreadRegionFn on_region, gpointer user_data,
                        GError **error)
{
  if (ts_trace_n_threads (trace) == ts_trace_n_ranks (trace))
    return TRUE;
  ScanState st = { trace, NULL, on_region, user_data, NULL, NULL, NULL };
  return scan_threads (&st, error);
}

void
ts_thread_scan_free (TsThreadScan *scan)
{
  if (!scan)
    return;
  g_free (scan->rank);
  g_array_unref (scan->mpi_threads);
  g_array_unref (scan->mpi_in_teams);
  g_free (scan);
}

gboolean
ts_thread_scan_check_mpi (const TsThreadScan *scan, const TsTrace *trace, GError **error)
{
  g_autofree char *level = scan->mpi ? ts_thread_scan_level_conflict (scan, trace) : NULL;
  if (!level)
    return TRUE;
  /* Replaying them would predict a program MPI does not promise to run. */
  guint64 first = g_array_index (scan->mpi_threads, guint64, 0);
  g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS,
               "%s: rank %u, thread %u: %" G_GUINT64_FORMAT " MPI events are on threads other "
               "than their rank's own location: %s", ts_trace_path (trace),
               (guint) (first >> 32), (guint) (first & 0xffffffffu), scan->mpi, level);
  return FALSE;
}

char *
ts_thread_scan_level_conflict (const TsThreadScan *scan, const TsTrace *trace)
{
  const char *level = ts_trace_mpi_thread_level (trace);
  if (scan->calls == 0 || !*level || strcmp (level, "MPI_THREAD_MULTIPLE") == 0
      || strcmp (level, "MPI_THREAD_SERIALIZED") == 0)
    return NULL;
  /* SINGLE and FUNNELED allow MPI on the thread that initialised it only
   * (the rank's own location, as tracesim-record writes it). */
  return g_strdup_printf ("the program was given %s, under which only the thread that "
                          "initialised MPI may call it: the %" G_GUINT64_FORMAT " calls of "
                          "other threads break MPI's rules", level, scan->calls);
}

char *
ts_thread_scan_describe (const TsThreadScan *scan, const TsTrace *trace)
{
  if (scan->threads == 0)
    return NULL;
  guint with = 0;
  for (guint r = 0; r < scan->n_ranks; r++)
    with += ts_trace_rank_n_threads (trace, r) > 1;
  guint n = scan->mpi_threads->len;
  g_autofree char *mpi
    = scan->mpi ? g_strdup_printf (" (%" G_GUINT64_FORMAT " of them MPI: the %u thread%s that "
                                   "call%s MPI, %" G_GUINT64_FORMAT " calls, replayed as "
                                   "locations of their own)", scan->mpi, n, n == 1 ? "" : "s",
                                   n == 1 ? "s" : "", scan->calls_replayed)
                : g_strdup ("");
  return g_strdup_printf ("%u thread%s of %u rank%s, %" G_GUINT64_FORMAT " event%s%s: what "
                          "they do inside thread teams (OpenMP parallel regions) is replayed "
                          "as their work between barriers, on their rank's host (a core each "
                          "where it has enough, else sharing them); their time in barriers "
                          "and outside teams is no work",
                          scan->threads, scan->threads == 1 ? "" : "s", with,
                          with == 1 ? "" : "s", scan->events, scan->events == 1 ? "" : "s", mpi);
}
