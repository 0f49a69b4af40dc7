/* Tests of output/palette.c: CIEDE2000 against Sharma et al.'s published
 * pairs, sRGB to CIELAB, and the report's palette for a trace of 20
 * regions (every two regions 10 or more apart, and from the page). */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glib.h>
#include <math.h>

#include "output/figures.h"
#include "output/palette.h"
#include "tests/scripted.h"

/* G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000 color-difference formula:
 * implementation notes, supplementary test data, and mathematical
 * observations", Color Res. Appl. 30(1), 21-30, 2005: Table 1, all 34
 * pairs (L1 a1 b1, L2 a2 b2, the difference to 4 decimals). They exercise
 * the hue of a colour without chroma (7, 8), mean hues across 0 degrees
 * (9 to 16), and the rotation term in the blues (1 to 6). */
static const double sharma[34][7] = {
  { 50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425 },
  { 50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615 },
  { 50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412 },
  { 50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000 },
  { 50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000 },
  { 50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000 },
  { 50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669 },
  { 50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669 },
  { 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792 },
  { 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792 },
  { 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195 },
  { 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195 },
  { 50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045 },
  { 50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045 },
  { 50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461 },
  { 50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065 },
  { 50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492 },
  { 50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977 },
  { 50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030 },
  { 50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535 },
  { 50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000 },
  { 50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000 },
  { 50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000 },
  { 50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000 },
  { 60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644 },
  { 63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630 },
  { 61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731 },
  { 35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645 },
  { 22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373 },
  { 36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146 },
  { 90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441 },
  { 90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381 },
  { 6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377 },
  { 2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082 },
};

/* Ensure that CIEDE2000 gives Sharma's 34 published differences to their
 * 4 decimals (half a unit of the last: 5e-5), in both orders. */
static void
test_ciede2000_sharma (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (sharma); i++)
    {
      TsLab x = { sharma[i][0], sharma[i][1], sharma[i][2] };
      TsLab y = { sharma[i][3], sharma[i][4], sharma[i][5] };
      double d = ts_ciede2000 (x, y), back = ts_ciede2000 (y, x);
      if (fabs (d - sharma[i][6]) > 5e-5 || fabs (back - sharma[i][6]) > 5e-5)
        fail_msg ("pair %u: %.6f and %.6f, published %.4f", i + 1, d, back, sharma[i][6]);
    }
}

/* Ensure sRGB to CIELAB under D65: white is L 100, a = b = 0 (the D65
 * white point itself); black 0; #808080 (0.2158605 linear, Y^(1/3) x 116
 * - 16) L 53.585, neutral; pure red L 53.24, a 80.09, b 67.20, the
 * values every colour reference tabulates for sRGB red. Not colours. */
static void
test_lab_from_hex (void **state)
{
  (void) state;
  TsLab lab;
  assert_true (ts_lab_from_hex ("#ffffff", &lab));
  assert_true (fabs (lab.L - 100) < 1e-3 && fabs (lab.a) < 1e-2 && fabs (lab.b) < 1e-2);
  assert_true (ts_lab_from_hex ("#000000", &lab));
  assert_true (fabs (lab.L) < 1e-9);
  assert_true (ts_lab_from_hex ("#808080", &lab));
  assert_true (fabs (lab.L - 53.585) < 1e-2 && fabs (lab.a) < 1e-2 && fabs (lab.b) < 1e-2);
  assert_true (ts_lab_from_hex ("#FF0000", &lab));
  assert_true (fabs (lab.L - 53.24) < 0.01 && fabs (lab.a - 80.09) < 0.01
               && fabs (lab.b - 67.20) < 0.01);
  assert_false (ts_lab_from_hex ("#ff000", &lab));
  assert_false (ts_lab_from_hex ("ff00000", &lab));
  assert_false (ts_lab_from_hex ("#ff00zz", &lab));
  assert_false (ts_lab_from_hex (NULL, &lab));
}

/* Every pair of @colours (n) and each against the page's white: CIEDE2000
 * of 10 or more. MPI colours in the red band (CIELAB hue 340 to 70
 * degrees), the others in 100 to 310: hues apart. */
static void
assert_apart (const char *const *colours, const gboolean *mpi, guint n)
{
  TsLab white;
  assert_true (ts_lab_from_hex (TS_PALETTE_BACKGROUND, &white));
  for (guint i = 0; i < n; i++)
    {
      TsLab x;
      assert_true (ts_lab_from_hex (colours[i], &x));
      double h = ts_lab_hue (x), d = ts_ciede2000 (x, white);
      if (d < 10)
        fail_msg ("%s is %.2f from the page's white", colours[i], d);
      if (mpi[i] ? !(h >= 340 || h < 70) : !(h >= 100 && h <= 310))
        fail_msg ("%s (%s) has hue %.1f, out of its band", colours[i], mpi[i] ? "MPI" : "compute", h);
      for (guint j = i + 1; j < n; j++)
        {
          TsLab y;
          assert_true (ts_lab_from_hex (colours[j], &y));
          if ((d = ts_ciede2000 (x, y)) < 10)
            fail_msg ("%s and %s are %.2f apart", colours[i], colours[j], d);
        }
    }
}

