/* The recorder's clock: events carry each rank's local time (MPI_Wtime since
 * a common barrier in MPI_Init), and each rank's offset to rank 0 is
 * measured by ping-pong at MPI_Init and at MPI_Finalize, as Score-P does:
 * several rounds, the round with the smallest round trip wins, offset =
 * rank 0's time - the midpoint of the round.
 *
 * The correction is not applied while writing (the offset at MPI_Finalize is
 * not known then, and OTF2 cannot rewrite written events). Each rank writes
 * the two measurements as OTF2 ClockOffset records in its local definitions;
 * OTF2's event reader adds to every timestamp the offset interpolated
 * linearly between them, for every reader that reads the local definitions
 * first (tracesim does, and so do otf2-print, Scalasca and Vampir). The
 * global clock properties use the corrected span. */
#include <config.h>

#include "recorder/record-private.h"

#include <math.h>
#include <stdlib.h>

#define TICKS_PER_SECOND 1e9
/* Local time starts here, not at 0, so that a negative offset never takes a
 * corrected timestamp below 0. */
#define BASE_SECONDS 1.0
/* Rounds of ping-pong per rank: on until the best round trip has not
 * improved for MIN rounds, or for LONG rounds while it is above GOOD_RTT
 * (a loaded or oversubscribed node answers late now and then), at most MAX. */
#define SYNC_MIN_ROUNDS 10
#define SYNC_LONG_ROUNDS 50
#define SYNC_MAX_ROUNDS 200
#define SYNC_GOOD_RTT 200e-6
#define SYNC_TAG 4711
#define SYNC_GO_TAG 4712
#define SYNC_DONE_TAG 4713

static double
env_double (const char *name)
{
  const char *v = g_getenv (name);
  return v && *v ? g_ascii_strtod (v, NULL) : 0;
}

/* Local seconds since t0; the test knobs turn this rank's clock into a
 * skewed (+ rank x skew) and drifting (x (1 + rank x drift)) one, to check
 * that the correction undoes them. */
static double
local_seconds (void)
{
  double t = PMPI_Wtime () - ts_rec.t0;
  return t * (1 + ts_rec.rank * ts_rec.test_drift) + ts_rec.rank * ts_rec.test_skew;
}

OTF2_TimeStamp
ts_rec_now (void)
{
  double t = BASE_SECONDS + local_seconds ();
  return t > 0 ? (OTF2_TimeStamp) (t * TICKS_PER_SECOND) : 0;
}

void
ts_rec_clock_init (void)
{
  ts_rec.test_skew = env_double ("TS_RECORD_TEST_SKEW");
  ts_rec.test_drift = env_double ("TS_RECORD_TEST_DRIFT");
  /* Everybody starts the clock together: the ping-pong then only has to
   * measure what the barrier leaves (and the drift). */
  PMPI_Barrier (MPI_COMM_WORLD);
  ts_rec.t0 = PMPI_Wtime ();
}

/* Until rank 0's message with @tag is there, sleeping between looks. */
static void
wait_asleep (int tag)
{
  int there = 0;
  for (;;)
    {
      PMPI_Iprobe (0, tag, ts_rec.sync_comm, &there, MPI_STATUS_IGNORE);
      if (there)
        return;
      g_usleep (1000);
    }
}

