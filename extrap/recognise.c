/* Which pattern the inputs' partners follow, and which grid exactly: its
 * order of dimensions, its boundaries, and whether the largest input can
 * write every rank of it at P (extrap-private.h: ts_extrap_recognise).
 * Split from model.c, which fits the quantities once this is settled. */
#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/extrap-private.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

static void
describe_partners (GString *out, const TsScaleProfile *p, guint r)
{
  const GArray *a = p->partners[r];
  g_string_append_printf (out, "\n  rank %u:", r);
  for (guint i = 0; i < MIN (a->len, 8u); i++)
    g_string_append_printf (out, " %u", g_array_index (a, guint32, i));
  if (a->len > 8)
    g_string_append_printf (out, " and %u more", a->len - 8);
  if (a->len == 0)
    g_string_append (out, " none");
}

/* Whether every rank of @p, but for one partner at most, talks to ranks
 * that differ from it in one bit (rank XOR 2^k: recursive doubling, a
 * butterfly), and at least two such. A family tracesim names in a
 * refusal, not one it extrapolates: its partners grow with log2 P. */
static gboolean
doubling_like (const TsScaleProfile *p)
{
  guint xor_pairs = 0;
  for (guint r = 0; r < p->n_ranks; r++)
    {
      guint other = 0;
      for (guint i = 0; i < p->partners[r]->len; i++)
        {
          guint x = r ^ g_array_index (p->partners[r], guint32, i);
          if ((x & (x - 1)) == 0)
            xor_pairs++;
          else if (++other > 1)
            return FALSE;
        }
    }
  return xor_pairs >= 2 * p->n_ranks;
}

static gboolean
refuse_irregular (const TsExtrapModel *m, GError **error)
{
  g_autoptr (GString) seen = g_string_new (NULL);
  for (guint i = 0; i < m->n_inputs; i++)
    {
      GArray *const *partners = m->inputs[i]->partners;
      TsPattern alone = ts_pattern_recognise (1, &m->p[i], &partners);
      g_autofree char *what = ts_pattern_describe (&alone);
      g_string_append_printf (seen, "\nat %u ranks: %s", m->p[i], what);
    }
  const TsScaleProfile *big = TS_EXTRAP_TEMPLATE (m);
  if (doubling_like (big))
    g_string_append_printf (seen, "\nat %u ranks every rank's partners but one at most differ "
                            "from it in one bit (rank XOR 2^k), like recursive doubling, "
                            "but not as tracesim recognises it (over all ranks, or within "
                            "the rows of a grid of 2^floor(n/2) x 2^ceil(n/2) ranks, with "
                            "NPB CG's transpose partner or none), at every scale",
                            big->n_ranks);
  g_string_append_printf (seen, "\npartners at %u ranks:", big->n_ranks);
  for (guint r = 0; r < MIN (big->n_ranks, 6u); r++)
    describe_partners (seen, big, r);
  return ts_extrap_refuse (error, "the point-to-point partners follow no one pattern of P at every "
                 "scale (tracesim knows: no messages; a ring or a 1-3-D grid, periodic or "
                 "open, laid out in MPI_Dims_create's factors in MPI's order or another, "
                 "of face neighbours or with diagonals (9- and 27-point stencils); "
                 "all-to-all; master/worker). "
                 "Partners that depend on the data cannot be extrapolated "
                 "(doc/extrapolation.md).%s", seen->str);
}

/* The grid at P must be written from ranks the largest input has. */
static gboolean
check_grid (const TsExtrapModel *m, GError **error)
{
  const TsPattern *t = &m->pattern, *r = &m->at_target;
  g_autofree char *grid = ts_pattern_describe (t);
  g_autofree char *wanted = ts_pattern_describe (r);
  for (guint k = 0; k < t->n_dims; k++)
    {
      if (t->dims[k] == 1 && r->dims[k] > 1)
        return ts_extrap_refuse (error, "the largest input (%s) has one rank along dimension %u, so "
                       "no input shows how ranks exchange along it, and the %s needs that; "
                       "trace a rank count with two ranks or more along every dimension",
                       grid, k + 1, wanted);
      /* (An open dimension of two ranks grown at P has an interior that
       * joins the two ends' halves: mirror.c.) One that shrinks cannot
       * keep its ends and interior apart. */
      if (!t->periodic[k] && r->dims[k] < t->dims[k])
        return ts_extrap_refuse (error, "the %s has fewer ranks along open dimension %u than the "
                       "largest input (%s): extrapolate from smaller inputs", wanted, k + 1,
                       grid);
    }
  return TRUE;
}

