#include <config.h>

#include "cli/commands.h"

#include <stdio.h>
#include <string.h>

static const struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *help;
} commands[] = {
  { "run", ts_cmd_run, "replay a trace on a platform and predict its timeline" },
  { "info", ts_cmd_info, "ranks, regions, MPI calls, events, span, message completeness" },
  { "calibrate", ts_cmd_calibrate, "write a cluster platform fitted to a trace's own timings" },
  { "hypotheses", ts_cmd_hypotheses, "check hypothesis files against a trace (hypotheses check)" },
  { "waitstates", ts_cmd_waitstates, "find the wait states of a trace without simulating" },
  { "convert", ts_cmd_convert, "write a trace in another replay tool's format (SimGrid TI)" },
};

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
  fprintf (out, "Usage: tracesim COMMAND [OPTION...] TRACE\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].help);
  fprintf (out, "\n'tracesim COMMAND --help' describes a command's options.\n");
}

int
main (int argc, char **argv)
{
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
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("%s\n", PACKAGE_STRING);
      return 0;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "tracesim: unknown command '%s'\n", argv[1]);
  usage (stderr);
  return 2;
}
