#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/replay-private.h"

#include <math.h>

/* Collectives as point-to-point algorithms on their own communicator, the
 * textbook choices of MPICH and Open MPI for small and medium messages:
 *   barrier                 dissemination (ceil(log2 n) rounds)
 *   bcast, scatter(v)       binomial tree from the root
 *   reduce                  binomial tree towards the root
 *                           (either library's shape: calibrate/binomial.h)
 *   gather(v)               linear, every rank to the root
 *   allreduce, reduce_scatter  recursive doubling (non-powers of two fold the
 *                           extra ranks in first and out last)
 *   allgather(v)            ring (n-1 steps)
 *   alltoall(v/w)           pairwise exchange (n-1 steps)
 *   scan, exscan            linear chain
 * Message sizes follow the per-rank byte counts of the trace. */

typedef struct {
  TsRank *rk;
  const TsAction *a;
  guint32 comm;
  guint n, me;
  gint32 tag;                /* negative: apart from point-to-point messages */
  TsBlockedOn on;
} Coll;

/* A member's receives are posted when its part of the collective began in
 * the trace: its call's entry, or a non-blocking collective's post (then a
 * helper actor progresses it). Rendezvous-sized ones are noted for their
 * senders, as point-to-point receives are: a member whose send waited for
 * a late receiver in the trace waits for it anew in the simulation, so that
 * share of its call is not CPU time (charge_call_cost in actions.c). */
static void
note_post (Coll *c, gint32 src, guint64 bytes)
{
  gboolean own = sg_actor_self_get_data () == c->rk;
  ts_rank_note_post (c->rk, (guint) src, c->comm, c->tag, bytes,
                     own ? c->rk->call_enter : c->a->time);
}

/* A rendezvous send of the collective completed: when did its receiver post? */
static void
take_post (Coll *c)
{
  if (sg_actor_self_get_data () != c->rk)
    {
      ts_rank_pop_post (c->rk, &c->on);
      return;
    }
  ts_rank_take_receiver_post (c->rk, &c->on);
  c->rk->call_waited_for_receiver |= !isnan (c->rk->receiver_post);
}

static void
exchange (Coll *c, gint send_to, guint64 send_bytes, gint recv_from, guint64 recv_bytes)
{
  /* The send is posted first so that the receive can block in one simcall;
   * both are posted at the same simulated instant either way. */
  sg_comm_t s = NULL;
  if (send_to >= 0)
    s = ts_rank_isend (c->rk, c->comm, send_to, c->tag, send_bytes, FALSE);
  if (recv_from >= 0)
    {
      c->on.peer = (gint32) ts_trace_comm_world_rank (c->rk->sim->trace, c->comm, c->rk->rank,
                                                      recv_from);
      note_post (c, c->on.peer, recv_bytes);
      ts_rank_recv (c->rk, c->comm, recv_from, c->tag, &c->on);
    }
  if (s)
    {
      c->on.peer = (gint32) ts_trace_comm_world_rank (c->rk->sim->trace, c->comm, c->rk->rank,
                                                      send_to);
      ts_rank_wait (c->rk, s, &c->on);
      take_post (c);
    }
}

static void
send_to (Coll *c, guint peer, guint64 bytes)
{
  exchange (c, peer, bytes, -1, 0);
}

static void
recv_from (Coll *c, guint peer, guint64 bytes)
{
  exchange (c, -1, 0, peer, bytes);
}

static void
barrier (Coll *c)
{
  for (guint k = 1; k < c->n; k <<= 1)
    exchange (c, (c->me + k) % c->n, 0, (c->me + c->n - k) % c->n, 0);
}

static void
bcast (Coll *c, guint root, guint64 bytes)
{
  TsBinomialTree tree = c->rk->sim->binomial_tree;
  guint vr = (c->me + c->n - root) % c->n;
  guint children[TS_BINOMIAL_MAX_CHILDREN];
  guint n_children = ts_binomial_children (tree, vr, c->n, children);
  if (vr > 0)
    recv_from (c, (ts_binomial_parent (tree, vr) + root) % c->n, bytes);
  for (guint i = 0; i < n_children; i++)
    send_to (c, (children[i] + root) % c->n, bytes);
}

