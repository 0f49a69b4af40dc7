#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/scaling.h"

#include <gio/gio.h>
#include <math.h>

/* The powers of P a term may have: Extra-P's default fractions, and their
 * negatives up to -1 for quantities that shrink as ranks are added, and
 * -3/2 and -2 for what is shared between pairs of ranks (a strong-scaling
 * all-to-all sends each partner a block of N / P^2). */
static const struct {
  int num, den;
} exponents[] = {
  { -2, 1 }, { -3, 2 }, { -1, 1 }, { -3, 4 }, { -2, 3 }, { -1, 2 }, { -1, 3 }, { -1, 4 }, { 0, 1 }, { 1, 4 },
  { 1, 3 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 1, 1 }, { 5, 4 }, { 4, 3 }, { 3, 2 },
  { 5, 3 }, { 7, 4 }, { 2, 1 }, { 9, 4 }, { 7, 3 }, { 5, 2 }, { 8, 3 }, { 11, 4 }, { 3, 1 },
};
#define N_EXPONENTS G_N_ELEMENTS (exponents)
#define MAX_LOG_EXPONENT 2

/* Cross-validated errors closer than this (a relative error, so 0.1
 * percentage points) do not tell two hypotheses apart: the simpler wins. */
#define SAME_ERROR 1e-3

/* Two input values closer than this, relatively, are one value: with two
 * scales, the quantity is then constant. */
#define SAME_VALUE 1e-3

typedef struct {
  double exponent;
  guint log_exponent;
  gboolean constant;
} Hypothesis;

static double
term (const Hypothesis *h, double p)
{
  if (h->constant)
    return 0;
  double t = pow (p, h->exponent);
  for (guint j = 0; j < h->log_exponent; j++)
    t *= log2 (p);
  return t;
}

/* Least squares of y = c0 + c1 * term(p) over the points but @skip
 * (G_MAXUINT: none). FALSE if the points cannot determine both
 * coefficients (every term equal). */
static gboolean
fit_one (const Hypothesis *h, const double *p, const double *y, guint n, guint skip, double *c0,
         double *c1)
{
  double sx = 0, sy = 0, m = 0;
  for (guint k = 0; k < n; k++)
    if (k != skip)
      {
        sx += term (h, p[k]);
        sy += y[k];
        m++;
      }
  if (m == 0)
    return FALSE;
  double mx = sx / m, my = sy / m, sxx = 0, sxy = 0;
  for (guint k = 0; k < n; k++)
    if (k != skip)
      {
        double dx = term (h, p[k]) - mx;
        sxx += dx * dx;
        sxy += dx * (y[k] - my);
      }
  if (h->constant)
    {
      *c0 = my;
      *c1 = 0;
      return TRUE;
    }
  if (sxx <= 1e-12 * (1 + mx * mx))
    return FALSE;
  *c1 = sxy / sxx;
  *c0 = my - *c1 * mx;
  return isfinite (*c0) && isfinite (*c1);
}

static double
relative (double predicted, double measured, double floor)
{
  return fabs (predicted - measured) / MAX (fabs (measured), floor);
}

/* The symmetric relative error Extra-P judges its models by (SMAPE's
 * term): |predicted - measured| over their mean magnitude, which neither
 * favours predicting too low nor explodes near 0 (@floor). */
static double
symmetric (double predicted, double measured, double floor)
{
  return fabs (predicted - measured) / MAX ((fabs (predicted) + fabs (measured)) / 2, floor);
}

/* The leave-one-out SMAPE of @h: each scale predicted by @h fitted to the
 * others; INFINITY if a fold cannot be fitted. */
static double
cross_validate (const Hypothesis *h, const double *p, const double *y, guint n, double floor)
{
  double sum = 0;
  for (guint k = 0; k < n; k++)
    {
      double c0, c1;
      if (!fit_one (h, p, y, n, k, &c0, &c1))
        return INFINITY;
      sum += symmetric (c0 + c1 * term (h, p[k]), y[k], floor);
    }
  return sum / n;
}

