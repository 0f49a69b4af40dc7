#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/replay-private.h"
#include "sim/platform.h"
#include "calibrate/eager.h"

#include <simgrid/engine.h>
#include <simgrid/zone.h>
#include <xbt/log.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model/channel.h"
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

G_DEFINE_QUARK (ts-replay-error-quark, ts_replay_error)

void
ts_replay_options_init (TsReplayOptions *o)
{
  memset (o, 0, sizeof *o);
  o->eager_threshold = TS_EAGER_DEFAULT_THRESHOLD;
  o->trace_speed = 1e9;
}

void
ts_replay_result_clear (TsReplayResult *r)
{
  g_clear_pointer (&r->rank_end, g_array_unref);
  g_clear_pointer (&r->region_seconds, g_free);
}

/* ---- requests ------------------------------------------------------------- */

static void
request_free (gpointer p)
{
  TsRequest *r = p;
  g_free (r->job);
  g_free (r);
}

/* ---- the predicted timeline ---------------------------------------------- */

/* Region times of the predicted timeline, for the before/after table. */
static void
account_region (TsRank *rk, const TsAction *a, double now)
{
  if (a->kind == TS_ACTION_ENTER)
    {
      /* Grow and assign in place: appending copies through memmove, which
       * showed in profiles of 1024-rank replays. */
      GArray *open = rk->open_regions;
      g_array_set_size (open, open->len + 1);
      g_array_index (open, TsOpenRegion, open->len - 1) = (TsOpenRegion) { a->region, now };
      return;
    }
  guint depth = rk->open_regions->len;
  while (depth > 0 && g_array_index (rk->open_regions, TsOpenRegion, depth - 1).region != a->region)
    depth--;
  if (depth == 0)
    return;
  TsOpenRegion *o = &g_array_index (rk->open_regions, TsOpenRegion, depth - 1);
  rk->sim->region_seconds[a->region] += now - o->since;
  g_array_set_size (rk->open_regions, depth - 1);
}

static void
write_marker (TsRank *rk, const TsAction *a)
{
  account_region (rk, a, ts_rank_now (rk));
  TsArchiveWriter *w = rk->sim->writer;
  if (!w)
    return;
  if (a->kind == TS_ACTION_ENTER)
    ts_archive_writer_enter (w, rk->rank, ts_rank_now (rk), a->region);
  else
    ts_archive_writer_leave (w, rk->rank, ts_rank_now (rk), a->region);
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
  sg_comm_t c = ts_rank_isend (rk, a->comm, a->peer, a->tag, a->bytes);
  gboolean sendrecv = ts_trace_region_call (rk->sim->trace, a->call) == TS_CALL_SENDRECV;
  rk->call_waited_for_receiver |= c != NULL;
  TsBlockedOn on = { "send to", (gint32) ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer),
                     a->comm, a->tag, a->bytes };
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
  TsBlockedOn on = { "wait for its isend to",
                     (gint32) ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer),
                     a->comm, a->tag, a->bytes };
  TsRequest *r = request_new (rk, a->req, &on);
  r->post = *a;
  r->comm = ts_rank_isend (rk, a->comm, a->peer, a->tag, a->bytes);
}

static void
do_irecv (TsRank *rk, const TsAction *a)
{
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
  TsBlockedOn on = { "wait for its irecv from",
                     (gint32) ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer),
                     a->comm, a->tag, a->bytes };
  TsRequest *r = request_new (rk, a->req, &on);
  r->post = *a;
  ts_rank_note_receive_post (rk, a);
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

static void
progress (TsSimulation *sim)
{
  if (!sim->options->progress || sim->actions_total == 0)
    return;
  guint pct = (guint) (100.0 * sim->actions_done / sim->actions_total);
  if (pct > 100)
    pct = 100;
  if (pct == sim->progress_shown)
    return;
  sim->progress_shown = pct;
  char bar[41];
  memset (bar, '#', pct * 40 / 100);
  memset (bar + pct * 40 / 100, '.', 40 - pct * 40 / 100);
  bar[40] = '\0';
  fprintf (stderr, "\rreplaying [%s] %3u%%", bar, pct);
  if (pct == 100)
    fputc ('\n', stderr);
}

