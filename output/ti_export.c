#include <config.h>

#define G_LOG_DOMAIN "ts-ti"

#include "output/ti_export.h"
#include "calibrate/calibration.h"
#include "model/output_dir.h"

#include <errno.h>
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

/* What SimGrid's replay needs to find a request again: its world envelope. */
typedef struct {
  gint32 src, dst, tag;
  gboolean skipped;   /* posted nothing (missing receive): its wait is dropped */
} TiRequest;

typedef struct {
  const TsTrace *trace;
  guint rank;
  double host_speed;
  FILE *out;
  TsTiStats *stats;
  double pending_flops;
  GHashTable *requests;   /* guint64 req -> TiRequest */
  GArray *waits;          /* guint64 reqs of the MPI call being completed */
  guint32 waits_call;
  double waits_time;
} TiExport;

static void
line (TiExport *x, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
line (TiExport *x, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (x->out, "%u ", x->rank);
  vfprintf (x->out, fmt, ap);
  fputc ('\n', x->out);
  va_end (ap);
  x->stats->lines_written++;
}

static void
flush_compute (TiExport *x)
{
  if (x->pending_flops > 0)
    line (x, "compute %.12g", x->pending_flops);
  x->pending_flops = 0;
}

static gint32
world (TiExport *x, guint32 comm, gint32 local)
{
  return (gint32) ts_trace_comm_world_rank (x->trace, comm, x->rank, (guint) local);
}

static void
flush_waits (TiExport *x)
{
  if (x->waits->len == 0)
    return;
  /* Every outstanding request completed by one call: SimGrid's waitall is
   * exactly that (it waits for all the requests it stores). */
  gboolean all = ts_trace_region_call (x->trace, x->waits_call) == TS_CALL_WAITALL
                 && x->waits->len == g_hash_table_size (x->requests) && x->waits->len > 1;
  guint live = 0;
  for (guint i = 0; i < x->waits->len; i++)
    {
      guint64 req = g_array_index (x->waits, guint64, i);
      TiRequest *r = g_hash_table_lookup (x->requests, &req);
      if (!r || r->skipped)
        {
          all = FALSE;
          continue;
        }
      live++;
    }
  flush_compute (x);
  if (all)
    line (x, "waitall");
  else
    for (guint i = 0; i < x->waits->len; i++)
      {
        guint64 req = g_array_index (x->waits, guint64, i);
        TiRequest *r = g_hash_table_lookup (x->requests, &req);
        if (r && !r->skipped)
          line (x, "wait %d %d %d", r->src, r->dst, r->tag);
      }
  for (guint i = 0; i < x->waits->len; i++)
    g_hash_table_remove (x->requests, &g_array_index (x->waits, guint64, i));
  x->stats->skipped += x->waits->len - live;
  g_array_set_size (x->waits, 0);
}

static void
remember (TiExport *x, guint64 req, gint32 src, gint32 dst, gint32 tag, gboolean skipped)
{
  TiRequest *r = g_new (TiRequest, 1);
  *r = (TiRequest) { src, dst, tag, skipped };
  g_hash_table_replace (x->requests, g_memdup2 (&req, sizeof req), r);
}

/* Per-peer count for the v-variants and all-to-all: the trace records totals,
 * so spread them evenly (the per-peer counts are not in OTF2). */
static void
uniform_counts (GString *s, guint64 total, guint n)
{
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, " %" G_GUINT64_FORMAT, total / n);
}

