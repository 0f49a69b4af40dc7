/* hypotheses/: every kind parsed from text and from a file, every error
 * with its file and line, binding to a trace's regions, and the rewriting
 * of compute actions. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "hypotheses/hypotheses.h"
#include "tests/tool-run.h"

/* Regions: main, compute_kernel, physics_a, physics_b (ids in that order of
 * first appearance). */
static const char *script =
  "ranks 2\n"
  "0 0.0 enter main\n0 0.0 enter compute_kernel\n0 1.0 leave compute_kernel\n"
  "0 1.0 enter physics_a\n0 2.0 leave physics_a\n0 2.0 enter physics_b\n0 3.0 leave physics_b\n"
  "0 3.0 leave main\n"
  "1 0.0 enter main\n1 0.0 enter compute_kernel\n1 0.5 leave compute_kernel\n1 0.5 leave main\n";

static TsTrace *
open_trace (const char *name)
{
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *anchor = ts_test_generate_text (work, script);
  GError *error = NULL;
  TsTrace *t = ts_trace_open (anchor, &error);
  g_assert_no_error (error);
  return t;
}

/* Load @text; return the error message (caller frees) or NULL. */
static char *
load_error (const char *text)
{
  g_autoptr (TsHypotheses) h = ts_hypotheses_new ();
  GError *error = NULL;
  if (ts_hypotheses_load_data (h, text, "t.hyp", &error))
    return NULL;
  char *msg = g_strdup (error->message);
  g_error_free (error);
  return msg;
}

static void
expect_error (const char *text, const char *const *needles)
{
  g_autofree char *msg = load_error (text);
  if (!msg)
    fail_msg ("no error for:\n%s", text);
  for (guint i = 0; needles[i]; i++)
    if (!strstr (msg, needles[i]))
      fail_msg ("error lacks '%s': %s", needles[i], msg);
}

static void
test_every_kind_parses (void **state)
{
  g_autoptr (TsHypotheses) h = ts_hypotheses_new ();
  GError *error = NULL;
  /* Trailing comments as in the documentation's examples. */
  const char *text =
    "# every kind\n"
    "[region:compute_kernel]   # 2x faster\n"
    "scale = 0.5               # own compute x 0.5\n"
    "[region:physics_*]\n"
    "balance = median\n"
    "ranks = 0,1-\n"
    "occurrences = 100-\n"
    "inclusive = true\n"
    "[region:main]\n"
    "set = 0.25\n"
    "[region:phys.*_b]\n"
    "match = regex\n"
    "remove = true\n"
    "[network]\n"
    "bandwidth = 2\n"
    "latency = 0.5\n"
    "[hosts]\n"
    "speed = 1.25\n";
  assert_true (ts_hypotheses_load_data (h, text, "every.hyp", &error));
  g_assert_no_error (error);
  assert_int_equal (ts_hypotheses_n_rules (h), 4);
  assert_true (ts_hypotheses_bandwidth_factor (h) == 2);
  assert_true (ts_hypotheses_latency_factor (h) == 0.5);
  assert_true (ts_hypotheses_speed_factor (h) == 1.25);

  /* The same from a file, loaded after: rules add up, factors multiply. */
  g_autofree char *work = ts_test_workdir ("hypfile");
  g_autofree char *path = g_build_filename (work, "again.hyp", NULL);
  assert_true (g_file_set_contents (path, text, -1, NULL));
  assert_true (ts_hypotheses_load_file (h, path, &error));
  assert_int_equal (ts_hypotheses_n_rules (h), 8);
  assert_true (ts_hypotheses_bandwidth_factor (h) == 4);

  g_autoptr (TsTrace) trace = open_trace ("hypbind");
  assert_true (ts_hypotheses_bind (h, trace, NULL, &error));
  g_autoptr (GString) d = g_string_new (NULL);
  ts_hypotheses_describe (h, trace, d);
  /* A rank the trace does not have (it has 0 and 1) is refused at bind. */
  g_autoptr (TsHypotheses) beyond = ts_hypotheses_new ();
  assert_true (ts_hypotheses_load_data (beyond, "[region:main]\nscale = 2\nranks = 0-15\n",
                                        "beyond.hyp", &error));
  assert_false (ts_hypotheses_bind (beyond, trace, NULL, &error));
  assert_non_null (strstr (error->message, "beyond.hyp:1:"));
  assert_non_null (strstr (error->message, "no rank 15"));
  g_clear_error (&error);
  /* The glob selects both physics regions, the regex only the second. */
  assert_non_null (strstr (d->str, "every.hyp:4: balance median on the inclusive compute of "
                                   "physics_a, physics_b, ranks 0,1-, occurrences 100-"));
  assert_non_null (strstr (d->str, "every.hyp:11: remove on the own compute of physics_b\n"));
}

