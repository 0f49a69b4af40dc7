#include <config.h>

#define G_LOG_DOMAIN "ts-eager"

#include "model/eager.h"
#include "model/channel.h"
#include "model/rank_log.h"

#include <math.h>

/* Clock alignment is good to tens of microseconds, not better: a sender must
 * have left this much before the receiver arrived to count as evidence. */
#define EAGER_CLOCK_SLACK 50e-6

/* The k-th message of a channel, or the k-th collective of a communicator
 * (src = dst = G_MAXUINT32, tag = 0). */
typedef struct {
  TsChannel channel;
  guint64 k;
} Key;

static guint
key_hash (gconstpointer p)
{
  const Key *key = p;
  return ts_channel_hash (&key->channel) ^ (guint) (key->k * 2654435761u);
}

static gboolean
key_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (Key)) == 0;
}

/* What the two sides of one large message or rooted collective showed. */
typedef struct {
  guint64 bytes;
  double sender_leave;       /* NAN until the sender's call ended */
  double first_receiver_enter; /* +inf until a receiver entered */
} Sighting;

typedef struct {
  const TsTrace *trace;
  const TsProfile *profile;
  guint64 assumed;
  GHashTable *sightings;     /* Key -> Sighting, large messages only */
  GHashTable *sends, *recvs; /* TsChannel -> guint64 messages so far (this rank) */
  GHashTable *colls;         /* comm (guint) -> guint64 collectives so far (this rank) */
} Scan;

static guint64
next_index (GHashTable *counts, gconstpointer key, gsize key_size)
{
  gpointer old = NULL;
  guint64 k = 0;
  if (g_hash_table_lookup_extended (counts, key, NULL, &old))
    k = GPOINTER_TO_SIZE (old);
  g_hash_table_insert (counts, g_memdup2 (key, key_size), GSIZE_TO_POINTER ((gsize) k + 1));
  return k;
}

static Sighting *
sighting (Scan *s, const Key *key, guint64 bytes, gboolean create)
{
  Sighting *v = g_hash_table_lookup (s->sightings, key);
  if (!v && create)
    {
      v = g_new (Sighting, 1);
      v->bytes = bytes;
      v->sender_leave = NAN;
      v->first_receiver_enter = INFINITY;
      g_hash_table_insert (s->sightings, g_memdup2 (key, sizeof *key), v);
    }
  return v;
}

/* One rank's actions. Senders (and roots) create sightings of large
 * messages, so that receivers, read in a second round, only look them up:
 * memory follows the large messages, not all of them. */
static gboolean
scan_rank (Scan *s, guint rank, gboolean senders, GError **error)
{
  g_autoptr (TsRankLogReader) reader = ts_rank_log_reader_new (s->profile->spool, rank);
  double offset = s->profile->clock_offset[rank];
  gboolean in_call = FALSE;
  guint32 call = 0;
  double call_enter = 0;
  Sighting *pending = NULL;  /* the sender's side, finished at the call's end */
  g_hash_table_remove_all (s->sends);
  g_hash_table_remove_all (s->recvs);
  g_hash_table_remove_all (s->colls);
  const TsAction *a;
  while ((a = ts_rank_log_reader_next (reader, error)))
    {
      double t = a->time + offset;
      switch ((TsActionKind) a->kind)
        {
        case TS_ACTION_ENTER:
          if (!in_call && ts_trace_region_call (s->trace, a->region) != TS_CALL_USER)
            {
              in_call = TRUE;
              call = a->region;
              call_enter = t;
              pending = NULL;
            }
          break;
        case TS_ACTION_LEAVE:
          if (in_call && a->region == call)
            {
              if (pending)
                pending->sender_leave = t;
              in_call = FALSE;
            }
          break;
        case TS_ACTION_SEND:
        case TS_ACTION_ISEND:
          {
            TsChannel ch = { rank, ts_trace_comm_world_rank (s->trace, a->comm, rank, a->peer),
                             a->comm, a->tag };
            Key key = { ch, next_index (s->sends, &ch, sizeof ch) };
            /* Only a blocking send shows whether it waited for its receiver. */
            if (senders && a->kind == TS_ACTION_SEND && a->bytes >= s->assumed)
              pending = sighting (s, &key, a->bytes, TRUE);
          }
          break;
        case TS_ACTION_RECV:
        case TS_ACTION_IRECV:
          {
            if (a->flags & TS_ACTION_MISSING)
              break;
            TsChannel ch = { ts_trace_comm_world_rank (s->trace, a->comm, rank, a->peer), rank,
                             a->comm, a->tag };
            Key key = { ch, next_index (s->recvs, &ch, sizeof ch) };
            Sighting *v = senders ? NULL : sighting (s, &key, 0, FALSE);
            if (v)
              v->first_receiver_enter = MIN (v->first_receiver_enter, in_call ? call_enter : t);
          }
          break;
        case TS_ACTION_COLLECTIVE:
          {
            if (ts_collective_shape ((TsCollectiveOp) a->op) != TS_COLL_SHAPE_ONE2N)
              break;
            guint comm = a->comm;
            TsChannel ch = { G_MAXUINT32, G_MAXUINT32, a->comm, 0 };
            Key key = { ch, next_index (s->colls, &comm, sizeof comm) };
            gint me = ts_trace_comm_local_rank (s->trace, a->comm, rank);
            gboolean root = a->peer >= 0 && me == a->peer;
            guint64 bytes = ts_collective_block (a->op, ts_trace_collective_bytes_total (s->trace),
                                                 ts_trace_comm_size (s->trace, a->comm), MAX (me, 0),
                                                 root, a->bytes, a->bytes_recv);
            if (senders && root && bytes >= s->assumed)
              pending = sighting (s, &key, bytes, TRUE);
            Sighting *v = !senders && !root ? sighting (s, &key, 0, FALSE) : NULL;
            if (v)
              v->first_receiver_enter = MIN (v->first_receiver_enter, call_enter);
          }
          break;
        default:
          break;
        }
    }
  return error == NULL || *error == NULL;
}

guint64
ts_eager_threshold_infer (const TsTrace *trace, const TsProfile *profile, guint64 assumed,
                          GError **error)
{
  if (!profile->spool || assumed == 0 || profile->largest_blocking_send < assumed)
    return assumed;
  Scan s = { trace, profile, assumed,
             g_hash_table_new_full (key_hash, key_equal, g_free, g_free),
             g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free, NULL),
             g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free, NULL),
             g_hash_table_new_full (g_int_hash, g_int_equal, g_free, NULL) };
  gboolean ok = TRUE;
  for (guint r = 0; r < profile->n_ranks && ok; r++)
    ok = scan_rank (&s, r, TRUE, error);
  for (guint r = 0; r < profile->n_ranks && ok && g_hash_table_size (s.sightings) > 0; r++)
    ok = scan_rank (&s, r, FALSE, error);
  guint64 threshold = assumed;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, s.sightings);
  while (ok && g_hash_table_iter_next (&it, NULL, &value))
    {
      const Sighting *v = value;
      /* The sender (a rooted collective's root) was done before any
       * receiver arrived: the library did not wait for one, so messages of
       * this size were eager. A rendezvous root waits for its first child
       * at least. */
      if (!isnan (v->sender_leave) && isfinite (v->first_receiver_enter)
          && v->sender_leave + EAGER_CLOCK_SLACK < v->first_receiver_enter)
        threshold = MAX (threshold, v->bytes + 1);
    }
  g_hash_table_unref (s.sightings);
  g_hash_table_unref (s.sends);
  g_hash_table_unref (s.recvs);
  g_hash_table_unref (s.colls);
  return ok ? threshold : 0;
}
