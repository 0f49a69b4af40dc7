#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/progress.h"
#include "sim/world.h"
#include "sim/engine-ops.h"
#include "sim/platform.h"
#include "model/output_dir.h"
#include "calibrate/eager.h"

#include <simgrid/engine.h>
#include <simgrid/zone.h>
#include <xbt/log.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model/channel.h"
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

G_DEFINE_QUARK (ts-replay-error-quark, ts_replay_error)

void
ts_replay_options_init (TsReplayOptions *o)
{
  memset (o, 0, sizeof *o);
  o->eager_threshold = TS_EAGER_DEFAULT_THRESHOLD;
  o->trace_speed = 1e9;
}

/* The replay's modes by name (TsResidual, TsMpiProgress, TsMpiWait), in
 * their enums' order. */
static const char *const residual_names[] = { "pinned", "noise", "none", "scaled", NULL };
static const char *const mpi_progress_names[] = { "in-calls", "async", NULL };
static const char *const mpi_wait_names[] = { "recorded", "busy", "blocking", NULL };

/* Index of @text in @names into *@index; FALSE if it is not there. */
static gboolean
mode_parse (const char *const *names, const char *text, int *index)
{
  for (int i = 0; names[i]; i++)
    if (g_str_equal (text, names[i]))
      return (*index = i), TRUE;
  return FALSE;
}

gboolean
ts_residual_parse (const char *text, TsResidual *residual)
{
  int i;
  return mode_parse (residual_names, text, &i) && ((*residual = (TsResidual) i), TRUE);
}

const char *
ts_residual_name (TsResidual residual)
{
  return residual_names[residual];
}

gboolean
ts_mpi_progress_parse (const char *text, TsMpiProgress *progress)
{
  int i;
  return mode_parse (mpi_progress_names, text, &i) && ((*progress = (TsMpiProgress) i), TRUE);
}

const char *
ts_mpi_progress_name (TsMpiProgress progress)
{
  return mpi_progress_names[progress];
}

gboolean
ts_mpi_wait_parse (const char *text, TsMpiWait *wait)
{
  int i;
  return mode_parse (mpi_wait_names, text, &i) && ((*wait = (TsMpiWait) i), TRUE);
}

const char *
ts_mpi_wait_name (TsMpiWait wait)
{
  return mpi_wait_names[wait];
}

void
ts_replay_result_clear (TsReplayResult *r)
{
  g_clear_pointer (&r->rank_end, g_array_unref);
  g_clear_pointer (&r->rank_time, g_array_unref);
  g_clear_pointer (&r->region_seconds, g_free);
  g_clear_pointer (&r->region_residual, g_free);
}

static void
progress (TsSimulation *sim)
{
  if (!sim->options->progress || sim->actions_total == 0)
    return;
  guint pct = (guint) (100.0 * sim->actions_done / sim->actions_total);
  if (pct > 100)
    pct = 100;
  if (pct == sim->progress_shown)
    return;
  sim->progress_shown = pct;
  char bar[41];
  memset (bar, '#', pct * 40 / 100);
  memset (bar + pct * 40 / 100, '.', 40 - pct * 40 / 100);
  bar[40] = '\0';
  fprintf (stderr, "\rreplaying [%s] %3u%%", bar, pct);
  if (pct == 100)
    fputc ('\n', stderr);
}

/* The end of a rank's actions: what the trace left in flight is let go,
 * and its open regions are closed at its end. */
static void
rank_end (TsRank *rk)
{
  /* A trace cut inside an MPI_Sendrecv: its send was not waited for. */
  if (rk->sendrecv_send)
    rk->sim->world->release (g_steal_pointer (&rk->sendrecv_send));
  /* Requests never waited for: the program did not wait either. */
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, rk->requests);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      TsRequest *r = value;
      if (r->comm)
        rk->sim->world->release (r->comm);
      r->comm = NULL;
      if (r->helper)
        rk->sim->world->release_icoll (r->helper); /* it finishes on its own */
      r->helper = NULL;
    }
  ts_rank_close_regions (rk);
  rk->end_time = ts_rank_now (rk); /* with a sub-tick remainder */

  rk->done = TRUE;
}

