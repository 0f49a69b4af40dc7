/* libtracesim-record: a PMPI interposer that writes an OTF2 trace of an MPI
 * program, complete where tracers usually are not: the envelope of every
 * receive, every completion inside the Wait / Test family, every failed test
 * (MpiRequestTest), communicators with their members, MPI-4 partitioned
 * communication (doc/event-model.md) and user regions. Load it with
 * LD_PRELOAD (tracesim-record does) or link it before the MPI library.
 *
 * This file: MPI_Init / MPI_Finalize, the archive and the definitions.
 * Recording never stops the program: a failure prints one warning per rank
 * and recording switches off; the archive is still closed collectively. */
#include <config.h>

#include "recorder/record-private.h"

#include <otf2/OTF2_Pthread_Locks.h>
#include "model/otf2-chunk.h"
#include "model/trace.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <otf2/OTF2_MPI_Collectives.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

TsRecorder ts_rec;
__thread const void *ts_rec_caller;
__thread int ts_rec_depth;

static const char *const mpi_region_names[TS_R_N_MPI] = {
#define TS_REC_NAME(e, name) name,
  TS_REC_MPI_REGIONS (TS_REC_NAME)
#undef TS_REC_NAME
};

void
ts_rec_warn_off (const char *what)
{
  if (ts_rec.on)
    fprintf (stderr, "tracesim-record: rank %d: %s; recording stops, the program runs on\n",
             ts_rec.rank, what);
  ts_rec.on = FALSE;
}

void
ts_rec_check (OTF2_ErrorCode status)
{
  if (status != OTF2_SUCCESS)
    ts_rec_warn_off ("cannot write events (disk full?)");
}

void
ts_rec_cpu_time (OTF2_EvtWriter *w, OTF2_TimeStamp t)
{
  struct timespec ts;
  if (!ts_rec.cpu_time || clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return;
  OTF2_Type type = OTF2_TYPE_UINT64;
  OTF2_MetricValue v = { .unsigned_int = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec };
  ts_rec_check (OTF2_EvtWriter_Metric (w, NULL, t, TS_REC_CPU_METRIC, 1, &type, &v));
}

/* The calling thread's attribute list, reused (OTF2 empties it at each
 * write); freed when the thread ends. */
static void
attributes_free (gpointer a)
{
  OTF2_AttributeList_Delete (a);
}

static GPrivate attributes_key = G_PRIVATE_INIT (attributes_free);

static OTF2_AttributeList *
thread_attributes (void)
{
  OTF2_AttributeList *a = g_private_get (&attributes_key);
  if (!a)
    {
      a = OTF2_AttributeList_New ();
      g_private_set (&attributes_key, a);
    }
  return a;
}

void
ts_rec_enter (guint32 region)
{
  const void *caller = ts_rec_caller;
  ts_rec_caller = NULL;
  if (!ts_rec.on)
    return;
  /* Naming the caller comes before the timestamp: its first lookup reads a
   * symbol table, which is the recorder's time, not the call's. */
  OTF2_AttributeList *attributes = NULL;
  if (caller && region < TS_R_N_MPI)
    {
      if (ts_rec_inside_mpi_layers (caller))
        caller = ts_rec_program_caller (caller);
      attributes = thread_attributes ();
      OTF2_AttributeList_AddRegionRef (attributes, TS_REC_CALLER_ATTRIBUTE,
                                       ts_rec_caller_region (caller));
    }
  OTF2_EvtWriter *w = ts_rec_evt ();
  OTF2_TimeStamp t = ts_rec_now ();
  ts_rec_cpu_time (w, t);
  ts_rec_check (OTF2_EvtWriter_Enter (w, attributes, t, region));
}

void
ts_rec_leave (guint32 region)
{
  if (!ts_rec.on)
    return;
  OTF2_EvtWriter *w = ts_rec_evt ();
  OTF2_TimeStamp t = ts_rec_now ();
  ts_rec_cpu_time (w, t);
  ts_rec_check (OTF2_EvtWriter_Leave (w, NULL, t, region));
}

guint64
ts_rec_bytes (MPI_Count count, MPI_Datatype type)
{
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL)
    return 0;
  PMPI_Type_size (type, &size);
  return (guint64) count * (guint64) MAX (size, 0);
}

