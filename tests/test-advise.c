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
 *   network 2x faster: only the allreduce's few microseconds: ~0 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>
#include <json-glib/json-glib.h>

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

static void
test_ranks_regions_by_saving (void **state)
{
  g_autofree char *work = ts_test_workdir ("advise");
  g_autofree char *trace = ts_test_generate_text (work, trace_text);
  g_autofree char *out = g_build_filename (work, "advice", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "advise", trace, "-o", out, "-j", "1",
                                                       "-q", NULL });
  if (r.status != 0)
    fail_msg ("tracesim advise: %s", r.err);
  /* The table lists solve 2x faster, solve balanced, setup 2x faster in
   * that order (by saving, derived above). */
  const char *a = strstr (r.out, "solve                            2x faster");
  const char *b = strstr (r.out, "solve                            balanced");
  const char *c = strstr (r.out, "setup                            2x faster");
  if (!a || !b || !c || !(a < b && b < c))
    fail_msg ("expected solve faster, solve balanced, setup faster in order:\n%s", r.out);
  ts_tool_result_clear (&r);

  GArray *rows = read_rows (out);
  assert_int_equal (rows->len, 6); /* as traced, 2 regions x 2 changes, the network */
  assert_float_equal (find (rows, "(as traced)", "none")->saving, 0, 1e-12);
  assert_float_equal (find (rows, "solve", "faster")->saving, 0.3, 1e-6);
  assert_float_equal (find (rows, "solve", "balanced")->saving, 0.2, 1e-6);
  assert_float_equal (find (rows, "setup", "faster")->saving, 0.05, 1e-6);
  assert_float_equal (find (rows, "setup", "balanced")->saving, 0, 1e-6);
  double network = find (rows, "(network)", "faster")->saving;
  assert_true (network >= 0 && network < 1e-3);

  /* A point is the run a user would make with the same hypothesis. */
  g_autofree char *hyp = g_build_filename (work, "solve-faster.hyp", NULL);
  assert_true (g_file_set_contents (hyp, "[region:solve]\nscale = 0.5\n", -1, NULL));
  g_autofree char *run_out = g_build_filename (work, "run", NULL);
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output ((const char *[]) { "run", trace, "-H", hyp, "-o",
                                                                     run_out, "-q", NULL },
                                                  run_out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim run: %s", why);
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  JsonObject *predicted = json_object_get_object_member (
    json_node_get_object (json_parser_get_root (parser)), "predicted");
  assert_float_equal (json_object_get_double_member (predicted, "runtime_s"),
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
  if (!strstr (r.err, "no region of the program's own has compute"))
    fail_msg ("expected the no-compute refusal: %s", r.err);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ranks_regions_by_saving),
    cmocka_unit_test (test_refusals),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
