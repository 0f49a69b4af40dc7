#include <config.h>

#define G_LOG_DOMAIN "tracesim-script"

#include "tools/tracegen/script.h"

#include "model/archive_writer.h"
#include "model/otf2-chunk.h"

#include <gio/gio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* As many as an OTF2 archive can define (model/otf2-chunk.h). */
#define TS_SCRIPT_MAX_RANKS TS_OTF2_MAX_GROUP_MEMBERS

/* Optional `key=value` words; the enum indexes TsArgs.val. */
typedef enum {
  KEY_COMM, KEY_TAG, KEY_BYTES, KEY_REQ, KEY_ROOT, KEY_SENT, KEY_RECV, KEY_PARTITIONS, N_KEYS
} TsKey;
static const char *const key_names[N_KEYS] = { "comm", "tag", "bytes", "req", "root", "sent",
                                               "recv", "partitions" };
#define K(k) (1u << (k))

typedef struct {
  const char *pos[2];        /* positional words after the event name */
  guint n_pos;
  const char *val[N_KEYS];   /* NULL when not given */
  TsPartitionedEvent event;  /* partitioned event words: which one */
} TsArgs;

typedef struct {
  guint32 region;
  guint line;
} TsOpenRegion;

typedef enum { REQ_ISEND = 1, REQ_IRECV, REQ_ICOLL } TsReqKind;

typedef struct {
  double last_time;
  guint last_line;
  GArray *open;            /* TsOpenRegion, innermost last */
  GHashTable *requests;    /* guint64* req -> TsReqKind */
  guint coll_line;         /* line of an unfinished coll_begin, 0 if none */
} TsRankState;

typedef struct {
  const char *origin;
  guint line;
  guint n_ranks;
  guint threads;            /* per rank (ranks N threads=K) */
  TsArchiveWriter *w;
  TsRankState *ranks;       /* per location: the ranks', then their other threads' */
  GPtrArray *region_names;  /* by region id, borrowed from the script's words */
  GHashTable *comms;        /* name -> id + 1 */
  GArray *comm_sizes;       /* guint by comm id */
  GHashTable *metrics;      /* name -> id + 1 */
  GHashTable *locks;        /* lock id -> its acquisitions so far */
  GStringChunk *names;      /* storage for names kept beyond their line */
} TsParser;