static void
rank_main (int argc, char **argv)
{
  TsRank *rk = sg_actor_self_get_data ();
  TsSimulation *sim = rk->sim;
  TsAction a;
  GError *error = NULL;

  /* Ranks did not start together (MPI_Init returns at different times):
   * each starts at its first event's time after the earliest rank's. */
  const TsCalibration *pr = sim->calibration;
  double late = ts_calibration_rank_stats (pr, rk->rank)->first_time - ts_calibration_start (pr);
  rk->start_time = simgrid_get_clock ();
  if (late > 0 && isfinite (late))
    {
      sg_actor_sleep_for (late);
      rk->simcalls++;
    }
  while (sim->error == NULL && ts_action_stream_next (sim->stream, rk->rank, &a, &error))
    {
      if (rk->hypotheses && !ts_hypothesis_rank_apply (rk->hypotheses, &a, &error))
        break;
      handlers[a.kind](rk, &a);
      rk->actions++;
      if ((++sim->actions_done & 0xfff) == 0)
        progress (sim);
    }
  if (error && sim->error == NULL)
    sim->error = error;
  else
    g_clear_error (&error);
  ts_rank_flush (rk);
  /* A trace cut inside an MPI_Sendrecv: its send was not waited for. */
  if (rk->sendrecv_send)
    sg_comm_unref (g_steal_pointer (&rk->sendrecv_send));
  /* Requests never waited for: the program did not wait either. */
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, rk->requests);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      TsRequest *r = value;
      if (r->comm)
        sg_comm_unref (r->comm);
      r->comm = NULL;
      if (r->helper)
        sg_actor_unref (r->helper); /* it finishes on its own */
      r->helper = NULL;
    }
  rk->end_time = ts_rank_now (rk); /* with a sub-tick remainder */
  rk->done = TRUE;
}

/* ---- set-up ---------------------------------------------------------------- */

static gboolean
map_ranks (TsSimulation *sim, GError **error)
{
  const TsReplayOptions *o = sim->options;
  size_t n_hosts = sg_host_count ();
  sg_host_t *hosts = sg_host_list ();
  gboolean ok = TRUE;

  if (o->hostfile)
    {
      g_autofree char *text = NULL;
      if (!g_file_get_contents (o->hostfile, &text, NULL, error))
        {
          free (hosts);
          return FALSE;
        }
      g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
      guint r = 0;
      for (guint i = 0; lines[i] && r < sim->n_ranks && ok; i++)
        {
          char *name = g_strstrip (lines[i]);
          if (*name == '\0' || *name == '#')
            continue;
          sg_host_t h = sg_host_by_name (name);
          if (!h)
            {
              g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                           "%s:%u: host '%s' is not in the platform %s", o->hostfile, i + 1,
                           name, o->platform_path);
              ok = FALSE;
              break;
            }
          sim->ranks[r++].host = h;
        }
      if (ok && r < sim->n_ranks)
        {
          g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                       "%s: names %u hosts, but the trace has %u ranks", o->hostfile, r,
                       sim->n_ranks);
          ok = FALSE;
        }
    }
  else
    {
      /* Block mapping: fill each host's cores in platform order. */
      guint slots = 0;
      for (size_t h = 0; h < n_hosts; h++)
        slots += MAX (1, sg_host_core_count (hosts[h]));
      if (slots < sim->n_ranks)
        {
          g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                       "%s: the platform has %zu hosts with %u cores in all, but the trace "
                       "has %u ranks (one rank per core; give a bigger platform or a hostfile)",
                       o->platform_path, n_hosts, slots, sim->n_ranks);
          ok = FALSE;
        }
      guint r = 0;
      for (size_t h = 0; h < n_hosts && ok && r < sim->n_ranks; h++)
        for (int c = 0; c < MAX (1, sg_host_core_count (hosts[h])) && r < sim->n_ranks; c++)
          sim->ranks[r++].host = hosts[h];
    }
  free (hosts);
  if (ok && !o->exact_cpu)
    {
      /* Ranks that never share a core compute at the host's full speed. */
      g_autoptr (GHashTable) per_host = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint r = 0; r < sim->n_ranks; r++)
        {
          gpointer n = g_hash_table_lookup (per_host, sim->ranks[r].host);
          g_hash_table_insert (per_host, sim->ranks[r].host,
                               GUINT_TO_POINTER (GPOINTER_TO_UINT (n) + 1));
        }
      for (guint r = 0; r < sim->n_ranks; r++)
        sim->ranks[r].exclusive_cpu
          = GPOINTER_TO_UINT (g_hash_table_lookup (per_host, sim->ranks[r].host))
            <= (guint) MAX (1, sg_host_core_count (sim->ranks[r].host));
    }
  return ok;
}

