/* Bad input gets one clear error, a non-zero exit, no hang and no output. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "tests/tool-run.h"

static const char *two_rank_ok =
  "ranks 2\n"
  "0 0.0 enter main\n0 1.0 enter MPI_Send\n0 1.0 send 1 tag=5 bytes=10\n"
  "0 1.0 leave MPI_Send\n0 1.0 leave main\n"
  "1 0.0 enter main\n1 0.0 enter MPI_Recv\n1 1.1 recv 0 tag=5 bytes=10\n"
  "1 1.1 leave MPI_Recv\n1 1.1 leave main\n";

static char *
platform (const char *name)
{
  return g_build_filename (ts_test_srcdir (), "scenarios", "platforms", name, NULL);
}

/* Run tracesim expecting failure; check stderr names each of @needles and
 * that neither the output directory nor a temporary sibling is left. */
static void
expect_failure (const char *work, const char **args, const char *const *needles)
{
  TsToolResult r = ts_run_tracesim (args);
  if (r.status <= 0)
    fail_msg ("expected a clean non-zero exit, got %d; stderr: %s", r.status, r.err);
  for (guint i = 0; needles[i]; i++)
    if (!strstr (r.err, needles[i]))
      fail_msg ("stderr lacks '%s': %s", needles[i], r.err);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  assert_false (ts_test_dir_has_prefix (work, "out.tmp"));
  ts_tool_result_clear (&r);
}

/* Ensure that a truncated event file is reported with its rank. */
static void
test_truncated_events (void **state)
{
  g_autofree char *work = ts_test_workdir ("truncated");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *evt = g_build_filename (work, "trace", "traces", "1.evt", NULL);
  gsize len = 0;
  g_autofree char *data = NULL;
  assert_true (g_file_get_contents (evt, &data, &len, NULL));
  assert_true (len > 20);
  assert_true (g_file_set_contents (evt, data, len / 2, NULL));
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *plat = platform ("two-hosts.xml");
  expect_failure (work, (const char *[]) { "run", trace, "-p", plat, "-o", out, NULL },
                  (const char *const[]) { trace, "rank 1", NULL });
}

/* Ensure that an anchor file that is not OTF2 is refused by name. */
static void
test_corrupt_anchor (void **state)
{
  g_autofree char *work = ts_test_workdir ("corrupt");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  assert_true (g_file_set_contents (trace, "this is not an OTF2 anchor\n", -1, NULL));
  g_autofree char *out = g_build_filename (work, "out", NULL);
  expect_failure (work, (const char *[]) { "run", trace, "-o", out, NULL },
                  (const char *const[]) { trace, "OTF2", NULL });
}

