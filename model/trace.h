/* An OTF2 trace's definitions, normalised: ranks, regions, communicators.
 *
 * Real traces disagree on the details (EZTrace: location ids that are not
 * ranks, per-rank region ids for the same function, duplicate groups; Score-P:
 * metric and non-CPU locations). TsTrace hides that: ranks are 0..n-1,
 * regions are deduplicated by name and indexed 0..n-1, communicators are
 * indexed 0..n-1 with their members as world ranks. Events are read through
 * TsRankDecoder (stream.h).
 *
 * A TsTrace is immutable once opened; free with ts_trace_free(). */
#ifndef TS_TRACE_H
#define TS_TRACE_H

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct TsTrace TsTrace;

/* What an MPI call region means to the replay. */
typedef enum {
  TS_CALL_USER,       /* not an MPI call: a user region */
  TS_CALL_LOCAL,      /* an MPI call replayed as the time it took (Iprobe, Comm_split...) */
#define TS_CALL_KINDS(X) X(SEND) X(RECV) X(ISEND) X(IRECV) X(START) X(WAIT) \
  X(WAITALL) X(WAITANY) X(WAITSOME) X(TEST) X(SENDRECV) X(COLLECTIVE) X(ICOLLECTIVE)
#define TS_CALL_ENUM(k) TS_CALL_##k,
  TS_CALL_KINDS (TS_CALL_ENUM)
#undef TS_CALL_ENUM
  TS_CALL_N_KINDS
} TsCallKind;

/* Error domain for inconsistent or unreadable traces. */
#define TS_TRACE_ERROR (ts_trace_error_quark ())
GQuark ts_trace_error_quark (void);
typedef enum {
  TS_TRACE_ERROR_OPEN,        /* cannot open or read the archive */
  TS_TRACE_ERROR_DEFINITIONS, /* definitions are missing or inconsistent */
  TS_TRACE_ERROR_EVENTS,      /* an event is inconsistent (rank, event position) */
} TsTraceError;

/* Where compute bursts take their length from: the trace's clock (wall
 * time), or its CPU time metric, which a trace recorded with more ranks
 * than cores needs to tell the compute each rank would take on a core of
 * its own (a burst between two readings takes their difference; one
 * without readings at both ends keeps its wall time). */
typedef enum {
  TS_COMPUTE_WALL,
  TS_COMPUTE_CPU,
  TS_COMPUTE_LOAD,  /* the CPU time estimated from the nodes' load (model/node-load.h) */
} TsComputeClock;

/* Set before any stream of @trace is opened. FALSE and @error for
 * TS_COMPUTE_CPU on a trace without a CPU time metric (tracesim-record's
 * "cpu_time", Score-P's "ru_utime"). */
gboolean ts_trace_set_compute_clock (TsTrace *trace, TsComputeClock clock, GError **error);
struct TsNodeLoad;
/* TS_COMPUTE_LOAD: each burst's CPU time estimated from @load, which
 * @trace takes (before any stream of it is opened). */
void ts_trace_set_node_load (TsTrace *trace, struct TsNodeLoad *load);
const struct TsNodeLoad *ts_trace_node_load (const TsTrace *trace);
/* Whether @trace has a CPU time metric TS_COMPUTE_CPU can take compute from. */
gboolean ts_trace_has_cpu_time (const TsTrace *trace);

/* Open the archive whose anchor file is @anchor_path (".../traces.otf2") and
 * read its global definitions. Returns NULL and sets @error on failure. */
TsTrace *ts_trace_open (const char *anchor_path, GError **error);
/* The same for an archive written with its definitions only
 * (ts_archive_writer_write_definitions): its event files are not looked at,
 * and no stream of it can be opened. */
TsTrace *ts_trace_open_definitions (const char *anchor_path, GError **error);
void ts_trace_free (TsTrace *trace);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsTrace, ts_trace_free)

const char *ts_trace_path (const TsTrace *trace);
guint ts_trace_n_ranks (const TsTrace *trace);
/* Ticks per second of the trace clock. */
guint64 ts_trace_timer_resolution (const TsTrace *trace);
/* Name of the tool that wrote it when known ("EZTrace", "Score-P"), else "". */
const char *ts_trace_creator (const TsTrace *trace);
/* The MPI library the trace was recorded under, as MPI_Get_library_version's
 * first line ("Open MPI v4.1.4, package: ...", "MPICH Version: 4.0.2"): the
 * archive's property TS_MPI_LIBRARY_PROPERTY, which tracesim-record writes;
 * "" where the trace does not say. Owned by the trace. */
