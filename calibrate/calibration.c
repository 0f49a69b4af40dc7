#include <config.h>

#define G_LOG_DOMAIN "ts-calibrate"

#include "calibrate/calibration.h"
#include "calibrate/calibration-private.h"
#include "calibrate/eager.h"
#include "model/output_dir.h"

#include <math.h>
#include <string.h>

#define NO_REGION G_MAXUINT32

/* Spool buffer per rank (append in pass 1, read in the replay). */
#define SPOOL_BLOCK_BYTES (16 * 1024)




/* A partitioned initialisation seen by the first pass. */
typedef struct {
  TsChannel channel;
  gboolean send;
  guint32 partitions;
  guint64 bytes;
  guint rank;
} PInit;


static gboolean
is_synchronising (TsCollectiveOp op)
{
  TsCollectiveShape shape = ts_collective_shape (op);
  return shape == TS_COLL_SHAPE_BARRIER || shape == TS_COLL_SHAPE_N2N;
}

/* What the first pass adds up over ranks. Each worker thread has its own,
 * merged in ts_calibration_compute(). */
typedef struct {
  guint64 *region_visits;
  double *region_seconds;
  double *region_compute;    /* as TsCalibration's */
  guint8 *region_outermost;  /* as TsCalibration's */
  TsPhaseTable *phases;
  double *call_min;          /* as TsCalibration's */
  CallSample *samples;       /* [TsCallKind * TS_N_SIZE_CLASSES + size class] */
  /* Blocking receives from a rank of the same node (0) or another (1), by
   * size class, where the trace says which node each rank ran on. */
  CallSample *placed;        /* [2 * TS_N_SIZE_CLASSES] */
  /* Blocking sends of rendezvous sizes (sample_call): all, then to a rank
   * of the same node, then of another. */
  CallSample *rdv_sends;     /* [3 * TS_N_SIZE_CLASSES] */
  guint64 largest_blocking_send;
} Sums;

static void
sums_init (Sums *u, guint n_regions)
{
  gsize n_min = (gsize) n_regions * TS_N_SIZE_CLASSES * 2;
  u->region_visits = g_new0 (guint64, n_regions);
  u->region_seconds = g_new0 (double, n_regions);
  u->region_compute = g_new0 (double, n_regions);
  u->region_outermost = g_new0 (guint8, n_regions);
  u->phases = ts_phase_table_new ();
  u->call_min = g_new (double, n_min);
  for (gsize i = 0; i < n_min; i++)
    u->call_min[i] = INFINITY;
  u->samples = g_new0 (CallSample, TS_CALL_N_KINDS * TS_N_SIZE_CLASSES);
  u->placed = g_new0 (CallSample, 2 * TS_N_SIZE_CLASSES);
  u->rdv_sends = g_new0 (CallSample, 3 * TS_N_SIZE_CLASSES);
  u->largest_blocking_send = 0;
}

static void
sums_clear (Sums *u)
{
  g_free (u->region_visits);
  g_free (u->region_seconds);
  g_free (u->region_compute);
  g_free (u->region_outermost);
  ts_phase_table_free (u->phases);
  g_free (u->call_min);
  g_free (u->samples);
  g_free (u->placed);
  g_free (u->rdv_sends);
}

/* @into[i] takes the faster of @into[i] and @from[i], and the counts add up. */
static void
merge_samples (CallSample *into, const CallSample *from, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      CallSample *a = &into[i];
      const CallSample *b = &from[i];
      if (b->count > 0 && (a->count == 0 || b->min < a->min
                           || (b->min == a->min && b->bytes < a->bytes)))
        {
          a->min = b->min;
          a->bytes = b->bytes;
        }
      a->count += b->count;
    }
}

/* @into += @from; the result does not depend on how ranks were shared out,
 * but for the rounding of the region sums. */