/* Take the rank's next action, with the hypotheses applied; FALSE at the
 * end of its stream or on an error (the simulation's first error is kept). */
static gboolean
next_action (TsRank *rk)
{
  TsSimulation *sim = rk->sim;
  GError *error = NULL;
  if (rk->peeked)
    {
      rk->peeked = FALSE;
      return TRUE;
    }
  if (sim->error == NULL && ts_action_stream_next (sim->stream, rk->stream, &rk->action, &error))
    {
      /* The work as recorded, which TS_RESIDUAL_SCALED's rate is per. */
      if (rk->action.kind == TS_ACTION_COMPUTE)
        {
          rk->recorded_work += rk->action.seconds;
          /* A team thread's work is its rank's team's too (ts_rank_residual). */
          if (rk->in_team_now)
            sim->ranks[rk->rank].team_recorded_work += rk->action.seconds;
        }
      else if (rk->action.kind == TS_ACTION_THREAD_COMPUTE
               && !(rk->action.flags & TS_ACTION_LATE_WAKE))
        rk->team_recorded_work += rk->action.seconds;
      if (!rk->hypotheses || ts_hypothesis_rank_apply (rk->hypotheses, &rk->action, &error))
        return TRUE;
    }
  if (error && sim->error == NULL)
    sim->error = error;
  else
    g_clear_error (&error);
  return FALSE;
}

enum { LIFE_START, LIFE_LATE, LIFE_ACTION, LIFE_END, LIFE_DONE };

gboolean
ts_rank_step (TsProgress *x)
{
  TsRank *rk = x->rk;
  TsSimulation *sim = rk->sim;
  switch (rk->life)
    {
    case LIFE_START:
      {
        /* Ranks did not start together (MPI_Init returns at different
         * times): each starts at its first event's time after the earliest
         * rank's. */
        const TsCalibration *pr = sim->calibration;
        x->t0 = ts_calibration_rank_stats (pr, rk->rank)->first_time - ts_calibration_start (pr);
        rk->start_time = sim->world->now (sim);
        /* A thread with MPI begins where its first event is: the trace
         * records no creation to start it from (its rank's pthread_create
         * is not an event), so it keeps its traced start. */
        if (rk->thread > 0)
          {
            rk->peeked = next_action (rk);
            x->t0 = rk->peeked ? rk->action.time - ts_calibration_start (pr) : 0;
            /* One that works in its rank's teams starts with them. */
            if (ts_trace_stream_in_teams (sim->trace, rk->stream))
              x->t0 = 0;
          }
      }
      /* A late start is residual: the run without noise starts together. */
      if (x->t0 > 0 && isfinite (x->t0)
          && (rk->thread > 0 || sim->options->residual != TS_RESIDUAL_NONE))
        {
          TS_AT (rk->life, LIFE_LATE);
          if (!ts_step_sleep (x, x->t0))
            return FALSE;
        }
      while (next_action (rk))
        {
          TS_AT (rk->life, LIFE_ACTION);
          if (!ts_rank_do (x))
            return FALSE;
          rk->actions++;
          if ((++sim->actions_done & 0xfff) == 0)
            progress (sim);
        }
      {
        double rest = ts_rank_residual_rest (rk);
        rk->charged_residual += rest;
        rk->pending_compute += rest;
      }
      TS_AT (rk->life, LIFE_END);
      if (!ts_step_flush (x))
        return FALSE;
      rank_end (rk);
    }
  rk->life = LIFE_DONE;
  return TRUE;
}

/* ---- set-up ---------------------------------------------------------------- */

