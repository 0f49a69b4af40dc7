/* What each action of a rank's stream does in the simulated world: the
 * markers that bracket MPI calls and charge what the calls cost beyond the
 * modelled network, compute bursts, point-to-point messages and their
 * requests, tests and waits, and the dispatch to collectives
 * (collectives.c) and partitioned operations (partitioned.c). Each handler
 * is a step function of the rank's progress (sim/progress.h), which the
 * engine resumes until the rank's stream ends (ts_rank_step in replay.c). */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"

#include <math.h>

static void write_collective_end (TsRank *rk);

/* ---- requests ------------------------------------------------------------- */

void
ts_request_free (gpointer p)
{
  TsRequest *r = p;
  TsIcollJob *job = r->job;
  if (job)
    ts_progress_clear (&job->x);
  g_free (job);
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
  ts_fsum_add (&rk->sim->region_seconds[o->region], now - o->since);
  if (rk->sim->writer)
    ts_archive_writer_leave (rk->sim->writer, rk->location, now, o->region);
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
        ts_archive_writer_enter (rk->sim->writer, rk->location, now, a->region);
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

/* Each handler is a step function of the rank's own progress on the action
 * x->a (sim/progress.h): its named states are where it can stop. */
typedef gboolean (*ActionHandler) (TsProgress *x);

/* Leave a step function, done: its next call starts anew. */
#define TS_DONE(pc) \
  do               \
    {              \
      (pc) = 0;    \
      return TRUE; \
    }              \
  while (0)

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
  gboolean pinned = rk->sim->options->residual == TS_RESIDUAL_PINNED;
  /* Noise is drawn at every call, those without a residual too: a call
   * with one is no likelier than another to draw a detour. */
  if (!(extra > 0) && pinned)
    return;
  extra = MAX (extra, 0);
  /* Of that, the call's work is what the fastest call of its class spent
   * beyond the network and what was charged before it (nothing more for a
   * call that cannot wait, whose fastest instance was charged up front);
   * the rest is its residual (TsResidual). Pinned, the sum is charged as
   * one, so that an identity replay stays exact to the last bit. */
  double work = MIN (extra, MAX (0, fastest - network - rk->call_upfront));
  double residual = extra - work;
  rk->charged_work += work;
  rk->recorded_work += work;
  double charged = pinned ? residual : ts_rank_residual (rk, residual);
  rk->charged_residual += charged;
  rk->sim->region_residual[leave->region] += charged * rk->sim->options->trace_speed / rk->speed;
  rk->pending_compute += pinned ? extra : work + charged;
}

enum { MARK_START, MARK_SENDRECV_FLUSH, MARK_SENDRECV_WAIT, MARK_TEAM_FLUSH };

static gboolean
do_marker (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  gboolean mpi = ts_trace_region_call (rk->sim->trace, a->region) != TS_CALL_USER;
  switch (x->pc)
    {
    case MARK_START:
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
              x->comm = rk->sendrecv_send;
              rk->sendrecv_send = NULL;
              TS_AT (x->pc, MARK_SENDRECV_FLUSH);
              if (!ts_step_flush (x))
                return FALSE;
              TS_AT (x->pc, MARK_SENDRECV_WAIT);
              if (!ts_step_wait (x, x->comm, &rk->sendrecv_on))
                return FALSE;
              ts_rank_take_receiver_post (rk, &rk->sendrecv_on);
            }
          /* Only calls that replayed something carry their duration here;
           * the others were replayed as a compute burst of that duration. */
          if (a->seconds > 0)
            charge_call_cost (rk, a);
          if (rk->coll_end_pending)
            write_collective_end (rk);
          if (!isnan (a->cpu) && a->time > rk->call_enter)
            {
              rk->calls_cpu += MIN (a->cpu, a->time - rk->call_enter);
              rk->calls_wall += a->time - rk->call_enter;
            }
          rk->in_call = FALSE;
        }
      /* Its threads running on the cores it shares with them, the rank's
       * compute ends when the sharing lets it, not as on a core of its
       * own (ts_rank_now): its markers wait for it. */
      if (rk->team_jobs && rk->team_jobs->len > 0 && !rk->exclusive_cpu
          && rk->pending_compute > 0)
        {
          TS_AT (x->pc, MARK_TEAM_FLUSH);
          if (!ts_step_flush (x))
            return FALSE;
        }
    }
  x->pc = MARK_START;
  write_marker (rk, a);
  return TRUE;
}

