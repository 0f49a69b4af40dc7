#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

/* Starting SimGrid: the words it is initialised with, and the check of the
 * user's settings and platform in a child process, where SimGrid may abort
 * without taking the run with it. */

#include "sim/replay-private.h"
#include "sim/platform-check.h"
#include "sim/units.h"
#include "model/output_dir.h"

#include <simgrid/engine.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* SimGrid's own piecewise factors of its SMPI network model, used when a
 * platform asks for the model without giving them (SimGrid's documented
 * defaults for smpi/bw-factor and smpi/lat-factor). */
#define SMPI_DEFAULT_BW_FACTOR "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;" \
  "3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084"
#define SMPI_DEFAULT_LAT_FACTOR "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;" \
  "3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467"

/* "SIZE:FACTOR;..." with every factor times @by. */
static char *
scale_piecewise (const char *spec, double by)
{
  g_auto (GStrv) pieces = g_strsplit (spec, ";", -1);
  GString *out = g_string_new (NULL);
  for (guint i = 0; pieces[i]; i++)
    {
      char *colon = strchr (pieces[i], ':');
      if (!colon)
        continue;
      *colon = '\0';
      g_string_append_printf (out, "%s%s:%.17g", out->len ? ";" : "", g_strstrip (pieces[i]),
                              g_ascii_strtod (colon + 1, NULL) * by);
    }
  return g_string_free (out, FALSE);
}

/* The platform's settings as --cfg words, and the [network] hypotheses'
 * factors composed with them: under CM02 a platform's own network/
 * bandwidth-factor or latency-factor times the hypothesis's; under SMPI's
 * network model (which ignores those two) its piecewise factors, the
 * platform's or SimGrid's defaults, times the hypothesis's. */
static void
add_network_items (GPtrArray *args, const TsReplayOptions *o)
{
  g_auto (GStrv) items = o->platform_path ? ts_platform_config_items (o->platform_path)
                                          : g_new0 (char *, 1);
  gboolean smpi = g_strv_contains ((const char *const *) items, "network/model:SMPI");
  double bw = o->hypotheses ? ts_hypotheses_bandwidth_factor (o->hypotheses) : 1;
  double lat = o->hypotheses ? ts_hypotheses_latency_factor (o->hypotheses) : 1;
  static const char *const keys[] = { "network/bandwidth-factor:", "network/latency-factor:",
                                      "smpi/bw-factor:", "smpi/lat-factor:" };
  char *spec[4] = { NULL, NULL, g_strdup (SMPI_DEFAULT_BW_FACTOR),
                               g_strdup (SMPI_DEFAULT_LAT_FACTOR) };
  for (guint i = 0; items[i]; i++)
    {
      guint k = 0;
      while (k < G_N_ELEMENTS (keys) && !g_str_has_prefix (items[i], keys[k]))
        k++;
      if (k == G_N_ELEMENTS (keys))
        g_ptr_array_add (args, g_strdup_printf ("--cfg=%s", items[i]));
      else
        {
          g_free (spec[k]);
          spec[k] = g_strdup (items[i] + strlen (keys[k]));
        }
    }
  double by[4] = { bw, lat, bw, lat };
  for (guint k = smpi ? 2 : 0; k < (smpi ? 4u : 2u); k++)
    {
      /* A CM02 factor is one number: a piecewise one of SMPI's. */
      g_autofree char *scaled = k >= 2 ? scale_piecewise (spec[k], by[k])
                                : spec[k] ? g_strdup_printf ("%.17g", g_ascii_strtod (spec[k], NULL) * by[k])
                                : by[k] != 1 ? g_strdup_printf ("%.17g", by[k]) : NULL;
      if (scaled)
        g_ptr_array_add (args, g_strdup_printf ("--cfg=%.*s%s", (int) strlen (keys[k]), keys[k],
                                                scaled));
    }
  for (guint k = 0; k < G_N_ELEMENTS (spec); k++)
    g_free (spec[k]);
}

/* The command line SimGrid is initialised with: tracesim's own settings,
 * the platform's and the [network] hypotheses', then the user's --cfg items. NULL-terminated;
 * the array owns its strings. */