/* Rank r on the host the r-th line of the hostfile names. */
static gboolean
map_by_hostfile (TsSimulation *sim, GError **error)
{
  const TsReplayOptions *o = sim->options;
  gboolean ok = TRUE;
  g_autofree char *text = NULL;
  if (!g_file_get_contents (o->hostfile, &text, NULL, error))
    return FALSE;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint r = 0;
  for (guint i = 0; lines[i] && r < sim->n_ranks && ok; i++)
    {
      char *name = g_strstrip (lines[i]);
      if (*name == '\0' || *name == '#')
        continue;
      sg_host_t h = sg_host_by_name (name);
      if (!h)
        {
          g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                       "%s:%u: host '%.60s' is not in %s", o->hostfile, i + 1, name,
                       o->platform_name ? o->platform_name : o->platform_path);
          ok = FALSE;
          break;
        }
      sim->ranks[r++].host = h;
    }
  guint named = 0;
  for (guint i = 0; lines[i]; i++)
    named += *g_strstrip (lines[i]) != '\0' && *lines[i] != '#';
  if (ok && named != sim->n_ranks)
    {
      /* One line per rank: another count was written for another run. */
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                   "%s: names %u hosts, but the trace has %u ranks (one line per rank)",
                   o->hostfile, named, sim->n_ranks);
      ok = FALSE;
    }
  return ok;
}

gboolean
ts_placement_parse (const char *text, TsPlacement *placement)
{
  if (g_ascii_strcasecmp (text, "block") == 0)
    *placement = TS_PLACEMENT_BLOCK;
  else if (g_ascii_strcasecmp (text, "cyclic") == 0)
    *placement = TS_PLACEMENT_CYCLIC;
  else
    return FALSE;
  return TRUE;
}

/* node-2 before node-10, as a user counts them (SimGrid lists by name). */
static gint
compare_hosts (gconstpointer a, gconstpointer b)
{
  g_autofree char *ka = g_utf8_collate_key_for_filename (sg_host_get_name (*(sg_host_t *) a), -1);
  g_autofree char *kb = g_utf8_collate_key_for_filename (sg_host_get_name (*(sg_host_t *) b), -1);
  return strcmp (ka, kb);
}

/* The cores a rank takes on a host: one for each of its threads (MPI +
 * OpenMP), or one rank's worth where --ranks-per-node counts ranks. */
static guint
rank_slots (const TsSimulation *sim, guint r)
{
  return sim->options->ranks_per_node ? 1 : MAX (1, ts_trace_rank_n_threads (sim->trace, r));
}

/* The host for a rank taking @need cores, from @h on among the @used first:
 * the next with room for all of them; failing that (more threads than a
 * host has cores, or room a cyclic placement split up), the next with any. */
static size_t
host_for (const guint *capacity, size_t h, size_t used, guint need)
{
  for (size_t tries = 0; capacity[h] < need && tries < used; tries++)
    h = (h + 1) % used;
  for (size_t tries = 0; capacity[h] == 0 && tries < used; tries++)
    h = (h + 1) % used;
  return h;
}

/* Ranks on the first nodes, @capacity each at most (block: filling each in
 * turn; cyclic: one per node in turn, over as few nodes as hold them all). */