static gboolean fail (TsParser *p, GError **error, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (TsParser *p, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s:%u: %s", p->origin, p->line, msg);
  return FALSE;
}

static gboolean
parse_uint (TsParser *p, const char *what, const char *word, guint64 max, guint64 *out,
            GError **error)
{
  if (!g_ascii_string_to_unsigned (word, 10, 0, max, out, NULL))
    return fail (p, error, "bad %s '%s' (expected an integer from 0 to %" G_GUINT64_FORMAT ")",
                 what, word, max);
  return TRUE;
}

static gboolean
parse_time (TsParser *p, const char *word, double *out, GError **error)
{
  char *end;
  *out = g_ascii_strtod (word, &end);
  if (*word == '\0' || *end != '\0' || !isfinite (*out) || *out < 0)
    return fail (p, error, "bad time '%s' (expected seconds, a number >= 0)", word);
  return TRUE;
}

/* "node NAME RANK... [cores=N]" : those ranks ran on host NAME (recorded
 * as Score-P records it), which had N cores (as tracesim-record says). */
static gboolean
directive_node (TsParser *p, char **w, guint n, GError **error)
{
  if (n > 3 && g_str_has_prefix (w[n - 1], "cores="))
    {
      guint64 cores;
      if (!g_ascii_string_to_unsigned (w[n - 1] + 6, 10, 1, G_MAXUINT32, &cores, NULL))
        return fail (p, error, "node %s: '%s' is not a count of cores", w[1], w[n - 1]);
      ts_archive_writer_set_node_cores (p->w, w[1], (guint) cores);
      n--;
    }
  if (n < 3)
    return fail (p, error, "expected 'node NAME RANK... [cores=N]'");
  for (guint i = 2; i < n; i++)
    {
      guint64 rank;
      if (!g_ascii_string_to_unsigned (w[i], 10, 0, p->n_ranks - 1, &rank, NULL))
        return fail (p, error, "node %s: '%s' is not a rank of 0..%u", w[1], w[i], p->n_ranks - 1);
      ts_archive_writer_set_node (p->w, (guint) rank, w[1]);
    }
  return TRUE;
}

/* ---- definitions ---- */

static gboolean
directive_ranks (TsParser *p, char **words, guint n, const char *dir, const char *name,
                 GError **error)
{
  guint64 n_ranks, threads = 1;
  if (p->w)
    return fail (p, error, "'ranks' given twice");
  if (n != 2 && !(n == 3 && g_str_has_prefix (words[2], "threads=")))
    return fail (p, error, "expected 'ranks N [threads=K]'");
  if (!parse_uint (p, "number of ranks", words[1], TS_SCRIPT_MAX_RANKS, &n_ranks, error)
      || (n == 3 && !parse_uint (p, "threads", words[2] + strlen ("threads="), 64, &threads,
                                 error)))
    return FALSE;
  if (n_ranks == 0 || threads == 0)
    return fail (p, error, "a trace needs at least one rank, and a rank one thread");

  g_autofree guint *per_rank = g_new (guint, n_ranks);
  for (guint r = 0; r < n_ranks; r++)
    per_rank[r] = (guint) threads;
  p->w = threads > 1 ? ts_archive_writer_new_threads (dir, name, n_ranks, per_rank, error)
                     : ts_archive_writer_new (dir, name, n_ranks, error);
  if (!p->w)
    return FALSE;
  p->n_ranks = n_ranks;
  p->threads = (guint) threads;
  guint n_locations = n_ranks * threads;
  p->ranks = g_new0 (TsRankState, n_locations);
  for (guint r = 0; r < n_locations; r++)
    {
      p->ranks[r].open = g_array_new (FALSE, FALSE, sizeof (TsOpenRegion));
      p->ranks[r].requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
    }
  guint world = n_ranks;
  g_array_append_val (p->comm_sizes, world);
  g_hash_table_insert (p->comms, (gpointer) "world", GUINT_TO_POINTER (1));
  return TRUE;
}

static gboolean
directive_comm (TsParser *p, char **words, guint n, GError **error)
{
  if (n < 3)
    return fail (p, error, "expected 'comm NAME RANK...'");
  if (g_hash_table_contains (p->comms, words[1]))
    return fail (p, error, "communicator '%s' is already defined", words[1]);

  g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree gboolean *seen = g_new0 (gboolean, p->n_ranks);
  for (guint i = 2; i < n; i++)
    {
      guint64 r;
      if (!parse_uint (p, "rank", words[i], p->n_ranks - 1, &r, error))
        return FALSE;
      if (seen[r])
        return fail (p, error, "rank %" G_GUINT64_FORMAT " is listed twice in '%s'", r, words[1]);
      seen[r] = TRUE;
      guint32 r32 = r;
      g_array_append_val (members, r32);
    }
  char *kept = g_string_chunk_insert (p->names, words[1]);
  guint32 id = ts_archive_writer_define_comm (p->w, kept, members->len,
                                              (const guint32 *) members->data);
  g_assert (id == p->comm_sizes->len);
  g_array_append_val (p->comm_sizes, members->len);
  g_hash_table_insert (p->comms, kept, GUINT_TO_POINTER (id + 1));
  return TRUE;
}

static gboolean
directive_metric (TsParser *p, char **words, guint n, GError **error)
{
  if (n != 2 && n != 3)
    return fail (p, error, "expected 'metric NAME [UNIT]'");
  if (g_hash_table_contains (p->metrics, words[1]))
    return fail (p, error, "metric '%s' is already defined", words[1]);
  char *kept = g_string_chunk_insert (p->names, words[1]);
  guint32 id = ts_archive_writer_define_metric (p->w, kept, n == 3 ? words[2] : "");
  g_hash_table_insert (p->metrics, kept, GUINT_TO_POINTER (id + 1));
  return TRUE;
}

/* ---- events ---- */

static gboolean
arg_comm (TsParser *p, const TsArgs *a, guint32 *comm, GError **error)
{
  if (!a->val[KEY_COMM])
    {
      *comm = 0;
      return TRUE;
    }
  gpointer id = g_hash_table_lookup (p->comms, a->val[KEY_COMM]);
  if (!id)
    return fail (p, error, "unknown communicator '%s'", a->val[KEY_COMM]);
  *comm = GPOINTER_TO_UINT (id) - 1;
  return TRUE;
}

/* A rank of @comm; with @raw_ok, also raw:N, any uint32 (an irecv's status
 * as a tracer wrote it). */
static gboolean
arg_peer (TsParser *p, const char *what, const char *word, guint32 comm, gboolean raw_ok,
          guint32 *out, GError **error)
{
  guint size = g_array_index (p->comm_sizes, guint, comm);
  guint64 v;
  if (raw_ok && g_str_has_prefix (word, "raw:"))
    {
      if (!g_ascii_string_to_unsigned (word + 4, 10, 0, G_MAXUINT32, &v, NULL))
        return fail (p, error, "bad %s '%s' (expected raw: and a uint32)", what, word);
      *out = v;
      return TRUE;
    }
  if (!g_ascii_string_to_unsigned (word, 10, 0, G_MAXUINT32, &v, NULL))
    return fail (p, error, "bad %s '%s' (expected a rank)", what, word);
  if (v >= size)
    return fail (p, error, "%s %" G_GUINT64_FORMAT " is not a rank of a communicator of size %u",
                 what, v, size);
  *out = v;
  return TRUE;
}

static gboolean
arg_u64 (TsParser *p, const TsArgs *a, TsKey key, guint64 max, guint64 *out, GError **error)
{
  *out = 0;
  return !a->val[key] || parse_uint (p, key_names[key], a->val[key], max, out, error);
}

/* The envelope shared by send, recv, isend and irecv. */
typedef struct {
  guint32 peer, comm, tag;
  guint64 bytes, req;
} TsEnvelope;

static gboolean
arg_envelope (TsParser *p, const TsArgs *a, TsEnvelope *e, gboolean raw_ok, GError **error)
{
  guint64 tag;
  if (!arg_comm (p, a, &e->comm, error)
      || !arg_peer (p, "peer", a->pos[0], e->comm, raw_ok, &e->peer, error)
      || !arg_u64 (p, a, KEY_TAG, G_MAXUINT32, &tag, error)
      || !arg_u64 (p, a, KEY_BYTES, G_MAXUINT64, &e->bytes, error)
      || !arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &e->req, error))
    return FALSE;
  e->tag = tag;
  return TRUE;
}

