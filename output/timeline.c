#include <config.h>

#include "output/timeline.h"
#include "calibrate/calibration.h"
#include "model/stream.h"
#include "model/threads.h"

#include <math.h>
#include <string.h>

/* What part of the column being filled each region took, in column
 * widths: a rank's regions come in time order, so its row needs this for
 * one column only. */
typedef struct {
  guint32 key;
  double amount;
} Share;

typedef struct {
  guint col;         /* the column being filled */
  GArray *shares;    /* Share */
} Filling;

struct TsTimeline {
  TsTrace *trace;
  TsCalibration *calibration;
  TsTimelineOptions o;
  guint n_ranks, n_rows, stride;
  /* Rows: every stride-th rank's, each followed by its other threads'
   * (ts_trace_rank_n_threads). */
  guint *row_rank, *row_thread;  /* [row] */
  gint *rank_row;                /* [rank]: its own location's row, or -1 */
  double start;
  guint n_regions;   /* the trace's; the key n_regions is the time outside them */
  guint32 *cells;    /* [row * width + col] */
  gint8 *waits;      /* the same */
  /* The wait states' shares of each cell, [(row * width + col) * patterns +
   * pattern]: spans come in no order a column could be closed by (a
   * collective's are found when its last member arrives). */
  float *wait_shares;
  double *seconds;   /* [row * (n_regions + 1) + region]: the rows' ranks only */
  double *totals;    /* [region]: over every rank */
  /* Message ends while there are few (else both NULL): a send's time is its
   * call's entry; a receive's is the end of the call completing it, NAN
   * until then. Receives are kept in the order the rank posted them. */
  GArray *sends, *recvs;  /* Endpoint */
  GArray *messages;       /* TsTimelineMessage */
};

typedef struct {
  guint src, dst;
  guint32 comm;
  gint32 tag;
  double time;
} Endpoint;

static void
filling_init (Filling *f)
{
  f->col = 0;
  f->shares = g_array_new (FALSE, FALSE, sizeof (Share));
}

/* Column @f->col is complete: the region with the largest share. */
static guint32
filling_close (Filling *f)
{
  guint32 best = TS_TIMELINE_NONE;
  double most = 0;
  for (guint i = 0; i < f->shares->len; i++)
    {
      const Share *s = &g_array_index (f->shares, Share, i);
      if (s->amount > most)
        {
          most = s->amount;
          best = s->key;
        }
    }
  g_array_set_size (f->shares, 0);
  return best;
}

static void
filling_add (Filling *f, guint32 key, double amount)
{
  for (guint i = 0; i < f->shares->len; i++)
    if (g_array_index (f->shares, Share, i).key == key)
      {
        g_array_index (f->shares, Share, i).amount += amount;
        return;
      }
  Share s = { key, amount };
  g_array_append_val (f->shares, s);
}

static void
set_cell (TsTimeline *t, guint row, guint col, guint32 region)
{
  t->cells[(gsize) row * t->o.width + col] = region;
}

/* Paint @key over [@t0, @t1) (seconds from the start) into a row, whose
 * keys come in time order: @set writes a column's winner once time has
 * moved past it. */
static void
paint (TsTimeline *t, Filling *f, guint row, guint32 key, double t0, double t1)
{
  if (!isfinite (t0) || !isfinite (t1) || !(t1 > t0))
    return;
  double w = t->o.span / t->o.width;
  double x0 = MAX ((t0 - t->o.from) / w, 0), x1 = MIN ((t1 - t->o.from) / w, (double) t->o.width);
  if (!(x1 > x0))
    return;
  guint c0 = (guint) floor (x0), c1 = (guint) ceil (x1); /* columns [c0, c1) touched */
  for (guint c = c0; c < c1; c++)
    {
      if (c != f->col)
        {
          /* Time moved on: the column being filled is decided. */
          if (f->col < t->o.width && f->shares->len > 0)
            set_cell (t, row, f->col, filling_close (f));
          f->col = c;
        }
      double part = MIN (x1, c + 1.0) - MAX (x0, (double) c);
      filling_add (f, key, part);
    }
}

static void
finish (TsTimeline *t, Filling *f, guint row)
{
  if (f->col < t->o.width && f->shares->len > 0)
    set_cell (t, row, f->col, filling_close (f));
}