static gboolean
place_ranks (TsSimulation *sim, sg_host_t *hosts, size_t n_hosts, GError **error)
{
  const TsReplayOptions *o = sim->options;
  guint *capacity = g_new (guint, n_hosts);
  guint64 slots = 0, needed = 0;
  size_t used = 0;
  for (guint r = 0; r < sim->n_ranks; r++)
    needed += rank_slots (sim, r);
  for (size_t h = 0; h < n_hosts; h++)
    {
      guint cores = MAX (1, sg_host_core_count (hosts[h]));
      capacity[h] = o->ranks_per_node ? o->ranks_per_node : cores;
      if (slots < needed)
        {
          slots += capacity[h];
          used = h + 1;
        }
      if (o->ranks_per_node > cores && h < used)
        {
          g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                       "%s: host %s has %u cores, fewer than --ranks-per-node %u",
                       o->platform_name ? o->platform_name : o->platform_path,
                       sg_host_get_name (hosts[h]), cores, o->ranks_per_node);
          g_free (capacity);
          return FALSE;
        }
    }
  /* A core per rank at least; a rank's other threads share its host's
   * cores where there are fewer (the sharing is simulated, sim/team.c). */
  const char *platform = o->platform_name ? o->platform_name : o->platform_path;
  if (slots < sim->n_ranks && o->ranks_per_node)
    g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                 "%s: %u ranks at %u per node need %u nodes, and the platform has %zu", platform,
                 sim->n_ranks, o->ranks_per_node,
                 (sim->n_ranks + o->ranks_per_node - 1) / o->ranks_per_node, n_hosts);
  else if (slots < sim->n_ranks)
    g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM,
                 "%s: %u ranks need %u cores (one rank per core), and the platform's %zu hosts "
                 "have %" G_GUINT64_FORMAT " (give a bigger platform, or a hostfile)", platform,
                 sim->n_ranks, sim->n_ranks, n_hosts, slots);
  if (slots < sim->n_ranks)
    {
      g_free (capacity);
      return FALSE;
    }
  size_t h = 0;
  for (guint r = 0; r < sim->n_ranks; r++)
    {
      guint need = rank_slots (sim, r);
      h = host_for (capacity, h, used, need);
      sim->ranks[r].host = hosts[h];
      capacity[h] -= MIN (need, capacity[h]);
      if (o->placement == TS_PLACEMENT_CYCLIC)
        h = (h + 1) % used;
    }
  g_free (capacity);
  return TRUE;
}

static gboolean
map_ranks (TsSimulation *sim, GError **error)
{
  const TsReplayOptions *o = sim->options;
  size_t n_hosts = sg_host_count ();
  sg_host_t *hosts = sg_host_list ();
  qsort (hosts, n_hosts, sizeof *hosts, (int (*) (const void *, const void *)) compare_hosts);
  gboolean ok = o->hostfile ? map_by_hostfile (sim, error) : place_ranks (sim, hosts, n_hosts, error);
  free (hosts);
  for (guint r = 0; ok && r < sim->n_ranks; r++)
    sim->ranks[r].speed = sg_host_get_speed (sim->ranks[r].host);
  if (ok && !o->exact_cpu)
    {
      /* Ranks that never share a core compute at the host's full speed:
       * where the host has a core for every thread of its ranks. */
      g_autoptr (GHashTable) per_host = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint r = 0; r < sim->n_ranks; r++)
        {
          gpointer n = g_hash_table_lookup (per_host, sim->ranks[r].host);
          g_hash_table_insert (per_host, sim->ranks[r].host,
                               GUINT_TO_POINTER (GPOINTER_TO_UINT (n) + ts_rank_threads (sim, r)));
        }
      for (guint r = 0; r < sim->n_ranks; r++)
        sim->ranks[r].exclusive_cpu
          = GPOINTER_TO_UINT (g_hash_table_lookup (per_host, sim->ranks[r].host))
            <= (guint) MAX (1, sg_host_core_count (sim->ranks[r].host));
    }
  return ok;
}