#define TS_MPI_LIBRARY_PROPERTY "TRACESIM::MPI_LIBRARY"
const char *ts_trace_mpi_library (const TsTrace *trace);
/* The thread level MPI gave the program ("MPI_THREAD_MULTIPLE", ...): the
 * archive's property TS_MPI_THREAD_LEVEL_PROPERTY, which tracesim-record
 * writes; "" where the trace does not say. Owned by the trace. */
#define TS_MPI_THREAD_LEVEL_PROPERTY "TRACESIM::MPI_THREAD_LEVEL"
const char *ts_trace_mpi_thread_level (const TsTrace *trace);
/* TRUE if the archive is an execution tracesim predicted (a replay's
 * timeline, property TS_PREDICTION_PROPERTY = "true"), not a recording: its
 * calls waited where the simulation made them wait, tests included. */
#define TS_PREDICTION_PROPERTY "TRACESIM::PREDICTION"
gboolean ts_trace_is_prediction (const TsTrace *trace);
/* TRUE if the tracer counted a collective's bytes as Score-P does (every
 * block a rank sends and receives): Score-P and tracesim-record, and
 * tracesim's predictions of their traces (see ts_collective_block). */
gboolean ts_trace_collective_bytes_total (const TsTrace *trace);

guint ts_trace_n_regions (const TsTrace *trace);
/* Region name as normalised: Fortran MPI names are folded ("mpi_send_" is
 * "MPI_Send") and C++ names demangled ("_Z5solvev" is "solve()", as
 * Score-P writes them unless built to demangle): every stage, hypothesis
 * and page sees that name. Regions whose names normalise alike are one.
 * Owned by the trace. */
const char *ts_trace_region_name (const TsTrace *trace, guint region);
/* The name as the trace wrote it (OTF2's canonical name): the mangled
 * name of a demangled region, the first one the trace defined where two
 * demangle alike; else ts_trace_region_name(). Owned by the trace. */
const char *ts_trace_region_canonical_name (const TsTrace *trace, guint region);
TsCallKind ts_trace_region_call (const TsTrace *trace, guint region);
/* Whether @region is an MPI call that completes one or some of several
 * requests (MPI_Waitany, MPI_Waitsome, MPI_Testany, MPI_Testsome): which
 * ones depends on which finished first. */
gboolean ts_trace_region_completes_one_of (const TsTrace *trace, guint region);
/* Whether @region is a thread team's barrier, explicit or implicit (an
 * OpenMP barrier: Score-P's roles BARRIER and IMPLICIT_BARRIER outside MPI,
 * "!$omp barrier" and "!$omp implicit barrier" by name, GCC's and LLVM's
 * runtime entry points GOMP_barrier and __kmpc_barrier, EZTrace's "OpenMP
 * barrier" and "OpenMP implicit barrier"): the time a thread
 * spends in it is waiting for the team, never work. */
gboolean ts_trace_region_team_barrier (const TsTrace *trace, guint region);
/* Whether @region is a thread's implicit task in a team ("OpenMP implicit
 * task", as EZTrace 2's OMPT module writes it): on a thread that has no
 * thread team events of its own, its span is the thread's part of a team. */
gboolean ts_trace_region_team_task (const TsTrace *trace, guint region);
/* The name of a compute burst's phase (ts_action_phase): the MPI call that
 * ends it, "@" and the function that made the call where the trace knows
 * it ("MPI_Allreduce@Verlet::run", else "MPI_Allreduce"); "(end)" for a
 * rank's last burst. Free with g_free. */
char *ts_trace_phase_name (const TsTrace *trace, guint32 call, guint32 caller);
/* The OTF2 attribute on an MPI call's ENTER naming the function that made
 * the call (type OTF2_TYPE_REGION), as tracesim-record writes it. */
#define TS_CALLER_ATTRIBUTE "caller"
/* Index of the region with this name, or -1. */
gint ts_trace_region_by_name (const TsTrace *trace, const char *name);

guint ts_trace_n_comms (const TsTrace *trace);
const char *ts_trace_comm_name (const TsTrace *trace, guint comm);
/* Members of a communicator as world ranks, in communicator rank order.
 * A self communicator (size 1, differing per rank) has @n = 1 and
 * members == NULL: its only member is the calling rank. */
guint ts_trace_comm_size (const TsTrace *trace, guint comm);
const guint32 *ts_trace_comm_members (const TsTrace *trace, guint comm);
/* World rank of local rank @local in @comm as seen from world rank @self. */
guint ts_trace_comm_world_rank (const TsTrace *trace, guint comm, guint self, guint local);
/* Local rank of world rank @world in @comm, or -1 if not a member. */
gint ts_trace_comm_local_rank (const TsTrace *trace, guint comm, guint world);
/* The communicator spanning all ranks (MPI_COMM_WORLD). */
guint ts_trace_world_comm (const TsTrace *trace);

