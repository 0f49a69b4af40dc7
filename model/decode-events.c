/* OTF2 events of one rank become actions: the callbacks the decoder
 * (decode.c) registers for every location, the queue of converted actions
 * they fill, the requests whose envelope a later event completes, and the
 * compute between calls. Partitioned records: decode-partitioned.c. */
#include <config.h>

#define G_LOG_DOMAIN "ts-stream"

#include "model/decode-private.h"

#include <math.h>
#include <string.h>


guint
ts_size_class (guint64 bytes)
{
  /* g_bit_nth_msf() loops over the bits; this runs for every MPI call. */
  return bytes == 0 ? 0 : 64 - (guint) __builtin_clzll (bytes);
}

/* ---- the pending queue -------------------------------------------------- */

static guint64
last_seq (TsRankDecoder *s)
{
  return s->base + s->pending->len - 1;
}

static TsAction *
action_at (TsRankDecoder *s, guint64 seq)
{
  g_assert (seq >= s->base && seq < s->base + s->pending->len);
  return &g_array_index (s->pending, TsAction, seq - s->base);
}

/* ---- requests ------------------------------------------------------------ */

static void give_up (TsRankDecoder *s, Request *r);
static void resolve_by_inference (TsRankDecoder *s, Request *r);

static void
request_forget (TsRankDecoder *s, Request *r)
{
  g_queue_remove (&s->outstanding, r);
  g_hash_table_remove (s->requests, &r->req);
}

static Request *
request_post (TsRankDecoder *s, guint64 req, gboolean is_recv)
{
  /* Tracers that record the address of the MPI_Request reuse ids: a new post
   * on a live id means the old request completed unseen (e.g. in a test). */
  Request *old = g_hash_table_lookup (s->requests, &req);
  if (old)
    {
      /* It completed by now (HPCC's MPI_Testany loops complete irecvs this
       * way): it took a message sent before now, which inference finds. */
      if (old->is_recv && !old->resolved)
        resolve_by_inference (s, old);
      else if (!old->resolved)
        give_up (s, old);
      request_forget (s, old);
    }
  Request *r = g_new0 (Request, 1);
  r->req = req;
  r->is_recv = is_recv;
  r->resolved = !is_recv;
  g_hash_table_insert (s->requests, &r->req, r);
  g_queue_push_tail (&s->outstanding, r);
  return r;
}

static void
recompute_first_unresolved (TsRankDecoder *s)
{
  s->first_unresolved = G_MAXUINT64;
  for (GList *l = s->outstanding.head; l; l = l->next)
    {
      Request *r = l->data;
      if (!r->resolved && r->seq < s->first_unresolved)
        s->first_unresolved = r->seq;
    }
}

/* @r's details are known now: the actions held behind it may go. */
static void
request_resolved (TsRankDecoder *s, Request *r)
{
  r->resolved = TRUE;
  s->n_unresolved--;
  if (r->seq == s->first_unresolved)
    recompute_first_unresolved (s);
}

/* An unresolved receive completes without telling its envelope: take the next
 * inferred one, or give up on it (replayed as nothing, reported missing). */
static void
resolve_by_inference (TsRankDecoder *s, Request *r)
{
  TsAction *a = action_at (s, r->seq);
  const GArray *inf = s->options.inferred;
  if (s->options.unresolved_deadlines)
    g_array_append_val (s->options.unresolved_deadlines, s->now);
  const TsEnvelope *e = NULL;
  if (inf && s->inferred_next < inf->len)
    e = &g_array_index (inf, TsEnvelope, s->inferred_next++);
  if (e && e->peer != TS_NO_RANK)
    {
      a->peer = e->peer;
      a->comm = e->comm;
      a->tag = e->tag;
      a->bytes = e->bytes;
      a->flags |= TS_ACTION_INFERRED;
    }
  else
    a->flags |= TS_ACTION_MISSING;
  request_resolved (s, r);
}

/* A request whose details never came (a non-blocking collective completed
 * unseen): replayed as nothing, reported missing. */
static void
give_up (TsRankDecoder *s, Request *r)
{
  action_at (s, r->seq)->flags |= TS_ACTION_MISSING;
  request_resolved (s, r);
}

