/* calibrate/: what pass 1 learns from small traces written in the test
 * (tools/tracegen/script.h): original timing, clock alignment, the network
 * fit and the eager threshold. Expected values are derived in the comments. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>
#include <string.h>

#include "calibrate/calibration.h"
#include "calibrate/eager.h"
#include "model/stream.h"
#include "model/trace.h"
#include "tests/scripted.h"

typedef struct {
  char *dir;
  TsTrace *trace;
  TsCalibration *cal;
} Fixture;

static void
fixture_open (Fixture *f, const char *script)
{
  GError *error = NULL;
  f->trace = ts_test_script_open (script, &f->dir);
  f->cal = ts_calibration_compute (f->trace, &error);
  if (!f->cal)
    fail_msg ("calibration: %s", error->message);
}

static void
fixture_close (Fixture *f)
{
  ts_calibration_free (f->cal);
  ts_trace_free (f->trace);
  ts_test_script_remove (f->dir);
}

/* Rank 1's clock runs 0.8 s behind rank 0's. Both meet in three barriers:
 * rank 0 enters at 1, 2, 3 and leaves 0.1 s later; rank 1 enters (on its
 * clock) at 0.25, 1.25, 2.25 and leaves at 0.3, 1.3, 2.3, i.e. at 1.1, 2.1,
 * 3.1 on rank 0's clock, when rank 0 leaves. */
static const char *skewed =
  "ranks 2\n"
  "0 0.5 enter main\n"
  "0 1 enter MPI_Barrier\n0 1 coll_begin\n0 1.1 coll_end barrier\n0 1.1 leave MPI_Barrier\n"
  "0 2 enter MPI_Barrier\n0 2 coll_begin\n0 2.1 coll_end barrier\n0 2.1 leave MPI_Barrier\n"
  "0 3 enter MPI_Barrier\n0 3 coll_begin\n0 3.1 coll_end barrier\n0 3.1 leave MPI_Barrier\n"
  "0 3.5 leave main\n"
  "1 0 enter main\n"
  "1 0.25 enter MPI_Barrier\n1 0.25 coll_begin\n1 0.3 coll_end barrier\n1 0.3 leave MPI_Barrier\n"
  "1 1.25 enter MPI_Barrier\n1 1.25 coll_begin\n1 1.3 coll_end barrier\n1 1.3 leave MPI_Barrier\n"
  "1 2.25 enter MPI_Barrier\n1 2.25 coll_begin\n1 2.3 coll_end barrier\n1 2.3 leave MPI_Barrier\n"
  "1 2.5 leave main\n";

/* Ensure that a trace whose rank leaves a barrier before the other entered
 * it is aligned: each barrier is a violation (rank 1 leaves at 0.3 before
 * rank 0 enters at 1), and rank 1's offset is minus the median of how much
 * later than rank 0 it leaves them: -(0.3 - 1.1) = +0.8 s. Then every
 * barrier releases at 1.05, 2.05, 3.05 (rank 1's entry, 0.25 + 0.8) and
 * both leave after that: nothing to repair. */
static void
test_clock_alignment (void **state)
{
  Fixture f;
  fixture_open (&f, skewed);
  const TsClockAlignment *c = ts_calibration_clocks (f.cal);
  assert_true (c->aligned);
  assert_int_equal (c->sync_violations, 3);
  assert_int_equal (c->coll_repairs, 0);
  assert_false (c->drift);
  assert_float_equal (ts_calibration_clock_offset (f.cal, 0), 0.0, 1e-12);
  assert_float_equal (ts_calibration_clock_offset (f.cal, 1), 0.8, 1e-9);
  fixture_close (&f);
}

