#include <config.h>

#include "sim/units.h"

#include <math.h>
#include <string.h>

typedef struct {
  const char *prefix;
  double factor;
} Prefix;

/* Longest first, so that "Gi" is not read as "G". */
static const Prefix prefixes[] = {
  { "Ki", 0x1p10 }, { "Mi", 0x1p20 }, { "Gi", 0x1p30 }, { "Ti", 0x1p40 }, { "Pi", 0x1p50 },
  { "Ei", 0x1p60 }, { "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
  { "P", 1e15 }, { "E", 1e18 }, { "Z", 1e21 }, { "Y", 1e24 }, { "", 1 },
};

static const Prefix times[] = {
  { "w", 604800 }, { "d", 86400 }, { "h", 3600 }, { "m", 60 }, { "s", 1 },
  { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 }, { "ps", 1e-12 },
};

static const char *const kind_names[] = { "speed", "bandwidth", "latency" };
static const char *const kind_examples[] = { "1Gf", "10GBps or 100Gbps", "1us" };

/* The factor of @unit to the base unit, or 0 if SimGrid does not know it. */
static double
unit_factor (TsUnitKind kind, const char *unit)
{
  if (kind == TS_UNIT_LATENCY)
    {
      for (guint i = 0; i < G_N_ELEMENTS (times); i++)
        if (strcmp (unit, times[i].prefix) == 0)
          return times[i].factor;
      return 0;
    }
  static const Prefix speeds[] = { { "flops", 1 }, { "f", 1 } };
  static const Prefix rates[] = { { "Bps", 1 }, { "bps", 0.125 } };
  const Prefix *bases = kind == TS_UNIT_SPEED ? speeds : rates;
  for (guint p = 0; p < G_N_ELEMENTS (prefixes); p++)
    for (guint b = 0; b < 2; b++)
      if (g_str_has_prefix (unit, prefixes[p].prefix)
          && strcmp (unit + strlen (prefixes[p].prefix), bases[b].prefix) == 0)
        return prefixes[p].factor * bases[b].factor;
  return 0;
}

char *
ts_unit_parse (TsUnitKind kind, const char *text, double *value)
{
  char *end;
  double v = g_ascii_strtod (text, &end);
  if (end == text)
    return g_strdup_printf ("'%.40s' is not a number with a unit (e.g. %s)", text,
                            kind_examples[kind]);
  if (!isfinite (v))
    return g_strdup_printf ("%s '%.40s' is not finite", kind_names[kind], text);
  if (*end == '\0')
    return g_strdup_printf ("%s '%.40s' has no unit (e.g. %s): SimGrid would read a bare "
                            "number in its base unit", kind_names[kind], text,
                            kind_examples[kind]);
  double factor = unit_factor (kind, end);
  if (factor == 0)
    return g_strdup_printf ("%s '%.40s': unknown unit '%.20s' (e.g. %s)", kind_names[kind],
                            text, end, kind_examples[kind]);
  if (kind == TS_UNIT_LATENCY ? v < 0 : v <= 0)
    return g_strdup_printf ("%s '%.40s' must be %s", kind_names[kind], text,
                            kind == TS_UNIT_LATENCY ? "zero or more" : "more than zero");
  if (!isfinite (v * factor))
    return g_strdup_printf ("%s '%.40s' is too large", kind_names[kind], text);
  if (value)
    *value = v * factor;
  return NULL;
}

char *
ts_unit_format (TsUnitKind kind, double value)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (number, sizeof number, "%.15g", value);
  static const char *const units[] = { "f", "Bps", "s" };
  return g_strconcat (number, units[kind], NULL);
}

gboolean
ts_unit_piecewise_ok (const char *spec)
{
  g_auto (GStrv) pieces = g_strsplit (spec, ";", -1);
  for (guint i = 0; pieces[i]; i++)
    {
      g_auto (GStrv) pair = g_strsplit (pieces[i], ":", -1);
      guint64 size;
      char *end = NULL;
      double f = g_strv_length (pair) == 2 ? g_ascii_strtod (g_strstrip (pair[1]), &end) : 0;
      if (g_strv_length (pair) != 2
          || !g_ascii_string_to_unsigned (g_strstrip (pair[0]), 10, 0, G_MAXUINT64, &size, NULL)
          || !end || *end || !(f > 0 && f < 1e6))
        return FALSE;
    }
  return pieces[0] != NULL;
}