/* Recursive doubling at P: a power of two, rows an input shows (longer
 * ones take more doubling steps: synth-repeat.c), and a transpose partner
 * some input shows. */
static gboolean
check_butterfly (const TsExtrapModel *m, GError **error)
{
  const TsPattern *t = &m->pattern, *r = &m->at_target;
  g_autofree char *grid = ts_pattern_describe (t);
  g_autofree char *wanted = ts_pattern_describe (r);
  if (m->target == 0 || (m->target & (m->target - 1)) != 0)
    return ts_extrap_refuse (error, "the inputs exchange by recursive doubling (%s), which "
                   "needs a power of two ranks; %u is none", grid, m->target);
  if (r->dims[1] > 1 && t->dims[1] == 1)
    return ts_extrap_refuse (error, "the %s has rows of %u ranks, and no input shows a row of "
                   "more than one (the largest is %s): nothing tells how its ranks exchange "
                   "in a row", wanted, r->dims[1], grid);
  gboolean shown = FALSE;
  for (guint q = 0; t->transpose && q < m->p[m->n_inputs - 1] && !shown; q++)
    shown = ts_pattern_transpose_partner (t, q) != q;
  if (t->transpose && !shown && r->dims[0] > 1)
    return ts_extrap_refuse (error, "no input shows a rank exchanging with a transpose "
                   "partner other than itself (the largest is %s), and the %s needs it",
                   grid, wanted);
  return TRUE;
}

/* Do the inputs send as many messages through every neighbour slot of a
 * kind (faces along every dimension; with diagonals, edges; corners), at
 * every scale, under @pattern? A stencil may exchange some fields with its
 * faces only (LULESH: 51 messages a face, 31 an edge or corner, over 20
 * iterations). If not, and @why is not NULL, it says where they differ.
 * @per gets each kind's count (0 without messages), by the dimensions a
 * slot steps along (faces 1, then 2 and 3). */
gboolean
ts_extrap_counts_agree (const TsExtrapModel *m, const TsPattern *pattern, double *per, char **why)
{
  guint first[TS_PATTERN_MAX_DIMS] = { 0 };
  for (guint g = 0; g < TS_PATTERN_MAX_DIMS; g++)
    per[g] = -1;
  for (guint i = 0; i < m->n_inputs; i++)
    {
      TsPattern at = ts_pattern_at (pattern, m->p[i]);
      TsSlotTraffic st;
      ts_extrap_slot_traffic (m->inputs[i], &at, &st);
      for (guint k = 0; k < ts_extrap_n_bytes_classes_of (&at); k++)
        {
          if (st.slots_along[k] == 0)
            continue;
          guint g = ts_extrap_class_steps (&at, k) - 1;
          double here = st.messages_along[k] / st.slots_along[k];
          if (per[g] < 0)
            {
              per[g] = here;
              first[g] = i;
            }
          else if (fabs (here - per[g]) > 1e-6 * per[g])
            {
              char name[80];
              if (why)
                *why = g_strdup_printf ("a rank sends %g messages to each %s neighbour at %u "
                                        "ranks but %g %s at %u ranks", per[g],
                                        at.kind == TS_PATTERN_BUTTERFLY
                                          ? (g == 0 ? "row" : "transpose")
                                          : (g == 0 ? "face" : "diagonal"),
                                        m->p[first[g]], here,
                                        ts_extrap_bytes_class_name (m, k, name, sizeof name),
                                        m->p[i]);
              return FALSE;
            }
        }
    }
  for (guint g = 0; g < TS_PATTERN_MAX_DIMS; g++)
    per[g] = MAX (per[g], 0);
  return TRUE;
}

/* Along a dimension of at most two ranks at every input scale, a periodic
 * and an open grid have the same partners: with two ranks the neighbour
 * below is the neighbour above. Where the output has more ranks along it,
 * the user's --boundaries settles it, or else the message counts: a
 * periodic dimension of two sends two messages per exchange to its one
 * partner, an open one one, and every other neighbour gets one. */
