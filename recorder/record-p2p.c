/* Point-to-point: the send and receive events with the true envelope (peers
 * are ranks of the call's communicator, as OTF2 defines them), requests with
 * unique ids, completions inside every Wait / Test variant, a
 * MpiRequestTest for every request a failed test looked at, persistent
 * requests (each MPI_Start posts the request again under a fresh id) and
 * cancelled requests (MpiRequestCancelled where the cancel completes).
 *
 * MPI_PROC_NULL: a call whose only peer is MPI_PROC_NULL moves nothing and is
 * not recorded at all (a region without its event would read as a call
 * whose message is missing); neither is a wait or test none of whose
 * requests the recorder knows as active (null, inactive or MPI_PROC_NULL
 * requests): MPI returns at once from those. */
#include <config.h>

#include "recorder/record-private.h"

#include <string.h>

/* Status arrays on the stack up to this many requests. */
#define STACK_STATUSES 16

static void
request_chain_free (gpointer p)
{
  for (TsRecRequest *q = p, *next; q; q = next)
    {
      next = q->older;
      g_free (q);
    }
}

void
ts_rec_requests_init (void)
{
  ts_rec.requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, request_chain_free);
}

void
ts_rec_requests_free (void)
{
  g_clear_pointer (&ts_rec.requests, g_hash_table_unref);
}

guint64
ts_rec_request_id (void)
{
  return __atomic_add_fetch (&ts_rec.next_request, 1, __ATOMIC_RELAXED);
}

TsRecRequest *
ts_rec_request_lookup (MPI_Request r)
{
  if (r == MPI_REQUEST_NULL || !ts_rec.requests)
    return NULL;
  guint64 key = ts_rec_handle_key (&r, sizeof r);
  g_mutex_lock (&ts_rec.requests_lock);
  TsRecRequest *q = g_hash_table_lookup (ts_rec.requests, &key);
  g_mutex_unlock (&ts_rec.requests_lock);
  return q;
}

TsRecRequest *
ts_rec_request_add (MPI_Request r, TsRecRequestKind kind, guint32 comm)
{
  TsRecRequest *q = g_new0 (TsRecRequest, 1);
  q->key = ts_rec_handle_key (&r, sizeof r);
  q->kind = kind;
  q->comm = comm;
  q->active = TRUE;
  q->id = ts_rec_request_id ();
  g_mutex_lock (&ts_rec.requests_lock);
  TsRecRequest *prev = g_hash_table_lookup (ts_rec.requests, &q->key);
  if (prev)
    {
      g_hash_table_steal (ts_rec.requests, &prev->key);
      if (prev->persistent)
        request_chain_free (prev); /* a stale handle: that request is gone */
      else
        q->older = prev;
    }
  g_hash_table_insert (ts_rec.requests, &q->key, q);
  g_mutex_unlock (&ts_rec.requests_lock);
  return q;
}

static void
request_forget (TsRecRequest *q)
{
  g_mutex_lock (&ts_rec.requests_lock);
  TsRecRequest *head = g_hash_table_lookup (ts_rec.requests, &q->key);
  if (head == q)
    {
      g_hash_table_steal (ts_rec.requests, &q->key);
      if (q->older)
        g_hash_table_insert (ts_rec.requests, &q->older->key, q->older);
    }
  else
    for (TsRecRequest *p = head; p; p = p->older)
      if (p->older == q)
        {
          p->older = q->older;
          break;
        }
  g_mutex_unlock (&ts_rec.requests_lock);
  g_free (q);
}

static gboolean
active (MPI_Request r)
{
  TsRecRequest *q = ts_rec_request_lookup (r);
  return q && q->active;
}

static gboolean
any_active (int n, const MPI_Request *r)
{
  for (int i = 0; i < n; i++)
    if (active (r[i]))
      return TRUE;
  return FALSE;
}

