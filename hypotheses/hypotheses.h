/* What-if hypotheses: rules that rescale the compute time of regions, balance
 * it across ranks, and change the machine (doc/hypotheses.md has the syntax).
 *
 * Life cycle: load one or more files (they compose in order), bind them to a
 * trace (region patterns become regions; a pattern matching nothing is an
 * error that suggests the closest names), prepare them (rules that need each
 * occurrence's duration, `set` and `balance`, read the trace's actions once
 * each), then give every rank a TsHypothesisRank that rewrites its compute
 * actions as the replay pulls them.
 *
 * Memory: per `set`/`balance` rule, one number per occurrence of its regions
 * (the target), and each rank's occurrence durations in a spool on disk;
 * nothing per event.
 *
 * Error contract: functions taking GError** return FALSE/NULL and set it
 * (domain TS_HYPOTHESES_ERROR) with "FILE:LINE: message" for file errors. */
#ifndef TS_HYPOTHESES_H
#define TS_HYPOTHESES_H

#include <glib.h>
#include "model/action.h"
#include "calibrate/calibration.h"
#include "model/trace.h"

G_BEGIN_DECLS

#define TS_HYPOTHESES_ERROR (ts_hypotheses_error_quark ())
GQuark ts_hypotheses_error_quark (void);
typedef enum {
  TS_HYPOTHESES_ERROR_SYNTAX,    /* malformed file, unknown section or key, bad value */
  TS_HYPOTHESES_ERROR_NO_MATCH,  /* a region pattern matches no region of the trace */
  TS_HYPOTHESES_ERROR_READ,      /* the trace could not be read while preparing */
} TsHypothesesError;

typedef struct TsHypotheses TsHypotheses;
typedef struct TsHypothesisRank TsHypothesisRank;

TsHypotheses *ts_hypotheses_new (void);
void ts_hypotheses_free (TsHypotheses *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsHypotheses, ts_hypotheses_free)

/* Add the rules of a file, after those already loaded. */
gboolean ts_hypotheses_load_file (TsHypotheses *h, const char *path, GError **error);
/* The bytes of a hypothesis file, refused without reading it when it is
 * larger than a hypothesis file may be; @len is set. */
char *ts_hypotheses_read_file (const char *path, gsize *len, GError **error);
/* Add the rules of a file's @len bytes (a NUL byte among them is an error);
 * @origin names it in messages. */
gboolean ts_hypotheses_load_bytes (TsHypotheses *h, const char *text, gsize len,
                                   const char *origin, GError **error);
/* Same from a string. */
gboolean ts_hypotheses_load_data (TsHypotheses *h, const char *text, const char *origin,
                                  GError **error);

/* Resolve the region and phase patterns against @trace. With the trace's
 * first pass (@calibration; NULL: phases cannot be bound), a rule that
 * selects no compute is refused with what to write instead. */
gboolean ts_hypotheses_bind (TsHypotheses *h, const TsTrace *trace,
                             const TsCalibration *calibration, GError **error);
/* Compute what `set` and `balance` rules need (one pass over the actions per
 * such rule). After bind. */
gboolean ts_hypotheses_prepare (TsHypotheses *h, const TsTrace *trace, const TsCalibration *calibration,
                                GError **error);

guint ts_hypotheses_n_rules (const TsHypotheses *h);
/* After bind: whether a [region:...] rule selects the trace's @region, by
 * whatever selector it was written with (a glob, a "quoted" name, a
 * regular expression). Phase rules select phases, not regions. */
gboolean ts_hypotheses_selects_region (const TsHypotheses *h, guint region);
/* Machine changes, multiplied over every file: factors on link bandwidth and
 * latency, and on host speed (1 when not given). */
double ts_hypotheses_bandwidth_factor (const TsHypotheses *h);
double ts_hypotheses_latency_factor (const TsHypotheses *h);
double ts_hypotheses_speed_factor (const TsHypotheses *h);
/* [residual] mode = pinned | noise | none: what the replay does with the
 * residual of MPI calls (sim/replay.h, TsResidual), the last file's; NULL
 * when no file says. "What if the noise were gone" is mode = none. */
const char *ts_hypotheses_residual (const TsHypotheses *h);
/* [mpi] progress = in-calls | async: how the MPI library moves rendezvous
 * messages (sim/replay.h, TsMpiProgress), the last file's; NULL if none
 * said. */
const char *ts_hypotheses_mpi_progress (const TsHypotheses *h);

/* The largest team a `threads = N` rule makes (N), or 0 where none does:
 * the cores a rank's threads may need. */
guint ts_hypotheses_team_size (const TsHypotheses *h);

/* What every rule selects in the bound trace, one line per rule, for
 * `tracesim hypotheses check`. */
void ts_hypotheses_describe (const TsHypotheses *h, const TsTrace *trace, GString *out);

/* The rewriting state of one stream of the bound trace (a rank, or a
 * thread with MPI of its own after the ranks, ts_trace_n_streams),
 * applying the first @n_rules rules (G_MAXUINT: all). After prepare (or
 * bind, when no rule needs preparing). */
TsHypothesisRank *ts_hypothesis_rank_new (const TsHypotheses *h, guint stream, guint n_rules);
void ts_hypothesis_rank_free (TsHypothesisRank *hr);
/* Feed every action of the rank in order: region markers move the rank's
 * region stack, compute actions get their new duration. Returns FALSE and
 * sets @error if a prepared log cannot be read. */
gboolean ts_hypothesis_rank_apply (TsHypothesisRank *hr, TsAction *action, GError **error);

G_END_DECLS

#endif
