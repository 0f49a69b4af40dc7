/* tracesim-omp-cost [THREADS]: what this machine's OpenMP runtime (the one
 * this program is linked with: GCC's libgomp) takes for a parallel region
 * and for a barrier of THREADS threads (default 2) beyond the work in them,
 * under the OMP_WAIT_POLICY of the environment, in the form `tracesim run
 * --omp-costs FORK,BARRIER` takes: FORK the region's fork and join beyond
 * its last barrier (the region's cost minus a barrier's), BARRIER a
 * barrier's. A what-if that makes teams larger than a trace's (`threads =
 * N` from a one-thread trace) cannot read these from the trace.
 *
 * Measured as EPCC's syncbench does: REPS regions (barriers) around a
 * small delay, against the delay alone, the median of TRIALS trials. Run
 * it on the machine the prediction is for, idle, with the wait policy the
 * program will run with. */
#include <config.h>

#include <glib.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { REPS = 1000, TRIALS = 7 };

static volatile double sink;

static void
delay (long n)
{
  double x = 0;
  for (long i = 0; i < n; i++)
    x += (double) i * 1e-9;
  sink = x;
}

static int
by_value (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v, guint n)
{
  qsort (v, n, sizeof *v, (int (*) (const void *, const void *)) by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Seconds a rep of each: the delay alone, a region around it, a barrier
 * after it. */
static void
trial (int threads, long d, double *alone, double *region, double *barrier)
{
  double t0 = omp_get_wtime ();
  for (int r = 0; r < REPS; r++)
    delay (d);
  *alone = (omp_get_wtime () - t0) / REPS;
  t0 = omp_get_wtime ();
  for (int r = 0; r < REPS; r++)
    {
#pragma omp parallel num_threads (threads)
      delay (d);
    }
  *region = (omp_get_wtime () - t0) / REPS;
  t0 = omp_get_wtime ();
#pragma omp parallel num_threads (threads)
  for (int r = 0; r < REPS; r++)
    {
      delay (d);
#pragma omp barrier
    }
  *barrier = (omp_get_wtime () - t0) / REPS;
}

int
main (int argc, char **argv)
{
  long threads = argc > 1 ? strtol (argv[1], NULL, 10) : 2;
  if (argc > 2 || threads < 2 || threads > 4096)
    {
      fprintf (stderr, "usage: tracesim-omp-cost [THREADS]  (2 to 4096, default 2)\n");
      return 2;
    }
  double region[TRIALS], barrier[TRIALS];
  for (int i = 0; i < TRIALS; i++)
    {
      double alone, r, b;
      trial ((int) threads, 2000, &alone, &r, &b);
      region[i] = MAX (r - alone, 0);
      barrier[i] = MAX (b - alone, 0);
    }
  double p = median (region, TRIALS), b = median (barrier, TRIALS);
  const char *policy = g_getenv ("OMP_WAIT_POLICY");
  printf ("# tracesim-omp-cost: %ld threads, OMP_WAIT_POLICY=%s, GCC's libgomp: a parallel "
          "region %.2f us, a barrier %.2f us beyond their work (medians of %d trials of %d)\n",
          threads, policy ? policy : "(unset)", p * 1e6, b * 1e6, TRIALS, REPS);
  printf ("--omp-costs %.2fus,%.2fus\n", MAX (p - b, 0) * 1e6, b * 1e6);
  return 0;
}
