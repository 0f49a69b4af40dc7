#include <config.h>

#define G_LOG_DOMAIN "ts-feed"

#include "model/stream.h"
#include "model/spool.h"

struct TsActionFeed {
  const TsTrace *trace;
  const TsProfile *profile;
  guint n_ranks;
  TsRankLogReader **spooled;   /* per rank, when the profile kept a spool */
  TsEventSource *source;       /* otherwise */
  TsActionStream **streams;
};

TsActionFeed *
ts_action_feed_open (const TsTrace *trace, const TsProfile *profile, GError **error)
{
  TsActionFeed *f = g_new0 (TsActionFeed, 1);
  f->trace = trace;
  f->profile = profile;
  f->n_ranks = profile->n_ranks;
  if (profile->spool)
    {
      f->spooled = g_new0 (TsRankLogReader *, f->n_ranks);
      for (guint r = 0; r < f->n_ranks; r++)
        f->spooled[r] = ts_rank_log_reader_new (profile->spool, r);
      return f;
    }
  f->source = ts_event_source_open (trace, error);
  if (!f->source)
    {
      ts_action_feed_free (f);
      return NULL;
    }
  f->streams = g_new0 (TsActionStream *, f->n_ranks);
  for (guint r = 0; r < f->n_ranks; r++)
    {
      TsStreamOptions so = ts_profile_stream_options (profile, r);
      f->streams[r] = ts_event_source_stream (f->source, r, &so);
    }
  return f;
}

void
ts_action_feed_free (TsActionFeed *f)
{
  if (!f)
    return;
  if (f->spooled)
    for (guint r = 0; r < f->n_ranks; r++)
      ts_rank_log_reader_free (f->spooled[r]);
  g_free (f->spooled);
  g_free (f->streams);
  if (f->source)
    ts_event_source_free (f->source);
  g_free (f);
}

gboolean
ts_action_feed_next (TsActionFeed *f, guint rank, TsAction *a, GError **error)
{
  g_return_val_if_fail (rank < f->n_ranks, FALSE);
  if (!f->spooled)
    return ts_action_stream_next (f->streams[rank], a, error);
  const TsAction *raw = ts_rank_log_reader_next (f->spooled[rank], error);
  if (!raw)
    return FALSE;
  /* The spool holds the first pass's actions: apply what the profile learnt
   * after it, exactly as a stream with the profile's options would. */
  *a = *raw;
  a->time += f->profile->clock_offset[rank];
  if (a->flags & TS_ACTION_CALL_FIRST)
    a->seconds = f->profile->call_costs[ts_trace_region_call (f->trace, a->call)
                                        * TS_N_SIZE_CLASSES + a->size_class];
  return TRUE;
}

gboolean
ts_action_feed_is_spooled (const TsActionFeed *f)
{
  return f->spooled != NULL;
}