/* Simpler first: the constant, then fewer logarithms, then smaller powers
 * of P, a growing term before a shrinking one. */
static double
complexity (const Hypothesis *h)
{
  if (h->constant)
    return -1;
  return h->log_exponent * 100.0 + fabs (h->exponent) * 2 + (h->exponent < 0);
}

static gboolean
check_points (const double *p, const double *y, guint n, GError **error)
{
  if (n == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "no input scale to fit a scaling model to");
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    {
      if (!(p[k] >= 1) || !isfinite (p[k]) || !isfinite (y[k]))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "scale %u: %g ranks, value %g: ranks must be >= 1 and values finite", k,
                       p[k], y[k]);
          return FALSE;
        }
      for (guint l = 0; l < k; l++)
        if (p[l] == p[k])
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         "%g ranks given twice: each input scale once", p[k]);
            return FALSE;
          }
    }
  return TRUE;
}

static void
model_of (const Hypothesis *h, const double *p, const double *y, guint n, double floor,
          double cv, TsScalingModel *m)
{
  *m = (TsScalingModel) { .exponent = h->exponent, .log_exponent = h->log_exponent,
                          .n_points = n, .cv_error = cv };
  /* Cannot fail: every fold of a chosen hypothesis was fitted (and with two
   * scales, a line through distinct P). */
  gboolean fitted = fit_one (h, p, y, n, G_MAXUINT, &m->c0, &m->c1);
  g_assert (fitted);
  /* Rounding leaves a constant where exact data has none (1e-17, or
   * 1e-11 s beside 0.1 / P): one 1e8 times below the values is 0. */
  double scale = 0;
  for (guint k = 0; k < n; k++)
    scale = MAX (scale, fabs (y[k]));
  if (fabs (m->c0) <= (m->c1 != 0 ? 1e-8 : 1e-12) * scale)
    m->c0 = 0;
  for (guint k = 0; k < n; k++)
    {
      m->fit_error = MAX (m->fit_error, relative (ts_scaling_eval (m, p[k]), y[k], floor));
      m->largest_p = MAX (m->largest_p, p[k]);
    }
}

/* c1 * P^@e through the first of two points. */
static void
power_model (const double *p, const double *y, double e, TsScalingModel *m)
{
  *m = (TsScalingModel) { .c1 = y[0] / pow (p[0], e), .exponent = e, .n_points = 2,
                          .cv_error = NAN, .largest_p = MAX (p[0], p[1]) };
}

/* Two points that one term c1 * P^i passes through, i one of the powers
 * (a face that halves when the ranks across it double): a one-parameter
 * model that two points test, where a line always passes through both. */
static gboolean
single_power (const double *p, const double *y, double floor, TsScalingModel *m)
{
  for (guint i = 0; i < N_EXPONENTS; i++)
    {
      double e = (double) exponents[i].num / exponents[i].den;
      if (e == 0 || y[0] == 0)
        continue;
      double c1 = y[0] / pow (p[0], e);
      if (relative (c1 * pow (p[1], e), y[1], floor) <= SAME_VALUE)
        {
          power_model (p, y, e, m);
          m->fit_error = relative (c1 * pow (p[1], e), y[1], floor);
          return TRUE;
        }
    }
  return FALSE;
}

static char *exponent_text (double e);

/* Every hypothesis the number of points allows, in @out (Hypothesis). */
static GArray *
hypotheses_for (guint n)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Hypothesis));
  Hypothesis constant = { .constant = TRUE };
  g_array_append_val (out, constant);
  if (n == 2)
    {
      Hypothesis linear = { .exponent = 1 };
      g_array_append_val (out, linear);
    }
  else if (n >= 3)
    for (guint j = 0; j <= MAX_LOG_EXPONENT; j++)
      for (guint i = 0; i < N_EXPONENTS; i++)
        {
          Hypothesis h = { .exponent = (double) exponents[i].num / exponents[i].den,
                           .log_exponent = j };
          if (h.exponent != 0 || j > 0)
            g_array_append_val (out, h);
        }
  return out;
}

