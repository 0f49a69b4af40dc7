/* The replay's decisions (sim/engine-maestro.c and what it drives) on the
 * pure-C event queue (sim/engine-queue.h): many replays in one process,
 * which SimGrid cannot do (one engine per process), with times derived by
 * hand from the queue's model.
 *
 * The queue world of every case: 4 hosts of 1 core at 1e9 flop/s (the
 * trace's speed, TsReplayOptions.trace_speed: a trace second computes in
 * one simulated second), one rank per host; every transfer takes
 * latency 1 ms + bytes / 1e6 B/s (1000 B: 1 ms + 1 ms = 2 ms; 0 B: 1 ms).
 *
 * The traces' MPI calls take no time beyond waiting for their peers (each
 * call leaves when what it waited for was posted in the trace, or at once),
 * so charge_call_cost (sim/actions.c) adds nothing to them; every rank enters
 * main at 0, so none starts late. What a rank does between calls is a
 * compute burst of the trace's duration. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "calibrate/calibration.h"
#include "hypotheses/hypotheses.h"
#include "sim/engine-ops.h"
#include "sim/replay-queue.h"
#include "tests/scripted.h"

static const TsQueueHost hosts[4] = {
  { 1e9, 1 }, { 1e9, 1 }, { 1e9, 1 }, { 1e9, 1 },
};
static const TsQueueWorld world = { 4, hosts, 1e-3, 1e6, NULL, NULL };

#define EPS 1e-9

typedef struct {
  char *dir;
  TsTrace *trace;
  TsCalibration *cal;
  TsReplayOptions o;
  TsHypotheses *hypotheses;
  TsReplayResult result;
} Replay;

static void
replay_open (Replay *r, const char *script)
{
  GError *error = NULL;
  memset (r, 0, sizeof *r);
  r->trace = ts_test_script_open (script, &r->dir);
  r->cal = ts_calibration_compute (r->trace, &error);
  if (!r->cal)
    fail_msg ("calibration: %s", error->message);
  ts_replay_options_init (&r->o);
}

static void
replay_hypotheses (Replay *r, const char *text)
{
  GError *error = NULL;
  r->hypotheses = ts_hypotheses_new ();
  if (!ts_hypotheses_load_data (r->hypotheses, text, "test", &error)
      || !ts_hypotheses_bind (r->hypotheses, r->trace, r->cal, &error)
      || !ts_hypotheses_prepare (r->hypotheses, r->trace, r->cal, &error))
    fail_msg ("hypotheses: %s", error->message);
  r->o.hypotheses = r->hypotheses;
}

/* Replay on the queue into r->result (cleared first). */
static void
replay_run (Replay *r)
{
  GError *error = NULL;
  ts_replay_result_clear (&r->result);
  memset (&r->result, 0, sizeof r->result);
  if (!ts_replay_on_queue (r->trace, r->cal, &r->o, &world, &r->result, &error))
    fail_msg ("replay: %s", error->message);
}

static double
rank_end (const Replay *r, guint rank)
{
  assert_true (rank < r->result.rank_end->len);
  return g_array_index (r->result.rank_end, double, rank);
}

static void
replay_close (Replay *r)
{
  ts_replay_result_clear (&r->result);
  g_clear_pointer (&r->hypotheses, ts_hypotheses_free);
  ts_calibration_free (r->cal);
  ts_trace_free (r->trace);
  ts_test_script_remove (r->dir);
}

/* Rank 0 computes 1 s (in region work) and sends 1000 B (eager: below the
 * 65536 B threshold); rank 1 posts its receive at 0 and waits for it. */
static const char *ping =
  "ranks 2\n"
  "0 0 enter main\n"
  "0 0 enter work\n0 1 leave work\n"
  "0 1 enter MPI_Send\n0 1 send 1 bytes=1000\n0 1 leave MPI_Send\n"
  "0 1 leave main\n"
  "1 0 enter main\n"
  "1 0 enter MPI_Recv\n1 1 recv 0 bytes=1000\n1 1 leave MPI_Recv\n"
  "1 1 leave main\n";

/* Ensure that an eager message leaves at its sender's time and arrives a
 * transfer later: rank 0 ends at 1 s, right after posting its send; the
 * transfer starts at 1 s (rank 1's receive is posted since 0) and takes
 * 1 ms + 1000 B / 1e6 B/s = 2 ms, so rank 1 ends at 1.002 s, the runtime. */