static GPtrArray *
engine_words (const TsReplayOptions *o)
{
  GPtrArray *args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup ("tracesim"));
  g_ptr_array_add (args, g_strdup ("--cfg=network/model:CM02"));
  g_ptr_array_add (args, g_strdup ("--cfg=network/crosstraffic:0"));
  g_ptr_array_add (args, g_strdup ("--log=root.thres:critical"));
  g_ptr_array_add (args, g_strdup ("--log=root.fmt:%m%n"));
  /* Why SimGrid gives up (a platform it cannot parse, say): the reason an
   * error message passes on. */
  g_ptr_array_add (args, g_strdup ("--log=xbt_exception.thres:error"));
  /* The platform's own settings (SMPI's network model and its factors) over
   * tracesim's defaults, with the [network] hypotheses composed in; the
   * user's --cfg items over all. */
  add_network_items (args, o);
  for (guint i = 0; o->simgrid_cfg && o->simgrid_cfg[i]; i++)
    g_ptr_array_add (args, g_strdup (o->simgrid_cfg[i]));
  g_ptr_array_add (args, NULL);
  return args;
}

struct engine_args {
  int argc;
  char **argv;
};

static void
call_simgrid_init (void *data)
{
  struct engine_args *a = data;
  simgrid_init (&a->argc, a->argv);
}

/* Initialise SimGrid with engine_words(). It removes the words it took from
 * the argument vector it is given, so that vector is a copy. */
void
ts_engine_init (const TsReplayOptions *o)
{
  g_autoptr (GPtrArray) words = engine_words (o);
  g_autofree char **argv = g_memdup2 (words->pdata, words->len * sizeof (char *));
  struct engine_args args = { words->len - 1, argv };
  ts_output_dir_with_signals_held (call_simgrid_init, &args);
}

/* Numeric items SimGrid accepts but cannot run with (it aborts mid-replay,
 * or divides by zero): their bounds. */
static const struct {
  const char *key;
  double min;
  gboolean min_included;
  const char *why;
} cfg_bounds[] = {
  { "network/bandwidth-factor", 0, FALSE, "a factor on every link's bandwidth" },
  { "network/latency-factor", 0, TRUE, "a factor on every link's latency" },
  { "network/weight-S", 0, TRUE, "a weight" },
  { "maxmin/precision", 0, FALSE, "a precision" },
  { "surf/precision", 0, FALSE, "a precision" },
  { "network/TCP-gamma", 0, FALSE, "a window size" },
};

gboolean
ts_replay_check_cfg_item (const char *item, GError **error)
{
  const char *colon = strchr (item, ':');
  if (!colon || colon == item || colon[1] == '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--cfg '%s': expected ITEM:VALUE, e.g. network/model:LV08", item);
      return FALSE;
    }
  if ((g_str_has_prefix (item, "smpi/bw-factor:") || g_str_has_prefix (item, "smpi/lat-factor:"))
      && !ts_unit_piecewise_ok (colon + 1))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--cfg '%s': expected SIZE:FACTOR pairs separated by ';', factors above 0",
                   item);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (cfg_bounds); i++)
    {
      if (strncmp (item, cfg_bounds[i].key, colon - item) != 0
          || cfg_bounds[i].key[colon - item] != '\0')
        continue;
      char *end;
      double v = g_ascii_strtod (colon + 1, &end);
      if (*end != '\0')
        return TRUE; /* not a number: SimGrid's own check says so */
      if (!isfinite (v) || v < cfg_bounds[i].min || (!cfg_bounds[i].min_included && v == cfg_bounds[i].min))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--cfg '%s': %s must be a finite number %s %g", item, cfg_bounds[i].why,
                       cfg_bounds[i].min_included ? "of at least" : "above", cfg_bounds[i].min);
          return FALSE;
        }
    }
  return TRUE;
}

/* Written by the checking child before it loads the platform: what it says
 * after this is about the platform. */
#define PLATFORM_MARK "\n[tracesim: loading the platform]\n"
/* Followed by tracesim's own finding on the loaded platform. */
#define FINDING_MARK "\n[tracesim: the platform]\n"

/* In the child: start SimGrid as the replay will, load the platform and
 * check it; say what is wrong on stderr (the pipe) and die, or exit 0. */
static void G_GNUC_NORETURN
try_engine (const TsReplayOptions *o, int out_fd)
{
  dup2 (out_fd, STDERR_FILENO);
  dup2 (out_fd, STDOUT_FILENO);
  ts_output_dir_drop_cleanup ();
  ts_engine_init (o);
  if (o->platform_path)
    {
      fputs (PLATFORM_MARK, stderr);
      fflush (stderr);
      simgrid_load_platform (o->platform_path);
      g_autofree char *why = ts_platform_check_loaded ();
      if (why)
        {
          fprintf (stderr, "%s%s\n", FINDING_MARK, why);
          fflush (stderr);
          _exit (1);
        }
    }
  _exit (0);
}

/* The child's dying words as an error: tracesim's finding, SimGrid's reason
 * for refusing the platform, or for refusing the --cfg items. */
