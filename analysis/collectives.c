/* Wait states of collective operations: per communicator, the k-th
 * collective of every member is one instance; once all members have
 * entered it, Scalasca's patterns follow from their entry times. */
#include <config.h>

#define G_LOG_DOMAIN "ts-waitstates"

#include "analysis/waitstates-private.h"
#include "model/hash.h"

#include <math.h>

typedef struct {
  guint rank;
  double enter;
  guint32 region;
  gboolean root;
} Arrival;

struct CollInstance {
  TsCollectiveOp op;
  guint size;
  gboolean moves_data;       /* some member sends or receives (ts_collective_is_empty) */
  GArray *arrivals;          /* Arrival */
};

typedef struct {
  guint32 comm;
  guint64 instance;
} CollKey;

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

/* Everybody's waiting in one collective instance, once all have entered. */
static void
collective_done (Analysis *an, CollInstance *ci)
{
  /* A collective without data returns at once everywhere: nobody waits. */
  if (!ci->moves_data)
    return;
  double last = -INFINITY, root_enter = NAN, first_other = INFINITY;
  for (guint i = 0; i < ci->arrivals->len; i++)
    {
      Arrival *x = &g_array_index (ci->arrivals, Arrival, i);
      last = MAX (last, x->enter);
      if (x->root)
        root_enter = x->enter;
      else
        first_other = MIN (first_other, x->enter);
    }
  for (guint i = 0; i < ci->arrivals->len; i++)
    {
      Arrival *x = &g_array_index (ci->arrivals, Arrival, i);
      switch (ts_collective_shape (ci->op))
        {
        case TS_COLL_SHAPE_BARRIER:
          ts_wait_add (an->w, TS_WAIT_BARRIER, x->region, x->rank, x->enter, last - x->enter);
          break;
        case TS_COLL_SHAPE_N2N:
          ts_wait_add (an->w, TS_WAIT_NXN, x->region, x->rank, x->enter, last - x->enter);
          break;
        case TS_COLL_SHAPE_ONE2N:
          if (!x->root && !isnan (root_enter))
            ts_wait_add (an->w, TS_WAIT_LATE_BROADCAST, x->region, x->rank, x->enter,
                      root_enter - x->enter);
          break;
        case TS_COLL_SHAPE_N2ONE:
          if (x->root && isfinite (first_other))
            ts_wait_add (an->w, TS_WAIT_EARLY_REDUCE, x->region, x->rank, x->enter,
                      first_other - x->enter);
          break;
        case TS_COLL_SHAPE_PREFIX:
          break;
        }
    }
}

void
ts_wait_on_collective (Analysis *an, Cursor *cu, const TsAction *a)
{
  guint size = ts_trace_comm_size (an->trace, a->comm);
  gint me = ts_trace_comm_local_rank (an->trace, a->comm, cu->rank);
  if (size < 2 || me < 0)
    return;
  CollKey k = { a->comm, cu->coll_seen[a->comm]++ };
  CollInstance *ci = g_hash_table_lookup (an->colls, &k);
  if (!ci)
    {
      ci = g_new0 (CollInstance, 1);
      ci->op = a->op;
      ci->size = size;
      ci->arrivals = g_array_sized_new (FALSE, FALSE, sizeof (Arrival), size);
      g_hash_table_insert (an->colls, g_memdup2 (&k, sizeof k), ci);
    }
  Arrival x = { cu->rank, a->time, a->call, a->peer != TS_NO_RANK && a->peer == me };
  g_array_append_val (ci->arrivals, x);
  ci->moves_data |= !ts_collective_is_empty (a->op, a->bytes, a->bytes_recv);
  if (ci->arrivals->len == ci->size)
    {
      collective_done (an, ci);
      g_hash_table_remove (an->colls, &k);
    }
}

