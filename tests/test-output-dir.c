/* model/output_dir.c: a directory written all at once, beside its target,
 * renamed into place; what it may replace and what it leaves behind. Each
 * test works under its own fresh temporary directory. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <utime.h>

#include "model/output_dir.h"

static int
setup (void **state)
{
  *state = g_dir_make_tmp ("ts-test-output-dir-XXXXXX", NULL);
  return *state ? 0 : -1;
}

static int
teardown (void **state)
{
  gboolean ok = ts_output_dir_remove_tree (*state);
  g_free (*state);
  return ok ? 0 : -1;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in @dir, sorted, joined by spaces. */
static char *
listing (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  assert_non_null (d);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *n;
  while ((n = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (n));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static void
put (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* An earlier output at @target as tracesim writes one: summary.json
 * (@summary) and predicted/0.evt, with its manifest. */
static void
write_output (const char *target, const char *summary)
{
  GError *error = NULL;
  TsOutputDir *d = ts_output_dir_new (target, &error);
  assert_non_null (d);
  const char *tmp = ts_output_dir_get_tmp_path (d);
  put (tmp, "summary.json", summary);
  g_autofree char *predicted = g_build_filename (tmp, "predicted", NULL);
  assert_int_equal (g_mkdir (predicted, 0755), 0);
  put (predicted, "0.evt", "events");
  assert_true (ts_output_dir_commit (d, &error));
}

/* Ensure the content is written beside the target (out.tmp-XXXXXX, in the
 * same parent, so that the rename is atomic) and is the target after commit,
 * with its manifest and nothing else left in the parent. */
static void
test_commit_renames_into_place (void **state)
{
  const char *root = *state;
  g_autofree char *target = g_build_filename (root, "out", NULL);
  g_autofree char *given = g_strconcat (target, "//", NULL);
  GError *error = NULL;
  TsOutputDir *d = ts_output_dir_new (given, &error);
  assert_non_null (d);
  assert_string_equal (ts_output_dir_get_path (d), target);
  g_autofree char *tmp_parent = g_path_get_dirname (ts_output_dir_get_tmp_path (d));
  assert_string_equal (tmp_parent, root);
  g_autofree char *tmp_prefix = g_strconcat (target, ".tmp-", NULL);
  assert_true (g_str_has_prefix (ts_output_dir_get_tmp_path (d), tmp_prefix));
  put (ts_output_dir_get_tmp_path (d), "summary.json", "{}");
  assert_true (ts_output_dir_commit (d, &error));
  g_autofree char *top = listing (root);
  assert_string_equal (top, "out");
  g_autofree char *inside = listing (target);
  assert_string_equal (inside, TS_OUTPUT_MANIFEST " summary.json");
  /* The manifest lists the file with its size (2 bytes), mtime and
   * SHA-256: that of the two bytes "{}", from `printf '{}' | sha256sum`. */
  g_autofree char *manifest_path = g_build_filename (target, TS_OUTPUT_MANIFEST, NULL);
  g_autofree char *manifest = NULL;
  assert_true (g_file_get_contents (manifest_path, &manifest, NULL, NULL));
  assert_non_null (strstr (manifest, "\nfile 2 "));
  assert_non_null (strstr (manifest, " 44136fa355b3678a1146ad16f7e8649e94fb4fc2"
                                     "1fe77e8310c060f61caaff8a summary.json\n"));
}

/* Ensure an earlier output is replaced as a whole: its old files are gone,
 * the new ones are there. */
static void
test_replaces_earlier_output (void **state)
{
  const char *root = *state;
  g_autofree char *target = g_build_filename (root, "out", NULL);
  write_output (target, "old");
  TsOutputDir *d = ts_output_dir_new (target, NULL);
  assert_non_null (d);
  put (ts_output_dir_get_tmp_path (d), "summary.json", "new");
  assert_true (ts_output_dir_commit (d, NULL));
  g_autofree char *inside = listing (target);
  assert_string_equal (inside, TS_OUTPUT_MANIFEST " summary.json");
  g_autofree char *path = g_build_filename (target, "summary.json", NULL);
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  assert_string_equal (text, "new");
  g_autofree char *top = listing (root);
  assert_string_equal (top, "out");

  /* An empty directory holds nothing to lose. */
  g_autofree char *empty = g_build_filename (root, "empty", NULL);
  assert_int_equal (g_mkdir (empty, 0755), 0);
  d = ts_output_dir_new (empty, NULL);
  assert_non_null (d);
  assert_true (ts_output_dir_commit (d, NULL));
}

/* Ensure a target tracesim did not write (no manifest) is refused, even
 * when its files have the names of tracesim's (a summary.json of the
 * user's), and left exactly as it was, with no temporary directory beside
 * it. */
static void
test_refuses_foreign_target (void **state)
{
  const char *root = *state;
  g_autofree char *target = g_build_filename (root, "out", NULL);
  assert_int_equal (g_mkdir (target, 0755), 0);
  put (target, "summary.json", "the user's own");
  GError *error = NULL;
  assert_null (ts_output_dir_new (target, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS));
  assert_non_null (strstr (error->message, "holds 'summary.json', and no " TS_OUTPUT_MANIFEST));
  g_clear_error (&error);
  g_autofree char *inside = listing (target);
  assert_string_equal (inside, "summary.json");
  g_autofree char *top = listing (root);
  assert_string_equal (top, "out");

  /* A regular file as the target is refused too. */
  g_autofree char *file = g_build_filename (root, "file", NULL);
  put (root, "file", "x");
  assert_null (ts_output_dir_new (file, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY));
  g_clear_error (&error);
}

/* Ensure a file of the user's anywhere inside an earlier output is found
 * (every level is checked against the manifest), and so is one of
 * tracesim's files changed since: both refused and kept. */
static void
test_refuses_foreign_file_deep_inside (void **state)
{
  const char *root = *state;
  g_autofree char *target = g_build_filename (root, "out", NULL);
  write_output (target, "{}");
  g_autofree char *x = g_build_filename (target, "predicted", "x", NULL);
  assert_int_equal (g_mkdir (x, 0755), 0);
  put (x, "f.tex", "notes");
  GError *error = NULL;
  assert_null (ts_output_dir_new (target, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS));
  assert_non_null (strstr (error->message, "'predicted/x'"));
  g_clear_error (&error);
  g_autofree char *kept = listing (x);
  assert_string_equal (kept, "f.tex");

  /* summary.json edited by the user (3 bytes where tracesim wrote 2). */
  assert_true (ts_output_dir_remove_tree (x));
  g_autofree char *summary = g_build_filename (target, "summary.json", NULL);
  put (target, "summary.json", "{ }");
  assert_null (ts_output_dir_new (target, &error));
  assert_non_null (strstr (error->message, "'summary.json' changed since"));
  g_clear_error (&error);
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (summary, &text, NULL, NULL));
  assert_string_equal (text, "{ }");
}

/* Ensure temporary directories are shown as their targets in messages,
 * and a failed write names the file and the system's reason. */
static void
test_user_paths_in_errors (void **state)
{
  g_autofree char *shown = ts_output_dir_user_path ("/a/out.tmp-AB12cd/predicted.tmp-9xY7zW/t.def");
  assert_string_equal (shown, "/a/out/predicted/t.def");
  g_autofree char *kept = ts_output_dir_user_path ("/a/b.tmp-x/.tmp-ABCDEF/c");
  assert_string_equal (kept, "/a/b.tmp-x/.tmp-ABCDEF/c");
  g_autofree char *path = g_build_filename (*state, "out.tmp-QWERTY", "no", "summary.json", NULL);
  GError *error = NULL;
  assert_false (ts_output_dir_write_file (path, "{}", 2, &error));
  g_autofree char *want = g_strconcat (*state, "/out/no/summary.json: cannot write: ",
                                       g_strerror (ENOENT), NULL);
  assert_string_equal (error->message, want);
  g_clear_error (&error);
}

/* Ensure discard removes the temporary directory and the parents new()
 * had to create (a/b for target a/b/out), but not a parent that was there. */
static void
test_discard_leaves_nothing (void **state)
{
  const char *root = *state;
  g_autofree char *target = g_build_filename (root, "a", "b", "out", NULL);
  TsOutputDir *d = ts_output_dir_new (target, NULL);
  assert_non_null (d);
  put (ts_output_dir_get_tmp_path (d), "summary.json", "{}");
  ts_output_dir_discard (d);
  g_autofree char *top = listing (root);
  assert_string_equal (top, "");
}

/* Ensure removing a tree does not follow a symbolic link out of it: the
 * linked directory and its file survive. */
static void
test_remove_tree_keeps_link_targets (void **state)
{
  const char *root = *state;
  g_autofree char *keep = g_build_filename (root, "keep", NULL);
  g_autofree char *tree = g_build_filename (root, "tree", NULL);
  assert_int_equal (g_mkdir (keep, 0755), 0);
  put (keep, "precious", "x");
  assert_int_equal (g_mkdir (tree, 0755), 0);
  g_autofree char *link = g_build_filename (tree, "link", NULL);
  assert_int_equal (symlink (keep, link), 0);
  assert_true (ts_output_dir_remove_tree (tree));
  g_autofree char *top = listing (root);
  assert_string_equal (top, "keep");
  g_autofree char *kept = listing (keep);
  assert_string_equal (kept, "precious");
}

/* `cp -r @from @to`, as a user copies a run directory: new files, new
 * modification times. */
static void
copy_tree (const char *from, const char *to)
{
  const char *argv[] = { "cp", "-r", from, to, NULL };
  int status = -1;
  assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                             NULL, &status, NULL));
  assert_true (g_spawn_check_wait_status (status, NULL));
}

