/* Thread teams: a rank's OpenMP parallel regions, as phases between
 * barriers (model/decode-threads.c makes the actions).
 *
 * The rank's own location replays its part as any other: compute, calls,
 * markers. At each phase's start its other threads' work (THREAD_COMPUTE,
 * after the hypotheses) is forked (TEAM_FORK): one job per thread, a
 * progress beside the rank's own as a non-blocking collective is, which
 * computes the thread's work on the rank's host. Where the host has a core
 * for every thread of its ranks, a job sleeps its work; where it has fewer,
 * the jobs and the ranks' own compute are executions that share its cores
 * (SimGrid's CPU model), so that threads added by a what-if, or a platform
 * with fewer cores, stretch the phase. The barrier (TEAM_BARRIER) joins
 * every job: the rank waits there until the slowest thread is done,
 * simulated time, never work. What the trace shows it waited beyond that
 * is the barrier's residual, charged as --residual says. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"

gboolean
ts_do_team_begin (TsProgress *x)
{
  if (x->rk->team_work)
    g_array_set_size (x->rk->team_work, 0);
  return TRUE;
}

gboolean
ts_do_thread_compute (TsProgress *x)
{
  TsRank *rk = x->rk;
  guint thread = (guint) x->a->peer;
  if (!rk->team_work)
    rk->team_work = g_array_new (FALSE, TRUE, sizeof (double));
  if (rk->team_work->len <= thread)
    g_array_set_size (rk->team_work, thread + 1);
  g_array_index (rk->team_work, double, thread) += x->a->seconds;
  rk->team_charged_work += x->a->seconds;
  return TRUE;
}

/* Start thread @k's work of @seconds beside the rank's own. */
static void
fork_thread (TsRank *rk, guint k, double seconds)
{
  if (!(seconds > 0))
    return;
  if (!rk->team_jobs)
    rk->team_jobs = g_ptr_array_new ();
  TsIcollJob *job = g_new0 (TsIcollJob, 1);
  job->a.kind = TS_ACTION_THREAD_COMPUTE;
  job->a.peer = (gint32) k;
  job->a.seconds = seconds;
  job->causal = rk->causal;
  ts_progress_init (&job->x, rk, FALSE, &job->causal, &job->a, 0);
  g_ptr_array_add (rk->team_jobs, job);
  rk->sim->world->start_icoll (rk, job);
  rk->simcalls++;
}

enum { FORK_START, FORK_FLUSH };

gboolean
ts_do_team_fork (TsProgress *x)
{
  TsRank *rk = x->rk;
  switch (x->pc)
    {
    case FORK_START:
      /* The threads start when the rank's compute before the fork is done. */
      TS_AT (x->pc, FORK_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      {
        guint traced = ts_trace_rank_n_threads (rk->sim->trace, rk->rank);
        for (guint k = 1; rk->team_work && k < rk->team_work->len; k++)
          fork_thread (rk, k, g_array_index (rk->team_work, double, k));
        /* Threads a what-if added beyond the trace's (`threads = N`). */
        for (guint k = traced; k < (guint) MAX (x->a->peer, 0); k++)
          {
            fork_thread (rk, k, x->a->seconds);
            rk->team_charged_work += x->a->seconds;
          }
      }
      if (rk->team_work)
        g_array_set_size (rk->team_work, 0);
    }
  x->pc = FORK_START;
  return TRUE;
}

gboolean
ts_thread_step (TsProgress *x)
{
  switch (x->pc)
    {
    case 0:
      TS_AT (x->pc, 1);
      if (!ts_step_burst (x, x->a->seconds))
        return FALSE;
    }
  x->pc = 0;
  return TRUE;
}

enum { BARRIER_START, BARRIER_FLUSH, BARRIER_JOIN };

gboolean
ts_do_team_barrier (TsProgress *x)
{
  TsRank *rk = x->rk;
  switch (x->pc)
    {
    case BARRIER_START:
      if (!rk->team_jobs || rk->team_jobs->len == 0)
        break;
      TS_AT (x->pc, BARRIER_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      for (x->thread_i = 0; x->thread_i < rk->team_jobs->len; x->thread_i++)
        {
          TS_AT (x->pc, BARRIER_JOIN);
          if (!ts_step_join_thread (x, g_ptr_array_index (rk->team_jobs, x->thread_i)))
            return FALSE;
        }
      for (guint i = 0; i < rk->team_jobs->len; i++)
        {
          TsIcollJob *job = g_ptr_array_index (rk->team_jobs, i);
          rk->sim->world->release_icoll (job);
          ts_progress_clear (&job->x);
          g_free (job);
        }
      g_ptr_array_set_size (rk->team_jobs, 0);
    }
  /* What the rank waited there beyond its slowest thread in the trace (a
   * thread woken late, a core shared): residual, as an MPI call's. */
  if (x->a->seconds > 0)
    {
      double charged = ts_rank_residual (rk, x->a->seconds);
      rk->charged_residual += charged;
      if (x->a->region < ts_trace_n_regions (rk->sim->trace))
        rk->sim->region_residual[x->a->region] += charged * rk->sim->options->trace_speed
                                                  / rk->speed;
      rk->pending_compute += charged;
    }
  x->pc = BARRIER_START;
  return TRUE;
}

guint
ts_rank_threads (const TsSimulation *sim, guint r)
{
  guint traced = ts_trace_rank_n_threads (sim->trace, r);
  const TsHypotheses *h = sim->options->hypotheses;
  return traced >= 2 && h ? MAX (traced, ts_hypotheses_team_size (h)) : traced;
}

void
ts_team_clear (TsRank *rk)
{
  g_clear_pointer (&rk->team_work, g_array_unref);
  if (!rk->team_jobs)
    return;
  /* A trace cut inside a team leaves its last phase's jobs unjoined; they
   * ended with the simulation. */
  for (guint i = 0; i < rk->team_jobs->len; i++)
    {
      TsIcollJob *job = g_ptr_array_index (rk->team_jobs, i);
      ts_progress_clear (&job->x);
      g_free (job);
    }
  g_clear_pointer (&rk->team_jobs, g_ptr_array_unref);
}
