/* ts-tracegen: write OTF2 traces for tests and benchmarks.
 *
 *   ts-tracegen script FILE -o DIR [--name NAME]
 *   ts-tracegen stencil -o DIR --ranks N --iterations K [--compute S]
 *               [--imbalance F] [--bytes B] [--allreduce-every M]
 *   ts-tracegen grid -o DIR --ranks N --iterations K [--dims D] [--open] [--largest-last]
 *               [--strong] [--compute S] [--imbalance F] [--bytes B]
 *               [--diagonal [--edge-bytes B] [--corner-bytes B]] [--allreduce-every M]
 *   ts-tracegen partitioned -o DIR [--variant nls|fls|vls] [--send-partitions S]
 *               [--recv-partitions R] [--reps N] [--delay SECONDS] [--bytes B]
 *
 * The archive's anchor file is DIR/NAME.otf2 (NAME defaults to "traces").
 * Exit status 0 on success, 1 on any error (nothing is left at DIR then). */
#include <config.h>

#define G_LOG_DOMAIN "ts-tracegen"

#include "tools/tracegen/script.h"
#include "tools/tracegen/stencil.h"
#include "tools/tracegen/grid.h"
#include "tools/tracegen/partitioned.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *output;
  char *name;
  int ranks;
  int iterations;
  double compute;
  double imbalance;
  gint64 bytes;
  int allreduce_every;
  int dims;
  gboolean open, strong, largest_last, diagonal;
  double boundary;
  gint64 edge_bytes, corner_bytes;
} TsGenOptions;

/* An integer option left out. */
#define NOT_GIVEN G_MININT64

static const char usage[] =
  "Usage: ts-tracegen COMMAND [OPTION…]\n"
  "\n"
  "Write an OTF2 trace archive (anchor file DIR/NAME.otf2).\n"
  "\n"
  "Commands:\n"
  "  script FILE -o DIR       the trace described by a trace script\n"
  "                           (format: tools/tracegen/script.h)\n"
  "  stencil -o DIR --ranks N --iterations K\n"
  "                           a halo-exchange benchmark workload\n"
  "  grid -o DIR --ranks N --iterations K [--dims D] [--open] [--largest-last] [--strong]\n"
  "       [--diagonal]        a halo exchange on a process grid (faces, or a 9-/27-point\n"
  "                           stencil)\n"
  "  partitioned -o DIR --variant nls|fls|vls\n"
  "                           seed 000's partitioned Late Sender test\n"
  "\n"
  "Run `ts-tracegen COMMAND --help` for the options of a command.\n";

static GOptionContext *
command_context (const char *parameter, const char *summary, TsGenOptions *o,
                 const GOptionEntry *extra)
{
  const GOptionEntry common[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output,
      "Directory to write the archive to (required)", "DIR" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &o->name,
      "Archive name: the anchor file is DIR/NAME.otf2 (default: traces)", "NAME" },
    { NULL }
  };
  GOptionContext *ctx = g_option_context_new (parameter);
  g_option_context_set_summary (ctx, summary);
  g_option_context_add_main_entries (ctx, common, NULL);
  if (extra)
    g_option_context_add_main_entries (ctx, extra, NULL);
  return ctx;
}

static int
report (GError *error)
{
  g_printerr ("ts-tracegen: %s\n", error->message);
  g_error_free (error);
  return EXIT_FAILURE;
}

static int
cmd_script (int argc, char **argv, TsGenOptions *o)
{
  GError *error = NULL;
  g_autoptr (GOptionContext) ctx =
    command_context ("FILE", "Write the trace described by the trace script FILE.", o, NULL);
  g_set_prgname ("ts-tracegen script");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return report (error);
  if (argc != 2 || !o->output)
    {
      g_printerr ("ts-tracegen script: expected one script FILE and -o DIR\n");
      return EXIT_FAILURE;
    }
  if (!ts_script_load_file (argv[1], o->output, o->name ? o->name : "traces", &error))
    return report (error);
  return EXIT_SUCCESS;
}

