/* MPI_Waitany in a changed world: it completes the request the simulation
 * finishes first among those it could have been given, not the one the
 * trace names (doc/architecture.md, "MPI_Waitany completes what finishes
 * first"), and the trace's later completions follow the swap. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"
#include "sim/world.h"

/* The request a completion of the trace stands for: its own, unless an
 * MPI_Waitany completed it earlier in the simulated world in place of
 * another (ts_waitany_choose), which this completion then completes (@take:
 * the swap is used up). */
guint64
ts_rank_request_for (TsRank *rk, guint64 req, gboolean take)
{
  gpointer other;
  if (!rk->swapped || !g_hash_table_lookup_extended (rk->swapped, &req, NULL, &other))
    return req;
  guint64 id = *(guint64 *) other;
  if (take)
    g_hash_table_remove (rk->swapped, &req);
  return id;
}

/* MPI_Waitany's choice: its candidates, the requests in flight that could
 * stand in the array it was given (OTF2 records the one it completed, not
 * the array): posted by the same kind of call on the same communicator as
 * the trace's, in flight and not a non-blocking collective's. Into
 * x->any, the trace's first; their number. */
guint
ts_waitany_candidates (TsProgress *x)
{
  TsRank *rk = x->rk;
  const TsRequest *mine = x->request;
  if (!rk->any)
    {
      rk->any = g_ptr_array_new ();
      rk->any_comms = g_ptr_array_new ();
    }
  g_ptr_array_set_size (rk->any, 0);
  g_ptr_array_add (rk->any, x->request);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, rk->requests);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      TsRequest *r = value;
      if (r != mine && r->comm && !r->helper && r->post.kind == mine->post.kind
          && r->post.comm == mine->post.comm)
        g_ptr_array_add (rk->any, r);
    }
  g_ptr_array_set_size (rk->any_comms, 0);
  for (guint i = 0; i < rk->any->len; i++)
    g_ptr_array_add (rk->any_comms, ((TsRequest *) g_ptr_array_index (rk->any, i))->comm);
  return rk->any->len;
}

/* The candidate MPI_Waitany completes once one is done: the trace's if it
 * is, else the one posted first (the library scans the array in order,
 * which programs fill in posting order). Another than the trace's swaps
 * places with it: the trace's completion of the one chosen will complete
 * the trace's (ts_rank_request_for). */
TsRequest *
ts_waitany_choose (TsProgress *x)
{
  TsRank *rk = x->rk;
  TsRequest *pick = NULL;
  for (guint i = 0; i < rk->any->len; i++)
    {
      TsRequest *r = g_ptr_array_index (rk->any, i);
      if (!rk->sim->world->done (r->comm))
        continue;
      if (i == 0)
        return r;
      if (!pick || r->post.time < pick->post.time)
        pick = r;
    }
  g_assert (pick);
  if (!rk->swapped)
    rk->swapped = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_hash_table_replace (rk->swapped, g_memdup2 (&pick->id, sizeof pick->id),
                        g_memdup2 (&x->request->id, sizeof x->request->id));
  return pick;
}

/* Request @req completed here: a completion of the trace an MPI_Waitany
 * gave it to (request_for) completes nothing more. */
static gboolean
swapped_to (gpointer key, gpointer value, gpointer req)
{
  return *(guint64 *) value == *(guint64 *) req;
}

void
ts_rank_forget_swaps_to (TsRank *rk, guint64 req)
{
  if (rk->swapped)
    g_hash_table_foreach_remove (rk->swapped, swapped_to, &req);
}

