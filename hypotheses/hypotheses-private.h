/* What hypotheses.c (binding, preparing, applying) and parse.c (reading
 * files) share; private to hypotheses/. */
#ifndef TS_HYPOTHESES_PRIVATE_H
#define TS_HYPOTHESES_PRIVATE_H

#include "hypotheses/hypotheses.h"
#include "hypotheses/rule.h"

struct TsHypotheses {
  GPtrArray *rules;          /* TsRule*, in file order, files in load order */
  double bandwidth, latency, speed;
  /* After bind: per region, the rules matching it, in rule order (CSR:
   * region r's are by_region[region_start[r] .. region_start[r+1]-1]), so
   * that an action costs what the rules on its region cost, not all rules. */
  guint *region_start;
  guint *by_region;
  GArray *inclusive;         /* guint: the rules with inclusive = true */
};

/* Machine factors, each file's and composed over all files, stay within
 * these bounds: beyond them SimGrid's models divide by zero or overflow. */
#define TS_HYPOTHESES_MIN_FACTOR 1e-6
#define TS_HYPOTHESES_MAX_FACTOR 1e6
#define TS_HYPOTHESES_MIN_COMPOSED 1e-9
#define TS_HYPOTHESES_MAX_COMPOSED 1e9

#endif
