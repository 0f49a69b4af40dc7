/* Scaling models: how a measured quantity grows with the number of ranks P.
 *
 * The performance model normal form of Extra-P (Calotoiu et al., SC'13),
 * with one term beside the constant:
 *
 *     f(P) = c0 + c1 * P^i * log2(P)^j
 *
 * with i from a set of fractions (negative ones too: a strong-scaling code's
 * compute per rank falls as 1/P) and j in {0, 1, 2}. Every hypothesis is
 * fitted by least squares; the one with the smallest leave-one-out
 * cross-validated SMAPE is chosen, the simpler one where two are as good.
 * With one input scale only a constant is fitted, with two a constant, else
 * a single term c1 * P^i through both points where one of the powers passes
 * through both (a one-parameter model that two points do test), else
 * c0 + c1 * P: two points cannot tell the other shapes apart. How far to
 * trust a prediction is stated with it: the cross-validated error, how far
 * beyond the largest input scale it reaches, and the range the nearly as
 * good hypotheses predict there.
 *
 * Error contract: functions taking a GError return FALSE and set it (domain
 * G_IO_ERROR, code G_IO_ERROR_INVALID_DATA) for input no model can be
 * fitted to. Nothing is kept of the arguments. Values a billion times below
 * the floor a fit is given are taken as rounding noise, that is as 0. */
#ifndef TS_SCALING_H
#define TS_SCALING_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  double c0, c1;        /* c1 is 0 for a constant model */
  double exponent;      /* i, the power of P */
  guint log_exponent;   /* j, the power of log2(P) */
  guint n_points;       /* input scales it was fitted to */
  /* Leave-one-out cross-validation, Extra-P's SMAPE: the mean of
   * |predicted - measured| / max((|predicted| + |measured|) / 2, floor) over
   * the input scales, each predicted by the same hypothesis fitted to the
   * others. 0 for exact data; NAN with fewer than three scales (nothing to
   * leave out). */
  double cv_error;
  /* The largest relative residual of the fit itself over the input scales. */
  double fit_error;
  double largest_p;     /* the largest input scale */
} TsScalingModel;

/* Fit @y[k] measured at @p[k] ranks (@n points, distinct p >= 1, every value
 * finite). @floor: values below it in magnitude count as @floor in relative
 * errors (seconds: 1e-6), so that a near-zero quantity is not judged by its
 * noise. */
gboolean ts_scaling_fit (const double *p, const double *y, guint n, double floor,
                         TsScalingModel *model, GError **error);

/* The same, for a prediction at @target ranks (0: none in view): a
 * quantity above 0 at every input scale gets no model that falls to 0 or
 * below between the largest input scale and @target, when three scales
 * or more allow a choice. */
gboolean ts_scaling_fit_to (const double *p, const double *y, guint n, double floor,
                            double target, TsScalingModel *model, GError **error);

/* The hypotheses a model is chosen from, and how, in a sentence (owned by
 * the caller): what an explanation states once. */
char *ts_scaling_search_space (void);

/* The model's value at @p ranks. */
double ts_scaling_eval (const TsScalingModel *model, double p);

/* The model written as a formula, e.g. "0.002 + 0.5 * P^(-1)", or
 * "4096 * log2(P)" (owned by the caller). */
char *ts_scaling_describe (const TsScalingModel *model);

/* How far to trust @model at @p ranks, in one sentence (owned by the
 * caller): its cross-validated error, the factor beyond the largest input
 * scale, and, where other hypotheses fit nearly as well (cross-validated
 * error within twice the best, or 1%), the range of their predictions at @p.
 * Needs the points @model was fitted to. */
char *ts_scaling_trust (const TsScalingModel *model, const double *p_in, const double *y_in,
                        guint n, double floor, double p);

G_END_DECLS

#endif
