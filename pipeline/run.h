/* The whole prediction as one library call: read a trace, calibrate it,
 * apply hypotheses, replay it on a platform, find the wait states of both
 * executions, and write the output directory. `tracesim run` parses options
 * into TsRunOptions and prints the result; sweeps and extrapolation call the
 * same function.
 *
 * Phases, each timed under G_MESSAGES_DEBUG=ts-run: definitions, calibration,
 * hypotheses, platform, eager threshold, replay (with the predicted wait
 * states), original wait states, outputs. */
#ifndef TS_RUN_H
#define TS_RUN_H

#include <glib.h>
#include "calibrate/binomial.h"
#include "sim/replay.h"
#include "output/result.h"

G_BEGIN_DECLS

/* What every prediction from one trace shares: its definitions, the first
 * pass (calibration) and the original execution's wait states. A sweep
 * computes them once and hands them to each point's ts_run(). */
typedef struct TsRunShared TsRunShared;

/* Where compute bursts take their length from (TsRunOptions.cpu_time):
 * the trace's wall time, its CPU time (run --cpu-time), or, unless the user
 * says, the CPU time of a recording that time-shared its cores and has it
 * (ts_run_cpu_time_chosen), the wall time otherwise. FALSE and TRUE stand
 * for the first two. */
typedef enum {
  TS_CPU_TIME_OFF = FALSE,
  TS_CPU_TIME_ON = TRUE,
  TS_CPU_TIME_AUTO,
  TS_CPU_TIME_LOAD,  /* estimated from the nodes' load (--cpu-estimate, model/node-load.h) */
} TsCpuTime;

typedef struct {
  const char *trace;             /* anchor file; required */
  const char *output_dir;        /* required; replaced only if it is tracesim's own */
  const char *platform;          /* SimGrid XML; NULL: a cluster calibrated from the trace */
  const char *hostfile;          /* host per rank; NULL: placement */
  guint ranks_per_node;          /* 0: one rank per core */
  TsPlacement placement;         /* without a hostfile */
  gboolean placement_given;      /* FALSE: block, or as traced where the trace tells */
  gboolean eager_given;          /* FALSE: infer the eager threshold from the trace */
  guint64 eager_threshold;       /* bytes, when given */
  const char *const *simgrid_cfg; /* "ITEM:VALUE" items, NULL-terminated; may be NULL */
  const char *const *hypotheses; /* hypothesis files in order, NULL-terminated; may be NULL */
  double trace_speed;            /* flops per CPU second of the trace (1e9) */
  gboolean exact_cpu;
  /* Compute bursts take the trace's CPU time metric, not their wall time
   * (ts_trace_set_compute_clock): a trace recorded with more ranks than
   * cores. With @shared, ON and OFF must be what the first pass was made
   * with, and AUTO takes the first pass's. */
  TsCpuTime cpu_time;
  gboolean wait_states;          /* analyse both executions (TRUE) */
  /* Write no predicted archive (OUT/predicted): for callers that want the
   * numbers only (tracesim info). Ignored with wait_states, which are
   * found in the archive. */
  gboolean no_archive;
  gboolean wait_regions;         /* nest a region per pattern in the predicted archive */
  gboolean binomial_tree_given;  /* FALSE: the tree shape the trace shows */
  TsBinomialTree binomial_tree;
  TsResidual residual;           /* what MPI calls' residual does (TS_RESIDUAL_PINNED) */
  gboolean residual_given;       /* FALSE: the hypotheses' [residual] mode, if any, decides */
  guint64 seed;                  /* of TS_RESIDUAL_NOISE (0) */
  TsMpiProgress mpi_progress;    /* how rendezvous messages move (TS_MPI_PROGRESS_IN_CALLS) */
  gboolean mpi_progress_given;   /* FALSE: the hypotheses' [mpi] progress, if any, decides */
  TsMpiWait mpi_wait;            /* how a rank waits on a shared core (TS_MPI_WAIT_BUSY) */
  gboolean omp_active;           /* team threads spin while they wait (--omp-wait active) */
  double omp_fork_cost;          /* seconds, TsReplayOptions' (--omp-costs; 0) */
  double omp_barrier_cost;
  gboolean report;               /* also write OUT/report.html (output/html-report.h) */
  gboolean progress;             /* progress bar on stderr */
  /* The trace's shared first pass (ts_run_shared_new() of the same trace),
   * or NULL: computed for this run. Not modified; must outlive the run. */
  const TsRunShared *shared;
} TsRunOptions;

