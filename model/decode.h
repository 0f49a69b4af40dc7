/* Per-rank action streams, read from the trace in bounded chunks.
 *
 * A TsDecoder is one pass over a trace's events (one OTF2 reader); it
 * hands out one TsRankDecoder per rank. Each stream converts its rank's
 * events into actions lazily: memory holds a chunk of events plus the actions
 * between a receive request and the event that reveals its envelope, never the
 * whole trace.
 *
 * Conversion rules (doc/architecture.md has the full list):
 * - time outside MPI calls becomes COMPUTE bursts tagged with the innermost
 *   user region; ENTER/LEAVE become markers;
 * - point-to-point and collective events inside an MPI call become actions
 *   stamped with the call's entry time;
 * - an MPI call with nothing to replay inside (MPI_Iprobe, MPI_Comm_split,
 *   EZTrace's empty MPI_Sendrecv) becomes a COMPUTE burst of its duration,
 *   flagged TS_ACTION_MISSING when it should have carried messages;
 * - Wait/Test calls without completion events (EZTrace) complete the requests
 *   that must have completed there, flagged TS_ACTION_INFERRED. */
#ifndef TS_DECODE_H
#define TS_DECODE_H

#include <glib.h>
#include "model/action.h"
#include "model/trace.h"
#include "model/archive_writer.h"

G_BEGIN_DECLS

typedef struct TsDecoder TsDecoder;
typedef struct TsRankDecoder TsRankDecoder;

/* A receive envelope inferred for a receive whose trace did not record it. */
typedef struct {
  gint32 peer;   /* rank in comm */
  guint32 comm;
  gint32 tag;
  guint64 bytes;
} TsEnvelope;

typedef struct {
  /* Seconds added to every timestamp of this rank (clock alignment). */
  double clock_offset;
  /* Envelopes for this rank's receives that the trace never completes, in the
   * order the stream finds them unresolvable. Not owned; may be NULL. */
  const GArray *inferred;   /* TsEnvelope; peer TS_NO_RANK: no message (missing) */
  /* If set, the stream appends here, for every receive it must resolve by
   * inference, the time its completing call ended (double, seconds): the
   * message it took was sent before then. Not owned. */
  GArray *unresolved_deadlines;
  /* Per-call CPU overhead in seconds to charge on the call's first action,
   * indexed by [TsCallKind * 65 + size class]; not owned; may be NULL. */
  const double *call_costs;
} TsDecodeOptions;

/* Size class of a message: 0 for 0 bytes, else 1 + floor(log2(bytes)). */
guint ts_size_class (guint64 bytes);
#define TS_N_SIZE_CLASSES 65

/* Counters a stream keeps while converting (for `tracesim info`). */
typedef struct {
  guint64 events;
  double first_time, last_time;     /* seconds, aligned; first > last if no event */
  guint64 calls[3];                 /* MPI calls whose messages were recorded, inferred, missing */
  double call_seconds[3];           /* and the time spent in them */
  guint64 actions;
  guint64 thread_events;            /* fork, join, teams, locks, tasks: not replayed */
  guint64 teams;                    /* thread teams its own location began (OpenMP parallel
                                     * regions), of one thread too */
} TsDecodeStats;
enum { TS_INFO_RECORDED, TS_INFO_INFERRED, TS_INFO_MISSING };

TsDecoder *ts_decoder_open (const TsTrace *trace, GError **error);
/* The same for @count ranks only: @first, @first + @step, ... Only those
 * may be given to ts_decoder_rank(). OTF2 looks a location up in a list,
 * so one decoder for many ranks costs the square of the ranks: a reader of
 * the ranks one after another opens a decoder per few hundred. */
TsDecoder *ts_decoder_open_some (const TsTrace *trace, guint first, guint step, guint count,
                                 GError **error);
/* The same over the events @writer logged (model/archive_writer.h), with
 * @trace its archive's definitions (a copy without events): what OTF2 would
 * read back from the archive, without writing and reading it. */
TsDecoder *ts_decoder_open_writer (const TsTrace *trace, TsArchiveWriter *writer);
void ts_decoder_free (TsDecoder *source);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsDecoder, ts_decoder_free)

/* The stream @stream (ts_trace_n_streams: rank r's own location for r <
 * n_ranks, then the other threads that call MPI, decoded as their rank's,
 * with its communicators and @options). @options is copied (the arrays it
 * points to are not). The stream belongs to @source and is freed with it. */
TsRankDecoder *ts_decoder_rank (TsDecoder *source, guint stream,
                                const TsDecodeOptions *options);

/* Next action of the stream. Returns TRUE and fills @action, or FALSE at the
 * end of the stream (error unset) or on a read error (error set, naming the
 * trace, rank and event position). */
gboolean ts_rank_decoder_next (TsRankDecoder *stream, TsAction *action, GError **error);
/* Done with the stream of @rank: close its OTF2 reader and free the stream
 * (read its stats before). The rank cannot be asked for again. */
void ts_decoder_release (TsDecoder *source, guint rank);
const TsDecodeStats *ts_rank_decoder_stats (const TsRankDecoder *stream);

G_END_DECLS

#endif
