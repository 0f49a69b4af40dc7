/* Shared by the first pass (calibration.c), what it learns from the
 * collectives it sampled (clocks.c) and the envelope inference
 * (envelopes.c). Not installed. */
#ifndef TS_CALIBRATION_PRIVATE_H
#define TS_CALIBRATION_PRIVATE_H

#include "calibrate/calibration.h"
#include "calibrate/phases.h"

G_BEGIN_DECLS

struct TsCalibration {
  guint n_ranks;
  double *clock_offset;       /* seconds added to each rank's clock */
  TsClockAlignment clocks;
  GPtrArray *inferred;        /* GArray of TsEnvelope per rank (may be empty) */
  /* The messages that went to receives the trace recorded without their
   * envelope: (channel, k-th message on it), keys as TsPartitionedKey. */
  GHashTable *to_guessed;
  /* The same for the messages receives took by the envelope MPI_Waitany &
   * co. gave them (TS_ACTION_STATUS), as recorded: revisable too. */
  GHashTable *to_status;
  GHashTable *unreceived;     /* as to_guessed, for messages no receive of the trace took */
  double *call_costs;         /* [TsCallKind * TS_N_SIZE_CLASSES + size class] seconds */
  /* The shortest call of each MPI function, message size and role, seconds
   * (+inf where there was none); index with ts_calibration_call_min_index(). The
   * role tells a rooted collective's root from the others (a bcast's root
   * leaves at once, its leaves receive). */
  double *call_min;
  /* Original timing, after alignment. */
  double start;               /* earliest first event over all ranks */
  double runtime;             /* latest last event - start */
  double *rank_end;           /* per rank: last event - start */
  TsDecodeStats *rank_stats;  /* per rank, from the aligned pass */
  /* Network fit from point-to-point durations: seconds = latency + bytes / bandwidth. */
  double latency;             /* seconds; 0 if nothing to fit */
  double bandwidth;           /* bytes per second; 0 if nothing to fit */
  guint fit_samples;
  /* The same fit of the receives within a node [0] and between nodes [1],
   * where the trace says which node each rank ran on (samples 0 if not). */
  TsNetworkFit placed_fit[2];
  /* Their fastest receive by class, made monotone as the fit takes it (a
   * class without receives takes the next larger one's; INFINITY above the
   * largest). */
  double placed_min[2][TS_N_SIZE_CLASSES];
  /* Per size class (ts_size_class), how many times faster than @bandwidth
   * the fastest receive of that class moved its message (>= 1; 1 where none
   * beat the line): the piecewise correction SMPI calls a bandwidth factor,
   * learnt from the trace. ts_calibration_transfer() applies it, and so does the
   * replay on the platform tracesim calibrates. */
  double bandwidth_factor[TS_N_SIZE_CLASSES];
  /* The largest message of a blocking send or a bcast/scatter: what
   * ts_eager_threshold_infer() could find sent eagerly. */
  guint64 largest_blocking_send;
  /* Per rank: the CPU and wall seconds of its MPI calls whose CPU time the
   * trace gives (TS_COMPUTE_CPU; 0 otherwise). */
  double *calls_cpu, *calls_wall;
  /* Per region: visits and inclusive seconds, summed over ranks. */
  guint64 *region_visits;
  double *region_seconds;
  /* Per region: compute seconds spent in it and not in a region it calls
   * (its exclusive compute), summed over ranks. */
  double *region_compute;
  /* Per region: 1 if some rank enters it with no region open (main,
   * EZTrace's "Working"). */
  guint8 *region_outermost;
  /* TsPhase, most compute first (calibrate/phases.h). */
  GArray *phases;
  guint n_regions;
  /* The first pass's actions per rank (TsAction records, clock offsets and
   * call costs not applied), or NULL when the replay must read the trace
   * again (envelope inference). Read through TsActionStream. */
  TsSpool *spool;
  /* The binomial tree of the traced library's broadcasts and reductions:
   * of binomial_samples sampled instances on 4 ranks or more, how many of
   * their members' calls contradict each shape (left before a rank they
   * wait for in it entered), and the shape contradicted least (on a tie,
   * the trace's MPI library's, else MPICH's). */
  TsBinomialTree binomial_tree;
  guint binomial_contradictions[TS_BINOMIAL_N_TREES];
  guint binomial_samples;
  /* Partitioned requests: TsPartitionedKey -> TsPartitionedPair, for every
   * matched pair of MPI_Psend_init / MPI_Precv_init. */
  GHashTable *partitioned;
  /* Per rank, what ts_calibration_stream_open() applies. */
  TsDecodeOptions *decode_options;
};

static inline gsize
ts_calibration_call_min_index (guint region, guint size_class, gboolean is_root)
{
  return ((gsize) region * TS_N_SIZE_CLASSES + size_class) * 2 + (is_root ? 1 : 0);
}

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
  GArray *colls;                    /* CollSample, the first TS_CALIBRATION_COLL_SAMPLES */
  guint32 *coll_seq;                /* per communicator: calls seen */
  GArray *pinits;                   /* PInit, in this rank's order */
  guint missing_recvs;
  guint status_recvs;          /* receives of TS_ACTION_STATUS envelopes */
  double calls_cpu, calls_wall;  /* its MPI calls', where the trace gives their CPU time */
} RankScan;

/* From the sampled collectives of every rank (@scans): align the clocks of
 * @p when the trace is not causal, and find the binomial tree shape its
 * broadcasts and reductions show (clock_offset, sync_violations,
 * coll_repairs, clocks_drift, clocks_aligned, binomial_*). */
void ts_calibration_read_collectives (const TsTrace *trace, TsCalibration *p, RankScan *scans);
/* The fastest calls of one kind and size class (calibration.c's sums). */
typedef struct {
  double min;        /* shortest call of this kind and size class */
  guint64 bytes;     /* its size */
  guint64 count;
} CallSample;
/* No link moves a message faster (bytes/s, 100 GB/s): a call faster than
 * its bytes at this rate moved no data. */
#define TS_CALIBRATION_FASTEST_LINK 1e11
/* The network fit (network-fit.c) of the fastest blocking receives
 * (@samples: [kind][size class]), within a node and between nodes
 * (@placed: [2][size class]), each class's refined by the fastest
 * rendezvous send (@sends: [all, same node, another][size class]). */
void ts_calibration_fit_network (TsCalibration *p, const CallSample *samples,
                                 const CallSample *sends, const CallSample *placed);
/* Fill @p->inferred: the envelope each unresolved receive took (envelopes.c). */
gboolean ts_calibration_infer_envelopes (const TsTrace *trace, TsCalibration *p,
                                         GError **error);

G_END_DECLS

#endif
