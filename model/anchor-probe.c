#include <config.h>

#include "model/trace-private.h"
#include "model/output_dir.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* What opening an anchor file may cost: a real one takes kilobytes and
 * milliseconds. */
#define TS_ANCHOR_PROBE_BYTES (512ul << 20)
#define TS_ANCHOR_PROBE_SECONDS 3

/* OTF2 trusts the counts in the anchor file: a few changed bytes make it
 * allocate gigabytes and fill them for minutes (otf2-print hangs the same
 * way). The anchor is opened first in a child whose memory and time are
 * bounded; FALSE and @error when the child did not come back. */
gboolean
ts_trace_probe_anchor (const char *path, GError **error)
{
  fflush (NULL);
  pid_t child = fork ();
  if (child == 0)
    {
      ts_output_dir_drop_cleanup (); /* its death must not touch the parent's output */
#ifndef __SANITIZE_ADDRESS__ /* ASan reserves terabytes of address space */
      long pages = 0;
      FILE *statm = fopen ("/proc/self/statm", "r");
      if (statm && fscanf (statm, "%ld", &pages) == 1)
        {
          rlim_t limit = (rlim_t) pages * sysconf (_SC_PAGESIZE) + TS_ANCHOR_PROBE_BYTES;
          struct rlimit lim = { limit, limit };
          setrlimit (RLIMIT_AS, &lim);
        }
      if (statm)
        fclose (statm);
#endif
      alarm (TS_ANCHOR_PROBE_SECONDS);
      OTF2_Reader *reader = OTF2_Reader_Open (path);
      _exit (reader ? 0 : 1);
    }
  if (child < 0)
    return TRUE; /* no probe: the open below is the same, unbounded */
  int status = 0;
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return TRUE;
  if (WIFEXITED (status)) /* OTF2 refused it, or could not have what it asked for */
    g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                 "%s: the anchor file is corrupt or truncated: OTF2 cannot open it", path);
  else
    g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
               "%s: the anchor file is corrupt: OTF2 could not open it within %lu MiB and %d s "
               "(%s)", path, TS_ANCHOR_PROBE_BYTES >> 20, TS_ANCHOR_PROBE_SECONDS,
               WTERMSIG (status) == SIGALRM ? "out of time" : g_strsignal (WTERMSIG (status)));
  return FALSE;
}

