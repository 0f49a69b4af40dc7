/* Tests of model/archive_writer: what is written is read back with OTF2's own
 * reader (tests/readback.c) and, when available, checked by otf2-print. */
#include <config.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/archive_writer.h"
#include "model/otf2-chunk.h"
#include "model/output_dir.h"
#include "model/trace.h"
#include "tests/readback.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef RbFixture Fixture;

static int
setup (void **state)
{
  return rb_fixture_setup (state, "ts-archive-writer-XXXXXX", "archive");
}

static int
teardown (void **state)
{
  return rb_fixture_teardown (state);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  /* g_ptr_array_sort passes pointers to the elements */
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Entries of @path, sorted and joined by spaces ("" if empty or missing). */
static char *
list_dir (const char *path)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (path, 0, NULL);
  const char *e;
  while (d && (e = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (e));
  if (d)
    g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* The sample trace most tests read back. Three ranks; rank 2 records nothing,
 * which must still give it a location. Region ids follow definition order:
 * main 0, MPI_Send 1, MPI_Recv 2, MPI_Allreduce 3. Communicator "reversed"
 * (id 1) holds world ranks {1, 0}, so its rank 0 is world rank 1. */
static void
write_sample (TsArchiveWriter *w)
{
  guint32 main_r = ts_archive_writer_define_region (w, "main", TS_REGION_USER);
  guint32 send_r = ts_archive_writer_define_region (w, "MPI_Send", TS_REGION_MPI);
  guint32 recv_r = ts_archive_writer_define_region (w, "MPI_Recv", TS_REGION_MPI);
  guint32 coll_r = ts_archive_writer_define_region (w, "MPI_Allreduce", TS_REGION_MPI);
  const guint32 reversed[] = { 1, 0 };
  guint32 comm = ts_archive_writer_define_comm (w, "reversed", 2, reversed);
  guint32 waiting = ts_archive_writer_define_metric (w, "waiting", "s");

  /* rank 0: 10 events */
  ts_archive_writer_enter (w, 0, 0.0, main_r);
  ts_archive_writer_enter (w, 0, 1.0, send_r);
  ts_archive_writer_send (w, 0, 1.0, 0, comm, 7, 100);
  ts_archive_writer_leave (w, 0, 1.5, send_r);
  ts_archive_writer_metric (w, 0, 1.5, waiting, 0.25);
  ts_archive_writer_enter (w, 0, 2.0, coll_r);
  ts_archive_writer_collective_begin (w, 0, 2.0);
  ts_archive_writer_collective_end (w, 0, 2.000000001, TS_COLL_ALLREDUCE, 0, TS_NO_RANK, 8, 16);
  ts_archive_writer_leave (w, 0, 2.000000001, coll_r);
  ts_archive_writer_leave (w, 0, 3.0, main_r);

  /* rank 1: 8 events */
  ts_archive_writer_enter (w, 1, 0.5, recv_r);
  ts_archive_writer_recv (w, 1, 1.25, 1, comm, 7, 100);
  ts_archive_writer_leave (w, 1, 1.25, recv_r);
  ts_archive_writer_isend (w, 1, 1.5, 0, 0, 3, 8, 42);
  ts_archive_writer_irecv_request (w, 1, 1.5, 43);
  ts_archive_writer_request_test (w, 1, 1.6, 42);
  ts_archive_writer_isend_complete (w, 1, 1.7, 42);
  ts_archive_writer_irecv (w, 1, 1.8, 0, 0, 4, 16, 43);
}

static RbArchive *
write_and_read_sample (Fixture *f)
{
  g_autoptr (GError) error = NULL;
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", 3, &error);
  assert_null (error);
  assert_non_null (w);
  write_sample (w);
  assert_true (ts_archive_writer_close (w, &error));
  assert_null (error);
  RbArchive *a = rb_archive_load (f->dir, "traces");
  assert_non_null (a);
  return a;
}

/* Ensure that regions keep their names, paradigms and roles: user code is
 * USER/FUNCTION, MPI calls are MPI, and a collective gets its collective role. */
static void
test_regions_read_back (void **state)
{
  RbArchive *a = write_and_read_sample (*state);
  assert_int_equal (a->regions->len, 4);
  const RbRegion *main_r = g_ptr_array_index (a->regions, 0);
  const RbRegion *send_r = g_ptr_array_index (a->regions, 1);
  const RbRegion *coll_r = g_ptr_array_index (a->regions, 3);
  assert_string_equal (main_r->name, "main");
  assert_int_equal (main_r->paradigm, OTF2_PARADIGM_USER);
  assert_int_equal (main_r->role, OTF2_REGION_ROLE_FUNCTION);
  assert_string_equal (send_r->name, "MPI_Send");
  assert_int_equal (send_r->paradigm, OTF2_PARADIGM_MPI);
  assert_string_equal (coll_r->name, "MPI_Allreduce");
  assert_int_equal (coll_r->role, OTF2_REGION_ROLE_COLL_ALL2ALL);
  rb_archive_free (a);
}

/* Ensure that every rank is a CPU_THREAD location with id = rank, including
 * a rank that recorded no event, and that the event counts match. */
static void
test_locations_read_back (void **state)
{
  RbArchive *a = write_and_read_sample (*state);
  assert_int_equal (a->locations->len, 3);
  const RbLocation *l0 = g_ptr_array_index (a->locations, 0);
  const RbLocation *l2 = g_ptr_array_index (a->locations, 2);
  assert_string_equal (l0->name, "rank 0");
  assert_int_equal (l0->type, OTF2_LOCATION_TYPE_CPU_THREAD);
  assert_int_equal (l0->group, 0);
  /* write_sample: 10 events on rank 0, 8 on rank 1, none on rank 2 */
  assert_int_equal (l0->n_events, 10);
  assert_int_equal (((RbLocation *) g_ptr_array_index (a->locations, 1))->n_events, 8);
  assert_int_equal (l2->n_events, 0);
  guint on0 = 0, on1 = 0, on2 = 0;
  for (guint i = 0; i < a->events->len; i++)
    {
      guint64 loc = g_array_index (a->events, RbEvent, i).location;
      on0 += loc == 0;
      on1 += loc == 1;
      on2 += loc == 2;
    }
  assert_int_equal (on0, 10);
  assert_int_equal (on1, 8);
  assert_int_equal (on2, 0);
  rb_archive_free (a);
}

/* Ensure that communicators are laid out as Score-P does: group 0 lists the
 * locations, the world (comm 0) has a COMM_GROUP of all ranks, and a
 * sub-communicator's group lists its world ranks in order, parent = world. */
static void
test_communicators_read_back (void **state)
{
  RbArchive *a = write_and_read_sample (*state);
  assert_int_equal (a->comms->len, 2);
  const RbComm *world = g_ptr_array_index (a->comms, 0);
  const RbComm *rev = g_ptr_array_index (a->comms, 1);
  assert_string_equal (world->name, "MPI_COMM_WORLD");
  assert_int_equal (world->parent, OTF2_UNDEFINED_COMM);
  assert_string_equal (rev->name, "reversed");
  assert_int_equal (rev->parent, 0);

  const RbGroup *locs = g_ptr_array_index (a->groups, 0);
  assert_int_equal (locs->type, OTF2_GROUP_TYPE_COMM_LOCATIONS);
  g_autofree char *loc_members = rb_group_members (a, 0);
  assert_string_equal (loc_members, "0,1,2");
  const RbGroup *wg = g_ptr_array_index (a->groups, world->group);
  assert_int_equal (wg->type, OTF2_GROUP_TYPE_COMM_GROUP);
  g_autofree char *world_members = rb_group_members (a, world->group);
  assert_string_equal (world_members, "0,1,2");
  g_autofree char *rev_members = rb_group_members (a, rev->group);
  assert_string_equal (rev_members, "1,0");
  rb_archive_free (a);
}

/* Ensure that a metric is a double, accumulated-start member with its unit,
 * and that its value is written as one double. */
static void
test_metric_read_back (void **state)
{
  RbArchive *a = write_and_read_sample (*state);
  assert_int_equal (a->metrics->len, 1);
  const RbMetric *m = g_ptr_array_index (a->metrics, 0);
  assert_string_equal (m->name, "waiting");
  assert_string_equal (m->unit, "s");
  assert_int_equal (m->mode, OTF2_METRIC_ACCUMULATED_START);
  assert_int_equal (m->value_type, OTF2_TYPE_DOUBLE);
  const RbEvent *e = rb_archive_find (a, 0, RB_METRIC, 0);
  assert_non_null (e);
  assert_int_equal (e->a, 0);
  assert_int_equal (e->b, 1);         /* one value */
  assert_true (e->value == 0.25);     /* exactly representable */
  assert_int_equal (e->time, 1500000000);
  rb_archive_free (a);
}

/* Ensure that seconds become nanosecond ticks and that the clock properties
 * describe them: 1.5 s -> 1500000000, 2.000000001 s -> 2000000001, trace
 * length = the last time, 3 s -> 3000000000. */
static void
test_timestamps_in_ticks (void **state)
{
  RbArchive *a = write_and_read_sample (*state);
  assert_int_equal (a->resolution, 1000000000);
  assert_int_equal (a->offset, 0);
  assert_int_equal (a->length, 3000000000u);
  const RbEvent *leave_send = rb_archive_find (a, 0, RB_LEAVE, 0);
  assert_non_null (leave_send);
  assert_int_equal (leave_send->time, 1500000000);
  const RbEvent *coll_end = rb_archive_find (a, 0, RB_COLL_END, 0);
  assert_non_null (coll_end);
  assert_int_equal (coll_end->time, 2000000001);
  const RbEvent *recv = rb_archive_find (a, 1, RB_RECV, 0);
  assert_non_null (recv);
  assert_int_equal (recv->time, 1250000000);
  rb_archive_free (a);
}

/* Ensure that point-to-point events keep peer (a rank in the communicator),
 * communicator, tag, size and request. */
static void
test_point_to_point_fields (void **state)
{
  RbArchive *a = write_and_read_sample (*state);
  const RbEvent *send = rb_archive_find (a, 0, RB_SEND, 0);
  assert_non_null (send);
  assert_int_equal (send->a, 0);   /* rank 0 of "reversed" */
  assert_int_equal (send->b, 1);   /* "reversed" */
  assert_int_equal (send->c, 7);
  assert_int_equal (send->d, 100);
  const RbEvent *isend = rb_archive_find (a, 1, RB_ISEND, 0);
  assert_non_null (isend);
  assert_int_equal (isend->a, 0);
  assert_int_equal (isend->b, 0);
  assert_int_equal (isend->c, 3);
  assert_int_equal (isend->d, 8);
  assert_int_equal (isend->e, 42);
  const RbEvent *irecv = rb_archive_find (a, 1, RB_IRECV, 0);
  assert_non_null (irecv);
  assert_int_equal (irecv->c, 4);
  assert_int_equal (irecv->d, 16);
  assert_int_equal (irecv->e, 43);
  assert_int_equal (rb_archive_find (a, 1, RB_IRECV_REQUEST, 0)->e, 43);
  assert_int_equal (rb_archive_find (a, 1, RB_REQUEST_TEST, 0)->e, 42);
  assert_int_equal (rb_archive_find (a, 1, RB_ISEND_COMPLETE, 0)->e, 42);
  /* No BufferFlush records: the flush callbacks must not add events. */
  assert_int_equal (rb_archive_count (a, G_MAXUINT64, RB_OTHER), 0);
  rb_archive_free (a);
}

/* Ensure that a collective end keeps operation, communicator, "no root" and
 * both sizes. */
static void
test_collective_fields (void **state)
{
  RbArchive *a = write_and_read_sample (*state);
  assert_int_equal (rb_archive_count (a, 0, RB_COLL_BEGIN), 1);
  const RbEvent *end = rb_archive_find (a, 0, RB_COLL_END, 0);
  assert_non_null (end);
  assert_int_equal (end->a, OTF2_COLLECTIVE_OP_ALLREDUCE);
  assert_int_equal (end->b, 0);
  assert_int_equal (end->c, OTF2_UNDEFINED_UINT32);
  assert_int_equal (end->d, 8);
  assert_int_equal (end->e, 16);
  rb_archive_free (a);
}

/* Ensure that defining a name twice returns the first id, for regions,
 * communicators and metrics alike, and a new name gets the next id. */
static void
test_same_name_same_id (void **state)
{
  Fixture *f = *state;
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", 2, NULL);
  assert_non_null (w);
  assert_int_equal (ts_archive_writer_define_region (w, "a", TS_REGION_USER), 0);
  assert_int_equal (ts_archive_writer_define_region (w, "b", TS_REGION_MPI), 1);
  assert_int_equal (ts_archive_writer_define_region (w, "a", TS_REGION_USER), 0);
  const guint32 one[] = { 1 };
  assert_int_equal (ts_archive_writer_define_comm (w, "c", 1, one), 1);  /* 0 is world */
  assert_int_equal (ts_archive_writer_define_comm (w, "c", 1, one), 1);
  /* The same name with other members (EZTrace's MPI_COMM_<id> of each
   * rank): a communicator of its own, no critical. */
  const guint32 zero[] = { 0 };
  assert_int_equal (ts_archive_writer_define_comm (w, "c", 1, zero), 2);
  assert_int_equal (ts_archive_writer_define_metric (w, "m", "s"), 0);
  assert_int_equal (ts_archive_writer_define_metric (w, "m", "s"), 0);
  ts_archive_writer_abort (w);
}

/* Ensure that times are rounded to the nearest tick, not truncated:
 * 2.7e-9 s -> 3 ticks, 4.2e-9 s -> 4 ticks. */
static void
test_time_rounded_to_nearest_tick (void **state)
{
  Fixture *f = *state;
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", 1, NULL);
  assert_non_null (w);
  guint32 r = ts_archive_writer_define_region (w, "x", TS_REGION_USER);
  ts_archive_writer_enter (w, 0, 2.7e-9, r);
  ts_archive_writer_leave (w, 0, 4.2e-9, r);
  assert_true (ts_archive_writer_close (w, NULL));
  RbArchive *a = rb_archive_load (f->dir, "traces");
  assert_non_null (a);
  assert_int_equal (rb_archive_find (a, 0, RB_ENTER, 0)->time, 3);
  assert_int_equal (rb_archive_find (a, 0, RB_LEAVE, 0)->time, 4);
  rb_archive_free (a);
}

static void
count_warning (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  GString *seen = data;
  g_string_append (seen, message);
  g_string_append_c (seen, '\n');
}

/* Ensure that an event earlier than the previous one of its rank is moved to
 * the previous time (enter at 2 s, leave at 1 s -> leave at 2000000000),
 * without failing, and that close warns once with the count. */
static void
test_backwards_time_is_clamped (void **state)
{
  Fixture *f = *state;
  g_autoptr (GString) seen = g_string_new (NULL);
  guint handler = g_log_set_handler ("tracesim-archive", G_LOG_LEVEL_WARNING, count_warning, seen);
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", 2, NULL);
  assert_non_null (w);
  guint32 r = ts_archive_writer_define_region (w, "x", TS_REGION_USER);
  ts_archive_writer_enter (w, 0, 2.0, r);
  ts_archive_writer_leave (w, 0, 1.0, r);
  ts_archive_writer_enter (w, 1, 0.5, r);   /* other ranks keep their own clock */
  ts_archive_writer_leave (w, 1, 0.75, r);
  gboolean ok = ts_archive_writer_close (w, NULL);
  g_log_remove_handler ("tracesim-archive", handler);
  assert_true (ok);
  assert_non_null (strstr (seen->str, " 1 event(s)"));

  RbArchive *a = rb_archive_load (f->dir, "traces");
  assert_non_null (a);
  assert_int_equal (rb_archive_find (a, 0, RB_LEAVE, 0)->time, 2000000000);
  assert_int_equal (rb_archive_find (a, 1, RB_ENTER, 0)->time, 500000000);
  rb_archive_free (a);
}

/* Ensure that until close the archive lives only in a temporary sibling of
 * the target, and close renames it so the anchor is <dir>/<name>.otf2 and no
 * temporary directory is left. */
static void
test_close_renames_into_place (void **state)
{
  Fixture *f = *state;
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", 2, NULL);
  assert_non_null (w);
  assert_false (g_file_test (f->dir, G_FILE_TEST_EXISTS));
  g_autofree char *during = list_dir (f->base);
  assert_true (g_str_has_prefix (during, "archive.tmp-"));
  guint32 r = ts_archive_writer_define_region (w, "x", TS_REGION_USER);
  ts_archive_writer_enter (w, 0, 0.0, r);
  ts_archive_writer_leave (w, 0, 1.0, r);
  assert_true (ts_archive_writer_close (w, NULL));

  g_autofree char *after = list_dir (f->base);
  assert_string_equal (after, "archive");
  g_autofree char *inside = list_dir (f->dir);
  assert_string_equal (inside, ".tracesim-manifest traces traces.def traces.otf2");
}

/* Ensure that files made in advance (ts_archive_writer_create_files_beside)
 * become the archive's: the sample read back whole (3 locations, rank 0's 10
 * events and rank 1's 8), an event and a definition file per rank in
 * traces/, and no staging directory left. Aborted, such a writer leaves
 * nothing. */
static void
test_files_made_in_advance (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", 3, &error);
  assert_non_null (w);
  ts_archive_writer_create_files_beside (w);
  /* The thread's files, waited for (at most 10 s): OTF2 must write into
   * these very files (the same inode), not make its own. */
  g_autofree char *during = list_dir (f->base);
  g_autofree char *staged = g_strdup_printf ("%s/%s/traces.files/0.evt", f->base, during);
  g_autofree char *last = g_strdup_printf ("%s/%s/traces.files/2.def", f->base, during);
  for (guint i = 0; i < 1000 && !g_file_test (last, G_FILE_TEST_EXISTS); i++)
    g_usleep (10000);
  struct stat made;
  assert_int_equal (g_stat (staged, &made), 0);
  write_sample (w);
  assert_true (ts_archive_writer_close (w, &error));
  g_autofree char *written = g_build_filename (f->dir, "traces", "0.evt", NULL);
  struct stat final;
  assert_int_equal (g_stat (written, &final), 0);
  assert_true (final.st_ino == made.st_ino && final.st_size > 0);
  g_autofree char *inside = list_dir (f->dir);
  assert_string_equal (inside, ".tracesim-manifest traces traces.def traces.otf2");
  g_autofree char *traces = g_build_filename (f->dir, "traces", NULL);
  g_autofree char *files = list_dir (traces);
  assert_string_equal (files, "0.def 0.evt 1.def 1.evt 2.def 2.evt");
  RbArchive *a = rb_archive_load (f->dir, "traces");
  assert_non_null (a);
  assert_int_equal (a->locations->len, 3);
  guint per_location[3] = { 0 };
  for (guint i = 0; i < a->events->len; i++)
    per_location[g_array_index (a->events, RbEvent, i).location]++;
  assert_int_equal (per_location[0], 10);
  assert_int_equal (per_location[1], 8);
  assert_int_equal (per_location[2], 0);
  rb_archive_free (a);

  g_autofree char *other = g_build_filename (f->base, "other", NULL);
  w = ts_archive_writer_new (other, "traces", 3, &error);
  assert_non_null (w);
  ts_archive_writer_create_files_beside (w);
  ts_archive_writer_abort (w);
  g_autofree char *left = list_dir (f->base);
  assert_string_equal (left, "archive");
}

/* Ensure that abort removes the temporary archive and the parent directories
 * new() had to create, leaving nothing behind. */
static void
test_abort_leaves_nothing (void **state)
{
  Fixture *f = *state;
  g_autofree char *nested = g_build_filename (f->base, "a", "b", "archive", NULL);
  TsArchiveWriter *w = ts_archive_writer_new (nested, "traces", 2, NULL);
  assert_non_null (w);
  guint32 r = ts_archive_writer_define_region (w, "x", TS_REGION_USER);
  ts_archive_writer_enter (w, 0, 0.0, r);
  ts_archive_writer_abort (w);
  ts_archive_writer_abort (NULL);  /* ignored */
  g_autofree char *left = list_dir (f->base);
  assert_string_equal (left, "");
}

/* Ensure that writing again to the same directory replaces the old archive
 * (2 ranks, then 3 ranks: 3 locations are read back) and leaves no sibling. */
static void
test_close_replaces_old_archive (void **state)
{
  Fixture *f = *state;
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", 2, NULL);
  assert_non_null (w);
  assert_true (ts_archive_writer_close (w, NULL));
  w = ts_archive_writer_new (f->dir, "traces", 3, NULL);
  assert_non_null (w);
  assert_true (ts_archive_writer_close (w, NULL));
  RbArchive *a = rb_archive_load (f->dir, "traces");
  assert_non_null (a);
  assert_int_equal (a->locations->len, 3);
  rb_archive_free (a);
  g_autofree char *left = list_dir (f->base);
  assert_string_equal (left, "archive");
}

/* Ensure that a target holding files an archive does not consist of is not
 * replaced: new() fails naming the directory and the file, which survives. */
static void
test_refuses_foreign_content (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_autofree char *notes = g_build_filename (f->dir, "notes.txt", NULL);
  assert_int_equal (g_mkdir (f->dir, 0755), 0);
  assert_true (g_file_set_contents (notes, "keep me", -1, NULL));
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", 2, &error);
  assert_null (w);
  assert_non_null (error);
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS));
  assert_non_null (strstr (error->message, f->dir));
  assert_non_null (strstr (error->message, "notes.txt"));
  assert_true (g_file_test (notes, G_FILE_TEST_IS_REGULAR));
}

