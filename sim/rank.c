/* A rank's side of the simulated world: its clock with pending compute,
 * its mailboxes, and the sends, receives and waits that the action handlers
 * (actions.c), collectives and partitioned operations are built from. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"

#include <math.h>
#include <string.h>
#include "model/channel.h"

double
ts_rank_now (TsRank *rk)
{
  /* Markers inside a merged burst are stamped before it runs: at the time it
   * will take on an unshared core (a shared one can only make it later, and
   * the archive writer then keeps the events in order). */
  return rk->sim->world->now (rk->sim)
         + rk->pending_compute * rk->sim->options->trace_speed / rk->speed;
}

/* A leaf stops: when, so that resuming tells how long it was stopped. */
static void
stop_now (TsProgress *x)
{
  x->stopped = TRUE;
  x->stopped_at = x->rk->sim->world->now (x->rk->sim);
}

/* A leaf resumes after its stop: the seconds it was stopped. */
static double
resume (TsProgress *x)
{
  x->stopped = FALSE;
  return x->rk->sim->world->now (x->rk->sim) - x->stopped_at;
}

/* Time a rank's own replay spent stopped on the simulated world (waiting,
 * transfers) is simulated time; a non-blocking collective's progress runs
 * beside it and is not the rank's. */
static void
resume_simulated (TsProgress *x)
{
  double seconds = resume (x);
  if (x->own)
    x->rk->simulated += seconds;
}

/* Whether a burst of @on_host seconds on @rk's host (@traced in the trace,
 * of its thread @thread; -1: the rank's own) is beyond what the simulated
 * clock resolves; if so, the simulation's error says so. */
static gboolean
too_long (TsRank *rk, gint thread, double on_host, double traced)
{
  if (on_host <= TS_MAX_SIMULATED_SECONDS)
    return FALSE;
  g_autofree char *who = thread < 0 ? g_strdup_printf ("rank %u", rk->rank)
                                    : g_strdup_printf ("rank %u, thread %d", rk->rank, thread);
  if (!rk->sim->error)
    g_set_error (&rk->sim->error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_TRACE,
                 "%s: a compute burst of %.3g s on its host (%.3g s in the trace after the "
                 "hypotheses) is beyond what the simulated clock resolves (%.3g s, a "
                 "microsecond in a double): check the hypotheses' factors and the host speeds",
                 who, on_host, traced, TS_MAX_SIMULATED_SECONDS);
  return TRUE;
}

