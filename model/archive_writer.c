#include <config.h>

#define G_LOG_DOMAIN "tracesim-archive"

#include "model/archive-private.h"
#include "model/trace.h"

#include <errno.h>
#include <sys/statvfs.h>
#include <gio/gio.h>
#include <math.h>
#include <otf2/otf2.h>
/* OTF2's pthread locks are static functions in its header: the reader's
 * is not used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <otf2/OTF2_Pthread_Locks.h>
#pragma GCC diagnostic pop
#include <string.h>

/* Events are buffered in chunks, one per rank (see chunk_allocate). OTF2
 * clears a whole chunk whenever it starts one (and a reader allocates chunks of
 * the size the file was written with), so the smallest chunk OTF2 allows is
 * also the fastest here: callgrind showed a third of a 64-rank replay in
 * memset with the 1 MiB / 4 MiB defaults. */
#define TS_EVT_CHUNK OTF2_CHUNK_SIZE_MIN
/* Definition chunks are sized for the largest group (ts_archive_def_chunk_size). */
static void
region_def_free (gpointer p)
{
  TsRegionDef *r = p;
  g_free (r->name);
  g_free (r->canonical);
  g_free (r);
}

static void
comm_def_free (gpointer p)
{
  TsCommDef *c = p;
  g_free (c->name);
  g_array_unref (c->members);
  g_free (c);
}

static void
metric_def_free (gpointer p)
{
  TsMetricDef *m = p;
  g_free (m->name);
  g_free (m->unit);
  g_free (m);
}

static void
writer_free (TsArchiveWriter *w)
{
  ts_archive_files_join (w, TRUE);
  ts_output_dir_discard (w->out);
  g_free (w->name);
  g_free (w->creator);
  ts_spool_free (w->events);
  ts_spool_free (w->late);
  g_free (w->last_tick);
  g_free (w->rank_threads);
  g_free (w->rank_first_thread);
  g_free (w->thread_rank);
  g_free (w->thread_number);
  g_clear_error (&w->error);
  g_clear_error (&w->late_error);
  /* A writer whose spool could not be created has no containers yet. */
  g_clear_pointer (&w->regions, g_ptr_array_unref);
  g_clear_pointer (&w->region_ids, g_hash_table_unref);
  g_clear_pointer (&w->comms, g_ptr_array_unref);
  g_clear_pointer (&w->metrics, g_ptr_array_unref);
  if (w->rank_nodes)
    for (guint r = 0; r < w->n_ranks; r++)
      g_free (w->rank_nodes[r]);
  g_clear_pointer (&w->rank_nodes, g_free);
  g_clear_pointer (&w->node_cores, g_hash_table_unref);
  g_free (w);
}

/* The system's reason for a failed write when it is one OTF2 hides behind
 * "INTEGRITY_FAULT": the errno its last write left, or a file system
 * with no room left; 0 when the failure was something else. */
static int
write_failure_errno (OTF2_ErrorCode status, int saved, const char *path)
{
  /* OTF2's own names for them first; a stale errno means nothing unless the
   * failure is one a write gives. */
  switch (status)
    {
    case OTF2_ERROR_ENOSPC: return ENOSPC;
    case OTF2_ERROR_EDQUOT: return EDQUOT;
    case OTF2_ERROR_EIO: return EIO;
    case OTF2_ERROR_EFBIG: return EFBIG;
    case OTF2_ERROR_INTEGRITY_FAULT:
    case OTF2_ERROR_FILE_INTERACTION:
      break;
    default:
      return 0;
    }
  if (saved == ENOSPC || saved == EDQUOT || saved == EIO || saved == EFBIG || saved == EROFS)
    return saved;
  struct statvfs fs;
  if (statvfs (path, &fs) == 0 && fs.f_bavail == 0)
    return ENOSPC;
  return 0;
}

