/* What tracesim prints for a person, and small JSON helpers for summary.json. */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <glib.h>
#include <stdio.h>
#include "calibrate/calibration.h"
#include "model/trace.h"
#include "sim/replay.h"
#include "analysis/waitstates.h"

void ts_json_number (GString *j, const char *indent, const char *key, double v, gboolean comma);
void ts_json_array (GString *j, const char *indent, const char *key, const double *v, guint n,
                    gboolean comma);

void ts_report_run (FILE *out, const TsTrace *trace, const TsProfile *p,
                    const TsReplayResult *res, const char *output_dir, double wall);
void ts_report_info (FILE *out, const TsTrace *trace, const TsProfile *p);
/* Wait states per pattern: totals and per rank; with @predicted, side by side. */
void ts_report_wait_states (FILE *out, const TsTrace *trace, const TsWaitStates *original,
                            const TsWaitStates *predicted);
/* Append waitstates.csv rows (phase,pattern,region,rank,seconds) of @w. */
void ts_wait_states_csv (GString *csv, const char *phase, const TsTrace *trace,
                         const TsWaitStates *w);

#endif
