/* model/decode.c and model/stream.c: the actions small traces written in the
 * test (tools/tracegen/script.h) decode into, from the trace and from the
 * calibration's spool. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "calibrate/calibration.h"
#include "model/decode.h"
#include "model/stream.h"
#include "model/trace.h"
#include "tests/scripted.h"

typedef struct {
  char *dir;
  TsTrace *trace;
} Fixture;

static void
fixture_open (Fixture *f, const char *script)
{
  f->trace = ts_test_script_open (script, &f->dir);
}

static void
fixture_close (Fixture *f)
{
  ts_trace_free (f->trace);
  ts_test_script_remove (f->dir);
}

/* Every action of @rank, decoded with no options. */
static GArray *
decode_rank (const TsTrace *trace, guint rank)
{
  GError *error = NULL;
  g_autoptr (TsDecoder) d = ts_decoder_open (trace, &error);
  assert_non_null (d);
  TsRankDecoder *s = ts_decoder_rank (d, rank, NULL);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (TsAction));
  TsAction a;
  while (ts_rank_decoder_next (s, &a, &error))
    g_array_append_val (out, a);
  if (error)
    fail_msg ("decode: %s", error->message);
  return out;
}

#define AT(arr, i) (&g_array_index ((arr), TsAction, (i)))

/* Rank 0 computes 1 s in main, sends 8 bytes to rank 1 in an MPI_Send of
 * 0.5 s, computes 0.5 s. Rank 1 posts an MPI_Irecv at 0.5 s that an
 * MPI_Wait (0.75 s to 1.5 s) completes with rank 0's message, then posts a
 * second one at 1.75 s that nothing ever completes. */
static const char *two_ranks =
  "ranks 2\n"
  "0 0 enter main\n0 1 enter MPI_Send\n0 1 send 1 tag=3 bytes=8\n0 1.5 leave MPI_Send\n"
  "0 2 leave main\n"
  "1 0 enter main\n"
  "1 0.5 enter MPI_Irecv\n1 0.5 irecv_request req=7\n1 0.5 leave MPI_Irecv\n"
  "1 0.75 enter MPI_Wait\n1 1.5 irecv 0 tag=3 bytes=8 req=7\n1 1.5 leave MPI_Wait\n"
  "1 1.75 enter MPI_Irecv\n1 1.75 irecv_request req=8\n1 1.75 leave MPI_Irecv\n"
  "1 2 leave main\n";

/* Ensure that the time between events becomes compute and that an MPI call
 * becomes ENTER, its message, LEAVE: rank 0 is enter main; compute 1 s;
 * enter MPI_Send at 1; send (peer 1, tag 3, 8 bytes: size class 1 +
 * floor(log2 8) = 4, the call's first action); leave at 1.5 carrying the
 * call's 0.5 s; compute 0.5 s from 1.5; leave main at 2. */
static void
test_compute_and_calls (void **state)
{
  Fixture f;
  fixture_open (&f, two_ranks);
  g_autoptr (GArray) a = decode_rank (f.trace, 0);
  assert_int_equal (a->len, 7);
  guint main_region = ts_trace_region_by_name (f.trace, "main");
  guint send_region = ts_trace_region_by_name (f.trace, "MPI_Send");
  assert_int_equal (AT (a, 0)->kind, TS_ACTION_ENTER);
  assert_int_equal (AT (a, 0)->region, main_region);
  assert_int_equal (AT (a, 1)->kind, TS_ACTION_COMPUTE);
  assert_float_equal (AT (a, 1)->seconds, 1.0, 1e-9);
  assert_int_equal (AT (a, 2)->kind, TS_ACTION_ENTER);
  assert_int_equal (AT (a, 2)->region, send_region);
  assert_float_equal (AT (a, 2)->time, 1.0, 1e-9);
  const TsAction *send = AT (a, 3);
  assert_int_equal (send->kind, TS_ACTION_SEND);
  assert_int_equal (send->peer, 1);
  assert_int_equal (send->tag, 3);
  assert_int_equal (send->bytes, 8);
  assert_int_equal (send->size_class, 4);
  assert_int_equal (send->call, send_region);
  assert_true (send->flags & TS_ACTION_CALL_FIRST);
  assert_int_equal (AT (a, 4)->kind, TS_ACTION_LEAVE);
  assert_float_equal (AT (a, 4)->time, 1.5, 1e-9);
  assert_float_equal (AT (a, 4)->seconds, 0.5, 1e-9);
  assert_int_equal (AT (a, 5)->kind, TS_ACTION_COMPUTE);
  assert_float_equal (AT (a, 5)->seconds, 0.5, 1e-9);
  assert_int_equal (AT (a, 6)->kind, TS_ACTION_LEAVE);
  assert_int_equal (AT (a, 6)->region, main_region);
  fixture_close (&f);
}

