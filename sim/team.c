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

#include <math.h>

/* One region's work of one thread in the phase being forked. */
typedef struct {
  guint thread;
  guint32 region;
  double seconds;
  gboolean late_wake;        /* no work: its late start, waited (TS_ACTION_LATE_WAKE) */
  guint8 lock;               /* or a lock it takes (1) or releases (2), sim/lock.c */
  guint32 lock_id;
} TsTeamBurst;

/* A thread running its work in a phase: a job of the engine (first, so
 * that the engine's progress leads back here), its bursts, and when it
 * finished them (-inf: not yet). */
typedef struct {
  TsIcollJob job;
  guint thread;
  GArray *bursts;            /* TsTeamBurst */
  guint next;
  double finish;
  guint32 lock_region;       /* the region it asked for a lock in, open over the section */
  guint32 lock_region_id;    /* and that lock */
} TsTeamJob;

static TsTeamJob *
team_job_of (TsProgress *x)
{
  return (TsTeamJob *) ((char *) x - G_STRUCT_OFFSET (TsIcollJob, x));
}

/* Where thread @k of @rk writes its predicted events (the rank's own for
 * k = 0). */
static guint
thread_location (TsRank *rk, guint k)
{
  return ts_archive_writer_thread (rk->sim->writer, rk->rank, k);
}

/* Thread @k of @rk waits spinning from now (@on) or stops: under active
 * wait, on a core it shares. */
static void
spin (TsRank *rk, guint k, gboolean on)
{
  if (rk->sim->options->omp_active && !rk->exclusive_cpu && rk->sim->world->spin)
    rk->sim->world->spin (rk, k, on);
}

/* Whether thread @k is in the rank's current team. */
static gboolean
team_member (const TsRank *rk, guint k)
{
  return k >= 64 || (rk->team_members >> k & 1);
}

/* Whether thread @k of @rk is a stream of its own (it calls MPI): it
 * writes its own events, the rank writes none for it. */
static gboolean
own_stream (const TsRank *rk, guint k)
{
  return k > 0 && ts_trace_thread_stream (rk->sim->trace, rk->rank, k) >= 0;
}

gboolean
ts_do_team_begin (TsProgress *x)
{
  TsRank *rk = x->rk;
  if (rk->team_work)
    g_array_set_size (rk->team_work, 0);
  /* Under active wait the threads spin from the rank's first team on,
   * between teams too, until the rank ends. */
  for (guint k = 1; k < ts_rank_threads (rk->sim, rk->rank); k++)
    if (!own_stream (rk, k))
      spin (rk, k, TRUE);
  /* The team's threads: those the trace's fork asked for (TEAM_BEGIN's
   * bytes), or the N of a `threads = N` rule, which makes every team N. */
  guint threads = ts_rank_threads (rk->sim, rk->rank);
  rk->team_traced = (guint) MAX (x->a->peer, 1);
  rk->team_forking = TRUE;
  rk->team_first_fork = TRUE;
  const TsHypotheses *h = rk->sim->options->hypotheses;
  rk->team_members = h && ts_hypotheses_team_size (h) > 0 ? G_MAXUINT64 : x->a->bytes;
  /* A thread with MPI of its own joins the teams its stream shows it in,
   * whatever a rule makes of the team's size. */
  rk->team_traced_members = x->a->bytes;
  /* Every thread's part of the team begins with the rank's (a team of
   * one, `threads = 1`, has no thread locations). */
  if (rk->sim->writer && threads > 1)
    {
      double now = ts_rank_now (rk);
      guint size = 0;
      for (guint k = 0; k < threads; k++)
        size += team_member (rk, k);
      ts_archive_writer_thread_fork (rk->sim->writer, rk->rank, now, size);
      for (guint k = 0; k < threads; k++)
        if (team_member (rk, k) && !own_stream (rk, k))
          ts_archive_writer_team_begin (rk->sim->writer, thread_location (rk, k), now);
    }
  return TRUE;
}

