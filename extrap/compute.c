#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

/* Compute per region as a function of P: its mean and spread over ranks, and
 * on a grid with open dimensions the mean of each role; and what a template
 * rank's compute is scaled by. */
#include "extrap/extrap-private.h"

#include <math.h>
#include <string.h>

void
ts_extrap_region_model_free (gpointer p)
{
  TsRegionModel *r = p;
  g_array_unref (r->roles);
  g_free (r->name);
  g_free (r);
}

static gint
compare_region_models (gconstpointer a, gconstpointer b)
{
  const TsRegionModel *x = *(TsRegionModel *const *) a, *y = *(TsRegionModel *const *) b;
  double dx = x->mean.at_template, dy = y->mean.at_template;
  return dx > dy ? -1 : dx < dy ? 1 : g_strcmp0 (x->name, y->name);
}

static gint
compare_roles (gconstpointer a, gconstpointer b)
{
  guint x = ((const TsRoleModel *) a)->role, y = ((const TsRoleModel *) b)->role;
  return x < y ? -1 : x > y;
}

/* Roles are a code of 2 bits per grid dimension (ts_pattern_role). */
#define N_ROLES (1u << (2 * TS_PATTERN_MAX_DIMS))

/* @g's model of @role, added if it has none yet. */
static TsRoleModel *
role_model (TsRegionModel *g, guint role)
{
  for (guint k = 0; k < g->roles->len; k++)
    if (g_array_index (g->roles, TsRoleModel, k).role == role)
      return &g_array_index (g->roles, TsRoleModel, k);
  TsRoleModel fresh = { .role = role };
  g_array_append_val (g->roles, fresh);
  return &g_array_index (g->roles, TsRoleModel, g->roles->len - 1);
}

/* Each role's mean of @name at each scale, and its model. Only where the
 * largest input has ranks of several roles (an open grid, master and
 * workers). */
static gboolean
fit_roles (TsExtrapModel *m, TsRegionModel *g, GError **error)
{
  const TsScaleProfile *t = TS_EXTRAP_TEMPLATE (m);
  gboolean several = FALSE;
  /* Not an all-to-all's rank 0: at 1 rank it is every rank, and the
   * others' role would be fitted without the serial input. */
  gboolean has_roles = m->pattern.kind == TS_PATTERN_CARTESIAN
                       || m->pattern.kind == TS_PATTERN_MASTER_WORKER;
  for (guint r = 1; has_roles && r < t->n_ranks; r++)
    several |= ts_pattern_role (&m->pattern, t->n_ranks, r)
               != ts_pattern_role (&m->pattern, t->n_ranks, 0);
  for (guint i = m->first_compute; several && i < m->n_inputs; i++)
    {
      const TsScaleProfile *p = m->inputs[i];
      const double *x = g_hash_table_lookup (p->compute, g->name);
      TsPattern at = ts_pattern_at (&m->pattern, p->n_ranks);
      double sum[N_ROLES] = { 0 };
      guint count[N_ROLES] = { 0 };
      for (guint r = 0; r < p->n_ranks; r++)
        {
          guint role = ts_pattern_role (&at, p->n_ranks, r);
          sum[role] += x ? x[r] : 0;
          count[role]++;
        }
      for (guint role = 0; role < N_ROLES; role++)
        if (count[role] > 0)
          ts_extrap_add_point (&role_model (g, role)->mean, m->p[i], sum[role] / count[role]);
    }
  g_array_sort (g->roles, compare_roles);
  for (guint k = 0; k < g->roles->len; k++)
    {
      TsQuantity *q = &g_array_index (g->roles, TsRoleModel, k).mean;
      if (!ts_extrap_fit_quantity (q, TS_EXTRAP_SECONDS_FLOOR, m->target, error))
        return FALSE;
      ts_extrap_finish_quantity (m, q);
    }
  return TRUE;
}