/* Ensure that a missing trace is named. */
static void
test_missing_trace (void **state)
{
  g_autofree char *work = ts_test_workdir ("missing");
  g_autofree char *trace = g_build_filename (work, "nothing.otf2", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  expect_failure (work, (const char *[]) { "run", trace, "-o", out, NULL },
                  (const char *const[]) { trace, "no such trace", NULL });
}

/* Ensure a directory given instead of the trace's anchor file names the
 * anchor files really there, in it or one level down (an EZTrace archive's
 * is eztrace_log.otf2, not traces.otf2), or says that there is none. */
static void
test_directory_names_its_anchor (void **state)
{
  g_autofree char *work = ts_test_workdir ("anchordir");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  /* The archive work/trace/{traces.otf2,traces.def,traces/} renamed as
   * EZTrace names its own. */
  g_autofree char *dir = g_path_get_dirname (trace);
  const char *names[][2] = { { "traces.otf2", "eztrace_log.otf2" },
                             { "traces.def", "eztrace_log.def" },
                             { "traces", "eztrace_log" } };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = g_build_filename (dir, names[i][0], NULL);
      g_autofree char *to = g_build_filename (dir, names[i][1], NULL);
      assert_int_equal (g_rename (from, to), 0);
    }
  g_autofree char *anchor = g_build_filename (dir, "eztrace_log.otf2", NULL);
  g_autofree char *slash = g_strconcat (dir, "/", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *in_it = g_strdup_printf ("%s is a directory: give the trace's anchor file: %s",
                                            dir, anchor);
  /* The directory itself, with a trailing slash as a shell completes it. */
  expect_failure (work, (const char *[]) { "run", slash, "-o", out, NULL },
                  (const char *const[]) { in_it, NULL });
  /* One level up: the anchor one level down. */
  g_autofree char *above = g_strdup_printf ("%s is a directory: give the trace's anchor file: %s",
                                            work, anchor);
  expect_failure (work, (const char *[]) { "info", work, NULL },
                  (const char *const[]) { above, NULL });
  /* A second archive beside it: both named, sorted. */
  g_autofree char *second = g_build_filename (dir, "b.otf2", NULL);
  assert_true (g_file_set_contents (second, "x", 1, NULL));
  g_autofree char *both = g_strdup_printf ("give one of the anchor files found: %s or %s",
                                           second, anchor);
  expect_failure (work, (const char *[]) { "info", dir, NULL },
                  (const char *const[]) { both, NULL });
  /* The event files' directory holds no anchor, nor do its subdirectories. */
  g_autofree char *events = g_build_filename (dir, "eztrace_log", NULL);
  expect_failure (work, (const char *[]) { "info", events, NULL },
                  (const char *const[]) { "neither it nor its subdirectories hold an OTF2 "
                                          "anchor file", NULL });
  TsToolResult r = ts_run_tracesim ((const char *[]) { "info", events, NULL });
  assert_null (strstr (r.err, "traces.otf2"));
  ts_tool_result_clear (&r);
}

/* Ensure that a receive nobody sends to is reported as a deadlock naming the
 * blocked rank and what it waits for, instead of hanging. */
static void
test_unmatched_receive_deadlock (void **state)
{
  g_autofree char *work = ts_test_workdir ("deadlock");
  g_autofree char *trace = ts_test_generate_text (work,
    "ranks 2\n"
    "0 0.0 enter main\n0 1.0 leave main\n"
    "1 0.0 enter main\n1 0.0 enter MPI_Recv\n1 1.1 recv 0 tag=7 bytes=10\n"
    "1 1.1 leave MPI_Recv\n1 1.1 leave main\n");
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *plat = platform ("two-hosts.xml");
  expect_failure (work, (const char *[]) { "run", trace, "-p", plat, "-o", out, NULL },
                  (const char *const[]) { "deadlock", "rank 1: receive from rank 0", "tag 7",
                                          NULL });
}

/* Ensure that a deadlock in a trace whose receives recorded no source (as
 * EZTrace's irecvs) says so: rank 0's irecv is matched by guess to rank 1's
 * message (sent at 0.1 s, before the wait ended at 0.6 s), then rank 1's
 * receive from rank 0 finds no sender. One receive was guessed. The replay
 * is revised once (receives taking messages as they arrive) and still
 * deadlocks on the same receive; no send waited, so nothing else is left
 * to revise and the trace contradicts itself. */
static void
test_deadlock_names_guessed_receives (void **state)
{
  g_autofree char *work = ts_test_workdir ("deadlock-guessed");
  g_autofree char *trace = ts_test_generate_text (work,
    "ranks 2\n"
    "0 0.0 enter main\n0 0.0 enter MPI_Irecv\n0 0.0 irecv_request req=1\n0 0.0 leave MPI_Irecv\n"
    "0 0.5 enter MPI_Wait\n0 0.6 leave MPI_Wait\n0 1.0 leave main\n"
    "1 0.0 enter main\n1 0.1 enter MPI_Send\n1 0.1 send 0 tag=3 bytes=10\n1 0.1 leave MPI_Send\n"
    "1 0.2 enter MPI_Recv\n1 1.1 recv 0 tag=7 bytes=10\n1 1.1 leave MPI_Recv\n1 1.1 leave main\n");
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *plat = platform ("two-hosts.xml");
  expect_failure (work, (const char *[]) { "run", trace, "-p", plat, "-o", out, NULL },
                  (const char *const[]) { "after 1 revision of the replay's choices "
                                          "(receives taking messages as they arrive, rendezvous "
                                          "sends buffered between 0 pairs of ranks), the replay "
                                          "deadlocks",
                                          "rank 1: receive from rank 0",
                                          "1 receives of this trace recorded no source and "
                                          "took their messages as they arrived", NULL });
}

/* Ensure that a platform with fewer hosts than ranks is refused, naming both. */
static void
test_too_few_hosts (void **state)
{
  g_autofree char *work = ts_test_workdir ("fewhosts");
  g_autofree char *trace = ts_test_generate_text (work,
    "ranks 3\n0 0.0 enter main\n0 1.0 leave main\n1 0.0 enter main\n1 1.0 leave main\n"
    "2 0.0 enter main\n2 1.0 leave main\n");
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *plat = platform ("two-hosts.xml");
  expect_failure (work, (const char *[]) { "run", trace, "-p", plat, "-o", out, NULL },
                  (const char *const[]) { plat, "2 hosts", "3 ranks", NULL });
}

/* Ensure that an unknown option is refused by name. */
static void
test_unknown_option (void **state)
{
  g_autofree char *work = ts_test_workdir ("option");
  g_autofree char *out = g_build_filename (work, "out", NULL);
  expect_failure (work, (const char *[]) { "run", "--frobnicate", "x.otf2", "-o", out, NULL },
                  (const char *const[]) { "--frobnicate", NULL });
}

/* A malformed SimGrid item, or one SimGrid refuses, is reported by tracesim,
 * not by SimGrid's abort; so is a tree shape of neither library. */
static void
test_malformed_cfg (void **state)
{
  g_autofree char *work = ts_test_workdir ("cfg");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  expect_failure (work, (const char *[]) { "run", trace, "--cfg=nocolon", "-o", out, NULL },
                  (const char *const[]) { "nocolon", "ITEM:VALUE", NULL });
  /* Well formed but refused by SimGrid (it throws, which aborts a C
   * program): an unknown key, and a value that is not a number. No output
   * is left behind. */
  expect_failure (work, (const char *[]) { "run", trace, "--cfg=network/nosuch:1", "-o", out, NULL },
                  (const char *const[]) { "SimGrid rejects", "network/nosuch", NULL });
  expect_failure (work,
                  (const char *[]) { "run", trace, "--cfg=network/bandwidth-factor:fast", "-o", out,
                                     NULL },
                  (const char *const[]) { "SimGrid rejects", "invalid double", NULL });
  expect_failure (work,
                  (const char *[]) { "run", trace, "--binomial-tree=ompi", "-o", out, NULL },
                  (const char *const[]) { "--binomial-tree 'ompi'", "mpich or openmpi", NULL });
}

/* An unknown output format for convert is named with the known ones. */
static void
test_convert_unknown_format (void **state)
{
  g_autofree char *work = ts_test_workdir ("convfmt");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  expect_failure (work, (const char *[]) { "convert", trace, "--to", "dumpi", "-o", out, NULL },
                  (const char *const[]) { "dumpi", "ti", NULL });
}

/* A hypothesis naming no region of the trace stops the run before anything
 * is written, naming the file, the line and the closest region. */
static void
test_hypothesis_unknown_region (void **state)
{
  g_autofree char *work = ts_test_workdir ("hypregion");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *hyp = g_build_filename (work, "x.hyp", NULL);
  assert_true (g_file_set_contents (hyp, "# typo\n[region:mian]\nscale = 0.5\n", -1, NULL));
  g_autofree char *out = g_build_filename (work, "out", NULL);
  expect_failure (work, (const char *[]) { "run", trace, "-H", hyp, "-o", out, NULL },
                  (const char *const[]) { "x.hyp:2:", "mian", "closest names: main", NULL });
}

/* A malformed hypothesis value is refused with its line. */
static void
test_hypothesis_bad_value (void **state)
{
  g_autofree char *work = ts_test_workdir ("hypvalue");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *hyp = g_build_filename (work, "x.hyp", NULL);
  assert_true (g_file_set_contents (hyp, "[hosts]\nspeed = -1\n", -1, NULL));
  g_autofree char *out = g_build_filename (work, "out", NULL);
  expect_failure (work, (const char *[]) { "run", trace, "-H", hyp, "-o", out, NULL },
                  (const char *const[]) { "x.hyp:2:", "positive", NULL });
}

/* Ensure that a platform file that does not exist is named. */
static void
test_missing_platform (void **state)
{
  g_autofree char *work = ts_test_workdir ("noplatform");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  expect_failure (work, (const char *[]) { "run", trace, "-p", "/nonexistent.xml", "-o", out, NULL },
                  (const char *const[]) { "/nonexistent.xml", NULL });
}

/* Two hosts joined by one link, with the given attribute values. */
#define TWO_HOSTS(speed, bw, lat, route)                                                       \
  "<?xml version=\"1.0\"?>\n"                                                                 \
  "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"                          \
  "<platform version=\"4.1\">\n"                                                              \
  "<zone id=\"z\" routing=\"Full\">\n"                                                        \
  "<host id=\"a\" speed=\"" speed "\"/><host id=\"b\" speed=\"1Gf\"/>\n"                      \
  "<link id=\"l\" bandwidth=\"" bw "\" latency=\"" lat "\"/>\n"                               \
  route "</zone></platform>\n"
#define ROUTE "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"

/* Platform files SimGrid would refuse without a column, abort on
 * mid-replay, or accept and simulate nonsense with: each is refused before
 * the replay with file, line and column of the '<' that opens the offending
 * element (counted by hand in the texts below), or for what only the
 * loaded platform tells (a missing route) with the hosts. No output is left
 * behind (expect_failure checks). */
static void
test_malformed_platforms (void **state)
{
  static const struct {
    const char *text;
    const char *want[3];
  } bad[] = {
    { "not xml at all\n", { ":1:1:", "begin with an element" } },
    { "", { ":1:1:", "empty" } },
    { "<?xml version=\"1.0\"?>\n<html><body>a web page</body></html>\n",
      { ":2:1:", "root element is <html>" } },
    { "<?xml version=\"1.0\"?>\n<!DOCTYPE platform [<!ENTITY x \"y\">]>\n<platform/>\n",
      { ":2:1:", "DOCTYPE with its own declarations" } },
    { "<?xml version=\"1.0\"?>\n<platform version=\"4.1\"><include file=\"o.xml\"/></platform>\n",
      { ":2:25:", "<include> is not supported" } },
    { TWO_HOSTS ("1Gf", "0Bps", "1us", ROUTE), { ":6:1:", "bandwidth '0Bps' must be more than zero" } },
    { TWO_HOSTS ("1Gf", "-1GBps", "1us", ROUTE), { ":6:1:", "must be more than zero" } },
    { TWO_HOSTS ("1Gf", "nanBps", "1us", ROUTE), { ":6:1:", "not finite" } },
    { TWO_HOSTS ("0f", "1GBps", "1us", ROUTE), { ":5:1:", "speed '0f' must be more than zero" } },
    { TWO_HOSTS ("1Gf", "100", "1us", ROUTE), { ":6:1:", "'100' has no unit" } },
    { TWO_HOSTS ("1Gf", "1GBps", "-1us", ROUTE), { ":6:1:", "latency '-1us' must be zero or more" } },
    { TWO_HOSTS ("1Gf", "1GBps", "1us", ""), { "no route from host 'a' to host 'b'" } },
    { TWO_HOSTS ("1Gf", "1GB", "1us", ROUTE), { ":6:1:", "unknown unit 'GB'" } },
    /* An attribute SimGrid's DTD does not have: its parser names it. */
    { TWO_HOSTS ("1Gf\" colour=\"red", "1GBps", "1us", ROUTE),
      { ":5:", "Bad attribute `colour' in `host' element" } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *name = g_strdup_printf ("badplatform-%u", i);
      g_autofree char *work = ts_test_workdir (name);
      g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
      g_autofree char *plat = g_build_filename (work, "platform.xml", NULL);
      assert_true (g_file_set_contents (plat, bad[i].text, -1, NULL));
      g_autofree char *out = g_build_filename (work, "out", NULL);
      expect_failure (work, (const char *[]) { "run", trace, "-p", plat, "-o", out, NULL },
                      (const char *const[]) { plat, bad[i].want[0], bad[i].want[1], NULL });
    }
  /* The same file with sane values replays: the checks refuse only the bad. */
  g_autofree char *work = ts_test_workdir ("goodplatform");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *plat = g_build_filename (work, "platform.xml", NULL);
  assert_true (g_file_set_contents (plat, TWO_HOSTS ("1Gf", "1GBps", "1us", ROUTE), -1, NULL));
  g_autofree char *out = g_build_filename (work, "out", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "run", trace, "-p", plat, "-o", out, "-q",
                                                        NULL });
  if (r.status != 0)
    fail_msg ("the sane platform was refused: %s", r.err);
  ts_tool_result_clear (&r);
}

/* Ensure that factors that make a compute burst longer than the simulated
 * clock can resolve are refused rather than aborting SimGrid ("duration is
 * not finite"): out of bounds in the file, with its line; within bounds but
 * beyond the clock together, naming the rank. */
static void
test_extreme_scale (void **state)
{
  g_autofree char *work = ts_test_workdir ("extreme-scale");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *hyp = g_build_filename (work, "x.hyp", NULL);
  assert_true (g_file_set_contents (hyp, "[region:main]\nscale = 1e308\n", -1, NULL));
  g_autofree char *out = g_build_filename (work, "out", NULL);
  /* Refused where it is written. */
  expect_failure (work, (const char *[]) { "run", trace, "-H", hyp, "-o", out, NULL },
                  (const char *const[]) { "x.hyp:2:", "more than 1e+06", NULL });
  /* Each factor within bounds, together beyond the clock: rank 0's 1 s of
   * main x 1e6 scale / 1e-6 speed = 1e12 s > 9e9 s (2^53 us). */
  assert_true (g_file_set_contents (hyp, "[region:main]\nscale = 1e6\n[hosts]\nspeed = 1e-6\n",
                                    -1, NULL));
  expect_failure (work, (const char *[]) { "run", trace, "-H", hyp, "-o", out, NULL },
                  (const char *const[]) { "rank 0", "beyond what the simulated clock resolves",
                                          NULL });
}

/* Ensure every command's usage errors exit with 2 (cli/commands.h: 0 done,
 * 1 failed, 2 usage) and say where the usage is: an unknown option, the
 * command without its arguments, and option values the command line alone
 * shows are wrong; while an input that cannot be used (a trace that is not
 * there) stays a failure, 1. */
static void
test_usage_errors_exit_2 (void **state)
{
  const char *commands[] = { "run", "info", "calibrate", "platform", "sweep", "hypotheses",
                             "waitstates", "advise", "report", "extrapolate", "convert" };
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *try = g_strdup_printf ("Try 'tracesim help %s'", commands[i]);
      TsToolResult r = ts_run_tracesim ((const char *[]) { commands[i], "--frobnicate", NULL });
      if (r.status != 2 || !strstr (r.err, "--frobnicate") || !strstr (r.err, try))
        fail_msg ("%s --frobnicate: status %d, stderr: %s", commands[i], r.status, r.err);
      ts_tool_result_clear (&r);
      r = ts_run_tracesim ((const char *[]) { commands[i], NULL });
      if (r.status != 2 || !strstr (r.err, try))
        fail_msg ("%s without arguments: status %d, stderr: %s", commands[i], r.status, r.err);
      ts_tool_result_clear (&r);
    }
  g_autofree char *work = ts_test_workdir ("usage");
  g_autofree char *trace = ts_test_generate_text (work, two_rank_ok);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *missing = g_build_filename (work, "missing.otf2", NULL);
  const char *const *cases[] = {
    (const char *[]) { "hypotheses", "check", "--frobnicate", NULL },
    (const char *[]) { "hypotheses", "check", trace, NULL }, /* no hypothesis file */
    (const char *[]) { "run", trace, NULL },                 /* no -o */
    (const char *[]) { "run", trace, trace, "-o", out, NULL },
    (const char *[]) { "run", trace, "--binomial-tree=ompi", "-o", out, NULL },
    (const char *[]) { "run", trace, "--cfg=nocolon", "-o", out, NULL },
    (const char *[]) { "run", trace, "--trace-speed=-1", "-o", out, NULL },
    (const char *[]) { "run", trace, "--ranks-per-node=x", "-o", out, NULL },
    (const char *[]) { "convert", trace, "--to", "dumpi", "-o", out, NULL },
    (const char *[]) { "advise", trace, "--factor", "2", NULL },
    (const char *[]) { "platform", "-o", out, "--nodes", "-3", NULL },
    (const char *[]) { "platform", "-o", out, "--network", "fast", NULL },
    (const char *[]) { "info", trace, trace, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      TsToolResult r = ts_run_tracesim ((const char **) cases[i]);
      g_autofree char *line = g_strjoinv (" ", (char **) cases[i]);
      if (r.status != 2 || !strstr (r.err, "Try 'tracesim help "))
        fail_msg ("%s: status %d, stderr: %s", line, r.status, r.err);
      assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
      ts_tool_result_clear (&r);
    }
  TsToolResult r = ts_run_tracesim ((const char *[]) { "info", missing, NULL });
  assert_int_equal (r.status, 1);
  ts_tool_result_clear (&r);
}

/* Ensure platform takes a bare speed as flop/s, as run's --trace-speed
 * does: --speed 2e9 writes the file --speed 2Gf writes (2e9 = 2 x 10^9
 * flop/s = 2 Gflop/s), in the options and in a key file; a bare bandwidth
 * (bits or bytes?) is still refused. */
static void
test_platform_bare_speed (void **state)
{
  g_autofree char *work = ts_test_workdir ("barespeed");
  g_autofree char *with_unit = g_build_filename (work, "unit.xml", NULL);
  g_autofree char *bare = g_build_filename (work, "bare.xml", NULL);
  g_autofree char *keyed = g_build_filename (work, "keyed.xml", NULL);
  g_autofree char *ini = g_build_filename (work, "c.ini", NULL);
  assert_true (g_file_set_contents (ini, "[cluster]\nnodes = 4\nspeed = 2e9\n", -1, NULL));
  const char *const *runs[] = {
    (const char *[]) { "platform", "--nodes", "4", "--speed", "2Gf", "-o", with_unit, NULL },
    (const char *[]) { "platform", "--nodes", "4", "--speed", "2e9", "-o", bare, NULL },
    (const char *[]) { "platform", "--config", ini, "-o", keyed, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      TsToolResult r = ts_run_tracesim ((const char **) runs[i]);
      if (r.status != 0)
        fail_msg ("%s: status %d, stderr: %s", runs[i][4], r.status, r.err);
      ts_tool_result_clear (&r);
    }
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  assert_true (g_file_get_contents (with_unit, &a, NULL, NULL));
  assert_true (g_file_get_contents (bare, &b, NULL, NULL));
  assert_true (g_file_get_contents (keyed, &c, NULL, NULL));
  assert_non_null (strstr (a, "speed=\"2000000000f\""));
  assert_string_equal (a, b);
  /* The key file's platform differs only in the comment naming its source. */
  assert_non_null (strstr (c, "speed=\"2000000000f\""));
  TsToolResult r = ts_run_tracesim ((const char *[]) { "platform", "--nodes", "4", "--network",
                                                       "100,1us", "-o", bare, NULL });
  assert_int_equal (r.status, 2);
  assert_non_null (strstr (r.err, "has no unit"));
  ts_tool_result_clear (&r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_truncated_events),
    cmocka_unit_test (test_corrupt_anchor),
    cmocka_unit_test (test_missing_trace),
    cmocka_unit_test (test_directory_names_its_anchor),
    cmocka_unit_test (test_unmatched_receive_deadlock),
    cmocka_unit_test (test_deadlock_names_guessed_receives),
    cmocka_unit_test (test_too_few_hosts),
    cmocka_unit_test (test_unknown_option),
    cmocka_unit_test (test_missing_platform),
    cmocka_unit_test (test_malformed_platforms),
    cmocka_unit_test (test_extreme_scale),
    cmocka_unit_test (test_malformed_cfg),
    cmocka_unit_test (test_convert_unknown_format),
    cmocka_unit_test (test_hypothesis_unknown_region),
    cmocka_unit_test (test_hypothesis_bad_value),
    cmocka_unit_test (test_usage_errors_exit_2),
    cmocka_unit_test (test_platform_bare_speed),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
