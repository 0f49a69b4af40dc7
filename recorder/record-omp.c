/* OpenMP thread teams of GCC's runtime (libgomp), recorded on every thread.
 *
 * GCC compiles a parallel region into a function the runtime runs on every
 * thread of the team: GOMP_parallel (fn, data, ...), and its loop forms.
 * The recorder, preloaded, takes those entry points (as EZTrace's GOMP
 * module does), calls the runtime's with a function of its own around
 * @fn, and writes on each thread of the team, into a location of the
 * thread's own (id thread << 32 | rank, as Score-P numbers them):
 *   THREAD_TEAM_BEGIN, ENTER "!$omp parallel", @fn, LEAVE, THREAD_TEAM_END
 * and on the rank's own thread around the whole team:
 *   THREAD_FORK, [the above], ENTER/LEAVE "!$omp implicit barrier" (from
 *   the end of its @fn until the runtime returns: it waited for the team),
 *   THREAD_TEAM_END, THREAD_JOIN.
 * Explicit barriers (GOMP_barrier) are ENTER/LEAVE "!$omp barrier", the
 * barriers ending a dynamic or guided loop or a sections construct
 * (GOMP_loop_end, GOMP_sections_end) "!$omp implicit barrier"; user
 * regions (ts_region_begin) on a team's thread go to its location. Only
 * teams the rank's own thread (MPI_Init's) forks are recorded; a thread's
 * implicit barrier after its @fn is inside the runtime, which the trace
 * does not show: it ends the thread's work.
 *
 * A thread that calls MPI (MPI_THREAD_MULTIPLE), in a team or not, records
 * into the same location of its own (ts_rec_evt), made at its first
 * event. */
#include <config.h>

#include "recorder/record-private.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  OTF2_EvtWriter *evt;
  guint32 index;             /* the thread's number in the rank, from 1 */
} TsRecThread;

/* The calling thread's own location, once it ran in a team. */
static __thread TsRecThread *self;
static GMutex threads_lock;
static GPtrArray *threads;   /* TsRecThread*, by index - 1 */

/* The OpenMP regions' ids, made by the rank's own thread at its first team
 * (user region ids: record-user.c unifies them over the ranks). */
static guint32 region_parallel, region_implicit, region_barrier;
static gboolean regions_made;

typedef struct {
  void (*fn) (void *);
  void *data;
  OTF2_TimeStamp own_end;    /* when the rank's own thread ended @fn */
} Outlined;

OTF2_EvtWriter *
ts_rec_evt (void)
{
  if (ts_rec_own_thread ())
    return ts_rec.on ? ts_rec.evt : NULL;
  if (!ts_rec.on)
    return NULL;
  if (!self)
    {
      g_mutex_lock (&threads_lock);
      if (!threads)
        threads = g_ptr_array_new_with_free_func (g_free);
      TsRecThread *t = g_new0 (TsRecThread, 1);
      t->index = threads->len + 1;
      t->evt = OTF2_Archive_GetEvtWriter (ts_rec.archive,
                                          (guint64) t->index << 32 | (guint64) ts_rec.rank);
      g_ptr_array_add (threads, t);
      g_mutex_unlock (&threads_lock);
      self = t;
    }
  return self->evt;
}

void
ts_rec_omp_enter_at (OTF2_EvtWriter *w, OTF2_TimeStamp t, guint32 region)
{
  ts_rec_cpu_time (w, t);
  ts_rec_check (OTF2_EvtWriter_Enter (w, NULL, t, region));
}

void
ts_rec_omp_leave_at (OTF2_EvtWriter *w, OTF2_TimeStamp t, guint32 region)
{
  ts_rec_cpu_time (w, t);
  ts_rec_check (OTF2_EvtWriter_Leave (w, NULL, t, region));
}

#define enter_at ts_rec_omp_enter_at
#define leave_at ts_rec_omp_leave_at

void
ts_rec_omp_enter (guint32 region)
{
  enter_at (ts_rec_evt (), ts_rec_now (), region);
}

void
ts_rec_omp_leave (guint32 region)
{
  leave_at (ts_rec_evt (), ts_rec_now (), region);
}

static void
outlined (void *p)
{
  Outlined *o = p;
  gboolean own = ts_rec_own_thread ();
  OTF2_EvtWriter *w = ts_rec_evt ();
  if (!w)
    {
      o->fn (o->data);
      return;
    }
  OTF2_TimeStamp t = ts_rec_now ();
  ts_rec_check (OTF2_EvtWriter_ThreadTeamBegin (w, NULL, t, OTF2_UNDEFINED_COMM));
  enter_at (w, t, region_parallel);
  o->fn (o->data);
  t = ts_rec_now ();
  leave_at (w, t, region_parallel);
  if (own)
    o->own_end = t;
  else
    ts_rec_check (OTF2_EvtWriter_ThreadTeamEnd (w, NULL, t, OTF2_UNDEFINED_COMM));
}

guint32
ts_rec_omp_region (TsRecOmpRegion which)
{
  return which == TS_OMP_PARALLEL ? region_parallel
         : which == TS_OMP_IMPLICIT_BARRIER ? region_implicit
                                            : region_barrier;
}

/* Whether a team forked here is recorded: by the rank's own thread,
 * outside the recorder's own calls, and not through GOMP's entry points
 * when LLVM's runtime reports its teams through OMPT (record-ompt.c). */
static gboolean
recording_team (void)
{
  return !ts_rec_ompt_active () && ts_rec_omp_team_recordable ();
}