static void
sums_merge (Sums *into, const Sums *from, guint n_regions)
{
  for (guint r = 0; r < n_regions; r++)
    {
      into->region_visits[r] += from->region_visits[r];
      into->region_seconds[r] += from->region_seconds[r];
      into->region_compute[r] += from->region_compute[r];
      into->region_outermost[r] |= from->region_outermost[r];
    }
  ts_phase_table_merge (into->phases, from->phases);
  for (gsize i = 0; i < (gsize) n_regions * TS_N_SIZE_CLASSES * 2; i++)
    into->call_min[i] = MIN (into->call_min[i], from->call_min[i]);
  merge_samples (into->samples, from->samples, TS_CALL_N_KINDS * TS_N_SIZE_CLASSES);
  merge_samples (into->placed, from->placed, 2 * TS_N_SIZE_CLASSES);
  merge_samples (into->rdv_sends, from->rdv_sends, 3 * TS_N_SIZE_CLASSES);
  into->largest_blocking_send = MAX (into->largest_blocking_send, from->largest_blocking_send);
}

/* The MPI call a rank is in during the first pass, and its region stack. */
typedef struct {
  const TsTrace *trace;
  const TsCalibration *calibration;
  guint rank;
  RankScan *scan;
  Sums *sums;
  guint32 call;                     /* NO_REGION outside calls */
  double call_enter;
  guint64 call_bytes;
  gboolean is_root;
  gint call_class;                  /* as the stream gave it; -1 until known */
  gint call_place;                  /* its message from this node (0), another (1), or -1 */
  gint coll_comm;                   /* the call's collective, -1 if none */
  gboolean coll_sync;
  gboolean coll_ordered;            /* its members' times constrain each other */
  TsCollectiveShape coll_shape;
  TsCollectiveOp coll_op;
  GArray *stack;                    /* double: enter times */
  GArray *stack_regions;            /* guint32 */
} CallScan;

static void
scan_enter (CallScan *c, const TsAction *a)
{
  if (c->stack->len == 0)
    c->sums->region_outermost[a->region] = 1;
  g_array_append_val (c->stack, a->time);
  g_array_append_val (c->stack_regions, a->region);
  if (c->call == NO_REGION && ts_trace_region_call (c->trace, a->region) != TS_CALL_USER)
    {
      ts_phase_table_end_burst (c->sums->phases);
      c->call = a->region;
      c->call_enter = a->time;
      c->call_bytes = 0;
      c->is_root = FALSE;
      c->call_class = -1;
      c->call_place = -1;
      c->coll_comm = -1;
    }
}

/* The fastest call of its kind, size class and role, and the collectives
 * that clock alignment (clocks.c) compares across ranks. */
static void
sample_call (CallScan *c, double leave, double cpu)
{
  const TsTrace *trace = c->trace;
  RankScan *scan = c->scan;
  TsCallKind kind = ts_trace_region_call (trace, c->call);
  double duration = leave - c->call_enter;
  /* The class the stream gave the call (when it ended, before a held
   * receive learnt its size), so costs are looked up alike. */
  guint cls = c->call_class >= 0 ? (guint) c->call_class : ts_size_class (c->call_bytes);
  CallSample *cs = &c->sums->samples[kind * TS_N_SIZE_CLASSES + cls];
  double *fastest = &c->sums->call_min[ts_calibration_call_min_index (c->call, cls, c->is_root)];
  /* Where the trace gives the call's CPU time (TS_COMPUTE_CPU), its work
   * is no more than that: on cores shared with other ranks, even the
   * fastest call of a kind was descheduled for part of its wall time. */
  *fastest = MIN (*fastest, isnan (cpu) ? duration : MIN (duration, cpu));
  if (!isnan (cpu))
    {
      scan->calls_cpu += MIN (cpu, duration);
      scan->calls_wall += duration;
    }
  CallSample one = { duration, c->call_bytes, 1 };
  merge_samples (cs, &one, 1);
  if (kind == TS_CALL_RECV && c->call_place >= 0)
    merge_samples (&c->sums->placed[c->call_place * TS_N_SIZE_CLASSES + cls], &one, 1);
  /* A blocking send of a size every library sends by rendezvous ends once
   * its data moved (one faster than any link handed it over: a larger
   * eager limit): ts_calibration_fit_network weighs it against receives. */
  if (kind == TS_CALL_SEND && c->call_bytes >= TS_EAGER_DEFAULT_THRESHOLD
      && duration >= c->call_bytes / TS_CALIBRATION_FASTEST_LINK)
    {
      merge_samples (&c->sums->rdv_sends[cls], &one, 1);
      if (c->call_place >= 0)
        merge_samples (&c->sums->rdv_sends[(1 + c->call_place) * TS_N_SIZE_CLASSES + cls], &one, 1);
    }
  if (c->coll_comm < 0)
    return;
  /* Samples from one communicator that spans every rank (the first such one
   * this rank synchronises on: ScaLAPACK never uses MPI_COMM_WORLD itself),
   * so the k-th sample of every rank is the same collective. */
  guint comm_size = ts_trace_comm_size (trace, c->coll_comm);
  if (c->coll_sync && scan->sync_comm < 0 && comm_size == c->calibration->n_ranks)
    scan->sync_comm = c->coll_comm;
  if (c->coll_comm == scan->sync_comm && c->coll_sync
      && scan->sync_enter->len < TS_CALIBRATION_SYNC_SAMPLES)
    {
      g_array_append_val (scan->sync_enter, c->call_enter);
      g_array_append_val (scan->sync_leave, leave);
    }
  if (c->coll_ordered && comm_size > 1)
    {
      guint32 seq = scan->coll_seq[c->coll_comm]++;
      if (scan->colls->len < TS_CALIBRATION_COLL_SAMPLES)
        {
          CollSample s = { (guint32) c->coll_comm, seq, c->rank, c->coll_shape, c->coll_op,
                           c->is_root, c->call_enter, leave };
          g_array_append_val (scan->colls, s);
        }
    }
}

