#include <config.h>

/* A calibration kept on disk, so that every point of a sweep, each of its
 * Slurm tasks and each resume read the first pass instead of making it again.
 * Everything but the spooled actions is one GVariant dictionary; the actions
 * are copied into the caller's file beside it (ts_spool_export). The
 * variant is checked field by field against the trace it claims to be of:
 * a damaged or foreign one is refused, never trusted. */
#include "calibrate/calibration-private.h"

#include <gio/gio.h>
#include <string.h>

#define ENVELOPE_TYPE "(iuit)"
#define KEY_TYPE "(uuiuu)"
#define PAIR_TYPE "(uuiuuuut)"
#define STATS_TYPE "(tddtttdddttt)"

static GVariant *
doubles (const double *v, gsize n)
{
  return g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, v, n, sizeof (double));
}

static GVariant *
keys (GHashTable *set)
{
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE ("a" KEY_TYPE));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, set);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      const TsPartitionedKey *key = k;
      g_variant_builder_add (&b, KEY_TYPE, key->channel.src, key->channel.dst, key->channel.comm,
                             key->channel.tag, key->k);
    }
  return g_variant_builder_end (&b);
}

static GVariant *
pairs (GHashTable *map)
{
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE ("a" PAIR_TYPE));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, map);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      const TsPartitionedKey *key = k;
      const TsPartitionedPair *pair = v;
      g_variant_builder_add (&b, PAIR_TYPE, key->channel.src, key->channel.dst, key->channel.comm,
                             key->channel.tag, key->k, pair->send_partitions, pair->recv_partitions,
                             pair->bytes);
    }
  return g_variant_builder_end (&b);
}

static GVariant *
envelopes (const GPtrArray *inferred)
{
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE ("aa" ENVELOPE_TYPE));
  for (guint r = 0; r < inferred->len; r++)
    {
      const GArray *a = g_ptr_array_index (inferred, r);
      g_variant_builder_open (&b, G_VARIANT_TYPE ("a" ENVELOPE_TYPE));
      for (guint i = 0; i < a->len; i++)
        {
          const TsEnvelope *e = &g_array_index (a, TsEnvelope, i);
          g_variant_builder_add (&b, ENVELOPE_TYPE, e->peer, e->comm, e->tag, e->bytes);
        }
      g_variant_builder_close (&b);
    }
  return g_variant_builder_end (&b);
}

static GVariant *
stats (const TsDecodeStats *s, guint n)
{
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE ("a" STATS_TYPE));
  for (guint r = 0; r < n; r++)
    g_variant_builder_add (&b, STATS_TYPE, s[r].events, s[r].first_time, s[r].last_time,
                           s[r].calls[0], s[r].calls[1], s[r].calls[2], s[r].call_seconds[0],
                           s[r].call_seconds[1], s[r].call_seconds[2], s[r].actions,
                           s[r].thread_events, s[r].teams);
  return g_variant_builder_end (&b);
}

static GVariant *
network (const TsCalibration *p)
{
  return g_variant_new ("(ddu(ddu)(ddu)@ad@ad)", p->latency, p->bandwidth, p->fit_samples,
                        p->placed_fit[0].latency, p->placed_fit[0].bandwidth,
                        p->placed_fit[0].samples, p->placed_fit[1].latency,
                        p->placed_fit[1].bandwidth, p->placed_fit[1].samples,
                        doubles (&p->placed_min[0][0], 2 * TS_N_SIZE_CLASSES),
                        doubles (p->bandwidth_factor, TS_N_SIZE_CLASSES));
}

static GVariant *
phases (const GArray *list)
{
  GVariantBuilder b;
  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(uudtt)"));
  for (guint i = 0; list && i < list->len; i++)
    {
      const TsPhase *f = &g_array_index (list, TsPhase, i);
      g_variant_builder_add (&b, "(uudtt)", f->call, f->caller, f->compute, f->bursts, f->ranks);
    }
  return g_variant_builder_end (&b);
}

static gboolean
load_outermost (GVariantDict *d, TsCalibration *p)
{
  g_autoptr (GVariant) v = g_variant_dict_lookup_value (d, "region_outermost", G_VARIANT_TYPE ("ay"));
  gsize n = 0;
  const guint8 *b = v ? g_variant_get_fixed_array (v, &n, 1) : NULL;
  if (!v || n != p->n_regions)
    return FALSE;
  p->region_outermost = g_malloc0 (MAX (n, 1));
  if (n > 0)
    memcpy (p->region_outermost, b, n);
  return TRUE;
}

/* The phases, in the order they were saved (most compute first), whose
 * regions must exist in the trace. */