/* Request @r (its handle before the call freed it) completed with @st. */
static void
complete (MPI_Request r, const MPI_Status *st)
{
  TsRecRequest *q = ts_rec_request_lookup (r);
  if (!q || !q->active || !ts_rec.on)
    return;
  int cancelled = 0;
  if (q->kind == TS_REQ_SEND || q->kind == TS_REQ_RECV)
    PMPI_Test_cancelled (st, &cancelled);
  OTF2_EvtWriter *w = ts_rec_evt ();
  if (cancelled)
    ts_rec_check (OTF2_EvtWriter_MpiRequestCancelled (w, NULL, ts_rec_now (), q->id));
  else
    switch (q->kind)
      {
      case TS_REQ_RECV:
        {
          int got = 0;
          PMPI_Get_count (st, MPI_BYTE, &got);
          ts_rec_check (OTF2_EvtWriter_MpiIrecv (w, NULL, ts_rec_now (), st->MPI_SOURCE,
                                                 q->comm, st->MPI_TAG, MAX (got, 0), q->id));
          break;
        }
      case TS_REQ_SEND:
        ts_rec_check (OTF2_EvtWriter_MpiIsendComplete (w, NULL, ts_rec_now (), q->id));
        break;
      case TS_REQ_COLL:
        ts_rec_check (OTF2_EvtWriter_NonBlockingCollectiveComplete (
          w, NULL, ts_rec_now (), q->op, q->comm, q->root, q->sent, q->received, q->id));
        break;
      case TS_REQ_PSEND:
      case TS_REQ_PRECV:
        ts_rec_partitioned_complete (q);
        break;
      }
  if (q->persistent)
    q->active = FALSE;
  else
    request_forget (q);
}

/* A test looked at @r and it had not completed. Partitioned requests have
 * no such event in tracesim's encoding (doc/event-model.md). */
static void
tested (MPI_Request r)
{
  TsRecRequest *q = ts_rec_request_lookup (r);
  if (q && q->active && ts_rec.on && q->kind != TS_REQ_PSEND && q->kind != TS_REQ_PRECV)
    ts_rec_check (OTF2_EvtWriter_MpiRequestTest (ts_rec_evt (), NULL, ts_rec_now (), q->id));
}

/* ---- blocking ---------------------------------------------------------------- */

static void
send_event (int dest, int tag, guint32 comm, guint64 bytes)
{
  if (comm != TS_REC_COMM_UNKNOWN && ts_rec.on)
    ts_rec_check (OTF2_EvtWriter_MpiSend (ts_rec_evt (), NULL, ts_rec_now (), dest, comm, tag,
                                          bytes));
}

static void
recv_event (const MPI_Status *st, guint32 comm)
{
  if (comm == TS_REC_COMM_UNKNOWN || st->MPI_SOURCE == MPI_PROC_NULL || !ts_rec.on)
    return;
  int got = 0;
  PMPI_Get_count (st, MPI_BYTE, &got);
  ts_rec_check (OTF2_EvtWriter_MpiRecv (ts_rec_evt (), NULL, ts_rec_now (), st->MPI_SOURCE, comm,
                                        st->MPI_TAG, MAX (got, 0)));
}

typedef int (*SendFn) (const void *, int, MPI_Datatype, int, int, MPI_Comm);

static int
blocking_send (TsRecRegion region, SendFn fn, const void *buf, int count, MPI_Datatype type,
               int dest, int tag, MPI_Comm comm)
{
  if (!ts_rec_recording_call () || dest == MPI_PROC_NULL)
    return fn (buf, count, type, dest, tag, comm);
  ts_rec_enter (region);
  send_event (dest, tag, ts_rec_comm_ref (comm), ts_rec_bytes (count, type));
  int rc = fn (buf, count, type, dest, tag, comm);
  ts_rec_leave (region);
  return rc;
}

int
MPI_Send (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  return blocking_send (TS_R_SEND, PMPI_Send, buf, count, type, dest, tag, comm);
}

int
MPI_Bsend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  return blocking_send (TS_R_BSEND, PMPI_Bsend, buf, count, type, dest, tag, comm);
}

int
MPI_Ssend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  return blocking_send (TS_R_SSEND, PMPI_Ssend, buf, count, type, dest, tag, comm);
}