/* Ensure that a parent that cannot hold directories gives a G_IO_ERROR naming
 * the path, not a crash. A regular file as parent fails even for root, which
 * permission bits would not. */
static void
test_unwritable_parent_is_an_error (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_autofree char *file = g_build_filename (f->base, "plain-file", NULL);
  g_autofree char *dir = g_build_filename (file, "archive", NULL);
  assert_true (g_file_set_contents (file, "", -1, NULL));
  TsArchiveWriter *w = ts_archive_writer_new (dir, "traces", 2, &error);
  assert_null (w);
  assert_non_null (error);
  assert_true (error->domain == G_IO_ERROR);
  assert_non_null (strstr (error->message, file));

  if (geteuid () != 0)
    {
      g_clear_error (&error);
      g_autofree char *ro = g_build_filename (f->base, "read-only", NULL);
      g_autofree char *ro_dir = g_build_filename (ro, "archive", NULL);
      assert_int_equal (g_mkdir (ro, 0500), 0);
      w = ts_archive_writer_new (ro_dir, "traces", 2, &error);
      g_chmod (ro, 0700);
      assert_null (w);
      assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED));
      assert_non_null (strstr (error->message, ro_dir));
    }
}

/* Ensure that an archive name that is not a single file name is refused. */
static void
test_bad_name_is_an_error (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  assert_null (ts_archive_writer_new (f->dir, "a/b", 2, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT));
  g_autofree char *left = list_dir (f->base);
  assert_string_equal (left, "");
}

