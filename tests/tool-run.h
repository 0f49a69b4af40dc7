/* Running tracesim and ts-tracegen from tests. */
#ifndef TS_TOOL_RUN_H
#define TS_TOOL_RUN_H

#include <glib.h>

typedef struct {
  int status;      /* exit status; -1 if killed (crash or time-out) */
  char *out, *err;
} TsToolResult;

const char *ts_test_srcdir (void);
const char *ts_test_builddir (void);
/* A fresh empty directory for test @name. Caller frees. */
char *ts_test_workdir (const char *name);
/* Write the trace of <scenario_dir>/trace.script into @work; returns the anchor path. */
char *ts_test_generate (const char *work, const char *scenario_dir);
/* Write a trace from script text; returns the anchor path. */
char *ts_test_generate_text (const char *work, const char *script_text);
/* Run tracesim with NULL-terminated @args (60 s limit). */
TsToolResult ts_run_tracesim (const char **args);
void ts_tool_result_clear (TsToolResult *r);
/* Run tracesim with @args and return the contents of the file @name it
 * wrote into @dir; NULL when it failed or wrote none, with *why set to its
 * stderr or the read error (caller frees both). */
char *ts_run_tracesim_output (const char **args, const char *dir, const char *name, char **why);
void ts_test_rmtree (const char *path);
/* TRUE if @dir contains an entry whose name starts with @prefix. */
gboolean ts_test_dir_has_prefix (const char *dir, const char *prefix);

#endif
