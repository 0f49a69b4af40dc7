/* Replaying action streams on a SimGrid platform.
 *
 * Each rank's actions, pulled from a TsActionStream, are performed in the
 * simulated world by step functions run from SimGrid's maestro (no actor per
 * rank): compute bursts become timers or executions on the rank's host,
 * messages are matched per MPI envelope (MPI's non-overtaking order per
 * source, tag and communicator) and move as host-to-host transfers,
 * collectives become point-to-point algorithms on their own communicator
 * (doc/architecture.md, "The replay engine").
 *
 * SimGrid's engine can be initialised once per process: a process runs one
 * replay. Sweeps run one process per point. */
#ifndef TS_REPLAY_H
#define TS_REPLAY_H

#include <glib.h>
#include "model/trace.h"
#include "calibrate/calibration.h"
#include "hypotheses/hypotheses.h"
#include "model/archive_writer.h"

G_BEGIN_DECLS

#define TS_REPLAY_ERROR (ts_replay_error_quark ())
GQuark ts_replay_error_quark (void);
typedef enum {
  TS_REPLAY_ERROR_PLATFORM,  /* unreadable platform, too few hosts */
  TS_REPLAY_ERROR_DEADLOCK,  /* ranks blocked forever */
  TS_REPLAY_ERROR_TRACE,     /* the trace failed while replaying */
  TS_REPLAY_ERROR_OUTPUT,    /* the predicted archive could not be written */
} TsReplayError;

/* How ranks fill the nodes without a hostfile: block puts ranks 0..k-1 on the
 * first node, cyclic deals them out one per node in turn (Slurm's
 * --distribution=block and cyclic). */
typedef enum { TS_PLACEMENT_BLOCK, TS_PLACEMENT_CYCLIC } TsPlacement;

/* What the replay does with a call's residual: the time the trace shows in
 * an MPI call beyond its work (the fastest call of its class) that neither
 * waiting nor the network explains (a descheduled rank, OS noise, a stall;
 * doc/architecture.md, "Three kinds of time"). PINNED charges it where the
 * trace had it (what an identity replay needs to reproduce the trace);
 * NOISE charges each call a draw from the rank's own residual statistics so
 * far (its detours' rate and mean size, seeded per rank); NONE charges
 * nothing, nor the late starts of ranks: the run without noise; SCALED
 * charges at each call the rank's residual so far per second of its
 * recorded work, times the work charged since its last call: the share of
 * its time a rank lost (a descheduled rank, noise) follows what it does. */
typedef enum {
  TS_RESIDUAL_PINNED,
  TS_RESIDUAL_NOISE,
  TS_RESIDUAL_NONE,
  TS_RESIDUAL_SCALED
} TsResidual;
/* "pinned", "noise", "none" or "scaled"; FALSE if neither. */
gboolean ts_residual_parse (const char *text, TsResidual *residual);
const char *ts_residual_name (TsResidual residual);

/* How an MPI library moves a rendezvous message (one the sender cannot hand
 * over at once: above the eager threshold). IN_CALLS: its data moves only
 * once the receiver's library has seen the sender's request to send, which
 * it does only inside an MPI call: the transfer starts when both are posted
 * and the receiver is inside a call (Open MPI's ob1 and MPICH's CH4 without
 * a progress thread, their default; the receiver's match then fetches the
 * data). ASYNC: it starts as soon as both are posted (a progress thread,
 * or hardware matching). */
typedef enum { TS_MPI_PROGRESS_IN_CALLS, TS_MPI_PROGRESS_ASYNC } TsMpiProgress;
/* "in-calls" or "async"; FALSE if neither. */
gboolean ts_mpi_progress_parse (const char *text, TsMpiProgress *progress);
const char *ts_mpi_progress_name (TsMpiProgress progress);

/* How a rank waits inside an MPI call, where it shares its core with other
 * ranks (more ranks than cores on its host). BUSY: it polls, and takes its
 * full share of the core while it waits (Open MPI's and MPICH's progress
 * loop); BLOCKING: it sleeps and leaves the core to the others; RECORDED
 * (the default): it takes at most the share of a core its MPI calls took
 * in the recording so far (their CPU time over their wall time, with
 * --cpu-time; a library that yields the core while it polls, as Open MPI
 * does when it knows the node is oversubscribed, takes less than a full
 * share), and a full share until the trace has told. A rank with a core of
 * its own waits alike in every mode. */
typedef enum { TS_MPI_WAIT_RECORDED, TS_MPI_WAIT_BUSY, TS_MPI_WAIT_BLOCKING } TsMpiWait;
/* "recorded", "busy" or "blocking"; FALSE if none. */
gboolean ts_mpi_wait_parse (const char *text, TsMpiWait *wait);
const char *ts_mpi_wait_name (TsMpiWait wait);

/* A rank's predicted time, of three kinds that add up to its runtime (from
 * the common start to its end). */
typedef struct {
  double work;       /* compute, and each MPI call's own cost (its class's fastest) */
  double simulated;  /* waiting, transfers, and compute stretched by a shared core */
  double residual;   /* charged under TsResidual, and late starts */
} TsRankTime;
/* "block" or "cyclic"; FALSE if neither. */
gboolean ts_placement_parse (const char *text, TsPlacement *placement);

