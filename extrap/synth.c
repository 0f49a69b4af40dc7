#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/synth-private.h"

#include "model/spool.h"
#include "model/stream.h"

#include <gio/gio.h>
#include <math.h>

static double
ratio (double at_target, double at_template)
{
  return at_template > 0 ? at_target / at_template : 1;
}

/* The output communicator of class @klass through rank @r, defined once
 * (keyed by its class and first member); its size in @size. */
static guint32
class_comm (Synth *s, gint klass, guint r, guint *size)
{
  g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (guint32));
  ts_extrap_class_members (s->m, klass, r, members);
  *size = members->len;
  guint64 key = ((guint64) (guint32) klass << 32) | g_array_index (members, guint32, 0);
  gpointer found = g_hash_table_lookup (s->class_comms, &key);
  if (found)
    return GPOINTER_TO_UINT (found) - 1;
  char buffer[64];
  g_autofree char *name = g_strdup_printf ("%s through %u",
                                           ts_extrap_class_name (klass, buffer, sizeof buffer),
                                           g_array_index (members, guint32, 0));
  guint32 id = ts_archive_writer_define_comm (s->w, name, members->len,
                                              (const guint32 *) members->data);
  g_hash_table_insert (s->class_comms, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (id + 1));
  return id;
}

/* (sender, receiver, tag) as one key. */
static char *
slots_key (guint sender, guint receiver, gint32 tag)
{
  return g_strdup_printf ("%u %u %d", sender, receiver, tag);
}

/* Both neighbours along a periodic dimension of two ranks are the same rank,
 * so a message to it does not say which way it went (with diagonal
 * neighbours, up to 2^n ways). Sends take the @n @slots in turn (an SPMD
 * code sends the same way on every rank); a receive comes from the
 * direction opposite to the one its send took, its send being the
 * sender's k-th to this rank with the same tag when this is the k-th such
 * receive (MPI's non-overtaking order). A code that shifts (sends down,
 * receives from up) stays a shift at P. */
static guint
multi_way_slot (Synth *s, RankState *rs, guint q, gint32 tag, gboolean receive,
                const guint *slots, guint n)
{
  const TsPattern *at = &s->m->pattern;
  if (!receive)
    {
      gpointer key = GUINT_TO_POINTER (q);
      guint seen = GPOINTER_TO_UINT (g_hash_table_lookup (rs->sent, key));
      g_hash_table_insert (rs->sent, key, GUINT_TO_POINTER (seen + 1));
      return slots[seen % n];
    }
  guint64 key = ((guint64) q << 32) | (guint32) tag;
  gpointer found = g_hash_table_lookup (rs->received, &key);
  guint seen = GPOINTER_TO_UINT (found);
  g_hash_table_insert (rs->received, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (seen + 1));
  g_autofree char *skey = slots_key (q, rs->t, tag);
  const GByteArray *sent = g_hash_table_lookup (s->send_slots, skey);
  if (sent && seen < sent->len)
    return ts_pattern_offset_opposite (at->n_dims, sent->data[seen]);
  /* No such send: as if the sender had sent it, in its turn. */
  guint theirs[TS_EXTRAP_MAX_SLOTS], m = ts_extrap_slots (at, q, rs->t, theirs);
  if (m == 0)
    return slots[seen % n];  /* not reached: the grid is symmetric */
  return ts_pattern_offset_opposite (at->n_dims, theirs[seen % m]);
}

/* @bytes of a message between output rank rs->r and output rank @q, as at
 * P: the model's factor for the class of its direction (rank 0 is the
 * template's rank 0 at every scale, so the classes are the output's). */
guint64
ts_synth_message_bytes (Synth *s, RankState *rs, guint64 bytes, guint q, gboolean receive)
{
  guint sender = receive ? q : rs->r, receiver = receive ? rs->r : q;
  return (guint64) llround ((double) bytes
                            * s->bytes_factor[ts_extrap_bytes_class (s->m, sender, receiver)]);
}

/* A message outside the loops over partners of an all-to-all or a
 * master/worker program: to the master it stays to the master (the
 * master's own calls with single workers are refused by loops.c), as it
 * does with the root of an all-to-all that sends to (or receives from)
 * every rank in a loop; otherwise it keeps its signed rank offset (the
 * shorter way round the template's ranks), so that a shift's receive
 * meets its send whichever template ranks the two were written from. */