static gboolean
load_phases (GVariantDict *d, TsCalibration *p)
{
  g_autoptr (GVariant) v = g_variant_dict_lookup_value (d, "phases", G_VARIANT_TYPE ("a(uudtt)"));
  if (!v)
    return FALSE;
  p->phases = g_array_new (FALSE, FALSE, sizeof (TsPhase));
  GVariantIter it;
  TsPhase f;
  g_variant_iter_init (&it, v);
  while (g_variant_iter_next (&it, "(uudtt)", &f.call, &f.caller, &f.compute, &f.bursts, &f.ranks))
    {
      if (f.call >= p->n_regions || (f.caller != TS_NO_REGION && f.caller >= p->n_regions))
        return FALSE;
      g_array_append_val (p->phases, f);
    }
  return TRUE;
}

GVariant *
ts_calibration_save (const TsCalibration *p, int fd, guint64 *offset, GError **error)
{
  GVariantDict d;
  g_variant_dict_init (&d, NULL);
  if (p->spool)
    {
      GVariant *index = ts_spool_export (p->spool, fd, offset, error);
      if (!index)
        {
          g_variant_dict_clear (&d);
          return NULL;
        }
      g_variant_dict_insert_value (&d, "spool", index);
    }
  g_variant_dict_insert (&d, "ranks", "u", p->n_ranks);
  g_variant_dict_insert (&d, "regions", "u", p->n_regions);
  g_variant_dict_insert_value (&d, "clock_offset", doubles (p->clock_offset, p->n_ranks));
  g_variant_dict_insert (&d, "clocks", "(buub)", p->clocks.aligned, p->clocks.sync_violations,
                         p->clocks.coll_repairs, p->clocks.drift);
  g_variant_dict_insert_value (&d, "inferred", envelopes (p->inferred));
  g_variant_dict_insert_value (&d, "to_guessed", keys (p->to_guessed));
  g_variant_dict_insert_value (&d, "to_status", keys (p->to_status));
  g_variant_dict_insert_value (&d, "unreceived", keys (p->unreceived));
  g_variant_dict_insert_value (&d, "partitioned", pairs (p->partitioned));
  g_variant_dict_insert_value (&d, "call_costs",
                               doubles (p->call_costs, TS_CALL_N_KINDS * TS_N_SIZE_CLASSES));
  g_variant_dict_insert_value (&d, "call_min",
                               doubles (p->call_min, (gsize) p->n_regions * TS_N_SIZE_CLASSES * 2));
  g_variant_dict_insert (&d, "timing", "(dd)", p->start, p->runtime);
  g_variant_dict_insert_value (&d, "rank_end", doubles (p->rank_end, p->n_ranks));
  g_variant_dict_insert_value (&d, "calls_cpu", doubles (p->calls_cpu, p->n_ranks));
  g_variant_dict_insert_value (&d, "calls_wall", doubles (p->calls_wall, p->n_ranks));
  g_variant_dict_insert_value (&d, "rank_stats", stats (p->rank_stats, p->n_ranks));
  g_variant_dict_insert_value (&d, "network", network (p));
  g_variant_dict_insert (&d, "largest_blocking_send", "t", p->largest_blocking_send);
  g_variant_dict_insert_value (&d, "region_visits",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_UINT64, p->region_visits,
                                                          p->n_regions, sizeof (guint64)));
  g_variant_dict_insert_value (&d, "region_seconds", doubles (p->region_seconds, p->n_regions));
  g_variant_dict_insert_value (&d, "region_compute", doubles (p->region_compute, p->n_regions));
  g_variant_dict_insert_value (&d, "phases", phases (p->phases));
  g_variant_dict_insert_value (&d, "region_outermost",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, p->region_outermost,
                                                          p->n_regions, 1));
  g_variant_dict_insert (&d, "binomial", "(uuuu)", (guint) p->binomial_tree,
                         p->binomial_contradictions[0], p->binomial_contradictions[1],
                         p->binomial_samples);
  return g_variant_dict_end (&d);
}

/* The array of @n doubles under @key, copied into @out (allocated when
 * *@out is NULL); FALSE when it is missing or of another length. */
static gboolean
load_doubles (GVariantDict *d, const char *key, gsize n, double **out)
{
  g_autoptr (GVariant) v = g_variant_dict_lookup_value (d, key, G_VARIANT_TYPE ("ad"));
  gsize got = 0;
  const double *src = v ? g_variant_get_fixed_array (v, &got, sizeof (double)) : NULL;
  if (!v || got != n)
    return FALSE;
  if (!*out)
    *out = g_new0 (double, MAX (n, 1));
  if (n > 0)
    memcpy (*out, src, n * sizeof (double));
  return TRUE;
}

