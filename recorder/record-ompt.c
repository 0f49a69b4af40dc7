/* OpenMP thread teams of LLVM's runtime (libomp), recorded through OMPT.
 *
 * Preloaded, the recorder defines ompt_start_tool: LLVM's runtime finds it
 * when it starts and calls back at every team's events (GCC's runtime has
 * no OMPT and never calls it: record-omp.c takes its entry points instead,
 * and stands aside once OMPT is active, since LLVM's runtime has GOMP's
 * entry points too, for GCC's code). Teams the rank's own thread forks are
 * written as Score-P writes them, on each thread into its own location
 * (ts_rec_evt):
 *   master:  THREAD_FORK, THREAD_TEAM_BEGIN, ENTER "!$omp parallel", ...,
 *            ENTER/LEAVE "!$omp implicit barrier", LEAVE, THREAD_TEAM_END,
 *            THREAD_JOIN
 *   others:  the same without the fork and the join
 * with ENTER/LEAVE "!$omp barrier" at explicit barriers and "!$omp
 * implicit barrier" at a worksharing construct's, on every thread of the
 * team. A thread's work ends where it enters a barrier: the barrier is
 * waiting for the team, which the replay simulates anew.
 *
 * Whether a callback belongs to a recorded team is kept in OMPT's own
 * per-region and per-task data (a pointer to the team), so that teams
 * forked on other threads, nested ones and the runtime's initial task are
 * left alone. LLVM's runtime tells a worker that its team's last barrier
 * ended only when the worker wakes for the next team, or after the program
 * ends: that leave is stamped with the team's end, and a last team still
 * open is closed at MPI_Finalize (ts_rec_ompt_close). */
#include <config.h>

#include "recorder/record-private.h"

#if HAVE_OMPT

#include <omp-tools.h>

/* A recorded team, shared by its threads' tasks (OMPT's data words point
 * to it): when the rank's own thread left it. LLVM's runtime tells a
 * worker that its team's last barrier ended only when it wakes for the
 * next team (or at exit): the worker's leave is then stamped with the
 * team's end, when the runtime released it. */
typedef struct {
  OTF2_TimeStamp end;        /* 0 until the rank's own thread leaves */
  gint refs;                 /* the tasks not yet ended, and the region's */
} Team;

/* A thread's part in a recorded team, for closing at MPI_Finalize what the
 * runtime will tell only after it. */
typedef struct {
  OTF2_EvtWriter *w;
  Team *team;                /* NULL: in none */
  gint barrier;              /* the barrier region open, -1: none */
} Part;

static gboolean active;
static GMutex parts_lock;
static GPtrArray *parts;     /* Part*, every thread's that was in a team */
static __thread Part *part;

gboolean
ts_rec_ompt_active (void)
{
  return active;
}

static void
team_unref (Team *team)
{
  if (g_atomic_int_dec_and_test (&team->refs))
    g_free (team);
}

/* The calling thread's part, made at its first team. */
static Part *
my_part (void)
{
  if (!part)
    {
      part = g_new0 (Part, 1);
      part->barrier = -1;
      g_mutex_lock (&parts_lock);
      if (!parts)
        parts = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (parts, part);
      g_mutex_unlock (&parts_lock);
    }
  return part;
}

/* When a thread of @team that the runtime tells late ended its part: the
 * team's end if the rank's own thread left it by then. */
static OTF2_TimeStamp
late (const Team *team)
{
  OTF2_TimeStamp now = ts_rec_now ();
  return team->end && team->end < now ? team->end : now;
}

static gboolean
recording (void)
{
  return ts_rec.on && ts_rec_depth == 0;
}

static void
on_parallel_begin (ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                   unsigned int requested, int flags, const void *codeptr)
{
  (void) frame, (void) flags, (void) codeptr;
  parallel->ptr = NULL;
  /* Only the rank's own thread's teams, never one nested in a recorded
   * team (the rank's own thread is then inside one of its tasks). */
  if (!ts_rec_omp_team_recordable () || (task && task->ptr))
    return;
  Team *team = g_new0 (Team, 1);
  team->refs = 1;
  parallel->ptr = team;
  ts_rec_check (OTF2_EvtWriter_ThreadFork (ts_rec.evt, NULL, ts_rec_now (), OTF2_PARADIGM_OPENMP,
                                           requested));
}

