/* Wait states of collective operations: per communicator, the k-th
 * collective of every member is one instance. Once all members have entered
 * it, the waiting before it follows from their entry times; once all have
 * left, the completion after it from their leave times (doc/waitstates.md
 * has each pattern's definition). MPI_Init and MPI_Finalize count as
 * instances on MPI_COMM_WORLD. */
#include <config.h>

#define G_LOG_DOMAIN "ts-waitstates"

#include "analysis/waitstates-private.h"
#include "model/hash.h"

#include <math.h>

typedef struct {
  guint32 comm;
  guint64 instance;
} CollKey;

typedef struct {
  guint rank;
  guint local;               /* rank in the communicator */
  double begin;              /* entry (MPI_COLLECTIVE_BEGIN is written at it) */
  double end;                /* MPI_COLLECTIVE_END; for Init and Finalize the leave,
                              * NaN until it left */
  guint32 region;
  gboolean root;
  gboolean sent, received;   /* it sent, received bytes */
} Arrival;

/* What an instance is: a collective operation, or MPI_Init / MPI_Finalize. */
typedef enum { KIND_COLLECTIVE, KIND_INIT, KIND_FINALIZE } InstanceKind;

struct CollInstance {
  InstanceKind kind;
  TsCollectiveOp op;
  guint size;
  GArray *arrivals;          /* Arrival */
  guint left;                /* Init, Finalize: members that have left */
  CollKey key;               /* its key in Analysis.colls */
};

static guint
coll_hash (gconstpointer p)
{
  const CollKey *k = p;
  return ts_hash_mix (ts_hash_mix (0, k->comm), k->instance);
}

static gboolean
coll_equal (gconstpointer a, gconstpointer b)
{
  const CollKey *x = a, *y = b;
  return x->comm == y->comm && x->instance == y->instance;
}

static void
coll_free (gpointer p)
{
  CollInstance *c = p;
  g_array_unref (c->arrivals);
  g_free (c);
}

GHashTable *
ts_wait_colls_new (void)
{
  return g_hash_table_new_full (coll_hash, coll_equal, g_free, coll_free);
}

/* Scalasca 2.6's clamp for one member: it waits from its begin until @latest
 * (at most until its own end), and completes from max(@earliest_end, that)
 * to its end. Either pattern may be none (TS_WAIT_N_PATTERNS). */
static void
wait_and_complete (Analysis *an, const Arrival *x, double latest, double earliest_end,
                   TsWaitPattern wait, TsWaitPattern completion)
{
  double until = MIN (latest, x->end);
  if (wait != TS_WAIT_N_PATTERNS)
    ts_wait_add (an->w, wait, x->region, x->rank, x->begin, until - x->begin);
  double release = MAX (earliest_end, until);
  if (completion != TS_WAIT_N_PATTERNS)
    ts_wait_add (an->w, completion, x->region, x->rank, release, x->end - release);
}

#define ARRIVAL(ci, i) (&g_array_index ((ci)->arrivals, Arrival, (i)))

/* The latest begin among the members that sent (@senders_only) or all, and
 * which member it is (the lowest rank on a tie, as MPI_MAXLOC picks). */
static double
latest_begin (const CollInstance *ci, gboolean senders_only, guint *who)
{
  double latest = -INFINITY;
  *who = G_MAXUINT;
  for (guint i = 0; i < ci->arrivals->len; i++)
    {
      const Arrival *x = ARRIVAL (ci, i);
      if ((senders_only && !x->sent) || x->begin < latest
          || (x->begin == latest && x->local > ARRIVAL (ci, *who)->local))
        continue;
      latest = x->begin;
      *who = i;
    }
  return latest;
}

/* Wait at NxN and NxN Completion. When the first member ended after the
 * last one began, everybody synchronised; otherwise only the members that
 * received before the latest sender began, and that sender, did. Members
 * that moved no data do not count. */
