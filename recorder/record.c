/* libtracesim-record: a PMPI interposer that writes an OTF2 trace of an MPI
 * program, complete where tracers usually are not: the envelope of every
 * receive, every completion inside MPI_Wait / MPI_Test, and every failed test
 * (MpiRequestTest). Load it with LD_PRELOAD (tracesim-record does) or link it
 * before the MPI library.
 *
 * First increment: point-to-point (blocking, non-blocking, Wait/Waitall/
 * Test) on any communicator, peers written as MPI_COMM_WORLD ranks, and
 * Barrier/Bcast/Reduce/Allreduce on MPI_COMM_WORLD (collectives on other
 * communicators are not recorded yet). doc/recorder.md lists what is missing.
 *
 * This is an interposer: its state is per process by nature (one MPI rank
 * per process), kept in the single Recorder below. Recording never stops the
 * program: a failure prints one warning and recording switches off. */
#include <config.h>

#include <glib.h>
#include <mpi.h>
#include <otf2/otf2.h>
#include <otf2/OTF2_MPI_Collectives.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The regions this increment records, in id order. */
#define TS_RECORD_REGIONS(X) \
  X (INIT, "MPI_Init") X (FINALIZE, "MPI_Finalize") X (SEND, "MPI_Send") X (RECV, "MPI_Recv") \
  X (ISEND, "MPI_Isend") X (IRECV, "MPI_Irecv") X (WAIT, "MPI_Wait") X (WAITALL, "MPI_Waitall") \
  X (TEST, "MPI_Test") X (BARRIER, "MPI_Barrier") X (BCAST, "MPI_Bcast") \
  X (REDUCE, "MPI_Reduce") X (ALLREDUCE, "MPI_Allreduce")

enum {
#define X_ENUM(e, name) R_##e,
  TS_RECORD_REGIONS (X_ENUM)
#undef X_ENUM
  R_N
};

static const char *const region_names[R_N] = {
#define X_NAME(e, name) name,
  TS_RECORD_REGIONS (X_NAME)
#undef X_NAME
};

typedef struct {
  gboolean is_recv;
  guint64 id;
  MPI_Comm comm;
} Request;

typedef struct {
  gboolean on;               /* recording */
  int depth;                 /* > 0 inside a wrapper: MPI calls made by OTF2 pass through */
  int rank, size;
  OTF2_Archive *archive;
  OTF2_EvtWriter *evt;
  double t0;                 /* MPI_Wtime at MPI_Init, for timestamps from 0 */
  guint64 next_request;
  GHashTable *requests;      /* MPI_Request (as 64-bit key) -> Request* */
} Recorder;

static Recorder rec;

static OTF2_TimeStamp
now (void)
{
  double t = PMPI_Wtime () - rec.t0;
  return t > 0 ? (OTF2_TimeStamp) (t * 1e9) : 0;
}

