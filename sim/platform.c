#include <config.h>

#include "sim/platform.h"
#include "model/output_dir.h"

#include <string.h>

/* The network @spec calibrated, as the cluster's: the one place both the
 * calibrated platform (calibrate, run) and `platform --like` take it, so
 * that both write the same links for one trace. The loopback keeps what
 * the trace shows within a node even for a host of one core (used only by
 * a rank sending to itself): it once had 0 s there, which no trace
 * showed, while --like wrote the fit. */
static void
cluster_network (TsCluster *c, const TsClusterSpec *spec)
{
  c->speed = spec->speed;
  c->bandwidth = spec->bandwidth;
  c->latency = spec->latency;
  c->intra_bandwidth = spec->intra_bandwidth;
  c->intra_latency = spec->intra_latency;
  c->traced_network = TRUE;
  g_free (c->network_name);
  c->network_name = g_strdup ("as traced");
}

gboolean
ts_platform_write_cluster (const TsClusterSpec *spec, const char *path, GError **error)
{
  g_return_val_if_fail (spec->n_hosts > 0, FALSE);
  /* The generator's cluster (sim/cluster.c), marked as the traced network. */
  g_auto (TsCluster) c;
  ts_cluster_init (&c);
  c.nodes = spec->n_hosts;
  c.cores = MAX (spec->cores, 1);
  cluster_network (&c, spec);
  g_autofree char *xml = ts_cluster_to_xml (&c);
  return ts_output_file_write (path, xml, strlen (xml), TS_WRITTEN_MARK, error);
}

TsClusterSpec
ts_platform_spec_from_calibration (const TsCalibration *p, double trace_speed)
{
  TsClusterSpec spec = { ts_calibration_n_ranks (p), 1, trace_speed, TS_CALIBRATION_DEFAULT_LATENCY,
                         TS_CALIBRATION_DEFAULT_BANDWIDTH };
  TsNetworkFit fit = ts_calibration_network (p);
  if (fit.latency > 0)
    spec.latency = fit.latency;
  spec.bandwidth = ts_network_fit_bandwidth (fit, spec.bandwidth);
  spec.intra_latency = spec.latency;
  spec.intra_bandwidth = spec.bandwidth;
  /* Where the trace tells messages within a node from those between nodes,
   * each kind of link gets its own. */
  TsNetworkFit inter = ts_calibration_network_placed (p, TRUE);
  TsNetworkFit intra = ts_calibration_network_placed (p, FALSE);
  if (inter.samples && intra.samples)
    {
      spec.latency = inter.latency;
      spec.bandwidth = ts_network_fit_bandwidth (inter, spec.bandwidth);
      spec.intra_latency = intra.latency;
      spec.intra_bandwidth = ts_network_fit_bandwidth (intra, spec.intra_bandwidth);
    }
  return spec;
}

void
ts_platform_cluster_like (TsCluster *c, const TsCalibration *calibration, double trace_speed)
{
  TsClusterSpec spec = ts_platform_spec_from_calibration (calibration, trace_speed);
  cluster_network (c, &spec);
}

void
ts_platform_spec_fit_threads (TsClusterSpec *spec, const TsTrace *trace)
{
  for (guint r = 0; r < ts_trace_n_ranks (trace); r++)
    spec->cores = MAX (spec->cores, ts_trace_rank_n_threads (trace, r));
}

/* The most cores a node of @trace had, where it says so for every node
 * (0: it does not). */
static guint
traced_node_cores (const TsTrace *trace)
{
  guint n_nodes = ts_trace_n_nodes (trace), cores = 0;
  for (guint i = 0; i < n_nodes; i++)
    {
      if (ts_trace_node_cores (trace, i) == 0)
        return 0;
      cores = MAX (cores, ts_trace_node_cores (trace, i));
    }
  return cores;
}

void
ts_platform_spec_fit_node_cores (TsClusterSpec *spec, const TsTrace *trace)
{
  spec->cores = MAX (spec->cores, traced_node_cores (trace));
}

char *
ts_platform_place_as_traced (TsClusterSpec *spec, const TsTrace *trace, gboolean traced_cores)
{
  guint n_nodes = ts_trace_n_nodes (trace), n_ranks = ts_trace_n_ranks (trace);
  if (n_nodes == 0 || n_nodes >= n_ranks)
    return NULL;
  g_autofree guint *ranks = g_new0 (guint, n_nodes);
  GString *lines = g_string_new ("# " TS_PLATFORM_MARK " each rank on the node the trace shows it on\n");
  for (guint r = 0; r < n_ranks; r++)
    {
      guint node = ts_trace_rank_node (trace, r);
      ranks[node] += ts_trace_rank_n_threads (trace, r); /* a core for each thread */
      spec->cores = MAX (spec->cores, ranks[node]);
      g_string_append_printf (lines, "node-%u\n", node);
    }
  /* The traced cores, only where every node's are known. */
  guint cores = traced_cores ? traced_node_cores (trace) : 0;
  if (cores > 0)
    spec->cores = cores;
  spec->n_hosts = n_nodes;
  return g_string_free (lines, FALSE);
}