static void
reduce (Coll *c, guint root, guint64 bytes)
{
  TsBinomialTree tree = c->rk->sim->binomial_tree;
  guint vr = (c->me + c->n - root) % c->n;
  guint children[TS_BINOMIAL_MAX_CHILDREN];
  guint n_children = ts_binomial_children (tree, vr, c->n, children);
  /* The smallest subtree is ready first. */
  for (guint i = n_children; i-- > 0;)
    recv_from (c, (children[i] + root) % c->n, bytes);
  if (vr > 0)
    send_to (c, (ts_binomial_parent (tree, vr) + root) % c->n, bytes);
}

static void
allreduce (Coll *c, guint64 bytes)
{
  guint pof2 = 1;
  while (pof2 * 2 <= c->n)
    pof2 *= 2;
  guint rem = c->n - pof2;
  gint newrank;
  if (c->me < 2 * rem)
    {
      if (c->me % 2 == 0)
        {
          send_to (c, c->me + 1, bytes);
          newrank = -1;
        }
      else
        {
          recv_from (c, c->me - 1, bytes);
          newrank = c->me / 2;
        }
    }
  else
    newrank = c->me - rem;
  if (newrank >= 0)
    for (guint mask = 1; mask < pof2; mask <<= 1)
      {
        guint np = newrank ^ mask;
        guint peer = np < rem ? np * 2 + 1 : np + rem;
        exchange (c, peer, bytes, peer, bytes);
      }
  if (c->me < 2 * rem)
    {
      if (c->me % 2)
        send_to (c, c->me - 1, bytes);
      else
        recv_from (c, c->me + 1, bytes);
    }
}

static void
ring_allgather (Coll *c, guint64 chunk)
{
  guint right = (c->me + 1) % c->n, left = (c->me + c->n - 1) % c->n;
  for (guint step = 1; step < c->n; step++)
    exchange (c, right, chunk, left, chunk);
}

static void
pairwise_alltoall (Coll *c, guint64 chunk)
{
  for (guint step = 1; step < c->n; step++)
    exchange (c, (c->me + step) % c->n, chunk, (c->me + c->n - step) % c->n, chunk);
}

static void
linear_to_root (Coll *c, guint root, guint64 bytes)
{
  if (c->me != root)
    {
      send_to (c, root, bytes);
      return;
    }
  /* The root posts every receive first, then waits for them all. */
  sg_comm_t *comms = g_new0 (sg_comm_t, c->n);
  void **landing = g_new0 (void *, c->n);
  for (guint p = 0; p < c->n; p++)
    if (p != root)
      {
        note_post (c, (gint32) ts_trace_comm_world_rank (c->rk->sim->trace, c->comm, c->rk->rank,
                                                         p), bytes);
        comms[p] = ts_rank_irecv (c->rk, c->comm, p, c->tag, bytes, &landing[p]);
      }
  for (guint p = 0; p < c->n; p++)
    if (comms[p])
      {
        c->on.peer = ts_trace_comm_world_rank (c->rk->sim->trace, c->comm, c->rk->rank, p);
        ts_rank_wait (c->rk, comms[p], &c->on);
        ts_rank_absorb (c->rk, landing[p]);
      }
  g_free (landing);
  g_free (comms);
}

static void
chain (Coll *c, guint64 bytes)
{
  if (c->me > 0)
    recv_from (c, c->me - 1, bytes);
  if (c->me + 1 < c->n)
    send_to (c, c->me + 1, bytes);
}

static guint
ceil_log2 (guint n)
{
  guint k = 0;
  while ((1u << k) < n)
    k++;
  return k;
}

/* Messages one after the other on the longest chain of each algorithm
 * above: tree depth for the binomial ones, the steps of the ring, the
 * pairwise exchange and the chain, the messages converging on the root of
 * the linear gather, two more rounds where recursive doubling folds ranks
 * in and out. */
static guint
chain_length (TsCollectiveOp op, guint n)
{
  switch (op)
    {
    case TS_COLL_BARRIER:
    case TS_COLL_BCAST:
    case TS_COLL_SCATTER:
    case TS_COLL_SCATTERV:
    case TS_COLL_REDUCE:
      return ceil_log2 (n);
    case TS_COLL_ALLREDUCE:
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
      return ceil_log2 (n + 1) - 1 + ((n & (n - 1)) ? 2 : 0);
    default:
      return n - 1;
    }
}

