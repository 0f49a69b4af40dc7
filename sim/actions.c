/* What each action of a rank's stream does in the simulated world: the
 * markers that bracket MPI calls and charge what the calls cost beyond the
 * modelled network, compute bursts, point-to-point messages and their
 * requests, tests and waits, and the dispatch to collectives
 * (collectives.c) and partitioned operations (partitioned.c). The engine
 * around them (replay.c) feeds each rank's actor its stream. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/replay-private.h"

#include <math.h>

static void write_collective_end (TsRank *rk);

/* ---- requests ------------------------------------------------------------- */

void
ts_request_free (gpointer p)
{
  TsRequest *r = p;
  g_free (r->job);
  g_free (r);
}

/* ---- the predicted timeline ---------------------------------------------- */

/* Close the innermost open region at @now: its time goes to the
 * before/after table, its LEAVE to the predicted archive. */
static void
close_innermost (TsRank *rk, double now)
{
  GArray *open = rk->open_regions;
  TsOpenRegion *o = &g_array_index (open, TsOpenRegion, open->len - 1);
  rk->sim->region_seconds[o->region] += now - o->since;
  if (rk->sim->writer)
    ts_archive_writer_leave (rk->sim->writer, rk->rank, now, o->region);
  g_array_set_size (open, open->len - 1);
}

/* The predicted timeline's regions, always properly nested whatever the
 * trace did: a LEAVE of a region that is open but not innermost first
 * closes the regions opened inside it (EZTrace leaves "Working" before the
 * "EZTrace finalize" it entered inside it), and a LEAVE of a region not open
 * (that one's own LEAVE, later) is dropped. Vampir and Scalasca reject an
 * archive nested otherwise. */
static void
write_marker (TsRank *rk, const TsAction *a)
{
  double now = ts_rank_now (rk);
  GArray *open = rk->open_regions;
  if (a->kind == TS_ACTION_ENTER)
    {
      /* Grow and assign in place: appending copies through memmove, which
       * showed in profiles of 1024-rank replays. */
      g_array_set_size (open, open->len + 1);
      g_array_index (open, TsOpenRegion, open->len - 1) = (TsOpenRegion) { a->region, now };
      if (rk->sim->writer)
        ts_archive_writer_enter (rk->sim->writer, rk->rank, now, a->region);
      return;
    }
  guint depth = open->len;
  while (depth > 0 && g_array_index (open, TsOpenRegion, depth - 1).region != a->region)
    depth--;
  if (depth == 0)
    return;
  while (open->len >= depth)
    close_innermost (rk, now);
}

void
ts_rank_close_regions (TsRank *rk)
{
  if (rk->coll_end_pending)
    write_collective_end (rk);
  double now = ts_rank_now (rk);
  while (rk->open_regions->len > 0)
    close_innermost (rk, now);
}

/* ---- action handlers ----------------------------------------------------- */

typedef void (*ActionHandler) (TsRank *rk, const TsAction *a);

/* What an MPI call that can wait costs, charged as CPU time when it ends:
 * its recorded duration (on its LEAVE action) minus the wait the trace shows
 * minus what the simulated network already models. The wait runs until the
 * latest original entry time among the calls this one received from (the
 * messages carry it). The network's share is the transfer time of the
 * traced network for the call's message (for a collective, for the longest
 * chain of messages of its algorithm: ts_collective_transfer), but never
 * more than the fastest call of the same MPI function, size class and role
 * (root or not) took (seeds/001: over many calls the fastest did not wait).
 * The traced network is the one fitted to the trace's receives; without a
 * fit, on the calibrated platform, the default network that platform has
 * (so that replaying on it reproduces the trace: LAMMPS's barriers, 40 us
 * at their fastest, lost 38 us each when that was deducted for a network
 * the platform simulates in 2 us); on a platform of your own, the fastest
 * call is taken as pure transfer.
 * A blocking send the simulation buffers takes no network time on the
 * sender, so nothing is deducted from it. What remains is CPU time the call
 * alone spent: the call's overhead, or a rank descheduled on an
 * oversubscribed node. */
