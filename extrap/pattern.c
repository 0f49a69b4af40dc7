#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/pattern.h"

#include "extrap/butterfly.h"

#include <stdlib.h>
#include <string.h>

/* ---- MPI_Dims_create ------------------------------------------------------ */

typedef struct {
  guint n_dims;
  guint cur[TS_PATTERN_MAX_DIMS];
  guint best[TS_PATTERN_MAX_DIMS];
  guint best_max, best_spread;
} DimsSearch;

/* Factorisations of @rest into the dimensions from @k on, none larger than
 * @limit (so each is found once, largest first). */
static void
dims_search (DimsSearch *s, guint k, guint rest, guint limit)
{
  if (k == s->n_dims - 1)
    {
      if (rest > limit)
        return;
      s->cur[k] = rest;
      guint max = s->cur[0], spread = s->cur[0] - s->cur[k];
      if (max < s->best_max || (max == s->best_max && spread < s->best_spread))
        {
          s->best_max = max;
          s->best_spread = spread;
          for (guint i = 0; i < s->n_dims; i++)
            s->best[i] = s->cur[i];
        }
      return;
    }
  for (guint d = MIN (rest, limit); d >= 1; d--)
    if (rest % d == 0)
      {
        s->cur[k] = d;
        dims_search (s, k + 1, rest / d, d);
      }
}

void
ts_dims_create (guint p, guint n_dims, guint *dims)
{
  g_return_if_fail (p >= 1 && n_dims >= 1 && n_dims <= TS_PATTERN_MAX_DIMS && dims);
  DimsSearch s = { .n_dims = n_dims, .best_max = G_MAXUINT, .best_spread = G_MAXUINT };
  dims_search (&s, 0, p, p);
  for (guint i = 0; i < n_dims; i++)
    dims[i] = s.best[i];
}

/* ---- the order of the dimensions --------------------------------------------- */

/* Permutations of 1, 2 and 3 dimensions, the identity first and the
 * reverse last: dimension k takes the perm[k]-th largest factor. */