gboolean
ts_archive_otf2_failed (OTF2_ErrorCode status, GError **error, const char *path, const char *what)
{
  int saved = errno;
  if (status == OTF2_SUCCESS)
    return FALSE;
  g_autofree char *shown = ts_output_dir_user_path (path);
  int why = write_failure_errno (status, saved, path);
  if (why)
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (why),
                 "%s: cannot write the trace: %s", shown, g_strerror (why));
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s failed: %s (%s)", shown, what,
                 OTF2_Error_GetName (status), OTF2_Error_GetDescription (status));
  return TRUE;
}

static OTF2_FlushType
pre_flush (void *user_data, OTF2_FileType file_type, OTF2_LocationRef location,
           void *caller_data, bool final)
{
  return OTF2_FLUSH;
}

/* No post-flush callback: OTF2 would then record BufferFlush events, but a
 * flush of a generated trace takes no time in the run it describes. */
static const OTF2_FlushCallbacks flush_callbacks = {
  .otf2_pre_flush = pre_flush,
  .otf2_post_flush = NULL,
};

/* OTF2 flushes an event buffer only when allocating a chunk fails, and its
 * own allocator allows 128 MiB per rank before failing. Refusing a second
 * event chunk makes it write each chunk out as soon as it is full, so memory
 * stays at one chunk per rank (plus OTF2's file write buffer, about 3 MiB per
 * rank once it has flushed) whatever the length of the trace. Definition
 * buffers are left unlimited: they are written once, at close. */
static void *
chunk_allocate (void *user_data, OTF2_FileType file_type, OTF2_LocationRef location,
                void **per_buffer, uint64_t size)
{
  GPtrArray *chunks = *per_buffer;
  if (!chunks)
    *per_buffer = chunks = g_ptr_array_new ();
  if (file_type == OTF2_FILETYPE_EVENTS && chunks->len >= 1)
    return NULL;
  void *chunk = g_try_malloc (size);
  if (chunk)
    g_ptr_array_add (chunks, chunk);
  return chunk;
}

static void
chunk_free_all (void *user_data, OTF2_FileType file_type, OTF2_LocationRef location,
                void **per_buffer, bool final)
{
  GPtrArray *chunks = *per_buffer;
  if (!chunks)
    return;
  for (guint i = 0; i < chunks->len; i++)
    g_free (g_ptr_array_index (chunks, i));
  g_ptr_array_set_size (chunks, 0);
  if (final)
    {
      g_ptr_array_unref (chunks);
      *per_buffer = NULL;
    }
}

static const OTF2_MemoryCallbacks memory_callbacks = {
  .otf2_allocate = chunk_allocate,
  .otf2_free_all = chunk_free_all,
};

TsArchiveWriter *
ts_archive_writer_new (const char *dir, const char *name, guint n_ranks, GError **error)
{
  return ts_archive_writer_new_threads (dir, name, n_ranks, NULL, error);
}

/* The ranks' other threads as locations after the ranks' own. */
static void
place_threads (TsArchiveWriter *w, const guint *threads)
{
  guint n = w->n_ranks;
  for (guint r = 0; threads && r < w->n_ranks; r++)
    n += MAX (threads[r], 1) - 1;
  w->n_locations = n;
  if (n == w->n_ranks)
    return;
  w->rank_threads = g_new (guint, w->n_ranks);
  w->rank_first_thread = g_new0 (guint, w->n_ranks);
  w->thread_rank = g_new (guint, n - w->n_ranks);
  w->thread_number = g_new (guint, n - w->n_ranks);
  guint next = w->n_ranks;
  for (guint r = 0; r < w->n_ranks; r++)
    {
      w->rank_threads[r] = MAX (threads[r], 1);
      w->rank_first_thread[r] = next;
      for (guint k = 1; k < w->rank_threads[r]; k++, next++)
        {
          w->thread_rank[next - w->n_ranks] = r;
          w->thread_number[next - w->n_ranks] = k;
        }
    }
}

