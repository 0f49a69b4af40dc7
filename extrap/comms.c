#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

/* Communicators of collectives as classes that exist at any P: the world;
 * a sub-grid of the process grid (the ranks that share their coordinates
 * along the dimensions outside its mask: a row, a column, a plane); blocks
 * of consecutive ranks of a fixed size (a node's ranks, as
 * MPI_Comm_split_type gives them); every size-th rank (one per such block:
 * the nodes' leaders). */
#include "extrap/extrap-private.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

/* The sub-grid of @at along the dimensions in @mask through rank @r (the
 * ranks sharing its coordinates along the others), in row-major order,
 * appended to @out (guint32). */
static void
subgrid_members (const TsPattern *at, guint mask, guint r, GArray *out)
{
  guint c[TS_PATTERN_MAX_DIMS], n = 1;
  for (guint k = 0; k < at->n_dims; k++)
    if (mask & (1u << k))
      n *= at->dims[k];
  ts_pattern_coords (at, r, c);
  for (guint i = 0; i < n; i++)
    {
      guint rest = i;
      for (gint k = (gint) at->n_dims - 1; k >= 0; k--)
        if (mask & (1u << k))
          {
            c[k] = rest % at->dims[k];
            rest /= at->dims[k];
          }
      guint32 q = ts_pattern_rank_at (at, c);
      g_array_append_val (out, q);
    }
}

/* Is @members (world ranks, in communicator order) the sub-grid of @at
 * along the dimensions in @mask through its first member? */
static gboolean
is_subgrid (const TsPattern *at, guint mask, guint n, const guint32 *members)
{
  g_autoptr (GArray) grid = g_array_new (FALSE, FALSE, sizeof (guint32));
  subgrid_members (at, mask, members[0], grid);
  return grid->len == n && memcmp (grid->data, members, n * sizeof *members) == 0;
}

gint
ts_extrap_comm_class (const TsPattern *at, guint p, guint n, const guint32 *members)
{
  if (n == p)
    return TS_COMM_WORLD_CLASS;
  if (n == 1)
    return TS_COMM_SELF_CLASS;
  if (!members)
    return TS_COMM_OTHER_CLASS;
  for (guint mask = 1;
       (at->kind == TS_PATTERN_CARTESIAN || at->kind == TS_PATTERN_BUTTERFLY)
       && mask < (1u << at->n_dims);
       mask++)
    if (is_subgrid (at, mask, n, members))
      return TS_COMM_CLASS_SUBGRID (mask);
  gboolean block = members[0] % n == 0, stride = n >= 2 && members[1] > members[0] + 1;
  guint step = stride ? members[1] - members[0] : 0;
  for (guint i = 1; i < n; i++)
    {
      block &= members[i] == members[0] + i;
      stride &= members[i] == members[0] + i * step;
    }
  if (block)
    return TS_COMM_CLASS_BLOCK (n);
  if (stride && members[0] < step && n == (p - members[0] + step - 1) / step)
    return TS_COMM_CLASS_STRIDE (step);
  return TS_COMM_OTHER_CLASS;
}

void
ts_extrap_class_members (const TsExtrapModel *m, gint klass, guint r, GArray *out)
{
  guint p = m->target, param = TS_COMM_CLASS_PARAM (klass);
  g_array_set_size (out, 0);
  switch (TS_COMM_CLASS_KIND (klass))
    {
    case TS_COMM_KIND_SUBGRID:
      subgrid_members (&m->at_target, param, r, out);
      break;
    case TS_COMM_KIND_BLOCK:
      for (guint32 q = r / param * param; q < MIN (p, r / param * param + param); q++)
        g_array_append_val (out, q);
      break;
    default:
      for (guint32 q = r % param; q < p; q += param)
        g_array_append_val (out, q);
      break;
    }
}

const char *
ts_extrap_class_name (gint klass, char *buffer, gsize size)
{
  if (klass == TS_COMM_WORLD_CLASS)
    return "MPI_COMM_WORLD";
  guint param = TS_COMM_CLASS_PARAM (klass);
  switch (TS_COMM_CLASS_KIND (klass))
    {
    case TS_COMM_KIND_SUBGRID:
      if ((param & (param - 1)) == 0)
        {
          g_snprintf (buffer, size, "grid lines along dimension %d", g_bit_nth_lsf (param, -1) + 1);
          return buffer;
        }
      g_snprintf (buffer, size, "grid sub-grids along dimensions%s%s%s",
                  param & 1 ? " 1" : "", param & 2 ? " 2" : "", param & 4 ? " 3" : "");
      return buffer;
    case TS_COMM_KIND_BLOCK:
      g_snprintf (buffer, size, "blocks of %u consecutive ranks", param);
      return buffer;
    default:
      g_snprintf (buffer, size, "every %u-th rank", param);
      return buffer;
    }
}

/* Every rank calls each operation on its communicator of a block or stride
 * class, as often as the others: at P each output rank calls its own
 * instance as its template rank did, which is consistent only then (a
 * communicator of the nodes' leaders that the other ranks never enter
 * would be entered at P by ranks that are no leaders). */
