#include <config.h>

#define G_LOG_DOMAIN "tracesim-grid"

#include "tools/tracegen/grid.h"
#include "tools/tracegen/stencil.h"

#include "extrap/pattern.h"
#include "model/archive_writer.h"
#include "model/otf2-chunk.h"

#include <gio/gio.h>
#include <math.h>

/* As many as an OTF2 archive can define (model/otf2-chunk.h). */
#define TS_GRID_MAX_RANKS TS_OTF2_MAX_GROUP_MEMBERS

/* One rank's view of the grid: each slot an offset (pattern.h) to a
 * neighbour; faces only: slot 2k + (dir > 0) is the neighbour one step down
 * (dir -1) or up along dimension k. */
typedef struct {
  const TsGridParams *p;
  TsPattern at;
  guint n_slots;
  TsStencilRegions reg;
  guint offset[TS_PATTERN_MAX_OFFSETS];      /* each slot's */
  guint opposite[TS_PATTERN_MAX_OFFSETS];    /* the slot a message through it arrives on */
  gint32 tag[TS_PATTERN_MAX_OFFSETS];
  double message[TS_PATTERN_MAX_OFFSETS];    /* transfer time through each slot */
  guint64 bytes[TS_PATTERN_MAX_OFFSETS];
} Grid;

void
ts_grid_params_init (TsGridParams *params)
{
  g_return_if_fail (params != NULL);
  *params = (TsGridParams) {
    .n_ranks = 4, .n_dims = 2, .iterations = 10, .compute = 1e-3, .imbalance = 1.0,
    .boundary = 1.0,
    .bytes = 4096, .edge_bytes = 256, .corner_bytes = 16, .allreduce_every = 10,
  };
}

guint64
ts_grid_message_bytes (const TsGridParams *p, const guint *dims, guint k)
{
  if (!p->strong)
    return p->bytes;
  guint64 others = 1;
  for (guint e = 0; e < p->n_dims; e++)
    if (e != k)
      others *= dims[e];
  return p->bytes / others;
}

guint64
ts_grid_offset_bytes (const TsGridParams *p, const guint *dims, guint mask)
{
  if ((mask & (mask - 1)) == 0)
    return ts_grid_message_bytes (p, dims, (guint) g_bit_nth_lsf (mask, -1));
  guint steps = 0;
  for (guint k = 0; k < p->n_dims; k++)
    steps += (mask >> k) & 1;
  if (steps == p->n_dims)
    return p->corner_bytes;
  /* An edge of a 3-D grid: it runs along the one dimension not stepped. */
  guint64 along = 1;
  for (guint k = 0; p->strong && k < p->n_dims; k++)
    if (!(mask & (1u << k)))
      along = dims[k];
  return p->edge_bytes / along;
}

static gint
slot_neighbour (const Grid *g, guint r, guint s)
{
  gint q = ts_pattern_offset_neighbour (&g->at, r, g->offset[s]);
  return q == (gint) r ? -1 : q;
}

/* Compute, then the irecvs and isends up to the Waitall's enter; @sent gets
 * each slot's isend time. */
static void
post_halo (TsArchiveWriter *w, const Grid *g, guint r, guint64 i, double *clock, double *sent)
{
  const TsGridParams *p = g->p;
  double t = *clock;
  double c = (p->strong ? p->compute / p->n_ranks : p->compute) * (r == 0 ? p->imbalance : 1)
             * (ts_pattern_role (&g->at, p->n_ranks, r) != 0 ? p->boundary : 1);
  ts_archive_writer_enter (w, r, t, g->reg.compute);
  t += c;
  ts_archive_writer_leave (w, r, t, g->reg.compute);
  guint64 base = i * 2 * g->n_slots;
  for (guint s = 0; s < g->n_slots; s++)
    if (slot_neighbour (g, r, s) >= 0)
      {
        ts_archive_writer_enter (w, r, t, g->reg.irecv);
        ts_archive_writer_irecv_request (w, r, t, base + s);
        t += TS_STENCIL_OVERHEAD;
        ts_archive_writer_leave (w, r, t, g->reg.irecv);
      }
  for (guint s = 0; s < g->n_slots; s++)
    {
      gint q = slot_neighbour (g, r, s);
      if (q < 0)
        continue;
      /* Faces only: sent up (s odd) travels with tag 2k + 1. */
      ts_archive_writer_enter (w, r, t, g->reg.isend);
      ts_archive_writer_isend (w, r, t, (guint32) q, 0, g->tag[s], g->bytes[s],
                               base + g->n_slots + s);
      sent[s] = t;
      t += TS_STENCIL_OVERHEAD;
      ts_archive_writer_leave (w, r, t, g->reg.isend);
    }
  ts_archive_writer_enter (w, r, t, g->reg.waitall);
  *clock = t;
}

/* The Waitall: it ends when the last incoming message has arrived; the one
 * on a slot is the one its neighbour sent through the opposite offset. */
static void
finish_halo (TsArchiveWriter *w, const Grid *g, guint r, guint64 i, double *clock,
             const double *sent)
{
  double end = clock[r] + TS_STENCIL_OVERHEAD;
  for (guint s = 0; s < g->n_slots; s++)
    {
      gint q = slot_neighbour (g, r, s);
      if (q >= 0)
        end = MAX (end, sent[(guint) q * g->n_slots + g->opposite[s]] + g->message[s]);
    }
  guint64 base = i * 2 * g->n_slots;
  for (guint s = 0; s < g->n_slots; s++)
    {
      gint q = slot_neighbour (g, r, s);
      if (q >= 0)
        ts_archive_writer_irecv (w, r, end, (guint32) q, 0, g->tag[g->opposite[s]], g->bytes[s],
                                 base + s);
    }
  for (guint s = 0; s < g->n_slots; s++)
    if (slot_neighbour (g, r, s) >= 0)
      ts_archive_writer_isend_complete (w, r, end, base + g->n_slots + s);
  ts_archive_writer_leave (w, r, end, g->reg.waitall);
  clock[r] = end;
}

