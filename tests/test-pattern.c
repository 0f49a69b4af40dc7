/* Communication patterns (extrap/pattern.c): MPI_Dims_create's
 * factorisations, and partner sets written down by hand for a ring, grids,
 * all-to-all and master/worker recognised, extended to more ranks, and an
 * irregular one refused. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "extrap/pattern.h"

/* Partner sets from a text: one rank per ';', its partners blank-separated. */
static GArray **
partners_of (const char *text, guint *p)
{
  g_auto (GStrv) ranks = g_strsplit (text, ";", -1);
  *p = g_strv_length (ranks);
  GArray **out = g_new0 (GArray *, *p);
  for (guint r = 0; r < *p; r++)
    {
      out[r] = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_auto (GStrv) words = g_strsplit_set (g_strstrip (ranks[r]), " ", -1);
      for (guint i = 0; words[i]; i++)
        if (*words[i])
          {
            guint32 v = (guint32) g_ascii_strtoull (words[i], NULL, 10);
            g_array_append_val (out[r], v);
          }
    }
  return out;
}

static void
partners_free (GArray **a, guint p)
{
  for (guint r = 0; r < p; r++)
    g_array_unref (a[r]);
  g_free (a);
}

/* Recognise the pattern of one or more scales given as texts. */
static TsPattern
recognise (guint n, const char *const *texts)
{
  guint p[8];
  GArray **sets[8];
  for (guint i = 0; i < n; i++)
    sets[i] = partners_of (texts[i], &p[i]);
  TsPattern t = ts_pattern_recognise (n, p, (GArray *const *const *) sets);
  for (guint i = 0; i < n; i++)
    partners_free (sets[i], p[i]);
  return t;
}

static void
assert_partners (const TsPattern *t, guint p, guint r, const char *expected)
{
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (guint32));
  TsPattern at = ts_pattern_at (t, p);
  ts_pattern_partners (&at, p, r, got);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < got->len; i++)
    g_string_append_printf (s, "%s%u", i ? " " : "", g_array_index (got, guint32, i));
  g_autofree char *text = g_string_free (s, FALSE);
  assert_string_equal (text, expected);
}

/* Rank @r's role under @t taken to @p ranks. */
static guint
role_at (const TsPattern *t, guint p, guint r)
{
  TsPattern at = ts_pattern_at (t, p);
  return ts_pattern_role (&at, p, r);
}

/* Ensure that the factorisations are MPI_Dims_create's: the most balanced,
 * largest first. 12 = 4x3 (not 6x2); 72 = 9x8 (a greedy split by prime
 * factors would give 12x6); 16 in 3-D = 4x2x2; 64 in 3-D = 4x4x4; a prime
 * stays whole: 7 = 7x1. */
static void
test_dims_create (void **state)
{
  guint d[3];
  ts_dims_create (12, 2, d);
  assert_true (d[0] == 4 && d[1] == 3);
  ts_dims_create (72, 2, d);
  assert_true (d[0] == 9 && d[1] == 8);
  ts_dims_create (16, 3, d);
  assert_true (d[0] == 4 && d[1] == 2 && d[2] == 2);
  ts_dims_create (64, 3, d);
  assert_true (d[0] == 4 && d[1] == 4 && d[2] == 4);
  ts_dims_create (7, 2, d);
  assert_true (d[0] == 7 && d[1] == 1);
}

/* Ensure that a ring is recognised: 5 ranks, each with r-1 and r+1 mod 5.
 * At 8 ranks, rank 0's partners are 1 and 7. */
static void
test_ring (void **state)
{
  TsPattern t = recognise (1, (const char *[]) { "1 4; 0 2; 1 3; 2 4; 0 3" });
  assert_int_equal (t.kind, TS_PATTERN_CARTESIAN);
  g_autofree char *name = ts_pattern_describe (&t);
  assert_string_equal (name, "ring of 5");
  assert_partners (&t, 8, 0, "1 7");
}