static void
emit_wait (TsRankDecoder *s, Request *r, double time, guint8 flags)
{
  if (r->is_recv && !r->resolved)
    resolve_by_inference (s, r);
  else if (!r->resolved)
    give_up (s, r);
  TsAction *w = ts_decode_push (s, TS_ACTION_WAIT, time);
  w->req = r->req;
  w->flags = flags;
  w->call = s->call;
  if (s->call_first_seq == G_MAXUINT64)
    s->call_first_seq = last_seq (s);
  request_forget (s, r);
}

/* ---- compute and calls --------------------------------------------------- */

void
ts_decode_account_gap (TsRankDecoder *s, double now)
{
  if (!s->started)
    {
      s->started = TRUE;
      s->last_time = now;
      return;
    }
  if (s->call != NO_REGION)
    return;
  if ((s->team && ts_decode_team_waiting (s)) || (s->thread > 0 && ts_decode_thread_waiting (s)))
    {
      s->last_time = MAX (s->last_time, now); /* at its team's barrier: no work */
      return;
    }
  double gap = now - s->last_time;
  if (gap > 0)
    {
      TsAction *a = ts_decode_push (s, TS_ACTION_COMPUTE, s->last_time);
      a->seconds = gap;
      const TsTrace *tr = s->source->trace;
      if (tr->compute_clock == TS_COMPUTE_LOAD && s->thread == 0)
        {
          /* The load is in raw times: undo this stream's offset. */
          double off = s->options.clock_offset;
          a->seconds = ts_node_load_cpu (tr->node_load, s->rank, s->last_time - off, now - off);
        }
      a->region = s->user_region;
      a->call = a->caller = NO_REGION;
      s->burst_seq = last_seq (s);
      s->burst_start = s->last_time;
      s->burst_end = now;
      if (s->burst_first_seq == G_MAXUINT64)
        s->burst_first_seq = last_seq (s);
      /* A program that calls no MPI for a long time (many user regions
       * between two calls) must not hold its whole trace: those bursts go
       * out without a phase. */
      else if (last_seq (s) - s->burst_first_seq > TS_BURST_HOLD_MAX)
        s->burst_first_seq = G_MAXUINT64;
    }
  if (now > s->last_time)
    s->last_time = now;
}

TsAction *
ts_decode_call_action (TsRankDecoder *s, TsActionKind kind)
{
  TsAction *a = ts_decode_push (s, kind, s->call != NO_REGION ? s->call_enter : s->last_time);
  a->call = s->call;
  if (s->call != NO_REGION && s->call_first_seq == G_MAXUINT64)
    s->call_first_seq = last_seq (s);
  return a;
}

/* What happened inside a call that recorded no completion, per call kind. */
static void
infer_completions (TsRankDecoder *s, TsCallKind kind, double time)
{
  if (s->outstanding.length == 0)
    return;
  if (kind == TS_CALL_WAITALL)
    {
      while (s->outstanding.length > 0)
        emit_wait (s, g_queue_peek_head (&s->outstanding), time, TS_ACTION_INFERRED);
      return;
    }
  /* Wait/Waitany/Waitsome complete at least one request: the oldest receive
   * (the call the program blocks on for data), else the oldest send. */
  Request *pick = NULL;
  for (GList *l = s->outstanding.head; l && !pick; l = l->next)
    if (((Request *) l->data)->is_recv)
      pick = l->data;
  emit_wait (s, pick ? pick : g_queue_peek_head (&s->outstanding), time, TS_ACTION_INFERRED);
}

