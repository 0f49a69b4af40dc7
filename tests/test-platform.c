/* sim/cluster.c and `tracesim platform`: a cluster described in a few words,
 * the SimGrid platform it makes, and the run options that place ranks on
 * its nodes. Expected values are worked out in the comments. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "sim/cluster.h"
#include "sim/replay.h"
#include "sim/units.h"
#include "tests/tool-run.h"

/* Ensure SimGrid's units convert to SI: 200 Gb/s is 25e9 B/s, 1 us 1e-6 s,
 * 2 GiBps 2 x 2^30 B/s; a unitless or unknown unit, and 0 bandwidth, are
 * refused with the reason. */
static void
test_units (void **state)
{
  double v = 0;
  assert_null (ts_unit_parse (TS_UNIT_BANDWIDTH, "200Gbps", &v));
  assert_true (v == 25e9);
  assert_null (ts_unit_parse (TS_UNIT_LATENCY, "1us", &v));
  assert_true (v == 1e-6);
  assert_null (ts_unit_parse (TS_UNIT_BANDWIDTH, "2GiBps", &v));
  assert_true (v == 2.0 * 1073741824.0);
  g_autofree char *bare = ts_unit_parse (TS_UNIT_BANDWIDTH, "100", &v);
  assert_non_null (strstr (bare, "has no unit"));
  g_autofree char *gb = ts_unit_parse (TS_UNIT_BANDWIDTH, "1GB", &v);
  assert_non_null (strstr (gb, "unknown unit 'GB'"));
  g_autofree char *zero = ts_unit_parse (TS_UNIT_BANDWIDTH, "0Bps", &v);
  assert_non_null (strstr (zero, "more than zero"));
}

/* The nodes a topology implies, or 0 with the error's message in @why. */
static guint
nodes_of (const char *topology, guint nodes, char **why)
{
  g_auto (TsCluster) c;
  ts_cluster_init (&c);
  c.nodes = nodes;
  GError *error = NULL;
  if (ts_cluster_set_topology (&c, topology, &error) && ts_cluster_check (&c, &error))
    return c.nodes;
  *why = g_strdup (error->message);
  g_error_free (error);
  return 0;
}

/* Ensure each topology gives its number of nodes: a fat tree of 8 switches
 * of 8 leaves, 8 x 8 = 64; a 4 x 4 x 4 torus, 64; a dragonfly of 2 groups x
 * 2 chassis x 2 routers x 2 nodes, 16; and that a --nodes that disagrees,
 * malformed parameters, an unknown name and a flat cluster without nodes
 * are each refused, saying why. */
static void
test_topologies (void **state)
{
  char *why = NULL;
  assert_int_equal (nodes_of ("fat-tree:2;8,8;1,8;1,1", 0, &why), 64);
  assert_int_equal (nodes_of ("torus:4,4,4", 0, &why), 64);
  assert_int_equal (nodes_of ("dragonfly:2,2;2,1;2,1;2", 0, &why), 16);
  assert_int_equal (nodes_of ("flat", 12, &why), 12);
  assert_int_equal (nodes_of ("torus:4,4,4", 32, &why), 0);
  assert_non_null (strstr (why, "has 64 nodes, not 32"));
  g_clear_pointer (&why, g_free);
  assert_int_equal (nodes_of ("fat-tree:2;8;1,8;1,1", 0, &why), 0);
  assert_non_null (strstr (why, "malformed parameters"));
  g_clear_pointer (&why, g_free);
  assert_int_equal (nodes_of ("hypercube:4", 0, &why), 0);
  assert_non_null (strstr (why, "unknown topology 'hypercube'"));
  g_clear_pointer (&why, g_free);
  assert_int_equal (nodes_of ("flat", 0, &why), 0);
  assert_non_null (strstr (why, "--nodes"));
  g_clear_pointer (&why, g_free);
}

/* Ensure the XML carries the description: a link of 200 Gb/s = 25e9 B/s and
 * half the 1 us end to end (two links between nodes of one switch), 8 cores,
 * the loopback link for intra-node messages, SimGrid's topology; and that
 * a preset sets both numbers (ib-hdr: 200 Gb/s, 0.6 us). */
