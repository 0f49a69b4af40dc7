/* The spool: per-rank sequences of fixed-size records (a multiple of 8
 * bytes), packed and kept in one anonymous temporary file.
 *
 * The replay produces and consumes records rank by rank but interleaved
 * across ranks (the simulation runs all ranks together), while readers and
 * writers of OTF2 want one rank at a time. A spool bridges the two with a
 * small memory: each rank has one block buffer for appending and each reader
 * one for reading; full blocks go to the end of a single temporary file
 * (unlinked at once, so nothing is left behind even on a crash) and are read
 * back with pread(). Whatever the number of records, memory is bounded, and
 * sized from what the ranks hold: an append buffer starts at two records
 * and doubles up to a block, a reader's holds the block it reads (nothing
 * once it has read the last), and a block is at most 32 MiB divided by the
 * ranks (at least two records), so that all ranks' buffers together stay
 * near 32 MiB however many ranks there are.
 *
 * Write errors are sticky: appends never fail visibly, ts_spool_finish()
 * reports the first one. */
#ifndef TS_SPOOL_H
#define TS_SPOOL_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct TsSpool TsSpool;
typedef struct TsSpoolReader TsSpoolReader;

/* A log for @n_ranks ranks of records of @record_size bytes (a multiple of
 * 8), buffered in blocks of at most @block_bytes (at most 16 MiB; less with
 * many ranks, see above). The file goes to g_get_tmp_dir(). */
TsSpool *ts_spool_new (guint n_ranks, gsize record_size, gsize block_bytes, GError **error);
void ts_spool_free (TsSpool *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsSpool, ts_spool_free)

/* Append one record to @rank's log (only before finish). Different ranks
 * may be appended to from different threads at once; one rank's appends
 * must come from one thread at a time. */
void ts_spool_append (TsSpool *log, guint rank, const void *record);
/* Pack appended records on a thread of the spool's own: ts_spool_append()
 * then only copies the record into a batch of its rank, and full batches
 * are packed in the order they came, two batches a rank within @budget
 * bytes (an append waits when all are full). Nothing happens where
 * @budget gives batches of fewer than 16 records (many ranks). Readers
 * see the records once packed; finish packs what is left first. For one
 * appending thread only, before the first append, which starts the
 * thread (so the caller may still fork in between). */
void ts_spool_pack_behind (TsSpool *log, gsize budget);
/* Write out the partial blocks and release the append buffers. After this
 * the log is read-only. Returns FALSE and sets @error if any write failed. */
gboolean ts_spool_finish (TsSpool *log, GError **error);
guint64 ts_spool_count (const TsSpool *log, guint rank);
/* For tests and benchmarks: the bytes the append buffers of all ranks hold
 * now (not while ranks are appended to). */
gsize ts_spool_buffer_bytes (const TsSpool *log);

/* Read @rank's records in order. Several readers may be open at once, on
 * the same or different ranks. A reader may also read while another thread
 * appends: it gets the records of the blocks written so far, waits for the
 * next block when it has read them, and sees the end once the spool is
 * finished (the last, partial blocks are written then). */
TsSpoolReader *ts_spool_reader_new (const TsSpool *log, guint rank);
/* The next record, valid until the next call; NULL at the end (error unset)
 * or on a read error (error set). */
const void *ts_spool_reader_next (TsSpoolReader *reader, GError **error);
void ts_spool_reader_free (TsSpoolReader *reader);
/* For tests and benchmarks: the bytes @reader's block buffer holds now. */
gsize ts_spool_reader_buffer_bytes (const TsSpoolReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsSpoolReader, ts_spool_reader_free)

/* Keeping a finished spool in a file of the caller's (a cache that outlives
 * the process): copy its records into @fd from *@offset on, advancing it,
 * and return the index that finds them again (a floating GVariant). */
GVariant *ts_spool_export (const TsSpool *log, int fd, guint64 *offset, GError **error);
/* A finished, read-only spool over what ts_spool_export() wrote into @fd
 * (duplicated; the caller keeps its own), described by @index. The index
 * is checked against @n_ranks, @record_size and @file_size: NULL and
 * @error when it does not fit them. */
TsSpool *ts_spool_import (int fd, guint64 file_size, GVariant *index, guint n_ranks,
                          gsize record_size, GError **error);

G_END_DECLS

#endif
