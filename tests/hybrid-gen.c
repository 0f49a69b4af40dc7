/* Writes a small MPI + OpenMP trace in the location layouts real tools use,
 * for tests/test-hybrid.sh: hybrid-gen LAYOUT DIR writes DIR/traces.otf2.
 *
 * Two ranks of two threads. Each master forks its team at 0, runs
 * compute_kernel for 2 ms, waits at the implicit barrier until 6 ms, joins,
 * then rank 0 sends rank 1 8 KiB (MPI_Send 6.0-6.1 ms, MPI_Recv 6.0-6.1 ms);
 * main ends at 7 ms: 13 events a master. Each worker runs compute_kernel
 * for 6 ms inside the team: 6 events.
 *
 * Layouts:
 *   scorep      Score-P's: location ids (thread << 32 | rank), an MPI
 *               COMM_LOCATIONS group of the masters, an OpenMP one of every
 *               thread, and per rank a thread team, a COMM_GROUP of the
 *               OpenMP paradigm whose members index the OpenMP group (2, 3
 *               for rank 1's team)
 *   eztrace     EZTrace's: the MPI groups, an "OpenMP Thread Team"
 *               communicator whose group 4 is never defined, and the
 *               barrier a user function "OpenMP implicit barrier" (EZTrace
 *               2's OMPT and GOMP modules)
 *   ezompt      eztrace, with each worker's team its "OpenMP implicit
 *               task" region and no team events, as EZTrace 2's OMPT
 *               module writes a worker (6 events still)
 *   nogroup     no COMM_LOCATIONS group at all; rank 1's process also has a
 *               thread of lower id than its master with no events (and no
 *               event file), and a third process has only such a thread
 *   mpi-thread  scorep, with rank 1's worker entering MPI_Isend (its 7th
 *               event, OTF2 counting from 1)
 *   late        scorep, with each master leaving the barrier at 6.5 ms, 0.5
 *               ms after its worker's work ended, and all after it 0.5 ms
 *               later (main ends at 7.5 ms)
 *   teams3      scorep, then two more teams after the message, each forked
 *               (THREAD_FORK) with the threads it asks for: one of the
 *               master alone (fork of 1: compute_kernel 6.1-6.5 ms, a
 *               barrier of no time), then one of both threads again (fork
 *               of 2: the master's compute_kernel 6.5-7.0 ms and its
 *               barrier until 8.5 ms, its worker's compute_kernel 6.5-8.5
 *               ms); main ends at 9 ms. The worker has no events in the
 *               second team: 16 more events a master, 6 a worker
 *   teams2      scorep, with a second team of the master alone after the
 *               message: compute_kernel 6.1-6.5 ms, a barrier of no
 *               time; its worker's events end with the first team
 *   cpu         scorep, with each thread's CPU time (a metric "cpu_time",
 *               nanoseconds, read before ENTERs and LEAVEs as
 *               tracesim-record writes it) as on a core shared by both
 *               threads: the master's 2 ms of compute_kernel took 1 ms of
 *               CPU, its worker's 6 ms 3 ms; after the team every second
 *               of wall time is one of CPU. Readings: the master's at the
 *               kernel's ENTER (0) and LEAVE (1 ms), the barrier's LEAVE
 *               (1.5 ms), the MPI call's ENTER (1.5) and LEAVE (1.6) and
 *               main's LEAVE (2.5 ms): 6 more events; the worker's at the
 *               kernel's ENTER (0) and LEAVE (3 ms) and the barrier's
 *               ENTER and LEAVE (3 ms): 4 more
 *   critical    scorep, with lock 1 taken in a critical section: each
 *               master's from 2 to 3 ms after its compute_kernel (its
 *               barrier from 3 ms), each worker's compute_kernel cut at 2.5
 *               ms by its own, which waits until 3 ms and holds the lock
 *               until 4 ms (4 more events a master, 6 a worker)
 *   single      each rank traced with one thread (no worker location), as a
 *               run with OMP_NUM_THREADS=1 is: the master forks a team of
 *               one (THREAD_FORK of 1), runs compute_kernel for 6 ms, its
 *               barrier takes no time, then the message and main's end at
 *               7 ms as in scorep: 13 events a master. The node says it had
 *               4 cores (property "cores"; the node under a machine);
 *               the team events name no
 *               communicator (tracesim-record's layout) */
