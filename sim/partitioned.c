#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"
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
  TsComm **comms;            /* per send partition, NULL once done (or not started) */
  const TsWorldOps *world;
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
      pr->world->release (pr->comms[i]);
  g_free (pr->comms);
  g_free (pr->payloads);
  g_free (pr->done);
  g_free (pr);
}

/* The rank's tables, made at its first initialisation: most ranks of most
 * traces have none, and two empty tables were 384 bytes a rank (issue 41). */
static void
rank_tables (TsRank *rk)
{
  if (rk->prequests)
    return;
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

/* Each send partition travels on a mailbox of its own. */
static TsMailbox
partition_mailbox (const PRequest *pr, guint i)
{
  return (TsMailbox) { pr->channel.src, pr->channel.dst, pr->channel.comm, pr->channel.tag, pr->k, i };
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
  ts_archive_writer_partitioned (w, rk->location, ts_rank_now (rk), e, req,
                                 init ? (guint32) pr->peer_local : partition,
                                 init ? (guint32) pr->comm : 0, init ? (guint32) pr->tag : 0,
                                 init ? pr->bytes : 0, init ? pr->own_partitions : 0);
}

static void
partitioned_init (TsRank *rk, const TsAction *a)
{
  const TsTrace *t = rk->sim->trace;
  gboolean send = a->direction == TS_PARTITIONED_SEND;
  guint peer = ts_trace_comm_world_rank (t, a->comm, rk->rank, a->peer);
  TsChannel ch = { send ? rk->rank : peer, send ? peer : rk->rank, a->comm, a->tag };
  struct { TsChannel c; gboolean send; } side = { ch, send };
  GBytes *key = g_bytes_new (&side, sizeof side);
  rank_tables (rk);
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
  pr->comms = g_new0 (TsComm *, pr->s);
  pr->world = rk->sim->world;
  pr->payloads = g_new0 (void *, pr->s);
  pr->done = g_new0 (gboolean, pr->s);
  pr->comm = a->comm;
  pr->peer_local = a->peer;
  pr->tag = a->tag;
  pr->own_partitions = (guint32) a->partitions;
  g_hash_table_replace (rk->prequests, g_memdup2 (&a->req, sizeof a->req), pr);
  write_event (rk, send ? TS_P_PSEND_INIT : TS_P_PRECV_INIT, pr, a->req, 0);
}

enum { PSTART_POST, PSTART_FLUSH };

static gboolean
partitioned_start (TsProgress *x, PRequest *pr)
{
  TsRank *rk = x->rk;
  switch (x->pc_part)
    {
    case PSTART_POST:
      write_event (rk, pr->send ? TS_P_PSEND_REQUEST : TS_P_PRECV_REQUEST, pr, x->a->req, 0);
      for (x->part_i = 0; x->part_i < pr->s; x->part_i++)
        {
          guint i = x->part_i;
          pr->done[i] = FALSE;
          if (pr->comms[i])
            rk->sim->world->release (pr->comms[i]); /* a previous round the trace never completed */
          pr->comms[i] = NULL;
          if (!pr->send)
            {
              /* The receive is posted for every send partition at once. */
              TS_AT (x->pc_part, PSTART_FLUSH);
              if (!ts_step_flush (x))
                return FALSE;
              i = x->part_i;
              pr->payloads[i] = NULL;
              TsMailbox mb = partition_mailbox (pr, i);
              pr->comms[i] = rk->sim->world->post_recv (rk, &mb, &pr->payloads[i]);
              rk->simcalls++;
            }
        }
    }
  return TRUE;
}

enum { PREADY_START, PREADY_FLUSH };

static gboolean
partitioned_ready (TsProgress *x, PRequest *pr)
{
  TsRank *rk = x->rk;
  guint i = (guint) x->a->partition;
  switch (x->pc_part)
    {
    case PREADY_START:
      if (i >= pr->s)
        return TRUE;
      TS_AT (x->pc_part, PREADY_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      write_event (rk, TS_P_PREADY, pr, x->a->req, i);
      /* The message carries the original MPI_Pready entry (the call's
       * causal time), for the receiver's call-cost accounting. */
      TsMailbox mb = partition_mailbox (pr, i);
      pr->comms[i] = rk->sim->world->post_send (rk, &mb, ts_rank_wire_bytes (rk, partition_bytes (pr, i)),
                                                ts_rank_payload (rk), TS_SEND_PARTITION);
      rk->simcalls++;
    }
  return TRUE;
}

/* Wait for send partition @i (a step of the caller's loop): on the
 * receiving side, for its message; on the sending side, for its delivery. */
static gboolean
await (TsProgress *x, PRequest *pr, guint i)
{
  if (!x->stopped)
    {
      if (pr->done[i] || !pr->comms[i])
        return TRUE;
      x->on = (TsBlockedOn) { pr->send ? "wait for a send partition to" : "wait for partition of",
                              (gint32) (pr->send ? pr->channel.dst : pr->channel.src),
                              (guint32) pr->comm, pr->tag, partition_bytes (pr, i) };
    }
  if (!ts_step_wait (x, pr->comms[i], &x->on))
    return FALSE;
  pr->comms[i] = NULL;
  if (!pr->send)
    ts_progress_absorb (x, pr->payloads[i]);
  pr->done[i] = TRUE;
  return TRUE;
}

enum { PARRIVED_START, PARRIVED_FLUSH, PARRIVED_AWAIT };

/* A receive partition the application sees as arrived (a successful
 * MPI_Parrived in the trace): it needs every send partition of I(j). */
static gboolean
partitioned_arrived (TsProgress *x, PRequest *pr)
{
  guint j = (guint) x->a->partition;
  switch (x->pc_part)
    {
    case PARRIVED_START:
      if (j >= pr->r)
        return TRUE;
      TS_AT (x->pc_part, PARRIVED_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      for (x->part_i = ts_partitioned_i (j, pr->s, pr->r, &x->part_last); x->part_i <= x->part_last;
           x->part_i++)
        {
          TS_AT (x->pc_part, PARRIVED_AWAIT);
          if (!await (x, pr, x->part_i))
            return FALSE;
        }
      write_event (x->rk, TS_P_PARRIVED, pr, x->a->req, j);
    }
  return TRUE;
}

enum { PTESTED_START, PTESTED_FLUSH };

/* An unsuccessful MPI_Parrived in the trace: in the simulated world the
 * partition may be there by now (then it arrives here), like a failed test. */
static gboolean
partitioned_tested (TsProgress *x, PRequest *pr)
{
  TsRank *rk = x->rk;
  guint j = (guint) x->a->partition;
  switch (x->pc_part)
    {
    case PTESTED_START:
      if (j >= pr->r)
        return TRUE;
      TS_AT (x->pc_part, PTESTED_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      guint last, first = ts_partitioned_i (j, pr->s, pr->r, &last);
      gboolean all = TRUE;
      for (guint i = first; i <= last; i++)
        {
          if (pr->done[i] || !pr->comms[i])
            {
              all &= pr->done[i];
              continue;
            }
          rk->simcalls++;
          if (rk->sim->world->test (rk, pr->comms[i]))
            {
              pr->comms[i] = NULL; /* released by the successful test */
              ts_progress_absorb (x, pr->payloads[i]);
              pr->done[i] = TRUE;
            }
          else
            all = FALSE;
        }
      write_event (rk, all ? TS_P_PARRIVED : TS_P_PTESTED, pr, x->a->req, j);
    }
  return TRUE;
}

enum { PCOMPLETE_START, PCOMPLETE_FLUSH, PCOMPLETE_AWAIT };

/* The wait (or successful test) completing the request: a receive needs
 * every partition, a send needs every partition delivered. */
static gboolean
partitioned_complete (TsProgress *x, PRequest *pr)
{
  switch (x->pc_part)
    {
    case PCOMPLETE_START:
      TS_AT (x->pc_part, PCOMPLETE_FLUSH);
      if (!ts_step_flush (x))
        return FALSE;
      for (x->part_i = 0; x->part_i < pr->s; x->part_i++)
        {
          TS_AT (x->pc_part, PCOMPLETE_AWAIT);
          if (!await (x, pr, x->part_i))
            return FALSE;
        }
      x->rk->call_waited_for_receiver |= pr->send;
      write_event (x->rk, pr->send ? TS_P_PSEND_COMPLETE : TS_P_PRECV_COMPLETE, pr, x->a->req, 0);
    }
  return TRUE;
}

gboolean
ts_partitioned_step (TsProgress *x)
{
  const TsAction *a = x->a;
  if (a->kind == TS_ACTION_PINIT)
    {
      partitioned_init (x->rk, a);
      return TRUE;
    }
  /* Before any initialisation the rank has no table: no such request. */
  PRequest *pr = x->rk->prequests ? g_hash_table_lookup (x->rk->prequests, &a->req) : NULL;
  if (!pr)
    return TRUE;
  gboolean done;
  switch ((TsActionKind) a->kind)
    {
    case TS_ACTION_PSTART:
      done = partitioned_start (x, pr);
      break;
    case TS_ACTION_PREADY:
      done = partitioned_ready (x, pr);
      break;
    case TS_ACTION_PARRIVED:
      done = partitioned_arrived (x, pr);
      break;
    case TS_ACTION_PTESTED:
      done = partitioned_tested (x, pr);
      break;
    case TS_ACTION_PCOMPLETE:
      done = partitioned_complete (x, pr);
      break;
    default:
      g_assert_not_reached ();
    }
  if (done)
    x->pc_part = 0;
  return done;
}