static gboolean
do_compute (TsProgress *x)
{
  x->rk->pending_compute += x->a->seconds;
  x->rk->charged_work += x->a->seconds;
  /* A thread with MPI of its own in a team: its rank's team's work too,
   * which the rank's residual follows (sim/residual.c). */
  if (x->rk->in_team_now)
    x->rk->sim->ranks[x->rk->rank].team_charged_work += x->a->seconds;
  return TRUE;
}

static void charge_overhead (TsRank *rk, const TsAction *a);
static void write_completion (TsRank *rk, const TsRequest *r);

enum { TEST_START, TEST_FLUSH };

/* A test that failed in the trace (OTF2 MpiRequestTest). The application
 * looked at the request here: if it is complete in the simulated world by
 * now, it completes here, and the later wait (or successful test) of the
 * trace returns at once. If not, nothing happens: the trace's completion
 * point blocks until it is (do_wait). */
static gboolean
do_test (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  switch (x->pc)
    {
    case TEST_START:
      charge_overhead (rk, a);
      {
        guint64 id = ts_rank_request_for (rk, a->req, FALSE);
        x->request = g_hash_table_lookup (rk->requests, &id);
      }
      if (!x->request || !x->request->comm)
        TS_DONE (x->pc);
      /* The test happens at this simulated time. */
      TS_AT (x->pc, TEST_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      rk->simcalls++;
      if (!rk->sim->world->test (rk, x->request->comm))
        TS_DONE (x->pc);
      x->request->comm = NULL; /* the successful test released it */
      ts_progress_absorb (x, x->request->payload);
      write_completion (rk, x->request);
      x->request->post.kind = TS_ACTION_N_KINDS; /* its completion is written */
    }
  TS_DONE (x->pc);
}

static void
charge_overhead (TsRank *rk, const TsAction *a)
{
  rk->pending_compute += a->seconds;
  rk->charged_work += a->seconds;
  rk->recorded_work += a->seconds;
  rk->call_upfront += a->seconds;
  if (a->flags & TS_ACTION_CALL_FIRST)
    rk->call_class = a->size_class;
  rk->call_bytes = MAX (rk->call_bytes, a->bytes);
}

enum { SEND_START, SEND_FLUSH, SEND_WAIT };

static gboolean
do_send (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  switch (x->pc)
    {
    case SEND_START:
      charge_overhead (rk, a);
      x->t0 = ts_rank_now (rk);
      TS_AT (x->pc, SEND_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      if (rk->sim->writer)
        ts_archive_writer_send (rk->sim->writer, rk->location, x->t0, a->peer, a->comm, a->tag,
                                a->bytes);
      guint dst = ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer);
      x->comm = ts_rank_isend (rk, a->comm, a->peer, a->tag, a->bytes,
                               ts_rank_send_buffered (rk, dst, a->bytes));
      gboolean sendrecv = ts_trace_region_call (rk->sim->trace, a->call) == TS_CALL_SENDRECV;
      rk->call_waited_for_receiver |= x->comm != NULL;
      x->on = (TsBlockedOn) { "send to", (gint32) dst, a->comm, a->tag, a->bytes, x->comm != NULL };
      /* MPI_Sendrecv's send completes with the call, after its receive: a
       * ring of rendezvous Sendrecvs would deadlock if the send blocked
       * first. */
      if (x->comm && sendrecv && !rk->sendrecv_send)
        {
          rk->sendrecv_send = x->comm;
          rk->sendrecv_on = x->on;
          TS_DONE (x->pc);
        }
      TS_AT (x->pc, SEND_WAIT);
      if (!ts_step_wait (x, x->comm, &x->on))
        return FALSE;
      if (x->comm)
        ts_rank_take_receiver_post (rk, &x->on);
    }
  TS_DONE (x->pc);
}

enum { RECV_START, RECV_FLUSH, RECV_WAIT };

static gboolean
do_recv (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  switch (x->pc)
    {
    case RECV_START:
      if (a->flags & TS_ACTION_MISSING)
        TS_DONE (x->pc);
      charge_overhead (rk, a);
      TS_AT (x->pc, RECV_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      x->on = (TsBlockedOn) { "receive from",
                              (gint32) ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank,
                                                                 a->peer),
                              a->comm, a->tag, a->bytes };
      if (x->on.peer >= 0)
        rk->call_place = ts_trace_ranks_apart (rk->sim->trace, rk->rank, (guint) x->on.peer);
      ts_rank_note_receive_post (rk, a);
      TS_AT (x->pc, RECV_WAIT);
      if (!ts_step_recv (x, a->comm, a->peer, a->tag, &x->on))
        return FALSE;
      if (rk->sim->writer)
        ts_archive_writer_recv (rk->sim->writer, rk->location, ts_rank_now (rk), a->peer, a->comm,
                                a->tag, a->bytes);
    }
  TS_DONE (x->pc);
}

enum { SETTLE_START, SETTLE_JOIN_FLUSH, SETTLE_JOIN, SETTLE_WAIT_FLUSH, SETTLE_WAIT };

/* A request id posted again while its request is in flight: the trace
 * completed the old one unseen (in a Test loop, say) before this post, so
 * the replay completes it now. SimGrid cannot drop a pending receive
 * anyway. A step function of its own (x->pc_settle), inside the handlers
 * that post. */
static gboolean
settle_superseded (TsProgress *x, guint64 req)
{
  TsRank *rk = x->rk;
  switch (x->pc_settle)
    {
    case SETTLE_START:
      x->request = g_hash_table_lookup (rk->requests, &req);
      if (!x->request)
        TS_DONE (x->pc_settle);
      if (x->request->helper)
        {
          TS_AT (x->pc_settle, SETTLE_JOIN_FLUSH);
          if (!ts_step_flush (x))
            return FALSE;
          TS_AT (x->pc_settle, SETTLE_JOIN);
          if (!ts_step_join (x, x->request->helper))
            return FALSE;
          rk->sim->world->release_icoll (x->request->helper);
          x->request->helper = NULL;
        }
      if (x->request->comm)
        {
          x->comm = x->request->comm;
          x->request->comm = NULL;
          TS_AT (x->pc_settle, SETTLE_WAIT_FLUSH);
          if (!ts_step_flush (x))
            return FALSE;
          TS_AT (x->pc_settle, SETTLE_WAIT);
          if (!ts_step_wait (x, x->comm, &x->request->on))
            return FALSE;
          ts_progress_absorb (x, x->request->payload);
        }
      write_completion (rk, x->request);
      x->request->post.kind = TS_ACTION_N_KINDS; /* completed: no second event */
      ts_rank_forget_swaps_to (rk, req);
    }
  TS_DONE (x->pc_settle);
}

/* A request of the trace, in the table before it is posted: a receive's
 * payload lands in it. */
static TsRequest *
request_new (TsRank *rk, guint64 req, const TsBlockedOn *on)
{
  TsRequest *old = g_hash_table_lookup (rk->requests, &req);
  g_assert (!old || (!old->comm && !old->helper));
  /* Posted again before the trace completed it: that completion went
   * unseen, and with it the swap an MPI_Waitany made. */
  if (rk->swapped)
    g_hash_table_remove (rk->swapped, &req);
  TsRequest *r = g_new0 (TsRequest, 1);
  r->on = *on;
  r->payload = ts_time_payload (-INFINITY);
  r->id = req;
  g_hash_table_replace (rk->requests, &r->id, r);
  return r;
}

enum { ISEND_START, ISEND_FLUSH, ISEND_SETTLE };

static gboolean
do_isend (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  switch (x->pc)
    {
    case ISEND_START:
      charge_overhead (rk, a);
      TS_AT (x->pc, ISEND_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      TS_AT (x->pc, ISEND_SETTLE);
      if (!settle_superseded (x, a->req))
        return FALSE;
      double t0 = ts_rank_now (rk);
      if (rk->sim->writer)
        ts_archive_writer_isend (rk->sim->writer, rk->location, t0, a->peer, a->comm, a->tag,
                                 a->bytes, a->req);
      guint dst = ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer);
      TsBlockedOn on = { "wait for its isend to", (gint32) dst, a->comm, a->tag, a->bytes, TRUE };
      TsRequest *r = request_new (rk, a->req, &on);
      r->post = *a;
      r->comm = ts_rank_isend (rk, a->comm, a->peer, a->tag, a->bytes,
                               ts_rank_send_buffered (rk, dst, a->bytes));
    }
  TS_DONE (x->pc);
}

/* Post an irecv (do_irecv, once any earlier request of its id is settled). */
static void
post_irecv (TsRank *rk, const TsAction *a)
{
  /* Receives of guessed envelopes, and after a further revision those
   * MPI_Waitany & co. gave an envelope (sim/revise.c), may take their
   * messages as they arrive. */
  gboolean as_arrived = (rk->sim->guessed_as_arrived && (a->flags & TS_ACTION_INFERRED))
                        || (rk->sim->status_as_arrived && (a->flags & TS_ACTION_STATUS));
  double t0 = ts_rank_now (rk);
  if (rk->sim->writer)
    ts_archive_writer_irecv_request (rk->sim->writer, rk->location, t0, a->req);
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

enum { IRECV_START, IRECV_MISSING_SETTLE, IRECV_FLUSH, IRECV_SETTLE };

static gboolean
do_irecv (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  switch (x->pc)
    {
    case IRECV_START:
      /* A receive the inference found no message for is not posted, also
       * when receives take their messages as they arrive: the inference
       * leaves one empty only where the rank has more receives than
       * messages (calibrate/envelopes.c), so it would take a message a
       * later receive needs. */
      if (a->flags & TS_ACTION_MISSING)
        {
          TS_AT (x->pc, IRECV_MISSING_SETTLE);
          if (!settle_superseded (x, a->req))
            return FALSE;
          g_hash_table_remove (rk->requests, &a->req);
          TS_DONE (x->pc);
        }
      charge_overhead (rk, a);
      TS_AT (x->pc, IRECV_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      TS_AT (x->pc, IRECV_SETTLE);
      if (!settle_superseded (x, a->req))
        return FALSE;
      post_irecv (rk, a);
    }
  TS_DONE (x->pc);
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
    ts_archive_writer_irecv (w, rk->location, ts_rank_now (rk), p->peer, p->comm, p->tag, p->bytes,
                             p->req);
  else if (p->kind == TS_ACTION_ISEND)
    ts_archive_writer_isend_complete (w, rk->location, ts_rank_now (rk), p->req);
}

/* The wait of a non-blocking collective joined: the wait depended on
 * whatever the collective depended on. */
static void
icoll_joined (TsProgress *x, TsRequest *r)
{
  TsRank *rk = x->rk;
  rk->simcalls++;
  rk->blocked_now = FALSE;
  rk->sim->world->release_icoll (r->helper);
  r->helper = NULL;
  rk->causal = MAX (rk->causal, ((TsIcollJob *) r->job)->causal);
  if (rk->sim->writer)
    {
      const TsAction *a = &((TsIcollJob *) r->job)->a;
      ts_archive_writer_nbc_complete (rk->sim->writer, rk->location, ts_rank_now (rk), a->op,
                                      a->comm, a->peer, a->bytes, a->bytes_recv, a->req);
    }
}

enum { WAIT_START, WAIT_JOIN_FLUSH, WAIT_JOIN, WAIT_FLUSH, WAIT_COMM, WAIT_ANY_FLUSH, WAIT_ANY };

static gboolean
do_wait (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  switch (x->pc)
    {
    case WAIT_START:
      charge_overhead (rk, a);
      {
        guint64 id = ts_rank_request_for (rk, a->req, TRUE);
        x->request = g_hash_table_lookup (rk->requests, &id);
      }
      if (x->request && x->request->comm && !x->request->helper
          && ts_trace_region_completes_one_of (rk->sim->trace, a->call)
          && ts_waitany_candidates (x) > 1)
        {
          TS_AT (x->pc, WAIT_ANY_FLUSH);
          if (!ts_step_flush (x))
            return FALSE;
          TS_AT (x->pc, WAIT_ANY);
          if (!ts_step_wait_any (x, (TsComm **) rk->any_comms->pdata, rk->any_comms->len,
                                 &x->request->on))
            return FALSE;
          x->request = ts_waitany_choose (x);
          rk->call_waited_for_receiver |= x->request->post.kind == TS_ACTION_ISEND;
          x->request->comm = NULL;
          if (x->request->post.kind == TS_ACTION_ISEND)
            ts_rank_take_receiver_post (rk, &x->request->on);
          else
            ts_progress_absorb (x, x->request->payload);
          write_completion (rk, x->request);
        }
      else if (x->request && x->request->helper)
        {
          TS_AT (x->pc, WAIT_JOIN_FLUSH);
          if (!ts_step_flush (x))
            return FALSE;
          rk->blocked = x->request->on;
          rk->blocked_now = TRUE;
          TS_AT (x->pc, WAIT_JOIN);
          if (!ts_step_join (x, x->request->helper))
            return FALSE;
          icoll_joined (x, x->request);
        }
      else if (x->request)
        {
          /* Only a request still in flight costs a simcall. */
          if (x->request->comm)
            {
              rk->call_waited_for_receiver |= x->request->post.kind == TS_ACTION_ISEND;
              TS_AT (x->pc, WAIT_FLUSH);
              if (!ts_step_flush (x))
                return FALSE;
              x->comm = x->request->comm;
              x->request->comm = NULL;
              TS_AT (x->pc, WAIT_COMM);
              if (!ts_step_wait (x, x->comm, &x->request->on))
                return FALSE;
              if (x->request->post.kind == TS_ACTION_ISEND)
                ts_rank_take_receiver_post (rk, &x->request->on);
              else
                ts_progress_absorb (x, x->request->payload);
            }
          write_completion (rk, x->request);
        }
      if (x->request)
        g_hash_table_remove (rk->requests, &x->request->id);
    }
  TS_DONE (x->pc);
}

enum { ICOLL_START, ICOLL_FLUSH, ICOLL_SETTLE };

/* A non-blocking collective: a progress of its own runs the collective
 * while the rank goes on. */
static gboolean
do_icollective (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  switch (x->pc)
    {
    case ICOLL_START:
      if (a->flags & TS_ACTION_MISSING)
        TS_DONE (x->pc);
      charge_overhead (rk, a);
      TS_AT (x->pc, ICOLL_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      TS_AT (x->pc, ICOLL_SETTLE);
      if (!settle_superseded (x, a->req))
        return FALSE;
      if (rk->sim->writer)
        ts_archive_writer_nbc_request (rk->sim->writer, rk->location, ts_rank_now (rk), a->req);
      /* Collectives on one communicator start in the same order on every
       * rank, so the k-th non-blocking one gets the same tag everywhere;
       * tags apart from blocking collectives keep concurrent ones from
       * matching each other (up to TS_ICOLL_TAGS outstanding per
       * communicator). */
      /* Counted per rank, whichever of its threads posts (the tags agree
       * with the other ranks'). */
      guint32 seq = rk->sim->ranks[rk->rank].icoll_seq[a->comm]++;
      TsIcollJob *job = g_new0 (TsIcollJob, 1);
      job->a = *a;
      job->causal = a->time;
      ts_progress_init (&job->x, rk, FALSE, &job->causal, &job->a,
                        TS_COLLECTIVE_TAG - 1 - (gint32) (seq % TS_ICOLL_TAGS));
      TsBlockedOn on = { "wait for its non-blocking", TS_NO_RANK, a->comm, job->x.tag,
                         MAX (a->bytes, a->bytes_recv) };
      TsRequest *r = request_new (rk, a->req, &on);
      r->job = job;
      r->helper = rk->sim->world->start_icoll (rk, job);
      rk->simcalls++;
    }
  TS_DONE (x->pc);
}

enum { COLL_START, COLL_FLUSH, COLL_RUN };

static gboolean
do_collective (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsAction *a = x->a;
  switch (x->pc)
    {
    case COLL_START:
      rk->call_is_root = a->peer != TS_NO_RANK
                         && ts_trace_comm_local_rank (rk->sim->trace, a->comm, rk->rank) == a->peer;
      rk->call_collective = TRUE;
      rk->call_transfer = ts_collective_transfer (rk, a);
      charge_overhead (rk, a);
      TS_AT (x->pc, COLL_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      if (rk->sim->writer)
        ts_archive_writer_collective_begin (rk->sim->writer, rk->location, ts_rank_now (rk));
      x->tag = TS_COLLECTIVE_TAG;
      TS_AT (x->pc, COLL_RUN);
      if (!ts_collective_step (x))
        return FALSE;
      /* Its MPI_COLLECTIVE_END is written when the call leaves, after what
       * the call costs beyond the transfers: as tracers write it, and where
       * Scalasca's completion patterns end. */
      rk->coll_end = *a;
      rk->coll_end_pending = TRUE;
    }
  TS_DONE (x->pc);
}

/* The pending MPI_COLLECTIVE_END of the collective call now leaving. */
static void
write_collective_end (TsRank *rk)
{
  const TsAction *a = &rk->coll_end;
  rk->coll_end_pending = FALSE;
  if (rk->sim->writer)
    ts_archive_writer_collective_end (rk->sim->writer, rk->location, ts_rank_now (rk), a->op, a->comm,
                                      a->peer, a->bytes, a->bytes_recv);
}

enum { PART_START, PART_RUN };

static gboolean
do_partitioned (TsProgress *x)
{
  switch (x->pc)
    {
    case PART_START:
      charge_overhead (x->rk, x->a);
      TS_AT (x->pc, PART_RUN);
      if (!ts_partitioned_step (x))
        return FALSE;
    }
  TS_DONE (x->pc);
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
  [TS_ACTION_TEAM_BEGIN] = ts_do_team_begin,
  [TS_ACTION_THREAD_COMPUTE] = ts_do_thread_compute,
  [TS_ACTION_TEAM_FORK] = ts_do_team_fork,
  [TS_ACTION_TEAM_BARRIER] = ts_do_team_barrier,
  [TS_ACTION_THREAD_WAIT] = ts_do_nothing,
  [TS_ACTION_THREAD_AWAIT] = ts_do_thread_await,
  [TS_ACTION_THREAD_ARRIVE] = ts_do_thread_arrive,
  [TS_ACTION_LOCK] = ts_do_lock,
  [TS_ACTION_THREAD_LOCK] = ts_do_thread_compute,
};

gboolean
ts_rank_do (TsProgress *x)
{
  return handlers[x->a->kind](x);
}
