/* Wait-state analysis: constructed traces (scenarios/waits-*) whose wait
 * times are derived by hand in waits.ini; tracesim waitstates' CSV must hold
 * exactly those rows, each to 1 microsecond. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tool-run.h"
#include "tests/readback.h"

static void
test_scenario (void **state)
{
  const char *name = *state;
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", name, NULL);
  g_autofree char *ini = g_build_filename (dir, "waits.ini", NULL);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  GError *error = NULL;
  assert_true (g_key_file_load_from_file (kf, ini, G_KEY_FILE_NONE, &error));

  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *trace = ts_test_generate (work, dir);
  g_autofree char *csv_path = g_build_filename (work, "waitstates.csv", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "waitstates", trace, "-o", csv_path, NULL });
  if (r.status != 0)
    fail_msg ("tracesim waitstates failed on %s: %s", name, r.err);
  ts_tool_result_clear (&r);

  g_autofree char *csv = NULL;
  assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  assert_string_equal (lines[0], "timeline,pattern,region,rank,seconds");
  guint rows = 0;
  for (guint i = 1; lines[i] && *lines[i]; i++, rows++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
      assert_int_equal (g_strv_length (f), 5);
      g_autofree char *key = g_strdup_printf ("%s.%s.%s", f[1], f[2], f[3]);
      if (!g_key_file_has_key (kf, f[0], key, NULL))
        fail_msg ("%s: unexpected row %s", name, lines[i]);
      double want = g_key_file_get_double (kf, f[0], key, &error);
      g_assert_no_error (error);
      double got = g_ascii_strtod (f[4], NULL);
      if (fabs (got - want) > 1e-6)
        fail_msg ("%s: %s = %.9f, derived %.9f", name, key, got, want);
    }
  /* And every derived row is there. */
  g_auto (GStrv) keys = g_key_file_get_keys (kf, "original", NULL, NULL);
  assert_int_equal (rows, g_strv_length (keys));
}

/* `run` writes both phases: in scenarios/sender-faster rank 1 enters
 * MPI_Recv at 0 and rank 0 starts its send at 1.0 in the trace (Late Sender
 * 1.0 s); with the sender's work x 0.5 the send starts at 0.5 in the
 * prediction (0.5 s). Nothing else waits. */
static void
test_run_writes_both_phases (void **state)
{
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", "sender-faster", NULL);
  g_autofree char *work = ts_test_workdir ("waits-run");
  g_autofree char *trace = ts_test_generate (work, dir);
  g_autofree char *hyp = g_build_filename (dir, "faster.hyp", NULL);
  g_autofree char *platform = g_build_filename (ts_test_srcdir (), "scenarios", "platforms",
                                                "two-hosts.xml", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "run", trace, "-p", platform, "-H", hyp,
                                                       "-o", out, "-q", "--wait-regions", NULL });
  assert_int_equal (r.status, 0);
  ts_tool_result_clear (&r);
  g_autofree char *csv_path = g_build_filename (out, "waitstates.csv", NULL);
  g_autofree char *csv = NULL;
  assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  assert_string_equal (csv, "timeline,pattern,region,rank,seconds\n"
                            "original,late_sender,MPI_Recv,1,1.000000000\n"
                            "predicted,late_sender,MPI_Recv,1,0.500000000\n");

  /* In the predicted archive, rank 1: ENTER MPI_Recv, ENTER late_sender at
   * 0, LEAVE late_sender at 0.5 and the late_sender metric at 0.5 = 0.5 s,
   * then the receive completes at 0.50011 and MPI_Recv is left. */
  g_autofree char *pdir = g_build_filename (out, "predicted", NULL);
  RbArchive *a = rb_archive_load (pdir, "traces");
  assert_non_null (a);
  guint64 ls_region = G_MAXUINT64, recv_region = G_MAXUINT64;
  for (guint i = 0; i < a->regions->len; i++)
    {
      const RbRegion *reg = g_ptr_array_index (a->regions, i);
      if (reg && strcmp (reg->name, "late_sender") == 0)
        ls_region = i;
      if (reg && strcmp (reg->name, "MPI_Recv") == 0)
        recv_region = i;
    }
  guint seen = 0;
  const char *want[] = { "enter recv", "enter ls", "leave ls", "metric", "leave recv" };
  for (guint i = 0; i < a->events->len; i++)
    {
      const RbEvent *e = &g_array_index (a->events, RbEvent, i);
      if (e->location != 1)
        continue;
      const char *what = NULL;
      if (e->kind == RB_ENTER && e->a == recv_region)
        what = "enter recv";
      else if (e->kind == RB_ENTER && e->a == ls_region)
        what = "enter ls";
      else if (e->kind == RB_LEAVE && e->a == ls_region)
        what = "leave ls";
      else if (e->kind == RB_METRIC)
        what = "metric";
      else if (e->kind == RB_LEAVE && e->a == recv_region)
        what = "leave recv";
      if (!what)
        continue;
      assert_true (seen < G_N_ELEMENTS (want));
      assert_string_equal (what, want[seen]);
      guint64 t = g_str_has_suffix (what, "recv") && what[0] == 'l' ? 500110000
                  : what[0] == 'e' ? 0 : 500000000;
      assert_int_equal (e->time, t);
      if (e->kind == RB_METRIC)
        assert_true (fabs (e->value - 0.5) < 1e-9);
      seen++;
    }
  assert_int_equal (seen, G_N_ELEMENTS (want));
  rb_archive_free (a);
}