TsArchiveWriter *
ts_archive_writer_new_threads (const char *dir, const char *name, guint n_ranks,
                               const guint *threads, GError **error)
{
  g_return_val_if_fail (dir != NULL && *dir != '\0', NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (n_ranks > 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (*name == '\0' || strchr (name, '/') || strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: invalid archive name '%s'", dir, name);
      return NULL;
    }

  /* Refused before anything is made, not after the run. */
  if (ts_archive_def_chunk_size (n_ranks, NULL, dir, error) == 0)
    return NULL;
  TsOutputDir *out = ts_output_dir_new (dir, error);
  if (!out)
    return NULL;

  TsArchiveWriter *w = g_new0 (TsArchiveWriter, 1);
  w->out = out;
  w->tmp_dir = ts_output_dir_get_tmp_path (out);
  w->name = g_strdup (name);
  w->creator = g_strdup (PACKAGE_STRING);
  w->n_ranks = n_ranks;
  place_threads (w, threads);
  /* Events are logged, not given to OTF2 as they come: OTF2 needs a buffer
   * per location being written, and one per rank costs 256 KiB x ranks. */
  w->events = ts_spool_new (w->n_locations, sizeof (EventRecord), 16384, error);
  if (!w->events)
    goto fail;
  /* Packing the events took a tenth of a 64-rank replay: on another core,
   * within 16 MiB (none from about 10,900 ranks on). */
  ts_spool_pack_behind (w->events, 16u << 20);
  w->last_tick = g_new0 (guint64, w->n_locations);
  w->regions = g_ptr_array_new_with_free_func (region_def_free);
  w->region_ids = g_hash_table_new (g_str_hash, g_str_equal);
  w->comms = g_ptr_array_new_with_free_func (comm_def_free);
  w->metrics = g_ptr_array_new_with_free_func (metric_def_free);

  TsCommDef *world = g_new0 (TsCommDef, 1);
  world->name = g_strdup ("MPI_COMM_WORLD");
  world->members = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n_ranks);
  for (guint32 r = 0; r < n_ranks; r++)
    g_array_append_val (world->members, r);
  g_ptr_array_add (w->comms, world);

  return w;

fail:
  ts_archive_writer_abort (w);
  return NULL;
}

/* The OTF2 archive is opened only to write the logged events out. */
static OTF2_Archive *
open_archive (TsArchiveWriter *w, const char *dir, GError **error)
{
  guint64 def_chunk = ts_archive_def_chunk_size (w->n_locations, w->comms, dir, error);
  if (def_chunk == 0)
    return NULL;
  OTF2_Archive *archive = OTF2_Archive_Open (dir, w->name, OTF2_FILEMODE_WRITE, TS_EVT_CHUNK,
                                             def_chunk, OTF2_SUBSTRATE_POSIX,
                                             OTF2_COMPRESSION_NONE);
  if (!archive)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: cannot open an OTF2 archive for writing", dir);
      return NULL;
    }
  /* Ranks' event files are written by several threads at close
   * (ts_archive_write_events): OTF2's archive-wide state needs its locks. */
  if (ts_archive_otf2_failed (OTF2_Pthread_Archive_SetLockingCallbacks (archive, NULL), error, dir,
                              "OTF2_Pthread_Archive_SetLockingCallbacks")
      || ts_archive_otf2_failed (OTF2_Archive_SetFlushCallbacks (archive, &flush_callbacks, w), error, dir,
                   "OTF2_Archive_SetFlushCallbacks")
      || ts_archive_otf2_failed (OTF2_Archive_SetMemoryCallbacks (archive, &memory_callbacks, NULL), error,
                      dir, "OTF2_Archive_SetMemoryCallbacks")
      || ts_archive_otf2_failed (OTF2_Archive_SetSerialCollectiveCallbacks (archive), error, dir,
                      "OTF2_Archive_SetSerialCollectiveCallbacks")
      || ts_archive_otf2_failed (OTF2_Archive_SetCreator (archive, w->creator), error, dir,
                      "OTF2_Archive_SetCreator")
      || ts_archive_otf2_failed (OTF2_Archive_SetDescription (archive, "MPI trace written by tracesim"),
                      error, dir, "OTF2_Archive_SetDescription")
      || (w->prediction
          && ts_archive_otf2_failed (OTF2_Archive_SetProperty (archive, TS_PREDICTION_PROPERTY,
                                                               "true", true),
                                     error, dir, "OTF2_Archive_SetProperty"))
      || ts_archive_otf2_failed (OTF2_Archive_OpenEvtFiles (archive), error, dir,
                      "OTF2_Archive_OpenEvtFiles"))
    {
      OTF2_Archive_Close (archive);
      return NULL;
    }
  return archive;
}