/* The row of @rank, or -1 when every k-th rank is drawn and it is not one. */
gint
ts_timeline_rank_row (const TsTimeline *t, guint rank)
{
  return rank < t->n_ranks ? t->rank_row[rank] : -1;
}

/* Every stride-th rank, and its threads, get rows: at most about
 * max_rows of them. */
static void
make_rows (TsTimeline *t, guint max_rows)
{
  guint most = 1;
  for (guint r = 0; r < t->n_ranks; r++)
    most = MAX (most, ts_trace_rank_n_threads (t->trace, r));
  t->stride = MAX ((t->n_ranks * most + max_rows - 1) / max_rows, 1);
  t->rank_row = g_new (gint, MAX (t->n_ranks, 1));
  g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) threads = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint r = 0; r < t->n_ranks; r++)
    {
      t->rank_row[r] = r % t->stride == 0 ? (gint) ranks->len : -1;
      for (guint k = 0; r % t->stride == 0 && k < ts_trace_rank_n_threads (t->trace, r); k++)
        {
          g_array_append_val (ranks, r);
          g_array_append_val (threads, k);
        }
    }
  t->n_rows = ranks->len;
  t->row_rank = (guint *) g_array_free (g_steal_pointer (&ranks), FALSE);
  t->row_thread = (guint *) g_array_free (g_steal_pointer (&threads), FALSE);
}

/* A rank's message ends as its actions go by (@pending: its receives that
 * the MPI call under way completes). */
typedef struct {
  GArray *pending;       /* guint: indices into recvs */
  GHashTable *irecvs;    /* request id -> index into recvs + 1 */
} Ends;

static void
note_endpoint (TsTimeline *t, guint rank, const TsAction *a, double now, Ends *e)
{
  if (!t->sends)
    return;
  gboolean send = a->kind == TS_ACTION_SEND || a->kind == TS_ACTION_ISEND;
  gboolean recv = a->kind == TS_ACTION_RECV || a->kind == TS_ACTION_IRECV;
  if ((send || recv) && a->peer < 0)
    {
      /* A message whose peer the trace lost: matching the others in order
       * would pair them wrongly; none are drawn. */
      g_clear_pointer (&t->sends, g_array_unref);
      g_clear_pointer (&t->recvs, g_array_unref);
      return;
    }
  if (send || recv)
    {
      guint peer = ts_trace_comm_world_rank (t->trace, a->comm, rank, (guint) a->peer);
      Endpoint p = { send ? rank : peer, send ? peer : rank, a->comm, a->tag, send ? now : NAN };
      g_array_append_val (send ? t->sends : t->recvs, p);
      guint at = t->recvs->len - 1;
      if (a->kind == TS_ACTION_RECV)
        g_array_append_val (e->pending, at);
      else if (a->kind == TS_ACTION_IRECV)
        g_hash_table_insert (e->irecvs, g_memdup2 (&a->req, sizeof a->req), GUINT_TO_POINTER (at + 1));
    }
  else if (a->kind == TS_ACTION_WAIT)
    {
      gpointer at = g_hash_table_lookup (e->irecvs, &a->req);
      if (at)
        {
          guint i = GPOINTER_TO_UINT (at) - 1;
          g_array_append_val (e->pending, i);
          g_hash_table_remove (e->irecvs, &a->req);
        }
    }
  if (t->sends->len > TS_TIMELINE_MAX_MESSAGES || t->recvs->len > TS_TIMELINE_MAX_MESSAGES)
    {
      /* Too many to draw: none are. */
      g_clear_pointer (&t->sends, g_array_unref);
      g_clear_pointer (&t->recvs, g_array_unref);
    }
}

/* An MPI call ends at @now: the receives it completed arrived by then. */
static void
call_ended (TsTimeline *t, Ends *e, double now)
{
  for (guint i = 0; t->recvs && i < e->pending->len; i++)
    g_array_index (t->recvs, Endpoint, g_array_index (e->pending, guint, i)).time = now;
  g_array_set_size (e->pending, 0);
}

/* The k-th send of each (sender, receiver, communicator, tag) to the k-th
 * receive posted for it. */
