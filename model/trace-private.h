/* Internals of TsTrace shared with the event reading code (stream.c). */
#ifndef TS_TRACE_PRIVATE_H
#define TS_TRACE_PRIVATE_H

#include "model/trace.h"
#include "model/node-load.h"
#include "model/partitioned.h"
#include "model/threads.h"
#include <otf2/otf2.h>

typedef struct {
  char *name;          /* as normalised and demangled */
  char *canonical;     /* as the trace wrote it, where that differs; else NULL */
  TsCallKind call;
  gboolean one_of; /* completes one or some of several requests */
  gboolean team_barrier; /* a thread team's barrier (ts_trace_region_team_barrier) */
  gboolean team_task;    /* a thread's part of a team (ts_trace_region_team_task) */
} TsRegion;

typedef struct {
  char *name;
  gboolean self;       /* MPI_COMM_SELF-like: one member, the caller */
  GArray *members;     /* guint32 world ranks, in communicator rank order */
  GHashTable *local_of; /* world rank -> local rank + 1 (NULL for world/self) */
} TsComm;

struct TsTrace {
  char *path;
  char *creator;
  gboolean prediction;       /* TS_PREDICTION_PROPERTY is "true" */
  char *mpi_library;         /* TS_MPI_LIBRARY_PROPERTY, "" if absent */
  char *mpi_thread_level;    /* TS_MPI_THREAD_LEVEL_PROPERTY, "" if absent */
  guint n_ranks;
  guint64 timer_resolution;
  guint64 global_offset;
  GArray *rank_location;     /* OTF2_LocationRef per rank */
  /* The ranks' other CPU threads (trace-locations.c): those of rank r are
   * thread_location[rank_thread_start[r] .. rank_thread_start[r + 1]). */
  GArray *thread_location;   /* OTF2_LocationRef */
  guint *rank_thread_start;  /* n_ranks + 1 */
  guint n_unplaced_locations;/* defined locations that are neither */
  /* What the other threads hold (model/threads.c), read at opening; NULL
   * when the ranks have no other thread with events, or only the
   * definitions were read. Its mpi_threads are the streams after the
   * ranks' own (ts_trace_n_streams). */
  TsThreadScan *thread_scan;
  /* Communicators that are not MPI's (OpenMP thread teams) or whose group is
   * not defined: OTF2_CommRef + 1 -> why (char*). No MPI event may use one. */
  GHashTable *foreign_comms;
  GPtrArray *regions;        /* TsRegion*, deduplicated by name */
  GHashTable *region_by_name;/* name -> index + 1 */
  GHashTable *region_of_ref; /* OTF2_RegionRef -> index + 1 */
  GPtrArray *comms;          /* TsComm* */
  GHashTable *comm_of_ref;   /* OTF2_CommRef -> index + 1 */
  guint world_comm;
  GHashTable *partitioned_of_param;  /* OTF2_ParameterRef + 1 -> TsPartitionedEvent + 1 */
  OTF2_AttributeRef partitioned_attribute[TS_PA_N_ATTRIBUTES];
  OTF2_AttributeRef caller_attribute;  /* TS_CALLER_ATTRIBUTE, if defined */
  GPtrArray *node_names;     /* char*, the nodes ranks ran on; empty: unknown */
  guint *rank_node;          /* node index per rank; NULL: unknown */
  guint32 *node_cores;       /* per node, its cores; 0: unknown */
  /* The CPU time metric (trace-metrics.c): its class, the member's place in
   * it, the seconds a unit is worth; OTF2_UNDEFINED_METRIC: none. */
  OTF2_MetricRef cpu_metric;
  guint cpu_member;
  double cpu_seconds_per_unit;
  TsComputeClock compute_clock;
  struct TsNodeLoad *node_load;  /* TS_COMPUTE_LOAD's estimate (owned) */
};

/* A location as defined. */
typedef struct {
  OTF2_LocationGroupRef group;
  OTF2_LocationType type;
  guint64 n_events;          /* as the definition says (EZTrace: always 2) */
} TsRawLocation;

/* Ranks and their threads from the location definitions (trace-locations.c):
 * @locations: OTF2_LocationRef -> TsRawLocation*; @world: the members of the
 * MPI paradigm's COMM_LOCATIONS group, or NULL. Sets @trace's ranks and
 * threads and returns each rank's location group (free with g_free), or
 * NULL and @error. */
