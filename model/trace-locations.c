/* Which OTF2 locations are ranks, and which are their threads.
 *
 * An MPI + OpenMP (or pthreads) trace has several CPU-thread locations per
 * process: a rank is a process (an OTF2 location group), its threads are the
 * CPU threads of that group. Tracers say which location is the rank's MPI
 * one in a COMM_LOCATIONS group of the MPI paradigm (Score-P, EZTrace,
 * tracesim-record); other paradigms have groups of the same type (Score-P's
 * OpenMP group lists every thread), which are never a rank list: taking one
 * made every thread a rank. Without an MPI group each process is a rank, and
 * its location is its first CPU thread that has events: a thread with none
 * (a zero-event location some writers define) would be a rank that never
 * starts. A process whose threads all have no events is no rank. */
#include <config.h>

#define G_LOG_DOMAIN "ts-trace"

#include "model/trace-private.h"

#include <string.h>

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* The CPU-thread locations of each location group, sorted by id:
 * group ref + 1 -> GArray of OTF2_LocationRef. */
static GHashTable *
threads_by_group (GHashTable *locations)
{
  GHashTable *by_group = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                (GDestroyNotify) g_array_unref);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, locations);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const TsRawLocation *loc = value;
      if (loc->type != OTF2_LOCATION_TYPE_CPU_THREAD)
        continue;
      gpointer gk = GUINT_TO_POINTER (loc->group + 1);
      GArray *threads = g_hash_table_lookup (by_group, gk);
      if (!threads)
        {
          threads = g_array_new (FALSE, FALSE, sizeof (OTF2_LocationRef));
          g_hash_table_insert (by_group, gk, threads);
        }
      g_array_append_val (threads, *(OTF2_LocationRef *) key);
    }
  GHashTableIter gi;
  g_hash_table_iter_init (&gi, by_group);
  while (g_hash_table_iter_next (&gi, NULL, &value))
    g_array_sort (value, compare_u64);
  return by_group;
}

/* Without an MPI rank list: each location group with a CPU thread that has
 * events is a rank, in group order; its location is the first such thread. */
static GArray *
ranks_from_groups (GHashTable *locations, GHashTable *by_group)
{
  GArray *gids = g_array_new (FALSE, FALSE, sizeof (guint64));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, by_group);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      guint64 g = GPOINTER_TO_UINT (key);
      g_array_append_val (gids, g);
    }
  g_array_sort (gids, compare_u64);
  GArray *locs = g_array_new (FALSE, FALSE, sizeof (OTF2_LocationRef));
  for (guint i = 0; i < gids->len; i++)
    {
      GArray *threads = g_hash_table_lookup (by_group, GUINT_TO_POINTER (
                                                         (guint) g_array_index (gids, guint64, i)));
      for (guint k = 0; k < threads->len; k++)
        {
          OTF2_LocationRef ref = g_array_index (threads, OTF2_LocationRef, k);
          const TsRawLocation *loc = g_hash_table_lookup (locations, &ref);
          if (loc->n_events > 0)
            {
              g_array_append_val (locs, ref);
              break;
            }
        }
    }
  g_array_unref (gids);
  return locs;
}

/* Every rank's other threads, and what no rank holds. */
static void
place_threads (TsTrace *t, GHashTable *locations, GHashTable *by_group,
               const OTF2_LocationGroupRef *groups)
{
  t->thread_location = g_array_new (FALSE, FALSE, sizeof (OTF2_LocationRef));
  t->rank_thread_start = g_new (guint, t->n_ranks + 1);
  g_autoptr (GHashTable) placed = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint r = 0; r < t->n_ranks; r++)
    g_hash_table_add (placed, &g_array_index (t->rank_location, OTF2_LocationRef, r));
  for (guint r = 0; r < t->n_ranks; r++)
    {
      t->rank_thread_start[r] = t->thread_location->len;
      /* Two ranks in one location group (a writer without processes) share
       * no thread: each location is placed once. */
      GArray *threads = g_hash_table_lookup (by_group, GUINT_TO_POINTER (groups[r] + 1));
      for (guint k = 0; threads && k < threads->len; k++)
        {
          OTF2_LocationRef *ref = &g_array_index (threads, OTF2_LocationRef, k);
          if (g_hash_table_contains (placed, ref))
            continue;
          g_hash_table_add (placed, ref);
          g_array_append_val (t->thread_location, *ref);
        }
    }
  t->rank_thread_start[t->n_ranks] = t->thread_location->len;
  t->n_unplaced_locations = g_hash_table_size (locations) - g_hash_table_size (placed);
}

