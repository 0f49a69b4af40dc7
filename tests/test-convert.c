/* tracesim convert --to ti: the SimGrid time-independent trace of a small
 * script, line by line, derived by hand below. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "tests/tool-run.h"
#include "calibrate/calibration.h"
#include "model/trace.h"
#include "output/ti_export.h"
#include "tests/scripted.h"

/* Ranks 0 and 1 compute 0.5 s, exchange 100 bytes (Irecv, Isend, Waitall),
 * join rank 2 in an 8-byte Allreduce; ranks 1 and 2 then Bcast 16 bytes on
 * the sub-communicator "pair" (root: its rank 0, world rank 1); everybody
 * computes until 1.0 s. Rank 2 enters the Allreduce at 0.25 s and waits there
 * until 0.5 s. Every point-to-point call takes no time in the trace, so the
 * CPU cost tracesim estimates for it is 0 (the minimum over its calls) and
 * no compute appears between them. */
static const char *script =
  "ranks 3\n"
  "comm pair 1 2\n"
  "0 0.0 enter main\n"
  "0 0.5 enter MPI_Irecv\n0 0.5 irecv_request req=1\n0 0.5 leave MPI_Irecv\n"
  "0 0.5 enter MPI_Isend\n0 0.5 isend 1 tag=3 bytes=100 req=2\n0 0.5 leave MPI_Isend\n"
  "0 0.5 enter MPI_Waitall\n0 0.5 irecv 1 tag=3 bytes=100 req=1\n0 0.5 isend_complete req=2\n"
  "0 0.5 leave MPI_Waitall\n"
  "0 0.5 enter MPI_Allreduce\n0 0.5 coll_begin\n0 0.5 coll_end allreduce sent=8 recv=8\n"
  "0 0.5 leave MPI_Allreduce\n"
  "0 1.0 leave main\n"
  "1 0.0 enter main\n"
  "1 0.5 enter MPI_Irecv\n1 0.5 irecv_request req=1\n1 0.5 leave MPI_Irecv\n"
  "1 0.5 enter MPI_Isend\n1 0.5 isend 0 tag=3 bytes=100 req=2\n1 0.5 leave MPI_Isend\n"
  "1 0.5 enter MPI_Waitall\n1 0.5 irecv 0 tag=3 bytes=100 req=1\n1 0.5 isend_complete req=2\n"
  "1 0.5 leave MPI_Waitall\n"
  "1 0.5 enter MPI_Allreduce\n1 0.5 coll_begin\n1 0.5 coll_end allreduce sent=8 recv=8\n"
  "1 0.5 leave MPI_Allreduce\n"
  "1 0.5 enter MPI_Bcast\n1 0.5 coll_begin\n1 0.5 coll_end bcast comm=pair root=0 sent=16 recv=16\n"
  "1 0.5 leave MPI_Bcast\n"
  "1 1.0 leave main\n"
  "2 0.0 enter main\n"
  "2 0.25 enter MPI_Allreduce\n2 0.25 coll_begin\n2 0.5 coll_end allreduce sent=8 recv=8\n"
  "2 0.5 leave MPI_Allreduce\n"
  "2 0.5 enter MPI_Bcast\n2 0.5 coll_begin\n2 0.5 coll_end bcast comm=pair root=0 sent=16 recv=16\n"
  "2 0.5 leave MPI_Bcast\n"
  "2 1.0 leave main\n";

/* At the default 1e9 flop/s, 0.5 s of compute is 500000000 flops. Peers are
 * world ranks; the Waitall completes every outstanding request, so it is one
 * "waitall"; the Bcast's root is world rank 1 and, SimGrid's format having no
 * communicators, it is written as a world collective (and warned about). */
static const char *expected[3] = {
  "0 init\n0 compute 500000000\n0 irecv 1 3 100\n0 isend 1 3 100\n0 waitall\n"
  "0 allreduce 8 0\n0 compute 500000000\n0 finalize\n",
  "1 init\n1 compute 500000000\n1 irecv 0 3 100\n1 isend 0 3 100\n1 waitall\n"
  "1 allreduce 8 0\n1 bcast 16 1\n1 compute 500000000\n1 finalize\n",
  /* Rank 2 computes 0.25 s before the Allreduce; its wait there is the
   * collective's to model, not compute. */
  "2 init\n2 compute 250000000\n2 allreduce 8 0\n2 bcast 16 1\n2 compute 500000000\n"
  "2 finalize\n",
};

