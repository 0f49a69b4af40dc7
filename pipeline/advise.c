#include <config.h>

#include "pipeline/advise.h"
#include "pipeline/sweep-run.h"
#include "analysis/waitstates.h"
#include "model/format.h"
#include "model/output_dir.h"
#include "output/summary.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* More regions than this make a table nobody reads, and a sweep of
 * thousands of replays. */
#define TS_ADVISE_MAX_TOP 1000

/* A region, or a phase (calibrate/phases.h) in a trace without regions
 * of the program's own. */
typedef struct {
  char *name;
  gboolean phase;
  double compute;
} Candidate;

static void
candidate_clear (gpointer p)
{
  g_free (((Candidate *) p)->name);
}

static gint
by_compute (gconstpointer a, gconstpointer b)
{
  const Candidate *x = a, *y = b;
  return x->compute > y->compute ? -1 : x->compute < y->compute;
}

/* A regular expression matching exactly @name: letters, digits and '_' as
 * they are, other ASCII characters as \xHH (a region name may hold glob,
 * regex, key-file and comment characters: "[", "*", " #"), UTF-8 as is. */
static char *
exact_regex (const char *name)
{
  GString *re = g_string_new (NULL);
  for (const unsigned char *c = (const unsigned char *) name; *c; c++)
    if (g_ascii_isalnum (*c) || *c == '_' || *c >= 0x80)
      g_string_append_c (re, (char) *c);
    else
      g_string_append_printf (re, "\\x%02x", *c);
  return g_string_free (re, FALSE);
}

/* The user regions with compute of their own, most first, at most @top;
 * when the only such regions enclose a whole rank (main, EZTrace's
 * "Working": the trace holds MPI calls and nothing finer), the phases. */
static GArray *
candidates (const TsTrace *trace, const TsCalibration *c, guint top)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (Candidate));
  g_array_set_clear_func (all, candidate_clear);
  gboolean inner = FALSE;
  for (guint r = 0; r < ts_trace_n_regions (trace); r++)
    {
      Candidate k = { g_strdup (ts_trace_region_name (trace, r)), FALSE,
                      ts_calibration_region_compute (c, r) };
      /* A '"' cannot be written in a sweep's list of values. */
      if (ts_trace_region_call (trace, r) == TS_CALL_USER && k.compute > 0 && !strchr (k.name, '"'))
        {
          inner |= !ts_calibration_region_outermost (c, r);
          g_array_append_val (all, k);
        }
      else
        g_free (k.name);
    }
  if (!inner)
    {
      g_array_set_size (all, 0);
      for (guint i = 0; i < ts_calibration_n_phases (c); i++)
        {
          const TsPhase *f = ts_calibration_phase (c, i);
          Candidate k = { ts_trace_phase_name (trace, f->call, f->caller), TRUE, f->compute };
          if (strchr (k.name, '"'))
            g_free (k.name);
          else
            g_array_append_val (all, k);
        }
    }
  g_array_sort (all, by_compute);
  if (all->len > top)
    g_array_set_size (all, top);
  return all;
}

/* One point per change: its hypothesis file, and its region and change in
 * the lists of values. */
typedef struct {
  const char *dir;
  guint n;
  GString *files, *regions, *changes;
} Points;

/* One more point of the sweep: its hypothesis file (in the sweep's
 * directory), region and change, in the lists of values. */
static void
points_append (Points *p, const char *file, const char *region, const char *change)
{
  g_string_append_printf (p->files, "%s%s", p->n ? ", " : "", file);
  g_string_append_printf (p->regions, "%s\"%s\"", p->n ? ", " : "", region);
  g_string_append_printf (p->changes, "%s%s", p->n ? ", " : "", change);
  p->n++;
}

static gboolean
add_point (Points *p, const char *region, const char *change, const char *hypothesis,
           GError **error)
{
  g_autofree char *name = g_strdup_printf ("p%04u.hyp", p->n);
  g_autofree char *path = g_build_filename (p->dir, name, NULL);
  points_append (p, name, region, change);
  return ts_output_dir_write_file (path, hypothesis, strlen (hypothesis), error);
}

/* A region's (or phase's) two points, and a third where the trace has
 * threads: the region balanced across each rank's threads. A phase is
 * named "phase:NAME" in the results, as its hypothesis section is. */