/* Ensure a copy of an output made with `cp -r` (every mtime new) is still
 * tracesim's: a later output may replace it, and a file may be added to
 * it, replacing the one of that name (a report drawn again). */
static void
test_copy_is_still_ours (void **state)
{
  const char *root = *state;
  g_autofree char *target = g_build_filename (root, "out", NULL);
  g_autofree char *copy = g_build_filename (root, "copy", NULL);
  write_output (target, "{}");
  /* A report drawn afterwards, listed by add_file. */
  assert_true (ts_output_dir_add_file (target, "report.png", "png", 3, NULL));
  copy_tree (target, copy);

  GError *error = NULL;
  assert_true (ts_output_dir_add_file (copy, "report.png", "PNG!", 4, &error));
  assert_null (error);
  TsOutputDir *d = ts_output_dir_new (copy, &error);
  assert_non_null (d);
  put (ts_output_dir_get_tmp_path (d), "summary.json", "new");
  assert_true (ts_output_dir_commit (d, &error));
  g_autofree char *inside = listing (copy);
  assert_string_equal (inside, TS_OUTPUT_MANIFEST " summary.json");
}

/* Ensure a copy with one byte changed (same size, so only the content
 * tells) is refused, naming the file, and left as it is, whether an
 * output would replace the directory or add a file of that name. */