static void
report_deadlock (TsSimulation *sim, GError **error)
{
  GString *msg = g_string_new ("the replay deadlocks: ");
  guint blocked = 0;
  for (guint i = 0; i < sim->n_streams; i++)
    if (!sim->ranks[i].done)
      blocked++;
  g_string_append_printf (msg, "%u of %u %s are blocked forever at t=%.9f s:", blocked,
                          sim->n_streams, sim->n_streams > sim->n_ranks ? "locations" : "ranks",
                          sim->world->now (sim));
  for (guint i = 0; i < sim->n_streams; i++)
    {
      TsRank *rk = &sim->ranks[i];
      guint r = rk->rank;
      if (rk->done)
        continue;
      const TsBlockedOn *b = &rk->blocked;
      g_string_append_printf (msg, "\n  rank %u", r);
      if (rk->thread > 0)
        g_string_append_printf (msg, ", thread %u", rk->thread);
      g_string_append_printf (msg, ": %s", rk->blocked_now ? b->what : "blocked");
      if (rk->blocked_now && b->peer != TS_NO_RANK)
        g_string_append_printf (msg, " rank %d (communicator %s, tag %d, %" G_GUINT64_FORMAT
                                " bytes)", b->peer, ts_trace_comm_name (sim->trace, b->comm),
                                b->tag, b->bytes);
      if (rk->blocked_now && b->lock)
        g_string_append_printf (msg, " %u, held by its thread %u", b->lock_id, b->lock_holder);
      g_string_append_printf (msg, " after %" G_GUINT64_FORMAT " actions", rk->actions);
      if (rk->blocked_now && b->rendezvous_send && b->peer >= 0 && sim->blocked_sends)
        {
          TsBlockedSend s = { ts_send_pair (r, (guint) b->peer), b->bytes };
          g_array_append_val (sim->blocked_sends, s);
        }
    }
  /* EZTrace records no source for irecvs: which message each took is the
   * calibration's guess, harmless while sends are eager, fatal to a rendezvous
   * send whose receiver was guessed to take another message first. */
  guint64 guessed = 0;
  for (guint r = 0; r < sim->n_ranks; r++)
    {
      const GArray *inferred = ts_calibration_inferred (sim->calibration, r);
      for (guint i = 0; i < inferred->len; i++)
        guessed += g_array_index (inferred, TsEnvelope, i).peer != TS_NO_RANK;
    }
  if (guessed > 0 && sim->guessed_as_arrived)
    g_string_append_printf (msg, "\n  %" G_GUINT64_FORMAT " receives of this trace recorded no "
                            "source and took their messages as they arrived", guessed);
  else if (guessed > 0)
    g_string_append_printf (msg, "\n  %" G_GUINT64_FORMAT " receives of this trace recorded no "
                            "source and were matched to messages by send order; messages of "
                            "%" G_GUINT64_FORMAT " bytes or more wait for their receiver "
                            "(--eager-threshold): a larger threshold cannot deadlock on a wrong "
                            "match", guessed, sim->options->eager_threshold);
  g_set_error_literal (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_DEADLOCK, msg->str);
  g_string_free (msg, TRUE);
}

static gboolean engine_started;

gboolean
ts_replay_engine_started (void)
{
  return engine_started;
}


/* The predicted archive, with the trace's regions and communicators defined
 * under the trace's own indices (the writer's world communicator is 0). */
static gboolean
open_writer (TsSimulation *sim, GError **error)
{
  const TsTrace *trace = sim->trace;
  g_autofree char *dir = g_strdup (sim->options->predicted_dir);
  /* Each rank's threads (with those a what-if adds) are locations of its
   * own in the predicted archive. */
  g_autofree guint *threads = g_new (guint, sim->n_ranks);
  gboolean any = FALSE;
  for (guint r = 0; r < sim->n_ranks; r++)
    any |= (threads[r] = ts_rank_threads (sim, r)) > 1;
  /* Threads with MPI of their own keep their locations, whatever a
   * `threads = N` rule makes of the teams. */
  for (guint i = sim->n_ranks; i < sim->n_streams; i++)
    {
      guint r = ts_trace_stream_rank (sim->trace, i), k = ts_trace_stream_thread (sim->trace, i);
      threads[r] = MAX (threads[r], k + 1);
      any = TRUE;
    }
  sim->writer = ts_archive_writer_new_threads (dir, "traces", sim->n_ranks, any ? threads : NULL,
                                               error);
  if (!sim->writer)
    return FALSE;
  ts_archive_writer_set_origin (sim->writer, ts_trace_creator (trace));
  ts_archive_writer_set_prediction (sim->writer);
  for (guint i = 0; i < ts_trace_n_regions (trace); i++)
    {
      TsRegionKind kind = ts_trace_region_call (trace, i) != TS_CALL_USER ? TS_REGION_MPI
                          : ts_trace_region_team_barrier (trace, i) ? TS_REGION_TEAM_BARRIER
                          : TS_REGION_USER;
      guint32 id = ts_archive_writer_define_region (sim->writer, ts_trace_region_name (trace, i),
                                                    kind);
      /* Demangled names, and the mangled ones where Score-P keeps them. */
      ts_archive_writer_set_region_canonical (sim->writer, id,
                                              ts_trace_region_canonical_name (trace, i));
    }
  for (guint c = 0; c < ts_trace_n_comms (trace); c++)
    {
      if (c == ts_trace_world_comm (trace) && c == 0)
        continue;
      guint n = ts_trace_comm_size (trace, c);
      const guint32 *m = ts_trace_comm_members (trace, c);
      guint32 self = 0;
      ts_archive_writer_define_comm (sim->writer, ts_trace_comm_name (trace, c), m ? n : 1,
                                     m ? m : &self);
    }
  return TRUE;
}

