/* model/trace.c: the definitions of small traces written in the test
 * (tools/tracegen/script.h), read back through the TsTrace accessors. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glib/gstdio.h>
#include <string.h>

#include "model/trace.h"
#include "tests/scripted.h"

/* Three ranks; "pair" holds world ranks 1 and 2. Regions: main (user),
 * MPI_Send, mpi_send_ (Fortran: the same call, one region), MPI_Allreduce
 * and MPI_Comm_rank (an MPI call tracesim replays as its time). */
static const char *three_ranks =
  "ranks 3\n"
  "comm pair 1 2\n"
  "creator Score-P 8.0\n"
  "0 0 enter main\n0 1 enter MPI_Send\n0 1 send 1 bytes=8\n0 1 leave MPI_Send\n0 2 leave main\n"
  "1 0 enter main\n1 1 enter MPI_Recv\n1 1 recv 0 bytes=8\n1 1 leave MPI_Recv\n"
  "1 1 enter mpi_send_\n1 1 send 0 comm=pair bytes=8\n1 1 leave mpi_send_\n"
  "1 1 enter MPI_Comm_rank\n1 1 leave MPI_Comm_rank\n"
  "1 2 leave main\n"
  "2 0 enter main\n2 1 enter MPI_Recv\n2 1 recv 0 comm=pair bytes=8\n2 1 leave MPI_Recv\n"
  "2 1 enter MPI_Allreduce\n2 1 coll_begin\n2 1 coll_end allreduce comm=pair sent=8 recv=8\n"
  "2 1 leave MPI_Allreduce\n2 2 leave main\n";

/* Ensure that ranks, the clock and the creator are read as written: the
 * writer stores nanosecond ticks and names itself "tracesim ... (from
 * <origin>)", and a Score-P origin means collective byte counts are totals. */
static void
test_ranks_clock_creator (void **state)
{
  g_autofree char *dir = NULL;
  g_autofree char *anchor = ts_test_script_write (three_ranks, &dir);
  GError *error = NULL;
  g_autoptr (TsTrace) t = ts_trace_open (anchor, &error);
  assert_non_null (t);
  assert_int_equal (ts_trace_n_ranks (t), 3);
  assert_int_equal (ts_trace_timer_resolution (t), 1000000000);
  assert_non_null (strstr (ts_trace_creator (t), "Score-P 8.0"));
  assert_true (ts_trace_collective_bytes_total (t));
  assert_string_equal (ts_trace_path (t), anchor);
  ts_test_script_remove (g_steal_pointer (&dir));
}

/* Ensure that region names are normalised (mpi_send_ is MPI_Send: one
 * region, not two) and each gets the call kind the replay dispatches on. */
static void
test_regions_and_call_kinds (void **state)
{
  g_autofree char *dir = NULL;
  g_autofree char *anchor = ts_test_script_write (three_ranks, &dir);
  g_autoptr (TsTrace) t = ts_trace_open (anchor, NULL);
  assert_non_null (t);
  /* main, MPI_Send (= mpi_send_), MPI_Recv, MPI_Comm_rank, MPI_Allreduce. */
  assert_int_equal (ts_trace_n_regions (t), 5);
  gint send = ts_trace_region_by_name (t, "MPI_Send");
  assert_true (send >= 0);
  assert_int_equal (ts_trace_region_call (t, send), TS_CALL_SEND);
  assert_int_equal (ts_trace_region_by_name (t, "mpi_send_"), -1);
  assert_int_equal (ts_trace_region_call (t, ts_trace_region_by_name (t, "main")), TS_CALL_USER);
  assert_int_equal (ts_trace_region_call (t, ts_trace_region_by_name (t, "MPI_Allreduce")),
                    TS_CALL_COLLECTIVE);
  assert_int_equal (ts_trace_region_call (t, ts_trace_region_by_name (t, "MPI_Comm_rank")),
                    TS_CALL_LOCAL);
  ts_test_script_remove (g_steal_pointer (&dir));
}

/* Ensure that a sub-communicator maps local ranks to world ranks and back:
 * in "pair" (world 1, 2) local 0 is world 1, world 2 is local 1, and world 0
 * is no member (-1). */
static void
test_communicators (void **state)
{
  g_autofree char *dir = NULL;
  g_autofree char *anchor = ts_test_script_write (three_ranks, &dir);
  g_autoptr (TsTrace) t = ts_trace_open (anchor, NULL);
  assert_non_null (t);
  guint world = ts_trace_world_comm (t);
  assert_int_equal (ts_trace_comm_size (t, world), 3);
  assert_int_equal (ts_trace_comm_world_rank (t, world, 0, 2), 2);
  guint pair = G_MAXUINT;
  for (guint c = 0; c < ts_trace_n_comms (t); c++)
    if (strcmp (ts_trace_comm_name (t, c), "pair") == 0)
      pair = c;
  assert_int_not_equal (pair, G_MAXUINT);
  assert_int_equal (ts_trace_comm_size (t, pair), 2);
  const guint32 *m = ts_trace_comm_members (t, pair);
  assert_int_equal (m[0], 1);
  assert_int_equal (m[1], 2);
  assert_int_equal (ts_trace_comm_world_rank (t, pair, 2, 0), 1);
  assert_int_equal (ts_trace_comm_local_rank (t, pair, 2), 1);
  assert_int_equal (ts_trace_comm_local_rank (t, pair, 0), -1);
  ts_test_script_remove (g_steal_pointer (&dir));
}