static void
charge_call_cost (TsRank *rk, const TsAction *leave)
{
  const TsCalibration *p = rk->sim->calibration;
  double fastest = ts_calibration_call_min (p, leave->region, rk->call_class, rk->call_is_root);
  double network = fastest;
  if (rk->call_collective)
    network = MIN (fastest, rk->call_transfer);
  else if (rk->sim->traced_network_known && rk->call_place >= 0
           && ts_trace_region_call (rk->sim->trace, leave->region) == TS_CALL_RECV
           && ts_calibration_network_placed (p, rk->call_place).samples > 0)
    /* A blocking receive, the kind the placed fits are made of. */
    network = ts_calibration_transfer_placed (p, rk->call_bytes, rk->call_place);
  else if (rk->sim->traced_network_known)
    network = MIN (fastest, ts_calibration_transfer (p, rk->call_bytes));
  /* Calls that only post (MPI_Isend, MPI_Irecv, MPI_Start...) and a blocking
   * send the simulation buffered (eager) return at once: the network models
   * none of their time, so all of it is the call's own (the copy into the
   * library's buffer). */
  TsCallKind kind = ts_trace_region_call (rk->sim->trace, leave->region);
  if (kind == TS_CALL_ISEND || kind == TS_CALL_IRECV || kind == TS_CALL_START
      || kind == TS_CALL_ICOLLECTIVE || (kind == TS_CALL_SEND && !rk->call_waited_for_receiver))
    network = 0;
  double wait = MAX (0, rk->causal - rk->call_enter);
  /* A call that waited for a receiver (a rendezvous send, the wait of one,
   * a partitioned send) waited until the receive was posted; the simulation
   * makes it wait anew, so that share is not CPU time. The receivers tell
   * when they posted (ts_rank_take_receiver_post); where none could, the
   * call gets at most what the fastest call of its class spent beyond the
   * network (a call that fast did not wait). */
  if (rk->call_waited_for_receiver && !isnan (rk->receiver_post))
    wait = MAX (wait, rk->receiver_post - rk->call_enter);
  /* Calls that cannot wait were charged their fastest instance before them
   * (fill_costs in calibration.c); a test that completed a receive gets here
   * too, and must not pay that twice (MUMPS: a 153 us MPI_Test became
   * 258 us). */
  double extra = leave->seconds - wait - network - rk->call_upfront;
  if (rk->call_waited_for_receiver && isnan (rk->receiver_post))
    extra = MIN (extra, fastest - network);
  if (extra > 0)
    rk->pending_compute += extra;
}

static void
do_marker (TsRank *rk, const TsAction *a)
{
  gboolean mpi = ts_trace_region_call (rk->sim->trace, a->region) != TS_CALL_USER;
  if (mpi && a->kind == TS_ACTION_ENTER && !rk->in_call)
    {
      rk->in_call = TRUE;
      rk->call_enter = rk->causal = a->time;
      rk->call_class = 0;
      rk->call_is_root = FALSE;
      rk->call_collective = FALSE;
      rk->call_waited_for_receiver = FALSE;
      rk->receiver_post = NAN;
      rk->call_bytes = 0;
      rk->call_place = -1;
      rk->call_upfront = 0;
    }
  else if (mpi && a->kind == TS_ACTION_LEAVE && rk->in_call)
    {
      if (rk->sendrecv_send)
        {
          sg_comm_t c = rk->sendrecv_send;
          rk->sendrecv_send = NULL;
          ts_rank_flush (rk);
          ts_rank_wait (rk, c, &rk->sendrecv_on);
          ts_rank_take_receiver_post (rk, &rk->sendrecv_on);
        }
      /* Only calls that replayed something carry their duration here; the
       * others were replayed as a compute burst of that duration. */
      if (a->seconds > 0)
        charge_call_cost (rk, a);
      if (rk->coll_end_pending)
        write_collective_end (rk);
      rk->in_call = FALSE;
    }
  write_marker (rk, a);
}

