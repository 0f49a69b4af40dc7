/* Tests of tools/tracegen/script: trace scripts, from a string and from a file,
 * read back with OTF2's own reader; every error names FILE:LINE. */
#include <config.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/output_dir.h"
#include "tools/tracegen/script.h"
#include "tests/readback.h"

#include <gio/gio.h>
#include <string.h>

typedef RbFixture Fixture;

static int
setup (void **state)
{
  return rb_fixture_setup (state, "ts-script-XXXXXX", "out");
}

static int
teardown (void **state)
{
  return rb_fixture_teardown (state);
}

/* Two ranks, lines of the ranks interleaved. Events per rank:
 *   rank 0: enter main, enter MPI_Send, send, leave, isend, isend_complete,
 *           coll_begin, coll_end, leave main                      = 9
 *   rank 1: enter MPI_Recv, recv, leave, irecv_request, request_test, irecv = 6 */
static const char sample[] =
  "# a comment line\n"
  "ranks 2\n"
  "comm row 1 0            # row rank 0 is world rank 1\n"
  "0 0.0   enter main\n"
  "1 0.0   enter MPI_Recv\n"
  "0 1.0   enter MPI_Send\n"
  "0 1.0   send 1 comm=world tag=0 bytes=100\n"
  "0 1.1   leave MPI_Send\n"
  "1 1.2   recv 0 tag=0 bytes=100\n"
  "1 1.2   leave MPI_Recv\n"
  "0 2.0   isend 1 tag=3 bytes=8 req=7\n"
  "0 2.1   isend_complete req=7\n"
  "1 2.0   irecv_request req=9\n"
  "1 2.2   request_test req=9\n"
  "1 2.5   irecv 0 tag=3 bytes=8 req=9\n"
  "0 3.0   coll_begin\n"
  "0 3.5   coll_end bcast comm=row root=1 sent=8 recv=0\n"
  "0 4.0   leave main\n";

static RbArchive *
load_ok (Fixture *f, const char *script)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = ts_script_load_string (script, "test", f->dir, "traces", &error);
  if (!ok)
    fail_msg ("%s", error->message);
  RbArchive *a = rb_archive_load (f->dir, "traces");
  assert_non_null (a);
  return a;
}

/* Ensure that a script given as a string becomes an archive with each rank's
 * events at the given times (1.0 s -> 1000000000 ticks) and fields. */
static void
test_string_writes_events (void **state)
{
  RbArchive *a = load_ok (*state, sample);
  assert_int_equal (a->locations->len, 2);
  /* counts from the comment on `sample` */
  assert_int_equal (((RbLocation *) g_ptr_array_index (a->locations, 0))->n_events, 9);
  assert_int_equal (((RbLocation *) g_ptr_array_index (a->locations, 1))->n_events, 6);
  const RbEvent *send = rb_archive_find (a, 0, RB_SEND, 0);
  assert_non_null (send);
  assert_int_equal (send->time, 1000000000);
  assert_int_equal (send->a, 1);
  assert_int_equal (send->d, 100);
  const RbEvent *irecv = rb_archive_find (a, 1, RB_IRECV, 0);
  assert_non_null (irecv);
  assert_int_equal (irecv->time, 2500000000u);
  assert_int_equal (irecv->c, 3);
  assert_int_equal (irecv->e, 9);
  assert_int_equal (rb_archive_find (a, 1, RB_REQUEST_TEST, 0)->time, 2200000000u);
  rb_archive_free (a);
}

/* Ensure that communicators get ids in order after world (row = 1), list
 * world ranks as given, and that a root is a rank of its communicator. */
static void
test_communicator_and_collective (void **state)
{
  RbArchive *a = load_ok (*state, sample);
  assert_int_equal (a->comms->len, 2);
  const RbComm *row = g_ptr_array_index (a->comms, 1);
  assert_string_equal (row->name, "row");
  g_autofree char *members = rb_group_members (a, row->group);
  assert_string_equal (members, "1,0");
  const RbEvent *end = rb_archive_find (a, 0, RB_COLL_END, 0);
  assert_non_null (end);
  assert_int_equal (end->a, OTF2_COLLECTIVE_OP_BCAST);
  assert_int_equal (end->b, 1);
  assert_int_equal (end->c, 1);
  assert_int_equal (end->d, 8);
  assert_int_equal (end->time, 3500000000u);
  rb_archive_free (a);
}

