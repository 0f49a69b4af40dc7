#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"

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

/* Each algorithm is a step function of the progress running the collective
 * (x->coll.pc_algo): its loops keep their position in the frame
 * (TsCollFrame), and every message goes through exchange(). Their named
 * states are the exchanges they can stop in. */

/* A member's receives are posted when its part of the collective began in
 * the trace: its call's entry, or a non-blocking collective's post (then
 * its own progress runs it). Rendezvous-sized ones are noted for their
 * senders, as point-to-point receives are: a member whose send waited for
 * a late receiver in the trace waits for it anew in the simulation, so that
 * share of its call is not CPU time (charge_call_cost in actions.c). */
static void
note_post (TsProgress *x, gint32 src, guint64 bytes)
{
  TsCollFrame *c = &x->coll;
  ts_rank_note_post (x->rk, (guint) src, c->comm, x->tag, bytes,
                     x->own ? x->rk->call_enter : x->a->time);
}

/* A rendezvous send of the collective completed: when did its receiver post? */
static void
take_post (TsProgress *x)
{
  if (!x->own)
    {
      ts_rank_pop_post (x->rk, &x->coll.on);
      return;
    }
  ts_rank_take_receiver_post (x->rk, &x->coll.on);
  x->rk->call_waited_for_receiver |= !isnan (x->rk->receiver_post);
}

static gint32
world (TsProgress *x, guint local)
{
  return (gint32) ts_trace_comm_world_rank (x->rk->sim->trace, x->coll.comm, x->rk->rank, local);
}

/* The next exchange: send @send_bytes to local rank @send_to and receive
 * @recv_bytes from @recv_from (-1: no such side). */
static void
next_exchange (TsProgress *x, gint send_to, guint64 send_bytes, gint recv_from, guint64 recv_bytes)
{
  x->coll.ex = (TsExchange) { send_to, recv_from, send_bytes, recv_bytes, NULL };
}

enum { EX_POST, EX_RECV, EX_SEND };

/* Run x->coll.ex, a step function of its own (x->coll.pc_exchange). */
static gboolean
exchange (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  TsExchange *e = &c->ex;
  switch (c->pc_exchange)
    {
    case EX_POST:
      /* The send is posted first so that the receive can block in one
       * call; both are posted at the same simulated instant either way. */
      if (e->send_to >= 0)
        e->sent = ts_rank_isend (x->rk, c->comm, (guint) e->send_to, x->tag, e->send_bytes, FALSE);
      if (e->recv_from >= 0)
        {
          c->on.peer = world (x, (guint) e->recv_from);
          note_post (x, c->on.peer, e->recv_bytes);
          TS_AT (c->pc_exchange, EX_RECV);
          if (!ts_step_recv (x, c->comm, (guint) e->recv_from, x->tag, &c->on))
            return FALSE;
        }
      if (e->sent)
        {
          c->on.peer = world (x, (guint) e->send_to);
          TS_AT (c->pc_exchange, EX_SEND);
          if (!ts_step_wait (x, e->sent, &c->on))
            return FALSE;
          take_post (x);
        }
    }
  c->pc_exchange = EX_POST;
  return TRUE;
}

/* Run the exchange just set up, in state @state of the algorithm. */
#define EXCHANGE_AT(x, state)        \
  TS_AT ((x)->coll.pc_algo, state);  \
  if (!exchange (x))                 \
    return FALSE

enum {
  ALGO_START,
  BARRIER_ROUND,
  TREE_FROM_PARENT, TREE_TO_CHILD, TREE_FROM_CHILD, TREE_TO_PARENT,
  FOLD_IN, DOUBLING, FOLD_OUT,
  RING_STEP, PAIRWISE_STEP,
  GATHER_SEND, GATHER_WAIT,
  CHAIN_FROM, CHAIN_TO,
};

/* Dissemination: ceil(log2 n) rounds. */
static gboolean
barrier (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  switch (c->pc_algo)
    {
    case ALGO_START:
      for (c->k = 1; c->k < c->n; c->k <<= 1)
        {
          next_exchange (x, (gint) ((c->me + c->k) % c->n), 0, (gint) ((c->me + c->n - c->k) % c->n), 0);
          EXCHANGE_AT (x, BARRIER_ROUND);
        }
    }
  return TRUE;
}

/* The member's place in the binomial tree rooted at c->root: its rank
 * relative to the root and how many children it has; returns its parent (local rank),
 * or -1 at the root. */
