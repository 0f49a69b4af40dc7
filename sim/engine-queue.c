/* The pure-C event queue (sim/engine-queue.h): a binary heap of activities
 * keyed by (end date, start sequence). Deterministic: equal dates end in
 * the order they were started, as nothing else breaks the tie. */
#include <config.h>

#define G_LOG_DOMAIN "ts-replay"

#include "sim/engine-ops.h"
#include "sim/engine-queue.h"

#include <math.h>

typedef struct {
  double date;
  guint64 seq;
  gpointer cookie;
} Event;

struct TsEngine {
  TsEngineCallbacks cb;
  const TsQueueWorld *world;
  double now;
  guint64 seq;
  GArray *heap;              /* Event, a min-heap on (date, seq) */
  gboolean settle;           /* settled() is asked for */
  GError *error;             /* the first bad request: run() fails with it */
};

static GQuark
queue_error_quark (void)
{
  return g_quark_from_static_string ("tracesim-queue-error-quark");
}

static gboolean
before (const Event *a, const Event *b)
{
  return a->date < b->date || (a->date == b->date && a->seq < b->seq);
}

static void
heap_push (GArray *heap, Event ev)
{
  g_array_append_val (heap, ev);
  Event *h = (Event *) heap->data;
  for (guint i = heap->len - 1; i > 0;)
    {
      guint parent = (i - 1) / 2;
      if (!before (&h[i], &h[parent]))
        break;
      Event t = h[i];
      h[i] = h[parent];
      h[parent] = t;
      i = parent;
    }
}

static Event
heap_pop (GArray *heap)
{
  Event *h = (Event *) heap->data;
  Event top = h[0];
  h[0] = h[heap->len - 1];
  g_array_set_size (heap, heap->len - 1);
  for (guint i = 0;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < heap->len && before (&h[l], &h[m]))
        m = l;
      if (r < heap->len && before (&h[r], &h[m]))
        m = r;
      if (m == i)
        break;
      Event t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
    }
  return top;
}

/* Keep the first bad request; the run stops with it. */
static void
fail (TsEngine *e, const char *what, double value)
{
  if (!e->error)
    g_set_error (&e->error, queue_error_quark (), 0,
                 "event queue: %s of %g (must be finite and not negative)", what, value);
}

static void
after (TsEngine *e, double seconds, gpointer cookie)
{
  heap_push (e->heap, (Event) { e->now + seconds, e->seq++, cookie });
}

static TsEngine *
create (gconstpointer config, const TsEngineCallbacks *cb)
{
  TsEngine *e = g_new0 (TsEngine, 1);
  e->cb = *cb;
  e->world = config;
  e->heap = g_array_new (FALSE, FALSE, sizeof (Event));
  return e;
}

static void
engine_free (TsEngine *e)
{
  if (!e)
    return;
  g_array_unref (e->heap);
  g_clear_error (&e->error);
  g_free (e);
}

static double
now (TsEngine *e)
{
  return e->now;
}

static void
burst (TsEngine *e, double seconds, gpointer cookie)
{
  if (!(isfinite (seconds) && seconds >= 0))
    fail (e, "a burst", seconds);
  else
    after (e, seconds, cookie);
}

static guint
host_index (TsEngine *e, sg_host_t host)
{
  return (guint) ((const TsQueueHost *) (gconstpointer) host - e->world->hosts);
}

static void
exec (TsEngine *e, sg_host_t host, double flops, gpointer cookie)
{
  double speed = ((const TsQueueHost *) (gconstpointer) host)->speed;
  if (!(isfinite (flops) && flops >= 0))
    fail (e, "an execution", flops);
  else if (!(isfinite (speed) && speed > 0))
    fail (e, "a host speed", speed);
  else
    after (e, flops / speed, cookie);
}

/* The queue has no cores to share: a poll takes nothing. */
static gpointer
poll (TsEngine *e, sg_host_t host, double bound)
{
  return e;
}

static void
unpoll (TsEngine *e, gpointer handle)
{
}

static void
transfer (TsEngine *e, sg_host_t src, sg_host_t dst, double bytes, gpointer cookie)
{
  const TsQueueWorld *w = e->world;
  gsize pair = (gsize) host_index (e, src) * w->n_hosts + host_index (e, dst);
  double latency = w->pair_latency ? w->pair_latency[pair] : w->latency;
  double bandwidth = w->pair_bandwidth ? w->pair_bandwidth[pair] : w->bandwidth;
  double seconds = latency + bytes / bandwidth;
  if (!(isfinite (bytes) && bytes >= 0))
    fail (e, "a transfer of bytes", bytes);
  else if (!(isfinite (seconds) && seconds >= 0))
    fail (e, "a transfer's duration (latency, bandwidth)", seconds);
  else
    after (e, seconds, cookie);
}

static void
settle_soon (TsEngine *e)
{
  e->settle = TRUE;
}

static gboolean
run (TsEngine *e, GError **error)
{
  while (!e->error)
    {
      const Event *top = e->heap->len ? &g_array_index (e->heap, Event, 0) : NULL;
      if (top && top->date <= e->now)
        {
          Event ev = heap_pop (e->heap);
          e->cb.completed (e->cb.data, ev.cookie, FALSE);
          e->settle = TRUE;
        }
      else if (e->settle)
        {
          e->settle = FALSE;
          e->cb.settled (e->cb.data);
        }
      else if (top)
        e->now = top->date;
      else
        break;
    }
  if (!e->error)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&e->error));
  return FALSE;
}

const TsEngineOps ts_engine_queue = {
  .name = "queue",
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
