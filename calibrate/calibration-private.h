/* Shared by the first pass (profile.c) and what it learns from the
 * collectives it sampled (profile-collectives.c). Not installed. */
#ifndef TS_PROFILE_PRIVATE_H
#define TS_PROFILE_PRIVATE_H

#include "calibrate/calibration.h"

G_BEGIN_DECLS

/* One blocking collective call of a rank, for the clock alignment and the
 * tree shape: the k-th call on a communicator of every member is the same
 * instance. */
typedef struct {
  guint32 comm;
  guint32 seq;
  guint32 rank;
  guint8 shape;                     /* TsCollectiveShape */
  guint8 op;                        /* TsCollectiveOp */
  guint8 root;
  double enter, leave;              /* the MPI call's, on the rank's own clock */
} CollSample;

/* Per-rank scratch of the first pass. */
typedef struct {
  GArray *sync_enter, *sync_leave;  /* double, synchronising collectives on sync_comm */
  gint sync_comm;                   /* -1 until the first one */
  GArray *colls;                    /* CollSample, the first TS_PROFILE_COLL_SAMPLES */
  guint32 *coll_seq;                /* per communicator: calls seen */
  GArray *pinits;                   /* PInit, in this rank's order */
  guint missing_recvs;
} RankScan;

/* From the sampled collectives of every rank (@scans): align the clocks of
 * @p when the trace is not causal, and find the binomial tree shape its
 * broadcasts and reductions show (clock_offset, sync_violations,
 * coll_repairs, clocks_drift, clocks_aligned, binomial_*). */
void ts_profile_read_collectives (const TsTrace *trace, TsProfile *p, RankScan *scans);

G_END_DECLS

#endif
