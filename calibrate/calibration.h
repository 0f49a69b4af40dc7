/* What tracesim learns about a trace before replaying it, in streaming passes:
 * the clock offsets that make it causal, the receive envelopes it must infer,
 * the CPU cost of MPI calls, the network it ran on, and the original timing.
 *
 * Memory is bounded by ranks x (a few numbers + the first TS_PROFILE_SYNC_SAMPLES
 * synchronising and TS_PROFILE_COLL_SAMPLES blocking collectives) + the
 * inferred envelopes, never by the number of events. */
#ifndef TS_PROFILE_H
#define TS_PROFILE_H

#include <glib.h>
#include "model/decode.h"
#include "model/trace.h"
#include "model/spool.h"
#include "model/channel.h"
#include "calibrate/binomial.h"

G_BEGIN_DECLS

#define TS_PROFILE_SYNC_SAMPLES 1024
#define TS_PROFILE_COLL_SAMPLES 256

typedef struct {
  guint n_ranks;
  double *clock_offset;       /* seconds added to each rank's clock */
  gboolean clocks_aligned;    /* the trace violated causality and was aligned */
  guint sync_violations;      /* synchronising collectives left before the last entered, raw */
  guint coll_repairs;         /* collective instances still not causal after the median
                               * alignment, whose offsets were raised (see
                               * profile-collectives.c) */
  gboolean clocks_drift;      /* no offset per rank makes the collectives causal */
  GPtrArray *inferred;        /* GArray of TsEnvelope per rank (may be empty) */
  double *call_costs;         /* [TsCallKind * TS_N_SIZE_CLASSES + size class] seconds */
  /* The shortest call of each MPI function, message size and role, seconds
   * (+inf where there was none); index with ts_profile_call_min_index(). The
   * role tells a rooted collective's root from the others (a bcast's root
   * leaves at once, its leaves receive). */
  double *call_min;
  /* Original timing, after alignment. */
  double start;               /* earliest first event over all ranks */
  double runtime;             /* latest last event - start */
  double *rank_end;           /* per rank: last event - start */
  TsStreamStats *rank_stats;  /* per rank, from the aligned pass */
  /* Network fit from point-to-point durations: seconds = latency + bytes / bandwidth. */
  double latency;             /* seconds; 0 if nothing to fit */
  double bandwidth;           /* bytes per second; 0 if nothing to fit */
  guint fit_samples;
  /* Per size class (ts_size_class), how many times faster than @bandwidth
   * the fastest receive of that class moved its message (>= 1; 1 where none
   * beat the line): the piecewise correction SMPI calls a bandwidth factor,
   * learnt from the trace. ts_profile_transfer() applies it, and so does the
   * replay on the platform tracesim calibrates. */
  double bandwidth_factor[TS_N_SIZE_CLASSES];
  /* The largest message of a blocking send or a bcast/scatter: what
   * ts_eager_threshold_infer() could find sent eagerly. */
  guint64 largest_blocking_send;
  /* Per region: visits and inclusive seconds, summed over ranks. */
  guint64 *region_visits;
  double *region_seconds;
  guint n_regions;
  /* The first pass's actions per rank (TsAction records, clock offsets and
   * call costs not applied), or NULL when the replay must read the trace
   * again (envelope inference). Read through TsActionFeed. */
  TsRankLog *spool;
  /* The binomial tree of the traced library's broadcasts and reductions:
   * of binomial_samples sampled instances on 4 ranks or more, how many of
   * their members' calls contradict each shape (left before a rank they
   * wait for in it entered), and the shape contradicted least (MPICH's on a
   * tie). */
  TsBinomialTree binomial_tree;
  guint binomial_contradictions[TS_BINOMIAL_N_TREES];
  guint binomial_samples;
  /* Partitioned requests: TsPartitionedKey -> TsPartitionedPair, for every
   * matched pair of MPI_Psend_init / MPI_Precv_init. */
  GHashTable *partitioned;
} TsProfile;

/* The network assumed where a trace has no blocking receive to fit one to:
 * shared memory of a current node (1 us, 10 GB/s). */
#define TS_PROFILE_DEFAULT_LATENCY 1e-6
#define TS_PROFILE_DEFAULT_BANDWIDTH 1e10
/* A class whose fastest receive took no longer than the latency: its bytes
 * cost next to nothing, but not nothing. */
#define TS_PROFILE_MAX_BANDWIDTH_FACTOR 1e4

/* The k-th partitioned initialisation (from 0) on a channel: seed 000,
 * partitioned requests match in initialisation order per envelope. */
typedef struct {
  TsChannel channel;
  guint32 k;
} TsPartitionedKey;

typedef struct {
  guint32 send_partitions, recv_partitions;
  guint64 bytes;             /* the sender's message size */
} TsPartitionedPair;

guint ts_partitioned_key_hash (gconstpointer key);
gboolean ts_partitioned_key_equal (gconstpointer a, gconstpointer b);

/* The pair of the @k-th partitioned initialisation on @channel, or NULL. */
const TsPartitionedPair *ts_profile_partitioned_pair (const TsProfile *profile,
                                                      const TsChannel *channel, guint32 k);

/* Read @trace and build its profile. Returns NULL and sets @error when the
 * trace cannot be read (naming file, rank and event). */
TsProfile *ts_profile_compute (const TsTrace *trace, GError **error);
void ts_profile_free (TsProfile *profile);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsProfile, ts_profile_free)

static inline gsize
ts_profile_call_min_index (guint region, guint size_class, gboolean is_root)
{
  return ((gsize) region * TS_N_SIZE_CLASSES + size_class) * 2 + (is_root ? 1 : 0);
}

/* Seconds a message of @bytes takes on the traced network: the fit with its
 * size class's bandwidth factor, or the defaults where there is none (the
 * network of the calibrated platform). */
double ts_profile_transfer (const TsProfile *profile, guint64 bytes);

/* Stream options for @rank that apply this profile. */
TsStreamOptions ts_profile_stream_options (const TsProfile *profile, guint rank);

G_END_DECLS

#endif
