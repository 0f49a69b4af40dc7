/* model/binomial: the two shapes of binomial tree, as each library builds
 * them (MPICH: MPIR_Bcast_intra_binomial and MPIR_Reduce_intra_binomial;
 * Open MPI: ompi_coll_base_topo_build_bmtree). */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "calibrate/binomial.h"

static void
expect_children (TsBinomialTree tree, guint vr, guint n, guint count, const guint *want)
{
  guint got[TS_BINOMIAL_MAX_CHILDREN];
  guint k = ts_binomial_children (tree, vr, n, got);
  if (k != count)
    fail_msg ("%s: %u of %u ranks has %u children, expected %u", ts_binomial_tree_name (tree), vr,
              n, k, count);
  for (guint i = 0; i < count; i++)
    assert_int_equal (got[i], want[i]);
}

/* On 4 ranks, MPICH: 0 -> {2, 1}, 2 -> {3}, 1 and 3 leaves (a parent
 * clears the lowest set bit: 3 = 0b11 -> 0b10). Open MPI: 0 -> {1, 2},
 * 1 -> {3} (3 -> 0b01, the highest bit cleared). Largest subtree first. */
static void
test_four_ranks (void **state)
{
  (void) state;
  expect_children (TS_BINOMIAL_MPICH, 0, 4, 2, (const guint[]) { 2, 1 });
  expect_children (TS_BINOMIAL_MPICH, 2, 4, 1, (const guint[]) { 3 });
  expect_children (TS_BINOMIAL_MPICH, 1, 4, 0, NULL);
  expect_children (TS_BINOMIAL_MPICH, 3, 4, 0, NULL);
  assert_int_equal (ts_binomial_parent (TS_BINOMIAL_MPICH, 3), 2);
  expect_children (TS_BINOMIAL_OPENMPI, 0, 4, 2, (const guint[]) { 1, 2 });
  expect_children (TS_BINOMIAL_OPENMPI, 1, 4, 1, (const guint[]) { 3 });
  expect_children (TS_BINOMIAL_OPENMPI, 2, 4, 0, NULL);
  expect_children (TS_BINOMIAL_OPENMPI, 3, 4, 0, NULL);
  assert_int_equal (ts_binomial_parent (TS_BINOMIAL_OPENMPI, 3), 1);
}

/* On 6 ranks, MPICH: 0 -> {4, 2, 1}, 4 -> {5}, 2 -> {3}; Open MPI:
 * 0 -> {1, 2, 4}, 1 -> {3, 5}, 2 and 4 leaves (2 -> 2 + 4 = 6 is out). */
static void
test_six_ranks (void **state)
{
  (void) state;
  expect_children (TS_BINOMIAL_MPICH, 0, 6, 3, (const guint[]) { 4, 2, 1 });
  expect_children (TS_BINOMIAL_MPICH, 4, 6, 1, (const guint[]) { 5 });
  expect_children (TS_BINOMIAL_MPICH, 2, 6, 1, (const guint[]) { 3 });
  expect_children (TS_BINOMIAL_OPENMPI, 0, 6, 3, (const guint[]) { 1, 2, 4 });
  expect_children (TS_BINOMIAL_OPENMPI, 1, 6, 2, (const guint[]) { 3, 5 });
  expect_children (TS_BINOMIAL_OPENMPI, 2, 6, 0, NULL);
  assert_int_equal (ts_binomial_parent (TS_BINOMIAL_MPICH, 5), 4);
  assert_int_equal (ts_binomial_parent (TS_BINOMIAL_OPENMPI, 5), 1);
  assert_int_equal (ts_binomial_parent (TS_BINOMIAL_MPICH, 3), 2);
  assert_int_equal (ts_binomial_parent (TS_BINOMIAL_OPENMPI, 3), 1);
}

/* Every rank but the root appears exactly once as somebody's child, and
 * its parent is the one that lists it, for both shapes and sizes 1..40. */
static void
test_trees_span_every_rank (void **state)
{
  (void) state;
  for (guint t = 0; t < TS_BINOMIAL_N_TREES; t++)
    for (guint n = 1; n <= 40; n++)
      {
        guint seen[40] = { 0 };
        for (guint vr = 0; vr < n; vr++)
          {
            guint children[TS_BINOMIAL_MAX_CHILDREN];
            guint k = ts_binomial_children ((TsBinomialTree) t, vr, n, children);
            for (guint i = 0; i < k; i++)
              {
                assert_true (children[i] < n);
                assert_int_equal (ts_binomial_parent ((TsBinomialTree) t, children[i]), vr);
                seen[children[i]]++;
              }
          }
        assert_int_equal (seen[0], 0);
        for (guint vr = 1; vr < n; vr++)
          assert_int_equal (seen[vr], 1);
      }
}

static void
test_names (void **state)
{
  (void) state;
  TsBinomialTree t = TS_BINOMIAL_MPICH;
  assert_true (ts_binomial_tree_parse ("openmpi", &t));
  assert_int_equal (t, TS_BINOMIAL_OPENMPI);
  assert_string_equal (ts_binomial_tree_name (t), "openmpi");
  assert_true (ts_binomial_tree_parse ("mpich", &t));
  assert_int_equal (t, TS_BINOMIAL_MPICH);
  assert_false (ts_binomial_tree_parse ("ompi", &t));
  assert_int_equal (t, TS_BINOMIAL_MPICH);
}

/* Ensure that the library a trace names (MPI_Get_library_version's first
 * line, as tracesim-record records it) gives its tree: the strings are
 * those Debian 12's Open MPI 4.1.4 and MPICH 4.0.2 print, Intel MPI's
 * begins "Intel(R) MPI Library" (MPICH-based); an unknown or empty one
 * gives none and leaves @tree alone. */
static void
test_library (void **state)
{
  (void) state;
  TsBinomialTree t = TS_BINOMIAL_MPICH;
  assert_true (ts_binomial_tree_of_library (
    "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022", &t));
  assert_int_equal (t, TS_BINOMIAL_OPENMPI);
  assert_true (ts_binomial_tree_of_library ("MPICH Version: 4.0.2", &t));
  assert_int_equal (t, TS_BINOMIAL_MPICH);
  t = TS_BINOMIAL_OPENMPI;
  assert_true (ts_binomial_tree_of_library ("Intel(R) MPI Library 2021.10 for Linux* OS", &t));
  assert_int_equal (t, TS_BINOMIAL_MPICH);
  t = TS_BINOMIAL_OPENMPI;
  assert_false (ts_binomial_tree_of_library ("", &t));
  assert_false (ts_binomial_tree_of_library ("Some MPI 1.0", &t));
  assert_false (ts_binomial_tree_of_library (NULL, &t));
  assert_int_equal (t, TS_BINOMIAL_OPENMPI);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_four_ranks),
    cmocka_unit_test (test_six_ranks),
    cmocka_unit_test (test_trees_span_every_rank),
    cmocka_unit_test (test_names),
    cmocka_unit_test (test_library),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