static gboolean
add_region (Points *p, const Candidate *k, double factor, gboolean threads, GError **error)
{
  const char *section = k->phase ? "phase" : "region";
  g_autofree char *re = exact_regex (k->name);
  g_autofree char *label = k->phase ? g_strconcat (TS_ADVISE_PHASE_PREFIX, k->name, NULL) : g_strdup (k->name);
  g_autofree char *faster = g_strdup_printf ("# tracesim advise: %s %gx faster on every rank\n"
                                             "[%s:%s]\nmatch = regex\nscale = %.17g\n",
                                             label, 1 / factor, section, re, factor);
  g_autofree char *balanced = g_strdup_printf ("# tracesim advise: %s perfectly balanced (every "
                                               "rank the mean of each occurrence)\n"
                                               "[%s:%s]\nmatch = regex\nbalance = mean\n",
                                               label, section, re);
  if (!add_point (p, label, TS_ADVISE_FASTER, faster, error)
      || !add_point (p, label, TS_ADVISE_BALANCED, balanced, error))
    return FALSE;
  if (!threads || k->phase)
    return TRUE; /* a phase is the rank's own thread's */
  g_autofree char *across = g_strdup_printf ("# tracesim advise: %s balanced across each rank's "
                                             "threads (every thread of a team phase the mean)\n"
                                             "[region:%s]\nmatch = regex\nbalance = mean\n"
                                             "across = threads\n", label, re);
  return add_point (p, label, TS_ADVISE_THREADS_BALANCED, across, error);
}

/* @p's points as the sweep @name in @dir, with the baseline as point 0;
 * with @wait_states each point finds them (and writes its archive, where
 * they are found), else neither. Returns its path (caller frees). */
static char *
write_sweep (const char *dir, const char *name, const char *trace, const Points *p,
             gboolean wait_states, TsCpuTime cpu_time, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *trace_path = g_canonicalize_filename (trace, NULL);
  g_key_file_set_string (kf, "sweep", "trace", trace_path);
  g_key_file_set_string (kf, "sweep", "hypothesis", p->files->str);
  g_key_file_set_string (kf, "sweep", "zip", "true");
  g_key_file_set_string (kf, "sweep", "labels", "region;change");
  g_key_file_set_string (kf, "sweep", "baseline", "0");
  g_key_file_set_boolean (kf, "sweep", "wait_states", wait_states);
  g_key_file_set_boolean (kf, "sweep", "archive", wait_states);
  if (cpu_time != TS_CPU_TIME_AUTO)
    g_key_file_set_boolean (kf, "sweep", "cpu_time", cpu_time == TS_CPU_TIME_ON);
  g_key_file_set_string (kf, "parameters", "region", p->regions->str);
  g_key_file_set_string (kf, "parameters", "change", p->changes->str);
  g_autofree char *text = g_key_file_to_data (kf, NULL, NULL);
  g_autofree char *all = g_strconcat ("# Written by tracesim advise: its regions and changes "
                                      "as a sweep (tracesim sweep runs it too)\n", text, NULL);
  char *path = g_build_filename (dir, name, NULL);
  if (!ts_output_dir_write_file (path, all, strlen (all), error))
    g_clear_pointer (&path, g_free);
  return path;
}

gboolean
ts_advise_check_options (const TsAdviseOptions *o, GError **error)
{
  if (!(o->factor > 0 && o->factor < 1))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--factor %g: give the time a region keeps, above 0 and below 1 (0.5: 2x faster)",
                   o->factor);
      return FALSE;
    }
  if (o->top < 1 || o->top > TS_ADVISE_MAX_TOP)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--top %u: give how many regions to try, 1 to %u", o->top, TS_ADVISE_MAX_TOP);
      return FALSE;
    }
  return TRUE;
}