static void
explain_death (const TsReplayOptions *o, const char *said, const char *tail, GError **error)
{
  /* Died after announcing a route (a finding written after it, such as an
   * empty route, is the child's own exit, below). */
  const char *route = g_strrstr (tail, TS_PLATFORM_ROUTE_MARK);
  if (route && !strstr (route, FINDING_MARK))
    {
      g_autofree char *pair = g_strndup (route + strlen (TS_PLATFORM_ROUTE_MARK),
                                         strcspn (route + strlen (TS_PLATFORM_ROUTE_MARK), "\n"));
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "%s: no route from host %s (SimGrid died looking for it)", o->platform_path,
                   pair);
      return;
    }
  const char *finding = strstr (said, FINDING_MARK);
  if (finding)
    {
      g_autofree char *found = g_strstrip (g_strdup (finding + strlen (FINDING_MARK)));
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM, "%s: %s", o->platform_path,
                   found);
      return;
    }
  const char *mark = strstr (said, PLATFORM_MARK);
  const char *words = mark ? mark + strlen (PLATFORM_MARK) : said;
  /* "Uncaught exception std::range_error: invalid double": its message;
   * otherwise SimGrid's first line that says something. */
  g_auto (GStrv) lines = g_strsplit (words, "\n", -1);
  const char *why = NULL;
  for (guint i = 0; lines[i] && !why; i++)
    if (*g_strstrip (lines[i]))
      why = lines[i];
  why = why ? why : "it stopped the simulator";
  const char *colon = g_str_has_prefix (why, "Uncaught exception") ? strchr (why, ':') : NULL;
  if (mark)
    g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                 "%s: SimGrid cannot load this platform: %s", o->platform_path,
                 colon ? colon + 2 : why);
  else
    {
      /* The platform's own <config> items are passed with the --cfg ones. */
      g_auto (GStrv) items = o->platform_path ? ts_platform_config_items (o->platform_path) : NULL;
      if (items && items[0])
        g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                     "%s: SimGrid rejects the configuration (its <config>, or --cfg): %s",
                     o->platform_path, colon ? colon + 2 : why);
      else
        g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                     "SimGrid rejects the configuration (--cfg): %s", colon ? colon + 2 : why);
    }
}

gboolean
ts_replay_check_config (const TsReplayOptions *o, GError **error)
{
  /* SimGrid throws on an unknown key or a malformed value, and a C++
   * exception through C aborts the process; it dies the same way on a
   * platform file it cannot load: try both in a child, and turn its dying
   * words into an error. tracesim's own items are known good. */
  if ((!o->simgrid_cfg || !o->simgrid_cfg[0]) && !o->platform_path)
    return TRUE;
  if (o->platform_path && !ts_platform_check_file (o->platform_path, error))
    return FALSE;
  /* The platform's own settings, bounded as the user's --cfg items are. */
  g_auto (GStrv) items = o->platform_path ? ts_platform_config_items (o->platform_path) : NULL;
  for (guint i = 0; items && items[i]; i++)
    {
      g_autoptr (GError) local = NULL;
      if (!ts_replay_check_cfg_item (items[i], &local))
        {
          g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM, "%s: <config>: %s",
                       o->platform_path, local->message);
          return FALSE;
        }
    }
  int pipe_fds[2];
  if (pipe (pipe_fds) != 0)
    {
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "cannot check the SimGrid configuration: %s", g_strerror (errno));
      return FALSE;
    }
  fflush (NULL);
  pid_t child = fork ();
  if (child == 0)
    {
      close (pipe_fds[0]);
      try_engine (o, pipe_fds[1]);
    }
  close (pipe_fds[1]);
  if (child < 0)
    {
      close (pipe_fds[0]);
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "cannot check the SimGrid configuration: %s", g_strerror (errno));
      return FALSE;
    }
  /* The beginning (SimGrid's reason, not its backtrace) and the end (the
   * route being looked up when it died). */
  GString *said = g_string_new (NULL);
  g_autoptr (GString) tail = g_string_new (NULL);
  char buf[4096];
  ssize_t got;
  while ((got = read (pipe_fds[0], buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
    if (got > 0)
      {
        if (said->len < 64 * 1024)
          g_string_append_len (said, buf, got);
        g_string_append_len (tail, buf, got);
        if (tail->len > 16 * 1024)
          g_string_erase (tail, 0, tail->len - 8 * 1024);
      }
  close (pipe_fds[0]);
  int status = 0;
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  gboolean ok = WIFEXITED (status) && WEXITSTATUS (status) == 0;
  if (!ok)
    explain_death (o, said->str, tail->str, error);
  g_string_free (said, TRUE);
  return ok;
}