static void
scan_leave (CallScan *c, const TsAction *a)
{
  /* Close the matching region and, first, those opened inside it, as the
   * replay does (actions.c, write_marker): a trace that leaves an outer
   * region before an inner one (EZTrace's "Working" and "EZTrace finalize")
   * is counted as properly nested. A region not open is not closed. */
  guint depth = c->stack_regions->len;
  while (depth > 0 && g_array_index (c->stack_regions, guint32, depth - 1) != a->region)
    depth--;
  while (depth > 0 && c->stack_regions->len >= depth)
    {
      guint last = c->stack_regions->len - 1;
      guint32 region = g_array_index (c->stack_regions, guint32, last);
      c->sums->region_visits[region]++;
      c->sums->region_seconds[region] += a->time - g_array_index (c->stack, double, last);
      g_array_set_size (c->stack, last);
      g_array_set_size (c->stack_regions, last);
    }
  if (a->region != c->call)
    return;
  sample_call (c, a->time, a->cpu);
  c->call = NO_REGION;
}

static void
scan_collective (CallScan *c, const TsAction *a)
{
  const TsTrace *trace = c->trace;
  gint me = ts_trace_comm_local_rank (trace, a->comm, c->rank);
  c->is_root = a->peer != TS_NO_RANK && me == a->peer;
  if (ts_collective_shape ((TsCollectiveOp) a->op) == TS_COLL_SHAPE_ONE2N)
    c->sums->largest_blocking_send
      = MAX (c->sums->largest_blocking_send,
             ts_collective_block (a->op, ts_trace_collective_bytes_total (trace),
                                  ts_trace_comm_size (trace, a->comm), MAX (me, 0),
                                  c->is_root, a->bytes, a->bytes_recv));
  c->coll_comm = a->comm;
  c->coll_op = (TsCollectiveOp) a->op;
  c->coll_shape = ts_collective_shape (c->coll_op);
  /* A collective that moves no data synchronises nobody: its members leave
   * it at any time (ts_collective_is_empty). */
  c->coll_ordered = c->coll_shape != TS_COLL_SHAPE_PREFIX
                    && !ts_collective_is_empty (a->op, a->bytes, a->bytes_recv);
  c->coll_sync = c->coll_ordered && is_synchronising (a->op);
  c->call_bytes = MAX (a->bytes, a->bytes_recv);
}

