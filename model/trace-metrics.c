#include <config.h>

/* A trace's CPU time metric (ts_trace_set_compute_clock): found among the
 * metric definitions by name, tracesim-record's "cpu_time" or Score-P's
 * rusage "ru_utime", with the seconds its unit is worth. */
#include "model/trace-private.h"

#include <math.h>
#include <string.h>

typedef struct {
  OTF2_MetricMemberRef self;
  OTF2_StringRef name, unit;
  OTF2_Base base;
  int64_t exponent;
} RawMember;

typedef struct {
  OTF2_MetricRef self;
  GArray *members;               /* OTF2_MetricMemberRef */
} RawClass;

struct TsRawMetrics {
  GArray *members;               /* RawMember */
  GArray *classes;               /* RawClass */
};

TsRawMetrics *
ts_raw_metrics_new (void)
{
  TsRawMetrics *m = g_new0 (TsRawMetrics, 1);
  m->members = g_array_new (FALSE, FALSE, sizeof (RawMember));
  m->classes = g_array_new (FALSE, FALSE, sizeof (RawClass));
  return m;
}

void
ts_raw_metrics_free (TsRawMetrics *m)
{
  if (!m)
    return;
  for (guint i = 0; i < m->classes->len; i++)
    g_array_unref (g_array_index (m->classes, RawClass, i).members);
  g_array_unref (m->classes);
  g_array_unref (m->members);
  g_free (m);
}

static OTF2_CallbackCode
on_member (void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef description,
           OTF2_MetricType type, OTF2_MetricMode mode, OTF2_Type value_type, OTF2_Base base,
           int64_t exponent, OTF2_StringRef unit)
{
  RawMember m = { self, name, unit, base, exponent };
  g_array_append_val (ts_def_state_metrics (ud)->members, m);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_class (void *ud, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
          OTF2_MetricOccurrence occurrence, OTF2_RecorderKind kind)
{
  RawClass c = { self, g_array_sized_new (FALSE, FALSE, sizeof (OTF2_MetricMemberRef), n) };
  g_array_append_vals (c.members, members, n);
  g_array_append_val (ts_def_state_metrics (ud)->classes, c);
  return OTF2_CALLBACK_SUCCESS;
}

void
ts_raw_metrics_register (OTF2_GlobalDefReaderCallbacks *cbs)
{
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback (cbs, on_member);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback (cbs, on_class);
}

/* Seconds per unit of a CPU time member, or 0 if it is none. */
static double
cpu_seconds (const RawMember *m, GHashTable *strings)
{
  const char *name = g_hash_table_lookup (strings, GUINT_TO_POINTER (m->name + 1));
  const char *unit = g_hash_table_lookup (strings, GUINT_TO_POINTER (m->unit + 1));
  if (!name || !unit || (strcmp (name, "cpu_time") != 0 && strcmp (name, "ru_utime") != 0))
    return 0;
  static const struct { const char *unit; double seconds; } units[] = {
    { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "usec", 1e-6 }, { "ns", 1e-9 },
  };
  double scale = m->base == OTF2_BASE_BINARY ? ldexp (1, (int) m->exponent)
                                             : pow (10, (double) m->exponent);
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (strcmp (unit, units[i].unit) == 0)
      return units[i].seconds * scale;
  return 0;
}

void
ts_raw_metrics_resolve (TsRawMetrics *raw, TsTrace *t, GHashTable *strings)
{
  t->cpu_metric = OTF2_UNDEFINED_METRIC;
  for (guint c = 0; c < raw->classes->len && t->cpu_metric == OTF2_UNDEFINED_METRIC; c++)
    {
      const RawClass *k = &g_array_index (raw->classes, RawClass, c);
      for (guint i = 0; i < k->members->len; i++)
        for (guint j = 0; j < raw->members->len; j++)
          {
            const RawMember *m = &g_array_index (raw->members, RawMember, j);
            double seconds = m->self == g_array_index (k->members, OTF2_MetricMemberRef, i)
                             ? cpu_seconds (m, strings) : 0;
            if (seconds > 0 && t->cpu_metric == OTF2_UNDEFINED_METRIC)
              {
                t->cpu_metric = k->self;
                t->cpu_member = i;
                t->cpu_seconds_per_unit = seconds;
              }
          }
    }
}

gboolean
ts_trace_set_compute_clock (TsTrace *t, TsComputeClock clock, GError **error)
{
  /* The load's estimate comes with its load (ts_trace_set_node_load). */
  g_return_val_if_fail (clock != TS_COMPUTE_LOAD || t->node_load, FALSE);
  if (clock == TS_COMPUTE_CPU && t->cpu_metric == OTF2_UNDEFINED_METRIC)
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_DEFINITIONS,
                   "%s: no CPU time metric to take compute from (record with "
                   "`tracesim-record --cpu-time`, or Score-P with SCOREP_METRIC_RUSAGE=ru_utime)",
                   t->path);
      return FALSE;
    }
  t->compute_clock = clock;
  return TRUE;
}

void
ts_trace_set_node_load (TsTrace *t, TsNodeLoad *load)
{
  ts_node_load_free (t->node_load);
  t->node_load = load;
  t->compute_clock = TS_COMPUTE_LOAD;
}

const TsNodeLoad *
ts_trace_node_load (const TsTrace *t)
{
  return t->node_load;
}

gboolean
ts_trace_has_cpu_time (const TsTrace *t)
{
  return t->cpu_metric != OTF2_UNDEFINED_METRIC;
}
