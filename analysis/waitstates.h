/* Wait states of an execution (Scalasca's patterns, doc/waitstates.md).
 *
 * The analysis reads every rank's actions at once in global time order (a
 * merge over the ranks' action streams) and matches messages per channel (source,
 * destination, communicator, tag) and collectives per communicator instance,
 * so it holds only what is in flight: unmatched messages and collectives not
 * yet entered by every member. It runs on any trace tracesim reads, including
 * its own predicted archive, so the original and the predicted execution are
 * analysed by the same code. */
#ifndef TS_WAITSTATES_H
#define TS_WAITSTATES_H

#include <gio/gio.h>
#include <glib.h>
#include "calibrate/calibration.h"
#include "model/stream.h"
#include "model/trace.h"

G_BEGIN_DECLS

typedef enum {
  TS_WAIT_LATE_SENDER,
  TS_WAIT_LATE_RECEIVER,
  TS_WAIT_NXN,
  TS_WAIT_BARRIER,
  TS_WAIT_LATE_BROADCAST,
  TS_WAIT_EARLY_REDUCE,
  TS_WAIT_PARTITIONED_LATE_SENDER,
  TS_WAIT_LATE_SENDER_WRONG_ORDER, /* the part of Late Sender a message sent earlier caused */
  TS_WAIT_NXN_COMPLETION,
  TS_WAIT_BARRIER_COMPLETION,
  TS_WAIT_EARLY_SCAN,
  TS_WAIT_INIT_COMPLETION,
  TS_WAIT_FINALIZE_WAIT,
  TS_WAIT_OMP_BARRIER,       /* a rank's threads at their OpenMP team's barriers */
  TS_WAIT_OMP_IDLE_THREADS,  /* a rank's other threads while it runs outside teams */
  TS_WAIT_OMP_LIMITED_PARALLELISM, /* its threads left out of a team while it runs */
  TS_WAIT_OMP_LOCK_CONTENTION, /* a thread waiting to take an OpenMP lock (critical, omp_set_lock) */
  TS_WAIT_N_PATTERNS
} TsWaitPattern;

/* "late_sender", "wait_nxn", ... as in waitstates.csv. */
const char *ts_wait_pattern_name (TsWaitPattern p);

typedef struct TsWaitStates TsWaitStates;

/* Analyse @trace (clock offsets and inferred envelopes from @calibration). */
TsWaitStates *ts_wait_states_analyse (const TsTrace *trace, const TsCalibration *calibration,
                                      GError **error);
/* The same, stopping early with G_IO_ERROR_CANCELLED once @cancellable
 * (NULL: never) is cancelled: an analysis beside a replay that failed. */
TsWaitStates *ts_wait_states_analyse_cancellable (const TsTrace *trace,
                                                  const TsCalibration *calibration,
                                                  GCancellable *cancellable, GError **error);

/* Each waiting span as it is found: on @rank, in MPI call @region, from
 * @start for @seconds. Per rank, spans come in time order. */
typedef void (*TsWaitSpanFunc) (TsWaitPattern p, guint rank, guint region, double start,
                                double seconds, gpointer user_data);
TsWaitStates *ts_wait_states_analyse_spans (const TsTrace *trace, const TsCalibration *calibration,
                                            TsWaitSpanFunc func, gpointer user_data,
                                            GError **error);
/* The same over @stream's actions (a predicted execution read from the
 * archive writer, ts_action_stream_open_writer), not freed. */
TsWaitStates *ts_wait_states_analyse_stream (const TsTrace *trace, TsActionStream *stream,
                                             TsWaitSpanFunc func, gpointer user_data,
                                             GError **error);
void ts_wait_states_free (TsWaitStates *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsWaitStates, ts_wait_states_free)

/* Seconds of @p summed over ranks, or on one rank. */
double ts_wait_states_total (const TsWaitStates *w, TsWaitPattern p);
double ts_wait_states_rank (const TsWaitStates *w, TsWaitPattern p, guint rank);

typedef void (*TsWaitFunc) (TsWaitPattern p, guint region, guint rank, double seconds,
                            gpointer user_data);
/* Every non-zero (pattern, region, rank) cell, ordered by pattern, region
 * name, rank. */
void ts_wait_states_foreach (const TsWaitStates *w, TsWaitFunc func, gpointer user_data);

/* The wait states as a GVariant (floating), to keep beside a saved first
 * pass (analysis/waitstates-saved.c); and back, for @trace: NULL and @error
 * when @saved does not fit its ranks and regions. */
GVariant *ts_wait_states_save (const TsWaitStates *w);
TsWaitStates *ts_wait_states_load (const TsTrace *trace, GVariant *saved, GError **error);

G_END_DECLS

#endif
