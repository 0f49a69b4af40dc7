#include <config.h>

#include "model/fsum.h"

#include <math.h>

void
ts_fsum_add (TsFsum *s, double x)
{
  if (!s->partials)
    s->partials = g_array_sized_new (FALSE, FALSE, sizeof (double), 4);
  GArray *p = s->partials;
  guint kept = 0;
  for (guint i = 0; i < p->len; i++)
    {
      double y = g_array_index (p, double, i);
      if (fabs (x) < fabs (y))
        {
          double t = x;
          x = y;
          y = t;
        }
      /* x + y exactly: hi rounded, lo the error (Dekker's two-sum, |x| >= |y|). */
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0)
        g_array_index (p, double, kept++) = lo;
      x = hi;
    }
  g_array_set_size (p, kept);
  g_array_append_val (p, x);
}

double
ts_fsum_result (const TsFsum *s)
{
  if (!s->partials || s->partials->len == 0)
    return 0;
  const GArray *p = s->partials;
  guint n = p->len;
  double hi = g_array_index (p, double, --n);
  double lo = 0;
  while (n > 0)
    {
      double x = hi, y = g_array_index (p, double, --n);
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0)
        break;
    }
  /* Round half to even across the partials left (math.fsum's last step):
   * the sum was rounded down or up by exactly half an ulp. */
  if (n > 0 && ((lo < 0 && g_array_index (p, double, n - 1) < 0)
                || (lo > 0 && g_array_index (p, double, n - 1) > 0)))
    {
      double y = lo * 2;
      double x = hi + y;
      if (y == x - hi)
        hi = x;
    }
  return hi;
}

void
ts_fsum_clear (TsFsum *s)
{
  g_clear_pointer (&s->partials, g_array_unref);
}