#include <config.h>

#include <glib.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <string.h>

#define MS 1000000ull /* ticks: the clock counts nanoseconds */

enum { S_EMPTY, S_MAIN, S_KERNEL, S_BARRIER, S_SEND, S_RECV, S_ISEND, S_WORLD, S_TEAM,
       S_MASTER, S_WORKER, S_OTHER, S_NODE, S_PROCESS, S_EZ_BARRIER, S_EZ_TASK, S_CORES, S_MACHINE,
       S_CRITICAL, S_N };
static const char *const strings[S_N] = {
  "", "main", "compute_kernel", "!$omp implicit barrier @kernel.c:12", "MPI_Send", "MPI_Recv",
  "MPI_Isend", "MPI_COMM_WORLD", "Thread team", "Master thread", "OMP thread 1", "idle thread",
  "node", "process", "OpenMP implicit barrier", "OpenMP implicit task", "cores",
  "machine", "!$omp critical @kernel.c:20",
};
enum { R_MAIN, R_KERNEL, R_BARRIER, R_SEND, R_RECV, R_ISEND, R_CRITICAL, R_TASK };
enum { S_CPU = S_N, S_CPU_UNIT, S_ALL };

/* With @cpu, the thread's CPU time reading of @us microseconds at @t. */
static void
reading (OTF2_EvtWriter *w, int cpu, OTF2_TimeStamp t, uint64_t us)
{
  if (!cpu)
    return;
  OTF2_Type type = OTF2_TYPE_UINT64;
  OTF2_MetricValue v = { .unsigned_int = us * 1000 };
  OTF2_EvtWriter_Metric (w, NULL, t, 0, 1, &type, &v);
}

static OTF2_FlushType
pre_flush (void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *ud, OTF2_FileType type, OTF2_LocationRef loc)
{
  return 0;
}

static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };

typedef struct {
  const char *layout;
  OTF2_LocationRef master[2], worker[2];
  OTF2_CommRef team[2];
} Layout;

static int
fail (const char *what)
{
  fprintf (stderr, "hybrid-gen: %s failed\n", what);
  return 1;
}

/* A thread's part of a team: THREAD_TEAM_BEGIN at @from, compute_kernel
 * until @end, the barrier until @leave, THREAD_TEAM_END; with @fork > 0
 * (the rank's own thread), forked for @fork threads first and joined
 * after. */
static void
write_team (OTF2_EvtWriter *w, OTF2_CommRef team, uint64_t from, uint64_t end, uint64_t leave,
            uint32_t fork)
{
  if (fork)
    OTF2_EvtWriter_ThreadFork (w, NULL, from, OTF2_PARADIGM_OPENMP, fork);
  OTF2_EvtWriter_ThreadTeamBegin (w, NULL, from, team);
  OTF2_EvtWriter_Enter (w, NULL, from, R_KERNEL);
  OTF2_EvtWriter_Leave (w, NULL, end, R_KERNEL);
  OTF2_EvtWriter_Enter (w, NULL, end, R_BARRIER);
  OTF2_EvtWriter_Leave (w, NULL, leave, R_BARRIER);
  OTF2_EvtWriter_ThreadTeamEnd (w, NULL, leave, team);
  if (fork)
    OTF2_EvtWriter_ThreadJoin (w, NULL, leave, OTF2_PARADIGM_OPENMP);
}

/* @late: the master leaves the barrier 0.5 ms after its worker's work
 * ended, and everything after is as much later. */
/* The critical section of @w from @from: waiting for lock 1 until @take,
 * holding it until @give (its @order-th acquisition). */
