#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/extrap-private.h"

#include "model/output_dir.h"

#include <gio/gio.h>

gboolean
ts_boundaries_parse (const char *text, TsBoundaries *b)
{
  if (g_strcmp0 (text, "periodic") == 0)
    *b = TS_BOUNDARIES_PERIODIC;
  else if (g_strcmp0 (text, "open") == 0)
    *b = TS_BOUNDARIES_OPEN;
  else
    return FALSE;
  return TRUE;
}

static const char *const factor_names[] = { "largest", "middle", "smallest" };

/* Named orders: TS_GRID_ORDER_NAMED + 27 (n - 2) + the factors as base-3
 * digits, the first dimension's the most significant. */
gboolean
ts_grid_order_parse (const char *text, TsGridOrder *g)
{
  if (g_strcmp0 (text, "largest-first") == 0)
    *g = TS_GRID_ORDER_LARGEST_FIRST;
  else if (g_strcmp0 (text, "largest-last") == 0)
    *g = TS_GRID_ORDER_LARGEST_LAST;
  else
    {
      g_auto (GStrv) names = g_strsplit (text ? text : "", ",", -1);
      guint n = g_strv_length (names), code = 0, seen = 0;
      if (n < 2 || n > 3)
        return FALSE;
      for (guint k = 0; k < n; k++)
        {
          guint f = 0;
          while (f < 3 && g_strcmp0 (g_strstrip (names[k]), factor_names[f]) != 0)
            f++;
          /* Two dimensions have a largest and a smallest factor. */
          if (f == 3 || (n == 2 && f == 1) || (seen & (1u << f)))
            return FALSE;
          seen |= 1u << f;
          code = code * 3 + (n == 2 && f == 2 ? 1 : f);
        }
      *g = (TsGridOrder) (TS_GRID_ORDER_NAMED + 27 * (n - 2) + code);
    }
  return TRUE;
}

gboolean
ts_grid_order_factors (TsGridOrder g, guint n_dims, guint8 *factors)
{
  g_return_val_if_fail (g != TS_GRID_ORDER_UNKNOWN && n_dims >= 1 && n_dims <= 3, FALSE);
  guint code = g < TS_GRID_ORDER_NAMED ? 0 : (guint) g - TS_GRID_ORDER_NAMED;
  if (g >= TS_GRID_ORDER_NAMED && 2 + code / 27 != n_dims)
    return FALSE;
  for (guint k = 0; k < n_dims; k++)
    factors[k] = (guint8) (g == TS_GRID_ORDER_LARGEST_LAST ? n_dims - 1 - k : k);
  if (g < TS_GRID_ORDER_NAMED)
    return TRUE;
  guint n = n_dims;
  code %= 27;
  for (guint k = n; k-- > 0; code /= 3)
    factors[k] = (guint8) (code % 3);
  return TRUE;
}

TsGridOrder
ts_grid_order_of_factors (guint n_dims, const guint8 *factors)
{
  g_return_val_if_fail (n_dims >= 1 && n_dims <= 3, TS_GRID_ORDER_UNKNOWN);
  gboolean first = TRUE, last = TRUE;
  guint code = 0;
  for (guint k = 0; k < n_dims; k++)
    {
      first &= factors[k] == k;
      last &= factors[k] == n_dims - 1 - k;
      code = code * 3 + factors[k];
    }
  if (first || n_dims == 1)
    return TS_GRID_ORDER_LARGEST_FIRST;
  if (last)
    return TS_GRID_ORDER_LARGEST_LAST;
  return (TsGridOrder) (TS_GRID_ORDER_NAMED + 27 * (n_dims - 2) + code);
}

char *
ts_grid_order_name (TsGridOrder g)
{
  if (g == TS_GRID_ORDER_UNKNOWN)
    return NULL;
  if (g < TS_GRID_ORDER_NAMED)
    return g_strdup (g == TS_GRID_ORDER_LARGEST_LAST ? "largest-last" : "largest-first");
  guint n = 2 + ((guint) g - TS_GRID_ORDER_NAMED) / 27;
  guint8 factors[3];
  ts_grid_order_factors (g, n, factors);
  GString *s = g_string_new (NULL);
  for (guint k = 0; k < n; k++)
    g_string_append_printf (s, "%s%s", k ? "," : "",
                            factor_names[n == 2 && factors[k] == 1 ? 2 : factors[k]]);
  return g_string_free (s, FALSE);
}

gboolean
ts_scaling_kind_parse (const char *text, TsScaling *s)
{
  if (g_strcmp0 (text, "strong") == 0)
    *s = TS_SCALING_STRONG;
  else if (g_strcmp0 (text, "weak") == 0)
    *s = TS_SCALING_WEAK;
  else
    return FALSE;
  return TRUE;
}

/* Every input profiled, or none: NULL and @error at the first that fails. */
static TsScaleProfile **
read_inputs (const char *const *traces, guint n, TsComputeClock clock, GError **error)
{
  TsScaleProfile **inputs = g_new0 (TsScaleProfile *, n);
  for (guint i = 0; i < n; i++)
    {
      inputs[i] = ts_scale_profile_read (traces[i], clock, error);
      if (!inputs[i])
        {
          for (guint j = 0; j < i; j++)
            ts_scale_profile_free (inputs[j]);
          g_free (inputs);
          return NULL;
        }
    }
  return inputs;
}

/* The trace, and model.txt and model.json; @text gets what the synthesis
 * adds to the explanation. */
static gboolean
write_outputs (const TsExtrapModel *m, const char *output_dir, GString *text, GError **error)
{
  TsOutputDir *out = ts_output_dir_new (output_dir, error);
  if (!out)
    return FALSE;
  const char *tmp = ts_output_dir_get_tmp_path (out);
  g_autofree char *txt_path = g_build_filename (tmp, "model.txt", NULL);
  g_autofree char *json_path = g_build_filename (tmp, "model.json", NULL);
  g_autofree char *json = ts_extrap_explain_json (m);
  if (!ts_extrap_synthesize (m, tmp, text, error)
      || !ts_output_dir_write_file (txt_path, text->str, text->len, error)
      || !ts_output_dir_write_file (json_path, json, strlen (json), error))
    {
      ts_output_dir_discard (out);
      return FALSE;
    }
  return ts_output_dir_commit (out, error);
}

gboolean
ts_extrapolate (const char *const *traces, guint n_traces, const TsExtrapolateOptions *o,
                GString *explanation, GError **error)
{
  g_return_val_if_fail (traces != NULL && n_traces >= 1 && o != NULL, FALSE);
  g_return_val_if_fail (o->ranks >= 1 && o->output_dir != NULL, FALSE);
  g_autofree TsScaleProfile **inputs = read_inputs (traces, n_traces, o->cpu_time ? TS_COMPUTE_CPU : TS_COMPUTE_WALL, error);
  if (!inputs)
    return FALSE;
  g_autoptr (TsExtrapModel) m = ts_extrap_model_build (inputs, n_traces, o, error);
  if (!m)
    return FALSE;
  g_autoptr (GString) text = g_string_new (NULL);
  ts_extrap_explain_text (m, text);
  if (!write_outputs (m, o->output_dir, text, error))
    return FALSE;
  if (explanation)
    g_string_append_len (explanation, text->str, (gssize) text->len);
  for (guint i = 0; o->warnings && i < m->warnings->len; i++)
    g_ptr_array_add (o->warnings, g_strdup (m->warnings->pdata[i]));
  return TRUE;
}
