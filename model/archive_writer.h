/* Writing an OTF2 archive: definitions and events, one location per MPI rank
 * and, where asked, one per other thread of a rank.
 *
 * Used by the trace generator (tests and benchmarks) and by the predicted
 * timeline output of `tracesim run`. The archive is written under a temporary
 * name beside the target and renamed into place by ts_archive_writer_close(), so
 * a failed or abandoned write leaves nothing half-written behind.
 *
 * Times are seconds (double) from the start of the run; they are stored in
 * nanosecond ticks. Events of one rank must be written in non-decreasing time.
 *
 * Error contract: functions taking GError** return FALSE/0 and set it on
 * failure. Definitions may be added at any time before close; events may refer only
 * to definitions that already exist. */
#ifndef TS_ARCHIVE_WRITER_H
#define TS_ARCHIVE_WRITER_H

#include <glib.h>
#include "model/action.h"
#include "model/partitioned.h"
#include "model/event-sink.h"

G_BEGIN_DECLS

typedef struct TsArchiveWriter TsArchiveWriter;

typedef enum {
  TS_REGION_USER,     /* paradigm USER, role FUNCTION */
  TS_REGION_MPI,      /* paradigm MPI, role FUNCTION (or COLL_* for collectives) */
  TS_REGION_TEAM_BARRIER, /* paradigm OpenMP, role BARRIER: a thread team's barrier */
} TsRegionKind;

/* Start writing an archive whose anchor file will be <dir>/<name>.otf2.
 * @dir is created if needed. Returns NULL and sets @error on failure. */
TsArchiveWriter *ts_archive_writer_new (const char *dir, const char *name,
                                        guint n_ranks, GError **error);
/* The same, where rank r has @threads[r] threads, its own included
 * (@threads NULL: one each): its other threads are locations of its
 * process, written as OpenMP threads, with the rank's thread team as a
 * communicator of their own. Events of thread k of rank r are logged at
 * location ts_archive_writer_thread (w, r, k), wherever a function below
 * takes a @rank. */
TsArchiveWriter *ts_archive_writer_new_threads (const char *dir, const char *name,
                                                guint n_ranks, const guint *threads,
                                                GError **error);
/* Where thread @k (0: the rank's own) of @rank logs its events. */
guint ts_archive_writer_thread (const TsArchiveWriter *w, guint rank, guint k);
/* A thread's part in its rank's thread team begins or ends at @time
 * (OTF2's THREAD_TEAM_BEGIN and _END; @location as given by
 * ts_archive_writer_thread). */
void ts_archive_writer_team_begin (TsArchiveWriter *w, guint location, double time);
void ts_archive_writer_team_end (TsArchiveWriter *w, guint location, double time);
/* The rank's own thread forks a team of @threads threads (its own
 * included) before its team begins, and joins it after it ends (OTF2's
 * THREAD_FORK and _JOIN, OpenMP paradigm). */
void ts_archive_writer_thread_fork (TsArchiveWriter *w, guint location, double time,
                                    guint threads);
void ts_archive_writer_thread_join (TsArchiveWriter *w, guint location, double time);
/* The thread at @location takes (or, @release, gives back) OpenMP lock
 * @lock at @time, its @order-th acquisition (OTF2's THREAD_ACQUIRE_LOCK
 * and THREAD_RELEASE_LOCK). */
void ts_archive_writer_lock (TsArchiveWriter *w, guint location, double time, guint32 lock,
                             guint32 order, gboolean release);
/* The tracer of the trace this archive was made from (its OTF2 creator):
 * the archive's creator becomes "tracesim X (from @origin)", so that a
 * reader counts its collective bytes as @origin did. */
void ts_archive_writer_set_origin (TsArchiveWriter *w, const char *origin);
/* The archive is a predicted execution (a replay's timeline, not a
 * recording): it carries TS_PREDICTION_PROPERTY, by which readers analyse
 * its waiting as predicted (ts_trace_is_prediction). */
