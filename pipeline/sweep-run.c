#include <config.h>

#include "pipeline/sweep-run.h"
#include "pipeline/sweep-results.h"
#include "pipeline/sweep-ranks.h"
#include "model/output_dir.h"
#include "output/csv.h"
#include "output/summary.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Written in a sweep's output directory: a directory that has it is one
 * tracesim may add to and rewrite. */
#define SWEEP_MARK ".tracesim-sweep"

gboolean
ts_sweep_prepare_output (const char *out, GError **error)
{
  g_autofree char *mark = g_build_filename (out, SWEEP_MARK, NULL);
  if (g_file_test (out, G_FILE_TEST_EXISTS) && !g_file_test (mark, G_FILE_TEST_EXISTS))
    {
      g_autoptr (GDir) d = g_dir_open (out, 0, NULL);
      if (!d || g_dir_read_name (d) != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       "%s exists and is not a sweep's output (no %s): give another directory",
                       out, SWEEP_MARK);
          return FALSE;
        }
    }
  g_autofree char *points = g_build_filename (out, "points", NULL);
  g_autofree char *inputs = g_build_filename (out, "inputs", NULL);
  if (g_mkdir_with_parents (points, 0777) != 0 || g_mkdir_with_parents (inputs, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", out,
                   g_strerror (saved));
      return FALSE;
    }
  return ts_output_dir_write_file (mark, "written by tracesim sweep\n", 26, error);
}

typedef struct {
  guint index;
  char *dir, *key_path, *error_path, *key, *legacy_key;
  TsRunOptions options;
  GPtrArray *keep;
  gboolean unusable;   /* its inputs could not be made: not run */
} Point;

static void
point_free (gpointer data)
{
  Point *p = data;
  g_free (p->dir);
  g_free (p->key_path);
  g_free (p->error_path);
  g_free (p->key);
  g_free (p->legacy_key);
  if (p->keep)
    g_ptr_array_unref (p->keep);
  g_free (p);
}

/* A point that could not be made (its template filled into a bad
 * description, its rank count not extrapolated): its row says why. */
static gboolean
point_unusable (Point *p, const char *why, gboolean write, GError **error)
{
  p->unusable = TRUE;
  if (!write)
    return TRUE;
  g_unlink (p->key_path);
  return ts_output_dir_write_file (p->error_path, why, strlen (why), error);
}

/* @key of the point's inputs with the trace's state: a point of the trace
 * as it was before it was recorded again is stale. */
static char *
with_trace (char **key, const char *trace_state)
{
  g_autofree char *inputs_key = g_steal_pointer (key);
  g_autofree char *both = g_strconcat (inputs_key, "\n", trace_state, NULL);
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, both, -1);
}

/* The point's paths, inputs (written into OUT/inputs/NAME/ when @write)
 * and key; whether it is done already (its key file says the same inputs,
 * its output is there). */
static Point *
point_new (const TsSweep *s, const char *out, const char *trace, const char *trace_state,
           const char *unusable, guint index, gboolean write, gboolean *done, GError **error)
{
  Point *p = g_new0 (Point, 1);
  p->index = index;
  g_autofree char *name = ts_sweep_point_name (s, index);
  p->dir = g_build_filename (out ? out : "", "points", name, NULL);
  p->key_path = g_strconcat (p->dir, ".key", NULL);
  p->error_path = g_strconcat (p->dir, ".error", NULL);
  g_autofree char *inputs = g_build_filename (out ? out : "", "inputs", name, NULL);
  p->keep = g_ptr_array_new_with_free_func (g_free);
  ts_run_options_init (&p->options);
  *done = FALSE;
  if (write && g_mkdir_with_parents (inputs, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", inputs,
                   g_strerror (saved));
      point_free (p);
      return NULL;
    }
  g_autoptr (GError) local = NULL;
  if (!ts_sweep_point_options (s, index, write ? inputs : NULL, &p->options, p->keep, &p->key,
                               &p->legacy_key, &local))
    unusable = local->message;
  if (unusable)
    {
      if (point_unusable (p, unusable, write, error))
        return p;
      point_free (p);
      return NULL;
    }
  p->options.output_dir = p->dir;
  char *own_trace = g_strdup (trace);
  g_ptr_array_add (p->keep, own_trace);
  p->options.trace = own_trace;
  p->key = with_trace (&p->key, trace_state);
  p->legacy_key = with_trace (&p->legacy_key, trace_state);
  g_autofree char *old = NULL;
  g_autofree char *summary = g_build_filename (p->dir, "summary.json", NULL);
  *done = out && g_file_get_contents (p->key_path, &old, NULL, NULL) && g_str_equal (g_strstrip (old), p->key)
          && g_file_test (summary, G_FILE_TEST_IS_REGULAR);
  return p;
}