static void
on_parallel_end (ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
  (void) task, (void) flags, (void) codeptr;
  Team *team = parallel->ptr;
  if (!team)
    return;
  if (recording ())
    ts_rec_check (OTF2_EvtWriter_ThreadJoin (ts_rec.evt, NULL, ts_rec_now (), OTF2_PARADIGM_OPENMP));
  parallel->ptr = NULL;
  team_unref (team);
}

static void
task_begin (ompt_data_t *parallel, ompt_data_t *task)
{
  Team *team = parallel ? parallel->ptr : NULL;
  if (!team || !recording ())
    return;
  g_atomic_int_inc (&team->refs);
  task->ptr = team;
  Part *p = my_part ();
  p->w = ts_rec_evt ();
  p->team = team;
  p->barrier = -1;
  OTF2_TimeStamp t = ts_rec_now ();
  ts_rec_check (OTF2_EvtWriter_ThreadTeamBegin (p->w, NULL, t, OTF2_UNDEFINED_COMM));
  ts_rec_omp_enter_at (p->w, t, ts_rec_omp_region (TS_OMP_PARALLEL));
}

/* The end of @p's part in its team at @t: what is open left, the team
 * ended. */
static void
part_end (Part *p, OTF2_TimeStamp t)
{
  if (p->barrier >= 0)
    ts_rec_omp_leave_at (p->w, t, (guint32) p->barrier);
  ts_rec_omp_leave_at (p->w, t, ts_rec_omp_region (TS_OMP_PARALLEL));
  ts_rec_check (OTF2_EvtWriter_ThreadTeamEnd (p->w, NULL, t, OTF2_UNDEFINED_COMM));
  p->barrier = -1;
  p->team = NULL;
}

static void
on_implicit_task (ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                  unsigned int actual, unsigned int index, int flags)
{
  (void) actual, (void) index;
  if (endpoint == ompt_scope_begin)
    {
      task->ptr = NULL;
      /* The initial task of a thread is no team's. */
      if (!(flags & ompt_task_initial))
        task_begin (parallel, task);
      return;
    }
  /* The end, after the team's last barrier (parallel is NULL here). */
  Team *team = task->ptr;
  if (!team)
    return;
  task->ptr = NULL;
  if (part && part->team == team && recording ())
    {
      gboolean own = ts_rec_own_thread ();
      OTF2_TimeStamp t = own ? ts_rec_now () : late (team);
      part_end (part, t);
      if (own)
        team->end = t;
    }
  team_unref (team);
}

static void
on_sync_region (ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                ompt_data_t *task, const void *codeptr)
{
  (void) parallel, (void) codeptr;
  TsRecOmpRegion region;
  switch ((int) kind)
    {
    case ompt_sync_region_barrier_explicit:
      region = TS_OMP_BARRIER;
      break;
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
      region = TS_OMP_IMPLICIT_BARRIER;
      break;
    default:
      /* Taskwait, taskgroup, a reduction's barrier (the runtime's own,
       * "implementation"): not recorded, the time stays in its region. */
      return;
    }
  Team *team = task ? task->ptr : NULL;
  if (!team || !part || part->team != team || !recording ())
    return;
  guint32 id = ts_rec_omp_region (region);
  if (endpoint == ompt_scope_begin)
    {
      ts_rec_omp_enter_at (part->w, ts_rec_now (), id);
      part->barrier = (gint) id;
    }
  else if (part->barrier >= 0)
    {
      /* A team's last barrier ends for a worker when it wakes for the next
       * team: then the team had ended. */
      OTF2_TimeStamp t = ts_rec_own_thread () ? ts_rec_now () : late (team);
      ts_rec_omp_leave_at (part->w, t, id);
      part->barrier = -1;
    }
}

