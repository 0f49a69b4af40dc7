/* The maestro engine: the replay's progresses run from SimGrid's maestro,
 * with no actor, no context switch and no stack per rank. Messages are
 * matched here, per mailbox and in order as SimGrid's mailboxes match them,
 * and a matched pair moves as a host-to-host transfer; compute bursts are
 * timers where a core is the rank's alone, executions where it is shared.
 * It calls no SimGrid function: the engine under it is an ops table
 * (engine-ops.h), SimGrid's (engine-s4u.cpp talks to SimGrid) or a pure-C
 * event queue for tests (engine-queue.c), as sim->engine_ops says.
 *
 * Progresses run at the end of an instant (settled), once every completion
 * of it has been told, so that a failed test of the trace sees whatever
 * completed by then, as a rank's actor did. Those woken by a compute burst
 * run before those woken by a message, as SimGrid handles its CPU model's
 * ended actions before its network model's; each runs until it stops on
 * something that is not done yet. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"
#include "sim/world.h"
#include "sim/engine-ops.h"

#include <math.h>
#include <string.h>

/* MATCHED: a rendezvous pair whose receiver's library has not seen the
 * sender's request yet (TS_MPI_PROGRESS_IN_CALLS): it moves once the
 * receiver is inside an MPI call. */
typedef enum { COMM_POSTED, COMM_MATCHED, COMM_MOVING, COMM_DONE } CommState;

struct TsComm {
  CommState state;
  gboolean send;
  gboolean held;             /* its poster still holds it (not detached nor released) */
  TsRank *rk;                /* its poster: the transfer's end on this side */
  guint64 bytes;             /* a send's wire bytes */
  void *payload;             /* a send's causal time */
  void **landing;            /* where a receive's payload goes */
  TsSendProtocol protocol;   /* a send's */
  double progressed;         /* a moving send: its receiver's progress (receiver_progress) */
  TsComm *peer;              /* the other side, once matched */
  TsProgress *waiter;        /* a progress stopped on it */
  guint64 wait_seq;          /* when it stopped: waiters wake in that order */
  TsComm *next_free;
};

typedef struct {
  GQueue sends, recvs;       /* unmatched, in post order */
} Channel;

typedef struct {
  TsSimulation *sim;
  const TsEngineOps *ops;
  TsEngine *e;
  GHashTable *channels;      /* TsMailbox -> Channel, only while something is unmatched */
  GQueue ready;              /* progresses to run at this instant */
  GQueue woken_cpu, woken_net; /* woken by this instant's completions, in their order */
  guint64 wait_seq;
  /* Communications come from chunks freed together at the end: one
   * allocation per message showed in profiles, and a deadlocked replay
   * leaves some held. */
  GPtrArray *chunks;
  TsComm *free_comms;
  /* Per rank, the receives of rendezvous pairs waiting for it to enter an
   * MPI call (COMM_MATCHED), in match order. */
  GQueue *deferred;
  /* Per rank, its poll while it waits on a shared core (TsMpiWait); NULL
   * when it does not poll. */
  gpointer *polls;
  guint n_polls;
  /* Team threads spinning (TsWorldOps.spin): poll by rank << 32 | thread;
   * counted in n_polls. */
  GHashTable *spins;
  /* Activities started and not completed yet (bursts, executions,
   * transfers; polls are not): none left with polls running means nothing
   * can end any more, and the polls stop so that the run ends there. */
  guint64 flying;
} Maestro;

#define CHUNK_COMMS 4096

static Maestro *
maestro (TsSimulation *sim)
{
  return sim->engine;
}

/* ---- mailboxes --------------------------------------------------------------- */

static guint
mailbox_hash (gconstpointer p)
{
  const TsMailbox *m = p;
  guint h = m->src * 2654435761u;
  h = (h ^ m->dst) * 2654435761u;
  h = (h ^ m->comm) * 2654435761u;
  h = (h ^ (guint32) m->tag) * 2654435761u;
  h = (h ^ m->k) * 2654435761u;
  return (h ^ m->i) * 2654435761u;
}

static gboolean
mailbox_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (TsMailbox)) == 0;
}

static void
channel_free (gpointer p)
{
  Channel *ch = p;
  g_queue_clear (&ch->sends);
  g_queue_clear (&ch->recvs);
  g_free (ch);
}