static void
match_messages (TsTimeline *t)
{
  if (!t->sends)
    return;
  t->messages = g_array_new (FALSE, FALSE, sizeof (TsTimelineMessage));
  g_autoptr (GHashTable) next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < t->recvs->len; i++)
    {
      const Endpoint *r = &g_array_index (t->recvs, Endpoint, i);
      char *key = g_strdup_printf ("%u/%u/%u/%d", r->src, r->dst, r->comm, r->tag);
      guint k = GPOINTER_TO_UINT (g_hash_table_lookup (next, key));
      g_hash_table_replace (next, key, GUINT_TO_POINTER (k + 1));
      /* The k-th send of that channel. */
      for (guint j = 0, seen = 0; j < t->sends->len; j++)
        {
          const Endpoint *s = &g_array_index (t->sends, Endpoint, j);
          if (s->src != r->src || s->dst != r->dst || s->comm != r->comm || s->tag != r->tag)
            continue;
          if (seen++ == k)
            {
              /* Drawn only when both ends are in the window. */
              if (!isnan (r->time) && s->time >= t->o.from && r->time <= t->o.from + t->o.span)
                {
                  TsTimelineMessage m = { s->src, s->dst, s->time, r->time };
                  g_array_append_val (t->messages, m);
                }
              break;
            }
        }
    }
}

/* One rank's actions: the innermost open region between two region
 * markers held the rank all that time. */
static gboolean
read_rank (TsTimeline *t, TsActionStream *s, guint rank, GError **error)
{
  guint n_regions = t->n_regions;
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  gint row = ts_timeline_rank_row (t, rank);
  Filling f;
  filling_init (&f);
  double previous = NAN;
  TsAction a;
  GError *local = NULL;
  Ends ends = { g_array_new (FALSE, FALSE, sizeof (guint)),
                g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL) };
  while (ts_action_stream_next (s, rank, &a, &local))
    {
      double now = a.time - t->start;
      if (a.kind != TS_ACTION_ENTER && a.kind != TS_ACTION_LEAVE)
        {
          note_endpoint (t, rank, &a, now, &ends);
          continue;
        }
      if (!isnan (previous) && now > previous)
        {
          /* No region open: the time outside every region (key n_regions),
           * a trace of MPI calls only's compute, which would be drawn as
           * the page's white. */
          guint32 top = stack->len > 0 ? g_array_index (stack, guint32, stack->len - 1) : n_regions;
          if (top <= n_regions)
            {
              t->totals[top] += now - previous;
              if (row >= 0)
                {
                  t->seconds[(gsize) row * (n_regions + 1) + top] += now - previous;
                  paint (t, &f, (guint) row, top, previous, now);
                }
            }
        }
      if (a.kind == TS_ACTION_ENTER)
        g_array_append_val (stack, a.region);
      else if (stack->len > 0)
        {
          if (ts_trace_region_call (t->trace, a.region) != TS_CALL_USER)
            call_ended (t, &ends, now);
          g_array_set_size (stack, stack->len - 1);
        }
      previous = now;
    }
  g_array_unref (ends.pending);
  g_hash_table_unref (ends.irecvs);
  if (row >= 0)
    finish (t, &f, (guint) row);
  g_array_unref (f.shares);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

/* The other threads' rows, from their own locations' regions as they come
 * (a thread's whole, then the next's): the innermost open region held the
 * thread; outside every region it was idle, drawn as nothing. Their time
 * goes into their rows' seconds (the heat map), not into the regions'
 * totals, which stay the ranks' own. */
typedef struct {
  TsTimeline *t;
  gint row;                  /* the thread being read's row, -1: none */
  guint rank, thread;
  GArray *stack;             /* guint32 */
  double previous;
  Filling f;
} ThreadRows;

static void
thread_row_end (ThreadRows *tr)
{
  if (tr->row >= 0)
    finish (tr->t, &tr->f, (guint) tr->row);
  g_array_set_size (tr->f.shares, 0);
  tr->f.col = 0;
  g_array_set_size (tr->stack, 0);
  tr->previous = NAN;
}