gboolean
ts_rec_omp_team_recordable (void)
{
  if (!ts_rec_recording ())
    return FALSE;
  if (!regions_made)
    {
      region_parallel = ts_rec_user_region ("!$omp parallel");
      region_implicit = ts_rec_user_region ("!$omp implicit barrier");
      region_barrier = ts_rec_user_region ("!$omp barrier");
      regions_made = TRUE;
    }
  return TRUE;
}

static void
fork_team (unsigned threads_asked)
{
  ts_rec_check (OTF2_EvtWriter_ThreadFork (ts_rec.evt, NULL, ts_rec_now (), OTF2_PARADIGM_OPENMP,
                                           threads_asked));
}

static void
join_team (const Outlined *o)
{
  OTF2_TimeStamp t = ts_rec_now ();
  OTF2_TimeStamp end = o->own_end ? o->own_end : t;
  /* No CPU time read at the ENTER: the thread read it when its part
   * ended, then, at the same tick. */
  ts_rec_check (OTF2_EvtWriter_Enter (ts_rec.evt, NULL, end, region_implicit));
  leave_at (ts_rec.evt, t, region_implicit);
  ts_rec_check (OTF2_EvtWriter_ThreadTeamEnd (ts_rec.evt, NULL, t, OTF2_UNDEFINED_COMM));
  ts_rec_check (OTF2_EvtWriter_ThreadJoin (ts_rec.evt, NULL, t, OTF2_PARADIGM_OPENMP));
}

void *
ts_rec_runtime (const char *name)
{
  void *fn = dlsym (RTLD_NEXT, name);
  if (!fn)
    {
      fprintf (stderr, "tracesim-record: %s not found in the OpenMP runtime\n", name);
      abort ();
    }
  return fn;
}

void
GOMP_parallel (void (*fn) (void *), void *data, unsigned num_threads, unsigned flags)
{
  static void (*real) (void (*) (void *), void *, unsigned, unsigned);
  if (!real)
    real = ts_rec_runtime ("GOMP_parallel");
  if (!recording_team ())
    {
      real (fn, data, num_threads, flags);
      return;
    }
  Outlined o = { fn, data, 0 };
  fork_team (num_threads);
  real (outlined, &o, num_threads, flags);
  join_team (&o);
}

/* The loop forms: the same, with the loop's bounds and chunk. */
#define PARALLEL_LOOP(name)                                                                   \
  void name (void (*fn) (void *), void *data, unsigned num_threads, long start, long end,     \
             long incr, long chunk, unsigned flags)                                           \
  {                                                                                           \
    static void (*real) (void (*) (void *), void *, unsigned, long, long, long, long,         \
                         unsigned);                                                           \
    if (!real)                                                                                \
      real = ts_rec_runtime (#name);                                                          \
    if (!recording_team ())                                                                   \
      {                                                                                       \
        real (fn, data, num_threads, start, end, incr, chunk, flags);                         \
        return;                                                                               \
      }                                                                                       \
    Outlined o = { fn, data, 0 };                                                             \
    fork_team (num_threads);                                                                  \
    real (outlined, &o, num_threads, start, end, incr, chunk, flags);                         \
    join_team (&o);                                                                           \
  }
PARALLEL_LOOP (GOMP_parallel_loop_static)
PARALLEL_LOOP (GOMP_parallel_loop_dynamic)
PARALLEL_LOOP (GOMP_parallel_loop_guided)
#undef PARALLEL_LOOP

void
GOMP_barrier (void)
{
  static void (*real) (void);
  if (!real)
    real = ts_rec_runtime ("GOMP_barrier");
  OTF2_EvtWriter *w = NULL;
  if (regions_made && ts_rec.on && ts_rec_depth == 0 && !ts_rec_ompt_active ())
    w = ts_rec_evt ();
  if (w)
    enter_at (w, ts_rec_now (), region_barrier);
  real ();
  if (w)
    leave_at (w, ts_rec_now (), region_barrier);
}

/* The barrier that ends a worksharing loop or sections construct without
 * nowait (GCC calls the runtime's end there; a static loop's is a
 * GOMP_barrier): "!$omp implicit barrier", as Score-P names it. */
#define WORKSHARE_END(name)                                                                   \
  void name (void)                                                                            \
  {                                                                                           \
    static void (*real) (void);                                                               \
    if (!real)                                                                                \
      real = ts_rec_runtime (#name);                                                          \
    OTF2_EvtWriter *w = NULL;                                                                 \
    if (regions_made && ts_rec.on && ts_rec_depth == 0 && !ts_rec_ompt_active ())             \
      w = ts_rec_evt ();                                                                      \
    if (w)                                                                                    \
      enter_at (w, ts_rec_now (), region_implicit);                                           \
    real ();                                                                                  \
    if (w)                                                                                    \
      leave_at (w, ts_rec_now (), region_implicit);                                           \
  }
WORKSHARE_END (GOMP_loop_end)
WORKSHARE_END (GOMP_sections_end)
#undef WORKSHARE_END

guint
ts_rec_omp_close (guint64 **events)
{
  guint n = threads ? threads->len : 0;
  *events = g_new0 (guint64, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      TsRecThread *t = threads->pdata[i];
      OTF2_EvtWriter_GetNumberOfEvents (t->evt, &(*events)[i]);
      ts_rec_check (OTF2_Archive_CloseEvtWriter (ts_rec.archive, t->evt));
      t->evt = NULL;
    }
  return n;
}

void
ts_rec_omp_free (void)
{
  g_clear_pointer (&threads, g_ptr_array_unref);
  regions_made = FALSE;
}