/* Does @h, fitted to every point, stay above 0 from the largest input
 * scale to @target (sampled in geometric steps)? */
static gboolean
stays_positive (const Hypothesis *h, const double *p, const double *y, guint n, double target)
{
  double c0, c1, largest = 0;
  if (!fit_one (h, p, y, n, G_MAXUINT, &c0, &c1))
    return FALSE;
  for (guint k = 0; k < n; k++)
    largest = MAX (largest, p[k]);
  for (guint s = 0; s <= 16; s++)
    {
      double x = largest * pow (target / largest, s / 16.0);
      if (!(c0 + c1 * term (h, x) > 0))
        return FALSE;
    }
  return TRUE;
}

gboolean
ts_scaling_fit (const double *p, const double *y, guint n, double floor, TsScalingModel *model,
                GError **error)
{
  return ts_scaling_fit_to (p, y, n, floor, 0, model, error);
}

gboolean
ts_scaling_fit_to (const double *p, const double *y, guint n, double floor, double target,
                   TsScalingModel *model, GError **error)
{
  g_return_val_if_fail (model != NULL && (n == 0 || (p && y)), FALSE);
  if (!check_points (p, y, n, error))
    return FALSE;
  /* Values a billion times below @floor are rounding noise (a spread of
   * 1e-16 where every rank took the same time): 0. */
  g_autofree double *clean = g_memdup2 (y, n * sizeof *y);
  for (guint k = 0; k < n; k++)
    if (fabs (clean[k]) < 1e-9 * floor)
      clean[k] = 0;
  y = clean;
  g_autoptr (GArray) hyps = hypotheses_for (n);
  /* A quantity above 0 at every scale (seconds, bytes) stays above 0 at
   * the target: a model that reaches 0 on the way (three points that
   * happen to lie on a line in log2 P) predicts nothing there. */
  gboolean positive = target > 0;
  for (guint k = 0; k < n; k++)
    positive &= y[k] > 0;
  if (n <= 2)
    {
      /* Nothing to leave out: constant unless the values differ. */
      gboolean same = n == 1 || relative (y[1], y[0], floor) <= SAME_VALUE;
      if (same || !single_power (p, y, floor, model))
        {
          const Hypothesis *h = &g_array_index (hyps, Hypothesis, same ? 0 : 1);
          if (same || !positive || stays_positive (h, p, y, n, target))
            model_of (h, p, y, n, floor, NAN, model);
          else
            /* The power of P through both points, whatever its exponent:
             * where the line would reach 0 before the target (a
             * strong-scaling compute that halves a little less than P
             * doubles: 0.108 s at 2 ranks, 0.059 s at 4), the trend in
             * log-log, which never does. */
            power_model (p, y, log (y[1] / y[0]) / log (p[1] / p[0]), model);
        }
      return TRUE;
    }
  guint best = 0;
  double best_cv = INFINITY;
  double *cv = g_new (double, hyps->len);
  for (guint h = 0; h < hyps->len; h++)
    {
      const Hypothesis *hyp = &g_array_index (hyps, Hypothesis, h);
      cv[h] = positive && !hyp->constant && !stays_positive (hyp, p, y, n, target)
              ? INFINITY : cross_validate (hyp, p, y, n, floor);
      if (cv[h] < best_cv)
        best_cv = cv[h];
    }
  double best_complexity = INFINITY;
  for (guint h = 0; h < hyps->len; h++)
    {
      double c = complexity (&g_array_index (hyps, Hypothesis, h));
      if (cv[h] <= best_cv + SAME_ERROR && c < best_complexity)
        {
          best = h;
          best_complexity = c;
        }
    }
  model_of (&g_array_index (hyps, Hypothesis, best), p, y, n, floor, cv[best], model);
  g_free (cv);
  return TRUE;
}

