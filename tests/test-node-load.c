/* The nodes' load and the CPU time it leaves a burst (model/node-load.h),
 * on spans derived by hand. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model/node-load.h"

/* Node 0 of 2 cores holds ranks 0-3; node 1 of 1 core holds rank 4.
 * Rank 1's clock is 0.5 s behind: its raw times are aligned by +0.5. */
static TsNodeLoad *
load_new (void)
{
  const guint node[] = { 0, 0, 0, 0, 1 };
  const guint32 cores[] = { 2, 1 };
  const double offset[] = { 0, 0.5, 0, 0, 0 };
  return ts_node_load_new (5, 2, node, cores, offset);
}

/* Busy on node 0 (aligned): rank 0 [0, 4), rank 1 [1, 3), rank 2 [2, 3),
 * rank 3 [2, 3) at half a core. Ranks busy: 1 on [0, 1), 2 on [1, 2),
 * 3.5 on [2, 3), 1 on [3, 4). Shares of a core: 1, 1, 2/3.5 = 4/7, 1. */
static void
shares_of_a_node (void **state)
{
  g_autoptr (TsNodeLoad) l = load_new ();
  ts_node_load_busy (l, 0, 0, 4, 1);
  ts_node_load_busy (l, 1, 1, 3, 1);
  ts_node_load_busy (l, 2, 2, 3, 1);
  ts_node_load_busy (l, 3, 2, 3, 0.5);
  ts_node_load_busy (l, 4, 0, 10, 1);  /* alone on its node */
  ts_node_load_busy (l, 2, 5, 5, 1);   /* empty: nothing */
  ts_node_load_finish (l);
  /* Rank 0's whole span: 1 + 1 + 4/7 + 1. */
  assert_float_equal (ts_node_load_cpu (l, 0, 0, 4), 3 + 4.0 / 7, 1e-12);
  /* Within one step, and across two. */
  assert_float_equal (ts_node_load_cpu (l, 0, 2.25, 2.75), 0.5 * 4 / 7, 1e-12);
  assert_float_equal (ts_node_load_cpu (l, 0, 1.5, 2.5), 0.5 + 0.5 * 4 / 7, 1e-12);
  /* Rank 1 asks in its raw time: [0.5, 2.5) raw is [1, 3) aligned. */
  assert_float_equal (ts_node_load_cpu (l, 1, 0.5, 2.5), 1 + 4.0 / 7, 1e-12);
  /* Outside every span the share is 1: the wall time. */
  assert_float_equal (ts_node_load_cpu (l, 0, -2, -1), 1, 1e-12);
  assert_float_equal (ts_node_load_cpu (l, 0, 5, 7), 2, 1e-12);
  assert_float_equal (ts_node_load_cpu (l, 0, -1, 0.5), 1.5, 1e-12);
  /* Node 1 never shared. */
  assert_float_equal (ts_node_load_cpu (l, 4, 0, 10), 10, 1e-12);
  /* Totals: wall 1 + 2 + 3.5 + 1 = 7.5 busy seconds, which had
   * 1 + 2 + 2 + 1 = 6 s of the cores. */
  double cpu = 0, wall = 0;
  ts_node_load_totals (l, 0, &cpu, &wall);
  assert_float_equal (wall, 7.5, 1e-12);
  assert_float_equal (cpu, 6, 1e-12);
  ts_node_load_totals (l, 1, &cpu, &wall);
  assert_float_equal (wall, 10, 1e-12);
  assert_float_equal (cpu, 10, 1e-12);
}

/* Spans that meet: rank 0 ends at 2 where rank 1 begins, so never more
 * than 2 busy on 2 cores; a node without spans gives the wall time. */
static void
edges_at_one_time (void **state)
{
  g_autoptr (TsNodeLoad) l = load_new ();
  ts_node_load_busy (l, 0, 0, 2, 1);
  ts_node_load_busy (l, 2, 0, 2, 1);
  ts_node_load_busy (l, 1, 2, 4, 1);  /* aligned; raw [1.5, 3.5) */
  ts_node_load_finish (l);
  assert_float_equal (ts_node_load_cpu (l, 0, 0, 2), 2, 1e-12);
  assert_float_equal (ts_node_load_cpu (l, 1, 1.5, 3.5), 2, 1e-12);
  assert_float_equal (ts_node_load_cpu (l, 4, 3, 4), 1, 1e-12);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (shares_of_a_node),
    cmocka_unit_test (edges_at_one_time),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
