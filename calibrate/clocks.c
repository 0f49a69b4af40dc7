#include <config.h>

#define G_LOG_DOMAIN "ts-calibrate"

#include "calibrate/calibration-private.h"

#include <math.h>
#include <string.h>

/* What the sampled blocking collectives of the first pass tell about the
 * trace: the clock offsets that make it causal, and the binomial tree shape
 * of its MPI library. */

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (GArray *values)
{
  if (values->len == 0)
    return 0;
  g_array_sort (values, compare_double);
  return g_array_index (values, double, values->len / 2);
}

static void median_offsets (TsCalibration *p, RankScan *scans, guint k_max);

static gint
compare_coll_sample (gconstpointer a, gconstpointer b)
{
  const CollSample *x = a, *y = b;
  if (x->comm != y->comm)
    return x->comm < y->comm ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The sampled collective calls of every rank, sorted by instance and rank
 * into @all, and where each instance whose every member was sampled starts
 * in it into @starts (it spans [start, start + communicator size)). */
static void
sampled_instances (const TsTrace *trace, const TsCalibration *p, RankScan *scans, GArray *all,
                   GArray *starts)
{
  for (guint r = 0; r < p->n_ranks; r++)
    if (scans[r].colls)
      g_array_append_vals (all, scans[r].colls->data, scans[r].colls->len);
  g_array_sort (all, compare_coll_sample);
  for (guint i = 0; i < all->len;)
    {
      const CollSample *c = &g_array_index (all, CollSample, i);
      guint j = i;
      while (j < all->len && g_array_index (all, CollSample, j).comm == c->comm
             && g_array_index (all, CollSample, j).seq == c->seq)
        j++;
      if (j - i == ts_trace_comm_size (trace, c->comm))
        g_array_append_val (starts, i);
      i = j;
    }
}

/* Which members of a collective instance must have entered before it
 * releases anybody, and which cannot leave before that release: nobody
 * leaves a barrier or an all-to-all before the last entered, no non-root
 * leaves a broadcast (1-to-N) before its root entered, and no root leaves a
 * reduction (N-to-1) before the last non-root entered. */
static gboolean
must_enter_first (const CollSample *c)
{
  switch ((TsCollectiveShape) c->shape)
    {
    case TS_COLL_SHAPE_ONE2N: return c->root;
    case TS_COLL_SHAPE_N2ONE: return !c->root;
    default: return TRUE;
    }
}

static gboolean
cannot_leave_first (const CollSample *c)
{
  switch ((TsCollectiveShape) c->shape)
    {
    case TS_COLL_SHAPE_ONE2N: return !c->root;
    case TS_COLL_SHAPE_N2ONE: return c->root;
    default: return TRUE;
    }
}

/* Raise clock offsets as little as needed for every sampled collective
 * instance to be causal (see must_enter_first): each constraint reads
 * offset[b] - offset[a] >= enter[a] - leave[b], a system of difference
 * constraints, relaxed Bellman-Ford style from the given offsets. With true
 * constant offsets a solution exists; if relaxation still moves after
 * n_ranks + 1 passes the constraints contradict each other (clocks that
 * drift), and the offsets are left as they were. Returns the number of
 * instances that were not causal with the given offsets (0 if none). */
static guint
repair_collectives (const TsTrace *trace, TsCalibration *p, const GArray *all, const GArray *starts)
{
  g_autofree double *offset = g_memdup2 (p->clock_offset, p->n_ranks * sizeof (double));
  guint violations = 0;
  gboolean moved = TRUE;
  for (guint pass = 0; moved && pass <= p->n_ranks + 1; pass++)
    {
      moved = FALSE;
      for (guint k = 0; k < starts->len; k++)
        {
          guint i0 = g_array_index (starts, guint, k);
          const CollSample *c0 = &g_array_index (all, CollSample, i0);
          guint size = ts_trace_comm_size (trace, c0->comm);
          double release = -INFINITY;
          for (guint i = i0; i < i0 + size; i++)
            {
              const CollSample *c = &g_array_index (all, CollSample, i);
              if (must_enter_first (c))
                release = MAX (release, c->enter + offset[c->rank]);
            }
          gboolean late = FALSE;
          for (guint i = i0; i < i0 + size; i++)
            {
              const CollSample *c = &g_array_index (all, CollSample, i);
              if (cannot_leave_first (c) && c->leave + offset[c->rank] < release)
                {
                  offset[c->rank] = release - c->leave;
                  late = moved = TRUE;
                }
            }
          if (pass == 0 && late)
            violations++;
        }
    }
  if (!moved)
    memcpy (p->clock_offset, offset, p->n_ranks * sizeof (double));
  else
    p->clocks.drift = TRUE;
  return violations;
}

/* Align the clocks when the trace is not causal: some rank leaves a
 * synchronising collective on the world before another entered it. Each rank
 * is then shifted so that, in the median, it leaves those collectives when
 * rank 0 does (collectives release everybody at nearly the same moment).
 * The median guesses from scheduling noise too (an oversubscribed node
 * releases ranks milliseconds apart), so the offsets are then raised where
 * some collective instance is still not causal (repair_collectives). */
static void
align_clocks (const TsTrace *trace, TsCalibration *p, RankScan *scans, const GArray *colls,
              const GArray *starts)
{
  guint k_max = G_MAXUINT;
  for (guint r = 0; r < p->n_ranks; r++)
    {
      k_max = MIN (k_max, scans[r].sync_leave->len);
      if (scans[r].sync_comm != scans[0].sync_comm)
        k_max = 0; /* no collective every rank agrees on */
    }
  for (guint k = 0; k < k_max; k++)
    {
      double last_enter = -INFINITY, first_leave = INFINITY;
      for (guint r = 0; r < p->n_ranks; r++)
        {
          last_enter = MAX (last_enter, g_array_index (scans[r].sync_enter, double, k));
          first_leave = MIN (first_leave, g_array_index (scans[r].sync_leave, double, k));
        }
      if (first_leave < last_enter)
        p->clocks.sync_violations++;
    }
  if (p->clocks.sync_violations > 0)
    median_offsets (p, scans, k_max);
  p->clocks.coll_repairs = repair_collectives (trace, p, colls, starts);
  p->clocks.aligned = p->clocks.sync_violations > 0 || (p->clocks.coll_repairs > 0 && !p->clocks.drift);
}

/* Which binomial tree the traced library built its broadcasts and
 * reductions on (calibrate/binomial.h), from the sampled instances on 4 ranks or
 * more (below that both shapes are one tree): a member of a broadcast
 * cannot leave before its ancestors entered, nor one of a reduction before
 * its descendants did. Each member that did contradicts that shape; the
 * shape contradicted by fewer calls wins; where neither is, the shape of
 * the MPI library the trace names, else MPICH's. Gathers
 * replay on no tree, and are not counted. */
static void
infer_binomial_tree (const TsTrace *trace, TsCalibration *p, const GArray *colls, const GArray *starts)
{
  for (guint k = 0; k < starts->len; k++)
    {
      guint i0 = g_array_index (starts, guint, k);
      const CollSample *first = &g_array_index (colls, CollSample, i0);
      guint n = ts_trace_comm_size (trace, first->comm);
      TsCollectiveOp op = (TsCollectiveOp) first->op;
      gboolean down = op == TS_COLL_BCAST || op == TS_COLL_SCATTER || op == TS_COLL_SCATTERV;
      if (n < 4 || !(down || op == TS_COLL_REDUCE))
        continue;
      const CollSample *root = NULL;
      for (guint i = i0; i < i0 + n; i++)
        if (g_array_index (colls, CollSample, i).root)
          root = &g_array_index (colls, CollSample, i);
      if (!root)
        continue;
      guint root_local = (guint) ts_trace_comm_local_rank (trace, first->comm, root->rank);
      g_autofree const CollSample **by_vr = g_new (const CollSample *, n);
      for (guint i = i0; i < i0 + n; i++)
        {
          const CollSample *c = &g_array_index (colls, CollSample, i);
          guint me = (guint) ts_trace_comm_local_rank (trace, c->comm, c->rank);
          by_vr[(me + n - root_local) % n] = c;
        }
      p->binomial_samples++;
      /* The latest entry a member depends on (its own included, which it
       * cannot leave before anyway), for each shape in O(n): over its
       * ancestors in a broadcast (parents come first in vr order), over its
       * subtree in a reduction (children come later). */
      g_autofree double *latest = g_new (double, n);
      for (guint t = 0; t < TS_BINOMIAL_N_TREES; t++)
        {
          TsBinomialTree tree = (TsBinomialTree) t;
          for (guint vr = 0; vr < n; vr++)
            latest[vr] = by_vr[vr]->enter + p->clock_offset[by_vr[vr]->rank];
          if (down)
            for (guint vr = 1; vr < n; vr++)
              latest[vr] = MAX (latest[vr], latest[ts_binomial_parent (tree, vr)]);
          else
            for (guint vr = n; vr-- > 1;)
              {
                guint parent = ts_binomial_parent (tree, vr);
                if (parent > 0)
                  latest[parent] = MAX (latest[parent], latest[vr]);
              }
          for (guint vr = 1; vr < n; vr++)
            {
              const CollSample *m = by_vr[vr];
              double leave = m->leave + p->clock_offset[m->rank];
              if (leave < latest[vr])
                p->binomial_contradictions[t]++;
            }
        }
    }
  /* Where the calls do not tell, the library the trace names (tracesim-record
   * writes it), else MPICH's. */
  if (!ts_binomial_tree_of_library (ts_trace_mpi_library (trace), &p->binomial_tree))
    p->binomial_tree = TS_BINOMIAL_MPICH;
  for (guint t = 0; t < TS_BINOMIAL_N_TREES; t++)
    if (p->binomial_contradictions[t] < p->binomial_contradictions[p->binomial_tree])
      p->binomial_tree = (TsBinomialTree) t;
}

/* Each rank's offset: minus the median of how much later than rank 0 it
 * leaves the first k_max synchronising collectives. */
static void
median_offsets (TsCalibration *p, RankScan *scans, guint k_max)
{
  GArray *diff = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint r = 1; r < p->n_ranks; r++)
    {
      g_array_set_size (diff, 0);
      for (guint k = 0; k < k_max; k++)
        {
          double d = g_array_index (scans[r].sync_leave, double, k)
                     - g_array_index (scans[0].sync_leave, double, k);
          g_array_append_val (diff, d);
        }
      p->clock_offset[r] = -median (diff);
    }
  g_array_unref (diff);
}

void
ts_calibration_read_collectives (const TsTrace *trace, TsCalibration *p, RankScan *scans)
{
  g_autoptr (GArray) colls = g_array_new (FALSE, FALSE, sizeof (CollSample));
  g_autoptr (GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint));
  sampled_instances (trace, p, scans, colls, starts);
  align_clocks (trace, p, scans, colls, starts);
  infer_binomial_tree (trace, p, colls, starts);
}