/* Ensure that the original timing is taken after alignment: rank 0 runs from
 * 0.5 to 3.5, rank 1 from 0 + 0.8 to 2.5 + 0.8 = 3.3. The run starts at 0.5
 * and lasts 3.0 s; rank 0 ends at 3.0 and rank 1 at 2.8 from the start.
 * Region sums do not depend on clocks: main, 2 visits, 3.0 + 2.5 s;
 * MPI_Barrier, 6 visits, 3 x 0.1 + 3 x 0.05 = 0.45 s. */
static void
test_original_timing_and_regions (void **state)
{
  Fixture f;
  fixture_open (&f, skewed);
  assert_int_equal (ts_calibration_n_ranks (f.cal), 2);
  assert_float_equal (ts_calibration_start (f.cal), 0.5, 1e-9);
  assert_float_equal (ts_calibration_runtime (f.cal), 3.0, 1e-9);
  const double *ends = ts_calibration_rank_ends (f.cal);
  assert_float_equal (ends[0], 3.0, 1e-9);
  assert_float_equal (ends[1], 2.8, 1e-9);
  gint main_region = ts_trace_region_by_name (f.trace, "main");
  gint barrier = ts_trace_region_by_name (f.trace, "MPI_Barrier");
  assert_int_equal (ts_calibration_region_visits (f.cal, main_region), 2);
  assert_float_equal (ts_calibration_region_seconds (f.cal, main_region), 5.5, 1e-9);
  assert_int_equal (ts_calibration_region_visits (f.cal, barrier), 6);
  assert_float_equal (ts_calibration_region_seconds (f.cal, barrier), 0.45, 1e-9);
  fixture_close (&f);
}

/* Rank 0 sends 1000 and then 1,000,000 bytes early; rank 1 receives each
 * long after, so neither receive waited: 1000 bytes took 2 us and 1,000,000
 * took 1001 us, both on the line 1 us + bytes / 1 GB/s. */
static const char *two_sizes =
  "ranks 2\n"
  "0 0 enter main\n"
  "0 0.1 enter MPI_Send\n0 0.1 send 1 bytes=1000\n0 0.1 leave MPI_Send\n"
  "0 0.2 enter MPI_Send\n0 0.2 send 1 bytes=1000000\n0 0.2 leave MPI_Send\n"
  "0 1 leave main\n"
  "1 0 enter main\n"
  "1 0.5 enter MPI_Recv\n1 0.500002 recv 0 bytes=1000\n1 0.500002 leave MPI_Recv\n"
  "1 0.6 enter MPI_Recv\n1 0.601001 recv 0 bytes=1000000\n1 0.601001 leave MPI_Recv\n"
  "1 1 leave main\n";

/* A reduction tree's receive waits for its slower child every time: rank 0
 * enters MPI_Recv at 0.1 and 1.1, rank 1 sends 1,000,000 bytes (above every
 * library's eager limit: rendezvous) at 0.5 and 1.5, each send taking
 * 1001 us while rank 0 waits. The fastest receive (0.401001 s) waited; the
 * fastest send moved the data: one size class, the latency is its 1001 us
 * (bandwidth not measurable), not 0.4 s. */
static const char *waiting_receives =
  "ranks 2\n"
  "0 0 enter main\n"
  "0 0.1 enter MPI_Recv\n0 0.501001 recv 1 bytes=1000000\n0 0.501001 leave MPI_Recv\n"
  "0 1.1 enter MPI_Recv\n0 1.501001 recv 1 bytes=1000000\n0 1.501001 leave MPI_Recv\n"
  "0 2 leave main\n"
  "1 0 enter main\n"
  "1 0.5 enter MPI_Send\n1 0.5 send 0 bytes=1000000\n1 0.501001 leave MPI_Send\n"
  "1 1.5 enter MPI_Send\n1 1.5 send 0 bytes=1000000\n1 1.501001 leave MPI_Send\n"
  "1 2 leave main\n";