/* Ensure that an irecv whose envelope comes only with its completion is
 * handed out at its posting time with that envelope (peer 0, tag 3, 8
 * bytes), before the wait that completed it; and that one never completed
 * is flagged missing, with no peer. Rank 1: enter main; compute 0.5; enter
 * MPI_Irecv; irecv req 7; leave; compute 0.25; enter MPI_Wait; wait req 7;
 * leave; compute 0.25; enter MPI_Irecv; irecv req 8 (missing); leave;
 * compute 0.25; leave main. */
static void
test_irecv_envelope_and_missing (void **state)
{
  Fixture f;
  fixture_open (&f, two_ranks);
  g_autoptr (GArray) a = decode_rank (f.trace, 1);
  assert_int_equal (a->len, 15);
  const TsAction *irecv = AT (a, 3);
  assert_int_equal (irecv->kind, TS_ACTION_IRECV);
  assert_int_equal (irecv->req, 7);
  assert_int_equal (irecv->peer, 0);
  assert_int_equal (irecv->tag, 3);
  assert_int_equal (irecv->bytes, 8);
  assert_float_equal (irecv->time, 0.5, 1e-9);
  assert_false (irecv->flags & TS_ACTION_MISSING);
  const TsAction *wait = AT (a, 7);
  assert_int_equal (wait->kind, TS_ACTION_WAIT);
  assert_int_equal (wait->req, 7);
  assert_float_equal (AT (a, 8)->seconds, 0.75, 1e-9); /* the wait's LEAVE: 0.75 to 1.5 */
  const TsAction *lost = AT (a, 11);
  assert_int_equal (lost->kind, TS_ACTION_IRECV);
  assert_int_equal (lost->req, 8);
  assert_true (lost->flags & TS_ACTION_MISSING);
  assert_int_equal (lost->peer, TS_NO_RANK);
  fixture_close (&f);
}

/* Ensure that the decode options apply: a clock offset of +2 s moves every
 * time of rank 0 by 2 s and leaves durations alone. */
static void
test_clock_offset (void **state)
{
  Fixture f;
  fixture_open (&f, two_ranks);
  GError *error = NULL;
  g_autoptr (TsDecoder) d = ts_decoder_open (f.trace, &error);
  TsDecodeOptions opt = { .clock_offset = 2.0 };
  TsRankDecoder *s = ts_decoder_rank (d, 0, &opt);
  TsAction a;
  guint n = 0;
  while (ts_rank_decoder_next (s, &a, &error))
    {
      if (n == 2) /* enter MPI_Send, at 1 s + 2 s */
        assert_float_equal (a.time, 3.0, 1e-9);
      if (n == 4) /* its leave, 1.5 s + 2 s, still 0.5 s long */
        {
          assert_float_equal (a.time, 3.5, 1e-9);
          assert_float_equal (a.seconds, 0.5, 1e-9);
        }
      n++;
    }
  assert_null (error);
  assert_int_equal (n, 7);
  const TsDecodeStats *st = ts_rank_decoder_stats (s);
  assert_float_equal (st->first_time, 2.0, 1e-9);
  assert_float_equal (st->last_time, 4.0, 1e-9);
  fixture_close (&f);
}

/* Ensure that a stream from the calibration's spool and one decoding the
 * trace again hand out the same actions, rank by rank, with the same
 * options applied (ranks read interleaved, as the replay reads them): the
 * clock offset moves a collective's end as well as its time (rank 1 leaves
 * the barrier at 2.1, before rank 0 enters it at 2.5: rank 1's clock is
 * aligned by -(2.1 - 2.6) = +0.5 s, and its barrier ends at 2.6). */
