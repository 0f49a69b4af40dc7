/* analysis/waitstates.c called as a library on a small trace written in the
 * test (tools/tracegen/script.h): totals, per-rank values, each waiting span
 * and the cell order waitstates.csv is written in. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "analysis/waitstates.h"
#include "calibrate/calibration.h"
#include "model/trace.h"
#include "tests/scripted.h"

/* Rank 1 waits 0.5 s in MPI_Recv (1.0) for rank 0's MPI_Send (1.5): Late
 * Sender. Rank 0's MPI_Send of 100 kB enters at 2.0, its receiver rank 2
 * at 2.5, and it leaves at 2.6: Late Receiver, min(2.5, 2.6) - 2.0 = 0.5 s.
 * All three enter MPI_Allreduce at 3.0, 3.2 and 3.5 and leave at 3.6: Wait
 * at NxN, the last entry minus each one's, 0.5 + 0.3 + 0 = 0.8 s. Rank 2's
 * receive entered after its sender: no Late Sender there. */
static const char *script =
  "ranks 3\n"
  "0 0 enter main\n"
  "0 1.5 enter MPI_Send\n0 1.5 send 1 bytes=8\n0 1.5 leave MPI_Send\n"
  "0 2.0 enter MPI_Send\n0 2.0 send 2 bytes=100000\n0 2.6 leave MPI_Send\n"
  "0 3.0 enter MPI_Allreduce\n0 3.0 coll_begin\n0 3.6 coll_end allreduce sent=8 recv=8\n"
  "0 3.6 leave MPI_Allreduce\n0 4 leave main\n"
  "1 0 enter main\n"
  "1 1.0 enter MPI_Recv\n1 1.6 recv 0 bytes=8\n1 1.6 leave MPI_Recv\n"
  "1 3.2 enter MPI_Allreduce\n1 3.2 coll_begin\n1 3.6 coll_end allreduce sent=8 recv=8\n"
  "1 3.6 leave MPI_Allreduce\n1 4 leave main\n"
  "2 0 enter main\n"
  "2 2.5 enter MPI_Recv\n2 2.6 recv 0 bytes=100000\n2 2.6 leave MPI_Recv\n"
  "2 3.5 enter MPI_Allreduce\n2 3.5 coll_begin\n2 3.6 coll_end allreduce sent=8 recv=8\n"
  "2 3.6 leave MPI_Allreduce\n2 4 leave main\n";

typedef struct {
  char *dir;
  TsTrace *trace;
  TsCalibration *cal;
} Fixture;

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  f->trace = ts_test_script_open (script, &f->dir);
  f->cal = ts_calibration_compute (f->trace, NULL);
  *state = f;
  return f->cal ? 0 : -1;
}

static int
teardown (void **state)
{
  Fixture *f = *state;
  ts_calibration_free (f->cal);
  ts_trace_free (f->trace);
  ts_test_script_remove (f->dir);
  g_free (f);
  return 0;
}

/* Ensure the totals and per-rank values derived above, and nothing else. */
static void
test_totals_and_ranks (void **state)
{
  Fixture *f = *state;
  GError *error = NULL;
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse (f->trace, f->cal, &error);
  assert_non_null (w);
  assert_float_equal (ts_wait_states_total (w, TS_WAIT_LATE_SENDER), 0.5, 1e-9);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_LATE_SENDER, 1), 0.5, 1e-9);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_LATE_SENDER, 2), 0.0, 1e-9);
  assert_float_equal (ts_wait_states_total (w, TS_WAIT_LATE_RECEIVER), 0.5, 1e-9);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_LATE_RECEIVER, 0), 0.5, 1e-9);
  assert_float_equal (ts_wait_states_total (w, TS_WAIT_NXN), 0.8, 1e-9);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_NXN, 0), 0.5, 1e-9);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_NXN, 1), 0.3, 1e-9);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_NXN, 2), 0.0, 1e-9);
  for (TsWaitPattern p = TS_WAIT_BARRIER; p < TS_WAIT_N_PATTERNS; p++)
    assert_float_equal (ts_wait_states_total (w, p), 0.0, 1e-12);
}

typedef struct {
  TsWaitPattern pattern;
  guint rank;
  guint region;
  double start, seconds;
} Span;

static void
collect_span (TsWaitPattern p, guint rank, guint region, double start, double seconds,
              gpointer user_data)
{
  Span s = { p, rank, region, start, seconds };
  g_array_append_val ((GArray *) user_data, s);
}

