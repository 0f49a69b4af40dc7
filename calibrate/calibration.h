/* What tracesim learns about a trace before replaying it, in streaming passes:
 * the clock offsets that make it causal, the receive envelopes it must infer,
 * the CPU cost of MPI calls, the network it ran on, and the original timing.
 *
 * Memory is bounded by ranks x (a few numbers + the first TS_CALIBRATION_SYNC_SAMPLES
 * synchronising and TS_CALIBRATION_COLL_SAMPLES blocking collectives) + the
 * inferred envelopes, never by the number of events. */
#ifndef TS_CALIBRATION_H
#define TS_CALIBRATION_H

#include <glib.h>
#include "model/decode.h"
#include "model/trace.h"
#include "model/spool.h"
#include "model/stream.h"
#include "model/channel.h"
#include "calibrate/binomial.h"
#include "calibrate/phases.h"

G_BEGIN_DECLS

#define TS_CALIBRATION_SYNC_SAMPLES 1024
/* Clock alignment is good to tens of microseconds, not better: times of two
 * ranks closer than this tell nothing about which came first (a message seen
 * sent after the receive that took it ended, a sender that left before its
 * receiver arrived). */
#define TS_CALIBRATION_CLOCK_SLACK 50e-6
#define TS_CALIBRATION_COLL_SAMPLES 256

typedef struct TsCalibration TsCalibration;

/* How the clocks were aligned (calibrate/clocks.c). */
typedef struct {
  gboolean aligned;           /* the trace violated causality and was aligned */
  guint sync_violations;      /* synchronising collectives left before the last entered, raw */
  guint coll_repairs;         /* collective instances still not causal after the median
                               * alignment, whose offsets were raised */
  gboolean drift;             /* no offset per rank makes the collectives causal */
} TsClockAlignment;

/* The traced network: seconds = latency + bytes / bandwidth, fitted through
 * the fastest blocking receive of each size class (samples classes), or
 * nothing to fit (samples 0, latency and bandwidth 0). A fit with no slope
 * (one size class, or larger messages no slower) has bandwidth 0. */
typedef struct {
  double latency;
  double bandwidth;
  guint samples;
} TsNetworkFit;

/* @fit's bandwidth, or @otherwise where it measured none. */
static inline double
ts_network_fit_bandwidth (TsNetworkFit fit, double otherwise)
{
  return fit.bandwidth > 0 ? fit.bandwidth : otherwise;
}

/* MPI calls by what the trace recorded of their messages (TS_INFO_RECORDED,
 * _INFERRED, _MISSING), summed over ranks. */
typedef struct {
  guint64 calls[3];
  double seconds[3];
} TsMessageInfo;

/* The network assumed where a trace has no blocking receive to fit one to:
 * shared memory of a current node (1 us, 10 GB/s). */
#define TS_CALIBRATION_DEFAULT_LATENCY 1e-6
#define TS_CALIBRATION_DEFAULT_BANDWIDTH 1e10
/* A class whose fastest receive took no longer than the latency: its bytes
 * cost next to nothing, but not nothing. */
#define TS_CALIBRATION_MAX_BANDWIDTH_FACTOR 1e4

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
const TsPartitionedPair *ts_calibration_partitioned_pair (const TsCalibration *calibration,
                                                      const TsChannel *channel, guint32 k);

/* Read @trace and build its calibration. Returns NULL and sets @error when the
 * trace cannot be read (naming file, rank and event). */
TsCalibration *ts_calibration_compute (const TsTrace *trace, GError **error);
void ts_calibration_free (TsCalibration *calibration);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsCalibration, ts_calibration_free)

/* A calibration kept on disk (calibrate/saved.c), so that a sweep's points,
 * its Slurm tasks and its resumes share one first pass: the spooled actions
 * are copied into @fd from *@offset on (advanced), everything else is the
 * returned variant (floating), or NULL and @error when a write fails. */
GVariant *ts_calibration_save (const TsCalibration *calibration, int fd, guint64 *offset,
                               GError **error);
/* The calibration ts_calibration_save() kept as @saved and in @fd (of
 * @file_size bytes), for @trace; NULL and @error when it does not fit the
 * trace's definitions. */
TsCalibration *ts_calibration_load (const TsTrace *trace, GVariant *saved, int fd,
                                    guint64 file_size, GError **error);

/* Seconds a message of @bytes takes on the traced network: the fit with its
 * size class's bandwidth factor, or the defaults where there is none (the
 * network of the calibrated platform). */
double ts_calibration_transfer (const TsCalibration *calibration, guint64 bytes);

/* Decode options for @rank that apply this calibration (clock offset,
 * inferred envelopes, call costs). The arrays they point to belong to
 * @calibration. */
TsDecodeOptions ts_calibration_decode_options (const TsCalibration *calibration, guint rank);
/* Every rank's actions with this calibration applied, from its spool or
 * decoded again. @calibration and @trace must outlive the stream. */
TsActionStream *ts_calibration_stream_open (const TsCalibration *calibration,
                                            const TsTrace *trace, GError **error);
/* The actions the first pass kept (as decoded, nothing applied), or NULL
 * when they must be decoded again (envelope inference). */
const TsSpool *ts_calibration_spool (const TsCalibration *calibration);

guint ts_calibration_n_ranks (const TsCalibration *calibration);

/* Original timing, clock-aligned: the span from the earliest first event
 * to the latest last event, and each rank's last event from that start. */
