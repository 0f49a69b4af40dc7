/* What the threads of a hybrid (MPI + OpenMP or pthreads) trace hold beyond
 * each rank's own location (ts_trace_rank_n_threads), read once.
 *
 * The replay follows each rank's own location, and takes its other threads'
 * work inside its thread teams (model/decode-threads.c); what they do
 * outside teams is not replayed. Nothing of a trace may be dropped without
 * a word, so their events are counted here and said (info, run,
 * summary.json). A thread that calls MPI is replayed as a location of its
 * own (ts_trace_n_streams), found here.
 *
 * Reads only the threads: a trace without any costs nothing. */
#ifndef TS_THREADS_H
#define TS_THREADS_H

#include "model/trace.h"

G_BEGIN_DECLS

typedef struct {
  guint64 events;      /* on the rank's threads other than its own */
  guint64 mpi;         /* of which MPI: calls entered, message records */
  guint64 calls;       /* the MPI calls entered */
} TsThreadCount;

struct TsThreadScan {
  guint n_ranks;
  TsThreadCount *rank;  /* per rank */
  guint threads;        /* threads other than the ranks' own */
  guint64 events, mpi, calls;  /* over all ranks */
  /* The threads with MPI events, rank << 32 | thread, in rank and thread
   * order: each is replayed as a location of its own (ts_trace_n_streams). */
  GArray *mpi_threads;  /* guint64 */
  GArray *mpi_in_teams; /* gboolean, beside each: it works in its rank's teams too */
  guint64 mpi_replayed, calls_replayed;  /* their MPI events, and calls */
};

/* Count what every rank's other threads hold. NULL and @error if an event
 * file cannot be read. Free with ts_thread_scan_free(). */
TsThreadScan *ts_thread_scan (const TsTrace *trace, GError **error);
void ts_thread_scan_free (TsThreadScan *scan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsThreadScan, ts_thread_scan_free)

/* A region entered (@enter) or left on thread @thread (from 1) of @rank:
 * @region the trace's region index (-1: a ref the trace does not define),
 * @seconds the event's time on the rank's clock as recorded (no clock
 * alignment: add the rank's offset). */
typedef void (*TsThreadRegionFn) (guint rank, guint thread, gboolean enter, gint region,
                                  double seconds, gpointer user_data);
/* Report every ENTER and LEAVE of every rank's other threads to
 * @on_region: a thread's events whole and in order, thread after thread.
 * FALSE and @error if an event file cannot be read. */
gboolean ts_thread_regions_read (const TsTrace *trace, TsThreadRegionFn on_region,
                                 gpointer user_data, GError **error);

/* FALSE and @error (TS_TRACE_ERROR_EVENTS) naming the first thread other
 * than its rank's own that calls MPI, if the thread level the program was
 * given forbids it (ts_thread_scan_level_conflict). */
gboolean ts_thread_scan_check_mpi (const TsThreadScan *scan, const TsTrace *trace,
                                   GError **error);
/* Where the trace says the thread level MPI gave the program
 * (ts_trace_mpi_thread_level) and it allows MPI on one thread only
 * (SINGLE, FUNNELED) while other threads made MPI calls: why that breaks
 * MPI's rules (g_free); else NULL. */
char *ts_thread_scan_level_conflict (const TsThreadScan *scan, const TsTrace *trace);
/* One sentence on how the threads are replayed ("2 threads of 2 ranks, 12
 * events: ..."), or NULL when every location is a rank's own.
 * Free with g_free. */
char *ts_thread_scan_describe (const TsThreadScan *scan, const TsTrace *trace);

G_END_DECLS

#endif
