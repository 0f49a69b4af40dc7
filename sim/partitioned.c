#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/replay-private.h"
#include "model/partitioned.h"

#include <math.h>

/* MPI-4 partitioned communication in the simulated world (seed 000, 4.3):
 * every send partition is its own message, released by MPI_Pready at its
 * simulated time on a mailbox of its own (channel, initialisation k,
 * partition), so a receive partition j has arrived once the send partitions
 * I(j) it needs are delivered, whatever the two partition counts. */

typedef struct {
  gboolean send;
  TsChannel channel;
  guint32 k;
  guint s, r;                /* send and receive partitions of the pair */
  guint64 bytes;             /* whole message */
  sg_comm_t *comms;          /* per send partition, NULL once done (or not started) */
  void **payloads;           /* receive side: each partition's landing slot */
  gboolean *done;            /* per send partition: delivered (and, receiving, waited for) */
  gint32 comm;               /* for the events */
  gint32 peer_local;
  gint32 tag;
  guint32 own_partitions;
} PRequest;

static void
prequest_free (gpointer p)
{
  PRequest *pr = p;
  for (guint i = 0; i < pr->s; i++)
    if (pr->comms[i])
      sg_comm_unref (pr->comms[i]);
  g_free (pr->comms);
  g_free (pr->payloads);
  g_free (pr->done);
  g_free (pr);
}

void
ts_partitioned_rank_init (TsRank *rk)
{
  rk->prequests = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, prequest_free);
  rk->pinit_count = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                           (GDestroyNotify) g_bytes_unref, NULL);
}

void
ts_partitioned_rank_clear (TsRank *rk)
{
  g_clear_pointer (&rk->prequests, g_hash_table_unref);
  g_clear_pointer (&rk->pinit_count, g_hash_table_unref);
}

static sg_mailbox_t
partition_mailbox (const PRequest *pr, guint i)
{
  char name[112];
  g_snprintf (name, sizeof name, "p%u>%u:%u:%d:%u:%u", pr->channel.src, pr->channel.dst,
              pr->channel.comm, pr->channel.tag, pr->k, i);
  return sg_mailbox_by_name (name);
}

static guint64
partition_bytes (const PRequest *pr, guint i)
{
  return pr->bytes / pr->s + (i < pr->bytes % pr->s ? 1 : 0);
}

static void
write_event (TsRank *rk, TsPartitionedEvent e, const PRequest *pr, guint64 req, guint32 partition)
{
  TsArchiveWriter *w = rk->sim->writer;
  if (!w)
    return;
  gboolean init = e == TS_P_PSEND_INIT || e == TS_P_PRECV_INIT;
  ts_archive_writer_partitioned (w, rk->rank, ts_rank_now (rk), e, req,
                                 init ? (guint32) pr->peer_local : partition,
                                 init ? (guint32) pr->comm : 0, init ? (guint32) pr->tag : 0,
                                 init ? pr->bytes : 0, init ? pr->own_partitions : 0);
}

void
ts_partitioned_init (TsRank *rk, const TsAction *a)
{
  const TsTrace *t = rk->sim->trace;
  gboolean send = a->direction == TS_PARTITIONED_SEND;
  guint peer = ts_trace_comm_world_rank (t, a->comm, rk->rank, a->peer);
  TsChannel ch = { send ? rk->rank : peer, send ? peer : rk->rank, a->comm, a->tag };
  struct { TsChannel c; gboolean send; } side = { ch, send };
  GBytes *key = g_bytes_new (&side, sizeof side);
  guint k = GPOINTER_TO_UINT (g_hash_table_lookup (rk->pinit_count, key));
  g_hash_table_replace (rk->pinit_count, key, GUINT_TO_POINTER (k + 1));
  /* The calibration paired every initialisation, or refused the trace. */
  const TsPartitionedPair *pair = ts_calibration_partitioned_pair (rk->sim->calibration, &ch, k);
  g_return_if_fail (pair != NULL);

  PRequest *pr = g_new0 (PRequest, 1);
  pr->send = send;
  pr->channel = ch;
  pr->k = k;
  pr->s = pair->send_partitions;
  pr->r = pair->recv_partitions;
  pr->bytes = pair->bytes;
  pr->comms = g_new0 (sg_comm_t, pr->s);
  pr->payloads = g_new0 (void *, pr->s);
  pr->done = g_new0 (gboolean, pr->s);
  pr->comm = a->comm;
  pr->peer_local = a->peer;
  pr->tag = a->tag;
  pr->own_partitions = (guint32) a->partitions;
  g_hash_table_replace (rk->prequests, g_memdup2 (&a->req, sizeof a->req), pr);
  write_event (rk, send ? TS_P_PSEND_INIT : TS_P_PRECV_INIT, pr, a->req, 0);
}

