/* Internals shared by the wait-state analysis's files: waitstates.c (the
 * merge over ranks, point-to-point and partitioned patterns) and
 * collectives.c (collective operations). */
#ifndef TS_WAITSTATES_PRIVATE_H
#define TS_WAITSTATES_PRIVATE_H

#include "analysis/waitstates.h"
#include "model/channel.h"
#include "model/stream.h"

struct TsWaitStates {
  const TsTrace *trace;
  TsWaitSpanFunc span_func;
  gpointer span_data;
  guint n_ranks;
  double *totals;            /* [pattern * n_ranks + rank] */
  GHashTable *cells;         /* a set of TsWaitCell, by key (ts_wait_cells_new) */
};

/* The seconds of one (pattern, region, rank): its key first, which the
 * set hashes and compares, so that a cell is one allocation and the table
 * keeps no values (a cell was two allocations and a value slot: about
 * 40 bytes more, for every rank's every pattern and region). */
typedef struct {
  guint64 key;
  double seconds;
} TsWaitCell;

/* An empty set of cells; it owns them. */
GHashTable *ts_wait_cells_new (void);
/* The seconds of @key's cell in @cells, made at 0 if there is none. */
double *ts_wait_cell (GHashTable *cells, guint64 key);

typedef struct CollInstance CollInstance;
typedef struct PPair PPair;

typedef struct {
  guint rank;
  guint stream;              /* its stream: the rank's own location, or one of its threads
                              * with MPI (thread > 0), whose waits are its rank's */
  guint thread;
  TsAction next;
  gboolean has_next;
  GHashTable *requests;      /* req -> gpointer (tagged: RecvEnd* or SendEnd* | 1) */
  GPtrArray *in_call;        /* ends the current MPI call blocks for (tagged likewise) */
  guint64 *coll_seen;        /* per communicator: collectives entered (by any of the rank's
                              * locations: a thread's cursor shares its rank's) */
  GHashTable *prequests;     /* req -> PPair*: its partitioned pair */
  GHashTable *psend;         /* req: partitioned sends (the others are receives) */
  GHashTable *pinit_count;   /* GBytes (channel, side) -> initialisations so far */
  PPair *pwait;              /* the partitioned receive the current call completes */
  double pwait_enter;
  CollInstance *coll;        /* the collective the current call is in, until it leaves */
  guint coll_slot;           /* this rank's arrival in it */
  guint lifecycle_seen[2];   /* MPI_Init and MPI_Finalize calls entered */
  GQueue late_senders;       /* LateSender, most recent last (Wrong Order) */
  double late_senders_latest; /* their latest send_enter; -inf if none */
  guint32 omp_barrier;       /* the OpenMP barrier region it is in + 1; 0: none */
  double omp_barrier_enter;
  GArray *omp_stack;         /* guint32 regions open on a rank with threads (omp.c) */
  gboolean omp_in_team;      /* inside a thread team */
  guint omp_team_threads;    /* and the threads of that team (its own included) */
  double omp_since;          /* its idle threads are counted up to here */
} Cursor;

/* The streams' cursors by their next action's time: a binary heap in an
 * array, as GLib has none (a GSequence cost a node allocation and a tree
 * walk per action). Ties go by stream, so the actions are processed in the
 * same order whatever the container (cursor-heap.c). */
typedef struct {
  Cursor **items;
  guint n;
} TsCursorHeap;
void ts_cursor_heap_push (TsCursorHeap *h, Cursor *cu);
/* Restore the order below @i after its cursor's next action changed. */
void ts_cursor_heap_sift_down (TsCursorHeap *h, guint i);

typedef struct {
  TsWaitStates *w;
  const TsTrace *trace;
  GHashTable *channels;      /* TsChannel -> Channel */
  GHashTable *colls;         /* CollKey -> CollInstance */
  GHashTable *ppairs;        /* TsPartitionedKey -> PPair */
  guint8 *lifecycle;         /* per region: TS_WAIT_LIFECYCLE_* */
  gboolean tests_wait;       /* a predicted execution: a test that completes a receive waited for it */
} Analysis;

/* MPI_Init (and _thread) and MPI_Finalize: every rank calls them once, and
 * they synchronise like collectives on MPI_COMM_WORLD. */
enum { TS_WAIT_LIFECYCLE_NONE, TS_WAIT_LIFECYCLE_INIT, TS_WAIT_LIFECYCLE_FINALIZE };

/* OpenMP (omp.c): a rank's own thread entering or leaving a region, which
 * may be its team's barrier. */
void ts_wait_omp_enter (Analysis *an, Cursor *cu, const TsAction *a);
void ts_wait_omp_leave (Analysis *an, Cursor *cu, const TsAction *a);
/* Any other action of @cu: another thread's wait at the team's barrier
 * (THREAD_WAIT) is counted; a team begins or ends. */
void ts_wait_omp_other (Analysis *an, Cursor *cu, const TsAction *a);

/* Count @seconds of @p on @rank in MPI call @region, from @start. */
void ts_wait_add (TsWaitStates *w, TsWaitPattern p, guint32 region, guint rank, double start,
                  double seconds);

/* Collectives (collectives.c). */
GHashTable *ts_wait_colls_new (void);
void ts_wait_on_collective (Analysis *an, Cursor *cu, const TsAction *a);
/* MPI call @region of @cu left at @leave: if it was the collective @cu is
 * in, its completion patterns once every member has left. */
void ts_wait_collective_left (Analysis *an, Cursor *cu, guint32 region, double leave);
/* @a enters MPI_Init or MPI_Finalize (@lifecycle: TS_WAIT_LIFECYCLE_*). */
void ts_wait_on_lifecycle (Analysis *an, Cursor *cu, const TsAction *a, guint lifecycle);

#endif
