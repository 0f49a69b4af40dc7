/* Rank-count extrapolation end to end (extrap/, `tracesim extrapolate`):
 * halo exchanges on process grids written by the generator at a few rank
 * counts with costs known by construction (tools/tracegen/grid.h),
 * extrapolated, and the output read back; and the refusals, which must say
 * why and write nothing. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "extrap/extrapolate.h"
#include "extrap/extrap-private.h"
#include "extrap/profile.h"
#include "model/stream.h"
#include "tests/tool-run.h"
#include "tools/tracegen/grid.h"

/* The grid workload at @ranks into @work/np<ranks>; returns its anchor. */
static char *
grid_trace (const char *work, const TsGridParams *base, guint ranks)
{
  TsGridParams p = *base;
  p.n_ranks = ranks;
  g_autofree char *name = g_strdup_printf ("np%u", ranks);
  g_autofree char *dir = g_build_filename (work, name, NULL);
  GError *error = NULL;
  gboolean ok = ts_grid_write (&p, dir, "traces", &error);
  if (!ok)
    fail_msg ("%s", error->message);
  return g_build_filename (dir, "traces.otf2", NULL);
}

/* The grid workload at each of the @n rank counts in @ranks: @traces gets
 * the anchors (caller frees each). */
static void
grid_series (const char *work, const TsGridParams *base, guint n, const guint *ranks,
             char **traces)
{
  for (guint i = 0; i < n; i++)
    traces[i] = grid_trace (work, base, ranks[i]);
}

/* The traces @script writes at the 3 rank counts @ranks, into @traces. */
static void
script_series (const char *work, char *(*script) (guint ranks), const guint *ranks,
               char **traces)
{
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("np%u", ranks[i]);
      g_autofree char *dir = g_build_filename (work, name, NULL);
      g_autofree char *text = script (ranks[i]);
      g_mkdir_with_parents (dir, 0755);
      traces[i] = ts_test_generate_text (dir, text);
    }
}

static void
free_series (guint n, char **traces)
{
  for (guint i = 0; i < n; i++)
    g_free (traces[i]);
}

static TsScaleProfile *
read_output (const char *out)
{
  g_autofree char *anchor = g_build_filename (out, "traces.otf2", NULL);
  GError *error = NULL;
  TsScaleProfile *p = ts_scale_profile_read (anchor, TS_COMPUTE_WALL, &error);
  if (!p)
    fail_msg ("%s", error->message);
  return p;
}

/* The grid workload at the 3 rank counts @ranks extrapolated to @target
 * into @work/np<target> with the options @o (ranks and output set here),
 * read back; @text (may be NULL) gets model.txt's text. */
static TsScaleProfile *
grid_extrapolated (const char *work, const TsGridParams *base, const guint *ranks, guint target,
                   TsExtrapolateOptions o, GString *text)
{
  char *t[3];
  grid_series (work, base, 3, ranks, t);
  g_autofree char *name = g_strdup_printf ("np%u", target);
  g_autofree char *out = g_build_filename (work, name, NULL);
  o.ranks = target;
  o.output_dir = out;
  GError *error = NULL;
  if (!ts_extrapolate ((const char *const *) t, 3, &o, text, &error))
    fail_msg ("%s", error->message);
  free_series (3, t);
  return read_output (out);
}

/* The series of @script at the 3 rank counts @ranks extrapolated to
 * @target into @work/np<target> with the options @o (ranks and output set
 * here), read back; @text (may be NULL) gets model.txt's text. */
static TsScaleProfile *
script_extrapolated (const char *work, char *(*script) (guint ranks), const guint *ranks,
                     guint target, TsExtrapolateOptions o, GString *text)
{
  char *t[3];
  script_series (work, script, ranks, t);
  g_autofree char *name = g_strdup_printf ("np%u", target);
  g_autofree char *out = g_build_filename (work, name, NULL);
  o.ranks = target;
  o.output_dir = out;
  GError *error = NULL;
  if (!ts_extrapolate ((const char *const *) t, 3, &o, text, &error))
    fail_msg ("%s", error->message);
  free_series (3, t);
  return read_output (out);
}

static TsScaleProfile *
extrapolate_with (const char *work, char *(*script) (guint ranks), const guint *ranks,
                  TsExtrapolateOptions o)
{
  return script_extrapolated (work, script, ranks, 8, o, NULL);
}

static TsScaleProfile *
extrapolate_from (const char *work, char *(*script) (guint ranks), const guint *ranks,
                  TsBoundaries boundaries)
{
  return extrapolate_with (work, script, ranks,
                           (TsExtrapolateOptions) { .boundaries = boundaries });
}

/* The same from 1, 2 and 4 ranks. */
static TsScaleProfile *
extrapolate_series (const char *work, char *(*script) (guint ranks), TsBoundaries boundaries)
{
  return extrapolate_from (work, script, (const guint[]) { 1, 2, 4 }, boundaries);
}

/* The trace written at @work/@dir replays with `tracesim run` (@what names
 * it in the failure). */
static void
assert_replays (const char *work, const char *dir, const char *what)
{
  g_autofree char *anchor = g_build_filename (work, dir, "traces.otf2", NULL);
  g_autofree char *run = g_build_filename (work, "run", NULL);
  const char *args[] = { "run", anchor, "-o", run, "-q", NULL };
  TsToolResult res = ts_run_tracesim (args);
  if (res.status != 0)
    fail_msg ("the extrapolated %s does not replay: %s", what, res.err);
  ts_tool_result_clear (&res);
}

static void
assert_partners (const TsScaleProfile *p, guint r, guint n, const guint32 *expected)
{
  const GArray *a = p->partners[r];
  assert_int_equal (a->len, n);
  for (guint i = 0; i < n; i++)
    assert_int_equal (g_array_index (a, guint32, i), expected[i]);
}

/* A periodic 2-D grid, strong scaling: 10 iterations of 0.01 s compute in
 * all and faces of 9600 bytes, an allreduce every 5 iterations, traced at 4
 * (2x2), 9 (3x3) and 16 (4x4) ranks, extrapolated to 64 (8x8).
 * Derived by hand:
 * - rank 0 is at (0, 0): its neighbours are (7, 0) = 56 and (1, 0) = 8
 *   along dimension 1, (0, 7) = 7 and (0, 1) = 1 along dimension 2;
 * - it sends one message to each per iteration: 10, and receives 10;
 * - a message along either dimension carries 9600 / 8 = 1200 bytes (the
 *   face divided among the 8 ranks across the other dimension): 12,000 bytes;
 * - its compute is 10 x 0.01 / 64 = 0.0015625 s, the same on every rank;
 * - 2 allreduces of 8 bytes per rank: 128 calls, 1024 bytes in all. */
static void
test_periodic_grid_to_64 (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-periodic");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.strong = TRUE;
  base.compute = 0.01;
  base.bytes = 9600;
  base.allreduce_every = 5;
  char *t[3];
  grid_series (work, &base, 3, (const guint[]) { 16, 4, 9 }, t);   /* any order */
  g_autofree char *out = g_build_filename (work, "np64", NULL);
  const char *const *traces = (const char *const *) t;
  TsExtrapolateOptions o = { .ranks = 64, .output_dir = out };
  GError *error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  if (!ts_extrapolate (traces, 3, &o, text, &error))
    fail_msg ("%s", error->message);
  free_series (3, t);
  assert_non_null (strstr (text->str, "2-D grid 8x8 (periodic x periodic) at 64 ranks"));
  assert_non_null (strstr (text->str, "0.1 * P^-1 -> 0.0015625 s at 64 ranks"));

  g_autoptr (TsScaleProfile) p = read_output (out);
  assert_int_equal (p->n_ranks, 64);
  assert_partners (p, 0, 4, (const guint32[]) { 1, 7, 8, 56 });
  for (guint i = 0; i < 4; i++)
    {
      const TsPeerTraffic *t = &g_array_index (p->traffic[0], TsPeerTraffic, i);
      assert_int_equal (t->sent, 10);
      assert_int_equal (t->received, 10);
      assert_int_equal (t->bytes_sent, 12000);
      assert_int_equal (t->bytes_received, 12000);
    }
  const double *compute = g_hash_table_lookup (p->compute, "compute_kernel");
  assert_non_null (compute);
  for (guint r = 0; r < 64; r++)
    assert_float_equal (compute[r], 0.0015625, 1e-12);
  assert_int_equal (p->collectives->len, 1);
  const TsCollectiveUse *u = &g_array_index (p->collectives, TsCollectiveUse, 0);
  assert_int_equal (u->calls, 128);
  assert_int_equal (u->bytes_sent, 1024);
  ts_test_rmtree (work);
}

static int
compare_u32 (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y;
}

/* Rank @r's traffic with world rank @q of @p (sent, received, bytes sent). */
static const TsPeerTraffic *
traffic_with (const TsScaleProfile *p, guint r, guint q)
{
  for (guint i = 0; i < p->traffic[r]->len; i++)
    {
      const TsPeerTraffic *t = &g_array_index (p->traffic[r], TsPeerTraffic, i);
      if (t->peer == q)
        return t;
    }
  fail_msg ("rank %u has no traffic with %u", r, q);
  return NULL;
}

/* A 9-point stencil: a periodic 2-D grid whose ranks exchange with their
 * diagonal neighbours too, strong scaling (--diagonal --strong: 4
 * iterations of 0.01 s in all, global faces of 9600 bytes, corners of 40),
 * traced at 9 (3x3), 16 (4x4) and 25 (5x5) ranks, extrapolated to 64
 * (8x8). Derived by hand: rank 0 at (0, 0) has rows 7, 0, 1 x columns 7,
 * 0, 1: the faces 1, 7, 8, 56 and the corners 9, 15, 57, 63; 4 messages to
 * each (one an iteration); a face message carries 9600 / 8 = 1200 bytes
 * (4800 in all), a corner one 40 at every P (160); compute 4 x 0.01 / 64 =
 * 0.000625 s. */
static void
test_nine_point_stencil (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-nine-point");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.strong = TRUE;
  base.diagonal = TRUE;
  base.iterations = 4;
  base.compute = 0.01;
  base.bytes = 9600;
  base.corner_bytes = 40;
  base.allreduce_every = 0;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (TsScaleProfile) p
    = grid_extrapolated (work, &base, (const guint[]) { 9, 16, 25 }, 64,
                         (TsExtrapolateOptions) { 0 }, text);
  if (!strstr (text->str, "2-D grid 8x8 (periodic x periodic, 9-point: diagonal neighbours "
                          "too) at 64 ranks")
      || !strstr (text->str, "bytes per message to corner neighbours (a step along every "
                             "dimension): 40 -> 40 at 64 ranks"))
    fail_msg ("%s", text->str);

  assert_int_equal (p->n_ranks, 64);
  assert_partners (p, 0, 8, (const guint32[]) { 1, 7, 8, 9, 15, 56, 57, 63 });
  const guint faces[] = { 1, 7, 8, 56 }, corners[] = { 9, 15, 57, 63 };
  for (guint i = 0; i < 4; i++)
    {
      const TsPeerTraffic *f = traffic_with (p, 0, faces[i]), *c = traffic_with (p, 0, corners[i]);
      assert_int_equal (f->sent, 4);
      assert_int_equal (f->received, 4);
      assert_int_equal (f->bytes_sent, 4800);
      assert_int_equal (c->sent, 4);
      assert_int_equal (c->bytes_sent, 160);
      assert_int_equal (c->bytes_received, 160);
    }
  const double *compute = g_hash_table_lookup (p->compute, "compute_kernel");
  assert_non_null (compute);
  for (guint r = 0; r < 64; r++)
    assert_float_equal (compute[r], 0.000625, 1e-12);
  assert_replays (work, "np64", "9-point stencil");
  ts_test_rmtree (work);
}

/* A small stencil told from an all-to-all by its message sizes (HPCG's
 * case): the 9-point periodic stencil, weak scaling (faces of 4096 bytes,
 * corners of 16), at 1, 2 and 4 ranks: at 4 (2x2) every rank talks to
 * every other, as in an all-to-all, but the faces' messages have 4096
 * bytes and the corners' 16: read as the stencil, which at 16 (4x4)
 * reaches 8 ranks, not 15. Periodic, not open: rank 0 sends its two
 * messages to rank 2 (up and down along dimension 1) and four to rank 3
 * (the four corners), one per slot, as only a periodic grid has them.
 * Derived by hand: rank 0 at (0, 0) of 4x4 has rows 3, 0, 1 x columns 3,
 * 0, 1: the faces 1, 3, 4, 12 with 4 x 4096 = 16384 bytes each over 4
 * iterations, the corners 5, 7, 13, 15 with 4 x 16 = 64. The inputs fit
 * a 3-D grid too (2x2x1 at 4), 4x2x2 at 16: a warning says so. */
static void
test_stencil_told_by_sizes (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-stencil-sizes");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.diagonal = TRUE;
  base.iterations = 4;
  base.corner_bytes = 16;
  base.allreduce_every = 0;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (TsScaleProfile) p
    = grid_extrapolated (work, &base, (const guint[]) { 1, 2, 4 }, 16,
                         (TsExtrapolateOptions) { 0 }, text);
  if (!strstr (text->str, "the messages have a stencil's sizes, faces larger than edges, edges than corners (4096 bytes "
                          "along dimension 1, 4096 bytes along dimension 2, 16 bytes to corner "
                          "neighbours (a step along every dimension)): read as the stencil")
      /* 2x2 is a 2x2x1 grid too, 4x2x2 at 16: said, not taken. */
      || !strstr (text->str, "warning: the inputs fit grids of 2 and of 3 dimensions, which "
                             "differ at 16 ranks: taken, the fewer, 2-D grid 4x4")
      || !strstr (text->str, "also possible, 3-D grid 4x2x2"))
    fail_msg ("%s", text->str);

  assert_partners (p, 0, 8, (const guint32[]) { 1, 3, 4, 5, 7, 12, 13, 15 });
  const guint faces[] = { 1, 3, 4, 12 }, corners[] = { 5, 7, 13, 15 };
  for (guint i = 0; i < 4; i++)
    {
      assert_int_equal (traffic_with (p, 0, faces[i])->bytes_sent, 16384);
      assert_int_equal (traffic_with (p, 0, faces[i])->received, 4);
      assert_int_equal (traffic_with (p, 0, corners[i])->bytes_sent, 64);
      assert_int_equal (traffic_with (p, 0, corners[i])->received, 4);
    }
  assert_replays (work, "np16", "stencil read from its sizes");
  ts_test_rmtree (work);
}

/* A 27-point stencil: a periodic 3-D grid with diagonals, weak scaling
 * (faces 4096 bytes, edges 256, corners 16), 3 iterations, traced at 8
 * (2x2x2), 12 (3x2x2) and 18 (3x3x2) ranks, extrapolated to 36 (4x3x3).
 * Derived by hand: rank 0 at (0, 0, 0) has coordinates 3, 0, 1 x 2, 0, 1 x
 * 2, 0, 1 around it: 26 partners; rank 1 = (0, 0, 1) is a face neighbour
 * (3 x 4096 = 12288 bytes), rank 4 = (0, 1, 1) an edge one (3 x 256 = 768),
 * rank 13 = (1, 1, 1) a corner (3 x 16 = 48); every rank has 26. */
