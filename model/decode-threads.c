/* A rank's threads, read beside its own location.
 *
 * OTF2's threading events on a rank's own location (decode.c registers
 * them): OpenMP's fork, join and thread teams, pthreads' create and wait,
 * locks and tasks, are counted (TsDecodeStats.thread_events), so that
 * `info` says what the trace holds. A location's THREAD_BEGIN and
 * THREAD_END, which EZTrace writes on every rank, mark its life and are not
 * counted.
 *
 * Thread teams are replayed as phases. A team (the rank's THREAD_TEAM_BEGIN
 * .. END) is cut by its barriers into phases; in each, every thread works,
 * and the barrier ends the phase when the slowest thread's work is done.
 * The rank's own location is replayed as it is, its time inside a barrier
 * dropped (it was waiting); the other threads' work of the phase, read from
 * their own locations as the phase begins, becomes THREAD_COMPUTE actions
 * (per thread and region, so that hypotheses scale them) and a TEAM_FORK
 * that starts them beside the rank's own work; the barrier that ends the
 * phase is a TEAM_BARRIER. What a thread did outside a team, or between
 * its barrier's ENTER and LEAVE, is no work. Each thread is taken to have
 * a core of its own. */
#include <config.h>

#define G_LOG_DOMAIN "ts-stream"

#include "model/decode-private.h"
#include "model/trace-private.h"

#include <math.h>


/* ---- the other threads of a rank ---------------------------------------- */

/* A thread's work in one region in the phase, or (lock 1: taken, 2:
 * released) one of its lock events, which order its work around them. */
typedef struct {
  guint32 region;
  double seconds;
  guint8 lock;
  guint32 lock_id;
} TeamBurst;

/* One of the rank's other threads, read as far as the rank's team needs. */
typedef struct {
  OTF2_EvtReader *reader;
  TsArchiveFeed *feed;       /* or the events a replay logs for it (a predicted execution) */
  const TsTrace *trace;
  GArray *stack;             /* guint32 regions open on the thread */
  GArray *bursts;            /* TeamBurst: its work in the phase being read */
  double last;               /* the time up to which its work is counted */
  gboolean in_team, in_barrier;
  /* Its teams are marked by its implicit task regions (EZTrace's OMPT
   * layout: no team events on a worker), and the stack depth of the one
   * open + 1 (0: none). Once it shows a team event, they are not. */
  gboolean team_events;
  guint task_depth;
  gboolean boundary;         /* the phase read ended (a barrier, the team's end) */
  gboolean eof;              /* all its events read: OTF2 fails if asked again */
  guint64 teams_ended;       /* the teams it has ended */
  guint64 teams_skipped;     /* the rank's teams it was not in, and the last one */
  guint64 last_skipped;
  double began;              /* when its part of the phase read began (it joined the team,
                              * or left its barrier); -inf: not in it */
  double wait_from;          /* when it began to wait in the phase read (entered its
                              * barrier, ended the team); -inf: it did not */
  gboolean cpu_known;        /* its last CPU time reading (compute from CPU time): */
  double cpu_value, cpu_time; /* the value, and when */
  gboolean stream;           /* a stream of its own (it calls MPI): nothing of it here */
  gboolean mpi_team;         /* and one that joins the teams' phases (read there) */
  double enter_time;         /* of its last ENTER */
} TeamWorker;

struct TsTeamDecoder {
  guint n;
  TeamWorker *workers;       /* the rank's threads but its own, in thread order */
  gboolean active;           /* inside a team of the rank's own location */
  guint64 teams;             /* the teams it has begun */
  guint barrier_depth;       /* the stack depth of its open barrier + 1; 0: none */
  guint32 barrier_region;    /* and that barrier */
  double phase_start;        /* when the phase began for its threads (the team's fork, or
                              * the barrier's release: the rank's own late leave after it
                              * is the barrier's residual) */
  double longest;            /* and when the last of its other threads' work in it ends */
  gboolean forked;           /* they have work in it (a TEAM_FORK was pushed) */
  guint requested;           /* threads the fork before the team asked for (THREAD_FORK;
                              * 0: all, or no fork seen) */
  guint size;                /* the team's threads, its own included: the rank's threads,
                              * or fewer where its fork asked for fewer */
  guint64 members;           /* which: bit k for thread k (0, the rank's own, always; the
                              * first size - 1 others with events, in thread order; from
                              * 64 on, all), as TEAM_BEGIN's bytes */
  double barrier_enter;      /* when it entered the open barrier */
};