static int
cmd_partitioned (int argc, char **argv, TsGenOptions *o)
{
  GError *error = NULL;
  TsPartParams p;
  ts_part_params_init (&p);
  char *variant = NULL;
  int send = (int) p.send_partitions, recv = (int) p.recv_partitions, reps = (int) p.reps;
  gint64 bytes = (gint64) p.bytes;
  const GOptionEntry entries[] = {
    { "variant", 0, 0, G_OPTION_ARG_STRING, &variant, "nls, fls or vls (default: fls)", "V" },
    { "send-partitions", 0, 0, G_OPTION_ARG_INT, &send, "Send partitions (default: 2)", "S" },
    { "recv-partitions", 0, 0, G_OPTION_ARG_INT, &recv, "Receive partitions (default: 2)", "R" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "Rounds (default: 1)", "N" },
    { "delay", 0, 0, G_OPTION_ARG_DOUBLE, &p.delay,
      "Seconds of the nls / fls / vls delay (default: 0.1)", "SECONDS" },
    { "bytes", 0, 0, G_OPTION_ARG_INT64, &bytes, "Message size (default: 64)", "B" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = command_context (
    "", "Write seed 000's partitioned Late Sender test (NLS, FLS or VLS) for two ranks.", o,
    entries);
  g_set_prgname ("ts-tracegen partitioned");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return report (error);
  g_autofree char *v = variant;
  if (argc != 1 || !o->output || send < 1 || recv < 1 || reps < 1 || bytes < 1
      || (v && strcmp (v, "nls") != 0 && strcmp (v, "fls") != 0 && strcmp (v, "vls") != 0))
    {
      g_printerr ("ts-tracegen partitioned: give -o DIR, --variant nls|fls|vls and positive "
                  "counts\n");
      return EXIT_FAILURE;
    }
  p.variant = !v || strcmp (v, "fls") == 0 ? TS_PART_FLS
              : strcmp (v, "nls") == 0 ? TS_PART_NLS : TS_PART_VLS;
  p.send_partitions = send;
  p.recv_partitions = recv;
  p.reps = reps;
  p.bytes = bytes;
  if (!ts_part_write (&p, o->output, o->name ? o->name : "traces", &error))
    return report (error);
  return EXIT_SUCCESS;
}

/* The options stencil and grid share: NULL if they are fine, else what is wrong. */
static const char *
check_workload_options (int argc, const TsGenOptions *o)
{
  if (argc != 1)
    return "unexpected argument";
  if (!o->output)
    return "-o DIR is required";
  if (o->ranks < 1)
    return "--ranks N (N >= 1) is required";
  if (o->iterations < 0)
    return "--iterations K (K >= 0) is required";
  if (o->bytes < 0)
    return "--bytes must be >= 0";
  if (o->allreduce_every < 0)
    return "--allreduce-every must be >= 0";
  return NULL;
}

/* Parse and check the options of workload command @prgname: -1 when they
 * are fine, else the exit status (the error printed). */
static int
parse_workload (GOptionContext *ctx, const char *prgname, int argc, char **argv,
                const TsGenOptions *o)
{
  GError *error = NULL;
  g_set_prgname (prgname);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return report (error);
  const char *bad = check_workload_options (argc, o);
  if (!bad)
    return -1;
  g_printerr ("%s: %s\n", prgname, bad);
  return EXIT_FAILURE;
}

/* The options of a halo-exchange workload (stencil, grid), and @extra. */
static GOptionContext *
workload_context (const char *summary, TsGenOptions *o, const GOptionEntry *extra)
{
  const GOptionEntry workload[] = {
    { "ranks", 0, 0, G_OPTION_ARG_INT, &o->ranks, "Number of ranks (required)", "N" },
    { "iterations", 0, 0, G_OPTION_ARG_INT, &o->iterations,
      "Number of iterations (required)", "K" },
    { "compute", 0, 0, G_OPTION_ARG_DOUBLE, &o->compute,
      "Seconds of compute_kernel per iteration (default: 1e-3)", "SECONDS" },
    { "imbalance", 0, 0, G_OPTION_ARG_DOUBLE, &o->imbalance,
      "Rank 0 computes F times longer (default: 1.0)", "F" },
    { "bytes", 0, 0, G_OPTION_ARG_INT64, &o->bytes,
      "Size of each halo message (default: 4096)", "B" },
    { "allreduce-every", 0, 0, G_OPTION_ARG_INT, &o->allreduce_every,
      "An 8-byte MPI_Allreduce every M iterations, 0 for none (default: 10)", "M" },
    { NULL }
  };
  GOptionContext *ctx = command_context ("", summary, o, workload);
  if (extra)
    g_option_context_add_main_entries (ctx, extra, NULL);
  return ctx;
}

static int
cmd_stencil (int argc, char **argv, TsGenOptions *o)
{
  GError *error = NULL;
  g_autoptr (GOptionContext) ctx = workload_context (
    "Write a 1-D periodic halo exchange (Irecv, Isend, Waitall) with a periodic "
    "Allreduce.", o, NULL);
  int status = parse_workload (ctx, "ts-tracegen stencil", argc, argv, o);
  if (status >= 0)
    return status;

  TsStencilParams params;
  ts_stencil_params_init (&params);
  params.n_ranks = o->ranks;
  params.iterations = o->iterations;
  params.compute = o->compute;
  params.imbalance = o->imbalance;
  params.bytes = o->bytes;
  params.allreduce_every = o->allreduce_every;
  if (!ts_stencil_write (&params, o->output, o->name ? o->name : "traces", &error))
    return report (error);
  return EXIT_SUCCESS;
}

static int
cmd_grid (int argc, char **argv, TsGenOptions *o)
{
  GError *error = NULL;
  const GOptionEntry entries[] = {
    { "dims", 0, 0, G_OPTION_ARG_INT, &o->dims, "Dimensions of the grid, 1 to 3 (default: 2)",
      "D" },
    { "open", 0, 0, G_OPTION_ARG_NONE, &o->open, "Open boundaries (default: periodic)", NULL },
    { "largest-last", 0, 0, G_OPTION_ARG_NONE, &o->largest_last,
      "The grid takes MPI_Dims_create's factors largest last (a column-major numbering)",
      NULL },
    { "boundary-factor", 0, 0, G_OPTION_ARG_DOUBLE, &o->boundary,
      "Ranks at an end of an open dimension compute F times as long (default: 1.0)", "F" },
    { "strong", 0, 0, G_OPTION_ARG_NONE, &o->strong,
      "Strong scaling: --compute and --bytes are the whole problem's, --bytes a global face "
      "(default: weak)", NULL },
    { "diagonal", 0, 0, G_OPTION_ARG_NONE, &o->diagonal,
      "Diagonal neighbours too: a 9-point (2-D) or 27-point (3-D) stencil", NULL },
    { "edge-bytes", 0, 0, G_OPTION_ARG_INT64, &o->edge_bytes,
      "--diagonal: size of a message to an edge neighbour of a 3-D grid (strong: a global "
      "edge) (default: 256)", "B" },
    { "corner-bytes", 0, 0, G_OPTION_ARG_INT64, &o->corner_bytes,
      "--diagonal: size of a message to a corner neighbour (default: 16)", "B" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = workload_context (
    "Write a halo exchange with every face neighbour of a Cartesian process grid, or every "
    "neighbour with --diagonal (Irecv, Isend, Waitall), with a periodic Allreduce "
    "(tools/tracegen/grid.h).",
    o, entries);
  int status = parse_workload (ctx, "ts-tracegen grid", argc, argv, o);
  if (status >= 0)
    return status;
  TsGridParams params;
  ts_grid_params_init (&params);
  params.n_ranks = o->ranks;
  params.n_dims = o->dims;
  params.open = o->open;
  params.largest_last = o->largest_last;
  params.strong = o->strong;
  params.boundary = o->boundary;
  params.iterations = o->iterations;
  params.compute = o->compute;
  params.imbalance = o->imbalance;
  params.bytes = o->bytes;
  params.diagonal = o->diagonal;
  /* NOT_GIVEN: the defaults of ts_grid_params_init. */
  if ((o->edge_bytes < 0 && o->edge_bytes != NOT_GIVEN)
      || (o->corner_bytes < 0 && o->corner_bytes != NOT_GIVEN))
    {
      g_printerr ("ts-tracegen grid: --edge-bytes and --corner-bytes must be >= 0\n");
      return EXIT_FAILURE;
    }
  if (o->edge_bytes != NOT_GIVEN)
    params.edge_bytes = (guint64) o->edge_bytes;
  if (o->corner_bytes != NOT_GIVEN)
    params.corner_bytes = (guint64) o->corner_bytes;
  params.allreduce_every = o->allreduce_every;
  if (!ts_grid_write (&params, o->output, o->name ? o->name : "traces", &error))
    return report (error);
  return EXIT_SUCCESS;
}

int
main (int argc, char **argv)
{
  TsStencilParams defaults;
  ts_stencil_params_init (&defaults);
  TsGenOptions o = {
    .ranks = -1,
    .iterations = -1,
    .compute = defaults.compute,
    .imbalance = defaults.imbalance,
    .bytes = (gint64) defaults.bytes,
    .allreduce_every = (int) defaults.allreduce_every,
    .dims = 2,
    .boundary = 1.0,
    .edge_bytes = NOT_GIVEN,
    .corner_bytes = NOT_GIVEN,
  };
  int status;

  /* GLib's messages (e.g. file errors) are UTF-8 and need the locale to print. */
  setlocale (LC_ALL, "");
  if (argc >= 2 && strcmp (argv[1], "script") == 0)
    status = cmd_script (argc - 1, argv + 1, &o);
  else if (argc >= 2 && strcmp (argv[1], "stencil") == 0)
    status = cmd_stencil (argc - 1, argv + 1, &o);
  else if (argc >= 2 && strcmp (argv[1], "grid") == 0)
    status = cmd_grid (argc - 1, argv + 1, &o);
  else if (argc >= 2 && strcmp (argv[1], "partitioned") == 0)
    status = cmd_partitioned (argc - 1, argv + 1, &o);
  else if (argc == 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      fputs (usage, stdout);
      status = EXIT_SUCCESS;
    }
  else
    {
      if (argc >= 2)
        g_printerr ("ts-tracegen: unknown command '%s'\n", argv[1]);
      fputs (usage, stderr);
      status = EXIT_FAILURE;
    }
  g_free (o.output);
  g_free (o.name);
  return status;
}
