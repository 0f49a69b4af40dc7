/* sim/engine-s4u.cpp, the maestro engine's SimGrid adapter: its times against
 * hand derivations and against actors doing the same in the same simulation,
 * the order of completions and settled() within an instant, and its errors.
 *
 * SimGrid allows one engine per process: each simulation runs in a child,
 * which writes a transcript ("completed NAME TIME [failed]", "settled TIME",
 * the actors' own lines) into a pipe, and the test reads it. Times are
 * written with %.17g, so that they compare exactly. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "sim/engine-s4u.h"
#include "tests/tool-run.h"

#include <glib/gstdio.h>
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Six 1 Gflop/s hosts; h0-h1 and h2-h3 joined by identical links of 100 us
 * and 1e8 B/s. With CM02 and no cross-traffic, B bytes take 1e-4 + B / 1e8
 * seconds: a latency phase of 1e-4 s, then the bytes at the full rate. */
static const char platform[] =
  "<?xml version='1.0'?>\n"
  "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
  "<platform version=\"4.1\">\n"
  "  <zone id=\"world\" routing=\"Full\">\n"
  "    <host id=\"h0\" speed=\"1Gf\"/><host id=\"h1\" speed=\"1Gf\"/>\n"
  "    <host id=\"h2\" speed=\"1Gf\"/><host id=\"h3\" speed=\"1Gf\"/>\n"
  "    <host id=\"h4\" speed=\"1Gf\"/><host id=\"h5\" speed=\"1Gf\"/>\n"
  "    <link id=\"l01\" bandwidth=\"100MBps\" latency=\"100us\"/>\n"
  "    <link id=\"l23\" bandwidth=\"100MBps\" latency=\"100us\"/>\n"
  "    <route src=\"h0\" dst=\"h1\"><link_ctn id=\"l01\"/></route>\n"
  "    <route src=\"h2\" dst=\"h3\"><link_ctn id=\"l23\"/></route>\n"
  "  </zone>\n"
  "</platform>\n";

/* The child's transcript: the actors write into it too (they run in the
 * child's maestro, and get no other pointer from SimGrid's C API). */
static GString *child_log;

typedef struct {
  TsS4u *engine;
  int rounds; /* settled() calls so far */
} Child;

static void
completed (gpointer data, gpointer cookie, gboolean failed)
{
  g_string_append_printf (child_log, "completed %s %.17g%s\n", (const char *) cookie,
                          simgrid_get_clock (), failed ? " failed" : "");
}

/* The main scenario's second acts: at the first instant, an execution on a
 * host that is off; at 1 s, a 0-second burst and a 0-byte transfer. */
static void
settled (gpointer data)
{
  Child *c = data;
  double now = simgrid_get_clock ();
  g_string_append_printf (child_log, "settled %.17g\n", now);
  if (c->rounds++ == 0)
    {
      sg_host_turn_off (sg_host_by_name ("h5"));
      ts_s4u_exec (c->engine, sg_host_by_name ("h5"), 1e9, "dead");
    }
  if (now == 1.0 && !strstr (child_log->str, "completed zero"))
    {
      ts_s4u_burst (c->engine, 0, "zero");
      ts_s4u_transfer (c->engine, sg_host_by_name ("h0"), sg_host_by_name ("h1"), 0, "empty");
    }
}

/* The error scenario: at the first instant, a transfer and an invalid burst. */
static void
settled_then_fail (gpointer data)
{
  Child *c = data;
  g_string_append_printf (child_log, "settled %.17g\n", simgrid_get_clock ());
  ts_s4u_transfer (c->engine, sg_host_by_name ("h0"), sg_host_by_name ("h1"), 1e6, "xfer");
  ts_s4u_burst (c->engine, -1, "bad");
  ts_s4u_settle_soon (c->engine);
}

static int dummy_payload;

static void
actor_send (int argc, char **argv)
{
  sg_mailbox_put (sg_mailbox_by_name ("m"), &dummy_payload, 1000000);
}

static void
actor_recv (int argc, char **argv)
{
  sg_mailbox_get (sg_mailbox_by_name ("m"));
  g_string_append_printf (child_log, "actor-recv %.17g\n", simgrid_get_clock ());
}

static void
actor_sleep (int argc, char **argv)
{
  sg_actor_sleep_for (1e-4 + 5e-10);
  g_string_append_printf (child_log, "actor-sleep %.17g\n", simgrid_get_clock ());
}

static void
log_messages (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  g_string_append_printf (child_log, "message %s\n", message);
}

static void
start_engine (const char *xml)
{
  char *argv[] = { "test-engine-s4u", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                   "--log=root.thres:critical", NULL };
  int argc = G_N_ELEMENTS (argv) - 1;
  simgrid_init (&argc, argv);
  simgrid_load_platform (xml);
}

