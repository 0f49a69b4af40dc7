/* OTF2's threading events on a decoded location (the rank's own, or a
 * thread with MPI of its own) besides its teams' (decode-threads.c):
 * OpenMP's locks, whose ThreadAcquireLock and ThreadReleaseLock become
 * LOCK actions, which the replay's locks order anew (sim/lock.c; the team
 * decoder reads the other threads' own); and the events replayed as
 * nothing yet (tasks, a pthread's creation and joining), counted
 * (TsDecodeStats.thread_events) so that info says them. */
#include <config.h>

#define G_LOG_DOMAIN "ts-stream"

#include "model/decode-private.h"

void
ts_decode_lock (TsRankDecoder *s, double now, guint32 lock, gboolean release)
{
  double waited = 0;
  if (!release && s->started && s->call == NO_REGION && s->stack->len > 0
      && s->enter_time == s->last_time && now > s->last_time)
    {
      waited = now - s->last_time;
      s->last_time = now;
    }
  else
    ts_decode_account_gap (s, now);
  TsAction *a = ts_decode_push (s, TS_ACTION_LOCK, now);
  a->region = s->stack->len ? g_array_index (s->stack, guint32, s->stack->len - 1) : NO_REGION;
  a->bytes = lock;
  a->seconds = waited;
  if (release)
    a->flags |= TS_ACTION_RELEASE;
}

/* A lock event at @t on the location @ud decodes. */
static OTF2_CallbackCode
on_lock (void *ud, OTF2_LocationRef loc, uint64_t pos, OTF2_TimeStamp t, uint32_t lock,
         gboolean release)
{
  double now;
  TsRankDecoder *s = ts_decode_of (ud, loc, pos, t, &now);
  s->stats.thread_events++;
  ts_decode_lock (s, now, lock, release);
  return s->error ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode
ts_decode_on_acquire_lock (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                           OTF2_AttributeList *a, OTF2_Paradigm model, uint32_t lock,
                           uint32_t order)
{
  return on_lock (ud, loc, pos, t, lock, FALSE);
}

OTF2_CallbackCode
ts_decode_on_release_lock (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                           OTF2_AttributeList *a, OTF2_Paradigm model, uint32_t lock,
                           uint32_t order)
{
  return on_lock (ud, loc, pos, t, lock, TRUE);
}

static OTF2_CallbackCode
counted (void *ud)
{
  ((TsRankDecoder *) ud)->stats.thread_events++;
  return OTF2_CALLBACK_SUCCESS;
}

#define THREAD_EVENT(name, ...)                                                   \
  static OTF2_CallbackCode on_##name (OTF2_LocationRef loc, OTF2_TimeStamp t,     \
                                      uint64_t pos, void *ud,                     \
                                      OTF2_AttributeList *a, __VA_ARGS__)         \
  {                                                                               \
    return counted (ud);                                                          \
  }
THREAD_EVENT (ThreadTaskCreate, OTF2_CommRef team, uint32_t thread, uint32_t generation)
THREAD_EVENT (ThreadTaskSwitch, OTF2_CommRef team, uint32_t thread, uint32_t generation)
THREAD_EVENT (ThreadTaskComplete, OTF2_CommRef team, uint32_t thread, uint32_t generation)
THREAD_EVENT (ThreadCreate, OTF2_CommRef contingent, uint64_t sequence)
THREAD_EVENT (ThreadWait, OTF2_CommRef contingent, uint64_t sequence)
#undef THREAD_EVENT

void
ts_decode_register_thread_events (OTF2_EvtReaderCallbacks *cb)
{
  OTF2_EvtReaderCallbacks_SetThreadForkCallback (cb, ts_decode_on_thread_fork);
  OTF2_EvtReaderCallbacks_SetThreadJoinCallback (cb, ts_decode_on_thread_join);
  OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback (cb, ts_decode_on_team_begin);
  OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback (cb, ts_decode_on_team_end);
  OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback (cb, ts_decode_on_acquire_lock);
  OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback (cb, ts_decode_on_release_lock);
  OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback (cb, on_ThreadTaskCreate);
  OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback (cb, on_ThreadTaskSwitch);
  OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback (cb, on_ThreadTaskComplete);
  OTF2_EvtReaderCallbacks_SetThreadCreateCallback (cb, on_ThreadCreate);
  OTF2_EvtReaderCallbacks_SetThreadWaitCallback (cb, on_ThreadWait);
}