/* Requests: catch the typos a hand-written trace is prone to. */
static gboolean
request_start (TsParser *p, guint rank, guint64 req, TsReqKind kind, GError **error)
{
  GHashTable *reqs = p->ranks[rank].requests;
  if (g_hash_table_contains (reqs, &req))
    return fail (p, error, "request %" G_GUINT64_FORMAT " of rank %u is still outstanding", req,
                 rank);
  g_hash_table_insert (reqs, g_memdup2 (&req, sizeof req), GINT_TO_POINTER (kind));
  return TRUE;
}

static gboolean
request_finish (TsParser *p, guint rank, guint64 req, TsReqKind kind, gboolean remove,
                GError **error)
{
  static const char *const started_by[] = { "", "isend", "irecv_request", "icoll_request" };
  GHashTable *reqs = p->ranks[rank].requests;
  TsReqKind found = GPOINTER_TO_INT (g_hash_table_lookup (reqs, &req));
  if (!found || (kind && found != kind))
    return fail (p, error, "request %" G_GUINT64_FORMAT " of rank %u was not started by %s",
                 req, rank, kind ? started_by[kind] : "isend, irecv_request or icoll_request");
  if (remove)
    g_hash_table_remove (reqs, &req);
  return TRUE;
}

static gboolean
ev_enter (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  const char *name = a->pos[0];
  TsRegionKind kind = g_str_has_prefix (name, "MPI_") ? TS_REGION_MPI : TS_REGION_USER;
  guint32 id = ts_archive_writer_define_region (p->w, name, kind);
  if (id == p->region_names->len)
    g_ptr_array_add (p->region_names, g_string_chunk_insert (p->names, name));
  TsOpenRegion open = { id, p->line };
  g_array_append_val (p->ranks[rank].open, open);
  ts_archive_writer_enter (p->w, rank, t, id);
  return TRUE;
}

