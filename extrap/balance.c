/* Whether the messages of an extrapolated trace pair up: per flow (two
 * ranks, a communicator, a tag; partitioned requests apart), what is sent
 * minus what is received. Synthesis (synth.c) counts what it writes; a
 * trace whose flows do not balance would deadlock its replay or carry
 * messages the program never received, and is refused before it is
 * written. */
#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/extrap-private.h"

#include "model/hash.h"
#include "model/stream.h"

#include <gio/gio.h>

/* The messages (or partitioned requests, which match apart) between two
 * ranks with one tag in one communicator: sent minus received. Unless all
 * are 0, a replay leaves messages unreceived or waits for ones never sent. */
typedef struct {
  guint32 src, dst, comm;
  gint32 tag;
  guint32 partitioned;
  gint64 balance;
} Flow;

static guint
flow_hash (gconstpointer p)
{
  const Flow *f = p;
  return ts_hash_mix (ts_hash_mix (ts_hash_mix (ts_hash_mix (ts_hash_mix (0, f->src), f->dst),
                                                f->comm), (guint32) f->tag), f->partitioned);
}

static gboolean
flow_equal (gconstpointer a, gconstpointer b)
{
  const Flow *x = a, *y = b;
  return x->src == y->src && x->dst == y->dst && x->comm == y->comm && x->tag == y->tag
         && x->partitioned == y->partitioned;
}

GHashTable *
ts_extrap_flows_new (void)
{
  return g_hash_table_new_full (flow_hash, flow_equal, g_free, NULL);
}

void
ts_extrap_flows_count (GHashTable *flows, gboolean receive, guint r, guint peer, guint32 comm,
                       gint32 tag, gboolean partitioned)
{
  Flow key = { receive ? peer : r, receive ? r : peer, comm, tag, partitioned, 0 };
  Flow *f = g_hash_table_lookup (flows, &key);
  if (!f)
    {
      f = g_memdup2 (&key, sizeof key);
      g_hash_table_add (flows, f);
    }
  f->balance += receive ? -1 : 1;
}

static gboolean
flow_before (const Flow *a, const Flow *b)
{
  if (a->src != b->src)
    return a->src < b->src;
  if (a->dst != b->dst)
    return a->dst < b->dst;
  if (a->tag != b->tag)
    return a->tag < b->tag;
  return a->partitioned < b->partitioned;
}

/* The first flow of @flows, by source, destination and tag, whose
 * balance has the sign of @sign (-1: more received than sent); NULL if
 * none. *@unmatched: the flows not balanced, of either sign. */
static const Flow *
first_unbalanced (GHashTable *flows, int sign, guint *unmatched)
{
  const Flow *first = NULL;
  *unmatched = 0;
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, flows);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      const Flow *f = key;
      if (f->balance == 0)
        continue;
      ++*unmatched;
      if ((f->balance < 0) == (sign < 0) && (!first || flow_before (f, first)))
        first = f;
    }
  return first;
}

/* Whether the template's own messages pair up, per flow (its communicators
 * as they are). A trace recorded with messages nobody received, or
 * receives on a stale envelope (EZTrace's MPI_Waitany), does not, and the
 * output then cannot either: that is the input's, and the replay deals
 * with it as it does for the input. */
gboolean
ts_extrap_template_balanced (const TsTrace *trace, guint n, const TsSpool *actions,
                             gboolean *balanced, GError **error)
{
  g_autoptr (GHashTable) flows = ts_extrap_flows_new ();
  for (guint t = 0; t < n; t++)
    {
      g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (actions, t);
      const TsAction *a;
      GError *local = NULL;
      while ((a = ts_spool_reader_next (rd, &local)))
        {
          gboolean message = a->kind == TS_ACTION_SEND || a->kind == TS_ACTION_ISEND
                             || a->kind == TS_ACTION_RECV || a->kind == TS_ACTION_IRECV;
          if ((!message && a->kind != TS_ACTION_PINIT) || a->peer < 0)
            continue;
          gboolean receive = a->kind == TS_ACTION_PINIT ? a->direction == TS_PARTITIONED_RECV
                             : a->kind == TS_ACTION_RECV || a->kind == TS_ACTION_IRECV;
          guint q = ts_trace_comm_world_rank (trace, a->comm, t, (guint) a->peer);
          ts_extrap_flows_count (flows, receive, t, q, a->comm, a->tag, !message);
        }
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
    }
  guint unmatched;
  first_unbalanced (flows, 1, &unmatched);
  *balanced = unmatched == 0;
  return TRUE;
}

/* What @n of @f's are called. */
static const char *
noun (const Flow *f, gint64 n)
{
  if (f->partitioned)
    return n == 1 ? "partitioned request" : "partitioned requests";
  return n == 1 ? "message" : "messages";
}

/* Whether every message the output sends is received, and every receive
 * sent, where the template's are: the extension of its traffic to P
 * ranks fails that where partners or tags change with the rank count in a
 * way no rule follows. A receive nobody sends deadlocks the replay; a send
 * nobody receives makes a trace that is not the program's. The first
 * flow of the worse kind is named. */
gboolean
ts_extrap_check_balance (GHashTable *flows, guint target, gboolean template_ok, GError **error)
{
  guint unmatched;
  const Flow *f = first_unbalanced (flows, -1, &unmatched);
  if (unmatched == 0 || !template_ok)
    return TRUE;
  if (f)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 "the inputs' point-to-point traffic does not extend to %u ranks consistently: "
                 "rank %u would wait for %" G_GINT64_FORMAT " more %s from rank %u with tag %d "
                 "than rank %u sends (%u channels in all do not match), so the extrapolated "
                 "trace would deadlock; its partners or tags change with the rank count in a "
                 "way the extrapolation does not follow. Nothing was written",
                 target, f->dst, -f->balance, noun (f, -f->balance), f->src, f->tag, f->src,
                 unmatched);
  else
    {
      f = first_unbalanced (flows, 1, &unmatched);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the inputs' point-to-point traffic does not extend to %u ranks "
                   "consistently: rank %u would send %" G_GINT64_FORMAT " more %s to rank %u "
                   "with tag %d than rank %u receives (%u channels in all do not match), "
                   "although every message of the largest input is received; its partners or "
                   "tags change with the rank count in a way the extrapolation does not "
                   "follow. Nothing was written",
                   target, f->src, f->balance, noun (f, f->balance), f->dst, f->tag, f->dst,
                   unmatched);
    }
  return FALSE;
}