typedef struct {
  const char *platform_path;   /* SimGrid XML platform; required */
  const char *platform_name;   /* how messages name it; NULL: platform_path */
  const char *hostfile;        /* one host name per line, rank order; NULL: placement */
  /* Without a hostfile: ranks on each node (0: as many as it has cores),
   * nodes taken in the order of their names, numbers compared as numbers. */
  guint ranks_per_node;
  TsPlacement placement;
  guint64 eager_threshold;     /* bytes: smaller messages do not wait for the receiver */
  const char *predicted_dir;   /* write the predicted archive here; NULL: do not */
  const char *const *simgrid_cfg; /* extra "--cfg=..." words, NULL-terminated; may be NULL */
  gboolean progress;           /* draw a progress bar on stderr */
  /* Flop rate of one core of the traced machine: a CPU second of the trace is
   * this many flops, so a host twice as fast computes in half the time.
   * Default 1e9, the speed of the platforms tracesim writes. */
  double trace_speed;
  /* Always model compute as SimGrid executions. By default a rank alone on
   * its core (ranks on the host <= cores) sleeps for flops / speed instead:
   * the same time with one simcall instead of two, exact unless the platform
   * varies host speeds over time (speed profiles), which needs this set. */
  gboolean exact_cpu;
  /* The shape of the binomial trees of broadcasts and reductions
   * (calibrate/binomial.h); usually the calibration's binomial_tree. */
  TsBinomialTree binomial_tree;
  TsResidual residual;
  TsMpiProgress mpi_progress;
  TsMpiWait mpi_wait;
  /* OpenMP's active wait (OMP_WAIT_POLICY=active, GOMP's spinning): a
   * team thread with nothing to do, and the rank's own thread at its
   * team's barrier, keep a share of a core they share (sim/team.c);
   * FALSE: they sleep. */
  gboolean omp_active;
  /* What the OpenMP runtime takes, in seconds, for a team's fork and join
   * beyond its last barrier, and for each barrier, in a team a what-if made
   * larger than the trace's (`threads = N`): what a trace of fewer threads
   * cannot show (tracesim-omp-cost measures a machine's); 0: nothing. */
  double omp_fork_cost, omp_barrier_cost;
  guint64 seed;                /* of TS_RESIDUAL_NOISE's draws */
  /* What-if rules applied to every rank's actions (bound and prepared); NULL: none. */
  const TsHypotheses *hypotheses;
  /* Called once the replay ended, before its predicted archive is written
   * (@replayed: e.g. to analyse its events and add wait-state metrics) or
   * discarded (not @replayed, @error NULL: what runs beside stops). */
  gboolean (*before_close) (TsArchiveWriter *writer, gboolean replayed, gpointer data,
                            GError **error);
  gpointer before_close_data;
  /* Called once, in this process, when the first simulation is about to
   * start (its platform and ranks checked, its archive writer, or NULL,
   * open) and the helper process that revisions replay in is forked:
   * threads that are to run beside the simulation are started here, since
   * forking a process with threads copies only the forking one (and
   * whatever locks the others held). */
  void (*beside) (TsArchiveWriter *writer, gpointer data);
  gpointer beside_data;
} TsReplayOptions;

typedef struct {
  guint n_ranks;
  double runtime;              /* predicted: latest rank end - earliest rank start */
  GArray *rank_end;            /* double per rank, from the common start */
  GArray *rank_time;           /* TsRankTime per rank */
  guint64 actions_replayed;
  guint64 simcalls;            /* actions that touched the simulated world */
  double *region_seconds;      /* per trace region: predicted inclusive seconds, all ranks */
  double *region_residual;     /* per trace region: the residual its calls were charged */
  guint n_regions;
  /* The replay deadlocked and was made again with revised choices
   * (sim/revise.c), this many times; the last one, in another process,
   * wrote the predicted archive. */
  guint revisions;
  /* The calibration's guessed envelopes deadlocked the replay, so receives
   * with guessed envelopes took their messages as they arrived instead. */
  gboolean guessed_as_arrived;
  /* Then receives of status-array envelopes (EZTrace's may be stale) too. */
  gboolean status_as_arrived;
  /* Pairs of ranks whose rendezvous sends deadlocked it, buffered instead. */
  guint buffered_pairs;
} TsReplayResult;

void ts_replay_options_init (TsReplayOptions *options);

/* Replay @trace. @calibration (clock offsets, inferred envelopes, call costs)
 * comes from ts_calibration_compute(). Fills @result (caller frees with
 * ts_replay_result_clear). On a deadlock the error names every blocked rank
 * and what it waits for. */
gboolean ts_replay_run (const TsTrace *trace, const TsCalibration *calibration,
                        const TsReplayOptions *options, TsReplayResult *result,
                        GError **error);
void ts_replay_result_clear (TsReplayResult *result);

/* Whether SimGrid accepts the configuration @options give it (--cfg items
 * and [network] hypotheses) and, if set, their platform file: it aborts on
 * an unknown key, a malformed value or a platform it cannot load, so this
 * tries them in a child process. Call it before writing anything; sets
 * @error with SimGrid's reason otherwise. */
/* One --cfg ITEM:VALUE: well formed, and within bounds for the numeric items
 * SimGrid accepts but cannot run with (bandwidth-factor 0, precision -1, a
 * stack of 1 KiB). */
gboolean ts_replay_check_cfg_item (const char *item, GError **error);
gboolean ts_replay_check_config (const TsReplayOptions *options, GError **error);

G_END_DECLS

#endif