/* Ensure that what is not a trace is refused with the path in the message
 * and the open error: a missing file, and an anchor file of garbage. */
static void
test_not_a_trace (void **state)
{
  GError *error = NULL;
  assert_null (ts_trace_open ("/nonexistent/traces.otf2", &error));
  assert_true (g_error_matches (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN));
  assert_non_null (strstr (error->message, "/nonexistent/traces.otf2"));
  g_clear_error (&error);

  g_autofree char *dir = NULL;
  g_autofree char *anchor = ts_test_script_write (three_ranks, &dir);
  assert_true (g_file_set_contents (anchor, "this is not an OTF2 anchor file\n", -1, NULL));
  assert_null (ts_trace_open (anchor, &error));
  assert_true (g_error_matches (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN));
  assert_non_null (strstr (error->message, anchor));
  g_clear_error (&error);
  ts_test_script_remove (g_steal_pointer (&dir));
}

/* Ensure that names are normalised as MPI's C bindings spell them, and
 * that names outside MPI are left alone. */
/* Ensure that C++ names come out demangled, as Score-P 4 wrote them
 * mangled (issue 40): the names below are what c++filt prints for them,
 * and every consumer reads ts_trace_region_name(). The mangled name stays
 * the canonical name; two names that demangle alike are one region (the
 * first one's canonical name kept), and what is no mangled name is left
 * as it is (a C name, a Fortran one, "_Z" alone, which the demangler
 * refuses). */
static void
test_demangled_names (void **state)
{
  g_autofree char *dir = NULL;
  g_autofree char *anchor = ts_test_script_write (
    "ranks 1\n"
    "0 0 enter _ZL28CalcHourglassControlForElemsR6DomainPdd\n0 1 leave\n"
    "0 1 enter _ZNSt6vectorIiSaIiEEixEm\n0 2 leave\n"
    "0 2 enter _Z28CalcHourglassControlForElemsR6DomainPdd\n0 3 leave\n"
    "0 3 enter solve_\n0 4 leave\n", &dir);
  g_autoptr (TsTrace) t = ts_trace_open (anchor, NULL);
  assert_non_null (t);
  /* CalcHourglass... (twice: static _ZL and extern _Z, one name),
   * std::vector<int>::operator[], solve_. */
  assert_int_equal (ts_trace_n_regions (t), 3);
  gint calc = ts_trace_region_by_name (t, "CalcHourglassControlForElems(Domain&, double*, double)");
  gint at = ts_trace_region_by_name (t, "std::vector<int, std::allocator<int> >::operator[](unsigned long)");
  gint solve = ts_trace_region_by_name (t, "solve_");
  assert_true (calc >= 0 && at >= 0 && solve >= 0);
  assert_string_equal (ts_trace_region_canonical_name (t, calc),
                       "_ZL28CalcHourglassControlForElemsR6DomainPdd");
  assert_string_equal (ts_trace_region_canonical_name (t, at), "_ZNSt6vectorIiSaIiEEixEm");
  assert_string_equal (ts_trace_region_canonical_name (t, solve), "solve_");
  assert_int_equal (ts_trace_region_call (t, calc), TS_CALL_USER);
  assert_null (ts_name_demangle ("solve_"));
  assert_null (ts_name_demangle ("_Z"));
  assert_null (ts_name_demangle ("i"));
  ts_test_script_remove (g_steal_pointer (&dir));
}

static void
test_name_normalisation (void **state)
{
  g_autofree char *a = ts_mpi_name_normalise ("MPI_ALLREDUCE");
  g_autofree char *b = ts_mpi_name_normalise ("mpi_waitall__");
  g_autofree char *c = ts_mpi_name_normalise ("solve_");
  assert_string_equal (a, "MPI_Allreduce");
  assert_string_equal (b, "MPI_Waitall");
  assert_string_equal (c, "solve_");
  assert_int_equal (ts_mpi_call_kind ("MPI_Waitall"), TS_CALL_WAITALL);
  assert_int_equal (ts_mpi_call_kind ("MPI_Barrier"), TS_CALL_COLLECTIVE);
  assert_int_equal (ts_mpi_call_kind ("solve"), TS_CALL_USER);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ranks_clock_creator),
    cmocka_unit_test (test_regions_and_call_kinds),
    cmocka_unit_test (test_communicators),
    cmocka_unit_test (test_not_a_trace),
    cmocka_unit_test (test_name_normalisation),
    cmocka_unit_test (test_demangled_names),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
