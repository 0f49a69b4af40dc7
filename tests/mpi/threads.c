/* MPI from a thread other than the one that called MPI_Init
 * (MPI_THREAD_MULTIPLE): rank 0's second thread sends rank 1's second
 * thread 5 messages; then the main threads meet at a barrier. The recorder
 * records the main threads only, and says on each rank that 5 MPI calls
 * were not recorded. Run on 2 ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int rank;

static void *
worker (void *unused)
{
  for (int i = 0; i < 5; i++)
    {
      int v = i;
      if (rank == 0)
        MPI_Send (&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
      else
        MPI_Recv (&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  int provided;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE)
    {
      if (rank == 0)
        printf ("threads: no MPI_THREAD_MULTIPLE\n");
      MPI_Finalize ();
      return 0;
    }
  pthread_t t;
  pthread_create (&t, NULL, worker, NULL);
  pthread_join (t, NULL);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    printf ("threads done\n");
  MPI_Finalize ();
  return 0;
}
