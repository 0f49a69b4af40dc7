/* What one prediction produced, as the outputs (summary.json, the printed
 * summary, sweep tables) read it: plain numbers and names, no handle on the
 * trace, the calibration or the simulation that computed them.
 *
 * ts_run() (pipeline/run.h) fills it; output/ writes it. Everything in it
 * belongs to the result; free with ts_run_result_free(). */
#ifndef TS_RESULT_H
#define TS_RESULT_H

#include <glib.h>
#include "analysis/waitstates.h"
#include "calibrate/calibration.h"
#include "sim/replay.h"

G_BEGIN_DECLS

/* One region of the trace with at least one visit: inclusive seconds over
 * all ranks, before and after. */
typedef struct {
  char *name;
  guint64 visits;
  double original_s;
  double predicted_s;
  double residual_s;    /* of its MPI calls, charged by the replay (TsRankTime) */
  gboolean what_if;     /* a [region:...] rule of the what-if selects it */
} TsRegionResult;

/* A hypothesis file as it was read: its path and the SHA-256 of its bytes,
 * so that two output directories can be told apart. */
typedef struct {
  char *path;
  char *sha256;
} TsInputFile;

/* The inputs of a run as summary.json records them. */
typedef struct {
  char *trace;               /* the trace's anchor path as given */
  GArray *hypotheses;        /* TsInputFile, in the order applied */
  TsInputFile platform;      /* path NULL: calibrated from the trace */
  char *hostfile;            /* NULL: placement */
  guint ranks_per_node;      /* 0: one rank per core */
  const char *placement;     /* "block" or "cyclic" (static string) */
  gboolean eager_inferred;   /* eager threshold taken from the trace */
  double trace_speed;
  gboolean exact_cpu;
  gboolean cpu_time;         /* compute from the trace's CPU time (--cpu-time) */
  gboolean cpu_estimated;    /* that CPU time estimated from the nodes' load (--cpu-estimate) */
  /* What the MPI calls took of their fair share of the cores, where the
   * CPU time gives it, else NAN; from 0.8 on they polled, and compute is
   * the wall time unless asked (pipeline/first-pass.c). */
  double calls_fair_share;
  gboolean wait_states;
  gboolean wait_regions;
  gboolean binomial_tree_given;
  const char *residual;      /* ts_residual_name (static string) */
  const char *mpi_progress;  /* ts_mpi_progress_name (static string) */
  const char *mpi_wait;      /* ts_mpi_wait_name (static string) */
  gboolean omp_active;       /* OpenMP threads wait spinning (--omp-wait active) */
  double omp_fork_cost, omp_barrier_cost; /* seconds (--omp-costs) */
  /* The calibrated cluster has the trace's cores, fewer than the ranks on a
   * node: the replay time-shares them as the recording did. */
  gboolean shared_cores;
  guint64 seed;
  char **simgrid_cfg;        /* ITEM:VALUE items, NULL-terminated; may be NULL */
} TsRunInputs;

typedef struct {
  TsRunInputs inputs;
  guint n_ranks;
  double original_runtime;
  double *original_rank_end;   /* n_ranks */
  double *clock_offset;        /* n_ranks */
  TsClockAlignment clocks;
  double predicted_runtime;
  double *predicted_rank_end;  /* n_ranks */
  TsRankTime *predicted_rank_time; /* n_ranks: work, simulated, residual */
  guint64 eager_threshold;
  TsBinomialTree binomial_tree;
  GArray *regions;             /* TsRegionResult, in trace order */
  gboolean has_wait_states;
  double wait_original[TS_WAIT_N_PATTERNS];   /* seconds, all ranks */
  double wait_predicted[TS_WAIT_N_PATTERNS];
  TsMessageInfo messages;      /* MPI calls by what the trace recorded of them */
  guint64 actions_replayed;
  guint64 simcalls;
  /* Receives the trace recorded without their envelope (EZTrace's irecvs),
   * whose messages the calibration guessed; and whether those guesses
   * deadlocked the replay, so that the receives took their messages as they
   * arrived instead. */
  guint guessed_receives;
  /* Receives whose envelope a status array gave (EZTrace's may be stale):
   * revised with the guessed ones. */
  guint status_receives;
  gboolean guessed_taken_as_arrived;
  gboolean status_taken_as_arrived;   /* and those of status_receives */
  /* Replays made again with revised choices after a deadlock, and the
   * pairs of ranks whose rendezvous sends they buffered (sim/revise.c). */
  guint revisions;
  guint buffered_pairs;
  /* The trace's threads (model/threads.h): all ranks' CPU-thread
   * locations, of which each rank's own is replayed; the events of the
   * others; and the sentence saying so (NULL: every location is a rank's). */
  guint threads;
  guint64 thread_events_unreplayed;
  char *threads_note;
  double wall_s;
  glong max_rss_kib;
  /* The output directory as given, and the names written in it, relative
   * to it, in the order written (e.g. "summary.json"). */
  char *output_dir;
  GPtrArray *written;
  /* Why the report asked for (run --report) is missing, or NULL: the run's
   * outputs are written without it. */
  char *report_failure;
} TsRunResult;

TsRunResult *ts_run_result_new (guint n_ranks);
void ts_run_result_free (TsRunResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsRunResult, ts_run_result_free)

/* The predicted time of all ranks by kind (TsRankTime summed). */
TsRankTime ts_run_result_time (const TsRunResult *result);
/* Up to @max regions (TsRegionResult*) with a residual, largest first:
 * the calls that carry it. Free with g_ptr_array_unref; the items are the
 * result's. */
GPtrArray *ts_run_result_residual_calls (const TsRunResult *result, guint max);

/* Original / predicted runtime, 0 where the prediction took no time. */
double ts_run_result_speedup (const TsRunResult *result);

G_END_DECLS

#endif
