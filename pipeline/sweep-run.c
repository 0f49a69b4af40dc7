#include <config.h>

#include "pipeline/sweep-run.h"
#include "pipeline/sweep-results.h"
#include "model/output_dir.h"
#include "output/csv.h"

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
  char *dir, *key_path, *error_path, *key;
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
  if (p->keep)
    g_ptr_array_unref (p->keep);
  g_free (p);
}

/* The point's paths, inputs and key; whether it is done already (its key
 * file says the same inputs, its output is there). */
static Point *
point_new (const TsSweep *s, const char *out, const char *trace_state, guint index,
           gboolean *done, GError **error)
{
  Point *p = g_new0 (Point, 1);
  p->index = index;
  g_autofree char *name = g_strdup_printf ("p%04u", index);
  p->dir = g_build_filename (out, "points", name, NULL);
  p->key_path = g_strconcat (p->dir, ".key", NULL);
  p->error_path = g_strconcat (p->dir, ".error", NULL);
  g_autofree char *inputs = g_build_filename (out, "inputs", name, NULL);
  p->keep = g_ptr_array_new_with_free_func (g_free);
  ts_run_options_init (&p->options);
  if (g_mkdir_with_parents (inputs, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", inputs,
                   g_strerror (saved));
      point_free (p);
      return NULL;
    }
  /* A value this point cannot use (a platform template filled into a bad
   * description) fails this point only: its row says why. */
  g_autoptr (GError) local = NULL;
  if (!ts_sweep_point_options (s, index, inputs, &p->options, p->keep, &p->key, &local))
    {
      p->unusable = TRUE;
      g_unlink (p->key_path);
      if (!ts_output_dir_write_file (p->error_path, local->message, strlen (local->message), error))
        {
          point_free (p);
          return NULL;
        }
      *done = FALSE;
      return p;
    }
  p->options.output_dir = p->dir;
  /* A point of the trace as it was before it was recorded again is stale. */
  g_autofree char *inputs_key = g_steal_pointer (&p->key);
  g_autofree char *both = g_strconcat (inputs_key, "\n", trace_state, NULL);
  p->key = g_compute_checksum_for_string (G_CHECKSUM_SHA256, both, -1);
  g_autofree char *old = NULL;
  g_autofree char *summary = g_build_filename (p->dir, "summary.json", NULL);
  *done = g_file_get_contents (p->key_path, &old, NULL, NULL) && g_str_equal (g_strstrip (old), p->key)
          && g_file_test (summary, G_FILE_TEST_IS_REGULAR);
  return p;
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

gboolean
ts_sweep_run (const TsSweep *s, const char *out, const TsSweepRunOptions *o, TsSweepTally *tally,
              GError **error)
{
  *tally = (TsSweepTally) { ts_sweep_n_points (s) };
  TsSweepRunOptions opts = *o;
  if (opts.jobs == 0)
    opts.jobs = MAX (1, g_get_num_processors ());
  if (opts.point != G_MAXUINT && opts.point >= tally->points)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--point %u: the sweep has points 0 to %u", opts.point, tally->points - 1);
      return FALSE;
    }
  if (!ts_sweep_prepare_output (out, error))
    return FALSE;
  g_autofree char *trace_state = ts_run_trace_state (ts_sweep_trace (s));
  g_autoptr (GPtrArray) points = g_ptr_array_new_with_free_func (point_free);
  g_autoptr (GPtrArray) todo = g_ptr_array_new ();
  for (guint i = 0; i < tally->points; i++)
    {
      gboolean done = FALSE;
      Point *p = point_new (s, out, trace_state, i, &done, error);
      if (!p)
        return FALSE;
      g_ptr_array_add (points, p);
      if (p->unusable)
        tally->failed++;
      else if (done)
        tally->reused++;
      else if (!opts.collect && (opts.point == G_MAXUINT || opts.point == i))
        g_ptr_array_add (todo, p);
    }
  if (todo->len > 0)
    {
      /* The first pass, once for every point, every task of a Slurm array
       * and every resume: kept beside the points. */
      g_autofree char *cache = g_build_filename (out, "inputs", "first-pass.cache", NULL);
      gboolean loaded = FALSE;
      g_autoptr (TsRunShared) own
        = o->shared ? NULL
                    : ts_run_shared_cached (ts_sweep_trace (s), ts_sweep_wait_states (s), cache,
                                            &loaded, &tally->first_pass, error);
      if (!o->shared && !own)
        return FALSE;
      if ((o->log || o->progress) && tally->first_pass)
        fprintf (stderr, "sweep: %s\n", tally->first_pass);
      run_pool (todo, o->shared ? o->shared : own, &opts, tally);
    }
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