gboolean
ts_do_nothing (TsProgress *x)
{
  /* A thread's wait as the trace shows it: the replay simulates its own. */
  return TRUE;
}

gboolean
ts_do_thread_compute (TsProgress *x)
{
  TsRank *rk = x->rk;
  if (!rk->team_work)
    rk->team_work = g_array_new (FALSE, FALSE, sizeof (TsTeamBurst));
  gboolean late = (x->a->flags & TS_ACTION_LATE_WAKE) != 0;
  if (x->a->kind == TS_ACTION_THREAD_LOCK)
    {
      TsTeamBurst b = { (guint) x->a->peer, x->a->region, 0, FALSE,
                        (x->a->flags & TS_ACTION_RELEASE) ? 2 : 1, (guint32) x->a->bytes };
      g_array_append_val (rk->team_work, b);
      return TRUE;
    }
  if (x->a->seconds > 0)
    {
      TsTeamBurst b = { (guint) x->a->peer, x->a->region, x->a->seconds, late };
      g_array_append_val (rk->team_work, b);
    }
  /* A late wake-up is the runtime's and the system's latency, which no
   * change of the work or the hosts moves: wall seconds as traced, slept
   * (ts_step_sleep counts it with the rank's late start, as residual). */
  if (!late)
    rk->team_charged_work += x->a->seconds;
  return TRUE;
}

/* Start thread @k's work, @bursts (taken), beside the rank's own. */
static void
fork_thread (TsRank *rk, guint k, GArray *bursts)
{
  if (!rk->team_jobs)
    rk->team_jobs = g_ptr_array_new ();
  TsTeamJob *tj = g_new0 (TsTeamJob, 1);
  tj->thread = k;
  tj->bursts = bursts;
  tj->finish = -INFINITY;
  tj->lock_region = TS_NO_REGION;
  TsIcollJob *job = &tj->job;
  job->a.kind = TS_ACTION_THREAD_COMPUTE;
  job->a.peer = (gint32) k;
  job->causal = rk->causal;
  ts_progress_init (&job->x, rk, FALSE, &job->causal, &job->a, 0);
  g_ptr_array_add (rk->team_jobs, tj);
  spin (rk, k, FALSE);
  rk->sim->world->start_icoll (rk, job);
  rk->simcalls++;
}

/* Thread @k's bursts in the phase (its work, and @extra seconds a what-if
 * added, in @region), or NULL if it has none. */
static GArray *
thread_bursts (TsRank *rk, guint k, double extra, guint32 region)
{
  GArray *bursts = NULL;
  for (guint i = 0; rk->team_work && i < rk->team_work->len; i++)
    {
      const TsTeamBurst *b = &g_array_index (rk->team_work, TsTeamBurst, i);
      if (b->thread != k)
        continue;
      if (!bursts)
        bursts = g_array_new (FALSE, FALSE, sizeof (TsTeamBurst));
      g_array_append_val (bursts, *b);
    }
  if (extra > 0)
    {
      TsTeamBurst b = { k, region, extra, FALSE };
      if (!bursts)
        bursts = g_array_new (FALSE, FALSE, sizeof (TsTeamBurst));
      g_array_append_val (bursts, b);
      rk->team_charged_work += extra;
    }
  return bursts;
}

/* Thread bursts @bursts (taken) added to the work *@into of a thread. */
static void
take_bursts (GArray **into, GArray *bursts)
{
  if (!*into)
    {
      *into = bursts;
      return;
    }
  g_array_append_vals (*into, bursts->data, bursts->len);
  g_array_unref (bursts);
}

/* ... or, for the rank's own thread, to its compute after the fork. */
static void
own_takes_bursts (TsRank *rk, GArray *bursts)
{
  for (guint i = 0; i < bursts->len; i++)
    if (!g_array_index (bursts, TsTeamBurst, i).late_wake)
      rk->pending_compute += g_array_index (bursts, TsTeamBurst, i).seconds;
  g_array_unref (bursts);
}

