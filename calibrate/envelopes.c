/* The envelopes of receives the trace recorded without one (EZTrace's
 * MPI_Irecv): pass 1's second read of the events, after clock alignment. */
#include <config.h>

#define G_LOG_DOMAIN "ts-calibrate"

#include "calibrate/calibration-private.h"
#include "model/hash.h"

/* Seconds a message may seem sent after the receive that took it ended. */
#define INFER_CLOCK_SLACK TS_CALIBRATION_CLOCK_SLACK

typedef struct {
  guint32 src;       /* world rank */
  guint32 comm;
  gint32 tag;
  guint64 bytes;
  double time;       /* the send's */
  double order;      /* when the receiver most likely took it (see infer_envelopes) */
  guint32 k;         /* the sender's k-th message on this channel (from 0) */
} Message;

static gint
compare_message (gconstpointer a, gconstpointer b)
{
  const Message *x = a, *y = b;
  return x->order < y->order ? -1 : x->order > y->order;
}

static guint
channel_hash (gconstpointer p)
{
  const Message *m = p;
  return ts_hash_mix (ts_hash_mix (ts_hash_mix (0, m->src), m->comm), (guint32) m->tag);
}

static gboolean
channel_equal (gconstpointer a, gconstpointer b)
{
  const Message *x = a, *y = b;
  return x->src == y->src && x->comm == y->comm && x->tag == y->tag;
}

