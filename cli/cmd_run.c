#include <config.h>

#include "cli/commands.h"
#include "cli/report.h"
#include "calibrate/eager.h"
#include "pipeline/run.h"
#include "sim/replay.h"
#include "sim/units.h"

#include <errno.h>
#include <gio/gio.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

typedef struct {
  char *platform;
  char *output;
  char *hostfile;
  int ranks_per_node;
  char *placement;
  char *eager;             /* NULL: inferred from the trace (calibrate/eager.h) */
  char **cfg;
  gboolean quiet;
  double trace_speed;
  gboolean exact_cpu;
  gboolean cpu_time, wall_time, cpu_estimate;
  char **hypotheses;
  gboolean wait_regions;
  gboolean no_wait_states;
  gboolean report;
  gboolean json;
  char *binomial_tree;
  char *residual;
  gint64 seed;
  char *mpi_progress;
  char *mpi_wait, *omp_wait, *omp_costs;
} RunArgs;

static void
run_args_clear (RunArgs *a)
{
  g_free (a->platform);
  g_free (a->output);
  g_free (a->hostfile);
  g_free (a->placement);
  g_free (a->eager);
  g_strfreev (a->cfg);
  g_strfreev (a->hypotheses);
  g_free (a->binomial_tree);
  g_free (a->residual);
  g_free (a->mpi_progress);
  g_free (a->mpi_wait);
  g_free (a->omp_wait);
  g_free (a->omp_costs);
}

/* --omp-costs FORK,BARRIER: two durations (units as a platform's
 * latencies: 9us, 0.5ms, 2e-6). */
static gboolean
parse_omp_costs (const char *text, TsRunOptions *o, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", 3);
  double v[2];
  g_autofree char *why = NULL;
  if (g_strv_length (parts) != 2)
    why = g_strdup ("expected two durations, FORK,BARRIER");
  for (guint i = 0; !why && i < 2; i++)
    if ((why = ts_unit_parse (TS_UNIT_LATENCY, g_strstrip (parts[i]), &v[i])) == NULL
        && !(v[i] >= 0 && v[i] < 1))
      why = g_strdup_printf ("%s is not a duration from 0 to 1 s", parts[i]);
  if (why)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--omp-costs '%.40s': %s",
                   text, why);
      return FALSE;
    }
  o->omp_fork_cost = v[0];
  o->omp_barrier_cost = v[1];
  return TRUE;
}

/* --residual and --seed into @o; FALSE with @error on a bad value. */
static gboolean
residual_options (const RunArgs *a, TsRunOptions *o, GError **error)
{
  o->residual_given = a->residual != NULL;
  if (a->residual && !ts_residual_parse (a->residual, &o->residual))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--residual '%.40s': expected pinned, noise, none or scaled", a->residual);
      return FALSE;
    }
  if (a->seed < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--seed %" G_GINT64_FORMAT ": give a whole number, 0 or more", a->seed);
      return FALSE;
    }
  o->seed = (guint64) a->seed;
  o->mpi_progress_given = a->mpi_progress != NULL;
  if (a->mpi_progress && !ts_mpi_progress_parse (a->mpi_progress, &o->mpi_progress))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--mpi-progress '%.40s': expected in-calls or async", a->mpi_progress);
      return FALSE;
    }
  if (a->mpi_wait && !ts_mpi_wait_parse (a->mpi_wait, &o->mpi_wait))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--mpi-wait '%.40s': expected recorded, busy or blocking", a->mpi_wait);
      return FALSE;
    }
  if (a->omp_wait && strcmp (a->omp_wait, "active") != 0 && strcmp (a->omp_wait, "passive") != 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--omp-wait '%.40s': expected passive or active", a->omp_wait);
      return FALSE;
    }
  o->omp_active = g_strcmp0 (a->omp_wait, "active") == 0;
  return !a->omp_costs || parse_omp_costs (a->omp_costs, o, error);
}

