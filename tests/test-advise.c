/* tracesim advise: which region to optimise first, from one trace.
 *
 * The trace (two ranks, Score-P-like): each rank computes in `setup` for
 * 0.1 s, then in `solve` (rank 0: 0.6 s, rank 1: 0.2 s), then both meet in
 * an MPI_Allreduce of 16 bytes, which rank 0 enters last, at 0.7 s. `main`
 * holds them and computes nothing of its own. So the regions with
 * exclusive compute are solve (0.8 s over ranks) and setup (0.2 s), in
 * that order, and rank 0's path decides the runtime: T = 0.7 s + the
 * allreduce as replayed (c, the same in every point, since no change
 * touches it except the network's).
 *   solve 2x faster:   rank 0 computes 0.1 + 0.3: T - 0.3, saving 0.3 s
 *   solve balanced:    each rank the mean, 0.4: T - 0.2, saving 0.2 s
 *   setup 2x faster:   both ranks 0.05 earlier: saving 0.05 s
 *   setup balanced:    both took 0.1 already: saving 0
 *   network 2x faster: only the allreduce's few microseconds: ~0
 *   ideal network:     the allreduce's transfer gone: at least as much, ~0
 *
 * A trace of MPI calls only has no such regions: advise ranks its phases,
 * the compute before each MPI call (see mpi_only_text). */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "pipeline/sweep.h"
#include "tests/tool-run.h"

static const char *const trace_text =
  "ranks 2\n"
  "creator Score-P 8.0\n"
  "0 0.0 enter main\n0 0.0 enter setup\n0 0.1 leave setup\n0 0.1 enter solve\n0 0.7 leave solve\n"
  "0 0.7 enter MPI_Allreduce\n0 0.7 coll_begin\n"
  "0 0.7 coll_end allreduce comm=world root=none sent=32 recv=32\n"
  "0 0.7 leave MPI_Allreduce\n0 0.7 leave main\n"
  "1 0.0 enter main\n1 0.0 enter setup\n1 0.1 leave setup\n1 0.1 enter solve\n1 0.3 leave solve\n"
  "1 0.3 enter MPI_Allreduce\n1 0.3 coll_begin\n"
  "1 0.7 coll_end allreduce comm=world root=none sent=32 recv=32\n"
  "1 0.7 leave MPI_Allreduce\n1 0.7 leave main\n";

/* results.json's rows: parameters.region, parameters.change, saving_s,
 * predicted_runtime_s, in the sweep's point order. */
typedef struct {
  char region[32], change[16];
  double saving, runtime;
} Row;

static GArray *
read_rows (const char *out)
{
  g_autofree char *path = g_build_filename (out, "results.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_file (parser, path, NULL));
  JsonArray *a = json_node_get_array (json_parser_get_root (parser));
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (Row));
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonObject *o = json_array_get_object_element (a, i);
      JsonObject *p = json_object_get_object_member (o, "parameters");
      Row r = { { 0 } };
      g_strlcpy (r.region, json_object_get_string_member (p, "region"), sizeof r.region);
      g_strlcpy (r.change, json_object_get_string_member (p, "change"), sizeof r.change);
      r.saving = json_object_get_double_member (o, "saving_s");
      r.runtime = json_object_get_double_member (o, "predicted_runtime_s");
      g_array_append_val (rows, r);
    }
  return rows;
}

static const Row *
find (GArray *rows, const char *region, const char *change)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = &g_array_index (rows, Row, i);
      if (g_str_equal (r->region, region) && g_str_equal (r->change, change))
        return r;
    }
  fail_msg ("no row %s %s", region, change);
  return NULL;
}

