#include <config.h>

#include "tests/fuzz/fuzz.h"
#include "model/output_dir.h"

#include <glib/gstdio.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The longest message an error may carry: a line or two, plus a path. */
#define TS_FUZZ_MAX_MESSAGE 8192
/* The largest allocation a trace of a few hundred bytes, a hypothesis file or
 * a platform file may cause in tracesim's own process. Children that try
 * what may blow up (the anchor probe, the platform load) are bounded by
 * their own limits instead, which is what their parent relies on. */
#define TS_FUZZ_MAX_ALLOCATION (256ul << 20)

/* Sanitizer runtimes (libFuzzer's build) have it; the standalone build not. */
extern int __sanitizer_install_malloc_and_free_hooks (
  void (*malloc_hook) (const volatile void *, size_t),
  void (*free_hook) (const volatile void *)) __attribute__ ((weak));

static volatile int in_child;

static void
note_child (void)
{
  in_child = 1;
}

static void
on_malloc (const volatile void *ptr, size_t size)
{
  if (size > TS_FUZZ_MAX_ALLOCATION && !in_child)
    {
      static const char said[] = "fuzz: an allocation of more than 256 MiB in tracesim's process\n";
      ssize_t ignored = write (STDERR_FILENO, said, sizeof said - 1);
      (void) ignored;
      abort ();
    }
}

void
ts_fuzz_init (void)
{
  if (__sanitizer_install_malloc_and_free_hooks)
    {
      pthread_atfork (NULL, NULL, note_child);
      __sanitizer_install_malloc_and_free_hooks (on_malloc, NULL);
    }
}

static char *scratch;

static void
remove_scratch (void)
{
  if (scratch)
    ts_output_dir_remove_tree (scratch);
}

const char *
ts_fuzz_scratch (void)
{
  if (!scratch)
    {
      g_autoptr (GError) error = NULL;
      scratch = g_dir_make_tmp ("tracesim-fuzz-XXXXXX", &error);
      if (!scratch)
        g_error ("fuzz harness: %s", error->message);
      atexit (remove_scratch);
    }
  return scratch;
}

void
ts_fuzz_write (const char *path, const void *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  if (!g_file_set_contents (path, data, (gssize) size, &error))
    g_error ("fuzz harness: %s", error->message);
}

void
ts_fuzz_finding (const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *what = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "fuzz finding: %s\n", what);
  abort ();
}

void
ts_fuzz_expect_clear_error (const GError *error, const char *where)
{
  if (!error || !error->message[0])
    ts_fuzz_finding ("failed without saying why");
  if (!strstr (error->message, where))
    ts_fuzz_finding ("the error does not name %s: %s", where, error->message);
  if (strlen (error->message) > TS_FUZZ_MAX_MESSAGE)
    ts_fuzz_finding ("an error of %zu bytes (at most %d expected)", strlen (error->message),
                     TS_FUZZ_MAX_MESSAGE);
}

void
ts_fuzz_note (const char *format, ...)
{
  static int verbose = -1;
  if (verbose < 0)
    verbose = g_getenv ("TS_FUZZ_VERBOSE") != NULL;
  if (!verbose)
    return;
  va_list args;
  va_start (args, format);
  g_autofree char *line = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "%s\n", line);
}