static gboolean
scan_rank (const TsTrace *trace, const TsCalibration *p, TsRankDecoder *s, guint rank, RankScan *scan,
           Sums *sums, TsSpool *spool, GError **error)
{
  CallScan c = { .trace = trace, .calibration = p, .rank = rank, .scan = scan, .sums = sums,
                 .call = NO_REGION, .call_class = -1, .coll_comm = -1,
                 .coll_shape = TS_COLL_SHAPE_PREFIX, .coll_op = TS_COLL_BARRIER };
  c.stack = g_array_new (FALSE, FALSE, sizeof (double));
  c.stack_regions = g_array_new (FALSE, FALSE, sizeof (guint32));
  TsAction a;
  ts_phase_table_begin_rank (sums->phases);
  while (ts_rank_decoder_next (s, &a, error))
    {
      if (spool)
        ts_spool_append (spool, rank, &a);
      if (a.flags & TS_ACTION_CALL_FIRST)
        c.call_class = a.size_class;
      switch ((TsActionKind) a.kind)
        {
        case TS_ACTION_ENTER:
          scan_enter (&c, &a);
          break;
        case TS_ACTION_LEAVE:
          scan_leave (&c, &a);
          break;
        case TS_ACTION_COLLECTIVE:
          scan_collective (&c, &a);
          break;
        case TS_ACTION_ICOLLECTIVE:
          c.call_bytes = MAX (a.bytes, a.bytes_recv);
          break;
        case TS_ACTION_PINIT:
          {
            guint peer = ts_trace_comm_world_rank (trace, a.comm, rank, a.peer);
            gboolean send = a.direction == TS_PARTITIONED_SEND;
            PInit pi = { { send ? rank : peer, send ? peer : rank, a.comm, a.tag },
                         send, (guint32) a.partitions, a.bytes, rank };
            g_array_append_val (scan->pinits, pi);
          }
          break;
        case TS_ACTION_IRECV:
          if (a.flags & TS_ACTION_MISSING)
            scan->missing_recvs++;
          if (a.flags & TS_ACTION_STATUS)
            scan->status_recvs++;
          c.call_bytes = MAX (c.call_bytes, a.bytes);
          break;
        case TS_ACTION_SEND:
          sums->largest_blocking_send = MAX (sums->largest_blocking_send, a.bytes);
          if (a.peer != TS_NO_RANK)
            c.call_place = ts_trace_ranks_apart (trace, rank,
                                                 ts_trace_comm_world_rank (trace, a.comm, rank, a.peer));
          c.call_bytes = MAX (c.call_bytes, a.bytes);
          break;
        case TS_ACTION_RECV:
          if (a.peer != TS_NO_RANK)
            c.call_place = ts_trace_ranks_apart (trace, rank,
                                                 ts_trace_comm_world_rank (trace, a.comm, rank, a.peer));
          c.call_bytes = MAX (c.call_bytes, a.bytes);
          break;
        case TS_ACTION_ISEND:
          c.call_bytes = MAX (c.call_bytes, a.bytes);
          break;
        case TS_ACTION_COMPUTE:
          ts_phase_table_add (sums->phases, &a);
          G_GNUC_FALLTHROUGH; /* a region's compute is also its other threads' */
        case TS_ACTION_THREAD_COMPUTE:
          /* A burst belongs to the innermost open region (an MPI call's own
           * bursts to the call); a rule on a region that only a rank's
           * other threads run selects compute. */
          if (a.region < p->n_regions)
            sums->region_compute[a.region] += a.seconds;
          break;
        default:
          break;
        }
    }
  g_array_unref (c.stack);
  g_array_unref (c.stack_regions);
  return error == NULL || *error == NULL;
}

static void
fill_costs (TsCalibration *p, const CallSample *samples)
{
  /* Calls that cannot wait (posting calls, tests, local calls) cost what
   * their fastest instance took, charged before them. Calls that can wait
   * are charged nothing up front: the fastest of them may itself have waited
   * (when every call of a class did, or there was only one), and the replay
   * charges each one, when it ends, what it spent beyond the wait it shows
   * (sim/actions.c, charge_call_cost). */
  for (guint k = 0; k < TS_CALL_N_KINDS; k++)
    for (guint c = 0; c < TS_N_SIZE_CLASSES; c++)
      {
        const CallSample *cs = &samples[k * TS_N_SIZE_CLASSES + c];
        gboolean may_wait = k == TS_CALL_RECV || k == TS_CALL_SEND || k == TS_CALL_WAIT
                            || k == TS_CALL_WAITALL || k == TS_CALL_WAITANY
                            || k == TS_CALL_WAITSOME || k == TS_CALL_SENDRECV
                            || k == TS_CALL_COLLECTIVE;
        p->call_costs[k * TS_N_SIZE_CLASSES + c] = cs->count && !may_wait ? cs->min : 0;
      }
}