/* Ensure each waiting span is reported where it happened: the Late Sender
 * on rank 1 in MPI_Recv from 1.0 for 0.5 s, the Late Receiver on rank 0 in
 * MPI_Send from 2.0 for 0.5 s, Wait at NxN on rank 0 from 3.0 for 0.5 s and
 * on rank 1 from 3.2 for 0.3 s; rank 2 did not wait. */
static void
test_spans (void **state)
{
  Fixture *f = *state;
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse_spans (f->trace, f->cal, collect_span,
                                                             spans, NULL);
  assert_non_null (w);
  const Span want[] = {
    { TS_WAIT_LATE_SENDER, 1, ts_trace_region_by_name (f->trace, "MPI_Recv"), 1.0, 0.5 },
    { TS_WAIT_LATE_RECEIVER, 0, ts_trace_region_by_name (f->trace, "MPI_Send"), 2.0, 0.5 },
    { TS_WAIT_NXN, 0, ts_trace_region_by_name (f->trace, "MPI_Allreduce"), 3.0, 0.5 },
    { TS_WAIT_NXN, 1, ts_trace_region_by_name (f->trace, "MPI_Allreduce"), 3.2, 0.3 },
  };
  assert_int_equal (spans->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      gboolean found = FALSE;
      for (guint j = 0; j < spans->len && !found; j++)
        {
          const Span *s = &g_array_index (spans, Span, j);
          found = s->pattern == want[i].pattern && s->rank == want[i].rank
                  && s->region == want[i].region && fabs (s->start - want[i].start) < 1e-9
                  && fabs (s->seconds - want[i].seconds) < 1e-9;
        }
      if (!found)
        fail_msg ("no span of %s on rank %u from %g s", ts_wait_pattern_name (want[i].pattern),
                  want[i].rank, want[i].start);
    }
}

static void
collect_cell (TsWaitPattern p, guint region, guint rank, double seconds, gpointer user_data)
{
  g_string_append_printf (user_data, "%s %u %.1f\n", ts_wait_pattern_name (p), rank, seconds);
}

/* Ensure the cells come ordered by pattern, region, rank (the order of
 * waitstates.csv), zero cells left out. */
static void
test_cell_order (void **state)
{
  Fixture *f = *state;
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse (f->trace, f->cal, NULL);
  assert_non_null (w);
  g_autoptr (GString) cells = g_string_new (NULL);
  ts_wait_states_foreach (w, collect_cell, cells);
  assert_string_equal (cells->str, "late_sender 1 0.5\nlate_receiver 0 0.5\n"
                                   "wait_nxn 0 0.5\nwait_nxn 1 0.3\n");
}

/* The patterns after the waiting and around it, three ranks:
 * (Collective times are those of MPI_COLLECTIVE_BEGIN and _END, which the
 * script writes at the call's enter and leave.)
 * - MPI_Init: all enter at 0, leave at 0.1, 0.2, 0.3. Init Completion runs
 *   from the first leave (0.1) to each one's own: 0 + 0.1 + 0.2 = 0.3.
 * - MPI_Allreduce: all enter at 1.0, leave at 1.1, 1.3, 1.4. Nobody waits
 *   before it; NxN Completion from the first leave (1.1): 0.2 + 0.3 = 0.5.
 * - MPI_Barrier: enter at 2.0, 2.0, 2.5, leave at 2.6, 2.7, 2.9. Wait at
 *   Barrier 0.5 + 0.5; Barrier Completion from max(first leave 2.6, last
 *   entry 2.5) = 2.6: 0.1 + 0.3 = 0.4.
 * - MPI_Scan: enter at 3.5 (rank 0), 3.0 (rank 1), 3.3 (rank 2), all end
 *   at 3.6. Early Scan: each waits for the latest entry of the ranks up to
 *   it, rank 1 for rank 0 (0.5), rank 2 for max(3.5, 3.0) (0.2): 0.7.
 * - Wrong order: rank 0 sends tag 1 to rank 2 at 4.0, rank 1 tag 2 at 5.0;
 *   rank 2 waits in MPI_Recv for tag 2 from rank 1 from 4.5, a Late Sender
 *   of 0.5. Its next receive, at 5.2, takes rank 0's message, sent at 4.0,
 *   before the one it waited for: that Late Sender, all 0.5 s, was Wrong
 *   Order.
 * - MPI_Reduce to rank 0: enters at 6.0, the others at 6.5 and 7.0, all
 *   end at 7.1. Early Reduce, as Scalasca 2.6 revised it: the root waits
 *   for the latest sender (every member sends): 7.0 - 6.0 = 1.0.
 * - MPI_Finalize: enter at 8.0, 8.5, 9.0, leave at 9.1. Finalize Wait:
 *   until the last entry, 1.0 + 0.5 = 1.5. */
