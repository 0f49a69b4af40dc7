/* What tracesim prints for a person. */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <glib.h>
#include <stdio.h>
#include "analysis/waitstates.h"
#include "calibrate/calibration.h"
#include "model/threads.h"
#include "model/trace.h"
#include "output/result.h"
#include "pipeline/run.h"

/* A run: runtimes, the regions that changed most, what was written, the
 * wait states of both executions. */
void ts_report_run (FILE *out, const TsRunResult *result);
/* What the first pass learns of a trace, and @threads of its threads;
 * @replayed: the identity replay's report follows (else the matching line
 * says how to get it). */
void ts_report_info (FILE *out, const TsTrace *trace, const TsCalibration *calibration,
                     const TsThreadScan *threads, gboolean replayed);
/* The identity replay of `tracesim info`: its runtime against the trace's,
 * the choices it made where the trace does not tell, and which of them a
 * deadlock made it revise; or why it failed (@failure, @result NULL). */
void ts_report_info_replay (FILE *out, const TsTrace *trace, const TsRunResult *result,
                            const GError *failure);
/* Wait states of one execution per pattern: totals, and per rank up to 16 ranks. */
void ts_report_wait_states (FILE *out, const TsTrace *trace, const TsWaitStates *original);

#endif