/* The predicted runtime of `tracesim run TRACE -H HYP -o OUT`. */
static double
predicted_runtime (const char *trace, const char *hyp, const char *out)
{
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output ((const char *[]) { "run", trace, "-H", hyp, "-o",
                                                                     out, "-q", NULL },
                                                  out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim run: %s", why);
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  JsonObject *predicted = json_object_get_object_member (
    json_node_get_object (json_parser_get_root (parser)), "predicted");
  return json_object_get_double_member (predicted, "runtime_s");
}

/* `tracesim advise TRACE -o OUT -j 1 -q`, which must succeed. */
static TsToolResult
advise_into (const char *trace, const char *out)
{
  TsToolResult r = ts_run_tracesim ((const char *[]) { "advise", trace, "-o", out, "-j", "1",
                                                       "-q", NULL });
  if (r.status != 0)
    fail_msg ("tracesim advise: %s", r.err);
  return r;
}

/* The line of advise's table for @region and @change (columns as wide as
 * their longest name), or NULL. */
static const char *
table_row (const char *out, const char *region, const char *change)
{
  g_autofree char *re_region = g_regex_escape_string (region, -1);
  g_autofree char *re_change = g_regex_escape_string (change, -1);
  g_autofree char *pattern = g_strdup_printf ("^  %s +%s ", re_region, re_change);
  g_autoptr (GRegex) re = g_regex_new (pattern, G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  int start = -1;
  if (g_regex_match (re, out, 0, &m))
    g_match_info_fetch_pos (m, 0, &start, NULL);
  return start >= 0 ? out + start : NULL;
}

/* That line alone (caller frees), or NULL. */
static char *
table_line (const char *out, const char *region, const char *change)
{
  const char *start = table_row (out, region, change);
  const char *end = start ? strchr (start, '\n') : NULL;
  return start ? g_strndup (start, end ? (gsize) (end - start) : strlen (start)) : NULL;
}

static void
test_ranks_regions_by_saving (void **state)
{
  g_autofree char *work = ts_test_workdir ("advise");
  g_autofree char *trace = ts_test_generate_text (work, trace_text);
  g_autofree char *out = g_build_filename (work, "advice", NULL);
  TsToolResult r = advise_into (trace, out);
  /* The table lists solve 2x faster, solve balanced, setup 2x faster in
   * that order (by saving, derived above). */
  const char *a = table_row (r.out, "solve", "2x faster");
  const char *b = table_row (r.out, "solve", "balanced");
  const char *c = table_row (r.out, "setup", "2x faster");
  if (!a || !b || !c || !(a < b && b < c))
    fail_msg ("expected solve faster, solve balanced, setup faster in order:\n%s", r.out);
  ts_tool_result_clear (&r);

  GArray *rows = read_rows (out);
  assert_int_equal (rows->len, 7); /* as traced, 2 regions x 2 changes, the network x 2 */
  assert_float_equal (find (rows, "(as traced)", "none")->saving, 0, 1e-12);
  assert_float_equal (find (rows, "solve", "faster")->saving, 0.3, 1e-6);
  assert_float_equal (find (rows, "solve", "balanced")->saving, 0.2, 1e-6);
  assert_float_equal (find (rows, "setup", "faster")->saving, 0.05, 1e-6);
  assert_float_equal (find (rows, "setup", "balanced")->saving, 0, 1e-6);
  double network = find (rows, "(network)", "faster")->saving;
  assert_true (network >= 0 && network < 1e-3);
  double ideal = find (rows, "(network)", "ideal")->saving;
  assert_true (ideal >= network && ideal < 1e-3);
  /* Every speed-up saved at least half of what it removes: nothing to
   * explain, no point ran twice. */
  g_autofree char *explain = g_build_filename (out, "explain", NULL);
  assert_false (g_file_test (explain, G_FILE_TEST_EXISTS));

  /* A point is the run a user would make with the same hypothesis. */
  g_autofree char *hyp = g_build_filename (work, "solve-faster.hyp", NULL);
  assert_true (g_file_set_contents (hyp, "[region:solve]\nscale = 0.5\n", -1, NULL));
  g_autofree char *run_out = g_build_filename (work, "run", NULL);
  assert_float_equal (predicted_runtime (trace, hyp, run_out),
                      find (rows, "solve", "faster")->runtime, 1e-12);
  g_array_unref (rows);

  /* results.csv names its columns as the issue asks. */
  g_autofree char *csv = NULL;
  g_autofree char *csv_path = g_build_filename (out, "results.csv", NULL);
  assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  const char *want[] = { "region", "change", "predicted_runtime_s", "saving_s" };
  g_auto (GStrv) header = g_strsplit (csv, "\n", 2);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autofree char *field = g_strdup_printf (",%s,", want[i]);
      g_autofree char *line = g_strdup_printf (",%s,", header[0]);
      if (!strstr (line, field))
        fail_msg ("results.csv's header lacks %s: %s", want[i], header[0]);
    }
  ts_test_rmtree (work);
}

/* Where a speed-up went. Rank 0 computes in `solve` for 0.6 s, rank 1 in
 * `aux` for 0.4 s, then both meet in an MPI_Allreduce that rank 0 enters
 * last. aux 2x faster removes 0.4 x 0.5 / 2 ranks = 0.1 s from an average
 * rank but saves nothing (rank 0's path decides the runtime): rank 1
 * enters the allreduce at 0.2 s instead of 0.4 s and waits there 0.2 s
 * longer, so Wait at NxN grows by 0.2 s. Only that point falls short (solve
 * 2x faster saves 0.2 s: rank 1's 0.4 s then decides; the balanced points
 * change nothing, each region being on one rank), so advise runs only it
 * and the baseline again with wait states; the sweep's own points find
 * none and write no archive. */
static void
test_explains_where_the_time_went (void **state)
{
  g_autofree char *work = ts_test_workdir ("advise-explain");
  g_autofree char *trace = ts_test_generate_text (work,
    "ranks 2\n"
    "creator Score-P 8.0\n"
    "0 0.0 enter main\n0 0.0 enter solve\n0 0.6 leave solve\n"
    "0 0.6 enter MPI_Allreduce\n0 0.6 coll_begin\n"
    "0 0.6 coll_end allreduce comm=world root=none sent=32 recv=32\n"
    "0 0.6 leave MPI_Allreduce\n0 0.6 leave main\n"
    "1 0.0 enter main\n1 0.0 enter aux\n1 0.4 leave aux\n"
    "1 0.4 enter MPI_Allreduce\n1 0.4 coll_begin\n"
    "1 0.6 coll_end allreduce comm=world root=none sent=32 recv=32\n"
    "1 0.6 leave MPI_Allreduce\n1 0.6 leave main\n");
  g_autofree char *out = g_build_filename (work, "advice", NULL);
  TsToolResult r = advise_into (trace, out);
  g_autofree char *aux = table_line (r.out, "aux", "2x faster");
  /* A saving of 0 may print as -0% (rounding). */
  if (!aux || !(strstr (aux, "saves 0% of the 100 ms it removes per rank")
                || strstr (aux, "saves -0% of the 100 ms it removes per rank"))
      || !strstr (aux, "(wait_nxn +200 ms, all ranks)"))
    fail_msg ("expected aux 2x faster to name wait_nxn +0.2 s:\n%s", r.out);
  /* No other row is explained. */
  g_autofree char *solve = table_line (r.out, "solve", "2x faster");
  assert_non_null (solve);
  assert_null (strstr (solve, "wait instead"));
  ts_tool_result_clear (&r);

  GArray *rows = read_rows (out);
  assert_float_equal (find (rows, "aux", "faster")->saving, 0, 1e-9);
  assert_float_equal (find (rows, "solve", "faster")->saving, 0.2, 1e-6);
  g_array_unref (rows);
  /* explain/ holds the baseline and aux faster, with their wait states. */
  g_autofree char *explain = g_build_filename (out, "explain", NULL);
  rows = read_rows (explain);
  assert_int_equal (rows->len, 2);
  find (rows, "(as traced)", "none");
  find (rows, "aux", "faster");
  g_array_unref (rows);
  /* Point 1 of each sweep, by its name (pipeline/sweep.h). */
  g_autofree char *lean_sweep = g_build_filename (out, "inputs", "advise", "advise.sweep", NULL);
  g_autofree char *full_sweep = g_build_filename (out, "inputs", "advise", "explain.sweep", NULL);
  g_autoptr (TsSweep) ls = ts_sweep_load (lean_sweep, NULL);
  g_autoptr (TsSweep) fs = ts_sweep_load (full_sweep, NULL);
  assert_true (ls && fs);
  g_autofree char *lean_name = ts_sweep_point_name (ls, 1);
  g_autofree char *full_name = ts_sweep_point_name (fs, 1);
  g_autofree char *lean = g_build_filename (out, "points", lean_name, "predicted", NULL);
  g_autofree char *full = g_build_filename (explain, "points", full_name, "waitstates.csv", NULL);
  g_autofree char *lean_summary = g_build_filename (out, "points", lean_name, "summary.json", NULL);
  assert_true (g_file_test (lean_summary, G_FILE_TEST_IS_REGULAR));
  assert_false (g_file_test (lean, G_FILE_TEST_EXISTS));
  assert_true (g_file_test (full, G_FILE_TEST_IS_REGULAR));
  ts_test_rmtree (work);
}

/* Bad options and a trace with nothing to advise on: a clear error, non-zero,
 * nothing written. */
static void
test_refusals (void **state)
{
  g_autofree char *work = ts_test_workdir ("advise-refusals");
  g_autofree char *trace = ts_test_generate_text (work, trace_text);
  g_autofree char *out = g_build_filename (work, "advice", NULL);
  const struct { const char *option, *value, *says; } bad[] = {
    { "--top", "0", "--top 0" },
    { "--factor", "0", "--factor 0" },
    { "--factor", "-1", "--factor -1" },
    { "--factor", "1.5", "--factor 1.5" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      TsToolResult r = ts_run_tracesim ((const char *[]) { "advise", trace, bad[i].option,
                                                           bad[i].value, "-o", out, NULL });
      assert_int_not_equal (r.status, 0);
      if (!strstr (r.err, bad[i].says))
        fail_msg ("%s %s: expected '%s' in: %s", bad[i].option, bad[i].value, bad[i].says, r.err);
      assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
      ts_tool_result_clear (&r);
    }
  /* Only MPI calls: no compute of the program's own. */
  g_autofree char *mpi_only = ts_test_generate_text (work,
    "ranks 2\n"
    "0 0.0 enter MPI_Barrier\n0 0.0 coll_begin\n0 0.1 coll_end barrier comm=world root=none sent=0 recv=0\n"
    "0 0.1 leave MPI_Barrier\n"
    "1 0.0 enter MPI_Barrier\n1 0.0 coll_begin\n1 0.1 coll_end barrier comm=world root=none sent=0 recv=0\n"
    "1 0.1 leave MPI_Barrier\n");
  TsToolResult r = ts_run_tracesim ((const char *[]) { "advise", mpi_only, "-o", out, NULL });
  assert_int_not_equal (r.status, 0);
  if (!strstr (r.err, "no region of the program's own and no phase between MPI calls has compute"))
    fail_msg ("expected the no-compute refusal: %s", r.err);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

/* The same program recorded without user regions (EZTrace, tracesim-record
 * on an uninstrumented binary): both ranks meet in an MPI_Barrier at 0,
 * compute until an MPI_Allreduce (rank 0 enters at 0.6 s, rank 1 at 0.2 s),
 * then compute 0.1 s until a last MPI_Barrier. The phases are the compute
 * before each call: MPI_Allreduce (0.6 + 0.2 = 0.8 s over ranks, one burst
 * per rank) and MPI_Barrier (0.1 + 0.1 s; the first barrier has no compute
 * before it). Rank 0's path decides the runtime, so, as for the regions:
 *   phase:MPI_Allreduce 2x faster: rank 0 computes 0.3 s less: saving 0.3 s
 *   phase:MPI_Allreduce balanced:  both 0.4 s: saving 0.2 s
 *   phase:MPI_Barrier 2x faster:   both 0.05 s earlier: saving 0.05 s
 *   phase:MPI_Barrier balanced:    both took 0.1 already: saving 0 */
static const char *const mpi_only_text =
  "ranks 2\n"
  "creator Score-P 8.0\n"
  "0 0.0 enter MPI_Barrier\n0 0.0 coll_begin\n0 0.0 coll_end barrier comm=world root=none sent=0 recv=0\n"
  "0 0.0 leave MPI_Barrier\n"
  "0 0.6 enter MPI_Allreduce\n0 0.6 coll_begin\n"
  "0 0.6 coll_end allreduce comm=world root=none sent=32 recv=32\n0 0.6 leave MPI_Allreduce\n"
  "0 0.7 enter MPI_Barrier\n0 0.7 coll_begin\n0 0.7 coll_end barrier comm=world root=none sent=0 recv=0\n"
  "0 0.7 leave MPI_Barrier\n"
  "1 0.0 enter MPI_Barrier\n1 0.0 coll_begin\n1 0.0 coll_end barrier comm=world root=none sent=0 recv=0\n"
  "1 0.0 leave MPI_Barrier\n"
  "1 0.2 enter MPI_Allreduce\n1 0.2 coll_begin\n"
  "1 0.6 coll_end allreduce comm=world root=none sent=32 recv=32\n1 0.6 leave MPI_Allreduce\n"
  "1 0.7 enter MPI_Barrier\n1 0.7 coll_begin\n1 0.7 coll_end barrier comm=world root=none sent=0 recv=0\n"
  "1 0.7 leave MPI_Barrier\n";

static void
test_ranks_phases_without_regions (void **state)
{
  g_autofree char *work = ts_test_workdir ("advise-phases");
  g_autofree char *trace = ts_test_generate_text (work, mpi_only_text);
  g_autofree char *out = g_build_filename (work, "advice", NULL);
  TsToolResult r = advise_into (trace, out);
  ts_tool_result_clear (&r);
  GArray *rows = read_rows (out);
  assert_int_equal (rows->len, 7); /* as traced, 2 phases x 2 changes, the network x 2 */
  assert_float_equal (find (rows, "phase:MPI_Allreduce", "faster")->saving, 0.3, 1e-6);
  assert_float_equal (find (rows, "phase:MPI_Allreduce", "balanced")->saving, 0.2, 1e-6);
  assert_float_equal (find (rows, "phase:MPI_Barrier", "faster")->saving, 0.05, 1e-6);
  assert_float_equal (find (rows, "phase:MPI_Barrier", "balanced")->saving, 0, 1e-6);

  /* The point equals the run with the [phase:...] hypothesis a user writes. */
  g_autofree char *hyp = g_build_filename (work, "allreduce-faster.hyp", NULL);
  assert_true (g_file_set_contents (hyp, "[phase:MPI_Allreduce]\nscale = 0.5\n", -1, NULL));
  g_autofree char *run_out = g_build_filename (work, "run", NULL);
  assert_float_equal (predicted_runtime (trace, hyp, run_out),
                      find (rows, "phase:MPI_Allreduce", "faster")->runtime, 1e-12);
  /* balance and scale in one section: both ranks 0.4 s, then halved, 0.2 s:
   * rank 0 computes 0.4 s less than traced. */
  g_autofree char *both = g_build_filename (work, "both.hyp", NULL);
  assert_true (g_file_set_contents (both, "[phase:MPI_Allreduce]\nscale = 0.5\nbalance = mean\n",
                                    -1, NULL));
  g_autofree char *both_out = g_build_filename (work, "run-both", NULL);
  assert_float_equal (predicted_runtime (trace, both, both_out),
                      find (rows, "(as traced)", "none")->runtime - 0.4, 1e-6);
  g_array_unref (rows);

  /* hypotheses check lists the phases: MPI_Allreduce 2 bursts, 0.8 s (800 ms). */
  r = ts_run_tracesim ((const char *[]) { "hypotheses", "check", hyp, trace, NULL });
  assert_int_equal (r.status, 0);
  if (!strstr (r.out, "phase(s) MPI_Allreduce: 2 bursts on 2 rank(s), 800 ms of compute"))
    fail_msg ("hypotheses check: %s", r.out);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

/* Hypotheses that would change nothing are refused, with what to write. */
static void
test_do_nothing_hypotheses (void **state)
{
  g_autofree char *work = ts_test_workdir ("advise-nothing");
  g_autofree char *trace = ts_test_generate_text (work, trace_text);
  g_autofree char *mpi_dir = g_build_filename (work, "mpi-only", NULL);
  assert_int_equal (g_mkdir_with_parents (mpi_dir, 0777), 0);
  g_autofree char *mpi_only = ts_test_generate_text (mpi_dir, mpi_only_text);
  const struct { const char *trace, *text, *says; } bad[] = {
    /* An MPI call has no compute of its own. */
    { trace, "[region:MPI_Allreduce]\nscale = 0.1\n", "it is an MPI call" },
    /* main only calls setup and solve. */
    { trace, "[region:main]\nscale = 0.5\n", "add inclusive = true" },
    /* The trace has ranks 0 and 1. */
    { trace, "[region:solve]\nscale = 0.5\nranks = 7\n", "there is no rank 7" },
    /* No MPI_Send in this trace: the closest phases are named. */
    { mpi_only, "[phase:MPI_Send]\nscale = 0.5\n", "matches no phase" },
  };
  g_autofree char *hyp = g_build_filename (work, "bad.hyp", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      assert_true (g_file_set_contents (hyp, bad[i].text, -1, NULL));
      for (guint k = 0; k < 2; k++)
        {
          TsToolResult r = k == 0
            ? ts_run_tracesim ((const char *[]) { "hypotheses", "check", hyp, bad[i].trace, NULL })
            : ts_run_tracesim ((const char *[]) { "run", bad[i].trace, "-H", hyp, "-o", out, "-q",
                                                  NULL });
          assert_int_not_equal (r.status, 0);
          if (!strstr (r.err, bad[i].says) || !strstr (r.err, "bad.hyp:1:"))
            fail_msg ("%s: expected '%s' at bad.hyp:1: %s", bad[i].text, bad[i].says, r.err);
          assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
          ts_tool_result_clear (&r);
        }
    }
  ts_test_rmtree (work);
}

/* A run that MPI_Init dominates, as NPB CG's (1.09 s of 1.37 s): two
 * ranks, each in MPI_Init from 0 to 1 s, then solve (rank 0: 0.4 s, rank
 * 1: 0.2 s), an allreduce that rank 0 enters last at 1.4 s, and
 * MPI_Finalize from 1.4 to 1.5 s; main around it all. No change touches
 * MPI_Init and MPI_Finalize: 1 + 0.1 = 1.1 s of each rank (no rank
 * starts late), of the 1.5 s traced: 73% (1.1 / 1.5 = 0.733). */
static const char *const init_text =
  "ranks 2\n"
  "creator Score-P 8.0\n"
  "0 0.0 enter main\n0 0.0 enter MPI_Init\n0 1.0 leave MPI_Init\n"
  "0 1.0 enter solve\n0 1.4 leave solve\n"
  "0 1.4 enter MPI_Allreduce\n0 1.4 coll_begin\n"
  "0 1.4 coll_end allreduce comm=world root=none sent=32 recv=32\n0 1.4 leave MPI_Allreduce\n"
  "0 1.4 enter MPI_Finalize\n0 1.5 leave MPI_Finalize\n0 1.5 leave main\n"
  "1 0.0 enter main\n1 0.0 enter MPI_Init\n1 1.0 leave MPI_Init\n"
  "1 1.0 enter solve\n1 1.2 leave solve\n"
  "1 1.2 enter MPI_Allreduce\n1 1.2 coll_begin\n"
  "1 1.4 coll_end allreduce comm=world root=none sent=32 recv=32\n1 1.4 leave MPI_Allreduce\n"
  "1 1.4 enter MPI_Finalize\n1 1.5 leave MPI_Finalize\n1 1.5 leave main\n";

#define OUTSIDE "MPI_Init, MPI_Finalize and the ranks' start: 1.1 s of the 1.5 s as traced (73%"

/* Ensure that advise states the time outside any change with its share,
 * in the CLI and on its page; that the page is advise's own (the ranked
 * changes with the CLI's explanation, no sweep plots against p0000.hyp);
 * and that without -o it does not claim to keep the first pass in a
 * directory it then removes. */
static void
test_states_what_no_change_touches (void **state)
{
  g_autofree char *work = ts_test_workdir ("advise-outside");
  g_autofree char *trace = ts_test_generate_text (work, init_text);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  TsToolResult r = advise_into (trace, out);
  if (!strstr (r.out, "  " OUTSIDE))
    fail_msg ("no '%s' in:\n%s", OUTSIDE, r.out);
  ts_tool_result_clear (&r);
  r = ts_run_tracesim ((const char *[]) { "report", out, "-q", NULL });
  assert_int_equal (r.status, 0);
  ts_tool_result_clear (&r);
  g_autofree char *path = g_build_filename (out, "report.html", NULL);
  g_autofree char *page = NULL;
  assert_true (g_file_get_contents (path, &page, NULL, NULL));
  /* HTML-escaped: ' is &apos;. */
  assert_non_null (strstr (page, "MPI_Init, MPI_Finalize and the ranks&apos; start: 1.1 s of the "
                                 "1.5 s as traced (73%"));
  /* solve 2x faster saves 0.2 s (rank 0 reaches the allreduce at 1.2 s):
   * the top row; 0.2 / 1.5 = 13%. */
  const char *row = strstr (page, "<tr class=\"advice-row\">");
  assert_non_null (row);
  assert_true (g_str_has_prefix (row, "<tr class=\"advice-row\"><td style=\"text-align:left\">"
                                      "solve</td><td>2x faster</td>"));
  assert_non_null (strstr (row, "<td>13%</td>"));
  assert_null (strstr (page, "Predicted runtime against each parameter"));
  assert_null (strstr (page, "p0000.hyp"));
  /* Without -o: the first pass goes with the temporary directory. */
  r = ts_run_tracesim ((const char *[]) { "advise", trace, "-j", "1", NULL });
  assert_int_equal (r.status, 0);
  if (strstr (r.err, "kept in") || !strstr (r.err, "removed at the end"))
    fail_msg ("advise without -o says: %s", r.err);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ranks_regions_by_saving),
    cmocka_unit_test (test_explains_where_the_time_went),
    cmocka_unit_test (test_refusals),
    cmocka_unit_test (test_ranks_phases_without_regions),
    cmocka_unit_test (test_do_nothing_hypotheses),
    cmocka_unit_test (test_states_what_no_change_touches),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