/* ---- definitions: recorded now, written by close ---- */

void
ts_archive_writer_set_node (TsArchiveWriter *w, guint rank, const char *node)
{
  g_return_if_fail (rank < w->n_ranks);
  if (!w->rank_nodes)
    w->rank_nodes = g_new0 (char *, w->n_ranks + 1);
  g_free (w->rank_nodes[rank]);
  w->rank_nodes[rank] = g_strdup (node);
}

void
ts_archive_writer_set_node_cores (TsArchiveWriter *w, const char *node, guint cores)
{
  g_return_if_fail (w != NULL && node != NULL);
  if (!w->node_cores)
    w->node_cores = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_insert (w->node_cores, g_strdup (node), GUINT_TO_POINTER (cores));
}

void
ts_archive_writer_set_origin (TsArchiveWriter *w, const char *origin)
{
  g_return_if_fail (w != NULL && origin != NULL);
  g_free (w->creator);
  w->creator = *origin ? g_strdup_printf ("%s (from %s)", PACKAGE_STRING, origin)
                       : g_strdup (PACKAGE_STRING);
}

void
ts_archive_writer_set_prediction (TsArchiveWriter *w)
{
  g_return_if_fail (w != NULL);
  w->prediction = TRUE;
}

guint32
ts_archive_writer_define_region (TsArchiveWriter *w, const char *name, TsRegionKind kind)
{
  g_return_val_if_fail (w != NULL && name != NULL, G_MAXUINT32);
  gpointer found = g_hash_table_lookup (w->region_ids, name);
  if (found)
    return GPOINTER_TO_UINT (found) - 1;
  TsRegionDef *r = g_new0 (TsRegionDef, 1);
  r->name = g_strdup (name);
  r->kind = kind;
  g_ptr_array_add (w->regions, r);
  g_hash_table_insert (w->region_ids, r->name, GUINT_TO_POINTER (w->regions->len));
  return w->regions->len - 1;
}

guint32
ts_archive_writer_define_comm (TsArchiveWriter *w, const char *name, guint n,
                               const guint32 *world_ranks)
{
  g_return_val_if_fail (w != NULL && name != NULL, G_MAXUINT32);
  g_return_val_if_fail (n > 0 && world_ranks != NULL, G_MAXUINT32);
  for (guint i = 0; i < n; i++)
    g_return_val_if_fail (world_ranks[i] < w->n_ranks, G_MAXUINT32);

  for (guint id = 0; id < w->comms->len; id++)
    {
      TsCommDef *c = g_ptr_array_index (w->comms, id);
      if (strcmp (c->name, name) == 0 && c->members->len == n
          && memcmp (c->members->data, world_ranks, n * sizeof (guint32)) == 0)
        return id;
    }
  TsCommDef *c = g_new0 (TsCommDef, 1);
  c->name = g_strdup (name);
  c->members = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
  g_array_append_vals (c->members, world_ranks, n);
  g_ptr_array_add (w->comms, c);
  return w->comms->len - 1;
}