static gboolean
ev_leave (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  GArray *open = p->ranks[rank].open;
  if (open->len == 0)
    return fail (p, error, "leave without an open region on rank %u", rank);
  TsOpenRegion top = g_array_index (open, TsOpenRegion, open->len - 1);
  const char *top_name = g_ptr_array_index (p->region_names, top.region);
  if (a->n_pos == 1 && strcmp (a->pos[0], top_name) != 0)
    return fail (p, error, "leave %s, but the innermost open region of rank %u is %s (line %u)",
                 a->pos[0], rank, top_name, top.line);
  g_array_set_size (open, open->len - 1);
  ts_archive_writer_leave (p->w, rank, t, top.region);
  return TRUE;
}

static gboolean
ev_send (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  TsEnvelope e;
  if (!arg_envelope (p, a, &e, FALSE, error))
    return FALSE;
  ts_archive_writer_send (p->w, rank, t, e.peer, e.comm, e.tag, e.bytes);
  return TRUE;
}

static gboolean
ev_recv (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  TsEnvelope e;
  if (!arg_envelope (p, a, &e, FALSE, error))
    return FALSE;
  ts_archive_writer_recv (p->w, rank, t, e.peer, e.comm, e.tag, e.bytes);
  return TRUE;
}

static gboolean
ev_isend (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  TsEnvelope e;
  if (!arg_envelope (p, a, &e, FALSE, error) || !request_start (p, rank, e.req, REQ_ISEND, error))
    return FALSE;
  ts_archive_writer_isend (p->w, rank, t, e.peer, e.comm, e.tag, e.bytes, e.req);
  return TRUE;
}

static gboolean
ev_irecv (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  TsEnvelope e;
  if (!arg_envelope (p, a, &e, TRUE, error)
      || !request_finish (p, rank, e.req, REQ_IRECV, TRUE, error))
    return FALSE;
  ts_archive_writer_irecv_status (p->w, rank, t, e.peer, e.comm, e.tag, e.bytes, e.req);
  return TRUE;
}

static gboolean
ev_isend_complete (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  guint64 req;
  if (!arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &req, error)
      || !request_finish (p, rank, req, REQ_ISEND, TRUE, error))
    return FALSE;
  ts_archive_writer_isend_complete (p->w, rank, t, req);
  return TRUE;
}

static gboolean
ev_irecv_request (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  guint64 req;
  if (!arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &req, error)
      || !request_start (p, rank, req, REQ_IRECV, error))
    return FALSE;
  ts_archive_writer_irecv_request (p->w, rank, t, req);
  return TRUE;
}

static gboolean
ev_request_test (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  guint64 req;
  if (!arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &req, error)
      || !request_finish (p, rank, req, 0, FALSE, error))
    return FALSE;
  ts_archive_writer_request_test (p->w, rank, t, req);
  return TRUE;
}

static gboolean
ev_request_cancelled (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  guint64 req;
  if (!arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &req, error)
      || !request_finish (p, rank, req, 0, TRUE, error))
    return FALSE;
  ts_archive_writer_request_cancelled (p->w, rank, t, req);
  return TRUE;
}

/* The operation and counts of a coll_end or icoll_complete. */
typedef struct {
  TsCollectiveOp op;
  guint32 comm;
  gint32 root;               /* TS_NO_RANK for root=none */
  guint64 sent, recv;
} Collective;

