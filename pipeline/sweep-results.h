/* A sweep's table (pipeline/sweep-run.h): results.csv and results.json,
 * one row per point, from each point's summary.json.
 *
 * Columns: the parameters, predicted_runtime_s, speedup and error (empty
 * where the point succeeded), then the predicted wait states per pattern
 * (<pattern>_s: late_sender_s, wait_nxn_s..., seconds over all ranks) and the predicted inclusive
 * time of the trace's top regions (region:<name>_s: the 5 regions with the
 * most original time, all ranks). results.json holds the same per point. */
#ifndef TS_SWEEP_RESULTS_H
#define TS_SWEEP_RESULTS_H

#include <glib.h>
#include "pipeline/sweep.h"

G_BEGIN_DECLS

typedef struct {
  guint point;
  const char *dir;         /* its run output */
  const char *key;         /* its inputs' key: current when the key file says so */
  const char *key_path, *error_path;
  gboolean unusable;       /* never ran: its error file says why */
} TsSweepRow;

/* The words results.csv's header line ends with (its mark: a results.csv
 * holding them may be replaced). */
#define TS_SWEEP_RESULTS_COLUMNS "predicted_runtime_s,speedup,error"

gboolean ts_sweep_results_write (const TsSweep *sweep, const char *out, GPtrArray *rows,
                                 GError **error);
/* OUT/plot-PARAM.svg and .png for every parameter of two values or more:
 * the predicted runtime (@runtime per point, NAN where it failed) against
 * that parameter, one line per combination of the others' values. */
gboolean ts_sweep_plots_write (const TsSweep *sweep, const char *out, const double *runtime,
                               GError **error);

G_END_DECLS

#endif