static void
test_twenty_seven_point_stencil (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-27-point");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.n_dims = 3;
  base.diagonal = TRUE;
  base.iterations = 3;
  base.allreduce_every = 0;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (TsScaleProfile) p
    = grid_extrapolated (work, &base, (const guint[]) { 8, 12, 18 }, 36,
                         (TsExtrapolateOptions) { 0 }, text);
  if (!strstr (text->str, "3-D grid 4x3x3 (periodic x periodic x periodic, 27-point: diagonal "
                          "neighbours too) at 36 ranks"))
    fail_msg ("%s", text->str);

  for (guint r = 0; r < 36; r++)
    assert_int_equal (p->partners[r]->len, 26);
  assert_int_equal (traffic_with (p, 0, 1)->bytes_sent, 12288);
  assert_int_equal (traffic_with (p, 0, 4)->bytes_sent, 768);
  assert_int_equal (traffic_with (p, 0, 13)->bytes_sent, 48);
  assert_int_equal (traffic_with (p, 0, 13)->received, 3);
  assert_replays (work, "np36", "27-point stencil");
  ts_test_rmtree (work);
}

/* An open 2-D grid, weak scaling (1 ms and 4096-byte messages per rank and
 * iteration, whatever P), traced at 9 (3x3), 16 (4x4) and 25 (5x5) ranks,
 * extrapolated to 36 (6x6) with the command, and compared (--compare) with
 * the workload written at 36 ranks, which it must equal. Derived by hand: corner rank 0
 * at (0, 0) has the neighbours (1, 0) = 6 and (0, 1) = 1; rank 7 at (1, 1),
 * inside, has 1, 6, 8 and 13; corner 35 at (5, 5) has 29 and 34; rank 5 at
 * (0, 5), on an edge, has 4, 11. Every message stays 4096 bytes, 10 of them
 * to each neighbour. Ranks on the boundary compute half as long
 * (--boundary-factor 0.5): an interior rank (both coordinates 1 to 4)
 * 10 x 1 ms = 0.01 s, a boundary rank 0.005 s. The mean over ranks is no
 * function of P this models exactly (the boundary's share falls: 8 of 9,
 * 12 of 16, 16 of 25 ranks), each role's mean is a constant. */
static void
test_open_grid_roles (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-open");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.open = TRUE;
  base.boundary = 0.5;
  char *t[4];
  grid_series (work, &base, 4, (const guint[]) { 9, 16, 25, 36 }, t);
  g_autofree char *out = g_build_filename (work, "extrapolated", NULL);
  /* --compare with the workload really written at 36 ranks: the same. */
  const char *args[] = { "extrapolate", t[0], t[1], t[2], "--ranks", "36", "-o", out,
                         "--compare", t[3], NULL };
  TsToolResult res = ts_run_tracesim (args);
  if (res.status != 0)
    fail_msg ("%s", res.err);
  /* The allreduce: once in 10 iterations, 36 calls of 8 bytes. */
  const char *same[] = { "partners    the same on 36 of 36 ranks",
                         "as many to each partner on 36 of 36 ranks", "bytes       ",
                         "collectives as many calls and bytes for 1 of 1 operations; 36 calls "
                         "predicted, 36 real; 288 bytes predicted, 288 real (+0.0%)",
                         " real (+0.0%)\n  compute", "s real (+0.0%), all ranks" };
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    if (!strstr (res.out, same[i]))
      fail_msg ("expected '%s' in: %s", same[i], res.out);
  ts_tool_result_clear (&res);
  free_series (4, t);

  g_autoptr (TsScaleProfile) p = read_output (out);
  assert_int_equal (p->n_ranks, 36);
  assert_partners (p, 0, 2, (const guint32[]) { 1, 6 });
  assert_partners (p, 7, 4, (const guint32[]) { 1, 6, 8, 13 });
  assert_partners (p, 35, 2, (const guint32[]) { 29, 34 });
  assert_partners (p, 5, 2, (const guint32[]) { 4, 11 });
  for (guint r = 0; r < 36; r++)
    for (guint i = 0; i < p->traffic[r]->len; i++)
      {
        const TsPeerTraffic *t = &g_array_index (p->traffic[r], TsPeerTraffic, i);
        assert_int_equal (t->sent, 10);
        assert_int_equal (t->bytes_sent, 40960);
      }
  const double *compute = g_hash_table_lookup (p->compute, "compute_kernel");
  for (guint r = 0; r < 36; r++)
    {
      gboolean inside = r / 6 >= 1 && r / 6 <= 4 && r % 6 >= 1 && r % 6 <= 4;
      assert_float_equal (compute[r], inside ? 0.01 : 0.005, 1e-12);
    }
  g_autofree char *model = g_build_filename (out, "model.json", NULL);
  assert_true (g_file_test (model, G_FILE_TEST_IS_REGULAR));
  ts_test_rmtree (work);
}

/* `tracesim extrapolate ARGS... -o WORK/out` must fail, say @expected (each
 * '|'-separated part) and leave no output behind. */
static void
assert_refused (const char *work, const char *const *traces, guint n, const char *ranks,
                const char *expected)
{
  g_autofree char *out = g_build_filename (work, "out", NULL);
  const char *args[16] = { "extrapolate" };
  guint k = 1;
  for (guint i = 0; i < n; i++)
    args[k++] = traces[i];
  args[k++] = "--ranks";
  args[k++] = ranks;
  args[k++] = "-o";
  args[k++] = out;
  TsToolResult res = ts_run_tracesim (args);
  assert_int_equal (res.status, 1);
  g_auto (GStrv) parts = g_strsplit (expected, "|", -1);
  for (guint i = 0; parts[i]; i++)
    if (!strstr (res.err, parts[i]))
      fail_msg ("expected '%s' in: %s", parts[i], res.err);
  assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  assert_false (ts_test_dir_has_prefix (work, "out.tmp"));
  ts_tool_result_clear (&res);
}

/* Traces that are not the same program: 10 iterations at 4 ranks, 12 at 9
 * (compute_kernel entered 10 and 12 times, the allreduce, every 5th
 * iteration, 2 times at both); and one trace alone. */
static void
test_misaligned_refused (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-misaligned");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.allreduce_every = 5;
  g_autofree char *t4 = grid_trace (work, &base, 4);
  base.iterations = 12;
  g_autofree char *t9 = grid_trace (work, &base, 9);
  assert_refused (work, (const char *[]) { t4, t9 }, 2, "64",
                  "do not align|compute_kernel: 10 times at 4 ranks, 12 times at 9 ranks");
  assert_refused (work, (const char *[]) { t4 }, 1, "64", "one trace (at 4 ranks)");
  ts_test_rmtree (work);
}

/* An open grid traced at 4 (2x2), 6 (3x2) and 8 (4x2) ranks never shows a
 * rank inside the second dimension, which 64 ranks (8x8) need: they join
 * the ends' halves (mirror.c). Derived by hand: rank 9 at (1, 1) of 8x8 is
 * written from rank 3 at (1, 1) of 4x2 (inside along dimension 1, the high
 * end of dimension 2), whose partners are 1, 5 and 2; at 8x8 those are 1,
 * 17 and 8, and the mirror image of 8 (below along dimension 2) is 10:
 * partners 1, 8, 10, 17, 10 messages of 4096 bytes to each; it replays. */
static void
test_unseen_interior_joined (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-unseen-interior");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.open = TRUE;
  g_autoptr (TsScaleProfile) p
    = grid_extrapolated (work, &base, (const guint[]) { 4, 6, 8 }, 64,
                         (TsExtrapolateOptions) { 0 }, NULL);
  assert_partners (p, 9, 4, (const guint32[]) { 1, 8, 10, 17 });
  for (guint i = 0; i < 4; i++)
    assert_int_equal (g_array_index (p->traffic[9], TsPeerTraffic, i).bytes_sent, 40960);
  assert_replays (work, "np64", "grid with an interior joined along dimension 2");
  ts_test_rmtree (work);
}

/* A periodic 2-D grid traced at 1, 2 (2x1) and 4 (2x2) ranks: with two
 * ranks along a dimension its neighbour below is its neighbour above, so
 * the partners cannot tell periodic from open, and neither can the counts
 * (two messages per iteration to that partner: one each way on a periodic
 * grid, or an open grid exchanging twice). 8 ranks (4x2) need to know:
 * refused without --boundaries. With --boundaries periodic, rank 0 at
 * (0, 0) of 4x2 has the neighbours (3, 0) = 6 and (1, 0) = 2 along
 * dimension 1, and (0, 1) = 1 both ways along dimension 2: partners 1, 2,
 * 6, with 10 messages to 2 and to 6 and 20 to 1. Strong scaling, faces of
 * 9600 bytes: the inputs show 9600 bytes with 1 rank across (2x1) and 4800
 * with 2 (2x2), along both dimensions alike: 9600 / ranks across. At 4x2 a
 * message along dimension 1 has 2 ranks across, 4800 bytes, along dimension
 * 2 it has 4, 2400 bytes: 48,000 bytes to each of 1, 2 and 6. */
static void
test_boundaries_from_the_user (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-boundaries");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.strong = TRUE;
  base.bytes = 9600;
  char *t[3];
  grid_series (work, &base, 3, (const guint[]) { 1, 2, 4 }, t);
  assert_refused (work, (const char *const *) t, 3, "8",
                  "dimension 1 of the 2-D grid|--boundaries periodic");
  g_autofree char *out = g_build_filename (work, "np8", NULL);
  const char *args[] = { "extrapolate", t[0], t[1], t[2], "--ranks", "8", "--boundaries",
                         "periodic", "-o", out, "-q", NULL };
  TsToolResult res = ts_run_tracesim (args);
  if (res.status != 0)
    fail_msg ("%s", res.err);
  ts_tool_result_clear (&res);
  free_series (3, t);
  g_autoptr (TsScaleProfile) p = read_output (out);
  assert_partners (p, 0, 3, (const guint32[]) { 1, 2, 6 });
  const guint64 sent[] = { 20, 10, 10 };
  for (guint i = 0; i < 3; i++)
    {
      assert_int_equal (g_array_index (p->traffic[0], TsPeerTraffic, i).sent, sent[i]);
      assert_int_equal (g_array_index (p->traffic[0], TsPeerTraffic, i).bytes_sent, 48000);
    }
  ts_test_rmtree (work);
}

/* A periodic 2-D grid numbered column-major (ts-tracegen grid
 * --largest-last: MPI_Dims_create's factors largest last), strong scaling
 * (10 iterations of 0.01 s compute in all, faces of 9600 bytes), traced at
 * 4 (2x2), 8 (2x4) and 16 (4x4) ranks, extrapolated to 32: 4x8, row-major
 * (rank = 8 i + j), where MPI's order would give 8x4. Derived by hand:
 * - rank 0 = (0, 0) has (3, 0) = 24 and (1, 0) = 8 along dimension 1,
 *   (0, 7) = 7 and (0, 1) = 1 along dimension 2: partners 1, 7, 8, 24;
 * - 10 messages to each; along dimension 1 a face has 8 ranks across,
 *   9600 / 8 = 1200 bytes a message, 12,000 to 8 and to 24; along
 *   dimension 2 it has 4, 2400 bytes, 24,000 to 1 and to 7;
 * - compute 10 x 0.01 / 32 = 0.003125 s a rank.
 * The 8-rank input fits only this order (rank 0 has 1 and 4, where MPI's
 * 4x2 gives 1 and 2): nothing to say about another order. The same
 * workload in MPI's order at 1, 2, 4 to 8 fits both orders: the
 * explanation says which was taken (4x2) and the other (2x4), and
 * --grid-order largest-last takes 2x4: rank 0's partners (1, 0) = 4 both
 * ways along dimension 1, (0, 1) = 1 and (0, 3) = 3 along dimension 2. */
static void
test_column_major_grid (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-column-major");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.strong = TRUE;
  base.compute = 0.01;
  base.bytes = 9600;
  base.largest_last = TRUE;
  char *t[3];
  grid_series (work, &base, 3, (const guint[]) { 4, 8, 16 }, t);
  g_autofree char *out = g_build_filename (work, "np32", NULL);
  TsExtrapolateOptions o = { .ranks = 32, .output_dir = out };
  GError *error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  if (!ts_extrapolate ((const char *const *) t, 3, &o, text, &error))
    fail_msg ("%s", error->message);
  free_series (3, t);
  assert_non_null (strstr (text->str, "2-D grid 4x8 (periodic x periodic, largest dimension "
                           "last) at 32 ranks"));
  assert_null (strstr (text->str, "two orders"));
  g_autoptr (TsScaleProfile) p = read_output (out);
  assert_int_equal (p->n_ranks, 32);
  assert_partners (p, 0, 4, (const guint32[]) { 1, 7, 8, 24 });
  const guint64 bytes[] = { 24000, 24000, 12000, 12000 };
  for (guint i = 0; i < 4; i++)
    {
      const TsPeerTraffic *pt = &g_array_index (p->traffic[0], TsPeerTraffic, i);
      assert_int_equal (pt->sent, 10);
      assert_int_equal (pt->bytes_sent, bytes[i]);
    }
  const double *compute = g_hash_table_lookup (p->compute, "compute_kernel");
  assert_non_null (compute);
  assert_float_equal (compute[31], 0.003125, 1e-12);

  base.largest_last = FALSE;
  grid_series (work, &base, 3, (const guint[]) { 1, 2, 4 }, t);
  g_autofree char *out8 = g_build_filename (work, "np8", NULL);
  o = (TsExtrapolateOptions) { .ranks = 8, .output_dir = out8,
                               .boundaries = TS_BOUNDARIES_PERIODIC };
  g_string_truncate (text, 0);
  if (!ts_extrapolate ((const char *const *) t, 3, &o, text, &error))
    fail_msg ("%s", error->message);
  assert_non_null (strstr (text->str, "taken, 2-D grid 4x2 (periodic x periodic); also "
                           "possible, 2-D grid 2x4 (periodic x periodic, largest dimension "
                           "last) (--grid-order largest-last"));
  const char *args[] = { "extrapolate", t[0], t[1], t[2], "--ranks", "8", "--boundaries",
                         "periodic", "--grid-order", "largest-last", "-o", out8, "-q", NULL };
  TsToolResult res = ts_run_tracesim (args);
  if (res.status != 0)
    fail_msg ("%s", res.err);
  ts_tool_result_clear (&res);
  free_series (3, t);
  g_autoptr (TsScaleProfile) q = read_output (out8);
  assert_partners (q, 0, 3, (const guint32[]) { 1, 3, 4 });
  ts_test_rmtree (work);
}

