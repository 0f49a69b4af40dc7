/* The floor under any replay built as the brief's design says (one SimGrid
 * actor per rank, SimGrid's C API): the bench's halo-exchange workload
 * (bench/vs-smpireplay.sh's ts-tracegen stencil) issued straight to SimGrid,
 * with no trace read, no action decoded, no event logged and no output
 * written. It makes the simcalls tracesim's replay makes for it, one for
 * one:
 *   per iteration: a sleep (the compute burst, with the irecv call's cost,
 *   on an exclusive core), the irecv from the left, a sleep (the isend
 *   call's cost), a detached eager isend to the right, a wait for the irecv;
 *   every 10th iteration: a sleep (the waitall's cost, which the replay
 *   charges before a collective rather than folding it into the next
 *   burst), then an 8-byte allreduce by recursive doubling (a detached send
 *   and a blocking receive per step, as sim/collectives.c does);
 *   at the end: a sleep (the replay's last pending cost).
 * A replay that keeps the trace's order and times cannot make fewer: a
 * rank's clock moves only in a blocking call, and each post is a call of
 * its own. The sleeps are the workload's nominal times (ts-tracegen's 1 us
 * call overhead), not the trace's measured call costs, so the simulated
 * time is a little shorter than the replay's (0.4%); a sleep costs the same
 * whatever its length.
 *
 * The ranks run on hosts node-0, node-1, ... (tracesim calibrate's
 * platforms), one rank each. The allreduce is left out when the rank count
 * is not a power of two (the bench's default counts all are; for others
 * the replay folds ranks, and the floor is then looser). Prints the
 * simulated time and its simcalls, for bench/vs-smpireplay.sh to compare
 * with the replay's. Run with tracesim's network model (CM02, no
 * cross-traffic); it is linked with tracesim's allocator:
 *   ts-simgrid-floor PLATFORM RANKS ITERATIONS [--cfg=...]
 */
#include <config.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  int rank, ranks, iterations;
  long simcalls;
} Rank;

static sg_mailbox_t
mailbox (int src, int dst, int tag)
{
  char name[64];
  snprintf (name, sizeof name, "%d>%d:%d", src, dst, tag);
  return sg_mailbox_by_name (name);
}

static void *
payload (void)
{
  static char byte;
  return &byte; /* SimGrid refuses NULL; the content is never read */
}

static long
allreduce (sg_mailbox_t *out, sg_mailbox_t *in, int steps)
{
  for (int k = 0; k < steps; k++)
    {
      sg_comm_detach (sg_mailbox_put_init (out[k], payload (), 8), NULL);
      sg_mailbox_get (in[k]);
    }
  return 2L * steps;
}

static void
rank_main (int argc, char **argv)
{
  (void) argc, (void) argv;
  Rank *r = sg_actor_self_get_data ();
  int left = (r->rank + r->ranks - 1) % r->ranks, right = (r->rank + 1) % r->ranks;
  sg_mailbox_t from_left = mailbox (left, r->rank, 0), to_right = mailbox (r->rank, right, 0);
  int steps = 0;
  while ((1 << steps) < r->ranks)
    steps++;
  int power_of_two = (1 << steps) == r->ranks;
  sg_mailbox_t out[32], in[32];
  for (int k = 0; power_of_two && k < steps; k++)
    {
      int peer = r->rank ^ (1 << k);
      out[k] = mailbox (r->rank, peer, -1);
      in[k] = mailbox (peer, r->rank, -1);
    }
  for (int i = 0; i < r->iterations; i++)
    {
      sg_actor_sleep_for (1.001e-3);
      void *landing;
      sg_comm_t recv = sg_mailbox_get_async (from_left, &landing);
      sg_actor_sleep_for (1e-6);
      sg_comm_detach (sg_mailbox_put_init (to_right, payload (), 4096), NULL);
      sg_comm_wait (recv);
      r->simcalls += 5;
      if (i % 10 == 9 && power_of_two)
        {
          sg_actor_sleep_for (1e-6);
          r->simcalls += 1 + allreduce (out, in, steps);
        }
    }
  sg_actor_sleep_for (1e-6);
  r->simcalls++;
}

int
main (int argc, char **argv)
{
  simgrid_init (&argc, argv);
  if (argc != 4)
    {
      fprintf (stderr, "usage: %s PLATFORM RANKS ITERATIONS\n", argv[0]);
      return 2;
    }
  simgrid_load_platform (argv[1]);
  int ranks = atoi (argv[2]), iterations = atoi (argv[3]);
  Rank *all = calloc ((size_t) ranks, sizeof *all);
  for (int i = 0; i < ranks; i++)
    {
      char host[32];
      snprintf (host, sizeof host, "node-%d", i);
      sg_host_t h = sg_host_by_name (host);
      if (!h)
        {
          fprintf (stderr, "%s: no host %s\n", argv[1], host);
          return 1;
        }
      all[i] = (Rank) { i, ranks, iterations, 0 };
      sg_actor_t a = sg_actor_init (host, h);
      sg_actor_set_data (a, &all[i]);
      sg_actor_start (a, rank_main, 0, NULL);
    }
  simgrid_run ();
  long simcalls = 0;
  for (int i = 0; i < ranks; i++)
    simcalls += all[i].simcalls;
  printf ("simulated time %.9f s, %ld simcalls\n", simgrid_get_clock (), simcalls);
  free (all);
  return 0;
}
