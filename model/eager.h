/* The eager / rendezvous threshold of the traced run, from the trace.
 *
 * The replay makes a sender of a message at or above its threshold wait for
 * the receiver. MPI libraries differ (MPICH's shared memory sends 64 KiB
 * eagerly, Open MPI's does not), and a wrong threshold moves waiting from
 * the receivers (Late Sender, Late Broadcast) to the senders. The trace
 * shows which: a blocking send, or a rooted collective's root, that left
 * before its receiver entered did not wait, so its size was eager. */
#ifndef TS_EAGER_H
#define TS_EAGER_H

#include "model/profile.h"
#include "model/trace.h"

/* The smallest threshold consistent with the trace and at least @assumed:
 * one byte above the largest message sent eagerly, or @assumed when no
 * message of @assumed bytes or more was. Reads the profile's spool (twice:
 * senders, then receivers) only when a blocking message that large exists;
 * returns @assumed without a spool. 0 on a read error. */
guint64 ts_eager_threshold_infer (const TsTrace *trace, const TsProfile *profile, guint64 assumed,
                                  GError **error);

#endif