/* One message each way between the ranks of each pair. */
static char *
pairs_script (guint ranks, const guint (*pairs)[2], guint n)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", ranks);
  for (guint i = 0; i < n; i++)
    for (guint side = 0; side < 2; side++)
      {
        guint me = pairs[i][side], other = pairs[i][!side];
        if (side == 0)
          g_string_append_printf (s, "%u 0.0 enter MPI_Send\n%u 0.0 send %u bytes=64\n"
                                  "%u 0.001 leave\n", me, me, other, me);
        else
          g_string_append_printf (s, "%u 0.0 enter MPI_Recv\n%u 0.001 recv %u bytes=64\n"
                                  "%u 0.001 leave\n", me, me, other, me);
      }
  return g_string_free (s, FALSE);
}

/* Partners drawn at random: at 4 ranks 0-3 and 1-2, at 8 ranks 0-5, 1-3,
 * 2-7, 4-6. No ring or grid has rank 0's only partner at 3 of 4 ranks
 * (a 1-D ring: 1 and 3; an open line: 1), nor is it all-to-all or
 * master/worker: refused, naming rank 0's partner 5 at 8 ranks. */
static void
test_random_partners_refused (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-random");
  const guint at4[][2] = { { 0, 3 }, { 1, 2 } };
  const guint at8[][2] = { { 0, 5 }, { 1, 3 }, { 2, 7 }, { 4, 6 } };
  g_autofree char *s4 = pairs_script (4, at4, 2);
  g_autofree char *s8 = pairs_script (8, at8, 4);
  g_autofree char *w4 = g_build_filename (work, "np4", NULL);
  g_autofree char *w8 = g_build_filename (work, "np8", NULL);
  g_mkdir_with_parents (w4, 0755);
  g_mkdir_with_parents (w8, 0755);
  g_autofree char *t4 = ts_test_generate_text (w4, s4);
  g_autofree char *t8 = ts_test_generate_text (w8, s8);
  assert_refused (work, (const char *[]) { t4, t8 }, 2, "16",
                  "no one pattern|at 4 ranks: irregular|partners at 8 ranks|rank 0: 5");
  ts_test_rmtree (work);
}

/* An uninstrumented program (MPI calls only): at P ranks each rank
 * computes 0.4 / P s before and after one MPI_Allreduce, between MPI_Init
 * and MPI_Finalize. Its compute lies outside every region. At 1, 2 and 4
 * ranks that is 0.8 / P s per rank: at 8 ranks, 0.1 s on every rank. */
static char *
collective_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  double c = 0.4 / p;
  for (guint r = 0; r < p; r++)
    g_string_append_printf (s, "%u 0 enter MPI_Init\n%u 0.001 leave\n"
                            "%u %.9f enter MPI_Allreduce\n%u %.9f coll_begin\n"
                            "%u %.9f coll_end allreduce sent=8 recv=8\n%u %.9f leave\n"
                            "%u %.9f enter MPI_Finalize\n%u %.9f leave\n",
                            r, r, r, 0.001 + c, r, 0.001 + c, r, 0.002 + c, r, 0.002 + c,
                            r, 0.002 + 2 * c, r, 0.003 + 2 * c);
  return g_string_free (s, FALSE);
}

static void
test_uninstrumented_compute (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-uninstrumented");
  g_autoptr (TsScaleProfile) p = extrapolate_series (work, collective_script, TS_BOUNDARIES_UNKNOWN);
  const double *compute = g_hash_table_lookup (p->compute, TS_PROFILE_OUTSIDE_REGIONS);
  assert_non_null (compute);
  for (guint r = 0; r < 8; r++)
    assert_float_equal (compute[r], 0.1, 1e-9);
  ts_test_rmtree (work);
}

/* The Sendrecv pattern of shift_script and forwarding_script, at @p of 1,
 * 2 (2x1) or 4 (2x2) ranks, rank r at (r / dims[1], r % dims[1]):
 * @iterations of @burst seconds of compute, then along each dimension
 * (none along one of 1 rank) an MPI_Sendrecv sending up (to coordinate
 * c + 1) and receiving from down, then one sending down and receiving from
 * up, all with tag 0, of bytes(k, dims) along dimension k. */
static char *
grid_sendrecv_script (guint p, guint iterations, double burst,
                      guint (*bytes) (guint k, const guint *dims))
{
  guint d[2] = { p >= 4 ? 2 : p, p >= 4 ? p / 2 : 1 };
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0;
      guint c[2] = { r / d[1], r % d[1] };
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint it = 0; it < iterations; it++)
        {
          t += burst;
          for (guint k = 0; k < 2; k++)
            for (guint down = 0; down < 2 && d[k] > 1; down++)
              {
                guint lo[2] = { c[0], c[1] }, hi[2] = { c[0], c[1] };
                lo[k] = (c[k] + d[k] - 1) % d[k];
                hi[k] = (c[k] + 1) % d[k];
                guint to = down ? lo[0] * d[1] + lo[1] : hi[0] * d[1] + hi[1];
                guint from = down ? hi[0] * d[1] + hi[1] : lo[0] * d[1] + lo[1];
                guint n = bytes (k, d);
                g_string_append_printf (s, "%u %.6f enter MPI_Sendrecv\n%u %.6f send %u bytes=%u\n"
                                        "%u %.6f recv %u bytes=%u\n%u %.6f leave\n",
                                        r, t, r, t, to, n, r, t + 1e-4, from, n, r, t + 1e-4);
                t += 2e-4;
              }
        }
      g_string_append_printf (s, "%u %.6f leave\n", r, t + 0.001);
    }
  return g_string_free (s, FALSE);
}

/* A shift on a periodic 2-D grid: every iteration, along each dimension,
 * MPI_Sendrecv sending up and receiving from down, then sending down and
 * receiving from up, all with tag 0 (as LAMMPS's swaps do), at 1, 2 (2x1)
 * and 4 (2x2) ranks. With two ranks along a dimension, down and up are the
 * same rank: only the sends' order and MPI's non-overtaking order tell the
 * directions. At 8 ranks (4x2) a receive taken from the wrong side waits for
 * a message nobody sends (the replay deadlocks); taken right, the shift
 * replays. Rank (0, 0) of 4x2 sends, per iteration, one message down and one
 * up along each dimension: along dimension 1 to 6 and to 2, 3 each; along
 * dimension 2 both to 1: 6. */
static guint
shift_bytes (guint k, const guint *dims)
{
  (void) dims;
  return 100 * (k + 1);
}

static char *
shift_script (guint p)
{
  return grid_sendrecv_script (p, 3, 0.001, shift_bytes);
}

static void
test_shift_on_two_ranks (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-shift");
  g_autoptr (TsScaleProfile) p = extrapolate_series (work, shift_script, TS_BOUNDARIES_PERIODIC);
  assert_partners (p, 0, 3, (const guint32[]) { 1, 2, 6 });
  const guint64 sent[] = { 6, 3, 3 };
  for (guint i = 0; i < 3; i++)
    assert_int_equal (g_array_index (p->traffic[0], TsPeerTraffic, i).sent, sent[i]);
  assert_replays (work, "np8", "shift");
  ts_test_rmtree (work);
}

/* The peers of rank @r's point-to-point actions of @kind, in program order,
 * in the trace read into @p. */
static GArray *
peers_in_order (const TsScaleProfile *p, guint r, guint8 kind)
{
  GError *error = NULL;
  g_autoptr (TsActionStream) stream = ts_calibration_stream_open (p->calibration, p->trace, &error);
  if (!stream)
    fail_msg ("%s", error->message);
  GArray *peers = g_array_new (FALSE, FALSE, sizeof (gint32));
  TsAction a;
  while (ts_action_stream_next (stream, r, &a, &error))
    if (a.kind == kind)
      g_array_append_val (peers, a.peer);
  if (error)
    fail_msg ("%s", error->message);
  return peers;
}

/* The first @n of @peers are @expected. */
static void
assert_peers (const GArray *peers, guint n, const gint32 *expected)
{
  assert_true (peers->len >= n);
  for (guint i = 0; i < n; i++)
    assert_int_equal (g_array_index (peers, gint32, i), expected[i]);
}

/* A transpose by point-to-point messages (an all-to-all), refused from
 * inputs up to 4 ranks unless --all-to-all is given (below): per iteration,
 * 0.8 / P s in region fft, then one MPI_Irecv from each other rank at
 * offsets -1, -2, ... (rank r - k first), one MPI_Isend to each at offsets
 * +1, +2, ... of 4800 / P^2 bytes (a strong-scaling matrix's block), and
 * one MPI_Waitall; 3 iterations. With @directional, the tag of each
 * message says whether it goes to a higher rank (1) or a lower one (0).
 * With @by_rank, rank r's messages are r + 1 times as large. */
static char *
transpose_text (guint p, gboolean directional, gboolean by_rank)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0;
      guint req = 0;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint it = 0; it < 3; it++)
        {
          g_string_append_printf (s, "%u %.9f enter fft\n", r, t);
          t += 0.8 / p;
          g_string_append_printf (s, "%u %.9f leave\n", r, t);
          guint first = req;
          for (guint k = 1; k < p; k++, t += 1e-5)
            g_string_append_printf (s, "%u %.9f enter MPI_Irecv\n%u %.9f irecv_request req=%u\n"
                                    "%u %.9f leave\n", r, t, r, t, req++, r, t + 1e-5);
          for (guint k = 1; k < p; k++, t += 1e-5)
            {
              guint to = (r + k) % p;
              g_string_append_printf (s, "%u %.9f enter MPI_Isend\n"
                                      "%u %.9f isend %u tag=%u bytes=%u req=%u\n%u %.9f leave\n",
                                      r, t, r, t, to, directional && to > r,
                                      4800 / (p * p) * (by_rank ? r + 1 : 1), req++, r, t + 1e-5);
            }
          t += 1e-3;
          g_string_append_printf (s, "%u %.9f enter MPI_Waitall\n", r, t);
          for (guint k = 1; k < p; k++)
            {
              guint from = (r + p - k) % p;
              g_string_append_printf (s, "%u %.9f irecv %u tag=%u bytes=%u req=%u\n", r,
                                      t + 1e-4, from, directional && from < r,
                                      4800 / (p * p) * (by_rank ? from + 1 : 1), first + k - 1);
            }
          for (guint k = 1; k < p; k++)
            g_string_append_printf (s, "%u %.9f isend_complete req=%u\n", r, t + 1e-4,
                                    first + p - 1 + k - 1);
          t += 1e-4;
          g_string_append_printf (s, "%u %.9f leave\n", r, t);
        }
      g_string_append_printf (s, "%u %.9f leave\n", r, t + 1e-3);
    }
  return g_string_free (s, FALSE);
}

static char *
transpose_script (guint p)
{
  return transpose_text (p, FALSE, FALSE);
}

/* The transpose with the tag telling the direction, as meep's exchanges
 * do: tag 1 for a message to a higher rank, tag 0 to a lower one. */
static char *
directional_transpose_script (guint p)
{
  return transpose_text (p, TRUE, FALSE);
}

/* The transpose whose messages grow with the sender's rank. */
static char *
uneven_transpose_script (guint p)
{
  return transpose_text (p, FALSE, TRUE);
}

/* The transpose at 1, 2 and 4 ranks, extrapolated to 8. At 4 ranks (2x2)
 * a 9-point stencil reaches every rank too, but its messages would have
 * one size along each dimension and another to the corners; the
 * transpose's have one size, 4800 / 16 = 300 bytes, in every direction:
 * read as all-to-all, and model.txt says why. With messages growing with
 * the sender's rank, sizes tell nothing, and the readings differ at 8 (a
 * 4x2 stencil reaches 5 ranks, not 7): refused unless --all-to-all.
 * Derived by hand:
 * - every rank has the 7 others as partners, 3 messages each way with
 *   each, of 4800 / 64 = 75 bytes: 225 bytes;
 * - fft takes 3 x 0.8 / 8 = 0.3 s on every rank;
 * - the loops keep their order: rank 0 sends to 1, 2, ..., 7 and posts
 *   its receives from 7, 6, ..., 1 (the 2-rank input cannot tell up from
 *   down, the 4-rank one can);
 * - it replays (every receive has its send). */
static void
test_all_to_all (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-all-to-all");
  char *t[3];
  script_series (work, uneven_transpose_script, (const guint[]) { 1, 2, 4 }, t);
  assert_refused (work, (const char *const *) t, 3, "8",
                  "exchanges with every other, which is also what a 2-D grid 2x2 (periodic x "
                  "periodic, 9-point: diagonal neighbours too) looks like; the two differ at 8"
                  "|here: 300 to 1200 bytes along dimension 1");
  free_series (3, t);
  g_autoptr (TsScaleProfile) p = extrapolate_with (work, transpose_script,
                                                   (const guint[]) { 1, 2, 4 },
                                                   (TsExtrapolateOptions) { 0 });
  g_autofree char *model_path = g_build_filename (work, "np8", "model.txt", NULL);
  g_autofree char *model = NULL;
  assert_true (g_file_get_contents (model_path, &model, NULL, NULL));
  if (!strstr (model, "the messages have one size in every direction (300 bytes along "
                      "dimension 1, 300 bytes along dimension 2, 300 bytes to corner "
                      "neighbours (a step along every dimension)), which a stencil's faces "
                      "and corners would not: read as all-to-all"))
    fail_msg ("%s", model);
  assert_int_equal (p->n_ranks, 8);
  for (guint r = 0; r < 8; r++)
    {
      assert_int_equal (p->partners[r]->len, 7);
      for (guint i = 0; i < 7; i++)
        {
          const TsPeerTraffic *t = &g_array_index (p->traffic[r], TsPeerTraffic, i);
          assert_int_equal (t->sent, 3);
          assert_int_equal (t->received, 3);
          assert_int_equal (t->bytes_sent, 225);
        }
    }
  const double *fft = g_hash_table_lookup (p->compute, "fft");
  assert_non_null (fft);
  for (guint r = 0; r < 8; r++)
    assert_float_equal (fft[r], 0.3, 1e-9);
  g_autoptr (GArray) sends = peers_in_order (p, 0, TS_ACTION_ISEND);
  g_autoptr (GArray) recvs = peers_in_order (p, 0, TS_ACTION_IRECV);
  assert_int_equal (sends->len, 21);
  assert_peers (sends, 7, (const gint32[]) { 1, 2, 3, 4, 5, 6, 7 });
  assert_peers (recvs, 7, (const gint32[]) { 7, 6, 5, 4, 3, 2, 1 });
  assert_replays (work, "np8", "transpose");
  ts_test_rmtree (work);
}

/* The directional transpose at 1, 2 and 4 ranks, extrapolated to 8 with
 * --all-to-all. Derived by hand from the 4-rank template, whose ranks the
 * output stretches (output 0 from template 0, 1-3 from 1, 4-5 from 2, 6-7
 * from 3):
 * - template rank 3 receives from 2, 1 and 0, all below it, with tag 1:
 *   one loop over partners, so output rank 6 receives 3 messages (one an
 *   iteration) with tag 1 from each of the 7 others;
 * - template rank 1 sends to 2 and 3 with tag 1 and to 0 with tag 0; a
 *   loop keeps one tag (loops.c), so these form none and are written as
 *   they are: output rank 1 sends to 2, 3 and 0 only;
 * - template rank 0 sends to every rank above it with tag 1, a loop: output
 *   rank 0 sends 3 messages to each of ranks 1 to 7, and no rank receives
 *   more than that from it;
 * so the first flow, by source, whose receives outnumber its sends is rank
 * 1 to rank 6 with tag 1: 3 receives, no send. Written anyway, the trace
 * deadlocks (as meep's did); extrapolate refuses it and writes nothing. */