/* Ensure that region names starting with MPI_ are MPI regions and others USER. */
static void
test_region_kind_from_name (void **state)
{
  RbArchive *a = load_ok (*state, sample);
  /* ids in order of first use: main 0, MPI_Recv 1, MPI_Send 2 */
  assert_int_equal (a->regions->len, 3);
  const RbRegion *main_r = g_ptr_array_index (a->regions, 0);
  const RbRegion *recv_r = g_ptr_array_index (a->regions, 1);
  assert_string_equal (main_r->name, "main");
  assert_int_equal (main_r->paradigm, OTF2_PARADIGM_USER);
  assert_string_equal (recv_r->name, "MPI_Recv");
  assert_int_equal (recv_r->paradigm, OTF2_PARADIGM_MPI);
  rb_archive_free (a);
}

/* Ensure that comm, tag and bytes default to world, 0 and 0. */
static void
test_envelope_defaults (void **state)
{
  RbArchive *a = load_ok (*state, "ranks 2\n0 0.5 send 1\n");
  const RbEvent *send = rb_archive_find (a, 0, RB_SEND, 0);
  assert_non_null (send);
  assert_int_equal (send->b, 0);
  assert_int_equal (send->c, 0);
  assert_int_equal (send->d, 0);
  assert_int_equal (send->time, 500000000);
  rb_archive_free (a);
}

/* Ensure that `leave` without a name leaves the innermost open region. */
static void
test_leave_without_name (void **state)
{
  RbArchive *a = load_ok (*state, "ranks 1\n0 0 enter outer\n0 1 enter inner\n"
                                  "0 2 leave\n0 3 leave\n");
  /* outer = region 0, inner = region 1: leaves in order inner, outer */
  assert_int_equal (rb_archive_find (a, 0, RB_LEAVE, 0)->a, 1);
  assert_int_equal (rb_archive_find (a, 0, RB_LEAVE, 1)->a, 0);
  assert_int_equal (rb_archive_find (a, 0, RB_LEAVE, 1)->time, 3000000000u);
  rb_archive_free (a);
}

/* Ensure that a metric line defines a metric and an event line records it. */
static void
test_metric (void **state)
{
  RbArchive *a = load_ok (*state, "ranks 1\nmetric waiting s\n0 1.5 metric waiting 0.25\n");
  assert_int_equal (a->metrics->len, 1);
  assert_string_equal (((RbMetric *) g_ptr_array_index (a->metrics, 0))->unit, "s");
  const RbEvent *m = rb_archive_find (a, 0, RB_METRIC, 0);
  assert_non_null (m);
  assert_true (m->value == 0.25);
  assert_int_equal (m->time, 1500000000);
  rb_archive_free (a);
}

/* Ensure that a script file is read the same way as a string. */
static void
test_file_writes_archive (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (f->base, "sample.txt", NULL);
  assert_true (g_file_set_contents (path, sample, -1, NULL));
  assert_true (ts_script_load_file (path, f->dir, "traces", &error));
  assert_null (error);
  RbArchive *a = rb_archive_load (f->dir, "traces");
  assert_non_null (a);
  /* 9 + 6 events, from the comment on `sample` */
  assert_int_equal (a->events->len, 15);
  rb_archive_free (a);
}

/* Run @script, which must fail with a message starting with "test:LINE: " and
 * containing @what, leaving nothing in the test directory. */
static void
expect_error (Fixture *f, const char *script, guint line, const char *what)
{
  g_autoptr (GError) error = NULL;
  assert_false (ts_script_load_string (script, "test", f->dir, "traces", &error));
  assert_non_null (error);
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA));
  g_autofree char *prefix = g_strdup_printf ("test:%u: ", line);
  if (!g_str_has_prefix (error->message, prefix) || !strstr (error->message, what))
    fail_msg ("expected \"%s...%s\", got \"%s\"", prefix, what, error->message);
  GDir *d = g_dir_open (f->base, 0, NULL);
  assert_non_null (d);
  const char *left = g_dir_read_name (d);
  g_dir_close (d);
  if (left)
    fail_msg ("'%s' was left behind", left);
}

/* Ensure that an unknown event word is reported at its line. */
static void
test_error_unknown_event (void **state)
{
  expect_error (*state, "ranks 2\n0 0 enter main\n0 1 jump\n", 3, "unknown event 'jump'");
}

/* Ensure that a malformed number is reported with the word. */
static void
test_error_bad_number (void **state)
{
  expect_error (*state, "ranks 2\n\n0 0 send 1 bytes=lots\n", 3, "bad bytes 'lots'");
  expect_error (*state, "ranks 2\n0 1x enter main\n", 2, "bad time '1x'");
}

/* Ensure that a rank outside 0..ranks-1 is refused. */
static void
test_error_rank_out_of_range (void **state)
{
  expect_error (*state, "ranks 2\n2 0 enter main\n", 2, "bad rank '2'");
}