guint
ts_partitioned_key_hash (gconstpointer p)
{
  const TsPartitionedKey *k = p;
  return ts_hash_mix (ts_channel_hash (&k->channel), k->k);
}

gboolean
ts_partitioned_key_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (TsPartitionedKey)) == 0;
}

/* Pair the k-th MPI_Psend_init of each channel with its k-th MPI_Precv_init.
 * One without the other would hang the replay: it is refused here. */
static gboolean
pair_partitioned (const TsTrace *trace, TsCalibration *p, RankScan *scans, GError **error)
{
  g_autoptr (GHashTable) sends = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, NULL);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free,
                                                       NULL);
  /* Every rank's inits in order; the k of an init counts those before it on
   * its channel and side. */
  g_autoptr (GHashTable) count = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                        (GDestroyNotify) g_bytes_unref, NULL);
  GArray *recvs = g_array_new (FALSE, FALSE, sizeof (TsPartitionedKey));
  GArray *recv_inits = g_array_new (FALSE, FALSE, sizeof (PInit));
  for (guint r = 0; r < p->n_ranks; r++)
    for (guint i = 0; i < scans[r].pinits->len; i++)
      {
        PInit *pi = &g_array_index (scans[r].pinits, PInit, i);
        struct { TsChannel c; gboolean send; } side = { pi->channel, pi->send };
        GBytes *b = g_bytes_new (&side, sizeof side);
        guint k = GPOINTER_TO_UINT (g_hash_table_lookup (count, b));
        g_hash_table_replace (count, b, GUINT_TO_POINTER (k + 1));
        TsPartitionedKey key = { pi->channel, k };
        if (pi->send)
          g_hash_table_insert (sends, g_memdup2 (&key, sizeof key), pi);
        else
          {
            g_array_append_val (recvs, key);
            g_array_append_val (recv_inits, *pi);
          }
      }
  gboolean ok = TRUE;
  for (guint i = 0; i < recvs->len && ok; i++)
    {
      TsPartitionedKey *key = &g_array_index (recvs, TsPartitionedKey, i);
      PInit *recv = &g_array_index (recv_inits, PInit, i);
      PInit *send = g_hash_table_lookup (sends, key);
      if (!send)
        {
          g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS,
                       "%s: rank %u: MPI_Precv_init #%u from rank %u (communicator %s, tag %d) "
                       "has no matching MPI_Psend_init on rank %u", ts_trace_path (trace),
                       recv->rank, key->k + 1, key->channel.src,
                       ts_trace_comm_name (trace, key->channel.comm), key->channel.tag,
                       key->channel.src);
          ok = FALSE;
          break;
        }
      TsPartitionedPair *pair = g_new (TsPartitionedPair, 1);
      *pair = (TsPartitionedPair) { send->partitions, recv->partitions, send->bytes };
      g_hash_table_insert (p->partitioned, g_memdup2 (key, sizeof *key), pair);
      g_hash_table_remove (sends, key);
    }
  if (ok && g_hash_table_size (sends) > 0)
    {
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, sends);
      g_hash_table_iter_next (&it, &k, &v);
      const TsPartitionedKey *key = k;
      const PInit *send = v;
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS,
                   "%s: rank %u: MPI_Psend_init #%u to rank %u (communicator %s, tag %d) has no "
                   "matching MPI_Precv_init on rank %u", ts_trace_path (trace), send->rank,
                   key->k + 1, key->channel.dst, ts_trace_comm_name (trace, key->channel.comm),
                   key->channel.tag, key->channel.dst);
      ok = FALSE;
    }
  g_array_unref (recvs);
  g_array_unref (recv_inits);
  return ok;
}

const TsPartitionedPair *
ts_calibration_partitioned_pair (const TsCalibration *p, const TsChannel *channel, guint32 k)
{
  TsPartitionedKey key = { *channel, k };
  return g_hash_table_lookup (p->partitioned, &key);
}

