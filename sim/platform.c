#include <config.h>

#include "sim/platform.h"
#include "model/output_dir.h"

#include <string.h>

gboolean
ts_platform_write_cluster (const TsClusterSpec *spec, const char *path, GError **error)
{
  g_return_val_if_fail (spec->n_hosts > 0, FALSE);
  char lat[G_ASCII_DTOSTR_BUF_SIZE], bw[G_ASCII_DTOSTR_BUF_SIZE], speed[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_dtostr (lat, sizeof lat, spec->latency / 2);
  g_ascii_dtostr (bw, sizeof bw, spec->bandwidth);
  g_ascii_dtostr (speed, sizeof speed, spec->speed);
  guint cores = MAX (spec->cores, 1);
  /* One rank a host never uses the loopback but to send to itself: as
   * before, free of latency. */
  char loop_lat[G_ASCII_DTOSTR_BUF_SIZE] = "0";
  char loop_bw[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_dtostr (loop_bw, sizeof loop_bw, cores > 1 ? spec->intra_bandwidth : spec->bandwidth);
  if (cores > 1)
    g_ascii_dtostr (loop_lat, sizeof loop_lat, spec->intra_latency);
  g_autofree char *xml = g_strdup_printf (
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<!-- " TS_PLATFORM_MARK " %u hosts, end-to-end latency %s s x 2, bandwidth %s B/s.\n"
    "     Each host has a private split-duplex link; there is no backbone, so the\n"
    "     only contention is at the hosts' own links. -->\n"
    "<platform version=\"4.1\">\n"
    "  <cluster id=\"cluster\" prefix=\"node-\" suffix=\"\" radical=\"0-%u\"\n"
    "           speed=\"%sf\" core=\"%u\" bw=\"%sBps\" lat=\"%ss\" sharing_policy=\"SPLITDUPLEX\"\n"
    "           loopback_bw=\"%sBps\" loopback_lat=\"%ss\">\n"
    "    <prop id=\"" TS_PLATFORM_TRACED_NETWORK "\" value=\"yes\"/>\n"
    "  </cluster>\n"
    "</platform>\n",
    spec->n_hosts, lat, bw, spec->n_hosts - 1, speed, cores, bw, lat, loop_bw, loop_lat);
  return ts_output_file_write (path, xml, strlen (xml), TS_PLATFORM_MARK, error);
}

TsClusterSpec
ts_platform_spec_from_calibration (const TsCalibration *p, double trace_speed)
{
  TsClusterSpec spec = { ts_calibration_n_ranks (p), 1, trace_speed, TS_CALIBRATION_DEFAULT_LATENCY,
                         TS_CALIBRATION_DEFAULT_BANDWIDTH };
  TsNetworkFit fit = ts_calibration_network (p);
  if (fit.latency > 0)
    spec.latency = fit.latency;
  if (fit.bandwidth > 0)
    spec.bandwidth = fit.bandwidth;
  spec.intra_latency = spec.latency;
  spec.intra_bandwidth = spec.bandwidth;
  /* Where the trace tells messages within a node from those between nodes,
   * each kind of link gets its own. */
  TsNetworkFit inter = ts_calibration_network_placed (p, TRUE);
  TsNetworkFit intra = ts_calibration_network_placed (p, FALSE);
  if (inter.samples && intra.samples)
    {
      spec.latency = inter.latency;
      spec.bandwidth = inter.bandwidth > 0 ? inter.bandwidth : spec.bandwidth;
      spec.intra_latency = intra.latency;
      spec.intra_bandwidth = intra.bandwidth > 0 ? intra.bandwidth : spec.intra_bandwidth;
    }
  return spec;
}

void
ts_platform_cluster_like (TsCluster *c, const TsCalibration *calibration, double trace_speed)
{
  TsClusterSpec spec = ts_platform_spec_from_calibration (calibration, trace_speed);
  c->speed = spec.speed;
  c->bandwidth = spec.bandwidth;
  c->latency = spec.latency;
  c->intra_bandwidth = spec.intra_bandwidth;
  c->intra_latency = spec.intra_latency;
  c->traced_network = TRUE;
  g_free (c->network_name);
  c->network_name = g_strdup ("as traced");
}

char *
ts_platform_place_as_traced (TsClusterSpec *spec, const TsTrace *trace)
{
  guint n_nodes = ts_trace_n_nodes (trace), n_ranks = ts_trace_n_ranks (trace);
  if (n_nodes == 0 || n_nodes >= n_ranks)
    return NULL;
  g_autofree guint *ranks = g_new0 (guint, n_nodes);
  GString *lines = g_string_new ("# " TS_PLATFORM_MARK " each rank on the node the trace shows it on\n");
  for (guint r = 0; r < n_ranks; r++)
    {
      guint node = ts_trace_rank_node (trace, r);
      ranks[node]++;
      spec->cores = MAX (spec->cores, ranks[node]);
      g_string_append_printf (lines, "node-%u\n", node);
    }
  spec->n_hosts = n_nodes;
  return g_string_free (lines, FALSE);
}
