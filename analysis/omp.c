/* OpenMP wait states of a rank's own thread (doc/waitstates.md).
 *
 * A thread inside its team's barrier waits for the team's last thread:
 * Scalasca's "Wait at OpenMP Barrier", here all of its time there. In a
 * recording that is the wait and any late wake-up; in a prediction, the
 * wait the replay simulates for the slowest thread (sim/team.c) and the
 * wake-up residual it charges. Only the rank's own location is in the
 * action streams, so its other threads' waits are not counted here. */
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