gboolean
ts_extrap_check_coverage (const TsExtrapModel *m, GError **error)
{
  const TsScaleProfile *t = TS_EXTRAP_TEMPLATE (m);
  for (guint u = 0; u < t->collectives->len; u++)
    {
      const TsCollectiveUse *a = &g_array_index (t->collectives, TsCollectiveUse, u);
      gint klass = m->comm_class[a->comm];
      if (klass < 0 || TS_COMM_CLASS_KIND (klass) == TS_COMM_KIND_SUBGRID)
        continue;
      guint covered = 0, size_a = ts_trace_comm_size (t->trace, a->comm);
      gboolean even = TRUE;
      for (guint v = 0; v < t->collectives->len; v++)
        {
          const TsCollectiveUse *b = &g_array_index (t->collectives, TsCollectiveUse, v);
          if (b->op != a->op || m->comm_class[b->comm] != klass)
            continue;
          guint size_b = ts_trace_comm_size (t->trace, b->comm);
          covered += size_b;
          even &= b->calls * size_a == a->calls * size_b;
        }
      if (covered != t->n_ranks || !even)
        {
          char name[64];
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "cannot extrapolate: %s runs %s on %s, but %s: at P the ranks that "
                       "call it cannot be derived", t->path, ts_collective_name (a->op),
                       ts_extrap_class_name (klass, name, sizeof name),
                       covered != t->n_ranks ? "not every rank is in such a communicator"
                                             : "not as often on each of them");
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- bytes of collectives ------------------------------------------------- */

static gint
comm_class (const TsScaleProfile *p, const TsPattern *at, guint comm)
{
  return ts_extrap_comm_class (at, p->n_ranks, ts_trace_comm_size (p->trace, comm),
                               ts_trace_comm_members (p->trace, comm));
}

static TsCollectiveModel *
collective_model (TsExtrapModel *m, guint8 op, gint klass)
{
  for (guint i = 0; i < m->collectives->len; i++)
    {
      TsCollectiveModel *c = &g_array_index (m->collectives, TsCollectiveModel, i);
      if (c->op == op && c->klass == klass)
        return c;
    }
  TsCollectiveModel c = { .op = op, .klass = klass };
  g_array_append_val (m->collectives, c);
  return &g_array_index (m->collectives, TsCollectiveModel, m->collectives->len - 1);
}

/* Bytes per call of each operation on each class of communicator, at one
 * scale, added as points. */
static gboolean
collect_collectives (TsExtrapModel *m, guint i, GError **error)
{
  const TsScaleProfile *p = m->inputs[i];
  TsPattern at = ts_pattern_at (&m->pattern, m->p[i]);
  for (guint u = 0; u < p->collectives->len; u++)
    {
      const TsCollectiveUse *use = &g_array_index (p->collectives, TsCollectiveUse, u);
      gint klass = comm_class (p, &at, use->comm);
      if (klass == TS_COMM_SELF_CLASS)
        continue;
      if (klass == TS_COMM_OTHER_CLASS)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "cannot extrapolate: %s at %u ranks runs %s on communicator '%s' of "
                       "%u ranks, which is neither MPI_COMM_WORLD, a row, column or plane of "
                       "the process grid, blocks of consecutive ranks nor every n-th rank: "
                       "its members at P cannot be derived", p->path, m->p[i],
                       ts_collective_name (use->op), ts_trace_comm_name (p->trace, use->comm),
                       ts_trace_comm_size (p->trace, use->comm));
          return FALSE;
        }
      TsCollectiveModel *c = collective_model (m, use->op, klass);
      ts_extrap_add_point (&c->bytes, m->p[i], (double) use->bytes_sent / use->calls);
    }
  return TRUE;
}

gboolean
ts_extrap_fit_collectives (TsExtrapModel *m, GError **error)
{
  for (guint i = 0; i < m->n_inputs; i++)
    if (!collect_collectives (m, i, error))
      return FALSE;
  for (guint i = 0; i < m->collectives->len; i++)
    {
      TsCollectiveModel *c = &g_array_index (m->collectives, TsCollectiveModel, i);
      if (!ts_extrap_fit_quantity (&c->bytes, TS_EXTRAP_BYTES_FLOOR, m->target, error))
        return FALSE;
      ts_extrap_finish_quantity (m, &c->bytes);
    }
  const TsScaleProfile *t = TS_EXTRAP_TEMPLATE (m);
  guint n_comms = ts_trace_n_comms (t->trace);
  m->comm_class = g_new (gint, MAX (n_comms, 1));
  for (guint c = 0; c < n_comms; c++)
    m->comm_class[c] = comm_class (t, &m->pattern, c);
  return ts_extrap_check_coverage (m, error);
}

void
ts_extrap_scale_root (const TsExtrapModel *m, const TsTrace *trace, const TsAction *a, guint t,
                      gint klass, guint r, guint size, TsAction *out)
{
  if (a->peer < 0 || ts_trace_comm_world_rank (trace, a->comm, t, (guint) a->peer) != t)
    return;
  guint local = r;
  if (klass != TS_COMM_WORLD_CLASS)
    {
      g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (guint32));
      ts_extrap_class_members (m, klass, r, members);
      for (local = 0; local < members->len && g_array_index (members, guint32, local) != r;)
        local++;
    }
  TsCollectiveShape shape = ts_collective_shape (a->op);
  guint was = ts_trace_comm_size (trace, a->comm);
  /* Written from the root, not the root at P (stretched): a member's side. */
  double grown = out->peer != (gint) local ? 0 : was > 0 ? (double) size / was : 1;
  if (shape == TS_COLL_SHAPE_ONE2N)
    out->bytes = (guint64) llround ((double) out->bytes * grown);
  else if (shape == TS_COLL_SHAPE_N2ONE)
    out->bytes_recv = (guint64) llround ((double) out->bytes_recv * grown);
}
