/* A small MPI program for the trace corpus (bench/record-corpus.sh): the
 * patterns whose replay needs more than the trace says when it comes from
 * EZTrace 2.0, where MPI_Irecv records no peer, tag or size and no request
 * ever completes.
 *
 *   anysource [SCALE]
 *
 * SCALE (default 1) multiplies the computation between phases. Phases,
 * each closed by an MPI_Barrier:
 *   A  manager/worker: rank 0 hands out TASKS_PER_WORKER tasks per worker
 *      (8 doubles each) and takes the results back with a blocking
 *      MPI_Recv from MPI_ANY_SOURCE, answering whoever sent; the workers'
 *      tasks have different sizes, so the order of arrival varies.
 *   B  ordered head-to-head: rank r and r^1 exchange BIG_DOUBLES (140 KiB)
 *      PAIR_ITERS times with blocking calls, the even rank MPI_Send then
 *      MPI_Recv, the odd one MPI_Recv then MPI_Send.
 *   C  crossed head-to-head: both ranks of a pair post MPI_Irecv first,
 *      then MPI_Send 140 KiB to each other (which completes only because
 *      the partner's receive is posted), then MPI_Wait.
 *   D  all-to-all by MPI_ANY_SOURCE: each rank posts size-1 MPI_Irecv from
 *      MPI_ANY_SOURCE, MPI_Sends 1 KiB to every other rank, MPI_Waitall.
 * With an odd number of ranks the last one sits phases B and C out.
 * Rank 0 prints the checksum and its wall time (MPI_Init to MPI_Finalize):
 *   elapsed <seconds>                                                      */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS_PER_WORKER 12
#define TASK_DOUBLES 8
#define BIG_DOUBLES 17920    /* 140 KiB */
#define SMALL_DOUBLES 128    /* 1 KiB */
#define PAIR_ITERS 20
#define ALL_ITERS 10
#define UNIT 400000          /* dependent multiply-adds per work unit (~1 ms) */

enum { TAG_TASK = 1, TAG_STOP, TAG_RESULT, TAG_B, TAG_C, TAG_D };

static double scale = 1.0;

/* A dependent chain the compiler cannot shorten. */
static double
compute (double units, double seed)
{
  long n = (long) (units * scale * UNIT);
  double x = seed;
  for (long i = 0; i < n; i++)
    x = x * 1.0000001 + 1e-9;
  return x;
}

