/* Thread teams: a rank's OpenMP parallel regions, as phases between
 * barriers (model/decode-threads.c makes the actions).
 *
 * The rank's own location replays its part as any other: compute, calls,
 * markers. Its other threads are not simulated one by one: each phase
 * carries their work (THREAD_COMPUTE, after the hypotheses), and its
 * barrier (TEAM_BARRIER) ends when the slowest of them is done, counted
 * from the phase's start: the rank waits there, simulated time, never
 * work. What the trace shows it waited beyond that is the barrier's
 * residual, charged as --residual says. A thread is taken to have a core
 * of its own, at the rank's host's speed. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"

static void
team_restart (TsRank *rk)
{
  rk->team_start = ts_rank_now (rk);
  if (rk->team_work)
    g_array_set_size (rk->team_work, 0);
}

gboolean
ts_do_team_begin (TsProgress *x)
{
  team_restart (x->rk);
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

/* When the phase's slowest other thread is done, in seconds. */
static double
phase_end (TsRank *rk)
{
  double longest = 0;
  for (guint k = 0; rk->team_work && k < rk->team_work->len; k++)
    longest = MAX (longest, g_array_index (rk->team_work, double, k));
  return rk->team_start + longest * rk->sim->options->trace_speed / rk->speed;
}

enum { BARRIER_START, BARRIER_FLUSH, BARRIER_WAIT };

gboolean
ts_do_team_barrier (TsProgress *x)
{
  TsRank *rk = x->rk;
  switch (x->pc)
    {
    case BARRIER_START:
      x->t0 = phase_end (rk);
      if (x->t0 - ts_rank_now (rk) < rk->sim->clock_tick)
        break;
      TS_AT (x->pc, BARRIER_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      TS_AT (x->pc, BARRIER_WAIT);
      if (!ts_step_idle (x, MAX (0, x->t0 - rk->sim->world->now (rk->sim))))
        return FALSE;
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
  team_restart (rk);
  x->pc = BARRIER_START;
  return TRUE;
}
