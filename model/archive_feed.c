#include <config.h>

/* The archive writer's logged events handed to a reader's callbacks
 * (TsEventSink) as OTF2 would read them back from the written archive:
 * the same records, ticks clamped the same way, partitioned fields as the
 * same attributes; only the OTF2 encoding and the file in between are
 * skipped. */
#include "model/archive-private.h"
#include "model/archive_writer.h"

#include <gio/gio.h>

struct TsArchiveFeed {
  guint rank;               /* the location's index */
  OTF2_LocationRef ref;
  guint32 team_comm;
  TsSpoolReader *events;
  guint64 position, last;
  OTF2_AttributeList *attrs;
};

TsArchiveFeed *
ts_archive_writer_feed_new (TsArchiveWriter *w, guint rank, GError **error)
{
  g_return_val_if_fail (w != NULL && rank < w->n_locations && w->late == NULL, NULL);
  if (w->error)
    {
      g_propagate_error (error, g_error_copy (w->error));
      return NULL;
    }
  TsArchiveFeed *f = g_new0 (TsArchiveFeed, 1);
  f->rank = rank;
  f->ref = ts_archive_location_ref (w, rank);
  f->team_comm = w->rank_threads ? ts_archive_team_comm (w, rank < w->n_ranks ? rank
                                                         : w->thread_rank[rank - w->n_ranks])
                                 : 0;
  f->events = ts_spool_reader_new (w->events, rank);
  f->attrs = OTF2_AttributeList_New ();
  return f;
}

gboolean
ts_archive_writer_end_events (TsArchiveWriter *w, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  /* Always finished, whatever failed before: a feed waiting for events
   * would wait forever. */
  return ts_spool_finish (w->events, error);
}

void
ts_archive_feed_free (TsArchiveFeed *f)
{
  if (!f)
    return;
  ts_spool_reader_free (f->events);
  OTF2_AttributeList_Delete (f->attrs);
  g_free (f);
}

