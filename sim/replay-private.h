/* Internals shared by the replay engine's files. */
#ifndef TS_REPLAY_PRIVATE_H
#define TS_REPLAY_PRIVATE_H

#include "sim/replay.h"
#include "model/archive_writer.h"
#include "model/stream.h"
#include "hypotheses/hypotheses.h"
#include "model/fsum.h"

#include <simgrid/host.h>

/* Collective messages travel on their own tag so they never match user
 * point-to-point messages (MPI tags are non-negative). */
#define TS_COLLECTIVE_TAG (-1)
/* Non-blocking collectives use the tags below it, one per outstanding one. */
#define TS_ICOLL_TAGS 64

/* The longest span the simulated clock resolves to the microsecond: 2^53
 * microseconds in a double. Longer compute is an input error (a factor of
 * 1e308), and SimGrid aborts on an infinite one. */
#define TS_MAX_SIMULATED_SECONDS 9.007199254740992e9
/* The actions decoded ahead of the simulation, all ranks together (two
 * batches of up to 256 a rank: 1,024 ranks get batches of 113; from about
 * 7,000 ranks on, none, and the simulation decodes them itself). */
#define TS_READ_AHEAD_BUDGET (16u << 20)

typedef struct TsSimulation TsSimulation;
typedef struct TsProgress TsProgress; /* sim/progress.h */
typedef struct TsIcollJob TsIcollJob; /* sim/progress.h */
typedef struct TsComm TsComm;       /* sim/world.h */
typedef struct TsWorldOps TsWorldOps; /* sim/world.h */
typedef struct TsEngineOps TsEngineOps; /* sim/engine-ops.h */

typedef struct {
  guint32 region;
  double since;              /* predicted time of its ENTER */
} TsOpenRegion;

/* What a rank is doing, for deadlock reports. */
typedef struct {
  const char *what;          /* "recv", "wait", "collective allreduce", ... */
  gint32 peer;               /* world rank or TS_NO_RANK */
  guint32 comm;
  gint32 tag;
  guint64 bytes;
  /* A rendezvous send waiting for its receiver (to @peer, @bytes): a
   * deadlock's revision buffers such sends (sim/revise.c). */
  gboolean rendezvous_send;
  /* An OpenMP lock (sim/lock.c): its id, and the thread holding it. */
  gboolean lock;
  guint32 lock_id;
  guint lock_holder;
} TsBlockedOn;

/* The pair of world ranks a send goes between, as a key of
 * TsReplayChoices.buffered_sends. */
static inline guint64
ts_send_pair (guint src, guint dst)
{
  return ((guint64) src << 32) | dst;
}

typedef struct {
  guint64 id;                /* the trace's request id: the table's key */
  TsComm *comm;              /* NULL once complete */
  TsBlockedOn on;            /* what waiting for it means, for deadlock reports */
  void *payload;             /* a receive's landing slot (see ts_progress_absorb) */
  gpointer helper;           /* a non-blocking collective's progress, joined by the wait */
  TsAction post;             /* the isend/irecv that posted it, for its completion event */
  void *job;                 /* what the helper works on (its TsIcollJob, whose action the
                              * completion event describes); freed with the request */
} TsRequest;


