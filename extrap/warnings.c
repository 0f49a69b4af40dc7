#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

/* What limits an extrapolation's models as a whole, as Extra-P warns of it
 * beside a model: few input scales, a target far beyond them, readings of
 * the grid the inputs could not settle (its order, its number of
 * dimensions), a scaling given that the inputs do not show. */
#include "extrap/extrap-private.h"


/* Extra-P's advice (Calotoiu et al.): five scales or more, and no
 * prediction beyond a few times the largest. */
#define RECOMMENDED_SCALES 5
#define FAR_TARGET 4.0

/* How --grid-order names @order of @nd dimensions (owned by the caller),
 * and when a program numbers its ranks that way. */
static char *
order_option (guint nd, guint order, const char **when)
{
  guint8 factors[TS_PATTERN_MAX_DIMS];
  ts_pattern_order_factors (nd, order, factors);
  TsGridOrder g = ts_grid_order_of_factors (nd, factors);
  *when = g == TS_GRID_ORDER_LARGEST_FIRST  ? "as MPI_Cart_create does"
          : g == TS_GRID_ORDER_LARGEST_LAST ? "column-major"
                                            : "in that order of the factors";
  return ts_grid_order_name (g);
}

/* The inputs fit other orders of the grid's dimensions, with other shapes
 * at P: each, and the option that takes it. */
static void
warn_orders (TsExtrapModel *m)
{
  static const char *const count[] = { "", "", "two", "three", "four", "five", "six" };
  g_autofree char *taken = ts_pattern_describe (&m->at_target);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "the inputs fit %s orders of the grid's dimensions, which differ "
                          "at %u ranks: taken, %s; also possible", count[m->n_order_unsettled + 1],
                          m->target, taken);
  for (guint i = 0; i < m->n_order_unsettled; i++)
    {
      TsPattern theirs = ts_pattern_at (&m->order_unsettled[i], m->target);
      /* Its boundaries were not settled (settle_boundaries takes the
       * order first): where the taken grid's are alike, they are its. */
      gboolean alike = TRUE;
      for (guint k = 1; k < theirs.n_dims; k++)
        alike &= m->at_target.periodic[k] == m->at_target.periodic[0];
      for (guint k = 0; alike && k < theirs.n_dims; k++)
        theirs.periodic[k] = m->at_target.periodic[0];
      g_autofree char *other = ts_pattern_describe (&theirs);
      const char *when;
      g_autofree char *name = order_option (m->pattern.n_dims, m->order_unsettled[i].order,
                                            &when);
      g_string_append_printf (s, "%s %s (--grid-order %s, if the program numbers its ranks %s)",
                              i ? ";" : ",", other, name, when);
    }
  g_ptr_array_add (m->warnings, g_string_free (s, FALSE));
}

void
ts_extrap_collect_warnings (TsExtrapModel *m)
{
  guint scales = ts_extrap_n_scales (m, 0), largest = m->p[m->n_inputs - 1];
  guint compute_scales = ts_extrap_n_scales (m, m->first_compute);
  if (scales == 2)
    g_ptr_array_add (m->warnings,
                     g_strdup ("two input scales support no more than a constant, a single "
                               "power of P through both points or a line, and test none of "
                               "them: give a third scale (five or more, as Extra-P advises)"));
  else if (compute_scales == 2)
    g_ptr_array_add (m->warnings,
                     g_strdup_printf ("the compute models come from two scales (%u and %u "
                                      "ranks; the smaller inputs were left out, below), which "
                                      "support no more than a constant, a single power of P or "
                                      "a line and test none of them: give a third scale that "
                                      "exchanges messages", m->p[m->first_compute],
                                      m->p[m->n_inputs - 1]));
  else if (scales < RECOMMENDED_SCALES)
    g_ptr_array_add (m->warnings,
                     g_strdup_printf ("%u input scales: Extra-P advises %d or more; each model "
                                      "is chosen among hypotheses that so few points tell "
                                      "apart poorly (see each one's cross-validated error and "
                                      "range below)", scales, RECOMMENDED_SCALES));
  if (m->target > FAR_TARGET * largest)
    g_ptr_array_add (m->warnings,
                     g_strdup_printf ("%u ranks is %.3gx the largest input (%u ranks), beyond "
                                      "the %gx within which a model's shape is usually trusted: "
                                      "trace a larger rank count", m->target,
                                      (double) m->target / largest, largest, FAR_TARGET));
  if (m->scaling_given != TS_SCALING_UNKNOWN && m->scaling_given != m->scaling_seen)
    g_ptr_array_add (m->warnings,
                     g_strdup_printf ("%s scaling was given, but the inputs do not show it: %s; "
                                      "the models follow the inputs",
                                      m->scaling_given == TS_SCALING_STRONG ? "strong" : "weak",
                                      m->scaling_evidence));
  if (m->dims_unsettled.kind == TS_PATTERN_CARTESIAN)
    {
      TsPattern theirs = ts_pattern_at (&m->dims_unsettled, m->target);
      g_autofree char *taken = ts_pattern_describe (&m->at_target);
      g_autofree char *other = ts_pattern_describe (&theirs);
      g_ptr_array_add (m->warnings,
                       g_strdup_printf ("the inputs fit grids of %u and of %u dimensions, which "
                                        "differ at %u ranks: taken, the fewer, %s; also "
                                        "possible, %s, but no input shows its dimensions each "
                                        "with two ranks or more: if the program makes a %u-D "
                                        "grid, trace it at a rank count that does",
                                        m->pattern.n_dims, m->dims_unsettled.n_dims, m->target,
                                        taken, other, m->dims_unsettled.n_dims));
    }
  if (m->doubling_unsettled.kind == TS_PATTERN_BUTTERFLY)
    {
      g_autofree char *taken = ts_pattern_describe (&m->at_target);
      g_autofree char *other = ts_pattern_describe (&m->doubling_unsettled);
      g_ptr_array_add (m->warnings,
                       g_strdup_printf ("the inputs fit %s too, which gives other partners at "
                                        "%u ranks: taken, the simpler, %s; if the program "
                                        "exchanges by recursive doubling, say so with "
                                        "--recursive-doubling, or trace a rank count where the "
                                        "two differ", other, m->target, taken));
    }
  if (m->n_order_unsettled > 0)
    warn_orders (m);
}

