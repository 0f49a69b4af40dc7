/* pipeline/sweep-values.c: the values a sweep parameter takes, the points
 * they combine into, and the templates they fill. Expected values are
 * worked out in the comments. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "pipeline/sweep.h"
#include "pipeline/sweep-values.h"
#include "output/plot.h"
#include "tests/tool-run.h"

#include <cairo.h>

/* @text's values joined by spaces, or "error: <message>". */
static char *
values_of (const char *text)
{
  GError *error = NULL;
  g_auto (GStrv) v = ts_sweep_values_parse (text, &error);
  if (!v)
    {
      char *said = g_strconcat ("error: ", error->message, NULL);
      g_error_free (error);
      return said;
    }
  return g_strjoinv (" ", v);
}

static void
expect_values (const char *text, const char *want)
{
  g_autofree char *got = values_of (text);
  if (!g_str_has_prefix (got, want))
    fail_msg ("'%s': got '%s', expected '%s'", text, got, want);
}

/* Ensure lists, step ranges (16, 16+16, ... up to 64 included) and factor
 * ranges (1, 2, 4, ... 64) give their values, a step that lands on the end
 * within rounding includes it (0.1 + 2 x 0.1 is 0.30000000000000004: 0.3),
 * and malformed or oversized ones are refused, saying why. */
static void
test_values (void **state)
{
  expect_values ("0.25, 0.5, 1.0", "0.25 0.5 1.0");
  expect_values ("ib-hdr,100gbe", "ib-hdr 100gbe");
  expect_values ("ib-hdr, \"10GBps,1us\"", "ib-hdr 10GBps,1us");
  expect_values ("a, \"b", "error: 'a, \"b': a double quote is not closed");
  expect_values ("16:64:16", "16 32 48 64");
  expect_values ("16:60:16", "16 32 48");
  expect_values ("1:64:*2", "1 2 4 8 16 32 64");
  expect_values ("0.1:0.3:0.1", "0.1 0.2 0.3");
  expect_values ("1:2", "error: '1:2': a range is START:STOP:STEP");
  expect_values ("5:1:1", "error: '5:1:1': the range ends before it starts");
  expect_values ("1:10:0", "error: '1:10:0': the step must be above 0");
  expect_values ("1:10:*1", "error: '1:10:*1': a factor range needs a factor above 1");
  expect_values ("a, ,b", "error: 'a, ,b': value 2 is empty");
  expect_values ("1:1e9:1", "error: '1:1e9:1': more than 10000 values");
  expect_values ("", "error: no value");
}

/* Ensure points enumerate like nested loops in the file's order (the last
 * parameter fastest): with 2 and 3 values, 6 points, and point 4 is
 * (1, 1); zipped lists of 3 give 3 points, point 2 is (2, 2); zipped lists
 * of different lengths and products over the limit give 0. */
static void
test_points (void **state)
{
  guint index[2];
  assert_int_equal (ts_sweep_point ((guint[]) { 2, 3 }, 2, FALSE, G_MAXUINT, NULL), 6);
  assert_int_equal (ts_sweep_point ((guint[]) { 2, 3 }, 2, FALSE, 4, index), 6);
  assert_int_equal (index[0], 1);
  assert_int_equal (index[1], 1);
  assert_int_equal (ts_sweep_point ((guint[]) { 2, 3 }, 2, FALSE, 2, index), 6);
  assert_int_equal (index[0], 0);
  assert_int_equal (index[1], 2);
  assert_int_equal (ts_sweep_point ((guint[]) { 3, 3 }, 2, TRUE, 2, index), 3);
  assert_int_equal (index[0], 2);
  assert_int_equal (index[1], 2);
  assert_int_equal (ts_sweep_point ((guint[]) { 2, 3 }, 2, TRUE, G_MAXUINT, NULL), 0);
  assert_int_equal (ts_sweep_point ((guint[]) { 1000, 1000 }, 2, FALSE, G_MAXUINT, NULL), 0);
}

/* Ensure a template is filled, "$$" stays a '$', and a ${name} no
 * parameter defines is reported with the template's name and its line. */
