/* The tracesim subcommands. Each takes the arguments after its name and
 * returns the process exit status. */
#ifndef TS_COMMANDS_H
#define TS_COMMANDS_H

#include <glib.h>

int ts_cmd_run (int argc, char **argv);
int ts_cmd_info (int argc, char **argv);
int ts_cmd_calibrate (int argc, char **argv);
int ts_cmd_convert (int argc, char **argv);
int ts_cmd_hypotheses (int argc, char **argv);
int ts_cmd_waitstates (int argc, char **argv);

/* Print "tracesim <cmd>: <message>" on stderr, free @error, return 1. */
int ts_cmd_fail (const char *cmd, GError *error);

#endif
