#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/extrap-private.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#define MAX_INPUTS 16

void
ts_extrap_model_free (TsExtrapModel *m)
{
  if (!m)
    return;
  for (guint i = 0; i < m->n_inputs; i++)
    ts_scale_profile_free (m->inputs[i]);
  g_free (m->inputs);
  g_clear_pointer (&m->regions, g_ptr_array_unref);
  g_clear_pointer (&m->collectives, g_array_unref);
  g_clear_pointer (&m->per_partner, g_ptr_array_unref);
  g_clear_pointer (&m->warnings, g_ptr_array_unref);
  g_free (m->comm_class);
  g_free (m->scaling_evidence);
  g_free (m->reading);
  g_free (m);
}

gboolean
ts_extrap_refuse (GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *why = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "cannot extrapolate: %s", why);
  return FALSE;
}

/* ---- grids ------------------------------------------------------------------ */

guint
ts_extrap_slots (const TsPattern *at, guint t, guint q, guint *slots)
{
  guint n = 0;
  if (q == t)
    return 0;
  if (at->kind == TS_PATTERN_BUTTERFLY)
    {
      /* The transpose partner is in another row, or the rank itself. */
      for (guint o = 0; o <= TS_PATTERN_TRANSPOSE_SLOT && n == 0; o++)
        if (ts_pattern_offset_neighbour (at, t, o) == (gint) q)
          slots[n++] = o;
      return n;
    }
  if (at->kind != TS_PATTERN_CARTESIAN)
    return 0;
  for (guint o = 0; o < ts_pattern_n_offsets (at->n_dims) && n < TS_EXTRAP_MAX_SLOTS; o++)
    if (ts_pattern_offset_used (at, o) && ts_pattern_offset_neighbour (at, t, o) == (gint) q)
      slots[n++] = o;
  return n;
}

gboolean
ts_extrap_each_template_send (const TsExtrapModel *m, const TsPattern *at, const TsTrace *trace,
                              const TsSpool *actions, TsExtrapSendFunc each, gpointer data,
                              GError **error)
{
  for (guint t = 0; t < TS_EXTRAP_TEMPLATE (m)->n_ranks; t++)
    {
      g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (actions, t);
      const TsAction *a;
      GError *local = NULL;
      while ((a = ts_spool_reader_next (rd, &local)))
        {
          if ((a->kind != TS_ACTION_SEND && a->kind != TS_ACTION_ISEND) || a->peer < 0)
            continue;
          guint q = ts_trace_comm_world_rank (trace, a->comm, t, (guint) a->peer);
          guint slots[TS_EXTRAP_MAX_SLOTS], n = ts_extrap_slots (at, t, q, slots);
          if (n > 0)
            each (data, t, a, q, slots, n);
        }
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
    }
  return TRUE;
}

/* Classes: the faces along each dimension, then the masks of two
 * dimensions or more in ascending order (2-D: 3; 3-D: 3, 5, 6, 7). */
guint
ts_extrap_class_mask (const TsPattern *at, guint klass)
{
  if (klass < at->n_dims)
    return 1u << klass;
  guint seen = at->n_dims;
  for (guint mask = 3; mask < (1u << at->n_dims); mask++)
    if ((mask & (mask - 1)) != 0 && seen++ == klass)
      return mask;
  g_return_val_if_reached (1);
}

guint
ts_extrap_class_steps (const TsPattern *at, guint klass)
{
  if (at->kind == TS_PATTERN_BUTTERFLY)
    return klass + 1;  /* counted apart: the row partners, the transpose */
  guint mask = ts_extrap_class_mask (at, klass), n = 0;
  for (; mask; mask &= mask - 1)
    n++;
  return n;
}

guint
ts_extrap_grid_class (const TsPattern *at, guint offset)
{
  if (at->kind == TS_PATTERN_BUTTERFLY)
    return offset == TS_PATTERN_TRANSPOSE_SLOT;
  guint mask = ts_pattern_offset_mask (at->n_dims, offset);
  for (guint k = 0; k < ts_extrap_n_bytes_classes_of (at); k++)
    if (ts_extrap_class_mask (at, k) == mask)
      return k;
  g_return_val_if_reached (0);
}

/* Along one dimension: the template coordinate for output coordinate @c of
 * @dr, the template having @dt (checked by check_grid). Ends map to ends on
 * an open dimension, the interior onto the interior; a periodic one is
 * stretched, so that where imbalance sits keeps its place. */