static void
test_errors_name_file_and_line (void **state)
{
  expect_error ("[region:a]\nscale = fast\n", (const char *const[]) { "t.hyp:2:", "fast", NULL });
  expect_error ("[region:a]\nscale = -2\n", (const char *const[]) { "t.hyp:2:", "-2", NULL });
  expect_error ("[network]\nbandwidth = -1\n",
                (const char *const[]) { "t.hyp:2:", "positive", NULL });
  expect_error ("[network]\nbandwidth = 0\n", (const char *const[]) { "t.hyp:2:", NULL });
  expect_error ("[region:a]\nscale = 1\nfrobnicate = 3\n",
                (const char *const[]) { "t.hyp:3:", "unknown key 'frobnicate'", NULL });
  expect_error ("[machine]\nspeed = 2\n",
                (const char *const[]) { "t.hyp:1:", "unknown section [machine]", NULL });
  expect_error ("[region:a]\nscale = 1\nranks = 5-3\n",
                (const char *const[]) { "t.hyp:3:", "empty", NULL });
  expect_error ("[region:a]\nscale = 1\nranks = \n", (const char *const[]) { "t.hyp:3:", NULL });
  expect_error ("[region:a]\nscale = 1\noccurrences = 0-2\n",
                (const char *const[]) { "t.hyp:3:", "from 1", NULL });
  expect_error ("[region:a]\nbalance = average\n",
                (const char *const[]) { "t.hyp:2:", "mean, median, min or max", NULL });
  /* A section combines one of set or balance with scale, nothing else. */
  expect_error ("[region:a]\nbalance = mean\nset = 2\n",
                (const char *const[]) { "t.hyp:1:", "both 'balance' and 'set'", NULL });
  expect_error ("[region:a]\nscale = 2\nremove = true\n",
                (const char *const[]) { "t.hyp:1:", "both 'scale' and 'remove'", NULL });
  expect_error ("[region:a]\nremove = true\nscale = 2\n",
                (const char *const[]) { "t.hyp:1:", "both 'remove' and 'scale'", NULL });
  expect_error ("[region:a]\nscale = 2\nscale = 3\n",
                (const char *const[]) { "t.hyp:3:", NULL });
  expect_error ("[phase:MPI_Send]\nscale = 2\ninclusive = true\n",
                (const char *const[]) { "t.hyp:3:", "a phase calls nothing", NULL });
  expect_error ("[region:a]\nranks = 1\n", (const char *const[]) { "t.hyp:1:", "nothing to do",
                                                                   NULL });
  expect_error ("[region:a(]\nmatch = regex\nscale = 1\n",
                (const char *const[]) { "t.hyp:1:", "regex", NULL });
  expect_error ("[region:a\nscale = 1\n", (const char *const[]) { "t.hyp", NULL });
  /* Across a rank's threads: balance only, on regions, every phase. */
  expect_error ("[region:a]\nbalance = mean\nacross = cores\n",
                (const char *const[]) { "t.hyp:3:", "ranks or threads", NULL });
  expect_error ("[region:a]\nset = 1\nacross = threads\n",
                (const char *const[]) { "t.hyp:3:", "goes with balance", NULL });
  expect_error ("[region:a]\nscale = 2\nacross = threads\n",
                (const char *const[]) { "t.hyp:3:", "there is none here", NULL });
  expect_error ("[region:a]\nbalance = mean\nacross = threads\noccurrences = 2-\n",
                (const char *const[]) { "t.hyp:4:", "every team phase", NULL });
  expect_error ("[phase:MPI_Send]\nbalance = mean\nacross = threads\n",
                (const char *const[]) { "t.hyp:3:", "write [region:...]", NULL });
  expect_error ("[region:a]\nthreads = 0\n",
                (const char *const[]) { "t.hyp:2:", "from 1 to 4096", NULL });
  expect_error ("[region:a]\nthreads = 2.5\n", (const char *const[]) { "t.hyp:2:", NULL });
  expect_error ("[region:a]\nthreads = 8\nacross = ranks\n",
                (const char *const[]) { "t.hyp:3:", "cannot be across = ranks", NULL });
  expect_error ("[region:a]\nthreads = 8\nbalance = mean\n",
                (const char *const[]) { "t.hyp:1:", "both 'threads' and 'balance'", NULL });
}