static void
test_inconsistent_extension_refused (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-directional");
  char *t[3];
  script_series (work, directional_transpose_script, (const guint[]) { 1, 2, 4 }, t);
  g_autofree char *out = g_build_filename (work, "out", NULL);
  const char *args[] = { "extrapolate", t[0], t[1], t[2], "--ranks", "8", "--all-to-all",
                         "-o", out, NULL };
  TsToolResult res = ts_run_tracesim (args);
  assert_int_equal (res.status, 1);
  if (!strstr (res.err, "does not extend to 8 ranks consistently")
      || !strstr (res.err, "rank 6 would wait for 3 more messages from rank 1 with tag 1 than "
                           "rank 1 sends")
      || !strstr (res.err, "would deadlock") || !strstr (res.err, "Nothing was written"))
    fail_msg ("unexpected: %s", res.err);
  assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  assert_false (ts_test_dir_has_prefix (work, "out.tmp"));
  ts_tool_result_clear (&res);
  free_series (3, t);
  ts_test_rmtree (work);
}

/* Master/worker, weak scaling: per iteration the master sends each worker
 * @work bytes of work (MPI_Send, workers in ascending order), each worker
 * computes 0.01 s in region work and returns 100 bytes (MPI_Send), which
 * the master receives in ascending order (MPI_Recv); the master computes
 * 0.001 s per worker in region gather after each receive; 4 iterations.
 * With @single, the master first sends each worker 8 bytes, one MPI_Send
 * at a time between calls of MPI_Comm_rank: no loop over the workers. */
static char *
mw_script (guint p, guint work, gboolean single, gboolean gather_apart)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  double t = 0, back = 0;
  g_string_append_printf (s, "0 0 enter main\n");
  for (guint w = 1; w < p; w++)
    g_string_append_printf (s, "%u 0 enter main\n", w);
  double worker_clock[16] = { 0 };
  for (guint w = 1; single && w < p; w++)
    {
      g_string_append_printf (s, "0 %.9f enter MPI_Send\n0 %.9f send %u bytes=8\n"
                              "0 %.9f leave\n0 %.9f enter MPI_Comm_rank\n0 %.9f leave\n"
                              "%u 0 enter MPI_Recv\n%u %.9f recv 0 bytes=8\n%u %.9f leave\n",
                              t, t, w, t + 1e-5, t + 1e-5, t + 2e-5, w, w, t + 2e-5, w, t + 2e-5);
      worker_clock[w] = t + 2e-5;
      t += 2e-5;
    }
  for (guint it = 0; it < 4; it++)
    {
      for (guint w = 1; w < p; w++, t += 1e-5)
        {
          g_string_append_printf (s, "0 %.9f enter MPI_Send\n0 %.9f send %u bytes=%u\n"
                                  "0 %.9f leave\n", t, t, w, work, t + 1e-5);
          double c = MAX (worker_clock[w], t);
          g_string_append_printf (s, "%u %.9f enter MPI_Recv\n%u %.9f recv 0 bytes=%u\n"
                                  "%u %.9f leave\n%u %.9f enter work\n%u %.9f leave\n"
                                  "%u %.9f enter MPI_Send\n%u %.9f send 0 bytes=100\n"
                                  "%u %.9f leave\n", w, worker_clock[w], w, c + 2e-5, work, w,
                                  c + 2e-5, w, c + 2e-5, w, c + 0.01002, w, c + 0.01002, w,
                                  c + 0.01002, w, c + 0.01003);
          worker_clock[w] = c + 0.01003;
          back = MAX (back, c + 0.01003);
        }
      t = MAX (t, back);
      for (guint w = 1; w < p; w++)
        {
          g_string_append_printf (s, "0 %.9f enter MPI_Recv\n0 %.9f recv %u bytes=100\n"
                                  "0 %.9f leave\n", t, t + 1e-5, w, t + 1e-5);
          t += 1e-5;
          if (!gather_apart)
            g_string_append_printf (s, "0 %.9f enter gather\n0 %.9f leave\n", t, t + 0.001);
          t += gather_apart ? 0 : 0.001;
        }
      for (guint w = 1; gather_apart && w < p; w++, t += 0.001)
        g_string_append_printf (s, "0 %.9f enter gather\n0 %.9f leave\n", t, t + 0.001);
    }
  g_string_append_printf (s, "0 %.9f leave\n", t);
  for (guint w = 1; w < p; w++)
    g_string_append_printf (s, "%u %.9f leave\n", w, MAX (worker_clock[w], t));
  return g_string_free (s, FALSE);
}

static char *
master_worker_script (guint p)
{
  return mw_script (p, 1000, FALSE, FALSE);
}

/* Strong scaling: 1200 bytes of work in all, 1200 / (P - 1) to each. */
static char *
master_worker_strong_script (guint p)
{
  return mw_script (p, p > 1 ? 1200 / (p - 1) : 1200, FALSE, FALSE);
}

static char *
master_worker_single_script (guint p)
{
  return mw_script (p, 1000, TRUE, FALSE);
}

/* The gathers after all the receives, not between them. */
static char *
master_worker_apart_script (guint p)
{
  return mw_script (p, 1000, FALSE, TRUE);
}

/* Master/worker at 2, 3 and 4 ranks to 8 (at 1 rank there is no worker).
 * Derived by hand:
 * - the master (rank 0) has the 7 workers as partners, each worker only
 *   the master;
 * - 4 messages each way per pair: 4000 bytes to each worker, 400 back;
 * - each worker computes 4 x 0.01 = 0.04 s in work; the master 4 x 7 x
 *   0.001 = 0.028 s in gather (its role's mean, 0.001 (P - 1) per
 *   iteration: 0.004, 0.008, 0.012 at 2, 3, 4 ranks per 4 iterations,
 *   which the line -0.004 + 0.004 P fits);
 * - the master sends to workers 1, 2, ..., 7 in order in each iteration;
 * - it replays. */
static void
test_master_worker (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-master-worker");
  g_autoptr (TsScaleProfile) p = extrapolate_from (work, master_worker_script,
                                                   (const guint[]) { 2, 3, 4 },
                                                   TS_BOUNDARIES_UNKNOWN);
  assert_int_equal (p->n_ranks, 8);
  assert_partners (p, 0, 7, (const guint32[]) { 1, 2, 3, 4, 5, 6, 7 });
  for (guint w = 1; w < 8; w++)
    {
      assert_partners (p, w, 1, (const guint32[]) { 0 });
      const TsPeerTraffic *t = &g_array_index (p->traffic[w], TsPeerTraffic, 0);
      assert_int_equal (t->sent, 4);
      assert_int_equal (t->received, 4);
      assert_int_equal (t->bytes_sent, 400);
      assert_int_equal (t->bytes_received, 4000);
    }
  const double *work_s = g_hash_table_lookup (p->compute, "work");
  const double *gather = g_hash_table_lookup (p->compute, "gather");
  assert_non_null (work_s);
  assert_non_null (gather);
  for (guint w = 1; w < 8; w++)
    assert_float_equal (work_s[w], 0.04, 1e-9);
  assert_float_equal (work_s[0], 0, 1e-12);
  assert_float_equal (gather[0], 0.028, 1e-9);
  g_autoptr (GArray) sends = peers_in_order (p, 0, TS_ACTION_SEND);
  assert_int_equal (sends->len, 28);
  assert_peers (sends, 7, (const gint32[]) { 1, 2, 3, 4, 5, 6, 7 });
  assert_replays (work, "np8", "master/worker");
  ts_test_rmtree (work);
}

/* A ring with MPI-4 partitioned communication and a non-blocking
 * collective: each rank creates, once, a partitioned send to each
 * neighbour (r + 1 with tag 1, r - 1 with tag 2) and a receive from each
 * (4096 bytes in 4 partitions; none at 1 rank, its own neighbour); per
 * iteration it computes 0.8 / P s in region work, starts an MPI_Iallreduce
 * of 8 bytes, starts the four partitioned requests, readies the sends' 4
 * partitions, and waits for the four and the allreduce; 3 iterations. */
static char *
partitioned_ring_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  static const char *const kind[] = { "psend", "psend", "precv", "precv" };
  for (guint r = 0; r < p; r++)
    {
      guint peer[] = { (r + 1) % p, (r + p - 1) % p, (r + p - 1) % p, (r + 1) % p };
      guint tag[] = { 1, 2, 1, 2 }, n = p > 1 ? 4 : 0;
      double t = 0.001, c = 0.8 / p;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint q = 0; q < n; q++)
        g_string_append_printf (s, "%u 0 enter MPI_%c%s_init\n%u 0 %s_init %u tag=%u bytes=4096 "
                                "partitions=4 req=%u\n%u 0 leave\n", r, 'P', kind[q] + 1, r,
                                kind[q], peer[q], tag[q], q + 1, r);
      for (guint it = 0; it < 3; it++, t += c + 0.001)
        {
          g_string_append_printf (s, "%u %.9f enter work\n%u %.9f leave\n", r, t, r, t + c);
          double u = t + c;
          g_string_append_printf (s, "%u %.9f enter MPI_Iallreduce\n%u %.9f icoll_request req=9\n"
                                  "%u %.9f leave\n", r, u, r, u, r, u + 1e-5);
          for (guint q = 0; q < n; q++)
            g_string_append_printf (s, "%u %.9f enter MPI_Start\n%u %.9f %s_request req=%u\n"
                                    "%u %.9f leave\n", r, u + 1e-5, r, u + 1e-5, kind[q], q + 1, r,
                                    u + 1e-5);
          for (guint q = 0; q < 2 && n; q++)
            for (guint k = 0; k < 4; k++)
              g_string_append_printf (s, "%u %.9f enter MPI_Pready\n%u %.9f pready %u req=%u\n"
                                      "%u %.9f leave\n", r, u + 2e-5, r, u + 2e-5, k, q + 1, r,
                                      u + 2e-5);
          for (guint q = 0; q < n; q++)
            g_string_append_printf (s, "%u %.9f enter MPI_Wait\n%u %.9f %s_complete req=%u\n"
                                    "%u %.9f leave\n", r, u + (q + 1) * 1e-4, r,
                                    u + (q + 2) * 1e-4, kind[q], q + 1, r, u + (q + 2) * 1e-4);
          g_string_append_printf (s, "%u %.9f enter MPI_Wait\n"
                                  "%u %.9f icoll_complete allreduce sent=8 recv=8 req=9\n"
                                  "%u %.9f leave\n", r, u + 6e-4, r, u + 7e-4, r, u + 7e-4);
        }
      g_string_append_printf (s, "%u %.9f leave\n", r, t);
    }
  return g_string_free (s, FALSE);
}

/* The partitioned ring at 1, 2 and 4 ranks, to 8. Derived by hand:
 * - a ring of 8: rank 0's partners are 1 and 7; every start of a
 *   partitioned send is a message: 3 to each of 4096 bytes (12,288), and 3
 *   received from each;
 * - work takes 3 x 0.8 / 8 = 0.3 s on every rank;
 * - the non-blocking allreduce stays on the world, 3 calls per rank of 8
 *   bytes: 24 calls, 192 bytes;
 * - it replays, the partitioned requests started and completed. */
static void
test_partitioned_and_nonblocking_collectives (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-partitioned");
  g_autoptr (TsScaleProfile) p = extrapolate_series (work, partitioned_ring_script,
                                                     TS_BOUNDARIES_UNKNOWN);
  assert_int_equal (p->n_ranks, 8);
  assert_partners (p, 0, 2, (const guint32[]) { 1, 7 });
  for (guint i = 0; i < 2; i++)
    {
      const TsPeerTraffic *t = &g_array_index (p->traffic[0], TsPeerTraffic, i);
      assert_int_equal (t->sent, 3);
      assert_int_equal (t->bytes_sent, 12288);
      assert_int_equal (t->received, 3);
    }
  const double *w = g_hash_table_lookup (p->compute, "work");
  assert_non_null (w);
  for (guint r = 0; r < 8; r++)
    assert_float_equal (w[r], 0.3, 1e-9);
  assert_int_equal (p->collectives->len, 1);
  const TsCollectiveUse *u = &g_array_index (p->collectives, TsCollectiveUse, 0);
  assert_int_equal (u->op, TS_COLL_ALLREDUCE);
  assert_int_equal (u->calls, 24);
  assert_int_equal (u->bytes_sent, 192);
  assert_replays (work, "np8", "partitioned ring");
  ts_test_rmtree (work);
}

/* Hierarchical collectives: every iteration an MPI_Allreduce of 8 bytes
 * among the two consecutive ranks of each "node" (MPI_Comm_split_type),
 * then one of 16 bytes among the ranks of the same parity (the nodes'
 * leaders and the others, MPI_Comm_split (rank % 2)); 2 iterations, no
 * point-to-point messages. */
static char *
hierarchy_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint b = 0; b < p / 2; b++)
    g_string_append_printf (s, "comm node%u %u %u\n", b, 2 * b, 2 * b + 1);
  for (guint parity = 0; parity < 2; parity++)
    {
      g_string_append_printf (s, "comm parity%u", parity);
      for (guint r = parity; r < p; r += 2)
        g_string_append_printf (s, " %u", r);
      g_string_append (s, "\n");
    }
  for (guint r = 0; r < p; r++)
    {
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint it = 0; it < 2; it++)
        {
          double t = 0.01 + it * 0.01;
          g_string_append_printf (s, "%u %.6f enter MPI_Allreduce\n%u %.6f coll_begin\n"
                                  "%u %.6f coll_end allreduce comm=node%u sent=8 recv=8\n"
                                  "%u %.6f leave\n", r, t, r, t, r, t + 0.001, r / 2, r,
                                  t + 0.001);
          g_string_append_printf (s, "%u %.6f enter MPI_Allreduce\n%u %.6f coll_begin\n"
                                  "%u %.6f coll_end allreduce comm=parity%u sent=16 recv=16\n"
                                  "%u %.6f leave\n", r, t + 0.002, r, t + 0.002, r, t + 0.003,
                                  r % 2, r, t + 0.003);
        }
      g_string_append_printf (s, "%u 0.05 leave\n", r);
    }
  return g_string_free (s, FALSE);
}

/* The hierarchy at 4, 8 and 16 ranks, to 32. Derived by hand: at 4 the
 * node communicators are blocks of 2 consecutive ranks and the parity
 * ones every 2nd rank, as at 8 and 16; at 32 there are 16 blocks ({0, 1},
 * {2, 3}, ...; rank 5's is {4, 5}) with 2 x 2 = 4 allreduce calls of 8
 * bytes each, and 2 parity communicators of 16 ranks ({0, 2, ..., 30} and
 * {1, 3, ..., 31}) with 16 x 2 = 32 calls of 16 bytes; it replays. */
