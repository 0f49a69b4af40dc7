/* Per-rank logs of fixed-size records, kept in one anonymous temporary file.
 *
 * The replay produces and consumes records rank by rank but interleaved
 * across ranks (the simulation runs all ranks together), while readers and
 * writers of OTF2 want one rank at a time. A rank log bridges the two with a
 * small, fixed memory: each rank has one block buffer for appending and one
 * for reading; full blocks go to the end of a single temporary file (unlinked
 * at once, so nothing is left behind even on a crash) and are read back with
 * pread(). Memory is ranks x 2 blocks, whatever the number of records.
 *
 * Write errors are sticky: appends never fail visibly, ts_rank_log_finish()
 * reports the first one. */
#ifndef TS_RANK_LOG_H
#define TS_RANK_LOG_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct TsRankLog TsRankLog;
typedef struct TsRankLogReader TsRankLogReader;

/* A log for @n_ranks ranks of records of @record_size bytes, buffered in
 * blocks of about @block_bytes. The file goes to g_get_tmp_dir(). */
TsRankLog *ts_rank_log_new (guint n_ranks, gsize record_size, gsize block_bytes, GError **error);
void ts_rank_log_free (TsRankLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsRankLog, ts_rank_log_free)

/* Append one record to @rank's log (only before finish). Different ranks
 * may be appended to from different threads at once; one rank's appends
 * must come from one thread at a time. */
void ts_rank_log_append (TsRankLog *log, guint rank, const void *record);
/* Write out the partial blocks and release the append buffers. After this
 * the log is read-only. Returns FALSE and sets @error if any write failed. */
gboolean ts_rank_log_finish (TsRankLog *log, GError **error);
guint64 ts_rank_log_count (const TsRankLog *log, guint rank);

/* Read @rank's records in order (after finish). Several readers may be open
 * at once, on the same or different ranks. */
TsRankLogReader *ts_rank_log_reader_new (const TsRankLog *log, guint rank);
/* The next record, valid until the next call; NULL at the end (error unset)
 * or on a read error (error set). */
const void *ts_rank_log_reader_next (TsRankLogReader *reader, GError **error);
void ts_rank_log_reader_free (TsRankLogReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsRankLogReader, ts_rank_log_reader_free)

G_END_DECLS

#endif
