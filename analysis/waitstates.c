#include <config.h>

#define G_LOG_DOMAIN "ts-waitstates"

#include "analysis/waitstates-private.h"
#include "model/stream.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>
#include "model/channel.h"

static const char *const pattern_names[TS_WAIT_N_PATTERNS] = {
  "late_sender", "late_receiver", "wait_nxn", "wait_barrier", "late_broadcast", "early_reduce",
  "partitioned_late_sender", "late_sender_wrong_order", "nxn_completion", "barrier_completion",
  "early_scan", "init_completion", "finalize_wait",
  "omp_barrier_wait", "omp_idle_threads", "omp_limited_parallelism", "omp_lock_contention",
};

const char *
ts_wait_pattern_name (TsWaitPattern p)
{
  return p < TS_WAIT_N_PATTERNS ? pattern_names[p] : NULL;
}

static guint64
cell_key (TsWaitPattern p, guint region, guint rank)
{
  return ((guint64) p << 56) | ((guint64) region << 28) | rank;
}

void
ts_wait_add (TsWaitStates *w, TsWaitPattern p, guint32 region, guint rank, double start,
             double seconds)
{
  if (!(seconds > 0))
    return;
  if (w->span_func)
    w->span_func (p, rank, region, start, seconds, w->span_data);
  w->totals[p * w->n_ranks + rank] += seconds;
  *ts_wait_cell (w->cells, cell_key (p, region, rank)) += seconds;
}

