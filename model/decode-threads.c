/* OTF2's threading events on a rank's own location (decode.c registers
 * them): OpenMP's fork, join and thread teams, pthreads' create and wait,
 * locks and tasks. The replay does not model threads yet, so they become no
 * action; they are counted (TsDecodeStats.thread_events), so that `info`
 * says what was not used. A location's THREAD_BEGIN and THREAD_END, which
 * EZTrace writes on every rank, mark its life and are not counted. */
#include <config.h>

#define G_LOG_DOMAIN "ts-stream"

#include "model/decode-private.h"

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
THREAD_EVENT (ThreadFork, OTF2_Paradigm model, uint32_t threads)
THREAD_EVENT (ThreadJoin, OTF2_Paradigm model)
THREAD_EVENT (ThreadTeamBegin, OTF2_CommRef team)
THREAD_EVENT (ThreadTeamEnd, OTF2_CommRef team)
THREAD_EVENT (ThreadAcquireLock, OTF2_Paradigm model, uint32_t lock, uint32_t order)
THREAD_EVENT (ThreadReleaseLock, OTF2_Paradigm model, uint32_t lock, uint32_t order)
THREAD_EVENT (ThreadTaskCreate, OTF2_CommRef team, uint32_t thread, uint32_t generation)
THREAD_EVENT (ThreadTaskSwitch, OTF2_CommRef team, uint32_t thread, uint32_t generation)
THREAD_EVENT (ThreadTaskComplete, OTF2_CommRef team, uint32_t thread, uint32_t generation)
THREAD_EVENT (ThreadCreate, OTF2_CommRef contingent, uint64_t sequence)
THREAD_EVENT (ThreadWait, OTF2_CommRef contingent, uint64_t sequence)
#undef THREAD_EVENT

void
ts_decode_register_thread_events (OTF2_EvtReaderCallbacks *cb)
{
  OTF2_EvtReaderCallbacks_SetThreadForkCallback (cb, on_ThreadFork);
  OTF2_EvtReaderCallbacks_SetThreadJoinCallback (cb, on_ThreadJoin);
  OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback (cb, on_ThreadTeamBegin);
  OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback (cb, on_ThreadTeamEnd);
  OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback (cb, on_ThreadAcquireLock);
  OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback (cb, on_ThreadReleaseLock);
  OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback (cb, on_ThreadTaskCreate);
  OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback (cb, on_ThreadTaskSwitch);
  OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback (cb, on_ThreadTaskComplete);
  OTF2_EvtReaderCallbacks_SetThreadCreateCallback (cb, on_ThreadCreate);
  OTF2_EvtReaderCallbacks_SetThreadWaitCallback (cb, on_ThreadWait);
}