/* Ensure that a periodic 2-D grid traced at 4, 9 and 16 ranks comes back
 * and extends to 64. Rank i*d+j of a dxd grid has (i+-1 mod d, j) and
 * (i, j+-1 mod d). At 4 (2x2) rank 0 = (0,0) has 1 and 2; at 9 (3x3) rank 4
 * = (1,1) has 1, 3, 5, 7. At 64 (8x8) rank 0 has (0,1)=1, (0,7)=7,
 * (1,0)=8 and (7,0)=56. A ring does not fit 2x2: it gives rank 0 1 and 3. */
static void
test_periodic_grid_three_scales (void **state)
{
  TsPattern t = recognise (3, (const char *[]) {
    "1 2; 0 3; 0 3; 1 2",
    "1 2 3 6; 0 2 4 7; 0 1 5 8; 0 4 5 6; 1 3 5 7; 2 3 4 8; 0 3 7 8; 1 4 6 8; 2 5 6 7",
    "1 3 4 12; 0 2 5 13; 1 3 6 14; 0 2 7 15; 0 5 7 8; 1 4 6 9; 2 5 7 10; 3 4 6 11;"
    "4 9 11 12; 5 8 10 13; 6 9 11 14; 7 8 10 15; 0 8 13 15; 1 9 12 14; 2 10 13 15; 3 11 12 14" });
  g_autofree char *name = ts_pattern_describe (&t);
  assert_string_equal (name, "2-D grid 4x4 (periodic x periodic)");
  assert_partners (&t, 64, 0, "1 7 8 56");
  assert_int_equal (role_at (&t, 64, 0), 0);
}

/* Ensure that open boundaries and roles come out: a 4x3 grid (12 ranks,
 * rank = 3i + j) without wrap-around. Rank 5 = (1,2): (0,2)=2, (2,2)=8,
 * (1,1)=4. Its role takes the dimensions last first: code 2 (the high end
 * of the second), times 4, plus code 0 (interior in the first) = 8. Rank
 * 4 = (1,1) is interior: role 0. */
static void
test_open_grid_roles (void **state)
{
  TsPattern t = recognise (1, (const char *[]) {
    "1 3; 0 2 4; 1 5; 0 4 6; 1 3 5 7; 2 4 8; 3 7 9; 4 6 8 10; 5 7 11; 6 10; 7 9 11; 8 10" });
  g_autofree char *name = ts_pattern_describe (&t);
  assert_string_equal (name, "2-D grid 4x3 (open x open)");
  assert_partners (&t, 12, 5, "2 4 8");
  assert_int_equal (role_at (&t, 12, 5), 8);
  assert_int_equal (role_at (&t, 12, 4), 0);
}

/* Ensure that all-to-all and master/worker are recognised, and a master's
 * partners at 6 ranks are the 5 others. */
static void
test_all_to_all_and_master_worker (void **state)
{
  TsPattern a = recognise (1, (const char *[]) { "1 2 3; 0 2 3; 0 1 3; 0 1 2" });
  assert_int_equal (a.kind, TS_PATTERN_ALL_TO_ALL);
  TsPattern m = recognise (1, (const char *[]) { "1 2 3 4; 0; 0; 0; 0" });
  assert_int_equal (m.kind, TS_PATTERN_MASTER_WORKER);
  assert_partners (&m, 6, 0, "1 2 3 4 5");
  assert_int_equal (role_at (&m, 6, 0), 1);
  assert_int_equal (role_at (&m, 6, 3), 0);
}

/* Ensure that partners no rule produces are irregular, and that one rule
 * must describe every scale: a ring at 4 ranks and a 3x3 grid at 9 are two
 * programs, not one. */
static void
test_irregular_refused (void **state)
{
  TsPattern t = recognise (1, (const char *[]) { "3; 2; 0 1; " });
  assert_int_equal (t.kind, TS_PATTERN_IRREGULAR);
  TsPattern mixed = recognise (2, (const char *[]) {
    "1 3; 0 2; 1 3; 0 2",
    "1 2 3 6; 0 2 4 7; 0 1 5 8; 0 4 5 6; 1 3 5 7; 2 3 4 8; 0 3 7 8; 1 4 6 8; 2 5 6 7" });
  assert_int_equal (mixed.kind, TS_PATTERN_IRREGULAR);
}

