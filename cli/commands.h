/* The tracesim subcommands. Each parses the arguments after its name into
 * an options struct, calls the library, prints, and returns the process
 * exit status (0 done, 1 failed, 2 usage). */
#ifndef TS_COMMANDS_H
#define TS_COMMANDS_H

#include <glib.h>
#include "pipeline/run.h"

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
/* A usage error: "tracesim <cmd>: <message>", then where the usage is;
 * returns 2. Every command's usage errors go through it (or through
 * ts_cmd_option_error): an unknown option, a missing or extra argument, an
 * option's value the command line alone shows is wrong. What needs the
 * input to judge (a trace, a file, a --cfg item SimGrid refuses) fails
 * with 1. */
int ts_cmd_usage_error (const char *cmd, const char *message);
/* ts_cmd_usage_error() with @error's message (GOptionContext's parse
 * error, or a bad option value); frees @error; returns 2. */
int ts_cmd_option_error (const char *cmd, GError *error);
/* --cpu-time and --wall-time into *@clock: ON, OFF, or AUTO when neither
 * was given. FALSE when both were. */
gboolean ts_cmd_cpu_time (gboolean cpu_time, gboolean wall_time, gboolean estimate,
                          TsCpuTime *clock);



#endif