static void
end_call (TsRankDecoder *s, double leave)
{
  TsCallKind kind = ts_trace_region_call (s->source->trace, s->call);
  double duration = leave - s->call_enter;
  int info = TS_INFO_RECORDED;

  if (s->call_first_seq == G_MAXUINT64 && !s->call_completed
      && (kind == TS_CALL_WAIT || kind == TS_CALL_WAITALL || kind == TS_CALL_WAITANY
          || kind == TS_CALL_WAITSOME))
    {
      infer_completions (s, kind, s->call_enter);
      if (s->call_first_seq != G_MAXUINT64)
        info = TS_INFO_INFERRED;
    }

  if (s->call_first_seq == G_MAXUINT64)
    {
      /* Nothing to replay inside: the call costs what it took. Calls that must
       * have moved data but show none (EZTrace's MPI_Sendrecv) are missing. */
      gboolean missing = kind != TS_CALL_LOCAL && kind != TS_CALL_TEST && kind != TS_CALL_USER
                         && kind != TS_CALL_WAIT && kind != TS_CALL_WAITALL
                         && kind != TS_CALL_WAITANY && kind != TS_CALL_WAITSOME;
      if (duration > 0)
        {
          TsAction *a = ts_decode_push (s, TS_ACTION_COMPUTE, s->call_enter);
          a->seconds = duration;
          a->region = s->call;
          a->call = s->call;
          if (missing)
            a->flags |= TS_ACTION_MISSING;
        }
      if (missing)
        info = TS_INFO_MISSING;
    }
  else
    {
      for (guint64 q = s->call_first_seq; q <= last_seq (s) && info == TS_INFO_RECORDED; q++)
        if (action_at (s, q)->flags & TS_ACTION_INFERRED)
          info = TS_INFO_INFERRED;
      /* Marked even without costs: a spooled stream gets them on reading. */
      TsAction *first = action_at (s, s->call_first_seq);
      first->flags |= TS_ACTION_CALL_FIRST;
      first->size_class = (guint8) ts_size_class (s->call_bytes);
      if (s->options.call_costs)
        first->seconds = s->options.call_costs[kind * TS_N_SIZE_CLASSES + first->size_class];
    }

  s->stats.calls[info]++;
  s->stats.call_seconds[info] += duration;
  s->call = NO_REGION;
  s->last_time = leave;
}

/* ---- OTF2 callbacks ------------------------------------------------------ */

static gint
region_of_ref (TsRankDecoder *s, OTF2_RegionRef ref)
{
  TsDecoder *src = s->source;
  guint slot = ref % REGION_CACHE_SIZE;
  if (src->region_cache[slot].ref != ref)
    {
      src->region_cache[slot].ref = ref;
      src->region_cache[slot].region = ts_trace_region_of_ref (src->trace, ref);
    }
  return src->region_cache[slot].region;
}

TsRankDecoder *
ts_decode_of (void *ud, OTF2_LocationRef loc, uint64_t pos, OTF2_TimeStamp t, double *seconds)
{
  TsRankDecoder *s = ud;
  s->position = pos;
  s->stats.events++;
  *seconds = ts_decode_seconds (s, t);
  s->now = *seconds;
  if (*seconds < s->stats.first_time)
    s->stats.first_time = *seconds;
  if (*seconds > s->stats.last_time)
    s->stats.last_time = *seconds;
  return s;
}

OTF2_CallbackCode
ts_decode_fail (TsRankDecoder *s, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_autofree char *where = ts_decode_where (s);
  g_set_error (&s->error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS, "%s: %s, event %"
               G_GUINT64_FORMAT ": %s", s->source->trace->path, where, s->position, msg);
  return OTF2_CALLBACK_INTERRUPT;
}

/* An MPI call begins: the bursts since the last one end here. Their phase is
 * this call and the function that made it: the caller the tracer recorded,
 * else the innermost user region (a Score-P trace of instrumented code),
 * unless that is the outermost open region, which encloses every call
 * (main, EZTrace's "Working") and so tells nothing. */
static void
name_phase (TsRankDecoder *s, guint32 call, OTF2_AttributeList *attrs)
{
  if (s->burst_first_seq == G_MAXUINT64)
    return;
  guint32 caller = s->user_region;
  if (s->stack->len > 0 && g_array_index (s->stack, guint32, 0) == caller)
    caller = NO_REGION;
  OTF2_AttributeRef attr = s->source->trace->caller_attribute;
  OTF2_RegionRef ref;
  if (attrs && attr != OTF2_UNDEFINED_ATTRIBUTE
      && OTF2_AttributeList_GetRegionRef (attrs, attr, &ref) == OTF2_SUCCESS)
    {
      gint r = region_of_ref (s, ref);
      if (r >= 0)
        caller = r;
    }
  for (guint64 q = s->burst_first_seq; q <= last_seq (s); q++)
    {
      TsAction *a = action_at (s, q);
      if (a->kind == TS_ACTION_COMPUTE)
        {
          a->call = call;
          a->caller = caller;
          a->flags |= TS_ACTION_PHASE;
        }
    }
  s->burst_first_seq = G_MAXUINT64;
}