guint32
ts_archive_writer_define_metric (TsArchiveWriter *w, const char *name, const char *unit)
{
  g_return_val_if_fail (w != NULL && name != NULL, G_MAXUINT32);
  for (guint id = 0; id < w->metrics->len; id++)
    if (strcmp (((TsMetricDef *) g_ptr_array_index (w->metrics, id))->name, name) == 0)
      return id;
  TsMetricDef *m = g_new0 (TsMetricDef, 1);
  m->name = g_strdup (name);
  m->unit = g_strdup (unit ? unit : "");
  g_ptr_array_add (w->metrics, m);
  return w->metrics->len - 1;
}

/* ---- events: logged per rank now, written one location at a time by close ---- */

static guint
comm_size (TsArchiveWriter *w, guint32 comm)
{
  return ((TsCommDef *) g_ptr_array_index (w->comms, comm))->members->len;
}

/* Stamp @ev with the tick of @time and log it for @rank. */
static void
log_event (TsArchiveWriter *w, guint rank, double time, EventRecord *ev)
{
  g_return_if_fail (rank < w->n_locations);
  /* Clamp rather than fail: a caller's rounding error of a few nanoseconds
   * must not cost a whole trace, and OTF2 readers require monotonic time. */
  double ns = time * TS_TICKS_PER_SECOND;
  gboolean clamped = !(ns >= 0);  /* negative or NaN */
  guint64 t = 0;
  if (ns >= 9.0e18)
    t = (guint64) 9.0e18;
  else if (ns > 0)
    t = (guint64) llround (ns);
  if (t < w->last_tick[rank])
    {
      /* Times computed two ways (a clock plus pending compute, the clock
       * after it ran) may differ by a rounding tick: only a real slip is
       * worth the warning. */
      clamped |= w->last_tick[rank] - t > TS_ROUNDING_TICKS;
      t = w->last_tick[rank];
    }
  if (clamped)
    w->n_clamped++;
  w->last_tick[rank] = t;
  w->max_tick = MAX (w->max_tick, t);
  ev->tick = t;
  ts_spool_append (w->events, rank, ev);
}

guint
ts_archive_writer_thread (const TsArchiveWriter *w, guint rank, guint k)
{
  g_return_val_if_fail (w != NULL && rank < w->n_ranks, rank);
  if (k == 0)
    return rank;
  g_return_val_if_fail (w->rank_threads && k < w->rank_threads[rank], rank);
  return w->rank_first_thread[rank] + k - 1;
}

OTF2_LocationRef
ts_archive_location_ref (const TsArchiveWriter *w, guint index)
{
  if (index < w->n_ranks)
    return index;
  guint i = index - w->n_ranks;
  return ((OTF2_LocationRef) w->thread_number[i] << 32) | w->thread_rank[i];
}

guint32
ts_archive_team_comm (const TsArchiveWriter *w, guint rank)
{
  /* The teams' communicators follow the MPI ones, one per rank with
   * threads, in rank order. */
  guint32 id = w->comms->len;
  for (guint r = 0; r < rank; r++)
    id += w->rank_threads[r] > 1;
  return id;
}

/* A threading event (@type, with @ref) of a writer made with threads. */
static void
log_thread_event (TsArchiveWriter *w, guint location, double time, EventType type, guint32 ref)
{
  g_return_if_fail (w != NULL && w->rank_threads);
  log_event (w, location, time, &(EventRecord) { .type = type, .ref = ref });
}

void
ts_archive_writer_team_begin (TsArchiveWriter *w, guint location, double time)
{
  log_thread_event (w, location, time, EV_TEAM_BEGIN, 0);
}

void
ts_archive_writer_team_end (TsArchiveWriter *w, guint location, double time)
{
  log_thread_event (w, location, time, EV_TEAM_END, 0);
}

void
ts_archive_writer_thread_fork (TsArchiveWriter *w, guint location, double time, guint threads)
{
  log_thread_event (w, location, time, EV_THREAD_FORK, threads);
}

void
ts_archive_writer_thread_join (TsArchiveWriter *w, guint location, double time)
{
  log_thread_event (w, location, time, EV_THREAD_JOIN, 0);
}

