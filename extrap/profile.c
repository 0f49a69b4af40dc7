#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/profile.h"

#include "model/stream.h"

#include <math.h>
#include <stdlib.h>

void
ts_scale_profile_free (TsScaleProfile *p)
{
  if (!p)
    return;
  for (guint r = 0; p->traffic && r < p->n_ranks; r++)
    {
      if (p->traffic[r])
        g_array_unref (p->traffic[r]);
      if (p->partners[r])
        g_array_unref (p->partners[r]);
    }
  g_free (p->traffic);
  g_free (p->partners);
  g_clear_pointer (&p->compute, g_hash_table_unref);
  g_clear_pointer (&p->visits, g_hash_table_unref);
  g_clear_pointer (&p->collectives, g_array_unref);
  g_clear_pointer (&p->calibration, ts_calibration_free);
  g_clear_pointer (&p->trace, ts_trace_free);
  g_free (p->path);
  g_free (p);
}

static int
compare_u32 (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y;
}

static int
compare_traffic (gconstpointer a, gconstpointer b)
{
  guint32 x = ((const TsPeerTraffic *) a)->peer, y = ((const TsPeerTraffic *) b)->peer;
  return x < y ? -1 : x > y;
}

/* The per-rank array of @table's entry @name, created zeroed. */
static gpointer
per_rank (GHashTable *table, const char *name, guint n_ranks, gsize element)
{
  gpointer values = g_hash_table_lookup (table, name);
  if (!values)
    {
      values = g_malloc0 (element * n_ranks);
      g_hash_table_insert (table, g_strdup (name), values);
    }
  return values;
}

static const char *
region_name (const TsTrace *trace, guint32 region)
{
  return region < ts_trace_n_regions (trace) ? ts_trace_region_name (trace, region)
                                              : TS_PROFILE_OUTSIDE_REGIONS;
}

static TsPeerTraffic *
peer_traffic (GHashTable *by_peer, guint32 peer)
{
  TsPeerTraffic *t = g_hash_table_lookup (by_peer, GUINT_TO_POINTER (peer));
  if (!t)
    {
      t = g_new0 (TsPeerTraffic, 1);
      t->peer = peer;
      g_hash_table_insert (by_peer, GUINT_TO_POINTER (peer), t);
    }
  return t;
}

static void
count_collective (TsScaleProfile *p, GHashTable *uses, const TsAction *a)
{
  guint64 key = ((guint64) a->op << 32) | a->comm;
  gpointer index;
  if (!g_hash_table_lookup_extended (uses, &key, NULL, &index))
    {
      TsCollectiveUse u = { .op = a->op, .comm = a->comm, .root = a->peer };
      g_array_append_val (p->collectives, u);
      guint64 *k = g_memdup2 (&key, sizeof key);
      index = GUINT_TO_POINTER (p->collectives->len - 1);
      g_hash_table_insert (uses, k, index);
    }
  TsCollectiveUse *u = &g_array_index (p->collectives, TsCollectiveUse, GPOINTER_TO_UINT (index));
  u->calls++;
  u->bytes_sent += a->bytes;
  u->roots_vary |= a->peer != u->root;
}

/* A message of rank @r to or from @peer (in @a's communicator). */
static void
count_message (const TsScaleProfile *p, guint r, GHashTable *by_peer, const TsAction *a,
               gboolean send)
{
  guint world = ts_trace_comm_world_rank (p->trace, a->comm, r, (guint) a->peer);
  if (world == r)
    return;
  TsPeerTraffic *t = peer_traffic (by_peer, world);
  *(send ? &t->sent : &t->received) += 1;
  *(send ? &t->bytes_sent : &t->bytes_received) += a->bytes;
}

/* One action of rank @r into the profile; @partitioned holds its
 * partitioned requests (a message each time one is started). */
static void
profile_action (TsScaleProfile *p, guint r, const TsAction *a, GHashTable *by_peer,
                GHashTable *uses, GHashTable *partitioned)
{
  const TsTrace *trace = p->trace;
  switch (a->kind)
    {
    case TS_ACTION_ENTER:
      ((guint64 *) per_rank (p->visits, region_name (trace, a->region), p->n_ranks,
                             sizeof (guint64)))[r]++;
      break;
    case TS_ACTION_COMPUTE:
      /* Time inside an MPI call with nothing to replay (MPI_Comm_split) is
       * a burst tagged with the call itself: not the program's compute. */
      if (a->region >= ts_trace_n_regions (trace)
          || ts_trace_region_call (trace, a->region) == TS_CALL_USER)
        ((double *) per_rank (p->compute, region_name (trace, a->region), p->n_ranks,
                              sizeof (double)))[r] += a->seconds;
      break;
    case TS_ACTION_SEND:
    case TS_ACTION_ISEND:
    case TS_ACTION_RECV:
    case TS_ACTION_IRECV:
      if (a->peer >= 0 && !(a->flags & TS_ACTION_MISSING))
        count_message (p, r, by_peer, a,
                       a->kind == TS_ACTION_SEND || a->kind == TS_ACTION_ISEND);
      break;
    case TS_ACTION_COLLECTIVE:
    case TS_ACTION_ICOLLECTIVE:
      count_collective (p, uses, a);
      break;
    case TS_ACTION_PINIT:
      g_hash_table_insert (partitioned, g_memdup2 (&a->req, sizeof a->req),
                           g_memdup2 (a, sizeof *a));
      break;
    case TS_ACTION_PSTART:
      {
        const TsAction *init = g_hash_table_lookup (partitioned, &a->req);
        if (init && init->peer >= 0)
          count_message (p, r, by_peer, init, init->direction == TS_PARTITIONED_SEND);
        break;
      }
    default:
      break;
    }
}

