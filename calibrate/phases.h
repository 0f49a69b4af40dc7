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
/* Every action of the rank in order: ENTERs of MPI calls end a burst,
 * phased COMPUTE actions add to their phase. @is_call: @a enters an MPI
 * call. */
void ts_phase_table_add (TsPhaseTable *t, const TsAction *a, gboolean is_call);
void ts_phase_table_merge (TsPhaseTable *into, const TsPhaseTable *from);
/* The phases, most compute first (ties: by call, then caller). */
GArray *ts_phase_table_sorted (const TsPhaseTable *t);

/* Sort an array of TsPhase as ts_phase_table_sorted does. */
void ts_phases_sort (GArray *phases);

G_END_DECLS

#endif
