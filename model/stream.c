#include <config.h>

#define G_LOG_DOMAIN "ts-stream"

#include "model/stream.h"

struct TsActionStream {
  const TsTrace *trace;
  const TsDecodeOptions *options; /* per rank */
  guint n_ranks;
  TsSpoolReader **spooled;     /* per rank, when there is a spool */
  TsDecoder *decoder;          /* otherwise */
  TsRankDecoder **ranks;
};

TsActionStream *
ts_action_stream_open (const TsTrace *trace, const TsSpool *spool,
                       const TsDecodeOptions *options, GError **error)
{
  TsActionStream *f = g_new0 (TsActionStream, 1);
  f->trace = trace;
  f->options = options;
  f->n_ranks = ts_trace_n_ranks (trace);
  if (spool)
    {
      f->spooled = g_new0 (TsSpoolReader *, f->n_ranks);
      for (guint r = 0; r < f->n_ranks; r++)
        f->spooled[r] = ts_spool_reader_new (spool, r);
      return f;
    }
  f->decoder = ts_decoder_open (trace, error);
  if (!f->decoder)
    {
      ts_action_stream_free (f);
      return NULL;
    }
  f->ranks = g_new0 (TsRankDecoder *, f->n_ranks);
  for (guint r = 0; r < f->n_ranks; r++)
    f->ranks[r] = ts_decoder_rank (f->decoder, r, &options[r]);
  return f;
}

TsActionStream *
ts_action_stream_open_writer (const TsTrace *trace, TsArchiveWriter *writer)
{
  TsActionStream *f = g_new0 (TsActionStream, 1);
  f->trace = trace;
  f->n_ranks = ts_trace_n_ranks (trace);
  f->decoder = ts_decoder_open_writer (trace, writer);
  f->ranks = g_new0 (TsRankDecoder *, f->n_ranks);
  for (guint r = 0; r < f->n_ranks; r++)
    f->ranks[r] = ts_decoder_rank (f->decoder, r, NULL);
  return f;
}

void
ts_action_stream_free (TsActionStream *f)
{
  if (!f)
    return;
  if (f->spooled)
    for (guint r = 0; r < f->n_ranks; r++)
      ts_spool_reader_free (f->spooled[r]);
  g_free (f->spooled);
  g_free (f->ranks);
  if (f->decoder)
    ts_decoder_free (f->decoder);
  g_free (f);
}

gboolean
ts_action_stream_next (TsActionStream *f, guint rank, TsAction *a, GError **error)
{
  g_return_val_if_fail (rank < f->n_ranks, FALSE);
  if (!f->spooled)
    return ts_rank_decoder_next (f->ranks[rank], a, error);
  const TsAction *raw = ts_spool_reader_next (f->spooled[rank], error);
  if (!raw)
    return FALSE;
  /* The spool holds the actions decoded without options: apply them here,
   * exactly as the decoder would have. */
  *a = *raw;
  const TsDecodeOptions *o = &f->options[rank];
  a->time += o->clock_offset;
  if (a->kind == TS_ACTION_COLLECTIVE)
    a->end += o->clock_offset;
  if ((a->flags & TS_ACTION_CALL_FIRST) && o->call_costs)
    a->seconds = o->call_costs[ts_trace_region_call (f->trace, a->call) * TS_N_SIZE_CLASSES
                               + a->size_class];
  return TRUE;
}

gboolean
ts_action_stream_is_spooled (const TsActionStream *f)
{
  return f->spooled != NULL;
}