static void
do_compute (TsRank *rk, const TsAction *a)
{
  rk->pending_compute += a->seconds;
}

static void charge_overhead (TsRank *rk, const TsAction *a);
static void write_completion (TsRank *rk, const TsRequest *r);

/* A test that failed in the trace (OTF2 MpiRequestTest). The application
 * looked at the request here: if it is complete in the simulated world by
 * now, it completes here, and the later wait (or successful test) of the
 * trace returns at once. If not, nothing happens: the trace's completion
 * point blocks until it is (do_wait). */
static void
do_test (TsRank *rk, const TsAction *a)
{
  charge_overhead (rk, a);
  TsRequest *r = g_hash_table_lookup (rk->requests, &a->req);
  if (!r || !r->comm)
    return;
  ts_rank_flush (rk); /* the test happens at this simulated time */
  rk->simcalls++;
  if (!sg_comm_test (r->comm))
    return;
  r->comm = NULL; /* sg_comm_test released it */
  ts_rank_absorb (rk, r->payload);
  write_completion (rk, r);
  r->post.kind = TS_ACTION_N_KINDS; /* its completion is written */
}

static void
charge_overhead (TsRank *rk, const TsAction *a)
{
  rk->pending_compute += a->seconds;
  rk->call_upfront += a->seconds;
  if (a->flags & TS_ACTION_CALL_FIRST)
    rk->call_class = a->size_class;
  rk->call_bytes = MAX (rk->call_bytes, a->bytes);
}

static void
do_send (TsRank *rk, const TsAction *a)
{
  charge_overhead (rk, a);
  double t0 = ts_rank_now (rk);
  ts_rank_flush (rk);
  if (rk->sim->writer)
    ts_archive_writer_send (rk->sim->writer, rk->rank, t0, a->peer, a->comm, a->tag, a->bytes);
  guint dst = ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer);
  sg_comm_t c = ts_rank_isend (rk, a->comm, a->peer, a->tag, a->bytes,
                               ts_rank_send_buffered (rk, dst, a->bytes));
  gboolean sendrecv = ts_trace_region_call (rk->sim->trace, a->call) == TS_CALL_SENDRECV;
  rk->call_waited_for_receiver |= c != NULL;
  TsBlockedOn on = { "send to", (gint32) dst, a->comm, a->tag, a->bytes, c != NULL };
  /* MPI_Sendrecv's send completes with the call, after its receive: a ring
   * of rendezvous Sendrecvs would deadlock if the send blocked first. */
  if (c && sendrecv && !rk->sendrecv_send)
    {
      rk->sendrecv_send = c;
      rk->sendrecv_on = on;
      return;
    }
  ts_rank_wait (rk, c, &on);
  if (c)
    ts_rank_take_receiver_post (rk, &on);
}

static void
do_recv (TsRank *rk, const TsAction *a)
{
  if (a->flags & TS_ACTION_MISSING)
    return;
  charge_overhead (rk, a);
  ts_rank_flush (rk);
  TsBlockedOn on = { "receive from", (gint32) ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer),
                     a->comm, a->tag, a->bytes };
  if (on.peer >= 0)
    rk->call_place = ts_trace_ranks_apart (rk->sim->trace, rk->rank, (guint) on.peer);
  ts_rank_note_receive_post (rk, a);
  ts_rank_recv (rk, a->comm, a->peer, a->tag, &on);
  if (rk->sim->writer)
    ts_archive_writer_recv (rk->sim->writer, rk->rank, ts_rank_now (rk), a->peer, a->comm,
                            a->tag, a->bytes);
}

/* A request id posted again while its request is in flight: the trace
 * completed the old one unseen (in a Test loop, say) before this post, so the
 * replay completes it now. SimGrid cannot drop a pending receive anyway. */