void
ts_archive_writer_lock (TsArchiveWriter *w, guint location, double time, guint32 lock,
                        guint32 order, gboolean release)
{
  EventRecord ev = { .type = release ? EV_LOCK_RELEASE : EV_LOCK_ACQUIRE, .ref = lock, .extra = order };
  log_event (w, location, time, &ev);
}

void
ts_archive_writer_enter (TsArchiveWriter *w, guint rank, double time, guint32 region)
{
  g_return_if_fail (w != NULL && region < w->regions->len);
  log_event (w, rank, time, &(EventRecord) { .type = EV_ENTER, .ref = region });
}

void
ts_archive_writer_leave (TsArchiveWriter *w, guint rank, double time, guint32 region)
{
  g_return_if_fail (w != NULL && region < w->regions->len);
  log_event (w, rank, time, &(EventRecord) { .type = EV_LEAVE, .ref = region });
}

static void
p2p (TsArchiveWriter *w, EventType type, guint rank, double time, guint32 peer, guint32 comm,
     guint32 tag, guint64 bytes, guint64 req, gboolean peer_checked)
{
  g_return_if_fail (w != NULL && comm < w->comms->len);
  g_return_if_fail (!peer_checked || peer < comm_size (w, comm));
  log_event (w, rank, time, &(EventRecord) { .type = type, .ref = peer, .comm = comm,
                                             .tag = tag, .bytes = bytes, .extra = req });
}

void
ts_archive_writer_send (TsArchiveWriter *w, guint rank, double time, guint32 dst,
                        guint32 comm, guint32 tag, guint64 bytes)
{
  p2p (w, EV_SEND, rank, time, dst, comm, tag, bytes, 0, TRUE);
}

void
ts_archive_writer_recv (TsArchiveWriter *w, guint rank, double time, guint32 src,
                        guint32 comm, guint32 tag, guint64 bytes)
{
  p2p (w, EV_RECV, rank, time, src, comm, tag, bytes, 0, TRUE);
}

void
ts_archive_writer_isend (TsArchiveWriter *w, guint rank, double time, guint32 dst,
                         guint32 comm, guint32 tag, guint64 bytes, guint64 req)
{
  p2p (w, EV_ISEND, rank, time, dst, comm, tag, bytes, req, TRUE);
}

void
ts_archive_writer_irecv (TsArchiveWriter *w, guint rank, double time, guint32 src,
                         guint32 comm, guint32 tag, guint64 bytes, guint64 req)
{
  p2p (w, EV_IRECV, rank, time, src, comm, tag, bytes, req, TRUE);
}

void
ts_archive_writer_irecv_status (TsArchiveWriter *w, guint rank, double time, guint32 src,
                                guint32 comm, guint32 tag, guint64 bytes, guint64 req)
{
  p2p (w, EV_IRECV, rank, time, src, comm, tag, bytes, req, FALSE);
}

void
ts_archive_writer_isend_complete (TsArchiveWriter *w, guint rank, double time, guint64 req)
{
  g_return_if_fail (w != NULL);
  log_event (w, rank, time, &(EventRecord) { .type = EV_ISEND_COMPLETE, .extra = req });
}

void
ts_archive_writer_irecv_request (TsArchiveWriter *w, guint rank, double time, guint64 req)
{
  g_return_if_fail (w != NULL);
  log_event (w, rank, time, &(EventRecord) { .type = EV_IRECV_REQUEST, .extra = req });
}

void
ts_archive_writer_request_test (TsArchiveWriter *w, guint rank, double time, guint64 req)
{
  g_return_if_fail (w != NULL);
  log_event (w, rank, time, &(EventRecord) { .type = EV_REQUEST_TEST, .extra = req });
}

void
ts_archive_writer_request_cancelled (TsArchiveWriter *w, guint rank, double time, guint64 req)
{
  g_return_if_fail (w != NULL);
  log_event (w, rank, time, &(EventRecord) { .type = EV_REQUEST_CANCELLED, .extra = req });
}