static void
test_hierarchical_communicators (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-hierarchy");
  char *t[3];
  script_series (work, hierarchy_script, (const guint[]) { 4, 8, 16 }, t);
  g_autofree char *out = g_build_filename (work, "np32", NULL);
  TsExtrapolateOptions o = { .ranks = 32, .output_dir = out };
  GError *error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  if (!ts_extrapolate ((const char *const *) t, 3, &o, text, &error))
    fail_msg ("%s", error->message);
  free_series (3, t);
  assert_non_null (strstr (text->str, "allreduce on blocks of 2 consecutive ranks"));
  assert_non_null (strstr (text->str, "allreduce on every 2-th rank"));
  g_autoptr (TsScaleProfile) p = read_output (out);
  guint blocks = 0, strides = 0;
  for (guint i = 0; i < p->collectives->len; i++)
    {
      const TsCollectiveUse *u = &g_array_index (p->collectives, TsCollectiveUse, i);
      guint n = ts_trace_comm_size (p->trace, u->comm);
      const guint32 *members = ts_trace_comm_members (p->trace, u->comm);
      if (n == 2)
        {
          assert_int_equal (members[1], members[0] + 1);
          assert_int_equal (members[0] % 2, 0);
          assert_int_equal (u->calls, 4);
          assert_int_equal (u->bytes_sent, 32);
          blocks++;
        }
      else
        {
          assert_int_equal (n, 16);
          for (guint k = 0; k < n; k++)
            assert_int_equal (members[k], members[0] + 2 * k);
          assert_int_equal (u->calls, 32);
          assert_int_equal (u->bytes_sent, 512);
          strides++;
        }
    }
  assert_int_equal (blocks, 16);
  assert_int_equal (strides, 2);
  assert_replays (work, "np32", "hierarchy");
  ts_test_rmtree (work);
}

/* Communicator classes (extrap/comms.c), derived by hand on a 3x3x3 grid
 * (row-major, rank = 9x + 3y + z): the plane (x, 0, z) through rank 0 is
 * {0, 1, 2, 9, 10, 11, 18, 19, 20}, a sub-grid along dimensions 1 and 3;
 * the line (1, 2, z) is {15, 16, 17}, along dimension 3 (also 3
 * consecutive ranks: the grid wins); without a grid pattern {15, 16, 17}
 * is a block of 3, {1, 4, 7, ..., 25} every 3rd rank, {3, 4, 5, 7} none. */
static void
test_communicator_classes (void **state)
{
  (void) state;
  TsPattern grid = { TS_PATTERN_CARTESIAN, 3, { 3, 3, 3 }, { TRUE, TRUE, TRUE } };
  TsPattern none = { TS_PATTERN_NONE };
  char name[64];
  const guint32 plane[] = { 0, 1, 2, 9, 10, 11, 18, 19, 20 }, line[] = { 15, 16, 17 };
  const guint32 every3rd[] = { 1, 4, 7, 10, 13, 16, 19, 22, 25 }, odd[] = { 3, 4, 5, 7 };
  gint k = ts_extrap_comm_class (&grid, 27, 9, plane);
  assert_int_equal (k, TS_COMM_CLASS_SUBGRID (5));
  assert_string_equal (ts_extrap_class_name (k, name, sizeof name),
                       "grid sub-grids along dimensions 1 3");
  assert_int_equal (ts_extrap_comm_class (&grid, 27, 3, line), TS_COMM_CLASS_SUBGRID (4));
  assert_int_equal (ts_extrap_comm_class (&none, 27, 3, line), TS_COMM_CLASS_BLOCK (3));
  assert_int_equal (ts_extrap_comm_class (&none, 27, 9, every3rd), TS_COMM_CLASS_STRIDE (3));
  assert_int_equal (ts_extrap_comm_class (&none, 27, 4, odd), TS_COMM_OTHER_CLASS);
}

/* Strong-scaling master/worker at 2, 3, 4 ranks to 8: the work messages
 * shrink (1200, 600, 400 bytes), the results do not (100). Whatever the
 * fitted size at 8, a message carries it on both ends: the master sends
 * each worker as many bytes as the worker receives from it, and receives
 * from it as many as it sends (400 in 4 results). */
static void
test_master_worker_sizes_agree (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-mw-strong");
  g_autoptr (TsScaleProfile) p = extrapolate_from (work, master_worker_strong_script,
                                                   (const guint[]) { 2, 3, 4 },
                                                   TS_BOUNDARIES_UNKNOWN);
  for (guint w = 1; w < 8; w++)
    {
      const TsPeerTraffic *m = &g_array_index (p->traffic[0], TsPeerTraffic, w - 1);
      const TsPeerTraffic *k = &g_array_index (p->traffic[w], TsPeerTraffic, 0);
      assert_int_equal (m->peer, w);
      assert_int_equal (m->bytes_sent, k->bytes_received);
      assert_int_equal (k->bytes_sent, m->bytes_received);
      assert_int_equal (k->bytes_sent, 400);
    }
  ts_test_rmtree (work);
}

/* A master that first sends its workers a message each, one call at a
 * time with other calls between (no loop over all of them: 1, 2, 3 calls
 * at 2, 3, 4 ranks): at 8 ranks which workers those calls address cannot
 * be derived; refused, counting the 3 calls of the largest input. */
static void
test_master_single_worker_refused (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-mw-single");
  char *t[3];
  script_series (work, master_worker_single_script, (const guint[]) { 2, 3, 4 }, t);
  assert_refused (work, (const char *[]) { t[0], t[1], t[2] }, 3, "8",
                  "the master makes 3 MPI calls that exchange with some of its workers only");
  free_series (3, t);
  ts_test_rmtree (work);
}

/* A master whose gather (entered once per worker: 4, 8, 12 times at 2, 3,
 * 4 ranks) follows all its receives instead of each: no loop over the
 * workers enters it, so the output would keep 12 gathers at 8 ranks;
 * refused, naming it. */
static void
test_per_partner_region_outside_loops_refused (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-mw-apart");
  char *t[3];
  script_series (work, master_worker_apart_script, (const guint[]) { 2, 3, 4 }, t);
  assert_refused (work, (const char *[]) { t[0], t[1], t[2] }, 3, "8",
                  "gather is entered once per partner at every scale, but in no loop");
  free_series (3, t);
  ts_test_rmtree (work);
}

/* A pairwise exchange: per iteration, for k = 1 .. P - 1, an MPI_Sendrecv
 * with rank r ^ k (sending and receiving 64 bytes); 2 iterations, at 1, 2
 * and 4 ranks, to 6. At 4 ranks the order is XOR's, which 6 ranks do not
 * have: sends go up (r + k) and receives come from down (r - k), so step
 * k of one rank meets step k of its partner and the blocking exchanges
 * replay; each rank has the 5 others as partners, 2 messages each way. */
static char *
xor_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint it = 0; it < 2; it++)
        for (guint k = 1; k < p; k++, t += 1e-4)
          g_string_append_printf (s, "%u %.6f enter MPI_Sendrecv\n%u %.6f send %u bytes=64\n"
                                  "%u %.6f recv %u bytes=64\n%u %.6f leave\n", r, t, r, t, r ^ k,
                                  r, t + 5e-5, r ^ k, r, t + 5e-5);
      g_string_append_printf (s, "%u %.6f leave\n", r, t + 1e-3);
    }
  return g_string_free (s, FALSE);
}

static void
test_xor_order_at_no_power_of_two (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-xor");
  char *t[3];
  script_series (work, xor_script, (const guint[]) { 1, 2, 4 }, t);
  g_autofree char *out = g_build_filename (work, "np6", NULL);
  TsExtrapolateOptions o = { .ranks = 6, .output_dir = out };
  GError *error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  if (!ts_extrapolate ((const char *const *) t, 3, &o, text, &error))
    fail_msg ("%s", error->message);
  free_series (3, t);
  assert_non_null (strstr (text->str, "in XOR order, which 6 ranks"));
  g_autoptr (TsScaleProfile) p = read_output (out);
  for (guint r = 0; r < 6; r++)
    {
      assert_int_equal (p->partners[r]->len, 5);
      for (guint i = 0; i < 5; i++)
        assert_int_equal (g_array_index (p->traffic[r], TsPeerTraffic, i).sent, 2);
    }
  assert_replays (work, "np6", "pairwise exchange");
  ts_test_rmtree (work);
}

/* Collectives on the nodes' leaders only (ranks 0, 2, 4, ... of a 2-rank
 * node, the others outside it, as MPI_Comm_split with MPI_UNDEFINED
 * leaves them): at P the ranks that call it cannot be derived; refused. */
static char *
leaders_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\ncomm leaders", p);
  for (guint r = 0; r < p; r += 2)
    g_string_append_printf (s, " %u", r);
  g_string_append (s, "\n");
  for (guint r = 0; r < p; r++)
    {
      g_string_append_printf (s, "%u 0 enter main\n", r);
      if (r % 2 == 0)
        g_string_append_printf (s, "%u 0.01 enter MPI_Allreduce\n%u 0.01 coll_begin\n"
                                "%u 0.011 coll_end allreduce comm=leaders sent=8 recv=8\n"
                                "%u 0.011 leave\n", r, r, r, r);
      g_string_append_printf (s, "%u 0.05 leave\n", r);
    }
  return g_string_free (s, FALSE);
}

static void
test_leaders_only_refused (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-leaders");
  char *t[3];
  script_series (work, leaders_script, (const guint[]) { 6, 8, 10 }, t);
  assert_refused (work, (const char *[]) { t[0], t[1], t[2] }, 3, "16",
                  "allreduce on every 2-th rank, but not every rank is in such a communicator");
  free_series (3, t);
  ts_test_rmtree (work);
}

/* The ring of serial_script, amdahl_script and unreceived_script (with
 * @unreceived): 5 iterations of @burst
 * seconds of compute, each followed (at 2 ranks or more) by an
 * MPI_Sendrecv of 100 bytes down and one up. */
static char *
ring_script (guint p, double burst, gboolean unreceived)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint it = 0; it < 5; it++)
        {
          t += burst;
          if (p == 1)
            continue;
          for (guint up = 0; up < 2; up++)
            {
              guint to = up ? (r + 1) % p : (r + p - 1) % p;
              guint from = up ? (r + p - 1) % p : (r + 1) % p;
              g_string_append_printf (s, "%u %.6f enter MPI_Sendrecv\n%u %.6f send %u bytes=100\n"
                                      "%u %.6f recv %u bytes=100\n%u %.6f leave\n",
                                      r, t, r, t, to, r, t + 1e-4, from, r, t + 1e-4);
              t += 1e-4;
            }
        }
      if (unreceived && p > 1)
        {
          g_string_append_printf (s, "%u %.6f enter MPI_Send\n%u %.6f send %u tag=5 bytes=8\n"
                                  "%u %.6f leave\n", r, t, r, t, (r + 1) % p, r, t + 1e-5);
          t += 1e-5;
        }
      g_string_append_printf (s, "%u %.6f leave\n", r, t);
    }
  return g_string_free (s, FALSE);
}

static char *
serial_script (guint p)
{
  return ring_script (p, p == 1 ? 0.06 : 0.1, FALSE);
}

/* A serial input is another regime: a ring that exchanges with both
 * neighbours at 2 ranks and more (MPI_Sendrecv of 100 bytes down, then up,
 * 5 times) and nothing at 1, whose compute per rank is 0.5 s at 2 and 4
 * ranks (0.1 s before each of the 5 pairs of exchanges: halo work
 * included) and 0.3 s at 1 (no halo to pack). No law fits all three
 * within 5% cross-validated (leave the 1-rank point out, and the constant
 * 0.5 s misses its 0.3 s by 67%), so the 1-rank input is left out of the
 * compute fits, the two remaining scales agree and the constant 0.5 s is
 * every rank's compute at 8, as --explain says; fitted with the 1-rank
 * input, three points from two regimes would not give 0.5. */
static void
test_serial_input_left_out (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-serial");
  char *t[3];
  script_series (work, serial_script, (const guint[]) { 1, 2, 4 }, t);
  g_autofree char *out = g_build_filename (work, "np8", NULL);
  TsExtrapolateOptions o = { .ranks = 8, .output_dir = out,
                             .boundaries = TS_BOUNDARIES_PERIODIC };
  GError *error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  if (!ts_extrapolate ((const char *const *) t, 3, &o, text, &error))
    fail_msg ("%s", error->message);
  free_series (3, t);
  /* ...and the compute models come from the two scales left: a warning. */
  if (!strstr (text->str, "left out of the fits: the input at 1 rank, which exchanges no "
                          "message where the larger ones do")
      || !strstr (text->str, "warning: the compute models come from two scales (2 and 4 ranks"))
    fail_msg ("%s", text->str);
  g_autoptr (TsScaleProfile) p = read_output (out);
  const double *compute = g_hash_table_lookup (p->compute, "main");
  assert_non_null (compute);
  for (guint r = 0; r < 8; r++)
    assert_float_equal (compute[r], 0.5, 1e-6);
  ts_test_rmtree (work);
}

/* Compute that follows one law at every scale, the serial run's included:
 * 0.1 + 0.4 / P seconds per rank (a serial part and a shared one), on the
 * ring above at 1, 2 and 4 ranks: 0.5, 0.3 and 0.2 s. That law fits all
 * three inputs exactly (cross-validated error 0, within 5%), so the 1-rank
 * input is kept, and every rank computes 0.1 + 0.4 / 8 = 0.15 s at 8.
 * Left out, the two others would give a single power of P through them,
 * 0.2 x (2 / 3) = 0.1333 s. */
static char *
amdahl_script (guint p)
{
  return ring_script (p, (0.1 + 0.4 / p) / 5, FALSE);
}

/* The ring at 0.01 s a burst, its ranks each ending with 8 bytes of tag 5
 * sent to the right neighbour that no receive takes (a program that ends
 * with messages in flight). */
static char *
unreceived_script (guint p)
{
  return ring_script (p, 0.01, TRUE);
}

static void
test_serial_input_kept (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-amdahl");
  g_autoptr (TsScaleProfile) p = extrapolate_series (work, amdahl_script,
                                                     TS_BOUNDARIES_PERIODIC);
  const double *compute = g_hash_table_lookup (p->compute, "main");
  assert_non_null (compute);
  for (guint r = 0; r < 8; r++)
    assert_float_equal (compute[r], 0.15, 1e-6);
  ts_test_rmtree (work);
}

/* The ring at 0.01 s a burst. */
static char *
plain_ring_script (guint p)
{
  return ring_script (p, 0.01, FALSE);
}

/* Ensure that what limits the models as a whole is said: the ring at 1, 2
 * and 4 ranks extrapolated to 32 has 3 input scales, under the 5 Extra-P
 * advises, and 32 is 8x the largest input, beyond 4x: two warnings, on
 * stderr, in model.txt and in model.json's "warnings"; -q prints neither.
 * To 16 (4x, not beyond) only the first. */
