/* `tracesim info --json`: what the first pass learns of a trace, as one
 * JSON object for scripts (the same facts `tracesim info` prints). */
#ifndef TS_INFO_H
#define TS_INFO_H

#include <json-glib/json-glib.h>
#include "calibrate/calibration.h"
#include "model/trace.h"

G_BEGIN_DECLS

/* Caller frees with json_node_unref(). */
JsonNode *ts_info_to_json (const TsTrace *trace, const TsCalibration *calibration);

G_END_DECLS

#endif
