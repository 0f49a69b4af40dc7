/* libtracesim-record internals shared by its modules (doc/recorder.md).
 *
 * The recorder is a PMPI interposer: one MPI rank per process, so its state
 * is per process by nature and lives in the single TsRecorder below (the
 * one exception to "no mutable globals": the MPI wrappers have no context
 * argument to hang it on). Every thread records: the one that called
 * MPI_Init into the rank's location, any other into a location of its own
 * (record-omp.c), made at its first event. The tables they share (requests,
 * communicators, region names) take their own locks; what is per thread
 * (the wrapper depth, the caller) is thread-local.
 *
 * Modules: record-core.c (MPI_Init/Finalize, the archive, definitions),
 * record-comm.c (communicator ids), record-p2p.c (point-to-point, requests,
 * waits and tests), record-coll.c (collectives), record-partitioned.c
 * (MPI-4 partitioned), record-clock.c (clock offsets), record-user.c
 * (ts_region_begin/end and -finstrument-functions), record-dir.c (the
 * output directory and its marker). */
#ifndef TS_RECORD_PRIVATE_H
#define TS_RECORD_PRIVATE_H

#include <glib.h>
#include <mpi.h>
#include <otf2/otf2.h>
#include <pthread.h>

G_BEGIN_DECLS

/* Every MPI function the recorder wraps, in region id order: the ids are the
 * same on every rank, so MPI regions need no mapping table. */