static OTF2_CallbackCode
on_enter (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
          OTF2_AttributeList *attrs, OTF2_RegionRef ref)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  gint region = region_of_ref (s, ref);
  if (region < 0)
    return ts_decode_fail (s, "ENTER of undefined region %u", (guint) ref);

  ts_decode_account_gap (s, now);
  s->enter_time = now;
  TsCallKind kind = ts_trace_region_call (s->source->trace, region);
  if (kind != TS_CALL_USER && s->call == NO_REGION)
    {
      name_phase (s, region, attrs);
      s->call = region;
      s->call_depth = s->stack->len;
      s->call_enter = now;
      s->call_first_seq = G_MAXUINT64;
      s->call_bytes = 0;
      s->call_completed = FALSE;
      s->call_cpu_enter = s->cpu_known && s->cpu_time == now ? s->cpu_value : NAN;
    }
  else if (kind == TS_CALL_USER && s->call == NO_REGION)
    s->user_region = region;
  /* A thread's implicit task marks its part of a team where it shows no
   * team events (EZTrace's OMPT layout): it begins there. */
  gboolean task = s->thread > 0 && !s->thread_team_events && !s->thread_in_team
                  && ts_trace_region_team_task (s->source->trace, region);
  if (task)
    ts_decode_thread_joins (s, now);
  guint32 r = region;
  g_array_append_val (s->stack, r);
  TsAction *a = ts_decode_push (s, TS_ACTION_ENTER, now);
  a->region = region;
  if (task)
    s->thread_task_depth = s->stack->len;
  if (s->team)
    ts_decode_team_enter (s, region, now);
  else if (s->thread > 0)
    ts_decode_thread_enter (s, region, now);
  return s->error ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static void
refresh_user_region (TsRankDecoder *s)
{
  s->user_region = NO_REGION;
  for (guint i = s->stack->len; i > 0; i--)
    {
      guint32 r = g_array_index (s->stack, guint32, i - 1);
      if (ts_trace_region_call (s->source->trace, r) == TS_CALL_USER)
        {
          s->user_region = r;
          return;
        }
    }
}

static OTF2_CallbackCode
on_leave (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
          OTF2_AttributeList *attrs, OTF2_RegionRef ref)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  gint region = region_of_ref (s, ref);
  if (region < 0)
    return ts_decode_fail (s, "LEAVE of undefined region %u", (guint) ref);

  /* Find the region on the stack. EZTrace ends ranks with crossed regions
   * (LEAVE Working inside "EZTrace finalize"): close what lies above it. A
   * LEAVE of a region that is not open at all is ignored. */
  guint depth = s->stack->len;
  while (depth > 0 && g_array_index (s->stack, guint32, depth - 1) != (guint32) region)
    depth--;
  if (depth == 0)
    return OTF2_CALLBACK_SUCCESS;

  ts_decode_account_gap (s, now);
  double call_seconds = 0, call_cpu = NAN;
  if (s->call != NO_REGION && depth - 1 <= s->call_depth)
    {
      end_call (s, now);
      if (s->call_first_seq != G_MAXUINT64)
        call_seconds = now - s->call_enter;
      if (s->cpu_known && s->cpu_time == now) /* read just before this LEAVE; NaN: unknown */
        call_cpu = MAX (0, s->cpu_value - s->call_cpu_enter);
    }
  g_array_set_size (s->stack, depth - 1);
  if (s->team)
    ts_decode_team_left (s, now);
  else if (s->thread > 0)
    ts_decode_thread_leaving (s, depth, now);
  refresh_user_region (s);
  TsAction *a = ts_decode_push (s, TS_ACTION_LEAVE, now);
  a->region = region;
  /* An MPI call's LEAVE carries its recorded duration, where it replays
   * actions (charged beyond waiting and transfer: charge_call_cost), and its CPU time. */
  a->seconds = call_seconds;
  a->cpu = call_cpu;
  if (now > s->last_time)
    s->last_time = now;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