/* @bursts without a late wake-up: those of a thread beyond the team, whose
 * work another runs (it is not woken). NULL if none is left. */
static GArray *
drop_late_wake (GArray *bursts)
{
  for (guint i = bursts->len; i-- > 0;)
    if (g_array_index (bursts, TsTeamBurst, i).late_wake)
      g_array_remove_index (bursts, i);
  if (bursts->len == 0)
    {
      g_array_unref (bursts);
      return NULL;
    }
  return bursts;
}

/* The runtime's cost @seconds (--omp-costs) where the rank's team is
 * larger than the trace's: the rank's own thread spends it before what
 * follows (the threads it forks start after it), as simulated time. */
static void
charge_runtime (TsRank *rk, double seconds)
{
  if (!(seconds > 0) || ts_rank_threads (rk->sim, rk->rank) <= rk->team_traced)
    return;
  rk->pending_compute += seconds * rk->speed / rk->sim->options->trace_speed;
  rk->simulated += seconds;
}

/* ---- threads with MPI of their own in the rank's teams ------------------
 *
 * Such a thread replays its own stream (its calls run beside the rank's):
 * its part of each phase begins at THREAD_AWAIT, which waits for the
 * rank's fork of the phase, and ends at THREAD_ARRIVE; the rank's barrier
 * waits for it as for its other threads' jobs. */

/* Whether thread stream @t is in the rank's current team, as traced. */
static gboolean
stream_member (const TsRank *rk, const TsRank *t)
{
  return t->thread >= 64 || (rk->team_traced_members >> t->thread & 1);
}

/* The rank forks a phase (the first of a team, or one after a barrier) at
 * traced time @traced: its threads with MPI in the team may begin it. */
static void
fork_streams (TsRank *rk, double traced)
{
  gboolean first = rk->team_first_fork;
  rk->team_first_fork = FALSE;
  for (guint i = 0; rk->team_streams && i < rk->team_streams->len; i++)
    {
      TsRank *t = g_ptr_array_index (rk->team_streams, i);
      if (!stream_member (rk, t))
        continue;
      if (first)
        {
          t->teams_forked++;
          t->phases_forked = 1;
        }
      else
        t->phases_forked++;
      t->forked_traced = traced;
      rk->sim->world->wake (t);
    }
}

/* Whether thread @t is done with the rank's current phase (@phase_end) or
 * team: it ended its part of the team (a thread need not show the team's
 * barriers: GCC's workers record none at a parallel region's end), or
 * arrived at the end of the phase. */
static gboolean
stream_done (const TsRank *t, gboolean phase_end)
{
  if (t->teams_ended >= t->teams_forked)
    return TRUE;
  return phase_end && t->teams_begun == t->teams_forked && t->phases_arrived >= t->phases_forked;
}

/* A thread with MPI in the team not done with the phase (@phase_end) or
 * the team, or NULL. */
static TsRank *
stream_behind (const TsRank *rk, gboolean phase_end)
{
  for (guint i = 0; rk->team_streams && i < rk->team_streams->len; i++)
    {
      TsRank *t = g_ptr_array_index (rk->team_streams, i);
      if (stream_member (rk, t) && !stream_done (t, phase_end))
        return t;
    }
  return NULL;
}

/* Whether the rank forked the phase thread @t begins now: its team's first
 * (x->a->peer 1) or the next of its team. */
static gboolean
stream_may_begin (const TsRank *t, gboolean team_begins)
{
  if (team_begins)
    return t->teams_forked >= t->teams_begun;
  return t->teams_forked > t->teams_begun || t->phases_forked >= t->phases_begun;
}

enum { AWAIT_START, AWAIT_FLUSH, AWAIT_PARK };