static gboolean
arg_collective (TsParser *p, const TsArgs *a, Collective *c, GError **error)
{
  guint32 root = 0;
  c->comm = 0;
  if (!ts_collective_from_name (a->pos[0], &c->op))
    return fail (p, error, "unknown collective operation '%s'", a->pos[0]);
  const char *root_word = a->val[KEY_ROOT];
  gboolean rooted = root_word && strcmp (root_word, "none") != 0;
  if (!arg_comm (p, a, &c->comm, error)
      || (rooted && !arg_peer (p, "root", root_word, c->comm, FALSE, &root, error))
      || !arg_u64 (p, a, KEY_SENT, G_MAXUINT64, &c->sent, error)
      || !arg_u64 (p, a, KEY_RECV, G_MAXUINT64, &c->recv, error))
    return FALSE;
  c->root = rooted ? (gint32) root : TS_NO_RANK;
  return TRUE;
}

static gboolean
ev_coll_begin (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  if (p->ranks[rank].coll_line)
    return fail (p, error, "rank %u is still in the collective begun on line %u", rank,
                 p->ranks[rank].coll_line);
  p->ranks[rank].coll_line = p->line;
  ts_archive_writer_collective_begin (p->w, rank, t);
  return TRUE;
}

static gboolean
ev_coll_end (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  Collective c;
  if (!p->ranks[rank].coll_line)
    return fail (p, error, "coll_end without coll_begin on rank %u", rank);
  if (!arg_collective (p, a, &c, error))
    return FALSE;
  p->ranks[rank].coll_line = 0;
  ts_archive_writer_collective_end (p->w, rank, t, c.op, c.comm, c.root, c.sent, c.recv);
  return TRUE;
}

static gboolean
ev_icoll_request (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  guint64 req;
  if (!arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &req, error)
      || !request_start (p, rank, req, REQ_ICOLL, error))
    return FALSE;
  ts_archive_writer_nbc_request (p->w, rank, t, req);
  return TRUE;
}

static gboolean
ev_icoll_complete (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  Collective c;
  guint64 req;
  if (!arg_collective (p, a, &c, error)
      || !arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &req, error)
      || !request_finish (p, rank, req, REQ_ICOLL, TRUE, error))
    return FALSE;
  ts_archive_writer_nbc_complete (p->w, rank, t, c.op, c.comm, c.root, c.sent, c.recv, req);
  return TRUE;
}

/* Partitioned events are written as they are given: a trace with a partition
 * out of range or an unknown request is how tests feed bad input. */
static gboolean
ev_pinit (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  TsEnvelope e;
  guint64 partitions;
  if (!arg_envelope (p, a, &e, FALSE, error)
      || !arg_u64 (p, a, KEY_PARTITIONS, G_MAXUINT32, &partitions, error))
    return FALSE;
  ts_archive_writer_partitioned (p->w, rank, t, a->event, e.req, e.peer, e.comm, e.tag, e.bytes,
                                 (guint32) partitions);
  return TRUE;
}

static gboolean
ev_partition (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  guint64 req;
  char *end;
  guint64 partition = g_ascii_strtoull (a->pos[0], &end, 10);
  if (*a->pos[0] == '\0' || *end != '\0' || partition > G_MAXUINT32)
    return fail (p, error, "bad partition '%s'", a->pos[0]);
  if (!arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &req, error))
    return FALSE;
  ts_archive_writer_partitioned (p->w, rank, t, a->event, req, (guint32) partition, 0, 0, 0, 0);
  return TRUE;
}

static gboolean
ev_prequest (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  guint64 req;
  if (!arg_u64 (p, a, KEY_REQ, G_MAXUINT64, &req, error))
    return FALSE;
  ts_archive_writer_partitioned (p->w, rank, t, a->event, req, 0, 0, 0, 0, 0);
  return TRUE;
}

static gboolean
ev_metric (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  gpointer id = g_hash_table_lookup (p->metrics, a->pos[0]);
  char *end;
  double value = g_ascii_strtod (a->pos[1], &end);
  if (!id)
    return fail (p, error, "unknown metric '%s' (define it with 'metric NAME UNIT')", a->pos[0]);
  if (*end != '\0' || !isfinite (value))
    return fail (p, error, "bad metric value '%s'", a->pos[1]);
  ts_archive_writer_metric (p->w, rank, t, GPOINTER_TO_UINT (id) - 1, value);
  return TRUE;
}

