#include <config.h>

#include "output/result.h"

static void
input_file_clear (gpointer data)
{
  TsInputFile *f = data;
  g_free (f->path);
  g_free (f->sha256);
}

static void
region_clear (gpointer data)
{
  g_free (((TsRegionResult *) data)->name);
}

TsRunResult *
ts_run_result_new (guint n_ranks)
{
  TsRunResult *r = g_new0 (TsRunResult, 1);
  r->n_ranks = n_ranks;
  r->original_rank_end = g_new0 (double, n_ranks);
  r->clock_offset = g_new0 (double, n_ranks);
  r->predicted_rank_end = g_new0 (double, n_ranks);
  r->predicted_rank_time = g_new0 (TsRankTime, n_ranks);
  r->regions = g_array_new (FALSE, TRUE, sizeof (TsRegionResult));
  g_array_set_clear_func (r->regions, region_clear);
  r->inputs.hypotheses = g_array_new (FALSE, TRUE, sizeof (TsInputFile));
  g_array_set_clear_func (r->inputs.hypotheses, input_file_clear);
  r->written = g_ptr_array_new_with_free_func (g_free);
  return r;
}

void
ts_run_result_free (TsRunResult *r)
{
  if (!r)
    return;
  g_free (r->inputs.trace);
  g_array_unref (r->inputs.hypotheses);
  input_file_clear (&r->inputs.platform);
  g_free (r->inputs.hostfile);
  g_strfreev (r->inputs.simgrid_cfg);
  g_free (r->original_rank_end);
  g_free (r->clock_offset);
  g_free (r->predicted_rank_end);
  g_free (r->predicted_rank_time);
  g_array_unref (r->regions);
  g_free (r->output_dir);
  g_ptr_array_unref (r->written);
  g_free (r->report_failure);
  g_free (r->threads_note);
  g_free (r);
}

double
ts_run_result_speedup (const TsRunResult *r)
{
  return r->predicted_runtime > 0 ? r->original_runtime / r->predicted_runtime : 0;
}

TsRankTime
ts_run_result_time (const TsRunResult *r)
{
  TsRankTime t = { 0, 0, 0 };
  for (guint i = 0; i < r->n_ranks; i++)
    {
      t.work += r->predicted_rank_time[i].work;
      t.simulated += r->predicted_rank_time[i].simulated;
      t.residual += r->predicted_rank_time[i].residual;
    }
  return t;
}

static gint
by_residual (gconstpointer a, gconstpointer b)
{
  const TsRegionResult *x = *(TsRegionResult *const *) a, *y = *(TsRegionResult *const *) b;
  return (x->residual_s < y->residual_s) - (x->residual_s > y->residual_s);
}

GPtrArray *
ts_run_result_residual_calls (const TsRunResult *r, guint max)
{
  GPtrArray *calls = g_ptr_array_new ();
  for (guint i = 0; i < r->regions->len; i++)
    {
      TsRegionResult *x = &g_array_index (r->regions, TsRegionResult, i);
      /* Below half a microsecond it is the rounding of a subtraction
       * (a call's duration less its wait and transfer), not a residual. */
      if (x->residual_s >= 5e-7)
        g_ptr_array_add (calls, x);
    }
  g_ptr_array_sort (calls, by_residual);
  if (calls->len > max)
    g_ptr_array_set_size (calls, max);
  return calls;
}
