/* The engine that runs the replay's progresses (sim/progress.h) today: one
 * SimGrid actor per progress, which makes each stop happen with the blocking
 * call of SimGrid's C API that stands for it, then resumes the progress.
 * Everything that decides what a rank does is in the step functions; this
 * file only waits. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"

static void
perform (TsStop *s)
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
      sg_comm_wait (s->comm);
      break;
    case TS_STOP_RECV:
      s->landing = sg_mailbox_get (s->mailbox);
      break;
    case TS_STOP_JOIN:
      sg_actor_join (s->helper, -1);
      break;
    }
}

static void
drive (TsProgress *x, gboolean (*step) (TsProgress *x))
{
  while (!step (x))
    perform (&x->stop);
}

static void
rank_main (int argc, char **argv)
{
  TsRank *rk = sg_actor_self_get_data ();
  drive (rk->progress, ts_rank_step);
}

static void
icoll_main (int argc, char **argv)
{
  TsIcollJob *job = sg_actor_self_get_data ();
  drive (&job->x, ts_collective_step);
}

void
ts_actors_start_rank (TsRank *rk)
{
  char name[32];
  g_snprintf (name, sizeof name, "rank-%u", rk->rank);
  sg_actor_t actor = sg_actor_init (name, rk->host);
  sg_actor_set_data (actor, rk);
  sg_actor_start (actor, rank_main, 0, NULL);
}

sg_actor_t
ts_actors_start_icoll (TsRank *rk, TsIcollJob *job)
{
  char name[48];
  g_snprintf (name, sizeof name, "rank-%u-%s", rk->rank, ts_collective_name (job->a.op));
  sg_actor_t helper = sg_actor_init (name, rk->host);
  sg_actor_ref (helper);
  sg_actor_set_data (helper, job);
  sg_actor_start (helper, icoll_main, 0, NULL);
  return helper;
}