/* Whether local rank @me's part of @op on @n ranks rooted at @root sends
 * and never receives, in the algorithms above. */
static gboolean
only_sends (const TsRank *rk, TsCollectiveOp op, guint n, guint me, guint root)
{
  guint children[TS_BINOMIAL_MAX_CHILDREN];
  switch (op)
    {
    case TS_COLL_BCAST:
    case TS_COLL_SCATTER:
    case TS_COLL_SCATTERV:
      return me == root;
    case TS_COLL_REDUCE:
      return me != root
             && ts_binomial_children (rk->sim->binomial_tree, (me + n - root) % n, n, children) == 0;
    case TS_COLL_GATHER:
    case TS_COLL_GATHERV:
      return me != root;
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN:
      return me == 0;
    default:
      return FALSE;
    }
}

double
ts_collective_transfer (const TsRank *rk, const TsAction *a)
{
  const TsCalibration *p = rk->sim->calibration;
  const TsTrace *t = rk->sim->trace;
  if (ts_collective_is_empty (a->op, a->bytes, a->bytes_recv))
    return 0; /* MPI returns at once */
  guint n = ts_trace_comm_size (t, a->comm);
  gint me = ts_trace_comm_local_rank (t, a->comm, rk->rank);
  if (n <= 1 || me < 0)
    return INFINITY;
  guint root = a->peer == TS_NO_RANK ? 0 : (guint) a->peer;
  guint64 block = ts_collective_block (a->op, ts_trace_collective_bytes_total (t), n, me,
                                       me == (gint) root, a->bytes, a->bytes_recv);
  /* A rank whose part only sends, eagerly, returns at once in the
   * simulation, on any network: none of its call was network time (MUMPS: a
   * broadcast's root lost the 0.45 us its call took, and reached the next
   * reduction early). */
  if (block < rk->sim->options->eager_threshold && only_sends (rk, a->op, n, (guint) me, root))
    return 0;
  if (!rk->sim->traced_network_known)
    return INFINITY;
  return chain_length (a->op, n) * ts_calibration_transfer (p, block);
}

void
ts_replay_collective (TsRank *rk, const TsAction *a, gint32 tag)
{
  const TsTrace *t = rk->sim->trace;
  Coll c = { rk, a, a->comm, ts_trace_comm_size (t, a->comm), 0, tag, { "collective", TS_NO_RANK, a->comm, tag, 0 } };
  gint me = ts_trace_comm_local_rank (t, a->comm, rk->rank);
  if (c.n <= 1 || me < 0 || ts_collective_is_empty (a->op, a->bytes, a->bytes_recv))
    return;
  c.me = me;
  c.on.what = ts_collective_name (a->op);
  guint root = a->peer == TS_NO_RANK ? 0 : (guint) a->peer;
  guint64 block = ts_collective_block (a->op, ts_trace_collective_bytes_total (t), c.n, c.me,
                                       me == (gint) root, a->bytes, a->bytes_recv);
  c.on.bytes = block;

  switch ((TsCollectiveOp) a->op)
    {
    case TS_COLL_BARRIER:
      barrier (&c);
      break;
    case TS_COLL_BCAST:
      bcast (&c, root, block);
      break;
    case TS_COLL_SCATTER:
    case TS_COLL_SCATTERV:
      bcast (&c, root, block);
      break;
    case TS_COLL_REDUCE:
      reduce (&c, root, block);
      break;
    case TS_COLL_GATHER:
    case TS_COLL_GATHERV:
      linear_to_root (&c, root, block);
      break;
    case TS_COLL_ALLREDUCE:
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
      allreduce (&c, block);
      break;
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLGATHERV:
      ring_allgather (&c, block);
      break;
    case TS_COLL_ALLTOALL:
    case TS_COLL_ALLTOALLV:
    case TS_COLL_ALLTOALLW:
      pairwise_alltoall (&c, block);
      break;
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN:
      chain (&c, block);
      break;
    case TS_COLL_N_OPS:
      break;
    }
}