static gboolean
collect_messages (const TsTrace *trace, TsCalibration *p, TsDecoder *src, guint r,
                  GArray **incoming, GHashTable *known, GArray *deadlines, GError **error)
{
  double clock_offset = p->clock_offset[r];
  TsDecodeOptions opt = { .clock_offset = clock_offset, .unresolved_deadlines = deadlines };
  TsRankDecoder *s = ts_decoder_rank (src, r, &opt);
  /* Messages per channel so far: destination, communicator, tag (a Message
   * whose src field holds the destination) -> count. */
  g_autoptr (GHashTable) sent = g_hash_table_new_full (channel_hash, channel_equal, g_free, g_free);
  TsAction a;
  GError *local = NULL;
  GArray *blocking_to = NULL; /* a blocking send whose call has not left yet: */
  guint blocking_at = 0;      /* incoming[its destination], its index there */
  while (ts_rank_decoder_next (s, &a, &local))
    {
      if (a.kind == TS_ACTION_LEAVE && blocking_to)
        {
          Message *m = &g_array_index (blocking_to, Message, blocking_at);
          m->order = MAX (m->order, a.time);
          blocking_to = NULL;
        }
      if (a.kind == TS_ACTION_SEND || a.kind == TS_ACTION_ISEND)
        {
          guint dst = ts_trace_comm_world_rank (trace, a.comm, r, a.peer);
          Message key = { dst, a.comm, a.tag };
          guint32 *count = g_hash_table_lookup (sent, &key);
          if (!count)
            {
              count = g_new0 (guint32, 1);
              g_hash_table_insert (sent, g_memdup2 (&key, sizeof key), count);
            }
          Message m = { r, a.comm, a.tag, a.bytes, a.time, a.time, (*count)++ };
          g_array_append_val (incoming[dst], m);
          if (a.kind == TS_ACTION_SEND)
            {
              blocking_to = incoming[dst];
              blocking_at = incoming[dst]->len - 1;
            }
        }
      else if ((a.kind == TS_ACTION_RECV || a.kind == TS_ACTION_IRECV)
               && !(a.flags & TS_ACTION_MISSING))
        {
          Message key = { ts_trace_comm_world_rank (trace, a.comm, r, a.peer), a.comm, a.tag };
          gpointer old = g_hash_table_lookup (known, &key);
          g_hash_table_replace (known, g_memdup2 (&key, sizeof key),
                                GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
          /* The k-th receive of a channel takes its k-th message (MPI's
           * order). For a receive whose envelope MPI_Waitany & co. gave,
           * that is the message its envelope as recorded would take: if
           * the envelope is stale, the message the receive really took is
           * left to the inference (to_guessed) or unreceived, so the
           * messages a revision sends to receives taking them as they
           * arrive are as many as those receives. A negative tag is no
           * message's (collectives'). */
          if ((a.flags & TS_ACTION_STATUS) && a.tag >= 0)
            {
              TsPartitionedKey to = { { key.src, r, a.comm, a.tag }, GPOINTER_TO_UINT (old) };
              g_hash_table_add (p->to_status, g_memdup2 (&to, sizeof to));
            }
        }
    }
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

/* The messages to one rank that no recorded receive took go, in the order
 * the rank most likely took them, to its unresolved receives (@deadlines,
 * in posting order): one envelope per receive appended to @env, TS_NO_RANK
 * for a receive that took none. */
static void
assign_envelopes (const TsTrace *trace, TsCalibration *p, guint dst, GArray *incoming,
                  GHashTable *known, const GArray *deadlines, GArray *env)
{
  g_autoptr (GArray) left = g_array_new (FALSE, FALSE, sizeof (Message));
  g_array_sort (incoming, compare_message);
  for (guint i = 0; i < incoming->len; i++)
    {
      Message *m = &g_array_index (incoming, Message, i);
      guint n_known = GPOINTER_TO_UINT (g_hash_table_lookup (known, m));
      if (n_known > 0)
        g_hash_table_replace (known, g_memdup2 (m, sizeof *m), GUINT_TO_POINTER (n_known - 1));
      else
        g_array_append_val (left, *m);
    }
  guint next = 0;
  /* Counts come before clocks: a receive takes no message (it was from
   * MPI_PROC_NULL, or cancelled) only while there are more receives than
   * messages. Aligned clocks are a median estimate, off by far more than
   * INFER_CLOCK_SLACK on a loaded node, and a completing call is a guess
   * where one MPI_Waitany of several finished an unknown request: leaving a
   * receive empty for a message stamped after its deadline would leave that
   * message to a later receive, and each later one a message too late, until
   * one takes nothing and a message nobody takes waits for ever. */
  guint empty_allowed = deadlines->len > left->len ? deadlines->len - left->len : 0;
  for (guint k = 0; k < deadlines->len; k++)
    {
      double deadline = g_array_index (deadlines, double, k);
      TsEnvelope e = { TS_NO_RANK, 0, 0, 0 };
      const Message *m = next < left->len ? &g_array_index (left, Message, next) : NULL;
      /* Clock alignment is a median: allow a send stamped slightly after the
       * receive ended. */
      if (m && m->time > deadline + INFER_CLOCK_SLACK && empty_allowed > 0)
        empty_allowed--;
      else if (m)
        {
          next++;
          e = (TsEnvelope) { ts_trace_comm_local_rank (trace, m->comm, m->src), m->comm,
                             m->tag, m->bytes };
          TsPartitionedKey to = { { m->src, dst, m->comm, m->tag }, m->k };
          g_hash_table_add (p->to_guessed, g_memdup2 (&to, sizeof to));
        }
      g_array_append_val (env, e);
    }
  /* What no receive of the trace took: nothing in the replay will receive
   * it either, so it must not wait for a receiver. */
  for (; next < left->len; next++)
    {
      Message *m = &g_array_index (left, Message, next);
      TsPartitionedKey orphan = { { m->src, dst, m->comm, m->tag }, m->k };
      g_hash_table_add (p->unreceived, g_memdup2 (&orphan, sizeof orphan));
    }
}

/* EZTrace records MPI_Irecv without its envelope and never its completion.
 * The messages addressed to a rank that no recorded receive consumed are the
 * ones its unresolved receives took: hand them out in the order the receiver
 * most likely took them, but never give a receive a message sent after its
 * completing call ended (a receive from MPI_PROC_NULL looks the same and
 * takes no message). That order is when a blocking send left, not when it
 * began: a send too large to be buffered leaves only once its receive took
 * it, so two neighbours' sends entered in one order can be taken in the
 * other (LAMMPS: rank 2 enters its send to rank 0 before rank 1 does, but
 * rank 0 receives from rank 1 first and rank 2's send waits for that). A
 * buffered send leaves at once, so for it the two orders agree; a
 * non-blocking send keeps its posting time. */
/* Rank @r's messages go into @incoming[destination]; the receives it
 * recorded with their envelope are counted per channel in @known; the
 * deadlines of its unresolved receives go into @deadlines. */
gboolean
ts_calibration_infer_envelopes (const TsTrace *trace, TsCalibration *p, GError **error)
{
  g_autoptr (TsDecoder) src = ts_decoder_open (trace, error);
  if (!src)
    return FALSE;
  GArray **incoming = g_new0 (GArray *, p->n_ranks);
  GHashTable **known = g_new0 (GHashTable *, p->n_ranks);
  GArray **deadlines = g_new0 (GArray *, p->n_ranks);
  for (guint r = 0; r < p->n_ranks; r++)
    {
      deadlines[r] = g_array_new (FALSE, FALSE, sizeof (double));
      incoming[r] = g_array_new (FALSE, FALSE, sizeof (Message));
      known[r] = g_hash_table_new_full (channel_hash, channel_equal, g_free, NULL);
    }
  gboolean ok = TRUE;
  for (guint r = 0; r < p->n_ranks && ok; r++)
    ok = collect_messages (trace, p, src, r, incoming, known[r], deadlines[r], error);
  for (guint r = 0; r < p->n_ranks; r++)
    {
      if (ok)
        assign_envelopes (trace, p, r, incoming[r], known[r], deadlines[r],
                          g_ptr_array_index (p->inferred, r));
      g_array_unref (deadlines[r]);
      g_array_unref (incoming[r]);
      g_hash_table_unref (known[r]);
    }
  g_free (deadlines);
  g_free (incoming);
  g_free (known);
  g_debug ("envelope inference: %u messages to receives with guessed envelopes, %u that no "
           "receive took", g_hash_table_size (p->to_guessed), g_hash_table_size (p->unreceived));
  return ok;
}

