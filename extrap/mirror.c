#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

/* Interiors along an open dimension that no input shows: where the largest
 * input has two ranks along an open dimension (both ends, no interior) and
 * the output has more, an interior rank is written from the high end (its
 * template rank, ts_extrap_template_rank), which exchanges with its low
 * neighbour only. Its exchanges with the high neighbour are the mirror
 * images of those: every point-to-point action through a slot stepping
 * down along such a dimension gets a twin stepping up, with the size of
 * its own, the tag the template's messages through that direction carry
 * (codes that tag by direction) and, for a non-blocking one, a fresh
 * request that the original's wait completes too. A halo exchange stays
 * one; a pattern whose interior does something else than both ends' halves
 * (a wavefront: receive from below, then send above) no longer pairs up,
 * which the balance check (balance.c) refuses before anything is kept; a
 * blocking receive's twin could deadlock, and synth.c refuses it. */
#include "extrap/extrap-private.h"

#include <gio/gio.h>

guint
ts_extrap_mirror_dims (const TsExtrapModel *m)
{
  const TsPattern *t = &m->pattern, *r = &m->at_target;
  guint mask = 0;
  for (guint k = 0; t->kind == TS_PATTERN_CARTESIAN && k < t->n_dims; k++)
    if (!t->periodic[k] && t->dims[k] == 2 && r->dims[k] >= 3)
      mask |= 1u << k;
  return mask;
}

guint
ts_extrap_mirror_mask (const TsExtrapModel *m, guint r)
{
  guint dims = ts_extrap_mirror_dims (m), mask = 0;
  if (!dims)
    return 0;
  guint c[TS_PATTERN_MAX_DIMS];
  ts_pattern_coords (&m->at_target, r, c);
  for (guint k = 0; k < m->at_target.n_dims; k++)
    if ((dims & (1u << k)) && c[k] > 0 && c[k] + 1 < m->at_target.dims[k])
      mask |= 1u << k;
  return mask;
}

guint
ts_extrap_mirror_slots (guint n_dims, guint slot, guint mask, guint *out)
{
  /* The dimensions of @mask the slot steps down along: each non-empty
   * subset of them flipped up is a twin. */
  guint down[TS_PATTERN_MAX_DIMS], n_down = 0, n = 0;
  for (guint k = 0; k < n_dims; k++)
    if ((mask & (1u << k)) && ts_pattern_offset_step (slot, k) < 0)
      down[n_down++] = k;
  for (guint subset = 1; subset < (1u << n_down); subset++)
    {
      guint twin = slot;
      for (guint j = 0; j < n_down; j++)
        if (subset & (1u << j))
          twin = ts_pattern_offset_with_step (twin, down[j], 1);
      out[n++] = twin;
    }
  return n;
}

/* No tag known for a slot, or several. */
#define NO_TAG G_MININT32
#define MIXED_TAGS (G_MININT32 + 1)

/* A send through one slot only (ts_extrap_each_template_send): its tag
 * is that slot's, unless the slot's sends carry several. */
static void
note_tag (gpointer data, guint t, const TsAction *a, guint q, const guint *slots, guint n)
{
  (void) t;
  (void) q;
  gint32 *send_tag = data;
  if (n != 1)
    return;
  gint32 *known = &send_tag[slots[0]];
  *known = *known == NO_TAG || *known == a->tag ? a->tag : MIXED_TAGS;
}

gboolean
ts_extrap_slot_tags (const TsExtrapModel *m, const TsTrace *trace, const TsSpool *actions,
                     gint32 *send_tag, GError **error)
{
  for (guint o = 0; o < TS_PATTERN_MAX_OFFSETS; o++)
    send_tag[o] = NO_TAG;
  if (!ts_extrap_mirror_dims (m))
    return TRUE;
  return ts_extrap_each_template_send (m, &m->pattern, trace, actions, note_tag, send_tag,
                                       error);
}

gint32
ts_extrap_mirror_tag (const gint32 *send_tag, guint n_dims, guint twin, gboolean receive,
                      gint32 tag)
{
  /* A receive through @twin takes what its sender sent through the
   * opposite slot. */
  gint32 known = send_tag[receive ? ts_pattern_offset_opposite (n_dims, twin) : twin];
  return known == NO_TAG || known == MIXED_TAGS ? tag : known;
}