static gint
map_exchange_peer (Synth *s, RankState *rs, guint q, gboolean receive, guint64 *bytes)
{
  const TsExtrapModel *m = s->m;
  gint pt = (gint) TS_EXTRAP_TEMPLATE (m)->n_ranks, p = (gint) m->target;
  gint peer;
  if (m->pattern.kind == TS_PATTERN_MASTER_WORKER)
    peer = q == 0 ? 0 : -1;
  else if (q == 0 && s->loops && ts_partner_loops_root_reaches (s->loops, receive))
    peer = 0;
  else
    {
      gint d = ((gint) q - (gint) rs->t + pt) % pt;
      if (d > pt / 2)
        d -= pt;
      peer = (((gint) rs->r + d) % p + p) % p;
    }
  *bytes = ts_synth_message_bytes (s, rs, *bytes, (guint) MAX (peer, 0), receive);
  return peer == (gint) rs->r ? -1 : peer;
}

/* The output peer of a point-to-point action of template rank @t, or -1 to
 * leave the message out (a neighbour that does not exist at P). Sets
 * @bytes to the message's size at P. */
static gint
map_peer (Synth *s, RankState *rs, const TsAction *a, gboolean receive, guint64 *bytes,
          guint *slot_used)
{
  const TsExtrapModel *m = s->m;
  *bytes = a->bytes;
  *slot_used = G_MAXUINT;
  if (a->peer < 0)
    return -1;
  guint q = ts_trace_comm_world_rank (s->trace, a->comm, rs->t, (guint) a->peer);
  if (q == rs->t && rs->forced_slot == G_MAXUINT)
    {
      /* A rank that is its own transpose partner swaps its piece with
       * itself (NPB CG's diagonal): a transpose's size. */
      if (m->pattern.kind == TS_PATTERN_BUTTERFLY && m->pattern.transpose)
        *bytes = (guint64) llround ((double) a->bytes * s->bytes_factor[1]);
      return (gint) rs->r;
    }
  if (m->pattern.kind == TS_PATTERN_ALL_TO_ALL || m->pattern.kind == TS_PATTERN_MASTER_WORKER)
    return map_exchange_peer (s, rs, q, receive, bytes);
  guint slots[TS_EXTRAP_MAX_SLOTS], n = 1;
  if (rs->forced_slot != G_MAXUINT)
    slots[0] = rs->forced_slot;  /* a doubling step P adds (synth-repeat.c) */
  else
    n = ts_extrap_slots (&m->pattern, rs->t, q, slots);
  if (n == 0)
    return -1;
  guint slot = n >= 2 ? multi_way_slot (s, rs, q, a->tag, receive, slots, n) : slots[0];
  gint peer = ts_pattern_offset_neighbour (&m->at_target, rs->r, slot);
  if (peer < 0 || peer == (gint) rs->r)
    return -1;
  guint k = ts_extrap_grid_class (&m->pattern, slot);
  *bytes = (guint64) llround ((double) a->bytes * s->bytes_factor[k]);
  *slot_used = slot;
  return peer;
}

/* What a request to or from output @peer (-1: left out) was posted as. */
static Posted *
posted_new (gboolean receive, gint peer, gint32 tag, guint64 bytes)
{
  Posted *p = g_new0 (Posted, 1);
  *p = (Posted) { receive, peer < 0, (guint32) MAX (peer, 0), tag, bytes };
  return p;
}

/* Write @a to output @peer (-1: left out) with @bytes, under request @req. */
void
ts_synth_post (Synth *s, RankState *rs, const TsAction *a, gint peer, guint64 bytes, guint64 req)
{
  gboolean receive = a->kind == TS_ACTION_RECV || a->kind == TS_ACTION_IRECV;
  if (a->kind == TS_ACTION_ISEND || a->kind == TS_ACTION_IRECV)
    g_hash_table_insert (rs->posted, g_memdup2 (&req, sizeof req),
                         posted_new (receive, peer, a->tag, bytes));
  if (peer < 0)
    return;
  guint r = rs->r;
  ts_extrap_flows_count (s->flows, receive, r, (guint) peer, 0, a->tag, FALSE);
  switch (a->kind)
    {
    case TS_ACTION_SEND:
      ts_archive_writer_send (s->w, r, rs->clock, (guint32) peer, 0, (guint32) a->tag, bytes);
      break;
    case TS_ACTION_RECV:
      ts_archive_writer_recv (s->w, r, rs->clock, (guint32) peer, 0, (guint32) a->tag, bytes);
      break;
    case TS_ACTION_ISEND:
      ts_archive_writer_isend (s->w, r, rs->clock, (guint32) peer, 0, (guint32) a->tag, bytes,
                               req);
      break;
    default:
      ts_archive_writer_irecv_request (s->w, r, rs->clock, req);
      break;
    }
}

