/* A replay on the pure-C event queue (sim/replay-queue.h). */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/replay-queue.h"
#include "sim/replay-private.h"
#include "sim/engine-ops.h"

#include <math.h>

/* Block placement over the world's hosts, as place_ranks() in replay.c
 * without its platform. */
static gboolean
place_on_queue (TsSimulation *sim, const TsQueueWorld *world, GError **error)
{
  const TsReplayOptions *o = sim->options;
  guint h = 0, on_h = 0;
  for (guint r = 0; r < sim->n_ranks; r++)
    {
      /* A core for each of its threads, as place_ranks() counts them. */
      guint need = o->ranks_per_node ? 1 : MAX (1, ts_trace_rank_n_threads (sim->trace, r));
      for (;; h++, on_h = 0)
        {
          if (h >= world->n_hosts)
            {
              g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                           "event queue: %u ranks do not fit on its %u hosts", sim->n_ranks,
                           world->n_hosts);
              return FALSE;
            }
          guint cores = MAX (1, world->hosts[h].cores);
          guint capacity = o->ranks_per_node ? o->ranks_per_node : cores;
          /* Room for all its threads, or an empty host (more threads than
           * a host has cores). */
          if (on_h + need <= capacity || (on_h == 0 && need > capacity))
            break;
        }
      TsRank *rk = &sim->ranks[r];
      rk->host = (sg_host_t) ts_queue_host (world, h);
      rk->speed = world->hosts[h].speed;
      on_h += need;
    }
  /* Ranks that never share a core compute at the host's full speed: where
   * the host has a core for every thread of its ranks. */
  g_autofree guint *on = g_new0 (guint, world->n_hosts);
  for (guint r = 0; r < sim->n_ranks; r++)
    on[(const TsQueueHost *) (gconstpointer) sim->ranks[r].host - world->hosts]
      += ts_rank_threads (sim, r);
  for (guint r = 0; r < sim->n_ranks && !o->exact_cpu; r++)
    {
      const TsQueueHost *host = (const TsQueueHost *) (gconstpointer) sim->ranks[r].host;
      sim->ranks[r].exclusive_cpu = on[host - world->hosts] <= MAX (1, host->cores);
    }
  return TRUE;
}

gboolean
ts_replay_on_queue (const TsTrace *trace, const TsCalibration *calibration,
                    const TsReplayOptions *o, const TsQueueWorld *world,
                    TsReplayResult *result, GError **error)
{
  TsReplayChoices choices = { 0 };
  TsSimulation sim;
  ts_simulation_init (&sim, trace, calibration, o, &choices, NULL);
  sim.engine_ops = &ts_engine_queue;
  sim.engine_config = world;
  return ts_simulation_run (&sim, place_on_queue (&sim, world, error), result, error);
}
