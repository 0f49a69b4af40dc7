/* C++ region names as a person reads them (issue 40): Score-P 4 writes
 * them mangled (_ZL28CalcHourglassControlForElemsR6DomainPdd); tracesim
 * demangles them where it reads the trace, so `info`, `run`'s report,
 * hypotheses, sweeps and advise all see and take the demangled name.
 *
 * The trace (two ranks): each rank computes in
 *   CalcHourglassControlForElems(Domain&, double*, double)   (C below)
 *     rank 0: 0-2 s, rank 1: 0-1 s,
 *   std::vector<int, std::allocator<int> >::operator[](unsigned long)   (V)
 *     rank 0: 2-3 s, rank 1: 1-2 s,
 * then both meet in an MPI_Barrier, which rank 0 enters last, at 3 s: the
 * run takes 3 s, and rank 0's path decides it (the barrier's own cost as
 * replayed is microseconds).
 *   C 2x faster: rank 0 reaches the barrier at 1 + 1 = 2 s (rank 1 at
 *     0.5 + 1), so the run takes 2 s;
 *   V 2x faster: rank 0 at 2 + 0.5 = 2.5 s (rank 1 at 1.5): 2.5 s. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "tests/tool-run.h"

#define CALC "CalcHourglassControlForElems(Domain&, double*, double)"
#define VEC "std::vector<int, std::allocator<int> >::operator[](unsigned long)"

static const char *const trace_text =
  "ranks 2\n"
  "creator Score-P 4.0\n"
  "0 0 enter main\n"
  "0 0 enter _ZL28CalcHourglassControlForElemsR6DomainPdd\n0 2 leave\n"
  "0 2 enter _ZNSt6vectorIiSaIiEEixEm\n0 3 leave\n"
  "0 3 enter MPI_Barrier\n0 3 coll_begin\n0 3 coll_end barrier\n0 3 leave\n"
  "0 3 leave main\n"
  "1 0 enter main\n"
  "1 0 enter _ZL28CalcHourglassControlForElemsR6DomainPdd\n1 1 leave\n"
  "1 1 enter _ZNSt6vectorIiSaIiEEixEm\n1 2 leave\n"
  "1 2 enter MPI_Barrier\n1 2 coll_begin\n1 3 coll_end barrier\n1 3 leave\n"
  "1 3 leave main\n";

static double
member_runtime (const char *json)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  JsonObject *predicted = json_object_get_object_member (
    json_node_get_object (json_parser_get_root (parser)), "predicted");
  return json_object_get_double_member (predicted, "runtime_s");
}

/* Ensure that `info` lists the regions demangled and never mangled. */
static void
test_info_demangles (void **state)
{
  g_autofree char *work = ts_test_workdir ("names-info");
  g_autofree char *trace = ts_test_generate_text (work, trace_text);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "info", trace, NULL });
  assert_int_equal (r.status, 0);
  if (!strstr (r.out, CALC) || !strstr (r.out, VEC) || strstr (r.out, "_Z"))
    fail_msg ("info does not show the demangled names:\n%s", r.out);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

/* Ensure that a hypothesis selects a region by its demangled name, written
 * in double quotes (exactly that name: its '*' is no wildcard, its "[]"
 * no end of the section), and that the rule applies: the runtimes of the
 * header's derivation. The report names the region demangled too. */
