/* A compute burst's phase by name (model/trace.h, ts_trace_phase_name). */
#include <config.h>

#include "model/trace.h"
#include "model/action.h"

char *
ts_trace_phase_name (const TsTrace *t, guint32 call, guint32 caller)
{
  if (call == TS_NO_REGION)
    return g_strdup ("(end)");
  if (caller == TS_NO_REGION)
    return g_strdup (ts_trace_region_name (t, call));
  return g_strconcat (ts_trace_region_name (t, call), "@", ts_trace_region_name (t, caller), NULL);
}