static const guint8 perms1[1][3] = { { 0 } };
static const guint8 perms2[2][3] = { { 0, 1 }, { 1, 0 } };
static const guint8 perms3[6][3] = {
  { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

guint
ts_pattern_n_orders (guint n_dims)
{
  g_return_val_if_fail (n_dims >= 1 && n_dims <= TS_PATTERN_MAX_DIMS, 1);
  return n_dims == 1 ? 1 : n_dims == 2 ? 2 : 6;
}

guint
ts_pattern_order_reversed (guint n_dims)
{
  return ts_pattern_n_orders (n_dims) - 1;
}

static const guint8 *
order_perm (guint n_dims, guint order)
{
  g_return_val_if_fail (order < ts_pattern_n_orders (n_dims), perms3[0]);
  return n_dims == 1 ? perms1[0] : n_dims == 2 ? perms2[order] : perms3[order];
}

guint
ts_pattern_order_of (guint n_dims, const guint8 *factors)
{
  for (guint order = 0; order < ts_pattern_n_orders (n_dims); order++)
    if (memcmp (order_perm (n_dims, order), factors, n_dims) == 0)
      return order;
  return G_MAXUINT;
}

void
ts_pattern_order_factors (guint n_dims, guint order, guint8 *factors)
{
  memcpy (factors, order_perm (n_dims, order), n_dims);
}

/* ---- partners --------------------------------------------------------------- */

static int
compare_u32 (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y;
}

static void
add_unique (GArray *out, guint first, guint32 v, guint32 self)
{
  if (v == self)
    return;
  for (guint i = first; i < out->len; i++)
    if (g_array_index (out, guint32, i) == v)
      return;
  g_array_append_val (out, v);
}

void
ts_pattern_coords (const TsPattern *at, guint r, guint *coords)
{
  g_return_if_fail (at != NULL && coords != NULL
                    && (at->kind == TS_PATTERN_CARTESIAN || at->kind == TS_PATTERN_BUTTERFLY));
  for (gint k = (gint) at->n_dims - 1; k >= 0; k--)
    {
      coords[k] = r % at->dims[k];
      r /= at->dims[k];
    }
}

guint
ts_pattern_rank_at (const TsPattern *at, const guint *coords)
{
  g_return_val_if_fail (at != NULL && coords != NULL
                        && (at->kind == TS_PATTERN_CARTESIAN
                            || at->kind == TS_PATTERN_BUTTERFLY), 0);
  guint r = 0;
  for (guint k = 0; k < at->n_dims; k++)
    r = r * at->dims[k] + coords[k];
  return r;
}

gint
ts_pattern_neighbour (const TsPattern *at, guint r, guint k, int dir)
{
  g_return_val_if_fail (at != NULL && at->kind == TS_PATTERN_CARTESIAN && k < at->n_dims, -1);
  g_return_val_if_fail (dir == -1 || dir == 1, -1);
  guint coords[TS_PATTERN_MAX_DIMS];
  ts_pattern_coords (at, r, coords);
  guint d = at->dims[k], c = coords[k];
  if (!at->periodic[k] && ((dir < 0 && c == 0) || (dir > 0 && c + 1 == d)))
    return -1;
  coords[k] = (c + (dir > 0 ? 1 : d - 1)) % d;
  return (gint) ts_pattern_rank_at (at, coords);
}

/* ---- offsets ---------------------------------------------------------------- */

static guint
power3 (guint k)
{
  guint v = 1;
  while (k-- > 0)
    v *= 3;
  return v;
}

guint
ts_pattern_n_offsets (guint n_dims)
{
  return power3 (n_dims);
}

int
ts_pattern_offset_step (guint offset, guint k)
{
  return (int) (offset / power3 (k) % 3) - 1;
}

guint
ts_pattern_offset_with_step (guint offset, guint k, int step)
{
  return offset + (guint) ((step - ts_pattern_offset_step (offset, k)) * (gint) power3 (k));
}

guint
ts_pattern_face_offset (guint n_dims, guint k, int dir)
{
  g_return_val_if_fail (k < n_dims && n_dims <= TS_PATTERN_MAX_DIMS && (dir == -1 || dir == 1),
                        0);
  /* The middle (every digit 1: no step), digit k one less or one more. */
  return (guint) ((gint) (power3 (n_dims) - 1) / 2 + dir * (gint) power3 (k));
}

guint
ts_pattern_offset_mask (guint n_dims, guint offset)
{
  guint mask = 0;
  for (guint k = 0; k < n_dims; k++)
    if (ts_pattern_offset_step (offset, k) != 0)
      mask |= 1u << k;
  return mask;
}

guint
ts_pattern_offset_opposite (guint n_dims, guint offset)
{
  /* Each digit d becomes 2 - d. */
  return power3 (n_dims) - 1 - offset;
}

gboolean
ts_pattern_offset_used (const TsPattern *at, guint offset)
{
  if (at->kind == TS_PATTERN_BUTTERFLY)
    return ts_butterfly_slot_used (at, offset);
  guint mask = ts_pattern_offset_mask (at->n_dims, offset);
  return mask != 0 && (at->diagonal || (mask & (mask - 1)) == 0);
}

gint
ts_pattern_offset_neighbour (const TsPattern *at, guint r, guint offset)
{
  if (at != NULL && at->kind == TS_PATTERN_BUTTERFLY)
    return ts_butterfly_slot_neighbour (at, r, offset);
  g_return_val_if_fail (at != NULL && at->kind == TS_PATTERN_CARTESIAN, -1);
  guint coords[TS_PATTERN_MAX_DIMS];
  ts_pattern_coords (at, r, coords);
  for (guint k = 0; k < at->n_dims; k++)
    {
      int step = ts_pattern_offset_step (offset, k);
      guint d = at->dims[k], c = coords[k];
      if (step == 0)
        continue;
      if (d == 1 || (!at->periodic[k] && ((step < 0 && c == 0) || (step > 0 && c + 1 == d))))
        return -1;
      coords[k] = (c + (step > 0 ? 1 : d - 1)) % d;
    }
  return (gint) ts_pattern_rank_at (at, coords);
}

/* The neighbours on the grid, appended to @out from @first on, sorted. */
static void
cartesian_partners (const TsPattern *t, guint r, GArray *out, guint first)
{
  if (!t->diagonal)
    for (guint k = 0; k < t->n_dims; k++)
      for (int dir = -1; dir <= 1; dir += 2)
        {
          gint q = ts_pattern_neighbour (t, r, k, dir);
          if (q >= 0)
            add_unique (out, first, (guint32) q, r);
        }
  for (guint o = 0; t->diagonal && o < power3 (t->n_dims); o++)
    {
      gint q = ts_pattern_offset_used (t, o) ? ts_pattern_offset_neighbour (t, r, o) : -1;
      if (q >= 0)
        add_unique (out, first, (guint32) q, r);
    }
  /* Nothing to sort (one rank) may mean no data at all, which qsort must
   * not see. */
  if (out->len - first > 1)
    qsort (&g_array_index (out, guint32, first), out->len - first, sizeof (guint32),
           compare_u32);
}

static guint
grid_size (const TsPattern *t)
{
  guint size = 1;
  for (guint k = 0; k < t->n_dims; k++)
    size *= t->dims[k];
  return size;
}

void
ts_pattern_partners (const TsPattern *at, guint p, guint r, GArray *out)
{
  g_return_if_fail (at != NULL && out != NULL && r < p);
  g_return_if_fail ((at->kind != TS_PATTERN_CARTESIAN && at->kind != TS_PATTERN_BUTTERFLY)
                    || grid_size (at) == p);
  switch (at->kind)
    {
    case TS_PATTERN_CARTESIAN:
      cartesian_partners (at, r, out, out->len);
      break;
    case TS_PATTERN_BUTTERFLY:
      {
        guint first = out->len;
        ts_butterfly_partners (at, r, out);
        if (out->len - first > 1)
          qsort (&g_array_index (out, guint32, first), out->len - first, sizeof (guint32),
                 compare_u32);
      }
      break;
    case TS_PATTERN_ALL_TO_ALL:
      for (guint32 q = 0; q < p; q++)
        if (q != r)
          g_array_append_val (out, q);
      break;
    case TS_PATTERN_MASTER_WORKER:
      if (r == 0)
        for (guint32 q = 1; q < p; q++)
          g_array_append_val (out, q);
      else
        {
          guint32 master = 0;
          g_array_append_val (out, master);
        }
      break;
    default:
      break;
    }
}

TsPattern
ts_pattern_at (const TsPattern *t, guint p)
{
  TsPattern at = *t;
  if (at.kind == TS_PATTERN_CARTESIAN)
    {
      guint factors[TS_PATTERN_MAX_DIMS];
      const guint8 *perm = order_perm (at.n_dims, at.order);
      ts_dims_create (p, at.n_dims, factors);
      for (guint k = 0; k < at.n_dims; k++)
        at.dims[k] = factors[perm[k]];
    }
  else if (at.kind == TS_PATTERN_BUTTERFLY)
    ts_butterfly_dims (at.one_row, p, at.dims);
  return at;
}

/* ---- recognition ------------------------------------------------------------ */

/* @t (at @p) gives every rank the partners it had? */
static gboolean
matches (const TsPattern *t, guint p, GArray *const *partners)
{
  if ((t->kind == TS_PATTERN_CARTESIAN || t->kind == TS_PATTERN_BUTTERFLY)
      && grid_size (t) != p)
    return FALSE;  /* a butterfly at a P that is no power of two */
  g_autoptr (GArray) expected = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint r = 0; r < p; r++)
    {
      g_array_set_size (expected, 0);
      ts_pattern_partners (t, p, r, expected);
      const GArray *seen = partners[r];
      /* An empty GArray's data may be NULL, which memcmp must not see. */
      if (seen->len != expected->len
          || (seen->len > 0
              && memcmp (seen->data, expected->data, seen->len * sizeof (guint32)) != 0))
        return FALSE;
    }
  return TRUE;
}

/* Does @t describe every scale? */
static gboolean
matches_all (const TsPattern *t, guint n_scales, const guint *p, GArray *const *const *partners)
{
  for (guint i = 0; i < n_scales; i++)
    {
      TsPattern at = ts_pattern_at (t, p[i]);
      if (!matches (&at, p[i], partners[i]))
        return FALSE;
    }
  return TRUE;
}

/* The simplest grid of @nd dimensions in @order (periodic dimensions
 * before open ones) that describes every scale; kind IRREGULAR if none. */
static TsPattern
recognise_grid (guint n_scales, const guint *p, GArray *const *const *partners, guint nd,
                guint order, gboolean diagonal)
{
  /* Periodic before open: bit k of @open set means dimension k is open. */
  for (guint open = 0; open < (1u << nd); open++)
    {
      TsPattern t = { TS_PATTERN_CARTESIAN, nd, .order = order, .diagonal = diagonal };
      for (guint k = 0; k < nd; k++)
        t.periodic[k] = !(open & (1u << k));
      if (matches_all (&t, n_scales, p, partners))
        return ts_pattern_at (&t, p[n_scales - 1]);
    }
  return (TsPattern) { TS_PATTERN_IRREGULAR };
}

TsPattern
ts_pattern_recognise_grid (guint n_scales, const guint *p, GArray *const *const *partners,
                           guint n_dims, guint order, gboolean diagonal)
{
  g_return_val_if_fail (n_scales >= 1 && p != NULL && partners != NULL,
                        (TsPattern) { TS_PATTERN_IRREGULAR });
  g_return_val_if_fail (n_dims >= 1 && n_dims <= TS_PATTERN_MAX_DIMS
                        && order < ts_pattern_n_orders (n_dims),
                        (TsPattern) { TS_PATTERN_IRREGULAR });
  return recognise_grid (n_scales, p, partners, n_dims, order, diagonal);
}

TsPattern
ts_pattern_recognise_stencil (guint n_scales, const guint *p, GArray *const *const *partners)
{
  g_return_val_if_fail (n_scales >= 1 && p != NULL && partners != NULL,
                        (TsPattern) { TS_PATTERN_IRREGULAR });
  /* In 1-D the diagonal neighbours are the faces. */
  for (guint nd = 2; nd <= TS_PATTERN_MAX_DIMS; nd++)
    for (guint order = 0; order < ts_pattern_n_orders (nd); order++)
      {
        TsPattern t = recognise_grid (n_scales, p, partners, nd, order, TRUE);
        if (t.kind == TS_PATTERN_CARTESIAN)
          return t;
      }
  return (TsPattern) { TS_PATTERN_IRREGULAR };
}

TsPattern
ts_pattern_recognise (guint n_scales, const guint *p, GArray *const *const *partners)
{
  g_return_val_if_fail (n_scales >= 1 && p != NULL && partners != NULL,
                        (TsPattern) { TS_PATTERN_IRREGULAR });
  TsPattern none = { TS_PATTERN_NONE };
  if (matches_all (&none, n_scales, p, partners))
    return none;
  for (guint nd = 1; nd <= TS_PATTERN_MAX_DIMS; nd++)
    for (guint order = 0; order < ts_pattern_n_orders (nd); order++)
      {
        TsPattern t = recognise_grid (n_scales, p, partners, nd, order, FALSE);
        if (t.kind == TS_PATTERN_CARTESIAN)
          return t;
      }
  TsPattern all = { TS_PATTERN_ALL_TO_ALL }, mw = { TS_PATTERN_MASTER_WORKER };
  if (matches_all (&all, n_scales, p, partners))
    return all;
  if (matches_all (&mw, n_scales, p, partners))
    return mw;
  TsPattern stencil = ts_pattern_recognise_stencil (n_scales, p, partners);
  if (stencil.kind == TS_PATTERN_CARTESIAN)
    return stencil;
  return ts_pattern_recognise_butterfly (n_scales, p, partners);
}

TsPattern
ts_pattern_recognise_butterfly (guint n_scales, const guint *p, GArray *const *const *partners)
{
  g_return_val_if_fail (n_scales >= 1 && p != NULL && partners != NULL,
                        (TsPattern) { TS_PATTERN_IRREGULAR });
  /* One row, then rows of a grid; without a transpose partner first. A
   * transpose in one row is the rank itself. */
  static const gboolean forms[3][2] = { { TRUE, FALSE }, { FALSE, FALSE }, { FALSE, TRUE } };
  for (guint f = 0; f < G_N_ELEMENTS (forms); f++)
    {
      TsPattern t = { TS_PATTERN_BUTTERFLY, 2, .one_row = forms[f][0],
                      .transpose = forms[f][1] };
      if (matches_all (&t, n_scales, p, partners))
        return ts_pattern_at (&t, p[n_scales - 1]);
    }
  return (TsPattern) { TS_PATTERN_IRREGULAR };
}

guint
ts_pattern_other_orders (guint n_scales, const guint *p, GArray *const *const *partners,
                         const TsPattern *found, guint target, TsPattern *others)
{
  g_return_val_if_fail (found != NULL && others != NULL, 0);
  if (found->kind != TS_PATTERN_CARTESIAN)
    return 0;
  TsPattern mine = ts_pattern_at (found, target);
  guint n = 0;
  for (guint order = 0; order < ts_pattern_n_orders (found->n_dims); order++)
    {
      if (order == found->order)
        continue;
      TsPattern t = recognise_grid (n_scales, p, partners, found->n_dims, order,
                                    found->diagonal);
      if (t.kind != TS_PATTERN_CARTESIAN)
        continue;
      TsPattern theirs = ts_pattern_at (&t, target);
      gboolean fresh = memcmp (theirs.dims, mine.dims, found->n_dims * sizeof (guint)) != 0;
      for (guint i = 0; fresh && i < n; i++)
        {
          TsPattern seen = ts_pattern_at (&others[i], target);
          fresh = memcmp (theirs.dims, seen.dims, found->n_dims * sizeof (guint)) != 0;
          /* One shape, two orders (equal factors): the reverse of MPI's,
           * which --grid-order names in one word, stands for both. */
          if (!fresh && order == ts_pattern_order_reversed (found->n_dims))
            others[i] = t;
        }
      if (fresh)
        others[n++] = t;
    }
  return n;
}

gboolean
ts_pattern_other_order (guint n_scales, const guint *p, GArray *const *const *partners,
                        const TsPattern *found, guint target, TsPattern *other)
{
  TsPattern others[6];
  if (ts_pattern_other_orders (n_scales, p, partners, found, target, others) == 0)
    return FALSE;
  *other = others[0];
  return TRUE;
}

guint
ts_pattern_role (const TsPattern *at, guint p, guint r)
{
  g_return_val_if_fail (at != NULL && r < p, 0);
  g_return_val_if_fail (at->kind != TS_PATTERN_CARTESIAN || grid_size (at) == p, 0);
  if (at->kind == TS_PATTERN_MASTER_WORKER)
    return r == 0;
  if (at->kind != TS_PATTERN_CARTESIAN)
    return 0;
  guint role = 0, rest = r;
  for (gint k = (gint) at->n_dims - 1; k >= 0; k--)
    {
      guint d = at->dims[k], c = rest % d;
      rest /= d;
      guint code = 0;
      if (!at->periodic[k])
        code = (c == 0 ? 1 : 0) | (c + 1 == d ? 2 : 0);
      role = role * 4 + code;
    }
  return role;
}

char *
ts_pattern_describe (const TsPattern *t)
{
  g_return_val_if_fail (t != NULL, NULL);
  switch (t->kind)
    {
    case TS_PATTERN_NONE:
      return g_strdup ("no point-to-point messages");
    case TS_PATTERN_ALL_TO_ALL:
      return g_strdup ("all-to-all");
    case TS_PATTERN_MASTER_WORKER:
      return g_strdup ("master/worker (rank 0 and every other rank)");
    case TS_PATTERN_IRREGULAR:
      return g_strdup ("irregular (no ring, grid, all-to-all, master/worker or "
                       "recursive doubling)");
    case TS_PATTERN_BUTTERFLY:
      return ts_butterfly_describe (t);
    case TS_PATTERN_CARTESIAN:
      break;
    }
  if (t->n_dims == 1 && t->periodic[0] && !t->diagonal)
    return g_strdup_printf ("ring of %u", t->dims[0]);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%u-D grid ", t->n_dims);
  for (guint k = 0; k < t->n_dims; k++)
    g_string_append_printf (s, "%s%u", k ? "x" : "", t->dims[k]);
  g_string_append (s, " (");
  for (guint k = 0; k < t->n_dims; k++)
    g_string_append_printf (s, "%s%s", k ? " x " : "", t->periodic[k] ? "periodic" : "open");
  if (t->order == ts_pattern_order_reversed (t->n_dims) && t->order > 0)
    g_string_append (s, ", largest dimension last");
  else if (t->order > 0)
    {
      const guint8 *perm = order_perm (t->n_dims, t->order);
      g_string_append (s, ", dimensions the");
      for (guint k = 0; k < t->n_dims; k++)
        g_string_append_printf (s, "%s%s", k ? ", " : " ",
                                perm[k] == 0 ? "largest" : perm[k] == 1 ? "middle" : "smallest");
    }
  if (t->diagonal)
    g_string_append_printf (s, ", %u-point: diagonal neighbours too",
                            power3 (t->n_dims));
  g_string_append (s, ")");
  return g_string_free (s, FALSE);
}

gboolean
ts_pattern_stencil_reaches_all (const TsPattern *at)
{
  g_return_val_if_fail (at != NULL && at->kind == TS_PATTERN_CARTESIAN, FALSE);
  for (guint k = 0; k < at->n_dims; k++)
    if (at->dims[k] > (at->periodic[k] ? 3u : 2u))
      return FALSE;
  return TRUE;
}