static void
test_spool_equals_decode (void **state)
{
  Fixture f;
  /* Blocking messages only: no envelope to infer, so pass 1 spools. */
  fixture_open (&f,
                "ranks 2\n"
                "0 0 enter main\n0 0.25 enter MPI_Send\n0 0.25 send 1 bytes=100\n"
                "0 0.5 leave MPI_Send\n0 1 enter MPI_Recv\n0 1.25 recv 1 bytes=50\n"
                "0 1.25 leave MPI_Recv\n"
                "0 2.5 enter MPI_Barrier\n0 2.5 coll_begin\n0 2.6 coll_end barrier\n"
                "0 2.6 leave MPI_Barrier\n0 3 leave main\n"
                "1 0 enter main\n1 0.1 enter MPI_Recv\n1 0.5 recv 0 bytes=100\n"
                "1 0.5 leave MPI_Recv\n1 1.2 enter MPI_Send\n1 1.2 send 0 bytes=50\n"
                "1 1.25 leave MPI_Send\n"
                "1 2.0 enter MPI_Barrier\n1 2.0 coll_begin\n1 2.1 coll_end barrier\n"
                "1 2.1 leave MPI_Barrier\n1 3 leave main\n");
  GError *error = NULL;
  g_autoptr (TsCalibration) cal = ts_calibration_compute (f.trace, &error);
  assert_non_null (cal);
  const TsSpool *spool = ts_calibration_spool (cal);
  assert_non_null (spool);
  TsDecodeOptions opts[2] = { ts_calibration_decode_options (cal, 0),
                              ts_calibration_decode_options (cal, 1) };
  g_autoptr (TsActionStream) spooled = ts_action_stream_open (f.trace, spool, opts, &error);
  g_autoptr (TsActionStream) decoded = ts_action_stream_open (f.trace, NULL, opts, &error);
  assert_true (ts_action_stream_is_spooled (spooled));
  assert_false (ts_action_stream_is_spooled (decoded));
  gboolean more[2] = { TRUE, TRUE };
  guint compared = 0;
  while (more[0] || more[1])
    for (guint r = 0; r < 2; r++)
      {
        if (!more[r])
          continue;
        TsAction x, y;
        gboolean hx = ts_action_stream_next (spooled, r, &x, &error);
        gboolean hy = ts_action_stream_next (decoded, r, &y, &error);
        assert_null (error);
        assert_int_equal (hx, hy);
        more[r] = hx;
        if (hx)
          {
            /* Equal but for the rounding of durations taken from times
             * the clock offset shifted (the decoder's) or not (the spool's). */
            assert_float_equal (x.time, y.time, 1e-12);
            assert_float_equal (x.seconds, y.seconds, 1e-12);
            if (x.kind == TS_ACTION_COLLECTIVE)
              assert_float_equal (x.end, y.end, 1e-12);
            x.time = y.time;
            x.seconds = y.seconds;
            if (x.kind == TS_ACTION_COLLECTIVE)
              x.end = y.end;
            assert_memory_equal (&x, &y, sizeof x);
            compared++;
            if (r == 1 && x.kind == TS_ACTION_COLLECTIVE)
              assert_float_equal (x.end, 2.6, 1e-9);
          }
      }
  /* Per rank: enter main, compute, enter, message, leave, compute, enter,
   * message, leave, compute, enter, collective, leave, compute, leave main:
   * 15. */
  assert_float_equal (ts_calibration_clock_offset (cal, 1), 0.5, 1e-9);
  assert_int_equal (compared, 30);
  fixture_close (&f);
}

/* A trace of three ranks of blocking messages (so pass 1 spools): rank 0
 * makes @calls_0 calls of MPI_Send to rank 1, rank 1 the matching
 * MPI_Recv, each between computes, then rank 0 alone 3 x @calls calls of a
 * user function f; rank 2 only enters and leaves main. */