char *
ts_advise_write_sweep (const TsAdviseOptions *o, const TsRunShared *shared, GError **error)
{
  if (!ts_advise_check_options (o, error))
    return NULL;
  const TsTrace *trace = ts_run_shared_trace (shared);
  g_autoptr (GArray) regions = candidates (trace, ts_run_shared_calibration (shared), o->top);
  if (regions->len == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s: no region of the program's own and no phase between MPI calls has "
                   "compute time: nothing to advise on", o->trace);
      return NULL;
    }
  if (!ts_sweep_prepare_output (o->output_dir, error))
    return NULL;
  g_autofree char *dir = g_build_filename (o->output_dir, "inputs", "advise", NULL);
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "%s: %s", dir,
                   g_strerror (errno));
      return NULL;
    }
  g_autoptr (GString) files = g_string_new (NULL), names = g_string_new (NULL),
                      changes = g_string_new (NULL);
  Points p = { dir, 0, files, names, changes };
  g_autofree char *network = g_strdup_printf ("# tracesim advise: the network %gx faster\n"
                                              "[network]\nbandwidth = %.17g\nlatency = %.17g\n",
                                              1 / o->factor, 1 / o->factor, o->factor);
  if (!add_point (&p, TS_ADVISE_BASELINE, TS_ADVISE_NONE, "# tracesim advise: as traced\n", error))
    return NULL;
  for (guint i = 0; i < regions->len; i++)
    if (!add_region (&p, &g_array_index (regions, Candidate, i), o->factor,
                     ts_trace_n_threads (trace) > ts_trace_n_ranks (trace), error))
      return NULL;
  if (!add_point (&p, TS_ADVISE_NETWORK, TS_ADVISE_FASTER, network, error)
      || !add_point (&p, TS_ADVISE_NETWORK, TS_ADVISE_IDEAL,
                     "# tracesim advise: an ideal network (no latency, unlimited bandwidth)\n"
                     "[network]\nideal = true\n", error))
    return NULL;
  /* The points need their runtimes only: explaining a few of them
   * (ts_advise_explain) is cheaper than every point's wait states. */
  return write_sweep (dir, "advise.sweep", o->trace, &p, FALSE, o->cpu_time, error);
}

/* ---- reading the points back ------------------------------------------- */

void
ts_advice_free (TsAdvice *a)
{
  if (!a)
    return;
  g_free (a->region);
  g_free (a->change);
  g_free (a->error);
  g_free (a);
}

/* The predicted runtime and wait states of point @point, or FALSE and its
 * error (the point's .error file, or "not run"). */
static gboolean
read_point (const TsSweep *s, const char *out, guint point, double *runtime, double *waits,
            char **why)
{
  g_autofree char *name = ts_sweep_point_name (s, point);
  g_autofree char *path = g_build_filename (out, "points", name, "summary.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonNode *root = json_parser_load_from_file (parser, path, NULL) ? json_parser_get_root (parser)
                                                                   : NULL;
  JsonObject *o = root && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonObject *predicted = o ? json_object_get_object_member (o, "predicted") : NULL;
  if (!predicted)
    {
      g_autofree char *error_path = g_strconcat (out, "/points/", name, ".error", NULL);
      if (!g_file_get_contents (error_path, why, NULL, NULL))
        *why = g_strdup ("not run");
      g_strstrip (*why);
      return FALSE;
    }
  *runtime = json_object_get_double_member (predicted, "runtime_s");
  /* A point that computed its runtime only has none. */
  JsonObject *ws = json_object_has_member (o, "wait_states")
                     ? json_object_get_object_member (o, "wait_states") : NULL;
  JsonObject *pw = ws && json_object_has_member (ws, "predicted")
                     ? json_object_get_object_member (ws, "predicted") : NULL;
  for (guint k = 0; k < TS_WAIT_N_PATTERNS; k++)
    waits[k] = pw && json_object_has_member (pw, ts_wait_pattern_name (k))
                 ? json_object_get_double_member (pw, ts_wait_pattern_name (k)) : 0;
  return TRUE;
}

static gint
by_saving (gconstpointer a, gconstpointer b, gpointer unused)
{
  const TsAdvice *x = *(TsAdvice *const *) a, *y = *(TsAdvice *const *) b;
  if (isnan (x->saving) || isnan (y->saving))
    return isnan (x->saving) - isnan (y->saving);
  return x->saving > y->saving ? -1 : x->saving < y->saving;
}

GPtrArray *
ts_advise_read (const TsSweep *s, const char *out, GError **error)
{
  guint region_param = G_MAXUINT, change_param = G_MAXUINT;
  for (guint i = 0; i < ts_sweep_n_parameters (s); i++)
    {
      if (g_str_equal (ts_sweep_parameter (s, i), "region"))
        region_param = i;
      if (g_str_equal (ts_sweep_parameter (s, i), "change"))
        change_param = i;
    }
  if (region_param == G_MAXUINT || change_param == G_MAXUINT || ts_sweep_baseline (s) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s: not a sweep tracesim advise wrote", out);
      return NULL;
    }
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) ts_advice_free);
  double base_waits[TS_WAIT_N_PATTERNS], waits[TS_WAIT_N_PATTERNS];
  double baseline = NAN;
  for (guint p = 0; p < ts_sweep_n_points (s); p++)
    {
      TsAdvice *a = g_new0 (TsAdvice, 1);
      a->region = g_strdup (ts_sweep_value (s, p, region_param));
      a->change = g_strdup (ts_sweep_value (s, p, change_param));
      a->point = p;
      a->runtime = a->saving = NAN;
      g_ptr_array_add (rows, a);
      if (!read_point (s, out, p, &a->runtime, p == 0 ? base_waits : waits, &a->error))
        continue;
      if (p == 0)
        baseline = a->runtime;
      a->saving = baseline - a->runtime;
      for (guint k = 0; p > 0 && k < TS_WAIT_N_PATTERNS; k++)
        /* late_sender_wrong_order is a part of late_sender: not a place of its own. */
        if (k != TS_WAIT_LATE_SENDER_WRONG_ORDER && waits[k] - base_waits[k] > a->grew_s)
          {
            a->grew = ts_wait_pattern_name (k);
            a->grew_s = waits[k] - base_waits[k];
          }
    }
  /* The baseline stays first; the changes by what they save. */
  if (rows->len > 1)
    g_qsort_with_data (rows->pdata + 1, rows->len - 1, sizeof (gpointer),
                       by_saving, NULL);
  return rows;
}

