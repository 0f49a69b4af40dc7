/* The network fit of the calibration's first pass (calibration.c): latency
 * and bandwidth through the fastest calls that moved a message. */
#include <config.h>

#include "calibrate/calibration.h"
#include "calibrate/calibration-private.h"

#include <math.h>

/* Fit seconds = latency + bytes / bandwidth through the fastest of @recv,
 * blocking receives by size class: over many calls the fastest did not
 * wait. Fills @envelope (the time each class is taken to need); returns how
 * many classes were fitted (0: nothing, *latency and *bandwidth left 0). */
static guint
fit_line (const CallSample *recv, double *envelope, double *latency, double *bandwidth)
{
  /* The fastest receive of each size class, made monotone: a message is
   * never slower to transfer than a larger one, so a class whose few calls
   * all waited (an oversubscribed run) takes the next larger class's time
   * instead of pulling the line up. */
  double faster = INFINITY;
  for (gint c = TS_N_SIZE_CLASSES - 1; c >= 0; c--)
    {
      if (recv[c].count > 0)
        faster = MIN (faster, recv[c].min);
      envelope[c] = faster;
    }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  guint n = 0;
  double min_small = INFINITY;
  for (guint c = 0; c < TS_N_SIZE_CLASSES; c++)
    {
      const CallSample *cs = &recv[c];
      if (cs->count == 0)
        continue;
      double x = (double) cs->bytes, y = envelope[c];
      g_debug ("network fit: size class %u: %" G_GUINT64_FORMAT " receives, fastest %g s "
               "(%g bytes), envelope %g s", c, (guint64) cs->count, cs->min, x, y);
      sx += x; sy += y; sxx += x * x; sxy += x * y;
      n++;
      min_small = MIN (min_small, y);
    }
  if (n == 0)
    return 0;
  double slope = 0, intercept = min_small;
  double den = n * sxx - sx * sx;
  if (n >= 2 && den > 0)
    {
      slope = (n * sxy - sx * sy) / den;
      intercept = (sy - slope * sx) / n;
    }
  /* A message of any size takes at least the latency, and some message of
   * every sampled size took no longer than its class's fastest receive: the
   * latency is at most the smallest of those. Least squares can put the
   * intercept far above it when a few mid-sized classes all waited (HPCC:
   * 13.6 us against a fastest receive of 0.24 us), and the replay then adds
   * that to every small message. */
  *latency = intercept > 0 ? MIN (intercept, min_small) : MAX (min_small, 1e-9);
  *bandwidth = slope > 1e-15 ? 1.0 / slope : 0;
  return n;
}

/* @recv's classes, each refined by @sends' fastest: a class's receives may
 * all have waited (a reduction tree's parent always waits for its slower
 * child), and a rendezvous send whose receiver waited shows the transfer.
 * A class of sends alone is not taken: every one of them may have waited
 * for its receiver (a pipeline's busy consumer). */
static void
refine (const CallSample *recv, const CallSample *sends, CallSample *out)
{
  for (guint c = 0; c < TS_N_SIZE_CLASSES; c++)
    {
      out[c] = recv[c];
      if (recv[c].count > 0 && sends[c].count > 0 && sends[c].min < recv[c].min)
        out[c].min = sends[c].min, out[c].bytes = sends[c].bytes;
    }
}

void
ts_calibration_fit_network (TsCalibration *p, const CallSample *samples, const CallSample *sends,
                            const CallSample *placed)
{
  for (guint k = 0; k < 2; k++)
    {
      TsNetworkFit *f = &p->placed_fit[k];
      CallSample fastest[TS_N_SIZE_CLASSES];
      refine (placed + k * TS_N_SIZE_CLASSES, sends + (1 + k) * TS_N_SIZE_CLASSES, fastest);
      f->samples = fit_line (fastest, p->placed_min[k], &f->latency, &f->bandwidth);
    }
  double envelope[TS_N_SIZE_CLASSES];
  CallSample fastest[TS_N_SIZE_CLASSES];
  refine (samples + TS_CALL_RECV * TS_N_SIZE_CLASSES, sends, fastest);
  p->fit_samples = fit_line (fastest, envelope, &p->latency, &p->bandwidth);
  if (p->fit_samples == 0)
    return;
  if (p->bandwidth <= 0)
    return;
  /* With both kinds of link fitted apart, the calibrated platform simulates
   * each on its own line; factors learnt against the line of all receives
   * would correct the wrong one. */
  if (p->placed_fit[0].samples && p->placed_fit[1].samples)
    return;
  /* A class whose fastest receive beat the line moved its message faster
   * than the fitted bandwidth, as MPI libraries do below their eager limit
   * (MUMPS, Open MPI on one node: 39720 B in 9.4 us where the line, pulled
   * by larger rendezvous messages, says 30 us). The replay deducts at most
   * that fastest call as network time, so simulating the line's 30 us made
   * each such receive 21 us longer than recorded. */
  for (guint c = 0; c < TS_N_SIZE_CLASSES; c++)
    {
      const CallSample *cs = &samples[TS_CALL_RECV * TS_N_SIZE_CLASSES + c];
      if (cs->count == 0 || cs->bytes == 0)
        continue;
      double on_line = cs->bytes / p->bandwidth;
      double beyond_latency = envelope[c] - p->latency;
      if (p->latency + on_line <= envelope[c])
        continue;
      p->bandwidth_factor[c] = beyond_latency > on_line / TS_CALIBRATION_MAX_BANDWIDTH_FACTOR
                                 ? on_line / beyond_latency
                                 : TS_CALIBRATION_MAX_BANDWIDTH_FACTOR;
      g_debug ("network fit: size class %u moves %g times faster than the line", c,
               p->bandwidth_factor[c]);
    }
}

