/* Fuzz target: the platform loader. The bytes are a SimGrid platform file;
 * tracesim's own check reads it, and what the check accepts is loaded by
 * SimGrid in a child process, as `tracesim run -p` does.
 *
 * Promise checked: a refused platform gets an error naming the file (the
 * child's death included: SimGrid aborting is turned into a message). */
#include <config.h>

#include "tests/fuzz/fuzz.h"
#include "sim/platform-check.h"
#include "sim/replay.h"

static char *platform_path;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  ts_fuzz_init ();
  platform_path = g_build_filename (ts_fuzz_scratch (), "platform.xml", NULL);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ts_fuzz_write (platform_path, data, size);
  g_autoptr (GError) error = NULL;
  if (!ts_platform_check_file (platform_path, &error))
    {
      ts_fuzz_expect_clear_error (error, platform_path);
      ts_fuzz_note ("refused: %s", error->message);
      return 0;
    }
  TsReplayOptions options;
  ts_replay_options_init (&options);
  options.platform_path = platform_path;
  if (!ts_replay_check_config (&options, &error))
    {
      ts_fuzz_expect_clear_error (error, platform_path);
      ts_fuzz_note ("not loaded: %s", error->message);
    }
  else
    ts_fuzz_note ("loaded");
  return 0;
}
