/* The insides of the decoder, shared by model/decode.c (the readers),
 * model/decode-events.c (events to actions) and the readers of event
 * families kept apart from it (model/decode-partitioned.c). */
#ifndef TS_STREAM_PRIVATE_H
#define TS_STREAM_PRIVATE_H

#include "model/decode.h"
#include "model/trace-private.h"
#include "model/event-sink.h"
#include "model/archive_writer.h"

#define REGION_CACHE_SIZE 64
/* Actions held at most while the bursts since the last MPI call wait for
 * their phase (see account_gap). */
#define TS_BURST_HOLD_MAX 65536
/* No region: outside MPI calls, outside user regions. */
#define NO_REGION G_MAXUINT32

/* A peer of MPI_PROC_NULL as tracers write it into OTF2's uint32: Open MPI's
 * -2, MPICH's -1. */
#define TS_PROC_NULL_PEER(peer) ((peer) == G_MAXUINT32 || (peer) == G_MAXUINT32 - 1)

typedef struct Request Request;
/* The rank's other threads, read beside it (decode-threads.c). */
typedef struct TsTeamDecoder TsTeamDecoder;
struct Request {
  guint64 req;
  guint64 seq;        /* sequence number of its IRECV action, if a receive */
  gboolean is_recv;
  gboolean is_coll;   /* a non-blocking collective (its operation comes at completion) */
  gboolean resolved;  /* envelope known */
};

struct TsRankDecoder {
  TsDecoder *source;
  guint rank;
  guint thread;             /* 0: the rank's own location; else one of its threads that
                             * calls MPI (a stream of its own, ts_trace_n_streams) */
  /* Such a thread's part of its rank's teams (decode-threads.c): it has
   * been in one (its time outside is then no work), is in one, the stack
   * depth + 1 of its open barrier and of the implicit task that marks its
   * part (0: none), and whether it shows team events of its own. */
  gboolean thread_teams, thread_in_team, thread_team_events;
  guint thread_barrier_depth, thread_task_depth;
  TsDecodeOptions options;
  OTF2_EvtReader *reader;
  TsArchiveFeed *feed;      /* instead, with a writer's events */
  gboolean eof;
  GError *error;            /* set by a callback; reported by next() */
  guint64 position;         /* last event position, for error messages */
  double now;               /* time of the last event read, seconds */

  /* Converted actions not yet handed out: pending[head..] has sequence numbers
   * base + head ... Actions from the first unresolved receive on are held. */
  GArray *pending;
  guint head;
  guint64 base;
  guint n_unresolved;
  guint64 first_unresolved;  /* sequence of the oldest unresolved receive */

  /* The bursts since the last MPI call: held until the next call's ENTER
   * names their phase (ts_action_phase). */
  guint64 burst_first_seq;  /* the first of them, or G_MAXUINT64 */

  GArray *stack;            /* guint32 region indices */
  guint32 user_region;      /* innermost user region, NO_REGION if none */
  double last_time;         /* end of the last accounted span */
  double enter_time;        /* of the last ENTER (a lock acquired right after one waited
                             * in it: ts_decode_lock) */
  gboolean started;

  /* The MPI call being converted. */
  guint32 call;             /* region index, NO_REGION outside calls */
  guint call_depth;         /* stack depth at its ENTER */
  double call_enter;
  guint64 call_first_seq;   /* first action the call emitted, or G_MAXUINT64 */
  guint64 call_bytes;
  gboolean call_completed;  /* a completion without a message (a cancel) was seen inside */
  double call_cpu_enter;    /* the CPU time read at its ENTER (decode-cpu.c), or NaN */