p2p (TsRankDecoder *s, TsActionKind kind, uint32_t peer, OTF2_CommRef ref, uint32_t tag,
     uint64_t bytes, uint64_t req)
{
  gint comm = ts_decode_comm_index (s, ref);
  if (comm < 0)
    return OTF2_CALLBACK_INTERRUPT;
  s->call_bytes = MAX (s->call_bytes, bytes);
  if (!ts_decode_peer_valid (s, comm, peer))
    return OTF2_CALLBACK_SUCCESS; /* MPI_PROC_NULL: nothing happens */
  TsAction *a = ts_decode_call_action (s, kind);
  a->peer = peer;
  a->comm = comm;
  a->tag = (gint32) tag;
  a->bytes = bytes;
  a->req = req;
  if (kind == TS_ACTION_ISEND)
    request_post (s, req, FALSE);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_send (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
         OTF2_AttributeList *attrs, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
  double now;
  return p2p (ts_decode_of (ud, loc, pos, t, &now), TS_ACTION_SEND, peer, comm, tag, bytes, 0);
}

static OTF2_CallbackCode
on_recv (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
         OTF2_AttributeList *attrs, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
  double now;
  return p2p (ts_decode_of (ud, loc, pos, t, &now), TS_ACTION_RECV, peer, comm, tag, bytes, 0);
}

static OTF2_CallbackCode
on_isend (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
          OTF2_AttributeList *attrs, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
          uint64_t bytes, uint64_t req)
{
  double now;
  return p2p (ts_decode_of (ud, loc, pos, t, &now), TS_ACTION_ISEND, peer, comm, tag, bytes, req);
}

static OTF2_CallbackCode
on_isend_complete (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                   OTF2_AttributeList *attrs, uint64_t req)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  Request *r = g_hash_table_lookup (s->requests, &req);
  if (r)
    emit_wait (s, r, s->call != NO_REGION ? s->call_enter : now, 0);
  return OTF2_CALLBACK_SUCCESS;
}

/* Post a request whose details come later (an EZTrace receive's envelope, a
 * non-blocking collective's operation): the actions from it on are held. */
static void
post_held (TsRankDecoder *s, TsActionKind kind, guint64 req)
{
  TsAction *a = ts_decode_call_action (s, kind);
  a->req = req;
  a->peer = TS_NO_RANK;
  Request *r = request_post (s, req, kind == TS_ACTION_IRECV);
  r->is_coll = kind == TS_ACTION_ICOLLECTIVE;
  r->resolved = FALSE;
  r->seq = last_seq (s);
  if (s->n_unresolved++ == 0)
    s->first_unresolved = r->seq;
}

static OTF2_CallbackCode
on_irecv_request (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                  OTF2_AttributeList *attrs, uint64_t req)
{
  double now;
  post_held (ts_decode_of (ud, loc, pos, t, &now), TS_ACTION_IRECV, req);
  return OTF2_CALLBACK_SUCCESS;
}

/* Could a receive have completed with this status? EZTrace records the
 * MPI_Status of MPI_Waitany and MPI_Testany uninitialised (shared traces'
 * README, quirk 14): senders like 3967089088 and lengths like 2^64 - 32766.
 * In a wait, such a completion still took a message, so it is inferred like
 * one that recorded nothing (in a test, nothing may have completed: HPCC's
 * MPI_Testany loops). Only a sender of MPI_PROC_NULL (TS_PROC_NULL_PEER)
 * means a receive that took none. No message is 2^48 bytes (256 TiB). */
static gboolean
status_plausible (TsRankDecoder *s, guint32 comm, guint32 peer, guint64 bytes)
{
  if (TS_PROC_NULL_PEER (peer))
    return TRUE;
  return ts_decode_peer_valid (s, comm, peer) && bytes < (G_GUINT64_CONSTANT (1) << 48);
}

/* Is the call under way one that completes one or some of several
 * requests (MPI_Waitany, MPI_Waitsome, MPI_Testany, MPI_Testsome), in a
 * trace whose tracer may have read their statuses wrongly? EZTrace reads
 * them uninitialised (status_plausible) or left from an earlier call. */