OTF2_LocationGroupRef *ts_trace_resolve_locations (TsTrace *trace, GHashTable *locations,
                                                   const GArray *world, GError **error);
/* Whether a region so defined is a thread team's barrier
 * (trace-locations.c). */
gboolean ts_region_is_team_task (const char *name);
gboolean ts_region_is_team_barrier (const char *name, OTF2_RegionRole role,
                                    OTF2_Paradigm paradigm);
/* Whether OTF2 wrote an event file for location @loc: some writers define
 * threads that never logged an event and have none (trace-locations.c). */
gboolean ts_trace_location_has_events (const TsTrace *trace, guint64 loc);
/* Why @ref is a communicator no MPI event may use, or NULL. */
const char *ts_trace_foreign_comm (const TsTrace *trace, OTF2_CommRef ref);

/* Metric definitions as read (trace-metrics.c), to find the CPU time. */
typedef struct TsRawMetrics TsRawMetrics;
TsRawMetrics *ts_raw_metrics_new (void);
void ts_raw_metrics_free (TsRawMetrics *metrics);
/* Its callbacks take the reading state (trace.c), whose metrics
 * ts_def_state_metrics() gives. */
void ts_raw_metrics_register (OTF2_GlobalDefReaderCallbacks *cbs);
TsRawMetrics *ts_def_state_metrics (void *def_state);
void ts_raw_metrics_resolve (TsRawMetrics *metrics, TsTrace *trace, GHashTable *strings);

/* A system tree node as defined: names as string refs. */
typedef struct {
  OTF2_StringRef name, klass;
  OTF2_SystemTreeNodeRef parent;
  guint32 cores;             /* its TS_TRACE_NODE_CORES property; 0: none */
} TsRawTreeNode;

/* The system tree's callbacks (trace-nodes.c): nodes into the table of
 * TsRawTreeNode that ts_def_state_tree_nodes() gives (ref + 1 -> node;
 * @strings: the string table, ref + 1 -> name), with their cores. */
void ts_raw_nodes_register (OTF2_GlobalDefReaderCallbacks *cbs);
GHashTable *ts_def_state_tree_nodes (void *def_state, GHashTable **strings);

/* Which node each rank ran on (trace-nodes.c): the nearest system tree node
 * of class "node" above its location group (Score-P and tracesim-record name
 * the host so). @tree_nodes: ref + 1 -> TsRawTreeNode*; @group_parents:
 * location group ref + 1 -> system tree node ref + 1; @rank_groups: the
 * location group of each rank. Leaves the nodes unknown when a rank has
 * none. */
void ts_trace_resolve_nodes (TsTrace *trace, GHashTable *strings, GHashTable *tree_nodes,
                             GHashTable *group_parents, const OTF2_LocationGroupRef *rank_groups);

/* Region index of an OTF2 region ref, or -1. */
gint ts_trace_region_of_ref (const TsTrace *trace, OTF2_RegionRef ref);
/* Communicator index of an OTF2 comm ref, or -1. */
gint ts_trace_comm_of_ref (const TsTrace *trace, OTF2_CommRef ref);
/* Set @error from an OTF2 error code, naming @what and the trace path. */
void ts_trace_set_otf2_error (const TsTrace *trace, OTF2_ErrorCode code,
                              const char *what, GError **error);
/* Silence OTF2's own printing of errors: tracesim reports them itself. */
void ts_otf2_quiet (void);

/* Why the directory @dir is no trace, and which anchor files to give
 * instead: the *.otf2 files in it and one level down, or that it holds
 * none (anchor-probe.c). Caller frees. */
char *ts_trace_directory_hint (const char *dir);
/* Open @path with OTF2 in a child bounded in memory and time (anchor-probe.c):
 * FALSE and @error when it is not an anchor OTF2 can open cheaply. */
gboolean ts_trace_probe_anchor (const char *path, GError **error);
/* Every rank's event file of @trace ends as OTF2 ends them (anchor-probe.c):
 * FALSE and @error naming the rank and file otherwise. */
gboolean ts_trace_check_event_files (const TsTrace *trace, OTF2_Reader *reader, GError **error);

#endif