/* Ensure that any mix of 20 regions is told apart: all MPI, all compute,
 * and every split k MPI + (20 - k) compute in between. */
static void
test_palette_any_mix (void **state)
{
  (void) state;
  for (guint k = 0; k <= TS_PALETTE_DISTINCT; k++)
    {
      g_autoptr (TsPalette) p = ts_palette_new ();
      const char *colours[TS_PALETTE_DISTINCT];
      gboolean mpi[TS_PALETTE_DISTINCT];
      char names[TS_PALETTE_DISTINCT][16];
      for (guint i = 0; i < TS_PALETTE_DISTINCT; i++)
        {
          mpi[i] = i < k;
          g_snprintf (names[i], sizeof names[i], "region%u", i);
          ts_palette_add (p, names[i], mpi[i]);
        }
      for (guint i = 0; i < TS_PALETTE_DISTINCT; i++)
        colours[i] = ts_palette_colour (p, names[i], mpi[i]);
      assert_apart (colours, mpi, TS_PALETTE_DISTINCT);
    }
}

/* Ensure the report's palette for a trace of 20 regions: 10 of the
 * program's own (k0 ... k9, rank 0 spending (i + 1) x 10 ms in k_i, so
 * k9 is the largest) and 10 MPI calls (MPI_Barrier ... each a collective
 * of all 2 ranks), no main: the time between them is outside any region
 * and is a region of the page too (compute (no region)), which is drawn
 * in a colour apart from the page's white. The largest first: k9 takes
 * the first compute colour. */
static void
test_report_palette_20_regions (void **state)
{
  (void) state;
  static const char *const mpi_names[10] = {
    "MPI_Barrier", "MPI_Allreduce", "MPI_Bcast", "MPI_Reduce", "MPI_Allgather",
    "MPI_Alltoall", "MPI_Gather", "MPI_Scatter", "MPI_Scan", "MPI_Exscan",
  };
  static const char *const ops[10] = {
    "barrier root=none", "allreduce root=none", "bcast root=0", "reduce root=0",
    "allgather root=none", "alltoall root=none", "gather root=0", "scatter root=0",
    "scan root=none", "exscan root=none",
  };
  g_autoptr (GString) script = g_string_new ("ranks 2\n");
  for (guint r = 0; r < 2; r++)
    {
      double t = 0;
      for (guint i = 0; i < 10; i++)
        {
          g_string_append_printf (script, "%u %.4f enter k%u\n", r, t, i);
          t += (i + 1) * 0.01;
          g_string_append_printf (script, "%u %.4f leave k%u\n", r, t, i);
          t += 0.001; /* outside any region */
          g_string_append_printf (script, "%u %.4f enter %s\n%u %.4f coll_begin\n", r, t,
                                  mpi_names[i], r, t);
          t += 0.002 + i * 0.0001;
          g_string_append_printf (script, "%u %.4f coll_end %s\n%u %.4f leave %s\n", r, t,
                                  ops[i], r, t, mpi_names[i]);
        }
    }
  char *dir = NULL;
  g_autofree char *anchor = ts_test_script_write (script->str, &dir);
  TsTimelineOptions o = { 100, 1.0, 16, FALSE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (TsTimeline) t = ts_timeline_build (anchor, &o, &error);
  assert_non_null (t);
  const TsTimeline *both[2] = { t, NULL };
  g_autoptr (GArray) totals = ts_figure_region_totals (both);
  /* 10 kernels, 10 MPI calls, and the time outside them. */
  assert_int_equal (totals->len, 21);
  assert_string_equal (g_array_index (totals, TsRegionTotal, 0).name, "k9");
  g_autoptr (TsPalette) p = ts_figure_palette (totals);
  const char *colours[21];
  gboolean mpi[21];
  guint outside = 0;
  for (guint i = 0; i < totals->len; i++)
    {
      const TsRegionTotal *r = &g_array_index (totals, TsRegionTotal, i);
      mpi[i] = r->mpi;
      colours[i] = ts_palette_colour (p, r->name, r->mpi);
      outside += g_str_equal (r->name, TS_TIMELINE_OUTSIDE_NAME) && !r->mpi;
    }
  assert_int_equal (outside, 1);
  /* The 20 largest, apart; the 21st is past them all the same here, as
   * each band has 20 distinct colours and this trace uses 11 and 10. */
  assert_apart (colours, mpi, totals->len);
  ts_test_script_remove (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ciede2000_sharma),
    cmocka_unit_test (test_lab_from_hex),
    cmocka_unit_test (test_palette_any_mix),
    cmocka_unit_test (test_report_palette_20_regions),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
