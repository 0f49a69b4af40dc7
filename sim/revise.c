#include <config.h>

/* Replays that revise their choices when they deadlock.
 *
 * Where the trace does not tell, the replay chooses: which message a
 * receive of unrecorded source takes (EZTrace's irecvs: the calibration's
 * guess), and whether a send of rendezvous size waits for its receiver (the
 * eager threshold). A wrong choice can block ranks forever although the
 * program finished. So when a replay deadlocks, the choices that caused it
 * are revised, one kind at a time, and the trace is replayed again:
 *   1. receives with guessed envelopes take their messages as they arrive;
 *      then, if that is not enough, so do those whose envelope MPI_Waitany
 *      & co. gave (EZTrace's may be an earlier call's status);
 *   2. the rendezvous sends the blocked ranks wait on are buffered, and with
 *      them the sends up to their size between the same two ranks: the
 *      program went past them, so its library buffered them (or their
 *      receives were posted in time under a matching the trace cannot show);
 *   3. where taking messages as they arrive gets stuck, the guesses again,
 *      with every send a deadlock blocked on buffered, and 2. again.
 * This goes on while each deadlock leaves something to revise, at most
 * TS_REPLAY_MAX_ROUNDS replays. A deadlock with nothing left to revise
 * (ranks blocked in receives no message reaches, collectives not every
 * member enters) is the trace contradicting itself, and is reported.
 *
 * SimGrid runs one simulation per process, so before the first replay a
 * server process is forked while the engine is still pristine. For each
 * revision it forks a worker that replays with the revised choices, writes
 * the predicted archive, and sends back its outcome: the result, or the
 * error and the sends its blocked ranks waited on. */
#define G_LOG_DOMAIN "ts-replay"

#include "sim/replay-private.h"
#include "model/fail.h"
#include "model/fd-io.h"
#include "model/output_dir.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define TS_REPLAY_MAX_ROUNDS 32

enum { OUTCOME_ERROR, OUTCOME_OK, OUTCOME_DIED };

/* ---- the worker's outcome -------------------------------------------------- */

static void
send_outcome (int fd, gboolean ok, const TsReplayResult *r, const GError *error,
              const GArray *blocked)
{
  guint8 status = ok ? OUTCOME_OK : OUTCOME_ERROR;
  ts_fd_write_all (fd, -1, &status, 1);
  if (ok)
    {
      guint32 n[2] = { r->n_ranks, r->n_regions };
      guint64 counts[2] = { r->actions_replayed, r->simcalls };
      ts_fd_write_all (fd, -1, n, sizeof n);
      ts_fd_write_all (fd, -1, counts, sizeof counts);
      ts_fd_write_all (fd, -1, &r->runtime, sizeof r->runtime);
      ts_fd_write_all (fd, -1, r->rank_end->data, r->n_ranks * sizeof (double));
      ts_fd_write_all (fd, -1, r->rank_time->data, r->n_ranks * sizeof (TsRankTime));
      ts_fd_write_all (fd, -1, r->region_seconds, r->n_regions * sizeof (double));
      ts_fd_write_all (fd, -1, r->region_residual, r->n_regions * sizeof (double));
      return;
    }
  const char *domain = error ? g_quark_to_string (error->domain) : "";
  const char *message = error ? error->message : "the replay failed";
  gint32 code = error ? error->code : 0;
  guint32 len[3] = { (guint32) strlen (domain), (guint32) strlen (message), blocked->len };
  ts_fd_write_all (fd, -1, len, sizeof len);
  ts_fd_write_all (fd, -1, &code, sizeof code);
  ts_fd_write_all (fd, -1, domain, len[0]);
  ts_fd_write_all (fd, -1, message, len[1]);
  ts_fd_write_all (fd, -1, blocked->data, blocked->len * sizeof (TsBlockedSend));
}

static gboolean
receive_result (int fd, TsReplayResult *r)
{
  guint32 n[2];
  guint64 counts[2];
  if (!ts_fd_read_all (fd, -1, n, sizeof n) || !ts_fd_read_all (fd, -1, counts, sizeof counts)
      || !ts_fd_read_all (fd, -1, &r->runtime, sizeof r->runtime))
    return FALSE;
  r->n_ranks = n[0];
  r->n_regions = n[1];
  r->actions_replayed = counts[0];
  r->simcalls = counts[1];
  r->rank_end = g_array_sized_new (FALSE, FALSE, sizeof (double), n[0]);
  g_array_set_size (r->rank_end, n[0]);
  r->rank_time = g_array_sized_new (FALSE, FALSE, sizeof (TsRankTime), n[0]);
  g_array_set_size (r->rank_time, n[0]);
  r->region_seconds = g_new0 (double, n[1]);
  r->region_residual = g_new0 (double, n[1]);
  return ts_fd_read_all (fd, -1, r->rank_end->data, n[0] * sizeof (double))
         && ts_fd_read_all (fd, -1, r->rank_time->data, n[0] * sizeof (TsRankTime))
         && ts_fd_read_all (fd, -1, r->region_seconds, n[1] * sizeof (double))
         && ts_fd_read_all (fd, -1, r->region_residual, n[1] * sizeof (double));
}