static void
test_no_match_suggests (void **state)
{
  g_autoptr (TsTrace) trace = open_trace ("hypnomatch");
  g_autoptr (TsHypotheses) h = ts_hypotheses_new ();
  GError *error = NULL;
  assert_true (ts_hypotheses_load_data (h, "\n[region:compute_kernal]\nscale = 0.5\n", "k.hyp",
                                        &error));
  assert_false (ts_hypotheses_bind (h, trace, NULL, &error));
  assert_non_null (strstr (error->message, "k.hyp:2:"));
  assert_non_null (strstr (error->message, "matches no region"));
  /* The closest name comes first. */
  assert_non_null (strstr (error->message, "closest names: compute_kernel"));
  g_error_free (error);
}

/* Rewriting: actions of rank 0 as the replay would see them. */
static double
rewrite (TsHypothesisRank *hr, TsActionKind kind, guint32 region, double seconds)
{
  TsAction a = { .kind = kind, .region = region, .seconds = seconds };
  GError *error = NULL;
  assert_true (ts_hypothesis_rank_apply (hr, &a, &error));
  return a.seconds;
}

static void
test_rewrite_selects_rank_and_occurrence (void **state)
{
  g_autoptr (TsTrace) trace = open_trace ("hyprewrite");
  gint kernel = ts_trace_region_by_name (trace, "compute_kernel");
  gint main_region = ts_trace_region_by_name (trace, "main");
  assert_true (kernel >= 0 && main_region >= 0);
  g_autoptr (TsHypotheses) h = ts_hypotheses_new ();
  GError *error = NULL;
  assert_true (ts_hypotheses_load_data (h,
                                        "[region:compute_kernel]\nscale = 0.5\nranks = 0\n"
                                        "occurrences = 2\n[hosts]\nspeed = 2\n",
                                        "r.hyp", &error));
  assert_true (ts_hypotheses_bind (h, trace, NULL, &error));

  TsHypothesisRank *r0 = ts_hypothesis_rank_new (h, 0, G_MAXUINT);
  rewrite (r0, TS_ACTION_ENTER, main_region, 0);
  /* Own compute of main: only [hosts] speed 2 applies: 1.0 -> 0.5. */
  assert_true (rewrite (r0, TS_ACTION_COMPUTE, main_region, 1.0) == 0.5);
  /* First visit of the kernel: not selected: 1.0 / 2. */
  rewrite (r0, TS_ACTION_ENTER, kernel, 0);
  assert_true (rewrite (r0, TS_ACTION_COMPUTE, kernel, 1.0) == 0.5);
  rewrite (r0, TS_ACTION_LEAVE, kernel, 0);
  /* Second visit: x 0.5, then / 2: 1.0 -> 0.25. */
  rewrite (r0, TS_ACTION_ENTER, kernel, 0);
  assert_true (rewrite (r0, TS_ACTION_COMPUTE, kernel, 1.0) == 0.25);
  rewrite (r0, TS_ACTION_LEAVE, kernel, 0);
  ts_hypothesis_rank_free (r0);

  /* Rank 1 is not selected: its second visit only gets the host speed. */
  TsHypothesisRank *r1 = ts_hypothesis_rank_new (h, 1, G_MAXUINT);
  rewrite (r1, TS_ACTION_ENTER, kernel, 0);
  rewrite (r1, TS_ACTION_LEAVE, kernel, 0);
  rewrite (r1, TS_ACTION_ENTER, kernel, 0);
  assert_true (rewrite (r1, TS_ACTION_COMPUTE, kernel, 1.0) == 0.5);
  ts_hypothesis_rank_free (r1);
}

