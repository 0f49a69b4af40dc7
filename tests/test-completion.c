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
 * 0.3 s until the send started (1.5 - 1.2) is spent waiting in MPI_Test: in
 * a predicted execution a test that blocks counts it as Late Sender
 * (doc/waitstates.md), which Scalasca, seeing only recordings, never meets;
 * the recording's test waited for nothing. */
static void
test_slower_sender_blocks_at_test (void **state)
{
  g_autofree char *csv = NULL;
  assert_int_equal (irecv_time ("polling-slower", "slower.hyp", &csv), 1500110000);
  assert_non_null (strstr (csv, "predicted,late_sender,MPI_Test,1,0.300000000"));
  assert_null (strstr (csv, "original,late_sender"));
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

/* `tracesim info`'s output for the trace @text, which must match every
 * regular expression of @patterns (NULL-terminated), or not match one
 * written with a leading '!'. */
static void
assert_info_matches (const char *name, const char *text, const char *const *patterns)
{
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *trace = ts_test_generate_text (work, text);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "info", trace, NULL });
  if (r.status != 0)
    fail_msg ("tracesim info: %s", r.err);
  for (guint i = 0; patterns[i]; i++)
    {
      gboolean negated = patterns[i][0] == '!';
      g_autoptr (GRegex) re = g_regex_new (patterns[i] + negated, 0, 0, NULL);
      if (g_regex_match (re, r.out, 0, NULL) == negated)
        fail_msg ("%s: expected %s/%s/ in:\n%s", name, negated ? "no " : "", patterns[i] + negated,
                  r.out);
    }
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

/* EZTrace fills MPI_Waitany's status in from an uninitialised MPI_Status
 * (shared traces' README, quirk 14): sender 3967089088 and a length of
 * 2^64 - 32766, as its LAMMPS peptide trace has 120 times. The receive
 * still took rank 0's message, so its envelope is inferred (1 inferred
 * call, the wait, and 0 missing), and no message is left that no receive
 * took. Read as recorded it was a receive from nobody: 1 missing call and
 * rank 0's message unreceived. */
static void
test_garbage_status_is_inferred (void **state)
{
  assert_info_matches ("garbage-status",
    "ranks 2\n"
    "0 0.0 enter main\n0 1.0 enter MPI_Send\n0 1.0 send 1 tag=5 bytes=8\n0 1.0 leave MPI_Send\n"
    "0 1.1 leave main\n"
    "1 0.0 enter main\n"
    "1 0.0 enter MPI_Irecv\n1 0.0 irecv_request req=1\n1 0.0 leave MPI_Irecv\n"
    "1 0.6 enter MPI_Waitany\n"
    "1 1.0001 irecv raw:3967089088 tag=21895 bytes=18446744073709518850 req=1\n"
    "1 1.0001 leave MPI_Waitany\n"
    "1 1.1 leave main\n",
    (const char *[]) { "inferred +1 calls", "missing +0 calls",
                       "1 receives recorded no source and were given a message by guess; "
                       "0 messages no receive took", NULL });
}

/* A status whose sender is MPI_PROC_NULL (Open MPI's -2, 4294967294 in
 * OTF2's uint32) is a receive that took nothing: rank 0 sent nothing, and
 * the wait is neither inferred nor missing, and nothing is guessed (no
 * "matching:" line). */
static void
test_proc_null_status_takes_nothing (void **state)
{
  assert_info_matches ("proc-null-status",
    "ranks 2\n"
    "0 0.0 enter main\n0 1.1 leave main\n"
    "1 0.0 enter main\n"
    "1 0.0 enter MPI_Irecv\n1 0.0 irecv_request req=1\n1 0.0 leave MPI_Irecv\n"
    "1 0.6 enter MPI_Wait\n1 0.6001 irecv raw:4294967294 tag=0 bytes=0 req=1\n"
    "1 0.6001 leave MPI_Wait\n"
    "1 1.1 leave main\n",
    (const char *[]) { "inferred +0 calls", "missing +0 calls", "!matching:", NULL });
}

/* The stale-status traces' common part: after the first barrier, rank 0's
 * second receive completes in an MPI_Waitsome recording tag 4 again; rank
 * 1 sends tag 4 before the first barrier and tag 5 after it. */
#define STALE_PHASE_2 \
  "0 0.3 enter MPI_Irecv\n0 0.3 irecv_request req=2\n0 0.3 leave MPI_Irecv\n" \
  "0 0.4 enter MPI_Waitsome\n0 0.5 irecv 1 tag=4 bytes=800 req=2\n0 0.5 leave MPI_Waitsome\n" \
  "0 0.5 enter MPI_Barrier\n0 0.5 coll_begin\n0 0.6 coll_end barrier\n0 0.6 leave MPI_Barrier\n" \
  "0 0.6 leave main\n" \
  "1 0.0 enter main\n" \
  "1 0.05 enter MPI_Send\n1 0.05 send 0 tag=4 bytes=800\n1 0.05 leave MPI_Send\n" \
  "1 0.2 enter MPI_Barrier\n1 0.2 coll_begin\n1 0.3 coll_end barrier\n1 0.3 leave MPI_Barrier\n" \
  "1 0.35 enter MPI_Send\n1 0.35 send 0 tag=5 bytes=800\n1 0.35 leave MPI_Send\n" \
  "1 0.5 enter MPI_Barrier\n1 0.5 coll_begin\n1 0.6 coll_end barrier\n1 0.6 leave MPI_Barrier\n" \
  "1 0.6 leave main\n"