/* ---- why a speed-up bought little --------------------------------------- */

double
ts_advise_removed_per_rank (const TsRunShared *shared, const char *row, double factor)
{
  const TsTrace *t = ts_run_shared_trace (shared);
  const TsCalibration *c = ts_run_shared_calibration (shared);
  double compute = 0;
  if (g_str_has_prefix (row, TS_ADVISE_PHASE_PREFIX))
    {
      const char *name = row + strlen (TS_ADVISE_PHASE_PREFIX);
      for (guint i = 0; i < ts_calibration_n_phases (c); i++)
        {
          const TsPhase *f = ts_calibration_phase (c, i);
          g_autofree char *phase = ts_trace_phase_name (t, f->call, f->caller);
          if (g_str_equal (phase, name))
            compute += f->compute;
        }
    }
  else
    for (guint r = 0; r < ts_trace_n_regions (t); r++)
      if (g_str_equal (ts_trace_region_name (t, r), row))
        compute += ts_calibration_region_compute (c, r);
  return compute * (1 - factor) / MAX (ts_trace_n_ranks (t), 1);
}

gboolean
ts_advise_falls_short (const TsAdvice *a, const TsRunShared *shared, double factor)
{
  return !a->error && g_str_equal (a->change, TS_ADVISE_FASTER)
         && !g_str_equal (a->region, TS_ADVISE_NETWORK)
         && a->saving < ts_advise_removed_per_rank (shared, a->region, factor) / 2;
}

gboolean
ts_advise_explain (const TsAdviseOptions *o, const TsRunShared *shared, GPtrArray *rows,
                   const TsSweepRunOptions *run, GError **error)
{
  const TsAdvice *base = rows->len ? g_ptr_array_index (rows, 0) : NULL;
  if (!base || base->error)
    return TRUE;
  g_autofree char *dir = g_build_filename (o->output_dir, "inputs", "advise", NULL);
  g_autofree char *out = g_build_filename (o->output_dir, "explain", NULL);
  g_autofree char *path = g_build_filename (dir, "explain.sweep", NULL);
  g_autoptr (GString) files = g_string_new (NULL), regions = g_string_new (NULL),
                      changes = g_string_new (NULL);
  Points p = { dir, 0, files, regions, changes };
  /* The explain sweep's point k is rows[at[k]]; its point 0 the baseline. */
  g_autoptr (GArray) at = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < rows->len; i++)
    {
      const TsAdvice *a = g_ptr_array_index (rows, i);
      if (i > 0 && !ts_advise_falls_short (a, shared, o->factor))
        continue;
      g_autofree char *file = g_strdup_printf ("p%04u.hyp", a->point);
      points_append (&p, file, a->region, a->change);
      g_array_append_val (at, i);
    }
  if (p.n == 1)
    {
      /* Nothing to explain: nor what an earlier advise here explained. */
      g_autofree char *mark = g_build_filename (out, ".tracesim-sweep", NULL);
      if (g_file_test (mark, G_FILE_TEST_EXISTS))
        ts_output_dir_remove_tree (out);
      g_unlink (path);
      return TRUE;
    }
  g_autofree char *written = write_sweep (dir, "explain.sweep", o->trace, &p, TRUE, o->cpu_time, error);
  g_autoptr (TsSweep) sweep = written ? ts_sweep_load (written, error) : NULL;
  TsSweepTally tally;
  if (!sweep || !ts_sweep_run (sweep, out, run, &tally, error))
    return FALSE;
  ts_sweep_tally_clear (&tally);
  g_autoptr (GPtrArray) explained = ts_advise_read (sweep, out, error);
  if (!explained)
    return FALSE;
  for (guint i = 1; i < explained->len; i++)
    {
      const TsAdvice *e = g_ptr_array_index (explained, i);
      TsAdvice *a = g_ptr_array_index (rows, g_array_index (at, guint, e->point));
      a->grew = e->grew;
      a->grew_s = e->grew_s;
    }
  if (tally.failed)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                 "%u of the points explained failed (%s/points/*.error)", tally.failed, out);
  return tally.failed == 0;
}