void
ts_rec_ompt_close (void)
{
  g_mutex_lock (&parts_lock);
  for (guint i = 0; parts && i < parts->len; i++)
    {
      Part *p = parts->pdata[i];
      /* A worker of the rank's last team: the runtime tells it the team
       * ended only after MPI_Finalize. It ended when the team did. */
      if (p->team && p->w)
        part_end (p, p->team->end ? p->team->end : ts_rec_now ());
      p->team = NULL;
      p->w = NULL;
    }
  g_mutex_unlock (&parts_lock);
}

/* Critical sections (clang's __kmpc_critical, which no entry point of the
 * recorder takes), as record-locks.c writes GCC's: ENTER "!$omp critical"
 * when the thread asks, THREAD_ACQUIRE_LOCK when it has the lock,
 * THREAD_RELEASE_LOCK and LEAVE when it gives it back. The lock routines
 * are taken by their entry points (record-locks.c), not here: they would
 * be written twice. */
static void
on_mutex_acquire (ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                  const void *codeptr_ra)
{
  (void) hint, (void) impl, (void) wait_id, (void) codeptr_ra;
  OTF2_EvtWriter *w = kind == ompt_mutex_critical ? ts_rec_lock_writer () : NULL;
  if (w)
    ts_rec_omp_enter_at (w, ts_rec_now (), ts_rec_user_region ("!$omp critical"));
}

static void
on_mutex_acquired (ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
  (void) codeptr_ra;
  OTF2_EvtWriter *w = kind == ompt_mutex_critical ? ts_rec_lock_writer () : NULL;
  if (w)
    ts_rec_lock_acquired (w, (gconstpointer) (guintptr) wait_id);
}

static void
on_mutex_released (ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
  (void) codeptr_ra;
  OTF2_EvtWriter *w = kind == ompt_mutex_critical ? ts_rec_lock_writer () : NULL;
  if (!w)
    return;
  ts_rec_lock_released (w, (gconstpointer) (guintptr) wait_id);
  ts_rec_omp_leave_at (w, ts_rec_now (), ts_rec_user_region ("!$omp critical"));
}

static int
initialize (ompt_function_lookup_t lookup, int device, ompt_data_t *tool)
{
  (void) device, (void) tool;
  ompt_set_callback_t set = (ompt_set_callback_t) lookup ("ompt_set_callback");
  if (!set)
    return 0;
  /* ompt_set_always: the runtime calls back at every such event. Without
   * all four, no team could be written whole: the tool stands down and
   * GOMP's entry points (if any) are taken instead. */
  if (set (ompt_callback_parallel_begin, (ompt_callback_t) on_parallel_begin) != ompt_set_always
      || set (ompt_callback_parallel_end, (ompt_callback_t) on_parallel_end) != ompt_set_always
      || set (ompt_callback_implicit_task, (ompt_callback_t) on_implicit_task) != ompt_set_always
      || set (ompt_callback_sync_region, (ompt_callback_t) on_sync_region) != ompt_set_always)
    return 0;
  /* Critical sections where the runtime reports them (without, they stay
   * work, as before). */
  set (ompt_callback_mutex_acquire, (ompt_callback_t) on_mutex_acquire);
  set (ompt_callback_mutex_acquired, (ompt_callback_t) on_mutex_acquired);
  set (ompt_callback_mutex_released, (ompt_callback_t) on_mutex_released);
  active = TRUE;
  return 1;
}

static void
finalize (ompt_data_t *tool)
{
  (void) tool;
  active = FALSE;
}

ompt_start_tool_result_t *
ompt_start_tool (unsigned int omp_version, const char *runtime_version)
{
  (void) omp_version, (void) runtime_version;
  static ompt_start_tool_result_t result = { initialize, finalize, { .value = 0 } };
  return &result;
}

#else

gboolean
ts_rec_ompt_active (void)
{
  return FALSE;
}

void
ts_rec_ompt_close (void)
{
}

#endif