static void
test_eager_ping (void **state)
{
  Replay r;
  replay_open (&r, ping);
  replay_run (&r);
  assert_int_equal (r.result.n_ranks, 2);
  assert_float_equal (rank_end (&r, 0), 1.0, EPS);
  assert_float_equal (rank_end (&r, 1), 1.002, EPS);
  assert_float_equal (r.result.runtime, 1.002, EPS);
  replay_close (&r);
}

/* Ensure that computing as executions (exact_cpu: the queue's flops /
 * speed) gives the bursts' times: 1e9 flops / 1e9 flop/s = 1 s, so the
 * same 1.0 and 1.002 s as test_eager_ping. */
static void
test_ping_as_executions (void **state)
{
  Replay r;
  replay_open (&r, ping);
  r.o.exact_cpu = TRUE;
  replay_run (&r);
  assert_float_equal (rank_end (&r, 0), 1.0, EPS);
  assert_float_equal (rank_end (&r, 1), 1.002, EPS);
  replay_close (&r);
}

/* Ensure that a hypothesis moves the prediction by what it changes:
 * `work` x 0.5 makes rank 0's burst 0.5 s, so its send leaves at 0.5 s and
 * rank 1 ends at 0.5 + 0.002 = 0.502 s, 0.5 s earlier than unchanged; the
 * region's predicted total is 0.5 s instead of 1 s. Both replays run in
 * this process, one after the other. */
static void
test_hypothesis_moves_prediction (void **state)
{
  Replay r;
  replay_open (&r, ping);
  replay_run (&r);
  gint work = ts_trace_region_by_name (r.trace, "work");
  assert_true (work >= 0);
  assert_float_equal (r.result.region_seconds[work], 1.0, EPS);
  double before = rank_end (&r, 1);
  replay_hypotheses (&r, "[region:work]\nscale = 0.5\n");
  replay_run (&r);
  assert_float_equal (rank_end (&r, 0), 0.5, EPS);
  assert_float_equal (rank_end (&r, 1), 0.502, EPS);
  assert_float_equal (before - rank_end (&r, 1), 0.5, EPS);
  assert_float_equal (r.result.region_seconds[work], 0.5, EPS);
  replay_close (&r);
}

/* Rank 0 sends 1,000,000 B (rendezvous: at least the 65536 B threshold) at
 * 0; its MPI_Send leaves at 2, when rank 1 posted its receive after
 * computing 2 s; the receive completes at once in the trace. */
static const char *rendezvous =
  "ranks 2\n"
  "0 0 enter main\n"
  "0 0 enter MPI_Send\n0 2 send 1 bytes=1000000\n0 2 leave MPI_Send\n"
  "0 2 leave main\n"
  "1 0 enter main\n"
  "1 2 enter MPI_Recv\n1 2 recv 0 bytes=1000000\n1 2 leave MPI_Recv\n"
  "1 2 leave main\n";

/* Ensure that a rendezvous send waits for its late receiver: the transfer
 * starts when rank 1 posts its receive at 2 s and takes 1 ms + 1e6 B /
 * 1e6 B/s = 1.001 s: both ranks end at 3.001 s. Eager (threshold above
 * 1e6 B), rank 0 would not wait: it ends at 0 and rank 1 still at 3.001. */
static void
test_rendezvous_waits_for_receiver (void **state)
{
  Replay r;
  replay_open (&r, rendezvous);
  replay_run (&r);
  assert_float_equal (rank_end (&r, 0), 3.001, EPS);
  assert_float_equal (rank_end (&r, 1), 3.001, EPS);
  r.o.eager_threshold = 2000000;
  replay_run (&r);
  assert_float_equal (rank_end (&r, 0), 2.0, EPS);
  assert_float_equal (rank_end (&r, 1), 3.001, EPS);
  replay_close (&r);
}

/* Rank 0 computes 1 s and sends 1000 B (eager). Rank 1 posts an irecv at
 * 0, tests it at 0.5 (it failed in the trace), computes until WAIT and
 * waits for it there (the message had arrived in the trace: the wait
 * returns at once). */