static void
collective (TiExport *x, const TsAction *a)
{
  guint n = ts_trace_comm_size (x->trace, ts_trace_world_comm (x->trace));
  guint nc = ts_trace_comm_size (x->trace, a->comm);
  if (a->comm != ts_trace_world_comm (x->trace))
    x->stats->subcomm_collectives++;
  gint32 root = a->peer == TS_NO_RANK ? 0 : world (x, a->comm, a->peer);
  gint me = ts_trace_comm_local_rank (x->trace, a->comm, x->rank);
  /* One rank's block, whichever way the tracer counted (ts_collective_block). */
  guint64 block = ts_collective_block (a->op, ts_trace_collective_bytes_total (x->trace), nc,
                                       MAX (me, 0), a->peer != TS_NO_RANK && me == a->peer,
                                       a->bytes, a->bytes_recv);
  g_autoptr (GString) s = g_string_new (NULL);
  switch ((TsCollectiveOp) a->op)
    {
    case TS_COLL_BARRIER:
      g_string_append (s, "barrier");
      break;
    case TS_COLL_BCAST:
      g_string_printf (s, "bcast %" G_GUINT64_FORMAT " %d", block, root);
      break;
    case TS_COLL_REDUCE:
      g_string_printf (s, "reduce %" G_GUINT64_FORMAT " 0 %d", block, root);
      break;
    case TS_COLL_ALLREDUCE:
      g_string_printf (s, "allreduce %" G_GUINT64_FORMAT " 0", block);
      break;
    case TS_COLL_ALLTOALL:
      g_string_printf (s, "alltoall %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
                       a->bytes / MAX (nc, 1), a->bytes_recv / MAX (nc, 1));
      break;
    case TS_COLL_ALLTOALLV:
    case TS_COLL_ALLTOALLW:
      g_string_printf (s, "alltoallv %" G_GUINT64_FORMAT, a->bytes);
      uniform_counts (s, a->bytes, n);
      g_string_append_printf (s, " %" G_GUINT64_FORMAT, a->bytes_recv);
      uniform_counts (s, a->bytes_recv, n);
      break;
    case TS_COLL_GATHER:
      g_string_printf (s, "gather %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d", a->bytes,
                       a->bytes, root);
      break;
    case TS_COLL_ALLGATHER:
      g_string_printf (s, "allgather %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, a->bytes,
                       a->bytes_recv / MAX (nc, 1));
      break;
    case TS_COLL_GATHERV:
    case TS_COLL_ALLGATHERV:
      g_string_printf (s, "%s %" G_GUINT64_FORMAT,
                       a->op == TS_COLL_GATHERV ? "gatherv" : "allgatherv", a->bytes);
      uniform_counts (s, a->op == TS_COLL_GATHERV ? a->bytes * nc : a->bytes_recv, n);
      if (a->op == TS_COLL_GATHERV)
        g_string_append_printf (s, " %d", root);
      break;
    case TS_COLL_SCATTER:
      g_string_printf (s, "scatter %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d",
                       a->bytes_recv, a->bytes_recv, root);
      break;
    case TS_COLL_SCATTERV:
      g_string_append (s, "scatterv");
      uniform_counts (s, a->bytes_recv * nc, n);
      g_string_append_printf (s, " %" G_GUINT64_FORMAT " %d", a->bytes_recv, root);
      break;
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
      g_string_append (s, "reducescatter");
      uniform_counts (s, a->bytes, n);
      g_string_append (s, " 0");
      break;
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN:
    case TS_COLL_N_OPS:
      /* No scan in SimGrid's replay vocabulary. */
      x->stats->skipped++;
      return;
    }
  flush_compute (x);
  line (x, "%s", s->str);
}

static void
export_action (TiExport *x, const TsAction *a)
{
  if (a->kind != TS_ACTION_WAIT || a->call != x->waits_call || a->time != x->waits_time)
    flush_waits (x);
  /* No threads in the format: each rank's own location (doc/threads.md). */
  if (a->kind >= TS_ACTION_TEAM_BEGIN && a->kind < TS_ACTION_N_KINDS)
    return;
  switch ((TsActionKind) a->kind)
    {
    case TS_ACTION_ENTER:
    case TS_ACTION_LEAVE:
    case TS_ACTION_N_KINDS:
      return;
    case TS_ACTION_COMPUTE:
      x->pending_flops += a->seconds * x->host_speed;
      return;
    case TS_ACTION_TEST:
      /* tracesim replays unsuccessful tests as the time they took (a compute
       * burst already); SimGrid's "test" would complete requests early. */
      return;
    default:
      break;
    }
  /* The CPU cost of the call, charged before it as tracesim does. */
  x->pending_flops += a->seconds * x->host_speed;
  gint32 me = (gint32) x->rank;
  switch ((TsActionKind) a->kind)
    {
    case TS_ACTION_SEND:
    case TS_ACTION_ISEND:
      flush_compute (x);
      line (x, "%s %d %d %" G_GUINT64_FORMAT, a->kind == TS_ACTION_SEND ? "send" : "isend",
            world (x, a->comm, a->peer), a->tag, a->bytes);
      if (a->kind == TS_ACTION_ISEND)
        remember (x, a->req, me, world (x, a->comm, a->peer), a->tag, FALSE);
      break;
    case TS_ACTION_RECV:
    case TS_ACTION_IRECV:
      if (a->flags & TS_ACTION_MISSING)
        {
          x->stats->skipped++;
          if (a->kind == TS_ACTION_IRECV)
            remember (x, a->req, 0, 0, 0, TRUE);
          break;
        }
      flush_compute (x);
      line (x, "%s %d %d %" G_GUINT64_FORMAT, a->kind == TS_ACTION_RECV ? "recv" : "irecv",
            world (x, a->comm, a->peer), a->tag, a->bytes);
      if (a->kind == TS_ACTION_IRECV)
        remember (x, a->req, world (x, a->comm, a->peer), me, a->tag, FALSE);
      break;
    case TS_ACTION_WAIT:
      x->waits_call = a->call;
      x->waits_time = a->time;
      g_array_append_val (x->waits, a->req);
      break;
    case TS_ACTION_COLLECTIVE:
      collective (x, a);
      break;
    case TS_ACTION_PINIT:
    case TS_ACTION_PSTART:
    case TS_ACTION_PREADY:
    case TS_ACTION_PARRIVED:
    case TS_ACTION_PTESTED:
    case TS_ACTION_PCOMPLETE:
      /* SimGrid's format has no partitioned communication. */
      x->stats->skipped++;
      break;
    case TS_ACTION_ICOLLECTIVE:
      /* SimGrid's replay has no non-blocking collectives: run it where it is
       * posted (its wait then finds no request and is dropped). */
      if (!(a->flags & TS_ACTION_MISSING))
        collective (x, a);
      break;
    default:
      g_assert_not_reached ();
    }
}