/* Ensure that otf2-print, OTF2's own validator, reads the sample archive
 * completely and without any warning. */
static void
test_otf2_print_has_no_warning (void **state)
{
  Fixture *f = *state;
  const char *otf2_print = g_getenv ("OTF2_PRINT");
  if (!otf2_print || !*otf2_print || strcmp (otf2_print, "no") == 0)
    skip ();
  RbArchive *a = write_and_read_sample (f);
  rb_archive_free (a);

  g_autofree char *anchor = g_build_filename (f->dir, "traces.otf2", NULL);
  const char *argv[] = { otf2_print, "-A", anchor, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  g_autoptr (GError) error = NULL;
  assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                             &err, &status, &error));
  assert_true (g_spawn_check_wait_status (status, NULL));
  g_autofree char *all = g_ascii_strdown (out, -1);
  g_autofree char *all_err = g_ascii_strdown (err, -1);
  if (strstr (all, "warning") || strstr (all_err, "warning"))
    fail_msg ("otf2-print warns:\n%s%s", err, out);
  /* It really printed the archive: definitions and the last event. */
  assert_non_null (strstr (out, "\"reversed\""));
  assert_non_null (strstr (out, "3000000000"));
}

/* ---- groups larger than OTF2's smallest definition chunk ---- */