static TsComm *
comm_new (Maestro *m)
{
  if (!m->free_comms)
    {
      TsComm *chunk = g_new (TsComm, CHUNK_COMMS);
      g_ptr_array_add (m->chunks, chunk);
      for (guint i = 0; i < CHUNK_COMMS; i++)
        chunk[i].next_free = i + 1 < CHUNK_COMMS ? &chunk[i + 1] : NULL;
      m->free_comms = chunk;
    }
  TsComm *c = m->free_comms;
  m->free_comms = c->next_free;
  memset (c, 0, sizeof *c);
  return c;
}

static void
comm_free (Maestro *m, TsComm *c)
{
  c->next_free = m->free_comms;
  m->free_comms = c;
}

static void
transfer (Maestro *m, TsComm *send, TsComm *recv)
{
  send->state = recv->state = COMM_MOVING;
  TsRank *rk = recv->rk;
  send->progressed = send->protocol == TS_SEND_RENDEZVOUS
                        && m->sim->options->mpi_progress == TS_MPI_PROGRESS_IN_CALLS && rk->in_call
                      ? rk->call_enter : NAN;
  m->flying++;
  m->ops->transfer (m->e, send->rk->host, rk->host, (double) send->bytes, recv);
}

/* Whether @rk's MPI library makes progress now: past its end (MPI_Finalize
 * progresses what is left), or stopped on the world inside a call (a wait;
 * only a call waits on the world), or running inside one. Stopped on a
 * burst it computes, even when its markers already entered the call that
 * follows: a rank reads its markers ahead of its pending compute, so
 * in_call alone says nothing of now. */
static gboolean
in_mpi (const TsRank *rk)
{
  const TsProgress *x = rk->progress;
  if (rk->done)
    return TRUE;
  if (x && x->stopped)
    return x->stop.kind != TS_STOP_BURST;
  return rk->in_call;
}

/* A matched pair: it moves now, or once its receiver makes progress. */
static void
matched (Maestro *m, TsComm *send, TsComm *recv)
{
  send->peer = recv;
  recv->peer = send;
  if (send->protocol != TS_SEND_RENDEZVOUS || m->sim->options->mpi_progress == TS_MPI_PROGRESS_ASYNC
      || in_mpi (recv->rk))
    {
      transfer (m, send, recv);
      return;
    }
  send->state = recv->state = COMM_MATCHED;
  g_queue_push_tail (&m->deferred[recv->rk->stream], recv);
}

/* @rk makes progress: the rendezvous messages that waited for it move. */
static void
kick (Maestro *m, TsRank *rk)
{
  TsComm *recv;
  while ((recv = g_queue_pop_head (&m->deferred[rk->stream])))
    transfer (m, recv->peer, recv);
}

/* Post @c on @mb: it matches the first unmatched one of the other side, or
 * waits for one. */
static void
post (Maestro *m, const TsMailbox *mb, TsComm *c)
{
  Channel *ch = g_hash_table_lookup (m->channels, mb);
  if (!ch)
    {
      ch = g_new0 (Channel, 1);
      g_hash_table_insert (m->channels, g_memdup2 (mb, sizeof *mb), ch);
    }
  GQueue *other = c->send ? &ch->recvs : &ch->sends;
  if (g_queue_is_empty (other))
    {
      g_queue_push_tail (c->send ? &ch->sends : &ch->recvs, c);
      return;
    }
  TsComm *o = g_queue_pop_head (other);
  if (g_queue_is_empty (&ch->sends) && g_queue_is_empty (&ch->recvs))
    g_hash_table_remove (m->channels, mb);
  if (c->send)
    matched (m, c, o);
  else
    matched (m, o, c);
}

/* ---- the world's ops ----------------------------------------------------------- */

/* The engine's clock, also once the run is over (a deadlock's report). */
static double
now (TsSimulation *sim)
{
  Maestro *m = maestro (sim);
  return m ? m->ops->now (m->e) : sim->clock_end;
}

/* @rk runs at its own simulated time (posts and tests flush its pending
 * compute first): inside a call, its library progresses what waited. */
static void
progress_point (Maestro *m, TsRank *rk)
{
  if (rk->in_call)
    kick (m, rk);
}