static void
test_templates (void **state)
{
  const char *names[] = { "factor", "nodes", NULL };
  const char *values[] = { "0.5", "64", NULL };
  GError *error = NULL;
  g_autofree char *filled = ts_sweep_fill ("[region:solve]\nscale = ${factor}  # $$5 of ${nodes}\n",
                                           "solver.hyp.in", names, values, &error);
  assert_non_null (filled);
  assert_string_equal (filled, "[region:solve]\nscale = 0.5  # $5 of 64\n");
  assert_null (ts_sweep_fill ("[network]\n\nlatency = ${latnecy}\n", "net.hyp.in", names, values,
                              &error));
  assert_string_equal (error->message, "net.hyp.in:3: ${latnecy} names no parameter of the sweep");
  g_clear_error (&error);
  g_auto (GStrv) unknown = ts_sweep_unknown_references ("${a}\n${factor}\n${a} ${b", names);
  assert_int_equal (g_strv_length (unknown), 2);
  assert_string_equal (unknown[0], "a:1");
  assert_string_equal (unknown[1], "(unclosed):3");
}

/* Ensure a sweep file's end-of-line comments are comments, as in
 * hypothesis files (doc/sweeps.md's first example has them), while a '#'
 * glued to a word or inside double quotes stays in the value, and errors
 * still name the line as written. The file: [parameters] factor (2 values)
 * x label (3 values) = 6 points; the last varies fastest, so point 0 is
 * (0.25, "run #2"), point 1 (0.25, a#b), point 5 (0.5, c). */
static void
test_comments (void **state)
{
  g_autofree char *work = ts_test_workdir ("sweep-comments");
  g_autofree char *trace = g_build_filename (work, "t.otf2", NULL);
  g_autofree char *hyp = g_build_filename (work, "k.hyp.in", NULL);
  g_autofree char *path = g_build_filename (work, "c.sweep", NULL);
  assert_true (g_file_set_contents (trace, "", 0, NULL));
  assert_true (g_file_set_contents (hyp, "[region:k]\nscale = ${factor}  # per point\n", -1, NULL));
  assert_true (g_file_set_contents (path,
    "[sweep]              # the sweep\n"
    "trace = t.otf2       # the trace\n"
    "hypothesis = k.hyp.in\t# a template\n"
    "labels = label       # only names the points\n"
    "[parameters]  # the values\n"
    "factor = 0.25, 0.5   # a list\n"
    "label = \"run #2\", a#b, c # quoted, glued\n", -1, NULL));
  GError *error = NULL;
  g_autoptr (TsSweep) s = ts_sweep_load (path, &error);
  if (!s)
    fail_msg ("%s", error->message);
  assert_string_equal (ts_sweep_trace (s), trace);
  assert_int_equal (ts_sweep_n_points (s), 6);
  assert_string_equal (ts_sweep_value (s, 0, 0), "0.25");
  assert_string_equal (ts_sweep_value (s, 0, 1), "run #2");
  assert_string_equal (ts_sweep_value (s, 1, 1), "a#b");
  assert_string_equal (ts_sweep_value (s, 5, 0), "0.5");
  assert_string_equal (ts_sweep_value (s, 5, 1), "c");
  /* Line 3 of this one is the unknown key: the comments removed no line. */
  assert_true (g_file_set_contents (path, "# a sweep\n[sweep]   # x\ntraec = t.otf2   # typo\n",
                                    -1, NULL));
  assert_null (ts_sweep_load (path, &error));
  g_autofree char *want = g_strdup_printf ("%s:3: unknown key 'traec' in [sweep]", path);
  if (!g_str_has_prefix (error->message, want))
    fail_msg ("got '%s', expected '%s...'", error->message, want);
  g_clear_error (&error);
  /* grid_order, as extrapolate's --grid-order, is for extrapolated
   * points only, and takes largest-first or largest-last: line 3 each. */
  assert_true (g_file_set_contents (path, "[sweep]\ntrace = t.otf2\ngrid_order = largest-last\n",
                                    -1, NULL));
  assert_null (ts_sweep_load (path, &error));
  g_autofree char *only = g_strdup_printf ("%s:3: grid_order is for extrapolate", path);
  if (!g_str_has_prefix (error->message, only))
    fail_msg ("got '%s', expected '%s...'", error->message, only);
  g_clear_error (&error);
  assert_true (g_file_set_contents (path, "[sweep]\nextrapolate = t.otf2, t.otf2\n"
                                    "grid_order = column\n", -1, NULL));
  assert_null (ts_sweep_load (path, &error));
  g_autofree char *which = g_strdup_printf ("%s:3: grid_order = column: give largest-first, "
                                            "largest-last or the factors", path);
  if (!g_str_has_prefix (error->message, which))
    fail_msg ("got '%s', expected '%s...'", error->message, which);
  g_clear_error (&error);
  ts_test_rmtree (work);
}