void ts_archive_writer_set_prediction (TsArchiveWriter *w);
/* The node (host) @rank ran on, written as a system tree node of class
 * "node" as Score-P does; set for every rank or for none. */
void ts_archive_writer_set_node (TsArchiveWriter *w, guint rank, const char *node);
/* The cores of host @node (given to set_node), written as its
 * TS_TRACE_NODE_CORES property as tracesim-record writes it. */
void ts_archive_writer_set_node_cores (TsArchiveWriter *w, const char *node, guint cores);

/* Definitions. Return the new id (0, 1, ...). Names are copied. The same name
 * given twice returns the same id. */
guint32 ts_archive_writer_define_region (TsArchiveWriter *w, const char *name,
                                         TsRegionKind kind);
/* OTF2's canonical name of @region (copied): the name as the source trace
 * wrote it, e.g. a C++ name's mangled form, where the region is named
 * demangled (as Score-P writes them when it demangles). Default: the name. */
void ts_archive_writer_set_region_canonical (TsArchiveWriter *w, guint32 region,
                                             const char *canonical);
/* A communicator with @n members given as world ranks (copied). The world
 * communicator (all ranks in order) is defined by ts_archive_writer_new() and
 * has id 0. The same name and members give the same id; the same name with
 * other members is a communicator of its own (EZTrace names a
 * communicator by its id on the rank that made it: MPI_COMM_3 on rank 0 and
 * on rank 1 are different ones). */
guint32 ts_archive_writer_define_comm (TsArchiveWriter *w, const char *name,
                                       guint n, const guint32 *world_ranks);
/* A metric (double, accumulated start) per rank, for wait-state counters. */
guint32 ts_archive_writer_define_metric (TsArchiveWriter *w, const char *name,
                                         const char *unit);

/* Events of rank @rank at @time seconds. Peers/roots are ranks in @comm. */
void ts_archive_writer_enter (TsArchiveWriter *w, guint rank, double time, guint32 region);
void ts_archive_writer_leave (TsArchiveWriter *w, guint rank, double time, guint32 region);
void ts_archive_writer_send (TsArchiveWriter *w, guint rank, double time,
                             guint32 dst, guint32 comm, guint32 tag, guint64 bytes);
void ts_archive_writer_recv (TsArchiveWriter *w, guint rank, double time,
                             guint32 src, guint32 comm, guint32 tag, guint64 bytes);
void ts_archive_writer_isend (TsArchiveWriter *w, guint rank, double time,
                              guint32 dst, guint32 comm, guint32 tag, guint64 bytes,
                              guint64 req);
void ts_archive_writer_isend_complete (TsArchiveWriter *w, guint rank, double time,
                                       guint64 req);
void ts_archive_writer_irecv_request (TsArchiveWriter *w, guint rank, double time,
                                      guint64 req);
void ts_archive_writer_irecv (TsArchiveWriter *w, guint rank, double time,
                              guint32 src, guint32 comm, guint32 tag, guint64 bytes,
                              guint64 req);
/* The same, with @src as a tracer may have written it: unchecked (OTF2's
 * uint32 of MPI_PROC_NULL, an uninitialised MPI_Status), for test traces. */
void ts_archive_writer_irecv_status (TsArchiveWriter *w, guint rank, double time,
                                     guint32 src, guint32 comm, guint32 tag, guint64 bytes,
                                     guint64 req);
void ts_archive_writer_request_test (TsArchiveWriter *w, guint rank, double time,
                                     guint64 req);
/* MPI_Cancel took effect: the wait or test that completes @req. */
void ts_archive_writer_request_cancelled (TsArchiveWriter *w, guint rank, double time,
                                          guint64 req);
void ts_archive_writer_collective_begin (TsArchiveWriter *w, guint rank, double time);
/* @root is a rank in @comm or TS_NO_RANK. */
void ts_archive_writer_collective_end (TsArchiveWriter *w, guint rank, double time,
                                       TsCollectiveOp op, guint32 comm, gint32 root,
                                       guint64 sent, guint64 received);
