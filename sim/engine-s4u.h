/* The SimGrid adapter of the maestro engine (engine-s4u.cpp): the one file
 * of tracesim written in C++, because completion callbacks, kernel timers and
 * host-to-host transfers exist only in SimGrid's C++ API (s4u). C sees an
 * opaque engine and plain C types; no C++ exception crosses this header.
 *
 * It decides nothing: it starts what the C side asks (a burst, an
 * execution, a transfer), tells when each ended (completed), and when every
 * completion of the current instant has been told (settled). No actor runs:
 * everything happens from SimGrid's maestro, inside ts_s4u_run().
 *
 * Instants follow SimGrid's own rules, so that times are those a replay on
 * actors gets: a burst lasts at least surf/precision (SimGrid floors a sleep
 * there), and a burst that would end within surf/precision after an instant
 * the engine stops at ends at that instant (SimGrid's models finish every
 * action within surf/precision of the current date). */
#ifndef TS_ENGINE_S4U_H
#define TS_ENGINE_S4U_H

#include <glib.h>
#include <simgrid/forward.h>

G_BEGIN_DECLS

typedef struct TsS4u TsS4u;

typedef struct {
  /* An activity started with @cookie ended at the current instant
   * (@failed: its host or a link failed). Start nothing from here. */
  void (*completed) (gpointer data, gpointer cookie, gboolean failed);
  /* Every completion of the current instant has been told: the C side may
   * now run what they woke, and start new activities. */
  void (*settled) (gpointer data);
  gpointer data;
} TsS4uCallbacks;

/* The adapter of this process's SimGrid engine (initialised, platform
 * loaded). @callbacks is copied. Free with ts_s4u_free(). One at a time in
 * a process (SimGrid's signals are process-wide): NULL, with a critical
 * warning, while another is alive. */
TsS4u *ts_s4u_new (const TsS4uCallbacks *callbacks);
void ts_s4u_free (TsS4u *engine);

/* SimGrid's clock. */
double ts_s4u_now (TsS4u *engine);

/* A compute burst on a core of its own: completed at now + MAX (@seconds,
 * surf/precision) (@seconds > 0), or earlier at an instant within
 * surf/precision of that date. A kernel timer, not an activity. @seconds 0:
 * completed at the current instant, before its next settled() (SimGrid's
 * 0-second sleep returns at once). A negative or infinite @seconds fails
 * the run, as any bad argument here does (ts_s4u_run says which). */
void ts_s4u_burst (TsS4u *engine, double seconds, gpointer cookie);
/* @flops executed on @host, sharing its cores with its other executions. */
void ts_s4u_exec (TsS4u *engine, sg_host_t host, double flops, gpointer cookie);
/* An execution on @host that never ends by itself and is never reported: a
 * rank polling, which takes its share of the host's cores (at most @bound
 * flop/s; 0: unbounded) until
 * ts_s4u_unpoll() cancels it. NULL once the engine failed. */
gpointer ts_s4u_poll (TsS4u *engine, sg_host_t host, double bound);
void ts_s4u_unpoll (TsS4u *engine, gpointer poll);
/* @bytes from @src to @dst over the platform's route, starting now. */
void ts_s4u_transfer (TsS4u *engine, sg_host_t src, sg_host_t dst, double bytes, gpointer cookie);
/* Call settled() at the current instant, once every completion of it has
 * been told; once, however many times this is asked before it happens. */
void ts_s4u_settle_soon (TsS4u *engine);

/* Run until nothing is left to happen. FALSE and @error if SimGrid failed
 * (an exception); what is still in flight is then abandoned. */
gboolean ts_s4u_run (TsS4u *engine, GError **error);

G_END_DECLS

#endif