typedef struct {
  TsSimulation *sim;
  guint rank;
  /* Which of the rank's locations this is: 0 its own; else one of its
   * threads that calls MPI, replayed as a stream of its own beside the
   * rank's (ts_trace_n_streams), on its rank's host, matching as its rank
   * (mailboxes are channels of ranks, so MPI's matching holds whatever
   * thread posts). Its stream, and where it writes its predicted events. */
  guint thread;
  guint stream;
  guint location;
  gboolean peeked;           /* a thread's first action is taken (rk->action), to know
                              * when it began */
  sg_host_t host;
  double speed;              /* flops per second of the host */
  gboolean exclusive_cpu;    /* alone on its core: compute may sleep */
  double pending_compute;    /* seconds not yet executed (merged bursts) */
  /* Its time by kind (TsRankTime): work and residual as charged, in the
   * trace's CPU seconds (pending_compute's unit); simulated in seconds. */
  double charged_work, charged_residual, simulated;
  double late_start;         /* seconds slept before its first event (residual) */
  /* TS_RESIDUAL_NOISE: its residuals so far, split at TS_NOISE_DETOUR into
   * the small ones (their sum) and detours (how many, their sum), and how
   * many draws it made. */
  guint64 noise_calls, noise_detours, noise_draws;
  double noise_small, noise_detour_sum;
  /* TS_RESIDUAL_SCALED: its work as the trace recorded it (before
   * hypotheses) and its residual so far, and charged_work at its last
   * call. */
  double recorded_work, recorded_residual, scaled_mark;
  /* Its other threads' work (sim/team.c), recorded and charged: the
   * residual of a rank with threads follows its whole team's work, since
   * sharing cores and late wake-ups do. */
  double team_recorded_work, team_charged_work;
  GHashTable *requests;      /* req id -> TsRequest */
  /* MPI_Waitany (actions.c): req id -> req id of the trace's completions
   * that complete another request, since a Waitany completed theirs in
   * its place; and its candidates (TsRequest*, their TsComm*). NULL until
   * the rank's first swap, or first Waitany. */
  GHashTable *swapped;
  GPtrArray *any, *any_comms;
  double start_time, end_time;
  gboolean done;
  TsBlockedOn blocked;
  gboolean blocked_now;
  guint64 actions;
  guint64 simcalls;
  /* Its replay as a step machine (sim/progress.h): the action it is on,
   * where its replay stopped, and the state of its life around the actions
   * (ts_rank_step). */
  TsAction action;
  TsProgress *progress;
  guint8 life;
  /* The MPI call being replayed, to charge what its trace shows beyond
   * waiting and transfer (see charge_call_cost in actions.c). */
  gboolean in_call;
  /* The CPU time and wall time of its MPI calls so far, where the trace
   * gives their CPU time: the share of a core a wait takes
   * (TS_MPI_WAIT_RECORDED). */
  double calls_cpu, calls_wall;
  double call_enter;         /* original (aligned) entry time of the call */
  double causal;             /* latest original entry time this call depended on */
  guint8 call_class;         /* size class of the call's message */
  gboolean call_is_root;     /* the root of a rooted collective */
  gboolean call_collective;
  double call_transfer;      /* the network's share of a collective (ts_collective_transfer) */
  gboolean call_waited_for_receiver;
  double receiver_post;      /* latest original post time of the receives the call's
                              * rendezvous sends went to; NaN if unknown */
  TsComm *sendrecv_send;     /* the rendezvous send of the MPI_Sendrecv in progress */
  TsBlockedOn sendrecv_on;
  guint64 call_bytes;        /* largest message of the call */
  gint call_place;           /* its receive from this node (0), another (1), or -1 */
  double call_upfront;       /* the call's cost charged before it (call_costs) */
  guint32 *icoll_seq;        /* per communicator: non-blocking collectives posted */
  TsHypothesisRank *hypotheses;
  GHashTable *prequests;     /* req -> partitioned request (sim/partitioned.c); NULL
                              * until the rank's first partitioned initialisation */
  GHashTable *pinit_count;   /* channel and side -> initialisations so far */
  GArray *open_regions;      /* TsOpenRegion: the predicted timeline's region stack */
  TsAction coll_end;         /* the collective whose MPI_COLLECTIVE_END waits for the */
  gboolean coll_end_pending; /* call's leave (write_collective_end in actions.c) */
  GHashTable *sent_on;       /* TsChannel -> messages sent on it so far (only when the trace
                              * has receives with guessed envelopes) */
  /* Its thread team (sim/team.c): the other threads' work in the phase
   * being forked, TsTeamBurst in the trace's order (NULL until the rank's
   * first team); the phase's threads running; when it was forked. */
  GArray *team_work;
  GPtrArray *team_jobs;      /* TsTeamJob*: (owned) */
  double team_forked;
  double team_residual;      /* the last barrier's residual, charged once the next phase's
                              * threads are forked (the rank's own late wake-up runs beside
                              * their work, as it did) */
  guint team_traced;         /* its team's threads in the trace (TEAM_BEGIN's peer) */
  gboolean team_forking;     /* its team's first fork is to come (the fork's cost) */
  guint64 team_members;      /* the threads of the team it is in: bit k for thread k (from
                              * 64 on, all), TEAM_BEGIN's bytes */
  /* The rank's own location: its threads with MPI of their own that join
   * its teams (TsRank*: sim/team.c), and whether its next fork is its
   * team's first. Such a thread: the teams its rank forked for it and the
   * phases of the last one; the teams it began and ended, and the phases
   * of its current one it began and arrived at the end of; whether it is
   * in a team. Either: its own progress while parked. */
  GPtrArray *team_streams;
  guint64 team_traced_members; /* the team's threads as traced (TEAM_BEGIN's bytes) */
  gboolean team_first_fork;
  guint64 teams_forked, phases_forked, teams_begun, teams_ended, phases_begun, phases_arrived;
  double arrived_traced;     /* the traced time of its last arrival */
  double forked_traced;      /* and of its rank's last fork for it */
  double late_traced;        /* how late it began its current phase after that fork */
  gboolean in_team_now;
  TsProgress *parked;
  GHashTable *locks;         /* the rank's own location: its threads' locks (sim/lock.c) */
} TsRank;