static gint
tree_place (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  TsBinomialTree tree = x->rk->sim->binomial_tree;
  guint children[TS_BINOMIAL_MAX_CHILDREN];
  c->vr = (c->me + c->n - c->root) % c->n;
  c->n_children = ts_binomial_children (tree, c->vr, c->n, children);
  return c->vr > 0 ? (gint) ((ts_binomial_parent (tree, c->vr) + c->root) % c->n) : -1;
}

/* The member's child @i (local rank), found again rather than kept: every
 * rank's frame holds a place for the children, and 32 of them were 128 of
 * its bytes (issue 41). */
static gint
tree_child (TsProgress *x, guint i)
{
  TsCollFrame *c = &x->coll;
  guint children[TS_BINOMIAL_MAX_CHILDREN];
  guint n = ts_binomial_children (x->rk->sim->binomial_tree, c->vr, c->n, children);
  g_assert (i < n);
  return (gint) ((children[i] + c->root) % c->n);
}

static gboolean
bcast (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  switch (c->pc_algo)
    {
    case ALGO_START:
      c->parent = tree_place (x);
      if (c->parent >= 0)
        {
          next_exchange (x, -1, 0, c->parent, c->block);
          EXCHANGE_AT (x, TREE_FROM_PARENT);
        }
      for (c->i = 0; c->i < c->n_children; c->i++)
        {
          next_exchange (x, tree_child (x, c->i), c->block, -1, 0);
          EXCHANGE_AT (x, TREE_TO_CHILD);
        }
    }
  return TRUE;
}

static gboolean
reduce (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  switch (c->pc_algo)
    {
    case ALGO_START:
      c->parent = tree_place (x);
      /* The smallest subtree is ready first. */
      for (c->i = c->n_children; c->i-- > 0;)
        {
          next_exchange (x, -1, 0, tree_child (x, c->i), c->block);
          EXCHANGE_AT (x, TREE_FROM_CHILD);
        }
      if (c->parent >= 0)
        {
          next_exchange (x, c->parent, c->block, -1, 0);
          EXCHANGE_AT (x, TREE_TO_PARENT);
        }
    }
  return TRUE;
}

/* Recursive doubling; non-powers of two fold the extra ranks in first and
 * out last. */
static gboolean
allreduce (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  switch (c->pc_algo)
    {
    case ALGO_START:
      c->pof2 = 1;
      while (c->pof2 * 2 <= c->n)
        c->pof2 *= 2;
      c->rem = c->n - c->pof2;
      if (c->me < 2 * c->rem)
        {
          if (c->me % 2 == 0)
            {
              next_exchange (x, (gint) (c->me + 1), c->block, -1, 0);
              c->newrank = -1;
            }
          else
            {
              next_exchange (x, -1, 0, (gint) (c->me - 1), c->block);
              c->newrank = (gint) (c->me / 2);
            }
          EXCHANGE_AT (x, FOLD_IN);
        }
      else
        c->newrank = (gint) (c->me - c->rem);
      if (c->newrank >= 0)
        for (c->k = 1; c->k < c->pof2; c->k <<= 1)
          {
            guint np = (guint) c->newrank ^ c->k;
            gint peer = (gint) (np < c->rem ? np * 2 + 1 : np + c->rem);
            next_exchange (x, peer, c->block, peer, c->block);
            EXCHANGE_AT (x, DOUBLING);
          }
      if (c->me < 2 * c->rem)
        {
          if (c->me % 2)
            next_exchange (x, (gint) (c->me - 1), c->block, -1, 0);
          else
            next_exchange (x, -1, 0, (gint) (c->me + 1), c->block);
          EXCHANGE_AT (x, FOLD_OUT);
        }
    }
  return TRUE;
}

/* Ring (allgather) and pairwise exchange (alltoall): n-1 steps. */
static gboolean
ring_allgather (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  switch (c->pc_algo)
    {
    case ALGO_START:
      for (c->k = 1; c->k < c->n; c->k++)
        {
          next_exchange (x, (gint) ((c->me + 1) % c->n), c->block, (gint) ((c->me + c->n - 1) % c->n),
                         c->block);
          EXCHANGE_AT (x, RING_STEP);
        }
    }
  return TRUE;
}

static gboolean
pairwise_alltoall (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  switch (c->pc_algo)
    {
    case ALGO_START:
      for (c->k = 1; c->k < c->n; c->k++)
        {
          next_exchange (x, (gint) ((c->me + c->k) % c->n), c->block,
                         (gint) ((c->me + c->n - c->k) % c->n), c->block);
          EXCHANGE_AT (x, PAIRWISE_STEP);
        }
    }
  return TRUE;
}

