/* The engine the replay has run on so far: one SimGrid actor per progress
 * (a rank's replay, or one of its non-blocking collectives), which makes
 * each stop happen with the blocking call of SimGrid's C API that stands
 * for it, then resumes the progress; messages go through SimGrid mailboxes
 * named after their envelope. Everything that decides what a rank does is
 * in the step functions; this file only posts and waits. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"
#include "sim/world.h"
#include "model/channel.h"

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

/* SimGrid's mailbox for @mb, as named since the first replays (the names
 * are a mailbox's identity in SimGrid). Point-to-point ones are kept by the
 * rank that uses them: a lookup by name is a simcall. */
static sg_mailbox_t
mailbox (TsRank *rk, const TsMailbox *mb)
{
  char name[112];
  if (mb->k != TS_MAILBOX_P2P)
    {
      g_snprintf (name, sizeof name, "p%u>%u:%u:%d:%u:%u", mb->src, mb->dst, mb->comm, mb->tag,
                  mb->k, mb->i);
      return sg_mailbox_by_name (name);
    }
  if (!rk->mailboxes)
    rk->mailboxes = g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free, NULL);
  TsChannel key = { mb->src, mb->dst, mb->comm, mb->tag };
  sg_mailbox_t m = g_hash_table_lookup (rk->mailboxes, &key);
  if (!m)
    {
      g_snprintf (name, sizeof name, "%u>%u:%u:%d", mb->src, mb->dst, mb->comm, mb->tag);
      m = sg_mailbox_by_name (name);
      g_hash_table_insert (rk->mailboxes, g_memdup2 (&key, sizeof key), m);
    }
  return m;
}

static double
now (TsSimulation *sim)
{
  return simgrid_get_clock ();
}

static TsComm *
post_send (TsRank *rk, const TsMailbox *mb, guint64 wire_bytes, void *payload, gboolean detached)
{
  sg_mailbox_t m = mailbox (rk, mb);
  /* SimGrid needs a payload to tell sender from receiver. */
  if (detached)
    {
      sg_comm_detach (sg_mailbox_put_init (m, payload, (long) wire_bytes), NULL);
      return NULL;
    }
  return (TsComm *) sg_mailbox_put_async (m, payload, (long) wire_bytes);
}

static TsComm *
post_recv (TsRank *rk, const TsMailbox *mb, void **landing)
{
  return (TsComm *) sg_mailbox_get_async (mailbox (rk, mb), landing);
}

static gboolean
test (TsRank *rk, TsComm *comm)
{
  return sg_comm_test ((sg_comm_t) comm);
}

static void
release (TsComm *comm)
{
  sg_comm_unref ((sg_comm_t) comm);
}

static void
perform (TsRank *rk, TsStop *s)
{
  switch (s->kind)
    {
    case TS_STOP_BURST:
      /* Alone on its core, a burst takes flops / speed whatever happens:
       * a sleep, one simcall where an execution takes two. */
      if (s->exclusive)
        sg_actor_sleep_for (s->seconds);
      else
        sg_actor_execute (s->flops);
      break;
    case TS_STOP_WAIT:
      sg_comm_wait ((sg_comm_t) s->comm);
      break;
    case TS_STOP_RECV:
      s->landing = sg_mailbox_get (mailbox (rk, &s->mailbox));
      break;
    case TS_STOP_JOIN:
      sg_actor_join ((sg_actor_t) s->helper, -1);
      break;
    }
}

static void
progress_main (int argc, char **argv)
{
  TsProgress *x = sg_actor_self_get_data ();
  while (!ts_progress_advance (x))
    perform (x->rk, &x->stop);
}

static gpointer
start_icoll (TsRank *rk, TsIcollJob *job)
{
  char name[48];
  g_snprintf (name, sizeof name, "rank-%u-%s", rk->rank, ts_collective_name (job->a.op));
  sg_actor_t helper = sg_actor_init (name, rk->host);
  sg_actor_ref (helper);
  sg_actor_set_data (helper, &job->x);
  sg_actor_start (helper, progress_main, 0, NULL);
  return helper;
}

static void
release_icoll (gpointer helper)
{
  sg_actor_unref ((sg_actor_t) helper);
}

static gboolean
run (TsSimulation *sim, GError **error)
{
  for (guint r = 0; r < sim->n_ranks; r++)
    {
      TsRank *rk = &sim->ranks[r];
      char name[32];
      g_snprintf (name, sizeof name, "rank-%u", r);
      sg_actor_t actor = sg_actor_init (name, rk->host);
      sg_actor_set_data (actor, rk->progress);
      sg_actor_start (actor, progress_main, 0, NULL);
    }
  simgrid_run ();
  return TRUE;
}

const TsWorldOps ts_world_actors = {
  .name = "actors",
  .now = now,
  .post_send = post_send,
  .post_recv = post_recv,
  .test = test,
  .release = release,
  .start_icoll = start_icoll,
  .release_icoll = release_icoll,
  .run = run,
};