static gboolean
load_keys (GVariantDict *d, const char *key, GHashTable *set, GHashTable *pair_map)
{
  g_autoptr (GVariant) v
    = g_variant_dict_lookup_value (d, key, G_VARIANT_TYPE (pair_map ? "a" PAIR_TYPE : "a" KEY_TYPE));
  if (!v)
    return FALSE;
  GVariantIter it;
  g_variant_iter_init (&it, v);
  TsPartitionedKey k = { 0 };
  TsPartitionedPair pair = { 0 };
  if (!pair_map)
    while (g_variant_iter_next (&it, KEY_TYPE, &k.channel.src, &k.channel.dst, &k.channel.comm,
                                &k.channel.tag, &k.k))
      g_hash_table_add (set, g_memdup2 (&k, sizeof k));
  else
    while (g_variant_iter_next (&it, PAIR_TYPE, &k.channel.src, &k.channel.dst, &k.channel.comm,
                                &k.channel.tag, &k.k, &pair.send_partitions,
                                &pair.recv_partitions, &pair.bytes))
      g_hash_table_insert (pair_map, g_memdup2 (&k, sizeof k), g_memdup2 (&pair, sizeof pair));
  return TRUE;
}

static gboolean
load_envelopes (GVariantDict *d, TsCalibration *p, const TsTrace *trace)
{
  g_autoptr (GVariant) v = g_variant_dict_lookup_value (d, "inferred",
                                                        G_VARIANT_TYPE ("aa" ENVELOPE_TYPE));
  if (!v || g_variant_n_children (v) != p->n_ranks)
    return FALSE;
  for (guint r = 0; r < p->n_ranks; r++)
    {
      g_autoptr (GVariant) rank = g_variant_get_child_value (v, r);
      GArray *a = g_ptr_array_index (p->inferred, r);
      GVariantIter it;
      g_variant_iter_init (&it, rank);
      TsEnvelope e;
      while (g_variant_iter_next (&it, ENVELOPE_TYPE, &e.peer, &e.comm, &e.tag, &e.bytes))
        {
          /* The replay indexes communicators by these. */
          if (e.comm >= ts_trace_n_comms (trace))
            return FALSE;
          g_array_append_val (a, e);
        }
    }
  return TRUE;
}

static gboolean
load_stats (GVariantDict *d, TsCalibration *p)
{
  g_autoptr (GVariant) v = g_variant_dict_lookup_value (d, "rank_stats",
                                                        G_VARIANT_TYPE ("a" STATS_TYPE));
  if (!v || g_variant_n_children (v) != p->n_ranks)
    return FALSE;
  for (guint r = 0; r < p->n_ranks; r++)
    {
      TsDecodeStats *s = &p->rank_stats[r];
      g_variant_get_child (v, r, STATS_TYPE, &s->events, &s->first_time, &s->last_time,
                           &s->calls[0], &s->calls[1], &s->calls[2], &s->call_seconds[0],
                           &s->call_seconds[1], &s->call_seconds[2], &s->actions,
                           &s->thread_events, &s->teams);
    }
  return TRUE;
}

static gboolean
load_network (GVariantDict *d, TsCalibration *p)
{
  g_autoptr (GVariant) v = g_variant_dict_lookup_value (d, "network",
                                                        G_VARIANT_TYPE ("(ddu(ddu)(ddu)adad)"));
  if (!v)
    return FALSE;
  g_autoptr (GVariant) placed_min = NULL, factors = NULL;
  g_variant_get (v, "(ddu(ddu)(ddu)@ad@ad)", &p->latency, &p->bandwidth, &p->fit_samples,
                 &p->placed_fit[0].latency, &p->placed_fit[0].bandwidth,
                 &p->placed_fit[0].samples, &p->placed_fit[1].latency,
                 &p->placed_fit[1].bandwidth, &p->placed_fit[1].samples, &placed_min, &factors);
  gsize n_min = 0, n_factors = 0;
  const double *min = g_variant_get_fixed_array (placed_min, &n_min, sizeof (double));
  const double *f = g_variant_get_fixed_array (factors, &n_factors, sizeof (double));
  if (n_min != 2 * TS_N_SIZE_CLASSES || n_factors != TS_N_SIZE_CLASSES)
    return FALSE;
  memcpy (&p->placed_min[0][0], min, sizeof p->placed_min);
  memcpy (p->bandwidth_factor, f, sizeof p->bandwidth_factor);
  return TRUE;
}