static void
on_thread_region (guint rank, guint thread, gboolean enter, gint region, double seconds,
                  gpointer data)
{
  ThreadRows *tr = data;
  TsTimeline *t = tr->t;
  if (isnan (tr->previous) || rank != tr->rank || thread != tr->thread)
    {
      thread_row_end (tr);
      tr->rank = rank;
      tr->thread = thread;
      gint own = ts_timeline_rank_row (t, rank);
      tr->row = own >= 0 && thread < ts_trace_rank_n_threads (t->trace, rank) ? own + (gint) thread
                                                                                : -1;
    }
  double now = seconds + ts_calibration_clock_offset (t->calibration, rank) - t->start;
  if (tr->row >= 0 && !isnan (tr->previous) && now > tr->previous)
    {
      guint32 top = tr->stack->len ? g_array_index (tr->stack, guint32, tr->stack->len - 1)
                                   : TS_TIMELINE_NONE;
      if (top < t->n_regions)
        t->seconds[(gsize) tr->row * (t->n_regions + 1) + top] += now - tr->previous;
      paint (t, &tr->f, (guint) tr->row, top < t->n_regions ? top : TS_TIMELINE_NONE,
             tr->previous, now);
    }
  if (enter)
    {
      guint32 key = region >= 0 ? (guint32) region : TS_TIMELINE_NONE;
      g_array_append_val (tr->stack, key);
    }
  else if (tr->stack->len > 0)
    g_array_set_size (tr->stack, tr->stack->len - 1);
  tr->previous = now;
}

static gboolean
read_threads (TsTimeline *t, GError **error)
{
  ThreadRows tr = { t, -1, 0, 0, g_array_new (FALSE, FALSE, sizeof (guint32)), NAN };
  filling_init (&tr.f);
  gboolean ok = ts_thread_regions_read (t->trace, on_thread_region, &tr, error);
  thread_row_end (&tr);
  g_array_unref (tr.stack);
  g_array_unref (tr.f.shares);
  return ok;
}

/* Wait-state spans, in whatever order the analysis finds them: their
 * shares of each column they touch. */
static void
on_span (TsWaitPattern p, guint rank, guint region, double start, double seconds, gpointer data)
{
  TsTimeline *t = data;
  gint row = ts_timeline_rank_row (t, rank);
  double t0 = start - t->start, t1 = t0 + seconds;
  /* Wrong order is a part of Late Sender: its hatch is Late Sender's. */
  if (row < 0 || p == TS_WAIT_LATE_SENDER_WRONG_ORDER || !isfinite (t0) || !isfinite (t1)
      || !(t1 > t0))
    return;
  double w = t->o.span / t->o.width;
  double x0 = MAX ((t0 - t->o.from) / w, 0), x1 = MIN ((t1 - t->o.from) / w, (double) t->o.width);
  for (guint c = (guint) floor (x0); x1 > x0 && c < (guint) ceil (x1); c++)
    t->wait_shares[((gsize) row * t->o.width + c) * TS_WAIT_N_PATTERNS + p]
      += (float) (MIN (x1, c + 1.0) - MAX (x0, (double) c));
}

/* Each cell's pattern: the largest share, if it fills half the column. */
static void
decide_waits (TsTimeline *t)
{
  for (gsize cell = 0; cell < (gsize) t->n_rows * t->o.width; cell++)
    {
      const float *share = &t->wait_shares[cell * TS_WAIT_N_PATTERNS];
      gint best = TS_TIMELINE_NO_WAIT;
      for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
        if (share[p] >= 0.5f && (best < 0 || share[p] > share[best]))
          best = (gint) p;
      t->waits[cell] = (gint8) best;
    }
}

