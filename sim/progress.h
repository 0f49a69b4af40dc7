/* A progress: one thread of a location's replay that can stop to wait for
 * the simulated world, and resume where it stopped. A rank's own replay is
 * one; each of its non-blocking collectives is another.
 *
 * The replay's decisions never block. A step function (a handler of
 * actions.c, a collective algorithm, a partitioned operation) runs until it
 * needs something of the simulated world to end (a compute burst, a
 * communication, a receive, a non-blocking collective), writes that into
 * the progress's stop and returns FALSE. Whoever drives the progress (the
 * engine) makes the stop happen and calls the same step function again,
 * which resumes at the named state it stopped in and returns TRUE once done.
 * The state a step keeps across a stop lives in the progress, never on a
 * C stack: nothing needs a stack per rank.
 *
 * How a step function is written (the protothread idiom, with named
 * states): its body is one switch on its own state field; TS_AT() names a
 * state and falls into it, and is immediately followed by the call that may
 * stop, so that resuming jumps straight back into that call:
 *
 *     switch (x->pc)
 *       {
 *       case SEND_START:
 *         charge_overhead (rk, a);
 *         TS_AT (x->pc, SEND_FLUSH);
 *         if (!ts_step_flush (x))
 *           return FALSE;
 *         ...
 *       }
 *     x->pc = SEND_START;
 *     return TRUE;
 *
 * A leaf (ts_step_flush, _wait, _recv, _join, _sleep) stops at most once
 * per call: called again after its stop happened (x->stopped), it completes
 * and returns TRUE. Arguments of a call after TS_AT() are evaluated again
 * on resuming, so they must not have side effects. */
#ifndef TS_PROGRESS_H
#define TS_PROGRESS_H

#include "sim/replay-private.h"
#include "sim/world.h"

/* Name a state of a step function and enter it. */
#define TS_AT(pc, state) \
  (pc) = (state);        \
  G_GNUC_FALLTHROUGH;    \
  case state:

/* What a stopped progress waits for (the engine's part). */
typedef enum {
  TS_STOP_BURST,             /* compute: sleep @seconds (@exclusive core) or execute @flops */
  TS_STOP_WAIT,              /* @comm to complete */
  TS_STOP_RECV,              /* a blocking receive on @mailbox, post and wait in one: the
                              * engine puts the message's payload in @landing */
  TS_STOP_JOIN,              /* a non-blocking collective's progress (@helper) to end */
  TS_STOP_WAIT_ANY,          /* the first of @n_comms @comms to complete */
  TS_STOP_PARK,              /* another progress of the replay to wake it (TsWorldOps.wake):
                              * a team's fork or barrier and its threads with MPI */
  TS_STOP_HOLD,              /* kept by what it waits for (a lock, sim/lock.c), which
                              * resumes it (TsWorldOps.resume) */
} TsStopKind;

typedef struct {
  TsStopKind kind;
  gboolean exclusive;
  double seconds;
  double flops;
  TsComm *comm;
  TsComm **comms;
  guint n_comms;
  TsMailbox mailbox;
  void *landing;
  gpointer helper;
  gboolean passive;          /* a JOIN that sleeps rather than polls (an OpenMP barrier) */
  gboolean spins;            /* and one that spins instead (OpenMP's active wait) */
} TsStop;

/* One exchange of a collective: a send and a receive posted together. */
typedef struct {
  gint send_to, recv_from;   /* local ranks; -1: none */
  guint64 send_bytes, recv_bytes;
  TsComm *sent;              /* the send in flight (NULL: eager or none) */
} TsExchange;

/* A collective's algorithm in progress (collectives.c): the cursor of its
 * schedule, what its loops had reached. */
typedef struct {
  guint8 pc, pc_algo, pc_exchange;
  guint32 comm;
  guint n, me, root;
  guint64 block;
  TsBlockedOn on;
  TsExchange ex;
  guint k;                   /* barrier distance, allreduce mask, ring/pairwise step */
  guint i;                   /* child, or gather peer */
  guint vr;                  /* rank relative to the root */
  gint parent;               /* its parent in a tree, -1 at the root */
  guint n_children;          /* its children in the tree (tree_child() finds each) */
  guint pof2, rem;
  gint newrank;
  TsComm **comms;            /* gather root: one receive per member (owned) */
  void **landing;            /* and their landing slots (owned) */
} TsCollFrame;

typedef struct TsProgress {
  TsRank *rk;
  /* Where received causal times go: the rank's call (rk->causal), or a
   * non-blocking collective's own, which its wait folds in. */
  double *causal;
  /* The rank's own replay, not a non-blocking collective's: only it is
   * reported in deadlocks and accounts for its call's receivers. */
  gboolean own;
  const TsAction *a;         /* the action being replayed */
  gint32 tag;                /* a collective's tag (TS_COLLECTIVE_TAG or below) */

  TsStop stop;               /* valid while stopped */
  gboolean stopped;          /* a leaf stopped: its next call completes it */
  double stopped_at;         /* when, and the burst's unshared length */
  double burst_seconds;

  /* The named states of each level of step functions (actions.c) and what
   * they keep across a stop. */
  guint8 pc, pc_settle, pc_part;
  double t0;                 /* an event's time read before a flush */
  TsComm *comm;              /* a send or request being waited for */
  TsBlockedOn on;
  TsRequest *request;        /* the request being waited for or settled */
  guint part_i, part_last;   /* partitions being awaited */
  guint thread_i;            /* the team thread a barrier joins */
  gboolean part_all;
  void *part;                /* the partitioned request (partitioned.c) */
  TsCollFrame coll;
} TsProgress;