struct TsSimulation {
  const TsWorldOps *world;   /* the engine it runs on (sim/world.h) */
  gpointer engine;           /* and that engine's state, while it runs */
  /* What the maestro engine runs on (sim/engine-ops.h), with its config, and
   * that engine's clock when it stopped (a deadlock is reported after). */
  const TsEngineOps *engine_ops;
  gconstpointer engine_config;
  double clock_end;
  const TsTrace *trace;
  const TsCalibration *calibration;
  const TsReplayOptions *options;
  TsActionStream *stream;
  TsArchiveWriter *writer;
  TsRank *ranks;             /* per stream: the ranks' own, then their threads with MPI */
  guint n_ranks;
  guint n_streams;
  GError *error;             /* first error any rank met */
  guint64 actions_total;     /* for the progress bar */
  guint64 actions_done;
  /* Per trace region, predicted inclusive, all ranks: exact sums, so that
   * the order ranks close regions in does not show. */
  TsFsum *region_seconds;
  /* Per trace region (the MPI call), the residual charged to its calls, all
   * ranks, in seconds (TsRankTime). */
  double *region_residual;
  guint progress_shown;
  double clock_tick;         /* seconds per tick of the trace's clock */
  /* The traced network is known: fitted to the trace, or the platform is
   * one tracesim calibrated (TS_PLATFORM_TRACED_NETWORK). Otherwise the
   * fastest call of each kind and size stands for its transfer. */
  gboolean traced_network_known;
  /* The platform is the one tracesim calibrated from a trace: its links
   * have the fitted latency and bandwidth, and a message moves at its size
   * class's bandwidth factor (ts_rank_wire_bytes). */
  gboolean platform_is_traced;
  TsBinomialTree binomial_tree; /* of broadcasts and reductions */
  /* Per channel, the original post times of rendezvous-sized receives whose
   * sender has not completed yet (GQueue of times, see ts_time_payload): a rendezvous sender
   * learns from it how long the trace made it wait for its receiver. */
  GHashTable *receiver_posts;
  /* Receives with guessed envelopes take their messages as they arrive
   * (ts_rank_irecv_guessed), because the guesses deadlocked; and so do
   * those of TS_ACTION_STATUS envelopes (EZTrace's may be stale). */
  gboolean guessed_as_arrived, status_as_arrived;
  /* Per pair of ranks (ts_send_pair), the size up to which sends are
   * buffered whatever the eager threshold (guint64*), because waiting for
   * their receivers deadlocked an earlier replay of the trace; or NULL. */
  GHashTable *buffered_sends;
  /* After a deadlock: the rendezvous sends its ranks wait on (TsBlockedSend). */
  GArray *blocked_sends;
};

/* Replay one action of the rank's stream, rk->action (actions.c): a step
 * function of its own progress (sim/progress.h). */
gboolean ts_rank_do (TsProgress *x);
/* Close the regions still open at the end of the rank's actions (a trace
 * cut short, or nesting the trace broke), at its current time (actions.c). */