/* @a's twins through the mirror images of @slot (mirror.c), each with
 * @bytes; a non-blocking one under a fresh request that @a's wait
 * completes too. */
static void
mirror (Synth *s, RankState *rs, const TsAction *a, guint slot, guint64 bytes)
{
  const TsPattern *at = &s->m->at_target;
  gboolean receive = a->kind == TS_ACTION_RECV || a->kind == TS_ACTION_IRECV;
  gboolean nonblocking = a->kind == TS_ACTION_ISEND || a->kind == TS_ACTION_IRECV;
  guint twins[8], n = ts_extrap_mirror_slots (at->n_dims, slot, rs->mirror, twins);
  /* A blocking receive's twin, in the same call, waits for a neighbour
   * that may itself be blocked sending its own twin (the shift idiom of
   * two MPI_Sendrecv calls deadlocks so): only sends may block, their
   * receives posted beforehand. */
  if (n > 0 && a->kind == TS_ACTION_RECV)
    {
      if (s->blocking_twin < 0)
        s->blocking_twin = (gint) rs->r;
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      gint peer = ts_pattern_offset_neighbour (at, rs->r, twins[i]);
      if (peer < 0)
        continue;
      TsAction twin = *a;
      twin.tag = ts_extrap_mirror_tag (s->send_tag, at->n_dims, twins[i], receive, a->tag);
      guint64 req = a->req;
      if (nonblocking)
        {
          req = rs->next_req++;
          GArray *fresh = g_hash_table_lookup (rs->expanded, &a->req);
          if (!fresh)
            {
              fresh = g_array_new (FALSE, FALSE, sizeof (guint64));
              g_array_append_val (fresh, a->req);
              g_hash_table_insert (rs->expanded, g_memdup2 (&a->req, sizeof a->req), fresh);
            }
          g_array_append_val (fresh, req);
        }
      ts_synth_post (s, rs, &twin, peer, bytes, req);
    }
}

static void
point_to_point (Synth *s, RankState *rs, const TsAction *a)
{
  gboolean receive = a->kind == TS_ACTION_RECV || a->kind == TS_ACTION_IRECV;
  guint64 bytes;
  guint slot;
  gint peer = map_peer (s, rs, a, receive, &bytes, &slot);
  ts_synth_post (s, rs, a, peer, bytes, a->req);
  if (rs->mirror && slot != G_MAXUINT)
    mirror (s, rs, a, slot, bytes);
}

static void
complete_one (Synth *s, RankState *rs, guint8 kind, guint64 req)
{
  Posted *p = g_hash_table_lookup (rs->posted, &req);
  if (!p || p->dropped)
    return;
  const TsAction *c = &p->operation;
  if (kind == TS_ACTION_TEST)
    ts_archive_writer_request_test (s->w, rs->r, rs->clock, req);
  else if (p->collective)
    ts_archive_writer_nbc_complete (s->w, rs->r, rs->clock, c->op, c->comm, c->peer, c->bytes,
                                    c->bytes_recv, req);
  else if (p->receive)
    ts_archive_writer_irecv (s->w, rs->r, rs->clock, p->peer, 0, (guint32) p->tag, p->bytes,
                             req);
  else
    ts_archive_writer_isend_complete (s->w, rs->r, rs->clock, req);
  if (kind == TS_ACTION_WAIT)
    g_hash_table_remove (rs->posted, &req);
}

/* A wait or test of a template request completes what it became: itself,
 * or every request a repeated loop posted in its place. */
static void
complete (Synth *s, RankState *rs, const TsAction *a)
{
  const GArray *fresh = g_hash_table_lookup (rs->expanded, &a->req);
  if (!fresh)
    {
      complete_one (s, rs, a->kind, a->req);
      return;
    }
  for (guint i = 0; i < fresh->len; i++)
    complete_one (s, rs, a->kind, g_array_index (fresh, guint64, i));
  if (a->kind == TS_ACTION_WAIT)
    g_hash_table_remove (rs->expanded, &a->req);
}

