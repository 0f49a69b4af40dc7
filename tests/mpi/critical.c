/* OpenMP critical sections and locks under the recorder
 * (tests/test-record-locks.sh), 2 threads a rank (OMP_NUM_THREADS=2): 3
 * parallel regions, in each of which both threads compute the same, then
 * take the unnamed critical section and compute in it, then take an
 * omp_lock_t and compute holding it; then the ranks meet at an
 * MPI_Barrier. The threads arrive at each together, so one waits for the
 * other's section. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

static double
spin (long n, double x)
{
  for (long i = 0; i < n; i++)
    x = x * 1.0000001 + 1e-9;
  return x;
}

int
main (int argc, char **argv)
{
  int provided, rank;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  omp_lock_t lock;
  omp_init_lock (&lock);
  double acc = 0;
  for (int i = 0; i < 3; i++)
    {
#pragma omp parallel reduction(+ : acc)
      {
        acc += spin (200000L, acc);
#pragma omp critical
        acc += spin (2000000L, acc);
        omp_set_lock (&lock);
        acc += spin (1000000L, acc);
        omp_unset_lock (&lock);
      }
    }
  omp_destroy_lock (&lock);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    printf ("critical done, %d threads, %g\n", omp_get_max_threads (), acc);
  MPI_Finalize ();
  return 0;
}