static TsComm *
post_send (TsRank *rk, const TsMailbox *mb, guint64 wire_bytes, void *payload,
           TsSendProtocol protocol)
{
  gboolean detached = protocol == TS_SEND_EAGER;
  Maestro *m = maestro (rk->sim);
  progress_point (m, rk);
  TsComm *c = comm_new (m);
  c->send = TRUE;
  c->held = !detached;
  c->protocol = protocol;
  c->rk = rk;
  c->bytes = wire_bytes;
  c->payload = payload;
  post (m, mb, c);
  return detached ? NULL : c;
}

static TsComm *
post_recv (TsRank *rk, const TsMailbox *mb, void **landing)
{
  Maestro *m = maestro (rk->sim);
  progress_point (m, rk);
  TsComm *c = comm_new (m);
  c->held = TRUE;
  c->rk = rk;
  c->landing = landing;
  post (m, mb, c);
  return c;
}

static gboolean
test (TsRank *rk, TsComm *c)
{
  progress_point (maestro (rk->sim), rk);
  if (c->state != COMM_DONE)
    return FALSE;
  comm_free (maestro (rk->sim), c);
  return TRUE;
}

/* As SimGrid's: a released communication not matched yet stays on its
 * mailbox and may still match (a partitioned receive posted again). */
static void
release_in (Maestro *m, TsComm *c)
{
  c->held = FALSE;
  if (c->state == COMM_DONE)
    comm_free (m, c);
}

static void
release (TsComm *c)
{
  release_in (maestro (c->rk->sim), c);
}

static double
receiver_progress (TsComm *send)
{
  return send->send && send->state == COMM_DONE ? send->progressed : NAN;
}

static void run (Maestro *m, TsProgress *x);

static gpointer
start_icoll (TsRank *rk, TsIcollJob *job)
{
  /* Its first messages are posted before the rank goes on, as its actor's
   * were, with the rank's causal time as it is now. */
  run (maestro (rk->sim), &job->x);
  return job;
}

static void
release_icoll (gpointer job)
{
  /* The job belongs to its request. */
}

/* ---- running progresses ---------------------------------------------------------- */

static gpointer
progress_cookie (TsProgress *x)
{
  return (gpointer) ((guintptr) x | 1);
}

static void unspin (Maestro *m, TsRank *rk);

static void
ended (Maestro *m, TsProgress *x)
{
  if (x->own)
    {
      if (x->rk->thread == 0)
        unspin (m, x->rk); /* its threads end with it */
      kick (m, x->rk); /* ts_rank_step marked the rank done */
      return;
    }
  TsIcollJob *job = (TsIcollJob *) ((char *) x - G_STRUCT_OFFSET (TsIcollJob, x));
  job->ended = TRUE;
  if (job->joiner)
    g_queue_push_tail (&m->ready, g_steal_pointer (&job->joiner));
}

/* @x's rank waits inside a call: on a core it shares, its library keeps
 * polling, and takes a share of the core as --mpi-wait says (TsMpiWait). */
static void
poll (Maestro *m, TsProgress *x)
{
  TsRank *rk = x->rk;
  TsMpiWait mode = m->sim->options->mpi_wait;
  if (!x->own || rk->exclusive_cpu || mode == TS_MPI_WAIT_BLOCKING || m->polls[rk->stream])
    return;
  /* RECORDED: the share of a core its calls took so far (a full one until
   * the trace tells); none is no poll at all. */
  double share = mode == TS_MPI_WAIT_RECORDED && rk->calls_wall > 0
                   ? rk->calls_cpu / rk->calls_wall : 1;
  if (!(share > 0))
    return;
  double bound = share < 1 ? share * rk->speed : 0;
  m->polls[rk->stream] = m->ops->poll (m->e, rk->host, bound);
  m->n_polls += m->polls[rk->stream] != NULL;
}

static void
unpoll (Maestro *m, TsRank *rk)
{
  gpointer p = g_steal_pointer (&m->polls[rk->stream]);
  if (!p)
    return;
  m->ops->unpoll (m->e, p);
  m->n_polls--;
}

