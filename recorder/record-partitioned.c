/* MPI-4 partitioned communication, in tracesim's encoding of the event model
 * of seed 000 (doc/event-model.md): each event a ParameterUnsignedInt record
 * whose parameter is named after the event (the names of
 * model/partitioned.h, shared with tracesim's reader and writer), whose
 * value is the request id, with the other fields in its attribute list.
 * Parameter ids are the TsPartitionedEvent values, as model/archive_writer.c
 * writes them; attribute ids the TsPartitionedAttribute values plus one
 * (TS_REC_PARTITIONED_ATTRIBUTE: the caller's is 0). Readers go by name.
 *
 * The request id is given at MPI_Psend_init / MPI_Precv_init and kept for
 * every round: the reader pairs requests by initialisation. */
#include <config.h>

#include "recorder/record-private.h"
#include "model/partitioned.h"

static void
write_event (TsPartitionedEvent e, guint64 id, OTF2_AttributeList *attrs)
{
  if (!ts_rec.on)
    return;
  ts_rec_check (OTF2_EvtWriter_ParameterUnsignedInt (ts_rec_evt (), attrs, ts_rec_now (), e, id));
}

void
ts_rec_partitioned_start (TsRecRequest *q)
{
  write_event (q->kind == TS_REQ_PSEND ? TS_P_PSEND_REQUEST : TS_P_PRECV_REQUEST, q->id, NULL);
}

void
ts_rec_partitioned_complete (TsRecRequest *q)
{
  write_event (q->kind == TS_REQ_PSEND ? TS_P_PSEND_COMPLETE : TS_P_PRECV_COMPLETE, q->id, NULL);
}

/* The wrappers exist only where the MPI library has the calls: MPI 4
 * (MPICH 4); Open MPI 4.1 has no partitioned communication. */
#if MPI_VERSION >= 4

static void
write_partition_event (TsPartitionedEvent e, guint64 id, int partition)
{
  OTF2_AttributeList *attrs = OTF2_AttributeList_New ();
  OTF2_AttributeList_AddUint32 (attrs, TS_REC_PARTITIONED_ATTRIBUTE (TS_PA_PARTITION), (guint32) partition);
  write_event (e, id, attrs);
  OTF2_AttributeList_Delete (attrs);
}

/* MPI_Psend_init / MPI_Precv_init: the request and, at the end of the call,
 * its initialisation event with the envelope. A peer of MPI_PROC_NULL or an
 * unknown communicator: no request, no event (nothing to pair). */
static void
initialised (MPI_Request r, gboolean send, int partitions, MPI_Count count, MPI_Datatype type,
             int peer, int tag, MPI_Comm comm)
{
  guint32 ref = ts_rec_comm_ref (comm);
  if (peer == MPI_PROC_NULL || ref == TS_REC_COMM_UNKNOWN || !ts_rec.on)
    return;
  TsRecRequest *q = ts_rec_request_add (r, send ? TS_REQ_PSEND : TS_REQ_PRECV, ref);
  q->persistent = TRUE;
  q->active = FALSE;
  ts_rec.uses_partitioned = TRUE;
  OTF2_AttributeList *attrs = OTF2_AttributeList_New ();
  OTF2_AttributeList_AddUint32 (attrs, TS_REC_PARTITIONED_ATTRIBUTE (TS_PA_PEER), (guint32) peer);
  OTF2_AttributeList_AddCommRef (attrs, TS_REC_PARTITIONED_ATTRIBUTE (TS_PA_COMM), ref);
  OTF2_AttributeList_AddUint32 (attrs, TS_REC_PARTITIONED_ATTRIBUTE (TS_PA_TAG), (guint32) tag);
  OTF2_AttributeList_AddUint64 (attrs, TS_REC_PARTITIONED_ATTRIBUTE (TS_PA_BYTES),
                                (guint64) MAX (partitions, 0) * ts_rec_bytes (count, type));
  OTF2_AttributeList_AddUint32 (attrs, TS_REC_PARTITIONED_ATTRIBUTE (TS_PA_PARTITIONS), (guint32) MAX (partitions, 0));
  write_event (send ? TS_P_PSEND_INIT : TS_P_PRECV_INIT, q->id, attrs);
  OTF2_AttributeList_Delete (attrs);
}

