/* Collectives on any (intra)communicator: MpiCollectiveBegin / End inside
 * the call for the blocking ones, NonBlockingCollectiveRequest at the call
 * and NonBlockingCollectiveComplete where a wait or test completes it for the
 * non-blocking ones (record-p2p.c writes that). Roots are ranks of the
 * communicator.
 *
 * Bytes follow Score-P's convention (scorep_mpi_coll_bytes_*): what this
 * rank sends and receives in total, counting its own block, with MPI_IN_PLACE
 * taking the own block out; e.g. MPI_Bcast of b bytes over n ranks: the root
 * sends n b and receives b, the others receive b; MPI_Allreduce: n b both
 * ways; MPI_Reduce: b sent, the root receives n b. */
#include <config.h>

#include "recorder/record-private.h"

typedef struct {
  int me, n;
  guint64 sent, received;
} Bytes;

static void
bytes_init (Bytes *b, MPI_Comm comm)
{
  b->sent = b->received = 0;
  PMPI_Comm_rank (comm, &b->me);
  PMPI_Comm_size (comm, &b->n);
}

/* Gather-like: @block bytes per rank flow to @root. */
static void
all_to_one (Bytes *b, guint64 send_block, guint64 recv_block, int root, gboolean in_place)
{
  if (b->me == root)
    {
      b->sent = in_place ? 0 : recv_block;
      b->received = (guint64) (in_place ? b->n - 1 : b->n) * recv_block;
    }
  else
    b->sent = send_block;
}

static void
one_to_all (Bytes *b, guint64 send_block, guint64 recv_block, int root, gboolean in_place)
{
  all_to_one (b, recv_block, send_block, root, in_place);
  guint64 t = b->sent;
  b->sent = b->received;
  b->received = t;
}

static guint64
sum_bytes (const int *counts, int n, MPI_Datatype type)
{
  guint64 total = 0;
  for (int i = 0; i < n; i++)
    total += ts_rec_bytes (counts[i], type);
  return total;
}

/* Gatherv-like: the root receives every rank's block. */
static void
all_to_one_v (Bytes *b, guint64 send_block, const int *recvcounts, MPI_Datatype recvtype,
              int root, gboolean in_place)
{
  if (b->me == root)
    {
      guint64 own = ts_rec_bytes (recvcounts[b->me], recvtype);
      b->received = sum_bytes (recvcounts, b->n, recvtype) - (in_place ? own : 0);
      b->sent = in_place ? 0 : own;
    }
  else
    b->sent = send_block;
}

/* Alltoall-like: @block to and from every rank. */
static void
all_to_all (Bytes *b, guint64 send_block, guint64 recv_block, gboolean in_place)
{
  if (in_place)
    b->sent = b->received = (guint64) (b->n - 1) * recv_block;
  else
    {
      b->sent = (guint64) b->n * send_block;
      b->received = (guint64) b->n * recv_block;
    }
}

static void
scan (Bytes *b, guint64 block, gboolean in_place)
{
  b->sent = (guint64) (b->n - b->me - (in_place ? 1 : 0)) * block;
  b->received = (guint64) (b->me + (in_place ? 0 : 1)) * block;
}

/* ---- the wrappers' shape ------------------------------------------------------ */

static guint32
coll_begin (TsRecRegion region, guint32 ref)
{
  ts_rec_enter (region);
  if (ref != TS_REC_COMM_UNKNOWN && ts_rec.on)
    ts_rec_check (OTF2_EvtWriter_MpiCollectiveBegin (ts_rec_evt (), NULL, ts_rec_now ()));
  return ref;
}

static void
coll_end (TsRecRegion region, guint32 ref, int rc, OTF2_CollectiveOp op, int root,
          const Bytes *b)
{
  if (ref != TS_REC_COMM_UNKNOWN && ts_rec.on)
    ts_rec_check (OTF2_EvtWriter_MpiCollectiveEnd (
      ts_rec_evt (), NULL, ts_rec_now (), op, ref, root < 0 ? OTF2_UNDEFINED_UINT32 : (guint32) root,
      b->sent, b->received));
  ts_rec_leave (region);
}

static void
nbc_posted (MPI_Request r, guint32 ref, OTF2_CollectiveOp op, int root, const Bytes *b)
{
  if (!ts_rec.on)
    return;
  TsRecRequest *q = ts_rec_request_add (r, TS_REQ_COLL, ref);
  q->op = op;
  q->root = root < 0 ? OTF2_UNDEFINED_UINT32 : (guint32) root;
  q->sent = b->sent;
  q->received = b->received;
  ts_rec_check (OTF2_EvtWriter_NonBlockingCollectiveRequest (ts_rec_evt (), NULL, ts_rec_now (),
                                                             q->id));
}