/* Each rank's replay, on the host (and speed) its set-up gave it. */
static void
start_ranks (TsSimulation *sim)
{
  const TsReplayOptions *o = sim->options;
  for (guint i = 0; i < sim->n_streams; i++)
    {
      TsRank *rk = &sim->ranks[i];
      guint r = ts_trace_stream_rank (sim->trace, i);
      rk->sim = sim;
      rk->rank = r;
      rk->stream = i;
      rk->thread = ts_trace_stream_thread (sim->trace, i);
      rk->location = sim->writer && rk->thread ? ts_archive_writer_thread (sim->writer, r, rk->thread)
                                               : r;
      if (i >= sim->n_ranks)
        {
          /* On its rank's host, sharing its cores as its teams' threads do. */
          rk->host = sim->ranks[r].host;
          rk->speed = sim->ranks[r].speed;
          rk->exclusive_cpu = sim->ranks[r].exclusive_cpu;
          if (ts_trace_stream_in_teams (sim->trace, i))
            {
              if (!sim->ranks[r].team_streams)
                sim->ranks[r].team_streams = g_ptr_array_new ();
              g_ptr_array_add (sim->ranks[r].team_streams, rk);
            }
        }
      rk->icoll_seq = g_new0 (guint32, ts_trace_n_comms (sim->trace));
      rk->open_regions = g_array_new (FALSE, FALSE, sizeof (TsOpenRegion));
      /* Senders tell which of their messages go to receives taking them as
       * they arrive: in the first replay, as before status envelopes were
       * revisable, only where some envelope is guessed. */
      if (ts_calibration_guessed_receives (sim->calibration) > 0
          || (sim->status_as_arrived && ts_calibration_status_receives (sim->calibration) > 0))
        rk->sent_on = g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free, g_free);
      if (o->hypotheses)
        rk->hypotheses = ts_hypothesis_rank_new (o->hypotheses, i, G_MAXUINT);
      rk->requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, ts_request_free);
      rk->progress = g_new (TsProgress, 1);
      ts_progress_init (rk->progress, rk, TRUE, &rk->causal, &rk->action, TS_COLLECTIVE_TAG);
    }
}

/* Run the simulation to its end: a progress's error, or ranks still blocked
 * when nothing can move any more (a deadlock), fail it. */
static gboolean
simulate (TsSimulation *sim, GError **error)
{
  gint64 t_run = g_get_monotonic_time ();
  GError *failed = NULL;
  if (!sim->world->run (sim, &failed) && !sim->error)
    sim->error = failed;
  else
    g_clear_error (&failed);
  g_debug ("simulation on %s: %.3f s wall", sim->world->name,
           (g_get_monotonic_time () - t_run) / 1e6);
  if (sim->error)
    {
      g_propagate_error (error, g_steal_pointer (&sim->error));
      return FALSE;
    }
  for (guint i = 0; i < sim->n_streams; i++)
    if (!sim->ranks[i].done)
      {
        report_deadlock (sim, error);
        return FALSE;
      }
  return TRUE;
}

