/* Fuzz target: the trace reader (anchor, global definitions, a rank's local
 * definitions and events). The first byte chooses which file of the base
 * trace (tests/fuzz/base.script) the rest of the input replaces; the trace
 * is then opened and every rank's events decoded, as `tracesim info` does.
 *
 * Promise checked: a refused trace gets an error naming the archive. */
#include <config.h>

#include "tests/fuzz/fuzz.h"
#include "model/decode.h"
#include "tools/tracegen/script.h"

static const char *const replaceable[] = {
  "traces.otf2", "traces.def", "traces/0.def", "traces/0.evt", "traces/1.evt",
};
static char *originals[G_N_ELEMENTS (replaceable)];
static gsize original_sizes[G_N_ELEMENTS (replaceable)];
static char *paths[G_N_ELEMENTS (replaceable)];
static char *dir;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  ts_fuzz_init ();
  g_autoptr (GError) error = NULL;
  dir = g_build_filename (ts_fuzz_scratch (), "archive", NULL);
  if (!ts_script_load_file (TS_FUZZ_SRCDIR "/base.script", dir, "traces", &error))
    g_error ("fuzz harness: %s", error->message);
  for (guint i = 0; i < G_N_ELEMENTS (replaceable); i++)
    {
      paths[i] = g_build_filename (dir, replaceable[i], NULL);
      if (!g_file_get_contents (paths[i], &originals[i], &original_sizes[i], &error))
        g_error ("fuzz harness: %s", error->message);
    }
  return 0;
}

static void
decode_all (const TsTrace *trace)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TsDecoder) decoder = ts_decoder_open (trace, &error);
  if (!decoder)
    {
      ts_fuzz_expect_clear_error (error, dir);
      ts_fuzz_note ("no decoder: %s", error->message);
      return;
    }
  for (guint r = 0; r < ts_trace_n_ranks (trace); r++)
    {
      TsRankDecoder *s = ts_decoder_rank (decoder, r, NULL);
      TsAction a;
      while (ts_rank_decoder_next (s, &a, &error))
        ;
      if (error)
        {
          ts_fuzz_expect_clear_error (error, dir);
          ts_fuzz_note ("rank %u: %s", r, error->message);
          return;
        }
    }
  ts_fuzz_note ("decoded %u ranks", ts_trace_n_ranks (trace));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  guint which = data[0] % G_N_ELEMENTS (replaceable);
  /* One branch per file, so that the coverage tells the files apart and
   * libFuzzer keeps a seed for each instead of one for all. */
  switch (which)
    {
    case 0: ts_fuzz_note ("anchor"); break;
    case 1: ts_fuzz_note ("global definitions"); break;
    case 2: ts_fuzz_note ("local definitions of rank 0"); break;
    case 3: ts_fuzz_note ("events of rank 0"); break;
    default: ts_fuzz_note ("events of rank 1"); break;
    }
  ts_fuzz_write (paths[which], data + 1, size - 1);
  g_autoptr (GError) error = NULL;
  TsTrace *trace = ts_trace_open (paths[0], &error);
  if (trace)
    {
      decode_all (trace);
      ts_trace_free (trace);
    }
  else
    {
      ts_fuzz_expect_clear_error (error, dir);
      ts_fuzz_note ("not opened: %s", error->message);
    }
  ts_fuzz_write (paths[which], originals[which], original_sizes[which]);
  return 0;
}