/* @bytes: a statement filling Bytes b_; @root: -1 for unrooted operations. */
#define BLOCKING(region, op, comm, root, bytes, call) \
  do { \
    if (!ts_rec_recording_call ()) \
      return call; \
    guint32 ref_ = ts_rec_comm_ref (comm); \
    Bytes b_ = { 0 }; \
    if (ref_ != TS_REC_COMM_UNKNOWN) \
      { \
        bytes_init (&b_, comm); \
        bytes; \
      } \
    coll_begin (region, ref_); \
    int rc_ = call; \
    coll_end (region, ref_, rc_, op, root, &b_); \
    return rc_; \
  } while (0)

#define NONBLOCKING(region, op, comm, root, bytes, call, req) \
  do { \
    if (!ts_rec_recording_call ()) \
      return call; \
    guint32 ref_ = ts_rec_comm_ref (comm); \
    Bytes b_ = { 0 }; \
    if (ref_ != TS_REC_COMM_UNKNOWN) \
      { \
        bytes_init (&b_, comm); \
        bytes; \
      } \
    ts_rec_enter (region); \
    int rc_ = call; \
    if (rc_ == MPI_SUCCESS && ref_ != TS_REC_COMM_UNKNOWN) \
      nbc_posted (*(req), ref_, op, root, &b_); \
    ts_rec_leave (region); \
    return rc_; \
  } while (0)

#define IN_PLACE(buf) ((buf) == MPI_IN_PLACE)
#define B(count, type) ts_rec_bytes (count, type)

/* ---- blocking ------------------------------------------------------------------ */

int
MPI_Barrier (MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, (void) 0, PMPI_Barrier (comm));
}

int
MPI_Bcast (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_BCAST, OTF2_COLLECTIVE_OP_BCAST, comm, root,
            one_to_all (&b_, B (count, type), B (count, type), root, FALSE),
            PMPI_Bcast (buf, count, type, root, comm));
}