/* Collective @a of template rank rs->t as at P into @out: its communicator
 * of the same class through rs->r (comms.c), its bytes the model's. FALSE
 * for a self communicator: nobody to wait for, left out. */
static gboolean
map_collective (Synth *s, RankState *rs, const TsAction *a, TsAction *out)
{
  const TsExtrapModel *m = s->m;
  gint klass = m->comm_class[a->comm];
  if (klass < TS_COMM_WORLD_CLASS)
    return FALSE;
  guint size = m->target;
  guint32 comm = klass == TS_COMM_WORLD_CLASS ? 0 : class_comm (s, klass, rs->r, &size);
  double f = 1;
  for (guint i = 0; i < m->collectives->len; i++)
    {
      const TsCollectiveModel *c = &g_array_index (m->collectives, TsCollectiveModel, i);
      if (c->op == a->op && c->klass == klass)
        f = s->collective_factor[i];
    }
  *out = *a;
  out->comm = comm;
  /* A root the smaller communicator lacks becomes its first rank. */
  if (a->peer >= 0 && (guint) a->peer >= size)
    out->peer = 0;
  out->bytes = (guint64) llround ((double) a->bytes * f);
  out->bytes_recv = (guint64) llround ((double) a->bytes_recv * f);
  ts_extrap_scale_root (m, s->trace, a, rs->t, klass, rs->r, size, out);
  return TRUE;
}

static void
collective (Synth *s, RankState *rs, const TsAction *a)
{
  if (!map_collective (s, rs, a, &rs->collective))
    return;
  rs->collective_open = TRUE;
  ts_archive_writer_collective_begin (s->w, rs->r, rs->clock);
}

/* A non-blocking collective: posted now, its operation written when a
 * wait completes it (as OTF2 has it). */
static void
icollective (Synth *s, RankState *rs, const TsAction *a)
{
  Posted *p = g_new0 (Posted, 1);
  p->collective = TRUE;
  p->dropped = !map_collective (s, rs, a, &p->operation);
  g_hash_table_insert (rs->posted, g_memdup2 (&a->req, sizeof a->req), p);
  if (!p->dropped)
    ts_archive_writer_nbc_request (s->w, rs->r, rs->clock, a->req);
}

/* MPI-4 partitioned communication: the request's peer and size are mapped
 * as a message's are when it is created (a neighbour P lacks leaves the
 * request out, with everything done on it); the rest follows it. */
static void
partitioned (Synth *s, RankState *rs, const TsAction *a)
{
  guint r = rs->r;
  if (a->kind == TS_ACTION_PINIT)
    {
      gboolean receive = a->direction == TS_PARTITIONED_RECV;
      guint64 bytes;
      guint slot;  /* not mirrored (mirror.c): the balance check refuses such interiors */
      gint peer = map_peer (s, rs, a, receive, &bytes, &slot);
      g_hash_table_insert (rs->partitioned, g_memdup2 (&a->req, sizeof a->req),
                           posted_new (receive, peer, a->tag, bytes));
      if (peer >= 0)
        {
          ts_extrap_flows_count (s->flows, receive, r, (guint) peer, 0, a->tag, TRUE);
          ts_archive_writer_partitioned (s->w, r, rs->clock,
                                         receive ? TS_P_PRECV_INIT : TS_P_PSEND_INIT, a->req,
                                         (guint32) peer, 0, (guint32) a->tag, bytes,
                                         (guint32) a->partitions);
        }
      return;
    }
  const Posted *p = g_hash_table_lookup (rs->partitioned, &a->req);
  if (!p || p->dropped)
    return;
  /* The decoder's mapping (model/decode-partitioned.c), backwards. */
  TsPartitionedEvent e = a->kind == TS_ACTION_PSTART
                           ? (p->receive ? TS_P_PRECV_REQUEST : TS_P_PSEND_REQUEST)
                         : a->kind == TS_ACTION_PREADY    ? TS_P_PREADY
                         : a->kind == TS_ACTION_PARRIVED  ? TS_P_PARRIVED
                         : a->kind == TS_ACTION_PTESTED   ? TS_P_PTESTED
                         : p->receive                     ? TS_P_PRECV_COMPLETE
                                                          : TS_P_PSEND_COMPLETE;
  ts_archive_writer_partitioned (s->w, r, rs->clock, e, a->req, (guint32) a->partition, 0, 0, 0,
                                 0);
}