static void
main_scenario (const char *xml)
{
  start_engine (xml);
  Child c = { 0 };
  TsS4uCallbacks cb = { completed, settled, &c };
  c.engine = ts_s4u_new (&cb);
  sg_host_t h0 = sg_host_by_name ("h0"), h1 = sg_host_by_name ("h1");
  sg_actor_create ("sender", sg_host_by_name ("h2"), actor_send, 0, NULL);
  sg_actor_create ("receiver", sg_host_by_name ("h3"), actor_recv, 0, NULL);
  sg_actor_create ("sleeper", sg_host_by_name ("h4"), actor_sleep, 0, NULL);
  ts_s4u_burst (c.engine, 1e-12, "tiny");
  ts_s4u_burst (c.engine, 1e-4 + 5e-10, "lat");
  ts_s4u_burst (c.engine, 0.0101, "mid");
  ts_s4u_burst (c.engine, 1.0, "one");
  ts_s4u_burst (c.engine, 1.0 + 5e-10, "one+");
  ts_s4u_exec (c.engine, h0, 1e9, "exec");
  ts_s4u_transfer (c.engine, h0, h1, 1e6, "xfer");
  ts_s4u_settle_soon (c.engine);
  GError *error = NULL;
  gboolean ok = ts_s4u_run (c.engine, &error);
  g_string_append_printf (child_log, "run %s%s\n", ok ? "ok" : "failed: ", error ? error->message : "");
  g_clear_error (&error);
  ts_s4u_free (c.engine);
}

static void
error_scenario (const char *xml)
{
  start_engine (xml);
  /* The second adapter is refused with a critical warning, provoked here on
   * purpose: recorded, not fatal (make check sets G_DEBUG=fatal-criticals). */
  g_log_set_always_fatal (G_LOG_FATAL_MASK);
  g_log_set_default_handler (log_messages, NULL);
  Child c = { 0 };
  TsS4uCallbacks cb = { completed, settled_then_fail, &c };
  c.engine = ts_s4u_new (&cb);
  if (!ts_s4u_new (&cb))
    g_string_append (child_log, "second adapter refused\n");
  ts_s4u_settle_soon (c.engine);
  GError *error = NULL;
  gboolean ok = ts_s4u_run (c.engine, &error);
  g_string_append_printf (child_log, "run %s%s\n", ok ? "ok" : "failed: ", error ? error->message : "");
  g_clear_error (&error);
  ts_s4u_free (c.engine);
}

/* Runs @scenario in a child and returns its transcript's lines. */
static char **
run_child (const char *name, void (*scenario) (const char *xml))
{
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *xml = g_build_filename (work, "platform.xml", NULL);
  assert_true (g_file_set_contents (xml, platform, -1, NULL));
  int fds[2];
  assert_int_equal (pipe (fds), 0);
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      close (fds[0]);
      alarm (60); /* a hang fails the test */
      child_log = g_string_new (NULL);
      scenario (xml);
      gboolean all = write (fds[1], child_log->str, child_log->len) == (ssize_t) child_log->len;
      _exit (all ? 0 : 1);
    }
  close (fds[1]);
  GString *out = g_string_new (NULL);
  char buf[4096];
  ssize_t n;
  while ((n = read (fds[0], buf, sizeof buf)) > 0)
    g_string_append_len (out, buf, n);
  close (fds[0]);
  int status;
  assert_int_equal (waitpid (pid, &status, 0), pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    fail_msg ("the %s simulation died (status %d); it wrote:\n%s", name, status, out->str);
  char **lines = g_strsplit (g_strchomp (out->str), "\n", -1);
  g_string_free (out, TRUE);
  return lines;
}

/* The time on the line starting with @prefix, which must exist. */
static double
time_of (char **lines, const char *prefix)
{
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_ascii_strtod (lines[i] + strlen (prefix), NULL);
  fail_msg ("no line '%s...' in the transcript", prefix);
  return NAN;
}

