/* Quantities as a person reads them: one way to print a time, a rate, a
 * size and a share, used by every page and every command, so that one run's
 * outputs never mix "1.0138e-05 s", "0.000120353 s", "Gb/s" and "Bps".
 *
 * Times are "N s", "N ms", "N us" or "N ns" with 1 <= N < 1000 and three
 * significant digits ("10.1 us", "120 us", "1.37 s"); zero is "0 s", and
 * from 1000 s on, whole seconds ("1234 s": no larger unit adds up in a
 * table of seconds; Vampir and Cube print seconds too).
 * Rates are bytes per second with decimal prefixes ("12.5 GB/s"), sizes
 * bytes ("8 B", "135 kB", "2.1 GB"), as SI and the MPI benchmarks (OSU,
 * IMB) print them. Every function returns a newly allocated string: the
 * caller frees it with g_free. */
#ifndef TS_FORMAT_H
#define TS_FORMAT_H

#include <glib.h>

G_BEGIN_DECLS

/* @seconds (any sign; not finite gives "n/a"). */
char *ts_format_seconds (double seconds);
/* @bytes_per_s, as B/s, kB/s, MB/s, GB/s or TB/s. */
char *ts_format_rate (double bytes_per_s);
/* @bytes, as B, kB, MB, GB or TB. */
char *ts_format_bytes (double bytes);
/* @part of @whole as "41%" (two significant digits below 10: "4.1%",
 * "0.12%"); "n/a" where @whole is 0. */
char *ts_format_percent (double part, double whole);

G_END_DECLS

#endif