/* `tracesim hypotheses check` lists what each rule selects. */
static void
test_check_command (void **state)
{
  g_autofree char *work = ts_test_workdir ("hypcheck");
  g_autofree char *trace = ts_test_generate_text (work, script);
  g_autofree char *hyp = g_build_filename (work, "c.hyp", NULL);
  assert_true (g_file_set_contents (hyp, "[region:physics_*]\nbalance = max\nranks = 1-\n",
                                    -1, NULL));
  TsToolResult r = ts_run_tracesim ((const char *[]) { "hypotheses", "check", hyp, trace, NULL });
  assert_int_equal (r.status, 0);
  /* physics_a and physics_b: one visit each, on rank 0, of 1 s each. */
  g_autofree char *want = g_strdup_printf ("%s:1: balance max on the own compute of physics_a, "
                                           "physics_b, ranks 1-: 2 visits, 2 s of "
                                           "compute as traced (summed over all ranks)\n"
                                           "1 rule(s)", hyp);
  if (!strstr (r.out, want))
    fail_msg ("check printed: %s", r.out);
  ts_tool_result_clear (&r);
}

/* Ensure `hypotheses check` gives an inclusive rule the compute it really
 * changes: that of the region and of everything it calls, not only the
 * region's own. */
static void
test_check_inclusive (void **state)
{
  /* Rank 0: solver from 0 to 0.5 s calls kernel from 0.1 to 0.4 s. Own
   * compute: solver 0.1 + 0.1 = 0.2 s, kernel 0.3 s; solver inclusive 0.2 +
   * 0.3 = 0.5 s. Rank 1: main alone, 0.5 s own. main inclusive: rank 0's
   * 0.5 s (main has none of its own there: solver opens at once) + rank
   * 1's 0.5 s = 1.0 s, of which its own 0.5 s (rank 1). */
  const char *nested =
    "ranks 2\n"
    "0 0.0 enter main\n0 0.0 enter solver\n0 0.1 enter kernel\n0 0.4 leave kernel\n"
    "0 0.5 leave solver\n0 0.5 leave main\n"
    "1 0.0 enter main\n1 0.5 leave main\n";
  g_autofree char *work = ts_test_workdir ("hypinclusive");
  g_autofree char *trace = ts_test_generate_text (work, nested);
  g_autofree char *hyp = g_build_filename (work, "i.hyp", NULL);
  g_autofree char *own = g_build_filename (work, "own.hyp", NULL);
  assert_true (g_file_set_contents (hyp, "[region:solver]\nscale = 0.5\ninclusive = true\n\n"
                                         "[region:main]\nremove = true\ninclusive = true\n",
                                    -1, NULL));
  assert_true (g_file_set_contents (own, "[region:solver]\nscale = 0.5\n", -1, NULL));
  TsToolResult r = ts_run_tracesim ((const char *[]) { "hypotheses", "check", hyp, own, trace,
                                                       NULL });
  assert_int_equal (r.status, 0);
  const char *want[] = {
    ":1: scale 0.5 on the inclusive compute of solver: 1 visits, 500 ms of inclusive "
    "compute as traced (summed over all ranks; 200 ms of it their own)\n",
    ":5: remove on the inclusive compute of main: 2 visits, 1 s of inclusive compute "
    "as traced (summed over all ranks; 500 ms of it their own)\n",
    "own.hyp:1: scale 0.5 on the own compute of solver: 1 visits, 200 ms of compute as "
    "traced",
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (!strstr (r.out, want[i]))
      fail_msg ("check lacks '%s': %s", want[i], r.out);
  ts_tool_result_clear (&r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_kind_parses),
    cmocka_unit_test (test_errors_name_file_and_line),
    cmocka_unit_test (test_no_match_suggests),
    cmocka_unit_test (test_rewrite_selects_rank_and_occurrence),
    cmocka_unit_test (test_check_command),
    cmocka_unit_test (test_check_inclusive),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