int
MPI_Psend_init (const void *buf, int partitions, MPI_Count count, MPI_Datatype type, int dest,
                int tag, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Psend_init (buf, partitions, count, type, dest, tag, comm, info, req);
  ts_rec_enter (TS_R_PSEND_INIT);
  int rc = PMPI_Psend_init (buf, partitions, count, type, dest, tag, comm, info, req);
  if (rc == MPI_SUCCESS)
    initialised (*req, TRUE, partitions, count, type, dest, tag, comm);
  ts_rec_leave (TS_R_PSEND_INIT);
  return rc;
}

int
MPI_Precv_init (void *buf, int partitions, MPI_Count count, MPI_Datatype type, int source,
                int tag, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Precv_init (buf, partitions, count, type, source, tag, comm, info, req);
  ts_rec_enter (TS_R_PRECV_INIT);
  int rc = PMPI_Precv_init (buf, partitions, count, type, source, tag, comm, info, req);
  if (rc == MPI_SUCCESS)
    initialised (*req, FALSE, partitions, count, type, source, tag, comm);
  ts_rec_leave (TS_R_PRECV_INIT);
  return rc;
}

/* The MPI_PREADY events go at the beginning of the call (Table 1): the
 * partitioned Late Sender ends where the last MPI_Pready starts. */
static TsRecRequest *
partitioned_send (MPI_Request r)
{
  TsRecRequest *q = ts_rec_request_lookup (r);
  return q && q->kind == TS_REQ_PSEND ? q : NULL;
}

int
MPI_Pready (int partition, MPI_Request req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Pready (partition, req);
  TsRecRequest *q = partitioned_send (req);
  ts_rec_enter (TS_R_PREADY);
  if (q)
    write_partition_event (TS_P_PREADY, q->id, partition);
  int rc = PMPI_Pready (partition, req);
  ts_rec_leave (TS_R_PREADY);
  return rc;
}

int
MPI_Pready_range (int low, int high, MPI_Request req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Pready_range (low, high, req);
  TsRecRequest *q = partitioned_send (req);
  ts_rec_enter (TS_R_PREADY_RANGE);
  for (int p = low; q && p <= high; p++)
    write_partition_event (TS_P_PREADY, q->id, p);
  int rc = PMPI_Pready_range (low, high, req);
  ts_rec_leave (TS_R_PREADY_RANGE);
  return rc;
}

int
MPI_Pready_list (int length, int partitions[], MPI_Request req)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Pready_list (length, partitions, req);
  TsRecRequest *q = partitioned_send (req);
  ts_rec_enter (TS_R_PREADY_LIST);
  for (int i = 0; q && i < length; i++)
    write_partition_event (TS_P_PREADY, q->id, partitions[i]);
  int rc = PMPI_Pready_list (length, partitions, req);
  ts_rec_leave (TS_R_PREADY_LIST);
  return rc;
}

/* At the end: MPI_PARRIVED if the partition has arrived, else MPI_PTESTED. */
int
MPI_Parrived (MPI_Request req, int partition, int *flag)
{
  TS_REC_NOTE_CALLER ();
  if (!ts_rec_recording_call ())
    return PMPI_Parrived (req, partition, flag);
  TsRecRequest *q = ts_rec_request_lookup (req);
  ts_rec_enter (TS_R_PARRIVED);
  int rc = PMPI_Parrived (req, partition, flag);
  if (rc == MPI_SUCCESS && q && q->kind == TS_REQ_PRECV)
    write_partition_event (*flag ? TS_P_PARRIVED : TS_P_PTESTED, q->id, partition);
  ts_rec_leave (TS_R_PARRIVED);
  return rc;
}

#endif /* MPI_VERSION >= 4 */

/* ---- definitions ---------------------------------------------------------- */

void
ts_rec_partitioned_write_definitions (OTF2_GlobalDefWriter *g, guint32 *s)
{
  int mine = ts_rec.uses_partitioned, any = 0;
  PMPI_Allreduce (&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!g || !any)
    return;
  for (guint e = 0; e < TS_P_N_EVENTS; e++)
    {
      OTF2_GlobalDefWriter_WriteString (g, *s, ts_partitioned_event_name (e));
      OTF2_GlobalDefWriter_WriteParameter (g, e, (*s)++, OTF2_PARAMETER_TYPE_UINT64);
    }
  for (guint a = 0; a < TS_PA_N_ATTRIBUTES; a++)
    {
      OTF2_GlobalDefWriter_WriteString (g, *s, ts_partitioned_attribute_name (a));
      OTF2_GlobalDefWriter_WriteAttribute (g, TS_REC_PARTITIONED_ATTRIBUTE (a), *s, *s,
                                           ts_partitioned_attribute_type (a));
      (*s)++;
    }
}
