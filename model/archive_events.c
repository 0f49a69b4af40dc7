#include <config.h>

/* The archive's event files, written at close from the events the replay
 * logged (the spool), one file per rank, by several threads. */
#define G_LOG_DOMAIN "tracesim-archive"

#include "model/archive-private.h"

#include <gio/gio.h>
#include <string.h>

/* A partitioned event's fields as its attributes, into the empty @attrs.
 * Parameter and attribute ids of the partitioned encoding are fixed, since
 * an archive defines nothing else of either kind. */
void
ts_archive_partitioned_attributes (OTF2_AttributeList *attrs, const EventRecord *ev)
{
  TsPartitionedEvent e = ev->op;
  if (e == TS_P_PSEND_INIT || e == TS_P_PRECV_INIT)
    {
      OTF2_AttributeList_AddUint32 (attrs, TS_PA_PEER, ev->ref);
      OTF2_AttributeList_AddCommRef (attrs, TS_PA_COMM, ev->comm);
      OTF2_AttributeList_AddUint32 (attrs, TS_PA_TAG, ev->tag);
      OTF2_AttributeList_AddUint64 (attrs, TS_PA_BYTES, ev->bytes);
      OTF2_AttributeList_AddUint32 (attrs, TS_PA_PARTITIONS, (guint32) ev->req);
    }
  else if (e == TS_P_PREADY || e == TS_P_PARRIVED || e == TS_P_PTESTED)
    OTF2_AttributeList_AddUint32 (attrs, TS_PA_PARTITION, ev->ref);
}

static OTF2_ErrorCode
write_partitioned (OTF2_EvtWriter *ew, OTF2_TimeStamp t, const EventRecord *ev)
{
  OTF2_AttributeList *attrs = OTF2_AttributeList_New ();
  ts_archive_partitioned_attributes (attrs, ev);
  OTF2_ErrorCode status = OTF2_EvtWriter_ParameterUnsignedInt (ew, attrs, t, ev->op, ev->extra);
  OTF2_AttributeList_Delete (attrs);
  return status;
}

static OTF2_ErrorCode
write_event (OTF2_EvtWriter *ew, const EventRecord *ev)
{
  OTF2_TimeStamp t = ev->tick;
  switch ((EventType) ev->type)
    {
    case EV_ENTER:
      return OTF2_EvtWriter_Enter (ew, NULL, t, ev->ref);
    case EV_LEAVE:
      return OTF2_EvtWriter_Leave (ew, NULL, t, ev->ref);
    case EV_SEND:
      return OTF2_EvtWriter_MpiSend (ew, NULL, t, ev->ref, ev->comm, ev->tag, ev->bytes);
    case EV_RECV:
      return OTF2_EvtWriter_MpiRecv (ew, NULL, t, ev->ref, ev->comm, ev->tag, ev->bytes);
    case EV_ISEND:
      return OTF2_EvtWriter_MpiIsend (ew, NULL, t, ev->ref, ev->comm, ev->tag, ev->bytes,
                                      ev->extra);
    case EV_IRECV:
      return OTF2_EvtWriter_MpiIrecv (ew, NULL, t, ev->ref, ev->comm, ev->tag, ev->bytes,
                                      ev->extra);
    case EV_ISEND_COMPLETE:
      return OTF2_EvtWriter_MpiIsendComplete (ew, NULL, t, ev->extra);
    case EV_IRECV_REQUEST:
      return OTF2_EvtWriter_MpiIrecvRequest (ew, NULL, t, ev->extra);
    case EV_REQUEST_TEST:
      return OTF2_EvtWriter_MpiRequestTest (ew, NULL, t, ev->extra);
    case EV_REQUEST_CANCELLED:
      return OTF2_EvtWriter_MpiRequestCancelled (ew, NULL, t, ev->extra);
    case EV_COLL_BEGIN:
      return OTF2_EvtWriter_MpiCollectiveBegin (ew, NULL, t);
    case EV_COLL_END:
      return OTF2_EvtWriter_MpiCollectiveEnd (ew, NULL, t, ts_collective_to_otf2 (ev->op),
                                              ev->comm, ev->ref, ev->bytes, ev->extra);
    case EV_NBC_REQUEST:
      return OTF2_EvtWriter_NonBlockingCollectiveRequest (ew, NULL, t, ev->extra);
    case EV_NBC_COMPLETE:
      return OTF2_EvtWriter_NonBlockingCollectiveComplete (ew, NULL, t,
                                                           ts_collective_to_otf2 (ev->op),
                                                           ev->comm, ev->ref, ev->bytes,
                                                           ev->extra, ev->req);
    case EV_PARTITIONED:
      return write_partitioned (ew, t, ev);
    case EV_TEAM_BEGIN:
      return OTF2_EvtWriter_ThreadTeamBegin (ew, NULL, t, ev->comm);
    case EV_TEAM_END:
      return OTF2_EvtWriter_ThreadTeamEnd (ew, NULL, t, ev->comm);
    case EV_THREAD_FORK:
      return OTF2_EvtWriter_ThreadFork (ew, NULL, t, OTF2_PARADIGM_OPENMP, ev->ref);
    case EV_THREAD_JOIN:
      return OTF2_EvtWriter_ThreadJoin (ew, NULL, t, OTF2_PARADIGM_OPENMP);
    case EV_LOCK_ACQUIRE:
      return OTF2_EvtWriter_ThreadAcquireLock (ew, NULL, t, OTF2_PARADIGM_OPENMP, ev->ref,
                                               (uint32_t) ev->extra);
    case EV_LOCK_RELEASE:
      return OTF2_EvtWriter_ThreadReleaseLock (ew, NULL, t, OTF2_PARADIGM_OPENMP, ev->ref,
                                               (uint32_t) ev->extra);
    case EV_METRIC:
      {
        OTF2_Type type = OTF2_TYPE_DOUBLE;
        OTF2_MetricValue v;
        memcpy (&v.floating_point, &ev->extra, sizeof v.floating_point);
        return OTF2_EvtWriter_Metric (ew, NULL, t, ev->ref, 1, &type, &v);
      }
    }
  return OTF2_ERROR_INVALID_ARGUMENT;
}