static void
test_warnings (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-warnings");
  char *t[3];
  script_series (work, plain_ring_script, (const guint[]) { 1, 2, 4 }, t);
  g_autofree char *out = g_build_filename (work, "np32", NULL);
  const char *args[] = { "extrapolate", t[0], t[1], t[2], "--ranks", "32", "-o", out, NULL };
  TsToolResult res = ts_run_tracesim (args);
  assert_int_equal (res.status, 0);
  if (!strstr (res.err, "warning: 3 input scales: Extra-P advises 5 or more")
      || !strstr (res.err, "warning: 32 ranks is 8x the largest input (4 ranks), beyond the 4x"))
    fail_msg ("stderr: %s", res.err);
  ts_tool_result_clear (&res);
  g_autofree char *txt_path = g_build_filename (out, "model.txt", NULL);
  g_autofree char *json_path = g_build_filename (out, "model.json", NULL);
  g_autofree char *txt = NULL, *json = NULL;
  assert_true (g_file_get_contents (txt_path, &txt, NULL, NULL));
  assert_true (g_file_get_contents (json_path, &json, NULL, NULL));
  assert_non_null (strstr (txt, "warning: 32 ranks is 8x the largest input"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  JsonArray *w = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                               "warnings");
  assert_int_equal (json_array_get_length (w), 2);

  g_autofree char *out16 = g_build_filename (work, "np16", NULL);
  const char *quiet[] = { "extrapolate", t[0], t[1], t[2], "--ranks", "16", "-o", out16, "-q",
                          NULL };
  res = ts_run_tracesim (quiet);
  assert_int_equal (res.status, 0);
  assert_string_equal (res.err, "");
  ts_tool_result_clear (&res);
  g_autofree char *txt16_path = g_build_filename (out16, "model.txt", NULL);
  g_autofree char *txt16 = NULL;
  assert_true (g_file_get_contents (txt16_path, &txt16, NULL, NULL));
  assert_non_null (strstr (txt16, "warning: 3 input scales"));
  assert_null (strstr (txt16, "the largest input (4 ranks), beyond"));
  free_series (3, t);
  ts_test_rmtree (work);
}

/* Traces at @n rank counts @ranks, rank count i computing @per_rank[i]
 * seconds on every rank (the ring, 5 bursts), into @work/np<P><suffix[i]>;
 * @traces gets the anchors. */
static void
ring_series (const char *work, guint n, const guint *ranks, const double *per_rank,
             const char *const *suffix, char **traces)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("np%u%s", ranks[i], suffix ? suffix[i] : "");
      g_autofree char *dir = g_build_filename (work, name, NULL);
      g_autofree char *text = ring_script (ranks[i], per_rank[i] / 5, FALSE);
      g_mkdir_with_parents (dir, 0755);
      traces[i] = ts_test_generate_text (dir, text);
    }
}

/* Repetitions at one rank count are averaged, and how far apart they are
 * is said. The ring computing 0.1 + 0.4 / P s per rank (Amdahl's law, as
 * test_serial_input_kept) at 1 and 2 ranks, and twice at 4: 0.2 x 0.9 =
 * 0.18 s and 0.2 x 1.1 = 0.22 s, whose mean 0.2 is the law's. Derived by
 * hand: the law fits 0.5, 0.3 and 0.2 exactly, so every rank computes
 * 0.1 + 0.4 / 8 = 0.15 s at 8 (from the 4-rank trace alone, 0.22 s, the
 * best law would not be this one); the explanation gives both 4-rank
 * traces' compute per rank and their range, (0.22 - 0.18) / 0.2 = 20%;
 * three scales, not four, count for the warning. The same trace given
 * twice, and traces at a single rank count, are refused. */
static void
test_repetitions (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-repetitions");
  char *t[4];
  ring_series (work, 4, (const guint[]) { 1, 2, 4, 4 }, (const double[]) { 0.5, 0.3, 0.18, 0.22 },
               (const char *const[]) { "", "", "a", "b" }, t);
  g_autofree char *out = g_build_filename (work, "np8", NULL);
  TsExtrapolateOptions o = { .ranks = 8, .output_dir = out };
  GError *error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  /* Given in another order: the template is the last by path, np4b. */
  const char *order[] = { t[3], t[0], t[2], t[1] };
  if (!ts_extrapolate (order, 4, &o, text, &error))
    fail_msg ("%s", error->message);
  if (!strstr (text->str, "repetitions at 4 ranks (averaged): compute per rank 0.18 s, 0.22 s, "
                          "20.0% of their mean apart")
      || !strstr (text->str, "repetitions averaged; the widest apart: 20.0% of their mean, at 4 "
                             "ranks")
      || !strstr (text->str, "warning: 3 input scales"))
    fail_msg ("%s", text->str);
  g_autoptr (TsScaleProfile) p = read_output (out);
  const double *compute = g_hash_table_lookup (p->compute, "main");
  assert_non_null (compute);
  for (guint r = 0; r < 8; r++)
    assert_float_equal (compute[r], 0.15, 1e-6);

  const char *twice[] = { t[0], t[2], t[2] };
  assert_false (ts_extrapolate (twice, 3, &o, NULL, &error));
  assert_non_null (strstr (error->message, "is given twice"));
  g_clear_error (&error);
  const char *one_count[] = { t[2], t[3] };
  assert_false (ts_extrapolate (one_count, 2, &o, NULL, &error));
  assert_non_null (strstr (error->message, "the 2 traces all have 4 ranks"));
  g_clear_error (&error);
  free_series (4, t);
  ts_test_rmtree (work);
}

/* The scaling is stated: recognised, or given and checked. The ring at 1,
 * 2 and 4 ranks with (a) 0.05 s per rank at every P: per rank 0% apart,
 * summed 0.05, 0.1 and 0.2 s (0.15 / 0.1167 = 129% apart), weak; (b) 0.4 / P s per rank: summed 0.4 s at
 * every P, strong; (c) 0.1 + 0.4 / P: summed 0.5, 0.6 and 0.8 s ((0.8 -
 * 0.5) / 0.633 = 47% apart) and per rank 0.5, 0.3 and 0.2 s (90%), both
 * beyond 20%: neither. --scaling weak on (b) gives a warning, and is kept
 * in model.json's "scaling" beside what was recognised. */
static void
test_scaling_stated (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-scaling");
  const guint ranks[] = { 1, 2, 4 };
  const double per[3][3] = { { 0.05, 0.05, 0.05 }, { 0.4, 0.2, 0.1 }, { 0.5, 0.3, 0.2 } };
  const char *const said[] = { "scaling: weak, recognised (from 1 to 4 ranks, the compute summed "
                               "over ranks goes from 0.05 to 0.2 s (129% apart) and per rank "
                               "from 0.05 to 0.05 s (0% apart)",
                               "scaling: strong, not as given (",
                               "scaling: neither strong nor weak, recognised (" };
  for (guint c = 0; c < 3; c++)
    {
      g_autofree char *sub = g_strdup_printf ("%s/case%u", work, c);
      char *t[3];
      ring_series (sub, 3, ranks, per[c], NULL, t);
      g_autofree char *out = g_build_filename (sub, "np8", NULL);
      TsExtrapolateOptions o = { .ranks = 8, .output_dir = out,
                                 .scaling = c == 1 ? TS_SCALING_WEAK : TS_SCALING_UNKNOWN };
      GError *error = NULL;
      g_autoptr (GString) text = g_string_new (NULL);
      if (!ts_extrapolate ((const char *const *) t, 3, &o, text, &error))
        fail_msg ("%s", error->message);
      if (!strstr (text->str, said[c]))
        fail_msg ("case %u: %s", c, text->str);
      gboolean warned = strstr (text->str, "warning: weak scaling was given, but the inputs do "
                                           "not show it") != NULL;
      assert_int_equal (warned, c == 1);
      if (c == 1)
        {
          g_autofree char *json_path = g_build_filename (out, "model.json", NULL);
          g_autoptr (JsonParser) parser = json_parser_new ();
          assert_true (json_parser_load_from_file (parser, json_path, NULL));
          JsonObject *sc = json_object_get_object_member (
            json_node_get_object (json_parser_get_root (parser)), "scaling");
          assert_string_equal (json_object_get_string_member (sc, "recognised"), "strong");
          assert_string_equal (json_object_get_string_member (sc, "given"), "weak");
        }
      free_series (3, t);
    }
  ts_test_rmtree (work);
}

/* A transposing code (NPB FT's shape): 4 iterations of 0.1 / P s of
 * compute per rank, each followed by an MPI_Alltoall of 8192 / P bytes
 * from each rank, which the serial run does not call (nothing to
 * transpose between processes). */
static char *
serial_skip_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint it = 0; it < 4; it++)
        {
          t += 0.1 / p;
          if (p > 1)
            g_string_append_printf (s, "%u %.6f enter MPI_Alltoall\n%u %.6f coll_begin\n"
                                    "%u %.6f coll_end alltoall sent=%u recv=%u\n%u %.6f leave\n",
                                    r, t, r, t, r, t + 1e-4, 8192 / p, 8192 / p, r, t + 1e-4);
          t += p > 1 ? 1e-4 : 0;
        }
      g_string_append_printf (s, "%u %.6f leave\n", r, t);
    }
  return g_string_free (s, FALSE);
}

/* The serial input that only skips a collective is left out, and said.
 * serial_skip_script at 1, 2 and 4 ranks to 8: MPI_Alltoall is entered 0
 * times at 1 rank and 4 times at 2 and 4, so with the 1-rank input the
 * traces do not align; without it they do, two scales remain, and the
 * warnings say which input was left out and that two scales remain.
 * Derived by hand from 2 and 4 ranks: every rank of 8 calls MPI_Alltoall 4
 * times with 8192 / 8 = 1024 bytes (the power of P through 4096 and 2048)
 * and computes 4 x 0.1 / 8 = 0.05 s (through 0.2 and 0.1 s). Where the
 * serial run enters something the others do not, it is refused as before. */
static void
test_serial_input_skipping_a_collective (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-serial-skip");
  char *t[3];
  script_series (work, serial_skip_script, (const guint[]) { 1, 2, 4 }, t);
  g_autofree char *out = g_build_filename (work, "np8", NULL);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  TsExtrapolateOptions o = { .ranks = 8, .output_dir = out, .warnings = warnings };
  GError *error = NULL;
  if (!ts_extrapolate ((const char *const *) t, 3, &o, NULL, &error))
    fail_msg ("%s", error->message);
  assert_int_equal (warnings->len, 2);
  assert_non_null (strstr (warnings->pdata[0], "left out: "));
  assert_non_null (strstr (warnings->pdata[0], "np1/"));
  assert_non_null (strstr (warnings->pdata[0], ", at 1 rank, which never enters"));
  assert_non_null (strstr (warnings->pdata[1], "two input scales"));
  g_autoptr (TsScaleProfile) p = read_output (out);
  assert_int_equal (p->n_ranks, 8);
  const double *compute = g_hash_table_lookup (p->compute, "main");
  assert_non_null (compute);
  for (guint r = 0; r < 8; r++)
    assert_float_equal (compute[r], 0.05, 1e-6);
  assert_int_equal (p->collectives->len, 1);
  const TsCollectiveUse *u = &g_array_index (p->collectives, TsCollectiveUse, 0);
  assert_int_equal (u->op, TS_COLL_ALLTOALL);
  assert_int_equal (u->calls, 4 * 8);
  assert_int_equal (u->bytes_sent, 4 * 8 * 1024);
  free_series (3, t);
  ts_test_rmtree (work);
}

/* Interiors that no input shows, joined from the ends' halves: the open
 * 2-D face grid (ts-tracegen grid --open: weak, 4096-byte messages, tags
 * by direction, 10 iterations) at 1, 2 and 4 (2x2: every rank at two
 * ends) ranks to 9 (3x3). Derived by hand: rank 4 at (1, 1), inside along
 * both dimensions, is written from template rank 3 at (1, 1) of 2x2, which
 * exchanges with 1 and 2 (its lower neighbours); its upper ones are the
 * mirror images: partners 1, 3, 5, 7, 10 messages of 4096 bytes to each
 * and from each; rank 1 at (0, 1), inside along dimension 2 only, has 0,
 * 2 and 4. The tags of the mirrored messages are those of their
 * direction (sent up along dimension 2: 3; received from above: 2), so
 * the output pairs up and replays. */
static void
test_interior_from_ends (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-interior");
  TsGridParams base;
  ts_grid_params_init (&base);
  base.open = TRUE;
  base.allreduce_every = 0;
  g_autoptr (TsScaleProfile) p
    = grid_extrapolated (work, &base, (const guint[]) { 1, 2, 4 }, 9,
                         (TsExtrapolateOptions) { .boundaries = TS_BOUNDARIES_OPEN }, NULL);

  assert_partners (p, 4, 4, (const guint32[]) { 1, 3, 5, 7 });
  assert_partners (p, 1, 3, (const guint32[]) { 0, 2, 4 });
  const guint up[] = { 1, 3, 5, 7 };
  for (guint i = 0; i < 4; i++)
    {
      const TsPeerTraffic *x = traffic_with (p, 4, up[i]);
      assert_int_equal (x->sent, 10);
      assert_int_equal (x->received, 10);
      assert_int_equal (x->bytes_sent, 40960);
    }
  assert_replays (work, "np9", "grid with interiors joined from its ends");
  ts_test_rmtree (work);
}

/* A line whose ranks send up only (rank r to r + 1, 5 messages of 64
 * bytes, tag 7): an interior rank receives from below and sends above,
 * which no mirror image of an end gives. From 1 and 2 ranks to 4 (open):
 * rank 1 is written from the high end, which only receives from below,
 * and its mirrored receive from rank 2 has no send. Received with
 * MPI_Irecv and MPI_Wait, the balance check refuses it, saying why; with
 * a blocking MPI_Recv it is refused before that, as any mirrored blocking
 * receive is (a shift of two MPI_Sendrecv calls would deadlock). */
static char *
one_way_text (guint p, gboolean blocking)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      g_string_append_printf (s, "%u 0 enter main\n", r);
      double t = 0.001;
      for (guint it = 0; it < 5; it++, t += 0.001)
        {
          if (r + 1 < p)
            g_string_append_printf (s, "%u %.6f enter MPI_Send\n%u %.6f send %u tag=7 bytes=64\n"
                                    "%u %.6f leave\n", r, t, r, t, r + 1, r, t + 1e-5);
          if (r > 0 && blocking)
            g_string_append_printf (s, "%u %.6f enter MPI_Recv\n%u %.6f recv %u tag=7 bytes=64\n"
                                    "%u %.6f leave\n", r, t + 2e-5, r, t + 3e-4, r - 1, r, t + 3e-4);
          else if (r > 0)
            g_string_append_printf (s, "%u %.6f enter MPI_Irecv\n%u %.6f irecv_request req=%u\n"
                                    "%u %.6f leave\n%u %.6f enter MPI_Wait\n"
                                    "%u %.6f irecv %u tag=7 bytes=64 req=%u\n%u %.6f leave\n",
                                    r, t + 2e-5, r, t + 2e-5, it, r, t + 3e-5, r, t + 3e-5, r,
                                    t + 3e-4, r - 1, it, r, t + 3e-4);
        }
      g_string_append_printf (s, "%u %.6f leave\n", r, t);
    }
  return g_string_free (s, FALSE);
}