GHashTable *
ts_wait_cells_new (void)
{
  return g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

double *
ts_wait_cell (GHashTable *cells, guint64 key)
{
  TsWaitCell *cell = g_hash_table_lookup (cells, &key);
  if (!cell)
    {
      cell = g_new (TsWaitCell, 1);
      *cell = (TsWaitCell) { key, 0 };
      g_hash_table_add (cells, cell);
    }
  return &cell->seconds;
}

/* ---- point-to-point ---------------------------------------------------------- */

/* A message's two ends. Each is complete when matched and, for the side
 * that can wait, when its blocking call is known (a wait comes later than
 * the post of a non-blocking operation). */
typedef struct {
  guint rank;
  guint32 region;            /* the call that blocks for it */
  double post;               /* receive posted */
  double block;              /* receiving call entered; NaN until known */
  double send_enter;         /* NaN until matched */
  double end;                /* receiving call left; NaN until known */
  gboolean in_queue, in_requests, in_call, settled;
} RecvEnd;

typedef struct {
  guint rank;
  guint32 region;
  double enter;              /* send started */
  double block;              /* blocking call entered (the send, or its wait); NaN until known */
  double recv_post;          /* NaN until matched */
  double end;                /* blocking call left; NaN until known */
  gboolean in_queue, in_requests, in_call, settled;
} SendEnd;

typedef struct {
  GQueue sends, recvs;       /* unmatched, in posting order */
} Channel;


static void
channel_free (gpointer p)
{
  Channel *c = p;
  g_queue_clear_full (&c->sends, g_free);
  g_queue_clear_full (&c->recvs, g_free);
  g_free (c);
}

/* ---- partitioned ------------------------------------------------------------- */

/* One pair of partitioned requests (channel, k-th initialisation): the
 * latest MPI_Pready entry of each round the sender started that the
 * receiver has not completed yet. */
struct PPair {
  GQueue rounds;             /* double* latest Pready entry, oldest first */
};

static void
ppair_free (gpointer p)
{
  PPair *pp = p;
  g_queue_clear_full (&pp->rounds, g_free);
  g_free (pp);
}

static Channel *
channel_of (Analysis *an, guint src, guint dst, guint32 comm, gint32 tag)
{
  TsChannel k = { src, dst, comm, tag };
  Channel *c = g_hash_table_lookup (an->channels, &k);
  if (!c)
    {
      c = g_new0 (Channel, 1);
      g_hash_table_insert (an->channels, g_memdup2 (&k, sizeof k), c);
    }
  return c;
}

/* An end is released once nothing refers to it. */
static void
recv_release (RecvEnd *r)
{
  if (!r->in_queue && !r->in_requests && !r->in_call)
    g_free (r);
}

static void
send_release (SendEnd *s)
{
  if (!s->in_queue && !s->in_requests && !s->in_call)
    g_free (s);
}

/* The current call of @cu blocks for this end. */
static void
block_in_call (Cursor *cu, gpointer end, gboolean is_send)
{
  if (is_send)
    ((SendEnd *) end)->in_call = TRUE;
  else
    ((RecvEnd *) end)->in_call = TRUE;
  g_ptr_array_add (cu->in_call, GSIZE_TO_POINTER (GPOINTER_TO_SIZE (end) | (is_send ? 1 : 0)));
}

/* Scalasca keeps this many recent Late Sender instances per rank to find
 * the Wrong Order ones among them. */
#define TS_WRONG_ORDER_WINDOW 100

/* A Late Sender instance, until a later receive shows it Wrong Order. */
typedef struct {
  double send_enter;         /* of the message waited for */
  double start, seconds;
  guint32 region;
} LateSender;

/* Late Sender / Wrong Order (Scalasca 2.6): a receive of a message sent at
 * @send_enter makes every recent Late Sender instance of this rank that
 * waited for a message sent later Wrong Order (counted once each): had the
 * rank received in send order, it would not have waited for that one. */
/* The latest send among the remembered instances: a receive of a message
 * sent at or after it makes none of them Wrong Order, the common case. */
static void
update_latest_send (Cursor *cu)
{
  cu->late_senders_latest = -INFINITY;
  for (GList *l = cu->late_senders.head; l; l = l->next)
    cu->late_senders_latest = MAX (cu->late_senders_latest, ((LateSender *) l->data)->send_enter);
}

static void
check_wrong_order (Analysis *an, Cursor *cu, double send_enter)
{
  if (!(send_enter < cu->late_senders_latest))
    return;
  for (GList *l = cu->late_senders.head; l;)
    {
      GList *next = l->next;
      LateSender *ls = l->data;
      if (ls->send_enter > send_enter)
        {
          ts_wait_add (an->w, TS_WAIT_LATE_SENDER_WRONG_ORDER, ls->region, cu->rank, ls->start,
                       ls->seconds);
          g_free (ls);
          g_queue_delete_link (&cu->late_senders, l);
        }
      l = next;
    }
  update_latest_send (cu);
}

static void
remember_late_sender (Cursor *cu, double send_enter, double start, double seconds,
                      guint32 region)
{
  LateSender *ls = g_new (LateSender, 1);
  *ls = (LateSender) { send_enter, start, seconds, region };
  g_queue_push_tail (&cu->late_senders, ls);
  cu->late_senders_latest = MAX (cu->late_senders_latest, send_enter);
  if (cu->late_senders.length > TS_WRONG_ORDER_WINDOW)
    {
      LateSender *oldest = g_queue_pop_head (&cu->late_senders);
      if (oldest->send_enter >= cu->late_senders_latest)
        update_latest_send (cu);
      g_free (oldest);
    }
}

/* Whether a send completed in call @region can show Late Receiver, as
 * Scalasca 2.6 counts it: a blocking MPI_Send or MPI_Ssend (not Bsend,
 * Rsend or Sendrecv), or a wait (not a test); a Waitall or Waitsome only
 * if it showed no Late Sender. */
static gboolean
late_receiver_counts (Analysis *an, guint32 region, double late_sender)
{
  switch (ts_trace_region_call (an->trace, region))
    {
    case TS_CALL_SEND:
      {
        const char *name = ts_trace_region_name (an->trace, region);
        return strcmp (name, "MPI_Send") == 0 || strcmp (name, "MPI_Ssend") == 0;
      }
    case TS_CALL_WAIT:
    case TS_CALL_WAITANY:
      return TRUE;
    case TS_CALL_WAITALL:
    case TS_CALL_WAITSOME:
      return !(late_sender > 0);
    default:
      return FALSE;
    }
}

/* When an MPI call ends, its waiting, as Scalasca 2.6 defines it
 * (doc/waitstates.md). Late Sender: from its entry until the latest send it
 * received from began, at most until it left; not in tests of a recording
 * (a test that completes a receive returned at once), but in those of a
 * predicted execution, where the replay blocks a test that completed in the
 * trace until its message arrives in the changed world. Late Receiver:
 * a send still in its call when its receive was posted waited from the
 * call's entry until then. A call completing several messages (MPI_Waitall)
 * waited once, for the latest. By then the partner's entry has been read:
 * it happened before this call ended. */
static void
on_call_end (Analysis *an, Cursor *cu, guint32 region, double end)
{
  /* A call the trace never ends (end NaN) is of no known kind. */
  gboolean test = !isnan (end) && ts_trace_region_call (an->trace, region) == TS_CALL_TEST;
  double late_sender = 0, late_receiver = 0, ls_send = NAN, start = NAN, lr_start = NAN;
  for (guint i = 0; i < cu->in_call->len; i++)
    {
      gsize v = GPOINTER_TO_SIZE (g_ptr_array_index (cu->in_call, i));
      if (v & 1)
        {
          SendEnd *s = GSIZE_TO_POINTER (v & ~(gsize) 1);
          if (!isnan (s->recv_post) && end > s->recv_post
              && s->recv_post - s->block > late_receiver)
            {
              late_receiver = s->recv_post - s->block;
              lr_start = s->block;
            }
          s->in_call = FALSE;
          send_release (s);
        }
      else
        {
          RecvEnd *r = GSIZE_TO_POINTER (v);
          if (!isnan (r->send_enter))
            {
              check_wrong_order (an, cu, r->send_enter);
              double ls = MIN (r->send_enter, end) - r->block;
              if ((!test || an->tests_wait) && ls > late_sender)
                {
                  late_sender = ls;
                  ls_send = r->send_enter;
                  start = r->block;
                }
            }
          r->in_call = FALSE;
          recv_release (r);
        }
    }
  g_ptr_array_set_size (cu->in_call, 0);
  if (cu->pwait)
    {
      /* Partitioned Late Sender (seed 000): from entering the wait to the
       * start of the last MPI_Pready of the round it completes. */
      double *last = g_queue_pop_head (&cu->pwait->rounds);
      if (last && isfinite (end))
        ts_wait_add (an->w, TS_WAIT_PARTITIONED_LATE_SENDER, region, cu->rank, cu->pwait_enter,
                  MIN (*last, end) - cu->pwait_enter);
      g_free (last);
      cu->pwait = NULL;
    }
  if (!isfinite (end))
    return;
  if (late_sender > 0)
    {
      ts_wait_add (an->w, TS_WAIT_LATE_SENDER, region, cu->rank, start, late_sender);
      remember_late_sender (cu, ls_send, start, late_sender, region);
    }
  if (late_receiver > 0 && late_receiver_counts (an, region, late_sender))
    ts_wait_add (an->w, TS_WAIT_LATE_RECEIVER, region, cu->rank, lr_start, late_receiver);
}

static void
match (Analysis *an, Channel *c)
{
  while (c->sends.length > 0 && c->recvs.length > 0)
    {
      SendEnd *s = g_queue_pop_head (&c->sends);
      RecvEnd *r = g_queue_pop_head (&c->recvs);
      s->in_queue = r->in_queue = FALSE;
      r->send_enter = s->enter;
      s->recv_post = r->post;
      recv_release (r);
      send_release (s);
    }
}

static void
on_send (Analysis *an, Cursor *cu, const TsAction *a)
{
  SendEnd *s = g_new0 (SendEnd, 1);
  s->rank = cu->rank;
  s->region = a->call;
  s->enter = a->time;
  s->block = s->end = NAN;
  s->recv_post = NAN;
  s->in_queue = TRUE;
  if (a->kind == TS_ACTION_SEND)
    {
      s->block = a->time;
      block_in_call (cu, s, TRUE);
    }
  if (a->kind == TS_ACTION_ISEND)
    {
      s->in_requests = TRUE;
      g_hash_table_replace (cu->requests, g_memdup2 (&a->req, sizeof a->req),
                            GSIZE_TO_POINTER (GPOINTER_TO_SIZE (s) | 1));
    }
  guint dst = ts_trace_comm_world_rank (an->trace, a->comm, cu->rank, a->peer);
  Channel *c = channel_of (an, cu->rank, dst, a->comm, a->tag);
  g_queue_push_tail (&c->sends, s);
  match (an, c);
}

static void
on_recv (Analysis *an, Cursor *cu, const TsAction *a)
{
  if (a->flags & TS_ACTION_MISSING)
    return;
  RecvEnd *r = g_new0 (RecvEnd, 1);
  r->rank = cu->rank;
  r->region = a->call;
  r->post = a->time;
  r->block = r->end = NAN;
  r->send_enter = NAN;
  r->in_queue = TRUE;
  if (a->kind == TS_ACTION_RECV)
    {
      r->block = a->time;
      block_in_call (cu, r, FALSE);
    }
  if (a->kind == TS_ACTION_IRECV)
    {
      r->in_requests = TRUE;
      g_hash_table_replace (cu->requests, g_memdup2 (&a->req, sizeof a->req), r);
    }
  guint src = ts_trace_comm_world_rank (an->trace, a->comm, cu->rank, a->peer);
  Channel *c = channel_of (an, src, cu->rank, a->comm, a->tag);
  g_queue_push_tail (&c->recvs, r);
  match (an, c);
}

/* The call completing a non-blocking request is where its end blocks. */
static void
on_wait (Analysis *an, Cursor *cu, const TsAction *a)
{
  gpointer key, v;
  if (!g_hash_table_steal_extended (cu->requests, &a->req, &key, &v))
    return;
  g_free (key);
  if (GPOINTER_TO_SIZE (v) & 1)
    {
      SendEnd *s = GSIZE_TO_POINTER (GPOINTER_TO_SIZE (v) & ~(gsize) 1);
      s->in_requests = FALSE;
      s->region = a->call;
      s->block = a->time;
      block_in_call (cu, s, TRUE);
    }
  else
    {
      RecvEnd *r = v;
      r->in_requests = FALSE;
      r->region = a->call;
      r->block = a->time;
      block_in_call (cu, r, FALSE);
    }
}

static void
on_partitioned (Analysis *an, Cursor *cu, const TsAction *a)
{
  if (a->kind == TS_ACTION_PINIT)
    {
      gboolean send = a->direction == TS_PARTITIONED_SEND;
      guint peer = ts_trace_comm_world_rank (an->trace, a->comm, cu->rank, a->peer);
      TsPartitionedKey key = { { send ? cu->rank : peer, send ? peer : cu->rank, a->comm, a->tag }, 0 };
      struct { TsChannel c; gboolean send; } side = { key.channel, send };
      GBytes *b = g_bytes_new (&side, sizeof side);
      if (!cu->prequests)
        {
          /* Made at a rank's first partitioned call: three tables per rank
           * that has none would be most of a cursor. */
          cu->prequests = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
          cu->psend = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
          cu->pinit_count = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                   (GDestroyNotify) g_bytes_unref, NULL);
        }
      key.k = GPOINTER_TO_UINT (g_hash_table_lookup (cu->pinit_count, b));
      g_hash_table_replace (cu->pinit_count, b, GUINT_TO_POINTER (key.k + 1));
      PPair *pp = g_hash_table_lookup (an->ppairs, &key);
      if (!pp)
        {
          pp = g_new0 (PPair, 1);
          g_hash_table_insert (an->ppairs, g_memdup2 (&key, sizeof key), pp);
        }
      g_hash_table_replace (cu->prequests, g_memdup2 (&a->req, sizeof a->req), pp);
      if (send)
        g_hash_table_add (cu->psend, g_memdup2 (&a->req, sizeof a->req));
      else
        g_hash_table_remove (cu->psend, &a->req);
      return;
    }
  PPair *pp = cu->prequests ? g_hash_table_lookup (cu->prequests, &a->req) : NULL;
  if (!pp)
    return;
  gboolean send = g_hash_table_contains (cu->psend, &a->req);
  if (send && a->kind == TS_ACTION_PSTART)
    {
      double *latest = g_new (double, 1);
      *latest = -INFINITY;
      g_queue_push_tail (&pp->rounds, latest);
    }
  else if (send && a->kind == TS_ACTION_PREADY && pp->rounds.length > 0)
    {
      double *latest = g_queue_peek_tail (&pp->rounds);
      *latest = MAX (*latest, a->time);
    }
  else if (!send && a->kind == TS_ACTION_PCOMPLETE)
    {
      /* The sender's MPI_Preadys of this round started before this call
       * ends (the data arrived): they are read by then. */
      cu->pwait = pp;
      cu->pwait_enter = a->time;
    }
}