/* The smallest world that OTF2's smallest definition chunk (OTF2_CHUNK_SIZE_MIN,
 * 262,144 bytes) cannot define, from OTF2 3.0's encoding
 * (OTF2_GlobalDefWriter_WriteGroup, OTF2_Buffer.h). The Group of the
 * locations (self 0, members 0 .. N-1), for 65,536 < N < 2^24:
 *   record type 1, record length 1 + 8 (its data is 255 bytes or more);
 *   data: self 0 -> 1, name (a string id near 2N: "MPI Rank r" and "rank r"
 *   come first, so between 2^16 and 2^24) -> 4, pre-1.2 type 1, N -> 4,
 *   groupType 1, paradigm 1, flags 0 -> 1: 13 bytes; and the members, each a
 *   length byte and its significant bytes: 0 -> 1, 1..255 -> 2 (255 of them),
 *   256..65,535 -> 3 (65,280), 65,536..N-1 -> 4 (N - 65,536), in all
 *   1 + 510 + 195,840 + 4N - 262,144 = 4N - 65,793;
 *   record = 1 + 9 + 13 + 4N - 65,793 = 4N - 65,770 bytes.
 * A chunk begins with an 18-byte header and keeps 1 byte for its end mark:
 * the record fits if 4N - 65,770 <= 262,144 - 19, i.e. N <= 81,973. With
 * 81,974 ranks OTF2 said "Requested size (262126) to large for chunksize
 * (262144)": 4 x 81,974 - 65,770 = 262,126. */
