#include <config.h>

#include "cli/report.h"

#include <math.h>

void
ts_json_number (GString *j, const char *indent, const char *key, double v, gboolean comma)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (j, "%s\"%s\": %s%s\n", indent, key,
                          isfinite (v) ? g_ascii_dtostr (buf, sizeof buf, v) : "null",
                          comma ? "," : "");
}

void
ts_json_array (GString *j, const char *indent, const char *key, const double *v, guint n,
               gboolean comma)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (j, "%s\"%s\": [", indent, key);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (j, "%s%s", i ? ", " : "",
                            isfinite (v[i]) ? g_ascii_dtostr (buf, sizeof buf, v[i]) : "null");
  g_string_append_printf (j, "]%s\n", comma ? "," : "");
}

static void
spread (const double *v, guint n, double *min, double *max)
{
  *min = INFINITY;
  *max = -INFINITY;
  for (guint i = 0; i < n; i++)
    {
      *min = MIN (*min, v[i]);
      *max = MAX (*max, v[i]);
    }
}

typedef struct {
  guint region;
  double seconds;
} RegionTime;

static gint
by_seconds (gconstpointer a, gconstpointer b)
{
  const RegionTime *x = a, *y = b;
  return x->seconds > y->seconds ? -1 : x->seconds < y->seconds;
}

static void
top_regions (FILE *out, const TsTrace *trace, const TsProfile *p, guint count)
{
  GArray *rt = g_array_new (FALSE, FALSE, sizeof (RegionTime));
  for (guint r = 0; r < p->n_regions; r++)
    if (p->region_visits[r] > 0)
      {
        RegionTime x = { r, p->region_seconds[r] };
        g_array_append_val (rt, x);
      }
  g_array_sort (rt, by_seconds);
  fprintf (out, "  %-32s %12s %14s\n", "region (inclusive, all ranks)", "visits", "seconds");
  for (guint i = 0; i < rt->len && i < count; i++)
    {
      RegionTime *x = &g_array_index (rt, RegionTime, i);
      fprintf (out, "  %-32s %12" G_GUINT64_FORMAT " %14.6f\n",
               ts_trace_region_name (trace, x->region), p->region_visits[x->region], x->seconds);
    }
  g_array_unref (rt);
}

/* Where the time went: the regions that took longest before or after, with
 * the change (a region that got faster, or an MPI call that now waits more). */
static void
before_after (FILE *out, const TsTrace *trace, const TsProfile *p, const TsReplayResult *res,
              guint count)
{
  GArray *rt = g_array_new (FALSE, FALSE, sizeof (RegionTime));
  for (guint r = 0; r < p->n_regions; r++)
    if (p->region_visits[r] > 0)
      {
        RegionTime x = { r, MAX (p->region_seconds[r], res->region_seconds[r]) };
        g_array_append_val (rt, x);
      }
  g_array_sort (rt, by_seconds);
  fprintf (out, "  %-28s %9s %12s %12s %12s\n", "region (inclusive, all ranks)", "visits",
           "original s", "predicted s", "change s");
  for (guint i = 0; i < rt->len && i < count; i++)
    {
      guint r = g_array_index (rt, RegionTime, i).region;
      fprintf (out, "  %-28s %9" G_GUINT64_FORMAT " %12.6f %12.6f %+12.6f\n",
               ts_trace_region_name (trace, r), p->region_visits[r], p->region_seconds[r],
               res->region_seconds[r], res->region_seconds[r] - p->region_seconds[r]);
    }
  g_array_unref (rt);
}

void
ts_report_run (FILE *out, const TsTrace *trace, const TsProfile *p, const TsReplayResult *res,
               const char *output_dir, double wall)
{
  double omin, omax, pmin, pmax;
  spread (p->rank_end, p->n_ranks, &omin, &omax);
  spread ((const double *) res->rank_end->data, res->n_ranks, &pmin, &pmax);
  fprintf (out, "tracesim: %s (%u ranks)\n", ts_trace_path (trace), p->n_ranks);
  fprintf (out, "  original runtime   %12.6f s   rank ends %.6f .. %.6f s\n", p->runtime, omin, omax);
  fprintf (out, "  predicted runtime  %12.6f s   rank ends %.6f .. %.6f s\n", res->runtime, pmin, pmax);
  if (p->runtime > 0 && res->runtime > 0)
    fprintf (out, "  speed-up           %12.4f x (prediction / original %.4f)\n",
             p->runtime / res->runtime, res->runtime / p->runtime);
  if (p->clocks_aligned)
    fprintf (out, "  clocks aligned: %u synchronising collectives were not causal, "
             "%u collectives after the first estimate\n", p->sync_violations, p->coll_repairs);
  if (p->clocks_drift)
    fprintf (out, "  clocks drift: no offset per rank makes every collective causal\n");
  before_after (out, trace, p, res, 10);
  fprintf (out, "  %" G_GUINT64_FORMAT " actions replayed (%" G_GUINT64_FORMAT
           " simcalls) in %.3f s\n", res->actions_replayed, res->simcalls, wall);
  fprintf (out, "  written: %s/summary.json, %s/waitstates.csv, %s/predicted/traces.otf2\n",
           output_dir, output_dir, output_dir);
}