static gboolean
fit_region (TsExtrapModel *m, const char *name, GError **error)
{
  TsRegionModel *g = g_new0 (TsRegionModel, 1);
  g->name = g_strdup (name);
  g->roles = g_array_new (FALSE, FALSE, sizeof (TsRoleModel));
  g_ptr_array_add (m->regions, g);
  for (guint i = m->first_compute; i < m->n_inputs; i++)
    {
      double mean, spread;
      ts_scale_profile_compute_stats (m->inputs[i], name, &mean, &spread);
      ts_extrap_add_point (&g->mean, m->p[i], mean);
      ts_extrap_add_point (&g->spread, m->p[i], spread);
    }
  if (!ts_extrap_fit_quantity (&g->mean, TS_EXTRAP_SECONDS_FLOOR, m->target, error)
      || !ts_extrap_fit_quantity (&g->spread, TS_EXTRAP_SPREAD_FLOOR, m->target, error))
    return FALSE;
  ts_extrap_finish_quantity (m, &g->mean);
  ts_extrap_finish_quantity (m, &g->spread);
  return fit_roles (m, g, error);
}

static gboolean
exchanges_messages (const TsScaleProfile *p)
{
  for (guint r = 0; r < p->n_ranks; r++)
    if (p->traffic[r]->len > 0)
      return TRUE;
  return FALSE;
}

/* Inputs that exchange no point-to-point message where the larger ones do
 * (a run on 1 rank) may have done none of the work that goes with it
 * (packing and unpacking halos, ghost cells), or spent what start-up
 * costs in a short run: then their compute is another regime, no law in P
 * fits points from both, and they are left out of the compute fits while
 * two inputs or more remain. They are kept where one law fits all the
 * inputs' compute per rank, cross-validated within
 * TS_EXTRAP_SERIAL_CV_ERROR: one regime (a code whose compute per rank is
 * a + b / P: 1.4% for mpgrafic's FFTs, 3.1% for LAMMPS at 1000 steps; two
 * regimes: 12% for LAMMPS at 100 steps). */
#define TS_EXTRAP_SERIAL_CV_ERROR 0.05

static guint
first_compute_input (TsExtrapModel *m)
{
  guint first = 0;
  while (ts_extrap_n_scales (m, first + 1) >= 2 && !exchanges_messages (m->inputs[first]))
    first++;
  for (guint i = first; i < m->n_inputs; i++)
    if (!exchanges_messages (m->inputs[i]))
      return 0;  /* the regimes do not split by scale */
  if (first == 0 || ts_extrap_n_scales (m, 0) < 3)
    return first;
  TsQuantity all = { 0 };
  for (guint i = 0; i < m->n_inputs; i++)
    ts_extrap_add_point (&all, m->p[i],
                         ts_scale_profile_total_compute (m->inputs[i]) / m->p[i]);
  m->serial_cv_error = NAN;
  if (ts_extrap_fit_quantity (&all, TS_EXTRAP_SECONDS_FLOOR, m->target, NULL))
    m->serial_cv_error = all.model.cv_error;
  return m->serial_cv_error <= TS_EXTRAP_SERIAL_CV_ERROR ? 0 : first;
}

/* Within this relative range over the scales (largest minus smallest over
 * their mean), a quantity "stays": 20% lets a strong-scaling code's
 * compute summed over ranks grow by its halo work (LAMMPS from 2 to 4
 * ranks: +9%), where the other reading moves by a factor of the rank
 * counts' ratio (50% or more from P to 2P). */
#define TS_EXTRAP_SCALING_RANGE 0.2

/* The inputs' compute per rank and summed over ranks at each scale
 * (repetitions averaged), from m->first_compute on, into @per and @sum;
 * the rank counts into @p. The number of scales. */
static guint
compute_by_scale (const TsExtrapModel *m, double *p, double *per, double *sum)
{
  guint n = 0;
  for (guint i = m->first_compute; i < m->n_inputs;)
    {
      guint j = i;
      double total = 0;
      while (j < m->n_inputs && m->p[j] == m->p[i])
        total += ts_scale_profile_total_compute (m->inputs[j++]);
      p[n] = m->p[i];
      sum[n] = total / (j - i);
      per[n] = sum[n] / m->p[i];
      n++;
      i = j;
    }
  return n;
}

