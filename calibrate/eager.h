/* The eager / rendezvous threshold of the traced run, from the trace.
 *
 * The replay makes a sender of a message at or above its threshold wait for
 * the receiver. MPI libraries differ (MPICH's shared memory sends 64 KiB
 * eagerly, Open MPI's does not), and a wrong threshold moves waiting from
 * the receivers (Late Sender, Late Broadcast) to the senders. The trace
 * shows which: a blocking send, or a rooted collective's root, that left
 * before its receiver entered did not wait, so its size was eager; blocking
 * sends larger than that which stayed until their late receiver arrived
 * did wait. */
#ifndef TS_EAGER_H
#define TS_EAGER_H

#include "calibrate/calibration.h"
#include "model/trace.h"

/* The threshold the trace shows: the smallest size (from 1 KiB) of two
 * blocking sends that waited for their receivers, both larger than every
 * message sent eagerly, when every receive of the trace names its sender (a
 * rendezvous send waits for the receive that matches it, and a guessed
 * match can hold it forever). Otherwise the smallest consistent with the
 * trace and at least @assumed: one byte above the largest message sent
 * eagerly, or @assumed. Reads the calibration's spool (twice: senders, then
 * receivers) only when a blocking message that large exists; returns
 * @assumed without a spool. 0 on a read error. */
/* What the replay assumes where the trace shows nothing else: MPICH's
 * shared-memory limit. */
#define TS_EAGER_DEFAULT_THRESHOLD 65536

guint64 ts_eager_threshold_infer (const TsTrace *trace, const TsCalibration *calibration, guint64 assumed,
                                  GError **error);

#endif