/* lock ID acquire|release: an OpenMP lock (ThreadAcquireLock,
 * ThreadReleaseLock, the acquisition order counted per lock), unchecked. */
static gboolean
ev_lock (TsParser *p, guint rank, double t, const TsArgs *a, GError **error)
{
  char *end;
  guint64 id = g_ascii_strtoull (a->pos[0], &end, 10);
  gboolean release = g_strcmp0 (a->pos[1], "release") == 0;
  if (*end != '\0' || end == a->pos[0] || id > G_MAXUINT32)
    return fail (p, error, "bad lock id '%s'", a->pos[0]);
  if (!release && g_strcmp0 (a->pos[1], "acquire") != 0)
    return fail (p, error, "lock %s: '%s' is neither acquire nor release", a->pos[0], a->pos[1]);
  gpointer key = GUINT_TO_POINTER ((guint) id);
  guint order = GPOINTER_TO_UINT (g_hash_table_lookup (p->locks, key));
  g_hash_table_insert (p->locks, key, GUINT_TO_POINTER (order + !release));
  ts_archive_writer_lock (p->w, rank, t, (guint32) id, release ? MAX (order, 1) - 1 : order, release);
  return TRUE;
}

/* One row per event word: positional arguments, keys allowed and required. */
static const struct {
  const char *name;
  guint min_pos, max_pos;
  guint keys, required;
  gboolean (*apply) (TsParser *, guint, double, const TsArgs *, GError **);
  TsPartitionedEvent event;  /* for the partitioned words, handed over in TsArgs */
} event_table[] = {
  { "enter", 1, 1, 0, 0, ev_enter },
  { "leave", 0, 1, 0, 0, ev_leave },
  { "send", 1, 1, K (KEY_COMM) | K (KEY_TAG) | K (KEY_BYTES), 0, ev_send },
  { "recv", 1, 1, K (KEY_COMM) | K (KEY_TAG) | K (KEY_BYTES), 0, ev_recv },
  { "isend", 1, 1, K (KEY_COMM) | K (KEY_TAG) | K (KEY_BYTES) | K (KEY_REQ), K (KEY_REQ), ev_isend },
  { "irecv", 1, 1, K (KEY_COMM) | K (KEY_TAG) | K (KEY_BYTES) | K (KEY_REQ), K (KEY_REQ), ev_irecv },
  { "isend_complete", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_isend_complete },
  { "irecv_request", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_irecv_request },
  { "request_test", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_request_test },
  { "request_cancelled", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_request_cancelled },
  { "coll_begin", 0, 0, 0, 0, ev_coll_begin },
  { "coll_end", 1, 1, K (KEY_COMM) | K (KEY_ROOT) | K (KEY_SENT) | K (KEY_RECV), 0, ev_coll_end },
  { "icoll_request", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_icoll_request },
  { "icoll_complete", 1, 1, K (KEY_COMM) | K (KEY_ROOT) | K (KEY_SENT) | K (KEY_RECV) | K (KEY_REQ),
    K (KEY_REQ), ev_icoll_complete },
  { "psend_init", 1, 1, K (KEY_COMM) | K (KEY_TAG) | K (KEY_BYTES) | K (KEY_REQ) | K (KEY_PARTITIONS),
    K (KEY_REQ) | K (KEY_PARTITIONS), ev_pinit, TS_P_PSEND_INIT },
  { "precv_init", 1, 1, K (KEY_COMM) | K (KEY_TAG) | K (KEY_BYTES) | K (KEY_REQ) | K (KEY_PARTITIONS),
    K (KEY_REQ) | K (KEY_PARTITIONS), ev_pinit, TS_P_PRECV_INIT },
  { "pready", 1, 1, K (KEY_REQ), K (KEY_REQ), ev_partition, TS_P_PREADY },
  { "parrived", 1, 1, K (KEY_REQ), K (KEY_REQ), ev_partition, TS_P_PARRIVED },
  { "ptested", 1, 1, K (KEY_REQ), K (KEY_REQ), ev_partition, TS_P_PTESTED },
  { "psend_request", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_prequest, TS_P_PSEND_REQUEST },
  { "precv_request", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_prequest, TS_P_PRECV_REQUEST },
  { "psend_complete", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_prequest, TS_P_PSEND_COMPLETE },
  { "precv_complete", 0, 0, K (KEY_REQ), K (KEY_REQ), ev_prequest, TS_P_PRECV_COMPLETE },
  { "metric", 2, 2, 0, 0, ev_metric },
  { "lock", 2, 2, 0, 0, ev_lock },
};

