/* OpenMP's locks on a decoded location (the rank's own, or a thread with
 * MPI of its own): OTF2's ThreadAcquireLock and ThreadReleaseLock become
 * LOCK actions, which the replay's locks order anew (sim/lock.c). The
 * team decoder reads the other threads' own (decode-threads.c). */
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
