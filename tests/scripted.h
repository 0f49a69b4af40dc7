/* Traces written for a test from a script (tools/tracegen/script.h), under
 * a fresh temporary directory that the test removes. */
#ifndef TS_TEST_SCRIPTED_H
#define TS_TEST_SCRIPTED_H

#include "model/trace.h"

/* Write @script's archive as <*dir>/traces.otf2, *dir a new temporary
 * directory; returns the anchor's path. Fails the test on error. */
char *ts_test_script_write (const char *script, char **dir);
/* The same, opened. */
TsTrace *ts_test_script_open (const char *script, char **dir);
/* Remove @dir and everything in it, and free the string. */
void ts_test_script_remove (char *dir);

#endif
