/* `tracesim info --json`: what the first pass learns of a trace, as one
 * JSON object for scripts (the same facts `tracesim info` prints). */
#ifndef TS_INFO_H
#define TS_INFO_H

#include <json-glib/json-glib.h>
#include "calibrate/calibration.h"
#include "model/threads.h"
#include "model/trace.h"
#include "output/result.h"

G_BEGIN_DECLS

/* @threads: what the ranks' other threads hold (ts_thread_scan). Caller
 * frees with json_node_unref(). */
JsonNode *ts_info_to_json (const TsTrace *trace, const TsCalibration *calibration,
                           const TsThreadScan *threads);
/* Add the identity replay's outcome to @root (an object from
 * ts_info_to_json) as "replay": runtimes, eager threshold and its
 * "matching" as summary.json has it (guesses, revisions); or
 * {"error": ...} when it failed (@result NULL). */
void ts_info_add_replay (JsonNode *root, const TsRunResult *result, const GError *failure);

G_END_DECLS

#endif
