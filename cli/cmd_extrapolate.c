#include <config.h>

#include "cli/commands.h"
#include "extrap/extrapolate.h"

#include <stdio.h>

static double
change (double predicted, double real)
{
  return real != 0 ? 100 * (predicted / real - 1) : 0;
}

/* The output against a real trace at the same rank count. */
static gboolean
compare (const char *output, const char *real, gboolean cpu_time, GError **error)
{
  g_autofree char *anchor = g_build_filename (output, "traces.otf2", NULL);
  TsExtrapComparison c;
  if (!ts_extrap_compare (anchor, real, cpu_time ? TS_COMPUTE_CPU : TS_COMPUTE_WALL, &c, error))
    return FALSE;
  printf ("compared with %s (%u ranks):\n", real, c.ranks);
  printf ("  partners    the same on %u of %u ranks\n", c.same_partners, c.ranks);
  printf ("  messages    %" G_GUINT64_FORMAT " predicted, %" G_GUINT64_FORMAT " real (%+.1f%%); "
          "as many to each partner on %u of %u ranks\n", c.messages[0], c.messages[1],
          change ((double) c.messages[0], (double) c.messages[1]), c.same_messages, c.ranks);
  printf ("  bytes       %" G_GUINT64_FORMAT " predicted, %" G_GUINT64_FORMAT " real (%+.1f%%)\n",
          c.bytes[0], c.bytes[1], change ((double) c.bytes[0], (double) c.bytes[1]));
  printf ("  collectives as many calls and bytes for %u of %u operations; %" G_GUINT64_FORMAT
          " calls predicted, %" G_GUINT64_FORMAT " real; %" G_GUINT64_FORMAT " bytes predicted, %"
          G_GUINT64_FORMAT " real (%+.1f%%)\n", c.same_collectives, c.collective_ops,
          c.collective_calls[0], c.collective_calls[1], c.collective_bytes[0], c.collective_bytes[1],
          change ((double) c.collective_bytes[0], (double) c.collective_bytes[1]));
  printf ("  compute     %.6f s predicted, %.6f s real (%+.1f%%), all ranks\n", c.compute[0],
          c.compute[1], change (c.compute[0], c.compute[1]));
  return TRUE;
}

/* --boundaries, --grid-order and --scaling (each may be NULL) into @o;
 * what is wrong with them, or NULL. */
static const char *
parse_kinds (const char *boundaries, const char *grid_order, const char *scaling,
             TsExtrapolateOptions *o)
{
  if (boundaries && !ts_boundaries_parse (boundaries, &o->boundaries))
    return "--boundaries must be periodic or open";
  if (grid_order && !ts_grid_order_parse (grid_order, &o->grid_order))
    return "--grid-order must be largest-first, largest-last or the factors each dimension "
           "takes, e.g. middle,largest,smallest";
  if (scaling && !ts_scaling_kind_parse (scaling, &o->scaling))
    return "--scaling must be strong or weak";
  return NULL;
}

int
ts_cmd_extrapolate (int argc, char **argv)
{
  int ranks = 0;
  g_autofree char *output = NULL, *boundaries = NULL, *real = NULL, *grid_order = NULL;
  g_autofree char *scaling = NULL;
  gboolean explain = FALSE, quiet = FALSE, cpu_time = FALSE, all_to_all = FALSE;
  gboolean doubling = FALSE;
  GOptionEntry entries[] = {
    { "ranks", 0, 0, G_OPTION_ARG_INT, &ranks, "the rank count to predict (required)", "P" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "output directory (required)", "DIR" },
    { "boundaries", 0, 0, G_OPTION_ARG_STRING, &boundaries,
      "periodic or open: whether the process grid wraps around, where no input has more "
      "than two ranks along a dimension to show it", "KIND" },
    { "grid-order", 0, 0, G_OPTION_ARG_STRING, &grid_order,
      "largest-first, largest-last, or the factor each dimension takes (largest, middle, "
      "smallest, comma-separated): which way the process grid takes MPI_Dims_create's "
      "factors where the inputs fit several orders (square grids) and P does not: largest "
      "first as MPI_Cart_create numbers ranks (the default), last (a column-major numbering, "
      "NPB LU's grid), or e.g. middle,largest,smallest (NPB MG's)", "ORDER" },
    { "scaling", 0, 0, G_OPTION_ARG_STRING, &scaling,
      "strong or weak: how the inputs' problem grows with P (the whole problem fixed, or "
      "each rank's share); checked against the inputs, a warning where they disagree "
      "(default: recognised from them)", "KIND" },
    { "all-to-all", 0, 0, G_OPTION_ARG_NONE, &all_to_all,
      "every rank exchanges with every other at any P (a transpose): needed where every "
      "input has so few ranks (up to 3 along each dimension of its grid) that a stencil "
      "with diagonal neighbours would reach every rank too, and P has more", NULL },
    { "recursive-doubling", 0, 0, G_OPTION_ARG_NONE, &doubling,
      "the ranks exchange by recursive doubling (rank XOR 2^k, over every rank or in the rows "
      "of a grid, NPB CG's): needed where every input is so small that a grid describes it "
      "too (up to 8 ranks, recursive doubling is a periodic grid of 2s), and P is not", NULL },
    { "compare", 0, 0, G_OPTION_ARG_FILENAME, &real,
      "afterwards, compare the output with this real trace at P ranks (partners, messages, "
      "bytes, compute)", "TRACE" },
    { "cpu-time", 0, 0, G_OPTION_ARG_NONE, &cpu_time,
      "the inputs' (and --compare's) compute is their CPU time, not their wall time: traces "
      "recorded with more ranks than cores (tracesim-record --cpu-time)", NULL },
    { "explain", 0, 0, G_OPTION_ARG_NONE, &explain,
      "print the fitted models and how far to trust them (model.txt)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "print nothing on success", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("extrapolate", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("extrapolate", error);
  const char *bad = NULL;
  if (argc < 2)
    bad = "give the traces of the program at two rank counts or more";
  else if (ranks < 1)
    bad = "--ranks P (P >= 1) is required";
  else if (!output)
    bad = "-o DIR is required";
  TsExtrapolateOptions o = {
    .ranks = (guint) ranks,
    .output_dir = output,
    .all_to_all = all_to_all,
    .recursive_doubling = doubling,
    .cpu_time = cpu_time,
  };
  if (!bad)
    bad = parse_kinds (boundaries, grid_order, scaling, &o);
  if (bad)
    return ts_cmd_usage_error ("extrapolate", bad);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  o.warnings = warnings;
  g_autoptr (GString) text = g_string_new (NULL);
  gboolean ok = ts_extrapolate ((const char *const *) argv + 1, (guint) argc - 1, &o, text,
                                &error);
  if (ok && explain)
    fputs (text->str, stdout);
  /* Said on stderr too, where --explain did not print them. */
  for (guint i = 0; ok && !quiet && !explain && i < warnings->len; i++)
    fprintf (stderr, "tracesim extrapolate: warning: %s\n", (char *) warnings->pdata[i]);
  if (ok && real)
    ok = compare (output, real, cpu_time, &error);
  else if (ok && !quiet && !explain)
    printf ("%s/traces.otf2: %d ranks extrapolated from %d traces (the models: %s/model.txt)\n",
            output, ranks, argc - 1, output);
  return ok ? 0 : ts_cmd_fail ("extrapolate", error);
}