static void
test_network_fit_from_sends (void **state)
{
  Fixture f;
  fixture_open (&f, waiting_receives);
  TsNetworkFit fit = ts_calibration_network (f.cal);
  assert_int_equal (fit.samples, 1);
  assert_float_equal (fit.latency, 1.001e-3, 1e-12);
  fixture_close (&f);
}

/* Ensure that the network is fitted through the fastest receive of each
 * size class: two classes, exactly on the line, give latency 1 us and
 * bandwidth 1e9 B/s; the 1000-byte class is on the line, so its bandwidth
 * factor is 1, and a transfer of 1000 bytes takes 2 us. */
static void
test_network_fit (void **state)
{
  Fixture f;
  fixture_open (&f, two_sizes);
  TsNetworkFit fit = ts_calibration_network (f.cal);
  assert_int_equal (fit.samples, 2);
  assert_float_equal (fit.latency, 1e-6, 1e-12);
  assert_float_equal (fit.bandwidth / 1e9, 1.0, 1e-6);
  assert_float_equal (ts_calibration_bandwidth_factor (f.cal, ts_size_class (1000)), 1.0, 1e-9);
  assert_float_equal (ts_calibration_transfer (f.cal, 1000), 2e-6, 1e-12);
  assert_false (ts_calibration_clocks (f.cal)->aligned);
  fixture_close (&f);
}

/* Ensure that a blocking send that left before its receiver arrived makes
 * its size eager: the 1,000,000-byte send left at 0.2, its receiver came at
 * 0.6, so the threshold is one byte above it whatever was assumed. */
static void
test_eager_from_early_sender (void **state)
{
  Fixture f;
  fixture_open (&f, two_sizes);
  assert_int_equal (ts_calibration_largest_blocking_send (f.cal), 1000000);
  GError *error = NULL;
  assert_int_equal (ts_eager_threshold_infer (f.trace, f.cal, 65536, &error), 1000001);
  assert_null (error);
  fixture_close (&f);
}

/* Ensure that two blocking sends larger than every eager one that stayed
 * until their late receivers arrived set the threshold, below the assumed
 * one: 2048 bytes left early (eager); 8192 and 16384 bytes entered at 1.0
 * and 2.0, their receivers at 1.5 and 2.5, and left only then. The smaller
 * of the two, 8192, is the threshold. */
static void
test_eager_from_waiting_senders (void **state)
{
  Fixture f;
  fixture_open (&f,
                "ranks 2\n"
                "0 0 enter main\n"
                "0 0.1 enter MPI_Send\n0 0.1 send 1 bytes=2048\n0 0.1 leave MPI_Send\n"
                "0 1 enter MPI_Send\n0 1.5001 send 1 bytes=8192\n0 1.5001 leave MPI_Send\n"
                "0 2 enter MPI_Send\n0 2.5001 send 1 bytes=16384\n0 2.5001 leave MPI_Send\n"
                "0 3 leave main\n"
                "1 0 enter main\n"
                "1 0.5 enter MPI_Recv\n1 0.5001 recv 0 bytes=2048\n1 0.5001 leave MPI_Recv\n"
                "1 1.5 enter MPI_Recv\n1 1.5002 recv 0 bytes=8192\n1 1.5002 leave MPI_Recv\n"
                "1 2.5 enter MPI_Recv\n1 2.5002 recv 0 bytes=16384\n1 2.5002 leave MPI_Recv\n"
                "1 3 leave main\n");
  GError *error = NULL;
  assert_int_equal (ts_eager_threshold_infer (f.trace, f.cal, 65536, &error), 8192);
  assert_null (error);
  fixture_close (&f);
}

/* Ensure that a calibration kept on disk reads back as the one computed: the
 * skewed trace's clock offsets, timing and regions, the network of
 * two_sizes, and every spooled action byte for byte (both read through the
 * same stream); and that a file cut short, or a calibration of another
 * trace, is refused rather than read. */
