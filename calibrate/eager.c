#include <config.h>

#define G_LOG_DOMAIN "ts-eager"

#include "calibrate/eager.h"
#include "calibrate/calibration-private.h"
#include "model/channel.h"
#include "model/spool.h"

#include <math.h>

/* A sender must have left this much before the receiver arrived to count
 * as evidence. */
#define EAGER_CLOCK_SLACK TS_CALIBRATION_CLOCK_SLACK

/* No MPI library sends less than this eagerly (Open MPI's shared memory
 * stops at 4 KiB, MPICH's at 64 KiB): smaller messages tell nothing about a
 * threshold below the assumed one. */
#define EAGER_SMALLEST 1024

/* Messages below the assumed threshold watched per size class: enough for
 * evidence, bounded memory on long traces. */
#define EAGER_WATCH_PER_CLASS 1024

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
  return ts_hash_mix (ts_channel_hash (&key->channel), key->k);
}

static gboolean
key_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (Key)) == 0;
}

/* What the two sides of one large message or rooted collective showed. */
typedef struct {
  guint64 bytes;
  double sender_enter;       /* the sender's call (the root's) */
  double sender_leave;       /* NAN until the sender's call ended */
  double first_receiver_enter; /* +inf until a receiver entered */
} Sighting;

typedef struct {
  const TsTrace *trace;
  const TsCalibration *calibration;
  guint64 assumed;
  guint64 smallest;          /* watch blocking sends from this size on */
  guint watched[65];         /* per size class below @assumed: sightings made */
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

/* The sender's side of a message (or a root's of a collective) entering its
 * call at @enter; the receivers' side is filled in later. */
static Sighting *
watch (Scan *s, const Key *key, guint64 bytes, double enter)
{
  Sighting *v = g_hash_table_lookup (s->sightings, key);
  if (!v)
    {
      v = g_new (Sighting, 1);
      v->bytes = bytes;
      v->sender_leave = NAN;
      v->first_receiver_enter = INFINITY;
      g_hash_table_insert (s->sightings, g_memdup2 (key, sizeof *key), v);
    }
  v->sender_enter = enter;
  return v;
}

/* A one-to-all collective: its root is the sender of a block to each
 * member. Returns the root's sighting, to finish at its call's end. */
static Sighting *
sight_broadcast (Scan *s, guint rank, const TsAction *a, gboolean senders, double call_enter)
{
  guint comm = a->comm;
  TsChannel ch = { G_MAXUINT32, G_MAXUINT32, a->comm, 0 };
  Key key = { ch, next_index (s->colls, &comm, sizeof comm) };
  gint me = ts_trace_comm_local_rank (s->trace, a->comm, rank);
  gboolean root = a->peer >= 0 && me == a->peer;
  guint64 bytes = ts_collective_block (a->op, ts_trace_collective_bytes_total (s->trace),
                                       ts_trace_comm_size (s->trace, a->comm), MAX (me, 0),
                                       root, a->bytes, a->bytes_recv);
  if (senders && root && bytes >= s->assumed)
    return watch (s, &key, bytes, call_enter);
  Sighting *v = !senders && !root ? g_hash_table_lookup (s->sightings, &key) : NULL;
  if (v)
    v->first_receiver_enter = MIN (v->first_receiver_enter, call_enter);
  return NULL;
}

/* One rank's actions. Senders (and roots) create sightings of large
 * messages, so that receivers, read in a second round, only look them up:
 * memory follows the large messages, not all of them. */
static gboolean
scan_rank (Scan *s, guint rank, gboolean senders, GError **error)
{
  g_autoptr (TsSpoolReader) reader = ts_spool_reader_new (s->calibration->spool, rank);
  double offset = s->calibration->clock_offset[rank];
  gboolean in_call = FALSE;
  guint32 call = 0;
  double call_enter = 0;
  Sighting *pending = NULL;  /* the sender's side, finished at the call's end */
  g_hash_table_remove_all (s->sends);
  g_hash_table_remove_all (s->recvs);
  g_hash_table_remove_all (s->colls);
  const TsAction *a;
  while ((a = ts_spool_reader_next (reader, error)))
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
            if (senders && a->kind == TS_ACTION_SEND && a->bytes >= s->smallest
                && (a->bytes >= s->assumed
                    || s->watched[ts_size_class (a->bytes)]++ < EAGER_WATCH_PER_CLASS))
              pending = watch (s, &key, a->bytes, call_enter);
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
            Sighting *v = senders ? NULL : g_hash_table_lookup (s->sightings, &key);
            if (v)
              v->first_receiver_enter = MIN (v->first_receiver_enter, in_call ? call_enter : t);
          }
          break;
        case TS_ACTION_COLLECTIVE:
          if (ts_collective_shape ((TsCollectiveOp) a->op) == TS_COLL_SHAPE_ONE2N)
            {
              Sighting *root = sight_broadcast (s, rank, a, senders, call_enter);
              if (root)
                pending = root;
            }
          break;
        default:
          break;
        }
    }
  return error == NULL || *error == NULL;
}