static void
n_to_n (Analysis *an, const CollInstance *ci)
{
  guint who;
  double latest = latest_begin (ci, FALSE, &who), earliest_end = INFINITY;
  for (guint i = 0; i < ci->arrivals->len; i++)
    earliest_end = MIN (earliest_end, ARRIVAL (ci, i)->end);
  g_autofree gboolean *sync = g_new (gboolean, ci->arrivals->len);
  gboolean all = earliest_end > latest;
  if (!all)
    {
      latest = latest_begin (ci, TRUE, &who);
      earliest_end = INFINITY;
    }
  for (guint i = 0; i < ci->arrivals->len; i++)
    {
      const Arrival *x = ARRIVAL (ci, i);
      sync[i] = all || (x->received && x->begin < latest) || (x->sent && i == who);
      if (!all && sync[i])
        earliest_end = MIN (earliest_end, x->end);
    }
  for (guint i = 0; i < ci->arrivals->len; i++)
    if (sync[i] && (ARRIVAL (ci, i)->sent || ARRIVAL (ci, i)->received))
      wait_and_complete (an, ARRIVAL (ci, i), latest, earliest_end, TS_WAIT_NXN,
                         TS_WAIT_NXN_COMPLETION);
}

/* Late Broadcast: a member that receives and began before the root waited
 * for it; nothing if the root sent nothing. */
static void
one_to_n (Analysis *an, const CollInstance *ci)
{
  const Arrival *root = NULL;
  for (guint i = 0; i < ci->arrivals->len; i++)
    if (ARRIVAL (ci, i)->root)
      root = ARRIVAL (ci, i);
  if (!root || !root->sent)
    return;
  for (guint i = 0; i < ci->arrivals->len; i++)
    {
      const Arrival *x = ARRIVAL (ci, i);
      if (!x->root && x->received && x->begin < root->begin)
        wait_and_complete (an, x, root->begin, -INFINITY, TS_WAIT_LATE_BROADCAST,
                           TS_WAIT_N_PATTERNS);
    }
}

/* Early Reduce (as Scalasca 2.6 revised it): a root that began before the
 * latest sender waited for it; nothing if the root received nothing. */
static void
n_to_one (Analysis *an, const CollInstance *ci)
{
  const Arrival *root = NULL;
  for (guint i = 0; i < ci->arrivals->len; i++)
    if (ARRIVAL (ci, i)->root)
      root = ARRIVAL (ci, i);
  guint who;
  double latest = latest_begin (ci, TRUE, &who);
  if (root && root->received && root->begin < latest)
    wait_and_complete (an, root, latest, -INFINITY, TS_WAIT_EARLY_REDUCE, TS_WAIT_N_PATTERNS);
}

/* Early Scan: a member waits for the latest begin among the senders up to
 * it in the communicator. */
static void
scan (Analysis *an, const CollInstance *ci)
{
  for (guint i = 0; i < ci->arrivals->len; i++)
    {
      const Arrival *x = ARRIVAL (ci, i);
      double latest = -INFINITY;
      for (guint j = 0; j < ci->arrivals->len; j++)
        {
          const Arrival *y = ARRIVAL (ci, j);
          if (y->local <= x->local && y->sent)
            latest = MAX (latest, y->begin);
        }
      if ((x->sent || x->received) && x->begin < latest)
        wait_and_complete (an, x, latest, -INFINITY, TS_WAIT_EARLY_SCAN, TS_WAIT_N_PATTERNS);
    }
}

/* Everybody's waiting in one collective instance, once all have arrived
 * (their begin and end times are both known by then). */
static void
collective_done (Analysis *an, const CollInstance *ci)
{
  guint who;
  double latest = latest_begin (ci, FALSE, &who), earliest_end = INFINITY;
  switch (ts_collective_shape (ci->op))
    {
    case TS_COLL_SHAPE_BARRIER:
      for (guint i = 0; i < ci->arrivals->len; i++)
        earliest_end = MIN (earliest_end, ARRIVAL (ci, i)->end);
      for (guint i = 0; i < ci->arrivals->len; i++)
        wait_and_complete (an, ARRIVAL (ci, i), latest, earliest_end, TS_WAIT_BARRIER,
                           TS_WAIT_BARRIER_COMPLETION);
      break;
    case TS_COLL_SHAPE_N2N:
      n_to_n (an, ci);
      break;
    case TS_COLL_SHAPE_ONE2N:
      one_to_n (an, ci);
      break;
    case TS_COLL_SHAPE_N2ONE:
      n_to_one (an, ci);
      break;
    case TS_COLL_SHAPE_PREFIX:
      scan (an, ci);
      break;
    }
}