/* Ensure that NPB CG's partners come back as recursive doubling in rows
 * with a transpose partner. Written down from cg.f90: at P = 2^n, nprows =
 * 2^floor(n/2) rows of npcols = 2^ceil(n/2), rank = row x npcols + col;
 * row partners col XOR 1, 2, ..., npcols/2; exch_proc = (s_c nprows + row)
 * b + s for col = s_c b + s, b = npcols / nprows. At 2 (1x2) exch_proc is
 * the rank itself: 0 with 1. At 4 (2x2): 0 with 1 (exch 0); 1 with 0 and
 * 2; 2 with 3 and 1; 3 with 2. At 8 (2x4, b = 2): 0 with 1, 2 (exch 0); 1
 * with 0, 3; 2 with 3, 0 and exch (1 x 2 + 0) x 2 + 0 = 4; 3 with 2, 1, 5;
 * 4 with 5, 6, 2; 5 with 4, 7, 3; 6 with 7, 4 (exch 6); 7 with 6, 5. Every
 * grid fails at 8 (rank 2 has 3 partners, rank 0 2, where a 2x4 grid's
 * corners have 2 and its edges 3, but 2's are 0, 3, 4: no step along one
 * dimension). At 16 (4x4, b = 1), rank 6 = (1, 2) has 7, 4 and the
 * transpose (2, 1) = 9; rank 5 = (1, 1) is its own: 4, 7. At 32 (4x8, b =
 * 2) rank 5 has 4, 7, 1 and 17. The same rows without the transpose, and
 * recursive doubling over every rank (r XOR 2^k), come back as such; at 2
 * and 4 ranks alone a grid describes those, and wins (the simplest). */
static void
test_recursive_doubling (void **state)
{
  (void) state;
  const char *cg[] = { "1; 0", "1; 0 2; 1 3; 2",
                       "1 2; 0 3; 0 3 4; 1 2 5; 2 5 6; 3 4 7; 4 7; 5 6" };
  TsPattern t = recognise (3, cg);
  assert_int_equal (t.kind, TS_PATTERN_BUTTERFLY);
  assert_false (t.one_row);
  assert_true (t.transpose);
  assert_int_equal (t.dims[0], 2);
  assert_int_equal (t.dims[1], 4);
  assert_partners (&t, 16, 6, "4 7 9");
  assert_partners (&t, 16, 5, "4 7");
  assert_partners (&t, 32, 5, "1 4 7 17");
  g_autofree char *name = ts_pattern_describe (&t);
  assert_string_equal (name, "2-D grid 2x4, each row by recursive doubling (column XOR 2^k), "
                             "and a transpose partner (NPB CG's)");
  TsPattern world = recognise (3, (const char *[]) {
    "1 2; 0 3; 0 3; 1 2",
    "1 2 4; 0 3 5; 0 3 6; 1 2 7; 0 5 6; 1 4 7; 2 4 7; 3 5 6",
    "1 2 4 8; 0 3 5 9; 0 3 6 10; 1 2 7 11; 0 5 6 12; 1 4 7 13; 2 4 7 14; 3 5 6 15; "
    "0 9 10 12; 1 8 11 13; 2 8 11 14; 3 9 10 15; 4 8 13 14; 5 9 12 15; 6 10 12 15; "
    "7 11 13 14" });
  assert_int_equal (world.kind, TS_PATTERN_BUTTERFLY);
  assert_true (world.one_row);
  assert_partners (&world, 32, 5, "1 4 7 13 21");
  TsPattern small = recognise (2, (const char *[]) { "1; 0", "1 2; 0 3; 0 3; 1 2" });
  assert_int_equal (small.kind, TS_PATTERN_CARTESIAN);
  TsPattern rows = recognise (1, (const char *[]) { "1 2; 0 3; 0 3; 1 2; 5 6; 4 7; 4 7; 5 6" });
  assert_int_equal (rows.kind, TS_PATTERN_BUTTERFLY);
  assert_false (rows.transpose);
}