/* Whether every receive of the trace names its sender: a rendezvous sender
 * waits for the one receive that matches it, and a guessed or missing one
 * would hold it forever (EZTrace's irecvs record no source). */
static gboolean
receives_all_recorded (const TsCalibration *calibration)
{
  for (guint r = 0; r < calibration->n_ranks; r++)
    if (calibration->rank_stats[r].calls[TS_INFO_INFERRED] > 0
        || calibration->rank_stats[r].calls[TS_INFO_MISSING] > 0)
      return FALSE;
  return TRUE;
}

guint64
ts_eager_threshold_infer (const TsTrace *trace, const TsCalibration *calibration, guint64 assumed,
                          GError **error)
{
  gboolean may_lower = receives_all_recorded (calibration);
  if (!calibration->spool || assumed == 0
      || (calibration->largest_blocking_send < (may_lower ? EAGER_SMALLEST : assumed)))
    return assumed;
  Scan s = { trace, calibration, assumed, may_lower ? MIN (EAGER_SMALLEST, assumed) : assumed, { 0 },
             g_hash_table_new_full (key_hash, key_equal, g_free, g_free),
             g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free, NULL),
             g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free, NULL),
             g_hash_table_new_full (g_int_hash, g_int_equal, g_free, NULL) };
  gboolean ok = TRUE;
  for (guint r = 0; r < calibration->n_ranks && ok; r++)
    ok = scan_rank (&s, r, TRUE, error);
  for (guint r = 0; r < calibration->n_ranks && ok && g_hash_table_size (s.sightings) > 0; r++)
    ok = scan_rank (&s, r, FALSE, error);
  /* The sender (a rooted collective's root) was done before any receiver
   * arrived: the library did not wait for one, so messages of this size
   * were eager. A rendezvous root waits for its first child at least. */
  guint64 largest_eager = 0;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, s.sightings);
  while (ok && g_hash_table_iter_next (&it, NULL, &value))
    {
      const Sighting *v = value;
      if (!isnan (v->sender_leave) && isfinite (v->first_receiver_enter)
          && v->sender_leave + EAGER_CLOCK_SLACK < v->first_receiver_enter)
        largest_eager = MAX (largest_eager, v->bytes);
    }
  /* A blocking send larger than every eager one that entered before its
   * receiver and left only after the receiver arrived waited for it. A
   * descheduled eager sender can do the same by chance, so it takes two such
   * sends, and the threshold is the smaller of the two smallest. */
  guint64 waited[2] = { G_MAXUINT64, G_MAXUINT64 };
  g_hash_table_iter_init (&it, s.sightings);
  while (ok && may_lower && g_hash_table_iter_next (&it, NULL, &value))
    {
      const Sighting *v = value;
      if (v->bytes > largest_eager && v->bytes < assumed && isfinite (v->first_receiver_enter)
          && v->sender_enter + EAGER_CLOCK_SLACK < v->first_receiver_enter
          && v->sender_leave + EAGER_CLOCK_SLACK >= v->first_receiver_enter)
        {
          if (v->bytes < waited[0])
            {
              waited[1] = waited[0];
              waited[0] = v->bytes;
            }
          else if (v->bytes < waited[1])
            waited[1] = v->bytes;
        }
    }
  guint64 threshold = waited[1] != G_MAXUINT64 ? waited[0] : MAX (assumed, largest_eager + 1);
  g_hash_table_unref (s.sightings);
  g_hash_table_unref (s.sends);
  g_hash_table_unref (s.recvs);
  g_hash_table_unref (s.colls);
  return ok ? threshold : 0;
}
