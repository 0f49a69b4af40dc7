/* MPI-4 partitioned communication: seed 000's NLS / FLS / VLS test written
 * by ts-tracegen (tools/tracegen/partitioned.h has the time model), the
 * Figure 8 partition layouts, PTESTED as a failed test, and bad input. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "tests/readback.h"
#include "tests/tool-run.h"

static char *
platform (void)
{
  return g_build_filename (ts_test_srcdir (), "scenarios", "platforms", "two-hosts.xml", NULL);
}

/* Sum of one timeline's partitioned_late_sender rows in waitstates.csv. */
static double
partitioned_ls (const char *csv, const char *timeline)
{
  g_autofree char *prefix = g_strdup_printf ("%s,partitioned_late_sender,", timeline);
  double sum = 0;
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], prefix))
      sum += g_ascii_strtod (strrchr (lines[i], ',') + 1, NULL);
  return sum;
}

static TsToolResult
run_tracegen (const char *const *args)
{
  TsToolResult r = { 0 };
  g_autofree char *exe = g_build_filename (ts_test_builddir (), "ts-tracegen", NULL);
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, exe);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  int status = 0;
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out, &r.err,
                &status, NULL);
  r.status = g_spawn_check_wait_status (status, NULL) ? 0 : 1;
  g_ptr_array_unref (argv);
  return r;
}

/* 4 send and 3 receive partitions, 5 rounds, 0.1 s delays. Derived from the
 * time model: NLS no wait; FLS the receiver waits from its MPI_Wait (entered
 * as the round starts) to the first MPI_Pready, 0.1 s later: 5 x 0.1 = 0.5;
 * VLS to the last one, 4 x 0.1 later: 5 x 0.4 = 2.0. With the delay region
 * x 0.5 (a hypothesis), half of each. Within 1 %. */
static void
check_variant (const char *variant, double original, double predicted)
{
  g_autofree char *work = ts_test_workdir (variant);
  g_autofree char *tdir = g_build_filename (work, "trace", NULL);
  TsToolResult g = run_tracegen ((const char *[]) { "partitioned", "-o", tdir, "--variant",
                                                    variant, "--send-partitions", "4",
                                                    "--recv-partitions", "3", "--reps", "5",
                                                    "--delay", "0.1", NULL });
  if (g.status != 0)
    fail_msg ("ts-tracegen partitioned %s: %s", variant, g.err);
  ts_tool_result_clear (&g);
  g_autofree char *trace = g_build_filename (tdir, "traces.otf2", NULL);
  g_autofree char *hyp = g_build_filename (work, "half.hyp", NULL);
  g_autofree char *text = g_strdup_printf ("[region:%s]\nscale = 0.5\n", variant);
  assert_true (g_file_set_contents (hyp, text, -1, NULL));
  g_autofree char *plat = platform ();
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *why = NULL;
  g_autofree char *csv = ts_run_tracesim_output ((const char *[]) { "run", trace, "-p", plat, "-H", hyp,
                                                                    "-o", out, "-q", NULL },
                                                 out, "waitstates.csv", &why);
  if (!csv)
    fail_msg ("tracesim run %s: %s", variant, why);
  double o = partitioned_ls (csv, "original"), p = partitioned_ls (csv, "predicted");
  if (fabs (o - original) > 0.01 * original + 1e-9 || fabs (p - predicted) > 0.01 * predicted + 1e-9)
    fail_msg ("%s: partitioned Late Sender %.9f -> %.9f, derived %.9f -> %.9f", variant, o, p,
              original, predicted);
}

static void
test_nls (void **state)
{
  check_variant ("nls", 0, 0);
}

static void
test_fls (void **state)
{
  check_variant ("fls", 0.5, 0.25);
}

static void
test_vls (void **state)
{
  check_variant ("vls", 2.0, 1.0);
}

/* Figure 8: 6 bytes, the sender computes "prep" 0.1 s before each
 * MPI_Pready (readies at 0.1, 0.2[, 0.3]); the receiver polls each receive
 * partition with MPI_Parrived; @parrived lists, per receive partition, the
 * time of the successful call in the trace ("-" for a failed one, PTESTED).
 * Returns the predicted archive's MPI_PARRIVED times of rank 1 (ticks). */
