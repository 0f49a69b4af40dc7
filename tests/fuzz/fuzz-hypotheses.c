/* Fuzz target: the hypothesis parser, and what a parsed file does to a
 * trace (bind, prepare, every rank's actions rewritten).
 *
 * Promises checked: a refused file gets an error naming it; an accepted one
 * gives every compute action a finite, non-negative duration. */
#include <config.h>

#include "tests/fuzz/fuzz.h"
#include "hypotheses/hypotheses.h"
#include "model/stream.h"
#include "tools/tracegen/script.h"

#include <math.h>

#define ORIGIN "fuzz.hyp"

static TsTrace *trace;
static TsCalibration *calibration;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  ts_fuzz_init ();
  g_autoptr (GError) error = NULL;
  const char *dir = ts_fuzz_scratch ();
  if (!ts_script_load_file (TS_FUZZ_SRCDIR "/base.script", dir, "traces", &error))
    g_error ("fuzz harness: %s", error->message);
  g_autofree char *anchor = g_build_filename (dir, "traces.otf2", NULL);
  if (!(trace = ts_trace_open (anchor, &error))
      || !(calibration = ts_calibration_compute (trace, &error)))
    g_error ("fuzz harness: %s", error->message);
  return 0;
}

/* Every rank's actions through the rules, as the replay feeds them. */
static void
rewrite_all (const TsHypotheses *h)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (calibration, trace, &error);
  if (!stream)
    g_error ("fuzz harness: %s", error->message);
  for (guint r = 0; r < ts_trace_n_ranks (trace); r++)
    {
      TsHypothesisRank *hr = ts_hypothesis_rank_new (h, r, G_MAXUINT);
      TsAction a;
      while (ts_action_stream_next (stream, r, &a, &error))
        {
          if (!ts_hypothesis_rank_apply (hr, &a, &error))
            ts_fuzz_finding ("a prepared hypothesis failed on rank %u: %s", r, error->message);
          if (a.kind == TS_ACTION_COMPUTE && !(isfinite (a.seconds) && a.seconds >= 0))
            ts_fuzz_finding ("rank %u: a compute action of %g s", r, a.seconds);
        }
      if (error)
        g_error ("fuzz harness: %s", error->message);
      ts_hypothesis_rank_free (hr);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (TsHypotheses) h = ts_hypotheses_new ();
  g_autoptr (GError) error = NULL;
  if (!ts_hypotheses_load_bytes (h, (const char *) data, size, ORIGIN, &error))
    {
      ts_fuzz_expect_clear_error (error, ORIGIN);
      ts_fuzz_note ("refused: %s", error->message);
      return 0;
    }
  if (!ts_hypotheses_bind (h, trace, calibration, &error) || !ts_hypotheses_prepare (h, trace, calibration, &error))
    {
      /* Names the file, or the region pattern that matched nothing. */
      if (!error || !error->message[0])
        ts_fuzz_finding ("binding failed without saying why");
      ts_fuzz_note ("not bound: %s", error->message);
      return 0;
    }
  g_autoptr (GString) described = g_string_new (NULL);
  ts_hypotheses_describe (h, trace, described);
  double factors[] = { ts_hypotheses_bandwidth_factor (h), ts_hypotheses_latency_factor (h),
                       ts_hypotheses_speed_factor (h) };
  for (guint i = 0; i < G_N_ELEMENTS (factors); i++)
    if (!(isfinite (factors[i]) && factors[i] > 0))
      ts_fuzz_finding ("a machine factor of %g was accepted", factors[i]);
  rewrite_all (h);
  ts_fuzz_note ("applied %u rules", ts_hypotheses_n_rules (h));
  return 0;
}
