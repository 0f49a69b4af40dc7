#include <config.h>

#define G_LOG_DOMAIN "ts-stream"

/* The partitioned-communication records of a rank's stream: OTF2
 * ParameterUnsignedInt records in tracesim's encoding (doc/event-model.md)
 * become pinit / pstart / pready / parrived / ptested / pcomplete actions. */
#include "model/decode-private.h"
#include "model/partitioned.h"


typedef struct {
  gboolean send;
  guint32 partitions;
} PartitionedRequest;

static gboolean
attr_u32 (TsRankDecoder *s, OTF2_AttributeList *attrs, TsPartitionedAttribute which,
          guint32 *out)
{
  OTF2_AttributeRef ref = s->source->trace->partitioned_attribute[which];
  return attrs && ref != OTF2_UNDEFINED_ATTRIBUTE
         && OTF2_AttributeList_GetUint32 (attrs, ref, out) == OTF2_SUCCESS;
}

OTF2_CallbackCode
ts_stream_on_parameter_uint (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                   OTF2_AttributeList *attrs, OTF2_ParameterRef param, uint64_t value)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  const TsTrace *tr = s->source->trace;
  guint e1 = GPOINTER_TO_UINT (g_hash_table_lookup (tr->partitioned_of_param,
                                                    GUINT_TO_POINTER (param + 1)));
  if (e1 == 0)
    return OTF2_CALLBACK_SUCCESS; /* some other parameter */
  TsPartitionedEvent e = e1 - 1;
  guint64 req = value;
  const char *name = ts_partitioned_event_name (e);
  PartitionedRequest *pr = s->partitioned ? g_hash_table_lookup (s->partitioned, &req) : NULL;

  if (e == TS_P_PSEND_INIT || e == TS_P_PRECV_INIT)
    {
      guint32 peer, tag, partitions;
      guint64 bytes;
      OTF2_CommRef cref;
      OTF2_AttributeRef bref = tr->partitioned_attribute[TS_PA_BYTES];
      OTF2_AttributeRef cattr = tr->partitioned_attribute[TS_PA_COMM];
      if (!attr_u32 (s, attrs, TS_PA_PEER, &peer) || !attr_u32 (s, attrs, TS_PA_TAG, &tag)
          || !attr_u32 (s, attrs, TS_PA_PARTITIONS, &partitions) || bref == OTF2_UNDEFINED_ATTRIBUTE
          || cattr == OTF2_UNDEFINED_ATTRIBUTE
          || OTF2_AttributeList_GetUint64 (attrs, bref, &bytes) != OTF2_SUCCESS
          || OTF2_AttributeList_GetCommRef (attrs, cattr, &cref) != OTF2_SUCCESS)
        return ts_decode_fail (s, "%s of request %" G_GUINT64_FORMAT " lacks MPI_PEER, MPI_COMM, MPI_TAG, "
                     "MPI_BYTES or MPI_PARTITIONS", name, req);
      gint comm = ts_decode_comm_index (s, cref);
      if (comm < 0)
        return OTF2_CALLBACK_INTERRUPT;
      if (!ts_decode_peer_valid (s, comm, peer) || partitions == 0)
        return ts_decode_fail (s, "%s of request %" G_GUINT64_FORMAT ": peer %u or %u partitions is not "
                     "valid on communicator %s", name, req, peer, partitions,
                     ts_trace_comm_name (tr, comm));
      PartitionedRequest *n = g_new (PartitionedRequest, 1);
      *n = (PartitionedRequest) { e == TS_P_PSEND_INIT, partitions };
      if (!s->partitioned)
        s->partitioned = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      g_hash_table_replace (s->partitioned, g_memdup2 (&req, sizeof req), n);
      TsAction *a = ts_decode_call_action (s, TS_ACTION_PINIT);
      a->direction = e == TS_P_PSEND_INIT ? TS_PARTITIONED_SEND : TS_PARTITIONED_RECV;
      a->peer = peer;
      a->comm = comm;
      a->tag = (gint32) tag;
      a->bytes = bytes;
      a->partitions = partitions;
      a->req = req;
      return OTF2_CALLBACK_SUCCESS;
    }
  if (!pr)
    return ts_decode_fail (s, "%s for request %" G_GUINT64_FORMAT ", which no MPI_PSEND_INIT or "
                 "MPI_PRECV_INIT of this rank created", name, req);
  gboolean want_send = e == TS_P_PREADY || e == TS_P_PSEND_REQUEST || e == TS_P_PSEND_COMPLETE;
  gboolean want_recv = e == TS_P_PARRIVED || e == TS_P_PTESTED || e == TS_P_PRECV_REQUEST
                       || e == TS_P_PRECV_COMPLETE;
  if ((want_send && !pr->send) || (want_recv && pr->send))
    return ts_decode_fail (s, "%s for request %" G_GUINT64_FORMAT ", which is a partitioned %s", name,
                 req, pr->send ? "send" : "receive");
  TsActionKind kind = e == TS_P_PREADY ? TS_ACTION_PREADY
                      : e == TS_P_PARRIVED ? TS_ACTION_PARRIVED
                      : e == TS_P_PTESTED ? TS_ACTION_PTESTED
                      : e == TS_P_PSEND_REQUEST || e == TS_P_PRECV_REQUEST ? TS_ACTION_PSTART
                      : TS_ACTION_PCOMPLETE;
  guint32 partition = 0;
  if (kind == TS_ACTION_PREADY || kind == TS_ACTION_PARRIVED || kind == TS_ACTION_PTESTED)
    {
      if (!attr_u32 (s, attrs, TS_PA_PARTITION, &partition))
        return ts_decode_fail (s, "%s of request %" G_GUINT64_FORMAT " lacks MPI_PARTITION", name, req);
      if (partition >= pr->partitions)
        return ts_decode_fail (s, "%s for partition %u of request %" G_GUINT64_FORMAT ", which has %u "
                     "partitions (0..%u)", name, partition, req, pr->partitions,
                     pr->partitions - 1);
    }
  TsAction *a = ts_decode_call_action (s, kind);
  a->req = req;
  a->partition = (gint32) partition;
  if (kind == TS_ACTION_PARRIVED || kind == TS_ACTION_PTESTED)
    a->time = now; /* at the end of MPI_Parrived */
  return OTF2_CALLBACK_SUCCESS;
}