static void
test_xml (void **state)
{
  g_auto (TsCluster) c;
  ts_cluster_init (&c);
  c.cores = 8;
  GError *error = NULL;
  assert_true (ts_cluster_set_topology (&c, "fat-tree:2;8,8;1,8;1,1", &error));
  assert_true (ts_cluster_set_network (&c, "200Gbps,1us", &error));
  assert_true (ts_cluster_set_intra_node (&c, "40GBps,0.2us", &error));
  assert_true (ts_cluster_check (&c, &error));
  g_autofree char *xml = ts_cluster_to_xml (&c);
  const char *want[] = { "radical=\"0-63\"", "core=\"8\"", "bw=\"25000000000Bps\"", "lat=\"5e-07s\"",
                         "loopback_bw=\"40000000000Bps\"", "loopback_lat=\"2e-07s\"",
                         "topology=\"FAT_TREE\" topo_parameters=\"2;8,8;1,8;1,1\"",
                         TS_CLUSTER_XML_MARK };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (!strstr (xml, want[i]))
      fail_msg ("no %s in\n%s", want[i], xml);
  assert_true (ts_cluster_set_network (&c, "ib-hdr", &error));
  assert_true (c.bandwidth == 25e9 && c.latency == 0.6e-6);
  assert_false (ts_cluster_set_network (&c, "infiniband", &error));
  assert_non_null (strstr (error->message, "ib-hdr, ib-ndr"));
  g_clear_error (&error);
}

/* Ensure a key file's errors name the file and the key. */
static void
test_key_file_errors (void **state)
{
  g_auto (TsCluster) c;
  ts_cluster_init (&c);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  assert_true (g_key_file_load_from_data (kf, "[cluster]\nnodes = 4\nnetwork = 1GB,1us\n", -1,
                                          G_KEY_FILE_NONE, NULL));
  GError *error = NULL;
  assert_false (ts_cluster_load_key_file (&c, kf, "c.ini", &error));
  assert_string_equal (error->message, "c.ini: [cluster] network '1GB,1us': bandwidth '1GB': "
                                       "unknown unit 'GB' (e.g. 10GBps or 100Gbps)");
  g_clear_error (&error);
  assert_true (g_key_file_load_from_data (kf, "[cluster]\nbw-factors = 65472:0;0:1\n", -1,
                                          G_KEY_FILE_NONE, NULL));
  assert_false (ts_cluster_load_key_file (&c, kf, "c.ini", &error));
  assert_non_null (strstr (error->message, "c.ini: [cluster] bw-factors '65472:0;0:1': give SIZE:FACTOR"));
  g_clear_error (&error);
  /* Valid factors ask for SMPI's network model in the platform. */
  assert_true (g_key_file_load_from_data (kf, "[cluster]\nnodes = 2\nlat-factors = 0:2\n", -1,
                                          G_KEY_FILE_NONE, NULL));
  assert_true (ts_cluster_load_key_file (&c, kf, "c.ini", &error));
  assert_true (ts_cluster_check (&c, &error));
  g_autofree char *xml = ts_cluster_to_xml (&c);
  assert_non_null (strstr (xml, "<prop id=\"network/model\" value=\"SMPI\"/>"));
  assert_non_null (strstr (xml, "<prop id=\"smpi/bw-factor\" value=\"0:1\"/>"));
  assert_non_null (strstr (xml, "<prop id=\"smpi/lat-factor\" value=\"0:2\"/>"));
  assert_true (g_key_file_load_from_data (kf, "[cluster]\nnode = 4\n", -1, G_KEY_FILE_NONE, NULL));
  assert_false (ts_cluster_load_key_file (&c, kf, "c.ini", &error));
  assert_non_null (strstr (error->message, "c.ini: [cluster] unknown key 'node'"));
  g_clear_error (&error);
}

/* Ensure every topology's platform loads in SimGrid, whose parser checks it
 * against its DTD, and has a route between its hosts (the platform check
 * run in a child, as `tracesim run -p` does). */