static guint
template_coord (guint c, guint dr, guint dt, gboolean periodic)
{
  if (periodic || dr == dt)
    return (guint) ((guint64) c * dt / dr);
  if (c == 0)
    return 0;
  if (c + 1 == dr)
    return dt - 1;
  return 1 + (guint) ((guint64) (c - 1) * (dt - 2) / (dr - 2));
}

/* Recursive doubling: the row stretched, the column the rank's low bits
 * (steps ordered by the rank's bit stay pairs), then the nearest in the
 * row that is its own transpose partner as the output rank is (or not). */
static guint
butterfly_template_rank (const TsExtrapModel *m, guint r)
{
  const TsPattern *t = &m->pattern, *at = &m->at_target;
  guint cols = t->dims[1], row = (r / at->dims[1]) * t->dims[0] / at->dims[0];
  guint col = (r % at->dims[1]) % cols;  /* r and r XOR 2^k as t and t XOR 2^k */
  gboolean self = at->transpose && ts_pattern_transpose_partner (at, r) == r;
  for (guint d = 0; d < cols; d++)
    {
      guint q = row * cols + (col ^ d);
      if (!t->transpose || (ts_pattern_transpose_partner (t, q) == q) == self)
        return q;
    }
  return row * cols + col;  /* refused before: no input shows a transpose */
}

guint
ts_extrap_template_rank (const TsExtrapModel *m, guint r)
{
  guint pt = TS_EXTRAP_TEMPLATE (m)->n_ranks;
  /* The master from the master, workers from workers; so too rank 0 of an
   * all-to-all, whose messages are modelled apart (a root's one-off
   * duties, which stretching would copy onto several ranks). */
  if ((m->pattern.kind == TS_PATTERN_MASTER_WORKER || m->pattern.kind == TS_PATTERN_ALL_TO_ALL)
      && pt > 1 && m->target > 1)
    return r == 0 ? 0 : 1 + (guint) ((guint64) (r - 1) * (pt - 1) / (m->target - 1));
  if (m->pattern.kind == TS_PATTERN_BUTTERFLY)
    return butterfly_template_rank (m, r);
  if (m->pattern.kind != TS_PATTERN_CARTESIAN)
    return (guint) ((guint64) r * pt / m->target);
  guint cr[TS_PATTERN_MAX_DIMS], ct[TS_PATTERN_MAX_DIMS];
  ts_pattern_coords (&m->at_target, r, cr);
  for (guint k = 0; k < m->pattern.n_dims; k++)
    ct[k] = template_coord (cr[k], m->at_target.dims[k], m->pattern.dims[k],
                            m->pattern.periodic[k]);
  return ts_pattern_rank_at (&m->pattern, ct);
}

void
ts_extrap_slot_traffic (const TsScaleProfile *p, const TsPattern *at, TsSlotTraffic *st)
{
  *st = (TsSlotTraffic) { 0 };
  for (guint r = 0; r < p->n_ranks; r++)
    for (guint i = 0; i < p->traffic[r]->len; i++)
      {
        const TsPeerTraffic *t = &g_array_index (p->traffic[r], TsPeerTraffic, i);
        guint slots[TS_EXTRAP_MAX_SLOTS], n = ts_extrap_slots (at, r, t->peer, slots);
        if (n == 0 || t->sent == 0)
          continue;
        /* Every slot to one rank steps along the same dimensions: the
         * others differ only along periodic dimensions of two ranks. */
        guint k = ts_extrap_grid_class (at, slots[0]);
        st->slots_along[k] += n;
        st->messages_along[k] += t->sent;
        st->bytes_along[k] += t->bytes_sent;
      }
}

/* ---- fitting ---------------------------------------------------------------- */

/* Fit @q's points, several at the same x averaged into one, for a
 * prediction at x = @target (0: none in view; ts_scaling_fit_to). */
