#include <config.h>

#include "model/node-load.h"

/* A rank starting or ending a busy span. */
typedef struct {
  double t;
  double delta;
} Edge;

typedef struct {
  GArray *edges;     /* Edge, until finish */
  guint32 cores;
  /* After finish: the node's share of a core on [at[i], at[i + 1]) is
   * share[i] (1 before at[0] and from the last on, where no one is busy),
   * and its integral from at[0] to at[i] is sum[i]. */
  double *at, *share, *sum;
  guint n;
  double cpu, wall;  /* totals over the busy spans */
} Node;

struct TsNodeLoad {
  guint n_ranks, n_nodes;
  guint *rank_node;
  double *clock_offset;
  Node *nodes;
  gboolean finished;
};

TsNodeLoad *
ts_node_load_new (guint n_ranks, guint n_nodes, const guint *rank_node, const guint32 *cores,
                  const double *clock_offset)
{
  TsNodeLoad *l = g_new0 (TsNodeLoad, 1);
  l->n_ranks = n_ranks;
  l->n_nodes = n_nodes;
  l->rank_node = g_memdup2 (rank_node, n_ranks * sizeof (guint));
  l->clock_offset = g_memdup2 (clock_offset, n_ranks * sizeof (double));
  l->nodes = g_new0 (Node, n_nodes);
  for (guint i = 0; i < n_nodes; i++)
    {
      l->nodes[i].edges = g_array_new (FALSE, FALSE, sizeof (Edge));
      l->nodes[i].cores = MAX (cores[i], 1);
    }
  return l;
}

void
ts_node_load_free (TsNodeLoad *l)
{
  if (!l)
    return;
  for (guint i = 0; i < l->n_nodes; i++)
    {
      if (l->nodes[i].edges)
        g_array_unref (l->nodes[i].edges);
      g_free (l->nodes[i].at);
      g_free (l->nodes[i].share);
      g_free (l->nodes[i].sum);
    }
  g_free (l->nodes);
  g_free (l->rank_node);
  g_free (l->clock_offset);
  g_free (l);
}

void
ts_node_load_busy (TsNodeLoad *l, guint rank, double start, double end, double weight)
{
  g_return_if_fail (!l->finished && rank < l->n_ranks);
  if (!(end > start) || !(weight > 0))
    return;
  Node *n = &l->nodes[l->rank_node[rank]];
  Edge e[2] = { { start, weight }, { end, -weight } };
  g_array_append_vals (n->edges, e, 2);
}

static gint
edge_cmp (gconstpointer a, gconstpointer b)
{
  const Edge *x = a, *y = b;
  return (x->t > y->t) - (x->t < y->t);
}

/* The steps of @n from its edges: one per distinct time. */
static void
build (Node *n)
{
  g_array_sort (n->edges, edge_cmp);
  guint len = n->edges->len;
  n->at = g_new (double, len + 1);
  n->share = g_new (double, len + 1);
  n->sum = g_new (double, len + 1);
  double busy = 0;
  double sum = 0;
  for (guint i = 0; i < len;)
    {
      double t = g_array_index (n->edges, Edge, i).t;
      if (n->n > 0)
        {
          /* The step before, with the ranks busy in it. */
          double dt = t - n->at[n->n - 1];
          sum += n->share[n->n - 1] * dt;
          n->wall += busy * dt;
          n->cpu += MIN (busy, (double) n->cores) * dt;
        }
      for (; i < len && g_array_index (n->edges, Edge, i).t == t; i++)
        busy += g_array_index (n->edges, Edge, i).delta;
      n->at[n->n] = t;
      /* Rounding of the weights' sums must not make a share above 1. */
      n->share[n->n] = busy > n->cores + 1e-9 ? (double) n->cores / busy : 1.0;
      n->sum[n->n] = sum;
      n->n++;
    }
  g_array_unref (n->edges);
  n->edges = NULL;
}

void
ts_node_load_finish (TsNodeLoad *l)
{
  g_return_if_fail (!l->finished);
  for (guint i = 0; i < l->n_nodes; i++)
    build (&l->nodes[i]);
  l->finished = TRUE;
}

/* The integral of @n's share from its first step to @x (negative before
 * it, where the share is 1). */
static double
integral (const Node *n, double x)
{
  if (n->n == 0 || x <= n->at[0])
    return n->n == 0 ? x : x - (n->n ? n->at[0] : 0);
  /* The last step at or before x. */
  guint lo = 0, hi = n->n;
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;
      if (n->at[mid] <= x)
        lo = mid;
      else
        hi = mid;
    }
  return n->sum[lo] + n->share[lo] * (x - n->at[lo]);
}

double
ts_node_load_cpu (const TsNodeLoad *l, guint rank, double raw_start, double raw_end)
{
  g_return_val_if_fail (l->finished && rank < l->n_ranks, raw_end - raw_start);
  const Node *n = &l->nodes[l->rank_node[rank]];
  double off = l->clock_offset[rank];
  double cpu = integral (n, raw_end + off) - integral (n, raw_start + off);
  /* Never more than the wall time, nor less than none: rounding only. */
  return CLAMP (cpu, 0.0, MAX (raw_end - raw_start, 0.0));
}

void
ts_node_load_totals (const TsNodeLoad *l, guint node, double *cpu, double *wall)
{
  g_return_if_fail (l->finished && node < l->n_nodes);
  *cpu = l->nodes[node].cpu;
  *wall = l->nodes[node].wall;
}
