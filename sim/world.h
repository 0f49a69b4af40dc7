/* The simulated world as the replay's decisions see it: messages posted on
 * mailboxes, tested and released, and non-blocking collectives started.
 * The maestro engine implements it (engine-maestro.c): it matches messages
 * itself and moves them as host-to-host transfers, on SimGrid or on the
 * pure-C event queue of the tests (sim/engine-ops.h). What
 * blocks (a burst, a wait, a receive, a join) is not here: it is a stop of
 * a progress (sim/progress.h), which the engine makes happen. */
#ifndef TS_WORLD_H
#define TS_WORLD_H

#include "sim/replay-private.h"

/* A send or a receive in flight, owned by the engine; the poster holds a
 * handle until it releases it (a successful test releases it too). */

/* Where a message goes: a channel (src, dst, comm, tag) of world ranks, the
 * guessed mailbox of a receiver (src = comm = G_MAXUINT32, tag 0), or one
 * send partition @i of the @k-th initialisation of a partitioned channel.
 * Messages on one mailbox match in order. */
typedef struct {
  guint32 src, dst, comm;
  gint32 tag;
  guint32 k, i;              /* TS_MAILBOX_P2P for point-to-point */
} TsMailbox;

#define TS_MAILBOX_P2P G_MAXUINT32

/* How a send's data moves. */
typedef enum {
  /* Handed over at once; the sender is done (below the eager threshold). */
  TS_SEND_EAGER,
  /* Once both sides posted and, with TS_MPI_PROGRESS_IN_CALLS, the
   * receiver's library looks (it is inside an MPI call). */
  TS_SEND_RENDEZVOUS,
  /* A partition (MPI_Pready): moves once both sides posted, whatever the
   * receiver does, as seed 000's event model has it (partitioned
   * communication exists to let partitions move early). */
  TS_SEND_PARTITION,
} TsSendProtocol;

struct TsWorldOps {
  const char *name;
  /* The simulated clock. */
  double (*now) (TsSimulation *sim);
  /* Post a send of @wire_bytes from @rk carrying the causal time @payload,
   * by @protocol (TS_SEND_EAGER: the sender does not wait for it, and NULL
   * is returned). */
  TsComm *(*post_send) (TsRank *rk, const TsMailbox *mb, guint64 wire_bytes, void *payload,
                        TsSendProtocol protocol);
  /* Post a receive for @rk; the matched send's payload lands in *@landing
   * (which must stay valid until the receive completes or is released). */
  TsComm *(*post_recv) (TsRank *rk, const TsMailbox *mb, void **landing);
  /* Whether @comm completed; if so it is released. Counts as the rank's
   * look at the world at its current time. */
  gboolean (*test) (TsRank *rk, TsComm *comm);
  /* Whether @comm completed, without releasing it or looking at the world
   * on the rank's behalf (the requests MPI_Waitany chooses among). */
  gboolean (*done) (TsComm *comm);
  /* For a completed rendezvous send: the original entry time of the
   * receiver's MPI call in which its transfer started (when, in the trace,
   * the sender could no longer have been waiting for its receiver), or NaN
   * if unknown (no such call, or TS_MPI_PROGRESS_ASYNC). */
  double (*receiver_progress) (TsComm *send);
  /* The poster lets go of @comm (complete or not: a request the trace never
   * waited for). */
  void (*release) (TsComm *comm);
  /* Start @job's progress (a non-blocking collective of @rk): returns the
   * handle a JOIN stop waits for, held until release_icoll(). */
  gpointer (*start_icoll) (TsRank *rk, TsIcollJob *job);
  void (*release_icoll) (gpointer handle);
  /* Thread @thread (1, ...) of @rk spins on its host from now, taking a
   * share of a core as a polling rank does, until called with @on FALSE
   * (or the rank ends); again with @on TRUE: nothing. */
  void (*spin) (TsRank *rk, guint thread, gboolean on);
  /* Wake @rk's own progress if it is parked (TS_STOP_PARK): it runs
   * again once the caller's step stops or ends. */
  void (*wake) (TsRank *rk);
  /* Resume @x, stopped with TS_STOP_HOLD, once the caller's step stops or
   * ends. */
  void (*resume) (TsProgress *x);
  /* Run every rank's replay (sim->ranks[r].progress, ts_rank_step) until
   * all ended or nothing can move any more (a deadlock, which the caller
   * reports). FALSE and @error only if the engine itself failed. */
  gboolean (*run) (TsSimulation *sim, GError **error);
};

/* The engine, driven from SimGrid's maestro, with no actor
 * (engine-maestro.c). The one-actor-per-rank engine it replaced gave the
 * same bytes on every case of bench/oracle.sh before it was removed
 * (issue 41). */
extern const TsWorldOps ts_world_maestro;

#endif