static void
test_ti_lines (void **state)
{
  g_autofree char *work = ts_test_workdir ("convert");
  g_autofree char *trace = ts_test_generate_text (work, script);
  g_autofree char *out = g_build_filename (work, "ti", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "convert", trace, "--to", "ti", "-o", out,
                                                       NULL });
  assert_int_equal (r.status, 0);
  /* Two sub-communicator collectives (ranks 1 and 2) could not be kept. */
  assert_non_null (strstr (r.err, "2 collectives on sub-communicators"));
  ts_tool_result_clear (&r);

  g_autofree char *list_path = g_build_filename (out, "traces.txt", NULL);
  g_autofree char *list = NULL;
  assert_true (g_file_get_contents (list_path, &list, NULL, NULL));
  assert_string_equal (list, "ranks/rank-0.txt\nranks/rank-1.txt\nranks/rank-2.txt\n");
  for (guint rank = 0; rank < 3; rank++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.txt", rank);
      g_autofree char *path = g_build_filename (out, "ranks", name, NULL);
      g_autofree char *text = NULL;
      assert_true (g_file_get_contents (path, &text, NULL, NULL));
      assert_string_equal (text, expected[rank]);
    }
}

/* Collective bytes counted as Score-P counts them (creator Score-P): an
 * Allreduce of 8000 bytes on 2 ranks records 16000 sent and received, a
 * Bcast root 16000 sent and 8000 received, the other member 0 and 8000.
 * SimGrid's TI lines take one rank's buffer: 8000 in all three. */
static void
test_ti_scorep_counts (void **state)
{
  g_autofree char *work = ts_test_workdir ("convert-scorep");
  g_autofree char *trace = ts_test_generate_text (work,
    "ranks 2\ncreator Score-P 8.0\n"
    "0 0.0 enter main\n0 0.0 enter MPI_Allreduce\n0 0.0 coll_begin\n"
    "0 0.001 coll_end allreduce sent=16000 recv=16000\n0 0.001 leave MPI_Allreduce\n"
    "0 0.001 enter MPI_Bcast\n0 0.001 coll_begin\n0 0.001 coll_end bcast root=0 sent=16000 recv=8000\n"
    "0 0.001 leave MPI_Bcast\n0 0.002 leave main\n"
    "1 0.0 enter main\n1 0.0 enter MPI_Allreduce\n1 0.0 coll_begin\n"
    "1 0.001 coll_end allreduce sent=16000 recv=16000\n1 0.001 leave MPI_Allreduce\n"
    "1 0.001 enter MPI_Bcast\n1 0.001 coll_begin\n1 0.002 coll_end bcast root=0 sent=0 recv=8000\n"
    "1 0.002 leave MPI_Bcast\n1 0.002 leave main\n");
  g_autofree char *out = g_build_filename (work, "ti", NULL);
  g_autofree char *why = NULL;
  g_autofree char *text = ts_run_tracesim_output ((const char *[]) { "convert", trace, "--to", "ti",
                                                                     "-o", out, NULL },
                                                  out, "ranks/rank-1.txt", &why);
  if (!text)
    fail_msg ("tracesim convert: %s", why);
  assert_non_null (strstr (text, "1 allreduce 8000 0\n"));
  assert_non_null (strstr (text, "1 bcast 8000 0\n"));
}

/* The library call alone (output/ti_export.c), on the script above: rank
 * 1's lines as derived there, and the counts it adds up: the 9 lines of
 * expected[1]; its Bcast on "pair" is its one sub-communicator collective;
 * every action has a TI equivalent (nothing skipped). */
static void
test_ti_export_rank (void **state)
{
  GError *error = NULL;
  char *dir = NULL;
  g_autoptr (TsTrace) trace = ts_test_script_open (script, &dir);
  g_autoptr (TsCalibration) cal = ts_calibration_compute (trace, &error);
  assert_non_null (cal);
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (cal, trace, &error);
  assert_non_null (stream);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&text, &len);
  TsTiStats stats = { 0 };
  assert_true (ts_ti_export_rank (trace, stream, 1, 1e9, out, &stats, &error));
  fclose (out);
  assert_string_equal (text, expected[1]);
  free (text);
  assert_int_equal (stats.lines_written, 9);
  assert_int_equal (stats.subcomm_collectives, 1);
  assert_int_equal (stats.skipped, 0);
  ts_test_script_remove (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ti_lines),
    cmocka_unit_test (test_ti_scorep_counts),
    cmocka_unit_test (test_ti_export_rank),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
