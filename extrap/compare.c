#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/extrap-private.h"

#include <gio/gio.h>
#include <string.h>

/* Does rank @r send as many messages to each partner in both? */
static gboolean
same_traffic (const GArray *a, const GArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      const TsPeerTraffic *x = &g_array_index (a, TsPeerTraffic, i);
      const TsPeerTraffic *y = &g_array_index (b, TsPeerTraffic, i);
      if (x->peer != y->peer || x->sent != y->sent)
        return FALSE;
    }
  return TRUE;
}

/* Collectives by operation (communicators have other ids in the two). */
static void
compare_collectives (const TsScaleProfile *p, const TsScaleProfile *q, TsExtrapComparison *c)
{
  guint64 calls[2][TS_COLL_N_OPS] = { { 0 } }, bytes[2][TS_COLL_N_OPS] = { { 0 } };
  const TsScaleProfile *both[2] = { p, q };
  for (guint k = 0; k < 2; k++)
    for (guint u = 0; u < both[k]->collectives->len; u++)
      {
        const TsCollectiveUse *a = &g_array_index (both[k]->collectives, TsCollectiveUse, u);
        calls[k][a->op] += a->calls;
        bytes[k][a->op] += a->bytes_sent;
        c->collective_calls[k] += a->calls;
        c->collective_bytes[k] += a->bytes_sent;
      }
  for (guint op = 0; op < TS_COLL_N_OPS; op++)
    if (calls[0][op] || calls[1][op])
      {
        c->collective_ops++;
        c->same_collectives += calls[0][op] == calls[1][op] && bytes[0][op] == bytes[1][op];
      }
}

gboolean
ts_extrap_compare (const char *predicted, const char *real, TsComputeClock real_clock,
                   TsExtrapComparison *c, GError **error)
{
  g_return_val_if_fail (predicted && real && c, FALSE);
  g_autoptr (TsScaleProfile) p = ts_scale_profile_read (predicted, TS_COMPUTE_WALL, error);
  if (!p)
    return FALSE;
  g_autoptr (TsScaleProfile) q = ts_scale_profile_read (real, real_clock, error);
  if (!q)
    return FALSE;
  if (p->n_ranks != q->n_ranks)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s has %u ranks and %s %u: compare traces at the same rank count",
                   predicted, p->n_ranks, real, q->n_ranks);
      return FALSE;
    }
  *c = (TsExtrapComparison) { .ranks = p->n_ranks };
  const TsScaleProfile *both[2] = { p, q };
  for (guint k = 0; k < 2; k++)
    {
      for (guint r = 0; r < both[k]->n_ranks; r++)
        for (guint i = 0; i < both[k]->traffic[r]->len; i++)
          {
            const TsPeerTraffic *t = &g_array_index (both[k]->traffic[r], TsPeerTraffic, i);
            c->messages[k] += t->sent;
            c->bytes[k] += t->bytes_sent;
          }
      c->compute[k] = ts_scale_profile_total_compute (both[k]);
    }
  compare_collectives (p, q, c);
  for (guint r = 0; r < p->n_ranks; r++)
    {
      const GArray *a = p->partners[r], *b = q->partners[r];
      c->same_partners += a->len == b->len
                          && (a->len == 0
                              || memcmp (a->data, b->data, a->len * sizeof (guint32)) == 0);
      c->same_messages += same_traffic (p->traffic[r], q->traffic[r]);
    }
  return TRUE;
}