#define FIRST_WORLD_OVER_MIN_CHUNK 81974u

/* Ensure that the definition chunk holds the largest group and no more
 * than it needs, in whole 256 KiB, between OTF2's bounds. Bound used:
 * 4 bytes a member below 2^24 (length byte and 3 significant bytes), 33 for
 * the rest of the record at most, 19 for the chunk's header and end mark. */
static void
test_def_chunk_sized_for_largest_group (void **state)
{
  /* 1 x 2 + 52 = 54 bytes: the minimum. */
  assert_int_equal (ts_otf2_def_chunk_size (1), 262144);
  /* 81,974 x 4 + 52 = 327,948 bytes: two 256 KiB. */
  assert_int_equal (ts_otf2_def_chunk_size (FIRST_WORLD_OVER_MIN_CHUNK), 2 * 262144);
  /* 1,048,576 x 4 + 52 = 4,194,356 bytes, 52 more than 16 x 256 KiB: 17. */
  assert_int_equal (ts_otf2_def_chunk_size (1048576), 17 * 262144);
  /* 4,194,291 x 4 + 52 = 16,777,216: exactly OTF2_CHUNK_SIZE_MAX; one
   * member more is more than OTF2 allows. */
  assert_int_equal (TS_OTF2_MAX_GROUP_MEMBERS, 4194291);
  assert_int_equal (ts_otf2_def_chunk_size (4194291), 16777216);
  assert_int_equal (ts_otf2_def_chunk_size (4194292), 0);
}