/* A stale status (the MPICH probe trace of ../shared: MPI_Waitsome
 * reporting the previous phase's message). Rank 1 sends tag 4, then, after
 * a barrier, tag 5. Rank 0's first irecv completes in an MPI_Waitany that
 * records nothing; its second, in an MPI_Waitsome that records tag 4 again.
 * Taken as recorded, tag 4 is the second receive's, so the first is given
 * tag 5, sent after the barrier it must reach first: the replay deadlocks.
 * The guessed receive taking its message as it arrives (the first
 * revision) is not enough: tag 4 is still the second receive's. The status
 * array's envelope is revisable too: the third replay lets both take their
 * messages as they arrive (tag 4, then tag 5), and completes. Before, a
 * deadlock was reported. */
static void
test_stale_status_is_revised (void **state)
{
  assert_info_matches ("stale-status",
    "ranks 2\n"
    "0 0.0 enter main\n"
    "0 0.0 enter MPI_Irecv\n0 0.0 irecv_request req=1\n0 0.0 leave MPI_Irecv\n"
    "0 0.1 enter MPI_Waitany\n0 0.2 leave MPI_Waitany\n"
    "0 0.2 enter MPI_Barrier\n0 0.2 coll_begin\n0 0.3 coll_end barrier\n0 0.3 leave MPI_Barrier\n"
    STALE_PHASE_2,
    (const char *[]) { "replay: +identity", "revised: +2 replays made again after deadlocks: the 1 "
                       "guessed receives and the 1 whose envelope MPI_Waitany & co. gave", NULL });
}

/* The same with nothing to infer: both receives complete in an
 * MPI_Waitsome that records a status, the second one stale (tag 4 again).
 * Taken as recorded, the second waits for a second tag-4 message that
 * never comes, and rank 1's tag-5 message is one no receive took. Their
 * envelopes are revisable although no envelope was guessed: one revision
 * lets both take their messages as they arrive (tag 4, then tag 5). */
static void
test_stale_status_without_guesses_is_revised (void **state)
{
  assert_info_matches ("stale-status-only",
    "ranks 2\n"
    "0 0.0 enter main\n"
    "0 0.0 enter MPI_Irecv\n0 0.0 irecv_request req=1\n0 0.0 leave MPI_Irecv\n"
    "0 0.1 enter MPI_Waitsome\n0 0.15 irecv 1 tag=4 bytes=800 req=1\n0 0.2 leave MPI_Waitsome\n"
    "0 0.2 enter MPI_Barrier\n0 0.2 coll_begin\n0 0.3 coll_end barrier\n0 0.3 leave MPI_Barrier\n"
    STALE_PHASE_2,
    (const char *[]) { "replay: +identity", "revised: +1 replay made again after deadlocks: the 2 "
                       "receives whose envelope MPI_Waitany & co. gave took their messages", NULL });
}

/* Counts come before clocks: rank 1's only receive ends (0.9 s) before
 * rank 0's only message to it is stamped (1.0 s), by 0.1 s, far more than
 * the 50 us the clock alignment is allowed. With as many receives as
 * messages, the receive took that message all the same (misaligned clocks,
 * or a wait that completed another request): 1 guessed, 0 unreceived. */
static void
test_counts_before_clocks (void **state)
{
  assert_info_matches ("counts-before-clocks",
    "ranks 2\n"
    "0 0.0 enter main\n0 1.0 enter MPI_Send\n0 1.0 send 1 tag=5 bytes=8\n0 1.0 leave MPI_Send\n"
    "0 1.1 leave main\n"
    "1 0.0 enter main\n"
    "1 0.0 enter MPI_Irecv\n1 0.0 irecv_request req=1\n1 0.0 leave MPI_Irecv\n"
    "1 0.5 enter MPI_Wait\n1 0.9 leave MPI_Wait\n"
    "1 1.1 leave main\n",
    (const char *[]) { "1 receives recorded no source and were given a message by guess; "
                       "0 messages no receive took", NULL });
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_identity_completes_in_wait),
    cmocka_unit_test (test_faster_sender_completes_at_test),
    cmocka_unit_test (test_slower_sender_blocks_at_test),
    cmocka_unit_test (test_cancelled_receive_is_not_inferred),
    cmocka_unit_test (test_garbage_status_is_inferred),
    cmocka_unit_test (test_proc_null_status_takes_nothing),
    cmocka_unit_test (test_counts_before_clocks),
    cmocka_unit_test (test_stale_status_is_revised),
    cmocka_unit_test (test_stale_status_without_guesses_is_revised),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