static gboolean
receive_outcome (int fd, TsReplayResult *r, GArray *blocked, GError **error)
{
  guint8 status = OUTCOME_DIED;
  if (!ts_fd_read_all (fd, -1, &status, 1) || status == OUTCOME_DIED)
    return ts_fail (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_DEADLOCK,
                    "the replay with revised choices died");
  if (status == OUTCOME_OK)
    return receive_result (fd, r)
           || ts_fail (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_DEADLOCK,
                       "the replay with revised choices sent a cut result");
  guint32 len[3] = { 0 };
  gint32 code = 0;
  if (!ts_fd_read_all (fd, -1, len, sizeof len) || !ts_fd_read_all (fd, -1, &code, sizeof code))
    return ts_fail (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_DEADLOCK,
                    "the replay with revised choices sent a cut error");
  g_autofree char *domain = g_malloc0 (len[0] + 1);
  g_autofree char *message = g_malloc0 (len[1] + 1);
  g_array_set_size (blocked, len[2]);
  ts_fd_read_all (fd, -1, domain, len[0]);
  ts_fd_read_all (fd, -1, message, len[1]);
  ts_fd_read_all (fd, -1, blocked->data, len[2] * sizeof (TsBlockedSend));
  g_set_error_literal (error, *domain ? g_quark_from_string (domain) : TS_REPLAY_ERROR, code,
                       message);
  return FALSE;
}

/* ---- the server ------------------------------------------------------------ */

typedef struct {
  pid_t pid;
  int go;                    /* to the server: a request (choices), end of file to exit */
  int back;                  /* from the server: each worker's outcome */
} Server;

static gboolean
read_choices (int fd, TsReplayChoices *ch)
{
  guint8 as_arrived;
  guint32 n;
  if (!ts_fd_read_all (fd, -1, &as_arrived, 1) || !ts_fd_read_all (fd, -1, &n, sizeof n))
    return FALSE;
  ch->guessed_as_arrived = as_arrived & 1;
  ch->status_as_arrived = (as_arrived & 2) != 0;
  g_hash_table_remove_all (ch->buffered_sends);
  for (guint32 i = 0; i < n; i++)
    {
      guint64 entry[2];
      if (!ts_fd_read_all (fd, -1, entry, sizeof entry))
        return FALSE;
      g_hash_table_insert (ch->buffered_sends, g_memdup2 (&entry[0], sizeof (guint64)),
                           g_memdup2 (&entry[1], sizeof (guint64)));
    }
  return TRUE;
}

static gboolean
write_choices (int fd, const TsReplayChoices *ch)
{
  guint8 as_arrived = (ch->guessed_as_arrived ? 1 : 0) | (ch->status_as_arrived ? 2 : 0);
  guint32 n = g_hash_table_size (ch->buffered_sends);
  gboolean ok = ts_fd_write_all (fd, -1, &as_arrived, 1) && ts_fd_write_all (fd, -1, &n, sizeof n);
  GHashTableIter it;
  gpointer key, upto;
  g_hash_table_iter_init (&it, ch->buffered_sends);
  while (ok && g_hash_table_iter_next (&it, &key, &upto))
    {
      guint64 entry[2] = { *(guint64 *) key, *(guint64 *) upto };
      ok = ts_fd_write_all (fd, -1, entry, sizeof entry);
    }
  return ok;
}

/* In a worker: one replay with @ch, its outcome down @fd. */
static void G_GNUC_NORETURN
worker (const TsTrace *trace, const TsCalibration *calibration, const TsReplayOptions *o,
        const TsReplayChoices *ch, int fd)
{
  TsReplayResult r = { 0 };
  GError *error = NULL;
  g_autoptr (GArray) blocked = g_array_new (FALSE, FALSE, sizeof (TsBlockedSend));
  gboolean ok = ts_replay_once (trace, calibration, o, ch, &r, blocked, &error);
  send_outcome (fd, ok, &r, error, blocked);
  _exit (0);
}