static gboolean
settle_boundaries (TsExtrapModel *m, TsBoundaries boundaries, GError **error)
{
  /* Ambiguous dimensions: at most two ranks at every input scale; those
   * of them that grow beyond two at P must be settled. */
  guint ambiguous[TS_PATTERN_MAX_DIMS], n = 0, grows = 0, first_growing = 0;
  TsPattern target = ts_pattern_at (&m->pattern, m->target);
  for (guint k = 0; k < m->pattern.n_dims; k++)
    {
      guint most = 0;
      for (guint i = 0; i < m->n_inputs; i++)
        {
          TsPattern at = ts_pattern_at (&m->pattern, m->p[i]);
          most = MAX (most, at.dims[k]);
        }
      if (most > 2)
        continue;
      if (target.dims[k] > 2 && grows++ == 0)
        first_growing = k;
      ambiguous[n++] = k;
    }
  if (grows == 0)
    return TRUE;
  if (boundaries != TS_BOUNDARIES_UNKNOWN)
    {
      for (guint j = 0; j < n; j++)
        m->pattern.periodic[ambiguous[j]] = boundaries == TS_BOUNDARIES_PERIODIC;
      return TRUE;
    }
  /* Every reading of the ambiguous dimensions under which the counts agree;
   * settled if they all read the growing ones the same way. With
   * diagonals, each kind of neighbour has a count of its own (LULESH's
   * faces get more than its edges); where some readings give every kind
   * the same, as the faces of a grid have, those are taken. */
  guint agreeing = 0;
  gboolean settled = TRUE;
  TsPattern chosen = m->pattern;
  for (guint pass = 0; pass < 2 && agreeing == 0; pass++)
    for (guint mask = 0; mask < (1u << n); mask++)
      {
        TsPattern t = m->pattern;
        for (guint j = 0; j < n; j++)
          t.periodic[ambiguous[j]] = !(mask & (1u << j));
        double per[TS_PATTERN_MAX_DIMS];
        if (!ts_extrap_counts_agree (m, &t, per, NULL))
          continue;
        gboolean same = TRUE;
        for (guint g = 1; g < TS_PATTERN_MAX_DIMS; g++)
          same &= per[g] == 0 || fabs (per[g] - per[0]) <= 1e-6 * per[0];
        if (pass == 0 && !same)
          continue;
        for (guint k = 0; agreeing > 0 && k < t.n_dims; k++)
          if (target.dims[k] > 2 && t.periodic[k] != chosen.periodic[k])
            settled = FALSE;
        if (agreeing++ == 0)
          chosen = t;
      }
  if (agreeing > 0 && settled)
    {
      m->pattern = chosen;
      return TRUE;
    }
  return ts_extrap_refuse (error, "no input has more than two ranks along dimension %u of the %u-D "
                 "grid, so whether it wraps around (periodic) or ends (open) cannot be told "
                 "from the partners, nor from the message counts%s; say which with "
                 "--boundaries periodic or --boundaries open, or trace a rank count with "
                 "three ranks or more along it", first_growing + 1, m->pattern.n_dims,
                 agreeing > 0 ? ", which fit both" : "");
}

/* Which of MPI_Dims_create's factors each grid dimension takes: the
 * user's --grid-order, else the first order that fits every input (MPI's
 * before the others); where another order fits them too and gives P
 * another shape, the explanation says so (m->order_unsettled). */
static gboolean
settle_order (TsExtrapModel *m, TsGridOrder order, GArray *const *const *partners,
              GError **error)
{
  guint nd = m->pattern.n_dims;
  if (order != TS_GRID_ORDER_UNKNOWN)
    {
      g_autofree char *name = ts_grid_order_name (order);
      g_autofree char *found = ts_pattern_describe (&m->pattern);
      guint8 factors[TS_PATTERN_MAX_DIMS];
      if (!ts_grid_order_factors (order, nd, factors))
        return ts_extrap_refuse (error, "--grid-order %s names the factors of another number of "
                                 "dimensions than the inputs' %s", name, found);
      guint want = ts_pattern_order_of (nd, factors);
      if (m->pattern.order == want)
        return TRUE;
      TsPattern t = ts_pattern_recognise_grid (m->n_inputs, m->p, partners, nd, want,
                                               m->pattern.diagonal);
      if (t.kind != TS_PATTERN_CARTESIAN)
        return ts_extrap_refuse (error, "--grid-order %s: the inputs' partners are no %u-D grid with "
                                 "its dimensions in that order; they are a %s", name, nd, found);
      m->pattern = t;
      return TRUE;
    }
  m->n_order_unsettled = ts_pattern_other_orders (m->n_inputs, m->p, partners, &m->pattern,
                                                  m->target, m->order_unsettled);
  return TRUE;
}