int
MPI_Rsend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  TS_REC_NOTE_CALLER ();
  return blocking_send (TS_R_RSEND, PMPI_Rsend, buf, count, type, dest, tag, comm);
}

int
MPI_Recv (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Status *status)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || source == MPI_PROC_NULL)
    return PMPI_Recv (buf, count, type, source, tag, comm, status);
  MPI_Status st;
  ts_rec_enter (TS_R_RECV);
  int rc = PMPI_Recv (buf, count, type, source, tag, comm, &st);
  if (rc == MPI_SUCCESS)
    recv_event (&st, ts_rec_comm_ref (comm));
  ts_rec_leave (TS_R_RECV);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return rc;
}

/* MPI_Sendrecv: its send and its receive, both inside the call. */
int
MPI_Sendrecv (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
              int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
              MPI_Status *status)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || (dest == MPI_PROC_NULL && source == MPI_PROC_NULL))
    return PMPI_Sendrecv (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                          comm, status);
  guint32 ref = ts_rec_comm_ref (comm);
  MPI_Status st;
  ts_rec_enter (TS_R_SENDRECV);
  if (dest != MPI_PROC_NULL)
    send_event (dest, stag, ref, ts_rec_bytes (scount, stype));
  int rc = PMPI_Sendrecv (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                          comm, &st);
  if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
    recv_event (&st, ref);
  ts_rec_leave (TS_R_SENDRECV);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return rc;
}

int
MPI_Sendrecv_replace (void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
                      int rtag, MPI_Comm comm, MPI_Status *status)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || (dest == MPI_PROC_NULL && source == MPI_PROC_NULL))
    return PMPI_Sendrecv_replace (buf, count, type, dest, stag, source, rtag, comm, status);
  guint32 ref = ts_rec_comm_ref (comm);
  MPI_Status st;
  ts_rec_enter (TS_R_SENDRECV_REPLACE);
  if (dest != MPI_PROC_NULL)
    send_event (dest, stag, ref, ts_rec_bytes (count, type));
  int rc = PMPI_Sendrecv_replace (buf, count, type, dest, stag, source, rtag, comm, &st);
  if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
    recv_event (&st, ref);
  ts_rec_leave (TS_R_SENDRECV_REPLACE);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return rc;
}

/* ---- non-blocking ------------------------------------------------------------ */

typedef int (*IsendFn) (const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static int
nonblocking_send (TsRecRegion region, IsendFn fn, const void *buf, int count, MPI_Datatype type,
                  int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  guint32 ref;
  if (!ts_rec_recording_call () || dest == MPI_PROC_NULL
      || (ref = ts_rec_comm_ref (comm)) == TS_REC_COMM_UNKNOWN)
    return fn (buf, count, type, dest, tag, comm, req);
  ts_rec_enter (region);
  int rc = fn (buf, count, type, dest, tag, comm, req);
  if (rc == MPI_SUCCESS && ts_rec.on)
    {
      TsRecRequest *q = ts_rec_request_add (*req, TS_REQ_SEND, ref);
      ts_rec_check (OTF2_EvtWriter_MpiIsend (ts_rec_evt (), NULL, ts_rec_now (), dest, ref, tag,
                                             ts_rec_bytes (count, type), q->id));
    }
  ts_rec_leave (region);
  return rc;
}

int
MPI_Isend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  return nonblocking_send (TS_R_ISEND, PMPI_Isend, buf, count, type, dest, tag, comm, req);
}

int
MPI_Ibsend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
            MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  return nonblocking_send (TS_R_IBSEND, PMPI_Ibsend, buf, count, type, dest, tag, comm, req);
}

int
MPI_Issend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
            MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  return nonblocking_send (TS_R_ISSEND, PMPI_Issend, buf, count, type, dest, tag, comm, req);
}

int
MPI_Irsend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
            MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  return nonblocking_send (TS_R_IRSEND, PMPI_Irsend, buf, count, type, dest, tag, comm, req);
}