static double
relative_range (const double *y, guint n)
{
  double lo = y[0], hi = y[0], mean = 0;
  for (guint i = 0; i < n; i++)
    {
      lo = MIN (lo, y[i]);
      hi = MAX (hi, y[i]);
      mean += y[i] / n;
    }
  return (hi - lo) / MAX (mean, TS_EXTRAP_SECONDS_FLOOR);
}

/* Strong scaling if the compute summed over ranks stays, weak if the
 * compute per rank does, whichever moves less; else neither. */
static void
recognise_scaling (TsExtrapModel *m)
{
  double p[16] = { 0 }, per[16] = { 0 }, sum[16] = { 0 };
  guint n = compute_by_scale (m, p, per, sum), last = n - 1;
  double strong = relative_range (sum, n), weak = relative_range (per, n);
  m->scaling_seen = MIN (strong, weak) > TS_EXTRAP_SCALING_RANGE ? TS_SCALING_UNKNOWN
                    : strong <= weak                             ? TS_SCALING_STRONG
                                                                 : TS_SCALING_WEAK;
  m->scaling_evidence
    = g_strdup_printf ("from %g to %g ranks, the compute summed over ranks goes from %.6g to "
                       "%.6g s (%.0f%% apart) and per rank from %.6g to %.6g s (%.0f%% apart); "
                       "within %.0f%% it stays", p[0], p[last], sum[0], sum[last], 100 * strong,
                       per[0], per[last], 100 * weak, 100 * TS_EXTRAP_SCALING_RANGE);
}

gboolean
ts_extrap_fit_compute (TsExtrapModel *m, GError **error)
{
  m->first_compute = first_compute_input (m);
  recognise_scaling (m);
  g_autoptr (GHashTable) names
    = ts_extrap_input_names (m, G_STRUCT_OFFSET (TsScaleProfile, compute), NULL);
  GHashTableIter it;
  gpointer name;
  g_hash_table_iter_init (&it, names);
  while (g_hash_table_iter_next (&it, &name, NULL))
    if (!fit_region (m, name, error))
      return FALSE;
  g_ptr_array_sort (m->regions, compare_region_models);
  return TRUE;
}

const TsRegionModel *
ts_extrap_region (const TsExtrapModel *m, const char *name)
{
  for (guint i = 0; i < m->regions->len; i++)
    {
      const TsRegionModel *g = g_ptr_array_index (m->regions, i);
      if (strcmp (g->name, name) == 0)
        return g;
    }
  return NULL;
}

/* Template rank @t's compute in @region becomes the mean at P, off the mean
 * by t's relative deviation in the template, rescaled to the spread at P.
 * On a grid with roles, the mean is that of t's role (fitted in P where
 * the role is seen at two scales or more, else the overall mean at P in the
 * role's proportion to it in the largest input), and the deviation within
 * the role is kept as it is. */
double
ts_extrap_compute_factor (const TsExtrapModel *m, const TsRegionModel *g, guint t)
{
  const TsScaleProfile *tp = TS_EXTRAP_TEMPLATE (m);
  const double *x = g_hash_table_lookup (tp->compute, g->name);
  if (!x || !(x[t] > 0) || !(g->mean.at_template > 0))
    return 0;
  double mean_t = g->mean.at_template, mean_p = g->mean.at_target;
  double spread = g->spread.at_template > 0 ? g->spread.at_target / g->spread.at_template : 0;
  guint role = g->roles->len ? ts_pattern_role (&m->pattern, tp->n_ranks, t) : 0;
  for (guint k = 0; k < g->roles->len; k++)
    {
      const TsRoleModel *rm = &g_array_index (g->roles, TsRoleModel, k);
      if (rm->role != role || !(rm->mean.at_template > 0))
        continue;
      mean_p = rm->mean.n >= 2 ? rm->mean.at_target
                               : mean_p * rm->mean.at_template / mean_t;
      mean_t = rm->mean.at_template;
      spread = 1;
    }
  double wanted = mean_p * (1 + (x[t] / mean_t - 1) * spread);
  return MAX (0, wanted) / x[t];
}