static void
allreduce (TsArchiveWriter *w, const Grid *g, double *clock)
{
  guint n = g->p->n_ranks;
  double last = 0;
  for (guint r = 0; r < n; r++)
    last = MAX (last, clock[r]);
  double end = last + ts_stencil_allreduce_seconds (n);
  for (guint r = 0; r < n; r++)
    {
      ts_archive_writer_enter (w, r, clock[r], g->reg.allreduce);
      ts_archive_writer_collective_begin (w, r, clock[r]);
      ts_archive_writer_collective_end (w, r, end, TS_COLL_ALLREDUCE, 0, TS_NO_RANK,
                                        TS_STENCIL_ALLREDUCE_BYTES, TS_STENCIL_ALLREDUCE_BYTES);
      ts_archive_writer_leave (w, r, end, g->reg.allreduce);
      clock[r] = end;
    }
}

static gboolean
check_params (const TsGridParams *p, GError **error)
{
  const char *bad = NULL;
  if (p->n_ranks == 0 || p->n_ranks > TS_GRID_MAX_RANKS)
    bad = "--ranks must be from 1 to 4194291";
  else if (p->n_dims < 1 || p->n_dims > TS_PATTERN_MAX_DIMS)
    bad = "--dims must be 1, 2 or 3";
  else if (!isfinite (p->compute) || p->compute < 0)
    bad = "--compute must be a number of seconds >= 0";
  else if (!isfinite (p->imbalance) || p->imbalance < 0)
    bad = "--imbalance must be a factor >= 0";
  else if (!isfinite (p->boundary) || p->boundary < 0)
    bad = "--boundary-factor must be a factor >= 0";
  if (bad)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, bad);
  return bad == NULL;
}

static void
grid_init (Grid *g, const TsGridParams *p, TsArchiveWriter *w)
{
  TsPattern pattern = { TS_PATTERN_CARTESIAN, p->n_dims,
                        .order = p->largest_last ? ts_pattern_order_reversed (p->n_dims) : 0,
                        .diagonal = p->diagonal };
  for (guint k = 0; k < p->n_dims; k++)
    pattern.periodic[k] = !p->open;
  *g = (Grid) { .p = p, .at = ts_pattern_at (&pattern, p->n_ranks) };
  guint n_offsets = ts_pattern_n_offsets (p->n_dims), slot_of[TS_PATTERN_MAX_OFFSETS];
  for (guint k = 0; !p->diagonal && k < p->n_dims; k++)
    for (int dir = -1; dir <= 1; dir += 2)
      {
        g->tag[g->n_slots] = (gint32) g->n_slots;
        g->offset[g->n_slots++] = ts_pattern_face_offset (p->n_dims, k, dir);
      }
  for (guint o = 0; p->diagonal && o < n_offsets; o++)
    if (ts_pattern_offset_used (&g->at, o))
      {
        g->tag[g->n_slots] = (gint32) o;
        g->offset[g->n_slots++] = o;
      }
  for (guint s = 0; s < g->n_slots; s++)
    slot_of[g->offset[s]] = s;
  for (guint s = 0; s < g->n_slots; s++)
    {
      g->opposite[s] = slot_of[ts_pattern_offset_opposite (p->n_dims, g->offset[s])];
      g->bytes[s] = ts_grid_offset_bytes (p, g->at.dims,
                                          ts_pattern_offset_mask (p->n_dims, g->offset[s]));
      g->message[s] = TS_STENCIL_LATENCY + (double) g->bytes[s] / TS_STENCIL_BANDWIDTH;
    }
  ts_stencil_define_regions (w, &g->reg);
}

gboolean
ts_grid_write (const TsGridParams *p, const char *dir, const char *name, GError **error)
{
  g_return_val_if_fail (p != NULL && dir != NULL && name != NULL, FALSE);
  if (!check_params (p, error))
    return FALSE;
  TsArchiveWriter *w = ts_archive_writer_new (dir, name, p->n_ranks, error);
  if (!w)
    return FALSE;
  Grid g;
  grid_init (&g, p, w);
  guint n = p->n_ranks;
  g_autofree double *clock = g_new0 (double, n);
  g_autofree double *sent = g_new0 (double, (gsize) n * g.n_slots);
  for (guint r = 0; r < n; r++)
    ts_archive_writer_enter (w, r, 0.0, g.reg.main);
  for (guint64 i = 0; i < p->iterations; i++)
    {
      for (guint r = 0; r < n; r++)
        post_halo (w, &g, r, i, &clock[r], &sent[(gsize) r * g.n_slots]);
      for (guint r = 0; r < n; r++)
        finish_halo (w, &g, r, i, clock, sent);
      if (p->allreduce_every != 0 && (i + 1) % p->allreduce_every == 0)
        allreduce (w, &g, clock);
    }
  for (guint r = 0; r < n; r++)
    ts_archive_writer_leave (w, r, clock[r], g.reg.main);
  return ts_archive_writer_close (w, error);
}