gboolean
ts_synth_is_mpi_call (const TsTrace *trace, guint32 region)
{
  return region < ts_trace_n_regions (trace) && ts_trace_region_call (trace, region) != TS_CALL_USER;
}

/* One template action, written for output rank @rs. Time runs on the rank's
 * own clock: compute at its modelled length, each MPI call as long as it
 * took in the template (the replay recomputes its waiting anyway). */
void
ts_synth_write_action (Synth *s, RankState *rs, const TsAction *a)
{
  guint r = rs->r;
  switch (a->kind)
    {
    case TS_ACTION_ENTER:
      if (ts_synth_is_mpi_call (s->trace, a->region))
        rs->call_enter = rs->clock;
      ts_archive_writer_enter (s->w, r, rs->clock, a->region);
      break;
    case TS_ACTION_LEAVE:
      if (ts_synth_is_mpi_call (s->trace, a->region))
        rs->clock = MAX (rs->clock, rs->call_enter + a->seconds);
      if (rs->collective_open)
        {
          const TsAction *c = &rs->collective;
          ts_archive_writer_collective_end (s->w, r, rs->clock, c->op, c->comm, c->peer,
                                            c->bytes, c->bytes_recv);
          rs->collective_open = FALSE;
        }
      ts_archive_writer_leave (s->w, r, rs->clock, a->region);
      break;
    case TS_ACTION_COMPUTE:
      /* A burst tagged with an MPI call is time inside that call; one outside
       * every region is compute too (an uninstrumented program's). */
      rs->clock += a->seconds * (ts_synth_is_mpi_call (s->trace, a->region) ? 1
                                 : rs->compute_factor[MIN (a->region, rs->outside)]);
      break;
    case TS_ACTION_SEND:
    case TS_ACTION_RECV:
    case TS_ACTION_ISEND:
    case TS_ACTION_IRECV:
      point_to_point (s, rs, a);
      break;
    case TS_ACTION_WAIT:
    case TS_ACTION_TEST:
      complete (s, rs, a);
      break;
    case TS_ACTION_COLLECTIVE:
      collective (s, rs, a);
      break;
    case TS_ACTION_ICOLLECTIVE:
      icollective (s, rs, a);
      break;
    case TS_ACTION_PINIT:
    case TS_ACTION_PSTART:
    case TS_ACTION_PREADY:
    case TS_ACTION_PARRIVED:
    case TS_ACTION_PTESTED:
    case TS_ACTION_PCOMPLETE:
      partitioned (s, rs, a);
      break;
    default:
      break;
    }
}

static gboolean
write_rank (Synth *s, const TsSpool *actions, guint r, GError **error)
{
  guint n_regions = ts_trace_n_regions (s->trace);
  RankState rs = {
    .r = r,
    .t = ts_extrap_template_rank (s->m, r),
    .sent = g_hash_table_new (NULL, NULL),
    .received = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL),
    .posted = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free),
    .partitioned = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free),
    .compute_factor = g_new (double, n_regions + 1),
    .outside = n_regions,
  };
  for (guint g = 0; g <= n_regions; g++)
    rs.compute_factor[g] = s->region_model[g]
                           ? ts_extrap_compute_factor (s->m, s->region_model[g], rs.t) : 1;
  if (s->doubling)
    ts_synth_leave_room (s, rs.t, rs.compute_factor);
  rs.partners = g_array_new (FALSE, FALSE, sizeof (guint32));
  rs.expanded = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                       (GDestroyNotify) g_array_unref);
  rs.next_req = FRESH_REQUESTS;
  rs.mirror = ts_extrap_mirror_mask (s->m, r);
  ts_pattern_partners (&s->m->at_target, s->m->target, r, rs.partners);
  rs.forced_slot = G_MAXUINT;
  const GArray *loops = s->loops ? ts_partner_loops_of (s->loops, rs.t) : NULL;
  if (s->doubling)
    ts_synth_doubling_begin (s, actions, &rs);
  guint next_loop = 0;
  g_autoptr (GArray) held = g_array_new (FALSE, FALSE, sizeof (TsAction));
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (actions, rs.t);
  const TsAction *a;
  GError *local = NULL;
  for (guint64 i = 0; !local && (a = ts_spool_reader_next (rd, &local)); i++)
    {
      if (s->doubling && ts_synth_doubling_take (s, &rs, a, i, held, &local))
        continue;
      const TsPartnerLoop *loop = loops && next_loop < loops->len
                                  ? &g_array_index (loops, TsPartnerLoop, next_loop) : NULL;
      if (!loop || i < loop->first)
        {
          ts_synth_write_action (s, &rs, a);
          continue;
        }
      g_array_append_vals (held, a, 1);
      if (i + 1 == loop->end)
        {
          ts_synth_repeat_loop (s, &rs, loop, held);
          g_array_set_size (held, 0);
          next_loop++;
        }
    }
  if (s->doubling)
    ts_synth_doubling_end (&rs);
  g_array_unref (rs.partners);
  g_hash_table_unref (rs.expanded);
  g_hash_table_unref (rs.sent);
  g_hash_table_unref (rs.received);
  g_hash_table_unref (rs.posted);
  g_hash_table_unref (rs.partitioned);
  g_free (rs.compute_factor);
  if (local)
    g_propagate_error (error, local);
  return local == NULL;
}

