#include <config.h>

#include "output/palette.h"

#include <math.h>
#include <string.h>

/* tools/palette.py chose these (its docstring says how): every pair of
 * the 40, and each against white, is 12.0 or more apart (CIEDE2000);
 * tests/test-palette.c checks it. The first of each band is the nearest
 * to Vampir's MPI red and application green. */
static const char *const mpi_colours[TS_PALETTE_DISTINCT] = {
  "#dd2222", "#ff66cc", "#ff9900", "#881166", "#774400",
  "#ff9988", "#aa7755", "#773333", "#bb6677", "#ffbbdd",
  "#ff6611", "#dd0099", "#992200", "#bb1155", "#ff5566",
  "#ffbb88", "#bb5500", "#995544", "#ff88aa", "#cc7700",
};
static const char *const compute_colours[TS_PALETTE_DISTINCT] = {
  "#229944", "#005588", "#00aaff", "#ccdd00", "#00eecc",
  "#005544", "#8844ff", "#009999", "#bbbbff", "#777700",
  "#00ff44", "#aaaa77", "#99ddee", "#8877aa", "#116600",
  "#2277ff", "#554488", "#555533", "#bbddbb", "#1100ee",
};

/* ---- colour science ---------------------------------------------------- */

/* IEC 61966-2-1's sRGB transfer function, undone. */
static double
linear (double c)
{
  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

/* CIE 1976 L*a*b*'s f, with the CIE's exact constants (216/24389, 24389/27). */
static double
lab_f (double t)
{
  return t > 216.0 / 24389 ? cbrt (t) : (24389.0 / 27 * t + 16) / 116;
}

gboolean
ts_lab_from_hex (const char *hex, TsLab *lab)
{
  if (!hex || strlen (hex) != 7 || hex[0] != '#')
    return FALSE;
  for (int i = 1; i < 7; i++)
    if (!g_ascii_isxdigit (hex[i]))
      return FALSE;
  double c[3];
  for (int i = 0; i < 3; i++)
    c[i] = linear ((g_ascii_xdigit_value (hex[1 + 2 * i]) * 16
                    + g_ascii_xdigit_value (hex[2 + 2 * i])) / 255.0);
  /* sRGB's primaries to XYZ, then relative to D65's white (0.95047, 1, 1.08883). */
  double x = (0.4124564 * c[0] + 0.3575761 * c[1] + 0.1804375 * c[2]) / 0.95047;
  double y = 0.2126729 * c[0] + 0.7151522 * c[1] + 0.0721750 * c[2];
  double z = (0.0193339 * c[0] + 0.1191920 * c[1] + 0.9503041 * c[2]) / 1.08883;
  lab->L = 116 * lab_f (y) - 16;
  lab->a = 500 * (lab_f (x) - lab_f (y));
  lab->b = 200 * (lab_f (y) - lab_f (z));
  return TRUE;
}

double
ts_lab_hue (TsLab lab)
{
  double h = atan2 (lab.b, lab.a) * 180 / G_PI;
  return h < 0 ? h + 360 : h;
}

static double
rad (double degrees)
{
  return degrees * G_PI / 180;
}

/* Sharma et al. 2005, equations (1) to (22); their notes on the hue of a
 * colour without chroma (h' = 0) and on the mean hue of two colours whose
 * hues straddle 0 are followed, which their test data check. */
double
ts_ciede2000 (TsLab x, TsLab y)
{
  double c7 = pow ((hypot (x.a, x.b) + hypot (y.a, y.b)) / 2, 7);
  double g = 0.5 * (1 - sqrt (c7 / (c7 + pow (25, 7))));
  double a1 = (1 + g) * x.a, a2 = (1 + g) * y.a;
  double c1 = hypot (a1, x.b), c2 = hypot (a2, y.b);
  double h1 = c1 > 0 ? ts_lab_hue ((TsLab) { 0, a1, x.b }) : 0;
  double h2 = c2 > 0 ? ts_lab_hue ((TsLab) { 0, a2, y.b }) : 0;
  double dh = 0;
  if (c1 * c2 > 0)
    dh = h2 - h1 > 180 ? h2 - h1 - 360 : h2 - h1 < -180 ? h2 - h1 + 360 : h2 - h1;
  double dL = y.L - x.L, dC = c2 - c1, dH = 2 * sqrt (c1 * c2) * sin (rad (dh / 2));
  double lm = (x.L + y.L) / 2, cm = (c1 + c2) / 2, hm = h1 + h2;
  if (c1 * c2 > 0)
    hm = fabs (h1 - h2) <= 180 ? hm / 2 : hm < 360 ? (hm + 360) / 2 : (hm - 360) / 2;
  double t = 1 - 0.17 * cos (rad (hm - 30)) + 0.24 * cos (rad (2 * hm))
             + 0.32 * cos (rad (3 * hm + 6)) - 0.20 * cos (rad (4 * hm - 63));
  double dtheta = 30 * exp (-pow ((hm - 275) / 25, 2));
  double cm7 = pow (cm, 7);
  double rc = 2 * sqrt (cm7 / (cm7 + pow (25, 7)));
  double sl = 1 + 0.015 * pow (lm - 50, 2) / sqrt (20 + pow (lm - 50, 2));
  double sc = 1 + 0.045 * cm, sh = 1 + 0.015 * cm * t;
  double rt = -sin (rad (2 * dtheta)) * rc;
  double l = dL / sl, c = dC / sc, h = dH / sh;
  return sqrt (l * l + c * c + h * h + rt * c * h);
}

/* ---- a page's palette ----------------------------------------------------- */

struct TsPalette {
  GHashTable *colours;   /* name -> "#rrggbb" (both owned) */
  guint next[2];         /* the next colour of each band: [mpi] */
};

TsPalette *
ts_palette_new (void)
{
  TsPalette *p = g_new0 (TsPalette, 1);
  p->colours = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return p;
}

void
ts_palette_free (TsPalette *p)
{
  if (!p)
    return;
  g_hash_table_unref (p->colours);
  g_free (p);
}

static void
hsl_to_hex (double h, double s, double l, char out[8])
{
  double c = (1 - fabs (2 * l - 1)) * s, hp = fmod (h, 360) / 60;
  double x = c * (1 - fabs (fmod (hp, 2) - 1)), m = l - c / 2;
  double rgb[6][3] = { { c, x, 0 }, { x, c, 0 }, { 0, c, x }, { 0, x, c }, { x, 0, c }, { c, 0, x } };
  const double *v = rgb[MIN ((int) hp, 5)];
  g_snprintf (out, 8, "#%02x%02x%02x", (int) lround ((v[0] + m) * 255),
              (int) lround ((v[1] + m) * 255), (int) lround ((v[2] + m) * 255));
}

/* A region past the first TS_PALETTE_DISTINCT of its band: a colour of
 * the band by its name's hash, so that it is the same in every figure. */
static char *
hashed (const char *name, gboolean mpi)
{
  guint h = g_str_hash (name);
  double light = 0.35 + (h / 7 % 4) * 0.1;
  char out[8];
  if (mpi)
    hsl_to_hex (350 + (h % 6) * 10, 0.75, light, out);
  else
    hsl_to_hex (100 + (h % 12) * 18, 0.55, light, out);
  return g_strdup (out);
}

void
ts_palette_add (TsPalette *p, const char *name, gboolean mpi)
{
  if (g_hash_table_contains (p->colours, name))
    return;
  guint *n = &p->next[mpi ? 1 : 0];
  const char *const *table = mpi ? mpi_colours : compute_colours;
  char *colour = *n < TS_PALETTE_DISTINCT ? g_strdup (table[*n]) : hashed (name, mpi);
  (*n)++;
  g_hash_table_insert (p->colours, g_strdup (name), colour);
}

const char *
ts_palette_colour (TsPalette *p, const char *name, gboolean mpi)
{
  const char *c = g_hash_table_lookup (p->colours, name);
  if (c)
    return c;
  char *made = hashed (name, mpi);
  g_hash_table_insert (p->colours, g_strdup (name), made);
  return made;
}
