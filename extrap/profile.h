/* What rank-count extrapolation reads of one input trace: a scale profile.
 *
 * One pass over every rank's actions (as the calibration resolves them, so
 * that receives whose source a tracer left out count too) collects, per
 * rank, the point-to-point traffic with each partner, the compute seconds of
 * each region, how often each region and each MPI call was entered, and the
 * collectives per communicator. Memory is in ranks x partners and ranks x
 * regions, never in the trace's length. The calibration is kept: the input
 * at the largest scale is the template the synthesis streams from.
 *
 * A profile is read once and not changed afterwards. */
#ifndef TS_PROFILE_H
#define TS_PROFILE_H

#include <glib.h>
#include "calibrate/calibration.h"
#include "model/trace.h"

G_BEGIN_DECLS

/* The name compute outside every region is filed under (an uninstrumented
 * program's compute between its MPI calls). */
#define TS_PROFILE_OUTSIDE_REGIONS "(outside any region)"

/* One rank's traffic with one partner (a world rank, never itself). */
typedef struct {
  guint32 peer;
  guint64 sent, received;        /* messages */
  guint64 bytes_sent, bytes_received;
} TsPeerTraffic;

/* Collectives of one operation on one communicator, summed over ranks. */
typedef struct {
  guint8 op;                     /* TsCollectiveOp */
  guint32 comm;                  /* communicator index in the trace */
  guint64 calls;                 /* calls, summed over ranks */
  guint64 bytes_sent;            /* bytes sent, summed over ranks */
  gint32 root;                   /* the root of the first call (TS_NO_RANK: none) */
  gboolean roots_vary;           /* another call had another root */
} TsCollectiveUse;

typedef struct {
  char *path;
  TsTrace *trace;
  TsCalibration *calibration;
  guint n_ranks;
  GArray **traffic;              /* [rank]: TsPeerTraffic, by peer ascending */
  GArray **partners;             /* [rank]: guint32 world ranks, ascending: every rank it
                                  * sent to or received from */
  GHashTable *compute;           /* region name -> double[n_ranks]: seconds outside MPI */
  GHashTable *visits;            /* region or MPI call name -> guint64[n_ranks] */
  GArray *collectives;           /* TsCollectiveUse, blocking and non-blocking */
} TsScaleProfile;

/* Read the trace whose anchor file is @path, its compute as @clock takes
 * it (CPU time: a trace recorded with more ranks than cores). NULL and
 * @error (naming the trace, rank and event) when it cannot be read. */
TsScaleProfile *ts_scale_profile_read (const char *path, TsComputeClock clock, GError **error);
void ts_scale_profile_free (TsScaleProfile *profile);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsScaleProfile, ts_scale_profile_free)

/* Compute of every rank in every region, summed. */
double ts_scale_profile_total_compute (const TsScaleProfile *profile);

/* Mean and spread over ranks of the compute seconds of region @name
 * (0 for a region the trace has not): the spread is the coefficient of
 * variation, the standard deviation over the mean (0 where the mean is 0). */
void ts_scale_profile_compute_stats (const TsScaleProfile *profile, const char *name,
                                     double *mean, double *spread);

G_END_DECLS

#endif