/* Ensure that a world larger than the smallest chunk can hold is written
 * and read back: its locations, MPI_COMM_WORLD and a communicator of all
 * ranks in reverse order, by tracesim's reader and in a chunk OTF2 reports.
 * The definitions alone: the same Group records, without the 2 x 81,974
 * files of the locations. */
static void
test_world_over_smallest_chunk_read_back (void **state)
{
  Fixture *f = *state;
  const guint n = FIRST_WORLD_OVER_MIN_CHUNK;
  g_autoptr (GError) error = NULL;
  TsArchiveWriter *w = ts_archive_writer_new (f->dir, "traces", n, &error);
  assert_non_null (w);
  g_autofree guint32 *reversed = g_new (guint32, n);
  for (guint i = 0; i < n; i++)
    reversed[i] = n - 1 - i;
  assert_int_equal (ts_archive_writer_define_comm (w, "reversed", n, reversed), 1);
  g_autofree char *defs = g_build_filename (f->base, "defs", NULL);
  gboolean ok = ts_archive_writer_write_definitions (w, defs, &error);
  ts_archive_writer_abort (w);
  if (!ok)
    fail_msg ("%s", error->message);

  g_autofree char *anchor = g_build_filename (defs, "traces.otf2", NULL);
  g_autoptr (TsTrace) t = ts_trace_open_definitions (anchor, &error);
  if (!t)
    fail_msg ("%s", error->message);
  assert_int_equal (ts_trace_n_ranks (t), n);
  assert_int_equal (ts_trace_comm_size (t, ts_trace_world_comm (t)), n);
  gint rev = -1;
  for (guint c = 0; c < ts_trace_n_comms (t); c++)
    if (strcmp (ts_trace_comm_name (t, c), "reversed") == 0)
      rev = (gint) c;
  assert_true (rev >= 0);
  assert_int_equal (ts_trace_comm_size (t, rev), n);
  assert_int_equal (ts_trace_comm_members (t, rev)[0], n - 1);
  assert_int_equal (ts_trace_comm_members (t, rev)[n - 1], 0);

  /* 81,974 x 4 + 52 bytes: two 256 KiB (test above). */
  OTF2_Reader *reader = OTF2_Reader_Open (anchor);
  assert_non_null (reader);
  uint64_t evt_chunk = 0, def_chunk = 0;
  assert_int_equal (OTF2_Reader_GetChunkSize (reader, &evt_chunk, &def_chunk), OTF2_SUCCESS);
  OTF2_Reader_Close (reader);
  assert_int_equal (def_chunk, 2 * 262144);
  assert_int_equal (evt_chunk, 262144);
}