static void
test_main_scenario (void **state)
{
  g_auto (GStrv) lines = run_child ("engine-s4u-main", main_scenario);
  /* The adapter's own lines, in order (the actors' lines are checked below:
   * an actor runs after maestro's callbacks of its instant). */
  g_autoptr (GPtrArray) ours = g_ptr_array_new ();
  for (guint i = 0; lines[i]; i++)
    if (!g_str_has_prefix (lines[i], "actor-"))
      g_ptr_array_add (ours, lines[i]);

  double lat = time_of (lines, "completed lat ");
  double xfer = time_of (lines, "completed xfer ");
  /* (a) 1e-12 s is below surf/precision (1e-9 by default), where SimGrid's
   * CpuCas01::sleep floors a sleep: it ends at 0 + 1e-9. (c) The transfer
   * started from maestro takes what the actors' mailbox comm takes on the
   * identical pair h2-h3, started at 0 too: the same double; by hand
   * 1e-4 + 1e6 / 1e8 = 0.0101 (to rounding: SimGrid reads 100us as
   * 100 * 1e-6 = 9.9999999999999991e-05). The latency step: both transfers'
   * latency phases end at 1e-4, and the burst of 1e-4 + 5e-10 s ends there,
   * as the sleeper's sleep of the same length does (SimGrid ends an action
   * within 1e-9 of the current date), not at its own date. */
  assert_true (time_of (lines, "completed tiny ") == 1e-9);
  assert_true (xfer == time_of (lines, "actor-recv "));
  assert_true (fabs (xfer - 0.0101) < 1e-12);
  assert_true (lat == time_of (lines, "actor-sleep "));
  assert_true (fabs (lat - 1e-4) < 1e-12);
  assert_true (lat < 1e-4 + 5e-10 - 1e-12);

  /* (b), (d) and the rest: every instant's completions, bursts first, then
   * one settled(). At 0: the first settled() (asked before the run) starts
   * an execution on h5, turned off: it fails at once, and a second round of
   * 0 settles it. At 0.0101: the burst "mid" (0.0101 s) and the transfer
   * end within 1e-9 of each other, so at one instant. At 1: "one+" (1 s +
   * 5e-10) ends with "one", before the execution of 1e9 flops at 1 Gflop/s
   * that ends then too; the settled() of 1 starts a 0-second burst, which
   * ends in a second round of 1 (SimGrid's 0-second sleep returns at once),
   * and a 0-byte transfer, which takes the latency: 1 + 1e-4 (the same
   * double as 1 + 9.9999999999999991e-05). */
  g_autofree char *t_lat = g_strdup_printf ("%.17g", lat);
  g_autofree char *t_xfer = g_strdup_printf ("%.17g", xfer);
  g_autofree char *t_empty = g_strdup_printf ("%.17g", 1.0 + 1e-4);
  const char *lines_by_hand[] = {
    "settled 0", "completed dead 0 failed", "settled 0",
    "completed tiny 1.0000000000000001e-09", "settled 1.0000000000000001e-09",
    "completed lat LAT", "settled LAT",
    "completed mid XFER", "completed xfer XFER", "settled XFER",
    "completed one 1", "completed one+ 1", "completed exec 1", "settled 1",
    "completed zero 1", "settled 1",
    "completed empty EMPTY", "settled EMPTY",
    "run ok",
  };
  g_autoptr (GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (lines_by_hand); i++)
    {
      g_auto (GStrv) words = g_strsplit (lines_by_hand[i], " ", -1);
      for (guint w = 0; words[w]; w++)
        {
          const char *t = g_str_equal (words[w], "LAT") ? t_lat
                          : g_str_equal (words[w], "XFER") ? t_xfer
                          : g_str_equal (words[w], "EMPTY") ? t_empty : NULL;
          if (t)
            g_free (g_steal_pointer (&words[w])), words[w] = g_strdup (t);
        }
      g_ptr_array_add (expected, g_strjoinv (" ", words));
    }
  for (guint i = 0; i < expected->len || i < ours->len; i++)
    {
      const char *got = i < ours->len ? ours->pdata[i] : "(nothing)";
      const char *want = i < expected->len ? expected->pdata[i] : "(nothing)";
      if (strcmp (got, want) != 0)
        fail_msg ("line %u: '%s', expected '%s'", i, got, want);
    }
}

/* A burst of -1 s asked in the first settled(): the run stops reporting
 * (the transfer started beside it drains silently, no further settled()),
 * and ts_s4u_run() returns the reason. A second adapter is refused. */
static void
test_error (void **state)
{
  g_auto (GStrv) lines = run_child ("engine-s4u-error", error_scenario);
  g_autofree char *all = g_strjoinv ("\n", lines);
  const char *critical = strstr (all, "message ");
  assert_non_null (critical);
  assert_non_null (strstr (critical, "live == nullptr"));
  const char *expected[] = {
    "second adapter refused",
    "settled 0",
    "run failed: SimGrid engine: a burst of -1 s (a duration must be finite and not negative)",
  };
  guint n = 0;
  for (guint i = 0; lines[i]; i++)
    {
      if (g_str_has_prefix (lines[i], "message "))
        continue;
      if (n >= G_N_ELEMENTS (expected) || strcmp (lines[i], expected[n]) != 0)
        fail_msg ("line %u: '%s', expected '%s'", i, lines[i],
                  n < G_N_ELEMENTS (expected) ? expected[n] : "(nothing)");
      n++;
    }
  assert_int_equal (n, G_N_ELEMENTS (expected));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_main_scenario),
    cmocka_unit_test (test_error),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
