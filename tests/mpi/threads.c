/* MPI from every thread (MPI_THREAD_MULTIPLE), 2 ranks: on each rank the
 * main thread and a second one both exchange with the same thread of the
 * other rank, matched by tag (the thread's number): 5 rounds of MPI_Send
 * then MPI_Recv on rank 0, MPI_Recv then MPI_Send on rank 1, and on the
 * second threads an MPI_Isend/MPI_Irecv/MPI_Waitall round as well. Then the
 * main threads meet at a barrier. Each thread's calls are recorded on its
 * own location (tests/test-record-threads.sh counts them).
 *
 * threads funneled: the same calls under MPI_THREAD_FUNNELED, which allows
 * MPI on the main thread only: the second thread makes its calls while the
 * main thread waits for it (so that the library, not made for two threads
 * at once, still works), then the main thread makes its own. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int rank;

static void
exchange (int tag)
{
  int other = 1 - rank;
  for (int i = 0; i < 5; i++)
    {
      int v = i, w = 0;
      if (rank == 0)
        {
          MPI_Send (&v, 1, MPI_INT, other, tag, MPI_COMM_WORLD);
          MPI_Recv (&w, 1, MPI_INT, other, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
      else
        {
          MPI_Recv (&w, 1, MPI_INT, other, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send (&v, 1, MPI_INT, other, tag, MPI_COMM_WORLD);
        }
    }
}

static void *
worker (void *unused)
{
  (void) unused;
  exchange (1);
  int v = rank, w = -1;
  MPI_Request r[2];
  MPI_Irecv (&w, 1, MPI_INT, 1 - rank, 1, MPI_COMM_WORLD, &r[0]);
  MPI_Isend (&v, 1, MPI_INT, 1 - rank, 1, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall (2, r, MPI_STATUSES_IGNORE);
  return NULL;
}

int
main (int argc, char **argv)
{
  int provided, funneled = argc > 1 && strcmp (argv[1], "funneled") == 0;
  MPI_Init_thread (&argc, &argv, funneled ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (!funneled && provided < MPI_THREAD_MULTIPLE)
    {
      if (rank == 0)
        printf ("threads: no MPI_THREAD_MULTIPLE\n");
      MPI_Finalize ();
      return 0;
    }
  pthread_t t;
  pthread_create (&t, NULL, worker, NULL);
  if (funneled)
    pthread_join (t, NULL);
  exchange (0);
  if (!funneled)
    pthread_join (t, NULL);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    printf ("threads done\n");
  MPI_Finalize ();
  return 0;
}
