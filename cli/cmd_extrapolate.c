#include <config.h>

#include "cli/commands.h"
#include "extrap/extrapolate.h"

#include <stdio.h>

int
ts_cmd_extrapolate (int argc, char **argv)
{
  int ranks = 0;
  char *output = NULL;
  char *boundaries = NULL;
  gboolean explain = FALSE, quiet = FALSE;
  GOptionEntry entries[] = {
    { "ranks", 0, 0, G_OPTION_ARG_INT, &ranks, "the rank count to predict (required)", "P" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "output directory (required)", "DIR" },
    { "boundaries", 0, 0, G_OPTION_ARG_STRING, &boundaries,
      "periodic or open: whether the process grid wraps around, where no input has more "
      "than two ranks along a dimension to show it", "KIND" },
    { "explain", 0, 0, G_OPTION_ARG_NONE, &explain,
      "print the fitted models and how far to trust them (model.txt)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "print nothing on success", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("extrapolate", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_free (output);
      g_free (boundaries);
      return ts_cmd_fail ("extrapolate", error);
    }
  const char *bad = NULL;
  if (argc < 2)
    bad = "give the traces of the program at two rank counts or more";
  else if (ranks < 1)
    bad = "--ranks P (P >= 1) is required";
  else if (!output)
    bad = "-o DIR is required";
  else if (boundaries && g_strcmp0 (boundaries, "periodic") != 0
           && g_strcmp0 (boundaries, "open") != 0)
    bad = "--boundaries must be periodic or open";
  if (bad)
    {
      g_free (output);
      g_free (boundaries);
      return ts_cmd_usage_error ("extrapolate", bad);
    }
  TsExtrapolateOptions o = {
    .ranks = (guint) ranks,
    .output_dir = output,
    .boundaries = !boundaries ? TS_BOUNDARIES_UNKNOWN
                  : g_strcmp0 (boundaries, "open") == 0 ? TS_BOUNDARIES_OPEN
                  : TS_BOUNDARIES_PERIODIC,
  };
  g_free (boundaries);
  g_autoptr (GString) text = g_string_new (NULL);
  gboolean ok = ts_extrapolate ((const char *const *) argv + 1, (guint) argc - 1, &o, text,
                                &error);
  if (ok && explain)
    fputs (text->str, stdout);
  else if (ok && !quiet)
    printf ("%s/traces.otf2: %d ranks extrapolated from %d traces (the models: %s/model.txt)\n",
            output, ranks, argc - 1, output);
  g_free (output);
  return ok ? 0 : ts_cmd_fail ("extrapolate", error);
}