gboolean
ts_do_thread_await (TsProgress *x)
{
  TsRank *t = x->rk;
  switch (x->pc)
    {
    case AWAIT_START:
      if (x->a->peer == 1)
        {
          t->teams_begun++;
          t->phases_begun = 1;
          t->phases_arrived = 0;
        }
      else
        t->phases_begun++;
      TS_AT (x->pc, AWAIT_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      while (!stream_may_begin (t, x->a->peer == 1))
        {
          x->on = (TsBlockedOn) { .what = "its rank's fork of its next OpenMP phase",
                                  .peer = TS_NO_RANK };
          TS_AT (x->pc, AWAIT_PARK);
          if (!ts_step_park (x, &x->on))
            return FALSE;
        }
      /* It began its part after its rank's fork in the trace: woken late
       * (or waiting for a core). As for the rank's other threads, that is
       * no work here: the rank's barrier counts it in its residual, which
       * --residual governs (stream_residual). */
      t->late_traced = MAX (0, x->a->time - t->forked_traced);
      if (!t->in_team_now)
        {
          t->in_team_now = TRUE;
          if (t->sim->writer)
            ts_archive_writer_team_begin (t->sim->writer, t->location, ts_rank_now (t));
        }
    }
  x->pc = AWAIT_START;
  return TRUE;
}

enum { ARRIVE_START, ARRIVE_FLUSH };

gboolean
ts_do_thread_arrive (TsProgress *x)
{
  TsRank *t = x->rk;
  switch (x->pc)
    {
    case ARRIVE_START:
      TS_AT (x->pc, ARRIVE_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      if (x->a->region == TS_NO_REGION)
        t->teams_ended++;
      else
        t->phases_arrived++;
      /* When it would have arrived had it not begun late. */
      t->arrived_traced = x->a->time - t->late_traced;
      t->sim->world->wake (&t->sim->ranks[t->rank]);
      if (x->a->region == TS_NO_REGION && t->in_team_now)
        {
          t->in_team_now = FALSE;
          if (t->sim->writer)
            ts_archive_writer_team_end (t->sim->writer, t->location, ts_rank_now (t));
        }
    }
  x->pc = ARRIVE_START;
  return TRUE;
}

enum { FORK_START, FORK_FLUSH };

gboolean
ts_do_team_fork (TsProgress *x)
{
  TsRank *rk = x->rk;
  switch (x->pc)
    {
    case FORK_START:
      if (rk->team_forking)
        {
          rk->team_forking = FALSE;
          charge_runtime (rk, rk->sim->options->omp_fork_cost);
        }
      /* The threads start when the rank's compute before the fork is done. */
      {
        /* A team of the rank's thread alone, as traced, forks nothing:
         * its compute stays one burst, as without the team. */
        guint traced = ts_trace_rank_n_threads (rk->sim->trace, rk->rank);
        if (traced <= 1 && ts_rank_threads (rk->sim, rk->rank) <= 1)
          goto forked;
      }
      TS_AT (x->pc, FORK_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      {
        guint traced = ts_trace_rank_n_threads (rk->sim->trace, rk->rank);
        guint n = MAX (traced, (guint) MAX (x->a->peer, 0));
        guint team = MAX (ts_rank_threads (rk->sim, rk->rank), 1);
        rk->team_forked = rk->sim->world->now (rk->sim);
        g_autofree GArray **work = g_new0 (GArray *, team);
        /* Threads beyond the trace's were added by a what-if (`threads = N`),
         * each with the share x->a->seconds of the work. A team made
         * smaller than the trace's runs what its rules left on the threads
         * beyond it (regions the rules do not name) on thread k mod N, as
         * a runtime hands their iterations to the threads it has. */
        for (guint k = 1; k < n; k++)
          {
            GArray *bursts = thread_bursts (rk, k, k >= traced ? x->a->seconds : 0, x->a->region);
            if (bursts && k >= team)
              bursts = drop_late_wake (bursts);
            /* Never onto a thread with MPI of its own (its stream runs
             * it): the rank's own thread takes them then. */
            if (bursts && (k % team == 0 || own_stream (rk, k % team)))
              own_takes_bursts (rk, bursts);
            else if (bursts)
              take_bursts (&work[k % team], bursts);
          }
        for (guint k = 1; k < team; k++)
          if (work[k])
            fork_thread (rk, k, work[k]);
      }
    forked:
      fork_streams (rk, x->a->time);
      if (rk->team_work)
        g_array_set_size (rk->team_work, 0);
      rk->pending_compute += rk->team_residual;
      rk->team_residual = 0;
    }
  x->pc = FORK_START;
  return TRUE;
}

/* Thread job @tj asks for (or releases) a lock, @b: FALSE if it must wait
 * for it. In the predicted timeline the region it asked in (the critical
 * construct, omp_set_lock) is entered when it asks; it stays open over the
 * section where the section's work is that region's (a critical
 * construct: left at the release), else it is left once the lock is taken
 * (omp_set_lock), as the trace had them. */
static gboolean
thread_lock (TsProgress *x, TsTeamJob *tj, const TsTeamBurst *b)
{
  TsRank *rk = x->rk;
  TsArchiveWriter *w = rk->sim->writer;
  guint loc = w ? thread_location (rk, tj->thread) : 0;
  double now = rk->sim->world->now (rk->sim);
  if (b->lock == 2)
    {
      ts_lock_give (x, tj->thread, b->lock_id, loc);
      if (tj->lock_region != TS_NO_REGION && tj->lock_region_id == b->lock_id)
        {
          if (w)
            ts_archive_writer_leave (w, loc, now, tj->lock_region);
          tj->lock_region = TS_NO_REGION;
        }
      return TRUE;
    }
  if (tj->lock_region == TS_NO_REGION && b->region != TS_NO_REGION)
    {
      tj->lock_region = b->region;
      tj->lock_region_id = b->lock_id;
      if (w)
        ts_archive_writer_enter (w, loc, now, b->region);
    }
  return ts_lock_take (x, tj->thread, b->lock_id, loc);
}

/* Thread job @tj took the lock of its burst tj->next: the region it asked
 * in ends now unless the next burst is that region's work. */
static void
lock_taken (TsProgress *x, TsTeamJob *tj)
{
  if (tj->lock_region == TS_NO_REGION)
    return;
  const TsTeamBurst *next = tj->next + 1 < tj->bursts->len
                              ? &g_array_index (tj->bursts, TsTeamBurst, tj->next + 1) : NULL;
  if (next && !next->lock && next->region == tj->lock_region)
    return;
  if (x->rk->sim->writer)
    ts_archive_writer_leave (x->rk->sim->writer, thread_location (x->rk, tj->thread),
                             x->rk->sim->world->now (x->rk->sim), tj->lock_region);
  tj->lock_region = TS_NO_REGION;
}

gboolean
ts_thread_step (TsProgress *x)
{
  TsTeamJob *tj = team_job_of (x);
  TsRank *rk = x->rk;
  TsArchiveWriter *w = rk->sim->writer;
  const TsTeamBurst *b;
  switch (x->pc)
    {
    case 0:
      for (tj->next = 0; tj->next < tj->bursts->len; tj->next++)
        {
          b = &g_array_index (tj->bursts, TsTeamBurst, tj->next);
          if (b->lock)
            {
              if (!thread_lock (x, tj, b))
                {
                  /* In line for the lock: handed over by its holder. */
                  TS_AT (x->pc, 2);
                  if (!ts_step_hold (x, NULL))
                    return FALSE;
                }
              if (g_array_index (tj->bursts, TsTeamBurst, tj->next).lock == 1)
                lock_taken (x, tj);
              continue;
            }
          /* The critical construct's region is open from the lock's
           * asking to its release. */
          if (w && b->region != TS_NO_REGION && b->region != tj->lock_region)
            ts_archive_writer_enter (w, thread_location (rk, tj->thread),
                                     rk->sim->world->now (rk->sim), b->region);
          TS_AT (x->pc, 1);
          b = &g_array_index (tj->bursts, TsTeamBurst, tj->next);
          /* A late wake-up waits (asleep: no core); work computes. */
          if (b->late_wake ? !ts_step_sleep (x, b->seconds) : !ts_step_burst (x, b->seconds))
            return FALSE;
          if (w && b->region != TS_NO_REGION && b->region != tj->lock_region)
            ts_archive_writer_leave (w, thread_location (rk, tj->thread),
                                     rk->sim->world->now (rk->sim), b->region);
        }
    }
  tj->finish = rk->sim->world->now (rk->sim);
  spin (rk, tj->thread, TRUE);
  x->pc = 0;
  return TRUE;
}

/* The predicted timeline of the rank's other threads at the end of a phase
 * (joined at @now): in a barrier (@region) from when each finished its
 * work until @now, or, at the team's end (TS_NO_REGION), out of the team from
 * when it finished; the rank's own thread ends the team at @now. */
static void
write_phase_end (TsRank *rk, guint32 region, double now)
{
  TsArchiveWriter *w = rk->sim->writer;
  guint n = ts_rank_threads (rk->sim, rk->rank);
  g_autofree double *finish = g_new (double, n);
  for (guint k = 0; k < n; k++)
    finish[k] = rk->team_forked;
  for (guint i = 0; rk->team_jobs && i < rk->team_jobs->len; i++)
    {
      const TsTeamJob *tj = g_ptr_array_index (rk->team_jobs, i);
      if (tj->thread < n)
        finish[tj->thread] = MAX (tj->finish, rk->team_forked);
    }
  for (guint k = 1; k < n; k++)
    if (!team_member (rk, k) || own_stream (rk, k))
      continue;
    else if (region != TS_NO_REGION)
      {
        ts_archive_writer_enter (w, thread_location (rk, k), finish[k], region);
        ts_archive_writer_leave (w, thread_location (rk, k), now, region);
      }
    else
      ts_archive_writer_team_end (w, thread_location (rk, k), finish[k]);
  if (region == TS_NO_REGION)
    {
      ts_archive_writer_team_end (w, rk->rank, now);
      ts_archive_writer_thread_join (w, rk->rank, now);
    }
}

static void
free_jobs (TsRank *rk, gboolean release)
{
  for (guint i = 0; i < rk->team_jobs->len; i++)
    {
      TsTeamJob *tj = g_ptr_array_index (rk->team_jobs, i);
      if (release)
        rk->sim->world->release_icoll (&tj->job);
      ts_progress_clear (&tj->job.x);
      g_array_unref (tj->bursts);
      g_free (tj);
    }
  g_ptr_array_set_size (rk->team_jobs, 0);
}

/* The residual of barrier @a (its seconds: how much longer the rank waited
 * there, in the trace, than for its slowest thread the decoder read),
 * taken down to what it waited beyond the traced arrivals of its threads
 * with MPI of their own in the team, which the decoder does not read (each
 * less its late start, which stays residual, as for the other threads). */
static double
stream_residual (const TsRank *rk, const TsAction *a)
{
  double residual = a->seconds;
  for (guint i = 0; residual > 0 && rk->team_streams && i < rk->team_streams->len; i++)
    {
      const TsRank *t = g_ptr_array_index (rk->team_streams, i);
      if (stream_member (rk, t))
        residual = MIN (residual, MAX (0, a->time - t->arrived_traced));
    }
  return residual;
}

enum { BARRIER_START, BARRIER_FLUSH, BARRIER_JOIN, BARRIER_PARK };

gboolean
ts_do_team_barrier (TsProgress *x)
{
  TsRank *rk = x->rk;
  switch (x->pc)
    {
    case BARRIER_START:
      /* Without threads running, the rank's compute before the barrier
       * stays merged with what follows. */
      if ((!rk->team_jobs || rk->team_jobs->len == 0)
          && !stream_behind (rk, x->a->region != TS_NO_REGION))
        goto joined;
      TS_AT (x->pc, BARRIER_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      for (x->thread_i = 0; rk->team_jobs && x->thread_i < rk->team_jobs->len; x->thread_i++)
        {
          TS_AT (x->pc, BARRIER_JOIN);
          TsTeamJob *tj = g_ptr_array_index (rk->team_jobs, x->thread_i);
          if (!ts_step_join_thread (x, &tj->job, !rk->sim->options->omp_active || rk->exclusive_cpu))
            return FALSE;
        }
      /* Its threads with MPI of their own, each done with its part of
       * the phase when it arrives (ts_do_thread_arrive wakes the rank). */
      while (stream_behind (rk, x->a->region != TS_NO_REGION))
        {
          x->on = (TsBlockedOn) { .what = "its OpenMP barrier, for a thread that calls MPI",
                                  .peer = TS_NO_RANK };
          TS_AT (x->pc, BARRIER_PARK);
          if (!ts_step_park (x, &x->on))
            return FALSE;
        }
    joined:
      if (rk->sim->writer && ts_rank_threads (rk->sim, rk->rank) > 1)
        write_phase_end (rk, x->a->region, ts_rank_now (rk));
      if (rk->team_jobs)
        free_jobs (rk, TRUE);
      /* A barrier in the team (the team's end is the fork's cost). */
      if (x->a->region != TS_NO_REGION)
        charge_runtime (rk, rk->sim->options->omp_barrier_cost);
    }
  /* What the rank waited there beyond its slowest thread in the trace (a
   * thread woken late, a core shared): residual, as an MPI call's. It is
   * the rank's own thread leaving the barrier late, after the others
   * left it: it is charged after the next phase's fork (the phase that
   * follows a barrier always begins with one), beside the others' work,
   * not before it. Charged before, a master that woke 0.5 ms late while
   * its worker worked 0.5 ms took 1 ms there (CP2K, 2 threads: +13%). */
  double residual = stream_residual (rk, x->a);
  if (residual > 0)
    {
      double charged = ts_rank_residual (rk, residual);
      rk->charged_residual += charged;
      if (x->a->region < ts_trace_n_regions (rk->sim->trace))
        rk->sim->region_residual[x->a->region] += charged * rk->sim->options->trace_speed
                                                  / rk->speed;
      rk->team_residual += charged;
    }
  x->pc = BARRIER_START;
  return TRUE;
}

guint
ts_rank_threads (const TsSimulation *sim, guint r)
{
  guint traced = ts_trace_rank_n_threads (sim->trace, r);
  const TsHypotheses *h = sim->options->hypotheses;
  guint team = h ? ts_hypotheses_team_size (h) : 0;
  /* A `threads = N` rule makes the rank's teams N threads, fewer than the
   * trace's too: the threads beyond N are in none of its teams (their
   * work went to the N, hypotheses.c), so they neither take a core nor
   * wait at its barriers. A rank that began no team (no parallel region,
   * and one thread) keeps its one: no core is kept for threads it would
   * never fork. */
  return team > 0 && ts_calibration_rank_has_teams (sim->calibration, sim->trace, r) ? team : traced;
}

void
ts_team_clear (TsRank *rk)
{
  rk->team_residual = 0;
  g_clear_pointer (&rk->team_work, g_array_unref);
  if (!rk->team_jobs)
    return;
  /* A trace cut inside a team leaves its last phase's jobs unjoined; they
   * ended with the simulation. */
  free_jobs (rk, FALSE);
  g_clear_pointer (&rk->team_jobs, g_ptr_array_unref);
}