/* What the message sizes say of a @stencil that reaches every rank of the
 * inputs, as an all-to-all does. */
typedef enum {
  SIZES_SILENT,        /* one direction only, or sizes varying by rank */
  SIZES_STENCIL,       /* faces larger than edges, edges than corners */
  SIZES_ONE,           /* one size in every direction */
} SizesSay;

/* Bytes per message of every class of @stencil at the largest input: a
 * stencil's faces, edges and corners have sizes that follow their extents,
 * every face's message larger than every edge's, every edge's than every
 * corner's (LULESH at 8 ranks: 1005 to 1446, 163 to 247, 23 to 35 bytes);
 * an all-to-all's partners are no directions, and their messages have one
 * size whatever the direction (or vary by rank, across the classes).
 * @sizes gets them, for the explanation. */
static SizesSay
sizes_say (const TsExtrapModel *m, const TsPattern *stencil, GString *sizes)
{
  const TsScaleProfile *t = TS_EXTRAP_TEMPLATE (m);
  TsExtrapModel view = *m;
  view.pattern = ts_pattern_at (stencil, t->n_ranks);
  guint n = ts_extrap_n_bytes_classes_of (&view.pattern), present = 0;
  double lo[TS_EXTRAP_MAX_CLASSES], hi[TS_EXTRAP_MAX_CLASSES];
  for (guint k = 0; k < n; k++)
    lo[k] = G_MAXDOUBLE, hi[k] = 0;
  for (guint r = 0; r < t->n_ranks; r++)
    for (guint i = 0; i < t->traffic[r]->len; i++)
      {
        const TsPeerTraffic *pt = &g_array_index (t->traffic[r], TsPeerTraffic, i);
        guint slots[TS_EXTRAP_MAX_SLOTS];
        if (pt->sent == 0 || ts_extrap_slots (&view.pattern, r, pt->peer, slots) == 0)
          continue;
        guint k = ts_extrap_grid_class (&view.pattern, slots[0]);
        double b = (double) pt->bytes_sent / pt->sent;
        lo[k] = MIN (lo[k], b);
        hi[k] = MAX (hi[k], b);
      }
  /* By the dimensions a class steps along: faces, then edges, corners. */
  double group_lo[TS_PATTERN_MAX_DIMS], group_hi[TS_PATTERN_MAX_DIMS];
  for (guint g = 0; g < TS_PATTERN_MAX_DIMS; g++)
    group_lo[g] = G_MAXDOUBLE, group_hi[g] = 0;
  double least = G_MAXDOUBLE, most = 0;
  for (guint k = 0; k < n; k++)
    {
      if (hi[k] == 0)
        continue;
      guint g = ts_extrap_class_steps (&view.pattern, k) - 1;
      present++;
      group_lo[g] = MIN (group_lo[g], lo[k]);
      group_hi[g] = MAX (group_hi[g], hi[k]);
      least = MIN (least, lo[k]);
      most = MAX (most, hi[k]);
      char name[80];
      g_string_append_printf (sizes, "%s%g", sizes->len ? ", " : "", lo[k]);
      if (hi[k] > lo[k])
        g_string_append_printf (sizes, " to %g", hi[k]);
      g_string_append_printf (sizes, " bytes %s",
                              ts_extrap_bytes_class_name (&view, k, name, sizeof name));
    }
  if (present < 2)
    return SIZES_SILENT;
  if (most <= 1.01 * least)
    return SIZES_ONE;
  /* A stencil's: every face larger than every edge, every edge than every
   * corner (they follow the subdomain's extents), whatever else varies. */
  guint groups = 0;
  double below = G_MAXDOUBLE;
  for (guint g = 0; g < TS_PATTERN_MAX_DIMS; g++)
    {
      if (group_hi[g] == 0)
        continue;
      if (group_hi[g] >= below)
        return SIZES_SILENT;
      below = group_lo[g];
      groups++;
    }
  return groups >= 2 ? SIZES_STENCIL : SIZES_SILENT;
}

/* Every rank exchanges with every other at every input scale: an
 * all-to-all, or a grid with diagonal neighbours (a 9- or 27-point
 * stencil) with so few ranks along each dimension that it reaches every
 * rank. --all-to-all settles it; else the message sizes do (a stencil's
 * differ by direction, an all-to-all's do not); else the readings agree
 * at P (a stencil reaching every rank there too); else it is refused. */