/* The arguments as ts_run() takes them; FALSE with @error on a bad value. */
static gboolean
to_options (const RunArgs *a, const char *trace, TsRunOptions *o, GError **error)
{
  ts_run_options_init (o);
  o->trace = trace;
  o->output_dir = a->output;
  o->platform = a->platform;
  o->hostfile = a->hostfile;
  if (a->ranks_per_node < 0 || a->ranks_per_node > 1000000)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--ranks-per-node %d: give a whole number from 1 to 1000000", a->ranks_per_node);
      return FALSE;
    }
  o->ranks_per_node = a->ranks_per_node;
  o->placement_given = a->placement != NULL;
  if (a->placement && !ts_placement_parse (a->placement, &o->placement))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--placement '%.40s': block or cyclic", a->placement);
      return FALSE;
    }
  if (a->hostfile && (a->placement || a->ranks_per_node))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--hostfile places every rank itself: give it without --placement and "
                   "--ranks-per-node");
      return FALSE;
    }
  /* Checked here too (ts_run does), so that a malformed value is a usage
   * error (status 2) like the others. */
  for (guint i = 0; a->cfg && a->cfg[i]; i++)
    if (!ts_replay_check_cfg_item (a->cfg[i], error))
      return FALSE;
  if (!(a->trace_speed > 0 && isfinite (a->trace_speed)))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--trace-speed must be a positive, finite number of flop/s");
      return FALSE;
    }
  o->simgrid_cfg = (const char *const *) a->cfg;
  o->hypotheses = (const char *const *) a->hypotheses;
  o->trace_speed = a->trace_speed;
  o->exact_cpu = a->exact_cpu;
  if (!ts_cmd_cpu_time (a->cpu_time, a->wall_time, a->cpu_estimate, &o->cpu_time))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--cpu-time, --cpu-estimate and --wall-time: give one");
      return FALSE;
    }
  o->wait_regions = a->wait_regions;
  o->wait_states = !a->no_wait_states;
  o->report = a->report;
  o->progress = !a->quiet && isatty (STDERR_FILENO);
  if (a->eager)
    {
      guint64 bytes;
      if (!g_ascii_string_to_unsigned (a->eager, 10, 0, G_MAXINT64, &bytes, NULL))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--eager-threshold '%.40s': expected a number of bytes (0 or more)",
                       a->eager);
          return FALSE;
        }
      o->eager_given = TRUE;
      o->eager_threshold = bytes;
    }
  if (a->binomial_tree)
    {
      if (!ts_binomial_tree_parse (a->binomial_tree, &o->binomial_tree))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--binomial-tree '%s': expected mpich or openmpi", a->binomial_tree);
          return FALSE;
        }
      o->binomial_tree_given = TRUE;
    }
  return residual_options (a, o, error);
}

/* OUT/summary.json on standard output as it was written, byte for byte. */
static gboolean
print_summary (const char *output, GError **error)
{
  g_autofree char *path = g_build_filename (output, "summary.json", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  if (fwrite (text, 1, len, stdout) == len && fflush (stdout) == 0)
    return TRUE;
  int saved = errno;
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
               "cannot print %s on standard output: %s", path, g_strerror (saved));
  return FALSE;
}

static int
run (RunArgs *a, int argc, char **argv)
{
  GError *error = NULL;
  if (argc != 2)
    return ts_cmd_usage_error ("run", argc < 2 ? "no trace given (tracesim run TRACE -o DIR)"
                                                : "more than one trace given");
  if (!a->output || !*a->output)
    return ts_cmd_usage_error ("run", "no output directory given (-o DIR)");
  TsRunOptions o;
  if (!to_options (a, argv[1], &o, &error))
    return ts_cmd_option_error ("run", error);
  g_autoptr (TsRunResult) result = ts_run (&o, &error);
  if (!result)
    return ts_cmd_fail ("run", error);
  if (a->json && !print_summary (a->output, &error))
    return ts_cmd_fail ("run", error);
  /* Said even with -q: part of the trace was not used. */
  if (result->threads_note)
    fprintf (stderr, "tracesim run: %s\n", result->threads_note);
  if (!a->quiet && !a->json)
    ts_report_run (stdout, result);
  if (result->report_failure)
    {
      fprintf (stderr, "tracesim run: no report.html: %s (the run's outputs are written; "
                       "tracesim report %s draws it again)\n", result->report_failure, a->output);
      return 1;
    }
  return 0;
}

/* The options after the platform's: how the replay models what the trace
 * does not say (residual, MPI, OpenMP, the compute's clock) and what it
 * writes. GLib copies the entries. */