static void
report_deadlock (TsSimulation *sim, GError **error)
{
  GString *msg = g_string_new ("the replay deadlocks: ");
  guint blocked = 0;
  for (guint r = 0; r < sim->n_ranks; r++)
    if (!sim->ranks[r].done)
      blocked++;
  g_string_append_printf (msg, "%u of %u ranks are blocked forever at t=%.9f s:", blocked,
                          sim->n_ranks, simgrid_get_clock ());
  for (guint r = 0; r < sim->n_ranks; r++)
    {
      TsRank *rk = &sim->ranks[r];
      if (rk->done)
        continue;
      const TsBlockedOn *b = &rk->blocked;
      g_string_append_printf (msg, "\n  rank %u: %s", r, rk->blocked_now ? b->what : "blocked");
      if (rk->blocked_now && b->peer != TS_NO_RANK)
        g_string_append_printf (msg, " rank %d (communicator %s, tag %d, %" G_GUINT64_FORMAT
                                " bytes)", b->peer, ts_trace_comm_name (sim->trace, b->comm),
                                b->tag, b->bytes);
      g_string_append_printf (msg, " after %" G_GUINT64_FORMAT " actions", rk->actions);
    }
  /* EZTrace records no source for irecvs: which message each took is the
   * calibration's guess, harmless while sends are eager, fatal to a rendezvous
   * send whose receiver was guessed to take another message first. */
  guint64 guessed = 0;
  for (guint r = 0; r < sim->n_ranks; r++)
    {
      const GArray *inferred = ts_calibration_inferred (sim->calibration, r);
      for (guint i = 0; i < inferred->len; i++)
        guessed += g_array_index (inferred, TsEnvelope, i).peer != TS_NO_RANK;
    }
  if (guessed > 0)
    g_string_append_printf (msg, "\n  %" G_GUINT64_FORMAT " receives of this trace recorded no "
                            "source and were matched to messages by send order; messages of "
                            "%" G_GUINT64_FORMAT " bytes or more wait for their receiver "
                            "(--eager-threshold): a larger threshold cannot deadlock on a wrong "
                            "match", guessed, sim->options->eager_threshold);
  g_set_error_literal (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_DEADLOCK, msg->str);
  g_string_free (msg, TRUE);
}

static gboolean engine_started;

/* The command line SimGrid is initialised with: tracesim's own settings,
 * the [network] hypotheses, then the user's --cfg items. NULL-terminated;
 * the array owns its strings. */
static GPtrArray *
engine_words (const TsReplayOptions *o)
{
  GPtrArray *args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup ("tracesim"));
  g_ptr_array_add (args, g_strdup ("--cfg=network/model:CM02"));
  g_ptr_array_add (args, g_strdup ("--cfg=network/crosstraffic:0"));
  g_ptr_array_add (args, g_strdup ("--log=root.thres:critical"));
  g_ptr_array_add (args, g_strdup ("--log=root.fmt:%m%n"));
  /* Its "Oops! Deadlock detected" line: tracesim reports deadlocks itself,
   * naming the blocked ranks. */
  g_ptr_array_add (args, g_strdup ("--log=ker_engine.app:file:/dev/null"));
  /* [network] hypotheses: CM02 scales every link's latency and bandwidth. */
  if (o->hypotheses && ts_hypotheses_latency_factor (o->hypotheses) != 1)
    g_ptr_array_add (args, g_strdup_printf ("--cfg=network/latency-factor:%.17g",
                                            ts_hypotheses_latency_factor (o->hypotheses)));
  if (o->hypotheses && ts_hypotheses_bandwidth_factor (o->hypotheses) != 1)
    g_ptr_array_add (args, g_strdup_printf ("--cfg=network/bandwidth-factor:%.17g",
                                            ts_hypotheses_bandwidth_factor (o->hypotheses)));
  for (guint i = 0; o->simgrid_cfg && o->simgrid_cfg[i]; i++)
    g_ptr_array_add (args, g_strdup (o->simgrid_cfg[i]));
  g_ptr_array_add (args, NULL);
  return args;
}

/* Initialise SimGrid with engine_words(). It removes the words it took from
 * the argument vector it is given, so that vector is a copy. */
static void
init_engine (const TsReplayOptions *o)
{
  g_autoptr (GPtrArray) words = engine_words (o);
  g_autofree char **argv = g_memdup2 (words->pdata, words->len * sizeof (char *));
  int argc = words->len - 1;
  simgrid_init (&argc, argv);
}