/* In the server: for each request, a worker; its outcome forwarded (or,
 * if it died without one, a word saying so). */
static void G_GNUC_NORETURN
serve (const TsTrace *trace, const TsCalibration *calibration, const TsReplayOptions *o,
       int go, int back)
{
  TsReplayChoices ch = { .buffered_sends = g_hash_table_new_full (g_int64_hash, g_int64_equal,
                                                                   g_free, g_free) };
  /* What runs beside the simulation runs once, in the parent. */
  TsReplayOptions own = *o;
  own.beside = NULL;
  o = &own;
  while (read_choices (go, &ch))
    {
      int out[2];
      if (pipe (out) != 0)
        _exit (1);
      fflush (NULL);
      pid_t server = getpid ();
      pid_t pid = fork ();
      if (pid == 0)
        {
          prctl (PR_SET_PDEATHSIG, SIGTERM);
          if (getppid () != server)
            _exit (0);
          close (out[0]);
          close (go);
          close (back);
          worker (trace, calibration, o, &ch, out[1]);
        }
      close (out[1]);
      g_autoptr (GByteArray) got = g_byte_array_new ();
      guint8 buffer[65536];
      ssize_t n;
      while (pid > 0 && ((n = read (out[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)))
        if (n > 0)
          g_byte_array_append (got, buffer, (guint) n);
      close (out[0]);
      int status;
      while (pid > 0 && waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
      if (got->len == 0)
        {
          guint8 died = OUTCOME_DIED;
          g_byte_array_append (got, &died, 1);
        }
      if (!ts_fd_write_all (back, -1, got->data, got->len))
        _exit (1);
    }
  _exit (0);
}

static gboolean
server_start (Server *sv, const TsTrace *trace, const TsCalibration *calibration,
              const TsReplayOptions *o)
{
  int go[2], back[2];
  if (pipe (go) != 0)
    return FALSE;
  if (pipe (back) != 0)
    {
      close (go[0]);
      close (go[1]);
      return FALSE;
    }
  fflush (NULL);
  pid_t parent = getpid ();
  sv->pid = fork ();
  if (sv->pid == 0)
    {
      /* Dies with its parent, silently: the parent says what became of
       * the output and removes it. Its workers die with it. */
      ts_output_dir_drop_cleanup ();
      prctl (PR_SET_PDEATHSIG, SIGTERM);
      if (getppid () != parent)
        _exit (0);
      close (go[1]);
      close (back[0]);
      serve (trace, calibration, o, go[0], back[1]);
    }
  close (go[0]);
  close (back[1]);
  if (sv->pid < 0)
    {
      close (go[1]);
      close (back[0]);
      return FALSE;
    }
  sv->go = go[1];
  sv->back = back[0];
  return TRUE;
}

static void
server_stop (Server *sv)
{
  close (sv->go);
  close (sv->back);
  int status;
  while (waitpid (sv->pid, &status, 0) < 0 && errno == EINTR)
    ;
}

/* ---- revising ---------------------------------------------------------------- */

/* Buffer sends between @pair up to @bytes in @table; whether that is new. */
static gboolean
buffer_upto (GHashTable *table, guint64 pair, guint64 bytes)
{
  guint64 *upto = g_hash_table_lookup (table, &pair);
  if (upto && *upto >= bytes)
    return FALSE;
  if (upto)
    *upto = bytes;
  else
    g_hash_table_insert (table, g_memdup2 (&pair, sizeof pair), g_memdup2 (&bytes, sizeof bytes));
  return TRUE;
}

typedef struct {
  GHashTable *seen;          /* every rendezvous send any deadlock blocked on, as buffered_sends */
  gboolean back_to_guesses;  /* receives taking messages as they arrive got stuck */
} Revising;

/* Revise @ch after a deadlock whose blocked ranks waited on the @blocked
 * rendezvous sends; FALSE when there is nothing left to revise.
 * First the guessed receives take their messages as they arrive (a wrong
 * guess can hold a rendezvous sender whose real receive was posted). Then
 * the sends blocked ranks wait on are buffered, by pair of ranks and size:
 * a library chooses its protocol by peer and size, not by iteration, so
 * where waiting for the receiver of B bytes deadlocked, the pair's sends up
 * to B bytes are buffered, and a pattern repeated every iteration is
 * revised once. When taking messages as they arrive leaves nothing to
 * revise, the guesses come back, with every send any deadlock blocked on
 * buffered. */
static gboolean
revise (TsReplayChoices *ch, const GArray *blocked, const TsCalibration *calibration, Revising *rv)
{
  gboolean changed = FALSE;
  for (guint i = 0; i < blocked->len; i++)
    {
      const TsBlockedSend *b = &g_array_index (blocked, TsBlockedSend, i);
      buffer_upto (rv->seen, b->pair, b->bytes);
    }
  if (!ch->guessed_as_arrived && !rv->back_to_guesses
      && ts_calibration_guessed_receives (calibration) > 0)
    {
      ch->guessed_as_arrived = TRUE;
      return TRUE;
    }
  /* Then the envelopes MPI_Waitany & co. gave, which EZTrace may have taken
   * from an earlier call's status. */
  if (!ch->status_as_arrived && ts_calibration_status_receives (calibration) > 0)
    {
      ch->status_as_arrived = TRUE;
      return TRUE;
    }
  for (guint i = 0; i < blocked->len; i++)
    {
      const TsBlockedSend *b = &g_array_index (blocked, TsBlockedSend, i);
      changed |= buffer_upto (ch->buffered_sends, b->pair, b->bytes);
    }
  if (!changed && ch->guessed_as_arrived && !rv->back_to_guesses
      && g_hash_table_size (rv->seen) > 0)
    {
      rv->back_to_guesses = TRUE;
      ch->guessed_as_arrived = FALSE;
      GHashTableIter it;
      gpointer pair, upto;
      g_hash_table_iter_init (&it, rv->seen);
      while (g_hash_table_iter_next (&it, &pair, &upto))
        buffer_upto (ch->buffered_sends, *(guint64 *) pair, *(guint64 *) upto);
      changed = TRUE;
    }
  return changed;
}

static gboolean
is_deadlock (const GError *error)
{
  return g_error_matches (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_DEADLOCK);
}

gboolean
ts_replay_run (const TsTrace *trace, const TsCalibration *calibration, const TsReplayOptions *o,
               TsReplayResult *result, GError **error)
{
  g_return_val_if_fail (o->platform_path != NULL, FALSE);
  memset (result, 0, sizeof *result);
  if (ts_replay_engine_started ())
    return ts_fail (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                    "SimGrid runs one simulation per process");
  if (!g_file_test (o->platform_path, G_FILE_TEST_IS_REGULAR))
    return ts_fail (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                    "%s: no such platform file", o->platform_path);
  Server server = { 0 };
  gboolean have_server = server_start (&server, trace, calibration, o);
  TsReplayChoices ch = { .buffered_sends = g_hash_table_new_full (g_int64_hash, g_int64_equal,
                                                                   g_free, g_free) };
  g_autoptr (GArray) blocked = g_array_new (FALSE, FALSE, sizeof (TsBlockedSend));
  GError *local = NULL;
  gboolean ok = ts_replay_once (trace, calibration, o, &ch, result, blocked, &local);
  guint rounds = 0;
  Revising rv = { g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free), FALSE };
  while (!ok && have_server && is_deadlock (local) && rounds + 1 < TS_REPLAY_MAX_ROUNDS
         && revise (&ch, blocked, calibration, &rv))
    {
      rounds++;
      g_debug ("the replay deadlocked; revision %u: receives %s, sends buffered between %u pairs",
               rounds,
               ch.guessed_as_arrived ? "as messages arrive" : "as guessed",
               g_hash_table_size (ch.buffered_sends));
      ts_replay_result_clear (result);
      memset (result, 0, sizeof *result);
      g_array_set_size (blocked, 0);
      GError *next = NULL;
      ok = write_choices (server.go, &ch)
           && receive_outcome (server.back, result, blocked, &next);
      if (next)
        g_debug ("revision %u: %s", rounds, next->message);
      /* Still deadlocked: the latest is reported, after what was revised. */
      g_clear_error (&local);
      local = next;
    }
  if (have_server)
    server_stop (&server);
  if (ok)
    {
      result->guessed_as_arrived = ch.guessed_as_arrived;
      result->status_as_arrived = ch.status_as_arrived;
      result->buffered_pairs = g_hash_table_size (ch.buffered_sends);
      result->revisions = rounds;
    }
  else if (local && rounds > 0 && is_deadlock (local))
    g_prefix_error (&local, "after %u revision%s of the replay's choices (receives %s, "
                            "rendezvous sends buffered between %u pairs of ranks), ", rounds,
                    rounds == 1 ? "" : "s",
                    ch.guessed_as_arrived ? "taking messages as they arrive" : "as guessed",
                    g_hash_table_size (ch.buffered_sends));
  g_hash_table_unref (ch.buffered_sends);
  g_hash_table_unref (rv.seen);
  if (local)
    g_propagate_error (error, local);
  return ok;
}