static PRequest *
lookup (TsRank *rk, guint64 req)
{
  return g_hash_table_lookup (rk->prequests, &req);
}

void
ts_partitioned_start (TsRank *rk, const TsAction *a)
{
  PRequest *pr = lookup (rk, a->req);
  if (!pr)
    return;
  write_event (rk, pr->send ? TS_P_PSEND_REQUEST : TS_P_PRECV_REQUEST, pr, a->req, 0);
  for (guint i = 0; i < pr->s; i++)
    {
      pr->done[i] = FALSE;
      if (pr->comms[i])
        sg_comm_unref (pr->comms[i]); /* a previous round the trace never completed */
      pr->comms[i] = NULL;
      if (!pr->send)
        {
          /* The receive is posted for every send partition at once. */
          ts_rank_flush (rk);
          pr->payloads[i] = NULL;
          pr->comms[i] = sg_mailbox_get_async (partition_mailbox (pr, i), &pr->payloads[i]);
          rk->simcalls++;
        }
    }
}

void
ts_partitioned_ready (TsRank *rk, const TsAction *a)
{
  PRequest *pr = lookup (rk, a->req);
  guint i = (guint) a->partition;
  if (!pr || i >= pr->s)
    return;
  ts_rank_flush (rk);
  write_event (rk, TS_P_PREADY, pr, a->req, i);
  /* The message carries the original MPI_Pready entry (the call's causal
   * time), for the receiver's call-cost accounting. */
  pr->comms[i] = sg_mailbox_put_async (partition_mailbox (pr, i), ts_rank_payload (rk),
                                       (long) ts_rank_wire_bytes (rk, partition_bytes (pr, i)));
  rk->simcalls++;
}

/* Wait for send partition @i on the receiving side. */
static void
await (TsRank *rk, PRequest *pr, guint i)
{
  if (pr->done[i] || !pr->comms[i])
    return;
  TsBlockedOn on = { pr->send ? "wait for a send partition to" : "wait for partition of",
                     (gint32) (pr->send ? pr->channel.dst : pr->channel.src), (guint32) pr->comm,
                     pr->tag, partition_bytes (pr, i) };
  ts_rank_wait (rk, pr->comms[i], &on);
  pr->comms[i] = NULL;
  if (!pr->send)
    ts_rank_absorb (rk, pr->payloads[i]);
  pr->done[i] = TRUE;
}

/* A receive partition the application sees as arrived (a successful
 * MPI_Parrived in the trace): it needs every send partition of I(j). */
void
ts_partitioned_arrived (TsRank *rk, const TsAction *a)
{
  PRequest *pr = lookup (rk, a->req);
  if (!pr || (guint) a->partition >= pr->r)
    return;
  ts_rank_flush (rk);
  guint last, first = ts_partitioned_i ((guint) a->partition, pr->s, pr->r, &last);
  for (guint i = first; i <= last; i++)
    await (rk, pr, i);
  write_event (rk, TS_P_PARRIVED, pr, a->req, (guint32) a->partition);
}

/* An unsuccessful MPI_Parrived in the trace: in the simulated world the
 * partition may be there by now (then it arrives here), like a failed test. */
void
ts_partitioned_tested (TsRank *rk, const TsAction *a)
{
  PRequest *pr = lookup (rk, a->req);
  if (!pr || (guint) a->partition >= pr->r)
    return;
  ts_rank_flush (rk);
  guint last, first = ts_partitioned_i ((guint) a->partition, pr->s, pr->r, &last);
  gboolean all = TRUE;
  for (guint i = first; i <= last; i++)
    {
      if (pr->done[i] || !pr->comms[i])
        {
          all &= pr->done[i];
          continue;
        }
      rk->simcalls++;
      if (sg_comm_test (pr->comms[i]))
        {
          pr->comms[i] = NULL; /* released by the successful test */
          ts_rank_absorb (rk, pr->payloads[i]);
          pr->done[i] = TRUE;
        }
      else
        all = FALSE;
    }
  write_event (rk, all ? TS_P_PARRIVED : TS_P_PTESTED, pr, a->req, (guint32) a->partition);
}

/* The wait (or successful test) completing the request: a receive needs
 * every partition, a send needs every partition delivered. */
void
ts_partitioned_complete (TsRank *rk, const TsAction *a)
{
  PRequest *pr = lookup (rk, a->req);
  if (!pr)
    return;
  ts_rank_flush (rk);
  for (guint i = 0; i < pr->s; i++)
    await (rk, pr, i);
  rk->call_waited_for_receiver |= pr->send;
  write_event (rk, pr->send ? TS_P_PSEND_COMPLETE : TS_P_PRECV_COMPLETE, pr, a->req, 0);
}