OTF2_LocationGroupRef *
ts_trace_resolve_locations (TsTrace *t, GHashTable *locations, const GArray *world,
                            GError **error)
{
  g_autoptr (GHashTable) by_group = threads_by_group (locations);
  GArray *locs;
  if (world && world->len > 0)
    {
      locs = g_array_sized_new (FALSE, FALSE, sizeof (OTF2_LocationRef), world->len);
      g_array_append_vals (locs, world->data, world->len);
    }
  else
    locs = ranks_from_groups (locations, by_group);

  for (guint r = 0; r < locs->len; r++)
    {
      OTF2_LocationRef ref = g_array_index (locs, OTF2_LocationRef, r);
      if (!g_hash_table_contains (locations, &ref))
        {
          g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_DEFINITIONS,
                       "%s: rank %u is location %" G_GUINT64_FORMAT
                       ", which is not defined", t->path, r, (guint64) ref);
          g_array_unref (locs);
          return NULL;
        }
    }
  if (locs->len == 0)
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_DEFINITIONS,
                   "%s: no MPI rank found (no CPU thread location with events is defined)",
                   t->path);
      g_array_unref (locs);
      return NULL;
    }
  t->rank_location = locs;
  t->n_ranks = locs->len;
  OTF2_LocationGroupRef *groups = g_new (OTF2_LocationGroupRef, t->n_ranks);
  for (guint r = 0; r < t->n_ranks; r++)
    groups[r] = ((TsRawLocation *) g_hash_table_lookup (
                   locations, &g_array_index (locs, OTF2_LocationRef, r)))->group;
  place_threads (t, locations, by_group, groups);
  return groups;
}

guint
ts_trace_rank_n_threads (const TsTrace *t, guint rank)
{
  g_return_val_if_fail (rank < t->n_ranks, 0);
  return 1 + t->rank_thread_start[rank + 1] - t->rank_thread_start[rank];
}

guint64
ts_trace_rank_thread_location (const TsTrace *t, guint rank, guint thread)
{
  g_return_val_if_fail (rank < t->n_ranks && thread < ts_trace_rank_n_threads (t, rank), 0);
  if (thread == 0)
    return g_array_index (t->rank_location, OTF2_LocationRef, rank);
  return g_array_index (t->thread_location, OTF2_LocationRef,
                        t->rank_thread_start[rank] + thread - 1);
}

guint
ts_trace_n_threads (const TsTrace *t)
{
  return t->n_ranks + t->thread_location->len;
}

guint
ts_trace_n_streams (const TsTrace *t)
{
  return t->n_ranks + (t->thread_scan ? t->thread_scan->mpi_threads->len : 0);
}

guint
ts_trace_stream_rank (const TsTrace *t, guint stream)
{
  g_return_val_if_fail (stream < ts_trace_n_streams (t), 0);
  if (stream < t->n_ranks)
    return stream;
  return (guint) (g_array_index (t->thread_scan->mpi_threads, guint64, stream - t->n_ranks) >> 32);
}

guint
ts_trace_stream_thread (const TsTrace *t, guint stream)
{
  g_return_val_if_fail (stream < ts_trace_n_streams (t), 0);
  if (stream < t->n_ranks)
    return 0;
  return (guint) (g_array_index (t->thread_scan->mpi_threads, guint64, stream - t->n_ranks)
                  & 0xffffffffu);
}

gboolean
ts_trace_stream_in_teams (const TsTrace *t, guint stream)
{
  g_return_val_if_fail (stream < ts_trace_n_streams (t), FALSE);
  return stream >= t->n_ranks
         && g_array_index (t->thread_scan->mpi_in_teams, gboolean, stream - t->n_ranks);
}

gint
ts_trace_thread_stream (const TsTrace *t, guint rank, guint thread)
{
  if (thread == 0)
    return rank < t->n_ranks ? (gint) rank : -1;
  if (!t->thread_scan)
    return -1;
  /* The scan keeps them sorted (rank and thread order). */
  guint64 key = (guint64) rank << 32 | thread;
  guint i;
  if (g_array_binary_search (t->thread_scan->mpi_threads, &key, compare_u64, &i))
    return (gint) (t->n_ranks + i);
  return -1;
}