static void
write_critical (OTF2_EvtWriter *w, uint64_t from, uint64_t take, uint64_t give, uint32_t order)
{
  OTF2_EvtWriter_Enter (w, NULL, from, R_CRITICAL);
  OTF2_EvtWriter_ThreadAcquireLock (w, NULL, take, OTF2_PARADIGM_OPENMP, 1, order);
  OTF2_EvtWriter_ThreadReleaseLock (w, NULL, give, OTF2_PARADIGM_OPENMP, 1, order);
  OTF2_EvtWriter_Leave (w, NULL, give, R_CRITICAL);
}

/* @critical: after its compute_kernel, the master holds lock 1 in a
 * critical section from 2 to 3 ms, then waits at the barrier. */
static void
write_master (OTF2_EvtWriter *w, int rank, OTF2_CommRef team, int late, int teams2, int cpu,
              int single, int critical)
{
  uint64_t d = late ? MS / 2 : 0;
  OTF2_EvtWriter_Enter (w, NULL, 0, R_MAIN);
  if (single)
    write_team (w, team, 0, 6 * MS, 6 * MS, 1);
  else
    {
      OTF2_EvtWriter_ThreadFork (w, NULL, 0, OTF2_PARADIGM_OPENMP, 2);
      OTF2_EvtWriter_ThreadTeamBegin (w, NULL, 0, team);
      reading (w, cpu, 0, 0);
      OTF2_EvtWriter_Enter (w, NULL, 0, R_KERNEL);
      reading (w, cpu, 2 * MS, 1000);
      OTF2_EvtWriter_Leave (w, NULL, 2 * MS, R_KERNEL);
      if (critical)
        write_critical (w, 2 * MS, 2 * MS, 3 * MS, 0);
      OTF2_EvtWriter_Enter (w, NULL, (2 + critical) * MS, R_BARRIER);
      reading (w, cpu, 6 * MS, 1500);
      OTF2_EvtWriter_Leave (w, NULL, 6 * MS + d, R_BARRIER);
      OTF2_EvtWriter_ThreadTeamEnd (w, NULL, 6 * MS + d, team);
      OTF2_EvtWriter_ThreadJoin (w, NULL, 6 * MS + d, OTF2_PARADIGM_OPENMP);
    }
  reading (w, cpu, 6 * MS, 1500);
  if (rank == 0)
    {
      OTF2_EvtWriter_Enter (w, NULL, 6 * MS + d, R_SEND);
      OTF2_EvtWriter_MpiSend (w, NULL, 6 * MS + d, 1, 0, 0, 8192);
      reading (w, cpu, 6 * MS + MS / 10, 1600);
      OTF2_EvtWriter_Leave (w, NULL, 6 * MS + MS / 10 + d, R_SEND);
    }
  else
    {
      OTF2_EvtWriter_Enter (w, NULL, 6 * MS + d, R_RECV);
      OTF2_EvtWriter_MpiRecv (w, NULL, 6 * MS + MS / 10 + d, 0, 0, 0, 8192);
      reading (w, cpu, 6 * MS + MS / 10, 1600);
      OTF2_EvtWriter_Leave (w, NULL, 6 * MS + MS / 10 + d, R_RECV);
    }
  if (teams2 == 3)
    {
      /* The master alone, as its fork asks; then both threads again. */
      write_team (w, team, 6 * MS + MS / 10, 6 * MS + MS / 2, 6 * MS + MS / 2, 1);
      write_team (w, team, 6 * MS + MS / 2, 7 * MS, 8 * MS + MS / 2, 2);
      OTF2_EvtWriter_Leave (w, NULL, 9 * MS, R_MAIN);
      return;
    }
  if (teams2)
    {
      /* A second team, of the master alone: compute_kernel 6.1-6.5 ms. */
      write_team (w, team, 6 * MS + MS / 10, 6 * MS + MS / 2, 6 * MS + MS / 2, 0);
    }
  reading (w, cpu, 7 * MS, 2500);
  OTF2_EvtWriter_Leave (w, NULL, 7 * MS + d, R_MAIN);
}

/* @task: the worker's team is its implicit task region, without team
 * events (EZTrace 2's OMPT module). @critical: its compute_kernel is cut
 * at 2.5 ms by a critical section whose lock it waits for until 3 ms and
 * holds until 4 ms. */