static void
test_hypothesis_selects_demangled (void **state)
{
  g_autofree char *work = ts_test_workdir ("names-hyp");
  g_autofree char *trace = ts_test_generate_text (work, trace_text);
  const struct {
    const char *text;
    double runtime;
  } cases[] = {
    { "[region:\"" CALC "\"]   # C\nscale = 0.5\n", 2.0 },
    { "[region:\"" VEC "\"]\nscale = 0.5\n", 2.5 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *hyp = g_build_filename (work, "h.hyp", NULL);
      g_autofree char *out = g_strdup_printf ("%s/out%u", work, i);
      assert_true (g_file_set_contents (hyp, cases[i].text, -1, NULL));
      g_autofree char *why = NULL;
      g_autofree char *json = ts_run_tracesim_output (
        (const char *[]) { "run", trace, "-H", hyp, "-o", out, "-q", NULL }, out, "summary.json",
        &why);
      if (!json)
        fail_msg ("%s: %s", cases[i].text, why);
      /* The barrier's replayed cost: microseconds. */
      assert_float_equal (member_runtime (json), cases[i].runtime, 1e-3);
      /* The report names the region demangled, and its sentence names the
       * region the quoted selector chose as the what-if's (the page takes
       * what the rules select from the run, not from the file's text, in
       * which a quoted name with "[]" is no glob): C's exclusive time over
       * both ranks goes from 2 + 1 = 3 s to 1 + 0.5 = 1.5 s, -1.5 s; V's
       * from 1 + 1 = 2 s to 0.5 + 0.5 = 1 s, -1 s. */
      TsToolResult r = ts_run_tracesim ((const char *[]) { "report", out, "-q", NULL });
      assert_int_equal (r.status, 0);
      ts_tool_result_clear (&r);
      g_autofree char *page_path = g_build_filename (out, "report.html", NULL);
      g_autofree char *page = NULL;
      assert_true (g_file_get_contents (page_path, &page, NULL, NULL));
      assert_null (strstr (page, "_ZL28"));
      /* HTML-escaped: & is &amp;, < &lt;, > &gt;. */
      const char *story = i == 0
        ? "<p class=\"story\"><b>CalcHourglassControlForElems(Domain&amp;, double*, double)</b> -1.5 s"
        : "<p class=\"story\"><b>std::vector&lt;int, std::allocator&lt;int&gt; &gt;::operator[](unsigned long)</b> -1 s";
      if (!strstr (page, story) || !strstr (page, "the region of the what-if whose own time"))
        {
          /* Where the report could not read the original trace, it says
           * why in a note: that is the cause to see. */
          const char *at = strstr (page, "<p class=\"story\">");
          const char *note = strstr (page, "The original trace cannot be read");
          fail_msg ("case %u: expected %s, as the what-if's region; the page says %.300s%s%.300s",
                    i, story, at ? at : "(no sentence)", note ? "\n... and " : "",
                    note ? note : "");
        }
    }
  ts_test_rmtree (work);
}

/* Ensure that a sweep takes demangled names as values (in double quotes:
 * they hold commas) and that each point's rule applies to its name. */
static void
test_sweep_over_demangled (void **state)
{
  g_autofree char *work = ts_test_workdir ("names-sweep");
  g_autofree char *trace = ts_test_generate_text (work, trace_text);
  g_autofree char *tmpl = g_build_filename (work, "r.hyp.in", NULL);
  g_autofree char *sweep = g_build_filename (work, "names.sweep", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  assert_true (g_file_set_contents (tmpl, "[region:\"${region}\"]\nscale = 0.5\n", -1, NULL));
  /* Paths in a sweep file are relative to it. */
  g_autofree char *text = g_strdup_printf ("[sweep]\ntrace = %s\nhypothesis = r.hyp.in\n"
                                           "[parameters]\nregion = \"" CALC "\", \"" VEC "\"\n",
                                           trace + strlen (work) + 1);
  assert_true (g_file_set_contents (sweep, text, -1, NULL));
  TsToolResult r = ts_run_tracesim ((const char *[]) { "sweep", sweep, "-o", out, "-j", "1",
                                                       "-q", NULL });
  if (r.status != 0)
    fail_msg ("tracesim sweep: %s", r.err);
  ts_tool_result_clear (&r);
  g_autofree char *path = g_build_filename (out, "results.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_file (parser, path, NULL));
  JsonArray *rows = json_node_get_array (json_parser_get_root (parser));
  assert_int_equal (json_array_get_length (rows), 2);
  /* The points in the order of the values: C (2 s), then V (2.5 s). */
  const char *names[] = { CALC, VEC };
  double runtimes[] = { 2.0, 2.5 };
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *o = json_array_get_object_element (rows, i);
      JsonObject *p = json_object_get_object_member (o, "parameters");
      assert_string_equal (json_object_get_string_member (p, "region"), names[i]);
      assert_float_equal (json_object_get_double_member (o, "predicted_runtime_s"), runtimes[i],
                          1e-3);
    }
  ts_test_rmtree (work);
}

/* Ensure that advise ranks the regions by their demangled names: C first
 * (2x faster saves 1 s), then V (0.5 s). */
static void
test_advise_demangles (void **state)
{
  g_autofree char *work = ts_test_workdir ("names-advise");
  g_autofree char *trace = ts_test_generate_text (work, trace_text);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "advise", trace, "-j", "1", "-q", NULL });
  if (r.status != 0)
    fail_msg ("tracesim advise: %s", r.err);
  const char *calc = strstr (r.out, "\n  " CALC " ");
  const char *vec = strstr (r.out, "\n  " VEC " ");
  if (!calc || !vec || calc > vec || strstr (r.out, "_Z"))
    fail_msg ("advise does not rank the demangled names:\n%s", r.out);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_info_demangles),
    cmocka_unit_test (test_hypothesis_selects_demangled),
    cmocka_unit_test (test_sweep_over_demangled),
    cmocka_unit_test (test_advise_demangles),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