/* A non-blocking collective of a rank: a progress of its own moves it on
 * while the rank goes on (MPI libraries progress them in the background, or
 * in every MPI call), and the wait joins it. One of the rank's other
 * threads in a team phase is a job too (sim/team.c): its barrier joins it. */
struct TsIcollJob {
  TsAction a;
  double causal;             /* as TsRank's, for the collective alone */
  TsProgress x;
  /* The engine's: the collective ended, and who waits for it. */
  gboolean ended;
  TsProgress *joiner;
};

/* Initialise @x for @rk's own replay, or for one of its non-blocking
 * collectives (@causal its own time, @a its action, @tag its tag). */
void ts_progress_init (TsProgress *x, TsRank *rk, gboolean own, double *causal,
                       const TsAction *a, gint32 tag);
/* Free what a progress cut short still holds (a gather's receive slots). */
void ts_progress_clear (TsProgress *x);

/* Leaves (rank.c). Each returns TRUE when done, FALSE after writing its
 * stop. */
/* Run the pending compute burst if it lasts at least one tick of the
 * trace's clock (less stays pending, and ts_rank_now() counts it). */
gboolean ts_step_flush (TsProgress *x);
/* Compute @seconds (the trace's CPU seconds) as a progress beside the
 * rank's own (one of its other threads): on its host's shared cores, or on
 * a core of its own; not the rank's time. */
gboolean ts_step_burst (TsProgress *x, double seconds);
/* Sleep @seconds (a late start: residual). */
gboolean ts_step_sleep (TsProgress *x, double seconds);
/* Wait @seconds for what the simulation computed (a barrier's slowest
 * thread): simulated time. */
gboolean ts_step_idle (TsProgress *x, double seconds);
/* Wait for @comm (none: done), reporting @on if the rank deadlocks there. */
gboolean ts_step_wait (TsProgress *x, TsComm *comm, const TsBlockedOn *on);
/* Receive from local rank @peer of @comm, in one blocking call, and fold
 * the message's causal time into x->causal. */
gboolean ts_step_recv (TsProgress *x, guint32 comm, guint peer, gint32 tag, const TsBlockedOn *on);
/* Wait until the first of @n @comms completes (all in flight, none
 * released), reporting @on if the rank deadlocks there; the world's
 * done() then tells which. @comms must stay valid until it returns TRUE. */
gboolean ts_step_wait_any (TsProgress *x, TsComm **comms, guint n, const TsBlockedOn *on);
/* Wait for the progress of a non-blocking collective to end. */
gboolean ts_step_join (TsProgress *x, gpointer helper);
/* Wait at a barrier for one of the rank's other threads to end its work:
 * with @passive asleep, taking no share of a core (OMP_WAIT_POLICY=passive,
 * and what GCC's and LLVM's runtimes come to soon on an oversubscribed
 * node); else spinning, a full share of a core it shares. */
gboolean ts_step_join_thread (TsProgress *x, gpointer job, gboolean passive);

/* Wait, asleep, until the world's wake() of x->rk (a thread team's fork
 * or barrier and a thread with MPI of its own, sim/team.c), reporting @on
 * if it never comes; simulated time. The caller checks again what it waits
 * for when this returns TRUE, and parks again if need be. */
gboolean ts_step_park (TsProgress *x, const TsBlockedOn *on);
/* Wait, asleep, until the world's resume() of @x (a lock handed to it,
 * sim/lock.c), reporting @on if it never comes (the rank's own progress;
 * NULL: a helper's, whose rank reports what it waits for); simulated
 * time. */
gboolean ts_step_hold (TsProgress *x, const TsBlockedOn *on);

/* Fold a completed receive's @landing value into x->causal. */
void ts_progress_absorb (TsProgress *x, void *landing);

/* MPI_Waitany of x->request (waitany.c): gather its candidates into
 * rk->any and rk->any_comms, the trace's first, and return how many; once
 * one completed, the one it returns (a swap if not the trace's). */
guint ts_waitany_candidates (TsProgress *x);
TsRequest *ts_waitany_choose (TsProgress *x);
/* The step functions the engine drives. */
/* The rank's replay, from its start to its end (actions.c). */
gboolean ts_rank_step (TsProgress *x);
/* A collective: x->a on tag x->tag (collectives.c). */
gboolean ts_collective_step (TsProgress *x);
/* The partitioned action x->a (partitioned.c). */
gboolean ts_partitioned_step (TsProgress *x);
/* One of the rank's other threads: its work in a team phase, x->a a
 * THREAD_COMPUTE (team.c). */
gboolean ts_thread_step (TsProgress *x);

/* Advance @x: the rank's replay if it is the rank's own progress, else its
 * non-blocking collective or one of its other threads. */
static inline gboolean
ts_progress_advance (TsProgress *x)
{
  if (x->own)
    return ts_rank_step (x);
  return x->a->kind == TS_ACTION_THREAD_COMPUTE ? ts_thread_step (x) : ts_collective_step (x);
}

#endif