#define FAILED_TEST(WAIT)                                                          \
  "ranks 2\n"                                                                      \
  "0 0 enter main\n"                                                               \
  "0 1 enter MPI_Send\n0 1 send 1 bytes=1000\n0 1 leave MPI_Send\n"                \
  "0 1 leave main\n"                                                               \
  "1 0 enter main\n"                                                               \
  "1 0 enter MPI_Irecv\n1 0 irecv_request req=1\n1 0 leave MPI_Irecv\n"            \
  "1 0.5 enter MPI_Test\n1 0.5 request_test req=1\n1 0.5 leave MPI_Test\n"         \
  "1 " WAIT " enter MPI_Wait\n1 " WAIT " irecv 0 bytes=1000 req=1\n"               \
  "1 " WAIT " leave MPI_Wait\n"                                                    \
  "1 " WAIT " leave main\n"

/* Ensure that whether the request is complete is decided by the simulated
 * time, not the trace's. The message arrives at 1 + 0.002 = 1.002 s. At
 * the test (0.5 s) it has not: the test does not block, and rank 1 goes on.
 * Waited for at 1.5 s, after it arrived: the wait returns at once, rank 1
 * ends at 1.5 s. Waited for at 1.001 s, before it arrived (although the
 * trace's wait returned at once): rank 1 waits, and ends at 1.002 s. */
static void
test_failed_test_then_wait (void **state)
{
  Replay r;
  replay_open (&r, FAILED_TEST ("1.5"));
  replay_run (&r);
  assert_float_equal (rank_end (&r, 0), 1.0, EPS);
  assert_float_equal (rank_end (&r, 1), 1.5, EPS);
  replay_close (&r);

  replay_open (&r, FAILED_TEST ("1.001"));
  replay_run (&r);
  assert_float_equal (rank_end (&r, 1), 1.002, EPS);
  replay_close (&r);
}

/* Four ranks meet in a barrier; rank 3 computes 1 s before it, the others
 * enter at 0 and leave when rank 3 entered (at 1). */
#define BARRIER_RANK(R, T)                                                         \
  #R " 0 enter main\n"                                                             \
  #R " " #T " enter MPI_Barrier\n" #R " " #T " coll_begin\n"                       \
  #R " 1 coll_end barrier\n" #R " 1 leave MPI_Barrier\n" #R " 1 leave main\n"
static const char *barrier4 =
  "ranks 4\n"
  BARRIER_RANK (0, 0) BARRIER_RANK (1, 0) BARRIER_RANK (2, 0) BARRIER_RANK (3, 1);

/* Ensure that the barrier is dissemination in 2 rounds of 0-byte messages
 * (1 ms each): rank r sends to r + k and receives from r - k (mod 4), k = 1
 * then 2; a message moves once both sides posted.
 * Round 1: rank 1 gets rank 0's and rank 2 rank 1's at 0.001; rank 0 gets
 * rank 3's (sent at 1) and rank 3 rank 2's (received from 1) at 1.001.
 * Round 2: rank 0 gets rank 2's (rank 0 posts at 1.001) at 1.002; rank 1
 * gets rank 3's (sent at 1.001) at 1.002; rank 2 gets rank 0's (sent at
 * 1.001) at 1.002; rank 3 gets rank 1's (rank 3 posts at 1.001) at 1.002.
 * Every rank ends at 1.002 s: the last entry plus 2 latencies. */
static void
test_barrier_dissemination (void **state)
{
  Replay r;
  replay_open (&r, barrier4);
  replay_run (&r);
  for (guint i = 0; i < 4; i++)
    assert_float_equal (rank_end (&r, i), 1.002, EPS);
  assert_float_equal (r.result.runtime, 1.002, EPS);
  replay_close (&r);
}

/* Ensure that replays in one process do not leak into each other: the
 * barrier and the ping, each replayed twice, give the same results
 * bit for bit. */
static void
test_same_replay_twice (void **state)
{
  const char *scripts[] = { barrier4, ping };
  for (guint s = 0; s < G_N_ELEMENTS (scripts); s++)
    {
      Replay r;
      replay_open (&r, scripts[s]);
      replay_run (&r);
      TsReplayResult first = r.result;
      memset (&r.result, 0, sizeof r.result);
      replay_run (&r);
      assert_int_equal (first.n_ranks, r.result.n_ranks);
      assert_memory_equal (first.rank_end->data, r.result.rank_end->data,
                           first.n_ranks * sizeof (double));
      assert_true (first.runtime == r.result.runtime);
      assert_int_equal (first.actions_replayed, r.result.actions_replayed);
      assert_memory_equal (first.region_seconds, r.result.region_seconds,
                           first.n_regions * sizeof (double));
      ts_replay_result_clear (&first);
      replay_close (&r);
    }
}

