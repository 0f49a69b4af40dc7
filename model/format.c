#include <config.h>

#include "model/format.h"

#include <math.h>

/* @v, given in @units[@first], moved along @units by factors of 1000 until
 * 1 <= |v| < 1000 (or no unit is left), then three significant digits. A value that rounds to 1000 moves up one unit
 * ("999.96 us" is "1 ms", not "1e+03 us"). */
static char *
scaled (double v, const char *const *units, int n_units, int first)
{
  if (!isfinite (v))
    return g_strdup ("n/a");
  if (v == 0)
    return g_strdup_printf ("0 %s", units[first]);
  int u = first;
  double a = fabs (v);
  while (a >= 1000 && u < n_units - 1)
    {
      a /= 1000;
      u++;
    }
  while (a < 1 && u > 0)
    {
      a *= 1000;
      u--;
    }
  char digits[32];
  g_snprintf (digits, sizeof digits, "%.3g", a);
  if (g_ascii_strtod (digits, NULL) >= 1000 && u < n_units - 1)
    {
      a /= 1000;
      u++;
      g_snprintf (digits, sizeof digits, "%.3g", a);
    }
  return g_strdup_printf ("%s%s %s", v < 0 ? "-" : "", digits, units[u]);
}

char *
ts_format_seconds (double seconds)
{
  static const char *const units[] = { "ns", "us", "ms", "s" };
  /* Past 1000 s there is no larger unit (minutes would not add up in a
   * table): whole seconds. */
  if (isfinite (seconds) && fabs (seconds) >= 999.5)
    return g_strdup_printf ("%.0f s", seconds);
  /* No unit below ns: a difference of two times in doubles (1e-15 s of
   * rounding) is none, and half a ns or more is 1 ns ("2.66e-06 ns" was
   * printed). Traces count whole ns at best. */
  if (isfinite (seconds) && fabs (seconds) < 1e-9)
    return g_strdup (fabs (seconds) < 0.5e-9 ? "0 s" : seconds < 0 ? "-1 ns" : "1 ns");
  return scaled (seconds, units, 4, 3);
}

char *
ts_format_rate (double bytes_per_s)
{
  static const char *const units[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
  return scaled (bytes_per_s, units, 5, 0);
}

char *
ts_format_bytes (double bytes)
{
  static const char *const units[] = { "B", "kB", "MB", "GB", "TB" };
  return scaled (bytes, units, 5, 0);
}

char *
ts_format_percent (double part, double whole)
{
  if (whole == 0 || !isfinite (part) || !isfinite (whole))
    return g_strdup ("n/a");
  double p = 100 * part / whole;
  /* %g would print 1.2e-05%: a share this small is said to be one. */
  if (p != 0 && fabs (p) < 0.01)
    return g_strdup (p < 0 ? "-<0.01%" : "<0.01%");
  if (fabs (p) >= 10 || p == 0)
    return g_strdup_printf ("%.0f%%", p);
  return g_strdup_printf ("%.2g%%", p);
}