static void
settle_superseded (TsRank *rk, guint64 req)
{
  TsRequest *old = g_hash_table_lookup (rk->requests, &req);
  if (!old)
    return;
  if (old->helper)
    {
      ts_rank_flush (rk);
      sg_actor_join (old->helper, -1);
      sg_actor_unref (old->helper);
      old->helper = NULL;
    }
  if (old->comm)
    {
      sg_comm_t c = old->comm;
      old->comm = NULL;
      ts_rank_flush (rk);
      ts_rank_wait (rk, c, &old->on);
      ts_rank_absorb (rk, old->payload);
    }
  write_completion (rk, old);
  old->post.kind = TS_ACTION_N_KINDS; /* completed: no second event */
}

/* A request of the trace, in the table before it is posted: a receive's
 * payload lands in it. */
static TsRequest *
request_new (TsRank *rk, guint64 req, const TsBlockedOn *on)
{
  TsRequest *old = g_hash_table_lookup (rk->requests, &req);
  g_assert (!old || (!old->comm && !old->helper));
  TsRequest *r = g_new0 (TsRequest, 1);
  r->on = *on;
  r->payload = ts_time_payload (-INFINITY);
  r->id = req;
  g_hash_table_replace (rk->requests, &r->id, r);
  return r;
}

static void
do_isend (TsRank *rk, const TsAction *a)
{
  charge_overhead (rk, a);
  ts_rank_flush (rk);
  settle_superseded (rk, a->req);
  double t0 = ts_rank_now (rk);
  if (rk->sim->writer)
    ts_archive_writer_isend (rk->sim->writer, rk->rank, t0, a->peer, a->comm, a->tag, a->bytes,
                             a->req);
  guint dst = ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer);
  TsBlockedOn on = { "wait for its isend to", (gint32) dst, a->comm, a->tag, a->bytes, TRUE };
  TsRequest *r = request_new (rk, a->req, &on);
  r->post = *a;
  r->comm = ts_rank_isend (rk, a->comm, a->peer, a->tag, a->bytes,
                           ts_rank_send_buffered (rk, dst, a->bytes));
}

static void
do_irecv (TsRank *rk, const TsAction *a)
{
  /* Receives of guessed envelopes, and after a further revision those
   * MPI_Waitany & co. gave an envelope (sim/revise.c), may take their
   * messages as they arrive. A receive the inference found no message for
   * is not posted, also when receives take their messages as they arrive:
   * the inference leaves one
   * empty only where the rank has more receives than messages (calibrate/
   * envelopes.c), so it would take a message a later receive needs. */
  gboolean as_arrived = (rk->sim->guessed_as_arrived && (a->flags & TS_ACTION_INFERRED))
                        || (rk->sim->status_as_arrived && (a->flags & TS_ACTION_STATUS));
  if (a->flags & TS_ACTION_MISSING)
    {
      settle_superseded (rk, a->req);
      g_hash_table_remove (rk->requests, &a->req);
      return;
    }
  charge_overhead (rk, a);
  ts_rank_flush (rk);
  settle_superseded (rk, a->req);
  double t0 = ts_rank_now (rk);
  if (rk->sim->writer)
    ts_archive_writer_irecv_request (rk->sim->writer, rk->rank, t0, a->req);
  gboolean sourceless = a->peer == TS_NO_RANK;
  TsBlockedOn on = { sourceless ? "wait for its irecv (source unknown)" : "wait for its irecv from",
                     sourceless ? TS_NO_RANK
                     : (gint32) ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer),
                     a->comm, a->tag, a->bytes };
  TsRequest *r = request_new (rk, a->req, &on);
  r->post = *a;
  /* With no source, its completion has nothing to record: the predicted
   * archive keeps its request, as EZTrace's own trace does. */
  if (sourceless)
    r->post.kind = TS_ACTION_N_KINDS;
  else
    ts_rank_note_receive_post (rk, a);
  if (as_arrived)
    r->comm = ts_rank_irecv_guessed (rk, &r->payload);
  else
    r->comm = ts_rank_irecv (rk, a->comm, a->peer, a->tag, a->bytes, &r->payload);
}

