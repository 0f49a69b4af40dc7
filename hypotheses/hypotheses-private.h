/* What hypotheses.c (binding, preparing, applying) and parse.c (reading
 * files) share; private to hypotheses/. */
#ifndef TS_HYPOTHESES_PRIVATE_H
#define TS_HYPOTHESES_PRIVATE_H

#include "hypotheses/hypotheses.h"
#include "hypotheses/rule.h"
#include "model/spool.h"

struct TsHypotheses {
  GPtrArray *rules;          /* TsRule*, in file order, files in load order */
  double bandwidth, latency, speed;
  const char *residual;      /* [residual] mode (a static string), or NULL; the last file's */
  const char *mpi_progress;  /* [mpi] progress, the same way */
  /* After bind: per region, the rules matching it, in rule order (CSR:
   * region r's are by_region[region_start[r] .. region_start[r+1]-1]), so
   * that an action costs what the rules on its region cost, not all rules. */
  guint *region_start;
  guint *by_region;
  GArray *inclusive;         /* guint: the rules with inclusive = true */
  /* After bind, when a rule selects phases: the calibration's phase of a
   * (call, caller) pair, as a guint64 call << 32 | caller -> index + 1. */
  GHashTable *phase_index;
  GArray *phase_rules;       /* guint: the rules of [phase:...] sections, ascending */
  const TsTrace *trace;      /* bound to */
  const TsCalibration *calibration; /* bound with (NULL: no phases, no compute checks) */
};

/* The calibration's phase of a compute burst (an index of
 * ts_calibration_phase), or -1 (none, or no rule selects phases). */
gint ts_hypotheses_phase_of (const TsHypotheses *h, const TsAction *a);

/* Preparing (prepare.c) measures with the rewriting state of hypotheses.c. */

/* One phase of a rank's team as a thread with MPI of its own saw it in its
 * stream: the rank's @team-th team the thread was in (from 1), its @phase-th
 * phase (from 1), and the thread's selected compute in it. */
typedef struct {
  guint64 team;
  guint phase;
  double work;
} TsStreamPhase;

/* Rule @i of @hr is measured, not applied: a per-occurrence rule's
 * occurrences go to @log (@hr's stream's records; an across_threads rule
 * on a rank: also its threads' added with ts_hypothesis_rank_add_thread);
 * on a thread with MPI of its own, an across_threads rule's phases go to
 * @phases (TsStreamPhase; the caller's) instead. */
void ts_hypothesis_rank_measure (TsHypothesisRank *hr, guint i, TsSpool *log, GArray *phases);
/* Measuring across_threads rule @i on a rank: thread @thread of it, which
 * replays stream @stream, had @phases (measured before; the caller keeps
 * them until ts_hypothesis_rank_free). */
void ts_hypothesis_rank_add_thread (TsHypothesisRank *hr, guint i, guint thread, guint stream,
                                    const GArray *phases);
/* The end of the stream: the measured rules log what is still open. */
void ts_hypothesis_rank_end (TsHypothesisRank *hr);

/* The section name of a rule, for messages: "region" or "phase". */
#define TS_RULE_SECTION(rule) ((rule)->phase ? "phase" : "region")

/* Machine factors, each file's and composed over all files, stay within
 * these bounds: beyond them SimGrid's models divide by zero or overflow. */
#define TS_HYPOTHESES_MIN_FACTOR 1e-6
#define TS_HYPOTHESES_MAX_FACTOR 1e6
#define TS_HYPOTHESES_MIN_COMPOSED 1e-9
#define TS_HYPOTHESES_MAX_COMPOSED 1e9

#endif
