/* Internals shared by the archive writer's files: what it records before
 * close writes it out as OTF2 (archive_writer.c: events; archive_defs.c:
 * definitions). */
#ifndef TS_ARCHIVE_PRIVATE_H
#define TS_ARCHIVE_PRIVATE_H

#include "model/archive_writer.h"
#include "model/output_dir.h"
#include "model/spool.h"

#include <otf2/otf2.h>

#define TS_TICKS_PER_SECOND 1000000000.0
/* Slips up to this many ticks are rounding, not disorder. */
#define TS_ROUNDING_TICKS 10

typedef struct {
  char *name;
  char *canonical;  /* OTF2's canonical name where it differs; NULL: the name */
  TsRegionKind kind;
} TsRegionDef;

typedef struct {
  char *name;
  GArray *members;  /* guint32 world ranks */
} TsCommDef;

typedef struct {
  char *name;
  char *unit;
} TsMetricDef;

typedef enum {
  EV_ENTER, EV_LEAVE, EV_SEND, EV_RECV, EV_ISEND, EV_ISEND_COMPLETE, EV_IRECV_REQUEST,
  EV_IRECV, EV_REQUEST_TEST, EV_COLL_BEGIN, EV_COLL_END, EV_METRIC, EV_NBC_REQUEST,
  EV_NBC_COMPLETE, EV_PARTITIONED, EV_REQUEST_CANCELLED, EV_TEAM_BEGIN, EV_TEAM_END,
  EV_THREAD_FORK, EV_THREAD_JOIN, EV_LOCK_ACQUIRE, EV_LOCK_RELEASE, /* the last */
} EventType;

/* A late event ordered before the logged events of its tick (EventRecord.op). */
#define LATE_BEFORE 1

/* One event as logged; which fields mean what depends on the type. */
typedef struct {
  guint64 tick;
  guint8 type;      /* EventType */
  guint8 op;        /* collective end: TsCollectiveOp */
  guint32 ref;      /* region, peer, root (OTF2_UNDEFINED_UINT32 for none) or metric */
  guint32 comm;
  guint32 tag;
  guint64 bytes;    /* bytes, or sent for a collective */
  guint64 extra;    /* request id, received bytes, or the metric value's bits */
  guint64 req;      /* non-blocking collective completion: its request id;
                     * partitioned: the number of partitions (op = the event,
                     * ref = peer or partition, extra = request id) */
} EventRecord;
/* Spooled records are packed by 8-byte words (model/spool.h). */
G_STATIC_ASSERT (sizeof (EventRecord) % 8 == 0);

struct TsArchiveWriter {
  TsOutputDir *out;     /* NULL once committed or discarded */
  const char *tmp_dir;  /* where OTF2 writes until close renames it; owned by out */
  char *name;
  char *creator;
  gboolean prediction;       /* TS_PREDICTION_PROPERTY written */
  guint n_ranks;
  /* Locations: the ranks' own (index = rank), then their other threads
   * (ts_archive_writer_new_threads), rank by rank. */
  guint n_locations;
  guint *rank_threads;        /* per rank: its threads, its own included; NULL: one each */
  guint *rank_first_thread;   /* per rank: the index of its thread 1 (if it has one) */
  guint *thread_rank;         /* per location beyond the ranks: its rank */
  guint *thread_number;       /* and its thread number there (1, 2, ...) */
  TsSpool *events;          /* EventRecord per location, written out by close */
  TsSpool *late;            /* events added after the replay (wait-state metrics) */
  guint64 *last_tick;         /* per location: time must not go backwards */
  guint64 max_tick;
  gboolean uses_partitioned;  /* define the partitioned parameters and attributes */
  guint64 n_clamped;
  GError *error;              /* first failure while writing events */
  GError *late_error;         /* the same for late events, which the predicted wait
                               * states' thread adds while the replay logs (read
                               * by close, after it) */

  GPtrArray *regions;         /* TsRegionDef*, index = id */
  GHashTable *region_ids;     /* name (borrowed from regions) -> id + 1 */
  GPtrArray *comms;           /* TsCommDef*, index = id, 0 = world */
  GPtrArray *metrics;         /* TsMetricDef*, index = id */
  char **rank_nodes;          /* host name per rank, or NULL: none recorded */
  GHashTable *node_cores;     /* host name -> its cores (guint), or NULL: none recorded */

  GThread *files;             /* creating the archive's files (archive_files.c) */
  gint files_stop;            /* atomic: the writer is discarded, stop creating */
};

/* Wait for the thread creating the archive's files, if there is one; with
 * @stop, it stops at the next file (the writer is being discarded). */
void ts_archive_files_join (TsArchiveWriter *w, gboolean stop);
/* Once OTF2 has opened the archive (and made its empty directory): the
 * files made in advance take its place. The staging directory is gone
 * afterwards, whatever happened. */
void ts_archive_files_install (TsArchiveWriter *w);

/* The definition chunk size for the largest group an archive of @n_ranks
 * defines: the locations, or a communicator of @comms (TsCommDef; NULL:
 * none yet). See model/otf2-chunk.h. 0 with @error set, naming @dir, when
 * no chunk OTF2 allows can hold it. */
guint64 ts_archive_def_chunk_size (guint n_ranks, const GPtrArray *comms, const char *dir,
                                   GError **error);

/* Write the global definitions of @w's archive, with @n_events[rank] events
 * per location, and with @with_events the empty local definition files
 * readers expect. Without, the definitions alone: a copy to read the
 * events through a feed while they are logged, which declares the
 * partitioned encoding before any event may use it. */
gboolean ts_archive_write_definitions (TsArchiveWriter *w, OTF2_Archive *archive,
                                       const char *dir, const guint64 *n_events,
                                       gboolean with_events, GError **error);
/* Set @error and return TRUE if @status is a failure of @what on @path. */
gboolean ts_archive_otf2_failed (OTF2_ErrorCode status, GError **error, const char *path,
                                 const char *what);

/* Write each rank's logged events (w->events, merged with w->late) as its
 * location's event file in @archive (opened for writing at @dir, with
 * OTF2's locks), counting them into @n_events[rank]. Several threads
 * write, one file each. FALSE and @error (the lowest failing rank's) if
 * any failed. */
gboolean ts_archive_write_events (TsArchiveWriter *w, OTF2_Archive *archive, const char *dir,
                                  guint64 *n_events, GError **error);

/* The OTF2 location of location @index: a rank's own is its rank, its
 * thread k's (k << 32) | rank, as tracesim-record numbers them. */
OTF2_LocationRef ts_archive_location_ref (const TsArchiveWriter *w, guint index);
/* The communicator id of @rank's thread team (defined after w->comms). */
guint32 ts_archive_team_comm (const TsArchiveWriter *w, guint rank);

/* A partitioned event's fields as its attributes, into the empty @attrs. */
void ts_archive_partitioned_attributes (OTF2_AttributeList *attrs, const EventRecord *ev);

#endif
