/* Unit tests of the action vocabulary (model/action.c). */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "model/action.h"
#include <otf2/otf2.h>

/* Ensure that every kind has a name and the name maps back to the kind. */
static void
test_kind_names_round_trip (void **state)
{
  for (guint k = 0; k < TS_ACTION_N_KINDS; k++)
    {
      const char *name = ts_action_kind_name (k);
      assert_non_null (name);
      TsActionKind back;
      assert_true (ts_action_kind_from_name (name, &back));
      assert_int_equal (back, k);
    }
  assert_null (ts_action_kind_name (TS_ACTION_N_KINDS));
}

/* Ensure that region markers cost no simcall and communication does. */
static void
test_replays_flag (void **state)
{
  assert_false (ts_action_kind_replays (TS_ACTION_ENTER));
  assert_false (ts_action_kind_replays (TS_ACTION_LEAVE));
  assert_true (ts_action_kind_replays (TS_ACTION_SEND));
  assert_true (ts_action_kind_replays (TS_ACTION_COLLECTIVE));
}

/* Ensure that collective operations map to and from OTF2's codes. */
static void
test_collectives_otf2 (void **state)
{
  TsCollectiveOp op;
  assert_true (ts_collective_from_otf2 (OTF2_COLLECTIVE_OP_ALLREDUCE, &op));
  assert_int_equal (op, TS_COLL_ALLREDUCE);
  assert_string_equal (ts_collective_name (op), "allreduce");
  assert_int_equal (ts_collective_to_otf2 (TS_COLL_BCAST), OTF2_COLLECTIVE_OP_BCAST);
  assert_int_equal (ts_collective_shape (TS_COLL_REDUCE), TS_COLL_SHAPE_N2ONE);
  assert_int_equal (ts_collective_shape (TS_COLL_BARRIER), TS_COLL_SHAPE_BARRIER);
  /* An operation code OTF2 does not define, and CREATE_HANDLE, which is
   * not a data collective: both replay as local time. */
  assert_false (ts_collective_from_otf2 (200, &op));
  assert_false (ts_collective_from_otf2 (OTF2_COLLECTIVE_OP_CREATE_HANDLE, &op));
}

/* A collective moves no data when its count, equal on every member, is
 * zero; a barrier and the v-variants (counts differ between members) always
 * take part. */
static void
test_collective_empty (void **state)
{
  assert_true (ts_collective_is_empty (TS_COLL_BCAST, 0, 0));
  assert_true (ts_collective_is_empty (TS_COLL_ALLREDUCE, 0, 0));
  assert_false (ts_collective_is_empty (TS_COLL_BCAST, 0, 8));   /* a non-root receiving */
  assert_false (ts_collective_is_empty (TS_COLL_REDUCE, 8, 0));  /* a non-root sending */
  assert_false (ts_collective_is_empty (TS_COLL_BARRIER, 0, 0));
  assert_false (ts_collective_is_empty (TS_COLL_GATHERV, 0, 0));
  assert_false (ts_collective_is_empty (TS_COLL_ALLTOALLV, 0, 0));
}

/* Ensure that print then parse gives back the same action. */
static void
test_print_parse_round_trip (void **state)
{
  TsAction a = { 0 };
  a.kind = TS_ACTION_COLLECTIVE;
  a.op = TS_COLL_REDUCE;
  a.peer = 3;
  a.comm = 2;
  a.bytes = 4096;
  a.bytes_recv = 8;
  a.flags = TS_ACTION_INFERRED;
  a.time = 1.25;
  a.seconds = 1e-6;
  GString *s = g_string_new (NULL);
  ts_action_print (&a, s);
  assert_string_equal (s->str, "collective op=reduce peer=3 comm=2 bytes=4096 bytes_recv=8 "
                               "flags=1 time=1.25 seconds=9.9999999999999995e-07");
  TsAction b;
  GError *error = NULL;
  assert_true (ts_action_parse (s->str, &b, &error));
  assert_null (error);
  assert_memory_equal (&a, &b, sizeof a);
  g_string_free (s, TRUE);
}

/* Ensure that partitioned actions print and parse under their own field
 * names (direction, partitions, partition), not under the collective and
 * point-to-point names they share storage with. */
static void
test_partitioned_fields (void **state)
{
  TsAction a = { 0 };
  a.kind = TS_ACTION_PINIT;
  a.direction = TS_PARTITIONED_RECV;
  a.peer = 1;
  a.tag = 7;
  a.bytes = 1024;
  a.partitions = 4;
  a.req = 9;
  GString *s = g_string_new (NULL);
  ts_action_print (&a, s);
  assert_string_equal (s->str, "pinit direction=recv peer=1 tag=7 bytes=1024 partitions=4 req=9");
  TsAction b;
  GError *error = NULL;
  assert_true (ts_action_parse (s->str, &b, &error));
  assert_memory_equal (&a, &b, sizeof a);

  /* Partition 2 of request 9 is ready. */
  TsAction r = { 0 };
  r.kind = TS_ACTION_PREADY;
  r.partition = 2;
  r.req = 9;
  g_string_truncate (s, 0);
  ts_action_print (&r, s);
  assert_string_equal (s->str, "pready partition=2 req=9");
  assert_true (ts_action_parse (s->str, &b, &error));
  assert_int_equal (b.partition, 2);

  /* The shared names are refused where they mean something else. */
  assert_false (ts_action_parse ("pready peer=2", &b, &error));
  assert_non_null (strstr (error->message, "peer"));
  g_clear_error (&error);
  assert_false (ts_action_parse ("send partitions=2", &b, &error));
  g_clear_error (&error);
  assert_false (ts_action_parse ("pinit direction=sideways", &b, &error));
  g_clear_error (&error);
  g_string_free (s, TRUE);
}

/* Ensure that malformed lines are rejected with a message naming the word. */
static void
test_parse_errors (void **state)
{
  TsAction a;
  GError *error = NULL;
  assert_false (ts_action_parse ("teleport peer=1", &a, &error));
  assert_non_null (strstr (error->message, "teleport"));
  g_clear_error (&error);
  assert_false (ts_action_parse ("send peer=one", &a, &error));
  assert_non_null (strstr (error->message, "peer"));
  g_clear_error (&error);
  assert_false (ts_action_parse ("send colour=red", &a, &error));
  assert_non_null (strstr (error->message, "colour"));
  g_clear_error (&error);
  assert_false (ts_action_parse ("send bytes=-5", &a, &error));
  g_clear_error (&error);
  assert_false (ts_action_parse ("send 12", &a, &error));
  g_clear_error (&error);
  assert_false (ts_action_parse ("   ", &a, &error));
  g_clear_error (&error);
  assert_false (ts_action_parse ("collective op=juggle", &a, &error));
  g_clear_error (&error);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kind_names_round_trip),
    cmocka_unit_test (test_partitioned_fields),
    cmocka_unit_test (test_replays_flag),
    cmocka_unit_test (test_collectives_otf2),
    cmocka_unit_test (test_collective_empty),
    cmocka_unit_test (test_print_parse_round_trip),
    cmocka_unit_test (test_parse_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
