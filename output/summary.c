#include <config.h>

#include "output/summary.h"
#include "model/output_dir.h"

#include <math.h>

void
ts_json_add_double (JsonBuilder *b, const char *name, double v)
{
  if (name)
    json_builder_set_member_name (b, name);
  if (isfinite (v))
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
add_double_array (JsonBuilder *b, const char *name, const double *v, guint n)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    ts_json_add_double (b, NULL, v[i]);
  json_builder_end_array (b);
}

/* Each rank's predicted time by kind (doc/architecture.md, "Three kinds of
 * time"): work_s[r] + simulated_s[r] + residual_s[r] = rank_end_s[r]. */
static void
add_rank_time (JsonBuilder *b, const TsRunResult *r)
{
  static const char *const names[3] = { "work_s", "simulated_s", "residual_s" };
  for (guint k = 0; k < 3; k++)
    {
      json_builder_set_member_name (b, names[k]);
      json_builder_begin_array (b);
      for (guint i = 0; i < r->n_ranks; i++)
        {
          const TsRankTime *t = &r->predicted_rank_time[i];
          ts_json_add_double (b, NULL, k == 0 ? t->work : k == 1 ? t->simulated : t->residual);
        }
      json_builder_end_array (b);
    }
}

static void
add_input_file (JsonBuilder *b, const TsInputFile *f)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, f->path);
  json_builder_set_member_name (b, "sha256");
  json_builder_add_string_value (b, f->sha256);
  json_builder_end_object (b);
}

/* What produced this result: two output directories with the same inputs
 * hold the same prediction. */