static gboolean
in_status_array_call (TsRankDecoder *s)
{
  /* A trusted tracer's need no revising (nor the first pass's extra read
   * that would prepare it). */
  if (s->call == NO_REGION || s->source->statuses_trusted)
    return FALSE;
  return ts_trace_region_completes_one_of (s->source->trace, s->call);
}

static OTF2_CallbackCode
on_irecv (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
          OTF2_AttributeList *attrs, uint32_t peer, OTF2_CommRef ref, uint32_t tag,
          uint64_t bytes, uint64_t req)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  gint comm = ts_decode_comm_index (s, ref);
  if (comm < 0)
    return OTF2_CALLBACK_INTERRUPT;
  s->call_bytes = MAX (s->call_bytes, bytes);
  Request *r = g_hash_table_lookup (s->requests, &req);
  if (!r || !r->is_recv)
    {
      /* A completion without a visible request: post and complete it here,
       * unless its status is garbage (EZTrace's MPI_Waitany reporting again
       * a request an earlier call completed). */
      if (TS_PROC_NULL_PEER (peer) || !status_plausible (s, comm, peer, bytes))
        return OTF2_CALLBACK_SUCCESS;
      TsAction *a = ts_decode_call_action (s, TS_ACTION_IRECV);
      a->peer = peer;
      a->comm = comm;
      a->tag = (gint32) tag;
      a->bytes = bytes;
      a->req = req;
      if (in_status_array_call (s))
        a->flags |= TS_ACTION_STATUS;
      r = request_post (s, req, TRUE);
      r->seq = last_seq (s);
      r->resolved = TRUE;
    }
  guint8 flags = 0;
  if (!r->resolved && !status_plausible (s, comm, peer, bytes))
    {
      if (s->call != NO_REGION && ts_trace_region_call (s->source->trace, s->call) == TS_CALL_TEST)
        return OTF2_CALLBACK_SUCCESS; /* a test's garbage: maybe nothing completed */
      resolve_by_inference (s, r);
      flags = TS_ACTION_INFERRED;
    }
  else if (!r->resolved)
    {
      TsAction *a = action_at (s, r->seq);
      if (ts_decode_peer_valid (s, comm, peer))
        {
          a->peer = peer;
          a->comm = comm;
          a->tag = (gint32) tag;
          a->bytes = bytes;
          if (in_status_array_call (s))
            a->flags |= TS_ACTION_STATUS;
        }
      else
        a->flags |= TS_ACTION_MISSING; /* receive from MPI_PROC_NULL: nothing to wait for */
      request_resolved (s, r);
    }
  emit_wait (s, r, s->call != NO_REGION ? s->call_enter : now, flags);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_request_test (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                 OTF2_AttributeList *attrs, uint64_t req)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  if (g_hash_table_contains (s->requests, &req))
    {
      TsAction *a = ts_decode_call_action (s, TS_ACTION_TEST);
      a->req = req;
      a->time = now;
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_request_cancelled (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                      OTF2_AttributeList *attrs, uint64_t req)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  /* The wait or test it happens in completed this request: nothing to infer. */
  s->call_completed = TRUE;
  Request *r = g_hash_table_lookup (s->requests, &req);
  if (r)
    {
      /* A receive still held can be dropped. A resolved one was handed out
       * already and stays posted (see doc/architecture.md). */
      if (r->is_recv && !r->resolved)
        give_up (s, r);
      request_forget (s, r);
    }
  return OTF2_CALLBACK_SUCCESS;
}

static void
fill_collective (TsRankDecoder *s, TsAction *a, TsCollectiveOp op, guint32 comm, uint32_t root,
                 uint64_t sent, uint64_t received)
{
  a->op = op;
  a->comm = comm;
  a->peer = root == OTF2_UNDEFINED_UINT32 || !ts_decode_peer_valid (s, comm, root) ? TS_NO_RANK
                                                                          : (gint32) root;
  a->bytes = sent;
  a->bytes_recv = received;
  s->call_bytes = MAX (sent, received);
}