/* ---- what no change touches, and the page's data -------------------------- */

double
ts_advise_outside (const TsRunShared *shared)
{
  const TsTrace *t = ts_run_shared_trace (shared);
  const TsCalibration *c = ts_run_shared_calibration (shared);
  guint n = MAX (ts_trace_n_ranks (t), 1);
  double seconds = 0;
  static const char *const lifecycle[] = { "MPI_Init", "MPI_Init_thread", "MPI_Finalize" };
  for (guint i = 0; i < G_N_ELEMENTS (lifecycle); i++)
    {
      gint r = ts_trace_region_by_name (t, lifecycle[i]);
      if (r >= 0)
        seconds += ts_calibration_region_seconds (c, (guint) r);
    }
  /* The replay starts a late rank that much later, whatever the change. */
  for (guint r = 0; r < ts_trace_n_ranks (t); r++)
    {
      double late = ts_calibration_rank_stats (c, r)->first_time - ts_calibration_start (c);
      if (late > 0 && isfinite (late))
        seconds += late;
    }
  return seconds / n;
}

char *
ts_advise_outside_sentence (const TsRunShared *shared)
{
  double runtime = ts_calibration_runtime (ts_run_shared_calibration (shared));
  double outside = ts_advise_outside (shared);
  if (!(outside > 0))
    return NULL;
  g_autofree char *o = ts_format_seconds (outside);
  g_autofree char *r = ts_format_seconds (runtime);
  g_autofree char *share = ts_format_percent (outside, runtime);
  return g_strdup_printf ("MPI_Init, MPI_Finalize and the ranks' start: %s of the %s as traced "
                          "(%s, mean over ranks), which no change below shortens", o, r, share);
}

char *
ts_advice_explanation (const TsAdvice *a, const TsRunShared *shared, double factor)
{
  if (!a->grew || !ts_advise_falls_short (a, shared, factor))
    return NULL;
  double removed = ts_advise_removed_per_rank (shared, a->region, factor);
  g_autofree char *r = ts_format_seconds (removed);
  g_autofree char *grew = ts_format_seconds (a->grew_s);
  /* Whole percents: a saving of nanoseconds is "0%", not "2e-06%". */
  return g_strdup_printf ("saves %.0f%% of the %s it removes per rank: the ranks wait instead "
                          "(%s +%s, all ranks)", removed > 0 ? 100 * a->saving / removed : 0.0,
                          r, a->grew, grew);
}

gboolean
ts_advise_write_json (const TsAdviseOptions *o, const TsRunShared *shared, const GPtrArray *rows,
                      GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "runtime_s");
  json_builder_add_double_value (b, ts_calibration_runtime (ts_run_shared_calibration (shared)));
  json_builder_set_member_name (b, "outside_s");
  json_builder_add_double_value (b, ts_advise_outside (shared));
  g_autofree char *sentence = ts_advise_outside_sentence (shared);
  json_builder_set_member_name (b, "outside");
  json_builder_add_string_value (b, sentence ? sentence : "");
  json_builder_set_member_name (b, "factor");
  json_builder_add_double_value (b, o->factor);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    {
      const TsAdvice *a = g_ptr_array_index (rows, i);
      g_autofree char *why = ts_advice_explanation (a, shared, o->factor);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "region");
      json_builder_add_string_value (b, a->region);
      json_builder_set_member_name (b, "change");
      json_builder_add_string_value (b, a->change);
      /* JSON has no NaN: a failed point has its error instead. */
      if (!a->error)
        {
          json_builder_set_member_name (b, "predicted_runtime_s");
          json_builder_add_double_value (b, a->runtime);
          json_builder_set_member_name (b, "saving_s");
          json_builder_add_double_value (b, isnan (a->saving) ? 0 : a->saving);
        }
      json_builder_set_member_name (b, a->error ? "error" : "explanation");
      json_builder_add_string_value (b, a->error ? a->error : why ? why : "");
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree char *path = g_build_filename (o->output_dir, "advise.json", NULL);
  return ts_json_write_file (root, path, error);
}