/* The completion event of a point-to-point request in the predicted
 * timeline (so that the archive can be analysed like any trace). */
static void
write_completion (TsRank *rk, const TsRequest *r)
{
  TsArchiveWriter *w = rk->sim->writer;
  if (!w)
    return;
  const TsAction *p = &r->post;
  if (p->kind == TS_ACTION_IRECV)
    ts_archive_writer_irecv (w, rk->rank, ts_rank_now (rk), p->peer, p->comm, p->tag, p->bytes,
                             p->req);
  else if (p->kind == TS_ACTION_ISEND)
    ts_archive_writer_isend_complete (w, rk->rank, ts_rank_now (rk), p->req);
}

static void
do_wait (TsRank *rk, const TsAction *a)
{
  charge_overhead (rk, a);
  TsRequest *r = g_hash_table_lookup (rk->requests, &a->req);
  if (r && r->helper)
    {
      ts_rank_flush (rk);
      rk->blocked = r->on;
      rk->blocked_now = TRUE;
      sg_actor_join (r->helper, -1);
      rk->simcalls++;
      rk->blocked_now = FALSE;
      sg_actor_unref (r->helper);
      r->helper = NULL;
      /* The wait depended on whatever the collective depended on. */
      rk->causal = MAX (rk->causal, ((IcollJob *) r->job)->causal);
      if (rk->sim->writer)
        ts_archive_writer_nbc_complete (rk->sim->writer, rk->rank, ts_rank_now (rk), r->coll.op,
                                        r->coll.comm, r->coll.peer, r->coll.bytes,
                                        r->coll.bytes_recv, r->coll.req);
    }
  else if (r)
    {
      /* Only a request still in flight costs a simcall. */
      if (r->comm)
        {
          rk->call_waited_for_receiver |= r->post.kind == TS_ACTION_ISEND;
          ts_rank_flush (rk);
          sg_comm_t c = r->comm;
          r->comm = NULL;
          ts_rank_wait (rk, c, &r->on);
          if (r->post.kind == TS_ACTION_ISEND)
            ts_rank_take_receiver_post (rk, &r->on);
          else
            ts_rank_absorb (rk, r->payload);
        }
      write_completion (rk, r);
    }
  g_hash_table_remove (rk->requests, &a->req);
}

/* The actor that progresses one non-blocking collective of a rank, on the
 * rank's host, while the rank goes on: MPI libraries progress them in the
 * background (or in every MPI call), and the wait joins the actor. */

static void
icoll_main (int argc, char **argv)
{
  IcollJob *job = sg_actor_self_get_data ();
  ts_replay_collective (job->rk, &job->a, job->tag);
}

static void
do_icollective (TsRank *rk, const TsAction *a)
{
  if (a->flags & TS_ACTION_MISSING)
    return;
  charge_overhead (rk, a);
  ts_rank_flush (rk);
  settle_superseded (rk, a->req);
  if (rk->sim->writer)
    ts_archive_writer_nbc_request (rk->sim->writer, rk->rank, ts_rank_now (rk), a->req);
  /* Collectives on one communicator start in the same order on every rank,
   * so the k-th non-blocking one gets the same tag everywhere; tags apart
   * from blocking collectives keep concurrent ones from matching each other
   * (up to TS_ICOLL_TAGS outstanding per communicator). */
  guint32 seq = rk->icoll_seq[a->comm]++;
  IcollJob *job = g_new (IcollJob, 1);
  *job = (IcollJob) { rk, *a, TS_COLLECTIVE_TAG - 1 - (gint32) (seq % TS_ICOLL_TAGS), a->time };
  TsBlockedOn on = { "wait for its non-blocking", TS_NO_RANK, a->comm, job->tag,
                     MAX (a->bytes, a->bytes_recv) };
  TsRequest *r = request_new (rk, a->req, &on);
  r->coll = *a;
  r->job = job;
  char name[48];
  g_snprintf (name, sizeof name, "rank-%u-%s", rk->rank, ts_collective_name (a->op));
  r->helper = sg_actor_init (name, rk->host);
  sg_actor_ref (r->helper);
  sg_actor_set_data (r->helper, job);
  sg_actor_start (r->helper, icoll_main, 0, NULL);
  rk->simcalls++;
}