/* Ensure that a grid numbered column-major comes back, NPB LU's: at P =
 * 2^n ranks its x dimension, varying fastest, has 2^ceil(n/2) ranks and y
 * the rest, rank r at x = r mod xdim, y = r / xdim, open both ways. At 8
 * (xdim 4, ydim 2) rank 0 = (0,0) has x + 1 = 1 and y + 1 = 4; rank 5 =
 * (1,1) has 4, 6 and 1. At 4 (2x2) and 2 (2x1) every rank has the other
 * one or two. MPI's order gives 8 ranks 4x2 (rank 0 with 1 and 2), so only
 * the reverse fits: row-major, 2x4 (slowest first). At 32 it is 4x8,
 * NPB's xdim 8 and ydim 4: rank 9 = (1,1) has 1, 17 (y) and 8, 10 (x).
 * The second dimension has 4 ranks at 8 and is open (rank 0 lacks 3); the
 * first has at most 2 at every input, where periodic and open give the
 * same partners, and comes back periodic (what the message counts then
 * settle, extrap/model.c). */
static void
test_column_major_grid (void **state)
{
  const char *texts[] = { "1; 0", "1 2; 0 3; 0 3; 1 2",
                          "1 4; 0 2 5; 1 3 6; 2 7; 0 5; 1 4 6; 2 5 7; 3 6" };
  TsPattern t = recognise (3, texts);
  g_autofree char *name = ts_pattern_describe (&t);
  assert_string_equal (name, "2-D grid 2x4 (periodic x open, largest dimension last)");
  assert_int_equal (t.order, ts_pattern_order_reversed (2));
  assert_partners (&t, 32, 9, "1 8 10 17");
  assert_partners (&t, 8, 5, "1 4 6");
}

/* Ensure that inputs fitting both orders are told apart from those that
 * do not. A periodic grid at 1, 2 and 4 ranks (the 1-rank one talks to
 * nobody, the 2-rank one 0 with 1, the 4-rank one 2x2) fits MPI's order
 * and the reverse; at 8 they differ (4x2 against 2x4), at 16 they do not
 * (4x4). The column-major inputs above fit only their own order. */
static void
test_order_unsettled (void **state)
{
  const char *texts[] = { " ", "1; 0", "1 2; 0 3; 0 3; 1 2" };
  guint p[3];
  GArray **sets[3];
  for (guint i = 0; i < 3; i++)
    sets[i] = partners_of (texts[i], &p[i]);
  GArray *const *const *partners = (GArray *const *const *) sets;
  TsPattern t = ts_pattern_recognise (3, p, partners), other;
  assert_int_equal (t.kind, TS_PATTERN_CARTESIAN);
  assert_int_equal (t.order, 0);
  assert_true (ts_pattern_other_order (3, p, partners, &t, 8, &other));
  TsPattern at = ts_pattern_at (&other, 8);
  assert_true (at.dims[0] == 2 && at.dims[1] == 4);
  assert_false (ts_pattern_other_order (3, p, partners, &t, 16, &other));
  TsPattern reversed = ts_pattern_recognise_grid (3, p, partners, 2, 1, FALSE);
  assert_int_equal (reversed.kind, TS_PATTERN_CARTESIAN);
  for (guint i = 0; i < 3; i++)
    partners_free (sets[i], p[i]);

  const char *lu[] = { "1; 0", "1 2; 0 3; 0 3; 1 2",
                       "1 4; 0 2 5; 1 3 6; 2 7; 0 5; 1 4 6; 2 5 7; 3 6" };
  for (guint i = 0; i < 3; i++)
    sets[i] = partners_of (lu[i], &p[i]);
  t = ts_pattern_recognise (3, p, partners);
  assert_false (ts_pattern_other_order (3, p, partners, &t, 32, &other));
  assert_int_equal (ts_pattern_recognise_grid (3, p, partners, 2, 0, FALSE).kind, TS_PATTERN_IRREGULAR);
  for (guint i = 0; i < 3; i++)
    partners_free (sets[i], p[i]);
}

