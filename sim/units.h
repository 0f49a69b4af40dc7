/* SimGrid's units ("Platform Description: units"), read by tracesim: in the
 * platform check (sim/platform-check.c) and in what users type for the
 * platform generator (`--network 200Gbps,1us`). */
#ifndef TS_UNITS_H
#define TS_UNITS_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum { TS_UNIT_SPEED, TS_UNIT_BANDWIDTH, TS_UNIT_LATENCY } TsUnitKind;

/* Read "1Gf", "100Gbps", "1.5us"...: a finite number and a unit SimGrid
 * knows, positive (latency: zero or more). Returns NULL and sets @value to
 * flop/s, bytes/s or seconds; otherwise a message saying what is wrong
 * (caller frees). */
char *ts_unit_parse (TsUnitKind kind, const char *text, double *value);

/* SMPI's piecewise factors, "SIZE:FACTOR;...": whole sizes in bytes and
 * factors above 0 and below 1e6, at least one pair. */
gboolean ts_unit_piecewise_ok (const char *spec);

/* @value in SimGrid's syntax, exactly ("2.5e10Bps", "1e-06s", "1e9f"). */
char *ts_unit_format (TsUnitKind kind, double value);

G_END_DECLS

#endif