void ts_rank_close_regions (TsRank *rk);
/* Free a TsRequest (the value destroyer of TsRank's requests). */
void ts_request_free (gpointer request);

/* MPI_Waitany (waitany.c). The request the trace's completion of @req
 * completes: its own, or the one a Waitany returned in its place (@take:
 * that swap is used up). */
guint64 ts_rank_request_for (TsRank *rk, guint64 req, gboolean take);
/* Request @req completed outside any swap (a request id posted again): the
 * swaps to it are forgotten. */
void ts_rank_forget_swaps_to (TsRank *rk, guint64 req);

/* What to charge, under the replay's TsResidual, for a call whose residual
 * in the trace was @residual CPU seconds (sim/residual.c). */
double ts_rank_residual (TsRank *rk, double residual);
/* What the residual still owes at the rank's end (TS_RESIDUAL_SCALED; 0
 * for the other modes). */
double ts_rank_residual_rest (const TsRank *rk);

/* Current simulated time of @rank including compute not yet executed. */
double ts_rank_now (TsRank *rk);
/* The bytes a message of @bytes puts on the simulated links: fewer on the
 * calibrated platform, by its size class's bandwidth factor (calibration.h), so
 * that it takes ts_calibration_transfer() there. */
guint64 ts_rank_wire_bytes (const TsRank *rk, guint64 bytes);
/* Start sending / receiving @bytes to / from local rank @peer of @comm.
 * A send below the eager threshold, or @buffered, is detached and returns
 * NULL. */
TsComm *ts_rank_isend (TsRank *rk, guint32 comm, guint peer, gint32 tag, guint64 bytes,
                       gboolean buffered);
TsComm *ts_rank_irecv (TsRank *rk, guint32 comm, guint peer, gint32 tag, guint64 bytes,
                       void **landing);
/* A receive whose envelope the trace did not record (its envelope is the
 * calibration's guess): it takes whichever message for such a receive
 * reaches this rank first, so that no wrong guess can hold a sender
 * forever. Its senders know (ts_calibration_to_guessed_receive). */
TsComm *ts_rank_irecv_guessed (TsRank *rk, void **landing);
/* A receive (recv or irecv action) is posted now: if its size goes by
 * rendezvous, remember its original post time for its sender (FIFO per
 * channel, as MPI matches). */
void ts_rank_note_receive_post (TsRank *rk, const TsAction *a);
/* The same for a receive from world rank @src inside a collective, posted
 * at original time @time. */
void ts_rank_note_post (TsRank *rk, guint src, guint32 comm, gint32 tag, guint64 bytes,
                        double time);
/* The original post time of the receive the send @send (world peer,
 * communicator, tag) went to, taken from its channel's queue; NaN if none
 * was noted. */
double ts_rank_pop_post (TsRank *rk, const TsBlockedOn *send);
/* The rendezvous send described by @send (its deadlock description: world
 * peer, communicator, tag) completed: fold the original post time of the
 * receive it went to into the call's receiver_post. */
void ts_rank_take_receiver_post (TsRank *rk, const TsBlockedOn *send);
/* Whether a send of @bytes from the rank to world rank @dst is one to buffer
 * whatever the eager threshold (TsSimulation.buffered_sends). */
gboolean ts_rank_send_buffered (const TsRank *rk, guint dst, guint64 bytes);

/* The payload of a message this rank sends now: its call's causal time. */
void *ts_rank_payload (TsRank *rk);
/* A message payload carrying time @t (in the pointer itself: no allocation
 * per message); -INFINITY for a receive slot nothing has landed in. */
void *ts_time_payload (double t);

/* Partitioned communication (partitioned.c): the rank's tables are made
 * at its first MPI_Psend_init/MPI_Precv_init; clear frees them. */
void ts_partitioned_rank_clear (TsRank *rk);

/* Thread teams (sim/team.c): a team's phase begins, a thread's work in it,
 * the barrier that ends it when the slowest thread is done. */
gboolean ts_do_team_begin (TsProgress *x);
gboolean ts_do_thread_compute (TsProgress *x);
gboolean ts_do_team_fork (TsProgress *x);
gboolean ts_do_team_barrier (TsProgress *x);
/* A thread with MPI of its own in the rank's teams: its part of a phase
 * begins when the rank forks it, and ends (sim/team.c). */