/* MPI handles are ints (MPICH) or pointers (Open MPI): their bits are the key. */
guint64
ts_rec_handle_key (const void *handle, size_t size)
{
  guint64 k = 0;
  memcpy (&k, handle, MIN (size, sizeof k));
  return k;
}

static OTF2_FlushType
pre_flush (void *user_data, OTF2_FileType type, OTF2_LocationRef location, void *caller,
           bool final)
{
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *user_data, OTF2_FileType type, OTF2_LocationRef location)
{
  return ts_rec_now ();
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

/* OTF2 prints its errors itself; the recorder says one line instead. */
static OTF2_ErrorCode
quiet (void *user_data, const char *file, uint64_t line, const char *function,
       OTF2_ErrorCode code, const char *message, va_list args)
{
  return code;
}

/* ---- set-up ------------------------------------------------------------------ */

/* OTF2's default chunks; definition chunks larger where MPI_COMM_WORLD's
 * group needs it (from 1,065,014 ranks on: model/otf2-chunk.h). The 4 MiB
 * default stays the floor: each rank's definitions also hold a mapping
 * table with an entry per communicator the program will create, unknown
 * here. start() refuses a world no chunk can hold. */
static gboolean
open_archive (const char *dir)
{
  guint64 def_chunk = MAX (OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                           ts_otf2_def_chunk_size ((guint64) ts_rec.size));
  ts_rec.archive = OTF2_Archive_Open (dir, "traces", OTF2_FILEMODE_WRITE,
                                      OTF2_CHUNK_SIZE_EVENTS_DEFAULT, def_chunk,
                                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  return ts_rec.archive
         && OTF2_Archive_SetFlushCallbacks (ts_rec.archive, &flush_callbacks, NULL) == OTF2_SUCCESS
         /* An OpenMP team's threads get their event writers while others
          * write (record-omp.c). */
         && OTF2_Pthread_Archive_SetLockingCallbacks (ts_rec.archive, NULL) == OTF2_SUCCESS
         && OTF2_MPI_Archive_SetCollectiveCallbacks (ts_rec.archive, MPI_COMM_WORLD,
                                                     MPI_COMM_NULL) == OTF2_SUCCESS
         && OTF2_Archive_SetCreator (ts_rec.archive, "tracesim-record " PACKAGE_VERSION)
              == OTF2_SUCCESS
         && OTF2_Archive_OpenEvtFiles (ts_rec.archive) == OTF2_SUCCESS
         && (ts_rec.evt = OTF2_Archive_GetEvtWriter (ts_rec.archive, ts_rec.rank));
}

static void remove_archive (const char *dir);

/* This rank's one line on why nothing is recorded, @err its errno where its
 * own open failed. Rank 0 then removes what this run began of the archive:
 * ts_rec_dir_prepare left none in @dir, so what is there now is this run's
 * own, which a next recording into @dir would refuse (an archive without
 * the marker). Every rank's open is over: the caller's MPI_Allreduce. */
static void
not_recording (const char *dir, const char *refused, gboolean ready, gboolean ok,
               gboolean rank0_ok, int err)
{
  g_autofree char *why =
    refused            ? g_strdup (refused)
    : !ready           ? g_strdup_printf ("rank 0 cannot use %s", dir)
    : ok               ? g_strdup ("another rank cannot create the OTF2 archive")
    : ts_rec.rank == 0 ? ts_rec_dir_failure (dir)
    : !rank0_ok        ? g_strdup_printf ("rank 0 cannot create the OTF2 archive in %s", dir)
                       : g_strdup_printf ("cannot create the OTF2 archive in %s%s%s", dir,
                                          err ? ": " : "", err ? g_strerror (err) : "");
  fprintf (stderr, "tracesim-record: rank %d: %s; recording stops, the program runs on\n",
           ts_rec.rank, why);
  if (ready && ts_rec.rank == 0)
    remove_archive (dir);
}

static void
start (void)
{
  g_free (ts_rec.dir);
  memset (&ts_rec, 0, sizeof ts_rec);
  ts_rec.thread = pthread_self ();
  ts_rec.sync_comm = MPI_COMM_NULL;
  PMPI_Comm_rank (MPI_COMM_WORLD, &ts_rec.rank);
  PMPI_Comm_size (MPI_COMM_WORLD, &ts_rec.size);
  const char *dir = g_getenv ("TS_RECORD_DIR");
  if (!dir || !*dir)
    dir = "tracesim-trace";
  ts_rec_depth++;
  ts_rec_clock_init ();
  OTF2_Error_RegisterCallback (quiet, NULL);
  g_free (ts_rec.dir);
  ts_rec.dir = g_strdup (dir);
  /* Rank 0 readies the directory (its own earlier recording moved aside)
   * before any rank opens the archive: the broadcast holds them back. The
   * barrier first: tracesim-record checks the directory on each rank before
   * the program starts, and no check may see it half moved or half made. */
  g_autofree char *refused = NULL, *moved_to = NULL;
  int ready = 1;
  PMPI_Barrier (MPI_COMM_WORLD);
  if (ts_rec.rank == 0)
    {
      refused = ts_otf2_def_chunk_size ((guint64) ts_rec.size) == 0
                  ? g_strdup_printf ("%d ranks are more than an OTF2 archive can define "
                                     "(a group of at most 4,194,291 members)", ts_rec.size)
                  : ts_rec_dir_prepare (dir, &moved_to);
      ready = refused == NULL;
      /* Said now, whatever follows: the earlier recording is no longer at -o. */
      if (moved_to)
        fprintf (stderr, "tracesim-record: %s held an earlier recording: moved to %s\n", dir,
                 moved_to);
    }
  PMPI_Bcast (&ready, 1, MPI_INT, 0, MPI_COMM_WORLD);
  errno = 0;
  gboolean ok = ready && open_archive (dir);
  int err = ok ? 0 : errno;
  /* Either every rank records or none does: the archive is written and
   * closed collectively, so a rank that cannot must stop the others. The
   * second: whether rank 0 opened it, so that the others know whose
   * failure theirs is (OTF2's rank 0 makes the directories for all). */
  int mine[2] = { ok, ts_rec.rank != 0 || ok }, all[2] = { 0, 0 };
  PMPI_Allreduce (mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all[0])
    {
      not_recording (dir, refused, ready, ok, all[1], err);
      /* Abandoned, not closed: closing is collective among all ranks. */
      ts_rec.archive = NULL;
      ts_rec_depth--;
      return;
    }
  g_autofree char *library = ts_rec_mpi_library ();
  if (*library)
    OTF2_Archive_SetProperty (ts_rec.archive, TS_MPI_LIBRARY_PROPERTY, library, true);
  if (ts_rec.rank == 0)
    ts_rec_dir_write_marker (dir, ts_rec.size, library);
  ts_rec.open = ts_rec.on = TRUE;
  const char *cpu = g_getenv ("TS_RECORD_CPU_TIME");
  ts_rec.cpu_time = cpu && (strcmp (cpu, "1") == 0 || g_ascii_strcasecmp (cpu, "yes") == 0);
  ts_rec_requests_init ();
  ts_rec_comm_init ();
  ts_rec.user_region_ids = g_hash_table_new (g_str_hash, g_str_equal);
  ts_rec.user_region_names = g_ptr_array_new_with_free_func (g_free);
  ts_rec_clock_sync (0);
  ts_rec.first_time = ts_rec_now ();
  ts_rec_depth--;
}

/* ---- definitions ------------------------------------------------------------- */

static void
write_string (OTF2_GlobalDefWriter *g, guint32 ref, const char *s)
{
  OTF2_GlobalDefWriter_WriteString (g, ref, s);
}

/* The machine, and under it one node (class "node", as Score-P writes
 * them) per host the ranks ran on: @hosts holds each rank's processor name
 * in MPI_MAX_PROCESSOR_NAME bytes, @cores the CPUs its node had online
 * (written as the node's property TS_TRACE_NODE_CORES: whether ranks
 * outnumbered them, and so time-shared them). Sets each rank's node in
 * @rank_node. */
static void
write_system_tree (OTF2_GlobalDefWriter *g, guint32 *s, const char *hosts, const guint32 *cores,
                   guint32 *rank_node)
{
  guint32 cores_name = (*s)++;
  write_string (g, cores_name, TS_TRACE_NODE_CORES);
  write_string (g, *s, "machine");
  OTF2_GlobalDefWriter_WriteSystemTreeNode (g, 0, *s, *s, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  guint32 node_class = ++(*s);
  write_string (g, node_class, "node");
  (*s)++;
  g_autoptr (GHashTable) node_of = g_hash_table_new (g_str_hash, g_str_equal);
  guint32 n_nodes = 0;
  for (int r = 0; r < ts_rec.size; r++)
    {
      const char *host = hosts + (size_t) r * MPI_MAX_PROCESSOR_NAME;
      gpointer node = g_hash_table_lookup (node_of, host);
      if (!node)
        {
          node = GUINT_TO_POINTER (++n_nodes);
          g_hash_table_insert (node_of, (gpointer) host, node);
          write_string (g, *s, *host ? host : "localhost");
          OTF2_GlobalDefWriter_WriteSystemTreeNode (g, n_nodes, (*s)++, node_class, 0);
          if (cores[r] > 0)
            OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (g, n_nodes, cores_name, OTF2_TYPE_UINT32,
                                                              (OTF2_AttributeValue) { .uint32 = cores[r] });
        }
      rank_node[r] = GPOINTER_TO_UINT (node);
    }
}

/* Clock, paradigm, machine, MPI regions and the ranks' locations. */
/* The ranks' OpenMP team threads (record-omp.c), gathered to rank 0:
 * per rank how many, and all their event counts, rank by rank. */
typedef struct {
  guint32 *count;            /* per rank */
  guint64 *events;
} TsRecThreads;

static void
gather_threads (TsRecThreads *all, guint n, const guint64 *events)
{
  guint32 mine = n;
  if (ts_rec.rank == 0)
    all->count = g_new0 (guint32, ts_rec.size);
  PMPI_Gather (&mine, 1, MPI_UINT32_T, all->count, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
  g_autofree int *counts = ts_rec.rank == 0 ? g_new0 (int, ts_rec.size) : NULL;
  g_autofree int *displs = ts_rec.rank == 0 ? g_new0 (int, ts_rec.size) : NULL;
  int total = 0;
  for (int r = 0; ts_rec.rank == 0 && r < ts_rec.size; r++)
    {
      counts[r] = (int) all->count[r];
      displs[r] = total;
      total += counts[r];
    }
  if (ts_rec.rank == 0)
    all->events = g_new0 (guint64, MAX (total, 1));
  PMPI_Gatherv (events, (int) n, MPI_UINT64_T, all->events, counts, displs, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
}

static void
write_base_definitions (OTF2_GlobalDefWriter *g, guint32 *s, const guint64 *events,
                        const TsRecThreads *threads, const char *hosts, const guint32 *cores,
                        OTF2_TimeStamp first, OTF2_TimeStamp last)
{
  OTF2_GlobalDefWriter_WriteClockProperties (g, 1000000000, first, last - first + 1,
                                             OTF2_UNDEFINED_TIMESTAMP);
  guint32 empty = (*s)++;
  write_string (g, empty, "");
  write_string (g, *s, "MPI");
  OTF2_GlobalDefWriter_WriteParadigm (g, OTF2_PARADIGM_MPI, (*s)++, OTF2_PARADIGM_CLASS_PROCESS);
  g_autofree guint32 *rank_node = g_new (guint32, ts_rec.size);
  write_system_tree (g, s, hosts, cores, rank_node);
  for (guint32 r = 0; r < TS_R_N_MPI; r++)
    {
      write_string (g, *s, mpi_region_names[r]);
      OTF2_GlobalDefWriter_WriteRegion (g, r, *s, *s, empty, OTF2_REGION_ROLE_FUNCTION,
                                        OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0);
      (*s)++;
    }
  /* Which function made each MPI call (a REGION attribute of its ENTER). */
  write_string (g, *s, TS_CALLER_ATTRIBUTE);
  OTF2_GlobalDefWriter_WriteAttribute (g, TS_REC_CALLER_ATTRIBUTE, *s, *s, OTF2_TYPE_REGION);
  (*s)++;
  if (ts_rec.cpu_time)
    {
      /* Nanoseconds of the writing thread's CPU time, read at every ENTER
       * and LEAVE (of the rank's own thread and of its teams' threads). */
      write_string (g, *s, "cpu_time");
      write_string (g, *s + 1, "CPU time of the thread the location records");
      write_string (g, *s + 2, "s");
      OTF2_GlobalDefWriter_WriteMetricMember (g, 0, *s, *s + 1, OTF2_METRIC_TYPE_OTHER,
                                              OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                                              OTF2_BASE_DECIMAL, -9, *s + 2);
      OTF2_MetricMemberRef member = 0;
      OTF2_GlobalDefWriter_WriteMetricClass (g, TS_REC_CPU_METRIC, 1, &member,
                                             OTF2_METRIC_SYNCHRONOUS_STRICT,
                                             OTF2_RECORDER_KIND_CPU);
      *s += 3;
    }
  for (int r = 0; r < ts_rec.size; r++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "MPI Rank %d", r);
      write_string (g, *s, name);
      OTF2_GlobalDefWriter_WriteLocationGroup (g, r, *s, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                               rank_node[r], OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation (g, r, *s, OTF2_LOCATION_TYPE_CPU_THREAD, events[r], r);
      (*s)++;
    }
  const guint64 *thread_events = threads->events;
  for (int r = 0; r < ts_rec.size; r++)
    for (guint32 k = 1; k <= threads->count[r]; k++)
      {
        char name[48];
        g_snprintf (name, sizeof name, "MPI Rank %d thread %u", r, k);
        write_string (g, *s, name);
        OTF2_GlobalDefWriter_WriteLocation (g, (guint64) k << 32 | (guint64) r, *s,
                                            OTF2_LOCATION_TYPE_CPU_THREAD, *thread_events++, r);
        (*s)++;
      }
}

/* ---- tear-down --------------------------------------------------------------- */

static void
remove_archive (const char *dir)
{
  g_autofree char *anchor = g_build_filename (dir, "traces.otf2", NULL);
  g_autofree char *defs = g_build_filename (dir, "traces.def", NULL);
  g_autofree char *locations = g_build_filename (dir, "traces", NULL);
  g_remove (anchor);
  g_remove (defs);
  GDir *d = g_dir_open (locations, 0, NULL);
  if (d)
    {
      const char *name;
      while ((name = g_dir_read_name (d)))
        {
          g_autofree char *path = g_build_filename (locations, name, NULL);
          g_remove (path);
        }
      g_dir_close (d);
    }
  g_rmdir (locations);
}

/* Every rank's definitions (collective on MPI_COMM_WORLD): rank 0's
 * global ones, and each rank's local ones for its location and its @n_threads
 * team threads'. */
static void
write_definitions (const guint64 *events, TsRecThreads *threads, guint n_threads,
                   const char *hosts, const guint32 *cores, guint64 first_all, guint64 last_all)
{
  OTF2_Archive_OpenDefFiles (ts_rec.archive);
  /* The rank's location, then its team threads': each reads its region ids
   * and clock through its own local definitions. */
  g_autofree OTF2_DefWriter **dws = g_new0 (OTF2_DefWriter *, n_threads + 1);
  for (guint k = 0; k <= n_threads; k++)
    dws[k] = OTF2_Archive_GetDefWriter (ts_rec.archive, (guint64) k << 32 | (guint64) ts_rec.rank);
  OTF2_DefWriter *dw = dws[0];
  OTF2_GlobalDefWriter *g = ts_rec.rank == 0 ? OTF2_Archive_GetGlobalDefWriter (ts_rec.archive)
                                             : NULL;
  guint32 s = 0;
  if (g)
    write_base_definitions (g, &s, events, threads, hosts, cores, first_all, last_all);
  g_free (threads->count);
  g_free (threads->events);
  /* Collective on MPI_COMM_WORLD: every rank calls them, in this order. */
  ts_rec_user_write_definitions (g, &s, dws, n_threads + 1);
  ts_rec_comm_write_definitions (g, &s, dw);
  ts_rec_partitioned_write_definitions (g, &s);
  for (guint k = 0; k <= n_threads; k++)
    if (dws[k])
      {
        ts_rec_clock_write_offsets (dws[k]);
        ts_rec_check (OTF2_Archive_CloseDefWriter (ts_rec.archive, dws[k]));
      }
}

static void
stop (void)
{
  if (!ts_rec.open)
    return;
  ts_rec_depth++;
  if (ts_rec.on)
    {
      ts_rec_user_close_open_regions ();
      ts_rec_ompt_close ();
    }
  ts_rec_clock_sync (1);
  ts_rec.last_time = ts_rec_now ();

  guint64 n = 0;
  OTF2_EvtWriter_GetNumberOfEvents (ts_rec.evt, &n);
  /* The last buffers are written here: a full disk shows at these calls. */
  ts_rec_check (OTF2_Archive_CloseEvtWriter (ts_rec.archive, ts_rec.evt));
  ts_rec.evt = NULL;
  g_autofree guint64 *own_thread_events = NULL;
  guint n_threads = ts_rec_omp_close (&own_thread_events);
  ts_rec_check (OTF2_Archive_CloseEvtFiles (ts_rec.archive));
  g_autofree guint64 *events = g_new0 (guint64, ts_rec.size);
  PMPI_Gather (&n, 1, MPI_UINT64_T, events, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  TsRecThreads threads = { NULL, NULL };
  gather_threads (&threads, n_threads, own_thread_events);
  /* Which ranks shared a node: the replay can place them so again. */
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  int host_len = 0;
  PMPI_Get_processor_name (host, &host_len);
  g_autofree char *hosts = ts_rec.rank == 0 ? g_malloc0 ((size_t) ts_rec.size * MPI_MAX_PROCESSOR_NAME)
                                            : NULL;
  PMPI_Gather (host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
  long online = sysconf (_SC_NPROCESSORS_ONLN);
  guint32 my_cores = online > 0 && online < G_MAXUINT32 ? (guint32) online : 0;
  g_autofree guint32 *cores = g_new0 (guint32, ts_rec.size);
  PMPI_Gather (&my_cores, 1, MPI_UINT32_T, cores, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
  /* The trace's span on the corrected clock. */
  guint64 first = ts_rec_clock_corrected (ts_rec.first_time), first_all = 0;
  guint64 last = ts_rec_clock_corrected (ts_rec.last_time), last_all = 0;
  PMPI_Allreduce (&first, &first_all, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  PMPI_Allreduce (&last, &last_all, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);

  write_definitions (events, &threads, n_threads, hosts, cores, first_all, last_all);
  ts_rec_check (OTF2_Archive_CloseDefFiles (ts_rec.archive));
  if (OTF2_Archive_Close (ts_rec.archive) != OTF2_SUCCESS)
    ts_rec_warn_off ("cannot close the OTF2 archive");
  ts_rec.archive = NULL;
  /* A rank that failed left the archive incomplete: rank 0 removes it
   * rather than leave a trace that looks whole. */
  int mine = ts_rec.on, all = 0;
  PMPI_Allreduce (&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all && ts_rec.rank == 0)
    {
      remove_archive (ts_rec.dir);
      ts_rec_dir_remove_marker (ts_rec.dir);
    }
  /* Every rank leaves only once the outcome is on disk: tracesim-record
   * checks on each rank that the trace exists when the program ends. */
  PMPI_Barrier (MPI_COMM_WORLD);
  ts_rec.open = ts_rec.on = FALSE;
  ts_rec_requests_free ();
  ts_rec_comm_free_all ();
  ts_rec_user_free ();
  ts_rec_omp_free ();
  ts_rec_locks_free ();
  if (ts_rec.sync_comm != MPI_COMM_NULL)
    PMPI_Comm_free (&ts_rec.sync_comm);
  ts_rec_depth--;
}

/* The thread level the program was given, in the archive for the reader
 * to hold its threads' MPI calls against (TS_MPI_THREAD_LEVEL_PROPERTY). */
static void
note_thread_level (int provided)
{
  static const char *const names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                       "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
  int level = provided == MPI_THREAD_MULTIPLE     ? 3
              : provided == MPI_THREAD_SERIALIZED ? 2
              : provided == MPI_THREAD_FUNNELED   ? 1
                                                  : 0;
  if (ts_rec.open)
    OTF2_Archive_SetProperty (ts_rec.archive, TS_MPI_THREAD_LEVEL_PROPERTY, names[level], true);
}

/* MPI_Init's own time is before the clock starts: its region is empty. */
int
MPI_Init (int *argc, char ***argv)
{
  /* Noted first, set last: opening the archive calls MPI_Bcast (OTF2's
   * collectives), whose wrapper notes its own caller. */
  const void *caller = __builtin_return_address (0);
  int rc = PMPI_Init (argc, argv);
  if (rc == MPI_SUCCESS)
    {
      start ();
      int provided = MPI_THREAD_SINGLE;
      PMPI_Query_thread (&provided);
      note_thread_level (provided);
      ts_rec_caller = caller;
      ts_rec_enter (TS_R_INIT);
      ts_rec_leave (TS_R_INIT);
    }
  return rc;
}

int
MPI_Init_thread (int *argc, char ***argv, int required, int *provided)
{
  const void *caller = __builtin_return_address (0); /* as in MPI_Init */
  int rc = PMPI_Init_thread (argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    {
      start ();
      note_thread_level (*provided);
      ts_rec_caller = caller;
      ts_rec_enter (TS_R_INIT_THREAD);
      ts_rec_leave (TS_R_INIT_THREAD);
    }
  return rc;
}

int
MPI_Finalize (void)
{
  TS_REC_NOTE_CALLER ();
  if (ts_rec_recording_call ())
    {
      ts_rec_enter (TS_R_FINALIZE);
      ts_rec_leave (TS_R_FINALIZE);
    }
  /* Nothing of a program may be missing without a word. */
  guint64 other = __atomic_load_n (&ts_rec.other_calls, __ATOMIC_RELAXED);
  if (other > 0 && ts_rec.open)
    fprintf (stderr, "tracesim-record: rank %d: %" G_GUINT64_FORMAT " communicator call%s of "
             "threads other than the one that called MPI_Init %s not recorded: the calls on "
             "what they made are regions without messages (doc/recorder.md)\n",
             ts_rec.rank, other, other == 1 ? "" : "s", other == 1 ? "was" : "were");
  stop ();
  return PMPI_Finalize ();
}