static gboolean
all_to_all_or_stencil (TsExtrapModel *m, const TsExtrapolateOptions *o,
                       GArray *const *const *partners, GError **error)
{
  TsPattern stencil = o->all_to_all ? (TsPattern) { TS_PATTERN_IRREGULAR }
                                    : ts_pattern_recognise_stencil (m->n_inputs, m->p, partners);
  m->at_target = m->pattern;
  if (stencil.kind != TS_PATTERN_CARTESIAN)
    return TRUE;
  g_autofree char *grid = ts_pattern_describe (&stencil);
  g_autoptr (GString) sizes = g_string_new (NULL);
  SizesSay say = sizes_say (m, &stencil, sizes);
  const char *fits = "every rank exchanges with every other at every input scale, as in an "
                     "all-to-all and in a";
  if (say == SIZES_STENCIL)
    {
      m->reading = g_strdup_printf ("%s %s; the messages have a stencil's sizes, faces "
                                    "larger than edges, edges than corners (%s): read as the "
                                    "stencil", fits, grid, sizes->str);
      m->pattern = stencil;
      return TRUE;
    }
  if (say == SIZES_ONE)
    {
      m->reading = g_strdup_printf ("%s %s; the messages have one size in every direction "
                                    "(%s), which a stencil's faces and corners would not: "
                                    "read as all-to-all", fits, grid, sizes->str);
      return TRUE;
    }
  /* Open along every dimension: the reading that reaches fewest ranks. */
  TsPattern there = ts_pattern_at (&stencil, m->target);
  for (guint k = 0; k < there.n_dims; k++)
    there.periodic[k] = FALSE;
  if (ts_pattern_stencil_reaches_all (&there))
    {
      m->reading = g_strdup_printf ("%s %s; at %u ranks both readings still reach every rank",
                                    fits, grid, m->target);
      return TRUE;
    }
  return ts_extrap_refuse (error, "every rank of %s (%u ranks) exchanges with every other, "
                           "which is also what a %s looks like; the two differ at %u, and the "
                           "message sizes do not tell them apart (a stencil's faces are larger "
                           "than its edges, its edges than its corners; an all-to-all's are "
                           "one size in every direction; here: %s). Trace at a "
                           "rank count where such a stencil no longer reaches every rank (more "
                           "than 3 ranks along a dimension), or give --all-to-all (sweeps: "
                           "all_to_all = true) if every rank exchanges with every other at any "
                           "P (a transpose)", TS_EXTRAP_TEMPLATE (m)->path,
                           TS_EXTRAP_TEMPLATE (m)->n_ranks, grid, m->target,
                           sizes->len ? sizes->str : "no messages");
}

/* @t at @p ranks without its dimensions of one rank, which number ranks
 * as the grid without them does: two grids with the same squeezed shape
 * (and diagonals) give every rank the same partners. */
static guint
squeezed (const TsPattern *t, guint p, guint *dims)
{
  TsPattern at = ts_pattern_at (t, p);
  guint n = 0;
  for (guint k = 0; k < at.n_dims; k++)
    if (at.dims[k] > 1)
      dims[n++] = at.dims[k];
  return n;
}

static gboolean
same_at (const TsPattern *a, const TsPattern *b, guint p)
{
  guint da[TS_PATTERN_MAX_DIMS], db[TS_PATTERN_MAX_DIMS];
  guint na = squeezed (a, p, da), nb = squeezed (b, p, db);
  return na == nb && memcmp (da, db, na * sizeof *da) == 0;
}

/* The first grid of @nd dimensions (any order, MPI's first) with @found's
 * diagonals that describes every input, or kind IRREGULAR. */
static TsPattern
grid_of (const TsExtrapModel *m, GArray *const *const *partners, guint nd,
         const TsPattern *found)
{
  for (guint order = 0; order < ts_pattern_n_orders (nd); order++)
    {
      TsPattern t = ts_pattern_recognise_grid (m->n_inputs, m->p, partners, nd, order,
                                               found->diagonal);
      if (t.kind == TS_PATTERN_CARTESIAN)
        return t;
    }
  return (TsPattern) { TS_PATTERN_IRREGULAR };
}