char *
ts_scaling_search_space (void)
{
  GString *s = g_string_new ("f(P) = c0 + c1 * P^i * log2(P)^j, i one of");
  for (guint i = 0; i < N_EXPONENTS; i++)
    {
      g_autofree char *e = exponent_text ((double) exponents[i].num / exponents[i].den);
      g_string_append_printf (s, "%s %s", i ? "," : "", e);
    }
  g_autoptr (GArray) all = hypotheses_for (3);
  g_string_append_printf (s, "; j one of 0 to %d: %u hypotheses with the constant, the one "
                          "with the smallest leave-one-out SMAPE chosen (the simplest within "
                          "%g points), from three scales or more; from two, a constant, a "
                          "single power of P through both points or a line; from one, a "
                          "constant", MAX_LOG_EXPONENT, all->len, 100 * SAME_ERROR);
  return g_string_free (s, FALSE);
}

double
ts_scaling_eval (const TsScalingModel *m, double p)
{
  g_return_val_if_fail (m != NULL, NAN);
  Hypothesis h = { .exponent = m->exponent, .log_exponent = m->log_exponent,
                   .constant = m->c1 == 0 };
  return m->c0 + m->c1 * term (&h, p);
}

static char *
exponent_text (double e)
{
  for (guint i = 0; i < N_EXPONENTS; i++)
    if (fabs ((double) exponents[i].num / exponents[i].den - e) < 1e-12)
      return exponents[i].den == 1 ? g_strdup_printf ("%d", exponents[i].num)
                                   : g_strdup_printf ("(%d/%d)", exponents[i].num, exponents[i].den);
  return g_strdup_printf ("(%g)", e);
}

char *
ts_scaling_describe (const TsScalingModel *m)
{
  g_return_val_if_fail (m != NULL, NULL);
  if (m->c1 == 0)
    return g_strdup_printf ("%.6g", m->c0);
  GString *s = g_string_new (NULL);
  if (m->c0 != 0)
    g_string_append_printf (s, "%.6g %s ", m->c0, m->c1 < 0 ? "-" : "+");
  g_string_append_printf (s, "%.6g", m->c0 != 0 ? fabs (m->c1) : m->c1);
  if (m->exponent != 0)
    {
      g_autofree char *e = exponent_text (m->exponent);
      g_string_append_printf (s, " * P^%s", e);
    }
  if (m->log_exponent == 1)
    g_string_append (s, " * log2(P)");
  else if (m->log_exponent > 1)
    g_string_append_printf (s, " * log2(P)^%u", m->log_exponent);
  return g_string_free (s, FALSE);
}

char *
ts_scaling_trust (const TsScalingModel *m, const double *p_in, const double *y_in, guint n,
                  double floor, double p)
{
  g_return_val_if_fail (m != NULL, NULL);
  GString *s = g_string_new (NULL);
  if (m->n_points < 3)
    g_string_append_printf (s, "%u input scale%s only: %s, not cross-validated", m->n_points,
                            m->n_points == 1 ? "" : "s",
                            m->n_points == 1 ? "a constant"
                            : "a constant, a single power of P through both, or a line");
  else
    g_string_append_printf (s, "cross-validated SMAPE %.1f%% over %u scales", 100 * m->cv_error,
                            m->n_points);
  if (p > m->largest_p)
    g_string_append_printf (s, "; P=%g is %.3gx the largest input scale", p, p / m->largest_p);
  if (m->n_points >= 3 && n == m->n_points)
    {
      /* The spread of the nearly as good: what the choice of shape costs. */
      double lo = ts_scaling_eval (m, p), hi = lo;
      g_autoptr (GArray) hyps = hypotheses_for (n);
      double limit = MAX (2 * m->cv_error, m->cv_error + 0.01);
      for (guint h = 0; h < hyps->len; h++)
        {
          const Hypothesis *hy = &g_array_index (hyps, Hypothesis, h);
          double c0, c1;
          if (cross_validate (hy, p_in, y_in, n, floor) > limit
              || !fit_one (hy, p_in, y_in, n, G_MAXUINT, &c0, &c1))
            continue;
          double v = c0 + c1 * term (hy, p);
          lo = MIN (lo, v);
          hi = MAX (hi, v);
        }
      g_string_append_printf (s, "; models nearly as good predict %.4g .. %.4g there", lo, hi);
    }
  return g_string_free (s, FALSE);
}