static void
test_copy_with_one_byte_changed_is_refused (void **state)
{
  const char *root = *state;
  g_autofree char *target = g_build_filename (root, "out", NULL);
  g_autofree char *copy = g_build_filename (root, "copy", NULL);
  write_output (target, "{}");
  copy_tree (target, copy);
  g_autofree char *predicted = g_build_filename (copy, "predicted", NULL);
  put (predicted, "0.evt", "Events"); /* "events" with its first byte changed */

  GError *error = NULL;
  assert_null (ts_output_dir_new (copy, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS));
  assert_non_null (strstr (error->message,
                           "its 'predicted/0.evt' changed since tracesim wrote it"));
  g_clear_error (&error);
  g_autofree char *kept = listing (predicted);
  assert_string_equal (kept, "0.evt");

  put (copy, "summary.json", "[]"); /* "{}", both bytes changed, same size */
  assert_false (ts_output_dir_add_file (copy, "summary.json", "{}", 2, &error));
  assert_non_null (strstr (error->message, "did not write it as it is"));
  g_clear_error (&error);
  g_autofree char *summary = g_build_filename (copy, "summary.json", NULL);
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (summary, &text, NULL, NULL));
  assert_string_equal (text, "[]");
}

/* The manifest an earlier tracesim (format 1: size and mtime, no hash)
 * wrote for @target, whose files are summary.json and predicted/0.evt. */
static void
write_mtime_manifest (const char *target)
{
  g_autoptr (GString) text = g_string_new ("# written by tracesim 0.1.0: what a later run may "
                                           "replace here\n");
  const char *files[] = { "summary.json", "predicted/0.evt" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (target, files[i], NULL);
      GStatBuf st;
      assert_int_equal (g_lstat (path, &st), 0);
      g_string_append_printf (text, "f %" G_GINT64_FORMAT " %" G_GINT64_FORMAT ".%09ld %s\n",
                              (gint64) st.st_size, (gint64) st.st_mtim.tv_sec,
                              (long) st.st_mtim.tv_nsec, files[i]);
    }
  g_string_append (text, "d - - predicted\n");
  put (target, TS_OUTPUT_MANIFEST, text->str);
}

/* Ensure a manifest of the earlier format (mtimes, no hashes) is read as
 * before: its own directory may be replaced, a copy of it is refused with
 * a message saying why. */