void
ts_report_info (FILE *out, const TsTrace *trace, const TsProfile *p)
{
  guint64 events = 0, calls[3] = { 0 };
  double secs[3] = { 0 };
  for (guint r = 0; r < p->n_ranks; r++)
    {
      events += p->rank_stats[r].events;
      for (int i = 0; i < 3; i++)
        {
          calls[i] += p->rank_stats[r].calls[i];
          secs[i] += p->rank_stats[r].call_seconds[i];
        }
    }
  fprintf (out, "trace:      %s\n", ts_trace_path (trace));
  fprintf (out, "creator:    %s\n", *ts_trace_creator (trace) ? ts_trace_creator (trace) : "(unknown)");
  fprintf (out, "ranks:      %u\n", p->n_ranks);
  fprintf (out, "events:     %" G_GUINT64_FORMAT "\n", events);
  fprintf (out, "span:       %.6f s\n", p->runtime);
  fprintf (out, "regions:    %u\n", ts_trace_n_regions (trace));
  fprintf (out, "comms:      %u\n", ts_trace_n_comms (trace));
  for (guint r = 0; r < p->n_ranks; r++)
    fprintf (out, "  rank %-4u events %10" G_GUINT64_FORMAT "  end %.6f s  clock offset %+.6f s\n",
             r, p->rank_stats[r].events, p->rank_end[r], p->clock_offset[r]);
  if (p->clocks_aligned)
    fprintf (out, "clocks:     aligned (%u synchronising collectives were not causal; "
             "%u collectives still not causal after the first estimate)\n",
             p->sync_violations, p->coll_repairs);
  else if (p->clocks_drift)
    fprintf (out, "clocks:     drifting (no offset per rank makes every collective causal)\n");
  else
    fprintf (out, "clocks:     causal as recorded\n");
  guint64 all = calls[0] + calls[1] + calls[2];
  double all_s = secs[0] + secs[1] + secs[2];
  static const char *names[] = { "recorded", "inferred", "missing" };
  fprintf (out, "MPI calls by message information:\n");
  for (int i = 0; i < 3; i++)
    fprintf (out, "  %-9s %10" G_GUINT64_FORMAT " calls (%5.1f%%)  %12.6f s (%5.1f%% of MPI time)\n",
             names[i], calls[i], all ? 100.0 * calls[i] / all : 0, secs[i],
             all_s > 0 ? 100.0 * secs[i] / all_s : 0);
  if (p->fit_samples)
    fprintf (out, "network fit: latency %.3g s, bandwidth %.3g B/s (%u size classes)\n",
             p->latency, p->bandwidth, p->fit_samples);
  else
    fprintf (out, "network: latency %.3g s, bandwidth %.3g B/s (defaults: no blocking receive "
             "to fit)\n", TS_PROFILE_DEFAULT_LATENCY, TS_PROFILE_DEFAULT_BANDWIDTH);
  const guint *against = p->binomial_contradictions;
  if (against[TS_BINOMIAL_MPICH] == against[TS_BINOMIAL_OPENMPI])
    fprintf (out, "binomial trees: MPICH's, assumed (no call of %u broadcasts and reductions on "
             "4 ranks or more tells the shapes apart)\n", p->binomial_samples);
  else
    fprintf (out, "binomial trees: %s's (of %u broadcasts and reductions on 4 ranks or more, "
             "calls contradicting MPICH's shape: %u, Open MPI's: %u)\n",
             p->binomial_tree == TS_BINOMIAL_MPICH ? "MPICH" : "Open MPI", p->binomial_samples,
             against[TS_BINOMIAL_MPICH], against[TS_BINOMIAL_OPENMPI]);
  top_regions (out, trace, p, 20);
}

void
ts_report_wait_states (FILE *out, const TsTrace *trace, const TsWaitStates *original,
                       const TsWaitStates *predicted)
{
  guint n = ts_trace_n_ranks (trace);
  fprintf (out, "  %-24s %12s%s\n", "wait states (s, all ranks)", "original",
           predicted ? "    predicted" : "");
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    {
      fprintf (out, "  %-24s %12.6f", ts_wait_pattern_name (p), ts_wait_states_total (original, p));
      if (predicted)
        fprintf (out, " %12.6f", ts_wait_states_total (predicted, p));
      fputc ('\n', out);
    }
  if (predicted || n > 16)
    return;
  fprintf (out, "  %-24s", "per rank (original)");
  for (guint r = 0; r < n; r++)
    fprintf (out, "     rank %2u", r);
  fputc ('\n', out);
  for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
    {
      fprintf (out, "  %-24s", ts_wait_pattern_name (p));
      for (guint r = 0; r < n; r++)
        fprintf (out, " %11.6f", ts_wait_states_rank (original, p, r));
      fputc ('\n', out);
    }
}

typedef struct {
  GString *csv;
  const char *phase;
  const TsTrace *trace;
} CsvCtx;

static void
csv_row (TsWaitPattern p, guint region, guint rank, double seconds, gpointer data)
{
  CsvCtx *c = data;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (value, sizeof value, "%.9f", seconds);
  g_string_append_printf (c->csv, "%s,%s,%s,%u,%s\n", c->phase, ts_wait_pattern_name (p),
                          ts_trace_region_name (c->trace, region), rank, value);
}

void
ts_wait_states_csv (GString *csv, const char *phase, const TsTrace *trace, const TsWaitStates *w)
{
  CsvCtx c = { csv, phase, trace };
  ts_wait_states_foreach (w, csv_row, &c);
}
