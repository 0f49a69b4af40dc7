#include <config.h>

/* Wait states kept on disk with the first pass they came from
 * (calibrate/saved.c), so that a sweep's resumes and Slurm tasks do not
 * analyse the original execution again. */
#include "analysis/waitstates-private.h"

#include <gio/gio.h>
#include <string.h>

GVariant *
ts_wait_states_save (const TsWaitStates *w)
{
  GVariantBuilder cells;
  g_variant_builder_init (&cells, G_VARIANT_TYPE ("a(td)"));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, w->cells);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_variant_builder_add (&cells, "(td)", ((TsWaitCell *) k)->key, ((TsWaitCell *) k)->seconds);
  return g_variant_new ("(u@ada(td))", w->n_ranks,
                        g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, w->totals,
                                                   (gsize) TS_WAIT_N_PATTERNS * w->n_ranks,
                                                   sizeof (double)),
                        &cells);
}

TsWaitStates *
ts_wait_states_load (const TsTrace *trace, GVariant *saved, GError **error)
{
  guint n_ranks = ts_trace_n_ranks (trace), n_regions = ts_trace_n_regions (trace);
  guint ranks = 0;
  g_autoptr (GVariant) totals = NULL, cells = NULL;
  gboolean ok = g_variant_is_of_type (saved, G_VARIANT_TYPE ("(uada(td))"));
  if (ok)
    g_variant_get (saved, "(u@ad@a(td))", &ranks, &totals, &cells);
  gsize n_totals = 0;
  const double *t = ok ? g_variant_get_fixed_array (totals, &n_totals, sizeof (double)) : NULL;
  ok = ok && ranks == n_ranks && n_totals == (gsize) TS_WAIT_N_PATTERNS * n_ranks;
  TsWaitStates *w = g_new0 (TsWaitStates, 1);
  w->trace = trace;
  w->n_ranks = n_ranks;
  w->totals = g_new0 (double, MAX (TS_WAIT_N_PATTERNS * n_ranks, 1));
  w->cells = ts_wait_cells_new ();
  if (ok)
    {
      memcpy (w->totals, t, n_totals * sizeof (double));
      GVariantIter it;
      g_variant_iter_init (&it, cells);
      guint64 key;
      double seconds;
      while (ok && g_variant_iter_next (&it, "(td)", &key, &seconds))
        {
          /* The key packs pattern, region and rank (waitstates.c). */
          ok = (key >> 56) < TS_WAIT_N_PATTERNS && ((key >> 28) & 0xfffffff) < n_regions
               && (key & 0xfffffff) < n_ranks;
          *ts_wait_cell (w->cells, key) = seconds;
        }
    }
  if (!ok)
    {
      ts_wait_states_free (w);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the saved wait states do not fit the trace's definitions");
      return NULL;
    }
  return w;
}