/* ---- points of the layout before names: pNNNN ---------------------------
 * Until points were named by their values, OUT/points/pNNNN/ was the
 * sweep's point NNNN, with pNNNN.key and .error beside it and its inputs in
 * OUT/inputs/pNNNN/. A point of that layout whose key is the legacy key of
 * a point of the sweep is carried over (renamed, not run again); the
 * others (of inputs that changed since, or failed) are removed. */

/* The names pNNNN found in OUT/points/, each with its key ("" if none). */
static GHashTable *
legacy_scan (const char *out)
{
  g_autofree char *points = g_build_filename (out, "points", NULL);
  g_autoptr (GDir) d = g_dir_open (points, 0, NULL);
  GHashTable *found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *entry;
  while (d && (entry = g_dir_read_name (d)))
    {
      /* Exactly pNNNN, pNNNN.key or pNNNN.error: nothing else is taken. */
      gsize digits = strspn (entry + 1, "0123456789");
      const char *rest = entry + 1 + digits;
      if (entry[0] != 'p' || digits < 4
          || (*rest && strcmp (rest, ".key") != 0 && strcmp (rest, ".error") != 0))
        continue;
      g_autofree char *stem = g_strndup (entry, digits + 1);
      if (g_hash_table_contains (found, stem))
        continue;
      g_autofree char *key_path = g_strconcat (points, "/", stem, ".key", NULL);
      char *key = NULL;
      if (!g_file_get_contents (key_path, &key, NULL, NULL))
        key = g_strdup ("");
      g_hash_table_insert (found, g_steal_pointer (&stem), g_strstrip (key));
    }
  return found;
}

/* Remove old point @stem: its directory, key, error and inputs. */
static void
legacy_remove (const char *out, const char *stem)
{
  g_autofree char *dir = g_build_filename (out, "points", stem, NULL);
  g_autofree char *key = g_strconcat (dir, ".key", NULL);
  g_autofree char *err = g_strconcat (dir, ".error", NULL);
  g_autofree char *inputs = g_build_filename (out, "inputs", stem, NULL);
  ts_output_dir_remove_tree (dir);
  ts_output_dir_remove_tree (inputs);
  g_unlink (key);
  g_unlink (err);
}

/* Each string of @node naming a file in OUT/inputs/@stem/ made to name it
 * in @now; whether one did. */
static gboolean
repoint (JsonNode *node, const char *stem, const char *now)
{
  gboolean changed = FALSE;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr (GList) members = json_object_get_members (o);
      for (GList *m = members; m; m = m->next)
        changed |= repoint (json_object_get_member (o, m->data), stem, now);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        changed |= repoint (json_array_get_element (a, i), stem, now);
    }
  else if (json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *path = json_node_get_string (node);
      g_autofree char *dir = g_path_get_dirname (path), *up = g_path_get_dirname (dir);
      g_autofree char *dir_name = g_path_get_basename (dir), *up_name = g_path_get_basename (up);
      if (!g_str_equal (dir_name, stem) || !g_str_equal (up_name, "inputs"))
        return FALSE;
      g_autofree char *file = g_path_get_basename (path);
      g_autofree char *moved = g_build_filename (now, file, NULL);
      json_node_set_string (node, moved);
      changed = TRUE;
    }
  return changed;
}