static GArray *
figure8 (const char *name, guint s, guint r, const double *parrived, const char *hyp_text)
{
  GString *sc = g_string_new ("ranks 2\n0 0.0 enter main\n1 0.0 enter main\n");
  g_string_append_printf (sc, "0 0.0 enter MPI_Psend_init\n0 0.0 psend_init 1 tag=9 bytes=6 "
                              "partitions=%u req=1\n0 0.0 leave MPI_Psend_init\n", s);
  g_string_append_printf (sc, "1 0.0 enter MPI_Precv_init\n1 0.0 precv_init 0 tag=9 bytes=6 "
                              "partitions=%u req=2\n1 0.0 leave MPI_Precv_init\n", r);
  g_string_append (sc, "0 0.0 enter MPI_Start\n0 0.0 psend_request req=1\n0 0.0 leave MPI_Start\n"
                       "1 0.0 enter MPI_Start\n1 0.0 precv_request req=2\n1 0.0 leave MPI_Start\n");
  for (guint i = 0; i < s; i++)
    g_string_append_printf (sc, "0 %.1f enter prep\n0 %.1f leave prep\n0 %.1f enter MPI_Pready\n"
                                "0 %.1f pready %u req=1\n0 %.1f leave MPI_Pready\n",
                            0.1 * i, 0.1 * (i + 1), 0.1 * (i + 1), 0.1 * (i + 1), i,
                            0.1 * (i + 1));
  double last = 0.1 * s + 1e-4;
  g_string_append_printf (sc, "0 %.1f enter MPI_Wait\n0 %.4f psend_complete req=1\n"
                              "0 %.4f leave MPI_Wait\n0 %.4f leave main\n", 0.1 * s, last, last,
                          last);
  double t = 0;
  for (guint j = 0; j < r; j++)
    {
      gboolean ok = !isnan (parrived[j]);
      t = ok ? parrived[j] : t + 0.05;
      g_string_append_printf (sc, "1 %.6f enter MPI_Parrived\n1 %.6f %s %u req=2\n"
                                  "1 %.6f leave MPI_Parrived\n", t, t, ok ? "parrived" : "ptested",
                              j, t);
    }
  g_string_append_printf (sc, "1 %.6f enter MPI_Wait\n1 %.6f precv_complete req=2\n"
                              "1 %.6f leave MPI_Wait\n1 %.6f leave main\n", t, MAX (t, last),
                          MAX (t, last), MAX (t, last));
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *trace = ts_test_generate_text (work, sc->str);
  g_string_free (sc, TRUE);
  g_autofree char *plat = platform ();
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *hyp = g_build_filename (work, "h.hyp", NULL);
  if (hyp_text)
    assert_true (g_file_set_contents (hyp, hyp_text, -1, NULL));
  TsToolResult res = ts_run_tracesim ((const char *[]) { "run", trace, "-p", plat, "-o", out, "-q",
                                                         hyp_text ? "-H" : NULL, hyp, NULL });
  if (res.status != 0)
    fail_msg ("%s: %s", name, res.err);
  ts_tool_result_clear (&res);
  g_autofree char *pdir = g_build_filename (out, "predicted", NULL);
  /* Any OTF2 tool reads the encoding: otf2-print, without a warning. */
  const char *otf2_print = g_getenv ("OTF2_PRINT");
  g_autofree char *anchor = g_build_filename (pdir, "traces.otf2", NULL);
  g_autofree char *print_out = NULL, *print_err = NULL;
  int status = 0;
  assert_true (g_spawn_sync (NULL, (char *[]) { (char *) (otf2_print ? otf2_print : "otf2-print"),
                                                 anchor, NULL },
                             NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &print_out, &print_err,
                             &status, NULL));
  assert_true (g_spawn_check_wait_status (status, NULL));
  assert_null (strstr (print_err, "arning"));
  assert_non_null (strstr (print_out, "MPI_PREADY"));
  RbArchive *a = rb_archive_load (pdir, "traces");
  assert_non_null (a);
  /* MPI_PARRIVED is parameter 3 of tracesim's encoding; rank 1's values in order. */
  GArray *times = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < a->events->len; i++)
    {
      const RbEvent *e = &g_array_index (a->events, RbEvent, i);
      if (e->location == 1 && e->kind == RB_PARAMETER && e->a == 3)
        g_array_append_val (times, e->time);
    }
  rb_archive_free (a);
  return times;
}

static void
expect_times (GArray *got, const double *want, guint n)
{
  if (got->len != n)
    fail_msg ("%u MPI_PARRIVED events, derived %u", got->len, n);
  for (guint i = 0; i < n; i++)
    {
      double t = g_array_index (got, guint64, i) / 1e9;
      if (fabs (t - want[i]) > 1e-6)
        fail_msg ("MPI_PARRIVED #%u at %.9f s, derived %.9f", i, t, want[i]);
    }
  g_array_unref (got);
}