int
MPI_Irecv (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
           MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  guint32 ref;
  if (!ts_rec_recording_call () || source == MPI_PROC_NULL
      || (ref = ts_rec_comm_ref (comm)) == TS_REC_COMM_UNKNOWN)
    return PMPI_Irecv (buf, count, type, source, tag, comm, req);
  ts_rec_enter (TS_R_IRECV);
  int rc = PMPI_Irecv (buf, count, type, source, tag, comm, req);
  if (rc == MPI_SUCCESS && ts_rec.on)
    {
      TsRecRequest *q = ts_rec_request_add (*req, TS_REQ_RECV, ref);
      ts_rec_check (OTF2_EvtWriter_MpiIrecvRequest (ts_rec_evt (), NULL, ts_rec_now (), q->id));
    }
  ts_rec_leave (TS_R_IRECV);
  return rc;
}

/* ---- persistent ---------------------------------------------------------- */

typedef int (*SendInitFn) (const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

/* The request and its envelope; no event (as Score-P): MPI_Start posts it. */
static void
persistent_add (MPI_Request r, TsRecRequestKind kind, int peer, int tag, MPI_Comm comm,
                guint64 bytes)
{
  guint32 ref = ts_rec_comm_ref (comm);
  if (ref == TS_REC_COMM_UNKNOWN)
    return;
  TsRecRequest *q = ts_rec_request_add (r, kind, ref);
  q->persistent = TRUE;
  q->active = FALSE;
  q->proc_null = peer == MPI_PROC_NULL;
  q->peer = (guint32) peer;
  q->tag = (guint32) tag;
  q->bytes = bytes;
}

static int
send_init (TsRecRegion region, SendInitFn fn, const void *buf, int count, MPI_Datatype type,
           int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  if (!ts_rec_recording_call ())
    return fn (buf, count, type, dest, tag, comm, req);
  ts_rec_enter (region);
  int rc = fn (buf, count, type, dest, tag, comm, req);
  if (rc == MPI_SUCCESS)
    persistent_add (*req, TS_REQ_SEND, dest, tag, comm, ts_rec_bytes (count, type));
  ts_rec_leave (region);
  return rc;
}

int
MPI_Send_init (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  return send_init (TS_R_SEND_INIT, PMPI_Send_init, buf, count, type, dest, tag, comm, req);
}

int
MPI_Bsend_init (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  return send_init (TS_R_BSEND_INIT, PMPI_Bsend_init, buf, count, type, dest, tag, comm, req);
}

int
MPI_Ssend_init (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  return send_init (TS_R_SSEND_INIT, PMPI_Ssend_init, buf, count, type, dest, tag, comm, req);
}

int
MPI_Rsend_init (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  return send_init (TS_R_RSEND_INIT, PMPI_Rsend_init, buf, count, type, dest, tag, comm, req);
}

int
MPI_Recv_init (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Recv_init (buf, count, type, source, tag, comm, req);
  ts_rec_enter (TS_R_RECV_INIT);
  int rc = PMPI_Recv_init (buf, count, type, source, tag, comm, req);
  if (rc == MPI_SUCCESS)
    persistent_add (*req, TS_REQ_RECV, source, tag, comm, ts_rec_bytes (count, type));
  ts_rec_leave (TS_R_RECV_INIT);
  return rc;
}

/* The posting of a persistent request by MPI_Start: a fresh id each time, so
 * that every start is its own request in the trace. */
static void
started (TsRecRequest *q)
{
  if (!q || !ts_rec.on)
    return;
  if (q->kind == TS_REQ_PSEND || q->kind == TS_REQ_PRECV)
    {
      q->active = TRUE; /* its event was written at the start of MPI_Start */
      return;
    }
  if (!q->persistent || q->proc_null)
    return;
  q->active = TRUE;
  q->id = ts_rec_request_id ();
  if (q->kind == TS_REQ_SEND)
    ts_rec_check (OTF2_EvtWriter_MpiIsend (ts_rec_evt (), NULL, ts_rec_now (), q->peer, q->comm,
                                           q->tag, q->bytes, q->id));
  else
    ts_rec_check (OTF2_EvtWriter_MpiIrecvRequest (ts_rec_evt (), NULL, ts_rec_now (), q->id));
}

/* Partitioned requests write their event at the beginning of MPI_Start. */
static void
starting (TsRecRequest *q)
{
  if (q && (q->kind == TS_REQ_PSEND || q->kind == TS_REQ_PRECV))
    ts_rec_partitioned_start (q);
}

int
MPI_Start (MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Start (req);
  TsRecRequest *q = ts_rec_request_lookup (*req);
  ts_rec_enter (TS_R_START);
  starting (q);
  int rc = PMPI_Start (req);
  if (rc == MPI_SUCCESS)
    started (q);
  ts_rec_leave (TS_R_START);
  return rc;
}

int
MPI_Startall (int n, MPI_Request reqs[])
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Startall (n, reqs);
  ts_rec_enter (TS_R_STARTALL);
  for (int i = 0; i < n; i++)
    starting (ts_rec_request_lookup (reqs[i]));
  int rc = PMPI_Startall (n, reqs);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      started (ts_rec_request_lookup (reqs[i]));
  ts_rec_leave (TS_R_STARTALL);
  return rc;
}