  GHashTable *requests;     /* req -> Request* */
  /* req -> PartitionedRequest*, from its INIT on; made at the rank's first
   * (most ranks of most traces have none, and all ranks are open at once) */
  GHashTable *partitioned;
  GQueue outstanding;       /* Request* in posting order */
  /* CPU time (TS_COMPUTE_CPU, decode-cpu.c): the last reading and its
   * time; the last burst made and its span. */
  gboolean cpu_known;
  double cpu_value, cpu_time;
  guint64 burst_seq;
  double burst_start, burst_end;
  guint inferred_next;
  TsDecodeStats stats;
  TsTeamDecoder *team;       /* NULL: the rank has no other thread */
};

struct TsDecoder {
  const TsTrace *trace;
  OTF2_Reader *reader;      /* NULL when the events come from @writer */
  TsArchiveWriter *writer;
  GPtrArray *streams;       /* TsRankDecoder* by stream (ts_trace_n_streams), NULL until
                             * asked for */
  OTF2_EvtReaderCallbacks *callbacks;
  /* Region of recently seen OTF2 refs, direct-mapped: the trace's ref table
   * is a hash table, and every ENTER and LEAVE needs a lookup. One for all
   * ranks (the mapping is the trace's, and a source is read by one thread
   * at a time): one per rank was 512 of a stream's 904 bytes, with every
   * rank open at once. */
  struct { OTF2_RegionRef ref; gint region; } region_cache[REGION_CACHE_SIZE];
  /* The tracer reads the statuses of MPI_Waitany & co. right (Score-P,
   * tracesim-record): their envelopes need no revising (TS_ACTION_STATUS). */
  gboolean statuses_trusted;
};

/* The event callbacks of decode-events.c: registered with OTF2 for every
 * rank, or called by the archive writer's feed (ts_decoder_open_writer). */
const TsEventSink *ts_decode_sink (void);
/* The rank's events are all read: receives still unresolved never completed. */
void ts_decode_finish (TsRankDecoder *s);

/* Helpers of decode-events.c for the readers of other event families. */
/* Count OTF2's threading events (decode-threads.c) into the stats, and
 * replay the rank's thread teams. */
void ts_decode_register_thread_events (OTF2_EvtReaderCallbacks *callbacks);
/* The CPU time (seconds) a metric record reads, if it is the trace's CPU
 * time metric and compute is taken from CPU time (decode-cpu.c). */
gboolean ts_decode_cpu_reading (const TsTrace *trace, OTF2_MetricRef metric, uint8_t n,
                                const OTF2_Type *types, const OTF2_MetricValue *values,
                                double *cpu);
/* A thread with MPI of its own (s->thread > 0) in its rank's teams
 * (decode-threads.c): its part of a team begins, or ends at @now (a
 * THREAD_TEAM_BEGIN or END on it); it enters or left @region (a barrier
 * or its implicit task, EZTrace's OMPT layout); whether it is outside its
 * teams or in a barrier, waiting: no work. */
/* The location takes (or, @release, gives back) @lock at @now: a LOCK
 * action. Acquired right after an ENTER (of the critical construct, of
 * omp_set_lock), the time since is waiting for it, not work. */
void ts_decode_lock (TsRankDecoder *s, double now, guint32 lock, gboolean release);
OTF2_CallbackCode ts_decode_on_acquire_lock (OTF2_LocationRef loc, OTF2_TimeStamp t,
                                             uint64_t pos, void *ud, OTF2_AttributeList *a,
                                             OTF2_Paradigm model, uint32_t lock, uint32_t order);
OTF2_CallbackCode ts_decode_on_release_lock (OTF2_LocationRef loc, OTF2_TimeStamp t,
                                             uint64_t pos, void *ud, OTF2_AttributeList *a,
                                             OTF2_Paradigm model, uint32_t lock, uint32_t order);
void ts_decode_thread_joins (TsRankDecoder *s, double now);
void ts_decode_thread_part_ends (TsRankDecoder *s, double now);
void ts_decode_thread_enter (TsRankDecoder *s, guint32 region, double now);
void ts_decode_thread_leaving (TsRankDecoder *s, guint depth, double now);
gboolean ts_decode_thread_waiting (const TsRankDecoder *s);
/* The rank's own location begins or ends a thread team (OTF2's callbacks). */
OTF2_CallbackCode ts_decode_on_thread_fork (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                            void *ud, OTF2_AttributeList *a, OTF2_Paradigm model,
                                            uint32_t threads);