static void
test_one_way_interior_refused (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-one-way");
  const char *expected[2][2] = {
    { "written as the ends' exchanges joined, the one end's mirrored",
      "not for one that sends one way (a wavefront)" },
    { "rank 1 of 4 is inside an open dimension that no input shows",
      "receive in blocking calls (MPI_Recv, MPI_Sendrecv), which a mirror may deadlock" },
  };
  for (guint blocking = 0; blocking < 2; blocking++)
    {
      char *t[2];
      for (guint i = 0; i < 2; i++)
        {
          g_autofree char *name = g_strdup_printf ("b%u-np%u", blocking, i + 1);
          g_autofree char *dir = g_build_filename (work, name, NULL);
          g_autofree char *text = one_way_text (i + 1, blocking);
          g_mkdir_with_parents (dir, 0755);
          t[i] = ts_test_generate_text (dir, text);
        }
      g_autofree char *out = g_build_filename (work, "np4", NULL);
      TsExtrapolateOptions o = { .ranks = 4, .output_dir = out,
                                 .boundaries = TS_BOUNDARIES_OPEN };
      GError *error = NULL;
      assert_false (ts_extrapolate ((const char *const *) t, 2, &o, NULL, &error));
      if (!strstr (error->message, expected[blocking][0])
          || !strstr (error->message, expected[blocking][1]))
        fail_msg ("%s", error->message);
      g_clear_error (&error);
      assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
      free_series (2, t);
    }
  ts_test_rmtree (work);
}

/* Recursive doubling (an allreduce by hand: rank r exchanges 8 bytes with
 * r XOR 1, r XOR 2, ..., r XOR P/2, one MPI_Sendrecv each, 0.001 s after
 * main begins and then every 0.001 s; each takes 0.0001 s). */
static char *
doubling_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0.001;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint bit = 1; bit < p; bit <<= 1, t += 0.001)
        g_string_append_printf (s, "%u %.6f enter MPI_Sendrecv\n%u %.6f send %u bytes=8\n"
                                "%u %.6f recv %u bytes=8\n%u %.6f leave\n", r, t, r, t, r ^ bit,
                                r, t + 1e-4, r ^ bit, r, t + 1e-4);
      g_string_append_printf (s, "%u %.6f leave\n", r, t);
    }
  return g_string_free (s, FALSE);
}

/* doubling_script at 4, 8 and 16 ranks (at 4 and 8 a periodic grid of 2s
 * as well, at 16 no grid) to 32. Derived by hand: one row of 32, rank r's
 * partners r XOR 1, 2, 4, 8, 16, one 8-byte message each way with each
 * (the fifth step added after the fourth: the loop goes up); main's
 * compute per rank 0.001 s before the first step and 0.0009 s after each,
 * 0.001 + 0.0009 log2 P: 0.0028, 0.0037, 0.0046 s at 4, 8, 16, 0.0055 s
 * at 32 (the added step's 0.0009 s inside it, not on top). The output
 * replays. At 24 ranks, no power of two: refused, naming the family. */
static void
test_recursive_doubling (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-doubling");
  char *t[3];
  script_series (work, doubling_script, (const guint[]) { 4, 8, 16 }, t);
  assert_refused (work, (const char *const *) t, 3, "24",
                  "recursive doubling over 16 ranks (rank XOR 2^k)|needs a power of two ranks");
  free_series (3, t);
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (TsScaleProfile) p
    = script_extrapolated (work, doubling_script, (const guint[]) { 4, 8, 16 }, 32,
                           (TsExtrapolateOptions) { 0 }, text);
  assert_non_null (strstr (text->str, "recursive doubling over 32 ranks (rank XOR 2^k) at 32 "
                                      "ranks"));
  assert_int_equal (p->n_ranks, 32);
  const double *compute = g_hash_table_lookup (p->compute, "main");
  assert_non_null (compute);
  for (guint r = 0; r < 32; r++)
    {
      guint32 want[5];
      for (guint k = 0; k < 5; k++)
        want[k] = r ^ (1u << k);
      qsort (want, 5, sizeof *want, compare_u32);
      assert_partners (p, r, 5, want);
      for (guint k = 0; k < 5; k++)
        {
          const TsPeerTraffic *x = traffic_with (p, r, want[k]);
          assert_int_equal (x->sent, 1);
          assert_int_equal (x->received, 1);
          assert_int_equal (x->bytes_sent, 8);
        }
      assert_float_equal (compute[r], 0.0055, 1e-9);
    }
  assert_replays (work, "np32", "recursive doubling");

  /* At 2, 4 and 8 ranks a periodic grid of 2s describes it too, and is
   * taken first: refused (no boundary settled), naming the other reading;
   * --recursive-doubling takes it: rank 5 of 16 with 4, 7, 1, 13. */
  g_autofree char *small = g_build_filename (work, "small", NULL);
  script_series (small, doubling_script, (const guint[]) { 2, 4, 8 }, t);
  assert_refused (small, (const char *const *) t, 3, "16",
                  "read as a grid; the inputs fit recursive doubling over 8 ranks (rank XOR 2^k) "
                  "too: --recursive-doubling reads them so");
  free_series (3, t);
  g_autoptr (TsScaleProfile) q
    = script_extrapolated (small, doubling_script, (const guint[]) { 2, 4, 8 }, 16,
                           (TsExtrapolateOptions) { .recursive_doubling = TRUE }, NULL);
  assert_partners (q, 5, 4, (const guint32[]) { 1, 4, 7, 13 });
  ts_test_rmtree (work);
}

/* Recursive doubling in blocking calls: for each bit, the rank whose bit
 * is 0 sends 8 bytes to r XOR bit (MPI_Send) and then receives (MPI_Recv),
 * the other the other way round; 0.001 s of compute before each step. */
static char *
blocking_doubling_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0.001;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint bit = 1; bit < p; bit <<= 1, t += 0.001)
        for (guint k = 0; k < 2; k++)
          {
            gboolean sends = (k == 0) == !(r & bit);
            double at = t + k * 1e-4;
            g_string_append_printf (s, "%u %.6f enter %s\n%u %.6f %s %u bytes=8\n%u %.6f leave\n",
                                    r, at, sends ? "MPI_Send" : "MPI_Recv", r, at,
                                    sends ? "send" : "recv", r ^ bit, r, at + 5e-5);
          }
      g_string_append_printf (s, "%u %.6f leave\n", r, t);
    }
  return g_string_free (s, FALSE);
}

/* Every bit's receive posted at once (MPI_Irecv), then every send
 * (MPI_Isend), then one MPI_Wait each: no step is complete before the
 * next begins. */
static char *
posted_at_once_script (guint p)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0.001;
      guint req = 0;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint bit = 1; bit < p; bit <<= 1, t += 1e-4, req++)
        g_string_append_printf (s, "%u %.6f enter MPI_Irecv\n%u %.6f irecv_request req=%u\n"
                                "%u %.6f leave\n", r, t, r, t, req, r, t + 1e-5);
      for (guint bit = 1; bit < p; bit <<= 1, t += 1e-4, req++)
        g_string_append_printf (s, "%u %.6f enter MPI_Isend\n%u %.6f isend %u bytes=8 req=%u\n"
                                "%u %.6f leave\n", r, t, r, t, r ^ bit, req, r, t + 1e-5);
      req = 0;
      for (guint bit = 1; bit < p; bit <<= 1, t += 1e-4, req++)
        g_string_append_printf (s, "%u %.6f enter MPI_Wait\n%u %.6f irecv %u bytes=8 req=%u\n"
                                "%u %.6f leave\n", r, t, r, t, r ^ bit, req, r, t + 1e-5);
      for (guint bit = 1; bit < p; bit <<= 1, t += 1e-4, req++)
        g_string_append_printf (s, "%u %.6f enter MPI_Wait\n%u %.6f isend_complete req=%u\n"
                                "%u %.6f leave\n", r, t, r, t, req, r, t + 1e-5);
      g_string_append_printf (s, "%u %.6f leave\n", r, t);
    }
  return g_string_free (s, FALSE);
}

/* A step of blocking calls is the send and the receive together (the
 * rank that sends first receives after): from 4, 8 and 16 ranks to 32,
 * rank r has r XOR 1, ..., 16, one message each way with each, and the
 * output replays (a step cut between its send and its receive would give
 * the fifth bit's sends to both ranks of a pair first). Receives posted
 * for every bit at once, then the sends, then the waits, are no loop of
 * steps: refused, naming the step that ended with requests outstanding. */
static void
test_doubling_steps_told (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-doubling-steps");
  g_autoptr (TsScaleProfile) p
    = script_extrapolated (work, blocking_doubling_script, (const guint[]) { 4, 8, 16 }, 32,
                           (TsExtrapolateOptions) { 0 }, NULL);
  for (guint k = 0; k < 5; k++)
    {
      const TsPeerTraffic *x = traffic_with (p, 6, 6 ^ (1u << k));
      assert_int_equal (x->sent, 1);
      assert_int_equal (x->received, 1);
    }
  assert_replays (work, "np32", "blocking recursive doubling");
  g_autofree char *at_once = g_build_filename (work, "at-once", NULL);
  char *t[3];
  script_series (at_once, posted_at_once_script, (const guint[]) { 4, 8, 16 }, t);
  assert_refused (at_once, (const char *const *) t, 3, "32",
                  "are in no loop over the 4 doubling steps|ended with requests of its own "
                  "outstanding");
  free_series (3, t);
  ts_test_rmtree (work);
}

/* NPB CG's communication: R x C ranks (C = 2^ceil(n/2) at P = 2^n, numbered
 * row by row), in each of 2 iterations 0.002 s of spmv, then a row sum by
 * recursive doubling going up (Irecv, Send, Wait with column XOR 1, 2,
 * ...; tag 1), the swap with the transpose partner (tag 2; CG's exch_proc,
 * maybe the rank itself), then a second sum going down (XOR C/2, ..., 1;
 * tag 3). Every message 8 x 4096 / C bytes: a piece of the column block. */
static char *
cg_script (guint p)
{
  TsPattern t = { TS_PATTERN_BUTTERFLY, 2, .transpose = TRUE };
  TsPattern at = ts_pattern_at (&t, p);
  guint cols = at.dims[1], bytes = 8 * 4096 / cols;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t0 = 0;
      guint req = 0, row = r / cols, col = r % cols;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint it = 0; it < 2; it++)
        {
          g_string_append_printf (s, "%u %.6f enter spmv\n%u %.6f leave\n", r, t0 + 1e-5, r,
                                  t0 + 0.00201);
          t0 += 0.00202;
          guint peers[16], tags[16], n = 0;
          for (guint bit = 1; bit < cols; bit <<= 1, n++)
            peers[n] = row * cols + (col ^ bit), tags[n] = 1;
          peers[n] = ts_pattern_transpose_partner (&at, r), tags[n++] = 2;
          for (guint bit = cols / 2; bit >= 1; bit >>= 1, n++)
            peers[n] = row * cols + (col ^ bit), tags[n] = 3;
          for (guint k = 0; k < n; k++, req++, t0 += 0.0001)
            g_string_append_printf (s, "%u %.6f enter MPI_Irecv\n%u %.6f irecv_request req=%u\n"
                                    "%u %.6f leave\n%u %.6f enter MPI_Send\n"
                                    "%u %.6f send %u tag=%u bytes=%u\n%u %.6f leave\n"
                                    "%u %.6f enter MPI_Wait\n"
                                    "%u %.6f irecv %u tag=%u bytes=%u req=%u\n%u %.6f leave\n",
                                    r, t0 + 1e-5, r, t0 + 1e-5, req, r, t0 + 2e-5, r, t0 + 3e-5,
                                    r, t0 + 3e-5, peers[k], tags[k], bytes, r, t0 + 4e-5, r,
                                    t0 + 5e-5, r, t0 + 6e-5, peers[k], tags[k], bytes, req, r,
                                    t0 + 6e-5);
        }
      g_string_append_printf (s, "%u %.6f leave\n", r, t0 + 1e-5);
    }
  return g_string_free (s, FALSE);
}

/* cg_script at 2 (1x2: the transpose partner is the rank itself), 4 (2x2)
 * and 8 ranks (2x4) to 32 (4x8), where the rows take 3 doubling steps, one
 * more than at 8. Derived by hand: rank 5 (row 0, column 5) has the row
 * partners 4, 7 and 1 (XOR 1, 2, 4) and the transpose partner 17 (blocks
 * of b = C / R = 2 columns: column 5 is block 2, place 1; (2 x 4 + 0) x 2
 * + 1); 2 messages each way with each row partner an iteration pair (one
 * a sum), 4 in all, and 2 with 17; every message 8 x 4096 / 8 = 4096
 * bytes. Rank 10 (row 1, column 2: block 1, place 0) is its own
 * transpose partner ((1 x 4 + 1) x 2 + 0 = 10): its partners 11, 8, 14
 * (column 2 XOR 1, 2, 4), 4 messages with each (its 2 to itself are no
 * partner's, and not counted). spmv
 * 0.004 s on every rank. The output replays. */
static void
test_cg_rows_and_transpose (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-cg");
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (TsScaleProfile) p = script_extrapolated (work, cg_script, (const guint[]) { 2, 4, 8 },
                                                      32, (TsExtrapolateOptions) { 0 }, text);
  assert_non_null (strstr (text->str, "2-D grid 4x8, each row by recursive doubling (column XOR "
                                      "2^k), and a transpose partner (NPB CG's) at 32 ranks"));
  assert_int_equal (p->n_ranks, 32);
  assert_partners (p, 5, 4, (const guint32[]) { 1, 4, 7, 17 });
  const guint32 row_partners[3] = { 1, 4, 7 };
  for (guint k = 0; k < 3; k++)
    {
      const TsPeerTraffic *x = traffic_with (p, 5, row_partners[k]);
      assert_int_equal (x->sent, 4);
      assert_int_equal (x->received, 4);
      assert_int_equal (x->bytes_sent, 4 * 4096);
    }
  const TsPeerTraffic *x = traffic_with (p, 5, 17);
  assert_int_equal (x->sent, 2);
  assert_int_equal (x->bytes_sent, 2 * 4096);
  assert_partners (p, 10, 3, (const guint32[]) { 8, 11, 14 });
  x = traffic_with (p, 10, 14);
  assert_int_equal (x->sent, 4);
  assert_int_equal (x->bytes_sent, 4 * 4096);
  const double *spmv = g_hash_table_lookup (p->compute, "spmv");
  assert_non_null (spmv);
  for (guint r = 0; r < 32; r++)
    assert_float_equal (spmv[r], 0.004, 1e-9);
  assert_replays (work, "np32", "CG's rows and transposes");
  ts_test_rmtree (work);
}

/* Ensure that grid orders can be named factor by factor (NPB MG's 16
 * ranks are 2x4x2: the middle factor first, then the largest, then the
 * smallest), read back as written, and checked: 2 dimensions have no middle
 * factor, and each factor is named once. By hand: "middle,largest,smallest"
 * gives the factors 1, 0, 2, the 3-D order MPI_Dims_create's 4, 2, 2 at 16
 * takes as 2x4x2; "smallest,largest" in 2-D is the reverse of MPI's (1, 0),
 * as largest-last is. */