static OTF2_CallbackCode
on_collective_end (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                   OTF2_AttributeList *attrs, OTF2_CollectiveOp otf2_op, OTF2_CommRef ref,
                   uint32_t root, uint64_t sent, uint64_t received)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  TsCollectiveOp op;
  if (!ts_collective_from_otf2 (otf2_op, &op))
    return OTF2_CALLBACK_SUCCESS; /* replayed as the time the call took */
  gint comm = ts_decode_comm_index (s, ref);
  if (comm < 0)
    return OTF2_CALLBACK_INTERRUPT;
  TsAction *a = ts_decode_call_action (s, TS_ACTION_COLLECTIVE);
  fill_collective (s, a, op, comm, root, sent, received);
  a->end = now;
  return OTF2_CALLBACK_SUCCESS;
}

/* Non-blocking collectives: the request holds the actions after it until the
 * completion tells the operation, as an EZTrace receive does for its envelope. */
static OTF2_CallbackCode
on_nbc_request (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                OTF2_AttributeList *attrs, uint64_t req)
{
  double now;
  post_held (ts_decode_of (ud, loc, pos, t, &now), TS_ACTION_ICOLLECTIVE, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_nbc_complete (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                 OTF2_AttributeList *attrs, OTF2_CollectiveOp otf2_op, OTF2_CommRef ref,
                 uint32_t root, uint64_t sent, uint64_t received, uint64_t req)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  gint comm = ts_decode_comm_index (s, ref);
  if (comm < 0)
    return OTF2_CALLBACK_INTERRUPT;
  TsCollectiveOp op;
  gboolean modelled = ts_collective_from_otf2 (otf2_op, &op);
  Request *r = g_hash_table_lookup (s->requests, &req);
  if (!r || !r->is_coll || r->resolved)
    return OTF2_CALLBACK_SUCCESS; /* no request seen: nothing to replay */
  TsAction *a = action_at (s, r->seq);
  if (modelled)
    {
      fill_collective (s, a, op, comm, root, sent, received);
      request_resolved (s, r);
    }
  else
    give_up (s, r);
  emit_wait (s, r, s->call != NO_REGION ? s->call_enter : now, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_other (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
          OTF2_AttributeList *attrs)
{
  double now;
  ts_decode_of (ud, loc, pos, t, &now);
  return OTF2_CALLBACK_SUCCESS;
}

void
ts_decode_finish (TsRankDecoder *s)
{
  /* Receives still unresolved at the end never completed in the trace. */
  for (GList *l = s->outstanding.head; l; l = l->next)
    {
      Request *r = l->data;
      if (!r->resolved)
        {
          action_at (s, r->seq)->flags |= TS_ACTION_MISSING;
          r->resolved = TRUE;
        }
    }
  s->n_unresolved = 0;
  s->first_unresolved = G_MAXUINT64;
  s->call = NO_REGION; /* a call still open at the end never finished */
  s->burst_first_seq = G_MAXUINT64; /* the last bursts: no call ends them */
  s->eof = TRUE;
}

static const TsEventSink decode_sink = {
  .enter = on_enter,
  .leave = on_leave,
  .mpi_send = on_send,
  .mpi_recv = on_recv,
  .mpi_isend = on_isend,
  .mpi_isend_complete = on_isend_complete,
  .mpi_irecv_request = on_irecv_request,
  .mpi_irecv = on_irecv,
  .mpi_request_test = on_request_test,
  .mpi_request_cancelled = on_request_cancelled,
  .mpi_collective_begin = on_other,
  .mpi_collective_end = on_collective_end,
  .nbc_request = on_nbc_request,
  .nbc_complete = on_nbc_complete,
  .parameter_uint = ts_stream_on_parameter_uint,
  .metric = ts_decode_on_metric,
  .thread_team_begin = ts_decode_on_team_begin,
  .thread_fork = ts_decode_on_thread_fork,
  .acquire_lock = ts_decode_on_acquire_lock,
  .release_lock = ts_decode_on_release_lock,
  .thread_join = ts_decode_on_thread_join,
  .thread_team_end = ts_decode_on_team_end,
};

const TsEventSink *
ts_decode_sink (void)
{
  return &decode_sink;
}
