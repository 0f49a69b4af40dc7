/* Failed tests decide completion (scenarios/polling-*): where in the
 * predicted timeline a polled receive completes, read back with OTF2's own
 * reader. Derivations are in the scenarios' expected.ini. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "tests/readback.h"
#include "tests/tool-run.h"

/* Replay scenario @name (with @hyp, or none) and return the time in ticks
 * of rank 1's predicted MpiIrecv; fills @csv with waitstates.csv. */
static guint64
irecv_time (const char *name, const char *hyp, char **csv)
{
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", name, NULL);
  g_autofree char *work = ts_test_workdir (hyp ? name : "polling-identity");
  g_autofree char *trace = ts_test_generate (work, dir);
  g_autofree char *platform = g_build_filename (ts_test_srcdir (), "scenarios", "platforms",
                                                "two-hosts.xml", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *hyp_path = hyp ? g_build_filename (dir, hyp, NULL) : NULL;
  const char *args[] = { "run", trace, "-p", platform, "-o", out, "-q",
                         hyp ? "-H" : NULL, hyp_path, NULL };
  g_autofree char *why = NULL;
  *csv = ts_run_tracesim_output (args, out, "waitstates.csv", &why);
  if (!*csv)
    fail_msg ("%s: %s", name, why);
  g_autofree char *pdir = g_build_filename (out, "predicted", NULL);
  RbArchive *a = rb_archive_load (pdir, "traces");
  assert_non_null (a);
  assert_int_equal (rb_archive_count (a, 1, RB_IRECV), 1);
  guint64 t = rb_archive_find (a, 1, RB_IRECV, 0)->time;
  rb_archive_free (a);
  return t;
}

/* As recorded (the message arrives at 1.00011, after the last failed test
 * at 1.0): the receive completes in MPI_Wait at 1.2. */
static void
test_identity_completes_in_wait (void **state)
{
  g_autofree char *csv = NULL;
  assert_int_equal (irecv_time ("polling-faster", NULL, &csv), 1200000000);
}

/* Sender 2x faster: the message arrives at 0.50011, so the failed test at
 * 0.6 is where it completes, to the nanosecond tick. */
static void
test_faster_sender_completes_at_test (void **state)
{
  g_autofree char *csv = NULL;
  assert_int_equal (irecv_time ("polling-faster", "faster.hyp", &csv), 600000000);
  /* Nobody waits. */
  assert_null (strstr (csv, "predicted,late_sender"));
}

/* Sender 1.5x slower: the successful test at 1.2 blocks until 1.50011. The
 * 0.3 s until the send started is spent in MPI_Test, which Scalasca never
 * counts as Late Sender (doc/waitstates.md): no wait state is reported in it. */
static void
test_slower_sender_blocks_at_test (void **state)
{
  g_autofree char *csv = NULL;
  assert_int_equal (irecv_time ("polling-slower", "slower.hyp", &csv), 1500110000);
  assert_null (strstr (csv, "predicted,late_sender,MPI_Test"));
}

/* A wait that completes a cancelled receive records no message, but it is
 * not a completion to guess: with another receive outstanding, tracesim
 * must not infer that the wait completed that one. Rank 1 posts receive 1
 * (tag 1, sent by rank 0 at 1.0 s) and receive 2 (tag 2, never sent),
 * cancels 2 and waits for it at 0.5 s, then waits for 1. Every call is
 * recorded: info reports 0 inferred and 0 missing calls. */
static void
test_cancelled_receive_is_not_inferred (void **state)
{
  g_autofree char *work = ts_test_workdir ("cancelled");
  g_autofree char *trace = ts_test_generate_text (work,
    "ranks 2\n"
    "0 0.0 enter main\n0 1.0 enter MPI_Send\n0 1.0 send 1 tag=1 bytes=8\n0 1.0 leave MPI_Send\n"
    "0 1.1 leave main\n"
    "1 0.0 enter main\n"
    "1 0.0 enter MPI_Irecv\n1 0.0 irecv_request req=1\n1 0.0 leave MPI_Irecv\n"
    "1 0.0 enter MPI_Irecv\n1 0.0 irecv_request req=2\n1 0.0 leave MPI_Irecv\n"
    "1 0.5 enter MPI_Cancel\n1 0.5 leave MPI_Cancel\n"
    "1 0.5 enter MPI_Wait\n1 0.5 request_cancelled req=2\n1 0.5 leave MPI_Wait\n"
    "1 0.6 enter MPI_Wait\n1 1.0001 irecv 0 tag=1 bytes=8 req=1\n1 1.0001 leave MPI_Wait\n"
    "1 1.1 leave main\n");
  TsToolResult r = ts_run_tracesim ((const char *[]) { "info", trace, NULL });
  if (r.status != 0)
    fail_msg ("tracesim info: %s", r.err);
  g_autoptr (GRegex) inferred = g_regex_new ("inferred +0 calls", 0, 0, NULL);
  g_autoptr (GRegex) missing = g_regex_new ("missing +0 calls", 0, 0, NULL);
  if (!g_regex_match (inferred, r.out, 0, NULL) || !g_regex_match (missing, r.out, 0, NULL))
    fail_msg ("expected nothing inferred or missing:\n%s", r.out);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_identity_completes_in_wait),
    cmocka_unit_test (test_faster_sender_completes_at_test),
    cmocka_unit_test (test_slower_sender_blocks_at_test),
    cmocka_unit_test (test_cancelled_receive_is_not_inferred),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