/* Ensure that a peer must be a rank of its communicator (row has 2 ranks). */
static void
test_error_peer_outside_comm (void **state)
{
  expect_error (*state, "ranks 4\ncomm row 1 3\n0 0 send 2 comm=row\n", 3,
                "peer 2 is not a rank of a communicator of size 2");
}

/* Ensure that an undefined communicator name is refused. */
static void
test_error_unknown_comm (void **state)
{
  expect_error (*state, "ranks 2\n0 0 send 1 comm=row\n", 2, "unknown communicator 'row'");
}

/* Ensure that time going backwards within a rank is refused, while another
 * rank's earlier time (line 3) is fine. */
static void
test_error_time_backwards (void **state)
{
  expect_error (*state, "ranks 2\n0 1.0 enter main\n1 0.2 enter main\n0 0.5 leave\n", 4,
                "time 0.5 of rank 0 is earlier than its previous event");
}

/* Ensure that a region never left is reported at the line that entered it. */
static void
test_error_unbalanced_enter (void **state)
{
  expect_error (*state, "ranks 2\n0 0 enter main\n1 0 enter main\n1 1 leave main\n", 2,
                "region main of rank 0 is entered here but never left");
}

/* Ensure that leaving a region other than the innermost open one is refused. */
static void
test_error_leave_mismatch (void **state)
{
  expect_error (*state, "ranks 1\n0 0 enter a\n0 1 enter b\n0 2 leave a\n", 4,
                "leave a, but the innermost open region of rank 0 is b (line 3)");
  expect_error (*state, "ranks 1\n0 0 leave\n", 2, "leave without an open region");
}

/* Ensure that the number of ranks must come first. */
static void
test_error_missing_ranks (void **state)
{
  expect_error (*state, "# only a comment\n0 0 enter main\n", 2, "expected 'ranks N'");
  expect_error (*state, "# nothing here\n", 1, "no 'ranks N' line");
}

/* Ensure that completing a request that was never started is refused. */
static void
test_error_request_not_started (void **state)
{
  expect_error (*state, "ranks 2\n0 0 isend_complete req=5\n", 2,
                "request 5 of rank 0 was not started by isend");
  expect_error (*state, "ranks 2\n0 0 isend 1\n", 2, "isend needs req=");
}

/* Ensure that a collective operation must be one of collectives.def. */
static void
test_error_unknown_collective (void **state)
{
  expect_error (*state, "ranks 2\n0 0 coll_begin\n0 1 coll_end allfoo\n", 3,
                "unknown collective operation 'allfoo'");
}

/* Ensure that an error in a file names the file and line, and that a failed
 * script leaves an earlier archive at the same place intact. */
static void
test_error_in_file_keeps_old_archive (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (f->base, "bad.txt", NULL);
  assert_true (ts_script_load_string ("ranks 3\n", "good", f->dir, "traces", NULL));
  assert_true (g_file_set_contents (path, "ranks 2\n0 0 enter main\n0 -1 leave\n", -1, NULL));
  assert_false (ts_script_load_file (path, f->dir, "traces", &error));
  g_autofree char *prefix = g_strdup_printf ("%s:3: ", path);
  if (!g_str_has_prefix (error->message, prefix))
    fail_msg ("expected \"%s...\", got \"%s\"", prefix, error->message);
  RbArchive *a = rb_archive_load (f->dir, "traces");
  assert_non_null (a);
  assert_int_equal (a->locations->len, 3);   /* still the "ranks 3" archive */
  rb_archive_free (a);
}

/* Ensure that a missing script file is an error naming the file. */
static void
test_error_missing_file (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (f->base, "absent.txt", NULL);
  assert_false (ts_script_load_file (path, f->dir, "traces", &error));
  assert_non_null (error);
  assert_true (error->domain == G_IO_ERROR);
  assert_non_null (strstr (error->message, "absent.txt"));
  assert_false (g_file_test (f->dir, G_FILE_TEST_EXISTS));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_string_writes_events, setup, teardown),
    cmocka_unit_test_setup_teardown (test_communicator_and_collective, setup, teardown),
    cmocka_unit_test_setup_teardown (test_region_kind_from_name, setup, teardown),
    cmocka_unit_test_setup_teardown (test_envelope_defaults, setup, teardown),
    cmocka_unit_test_setup_teardown (test_leave_without_name, setup, teardown),
    cmocka_unit_test_setup_teardown (test_metric, setup, teardown),
    cmocka_unit_test_setup_teardown (test_file_writes_archive, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_unknown_event, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_bad_number, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_rank_out_of_range, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_peer_outside_comm, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_unknown_comm, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_time_backwards, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_unbalanced_enter, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_leave_mismatch, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_missing_ranks, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_request_not_started, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_unknown_collective, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_in_file_keeps_old_archive, setup, teardown),
    cmocka_unit_test_setup_teardown (test_error_missing_file, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