static void
process (Analysis *an, Cursor *cu, const TsAction *a)
{
  switch ((TsActionKind) a->kind)
    {
    case TS_ACTION_SEND:
    case TS_ACTION_ISEND:
      on_send (an, cu, a);
      break;
    case TS_ACTION_RECV:
    case TS_ACTION_IRECV:
      on_recv (an, cu, a);
      break;
    case TS_ACTION_WAIT:
      on_wait (an, cu, a);
      break;
    case TS_ACTION_COLLECTIVE:
      ts_wait_on_collective (an, cu, a);
      break;
    case TS_ACTION_ENTER:
      if (an->lifecycle[a->region] != TS_WAIT_LIFECYCLE_NONE)
        ts_wait_on_lifecycle (an, cu, a, an->lifecycle[a->region]);
      ts_wait_omp_enter (an, cu, a);
      break;
    case TS_ACTION_LEAVE:
      ts_wait_omp_leave (an, cu, a);
      if (ts_trace_region_call (an->trace, a->region) == TS_CALL_USER)
        break;
      if (cu->in_call->len > 0 || cu->pwait)
        on_call_end (an, cu, a->region, a->time);
      ts_wait_collective_left (an, cu, a->region, a->time);
      break;
    case TS_ACTION_PINIT:
    case TS_ACTION_PSTART:
    case TS_ACTION_PREADY:
    case TS_ACTION_PCOMPLETE:
      on_partitioned (an, cu, a);
      break;
    default:
      ts_wait_omp_other (an, cu, a);
      break;
    }
}