/* Write @rank's logged events as its location's event file, merged in time
 * with the events added late (after the log was finished). Only one event
 * writer (one chunk) is alive at a time. */
static gboolean
write_rank_events (TsArchiveWriter *w, OTF2_Archive *archive, const char *dir, guint rank,
                   guint64 *n_events, GError **error)
{
  OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter (archive, ts_archive_location_ref (w, rank));
  if (!ew)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: cannot create the event writer of location %u", dir, rank);
      return FALSE;
    }
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (w->events, rank);
  /* Late events (wait states) are the ranks' own. */
  g_autoptr (TsSpoolReader) late = w->late && rank < w->n_ranks
                                   ? ts_spool_reader_new (w->late, rank) : NULL;
  GError *local = NULL;
  OTF2_ErrorCode status = OTF2_SUCCESS;
  const EventRecord *ev = ts_spool_reader_next (rd, &local);
  const EventRecord *lev = late && !local ? ts_spool_reader_next (late, &local) : NULL;
  guint64 last = 0;
  while (status == OTF2_SUCCESS && !local && (ev || lev))
    {
      /* A late event goes after the logged ones of the same tick, unless it
       * closes a span (the LEAVE of a region nested in an MPI call that
       * ends at that tick). */
      gboolean take_late = lev && (!ev || lev->tick < ev->tick
                                   || (lev->tick == ev->tick && lev->op == LATE_BEFORE));
      EventRecord e = *(take_late ? lev : ev);
      if (e.type == EV_TEAM_BEGIN || e.type == EV_TEAM_END)
        e.comm = ts_archive_team_comm (w, rank < w->n_ranks ? rank
                                          : w->thread_rank[rank - w->n_ranks]);
      e.tick = MAX (e.tick, last);
      last = e.tick;
      status = write_event (ew, &e);
      if (take_late)
        lev = ts_spool_reader_next (late, &local);
      else
        ev = ts_spool_reader_next (rd, &local);
    }
  if (local)
    {
      OTF2_Archive_CloseEvtWriter (archive, ew);
      g_propagate_error (error, local);
      return FALSE;
    }
  if (status != OTF2_SUCCESS)
    {
      g_autofree char *what = g_strdup_printf ("writing the events of location %u", rank);
      ts_archive_otf2_failed (status, error, dir, what);
      OTF2_Archive_CloseEvtWriter (archive, ew);
      return FALSE;
    }
  return !ts_archive_otf2_failed (OTF2_EvtWriter_GetNumberOfEvents (ew, n_events), error, dir,
                       "OTF2_EvtWriter_GetNumberOfEvents")
         && !ts_archive_otf2_failed (OTF2_Archive_CloseEvtWriter (archive, ew), error, dir,
                          "OTF2_Archive_CloseEvtWriter");
}

/* The ranks' event files, written by the threads of ts_archive_write_events(),
 * each taking the next rank not yet taken. */
typedef struct
{
  TsArchiveWriter *w;
  OTF2_Archive *archive;
  const char *dir;
  guint64 *n_events;
  gint next;
  gint failed;
  GMutex lock;
  guint error_rank; /* the error of the lowest rank is the one reported */
  GError *error;
} RankFiles;

static gpointer
write_ranks (gpointer data)
{
  RankFiles *f = data;
  while (!g_atomic_int_get (&f->failed))
    {
      guint r = (guint) g_atomic_int_add (&f->next, 1);
      if (r >= f->w->n_locations)
        break;
      GError *local = NULL;
      if (write_rank_events (f->w, f->archive, f->dir, r, &f->n_events[r], &local))
        continue;
      g_mutex_lock (&f->lock);
      if (!f->error || r < f->error_rank)
        {
          g_clear_error (&f->error);
          f->error = local;
          f->error_rank = r;
        }
      else
        g_error_free (local);
      g_mutex_unlock (&f->lock);
      g_atomic_int_set (&f->failed, 1);
    }
  return NULL;
}

/* Every rank's event file. Writing one is decoding its spooled events and
 * encoding them for OTF2, which a second core halves (a 64-rank replay
 * spent a tenth of its time here, after the simulation, with the other
 * core idle); each file is written by one thread, so the files are the
 * same whichever writes them. Up to 4 threads: beyond, the file system is
 * the limit. */
gboolean
ts_archive_write_events (TsArchiveWriter *w, OTF2_Archive *archive, const char *dir,
                         guint64 *n_events, GError **error)
{
  RankFiles f = { .w = w, .archive = archive, .dir = dir, .n_events = n_events };
  g_mutex_init (&f.lock);
  guint helpers = MIN (MIN ((guint) g_get_num_processors (), 4u) - 1, w->n_locations - 1);
  GThread *threads[3] = { NULL };
  /* The signals that end a run are handled on the main thread. */
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  for (guint i = 0; i < helpers; i++)
    threads[i] = g_thread_try_new ("archive events", write_ranks, &f, NULL);
  ts_output_dir_release_signals (&old);
  write_ranks (&f);
  for (guint i = 0; i < helpers; i++)
    if (threads[i])
      g_thread_join (threads[i]);
  g_mutex_clear (&f.lock);
  if (f.error)
    {
      g_propagate_error (error, f.error);
      return FALSE;
    }
  return TRUE;
}