static double
manager (int size)
{
  double task[TASK_DOUBLES], result[TASK_DOUBLES], sum = 0;
  int sent = 0, total = TASKS_PER_WORKER * (size - 1);
  MPI_Status st;

  for (int w = 1; w < size; w++)
    {
      task[0] = sent++;
      MPI_Send (task, TASK_DOUBLES, MPI_DOUBLE, w, TAG_TASK, MPI_COMM_WORLD);
    }
  for (int done = 0; done < total; done++)
    {
      MPI_Recv (result, TASK_DOUBLES, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT,
                MPI_COMM_WORLD, &st);
      sum += result[0];
      if (sent < total)
        {
          task[0] = sent++;
          MPI_Send (task, TASK_DOUBLES, MPI_DOUBLE, st.MPI_SOURCE, TAG_TASK,
                    MPI_COMM_WORLD);
        }
      else
        MPI_Send (task, 0, MPI_DOUBLE, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
    }
  return sum;
}

static double
worker (int rank)
{
  double task[TASK_DOUBLES], sum = 0;
  MPI_Status st;

  for (;;)
    {
      MPI_Recv (task, TASK_DOUBLES, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD,
                &st);
      if (st.MPI_TAG == TAG_STOP)
        break;
      /* 1 to 4 units, depending on the rank and the task */
      int units = 1 + (rank + (int) task[0]) % 4;
      task[0] = compute (units, task[0]);
      sum += task[0];
      MPI_Send (task, TASK_DOUBLES, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
  return sum;
}

/* B: ordered head-to-head blocking sends of 140 KiB */
static double
ordered_pairs (int rank, int partner, double *sbuf, double *rbuf)
{
  double acc = 0;
  for (int it = 0; it < PAIR_ITERS && partner >= 0; it++)
    {
      if (rank % 2 == 0)
        {
          MPI_Send (sbuf, BIG_DOUBLES, MPI_DOUBLE, partner, TAG_B, MPI_COMM_WORLD);
          MPI_Recv (rbuf, BIG_DOUBLES, MPI_DOUBLE, partner, TAG_B, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
        }
      else
        {
          MPI_Recv (rbuf, BIG_DOUBLES, MPI_DOUBLE, partner, TAG_B, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
          MPI_Send (sbuf, BIG_DOUBLES, MPI_DOUBLE, partner, TAG_B, MPI_COMM_WORLD);
        }
      acc += rbuf[it] + compute (2, rbuf[0]);
    }
  return acc;
}

/* C: both post MPI_Irecv, then MPI_Send 140 KiB to each other, MPI_Wait */
static double
crossed_pairs (int partner, double *sbuf, double *rbuf)
{
  double acc = 0;
  MPI_Request req;
  for (int it = 0; it < PAIR_ITERS && partner >= 0; it++)
    {
      MPI_Irecv (rbuf, BIG_DOUBLES, MPI_DOUBLE, partner, TAG_C, MPI_COMM_WORLD,
                 &req);
      MPI_Send (sbuf, BIG_DOUBLES, MPI_DOUBLE, partner, TAG_C, MPI_COMM_WORLD);
      MPI_Wait (&req, MPI_STATUS_IGNORE);
      acc += rbuf[it] + compute (2, rbuf[0]);
    }
  return acc;
}

/* D: MPI_Irecv from MPI_ANY_SOURCE, MPI_Send to every other rank */
static double
any_source_all (int rank, int size, double *sbuf, double *small, MPI_Request *req, MPI_Status *sts)
{
  double acc = 0;
  for (int it = 0; it < ALL_ITERS; it++)
    {
      int n = 0;
      for (int k = 1; k < size; k++, n++)
        MPI_Irecv (small + k * SMALL_DOUBLES, SMALL_DOUBLES, MPI_DOUBLE,
                   MPI_ANY_SOURCE, TAG_D, MPI_COMM_WORLD, &req[n]);
      for (int k = 1; k < size; k++)
        MPI_Send (sbuf, SMALL_DOUBLES, MPI_DOUBLE, (rank + k) % size, TAG_D,
                  MPI_COMM_WORLD);
      MPI_Waitall (n, req, sts);
      acc += compute (1 + rank % 2, small[SMALL_DOUBLES]);
    }
  return acc;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  double t0 = MPI_Wtime ();
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (argc > 1)
    scale = atof (argv[1]);

  double *sbuf = malloc (BIG_DOUBLES * sizeof *sbuf);
  double *rbuf = malloc (BIG_DOUBLES * sizeof *rbuf);
  double *small = malloc ((size_t) size * SMALL_DOUBLES * sizeof *small);
  MPI_Request *req = malloc ((size_t) size * sizeof *req);
  MPI_Status *sts = malloc ((size_t) size * sizeof *sts);
  if (!sbuf || !rbuf || !small || !req || !sts)
    MPI_Abort (MPI_COMM_WORLD, 1);
  for (int i = 0; i < BIG_DOUBLES; i++)
    sbuf[i] = rank + i * 1e-6;
  double acc = 0;
  int partner = rank ^ 1;
  if (partner >= size)
    partner = -1;

  MPI_Barrier (MPI_COMM_WORLD);

  /* A: manager/worker with blocking MPI_Recv from MPI_ANY_SOURCE */
  acc += rank == 0 ? manager (size) : worker (rank);
  MPI_Barrier (MPI_COMM_WORLD);
  acc += compute (40 + 10 * (rank % 3), acc);

  acc += ordered_pairs (rank, partner, sbuf, rbuf);
  MPI_Barrier (MPI_COMM_WORLD);
  acc += compute (40 + 10 * ((rank + 1) % 3), acc);

  acc += crossed_pairs (partner, sbuf, rbuf);
  MPI_Barrier (MPI_COMM_WORLD);
  acc += compute (40 + 10 * ((rank + 2) % 3), acc);

  acc += any_source_all (rank, size, sbuf, small, req, sts);
  MPI_Barrier (MPI_COMM_WORLD);

  double total;
  MPI_Allreduce (&acc, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double t1 = MPI_Wtime ();
  if (rank == 0)
    printf ("checksum %g\nelapsed %.6f\n", total, t1 - t0);
  free (sbuf);
  free (rbuf);
  free (small);
  free (req);
  free (sts);
  MPI_Finalize ();
  return 0;
}