/* Scalasca's metric names and tracesim's, for the patterns both have. */
static const struct { const char *scalasca, *ours; } same_pattern[] = {
  { "mpi_latesender", "late_sender" },
  { "mpi_latesender_wo", "late_sender_wrong_order" },
  { "mpi_latereceiver", "late_receiver" },
  { "mpi_wait_nxn", "wait_nxn" },
  { "mpi_nxn_completion", "nxn_completion" },
  { "mpi_barrier_wait", "wait_barrier" },
  { "mpi_barrier_completion", "barrier_completion" },
  { "mpi_init_completion", "init_completion" },
  { "mpi_finalize_wait", "finalize_wait" },
};

/* Seconds of @pattern summed over the rows of @csv (tracesim waitstates). */
static double
csv_total (const char *csv, const char *pattern, gint rank)
{
  double total = 0;
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  for (guint i = 1; lines[i]; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
      if (g_strv_length (f) == 5 && strcmp (f[1], pattern) == 0
          && (rank < 0 || atoi (f[3]) == rank))
        total += g_ascii_strtod (f[4], NULL);
    }
  return total;
}

/* Scalasca 2.6's analysis of the Score-P trace scenarios/scorep-ring (its
 * waitstates.txt, the INCL(main) row: each pattern over all ranks, and
 * waitstates_per_rank.csv) against tracesim's on the same trace: every
 * pattern both name must agree to the microsecond (Scalasca prints 6
 * decimals: within 1.5e-6 s). */
static void
test_scalasca_ring (void **state)
{
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", "scorep-ring", NULL);
  g_autofree char *trace = g_build_filename (dir, "traces.otf2", NULL);
  g_autofree char *work = ts_test_workdir ("scalasca-ring");
  g_autofree char *csv_path = g_build_filename (work, "waitstates.csv", NULL);
  g_autofree char *why = NULL;
  g_autofree char *csv = ts_run_tracesim_output ((const char *[]) { "waitstates", trace, "-o",
                                                                    csv_path, NULL },
                                                 work, "waitstates.csv", &why);
  if (!csv)
    fail_msg ("tracesim waitstates: %s", why);

  g_autofree char *txt_path = g_build_filename (dir, "waitstates.txt", NULL);
  g_autofree char *txt = NULL;
  assert_true (g_file_get_contents (txt_path, &txt, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (txt, "\n", -1);
  g_auto (GStrv) head = g_strsplit_set (lines[0], " ", -1);
  g_auto (GStrv) incl = g_strsplit_set (lines[1], " ", -1);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GPtrArray) values = g_ptr_array_new ();
  for (guint i = 0; head[i]; i++)
    if (*head[i])
      g_ptr_array_add (names, head[i]);
  for (guint i = 0; incl[i]; i++)
    if (*incl[i])
      g_ptr_array_add (values, incl[i]);
  assert_int_equal (names->len, values->len);
  guint compared = 0;
  for (guint i = 0; i < names->len; i++)
    for (guint k = 0; k < G_N_ELEMENTS (same_pattern); k++)
      if (strcmp (names->pdata[i], same_pattern[k].scalasca) == 0)
        {
          double theirs = g_ascii_strtod (values->pdata[i], NULL);
          double ours = csv_total (csv, same_pattern[k].ours, -1);
          if (fabs (ours - theirs) > 1.5e-6)
            fail_msg ("%s: tracesim %.6f s, Scalasca %.6f s", same_pattern[k].ours, ours, theirs);
          compared++;
        }
  assert_int_equal (compared, G_N_ELEMENTS (same_pattern));

  /* Per rank: "cnode, thread (= rank), then one column per metric". */
  g_autofree char *per_rank_path = g_build_filename (dir, "waitstates_per_rank.csv", NULL);
  g_autofree char *per_rank = NULL;
  assert_true (g_file_get_contents (per_rank_path, &per_rank, NULL, NULL));
  g_auto (GStrv) rows = g_strsplit (per_rank, "\n", -1);
  g_auto (GStrv) columns = g_strsplit (rows[0], ",", -1);
  guint cells = 0;
  for (guint r = 1; rows[r] && *rows[r]; r++)
    {
      g_auto (GStrv) f = g_strsplit (rows[r], ",", -1);
      gint rank = atoi (f[1]);
      for (guint c = 2; columns[c] && f[c]; c++)
        for (guint k = 0; k < G_N_ELEMENTS (same_pattern); k++)
          if (strcmp (g_strstrip (columns[c]), same_pattern[k].scalasca) == 0)
            {
              double theirs = g_ascii_strtod (f[c], NULL);
              double ours = csv_total (csv, same_pattern[k].ours, rank);
              if (fabs (ours - theirs) > 1.5e-6)
                fail_msg ("%s on rank %d: tracesim %.6f s, Scalasca %.6f s",
                          same_pattern[k].ours, rank, ours, theirs);
              cells++;
            }
    }
  /* 4 ranks x 6 metrics in that file. */
  assert_int_equal (cells, 24);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_prestate_setup_teardown (test_scenario, NULL, NULL, (void *) "waits-p2p"),
    cmocka_unit_test_prestate_setup_teardown (test_scenario, NULL, NULL, (void *) "waits-coll"),
    cmocka_unit_test (test_run_writes_both_phases),
    cmocka_unit_test (test_scalasca_ring),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
