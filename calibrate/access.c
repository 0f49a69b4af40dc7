#include <config.h>

/* What later stages read of a calibration: accessors, so that no layer
 * indexes its arrays. */
#include "calibrate/calibration-private.h"

TsActionStream *
ts_calibration_stream_open (const TsCalibration *p, const TsTrace *trace, GError **error)
{
  return ts_action_stream_open (trace, p->spool, p->decode_options, error);
}

const TsSpool *
ts_calibration_spool (const TsCalibration *p)
{
  return p->spool;
}

guint
ts_calibration_n_ranks (const TsCalibration *p)
{
  return p->n_ranks;
}

double
ts_calibration_runtime (const TsCalibration *p)
{
  return p->runtime;
}

double
ts_calibration_start (const TsCalibration *p)
{
  return p->start;
}

const double *
ts_calibration_rank_ends (const TsCalibration *p)
{
  return p->rank_end;
}

double
ts_calibration_clock_offset (const TsCalibration *p, guint rank)
{
  g_return_val_if_fail (rank < p->n_ranks, 0);
  return p->clock_offset[rank];
}

const TsClockAlignment *
ts_calibration_clocks (const TsCalibration *p)
{
  return &p->clocks;
}

const TsDecodeStats *
ts_calibration_rank_stats (const TsCalibration *p, guint rank)
{
  g_return_val_if_fail (rank < p->n_ranks, NULL);
  return &p->rank_stats[rank];
}

gboolean
ts_calibration_rank_has_teams (const TsCalibration *p, const TsTrace *trace, guint rank)
{
  return ts_trace_rank_n_threads (trace, rank) >= 2
         || (rank < p->n_ranks && p->rank_stats[rank].teams > 0);
}

guint64
ts_calibration_events (const TsCalibration *p)
{
  guint64 events = 0;
  for (guint r = 0; r < p->n_ranks; r++)
    events += p->rank_stats[r].events;
  return events;
}

guint64
ts_calibration_actions (const TsCalibration *p)
{
  guint64 actions = 0;
  for (guint r = 0; r < p->n_ranks; r++)
    actions += p->rank_stats[r].actions;
  return actions;
}

TsMessageInfo
ts_calibration_message_info (const TsCalibration *p)
{
  TsMessageInfo info = { { 0 } };
  for (guint r = 0; r < p->n_ranks; r++)
    for (guint k = 0; k < 3; k++)
      {
        info.calls[k] += p->rank_stats[r].calls[k];
        info.seconds[k] += p->rank_stats[r].call_seconds[k];
      }
  return info;
}

guint64
ts_calibration_region_visits (const TsCalibration *p, guint region)
{
  g_return_val_if_fail (region < p->n_regions, 0);
  return p->region_visits[region];
}

double
ts_calibration_region_seconds (const TsCalibration *p, guint region)
{
  g_return_val_if_fail (region < p->n_regions, 0);
  return p->region_seconds[region];
}

double
ts_calibration_region_compute (const TsCalibration *p, guint region)
{
  g_return_val_if_fail (region < p->n_regions, 0);
  return p->region_compute[region];
}

gboolean
ts_calibration_region_outermost (const TsCalibration *p, guint region)
{
  g_return_val_if_fail (region < p->n_regions, FALSE);
  return p->region_outermost[region] != 0;
}

guint
ts_calibration_n_phases (const TsCalibration *p)
{
  return p->phases ? p->phases->len : 0;
}

const TsPhase *
ts_calibration_phase (const TsCalibration *p, guint i)
{
  g_return_val_if_fail (i < ts_calibration_n_phases (p), NULL);
  return &g_array_index (p->phases, TsPhase, i);
}

TsNetworkFit
ts_calibration_network (const TsCalibration *p)
{
  TsNetworkFit fit = { p->latency, p->bandwidth, p->fit_samples };
  return fit;
}

TsNetworkFit
ts_calibration_network_placed (const TsCalibration *p, gboolean between_nodes)
{
  return p->placed_fit[between_nodes ? 1 : 0];
}

