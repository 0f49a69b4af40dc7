/* OpenMP locks and critical sections, recorded on the thread that takes
 * them, as Score-P writes them:
 *   ENTER "!$omp critical", THREAD_ACQUIRE_LOCK (once the runtime gave
 *   it), the section, THREAD_RELEASE_LOCK, LEAVE "!$omp critical"
 * for GCC's critical constructs (GOMP_critical_start and _end, and their
 * named forms), and
 *   ENTER "omp_set_lock", THREAD_ACQUIRE_LOCK, LEAVE; ENTER
 *   "omp_unset_lock", THREAD_RELEASE_LOCK, LEAVE
 * for the lock routines (the nestable ones too; omp_test_lock's success an
 * acquisition), which both GCC's and LLVM's runtimes export. The time from the ENTER to the acquisition is
 * the thread's wait for the lock (tracesim's omp_lock_contention; the
 * replay orders the lock anew, sim/lock.c). A lock's id is its address's,
 * numbered from 1 in the order the rank first takes them (the unnamed
 * critical section is one lock, each named one another); the acquisition
 * order counts its acquisitions. */
#include <config.h>

#include "recorder/record-private.h"

/* A thread that waited for a lock while the rank finalized finds its
 * writer gone (ts_rec_evt gives NULL once the threads' writers closed):
 * the writer is asked for again after the runtime's call. */


typedef struct {
  guint32 id;
  guint32 order;             /* its acquisitions so far (changed by its holder only) */
} TsRecLock;

static GMutex locks_lock;
static GHashTable *locks;    /* address -> TsRecLock* */
static char unnamed_critical;

static TsRecLock *
lock_of (const void *address)
{
  g_mutex_lock (&locks_lock);
  if (!locks)
    locks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  TsRecLock *l = g_hash_table_lookup (locks, address);
  if (!l)
    {
      l = g_new0 (TsRecLock, 1);
      l->id = g_hash_table_size (locks) + 1;
      g_hash_table_insert (locks, (gpointer) address, l);
    }
  g_mutex_unlock (&locks_lock);
  return l;
}

/* The calling thread's writer if it records now, else NULL. */
OTF2_EvtWriter *
ts_rec_lock_writer (void)
{
  return ts_rec.on && ts_rec_depth == 0 ? ts_rec_evt () : NULL;
}

/* The thread has the lock at @address now (it entered the construct's
 * region when it asked). */
void
ts_rec_lock_acquired (OTF2_EvtWriter *w, const void *address)
{
  TsRecLock *l = lock_of (address);
  ts_rec_check (OTF2_EvtWriter_ThreadAcquireLock (w, NULL, ts_rec_now (), OTF2_PARADIGM_OPENMP,
                                                  l->id, l->order++));
}

/* ... and gives it back (before the runtime does: its order is still this
 * thread's). */
void
ts_rec_lock_released (OTF2_EvtWriter *w, const void *address)
{
  TsRecLock *l = lock_of (address);
  ts_rec_check (OTF2_EvtWriter_ThreadReleaseLock (w, NULL, ts_rec_now (), OTF2_PARADIGM_OPENMP,
                                                  l->id, l->order ? l->order - 1 : 0));
}

