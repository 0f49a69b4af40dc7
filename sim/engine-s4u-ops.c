/* SimGrid's adapter (engine-s4u.cpp, C API in engine-s4u.h) as an engine of
 * the ops table (engine-ops.h): a plain forward of every op, so that the
 * C++ file keeps its own C header. */
#include <config.h>

#include "sim/engine-ops.h"
#include "sim/engine-s4u.h"

static TsEngine *
create (gconstpointer config, const TsEngineCallbacks *cb)
{
  TsS4uCallbacks s4u = { cb->completed, cb->settled, cb->data };
  return (TsEngine *) ts_s4u_new (&s4u);
}

static void
engine_free (TsEngine *e)
{
  ts_s4u_free ((TsS4u *) e);
}

static double
now (TsEngine *e)
{
  return ts_s4u_now ((TsS4u *) e);
}

static void
burst (TsEngine *e, double seconds, gpointer cookie)
{
  ts_s4u_burst ((TsS4u *) e, seconds, cookie);
}

static void
exec (TsEngine *e, sg_host_t host, double flops, gpointer cookie)
{
  ts_s4u_exec ((TsS4u *) e, host, flops, cookie);
}

static gpointer
poll (TsEngine *e, sg_host_t host, double bound)
{
  return ts_s4u_poll ((TsS4u *) e, host, bound);
}

static void
unpoll (TsEngine *e, gpointer handle)
{
  ts_s4u_unpoll ((TsS4u *) e, handle);
}

static void
transfer (TsEngine *e, sg_host_t src, sg_host_t dst, double bytes, gpointer cookie)
{
  ts_s4u_transfer ((TsS4u *) e, src, dst, bytes, cookie);
}

static void
settle_soon (TsEngine *e)
{
  ts_s4u_settle_soon ((TsS4u *) e);
}

static gboolean
run (TsEngine *e, GError **error)
{
  return ts_s4u_run ((TsS4u *) e, error);
}

const TsEngineOps ts_engine_s4u = {
  .name = "simgrid",
  .create = create,
  .free = engine_free,
  .now = now,
  .burst = burst,
  .exec = exec,
  .poll = poll,
  .unpoll = unpoll,
  .transfer = transfer,
  .settle_soon = settle_soon,
  .run = run,
};