static void
add_inputs (JsonBuilder *b, const TsRunInputs *in)
{
  json_builder_set_member_name (b, "inputs");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "trace");
  json_builder_add_string_value (b, in->trace);
  json_builder_set_member_name (b, "hypotheses");
  json_builder_begin_array (b);
  for (guint i = 0; i < in->hypotheses->len; i++)
    add_input_file (b, &g_array_index (in->hypotheses, TsInputFile, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "platform");
  if (in->platform.path)
    add_input_file (b, &in->platform);
  else
    json_builder_add_string_value (b, "calibrated");
  json_builder_set_member_name (b, "hostfile");
  if (in->hostfile)
    json_builder_add_string_value (b, in->hostfile);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "options");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ranks_per_node");
  if (in->ranks_per_node)
    json_builder_add_int_value (b, in->ranks_per_node);
  else
    json_builder_add_string_value (b, "cores");
  json_builder_set_member_name (b, "placement");
  json_builder_add_string_value (b, in->hostfile ? "hostfile" : in->placement);
  json_builder_set_member_name (b, "eager_threshold");
  json_builder_add_string_value (b, in->eager_inferred ? "inferred" : "given");
  json_builder_set_member_name (b, "binomial_tree");
  json_builder_add_string_value (b, in->binomial_tree_given ? "given" : "inferred");
  ts_json_add_double (b, "trace_speed", in->trace_speed);
  json_builder_set_member_name (b, "exact_cpu");
  json_builder_add_boolean_value (b, in->exact_cpu);
  json_builder_set_member_name (b, "cpu_time");
  json_builder_add_boolean_value (b, in->cpu_time);
  json_builder_set_member_name (b, "cpu_time_estimated");
  json_builder_add_boolean_value (b, in->cpu_estimated);
  json_builder_set_member_name (b, "calls_fair_share");
  if (isnan (in->calls_fair_share))
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, in->calls_fair_share);
  json_builder_set_member_name (b, "residual");
  json_builder_add_string_value (b, in->residual);
  json_builder_set_member_name (b, "mpi_progress");
  json_builder_add_string_value (b, in->mpi_progress);
  json_builder_set_member_name (b, "mpi_wait");
  json_builder_add_string_value (b, in->mpi_wait);
  json_builder_set_member_name (b, "omp_wait");
  json_builder_add_string_value (b, in->omp_active ? "active" : "passive");
  json_builder_set_member_name (b, "omp_costs_s");
  json_builder_begin_array (b);
  json_builder_add_double_value (b, in->omp_fork_cost);
  json_builder_add_double_value (b, in->omp_barrier_cost);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "shared_cores");
  json_builder_add_boolean_value (b, in->shared_cores);
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) in->seed);
  json_builder_set_member_name (b, "wait_states");
  json_builder_add_boolean_value (b, in->wait_states);
  json_builder_set_member_name (b, "wait_regions");
  json_builder_add_boolean_value (b, in->wait_regions);
  json_builder_set_member_name (b, "cfg");
  json_builder_begin_array (b);
  for (guint i = 0; in->simgrid_cfg && in->simgrid_cfg[i]; i++)
    json_builder_add_string_value (b, in->simgrid_cfg[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
}

static void
add_regions (JsonBuilder *b, const TsRunResult *r)
{
  json_builder_set_member_name (b, "regions");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->regions->len; i++)
    {
      const TsRegionResult *x = &g_array_index (r->regions, TsRegionResult, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, x->name);
      json_builder_set_member_name (b, "visits");
      json_builder_add_int_value (b, (gint64) x->visits);
      ts_json_add_double (b, "original_s", x->original_s);
      ts_json_add_double (b, "predicted_s", x->predicted_s);
      ts_json_add_double (b, "residual_s", x->residual_s);
      json_builder_set_member_name (b, "what_if");
      json_builder_add_boolean_value (b, x->what_if);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_wait_states (JsonBuilder *b, const TsRunResult *r)
{
  json_builder_set_member_name (b, "wait_states");
  json_builder_begin_object (b);
  const double *phases[2] = { r->wait_original, r->wait_predicted };
  for (guint ph = 0; ph < 2; ph++)
    {
      json_builder_set_member_name (b, ph ? "predicted" : "original");
      json_builder_begin_object (b);
      for (guint p = 0; p < TS_WAIT_N_PATTERNS; p++)
        ts_json_add_double (b, ts_wait_pattern_name (p), phases[ph][p]);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

/* How much of the MPI communication the trace recorded, and how much was
 * inferred or is missing (replayed as the time it took). */
static void
add_messages (JsonBuilder *b, const TsMessageInfo *m)
{
  static const char *const names[3] = { "recorded", "inferred", "missing" };
  double all = m->seconds[0] + m->seconds[1] + m->seconds[2];
  json_builder_set_member_name (b, "mpi_calls");
  json_builder_begin_object (b);
  for (guint k = 0; k < 3; k++)
    {
      json_builder_set_member_name (b, names[k]);
      json_builder_add_int_value (b, (gint64) m->calls[k]);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "mpi_time_share");
  json_builder_begin_object (b);
  for (guint k = 0; k < 3; k++)
    ts_json_add_double (b, names[k], all > 0 ? m->seconds[k] / all : 0.0);
  json_builder_end_object (b);
}

void
ts_summary_add_matching (JsonBuilder *b, const TsRunResult *r)
{
  json_builder_set_member_name (b, "matching");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "guessed_receives");
  json_builder_add_int_value (b, r->guessed_receives);
  json_builder_set_member_name (b, "taken_as_arrived");
  json_builder_add_boolean_value (b, r->guessed_taken_as_arrived);
  json_builder_set_member_name (b, "status_receives");
  json_builder_add_int_value (b, r->status_receives);
  json_builder_set_member_name (b, "status_taken_as_arrived");
  json_builder_add_boolean_value (b, r->status_taken_as_arrived);
  json_builder_set_member_name (b, "revisions");
  json_builder_add_int_value (b, r->revisions);
  json_builder_set_member_name (b, "buffered_pairs");
  json_builder_add_int_value (b, r->buffered_pairs);
  json_builder_end_object (b);
}

/* "threads": every rank's CPU threads in the trace, those replayed (each
 * rank's own location) and the events of the others, which are not. */
static void
add_threads (JsonBuilder *b, const TsRunResult *r)
{
  json_builder_set_member_name (b, "threads");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "locations");
  json_builder_add_int_value (b, r->threads);
  json_builder_set_member_name (b, "replayed");
  json_builder_add_int_value (b, r->n_ranks);
  json_builder_set_member_name (b, "events_not_replayed");
  json_builder_add_int_value (b, (gint64) r->thread_events_unreplayed);
  json_builder_end_object (b);
}

JsonNode *
ts_summary_to_json (const TsRunResult *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "tracesim_version");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "trace");
  json_builder_add_string_value (b, r->inputs.trace);
  add_inputs (b, &r->inputs);
  json_builder_set_member_name (b, "ranks");
  json_builder_add_int_value (b, r->n_ranks);
  add_threads (b, r);
  json_builder_set_member_name (b, "original");
  json_builder_begin_object (b);
  ts_json_add_double (b, "runtime_s", r->original_runtime);
  add_double_array (b, "rank_end_s", r->original_rank_end, r->n_ranks);
  add_double_array (b, "clock_offset_s", r->clock_offset, r->n_ranks);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "predicted");
  json_builder_begin_object (b);
  ts_json_add_double (b, "runtime_s", r->predicted_runtime);
  add_double_array (b, "rank_end_s", r->predicted_rank_end, r->n_ranks);
  add_rank_time (b, r);
  json_builder_end_object (b);
  ts_json_add_double (b, "speedup", ts_run_result_speedup (r));
  json_builder_set_member_name (b, "eager_threshold_bytes");
  json_builder_add_int_value (b, (gint64) r->eager_threshold);
  json_builder_set_member_name (b, "binomial_tree");
  json_builder_add_string_value (b, ts_binomial_tree_name (r->binomial_tree));
  add_regions (b, r);
  if (r->has_wait_states)
    add_wait_states (b, r);
  add_messages (b, &r->messages);
  json_builder_set_member_name (b, "actions_replayed");
  json_builder_add_int_value (b, (gint64) r->actions_replayed);
  json_builder_set_member_name (b, "simcalls");
  json_builder_add_int_value (b, (gint64) r->simcalls);
  ts_summary_add_matching (b, r);
  ts_json_add_double (b, "wall_s", r->wall_s);
  json_builder_set_member_name (b, "max_rss_kib");
  json_builder_add_int_value (b, r->max_rss_kib);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

char *
ts_json_to_text (JsonNode *root)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 2);
  json_generator_set_root (gen, root);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  return g_strconcat (text, "\n", NULL);
}

gboolean
ts_json_write_file (JsonNode *root, const char *path, GError **error)
{
  g_autofree char *text = ts_json_to_text (root);
  return ts_output_dir_write_file (path, text, strlen (text), error);
}

gboolean
ts_summary_write (const TsRunResult *r, const char *path, GError **error)
{
  JsonNode *root = ts_summary_to_json (r);
  gboolean ok = ts_json_write_file (root, path, error);
  json_node_unref (root);
  return ok;
}