static void
release_request (gpointer value)
{
  /* Requests never completed in the trace: their ends are freed here unless
   * a channel queue still holds them (freed with the channel). */
  gsize v = GPOINTER_TO_SIZE (value);
  if (v & 1)
    {
      SendEnd *s = GSIZE_TO_POINTER (v & ~(gsize) 1);
      s->in_requests = FALSE;
      if (!s->in_queue && !s->in_call)
        g_free (s);
    }
  else
    {
      RecvEnd *r = value;
      r->in_requests = FALSE;
      if (!r->in_queue && !r->in_call)
        g_free (r);
    }
}

static void
cursor_init (Cursor *cu, const TsTrace *trace, guint rank)
{
  cu->rank = rank;
  cu->requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, release_request);
  cu->in_call = g_ptr_array_new ();
  cu->coll_seen = g_new0 (guint64, ts_trace_n_comms (trace));
  cu->late_senders_latest = -INFINITY;
}

/* End of the rank's actions (or of the analysis, on an error): a call
 * still open never ended. Initialised or not, the cursor is cleared. */
static void
cursor_finish (Analysis *an, Cursor *cu)
{
  if (cu->in_call)
    {
      on_call_end (an, cu, 0, NAN);
      g_ptr_array_unref (cu->in_call);
    }
  if (cu->requests)
    g_hash_table_unref (cu->requests);
  if (cu->prequests)
    {
      g_hash_table_unref (cu->prequests);
      g_hash_table_unref (cu->psend);
      g_hash_table_unref (cu->pinit_count);
    }
  if (cu->thread == 0)
    g_free (cu->coll_seen);
  g_queue_clear_full (&cu->late_senders, g_free);
  g_clear_pointer (&cu->omp_stack, g_array_unref);
}