OTF2_CallbackCode ts_decode_on_thread_join (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                            void *ud, OTF2_AttributeList *a, OTF2_Paradigm model);
OTF2_CallbackCode ts_decode_on_team_begin (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                           void *ud, OTF2_AttributeList *a, OTF2_CommRef comm);
OTF2_CallbackCode ts_decode_on_team_end (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                         void *ud, OTF2_AttributeList *a, OTF2_CommRef comm);
/* The rank's other threads, read from @src's reader (which selected their
 * locations) or from the writer's logged events; NULL when it has none. */
TsTeamDecoder *ts_team_decoder_new (TsDecoder *src, guint rank);
void ts_team_decoder_free (TsDecoder *src, TsTeamDecoder *team);
/* The rank's own location enters @region at @now: a barrier of its team,
 * maybe. */
void ts_decode_team_enter (TsRankDecoder *s, guint32 region, double now);
/* It left a region at @now: leaving its team's barrier ends the phase. */
void ts_decode_team_left (TsRankDecoder *s, double now);
/* Whether it is inside its team's barrier: waiting, no work. */
gboolean ts_decode_team_waiting (const TsRankDecoder *s);
TsRankDecoder *ts_decode_of (void *ud, OTF2_LocationRef loc, uint64_t pos, OTF2_TimeStamp t,
                              double *seconds);
OTF2_CallbackCode ts_decode_fail (TsRankDecoder *s, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
/* "rank R" or "rank R, thread K (location L)": where the stream's events
 * are, for messages (g_free). */
char *ts_decode_where (const TsRankDecoder *s);
gint ts_decode_comm_index (TsRankDecoder *s, OTF2_CommRef ref);
gboolean ts_decode_peer_valid (TsRankDecoder *s, guint32 comm, guint32 peer);
TsAction *ts_decode_call_action (TsRankDecoder *s, TsActionKind kind);
/* Append an action of @kind at @time to the pending queue. Inline: every
 * action of every rank passes here. */
static inline TsAction *
ts_decode_push (TsRankDecoder *s, TsActionKind kind, double time)
{
  TsAction a = { 0 };
  a.kind = kind;
  a.time = time;
  a.region = NO_REGION;
  g_array_append_val (s->pending, a);
  s->stats.actions++;
  return &g_array_index (s->pending, TsAction, s->pending->len - 1);
}

/* An OTF2 timestamp of the rank's in seconds, clock-aligned. */
static inline double
ts_decode_seconds (TsRankDecoder *s, OTF2_TimeStamp t)
{
  const TsTrace *tr = s->source->trace;
  return (double) (t - tr->global_offset) / (double) tr->timer_resolution
         + s->options.clock_offset;
}
/* Time since the last accounted event outside calls becomes a compute burst. */
void ts_decode_account_gap (TsRankDecoder *s, double now);

/* A metric record (decode-cpu.c): with TS_COMPUTE_CPU, a reading of CPU
 * time gives the burst that ends at it the CPU time since the last one. */
OTF2_CallbackCode ts_decode_on_metric (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                       void *ud, OTF2_AttributeList *attrs,
                                       OTF2_MetricRef metric, uint8_t n,
                                       const OTF2_Type *types, const OTF2_MetricValue *values);

/* The partitioned-communication records (decode-partitioned.c). */
OTF2_CallbackCode ts_stream_on_parameter_uint (OTF2_LocationRef loc, OTF2_TimeStamp t,
                                               uint64_t pos, void *ud,
                                               OTF2_AttributeList *attrs,
                                               OTF2_ParameterRef param, uint64_t value);

#endif
