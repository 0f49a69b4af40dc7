/* OpenMP wait states of a rank's threads (doc/waitstates.md).
 *
 * A thread inside its team's barrier waits for the team's last thread:
 * Scalasca's "Wait at OpenMP Barrier", here all of its time there, summed
 * over the rank's threads. In a recording that is the wait and any late
 * wake-up; in a prediction, the wait the replay simulates for the slowest
 * thread (sim/team.c) and, on the rank's own thread, the wake-up residual
 * it charges. The rank's own thread's waits are read from its barrier
 * regions; the other threads' come as THREAD_WAIT actions, which the
 * decoder makes from their locations (model/decode-threads.c), in a
 * prediction from the locations the replay writes for them. */
#include <config.h>

#include "analysis/waitstates-private.h"

void
ts_wait_omp_enter (Analysis *an, Cursor *cu, const TsAction *a)
{
  if (cu->omp_barrier == 0 && ts_trace_region_team_barrier (an->trace, a->region))
    {
      cu->omp_barrier = a->region + 1;
      cu->omp_barrier_enter = a->time;
    }
}

void
ts_wait_omp_leave (Analysis *an, Cursor *cu, const TsAction *a)
{
  if (cu->omp_barrier != a->region + 1)
    return;
  ts_wait_add (an->w, TS_WAIT_OMP_BARRIER, a->region, cu->rank, cu->omp_barrier_enter,
               a->time - cu->omp_barrier_enter);
  cu->omp_barrier = 0;
}

void
ts_wait_omp_thread (Analysis *an, Cursor *cu, const TsAction *a)
{
  if (a->kind != TS_ACTION_THREAD_WAIT)
    return;
  /* Counted, but not a span of the rank's own location: the predicted
   * archive shows it on the thread's. */
  TsWaitSpanFunc span = an->w->span_func;
  an->w->span_func = NULL;
  ts_wait_add (an->w, TS_WAIT_OMP_BARRIER, a->region, cu->rank, a->time - a->seconds,
               a->seconds);
  an->w->span_func = span;
}