gboolean
ts_replay_check_config (const TsReplayOptions *o, GError **error)
{
  /* SimGrid throws on an unknown key or a malformed value, and a C++
   * exception through C aborts the process: try the configuration in a
   * child, and turn its dying words into an error. tracesim's own items
   * are known good. */
  if (!o->simgrid_cfg || !o->simgrid_cfg[0])
    return TRUE;
  int pipe_fds[2];
  if (pipe (pipe_fds) != 0)
    {
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "cannot check the SimGrid configuration: %s", g_strerror (errno));
      return FALSE;
    }
  fflush (NULL);
  pid_t child = fork ();
  if (child == 0)
    {
      close (pipe_fds[0]);
      dup2 (pipe_fds[1], STDERR_FILENO);
      dup2 (pipe_fds[1], STDOUT_FILENO);
      init_engine (o);
      _exit (0);
    }
  close (pipe_fds[1]);
  if (child < 0)
    {
      close (pipe_fds[0]);
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "cannot check the SimGrid configuration: %s", g_strerror (errno));
      return FALSE;
    }
  GString *said = g_string_new (NULL);
  char buf[4096];
  ssize_t got;
  while ((got = read (pipe_fds[0], buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
    if (got > 0 && said->len < 64 * 1024)   /* SimGrid's reason, not its backtrace */
      g_string_append_len (said, buf, got);
  close (pipe_fds[0]);
  int status = 0;
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  gboolean ok = WIFEXITED (status) && WEXITSTATUS (status) == 0;
  if (!ok)
    {
      /* "Uncaught exception std::range_error: invalid double": its message. */
      g_auto (GStrv) lines = g_strsplit (said->str, "\n", 2);
      const char *why = lines[0] && *lines[0] ? lines[0] : "it stopped the simulator";
      const char *colon = g_str_has_prefix (why, "Uncaught exception") ? strchr (why, ':') : NULL;
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "SimGrid rejects the configuration (--cfg): %s", colon ? colon + 2 : why);
    }
  g_string_free (said, TRUE);
  return ok;
}

gboolean
ts_replay_run (const TsTrace *trace, const TsCalibration *calibration, const TsReplayOptions *o,
               TsReplayResult *result, GError **error)
{
  g_return_val_if_fail (o->platform_path != NULL, FALSE);
  memset (result, 0, sizeof *result);

  if (engine_started)
    {
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "SimGrid runs one simulation per process");
      return FALSE;
    }
  if (!g_file_test (o->platform_path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "%s: no such platform file", o->platform_path);
      return FALSE;
    }
  engine_started = TRUE;

  init_engine (o);

  /* SimGrid aborts the process on a malformed platform file; tracesim does
   * not check it first yet (issue "Hostile input and faults"). */
  simgrid_load_platform (o->platform_path);

  TsSimulation sim = { 0 };
  sim.trace = trace;
  sim.calibration = calibration;
  sim.options = o;
  sim.n_ranks = ts_trace_n_ranks (trace);
  sim.ranks = g_new0 (TsRank, sim.n_ranks);
  sim.region_seconds = g_new0 (double, ts_trace_n_regions (trace));
  sim.actions_total = ts_calibration_actions (calibration);

  gboolean ok = map_ranks (&sim, error);
  sim.clock_tick = 1.0 / (double) ts_trace_timer_resolution (trace);
  sim.platform_is_traced
    = sg_zone_get_property_value (sg_zone_get_root (), TS_PLATFORM_TRACED_NETWORK) != NULL;
  sim.traced_network_known = ts_calibration_network (calibration).samples > 0 || sim.platform_is_traced;
  sim.binomial_tree = o->binomial_tree;
  sim.receiver_posts = g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free,
                                              (GDestroyNotify) g_queue_free);
  if (ok)
    {
      sim.stream = ts_calibration_stream_open (calibration, trace, error);
      ok = sim.stream != NULL;
    }
  if (ok && o->predicted_dir)
    {
      g_autofree char *dir = g_strdup (o->predicted_dir);
      sim.writer = ts_archive_writer_new (dir, "traces", sim.n_ranks, error);
      if (sim.writer)
        ts_archive_writer_set_origin (sim.writer, ts_trace_creator (trace));
      ok = sim.writer != NULL;
      for (guint i = 0; ok && i < ts_trace_n_regions (trace); i++)
        ts_archive_writer_define_region (sim.writer, ts_trace_region_name (trace, i),
                                         ts_trace_region_call (trace, i) == TS_CALL_USER
                                         ? TS_REGION_USER : TS_REGION_MPI);
      /* Communicator ids must equal the trace's indices: the writer's world is 0. */
      for (guint c = 0; ok && c < ts_trace_n_comms (trace); c++)
        {
          if (c == ts_trace_world_comm (trace) && c == 0)
            continue;
          guint n = ts_trace_comm_size (trace, c);
          const guint32 *m = ts_trace_comm_members (trace, c);
          guint32 self = 0;
          ts_archive_writer_define_comm (sim.writer, ts_trace_comm_name (trace, c), m ? n : 1,
                                         m ? m : &self);
        }
    }

  for (guint r = 0; ok && r < sim.n_ranks; r++)
    {
      TsRank *rk = &sim.ranks[r];
      rk->sim = &sim;
      rk->rank = r;
      rk->speed = sg_host_get_speed (rk->host);
      rk->mailboxes = g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free, NULL);
      rk->icoll_seq = g_new0 (guint32, ts_trace_n_comms (trace));
      rk->open_regions = g_array_new (FALSE, FALSE, sizeof (TsOpenRegion));
      ts_partitioned_rank_init (rk);
      if (o->hypotheses)
        rk->hypotheses = ts_hypothesis_rank_new (o->hypotheses, r, G_MAXUINT);
      rk->requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, request_free);
      char name[32];
      g_snprintf (name, sizeof name, "rank-%u", r);
      sg_actor_t actor = sg_actor_init (name, rk->host);
      sg_actor_set_data (actor, rk);
      sg_actor_start (actor, rank_main, 0, NULL);
    }

  if (ok)
    {
      gint64 t_run = g_get_monotonic_time ();
      simgrid_run ();
      g_debug ("simulation: %.3f s wall", (g_get_monotonic_time () - t_run) / 1e6);
      if (sim.error)
        {
          g_propagate_error (error, g_steal_pointer (&sim.error));
          ok = FALSE;
        }
      else
        {
          gboolean all_done = TRUE;
          for (guint r = 0; r < sim.n_ranks; r++)
            all_done &= sim.ranks[r].done;
          if (!all_done)
            {
              report_deadlock (&sim, error);
              ok = FALSE;
            }
        }
    }

  if (ok)
    {
      result->n_ranks = sim.n_ranks;
      result->rank_end = g_array_sized_new (FALSE, FALSE, sizeof (double), sim.n_ranks);
      double start = INFINITY, end = -INFINITY;
      for (guint r = 0; r < sim.n_ranks; r++)
        start = MIN (start, sim.ranks[r].start_time);
      for (guint r = 0; r < sim.n_ranks; r++)
        {
          double e = sim.ranks[r].end_time - start;
          g_array_append_val (result->rank_end, e);
          end = MAX (end, sim.ranks[r].end_time);
          result->actions_replayed += sim.ranks[r].actions;
          result->simcalls += sim.ranks[r].simcalls;
        }
      result->runtime = end - start;
      result->n_regions = ts_trace_n_regions (trace);
      result->region_seconds = g_steal_pointer (&sim.region_seconds);
    }
  if (sim.writer)
    {
      if (ok && o->before_close)
        ok = o->before_close (sim.writer, o->before_close_data, error);
      gint64 t_close = g_get_monotonic_time ();
      if (ok)
        ok = ts_archive_writer_close (sim.writer, error);
      else
        ts_archive_writer_abort (sim.writer);
      g_debug ("predicted archive: %.3f s wall to finish",
               (g_get_monotonic_time () - t_close) / 1e6);
    }
  for (guint r = 0; r < sim.n_ranks; r++)
    {
      g_clear_pointer (&sim.ranks[r].mailboxes, g_hash_table_unref);
      g_clear_pointer (&sim.ranks[r].requests, g_hash_table_unref);
      g_clear_pointer (&sim.ranks[r].icoll_seq, g_free);
      g_clear_pointer (&sim.ranks[r].open_regions, g_array_unref);
      ts_partitioned_rank_clear (&sim.ranks[r]);
      g_clear_pointer (&sim.ranks[r].hypotheses, ts_hypothesis_rank_free);
    }
  g_clear_pointer (&sim.stream, ts_action_stream_free);
  g_clear_pointer (&sim.receiver_posts, g_hash_table_unref);
  g_free (sim.ranks);
  g_free (sim.region_seconds);
  g_clear_error (&sim.error);
  return ok;
}