static void
check_saved_round_trip (const char *script, const char *other_script)
{
  Fixture f;
  fixture_open (&f, script);
  GError *error = NULL;
  char *path = g_build_filename (f.dir, "saved", NULL);
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  assert_true (fd >= 0);
  guint64 end = 0;
  GVariant *saved = g_variant_ref_sink (ts_calibration_save (f.cal, fd, &end, &error));
  assert_non_null (saved);
  assert_true (ts_calibration_spool (f.cal) != NULL);
  assert_true (end > 0);
  TsCalibration *back = ts_calibration_load (f.trace, saved, fd, end, &error);
  if (!back)
    fail_msg ("load: %s", error->message);
  guint n = ts_calibration_n_ranks (f.cal);
  assert_int_equal (ts_calibration_n_ranks (back), n);
  assert_true (ts_calibration_runtime (back) == ts_calibration_runtime (f.cal));
  assert_true (ts_calibration_start (back) == ts_calibration_start (f.cal));
  assert_memory_equal (ts_calibration_clocks (back), ts_calibration_clocks (f.cal),
                       sizeof (TsClockAlignment));
  TsNetworkFit a = ts_calibration_network (f.cal), b = ts_calibration_network (back);
  assert_true (a.latency == b.latency && a.bandwidth == b.bandwidth && a.samples == b.samples);
  for (guint r = 0; r < n; r++)
    {
      assert_true (ts_calibration_clock_offset (back, r) == ts_calibration_clock_offset (f.cal, r));
      assert_true (ts_calibration_rank_ends (back)[r] == ts_calibration_rank_ends (f.cal)[r]);
    }
  for (guint g = 0; g < ts_trace_n_regions (f.trace); g++)
    {
      assert_int_equal (ts_calibration_region_visits (back, g), ts_calibration_region_visits (f.cal, g));
      assert_true (ts_calibration_region_seconds (back, g) == ts_calibration_region_seconds (f.cal, g));
    }
  TsActionStream *one = ts_calibration_stream_open (f.cal, f.trace, &error);
  TsActionStream *two = ts_calibration_stream_open (back, f.trace, &error);
  assert_non_null (one);
  assert_non_null (two);
  for (guint r = 0; r < n; r++)
    {
      TsAction x, y;
      guint count = 0;
      memset (&x, 0, sizeof x);
      memset (&y, 0, sizeof y);
      while (ts_action_stream_next (one, r, &x, &error))
        {
          assert_true (ts_action_stream_next (two, r, &y, &error));
          assert_memory_equal (&x, &y, sizeof x);
          count++;
        }
      assert_false (ts_action_stream_next (two, r, &y, &error));
      assert_true (count > 0);
    }
  ts_action_stream_free (one);
  ts_action_stream_free (two);
  ts_calibration_free (back);
  /* Cut short: the actions' index points past the end. */
  assert_null (ts_calibration_load (f.trace, saved, fd, end - 1, &error));
  assert_non_null (strstr (error->message, "does not fit"));
  g_clear_error (&error);
  /* Another trace: two ranks too, but other regions. */
  Fixture o;
  fixture_open (&o, other_script);
  assert_null (ts_calibration_load (o.trace, saved, fd, end, &error));
  assert_non_null (strstr (error->message, "does not fit the trace"));
  g_clear_error (&error);
  fixture_close (&o);
  g_variant_unref (saved);
  close (fd);
  g_free (path);
  fixture_close (&f);
}

static void
test_saved_round_trip (void **state)
{
  check_saved_round_trip (skewed, two_sizes);
  check_saved_round_trip (two_sizes, skewed);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_clock_alignment),
    cmocka_unit_test (test_original_timing_and_regions),
    cmocka_unit_test (test_network_fit),
    cmocka_unit_test (test_network_fit_from_sends),
    cmocka_unit_test (test_eager_from_early_sender),
    cmocka_unit_test (test_eager_from_waiting_senders),
    cmocka_unit_test (test_saved_round_trip),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