/* Partition transfers on two-hosts.xml: 1e-4 s + 2 or 3 bytes / 1e8. A
 * receive partition arrives with the last send partition of I(j). */
#define T2 (1e-4 + 2 / 1e8)   /* a 2-byte partition (6 bytes / 3) */
#define T3 (1e-4 + 3 / 1e8)   /* a 3-byte partition (6 bytes / 2) */

/* Figure 8a, 3/3: receive partition j needs send partition j. */
static void
test_figure8_3_3 (void **state)
{
  const double in_trace[] = { 0.1 + T2, 0.2 + T2, 0.3 + T2 };
  expect_times (figure8 ("fig8a", 3, 3, in_trace, NULL), in_trace, 3);
  /* The sender's "prep" x 1.5 (readies at 0.15, 0.3, 0.45): each successful
   * MPI_Parrived of the trace now blocks until its partition is there. */
  const double slower[] = { 0.15 + T2, 0.3 + T2, 0.45 + T2 };
  expect_times (figure8 ("fig8a-slow", 3, 3, in_trace, "[region:prep]\nscale = 1.5\n"), slower,
                3);
}

/* Figure 8b, 2/3: I(0) = {0}, I(1) = {0, 1}, I(2) = {1} with readies at 0.1
 * and 0.2: partitions arrive at 0.1+T3, 0.2+T3, 0.2+T3. */
static void
test_figure8_2_3 (void **state)
{
  const double in_trace[] = { 0.1 + T3, 0.2 + T3, 0.2 + T3 };
  expect_times (figure8 ("fig8b", 2, 3, in_trace, NULL), in_trace, 3);
}

/* Figure 8c, 3/2: I(0) = {0, 1}, I(1) = {1, 2}: 0.2+T2 and 0.3+T2. With
 * the sender's "prep" x 0.5 (readies at 0.05, 0.1, 0.15) the successful
 * MPI_Parrived calls of the trace still happen when they did: the data is
 * there already. */
static void
test_figure8_3_2 (void **state)
{
  const double in_trace[] = { 0.2 + T2, 0.3 + T2 };
  expect_times (figure8 ("fig8c", 3, 2, in_trace, NULL), in_trace, 2);
  expect_times (figure8 ("fig8c-half", 3, 2, in_trace, "[region:prep]\nscale = 0.5\n"),
                in_trace, 2);
}

/* Figure 8d, a missing Parrived: 3/3, partition 1 is tested once without
 * success at 0.1+T2+0.05 (its send partition is readied at 0.2) and never
 * again; it completes in the wait. As recorded, 2 arrivals. With the
 * sender's "prep" x 0.5 (partition 1 readied at 0.1, there at 0.1+T2) the
 * failed test finds it: it arrives there, at 0.15002. */
static void
test_figure8_missing_parrived (void **state)
{
  const double in_trace[] = { 0.1 + T2, NAN, 0.3 + T2 };
  const double recorded[] = { 0.1 + T2, 0.3 + T2 };
  expect_times (figure8 ("fig8d", 3, 3, in_trace, NULL), recorded, 2);
  const double faster[] = { 0.1 + T2, 0.1 + T2 + 0.05, 0.3 + T2 };
  expect_times (figure8 ("fig8d-half", 3, 3, in_trace, "[region:prep]\nscale = 0.5\n"), faster,
                3);
}

/* Matching follows initialisation order, not start order (seed 000,
 * 3.2.4): rank 0 initialises A then B on one envelope, rank 1 X then Y, so
 * A matches X. Rank 0 starts and readies B at 0, A at 1.0; rank 1 starts
 * both at 0 and waits for X first: X needs A's data, readied at 1.0, so
 * its wait shows 1.0 s of partitioned Late Sender in both phases (start
 * order would have matched B and shown none), Y's wait none. */