static void
do_collective (TsRank *rk, const TsAction *a)
{
  rk->call_is_root = a->peer != TS_NO_RANK
                     && ts_trace_comm_local_rank (rk->sim->trace, a->comm, rk->rank) == a->peer;
  rk->call_collective = TRUE;
  rk->call_transfer = ts_collective_transfer (rk, a);
  charge_overhead (rk, a);
  ts_rank_flush (rk);
  if (rk->sim->writer)
    ts_archive_writer_collective_begin (rk->sim->writer, rk->rank, ts_rank_now (rk));
  ts_replay_collective (rk, a, TS_COLLECTIVE_TAG);
  /* Its MPI_COLLECTIVE_END is written when the call leaves, after what the
   * call costs beyond the transfers: as tracers write it, and where
   * Scalasca's completion patterns end. */
  rk->coll_end = *a;
  rk->coll_end_pending = TRUE;
}

/* The pending MPI_COLLECTIVE_END of the collective call now leaving. */
static void
write_collective_end (TsRank *rk)
{
  const TsAction *a = &rk->coll_end;
  rk->coll_end_pending = FALSE;
  if (rk->sim->writer)
    ts_archive_writer_collective_end (rk->sim->writer, rk->rank, ts_rank_now (rk), a->op, a->comm,
                                      a->peer, a->bytes, a->bytes_recv);
}

static void
do_partitioned (TsRank *rk, const TsAction *a)
{
  charge_overhead (rk, a);
  switch ((TsActionKind) a->kind)
    {
    case TS_ACTION_PINIT:
      ts_partitioned_init (rk, a);
      break;
    case TS_ACTION_PSTART:
      ts_partitioned_start (rk, a);
      break;
    case TS_ACTION_PREADY:
      ts_partitioned_ready (rk, a);
      break;
    case TS_ACTION_PARRIVED:
      ts_partitioned_arrived (rk, a);
      break;
    case TS_ACTION_PTESTED:
      ts_partitioned_tested (rk, a);
      break;
    case TS_ACTION_PCOMPLETE:
      ts_partitioned_complete (rk, a);
      break;
    default:
      g_assert_not_reached ();
    }
}

static const ActionHandler handlers[TS_ACTION_N_KINDS] = {
  [TS_ACTION_ENTER] = do_marker,
  [TS_ACTION_LEAVE] = do_marker,
  [TS_ACTION_COMPUTE] = do_compute,
  [TS_ACTION_SEND] = do_send,
  [TS_ACTION_RECV] = do_recv,
  [TS_ACTION_ISEND] = do_isend,
  [TS_ACTION_IRECV] = do_irecv,
  [TS_ACTION_WAIT] = do_wait,
  [TS_ACTION_TEST] = do_test,
  [TS_ACTION_COLLECTIVE] = do_collective,
  [TS_ACTION_ICOLLECTIVE] = do_icollective,
  [TS_ACTION_PINIT] = do_partitioned,
  [TS_ACTION_PSTART] = do_partitioned,
  [TS_ACTION_PREADY] = do_partitioned,
  [TS_ACTION_PARRIVED] = do_partitioned,
  [TS_ACTION_PTESTED] = do_partitioned,
  [TS_ACTION_PCOMPLETE] = do_partitioned,
};

void
ts_rank_do (TsRank *rk, const TsAction *a)
{
  handlers[a->kind](rk, a);
}