static double
worker_seconds (const TeamWorker *w, OTF2_TimeStamp t)
{
  return (double) (t - w->trace->global_offset) / (double) w->trace->timer_resolution;
}

/* The thread's time since w->last, @seconds of it work in its innermost
 * region (outside its barriers, inside a team). */
static void
worker_account_seconds (TeamWorker *w, double now, double seconds)
{
  if (w->in_team && !w->in_barrier && now > w->last && seconds > 0)
    {
      guint32 region = w->stack->len ? g_array_index (w->stack, guint32, w->stack->len - 1)
                                     : NO_REGION;
      /* One burst a region, but lock events keep their place: the work
       * after one is not merged with that before. */
      guint i = w->bursts->len;
      while (i > 0 && !g_array_index (w->bursts, TeamBurst, i - 1).lock)
        i--;
      while (i < w->bursts->len && g_array_index (w->bursts, TeamBurst, i).region != region)
        i++;
      if (i == w->bursts->len)
        {
          TeamBurst b = { region, 0 };
          g_array_append_val (w->bursts, b);
        }
      g_array_index (w->bursts, TeamBurst, i).seconds += seconds;
    }
  w->last = MAX (w->last, now);
}

/* The thread's wall time since w->last is work. */
static void
worker_account (TeamWorker *w, double now)
{
  worker_account_seconds (w, now, now - w->last);
}

/* A reading of its CPU time (compute from CPU time, written before an
 * ENTER or LEAVE as tracesim-record does): the time since the last
 * reading, when nothing was counted in between, is that much work. */
static OTF2_CallbackCode
worker_metric (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
               OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
               const OTF2_MetricValue *values)
{
  TeamWorker *w = ud;
  double cpu;
  if (!ts_decode_cpu_reading (w->trace, metric, n, types, values, &cpu))
    return OTF2_CALLBACK_SUCCESS;
  double now = worker_seconds (w, t);
  if (w->cpu_known && w->last == w->cpu_time)
    worker_account_seconds (w, now, MIN (cpu - w->cpu_value, now - w->last));
  else
    worker_account (w, now);
  w->last = MAX (w->last, now);
  w->cpu_known = TRUE;
  w->cpu_value = cpu;
  w->cpu_time = now;
  return OTF2_CALLBACK_SUCCESS;
}

/* The thread's part of a team begins at @t. */
static void
worker_join (TeamWorker *w, OTF2_TimeStamp t)
{
  if (!w->in_team)
    {
      w->in_team = TRUE;
      w->in_barrier = FALSE;
      w->last = worker_seconds (w, t);
      w->began = w->last;
    }
}

/* ... and ends at @t. */
static void
worker_part_ends (TeamWorker *w, OTF2_TimeStamp t)
{
  worker_account (w, worker_seconds (w, t));
  if (w->in_team)
    {
      w->boundary = TRUE;
      w->teams_ended++;
      w->wait_from = worker_seconds (w, t);
    }
  w->in_team = FALSE;
}

/* The thread takes (@op 1) or releases (2) @lock at @t, in its team: taken
 * right after an ENTER (of the critical construct, of omp_set_lock), the
 * time since is waiting for it, not work (as ts_decode_lock). */
