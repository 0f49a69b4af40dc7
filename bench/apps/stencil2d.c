/* A 2-D periodic halo exchange whose scaling is known by construction, for
 * bench/extrapolation.sh: run at 1, 2, 4 and 8 ranks, recorded, and the
 * 8-rank trace predicted from the others.
 *
 *   stencil2d strong|weak ITERATIONS FACE_BYTES COMPUTE_SECONDS
 *
 * The process grid is MPI_Dims_create's for 2 dimensions, periodic, built
 * with MPI_Cart_create (no reordering). Each iteration a rank "computes"
 * (sleeps: on a machine with fewer cores than ranks a busy loop would time
 * its sharing of the cores, not the program), then exchanges one message
 * with each face neighbour (MPI_Irecv both, MPI_Isend both, MPI_Waitall,
 * dimension by dimension), and every 10th iteration joins an 8-byte
 * MPI_Allreduce. Strong scaling: COMPUTE_SECONDS / P per rank, and a message
 * along a dimension carries FACE_BYTES divided by the ranks across the other
 * dimension. Weak: COMPUTE_SECONDS per rank and FACE_BYTES per message. A
 * neighbour that is the rank itself (a dimension of one rank) is skipped. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void
compute (double seconds)
{
  struct timespec ts = { (time_t) seconds, (long) ((seconds - (time_t) seconds) * 1e9) };
  while (nanosleep (&ts, &ts) != 0)
    ;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  if (argc != 5)
    {
      fprintf (stderr, "usage: stencil2d strong|weak ITERATIONS FACE_BYTES COMPUTE_SECONDS\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  int strong = strcmp (argv[1], "strong") == 0, iterations = atoi (argv[2]);
  long face = atol (argv[3]);
  double seconds = atof (argv[4]);
  int p, rank, dims[2] = { 0, 0 }, periods[2] = { 1, 1 };
  MPI_Comm_size (MPI_COMM_WORLD, &p);
  MPI_Dims_create (p, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_rank (grid, &rank);
  long bytes[2] = { strong ? face / dims[1] : face, strong ? face / dims[0] : face };
  char *buffers = calloc (8, (size_t) (bytes[0] > bytes[1] ? bytes[0] : bytes[1]) + 1);
  size_t stride = (size_t) (bytes[0] > bytes[1] ? bytes[0] : bytes[1]) + 1;
  double mine = strong ? seconds / p : seconds;
  for (int it = 0; it < iterations; it++)
    {
      compute (mine);
      for (int d = 0; d < 2; d++)
        {
          int lo, hi;
          MPI_Cart_shift (grid, d, 1, &lo, &hi);
          if (lo == rank)
            continue;
          MPI_Request req[4];
          /* A message travelling up along d has tag 2d + 1, down 2d. */
          MPI_Irecv (buffers, (int) bytes[d], MPI_CHAR, lo, 2 * d + 1, grid, &req[0]);
          MPI_Irecv (buffers + stride, (int) bytes[d], MPI_CHAR, hi, 2 * d, grid, &req[1]);
          MPI_Isend (buffers + 2 * stride, (int) bytes[d], MPI_CHAR, lo, 2 * d, grid, &req[2]);
          MPI_Isend (buffers + 3 * stride, (int) bytes[d], MPI_CHAR, hi, 2 * d + 1, grid, &req[3]);
          MPI_Waitall (4, req, MPI_STATUSES_IGNORE);
        }
      if ((it + 1) % 10 == 0)
        {
          double x = rank, sum;
          MPI_Allreduce (&x, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
        }
    }
  free (buffers);
  MPI_Comm_free (&grid);
  MPI_Finalize ();
  return 0;
}