gboolean
ts_extrap_fit_quantity (TsQuantity *q, double floor, double target, GError **error)
{
  double x[G_N_ELEMENTS (q->x)], sum[G_N_ELEMENTS (q->x)];
  double lo[G_N_ELEMENTS (q->x)], hi[G_N_ELEMENTS (q->x)];
  guint same[G_N_ELEMENTS (q->x)], n = 0;
  for (guint i = 0; i < q->n; i++)
    {
      guint j = 0;
      while (j < n && x[j] != q->x[i])
        j++;
      if (j == n)
        {
          x[n] = q->x[i];
          sum[n] = 0;
          lo[n] = hi[n] = q->y[i];
          same[n++] = 0;
        }
      sum[j] += q->y[i];
      lo[j] = MIN (lo[j], q->y[i]);
      hi[j] = MAX (hi[j], q->y[i]);
      same[j]++;
    }
  q->repeat_spread = q->repeat_at = 0;
  for (guint j = 0; j < n; j++)
    {
      sum[j] /= same[j];
      double range = (hi[j] - lo[j]) / MAX (fabs (sum[j]), floor);
      if (same[j] > 1 && (q->repeat_at == 0 || range > q->repeat_spread))
        {
          q->repeat_spread = range;
          q->repeat_at = x[j];
        }
    }
  return ts_scaling_fit_to (x, sum, n, floor, target, &q->model, error);
}

void
ts_extrap_finish_quantity (const TsExtrapModel *m, TsQuantity *q)
{
  q->at_target = MAX (0, ts_scaling_eval (&q->model, ts_extrap_target_x (m, q, 0)));
  q->at_template = q->n > 0 && q->x[q->n - 1] == m->p[m->n_inputs - 1] ? q->y[q->n - 1] : 0;
}

/* How well @q's model describes its points: cross-validated where it can be. */
static double
quantity_error (const TsQuantity *q)
{
  return isnan (q->model.cv_error) ? q->model.fit_error : q->model.cv_error;
}

void
ts_extrap_add_point (TsQuantity *q, double x, double y)
{
  g_assert (q->n < G_N_ELEMENTS (q->x));
  q->x[q->n] = x;
  q->y[q->n++] = y;
}

/* ---- checks ------------------------------------------------------------------ */

/* Regions and collectives define a program's iterations: each must be
 * entered as often (by the rank that enters it most) at every scale. */
static gboolean
aligns (const TsScaleProfile *p, const char *name)
{
  gint region = ts_trace_region_by_name (p->trace, name);
  if (region < 0)
    return FALSE;
  TsCallKind kind = ts_trace_region_call (p->trace, (guint) region);
  return kind == TS_CALL_USER || kind == TS_CALL_COLLECTIVE || kind == TS_CALL_ICOLLECTIVE;
}

static guint64
most_visits (const TsScaleProfile *p, const char *name)
{
  const guint64 *v = g_hash_table_lookup (p->visits, name);
  guint64 most = 0;
  for (guint r = 0; v && r < p->n_ranks; r++)
    most = MAX (most, v[r]);
  return most;
}

/* The names of every input's table (visits or compute, at @offset in a
 * profile) that @keep (may be NULL) keeps; owned by the profiles. */
GHashTable *
ts_extrap_input_names (const TsExtrapModel *m, gsize offset,
                      gboolean (*keep) (const TsScaleProfile *, const char *))
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < m->n_inputs; i++)
    {
      GHashTableIter it;
      gpointer name;
      g_hash_table_iter_init (&it, G_STRUCT_MEMBER (GHashTable *, m->inputs[i], offset));
      while (g_hash_table_iter_next (&it, &name, NULL))
        if (!keep || keep (m->inputs[i], name))
          g_hash_table_add (names, name);
    }
  return names;
}

/* The regions and collectives the inputs from @first on do not enter
 * alike (described in @lines, the first 8); the names entered once per
 * partner in m->per_partner. Whether the inputs before @first enter each
 * name either never or as the others do (they only skip) is in
 * *@only_skipped. */
