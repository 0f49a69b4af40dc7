/* The residual of MPI calls under TsResidual (sim/replay.h): what a call's
 * trace shows beyond its work that neither waiting nor the network explains.
 *
 * TS_RESIDUAL_NOISE follows the way OS noise is described (Hoefler et al.,
 * "Characterizing the Influence of System Noise on Large-Scale
 * Applications by Simulation", SC'10: detours, by their rate and length):
 * each rank keeps, over its calls so far, the sum of its small residuals
 * and the count and sum of its detours (a residual of TS_NOISE_DETOUR or
 * more). Each call is then charged the small residuals' mean, plus a
 * detour with the rank's detour rate, of exponentially distributed length
 * with their mean length: on average what the trace had, but no longer at
 * the call that had it. The statistics are those of the calls so far, so
 * that the trace is read once; the first calls draw from few samples.
 *
 * The draws come from a counter-based generator (SplitMix64 of the seed,
 * the rank and the draw's number): reproducible, a few bytes a rank (a
 * GRand is 2.5 KB, 330 MB at 131,072 ranks), and one rank's draws do not
 * depend on the others', so that two what-ifs of one trace see the same
 * noise on every rank (common random numbers: their difference is the
 * change's, not the noise's). */
#include <config.h>

#include "sim/replay-private.h"

#include <math.h>

/* A residual this long is a detour (the rank was descheduled, or the
 * library stalled); shorter ones are the jitter of a call's own cost. The
 * 10 us sit above a call's jitter on an idle core and below the time
 * slices of a descheduled rank (ms) and Linux's noise detours (tens of us). */
#define TS_NOISE_DETOUR 10e-6

/* SplitMix64's mixer (Steele, Lea, Flood 2014). Its generator is the mix
 * of a counter stepped by the golden gamma: here the counter is the rank's
 * draws, started at a point set by the seed and the rank. */
static guint64
mix64 (guint64 x)
{
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

/* The rank's next draw: a uniform double in (0, 1). */
static double
draw (TsRank *rk)
{
  const guint64 gamma = 0x9e3779b97f4a7c15u;
  guint64 start = mix64 (rk->sim->options->seed + gamma * (rk->stream + 1));
  guint64 bits = mix64 (start + gamma * ++rk->noise_draws);
  return ((double) (bits >> 11) + 0.5) / 9007199254740992.0; /* 2^53 */
}

/* The rank's work for TS_RESIDUAL_SCALED: its own and its other threads'. */
static double
work_recorded (const TsRank *rk)
{
  return rk->recorded_work + rk->team_recorded_work;
}

static double
work_charged (const TsRank *rk)
{
  return rk->charged_work + rk->team_charged_work;
}

/* What TS_RESIDUAL_SCALED owes: the rank's residual so far in proportion
 * to its work, charged (after hypotheses) over recorded, less what it
 * charged already. */
static double
scaled_owed (const TsRank *rk)
{
  if (!(work_recorded (rk) > 0))
    return 0;
  return MAX (0, rk->recorded_residual * work_charged (rk) / work_recorded (rk)
                   - rk->charged_residual);
}

/* TS_RESIDUAL_SCALED: noise and descheduling take a share of what a rank
 * does, so its residual follows its work: a what-if that halves the work
 * halves it, one that changes only the network keeps it. A call pays what
 * is owed (scaled_owed) at most at the rank's rate so far (residual per
 * second of recorded work) on the work charged since its last call: a
 * residual is spread over the work that follows it rather than pinned to
 * the call that had it, and what is still owed at the rank's end is paid
 * there (ts_rank_residual_rest). */
static double
scaled (TsRank *rk, double residual)
{
  rk->recorded_residual += residual;
  double since = work_charged (rk) - rk->scaled_mark;
  rk->scaled_mark = work_charged (rk);
  double rate = work_recorded (rk) > 0 ? rk->recorded_residual / work_recorded (rk) : 0;
  return MIN (scaled_owed (rk), rate * since);
}

double
ts_rank_residual_rest (const TsRank *rk)
{
  return rk->sim->options->residual == TS_RESIDUAL_SCALED ? scaled_owed (rk) : 0;
}

double
ts_rank_residual (TsRank *rk, double residual)
{
  switch (rk->sim->options->residual)
    {
    case TS_RESIDUAL_PINNED:
      return residual;
    case TS_RESIDUAL_NONE:
      return 0;
    case TS_RESIDUAL_SCALED:
      return scaled (rk, residual);
    case TS_RESIDUAL_NOISE:
      break;
    }
  rk->noise_calls++;
  if (residual >= TS_NOISE_DETOUR)
    {
      rk->noise_detours++;
      rk->noise_detour_sum += residual;
    }
  else
    rk->noise_small += residual;
  double charge = rk->noise_small / rk->noise_calls;
  double u = draw (rk);
  if (rk->noise_detours > 0 && u * rk->noise_calls < rk->noise_detours)
    charge -= rk->noise_detour_sum / rk->noise_detours * log (draw (rk));
  return charge;
}