static void
spin (TsRank *rk, guint thread, gboolean on)
{
  Maestro *m = maestro (rk->sim);
  guint64 key = (guint64) rk->rank << 32 | thread;
  gpointer p = g_hash_table_lookup (m->spins, &key);
  if (on && !p)
    {
      p = m->ops->poll (m->e, rk->host, 0);
      if (!p)
        return;
      g_hash_table_insert (m->spins, g_memdup2 (&key, sizeof key), p);
      m->n_polls++;
    }
  else if (!on && p)
    {
      g_hash_table_remove (m->spins, &key);
      m->ops->unpoll (m->e, p);
      m->n_polls--;
    }
}

/* Every spin of @rk's threads stops (all ranks' with @rk NULL). */
static void
unspin (Maestro *m, TsRank *rk)
{
  GHashTableIter it;
  gpointer key, p;
  g_hash_table_iter_init (&it, m->spins);
  while (g_hash_table_iter_next (&it, &key, &p))
    if (!rk || *(guint64 *) key >> 32 == rk->rank)
      {
        m->ops->unpoll (m->e, p);
        m->n_polls--;
        g_hash_table_iter_remove (&it);
      }
}

/* Run @x until it stops on something not done yet (or ends). */
static void
run (Maestro *m, TsProgress *x)
{
  if (x->own)
    {
      unpoll (m, x->rk);
      if (x->rk->thread == 0 && g_hash_table_size (m->spins) > 0)
        spin (x->rk, 0, FALSE); /* its own thread spun at its team's barrier */
    }
  for (;;)
    {
      if (ts_progress_advance (x))
        {
          ended (m, x);
          return;
        }
      TsStop *s = &x->stop;
      TsComm *c;
      /* Only a call waits on the world: the rank's library progresses. */
      if (x->own && s->kind != TS_STOP_BURST)
        kick (m, x->rk);
      switch (s->kind)
        {
        case TS_STOP_BURST:
          m->flying++;
          if (s->exclusive)
            m->ops->burst (m->e, s->seconds, progress_cookie (x));
          else
            m->ops->exec (m->e, x->rk->host, s->flops, progress_cookie (x));
          return;
        case TS_STOP_WAIT:
          c = s->comm;
          if (c->state == COMM_DONE)
            continue;
          c->waiter = x;
          c->wait_seq = m->wait_seq++;
          poll (m, x);
          return;
        case TS_STOP_RECV:
          /* The receive belongs to the stop: freed once its payload landed. */
          c = post_recv (x->rk, &s->mailbox, &s->landing);
          c->held = FALSE;
          c->waiter = x;
          c->wait_seq = m->wait_seq++;
          poll (m, x);
          return;
        case TS_STOP_WAIT_ANY:
          {
            gboolean any = FALSE;
            for (guint i = 0; i < s->n_comms && !any; i++)
              any = s->comms[i]->state == COMM_DONE;
            if (any)
              continue;
            guint64 seq = m->wait_seq++;
            for (guint i = 0; i < s->n_comms; i++)
              {
                s->comms[i]->waiter = x;
                s->comms[i]->wait_seq = seq;
              }
            poll (m, x);
            return;
          }
        case TS_STOP_PARK:
          x->rk->parked = x;
          return;
        case TS_STOP_HOLD:
          return; /* what holds it resumes it */
        case TS_STOP_JOIN:
          {
            TsIcollJob *job = s->helper;
            if (job->ended)
              continue;
            job->joiner = x;
            if (s->spins)
              spin (x->rk, 0, TRUE);
            else if (!s->passive)
              poll (m, x);
            return;
          }
        }
    }
}

static void
wake_parked (TsRank *rk)
{
  TsProgress *x = g_steal_pointer (&rk->parked);
  if (x)
    g_queue_push_tail (&maestro (rk->sim)->ready, x);
}

static void
resume_held (TsProgress *x)
{
  g_queue_push_tail (&maestro (x->rk->sim)->ready, x);
}

static void
run_ready (Maestro *m)
{
  TsProgress *x;
  while ((x = g_queue_pop_head (&m->ready)))
    run (m, x);
}