static void
warn_off (const char *what)
{
  if (rec.on)
    fprintf (stderr, "tracesim-record: rank %d: %s; recording stops, the program runs on\n",
             rec.rank, what);
  rec.on = FALSE;
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
  return now ();
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

/* OTF2 prints its errors itself; the recorder says one line instead. */
static OTF2_ErrorCode
quiet (void *user_data, const char *file, uint64_t line, const char *function,
       OTF2_ErrorCode code, const char *message, va_list args)
{
  return code;
}

static gboolean
recording (void)
{
  return rec.on && rec.depth == 0;
}

static void
enter (int region)
{
  if (OTF2_EvtWriter_Enter (rec.evt, NULL, now (), region) != OTF2_SUCCESS)
    warn_off ("cannot write events");
}

static void
leave (int region)
{
  if (rec.on && OTF2_EvtWriter_Leave (rec.evt, NULL, now (), region) != OTF2_SUCCESS)
    warn_off ("cannot write events");
}

/* Rank of @peer of @comm in MPI_COMM_WORLD (the trace has one communicator
 * in this increment). */
static int
world_rank (MPI_Comm comm, int peer)
{
  if (peer < 0 || comm == MPI_COMM_WORLD)
    return peer;
  MPI_Group g, w;
  int out = peer;
  PMPI_Comm_group (comm, &g);
  PMPI_Comm_group (MPI_COMM_WORLD, &w);
  PMPI_Group_translate_ranks (g, 1, &peer, w, &out);
  PMPI_Group_free (&g);
  PMPI_Group_free (&w);
  return out;
}

static guint64
bytes_of (int count, MPI_Datatype type)
{
  int size = 0;
  PMPI_Type_size (type, &size);
  return (guint64) count * (guint64) size;
}

/* ---- set-up and tear-down -------------------------------------------------- */

static void
start (void)
{
  PMPI_Comm_rank (MPI_COMM_WORLD, &rec.rank);
  PMPI_Comm_size (MPI_COMM_WORLD, &rec.size);
  const char *dir = g_getenv ("TS_RECORD_DIR");
  if (!dir || !*dir)
    dir = "tracesim-trace";
  /* Everybody starts the clock together. */
  PMPI_Barrier (MPI_COMM_WORLD);
  rec.t0 = PMPI_Wtime ();
  rec.requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  rec.on = TRUE;
  rec.depth++;
  OTF2_Error_RegisterCallback (quiet, NULL);
  rec.archive = OTF2_Archive_Open (dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                   4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!rec.archive
      || OTF2_Archive_SetFlushCallbacks (rec.archive, &flush_callbacks, NULL) != OTF2_SUCCESS
      || OTF2_MPI_Archive_SetCollectiveCallbacks (rec.archive, MPI_COMM_WORLD, MPI_COMM_NULL)
           != OTF2_SUCCESS
      || OTF2_Archive_SetCreator (rec.archive, "tracesim-record " PACKAGE_VERSION) != OTF2_SUCCESS
      || OTF2_Archive_OpenEvtFiles (rec.archive) != OTF2_SUCCESS
      || !(rec.evt = OTF2_Archive_GetEvtWriter (rec.archive, rec.rank)))
    warn_off ("cannot create the OTF2 archive (is the directory writable?)");
  rec.depth--;
}

static void
write_definitions (guint64 *events)
{
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter (rec.archive);
  if (!g)
    return;
  guint32 s = 0;
  OTF2_GlobalDefWriter_WriteClockProperties (g, 1000000000, 0, now () + 1,
                                             OTF2_UNDEFINED_TIMESTAMP);
  OTF2_GlobalDefWriter_WriteString (g, s++, "");
  OTF2_GlobalDefWriter_WriteString (g, s++, "MPI");
  OTF2_GlobalDefWriter_WriteParadigm (g, OTF2_PARADIGM_MPI, 1, OTF2_PARADIGM_CLASS_PROCESS);
  OTF2_GlobalDefWriter_WriteString (g, s++, "machine");
  OTF2_GlobalDefWriter_WriteSystemTreeNode (g, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (int r = 0; r < R_N; r++)
    {
      OTF2_GlobalDefWriter_WriteString (g, s, region_names[r]);
      OTF2_GlobalDefWriter_WriteRegion (g, r, s, s, 0, OTF2_REGION_ROLE_FUNCTION,
                                        OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
      s++;
    }
  for (int r = 0; r < rec.size; r++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "MPI Rank %d", r);
      OTF2_GlobalDefWriter_WriteString (g, s, name);
      OTF2_GlobalDefWriter_WriteLocationGroup (g, r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                               OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation (g, r, s, OTF2_LOCATION_TYPE_CPU_THREAD, events[r], r);
      s++;
    }
  g_autofree guint64 *members = g_new (guint64, rec.size);
  for (int r = 0; r < rec.size; r++)
    members[r] = r;
  OTF2_GlobalDefWriter_WriteString (g, s, "MPI_COMM_WORLD");
  OTF2_GlobalDefWriter_WriteGroup (g, 0, s, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, rec.size, members);
  OTF2_GlobalDefWriter_WriteGroup (g, 1, s, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, rec.size, members);
  OTF2_GlobalDefWriter_WriteComm (g, 0, s, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
}

static void
stop (void)
{
  if (!rec.on)
    return;
  rec.depth++;
  guint64 n = 0;
  OTF2_EvtWriter_GetNumberOfEvents (rec.evt, &n);
  OTF2_Archive_CloseEvtWriter (rec.archive, rec.evt);
  OTF2_Archive_CloseEvtFiles (rec.archive);
  g_autofree guint64 *events = g_new0 (guint64, rec.size);
  PMPI_Gather (&n, 1, MPI_UINT64_T, events, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  /* Every location has its (empty) local definitions. */
  OTF2_Archive_OpenDefFiles (rec.archive);
  OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (rec.archive, rec.rank);
  if (dw)
    OTF2_Archive_CloseDefWriter (rec.archive, dw);
  OTF2_Archive_CloseDefFiles (rec.archive);
  if (rec.rank == 0)
    write_definitions (events);
  if (OTF2_Archive_Close (rec.archive) != OTF2_SUCCESS)
    warn_off ("cannot close the OTF2 archive");
  rec.archive = NULL;
  rec.on = FALSE;
  g_hash_table_unref (rec.requests);
  rec.depth--;
}

int
MPI_Init (int *argc, char ***argv)
{
  int rc = PMPI_Init (argc, argv);
  if (rc == MPI_SUCCESS)
    start ();
  return rc;
}

int
MPI_Init_thread (int *argc, char ***argv, int required, int *provided)
{
  int rc = PMPI_Init_thread (argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    start ();
  return rc;
}

int
MPI_Finalize (void)
{
  if (recording ())
    {
      enter (R_FINALIZE);
      leave (R_FINALIZE);
    }
  stop ();
  return PMPI_Finalize ();
}

/* ---- requests ---------------------------------------------------------------- */

static guint64
request_key (MPI_Request r)
{
  guint64 k = 0;
  memcpy (&k, &r, MIN (sizeof r, sizeof k));
  return k;
}

static guint64
request_new (MPI_Request r, gboolean is_recv, MPI_Comm comm)
{
  Request *q = g_new (Request, 1);
  q->is_recv = is_recv;
  q->comm = comm;
  q->id = ++rec.next_request;
  guint64 k = request_key (r);
  g_hash_table_replace (rec.requests, g_memdup2 (&k, sizeof k), q);
  return q->id;
}

/* @r (its handle before the call freed it) completed with @status. */
static void
request_done (MPI_Request r, const MPI_Status *status)
{
  guint64 k = request_key (r);
  Request *q = g_hash_table_lookup (rec.requests, &k);
  if (!q)
    return;
  if (q->is_recv)
    {
      int count = 0;
      PMPI_Get_count (status, MPI_BYTE, &count);
      OTF2_EvtWriter_MpiIrecv (rec.evt, NULL, now (), world_rank (q->comm, status->MPI_SOURCE),
                               0, status->MPI_TAG, count > 0 ? count : 0, q->id);
    }
  else
    OTF2_EvtWriter_MpiIsendComplete (rec.evt, NULL, now (), q->id);
  g_hash_table_remove (rec.requests, &k);
}

/* ---- point-to-point ------------------------------------------------------- */

int
MPI_Send (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  if (!recording () || dest == MPI_PROC_NULL)
    return PMPI_Send (buf, count, type, dest, tag, comm);
  enter (R_SEND);
  OTF2_EvtWriter_MpiSend (rec.evt, NULL, now (), world_rank (comm, dest), 0, tag,
                          bytes_of (count, type));
  int rc = PMPI_Send (buf, count, type, dest, tag, comm);
  leave (R_SEND);
  return rc;
}

int
MPI_Recv (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Status *status)
{
  if (!recording ())
    return PMPI_Recv (buf, count, type, source, tag, comm, status);
  MPI_Status st;
  enter (R_RECV);
  int rc = PMPI_Recv (buf, count, type, source, tag, comm, &st);
  if (rc == MPI_SUCCESS && st.MPI_SOURCE != MPI_PROC_NULL)
    {
      int got = 0;
      PMPI_Get_count (&st, MPI_BYTE, &got);
      OTF2_EvtWriter_MpiRecv (rec.evt, NULL, now (), world_rank (comm, st.MPI_SOURCE), 0,
                              st.MPI_TAG, got > 0 ? got : 0);
    }
  leave (R_RECV);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return rc;
}

int
MPI_Isend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request *req)
{
  if (!recording () || dest == MPI_PROC_NULL)
    return PMPI_Isend (buf, count, type, dest, tag, comm, req);
  enter (R_ISEND);
  int rc = PMPI_Isend (buf, count, type, dest, tag, comm, req);
  if (rc == MPI_SUCCESS)
    OTF2_EvtWriter_MpiIsend (rec.evt, NULL, now (), world_rank (comm, dest), 0, tag,
                             bytes_of (count, type), request_new (*req, FALSE, comm));
  leave (R_ISEND);
  return rc;
}

int
MPI_Irecv (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
           MPI_Request *req)
{
  if (!recording () || source == MPI_PROC_NULL)
    return PMPI_Irecv (buf, count, type, source, tag, comm, req);
  enter (R_IRECV);
  int rc = PMPI_Irecv (buf, count, type, source, tag, comm, req);
  if (rc == MPI_SUCCESS)
    OTF2_EvtWriter_MpiIrecvRequest (rec.evt, NULL, now (), request_new (*req, TRUE, comm));
  leave (R_IRECV);
  return rc;
}

int
MPI_Wait (MPI_Request *req, MPI_Status *status)
{
  if (!recording ())
    return PMPI_Wait (req, status);
  MPI_Request r = *req;
  MPI_Status st;
  enter (R_WAIT);
  int rc = PMPI_Wait (req, &st);
  if (rc == MPI_SUCCESS)
    request_done (r, &st);
  leave (R_WAIT);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return rc;
}

int
MPI_Waitall (int n, MPI_Request reqs[], MPI_Status statuses[])
{
  if (!recording ())
    return PMPI_Waitall (n, reqs, statuses);
  g_autofree MPI_Request *before = g_memdup2 (reqs, sizeof (MPI_Request) * MAX (n, 1));
  g_autofree MPI_Status *st = g_new (MPI_Status, MAX (n, 1));
  enter (R_WAITALL);
  int rc = PMPI_Waitall (n, reqs, st);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      request_done (before[i], &st[i]);
  leave (R_WAITALL);
  if (statuses != MPI_STATUSES_IGNORE)
    memcpy (statuses, st, sizeof (MPI_Status) * n);
  return rc;
}

int
MPI_Test (MPI_Request *req, int *flag, MPI_Status *status)
{
  if (!recording ())
    return PMPI_Test (req, flag, status);
  MPI_Request r = *req;
  MPI_Status st;
  enter (R_TEST);
  int rc = PMPI_Test (req, flag, &st);
  if (rc == MPI_SUCCESS && *flag)
    request_done (r, &st);
  else if (rc == MPI_SUCCESS)
    {
      guint64 k = request_key (r);
      Request *q = g_hash_table_lookup (rec.requests, &k);
      if (q)
        OTF2_EvtWriter_MpiRequestTest (rec.evt, NULL, now (), q->id);
    }
  leave (R_TEST);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return rc;
}

/* ---- collectives ------------------------------------------------------------ */

static void
collective_end (OTF2_CollectiveOp op, int root, MPI_Comm comm, guint64 sent, guint64 received)
{
  OTF2_EvtWriter_MpiCollectiveEnd (rec.evt, NULL, now (), op, 0,
                                   root < 0 ? OTF2_UNDEFINED_UINT32 : (guint32) world_rank (comm, root),
                                   sent, received);
}

int
MPI_Barrier (MPI_Comm comm)
{
  if (!recording () || comm != MPI_COMM_WORLD)
    return PMPI_Barrier (comm);
  enter (R_BARRIER);
  OTF2_EvtWriter_MpiCollectiveBegin (rec.evt, NULL, now ());
  int rc = PMPI_Barrier (comm);
  collective_end (OTF2_COLLECTIVE_OP_BARRIER, -1, comm, 0, 0);
  leave (R_BARRIER);
  return rc;
}

int
MPI_Bcast (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  if (!recording () || comm != MPI_COMM_WORLD)
    return PMPI_Bcast (buf, count, type, root, comm);
  guint64 b = bytes_of (count, type);
  enter (R_BCAST);
  OTF2_EvtWriter_MpiCollectiveBegin (rec.evt, NULL, now ());
  int rc = PMPI_Bcast (buf, count, type, root, comm);
  int me = 0;
  PMPI_Comm_rank (comm, &me);
  collective_end (OTF2_COLLECTIVE_OP_BCAST, root, comm, me == root ? b : 0, me == root ? 0 : b);
  leave (R_BCAST);
  return rc;
}

int
MPI_Reduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
            MPI_Comm comm)
{
  if (!recording () || comm != MPI_COMM_WORLD)
    return PMPI_Reduce (sbuf, rbuf, count, type, op, root, comm);
  guint64 b = bytes_of (count, type);
  enter (R_REDUCE);
  OTF2_EvtWriter_MpiCollectiveBegin (rec.evt, NULL, now ());
  int rc = PMPI_Reduce (sbuf, rbuf, count, type, op, root, comm);
  int me = 0;
  PMPI_Comm_rank (comm, &me);
  collective_end (OTF2_COLLECTIVE_OP_REDUCE, root, comm, b, me == root ? b : 0);
  leave (R_REDUCE);
  return rc;
}

int
MPI_Allreduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
  if (!recording () || comm != MPI_COMM_WORLD)
    return PMPI_Allreduce (sbuf, rbuf, count, type, op, comm);
  guint64 b = bytes_of (count, type);
  enter (R_ALLREDUCE);
  OTF2_EvtWriter_MpiCollectiveBegin (rec.evt, NULL, now ());
  int rc = PMPI_Allreduce (sbuf, rbuf, count, type, op, comm);
  collective_end (OTF2_COLLECTIVE_OP_ALLREDUCE, -1, comm, b, b);
  leave (R_ALLREDUCE);
  return rc;
}
