/* A trace's timeline, drawn per pixel column as Vampir draws it: one row per
 * rank, each followed by a row per other thread of the rank (a hybrid
 * trace's OpenMP threads, from their own locations), and in each column of
 * a row the region the rank or thread spent most of that column in (a
 * thread outside every region is idle: no region), and the wait-state
 * pattern that filled at least half of it.
 * Built from one streaming pass over the rank's actions and one over its
 * wait states (analysis/waitstates.h), so its memory is rows x columns
 * whatever the trace's length. Also the time of every rank in every
 * region, for the report's heat map (output/html-report.h). */
#ifndef TS_TIMELINE_H
#define TS_TIMELINE_H

#include <glib.h>
#include "analysis/waitstates.h"

G_BEGIN_DECLS

typedef struct TsTimeline TsTimeline;

/* A column no region covers (before a rank's first event, after its last). */
#define TS_TIMELINE_NONE G_MAXUINT32
/* A column without a wait state filling half of it. */
#define TS_TIMELINE_NO_WAIT (-1)

typedef struct {
  guint width;     /* pixel columns */
  double span;     /* seconds the columns cover, from the trace's start; > 0 */
  guint max_rows;  /* more rows than this: every k-th rank (and its threads) gets rows */
  gboolean wait_states; /* hatch them (one more pass: the wait-state analysis) */
  double from;     /* seconds from the trace's start where the columns begin
                    * (a window: tracesim report --from); 0 for the whole run */
} TsTimelineOptions;

/* The time of a rank between its first and its last event that no region
 * holds (in a trace of MPI calls only, the program's compute) is a region
 * of its own, named so; it is no MPI call. */
#define TS_TIMELINE_OUTSIDE_NAME "compute (no region)"

/* Read the OTF2 archive @anchor (its first pass, its actions and its wait
 * states); NULL and @error naming the file when it cannot be read. */
TsTimeline *ts_timeline_build (const char *anchor, const TsTimelineOptions *options,
                               GError **error);
void ts_timeline_free (TsTimeline *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsTimeline, ts_timeline_free)

guint ts_timeline_n_ranks (const TsTimeline *t);
guint ts_timeline_n_rows (const TsTimeline *t);
guint ts_timeline_row_rank (const TsTimeline *t, guint row);
/* The thread of the rank a row draws: 0 for the rank's own location, 1...
 * for its other threads, whose rows follow its own. */
guint ts_timeline_row_thread (const TsTimeline *t, guint row);
/* The row of @rank's own location, or -1 when it has none (every k-th rank
 * drawn). */
gint ts_timeline_rank_row (const TsTimeline *t, guint rank);
/* The region filling most of column @col of @row (TS_TIMELINE_NONE), and
 * the wait-state pattern filling at least half of it (TS_TIMELINE_NO_WAIT). */
guint32 ts_timeline_cell (const TsTimeline *t, guint row, guint col);
gint ts_timeline_wait (const TsTimeline *t, guint row, guint col);

/* The trace's regions and, last, the time outside them
 * (TS_TIMELINE_OUTSIDE_NAME). */
guint ts_timeline_n_regions (const TsTimeline *t);
const char *ts_timeline_region_name (const TsTimeline *t, guint32 region);
/* The region named @name, or TS_TIMELINE_NONE. */
guint32 ts_timeline_region_by_name (const TsTimeline *t, const char *name);
gboolean ts_timeline_region_is_mpi (const TsTimeline *t, guint32 region);
/* Seconds the rank or thread of @row spent in @region itself (not in
 * regions it entered: its exclusive time), and all ranks' own locations
 * together; the whole run's, whatever the window. */
double ts_timeline_row_seconds (const TsTimeline *t, guint row, guint32 region);
double ts_timeline_region_total (const TsTimeline *t, guint32 region);
guint ts_timeline_width (const TsTimeline *t);

/* Point-to-point messages, drawn as lines when there are few: from the
 * send's call entry to the end of the call that completed the receive,
 * seconds from the trace's start, matched in order per sender, receiver,
 * communicator and tag (MPI's non-overtaking rule). Those not wholly in
 * the window are left out. */
typedef struct {
  guint src, dst;
  double sent, received;
} TsTimelineMessage;
#define TS_TIMELINE_MAX_MESSAGES 400
/* The messages, or NULL when the trace has more than
 * TS_TIMELINE_MAX_MESSAGES. Owned by @t. */
const GArray *ts_timeline_messages (const TsTimeline *t);

G_END_DECLS

#endif