static void
write_worker (OTF2_EvtWriter *w, OTF2_CommRef team, int mpi, int cpu, int task, int teams3,
              int critical)
{
  if (task)
    {
      OTF2_EvtWriter_Enter (w, NULL, 0, R_TASK);
      OTF2_EvtWriter_Enter (w, NULL, 0, R_KERNEL);
      OTF2_EvtWriter_Leave (w, NULL, 6 * MS, R_KERNEL);
      OTF2_EvtWriter_Enter (w, NULL, 6 * MS, R_BARRIER);
      OTF2_EvtWriter_Leave (w, NULL, 6 * MS, R_BARRIER);
      OTF2_EvtWriter_Leave (w, NULL, 6 * MS, R_TASK);
      return;
    }
  OTF2_EvtWriter_ThreadTeamBegin (w, NULL, 0, team);
  reading (w, cpu, 0, 0);
  OTF2_EvtWriter_Enter (w, NULL, 0, R_KERNEL);
  if (critical)
    {
      OTF2_EvtWriter_Leave (w, NULL, 2 * MS + MS / 2, R_KERNEL);
      write_critical (w, 2 * MS + MS / 2, 3 * MS, 4 * MS, 1);
      OTF2_EvtWriter_Enter (w, NULL, 4 * MS, R_KERNEL);
    }
  reading (w, cpu, 6 * MS, 3000);
  OTF2_EvtWriter_Leave (w, NULL, 6 * MS, R_KERNEL);
  reading (w, cpu, 6 * MS, 3000);
  OTF2_EvtWriter_Enter (w, NULL, 6 * MS, R_BARRIER);
  reading (w, cpu, 6 * MS, 3000);
  OTF2_EvtWriter_Leave (w, NULL, 6 * MS, R_BARRIER);
  OTF2_EvtWriter_ThreadTeamEnd (w, NULL, 6 * MS, team);
  if (teams3)
    {
      /* In the third team, not the second. */
      write_team (w, team, 6 * MS + MS / 2, 8 * MS + MS / 2, 8 * MS + MS / 2, 0);
    }
  if (mpi)
    {
      OTF2_EvtWriter_Enter (w, NULL, 6 * MS, R_ISEND);
      OTF2_EvtWriter_MpiIsend (w, NULL, 6 * MS, 0, 0, 1, 64, 1);
      OTF2_EvtWriter_Leave (w, NULL, 6 * MS + 1000, R_ISEND);
    }
}

/* The CPU time metric as tracesim-record defines it. */
static void
write_cpu_metric (OTF2_GlobalDefWriter *g)
{
  OTF2_GlobalDefWriter_WriteString (g, S_CPU, "cpu_time");
  OTF2_GlobalDefWriter_WriteString (g, S_CPU_UNIT, "s");
  OTF2_GlobalDefWriter_WriteMetricMember (g, 0, S_CPU, S_CPU, OTF2_METRIC_TYPE_OTHER,
                                          OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                                          OTF2_BASE_DECIMAL, -9, S_CPU_UNIT);
  OTF2_MetricMemberRef member = 0;
  OTF2_GlobalDefWriter_WriteMetricClass (g, 0, 1, &member, OTF2_METRIC_SYNCHRONOUS_STRICT,
                                         OTF2_RECORDER_KIND_CPU);
}

/* @eztrace: the barrier as EZTrace 2's OpenMP modules (GOMP's and OMPT's)
 * write it, a user function by name only. */