double ts_calibration_runtime (const TsCalibration *calibration);
double ts_calibration_start (const TsCalibration *calibration);
/* n_ranks values, owned by @calibration. */
const double *ts_calibration_rank_ends (const TsCalibration *calibration);
double ts_calibration_clock_offset (const TsCalibration *calibration, guint rank);
const TsClockAlignment *ts_calibration_clocks (const TsCalibration *calibration);
const TsDecodeStats *ts_calibration_rank_stats (const TsCalibration *calibration, guint rank);
/* Whether @rank has OpenMP thread teams: traced with two threads or more,
 * or its own location began a team (of one thread too: the first pass's
 * TsDecodeStats.teams). What a `threads = N` what-if can change. */
gboolean ts_calibration_rank_has_teams (const TsCalibration *calibration, const TsTrace *trace,
                                        guint rank);
guint64 ts_calibration_events (const TsCalibration *calibration);
guint64 ts_calibration_actions (const TsCalibration *calibration);
TsMessageInfo ts_calibration_message_info (const TsCalibration *calibration);

/* Per region of the trace: visits and inclusive seconds, summed over ranks. */
guint64 ts_calibration_region_visits (const TsCalibration *calibration, guint region);
double ts_calibration_region_seconds (const TsCalibration *calibration, guint region);
/* Per region: its exclusive compute (bursts in it, not in regions it
 * calls), seconds summed over ranks, as traced. */
double ts_calibration_region_compute (const TsCalibration *calibration, guint region);
/* TRUE if some rank enters @region with no region open: a region around
 * the whole run (main, EZTrace's "Working") rather than a part of it. */
gboolean ts_calibration_region_outermost (const TsCalibration *calibration, guint region);
/* The phases of the trace (calibrate/phases.h), most compute first. */
guint ts_calibration_n_phases (const TsCalibration *calibration);
const TsPhase *ts_calibration_phase (const TsCalibration *calibration, guint i);

TsNetworkFit ts_calibration_network (const TsCalibration *calibration);
/* The fit of the receives from a rank of the same node (@between_nodes
 * FALSE) or of another node, where the trace records the ranks' nodes;
 * samples 0 when it does not, or has no such receive. */
TsNetworkFit ts_calibration_network_placed (const TsCalibration *calibration,
                                            gboolean between_nodes);
/* What the trace says a blocking receive of @bytes took for its transfer
 * within a node or between nodes: the placed fit's time, but no more than
 * the fastest such receive of its size class (seeds/001: the fastest did
 * not wait). ts_calibration_transfer() where the placed fit has nothing. */
double ts_calibration_transfer_placed (const TsCalibration *calibration, guint64 bytes,
                                       gboolean between_nodes);
/* How many times faster than the fitted bandwidth the fastest receive of
 * @size_class moved its message (>= 1; 1 where none beat the line): the
 * piecewise correction SMPI calls a bandwidth factor, learnt from the
 * trace. The replay applies it on the platform tracesim calibrated. */
double ts_calibration_bandwidth_factor (const TsCalibration *calibration, guint size_class);
/* The largest message of a blocking send or a bcast/scatter: what
 * ts_eager_threshold_infer() could find sent eagerly. */
guint64 ts_calibration_largest_blocking_send (const TsCalibration *calibration);
/* @rank's MPI calls whose CPU time the trace gives (a trace opened with
 * TS_COMPUTE_CPU): their CPU seconds, and their wall seconds into @wall
 * (both 0 otherwise). */
double ts_calibration_calls_cpu (const TsCalibration *calibration, guint rank, double *wall);
/* The shortest call of MPI function @region with a message of @size_class,
 * by a rooted collective's root (@is_root) or not; +inf where there was none. */
double ts_calibration_call_min (const TsCalibration *calibration, guint region, guint size_class,
                                gboolean is_root);
/* Whether the @k-th message (from 0) on @channel went to a receive whose
 * envelope the trace did not record (its envelope is a guess); or to one
 * whose envelope MPI_Waitany & co. gave (TS_ACTION_STATUS: EZTrace's may
 * be stale), by the envelope as recorded. */
gboolean ts_calibration_to_guessed_receive (const TsCalibration *calibration,
                                            const TsChannel *channel, guint32 k);
gboolean ts_calibration_to_status_receive (const TsCalibration *calibration,
                                           const TsChannel *channel, guint32 k);
/* Whether the @k-th message on @channel is one that no receive of the trace
 * took (envelope inference found none for it). */
gboolean ts_calibration_unreceived (const TsCalibration *calibration, const TsChannel *channel,
                                    guint32 k);
/* How many messages no receive of the trace took. */
guint ts_calibration_unreceived_messages (const TsCalibration *calibration);
/* How many messages went to receives of guessed envelopes, and to
 * receives of TS_ACTION_STATUS envelopes: what a deadlock's revisions let
 * take their messages as they arrive. */
guint ts_calibration_guessed_receives (const TsCalibration *calibration);
guint ts_calibration_status_receives (const TsCalibration *calibration);
/* Envelopes inferred for @rank's receives (may be empty). */
const GArray *ts_calibration_inferred (const TsCalibration *calibration, guint rank);

/* The binomial tree of the traced library's broadcasts and reductions: of
 * ts_calibration_binomial_samples() sampled instances on 4 ranks or more,
 * how many of their members' calls contradict each shape (left before a
 * rank they wait for in it entered), and the shape contradicted least
 * (on a tie, that of the MPI library the trace names, else MPICH's). */
TsBinomialTree ts_calibration_binomial_tree (const TsCalibration *calibration);
guint ts_calibration_binomial_contradictions (const TsCalibration *calibration,
                                              TsBinomialTree tree);
guint ts_calibration_binomial_samples (const TsCalibration *calibration);

G_END_DECLS

#endif