static guint
misaligned (TsExtrapModel *m, guint first, GString *lines, gboolean *only_skipped)
{
  g_autoptr (GHashTable) names
    = ts_extrap_input_names (m, G_STRUCT_OFFSET (TsScaleProfile, visits), aligns);
  g_autofree const char **sorted = (const char **) g_hash_table_get_keys_as_array (names, NULL);
  guint n_names = g_hash_table_size (names), bad = 0;
  qsort (sorted, n_names, sizeof *sorted, (GCompareFunc) g_strcmp0);
  gboolean loops = m->pattern.kind == TS_PATTERN_ALL_TO_ALL
                   || m->pattern.kind == TS_PATTERN_MASTER_WORKER;
  g_ptr_array_set_size (m->per_partner, 0);
  *only_skipped = first > 0;
  for (guint k = 0; k < n_names; k++)
    {
      guint64 reference = most_visits (m->inputs[first], sorted[k]);
      gboolean same = TRUE, per_partner = loops;
      guint64 last = most_visits (TS_EXTRAP_TEMPLATE (m), sorted[k]);
      guint p_last = m->p[m->n_inputs - 1];
      for (guint i = first; i < m->n_inputs; i++)
        {
          guint64 here = most_visits (m->inputs[i], sorted[k]);
          same &= here == reference;
          /* Entered once per partner in a loop over them: P - 1 times. */
          per_partner &= p_last > 1 && here * (p_last - 1) == last * (m->p[i] - 1);
        }
      for (guint i = 0; i < first; i++)
        *only_skipped &= most_visits (m->inputs[i], sorted[k]) == 0
                         || most_visits (m->inputs[i], sorted[k]) == reference;
      /* Checked against the loops found when the trace is written. */
      if (!same && per_partner)
        g_ptr_array_add (m->per_partner, g_strdup (sorted[k]));
      if (same || per_partner || ++bad > 8)
        continue;
      g_string_append_printf (lines, "\n  %s:", sorted[k]);
      for (guint i = 0; i < m->n_inputs; i++)
        g_string_append_printf (lines, "%s %" G_GUINT64_FORMAT " times at %u ranks",
                                i ? "," : "", most_visits (m->inputs[i], sorted[k]), m->p[i]);
    }
  if (bad > 8)
    g_string_append_printf (lines, "\n  and %u more", bad - 8);
  return bad;
}

/* Inputs at 1 rank that only skip what the others enter (a serial run of
 * NPB FT never calls MPI_Alltoall) are left out, with a warning, where two
 * scales or more remain and align: a serial run takes another code path,
 * which shows nothing of the parallel one. */
static gboolean
leave_out_serial (TsExtrapModel *m)
{
  guint serial = 0;
  while (serial < m->n_inputs && m->p[serial] == 1)
    serial++;
  gboolean only_skipped;
  g_autoptr (GString) ignored = g_string_new (NULL);
  if (serial == 0 || ts_extrap_n_scales (m, serial) < 2
      || misaligned (m, serial, ignored, &only_skipped) > 0 || !only_skipped)
    return FALSE;
  for (guint i = 0; i < serial; i++)
    {
      g_ptr_array_add (m->warnings,
                       g_strdup_printf ("left out: %s, at 1 rank, which never enters some regions "
                                        "or collectives that the larger inputs enter alike (a "
                                        "serial run's own code path)", m->inputs[i]->path));
      ts_scale_profile_free (m->inputs[i]);
    }
  m->n_inputs -= serial;
  memmove (m->inputs, m->inputs + serial, m->n_inputs * sizeof *m->inputs);
  memmove (m->p, m->p + serial, m->n_inputs * sizeof *m->p);
  return TRUE;
}

static gboolean
check_alignment (TsExtrapModel *m, GError **error)
{
  g_autoptr (GString) lines = g_string_new (NULL);
  gboolean only_skipped;
  guint bad = misaligned (m, 0, lines, &only_skipped);
  if (bad && leave_out_serial (m))
    {
      g_string_truncate (lines, 0);
      bad = misaligned (m, 0, lines, &only_skipped);
    }
  if (bad)
    return ts_extrap_refuse (error, "the traces do not align: a region or collective is entered a "
                   "different number of times (by the rank entering it most) at different "
                   "scales, so they do not record the same iterations of the same program "
                   "(only the rank count may differ between the inputs; in an all-to-all "
                   "or master/worker program, a region may also be entered once per "
                   "partner):%s", lines->str);
  return TRUE;
}

/* ---- point-to-point ------------------------------------------------------- */

/* Ranks across the dimensions a message of class @k does not step along:
 * a face's (an edge's) share of the problem; 1 for a corner. */