static void
test_simgrid_loads_every_topology (void **state)
{
  const char *topologies[] = { "fat-tree:2;4,4;1,2;1,2", "torus:4,4", "dragonfly:2,2;2,1;2,1;2" };
  g_autofree char *work = ts_test_workdir ("platform-load");
  for (guint i = 0; i <= G_N_ELEMENTS (topologies); i++)
    {
      g_auto (TsCluster) c;
      ts_cluster_init (&c);
      c.nodes = i == G_N_ELEMENTS (topologies) ? 16 : 0;
      c.cores = 4;
      GError *error = NULL;
      if (i < G_N_ELEMENTS (topologies))
        assert_true (ts_cluster_set_topology (&c, topologies[i], &error));
      assert_true (ts_cluster_check (&c, &error));
      g_autofree char *xml = ts_cluster_to_xml (&c);
      g_autofree char *path = g_build_filename (work, "p.xml", NULL);
      assert_true (g_file_set_contents (path, xml, -1, NULL));
      TsReplayOptions o;
      ts_replay_options_init (&o);
      o.platform_path = path;
      if (!ts_replay_check_config (&o, &error))
        fail_msg ("%s: %s", i < G_N_ELEMENTS (topologies) ? topologies[i] : "flat", error->message);
    }
  ts_test_rmtree (work);
}

/* Ensure `tracesim platform -o` replaces its own file but refuses one it
 * did not write, and --describe says what a hand-written platform holds
 * (scenarios/platforms/two-hosts.xml: two hosts of one core). */