/* A cursor on each of @stream's streams: the ranks', then their threads'
 * with MPI, whose waits are their rank's; those with a first action in
 * @queue. */
static gboolean
open_cursors (const TsTrace *trace, TsActionStream *stream, Cursor *cursors,
              TsCursorHeap *queue, GError **error)
{
  for (guint i = 0; i < ts_action_stream_n (stream); i++)
    {
      Cursor *cu = &cursors[i];
      cursor_init (cu, trace, ts_trace_stream_rank (trace, i));
      cu->stream = i;
      cu->thread = ts_trace_stream_thread (trace, i);
      if (cu->thread > 0)
        {
          g_free (cu->coll_seen);
          cu->coll_seen = cursors[cu->rank].coll_seen;
        }
      cu->has_next = ts_action_stream_next (stream, i, &cu->next, error);
      if (error && *error)
        return FALSE;
      if (cu->has_next)
        ts_cursor_heap_push (queue, cu);
    }
  return TRUE;
}

/* The wait states of every rank's actions in @stream. */
static TsWaitStates *
analyse (const TsTrace *trace, guint n_ranks, TsActionStream *stream, TsWaitSpanFunc func,
         gpointer user_data, GCancellable *cancellable, GError **error)
{
  TsWaitStates *w = g_new0 (TsWaitStates, 1);
  w->trace = trace;
  /* Spans are located by rank: with threads that call MPI, a thread's
   * wait would be placed on its rank's own location, out of its order.
   * Their totals are counted; their spans are not drawn yet. */
  w->span_func = ts_action_stream_n (stream) > n_ranks ? NULL : func;
  w->span_data = user_data;
  w->n_ranks = n_ranks;
  w->totals = g_new0 (double, TS_WAIT_N_PATTERNS * w->n_ranks);
  w->cells = ts_wait_cells_new ();

  Analysis an = { w, trace };
  an.tests_wait = ts_trace_is_prediction (trace);
  an.channels = g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free, channel_free);
  an.colls = ts_wait_colls_new ();
  an.lifecycle = g_new0 (guint8, ts_trace_n_regions (trace));
  for (guint r = 0; r < ts_trace_n_regions (trace); r++)
    {
      const char *name = ts_trace_region_name (trace, r);
      if (strcmp (name, "MPI_Init") == 0 || strcmp (name, "MPI_Init_thread") == 0)
        an.lifecycle[r] = TS_WAIT_LIFECYCLE_INIT;
      else if (strcmp (name, "MPI_Finalize") == 0)
        an.lifecycle[r] = TS_WAIT_LIFECYCLE_FINALIZE;
    }
  an.ppairs = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, ppair_free);

  guint n = ts_action_stream_n (stream);
  Cursor *cursors = g_new0 (Cursor, n);
  TsCursorHeap queue = { g_new (Cursor *, MAX (n, 1)), 0 };
  GError *local = NULL;
  gboolean ok = open_cursors (trace, stream, cursors, &queue, &local);
  /* Earliest action first over all ranks: sends and receives meet while few
   * are in flight. */
  for (guint64 n = 1; ok && queue.n > 0; n++)
    {
      /* Asked now and then, not per action: an atomic read. */
      if (n % 4096 == 0 && g_cancellable_set_error_if_cancelled (cancellable, &local))
        {
          ok = FALSE;
          break;
        }
      Cursor *cu = queue.items[0];
      process (&an, cu, &cu->next);
      cu->has_next = ts_action_stream_next (stream, cu->stream, &cu->next, &local);
      if (local)
        ok = FALSE;
      else if (!cu->has_next)
        queue.items[0] = queue.items[--queue.n];
      ts_cursor_heap_sift_down (&queue, 0);
    }
  if (local)
    g_propagate_error (error, local);
  g_free (queue.items);
  /* In stream order (a thread's cursor reads none of the collective
   * counts it shares with its rank's when it finishes). */
  for (guint i = 0; i < n; i++)
    cursor_finish (&an, &cursors[i]);
  g_free (cursors);
  g_hash_table_unref (an.channels);
  g_hash_table_unref (an.colls);
  g_hash_table_unref (an.ppairs);
  g_free (an.lifecycle);
  if (!ok)
    {
      ts_wait_states_free (w);
      return NULL;
    }
  return w;
}