static void
write_regions (OTF2_GlobalDefWriter *g, gboolean eztrace)
{
  for (guint32 s = 0; s < S_N; s++)
    OTF2_GlobalDefWriter_WriteString (g, s, strings[s]);
  typedef struct { uint32_t name; OTF2_RegionRole role; OTF2_Paradigm paradigm; } Region;
  static const Region scorep[] = {
    { S_MAIN, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER },
    { S_KERNEL, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER },
    { S_BARRIER, OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_PARADIGM_OPENMP },
    { S_SEND, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
    { S_RECV, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
    { S_ISEND, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
    { S_CRITICAL, OTF2_REGION_ROLE_CRITICAL, OTF2_PARADIGM_OPENMP },
  };
  static const Region ez_barrier = { S_EZ_BARRIER, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER };
  static const Region ez_task = { S_EZ_TASK, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER };
  Region r[G_N_ELEMENTS (scorep) + 1];
  memcpy (r, scorep, sizeof scorep);
  guint32 n = G_N_ELEMENTS (scorep);
  if (eztrace)
    {
      r[R_BARRIER] = ez_barrier;
      r[n++] = ez_task;
    }
  for (guint32 i = 0; i < n; i++)
    OTF2_GlobalDefWriter_WriteRegion (g, i, r[i].name, r[i].name, S_EMPTY, r[i].role,
                                      r[i].paradigm, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
}

/* Locations, groups and communicators as @l's tool writes them. */
static void
write_layout (OTF2_GlobalDefWriter *g, const Layout *l, gboolean eztrace, gboolean nogroup)
{
  gboolean single = !strcmp (l->layout, "single");
  /* single: the node under a machine (a root is no host), so that its
   * cores are the ranks' node's. */
  if (single)
    OTF2_GlobalDefWriter_WriteSystemTreeNode (g, 1, S_MACHINE, S_MACHINE,
                                              OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteSystemTreeNode (g, 0, S_NODE, S_NODE,
                                            single ? 1 : OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  if (single)
    OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (g, 0, S_CORES, OTF2_TYPE_UINT32,
                                                      (OTF2_AttributeValue) { .uint32 = 4 });
  for (int r = 0; r < 2; r++)
    {
      OTF2_GlobalDefWriter_WriteLocationGroup (g, r, S_PROCESS, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                               OTF2_UNDEFINED_LOCATION_GROUP);
      int cpu = !strcmp (l->layout, "cpu");
      OTF2_GlobalDefWriter_WriteLocation (g, l->master[r], S_MASTER, OTF2_LOCATION_TYPE_CPU_THREAD,
                                          13 + !strcmp (l->layout, "teams2") * 6 + cpu * 6
                                          + !strcmp (l->layout, "teams3") * 16
                                          + !strcmp (l->layout, "critical") * 4, r);
      if (!single)
        OTF2_GlobalDefWriter_WriteLocation (g, l->worker[r], S_WORKER, OTF2_LOCATION_TYPE_CPU_THREAD,
                                          6 + !strcmp (l->layout, "teams3") * 6
                                          + (!strcmp (l->layout, "mpi-thread") && r == 1) * 3
                                          + cpu * 4 + !strcmp (l->layout, "critical") * 6, r);
    }
  uint64_t masters[2] = { l->master[0], l->master[1] }, ranks[2] = { 0, 1 };
  if (nogroup)
    {
      OTF2_GlobalDefWriter_WriteLocation (g, 1, S_OTHER, OTF2_LOCATION_TYPE_CPU_THREAD, 0, 1);
      OTF2_GlobalDefWriter_WriteLocationGroup (g, 2, S_PROCESS, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                               OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation (g, 3, S_OTHER, OTF2_LOCATION_TYPE_CPU_THREAD, 0, 2);
      OTF2_GlobalDefWriter_WriteGroup (g, 0, S_WORLD, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                       OTF2_GROUP_FLAG_NONE, 2, ranks);
      OTF2_GlobalDefWriter_WriteComm (g, 0, S_WORLD, 0, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
      return;
    }
  OTF2_GlobalDefWriter_WriteGroup (g, 0, S_WORLD, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, 2, masters);
  OTF2_GlobalDefWriter_WriteGroup (g, 1, S_WORLD, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, 2, ranks);
  OTF2_GlobalDefWriter_WriteComm (g, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  if (eztrace)
    {
      OTF2_GlobalDefWriter_WriteComm (g, 4, S_TEAM, 4, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
      return;
    }
  if (single)
    return;
  uint64_t threads[4] = { l->master[0], l->worker[0], l->master[1], l->worker[1] };
  uint64_t team0[2] = { 0, 1 }, team1[2] = { 2, 3 };
  OTF2_GlobalDefWriter_WriteGroup (g, 2, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                   OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, 4, threads);
  OTF2_GlobalDefWriter_WriteGroup (g, 3, S_TEAM, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                   OTF2_GROUP_FLAG_NONE, 2, team0);
  OTF2_GlobalDefWriter_WriteGroup (g, 4, S_TEAM, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                   OTF2_GROUP_FLAG_NONE, 2, team1);
  OTF2_GlobalDefWriter_WriteComm (g, 1, S_TEAM, 3, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_GlobalDefWriter_WriteComm (g, 2, S_TEAM, 4, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: hybrid-gen scorep|eztrace|ezompt|nogroup|mpi-thread|late|teams2|teams3|cpu|single|critical DIR\n");
      return 2;
    }
  Layout l = { argv[1] };
  gboolean ezompt = !strcmp (l.layout, "ezompt");
  gboolean eztrace = !strcmp (l.layout, "eztrace") || ezompt, nogroup = !strcmp (l.layout, "nogroup");
  if (!eztrace && !nogroup && strcmp (l.layout, "scorep") && strcmp (l.layout, "mpi-thread")
      && strcmp (l.layout, "late") && strcmp (l.layout, "teams2") && strcmp (l.layout, "teams3")
      && strcmp (l.layout, "cpu") && strcmp (l.layout, "single") && strcmp (l.layout, "critical"))
    return fail ("the layout");
  gboolean single = !strcmp (l.layout, "single");
  for (int r = 0; r < 2; r++)
    {
      l.master[r] = eztrace ? r * 1000u : nogroup ? 2u * r : (unsigned) r;
      l.worker[r] = eztrace ? r * 1000u + 1 : (1ull << 32) | (uint64_t) r;
      l.team[r] = eztrace ? 4u : nogroup || single ? OTF2_UNDEFINED_COMM : 1u + (unsigned) r;
    }

  OTF2_Archive *a = OTF2_Archive_Open (argv[2], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                       4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                       OTF2_COMPRESSION_NONE);
  if (!a || OTF2_Archive_SetFlushCallbacks (a, &flush, NULL) != OTF2_SUCCESS
      || OTF2_Archive_SetSerialCollectiveCallbacks (a) != OTF2_SUCCESS
      || OTF2_Archive_SetCreator (a, eztrace ? "EZTrace 2.1" : "Score-P 8.0") != OTF2_SUCCESS
      || OTF2_Archive_OpenEvtFiles (a) != OTF2_SUCCESS)
    return fail ("opening the archive");
  for (int r = 0; r < 2; r++)
    {
      OTF2_EvtWriter *m = OTF2_Archive_GetEvtWriter (a, l.master[r]);
      OTF2_EvtWriter *w = single ? NULL : OTF2_Archive_GetEvtWriter (a, l.worker[r]);
      if (!m || (!w && !single))
        return fail ("an event writer");
      int cpu = !strcmp (l.layout, "cpu"), critical = !strcmp (l.layout, "critical");
      write_master (m, r, l.team[r], !strcmp (l.layout, "late"),
                    !strcmp (l.layout, "teams3") ? 3 : !strcmp (l.layout, "teams2"), cpu, single,
                    critical);
      OTF2_Archive_CloseEvtWriter (a, m);
      if (single)
        continue;
      write_worker (w, l.team[r], !strcmp (l.layout, "mpi-thread") && r == 1, cpu, ezompt,
                    !strcmp (l.layout, "teams3"), critical);
      OTF2_Archive_CloseEvtWriter (a, w);
    }
  OTF2_Archive_CloseEvtFiles (a);

  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter (a);
  if (!g)
    return fail ("the definitions' writer");
  OTF2_GlobalDefWriter_WriteClockProperties (g, 1000000000, 0, 9 * MS, OTF2_UNDEFINED_TIMESTAMP);
  write_regions (g, eztrace);
  if (!strcmp (l.layout, "cpu"))
    write_cpu_metric (g);
  write_layout (g, &l, eztrace, nogroup);
  OTF2_Archive_CloseGlobalDefWriter (a, g);
  return OTF2_Archive_Close (a) == OTF2_SUCCESS ? 0 : fail ("closing the archive");
}