static void
test_command (void **state)
{
  g_autofree char *work = ts_test_workdir ("platform-command");
  g_autofree char *xml = g_build_filename (work, "big.xml", NULL);
  const char *args[] = { "platform", "--topology", "torus:2,2", "--cores", "4", "-o", xml, NULL };
  TsToolResult r = ts_run_tracesim (args);
  assert_int_equal (r.status, 0);
  assert_non_null (strstr (r.out, "4 nodes of 4 cores at 1 Gflop/s, 16 cores in all"));
  ts_tool_result_clear (&r);
  r = ts_run_tracesim (args); /* its own file: replaced */
  assert_int_equal (r.status, 0);
  ts_tool_result_clear (&r);
  assert_true (g_file_set_contents (xml, "<platform/>", -1, NULL));
  r = ts_run_tracesim (args);
  assert_int_equal (r.status, 1);
  assert_non_null (strstr (r.err, "already exists and tracesim did not write it"));
  ts_tool_result_clear (&r);
  g_autofree char *kept = NULL;
  assert_true (g_file_get_contents (xml, &kept, NULL, NULL));
  assert_string_equal (kept, "<platform/>");
  g_autofree char *two = g_build_filename (ts_test_srcdir (), "scenarios", "platforms",
                                           "two-hosts.xml", NULL);
  r = ts_run_tracesim ((const char *[]) { "platform", "--describe", two, NULL });
  assert_int_equal (r.status, 0);
  assert_non_null (strstr (r.out, "in all: 2 hosts, 2 cores, 1 links and 1 zones written out"));
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

/* Ensure placement errors say what is needed: 8 ranks on 2 nodes of 2
 * cores need 8 cores (the platform has 4); at 1 per node they need 8
 * nodes; 3 per node is more than the 2 cores a node has. */
static void
test_placement_errors (void **state)
{
  g_autofree char *work = ts_test_workdir ("platform-placement");
  g_autofree char *xml = g_build_filename (work, "p.xml", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "platform", "--nodes", "2", "--cores", "2",
                                                       "-o", xml, NULL });
  assert_int_equal (r.status, 0);
  ts_tool_result_clear (&r);
  g_autofree char *trace = ts_test_generate_text (work, "ranks 8\n");
  g_autofree char *out = g_build_filename (work, "out", NULL);
  struct { const char *option, *value, *said; } cases[] = {
    { NULL, NULL, "8 ranks need 8 cores (one rank per core), and the platform's 2 hosts have 4" },
    { "--ranks-per-node", "1", "8 ranks at 1 per node need 8 nodes, and the platform has 2" },
    { "--ranks-per-node", "3", "host node-0 has 2 cores, fewer than --ranks-per-node 3" },
    { "--placement", "round-robin", "--placement 'round-robin': block or cyclic" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *args[] = { "run", trace, "-p", xml, "-o", out, "-q", cases[i].option,
                             cases[i].value, NULL };
      r = ts_run_tracesim (args);
      assert_int_not_equal (r.status, 0);
      if (!strstr (r.err, cases[i].said))
        fail_msg ("expected '%s', got: %s", cases[i].said, r.err);
      ts_tool_result_clear (&r);
      assert_false (ts_test_dir_has_prefix (work, "out"));
    }
  ts_test_rmtree (work);
}

/* The predicted runtime in @json (summary.json). */
static double
predicted_runtime (const char *json)
{
  const char *at = strstr (json, "\"predicted\"");
  assert_non_null (at);
  at = strstr (at, "\"runtime_s\"");
  assert_non_null (at);
  return g_ascii_strtod (strchr (at, ':') + 1, NULL);
}

/* Both ranks compute 1 s; rank 0 then sends 1000 bytes, which rank 1's
 * receive, entered at once, takes 1.1e-4 s to get: the calibration fits
 * that transfer, and the replay reproduces the trace's 1.00011 s. */
static const char compute_then_message[] =
  "ranks 2\n"
  "0 0.0 enter main\n0 1.0 enter MPI_Send\n0 1.0 send 1 bytes=1000\n0 1.0 leave MPI_Send\n"
  "0 1.00011 leave main\n"
  "1 0.0 enter main\n1 1.0 enter MPI_Recv\n1 1.00011 recv 0 bytes=1000\n"
  "1 1.00011 leave MPI_Recv\n1 1.00011 leave main\n";

/* Ensure the calibrated platform computes at the trace's speed, whatever it
 * is named: the trace above replays in 1.00011 s at --trace-speed 1e9 and
 * 2e9 alike (a second of the trace is 2e9 flops on a 2e9 flop/s host). */
static void
test_trace_speed_keeps_identity (void **state)
{
  g_autofree char *work = ts_test_workdir ("platform-speed");
  g_autofree char *trace = ts_test_generate_text (work, compute_then_message);
  const char *speeds[] = { "1e9", "2e9" };
  for (guint i = 0; i < G_N_ELEMENTS (speeds); i++)
    {
      g_autofree char *out = g_build_filename (work, speeds[i], NULL);
      g_autofree char *why = NULL;
      g_autofree char *json = ts_run_tracesim_output (
        (const char *[]) { "run", trace, "--trace-speed", speeds[i], "-o", out, "-q",
                           "--no-wait-states", NULL }, out, "summary.json", &why);
      if (!json)
        fail_msg ("--trace-speed %s: %s", speeds[i], why);
      double runtime = predicted_runtime (json);
      if (fabs (runtime - 1.00011) > 1e-6)
        fail_msg ("--trace-speed %s: predicted %.9f s, derived 1.00011 s", speeds[i], runtime);
    }
  ts_test_rmtree (work);
}

/* Ensure --like starts from the traced machine: the trace above, its two
 * ranks on one node of two cores with the fitted network (1000 bytes in
 * 1.1e-4 s) on the node's loopback link, replays in its own 1.00011 s; and
 * a trace that is not there is named in the error. */
static void
test_like_keeps_identity (void **state)
{
  g_autofree char *work = ts_test_workdir ("platform-like");
  g_autofree char *trace = ts_test_generate_text (work, compute_then_message);
  g_autofree char *xml = g_build_filename (work, "like.xml", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "platform", "--like", trace, "--nodes", "1",
                                                       "--cores", "2", "-o", xml, NULL });
  assert_int_equal (r.status, 0);
  assert_non_null (strstr (r.out, "1 nodes of 2 cores"));
  assert_non_null (strstr (r.out, "as the trace shows it"));
  ts_tool_result_clear (&r);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output (
    (const char *[]) { "run", trace, "-p", xml, "-o", out, "-q", "--no-wait-states", NULL }, out,
    "summary.json", &why);
  if (!json)
    fail_msg ("run on the --like platform: %s", why);
  double runtime = predicted_runtime (json);
  if (fabs (runtime - 1.00011) > 1e-6)
    fail_msg ("on the --like platform: predicted %.9f s, derived 1.00011 s", runtime);
  g_autofree char *missing = g_build_filename (work, "none", "traces.otf2", NULL);
  r = ts_run_tracesim ((const char *[]) { "platform", "--like", missing, "-o", xml, NULL });
  assert_int_equal (r.status, 1);
  assert_non_null (strstr (r.err, missing));
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

/* The number after @attribute=" in @xml. */
static double
xml_number (const char *xml, const char *attribute)
{
  g_autofree char *key = g_strconcat (" ", attribute, "=\"", NULL);
  const char *at = strstr (xml, key);
  assert_non_null (at);
  return g_ascii_strtod (at + strlen (key), NULL);
}

/* A trace whose blocking receives are all of one size gives the network
 * fit no slope: scenarios/test-completes has one MPI_Recv of 1000 bytes,
 * taking 1.1e-4 s from its enter (the send was 0 s earlier), so `info`
 * gives the latency 1.1e-4 s (110 us) and says the bandwidth is not measurable and
 * that the platform keeps the default 1e10 B/s = 10 GB/s (it used to print
 * "bandwidth 0 B/s"); --json gives that default with bandwidth_measured
 * false. */
static void
test_single_size_class_fit (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("platform-one-class");
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", "test-completes", NULL);
  g_autofree char *trace = ts_test_generate (work, dir);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "info", trace, "--no-replay", NULL });
  assert_int_equal (r.status, 0);
  const char *want = "network fit: latency 110 us, bandwidth not measurable (1 size class, "
                     "no slope: 10 GB/s is used)";
  if (!strstr (r.out, want))
    fail_msg ("no '%s' in:\n%s", want, r.out);
  ts_tool_result_clear (&r);
  r = ts_run_tracesim ((const char *[]) { "info", trace, "--no-replay", "--json", NULL });
  assert_int_equal (r.status, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  JsonObject *net = json_object_get_object_member (json_node_get_object (
                                                     json_parser_get_root (parser)), "network");
  assert_float_equal (json_object_get_double_member (net, "bandwidth_Bps"), 1e10, 1);
  assert_false (json_object_get_boolean_member (net, "bandwidth_measured"));
  assert_float_equal (json_object_get_double_member (net, "latency_s"), 1.1e-4, 1e-12);
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

/* Ensure a trace that records its ranks' nodes is fitted per kind of link
 * and replayed as it ran: scenarios/two-nodes-identity has receives within
 * node a at 1 us + bytes / 1e10 and from a to b at 10 us + bytes / 1e9
 * (1000 and 50000 bytes each), so `info` fits those two lines; the
 * calibrated platform has two hosts of two cores, links of 10 us / 2 = 5 us
 * and 1e9 B/s, loopbacks of 1 us and 1e10 B/s; and the identity replay ends
 * every rank at the traced 0.004 s (each receive's network share is its own
 * link's transfer, no CPU time left over). */
/* Ensure that calibrate and platform --like, both "as the trace shows
 * it", write the same links for one trace, and print them in the units
 * every command uses (model/format.h). scenarios/test-completes: one
 * 1000-byte MPI_Recv of 1.1e-4 s, no nodes recorded, so the fit's latency
 * is 1.1e-4 s = 110 us end to end (each of the two links between nodes
 * 55 us), the bandwidth the default 1e10 B/s = 10 GB/s, and within a node
 * (the loopback, where no placement tells the kinds apart) the same fit:
 * 110 us. calibrate wrote 0 s there for hosts of one core. */
static void
test_calibrate_like_agree (void **state)
{
  g_autofree char *work = ts_test_workdir ("platform-agree");
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", "test-completes", NULL);
  g_autofree char *trace = ts_test_generate (work, dir);
  g_autofree char *cal = g_build_filename (work, "cal.xml", NULL);
  g_autofree char *like = g_build_filename (work, "like.xml", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "calibrate", trace, "-o", cal, NULL });
  assert_int_equal (r.status, 0);
  const char *said = "latency 110 us, bandwidth 10 GB/s; within a node 110 us, 10 GB/s";
  if (!strstr (r.out, said))
    fail_msg ("no '%s' in:\n%s", said, r.out);
  ts_tool_result_clear (&r);
  r = ts_run_tracesim ((const char *[]) { "platform", "--like", trace, "-o", like, NULL });
  assert_int_equal (r.status, 0);
  const char *described[] = { "network: 10 GB/s and 110 us end to end between nodes on one "
                              "switch (each link 55 us), as the trace shows it",
                              "within a node: 10 GB/s and 110 us, as the trace shows it" };
  for (guint i = 0; i < G_N_ELEMENTS (described); i++)
    if (!strstr (r.out, described[i]))
      fail_msg ("no '%s' in:\n%s", described[i], r.out);
  ts_tool_result_clear (&r);
  g_autofree char *cal_xml = NULL, *like_xml = NULL;
  assert_true (g_file_get_contents (cal, &cal_xml, NULL, NULL));
  assert_true (g_file_get_contents (like, &like_xml, NULL, NULL));
  assert_float_equal (xml_number (cal_xml, "loopback_lat"), 1.1e-4, 1e-12);
  assert_float_equal (xml_number (like_xml, "loopback_lat"), 1.1e-4, 1e-12);
  assert_float_equal (xml_number (cal_xml, "lat"), 5.5e-5, 1e-12);
  assert_float_equal (xml_number (like_xml, "lat"), 5.5e-5, 1e-12);
  /* Both comments in the same words, no other unit. */
  for (const char *xml = cal_xml; xml; xml = xml == cal_xml ? like_xml : NULL)
    assert_true (strstr (xml, described[1]) && !strstr (xml, "Gb/s"));
  ts_test_rmtree (work);
}

