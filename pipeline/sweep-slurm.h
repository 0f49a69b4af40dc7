/* A sweep as a Slurm job array (`tracesim sweep FILE -o DIR --slurm`). */
#ifndef TS_SWEEP_SLURM_H
#define TS_SWEEP_SLURM_H

#include <glib.h>
#include "pipeline/sweep.h"

G_BEGIN_DECLS

typedef struct {
  /* The sweep file and the sweep's directory as the user gave them, and
   * the directory they are relative to (each task starts there): a point's
   * key holds its trace's path as the sweep file resolves it. */
  const char *sweep_path;
  const char *out;
  const char *cwd;
  const char *tracesim;    /* the program the tasks run */
  guint max_parallel;      /* tasks at once (%M of --array); 0: no limit */
  double task_seconds;     /* what one task took here (first pass and a point) */
  guint64 task_bytes;      /* and its peak memory */
} TsSweepSlurm;

/* Write OUT/sweep.sbatch: #SBATCH --array=0-(N-1)[%M], --time three times
 * the measured task (at least a minute), --mem twice its memory (at least
 * 256 MiB), output per task in OUT/slurm/, and each task running
 * `tracesim sweep FILE -o OUT --point $SLURM_ARRAY_TASK_ID` from @cwd; the table is
 * gathered afterwards with --collect. Returns its path (caller frees). */
char *ts_sweep_write_sbatch (const TsSweep *sweep, const TsSweepSlurm *slurm, GError **error);

G_END_DECLS

#endif