void
ts_trace_copy_streams (TsTrace *copy, const TsTrace *original)
{
  if (!original->thread_scan || original->thread_scan->mpi_threads->len == 0
      || copy->n_ranks != original->n_ranks)
    return;
  g_clear_pointer (&copy->thread_scan, ts_thread_scan_free);
  TsThreadScan *scan = g_new0 (TsThreadScan, 1);
  scan->n_ranks = copy->n_ranks;
  scan->rank = g_new0 (TsThreadCount, scan->n_ranks);
  scan->mpi_threads = g_array_new (FALSE, FALSE, sizeof (guint64));
  scan->mpi_in_teams = g_array_new (FALSE, FALSE, sizeof (gboolean));
  const GArray *m = original->thread_scan->mpi_threads;
  for (guint i = 0; i < m->len; i++)
    {
      guint64 key = g_array_index (m, guint64, i);
      if ((key & 0xffffffffu) < ts_trace_rank_n_threads (copy, (guint) (key >> 32)))
        {
          g_array_append_val (scan->mpi_threads, key);
          g_array_append_val (scan->mpi_in_teams,
                              g_array_index (original->thread_scan->mpi_in_teams, gboolean, i));
        }
    }
  copy->thread_scan = scan;
}

const TsThreadScan *
ts_trace_thread_scan (const TsTrace *t)
{
  return t->thread_scan;
}

guint
ts_trace_n_unplaced_locations (const TsTrace *t)
{
  return t->n_unplaced_locations;
}

guint
ts_trace_n_foreign_comms (const TsTrace *t)
{
  return g_hash_table_size (t->foreign_comms);
}

const char *
ts_trace_foreign_comm (const TsTrace *t, OTF2_CommRef ref)
{
  return g_hash_table_lookup (t->foreign_comms, GUINT_TO_POINTER (ref + 1));
}

gboolean
ts_region_is_team_barrier (const char *name, OTF2_RegionRole role, OTF2_Paradigm paradigm)
{
  if ((role == OTF2_REGION_ROLE_BARRIER || role == OTF2_REGION_ROLE_IMPLICIT_BARRIER)
      && paradigm != OTF2_PARADIGM_MPI)
    return TRUE;
  /* Score-P's and tracesim-record's names, the runtimes' entry points, and
   * EZTrace 2's (its OMPT and GOMP modules write barriers as user
   * functions with these names). */
  return g_str_has_prefix (name, "!$omp barrier") || g_str_has_prefix (name, "!$omp implicit barrier")
         || g_str_has_prefix (name, "!$omp ibarrier") || strcmp (name, "GOMP_barrier") == 0
         || strcmp (name, "__kmpc_barrier") == 0 || strcmp (name, "OpenMP barrier") == 0
         || strcmp (name, "OpenMP implicit barrier") == 0;
}

gboolean
ts_region_is_team_task (const char *name)
{
  /* EZTrace 2's OMPT module: a thread's part of each team, the only mark
   * of the team on its workers (no THREAD_TEAM_BEGIN / END there). */
  return strcmp (name, "OpenMP implicit task") == 0;
}

gboolean
ts_trace_region_team_task (const TsTrace *t, guint region)
{
  g_return_val_if_fail (region < t->regions->len, FALSE);
  return ((TsRegion *) t->regions->pdata[region])->team_task;
}

gboolean
ts_trace_region_team_barrier (const TsTrace *t, guint region)
{
  g_return_val_if_fail (region < t->regions->len, FALSE);
  return ((TsRegion *) t->regions->pdata[region])->team_barrier;
}

gboolean
ts_trace_location_has_events (const TsTrace *trace, guint64 loc)
{
  g_autofree char *dir = g_strndup (trace->path, strlen (trace->path)
                                                   - (g_str_has_suffix (trace->path, ".otf2")
                                                        ? 5 : 0));
  g_autofree char *file = g_strdup_printf ("%s/%" G_GUINT64_FORMAT ".evt", dir, loc);
  return g_file_test (file, G_FILE_TEST_EXISTS);
}