/* A critical section's start and end, of @name (NULL: unnamed). */
#define CRITICAL(start, end, params, args, address)                                           \
  void start params                                                                           \
  {                                                                                           \
    static void (*real) params;                                                               \
    if (!real)                                                                                \
      real = ts_rec_runtime (#start);                                                         \
    OTF2_EvtWriter *w = ts_rec_lock_writer ();                                                         \
    if (w)                                                                                    \
      ts_rec_omp_enter_at (w, ts_rec_now (), ts_rec_user_region ("!$omp critical"));          \
    real args;                                                                                \
    if (w && (w = ts_rec_lock_writer ()))                                                              \
      ts_rec_lock_acquired (w, address);                                                                  \
  }                                                                                           \
  void end params                                                                             \
  {                                                                                           \
    static void (*real) params;                                                               \
    if (!real)                                                                                \
      real = ts_rec_runtime (#end);                                                           \
    OTF2_EvtWriter *w = ts_rec_lock_writer ();                                                         \
    if (w)                                                                                    \
      ts_rec_lock_released (w, address);                                                                  \
    real args;                                                                                \
    if (w)                                                                                    \
      ts_rec_omp_leave_at (w, ts_rec_now (), ts_rec_user_region ("!$omp critical"));          \
  }
CRITICAL (GOMP_critical_start, GOMP_critical_end, (void), (), &unnamed_critical)
CRITICAL (GOMP_critical_name_start, GOMP_critical_name_end, (void **pptr), (pptr), pptr)
#undef CRITICAL

/* The lock routines: omp_set_lock (@lock) and omp_unset_lock, and the
 * nestable ones. */
#define LOCK_ROUTINES(set, unset, set_name, unset_name)                                        \
  void set (void *lock)                                                                       \
  {                                                                                           \
    static void (*real) (void *);                                                             \
    if (!real)                                                                                \
      real = ts_rec_runtime (#set);                                                           \
    OTF2_EvtWriter *w = ts_rec_lock_writer ();                                                         \
    if (w)                                                                                    \
      ts_rec_omp_enter_at (w, ts_rec_now (), ts_rec_user_region (set_name));                  \
    real (lock);                                                                              \
    if (!w || !(w = ts_rec_lock_writer ()))                                                            \
      return;                                                                                 \
    ts_rec_lock_acquired (w, lock);                                                                       \
    ts_rec_omp_leave_at (w, ts_rec_now (), ts_rec_user_region (set_name));                    \
  }                                                                                           \
  void unset (void *lock)                                                                     \
  {                                                                                           \
    static void (*real) (void *);                                                             \
    if (!real)                                                                                \
      real = ts_rec_runtime (#unset);                                                         \
    OTF2_EvtWriter *w = ts_rec_lock_writer ();                                                         \
    if (w)                                                                                    \
      {                                                                                       \
        ts_rec_omp_enter_at (w, ts_rec_now (), ts_rec_user_region (unset_name));              \
        ts_rec_lock_released (w, lock);                                                                   \
      }                                                                                       \
    real (lock);                                                                              \
    if (w)                                                                                    \
      ts_rec_omp_leave_at (w, ts_rec_now (), ts_rec_user_region (unset_name));                \
  }
LOCK_ROUTINES (omp_set_lock, omp_unset_lock, "omp_set_lock", "omp_unset_lock")
LOCK_ROUTINES (omp_set_nest_lock, omp_unset_nest_lock, "omp_set_nest_lock", "omp_unset_nest_lock")
/* Fortran's: libgomp's omp_set_lock_ calls omp_set_lock through a hidden
 * alias, which no preload reaches (a gfortran program's locks were not
 * recorded at all); the argument is the lock variable's address, as
 * omp_set_lock's is. Written under the C routines' names, as Score-P
 * does. (Programs built with -fdefault-integer-8 call the _8_ forms, not
 * taken.) */
LOCK_ROUTINES (omp_set_lock_, omp_unset_lock_, "omp_set_lock", "omp_unset_lock")
LOCK_ROUTINES (omp_set_nest_lock_, omp_unset_nest_lock_, "omp_set_nest_lock",
               "omp_unset_nest_lock")
#undef LOCK_ROUTINES

/* omp_test_lock: an acquisition where it succeeds (no waiting). */
#define TEST_ROUTINE(test, name)                                                              \
  int test (void *lock)                                                                       \
  {                                                                                           \
    static int (*real) (void *);                                                              \
    if (!real)                                                                                \
      real = ts_rec_runtime (#test);                                                          \
    OTF2_EvtWriter *w = ts_rec_lock_writer ();                                                         \
    if (w)                                                                                    \
      ts_rec_omp_enter_at (w, ts_rec_now (), ts_rec_user_region (name));                      \
    int got = real (lock);                                                                    \
    if (!w || !(w = ts_rec_lock_writer ()))                                                            \
      return got;                                                                             \
    if (got)                                                                                  \
      ts_rec_lock_acquired (w, lock);                                                                     \
    ts_rec_omp_leave_at (w, ts_rec_now (), ts_rec_user_region (name));                       \
    return got;                                                                               \
  }
TEST_ROUTINE (omp_test_lock, "omp_test_lock")
TEST_ROUTINE (omp_test_nest_lock, "omp_test_nest_lock")
/* Fortran's (a LOGICAL and an INTEGER, both 4 bytes, returned as C's int). */
TEST_ROUTINE (omp_test_lock_, "omp_test_lock")
TEST_ROUTINE (omp_test_nest_lock_, "omp_test_nest_lock")
#undef TEST_ROUTINE

void
ts_rec_locks_free (void)
{
  g_mutex_lock (&locks_lock);
  g_clear_pointer (&locks, g_hash_table_unref);
  g_mutex_unlock (&locks_lock);
}
