/* Golden scenario tests: each scenarios/<name>/ holds a trace script, and an
 * expected.ini naming the platform and the expected summary values with
 * their hand derivation. The test writes the trace with ts-tracegen, replays
 * it with tracesim and compares summary.json to 1 microsecond. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "tests/tool-run.h"
#include "model/archive_writer.h"
#include "model/format.h"

#define TOLERANCE 1e-6

static const char *scenario_names[] = { "late-sender", "allreduce4", "allreduce4-scorep",
                                         "iallreduce-overlap", "persistent", "sender-faster", "imbalance-mean", "selection",
                                         "polling-faster", "polling-slower", "sendrecv-ring",
                                         "rendezvous-cost", "rendezvous-descheduled", "sub-tick",
                                         "empty-bcast", "slow-collective", "crossed-sends",
                                         "eager-send-cost", "test-completes", "openmpi-reduce",
                                         "pingpong-one-node", "pingpong-two-nodes", "halo-block",
                                         "halo-cyclic", "uplink-fat-tree", "uplink-flat",
                                         "pingpong-factors", "pingpong-factors-faster",
                                         "noise-gone", "residual-balance",
                                         "residual-balance-pinned", "residual-scaled", "waitany-first", "waitsome-first",
                                         "testany-first", "rendezvous-in-calls",
                                         "rendezvous-in-calls-faster",
                                         "rendezvous-async-faster", NULL };

/* The "matching" object of a summary.json or a `tracesim info --json`
 * text, parsed by @parser (which keeps it). */
static JsonObject *
matching_of (JsonParser *parser, const char *text)
{
  assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  return json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                        "matching");
}

/* The array or number under "<section>": { ... "<key>": ... } in summary.json;
 * sections nest ("wait_states.original.late_sender"). */
static GArray *
summary_values (const char *json, const char *dotted_key)
{
  GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, json, -1, NULL))
    return values;
  JsonNode *node = json_parser_get_root (parser);
  g_auto (GStrv) parts = g_strsplit (dotted_key, ".", -1);
  for (guint i = 0; node && parts[i]; i++)
    node = JSON_NODE_HOLDS_OBJECT (node)
             ? json_object_get_member (json_node_get_object (node), parts[i])
             : NULL;
  if (!node)
    return values;
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          double v = json_array_get_double_element (a, i);
          g_array_append_val (values, v);
        }
    }
  else if (JSON_NODE_HOLDS_VALUE (node))
    {
      double v = json_node_get_double (node);
      g_array_append_val (values, v);
    }
  return values;
}

/* The scenario's platform: a file of scenarios/ ("platform"), or one the
 * generator writes from a [cluster] key file of the scenario ("cluster"). */
static char *
scenario_platform (GKeyFile *kf, const char *dir, const char *work)
{
  g_autofree char *cluster = g_key_file_get_string (kf, "scenario", "cluster", NULL);
  if (!cluster)
    {
      g_autofree char *rel = g_key_file_get_string (kf, "scenario", "platform", NULL);
      assert_non_null (rel);
      return g_build_filename (ts_test_srcdir (), "scenarios", rel, NULL);
    }
  g_autofree char *config = g_build_filename (dir, cluster, NULL);
  char *xml = g_build_filename (work, "platform.xml", NULL);
  TsToolResult res = ts_run_tracesim ((const char *[]) { "platform", "--config", config, "-o", xml,
                                                         NULL });
  if (res.status != 0)
    fail_msg ("tracesim platform --config %s failed: %s", config, res.err);
  ts_tool_result_clear (&res);
  return xml;
}