static void
collect_result (TsSimulation *sim, TsReplayResult *result)
{
  result->n_ranks = sim->n_ranks;
  result->rank_end = g_array_sized_new (FALSE, FALSE, sizeof (double), sim->n_ranks);
  result->rank_time = g_array_sized_new (FALSE, FALSE, sizeof (TsRankTime), sim->n_ranks);
  double start = INFINITY, end = -INFINITY;
  for (guint r = 0; r < sim->n_ranks; r++)
    start = MIN (start, sim->ranks[r].start_time);
  for (guint r = 0; r < sim->n_ranks; r++)
    {
      double e = sim->ranks[r].end_time - start;
      g_array_append_val (result->rank_end, e);
      const TsRank *rk = &sim->ranks[r];
      double k = sim->options->trace_speed / rk->speed; /* CPU seconds to seconds */
      TsRankTime t = { rk->charged_work * k, rk->simulated,
                       rk->charged_residual * k + rk->late_start };
      g_array_append_val (result->rank_time, t);
      end = MAX (end, sim->ranks[r].end_time);
      result->actions_replayed += sim->ranks[r].actions;
      result->simcalls += sim->ranks[r].simcalls;
    }
  /* A rank's threads with MPI end with it at the latest (its time by kind
   * stays its own location's). */
  for (guint i = sim->n_ranks; i < sim->n_streams; i++)
    {
      const TsRank *rk = &sim->ranks[i];
      double *e = &g_array_index (result->rank_end, double, rk->rank);
      *e = MAX (*e, rk->end_time - start);
      end = MAX (end, rk->end_time);
      result->actions_replayed += rk->actions;
      result->simcalls += rk->simcalls;
    }
  result->runtime = end - start;
  result->n_regions = ts_trace_n_regions (sim->trace);
  result->region_seconds = g_new (double, result->n_regions);
  result->region_residual = g_memdup2 (sim->region_residual, result->n_regions * sizeof (double));
  for (guint i = 0; i < result->n_regions; i++)
    result->region_seconds[i] = ts_fsum_result (&sim->region_seconds[i]);
}

/* Close the predicted archive after the caller's last word (before_close)
 * if the run succeeded; remove it otherwise (the caller hears of it too). */
static gboolean
finish_writer (TsSimulation *sim, gboolean ok, GError **error)
{
  const TsReplayOptions *o = sim->options;
  if (o->before_close)
    ok = o->before_close (sim->writer, ok, o->before_close_data, ok ? error : NULL) && ok;
  gint64 t_close = g_get_monotonic_time ();
  if (ok)
    ok = ts_archive_writer_close (sim->writer, error);
  else
    ts_archive_writer_abort (sim->writer);
  sim->writer = NULL;
  g_debug ("predicted archive: %.3f s wall to finish", (g_get_monotonic_time () - t_close) / 1e6);
  return ok;
}

static void
simulation_clear (TsSimulation *sim)
{
  for (guint r = 0; r < sim->n_streams && sim->ranks; r++)
    {
      TsRank *rk = &sim->ranks[r];
      g_clear_pointer (&rk->requests, g_hash_table_unref);
      g_clear_pointer (&rk->swapped, g_hash_table_unref);
      g_clear_pointer (&rk->any, g_ptr_array_unref);
      g_clear_pointer (&rk->any_comms, g_ptr_array_unref);
      g_clear_pointer (&rk->icoll_seq, g_free);
      g_clear_pointer (&rk->open_regions, g_array_unref);
      g_clear_pointer (&rk->sent_on, g_hash_table_unref);
      g_clear_pointer (&rk->team_streams, g_ptr_array_unref);
      ts_team_clear (rk);
      ts_locks_clear (rk);
      ts_partitioned_rank_clear (rk);
      g_clear_pointer (&rk->hypotheses, ts_hypothesis_rank_free);
      if (rk->progress)
        ts_progress_clear (rk->progress);
      g_clear_pointer (&rk->progress, g_free);
    }
  g_clear_pointer (&sim->stream, ts_action_stream_free);
  g_clear_pointer (&sim->receiver_posts, g_hash_table_unref);
  g_clear_pointer (&sim->ranks, g_free);
  if (sim->region_seconds)
    for (guint i = 0; i < ts_trace_n_regions (sim->trace); i++)
      ts_fsum_clear (&sim->region_seconds[i]);
  g_clear_pointer (&sim->region_seconds, g_free);
  g_clear_pointer (&sim->region_residual, g_free);
  g_clear_error (&sim->error);
}