/* The first pass over every rank, shared out over worker threads (one per
 * core, at most TS_CALIBRATION_MAX_THREADS; TS_THREADS overrides): each has its
 * own OTF2 reader and sums, ranks go round-robin, so the merged result is
 * the same whatever the timing. The spool takes appends of different ranks
 * from different threads. */
#define TS_CALIBRATION_MAX_THREADS 8

typedef struct {
  const TsTrace *trace;
  TsCalibration *p;
  RankScan *scans;
  guint index, n_workers;
  Sums sums;
  GError *error;
  guint failed_rank;         /* G_MAXUINT unless a rank failed */
  gint *stop;                /* shared: set when any worker failed */
} Worker;

/* A worker's ranks are read by decoders of at most this many (see
 * ts_decoder_open_some: OTF2's cost of opening locations grows with the
 * square of the ranks a decoder opens). */
#define SCAN_BATCH 256

static gpointer
scan_worker (gpointer data)
{
  Worker *w = data;
  g_autoptr (TsDecoder) src = NULL;
  guint batch_end = 0;
  for (guint r = w->index; r < w->p->n_ranks && !g_atomic_int_get (w->stop); r += w->n_workers)
    {
      if (r >= batch_end)
        {
          guint count = MIN (SCAN_BATCH, (w->p->n_ranks - r + w->n_workers - 1) / w->n_workers);
          g_clear_pointer (&src, ts_decoder_free);
          src = ts_decoder_open_some (w->trace, r, w->n_workers, count, &w->error);
          if (!src)
            {
              w->failed_rank = r;
              g_atomic_int_set (w->stop, 1);
              return NULL;
            }
          batch_end = r + count * w->n_workers;
        }
      RankScan *scan = &w->scans[r];
      scan->sync_enter = g_array_new (FALSE, FALSE, sizeof (double));
      scan->sync_leave = g_array_new (FALSE, FALSE, sizeof (double));
      scan->sync_comm = -1;
      scan->colls = g_array_new (FALSE, FALSE, sizeof (CollSample));
      scan->coll_seq = g_new0 (guint32, ts_trace_n_comms (w->trace));
      scan->pinits = g_array_new (FALSE, FALSE, sizeof (PInit));
      TsRankDecoder *s = ts_decoder_rank (src, r, NULL);
      gboolean ok = scan_rank (w->trace, w->p, s, r, scan, &w->sums, w->p->spool, &w->error);
      w->p->rank_stats[r] = *ts_rank_decoder_stats (s);
      /* One rank at a time: its OTF2 buffers go before the next opens. */
      ts_decoder_release (src, r);
      if (!ok)
        {
          w->failed_rank = r;
          g_atomic_int_set (w->stop, 1);
          break;
        }
    }
  return NULL;
}

static guint
pass_threads (guint n_ranks)
{
  const char *env = g_getenv ("TS_THREADS");
  guint n = env ? (guint) g_ascii_strtoull (env, NULL, 10) : g_get_num_processors ();
  return CLAMP (n, 1, MIN (TS_CALIBRATION_MAX_THREADS, MAX (n_ranks, 1)));
}

