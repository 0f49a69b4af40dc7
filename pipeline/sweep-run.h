/* Running a sweep's points (pipeline/sweep.h) and gathering their table.
 *
 * The trace's first pass and original wait states are computed once and
 * kept in OUT/inputs/first-pass.cache for the runs to come; each
 * point then replays in a process of its own (SimGrid runs once a process),
 * forked from the one that holds them, up to @jobs at a time. Each point
 * writes OUT/points/NAME/ (a `tracesim run` output, renamed into place
 * when complete; NAME from its values, ts_sweep_point_name) and, beside
 * it, NAME.key (what its inputs were) or NAME.error (why it failed). A
 * point whose key is unchanged is not run again; a failed point does not
 * stop the others. OUT/results.csv has one
 * row per point: its parameters, predicted_runtime_s, speedup and error. */
#ifndef TS_SWEEP_RUN_H
#define TS_SWEEP_RUN_H

#include <glib.h>
#include "pipeline/sweep.h"

G_BEGIN_DECLS

typedef struct {
  guint jobs;          /* points at once; 0: the number of cores */
  gboolean progress;   /* a progress line on stderr (a terminal) */
  gboolean log;        /* a line per finished point on stderr otherwise */
  /* Run this point only, and write no table (a Slurm array task: many run
   * at once); G_MAXUINT: every point. */
  guint point;
  gboolean collect;    /* run nothing: the table of the points done */
  /* The trace's first pass (with its original wait states) when the caller
   * made it already (tracesim advise); NULL: from OUT/inputs/first-pass.cache. */
  const TsRunShared *shared;
  /* Run nothing, write nothing: only find which points are done (@out_dir
   * may not exist, or be NULL), in TsSweepTally.states. */
  gboolean dry_run;
} TsSweepRunOptions;

/* A point as found before any runs. */
typedef enum {
  TS_SWEEP_TO_RUN,     /* not done (with --collect: missing) */
  TS_SWEEP_DONE,       /* done before, with the same inputs: reused */
  TS_SWEEP_FAILED      /* its inputs cannot be made; with --collect: its task failed */
} TsSweepState;

typedef struct {
  guint points, ran, reused, failed;
  /* With --collect: the points neither done nor failed (no task ran them
   * to the end, or none was submitted). */
  guint missing;
  /* Points of the layout before points had names (pNNNN): carried over to
   * their names (their inputs unchanged), and removed (out of date). */
  guint carried, dropped;
  /* Where the first pass came from (OUT/inputs/first-pass.cache, or made
   * and kept there), or NULL when no point ran or the caller gave it
   * (TsSweepRunOptions.shared); the caller frees it. */
  char *first_pass;
  /* Each point's state before the run (ts_sweep_n_points of them); the
   * caller frees it with g_free. */
  TsSweepState *states;
} TsSweepTally;

/* Make @out_dir a sweep's output directory, with points/ and inputs/: it
 * must not exist, be empty or be a sweep's already (marked so); anything
 * else is refused, to delete nothing of the user's. For callers that write
 * a sweep's inputs into it (OUT/inputs/) before running it. */
gboolean ts_sweep_prepare_output (const char *out_dir, GError **error);

/* Run the points of @sweep missing from @out_dir and write its results.csv.
 * FALSE and @error when the sweep cannot start (or its table cannot be
 * written; then @tally holds nothing to free); points that fail are
 * counted in @tally, not errors. On TRUE, the caller clears @tally with
 * ts_sweep_tally_clear. */
gboolean ts_sweep_run (const TsSweep *sweep, const char *out_dir, const TsSweepRunOptions *o,
                       TsSweepTally *tally, GError **error);

/* Free what @tally holds (not @tally itself). */
void ts_sweep_tally_clear (TsSweepTally *tally);

G_END_DECLS

#endif
