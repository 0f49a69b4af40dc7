/* A rank computes 30 x 20,000,000 / P additions between MPI_Allreduce
 * calls: bench/cpu-time.sh records it with more ranks than cores to see
 * how much the sharing stretches compute (wall against CPU time). */
#include <mpi.h>
#include <stdio.h>
static volatile double sink;
static void work (long n) { double x = 0; for (long i = 0; i < n; i++) x += i * 1e-9; sink = x; }
int main (int argc, char **argv) {
  MPI_Init (&argc, &argv);
  int r, p; MPI_Comm_rank (MPI_COMM_WORLD, &r); MPI_Comm_size (MPI_COMM_WORLD, &p);
  double v = 1, s;
  for (int i = 0; i < 30; i++) { work (20000000L / p); MPI_Allreduce (&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }
  MPI_Finalize (); return 0; }