static double
faces (const TsPattern *at, guint k)
{
  /* Recursive doubling: the ranks in a row. In a 2-D decomposition of a
   * matrix-vector product a rank sums with its row and swaps with its
   * transpose partner pieces of its column block (NPB CG: na / npcols
   * both, on square and on 1 x 2 grids alike). */
  if (at->kind == TS_PATTERN_BUTTERFLY)
    return at->dims[1];
  guint mask = ts_extrap_class_mask (at, k);
  double q = 1;
  for (guint e = 0; e < at->n_dims; e++)
    if (!(mask & (1u << e)))
      q *= at->dims[e];
  return q;
}

double
ts_extrap_target_x (const TsExtrapModel *m, const TsQuantity *q, guint k)
{
  return q->by_faces ? faces (&m->at_target, k) : m->target;
}

static guint
distinct_x (const TsQuantity *q)
{
  guint n = 0;
  for (guint i = 0; i < q->n; i++)
    {
      guint j = 0;
      while (j < i && q->x[j] != q->x[i])
        j++;
      n += j == i;
    }
  return n;
}

/* Bytes per message along dimension @k at input @i; 0 where none went. */
static double
bytes_along (const TsSlotTraffic *st, guint i, guint k)
{
  return st[i].messages_along[k] > 0 ? st[i].bytes_along[k] / st[i].messages_along[k] : 0;
}

/* Bytes per message along dimension @k: as a function of P or of the ranks
 * across the other dimensions, whichever describes the inputs better (the
 * latter where a face shrinks as the grid grows across it). A dimension
 * whose messages few inputs show (none cross dimension 2 of 2x1) takes the
 * law of every dimension's faces together when that law fits them all
 * within 1%: a domain decomposition treats its dimensions alike. */
static gboolean
fit_bytes (TsExtrapModel *m, guint k, const TsSlotTraffic *st, const TsQuantity *pooled,
           GError **error)
{
  TsQuantity by_p = { 0 }, by_faces = { .by_faces = TRUE };
  for (guint i = 0; i < m->n_inputs; i++)
    if (st[i].messages_along[k] > 0)
      {
        TsPattern at = ts_pattern_at (&m->pattern, m->p[i]);
        ts_extrap_add_point (&by_p, m->p[i], bytes_along (st, i, k));
        ts_extrap_add_point (&by_faces, faces (&at, k), bytes_along (st, i, k));
      }
  TsQuantity *q = &m->bytes[k];
  if (by_p.n == 0)
    return TRUE;  /* periodic dimension of size 1 everywhere: checked by check_grid */
  if (!ts_extrap_fit_quantity (&by_p, TS_EXTRAP_BYTES_FLOOR, m->target, error)
      || !ts_extrap_fit_quantity (&by_faces, TS_EXTRAP_BYTES_FLOOR, faces (&m->at_target, k),
                                  error))
    return FALSE;
  *q = quantity_error (&by_faces) <= quantity_error (&by_p) ? by_faces : by_p;
  /* A corner's (a 1-D grid's face's) share is 1 rank at every scale: no
   * law in it, while P may show one. */
  if (distinct_x (&by_faces) == 1 && distinct_x (&by_p) > 1)
    *q = by_p;
  if (distinct_x (pooled) > distinct_x (&by_faces) && pooled->model.fit_error <= 0.01)
    *q = *pooled;
  q->at_target = MAX (0, ts_scaling_eval (&q->model, ts_extrap_target_x (m, q, k)));
  q->at_template = bytes_along (st, m->n_inputs - 1, k);
  return TRUE;
}

guint
ts_extrap_bytes_class (const TsExtrapModel *m, guint sender, guint receiver)
{
  (void) receiver;
  return (m->pattern.kind == TS_PATTERN_MASTER_WORKER || m->pattern.kind == TS_PATTERN_ALL_TO_ALL)
         && sender != 0;
}

guint
ts_extrap_n_bytes_classes_of (const TsPattern *at)
{
  switch (at->kind)
    {
    case TS_PATTERN_CARTESIAN:
      return at->diagonal ? (1u << at->n_dims) - 1 : at->n_dims;
    case TS_PATTERN_ALL_TO_ALL:
    case TS_PATTERN_MASTER_WORKER:
      return 2;
    case TS_PATTERN_BUTTERFLY:
      return at->transpose ? 2 : 1;
    default:
      return 0;
    }
}

guint
ts_extrap_n_bytes_classes (const TsExtrapModel *m)
{
  return ts_extrap_n_bytes_classes_of (&m->pattern);
}