static OTF2_CallbackCode
feed_event (TsArchiveFeed *f, const TsEventSink *k, void *ud, const EventRecord *ev)
{
  OTF2_LocationRef loc = f->ref;
  OTF2_TimeStamp t = ev->tick;
  guint64 pos = f->position;
  switch ((EventType) ev->type)
    {
    case EV_ENTER:
      return !k->enter ? OTF2_CALLBACK_SUCCESS : k->enter (loc, t, pos, ud, NULL, ev->ref);
    case EV_LEAVE:
      return !k->leave ? OTF2_CALLBACK_SUCCESS : k->leave (loc, t, pos, ud, NULL, ev->ref);
    case EV_SEND:
      return !k->mpi_send ? OTF2_CALLBACK_SUCCESS : k->mpi_send (loc, t, pos, ud, NULL, ev->ref, ev->comm, ev->tag, ev->bytes);
    case EV_RECV:
      return !k->mpi_recv ? OTF2_CALLBACK_SUCCESS : k->mpi_recv (loc, t, pos, ud, NULL, ev->ref, ev->comm, ev->tag, ev->bytes);
    case EV_ISEND:
      return !k->mpi_isend ? OTF2_CALLBACK_SUCCESS : k->mpi_isend (loc, t, pos, ud, NULL, ev->ref, ev->comm, ev->tag, ev->bytes,
                           ev->extra);
    case EV_IRECV:
      return !k->mpi_irecv ? OTF2_CALLBACK_SUCCESS : k->mpi_irecv (loc, t, pos, ud, NULL, ev->ref, ev->comm, ev->tag, ev->bytes,
                           ev->extra);
    case EV_ISEND_COMPLETE:
      return !k->mpi_isend_complete ? OTF2_CALLBACK_SUCCESS : k->mpi_isend_complete (loc, t, pos, ud, NULL, ev->extra);
    case EV_IRECV_REQUEST:
      return !k->mpi_irecv_request ? OTF2_CALLBACK_SUCCESS : k->mpi_irecv_request (loc, t, pos, ud, NULL, ev->extra);
    case EV_REQUEST_TEST:
      return !k->mpi_request_test ? OTF2_CALLBACK_SUCCESS : k->mpi_request_test (loc, t, pos, ud, NULL, ev->extra);
    case EV_REQUEST_CANCELLED:
      return !k->mpi_request_cancelled ? OTF2_CALLBACK_SUCCESS : k->mpi_request_cancelled (loc, t, pos, ud, NULL, ev->extra);
    case EV_COLL_BEGIN:
      return !k->mpi_collective_begin ? OTF2_CALLBACK_SUCCESS : k->mpi_collective_begin (loc, t, pos, ud, NULL);
    case EV_COLL_END:
      return !k->mpi_collective_end ? OTF2_CALLBACK_SUCCESS : k->mpi_collective_end (loc, t, pos, ud, NULL, ts_collective_to_otf2 (ev->op),
                                    ev->comm, ev->ref, ev->bytes, ev->extra);
    case EV_NBC_REQUEST:
      return !k->nbc_request ? OTF2_CALLBACK_SUCCESS : k->nbc_request (loc, t, pos, ud, NULL, ev->extra);
    case EV_NBC_COMPLETE:
      return !k->nbc_complete ? OTF2_CALLBACK_SUCCESS : k->nbc_complete (loc, t, pos, ud, NULL, ts_collective_to_otf2 (ev->op), ev->comm,
                              ev->ref, ev->bytes, ev->extra, ev->req);
    case EV_PARTITIONED:
      {
        OTF2_AttributeList_RemoveAllAttributes (f->attrs);
        ts_archive_partitioned_attributes (f->attrs, ev);
        return !k->parameter_uint ? OTF2_CALLBACK_SUCCESS : k->parameter_uint (loc, t, pos, ud, f->attrs, ev->op, ev->extra);
      }
    case EV_METRIC:
      {
        OTF2_Type type = OTF2_TYPE_DOUBLE;
        OTF2_MetricValue v;
        memcpy (&v.floating_point, &ev->extra, sizeof v.floating_point);
        return !k->metric ? OTF2_CALLBACK_SUCCESS : k->metric (loc, t, pos, ud, NULL, ev->ref, 1, &type, &v);
      }
    case EV_TEAM_BEGIN:
      return !k->thread_team_begin ? OTF2_CALLBACK_SUCCESS : k->thread_team_begin (loc, t, pos, ud, NULL, f->team_comm);
    case EV_TEAM_END:
      return !k->thread_team_end ? OTF2_CALLBACK_SUCCESS : k->thread_team_end (loc, t, pos, ud, NULL, f->team_comm);
    case EV_THREAD_FORK:
      return !k->thread_fork ? OTF2_CALLBACK_SUCCESS : k->thread_fork (loc, t, pos, ud, NULL, OTF2_PARADIGM_OPENMP, ev->ref);
    case EV_THREAD_JOIN:
      return !k->thread_join ? OTF2_CALLBACK_SUCCESS : k->thread_join (loc, t, pos, ud, NULL, OTF2_PARADIGM_OPENMP);
    case EV_LOCK_ACQUIRE:
      return !k->acquire_lock ? OTF2_CALLBACK_SUCCESS
                              : k->acquire_lock (loc, t, pos, ud, NULL, OTF2_PARADIGM_OPENMP, ev->ref,
                                                 (uint32_t) ev->extra);
    case EV_LOCK_RELEASE:
      return !k->release_lock ? OTF2_CALLBACK_SUCCESS
                              : k->release_lock (loc, t, pos, ud, NULL, OTF2_PARADIGM_OPENMP, ev->ref,
                                                 (uint32_t) ev->extra);
    }
  return OTF2_CALLBACK_INTERRUPT;
}

gint
ts_archive_feed_next (TsArchiveFeed *f, const TsEventSink *sink, void *user_data, guint max,
                      GError **error)
{
  guint n = 0;
  while (n < max)
    {
      GError *local = NULL;
      const EventRecord *ev = ts_spool_reader_next (f->events, &local);
      if (local)
        {
          g_propagate_error (error, local);
          return -1;
        }
      if (!ev)
        break;
      /* As the archive is written: time never goes backwards. */
      EventRecord e = *ev;
      e.tick = MAX (e.tick, f->last);
      f->last = e.tick;
      f->position++;
      n++;
      if (e.type > EV_LOCK_RELEASE)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "location %u, event %" G_GUINT64_FORMAT ": a logged event of unknown type %u",
                       f->rank, f->position, e.type);
          return -1;
        }
      if (feed_event (f, sink, user_data, &e) != OTF2_CALLBACK_SUCCESS)
        break;
    }
  return (gint) n;
}