int
MPI_Request_free (MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Request_free (req);
  TsRecRequest *q = ts_rec_request_lookup (*req);
  ts_rec_enter (TS_R_REQUEST_FREE);
  if (q)
    request_forget (q); /* an active one completes unseen: MPI says nothing more of it */
  int rc = PMPI_Request_free (req);
  ts_rec_leave (TS_R_REQUEST_FREE);
  return rc;
}

/* The cancellation shows where the request completes (MpiRequestCancelled). */
int
MPI_Cancel (MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !active (*req))
    return PMPI_Cancel (req);
  ts_rec_enter (TS_R_CANCEL);
  int rc = PMPI_Cancel (req);
  ts_rec_leave (TS_R_CANCEL);
  return rc;
}

/* ---- waits and tests ------------------------------------------------------ */

int
MPI_Wait (MPI_Request *req, MPI_Status *status)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !active (*req))
    return PMPI_Wait (req, status);
  MPI_Request r = *req;
  MPI_Status st;
  ts_rec_enter (TS_R_WAIT);
  int rc = PMPI_Wait (req, &st);
  if (rc == MPI_SUCCESS)
    complete (r, &st);
  ts_rec_leave (TS_R_WAIT);
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return rc;
}

int
MPI_Test (MPI_Request *req, int *flag, MPI_Status *status)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !active (*req))
    return PMPI_Test (req, flag, status);
  MPI_Request r = *req;
  MPI_Status st;
  ts_rec_enter (TS_R_TEST);
  int rc = PMPI_Test (req, flag, &st);
  if (rc == MPI_SUCCESS && *flag)
    complete (r, &st);
  else if (rc == MPI_SUCCESS)
    tested (r);
  ts_rec_leave (TS_R_TEST);
  if (status != MPI_STATUS_IGNORE && rc == MPI_SUCCESS && *flag)
    *status = st;
  return rc;
}

/* The state of a call on an array of requests: their handles before the call
 * (it frees them) and a status array of the recorder's own when the program
 * passes MPI_STATUSES_IGNORE. */
typedef struct {
  MPI_Request before_stack[STACK_STATUSES];
  MPI_Status status_stack[STACK_STATUSES];
  MPI_Request *before;
  MPI_Status *st;
} ArrayCall;

static void
array_call_init (ArrayCall *a, int n, const MPI_Request *reqs)
{
  gboolean small = n <= STACK_STATUSES;
  a->before = small ? a->before_stack : g_new (MPI_Request, n);
  a->st = small ? a->status_stack : g_new (MPI_Status, n);
  memcpy (a->before, reqs, sizeof (MPI_Request) * MAX (n, 0));
}

static void
array_call_end (ArrayCall *a, int n_out, MPI_Status *statuses)
{
  if (statuses != MPI_STATUSES_IGNORE && n_out > 0)
    memcpy (statuses, a->st, sizeof (MPI_Status) * n_out);
  if (a->before != a->before_stack)
    {
      g_free (a->before);
      g_free (a->st);
    }
}