/* Rank @r's traffic, by peer. */
static GArray *
sorted_traffic (GHashTable *by_peer)
{
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (TsPeerTraffic),
                                   g_hash_table_size (by_peer));
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, by_peer);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_array_append_vals (out, value, 1);
  g_array_sort (out, compare_traffic);
  return out;
}

static gboolean
read_ranks (TsScaleProfile *p, GError **error)
{
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (p->calibration, p->trace, error);
  if (!stream)
    return FALSE;
  g_autoptr (GHashTable) uses = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint r = 0; r < p->n_ranks; r++)
    {
      g_autoptr (GHashTable) by_peer = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      g_autoptr (GHashTable) partitioned = g_hash_table_new_full (g_int64_hash, g_int64_equal,
                                                                  g_free, g_free);
      TsAction a;
      GError *local = NULL;
      while (ts_action_stream_next (stream, r, &a, &local))
        profile_action (p, r, &a, by_peer, uses, partitioned);
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      p->traffic[r] = sorted_traffic (by_peer);
      p->partners[r] = g_array_new (FALSE, FALSE, sizeof (guint32));
    }
  /* A partner is anyone a rank sent to or received from, seen from either
   * side: a tracer that lost a receive's source still recorded its send. */
  for (guint r = 0; r < p->n_ranks; r++)
    for (guint i = 0; i < p->traffic[r]->len; i++)
      {
        guint32 q = g_array_index (p->traffic[r], TsPeerTraffic, i).peer, self = r;
        g_array_append_val (p->partners[r], q);
        if (q < p->n_ranks)
          g_array_append_val (p->partners[q], self);
      }
  for (guint r = 0; r < p->n_ranks; r++)
    {
      GArray *a = p->partners[r];
      g_array_sort (a, compare_u32);
      guint kept = 0;
      for (guint i = 0; i < a->len; i++)
        if (kept == 0 || g_array_index (a, guint32, i) != g_array_index (a, guint32, kept - 1))
          g_array_index (a, guint32, kept++) = g_array_index (a, guint32, i);
      g_array_set_size (a, kept);
    }
  return TRUE;
}

TsScaleProfile *
ts_scale_profile_read (const char *path, TsComputeClock clock, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autoptr (TsScaleProfile) p = g_new0 (TsScaleProfile, 1);
  p->path = g_strdup (path);
  p->trace = ts_trace_open (path, error);
  if (!p->trace || !ts_trace_set_compute_clock (p->trace, clock, error))
    return NULL;
  /* Its threads' work would be lost in the extrapolated trace. */
  if (ts_trace_n_threads (p->trace) > ts_trace_n_ranks (p->trace))
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_DEFINITIONS,
                   "%s: %u ranks with %u threads in all: extrapolate reads one location a "
                   "rank and would lose the others' work; traces with threads are not "
                   "extrapolated yet (doc/threads.md)", path, ts_trace_n_ranks (p->trace),
                   ts_trace_n_threads (p->trace));
      return NULL;
    }
  p->calibration = ts_calibration_compute (p->trace, error);
  if (!p->calibration)
    return NULL;
  p->n_ranks = ts_trace_n_ranks (p->trace);
  p->traffic = g_new0 (GArray *, p->n_ranks);
  p->partners = g_new0 (GArray *, p->n_ranks);
  p->compute = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p->visits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p->collectives = g_array_new (FALSE, FALSE, sizeof (TsCollectiveUse));
  if (!read_ranks (p, error))
    return NULL;
  return g_steal_pointer (&p);
}

void
ts_scale_profile_compute_stats (const TsScaleProfile *p, const char *name, double *mean,
                                double *spread)
{
  const double *x = g_hash_table_lookup (p->compute, name);
  double sum = 0, sq = 0;
  for (guint r = 0; x && r < p->n_ranks; r++)
    sum += x[r];
  double m = sum / p->n_ranks;
  for (guint r = 0; x && r < p->n_ranks; r++)
    sq += (x[r] - m) * (x[r] - m);
  *mean = m;
  *spread = m > 0 ? sqrt (sq / p->n_ranks) / m : 0;
}

double
ts_scale_profile_total_compute (const TsScaleProfile *p)
{
  double sum = 0;
  GHashTableIter it;
  gpointer x;
  g_hash_table_iter_init (&it, p->compute);
  while (g_hash_table_iter_next (&it, NULL, &x))
    for (guint r = 0; r < p->n_ranks; r++)
      sum += ((const double *) x)[r];
  return sum;
}