/* Whether a grid of more dimensions fits the inputs too and gives P
 * another shape (1, 2 and 4 ranks fit 2x2 and 2x2x1; 4x2 and 2x2x2 at
 * 8): the fewest are taken, and the explanation says so
 * (m->dims_unsettled). The other could not be taken anyway: its largest
 * input has one rank along a dimension that grows at P (were every one
 * larger, the two would not fit the same partners), where check_grid
 * refuses. */
static void
note_other_dims (TsExtrapModel *m, GArray *const *const *partners)
{
  for (guint nd = m->pattern.n_dims + 1; nd <= TS_PATTERN_MAX_DIMS; nd++)
    {
      TsPattern t = grid_of (m, partners, nd, &m->pattern);
      if (t.kind == TS_PATTERN_CARTESIAN && !same_at (&t, &m->pattern, m->target))
        {
          m->dims_unsettled = t;
          return;
        }
    }
}

/* Whether patterns @a and @b give some rank other partners at @p (the
 * first 4,096 ranks looked at). */
static gboolean
differ_at (const TsPattern *a, const TsPattern *b, guint p)
{
  TsPattern x = ts_pattern_at (a, p), y = ts_pattern_at (b, p);
  if (y.kind == TS_PATTERN_BUTTERFLY && y.dims[0] * y.dims[1] != p)
    return TRUE;  /* no power of two */
  g_autoptr (GArray) u = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint r = 0; r < MIN (p, 4096u); r++)
    {
      g_array_set_size (u, 0);
      g_array_set_size (v, 0);
      ts_pattern_partners (&x, p, r, u);
      ts_pattern_partners (&y, p, r, v);
      if (u->len != v->len
          || (u->len > 0 && memcmp (u->data, v->data, u->len * sizeof (guint32)) != 0))
        return TRUE;
    }
  return FALSE;
}

gboolean
ts_extrap_recognise (TsExtrapModel *m, const TsExtrapolateOptions *o, GError **error)
{
  GArray *const *partners[G_N_ELEMENTS (m->p)];
  for (guint i = 0; i < m->n_inputs; i++)
    partners[i] = m->inputs[i]->partners;
  m->pattern = ts_pattern_recognise (m->n_inputs, m->p, partners);
  TsPattern doubling = ts_pattern_recognise_butterfly (m->n_inputs, m->p, partners);
  if (doubling.kind == TS_PATTERN_BUTTERFLY && m->pattern.kind != TS_PATTERN_BUTTERFLY)
    {
      if (o->recursive_doubling)
        m->pattern = doubling;
      else if (differ_at (&m->pattern, &doubling, m->target))
        m->doubling_unsettled = doubling;
    }
  else if (o->recursive_doubling && m->pattern.kind != TS_PATTERN_BUTTERFLY)
    return ts_extrap_refuse (error, "--recursive-doubling was given, but the inputs' partners "
                             "are no recursive doubling over every rank or in the rows of a "
                             "grid (NPB CG's)");
  if (m->pattern.kind == TS_PATTERN_ALL_TO_ALL
      && !all_to_all_or_stencil (m, o, partners, error))
    return FALSE;
  switch (m->pattern.kind)
    {
    case TS_PATTERN_IRREGULAR:
      return refuse_irregular (m, error);
    case TS_PATTERN_CARTESIAN:
      {
        GError *local = NULL;
        gboolean ok = settle_order (m, o->grid_order, partners, &local);
        if (ok)
          note_other_dims (m, partners);
        ok = ok && settle_boundaries (m, o->boundaries, &local);
        if (ok)
          m->at_target = ts_pattern_at (&m->pattern, m->target);
        ok = ok && check_grid (m, &local);
        if (!ok && m->doubling_unsettled.kind == TS_PATTERN_BUTTERFLY)
          {
            g_autofree char *other = ts_pattern_describe (&m->doubling_unsettled);
            g_set_error (error, local->domain, local->code, "%s (read as a grid; the inputs "
                         "fit %s too: --recursive-doubling reads them so)", local->message,
                         other);
            g_clear_error (&local);
          }
        else if (!ok)
          g_propagate_error (error, local);
        return ok;
      }
    case TS_PATTERN_ALL_TO_ALL:
      return TRUE;  /* m->at_target set */
    case TS_PATTERN_BUTTERFLY:
      m->at_target = ts_pattern_at (&m->pattern, m->target);
      return check_butterfly (m, error);
    default:
      m->at_target = m->pattern;
      return TRUE;
    }
}
