/* The phases of a trace: its compute bursts between MPI calls, named by the
 * call that ends each and the function that made that call
 * (ts_action_phase), with the compute each holds. The first pass counts
 * them; `tracesim advise` ranks them in traces without user regions, and
 * hypotheses select them with [phase:PATTERN]. */
#ifndef TS_PHASES_H
#define TS_PHASES_H

#include <glib.h>
#include "model/action.h"

G_BEGIN_DECLS

typedef struct {
  guint32 call;       /* the MPI call region ending the bursts */
  guint32 caller;     /* the function that made it, TS_NO_REGION: unknown */
  double compute;     /* seconds of compute, summed over ranks */
  guint64 bursts;     /* occurrences: bursts an MPI call ended, over ranks */
  guint64 ranks;      /* ranks that have it (counted once each) */
} TsPhase;

/* Phases as a first pass adds them up: per worker, merged at the end. */
typedef struct TsPhaseTable TsPhaseTable;

TsPhaseTable *ts_phase_table_new (void);
void ts_phase_table_free (TsPhaseTable *t);
/* The rank whose actions follow, one rank at a time. */
void ts_phase_table_begin_rank (TsPhaseTable *t);
/* The rank enters an MPI call: the burst before it has ended. */
void ts_phase_table_end_burst (TsPhaseTable *t);
/* A COMPUTE action of the rank: a phased one adds to its phase. */
void ts_phase_table_add (TsPhaseTable *t, const TsAction *a);
void ts_phase_table_merge (TsPhaseTable *into, const TsPhaseTable *from);
/* The phases, most compute first (ties: by call, then caller). */
GArray *ts_phase_table_sorted (const TsPhaseTable *t);

G_END_DECLS

#endif