/* A rank's threads: the CPU-thread locations of its process (its OTF2
 * location group). Thread 0 is the rank's own location, the one whose
 * events are replayed (the MPI rank list's; without one, the process's
 * first thread with events); the others follow in location id order and
 * are not replayed yet (ts_thread_scan counts what they hold). */
guint ts_trace_rank_n_threads (const TsTrace *trace, guint rank);
/* The OTF2 location of thread @thread of @rank. */
guint64 ts_trace_rank_thread_location (const TsTrace *trace, guint rank, guint thread);
/* All ranks' threads, own locations included. */
guint ts_trace_n_threads (const TsTrace *trace);
/* The locations replayed as streams of actions of their own: each rank's
 * own (stream r is rank r), then the other threads that call MPI, in rank
 * and thread order (their calls run beside the rank's own, so that a
 * thread's send can be what another rank waits for while the rank's own
 * thread blocks). */
guint ts_trace_n_streams (const TsTrace *trace);
/* The rank and the thread (0: the rank's own) of stream @stream. */
guint ts_trace_stream_rank (const TsTrace *trace, guint stream);
guint ts_trace_stream_thread (const TsTrace *trace, guint stream);
/* Whether stream @stream is a thread that also works in its rank's thread
 * teams (OpenMP): it joins the teams' phases (model/decode-threads.c). */
gboolean ts_trace_stream_in_teams (const TsTrace *trace, guint stream);
/* The stream of thread @thread of @rank, or -1 when it has none (a thread
 * that calls no MPI: its work is its rank's team's). */
gint ts_trace_thread_stream (const TsTrace *trace, guint rank, guint thread);
/* What the ranks' other threads hold (model/threads.h), read when the
 * trace was opened; NULL when no rank has another thread with events, or
 * only the definitions were read. */
typedef struct TsThreadScan TsThreadScan;
const TsThreadScan *ts_trace_thread_scan (const TsTrace *trace);
/* @copy, the definitions of an archive the replay of @original writes
 * (the same ranks, and their threads at the same places), has the streams
 * @original has: its events are not read to find them. */
void ts_trace_copy_streams (TsTrace *copy, const TsTrace *original);
/* Locations that are no rank's thread: CPU threads of processes without
 * events or outside the MPI rank list, and locations of other types (GPU
 * streams, metric locations). */
guint ts_trace_n_unplaced_locations (const TsTrace *trace);
/* Communicators that are not MPI's (OpenMP thread teams) or whose group
 * the trace does not define: not replayed, and an error where an MPI event
 * uses one. */
guint ts_trace_n_foreign_comms (const TsTrace *trace);

/* The nodes (hosts) the ranks ran on, when the trace records them (Score-P,
 * tracesim-record); 0 when it does not (EZTrace names the program there). */
guint ts_trace_n_nodes (const TsTrace *trace);
const char *ts_trace_node_name (const TsTrace *trace, guint node);
/* Node index of @rank; only when ts_trace_n_nodes() > 0. */
guint ts_trace_rank_node (const TsTrace *trace, guint rank);
/* The cores of @node, when the trace says (tracesim-record's node property
 * TS_TRACE_NODE_CORES, or Score-P's system tree nodes of class "core" under
 * it); 0 when it does not. */
guint ts_trace_node_cores (const TsTrace *trace, guint node);
#define TS_TRACE_NODE_CORES "cores"
/* Whether the trace names its ranks' nodes and gives every node's cores. */
gboolean ts_trace_cores_known (const TsTrace *trace);
/* Whether a node held more threads (ranks, and the other threads of each,
 * ts_trace_rank_n_threads) than the trace says it had cores: the recording
 * time-shared them. */
gboolean ts_trace_time_shared (const TsTrace *trace);
/* Whether the trace says every rank had a core of its own: it names each
 * rank's node and that node's cores, and none held more ranks than cores. */
gboolean ts_trace_cores_own (const TsTrace *trace);
/* Whether ranks @a and @b (world) ran on different nodes: 1, the same: 0,
 * or -1 when the trace does not say (or a rank is out of range). */
gint ts_trace_ranks_apart (const TsTrace *trace, guint a, guint b);

/* Fold an MPI function name as written by any tracer to its C spelling
 * ("mpi_allreduce_" -> "MPI_Allreduce"). Returns a newly allocated string. */
char *ts_mpi_name_normalise (const char *name);
/* @name demangled if it is a C++ (Itanium ABI, "_Z...") mangled name the
 * C++ runtime can read; NULL otherwise. Caller frees with g_free. */
char *ts_name_demangle (const char *name);
TsCallKind ts_mpi_call_kind (const char *normalised_name);
gboolean ts_mpi_call_completes_one_of (const char *normalised_name);
const char *ts_call_kind_name (TsCallKind kind);

G_END_DECLS

#endif
