#include <config.h>

#include "model/output_dir.h"

#include "cli/commands.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *args;          /* after [OPTION…] in the usage line */
  const char *summary;       /* one line, in `tracesim help` */
  const char *description;   /* under the options: what the command writes */
} Command;

static const Command commands[] = {
  { "run", ts_cmd_run, "TRACE", "replay a trace on a platform and predict its timeline",
    "Writes into the output directory (replaced only if it holds tracesim's own outputs):\n"
    "  summary.json            original and predicted runtimes, per-rank ends, regions,\n"
    "                          wait states, and the inputs (trace, hypothesis files with\n"
    "                          their SHA-256, platform, options, tracesim version)\n"
    "  predicted/traces.otf2   the predicted timeline, with wait-state metrics\n"
    "  waitstates.csv          timeline,pattern,region,rank,seconds (not with --no-wait-states)\n"
    "  platform.xml            the platform calibrated from the trace (without -p)\n"
    "Nothing is written if the run fails. --json prints summary.json on standard output." },
  { "info", ts_cmd_info, "TRACE",
    "ranks, regions, MPI calls, events, span, message completeness",
    "Prints what the first pass learns of a trace: clocks, the network fit, the tree\n"
    "shape of its broadcasts, the top regions. --json prints the same as one JSON object." },
  { "calibrate", ts_cmd_calibrate, "TRACE",
    "write a cluster platform fitted to a trace's own timings",
    "Writes the SimGrid platform file given with -o: one host per rank, latency and\n"
    "bandwidth fitted to the trace's blocking receives." },
  { "platform", ts_cmd_platform, "-o FILE",
    "write a cluster platform described in a few words (nodes, cores, topology, network)",
    "Writes the SimGrid platform file given with -o (replaced only if tracesim wrote it):\n"
    "nodes of several cores on a flat, fat-tree, torus or dragonfly network, each node\n"
    "with a link to the network and a loopback link for messages between its own ranks.\n"
    "Network presets: ib-hdr, ib-ndr, 100gbe, 200gbe, slingshot, omni-path.\n"
    "--describe FILE says what any platform file holds. doc/platforms.md has the details." },
  { "sweep", ts_cmd_sweep, "FILE -o DIR",
    "many predictions from one trace (hypotheses x platforms x options), one table",
    "Writes into DIR: points/pNNNN/ (each point's run output) with pNNNN.key or pNNNN.error\n"
    "beside it, inputs/pNNNN/ (its filled hypothesis and platform), and results.csv (one row\n"
    "per point: its parameters, predicted_runtime_s, speedup, error). The trace's first pass\n"
    "is made once; running again computes only the points missing or changed.\n"
    "Exit status 1 when a point failed (its row says why). doc/sweeps.md has the format.\n"
    "--slurm runs point 0 here to measure a task and writes DIR/sweep.sbatch, a job array\n"
    "whose tasks run --point $SLURM_ARRAY_TASK_ID; --collect then writes the table." },
  { "hypotheses", ts_cmd_hypotheses, "check FILE... TRACE",
    "check hypothesis files against a trace (hypotheses check)",
    "  check FILE... TRACE     parse the files, bind them to the trace's regions and\n"
    "                          ranks, and show what each rule selects. Writes nothing.\n"
    "The format is in doc/hypotheses.md." },
  { "waitstates", ts_cmd_waitstates, "TRACE",
    "find the wait states of a trace without simulating",
    "Patterns, as Scalasca defines them (doc/waitstates.md):\n"
    "  late_sender, late_receiver, wait_nxn, wait_barrier, late_broadcast,\n"
    "  early_reduce, partitioned_late_sender, late_sender_wrong_order (a part of\n"
    "  late_sender), nxn_completion, barrier_completion, early_scan, init_completion,\n"
    "  finalize_wait, omp_barrier_wait (a rank's threads at their OpenMP team's\n"
    "  barriers, summed), omp_idle_threads (its other threads while it runs outside\n"
    "  its teams), omp_limited_parallelism (its threads a team leaves out),\n"
    "  omp_lock_contention (a thread waiting for an OpenMP lock or critical section)\n"
    "With -o FILE.csv, also writes timeline,pattern,region,rank,seconds; --json prints\n"
    "those rows as a JSON array instead of the table." },
  { "advise", ts_cmd_advise, "TRACE [-o DIR] [--factor F] [--top N] [-j N]",
    "which regions to optimise first: each made faster, each balanced, ranked by saving",
    "For the regions with the most exclusive compute (MPI calls excluded; --top, default\n"
    "10), predicts the whole run with that region alone made faster on every rank\n"
    "(--factor, default 0.5: 2x faster) and with it alone perfectly balanced (every rank\n"
    "the mean of each occurrence), and with the network made faster; prints one table\n"
    "ranked by the time saved, and where a speed-up saves little, the wait state the\n"
    "time moved into. It is a sweep (doc/sweeps.md): with -o, DIR keeps results.csv\n"
    "(region, change, predicted_runtime_s, saving_s...) and a run per point, and a rerun\n"
    "resumes. doc/advise.md explains the table." },
  { "report", ts_cmd_report, "DIR [--trace TRACE]",
    "draw DIR/report.html: one page to open in a browser, offline",
    "DIR is a run's output (tracesim run -o DIR; run --report draws it too): the\n"
    "timelines as traced and predicted on one time axis, the region of each pixel and\n"
    "the wait states hatched, where the waiting went, the regions before and after, and\n"
    "which ranks vary. Or a sweep's or advise's output: the changes ranked by saving,\n"
    "the plots and the table. One file, nothing fetched (doc/report.md). --from/--to\n"
    "draw a run's timelines over a window (\"--from 200ms --to 1.5s\")." },
  { "extrapolate", ts_cmd_extrapolate, "TRACE TRACE... --ranks P -o DIR",
    "predict the trace at P ranks from traces of the same program at a few rank counts",
    "Writes into DIR (replaced only if it holds tracesim's own outputs):\n"
    "  traces.otf2   the program at P ranks, an ordinary trace for run, sweep, waitstates\n"
    "  model.txt     the communication pattern and the fitted models (Extra-P's normal\n"
    "                form) with how far to trust each; --explain also prints it\n"
    "  model.json    the same as JSON\n"
    "Inputs that do not align, or whose partners follow no pattern, are refused with the\n"
    "evidence. doc/extrapolation.md says which programs this suits." },
  { "convert", ts_cmd_convert, "TRACE",
    "write a trace in another replay tool's format (SimGrid TI)",
    "--to ti writes DIR/traces.txt (the list smpirun -replay takes) and one file per rank\n"
    "in DIR/ranks/. Run smpirun from inside DIR: the list names the files relative to it." },
};