const char *
ts_extrap_bytes_class_name (const TsExtrapModel *m, guint k, char *buffer, gsize size)
{
  if (m->pattern.kind == TS_PATTERN_ALL_TO_ALL)
    return k == 0 ? "from rank 0" : "from the other ranks";
  if (m->pattern.kind == TS_PATTERN_MASTER_WORKER)
    return k == 0 ? "from the master" : "to the master";
  if (m->pattern.kind == TS_PATTERN_BUTTERFLY)
    return k == 0 ? "to row partners (column XOR 2^k)" : "to the transpose partner";
  if (k < m->pattern.n_dims)
    {
      g_snprintf (buffer, size, "along dimension %u", k + 1);
      return buffer;
    }
  guint mask = ts_extrap_class_mask (&m->pattern, k);
  if (mask == (1u << m->pattern.n_dims) - 1)
    return "to corner neighbours (a step along every dimension)";
  guint first = (guint) g_bit_nth_lsf (mask, -1), second = (guint) g_bit_nth_lsf (mask, (gint) first);
  g_snprintf (buffer, size, "to edge neighbours (a step along dimensions %u and %u)", first + 1,
              second + 1);
  return buffer;
}

/* All-to-all and master/worker: every pair of partners exchanges as many
 * messages at every scale (one class at a time: from the master and to
 * it apart), and the bytes per message of each class are fitted in P. A
 * rank's number of partners grows with P there: the synthesis repeats its
 * loops over the partners (loops.c). */
static gboolean
fit_exchanges (TsExtrapModel *m, GError **error)
{
  guint n_classes = ts_extrap_n_bytes_classes (m);
  double per[2] = { -1, -1 };
  guint first[2] = { 0, 0 };
  for (guint i = 0; i < m->n_inputs; i++)
    {
      const TsScaleProfile *p = m->inputs[i];
      double messages[2] = { 0 }, pairs[2] = { 0 }, bytes[2] = { 0 };
      for (guint r = 0; r < p->n_ranks; r++)
        for (guint j = 0; j < p->traffic[r]->len; j++)
          {
            const TsPeerTraffic *t = &g_array_index (p->traffic[r], TsPeerTraffic, j);
            guint k = ts_extrap_bytes_class (m, r, t->peer);
            messages[k] += (double) t->sent;
            bytes[k] += (double) t->bytes_sent;
            pairs[k]++;
          }
      for (guint k = 0; k < n_classes; k++)
        {
          if (pairs[k] == 0 || messages[k] == 0)
            continue;
          char name[80];
          double here = messages[k] / pairs[k];
          if (per[k] < 0)
            {
              per[k] = here;
              first[k] = i;
            }
          else if (fabs (here - per[k]) > 1e-6 * per[k])
            return ts_extrap_refuse (error, "a rank sends %g messages to each partner (%s) at %u ranks "
                           "but %g at %u ranks: the number of exchanges changes with P, and "
                           "the output would keep the largest input's", per[k],
                           ts_extrap_bytes_class_name (m, k, name, sizeof name), m->p[first[k]],
                           here, m->p[i]);
          ts_extrap_add_point (&m->bytes[k], m->p[i], bytes[k] / messages[k]);
        }
    }
  m->messages_per_neighbour = MAX (per[0], 0);
  m->messages_from_others = per[1];
  for (guint k = 0; k < n_classes; k++)
    if (m->bytes[k].n > 0)
      {
        if (!ts_extrap_fit_quantity (&m->bytes[k], TS_EXTRAP_BYTES_FLOOR, m->target, error))
          return FALSE;
        ts_extrap_finish_quantity (m, &m->bytes[k]);
      }
  return TRUE;
}

/* Inputs whose messages cross dimension @k; the last of them in @last. */
static guint
inputs_along (const TsExtrapModel *m, const TsSlotTraffic *st, guint k, guint *last)
{
  guint n = 0;
  for (guint i = 0; i < m->n_inputs; i++)
    if (st[i].messages_along[k] > 0)
      {
        n++;
        *last = i;
      }
  return n;
}

/* A dimension whose messages one input alone shows (the second of a 2-D
 * grid, from inputs at 1, 2 and 4 ranks) takes the law of the dimension
 * most inputs show through its own point, rather than a constant, where
 * the pooled law did not fit it. Larger there, shifted: a halo exchange
 * that forwards the ghosts of the dimensions exchanged before (the
 * corners, as LAMMPS does) adds the same bytes to a later dimension's
 * face at every P. Smaller, scaled: a face of another extent. A law that
 * falls to the floor at P keeps the constant. */