static char *
three_ranks (guint calls)
{
  GString *s = g_string_new ("ranks 3\n0 0 enter main\n1 0 enter main\n");
  for (guint i = 0; i < calls; i++)
    g_string_append_printf (s,
                            "0 %u.1 enter MPI_Send\n0 %u.1 send 1 bytes=8\n0 %u.2 leave MPI_Send\n"
                            "1 %u.1 enter MPI_Recv\n1 %u.3 recv 0 bytes=8\n1 %u.3 leave MPI_Recv\n",
                            i, i, i, i, i, i);
  /* Then rank 0 alone: 3 x @calls user functions. */
  for (guint i = 0; i < 3 * calls; i++)
    g_string_append_printf (s, "0 %u.%03u enter f\n0 %u.%03u leave f\n", calls, 2 * i + 1,
                            calls, 2 * i + 2);
  g_string_append_printf (s, "0 %u leave main\n1 %u leave main\n2 0 enter main\n2 1 leave main\n",
                          calls + 1, calls + 1);
  return g_string_free (s, FALSE);
}

/* Every action of each of @n ranks of @stream, read in the order @order
 * gives (ranks repeat in it as often as they are read), into @out[rank]. */
static void
read_all (TsActionStream *stream, guint n, const guint *order, guint n_order, GArray **out)
{
  gboolean *more = g_new (gboolean, n);
  for (guint r = 0; r < n; r++)
    more[r] = TRUE;
  gboolean any = TRUE;
  while (any)
    {
      any = FALSE;
      for (guint i = 0; i < n_order; i++)
        {
          guint r = order[i];
          TsAction a;
          GError *error = NULL;
          if (more[r] && (more[r] = ts_action_stream_next (stream, r, &a, &error)))
            g_array_append_val (out[r], a);
          assert_null (error);
          any = any || more[r];
        }
    }
  g_free (more);
}

/* Ensure that reading ahead gives every rank the same actions, byte for
 * byte, as reading directly, whatever the interleaving: rank 0 read four
 * times as often as rank 1, rank 2 once per round. The batch length is
 * made rank 1's action count (the budget is 2 batches x 3 ranks x that
 * many actions), so that rank 1 ends exactly at the end of a batch (its
 * next one is empty); rank 0 has more than twice as many (its 60 calls of
 * f are 120 actions at least, beyond the 20 sends it shares with rank 1),
 * so the thread fills each of its batches again; rank 2 (enter main,
 * compute, leave main: 3 actions) ends inside its first. 20 calls of 3
 * actions with main's enter and leave give rank 1 at least 62 actions. */
static void
test_read_ahead_equals_reads (void **state)
{
  Fixture f;
  g_autofree char *script = three_ranks (20);
  fixture_open (&f, script);
  GError *error = NULL;
  g_autoptr (TsCalibration) cal = ts_calibration_compute (f.trace, &error);
  assert_non_null (cal);
  const TsSpool *spool = ts_calibration_spool (cal);
  assert_non_null (spool);
  TsDecodeOptions opts[3];
  for (guint r = 0; r < 3; r++)
    opts[r] = ts_calibration_decode_options (cal, r);
  const guint order[] = { 0, 0, 1, 0, 0, 2 };
  GArray *direct[3], *ahead[3];
  for (guint r = 0; r < 3; r++)
    {
      direct[r] = g_array_new (FALSE, FALSE, sizeof (TsAction));
      ahead[r] = g_array_new (FALSE, FALSE, sizeof (TsAction));
    }
  g_autoptr (TsActionStream) plain = ts_action_stream_open (f.trace, spool, opts, &error);
  read_all (plain, 3, order, G_N_ELEMENTS (order), direct);
  guint batch = direct[1]->len;
  assert_true (batch >= 60 && batch <= 256);
  assert_int_equal (direct[2]->len, 3);
  assert_true (direct[0]->len > 2 * batch);

  g_autoptr (TsActionStream) read = ts_action_stream_open (f.trace, spool, opts, &error);
  ts_action_stream_read_ahead (read, 2 * 3 * batch * sizeof (TsAction));
  read_all (read, 3, order, G_N_ELEMENTS (order), ahead);
  for (guint r = 0; r < 3; r++)
    {
      assert_int_equal (ahead[r]->len, direct[r]->len);
      assert_memory_equal (ahead[r]->data, direct[r]->data, direct[r]->len * sizeof (TsAction));
      g_array_unref (direct[r]);
      g_array_unref (ahead[r]);
    }

  /* A budget for batches of 15 actions: not worth it, read directly (the
   * same actions again, from a stream that never started a thread). */
  g_autoptr (TsActionStream) small = ts_action_stream_open (f.trace, spool, opts, &error);
  ts_action_stream_read_ahead (small, 2 * 3 * 15 * sizeof (TsAction));
  GArray *again[3];
  for (guint r = 0; r < 3; r++)
    again[r] = g_array_new (FALSE, FALSE, sizeof (TsAction));
  read_all (small, 3, order, G_N_ELEMENTS (order), again);
  assert_int_equal (again[1]->len, batch);
  for (guint r = 0; r < 3; r++)
    g_array_unref (again[r]);
  fixture_close (&f);
}