/* A carried point's summary.json names its inputs in OUT/inputs/@stem/,
 * which go with the old layout: it names them in OUT/inputs/NAME/ now,
 * where the point's inputs were just written (its key matched: the same
 * files). Rewritten as tracesim's own (its manifest follows). */
static gboolean
legacy_summary (const char *out, const char *stem, const Point *p)
{
  g_autofree char *path = g_build_filename (p->dir, "summary.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_file (parser, path, NULL))
    return FALSE;
  g_autofree char *name = g_path_get_basename (p->dir);
  g_autofree char *now = g_build_filename (out, "inputs", name, NULL);
  JsonNode *root = json_parser_get_root (parser);
  if (!root || !repoint (root, stem, now))
    return TRUE;
  g_autofree char *text = ts_json_to_text (root);
  return ts_output_dir_add_file (p->dir, "summary.json", text, strlen (text), NULL);
}

/* Carry the old points of @old over to @points' names where their keys
 * match, and remove the rest; counts into @tally. @dry: only count, and
 * mark in @done the points that would be carried. */
static void
legacy_carry (const char *out, GHashTable *old, GPtrArray *points, gboolean *done, gboolean dry,
              TsSweepTally *tally)
{
  GHashTableIter it;
  gpointer stem, key;
  g_hash_table_iter_init (&it, old);
  while (g_hash_table_iter_next (&it, &stem, &key))
    {
      g_autofree char *dir = g_build_filename (out, "points", (char *) stem, NULL);
      g_autofree char *summary = g_build_filename (dir, "summary.json", NULL);
      gboolean moved = FALSE;
      for (guint i = 0; *(char *) key && i < points->len; i++)
        {
          Point *p = g_ptr_array_index (points, i);
          if (done[i] || p->unusable || !g_str_equal (p->legacy_key, key)
              || !g_file_test (summary, G_FILE_TEST_IS_REGULAR))
            continue;
          g_autofree char *line = g_strconcat (p->key, "\n", NULL);
          if (!dry)
            ts_output_dir_remove_tree (p->dir);
          moved = dry || (g_rename (dir, p->dir) == 0 && legacy_summary (out, stem, p)
                          && ts_output_file_write (p->key_path, line, strlen (line), NULL, NULL));
          done[i] = moved;
          break;
        }
      tally->carried += moved;
      tally->dropped += !moved;
      if (!dry)
        legacy_remove (out, stem);
    }
}

/* In the child: the point's replay; its key or its error beside it. */
static void G_GNUC_NORETURN
run_point (Point *p, const TsRunShared *shared, pid_t parent)
{
  /* The sweep ended (interrupted, killed): so does the point, removing
   * what it was writing; its rerun computes it again. */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  if (getppid () != parent)
    _exit (1);
  p->options.shared = shared;
  g_autoptr (GError) error = NULL;
  g_unlink (p->error_path);
  g_unlink (p->key_path);
  TsRunResult *r = ts_run (&p->options, &error);
  if (r)
    {
      g_autofree char *line = g_strconcat (p->key, "\n", NULL);
      ts_run_result_free (r);
      /* Whole or not at all: the sweep's end (SIGTERM) may come while it is
       * written, and a torn key would make a finished point look stale. */
      _exit (ts_output_file_write (p->key_path, line, strlen (line), NULL, NULL) ? 0 : 1);
    }
  ts_output_dir_write_file (p->error_path, error->message, strlen (error->message), NULL);
  _exit (1);
}

static void
report (const TsSweepRunOptions *o, const TsSweepTally *t, guint running, gint64 t0)
{
  guint finished = t->ran + t->reused + t->failed;
  double elapsed = (g_get_monotonic_time () - t0) / 1e6;
  double eta = t->ran ? elapsed / t->ran * (t->points - finished) : 0;
  if (o->progress)
    fprintf (stderr, "\rsweep: %u/%u points (%u failed, %u running), %.0f s, ETA %.0f s   ",
             finished, t->points, t->failed, running, elapsed, eta);
}

/* Up to @jobs children at once over @todo; counts into @tally. */
static void
run_pool (GPtrArray *todo, const TsRunShared *shared, const TsSweepRunOptions *o,
          TsSweepTally *tally)
{
  g_autoptr (GHashTable) running = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint next = 0;
  gint64 t0 = g_get_monotonic_time ();
  while (next < todo->len || g_hash_table_size (running) > 0)
    {
      if (next < todo->len && g_hash_table_size (running) < o->jobs)
        {
          Point *p = g_ptr_array_index (todo, next++);
          fflush (NULL);
          pid_t parent = getpid ();
          pid_t pid = fork ();
          if (pid == 0)
            run_point (p, shared, parent);
          if (pid > 0)
            g_hash_table_insert (running, GINT_TO_POINTER (pid), p);
          else
            tally->failed++;
          continue;
        }
      int status = 0;
      pid_t pid = waitpid (-1, &status, 0);
      if (pid < 0 && errno == EINTR)
        continue;
      if (pid < 0)
        break;
      Point *p = g_hash_table_lookup (running, GINT_TO_POINTER (pid));
      g_hash_table_remove (running, GINT_TO_POINTER (pid));
      gboolean ok = WIFEXITED (status) && WEXITSTATUS (status) == 0;
      if (ok)
        tally->ran++;
      else
        tally->failed++;
      if (p && !ok && !g_file_test (p->error_path, G_FILE_TEST_EXISTS))
        {
          g_autofree char *why = g_strdup_printf ("the point's process died (%s)",
                                                  WIFSIGNALED (status) ? g_strsignal (WTERMSIG (status))
                                                                       : "no message");
          ts_output_dir_write_file (p->error_path, why, strlen (why), NULL);
        }
      if (o->log && p)
        fprintf (stderr, "sweep: point %u %s\n", p->index, ok ? "done" : "failed");
      report (o, tally, g_hash_table_size (running), t0);
    }
  if (o->progress)
    fputc ('\n', stderr);
}

/* Each point's trace: the sweep's, or the one extrapolated to its rank
 * count; its state (for the points' keys); why its points cannot run (the
 * extrapolation refused), or NULL. */
typedef struct {
  char *trace, *state, *unusable;
} PointTrace;

typedef struct {
  GHashTable *by_ranks;          /* rank count (0: the sweep's trace) -> PointTrace */
  const TsSweep *sweep;
} TraceTable;

static void
point_trace_free (gpointer data)
{
  PointTrace *pt = data;
  g_free (pt->trace);
  g_free (pt->state);
  g_free (pt->unusable);
  g_free (pt);
}

static void
trace_table_free (TraceTable *t)
{
  g_hash_table_unref (t->by_ranks);
  g_free (t);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TraceTable, trace_table_free)

/* The traces of the points this run computes are made now (extrapolated
 * where needed); --collect only reads what is there. */
static TraceTable *
trace_table_new (const TsSweep *s, const char *out, const TsSweepRunOptions *o)
{
  TraceTable *t = g_new0 (TraceTable, 1);
  t->sweep = s;
  t->by_ranks = g_hash_table_new_full (NULL, NULL, NULL, point_trace_free);
  guint n = ts_sweep_n_points (s);
  for (guint i = 0; i < n; i++)
    {
      guint ranks = ts_sweep_point_ranks (s, i);
      if (g_hash_table_contains (t->by_ranks, GUINT_TO_POINTER (ranks)))
        continue;
      PointTrace *pt = g_new0 (PointTrace, 1);
      pt->trace = ranks ? ts_sweep_ranks_trace (out, ranks) : g_strdup (ts_sweep_trace (s));
      g_autoptr (GError) error = NULL;
      g_autofree char *note = NULL;
      gboolean wanted = !o->collect && !o->dry_run && (o->point == G_MAXUINT || ts_sweep_point_ranks (s, o->point) == ranks);
      if (ranks && wanted && !ts_sweep_ranks_prepare (s, out, ranks, &note, &error))
        pt->unusable = g_strdup (error->message);
      if ((o->log || o->progress) && note)
        fprintf (stderr, "sweep: %s\n", note);
      pt->state = ts_run_trace_state (pt->trace);
      if (ranks)
        {
          g_autofree char *made_of = ts_sweep_ranks_key (s, ranks);
          g_autofree char *state = g_steal_pointer (&pt->state);
          pt->state = g_strconcat (state, made_of, NULL);
        }
      g_hash_table_insert (t->by_ranks, GUINT_TO_POINTER (ranks), pt);
    }
  return t;
}

static const PointTrace *
point_trace (const TraceTable *t, guint point)
{
  return g_hash_table_lookup (t->by_ranks,
                              GUINT_TO_POINTER (ts_sweep_point_ranks (t->sweep, point)));
}

/* The points of @todo, grouped by trace: each trace's first pass once, for
 * every point, every task of a Slurm array and every resume (kept beside
 * the points, or beside an extrapolated trace), then its points. */
/* An extrapolated trace's first pass: beside its directory, which is the
 * extrapolation's own (np64/traces.otf2: np64.first-pass.cache). */
static char *
first_pass_beside (const char *trace)
{
  g_autofree char *dir = g_path_get_dirname (trace);
  return g_strconcat (dir, ".first-pass.cache", NULL);
}

static gboolean
run_groups (const TsSweep *s, const char *out, GPtrArray *todo, const TsSweepRunOptions *o,
            const TsSweepRunOptions *opts, TsSweepTally *tally, GError **error)
{
  /* A first pass given is of the sweep's one trace, not of extrapolated ones. */
  const TsRunShared *given = ts_sweep_trace (s) ? o->shared : NULL;
  g_autoptr (GPtrArray) rest = g_ptr_array_copy (todo, NULL, NULL);
  while (rest->len > 0)
    {
      const char *trace = ((Point *) g_ptr_array_index (rest, 0))->options.trace;
      g_autoptr (GPtrArray) group = g_ptr_array_new ();
      g_autoptr (GPtrArray) later = g_ptr_array_new ();
      for (guint i = 0; i < rest->len; i++)
        {
          Point *p = g_ptr_array_index (rest, i);
          g_ptr_array_add (g_str_equal (p->options.trace, trace) ? group : later, p);
        }
      g_autofree char *cache = ts_sweep_trace (s)
                               ? g_build_filename (out, "inputs", "first-pass.cache", NULL)
                               : first_pass_beside (trace);
      gboolean loaded = FALSE;
      g_autoptr (GError) local = NULL;
      g_clear_pointer (&tally->first_pass, g_free);
      g_autoptr (TsRunShared) own
        = given ? NULL
                : ts_run_shared_cached (trace, ts_sweep_wait_states (s),
                                        ts_sweep_trace (s) ? ts_sweep_cpu_time (s) : TS_CPU_TIME_OFF, cache, &loaded,
                                        &tally->first_pass, &local);
      if ((o->log || o->progress) && tally->first_pass)
        fprintf (stderr, "sweep: %s\n", tally->first_pass);
      if (given || own)
        run_pool (group, given ? given : own, opts, tally);
      else if (ts_sweep_trace (s))
        {
          /* The sweep's one trace cannot be read: nothing can run. */
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      else
        /* One rank count's trace: its points fail, with the reason. */
        for (guint i = 0; i < group->len; i++)
          {
            Point *p = g_ptr_array_index (group, i);
            ts_output_dir_write_file (p->error_path, local->message, strlen (local->message),
                                      NULL);
            tally->failed++;
          }
      g_ptr_array_unref (rest);
      rest = g_steal_pointer (&later);
    }
  return TRUE;
}

/* Every point of @s (of @out; NULL: a dry run without a directory), in @points, and whether it is done (@done) or failed;
 * the old layout's points carried over (unless @o is a --point task: those
 * run at once, and the --slurm run before them carried the old points). */
static gboolean
make_points (const TsSweep *s, const char *out, const TsSweepRunOptions *o, GPtrArray *points,
             gboolean *done, TsSweepTally *tally, GError **error)
{
  g_autoptr (TraceTable) traces = trace_table_new (s, out, o);
  for (guint i = 0; i < tally->points; i++)
    {
      const PointTrace *pt = point_trace (traces, i);
      Point *p = point_new (s, out, pt->trace, pt->state, pt->unusable, i, !o->dry_run, &done[i],
                            error);
      if (!p)
        return FALSE;
      g_ptr_array_add (points, p);
    }
  g_autoptr (GHashTable) old = out && o->point == G_MAXUINT ? legacy_scan (out) : NULL;
  if (old && g_hash_table_size (old) > 0)
    legacy_carry (out, old, points, done, o->dry_run, tally);
  return TRUE;
}

void
ts_sweep_tally_clear (TsSweepTally *tally)
{
  g_clear_pointer (&tally->first_pass, g_free);
  g_clear_pointer (&tally->states, g_free);
}

static gboolean
sweep_run (const TsSweep *s, const char *out, const TsSweepRunOptions *o, TsSweepTally *tally,
           GError **error)
{
  guint n = ts_sweep_n_points (s);
  *tally = (TsSweepTally) { n };
  tally->states = g_new0 (TsSweepState, n);
  TsSweepRunOptions opts = *o;
  if (opts.jobs == 0)
    opts.jobs = MAX (1, g_get_num_processors ());
  if (opts.point != G_MAXUINT && opts.point >= n)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--point %u: the sweep has points 0 to %u", opts.point, n - 1);
      return FALSE;
    }
  if (!opts.dry_run && !ts_sweep_prepare_output (out, error))
    return FALSE;
  g_autoptr (GPtrArray) points = g_ptr_array_new_with_free_func (point_free);
  g_autoptr (GPtrArray) todo = g_ptr_array_new ();
  g_autofree gboolean *done = g_new0 (gboolean, n);
  if (!make_points (s, out, &opts, points, done, tally, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      Point *p = g_ptr_array_index (points, i);
      /* A task's failure is its error file; a point without one is missing. */
      gboolean failed = p->unusable
                        || (opts.collect && g_file_test (p->error_path, G_FILE_TEST_EXISTS));
      tally->states[i] = done[i] ? TS_SWEEP_DONE : failed ? TS_SWEEP_FAILED : TS_SWEEP_TO_RUN;
      tally->failed += failed && !done[i];
      tally->reused += done[i];
      tally->missing += opts.collect && tally->states[i] == TS_SWEEP_TO_RUN;
      if (tally->states[i] == TS_SWEEP_TO_RUN && !opts.collect && !opts.dry_run
          && (opts.point == G_MAXUINT || opts.point == i))
        g_ptr_array_add (todo, p);
    }
  if (opts.dry_run)
    return TRUE;
  if (!run_groups (s, out, todo, o, &opts, tally, error))
    return FALSE;
  if (opts.point != G_MAXUINT)
    return TRUE;
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < points->len; i++)
    {
      Point *p = g_ptr_array_index (points, i);
      TsSweepRow *row = g_new0 (TsSweepRow, 1);
      row->point = p->index;
      row->dir = p->dir;
      row->key = p->key;
      row->key_path = p->key_path;
      row->error_path = p->error_path;
      row->unusable = p->unusable;
      g_ptr_array_add (rows, row);
    }
  return ts_sweep_results_write (s, out, rows, error);
}

gboolean
ts_sweep_run (const TsSweep *s, const char *out, const TsSweepRunOptions *o, TsSweepTally *tally,
              GError **error)
{
  if (sweep_run (s, out, o, tally, error))
    return TRUE;
  ts_sweep_tally_clear (tally);
  return FALSE;
}