/* Ensure that stencils with diagonal neighbours are recognised and
 * extended. Written down by hand: on an open 3x3 grid with diagonals the
 * corner rank 0 talks to 1, 3 and 4, the middle rank 4 to all 8 others; a
 * periodic 4x4 one at 16 ranks and 3x3 at 9 is recognised as a 9-point
 * stencil (no face grid, all-to-all or master/worker fits 16), and at 64
 * (8x8) rank 0 talks to rows 7, 0, 1 x columns 7, 0, 1: 1, 7, 8, 9, 15,
 * 56, 57, 63. A 27-point periodic 3x3x3 grid gives its middle rank 13 every
 * other rank. Offsets: a step -1 along dimension 1 of 2 is 4 - 1 = 3, its
 * opposite 5; (+1, +1) is 8, which steps along both (mask 3). */
static void
test_diagonal_stencils (void **state)
{
  (void) state;
  TsPattern open9 = { TS_PATTERN_CARTESIAN, 2, { 3, 3 }, { FALSE, FALSE }, .diagonal = TRUE };
  assert_partners (&open9, 9, 0, "1 3 4");
  assert_partners (&open9, 9, 4, "0 1 2 3 5 6 7 8");
  g_autofree char *name = ts_pattern_describe (&open9);
  assert_string_equal (name, "2-D grid 3x3 (open x open, 9-point: diagonal neighbours too)");

  TsPattern p9 = { TS_PATTERN_CARTESIAN, 2, .periodic = { TRUE, TRUE }, .diagonal = TRUE };
  guint p[2] = { 9, 16 };
  GArray **sets[2];
  for (guint i = 0; i < 2; i++)
    {
      TsPattern at = ts_pattern_at (&p9, p[i]);
      sets[i] = g_new0 (GArray *, p[i]);
      for (guint r = 0; r < p[i]; r++)
        {
          sets[i][r] = g_array_new (FALSE, FALSE, sizeof (guint32));
          ts_pattern_partners (&at, p[i], r, sets[i][r]);
        }
    }
  TsPattern found = ts_pattern_recognise (2, p, (GArray *const *const *) sets);
  assert_int_equal (found.kind, TS_PATTERN_CARTESIAN);
  assert_true (found.diagonal);
  assert_int_equal (found.n_dims, 2);
  assert_partners (&found, 64, 0, "1 7 8 9 15 56 57 63");
  for (guint i = 0; i < 2; i++)
    partners_free (sets[i], p[i]);

  TsPattern p27 = { TS_PATTERN_CARTESIAN, 3, { 3, 3, 3 }, { TRUE, TRUE, TRUE }, .diagonal = TRUE };
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (guint32));
  ts_pattern_partners (&p27, 27, 13, all);
  assert_int_equal (all->len, 26);
  assert_true (ts_pattern_stencil_reaches_all (&p27));
  assert_false (ts_pattern_stencil_reaches_all (&open9));

  assert_int_equal (ts_pattern_face_offset (2, 0, -1), 3);
  assert_int_equal (ts_pattern_offset_opposite (2, 3), 5);
  assert_int_equal (ts_pattern_offset_mask (2, 8), 3);
  assert_int_equal (ts_pattern_offset_neighbour (&open9, 0, 8), 4);
  assert_int_equal (ts_pattern_offset_neighbour (&open9, 0, 0), -1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_dims_create),
    cmocka_unit_test (test_ring),
    cmocka_unit_test (test_periodic_grid_three_scales),
    cmocka_unit_test (test_open_grid_roles),
    cmocka_unit_test (test_all_to_all_and_master_worker),
    cmocka_unit_test (test_irregular_refused),
    cmocka_unit_test (test_recursive_doubling),
    cmocka_unit_test (test_column_major_grid),
    cmocka_unit_test (test_order_unsettled),
    cmocka_unit_test (test_diagonal_stencils),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
