/* Platforms tracesim writes itself: a homogeneous cluster calibrated from a
 * trace (`tracesim calibrate`, and `run` without -p). */
#ifndef TS_PLATFORM_H
#define TS_PLATFORM_H

#include <glib.h>
#include "calibrate/calibration.h"
#include "sim/cluster.h"

G_BEGIN_DECLS

typedef struct {
  guint n_hosts;
  guint cores;         /* per host; ranks of one host talk over its loopback link */
  double speed;        /* flops per second of each host */
  double latency;      /* seconds, end to end between two hosts */
  double bandwidth;    /* bytes per second between two hosts */
  double intra_latency, intra_bandwidth; /* between ranks of one host */
} TsClusterSpec;

/* Write @spec as a SimGrid platform XML file at @path (written under a
 * temporary name and renamed; an existing file only replaced if tracesim
 * wrote it). Each host has a split-duplex private link of
 * half the latency, so a message crosses two of them: latency end to end.
 * With several cores a host, messages between its ranks cross its loopback
 * link, of the same latency end to end and bandwidth. */
gboolean ts_platform_write_cluster (const TsClusterSpec *spec, const char *path, GError **error);

/* The cluster a trace ran on, as far as its timings tell: one host per rank
 * at @trace_speed flop/s (the speed a CPU second of the trace stands for,
 * so that replaying on it reproduces the trace whatever speed is named),
 * latency and bandwidth fitted by the calibration, with defaults of 1 us
 * and 10 GB/s where the trace has nothing to fit. */
TsClusterSpec ts_platform_spec_from_calibration (const TsCalibration *calibration,
                                                 double trace_speed);

/* Property of the root zone of the platforms tracesim writes: its network is
 * the traced one as the calibration sees it (fitted, or assumed where the trace
 * had nothing to fit). The replay then deducts that network's transfers from
 * the calls, so that replaying on it reproduces the trace (actions.c,
 * charge_call_cost); on other platforms, without a fit, the fastest call of
 * each kind and size stands for its transfer. */
#define TS_PLATFORM_TRACED_NETWORK TS_CLUSTER_TRACED_NETWORK
/* The words that open the hostfiles tracesim calibrates (a file that has
 * them may be replaced, another is refused: TS_WRITTEN_MARK). */
#define TS_PLATFORM_MARK "Written by tracesim:"

/* A core for every thread of a rank (MPI + OpenMP): the hosts of @spec
 * get at least as many cores as the rank with most threads has threads, so
 * that a calibrated platform replays them as traced, each on a core. */
void ts_platform_spec_fit_threads (TsClusterSpec *spec, const TsTrace *trace);
/* The hosts of @spec get the cores the trace says its nodes had (where it
 * says so for every node), where that is more: threads a what-if adds
 * (`threads = N`) run on the cores the recorded nodes had, idle or not. */
void ts_platform_spec_fit_node_cores (TsClusterSpec *spec, const TsTrace *trace);

/* Where the trace shows ranks sharing nodes: @spec gets one host per traced
 * node, with cores for the most threads of ranks one held (@traced_cores: the most
 * cores the trace says a node had, where it says so for every node, so
 * that ranks time-share them as they did), and the result is a hostfile
 * putting each rank on its node's host (caller frees); NULL, and @spec
 * untouched, where the trace does not say or every rank had a node of its
 * own. */
char *ts_platform_place_as_traced (TsClusterSpec *spec, const TsTrace *trace,
                                   gboolean traced_cores);

/* Start @cluster from what the trace shows (`tracesim platform --like`):
 * cores at @trace_speed, and the calibrated network end to end (between
 * nodes and within one apart where the trace tells them apart), marked as
 * the traced network. */
void ts_platform_cluster_like (TsCluster *cluster, const TsCalibration *calibration,
                               double trace_speed);

G_END_DECLS

#endif