static OTF2_CallbackCode
worker_lock (TeamWorker *w, OTF2_TimeStamp t, guint8 op, uint32_t lock)
{
  double now = worker_seconds (w, t), waited = 0;
  if (op == 1 && w->stack->len > 0 && w->enter_time == w->last)
    {
      waited = MAX (0, now - w->last);
      w->last = MAX (w->last, now);
    }
  else
    worker_account (w, now);
  if (w->in_team && !w->in_barrier)
    {
      /* Its wait, which the replay simulates anew, is no work; but it is
       * part of the phase's time the trace explains (no residual). */
      TeamBurst b = { w->stack->len ? g_array_index (w->stack, guint32, w->stack->len - 1)
                                    : NO_REGION, waited, op, lock };
      g_array_append_val (w->bursts, b);
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
worker_acquire_lock (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                     OTF2_AttributeList *a, OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
  return worker_lock (ud, t, 1, lock);
}

static OTF2_CallbackCode
worker_release_lock (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                     OTF2_AttributeList *a, OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
  return worker_lock (ud, t, 2, lock);
}

static OTF2_CallbackCode
worker_enter (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
              OTF2_AttributeList *a, OTF2_RegionRef ref)
{
  TeamWorker *w = ud;
  gint region = ts_trace_region_of_ref (w->trace, ref);
  worker_account (w, worker_seconds (w, t));
  w->enter_time = w->last;
  guint32 r = region < 0 ? NO_REGION : (guint32) region;
  g_array_append_val (w->stack, r);
  if (region >= 0 && !w->team_events && !w->in_team
      && ts_trace_region_team_task (w->trace, (guint) region))
    {
      worker_join (w, t);
      w->task_depth = w->stack->len;
      return OTF2_CALLBACK_SUCCESS;
    }
  if (region >= 0 && w->in_team && !w->in_barrier
      && ts_trace_region_team_barrier (w->trace, (guint) region))
    {
      w->in_barrier = w->boundary = TRUE;
      w->wait_from = worker_seconds (w, t);
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
worker_leave (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
              OTF2_AttributeList *a, OTF2_RegionRef ref)
{
  TeamWorker *w = ud;
  gint region = ts_trace_region_of_ref (w->trace, ref);
  worker_account (w, worker_seconds (w, t));
  guint depth = w->stack->len;
  while (depth > 0 && g_array_index (w->stack, guint32, depth - 1) != (guint32) region)
    depth--;
  if (depth == 0)
    return OTF2_CALLBACK_SUCCESS;
  g_array_set_size (w->stack, depth - 1);
  if (region >= 0 && ts_trace_region_team_barrier (w->trace, (guint) region) && w->in_barrier)
    {
      w->in_barrier = FALSE;
      w->began = worker_seconds (w, t);
    }
  if (w->task_depth && depth <= w->task_depth)
    {
      w->task_depth = 0;
      worker_part_ends (w, t);
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
worker_team_begin (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                   OTF2_AttributeList *a, OTF2_CommRef team)
{
  TeamWorker *w = ud;
  w->team_events = TRUE;
  worker_join (w, t);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
worker_team_end (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                 OTF2_AttributeList *a, OTF2_CommRef team)
{
  TeamWorker *w = ud;
  w->team_events = TRUE;
  worker_part_ends (w, t);
  return OTF2_CALLBACK_SUCCESS;
}

/* Read @w up to the end of its next phase in the rank's @team-th team (or
 * of its events); its work there is w->bursts. A thread that ended that
 * team already (it met no barrier the rank met) has none: its next team is
 * the rank's next. Every thread is taken to be in every team. */
static const TsEventSink worker_sink;

static gboolean
read_phase (TsDecoder *src, TeamWorker *w, guint64 team)
{
  g_array_set_size (w->bursts, 0);
  w->boundary = FALSE;
  w->wait_from = -INFINITY;
  /* Its part of the phase began when it left the barrier that ended the
   * last (the LEAVE is read below), or when it joins the team. */
  w->began = -INFINITY;
  while (!w->boundary && (w->reader || w->feed) && !w->eof
         && w->teams_ended + w->teams_skipped < team)
    {
      uint64_t n = 0;
      if (w->feed)
        {
          gint got = ts_archive_feed_next (w->feed, &worker_sink, w, 1, NULL);
          if (got < 0)
            return FALSE;
          n = (uint64_t) got;
        }
      else if (OTF2_Reader_ReadLocalEvents (src->reader, w->reader, 1, &n) != OTF2_SUCCESS)
        return FALSE;
      w->eof = n == 0;
    }
  return TRUE;
}

/* Thread @w has no part in the phase of the rank's @teams-th team being
 * read: no work, no wait at its barrier. */
static void
out_of_phase (TeamWorker *w, guint64 teams)
{
  g_array_set_size (w->bursts, 0);
  w->wait_from = -INFINITY;
  if (w->last_skipped != teams)
    {
      w->teams_skipped++;
      w->last_skipped = teams;
    }
}

/* A phase begins at @now on the rank's own location (its team began, or it
 * left a barrier that released the team at @released, its residual
 * before): its other threads' work in it, read from their own locations
 * up to their next barrier or the team's end, as THREAD_COMPUTE actions
 * (per thread and region), then TEAM_FORK, which starts them beside the
 * rank's own work. */
static void
start_phase (TsRankDecoder *s, double now, double released)
{
  TsTeamDecoder *team = s->team;
  team->phase_start = released;
  team->longest = 0;
  for (guint k = 0; k < team->n; k++)
    {
      TeamWorker *w = &team->workers[k];
      /* A thread with MPI of its own runs its part in its own stream: no
       * work, not even an idle placeholder a what-if would give a share
       * (a job of it beside its stream). */
      if (w->stream)
        {
          out_of_phase (w, team->teams);
          continue;
        }
      /* Threads beyond the team's size are in none of it (num_threads(1),
       * an if clause): their events are their later teams'. They idle, as
       * a member with no work does (a what-if may give them some). */
      if (k < 63 && !(team->members >> (k + 1) & 1))
        out_of_phase (w, team->teams);
      else if (!read_phase (s->source, w, team->teams))
        {
          ts_decode_fail (s, "thread %u: cannot read its events (truncated or corrupt event "
                          "file?)", k + 1);
          return;
        }
      double work = 0;
      /* It began its part after the team was forked or released from its
       * barrier: the runtime woke it late (or it waited for a core). That
       * delay is its own, before its work, and no work: a residual (the
       * replay starts every thread of a phase there; the rank's own late
       * leave is the barrier's residual, charged beside it). Only where
       * its part of the phase ends at a barrier it entered: where it ends
       * with its part of the team, some runtimes report its last barrier
       * late (LLVM's, at the next fork, as EZTrace's OMPT module writes
       * it: its leave then is no wake-up, and was taken for 0.3 s of them
       * in a 0.75 s run). */
      if (w->began > released && w->bursts->len > 0 && w->in_team && w->in_barrier)
        {
          TsAction *a = ts_decode_push (s, TS_ACTION_THREAD_COMPUTE, now);
          a->peer = (gint32) k + 1;
          a->region = NO_REGION;
          a->flags |= TS_ACTION_LATE_WAKE;
          a->seconds = w->began - released;
          work += a->seconds;
        }
      if (w->bursts->len == 0)
        {
          /* A thread idle in the phase: a what-if may give it work. */
          TsAction *a = ts_decode_push (s, TS_ACTION_THREAD_COMPUTE, now);
          a->peer = (gint32) k + 1;
          a->region = NO_REGION;
        }
      for (guint i = 0; i < w->bursts->len; i++)
        {
          const TeamBurst *b = &g_array_index (w->bursts, TeamBurst, i);
          TsAction *a = ts_decode_push (s, b->lock ? TS_ACTION_THREAD_LOCK
                                                   : TS_ACTION_THREAD_COMPUTE, now);
          a->peer = (gint32) k + 1;
          a->region = b->region;
          a->seconds = b->seconds;
          a->bytes = b->lock_id;
          if (b->lock == 2)
            a->flags |= TS_ACTION_RELEASE;
          work += b->seconds;
        }
      /* Its work ends after it: from CPU time, where the thread was
       * seen to stop working (its work took longer than its CPU time on
       * a shared core, which the replay simulates anew). */
      double end = work;
      if (w->trace->compute_clock == TS_COMPUTE_CPU && w->wait_from > -INFINITY)
        end = MAX (work, w->wait_from - released);
      team->longest = MAX (team->longest, end);
    }
  /* Forked even when no other thread works: a what-if may add threads
   * that take a share of the rank's own work (`threads = N`). */
  TsAction *fork = ts_decode_push (s, TS_ACTION_TEAM_FORK, now);
  fork->peer = (gint32) team->size; /* the team's threads */
  team->forked = TRUE;
}

/* The other threads' waits at the barrier @region that the rank leaves at
 * @now: from when each entered it (or ended its part of the team) until
 * then, as THREAD_WAIT actions (for the wait states; the replay simulates
 * its own). A thread that was not seen to wait (no events) has none. */
static void
thread_waits (TsRankDecoder *s, guint32 region, double now)
{
  TsTeamDecoder *team = s->team;
  for (guint k = 0; region != NO_REGION && k < team->n; k++)
    {
      const TeamWorker *w = &team->workers[k];
      if (!(w->wait_from > -INFINITY))
        continue;
      TsAction *a = ts_decode_push (s, TS_ACTION_THREAD_WAIT, now);
      a->peer = (gint32) k + 1;
      a->region = region;
      a->seconds = MAX (0, now - MAX (w->wait_from, team->phase_start));
    }
}

/* The phase ends at @now on the rank's own location: the barrier (@region,
 * left at @now; or NO_REGION at the team's end) joins its threads. It
 * carries its residual: how much longer the rank waited there than for its
 * slowest thread's work since the phase began (a thread woken late, a core
 * shared), as an MPI call carries what the simulation does not explain. */
static double
end_phase (TsRankDecoder *s, guint32 region, double now)
{
  TsTeamDecoder *team = s->team;
  if (!team->forked && region == NO_REGION)
    return 0;
  TsAction *a = ts_decode_push (s, TS_ACTION_TEAM_BARRIER, now);
  a->region = region;
  /* A team of the rank's thread alone waits for no one: its barrier's
   * time stayed the runtime's work (ts_decode_team_waiting), no residual.
   * A thread with MPI of its own in the team is not read here: the replay
   * takes the residual down to what the rank waited beyond that thread's
   * traced arrival (sim/team.c). */
  double residual = 0;
  if (region != NO_REGION && team->n > 0)
    residual = MAX (0, now - MAX (team->barrier_enter, team->phase_start + team->longest));
  a->seconds = residual;
  team->forked = FALSE;
  /* @a is not used after this: pushing moves the actions. */
  thread_waits (s, region, now);
  return residual;
}

/* The rank's team begins at @now (its fork, or its own THREAD_TEAM_BEGIN
 * where no fork came before): TEAM_BEGIN with its size and members, and
 * its first phase. */
static void
begin_team (TsRankDecoder *s, double now)
{
  ts_decode_account_gap (s, now);
  TsTeamDecoder *team = s->team;
  s->stats.teams++;
  team->size = team->requested > 0 ? MIN (team->requested, team->n + 1) : team->n + 1;
  team->requested = 0;
  /* The members: threads with events, in thread order (thread numbers
   * need not be OpenMP's: some writers define idle threads), as many as
   * the fork asked for. */
  if (team->size == team->n + 1)
    team->members = G_MAXUINT64; /* all, those without events too */
  else
    {
      team->members = 1;
      guint slots = team->size - 1;
      for (guint k = 0; k < MIN (team->n, 63u) && slots > 0; k++)
        if (team->workers[k].reader || team->workers[k].feed || team->workers[k].mpi_team)
          {
            team->members |= G_GUINT64_CONSTANT (1) << (k + 1);
            slots--;
          }
    }
  TsAction *begin = ts_decode_push (s, TS_ACTION_TEAM_BEGIN, now);
  begin->peer = (gint32) team->size;
  begin->bytes = team->members;
  team->active = TRUE;
  team->teams++;
  start_phase (s, now, now);
}

/* A fork on the rank's own location: the team it starts has at most
 * @threads threads (as the program asked: num_threads, an if clause), and
 * begins there. The other threads start their part as soon as they wake,
 * which may be before the rank's own thread begins its part: the runtime
 * wakes them first (GCC's libgomp under OMP_WAIT_POLICY=passive: CP2K's
 * master began its part up to 2.4 ms after its fork, while its worker
 * worked). Its time from the fork to its own part is its own, beside the
 * others' work: begun at its THREAD_TEAM_BEGIN instead, their work would
 * start only after it. */
/* ---- a thread with MPI of its own in its rank's teams --------------------
 *
 * It is a stream of its own (its calls run beside the rank's), so its part
 * of each phase is read from its own location, not by the rank's team:
 * its phase begins with THREAD_AWAIT (the replay starts it at the rank's
 * fork of that phase, as the rank's other threads start) and ends with
 * THREAD_ARRIVE (the rank's barrier waits for it). Its time outside its
 * teams and inside their barriers is no work, as a team thread's. */

void
ts_decode_thread_joins (TsRankDecoder *s, double now)
{
  if (s->thread_in_team)
    return;
  ts_decode_account_gap (s, now);
  s->thread_teams = s->thread_in_team = TRUE;
  s->thread_barrier_depth = 0;
  ts_decode_push (s, TS_ACTION_THREAD_AWAIT, now)->peer = 1; /* a team's first phase */
}

void
ts_decode_thread_part_ends (TsRankDecoder *s, double now)
{
  if (!s->thread_in_team)
    return;
  ts_decode_account_gap (s, now);
  s->thread_in_team = FALSE;
  s->thread_barrier_depth = 0;
  ts_decode_push (s, TS_ACTION_THREAD_ARRIVE, now);
}

void
ts_decode_thread_enter (TsRankDecoder *s, guint32 region, double now)
{
  const TsTrace *trace = s->source->trace;
  if (s->thread_in_team && s->thread_barrier_depth == 0
      && ts_trace_region_team_barrier (trace, region))
    {
      /* Its part of the phase is done: it waits from here. */
      s->thread_barrier_depth = s->stack->len;
      TsAction *a = ts_decode_push (s, TS_ACTION_THREAD_ARRIVE, now);
      a->region = region;
    }
}

void
ts_decode_thread_leaving (TsRankDecoder *s, guint depth, double now)
{
  if (s->thread_barrier_depth > 0 && depth <= s->thread_barrier_depth)
    {
      /* Released: its next phase begins (its LEAVE follows). */
      s->thread_barrier_depth = 0;
      ts_decode_push (s, TS_ACTION_THREAD_AWAIT, now);
    }
  if (s->thread_task_depth > 0 && depth <= s->thread_task_depth)
    {
      s->thread_task_depth = 0;
      ts_decode_thread_part_ends (s, now);
    }
}

gboolean
ts_decode_thread_waiting (const TsRankDecoder *s)
{
  return s->thread_teams && (!s->thread_in_team || s->thread_barrier_depth > 0);
}

OTF2_CallbackCode
ts_decode_on_thread_fork (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                          OTF2_AttributeList *a, OTF2_Paradigm model, uint32_t threads)
{
  TsRankDecoder *s = ud;
  s->stats.thread_events++;
  if (!s->team || s->team->active || s->call != NO_REGION)
    return OTF2_CALLBACK_SUCCESS;
  s->team->requested = threads;
  begin_team (s, ts_decode_seconds (s, t));
  return s->error ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* The team ends at @now on the rank's own location (its THREAD_TEAM_END,
 * or the join of a fork whose team showed no end). */
static void
end_team (TsRankDecoder *s, double now)
{
  ts_decode_account_gap (s, now);
  end_phase (s, NO_REGION, now);
  s->team->active = FALSE;
}

OTF2_CallbackCode
ts_decode_on_thread_join (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                          OTF2_AttributeList *a, OTF2_Paradigm model)
{
  TsRankDecoder *s = ud;
  s->stats.thread_events++;
  if (s->team && s->team->active && s->call == NO_REGION)
    end_team (s, ts_decode_seconds (s, t));
  return s->error ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* The rank's own part of a team: the team began at it unless a fork came
 * before (ts_decode_on_thread_fork). */
OTF2_CallbackCode
ts_decode_on_team_begin (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                         OTF2_AttributeList *a, OTF2_CommRef comm)
{
  TsRankDecoder *s = ud;
  s->stats.thread_events++;
  if (s->thread > 0)
    {
      s->thread_team_events = TRUE;
      ts_decode_thread_joins (s, ts_decode_seconds (s, t));
      return s->error ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
    }
  if (!s->team || s->team->active || s->call != NO_REGION)
    return OTF2_CALLBACK_SUCCESS;
  begin_team (s, ts_decode_seconds (s, t));
  return s->error ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode
ts_decode_on_team_end (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                       OTF2_AttributeList *a, OTF2_CommRef comm)
{
  TsRankDecoder *s = ud;
  s->stats.thread_events++;
  if (s->thread > 0)
    {
      s->thread_team_events = TRUE;
      ts_decode_thread_part_ends (s, ts_decode_seconds (s, t));
      return s->error ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
    }
  if (!s->team || !s->team->active)
    return OTF2_CALLBACK_SUCCESS;
  end_team (s, ts_decode_seconds (s, t));
  return s->error ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

void
ts_decode_team_enter (TsRankDecoder *s, guint32 region, double now)
{
  TsTeamDecoder *team = s->team;
  if (!team->active || team->barrier_depth || !ts_trace_region_team_barrier (s->source->trace,
                                                                              region))
    return;
  team->barrier_depth = s->stack->len;
  team->barrier_region = region;
  team->barrier_enter = now;
}

void
ts_decode_team_left (TsRankDecoder *s, double now)
{
  TsTeamDecoder *team = s->team;
  if (team->barrier_depth == 0 || team->barrier_depth <= s->stack->len)
    return;
  team->barrier_depth = 0;
  double residual = end_phase (s, team->barrier_region, now);
  start_phase (s, now, now - residual);
}

gboolean
ts_decode_team_waiting (const TsRankDecoder *s)
{
  return s->team->barrier_depth > 0 && s->team->n > 0;
}

static const TsEventSink worker_sink = {
  .enter = worker_enter,
  .leave = worker_leave,
  .metric = worker_metric,
  .thread_team_begin = worker_team_begin,
  .thread_team_end = worker_team_end,
  .acquire_lock = worker_acquire_lock,
  .release_lock = worker_release_lock,
};

TsTeamDecoder *
ts_team_decoder_new (TsDecoder *src, guint rank)
{
  const TsTrace *trace = src->trace;
  guint n = ts_trace_rank_n_threads (trace, rank);
  /* A rank traced with one thread has its teams too (OpenMP's parallel
   * regions run by one thread): a `threads = N` what-if gives them N. */
  if (n < 1 || !(src->reader || src->writer))
    return NULL;
  TsTeamDecoder *team = g_new0 (TsTeamDecoder, 1);
  team->n = n - 1;
  team->workers = g_new0 (TeamWorker, team->n);
  OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New ();
  OTF2_EvtReaderCallbacks_SetEnterCallback (cb, worker_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback (cb, worker_leave);
  OTF2_EvtReaderCallbacks_SetMetricCallback (cb, worker_metric);
  OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback (cb, worker_team_begin);
  OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback (cb, worker_team_end);
  OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback (cb, worker_acquire_lock);
  OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback (cb, worker_release_lock);
  for (guint k = 0; k < team->n; k++)
    {
      TeamWorker *w = &team->workers[k];
      w->trace = trace;
      w->stack = g_array_new (FALSE, FALSE, sizeof (guint32));
      w->bursts = g_array_new (FALSE, FALSE, sizeof (TeamBurst));
      /* A thread that calls MPI is a stream of its own (decode.c), in no
       * team: nothing of it is read here. */
      gint stream = ts_trace_thread_stream (trace, rank, k + 1);
      if (stream >= 0)
        {
          w->stream = TRUE;
          w->mpi_team = ts_trace_stream_in_teams (trace, (guint) stream);
          continue;
        }
      if (src->writer)
        {
          /* A predicted execution: the replay logs its threads' events. */
          w->feed = ts_archive_writer_feed_new (src->writer,
                                                ts_archive_writer_thread (src->writer, rank,
                                                                          k + 1), NULL);
          continue;
        }
      /* A thread without an event file (some writers define idle ones)
       * has no work: no reader. */
      if (ts_trace_location_has_events (trace, ts_trace_rank_thread_location (trace, rank, k + 1)))
        w->reader = OTF2_Reader_GetEvtReader (src->reader,
                                              ts_trace_rank_thread_location (trace, rank, k + 1));
      if (w->reader)
        OTF2_Reader_RegisterEvtCallbacks (src->reader, w->reader, cb, w);
    }
  OTF2_EvtReaderCallbacks_Delete (cb);
  return team;
}

void
ts_team_decoder_free (TsDecoder *src, TsTeamDecoder *team)
{
  if (!team)
    return;
  for (guint k = 0; k < team->n; k++)
    {
      if (team->workers[k].reader)
        OTF2_Reader_CloseEvtReader (src->reader, team->workers[k].reader);
      ts_archive_feed_free (team->workers[k].feed);
      g_array_unref (team->workers[k].stack);
      g_array_unref (team->workers[k].bursts);
    }
  g_free (team->workers);
  g_free (team);
}
