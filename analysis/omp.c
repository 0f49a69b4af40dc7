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
 * prediction from the locations the replay writes for them.
 *
 * A thread that waits to take an OpenMP lock (a critical section,
 * omp_set_lock) contends for it: Scalasca's "OMP Critical Contention" and
 * "OMP Lock Contention" together, from the ENTER of the construct to the
 * lock's acquisition (LOCK and THREAD_LOCK actions carry it). */
#include <config.h>

#include "analysis/waitstates-private.h"

/* Count @seconds of @p on @cu's rank in @region without a span: the time
 * is its other threads', not its own location's (the predicted archive
 * shows them on the threads' locations). */
static void
count_threads (Analysis *an, Cursor *cu, TsWaitPattern p, guint32 region, double start,
               double seconds)
{
  TsWaitSpanFunc span = an->w->span_func;
  an->w->span_func = NULL;
  ts_wait_add (an->w, p, region, cu->rank, start, seconds);
  an->w->span_func = span;
}

/* The rank's threads that can be in its teams: those that call MPI run
 * their own streams, never idle. */
static guint
team_threads_of_rank (const TsTrace *trace, guint rank)
{
  guint threads = ts_trace_rank_n_threads (trace, rank), n = threads;
  for (guint k = 1; k < threads; k++)
    n -= ts_trace_thread_stream (trace, rank, k) >= 0;
  return n;
}

/* Idle threads (Scalasca's "OMP Idle Threads"): while a rank with threads
 * runs outside its teams, its other threads have nothing to do; the time
 * up to @now, times their number, goes to the region the rank is in.
 * Inside a team of fewer threads than the rank has (num_threads, an if
 * clause), those left out idle too: Scalasca's "OMP Limited Parallelism",
 * the part of idleness inside parallel regions. */
static void
count_idle (Analysis *an, Cursor *cu, double now)
{
  if (cu->thread > 0)
    return;
  guint threads = team_threads_of_rank (an->trace, cu->rank);
  if (threads < 2)
    return;
  if (!cu->omp_stack)
    cu->omp_stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  else if (cu->omp_stack->len > 0 && now > cu->omp_since)
    {
      guint32 region = g_array_index (cu->omp_stack, guint32, cu->omp_stack->len - 1);
      double span = now - cu->omp_since;
      if (!cu->omp_in_team)
        count_threads (an, cu, TS_WAIT_OMP_IDLE_THREADS, region, cu->omp_since,
                       span * (threads - 1));
      else if (cu->omp_team_threads < threads)
        count_threads (an, cu, TS_WAIT_OMP_LIMITED_PARALLELISM, region, cu->omp_since,
                       span * (threads - cu->omp_team_threads));
    }
  cu->omp_since = MAX (cu->omp_since, now);
}

/* The threads of the team a TEAM_BEGIN starts: those its bytes mark among
 * the rank's (all from 64 on). */
static guint
team_threads (const Analysis *an, const Cursor *cu, const TsAction *a)
{
  guint threads = ts_trace_rank_n_threads (an->trace, cu->rank), n = 0;
  for (guint k = 0; k < threads; k++)
    n += k >= 64 || (a->bytes >> k & 1);
  return n;
}

void
ts_wait_omp_enter (Analysis *an, Cursor *cu, const TsAction *a)
{
  count_idle (an, cu, a->time);
  if (cu->omp_stack)
    g_array_append_val (cu->omp_stack, a->region);
  if (cu->omp_barrier == 0 && ts_trace_region_team_barrier (an->trace, a->region))
    {
      cu->omp_barrier = a->region + 1;
      cu->omp_barrier_enter = a->time;
    }
}

void
ts_wait_omp_leave (Analysis *an, Cursor *cu, const TsAction *a)
{
  count_idle (an, cu, a->time);
  if (cu->omp_stack)
    {
      /* Regions close as the replay nests them: the innermost one of that
       * name and those inside it. */
      guint depth = cu->omp_stack->len;
      while (depth > 0 && g_array_index (cu->omp_stack, guint32, depth - 1) != a->region)
        depth--;
      if (depth > 0)
        g_array_set_size (cu->omp_stack, depth - 1);
    }
  if (cu->omp_barrier != a->region + 1)
    return;
  ts_wait_add (an->w, TS_WAIT_OMP_BARRIER, a->region, cu->rank, cu->omp_barrier_enter,
               a->time - cu->omp_barrier_enter);
  cu->omp_barrier = 0;
}

void
ts_wait_omp_other (Analysis *an, Cursor *cu, const TsAction *a)
{
  switch (a->kind)
    {
    case TS_ACTION_THREAD_WAIT:
      count_threads (an, cu, TS_WAIT_OMP_BARRIER, a->region, a->time - a->seconds, a->seconds);
      break;
    case TS_ACTION_LOCK:
      /* Its wait to take the lock (the decoder's: from the ENTER of the
       * critical construct or omp_set_lock), on this location. */
      if (!(a->flags & TS_ACTION_RELEASE))
        ts_wait_add (an->w, TS_WAIT_OMP_LOCK_CONTENTION, a->region, cu->rank,
                     a->time - a->seconds, a->seconds);
      break;
    case TS_ACTION_THREAD_LOCK:
      if (!(a->flags & TS_ACTION_RELEASE))
        count_threads (an, cu, TS_WAIT_OMP_LOCK_CONTENTION, a->region, a->time - a->seconds,
                       a->seconds);
      break;
    case TS_ACTION_TEAM_BEGIN:
      count_idle (an, cu, a->time);
      cu->omp_in_team = TRUE;
      cu->omp_team_threads = team_threads (an, cu, a);
      break;
    case TS_ACTION_TEAM_BARRIER:
      /* The team's end (a barrier with no region): its threads are idle
       * again from here. */
      if (a->region == TS_NO_REGION)
        {
          count_idle (an, cu, a->time);
          cu->omp_in_team = FALSE;
        }
      break;
    default:
      break;
    }
}