static gboolean
parse_event (TsParser *p, char **words, guint n, GError **error)
{
  guint64 rank, thread = 0;
  double t;
  if (n < 3)
    return fail (p, error, "expected 'RANK[.THREAD] TIME EVENT ...'");
  /* RANK.THREAD: an event of the rank's thread THREAD (0: its own). */
  char *dot = strchr (words[0], '.');
  if (dot)
    *dot = '\0';
  if (!parse_uint (p, "rank", words[0], p->n_ranks - 1, &rank, error)
      || (dot && !parse_uint (p, "thread", dot + 1, p->threads - 1, &thread, error))
      || !parse_time (p, words[1], &t, error))
    return FALSE;
  /* From here on a location: the writer's index of the rank's thread. */
  if (thread > 0)
    rank = ts_archive_writer_thread (p->w, (guint) rank, (guint) thread);

  guint e = 0;
  while (e < G_N_ELEMENTS (event_table) && strcmp (event_table[e].name, words[2]) != 0)
    e++;
  if (e == G_N_ELEMENTS (event_table))
    return fail (p, error, "unknown event '%s'", words[2]);

  TsArgs a = { 0 };
  for (guint i = 3; i < n; i++)
    {
      char *eq = strchr (words[i], '=');
      if (!eq)
        {
          if (a.n_pos == event_table[e].max_pos)
            return fail (p, error, "too many arguments to %s: '%s'", words[2], words[i]);
          a.pos[a.n_pos++] = words[i];
          continue;
        }
      *eq = '\0';
      guint k = 0;
      while (k < N_KEYS && strcmp (key_names[k], words[i]) != 0)
        k++;
      if (k == N_KEYS || !(event_table[e].keys & K (k)))
        return fail (p, error, "%s takes no '%s='", words[2], words[i]);
      if (a.val[k])
        return fail (p, error, "'%s=' given twice", words[i]);
      a.val[k] = eq + 1;
    }
  if (a.n_pos < event_table[e].min_pos)
    return fail (p, error, "too few arguments to %s", words[2]);
  for (guint k = 0; k < N_KEYS; k++)
    if ((event_table[e].required & K (k)) && !a.val[k])
      return fail (p, error, "%s needs %s=", words[2], key_names[k]);

  TsRankState *rs = &p->ranks[rank];
  if (t < rs->last_time)
    return fail (p, error, "time %s of rank %" G_GUINT64_FORMAT " is earlier than its "
                 "previous event (%.9g s, line %u)", words[1], rank, rs->last_time, rs->last_line);
  rs->last_time = t;
  rs->last_line = p->line;
  a.event = event_table[e].event;
  return event_table[e].apply (p, rank, t, &a, error);
}

