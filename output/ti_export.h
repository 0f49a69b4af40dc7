/* Export of action streams to SimGrid's time-independent (TI) trace format,
 * the input of SimGrid's own `smpireplaymain` (smpirun -replay).
 *
 * One file per rank, one action per line ("<rank> <action> <args>"); sizes are
 * in bytes (the traces start with a bare "init", which selects MPI_BYTE) and
 * CPU time in flops at a given host speed. The format has no communicators and
 * no region markers, so:
 * - point-to-point peers become MPI_COMM_WORLD ranks;
 * - collectives on a sub-communicator can only be written as MPI_COMM_WORLD
 *   collectives (SimGrid's replay has no other communicator); they are counted
 *   in TsTiStats so the caller can warn that the export is not faithful;
 * - the CPU cost tracesim charges an MPI call is written as a compute before
 *   it, so both replays simulate the same work;
 * - consecutive compute bursts are merged into one "compute" line, and the
 *   waits of one MPI_Waitall covering every outstanding request become one
 *   "waitall". */
#ifndef TS_TI_EXPORT_H
#define TS_TI_EXPORT_H

#include <stdio.h>
#include <glib.h>
#include "model/stream.h"

G_BEGIN_DECLS

typedef struct {
  guint64 actions_read;          /* tracesim actions consumed */
  guint64 lines_written;         /* TI actions written */
  guint64 subcomm_collectives;   /* collectives forced onto MPI_COMM_WORLD */
  guint ranks;                   /* files written, one per rank */
  guint64 skipped;               /* actions with no TI equivalent (missing receives, tests of unknown requests) */
} TsTiStats;

/* Convert all the actions of @rank into TI lines on @out. @host_speed is
 * the flop rate used to turn seconds into flops. Adds to @stats. Returns FALSE
 * and sets @error on a read or write error. */
gboolean ts_ti_export_rank (const TsTrace *trace, TsActionStream *stream, guint rank,
                            double host_speed, FILE *out, TsTiStats *stats, GError **error);

/* The whole of trace @trace_path, calibrated as `run` would replay it, into
 * @output_dir (replaced only if it holds an earlier export): traces.txt,
 * the list smpirun -replay takes, naming ranks/rank-N.txt relative to it.
 * Nothing is left behind on failure. */
gboolean ts_ti_export_trace (const char *trace_path, const char *output_dir, double host_speed,
                             TsTiStats *stats, GError **error);

G_END_DECLS

#endif