static gboolean
scan_all (const TsTrace *trace, TsCalibration *p, RankScan *scans, Sums *sums, GError **error)
{
  sums_init (sums, p->n_regions);
  p->spool = ts_spool_new (p->n_ranks, sizeof (TsAction), SPOOL_BLOCK_BYTES, error);
  if (!p->spool)
    return FALSE;
  guint n_workers = pass_threads (p->n_ranks);
  gint stop = 0;
  Worker *workers = g_new0 (Worker, n_workers);
  GThread **threads = g_new0 (GThread *, n_workers);
  /* Workers inherit a mask of the signals that interrupt a run: the calling
   * thread handles them, and so writes nothing while the handler removes
   * what it was writing (output_dir.h). */
  sigset_t old;
  ts_output_dir_hold_signals (&old);
  for (guint i = 0; i < n_workers; i++)
    {
      workers[i] = (Worker) { trace, p, scans, i, n_workers, { 0 }, NULL, G_MAXUINT, &stop };
      sums_init (&workers[i].sums, p->n_regions);
      /* The calling thread is a worker too. */
      if (i > 0)
        threads[i] = g_thread_new ("ts-calibrate", scan_worker, &workers[i]);
    }
  ts_output_dir_release_signals (&old);
  scan_worker (&workers[0]);
  Worker *failed = NULL;
  for (guint i = 0; i < n_workers; i++)
    {
      if (i > 0)
        g_thread_join (threads[i]);
      if (workers[i].error && (!failed || workers[i].failed_rank < failed->failed_rank))
        failed = &workers[i];
    }
  gboolean ok = failed == NULL;
  if (failed)
    g_propagate_error (error, g_steal_pointer (&failed->error));
  for (guint i = 0; i < n_workers; i++)
    {
      sums_merge (sums, &workers[i].sums, p->n_regions);
      sums_clear (&workers[i].sums);
      g_clear_error (&workers[i].error);
    }
  g_free (workers);
  g_free (threads);
  return ok && ts_spool_finish (p->spool, error);
}

static void rank_scans_free (RankScan *scans, guint n);

/* The threads with MPI of their own (ts_trace_n_streams): their calls count
 * as the ranks' do (regions, call costs, the network's samples), though not
 * in their ranks' statistics, spool or collectives. One at a time: traces
 * have few. */
static gboolean
scan_thread_streams (const TsTrace *trace, TsCalibration *p, Sums *sums, GError **error)
{
  for (guint i = p->n_ranks; i < ts_trace_n_streams (trace); i++)
    {
      guint rank = ts_trace_stream_rank (trace, i);
      g_autoptr (TsDecoder) src = ts_decoder_open_some (trace, rank, 1, 1, error);
      if (!src)
        return FALSE;
      RankScan *scan = g_new0 (RankScan, 1);
      scan->sync_enter = g_array_new (FALSE, FALSE, sizeof (double));
      scan->sync_leave = g_array_new (FALSE, FALSE, sizeof (double));
      scan->sync_comm = -1;
      scan->colls = g_array_new (FALSE, FALSE, sizeof (CollSample));
      scan->coll_seq = g_new0 (guint32, ts_trace_n_comms (trace));
      scan->pinits = g_array_new (FALSE, FALSE, sizeof (PInit));
      TsRankDecoder *s = ts_decoder_rank (src, i, NULL);
      gboolean ok = scan_rank (trace, p, s, rank, scan, sums, NULL, error);
      rank_scans_free (scan, 1);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static void
rank_scans_free (RankScan *scans, guint n)
{
  for (guint r = 0; r < n; r++)
    {
      if (scans[r].sync_enter)
        g_array_unref (scans[r].sync_enter);
      if (scans[r].sync_leave)
        g_array_unref (scans[r].sync_leave);
      if (scans[r].pinits)
        g_array_unref (scans[r].pinits);
      if (scans[r].colls)
        g_array_unref (scans[r].colls);
      g_free (scans[r].coll_seq);
    }
  g_free (scans);
}

/* The tables keyed by a channel and a message's number on it. */
static void
channel_tables_new (TsCalibration *p)
{
  p->partitioned = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, g_free);
  p->to_guessed = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, NULL);
  p->to_status = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, NULL);
  p->unreceived = g_hash_table_new_full (ts_partitioned_key_hash, ts_partitioned_key_equal, g_free, NULL);
}

/* Each rank's MPI calls' CPU and wall seconds, from its scan. */
static void
keep_calls_cpu (TsCalibration *p, const RankScan *scans)
{
  p->calls_cpu = g_new (double, p->n_ranks);
  p->calls_wall = g_new (double, p->n_ranks);
  for (guint r = 0; r < p->n_ranks; r++)
    {
      p->calls_cpu[r] = scans[r].calls_cpu;
      p->calls_wall[r] = scans[r].calls_wall;
    }
}

