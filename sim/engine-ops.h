/* The engine under the maestro engine's decisions (engine-maestro.c): a
 * small C ops table that starts compute bursts, executions and transfers,
 * reads the clock, and calls back when they end. Two implementations:
 * SimGrid's (ts_engine_s4u: engine-s4u-ops.c wraps engine-s4u.cpp), and a
 * pure-C event queue (ts_engine_queue: engine-queue.c) that lets a test
 * replay many times in one process, which SimGrid cannot (one engine per
 * process).
 *
 * An engine decides nothing and knows no rank, request or channel: it hands
 * back the cookies it was given. Hosts are opaque sg_host_t values that
 * only the engine reads (SimGrid's hosts, or the queue's own records). */
#ifndef TS_ENGINE_OPS_H
#define TS_ENGINE_OPS_H

#include <glib.h>
#include <simgrid/forward.h>

typedef struct TsEngine TsEngine; /* opaque: one implementation's state */

/* What an engine calls back; the same contract as TsS4uCallbacks
 * (sim/engine-s4u.h). */
typedef struct {
  /* An activity started with @cookie ended at the current instant
   * (@failed: its host or a link failed). Start nothing from here. */
  void (*completed) (gpointer data, gpointer cookie, gboolean failed);
  /* Every completion of the current instant has been told: the caller may
   * now run what they woke, and start new activities. */
  void (*settled) (gpointer data);
  gpointer data;
} TsEngineCallbacks;

typedef struct TsEngineOps {
  const char *name;
  /* A new engine calling @callbacks (copied); @config is the
   * implementation's (NULL for SimGrid's, whose engine and platform are the
   * process's; a TsQueueWorld for the queue's). Free with free(). */
  TsEngine *(*create) (gconstpointer config, const TsEngineCallbacks *callbacks);
  void (*free) (TsEngine *e);
  /* The simulated clock. */
  double (*now) (TsEngine *e);
  /* A compute burst of @seconds on a core of its own. */
  void (*burst) (TsEngine *e, double seconds, gpointer cookie);
  /* @flops executed on @host. */
  void (*exec) (TsEngine *e, sg_host_t host, double flops, gpointer cookie);
  /* A rank polling on @host, from now until unpoll(): an execution that
   * takes its share of a core, at most @bound flop/s (0: no bound), and
   * never ends by itself (no callback). */
  gpointer (*poll) (TsEngine *e, sg_host_t host, double bound);
  void (*unpoll) (TsEngine *e, gpointer poll);
  /* @bytes from @src to @dst, starting now. */
  void (*transfer) (TsEngine *e, sg_host_t src, sg_host_t dst, double bytes, gpointer cookie);
  /* Call settled() at the current instant, after its last completion; once,
   * however many times this is asked before it happens. */
  void (*settle_soon) (TsEngine *e);
  /* Run until nothing is left to happen. FALSE and @error if the engine
   * failed (a bad duration, SimGrid's exception). */
  gboolean (*run) (TsEngine *e, GError **error);
} TsEngineOps;

/* SimGrid's engine (this process's one, initialised, platform loaded):
 * sim/engine-s4u.h tells its rules for instants. */
extern const TsEngineOps ts_engine_s4u;
/* The pure-C event queue (sim/engine-queue.h). */
extern const TsEngineOps ts_engine_queue;

#endif
