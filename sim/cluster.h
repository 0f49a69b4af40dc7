/* A cluster described in a few words, and the SimGrid platform it makes
 * (`tracesim platform`, doc/platforms.md).
 *
 * Nodes of several cores on one of SimGrid's cluster topologies (flat, fat
 * tree, torus, dragonfly: its <cluster topology=...> zones). Each node has a
 * private link to the network, and a loopback link that carries the
 * messages between its own ranks (the intra-node, shared-memory path). The
 * same description is read from options or from a key file's [cluster]
 * group, so that sweeps can vary it. */
#ifndef TS_CLUSTER_H
#define TS_CLUSTER_H

#include <glib.h>

G_BEGIN_DECLS

#define TS_CLUSTER_ERROR (ts_cluster_error_quark ())
GQuark ts_cluster_error_quark (void);
typedef enum {
  TS_CLUSTER_ERROR_INVALID, /* a malformed or inconsistent description */
} TsClusterError;

typedef enum {
  TS_TOPOLOGY_FLAT,       /* every node's link on one switch (a star) */
  TS_TOPOLOGY_FAT_TREE,   /* SimGrid's FAT_TREE "levels;down;up;parallel" */
  TS_TOPOLOGY_TORUS,      /* SimGrid's TORUS "d1,d2[,d3...]" */
  TS_TOPOLOGY_DRAGONFLY,  /* SimGrid's DRAGONFLY "groups,links;chassis,links;routers,links;nodes" */
} TsTopology;

typedef struct {
  guint nodes;              /* 0 until given or implied by the topology */
  guint cores;              /* per node */
  double speed;             /* flop/s of one core */
  TsTopology topology;
  char *topology_parameters; /* SimGrid's topo_parameters; NULL for flat */
  double bandwidth, latency; /* each node's link to the network: B/s, s */
  double intra_bandwidth, intra_latency; /* between ranks of one node */
  char *network_name;       /* the preset the link came from, or NULL */
  /* The links are the traced machine's, as the calibration fitted them
   * (--like): the replay then deducts their transfers from the calls, as
   * on the calibrated platform (TS_PLATFORM_TRACED_NETWORK). */
  gboolean traced_network;
  /* SMPI's piecewise factors ("65472:0.94;0:0.81": from that many bytes
   * up, bandwidth and latency times the factor), or NULL: none. With
   * either, the platform asks for SimGrid's SMPI network model. */
  char *bw_factors, *lat_factors;
} TsCluster;

/* One node of one core at 1 Gflop/s, flat, on the defaults of
 * doc/platforms.md (10 GB/s, 1 us between nodes; 20 GB/s, 0.3 us within). */
void ts_cluster_init (TsCluster *c);
void ts_cluster_clear (TsCluster *c);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TsCluster, ts_cluster_clear)

/* "flat", "fat-tree:2;8,8;1,8;1,1", "torus:4,4,4", "dragonfly:2,2;2,1;2,1;2". */
gboolean ts_cluster_set_topology (TsCluster *c, const char *text, GError **error);
/* "200Gbps,1us", or a preset's name (ts_cluster_presets). */
gboolean ts_cluster_set_network (TsCluster *c, const char *text, GError **error);
/* "40GBps,0.2us". */
gboolean ts_cluster_set_intra_node (TsCluster *c, const char *text, GError **error);
/* The [cluster] group of @file: nodes, cores, speed, topology, network,
 * intra-node; each error names @origin and the key. */
gboolean ts_cluster_load_key_file (TsCluster *c, GKeyFile *file, const char *origin,
                                   GError **error);
/* Nodes consistent with the topology (a fat tree of 8 x 8 leaves has 64
 * nodes); fills nodes from the topology when not given. */
gboolean ts_cluster_check (TsCluster *c, GError **error);

/* The root zone's property that marks a traced network; the same as
 * sim/platform.h's TS_PLATFORM_TRACED_NETWORK. */
#define TS_CLUSTER_TRACED_NETWORK "tracesim-traced-network"

/* The first words of the comment that opens every platform the generator
 * writes: a file that begins otherwise is not replaced. */
#define TS_CLUSTER_XML_MARK "Written by tracesim platform:"

/* The SimGrid platform (XML, version 4.1) of a checked description. */
char *ts_cluster_to_xml (const TsCluster *c);
/* The description in plain words, a few lines. */
char *ts_cluster_describe (const TsCluster *c);

/* Any SimGrid platform file in plain words: each <cluster> as the
 * generator describes its own, then hosts and cores in all. @path must have
 * passed ts_platform_check_file(). */
char *ts_cluster_describe_file (const char *path, GError **error);

typedef struct {
  const char *name;
  double bandwidth, latency;   /* B/s, s: one node's link, end to end */
  const char *what;            /* one line: the product and where the numbers come from */
} TsNetworkPreset;
/* The interconnect presets, NULL-name terminated (doc/platforms.md cites them). */
extern const TsNetworkPreset ts_cluster_presets[];

G_END_DECLS

#endif