static gboolean
load_fields (GVariantDict *d, TsCalibration *p, const TsTrace *trace)
{
  gboolean clocks_aligned = FALSE, clocks_drift = FALSE;
  guint tree = 0;
  gsize visits = 0;
  g_autoptr (GVariant) v = g_variant_dict_lookup_value (d, "region_visits", G_VARIANT_TYPE ("at"));
  const guint64 *visit = v ? g_variant_get_fixed_array (v, &visits, sizeof (guint64)) : NULL;
  if (!v || visits != p->n_regions
      || !load_doubles (d, "clock_offset", p->n_ranks, &p->clock_offset)
      || !load_doubles (d, "rank_end", p->n_ranks, &p->rank_end)
      || !load_doubles (d, "calls_cpu", p->n_ranks, &p->calls_cpu)
      || !load_doubles (d, "calls_wall", p->n_ranks, &p->calls_wall)
      || !load_doubles (d, "call_costs", TS_CALL_N_KINDS * TS_N_SIZE_CLASSES, &p->call_costs)
      || !load_doubles (d, "call_min", (gsize) p->n_regions * TS_N_SIZE_CLASSES * 2, &p->call_min)
      || !load_doubles (d, "region_seconds", p->n_regions, &p->region_seconds)
      || !load_doubles (d, "region_compute", p->n_regions, &p->region_compute)
      || !load_phases (d, p) || !load_outermost (d, p)
      || !g_variant_dict_lookup (d, "clocks", "(buub)", &clocks_aligned,
                                 &p->clocks.sync_violations, &p->clocks.coll_repairs, &clocks_drift)
      || !g_variant_dict_lookup (d, "timing", "(dd)", &p->start, &p->runtime)
      || !g_variant_dict_lookup (d, "largest_blocking_send", "t", &p->largest_blocking_send)
      || !g_variant_dict_lookup (d, "binomial", "(uuuu)", &tree, &p->binomial_contradictions[0],
                                 &p->binomial_contradictions[1], &p->binomial_samples)
      || tree >= TS_BINOMIAL_N_TREES || !load_envelopes (d, p, trace) || !load_stats (d, p)
      || !load_network (d, p) || !load_keys (d, "to_guessed", p->to_guessed, NULL)
      || !load_keys (d, "to_status", p->to_status, NULL)
      || !load_keys (d, "unreceived", p->unreceived, NULL)
      || !load_keys (d, "partitioned", NULL, p->partitioned))
    return FALSE;
  p->clocks.aligned = clocks_aligned;
  p->clocks.drift = clocks_drift;
  p->binomial_tree = tree;
  p->region_visits = g_new0 (guint64, MAX (visits, 1));
  if (visits > 0)
    memcpy (p->region_visits, visit, visits * sizeof (guint64));
  return TRUE;
}

TsCalibration *
ts_calibration_load (const TsTrace *trace, GVariant *saved, int fd, guint64 file_size,
                     GError **error)
{
  guint n = ts_trace_n_ranks (trace);
  g_autoptr (TsCalibration) p = g_new0 (TsCalibration, 1);
  p->n_ranks = n;
  p->n_regions = ts_trace_n_regions (trace);
  p->rank_stats = g_new0 (TsDecodeStats, n);
  p->inferred = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint r = 0; r < n; r++)
    g_ptr_array_add (p->inferred, g_array_new (FALSE, FALSE, sizeof (TsEnvelope)));
  p->partitioned = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, g_free);
  p->to_guessed = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, NULL);
  p->to_status = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, NULL);
  p->unreceived = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, NULL);
  g_auto (GVariantDict) d;
  g_variant_dict_init (&d, saved);
  guint ranks = 0, regions = 0;
  gboolean ok = g_variant_is_of_type (saved, G_VARIANT_TYPE_VARDICT)
                && g_variant_dict_lookup (&d, "ranks", "u", &ranks) && ranks == n
                && g_variant_dict_lookup (&d, "regions", "u", &regions) && regions == p->n_regions
                && load_fields (&d, p, trace);
  g_autoptr (GVariant) index = ok ? g_variant_dict_lookup_value (&d, "spool", NULL) : NULL;
  if (ok && index
      && !(p->spool = ts_spool_import (fd, file_size, index, n, sizeof (TsAction), error)))
    return NULL;
  if (!ok)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the saved first pass does not fit the trace's definitions");
      return NULL;
    }
  p->decode_options = g_new (TsDecodeOptions, n);
  for (guint r = 0; r < n; r++)
    p->decode_options[r] = ts_calibration_decode_options (p, r);
  return g_steal_pointer (&p);
}