static gboolean
read_archive (TsTimeline *t, const char *anchor, GError **error)
{
  if (!(t->trace = ts_trace_open (anchor, error))
      || !(t->calibration = ts_calibration_compute (t->trace, error)))
    return FALSE;
  t->n_ranks = ts_trace_n_ranks (t->trace);
  t->start = ts_calibration_start (t->calibration);
  make_rows (t, MAX (t->o.max_rows, 1));
  gsize n_cells = (gsize) t->n_rows * t->o.width;
  t->cells = g_new (guint32, n_cells);
  for (gsize i = 0; i < n_cells; i++)
    t->cells[i] = TS_TIMELINE_NONE;
  t->waits = g_new (gint8, n_cells);
  memset (t->waits, TS_TIMELINE_NO_WAIT, n_cells);
  t->n_regions = ts_trace_n_regions (t->trace);
  t->seconds = g_new0 (double, (gsize) t->n_rows * (t->n_regions + 1));
  t->totals = g_new0 (double, t->n_regions + 1);
  g_autoptr (TsActionStream) s = ts_calibration_stream_open (t->calibration, t->trace, error);
  if (!s)
    return FALSE;
  t->sends = g_array_new (FALSE, FALSE, sizeof (Endpoint));
  t->recvs = g_array_new (FALSE, FALSE, sizeof (Endpoint));
  for (guint r = 0; r < t->n_ranks; r++)
    if (!read_rank (t, s, r, error))
      return FALSE;
  if (!read_threads (t, error))
    return FALSE;
  match_messages (t);
  if (!t->o.wait_states)
    return TRUE;
  t->wait_shares = g_new0 (float, n_cells * TS_WAIT_N_PATTERNS);
  g_autoptr (TsWaitStates) w = ts_wait_states_analyse_spans (t->trace, t->calibration, on_span, t,
                                                              error);
  if (!w)
    return FALSE;
  decide_waits (t);
  g_clear_pointer (&t->wait_shares, g_free);
  return TRUE;
}

TsTimeline *
ts_timeline_build (const char *anchor, const TsTimelineOptions *options, GError **error)
{
  g_return_val_if_fail (options->width > 0 && options->span > 0, NULL);
  TsTimeline *t = g_new0 (TsTimeline, 1);
  t->o = *options;
  if (read_archive (t, anchor, error))
    return t;
  ts_timeline_free (t);
  return NULL;
}

void
ts_timeline_free (TsTimeline *t)
{
  if (!t)
    return;
  g_free (t->wait_shares);
  g_free (t->row_rank);
  g_free (t->row_thread);
  g_free (t->rank_row);
  g_free (t->cells);
  g_free (t->waits);
  g_free (t->seconds);
  g_free (t->totals);
  g_clear_pointer (&t->sends, g_array_unref);
  g_clear_pointer (&t->recvs, g_array_unref);
  g_clear_pointer (&t->messages, g_array_unref);
  g_clear_pointer (&t->calibration, ts_calibration_free);
  g_clear_pointer (&t->trace, ts_trace_free);
  g_free (t);
}

guint ts_timeline_n_ranks (const TsTimeline *t) { return t->n_ranks; }
guint ts_timeline_n_rows (const TsTimeline *t) { return t->n_rows; }
guint ts_timeline_row_rank (const TsTimeline *t, guint row) { return t->row_rank[row]; }
guint ts_timeline_row_thread (const TsTimeline *t, guint row) { return t->row_thread[row]; }
guint ts_timeline_n_regions (const TsTimeline *t) { return t->n_regions + 1; }

guint32
ts_timeline_cell (const TsTimeline *t, guint row, guint col)
{
  return t->cells[(gsize) row * t->o.width + col];
}

gint
ts_timeline_wait (const TsTimeline *t, guint row, guint col)
{
  return t->waits[(gsize) row * t->o.width + col];
}

const char *
ts_timeline_region_name (const TsTimeline *t, guint32 region)
{
  return region == t->n_regions ? TS_TIMELINE_OUTSIDE_NAME : ts_trace_region_name (t->trace, region);
}

guint32
ts_timeline_region_by_name (const TsTimeline *t, const char *name)
{
  if (g_str_equal (name, TS_TIMELINE_OUTSIDE_NAME))
    return t->n_regions;
  gint r = ts_trace_region_by_name (t->trace, name);
  return r < 0 ? TS_TIMELINE_NONE : (guint32) r;
}

gboolean
ts_timeline_region_is_mpi (const TsTimeline *t, guint32 region)
{
  return region < t->n_regions && ts_trace_region_call (t->trace, region) != TS_CALL_USER;
}

double
ts_timeline_row_seconds (const TsTimeline *t, guint row, guint32 region)
{
  return t->seconds[(gsize) row * (t->n_regions + 1) + region];
}

double
ts_timeline_region_total (const TsTimeline *t, guint32 region)
{
  return t->totals[region];
}

guint ts_timeline_width (const TsTimeline *t) { return t->o.width; }

const GArray *
ts_timeline_messages (const TsTimeline *t)
{
  return t->messages;
}