gboolean
ts_ti_export_rank (const TsTrace *trace, TsActionStream *stream, guint rank, double host_speed,
                   FILE *out, TsTiStats *stats, GError **error)
{
  TiExport x = {
    .trace = trace,
    .rank = rank,
    .host_speed = host_speed,
    .out = out,
    .stats = stats,
    .requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free),
    .waits = g_array_new (FALSE, FALSE, sizeof (guint64)),
    .waits_call = G_MAXUINT32,
  };
  line (&x, "init");
  TsAction a;
  GError *local = NULL;
  while (ts_action_stream_next (stream, rank, &a, &local))
    {
      stats->actions_read++;
      export_action (&x, &a);
    }
  gboolean ok = local == NULL;
  if (ok)
    {
      flush_waits (&x);
      flush_compute (&x);
      line (&x, "finalize");
    }
  else
    g_propagate_error (error, local);
  g_hash_table_unref (x.requests);
  g_array_unref (x.waits);
  if (ok && ferror (out))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "rank %u: writing the TI trace failed: %s", rank, g_strerror (errno));
      ok = FALSE;
    }
  return ok;
}

/* What `convert -o DIR` owns: an old output made of these may be replaced. */
/* FALSE, with the file as the user will know it and errno's reason. */
static gboolean
write_failed (const char *path, GError **error)
{
  int saved = errno;
  g_autofree char *shown = ts_output_dir_user_path (path);
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: cannot write: %s", shown,
               g_strerror (saved));
  return FALSE;
}

static gboolean
export_ti (const TsTrace *trace, const TsCalibration *calibration, const char *dir,
           double host_speed, TsTiStats *stats, GError **error)
{
  g_autofree char *ranks_dir = g_build_filename (dir, "ranks", NULL);
  if (g_mkdir_with_parents (ranks_dir, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", ranks_dir,
                   g_strerror (errno));
      return FALSE;
    }
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (calibration, trace, error);
  if (!stream)
    return FALSE;
  g_autoptr (GString) list = g_string_new (NULL);
  for (guint r = 0; r < ts_calibration_n_ranks (calibration); r++)
    {
      /* Relative names: SimGrid opens them from the directory smpirun runs in,
       * so the list works wherever the output directory is moved. */
      g_autofree char *name = g_strdup_printf ("ranks/rank-%u.txt", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_string_append_printf (list, "%s\n", name);
      FILE *f = fopen (path, "w");
      if (!f)
        return write_failed (path, error);
      gboolean ok = ts_ti_export_rank (trace, stream, r, host_speed, f, stats, error);
      if (fclose (f) != 0 && ok)
        ok = write_failed (path, error);
      if (!ok)
        return FALSE;
    }
  g_autofree char *list_path = g_build_filename (dir, "traces.txt", NULL);
  return ts_output_dir_write_file (list_path, list->str, list->len, error);
}

gboolean
ts_ti_export_trace (const char *trace_path, const char *output_dir, double host_speed,
                    TsTiStats *stats, GError **error)
{
  g_autoptr (TsTrace) trace = ts_trace_open (trace_path, error);
  if (!trace)
    return FALSE;
  /* The format has one stream a rank: a thread's calls would be lost, and
   * the messages it sends or receives would never match. */
  if (ts_trace_n_streams (trace) > ts_trace_n_ranks (trace))
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS,
                   "%s: rank %u, thread %u calls MPI (%u threads do), and a time-independent "
                   "trace has one stream a rank: its calls cannot be written", trace_path,
                   ts_trace_stream_rank (trace, ts_trace_n_ranks (trace)),
                   ts_trace_stream_thread (trace, ts_trace_n_ranks (trace)),
                   ts_trace_n_streams (trace) - ts_trace_n_ranks (trace));
      return FALSE;
    }
  g_autoptr (TsCalibration) calibration = ts_calibration_compute (trace, error);
  if (!calibration)
    return FALSE;
  TsOutputDir *dir = ts_output_dir_new (output_dir, error);
  if (!dir)
    return FALSE;
  stats->ranks = ts_calibration_n_ranks (calibration);
  if (!export_ti (trace, calibration, ts_output_dir_get_tmp_path (dir), host_speed, stats, error))
    {
      ts_output_dir_discard (dir);
      return FALSE;
    }
  return ts_output_dir_commit (dir, error);
}