static void
shift_lone_dimensions (TsExtrapModel *m, const TsSlotTraffic *st)
{
  guint donor = 0, most = 0, i = 0;
  for (guint k = 0; k < m->pattern.n_dims; k++)
    {
      guint n = inputs_along (m, st, k, &i);
      if (n > most)
        {
          most = n;
          donor = k;
        }
    }
  if (most < 2)
    return;
  for (guint k = 0; k < m->pattern.n_dims; k++)
    {
      TsQuantity *q = &m->bytes[k];
      if (inputs_along (m, st, k, &i) != 1 || distinct_x (q) > 1)
        continue;
      const TsQuantity *from = &m->bytes[donor];
      TsPattern at = ts_pattern_at (&m->pattern, m->p[i]);
      double x = from->by_faces ? faces (&at, k) : m->p[i], y = bytes_along (st, i, k);
      double there = ts_scaling_eval (&from->model, x);
      TsQuantity shifted = { .by_faces = from->by_faces, .law_from = donor + 1,
                             .model = from->model, .at_template = q->at_template };
      ts_extrap_add_point (&shifted, x, y);
      shifted.model.c0 = y >= there ? from->model.c0 + y - there : from->model.c0 * y / there;
      shifted.model.c1 *= y >= there ? 1 : y / there;
      shifted.model.fit_error = 0;
      shifted.model.cv_error = NAN;
      shifted.at_target = ts_scaling_eval (&shifted.model, ts_extrap_target_x (m, &shifted, k));
      if (there > TS_EXTRAP_BYTES_FLOOR && shifted.at_target > TS_EXTRAP_BYTES_FLOOR)
        *q = shifted;
    }
}

static gboolean
fit_point_to_point (TsExtrapModel *m, GError **error)
{
  if (m->pattern.kind == TS_PATTERN_ALL_TO_ALL || m->pattern.kind == TS_PATTERN_MASTER_WORKER)
    return fit_exchanges (m, error);
  if (m->pattern.kind != TS_PATTERN_CARTESIAN && m->pattern.kind != TS_PATTERN_BUTTERFLY)
    return TRUE;
  g_autofree char *why = NULL;
  if (!ts_extrap_counts_agree (m, &m->pattern, m->messages_per_slot, &why))
    return ts_extrap_refuse (error, "%s: the number of exchanges changes with P, and the output would "
                   "keep the largest input's", why);
  m->messages_per_neighbour = m->messages_per_slot[0];
  TsSlotTraffic st[MAX_INPUTS];
  for (guint i = 0; i < m->n_inputs; i++)
    {
      TsPattern at = ts_pattern_at (&m->pattern, m->p[i]);
      ts_extrap_slot_traffic (m->inputs[i], &at, &st[i]);
    }
  if (m->pattern.kind == TS_PATTERN_BUTTERFLY)
    {
      /* Each class by its own points: rows and transposes are no faces of
       * one domain. */
      TsQuantity none = { .by_faces = TRUE };
      for (guint k = 0; k < ts_extrap_n_bytes_classes (m); k++)
        if (!fit_bytes (m, k, st, &none, error))
          return FALSE;
      return TRUE;
    }
  TsQuantity pooled = { .by_faces = TRUE };
  for (guint i = 0; i < m->n_inputs; i++)
    {
      TsPattern at = ts_pattern_at (&m->pattern, m->p[i]);
      for (guint k = 0; k < m->pattern.n_dims; k++)
        if (st[i].messages_along[k] > 0)
          ts_extrap_add_point (&pooled, faces (&at, k), bytes_along (st, i, k));
    }
  /* Kept above 0 up to the largest face it is evaluated at. */
  double widest = 0;
  for (guint k = 0; k < m->pattern.n_dims; k++)
    widest = MAX (widest, faces (&m->at_target, k));
  if (pooled.n > 0 && !ts_extrap_fit_quantity (&pooled, TS_EXTRAP_BYTES_FLOOR, widest, error))
    return FALSE;
  /* Judged on every dimension's own points, not on their averages: faces
   * that differ between dimensions at the same x are no common law. */
  for (guint i = 0; i < pooled.n; i++)
    pooled.model.fit_error
      = MAX (pooled.model.fit_error,
             fabs (ts_scaling_eval (&pooled.model, pooled.x[i]) - pooled.y[i])
             / MAX (fabs (pooled.y[i]), TS_EXTRAP_BYTES_FLOOR));
  for (guint k = 0; k < m->pattern.n_dims; k++)
    if (!fit_bytes (m, k, st, &pooled, error))
      return FALSE;
  /* Edges and corners each by their own points: their extents are not a
   * face's. */
  TsQuantity none = { .by_faces = TRUE };
  for (guint k = m->pattern.n_dims; k < ts_extrap_n_bytes_classes (m); k++)
    if (!fit_bytes (m, k, st, &none, error))
      return FALSE;
  shift_lone_dimensions (m, st);
  return TRUE;
}