int
MPI_Gather (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
            MPI_Datatype rtype, int root, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_GATHER, OTF2_COLLECTIVE_OP_GATHER, comm, root,
            all_to_one (&b_, B (scount, stype), B (rcount, rtype), root, IN_PLACE (sbuf)),
            PMPI_Gather (sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

int
MPI_Gatherv (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
             const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_GATHERV, OTF2_COLLECTIVE_OP_GATHERV, comm, root,
            all_to_one_v (&b_, B (scount, stype), rcounts, rtype, root, IN_PLACE (sbuf)),
            PMPI_Gatherv (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm));
}

int
MPI_Scatter (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
             MPI_Datatype rtype, int root, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_SCATTER, OTF2_COLLECTIVE_OP_SCATTER, comm, root,
            one_to_all (&b_, B (scount, stype), B (rcount, rtype), root, IN_PLACE (rbuf)),
            PMPI_Scatter (sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

static void
scatterv_bytes (Bytes *b, const int *scounts, MPI_Datatype stype, guint64 recv_block, int root,
                gboolean in_place)
{
  all_to_one_v (b, recv_block, scounts, stype, root, in_place);
  guint64 t = b->sent;
  b->sent = b->received;
  b->received = t;
}

int
MPI_Scatterv (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
              void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_SCATTERV, OTF2_COLLECTIVE_OP_SCATTERV, comm, root,
            scatterv_bytes (&b_, scounts, stype, B (rcount, rtype), root, IN_PLACE (rbuf)),
            PMPI_Scatterv (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm));
}

int
MPI_Allgather (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_ALLGATHER, OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1,
            all_to_all (&b_, B (scount, stype), B (rcount, rtype), IN_PLACE (sbuf)),
            PMPI_Allgather (sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

static void
allgatherv_bytes (Bytes *b, guint64 send_block, const int *rcounts, MPI_Datatype rtype,
                  gboolean in_place)
{
  guint64 own = ts_rec_bytes (rcounts[b->me], rtype);
  b->received = sum_bytes (rcounts, b->n, rtype) - (in_place ? own : 0);
  b->sent = in_place ? (guint64) (b->n - 1) * own : (guint64) b->n * send_block;
}

int
MPI_Allgatherv (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_ALLGATHERV, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1,
            allgatherv_bytes (&b_, B (scount, stype), rcounts, rtype, IN_PLACE (sbuf)),
            PMPI_Allgatherv (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm));
}

int
MPI_Alltoall (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
              MPI_Datatype rtype, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_ALLTOALL, OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1,
            all_to_all (&b_, B (scount, stype), B (rcount, rtype), IN_PLACE (sbuf)),
            PMPI_Alltoall (sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

static void
alltoallv_bytes (Bytes *b, const int *scounts, MPI_Datatype stype, const int *rcounts,
                 MPI_Datatype rtype, gboolean in_place)
{
  b->received = sum_bytes (rcounts, b->n, rtype);
  if (in_place)
    b->sent = b->received = b->received - ts_rec_bytes (rcounts[b->me], rtype);
  else
    b->sent = sum_bytes (scounts, b->n, stype);
}

int
MPI_Alltoallv (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
               void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
               MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_ALLTOALLV, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1,
            alltoallv_bytes (&b_, scounts, stype, rcounts, rtype, IN_PLACE (sbuf)),
            PMPI_Alltoallv (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm));
}

static void
alltoallw_bytes (Bytes *b, const int *scounts, const MPI_Datatype *stypes, const int *rcounts,
                 const MPI_Datatype *rtypes, gboolean in_place)
{
  for (int i = 0; i < b->n; i++)
    {
      b->received += ts_rec_bytes (rcounts[i], rtypes[i]);
      if (!in_place)
        b->sent += ts_rec_bytes (scounts[i], stypes[i]);
    }
  if (in_place)
    b->sent = b->received = b->received - ts_rec_bytes (rcounts[b->me], rtypes[b->me]);
}

int
MPI_Alltoallw (const void *sbuf, const int scounts[], const int sdispls[],
               const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[],
               const MPI_Datatype rtypes[], MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_ALLTOALLW, OTF2_COLLECTIVE_OP_ALLTOALLW, comm, -1,
            alltoallw_bytes (&b_, scounts, stypes, rcounts, rtypes, IN_PLACE (sbuf)),
            PMPI_Alltoallw (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                            comm));
}

int
MPI_Reduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
            MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_REDUCE, OTF2_COLLECTIVE_OP_REDUCE, comm, root,
            all_to_one (&b_, B (count, type), B (count, type), root, IN_PLACE (sbuf)),
            PMPI_Reduce (sbuf, rbuf, count, type, op, root, comm));
}

int
MPI_Allreduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1,
            all_to_all (&b_, B (count, type), B (count, type), IN_PLACE (sbuf)),
            PMPI_Allreduce (sbuf, rbuf, count, type, op, comm));
}

static void
reduce_scatter_bytes (Bytes *b, const int *rcounts, MPI_Datatype type, gboolean in_place)
{
  guint64 own = ts_rec_bytes (rcounts[b->me], type);
  b->sent = sum_bytes (rcounts, b->n, type) - (in_place ? own : 0);
  b->received = (guint64) (in_place ? b->n - 1 : b->n) * own;
}

int
MPI_Reduce_scatter (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                    MPI_Op op, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_REDUCE_SCATTER, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1,
            reduce_scatter_bytes (&b_, rcounts, type, IN_PLACE (sbuf)),
            PMPI_Reduce_scatter (sbuf, rbuf, rcounts, type, op, comm));
}

int
MPI_Reduce_scatter_block (const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_REDUCE_SCATTER_BLOCK, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1,
            all_to_all (&b_, B (rcount, type), B (rcount, type), IN_PLACE (sbuf)),
            PMPI_Reduce_scatter_block (sbuf, rbuf, rcount, type, op, comm));
}

int
MPI_Scan (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_SCAN, OTF2_COLLECTIVE_OP_SCAN, comm, -1,
            scan (&b_, B (count, type), IN_PLACE (sbuf)),
            PMPI_Scan (sbuf, rbuf, count, type, op, comm));
}

/* Exscan never sends to itself: the in-place shape of Scan. */
int
MPI_Exscan (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
            MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  BLOCKING (TS_R_EXSCAN, OTF2_COLLECTIVE_OP_EXSCAN, comm, -1, scan (&b_, B (count, type), TRUE),
            PMPI_Exscan (sbuf, rbuf, count, type, op, comm));
}

/* ---- non-blocking ------------------------------------------------------------- */

int
MPI_Ibarrier (MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IBARRIER, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, (void) 0,
               PMPI_Ibarrier (comm, req), req);
}

int
MPI_Ibcast (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IBCAST, OTF2_COLLECTIVE_OP_BCAST, comm, root,
               one_to_all (&b_, B (count, type), B (count, type), root, FALSE),
               PMPI_Ibcast (buf, count, type, root, comm, req), req);
}

