/* A sweep over rank counts: [sweep] extrapolate = A, B, C and a parameter
 * ranks. Each rank count's trace is extrapolated once from the inputs
 * (tracesim extrapolate), into OUT/inputs/extrapolated/np<P>/ (traces.otf2,
 * model.txt, model.json), and again only when the inputs change: its key,
 * np<P>.key beside it, holds the inputs' states (sizes and modification
 * times), P, the boundaries and tracesim's version. The tasks of a Slurm
 * array take turns on a lock (np<P>.lock), so that one extrapolates and the
 * others read. */
#ifndef TS_SWEEP_RANKS_H
#define TS_SWEEP_RANKS_H

#include <glib.h>
#include "pipeline/sweep.h"

G_BEGIN_DECLS

/* Where the trace at @ranks of the sweep writing to @out is (owned by the
 * caller). */
char *ts_sweep_ranks_trace (const char *out, guint ranks);

/* What the trace at @ranks is made of (a SHA-256 of the inputs' states,
 * @ranks, the boundaries, tracesim's version): a point's key includes it,
 * so that inputs recorded again make every point again, also where the
 * trace at its rank count was not extrapolated again yet (--collect). */
char *ts_sweep_ranks_key (const TsSweep *sweep, guint ranks);

/* Make the trace at @ranks, unless it is there and of the current inputs.
 * FALSE and @error when the extrapolation refuses or fails: the points at
 * that rank count fail with it. @note, if not NULL, gets what was done. */
gboolean ts_sweep_ranks_prepare (const TsSweep *sweep, const char *out, guint ranks,
                                 char **note, GError **error);

G_END_DECLS

#endif
