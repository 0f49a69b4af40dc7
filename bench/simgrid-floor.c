/* The floor under any replay built as the brief's design says (one SimGrid
 * actor per rank, SimGrid's C API): the bench's halo-exchange workload
 * (bench/vs-smpireplay.sh's ts-tracegen stencil) issued straight to SimGrid,
 * with no trace read, no action decoded, no event logged and no output
 * written. Each iteration makes the simcalls tracesim's replay makes for it:
 *   sleep (the compute burst on an exclusive core), irecv from the left,
 *   sleep (the call's cost), a detached eager isend to the right, a wait;
 * and every 10 iterations an 8-byte allreduce by recursive doubling (a
 * detached send and a blocking receive per step), as sim/collectives.c
 * does. What is left between this and tracesim's replay is tracesim's own
 * work; this program's time is what SimGrid alone takes.
 *
 * The ranks run on hosts node-0, node-1, ... (tracesim calibrate's
 * platforms), one rank each. The allreduce is left out when the rank count
 * is not a power of two (the bench's never is). bench/vs-smpireplay.sh runs
 * it with tracesim's network model (CM02, no cross-traffic) and the same
 * allocator as tracesim (it is linked the same way):
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

static void
allreduce (sg_mailbox_t *out, sg_mailbox_t *in, int steps)
{
  for (int k = 0; k < steps; k++)
    {
      sg_comm_detach (sg_mailbox_put_init (out[k], payload (), 8), NULL);
      sg_mailbox_get (in[k]);
    }
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
      if (i % 10 == 9 && power_of_two)
        allreduce (out, in, steps);
    }
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
      all[i] = (Rank) { i, ranks, iterations };
      sg_actor_t a = sg_actor_init (host, h);
      sg_actor_set_data (a, &all[i]);
      sg_actor_start (a, rank_main, 0, NULL);
    }
  simgrid_run ();
  printf ("simulated time %.9f s\n", simgrid_get_clock ());
  free (all);
  return 0;
}