int
MPI_Waitall (int n, MPI_Request reqs[], MPI_Status statuses[])
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !any_active (n, reqs))
    return PMPI_Waitall (n, reqs, statuses);
  ArrayCall a;
  array_call_init (&a, n, reqs);
  ts_rec_enter (TS_R_WAITALL);
  int rc = PMPI_Waitall (n, reqs, a.st);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      complete (a.before[i], &a.st[i]);
  ts_rec_leave (TS_R_WAITALL);
  array_call_end (&a, n, statuses);
  return rc;
}

int
MPI_Testall (int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !any_active (n, reqs))
    return PMPI_Testall (n, reqs, flag, statuses);
  ArrayCall a;
  array_call_init (&a, n, reqs);
  ts_rec_enter (TS_R_TESTALL);
  int rc = PMPI_Testall (n, reqs, flag, a.st);
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
    if (*flag)
      complete (a.before[i], &a.st[i]);
    else
      tested (a.before[i]);
  ts_rec_leave (TS_R_TESTALL);
  array_call_end (&a, rc == MPI_SUCCESS && *flag ? n : 0, statuses);
  return rc;
}

int
MPI_Waitany (int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !any_active (n, reqs))
    return PMPI_Waitany (n, reqs, index, status);
  ArrayCall a;
  array_call_init (&a, n, reqs);
  ts_rec_enter (TS_R_WAITANY);
  int rc = PMPI_Waitany (n, reqs, index, &a.st[0]);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
    complete (a.before[*index], &a.st[0]);
  ts_rec_leave (TS_R_WAITANY);
  if (status != MPI_STATUS_IGNORE && rc == MPI_SUCCESS)
    *status = a.st[0];
  array_call_end (&a, 0, MPI_STATUSES_IGNORE);
  return rc;
}

int
MPI_Testany (int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !any_active (n, reqs))
    return PMPI_Testany (n, reqs, index, flag, status);
  ArrayCall a;
  array_call_init (&a, n, reqs);
  ts_rec_enter (TS_R_TESTANY);
  int rc = PMPI_Testany (n, reqs, index, flag, &a.st[0]);
  if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
    complete (a.before[*index], &a.st[0]);
  else if (rc == MPI_SUCCESS && !*flag)
    for (int i = 0; i < n; i++)
      tested (a.before[i]);
  ts_rec_leave (TS_R_TESTANY);
  if (status != MPI_STATUS_IGNORE && rc == MPI_SUCCESS && *flag)
    *status = a.st[0];
  array_call_end (&a, 0, MPI_STATUSES_IGNORE);
  return rc;
}

/* Waitsome and Testsome: the completed ones, then a failed test for every
 * other active request the call looked at (Testsome only: Waitsome blocks
 * until one completes and says nothing of the others). */
static int
some (TsRecRegion region, gboolean test, int n, MPI_Request reqs[], int *outcount,
      int indices[], MPI_Status statuses[])
{
  ArrayCall a;
  array_call_init (&a, n, reqs);
  ts_rec_enter (region);
  int rc = test ? PMPI_Testsome (n, reqs, outcount, indices, a.st)
                : PMPI_Waitsome (n, reqs, outcount, indices, a.st);
  int done = rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0;
  for (int i = 0; i < done; i++)
    complete (a.before[indices[i]], &a.st[i]);
  if (test && rc == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      tested (a.before[i]); /* the completed ones are no longer active */
  ts_rec_leave (region);
  array_call_end (&a, done, statuses);
  return rc;
}

int
MPI_Waitsome (int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !any_active (n, reqs))
    return PMPI_Waitsome (n, reqs, outcount, indices, statuses);
  return some (TS_R_WAITSOME, FALSE, n, reqs, outcount, indices, statuses);
}

int
MPI_Testsome (int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call () || !any_active (n, reqs))
    return PMPI_Testsome (n, reqs, outcount, indices, statuses);
  return some (TS_R_TESTSOME, TRUE, n, reqs, outcount, indices, statuses);
}
