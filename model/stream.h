/* Where a replay reads each rank's actions from, with the profile applied.
 *
 * The profile's first pass keeps the actions it read in a rank log (an
 * anonymous temporary file, see rank_log.h) whenever they need no envelope
 * inference; the replay then reads them from there instead of decoding the
 * OTF2 trace a second time, with one small buffer per rank instead of one OTF2
 * chunk per rank (256 KiB to 1 MiB each, which is what made 1024-rank replays
 * cost gigabytes). Otherwise (EZTrace traces whose receives must be inferred)
 * it streams the trace again with the profile's stream options.
 *
 * Either way the actions are the same: clock offsets applied, and the CPU cost
 * of each MPI call on the call's first action. */
#ifndef TS_FEED_H
#define TS_FEED_H

#include <glib.h>
#include "calibrate/calibration.h"

G_BEGIN_DECLS

typedef struct TsActionFeed TsActionFeed;

TsActionFeed *ts_action_feed_open (const TsTrace *trace, const TsProfile *profile,
                                   GError **error);
void ts_action_feed_free (TsActionFeed *feed);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsActionFeed, ts_action_feed_free)

/* Next action of @rank: TRUE and @action filled, or FALSE at the end of the
 * rank's actions (error unset) or on a read error (error set). Ranks may be
 * read in any interleaving. */
gboolean ts_action_feed_next (TsActionFeed *feed, guint rank, TsAction *action, GError **error);

/* TRUE if the actions come from the profile's spool rather than the trace. */
gboolean ts_action_feed_is_spooled (const TsActionFeed *feed);

G_END_DECLS

#endif