/* The template's actions, resolved once, kept where every output rank
 * written from the same template rank can read them again. */
static TsSpool *
spool_template (const TsScaleProfile *t, GError **error)
{
  g_autoptr (TsSpool) spool = ts_spool_new (t->n_ranks, sizeof (TsAction), 16384, error);
  if (!spool)
    return NULL;
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (t->calibration, t->trace, error);
  if (!stream)
    return NULL;
  for (guint r = 0; r < t->n_ranks; r++)
    {
      TsAction a;
      GError *local = NULL;
      while (ts_action_stream_next (stream, r, &a, &local))
        ts_spool_append (spool, r, &a);
      if (local)
        {
          g_propagate_error (error, local);
          return NULL;
        }
    }
  return ts_spool_finish (spool, error) ? g_steal_pointer (&spool) : NULL;
}

/* collect_send_slots' state: the rank read, and its sends so far to
 * each neighbour. */
typedef struct {
  Synth *s;
  guint t;
  GHashTable *sent;
} SlotReading;

static void
note_send_slot (gpointer data, guint t, const TsAction *a, guint q, const guint *slots, guint n)
{
  SlotReading *sr = data;
  if (n < 2)
    return;
  if (t != sr->t)
    {
      g_hash_table_remove_all (sr->sent);
      sr->t = t;
    }
  guint seen = GPOINTER_TO_UINT (g_hash_table_lookup (sr->sent, GUINT_TO_POINTER (q)));
  g_hash_table_insert (sr->sent, GUINT_TO_POINTER (q), GUINT_TO_POINTER (seen + 1));
  char *key = slots_key (t, q, a->tag);
  GByteArray *list = g_hash_table_lookup (sr->s->send_slots, key);
  if (!list)
    g_hash_table_insert (sr->s->send_slots, g_strdup (key), list = g_byte_array_new ());
  g_free (key);
  guint8 slot = (guint8) slots[seen % n];
  g_byte_array_append (list, &slot, 1);
}

/* The slots of every template send to a neighbour reached through several
 * (multi_way_slot), read once from the spooled actions. */
static gboolean
collect_send_slots (Synth *s, const TsSpool *actions, GError **error)
{
  const TsPattern *at = &s->m->pattern;
  gboolean two_way = FALSE;
  for (guint k = 0; at->kind == TS_PATTERN_CARTESIAN && k < at->n_dims; k++)
    two_way |= at->periodic[k] && at->dims[k] == 2;
  if (!two_way)
    return TRUE;  /* no neighbour is both neighbours: nothing to read */
  g_autoptr (GHashTable) sent = g_hash_table_new (NULL, NULL);
  SlotReading sr = { s, 0, sent };
  return ts_extrap_each_template_send (s->m, at, s->trace, actions, note_send_slot, &sr, error);
}

static void
synth_init (Synth *s, const TsExtrapModel *m)
{
  const TsTrace *trace = TS_EXTRAP_TEMPLATE (m)->trace;
  guint n_regions = ts_trace_n_regions (trace);
  *s = (Synth) { .m = m, .trace = trace, .blocking_twin = -1 };
  s->region_model = g_new0 (const TsRegionModel *, n_regions + 1);
  for (guint g = 0; g < n_regions; g++)
    s->region_model[g] = ts_extrap_region (m, ts_trace_region_name (trace, g));
  s->region_model[n_regions] = ts_extrap_region (m, TS_PROFILE_OUTSIDE_REGIONS);
  for (guint k = 0; k < TS_EXTRAP_MAX_CLASSES; k++)
    s->bytes_factor[k] = ratio (m->bytes[k].at_target, m->bytes[k].at_template);
  s->collective_factor = g_new (double, MAX (m->collectives->len, 1));
  for (guint i = 0; i < m->collectives->len; i++)
    {
      const TsCollectiveModel *c = &g_array_index (m->collectives, TsCollectiveModel, i);
      s->collective_factor[i] = ratio (c->bytes.at_target, c->bytes.at_template);
    }
  s->class_comms = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  s->send_slots = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_byte_array_unref);
  s->flows = ts_extrap_flows_new ();
}