TsWaitStates *
ts_wait_states_analyse (const TsTrace *trace, const TsCalibration *calibration, GError **error)
{
  return ts_wait_states_analyse_cancellable (trace, calibration, NULL, error);
}

TsWaitStates *
ts_wait_states_analyse_cancellable (const TsTrace *trace, const TsCalibration *calibration,
                                    GCancellable *cancellable, GError **error)
{
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (calibration, trace, error);
  return stream ? analyse (trace, ts_calibration_n_ranks (calibration), stream, NULL, NULL,
                           cancellable, error)
                : NULL;
}

TsWaitStates *
ts_wait_states_analyse_spans (const TsTrace *trace, const TsCalibration *calibration,
                              TsWaitSpanFunc func, gpointer user_data, GError **error)
{
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (calibration, trace, error);
  return stream ? analyse (trace, ts_calibration_n_ranks (calibration), stream, func, user_data,
                           NULL, error)
                : NULL;
}

TsWaitStates *
ts_wait_states_analyse_stream (const TsTrace *trace, TsActionStream *stream,
                               TsWaitSpanFunc func, gpointer user_data, GError **error)
{
  return analyse (trace, ts_trace_n_ranks (trace), stream, func, user_data, NULL, error);
}

void
ts_wait_states_free (TsWaitStates *w)
{
  if (!w)
    return;
  g_free (w->totals);
  g_hash_table_unref (w->cells);
  g_free (w);
}

