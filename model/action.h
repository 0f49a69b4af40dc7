/* The action vocabulary: what one rank does, in the order it does it.
 *
 * A TsAction is a plain value (no owned memory). The kinds are generated from
 * actions.def and the collective operations from collectives.def, so the enum,
 * the names, the printer and the parser cannot disagree. */
#ifndef TS_ACTION_H
#define TS_ACTION_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
#define TS_ACTION(e, name, replays) TS_ACTION_##e,
#include "model/actions.def"
  TS_ACTION_N_KINDS
} TsActionKind;

typedef enum {
#define TS_COLLECTIVE(e, name, otf2op, shape) TS_COLL_##e,
#include "model/collectives.def"
  TS_COLL_N_OPS
} TsCollectiveOp;

typedef enum {
  TS_COLL_SHAPE_BARRIER,
  TS_COLL_SHAPE_ONE2N,
  TS_COLL_SHAPE_N2ONE,
  TS_COLL_SHAPE_N2N,
  TS_COLL_SHAPE_PREFIX,
} TsCollectiveShape;

/* No peer / no root (MPI_PROC_NULL or rootless collective). */
#define TS_NO_RANK (-1)
/* No region: outside every region, or a burst's phase or caller unknown. */
#define TS_NO_REGION G_MAXUINT32

/* Flags on an action. */
enum {
  /* The receive envelope was not in the trace and was inferred (EZTrace). */
  TS_ACTION_INFERRED = 1u << 0,
  /* The envelope is unknown and could not be inferred: replayed as local time. */
  TS_ACTION_MISSING = 1u << 1,
  /* A WAIT that ends a group (Waitall): later waits of the group follow at once. */
  TS_ACTION_GROUP_END = 1u << 2,
  /* The first action of an MPI call: it carries the call's CPU cost. */
  TS_ACTION_CALL_FIRST = 1u << 3,
  /* A compute burst whose call and caller name its phase (ts_action_phase). */
  TS_ACTION_PHASE = 1u << 4,
  /* A receive whose envelope the status of a call completing one or some
   * of several requests gave (MPI_Waitany, _some, MPI_Testany, _some).
   * EZTrace's can be stale, an earlier call's: a replay that deadlocks
   * revises it after the inferred ones. */
  TS_ACTION_STATUS = 1u << 5,
  /* A THREAD_COMPUTE that is no work: the thread began its part of the
   * phase late (woken after the team's fork or its barrier's release).
   * Waited asleep as traced (a latency no change of the work moves), and
   * counted as residual. */
  TS_ACTION_LATE_WAKE = 1u << 6,
  /* A LOCK or THREAD_LOCK that releases the lock (else: acquires it). */
  TS_ACTION_RELEASE = 1u << 7,
};

/* The side of a partitioned request (TsAction.direction of a PINIT). */
typedef enum {
  TS_PARTITIONED_SEND = 0,
  TS_PARTITIONED_RECV = 1,
} TsPartitionedDirection;

/* One action. Fields a kind does not use are 0; where two kinds give a
 * field different meanings, the union names each. */
typedef struct {
  guint8 kind;      /* TsActionKind */
  union {
    guint8 op;        /* COLLECTIVE, ICOLLECTIVE: TsCollectiveOp */
    guint8 direction; /* PINIT: TsPartitionedDirection */
  };
  guint8 flags;
  guint8 size_class; /* first action of an MPI call: size class of the call's message */
  guint32 region;   /* ENTER/LEAVE/COMPUTE: region index in the trace */
  union {
    gint32 peer;      /* SEND/RECV/ISEND/IRECV/PINIT: peer rank within comm;
                       * COLLECTIVE: root (TS_NO_RANK for none) */
    gint32 partition; /* PREADY, PARRIVED, PTESTED: the partition */
    guint32 caller;   /* COMPUTE between calls: region of the function that made the
                       * call ending the burst (TS_NO_REGION: unknown) */
  };
  guint32 comm;     /* communicator index in the trace */
  gint32 tag;
  guint32 call;     /* index of the MPI call region the action belongs to;
                     * COMPUTE between calls: the call ending the burst, its
                     * phase (TS_NO_REGION: none, the rank's last burst) */
  guint64 bytes;    /* point-to-point size; COLLECTIVE: bytes sent; PINIT: the whole buffer;
                     * TEAM_BEGIN: the team's threads, bit k for thread k (from 64 on,
                     * all; its peer: how many) */
  union {
    guint64 bytes_recv; /* COLLECTIVE, ICOLLECTIVE: bytes received */
    guint64 partitions; /* PINIT: this side's number of partitions */
  };
  union {
    guint64 req;      /* request id (trace-local, unique per outstanding request) */
    double end;       /* COLLECTIVE: time of its MPI_COLLECTIVE_END record, seconds,
                       * clock-aligned (Scalasca's completion patterns end there) */
    double cpu;       /* LEAVE: the MPI call's CPU seconds where the trace's CPU
                       * time gives them (TS_COMPUTE_CPU), else NaN */
  };
  double time;      /* original time of the action, seconds, clock-aligned */
  double seconds;   /* COMPUTE: duration; MPI actions: CPU overhead to charge */
} TsAction;
/* Spooled actions are packed by 8-byte words (model/spool.h). */
G_STATIC_ASSERT (sizeof (TsAction) % 8 == 0);