/* An event of MPI-4 partitioned communication (doc/event-model.md): for the
 * INIT events @peer_or_partition is the peer (rank in @comm) and @comm, @tag,
 * @bytes (whole message), @partitions are written; for PREADY, PARRIVED and
 * PTESTED it is the partition; the others carry only @req. */
void ts_archive_writer_partitioned (TsArchiveWriter *w, guint rank, double time,
                                    TsPartitionedEvent event, guint64 req,
                                    guint32 peer_or_partition, guint32 comm, guint32 tag,
                                    guint64 bytes, guint32 partitions);
/* A non-blocking collective: posted (MPI_I<op>), then completed (in a wait). */
void ts_archive_writer_nbc_request (TsArchiveWriter *w, guint rank, double time, guint64 req);
void ts_archive_writer_nbc_complete (TsArchiveWriter *w, guint rank, double time,
                                     TsCollectiveOp op, guint32 comm, gint32 root,
                                     guint64 sent, guint64 received, guint64 req);
void ts_archive_writer_metric (TsArchiveWriter *w, guint rank, double time,
                               guint32 metric, double value);

/* Write the archive's global definitions as they stand to
 * <dir>/<name>.otf2, without any location's events or files: for
 * ts_trace_open_definitions() and a reader of the events through
 * ts_archive_writer_feed_new(). Events may still be logged afterwards:
 * the definitions are all made before the replay logs any. */
gboolean ts_archive_writer_write_definitions (TsArchiveWriter *w, const char *dir,
                                              GError **error);
/* The events logged for @rank, handed to a reader's callbacks as OTF2
 * would read them from the written archive (model/event-sink.h): the
 * predicted execution analysed with no archive in between. A feed may be
 * read on another thread while the replay logs: it waits for the events
 * to come, until ts_archive_writer_end_events(). No late event may have
 * been added when it is made. NULL and @error if the events could not be
 * kept. */
typedef struct TsArchiveFeed TsArchiveFeed;
TsArchiveFeed *ts_archive_writer_feed_new (TsArchiveWriter *w, guint rank, GError **error);
/* Up to @max events to @sink's functions with @user_data: how many, fewer
 * than @max at the end or when a function did not return success; -1 and
 * @error when they could not be read. */
gint ts_archive_feed_next (TsArchiveFeed *feed, const TsEventSink *sink, void *user_data,
                           guint max, GError **error);
void ts_archive_feed_free (TsArchiveFeed *feed);
/* No more events will be logged (only late ones): the feeds see their end.
 * FALSE and @error if the logged events could not be kept. */
gboolean ts_archive_writer_end_events (TsArchiveWriter *w, GError **error);

/* Start creating the archive's files (an event and a definition file per
 * rank, empty) on a thread of their own, so that close finds them made
 * (model/archive_files.c). Call it after any fork: a thread does not
 * follow one. Close, abort and write_definitions wait for the thread. */
void ts_archive_writer_create_files_beside (TsArchiveWriter *w);

/* A metric value found after the events were logged (a wait state of the
 * predicted timeline); merged in time order when the archive is written. */
void ts_archive_writer_late_metric (TsArchiveWriter *w, guint rank, double time, guint32 metric,
                                    double value);
/* A region entered at @start and left at @end, added late: nested inside
 * whatever the logged events have open at those times (a wait-state span
 * inside its MPI call). Spans of one rank must come in time order. */
void ts_archive_writer_late_region (TsArchiveWriter *w, guint rank, double start, double end,
                                    guint32 region);
/* Write the definitions, close the archive and rename it into place.
 * Frees @w whatever the outcome. */
gboolean ts_archive_writer_close (TsArchiveWriter *w, GError **error);
/* Abandon: remove the temporary archive and free @w. NULL is ignored. */
void ts_archive_writer_abort (TsArchiveWriter *w);

G_END_DECLS

#endif
