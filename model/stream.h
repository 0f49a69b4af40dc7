/* A rank's actions as every stage after calibration reads them.
 *
 * The calibration's first pass keeps the actions it decoded in a spool (an
 * anonymous temporary file, see spool.h) whenever they need no envelope
 * inference; later stages then read them from there instead of decoding the
 * OTF2 trace a second time, with one small buffer per rank instead of one OTF2
 * chunk per rank (256 KiB to 1 MiB each, which is what made 1024-rank replays
 * cost gigabytes). Otherwise (EZTrace traces whose receives must be inferred)
 * the stream decodes the trace again with the per-rank decode options.
 *
 * Either way the actions are the same: what the decode options say (clock
 * offset, the CPU cost of each MPI call on the call's first action) applied,
 * to the rounding of a duration taken from shifted or unshifted times.
 * The calibration opens streams with its own options
 * (ts_calibration_stream_open); this module knows nothing of calibration. */
#ifndef TS_STREAM_H
#define TS_STREAM_H

#include <glib.h>
#include "model/decode.h"
#include "model/spool.h"
#include "model/trace.h"

G_BEGIN_DECLS

typedef struct TsActionStream TsActionStream;

/* Streams of every rank of @trace. @spool (may be NULL: decode the trace)
 * holds TsAction records as decoded with no options; @options[rank] is
 * applied to them. Neither is copied: both must outlive the stream. */
TsActionStream *ts_action_stream_open (const TsTrace *trace, const TsSpool *spool,
                                       const TsDecodeOptions *options, GError **error);
/* Streams of the events @writer logged, decoded with no options (a
 * predicted execution: nothing to infer, no clocks to align), @trace its
 * definitions (ts_archive_writer_write_definitions). */
TsActionStream *ts_action_stream_open_writer (const TsTrace *trace, TsArchiveWriter *writer);
void ts_action_stream_free (TsActionStream *stream);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsActionStream, ts_action_stream_free)

/* How many streams it has: one per rank (stream r is rank r's own
 * location), then one per thread that calls MPI (ts_trace_n_streams,
 * ts_trace_stream_rank: their actions are their rank's, with its
 * communicators and decode options). */
guint ts_action_stream_n (const TsActionStream *stream);
/* Next action of stream @rank: TRUE and @action filled, or FALSE at the end
 * of its actions (error unset) or on a read error (error set). Streams may
 * be read in any interleaving. */
gboolean ts_action_stream_next (TsActionStream *stream, guint rank, TsAction *action,
                                GError **error);

/* For a reader that interleaves ranks (the replay): a thread decodes each
 * rank's next actions from the spool while the reader takes the ones
 * before, in two batches a rank using at most @budget bytes in all. Nothing
 * happens when the actions are not spooled, or when @budget would give
 * batches too small to be worth it (many ranks): then the reads decode, as
 * before. The actions read are the same either way. Once started, ranks
 * must be read from one thread. */
void ts_action_stream_read_ahead (TsActionStream *stream, gsize budget);

/* TRUE if the actions come from the spool rather than the trace. */
gboolean ts_action_stream_is_spooled (const TsActionStream *stream);

G_END_DECLS

#endif
