/* A pure-C event queue under the maestro engine (engine-ops.h), for tests:
 * the replay's decisions run on it as on SimGrid, many times in one
 * process, with no SimGrid call at all.
 *
 * Its model is the simplest that keeps times derivable by hand:
 * - a burst of s seconds ends at exactly now + s (0: at the current instant);
 * - an execution of f flops on a host ends at now + f / that host's speed
 *   (no sharing: an execution never slows another down);
 * - a transfer of b bytes ends at now + latency + b / bandwidth, from the
 *   pair's entry of the tables or else the world's single values (no
 *   sharing either; a transfer within a host costs the same);
 * - completions are told in (date, start order), and settled() after the
 *   last completion of each date (and again if what settled() started ends
 *   at that same date). */
#ifndef TS_ENGINE_QUEUE_H
#define TS_ENGINE_QUEUE_H

#include <glib.h>

typedef struct {
  double speed;              /* flops per second of one core */
  guint cores;               /* 0 counts as 1 */
} TsQueueHost;

typedef struct {
  guint n_hosts;
  const TsQueueHost *hosts;
  double latency;            /* seconds, of every transfer */
  double bandwidth;          /* bytes per second, of every transfer */
  /* Optional per pair, n_hosts x n_hosts, row = source host: they replace
   * latency and bandwidth where given (NULL: not given). */
  const double *pair_latency, *pair_bandwidth;
} TsQueueWorld;

/* The queue's hosts are the world's records: a rank's host (TsRank.host, an
 * sg_host_t to the replay) is &world->hosts[i] cast to sg_host_t, which only
 * this engine reads. The world must outlive the engine. */
static inline gconstpointer
ts_queue_host (const TsQueueWorld *world, guint i)
{
  return &world->hosts[i];
}

#endif
