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

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_totals_and_ranks),
    cmocka_unit_test (test_spans),
    cmocka_unit_test (test_cell_order),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
