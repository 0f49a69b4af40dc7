/* What the fuzz targets share (tests/fuzz/README).
 *
 * Each target defines LLVMFuzzerTestOneInput(): built with clang's
 * -fsanitize=fuzzer it is a libFuzzer binary; linked with standalone.c (any
 * compiler) it runs the inputs named on its command line once each, which
 * is how `make check` replays the committed corpora. A finding is a crash,
 * a hang, or a g_error() from ts_fuzz_expect(): a promise about errors that
 * did not hold. */
#ifndef TS_FUZZ_H
#define TS_FUZZ_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* First thing in LLVMFuzzerInitialize(): under a sanitizer, an allocation
 * larger than a small input can justify, in this process (not in a child
 * it forks), is a finding. */
void ts_fuzz_init (void);
/* A directory of this process's own, removed at exit. */
const char *ts_fuzz_scratch (void);
/* Write @size bytes to @path, replacing it; aborts on failure (a broken
 * harness, not a finding). */
void ts_fuzz_write (const char *path, const void *data, size_t size);
/* A finding: say what, and abort() so that libFuzzer keeps the input
 * (g_error() raises SIGTRAP, which libFuzzer does not take for a crash). */
void ts_fuzz_finding (const char *format, ...) G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN;
/* An error tracesim would print must say where: non-empty, naming @where,
 * and short enough to read. */
void ts_fuzz_expect_clear_error (const GError *error, const char *where);
/* With TS_FUZZ_VERBOSE set, what became of an input (one line on stderr):
 * to see that a corpus reaches past the first check. */
void ts_fuzz_note (const char *format, ...) G_GNUC_PRINTF (1, 2);

#endif