/* ---- the whole model -------------------------------------------------------- */

/* By rank count; repetitions at one count by path, so that the template
 * (the last) does not depend on the order the traces were given in. */
static gint
compare_inputs (gconstpointer a, gconstpointer b)
{
  const TsScaleProfile *x = *(TsScaleProfile *const *) a, *y = *(TsScaleProfile *const *) b;
  if (x->n_ranks != y->n_ranks)
    return x->n_ranks < y->n_ranks ? -1 : 1;
  return strcmp (x->path, y->path);
}

static gboolean
check_inputs (TsExtrapModel *m, GError **error)
{
  if (m->n_inputs < 2)
    return ts_extrap_refuse (error, "one trace (at %u ranks) shows nothing of how the program scales: "
                   "give traces at two rank counts or more (three or more for models beyond "
                   "a constant or a line)", m->p[0]);
  /* Several traces at one rank count are repetitions (Extra-P's): their
   * quantities are averaged, and how far apart they are is said. */
  for (guint i = 1; i < m->n_inputs; i++)
    if (strcmp (m->inputs[i]->path, m->inputs[i - 1]->path) == 0)
      return ts_extrap_refuse (error, "%s is given twice: a repetition at %u ranks is another "
                               "recording of the run", m->inputs[i]->path, m->p[i]);
  if (ts_extrap_n_scales (m, 0) < 2)
    return ts_extrap_refuse (error, "the %u traces all have %u ranks, which shows nothing of how "
                             "the program scales: give traces at two rank counts or more "
                             "(three or more for models beyond a constant or a line)",
                             m->n_inputs, m->p[0]);
  return TRUE;
}

guint
ts_extrap_n_scales (const TsExtrapModel *m, guint first)
{
  guint n = 0;
  for (guint i = first; i < m->n_inputs; i++)
    n += i == first || m->p[i] != m->p[i - 1];
  return n;
}

TsExtrapModel *
ts_extrap_model_build (TsScaleProfile **inputs, guint n, const TsExtrapolateOptions *o,
                       GError **error)
{
  guint target = o->ranks;
  g_return_val_if_fail (n >= 1 && target >= 1, NULL);
  g_autoptr (TsExtrapModel) m = g_new0 (TsExtrapModel, 1);
  m->inputs = g_memdup2 (inputs, n * sizeof *inputs);
  m->n_inputs = n;
  m->target = target;
  m->scaling_given = o->scaling;
  m->regions = g_ptr_array_new_with_free_func (ts_extrap_region_model_free);
  m->collectives = g_array_new (FALSE, FALSE, sizeof (TsCollectiveModel));
  m->per_partner = g_ptr_array_new_with_free_func (g_free);
  m->warnings = g_ptr_array_new_with_free_func (g_free);
  if (n > MAX_INPUTS)
    {
      ts_extrap_refuse (error, "%u traces given; at most %d are used", n, MAX_INPUTS);
      return NULL;
    }
  qsort (m->inputs, n, sizeof *m->inputs, compare_inputs);
  for (guint i = 0; i < n; i++)
    m->p[i] = m->inputs[i]->n_ranks;
  if (!check_inputs (m, error) || !ts_extrap_recognise (m, o, error) || !check_alignment (m, error)
      || !fit_point_to_point (m, error) || !ts_extrap_fit_compute (m, error)
      || !ts_extrap_fit_collectives (m, error))
    return NULL;
  ts_extrap_collect_warnings (m);
  return g_steal_pointer (&m);
}