int
MPI_Igather (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
             MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IGATHER, OTF2_COLLECTIVE_OP_GATHER, comm, root,
               all_to_one (&b_, B (scount, stype), B (rcount, rtype), root, IN_PLACE (sbuf)),
               PMPI_Igather (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), req);
}

int
MPI_Igatherv (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
              const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IGATHERV, OTF2_COLLECTIVE_OP_GATHERV, comm, root,
               all_to_one_v (&b_, B (scount, stype), rcounts, rtype, root, IN_PLACE (sbuf)),
               PMPI_Igatherv (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm,
                              req),
               req);
}

int
MPI_Iscatter (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
              MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_ISCATTER, OTF2_COLLECTIVE_OP_SCATTER, comm, root,
               one_to_all (&b_, B (scount, stype), B (rcount, rtype), root, IN_PLACE (rbuf)),
               PMPI_Iscatter (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), req);
}

int
MPI_Iscatterv (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
               void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
               MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_ISCATTERV, OTF2_COLLECTIVE_OP_SCATTERV, comm, root,
               scatterv_bytes (&b_, scounts, stype, B (rcount, rtype), root, IN_PLACE (rbuf)),
               PMPI_Iscatterv (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
                               req),
               req);
}

int
MPI_Iallgather (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IALLGATHER, OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1,
               all_to_all (&b_, B (scount, stype), B (rcount, rtype), IN_PLACE (sbuf)),
               PMPI_Iallgather (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), req);
}

int
MPI_Iallgatherv (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                 const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                 MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IALLGATHERV, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1,
               allgatherv_bytes (&b_, B (scount, stype), rcounts, rtype, IN_PLACE (sbuf)),
               PMPI_Iallgatherv (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req),
               req);
}

int
MPI_Ialltoall (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IALLTOALL, OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1,
               all_to_all (&b_, B (scount, stype), B (rcount, rtype), IN_PLACE (sbuf)),
               PMPI_Ialltoall (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), req);
}

int
MPI_Ialltoallv (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IALLTOALLV, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1,
               alltoallv_bytes (&b_, scounts, stype, rcounts, rtype, IN_PLACE (sbuf)),
               PMPI_Ialltoallv (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                                comm, req),
               req);
}

int
MPI_Ialltoallw (const void *sbuf, const int scounts[], const int sdispls[],
                const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IALLTOALLW, OTF2_COLLECTIVE_OP_ALLTOALLW, comm, -1,
               alltoallw_bytes (&b_, scounts, stypes, rcounts, rtypes, IN_PLACE (sbuf)),
               PMPI_Ialltoallw (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                                comm, req),
               req);
}

int
MPI_Ireduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
             MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IREDUCE, OTF2_COLLECTIVE_OP_REDUCE, comm, root,
               all_to_one (&b_, B (count, type), B (count, type), root, IN_PLACE (sbuf)),
               PMPI_Ireduce (sbuf, rbuf, count, type, op, root, comm, req), req);
}

int
MPI_Iallreduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1,
               all_to_all (&b_, B (count, type), B (count, type), IN_PLACE (sbuf)),
               PMPI_Iallreduce (sbuf, rbuf, count, type, op, comm, req), req);
}

int
MPI_Ireduce_scatter (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                     MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IREDUCE_SCATTER, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1,
               reduce_scatter_bytes (&b_, rcounts, type, IN_PLACE (sbuf)),
               PMPI_Ireduce_scatter (sbuf, rbuf, rcounts, type, op, comm, req), req);
}

int
MPI_Ireduce_scatter_block (const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
                           MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IREDUCE_SCATTER_BLOCK, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1,
               all_to_all (&b_, B (rcount, type), B (rcount, type), IN_PLACE (sbuf)),
               PMPI_Ireduce_scatter_block (sbuf, rbuf, rcount, type, op, comm, req), req);
}

int
MPI_Iscan (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
           MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_ISCAN, OTF2_COLLECTIVE_OP_SCAN, comm, -1,
               scan (&b_, B (count, type), IN_PLACE (sbuf)),
               PMPI_Iscan (sbuf, rbuf, count, type, op, comm, req), req);
}

int
MPI_Iexscan (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  NONBLOCKING (TS_R_IEXSCAN, OTF2_COLLECTIVE_OP_EXSCAN, comm, -1,
               scan (&b_, B (count, type), TRUE),
               PMPI_Iexscan (sbuf, rbuf, count, type, op, comm, req), req);
}