/* The queue alone, under callbacks that write a transcript: "S<t>" for
 * settled() at t, "<cookie><t>" for a completion. */
typedef struct {
  TsEngine *e;
  GString *log;
  guint settles;
  double bad_burst;          /* started at the first settle if not 0 */
} Transcript;

static void
transcript_completed (gpointer data, gpointer cookie, gboolean failed)
{
  Transcript *t = data;
  assert_false (failed);
  g_string_append_printf (t->log, "%s%g ", (const char *) cookie, ts_engine_queue.now (t->e));
}

static void
transcript_settled (gpointer data)
{
  Transcript *t = data;
  g_string_append_printf (t->log, "S%g ", ts_engine_queue.now (t->e));
  if (t->settles++ > 0)
    return;
  if (t->bad_burst != 0)
    {
      ts_engine_queue.burst (t->e, t->bad_burst, "x");
      return;
    }
  ts_engine_queue.burst (t->e, 1.0, "a");
  ts_engine_queue.exec (t->e, (sg_host_t) ts_queue_host (&world, 1), 1e9, "b");
  ts_engine_queue.transfer (t->e, (sg_host_t) ts_queue_host (&world, 0),
                            (sg_host_t) ts_queue_host (&world, 1), 999.0, "e");
  ts_engine_queue.burst (t->e, 0.5, "c");
  ts_engine_queue.burst (t->e, 0, "d");
}

/* Ensure the queue's order and instants, started at 0 from the first
 * settled(): a 1 s burst (a), 1e9 flops at 1e9 flop/s (b, 1 s), 999 B
 * (e, 1 ms + 999 B / 1e6 B/s = 1 ms + 0.999 ms = 0.001999 s, printed with
 * %g's 6 digits), a 0.5 s burst (c)
 * and a 0 s one (d). d ends at 0 itself, after that settled() returned, and
 * is settled at 0 again; then e at 0.001999, c at 0.5, and a and b at 1 in the
 * order they were started, settled once after both; then nothing is left
 * and the clock stays at 1. */
static void
test_queue_order (void **state)
{
  Transcript t = { NULL, g_string_new (NULL), 0, 0 };
  TsEngineCallbacks cb = { transcript_completed, transcript_settled, &t };
  t.e = ts_engine_queue.create (&world, &cb);
  ts_engine_queue.settle_soon (t.e);
  ts_engine_queue.settle_soon (t.e); /* asked twice: settled once */
  GError *error = NULL;
  assert_true (ts_engine_queue.run (t.e, &error));
  assert_string_equal (t.log->str, "S0 d0 S0 e0.001999 S0.001999 c0.5 S0.5 a1 b1 S1 ");
  assert_float_equal (ts_engine_queue.now (t.e), 1.0, 0);
  ts_engine_queue.free (t.e);
  g_string_free (t.log, TRUE);
}

/* Ensure that a bad duration fails the run with what was wrong. */
static void
test_queue_bad_burst (void **state)
{
  Transcript t = { NULL, g_string_new (NULL), 0, -1.0 };
  TsEngineCallbacks cb = { transcript_completed, transcript_settled, &t };
  t.e = ts_engine_queue.create (&world, &cb);
  ts_engine_queue.settle_soon (t.e);
  GError *error = NULL;
  assert_false (ts_engine_queue.run (t.e, &error));
  assert_non_null (error);
  assert_non_null (strstr (error->message, "a burst of -1"));
  g_error_free (error);
  ts_engine_queue.free (t.e);
  g_string_free (t.log, TRUE);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_queue_order),
    cmocka_unit_test (test_queue_bad_burst),
    cmocka_unit_test (test_eager_ping),
    cmocka_unit_test (test_ping_as_executions),
    cmocka_unit_test (test_hypothesis_moves_prediction),
    cmocka_unit_test (test_rendezvous_waits_for_receiver),
    cmocka_unit_test (test_failed_test_then_wait),
    cmocka_unit_test (test_barrier_dissemination),
    cmocka_unit_test (test_same_replay_twice),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