static void
add_model_entries (GOptionContext *ctx, RunArgs *a)
{
  const GOptionEntry entries[] = {
    { "residual", 0, 0, G_OPTION_ARG_STRING, &a->residual,
      "what the time an MPI call spent beyond its cost, its waiting and its transfer (a "
      "descheduled rank, noise) does: pinned (charged where the trace had it), scaled "
      "(follows each rank's work), noise (drawn from the rank's own detours, seeded), none "
      "(the run without noise). Default: pinned; scaled in a what-if of a trace whose ranks "
      "had cores of their own; none where --cpu-time or --cpu-estimate simulates shared cores",
      "MODE" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &a->seed,
      "seed of --residual noise's draws (default 0): the same seed, the same noise", "N" },
    { "mpi-progress", 0, 0, G_OPTION_ARG_STRING, &a->mpi_progress,
      "when a rendezvous message (above the eager threshold) moves: in-calls (once its "
      "receiver is inside an MPI call: Open MPI's and MPICH's default without a progress "
      "thread; default), async (as soon as both sides posted: a progress thread)", "MODE" },
    { "mpi-wait", 0, 0, G_OPTION_ARG_STRING, &a->mpi_wait,
      "how a rank waits in an MPI call on a core it shares with other ranks: recorded (it "
      "takes the share of a core the trace's MPI calls took, from their CPU time; default; "
      "blocking with --cpu-estimate, which assumed it), "
      "busy (a full share: a polling library) or blocking (none)", "MODE" },
    { "omp-wait", 0, 0, G_OPTION_ARG_STRING, &a->omp_wait,
      "how OpenMP threads wait on cores they share (OMP_WAIT_POLICY): passive (asleep; "
      "default) or active (spinning: each takes its share of a core)", "MODE" },
    { "omp-costs", 0, 0, G_OPTION_ARG_STRING, &a->omp_costs, "the OpenMP runtime's cost of "
      "a fork and of a barrier in teams a what-if grows (threads = N), e.g. 13us,8us: "
      "tracesim-omp-cost measures a machine's (default 0,0)", "FORK,BARRIER" },
    { "cpu-time", 0, 0, G_OPTION_ARG_NONE, &a->cpu_time,
      "compute takes the trace's CPU time, not its wall time: a trace recorded with more "
      "ranks than cores (tracesim-record --cpu-time) replays as if each rank had a core "
      "(the default where the trace says its nodes had fewer cores than ranks and has it)", NULL },
    { "cpu-estimate", 0, 0, G_OPTION_ARG_NONE, &a->cpu_estimate,
      "compute takes its wall time times the share of a core its node's load left it (the "
      "ranks in compute over the node's cores, as the trace shows them; ranks waiting in MPI "
      "calls taken to leave their core): the default where the trace says its nodes had fewer "
      "cores than ranks and has no CPU time", NULL },
    { "wall-time", 0, 0, G_OPTION_ARG_NONE, &a->wall_time,
      "compute takes the trace's wall time, even where --cpu-time would be the default", NULL },
    { "wait-regions", 0, 0, G_OPTION_ARG_NONE, &a->wait_regions,
      "nest a region named after each wait-state pattern inside the MPI call for its waiting "
      "span, in the predicted timeline", NULL },
    { "no-wait-states", 0, 0, G_OPTION_ARG_NONE, &a->no_wait_states,
      "skip the wait-state analysis of both executions (replay only: no waitstates.csv, no "
      "metrics)", NULL },
    { "report", 0, 0, G_OPTION_ARG_NONE, &a->report,
      "also write OUT/report.html: the timelines as traced and predicted, where the waiting "
      "went, which ranks vary (doc/report.md)", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a->json,
      "print OUT/summary.json on standard output instead of the summary (progress and "
      "messages go to standard error)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet, "print no summary or progress", NULL },
    { NULL }
  };
  g_option_context_add_main_entries (ctx, entries, NULL);
}

int
ts_cmd_run (int argc, char **argv)
{
  RunArgs a = { .trace_speed = 1e9 };
  const GOptionEntry entries[] = {
    { "platform", 'p', 0, G_OPTION_ARG_FILENAME, &a.platform,
      "SimGrid platform XML (default: a cluster calibrated from the trace)", "FILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &a.output, "output directory (required)", "DIR" },
    { "hostfile", 0, 0, G_OPTION_ARG_FILENAME, &a.hostfile,
      "host of each rank, one name per line (default: block mapping)", "FILE" },
    { "ranks-per-node", 0, 0, G_OPTION_ARG_INT, &a.ranks_per_node,
      "ranks on each node (default: one per core)", "N" },
    { "placement", 0, 0, G_OPTION_ARG_STRING, &a.placement,
      "how ranks fill the nodes: block (default: 0..N-1 on the first) or cyclic (one per "
      "node in turn)", "block|cyclic" },
    { "eager-threshold", 0, 0, G_OPTION_ARG_STRING, &a.eager,
      "messages smaller than this do not wait for the receiver (default: inferred from the "
      "trace, " G_STRINGIFY (TS_EAGER_DEFAULT_THRESHOLD) " without evidence)", "BYTES" },
    { "binomial-tree", 0, 0, G_OPTION_ARG_STRING, &a.binomial_tree,
      "shape of the binomial trees of broadcasts and reductions: mpich or openmpi (default: "
      "the one the trace shows, see tracesim info)", "NAME" },
    { "cfg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.cfg,
      "SimGrid configuration item, e.g. network/model:LV08 (repeatable)", "ITEM:VALUE" },
    { "hypothesis", 'H', 0, G_OPTION_ARG_FILENAME_ARRAY, &a.hypotheses,
      "what-if hypothesis file (repeatable: applied in order; see doc/hypotheses.md)", "FILE" },
    { "trace-speed", 0, 0, G_OPTION_ARG_DOUBLE, &a.trace_speed,
      "flop rate of a core of the traced machine (default 1e9): faster hosts compute faster",
      "FLOPS" },
    { "exact-cpu", 0, 0, G_OPTION_ARG_NONE, &a.exact_cpu, "model every compute burst as a "
      "SimGrid execution, even on unshared cores (needed with host speed profiles)", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("run", entries);
  add_model_entries (ctx, &a);
  GError *error = NULL;
  int status = g_option_context_parse (ctx, &argc, &argv, &error)
                 ? run (&a, argc, argv)
                 : ts_cmd_option_error ("run", error);
  run_args_clear (&a);
  return status;
}