static const char *around =
  "ranks 3\n"
  "0 0 enter MPI_Init\n0 0.1 leave MPI_Init\n"
  "1 0 enter MPI_Init\n1 0.2 leave MPI_Init\n"
  "2 0 enter MPI_Init\n2 0.3 leave MPI_Init\n"
  "0 1.0 enter MPI_Allreduce\n0 1.0 coll_begin\n0 1.1 coll_end allreduce sent=8 recv=8\n0 1.1 leave\n"
  "1 1.0 enter MPI_Allreduce\n1 1.0 coll_begin\n1 1.3 coll_end allreduce sent=8 recv=8\n1 1.3 leave\n"
  "2 1.0 enter MPI_Allreduce\n2 1.0 coll_begin\n2 1.4 coll_end allreduce sent=8 recv=8\n2 1.4 leave\n"
  "0 2.0 enter MPI_Barrier\n0 2.0 coll_begin\n0 2.6 coll_end barrier\n0 2.6 leave\n"
  "1 2.0 enter MPI_Barrier\n1 2.0 coll_begin\n1 2.7 coll_end barrier\n1 2.7 leave\n"
  "2 2.5 enter MPI_Barrier\n2 2.5 coll_begin\n2 2.9 coll_end barrier\n2 2.9 leave\n"
  "0 3.5 enter MPI_Scan\n0 3.5 coll_begin\n0 3.6 coll_end scan sent=8 recv=8\n0 3.6 leave\n"
  "1 3.0 enter MPI_Scan\n1 3.0 coll_begin\n1 3.6 coll_end scan sent=8 recv=8\n1 3.6 leave\n"
  "2 3.3 enter MPI_Scan\n2 3.3 coll_begin\n2 3.6 coll_end scan sent=8 recv=8\n2 3.6 leave\n"
  "0 4.0 enter MPI_Send\n0 4.0 send 2 tag=1 bytes=8\n0 4.0 leave\n"
  "1 5.0 enter MPI_Send\n1 5.0 send 2 tag=2 bytes=8\n1 5.0 leave\n"
  "2 4.5 enter MPI_Recv\n2 5.1 recv 1 tag=2 bytes=8\n2 5.1 leave\n"
  "2 5.2 enter MPI_Recv\n2 5.2 recv 0 tag=1 bytes=8\n2 5.2 leave\n"
  "0 6.0 enter MPI_Reduce\n0 6.0 coll_begin\n0 7.1 coll_end reduce root=0 sent=8 recv=8\n0 7.1 leave\n"
  "1 6.5 enter MPI_Reduce\n1 6.5 coll_begin\n1 7.1 coll_end reduce root=0 sent=8\n1 7.1 leave\n"
  "2 7.0 enter MPI_Reduce\n2 7.0 coll_begin\n2 7.1 coll_end reduce root=0 sent=8\n2 7.1 leave\n"
  "0 8.0 enter MPI_Finalize\n0 9.1 leave\n"
  "1 8.5 enter MPI_Finalize\n1 9.1 leave\n"
  "2 9.0 enter MPI_Finalize\n2 9.1 leave\n";

/* Ensure the totals derived above, pattern by pattern, and that the
 * patterns before them still hold (Wait at Barrier, Late Sender). */
static void
test_completion_scan_order_lifecycle (void **state)
{
  char *dir = NULL;
  g_autoptr (TsTrace) trace = ts_test_script_open (around, &dir);
  g_autoptr (TsCalibration) cal = ts_calibration_compute (trace, NULL);
  assert_non_null (cal);
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse (trace, cal, NULL);
  assert_non_null (w);
  const struct { TsWaitPattern p; double seconds; } want[] = {
    { TS_WAIT_INIT_COMPLETION, 0.3 },
    { TS_WAIT_NXN, 0.0 },
    { TS_WAIT_NXN_COMPLETION, 0.5 },
    { TS_WAIT_BARRIER, 1.0 },
    { TS_WAIT_BARRIER_COMPLETION, 0.4 },
    { TS_WAIT_EARLY_SCAN, 0.7 },
    { TS_WAIT_LATE_SENDER, 0.5 },
    { TS_WAIT_LATE_SENDER_WRONG_ORDER, 0.5 },
    { TS_WAIT_EARLY_REDUCE, 1.0 },
    { TS_WAIT_FINALIZE_WAIT, 1.5 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (fabs (ts_wait_states_total (w, want[i].p) - want[i].seconds) > 1e-9)
      fail_msg ("%s: %.9f s, expected %.9f s", ts_wait_pattern_name (want[i].p),
                ts_wait_states_total (w, want[i].p), want[i].seconds);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_EARLY_SCAN, 1), 0.5, 1e-9);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_LATE_SENDER_WRONG_ORDER, 2), 0.5, 1e-9);
  assert_float_equal (ts_wait_states_rank (w, TS_WAIT_FINALIZE_WAIT, 0), 1.0, 1e-9);
  ts_test_script_remove (dir);
}