void
ts_simulation_init (TsSimulation *sim, const TsTrace *trace, const TsCalibration *calibration,
                    const TsReplayOptions *o, const TsReplayChoices *choices,
                    GArray *blocked_sends)
{
  memset (sim, 0, sizeof *sim);
  sim->trace = trace;
  sim->calibration = calibration;
  sim->options = o;
  sim->world = &ts_world_maestro;
  sim->engine_ops = &ts_engine_s4u;
  sim->n_ranks = ts_trace_n_ranks (trace);
  sim->n_streams = ts_trace_n_streams (trace);
  sim->ranks = g_new0 (TsRank, sim->n_streams);
  sim->region_seconds = g_new0 (TsFsum, ts_trace_n_regions (trace));
  sim->region_residual = g_new0 (double, ts_trace_n_regions (trace));
  sim->actions_total = ts_calibration_actions (calibration);
  sim->clock_tick = 1.0 / (double) ts_trace_timer_resolution (trace);
  sim->traced_network_known = ts_calibration_network (calibration).samples > 0;
  sim->binomial_tree = o->binomial_tree;
  sim->guessed_as_arrived = choices->guessed_as_arrived;
  sim->status_as_arrived = choices->status_as_arrived;
  sim->buffered_sends = choices->buffered_sends;
  sim->blocked_sends = blocked_sends;
  sim->receiver_posts = g_hash_table_new_full (ts_channel_hash, ts_channel_equal, g_free,
                                               (GDestroyNotify) g_queue_free);
}

gboolean
ts_simulation_run (TsSimulation *sim, gboolean placed, TsReplayResult *result, GError **error)
{
  const TsReplayOptions *o = sim->options;
  gboolean ok = placed;
  if (ok)
    {
      sim->stream = ts_calibration_stream_open (sim->calibration, sim->trace, error);
      ok = sim->stream != NULL;
    }
  if (ok && o->predicted_dir)
    ok = open_writer (sim, error);
  if (ok)
    {
      if (o->beside)
        o->beside (sim->writer, o->beside_data);
      /* After beside, which may fork a probe: threads do not follow. */
      if (sim->writer)
        ts_archive_writer_create_files_beside (sim->writer);
      /* The actions are decoded on another core while the simulation
       * runs: a tenth of a 64-rank replay's time was spent decoding them. */
      ts_action_stream_read_ahead (sim->stream, TS_READ_AHEAD_BUDGET);
      start_ranks (sim);
      ok = simulate (sim, error);
    }
  if (ok)
    collect_result (sim, result);
  /* The ranks' state goes before the archive is finished, which may first
   * analyse the predicted wait states (beyond 21,845 ranks they run after
   * the replay, pipeline/run-waits.c): their state then takes the place of
   * the ranks'. */
  simulation_clear (sim);
  if (sim->writer)
    ok = finish_writer (sim, ok, error);
  return ok;
}

/* The replay itself, in this process's one SimGrid engine. */
gboolean
ts_replay_once (const TsTrace *trace, const TsCalibration *calibration, const TsReplayOptions *o,
                const TsReplayChoices *choices, TsReplayResult *result, GArray *blocked_sends,
                GError **error)
{
  engine_started = TRUE;

  ts_engine_init (o);

  /* A file SimGrid cannot load was refused by ts_replay_check_config(). */
  simgrid_load_platform (o->platform_path);

  TsSimulation sim;
  ts_simulation_init (&sim, trace, calibration, o, choices, blocked_sends);
  sim.platform_is_traced
    = sg_zone_get_property_value (sg_zone_get_root (), TS_PLATFORM_TRACED_NETWORK) != NULL;
  sim.traced_network_known = sim.traced_network_known || sim.platform_is_traced;
  return ts_simulation_run (&sim, map_ranks (&sim, error), result, error);
}