void
ts_archive_writer_collective_begin (TsArchiveWriter *w, guint rank, double time)
{
  g_return_if_fail (w != NULL);
  log_event (w, rank, time, &(EventRecord) { .type = EV_COLL_BEGIN });
}

void
ts_archive_writer_collective_end (TsArchiveWriter *w, guint rank, double time,
                                  TsCollectiveOp op, guint32 comm, gint32 root,
                                  guint64 sent, guint64 received)
{
  g_return_if_fail (w != NULL && comm < w->comms->len && (guint) op < TS_COLL_N_OPS);
  g_return_if_fail (root == TS_NO_RANK || (root >= 0 && (guint) root < comm_size (w, comm)));
  guint32 otf2_root = root == TS_NO_RANK ? OTF2_UNDEFINED_UINT32 : (guint32) root;
  log_event (w, rank, time, &(EventRecord) { .type = EV_COLL_END, .op = op, .ref = otf2_root,
                                             .comm = comm, .bytes = sent, .extra = received });
}

void
ts_archive_writer_metric (TsArchiveWriter *w, guint rank, double time, guint32 metric,
                          double value)
{
  g_return_if_fail (w != NULL && metric < w->metrics->len);
  EventRecord ev = { .type = EV_METRIC, .ref = metric };
  memcpy (&ev.extra, &value, sizeof value);
  log_event (w, rank, time, &ev);
}

void
ts_archive_writer_nbc_request (TsArchiveWriter *w, guint rank, double time, guint64 req)
{
  g_return_if_fail (w != NULL);
  log_event (w, rank, time, &(EventRecord) { .type = EV_NBC_REQUEST, .extra = req });
}

void
ts_archive_writer_nbc_complete (TsArchiveWriter *w, guint rank, double time, TsCollectiveOp op,
                                guint32 comm, gint32 root, guint64 sent, guint64 received,
                                guint64 req)
{
  g_return_if_fail (w != NULL && comm < w->comms->len && (guint) op < TS_COLL_N_OPS);
  g_return_if_fail (root == TS_NO_RANK || (root >= 0 && (guint) root < comm_size (w, comm)));
  guint32 otf2_root = root == TS_NO_RANK ? OTF2_UNDEFINED_UINT32 : (guint32) root;
  log_event (w, rank, time, &(EventRecord) { .type = EV_NBC_COMPLETE, .op = op, .ref = otf2_root,
                                             .comm = comm, .bytes = sent, .extra = received,
                                             .req = req });
}

void
ts_archive_writer_partitioned (TsArchiveWriter *w, guint rank, double time,
                               TsPartitionedEvent event, guint64 req, guint32 peer_or_partition,
                               guint32 comm, guint32 tag, guint64 bytes, guint32 partitions)
{
  g_return_if_fail (w != NULL && event < TS_P_N_EVENTS);
  if (event == TS_P_PSEND_INIT || event == TS_P_PRECV_INIT)
    g_return_if_fail (comm < w->comms->len && peer_or_partition < comm_size (w, comm));
  w->uses_partitioned = TRUE;
  log_event (w, rank, time, &(EventRecord) { .type = EV_PARTITIONED, .op = event,
                                             .ref = peer_or_partition, .comm = comm, .tag = tag,
                                             .bytes = bytes, .extra = req, .req = partitions });
}


static void
log_late (TsArchiveWriter *w, guint rank, double time, EventRecord *ev)
{
  if (!w->late)
    {
      if (w->late_error)
        return;
      w->late = ts_spool_new (w->n_ranks, sizeof (EventRecord), 4096, &w->late_error);
      if (!w->late)
        return;
    }
  double ns = time * TS_TICKS_PER_SECOND;
  ev->tick = ns > 0 && ns < 9.0e18 ? (guint64) llround (ns) : 0;
  ts_spool_append (w->late, rank, ev);
}

