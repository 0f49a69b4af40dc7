/* The wait states of both executions of a run, analysed beside the replay.
 *
 * On a machine with a core to spare they cost the run almost no wall time:
 * the original execution's are analysed on a thread of their own while the
 * replay simulates; the predicted execution's on another thread that reads
 * the events the replay logs as they come, so that little is left to do
 * when the simulation ends. Either falls back to running after the replay
 * where its thread cannot run (a revision's worker process starts none);
 * the original execution's also runs after it beyond 21,845 ranks, so
 * that its state does not add to the replay's peak memory.
 * The results are those of the analysis run after the replay, bit for bit:
 * the same module reads the same events in the same order. */
#ifndef TS_RUN_WAITS_H
#define TS_RUN_WAITS_H

#include "analysis/waitstates.h"
#include "calibrate/calibration.h"
#include "model/trace.h"
#include "sim/replay.h"

G_BEGIN_DECLS

typedef struct TsRunWaits TsRunWaits;

/* For a replay of @trace: the predicted execution's wait states (as OTF2
 * metrics of the predicted archive, and as regions too if @regions), and
 * the original execution's if @original (not cached elsewhere). */
TsRunWaits *ts_run_waits_new (const TsTrace *trace, const TsCalibration *calibration,
                              gboolean original, gboolean regions);
/* Waits for what still runs. */
void ts_run_waits_free (TsRunWaits *rw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsRunWaits, ts_run_waits_free)

/* Hook the analyses to @replay's options (beside, before_close). */
void ts_run_waits_attach (TsRunWaits *rw, TsReplayOptions *replay);
/* The replay was revised in another process, which wrote the predicted
 * archive at @anchor and its metrics: the predicted wait states are read
 * back from it. */
gboolean ts_run_waits_read_predicted (TsRunWaits *rw, const char *anchor, GError **error);

/* After the replay: the original execution's wait states (waiting for
 * their thread, or analysed now if it did not run); NULL and @error. */
const TsWaitStates *ts_run_waits_original (TsRunWaits *rw, GError **error);
/* The predicted execution's, once the replay succeeded; and the trace
 * whose regions they name. */
const TsWaitStates *ts_run_waits_predicted (const TsRunWaits *rw);
const TsTrace *ts_run_waits_predicted_trace (const TsRunWaits *rw);

G_END_DECLS

#endif