double
ts_calibration_transfer_placed (const TsCalibration *p, guint64 bytes, gboolean between_nodes)
{
  const TsNetworkFit *f = &p->placed_fit[between_nodes ? 1 : 0];
  if (f->samples == 0)
    return ts_calibration_transfer (p, bytes);
  double line = f->latency + (f->bandwidth > 0 ? bytes / f->bandwidth : 0);
  return MIN (line, p->placed_min[between_nodes ? 1 : 0][ts_size_class (bytes)]);
}

double
ts_calibration_bandwidth_factor (const TsCalibration *p, guint size_class)
{
  g_return_val_if_fail (size_class < TS_N_SIZE_CLASSES, 1);
  return p->bandwidth_factor[size_class];
}

guint64
ts_calibration_largest_blocking_send (const TsCalibration *p)
{
  return p->largest_blocking_send;
}

double
ts_calibration_call_min (const TsCalibration *p, guint region, guint size_class,
                         gboolean is_root)
{
  return p->call_min[ts_calibration_call_min_index (region, size_class, is_root)];
}

const GArray *
ts_calibration_inferred (const TsCalibration *p, guint rank)
{
  g_return_val_if_fail (rank < p->n_ranks, NULL);
  return g_ptr_array_index (p->inferred, rank);
}

TsBinomialTree
ts_calibration_binomial_tree (const TsCalibration *p)
{
  return p->binomial_tree;
}

guint
ts_calibration_binomial_contradictions (const TsCalibration *p, TsBinomialTree tree)
{
  g_return_val_if_fail (tree < TS_BINOMIAL_N_TREES, 0);
  return p->binomial_contradictions[tree];
}

guint
ts_calibration_binomial_samples (const TsCalibration *p)
{
  return p->binomial_samples;
}

TsDecodeOptions
ts_calibration_decode_options (const TsCalibration *p, guint rank)
{
  TsDecodeOptions o = { 0 };
  g_return_val_if_fail (rank < p->n_ranks, o);
  o.clock_offset = p->clock_offset[rank];
  GArray *inf = g_ptr_array_index (p->inferred, rank);
  o.inferred = inf->len ? inf : NULL;
  o.call_costs = p->call_costs;
  return o;
}

double
ts_calibration_calls_cpu (const TsCalibration *p, guint rank, double *wall)
{
  g_return_val_if_fail (rank < p->n_ranks, 0);
  *wall = p->calls_wall ? p->calls_wall[rank] : 0;
  return p->calls_cpu ? p->calls_cpu[rank] : 0;
}

double
ts_calibration_transfer (const TsCalibration *p, guint64 bytes)
{
  if (p->fit_samples == 0)
    return TS_CALIBRATION_DEFAULT_LATENCY + bytes / TS_CALIBRATION_DEFAULT_BANDWIDTH;
  if (p->bandwidth <= 0)
    return p->latency;
  return p->latency + bytes / (p->bandwidth * p->bandwidth_factor[ts_size_class (bytes)]);
}

gboolean
ts_calibration_to_guessed_receive (const TsCalibration *p, const TsChannel *channel, guint32 k)
{
  TsPartitionedKey key = { *channel, k };
  return g_hash_table_contains (p->to_guessed, &key);
}

gboolean
ts_calibration_to_status_receive (const TsCalibration *p, const TsChannel *channel, guint32 k)
{
  TsPartitionedKey key = { *channel, k };
  return g_hash_table_contains (p->to_status, &key);
}

guint
ts_calibration_guessed_receives (const TsCalibration *p)
{
  return g_hash_table_size (p->to_guessed);
}

guint
ts_calibration_status_receives (const TsCalibration *p)
{
  return g_hash_table_size (p->to_status);
}

gboolean
ts_calibration_unreceived (const TsCalibration *p, const TsChannel *channel, guint32 k)
{
  TsPartitionedKey key = { *channel, k };
  return g_hash_table_contains (p->unreceived, &key);
}

guint
ts_calibration_unreceived_messages (const TsCalibration *p)
{
  return g_hash_table_size (p->unreceived);
}