void
ts_archive_writer_late_metric (TsArchiveWriter *w, guint rank, double time, guint32 metric,
                               double value)
{
  g_return_if_fail (w != NULL && rank < w->n_ranks && metric < w->metrics->len);
  EventRecord ev = { .type = EV_METRIC, .ref = metric };
  memcpy (&ev.extra, &value, sizeof value);
  log_late (w, rank, time, &ev);
}

void
ts_archive_writer_late_region (TsArchiveWriter *w, guint rank, double start, double end,
                               guint32 region)
{
  g_return_if_fail (w != NULL && rank < w->n_ranks && region < w->regions->len);
  log_late (w, rank, start, &(EventRecord) { .type = EV_ENTER, .ref = region });
  log_late (w, rank, end, &(EventRecord) { .type = EV_LEAVE, .ref = region, .op = LATE_BEFORE });
}

/* ---- close ---- */

/* Write every rank's events (an event file even for ranks without events, so
 * that each location has its file), then the empty local definition files
 * readers expect, then the global definitions. */
static gboolean
finish_archive (TsArchiveWriter *w, OTF2_Archive *archive, const char *dir, gboolean events,
                GError **error)
{
  g_autofree guint64 *n_events = g_new0 (guint64, w->n_locations);
  /* The definitions alone may be written while events are logged (for an
   * analysis that reads them as they come). */
  if (events && (!ts_spool_finish (w->events, error)
                 || (w->late && !ts_spool_finish (w->late, error))))
    return FALSE;
  /* Without events, no file per location at all: the definitions only
   * (16,384 ranks would create 32,768 files for nothing). */
  if (events && !ts_archive_write_events (w, archive, dir, n_events, error))
    return FALSE;
  if (ts_archive_otf2_failed (OTF2_Archive_CloseEvtFiles (archive), error, dir,
                              "OTF2_Archive_CloseEvtFiles"))
    return FALSE;
  return ts_archive_write_definitions (w, archive, dir, n_events, events, error);
}

gboolean
ts_archive_writer_write_definitions (TsArchiveWriter *w, const char *dir, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  /* Its reader probes the copy in a child process: no thread may run. */
  ts_archive_files_join (w, FALSE);
  if (w->error)
    {
      g_propagate_error (error, g_error_copy (w->error));
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", dir,
                   g_strerror (errno));
      return FALSE;
    }
  OTF2_Archive *archive = open_archive (w, dir, error);
  if (!archive)
    return FALSE;
  gboolean ok = finish_archive (w, archive, dir, FALSE, error);
  OTF2_ErrorCode status = OTF2_Archive_Close (archive);
  return ok && !ts_archive_otf2_failed (status, error, dir, "OTF2_Archive_Close");
}

gboolean
ts_archive_writer_close (TsArchiveWriter *w, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  gboolean ok = TRUE;
  if (w->error || w->late_error)
    {
      GError **first = w->error ? &w->error : &w->late_error;
      g_propagate_error (error, *first);
      *first = NULL;
      ok = FALSE;
    }
  ts_archive_files_join (w, !ok);
  OTF2_Archive *archive = ok ? open_archive (w, w->tmp_dir, error) : NULL;
  ok = ok && archive;
  if (ok)
    ts_archive_files_install (w);
  if (ok)
    ok = finish_archive (w, archive, w->tmp_dir, TRUE, error);
  if (archive)
    {
      OTF2_ErrorCode status = OTF2_Archive_Close (archive);
      if (ok)
        ok = !ts_archive_otf2_failed (status, error, w->tmp_dir, "OTF2_Archive_Close");
    }
  if (ok && w->n_clamped > 0)
    g_warning ("%s: %" G_GUINT64_FORMAT " event(s) were earlier than the previous event of "
               "their rank and were moved to its time", ts_output_dir_get_path (w->out),
               w->n_clamped);
  if (ok)
    ok = ts_output_dir_commit (g_steal_pointer (&w->out), error);
  writer_free (w);
  return ok;
}

void
ts_archive_writer_abort (TsArchiveWriter *w)
{
  if (!w)
    return;
  writer_free (w);
}
