/* An exact sum of doubles: the sum of every value added, correctly rounded
 * once at the end, whatever the order they were added in (Shewchuk's
 * adaptive partials, as Python's math.fsum). A running total rounded at
 * every step depends on the order of its terms; the replay's per-region
 * totals add the ranks' regions in whatever order the engine runs them, and
 * two engines must give the same bytes. */
#ifndef TS_FSUM_H
#define TS_FSUM_H

#include <glib.h>

typedef struct {
  GArray *partials;          /* double: non-overlapping, increasing magnitude */
} TsFsum;

/* An empty sum (partials allocated at the first value). */
#define TS_FSUM_INIT { NULL }

void ts_fsum_add (TsFsum *s, double x);
/* The correctly rounded sum of every value added. Non-finite values are not
 * supported (the replay's durations are finite). */
double ts_fsum_result (const TsFsum *s);
void ts_fsum_clear (TsFsum *s);

#endif