static void
wake (GQueue *q, TsComm *c)
{
  TsProgress *x = g_steal_pointer (&c->waiter);
  if (!x)
    return;
  /* The first of a wait-any's communications wakes it; the others forget
   * it, so that they do not wake it again. */
  if (x->stop.kind == TS_STOP_WAIT_ANY)
    for (guint i = 0; i < x->stop.n_comms; i++)
      x->stop.comms[i]->waiter = NULL;
  g_queue_push_tail (q, x);
}

static void
completed (gpointer data, gpointer cookie, gboolean failed)
{
  Maestro *m = data;
  m->flying--;
  if (failed && !m->sim->error)
    g_set_error (&m->sim->error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                 "a host or a link of the platform failed during the replay (its availability "
                 "profile): tracesim does not model failures");
  if ((guintptr) cookie & 1)
    {
      g_queue_push_tail (&m->woken_cpu, (gpointer) ((guintptr) cookie & ~(guintptr) 1));
      return;
    }
  TsComm *recv = cookie, *send = recv->peer;
  *recv->landing = send->payload;
  send->state = recv->state = COMM_DONE;
  /* Those that waited first wake first, as SimGrid answers a
   * communication's waiters. */
  TsComm *first = send, *second = recv;
  if (recv->waiter && (!send->waiter || recv->wait_seq < send->wait_seq))
    first = recv, second = send;
  wake (&m->woken_net, first);
  wake (&m->woken_net, second);
  if (!send->held)
    comm_free (m, send);
  if (!recv->held)
    comm_free (m, recv);
}

static void
settled (gpointer data)
{
  Maestro *m = data;
  TsProgress *x;
  while ((x = g_queue_pop_head (&m->woken_cpu)))
    g_queue_push_tail (&m->ready, x);
  while ((x = g_queue_pop_head (&m->woken_net)))
    g_queue_push_tail (&m->ready, x);
  run_ready (m);
  /* Only polls left: the ranks wait for each other forever (a deadlock,
   * reported once the engine stops, at this instant). */
  for (guint r = 0; m->flying == 0 && m->n_polls > 0 && r < m->sim->n_streams; r++)
    unpoll (m, &m->sim->ranks[r]);
  if (m->flying == 0 && m->n_polls > 0)
    unspin (m, NULL);
}

static gboolean
run_all (TsSimulation *sim, GError **error)
{
  Maestro m = { sim };
  m.channels = g_hash_table_new_full (mailbox_hash, mailbox_equal, g_free, channel_free);
  m.chunks = g_ptr_array_new_with_free_func (g_free);
  m.deferred = g_new0 (GQueue, sim->n_streams);
  m.polls = g_new0 (gpointer, sim->n_streams);
  m.spins = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  TsEngineCallbacks cb = { completed, settled, &m };
  m.ops = sim->engine_ops;
  m.e = m.ops->create (sim->engine_config, &cb);
  sim->engine = &m;
  for (guint r = 0; r < sim->n_streams; r++)
    g_queue_push_tail (&m.ready, sim->ranks[r].progress);
  m.ops->settle_soon (m.e);
  gboolean ok = m.ops->run (m.e, error);
  for (guint r = 0; r < sim->n_streams; r++)
    unpoll (&m, &sim->ranks[r]); /* a failed run's */
  unspin (&m, NULL);
  g_hash_table_unref (m.spins);
  g_free (m.polls);
  sim->clock_end = m.ops->now (m.e);
  sim->engine = NULL;
  m.ops->free (m.e);
  /* What is left (a deadlock) goes with its chunks. */
  g_queue_clear (&m.ready);
  g_queue_clear (&m.woken_cpu);
  g_queue_clear (&m.woken_net);
  for (guint r = 0; r < sim->n_streams; r++)
    g_queue_clear (&m.deferred[r]);
  g_free (m.deferred);
  g_hash_table_unref (m.channels);
  g_ptr_array_unref (m.chunks);
  return ok;
}

static gboolean
done (TsComm *c)
{
  return c->state == COMM_DONE;
}

const TsWorldOps ts_world_maestro = {
  .name = "maestro",
  .now = now,
  .done = done,
  .post_send = post_send,
  .post_recv = post_recv,
  .test = test,
  .release = release,
  .receiver_progress = receiver_progress,
  .start_icoll = start_icoll,
  .release_icoll = release_icoll,
  .spin = spin,
  .wake = wake_parked,
  .resume = resume_held,
  .run = run_all,
};