#define TS_REC_MPI_REGIONS(X) \
  X (INIT, "MPI_Init") X (INIT_THREAD, "MPI_Init_thread") X (FINALIZE, "MPI_Finalize") \
  X (SEND, "MPI_Send") X (BSEND, "MPI_Bsend") X (SSEND, "MPI_Ssend") X (RSEND, "MPI_Rsend") \
  X (RECV, "MPI_Recv") X (ISEND, "MPI_Isend") X (IBSEND, "MPI_Ibsend") \
  X (ISSEND, "MPI_Issend") X (IRSEND, "MPI_Irsend") X (IRECV, "MPI_Irecv") \
  X (SENDRECV, "MPI_Sendrecv") X (SENDRECV_REPLACE, "MPI_Sendrecv_replace") \
  X (SEND_INIT, "MPI_Send_init") X (BSEND_INIT, "MPI_Bsend_init") \
  X (SSEND_INIT, "MPI_Ssend_init") X (RSEND_INIT, "MPI_Rsend_init") \
  X (RECV_INIT, "MPI_Recv_init") X (START, "MPI_Start") X (STARTALL, "MPI_Startall") \
  X (REQUEST_FREE, "MPI_Request_free") X (CANCEL, "MPI_Cancel") \
  X (WAIT, "MPI_Wait") X (WAITALL, "MPI_Waitall") X (WAITANY, "MPI_Waitany") \
  X (WAITSOME, "MPI_Waitsome") X (TEST, "MPI_Test") X (TESTALL, "MPI_Testall") \
  X (TESTANY, "MPI_Testany") X (TESTSOME, "MPI_Testsome") \
  X (BARRIER, "MPI_Barrier") X (BCAST, "MPI_Bcast") X (GATHER, "MPI_Gather") \
  X (GATHERV, "MPI_Gatherv") X (SCATTER, "MPI_Scatter") X (SCATTERV, "MPI_Scatterv") \
  X (ALLGATHER, "MPI_Allgather") X (ALLGATHERV, "MPI_Allgatherv") \
  X (ALLTOALL, "MPI_Alltoall") X (ALLTOALLV, "MPI_Alltoallv") X (ALLTOALLW, "MPI_Alltoallw") \
  X (REDUCE, "MPI_Reduce") X (ALLREDUCE, "MPI_Allreduce") \
  X (REDUCE_SCATTER, "MPI_Reduce_scatter") \
  X (REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block") X (SCAN, "MPI_Scan") \
  X (EXSCAN, "MPI_Exscan") \
  X (IBARRIER, "MPI_Ibarrier") X (IBCAST, "MPI_Ibcast") X (IGATHER, "MPI_Igather") \
  X (IGATHERV, "MPI_Igatherv") X (ISCATTER, "MPI_Iscatter") X (ISCATTERV, "MPI_Iscatterv") \
  X (IALLGATHER, "MPI_Iallgather") X (IALLGATHERV, "MPI_Iallgatherv") \
  X (IALLTOALL, "MPI_Ialltoall") X (IALLTOALLV, "MPI_Ialltoallv") \
  X (IALLTOALLW, "MPI_Ialltoallw") X (IREDUCE, "MPI_Ireduce") \
  X (IALLREDUCE, "MPI_Iallreduce") X (IREDUCE_SCATTER, "MPI_Ireduce_scatter") \
  X (IREDUCE_SCATTER_BLOCK, "MPI_Ireduce_scatter_block") X (ISCAN, "MPI_Iscan") \
  X (IEXSCAN, "MPI_Iexscan") \
  X (COMM_DUP, "MPI_Comm_dup") X (COMM_DUP_WITH_INFO, "MPI_Comm_dup_with_info") \
  X (COMM_SPLIT, "MPI_Comm_split") X (COMM_SPLIT_TYPE, "MPI_Comm_split_type") \
  X (COMM_CREATE, "MPI_Comm_create") X (COMM_CREATE_GROUP, "MPI_Comm_create_group") \
  X (CART_CREATE, "MPI_Cart_create") X (CART_SUB, "MPI_Cart_sub") \
  X (GRAPH_CREATE, "MPI_Graph_create") X (DIST_GRAPH_CREATE, "MPI_Dist_graph_create") \
  X (DIST_GRAPH_CREATE_ADJACENT, "MPI_Dist_graph_create_adjacent") \
  X (COMM_FREE, "MPI_Comm_free") \
  X (PSEND_INIT, "MPI_Psend_init") X (PRECV_INIT, "MPI_Precv_init") \
  X (PREADY, "MPI_Pready") X (PREADY_RANGE, "MPI_Pready_range") \
  X (PREADY_LIST, "MPI_Pready_list") X (PARRIVED, "MPI_Parrived")

typedef enum {
#define TS_REC_ENUM(e, name) TS_R_##e,
  TS_REC_MPI_REGIONS (TS_REC_ENUM)
#undef TS_REC_ENUM
  TS_R_N_MPI
} TsRecRegion;

/* Fixed reference ids in the archive. */
#define TS_REC_COMM_WORLD 0u
#define TS_REC_COMM_SELF 1u
#define TS_REC_COMM_UNKNOWN OTF2_UNDEFINED_COMM

typedef struct {
  guint32 ref;               /* the communicator's id, the same on all its members */
  gboolean self;
  GArray *members;           /* guint64 world ranks, in communicator rank order */
} TsRecComm;

typedef enum {
  TS_REQ_SEND, TS_REQ_RECV, TS_REQ_COLL, TS_REQ_PSEND, TS_REQ_PRECV
} TsRecRequestKind;

typedef struct TsRecRequest_ {
  guint64 key;               /* the MPI_Request handle's bits: the table key */
  TsRecRequestKind kind;
  gboolean persistent;       /* stays after completion (MPI_*_init, partitioned) */
  gboolean active;           /* started and not yet completed */
  guint64 id;                /* the OTF2 request id; a fresh one per MPI_Start */
  guint32 comm;              /* communicator ref */
  guint32 peer, tag;         /* persistent point-to-point envelope; peer of comm */
  gboolean proc_null;        /* a persistent request to/from MPI_PROC_NULL: no events */
  guint64 bytes;
  OTF2_CollectiveOp op;      /* non-blocking collective: written at completion */
  guint32 root;
  guint64 sent, received;
  /* MPICH hands out one built-in handle for every request that completed at
   * once (an eager MPI_Ibsend, ...): several live requests can share a
   * handle. The table holds the newest; this links the older ones. */
  struct TsRecRequest_ *older;
} TsRecRequest;

typedef struct {
  gboolean open;             /* an archive is open: MPI_Finalize must close it (collective) */
  gboolean on;               /* events are being written */
  gboolean cpu_time;         /* CPU time read at every ENTER and LEAVE (TS_RECORD_CPU_TIME=1) */
  char *dir;                 /* the archive's directory */
  pthread_t thread;          /* the thread that called MPI_Init: the rank's location */
  guint64 other_calls;       /* communicators created by other threads, not known (atomic) */
  int rank, size;
  OTF2_Archive *archive;
  OTF2_EvtWriter *evt;

  /* Clock (record-clock.c): local seconds since t0, corrected at reading by
   * the offsets measured at MPI_Init and MPI_Finalize. */
  double t0;
  double test_skew, test_drift;   /* injected by tests only: TS_RECORD_TEST_SKEW/DRIFT */
  OTF2_TimeStamp sync_time[2];
  gint64 sync_offset[2];          /* ticks to add to read rank 0's clock */
  double sync_rtt[2];
  OTF2_TimeStamp first_time, last_time;
  MPI_Comm sync_comm;             /* a private duplicate of MPI_COMM_WORLD */

  guint64 next_request;      /* atomic: any thread posts requests */
  GMutex requests_lock;      /* the table, whatever thread posts, waits or tests */
  GHashTable *requests;      /* guint64 handle key -> TsRecRequest* (key in the value) */

  GMutex comms_lock;         /* the tables: made on MPI_Init's thread, looked up on any */
  GHashTable *comms;         /* guint64 MPI_Comm key -> TsRecComm* (borrowed from comm_defs) */
  GPtrArray *comm_defs;      /* TsRecComm* of every communicator this rank belonged to */
  guint32 comm_counter;      /* see record-comm.c: the ids' uniqueness argument */

  GHashTable *user_region_ids;   /* name -> local id + 1 (ids from TS_R_N_MPI on) */
  GPtrArray *user_region_names;  /* index id - TS_R_N_MPI */
  gboolean uses_partitioned;

} TsRecorder;

/* > 0 inside a wrapper of this thread: MPI calls of OTF2 and of the
 * recorder itself pass through. */
extern __thread int ts_rec_depth;

/* Attribute ids. OTF2 readers want them defined in order from 0, and the
 * caller's is always defined, the partitioned ones only in traces that use
 * them: the caller's comes first. Readers find both by name. */
#define TS_REC_CALLER_ATTRIBUTE ((OTF2_AttributeRef) 0)
/* The metric class of the CPU time readings (TS_RECORD_CPU_TIME=1). */
#define TS_REC_CPU_METRIC ((OTF2_MetricRef) 0)
#define TS_REC_PARTITIONED_ATTRIBUTE(a) ((OTF2_AttributeRef) (a) + 1)

/* The return address of the MPI wrapper this thread is entering (NULL:
 * none), for the caller attribute of its ENTER (record-user.c names it).
 * Per thread: another thread's MPI call must not overwrite it between the
 * note and the ENTER. */
extern __thread const void *ts_rec_caller;

/* First thing in every MPI wrapper (but MPI_Init and MPI_Init_thread,
 * which set it once the archive is open): where the program called it
 * from. It must be the wrapper's own return address (a helper's would be
 * the wrapper), hence a macro. */
#define TS_REC_NOTE_CALLER() (ts_rec_caller = __builtin_return_address (0))

extern TsRecorder ts_rec;

/* record-fortran.c: whether @address lies in the recorder or in the MPI
 * library's Fortran bindings (a wrapper called through a binding notes
 * such a return address); the first frame on the stack outside both, the
 * program's (@fallback if none). */
gboolean ts_rec_inside_mpi_layers (const void *address);
const void *ts_rec_program_caller (const void *fallback);

/* Whether the calling thread is the one that called MPI_Init. */
static inline gboolean
ts_rec_own_thread (void)
{
  return pthread_equal (pthread_self (), ts_rec.thread);
}

/* TRUE when the calling code should record on the rank's own location: on,
 * not nested inside the recorder's own MPI calls, and on the thread that
 * called MPI_Init (OpenMP teams it forks, its user regions). */
static inline gboolean
ts_rec_recording (void)
{
  return ts_rec.on && ts_rec_depth == 0 && ts_rec_own_thread ();
}

/* For an MPI wrapper, on any thread: on, and not nested inside the
 * recorder's own MPI calls. */
static inline gboolean
ts_rec_recording_call (void)
{
  return ts_rec.on && ts_rec_depth == 0;
}

/* The calling thread's event writer: the rank's location on MPI_Init's
 * thread, else the thread's own (record-omp.c), made at its first use.
 * Only while ts_rec.on. */
OTF2_EvtWriter *ts_rec_evt (void);

/* record-core.c */
void ts_rec_warn_off (const char *what);
/* Enter / Leave of region @region (an MPI region id or a user region id). */
void ts_rec_enter (guint32 region);
void ts_rec_leave (guint32 region);
/* Check an OTF2 status of an event write. */
void ts_rec_check (OTF2_ErrorCode status);
guint64 ts_rec_bytes (MPI_Count count, MPI_Datatype type);
guint64 ts_rec_handle_key (const void *handle, size_t size);

/* record-clock.c */
OTF2_TimeStamp ts_rec_now (void);
void ts_rec_clock_init (void);
/* Measure this rank's offset to rank 0 (collective on MPI_COMM_WORLD) as
 * sync point @which (0 at MPI_Init, 1 at MPI_Finalize). */
void ts_rec_clock_sync (int which);
/* Local definitions of this rank's clock corrections. */
void ts_rec_clock_write_offsets (OTF2_DefWriter *dw);
/* The corrected time of local @t. */
OTF2_TimeStamp ts_rec_clock_corrected (OTF2_TimeStamp t);

/* record-comm.c */
void ts_rec_comm_init (void);
void ts_rec_comm_free_all (void);
/* The ref of @comm, or TS_REC_COMM_UNKNOWN (a communicator created by a call
 * the recorder does not wrap, or an intercommunicator). */
guint32 ts_rec_comm_ref (MPI_Comm comm);
/* Gather every communicator's members to rank 0 (collective on world) and,
 * on rank 0, write the Group and Comm definitions; @next_string is the next
 * free string ref, advanced. */
void ts_rec_comm_write_definitions (OTF2_GlobalDefWriter *g, guint32 *next_string,
                                    OTF2_DefWriter *local);

/* record-p2p.c */
void ts_rec_requests_init (void);
void ts_rec_requests_free (void);
/* The request of handle @r, or NULL; of several sharing MPICH's handle of
 * completed requests, the newest (they are all complete: the order does not
 * matter, and a request whose completion the recorder missed stays buried). */
TsRecRequest *ts_rec_request_lookup (MPI_Request r);
TsRecRequest *ts_rec_request_add (MPI_Request r, TsRecRequestKind kind, guint32 comm);
/* A fresh request id. */
guint64 ts_rec_request_id (void);

/* record-symbols.c: the name of the function at @address in the module
 * loaded at @module_base from @module_path, from its ELF symbol table, or
 * NULL (caller frees). */
char *ts_rec_symbol_name (const char *module_path, const void *module_base, const void *address);

/* record-partitioned.c */
/* The partitioned event of a completed or started partitioned request. */
void ts_rec_partitioned_complete (TsRecRequest *q);
void ts_rec_partitioned_start (TsRecRequest *q);
void ts_rec_partitioned_write_definitions (OTF2_GlobalDefWriter *g, guint32 *next_string);

/* record-user.c */
void ts_rec_user_close_open_regions (void);
/* The user region naming the function that holds @return_address: its name
 * (C++ names demangled) or, where no symbol covers it (a stripped program),
 * its module and offset. */
guint32 ts_rec_caller_region (const void *return_address);
/* Unify the user region names over all ranks (collective on world): rank 0
 * writes their definitions, every rank its local-to-global mapping into
 * each of its locations' @locals (NULL ones skipped). */
void ts_rec_user_write_definitions (OTF2_GlobalDefWriter *g, guint32 *next_string,
                                    OTF2_DefWriter *const *locals, guint n_locals);
/* The user region @name's id (made at its first use; any thread). */
guint32 ts_rec_user_region (const char *name);

/* With TS_RECORD_CPU_TIME=1, the calling thread's CPU time into @w just
 * before an ENTER or LEAVE at @t (the order tracesim reads it in:
 * model/decode-cpu.c); nothing otherwise. */
void ts_rec_cpu_time (OTF2_EvtWriter *w, OTF2_TimeStamp t);

/* record-omp.c: OpenMP teams on every thread, and every thread's location. */
/* The OpenMP regions, named as Score-P names them. */
typedef enum { TS_OMP_PARALLEL, TS_OMP_IMPLICIT_BARRIER, TS_OMP_BARRIER } TsRecOmpRegion;
/* Whether a team the calling thread forks now is recorded: it is the
 * rank's own thread, recording, outside the recorder's own calls; the
 * regions' ids are made then (ts_rec_omp_region gives them). */
gboolean ts_rec_omp_team_recordable (void);
guint32 ts_rec_omp_region (TsRecOmpRegion which);
/* The OpenMP runtime's function @name (the next definition after the
 * recorder's); aborts, saying which, if there is none. */
void *ts_rec_runtime (const char *name);
/* ENTER and LEAVE of @region at @t into @w, the thread's CPU time read
 * before it. */
void ts_rec_omp_enter_at (OTF2_EvtWriter *w, OTF2_TimeStamp t, guint32 region);
void ts_rec_omp_leave_at (OTF2_EvtWriter *w, OTF2_TimeStamp t, guint32 region);
/* record-locks.c: OpenMP locks and critical sections. The calling thread's
 * writer where it records now (else NULL); the lock at @address taken
 * (its acquisition, after the construct's ENTER) and given back; the ids
 * forgotten. */
OTF2_EvtWriter *ts_rec_lock_writer (void);
void ts_rec_lock_acquired (OTF2_EvtWriter *w, const void *address);
void ts_rec_lock_released (OTF2_EvtWriter *w, const void *address);
void ts_rec_locks_free (void);
/* record-ompt.c: whether LLVM's runtime took the recorder as its OMPT tool
 * (its teams are recorded from OMPT's callbacks, not GOMP's entry points,
 * which LLVM's runtime also has for GCC's code). */
gboolean ts_rec_ompt_active (void);
/* At MPI_Finalize, before the threads' writers close: end the parts of the
 * rank's last team that the runtime has not told yet. */
void ts_rec_ompt_close (void);
/* ENTER and LEAVE of @region now, into the calling thread's own writer
 * (a thread other than MPI_Init's, while on), its CPU time read before
 * each. */
void ts_rec_omp_enter (guint32 region);
void ts_rec_omp_leave (guint32 region);
/* Close the other threads' writers: how many, and their events (*@events,
 * g_free). Their locations are (thread << 32 | rank), thread from 1, in
 * the order the threads first recorded. */
guint ts_rec_omp_close (guint64 **events);
void ts_rec_omp_free (void);
void ts_rec_user_free (void);

/* ---- the output directory (record-dir.c) ---- */

/* The marker rank 0 writes into a recording's directory once its archive
 * is open; tracesim-record.in names it too. */
#define TS_REC_MARKER "tracesim-record.txt"

/* Rank 0, before the archive is opened: @dir made ready for a new
 * recording. Absent or empty, it is; holding tracesim-record's own earlier
 * recording (the archive's files and the marker, nothing else), it is
 * moved aside to @dir-YYYYMMDD_HHMMSS (the old recording's start; -2, -3...
 * where taken), named in *@moved_to (caller frees); where @dir is a
 * symbolic link, its target is what moves, and is made again, empty.
 * Returns NULL when ready, else why @dir cannot be used (caller frees);
 * nothing is moved or removed then, unless *@moved_to says so. */
char *ts_rec_dir_prepare (const char *dir, char **moved_to);
/* Rank 0, when the archive could not be created in @dir (which
 * ts_rec_dir_prepare left without one): the system's answer to making the
 * directory or a file in it, made and removed again (caller frees). */
char *ts_rec_dir_failure (const char *dir);
/* Rank 0, once the archive is open: the marker, saying what recorded @dir,
 * when, on how many @ranks, under @mpi_library. A failure to write it is
 * said on stderr; recording goes on. */
void ts_rec_dir_write_marker (const char *dir, int ranks, const char *mpi_library);
/* The marker removed, with the incomplete archive it named. */
void ts_rec_dir_remove_marker (const char *dir);
/* The first line of MPI_Get_library_version, blanks collapsed ("Open MPI
 * v4.1.4, package: ..."), "" if the library says nothing (caller frees). */
char *ts_rec_mpi_library (void);

G_END_DECLS

#endif