double
ts_wait_states_total (const TsWaitStates *w, TsWaitPattern p)
{
  double sum = 0;
  for (guint r = 0; r < w->n_ranks; r++)
    sum += w->totals[p * w->n_ranks + r];
  return sum;
}

double
ts_wait_states_rank (const TsWaitStates *w, TsWaitPattern p, guint rank)
{
  g_return_val_if_fail (rank < w->n_ranks, 0);
  return w->totals[p * w->n_ranks + rank];
}

typedef struct {
  guint64 key;
  double seconds;
  const TsTrace *trace;
} Cell;

static gint
by_cell (gconstpointer a, gconstpointer b, gpointer trace)
{
  const Cell *x = a, *y = b;
  guint px = x->key >> 56, py = y->key >> 56;
  if (px != py)
    return px < py ? -1 : 1;
  gint c = strcmp (ts_trace_region_name (trace, (x->key >> 28) & 0xfffffff),
                   ts_trace_region_name (trace, (y->key >> 28) & 0xfffffff));
  if (c)
    return c;
  guint rx = x->key & 0xfffffff, ry = y->key & 0xfffffff;
  return rx < ry ? -1 : rx > ry;
}

void
ts_wait_states_foreach (const TsWaitStates *w, TsWaitFunc func, gpointer user_data)
{
  g_autoptr (GArray) cells = g_array_new (FALSE, FALSE, sizeof (Cell));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, w->cells);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      const TsWaitCell *wc = k;
      Cell c = { wc->key, wc->seconds, w->trace };
      g_array_append_val (cells, c);
    }
  g_array_sort_with_data (cells, by_cell, (gpointer) w->trace);
  for (guint i = 0; i < cells->len; i++)
    {
      Cell *c = &g_array_index (cells, Cell, i);
      func ((TsWaitPattern) (c->key >> 56), (c->key >> 28) & 0xfffffff, c->key & 0xfffffff,
            c->seconds, user_data);
    }
}