gboolean
ts_extrap_synthesize (const TsExtrapModel *m, const char *dir, GString *notes, GError **error)
{
  g_autoptr (TsSpool) actions = spool_template (TS_EXTRAP_TEMPLATE (m), error);
  if (!actions)
    return FALSE;
  Synth s;
  synth_init (&s, m);
  gboolean ok = collect_send_slots (&s, actions, error)
               && ts_extrap_slot_tags (m, s.trace, actions, s.send_tag, error);
  gboolean template_ok = FALSE;
  ok = ok && ts_extrap_template_balanced (s.trace, TS_EXTRAP_TEMPLATE (m)->n_ranks, actions,
                                          &template_ok, error);
  if (ok && (m->pattern.kind == TS_PATTERN_ALL_TO_ALL
             || m->pattern.kind == TS_PATTERN_MASTER_WORKER))
    {
      s.loops = ts_partner_loops_find (m, actions, error);
      ok = s.loops != NULL;
      if (ok && notes)
        ts_partner_loops_describe (s.loops, m->target, notes);
    }
  if (ok && m->pattern.kind == TS_PATTERN_BUTTERFLY && m->at_target.dims[1] > m->pattern.dims[1])
    ok = (s.doubling = ts_doubling_runs_find (m, actions, error)) != NULL;
  s.w = ok ? ts_archive_writer_new (dir, "traces", m->target, error) : NULL;
  ok = ok && s.w != NULL;
  if (ok)
    {
      ts_archive_writer_set_origin (s.w, ts_trace_creator (s.trace));
      /* The template's regions under their own indices. */
      for (guint g = 0; g < ts_trace_n_regions (s.trace); g++)
        ts_archive_writer_define_region (s.w, ts_trace_region_name (s.trace, g),
                                         ts_synth_is_mpi_call (s.trace, g) ? TS_REGION_MPI
                                                                  : TS_REGION_USER);
    }
  for (guint r = 0; ok && r < m->target; r++)
    ok = write_rank (&s, actions, r, error);
  if (ok && s.blocking_twin >= 0)
    {
      ok = FALSE;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "cannot extrapolate: rank %d of %u is inside an open dimension that no input "
                   "shows with three ranks or more; joined from the ends, its exchanges with its "
                   "upper neighbours would be the mirror of its lower ones, and these receive in "
                   "blocking calls (MPI_Recv, MPI_Sendrecv), which a mirror may deadlock: trace "
                   "a rank count with three ranks or more along it. Nothing was written",
                   s.blocking_twin, m->target);
    }
  /* A mirrored interior is held to pairing up even where the template's
   * own messages did not: it is the mirror that is checked. */
  if (ok && !ts_extrap_check_balance (s.flows, m->target,
                                      template_ok || ts_extrap_mirror_dims (m), error))
    {
      ok = FALSE;
      if (ts_extrap_mirror_dims (m) && error && *error)
        {
          /* The likelier cause: an exchange that is no mirror image. */
          char *said = (*error)->message;
          (*error)->message = g_strdup_printf ("%s. Ranks inside an open dimension that no input "
                                               "shows with three ranks or more were written as "
                                               "the ends' exchanges joined, the one end's mirrored, "
                                               "which holds for a symmetric halo exchange, not for "
                                               "one that sends one way (a wavefront): trace a "
                                               "rank count with three ranks or more along it",
                                               said);
          g_free (said);
        }
    }
  if (ok)
    ok = ts_archive_writer_close (g_steal_pointer (&s.w), error);
  ts_archive_writer_abort (s.w);
  g_free (s.region_model);
  g_free (s.collective_factor);
  g_hash_table_unref (s.class_comms);
  g_hash_table_unref (s.send_slots);
  g_hash_table_unref (s.flows);
  ts_partner_loops_free (s.loops);
  ts_doubling_runs_free (s.doubling);
  return ok;
}
