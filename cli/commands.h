/* The tracesim subcommands. Each parses the arguments after its name into
 * an options struct, calls the library, prints, and returns the process
 * exit status (0 done, 1 failed, 2 usage). */
#ifndef TS_COMMANDS_H
#define TS_COMMANDS_H

#include <glib.h>

int ts_cmd_run (int argc, char **argv);
int ts_cmd_info (int argc, char **argv);
int ts_cmd_calibrate (int argc, char **argv);
int ts_cmd_convert (int argc, char **argv);
int ts_cmd_hypotheses (int argc, char **argv);
int ts_cmd_waitstates (int argc, char **argv);
int ts_cmd_platform (int argc, char **argv);
int ts_cmd_sweep (int argc, char **argv);
int ts_cmd_extrapolate (int argc, char **argv);
int ts_cmd_advise (int argc, char **argv);
int ts_cmd_report (int argc, char **argv);

/* The option context of command @name ("run", "hypotheses check"): its
 * usage line ("tracesim run [OPTION…] TRACE"), summary and the description
 * shown under the options (what it writes), all from the command table in
 * tracesim.c, with @entries (may be NULL). */
GOptionContext *ts_cmd_context (const char *name, const GOptionEntry *entries);

/* Print "tracesim <cmd>: <message>" on stderr, free @error, return 1. */
int ts_cmd_fail (const char *cmd, GError *error);
/* A usage error: "tracesim <cmd>: <message>", then the usage line; returns 2. */
int ts_cmd_usage_error (const char *cmd, const char *message);



#endif