static void
test_calibrated_by_node (void **state)
{
  g_autofree char *work = ts_test_workdir ("platform-by-node");
  g_autofree char *dir = g_build_filename (ts_test_srcdir (), "scenarios", "two-nodes-identity", NULL);
  g_autofree char *trace = ts_test_generate (work, dir);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "info", trace, NULL });
  assert_int_equal (r.status, 0);
  const char *want[] = { "nodes:      2 (a: 2 ranks, b: 2 ranks)",
                         "within a node latency 1 us, bandwidth 10 GB/s (2 size classes)",
                         "between nodes latency 10 us, bandwidth 1 GB/s (2 size classes)" };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (!strstr (r.out, want[i]))
      fail_msg ("no '%s' in:\n%s", want[i], r.out);
  ts_tool_result_clear (&r);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  g_autofree char *why = NULL;
  g_autofree char *json = ts_run_tracesim_output (
    (const char *[]) { "run", trace, "-o", out, "-q", "--no-wait-states", NULL }, out,
    "summary.json", &why);
  if (!json)
    fail_msg ("%s", why);
  const char *at = strstr (strstr (json, "\"predicted\""), "\"rank_end_s\"");
  assert_non_null (at);
  at = strchr (at, '[') + 1;
  for (guint r = 0; r < 4; r++)
    {
      char *end;
      double t = g_ascii_strtod (at, &end);
      if (fabs (t - 0.004) > 1e-9)
        fail_msg ("rank %u ends at %.9f s, not the traced 0.004 s", r, t);
      at = end + 1;
    }
  g_autofree char *path = g_build_filename (out, "platform.xml", NULL);
  g_autofree char *xml = NULL;
  assert_true (g_file_get_contents (path, &xml, NULL, NULL));
  assert_non_null (strstr (xml, "radical=\"0-1\""));
  assert_non_null (strstr (xml, "core=\"2\""));
  assert_true (fabs (xml_number (xml, "lat") - 5e-6) < 1e-12);
  assert_true (fabs (xml_number (xml, "bw") - 1e9) < 1);
  assert_true (fabs (xml_number (xml, "loopback_lat") - 1e-6) < 1e-12);
  assert_true (fabs (xml_number (xml, "loopback_bw") - 1e10) < 10);
  /* calibrate writes the same platform, and the traced placement beside it;
   * a file it did not write is refused, not replaced. */
  g_autofree char *cal = g_build_filename (work, "cal.xml", NULL);
  r = ts_run_tracesim ((const char *[]) { "calibrate", trace, "-o", cal, NULL });
  assert_int_equal (r.status, 0);
  ts_tool_result_clear (&r);
  g_autofree char *hostfile = g_strconcat (cal, ".hostfile", NULL);
  g_autofree char *hosts = NULL;
  assert_true (g_file_get_contents (hostfile, &hosts, NULL, NULL));
  assert_non_null (strstr (hosts, "\nnode-0\nnode-0\nnode-1\nnode-1\n"));
  assert_true (g_file_set_contents (cal, "<platform/>", -1, NULL));
  r = ts_run_tracesim ((const char *[]) { "calibrate", trace, "-o", cal, NULL });
  assert_int_equal (r.status, 1);
  assert_non_null (strstr (r.err, "tracesim did not write it"));
  ts_tool_result_clear (&r);
  ts_test_rmtree (work);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_units),
    cmocka_unit_test (test_topologies),
    cmocka_unit_test (test_xml),
    cmocka_unit_test (test_key_file_errors),
    cmocka_unit_test (test_simgrid_loads_every_topology),
    cmocka_unit_test (test_command),
    cmocka_unit_test (test_placement_errors),
    cmocka_unit_test (test_trace_speed_keeps_identity),
    cmocka_unit_test (test_like_keeps_identity),
    cmocka_unit_test (test_calibrated_by_node),
    cmocka_unit_test (test_calibrate_like_agree),
    cmocka_unit_test (test_single_size_class_fit),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