/* Ensure that the first pass, which reads each worker's ranks through
 * decoders of at most 256 ranks (calibration.c, SCAN_BATCH: OTF2 looks
 * locations up in a list), spools every rank's actions as one decoder of
 * all ranks decodes them: 600 ranks read by one worker (TS_THREADS=1) are
 * 3 decoders (256, 256, 88 ranks), each rank read from a decoder that
 * opened it with its neighbours only. Rank
 * r enters main at 0, calls f from r ms to 2r ms, and leaves main at 1 s:
 * enter main, compute, enter f, compute, leave f, compute, leave main (7
 * actions; rank 0's f takes no time, and its first compute none: 5 or
 * more). Rank 599's f lasts 599 ms. */
static void
test_first_pass_in_batches (void **state)
{
  GString *script = g_string_new ("ranks 600\n");
  for (guint r = 0; r < 600; r++)
    g_string_append_printf (script, "%u 0 enter main\n%u %u.%03u enter f\n%u %u.%03u leave f\n"
                                    "%u 1.5 leave main\n",
                            r, r, r / 1000, r % 1000, r, 2 * r / 1000, 2 * r % 1000, r);
  Fixture f;
  fixture_open (&f, script->str);
  g_string_free (script, TRUE);
  g_setenv ("TS_THREADS", "1", TRUE);
  GError *error = NULL;
  g_autoptr (TsCalibration) cal = ts_calibration_compute (f.trace, &error);
  g_unsetenv ("TS_THREADS");
  assert_non_null (cal);
  const TsSpool *spool = ts_calibration_spool (cal);
  assert_non_null (spool);
  g_autoptr (TsDecoder) all = ts_decoder_open (f.trace, &error);
  assert_non_null (all);
  for (guint r = 0; r < 600; r++)
    {
      g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (spool, r);
      TsRankDecoder *s = ts_decoder_rank (all, r, NULL);
      TsAction want;
      guint n = 0;
      const TsAction *got;
      while ((got = ts_spool_reader_next (rd, &error)))
        {
          assert_true (ts_rank_decoder_next (s, &want, &error));
          assert_memory_equal (got, &want, sizeof want);
          n++;
        }
      assert_null (error);
      assert_false (ts_rank_decoder_next (s, &want, &error));
      assert_null (error);
      assert_true (n >= 5);
      if (r == 599)
        assert_int_equal (n, 7);
      ts_decoder_release (all, r);
    }
  fixture_close (&f);
}

/* Ensure that a cut event file is an error naming the trace, the rank and
 * the file, found when the trace is opened: OTF2 itself may read past the
 * cut into memory it never filled and wait there forever. Rank 1's file is
 * cut to every length from 1 byte short of whole down to 1 byte. */