/* MPI_Init has completion only, MPI_Finalize waiting only, from every
 * rank's entry and leave. */
static void
lifecycle_done (Analysis *an, const CollInstance *ci)
{
  guint who;
  double latest = latest_begin (ci, FALSE, &who), earliest_end = INFINITY;
  for (guint i = 0; i < ci->arrivals->len; i++)
    earliest_end = MIN (earliest_end, ARRIVAL (ci, i)->end);
  for (guint i = 0; i < ci->arrivals->len; i++)
    wait_and_complete (an, ARRIVAL (ci, i), latest, earliest_end,
                       ci->kind == KIND_FINALIZE ? TS_WAIT_FINALIZE_WAIT : TS_WAIT_N_PATTERNS,
                       ci->kind == KIND_INIT ? TS_WAIT_INIT_COMPLETION : TS_WAIT_N_PATTERNS);
}

static CollInstance *
arrive (Analysis *an, const CollKey *k, InstanceKind kind, guint size, const Arrival *x,
        TsCollectiveOp op)
{
  CollInstance *ci = g_hash_table_lookup (an->colls, k);
  if (!ci)
    {
      ci = g_new0 (CollInstance, 1);
      ci->kind = kind;
      ci->op = op;
      ci->size = size;
      ci->key = *k;
      ci->arrivals = g_array_sized_new (FALSE, FALSE, sizeof (Arrival), size);
      g_hash_table_insert (an->colls, g_memdup2 (k, sizeof *k), ci);
    }
  g_array_append_val (ci->arrivals, *x);
  return ci;
}

void
ts_wait_on_collective (Analysis *an, Cursor *cu, const TsAction *a)
{
  guint size = ts_trace_comm_size (an->trace, a->comm);
  gint me = ts_trace_comm_local_rank (an->trace, a->comm, cu->rank);
  if (size < 2 || me < 0)
    return;
  CollKey k = { a->comm, cu->coll_seen[a->comm]++ };
  Arrival x = { cu->rank, (guint) me, a->time, MAX (a->end, a->time), a->call,
                a->peer != TS_NO_RANK && a->peer == me, a->bytes > 0, a->bytes_recv > 0 };
  CollInstance *ci = arrive (an, &k, KIND_COLLECTIVE, size, &x, a->op);
  if (ci->arrivals->len == ci->size)
    {
      collective_done (an, ci);
      g_hash_table_remove (an->colls, &k);
    }
}

void
ts_wait_on_lifecycle (Analysis *an, Cursor *cu, const TsAction *a, guint lifecycle)
{
  guint n = ts_trace_n_ranks (an->trace);
  gboolean init = lifecycle == TS_WAIT_LIFECYCLE_INIT;
  /* Only the first of each counts; keys apart from every communicator's. */
  if (n < 2 || cu->lifecycle_seen[init ? 0 : 1]++ > 0)
    return;
  CollKey k = { G_MAXUINT32 - (init ? 0 : 1), 0 };
  Arrival x = { cu->rank, cu->rank, a->time, NAN, a->region, FALSE, FALSE, FALSE };
  CollInstance *ci = arrive (an, &k, init ? KIND_INIT : KIND_FINALIZE, n, &x, TS_COLL_BARRIER);
  cu->coll = ci;
  cu->coll_slot = ci->arrivals->len - 1;
}

void
ts_wait_collective_left (Analysis *an, Cursor *cu, guint32 region, double leave)
{
  CollInstance *ci = cu->coll;
  if (!ci || ARRIVAL (ci, cu->coll_slot)->region != region)
    return;
  cu->coll = NULL;
  ARRIVAL (ci, cu->coll_slot)->end = leave;
  if (++ci->left < ci->size)
    return;
  lifecycle_done (an, ci);
  g_hash_table_remove (an->colls, &ci->key);
}