static void
test_named_grid_order (void **state)
{
  (void) state;
  TsGridOrder g;
  guint8 f[3];
  assert_true (ts_grid_order_parse ("middle,largest,smallest", &g));
  assert_true (ts_grid_order_factors (g, 3, f));
  assert_int_equal (f[0], 1);
  assert_int_equal (f[1], 0);
  assert_int_equal (f[2], 2);
  assert_false (ts_grid_order_factors (g, 2, f));
  g_autofree char *name = ts_grid_order_name (g);
  assert_string_equal (name, "middle,largest,smallest");
  TsPattern t = { TS_PATTERN_CARTESIAN, 3, .order = ts_pattern_order_of (3, f) };
  TsPattern at = ts_pattern_at (&t, 16);
  assert_int_equal (at.dims[0], 2);
  assert_int_equal (at.dims[1], 4);
  assert_int_equal (at.dims[2], 2);

  TsGridOrder last;
  assert_true (ts_grid_order_parse ("smallest,largest", &g));
  assert_true (ts_grid_order_parse ("largest-last", &last));
  guint8 a[2], b[2];
  assert_true (ts_grid_order_factors (g, 2, a) && ts_grid_order_factors (last, 2, b));
  assert_memory_equal (a, b, 2);
  g_autofree char *two = ts_grid_order_name (g);
  assert_string_equal (two, "smallest,largest");

  assert_false (ts_grid_order_parse ("largest,middle", &g));
  assert_false (ts_grid_order_parse ("largest,largest,smallest", &g));
  assert_false (ts_grid_order_parse ("largest", &g));
  assert_false (ts_grid_order_parse ("biggest,middle,smallest", &g));
}

/* Messages the largest input never receives are the input's, not a flaw
 * of the extrapolation: the ring whose ranks end with a message nobody
 * receives extrapolates from 1, 2 and 4 ranks to 8. Derived by hand: every
 * rank keeps its 2 neighbours, sends 5 x 2 + 1 = 11 messages (10 of 100
 * bytes and 1 of 8, of tag 5, to the right) and receives 10; the flows r to
 * r + 1 with tag 5 are unbalanced by one each, as the 4-rank input's are,
 * so the balance check lets them through, and the output replays (the
 * messages are small: sent eagerly, they wait for no receive). */
static void
test_unreceived_input_kept (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-unreceived");
  g_autoptr (TsScaleProfile) p = extrapolate_series (work, unreceived_script,
                                                     TS_BOUNDARIES_PERIODIC);
  for (guint r = 0; r < 8; r++)
    {
      guint left = (r + 7) % 8, right = (r + 1) % 8;
      assert_partners (p, r, 2, (const guint32[]) { MIN (left, right), MAX (left, right) });
      guint64 sent = 0, received = 0;
      for (guint i = 0; i < p->traffic[r]->len; i++)
        {
          const TsPeerTraffic *t = &g_array_index (p->traffic[r], TsPeerTraffic, i);
          sent += t->sent;
          received += t->received;
        }
      assert_int_equal (sent, 11);
      assert_int_equal (received, 10);
    }
  assert_replays (work, "np8", "ring with unreceived messages");
  ts_test_rmtree (work);
}

/* An all-to-all whose root also distributes: at the start rank 0 sends
 * every other rank one message (MPI_Send, ascending), which each receives
 * (MPI_Recv from 0); then 3 iterations of 0.8 / P s in region fft and a
 * transpose, one MPI_Sendrecv with each other rank in the order FFTW 2
 * takes them, rank ^ (P - 1), rank ^ (P - 2), ..., rank ^ 1. Every
 * message is 4800 / P^2 bytes. Traced at 1, 2 and 4 ranks, extrapolated
 * to 8 with --all-to-all (4 ranks cannot tell it from a stencil).
 * Derived by hand, at 8 ranks:
 * - every rank has the 7 others as partners;
 * - rank 0 sends each 1 + 3 = 4 messages and receives 3; a worker sends 3
 *   to each rank, receives 4 from rank 0 (its one receive outside the
 *   loops stays with the root, which sends to every rank in a loop) and 3
 *   from each worker;
 * - every message is 4800 / 64 = 75 bytes (1200 at 2 ranks, 300 at 4:
 *   4800 / P^2 through both), so rank 0 sends 300 bytes to each;
 * - fft takes 3 x 0.8 / 8 = 0.3 s on every rank;
 * - rank 0's transposes take 7, 6, ..., 1 and rank 5's 2, 3, 0, 1, 6, 7, 4
 *   (5 ^ 7, 5 ^ 6, ...); it replays (the schedule is pairwise at every
 *   step). */
static char *
root_transpose_script (guint p)
{
  GString *s = g_string_new (NULL);
  guint bytes = 4800 / (p * p);
  g_string_append_printf (s, "ranks %u\n", p);
  for (guint r = 0; r < p; r++)
    {
      double t = 0;
      g_string_append_printf (s, "%u 0 enter main\n", r);
      for (guint k = 1; r == 0 && k < p; k++, t += 1e-4)
        g_string_append_printf (s, "0 %.6f enter MPI_Send\n0 %.6f send %u bytes=%u\n"
                                "0 %.6f leave\n", t, t, k, bytes, t + 1e-5);
      if (r > 0)
        g_string_append_printf (s, "%u 0.001 enter MPI_Recv\n%u 0.001 recv 0 bytes=%u\n"
                                "%u 0.002 leave\n", r, r, bytes, r);
      t = 0.01;
      for (guint it = 0; it < 3; it++)
        {
          g_string_append_printf (s, "%u %.6f enter fft\n%u %.6f leave\n", r, t, r,
                                  t + 0.8 / p);
          t += 0.8 / p;
          for (guint k = p - 1; k >= 1; k--, t += 1e-4)
            g_string_append_printf (s, "%u %.6f enter MPI_Sendrecv\n%u %.6f send %u bytes=%u\n"
                                    "%u %.6f recv %u bytes=%u\n%u %.6f leave\n", r, t, r, t,
                                    r ^ k, bytes, r, t, r ^ k, bytes, r, t + 1e-5);
        }
      g_string_append_printf (s, "%u %.6f leave\n", r, t + 0.001);
    }
  return g_string_free (s, FALSE);
}

static void
test_root_and_fftw_transposes (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-root-transpose");
  g_autoptr (TsScaleProfile) p = extrapolate_with (work, root_transpose_script,
                                                   (const guint[]) { 1, 2, 4 },
                                                   (TsExtrapolateOptions) { .all_to_all = TRUE });
  for (guint r = 0; r < 8; r++)
    {
      assert_int_equal (p->partners[r]->len, 7);
      for (guint i = 0; i < 7; i++)
        {
          const TsPeerTraffic *t = &g_array_index (p->traffic[r], TsPeerTraffic, i);
          guint sent = r == 0 ? 4 : 3, received = r > 0 && t->peer == 0 ? 4 : 3;
          assert_int_equal (t->sent, sent);
          assert_int_equal (t->received, received);
          assert_int_equal (t->bytes_sent, 75 * sent);
        }
    }
  const double *fft = g_hash_table_lookup (p->compute, "fft");
  assert_non_null (fft);
  for (guint r = 0; r < 8; r++)
    assert_float_equal (fft[r], 0.3, 1e-9);
  g_autoptr (GArray) from0 = peers_in_order (p, 0, TS_ACTION_SEND);
  g_autoptr (GArray) from5 = peers_in_order (p, 5, TS_ACTION_SEND);
  assert_peers (from0, 7, (const gint32[]) { 1, 2, 3, 4, 5, 6, 7 });
  const gint32 root_transpose[] = { 7, 6, 5, 4, 3, 2, 1 };
  for (guint k = 0; k < 7; k++)
    assert_int_equal (g_array_index (from0, gint32, 7 + k), root_transpose[k]);
  assert_int_equal (from5->len, 21);
  const gint32 xor_down[] = { 2, 3, 0, 1, 6, 7, 4 };
  for (guint k = 0; k < 7; k++)
    assert_int_equal (g_array_index (from5, gint32, k), xor_down[k]);
  assert_replays (work, "np8", "root and transposes");
  ts_test_rmtree (work);
}

/* A halo exchange that forwards corners, as LAMMPS's does: on a periodic
 * 2-D grid (MPI_Dims_create's: 1x1, 2x1, 2x2, 4x2 at 1, 2, 4, 8 ranks;
 * rank r at (r / dims[1], r % dims[1])), 5 iterations of 0.01 s of compute,
 * then two MPI_Sendrecv along dimension 1 and two along dimension 2 (none
 * along a dimension of 1 rank; grid_sendrecv_script). A face of the problem is
 * 4800 bytes in all, divided among the ranks across the other dimension;
 * dimension 2's messages also carry the ghosts dimension 1 brought, 600
 * bytes whatever P. So along dimension 1 a message is 4800 / dims[1]
 * bytes, along dimension 2 4800 / dims[0] + 600.
 * Derived by hand:
 * - dimension 1 shows messages at 2 ranks (4800 bytes, 1 rank across) and
 *   4 (2400, 2 across): its law is 4800 / x, x the ranks across;
 * - dimension 2 shows them at 4 ranks only: 4800 / 2 + 600 = 3000;
 * - at 8 ranks (4x2), dimension 1: 4800 / 2 = 2400 bytes; dimension 2:
 *   dimension 1's law shifted through 3000 at x = 2, 4800 / 4 + 600 =
 *   1800 (a constant would keep 3000);
 * - rank 0 at (0, 0) reaches 2 and 6 along dimension 1, 1 both ways along
 *   dimension 2: 5 x 2400 bytes to each of 2 and 6, 10 x 1800 to 1. */
static guint
forwarded_bytes (guint k, const guint *dims)
{
  return k == 0 ? 4800 / dims[1] : 4800 / dims[0] + 600;
}

static char *
forwarding_script (guint p)
{
  return grid_sendrecv_script (p, 5, 0.01, forwarded_bytes);
}

static guint
smaller_face_bytes (guint k, const guint *dims)
{
  return k == 0 ? 4800 / dims[1] : 4 * (4800 / dims[0]) / 5;
}

static char *
smaller_face_script (guint p)
{
  return grid_sendrecv_script (p, 5, 0.01, smaller_face_bytes);
}

static void
test_forwarded_corners (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-forwarding");
  g_autoptr (TsScaleProfile) p = extrapolate_series (work, forwarding_script,
                                                     TS_BOUNDARIES_PERIODIC);
  assert_partners (p, 0, 3, (const guint32[]) { 1, 2, 6 });
  const guint64 bytes[3] = { 10 * 1800, 5 * 2400, 5 * 2400 };
  for (guint i = 0; i < 3; i++)
    {
      const TsPeerTraffic *t = &g_array_index (p->traffic[0], TsPeerTraffic, i);
      assert_int_equal (t->bytes_sent, bytes[i]);
      assert_int_equal (t->bytes_received, bytes[i]);
    }
  /* Dimension 1 has 2 ranks at 2 and 4 ranks and 4 at 8: --explain says
   * its split of messages by direction is a guess; dimension 2 keeps 2. */
  g_autofree char *model = g_build_filename (work, "np8", "model.txt", NULL);
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (model, &text, NULL, NULL));
  assert_non_null (strstr (text, "dimension 1 has 2 ranks in every input"));
  assert_non_null (strstr (text, "sends more at 8 ranks, with 4 along it"));
  assert_null (strstr (text, "dimension 2 has 2 ranks in every input"));
  assert_replays (work, "np8", "forwarding halo");
  ts_test_rmtree (work);
}

/* The same grid without forwarding, dimension 2's faces 0.8 of dimension
 * 1's (a domain of another extent): 0.8 x 4800 / dims[0] bytes along it.
 * Derived by hand: dimension 2 shows 1920 bytes at 4 ranks, where
 * dimension 1's law 4800 / x gives 2400 at x = 2, so it takes that law
 * scaled by 1920 / 2400 = 0.8: 0.8 x 4800 / 4 = 960 bytes at 4x2, 10 x
 * 960 to rank 1 (shifted by -480 instead, it would say 720 here, and
 * nothing from 10 ranks across on). Dimension 1 keeps 2400: 5 x 2400 to 2
 * and to 6. */
static void
test_smaller_face_scaled (void **state)
{
  (void) state;
  g_autofree char *work = ts_test_workdir ("extrapolate-smaller-face");
  g_autoptr (TsScaleProfile) p = extrapolate_series (work, smaller_face_script,
                                                     TS_BOUNDARIES_PERIODIC);
  assert_partners (p, 0, 3, (const guint32[]) { 1, 2, 6 });
  const guint64 bytes[3] = { 10 * 960, 5 * 2400, 5 * 2400 };
  for (guint i = 0; i < 3; i++)
    assert_int_equal (g_array_index (p->traffic[0], TsPeerTraffic, i).bytes_sent, bytes[i]);
  ts_test_rmtree (work);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_periodic_grid_to_64),
    cmocka_unit_test (test_open_grid_roles),
    cmocka_unit_test (test_column_major_grid),
    cmocka_unit_test (test_warnings),
    cmocka_unit_test (test_misaligned_refused),
    cmocka_unit_test (test_unseen_interior_joined),
    cmocka_unit_test (test_random_partners_refused),
    cmocka_unit_test (test_boundaries_from_the_user),
    cmocka_unit_test (test_uninstrumented_compute),
    cmocka_unit_test (test_shift_on_two_ranks),
    cmocka_unit_test (test_all_to_all),
    cmocka_unit_test (test_inconsistent_extension_refused),
    cmocka_unit_test (test_master_worker),
    cmocka_unit_test (test_partitioned_and_nonblocking_collectives),
    cmocka_unit_test (test_hierarchical_communicators),
    cmocka_unit_test (test_communicator_classes),
    cmocka_unit_test (test_master_worker_sizes_agree),
    cmocka_unit_test (test_master_single_worker_refused),
    cmocka_unit_test (test_per_partner_region_outside_loops_refused),
    cmocka_unit_test (test_xor_order_at_no_power_of_two),
    cmocka_unit_test (test_leaders_only_refused),
    cmocka_unit_test (test_serial_input_left_out),
    cmocka_unit_test (test_serial_input_kept),
    cmocka_unit_test (test_unreceived_input_kept),
    cmocka_unit_test (test_repetitions),
    cmocka_unit_test (test_named_grid_order),
    cmocka_unit_test (test_recursive_doubling),
    cmocka_unit_test (test_cg_rows_and_transpose),
    cmocka_unit_test (test_doubling_steps_told),
    cmocka_unit_test (test_interior_from_ends),
    cmocka_unit_test (test_one_way_interior_refused),
    cmocka_unit_test (test_nine_point_stencil),
    cmocka_unit_test (test_stencil_told_by_sizes),
    cmocka_unit_test (test_twenty_seven_point_stencil),
    cmocka_unit_test (test_serial_input_skipping_a_collective),
    cmocka_unit_test (test_scaling_stated),
    cmocka_unit_test (test_root_and_fftw_transposes),
    cmocka_unit_test (test_forwarded_corners),
    cmocka_unit_test (test_smaller_face_scaled),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