static void
test_truncated_events (void **state)
{
  Fixture f;
  fixture_open (&f, two_ranks);
  ts_trace_free (g_steal_pointer (&f.trace));
  g_autofree char *anchor = g_build_filename (f.dir, "traces.otf2", NULL);
  g_autofree char *evt = g_build_filename (f.dir, "traces", "1.evt", NULL);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  assert_true (g_file_get_contents (evt, &bytes, &len, NULL));
  for (gsize cut = 1; cut < len; cut++)
    {
      assert_true (g_file_set_contents (evt, bytes, len - cut, NULL));
      GError *error = NULL;
      TsTrace *t = ts_trace_open (anchor, &error);
      assert_null (t);
      assert_true (g_error_matches (error, TS_TRACE_ERROR, TS_TRACE_ERROR_EVENTS));
      assert_non_null (strstr (error->message, "traces.otf2: rank 1"));
      assert_non_null (strstr (error->message, "1.evt is truncated"));
      g_clear_error (&error);
    }
  /* The whole file opens again. */
  assert_true (g_file_set_contents (evt, bytes, len, NULL));
  f.trace = ts_trace_open (anchor, NULL);
  assert_non_null (f.trace);
  fixture_close (&f);
}

/* Compute from CPU time (TS_COMPUTE_CPU): a rank on a shared core. Its
 * readings of "cpu_time" (seconds) come at the time of the ENTER or LEAVE
 * they precede, as tracesim-record writes them: 0 at MPI_Init's ENTER
 * (0 s), 0.0005 at its LEAVE (0.001 s), 0.25 at MPI_Barrier's ENTER
 * (1.0 s), 0.2502 at its LEAVE (1.1 s); then 0.2 s of wall time to
 * MPI_Finalize's ENTER (1.3 s) without a reading. Derived by hand: with
 * wall time the bursts are 0.999 s and 0.2 s; with CPU time the first is
 * 0.25 - 0.0005 = 0.2495 s (the readings at both its ends), the second
 * keeps its 0.2 s (none at its end). A trace without the metric refuses
 * CPU time, naming itself. */
static void
test_compute_from_cpu_time (void **state)
{
  (void) state;
  const char *script =
    "ranks 1\n"
    "metric cpu_time s\n"
    "0 0 metric cpu_time 0\n0 0 enter MPI_Init\n"
    "0 0.001 metric cpu_time 0.0005\n0 0.001 leave\n"
    "0 1.0 metric cpu_time 0.25\n0 1.0 enter MPI_Barrier\n0 1.0 coll_begin\n"
    "0 1.1 coll_end barrier\n0 1.1 metric cpu_time 0.2502\n0 1.1 leave\n"
    "0 1.3 enter MPI_Finalize\n0 1.3 leave\n";
  for (guint cpu = 0; cpu < 2; cpu++)
    {
      Fixture f;
      fixture_open (&f, script);
      GError *error = NULL;
      assert_true (ts_trace_set_compute_clock (f.trace, cpu ? TS_COMPUTE_CPU : TS_COMPUTE_WALL,
                                               &error));
      g_autoptr (GArray) a = decode_rank (f.trace, 0);
      double bursts[2] = { -1, -1 };
      guint n = 0;
      for (guint i = 0; i < a->len; i++)
        if (AT (a, i)->kind == TS_ACTION_COMPUTE && AT (a, i)->region == TS_NO_REGION && n < 2)
          bursts[n++] = AT (a, i)->seconds;   /* outside calls: not MPI_Init's own time */
      assert_int_equal (n, 2);
      assert_float_equal (bursts[0], cpu ? 0.2495 : 0.999, 1e-9);
      assert_float_equal (bursts[1], 0.2, 1e-9);
      fixture_close (&f);
    }
  Fixture f;
  fixture_open (&f, "ranks 1\n0 0 enter MPI_Init\n0 0.001 leave\n");
  GError *error = NULL;
  assert_false (ts_trace_set_compute_clock (f.trace, TS_COMPUTE_CPU, &error));
  assert_non_null (strstr (error->message, "no CPU time metric"));
  assert_non_null (strstr (error->message, ts_trace_path (f.trace)));
  g_error_free (error);
  fixture_close (&f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_compute_and_calls),
    cmocka_unit_test (test_irecv_envelope_and_missing),
    cmocka_unit_test (test_clock_offset),
    cmocka_unit_test (test_spool_equals_decode),
    cmocka_unit_test (test_read_ahead_equals_reads),
    cmocka_unit_test (test_first_pass_in_batches),
    cmocka_unit_test (test_truncated_events),
    cmocka_unit_test (test_compute_from_cpu_time),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