TsCalibration *
ts_calibration_compute (const TsTrace *trace, GError **error)
{
  guint n = ts_trace_n_ranks (trace);
  g_autoptr (TsCalibration) p = g_new0 (TsCalibration, 1);
  p->n_ranks = n;
  p->clock_offset = g_new0 (double, n);
  p->rank_end = g_new0 (double, n);
  p->rank_stats = g_new0 (TsDecodeStats, n);
  p->inferred = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint r = 0; r < n; r++)
    g_ptr_array_add (p->inferred, g_array_new (FALSE, FALSE, sizeof (TsEnvelope)));
  p->call_costs = g_new0 (double, TS_CALL_N_KINDS * TS_N_SIZE_CLASSES);
  for (guint c = 0; c < TS_N_SIZE_CLASSES; c++)
    p->bandwidth_factor[c] = 1;
  p->n_regions = ts_trace_n_regions (trace);

  RankScan *scans = g_new0 (RankScan, n);
  Sums sums;
  gboolean ok = scan_all (trace, p, scans, &sums, error)
                && scan_thread_streams (trace, p, &sums, error);
  CallSample *samples = sums.samples;
  p->region_visits = g_steal_pointer (&sums.region_visits);
  p->region_seconds = g_steal_pointer (&sums.region_seconds);
  p->region_compute = g_steal_pointer (&sums.region_compute);
  p->region_outermost = g_steal_pointer (&sums.region_outermost);
  p->phases = ts_phase_table_sorted (sums.phases);
  p->call_min = g_steal_pointer (&sums.call_min);
  p->largest_blocking_send = sums.largest_blocking_send;
  keep_calls_cpu (p, scans);
  guint missing = 0;
  channel_tables_new (p);
  if (ok)
    ok = pair_partitioned (trace, p, scans, error);
  if (ok)
    {
      ts_calibration_read_collectives (trace, p, scans);
      guint status = 0;
      for (guint r = 0; r < n; r++)
        {
          missing += scans[r].missing_recvs;
          status += scans[r].status_recvs;
        }
      if (missing > 0)
        {
          /* The spooled actions lack the envelopes: the replay reads the
           * trace again with the inferred ones. */
          g_clear_pointer (&p->spool, ts_spool_free);
          ok = ts_calibration_infer_envelopes (trace, p, error);
        }
      else if (status > 0)
        /* Nothing to infer, but which messages the receives of a status
         * array took, should a deadlock revise them (the spool stays). */
        ok = ts_calibration_infer_envelopes (trace, p, error);
    }
  rank_scans_free (scans, n);
  if (ok)
    {
      ts_calibration_fit_network (p, samples, sums.rdv_sends, sums.placed);
      fill_costs (p, samples);
      p->start = INFINITY;
      double end = -INFINITY;
      for (guint r = 0; r < n; r++)
        {
          TsDecodeStats *st = &p->rank_stats[r];
          st->first_time += p->clock_offset[r];
          st->last_time += p->clock_offset[r];
          p->start = MIN (p->start, st->first_time);
          end = MAX (end, st->last_time);
        }
      for (guint r = 0; r < n; r++)
        p->rank_end[r] = p->rank_stats[r].last_time - p->start;
      p->runtime = end - p->start;
      p->decode_options = g_new (TsDecodeOptions, n);
      for (guint r = 0; r < n; r++)
        p->decode_options[r] = ts_calibration_decode_options (p, r);
    }
  sums_clear (&sums);
  return ok ? g_steal_pointer (&p) : NULL;
}

void
ts_calibration_free (TsCalibration *p)
{
  if (!p)
    return;
  g_free (p->clock_offset);
  g_free (p->rank_end);
  g_free (p->calls_cpu);
  g_free (p->calls_wall);
  g_free (p->rank_stats);
  g_ptr_array_unref (p->inferred);
  g_clear_pointer (&p->to_guessed, g_hash_table_unref);
  g_clear_pointer (&p->to_status, g_hash_table_unref);
  g_clear_pointer (&p->unreceived, g_hash_table_unref);
  g_free (p->call_costs);
  g_free (p->call_min);
  g_free (p->region_visits);
  g_free (p->region_seconds);
  g_free (p->region_compute);
  g_free (p->region_outermost);
  if (p->phases)
    g_array_unref (p->phases);
  ts_spool_free (p->spool);
  g_free (p->decode_options);
  if (p->partitioned)
    g_hash_table_unref (p->partitioned);
  g_free (p);
}