gboolean
ts_step_flush (TsProgress *x)
{
  TsRank *rk = x->rk;
  if (x->stopped)
    {
      /* A burst on a shared core takes longer than alone on it: that
       * stretch is the simulation's (TsRankTime). */
      rk->simulated += resume (x) - x->burst_seconds;
      rk->simcalls++;
      rk->pending_compute = 0;
      return TRUE;
    }
  /* CPU time below the trace's clock resolution is rounding noise of the
   * durations it was derived from: it waits for the next burst rather than
   * cost a simulated step of its own (ts_rank_now still counts it, so
   * nothing is lost). */
  if (rk->pending_compute < rk->sim->clock_tick)
    return TRUE;
  double flops = rk->pending_compute * rk->sim->options->trace_speed;
  double seconds = flops / rk->speed;
  if (too_long (rk, -1, seconds, rk->pending_compute))
    {
      rk->pending_compute = 0;
      return TRUE;
    }
  x->stop = (TsStop) { .kind = TS_STOP_BURST, .exclusive = rk->exclusive_cpu,
                       .seconds = seconds, .flops = flops };
  x->burst_seconds = seconds;
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_burst (TsProgress *x, double seconds)
{
  TsRank *rk = x->rk;
  if (x->stopped)
    {
      resume (x);
      rk->simcalls++;
      return TRUE;
    }
  double flops = seconds * rk->sim->options->trace_speed;
  double on_host = flops / rk->speed;
  if (too_long (rk, x->a->peer, on_host, seconds))
    return TRUE;
  if (seconds < rk->sim->clock_tick)
    return TRUE;
  x->stop = (TsStop) { .kind = TS_STOP_BURST, .exclusive = rk->exclusive_cpu,
                       .seconds = on_host, .flops = flops };
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_sleep (TsProgress *x, double seconds)
{
  if (x->stopped)
    {
      x->rk->late_start += resume (x);
      x->rk->simcalls++;
      return TRUE;
    }
  x->stop = (TsStop) { .kind = TS_STOP_BURST, .exclusive = TRUE, .seconds = seconds };
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_idle (TsProgress *x, double seconds)
{
  if (x->stopped)
    {
      resume_simulated (x);
      x->rk->simcalls++;
      return TRUE;
    }
  x->stop = (TsStop) { .kind = TS_STOP_BURST, .exclusive = TRUE, .seconds = seconds };
  stop_now (x);
  return FALSE;
}

/* The payload of a message is a time (double) carried in the pointer itself:
 * no allocation per message. */
G_STATIC_ASSERT (sizeof (void *) == sizeof (double));

void *
ts_time_payload (double t)
{
  /* SimGrid refuses a NULL payload, and 0.0 is all zero bits: send -0.0,
   * which compares and combines as 0. */
  if (t == 0)
    t = -0.0;
  void *p;
  memcpy (&p, &t, sizeof p);
  return p;
}

static double
payload_time (void *payload)
{
  double t;
  memcpy (&t, &payload, sizeof t);
  return t;
}

void *
ts_rank_payload (TsRank *rk)
{
  return ts_time_payload (rk->causal);
}

void
ts_progress_absorb (TsProgress *x, void *landing)
{
  double t = payload_time (landing);
  if (t > *x->causal)
    *x->causal = t;
}

guint64
ts_rank_wire_bytes (const TsRank *rk, guint64 bytes)
{
  if (!rk->sim->platform_is_traced)
    return bytes;
  const TsCalibration *p = rk->sim->calibration;
  return (guint64) llround ((double) bytes / ts_calibration_bandwidth_factor (p, ts_size_class (bytes)));
}

/* The mailbox where rank @dst's guessed receives listen. */
static TsMailbox
guessed_mailbox (guint dst)
{
  return (TsMailbox) { G_MAXUINT32, dst, G_MAXUINT32, 0, TS_MAILBOX_P2P, TS_MAILBOX_P2P };
}

/* Where a point-to-point message goes: its channel's mailbox, or, when
 * receives with guessed envelopes take messages as they arrive, the
 * receiver's guessed mailbox if the calibration found that this message (the
 * k-th on its channel) went to such a receive. @unreceived: no receive of
 * the trace took it. */
static TsMailbox
send_mailbox (TsRank *rk, guint dst, guint32 comm, gint32 tag, gboolean *unreceived)
{
  *unreceived = FALSE;
  if (rk->sent_on && tag >= 0) /* collectives use negative tags */
    {
      const TsCalibration *cal = rk->sim->calibration;
      TsChannel ch = { rk->rank, dst, comm, tag };
      guint32 *sent = g_hash_table_lookup (rk->sent_on, &ch);
      if (!sent)
        {
          sent = g_new0 (guint32, 1);
          g_hash_table_insert (rk->sent_on, g_memdup2 (&ch, sizeof ch), sent);
        }
      guint32 k = (*sent)++;
      *unreceived = ts_calibration_unreceived (cal, &ch, k);
      gboolean guessed = rk->sim->guessed_as_arrived
                         && (*unreceived || ts_calibration_to_guessed_receive (cal, &ch, k));
      gboolean status = rk->sim->status_as_arrived
                        && (*unreceived || ts_calibration_to_status_receive (cal, &ch, k));
      if (guessed || status)
        return guessed_mailbox (dst);
    }
  return (TsMailbox) { rk->rank, dst, comm, tag, TS_MAILBOX_P2P, TS_MAILBOX_P2P };
}

gboolean
ts_rank_send_buffered (const TsRank *rk, guint dst, guint64 bytes)
{
  if (!rk->sim->buffered_sends)
    return FALSE;
  guint64 pair = ts_send_pair (rk->rank, dst);
  const guint64 *upto = g_hash_table_lookup (rk->sim->buffered_sends, &pair);
  return upto && bytes <= *upto;
}

TsComm *
ts_rank_isend (TsRank *rk, guint32 comm, guint peer, gint32 tag, guint64 bytes, gboolean buffered)
{
  const TsTrace *t = rk->sim->trace;
  guint dst = ts_trace_comm_world_rank (t, comm, rk->rank, peer);
  gboolean unreceived;
  TsMailbox mb = send_mailbox (rk, dst, comm, tag, &unreceived);
  rk->simcalls++;
  /* A message no receive took in the trace cannot wait for one here; nor
   * can one whose waiting deadlocked an earlier replay (the program ended,
   * so the library buffered it). Eager: the sender is done once the
   * message is handed over. */
  gboolean eager = bytes < rk->sim->options->eager_threshold || unreceived || buffered;
  return rk->sim->world->post_send (rk, &mb, ts_rank_wire_bytes (rk, bytes),
                                    ts_time_payload (rk->causal),
                                    eager ? TS_SEND_EAGER : TS_SEND_RENDEZVOUS);
}

TsComm *
ts_rank_irecv (TsRank *rk, guint32 comm, guint peer, gint32 tag, guint64 bytes, void **landing)
{
  const TsTrace *t = rk->sim->trace;
  guint src = ts_trace_comm_world_rank (t, comm, rk->rank, peer);
  TsMailbox mb = { src, rk->rank, comm, tag, TS_MAILBOX_P2P, TS_MAILBOX_P2P };
  rk->simcalls++;
  *landing = ts_time_payload (-INFINITY);
  return rk->sim->world->post_recv (rk, &mb, landing);
}

TsComm *
ts_rank_irecv_guessed (TsRank *rk, void **landing)
{
  rk->simcalls++;
  *landing = ts_time_payload (-INFINITY);
  TsMailbox mb = guessed_mailbox (rk->rank);
  return rk->sim->world->post_recv (rk, &mb, landing);
}

void
ts_rank_note_post (TsRank *rk, guint src, guint32 comm, gint32 tag, guint64 bytes, double time)
{
  if (bytes < rk->sim->options->eager_threshold)
    return;
  TsChannel key = { src, rk->rank, comm, tag };
  GQueue *q = g_hash_table_lookup (rk->sim->receiver_posts, &key);
  if (!q)
    {
      q = g_queue_new ();
      g_hash_table_insert (rk->sim->receiver_posts, g_memdup2 (&key, sizeof key), q);
    }
  /* Times travel in the pointer, as message payloads do. */
  g_queue_push_tail (q, ts_time_payload (time));
}

void
ts_rank_note_receive_post (TsRank *rk, const TsAction *a)
{
  /* The receive is posted when its call began (an irecv's post event comes
   * inside the call). */
  ts_rank_note_post (rk, ts_trace_comm_world_rank (rk->sim->trace, a->comm, rk->rank, a->peer),
                     a->comm, a->tag, a->bytes, rk->in_call ? rk->call_enter : a->time);
}

double
ts_rank_pop_post (TsRank *rk, const TsBlockedOn *send)
{
  TsChannel key = { rk->rank, (guint32) send->peer, send->comm, send->tag };
  GQueue *q = g_hash_table_lookup (rk->sim->receiver_posts, &key);
  void *post = q ? g_queue_pop_head (q) : NULL;
  return post ? payload_time (post) : NAN;
}

void
ts_rank_take_receiver_post (TsRank *rk, const TsBlockedOn *send)
{
  double t = ts_rank_pop_post (rk, send);
  /* None: the receive's size was below the threshold, or its source was a
   * guess. The call then falls back on its fastest sibling's cost. */
  if (isnan (t))
    return;
  rk->receiver_post = isnan (rk->receiver_post) ? t : MAX (rk->receiver_post, t);
}

/* What the rank's own replay blocks on, for the deadlock report (the
 * progress of its non-blocking collectives is not reported). Every wait
 * counts as an operation on the simulated world. */
static void
blocked_begin (TsProgress *x, const TsBlockedOn *on)
{
  if (x->own)
    {
      x->rk->blocked = *on;
      x->rk->blocked_now = TRUE;
    }
  x->rk->simcalls++;
}

static void
blocked_end (TsProgress *x)
{
  if (x->own)
    x->rk->blocked_now = FALSE;
}

/* A blocking receive is one call (SimGrid posts and waits together), where
 * an irecv and its wait would take two. */
gboolean
ts_step_recv (TsProgress *x, guint32 comm, guint peer, gint32 tag, const TsBlockedOn *on)
{
  TsRank *rk = x->rk;
  if (x->stopped)
    {
      resume_simulated (x);
      blocked_end (x);
      ts_progress_absorb (x, x->stop.landing);
      return TRUE;
    }
  guint src = ts_trace_comm_world_rank (rk->sim->trace, comm, rk->rank, peer);
  blocked_begin (x, on);
  x->stop = (TsStop) { .kind = TS_STOP_RECV,
                       .mailbox = { src, rk->rank, comm, tag, TS_MAILBOX_P2P, TS_MAILBOX_P2P } };
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_wait (TsProgress *x, TsComm *comm, const TsBlockedOn *on)
{
  if (x->stopped)
    {
      resume_simulated (x);
      blocked_end (x);
      /* A rendezvous send waited in the trace, at least, until its
       * receiver's call in which it moved here began. */
      double t = x->rk->sim->world->receiver_progress (x->stop.comm);
      if (!isnan (t))
        x->rk->receiver_post = isnan (x->rk->receiver_post) ? t : MAX (x->rk->receiver_post, t);
      return TRUE;
    }
  if (!comm)
    return TRUE;
  blocked_begin (x, on);
  x->stop = (TsStop) { .kind = TS_STOP_WAIT, .comm = comm };
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_wait_any (TsProgress *x, TsComm **comms, guint n, const TsBlockedOn *on)
{
  if (x->stopped)
    {
      resume_simulated (x);
      blocked_end (x);
      return TRUE;
    }
  blocked_begin (x, on);
  x->stop = (TsStop) { .kind = TS_STOP_WAIT_ANY, .comms = comms, .n_comms = n };
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_join (TsProgress *x, gpointer helper)
{
  if (x->stopped)
    {
      resume_simulated (x);
      return TRUE;
    }
  x->stop = (TsStop) { .kind = TS_STOP_JOIN, .helper = helper };
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_park (TsProgress *x, const TsBlockedOn *on)
{
  if (x->stopped)
    {
      x->rk->blocked_now = FALSE;
      resume_simulated (x);
      return TRUE;
    }
  x->rk->blocked = *on;
  x->rk->blocked_now = TRUE;
  x->stop = (TsStop) { .kind = TS_STOP_PARK };
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_hold (TsProgress *x, const TsBlockedOn *on)
{
  if (x->stopped)
    {
      if (x->own)
        x->rk->blocked_now = FALSE;
      resume_simulated (x);
      return TRUE;
    }
  if (x->own && on)
    {
      x->rk->blocked = *on;
      x->rk->blocked_now = TRUE;
    }
  x->stop = (TsStop) { .kind = TS_STOP_HOLD };
  stop_now (x);
  return FALSE;
}

gboolean
ts_step_join_thread (TsProgress *x, gpointer job, gboolean passive)
{
  if (!ts_step_join (x, job))
    {
      x->stop.passive = TRUE;
      x->stop.spins = !passive;
      return FALSE;
    }
  return TRUE;
}

void
ts_progress_init (TsProgress *x, TsRank *rk, gboolean own, double *causal, const TsAction *a,
                  gint32 tag)
{
  memset (x, 0, sizeof *x);
  x->rk = rk;
  x->own = own;
  x->causal = causal;
  x->a = a;
  x->tag = tag;
}

void
ts_progress_clear (TsProgress *x)
{
  g_clear_pointer (&x->coll.comms, g_free);
  g_clear_pointer (&x->coll.landing, g_free);
}