/* Gather: every rank to the root, which posts every receive first, then
 * waits for them in rank order. */
static gboolean
linear_to_root (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  switch (c->pc_algo)
    {
    case ALGO_START:
      if (c->me != c->root)
        {
          next_exchange (x, (gint) c->root, c->block, -1, 0);
          EXCHANGE_AT (x, GATHER_SEND);
          return TRUE;
        }
      c->comms = g_new0 (TsComm *, c->n);
      c->landing = g_new0 (void *, c->n);
      for (guint p = 0; p < c->n; p++)
        if (p != c->root)
          {
            note_post (x, world (x, p), c->block);
            c->comms[p] = ts_rank_irecv (x->rk, c->comm, p, x->tag, c->block, &c->landing[p]);
          }
      for (c->i = 0; c->i < c->n; c->i++)
        if (c->comms[c->i])
          {
            c->on.peer = world (x, c->i);
            TS_AT (c->pc_algo, GATHER_WAIT);
            if (!ts_step_wait (x, c->comms[c->i], &c->on))
              return FALSE;
            ts_progress_absorb (x, c->landing[c->i]);
          }
      g_clear_pointer (&c->landing, g_free);
      g_clear_pointer (&c->comms, g_free);
    }
  return TRUE;
}

/* Scan: a linear chain. */
static gboolean
chain (TsProgress *x)
{
  TsCollFrame *c = &x->coll;
  switch (c->pc_algo)
    {
    case ALGO_START:
      if (c->me > 0)
        {
          next_exchange (x, -1, 0, (gint) (c->me - 1), c->block);
          EXCHANGE_AT (x, CHAIN_FROM);
        }
      if (c->me + 1 < c->n)
        {
          next_exchange (x, (gint) (c->me + 1), c->block, -1, 0);
          EXCHANGE_AT (x, CHAIN_TO);
        }
    }
  return TRUE;
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

typedef gboolean (*Algorithm) (TsProgress *x);

static Algorithm
algorithm (TsCollectiveOp op)
{
  switch (op)
    {
    case TS_COLL_BARRIER:
      return barrier;
    case TS_COLL_BCAST:
    case TS_COLL_SCATTER:
    case TS_COLL_SCATTERV:
      return bcast;
    case TS_COLL_REDUCE:
      return reduce;
    case TS_COLL_GATHER:
    case TS_COLL_GATHERV:
      return linear_to_root;
    case TS_COLL_ALLREDUCE:
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
      return allreduce;
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLGATHERV:
      return ring_allgather;
    case TS_COLL_ALLTOALL:
    case TS_COLL_ALLTOALLV:
    case TS_COLL_ALLTOALLW:
      return pairwise_alltoall;
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN:
      return chain;
    case TS_COLL_N_OPS:
      break;
    }
  return NULL;
}

enum { COLL_SET_UP, COLL_RUN };

gboolean
ts_collective_step (TsProgress *x)
{
  const TsTrace *t = x->rk->sim->trace;
  const TsAction *a = x->a;
  TsCollFrame *c = &x->coll;
  Algorithm run = algorithm ((TsCollectiveOp) a->op);
  switch (c->pc)
    {
    case COLL_SET_UP:
      {
        gint me = ts_trace_comm_local_rank (t, a->comm, x->rk->rank);
        guint n = ts_trace_comm_size (t, a->comm);
        if (n <= 1 || me < 0 || ts_collective_is_empty (a->op, a->bytes, a->bytes_recv) || !run)
          return TRUE;
        c->comm = a->comm;
        c->n = n;
        c->me = (guint) me;
        c->root = a->peer == TS_NO_RANK ? 0 : (guint) a->peer;
        c->block = ts_collective_block (a->op, ts_trace_collective_bytes_total (t), c->n, c->me,
                                        c->me == c->root, a->bytes, a->bytes_recv);
        c->on = (TsBlockedOn) { ts_collective_name (a->op), TS_NO_RANK, a->comm, x->tag, c->block };
        c->pc_algo = ALGO_START;
      }
      TS_AT (c->pc, COLL_RUN);
      if (!run (x))
        return FALSE;
    }
  c->pc = COLL_SET_UP;
  c->pc_algo = ALGO_START;
  return TRUE;
}