void
ts_rec_clock_sync (int which)
{
  const char *off = g_getenv ("TS_RECORD_CLOCK_SYNC");
  gboolean enabled = !(off && g_strcmp0 (off, "0") == 0);
  ts_rec.sync_time[which] = ts_rec_now ();
  ts_rec.sync_offset[which] = 0;
  ts_rec.sync_rtt[which] = 0;
  if (!enabled || ts_rec.size < 2)
    return;
  if (ts_rec.sync_comm == MPI_COMM_NULL)
    PMPI_Comm_dup (MPI_COMM_WORLD, &ts_rec.sync_comm); /* no match with the program's messages */
  /* Rank 0 answers each rank in turn until it says it is done. The ranks
   * not in a ping-pong wait asleep: spinning they would take the CPU from
   * the two that are, on an oversubscribed node, and spoil their rounds. */
  if (ts_rec.rank == 0)
    for (int r = 1; r < ts_rec.size; r++)
      {
        char go = 1;
        PMPI_Send (&go, 1, MPI_CHAR, r, SYNC_GO_TAG, ts_rec.sync_comm);
        for (;;)
          {
            char ping;
            PMPI_Recv (&ping, 1, MPI_CHAR, r, SYNC_TAG, ts_rec.sync_comm, MPI_STATUS_IGNORE);
            if (!ping)
              break;
            guint64 t = ts_rec_now ();
            PMPI_Send (&t, 1, MPI_UINT64_T, r, SYNC_TAG, ts_rec.sync_comm);
          }
      }
  else
    {
      char go;
      wait_asleep (SYNC_GO_TAG);
      PMPI_Recv (&go, 1, MPI_CHAR, 0, SYNC_GO_TAG, ts_rec.sync_comm, MPI_STATUS_IGNORE);
      double best = INFINITY;
      int best_round = 0;
      for (int k = 0;; k++)
        {
          int patience = best < SYNC_GOOD_RTT * TICKS_PER_SECOND ? SYNC_MIN_ROUNDS
                                                                 : SYNC_LONG_ROUNDS;
          char ping = k < SYNC_MAX_ROUNDS && (k < SYNC_MIN_ROUNDS || k - best_round < patience);
          PMPI_Send (&ping, 1, MPI_CHAR, 0, SYNC_TAG, ts_rec.sync_comm);
          if (!ping)
            break;
          guint64 t1 = ts_rec_now (), t_master = 0;
          PMPI_Recv (&t_master, 1, MPI_UINT64_T, 0, SYNC_TAG, ts_rec.sync_comm,
                     MPI_STATUS_IGNORE);
          guint64 t2 = ts_rec_now ();
          double rtt = (double) (t2 - t1);
          if (rtt < best)
            {
              best = rtt;
              best_round = k;
              guint64 mid = t1 + (t2 - t1) / 2;
              ts_rec.sync_time[which] = mid;
              ts_rec.sync_offset[which] = (gint64) t_master - (gint64) mid;
              ts_rec.sync_rtt[which] = rtt;
            }
        }
    }
  /* Nobody leaves before the last ping-pong is over (asleep, likewise). */
  if (ts_rec.rank == 0)
    for (int r = 1; r < ts_rec.size; r++)
      {
        char done = 1;
        PMPI_Send (&done, 1, MPI_CHAR, r, SYNC_DONE_TAG, ts_rec.sync_comm);
      }
  else
    {
      char done;
      wait_asleep (SYNC_DONE_TAG);
      PMPI_Recv (&done, 1, MPI_CHAR, 0, SYNC_DONE_TAG, ts_rec.sync_comm, MPI_STATUS_IGNORE);
    }
}

/* The offset at local time @t: linear between the two measurements. */
static double
offset_at (OTF2_TimeStamp t)
{
  double t0 = (double) ts_rec.sync_time[0], t1 = (double) ts_rec.sync_time[1];
  double o0 = (double) ts_rec.sync_offset[0], o1 = (double) ts_rec.sync_offset[1];
  if (t1 <= t0)
    return o0;
  return o0 + (o1 - o0) * ((double) t - t0) / (t1 - t0);
}

OTF2_TimeStamp
ts_rec_clock_corrected (OTF2_TimeStamp t)
{
  double c = (double) t + offset_at (t);
  return c > 0 ? (OTF2_TimeStamp) llround (c) : 0;
}

void
ts_rec_clock_write_offsets (OTF2_DefWriter *dw)
{
  if (ts_rec.sync_offset[0] == 0 && ts_rec.sync_offset[1] == 0)
    return; /* rank 0, or no measurement: nothing to correct */
  for (int i = 0; i < 2; i++)
    OTF2_DefWriter_WriteClockOffset (dw, ts_rec.sync_time[i], ts_rec.sync_offset[i],
                                     ts_rec.sync_rtt[i] / 2);
}
