#include <config.h>

#include "cli/commands.h"
#include "model/output_dir.h"
#include "model/key-line.h"
#include "sim/cluster.h"
#include "sim/platform.h"
#include "sim/platform-check.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  char *output, *config, *topology, *network, *intra_node, *speed, *describe, *like;
  char *bw_factors, *lat_factors;
  int nodes, cores;
  double trace_speed;
} PlatformOptions;

static void
options_clear (PlatformOptions *o)
{
  g_free (o->output);
  g_free (o->config);
  g_free (o->topology);
  g_free (o->network);
  g_free (o->intra_node);
  g_free (o->speed);
  g_free (o->describe);
  g_free (o->like);
  g_free (o->bw_factors);
  g_free (o->lat_factors);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PlatformOptions, options_clear)

/* The trace's own machine (--like) first, then the key file, then the
 * options, which override both. */
static gboolean
build (TsCluster *c, const PlatformOptions *o, GError **error)
{
  guint like_ranks = 0;
  if (o->like)
    {
      if (!(o->trace_speed > 0 && o->trace_speed < 1e18))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--trace-speed: a flop rate above 0 (e.g. 2e9)");
          return FALSE;
        }
      g_autoptr (TsTrace) trace = ts_trace_open (o->like, error);
      g_autoptr (TsCalibration) calibration = trace ? ts_calibration_compute (trace, error) : NULL;
      if (!calibration)
        return FALSE;
      ts_platform_cluster_like (c, calibration, o->trace_speed);
      like_ranks = ts_trace_n_ranks (trace);
    }
  if (o->config)
    {
      /* The comment rule of every key file a user writes (model/key-line.h). */
      g_autoptr (GKeyFile) file = g_key_file_new ();
      g_autofree char *text = NULL;
      gsize len = 0;
      if (!g_file_get_contents (o->config, &text, &len, error))
        return FALSE;
      if (!ts_key_file_load_commented (file, text, (gssize) len, error))
        {
          g_prefix_error (error, "%s: ", o->config);
          return FALSE;
        }
      if (!ts_cluster_load_key_file (c, file, o->config, error))
        return FALSE;
    }
  if (o->nodes < 0 || o->cores < 0 || o->nodes > 1000000 || o->cores > 1000000)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--nodes and --cores take a whole number from 1 to 1000000");
      return FALSE;
    }
  if (o->nodes)
    c->nodes = o->nodes;
  if (o->cores)
    c->cores = o->cores;
  g_autoptr (GKeyFile) given = g_key_file_new ();
  if (o->speed)
    g_key_file_set_string (given, "cluster", "speed", o->speed);
  if (o->topology)
    g_key_file_set_string (given, "cluster", "topology", o->topology);
  if (o->network)
    g_key_file_set_string (given, "cluster", "network", o->network);
  if (o->intra_node)
    g_key_file_set_string (given, "cluster", "intra-node", o->intra_node);
  if (o->bw_factors)
    g_key_file_set_string (given, "cluster", "bw-factors", o->bw_factors);
  if (o->lat_factors)
    g_key_file_set_string (given, "cluster", "lat-factors", o->lat_factors);
  g_autoptr (GError) bad = NULL;
  if (g_key_file_has_group (given, "cluster")
      && !ts_cluster_load_key_file (c, given, "the options", &bad))
    {
      /* A value of an option, not of a file: a usage error (status 2). */
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, bad->message);
      return FALSE;
    }
  /* --like on a flat cluster of no given size: a node per traced rank. */
  if (like_ranks && !c->nodes && c->topology == TS_TOPOLOGY_FLAT)
    c->nodes = like_ranks;
  return ts_cluster_check (c, error);
}

static int
describe (const char *path)
{
  GError *error = NULL;
  if (!ts_platform_check_file (path, &error))
    return ts_cmd_fail ("platform", error);
  g_autofree char *words = ts_cluster_describe_file (path, &error);
  if (!words)
    return ts_cmd_fail ("platform", error);
  printf ("%s:\n%s", path, words);
  return 0;
}

int
ts_cmd_platform (int argc, char **argv)
{
  g_auto (PlatformOptions) o = { .trace_speed = 1e9 };
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "platform file to write", "FILE" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &o.nodes, "number of nodes (implied by a topology)", "N" },
    { "cores", 0, 0, G_OPTION_ARG_INT, &o.cores, "cores per node (default 1)", "N" },
    { "speed", 0, 0, G_OPTION_ARG_STRING, &o.speed,
      "flop rate of a core: 2Gf, or 2e9 flop/s (default 1Gf)", "SPEED" },
    { "topology", 0, 0, G_OPTION_ARG_STRING, &o.topology,
      "flat (default), fat-tree:2;8,8;1,8;1,1, torus:4,4,4 or dragonfly:2,2;2,1;2,1;2", "T" },
    { "network", 0, 0, G_OPTION_ARG_STRING, &o.network,
      "links between nodes: BANDWIDTH,LATENCY (200Gbps,1us) or a preset (default 10GBps,1us)",
      "NET" },
    { "intra-node", 0, 0, G_OPTION_ARG_STRING, &o.intra_node,
      "between ranks of one node: BANDWIDTH,LATENCY (default 20GBps,0.3us)", "LINK" },
    { "bw-factors", 0, 0, G_OPTION_ARG_STRING, &o.bw_factors,
      "SMPI's piecewise bandwidth factors by message size (65472:0.94;0:0.81)", "SPEC" },
    { "lat-factors", 0, 0, G_OPTION_ARG_STRING, &o.lat_factors,
      "SMPI's piecewise latency factors by message size (65472:11.6;0:2.0)", "SPEC" },
    { "like", 0, 0, G_OPTION_ARG_FILENAME, &o.like,
      "start from the traced machine: its core speed (--trace-speed) and its network as the "
      "trace shows it; the other options change only what they name", "TRACE" },
    { "trace-speed", 0, 0, G_OPTION_ARG_DOUBLE, &o.trace_speed,
      "with --like: flop rate of a core of the traced machine (default 1e9), as for run",
      "FLOPS" },
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &o.config,
      "read the description from a key file's [cluster] group (options override it)", "FILE" },
    { "describe", 0, 0, G_OPTION_ARG_FILENAME, &o.describe,
      "say what a platform file holds, in plain words, and write nothing", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = ts_cmd_context ("platform", entries);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return ts_cmd_option_error ("platform", error);
  if (argc != 1)
    return ts_cmd_usage_error ("platform", "tracesim platform takes options only");
  if (o.describe)
    return describe (o.describe);
  if (!o.output)
    return ts_cmd_usage_error ("platform", "give the file to write with -o (or --describe FILE)");
  g_auto (TsCluster) c;
  ts_cluster_init (&c);
  if (!build (&c, &o, &error))
    return error->domain == G_OPTION_ERROR ? ts_cmd_option_error ("platform", error)
                                           : ts_cmd_fail ("platform", error);
  g_autofree char *xml = ts_cluster_to_xml (&c);
  if (!ts_output_file_write (o.output, xml, strlen (xml), TS_WRITTEN_MARK, &error))
    return ts_cmd_fail ("platform", error);
  g_autofree char *words = ts_cluster_describe (&c);
  printf ("%s:\n%s", o.output, words);
  return 0;
}