static void
test_mtime_manifest_read_as_before (void **state)
{
  const char *root = *state;
  g_autofree char *target = g_build_filename (root, "out", NULL);
  g_autofree char *copy = g_build_filename (root, "copy", NULL);
  write_output (target, "{}");
  write_mtime_manifest (target);
  copy_tree (target, copy);

  GError *error = NULL;
  assert_null (ts_output_dir_new (copy, &error));
  assert_non_null (strstr (error->message, "recorded modification times and not content"));
  g_clear_error (&error);

  TsOutputDir *d = ts_output_dir_new (target, &error);
  assert_non_null (d);
  assert_true (ts_output_dir_commit (d, &error));
}

/* The line @manifest (the text of one) gives @rel, or NULL. Caller frees. */
static char *
manifest_line (const char *manifest, const char *rel)
{
  g_auto (GStrv) lines = g_strsplit (manifest, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_suffix (lines[i], rel) && lines[i][strlen (lines[i]) - strlen (rel) - 1] == ' ')
      return g_strdup (lines[i]);
  return NULL;
}

static char *
read_text (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* Ensure an output written inside another (a run's predicted archive)
 * gives its files' SHA-256 to the outer manifest while each file keeps the
 * size and mtime its own manifest lists, and that a file changed since is
 * hashed again. The nested manifest is edited to list a hash of 64 'a's for
 * 0.evt: the outer one lists that hash only if it took it from there (the
 * file holds "events", whose SHA-256 is 862417b9..., from
 * `printf events | sha256sum`). */
static void
test_nested_manifest_hashes_reused (void **state)
{
  const char *root = *state;
  const char *fake = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  const char *real = "862417b9e7c3720bcb3263cd873b09892d787823b6f9a0f453e42824c5a4d4b6";
  for (int touched = 0; touched < 2; touched++)
    {
      g_autofree char *target = g_strdup_printf ("%s/out%d", root, touched);
      GError *error = NULL;
      TsOutputDir *d = ts_output_dir_new (target, &error);
      assert_non_null (d);
      g_autofree char *nested = g_build_filename (ts_output_dir_get_tmp_path (d), "predicted",
                                                  NULL);
      TsOutputDir *inner = ts_output_dir_new (nested, &error);
      assert_non_null (inner);
      put (ts_output_dir_get_tmp_path (inner), "0.evt", "events");
      assert_true (ts_output_dir_commit (inner, &error));

      g_autofree char *manifest = read_text (nested, TS_OUTPUT_MANIFEST);
      g_autofree char *listed = manifest_line (manifest, "0.evt");
      assert_non_null (strstr (listed, real));
      char *at = strstr (manifest, real);
      memcpy (at, fake, 64);
      put (nested, TS_OUTPUT_MANIFEST, manifest);
      if (touched)
        {
          /* Its mtime moved back a second (same content): hashed again. */
          g_autofree char *evt = g_build_filename (nested, "0.evt", NULL);
          GStatBuf st;
          assert_int_equal (g_lstat (evt, &st), 0);
          struct utimbuf times = { st.st_atime, st.st_mtime - 1 };
          assert_int_equal (g_utime (evt, &times), 0);
        }
      assert_true (ts_output_dir_commit (d, &error));

      g_autofree char *outer = read_text (target, TS_OUTPUT_MANIFEST);
      g_autofree char *line = manifest_line (outer, "predicted/0.evt");
      assert_non_null (line);
      assert_non_null (strstr (line, touched ? real : fake));
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_commit_renames_into_place, setup, teardown),
    cmocka_unit_test_setup_teardown (test_replaces_earlier_output, setup, teardown),
    cmocka_unit_test_setup_teardown (test_refuses_foreign_target, setup, teardown),
    cmocka_unit_test_setup_teardown (test_refuses_foreign_file_deep_inside, setup, teardown),
    cmocka_unit_test_setup_teardown (test_user_paths_in_errors, setup, teardown),
    cmocka_unit_test_setup_teardown (test_discard_leaves_nothing, setup, teardown),
    cmocka_unit_test_setup_teardown (test_remove_tree_keeps_link_targets, setup, teardown),
    cmocka_unit_test_setup_teardown (test_copy_is_still_ours, setup, teardown),
    cmocka_unit_test_setup_teardown (test_copy_with_one_byte_changed_is_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_mtime_manifest_read_as_before, setup, teardown),
    cmocka_unit_test_setup_teardown (test_nested_manifest_hashes_reused, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