/* A compute burst between MPI calls has a phase: the call that ends it and
 * the function that made that call (@caller TS_NO_REGION when the trace does
 * not say). FALSE for other actions, the local time of a call, and a burst
 * no call ends. */
static inline gboolean
ts_action_phase (const TsAction *a, guint32 *call, guint32 *caller)
{
  if (a->kind != TS_ACTION_COMPUTE || !(a->flags & TS_ACTION_PHASE))
    return FALSE;
  *call = a->call;
  *caller = a->caller;
  return TRUE;
}

/* A message to or from a peer: MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv. */
static inline gboolean
ts_action_is_message (guint8 kind)
{
  return kind == TS_ACTION_SEND || kind == TS_ACTION_RECV || kind == TS_ACTION_ISEND
         || kind == TS_ACTION_IRECV;
}

/* Name of a kind ("send") or NULL if out of range. Static string. */
const char *ts_action_kind_name (TsActionKind kind);
/* Kind from its name; returns FALSE if the name is unknown. */
gboolean ts_action_kind_from_name (const char *name, TsActionKind *kind);
/* TRUE if replaying this kind must touch the simulated world. */
gboolean ts_action_kind_replays (TsActionKind kind);

const char *ts_collective_name (TsCollectiveOp op);
gboolean ts_collective_from_name (const char *name, TsCollectiveOp *op);
TsCollectiveShape ts_collective_shape (TsCollectiveOp op);
/* One rank's block of a collective: the message size its algorithm moves
 * per step, from the byte counts a trace records for rank @me of @n
 * (@root: it is the root). Tracers count differently: EZTrace records one
 * rank's buffer (@totals FALSE); Score-P and tracesim-record count every
 * block a rank sends and receives, its own included (@totals TRUE: an
 * Allreduce of b bytes over n ranks records n b both ways). */
guint64 ts_collective_block (TsCollectiveOp op, gboolean totals, guint n, guint me,
                             gboolean root, guint64 sent, guint64 received);
/* TRUE if a collective with these byte counts moves no data at all and so
 * synchronises nobody: an operation whose count is the same on every member
 * (not a v-variant, not a barrier) with a count of zero. */
gboolean ts_collective_is_empty (TsCollectiveOp op, guint64 sent, guint64 received);
/* Map an OTF2_CollectiveOp; returns FALSE for operations tracesim does not model
 * (e.g. CREATE_HANDLE), which are then replayed as local time. */
gboolean ts_collective_from_otf2 (guint8 otf2_op, TsCollectiveOp *op);
guint8 ts_collective_to_otf2 (TsCollectiveOp op);

/* Print one action as a single line of `key=value` words (no newline):
 *   send peer=1 comm=0 tag=7 bytes=4096 time=0.0012 seconds=1e-06
 * Fields equal to their default are left out. Appends to @out. */
void ts_action_print (const TsAction *action, GString *out);
/* Parse a line written by ts_action_print. Returns FALSE and sets @error
 * (G_IO_ERROR_INVALID_DATA) naming the offending word. */
gboolean ts_action_parse (const char *line, TsAction *action, GError **error);

G_END_DECLS

#endif
