/* The partitioned Late Sender test of seed 000 (4.1.3, Figure 7) as a real
 * MPI program, single-threaded, for 2 ranks:
 *
 *   nls-fls-vls nls|fls|vls SEND_PARTITIONS RECV_PARTITIONS REPS DELAY
 *
 * Rank 0 sends one partitioned message to rank 1 per round (MPI_Psend_init
 * / MPI_Precv_init once, then per round MPI_Start, one MPI_Pready per send
 * partition in ascending order on rank 0, MPI_Wait), REPS rounds, each
 * after an MPI_Barrier that aligns the ranks. Exactly
 * one delay of DELAY seconds (a sleep, in the user region of its name,
 * ts_region_begin/end) appears:
 *   nls  on the receiver between MPI_Start and MPI_Wait: every MPI_Pready
 *        starts before the receiver waits, no Late Sender;
 *   fls  on the sender between MPI_Start and the first MPI_Pready: a Late
 *        Sender of about DELAY per round;
 *   vls  on the sender before each MPI_Pready: single-threaded, the last
 *        MPI_Pready starts about SEND_PARTITIONS x DELAY after the round
 *        starts, the Late Sender per round.
 * The message is SEND_PARTITIONS x RECV_PARTITIONS x 8 bytes, so both
 * partitionings divide it. Run it under tracesim-record (it links with
 * -ltracesim-record for the regions). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/tracesim-record.h"

static void
delay (const char *region, double seconds)
{
  ts_region_begin (region);
  struct timespec ts = { (time_t) seconds, (long) ((seconds - (time_t) seconds) * 1e9) };
  while (nanosleep (&ts, &ts) != 0)
    ;
  ts_region_end (region);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (argc != 6 || size != 2
      || (strcmp (argv[1], "nls") && strcmp (argv[1], "fls") && strcmp (argv[1], "vls")))
    {
      if (rank == 0)
        fprintf (stderr, "usage (2 ranks): %s nls|fls|vls SEND_PARTITIONS RECV_PARTITIONS "
                         "REPS DELAY\n", argv[0]);
      MPI_Finalize ();
      return 2;
    }
  const char *variant = argv[1];
  int s = atoi (argv[2]), r = atoi (argv[3]), reps = atoi (argv[4]);
  double d = atof (argv[5]);
  if (s < 1 || r < 1 || reps < 1 || d < 0)
    {
      if (rank == 0)
        fprintf (stderr, "partitions and repetitions must be positive, the delay not negative\n");
      MPI_Finalize ();
      return 2;
    }
  int bytes = s * r * 8;
  char *buf = calloc (bytes, 1);
  MPI_Request req;
  if (rank == 0)
    MPI_Psend_init (buf, s, bytes / s, MPI_CHAR, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  else
    MPI_Precv_init (buf, r, bytes / r, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int k = 0; k < reps; k++)
    {
      /* Both ranks start each round together. MPICH may complete the
       * partitioned send locally, so without this a sender could run a round
       * ahead of a receiver slowed down (a loaded node), and that round and
       * every later one would show no waiting: not the test's premise. The
       * barrier adds no partitioned waiting of its own. */
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Start (&req);
      if (rank == 0)
        {
          memset (buf, k + 1, bytes);
          if (strcmp (variant, "fls") == 0)
            delay ("fls", d);
          for (int i = 0; i < s; i++)
            {
              if (strcmp (variant, "vls") == 0)
                delay ("vls", d);
              MPI_Pready (i, req);
            }
        }
      else if (strcmp (variant, "nls") == 0)
        delay ("nls", d);
      MPI_Wait (&req, MPI_STATUS_IGNORE);
      if (rank == 1 && (buf[0] != k + 1 || buf[bytes - 1] != k + 1))
        {
          fprintf (stderr, "round %d: wrong data\n", k);
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
    }
  MPI_Request_free (&req);
  free (buf);
  if (rank == 1)
    printf ("%s done: %d rounds of %d bytes, %d/%d partitions\n", variant, reps, bytes, s, r);
  MPI_Finalize ();
  return 0;
}