/* Ensure that every scenario's predicted summary matches its derivation. */
static void
test_scenario (void **state)
{
  const char *name = *state;
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", name, NULL);
  g_autofree char *ini = g_build_filename (dir, "expected.ini", NULL);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  GError *error = NULL;
  assert_true (g_key_file_load_from_file (kf, ini, G_KEY_FILE_NONE, &error));
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *platform = scenario_platform (kf, dir, work);
  /* The trace of another scenario, when the two differ only in how it runs. */
  g_autofree char *trace_of = g_key_file_get_string (kf, "scenario", "trace_of", NULL);
  g_autofree char *trace_dir = trace_of ? g_build_filename (ts_test_srcdir (), "scenarios",
                                                            trace_of, NULL)
                                        : g_strdup (dir);
  g_autofree char *trace = ts_test_generate (work, trace_dir);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  for (const char *const *w = (const char *const[]) { "run", trace, "-p", platform, "-o", out, "-q",
                                                      NULL };
       *w; w++)
    g_ptr_array_add (args, g_strdup (*w));
  /* Optional run options ("--ranks-per-node", "2"). */
  g_auto (GStrv) options = g_key_file_get_string_list (kf, "scenario", "options", NULL, NULL);
  for (guint i = 0; options && options[i]; i++)
    g_ptr_array_add (args, g_strdup (options[i]));
  /* Optional hypothesis files, relative to the scenario, applied in order. */
  g_auto (GStrv) hyps = g_key_file_get_string_list (kf, "scenario", "hypotheses", NULL, NULL);
  for (guint i = 0; hyps && hyps[i]; i++)
    {
      g_ptr_array_add (args, g_strdup ("-H"));
      g_ptr_array_add (args, g_build_filename (dir, hyps[i], NULL));
    }
  g_ptr_array_add (args, NULL);
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output ((const char **) args->pdata, out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim failed on %s: %s", name, why);

  g_auto (GStrv) keys = g_key_file_get_keys (kf, "expect", NULL, NULL);
  assert_non_null (keys);
  for (guint k = 0; keys[k]; k++)
    {
      gsize n = 0;
      double *want = g_key_file_get_double_list (kf, "expect", keys[k], &n, &error);
      assert_non_null (want);
      GArray *got = summary_values (json, keys[k]);
      if (got->len != n)
        fail_msg ("%s: %s has %u values, expected %zu", name, keys[k], got->len, n);
      for (guint i = 0; i < n; i++)
        if (fabs (g_array_index (got, double, i) - want[i]) > TOLERANCE)
          fail_msg ("%s: %s[%u] = %.9f, derived %.9f", name, keys[k], i,
                    g_array_index (got, double, i), want[i]);
      g_array_unref (got);
      g_free (want);
    }
  /* Every rank's time is work, simulated or residual, and nothing else: the
   * three add up to its end (all ranks start at 0). */
  g_autoptr (GArray) ends = summary_values (json, "predicted.rank_end_s");
  g_autoptr (GArray) work_s = summary_values (json, "predicted.work_s");
  g_autoptr (GArray) simulated_s = summary_values (json, "predicted.simulated_s");
  g_autoptr (GArray) residual_s = summary_values (json, "predicted.residual_s");
  assert_int_equal (work_s->len, ends->len);
  for (guint r = 0; r < ends->len; r++)
    {
      double sum = g_array_index (work_s, double, r) + g_array_index (simulated_s, double, r)
                   + g_array_index (residual_s, double, r);
      if (fabs (sum - g_array_index (ends, double, r)) > TOLERANCE)
        fail_msg ("%s: rank %u: work + simulated + residual = %.9f, but it ends at %.9f", name,
                  r, sum, g_array_index (ends, double, r));
    }
  ts_test_rmtree (work);
}

/* Fail unless `tracesim calibrate` on the trace of @script reports a
 * latency of @latency seconds (as it prints times: ts_format_seconds). */
static void
expect_calibrated_latency (const char *name, const char *script, double latency)
{
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *trace = ts_test_generate_text (work, script);
  g_autofree char *xml = g_build_filename (work, "platform.xml", NULL);
  TsToolResult res = ts_run_tracesim ((const char *[]) { "calibrate", trace, "-o", xml, NULL });
  if (res.status != 0)
    fail_msg ("tracesim calibrate failed: %s", res.err);
  g_autofree char *printed = ts_format_seconds (latency);
  g_autofree char *want = g_strdup_printf ("latency %s", printed);
  if (!strstr (res.out, want))
    fail_msg ("expected %s: %s", want, res.out);
  ts_tool_result_clear (&res);
  ts_test_rmtree (work);
}

/* The calibrated latency ignores a size class whose only receive waited.
 * Three receives of rank 1, sends posted when the receive is entered:
 *   8 B in 2e-6 s, 64 B in 1.001e-3 s (its sender was 1e-3 s late: a wait), 512 B in 2e-6 s.
 * The fastest receive per class, made monotone from the largest class down:
 *   512 B: 2e-6; 64 B: min (1.001e-3, 2e-6) = 2e-6; 8 B: 2e-6.
 * All three points at 2e-6 s: the line's slope is 0 (no bandwidth to fit)
 * and its intercept, the latency, is 2e-6 s. A plain line through the raw
 * minima (8, 2e-6), (64, 1.001e-3), (512, 2e-6) would give an intercept
 * of 5.0e-4 s and a negative slope. */
static void
test_calibrate_ignores_a_waiting_class (void **state)
{
  expect_calibrated_latency ("calibrate-envelope",
    "ranks 2\n"
    "0 0.0 enter main\n"
    "0 0.0 enter MPI_Send\n0 0.0 send 1 tag=0 bytes=8\n0 0.0 leave MPI_Send\n"
    "0 1.0 enter MPI_Send\n0 1.0 send 1 tag=0 bytes=64\n0 1.0 leave MPI_Send\n"
    "0 2.0 enter MPI_Send\n0 2.0 send 1 tag=0 bytes=512\n0 2.0 leave MPI_Send\n"
    "0 3.0 leave main\n"
    "1 0.0 enter main\n"
    "1 0.0 enter MPI_Recv\n1 0.000002 recv 0 tag=0 bytes=8\n1 0.000002 leave MPI_Recv\n"
    "1 0.999 enter MPI_Recv\n1 1.000001 recv 0 tag=0 bytes=64\n1 1.000001 leave MPI_Recv\n"
    "1 2.0 enter MPI_Recv\n1 2.000002 recv 0 tag=0 bytes=512\n1 2.000002 leave MPI_Recv\n"
    "1 3.0 leave main\n", 2e-6);
}

/* The latency is never more than the fastest receive of any size: every
 * message takes at least the latency. Rank 1's receives, each entered when
 * its send was:
 *   8 B in 1e-6 s, 4096 B in 5e-5 s, 1048576 B in 1e-4 s.
 * The least-squares line through these three points has the intercept
 *   (sum y - slope sum x) / 3 = 2.53e-5 s (slope 7.13e-11 s/B),
 * 25 times the 1e-6 s the 8 B message took: the latency is 1e-6 s. */
static void
test_calibrate_latency_below_fastest_receive (void **state)
{
  (void) state;
  expect_calibrated_latency ("calibrate-latency",
    "ranks 2\n"
    "0 0.0 enter main\n"
    "0 0.0 enter MPI_Send\n0 0.0 send 1 tag=0 bytes=8\n0 0.0 leave MPI_Send\n"
    "0 1.0 enter MPI_Send\n0 1.0 send 1 tag=0 bytes=4096\n0 1.0 leave MPI_Send\n"
    "0 2.0 enter MPI_Send\n0 2.0 send 1 tag=0 bytes=1048576\n0 2.0 leave MPI_Send\n"
    "0 3.0 leave main\n"
    "1 0.0 enter main\n"
    "1 0.0 enter MPI_Recv\n1 0.000001 recv 0 tag=0 bytes=8\n1 0.000001 leave MPI_Recv\n"
    "1 1.0 enter MPI_Recv\n1 1.00005 recv 0 tag=0 bytes=4096\n1 1.00005 leave MPI_Recv\n"
    "1 2.0 enter MPI_Recv\n1 2.0001 recv 0 tag=0 bytes=1048576\n1 2.0001 leave MPI_Recv\n"
    "1 3.0 leave main\n", 1e-6);
}

/* The threshold summary.json reports for rank 0's blocking sends to rank 1:
 * each send is "BYTES SEND_ENTER SEND_LEAVE RECV_ENTER", the receive ends
 * when the send does (or at once after the receiver entered). */
static guint64
threshold_of_sends (const char *name, const char *const *sends)
{
  g_autoptr (GString) script = g_string_new ("ranks 2\n0 0.0 enter main\n");
  g_autoptr (GString) receiver = g_string_new ("1 0.0 enter main\n");
  for (guint i = 0; sends[i]; i++)
    {
      guint64 bytes;
      double send_enter, send_leave, recv_enter;
      g_assert (sscanf (sends[i], "%" G_GUINT64_FORMAT " %lf %lf %lf", &bytes, &send_enter,
                        &send_leave, &recv_enter) == 4);
      double recv_leave = MAX (send_leave, recv_enter + 1e-6);
      g_string_append_printf (script,
                              "0 %.6f enter MPI_Send\n0 %.6f send 1 tag=0 bytes=%" G_GUINT64_FORMAT
                              "\n0 %.6f leave MPI_Send\n", send_enter, send_enter, bytes, send_leave);
      g_string_append_printf (receiver,
                              "1 %.6f enter MPI_Recv\n1 %.6f recv 0 tag=0 bytes=%" G_GUINT64_FORMAT
                              "\n1 %.6f leave MPI_Recv\n", recv_enter, recv_leave, bytes, recv_leave);
    }
  g_string_append (script, "0 9.0 leave main\n");
  g_string_append (receiver, "1 9.0 leave main\n");
  g_string_append (script, receiver->str);
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *trace = ts_test_generate_text (work, script->str);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output ((const char *[]) { "run", trace, "-o", out, "-q", NULL },
                                                  out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim run failed: %s", why);
  GArray *v = summary_values (json, "eager_threshold_bytes");
  assert_int_equal (v->len, 1);
  guint64 threshold = (guint64) g_array_index (v, double, 0);
  g_array_unref (v);
  ts_test_rmtree (work);
  return threshold;
}

/* One blocking send of 100000 B (above the 65536 B assumed) entered at 0,
 * its receiver at 1.0 s. The send left at 1e-5 s, long (more than the 50 us clock slack) before
 * its receiver entered at 1.0 s: 100000 B went eagerly, so the threshold
 * is one byte more. Leaving at 1.0002 s, after the receiver entered, it
 * may have waited: no evidence, the assumed 65536 stays. */
static void
test_eager_threshold_from_the_trace (void **state)
{
  assert_int_equal (threshold_of_sends ("eager-early",
                                        (const char *[]) { "100000 0.0 0.00001 1.0", NULL }),
                    100001);
  assert_int_equal (threshold_of_sends ("eager-late",
                                        (const char *[]) { "100000 0.0 1.0002 1.0", NULL }),
                    65536);
}

/* Below the assumed 65536, a threshold needs two blocking sends that
 * entered before their receiver (by more than the 50 us clock slack) and
 * left only once it had arrived, both larger than any send seen leaving
 * before its receiver arrived:
 *   8192 B and 12000 B waited 1 ms for their receivers   -> 8192
 *   the same, and 16384 B left 1 ms before its receiver  -> those two waits
 *     were a descheduled eager sender's: 65536 stays
 *   only the 8192 B send waited                          -> one is chance: 65536
 *   1000 B sends waited: below 1024 B, no library's threshold -> 65536 */
static void
test_eager_threshold_lowered_by_waiting_senders (void **state)
{
  (void) state;
  const char *waited_8192 = "8192 1.0 1.001 1.001";
  const char *waited_12000 = "12000 2.0 2.001 2.001";
  const char *eager_16384 = "16384 3.0 3.00001 3.001";
  assert_int_equal (threshold_of_sends ("eager-lowered",
                                        (const char *[]) { waited_8192, waited_12000, NULL }),
                    8192);
  assert_int_equal (threshold_of_sends ("eager-contradicted",
                                        (const char *[]) { waited_8192, waited_12000, eager_16384,
                                                           NULL }),
                    65536);
  assert_int_equal (threshold_of_sends ("eager-once", (const char *[]) { waited_8192, NULL }),
                    65536);
  assert_int_equal (threshold_of_sends ("eager-tiny",
                                        (const char *[]) { "1000 1.0 1.001 1.001",
                                                           "1000 2.0 2.001 2.001", NULL }),
                    65536);
}

/* The clock offsets tracesim applies to a trace made of @script. */
static GArray *
clock_offsets (const char *name, const char *script)
{
  g_autofree char *work = ts_test_workdir (name);
  g_autofree char *trace = ts_test_generate_text (work, script);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *platform
    = g_build_filename (ts_test_srcdir (), "scenarios", "platforms", "two-hosts.xml", NULL);
  const char *args[] = { "run", trace, "-p", platform, "-o", out, "-q", "--no-wait-states", NULL };
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output (args, out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim failed on %s: %s", name, why);
  ts_test_rmtree (work);
  return summary_values (json, "original.clock_offset_s");
}

#define ALLREDUCE_THEN_BCAST \
  "ranks 2\n" \
  "0 0.0 enter main\n0 1.0 enter MPI_Allreduce\n0 1.0 coll_begin\n" \
  "0 1.1 coll_end allreduce sent=8 recv=8\n0 1.1 leave MPI_Allreduce\n" \
  "0 2.0 enter MPI_Bcast\n0 2.0 coll_begin\n0 2.0 coll_end bcast root=0 sent=8 recv=8\n" \
  "0 2.0 leave MPI_Bcast\n" \
  "1 0.0 enter main\n1 1.05 enter MPI_Allreduce\n1 1.05 coll_begin\n" \
  "1 1.1 coll_end allreduce sent=8 recv=8\n1 1.1 leave MPI_Allreduce\n" \
  "1 1.9 enter MPI_Bcast\n1 1.9 coll_begin\n1 1.95 coll_end bcast root=0 sent=0 recv=8\n" \
  "1 1.95 leave MPI_Bcast\n"

/* Clocks are made causal for every collective, not only the synchronising
 * ones on the world.
 * The allreduce is causal as recorded (rank 1 entered at 1.05, before
 * anybody left at 1.1): no offsets from it. In the broadcast, rank 1 left
 * at 1.95 before its root entered at 2.0: rank 1's clock is raised by the
 * least that makes it causal, 2.0 - 1.95 = 0.05 s. The allreduce stays
 * causal (rank 1 now enters at 1.10, when rank 0 leaves).
 * Add a second broadcast from rank 1 (entering at 3.0) that rank 0 leaves
 * at 2.99: that needs rank 0's clock 0.01 s behind rank 1's, the first
 * needs rank 1's 0.05 s behind rank 0's. No offset per rank satisfies both
 * (the clocks drift): the offsets stay 0 rather than favour either. */
static void
test_clocks_made_causal_by_a_broadcast (void **state)
{
  (void) state;
  g_autoptr (GArray) repaired = clock_offsets ("clock-bcast",
                                               ALLREDUCE_THEN_BCAST
                                               "0 3.0 leave main\n1 3.0 leave main\n");
  assert_int_equal (repaired->len, 2);
  assert_true (fabs (g_array_index (repaired, double, 0) - 0.0) < 1e-9);
  assert_true (fabs (g_array_index (repaired, double, 1) - 0.05) < 1e-9);

  g_autoptr (GArray) drifting = clock_offsets (
      "clock-drift", ALLREDUCE_THEN_BCAST
      "0 2.9 enter MPI_Bcast\n0 2.9 coll_begin\n0 2.99 coll_end bcast root=1 sent=0 recv=8\n"
      "0 2.99 leave MPI_Bcast\n0 4.0 leave main\n"
      "1 3.0 enter MPI_Bcast\n1 3.0 coll_begin\n1 3.0 coll_end bcast root=1 sent=8 recv=8\n"
      "1 3.0 leave MPI_Bcast\n1 4.0 leave main\n");
  assert_int_equal (drifting->len, 2);
  assert_true (fabs (g_array_index (drifting, double, 0)) < 1e-9);
  assert_true (fabs (g_array_index (drifting, double, 1)) < 1e-9);
}

/* The trace of scenarios/openmpi-reduce, replayed on the tree given rather
 * than the one it shows: --binomial-tree=mpich hangs rank 3 below rank 2
 * (3 -> 2, then 2 -> 0 and 1 -> 0). Four-hosts.xml: 8 B in 1.0008e-4 s.
 * Leaves (ranks 1 and 3) only send, eagerly: their calls are all their own;
 * for the others the network share is the fastest call of their role
 * (1e-4 s non-root, 0.1004 s root), as in that scenario.
 *   rank 1: sends to 0 at 0.1; its 0.1002 s call received nothing, so it
 *           waited for nobody: all its own                      -> 0.2002
 *   rank 3: sends to 2 at 0.2; 1e-4 s of its own                -> 0.2001
 *   rank 2: rank 3's message arrives at 0.20010008; waited 0.1 s, 1e-4 s
 *           network, nothing of its own                          -> 0.20010008
 *   rank 0: receives rank 1's at 0.10010008, rank 2's (sent at 0.20010008)
 *           at 0.20020016                                        -> 0.20020016
 * summary.json names the tree used. */
static void
test_binomial_tree_given (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("binomial-given");
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", "openmpi-reduce", NULL);
  g_autofree char *trace = ts_test_generate (work, dir);
  g_autofree char *platform
    = g_build_filename (ts_test_srcdir (), "scenarios", "platforms", "four-hosts.xml", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  const char *args[] = { "run", trace, "-p", platform, "-o", out, "-q", "--no-wait-states",
                         "--binomial-tree=mpich", NULL };
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output (args, out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim failed: %s", why);
  g_autoptr (GArray) ends = summary_values (json, "predicted.rank_end_s");
  const double want[] = { 0.20020016, 0.2002, 0.20010008, 0.2001 };
  assert_int_equal (ends->len, 4);
  for (guint r = 0; r < 4; r++)
    if (fabs (g_array_index (ends, double, r) - want[r]) > TOLERANCE)
      fail_msg ("rank %u ends at %.9f, derived %.9f", r, g_array_index (ends, double, r), want[r]);
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  JsonObject *summary = json_node_get_object (json_parser_get_root (parser));
  assert_string_equal (json_object_get_string_member (summary, "binomial_tree"), "mpich");
  /* The summary says the tree was given, not inferred. */
  JsonObject *options
    = json_object_get_object_member (json_object_get_object_member (summary, "inputs"), "options");
  assert_string_equal (json_object_get_string_member (options, "binomial_tree"), "given");
  ts_test_rmtree (work);
}

/* The values under @key in the summary of @trace run on @platform (NULL:
 * the calibrated one). */
static GArray *
predicted_values (const char *work, const char *trace, const char *platform, const char *out_name,
                  const char *key)
{
  g_autofree char *out = g_build_filename (work, out_name, NULL);
  const char *args[] = { "run", trace, "-o", out, "-q", "--no-wait-states",
                         platform ? "-p" : NULL, platform, NULL };
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output (args, out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim failed on %s: %s", trace, why);
  return summary_values (json, key);
}

/* The predicted runtime of @trace on @platform (NULL: the calibrated one). */
static double
predicted_runtime (const char *work, const char *trace, const char *platform, const char *out_name)
{
  g_autoptr (GArray) runtime
    = predicted_values (work, trace, platform, out_name, "predicted.runtime_s");
  assert_int_equal (runtime->len, 1);
  return g_array_index (runtime, double, 0);
}

/* Two ranks enter two barriers together; each takes 40 us (0.001 ..
 * 0.00104, 0.002 .. 0.00204) and main ends at 0.003. No blocking receive:
 * no network to fit, so the calibrated platform has the default network,
 * 1 us end to end. A barrier of 2 ranks is one message (chain of
 * ceil (log2 2) = 1) of 0 bytes: 1 us there, and that is all the replay
 * deducts, charging the other 39 us as the barrier's own time: both
 * barriers end when they did, and the run at 0.003 s; the same on that
 * platform given with -p (it says it holds the traced network). Deducting
 * the fastest barrier, 40 us, would lose 39 us per barrier: 0.002922 s.
 * On four-hosts.xml, not calibrated, the fastest barrier stands for the
 * traced transfer: 40 us deducted, 100 us simulated (its 1e-4 s latency):
 * 60 us more per barrier, 0.00312 s. */
static void
test_calibrated_platform_reproduces_collectives (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("calibrated-barrier");
  g_autoptr (GString) script = g_string_new ("ranks 2\n");
  for (guint r = 0; r < 2; r++)
    g_string_append_printf (script,
                            "%u 0.0 enter main\n"
                            "%u 0.001 enter MPI_Barrier\n%u 0.001 coll_begin\n"
                            "%u 0.00104 coll_end barrier\n%u 0.00104 leave MPI_Barrier\n"
                            "%u 0.002 enter MPI_Barrier\n%u 0.002 coll_begin\n"
                            "%u 0.00204 coll_end barrier\n%u 0.00204 leave MPI_Barrier\n"
                            "%u 0.003 leave main\n", r, r, r, r, r, r, r, r, r, r);
  g_autofree char *trace = ts_test_generate_text (work, script->str);
  assert_true (fabs (predicted_runtime (work, trace, NULL, "calibrated") - 0.003) < TOLERANCE);
  g_autofree char *calibrated = g_build_filename (work, "calibrated", "platform.xml", NULL);
  assert_true (fabs (predicted_runtime (work, trace, calibrated, "given") - 0.003) < TOLERANCE);
  g_autofree char *four
    = g_build_filename (ts_test_srcdir (), "scenarios", "platforms", "four-hosts.xml", NULL);
  assert_true (fabs (predicted_runtime (work, trace, four, "four") - 0.00312) < TOLERANCE);
  ts_test_rmtree (work);
}

/* Rank 0 sends rank 1 8 B at 0.001, 40000 B at 0.002, 1e6 B at 0.003 (a
 * blocking send at or above the 64 KiB threshold: it waits for the
 * receiver, already there) and 40000 B again at 0.010. Rank 1's receives:
 * 0.0015 .. +1e-6 and 0.0025 .. +5e-6 (the messages were there), 0.003 ..
 * 0.004001, and 0.009 .. 0.010005 (a late sender, then 5e-6 s); rank 1's
 * main ends there.
 * Network fit (calibration.c) through each class's fastest receive: least
 * squares through (8, 1e-6), (40000, 5e-6), (1e6, 1.001e-3) gives a slope
 * of 1.0172259e-9 s/B and an intercept below 0, so the latency is the
 * fastest small receive, 1e-6 s. On that line 40000 B would take 1e-6 +
 * 40000 x 1.0172259e-9 = 4.169e-5 s, but the class's fastest receive took
 * 5e-6 s: its bandwidth factor is 4.0689e-5 / (5e-6 - 1e-6) = 10.17, and
 * on the calibrated platform 40000 B take 1e-6 + 4.0689e-5 / 10.17 = 5e-6 s
 * (likewise 1e6 B: factor 1.0172e-3 / 1.0e-3, 1.001e-3 s).
 * Rank 1's last receive: the message, sent at 0.010, arrives at 0.010005;
 * the call waited 1e-3 s for the sender and its network share is 5e-6 s:
 * nothing of its own, so it ends at 0.010005 as recorded. With the line's
 * 4.169e-5 s it ended at 0.01004169. Rank 0 ends at 0.010 either way. */
static void
test_calibrated_network_per_size_class (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("size-class-factor");
  const char *script
    = "ranks 2\n"
      "0 0.0 enter main\n"
      "0 0.001 enter MPI_Send\n0 0.001 send 1 tag=0 bytes=8\n0 0.001 leave MPI_Send\n"
      "0 0.002 enter MPI_Send\n0 0.002 send 1 tag=0 bytes=40000\n0 0.002 leave MPI_Send\n"
      "0 0.003 enter MPI_Send\n0 0.003 send 1 tag=0 bytes=1000000\n0 0.004001 leave MPI_Send\n"
      "0 0.010 enter MPI_Send\n0 0.010 send 1 tag=0 bytes=40000\n0 0.010 leave MPI_Send\n"
      "0 0.010 leave main\n"
      "1 0.0 enter main\n"
      "1 0.0015 enter MPI_Recv\n1 0.001501 recv 0 tag=0 bytes=8\n1 0.001501 leave MPI_Recv\n"
      "1 0.0025 enter MPI_Recv\n1 0.002505 recv 0 tag=0 bytes=40000\n1 0.002505 leave MPI_Recv\n"
      "1 0.003 enter MPI_Recv\n1 0.004001 recv 0 tag=0 bytes=1000000\n1 0.004001 leave MPI_Recv\n"
      "1 0.009 enter MPI_Recv\n1 0.010005 recv 0 tag=0 bytes=40000\n1 0.010005 leave MPI_Recv\n"
      "1 0.010005 leave main\n";
  g_autofree char *trace = ts_test_generate_text (work, script);
  g_autoptr (GArray) ends = predicted_values (work, trace, NULL, "out", "predicted.rank_end_s");
  assert_int_equal (ends->len, 2);
  if (fabs (g_array_index (ends, double, 0) - 0.010) > TOLERANCE
      || fabs (g_array_index (ends, double, 1) - 0.010005) > TOLERANCE)
    fail_msg ("rank ends %.9f, %.9f; derived 0.010, 0.010005", g_array_index (ends, double, 0),
              g_array_index (ends, double, 1));
  ts_test_rmtree (work);
}

/* The seconds and visits of region @name in summary.json's "regions". */
static void
region_of (const char *json, const char *name, double *original, double *predicted,
           gint64 *visits)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  JsonArray *regions = json_object_get_array_member (json_node_get_object (
                                                       json_parser_get_root (parser)), "regions");
  for (guint i = 0; i < json_array_get_length (regions); i++)
    {
      JsonObject *r = json_array_get_object_element (regions, i);
      if (strcmp (json_object_get_string_member (r, "name"), name) != 0)
        continue;
      *original = json_object_get_double_member (r, "original_s");
      *predicted = json_object_get_double_member (r, "predicted_s");
      *visits = json_object_get_int_member (r, "visits");
      return;
    }
  fail_msg ("no region %s in summary.json", name);
}

/* EZTrace leaves its "Working" region before the "EZTrace finalize" it
 * entered inside it. One rank: main 0-1.2, Working from 0.5, finalize from
 * 0.9, Working left at 1.0, finalize at 1.1. The predicted archive must
 * still be properly nested (ts_run_tracesim checks every one): finalize is
 * closed with Working at 1.0 and its own later LEAVE dropped, so it lasts
 * 0.1 s, Working 0.5 s and main 1.2 s, in the original as in the prediction
 * (nothing else happens, so the replay keeps every time). */
static void
test_crossed_regions_nested (void **state)
{
  g_autofree char *work = ts_test_workdir ("crossed-regions");
  g_autofree char *dir = g_build_filename (work, "trace", NULL);
  GError *error = NULL;
  TsArchiveWriter *w = ts_archive_writer_new (dir, "traces", 1, &error);
  assert_non_null (w);
  guint32 main_r = ts_archive_writer_define_region (w, "main", TS_REGION_USER);
  guint32 working = ts_archive_writer_define_region (w, "Working", TS_REGION_USER);
  guint32 finalize = ts_archive_writer_define_region (w, "EZTrace finalize", TS_REGION_USER);
  ts_archive_writer_enter (w, 0, 0.0, main_r);
  ts_archive_writer_enter (w, 0, 0.5, working);
  ts_archive_writer_enter (w, 0, 0.9, finalize);
  ts_archive_writer_leave (w, 0, 1.0, working);
  ts_archive_writer_leave (w, 0, 1.1, finalize);
  ts_archive_writer_leave (w, 0, 1.2, main_r);
  assert_true (ts_archive_writer_close (w, &error));
  g_autofree char *trace = g_build_filename (dir, "traces.otf2", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output ((const char *[]) { "run", trace, "-o", out, "-q",
                                                                     NULL },
                                                  out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim run failed: %s", why);
  const struct { const char *name; double seconds; } want[] = {
    { "EZTrace finalize", 0.1 }, { "Working", 0.5 }, { "main", 1.2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      double original = 0, predicted = 0;
      gint64 visits = 0;
      region_of (json, want[i].name, &original, &predicted, &visits);
      assert_int_equal (visits, 1);
      assert_float_equal (original, want[i].seconds, 1e-9);
      assert_float_equal (predicted, want[i].seconds, 1e-9);
    }
  ts_test_rmtree (work);
}

/* scenarios/guessed-deadlock: the calibration's guess for rank 0's two
 * source-less receives (by when each blocking send left: rank 2's message
 * first) makes a cycle in the replay (derived in its trace.script). The
 * replay finds that out, lets the two receives take their messages as they
 * arrive, and completes: receive 1 takes rank 1's rendezvous message (posted
 * at 0.05, before rank 2's at 0.1). summary.json says so. Rank 2 is not in
 * the cycle: it computes 0.1 s, hands its 8 bytes over eagerly (its call
 * took no time in the trace) and computes 0.9 s: it ends at 1.0. */
static void
test_guessed_matches_that_deadlock (void **state)
{
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", "guessed-deadlock", NULL);
  g_autofree char *work = ts_test_workdir ("guessed-deadlock");
  g_autofree char *trace = ts_test_generate (work, dir);
  g_autofree char *platform = g_build_filename (ts_test_srcdir (), "scenarios", "platforms",
                                                "four-hosts.xml", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output ((const char *[]) { "run", trace, "-p", platform,
                                                                     "-o", out, "-q", NULL },
                                                  out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim run failed: %s", why);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *m = matching_of (parser, json);
  assert_non_null (m);
  assert_int_equal (json_object_get_int_member (m, "guessed_receives"), 2);
  assert_true (json_object_get_boolean_member (m, "taken_as_arrived"));
  GArray *ends = summary_values (json, "predicted.rank_end_s");
  assert_int_equal (ends->len, 3);
  assert_float_equal (g_array_index (ends, double, 2), 1.0, 1e-9);
  g_array_unref (ends);

  /* tracesim info --json tells the same before any replay: 2 receives were
   * given a message by guess (rank 0's), and every message went to one. */
  TsToolResult r = ts_run_tracesim ((const char *[]) { "info", trace, "--json", NULL });
  assert_int_equal (r.status, 0);
  g_autoptr (JsonParser) info = json_parser_new ();
  JsonObject *im = matching_of (info, r.out);
  assert_non_null (im);
  assert_int_equal (json_object_get_int_member (im, "guessed_receives"), 2);
  assert_int_equal (json_object_get_int_member (im, "unreceived_messages"), 0);
  /* ... and after its identity replay (on the cluster calibrated from the
   * trace, where 100 kB is above the inferred 64 KiB threshold as on
   * four-hosts.xml: the same cycle), what that replay revised: one replay
   * made again, with the 2 guessed receives taking messages as they arrive
   * and no send buffered. */
  JsonObject *replay = json_object_get_object_member (
    json_node_get_object (json_parser_get_root (info)), "replay");
  assert_non_null (replay);
  JsonObject *rm = json_object_get_object_member (replay, "matching");
  assert_non_null (rm);
  assert_int_equal (json_object_get_int_member (rm, "guessed_receives"), 2);
  assert_int_equal (json_object_get_int_member (rm, "revisions"), 1);
  assert_true (json_object_get_boolean_member (rm, "taken_as_arrived"));
  assert_int_equal (json_object_get_int_member (rm, "buffered_pairs"), 0);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

/* summary.json of @trace replayed on two-hosts.xml with --eager-threshold
 * 65536 (messages of 100,000 bytes go by rendezvous), into @work/out. */
static char *
run_two_hosts_rendezvous (const char *work, const char *trace)
{
  g_autofree char *platform = g_build_filename (ts_test_srcdir (), "scenarios", "platforms",
                                                "two-hosts.xml", NULL);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *why = NULL;
  char *json = ts_run_tracesim_output ((const char *[]) { "run", trace, "-p", platform,
                                                          "--eager-threshold", "65536", "-o", out,
                                                          "-q", NULL },
                                       out, "summary.json", &why);
  if (!json)
    fail_msg ("tracesim run failed: %s", why);
  return json;
}

/* Two ranks send each other 100,000 bytes with MPI_Send and then receive:
 * with --eager-threshold 65536 both sends wait for a receive that is posted
 * only after them, head to head. The program finished, so the replay,
 * which deadlocks first, revises: it buffers the two sends the blocked
 * ranks wait on (between 0 and 1, and 1 and 0) and replays again (one
 * revision, two pairs buffered; no receive was guessed). The trace's calls
 * took no time, so none is charged. On two-hosts.xml both messages cross
 * the one link at once and share its 1e8 B/s (SimGrid's links are shared,
 * not full duplex): each takes 1e-4 + 1e5 / 5e7 = 0.0021 s, sent at 0.1,
 * received at 0.1021; then each rank computes 0.9 s as traced and ends at
 * 1.0021. */
static void
test_head_to_head_sends_buffered (void **state)
{
  g_autofree char *work = ts_test_workdir ("head-to-head");
  g_autofree char *trace = ts_test_generate_text (work,
    "ranks 2\n"
    "0 0.0 enter main\n0 0.1 enter MPI_Send\n0 0.1 send 1 tag=1 bytes=100000\n0 0.1 leave MPI_Send\n"
    "0 0.1 enter MPI_Recv\n0 0.1 recv 1 tag=1 bytes=100000\n0 0.1 leave MPI_Recv\n0 1.0 leave main\n"
    "1 0.0 enter main\n1 0.1 enter MPI_Send\n1 0.1 send 0 tag=1 bytes=100000\n1 0.1 leave MPI_Send\n"
    "1 0.1 enter MPI_Recv\n1 0.1 recv 0 tag=1 bytes=100000\n1 0.1 leave MPI_Recv\n1 1.0 leave main\n");
  g_autofree char *json = run_two_hosts_rendezvous (work, trace);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *m = matching_of (parser, json);
  assert_non_null (m);
  assert_int_equal (json_object_get_int_member (m, "revisions"), 1);
  assert_int_equal (json_object_get_int_member (m, "buffered_pairs"), 2);
  assert_false (json_object_get_boolean_member (m, "taken_as_arrived"));
  GArray *ends = summary_values (json, "predicted.rank_end_s");
  assert_int_equal (ends->len, 2);
  assert_float_equal (g_array_index (ends, double, 0), 1.0021, 1e-9);
  assert_float_equal (g_array_index (ends, double, 1), 1.0021, 1e-9);
  g_array_unref (ends);
  ts_test_rmtree (work);
}

/* Two reductions of 100,000 bytes to root 0. In the first both ranks enter
 * and leave at 0.1: a call that took no time, the fastest of each role. In
 * the second rank 1 enters at 0.2 and its root only at 0.6, and both leave
 * at 0.6: rank 1's 0.4 s in the call were waiting for its root to post the
 * receive, which the replay makes it do anew, so none of it is CPU time.
 * Each rank computes between the calls as traced (rank 0: 0.5 s, rank 1:
 * 0.1 s) and 0.5 s after the second. With --eager-threshold 65536 both
 * messages go by rendezvous on two-hosts.xml and take 1e-4 + 1e5 / 1e8 =
 * 0.0011 s: the first completes at 0.1011; rank 1 enters the second at
 * 0.2011, rank 0 at 0.6011, it completes at 0.6022, and both end at
 * 1.1022. Charged as CPU, the wait would have made rank 1 end 0.4 s later,
 * at 1.5022. */
static void
test_reduce_sender_waits_for_late_root (void **state)
{
  g_autofree char *work = ts_test_workdir ("reduce-late-root");
  g_autofree char *trace = ts_test_generate_text (work,
    "ranks 2\n"
    "creator Score-P 8.0\n"
    "0 0.0 enter main\n0 0.1 enter MPI_Reduce\n0 0.1 coll_begin\n"
    "0 0.1 coll_end reduce comm=world root=0 sent=100000 recv=200000\n"
    "0 0.1 leave MPI_Reduce\n0 0.6 enter MPI_Reduce\n0 0.6 coll_begin\n"
    "0 0.6 coll_end reduce comm=world root=0 sent=100000 recv=200000\n"
    "0 0.6 leave MPI_Reduce\n0 1.1 leave main\n"
    "1 0.0 enter main\n1 0.1 enter MPI_Reduce\n1 0.1 coll_begin\n"
    "1 0.1 coll_end reduce comm=world root=0 sent=100000 recv=0\n"
    "1 0.1 leave MPI_Reduce\n1 0.2 enter MPI_Reduce\n1 0.2 coll_begin\n"
    "1 0.6 coll_end reduce comm=world root=0 sent=100000 recv=0\n"
    "1 0.6 leave MPI_Reduce\n1 1.1 leave main\n");
  g_autofree char *json = run_two_hosts_rendezvous (work, trace);
  GArray *ends = summary_values (json, "predicted.rank_end_s");
  assert_int_equal (ends->len, 2);
  assert_float_equal (g_array_index (ends, double, 0), 1.1022, 1e-9);
  assert_float_equal (g_array_index (ends, double, 1), 1.1022, 1e-9);
  g_array_unref (ends);
  ts_test_rmtree (work);
}

int
main (void)
{
  GPtrArray *tests = g_ptr_array_new ();
  for (guint i = 0; scenario_names[i]; i++)
    {
      struct CMUnitTest *t = g_new0 (struct CMUnitTest, 1);
      t->name = scenario_names[i];
      t->test_func = test_scenario;
      t->initial_state = (void *) scenario_names[i];
      g_ptr_array_add (tests, t);
    }
  static const struct CMUnitTest others[] = {
    cmocka_unit_test (test_calibrate_ignores_a_waiting_class),
    cmocka_unit_test (test_calibrate_latency_below_fastest_receive),
    cmocka_unit_test (test_eager_threshold_from_the_trace),
    cmocka_unit_test (test_eager_threshold_lowered_by_waiting_senders),
    cmocka_unit_test (test_clocks_made_causal_by_a_broadcast),
    cmocka_unit_test (test_calibrated_platform_reproduces_collectives),
    cmocka_unit_test (test_binomial_tree_given),
    cmocka_unit_test (test_calibrated_network_per_size_class),
    cmocka_unit_test (test_crossed_regions_nested),
    cmocka_unit_test (test_guessed_matches_that_deadlock),
    cmocka_unit_test (test_head_to_head_sends_buffered),
    cmocka_unit_test (test_reduce_sender_waits_for_late_root),
  };
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    g_ptr_array_add (tests, (gpointer) &others[i]);
  struct CMUnitTest *flat = g_new0 (struct CMUnitTest, tests->len);
  for (guint i = 0; i < tests->len; i++)
    flat[i] = *(struct CMUnitTest *) tests->pdata[i];
  return _cmocka_run_group_tests ("scenarios", flat, tests->len, NULL, NULL);
}