/* Ensure a Late Sender is not Wrong Order when the messages are received
 * in the order they were sent: rank 0 sends twice to rank 1 (4.0 and 5.0),
 * rank 1 receives the first at 4.1 and waits from 4.5 for the second: 0.5 s
 * of Late Sender, none of it Wrong Order. */
static void
test_late_sender_in_order (void **state)
{
  char *dir = NULL;
  g_autoptr (TsTrace) trace = ts_test_script_open (
    "ranks 2\n"
    "0 4.0 enter MPI_Send\n0 4.0 send 1 tag=1 bytes=8\n0 4.0 leave\n"
    "0 5.0 enter MPI_Send\n0 5.0 send 1 tag=1 bytes=8\n0 5.0 leave\n"
    "1 4.1 enter MPI_Recv\n1 4.1 recv 0 tag=1 bytes=8\n1 4.1 leave\n"
    "1 4.5 enter MPI_Recv\n1 5.1 recv 0 tag=1 bytes=8\n1 5.1 leave\n", &dir);
  g_autoptr (TsCalibration) cal = ts_calibration_compute (trace, NULL);
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse (trace, cal, NULL);
  assert_non_null (w);
  assert_float_equal (ts_wait_states_total (w, TS_WAIT_LATE_SENDER), 0.5, 1e-9);
  assert_float_equal (ts_wait_states_total (w, TS_WAIT_LATE_SENDER_WRONG_ORDER), 0.0, 1e-12);
  ts_test_script_remove (dir);
}

/* Ensure that an analysis beside a replay that failed stops when asked:
 * 2,000 sends and receives between two ranks are 12,000 actions, past the
 * 4,096 after which the analysis asks; cancelled before it starts, it ends
 * with G_IO_ERROR_CANCELLED and no result. Not cancelled, it finishes: the
 * 2,000 receives each enter 0.1 s before their send, 200 s of Late Sender. */
static void
test_cancelled_analysis_stops (void **state)
{
  (void) state;
  GString *text = g_string_new ("ranks 2\n");
  for (guint i = 0; i < 2000; i++)
    g_string_append_printf (text, "0 %u.1 enter MPI_Send\n0 %u.1 send 1 bytes=8\n0 %u.1 leave\n",
                            i, i, i);
  for (guint i = 0; i < 2000; i++)
    g_string_append_printf (text, "1 %u enter MPI_Recv\n1 %u.2 recv 0 bytes=8\n1 %u.2 leave\n",
                            i, i, i);
  char *dir = NULL;
  g_autoptr (TsTrace) trace = ts_test_script_open (text->str, &dir);
  g_string_free (text, TRUE);
  g_autoptr (TsCalibration) cal = ts_calibration_compute (trace, NULL);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse_cancellable (trace, cal, cancel, NULL);
  assert_non_null (w);
  assert_float_equal (ts_wait_states_total (w, TS_WAIT_LATE_SENDER), 200.0, 1e-6);
  g_cancellable_cancel (cancel);
  GError *error = NULL;
  assert_null (ts_wait_states_analyse_cancellable (trace, cal, cancel, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_clear_error (&error);
  ts_test_script_remove (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_cancelled_analysis_stops),
    cmocka_unit_test (test_totals_and_ranks),
    cmocka_unit_test (test_spans),
    cmocka_unit_test (test_cell_order),
  };
  const struct CMUnitTest more[] = {
    cmocka_unit_test (test_completion_scan_order_lifecycle),
    cmocka_unit_test (test_late_sender_in_order),
  };
  return cmocka_run_group_tests (tests, setup, teardown)
         || cmocka_run_group_tests (more, NULL, NULL);
}