static const Command *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (name, commands[i].name) == 0)
      return &commands[i];
  return NULL;
}

GOptionContext *
ts_cmd_context (const char *name, const GOptionEntry *entries)
{
  g_autofree char *first = g_strdup (name);
  char *space = strchr (first, ' ');
  if (space)
    *space = '\0';
  const Command *c = find_command (first);
  g_return_val_if_fail (c != NULL, NULL);
  /* GLib's usage line is "PRGNAME [OPTION…] ARGS". */
  g_autofree char *prgname = g_strdup_printf ("tracesim %s", name);
  g_set_prgname (prgname);
  /* A subcommand's arguments follow its name in the table ("check FILE..."). */
  const char *args = space && strchr (c->args, ' ') ? strchr (c->args, ' ') + 1 : c->args;
  GOptionContext *ctx = g_option_context_new (args);
  g_option_context_set_summary (ctx, c->summary);
  g_autofree char *description = g_strconcat (c->description, "\n", NULL);
  g_option_context_set_description (ctx, description);
  if (entries)
    g_option_context_add_main_entries (ctx, entries, NULL);
  return ctx;
}

int
ts_cmd_fail (const char *cmd, GError *error)
{
  fprintf (stderr, "tracesim %s: %s\n", cmd, error ? error->message : "failed");
  g_clear_error (&error);
  return 1;
}

static void
usage (FILE *out)
{
  fprintf (out, "Usage: tracesim COMMAND [OPTION…] ARGS\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-11s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "  %-11s %s\n", "help", "describe a command: tracesim help COMMAND");
  fprintf (out, "\n'tracesim help COMMAND' or 'tracesim COMMAND --help' describes its options;\n"
                "'tracesim --version' prints the version.\n");
}

int
ts_cmd_usage_error (const char *cmd, const char *message)
{
  fprintf (stderr, "tracesim %s: %s\n", cmd, message);
  fprintf (stderr, "Try 'tracesim help %s'.\n", cmd);
  return 2;
}

gboolean
ts_cmd_cpu_time (gboolean cpu_time, gboolean wall_time, gboolean estimate, TsCpuTime *clock)
{
  *clock = cpu_time  ? TS_CPU_TIME_ON
           : wall_time ? TS_CPU_TIME_OFF
           : estimate  ? TS_CPU_TIME_LOAD
                       : TS_CPU_TIME_AUTO;
  return (cpu_time != 0) + (wall_time != 0) + (estimate != 0) <= 1;
}

int
ts_cmd_option_error (const char *cmd, GError *error)
{
  int status = ts_cmd_usage_error (cmd, error ? error->message : "bad option");
  g_clear_error (&error);
  return status;
}

/* Help text is UTF-8 ("[OPTION…]"): print it as such, whatever the locale's
 * charset, rather than let GLib turn the ellipsis into '?'. */
static void
print_utf8 (const gchar *text)
{
  fputs (text, stdout);
}

static int
help (int argc, char **argv)
{
  if (argc < 2)
    {
      usage (stdout);
      return 0;
    }
  const Command *c = find_command (argv[1]);
  if (!c)
    {
      fprintf (stderr, "tracesim help: unknown command '%s'\n", argv[1]);
      usage (stderr);
      return 2;
    }
  char *args[] = { argv[1], (char *) "--help", NULL };
  return c->run (2, args);
}

int
main (int argc, char **argv)
{
  g_set_print_handler (print_utf8);
  ts_output_dir_install_cleanup ();
  if (argc < 2)
    {
      usage (stderr);
      return 2;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      usage (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0 || strcmp (argv[1], "-V") == 0)
    {
      printf ("%s\n", PACKAGE_STRING);
      return 0;
    }
  if (strcmp (argv[1], "help") == 0)
    return help (argc - 1, argv + 1);
  const Command *c = find_command (argv[1]);
  if (c)
    return c->run (argc - 1, argv + 1);
  fprintf (stderr, "tracesim: unknown command '%s'\n", argv[1]);
  usage (stderr);
  return 2;
}
