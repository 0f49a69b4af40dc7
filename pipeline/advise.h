/* `tracesim advise`: which regions to optimise first, answered from one
 * trace (doc/advise.md).
 *
 * It is a sweep like any other (pipeline/sweep.h), generated from the
 * trace: the regions with the most exclusive compute (MPI calls excluded)
 * each made faster by a factor on every rank, and each perfectly balanced
 * (`balance = mean`: every rank takes the mean of each occurrence), and
 * in a trace with threads each balanced across each rank's threads, the
 * network made faster by the same factor, and a baseline point with no
 * change that the others are compared with. Its inputs go to
 * OUT/inputs/advise/ (advise.sweep and one hypothesis file per point);
 * running it is ts_sweep_run(), with the same first-pass cache, pool,
 * resume and results.csv (columns region, change, predicted_runtime_s,
 * saving_s among them). */
#ifndef TS_ADVISE_H
#define TS_ADVISE_H

#include <glib.h>
#include "pipeline/run.h"
#include "pipeline/sweep.h"
#include "pipeline/sweep-run.h"

G_BEGIN_DECLS

/* The change values of the table. */
#define TS_ADVISE_FASTER "faster"
#define TS_ADVISE_BALANCED "balanced"
#define TS_ADVISE_THREADS_BALANCED "threads-balanced" /* traces with threads */
#define TS_ADVISE_NONE "none"
#define TS_ADVISE_IDEAL "ideal"
/* The region column of the network's row and of the baseline. */
#define TS_ADVISE_NETWORK "(network)"
#define TS_ADVISE_BASELINE "(as traced)"
/* A phase's rows: the prefix, then the phase's name (ts_trace_phase_name). */
#define TS_ADVISE_PHASE_PREFIX "phase:"

typedef struct {
  const char *trace;
  const char *output_dir;
  double factor;        /* compute time x factor: 0.5 is "2x faster"; in (0, 1) */
  guint top;            /* regions with the most exclusive compute, >= 1 */
  TsCpuTime cpu_time;   /* compute from the trace's CPU time (run --cpu-time) */
} TsAdviseOptions;

/* A factor and a top within bounds; FALSE and @error otherwise. */
gboolean ts_advise_check_options (const TsAdviseOptions *o, GError **error);

/* Choose the regions from @shared's first pass of the trace and write the
 * sweep into @o->output_dir (made a sweep's directory first). Returns the
 * sweep file's path (caller frees), or NULL and @error: a bad factor or top,
 * or a trace without compute in any region of its own. */
char *ts_advise_write_sweep (const TsAdviseOptions *o, const TsRunShared *shared, GError **error);

/* One point of a run advise sweep. */
typedef struct {
  guint point;             /* in the sweep */
  char *region, *change;
  double runtime;          /* predicted; NAN where the point failed */
  double saving;           /* baseline's runtime - runtime; NAN where unknown */
  /* The wait-state pattern that grew most against the baseline (NULL: none
   * grew) and by how much (seconds, all ranks): where a speed-up went. */
  const char *grew;
  double grew_s;
  char *error;             /* why the point failed, or NULL */
} TsAdvice;

void ts_advice_free (TsAdvice *advice);

/* The points of @sweep run into @out, the baseline first and the others
 * ranked by saving (largest first; failed points last). TsAdvice elements;
 * their grew fields are set where the points found wait states. */
GPtrArray *ts_advise_read (const TsSweep *sweep, const char *out, GError **error);

/* What making @row's compute ("REGION" or "phase:NAME") take @factor of
 * its time removes from an average rank: its compute over all ranks x
 * (1 - factor) / ranks. */
double ts_advise_removed_per_rank (const TsRunShared *shared, const char *row, double factor);
/* TRUE when @a made a region faster and saved less than half of what that
 * removes per rank: the time it freed went somewhere. */
gboolean ts_advise_falls_short (const TsAdvice *a, const TsRunShared *shared, double factor);

/* Where the time went for the rows of @rows (ts_advise_read of the run
 * advise sweep) that fall short: those points and the baseline run again
 * with their wait states, as the sweep OUT/inputs/advise/explain.sweep into
 * OUT/explain/, and each such row's grew is the pattern that grew most.
 * Only these few points pay for wait states, not the whole sweep. */
gboolean ts_advise_explain (const TsAdviseOptions *o, const TsRunShared *shared, GPtrArray *rows,
                            const TsSweepRunOptions *run, GError **error);

/* The time of an average rank no change of advise touches: its MPI_Init
 * (or _thread) and MPI_Finalize, replayed as the time they took, and its
 * start after the earliest rank's (NPB CG: MPI_Init holds 1.09 s of its
 * 1.37 s). Seconds, mean over ranks, as traced. */
double ts_advise_outside (const TsRunShared *shared);
/* The sentence saying it, for the CLI and the page ("MPI_Init, MPI_Finalize
 * and the ranks' start: 1.09 s of the 1.37 s as traced (80%, mean over
 * ranks), which no change below shortens"); NULL where that time is 0 (a
 * trace without them). Caller frees. */
char *ts_advise_outside_sentence (const TsRunShared *shared);

/* Why @a saved less than it removed ("saves 34% of the 120 ms it removes
 * per rank: the ranks wait instead (late_receiver +50 ms, all ranks)"), or
 * NULL where it did not fall short or no pattern grew. Caller frees. */
char *ts_advice_explanation (const TsAdvice *a, const TsRunShared *shared, double factor);

/* OUT/advise.json, what the advise page shows (output/html-sweep.c): the
 * runtime as traced, the time outside any change and its sentence, and
 * @rows ranked as the CLI prints them, each with its explanation. */
gboolean ts_advise_write_json (const TsAdviseOptions *o, const TsRunShared *shared,
                               const GPtrArray *rows, GError **error);

G_END_DECLS

#endif
