/* A whole replay on the pure-C event queue (sim/engine-queue.h) instead of
 * SimGrid: the same decisions (the maestro engine, engine-maestro.c) and
 * the same result, in a model whose times a test derives by hand; any
 * number of replays per process. */
#ifndef TS_REPLAY_QUEUE_H
#define TS_REPLAY_QUEUE_H

#include "sim/replay.h"
#include "sim/engine-queue.h"

/* As ts_replay() of one replay, with no SimGrid call: no platform (the
 * options' platform, hostfile and placement are not read), ranks placed in
 * order on @world's hosts, filling each (its cores, or
 * @o->ranks_per_node) before the next; a rank computes at its host's speed,
 * on a core of its own where the host has a core per rank (unless
 * @o->exact_cpu). No revision of choices after a deadlock: it is reported.
 * Fills @result (ts_replay_result_clear) or fails with @error. */
gboolean ts_replay_on_queue (const TsTrace *trace, const TsCalibration *calibration,
                             const TsReplayOptions *o, const TsQueueWorld *world,
                             TsReplayResult *result, GError **error);

#endif