/* Ensure that a world no OTF2 chunk can define is refused at once, with
 * the reason, and nothing made: 4,194,292 ranks (test above). */
static void
test_world_over_largest_chunk_is_an_error (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  assert_null (ts_archive_writer_new (f->dir, "traces", 4194292, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED));
  assert_non_null (strstr (error->message, "4194292 ranks"));
  g_autofree char *left = list_dir (f->base);
  assert_string_equal (left, "");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_regions_read_back, setup, teardown),
    cmocka_unit_test_setup_teardown (test_locations_read_back, setup, teardown),
    cmocka_unit_test_setup_teardown (test_communicators_read_back, setup, teardown),
    cmocka_unit_test_setup_teardown (test_metric_read_back, setup, teardown),
    cmocka_unit_test_setup_teardown (test_timestamps_in_ticks, setup, teardown),
    cmocka_unit_test_setup_teardown (test_point_to_point_fields, setup, teardown),
    cmocka_unit_test_setup_teardown (test_collective_fields, setup, teardown),
    cmocka_unit_test_setup_teardown (test_same_name_same_id, setup, teardown),
    cmocka_unit_test_setup_teardown (test_time_rounded_to_nearest_tick, setup, teardown),
    cmocka_unit_test_setup_teardown (test_backwards_time_is_clamped, setup, teardown),
    cmocka_unit_test_setup_teardown (test_close_renames_into_place, setup, teardown),
    cmocka_unit_test_setup_teardown (test_abort_leaves_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown (test_close_replaces_old_archive, setup, teardown),
    cmocka_unit_test_setup_teardown (test_refuses_foreign_content, setup, teardown),
    cmocka_unit_test_setup_teardown (test_unwritable_parent_is_an_error, setup, teardown),
    cmocka_unit_test_setup_teardown (test_bad_name_is_an_error, setup, teardown),
    cmocka_unit_test_setup_teardown (test_otf2_print_has_no_warning, setup, teardown),
    cmocka_unit_test_setup_teardown (test_files_made_in_advance, setup, teardown),
    cmocka_unit_test (test_def_chunk_sized_for_largest_group),
    cmocka_unit_test_setup_teardown (test_world_over_smallest_chunk_read_back, setup, teardown),
    cmocka_unit_test_setup_teardown (test_world_over_largest_chunk_is_an_error, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
