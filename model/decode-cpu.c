#include <config.h>

/* Compute from CPU time (TS_COMPUTE_CPU): readings of the trace's CPU time
 * metric, written at the time of the ENTER or LEAVE they precede (as
 * tracesim-record does), give the burst between two of them its CPU time
 * instead of its wall time. */
#include "model/decode-private.h"
#include "model/trace-private.h"

static double
value_of (OTF2_Type type, OTF2_MetricValue v)
{
  switch (type)
    {
    case OTF2_TYPE_INT64:
      return (double) v.signed_int;
    case OTF2_TYPE_DOUBLE:
      return v.floating_point;
    default:
      return (double) v.unsigned_int;
    }
}

gboolean
ts_decode_cpu_reading (const TsTrace *tr, OTF2_MetricRef metric, uint8_t n,
                       const OTF2_Type *types, const OTF2_MetricValue *values, double *cpu)
{
  /* Read only when asked for: otherwise a metric changes nothing. */
  if (tr->compute_clock != TS_COMPUTE_CPU || metric != tr->cpu_metric || n <= tr->cpu_member)
    return FALSE;
  *cpu = value_of (types[tr->cpu_member], values[tr->cpu_member]) * tr->cpu_seconds_per_unit;
  return TRUE;
}

OTF2_CallbackCode
ts_decode_on_metric (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                     OTF2_AttributeList *attrs, OTF2_MetricRef metric, uint8_t n,
                     const OTF2_Type *types, const OTF2_MetricValue *values)
{
  TsRankDecoder *s = ud;
  double cpu;
  if (!ts_decode_cpu_reading (s->source->trace, metric, n, types, values, &cpu))
    return OTF2_CALLBACK_SUCCESS;
  double now;
  ts_decode_of (ud, loc, pos, t, &now);
  ts_decode_account_gap (s, now);
  guint64 last = s->base + s->pending->len - 1;
  /* The burst just made spans from the last reading to this one. */
  if (s->cpu_known && s->pending->len > 0 && s->burst_seq == last && s->burst_end == now
      && s->burst_start == s->cpu_time && last >= s->base)
    {
      TsAction *a = &g_array_index (s->pending, TsAction, last - s->base);
      a->seconds = MAX (0, cpu - s->cpu_value);
    }
  s->cpu_known = TRUE;
  s->cpu_value = cpu;
  s->cpu_time = now;
  return OTF2_CALLBACK_SUCCESS;
}
