/* Locks: OpenMP's critical sections and omp_set_lock (OTF2's lock events,
 * model/decode-threads.c), shared by a rank's threads: its own location,
 * its threads with MPI of their own, its team's other threads' jobs.
 *
 * A thread that asks for a lock another holds waits, in simulated time and
 * asleep, until the holder's release hands it over: first come, first
 * served, in the order they asked in the replay, not the trace's
 * acquisition order, which is what a change may move. The trace's wait for
 * a lock is never charged (the decoder drops it from the work); the
 * replay's is what the wait-state analysis finds (omp_lock_contention). A
 * lock taken again by its holder (OpenMP's nestable locks) counts its
 * depth. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"

typedef struct {
  TsProgress *x;
  guint thread;
  guint location;            /* where it writes its acquisition */
} TsLockWaiter;

/* A lock is held by a thread, not by a progress: a team's thread may take
 * it in one phase and give it back in the next (a barrier between), each
 * phase's work a job of its own. */
typedef struct {
  gboolean held;
  guint holder;              /* the holding thread (0: the rank's own) */
  guint depth;               /* its nested acquisitions */
  GQueue waiters;            /* TsLockWaiter*, in the order they asked */
  guint32 acquisitions;      /* so far: the next one's order */
} TsLock;

static void
lock_free (gpointer p)
{
  TsLock *l = p;
  g_queue_clear_full (&l->waiters, g_free);
  g_free (l);
}

/* Lock @id of @rk's process (its rank's table). */
static TsLock *
lock_of (TsRank *rk, guint32 id)
{
  TsRank *process = &rk->sim->ranks[rk->rank];
  if (!process->locks)
    process->locks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, lock_free);
  TsLock *l = g_hash_table_lookup (process->locks, GUINT_TO_POINTER (id));
  if (!l)
    {
      l = g_new0 (TsLock, 1);
      g_queue_init (&l->waiters);
      g_hash_table_insert (process->locks, GUINT_TO_POINTER (id), l);
    }
  return l;
}

static void
write_lock (TsRank *rk, guint location, guint32 id, guint32 order, gboolean release)
{
  if (rk->sim->writer)
    ts_archive_writer_lock (rk->sim->writer, location, rk->sim->world->now (rk->sim), id, order,
                            release);
}

gboolean
ts_lock_take (TsProgress *x, guint thread, guint32 id, guint location)
{
  TsLock *l = lock_of (x->rk, id);
  if (l->held && l->holder != thread)
    {
      TsLockWaiter *w = g_new (TsLockWaiter, 1);
      *w = (TsLockWaiter) { x, thread, location };
      g_queue_push_tail (&l->waiters, w);
      x->on = (TsBlockedOn) { .what = "OpenMP lock (a critical section or omp_set_lock)",
                              .peer = TS_NO_RANK, .lock = TRUE, .lock_id = id,
                              .lock_holder = l->holder };
      return FALSE;
    }
  if (l->held)
    l->depth++;
  else
    {
      l->held = TRUE;
      l->holder = thread;
      l->depth = 1;
      write_lock (x->rk, location, id, l->acquisitions++, FALSE);
    }
  return TRUE;
}

void
ts_lock_give (TsProgress *x, guint thread, guint32 id, guint location)
{
  TsLock *l = lock_of (x->rk, id);
  /* A release of a lock it does not hold (a trace that lost the
   * acquisition) changes nothing. */
  if (!l->held || l->holder != thread || --l->depth > 0)
    return;
  write_lock (x->rk, location, id, l->acquisitions - 1, TRUE);
  TsLockWaiter *w = g_queue_pop_head (&l->waiters);
  l->held = w != NULL;
  if (!w)
    return;
  l->holder = w->thread;
  l->depth = 1;
  write_lock (w->x->rk, w->location, id, l->acquisitions++, FALSE);
  x->rk->sim->world->resume (w->x);
  g_free (w);
}

void
ts_locks_clear (TsRank *rk)
{
  g_clear_pointer (&rk->locks, g_hash_table_unref);
}

enum { LOCK_START, LOCK_FLUSH, LOCK_HOLD };

gboolean
ts_do_lock (TsProgress *x)
{
  TsRank *rk = x->rk;
  guint32 id = (guint32) x->a->bytes;
  switch (x->pc)
    {
    case LOCK_START:
      TS_AT (x->pc, LOCK_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      if (x->a->flags & TS_ACTION_RELEASE)
        ts_lock_give (x, rk->thread, id, rk->location);
      else if (!ts_lock_take (x, rk->thread, id, rk->location))
        {
          TS_AT (x->pc, LOCK_HOLD);
          if (!ts_step_hold (x, &x->on))
            return FALSE;
        }
    }
  x->pc = LOCK_START;
  return TRUE;
}