/* Ensure a sweep draws its plot as a real picture: plot-factor.png of a
 * sweep of 2 kernel factors x 2 placements on an 8-rank halo exchange is
 * TS_PLOT_WIDTH x TS_PLOT_HEIGHT, mostly white, with the axes, ticks, text
 * and two lines' colours on it (thousands of pixels that are not white, of
 * more than two colours), and plot-factor.svg is an SVG file. */
static void
test_plot_is_a_picture (void **state)
{
  g_autofree char *work = ts_test_workdir ("sweep-plot");
  g_autofree char *trace_dir = g_build_filename (work, "trace", NULL);
  g_autofree char *tracegen = g_build_filename (ts_test_builddir (), "ts-tracegen", NULL);
  const char *gen[] = { tracegen, "stencil", "-o", trace_dir, "--ranks", "8", "--iterations", "10", NULL };
  int status = 1;
  assert_true (g_spawn_sync (NULL, (char **) gen, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                             NULL, NULL, &status, NULL));
  assert_int_equal (status, 0);
  g_autofree char *hyp = g_build_filename (work, "k.hyp.in", NULL);
  assert_true (g_file_set_contents (hyp, "[region:compute_kernel]\nscale = ${factor}\n", -1, NULL));
  g_autofree char *sweep = g_build_filename (work, "s.sweep", NULL);
  assert_true (g_file_set_contents (sweep, "[sweep]\ntrace = trace/traces.otf2\nhypothesis = k.hyp.in\n"
                                    "[parameters]\nfactor = 0.5, 1\nplacement = block, cyclic\n", -1, NULL));
  g_autofree char *out = g_build_filename (work, "out", NULL);
  TsToolResult r = ts_run_tracesim ((const char *[]) { "sweep", sweep, "-o", out, "-q", NULL });
  if (r.status != 0)
    fail_msg ("the sweep failed: %s", r.err);
  ts_tool_result_clear (&r);
  g_autofree char *png = g_build_filename (out, "plot-factor.png", NULL);
  cairo_surface_t *img = cairo_image_surface_create_from_png (png);
  assert_int_equal (cairo_surface_status (img), CAIRO_STATUS_SUCCESS);
  assert_int_equal (cairo_image_surface_get_width (img), TS_PLOT_WIDTH);
  assert_int_equal (cairo_image_surface_get_height (img), TS_PLOT_HEIGHT);
  cairo_surface_flush (img);
  const unsigned char *data = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img);
  guint not_white = 0;
  g_autoptr (GHashTable) colours = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (int y = 0; y < TS_PLOT_HEIGHT; y++)
    for (int x = 0; x < TS_PLOT_WIDTH; x++)
      {
        guint32 px = *(const guint32 *) (data + y * stride + 4 * x) & 0xffffff;
        not_white += px != 0xffffff;
        g_hash_table_add (colours, GUINT_TO_POINTER (px + 1));
      }
  cairo_surface_destroy (img);
  if (not_white < 2000 || not_white > TS_PLOT_WIDTH * TS_PLOT_HEIGHT / 2)
    fail_msg ("%u pixels of %u are not white", not_white, TS_PLOT_WIDTH * TS_PLOT_HEIGHT);
  assert_true (g_hash_table_size (colours) > 3);
  g_autofree char *svg_path = g_build_filename (out, "plot-factor.svg", NULL);
  g_autofree char *svg = NULL;
  assert_true (g_file_get_contents (svg_path, &svg, NULL, NULL));
  assert_non_null (strstr (svg, "<svg"));
  ts_test_rmtree (work);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_values),
    cmocka_unit_test (test_points),
    cmocka_unit_test (test_templates),
    cmocka_unit_test (test_comments),
    cmocka_unit_test (test_plot_is_a_picture),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
