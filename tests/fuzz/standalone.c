/* main() for a fuzz target built without libFuzzer: every file named on the
 * command line, or in a directory named there, is one input, run once. */
#include <config.h>

#include "tests/fuzz/fuzz.h"

#include <stdio.h>

static guint
run_path (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;
      guint n = 0;
      while (dir && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          n += run_path (child);
        }
      return n;
    }
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents (path, &data, &len, &error))
    g_error ("%s", error->message);
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  return 1;
}

int
main (int argc, char **argv)
{
  LLVMFuzzerInitialize (&argc, &argv);
  guint n = 0;
  for (int i = 1; i < argc; i++)
    n += run_path (argv[i]);
  printf ("%s: %u inputs, no finding\n", argv[0], n);
  return n > 0 ? 0 : 1;
}