void ts_run_options_init (TsRunOptions *options);

/* Open @trace and make its first pass, and with @wait_states its original
 * wait states, taking compute from its CPU time with @cpu_time (as run
 * --cpu-time); NULL and @error as ts_run() would fail. Free with
 * ts_run_shared_free(). */
TsRunShared *ts_run_shared_new (const char *trace, gboolean wait_states, TsCpuTime cpu_time,
                                GError **error);
void ts_run_shared_free (TsRunShared *shared);
/* Whether TS_CPU_TIME_AUTO takes @trace's CPU time: it says a node held
 * more ranks than cores, and it has the CPU time to replay them as if
 * each had one, time-shared as recorded; never for a trace with threads
 * beyond the ranks' own (their work is wall time: doc/threads.md). */
gboolean ts_run_cpu_time_chosen (const TsTrace *trace);
/* Whether run, unless told, estimates @trace's CPU time from its nodes'
 * load: a trace that says it time-shared its nodes' cores, with no CPU
 * time and no threads (TS_CPU_TIME_LOAD). */
gboolean ts_run_load_estimate_chosen (const TsTrace *trace);
/* The share of their fair share of the cores at which MPI calls are taken
 * to have polled: between Open MPI's yielding waits (0.3-0.5) and MPICH's
 * polling ones (0.99-1.0). */
#define TS_RUN_POLLED_SHARE 0.8
/* Whether the run took the wall time because the MPI calls polled on
 * shared cores (pipeline/first-pass.c, polled()): only then is the share
 * measured and the CPU time not taken. */
static inline gboolean
ts_run_polled (const TsRunInputs *in)
{
  return !in->cpu_time && in->calls_fair_share >= TS_RUN_POLLED_SHARE;
}
/* What the residual does where neither --residual nor the hypotheses say
 * (pipeline/run.c, residual_mode): in a replay that shares the cores
 * (@shares_cores), in an identity replay or a changed one (@changed). */
TsResidual ts_run_default_residual (const TsTrace *trace, gboolean shares_cores, gboolean changed);
/* The opened trace and its first pass, owned by @shared. */
const TsTrace *ts_run_shared_trace (const TsRunShared *shared);
const TsCalibration *ts_run_shared_calibration (const TsRunShared *shared);
/* What a result computed from @trace depends on, as text that changes when
 * it does: the trace's files as they are now (anchor, global definitions,
 * the archive's directory: names, sizes, modification times) and the
 * version of tracesim. Caller frees. */
char *ts_run_trace_state (const char *trace);

/* The first pass, kept in the file @cache (pipeline/first-pass.c): read from it
 * when it holds this trace's first pass as it is now (its files' sizes and
 * times, tracesim's version), else computed and written there for the next
 * caller. Callers sharing @cache at once (a Slurm array's tasks) take turns:
 * one computes, the others read. *@loaded says which happened, and *@note
 * (caller frees) in a line for the user. A cache that cannot be written is
 * said in @note, not an error: the first pass is still returned. */
TsRunShared *ts_run_shared_cached (const char *trace, gboolean wait_states, TsCpuTime cpu_time,
                                   const char *cache, gboolean *loaded, char **note,
                                   GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsRunShared, ts_run_shared_free)

/* Predict the run @options describe and write its output directory. Returns
 * the result (caller frees), or NULL with @error set (naming the file, rank
 * or event at fault) and nothing written. */
TsRunResult *ts_run (const TsRunOptions *options, GError **error);

G_END_DECLS

#endif