static void
test_initialisation_order (void **state)
{
  const char *script =
    "ranks 2\n"
    "0 0 enter MPI_Psend_init\n0 0 psend_init 1 tag=1 bytes=8 partitions=1 req=1\n"
    "0 0 leave MPI_Psend_init\n"
    "0 0 enter MPI_Psend_init\n0 0 psend_init 1 tag=1 bytes=8 partitions=1 req=2\n"
    "0 0 leave MPI_Psend_init\n"
    "0 0 enter MPI_Start\n0 0 psend_request req=2\n0 0 leave MPI_Start\n"
    "0 0 enter MPI_Pready\n0 0 pready 0 req=2\n0 0 leave MPI_Pready\n"
    "0 0 enter MPI_Wait\n0 0.00010008 psend_complete req=2\n0 0.00010008 leave MPI_Wait\n"
    "0 1.0 enter MPI_Start\n0 1.0 psend_request req=1\n0 1.0 leave MPI_Start\n"
    "0 1.0 enter MPI_Pready\n0 1.0 pready 0 req=1\n0 1.0 leave MPI_Pready\n"
    "0 1.0 enter MPI_Wait\n0 1.00010008 psend_complete req=1\n0 1.00010008 leave MPI_Wait\n"
    "1 0 enter MPI_Precv_init\n1 0 precv_init 0 tag=1 bytes=8 partitions=1 req=5\n"
    "1 0 leave MPI_Precv_init\n"
    "1 0 enter MPI_Precv_init\n1 0 precv_init 0 tag=1 bytes=8 partitions=1 req=6\n"
    "1 0 leave MPI_Precv_init\n"
    "1 0 enter MPI_Start\n1 0 precv_request req=5\n1 0 leave MPI_Start\n"
    "1 0 enter MPI_Start\n1 0 precv_request req=6\n1 0 leave MPI_Start\n"
    "1 0 enter MPI_Wait\n1 1.00010008 precv_complete req=5\n1 1.00010008 leave MPI_Wait\n"
    "1 1.00010008 enter MPI_Wait\n1 1.00010008 precv_complete req=6\n"
    "1 1.00010008 leave MPI_Wait\n";
  g_autofree char *work = ts_test_workdir ("p-order");
  g_autofree char *trace = ts_test_generate_text (work, script);
  g_autofree char *plat = platform ();
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *why = NULL;
  g_autofree char *csv = ts_run_tracesim_output ((const char *[]) { "run", trace, "-p", plat, "-o", out,
                                                                    "-q", NULL },
                                                 out, "waitstates.csv", &why);
  if (!csv)
    fail_msg ("%s", why);
  assert_string_equal (csv, "timeline,pattern,region,rank,seconds\n"
                            "original,partitioned_late_sender,MPI_Wait,1,1.000000000\n"
                            "predicted,partitioned_late_sender,MPI_Wait,1,1.000000000\n");
}

/* Bad input: each a clear error and exit 1, never a hang. */
static void
expect_refused (const char *name, const char *script, const char *needle)
{
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *trace = ts_test_generate_text (work, script);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "run", trace, "-o", out, NULL });
  assert_int_equal (r.status, 1);
  if (!strstr (r.err, needle))
    fail_msg ("%s: stderr lacks '%s': %s", name, needle, r.err);
  assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  ts_tool_result_clear (&r);
}

static void
test_bad_input (void **state)
{
  expect_refused ("p-range",
                  "ranks 2\n0 0 enter MPI_Psend_init\n0 0 psend_init 1 bytes=8 partitions=2 req=1\n"
                  "0 0 leave MPI_Psend_init\n0 0 enter MPI_Pready\n0 0 pready 2 req=1\n"
                  "0 0 leave MPI_Pready\n1 0 enter MPI_Precv_init\n"
                  "1 0 precv_init 0 bytes=8 partitions=2 req=1\n1 0 leave MPI_Precv_init\n",
                  "MPI_PREADY for partition 2 of request 1, which has 2 partitions");
  expect_refused ("p-unknown",
                  "ranks 2\n1 0 enter MPI_Parrived\n1 0 parrived 0 req=7\n1 0 leave MPI_Parrived\n",
                  "rank 1, event 2: MPI_PARRIVED for request 7, which no MPI_PSEND_INIT or "
                  "MPI_PRECV_INIT");
  expect_refused ("p-unpaired",
                  "ranks 2\n0 0 enter MPI_Psend_init\n0 0 psend_init 1 tag=3 bytes=8 partitions=2 "
                  "req=1\n0 0 leave MPI_Psend_init\n",
                  "MPI_Psend_init #1 to rank 1 (communicator MPI_COMM_WORLD, tag 3) has no "
                  "matching MPI_Precv_init on rank 1");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_nls),
    cmocka_unit_test (test_fls),
    cmocka_unit_test (test_vls),
    cmocka_unit_test (test_figure8_3_3),
    cmocka_unit_test (test_figure8_2_3),
    cmocka_unit_test (test_figure8_3_2),
    cmocka_unit_test (test_figure8_missing_parrived),
    cmocka_unit_test (test_initialisation_order),
    cmocka_unit_test (test_bad_input),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