static gboolean
parse_line (TsParser *p, char *line, const char *dir, const char *name, GError **error)
{
  char *hash = strchr (line, '#');
  if (hash)
    *hash = '\0';
  g_auto (GStrv) raw = g_strsplit_set (line, " \t\r\f\v", -1);
  g_autoptr (GPtrArray) words = g_ptr_array_new ();
  for (guint i = 0; raw[i]; i++)
    if (*raw[i])
      g_ptr_array_add (words, raw[i]);
  if (words->len == 0)
    return TRUE;
  char **w = (char **) words->pdata;

  if (strcmp (w[0], "ranks") == 0)
    return directive_ranks (p, w, words->len, dir, name, error);
  if (!p->w)
    return fail (p, error, "expected 'ranks N' before anything else");
  if (strcmp (w[0], "comm") == 0)
    return directive_comm (p, w, words->len, error);
  if (strcmp (w[0], "metric") == 0)
    return directive_metric (p, w, words->len, error);
  if (strcmp (w[0], "node") == 0)
    return directive_node (p, w, words->len, error);
  if (strcmp (w[0], "creator") == 0)
    {
      /* The tracer the script imitates: readers count collective bytes as
       * it does (e.g. "creator Score-P 8.0"). */
      if (words->len < 2)
        return fail (p, error, "expected 'creator NAME...'");
      g_autoptr (GString) origin = g_string_new (w[1]);
      for (guint i = 2; i < words->len; i++)
        g_string_append_printf (origin, " %s", w[i]);
      ts_archive_writer_set_origin (p->w, origin->str);
      return TRUE;
    }
  return parse_event (p, w, words->len, error);
}

/* Regions still open and collectives not ended, reported at the line that
 * opened them since that is where the script needs fixing. */
static gboolean
check_balanced (TsParser *p, GError **error)
{
  for (guint r = 0; r < p->n_ranks * p->threads; r++)
    {
      TsRankState *rs = &p->ranks[r];
      if (rs->open->len > 0)
        {
          TsOpenRegion top = g_array_index (rs->open, TsOpenRegion, rs->open->len - 1);
          p->line = top.line;
          return fail (p, error, "region %s of rank %u is entered here but never left",
                       (const char *) g_ptr_array_index (p->region_names, top.region), r);
        }
      if (rs->coll_line)
        {
          p->line = rs->coll_line;
          return fail (p, error, "coll_begin of rank %u is never ended by coll_end", r);
        }
    }
  return TRUE;
}

gboolean
ts_script_load_string (const char *text, const char *origin, const char *dir, const char *name,
                       GError **error)
{
  g_return_val_if_fail (text != NULL && origin != NULL, FALSE);
  g_return_val_if_fail (dir != NULL && name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  TsParser p = {
    .origin = origin,
    .line = 1,
    .region_names = g_ptr_array_new (),
    .comms = g_hash_table_new (g_str_hash, g_str_equal),
    .comm_sizes = g_array_new (FALSE, FALSE, sizeof (guint)),
    .metrics = g_hash_table_new (g_str_hash, g_str_equal),
    .locks = g_hash_table_new (g_direct_hash, g_direct_equal),
    .names = g_string_chunk_new (256),
  };
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean ok = TRUE;
  for (guint i = 0; ok && lines[i]; i++)
    {
      p.line = i + 1;
      ok = parse_line (&p, lines[i], dir, name, error);
    }
  if (ok && !p.w)
    {
      /* Point at the last line, not at the empty piece after a final newline. */
      if (p.line > 1 && *lines[p.line - 1] == '\0')
        p.line--;
      ok = fail (&p, error, "the script has no 'ranks N' line");
    }
  if (ok)
    ok = check_balanced (&p, error);

  if (ok)
    ok = ts_archive_writer_close (g_steal_pointer (&p.w), error);
  else
    ts_archive_writer_abort (g_steal_pointer (&p.w));

  for (guint r = 0; p.ranks && r < p.n_ranks * p.threads; r++)
    {
      g_array_unref (p.ranks[r].open);
      g_hash_table_unref (p.ranks[r].requests);
    }
  g_free (p.ranks);
  g_ptr_array_unref (p.region_names);
  g_hash_table_unref (p.comms);
  g_array_unref (p.comm_sizes);
  g_hash_table_unref (p.metrics);
  g_hash_table_unref (p.locks);
  g_string_chunk_free (p.names);
  return ok;
}

gboolean
ts_script_load_file (const char *path, const char *dir, const char *name, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_autofree char *text = NULL;
  gsize len;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &text, &len, &local))
    {
      /* Keep to one error domain; GLib's message already names the file. */
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, local->message);
      return FALSE;
    }
  if (memchr (text, '\0', len))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: not a text file (contains a NUL byte)", path);
      return FALSE;
    }
  return ts_script_load_string (text, path, dir, name, error);
}