gboolean ts_do_thread_await (TsProgress *x);
gboolean ts_do_thread_arrive (TsProgress *x);
/* A thread's wait as the trace shows it (THREAD_WAIT): nothing to do. */
gboolean ts_do_nothing (TsProgress *x);
/* sim/lock.c. The progress @x of thread @thread of its rank (its own
 * location 0, a thread with MPI, a team's job) takes lock @id, writing at
 * @location: TRUE if it has it now, FALSE if it waits in line (x->on says
 * for what; it must hold, TS_STOP_HOLD, until the release before it hands
 * the lock over and resumes it). */
gboolean ts_lock_take (TsProgress *x, guint thread, guint32 id, guint location);
/* ... and gives it back, handing it to the first in line. */
void ts_lock_give (TsProgress *x, guint thread, guint32 id, guint location);
gboolean ts_do_lock (TsProgress *x);
void ts_locks_clear (TsRank *rk);
/* The threads of rank @r's teams: the trace's, or the N of a `threads =
 * N` hypothesis where the rank has teams (sharing its host's cores; fewer
 * than the trace's too: the others are in no team). */
guint ts_rank_threads (const TsSimulation *sim, guint r);
/* Free the rank's team state (its threads' jobs, all ended by then). */
void ts_team_clear (TsRank *rk);

/* What the network fitted to the trace (TsCalibration latency, bandwidth) took
 * for the messages on the longest chain of a collective's algorithm, had
 * nobody waited: 0 for a collective without data (ts_collective_is_empty),
 * which is not simulated; INFINITY without a fit (collectives.c). */
double ts_collective_transfer (const TsRank *rk, const TsAction *a);

/* Initialise SimGrid (once per process) with tracesim's settings, the
 * [network] hypotheses and the user's --cfg items (engine.c). */
void ts_engine_init (const TsReplayOptions *o);

/* The choices a replay makes where the trace does not tell, revised when
 * they deadlock (sim/revise.c). */
typedef struct {
  /* Receives with guessed envelopes take their messages as they arrive. */
  gboolean guessed_as_arrived;
  /* So do receives whose envelope MPI_Waitany & co. gave (TS_ACTION_STATUS):
   * a later revision, when guessed ones taking their messages did not do. */
  gboolean status_as_arrived;
  /* ts_send_pair -> guint64*: sends between the pair up to that size are
   * buffered whatever the eager threshold. */
  GHashTable *buffered_sends;
} TsReplayChoices;

/* A rendezvous send a deadlocked rank waits on. */
typedef struct {
  guint64 pair;              /* ts_send_pair */
  guint64 bytes;
} TsBlockedSend;

/* One replay in this process's one SimGrid engine (replay.c). On a deadlock
 * the keys of the rendezvous sends its ranks wait on go to @blocked_sends
 * (may be NULL). */
gboolean ts_replay_once (const TsTrace *trace, const TsCalibration *calibration,
                         const TsReplayOptions *o, const TsReplayChoices *choices,
                         TsReplayResult *result, GArray *blocked_sends, GError **error);
/* The engine-neutral halves of a replay (replay.c), which ts_replay_once
 * and ts_replay_on_queue (sim/replay-queue.h) share. Init fills @sim for a
 * replay of @trace on the maestro engine over SimGrid (sim->world,
 * sim->engine_ops: the caller may change them), the trace's network as
 * known if the calibration fitted it; nothing of @sim's ranks but their
 * count. The caller then places every rank (host, speed, exclusive_cpu)
 * and calls run with whether it could (FALSE: @error is set): run replays,
 * fills @result on success, and clears @sim in every case. */
void ts_simulation_init (TsSimulation *sim, const TsTrace *trace,
                         const TsCalibration *calibration, const TsReplayOptions *o,
                         const TsReplayChoices *choices, GArray *blocked_sends);
gboolean ts_simulation_run (TsSimulation *sim, gboolean placed, TsReplayResult *result,
                            GError **error);
/* Whether this process has started its SimGrid engine (it can run one). */
gboolean ts_replay_engine_started (void);

#endif
